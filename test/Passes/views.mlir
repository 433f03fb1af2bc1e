// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-plan-memory | FileCheck %s --check-prefix=PLAN
// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-plan-memory --graphc-lower-to-exec | FileCheck %s --check-prefix=EXEC

// Reshape, flatten, squeeze, unsqueeze and identity are views: no fusion
// computes them and they share their source's slot.

// A reshape of an arena intermediate, and a chain of two views of it, take
// its offset; the launch that reads them passes that slot.
// PLAN-LABEL: func @main
// PLAN: "softmax_0"{{.*}}exec.slots = [#exec.slot<arena, 0, 0, 1024>]
// PLAN: graph.reshape {{.*}}exec.slots = [#exec.slot<arena, 0, 0, 1024>]
// PLAN: graph.unsqueeze {{.*}}exec.slots = [#exec.slot<arena, 0, 0, 1024>]
// PLAN: "softmax_1"{{.*}}exec.slots = [#exec.slot<output, 0, 0, 1024>]
// EXEC: exec.plan @static
// EXEC-NEXT: exec.launch @[[K_SOFTMAX_0:softmax_[0-9a-f]+]] [#exec.slot<input, 0, 0, 1024>, #exec.slot<arena, 0, 0, 1024>]
// EXEC-NEXT: exec.launch @[[K_SOFTMAX_1:softmax_[0-9a-f]+]] [#exec.slot<arena, 0, 0, 1024>, #exec.slot<output, 0, 0, 1024>]
// EXEC-NEXT: }
func.func @main(%a: tensor<256xf32>) -> tensor<1x16x16xf32> {
  %shape = graph.constant {value = dense<[16, 16]> : tensor<2xi64>} : () -> tensor<2xi64>
  %axes = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = graph.softmax %a : (tensor<256xf32>) -> tensor<256xf32>
  %1 = graph.reshape %0, %shape : (tensor<256xf32>, tensor<2xi64>) -> tensor<16x16xf32>
  %2 = graph.unsqueeze %1, %axes : (tensor<16x16xf32>, tensor<1xi64>) -> tensor<1x16x16xf32>
  %3 = graph.softmax %2 : (tensor<1x16x16xf32>) -> tensor<1x16x16xf32>
  return %3 : tensor<1x16x16xf32>
}

// -----

// A view read late keeps its source's range: %0 is read through %v by the
// last op, so %2 must not take %0's offset although %v's own op comes early.
// PLAN-LABEL: func @main
// PLAN: "softmax_0"{{.*}}exec.slots = [#exec.slot<arena, 0, 0, 1024>]
// PLAN: graph.flatten {{.*}}exec.slots = [#exec.slot<arena, 0, 0, 1024>]
// PLAN: "softmax_1"{{.*}}exec.slots = [#exec.slot<arena, 0, 1024, 1024>]
// PLAN: "softmax_2"{{.*}}exec.slots = [#exec.slot<arena, 0, 2048, 1024>]
// PLAN: "add_3"{{.*}}exec.slots = [#exec.slot<output, 0, 0, 1024>]
// EXEC: exec.launch @[[K_ADD_3:add_[0-9a-f]+]] [#exec.slot<arena, 0, 0, 1024>, #exec.slot<arena, 0, 2048, 1024>, #exec.slot<output, 0, 0, 1024>]
func.func @main(%a: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = graph.softmax %a : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %v = graph.flatten %0 {axis = 1 : i64} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = graph.softmax %a : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %2 = graph.softmax %1 : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %3 = graph.add %v, %2 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %3 : tensor<16x16xf32>
}

// -----

// A view of a model input reads the input's slot.
// PLAN-LABEL: func @main
// PLAN: graph.reshape
// PLAN-NOT: exec.slots
// PLAN-SAME: -> tensor<4x64xf32>
// EXEC-NOT: exec.kernel @reshape
// EXEC: exec.plan @static
// EXEC-NEXT: exec.launch @[[K_SOFTMAX_0:softmax_[0-9a-f]+]] [#exec.slot<input, 0, 0, 1024>, #exec.slot<output, 0, 0, 1024>]
// EXEC-NEXT: }
func.func @main(%a: tensor<256xf32>) -> tensor<4x64xf32> {
  %shape = graph.constant {value = dense<[4, 64]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = graph.reshape %a, %shape : (tensor<256xf32>, tensor<2xi64>) -> tensor<4x64xf32>
  %1 = graph.softmax %0 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return %1 : tensor<4x64xf32>
}

// -----

// A view returned as an output: its producer writes straight into that
// output, which the view then names; nothing is copied.
// PLAN-LABEL: func @main
// PLAN: "softmax_0"{{.*}}exec.slots = [#exec.slot<output, 0, 0, 1024>]
// PLAN: graph.reshape {{.*}}exec.slots = [#exec.slot<output, 0, 0, 1024>]
// EXEC: exec.plan @static
// EXEC-NEXT: exec.launch @[[K_SOFTMAX_0:softmax_[0-9a-f]+]] [#exec.slot<input, 0, 0, 1024>, #exec.slot<output, 0, 0, 1024>]
// EXEC-NEXT: }
func.func @main(%a: tensor<256xf32>) -> tensor<4x64xf32> {
  %shape = graph.constant {value = dense<[4, 64]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = graph.softmax %a : (tensor<256xf32>) -> tensor<256xf32>
  %1 = graph.reshape %0, %shape : (tensor<256xf32>, tensor<2xi64>) -> tensor<4x64xf32>
  return %1 : tensor<4x64xf32>
}

// -----

// A view of a model input returned as an output is a copy, as the input
// itself would be.
// EXEC: exec.plan @static
// EXEC-NEXT: exec.copy <input, 0, 0, 1024> to <output, 0, 0, 1024>
// EXEC-NEXT: }
func.func @main(%a: tensor<256xf32>) -> tensor<4x64xf32> {
  %shape = graph.constant {value = dense<[4, 64]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = graph.reshape %a, %shape : (tensor<256xf32>, tensor<2xi64>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// A value returned itself and through two views: the producer writes the
// first output, the views name it, and the other outputs are copies of it.
// PLAN-LABEL: func @main
// PLAN: "softmax_0"{{.*}}exec.slots = [#exec.slot<output, 0, 0, 1024>]
// EXEC: exec.plan @static
// EXEC-NEXT: exec.launch @[[K_SOFTMAX_0:softmax_[0-9a-f]+]] [#exec.slot<input, 0, 0, 1024>, #exec.slot<output, 0, 0, 1024>]
// EXEC-NEXT: exec.copy <output, 0, 0, 1024> to <output, 1, 0, 1024>
// EXEC-NEXT: exec.copy <output, 0, 0, 1024> to <output, 2, 0, 1024>
// EXEC-NEXT: }
func.func @main(%a: tensor<256xf32>) -> (tensor<256xf32>, tensor<4x64xf32>, tensor<1x256xf32>) {
  %shape = graph.constant {value = dense<[4, 64]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = graph.softmax %a : (tensor<256xf32>) -> tensor<256xf32>
  %1 = graph.reshape %0, %shape : (tensor<256xf32>, tensor<2xi64>) -> tensor<4x64xf32>
  %2 = graph.flatten %1 {axis = 0 : i64} : (tensor<4x64xf32>) -> tensor<1x256xf32>
  return %0, %1, %2 : tensor<256xf32>, tensor<4x64xf32>, tensor<1x256xf32>
}

// -----

// A small constant read through a view is inlined in the view's shape.
// EXEC: exec.kernel @[[K_ADD_0:add_[0-9a-f]+]]
// EXEC: graph.constant {exec.argument = 1 : i64, value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>}
// EXEC: exec.launch @[[K_ADD_0]] [#exec.slot<input, 0, 0, 16>, #exec.slot<weights, 0, {{[0-9]+}}, 16>, #exec.slot<output, 0, 0, 16>]
func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %c = graph.constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %shape = graph.constant {value = dense<[2, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = graph.reshape %c, %shape : (tensor<4xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  %1 = graph.add %a, %0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}
