// RUN: graphc-opt %s --graphc-recognize-attention --split-input-file --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

// The TorchScript exporter's BERT: K^T is one transpose of the head split,
// the scores are divided by sqrt(d) and masked additively. K becomes the
// transpose with the last two perm entries swapped.
// CHECK-LABEL: func @bert_torchscript
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x8x4x16xf32> {{.*}}, %[[KH:[^:]*]]: tensor<1x8x4x16xf32> {{.*}}, %[[V:[^:]*]]: tensor<1x4x8x16xf32> {{.*}}, %[[M:[^:]*]]: tensor<1x1x1x8xf32>
func.func @bert_torchscript(%q: tensor<1x8x4x16xf32>, %kh: tensor<1x8x4x16xf32>, %v: tensor<1x4x8x16xf32>, %mask: tensor<1x1x1x8xf32>) -> tensor<1x4x8x16xf32> {
  // CHECK-NEXT: %[[QT:.*]] = graph.transpose %[[Q]]
  // CHECK-NEXT: %[[K:.*]] = graph.transpose %[[KH]] {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32>
  // CHECK-NEXT: %[[O:.*]] = graph.attention %[[QT]], %[[K]], %[[V]], %[[M]] {scale = 2.500000e-01 : f64} : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x1x1x8xf32>) -> tensor<1x4x8x16xf32> loc(fused["qk", "scale", "mask", "softmax", "pv", "kt"])
  // CHECK-NEXT: return %[[O]]
  %sqrt = graph.constant {value = dense<4.0> : tensor<f32>} : () -> tensor<f32>
  %kt = graph.transpose %kh {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x16x8xf32> loc("kt")
  %qt = graph.transpose %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32> loc("qt")
  %s = graph.mat_mul %qt, %kt : (tensor<1x4x8x16xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x8x8xf32> loc("qk")
  %d = graph.div %s, %sqrt : (tensor<1x4x8x8xf32>, tensor<f32>) -> tensor<1x4x8x8xf32> loc("scale")
  %a = graph.add %d, %mask : (tensor<1x4x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x4x8x8xf32> loc("mask")
  %p = graph.softmax %a {axis = -1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("softmax")
  %o = graph.mat_mul %p, %v : (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> loc("pv")
  return %o : tensor<1x4x8x16xf32>
}

// -----

// torch.export: K^T is reshape(transpose(reshape(K, [B*H, S, D]), [0, 2, 1]),
// [B, H, D, S]), the scale was hoisted past the product, a computed mask
// comes first in the Add, and the NaN guard follows the softmax. K is read
// as it was before the sandwich; nothing of it remains.
// CHECK-LABEL: func @gpt2_dynamo
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x4x8x16xf32> {{.*}}, %[[K:[^:]*]]: tensor<1x4x8x16xf32> {{.*}}, %[[V:[^:]*]]: tensor<1x4x8x16xf32> {{.*}}, %[[B:[^:]*]]: tensor<1x1x8x8xf32>
func.func @gpt2_dynamo(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %bias: tensor<1x1x8x8xf32>) -> tensor<1x4x8x16xf32> {
  // CHECK-NEXT: %[[MASK:.*]] = graph.neg %[[B]]
  // CHECK-NEXT: %[[O:.*]] = graph.attention %[[Q]], %[[K]], %[[V]], %[[MASK]] {nan_to_zero = 1 : i64, scale = 1.250000e-01 : f64}
  // CHECK-NEXT: return %[[O]]
  %merged = graph.constant {value = dense<[4, 8, 16]> : tensor<3xi64>} : () -> tensor<3xi64>
  %split = graph.constant {value = dense<[1, 4, 16, 8]> : tensor<4xi64>} : () -> tensor<4xi64>
  %scale = graph.constant {value = dense<0.125> : tensor<f32>} : () -> tensor<f32>
  %zero = graph.constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %mask = graph.neg %bias : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  %k3 = graph.reshape %k, %merged : (tensor<1x4x8x16xf32>, tensor<3xi64>) -> tensor<4x8x16xf32>
  %kt3 = graph.transpose %k3 {perm = array<i64: 0, 2, 1>} : (tensor<4x8x16xf32>) -> tensor<4x16x8xf32>
  %kt = graph.reshape %kt3, %split : (tensor<4x16x8xf32>, tensor<4xi64>) -> tensor<1x4x16x8xf32>
  %s = graph.mat_mul %q, %kt : (tensor<1x4x8x16xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x8x8xf32>
  %m = graph.mul %s, %scale : (tensor<1x4x8x8xf32>, tensor<f32>) -> tensor<1x4x8x8xf32>
  %a = graph.add %mask, %m : (tensor<1x1x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = graph.softmax %a : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %nan = graph.is_nan %p : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xi1>
  %g = graph.where %nan, %zero, %p : (tensor<1x4x8x8xi1>, tensor<f32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %o = graph.mat_mul %g, %v : (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// One K/V head for all query heads (MatMul broadcasting): a grouped
// attention. K^T that is not a transpose is read through a new transpose.
// CHECK-LABEL: func @multi_query
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x4x8x16xf32> {{.*}}, %[[KT:[^:]*]]: tensor<2x1x16x8xf32> {{.*}}, %[[V:[^:]*]]: tensor<2x1x8x32xf32>
func.func @multi_query(%q: tensor<2x4x8x16xf32>, %kt: tensor<2x1x16x8xf32>, %v: tensor<2x1x8x32xf32>) -> tensor<2x4x8x32xf32> {
  // CHECK-NEXT: %[[K:.*]] = graph.transpose %[[KT]] {perm = array<i64: 0, 1, 3, 2>}
  // CHECK-NEXT: %[[O:.*]] = graph.attention %[[Q]], %[[K]], %[[V]] : (tensor<2x4x8x16xf32>, tensor<2x1x8x16xf32>, tensor<2x1x8x32xf32>) -> tensor<2x4x8x32xf32>
  // CHECK-NEXT: return %[[O]]
  %s = graph.mat_mul %q, %kt : (tensor<2x4x8x16xf32>, tensor<2x1x16x8xf32>) -> tensor<2x4x8x8xf32>
  %p = graph.softmax %s {axis = 3 : i64} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %o = graph.mat_mul %p, %v : (tensor<2x4x8x8xf32>, tensor<2x1x8x32xf32>) -> tensor<2x4x8x32xf32>
  return %o : tensor<2x4x8x32xf32>
}

// -----

// Left alone: the probabilities are a model output too, the softmax is
// over another axis, the scale is not a constant, and the batch of K
// broadcasts against Q's.
// CHECK-LABEL: func @not_attention
func.func @not_attention(%q: tensor<2x4x8x16xf32>, %kt: tensor<2x4x16x8xf32>, %kt1: tensor<1x4x16x8xf32>, %v: tensor<2x4x8x16xf32>, %c: tensor<f32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) {
  // CHECK-NOT: graph.attention
  %s0 = graph.mat_mul %q, %kt : (tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x8x8xf32>
  %p0 = graph.softmax %s0 : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %o0 = graph.mat_mul %p0, %v : (tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  %s1 = graph.mat_mul %q, %kt : (tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x8x8xf32>
  %p1 = graph.softmax %s1 {axis = 2 : i64} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %o1 = graph.mat_mul %p1, %v : (tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  %s2 = graph.mat_mul %q, %kt : (tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x8x8xf32>
  %m2 = graph.mul %s2, %c : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8x8xf32>
  %p2 = graph.softmax %m2 : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %o2 = graph.mat_mul %p2, %v : (tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  %s3 = graph.mat_mul %q, %kt1 : (tensor<2x4x8x16xf32>, tensor<1x4x16x8xf32>) -> tensor<2x4x8x8xf32>
  %p3 = graph.softmax %s3 : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %o3 = graph.mat_mul %p3, %v : (tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  return %o0, %p0, %o1, %o2, %o3 : tensor<2x4x8x16xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
}

// -----

// Heads larger than the kernel templates keep in shared memory stay apart.
// CHECK-LABEL: func @huge_heads
func.func @huge_heads(%q: tensor<1x1x4x512xf32>, %kt: tensor<1x1x512x4xf32>, %v: tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32> {
  // CHECK-NOT: graph.attention
  %s = graph.mat_mul %q, %kt : (tensor<1x1x4x512xf32>, tensor<1x1x512x4xf32>) -> tensor<1x1x4x4xf32>
  %p = graph.softmax %s : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %o = graph.mat_mul %p, %v : (tensor<1x1x4x4xf32>, tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// -----

// Llama's repeat_kv on K and V (Unsqueeze, Expand, Reshape; torch.export
// merges K's reshape into the K^T sandwich): the attention reads the two
// K/V heads as grouped heads, and no repeated copy remains.
// CHECK-LABEL: func @repeat_kv
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x4x8x16xf32> {{.*}}, %[[K:[^:]*]]: tensor<1x2x8x16xf32> {{.*}}, %[[V:[^:]*]]: tensor<1x2x8x16xf32>
func.func @repeat_kv(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x4x8x16xf32> {
  // CHECK-NOT: graph.expand
  // CHECK: %[[O:.*]] = graph.attention %[[Q]], %[[K]], %[[V]] : (tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x4x8x16xf32>
  // CHECK-NEXT: return %[[O]]
  %axis = graph.constant {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %repeat = graph.constant {value = dense<[1, 2, 2, 8, 16]> : tensor<5xi64>} : () -> tensor<5xi64>
  %heads = graph.constant {value = dense<[1, 4, 8, 16]> : tensor<4xi64>} : () -> tensor<4xi64>
  %merged = graph.constant {value = dense<[4, 8, 16]> : tensor<3xi64>} : () -> tensor<3xi64>
  %split = graph.constant {value = dense<[1, 4, 16, 8]> : tensor<4xi64>} : () -> tensor<4xi64>
  %k1 = graph.unsqueeze %k, %axis : (tensor<1x2x8x16xf32>, tensor<1xi64>) -> tensor<1x2x1x8x16xf32>
  %k2 = graph.expand %k1, %repeat : (tensor<1x2x1x8x16xf32>, tensor<5xi64>) -> tensor<1x2x2x8x16xf32>
  %k3 = graph.reshape %k2, %merged : (tensor<1x2x2x8x16xf32>, tensor<3xi64>) -> tensor<4x8x16xf32>
  %kt3 = graph.transpose %k3 {perm = array<i64: 0, 2, 1>} : (tensor<4x8x16xf32>) -> tensor<4x16x8xf32>
  %kt = graph.reshape %kt3, %split : (tensor<4x16x8xf32>, tensor<4xi64>) -> tensor<1x4x16x8xf32>
  %v1 = graph.unsqueeze %v, %axis : (tensor<1x2x8x16xf32>, tensor<1xi64>) -> tensor<1x2x1x8x16xf32>
  %v2 = graph.expand %v1, %repeat : (tensor<1x2x1x8x16xf32>, tensor<5xi64>) -> tensor<1x2x2x8x16xf32>
  %v3 = graph.reshape %v2, %heads : (tensor<1x2x2x8x16xf32>, tensor<4xi64>) -> tensor<1x4x8x16xf32>
  %s = graph.mat_mul %q, %kt : (tensor<1x4x8x16xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x8x8xf32>
  %p = graph.softmax %s : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %o = graph.mat_mul %p, %v3 : (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// A constant causal mask (0 on and below the diagonal, the float minimum
// above, as GPT-2's export folds to) becomes is_causal; a mask that keeps
// one future key stays a mask; a mask of zeros goes.
// CHECK-LABEL: func @causal_mask
func.func @causal_mask(%q: tensor<1x2x3x4xf32>, %kt: tensor<1x2x4x3xf32>, %v: tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) {
  // CHECK: graph.attention %arg0, %{{.*}}, %arg2 {is_causal = 1 : i64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  // CHECK: graph.attention %arg0, %{{.*}}, %arg2, %{{.*}} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x2x3x4xf32>
  // CHECK: graph.attention %arg0, %{{.*}}, %arg2 : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %causal = graph.constant {value = dense<[[[[0.0, -3.40282347E+38, -3.40282347E+38], [0.0, 0.0, -3.40282347E+38], [0.0, 0.0, 0.0]]]]> : tensor<1x1x3x3xf32>} : () -> tensor<1x1x3x3xf32>
  %leaky = graph.constant {value = dense<[[[[0.0, 0.0, -3.40282347E+38], [0.0, 0.0, -3.40282347E+38], [0.0, 0.0, 0.0]]]]> : tensor<1x1x3x3xf32>} : () -> tensor<1x1x3x3xf32>
  %zeros = graph.constant {value = dense<0.0> : tensor<1x1x1x3xf32>} : () -> tensor<1x1x1x3xf32>
  %s0 = graph.mat_mul %q, %kt : (tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x3x3xf32>
  %a0 = graph.add %s0, %causal : (tensor<1x2x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p0 = graph.softmax %a0 : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %o0 = graph.mat_mul %p0, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %s1 = graph.mat_mul %q, %kt : (tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x3x3xf32>
  %a1 = graph.add %s1, %leaky : (tensor<1x2x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p1 = graph.softmax %a1 : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %o1 = graph.mat_mul %p1, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %s2 = graph.mat_mul %q, %kt : (tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x3x3xf32>
  %a2 = graph.add %s2, %zeros : (tensor<1x2x3x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x2x3x3xf32>
  %p2 = graph.softmax %a2 : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %o2 = graph.mat_mul %p2, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %o0, %o1, %o2 : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
}

// -----

// Hugging Face's BERT export: the [B, S] padding mask is unsqueezed to
// [B, 1, 1, S], expanded to [B, 1, S, S], then made an additive bias (Cast,
// Sub, Cast to bool, Where with the lowest float), once for every layer.
// Each attention broadcasts its mask, so the bias is computed on the
// unexpanded [B, 1, 1, S] mask and both layers read that: no Expand is left
// and the pointwise ops run over S elements, not S x S (the Expand's target
// shape goes too).
// CHECK-LABEL: func @hf_padding_mask
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x2x8x16xf32> {{.*}}, %[[K:[^:]*]]: tensor<1x2x8x16xf32> {{.*}}, %[[V:[^:]*]]: tensor<1x2x8x16xf32> {{.*}}, %[[IDS:[^:]*]]: tensor<1x8xi64>
// CHECK-NOT: dense<[1, 1, 8, 8]>
// CHECK-NOT: graph.expand
// CHECK: %[[M4:.*]] = graph.unsqueeze %{{.*}} : (tensor<1x1x8xi64>, tensor<1xi64>) -> tensor<1x1x1x8xi64>
// CHECK-NEXT: %[[F:.*]] = graph.cast %[[M4]] {to = f32} : (tensor<1x1x1x8xi64>) -> tensor<1x1x1x8xf32> loc("to_float")
// CHECK-NEXT: %[[D:.*]] = graph.sub %{{.*}}, %[[F]] : (tensor<f32>, tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32> loc("dropped")
// CHECK-NEXT: %[[B:.*]] = graph.cast %[[D]] {to = i1} : (tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xi1> loc("to_bool")
// CHECK-NEXT: %[[BIAS:.*]] = graph.where %[[B]], %{{.*}}, %[[D]] : (tensor<1x1x1x8xi1>, tensor<f32>, tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32> loc("bias")
// CHECK-NOT: graph.expand
// CHECK: graph.attention %[[Q]], %[[K]], %[[V]], %[[BIAS]] {{.*}} -> tensor<1x2x8x16xf32>
// CHECK: graph.attention %{{.*}}, %[[K]], %[[V]], %[[BIAS]] {{.*}} -> tensor<1x2x8x16xf32>
func.func @hf_padding_mask(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %ids: tensor<1x8xi64>) -> tensor<1x2x8x16xf32> {
  %axis1 = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %shape = graph.constant {value = dense<[1, 1, 8, 8]> : tensor<4xi64>} : () -> tensor<4xi64>
  %one = graph.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %lowest = graph.constant {value = dense<-3.40282347E+38> : tensor<f32>} : () -> tensor<f32>
  %scale = graph.constant {value = dense<0.25> : tensor<f32>} : () -> tensor<f32>
  %m3 = graph.unsqueeze %ids, %axis1 : (tensor<1x8xi64>, tensor<1xi64>) -> tensor<1x1x8xi64> loc("unsqueeze1")
  %m4 = graph.unsqueeze %m3, %axis1 : (tensor<1x1x8xi64>, tensor<1xi64>) -> tensor<1x1x1x8xi64> loc("unsqueeze2")
  %e = graph.expand %m4, %shape : (tensor<1x1x1x8xi64>, tensor<4xi64>) -> tensor<1x1x8x8xi64> loc("expand")
  %f = graph.cast %e {to = f32} : (tensor<1x1x8x8xi64>) -> tensor<1x1x8x8xf32> loc("to_float")
  %d = graph.sub %one, %f : (tensor<f32>, tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> loc("dropped")
  %b = graph.cast %d {to = i1} : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xi1> loc("to_bool")
  %bias = graph.where %b, %lowest, %d : (tensor<1x1x8x8xi1>, tensor<f32>, tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> loc("bias")
  %kt = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x16xf32>) -> tensor<1x2x16x8xf32>
  %s = graph.mat_mul %q, %kt : (tensor<1x2x8x16xf32>, tensor<1x2x16x8xf32>) -> tensor<1x2x8x8xf32>
  %sc = graph.mul %s, %scale : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %a = graph.add %sc, %bias : (tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p = graph.softmax %a {axis = -1 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = graph.mat_mul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %kt2 = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x16xf32>) -> tensor<1x2x16x8xf32>
  %s2 = graph.mat_mul %o, %kt2 : (tensor<1x2x8x16xf32>, tensor<1x2x16x8xf32>) -> tensor<1x2x8x8xf32>
  %sc2 = graph.mul %s2, %scale : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %a2 = graph.add %sc2, %bias : (tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p2 = graph.softmax %a2 {axis = -1 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o2 = graph.mat_mul %p2, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o2 : tensor<1x2x8x16xf32>
}

// -----

// The expanded bias has another user (it is returned): computing it
// unexpanded too would compute the mask twice, so the attention reads the
// expanded one.
// CHECK-LABEL: func @expanded_mask_also_returned
// CHECK: %[[E:.*]] = graph.expand
// CHECK-NEXT: %[[BIAS:.*]] = graph.sub %{{.*}}, %[[E]] : (tensor<f32>, tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
// CHECK: graph.attention %{{.*}}, %{{.*}}, %{{.*}}, %[[BIAS]] {{.*}} -> tensor<1x2x8x16xf32>
// CHECK: return %{{.*}}, %[[BIAS]]
func.func @expanded_mask_also_returned(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %m: tensor<1x1x1x8xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x1x8x8xf32>) {
  %shape = graph.constant {value = dense<[1, 1, 8, 8]> : tensor<4xi64>} : () -> tensor<4xi64>
  %one = graph.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %e = graph.expand %m, %shape : (tensor<1x1x1x8xf32>, tensor<4xi64>) -> tensor<1x1x8x8xf32>
  %bias = graph.sub %one, %e : (tensor<f32>, tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  %kt = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x16xf32>) -> tensor<1x2x16x8xf32>
  %s = graph.mat_mul %q, %kt : (tensor<1x2x8x16xf32>, tensor<1x2x16x8xf32>) -> tensor<1x2x8x8xf32>
  %a = graph.add %s, %bias : (tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p = graph.softmax %a {axis = -1 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = graph.mat_mul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o, %bias : tensor<1x2x8x16xf32>, tensor<1x1x8x8xf32>
}

// -----

// A mask expanded along the key axis ([B, 1, S, 1] to [B, 1, S, S], a
// per-query bias) is read unexpanded as well: the attention broadcasts any
// unit dim of its mask.
// CHECK-LABEL: func @query_mask
// CHECK-SAME: %[[M:[^:]*]]: tensor<1x1x8x1xf32>
// CHECK-NOT: graph.expand
// CHECK: %[[BIAS:.*]] = graph.neg %[[M]] : (tensor<1x1x8x1xf32>) -> tensor<1x1x8x1xf32>
// CHECK-NEXT: graph.attention %{{.*}}, %{{.*}}, %{{.*}}, %[[BIAS]]
func.func @query_mask(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %m: tensor<1x1x8x1xf32>) -> tensor<1x2x8x16xf32> {
  %shape = graph.constant {value = dense<[1, 1, 8, 8]> : tensor<4xi64>} : () -> tensor<4xi64>
  %e = graph.expand %m, %shape : (tensor<1x1x8x1xf32>, tensor<4xi64>) -> tensor<1x1x8x8xf32>
  %bias = graph.neg %e : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  %kt = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x16xf32>) -> tensor<1x2x16x8xf32>
  %s = graph.mat_mul %q, %kt : (tensor<1x2x8x16xf32>, tensor<1x2x16x8xf32>) -> tensor<1x2x8x8xf32>
  %a = graph.add %s, %bias : (tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p = graph.softmax %a {axis = -1 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = graph.mat_mul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}
