// RUN: graphc-opt %s --graphc-form-fusion-groups --graphc-plan-memory | FileCheck %s

// A chain of four 1 KiB intermediates needs two arena slots: each step's
// input is freed once read, but never reused by that same step's result.
// CHECK-LABEL: func @main
// CHECK-SAME: exec.arena_bytes = 2048 : i64
// CHECK-SAME: exec.intermediate_bytes = 3072 : i64
func.func @main(%a: tensor<256xf32>) -> tensor<256xf32> {
  // CHECK: "softmax_0"{{.*}}exec.slots = [#exec.slot<arena, 0, 0, 1024>]
  %0 = graph.softmax %a : (tensor<256xf32>) -> tensor<256xf32>
  // CHECK: "softmax_1"{{.*}}exec.slots = [#exec.slot<arena, 0, 1024, 1024>]
  %1 = graph.softmax %0 : (tensor<256xf32>) -> tensor<256xf32>
  // CHECK: "softmax_2"{{.*}}exec.slots = [#exec.slot<arena, 0, 0, 1024>]
  %2 = graph.softmax %1 : (tensor<256xf32>) -> tensor<256xf32>
  // The returned value is written straight into output 0.
  // CHECK: "softmax_3"{{.*}}exec.slots = [#exec.slot<output, 0, 0, 1024>]
  %3 = graph.softmax %2 : (tensor<256xf32>) -> tensor<256xf32>
  return %3 : tensor<256xf32>
}
