// RUN: graphc-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func @identity_removed
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
func.func @identity_removed(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK-NOT: graph.identity
  // CHECK: return %[[X]]
  %0 = graph.identity %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @same_type_no_ops
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @same_type_no_ops(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = graph.constant {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %e = graph.constant {value = dense<[1, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %a = graph.constant {value = dense<> : tensor<0xi64>} : () -> tensor<0xi64>
  // CHECK-NOT: graph.reshape
  // CHECK-NOT: graph.expand
  // CHECK-NOT: graph.cast
  // CHECK-NOT: graph.unsqueeze
  // CHECK: return %[[X]]
  %0 = graph.reshape %x, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %1 = graph.expand %0, %e : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %2 = graph.cast %1 {to = f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = graph.unsqueeze %2, %a : (tensor<2x3xf32>, tensor<0xi64>) -> tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}

// -----

// A dynamic reshape to the same type may still regroup elements: kept.
// CHECK-LABEL: func @dynamic_reshape_kept
func.func @dynamic_reshape_kept(%x: tensor<?x4xf32>, %s: tensor<2xi64>) -> tensor<?x4xf32> {
  // CHECK: graph.reshape
  %0 = graph.reshape %x, %s : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @reshape_of_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<?x6xf32>
func.func @reshape_of_reshape(%x: tensor<?x6xf32>, %s: tensor<3xi64>) -> tensor<?x3xf32> {
  %t = graph.constant {value = dense<[-1, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: %[[T:.*]] = graph.constant {value = dense<[-1, 3]>
  // CHECK-NEXT: %[[R:.*]] = graph.reshape %[[X]], %[[T]]
  // CHECK-NEXT: return %[[R]]
  %0 = graph.reshape %x, %s : (tensor<?x6xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %1 = graph.reshape %0, %t : (tensor<?x?x?xf32>, tensor<2xi64>) -> tensor<?x3xf32>
  return %1 : tensor<?x3xf32>
}

// -----

// A 0 in the outer shape copies a dim of the intermediate value: kept.
// CHECK-LABEL: func @reshape_of_reshape_copying_dim
func.func @reshape_of_reshape_copying_dim(%x: tensor<?x6xf32>, %s: tensor<3xi64>) -> tensor<?x?xf32> {
  %t = graph.constant {value = dense<[0, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: graph.reshape
  // CHECK: graph.reshape
  %0 = graph.reshape %x, %s : (tensor<?x6xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %1 = graph.reshape %0, %t : (tensor<?x?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @transposes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @transposes(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>) {
  // CHECK: %[[T:.*]] = graph.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  // CHECK-NEXT: return %[[X]], %[[T]], %[[X]]
  %0 = graph.transpose %x {perm = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = graph.transpose %x {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %2 = graph.transpose %1 {perm = array<i64: 2, 0, 1>} : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  %3 = graph.transpose %1 {perm = array<i64: 1, 2, 0>} : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32>
  // Default perm reverses: reversing twice is the identity.
  %4 = graph.transpose %x : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %5 = graph.transpose %4 : (tensor<4x3x2xf32>) -> tensor<2x3x4xf32>
  return %2, %3, %5 : tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>
}

// -----

// A transpose that moves only unit dims keeps the bytes in order: a reshape
// (a view). One that reorders two dims larger than 1 stays, and so does a
// dynamic one.
// CHECK-LABEL: func @transpose_of_unit_dims
// CHECK-SAME: (%[[X:.*]]: tensor<1x5x8xf32>, %[[Y:.*]]: tensor<1x5x8xf32>, %[[Z:.*]]: tensor<?x1x8xf32>)
func.func @transpose_of_unit_dims(%x: tensor<1x5x8xf32>, %y: tensor<1x5x8xf32>, %z: tensor<?x1x8xf32>) -> (tensor<5x1x8xf32>, tensor<8x5x1xf32>, tensor<1x?x8xf32>) {
  // CHECK-DAG: %[[SHAPE:.*]] = graph.constant {value = dense<[5, 1, 8]> : tensor<3xi64>}
  // CHECK-DAG: %[[R:.*]] = graph.reshape %[[X]], %[[SHAPE]] {allowzero = 1 : i64} : (tensor<1x5x8xf32>, tensor<3xi64>) -> tensor<5x1x8xf32>
  // CHECK-DAG: %[[T:.*]] = graph.transpose %[[Y]] {perm = array<i64: 2, 1, 0>}
  // CHECK-DAG: %[[D:.*]] = graph.transpose %[[Z]] {perm = array<i64: 1, 0, 2>}
  // CHECK: return %[[R]], %[[T]], %[[D]]
  %0 = graph.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<1x5x8xf32>) -> tensor<5x1x8xf32>
  %1 = graph.transpose %y {perm = array<i64: 2, 1, 0>} : (tensor<1x5x8xf32>) -> tensor<8x5x1xf32>
  %2 = graph.transpose %z {perm = array<i64: 1, 0, 2>} : (tensor<?x1x8xf32>) -> tensor<1x?x8xf32>
  return %0, %1, %2 : tensor<5x1x8xf32>, tensor<8x5x1xf32>, tensor<1x?x8xf32>
}

// -----

// CHECK-LABEL: func @squeeze_unsqueeze_pairs
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>, %[[Y:.*]]: tensor<?x1x4xf32>)
func.func @squeeze_unsqueeze_pairs(%x: tensor<?x4xf32>, %y: tensor<?x1x4xf32>) -> (tensor<?x4xf32>, tensor<?x1x4xf32>) {
  %a = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %b = graph.constant {value = dense<-2> : tensor<1xi64>} : () -> tensor<1xi64>
  // CHECK-NOT: graph.squeeze
  // CHECK-NOT: graph.unsqueeze
  // CHECK: return %[[X]], %[[Y]]
  %0 = graph.unsqueeze %x, %a : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<?x1x4xf32>
  %1 = graph.squeeze %0, %b : (tensor<?x1x4xf32>, tensor<1xi64>) -> tensor<?x4xf32>
  %2 = graph.squeeze %y, %a : (tensor<?x1x4xf32>, tensor<1xi64>) -> tensor<?x4xf32>
  %3 = graph.unsqueeze %2, %a : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<?x1x4xf32>
  return %1, %3 : tensor<?x4xf32>, tensor<?x1x4xf32>
}

// -----

// Squeezing other axes than were inserted is not a round trip.
// CHECK-LABEL: func @squeeze_other_axis_kept
func.func @squeeze_other_axis_kept(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %a = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %b = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  // CHECK: graph.unsqueeze
  // CHECK: graph.squeeze
  %0 = graph.unsqueeze %x, %a : (tensor<1x4xf32>, tensor<1xi64>) -> tensor<1x1x4xf32>
  %1 = graph.squeeze %0, %b : (tensor<1x1x4xf32>, tensor<1xi64>) -> tensor<1x4xf32>
  return %1 : tensor<1x4xf32>
}
