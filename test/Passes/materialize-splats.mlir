// RUN: graphc-opt %s --split-input-file --graphc-materialize-splats | FileCheck %s

// A splat of more than 1024 elements: the Add reads a one-element literal
// (broadcasting gives the same result), the concat and the return read a
// run-time expand of it. Smaller splats and other constants stay.
// CHECK-LABEL: func.func @splats
// CHECK-DAG: %[[ONE:.*]] = graph.constant {value = dense<2.500000e+00> : tensor<1xf32>}
// CHECK-DAG: %[[SHAPE:.*]] = graph.constant {value = dense<2048> : tensor<1xi64>}
// CHECK-DAG: %[[FILL:.*]] = graph.expand %[[ONE]], %[[SHAPE]] : (tensor<1xf32>, tensor<1xi64>) -> tensor<2048xf32>
// CHECK-DAG: %[[SMALL:.*]] = graph.constant {value = dense<1.000000e+00> : tensor<1024xf32>}
// CHECK-DAG: graph.add %arg0, %[[ONE]] : (tensor<2048xf32>, tensor<1xf32>) -> tensor<2048xf32>
// CHECK-DAG: graph.concat %arg0, %[[FILL]]
// CHECK-DAG: graph.add %arg1, %[[SMALL]]
// CHECK-NOT: dense<2.500000e+00> : tensor<2048xf32>
// CHECK: return {{.*}}, %[[FILL]]
func.func @splats(%x: tensor<2048xf32>, %y: tensor<1024xf32>) -> (tensor<2048xf32>, tensor<4096xf32>, tensor<1024xf32>, tensor<2048xf32>) {
  %s = graph.constant {value = dense<2.5> : tensor<2048xf32>} : () -> tensor<2048xf32>
  %small = graph.constant {value = dense<1.0> : tensor<1024xf32>} : () -> tensor<1024xf32>
  %a = graph.add %x, %s : (tensor<2048xf32>, tensor<2048xf32>) -> tensor<2048xf32>
  %c = graph.concat %x, %s {axis = 0 : i64} : (tensor<2048xf32>, tensor<2048xf32>) -> tensor<4096xf32>
  %b = graph.add %y, %small : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  return %a, %c, %b, %s : tensor<2048xf32>, tensor<4096xf32>, tensor<1024xf32>, tensor<2048xf32>
}

// -----

// A unary op cannot broadcast a literal to its result: it reads the fill.
// CHECK-LABEL: func.func @unary
// CHECK: %[[FILL:.*]] = graph.expand
// CHECK: graph.relu %[[FILL]]
func.func @unary() -> tensor<4x1024xf32> {
  %s = graph.constant {value = dense<-1.0> : tensor<4x1024xf32>} : () -> tensor<4x1024xf32>
  %r = graph.relu %s : (tensor<4x1024xf32>) -> tensor<4x1024xf32>
  return %r : tensor<4x1024xf32>
}
