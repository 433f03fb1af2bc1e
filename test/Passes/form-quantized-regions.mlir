// RUN: graphc-opt %s --split-input-file --graphc-form-quantized-regions | FileCheck %s

// onnxruntime's QDQ MatMul: a per-tensor int8 activation and a per-column
// int8 weight. The product runs on the stored values with the weight
// transposed once to [N, K]; one scale per column, sa * sb[n], rescales the
// accumulator; the dequantizations go.
// CHECK-LABEL: func.func @matmul
// CHECK: %[[W:.*]] = graph.constant {value = dense<{{\[\[}}1, 3], [2, 4]]> : tensor<2x2xi8>}
// CHECK: %[[P:.*]] = graph.quantized_mat_mul %arg0, %[[W]] {trans_b = 1 : i64} : (tensor<3x2xi8>, tensor<2x2xi8>) -> tensor<3x2xi32>
// CHECK: %[[S:.*]] = graph.constant {value = dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>}
// CHECK: %[[C:.*]] = graph.cast %[[P]] {to = f32}
// CHECK: %[[Y:.*]] = graph.mul %[[C]], %[[S]]
// CHECK: return %[[Y]]
// CHECK-NOT: dequantize_linear
func.func @matmul(%x: tensor<3x2xi8>) -> tensor<3x2xf32> {
  %sa = graph.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %za = graph.constant {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %w = graph.constant {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>} : () -> tensor<2x2xi8>
  %sb = graph.constant {value = dense<[0.25, 0.125]> : tensor<2xf32>} : () -> tensor<2xf32>
  %zb = graph.constant {value = dense<0> : tensor<2xi8>} : () -> tensor<2xi8>
  %a = graph.dequantize_linear %x, %sa, %za : (tensor<3x2xi8>, tensor<f32>, tensor<i8>) -> tensor<3x2xf32>
  %b = graph.dequantize_linear %w, %sb, %zb : (tensor<2x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x2xf32>
  %y = graph.mat_mul %a, %b : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// A zero point other than zero: the MatMul stays float.
// CHECK-LABEL: func.func @zero_point
// CHECK: graph.dequantize_linear
// CHECK: graph.mat_mul
// CHECK-NOT: quantized_mat_mul
func.func @zero_point(%x: tensor<3x2xui8>, %w: tensor<2x2xf32>) -> tensor<3x2xf32> {
  %s = graph.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %z = graph.constant {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %a = graph.dequantize_linear %x, %s, %z : (tensor<3x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x2xf32>
  %y = graph.mat_mul %a, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Gemm with transB (the weight already [N, K]), alpha and a bias: alpha
// joins the scale, the bias is added after.
// CHECK-LABEL: func.func @gemm
// CHECK: %[[P:.*]] = graph.quantized_mat_mul %arg0, %{{.*}} {trans_b = 1 : i64} : (tensor<3x4xi8>, tensor<2x4xi8>) -> tensor<3x2xi32>
// CHECK: %[[S:.*]] = graph.constant {value = dense<[3.000000e+00, 1.500000e+00]> : tensor<2xf32>}
// CHECK: %[[C:.*]] = graph.cast %[[P]] {to = f32}
// CHECK: %[[M:.*]] = graph.mul %[[C]], %[[S]]
// CHECK: graph.add %[[M]], %arg1
func.func @gemm(%x: tensor<3x4xi8>, %bias: tensor<2xf32>) -> tensor<3x2xf32> {
  %sa = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %za = graph.constant {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %w = graph.constant {value = dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi8>} : () -> tensor<2x4xi8>
  %sb = graph.constant {value = dense<[[2.0], [1.0]]> : tensor<2x1xf32>} : () -> tensor<2x1xf32>
  %zb = graph.constant {value = dense<0> : tensor<2x1xi8>} : () -> tensor<2x1xi8>
  %a = graph.dequantize_linear %x, %sa, %za : (tensor<3x4xi8>, tensor<f32>, tensor<i8>) -> tensor<3x4xf32>
  %b = graph.dequantize_linear %w, %sb, %zb : (tensor<2x4xi8>, tensor<2x1xf32>, tensor<2x1xi8>) -> tensor<2x4xf32>
  %y = graph.gemm %a, %b, %bias {alpha = 3.0 : f32, transB = 1 : i64} : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// A QuantizeLinear of a DequantizeLinear with the same scale and zero point
// is the stored value; a Gather of a per-tensor dequantized table gathers
// the stored rows, then dequantizes them.
// CHECK-LABEL: func.func @requantize_and_gather
// CHECK: %[[ROWS:.*]] = graph.gather %arg1, %arg2 {{.*}} -> tensor<2x3xi8>
// CHECK: %[[D:.*]] = graph.dequantize_linear %[[ROWS]]
// CHECK: return %arg0, %[[D]]
func.func @requantize_and_gather(%x: tensor<4xi8>, %table: tensor<5x3xi8>, %ids: tensor<2xi64>) -> (tensor<4xi8>, tensor<2x3xf32>) {
  %s = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = graph.constant {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %d = graph.dequantize_linear %x, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %q = graph.quantize_linear %d, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  %t = graph.dequantize_linear %table, %s, %z : (tensor<5x3xi8>, tensor<f32>, tensor<i8>) -> tensor<5x3xf32>
  %g = graph.gather %t, %ids : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %q, %g : tensor<4xi8>, tensor<2x3xf32>
}

// -----

// What quantizers write around data movement, Q(transpose(DQ(q))) with one
// scale, moves the 8-bit values and cancels: the transpose reads q.
// CHECK-LABEL: func.func @transpose_between
// CHECK: %[[T:.*]] = graph.transpose %arg0 {{.*}} -> tensor<3x2xi8>
// CHECK-NEXT: return %[[T]]
func.func @transpose_between(%x: tensor<2x3xi8>) -> tensor<3x2xi8> {
  %s = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = graph.constant {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %d = graph.dequantize_linear %x, %s, %z : (tensor<2x3xi8>, tensor<f32>, tensor<i8>) -> tensor<2x3xf32>
  %t = graph.transpose %d {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %q = graph.quantize_linear %t, %s, %z : (tensor<3x2xf32>, tensor<f32>, tensor<i8>) -> tensor<3x2xi8>
  return %q : tensor<3x2xi8>
}
