// RUN: graphc-opt %s --graphc-merge-projections --split-input-file --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

// BERT: Q, K and V are MatMuls of one input with a bias each (the bias of V
// on the left of its Add). They become one MatMul by the weights side by
// side, one Add of the biases side by side and a split along the last axis
// whose parts the head splits read.
// CHECK-LABEL: func @bert
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x2x4xf32>
func.func @bert(%x: tensor<1x2x4xf32>) -> tensor<1x2x2x2xf32> {
  // CHECK: %[[W:.*]] = graph.constant {value = dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 1.100000e+01, 1.200000e+01, 1.300000e+01, 1.400000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01, 2.400000e+01], [5.000000e+00, {{.*}}]]> : tensor<4x12xf32>} {{.*}} loc(fused["q.mm", "k.mm", "v.mm"])
  // CHECK-NEXT: %[[MM:.*]] = graph.mat_mul %[[X]], %[[W]] : (tensor<1x2x4xf32>, tensor<4x12xf32>) -> tensor<1x2x12xf32> loc(fused["q.mm", "k.mm", "v.mm"])
  // CHECK-NEXT: %[[B:.*]] = graph.constant {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01]> : tensor<12xf32>}
  // CHECK-NEXT: %[[ADD:.*]] = graph.add %[[MM]], %[[B]] : (tensor<1x2x12xf32>, tensor<12xf32>) -> tensor<1x2x12xf32> loc(fused["q.add", "k.add", "v.add"])
  // CHECK-NEXT: %[[SIZES:.*]] = graph.constant {value = dense<4> : tensor<3xi64>}
  // CHECK-NEXT: %[[P:.*]]:3 = graph.split %[[ADD]], %[[SIZES]] {axis = 2 : i64, num_outputs = 3 : i64} : (tensor<1x2x12xf32>, tensor<3xi64>) -> (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) loc(fused["q.mm", "k.mm", "v.mm"])
  // CHECK-NOT: graph.mat_mul
  // CHECK: %[[QH:.*]] = graph.reshape %[[P]]#0, {{.*}} loc("q.heads")
  // CHECK-NEXT: %[[QT:.*]] = graph.transpose %[[QH]] {perm = array<i64: 0, 2, 1, 3>} {{.*}} loc("q.t")
  // CHECK-NEXT: %[[KH:.*]] = graph.reshape %[[P]]#1, {{.*}} loc("k.heads")
  // CHECK-NEXT: %[[KT:.*]] = graph.transpose %[[KH]] {perm = array<i64: 0, 2, 1, 3>} {{.*}} loc("k.t")
  // CHECK-NEXT: %[[VH:.*]] = graph.reshape %[[P]]#2, {{.*}} loc("v.heads")
  // CHECK-NEXT: %[[VT:.*]] = graph.transpose %[[VH]] {perm = array<i64: 0, 2, 1, 3>} {{.*}} loc("v.t")
  // CHECK-NEXT: graph.attention %[[QT]], %[[KT]], %[[VT]]
  // CHECK-NOT: graph.constant
  %heads = graph.constant {value = dense<[1, 2, 2, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %wq = graph.constant {value = dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %wk = graph.constant {value = dense<[[11.0, 12.0, 13.0, 14.0], [15.0, 16.0, 17.0, 18.0], [19.0, 20.0, 21.0, 22.0], [23.0, 24.0, 25.0, 26.0]]> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %wv = graph.constant {value = dense<[[21.0, 22.0, 23.0, 24.0], [25.0, 26.0, 27.0, 28.0], [29.0, 30.0, 31.0, 32.0], [33.0, 34.0, 35.0, 36.0]]> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %bq = graph.constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %bk = graph.constant {value = dense<[5.0, 6.0, 7.0, 8.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %bv = graph.constant {value = dense<[9.0, 10.0, 11.0, 12.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %q0 = graph.mat_mul %x, %wq : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32> loc("q.mm")
  %q1 = graph.add %q0, %bq : (tensor<1x2x4xf32>, tensor<4xf32>) -> tensor<1x2x4xf32> loc("q.add")
  %q2 = graph.reshape %q1, %heads : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32> loc("q.heads")
  %q = graph.transpose %q2 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> loc("q.t")
  %k0 = graph.mat_mul %x, %wk : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32> loc("k.mm")
  %k1 = graph.add %k0, %bk : (tensor<1x2x4xf32>, tensor<4xf32>) -> tensor<1x2x4xf32> loc("k.add")
  %k2 = graph.reshape %k1, %heads : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32> loc("k.heads")
  %k = graph.transpose %k2 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> loc("k.t")
  %v0 = graph.mat_mul %x, %wv : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32> loc("v.mm")
  %v1 = graph.add %bv, %v0 : (tensor<4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32> loc("v.add")
  %v2 = graph.reshape %v1, %heads : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32> loc("v.heads")
  %v = graph.transpose %v2 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> loc("v.t")
  %o = graph.attention %q, %k, %v {scale = 0.5 : f64} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %o : tensor<1x2x2x2xf32>
}

// -----

// Llama: grouped K/V heads (4 query heads, 2 K/V heads) and no biases. All
// three merge; the split has widths 8, 4, 4.
// CHECK-LABEL: func @grouped
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x3x8xf32>
func.func @grouped(%x: tensor<1x3x8xf32>) -> tensor<1x4x3x2xf32> {
  // CHECK: %[[MM:.*]] = graph.mat_mul %[[X]], %{{.*}} : (tensor<1x3x8xf32>, tensor<8x16xf32>) -> tensor<1x3x16xf32>
  // CHECK-NEXT: %[[SIZES:.*]] = graph.constant {value = dense<[8, 4, 4]> : tensor<3xi64>}
  // CHECK-NEXT: %[[P:.*]]:3 = graph.split %[[MM]], %[[SIZES]] {axis = 2 : i64, num_outputs = 3 : i64} : (tensor<1x3x16xf32>, tensor<3xi64>) -> (tensor<1x3x8xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>)
  // CHECK-NOT: graph.add
  // CHECK: graph.attention
  %qs = graph.constant {value = dense<[1, 3, 4, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %kvs = graph.constant {value = dense<[1, 3, 2, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %wqc = graph.constant {value = dense<1.0> : tensor<8x8xf32>} : () -> tensor<8x8xf32>
  %wk = graph.constant {value = dense<2.0> : tensor<8x4xf32>} : () -> tensor<8x4xf32>
  %wv = graph.constant {value = dense<3.0> : tensor<8x4xf32>} : () -> tensor<8x4xf32>
  %q0 = graph.mat_mul %x, %wqc : (tensor<1x3x8xf32>, tensor<8x8xf32>) -> tensor<1x3x8xf32>
  %q1 = graph.reshape %q0, %qs : (tensor<1x3x8xf32>, tensor<4xi64>) -> tensor<1x3x4x2xf32>
  %q = graph.transpose %q1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x3x4x2xf32>) -> tensor<1x4x3x2xf32>
  %k0 = graph.mat_mul %x, %wk : (tensor<1x3x8xf32>, tensor<8x4xf32>) -> tensor<1x3x4xf32>
  %k1 = graph.reshape %k0, %kvs : (tensor<1x3x4xf32>, tensor<4xi64>) -> tensor<1x3x2x2xf32>
  %k = graph.transpose %k1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %v0 = graph.mat_mul %x, %wv : (tensor<1x3x8xf32>, tensor<8x4xf32>) -> tensor<1x3x4xf32>
  %v1 = graph.reshape %v0, %kvs : (tensor<1x3x4xf32>, tensor<4xi64>) -> tensor<1x3x2x2xf32>
  %v = graph.transpose %v1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %o = graph.attention %q, %k, %v {is_causal = 1 : i64} : (tensor<1x4x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x4x3x2xf32>
  return %o : tensor<1x4x3x2xf32>
}

// -----

// A bias on some projections only: the others' columns of the merged bias
// are zeros.
// CHECK-LABEL: func @partial_bias
// CHECK: graph.constant {value = dense<[0.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00]> : tensor<6xf32>}
func.func @partial_bias(%x: tensor<1x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %heads = graph.constant {value = dense<[1, 2, 1, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %w = graph.constant {value = dense<1.0> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %bk = graph.constant {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %q0 = graph.mat_mul %x, %w : (tensor<1x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2xf32>
  %q1 = graph.reshape %q0, %heads : (tensor<1x2x2xf32>, tensor<4xi64>) -> tensor<1x2x1x2xf32>
  %q = graph.transpose %q1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x1x2xf32>) -> tensor<1x1x2x2xf32>
  %k0 = graph.mat_mul %x, %w : (tensor<1x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2xf32>
  %k1 = graph.add %k0, %bk : (tensor<1x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2xf32>
  %k2 = graph.reshape %k1, %heads : (tensor<1x2x2xf32>, tensor<4xi64>) -> tensor<1x2x1x2xf32>
  %k = graph.transpose %k2 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x1x2xf32>) -> tensor<1x1x2x2xf32>
  %v0 = graph.mat_mul %x, %w : (tensor<1x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2xf32>
  %v1 = graph.reshape %v0, %heads : (tensor<1x2x2xf32>, tensor<4xi64>) -> tensor<1x2x1x2xf32>
  %v = graph.transpose %v1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x1x2xf32>) -> tensor<1x1x2x2xf32>
  %o = graph.attention %q, %k, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %o : tensor<1x1x2x2xf32>
}

// -----

// Cross-attention: Q projects the decoder state, K and V the encoder
// output. Only K and V merge; Q's projection is left as it is.
// CHECK-LABEL: func @cross
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x2x4xf32> {{.*}}, %[[E:[^:]*]]: tensor<1x3x4xf32>
func.func @cross(%x: tensor<1x2x4xf32>, %enc: tensor<1x3x4xf32>) -> tensor<1x2x2x2xf32> {
  // CHECK: graph.mat_mul %[[X]], %{{.*}} : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  // CHECK: %[[KV:.*]] = graph.mat_mul %[[E]], %{{.*}} : (tensor<1x3x4xf32>, tensor<4x8xf32>) -> tensor<1x3x8xf32>
  // CHECK: graph.split %[[KV]], %{{.*}} {axis = 2 : i64, num_outputs = 2 : i64} : (tensor<1x3x8xf32>, tensor<2xi64>)
  // CHECK-NOT: graph.mat_mul
  // CHECK: graph.attention
  %qs = graph.constant {value = dense<[1, 2, 2, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %kvs = graph.constant {value = dense<[1, 3, 2, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %wq = graph.constant {value = dense<1.0> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %wk = graph.constant {value = dense<2.0> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %wv = graph.constant {value = dense<3.0> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %q0 = graph.mat_mul %x, %wq : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %q1 = graph.reshape %q0, %qs : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %q = graph.transpose %q1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %k0 = graph.mat_mul %enc, %wk : (tensor<1x3x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  %k1 = graph.reshape %k0, %kvs : (tensor<1x3x4xf32>, tensor<4xi64>) -> tensor<1x3x2x2xf32>
  %k = graph.transpose %k1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %v0 = graph.mat_mul %enc, %wv : (tensor<1x3x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  %v1 = graph.reshape %v0, %kvs : (tensor<1x3x4xf32>, tensor<4xi64>) -> tensor<1x3x2x2xf32>
  %v = graph.transpose %v1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %o = graph.attention %q, %k, %v : (tensor<1x2x2x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x2x2xf32>
  return %o : tensor<1x2x2x2xf32>
}

// -----

// Nothing merges when a projection has another use (its result would be
// computed twice or copied out), a weight is not a constant, or the
// projections read different inputs. Here Q's result is also returned, K's
// weight is an argument, and V projects another input: no pair is left.
// CHECK-LABEL: func @no_merge
// CHECK-COUNT-3: graph.mat_mul
// CHECK-NOT: graph.split
func.func @no_merge(%x: tensor<1x2x4xf32>, %y: tensor<1x2x4xf32>, %wk: tensor<4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x4xf32>) {
  %heads = graph.constant {value = dense<[1, 2, 2, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %w = graph.constant {value = dense<1.0> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %q0 = graph.mat_mul %x, %w : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %q1 = graph.reshape %q0, %heads : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %q = graph.transpose %q1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %k0 = graph.mat_mul %x, %wk : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %k1 = graph.reshape %k0, %heads : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %k = graph.transpose %k1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %v0 = graph.mat_mul %y, %w : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %v1 = graph.reshape %v0, %heads : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %v = graph.transpose %v1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %o = graph.attention %q, %k, %v : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %o, %q0 : tensor<1x2x2x2xf32>, tensor<1x2x4xf32>
}

// -----

// GPT-2: one projection split along the last axis into Q, K and V. It is
// one GEMM already, and the attention reads its parts in place: the pass
// leaves it as it is.
// CHECK-LABEL: func @gpt2
// CHECK-SAME: (%[[QKV:[^:]*]]: tensor<1x2x12xf32>
// CHECK-NEXT: graph.constant
// CHECK-NEXT: graph.split %[[QKV]] {axis = -1 : i64, num_outputs = 3 : i64}
// CHECK-NOT: graph.split
func.func @gpt2(%qkv: tensor<1x2x12xf32>) -> tensor<1x2x2x2xf32> {
  %heads = graph.constant {value = dense<[1, 2, 2, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %parts:3 = graph.split %qkv {axis = -1 : i64, num_outputs = 3 : i64} : (tensor<1x2x12xf32>) -> (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) loc("split")
  %q1 = graph.reshape %parts#0, %heads : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32> loc("q.heads")
  %q = graph.transpose %q1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %k1 = graph.reshape %parts#1, %heads : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32> loc("k.heads")
  %k = graph.transpose %k1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %v1 = graph.reshape %parts#2, %heads : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32> loc("v.heads")
  %v = graph.transpose %v1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %o = graph.attention %q, %k, %v : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %o : tensor<1x2x2x2xf32>
}

// -----

// One query token (a decode step): the head split of Q and V is a Reshape
// alone ([1, 1, 4] -> [1, 2, 1, 2]: the transpose of the unit dim became a
// view), K's a Reshape and a Transpose. All three still merge.
// CHECK-LABEL: func @one_token
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x1x4xf32>
func.func @one_token(%x: tensor<1x1x4xf32>) -> tensor<1x2x1x2xf32> {
  // CHECK: %[[MM:.*]] = graph.mat_mul %[[X]], %{{.*}} : (tensor<1x1x4xf32>, tensor<4x12xf32>) -> tensor<1x1x12xf32>
  // CHECK: %[[P:.*]]:3 = graph.split %{{.*}} {axis = 2 : i64, num_outputs = 3 : i64} : (tensor<1x1x12xf32>, tensor<3xi64>)
  // CHECK-NOT: graph.mat_mul
  // CHECK: graph.reshape %[[P]]#0
  // CHECK: graph.reshape %[[P]]#1
  // CHECK: graph.reshape %[[P]]#2
  // CHECK: graph.attention
  %qv = graph.constant {value = dense<[1, 2, 1, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %ks = graph.constant {value = dense<[1, 2, 2, 1]> : tensor<4xi64>} : () -> tensor<4xi64>
  %wq = graph.constant {value = dense<1.0> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %wk = graph.constant {value = dense<2.0> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %wv = graph.constant {value = dense<3.0> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %b = graph.constant {value = dense<0.5> : tensor<4xf32>} : () -> tensor<4xf32>
  %q0 = graph.mat_mul %x, %wq : (tensor<1x1x4xf32>, tensor<4x4xf32>) -> tensor<1x1x4xf32>
  %q1 = graph.add %q0, %b : (tensor<1x1x4xf32>, tensor<4xf32>) -> tensor<1x1x4xf32>
  %q = graph.reshape %q1, %qv : (tensor<1x1x4xf32>, tensor<4xi64>) -> tensor<1x2x1x2xf32>
  %k0 = graph.mat_mul %x, %wk : (tensor<1x1x4xf32>, tensor<4x4xf32>) -> tensor<1x1x4xf32>
  %k1 = graph.reshape %k0, %ks : (tensor<1x1x4xf32>, tensor<4xi64>) -> tensor<1x2x2x1xf32>
  %k = graph.transpose %k1 {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x2x1xf32>) -> tensor<1x2x1x2xf32>
  %v0 = graph.mat_mul %x, %wv : (tensor<1x1x4xf32>, tensor<4x4xf32>) -> tensor<1x1x4xf32>
  %v = graph.reshape %v0, %qv : (tensor<1x1x4xf32>, tensor<4xi64>) -> tensor<1x2x1x2xf32>
  %o = graph.attention %q, %k, %v : (tensor<1x2x1x2xf32>, tensor<1x2x1x2xf32>, tensor<1x2x1x2xf32>) -> tensor<1x2x1x2xf32>
  return %o : tensor<1x2x1x2xf32>
}

// -----

// A head split the attention could read in place from its own projection
// but not from a part of the merged one (the Reshape [1, 2, 4] -> [1, 1, 1,
// 8] merges rows that the merged result lays 12 apart, not 4): nothing
// merges, and the pass leaves no op behind.
// CHECK-LABEL: func @not_in_place
// CHECK-COUNT-3: graph.mat_mul
// CHECK-NOT: graph.split
// CHECK-NOT: graph.mat_mul
func.func @not_in_place(%x: tensor<1x2x4xf32>) -> tensor<1x1x1x8xf32> {
  %flat = graph.constant {value = dense<[1, 1, 1, 8]> : tensor<4xi64>} : () -> tensor<4xi64>
  %w = graph.constant {value = dense<1.0> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %q0 = graph.mat_mul %x, %w : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %q = graph.reshape %q0, %flat : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x1x1x8xf32>
  %k0 = graph.mat_mul %x, %w : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %k = graph.reshape %k0, %flat : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x1x1x8xf32>
  %v0 = graph.mat_mul %x, %w : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %v = graph.reshape %v0, %flat : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x1x1x8xf32>
  %o = graph.attention %q, %k, %v : (tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
  return %o : tensor<1x1x1x8xf32>
}

// -----

// nn.MultiheadAttention unbinds its packed projection with one Gather per
// index: they become one Split along the axis, each part viewed without it.
// CHECK-LABEL: func @unbind
// CHECK-SAME: (%[[P:[^:]*]]: tensor<3x4x2x8xf32>
func.func @unbind(%p: tensor<3x4x2x8xf32>) -> (tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>) {
  // CHECK-NEXT: %[[S:.*]]:3 = graph.split %[[P]] {num_outputs = 3 : i64} : (tensor<3x4x2x8xf32>) -> (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>) loc(fused["q", "k", "v"])
  // CHECK: %[[Q:.*]] = graph.reshape %[[S]]#0, {{.*}} -> tensor<4x2x8xf32> loc("q")
  // CHECK: %[[K:.*]] = graph.reshape %[[S]]#1, {{.*}} -> tensor<4x2x8xf32> loc("k")
  // CHECK: %[[V:.*]] = graph.reshape %[[S]]#2, {{.*}} -> tensor<4x2x8xf32> loc("v")
  // CHECK-NOT: graph.gather
  // CHECK: return %[[Q]], %[[K]], %[[V]]
  %i0 = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %i1 = graph.constant {value = dense<-2> : tensor<i64>} : () -> tensor<i64>
  %i2 = graph.constant {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %k = graph.gather %p, %i1 : (tensor<3x4x2x8xf32>, tensor<i64>) -> tensor<4x2x8xf32> loc("k")
  %q = graph.gather %p, %i0 : (tensor<3x4x2x8xf32>, tensor<i64>) -> tensor<4x2x8xf32> loc("q")
  %v = graph.gather %p, %i2 : (tensor<3x4x2x8xf32>, tensor<i64>) -> tensor<4x2x8xf32> loc("v")
  return %q, %k, %v : tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>
}

// -----

// Not an unbind: an index is missing, another is taken twice, or the
// tensor has another use.
// CHECK-LABEL: func @not_unbind
// CHECK-COUNT-5: graph.gather
// CHECK-NOT: graph.split
func.func @not_unbind(%p: tensor<3x4xf32>, %r: tensor<2x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>) {
  %i0 = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %i1 = graph.constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %a = graph.gather %p, %i0 : (tensor<3x4xf32>, tensor<i64>) -> tensor<4xf32>
  %b = graph.gather %p, %i1 : (tensor<3x4xf32>, tensor<i64>) -> tensor<4xf32>
  %c = graph.gather %p, %i1 : (tensor<3x4xf32>, tensor<i64>) -> tensor<4xf32>
  %d = graph.gather %r, %i0 : (tensor<2x4xf32>, tensor<i64>) -> tensor<4xf32>
  %e = graph.gather %r, %i1 : (tensor<2x4xf32>, tensor<i64>) -> tensor<4xf32>
  return %a, %b, %c, %d, %e, %r : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>
}

// -----

// An unbind of an unbind (torch.export's adaptive pooling of VGG selects
// rows, then columns of each row): the inner Gathers read the outer ones'
// results, which the outer rewrite replaces; both become splits.
// CHECK-LABEL: func @nested_unbind
// CHECK-SAME: (%[[P:[^:]*]]: tensor<2x2x3xf32>
func.func @nested_unbind(%p: tensor<2x2x3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  // CHECK: %[[ROWS:.*]]:2 = graph.split %[[P]] {{.*}} -> (tensor<1x2x3xf32>, tensor<1x2x3xf32>)
  // CHECK-DAG: %[[R0:.*]] = graph.reshape %[[ROWS]]#0, {{.*}} -> tensor<2x3xf32> loc("r0")
  // CHECK-DAG: %[[R1:.*]] = graph.reshape %[[ROWS]]#1, {{.*}} -> tensor<2x3xf32> loc("r1")
  // CHECK-DAG: graph.split %[[R0]] {{.*}} -> (tensor<1x3xf32>, tensor<1x3xf32>)
  // CHECK-DAG: graph.split %[[R1]] {{.*}} -> (tensor<1x3xf32>, tensor<1x3xf32>)
  // CHECK-NOT: graph.gather
  %i0 = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %i1 = graph.constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r0 = graph.gather %p, %i0 : (tensor<2x2x3xf32>, tensor<i64>) -> tensor<2x3xf32> loc("r0")
  %a = graph.gather %r0, %i0 : (tensor<2x3xf32>, tensor<i64>) -> tensor<3xf32> loc("a")
  %b = graph.gather %r0, %i1 : (tensor<2x3xf32>, tensor<i64>) -> tensor<3xf32> loc("b")
  %r1 = graph.gather %p, %i1 : (tensor<2x2x3xf32>, tensor<i64>) -> tensor<2x3xf32> loc("r1")
  %c = graph.gather %r1, %i0 : (tensor<2x3xf32>, tensor<i64>) -> tensor<3xf32> loc("c")
  %d = graph.gather %r1, %i1 : (tensor<2x3xf32>, tensor<i64>) -> tensor<3xf32> loc("d")
  return %a, %b, %c, %d : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// nn.MultiheadAttention(batch_first) projects the sequence-first input: the
// transpose of the leading dims moves past the projection (MatMul and bias
// Add), whose result the attention reads through its layout prologue.
// CHECK-LABEL: func @sink_input_transpose
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3x4xf32>
func.func @sink_input_transpose(%x: tensor<2x3x4xf32>) -> tensor<2x2x3x2xf32> {
  // CHECK: %[[MM:.*]] = graph.mat_mul %[[X]], %{{.*}} : (tensor<2x3x4xf32>, tensor<4x12xf32>) -> tensor<2x3x12xf32>
  // CHECK-NEXT: %[[ADD:.*]] = graph.add %[[MM]], %{{.*}} : (tensor<2x3x12xf32>, tensor<12xf32>) -> tensor<2x3x12xf32>
  // CHECK-NEXT: %[[T:.*]] = graph.transpose %[[ADD]] {perm = array<i64: 1, 0, 2>} : (tensor<2x3x12xf32>) -> tensor<3x2x12xf32>
  // CHECK-NEXT: graph.reshape %[[T]]
  %unflat = graph.constant {value = dense<[3, 2, 3, 4]> : tensor<4xi64>} : () -> tensor<4xi64>
  %per_head = graph.constant {value = dense<[3, 4, 2]> : tensor<3xi64>} : () -> tensor<3xi64>
  %four = graph.constant {value = dense<[2, 2, 3, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %w = graph.constant {value = dense<1.0> : tensor<4x12xf32>} : () -> tensor<4x12xf32>
  %b = graph.constant {value = dense<2.0> : tensor<12xf32>} : () -> tensor<12xf32>
  %xs = graph.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %mm = graph.mat_mul %xs, %w : (tensor<3x2x4xf32>, tensor<4x12xf32>) -> tensor<3x2x12xf32>
  %p = graph.add %b, %mm : (tensor<12xf32>, tensor<3x2x12xf32>) -> tensor<3x2x12xf32>
  %u = graph.reshape %p, %unflat : (tensor<3x2x12xf32>, tensor<4xi64>) -> tensor<3x2x3x4xf32>
  %t = graph.transpose %u {perm = array<i64: 2, 0, 1, 3>} : (tensor<3x2x3x4xf32>) -> tensor<3x3x2x4xf32>
  %s:3 = graph.split %t {axis = 0 : i64, num_outputs = 3 : i64} : (tensor<3x3x2x4xf32>) -> (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>)
  %q0 = graph.reshape %s#0, %per_head : (tensor<1x3x2x4xf32>, tensor<3xi64>) -> tensor<3x4x2xf32>
  %q1 = graph.transpose %q0 {perm = array<i64: 1, 0, 2>} : (tensor<3x4x2xf32>) -> tensor<4x3x2xf32>
  %q = graph.reshape %q1, %four : (tensor<4x3x2xf32>, tensor<4xi64>) -> tensor<2x2x3x2xf32>
  %k0 = graph.reshape %s#1, %per_head : (tensor<1x3x2x4xf32>, tensor<3xi64>) -> tensor<3x4x2xf32>
  %k1 = graph.transpose %k0 {perm = array<i64: 1, 0, 2>} : (tensor<3x4x2xf32>) -> tensor<4x3x2xf32>
  %k = graph.reshape %k1, %four : (tensor<4x3x2xf32>, tensor<4xi64>) -> tensor<2x2x3x2xf32>
  %v0 = graph.reshape %s#2, %per_head : (tensor<1x3x2x4xf32>, tensor<3xi64>) -> tensor<3x4x2xf32>
  %v1 = graph.transpose %v0 {perm = array<i64: 1, 0, 2>} : (tensor<3x4x2xf32>) -> tensor<4x3x2xf32>
  %v = graph.reshape %v1, %four : (tensor<4x3x2xf32>, tensor<4xi64>) -> tensor<2x2x3x2xf32>
  %o = graph.attention %q, %k, %v : (tensor<2x2x3x2xf32>, tensor<2x2x3x2xf32>, tensor<2x2x3x2xf32>) -> tensor<2x2x3x2xf32>
  return %o : tensor<2x2x3x2xf32>
}
