// Result-type inference: results are written fully dynamic and refined
// by re-inference (--graphc-fold-shape-computations).
// RUN: graphc-opt %s --graphc-fold-shape-computations --split-input-file | FileCheck %s
// CHECK-LABEL: func @matmul_batch
func.func @matmul_batch(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<?x?x?x?xf32> {
  // CHECK: return %{{.*}} : tensor<2x3x4x5xf32>
  %r = graph.mat_mul %a, %b : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// CHECK-LABEL: func @matmul_vector
func.func @matmul_vector(%a: tensor<8xf32>, %b: tensor<?x8x5xf32>) -> tensor<?x?xf32> {
  // CHECK: return %{{.*}} : tensor<?x5xf32>
  %r = graph.mat_mul %a, %b : (tensor<8xf32>, tensor<?x8x5xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @gemm_trans_a
func.func @gemm_trans_a(%a: tensor<8x4xf32>, %b: tensor<8x6xf32>) -> tensor<?x?xf32> {
  // CHECK: return %{{.*}} : tensor<4x6xf32>
  %r = graph.gemm %a, %b {transA = 1 : i64} : (tensor<8x4xf32>, tensor<8x6xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @conv_dilated
func.func @conv_dilated(%x: tensor<1x3x32x32xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x?x?x?xf32> {
  // CHECK: return %{{.*}} : tensor<1x8x16x16xf32>
  %r = graph.conv %x, %w {dilations = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// Channels last: X [N, H, W, C], W [M, kH, kW, C/group], Y [N, H', W', M].
// CHECK-LABEL: func @conv_channels_last
func.func @conv_channels_last(%x: tensor<1x32x30x6xf32>, %w: tensor<8x3x5x3xf32>) -> tensor<?x?x?x?xf32> {
  // CHECK: return %{{.*}} : tensor<1x16x14x8xf32>
  %r = graph.conv %x, %w {channels_last = 1 : i64, group = 2 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>} : (tensor<1x32x30x6xf32>, tensor<8x3x5x3xf32>) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// CHECK-LABEL: func @conv_same_lower
func.func @conv_same_lower(%x: tensor<1x3x15x?xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x?x?x?xf32> {
  // CHECK: return %{{.*}} : tensor<1x8x8x?xf32>
  %r = graph.conv %x, %w {auto_pad = "SAME_LOWER", strides = array<i64: 2, 2>} : (tensor<1x3x15x?xf32>, tensor<8x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// CHECK-LABEL: func @conv_transpose_pads
func.func @conv_transpose_pads(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<?x?x?x?xf32> {
  // CHECK: return %{{.*}} : tensor<1x4x10x10xf32>
  %r = graph.conv_transpose %x, %w {group = 2 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// CHECK-LABEL: func @max_pool_ceil
func.func @max_pool_ceil(%x: tensor<1x1x5x5xf32>) -> tensor<?x?x?x?xf32> {
  // CHECK: return %{{.*}} : tensor<1x1x3x3xf32>
  %r = graph.max_pool %x {ceil_mode = 1 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// CHECK-LABEL: func @pool_1d
func.func @pool_1d(%x: tensor<2x3x10xf32>) -> tensor<?x?x?xf32> {
  // CHECK: return %{{.*}} : tensor<2x3x9xf32>
  %r = graph.average_pool %x {kernel_shape = array<i64: 3>, pads = array<i64: 1, 0>} : (tensor<2x3x10xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// -----

// CHECK-LABEL: func @einsum_implicit
func.func @einsum_implicit(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<?x?xf32> {
  // CHECK: return %{{.*}} : tensor<3x5xf32>
  %r = graph.einsum %a, %b {equation = "ij,jk"} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @einsum_ellipsis_broadcast
func.func @einsum_ellipsis_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<?x?x?x?xf32> {
  // CHECK: return %{{.*}} : tensor<2x5x3x6xf32>
  %r = graph.einsum %a, %b {equation = "...ij,...jk->...ik"} : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// CHECK-LABEL: func @reduce_negative_axes
func.func @reduce_negative_axes(%x: tensor<2x3x4xf32>) -> tensor<?xf32> {
  %axes = graph.constant {value = dense<[-1, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: return %{{.*}} : tensor<3xf32>
  %r = graph.reduce_sum %x, %axes {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// CHECK-LABEL: func @reduce_empty_axes
func.func @reduce_empty_axes(%x: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %axes = graph.constant {value = dense<> : tensor<0xi64>} : () -> tensor<0xi64>
  // CHECK: return %{{.*}} : tensor<1x1xf32>
  %r = graph.reduce_max %x, %axes : (tensor<2x3xf32>, tensor<0xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @reduce_unknown_axes
func.func @reduce_unknown_axes(%x: tensor<2x3x4xf32>, %axes: tensor<2xi64>) -> tensor<?xf32> {
  // CHECK: return %{{.*}} : tensor<?xf32>
  %r = graph.reduce_mean %x, %axes {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// CHECK-LABEL: func @split_uneven
func.func @split_uneven(%x: tensor<7x2xf32>) -> tensor<?x?xf32> {
  // CHECK: graph.split
  // CHECK-SAME: tensor<3x2xf32>, tensor<3x2xf32>, tensor<1x2xf32>)
  %r:3 = graph.split %x {num_outputs = 3 : i64} : (tensor<7x2xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
  return %r#0 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @slice_negative_step
func.func @slice_negative_step(%x: tensor<10xf32>) -> tensor<?xf32> {
  %s = graph.constant {value = dense<8> : tensor<1xi64>} : () -> tensor<1xi64>
  %e = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %a = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %st = graph.constant {value = dense<-3> : tensor<1xi64>} : () -> tensor<1xi64>
  // CHECK: return %{{.*}} : tensor<3xf32>
  %r = graph.slice %x, %s, %e, %a, %st {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// CHECK-LABEL: func @slice_unknown_starts
func.func @slice_unknown_starts(%x: tensor<10x4xf32>, %s: tensor<1xi64>) -> tensor<?x?xf32> {
  %e = graph.constant {value = dense<5> : tensor<1xi64>} : () -> tensor<1xi64>
  // CHECK: return %{{.*}} : tensor<?x4xf32>
  %r = graph.slice %x, %s, %e {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<10x4xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @gather_scalar_index
func.func @gather_scalar_index(%x: tensor<5x6x7xf32>, %i: tensor<i64>) -> tensor<?x?xf32> {
  // CHECK: return %{{.*}} : tensor<5x7xf32>
  %r = graph.gather %x, %i {axis = 1 : i64} : (tensor<5x6x7xf32>, tensor<i64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @gather_nd_batch
func.func @gather_nd_batch(%x: tensor<2x3x4xf32>, %i: tensor<2x5x1xi64>) -> tensor<?x?x?xf32> {
  // CHECK: return %{{.*}} : tensor<2x5x4xf32>
  %r = graph.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x1xi64>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// -----

// CHECK-LABEL: func @concat_dynamic
func.func @concat_dynamic(%a: tensor<?x4xf32>, %b: tensor<3x?xf32>) -> tensor<?x?xf32> {
  // CHECK: return %{{.*}} : tensor<?x4xf32>
  %r = graph.concat %a, %b {axis = 0 : i64} : (tensor<?x4xf32>, tensor<3x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @expand_broadcast
func.func @expand_broadcast(%x: tensor<3x1xf32>) -> tensor<?x?x?xf32> {
  %s = graph.constant {value = dense<[2, 1, 4]> : tensor<3xi64>} : () -> tensor<3xi64>
  // CHECK: return %{{.*}} : tensor<2x3x4xf32>
  %r = graph.expand %x, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// -----

// CHECK-LABEL: func @expand_unknown_shape
func.func @expand_unknown_shape(%x: tensor<3x1xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  // CHECK: return %{{.*}} : tensor<3x?xf32>
  %r = graph.expand %x, %s : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @unsqueeze_negative
func.func @unsqueeze_negative(%x: tensor<3x4xf32>) -> tensor<?x?x?x?xf32> {
  %a = graph.constant {value = dense<[-1, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: return %{{.*}} : tensor<1x3x4x1xf32>
  %r = graph.unsqueeze %x, %a : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// CHECK-LABEL: func @reshape_zero_copy
func.func @reshape_zero_copy(%x: tensor<2x3x4xf32>) -> tensor<?x?xf32> {
  %s = graph.constant {value = dense<[0, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: return %{{.*}} : tensor<2x12xf32>
  %r = graph.reshape %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @flatten_zero
func.func @flatten_zero(%x: tensor<2x3x4xf32>) -> tensor<?x?xf32> {
  // CHECK: return %{{.*}} : tensor<1x24xf32>
  %r = graph.flatten %x {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @transpose_default
func.func @transpose_default(%x: tensor<2x3x4xf32>) -> tensor<?x?x?xf32> {
  // CHECK: return %{{.*}} : tensor<4x3x2xf32>
  %r = graph.transpose %x : (tensor<2x3x4xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// -----

// CHECK-LABEL: func @pad_negative
func.func @pad_negative(%x: tensor<5x5xf32>) -> tensor<?x?xf32> {
  %p = graph.constant {value = dense<[-1, 0, 2, -2]> : tensor<4xi64>} : () -> tensor<4xi64>
  // CHECK: return %{{.*}} : tensor<6x3xf32>
  %r = graph.pad %x, %p {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<5x5xf32>, tensor<4xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @resize_not_larger
func.func @resize_not_larger(%x: tensor<1x1x4x8xf32>) -> tensor<?x?x?x?xf32> {
  %s = graph.constant {value = dense<[1, 1, 6, 6]> : tensor<4xi64>} : () -> tensor<4xi64>
  // CHECK: return %{{.*}} : tensor<1x1x3x6xf32>
  %r = graph.resize %x, %s {keep_aspect_ratio_policy = "not_larger", operandSegmentSizes = array<i32: 1, 0, 0, 1>} : (tensor<1x1x4x8xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// CHECK-LABEL: func @range_float
func.func @range_float() -> tensor<?xf32> {
  %a = graph.constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %b = graph.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %c = graph.constant {value = dense<0.3> : tensor<f32>} : () -> tensor<f32>
  // CHECK: return %{{.*}} : tensor<4xf32>
  %r = graph.range %a, %b, %c : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// CHECK-LABEL: func @top_k_constant
func.func @top_k_constant(%x: tensor<3x10xf32>) -> tensor<?x?xf32> {
  %k = graph.constant {value = dense<4> : tensor<1xi64>} : () -> tensor<1xi64>
  // CHECK: return %{{.*}} : tensor<3x4xf32>
  %r:2 = graph.top_k %x, %k {axis = 1 : i64} : (tensor<3x10xf32>, tensor<1xi64>) -> (tensor<?x?xf32>, tensor<?x?xi64>)
  return %r#0 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @one_hot_axis0
func.func @one_hot_axis0(%i: tensor<2x3xi64>) -> tensor<?x?x?xi32> {
  %d = graph.constant {value = dense<5> : tensor<i64>} : () -> tensor<i64>
  %v = graph.constant {value = dense<[0, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  // CHECK: return %{{.*}} : tensor<5x2x3xi32>
  %r = graph.one_hot %i, %d, %v {axis = 0 : i64} : (tensor<2x3xi64>, tensor<i64>, tensor<2xi32>) -> tensor<?x?x?xi32>
  return %r : tensor<?x?x?xi32>
}

// -----

// CHECK-LABEL: func @constant_of_shape_value
func.func @constant_of_shape_value() -> tensor<?x?xi32> {
  %s = graph.constant {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: return %{{.*}} : tensor<2x3xi32>
  %r = graph.constant_of_shape %s {value = dense<7> : tensor<1xi32>} : (tensor<2xi64>) -> tensor<?x?xi32>
  return %r : tensor<?x?xi32>
}

// -----

// CHECK-LABEL: func @prelu_refines_dynamic
func.func @prelu_refines_dynamic(%x: tensor<?x3xf32>, %s: tensor<2x3xf32>) -> tensor<?x?xf32> {
  // CHECK: return %{{.*}} : tensor<2x3xf32>
  %r = graph.prelu %x, %s : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Grouped K/V heads: the result has Q's heads and V's head size.
// CHECK-LABEL: func @attention_grouped
func.func @attention_grouped(%q: tensor<2x8x16x64xf32>, %k: tensor<?x2x32x64xf32>, %v: tensor<2x2x?x48xf32>) -> tensor<?x?x?x?xf32> {
  // CHECK: return %{{.*}} : tensor<2x8x16x48xf32>
  %r = graph.attention %q, %k, %v : (tensor<2x8x16x64xf32>, tensor<?x2x32x64xf32>, tensor<2x2x?x48xf32>) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// CHECK-LABEL: func @grid_sample_dims
func.func @grid_sample_dims(%x: tensor<?x3x8x8xf32>, %g: tensor<2x4x5x2xf64>) -> tensor<?x?x?x?xf32> {
  // CHECK: return %{{.*}} : tensor<2x3x4x5xf32>
  %r = graph.grid_sample %x, %g : (tensor<?x3x8x8xf32>, tensor<2x4x5x2xf64>) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// RoiAlign: the box count from rois or batch_indices, the bins from the
// attributes.
// CHECK-LABEL: func @roi_align_dims
func.func @roi_align_dims(%x: tensor<?x3x8x8xf32>, %r: tensor<?x4xf32>, %b: tensor<6xi64>) -> tensor<?x?x?x?xf32> {
  // CHECK: return %{{.*}} : tensor<6x3x2x5xf32>
  %y = graph.roi_align %x, %r, %b {output_height = 2 : i64, output_width = 5 : i64} : (tensor<?x3x8x8xf32>, tensor<?x4xf32>, tensor<6xi64>) -> tensor<?x?x?x?xf32>
  return %y : tensor<?x?x?x?xf32>
}

// -----

// DFT: dft_length pads (or truncates) the axis, onesided keeps n / 2 + 1
// bins, and the last dim becomes 2.
// CHECK-LABEL: func @dft_length_onesided
func.func @dft_length_onesided(%x: tensor<2x10x3x1xf32>) -> tensor<?x?x?x?xf32> {
  %n = graph.constant {value = dense<7> : tensor<i64>} : () -> tensor<i64>
  %a = graph.constant {value = dense<-2> : tensor<i32>} : () -> tensor<i32>
  // CHECK: return %{{.*}} : tensor<2x10x4x2xf32>
  %r = graph.dft %x, %n, %a {onesided = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x10x3x1xf32>, tensor<i64>, tensor<i32>) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// -----

// CHECK-LABEL: func @affine_grid_3d
func.func @affine_grid_3d(%t: tensor<?x3x4xf32>) -> tensor<?x?x?x?x?xf32> {
  %s = graph.constant {value = dense<[2, 1, 3, 4, 5]> : tensor<5xi64>} : () -> tensor<5xi64>
  // CHECK: return %{{.*}} : tensor<2x3x4x5x3xf32>
  %r = graph.affine_grid %t, %s : (tensor<?x3x4xf32>, tensor<5xi64>) -> tensor<?x?x?x?x?xf32>
  return %r : tensor<?x?x?x?x?xf32>
}

// -----

// CHECK-LABEL: func @dft_default_axis
func.func @dft_default_axis(%x: tensor<2x10x3x2xf64>) -> tensor<?x?x?x?xf64> {
  // CHECK: return %{{.*}} : tensor<2x10x2x2xf64>
  %r = graph.dft %x {onesided = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x10x3x2xf64>) -> tensor<?x?x?x?xf64>
  return %r : tensor<?x?x?x?xf64>
}

// -----

// The result has x's shape and the zero point's (quantize) or the scale's
// (dequantize) element type.
// CHECK-LABEL: func @quantize_per_axis
func.func @quantize_per_axis(%x: tensor<?x3x2xf16>, %s: tensor<3x1xf16>, %z: tensor<3x1xui8>) -> tensor<?x?x?xf32> {
  // CHECK: graph.quantize_linear {{.*}} -> tensor<?x3x2xui8>
  %q = graph.quantize_linear %x, %s, %z : (tensor<?x3x2xf16>, tensor<3x1xf16>, tensor<3x1xui8>) -> tensor<?x?x?xui8>
  // CHECK: graph.dequantize_linear {{.*}} -> tensor<?x3x2xf32>
  %s32 = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %d = graph.dequantize_linear %q, %s32, %z : (tensor<?x?x?xui8>, tensor<f32>, tensor<3x1xui8>) -> tensor<?x?x?xf32>
  return %d : tensor<?x?x?xf32>
}

// -----

// An axis known only at run time leaves every dim but the last unknown.
// CHECK-LABEL: func @dft_runtime_axis
func.func @dft_runtime_axis(%x: tensor<2x10x1xf32>, %a: tensor<i64>) -> tensor<?x?x?xf32> {
  // CHECK: return %{{.*}} : tensor<?x?x2xf32>
  %r = graph.dft %x, %a {operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<2x10x1xf32>, tensor<i64>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}
