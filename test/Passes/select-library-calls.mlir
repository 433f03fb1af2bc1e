// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-select-library-calls=workspace-bytes=1024 | FileCheck %s
// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-select-library-calls --graphc-plan-memory --graphc-lower-to-exec | FileCheck %s --check-prefix=EXEC
// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-select-library-calls=workspace-bytes=1024 --graphc-plan-memory | FileCheck %s --check-prefix=PLAN

// The whole Linear + bias + ReLU is one library call.
// CHECK-LABEL: func.func @linear_relu
// CHECK: kernel.fusion "gemm_relu_0" matmul
// CHECK-SAME: library = #kernel.library<cublaslt>
// CHECK-SAME: schedule = #kernel.schedule<workspace_bytes = 1024>
// CHECK-NOT: kernel.fusion
// EXEC-LABEL: exec.kernel @gemm_relu_{{[0-9a-f]+}}
// EXEC-SAME: gemm = #exec.gemm<trans_a = false, trans_b = true, m = 4, n = 8, k = 32, batch = 1, lda = 32, ldb = 32, ldc = 8, stride_a = 0, stride_b = 0, stride_c = 0, alpha = 1.000000e+00, beta = 0.000000e+00, epilogue = relu, a = 0, b = 1, c = -1, bias = 2, d = 3>
// EXEC-SAME: library = #kernel.library<cublaslt>
// EXEC: exec.library_call @[[K_GEMM_RELU_0:gemm_relu_[0-9a-f]+]] [{{.*}}] workspace <arena, 0, 0, 33554432>
func.func @linear_relu(%x: tensor<4x32xf32>, %w: tensor<8x32xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = graph.gemm %x, %w, %b {transB = 1 : i64} : (tensor<4x32xf32>, tensor<8x32xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = graph.relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// A batched mat_mul with a bias and a residual add takes both into the
// call (bias per column, residual as C with beta 1); the erf GELU after
// them stays a generated pointwise kernel reading the call's result. One
// weight for every batch index of a dense A: the batch becomes rows (m = 6).
// CHECK-LABEL: func.func @bias_residual_gelu
// CHECK: %[[CALL:.*]] = kernel.fusion "mat_mul_add_0" matmul
// CHECK-SAME: library = #kernel.library<cublaslt>
// CHECK: graph.mat_mul
// CHECK-NEXT: graph.add
// CHECK-NEXT: graph.add
// CHECK-NEXT: kernel.yield
// CHECK: kernel.fusion "gelu_0" pointwise(%[[CALL]])
// CHECK-NOT: library
// CHECK: graph.gelu
// EXEC-LABEL: exec.kernel @mat_mul_add_{{[0-9a-f]+}}
// EXEC-SAME: gemm = #exec.gemm<trans_a = false, trans_b = false, m = 6, n = 8, k = 4, batch = 1, lda = 4, ldb = 8, ldc = 8, stride_a = 0, stride_b = 0, stride_c = 0, alpha = 1.000000e+00, beta = 1.000000e+00, epilogue = none, a = 0, b = 1, c = 3, bias = 2, d = 4>
// EXEC: exec.library_call @[[K_MAT_MUL_ADD_0:mat_mul_add_[0-9a-f]+]]
// EXEC-NEXT: exec.launch @[[K_GELU_0:gelu_[0-9a-f]+]]
func.func @bias_residual_gelu(%x: tensor<2x3x4xf32>, %w: tensor<4x8xf32>, %b: tensor<8xf32>, %r: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %0 = graph.mat_mul %x, %w : (tensor<2x3x4xf32>, tensor<4x8xf32>) -> tensor<2x3x8xf32>
  %1 = graph.add %0, %b : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %2 = graph.add %r, %1 : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %3 = graph.gelu %2 : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %3 : tensor<2x3x8xf32>
}

// -----

// The tanh GELU is a cuBLASLt epilogue; a transpose of the last two dims
// becomes a transpose flag.
// CHECK-LABEL: func.func @transposed_gelu_tanh
// CHECK: kernel.fusion "transpose_mat_mul_gelu_0" matmul
// CHECK-SAME: library = #kernel.library<cublaslt>
// CHECK-NOT: kernel.fusion
// EXEC-LABEL: exec.kernel @transpose_mat_mul_gelu_{{[0-9a-f]+}}
// EXEC-SAME: trans_a = false, trans_b = true, m = 5, n = 6, k = 4, batch = 2, lda = 4, ldb = 4, ldc = 6, stride_a = 20, stride_b = 24
// EXEC-SAME: epilogue = gelu_tanh, a = 1, b = 0, c = -1, bias = -1, d = 2>
func.func @transposed_gelu_tanh(%a: tensor<2x5x4xf32>, %b: tensor<2x6x4xf32>) -> tensor<2x5x6xf32> {
  %t = graph.transpose %b {perm = array<i64: 0, 2, 1>} : (tensor<2x6x4xf32>) -> tensor<2x4x6xf32>
  %0 = graph.mat_mul %a, %t : (tensor<2x5x4xf32>, tensor<2x4x6xf32>) -> tensor<2x5x6xf32>
  %1 = graph.gelu %0 {approximate = "tanh"} : (tensor<2x5x6xf32>) -> tensor<2x5x6xf32>
  return %1 : tensor<2x5x6xf32>
}

// -----

// The head split of attention (a transpose of the result) is no cuBLASLt
// layout: the GEMM is a call and the transpose a layout kernel after it.
// CHECK-LABEL: func.func @head_split
// CHECK: %[[CALL:.*]] = kernel.fusion "mat_mul_0" matmul
// CHECK-SAME: library = #kernel.library<cublaslt>
// CHECK: kernel.fusion "transpose_0" layout(%[[CALL]])
func.func @head_split(%x: tensor<2x3x2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2x2x3x4xf32> {
  %0 = graph.mat_mul %x, %w : (tensor<2x3x2x4xf32>, tensor<4x4xf32>) -> tensor<2x3x2x4xf32>
  %1 = graph.transpose %0 {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x3x2x4xf32>) -> tensor<2x2x3x4xf32>
  return %1 : tensor<2x2x3x4xf32>
}

// -----

// f16 and bf16 GEMMs are library calls too (cuBLASLt accumulates in f32),
// with their epilogue.
// CHECK-LABEL: func.func @sixteen_bit
// CHECK: kernel.fusion "mat_mul_add_relu_0" matmul{{.*}}library = #kernel.library<cublaslt>{{.*}} -> tensor<3x5xf16>
// CHECK: kernel.fusion "mat_mul_1" matmul{{.*}}library = #kernel.library<cublaslt>{{.*}} -> tensor<3x5xbf16>
func.func @sixteen_bit(%h: tensor<3x4xf16>, %i: tensor<4x5xf16>, %bias: tensor<5xf16>, %g: tensor<3x4xbf16>, %j: tensor<4x5xbf16>) -> (tensor<3x5xf16>, tensor<3x5xbf16>) {
  %0 = graph.mat_mul %h, %i : (tensor<3x4xf16>, tensor<4x5xf16>) -> tensor<3x5xf16>
  %1 = graph.add %0, %bias : (tensor<3x5xf16>, tensor<5xf16>) -> tensor<3x5xf16>
  %2 = graph.relu %1 : (tensor<3x5xf16>) -> tensor<3x5xf16>
  %3 = graph.mat_mul %g, %j : (tensor<3x4xbf16>, tensor<4x5xbf16>) -> tensor<3x5xbf16>
  return %2, %3 : tensor<3x5xf16>, tensor<3x5xbf16>
}

// -----

// What no library GEMM computes stays a generated kernel: a transpose
// that moves a batch dim, batch dims broadcast in part, f64, and
// a gemm whose C is one value per row.
// CHECK-LABEL: func.func @not_library
// CHECK-NOT: library
// CHECK: return
func.func @not_library(%a: tensor<3x2x4xf32>, %b: tensor<2x4x5xf32>, %c: tensor<2x1x3x4xf32>, %d: tensor<3x4x5xf32>, %h: tensor<3x4xf64>, %i: tensor<4x5xf64>, %x: tensor<3x4xf32>, %w: tensor<4x5xf32>, %r: tensor<3x1xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x3x5xf32>, tensor<3x5xf64>, tensor<3x5xf32>) {
  %t = graph.transpose %a {perm = array<i64: 1, 0, 2>} : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  %0 = graph.mat_mul %t, %b : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %1 = graph.mat_mul %c, %d : (tensor<2x1x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x3x5xf32>
  %2 = graph.mat_mul %h, %i : (tensor<3x4xf64>, tensor<4x5xf64>) -> tensor<3x5xf64>
  %3 = graph.gemm %x, %w, %r : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
  return %0, %1, %2, %3 : tensor<2x3x5xf32>, tensor<2x3x3x5xf32>, tensor<3x5xf64>, tensor<3x5xf32>
}

// -----

// Each call's workspace lives for its own step: both calls share one, and
// the intermediate between them goes beside it. Workspaces count in the
// liveness bound, not in the intermediates.
// PLAN-LABEL: func.func @two_calls
// PLAN-SAME: exec.arena_bytes = 1280 : i64, exec.intermediate_bytes = 256 : i64, exec.live_bytes_bound = 1280 : i64
// PLAN: "mat_mul_0"{{.*}}exec.slots = [#exec.slot<arena, 0, 1024, 128>], exec.workspace = #exec.slot<arena, 0, 0, 1024>
// PLAN: "mat_mul_1"{{.*}}exec.slots = [#exec.slot<output, 0, 0, 64>], exec.workspace = #exec.slot<arena, 0, 0, 1024>
func.func @two_calls(%x: tensor<4x16xf32>, %w1: tensor<16x8xf32>, %w2: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %0 = graph.mat_mul %x, %w1 : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = graph.mat_mul %0, %w2 : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}
