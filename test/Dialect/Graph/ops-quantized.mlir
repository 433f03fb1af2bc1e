// graph.quantized_mat_mul and graph.quantized_conv: round trip, result-type
// inference, and folding by the host kernels.
// RUN: graphc-opt %s --split-input-file | graphc-opt --split-input-file | FileCheck %s
// RUN: graphc-opt %s --split-input-file --graphc-fold-shape-computations | FileCheck %s --check-prefix=INFER
// RUN: graphc-opt %s --split-input-file --canonicalize | FileCheck %s --check-prefix=FOLD

// CHECK-LABEL: func @quantized_products
// INFER-LABEL: func @quantized_products
func.func @quantized_products(%a: tensor<2x1x4x64xi8>, %b: tensor<1x3x64x32xui8>, %bt: tensor<32x64xi8>, %fa: tensor<?x4x16xf8E4M3FN>, %fb: tensor<8x16xf8E4M3FN>) -> (tensor<?x?x?x?xi32>, tensor<?x?x?x?xi32>, tensor<?x?x?xf32>) {
  // CHECK: graph.quantized_mat_mul %{{.*}}, %{{.*}} : (tensor<2x1x4x64xi8>, tensor<1x3x64x32xui8>) -> tensor<?x?x?x?xi32>
  // INFER: graph.quantized_mat_mul %{{.*}}, %{{.*}} : (tensor<2x1x4x64xi8>, tensor<1x3x64x32xui8>) -> tensor<2x3x4x32xi32>
  %0 = graph.quantized_mat_mul %a, %b : (tensor<2x1x4x64xi8>, tensor<1x3x64x32xui8>) -> tensor<?x?x?x?xi32>
  // CHECK: graph.quantized_mat_mul %{{.*}}, %{{.*}} {trans_b = 1 : i64} : (tensor<2x1x4x64xi8>, tensor<32x64xi8>) -> tensor<?x?x?x?xi32>
  // INFER: {trans_b = 1 : i64} : (tensor<2x1x4x64xi8>, tensor<32x64xi8>) -> tensor<2x1x4x32xi32>
  %1 = graph.quantized_mat_mul %a, %bt {trans_b = 1 : i64} : (tensor<2x1x4x64xi8>, tensor<32x64xi8>) -> tensor<?x?x?x?xi32>
  // INFER: {trans_b = 1 : i64} : (tensor<?x4x16xf8E4M3FN>, tensor<8x16xf8E4M3FN>) -> tensor<?x4x8xf32>
  %2 = graph.quantized_mat_mul %fa, %fb {trans_b = 1 : i64} : (tensor<?x4x16xf8E4M3FN>, tensor<8x16xf8E4M3FN>) -> tensor<?x?x?xf32>
  return %0, %1, %2 : tensor<?x?x?x?xi32>, tensor<?x?x?x?xi32>, tensor<?x?x?xf32>
}

// -----

// CHECK-LABEL: func @quantized_convolutions
// INFER-LABEL: func @quantized_convolutions
func.func @quantized_convolutions(%x: tensor<1x8x16x16xui8>, %w: tensor<16x4x3x3xi8>, %xl: tensor<1x16x16x8xi8>, %wl: tensor<16x3x3x8xui8>) -> (tensor<?x?x?x?xi32>, tensor<?x?x?x?xi32>) {
  // CHECK: graph.quantized_conv %{{.*}}, %{{.*}} {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xui8>, tensor<16x4x3x3xi8>) -> tensor<?x?x?x?xi32>
  // INFER: (tensor<1x8x16x16xui8>, tensor<16x4x3x3xi8>) -> tensor<1x16x8x8xi32>
  %0 = graph.quantized_conv %x, %w {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xui8>, tensor<16x4x3x3xi8>) -> tensor<?x?x?x?xi32>
  // CHECK: graph.quantized_conv %{{.*}}, %{{.*}} {auto_pad = "SAME_UPPER", channels_last = 1 : i64}
  // INFER: (tensor<1x16x16x8xi8>, tensor<16x3x3x8xui8>) -> tensor<1x16x16x16xi32>
  %1 = graph.quantized_conv %xl, %wl {auto_pad = "SAME_UPPER", channels_last = 1 : i64} : (tensor<1x16x16x8xi8>, tensor<16x3x3x8xui8>) -> tensor<?x?x?x?xi32>
  return %0, %1 : tensor<?x?x?x?xi32>, tensor<?x?x?x?xi32>
}

// -----

// Constant operands fold through the host kernels: exact sums, -128 * -128
// included, uint8 read unsigned, e4m3fn decoded exactly (0x01 is the
// smallest subnormal, 2^-9: 1 + 2^-18 needs all of f32's bits).
// FOLD-LABEL: func @fold_quantized
func.func @fold_quantized() -> (tensor<1x2xi32>, tensor<1x2xi32>, tensor<1x1xf32>, tensor<1x1x2x2xi32>) {
  %a = graph.constant {value = dense<[[-128, -128, 127]]> : tensor<1x3xi8>} : () -> tensor<1x3xi8>
  %b = graph.constant {value = dense<[[-128, -128, -1], [1, 1, 2]]> : tensor<2x3xi8>} : () -> tensor<2x3xi8>
  %u = graph.constant {value = dense<[[255, 255, 255], [0, 1, 2]]> : tensor<2x3xui8>} : () -> tensor<2x3xui8>
  // FOLD-DAG: graph.constant {value = dense<{{\[\[}}32641, -2]]> : tensor<1x2xi32>}
  // FOLD-DAG: graph.constant {value = dense<{{\[\[}}-32895, 126]]> : tensor<1x2xi32>}
  %0 = graph.quantized_mat_mul %a, %b {trans_b = 1 : i64} : (tensor<1x3xi8>, tensor<2x3xi8>) -> tensor<1x2xi32>
  %1 = graph.quantized_mat_mul %a, %u {trans_b = 1 : i64} : (tensor<1x3xi8>, tensor<2x3xui8>) -> tensor<1x2xi32>
  %fa = graph.constant {value = dense<[[1.0, 0.001953125]]> : tensor<1x2xf8E4M3FN>} : () -> tensor<1x2xf8E4M3FN>
  %fb = graph.constant {value = dense<[[1.0], [0.001953125]]> : tensor<2x1xf8E4M3FN>} : () -> tensor<2x1xf8E4M3FN>
  // FOLD-DAG: graph.constant {value = dense<1.00000381{{[0-9]*}}> : tensor<1x1xf32>}
  %2 = graph.quantized_mat_mul %fa, %fb : (tensor<1x2xf8E4M3FN>, tensor<2x1xf8E4M3FN>) -> tensor<1x1xf32>
  %x = graph.constant {value = dense<-128> : tensor<1x1x3x3xi8>} : () -> tensor<1x1x3x3xi8>
  %w = graph.constant {value = dense<255> : tensor<1x1x2x2xui8>} : () -> tensor<1x1x2x2xui8>
  // Padding reads zeros: the corner window sees one input, the last four.
  // FOLD-DAG: graph.constant {value = dense<{{\[\[\[\[}}-32640, -65280], [-65280, -130560]]]]> : tensor<1x1x2x2xi32>}
  %3 = graph.quantized_conv %x, %w {pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x1x3x3xi8>, tensor<1x1x2x2xui8>) -> tensor<1x1x2x2xi32>
  // FOLD-NOT: graph.quantized
  return %0, %1, %2, %3 : tensor<1x2xi32>, tensor<1x2xi32>, tensor<1x1xf32>, tensor<1x1x2x2xi32>
}
