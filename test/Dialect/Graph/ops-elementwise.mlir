// RUN: graphc-opt %s --split-input-file | graphc-opt --split-input-file | FileCheck %s
// CHECK-LABEL: func @unary_float
func.func @unary_float(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: graph.exp %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %0 = graph.exp %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.log %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = graph.log %0 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.sqrt %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = graph.sqrt %1 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.reciprocal %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %3 = graph.reciprocal %2 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.sigmoid %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %4 = graph.sigmoid %3 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.hard_swish %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %5 = graph.hard_swish %4 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.tanh %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %6 = graph.tanh %5 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.erf %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %7 = graph.erf %6 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.softplus %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %8 = graph.softplus %7 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.softsign %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %9 = graph.softsign %8 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.mish %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %10 = graph.mish %9 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.floor %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %11 = graph.floor %10 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.ceil %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %12 = graph.ceil %11 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.round %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %13 = graph.round %12 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.sin %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %14 = graph.sin %13 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.cos %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %15 = graph.cos %14 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.tan %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %16 = graph.tan %15 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.asin %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %17 = graph.asin %16 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.acos %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %18 = graph.acos %17 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.atan %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %19 = graph.atan %18 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.sinh %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %20 = graph.sinh %19 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.cosh %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %21 = graph.cosh %20 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.asinh %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %22 = graph.asinh %21 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.acosh %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %23 = graph.acosh %22 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.atanh %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %24 = graph.atanh %23 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %24 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @unary_numeric
func.func @unary_numeric(%x: tensor<3xi32>) -> tensor<3xi32> {
  // CHECK: graph.abs %{{.*}} : (tensor<3xi32>) -> tensor<3xi32>
  %0 = graph.abs %x : (tensor<3xi32>) -> tensor<3xi32>
  // CHECK: graph.neg %{{.*}} : (tensor<3xi32>) -> tensor<3xi32>
  %1 = graph.neg %0 : (tensor<3xi32>) -> tensor<3xi32>
  // CHECK: graph.relu %{{.*}} : (tensor<3xi32>) -> tensor<3xi32>
  %2 = graph.relu %1 : (tensor<3xi32>) -> tensor<3xi32>
  // CHECK: graph.sign %{{.*}} : (tensor<3xi32>) -> tensor<3xi32>
  %3 = graph.sign %2 : (tensor<3xi32>) -> tensor<3xi32>
  return %3 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func @unary_attributes
func.func @unary_attributes(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: graph.leaky_relu %{{.*}} {alpha = 1.000000e-01 : f32}
  %0 = graph.leaky_relu %x {alpha = 0.1 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: graph.hard_sigmoid
  %1 = graph.hard_sigmoid %0 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: graph.gelu %{{.*}} {approximate = "tanh"}
  %2 = graph.gelu %1 {approximate = "tanh"} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: graph.elu
  %3 = graph.elu %2 {alpha = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: graph.selu
  %4 = graph.selu %3 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: graph.celu
  %5 = graph.celu %4 {alpha = 2.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: graph.thresholded_relu
  %6 = graph.thresholded_relu %5 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: graph.shrink %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %7 = graph.shrink %6 {bias = 0.0 : f32, lambd = 0.5 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: graph.identity
  %8 = graph.identity %7 : (tensor<4xf32>) -> tensor<4xf32>
  return %8 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @predicates_and_casts
func.func @predicates_and_casts(%x: tensor<?x4xf32>, %b: tensor<?x4xi1>, %i: tensor<4xi32>) -> (tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>, tensor<4xi32>, tensor<?x4xf16>) {
  // CHECK: graph.is_nan %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xi1>
  %0 = graph.is_nan %x : (tensor<?x4xf32>) -> tensor<?x4xi1>
  // CHECK: graph.is_inf %{{.*}} {detect_negative = 0 : i64} : (tensor<?x4xf32>) -> tensor<?x4xi1>
  %1 = graph.is_inf %x {detect_negative = 0 : i64} : (tensor<?x4xf32>) -> tensor<?x4xi1>
  // CHECK: graph.not %{{.*}} : (tensor<?x4xi1>) -> tensor<?x4xi1>
  %2 = graph.not %b : (tensor<?x4xi1>) -> tensor<?x4xi1>
  // CHECK: graph.bitwise_not %{{.*}} : (tensor<4xi32>) -> tensor<4xi32>
  %3 = graph.bitwise_not %i : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: graph.cast %{{.*}} {to = f16} : (tensor<?x4xf32>) -> tensor<?x4xf16>
  %4 = graph.cast %x {to = f16} : (tensor<?x4xf32>) -> tensor<?x4xf16>
  return %0, %1, %2, %3, %4 : tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>, tensor<4xi32>, tensor<?x4xf16>
}

// -----

// CHECK-LABEL: func @clip
func.func @clip(%x: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: graph.clip %{{.*}}, %{{.*}}, %{{.*}} {operandSegmentSizes = array<i32: 1, 1, 1>}
  %0 = graph.clip %x, %lo, %hi {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: graph.clip %{{.*}}, %{{.*}} {operandSegmentSizes = array<i32: 1, 0, 1>}
  %1 = graph.clip %x, %hi {operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @arithmetic
func.func @arithmetic(%a: tensor<?x3xf32>, %b: tensor<3xf32>, %e: tensor<i64>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
  // CHECK: graph.add %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %0 = graph.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  // CHECK: graph.sub %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %1 = graph.sub %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  // CHECK: graph.mul %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %2 = graph.mul %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  // CHECK: graph.div %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %3 = graph.div %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  // CHECK: graph.pow %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<i64>) -> tensor<?x3xf32>
  %4 = graph.pow %a, %e : (tensor<?x3xf32>, tensor<i64>) -> tensor<?x3xf32>
  // CHECK: graph.mod %{{.*}}, %{{.*}} {fmod = 1 : i64}
  %5 = graph.mod %a, %b {fmod = 1 : i64} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  // CHECK: graph.prelu %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %6 = graph.prelu %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>
}

// -----

// CHECK-LABEL: func @comparisons_and_logic
func.func @comparisons_and_logic(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xi1> {
  // CHECK: graph.equal %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  %0 = graph.equal %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  // CHECK: graph.less %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  %1 = graph.less %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  // CHECK: graph.less_or_equal %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  %2 = graph.less_or_equal %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  // CHECK: graph.greater %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  %3 = graph.greater %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  // CHECK: graph.greater_or_equal %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  %4 = graph.greater_or_equal %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  // CHECK: graph.and %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %5 = graph.and %4, %0 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK: graph.or %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %6 = graph.or %5, %0 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK: graph.xor %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %7 = graph.xor %6, %0 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  return %7 : tensor<2x3xi1>
}

// -----

// CHECK-LABEL: func @bitwise
func.func @bitwise(%a: tensor<4xui8>, %b: tensor<ui8>) -> tensor<4xui8> {
  // CHECK: graph.bit_shift %{{.*}}, %{{.*}} {direction = "LEFT"} : (tensor<4xui8>, tensor<ui8>) -> tensor<4xui8>
  %0 = graph.bit_shift %a, %b {direction = "LEFT"} : (tensor<4xui8>, tensor<ui8>) -> tensor<4xui8>
  // CHECK: graph.bitwise_and
  %1 = graph.bitwise_and %0, %a : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  // CHECK: graph.bitwise_or
  %2 = graph.bitwise_or %1, %b : (tensor<4xui8>, tensor<ui8>) -> tensor<4xui8>
  // CHECK: graph.bitwise_xor
  %3 = graph.bitwise_xor %2, %a : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %3 : tensor<4xui8>
}

// -----

// CHECK-LABEL: func @where_and_variadic
func.func @where_and_variadic(%c: tensor<4xi1>, %x: tensor<?x4xf32>, %y: tensor<f32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {
  // CHECK: graph.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  %0 = graph.where %c, %x, %y : (tensor<4xi1>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  // CHECK: graph.sum %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  %1 = graph.sum %x, %0, %y : (tensor<?x4xf32>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  // CHECK: graph.mean
  %2 = graph.mean %x, %y : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  // CHECK: graph.max
  %3 = graph.max %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: graph.min
  %4 = graph.min %x, %y : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  return %0, %1, %2, %3, %4 : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @quantization
func.func @quantization(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<i8>) -> tensor<2x3xf32> {
  // CHECK: graph.quantize_linear %{{.*}}, %{{.*}}, %{{.*}} {saturate = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<i8>) -> tensor<2x3xi8>
  %q = graph.quantize_linear %x, %s, %z {saturate = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<i8>) -> tensor<2x3xi8>
  // CHECK: graph.dequantize_linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xi8>, tensor<3xf32>, tensor<i8>) -> tensor<2x3xf32>
  %d = graph.dequantize_linear %q, %s, %z : (tensor<2x3xi8>, tensor<3xf32>, tensor<i8>) -> tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}
