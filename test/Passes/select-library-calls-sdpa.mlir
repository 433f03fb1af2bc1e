// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-select-library-calls=workspace-bytes=1024 | FileCheck %s
// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-select-library-calls --graphc-plan-memory --graphc-lower-to-exec | FileCheck %s --check-prefix=EXEC
// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-select-library-calls=cudnn-sdpa=false | FileCheck %s --check-prefix=NOSDPA

// A causal f16 attention on plain Q, K and V: the whole fusion is a cuDNN
// SDPA call (its generated kernel stays the fallback), with the workspace.
// CHECK-LABEL: func.func @causal
// CHECK: kernel.fusion "attention_0" attention
// CHECK-SAME: library = #kernel.library<cudnn>
// CHECK-SAME: workspace_bytes = 1024>
// EXEC-LABEL: exec.kernel @attention_{{[0-9a-f]+}} attention
// EXEC-SAME: library = #kernel.library<cudnn>
// EXEC-SAME: sdpa = #exec.sdpa<batch = 1, heads = 2, kv_heads = 1, queries = 4, keys = 4, head_dim = 16, value_dim = 16, scale = 2.500000e-01, is_causal = true, q = 0, k = 1, v = 2, bias = -1, o = 3, q_offset = 0, k_offset = 0, v_offset = 0, o_offset = 0, bias_offset = 0, q_strides = [128, 64, 16, 1], k_strides = [64, 64, 16, 1], v_strides = [64, 64, 16, 1], o_strides = [128, 64, 16, 1], bias_dims = [1, 1, 1, 1], bias_strides = [0, 0, 0, 0]>
// EXEC: exec.library_call @{{attention_[0-9a-f]+}} [{{.*}}] workspace <arena, {{[0-9]+}}, {{[0-9]+}}, 33554432>
// NOSDPA-LABEL: func.func @causal
// NOSDPA: kernel.fusion "attention_0" attention
// NOSDPA-NOT: library
func.func @causal(%q: tensor<1x2x4x16xf16>, %k: tensor<1x1x4x16xf16>, %v: tensor<1x1x4x16xf16>) -> tensor<1x2x4x16xf16> {
  %0 = graph.attention %q, %k, %v {scale = 0.25 : f64, is_causal = 1 : i64} : (tensor<1x2x4x16xf16>, tensor<1x1x4x16xf16>, tensor<1x1x4x16xf16>) -> tensor<1x2x4x16xf16>
  return %0 : tensor<1x2x4x16xf16>
}

// -----

// BERT's layout: Q, K and V parts of one merged projection [B, S, 3 E],
// head split in place, a padding mask [B, 1, 1, S] and the head merge
// stored in place: offsets and strides of the projection and the output.
// CHECK-LABEL: func.func @packed
// CHECK: kernel.fusion "split_transpose_attention_0" attention
// CHECK-SAME: library = #kernel.library<cudnn>
// EXEC-LABEL: exec.kernel @split_transpose_attention_{{[0-9a-f]+}} attention
// EXEC-SAME: sdpa = #exec.sdpa<batch = 2, heads = 2, kv_heads = 2, queries = 8, keys = 8, head_dim = 16, value_dim = 16, scale = 2.500000e-01, is_causal = false, q = 0, k = 0, v = 0, bias = 3, o = 4, q_offset = 0, k_offset = 32, v_offset = 64, o_offset = 0, bias_offset = 0, q_strides = [768, 16, 96, 1], k_strides = [768, 16, 96, 1], v_strides = [768, 16, 96, 1], o_strides = [256, 16, 32, 1], bias_dims = [2, 1, 1, 8], bias_strides = [8, 0, 0, 1]>
func.func @packed(%qkv: tensor<2x8x96xf16>, %mask: tensor<2x1x1x8xf16>) -> tensor<2x8x2x16xf16> {
  %sizes = graph.constant {value = dense<32> : tensor<3xi64>} : () -> tensor<3xi64>
  %heads = graph.constant {value = dense<[2, 8, 2, 16]> : tensor<4xi64>} : () -> tensor<4xi64>
  %p:3 = graph.split %qkv, %sizes {axis = 2 : i64, num_outputs = 3 : i64} : (tensor<2x8x96xf16>, tensor<3xi64>) -> (tensor<2x8x32xf16>, tensor<2x8x32xf16>, tensor<2x8x32xf16>)
  %q1 = graph.reshape %p#0, %heads : (tensor<2x8x32xf16>, tensor<4xi64>) -> tensor<2x8x2x16xf16>
  %q = graph.transpose %q1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x2x16xf16>) -> tensor<2x2x8x16xf16>
  %k1 = graph.reshape %p#1, %heads : (tensor<2x8x32xf16>, tensor<4xi64>) -> tensor<2x8x2x16xf16>
  %k = graph.transpose %k1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x2x16xf16>) -> tensor<2x2x8x16xf16>
  %v1 = graph.reshape %p#2, %heads : (tensor<2x8x32xf16>, tensor<4xi64>) -> tensor<2x8x2x16xf16>
  %v = graph.transpose %v1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x2x16xf16>) -> tensor<2x2x8x16xf16>
  %o = graph.attention %q, %k, %v, %mask {scale = 0.25 : f64} : (tensor<2x2x8x16xf16>, tensor<2x2x8x16xf16>, tensor<2x2x8x16xf16>, tensor<2x1x1x8xf16>) -> tensor<2x2x8x16xf16>
  %t = graph.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x2x8x16xf16>) -> tensor<2x8x2x16xf16>
  return %t : tensor<2x8x2x16xf16>
}

// -----

// What cuDNN's SDPA does not take stays a generated kernel: float32, a head
// size that is no multiple of 8, and a NaN guard with a mask (cuDNN leaves
// NaN in a row whose keys are all masked out, the guard 0).
// CHECK-LABEL: func.func @generated
// CHECK-NOT: library
// CHECK: return
func.func @generated(%q: tensor<1x2x4x16xf32>, %h: tensor<1x2x4x12xf16>, %g: tensor<1x2x4x16xf16>, %m: tensor<1x1x4x4xf16>) -> (tensor<1x2x4x16xf32>, tensor<1x2x4x12xf16>, tensor<1x2x4x16xf16>) {
  %0 = graph.attention %q, %q, %q : (tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32>
  %1 = graph.attention %h, %h, %h : (tensor<1x2x4x12xf16>, tensor<1x2x4x12xf16>, tensor<1x2x4x12xf16>) -> tensor<1x2x4x12xf16>
  %2 = graph.attention %g, %g, %g, %m {nan_to_zero = 1 : i64} : (tensor<1x2x4x16xf16>, tensor<1x2x4x16xf16>, tensor<1x2x4x16xf16>, tensor<1x1x4x4xf16>) -> tensor<1x2x4x16xf16>
  return %0, %1, %2 : tensor<1x2x4x16xf32>, tensor<1x2x4x12xf16>, tensor<1x2x4x16xf16>
}
