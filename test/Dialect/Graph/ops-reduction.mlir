// RUN: graphc-opt %s --split-input-file | graphc-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func @reductions
func.func @reductions(%x: tensor<?x4x8xf32>, %axes: tensor<1xi64>) -> (tensor<?x4xf32>, tensor<?x4x1xf32>, tensor<1x1x1xf32>, tensor<f32>, tensor<?x4x8xf32>) {
  %c = graph.constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  // CHECK: graph.reduce_sum %{{.*}}, %{{.*}} {keepdims = 0 : i64} : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x4xf32>
  %0 = graph.reduce_sum %x, %c {keepdims = 0 : i64} : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x4xf32>
  // CHECK: graph.reduce_mean %{{.*}}, %{{.*}} : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x4x1xf32>
  %1 = graph.reduce_mean %x, %c : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x4x1xf32>
  // CHECK: graph.reduce_max %{{.*}} : (tensor<?x4x8xf32>) -> tensor<1x1x1xf32>
  %2 = graph.reduce_max %x : (tensor<?x4x8xf32>) -> tensor<1x1x1xf32>
  // CHECK: graph.reduce_min %{{.*}} {keepdims = 0 : i64} : (tensor<?x4x8xf32>) -> tensor<f32>
  %3 = graph.reduce_min %x {keepdims = 0 : i64} : (tensor<?x4x8xf32>) -> tensor<f32>
  // CHECK: graph.reduce_prod %{{.*}} {noop_with_empty_axes = 1 : i64} : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  %4 = graph.reduce_prod %x {noop_with_empty_axes = 1 : i64} : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  // CHECK: graph.reduce_l1
  %5 = graph.reduce_l1 %x, %axes : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
  // CHECK: graph.reduce_l2
  %6 = graph.reduce_l2 %x, %axes {keepdims = 0 : i64} : (tensor<?x4x8xf32>, tensor<1xi64>) -> tensor<?x?xf32>
  // CHECK: graph.reduce_log_sum
  %7 = graph.reduce_log_sum %x : (tensor<?x4x8xf32>) -> tensor<1x1x1xf32>
  // CHECK: graph.reduce_log_sum_exp
  %8 = graph.reduce_log_sum_exp %x : (tensor<?x4x8xf32>) -> tensor<1x1x1xf32>
  // CHECK: graph.reduce_sum_square
  %9 = graph.reduce_sum_square %x : (tensor<?x4x8xf32>) -> tensor<1x1x1xf32>
  return %0, %1, %2, %3, %4 : tensor<?x4xf32>, tensor<?x4x1xf32>, tensor<1x1x1xf32>, tensor<f32>, tensor<?x4x8xf32>
}

// -----

// CHECK-LABEL: func @arg_and_softmax
func.func @arg_and_softmax(%x: tensor<?x10xf32>) -> (tensor<?xi64>, tensor<?x1xi64>, tensor<?x10xf32>, tensor<?x10xf32>, tensor<?x10xf32>) {
  // CHECK: graph.arg_max %{{.*}} {axis = 1 : i64, keepdims = 0 : i64} : (tensor<?x10xf32>) -> tensor<?xi64>
  %0 = graph.arg_max %x {axis = 1 : i64, keepdims = 0 : i64} : (tensor<?x10xf32>) -> tensor<?xi64>
  // CHECK: graph.arg_min %{{.*}} {axis = -1 : i64, select_last_index = 1 : i64} : (tensor<?x10xf32>) -> tensor<?x1xi64>
  %1 = graph.arg_min %x {axis = -1 : i64, select_last_index = 1 : i64} : (tensor<?x10xf32>) -> tensor<?x1xi64>
  // CHECK: graph.softmax %{{.*}} : (tensor<?x10xf32>) -> tensor<?x10xf32>
  %2 = graph.softmax %x {axis = -1 : i64} : (tensor<?x10xf32>) -> tensor<?x10xf32>
  // CHECK: graph.log_softmax %{{.*}} {axis = 0 : i64}
  %3 = graph.log_softmax %x {axis = 0 : i64} : (tensor<?x10xf32>) -> tensor<?x10xf32>
  // CHECK: graph.hardmax
  %4 = graph.hardmax %x : (tensor<?x10xf32>) -> tensor<?x10xf32>
  return %0, %1, %2, %3, %4 : tensor<?xi64>, tensor<?x1xi64>, tensor<?x10xf32>, tensor<?x10xf32>, tensor<?x10xf32>
}

// -----

// CHECK-LABEL: func @scan_and_top_k
func.func @scan_and_top_k(%x: tensor<?x10xf32>, %axis: tensor<i64>, %k: tensor<1xi64>) -> (tensor<?x10xf32>, tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x?xf32>) {
  // CHECK: graph.cum_sum %{{.*}}, %{{.*}} {exclusive = 1 : i64, reverse = 1 : i64} : (tensor<?x10xf32>, tensor<i64>) -> tensor<?x10xf32>
  %0 = graph.cum_sum %x, %axis {exclusive = 1 : i64, reverse = 1 : i64} : (tensor<?x10xf32>, tensor<i64>) -> tensor<?x10xf32>
  %c = graph.constant {value = dense<3> : tensor<1xi64>} : () -> tensor<1xi64>
  // CHECK: graph.top_k %{{.*}}, %{{.*}} : (tensor<?x10xf32>, tensor<1xi64>) -> (tensor<?x3xf32>, tensor<?x3xi64>)
  %1:2 = graph.top_k %x, %c : (tensor<?x10xf32>, tensor<1xi64>) -> (tensor<?x3xf32>, tensor<?x3xi64>)
  // CHECK: graph.top_k %{{.*}}, %{{.*}} {largest = 0 : i64} : (tensor<?x10xf32>, tensor<1xi64>) -> (tensor<?x?xf32>, tensor<?x?xi64>)
  %2:2 = graph.top_k %x, %k {largest = 0 : i64} : (tensor<?x10xf32>, tensor<1xi64>) -> (tensor<?x?xf32>, tensor<?x?xi64>)
  return %0, %1#0, %1#1, %2#0 : tensor<?x10xf32>, tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @dft
func.func @dft(%x: tensor<2x10x1xf32>, %c: tensor<3x8x2xf16>, %axis: tensor<i64>) -> (tensor<2x6x2xf32>, tensor<3x8x2xf16>, tensor<?x?x2xf32>) {
  %n = graph.constant {value = dense<10> : tensor<i64>} : () -> tensor<i64>
  %a = graph.constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  // CHECK: graph.dft %{{.*}}, %{{.*}}, %{{.*}} {{{.*}}onesided = 1 : i64{{.*}}} : (tensor<2x10x1xf32>, tensor<i64>, tensor<i64>) -> tensor<2x6x2xf32>
  %0 = graph.dft %x, %n, %a {onesided = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x10x1xf32>, tensor<i64>, tensor<i64>) -> tensor<2x6x2xf32>
  // CHECK: graph.dft %{{.*}} {{{.*}}inverse = 1 : i64{{.*}}} : (tensor<3x8x2xf16>) -> tensor<3x8x2xf16>
  %1 = graph.dft %c {inverse = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3x8x2xf16>) -> tensor<3x8x2xf16>
  // CHECK: graph.dft %{{.*}}, %{{.*}} {operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<2x10x1xf32>, tensor<i64>) -> tensor<?x?x2xf32>
  %2 = graph.dft %x, %axis {operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<2x10x1xf32>, tensor<i64>) -> tensor<?x?x2xf32>
  return %0, %1, %2 : tensor<2x6x2xf32>, tensor<3x8x2xf16>, tensor<?x?x2xf32>
}
