// RUN: graphc-opt %s --split-input-file | graphc-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func @matrix_products
func.func @matrix_products(%a: tensor<?x4x8xf32>, %b: tensor<8x16xf32>, %v: tensor<8xf32>, %m: tensor<?x8xf32>, %w: tensor<16x8xf32>, %c: tensor<16xf32>) -> (tensor<?x4x16xf32>, tensor<?x4xf32>, tensor<?x16xf32>, tensor<?x16xf32>) {
  // CHECK: graph.mat_mul %{{.*}}, %{{.*}} : (tensor<?x4x8xf32>, tensor<8x16xf32>) -> tensor<?x4x16xf32>
  %0 = graph.mat_mul %a, %b : (tensor<?x4x8xf32>, tensor<8x16xf32>) -> tensor<?x4x16xf32>
  // CHECK: graph.mat_mul %{{.*}}, %{{.*}} : (tensor<?x4x8xf32>, tensor<8xf32>) -> tensor<?x4xf32>
  %1 = graph.mat_mul %a, %v : (tensor<?x4x8xf32>, tensor<8xf32>) -> tensor<?x4xf32>
  // CHECK: graph.gemm %{{.*}}, %{{.*}}, %{{.*}} {transB = 1 : i64} : (tensor<?x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  %2 = graph.gemm %m, %w, %c {transB = 1 : i64} : (tensor<?x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  // CHECK: graph.gemm %{{.*}}, %{{.*}} {alpha = 5.000000e-01 : f32} : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  %3 = graph.gemm %m, %b {alpha = 0.5 : f32} : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  return %0, %1, %2, %3 : tensor<?x4x16xf32>, tensor<?x4xf32>, tensor<?x16xf32>, tensor<?x16xf32>
}

// -----

// CHECK-LABEL: func @convolutions
func.func @convolutions(%x: tensor<?x4x32x32xf32>, %w: tensor<8x2x3x3xf32>, %b: tensor<8xf32>, %t: tensor<1x8x4x4xf32>, %tw: tensor<8x3x2x2xf32>) -> (tensor<?x8x32x32xf32>, tensor<?x8x15x15xf32>, tensor<1x3x8x8xf32>, tensor<1x3x10x10xf32>) {
  // CHECK: graph.conv %{{.*}}, %{{.*}}, %{{.*}} {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x4x32x32xf32>, tensor<8x2x3x3xf32>, tensor<8xf32>) -> tensor<?x8x32x32xf32>
  %0 = graph.conv %x, %w, %b {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x4x32x32xf32>, tensor<8x2x3x3xf32>, tensor<8xf32>) -> tensor<?x8x32x32xf32>
  // CHECK: graph.conv %{{.*}}, %{{.*}} {group = 2 : i64, strides = array<i64: 2, 2>} : (tensor<?x4x32x32xf32>, tensor<8x2x3x3xf32>) -> tensor<?x8x15x15xf32>
  %1 = graph.conv %x, %w {group = 2 : i64, strides = array<i64: 2, 2>} : (tensor<?x4x32x32xf32>, tensor<8x2x3x3xf32>) -> tensor<?x8x15x15xf32>
  // CHECK: graph.conv_transpose %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>} : (tensor<1x8x4x4xf32>, tensor<8x3x2x2xf32>) -> tensor<1x3x8x8xf32>
  %2 = graph.conv_transpose %t, %tw {strides = array<i64: 2, 2>} : (tensor<1x8x4x4xf32>, tensor<8x3x2x2xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.conv_transpose %{{.*}}, %{{.*}} {output_shape = array<i64: 10, 10>, strides = array<i64: 2, 2>}
  %3 = graph.conv_transpose %t, %tw {output_shape = array<i64: 10, 10>, strides = array<i64: 2, 2>} : (tensor<1x8x4x4xf32>, tensor<8x3x2x2xf32>) -> tensor<1x3x10x10xf32>
  return %0, %1, %2, %3 : tensor<?x8x32x32xf32>, tensor<?x8x15x15xf32>, tensor<1x3x8x8xf32>, tensor<1x3x10x10xf32>
}

// -----

// CHECK-LABEL: func @einsum
func.func @einsum(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %m: tensor<3x3xf32>) -> (tensor<2x3x5xf32>, tensor<f32>, tensor<5x4x2xf32>) {
  // CHECK: graph.einsum %{{.*}}, %{{.*}} {equation = "bij,bjk->bik"} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %0 = graph.einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  // CHECK: graph.einsum %{{.*}} {equation = "ii"} : (tensor<3x3xf32>) -> tensor<f32>
  %1 = graph.einsum %m {equation = "ii"} : (tensor<3x3xf32>) -> tensor<f32>
  // CHECK: graph.einsum %{{.*}} {equation = "...ij->ji..."} : (tensor<2x4x5xf32>) -> tensor<5x4x2xf32>
  %2 = graph.einsum %b {equation = "...ij->ji..."} : (tensor<2x4x5xf32>) -> tensor<5x4x2xf32>
  return %0, %1, %2 : tensor<2x3x5xf32>, tensor<f32>, tensor<5x4x2xf32>
}

// -----

// CHECK-LABEL: func @normalizations
func.func @normalizations(%x: tensor<?x4x8x8xf32>, %c: tensor<4xf32>, %s: tensor<?x16x64xf32>, %g: tensor<64xf32>) -> (tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>, tensor<?x16x64xf32>, tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>, tensor<?x16x64xf32>) {
  // CHECK: graph.batch_normalization %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32}
  %0 = graph.batch_normalization %x, %c, %c, %c, %c {epsilon = 1.0e-3 : f32} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  // CHECK: graph.instance_normalization
  %1 = graph.instance_normalization %x, %c, %c : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  // CHECK: graph.layer_normalization %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
  %2 = graph.layer_normalization %s, %g, %g : (tensor<?x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
  // CHECK: graph.group_normalization %{{.*}}, %{{.*}}, %{{.*}} {num_groups = 2 : i64}
  %3 = graph.group_normalization %x, %c, %c {num_groups = 2 : i64} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  // CHECK: graph.lp_normalization %{{.*}} {axis = 1 : i64, p = 1 : i64}
  %4 = graph.lp_normalization %x {axis = 1 : i64, p = 1 : i64} : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  // CHECK: graph.mean_variance_normalization %{{.*}} :
  %5 = graph.mean_variance_normalization %x : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  // CHECK: graph.lrn %{{.*}} {size = 3 : i64}
  %6 = graph.lrn %x {size = 3 : i64} : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  // CHECK: graph.layer_normalization %{{.*}}, %{{.*}} {axis = 2 : i64}
  %7 = graph.layer_normalization %s, %g {axis = 2 : i64} : (tensor<?x16x64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>, tensor<?x16x64xf32>, tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>, tensor<?x16x64xf32>
}

// -----

// CHECK-LABEL: func @pooling
func.func @pooling(%x: tensor<?x3x8x8xf32>) -> (tensor<?x3x4x4xf32>, tensor<?x3x8x8xf32>, tensor<?x3x7x7xf32>, tensor<?x3x1x1xf32>, tensor<?x3x1x1xf32>, tensor<?x3x1x1xf32>, tensor<?x3x3x3xf32>, tensor<?x3x4x4xf32>) {
  // CHECK: graph.max_pool %{{.*}} {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32>
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32>
  // CHECK: graph.average_pool %{{.*}} {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
  %1 = graph.average_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
  // CHECK: graph.lp_pool %{{.*}} {kernel_shape = array<i64: 2, 2>, p = 1 : i64}
  %2 = graph.lp_pool %x {kernel_shape = array<i64: 2, 2>, p = 1 : i64} : (tensor<?x3x8x8xf32>) -> tensor<?x3x7x7xf32>
  // CHECK: graph.global_average_pool %{{.*}} : (tensor<?x3x8x8xf32>) -> tensor<?x3x1x1xf32>
  %3 = graph.global_average_pool %x : (tensor<?x3x8x8xf32>) -> tensor<?x3x1x1xf32>
  // CHECK: graph.global_max_pool
  %4 = graph.global_max_pool %x : (tensor<?x3x8x8xf32>) -> tensor<?x3x1x1xf32>
  // CHECK: graph.global_lp_pool %{{.*}} {p = 1 : i64}
  %5 = graph.global_lp_pool %x {p = 1 : i64} : (tensor<?x3x8x8xf32>) -> tensor<?x3x1x1xf32>
  // CHECK: graph.max_pool %{{.*}} {ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 3, 3>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x3x3xf32>
  %6 = graph.max_pool %x {ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 3, 3>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x3x3xf32>
  // CHECK: graph.average_pool %{{.*}} {auto_pad = "SAME_UPPER", kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32>
  %7 = graph.average_pool %x {auto_pad = "SAME_UPPER", kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<?x3x4x4xf32>, tensor<?x3x8x8xf32>, tensor<?x3x7x7xf32>, tensor<?x3x1x1xf32>, tensor<?x3x1x1xf32>, tensor<?x3x1x1xf32>, tensor<?x3x3x3xf32>, tensor<?x3x4x4xf32>
}

// -----

// CHECK-LABEL: func @attention
func.func @attention(%q: tensor<?x8x16x64xf32>, %k: tensor<?x2x32x64xf32>, %v: tensor<?x2x32x48xf32>, %m: tensor<1x1x16x32xf32>) -> (tensor<?x8x16x48xf32>, tensor<?x8x16x48xf32>) {
  // CHECK: graph.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.250000e-01 : f64} : (tensor<?x8x16x64xf32>, tensor<?x2x32x64xf32>, tensor<?x2x32x48xf32>, tensor<1x1x16x32xf32>) -> tensor<?x8x16x48xf32>
  %0 = graph.attention %q, %k, %v, %m {scale = 0.125 : f64} : (tensor<?x8x16x64xf32>, tensor<?x2x32x64xf32>, tensor<?x2x32x48xf32>, tensor<1x1x16x32xf32>) -> tensor<?x8x16x48xf32>
  // CHECK: graph.attention %{{.*}}, %{{.*}}, %{{.*}} {is_causal = 1 : i64, nan_to_zero = 1 : i64} : (tensor<?x8x16x64xf32>, tensor<?x2x32x64xf32>, tensor<?x2x32x48xf32>) -> tensor<?x8x16x48xf32>
  %1 = graph.attention %q, %k, %v {is_causal = 1 : i64, nan_to_zero = 1 : i64} : (tensor<?x8x16x64xf32>, tensor<?x2x32x64xf32>, tensor<?x2x32x48xf32>) -> tensor<?x8x16x48xf32>
  return %0, %1 : tensor<?x8x16x48xf32>, tensor<?x8x16x48xf32>
}

// -----

// CHECK-LABEL: func @rms_and_silu
func.func @rms_and_silu(%x: tensor<?x16x64xf32>, %s: tensor<64xf32>) -> (tensor<?x16x64xf32>, tensor<?x16x64xf32>) {
  // CHECK: graph.rms_normalization %{{.*}}, %{{.*}} {epsilon = 9.99999997E-7 : f32} : (tensor<?x16x64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
  %0 = graph.rms_normalization %x, %s {epsilon = 1.0e-6 : f32} : (tensor<?x16x64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
  // CHECK: graph.silu %{{.*}} : (tensor<?x16x64xf32>) -> tensor<?x16x64xf32>
  %1 = graph.silu %0 : (tensor<?x16x64xf32>) -> tensor<?x16x64xf32>
  return %0, %1 : tensor<?x16x64xf32>, tensor<?x16x64xf32>
}

// -----

// CHECK-LABEL: func @det
func.func @det(%x: tensor<?x3x3xf32>, %y: tensor<4x?x4xf16>) -> (tensor<?xf32>, tensor<4xf16>) {
  // CHECK: graph.det %{{.*}} : (tensor<?x3x3xf32>) -> tensor<?xf32>
  %0 = graph.det %x : (tensor<?x3x3xf32>) -> tensor<?xf32>
  // CHECK: graph.det %{{.*}} : (tensor<4x?x4xf16>) -> tensor<4xf16>
  %1 = graph.det %y : (tensor<4x?x4xf16>) -> tensor<4xf16>
  return %0, %1 : tensor<?xf32>, tensor<4xf16>
}

// -----

// CHECK-LABEL: func @max_pool_with_indices
func.func @max_pool_with_indices(%x: tensor<?x3x8x8xf32>) -> (tensor<?x3x4x4xf32>, tensor<?x3x4x4xi64>) {
  // CHECK: graph.max_pool_with_indices %{{.*}} {kernel_shape = array<i64: 2, 2>, storage_order = 1 : i64, strides = array<i64: 2, 2>} : (tensor<?x3x8x8xf32>) -> (tensor<?x3x4x4xf32>, tensor<?x3x4x4xi64>)
  %y, %i = graph.max_pool_with_indices %x {kernel_shape = array<i64: 2, 2>, storage_order = 1 : i64, strides = array<i64: 2, 2>} : (tensor<?x3x8x8xf32>) -> (tensor<?x3x4x4xf32>, tensor<?x3x4x4xi64>)
  return %y, %i : tensor<?x3x4x4xf32>, tensor<?x3x4x4xi64>
}
