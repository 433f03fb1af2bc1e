// RUN: graphc-opt %s | graphc-opt | FileCheck %s

// CHECK: exec.io {dims = ["batch"], index = 0 : i64, is_output = false, name = "x", type = tensor<4xf32>}
exec.io {dims = ["batch"], index = 0 : i64, is_output = false, name = "x", type = tensor<4xf32>}
exec.io {dims = ["batch"], index = 0 : i64, is_output = true, name = "y", type = tensor<4xf32>}
// CHECK: exec.weight @w0 offset 0 {value = dense<1.000000e+00> : tensor<4xf32>}
exec.weight @w0 offset 0 {value = dense<1.0> : tensor<4xf32>}
// CHECK: exec.kernel @add_0 pointwise attributes {hash = "0123456789abcdef", onnx_nodes = ["node"], schedule = {}}
exec.kernel @add_0 pointwise attributes {hash = "0123456789abcdef", onnx_nodes = ["node"], schedule = {}} {
^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
  %s = graph.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  kernel.yield %s : tensor<4xf32>
}
// A cuda kernel carries its launch.
// CHECK: exec.kernel @relu_1 pointwise attributes {block = array<i64: 256, 1, 1>, grid = array<i64: 1, 1, 1>, hash = "0123456789abcdef", onnx_nodes = [], schedule = {}, shared_bytes = 0 : i64}
exec.kernel @relu_1 pointwise attributes {block = array<i64: 256, 1, 1>, grid = array<i64: 1, 1, 1>, hash = "0123456789abcdef", onnx_nodes = [], schedule = {}, shared_bytes = 0 : i64} {
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
