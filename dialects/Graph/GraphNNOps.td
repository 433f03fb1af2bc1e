//===- GraphNNOps.td - linear algebra, norms, pooling ---*- tablegen -*-===//

#ifndef GRAPHC_GRAPH_NN_OPS_TD
#define GRAPHC_GRAPH_NN_OPS_TD

include "dialects/Graph/GraphBase.td"

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Graph_MatMulOp : Graph_InferOp<"mat_mul", [Pure, Graph_MatmulKind]> {
  let summary = "numpy matmul: batched, broadcasting, 1-D operands promoted";
  let description = [{
    ```mlir
    %0 = graph.mat_mul %a, %b : (tensor<?x4x8xf32>, tensor<8x16xf32>) -> tensor<?x4x16xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$a, Graph_NumericTensor:$b);
  let results = (outs Graph_NumericTensor:$y);
}

def Graph_GemmOp : Graph_InferOp<"gemm", [Pure, Graph_MatmulKind]> {
  let summary = "alpha * op(A) * op(B) + beta * C, C broadcast to [M, N]";
  let description = [{
    ```mlir
    %0 = graph.gemm %a, %b, %c {transB = 1 : i64} : (tensor<?x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$a, Graph_NumericTensor:$b,
                       Optional<Graph_NumericTensor>:$c,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0">:$beta,
                       DefaultValuedAttr<I64Attr, "0">:$transA,
                       DefaultValuedAttr<I64Attr, "0">:$transB);
  let results = (outs Graph_NumericTensor:$y);
}

def Graph_AttentionOp
    : Graph_InferOp<"attention", [Pure, Graph_AttentionKind]> {
  let summary = "scaled dot-product attention with grouped K/V heads";
  let description = [{
    Per batch b and query head h: softmax(scale * Q K^T + mask) V, where
    query head h reads K/V head h / (Hq / Hkv). Q is [B, Hq, Sq, D], K
    [B, Hkv, Skv, D], V [B, Hkv, Skv, Dv]; the optional additive mask
    broadcasts to [B, Hq, Sq, Skv]; the result is [B, Hq, Sq, Dv].
    `is_causal` = 1 masks key j out of query i's row when j > i (top-left
    aligned, like torch's is_causal). `nan_to_zero` = 1 counts NaN
    probabilities as 0, so a row with every key masked out yields 0: torch's
    exported SDPA writes this as Where(IsNaN(p), 0, p). The softmax is
    computed like graph.softmax's. Not an ONNX op: graphc-recognize-attention
    makes it of the chains exporters write, and the kernel templates compute
    it without writing the scores to memory.
    ```mlir
    %o = graph.attention %q, %k, %v, %mask {scale = 1.250000e-01 : f64} : (tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>, tensor<1x1x1x128xf32>) -> tensor<1x12x128x64xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$q, Graph_FloatTensor:$k,
                       Graph_FloatTensor:$v,
                       Optional<Graph_FloatTensor>:$mask,
                       DefaultValuedAttr<F64Attr, "1.0">:$scale,
                       DefaultValuedAttr<I64Attr, "0">:$is_causal,
                       DefaultValuedAttr<I64Attr, "0">:$nan_to_zero);
  let results = (outs Graph_FloatTensor:$y);
}

def Graph_DetOp : Graph_InferOp<"det", [Pure]> {
  let summary = "determinants of the trailing square matrices";
  let description = [{
    `X` is [*, M, M]; the result is [*]. LU factorisation with partial
    pivoting, accumulated in float64.
    ```mlir
    %y = graph.det %x : (tensor<2x3x3xf32>) -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x);
  let results = (outs Graph_FloatTensor:$y);
}

// Attributes shared by convolutions and pooling windows.
class Graph_ConvLikeOp<string mnemonic, list<Trait> traits = []>
    : Graph_InferOp<mnemonic, !listconcat(traits, [Pure])> {
  let hasVerifier = 1;
}

def Graph_ConvOp : Graph_ConvLikeOp<"conv", [Graph_ConvKind]> {
  let summary = "N-d grouped convolution, NC[D]HW or channels-last layout";
  let description = [{
    `W` is [M, C/group, k...]; the optional bias `B` is [M].
    ```mlir
    %y = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x32x32xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<?x8x32x32xf32>
    ```
    With `channels_last = 1` (never imported: graphc-convert-conv-layout
    sets it for convolutions cuDNN computes) X is [N, spatial..., C], W
    [M, k..., C/group] and Y [N, out..., M]; the window attributes still
    list the spatial dims in order.
  }];
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$w,
                       Optional<Graph_FloatTensor>:$b,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       DefaultValuedAttr<I64Attr, "0">:$channels_last);
  let results = (outs Graph_FloatTensor:$y);
}

def Graph_ConvTransposeOp
    : Graph_ConvLikeOp<"conv_transpose", [Graph_ConvKind]> {
  let summary = "N-d grouped transposed convolution, NC[D]HW layout";
  let description = [{
    `W` is [C, M/group, k...]; the optional bias `B` is [M]. An explicit
    `output_shape` (spatial dims) overrides the pads.
    ```mlir
    %y = graph.conv_transpose %x, %w {strides = array<i64: 2, 2>} : (tensor<1x8x4x4xf32>, tensor<8x3x2x2xf32>) -> tensor<1x3x8x8xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$w,
                       Optional<Graph_FloatTensor>:$b,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$output_padding,
                       OptionalAttr<DenseI64ArrayAttr>:$output_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Graph_FloatTensor:$y);
}

def Graph_EinsumOp : Graph_InferOp<"einsum", [Pure, Graph_MatmulKind]> {
  let summary = "Einstein summation over one or more operands";
  let description = [{
    The equation uses letters for dims, `...` for broadcast dims and an
    optional explicit `->` output.
    ```mlir
    %0 = graph.einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    ```
  }];
  let arguments = (ins Variadic<Graph_NumericTensor>:$inputs,
                       StrAttr:$equation);
  let results = (outs Graph_NumericTensor:$output);
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

def Graph_BatchNormalizationOp
    : Graph_InferOp<"batch_normalization", [Pure, Graph_ReductionKind]> {
  let summary = "inference-mode batch normalisation over the channel dim";
  let description = [{
    scale, B, input_mean and input_var are [C]; only inference mode
    (`training_mode = 0`) is supported.
    ```mlir
    %y = graph.batch_normalization %x, %s, %b, %m, %v : (tensor<?x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3x8x8xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$scale,
                       Graph_FloatTensor:$b, Graph_FloatTensor:$input_mean,
                       Graph_FloatTensor:$input_var,
                       DefaultValuedAttr<F32Attr, "1e-5">:$epsilon,
                       DefaultValuedAttr<F32Attr, "0.9">:$momentum,
                       DefaultValuedAttr<I64Attr, "0">:$training_mode);
  let results = (outs Graph_FloatTensor:$y);
  let hasVerifier = 1;
  let sharedInference = [{
    return ::graphc::graph::inferSameType(adaptor.getX(), results);
  }];
}

def Graph_InstanceNormalizationOp
    : Graph_InferOp<"instance_normalization", [Pure, Graph_ReductionKind]> {
  let summary = "normalisation over the spatial dims of each (n, c)";
  let description = [{
    ```mlir
    %y = graph.instance_normalization %x, %s, %b : (tensor<?x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3x8x8xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
                       Graph_FloatTensor:$b,
                       DefaultValuedAttr<F32Attr, "1e-5">:$epsilon);
  let results = (outs Graph_FloatTensor:$output);
  let hasVerifier = 1;
  let sharedInference = [{
    return ::graphc::graph::inferSameType(adaptor.getInput(), results);
  }];
}

def Graph_LayerNormalizationOp
    : Graph_InferOp<"layer_normalization", [Pure, Graph_ReductionKind]> {
  let summary = "normalisation over the dims from `axis` on";
  let description = [{
    Scale and the optional bias B broadcast to the normalised dims. Only the
    normalised output is modelled.
    ```mlir
    %y = graph.layer_normalization %x, %s, %b : (tensor<?x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$scale,
                       Optional<Graph_FloatTensor>:$b,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1e-5">:$epsilon,
                       DefaultValuedAttr<I64Attr, "1">:$stash_type);
  let results = (outs Graph_FloatTensor:$y);
  let hasVerifier = 1;
  let sharedInference = [{
    return ::graphc::graph::inferSameType(adaptor.getX(), results);
  }];
}

def Graph_RmsNormalizationOp
    : Graph_InferOp<"rms_normalization", [Pure, Graph_ReductionKind]> {
  let summary = "root-mean-square normalisation over the dims from `axis` on";
  let description = [{
    x / sqrt(mean(x^2) + epsilon) * scale, the mean over the dims from
    `axis` on, scale broadcast to them (ONNX 23's RMSNormalization).
    graphc-recognize-exporter-patterns makes it of the Pow, ReduceMean, Add,
    Sqrt, Reciprocal (or Div) and Mul chain Llama's exports write.
    ```mlir
    %y = graph.rms_normalization %x, %s {epsilon = 9.99999997E-7 : f32} : (tensor<?x16x64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$scale,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1e-5">:$epsilon,
                       DefaultValuedAttr<I64Attr, "1">:$stash_type);
  let results = (outs Graph_FloatTensor:$y);
  let hasVerifier = 1;
  let sharedInference = [{
    return ::graphc::graph::inferSameType(adaptor.getX(), results);
  }];
}

def Graph_GroupNormalizationOp
    : Graph_InferOp<"group_normalization", [Pure, Graph_ReductionKind]> {
  let summary = "normalisation over channel groups (opset 21: [C] scale/bias)";
  let description = [{
    ```mlir
    %y = graph.group_normalization %x, %s, %b {num_groups = 2 : i64} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$scale,
                       Graph_FloatTensor:$bias,
                       DefaultValuedAttr<F32Attr, "1e-5">:$epsilon,
                       I64Attr:$num_groups,
                       DefaultValuedAttr<I64Attr, "1">:$stash_type);
  let results = (outs Graph_FloatTensor:$y);
  let hasVerifier = 1;
  let sharedInference = [{
    return ::graphc::graph::inferSameType(adaptor.getX(), results);
  }];
}

def Graph_LpNormalizationOp
    : Graph_InferOp<"lp_normalization", [Pure, Graph_ReductionKind]> {
  let summary = "divide by the Lp norm (p = 1 or 2) along `axis`";
  let description = [{
    ```mlir
    %y = graph.lp_normalization %x {axis = 1 : i64, p = 2 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<I64Attr, "2">:$p);
  let results = (outs Graph_FloatTensor:$output);
  let hasVerifier = 1;
  let sharedInference = [{
    return ::graphc::graph::inferSameType(adaptor.getInput(), results);
  }];
}

def Graph_MeanVarianceNormalizationOp
    : Graph_InferOp<"mean_variance_normalization", [Pure, Graph_ReductionKind]> {
  let summary = "(x - mean) / sqrt(variance) over `axes`";
  let description = [{
    ```mlir
    %y = graph.mean_variance_normalization %x : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 2, 3}">:$axes);
  let results = (outs Graph_FloatTensor:$output);
  let hasVerifier = 1;
  let sharedInference = [{
    return ::graphc::graph::inferSameType(adaptor.getInput(), results);
  }];
}

def Graph_LrnOp : Graph_InferOp<"lrn", [Pure, Graph_ReductionKind]> {
  let summary = "local response normalisation across `size` channels";
  let description = [{
    ```mlir
    %y = graph.lrn %x {size = 5 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.0001">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.75">:$beta,
                       DefaultValuedAttr<F32Attr, "1.0">:$bias,
                       I64Attr:$size);
  let results = (outs Graph_FloatTensor:$output);
  let hasVerifier = 1;
  let sharedInference = [{
    return ::graphc::graph::inferSameType(adaptor.getInput(), results);
  }];
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

def Graph_MaxPoolOp : Graph_ConvLikeOp<"max_pool", [Graph_ReductionKind]> {
  let summary = "N-d max pooling, NC[D]HW layout";
  let description = [{
    ```mlir
    %y = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$x,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       DefaultValuedAttr<I64Attr, "0">:$storage_order,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Graph_NumericTensor:$y);
}

// MaxPool with its Indices output: not a reduction-kind op, so that fusion
// leaves it (and its two results) a kernel of its own.
def Graph_MaxPoolWithIndicesOp
    : Graph_MultiResultInferOp<"max_pool_with_indices", [Pure]> {
  let summary = "N-d max pooling and the flat index of each maximum";
  let description = [{
    graph.max_pool's result and, per element, the index of the first largest
    element of its window into the whole input: (n * C + c) * prod(spatial)
    plus the position's row-major offset, or with `storage_order` = 1 its
    column-major one. A window with no element inside the input has index -1.
    ```mlir
    %y, %i = graph.max_pool_with_indices %x {kernel_shape = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>) -> (tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>)
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$x,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       DefaultValuedAttr<I64Attr, "0">:$storage_order,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Graph_NumericTensor:$y, Graph_I64Tensor:$indices);
  let hasVerifier = 1;
}

def Graph_AveragePoolOp : Graph_ConvLikeOp<"average_pool", [Graph_ReductionKind]> {
  let summary = "N-d average pooling, NC[D]HW layout";
  let description = [{
    ```mlir
    %y = graph.average_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                       DefaultValuedAttr<I64Attr, "0">:$count_include_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Graph_FloatTensor:$y);
}

def Graph_LpPoolOp : Graph_ConvLikeOp<"lp_pool", [Graph_ReductionKind]> {
  let summary = "N-d Lp-norm pooling, NC[D]HW layout";
  let description = [{
    ```mlir
    %y = graph.lp_pool %x {kernel_shape = array<i64: 2, 2>, p = 2 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DenseI64ArrayAttr:$kernel_shape,
                       DefaultValuedAttr<I64Attr, "2">:$p,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Graph_FloatTensor:$y);
}

// Pooling over all spatial dims: [N, C, d...] -> [N, C, 1...].
class Graph_GlobalPoolOp<string mnemonic, Type operandType>
    : Graph_InferOp<mnemonic, [Pure, Graph_ReductionKind]> {
  let arguments = (ins operandType:$x);
  let results = (outs operandType:$y);
  let sharedInference = [{
    return ::graphc::graph::inferGlobalPool(infer, adaptor.getX(), results);
  }];
}

def Graph_GlobalAveragePoolOp
    : Graph_GlobalPoolOp<"global_average_pool", Graph_FloatTensor> {
  let summary = "mean over all spatial dims";
  let description = [{
    ```mlir
    %y = graph.global_average_pool %x : (tensor<?x8x7x7xf32>) -> tensor<?x8x1x1xf32>
    ```
  }];
}

def Graph_GlobalMaxPoolOp
    : Graph_GlobalPoolOp<"global_max_pool", Graph_NumericTensor> {
  let summary = "maximum over all spatial dims";
  let description = [{
    ```mlir
    %y = graph.global_max_pool %x : (tensor<?x8x7x7xf32>) -> tensor<?x8x1x1xf32>
    ```
  }];
}

def Graph_GlobalLpPoolOp
    : Graph_GlobalPoolOp<"global_lp_pool", Graph_FloatTensor> {
  let summary = "Lp norm over all spatial dims";
  let description = [{
    ```mlir
    %y = graph.global_lp_pool %x {p = 2 : i64} : (tensor<?x8x7x7xf32>) -> tensor<?x8x1x1xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x,
                       DefaultValuedAttr<I64Attr, "2">:$p);
}

#endif // GRAPHC_GRAPH_NN_OPS_TD
