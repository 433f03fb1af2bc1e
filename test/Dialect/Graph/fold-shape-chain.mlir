// RUN: graphc-opt %s --graphc-fold-shape-computations --split-input-file | FileCheck %s

// The usual exported "flatten the trailing dims" chain: once the input is
// static, Shape -> Gather -> Unsqueeze -> Concat -> Reshape folds to a
// reshape by a constant and every type becomes static.
// CHECK-LABEL: func @shape_gather_concat_reshape
// CHECK-SAME: -> tensor<2x12xf32>
func.func @shape_gather_concat_reshape(%x: tensor<2x3x4xf32>) -> tensor<?x?xf32> {
  %zero = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %axes = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %minus1 = graph.constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  // CHECK-NOT: graph.shape
  // CHECK-NOT: graph.gather
  // CHECK-NOT: graph.concat
  // CHECK: %[[S:.*]] = graph.constant {value = dense<[2, -1]> : tensor<2xi64>}
  // CHECK: %[[R:.*]] = graph.reshape %{{.*}}, %[[S]] : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  // CHECK: return %[[R]] : tensor<2x12xf32>
  %shape = graph.shape %x : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %batch = graph.gather %shape, %zero {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %batch1 = graph.unsqueeze %batch, %axes : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %target = graph.concat %batch1, %minus1 {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %y = graph.reshape %x, %target : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// With a dynamic batch the chain stays, but the static dims still refine.
// CHECK-LABEL: func @dynamic_batch_chain_kept
func.func @dynamic_batch_chain_kept(%x: tensor<?x3x4xf32>) -> tensor<?x?xf32> {
  %zero = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %axes = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %minus1 = graph.constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  // CHECK: graph.shape
  // CHECK: graph.gather
  // CHECK: graph.concat
  // CHECK: graph.reshape %{{.*}}, %{{.*}} : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %shape = graph.shape %x : (tensor<?x3x4xf32>) -> tensor<3xi64>
  %batch = graph.gather %shape, %zero {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %batch1 = graph.unsqueeze %batch, %axes : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %target = graph.concat %batch1, %minus1 {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %y = graph.reshape %x, %target : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
