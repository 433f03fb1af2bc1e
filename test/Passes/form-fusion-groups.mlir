// RUN: graphc-opt %s --graphc-form-fusion-groups --split-input-file --verify-diagnostics | FileCheck %s
// RUN: graphc-opt %s --graphc-form-fusion-groups=fuse=false --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=UNFUSED

// A chain of pointwise ops is one fusion, named after what it computes;
// broadcasting ops join it.
// CHECK-LABEL: func @main
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // CHECK: %[[F:.*]] = kernel.fusion "add_mul_relu_0" pointwise(%{{.*}}, %{{.*}}, %{{.*}}) {hash = "{{[0-9a-f]+}}", schedule = #kernel.schedule<block_size = 256>} : (tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  // CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>, %[[Z:.*]]: tensor<3x4xf32>):
  // CHECK-NEXT: %[[S:.*]] = graph.add %[[X]], %[[Y]]
  // CHECK-NEXT: %[[P:.*]] = graph.mul %[[S]], %[[Z]]
  // CHECK-NEXT: %[[R:.*]] = graph.relu %[[P]]
  // CHECK-NEXT: kernel.yield %[[R]]
  // CHECK-NEXT: }
  // CHECK-NEXT: return %[[F]]
  // Without fusion (--no-fusion), one fusion per op.
  // UNFUSED: kernel.fusion "add_0" pointwise
  // UNFUSED: kernel.fusion "mul_1" pointwise
  // UNFUSED: kernel.fusion "relu_2" pointwise
  %0 = graph.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("s")
  %1 = graph.mul %0, %c : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> loc("m")
  %2 = graph.relu %1 : (tensor<3x4xf32>) -> tensor<3x4xf32> loc("r")
  return %2 : tensor<3x4xf32>
}

// -----

// Identical fusions in different places hash the same; an op that is not
// pointwise (and takes in no prologue) is a fusion of its own and ends the
// chain.
// CHECK-LABEL: func @main
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: kernel.fusion "add_0" pointwise({{.*}}) {hash = "[[HASH:[0-9a-f]+]]"
  %0 = graph.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kernel.fusion "hardmax_1" reduction
  %1 = graph.hardmax %0 : (tensor<4xf32>) -> tensor<4xf32>
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

// Epilogue fusion: a conv takes in the pointwise ops consuming its result
// (a bias add broadcast to the result, then relu); the fusion keeps the
// kind conv and reads the conv's operands and the bias.
// CHECK-LABEL: func @main
func.func @main(%x: tensor<1x1x4x4xf32>, %w: tensor<2x1x1x1xf32>, %bias: tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[F:.*]] = kernel.fusion "conv_add_relu_0" conv(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}) {
  // CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<1x1x4x4xf32>, %[[W:.*]]: tensor<2x1x1x1xf32>, %[[B:.*]]: tensor<2x1x1xf32>):
  // CHECK-NEXT: %[[C:.*]] = graph.conv %[[X]], %[[W]]
  // CHECK-NEXT: %[[S:.*]] = graph.add %[[C]], %[[B]]
  // CHECK-NEXT: %[[R:.*]] = graph.relu %[[S]]
  // CHECK-NEXT: kernel.yield %[[R]]
  // CHECK-NEXT: }
  // CHECK-NEXT: return %[[F]]
  %0 = graph.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.add %0, %bias : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %2 = graph.relu %1 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// A gemm with its activation is one matmul fusion.
// CHECK-LABEL: func @main
func.func @main(%a: tensor<3x4xf32>, %b: tensor<4x6xf32>, %c: tensor<6xf32>) -> tensor<3x6xf32> {
  // CHECK: kernel.fusion "gemm_relu_0" matmul(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}) {
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: graph.gemm
  // CHECK-NEXT: graph.relu
  // CHECK-NEXT: kernel.yield
  // CHECK-NOT: kernel.fusion
  %0 = graph.gemm %a, %b, %c : (tensor<3x4xf32>, tensor<4x6xf32>, tensor<6xf32>) -> tensor<3x6xf32>
  %1 = graph.relu %0 : (tensor<3x6xf32>) -> tensor<3x6xf32>
  return %1 : tensor<3x6xf32>
}

// -----

// A residual add of a tensor of the result's shape, then relu, join a
// mat_mul.
// CHECK-LABEL: func @main
func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>, %r: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  // CHECK: kernel.fusion "mat_mul_add_relu_0" matmul(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}) {
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: graph.mat_mul
  // CHECK-NEXT: graph.add
  // CHECK-NEXT: graph.relu
  // CHECK-NEXT: kernel.yield
  // CHECK-NOT: kernel.fusion
  %0 = graph.mat_mul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %1 = graph.add %0, %r : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %2 = graph.relu %1 : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %2 : tensor<2x3x5xf32>
}

// -----

// An epilogue member need not read the anchor: a mul by a tensor computed
// before the conv joins, and the anchor comes first in the fusion.
// CHECK-LABEL: func @main
func.func @main(%x: tensor<1x1x4x4xf32>, %w: tensor<2x1x1x1xf32>, %z: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: kernel.fusion "conv_sigmoid_mul_0" conv(
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: graph.conv
  // CHECK-NEXT: graph.sigmoid
  // CHECK-NEXT: graph.mul
  // CHECK-NEXT: kernel.yield
  // CHECK-NOT: kernel.fusion
  %0 = graph.sigmoid %z : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %2 = graph.mul %1, %0 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// An anchor whose result is used outside the group stays alone: a conv is
// never computed twice.
// CHECK-LABEL: func @main
func.func @main(%x: tensor<1x1x4x4xf32>, %w: tensor<2x1x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  // CHECK: %[[C:.*]] = kernel.fusion "conv_0" conv
  // CHECK: kernel.fusion "relu_1" pointwise(%[[C]])
  // CHECK: kernel.fusion "sigmoid_2" pointwise(%[[C]])
  %0 = graph.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.relu %0 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = graph.sigmoid %0 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %1, %2 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// An epilogue broadcasts other operands to the anchor's result, never the
// result to a larger shape: the mat_mul stays alone and the pointwise ops
// fuse without it.
// CHECK-LABEL: func @main
func.func @main(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>, %z: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  // CHECK: %[[M:.*]] = kernel.fusion "mat_mul_0" matmul
  // CHECK: kernel.fusion "relu_add_1" pointwise(%[[M]], %{{.*}})
  %0 = graph.mat_mul %a, %b : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %1 = graph.relu %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = graph.add %1, %z : (tensor<2x3xf32>, tensor<5x2x3xf32>) -> tensor<5x2x3xf32>
  return %2 : tensor<5x2x3xf32>
}

// -----

// An epilogue op may read a value computed after the anchor by an op outside
// the group: the fusion takes the root's place, after that op, and the conv
// moves there with it.
// CHECK-LABEL: func @main
func.func @main(%x: tensor<1x1x4x4xf32>, %w: tensor<2x1x1x1xf32>, %y: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[S:.*]] = kernel.fusion "softmax_0" reduction
  // CHECK: %[[F:.*]] = kernel.fusion "conv_add_1" conv(%{{[^,]*}}, %{{[^,]*}}, %[[S]])
  // CHECK: return %[[F]]
  %0 = graph.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.softmax %y : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = graph.add %0, %1 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// A pointwise op feeding the anchor stays out of its fusion, even when all
// its users would be inside: the conv reads only fusion inputs.
// CHECK-LABEL: func @main
func.func @main(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[R:.*]] = kernel.fusion "relu_0" pointwise
  // CHECK: kernel.fusion "conv_add_1" conv(%[[R]], %{{[^,]*}}) {
  %0 = graph.relu %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.conv %0, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %2 = graph.add %1, %0 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// The input limit holds with an anchor: 14 adds read 15 values, and the
// gemm's three operands would make 17, so the gemm stays alone.
// CHECK-LABEL: func @main
func.func @main(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>, %c: tensor<3xf32>, %a0: tensor<2x3xf32>, %a1: tensor<2x3xf32>, %a2: tensor<2x3xf32>, %a3: tensor<2x3xf32>, %a4: tensor<2x3xf32>, %a5: tensor<2x3xf32>, %a6: tensor<2x3xf32>, %a7: tensor<2x3xf32>, %a8: tensor<2x3xf32>, %a9: tensor<2x3xf32>, %a10: tensor<2x3xf32>, %a11: tensor<2x3xf32>, %a12: tensor<2x3xf32>, %a13: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[G:.*]] = kernel.fusion "gemm_0" matmul
  // CHECK: kernel.fusion "add_1" pointwise(%[[G]],
  // CHECK-NOT: kernel.fusion
  %0 = graph.gemm %a, %b, %c : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = graph.add %0, %a0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = graph.add %1, %a1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = graph.add %2, %a2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = graph.add %3, %a3 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = graph.add %4, %a4 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = graph.add %5, %a5 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = graph.add %6, %a6 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = graph.add %7, %a7 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = graph.add %8, %a8 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = graph.add %9, %a9 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %11 = graph.add %10, %a10 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %12 = graph.add %11, %a11 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %13 = graph.add %12, %a12 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %14 = graph.add %13, %a13 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %14 : tensor<2x3xf32>
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

// -----

// A mat_mul takes the transposes only it reads (the head split of attention)
// as its layout prologue: they come first in its fusion, then the mat_mul,
// then its epilogue. A transpose with another user stays a fusion of its own.
// CHECK-LABEL: func @main
func.func @main(%q: tensor<4x2x8xf32>, %k: tensor<4x2x8xf32>, %v: tensor<4x2x8xf32>) -> (tensor<2x4x4xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  // CHECK: %[[S:.*]] = kernel.fusion "transpose_mat_mul_mul_0" matmul(%arg0, %arg1, %{{.*}})
  // CHECK-NEXT: ^bb0(%[[Q:.*]]: tensor<4x2x8xf32>, %[[K:.*]]: tensor<4x2x8xf32>, %{{.*}}: tensor<f32>):
  // CHECK-NEXT: %[[QT:.*]] = graph.transpose %[[Q]] {perm = array<i64: 1, 0, 2>}
  // CHECK-NEXT: %[[KT:.*]] = graph.transpose %[[K]] {perm = array<i64: 1, 2, 0>}
  // CHECK-NEXT: %[[P:.*]] = graph.mat_mul %[[QT]], %[[KT]]
  // CHECK-NEXT: graph.mul %[[P]]
  // CHECK: %[[VT:.*]] = kernel.fusion "transpose_1" layout(%arg2)
  // CHECK: kernel.fusion "mat_mul_2" matmul(%[[S]], %[[VT]])
  // CHECK-NOT: graph.transpose
  // CHECK: return
  // UNFUSED: kernel.fusion "transpose_0" layout
  // UNFUSED: kernel.fusion "transpose_1" layout
  %half = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %qt = graph.transpose %q {perm = array<i64: 1, 0, 2>} : (tensor<4x2x8xf32>) -> tensor<2x4x8xf32>
  %kt = graph.transpose %k {perm = array<i64: 1, 2, 0>} : (tensor<4x2x8xf32>) -> tensor<2x8x4xf32>
  %s = graph.mat_mul %qt, %kt : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  %scaled = graph.mul %s, %half : (tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
  %vt = graph.transpose %v {perm = array<i64: 1, 0, 2>} : (tensor<4x2x8xf32>) -> tensor<2x4x8xf32>
  %o = graph.mat_mul %scaled, %vt : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %scaled, %o, %vt : tensor<2x4x4xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// -----

// An attention takes in a split along the heads of a packed Q/K/V behind
// its head transposes: the split, then the transposes, then the attention,
// reading the packed heads as one input. A
// split with a part read elsewhere is a fusion of its own; the attention
// still takes in the transposes of its parts.
// CHECK-LABEL: func @main
func.func @main(%qkv: tensor<1x3x6x2xf32>, %other: tensor<1x3x6x2xf32>) -> (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x3x2x2xf32>) {
  // CHECK: kernel.fusion "split_transpose_attention_0" attention(%arg0, %{{.*}})
  // CHECK-NEXT: ^bb0(%[[M:.*]]: tensor<1x3x6x2xf32>, %[[SIZES:.*]]: tensor<3xi64>):
  // CHECK-NEXT: %[[P:.*]]:3 = graph.split %[[M]], %[[SIZES]]
  // CHECK-NEXT: %[[Q:.*]] = graph.transpose %[[P]]#0
  // CHECK-NEXT: %[[K:.*]] = graph.transpose %[[P]]#1
  // CHECK-NEXT: %[[V:.*]] = graph.transpose %[[P]]#2
  // CHECK-NEXT: graph.attention %[[Q]], %[[K]], %[[V]]
  // CHECK: %[[S:.*]]:3 = kernel.fusion "split_{{[0-9]+}}"
  // CHECK: kernel.fusion "transpose_attention_{{[0-9]+}}" attention(%[[S]]#0, %[[S]]#1, %[[S]]#2)
  // UNFUSED: kernel.fusion "split_0"
  %sizes = graph.constant {value = dense<2> : tensor<3xi64>} : () -> tensor<3xi64>
  %p:3 = graph.split %qkv, %sizes {axis = 2 : i64, num_outputs = 3 : i64} : (tensor<1x3x6x2xf32>, tensor<3xi64>) -> (tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>)
  %q = graph.transpose %p#0 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %k = graph.transpose %p#1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %v = graph.transpose %p#2 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %o = graph.attention %q, %k, %v {scale = 0.5 : f64} : (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x2xf32>
  %r:3 = graph.split %other, %sizes {axis = 2 : i64, num_outputs = 3 : i64} : (tensor<1x3x6x2xf32>, tensor<3xi64>) -> (tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>)
  %q2 = graph.transpose %r#0 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %k2 = graph.transpose %r#1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %v2 = graph.transpose %r#2 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %o2 = graph.attention %q2, %k2, %v2 {scale = 0.5 : f64} : (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x2xf32>
  return %o, %o2, %r#2 : tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x3x2x2xf32>
}

// -----

// A merged Q/K/V projection (graphc-merge-projections, or GPT-2's c_attn)
// split along its last axis, each part head split by a view and a
// transpose: the split, views and transposes are all the attention's
// layout prologue, read in place from the projection.
// CHECK-LABEL: func @main
func.func @main(%qkv: tensor<2x3x12xf32>) -> tensor<2x2x3x2xf32> {
  // CHECK: kernel.fusion "split_transpose_attention_0" attention(%arg0, %{{.*}}, %{{.*}})
  // CHECK-NEXT: ^bb0(%[[M:.*]]: tensor<2x3x12xf32>, %{{.*}}: tensor<3xi64>, %{{.*}}: tensor<4xi64>):
  // CHECK-NEXT: %[[P:.*]]:3 = graph.split %[[M]]
  // CHECK: graph.attention
  // CHECK-NOT: kernel.fusion
  %sizes = graph.constant {value = dense<4> : tensor<3xi64>} : () -> tensor<3xi64>
  %heads = graph.constant {value = dense<[2, 3, 2, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %p:3 = graph.split %qkv, %sizes {axis = 2 : i64, num_outputs = 3 : i64} : (tensor<2x3x12xf32>, tensor<3xi64>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>)
  %q1 = graph.reshape %p#0, %heads : (tensor<2x3x4xf32>, tensor<4xi64>) -> tensor<2x3x2x2xf32>
  %q = graph.transpose %q1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x3x2x2xf32>) -> tensor<2x2x3x2xf32>
  %k1 = graph.reshape %p#1, %heads : (tensor<2x3x4xf32>, tensor<4xi64>) -> tensor<2x3x2x2xf32>
  %k = graph.transpose %k1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x3x2x2xf32>) -> tensor<2x2x3x2xf32>
  %v1 = graph.reshape %p#2, %heads : (tensor<2x3x4xf32>, tensor<4xi64>) -> tensor<2x3x2x2xf32>
  %v = graph.transpose %v1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x3x2x2xf32>) -> tensor<2x2x3x2xf32>
  %o = graph.attention %q, %k, %v {scale = 0.5 : f64} : (tensor<2x2x3x2xf32>, tensor<2x2x3x2xf32>, tensor<2x2x3x2xf32>) -> tensor<2x2x3x2xf32>
  return %o : tensor<2x2x3x2xf32>
}

// -----

// nn.MultiheadAttention's packed projection [S=4, B=2, 3*E=12] reaches the
// attention through views, a transpose, a split and per part a view to
// [S, B*H, D] (B and H merged across the packed dim), a transpose and a view
// to [B, H, S, D]: all of it is the attention's layout prologue, read in
// place from the projection (graph::layoutPrologue), and the kernel's name
// leaves the views out.
// CHECK-LABEL: func @main
func.func @main(%p: tensor<4x2x12xf32>) -> tensor<2x2x4x2xf32> {
  // CHECK: kernel.fusion "transpose_split_attention_0" attention(%arg0,
  // CHECK-COUNT-3: graph.reshape
  // CHECK: graph.attention
  // CHECK-NOT: kernel.fusion
  // CHECK: return
  %unflat = graph.constant {value = dense<[4, 2, 3, 4]> : tensor<4xi64>} : () -> tensor<4xi64>
  %per_head = graph.constant {value = dense<[4, 4, 2]> : tensor<3xi64>} : () -> tensor<3xi64>
  %four = graph.constant {value = dense<[2, 2, 4, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %u = graph.reshape %p, %unflat : (tensor<4x2x12xf32>, tensor<4xi64>) -> tensor<4x2x3x4xf32>
  %t = graph.transpose %u {perm = array<i64: 2, 0, 1, 3>} : (tensor<4x2x3x4xf32>) -> tensor<3x4x2x4xf32>
  %s:3 = graph.split %t {axis = 0 : i64, num_outputs = 3 : i64} : (tensor<3x4x2x4xf32>) -> (tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>)
  %q0 = graph.reshape %s#0, %per_head : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<4x4x2xf32>
  %q1 = graph.transpose %q0 {perm = array<i64: 1, 0, 2>} : (tensor<4x4x2xf32>) -> tensor<4x4x2xf32>
  %q = graph.reshape %q1, %four : (tensor<4x4x2xf32>, tensor<4xi64>) -> tensor<2x2x4x2xf32>
  %k0 = graph.reshape %s#1, %per_head : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<4x4x2xf32>
  %k1 = graph.transpose %k0 {perm = array<i64: 1, 0, 2>} : (tensor<4x4x2xf32>) -> tensor<4x4x2xf32>
  %k = graph.reshape %k1, %four : (tensor<4x4x2xf32>, tensor<4xi64>) -> tensor<2x2x4x2xf32>
  %v0 = graph.reshape %s#2, %per_head : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<4x4x2xf32>
  %v1 = graph.transpose %v0 {perm = array<i64: 1, 0, 2>} : (tensor<4x4x2xf32>) -> tensor<4x4x2xf32>
  %v = graph.reshape %v1, %four : (tensor<4x4x2xf32>, tensor<4xi64>) -> tensor<2x2x4x2xf32>
  %o = graph.attention %q, %k, %v {scale = 0.5 : f64} : (tensor<2x2x4x2xf32>, tensor<2x2x4x2xf32>, tensor<2x2x4x2xf32>) -> tensor<2x2x4x2xf32>
  return %o : tensor<2x2x4x2xf32>
}

// -----

// A view that needs a copy ends the prologue below it: [2, 3, 2]
// transposed to [3, 2, 2] and viewed as [6, 2] is no strided view, so the
// transpose is a kernel of its own and the view of its result stays a view.
// CHECK-LABEL: func @main
func.func @main(%x: tensor<2x3x2xf32>, %k: tensor<1x1x6x2xf32>, %v: tensor<1x1x6x2xf32>) -> tensor<1x1x6x2xf32> {
  // CHECK: %[[T:.*]] = kernel.fusion "transpose_0" layout(%arg0)
  // CHECK: %[[Q:.*]] = graph.reshape %[[T]]
  // CHECK-NEXT: kernel.fusion "attention_1" attention(%[[Q]], %arg1, %arg2)
  %shape = graph.constant {value = dense<[1, 1, 6, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %t = graph.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<2x3x2xf32>) -> tensor<3x2x2xf32>
  %q = graph.reshape %t, %shape : (tensor<3x2x2xf32>, tensor<4xi64>) -> tensor<1x1x6x2xf32>
  %o = graph.attention %q, %k, %v : (tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>) -> tensor<1x1x6x2xf32>
  return %o : tensor<1x1x6x2xf32>
}

// -----

// A softmax takes in the pointwise chain computing its input as a
// prologue; the broadcast mask is read by the kernel at its own offsets.
// CHECK-LABEL: func @main
func.func @main(%s: tensor<2x4x8xf32>, %m: tensor<8xf32>) -> tensor<2x4x8xf32> {
  // CHECK: %[[F:.*]] = kernel.fusion "add_softmax_0" reduction(%{{.*}}, %{{.*}})
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: %[[A:.*]] = graph.add
  // CHECK-NEXT: %[[R:.*]] = graph.softmax %[[A]]
  // CHECK-NEXT: kernel.yield %[[R]]
  // CHECK-NEXT: }
  // CHECK-NEXT: return %[[F]]
  %0 = graph.add %s, %m : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %1 = graph.softmax %0 : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %1 : tensor<2x4x8xf32>
}

// -----

// A transpose of a mat_mul's result, its only user, is the mat_mul's layout
// epilogue: the kernel stores the product transposed (the head merge).
// CHECK-LABEL: func @main
func.func @main(%p: tensor<2x4x4xf32>, %v: tensor<4x2x8xf32>) -> tensor<4x2x8xf32> {
  // CHECK: %[[O:.*]] = kernel.fusion "transpose_mat_mul_0" matmul(%arg1, %arg0)
  // CHECK-NEXT: ^bb0(%[[V:.*]]: tensor<4x2x8xf32>, %[[P:.*]]: tensor<2x4x4xf32>):
  // CHECK-NEXT: %[[VT:.*]] = graph.transpose %[[V]] {perm = array<i64: 1, 0, 2>}
  // CHECK-NEXT: %[[M:.*]] = graph.mat_mul %[[P]], %[[VT]]
  // CHECK-NEXT: %[[T:.*]] = graph.transpose %[[M]] {perm = array<i64: 1, 0, 2>}
  // CHECK-NEXT: kernel.yield %[[T]]
  // CHECK: return %[[O]]
  %vt = graph.transpose %v {perm = array<i64: 1, 0, 2>} : (tensor<4x2x8xf32>) -> tensor<2x4x8xf32>
  %o = graph.mat_mul %p, %vt : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %t = graph.transpose %o {perm = array<i64: 1, 0, 2>} : (tensor<2x4x8xf32>) -> tensor<4x2x8xf32>
  return %t : tensor<4x2x8xf32>
}

// -----

// A residual add joins the layer_normalization reading it; its scale stays
// a plain input.
// CHECK-LABEL: func @main
func.func @main(%x: tensor<2x8xf32>, %r: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  // CHECK: %[[F:.*]] = kernel.fusion "add_layer_normalization_0" reduction(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}})
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: %[[A:.*]] = graph.add
  // CHECK-NEXT: %[[N:.*]] = graph.layer_normalization %[[A]]
  // CHECK-NEXT: kernel.yield %[[N]]
  // CHECK-NEXT: }
  // CHECK-NEXT: return %[[F]]
  %0 = graph.add %x, %r : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = graph.layer_normalization %0, %g : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}

// -----

// A prologue value with a user outside the group stays a fusion of its own:
// it is stored anyway, and fusing it would compute it twice.
// CHECK-LABEL: func @main
func.func @main(%x: tensor<2x8xf32>, %r: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  // CHECK: %[[A:.*]] = kernel.fusion "add_0" pointwise
  %0 = graph.add %x, %r : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  // CHECK: kernel.fusion "softmax_1" reduction(%[[A]])
  %1 = graph.softmax %0 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0, %1 : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// A prologue op must have the shape of the reduction's input, which the
// element index addresses: a mul computed on a smaller shape and broadcast
// by the add stays a fusion of its own (pointwise ops only grow shapes
// towards the reduction, so this is the case a chain can produce).
// CHECK-LABEL: func @main
func.func @main(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %h: tensor<8xf32>) -> tensor<2x8xf32> {
  // CHECK: %[[M:.*]] = kernel.fusion "mul_0" pointwise
  %0 = graph.mul %g, %h : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  // CHECK: kernel.fusion "add_softmax_1" reduction(%{{[^,]*}}, %[[M]])
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: graph.add
  // CHECK-NEXT: graph.softmax
  %1 = graph.add %x, %0 : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %2 = graph.softmax %1 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %2 : tensor<2x8xf32>
}

// -----

// A pointwise group reads a transposed input through strides: the transpose
// joins the add (nn.MultiheadAttention's output transposed back to batch
// first, then the residual add) and no copy kernel writes it. The walk
// stops at the transpose: the relu computing its input is a fusion of its
// own, whose result the group then reads transposed.
// CHECK-LABEL: func @main
func.func @main(%x: tensor<4x3x8xf32>, %r: tensor<3x4x8xf32>) -> tensor<3x4x8xf32> {
  // CHECK: %[[RELU:.*]] = kernel.fusion "relu_0" pointwise(%arg0)
  // CHECK: kernel.fusion "transpose_add_1" pointwise(%[[RELU]], %arg1)
  // CHECK-NEXT: ^bb0(%[[IN:.*]]: tensor<4x3x8xf32>, %[[RES:.*]]: tensor<3x4x8xf32>):
  // CHECK-NEXT: %[[T:.*]] = graph.transpose %[[IN]] {perm = array<i64: 1, 0, 2>}
  // CHECK-NEXT: graph.add %[[T]], %[[RES]]
  // UNFUSED: kernel.fusion "relu_0"
  // UNFUSED: kernel.fusion "transpose_1" layout
  // UNFUSED: kernel.fusion "add_2" pointwise
  %p = graph.relu %x : (tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
  %t = graph.transpose %p {perm = array<i64: 1, 0, 2>} : (tensor<4x3x8xf32>) -> tensor<3x4x8xf32>
  %y = graph.add %t, %r : (tensor<3x4x8xf32>, tensor<3x4x8xf32>) -> tensor<3x4x8xf32>
  return %y : tensor<3x4x8xf32>
}
