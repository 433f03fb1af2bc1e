// RUN: graphc-opt %s --canonicalize --split-input-file | FileCheck %s

// Shape and Size fold from a static type even when the input is no constant.
// CHECK-LABEL: func @shape_and_size_of_static_input
func.func @shape_and_size_of_static_input(%x: tensor<2x3x4xf32>, %d: tensor<?x3xf32>) -> (tensor<3xi64>, tensor<1xi64>, tensor<i64>, tensor<1xi64>, tensor<2xi64>) {
  // CHECK-DAG: graph.constant {value = dense<[2, 3, 4]> : tensor<3xi64>}
  // CHECK-DAG: graph.constant {value = dense<4> : tensor<1xi64>}
  // CHECK-DAG: graph.constant {value = dense<24> : tensor<i64>}
  // CHECK-DAG: graph.constant {value = dense<3> : tensor<1xi64>}
  // CHECK: %[[S:.*]] = graph.shape %{{.*}} : (tensor<?x3xf32>) -> tensor<2xi64>
  %0 = graph.shape %x : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %1 = graph.shape %x {start = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<1xi64>
  %2 = graph.size %x : (tensor<2x3x4xf32>) -> tensor<i64>
  // Only the selected dims need to be static.
  %3 = graph.shape %d {start = 1 : i64} : (tensor<?x3xf32>) -> tensor<1xi64>
  %4 = graph.shape %d : (tensor<?x3xf32>) -> tensor<2xi64>
  return %0, %1, %2, %3, %4 : tensor<3xi64>, tensor<1xi64>, tensor<i64>, tensor<1xi64>, tensor<2xi64>
}

// -----

// CHECK-LABEL: func @fold_elementwise
func.func @fold_elementwise() -> (tensor<2xf32>, tensor<2xi1>, tensor<2xi32>) {
  %a = graph.constant {value = dense<[1.5, -2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = graph.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  // CHECK-DAG: graph.constant {value = dense<[3.000000e+00, -4.000000e+00]> : tensor<2xf32>}
  // CHECK-DAG: graph.constant {value = dense<true> : tensor<2xi1>}
  // CHECK-DAG: graph.constant {value = dense<[1, -2]> : tensor<2xi32>}
  // CHECK-NOT: graph.mul
  // CHECK-NOT: graph.less
  // CHECK-NOT: graph.cast
  %0 = graph.mul %a, %b : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %1 = graph.less %a, %b : (tensor<2xf32>, tensor<f32>) -> tensor<2xi1>
  %2 = graph.cast %a {to = i32} : (tensor<2xf32>) -> tensor<2xi32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xi1>, tensor<2xi32>
}

// -----

// CHECK-LABEL: func @fold_data_movement
func.func @fold_data_movement() -> (tensor<3x2xi64>, tensor<5xi64>, tensor<2xi64>, tensor<1x2xi64>) {
  %a = graph.constant {value = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>} : () -> tensor<2x3xi64>
  %b = graph.constant {value = dense<[7, 8]> : tensor<2xi64>} : () -> tensor<2xi64>
  %i = graph.constant {value = dense<[2, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  %f = graph.constant {value = dense<[1, 2, 3]> : tensor<3xi64>} : () -> tensor<3xi64>
  %z = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  // CHECK-DAG: graph.constant {value = dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi64>}
  // CHECK-DAG: graph.constant {value = dense<[1, 2, 3, 7, 8]> : tensor<5xi64>}
  // CHECK-DAG: graph.constant {value = dense<[3, 1]> : tensor<2xi64>}
  // CHECK-DAG: graph.constant {value = dense<{{\[}}[7, 8]]> : tensor<1x2xi64>}
  %0 = graph.transpose %a : (tensor<2x3xi64>) -> tensor<3x2xi64>
  %1 = graph.concat %f, %b {axis = 0 : i64} : (tensor<3xi64>, tensor<2xi64>) -> tensor<5xi64>
  %2 = graph.gather %f, %i : (tensor<3xi64>, tensor<2xi64>) -> tensor<2xi64>
  %3 = graph.unsqueeze %b, %z : (tensor<2xi64>, tensor<1xi64>) -> tensor<1x2xi64>
  return %0, %1, %2, %3 : tensor<3x2xi64>, tensor<5xi64>, tensor<2xi64>, tensor<1x2xi64>
}

// -----

// CHECK-LABEL: func @fold_multi_result_and_reductions
func.func @fold_multi_result_and_reductions() -> (tensor<2xf32>, tensor<1xf32>, tensor<2xf32>, tensor<2xi64>, tensor<2xf32>) {
  %a = graph.constant {value = dense<[3.0, 1.0, 2.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %k = graph.constant {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %m = graph.constant {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %axes = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  // CHECK-DAG: graph.constant {value = dense<[3.000000e+00, 1.000000e+00]> : tensor<2xf32>}
  // CHECK-DAG: graph.constant {value = dense<2.000000e+00> : tensor<1xf32>}
  // CHECK-DAG: graph.constant {value = dense<[3.000000e+00, 2.000000e+00]> : tensor<2xf32>}
  // CHECK-DAG: graph.constant {value = dense<[0, 2]> : tensor<2xi64>}
  // CHECK-DAG: graph.constant {value = dense<[3.000000e+00, 7.000000e+00]> : tensor<2xf32>}
  // CHECK-NOT: graph.split
  // CHECK-NOT: graph.top_k
  // CHECK-NOT: graph.reduce_sum
  %s:2 = graph.split %a {num_outputs = 2 : i64} : (tensor<3xf32>) -> (tensor<2xf32>, tensor<1xf32>)
  %t:2 = graph.top_k %a, %k : (tensor<3xf32>, tensor<1xi64>) -> (tensor<2xf32>, tensor<2xi64>)
  %r = graph.reduce_sum %m, %axes {keepdims = 0 : i64} : (tensor<2x2xf32>, tensor<1xi64>) -> tensor<2xf32>
  return %s#0, %s#1, %t#0, %t#1, %r : tensor<2xf32>, tensor<1xf32>, tensor<2xf32>, tensor<2xi64>, tensor<2xf32>
}
