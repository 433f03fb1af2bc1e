// RUN: graphc-opt %s --graphc-form-fusion-groups --graphc-plan-memory --graphc-lower-to-exec | FileCheck %s

// Small constant inputs are inlined into the kernel (codegen specialises on
// them) while the kernel keeps its parameter, which each copy names;
// kernels with different constants stay apart, identical ones are shared.
// The launch passes one slot per fusion input, then the result.
// CHECK: exec.kernel @[[K_SLICE_0:slice_[0-9a-f]+]] {{.*}}onnx_nodes = ["a", "c"]
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x8xf32>, %{{.*}}: tensor<1xi64>, %{{.*}}: tensor<1xi64>, %{{.*}}: tensor<1xi64>):
// CHECK-DAG: %[[S:.*]] = graph.constant {exec.argument = 1 : i64, value = dense<1> : tensor<1xi64>}
// CHECK-DAG: %[[E:.*]] = graph.constant {exec.argument = 2 : i64, value = dense<5> : tensor<1xi64>}
// CHECK: graph.slice %[[X]], %[[S]], %[[E]], %{{.*}}
// CHECK: exec.kernel @[[K_SLICE_1:slice_[0-9a-f]+]] {{.*}}onnx_nodes = ["b"]
// CHECK: graph.constant {exec.argument = 1 : i64, value = dense<2> : tensor<1xi64>}
// CHECK-NOT: exec.kernel @slice_{{[0-9a-f]+}}
// CHECK: exec.plan
// CHECK-NEXT: exec.launch @[[K_SLICE_0]] [#exec.slot<input, 0, 0, 128>, #exec.slot<weights, 0, 0, 8>, #exec.slot<weights, 0, 512, 8>, #exec.slot<weights, 0, 0, 8>, #exec.slot<output, 0, 0, 64>]
// CHECK-NEXT: exec.launch @[[K_SLICE_1]] [#exec.slot<input, 0, 0, 128>, #exec.slot<weights, 0, 256, 8>, #exec.slot<weights, 0, 512, 8>, #exec.slot<weights, 0, 0, 8>, #exec.slot<output, 1, 0, 48>]
// CHECK-NEXT: exec.launch @[[K_SLICE_0]]
func.func @main(%x: tensor<4x8xf32> {graph.name = "x"}) -> (tensor<4x4xf32>, tensor<4x3xf32>, tensor<4x4xf32>) {
  %s1 = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %s2 = graph.constant {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %e = graph.constant {value = dense<5> : tensor<1xi64>} : () -> tensor<1xi64>
  %ax = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %a = graph.slice %x, %s1, %e, %ax {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (tensor<4x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x4xf32> loc("a")
  %b = graph.slice %x, %s2, %e, %ax {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (tensor<4x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x3xf32> loc("b")
  %c = graph.slice %x, %s1, %e, %ax {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (tensor<4x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x4xf32> loc("c")
  return %a, %b, %c : tensor<4x4xf32>, tensor<4x3xf32>, tensor<4x4xf32>
}
