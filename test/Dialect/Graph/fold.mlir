// RUN: graphc-opt %s --graphc-fold-shape-computations --split-input-file | FileCheck %s

// CHECK-LABEL: func @reshape_constant_shape
func.func @reshape_constant_shape(%a: tensor<2x6xf32>) -> tensor<?x?xf32> {
  %s = graph.constant {value = dense<[3, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: graph.reshape %{{.*}}, %{{.*}} : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  %0 = graph.reshape %a, %s : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  // CHECK: return %{{.*}} : tensor<3x4xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @fold_relu
func.func @fold_relu() -> tensor<3xf32> {
  %c = graph.constant {value = dense<[-1.0, 0.5, 2.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  // CHECK: %[[C:.*]] = graph.constant {value = dense<[0.000000e+00, 5.000000e-01, 2.000000e+00]> : tensor<3xf32>}
  // CHECK-NEXT: return %[[C]]
  %0 = graph.relu %c : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
