// RUN: graphc-opt %s --graphc-form-fusion-groups --graphc-plan-memory --graphc-lower-to-exec | FileCheck %s

// CHECK-DAG: exec.io {dims = ["", ""], index = 0 : i64, is_output = false, name = "x", type = tensor<2x4xf32>}
// CHECK-DAG: exec.io {dims = ["", ""], index = 0 : i64, is_output = true, name = "y", type = tensor<2x4xf32>}
// CHECK-DAG: exec.io {dims = ["", ""], index = 1 : i64, is_output = true, name = "x_again", type = tensor<2x4xf32>}
// CHECK-DAG: exec.weight @w0 offset 0
// Both adds share one kernel.
// CHECK: exec.kernel @add_0 pointwise
// CHECK-NOT: exec.kernel @add_1
// CHECK: exec.plan @static
// CHECK: exec.launch @add_0 [#exec.slot<input, 0, 0, 32>, #exec.slot<weights, 0, 0, 32>, #exec.slot<arena, 0, 0, 32>]
// CHECK: exec.launch @add_0 [#exec.slot<arena, 0, 0, 32>, #exec.slot<weights, 0, 0, 32>, #exec.slot<output, 0, 0, 32>]
// An input returned as an output is copied.
// CHECK: exec.copy <input, 0, 0, 32> to <output, 1, 0, 32>
func.func @main(%a: tensor<2x4xf32> {graph.name = "x"}) -> (tensor<2x4xf32> {graph.name = "y"}, tensor<2x4xf32> {graph.name = "x_again"}) {
  %w = graph.constant {value = dense<1.0> : tensor<2x4xf32>} : () -> tensor<2x4xf32>
  %0 = graph.add %a, %w : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = graph.add %0, %w : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %1, %a : tensor<2x4xf32>, tensor<2x4xf32>
}
