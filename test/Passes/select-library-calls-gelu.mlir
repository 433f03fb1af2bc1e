// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-select-library-calls="workspace-bytes=1024 cudnn-gelu=true" --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s
// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-select-library-calls=cudnn-gelu=true --graphc-plan-memory --graphc-lower-to-exec | FileCheck %s --check-prefix=EXEC
// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-select-library-calls="cudnn=false cudnn-gelu=true" | FileCheck %s --check-prefix=NOCUDNN
// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-select-library-calls | FileCheck %s --check-prefix=DEFAULT

// The convolution is opt-in (cudnn-gelu): by default FFN1 stays a cuBLASLt
// GEMM with its bias and a GELU kernel, which an H200 ran faster.
// DEFAULT-LABEL: func.func @ffn1
// DEFAULT-NOT: graph.conv
// DEFAULT: kernel.fusion "mat_mul_add_0" matmul{{.*}}library = #kernel.library<cublaslt>
// DEFAULT: kernel.fusion "gelu_0" pointwise

// BERT's FFN1 in float16: a Linear by a constant weight, its bias and the
// erf GELU. cuBLASLt fuses only the tanh GELU, so the GEMM is a cuDNN 1x1
// convolution with GELU_FWD fused, channels last: X [6, 1, 1, 4] and Y
// [6, 1, 1, 8] are views of the activation [2, 3, 4] and the result
// [2, 3, 8], W [8, 1, 1, 4] the weight [4, 8] transposed at compile time
// (which replaces it). The call keeps the ONNX node names.
// CHECK-LABEL: func.func @ffn1
// CHECK-NOT: : tensor<4x8xf16>}
// CHECK: %[[X:.*]] = graph.reshape %arg0, %{{.*}} : (tensor<2x3x4xf16>, tensor<4xi64>) -> tensor<6x1x1x4xf16>
// CHECK: %[[W:.*]] = graph.constant {value = dense<{{\[\[\[\[}}0.000000e+00, 8.000000e+00, 1.600000e+01, 2.400000e+01]]], {{\[\[\[}}1.000000e+00, 9.000000e+00, {{.*}} : tensor<8x1x1x4xf16>
// CHECK: %[[CALL:.*]] = kernel.fusion "conv_gelu_0" conv(%[[X]], %[[W]], %{{.*}}) {{.*}}library = #kernel.library<cudnn>, schedule = #kernel.schedule<workspace_bytes = 1024>
// CHECK: graph.conv %{{[^{]*}} {channels_last = 1 : i64} : (tensor<6x1x1x4xf16>, tensor<8x1x1x4xf16>, tensor<8xf16>) -> tensor<6x1x1x8xf16> loc(fused["ffn1.matmul", "ffn1.add"])
// CHECK-NEXT: graph.gelu {{.*}} -> tensor<6x1x1x8xf16> loc("ffn1.gelu")
// CHECK: %[[Y:.*]] = graph.reshape %[[CALL]], %{{.*}} : (tensor<6x1x1x8xf16>, tensor<3xi64>) -> tensor<2x3x8xf16>
// CHECK-NOT: kernel.fusion
// CHECK: return %[[Y]]
// EXEC-LABEL: exec.kernel @conv_gelu_{{[0-9a-f]+}} conv
// EXEC-SAME: conv = #exec.conv<n = 6, c = 4, k = 8, groups = 1, in_size = [1, 1], filter_size = [1, 1], out_size = [1, 1], pads_begin = [0, 0], pads_end = [0, 0], strides = [1, 1], dilations = [1, 1], epilogue = gelu_erf, x = 0, w = 1, bias = 2, z = -1, y = 3, channels_last = true>
// EXEC-SAME: library = #kernel.library<cudnn>
// The views cost nothing: the call reads the input and writes the output
// in place, and it is the plan's only step.
// EXEC: exec.library_call @conv_gelu_{{[0-9a-f]+}} [#exec.slot<input, 0, 0, 48>, #exec.slot<weights, {{.*}}>, #exec.slot<weights, {{.*}}>, #exec.slot<output, 0, 0, 96>]
// EXEC-NEXT: }
// NOCUDNN-LABEL: func.func @ffn1
// NOCUDNN: kernel.fusion "mat_mul_add_0" matmul{{.*}}library = #kernel.library<cublaslt>
// NOCUDNN: kernel.fusion "gelu_0" pointwise
func.func @ffn1(%x: tensor<2x3x4xf16>) -> tensor<2x3x8xf16> {
  %w = graph.constant {value = dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0], [24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]]> : tensor<4x8xf16>} : () -> tensor<4x8xf16>
  %b = graph.constant {value = dense<0.5> : tensor<8xf16>} : () -> tensor<8xf16>
  %0 = graph.mat_mul %x, %w : (tensor<2x3x4xf16>, tensor<4x8xf16>) -> tensor<2x3x8xf16> loc("ffn1.matmul")
  %1 = graph.add %0, %b : (tensor<2x3x8xf16>, tensor<8xf16>) -> tensor<2x3x8xf16> loc("ffn1.add")
  %2 = graph.gelu %1 : (tensor<2x3x8xf16>) -> tensor<2x3x8xf16> loc("ffn1.gelu")
  return %2 : tensor<2x3x8xf16>
}

// -----

// f16: channels last, the same bytes ([6, 1, 1, 4], W [8, 1, 1, 4]); a
// residual add before the GELU is cuDNN's Z, a view [6, 1, 1, 8] of it; a
// gemm with transB reads its weight [N, K] as W already; what follows the
// GELU (a multiply) is a pointwise kernel reading the view of the result.
// CHECK-LABEL: func.func @residual_f16
// CHECK: %[[X:.*]] = graph.reshape %arg0, %{{.*}} -> tensor<6x1x1x4xf16>
// CHECK: %[[W:.*]] = graph.constant {value = dense<{{.*}}> : tensor<8x1x1x4xf16>}
// CHECK: %[[Z:.*]] = graph.reshape %arg1, %{{.*}} -> tensor<6x1x1x8xf16>
// CHECK: %[[CALL:.*]] = kernel.fusion "conv_add_gelu_0" conv(%[[X]], %[[W]], %{{.*}}, %[[Z]]) {{.*}}library = #kernel.library<cudnn>
// CHECK: graph.conv {{.*}} {channels_last = 1 : i64} : (tensor<6x1x1x4xf16>, tensor<8x1x1x4xf16>, tensor<8xf16>) -> tensor<6x1x1x8xf16> loc("fc.gemm")
// CHECK-NEXT: graph.add {{.*}} loc("fc.residual")
// CHECK-NEXT: graph.gelu
// CHECK: %[[Y:.*]] = graph.reshape %[[CALL]], %{{.*}} -> tensor<6x8xf16>
// CHECK: kernel.fusion "mul_0" pointwise(%[[Y]], %arg1)
// EXEC-LABEL: exec.kernel @conv_add_gelu_{{[0-9a-f]+}} conv
// EXEC-SAME: n = 6, c = 4, k = 8,
// EXEC-SAME: epilogue = gelu_erf, x = 0, w = 1, bias = 2, z = 3, y = 4, channels_last = true>
// EXEC: exec.library_call @conv_add_gelu_
// EXEC-NEXT: exec.launch @mul_
func.func @residual_f16(%x: tensor<6x4xf16>, %r: tensor<6x8xf16>) -> tensor<6x8xf16> {
  %w = graph.constant {value = dense<0.25> : tensor<8x4xf16>} : () -> tensor<8x4xf16>
  %b = graph.constant {value = dense<1.0> : tensor<8xf16>} : () -> tensor<8xf16>
  %0 = graph.gemm %x, %w, %b {transB = 1 : i64} : (tensor<6x4xf16>, tensor<8x4xf16>, tensor<8xf16>) -> tensor<6x8xf16> loc("fc.gemm")
  %1 = graph.add %r, %0 : (tensor<6x8xf16>, tensor<6x8xf16>) -> tensor<6x8xf16> loc("fc.residual")
  %2 = graph.gelu %1 : (tensor<6x8xf16>) -> tensor<6x8xf16> loc("fc.gelu")
  %3 = graph.mul %2, %r : (tensor<6x8xf16>, tensor<6x8xf16>) -> tensor<6x8xf16>
  return %3 : tensor<6x8xf16>
}

// -----

// What stays a cuBLASLt GEMM and a GELU kernel: a weight that is no
// constant, the tanh GELU (a cuBLASLt epilogue), a GEMM whose result
// something else reads too, a transposed A, and float32 (no cuDNN engine
// fuses it exactly, and the tf32 one computed it wrong).
// CHECK-LABEL: func.func @not_converted
// CHECK-NOT: graph.conv
// CHECK: return
func.func @not_converted(%x: tensor<3x4xf16>, %v: tensor<4x8xf16>, %t: tensor<4x3xf16>, %x32: tensor<3x4xf32>) -> (tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf32>) {
  %w = graph.constant {value = dense<0.5> : tensor<4x8xf16>} : () -> tensor<4x8xf16>
  %0 = graph.mat_mul %x, %v : (tensor<3x4xf16>, tensor<4x8xf16>) -> tensor<3x8xf16>
  %1 = graph.gelu %0 : (tensor<3x8xf16>) -> tensor<3x8xf16>
  %2 = graph.mat_mul %x, %w : (tensor<3x4xf16>, tensor<4x8xf16>) -> tensor<3x8xf16>
  %3 = graph.gelu %2 {approximate = "tanh"} : (tensor<3x8xf16>) -> tensor<3x8xf16>
  %4 = graph.mat_mul %x, %w : (tensor<3x4xf16>, tensor<4x8xf16>) -> tensor<3x8xf16>
  %5 = graph.gelu %4 : (tensor<3x8xf16>) -> tensor<3x8xf16>
  %6 = graph.transpose %t {perm = array<i64: 1, 0>} : (tensor<4x3xf16>) -> tensor<3x4xf16>
  %7 = graph.mat_mul %6, %w : (tensor<3x4xf16>, tensor<4x8xf16>) -> tensor<3x8xf16>
  %8 = graph.gelu %7 : (tensor<3x8xf16>) -> tensor<3x8xf16>
  %w32 = graph.constant {value = dense<0.5> : tensor<4x8xf32>} : () -> tensor<4x8xf32>
  %9 = graph.mat_mul %x32, %w32 : (tensor<3x4xf32>, tensor<4x8xf32>) -> tensor<3x8xf32>
  %10 = graph.gelu %9 : (tensor<3x8xf32>) -> tensor<3x8xf32>
  return %1, %3, %4, %5, %8, %10 : tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf32>
}
