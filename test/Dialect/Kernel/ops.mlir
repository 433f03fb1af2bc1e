// RUN: graphc-opt %s | graphc-opt | FileCheck %s
// RUN: graphc-opt %s --split-input-file --verify-diagnostics --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func @round_trip
// CHECK: kernel.fusion "add_0" pointwise(%{{.*}}, %{{.*}}) {hash = "0123456789abcdef", schedule = {block_size = 256 : i64}}
// CHECK: kernel.yield
// GENERIC: "kernel.fusion"
func.func @round_trip(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kernel.fusion "add_0" pointwise(%a, %b) {hash = "0123456789abcdef", schedule = {block_size = 256 : i64}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %s = graph.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %s : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
