// Ops whose extents the run decides: round trip, inference (the dims they
// size stay dynamic), and their invalid forms.
// RUN: graphc-opt %s --split-input-file | graphc-opt --split-input-file | FileCheck %s
// RUN: graphc-opt %s --graphc-fold-shape-computations --split-input-file | FileCheck %s --check-prefix=INFER

// CHECK-LABEL: func @non_zero
// INFER-LABEL: func @non_zero
func.func @non_zero(%x: tensor<2x3xf32>) -> (tensor<?x?xi64>, tensor<i64>) {
  // CHECK: graph.non_zero %{{.*}} : (tensor<2x3xf32>) -> (tensor<?x?xi64>, tensor<i64>)
  // INFER: return %{{.*}}, %{{.*}} : tensor<2x?xi64>, tensor<i64>
  %i, %n = graph.non_zero %x : (tensor<2x3xf32>) -> (tensor<?x?xi64>, tensor<i64>)
  return %i, %n : tensor<?x?xi64>, tensor<i64>
}

// -----

// CHECK-LABEL: func @compress
// INFER-LABEL: func @compress
func.func @compress(%x: tensor<4x5xi32>, %c: tensor<3xi1>) -> (tensor<?x?xi32>, tensor<?xi32>) {
  // CHECK: graph.compress %{{.*}}, %{{.*}} {axis = -1 : i64}
  // CHECK: graph.compress %{{.*}}, %{{.*}} :
  // INFER: return %{{.*}}, %{{.*}} : tensor<4x?xi32>, tensor<?xi32>
  %y, %n = graph.compress %x, %c {axis = -1 : i64} : (tensor<4x5xi32>, tensor<3xi1>) -> (tensor<?x?xi32>, tensor<i64>)
  %z, %m = graph.compress %x, %c : (tensor<4x5xi32>, tensor<3xi1>) -> (tensor<?xi32>, tensor<i64>)
  return %y, %z : tensor<?x?xi32>, tensor<?xi32>
}

// -----

// CHECK-LABEL: func @empty_if
// INFER-LABEL: func @empty_if
func.func @empty_if(%c: tensor<i1>, %x: tensor<5x4xf32>) -> tensor<?x?xf32> {
  // CHECK: graph.empty_if %{{.*}}, %{{.*}} {dims = array<i64: 0>}
  // INFER: return %{{.*}} : tensor<?x4xf32>
  %r = graph.empty_if %c, %x {dims = array<i64: 0>} : (tensor<i1>, tensor<5x4xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
