// RUN: graphc-opt %s --graphc-estimate-kernel-cost | FileCheck %s

// Bytes: each used input read once, each output written once. Flops: two
// per multiply-add (2*M*N*K), plus one per element for the bias and the relu.
// CHECK-LABEL: exec.kernel @gemm_bias_relu
// CHECK-SAME: bytes_read = 1568 : i64, bytes_written = 128 : i64, flop_type = f32, flops = 2112 : i64
exec.kernel @gemm_bias_relu matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%x: tensor<4x32xf32>, %w: tensor<8x32xf32>, %b: tensor<8xf32>):
  %0 = graph.gemm %x, %w, %b {transB = 1 : i64} : (tensor<4x32xf32>, tensor<8x32xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = graph.relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  kernel.yield %1 : tensor<4x8xf32>
}

// Batched: 2 * (2*3*5 outputs) * 4, plus one per element for the cast; the
// arithmetic runs in the matmul's f16.
// CHECK-LABEL: exec.kernel @batched_matmul
// CHECK-SAME: bytes_read = 128 : i64, bytes_written = 120 : i64, flop_type = f16, flops = 270 : i64
exec.kernel @batched_matmul matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<2x3x4xf16>, %b: tensor<2x4x5xf16>):
  %0 = graph.mat_mul %a, %b : (tensor<2x3x4xf16>, tensor<2x4x5xf16>) -> tensor<2x3x5xf16>
  %1 = graph.cast %0 {to = f32} : (tensor<2x3x5xf16>) -> tensor<2x3x5xf32>
  kernel.yield %1 : tensor<2x3x5xf32>
}

// W is [M, C/group, kh, kw]: 2 * (1*8*4*4 outputs) * (2*3*3) + the bias.
// CHECK-LABEL: exec.kernel @grouped_conv
// CHECK-SAME: flops = 4736 : i64
exec.kernel @grouped_conv conv attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%x: tensor<1x4x4x4xf32>, %w: tensor<8x2x3x3xf32>, %b: tensor<8xf32>):
  %0 = graph.conv %x, %w, %b {group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x4xf32>, tensor<8x2x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  kernel.yield %0 : tensor<1x8x4x4xf32>
}

// A quantized product multiplies its 8-bit operands: 2 * (4*8) * 32, plus
// the cast and the scale per element; the flop type is the operands'.
// CHECK-LABEL: exec.kernel @quantized_matmul_dequantize
// CHECK-SAME: bytes_read = 416 : i64, bytes_written = 128 : i64, flop_type = i8, flops = 2112 : i64
exec.kernel @quantized_matmul_dequantize matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<4x32xi8>, %b: tensor<8x32xi8>, %s: tensor<8xf32>):
  %0 = graph.quantized_mat_mul %a, %b {trans_b = 1 : i64} : (tensor<4x32xi8>, tensor<8x32xi8>) -> tensor<4x8xi32>
  %1 = graph.cast %0 {to = f32} : (tensor<4x8xi32>) -> tensor<4x8xf32>
  %2 = graph.mul %1, %s : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  kernel.yield %2 : tensor<4x8xf32>
}

// Channels last, W [M, kh, kw, C/group]: 2 * (1*4*4*8 outputs) * (3*3*2).
// CHECK-LABEL: exec.kernel @quantized_conv_channels_last
// CHECK-SAME: flop_type = ui8, flops = 4608 : i64
exec.kernel @quantized_conv_channels_last conv attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%x: tensor<1x4x4x4xui8>, %w: tensor<8x3x3x2xi8>):
  %0 = graph.quantized_conv %x, %w {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, channels_last = 1 : i64} : (tensor<1x4x4x4xui8>, tensor<8x3x3x2xi8>) -> tensor<1x4x4x8xi32>
  kernel.yield %0 : tensor<1x4x4x8xi32>
}

// bij,bjk->bik sums j (size 3): 2 * (2*4*5) * 3.
// CHECK-LABEL: exec.kernel @einsum
// CHECK-SAME: flops = 240 : i64
exec.kernel @einsum matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<2x4x3xf32>, %b: tensor<2x3x5xf32>):
  %0 = graph.einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<2x4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
  kernel.yield %0 : tensor<2x4x5xf32>
}

// A softmax costs five per element; a transpose moves bytes and computes nothing.
// CHECK-LABEL: exec.kernel @softmax
// CHECK-SAME: bytes_read = 64 : i64, bytes_written = 64 : i64, flop_type = f32, flops = 80 : i64
exec.kernel @softmax reduction attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%x: tensor<4x4xf32>):
  %0 = graph.softmax %x {axis = -1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  kernel.yield %0 : tensor<4x4xf32>
}
// CHECK-LABEL: exec.kernel @transpose
// CHECK-SAME: bytes_read = 24 : i64, bytes_written = 24 : i64, flop_type = f32, flops = 0 : i64
exec.kernel @transpose layout attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%x: tensor<2x3xf32>):
  %0 = graph.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  kernel.yield %0 : tensor<3x2xf32>
}

// An input whose value the body holds as a constant is passed, not read.
// CHECK-LABEL: exec.kernel @scale
// CHECK-SAME: bytes_read = 16 : i64, bytes_written = 16 : i64, flop_type = f32, flops = 4 : i64
exec.kernel @scale pointwise attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%x: tensor<4xf32>, %s: tensor<f32>):
  %c = graph.constant {exec.argument = 1 : i64, value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %0 = graph.mul %x, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  kernel.yield %0 : tensor<4xf32>
}

// Attention: per score 2*D + 2*Dv multiply-add flops and 5 for the scale,
// mask, max, exp and sum: 1*2*4*6 scores * (16 + 16 + 5) = 1776. The
// scores never reach memory: bytes are Q, K, V in and the result out.
// CHECK-LABEL: exec.kernel @attention
// CHECK-SAME: bytes_read = 640 : i64, bytes_written = 256 : i64, flop_type = f32, flops = 1776 : i64
exec.kernel @attention attention attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%q: tensor<1x2x4x8xf32>, %k: tensor<1x1x6x8xf32>, %v: tensor<1x1x6x8xf32>):
  %0 = graph.attention %q, %k, %v : (tensor<1x2x4x8xf32>, tensor<1x1x6x8xf32>, tensor<1x1x6x8xf32>) -> tensor<1x2x4x8xf32>
  kernel.yield %0 : tensor<1x2x4x8xf32>
}

// Causal: row i scores keys 0..i only, 1+2+3+4 = 10 per head: 20 scores.
// CHECK-LABEL: exec.kernel @causal_attention
// CHECK-SAME: flops = 740 : i64
exec.kernel @causal_attention attention attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%q: tensor<1x2x4x8xf32>, %k: tensor<1x1x6x8xf32>, %v: tensor<1x1x6x8xf32>):
  %0 = graph.attention %q, %k, %v {is_causal = 1 : i64} : (tensor<1x2x4x8xf32>, tensor<1x1x6x8xf32>, tensor<1x1x6x8xf32>) -> tensor<1x2x4x8xf32>
  kernel.yield %0 : tensor<1x2x4x8xf32>
}

// An embedding lookup reads the rows its indices name, not the table:
// 2*3 indices of 8 f16 values (96 bytes) of the 1000x8 table, plus the
// 48 bytes of i64 indices.
// CHECK-LABEL: exec.kernel @gather_rows
// CHECK-SAME: bytes_read = 144 : i64, bytes_written = 96 : i64
exec.kernel @gather_rows layout attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%table: tensor<1000x8xf16>, %ids: tensor<2x3xi64>):
  %0 = graph.gather %table, %ids {axis = 0 : i64} : (tensor<1000x8xf16>, tensor<2x3xi64>) -> tensor<2x3x8xf16>
  kernel.yield %0 : tensor<2x3x8xf16>
}

// Two gathers of one table read at most the table.
// CHECK-LABEL: exec.kernel @gather_bounded
// CHECK-SAME: bytes_read = 56 : i64, bytes_written = 48 : i64
exec.kernel @gather_bounded layout attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%table: tensor<2x4xf32>, %ids: tensor<3xi64>):
  %0 = graph.gather %table, %ids {axis = 0 : i64} : (tensor<2x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  %1 = graph.gather %table, %ids {axis = 0 : i64} : (tensor<2x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  %2 = graph.add %0, %1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  kernel.yield %2 : tensor<3x4xf32>
}

// A table that is also read whole (here added to) is charged whole.
// CHECK-LABEL: exec.kernel @gather_and_read
// CHECK-SAME: bytes_read = 40 : i64
exec.kernel @gather_and_read layout attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%table: tensor<2x4xf32>, %ids: tensor<1xi64>):
  %0 = graph.gather %table, %ids {axis = 0 : i64} : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<1x4xf32>
  %1 = graph.add %0, %table : (tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  kernel.yield %1 : tensor<2x4xf32>
}
