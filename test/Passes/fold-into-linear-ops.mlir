// RUN: graphc-opt %s --graphc-fold-into-linear-ops --split-input-file --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

// BatchNormalization after Conv: scale = gamma / sqrt(var + eps) = [2, 1],
// W' = W * scale, B' = (B - mean) * scale + beta.
// CHECK-LABEL: func @conv_bn
func.func @conv_bn(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK-DAG: %[[W:.*]] = graph.constant {value = dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}3.000000e+00]]]]> : tensor<2x1x1x1xf32>}
  // CHECK-DAG: %[[B:.*]] = graph.constant {value = dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>}
  // CHECK: %[[Y:.*]] = graph.conv %{{.*}}, %[[W]], %[[B]] {{.*}}loc(fused["conv", "bn"])
  // CHECK-NOT: graph.batch_normalization
  // CHECK: return %[[Y]]
  %w = graph.constant {value = dense<[[[[1.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %b = graph.constant {value = dense<[0.5, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %gamma = graph.constant {value = dense<[4.0, 3.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %beta = graph.constant {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = graph.constant {value = dense<[0.5, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = graph.constant {value = dense<[3.0, 8.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = graph.conv %x, %w, %b : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("conv")
  %1 = graph.batch_normalization %0, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("bn")
  return %1 : tensor<1x2x4x4xf32>
}

// -----

// Weights held in a resource blob are read too; a Mul by a scalar needs no
// bias, and a following per-channel Add then becomes one.
// CHECK-LABEL: func @conv_mul_add
func.func @conv_mul_add(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK-DAG: %[[W:.*]] = graph.constant {value = dense<{{\[\[\[\[}}5.000000e-01]]], {{\[\[\[}}1.500000e+00]]]]> : tensor<2x1x1x1xf32>}
  // CHECK-DAG: %[[B:.*]] = graph.constant {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}
  // CHECK: graph.conv %{{.*}}, %[[W]], %[[B]] {{.*}}loc(fused["conv", "mul", "add"])
  // CHECK-NOT: graph.mul
  // CHECK-NOT: graph.add
  %w = graph.constant {value = dense_resource<weights> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %s = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %c = graph.constant {value = dense<[[[1.0]], [[2.0]]]> : tensor<2x1x1xf32>} : () -> tensor<2x1x1xf32>
  %0 = graph.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32> loc("conv")
  %1 = graph.mul %0, %s : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32> loc("mul")
  %2 = graph.add %c, %1 : (tensor<2x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("add")
  return %2 : tensor<1x2x4x4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F00004040"
    }
  }
#-}

// -----

// ConvTranspose W is [C, M/group, k...]: output channel m is W[:, m].
// CHECK-LABEL: func @conv_transpose_mul
func.func @conv_transpose_mul(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[W:.*]] = graph.constant {value = dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}3.000000e+00]]], {{\[\[\[}}4.000000e+00]], {{\[\[}}6.000000e+00]]]]> : tensor<2x2x1x1xf32>}
  // CHECK: graph.conv_transpose %{{.*}}, %[[W]] :
  %w = graph.constant {value = dense<[[[[1.0]], [[1.0]]], [[[2.0]], [[2.0]]]]> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %s = graph.constant {value = dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>} : () -> tensor<2x1x1xf32>
  %0 = graph.conv_transpose %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.mul %0, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

// -----

// Grouped ConvTranspose: input channels 0-1 feed output channel 0 (group 0),
// 2-3 feed output channel 1.
// CHECK-LABEL: func @grouped_conv_transpose_bn
func.func @grouped_conv_transpose_bn(%x: tensor<1x4x2x2xf32>) -> tensor<1x2x2x2xf32> {
  // CHECK-DAG: %[[W:.*]] = graph.constant {value = dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}2.000000e+00]]], {{\[\[\[}}3.000000e+00]]], {{\[\[\[}}3.000000e+00]]]]> : tensor<4x1x1x1xf32>}
  // CHECK-DAG: %[[B:.*]] = graph.constant {value = dense<[-1.000000e+00, 1.000000e+00]> : tensor<2xf32>}
  // CHECK: graph.conv_transpose %{{.*}}, %[[W]], %[[B]] {group = 2 : i64}
  %w = graph.constant {value = dense<1.0> : tensor<4x1x1x1xf32>} : () -> tensor<4x1x1x1xf32>
  %gamma = graph.constant {value = dense<[2.0, 3.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %beta = graph.constant {value = dense<[1.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = graph.constant {value = dense<[1.0, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = graph.constant {value = dense<[0.0, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = graph.conv_transpose %x, %w {group = 2 : i64} : (tensor<1x4x2x2xf32>, tensor<4x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %1 = graph.batch_normalization %0, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %1 : tensor<1x2x2x2xf32>
}

// -----

// Gemm with transB: B rows are output columns; C is scaled and shifted.
// CHECK-LABEL: func @gemm_mul_add
func.func @gemm_mul_add(%a: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // CHECK-DAG: %[[B:.*]] = graph.constant {value = dense<{{\[\[}}2.000000e+00, 4.000000e+00], [-3.000000e+00, -4.000000e+00]]> : tensor<2x2xf32>}
  // CHECK-DAG: %[[C:.*]] = graph.constant {value = dense<[3.000000e+00, -2.000000e+00]> : tensor<2xf32>}
  // CHECK: graph.gemm %{{.*}}, %[[B]], %[[C]] {transB = 1 : i64}
  // CHECK-NOT: graph.mul
  %b = graph.constant {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %c = graph.constant {value = dense<1.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %s = graph.constant {value = dense<[[2.0, -1.0]]> : tensor<1x2xf32>} : () -> tensor<1x2xf32>
  %t = graph.constant {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = graph.gemm %a, %b, %c {transB = 1 : i64} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<1xf32>) -> tensor<3x2xf32>
  %1 = graph.mul %0, %s : (tensor<3x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  %2 = graph.add %1, %t : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %2 : tensor<3x2xf32>
}

// -----

// MatMul of matrices plus a bias vector becomes a Gemm.
// CHECK-LABEL: func @matmul_add
func.func @matmul_add(%a: tensor<?x2xf32>) -> tensor<?x3xf32> {
  // CHECK: %[[C:.*]] = graph.constant {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>}
  // CHECK: graph.gemm %{{.*}}, %{{.*}}, %[[C]] : (tensor<?x2xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x3xf32> loc(fused["matmul", "add"])
  %b = graph.constant {value = dense<1.0> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
  %t = graph.constant {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %0 = graph.mat_mul %a, %b : (tensor<?x2xf32>, tensor<2x3xf32>) -> tensor<?x3xf32> loc("matmul")
  %1 = graph.add %0, %t : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32> loc("add")
  return %1 : tensor<?x3xf32>
}

// -----

// A batched MatMul takes the scale into B's columns but keeps its bias Add:
// Gemm takes matrices only.
// CHECK-LABEL: func @batched_matmul
func.func @batched_matmul(%a: tensor<4x5x2xf32>) -> tensor<4x5x3xf32> {
  // CHECK: %[[B:.*]] = graph.constant {value = dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<2x3xf32>}
  // CHECK: %[[Y:.*]] = graph.mat_mul %{{.*}}, %[[B]]
  // CHECK: graph.add %[[Y]]
  %b = graph.constant {value = dense<1.0> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
  %s = graph.constant {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %0 = graph.mat_mul %a, %b : (tensor<4x5x2xf32>, tensor<2x3xf32>) -> tensor<4x5x3xf32>
  %1 = graph.mul %0, %s : (tensor<4x5x3xf32>, tensor<3xf32>) -> tensor<4x5x3xf32>
  %2 = graph.add %1, %s : (tensor<4x5x3xf32>, tensor<3xf32>) -> tensor<4x5x3xf32>
  return %2 : tensor<4x5x3xf32>
}

// -----

// Not folded: the Conv has another user.
// CHECK-LABEL: func @multi_use
func.func @multi_use(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  // CHECK: %[[Y:.*]] = graph.conv
  // CHECK: graph.mul %[[Y]]
  %w = graph.constant {value = dense<[[[[1.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %s = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %0 = graph.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.mul %0, %s : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  return %0, %1 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Not folded: the factor is not a constant.
// CHECK-LABEL: func @non_constant
func.func @non_constant(%x: tensor<1x1x4x4xf32>, %s: tensor<f32>) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[Y:.*]] = graph.conv
  // CHECK: graph.mul %[[Y]]
  %w = graph.constant {value = dense<[[[[1.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %0 = graph.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.mul %0, %s : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

// -----

// Not folded: the factor varies along H, not along the channels.
// CHECK-LABEL: func @wrong_axis
func.func @wrong_axis(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  // CHECK: %[[Y:.*]] = graph.conv
  // CHECK: graph.mul %[[Y]]
  %w = graph.constant {value = dense<[[[[1.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %s = graph.constant {value = dense<[[2.0], [3.0]]> : tensor<2x1xf32>} : () -> tensor<2x1xf32>
  %0 = graph.conv %x, %w : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %1 = graph.mul %0, %s : (tensor<1x2x2x2xf32>, tensor<2x1xf32>) -> tensor<1x2x2x2xf32>
  return %1 : tensor<1x2x2x2xf32>
}

// -----

// Not folded: a shift into C is exact only with beta = 1.
// CHECK-LABEL: func @gemm_beta
func.func @gemm_beta(%a: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // CHECK: %[[Y:.*]] = graph.gemm
  // CHECK: graph.add %[[Y]]
  %b = graph.constant {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %c = graph.constant {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = graph.gemm %a, %b, %c {beta = 2.0 : f32} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %1 = graph.add %0, %c : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// Large folded weights become resource blobs, as imported weights are.
// CHECK-LABEL: func @large_weights
func.func @large_weights(%x: tensor<1x1x8x8xf32>) -> tensor<1x2x3x3xf32> {
  // CHECK: %[[W:.*]] = graph.constant {value = dense_resource<folded{{.*}}> : tensor<2x1x6x6xf32>}
  // CHECK: graph.conv %{{.*}}, %[[W]] :
  %w = graph.constant {value = dense<1.0> : tensor<2x1x6x6xf32>} : () -> tensor<2x1x6x6xf32>
  %s = graph.constant {value = dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>} : () -> tensor<2x1x1xf32>
  %0 = graph.conv %x, %w : (tensor<1x1x8x8xf32>, tensor<2x1x6x6xf32>) -> tensor<1x2x3x3xf32>
  %1 = graph.mul %0, %s : (tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %1 : tensor<1x2x3x3xf32>
}

// -----

// Scalar scales of both MatMul operands (torch.export's attention scales Q
// and K^T by sqrt(scale) each) move past the product as one Mul by their
// product, which the product's epilogue computes.
// CHECK-LABEL: func @hoist_operand_scales
func.func @hoist_operand_scales(%q: tensor<2x4x8xf32>, %k: tensor<2x8x4xf32>) -> tensor<2x4x4xf32> {
  // CHECK-DAG: %[[S:.*]] = graph.constant {value = dense<1.250000e-01> : tensor<f32>}
  // CHECK-DAG: %[[P:.*]] = graph.mat_mul %arg0, %arg1 : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32> loc("qk")
  // CHECK: %[[Y:.*]] = graph.mul %[[P]], %[[S]] {{.*}}loc(fused["scale_q", "scale_k"])
  // CHECK-NOT: graph.mul
  // CHECK: return %[[Y]]
  %half = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %quarter = graph.constant {value = dense<0.25> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = graph.mul %q, %half : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32> loc("scale_q")
  %1 = graph.mul %quarter, %k : (tensor<1xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32> loc("scale_k")
  %2 = graph.mat_mul %0, %1 : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32> loc("qk")
  return %2 : tensor<2x4x4xf32>
}

// -----

// A scale with another user stays (it would be computed twice), and so does
// a scalar that broadcasts its operand to a higher rank.
// CHECK-LABEL: func @keep_shared_or_broadcast_scales
func.func @keep_shared_or_broadcast_scales(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %k: tensor<8x4xf32>) -> (tensor<4x8xf32>, tensor<4x4xf32>, tensor<1x4xf32>) {
  // CHECK: %[[A:.*]] = graph.mul %arg0
  // CHECK: %[[B:.*]] = graph.mul %arg1
  // CHECK: graph.mat_mul %[[A]], %arg2
  // CHECK: graph.mat_mul %[[B]], %arg2
  %half = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %two = graph.constant {value = dense<2.0> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %0 = graph.mul %a, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = graph.mul %b, %two : (tensor<8xf32>, tensor<1x1xf32>) -> tensor<1x8xf32>
  %2 = graph.mat_mul %0, %k : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %3 = graph.mat_mul %1, %k : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  return %0, %2, %3 : tensor<4x8xf32>, tensor<4x4xf32>, tensor<1x4xf32>
}

// -----

// With a constant B, the hoisted scale then folds into B's weights.
// CHECK-LABEL: func @hoisted_scale_folds_into_weights
func.func @hoisted_scale_folds_into_weights(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // CHECK: %[[W:.*]] = graph.constant {value = dense<{{\[\[}}2.000000e+00, 4.000000e+00], [6.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>}
  // CHECK: %[[Y:.*]] = graph.mat_mul %arg0, %[[W]]
  // CHECK-NOT: graph.mul
  // CHECK: return %[[Y]]
  %two = graph.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %w = graph.constant {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %0 = graph.mul %x, %two : (tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xf32>
  %1 = graph.mat_mul %0, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// GPT-2's Conv1D: the Gemm's [B*S, N] result is reshaped to [B, S, N]
// before the GELU and the residual add. The reshape moves past both, the
// residual is read as a [B*S, N] view, and the per-column bias still
// broadcasts (it varies along the trailing dim both shapes share).
// CHECK-LABEL: func @sink_reshape_below_pointwise
// CHECK-SAME: (%[[X:[^:]*]]: tensor<8x16xf32> {{.*}}, %[[W:[^:]*]]: tensor<16x16xf32> {{.*}}, %[[R:[^:]*]]: tensor<2x4x16xf32> {{.*}}, %[[B:[^:]*]]: tensor<16xf32>
func.func @sink_reshape_below_pointwise(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>, %residual: tensor<2x4x16xf32>, %bias: tensor<16xf32>) -> tensor<2x4x16xf32> {
  // CHECK: %[[G:.*]] = graph.gemm %[[X]], %[[W]]
  // CHECK: %[[A:.*]] = graph.gelu %[[G]] : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: %[[RV:.*]] = graph.reshape %[[R]], %{{.*}} : (tensor<2x4x16xf32>, tensor<2xi64>) -> tensor<8x16xf32>
  // CHECK: %[[S:.*]] = graph.add %[[A]], %[[RV]] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: %[[T:.*]] = graph.add %[[S]], %[[B]] : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  // CHECK: %[[Y:.*]] = graph.reshape %[[T]], %{{.*}} : (tensor<8x16xf32>, tensor<3xi64>) -> tensor<2x4x16xf32>
  // CHECK: return %[[Y]]
  %shape = graph.constant {value = dense<[2, 4, 16]> : tensor<3xi64>} : () -> tensor<3xi64>
  %0 = graph.gemm %x, %w : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %1 = graph.reshape %0, %shape : (tensor<8x16xf32>, tensor<3xi64>) -> tensor<2x4x16xf32>
  %2 = graph.gelu %1 : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %3 = graph.add %2, %residual : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %4 = graph.add %3, %bias : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  return %4 : tensor<2x4x16xf32>
}

// -----

// Left in place: an operand varying along a dim the reshape splits, a
// reshape whose source has another user, and two reshaped operands.
// CHECK-LABEL: func @reshape_stays
func.func @reshape_stays(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>, %rows: tensor<4x1xf32>, %other: tensor<16x8xf32>) -> (tensor<2x4x16xf32>, tensor<8x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>) {
  // CHECK: %[[G:.*]] = graph.gemm
  // CHECK-NEXT: %[[V:.*]] = graph.reshape %[[G]]
  // CHECK-NEXT: graph.add %[[V]], %arg2
  // CHECK: %[[G2:.*]] = graph.gemm
  // CHECK-NEXT: %[[V2:.*]] = graph.reshape %[[G2]]
  // CHECK-NEXT: graph.relu %[[V2]]
  // CHECK: graph.relu %arg3
  // CHECK-NEXT: graph.reshape
  // CHECK-NEXT: graph.add
  %shape = graph.constant {value = dense<[2, 4, 16]> : tensor<3xi64>} : () -> tensor<3xi64>
  %0 = graph.gemm %x, %w : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %1 = graph.reshape %0, %shape : (tensor<8x16xf32>, tensor<3xi64>) -> tensor<2x4x16xf32>
  %2 = graph.add %1, %rows : (tensor<2x4x16xf32>, tensor<4x1xf32>) -> tensor<2x4x16xf32>
  %3 = graph.gemm %x, %w : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %4 = graph.reshape %3, %shape : (tensor<8x16xf32>, tensor<3xi64>) -> tensor<2x4x16xf32>
  %5 = graph.relu %4 : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %6 = graph.gemm %x, %w : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %7 = graph.reshape %6, %shape : (tensor<8x16xf32>, tensor<3xi64>) -> tensor<2x4x16xf32>
  %8 = graph.relu %other : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %9 = graph.reshape %8, %shape : (tensor<16x8xf32>, tensor<3xi64>) -> tensor<2x4x16xf32>
  %10 = graph.add %7, %9 : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %2, %3, %5, %10 : tensor<2x4x16xf32>, tensor<8x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
}
