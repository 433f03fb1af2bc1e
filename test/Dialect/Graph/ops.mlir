// RUN: graphc-opt %s --split-input-file | graphc-opt | FileCheck %s

// CHECK-LABEL: func @round_trip
func.func @round_trip(%a: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  // CHECK: graph.add %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %0 = graph.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  // CHECK: graph.relu
  %1 = graph.relu %0 : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %1 : tensor<?x3xf32>
}
