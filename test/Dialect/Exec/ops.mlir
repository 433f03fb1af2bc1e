// RUN: graphc-opt %s | graphc-opt | FileCheck %s

// CHECK: exec.io {dims = ["batch"], index = 0 : i64, is_output = false, name = "x", type = tensor<4xf32>}
exec.io {dims = ["batch"], index = 0 : i64, is_output = false, name = "x", type = tensor<4xf32>}
exec.io {dims = ["batch"], index = 0 : i64, is_output = true, name = "y", type = tensor<4xf32>}
// CHECK: exec.weight @w0 offset 0 {value = dense<1.000000e+00> : tensor<4xf32>}
exec.weight @w0 offset 0 {value = dense<1.0> : tensor<4xf32>}
// CHECK: exec.kernel @add_0 pointwise attributes {hash = "0123456789abcdef", onnx_nodes = ["node"], schedule = #kernel.schedule<>}
exec.kernel @add_0 pointwise attributes {hash = "0123456789abcdef", onnx_nodes = ["node"], schedule = #kernel.schedule<>} {
^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
  %s = graph.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  kernel.yield %s : tensor<4xf32>
}
// The cost model's figures survive a round trip (a kernel carries no
// launch: CUDA codegen computes it, see `graphc compile --emit launches`).
// CHECK: exec.kernel @relu_1 pointwise attributes {bytes_read = 16 : i64, bytes_written = 16 : i64, flop_type = f32, flops = 4 : i64, hash = "0123456789abcdef", onnx_nodes = [], schedule = #kernel.schedule<>}
exec.kernel @relu_1 pointwise attributes {bytes_read = 16 : i64, bytes_written = 16 : i64, flop_type = f32, flops = 4 : i64, hash = "0123456789abcdef", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%x: tensor<4xf32>):
  %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  kernel.yield %r : tensor<4xf32>
}
// CHECK: exec.plan @static attributes {arena_bytes = 0 : i64
exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [tensor<4xf32>], intermediate_bytes = 0 : i64, output_types = [tensor<4xf32>]} {
  // CHECK: exec.launch @add_0 [#exec.slot<input, 0, 0, 16>, #exec.slot<weights, 0, 0, 16>, #exec.slot<output, 0, 0, 16>]
  exec.launch @add_0 [#exec.slot<input, 0, 0, 16>, #exec.slot<weights, 0, 0, 16>, #exec.slot<output, 0, 0, 16>]
  // CHECK: exec.copy <input, 0, 0, 16> to <output, 0, 0, 16>
  exec.copy <input, 0, 0, 16> to <output, 0, 0, 16>
}

// What steps write that a tool may compare, and the ONNX tensor each holds.
// CHECK-LABEL: exec.plan @probed
exec.plan @probed attributes {arena_bytes = 0 : i64, input_types = [tensor<4xf32>], intermediate_bytes = 0 : i64, output_types = [tensor<4xf32>]} {
  // CHECK: exec.launch @add_0 [#exec.slot<input, 0, 0, 16>, #exec.slot<weights, 0, 0, 16>, #exec.slot<output, 0, 0, 16>] results [#exec.result<2, tensor<4xf32>, "sum">]
  exec.launch @add_0 [#exec.slot<input, 0, 0, 16>, #exec.slot<weights, 0, 0, 16>, #exec.slot<output, 0, 0, 16>] results [#exec.result<2, tensor<4xf32>, "sum">]
  // CHECK: exec.copy <input, 0, 0, 16> to <output, 0, 0, 16> results [#exec.result<1, tensor<2x2xf32>, "">]
  exec.copy <input, 0, 0, 16> to <output, 0, 0, 16> results [#exec.result<1, tensor<2x2xf32>, "">]
}

// A library kernel and its call: the gemm record and the workspace slot
// survive a round trip.
// CHECK-LABEL: exec.kernel @linear
// CHECK-SAME: gemm = #exec.gemm<trans_a = false, trans_b = true, m = 2, n = 3, k = 4, batch = 1, lda = 4, ldb = 4, ldc = 3, stride_a = 0, stride_b = 0, stride_c = 0, alpha = 5.000000e-01, beta = 0.000000e+00, epilogue = relu, a = 0, b = 1, c = -1, bias = 2, d = 3>
// CHECK-SAME: library = #kernel.library<cublaslt>
exec.kernel @linear matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<workspace_bytes = 256>, library = #kernel.library<cublaslt>, gemm = #exec.gemm<trans_a = false, trans_b = true, m = 2, n = 3, k = 4, batch = 1, lda = 4, ldb = 4, ldc = 3, stride_a = 0, stride_b = 0, stride_c = 0, alpha = 0.5, beta = 0.0, epilogue = relu, a = 0, b = 1, c = -1, bias = 2, d = 3>} {
^bb0(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %bias: tensor<3xf32>):
  %0 = graph.gemm %a, %b, %bias {alpha = 0.5 : f32, transB = 1 : i64} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = graph.relu %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  kernel.yield %1 : tensor<2x3xf32>
}
// CHECK-LABEL: exec.plan @linear_plan
// CHECK: exec.library_call @linear [#exec.slot<input, 0, 0, 32>, #exec.slot<weights, 0, 0, 48>, #exec.slot<weights, 0, 256, 12>, #exec.slot<output, 0, 0, 24>] workspace <arena, 0, 0, 256>
exec.plan @linear_plan attributes {arena_bytes = 256 : i64, input_types = [tensor<2x4xf32>], intermediate_bytes = 256 : i64, output_types = [tensor<2x3xf32>]} {
  exec.library_call @linear [#exec.slot<input, 0, 0, 32>, #exec.slot<weights, 0, 0, 48>, #exec.slot<weights, 0, 256, 12>, #exec.slot<output, 0, 0, 24>] workspace <arena, 0, 0, 256>
}

// A cuDNN attention: the sdpa record survives a round trip.
// CHECK-LABEL: exec.kernel @sdpa
// CHECK-SAME: sdpa = #exec.sdpa<batch = 1, heads = 2, kv_heads = 1, queries = 4, keys = 4, head_dim = 8, value_dim = 8, scale = 5.000000e-01, is_causal = true, q = 0, k = 1, v = 2, bias = -1, o = 3, q_offset = 0, k_offset = 0, v_offset = 0, o_offset = 0, bias_offset = 0, q_strides = [64, 32, 8, 1], k_strides = [32, 32, 8, 1], v_strides = [32, 32, 8, 1], o_strides = [64, 32, 8, 1], bias_dims = [1, 1, 1, 1], bias_strides = [0, 0, 0, 0]>
exec.kernel @sdpa attention attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<workspace_bytes = 256>, library = #kernel.library<cudnn>, sdpa = #exec.sdpa<batch = 1, heads = 2, kv_heads = 1, queries = 4, keys = 4, head_dim = 8, value_dim = 8, scale = 0.5, is_causal = true, q = 0, k = 1, v = 2, bias = -1, o = 3, q_offset = 0, k_offset = 0, v_offset = 0, o_offset = 0, bias_offset = 0, q_strides = [64, 32, 8, 1], k_strides = [32, 32, 8, 1], v_strides = [32, 32, 8, 1], o_strides = [64, 32, 8, 1], bias_dims = [1, 1, 1, 1], bias_strides = [0, 0, 0, 0]>} {
^bb0(%q: tensor<1x2x4x8xf16>, %k: tensor<1x1x4x8xf16>, %v: tensor<1x1x4x8xf16>):
  %0 = graph.attention %q, %k, %v {scale = 0.5 : f64, is_causal = 1 : i64} : (tensor<1x2x4x8xf16>, tensor<1x1x4x8xf16>, tensor<1x1x4x8xf16>) -> tensor<1x2x4x8xf16>
  kernel.yield %0 : tensor<1x2x4x8xf16>
}

// A cuDNN kernel: the conv record survives a round trip.
// CHECK-LABEL: exec.kernel @conv_relu
// CHECK-SAME: conv = #exec.conv<n = 1, c = 2, k = 4, groups = 2, in_size = [6, 6], filter_size = [3, 3], out_size = [3, 3], pads_begin = [1, 1], pads_end = [0, 0], strides = [2, 2], dilations = [1, 1], epilogue = relu, x = 0, w = 1, bias = 2, z = -1, y = 3, channels_last = false>
// CHECK-SAME: library = #kernel.library<cudnn>
exec.kernel @conv_relu conv attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<workspace_bytes = 256>, library = #kernel.library<cudnn>, conv = #exec.conv<n = 1, c = 2, k = 4, groups = 2, in_size = [6, 6], filter_size = [3, 3], out_size = [3, 3], pads_begin = [1, 1], pads_end = [0, 0], strides = [2, 2], dilations = [1, 1], epilogue = relu, x = 0, w = 1, bias = 2, z = -1, y = 3, channels_last = false>} {
^bb0(%x: tensor<1x2x6x6xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<4xf32>):
  %0 = graph.conv %x, %w, %b {group = 2 : i64, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %1 = graph.relu %0 : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  kernel.yield %1 : tensor<1x4x3x3xf32>
}
