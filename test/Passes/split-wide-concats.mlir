// RUN: graphc-opt %s --graphc-split-wide-concats=max-inputs=2 | FileCheck %s

// Five inputs, at most two per concat: pairs, then pairs of those, then
// the root of the last two; the lone input passes up a level as it is.
// CHECK-LABEL: func.func @main
// CHECK: %[[A:.*]] = graph.concat %arg0, %arg1 {axis = 1 : i64} : (tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x3xf32>
// CHECK: %[[B:.*]] = graph.concat %arg2, %arg3 {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
// CHECK: %[[C:.*]] = graph.concat %[[A]], %[[B]] {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x7xf32>) -> tensor<2x10xf32>
// CHECK: graph.concat %[[C]], %arg4 {axis = 1 : i64} : (tensor<2x10xf32>, tensor<2x5xf32>) -> tensor<2x15xf32>
func.func @main(%a: tensor<2x1xf32>, %b: tensor<2x2xf32>, %c: tensor<2x3xf32>, %d: tensor<2x4xf32>, %e: tensor<2x5xf32>) -> tensor<2x15xf32> {
  %r = graph.concat %a, %b, %c, %d, %e {axis = 1 : i64} : (tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x5xf32>) -> tensor<2x15xf32>
  return %r : tensor<2x15xf32>
}
