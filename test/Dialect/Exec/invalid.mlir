// RUN: graphc-opt %s --split-input-file --verify-diagnostics

exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{copies 16 bytes into a slot of 8}}
  exec.copy <input, 0, 0, 16> to <output, 0, 0, 8>
}

// -----

// expected-error @+1 {{'exec.launch' op expects parent op 'exec.plan'}}
exec.launch @k []

// -----

exec.kernel @add_mul pointwise attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>):
  %0 = graph.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = graph.mul %0, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  kernel.yield %1 : tensor<4xf32>
}
exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // A dropped input: the launch must pass every input of the kernel.
  // expected-error @+1 {{passes 3 slots but kernel @add_mul takes 3 inputs and 1 outputs}}
  exec.launch @add_mul [#exec.slot<input, 0, 0, 16>, #exec.slot<input, 1, 0, 16>, #exec.slot<output, 0, 0, 16>]
}

// -----

// Scratch (flash-decoding's partials and counters) is for attention only.
exec.kernel @relu_scratch pointwise attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<4xf32>):
  %0 = graph.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  kernel.yield %0 : tensor<4xf32>
}
exec.plan @static attributes {arena_bytes = 512 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{passes scratch to @relu_scratch: only attention kernels take scratch (partials, counters)}}
  exec.launch @relu_scratch [#exec.slot<input, 0, 0, 16>, #exec.slot<output, 0, 0, 16>] {scratch = [#exec.slot<arena, 0, 256, 64>, #exec.slot<arena, 0, 0, 4>]}
}

// -----

exec.kernel @attention_scratch attention attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%q: tensor<1x1x1x16xf32>, %k: tensor<1x1x256x16xf32>, %v: tensor<1x1x256x16xf32>):
  %0 = graph.attention %q, %k, %v : (tensor<1x1x1x16xf32>, tensor<1x1x256x16xf32>, tensor<1x1x256x16xf32>) -> tensor<1x1x1x16xf32>
  kernel.yield %0 : tensor<1x1x1x16xf32>
}
exec.plan @static attributes {arena_bytes = 512 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{passes scratch outside the arena}}
  exec.launch @attention_scratch [#exec.slot<input, 0, 0, 64>, #exec.slot<input, 1, 0, 16384>, #exec.slot<input, 2, 0, 16384>, #exec.slot<output, 0, 0, 64>] {scratch = [#exec.slot<output, 0, 0, 64>, #exec.slot<arena, 0, 0, 4>]}
}

// -----

exec.kernel @relu pointwise attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<4xf32>):
  %0 = graph.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  kernel.yield %0 : tensor<4xf32>
}
exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{passes a slot of 8 bytes for input 0 of @relu, of type 'tensor<4xf32>' (16 bytes)}}
  exec.launch @relu [#exec.slot<input, 0, 0, 8>, #exec.slot<output, 0, 0, 16>]
}

// -----

exec.kernel @relu pointwise attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<4xf32>):
  %0 = graph.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  kernel.yield %0 : tensor<4xf32>
}
exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{passes no slot for input 0 of @relu}}
  exec.launch @relu [#exec.slot<none, 0, 0, 0>, #exec.slot<output, 0, 0, 16>]
}

// -----

exec.kernel @relu pointwise attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<4xf32>):
  %0 = graph.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  kernel.yield %0 : tensor<4xf32>
}
exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{writes output 0 of @relu into a read-only slot}}
  exec.launch @relu [#exec.slot<input, 0, 0, 16>, #exec.slot<weights, 0, 0, 16>]
}

// -----

exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{launches 'missing', which is not an exec.kernel}}
  exec.launch @missing []
}

// -----

// expected-error @+1 {{gemm leading dims are shorter than their rows}}
exec.kernel @short_lda matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>, library = #kernel.library<cublaslt>, gemm = #exec.gemm<trans_a = false, trans_b = false, m = 2, n = 3, k = 4, batch = 1, lda = 3, ldb = 3, ldc = 3, stride_a = 0, stride_b = 0, stride_c = 0, alpha = 1.0, beta = 0.0, epilogue = none, a = 0, b = 1, c = -1, bias = -1, d = 2>} {
^bb0(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>):
  %0 = graph.mat_mul %a, %b : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  kernel.yield %0 : tensor<2x3xf32>
}

// -----

// expected-error @+1 {{gemm reads C exactly when beta is not 0}}
exec.kernel @beta_without_c matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>, library = #kernel.library<cublaslt>, gemm = #exec.gemm<trans_a = false, trans_b = false, m = 2, n = 3, k = 4, batch = 1, lda = 4, ldb = 3, ldc = 3, stride_a = 0, stride_b = 0, stride_c = 0, alpha = 1.0, beta = 1.0, epilogue = none, a = 0, b = 1, c = -1, bias = -1, d = 2>} {
^bb0(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>):
  %0 = graph.mat_mul %a, %b : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  kernel.yield %0 : tensor<2x3xf32>
}

// -----

// expected-error @+1 {{sets library with what it computes: cublaslt with a gemm, cudnn with a conv or an sdpa, or none of them}}
exec.kernel @library_without_gemm matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>, library = #kernel.library<cublaslt>} {
^bb0(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>):
  %0 = graph.mat_mul %a, %b : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  kernel.yield %0 : tensor<2x3xf32>
}

// -----

// expected-error @+1 {{gemm names argument 5 of a kernel with 3}}
exec.kernel @bias_out_of_range matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>, library = #kernel.library<cublaslt>, gemm = #exec.gemm<trans_a = false, trans_b = false, m = 2, n = 3, k = 4, batch = 1, lda = 4, ldb = 3, ldc = 3, stride_a = 0, stride_b = 0, stride_c = 0, alpha = 1.0, beta = 0.0, epilogue = none, a = 0, b = 1, c = -1, bias = 5, d = 2>} {
^bb0(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>):
  %0 = graph.mat_mul %a, %b : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  kernel.yield %0 : tensor<2x3xf32>
}

// -----

exec.kernel @relu_kernel pointwise attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<4xf32>):
  %0 = graph.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  kernel.yield %0 : tensor<4xf32>
}
exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{calls @relu_kernel, which no library computes}}
  exec.library_call @relu_kernel [#exec.slot<input, 0, 0, 16>, #exec.slot<output, 0, 0, 16>] workspace <none, 0, 0, 0>
}

// -----

exec.kernel @gemm_kernel matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>, library = #kernel.library<cublaslt>, gemm = #exec.gemm<trans_a = false, trans_b = false, m = 2, n = 3, k = 4, batch = 1, lda = 4, ldb = 3, ldc = 3, stride_a = 0, stride_b = 0, stride_c = 0, alpha = 1.0, beta = 0.0, epilogue = none, a = 0, b = 1, c = -1, bias = -1, d = 2>} {
^bb0(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>):
  %0 = graph.mat_mul %a, %b : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  kernel.yield %0 : tensor<2x3xf32>
}
exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{launches library kernel @gemm_kernel: it is reached by exec.library_call}}
  exec.launch @gemm_kernel [#exec.slot<input, 0, 0, 32>, #exec.slot<input, 1, 0, 48>, #exec.slot<output, 0, 0, 24>]
}

// -----

exec.kernel @gemm_kernel matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>, library = #kernel.library<cublaslt>, gemm = #exec.gemm<trans_a = false, trans_b = false, m = 2, n = 3, k = 4, batch = 1, lda = 4, ldb = 3, ldc = 3, stride_a = 0, stride_b = 0, stride_c = 0, alpha = 1.0, beta = 0.0, epilogue = none, a = 0, b = 1, c = -1, bias = -1, d = 2>} {
^bb0(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>):
  %0 = graph.mat_mul %a, %b : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  kernel.yield %0 : tensor<2x3xf32>
}
exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{needs an arena workspace, or none}}
  exec.library_call @gemm_kernel [#exec.slot<input, 0, 0, 32>, #exec.slot<input, 1, 0, 48>, #exec.slot<output, 0, 0, 24>] workspace <weights, 0, 0, 64>
}

// -----

// expected-error @+1 {{sets library with what it computes: cublaslt with a gemm, cudnn with a conv or an sdpa, or none of them}}
exec.kernel @cudnn_with_gemm matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>, library = #kernel.library<cudnn>, gemm = #exec.gemm<trans_a = false, trans_b = false, m = 2, n = 3, k = 4, batch = 1, lda = 4, ldb = 3, ldc = 3, stride_a = 0, stride_b = 0, stride_c = 0, alpha = 1.0, beta = 0.0, epilogue = none, a = 0, b = 1, c = -1, bias = -1, d = 2>} {
^bb0(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>):
  %0 = graph.mat_mul %a, %b : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  kernel.yield %0 : tensor<2x3xf32>
}

// -----

// expected-error @+1 {{conv spatial dim 1 of size 6 gives 5 outputs, not what its filter, pads, stride and dilation give}}
exec.kernel @conv_wrong_output conv attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>, library = #kernel.library<cudnn>, conv = #exec.conv<n = 1, c = 2, k = 4, groups = 1, in_size = [6, 6], filter_size = [3, 3], out_size = [6, 5], pads_begin = [1, 1], pads_end = [1, 1], strides = [1, 1], dilations = [1, 1], epilogue = none, x = 0, w = 1, bias = -1, z = -1, y = 2, channels_last = false>} {
^bb0(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>):
  %0 = graph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  kernel.yield %0 : tensor<1x4x6x6xf32>
}

// -----

// expected-error @+1 {{conv needs positive n, c and k, and groups dividing c and k}}
exec.kernel @conv_bad_groups conv attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>, library = #kernel.library<cudnn>, conv = #exec.conv<n = 1, c = 2, k = 4, groups = 3, in_size = [6], filter_size = [1], out_size = [6], pads_begin = [0], pads_end = [0], strides = [1], dilations = [1], epilogue = none, x = 0, w = 1, bias = -1, z = -1, y = 2, channels_last = false>} {
^bb0(%x: tensor<1x2x6xf32>, %w: tensor<4x2x1xf32>):
  %0 = graph.conv %x, %w : (tensor<1x2x6xf32>, tensor<4x2x1xf32>) -> tensor<1x4x6xf32>
  kernel.yield %0 : tensor<1x4x6xf32>
}

// -----

// expected-error @+1 {{conv names argument 4 of a kernel with 3}}
exec.kernel @conv_z_out_of_range conv attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>, library = #kernel.library<cudnn>, conv = #exec.conv<n = 1, c = 2, k = 4, groups = 1, in_size = [6], filter_size = [1], out_size = [6], pads_begin = [0], pads_end = [0], strides = [1], dilations = [1], epilogue = relu, x = 0, w = 1, bias = -1, z = 4, y = 2, channels_last = false>} {
^bb0(%x: tensor<1x2x6xf32>, %w: tensor<4x2x1xf32>):
  %0 = graph.conv %x, %w : (tensor<1x2x6xf32>, tensor<4x2x1xf32>) -> tensor<1x4x6xf32>
  kernel.yield %0 : tensor<1x4x6xf32>
}

// -----

// expected-error @+1 {{sdpa needs positive sizes and kv_heads dividing heads}}
exec.kernel @sdpa_ungrouped attention attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>, library = #kernel.library<cudnn>, sdpa = #exec.sdpa<batch = 1, heads = 2, kv_heads = 3, queries = 4, keys = 4, head_dim = 8, value_dim = 8, scale = 0.5, is_causal = false, q = 0, k = 0, v = 0, bias = -1, o = 1, q_offset = 0, k_offset = 0, v_offset = 0, o_offset = 0, bias_offset = 0, q_strides = [64, 32, 8, 1], k_strides = [64, 32, 8, 1], v_strides = [64, 32, 8, 1], o_strides = [64, 32, 8, 1], bias_dims = [1, 1, 1, 1], bias_strides = [0, 0, 0, 0]>} {
^bb0(%q: tensor<1x2x4x8xf16>):
  %0 = graph.attention %q, %q, %q : (tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>) -> tensor<1x2x4x8xf16>
  kernel.yield %0 : tensor<1x2x4x8xf16>
}

// -----

// expected-error @+1 {{sdpa tensors need a unit innermost stride}}
exec.kernel @sdpa_strided attention attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>, library = #kernel.library<cudnn>, sdpa = #exec.sdpa<batch = 1, heads = 2, kv_heads = 2, queries = 4, keys = 4, head_dim = 8, value_dim = 8, scale = 0.5, is_causal = false, q = 0, k = 0, v = 0, bias = -1, o = 1, q_offset = 0, k_offset = 0, v_offset = 0, o_offset = 0, bias_offset = 0, q_strides = [64, 32, 8, 2], k_strides = [64, 32, 8, 1], v_strides = [64, 32, 8, 1], o_strides = [64, 32, 8, 1], bias_dims = [1, 1, 1, 1], bias_strides = [0, 0, 0, 0]>} {
^bb0(%q: tensor<1x2x4x8xf16>):
  %0 = graph.attention %q, %q, %q : (tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>) -> tensor<1x2x4x8xf16>
  kernel.yield %0 : tensor<1x2x4x8xf16>
}

// -----

// expected-error @+1 {{computes at most one of a gemm, a conv and an sdpa}}
exec.kernel @sdpa_and_conv attention attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>, library = #kernel.library<cudnn>, conv = #exec.conv<n = 1, c = 2, k = 4, groups = 1, in_size = [6], filter_size = [1], out_size = [6], pads_begin = [0], pads_end = [0], strides = [1], dilations = [1], epilogue = none, x = 0, w = 0, bias = -1, z = -1, y = 1, channels_last = false>, sdpa = #exec.sdpa<batch = 1, heads = 2, kv_heads = 2, queries = 4, keys = 4, head_dim = 8, value_dim = 8, scale = 0.5, is_causal = false, q = 0, k = 0, v = 0, bias = -1, o = 1, q_offset = 0, k_offset = 0, v_offset = 0, o_offset = 0, bias_offset = 0, q_strides = [64, 32, 8, 1], k_strides = [64, 32, 8, 1], v_strides = [64, 32, 8, 1], o_strides = [64, 32, 8, 1], bias_dims = [1, 1, 1, 1], bias_strides = [0, 0, 0, 0]>} {
^bb0(%q: tensor<1x2x4x8xf16>):
  %0 = graph.attention %q, %q, %q : (tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>) -> tensor<1x2x4x8xf16>
  kernel.yield %0 : tensor<1x2x4x8xf16>
}

// -----

// Step results: one per kernel output, in its argument, of its type.
exec.kernel @relu_results pointwise attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<4xf32>):
  %0 = graph.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  kernel.yield %0 : tensor<4xf32>
}
exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{lists result 0 as argument 0 of type 'tensor<4xf32>', not argument 1 of type 'tensor<4xf32>'}}
  exec.launch @relu_results [#exec.slot<input, 0, 0, 16>, #exec.slot<output, 0, 0, 16>] results [#exec.result<0, tensor<4xf32>, "x">]
}

// -----

exec.kernel @relu_results pointwise attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<4xf32>):
  %0 = graph.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  kernel.yield %0 : tensor<4xf32>
}
exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{lists result 0 as argument 1 of type 'tensor<2xf64>', not argument 1 of type 'tensor<4xf32>'}}
  exec.launch @relu_results [#exec.slot<input, 0, 0, 16>, #exec.slot<output, 0, 0, 16>] results [#exec.result<1, tensor<2xf64>, "y">]
}

// -----

exec.kernel @relu_results pointwise attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<4xf32>):
  %0 = graph.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  kernel.yield %0 : tensor<4xf32>
}
exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{lists 2 results but kernel @relu_results has 1 outputs}}
  exec.launch @relu_results [#exec.slot<input, 0, 0, 16>, #exec.slot<output, 0, 0, 16>] results [#exec.result<1, tensor<4xf32>, "y">, #exec.result<2, tensor<4xf32>, "z">]
}

// -----

exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{has one result, its target (argument 1)}}
  exec.copy <input, 0, 0, 16> to <output, 0, 0, 16> results [#exec.result<0, tensor<4xf32>, "x">]
}

// -----

exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{says its target holds 'tensor<8xf32>' (32 bytes), in a slot of 16}}
  exec.copy <input, 0, 0, 16> to <output, 0, 0, 16> results [#exec.result<1, tensor<8xf32>, "x">]
}

// -----

exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{step result needs a static type, not 'tensor<?xf32>'}}
  exec.copy <input, 0, 0, 16> to <output, 0, 0, 16> results [#exec.result<1, tensor<?xf32>, "x">]
}

// -----

// graphc-plan-memory's annotations are typed: a slot per result.
func.func @slots_not_slots(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{needs one #exec.slot per result in 'exec.slots'}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {exec.slots = [1 : i64], hash = "0123456789abcdef", schedule = #kernel.schedule<>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @slots_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{needs one #exec.slot per result in 'exec.slots'}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {exec.slots = [#exec.slot<arena, 0, 0, 16>, #exec.slot<arena, 0, 256, 16>], hash = "0123456789abcdef", schedule = #kernel.schedule<>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{needs a non-negative i64 in 'exec.arena_bytes'}}
func.func @negative_arena(%a: tensor<4xf32>) -> tensor<4xf32> attributes {exec.arena_bytes = -256 : i64} {
  return %a : tensor<4xf32>
}
