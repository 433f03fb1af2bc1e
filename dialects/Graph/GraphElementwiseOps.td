//===- GraphElementwiseOps.td - elementwise graph ops ------*- tablegen -*-===//
//
// Unary, broadcasting binary/ternary and variadic elementwise ops.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHC_GRAPH_ELEMENTWISE_OPS_TD
#define GRAPHC_GRAPH_ELEMENTWISE_OPS_TD

include "dialects/Graph/GraphBase.td"

//===----------------------------------------------------------------------===//
// Unary without attributes
//===----------------------------------------------------------------------===//

def Graph_AbsOp : Graph_UnaryOp<"abs", Graph_NumericTensor> {
  let scalarDefinition = "abs";
  let summary = "absolute value, |x|";
  let description = [{
    ```mlir
    %y = graph.abs %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_NegOp : Graph_UnaryOp<"neg", Graph_SignedOrFloatTensor> {
  let scalarDefinition = "neg";
  let summary = "negation, -x";
  let description = [{
    ```mlir
    %y = graph.neg %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_ExpOp : Graph_UnaryOp<"exp", Graph_FloatTensor> {
  let scalarDefinition = "exp";
  let summary = "natural exponential, e^x";
  let description = [{
    ```mlir
    %y = graph.exp %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_LogOp : Graph_UnaryOp<"log", Graph_FloatTensor> {
  let scalarDefinition = "log";
  let summary = "natural logarithm";
  let description = [{
    ```mlir
    %y = graph.log %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_SqrtOp : Graph_UnaryOp<"sqrt", Graph_FloatTensor> {
  let scalarDefinition = "sqrt";
  let summary = "square root";
  let description = [{
    ```mlir
    %y = graph.sqrt %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_ReciprocalOp : Graph_UnaryOp<"reciprocal", Graph_FloatTensor> {
  let scalarDefinition = "reciprocal";
  let summary = "reciprocal, 1/x";
  let description = [{
    ```mlir
    %y = graph.reciprocal %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_ReluOp : Graph_UnaryOp<"relu", Graph_SignedOrFloatTensor> {
  let scalarDefinition = "relu";
  let summary = "rectified linear unit, max(x, 0)";
  let description = [{
    ```mlir
    %y = graph.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_SigmoidOp : Graph_UnaryOp<"sigmoid", Graph_FloatTensor> {
  let scalarDefinition = "sigmoid";
  let summary = "logistic sigmoid, 1/(1+e^-x)";
  let description = [{
    ```mlir
    %y = graph.sigmoid %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_SiluOp : Graph_UnaryOp<"silu", Graph_FloatTensor> {
  let scalarDefinition = "silu";
  let summary = "x * sigmoid(x) (SiLU, Swish with beta 1)";
  let description = [{
    Not an ONNX op before opset 24's Swish: graphc-recognize-exporter-patterns
    makes it of Mul(x, Sigmoid(x)), which torch writes for SiLU.
    ```mlir
    %y = graph.silu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_HardSwishOp : Graph_UnaryOp<"hard_swish", Graph_FloatTensor> {
  let scalarDefinition = "hardSwish";
  let summary = "x * max(0, min(1, x/6 + 1/2))";
  let description = [{
    ```mlir
    %y = graph.hard_swish %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_TanhOp : Graph_UnaryOp<"tanh", Graph_FloatTensor> {
  let scalarDefinition = "tanh";
  let summary = "hyperbolic tangent";
  let description = [{
    ```mlir
    %y = graph.tanh %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_ErfOp : Graph_UnaryOp<"erf", Graph_FloatTensor> {
  let scalarDefinition = "erf";
  let summary = "Gauss error function";
  let description = [{
    ```mlir
    %y = graph.erf %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_SoftplusOp : Graph_UnaryOp<"softplus", Graph_FloatTensor> {
  let scalarDefinition = "softplus";
  let summary = "ln(1 + e^x)";
  let description = [{
    ```mlir
    %y = graph.softplus %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_SoftsignOp : Graph_UnaryOp<"softsign", Graph_FloatTensor> {
  let scalarDefinition = "softsign";
  let summary = "x / (1 + |x|)";
  let description = [{
    ```mlir
    %y = graph.softsign %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_MishOp : Graph_UnaryOp<"mish", Graph_FloatTensor> {
  let scalarDefinition = "mish";
  let summary = "x * tanh(softplus(x))";
  let description = [{
    ```mlir
    %y = graph.mish %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_FloorOp : Graph_UnaryOp<"floor", Graph_FloatTensor> {
  let scalarDefinition = "floor";
  let summary = "round towards negative infinity";
  let description = [{
    ```mlir
    %y = graph.floor %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_CeilOp : Graph_UnaryOp<"ceil", Graph_FloatTensor> {
  let scalarDefinition = "ceil";
  let summary = "round towards positive infinity";
  let description = [{
    ```mlir
    %y = graph.ceil %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_RoundOp : Graph_UnaryOp<"round", Graph_FloatTensor> {
  let scalarDefinition = "round";
  let summary = "round half to even";
  let description = [{
    ```mlir
    %y = graph.round %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_SignOp : Graph_UnaryOp<"sign", Graph_NumericTensor> {
  let scalarDefinition = "sign";
  let summary = "-1, 0 or 1 by the sign of x";
  let description = [{
    ```mlir
    %y = graph.sign %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_SinOp : Graph_UnaryOp<"sin", Graph_FloatTensor> {
  let scalarDefinition = "sin";
  let summary = "sine";
  let description = [{
    ```mlir
    %y = graph.sin %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_CosOp : Graph_UnaryOp<"cos", Graph_FloatTensor> {
  let scalarDefinition = "cos";
  let summary = "cosine";
  let description = [{
    ```mlir
    %y = graph.cos %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_TanOp : Graph_UnaryOp<"tan", Graph_FloatTensor> {
  let scalarDefinition = "tan";
  let summary = "tangent";
  let description = [{
    ```mlir
    %y = graph.tan %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_AsinOp : Graph_UnaryOp<"asin", Graph_FloatTensor> {
  let scalarDefinition = "asin";
  let summary = "arcsine";
  let description = [{
    ```mlir
    %y = graph.asin %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_AcosOp : Graph_UnaryOp<"acos", Graph_FloatTensor> {
  let scalarDefinition = "acos";
  let summary = "arccosine";
  let description = [{
    ```mlir
    %y = graph.acos %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_AtanOp : Graph_UnaryOp<"atan", Graph_FloatTensor> {
  let scalarDefinition = "atan";
  let summary = "arctangent";
  let description = [{
    ```mlir
    %y = graph.atan %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_SinhOp : Graph_UnaryOp<"sinh", Graph_FloatTensor> {
  let scalarDefinition = "sinh";
  let summary = "hyperbolic sine";
  let description = [{
    ```mlir
    %y = graph.sinh %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_CoshOp : Graph_UnaryOp<"cosh", Graph_FloatTensor> {
  let scalarDefinition = "cosh";
  let summary = "hyperbolic cosine";
  let description = [{
    ```mlir
    %y = graph.cosh %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_AsinhOp : Graph_UnaryOp<"asinh", Graph_FloatTensor> {
  let scalarDefinition = "asinh";
  let summary = "inverse hyperbolic sine";
  let description = [{
    ```mlir
    %y = graph.asinh %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_AcoshOp : Graph_UnaryOp<"acosh", Graph_FloatTensor> {
  let scalarDefinition = "acosh";
  let summary = "inverse hyperbolic cosine";
  let description = [{
    ```mlir
    %y = graph.acosh %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_AtanhOp : Graph_UnaryOp<"atanh", Graph_FloatTensor> {
  let scalarDefinition = "atanh";
  let summary = "inverse hyperbolic tangent";
  let description = [{
    ```mlir
    %y = graph.atanh %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def Graph_NotOp : Graph_UnaryOp<"not", Graph_BoolTensor> {
  let scalarDefinition = "logicalNot";
  let summary = "logical negation";
  let description = [{
    ```mlir
    %y = graph.not %x : (tensor<?x4xi1>) -> tensor<?x4xi1>
    ```
  }];
}

def Graph_BitwiseNotOp : Graph_UnaryOp<"bitwise_not", Graph_IntTensor> {
  let scalarDefinition = "bitwiseNot";
  let summary = "bitwise complement";
  let description = [{
    ```mlir
    %y = graph.bitwise_not %x : (tensor<?x4xi32>) -> tensor<?x4xi32>
    ```
  }];
}

def Graph_IdentityOp : Graph_UnaryOp<"identity"> {
  let scalarDefinition = "identity";
  // The host kernel is written by hand: copies the bytes of any dtype.
  let scalarHostKernel = 0;
  let summary = "the input, unchanged (also ONNX Dropout at inference)";
  let description = [{
    ```mlir
    %y = graph.identity %x : (tensor<2xi64>) -> tensor<2xi64>
    ```
  }];
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Unary with attributes
//===----------------------------------------------------------------------===//

def Graph_LeakyReluOp : Graph_UnaryOp<"leaky_relu", Graph_FloatTensor> {
  let scalarDefinition = "leakyRelu";
  let summary = "x for x >= 0, alpha * x otherwise";
  let description = [{
    ```mlir
    %y = graph.leaky_relu %x {alpha = 1.000000e-01 : f32} : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.01">:$alpha);
}

def Graph_HardSigmoidOp : Graph_UnaryOp<"hard_sigmoid", Graph_FloatTensor> {
  let scalarDefinition = "hardSigmoid";
  let summary = "max(0, min(1, alpha * x + beta))";
  let description = [{
    ```mlir
    %y = graph.hard_sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.2">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.5">:$beta);
}

def Graph_GeluOp : Graph_UnaryOp<"gelu", Graph_FloatTensor> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `approximate` is "none" (erf form) or "tanh".
    ```mlir
    %y = graph.gelu %x {approximate = "tanh"} : (tensor<?x8xf32>) -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let hasVerifier = 1;
}

def Graph_EluOp : Graph_UnaryOp<"elu", Graph_FloatTensor> {
  let scalarDefinition = "elu";
  let summary = "x for x > 0, alpha * (e^x - 1) otherwise";
  let description = [{
    ```mlir
    %y = graph.elu %x {alpha = 1.000000e+00 : f32} : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha);
}

def Graph_SeluOp : Graph_UnaryOp<"selu", Graph_FloatTensor> {
  let scalarDefinition = "selu";
  let summary = "gamma * (x for x > 0, alpha * (e^x - 1) otherwise)";
  let description = [{
    ```mlir
    %y = graph.selu %x : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
      DefaultValuedAttr<F32Attr, "1.67326319217681884765625">:$alpha,
      DefaultValuedAttr<F32Attr, "1.05070102214813232421875">:$gamma);
}

def Graph_CeluOp : Graph_UnaryOp<"celu", Graph_FloatTensor> {
  let scalarDefinition = "celu";
  // The host kernel is written by hand: refuses alpha = 0, by which the
  // definition divides.
  let scalarHostKernel = 0;
  let summary = "max(0, x) + min(0, alpha * (e^(x/alpha) - 1))";
  let description = [{
    ```mlir
    %y = graph.celu %x {alpha = 2.000000e+00 : f32} : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha);
}

def Graph_ThresholdedReluOp : Graph_UnaryOp<"thresholded_relu",
                                            Graph_FloatTensor> {
  let scalarDefinition = "thresholdedRelu";
  let summary = "x for x > alpha, 0 otherwise";
  let description = [{
    ```mlir
    %y = graph.thresholded_relu %x {alpha = 1.000000e+00 : f32} : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha);
}

def Graph_ShrinkOp : Graph_UnaryOp<"shrink", Graph_NumericTensor> {
  let scalarDefinition = "shrink";
  // The host kernel is written by hand: ONNX compares an integer input with the
  // float lambd in float, the definition in the integer type.
  let scalarHostKernel = 0;
  let summary = "x + bias for x < -lambd, x - bias for x > lambd, else 0";
  let description = [{
    ```mlir
    %y = graph.shrink %x {bias = 0.000000e+00 : f32, lambd = 5.000000e-01 : f32} : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.0">:$bias,
                       DefaultValuedAttr<F32Attr, "0.5">:$lambd);
}

def Graph_IsNanOp : Graph_InferOp<"is_nan", [Pure, Graph_Pointwise]> {
  let scalarDefinition = "isNan";
  let summary = "whether each element is NaN";
  let description = [{
    ```mlir
    %y = graph.is_nan %x : (tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input);
  let results = (outs Graph_BoolTensor:$output);
  let sharedInference = [{
    return ::graphc::graph::inferSameShape(
        adaptor.getInput(), ::mlir::IntegerType::get(infer.getContext(), 1),
        results);
  }];
}

def Graph_IsInfOp : Graph_InferOp<"is_inf", [Pure, Graph_Pointwise]> {
  let scalarDefinition = "isInf";
  let summary = "whether each element is an infinity of the selected signs";
  let description = [{
    ```mlir
    %y = graph.is_inf %x {detect_negative = 0 : i64} : (tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "1">:$detect_negative,
                       DefaultValuedAttr<I64Attr, "1">:$detect_positive);
  let results = (outs Graph_BoolTensor:$output);
  let sharedInference = [{
    return ::graphc::graph::inferSameShape(
        adaptor.getInput(), ::mlir::IntegerType::get(infer.getContext(), 1),
        results);
  }];
}

def Graph_CastOp : Graph_InferOp<"cast", [Pure, Graph_Pointwise]> {
  let summary = "element type conversion (also ONNX CastLike)";
  let description = [{
    The result element type is `to`; the shape is the input's. `saturate`
    applies to 8-bit float results (lib/Support/Float8.h): out-of-range
    values become the largest finite value instead of inf or NaN.
    ```mlir
    %y = graph.cast %x {to = f16} : (tensor<?x4xf32>) -> tensor<?x4xf16>
    ```
  }];
  let arguments = (ins Graph_AnyTensor:$input, TypeAttr:$to,
                       DefaultValuedAttr<I64Attr, "1">:$saturate);
  let results = (outs Graph_AnyTensor:$output);
  let hasCanonicalizer = 1;
}

def Graph_ClipOp : Graph_InferOp<"clip", [Pure, AttrSizedOperandSegments,
                                          Graph_Pointwise]> {
  let summary = "clamp to [min, max]; absent bounds do not clamp";
  let description = [{
    `min` and `max` are optional scalars of the input's element type.
    ```mlir
    %y = graph.clip %x, %lo, %hi {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$input,
                       Optional<Graph_NumericTensor>:$min,
                       Optional<Graph_NumericTensor>:$max);
  let results = (outs Graph_NumericTensor:$output);
  let hasVerifier = 1;
  let sharedInference = [{
    return ::graphc::graph::inferSameType(adaptor.getInput(), results);
  }];
}

def Graph_QuantizedTensor : Graph_TensorOf<[I8, UI8, I16, UI16]>;
def Graph_QuantizeScaleTensor : Graph_TensorOf<[F16, BF16, F32]>;

def Graph_QuantizeLinearOp : Graph_InferOp<"quantize_linear",
                                           [Pure, Graph_Pointwise]> {
  let summary = "ONNX QuantizeLinear: saturate(round(x / scale) + zero_point)";
  let description = [{
    Rounds half to even and saturates to the range of the zero point's
    element type, which is the result's. `scale` and `zero_point` broadcast
    against `x` like any pointwise operand: the importer reshapes ONNX's
    per-axis vectors and repeats blocked scales so that they do. `saturate`
    is ONNX's and matters only for float8 results. An f64 `x` (which ONNX
    does not allow) computes in double: QLinearMatMul and QLinearConv
    requantize their exact products that way.
    ```mlir
    %y = graph.quantize_linear %x, %scale, %zp : (tensor<2x3xf32>, tensor<3x1xf32>, tensor<ui8>) -> tensor<2x3xui8>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x,
                       Graph_QuantizeScaleTensor:$scale,
                       Graph_QuantizedTensor:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$saturate);
  let results = (outs Graph_QuantizedTensor:$output);
  let hasVerifier = 1;
}

def Graph_DequantizeLinearOp : Graph_InferOp<"dequantize_linear",
                                             [Pure, Graph_Pointwise]> {
  let summary = "ONNX DequantizeLinear: (x - zero_point) * scale";
  let description = [{
    Computes in float like the ONNX reference, then rounds to the scale's
    element type, which is the result's. `zero_point` has the element type
    of `x`; `scale` and `zero_point` broadcast against `x` (see
    graph.quantize_linear).
    ```mlir
    %y = graph.dequantize_linear %x, %scale, %zp : (tensor<2x3xi8>, tensor<f32>, tensor<i8>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Graph_TensorOf<[I8, UI8, I16, UI16, I32]>:$x,
                       Graph_QuantizeScaleTensor:$scale,
                       Graph_TensorOf<[I8, UI8, I16, UI16, I32]>:$zero_point);
  let results = (outs Graph_QuantizeScaleTensor:$output);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Broadcasting binary
//===----------------------------------------------------------------------===//

def Graph_AddOp : Graph_BinaryOp<"add", Graph_NumericTensor, [Commutative]> {
  let scalarDefinition = "add";
  let summary = "elementwise addition with numpy broadcasting";
  let description = [{
    ```mlir
    %0 = graph.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    ```
  }];
}

def Graph_SubOp : Graph_BinaryOp<"sub", Graph_NumericTensor> {
  let scalarDefinition = "sub";
  let summary = "elementwise subtraction with numpy broadcasting";
  let description = [{
    ```mlir
    %0 = graph.sub %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    ```
  }];
}

def Graph_MulOp : Graph_BinaryOp<"mul", Graph_NumericTensor, [Commutative]> {
  let scalarDefinition = "mul";
  let summary = "elementwise multiplication with numpy broadcasting";
  let description = [{
    ```mlir
    %0 = graph.mul %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
}

def Graph_DivOp : Graph_BinaryOp<"div", Graph_NumericTensor> {
  let scalarDefinition = "div";
  // The host kernel is written by hand: integer division by zero gives 0 and
  // INT_MIN / -1 wraps, where the definition would trap inside the compiler.
  let scalarHostKernel = 0;
  let summary = "elementwise division with numpy broadcasting";
  let description = [{
    Integer division truncates towards zero.
    ```mlir
    %0 = graph.div %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Graph_PowOp : Graph_InferOp<"pow", [Pure, Graph_Pointwise]> {
  let summary = "base ^ exponent with numpy broadcasting";
  let description = [{
    The exponent may have another element type; the result has the base's.
    ```mlir
    %0 = graph.pow %x, %e : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$lhs, Graph_NumericTensor:$rhs);
  let results = (outs Graph_NumericTensor:$output);
  let sharedInference = [{
    return ::graphc::graph::inferBroadcast(
        infer, adaptor.getOperands(),
        ::mlir::cast<::mlir::ShapedType>(adaptor.getLhs().getType())
            .getElementType(),
        results);
  }];
}

def Graph_ModOp : Graph_BinaryOp<"mod", Graph_NumericTensor> {
  let scalarDefinition = "mod";
  // The host kernel is written by hand: integer modulo by zero gives 0, where the
  // definition would trap inside the compiler.
  let scalarHostKernel = 0;
  let summary = "remainder with numpy broadcasting";
  let description = [{
    `fmod = 0` takes the divisor's sign (integers only), `fmod = 1` the
    dividend's (C fmod); float operands require `fmod = 1`.
    ```mlir
    %0 = graph.mod %a, %b {fmod = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$lhs, Graph_NumericTensor:$rhs,
                       DefaultValuedAttr<I64Attr, "0">:$fmod);
  let hasVerifier = 1;
}

// ONNX PRelu's types.
def Graph_PReluTensor : Graph_TensorOf<[Graph_Float, I32, I64, UI32, UI64]>;

def Graph_PReluOp : Graph_InferOp<"prelu", [Pure, Graph_Pointwise]> {
  let scalarDefinition = "prelu";
  let summary = "x for x >= 0, slope * x otherwise; slope broadcasts to x";
  let description = [{
    ```mlir
    %y = graph.prelu %x, %slope : (tensor<1x3x8x8xf32>, tensor<3x1x1xf32>) -> tensor<1x3x8x8xf32>
    ```
  }];
  let arguments = (ins Graph_PReluTensor:$input, Graph_PReluTensor:$slope);
  let results = (outs Graph_PReluTensor:$output);
}

def Graph_EqualOp : Graph_CompareOp<"equal", Graph_Tensor, [Commutative]> {
  let scalarDefinition = "equal";
  let summary = "elementwise a == b";
  let description = [{
    ```mlir
    %0 = graph.equal %a, %b : (tensor<4xi64>, tensor<i64>) -> tensor<4xi1>
    ```
  }];
}

def Graph_LessOp : Graph_CompareOp<"less", Graph_NumericTensor> {
  let scalarDefinition = "less";
  let summary = "elementwise a < b";
  let description = [{
    ```mlir
    %0 = graph.less %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
}

def Graph_LessOrEqualOp : Graph_CompareOp<"less_or_equal",
                                          Graph_NumericTensor> {
  let scalarDefinition = "lessOrEqual";
  let summary = "elementwise a <= b";
  let description = [{
    ```mlir
    %0 = graph.less_or_equal %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
}

def Graph_GreaterOp : Graph_CompareOp<"greater", Graph_NumericTensor> {
  let scalarDefinition = "greater";
  let summary = "elementwise a > b";
  let description = [{
    ```mlir
    %0 = graph.greater %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
}

def Graph_GreaterOrEqualOp : Graph_CompareOp<"greater_or_equal",
                                             Graph_NumericTensor> {
  let scalarDefinition = "greaterOrEqual";
  let summary = "elementwise a >= b";
  let description = [{
    ```mlir
    %0 = graph.greater_or_equal %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
}

def Graph_AndOp : Graph_BinaryOp<"and", Graph_BoolTensor, [Commutative]> {
  let scalarDefinition = "logicalAnd";
  let summary = "logical and with numpy broadcasting";
  let description = [{
    ```mlir
    %0 = graph.and %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    ```
  }];
}

def Graph_OrOp : Graph_BinaryOp<"or", Graph_BoolTensor, [Commutative]> {
  let scalarDefinition = "logicalOr";
  let summary = "logical or with numpy broadcasting";
  let description = [{
    ```mlir
    %0 = graph.or %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    ```
  }];
}

def Graph_XorOp : Graph_BinaryOp<"xor", Graph_BoolTensor, [Commutative]> {
  let scalarDefinition = "logicalXor";
  let summary = "logical exclusive or with numpy broadcasting";
  let description = [{
    ```mlir
    %0 = graph.xor %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    ```
  }];
}

def Graph_BitShiftOp : Graph_BinaryOp<"bit_shift", Graph_IntTensor> {
  let summary = "shift of unsigned integers by a broadcast amount";
  let description = [{
    `direction` is "LEFT" or "RIGHT".
    ```mlir
    %0 = graph.bit_shift %a, %b {direction = "LEFT"} : (tensor<4xui8>, tensor<ui8>) -> tensor<4xui8>
    ```
  }];
  let arguments = (ins Graph_IntTensor:$lhs, Graph_IntTensor:$rhs,
                       StrAttr:$direction);
  let hasVerifier = 1;
}

def Graph_BitwiseAndOp : Graph_BinaryOp<"bitwise_and", Graph_IntTensor,
                                        [Commutative]> {
  let scalarDefinition = "bitwiseAnd";
  let summary = "bitwise and with numpy broadcasting";
  let description = [{
    ```mlir
    %0 = graph.bitwise_and %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    ```
  }];
}

def Graph_BitwiseOrOp : Graph_BinaryOp<"bitwise_or", Graph_IntTensor,
                                       [Commutative]> {
  let scalarDefinition = "bitwiseOr";
  let summary = "bitwise or with numpy broadcasting";
  let description = [{
    ```mlir
    %0 = graph.bitwise_or %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    ```
  }];
}

def Graph_BitwiseXorOp : Graph_BinaryOp<"bitwise_xor", Graph_IntTensor,
                                        [Commutative]> {
  let scalarDefinition = "bitwiseXor";
  let summary = "bitwise exclusive or with numpy broadcasting";
  let description = [{
    ```mlir
    %0 = graph.bitwise_xor %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Ternary and variadic
//===----------------------------------------------------------------------===//

def Graph_WhereOp : Graph_InferOp<"where", [Pure, Graph_Pointwise]> {
  let summary = "select x where condition holds, else y (broadcasting)";
  let description = [{
    ```mlir
    %0 = graph.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_BoolTensor:$condition, Graph_Tensor:$x,
                       Graph_Tensor:$y);
  let results = (outs Graph_Tensor:$output);
}

def Graph_SumOp : Graph_VariadicOp<"sum", Graph_NumericTensor> {
  let summary = "elementwise sum of one or more broadcast operands";
  let description = [{
    ```mlir
    %0 = graph.sum %a, %b, %c : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
}

def Graph_MeanOp : Graph_VariadicOp<"mean", Graph_FloatTensor> {
  let summary = "elementwise mean of one or more broadcast operands";
  let description = [{
    ```mlir
    %0 = graph.mean %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
}

def Graph_MaxOp : Graph_VariadicOp<"max", Graph_NumericTensor> {
  let summary = "elementwise maximum of one or more broadcast operands";
  let description = [{
    ```mlir
    %0 = graph.max %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
}

def Graph_MinOp : Graph_VariadicOp<"min", Graph_NumericTensor> {
  let summary = "elementwise minimum of one or more broadcast operands";
  let description = [{
    ```mlir
    %0 = graph.min %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
}

#endif // GRAPHC_GRAPH_ELEMENTWISE_OPS_TD
