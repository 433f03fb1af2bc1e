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

// -----

// The scalars are optional: the segments say which are given.
// CHECK-LABEL: func @non_max_suppression
// INFER-LABEL: func @non_max_suppression
func.func @non_max_suppression(%b: tensor<2x6x4xf32>, %s: tensor<2x3x6xf32>, %m: tensor<1xi64>, %t: tensor<f32>) -> (tensor<?x?xi64>, tensor<?x?xi64>) {
  // CHECK: graph.non_max_suppression %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {center_point_box = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>}
  // CHECK: graph.non_max_suppression %{{.*}}, %{{.*}} {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}
  // INFER: return %{{.*}}, %{{.*}} : tensor<?x3xi64>, tensor<?x3xi64>
  %i, %n = graph.non_max_suppression %b, %s, %m, %t {center_point_box = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>} : (tensor<2x6x4xf32>, tensor<2x3x6xf32>, tensor<1xi64>, tensor<f32>) -> (tensor<?x?xi64>, tensor<i64>)
  %j, %k = graph.non_max_suppression %b, %s {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<2x6x4xf32>, tensor<2x3x6xf32>) -> (tensor<?x?xi64>, tensor<i64>)
  return %i, %j : tensor<?x?xi64>, tensor<?x?xi64>
}

// -----

// Unique sizes y's dim along the axis (its only dim without one), indices
// and counts; inverse_indices has one entry per position.
// CHECK-LABEL: func @unique
// INFER-LABEL: func @unique
func.func @unique(%x: tensor<3x5x2xi32>) -> (tensor<?x?x?xi32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi32>, tensor<?xi64>) {
  // CHECK: graph.unique %{{.*}} {axis = -2 : i64, sorted = 0 : i64}
  // CHECK: graph.unique %{{.*}} :
  // INFER: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<3x?x2xi32>, tensor<?xi64>, tensor<5xi64>, tensor<?xi32>, tensor<30xi64>
  %y, %i, %v, %c, %n = graph.unique %x {axis = -2 : i64, sorted = 0 : i64} : (tensor<3x5x2xi32>) -> (tensor<?x?x?xi32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<i64>)
  %z, %j, %w, %d, %m = graph.unique %x : (tensor<3x5x2xi32>) -> (tensor<?xi32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<i64>)
  return %y, %i, %v, %z, %w : tensor<?x?x?xi32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi32>, tensor<?xi64>
}
