//===- GraphQuantizedOps.td - products of quantized operands -*- tablegen -*-===//
//
// The linear ops of quantized regions: graphc-form-quantized-regions makes
// them of DequantizeLinear -> MatMul/Gemm/Conv chains, and the importer of
// MatMulInteger and ConvInteger without zero points. Their operands are the
// stored 8-bit values and their result the wide accumulator; the scales and
// everything after the product are ordinary graph ops of the epilogue.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHC_GRAPH_QUANTIZED_OPS_TD
#define GRAPHC_GRAPH_QUANTIZED_OPS_TD

include "dialects/Graph/GraphNNOps.td"

def Graph_QuantizedOperand : Graph_TensorOf<[I8, UI8, F8E4M3FN]>;
def Graph_QuantizedAccumulator : Graph_TensorOf<[I32, F32]>;

def Graph_QuantizedMatMulOp
    : Graph_InferOp<"quantized_mat_mul", [Pure, Graph_MatmulKind]> {
  let summary = "the exact product of 8-bit matrices, accumulated wide";
  let description = [{
    `Y[..., m, n] = sum_k A[..., m, k] * B'[..., k, n]`, where B' is B, or
    B with its last two dims swapped when `trans_b` is 1 (B stored
    [..., N, K], the form int8 and fp8 tensor-core GEMMs read). A and B are
    int8 or uint8 (in any mix; the result is i32, their exact sum, which
    wraps modulo 2^32 only past 2^17 products of the extreme values), or
    both float8 e4m3fn (the result is f32, products summed in f32). A has
    rank >= 2; B has rank 2 (one matrix for every batch index) or A's rank
    with batch dims that broadcast. No zero points: a product of centered
    values is the product of the stored ones minus row and column sums,
    which the rewrite writes as ops of its own.
    ```mlir
    %y = graph.quantized_mat_mul %a, %b {trans_b = 1 : i64} : (tensor<4x64xi8>, tensor<32x64xi8>) -> tensor<4x32xi32>
    ```
  }];
  let arguments = (ins Graph_QuantizedOperand:$a, Graph_QuantizedOperand:$b,
                       DefaultValuedAttr<I64Attr, "0">:$trans_b);
  let results = (outs Graph_QuantizedAccumulator:$y);
  let hasVerifier = 1;
}

def Graph_QuantizedConvOp
    : Graph_ConvLikeOp<"quantized_conv", [Graph_ConvKind]> {
  let summary = "the exact convolution of 8-bit integer tensors, in i32";
  let description = [{
    graph.conv's window, layout and group attributes and meaning, on int8
    or uint8 X and W (in any mix) with no bias; the result is the exact i32
    sum (ONNX ConvInteger with zero points of zero). Padding reads zeros.
    ```mlir
    %y = graph.quantized_conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x16x16xi8>, tensor<16x8x3x3xi8>) -> tensor<1x16x16x16xi32>
    ```
  }];
  let arguments = (ins Graph_TensorOf<[I8, UI8]>:$x,
                       Graph_TensorOf<[I8, UI8]>:$w,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       DefaultValuedAttr<I64Attr, "0">:$channels_last);
  let results = (outs Graph_TensorOf<[I32]>:$y);
}

#endif // GRAPHC_GRAPH_QUANTIZED_OPS_TD
