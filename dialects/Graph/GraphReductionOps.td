//===- GraphReductionOps.td - reductions, top-k, softmax -*- tablegen -*-===//

#ifndef GRAPHC_GRAPH_REDUCTION_OPS_TD
#define GRAPHC_GRAPH_REDUCTION_OPS_TD

include "dialects/Graph/GraphBase.td"

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Graph_ReduceSumOp : Graph_ReduceOp<"reduce_sum"> {
  let summary = "sum over `axes`";
  let description = [{
    ```mlir
    %r = graph.reduce_sum %x, %axes {keepdims = 0 : i64} : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_ReduceMeanOp : Graph_ReduceOp<"reduce_mean"> {
  let summary = "mean over `axes`";
  let description = [{
    ```mlir
    %r = graph.reduce_mean %x, %axes {keepdims = 0 : i64} : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x4xf32>
    ```
  }];
}

// Max and min also take bool (opset 20): they are any and all.
def Graph_ReduceMaxOp : Graph_ReduceOp<"reduce_max", Graph_Tensor> {
  let summary = "maximum over `axes`";
  let description = [{
    ```mlir
    %r = graph.reduce_max %x, %axes {keepdims = 0 : i64} : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_ReduceMinOp : Graph_ReduceOp<"reduce_min", Graph_Tensor> {
  let summary = "minimum over `axes`";
  let description = [{
    ```mlir
    %r = graph.reduce_min %x, %axes {keepdims = 0 : i64} : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_ReduceProdOp : Graph_ReduceOp<"reduce_prod"> {
  let summary = "product over `axes`";
  let description = [{
    ```mlir
    %r = graph.reduce_prod %x, %axes {keepdims = 0 : i64} : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_ReduceL1Op : Graph_ReduceOp<"reduce_l1"> {
  let summary = "sum of absolute values over `axes`";
  let description = [{
    ```mlir
    %r = graph.reduce_l1 %x, %axes {keepdims = 0 : i64} : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_ReduceL2Op : Graph_ReduceOp<"reduce_l2"> {
  let summary = "square root of the sum of squares over `axes`";
  let description = [{
    ```mlir
    %r = graph.reduce_l2 %x, %axes {keepdims = 0 : i64} : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_ReduceLogSumOp : Graph_ReduceOp<"reduce_log_sum"> {
  let summary = "log of the sum over `axes`";
  let description = [{
    ```mlir
    %r = graph.reduce_log_sum %x, %axes {keepdims = 0 : i64} : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_ReduceLogSumExpOp : Graph_ReduceOp<"reduce_log_sum_exp"> {
  let summary = "log of the sum of exponentials over `axes`";
  let description = [{
    ```mlir
    %r = graph.reduce_log_sum_exp %x, %axes {keepdims = 0 : i64} : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_ReduceSumSquareOp : Graph_ReduceOp<"reduce_sum_square"> {
  let summary = "sum of squares over `axes`";
  let description = [{
    ```mlir
    %r = graph.reduce_sum_square %x, %axes {keepdims = 0 : i64} : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x4xf32>
    ```
  }];
}

// Index of the extreme element along `axis`.
class Graph_ArgReduceOp<string mnemonic>
    : Graph_InferOp<mnemonic, [Pure, Graph_ReductionKind]> {
  let arguments = (ins Graph_NumericTensor:$data,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<I64Attr, "1">:$keepdims,
                       DefaultValuedAttr<I64Attr, "0">:$select_last_index);
  let results = (outs Graph_I64Tensor:$reduced);
  let sharedInference = [{
    return ::graphc::graph::inferArgReduction(infer, adaptor.getData(),
                                              adaptor.getAxis(),
                                              adaptor.getKeepdims(), results);
  }];
}

def Graph_ArgMaxOp : Graph_ArgReduceOp<"arg_max"> {
  let summary = "index of the maximum along `axis`";
  let description = [{
    ```mlir
    %i = graph.arg_max %x {axis = 1 : i64, keepdims = 0 : i64} : (tensor<?x10xf32>) -> tensor<?xi64>
    ```
  }];
}

def Graph_ArgMinOp : Graph_ArgReduceOp<"arg_min"> {
  let summary = "index of the minimum along `axis`";
  let description = [{
    ```mlir
    %i = graph.arg_min %x {axis = 1 : i64} : (tensor<?x10xf32>) -> tensor<?x1xi64>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Normalised exponentials (opset-13 semantics: one axis)
//===----------------------------------------------------------------------===//

class Graph_SoftmaxLikeOp<string mnemonic>
    : Graph_InferOp<mnemonic, [Pure, Graph_ReductionKind]> {
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Graph_FloatTensor:$output);
  let hasVerifier = 1;
  let sharedInference = [{
    return ::graphc::graph::inferSameType(adaptor.getInput(), results);
  }];
}

def Graph_SoftmaxOp : Graph_SoftmaxLikeOp<"softmax"> {
  let summary = "e^x normalised to sum 1 along `axis`";
  let description = [{
    ```mlir
    %y = graph.softmax %x {axis = -1 : i64} : (tensor<?x10xf32>) -> tensor<?x10xf32>
    ```
  }];
}

def Graph_LogSoftmaxOp : Graph_SoftmaxLikeOp<"log_softmax"> {
  let summary = "log of softmax along `axis`";
  let description = [{
    ```mlir
    %y = graph.log_softmax %x : (tensor<?x10xf32>) -> tensor<?x10xf32>
    ```
  }];
}

def Graph_HardmaxOp : Graph_SoftmaxLikeOp<"hardmax"> {
  let summary = "1 at the first maximum along `axis`, 0 elsewhere";
  let description = [{
    ```mlir
    %y = graph.hardmax %x : (tensor<?x10xf32>) -> tensor<?x10xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Scans and selection
//===----------------------------------------------------------------------===//

def Graph_CumSumOp : Graph_InferOp<"cum_sum", [Pure, Graph_ReductionKind, Graph_ChecksValues]> {
  let summary = "cumulative sum along the axis given by a scalar operand";
  let description = [{
    ```mlir
    %y = graph.cum_sum %x, %axis {exclusive = 1 : i64} : (tensor<4x8xf32>, tensor<i64>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$x, Graph_IndexTensor:$axis,
                       DefaultValuedAttr<I64Attr, "0">:$exclusive,
                       DefaultValuedAttr<I64Attr, "0">:$reverse);
  let results = (outs Graph_NumericTensor:$y);
}

def Graph_TopKOp
    : Graph_MultiResultInferOp<"top_k", [Pure, Graph_ReductionKind]> {
  let summary = "the K largest (or smallest) elements along `axis`";
  let description = [{
    `k` is a 1-element i64 tensor; results are the values and their i64
    indices.
    ```mlir
    %v, %i = graph.top_k %x, %k {axis = -1 : i64} : (tensor<?x10xf32>, tensor<1xi64>) -> (tensor<?x3xf32>, tensor<?x3xi64>)
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$x, Graph_I64Tensor:$k,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<I64Attr, "1">:$largest,
                       DefaultValuedAttr<I64Attr, "1">:$sorted);
  let results = (outs Graph_NumericTensor:$values, Graph_I64Tensor:$indices);
}

def Graph_DftOp : Graph_InferOp<"dft", [Pure, AttrSizedOperandSegments]> {
  let summary = "discrete Fourier transform along `axis` (ONNX DFT-20)";
  let description = [{
    The last dim of `input` holds a real value (1) or a real and an
    imaginary part (2); the result's last dim is 2. With n the scalar
    `dft_length` (default: the dim at `axis`), the input along `axis` is
    truncated or zero-padded to n and
    `y[k] = sum_j x[j] * exp(-+2 pi i j k / n)` (times 1/n when `inverse`);
    `onesided` keeps k in [0, n/2]. `axis` is a scalar (default -2) and
    may not name the last dim. Both scalars size the result: inference
    reads them when they are constants.
    ```mlir
    %y = graph.dft %x, %n, %axis {onesided = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x10x1xf32>, tensor<i64>, tensor<i64>) -> tensor<2x6x2xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       Optional<Graph_IndexTensor>:$dft_length,
                       Optional<Graph_IndexTensor>:$axis,
                       DefaultValuedAttr<I64Attr, "0">:$inverse,
                       DefaultValuedAttr<I64Attr, "0">:$onesided);
  let results = (outs Graph_FloatTensor:$output);
}

#endif // GRAPHC_GRAPH_REDUCTION_OPS_TD
