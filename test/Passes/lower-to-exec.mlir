// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-plan-memory --graphc-lower-to-exec | FileCheck %s

// CHECK-DAG: exec.io {dims = ["", ""], index = 0 : i64, is_output = false, name = "x", type = tensor<2x4xf32>}
// CHECK-DAG: exec.io {dims = ["", ""], index = 0 : i64, is_output = true, name = "y", type = tensor<2x4xf32>}
// CHECK-DAG: exec.io {dims = ["", ""], index = 1 : i64, is_output = true, name = "x_again", type = tensor<2x4xf32>}
// CHECK-DAG: exec.weight @w0 offset 0
// Both adds share one kernel.
// CHECK: exec.kernel @[[K_ADD_0:add_[0-9a-f]+]] pointwise
// CHECK-NOT: exec.kernel @add_{{[0-9a-f]+}}
// CHECK: exec.plan @static
// CHECK: exec.launch @[[K_ADD_0]] [#exec.slot<input, 0, 0, 32>, #exec.slot<weights, 0, 0, 32>, #exec.slot<arena, 0, 0, 32>]
// CHECK: exec.launch @[[K_HARDMAX_1:hardmax_[0-9a-f]+]]
// CHECK: exec.launch @[[K_ADD_0]] [#exec.slot<arena, 0, 256, 32>, #exec.slot<weights, 0, 0, 32>, #exec.slot<output, 0, 0, 32>]
// An input returned as an output is copied.
// CHECK: exec.copy <input, 0, 0, 32> to <output, 1, 0, 32>
func.func @main(%a: tensor<2x4xf32> {graph.name = "x"}) -> (tensor<2x4xf32> {graph.name = "y"}, tensor<2x4xf32> {graph.name = "x_again"}) {
  %w = graph.constant {value = dense<1.0> : tensor<2x4xf32>} : () -> tensor<2x4xf32>
  %0 = graph.add %a, %w : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = graph.hardmax %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = graph.add %1, %w : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %2, %a : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// A fusion of several ops takes every one of its inputs, once, then its
// result; the kernel names the nodes of all its ops.
// CHECK: exec.kernel @[[K_ADD_MUL_0:add_mul_[0-9a-f]+]] pointwise attributes {{{.*}}onnx_nodes = ["sum", "product"]
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<4xf32>):
// CHECK-NEXT: %[[S:.*]] = graph.add %[[A]], %[[B]]
// CHECK-NEXT: %[[P:.*]] = graph.mul %[[S]], %[[C]]
// CHECK-NEXT: kernel.yield %[[P]]
// CHECK: exec.launch @[[K_ADD_MUL_0]] [#exec.slot<input, 0, 0, 16>, #exec.slot<input, 1, 0, 16>, #exec.slot<input, 2, 0, 16>, #exec.slot<output, 0, 0, 16>]
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("sum")
  %1 = graph.mul %0, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("product")
  return %1 : tensor<4xf32>
}

// -----

// A value read by two fused ops, and by one op twice, is passed once.
// CHECK: exec.kernel @[[K_MUL_ADD_0:mul_add_[0-9a-f]+]] pointwise
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>):
// CHECK: exec.launch @[[K_MUL_ADD_0]] [#exec.slot<input, 0, 0, 16>, #exec.slot<input, 1, 0, 16>, #exec.slot<output, 0, 0, 16>]
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.mul %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = graph.add %0, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = graph.add %1, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
