// RUN: graphc-opt %s --graphc-form-fusion-groups --split-input-file --verify-diagnostics | FileCheck %s

// A chain of pointwise ops is one fusion, named after what it computes;
// broadcasting ops join it.
// CHECK-LABEL: func @main
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // CHECK: %[[F:.*]] = kernel.fusion "add_mul_relu_0" pointwise(%{{.*}}, %{{.*}}, %{{.*}}) {hash = "{{[0-9a-f]+}}", schedule = {block_size = 256 : i64, source = "heuristic"}} : (tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  // CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>, %[[Z:.*]]: tensor<3x4xf32>):
  // CHECK-NEXT: %[[S:.*]] = graph.add %[[X]], %[[Y]]
  // CHECK-NEXT: %[[P:.*]] = graph.mul %[[S]], %[[Z]]
  // CHECK-NEXT: %[[R:.*]] = graph.relu %[[P]]
  // CHECK-NEXT: kernel.yield %[[R]]
  // CHECK-NEXT: }
  // CHECK-NEXT: return %[[F]]
  %0 = graph.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("s")
  %1 = graph.mul %0, %c : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> loc("m")
  %2 = graph.relu %1 : (tensor<3x4xf32>) -> tensor<3x4xf32> loc("r")
  return %2 : tensor<3x4xf32>
}

// -----

// Identical fusions in different places hash the same; an op that is not
// pointwise is a fusion of its own and ends the chain.
// CHECK-LABEL: func @main
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: kernel.fusion "add_0" pointwise({{.*}}) {hash = "[[HASH:[0-9a-f]+]]"
  %0 = graph.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kernel.fusion "softmax_1" reduction
  %1 = graph.softmax %0 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kernel.fusion "add_2" pointwise({{.*}}) {hash = "[[HASH]]"
  %2 = graph.add %1, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// A producer with a user outside the group stays a fusion of its own: its
// value is needed anyway, and fusing it would compute it twice.
// CHECK-LABEL: func @main
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: %[[ADD:.*]] = kernel.fusion "add_0" pointwise
  %0 = graph.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kernel.fusion "relu_1" pointwise(%[[ADD]])
  %1 = graph.relu %0 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kernel.fusion "softmax_2" reduction(%[[ADD]])
  %2 = graph.softmax %0 : (tensor<4xf32>) -> tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A producer whose users all join the group joins it too (a diamond); a
// value read by several members, or twice by one, is one fusion input.
// CHECK-LABEL: func @main
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: kernel.fusion "exp_add_mul_sub_0" pointwise(%{{[^,]*}}, %{{[^,]*}}) {
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: graph.exp
  // CHECK-NEXT: graph.add
  // CHECK-NEXT: graph.mul
  // CHECK-NEXT: graph.sub
  // CHECK-NEXT: kernel.yield
  // CHECK-NOT: kernel.fusion
  %0 = graph.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  %1 = graph.add %0, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = graph.mul %0, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = graph.sub %1, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// Comparisons, where, clip (with its optional bounds) and cast are pointwise
// too; a constant is an input like any other.
// CHECK-LABEL: func @main
func.func @main(%a: tensor<2x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf16> {
  // CHECK: %[[LO:.*]] = graph.constant
  %lo = graph.constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  // CHECK-NEXT: kernel.fusion "less_where_clip_cast_0" pointwise(%{{[^,]*}}, %{{[^,]*}}, %[[LO]])
  // CHECK-NOT: kernel.fusion
  %0 = graph.less %a, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi1>
  %1 = graph.where %0, %a, %b : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %2 = graph.clip %1, %lo {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %3 = graph.cast %2 {to = f16} : (tensor<2x4xf32>) -> tensor<2x4xf16>
  return %3 : tensor<2x4xf16>
}

// -----

// A fusion reads at most 16 distinct values: a longer chain of adds is
// split where the 17th would come in.
// CHECK-LABEL: func @main
func.func @main(%a0: tensor<4xf32>, %a1: tensor<4xf32>, %a2: tensor<4xf32>, %a3: tensor<4xf32>, %a4: tensor<4xf32>, %a5: tensor<4xf32>, %a6: tensor<4xf32>, %a7: tensor<4xf32>, %a8: tensor<4xf32>, %a9: tensor<4xf32>, %a10: tensor<4xf32>, %a11: tensor<4xf32>, %a12: tensor<4xf32>, %a13: tensor<4xf32>, %a14: tensor<4xf32>, %a15: tensor<4xf32>, %a16: tensor<4xf32>, %a17: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[HEAD:.*]] = kernel.fusion "add_0" pointwise(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}) {
  // CHECK: kernel.fusion "add_1" pointwise(%[[HEAD]], %{{.*}}) {
  // CHECK-SAME: : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = graph.add %a0, %a1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = graph.add %1, %a2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = graph.add %2, %a3 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = graph.add %3, %a4 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = graph.add %4, %a5 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %6 = graph.add %5, %a6 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %7 = graph.add %6, %a7 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %8 = graph.add %7, %a8 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %9 = graph.add %8, %a9 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %10 = graph.add %9, %a10 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %11 = graph.add %10, %a11 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %12 = graph.add %11, %a12 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %13 = graph.add %12, %a13 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %14 = graph.add %13, %a14 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %15 = graph.add %14, %a15 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %16 = graph.add %15, %a16 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %17 = graph.add %16, %a17 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %17 : tensor<4xf32>
}

// -----

// A chain longer than kMaxPointwiseOps (32) is cut into fusions of that
// length, from its end: 40 relus give one fusion of 8 and one of 32.
// CHECK-LABEL: func @main
// CHECK: %[[HEAD:.*]] = kernel.fusion "relu_0" pointwise(%{{.*}}) {
// CHECK-COUNT-8: graph.relu
// CHECK-NEXT: kernel.yield
// CHECK: kernel.fusion "relu_1" pointwise(%[[HEAD]]) {
// CHECK-COUNT-32: graph.relu
// CHECK-NEXT: kernel.yield
// CHECK-NOT: kernel.fusion
func.func @main(%x: tensor<4xf32> {graph.name = "x"}) -> tensor<4xf32> {
  %0 = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = graph.relu %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = graph.relu %1 : (tensor<4xf32>) -> tensor<4xf32>
  %3 = graph.relu %2 : (tensor<4xf32>) -> tensor<4xf32>
  %4 = graph.relu %3 : (tensor<4xf32>) -> tensor<4xf32>
  %5 = graph.relu %4 : (tensor<4xf32>) -> tensor<4xf32>
  %6 = graph.relu %5 : (tensor<4xf32>) -> tensor<4xf32>
  %7 = graph.relu %6 : (tensor<4xf32>) -> tensor<4xf32>
  %8 = graph.relu %7 : (tensor<4xf32>) -> tensor<4xf32>
  %9 = graph.relu %8 : (tensor<4xf32>) -> tensor<4xf32>
  %10 = graph.relu %9 : (tensor<4xf32>) -> tensor<4xf32>
  %11 = graph.relu %10 : (tensor<4xf32>) -> tensor<4xf32>
  %12 = graph.relu %11 : (tensor<4xf32>) -> tensor<4xf32>
  %13 = graph.relu %12 : (tensor<4xf32>) -> tensor<4xf32>
  %14 = graph.relu %13 : (tensor<4xf32>) -> tensor<4xf32>
  %15 = graph.relu %14 : (tensor<4xf32>) -> tensor<4xf32>
  %16 = graph.relu %15 : (tensor<4xf32>) -> tensor<4xf32>
  %17 = graph.relu %16 : (tensor<4xf32>) -> tensor<4xf32>
  %18 = graph.relu %17 : (tensor<4xf32>) -> tensor<4xf32>
  %19 = graph.relu %18 : (tensor<4xf32>) -> tensor<4xf32>
  %20 = graph.relu %19 : (tensor<4xf32>) -> tensor<4xf32>
  %21 = graph.relu %20 : (tensor<4xf32>) -> tensor<4xf32>
  %22 = graph.relu %21 : (tensor<4xf32>) -> tensor<4xf32>
  %23 = graph.relu %22 : (tensor<4xf32>) -> tensor<4xf32>
  %24 = graph.relu %23 : (tensor<4xf32>) -> tensor<4xf32>
  %25 = graph.relu %24 : (tensor<4xf32>) -> tensor<4xf32>
  %26 = graph.relu %25 : (tensor<4xf32>) -> tensor<4xf32>
  %27 = graph.relu %26 : (tensor<4xf32>) -> tensor<4xf32>
  %28 = graph.relu %27 : (tensor<4xf32>) -> tensor<4xf32>
  %29 = graph.relu %28 : (tensor<4xf32>) -> tensor<4xf32>
  %30 = graph.relu %29 : (tensor<4xf32>) -> tensor<4xf32>
  %31 = graph.relu %30 : (tensor<4xf32>) -> tensor<4xf32>
  %32 = graph.relu %31 : (tensor<4xf32>) -> tensor<4xf32>
  %33 = graph.relu %32 : (tensor<4xf32>) -> tensor<4xf32>
  %34 = graph.relu %33 : (tensor<4xf32>) -> tensor<4xf32>
  %35 = graph.relu %34 : (tensor<4xf32>) -> tensor<4xf32>
  %36 = graph.relu %35 : (tensor<4xf32>) -> tensor<4xf32>
  %37 = graph.relu %36 : (tensor<4xf32>) -> tensor<4xf32>
  %38 = graph.relu %37 : (tensor<4xf32>) -> tensor<4xf32>
  %39 = graph.relu %38 : (tensor<4xf32>) -> tensor<4xf32>
  return %39 : tensor<4xf32>
}

// -----

// expected-error @+1 {{input 'x' dim 0 is dynamic ('batch'): add --dim batch=N or --shape x=...}}
func.func @main(%a: tensor<?x4xf32> {graph.name = "x", graph.dims = ["batch", ""]}) -> tensor<?x4xf32> {
  %0 = graph.relu %a : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Views (reshape, flatten, squeeze, unsqueeze, identity of static shapes)
// stay graph ops outside every fusion: memory planning gives them their
// source's slot. A view between pointwise ops ends the chain.
// CHECK-LABEL: func @main
func.func @main(%a: tensor<2x8xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %shape = graph.constant {value = dense<16> : tensor<1xi64>} : () -> tensor<1xi64>
  %axes = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  // CHECK: %[[E:.*]] = kernel.fusion "exp_0" pointwise
  %0 = graph.exp %a : (tensor<2x8xf32>) -> tensor<2x8xf32>
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: graph.exp
  // CHECK-NEXT: kernel.yield
  // CHECK-NEXT: }
  // CHECK-NEXT: %[[R:.*]] = graph.reshape %[[E]]
  %1 = graph.reshape %0, %shape : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<16xf32>
  // CHECK-NEXT: %[[I:.*]] = graph.identity %[[R]]
  %2 = graph.identity %1 : (tensor<16xf32>) -> tensor<16xf32>
  // CHECK-NEXT: %[[U:.*]] = graph.unsqueeze %[[I]]
  %3 = graph.unsqueeze %2, %axes : (tensor<16xf32>, tensor<1xi64>) -> tensor<1x16xf32>
  // CHECK-NEXT: %[[S:.*]] = graph.squeeze %[[U]]
  %4 = graph.squeeze %3, %axes : (tensor<1x16xf32>, tensor<1xi64>) -> tensor<16xf32>
  // CHECK-NEXT: kernel.fusion "add_1" pointwise(%[[S]], %{{.*}})
  %5 = graph.add %4, %b : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %5 : tensor<16xf32>
}
