// RUN: graphc-opt %s --graphc-bound-data-dependent-extents --split-input-file --verify-diagnostics | FileCheck %s

// NonZero's dims the run sizes get its bound (the element count); a
// transpose and a pointwise op take the extent along, and the output's
// extent is listed before the return. The signature keeps the dim dynamic.
// CHECK-LABEL: func @main
// CHECK-SAME: graph.signature = (tensor<3x4xf32>) -> tensor<?x2xi64>
func.func @main(%x: tensor<3x4xf32>) -> tensor<?x2xi64> {
  // CHECK: %[[I:.*]], %[[N:.*]] = graph.non_zero %{{.*}} : (tensor<3x4xf32>) -> (tensor<2x12xi64>, tensor<i64>)
  // CHECK: %[[T:.*]] = graph.transpose %[[I]] {{.*}} -> tensor<12x2xi64>
  // CHECK: %[[A:.*]] = graph.add %[[T]], %{{.*}} -> tensor<12x2xi64>
  // CHECK: graph.output_extents %[[N]] {positions = array<i64: 0, 0>} : tensor<i64>
  // CHECK-NEXT: return %[[A]] : tensor<12x2xi64>
  %i, %n = graph.non_zero %x : (tensor<3x4xf32>) -> (tensor<2x?xi64>, tensor<i64>) loc("nz")
  %t = graph.transpose %i {perm = array<i64: 1, 0>} : (tensor<2x?xi64>) -> tensor<?x2xi64>
  %one = graph.constant {value = dense<1> : tensor<2xi64>} : () -> tensor<2xi64>
  %a = graph.add %t, %one : (tensor<?x2xi64>, tensor<2xi64>) -> tensor<?x2xi64>
  return %a : tensor<?x2xi64>
}

// -----

// Compress along an axis; a flatten that merges the bounded dim with the
// static ones after it multiplies the extent; the shape of a bounded value
// is computed from the extent at run time.
// CHECK-LABEL: func @main
func.func @main(%x: tensor<5x3xf32>, %c: tensor<4xi1>) -> (tensor<?xf32>, tensor<2xi64>) {
  // CHECK: %[[Y:.*]], %[[N:.*]] = graph.compress {{.*}} -> (tensor<4x3xf32>, tensor<i64>)
  // CHECK: %[[M:.*]] = graph.mul %[[N]], %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i64>
  // CHECK: %[[F:.*]] = graph.flatten %[[Y]] {{.*}} -> tensor<1x12xf32>
  // CHECK: %[[V:.*]] = graph.reshape %[[F]], %{{.*}} -> tensor<12xf32>
  // CHECK: %[[R:.*]] = graph.reshape %[[N]]
  // CHECK: %[[S:.*]] = graph.concat %[[R]], %{{.*}} {axis = 0 : i64}
  // CHECK: graph.output_extents %[[M]] {positions = array<i64: 0, 0>}
  // CHECK-NEXT: return %[[V]], %[[S]]
  %y, %n = graph.compress %x, %c {axis = 0 : i64} : (tensor<5x3xf32>, tensor<4xi1>) -> (tensor<?x3xf32>, tensor<i64>) loc("compress")
  %f = graph.flatten %y {axis = 0 : i64} : (tensor<?x3xf32>) -> tensor<1x?xf32>
  %one = graph.constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = graph.reshape %f, %one : (tensor<1x?xf32>, tensor<1xi64>) -> tensor<?xf32>
  %s = graph.shape %y : (tensor<?x3xf32>) -> tensor<2xi64>
  return %r, %s : tensor<?xf32>, tensor<2xi64>
}

// -----

// A data-dependent op of constants is computed: its results are the
// constants of the extents found, and nothing is left to the run.
// CHECK-LABEL: func @main
func.func @main() -> tensor<2x?xi64> {
  // CHECK: %[[C:.*]] = graph.constant {value = dense<{{\[}}[0, 1], [1, 0]]> : tensor<2x2xi64>}
  // CHECK-NOT: graph.non_zero
  // CHECK-NOT: graph.output_extents
  // CHECK: return %[[C]] : tensor<2x2xi64>
  %x = graph.constant {value = dense<[[0, 3], [4, 0]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %i, %n = graph.non_zero %x : (tensor<2x2xi32>) -> (tensor<2x?xi64>, tensor<i64>) loc("nz")
  return %i : tensor<2x?xi64>
}

// -----

// A reduction over the bounded dim reads the corner only: the padding is
// masked with the reduction's identity (here the lowest i64).
// CHECK-LABEL: func @main
func.func @main(%x: tensor<6xf32>) -> tensor<1x1xi64> {
  // CHECK: %[[I:.*]], %[[N:.*]] = graph.non_zero
  // CHECK: %[[P:.*]] = graph.constant {value = dense<{{\[}}[0, 1, 2, 3, 4, 5]]> : tensor<1x6xi64>}
  // CHECK: %[[M:.*]] = graph.less %[[P]], %[[N]]
  // CHECK: %[[L:.*]] = graph.constant {value = dense<-9223372036854775808> : tensor<i64>}
  // CHECK: %[[W:.*]] = graph.where %[[M]], %[[I]], %[[L]]
  // CHECK: graph.arg_max %[[W]]
  %i, %n = graph.non_zero %x : (tensor<6xf32>) -> (tensor<1x?xi64>, tensor<i64>) loc("nz")
  %r = graph.arg_max %i {axis = 1 : i64} : (tensor<1x?xi64>) -> tensor<1x1xi64>
  return %r : tensor<1x1xi64>
}

// -----

// Two extents from different nodes along one dim.
func.func @main(%x: tensor<6xf32>, %y: tensor<6xf32>) -> tensor<1x?xi64> {
  %i, %n = graph.non_zero %x : (tensor<6xf32>) -> (tensor<1x?xi64>, tensor<i64>) loc("a")
  %j, %m = graph.non_zero %y : (tensor<6xf32>) -> (tensor<1x?xi64>, tensor<i64>) loc("b")
  // expected-error @+1 {{it is combined with another value whose extent a different node decides along dim 1}}
  %s = graph.add %i, %j : (tensor<1x?xi64>, tensor<1x?xi64>) -> tensor<1x?xi64>
  return %s : tensor<1x?xi64>
}

// -----

// Reductions, arg reductions and softmax off the bounded dim keep its
// extent; a matrix product takes A's rows along.
// CHECK-LABEL: func @main
func.func @main(%x: tensor<6x4xf32>, %c: tensor<6xi1>, %w: tensor<4x3xf32>) -> (tensor<?xf32>, tensor<?x1xi64>, tensor<?x4xf32>, tensor<?x3xf32>) {
  // CHECK: %[[Y:.*]], %[[N:.*]] = graph.compress
  // CHECK: graph.output_extents %[[N]], %[[N]], %[[N]], %[[N]] {positions = array<i64: 0, 0, 1, 0, 2, 0, 3, 0>}
  %y, %n = graph.compress %x, %c {axis = 0 : i64} : (tensor<6x4xf32>, tensor<6xi1>) -> (tensor<?x4xf32>, tensor<i64>) loc("compress")
  %axes = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = graph.reduce_max %y, %axes {keepdims = 0 : i64} : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<?xf32>
  %a = graph.arg_max %y {axis = 1 : i64} : (tensor<?x4xf32>) -> tensor<?x1xi64>
  %s = graph.softmax %y {axis = -1 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %m = graph.mat_mul %y, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  return %r, %a, %s, %m : tensor<?xf32>, tensor<?x1xi64>, tensor<?x4xf32>, tensor<?x3xf32>
}

// -----

// NonMaxSuppression's bound: batches * classes * boxes, narrowed to the
// limit where it is a constant below the boxes; the box column gathered
// from the selection and the boxes gathered by it take the extent.
// CHECK-LABEL: func @main
func.func @main(%b: tensor<1x6x4xf32>, %s: tensor<1x2x6xf32>, %t: tensor<1xf32>) -> (tensor<?x4xf32>, tensor<?x3xi64>) {
  // CHECK: %[[I:.*]], %[[N:.*]] = graph.non_max_suppression {{.*}} -> (tensor<4x3xi64>, tensor<i64>)
  // CHECK: %[[C:.*]] = graph.gather %[[I]], {{.*}} -> tensor<4xi64>
  // CHECK: %[[K:.*]] = graph.gather %{{.*}}, %[[C]] {{.*}} -> tensor<4x4xf32>
  // CHECK: %[[J:.*]], %[[M:.*]] = graph.non_max_suppression {{.*}} -> (tensor<12x3xi64>, tensor<i64>)
  // CHECK: graph.output_extents %[[N]], %[[M]] {positions = array<i64: 0, 0, 1, 0>}
  // CHECK-NEXT: return %[[K]], %[[J]] : tensor<4x4xf32>, tensor<12x3xi64>
  %limit = graph.constant {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %i, %n = graph.non_max_suppression %b, %s, %limit, %t {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>, tensor<1xf32>) -> (tensor<?x3xi64>, tensor<i64>) loc("nms")
  %two = graph.constant {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %c = graph.gather %i, %two {axis = 1 : i64} : (tensor<?x3xi64>, tensor<i64>) -> tensor<?xi64>
  %zero = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %b2 = graph.squeeze %b, %zero : (tensor<1x6x4xf32>, tensor<1xi64>) -> tensor<6x4xf32>
  %k = graph.gather %b2, %c {axis = 0 : i64} : (tensor<6x4xf32>, tensor<?xi64>) -> tensor<?x4xf32>
  // A limit above the boxes does not narrow the bound.
  %many = graph.constant {value = dense<100> : tensor<1xi64>} : () -> tensor<1xi64>
  %j, %m = graph.non_max_suppression %b, %s, %many {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>) -> (tensor<?x3xi64>, tensor<i64>) loc("nms2")
  return %k, %j : tensor<?x4xf32>, tensor<?x3xi64>
}

// -----

func.func @main(%x: tensor<6x4xf32>, %c: tensor<6xi1>) -> tensor<4xf32> {
  %y, %n = graph.compress %x, %c {axis = 0 : i64} : (tensor<6x4xf32>, tensor<6xi1>) -> (tensor<?x4xf32>, tensor<i64>) loc("compress")
  %axes = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+1 {{graphc cannot yet compute this op over a dim the run sizes}}
  %r = graph.reduce_mean %y, %axes {keepdims = 0 : i64} : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Shape arithmetic on an extent sizes what it shapes: torch.arange(n), a
// fill and an expand to [n, 4], a reshape to [n, 2, 2] (the extent times
// a constant keeps its bound).
// CHECK-LABEL: func @main
func.func @main(%x: tensor<6x4xf32>, %c: tensor<6xi1>) -> (tensor<?xi64>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x2x2xf32>, tensor<1xi64>) {
  // CHECK: %[[Y:.*]], %[[N:.*]] = graph.compress
  // CHECK: graph.range {{.*}} -> tensor<6xi64>
  // CHECK: graph.constant_of_shape {{.*}} -> tensor<6x4xf32>
  // CHECK: graph.expand {{.*}} -> tensor<6x4xf32>
  // CHECK: graph.reshape %[[Y]], {{.*}} -> tensor<6x2x2xf32>
  // CHECK: graph.output_extents {{.*}} {positions = array<i64: 0, 0, 1, 0, 2, 0, 3, 0>}
  %y, %n = graph.compress %x, %c {axis = 0 : i64} : (tensor<6x4xf32>, tensor<6xi1>) -> (tensor<?x4xf32>, tensor<i64>) loc("compress")
  %s = graph.shape %y : (tensor<?x4xf32>) -> tensor<2xi64>
  %i0 = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %rows = graph.gather %s, %i0 {axis = 0 : i64} : (tensor<2xi64>, tensor<i64>) -> tensor<i64>
  %zero = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %one = graph.constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r = graph.range %zero, %rows, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %f = graph.constant_of_shape %s : (tensor<2xi64>) -> tensor<?x4xf32>
  %row = graph.constant {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %e = graph.expand %row, %s : (tensor<4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  %axes = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %rows1 = graph.unsqueeze %rows, %axes : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %two = graph.constant {value = dense<2> : tensor<2xi64>} : () -> tensor<2xi64>
  %shape3 = graph.concat %rows1, %two {axis = 0 : i64} : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
  %v = graph.reshape %y, %shape3 : (tensor<?x4xf32>, tensor<3xi64>) -> tensor<?x2x2xf32>
  %four = graph.constant {value = dense<4> : tensor<1xi64>} : () -> tensor<1xi64>
  %m = graph.mul %rows1, %four : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %r, %f, %e, %v, %m : tensor<?xi64>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x2x2xf32>, tensor<1xi64>
}

// -----

// Unique: y, indices and counts get the bound (the positions along the
// axis), inverse_indices stays as it is; one extent for the three.
// CHECK-LABEL: func @main
func.func @main(%x: tensor<5x2xf32>) -> (tensor<?x2xf32>, tensor<?xi64>, tensor<5xi64>, tensor<?xi64>) {
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[N:.*]] = graph.unique {{.*}} -> (tensor<5x2xf32>, tensor<5xi64>, tensor<5xi64>, tensor<5xi64>, tensor<i64>)
  // CHECK: graph.output_extents %[[N]], %[[N]], %[[N]] {positions = array<i64: 0, 0, 1, 0, 3, 0>}
  %y, %i, %v, %c, %n = graph.unique %x {axis = 0 : i64} : (tensor<5x2xf32>) -> (tensor<?x2xf32>, tensor<?xi64>, tensor<5xi64>, tensor<?xi64>, tensor<i64>) loc("unique")
  return %y, %i, %v, %c : tensor<?x2xf32>, tensor<?xi64>, tensor<5xi64>, tensor<?xi64>
}

// -----

// Unique of a constant is computed: the distinct values in first order.
// CHECK-LABEL: func @main
func.func @main() -> (tensor<?xi32>, tensor<?xi64>) {
  // CHECK-DAG: %[[Y:.*]] = graph.constant {value = dense<[3, 1]> : tensor<2xi32>}
  // CHECK-DAG: %[[C:.*]] = graph.constant {value = dense<[2, 1]> : tensor<2xi64>}
  // CHECK-NOT: graph.unique
  // CHECK: return %[[Y]], %[[C]] : tensor<2xi32>, tensor<2xi64>
  %x = graph.constant {value = dense<[3, 1, 3]> : tensor<3xi32>} : () -> tensor<3xi32>
  %y, %i, %v, %c, %n = graph.unique %x {sorted = 0 : i64} : (tensor<3xi32>) -> (tensor<?xi32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>, tensor<i64>) loc("unique")
  return %y, %c : tensor<?xi32>, tensor<?xi64>
}
