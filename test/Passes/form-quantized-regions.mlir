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

// An activation's zero point (3) comes off in the integers: the weight's
// column sums (1 + 3, 2 + 4) times -3 are added to the accumulator before
// the rescale.
// CHECK-LABEL: func.func @zero_point
// CHECK: %[[P:.*]] = graph.quantized_mat_mul %arg0, %{{.*}} {trans_b = 1 : i64} : (tensor<3x2xi8>, tensor<2x2xi8>) -> tensor<3x2xi32>
// CHECK: %[[Z:.*]] = graph.constant {value = dense<[-12, -18]> : tensor<2xi32>}
// CHECK: %[[A:.*]] = graph.add %[[P]], %[[Z]] : (tensor<3x2xi32>, tensor<2xi32>) -> tensor<3x2xi32>
// CHECK: %[[C:.*]] = graph.cast %[[A]] {to = f32}
// CHECK: graph.mul %[[C]]
// CHECK-NOT: dequantize_linear
func.func @zero_point(%x: tensor<3x2xi8>) -> tensor<3x2xf32> {
  %sa = graph.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %za = graph.constant {value = dense<3> : tensor<i8>} : () -> tensor<i8>
  %w = graph.constant {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>} : () -> tensor<2x2xi8>
  %sb = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %zb = graph.constant {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %a = graph.dequantize_linear %x, %sa, %za : (tensor<3x2xi8>, tensor<f32>, tensor<i8>) -> tensor<3x2xf32>
  %b = graph.dequantize_linear %w, %sb, %zb : (tensor<2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2xf32>
  %y = graph.mat_mul %a, %b : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// uint8 activations against an int8 weight: their QuantizeLinear writes
// int8 with the zero point shifted by -128 (130 -> 2), and the correction
// uses the shifted one.
// CHECK-LABEL: func.func @uint8_shift
// CHECK: %[[Z:.*]] = graph.constant {value = dense<2> : tensor<i8>}
// CHECK: %[[Q:.*]] = graph.quantize_linear %arg0, %{{.*}}, %[[Z]] : (tensor<3x2xf32>, tensor<f32>, tensor<i8>) -> tensor<3x2xi8>
// CHECK: %[[P:.*]] = graph.quantized_mat_mul %[[Q]], %{{.*}} {trans_b = 1 : i64} : (tensor<3x2xi8>, tensor<2x2xi8>) -> tensor<3x2xi32>
// CHECK: graph.constant {value = dense<[-8, -12]> : tensor<2xi32>}
// CHECK-NOT: xui8
func.func @uint8_shift(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %sa = graph.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %za = graph.constant {value = dense<130> : tensor<ui8>} : () -> tensor<ui8>
  %w = graph.constant {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>} : () -> tensor<2x2xi8>
  %sb = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %zb = graph.constant {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %q = graph.quantize_linear %x, %sa, %za : (tensor<3x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<3x2xui8>
  %a = graph.dequantize_linear %q, %sa, %za : (tensor<3x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x2xf32>
  %b = graph.dequantize_linear %w, %sb, %zb : (tensor<2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2xf32>
  %y = graph.mat_mul %a, %b : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// uint8 values from elsewhere (an input) shift through a pointwise op.
// CHECK-LABEL: func.func @uint8_input
// CHECK: %[[W:.*]] = graph.cast %arg0 {to = i16}
// CHECK: %[[S:.*]] = graph.sub %[[W]], %{{.*}} : (tensor<3x2xi16>, tensor<i16>) -> tensor<3x2xi16>
// CHECK: %[[N:.*]] = graph.cast %[[S]] {to = i8}
// CHECK: graph.quantized_mat_mul %[[N]]
// CHECK: graph.constant {value = dense<[512, 768]> : tensor<2xi32>}
func.func @uint8_input(%x: tensor<3x2xui8>) -> tensor<3x2xf32> {
  %sa = graph.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %za = graph.constant {value = dense<0> : tensor<ui8>} : () -> tensor<ui8>
  %w = graph.constant {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>} : () -> tensor<2x2xi8>
  %sb = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %zb = graph.constant {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %a = graph.dequantize_linear %x, %sa, %za : (tensor<3x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x2xf32>
  %b = graph.dequantize_linear %w, %sb, %zb : (tensor<2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2xf32>
  %y = graph.mat_mul %a, %b : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// The second operand's zero point (1) takes 1 * the rows' sums of A,
// computed at run time, [3, 1] against the [3, 2] accumulator.
// CHECK-LABEL: func.func @weight_zero_point
// CHECK: %[[P:.*]] = graph.quantized_mat_mul %arg0
// CHECK: %[[W:.*]] = graph.cast %arg0 {to = i32}
// CHECK: %[[R:.*]] = graph.reduce_sum %[[W]], %{{.*}} : (tensor<3x2xi32>, tensor<1xi64>) -> tensor<3x1xi32>
// CHECK: %[[Z:.*]] = graph.constant {value = dense<-1> : tensor<i32>}
// CHECK: %[[T:.*]] = graph.mul %[[R]], %[[Z]]
// CHECK: %[[A:.*]] = graph.add %[[P]], %[[T]] : (tensor<3x2xi32>, tensor<3x1xi32>) -> tensor<3x2xi32>
// CHECK: graph.cast %[[A]] {to = f32}
func.func @weight_zero_point(%x: tensor<3x2xi8>) -> tensor<3x2xf32> {
  %sa = graph.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %za = graph.constant {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %w = graph.constant {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>} : () -> tensor<2x2xi8>
  %sb = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %zb = graph.constant {value = dense<1> : tensor<i8>} : () -> tensor<i8>
  %a = graph.dequantize_linear %x, %sa, %za : (tensor<3x2xi8>, tensor<f32>, tensor<i8>) -> tensor<3x2xf32>
  %b = graph.dequantize_linear %w, %sb, %zb : (tensor<2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2xf32>
  %y = graph.mat_mul %a, %b : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Attention's product of two activations with zero points 3 and -2:
//   acc - (-2) rowsum(A) - 3 colsum(B) + K 3 (-2), K = 4,
// B's column sums at run time as [2, 1, 5] against the [2, 3, 5]
// accumulator.
// CHECK-LABEL: func.func @both_zero_points
// CHECK: %[[P:.*]] = graph.quantized_mat_mul %arg0, %{{.*}} {trans_b = 1 : i64} : (tensor<2x3x4xi8>, tensor<2x5x4xi8>) -> tensor<2x3x5xi32>
// CHECK: graph.reduce_sum {{.*}} -> tensor<2x3x1xi32>
// CHECK: graph.constant {value = dense<2> : tensor<i32>}
// CHECK: %[[A1:.*]] = graph.add %[[P]], %{{.*}} : (tensor<2x3x5xi32>, tensor<2x3x1xi32>) -> tensor<2x3x5xi32>
// CHECK: graph.reduce_sum {{.*}} -> tensor<2x1x5xi32>
// CHECK: graph.constant {value = dense<-3> : tensor<i32>}
// CHECK: %[[A2:.*]] = graph.add %[[A1]], %{{.*}} : (tensor<2x3x5xi32>, tensor<2x1x5xi32>) -> tensor<2x3x5xi32>
// CHECK: %[[K:.*]] = graph.constant {value = dense<-24> : tensor<i32>}
// CHECK: %[[A3:.*]] = graph.add %[[A2]], %[[K]]
// CHECK: graph.cast %[[A3]] {to = f32}
func.func @both_zero_points(%x: tensor<2x3x4xi8>, %y: tensor<2x4x5xi8>) -> tensor<2x3x5xf32> {
  %sa = graph.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %za = graph.constant {value = dense<3> : tensor<i8>} : () -> tensor<i8>
  %sb = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %zb = graph.constant {value = dense<-2> : tensor<i8>} : () -> tensor<i8>
  %a = graph.dequantize_linear %x, %sa, %za : (tensor<2x3x4xi8>, tensor<f32>, tensor<i8>) -> tensor<2x3x4xf32>
  %b = graph.dequantize_linear %y, %sb, %zb : (tensor<2x4x5xi8>, tensor<f32>, tensor<i8>) -> tensor<2x4x5xf32>
  %r = graph.mat_mul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// -----

// A padded convolution of an input with a zero point (5): an explicit pad
// writes the stored zero point, the convolution pads nothing, and the
// weight's sum (10) times -5 corrects each output channel.
// CHECK-LABEL: func.func @conv_zero_point
// CHECK: %[[PADS:.*]] = graph.constant {value = dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>}
// CHECK: %[[FILL:.*]] = graph.constant {value = dense<5> : tensor<i8>}
// CHECK: %[[X:.*]] = graph.pad %arg0, %[[PADS]], %[[FILL]] {{.*}} -> tensor<1x1x5x5xi8>
// CHECK: %[[P:.*]] = graph.quantized_conv %[[X]], %{{.*}} : (tensor<1x1x5x5xi8>, tensor<1x1x2x2xi8>) -> tensor<1x1x4x4xi32>
// CHECK: %[[Z:.*]] = graph.constant {value = dense<-50> : tensor<1x1x1x1xi32>}
// CHECK: graph.add %[[P]], %[[Z]]
func.func @conv_zero_point(%x: tensor<1x1x3x3xi8>) -> tensor<1x1x4x4xf32> {
  %sa = graph.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %za = graph.constant {value = dense<5> : tensor<i8>} : () -> tensor<i8>
  %w = graph.constant {value = dense<[[[[1, 2], [3, 4]]]]> : tensor<1x1x2x2xi8>} : () -> tensor<1x1x2x2xi8>
  %sb = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %zb = graph.constant {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %a = graph.dequantize_linear %x, %sa, %za : (tensor<1x1x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x3x3xf32>
  %b = graph.dequantize_linear %w, %sb, %zb : (tensor<1x1x2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x2x2xf32>
  %y = graph.conv %a, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
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

// -----

// MatMulInteger as imported, of DynamicQuantizeLinear's uint8 activations
// and run-time zero point against an int8 weight: the activations shift to
// int8, the zero point with them (z - 128, at run time), and the weight's
// constant column sums (1 + 3, 2 + 4) times it come off.
// CHECK-LABEL: func.func @matmul_integer
// CHECK: %[[W:.*]] = graph.cast %arg0 {to = i16}
// CHECK: %[[S:.*]] = graph.sub %[[W]], %{{.*}} : (tensor<3x2xi16>, tensor<i16>) -> tensor<3x2xi16>
// CHECK: %[[X:.*]] = graph.cast %[[S]] {to = i8}
// CHECK: %[[Z:.*]] = graph.cast %arg1 {to = i32}
// CHECK: %[[ZS:.*]] = graph.sub %[[Z]], %{{.*}} : (tensor<i32>, tensor<i32>) -> tensor<i32>
// CHECK: %[[P:.*]] = graph.quantized_mat_mul %[[X]], %{{.*}} {trans_b = 1 : i64} : (tensor<3x2xi8>, tensor<2x2xi8>) -> tensor<3x2xi32>
// CHECK: %[[C:.*]] = graph.constant {value = dense<[4, 6]> : tensor<2xi32>}
// CHECK: %[[T:.*]] = graph.mul %[[C]], %[[ZS]] : (tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
// CHECK: %[[Y:.*]] = graph.sub %[[P]], %[[T]] : (tensor<3x2xi32>, tensor<2xi32>) -> tensor<3x2xi32>
// CHECK: return %[[Y]]
func.func @matmul_integer(%x: tensor<3x2xui8>, %z: tensor<ui8>) -> tensor<3x2xi32> {
  %w = graph.constant {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>} : () -> tensor<2x2xi8>
  %xi = graph.cast %x {to = i32} : (tensor<3x2xui8>) -> tensor<3x2xi32>
  %zi = graph.cast %z {to = i32} : (tensor<ui8>) -> tensor<i32>
  %a = graph.sub %xi, %zi : (tensor<3x2xi32>, tensor<i32>) -> tensor<3x2xi32>
  %b = graph.cast %w {to = i32} : (tensor<2x2xi8>) -> tensor<2x2xi32>
  %y = graph.mat_mul %a, %b : (tensor<3x2xi32>, tensor<2x2xi32>) -> tensor<3x2xi32>
  return %y : tensor<3x2xi32>
}

// -----

// The importer folds a constant weight's cast (and zero point) into an
// int32 constant: values that are all int8 are stored as int8 again; the
// zero point reaches the sub through DynamicQuantizeLinear's identity.
// CHECK-LABEL: func.func @matmul_integer_folded
// CHECK: %[[W:.*]] = graph.constant {value = dense<{{\[\[}}1, -3], [2, 4]]> : tensor<2x2xi8>}
// CHECK: graph.quantized_mat_mul %{{.*}}, %[[W]] {trans_b = 1 : i64} : (tensor<3x2xi8>, tensor<2x2xi8>) -> tensor<3x2xi32>
// CHECK: graph.constant {value = dense<[-2, 6]> : tensor<2xi32>}
// CHECK-NOT: xi32>} : () -> tensor<2x2xi32>
func.func @matmul_integer_folded(%x: tensor<3x2xi8>, %z: tensor<i8>) -> tensor<3x2xi32> {
  %w = graph.constant {value = dense<[[1, 2], [-3, 4]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %zz = graph.identity %z : (tensor<i8>) -> tensor<i8>
  %xi = graph.cast %x {to = i32} : (tensor<3x2xi8>) -> tensor<3x2xi32>
  %zi = graph.cast %zz {to = i32} : (tensor<i8>) -> tensor<i32>
  %a = graph.sub %xi, %zi : (tensor<3x2xi32>, tensor<i32>) -> tensor<3x2xi32>
  %y = graph.mat_mul %a, %w : (tensor<3x2xi32>, tensor<2x2xi32>) -> tensor<3x2xi32>
  return %y : tensor<3x2xi32>
}

// -----

// A large weight's cast stays an op; its zero point's cast is folded into
// an int32 constant 0: a known zero point.
// CHECK-LABEL: func.func @matmul_integer_constant_zero
// CHECK: graph.quantized_mat_mul %arg0, %{{.*}} {trans_b = 1 : i64} : (tensor<3x2xi8>, tensor<2x2xi8>) -> tensor<3x2xi32>
// CHECK-NOT: graph.reduce_sum
// CHECK-NOT: graph.mat_mul
func.func @matmul_integer_constant_zero(%x: tensor<3x2xi8>, %w: tensor<2x2xi8>) -> tensor<3x2xi32> {
  %zero = graph.constant {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %xi = graph.cast %x {to = i32} : (tensor<3x2xi8>) -> tensor<3x2xi32>
  %wi = graph.cast %w {to = i32} : (tensor<2x2xi8>) -> tensor<2x2xi32>
  %b = graph.sub %wi, %zero : (tensor<2x2xi32>, tensor<i32>) -> tensor<2x2xi32>
  %y = graph.mat_mul %xi, %b : (tensor<3x2xi32>, tensor<2x2xi32>) -> tensor<3x2xi32>
  return %y : tensor<3x2xi32>
}
