// RUN: graphc-opt %s | graphc-opt | FileCheck %s
// RUN: graphc-opt %s --split-input-file --verify-diagnostics --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func @round_trip
// CHECK: kernel.fusion "add_0" pointwise(%{{.*}}, %{{.*}}) {hash = "0123456789abcdef", schedule = #kernel.schedule<block_size = 256>}
// CHECK: kernel.yield
// GENERIC: "kernel.fusion"
func.func @round_trip(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kernel.fusion "add_0" pointwise(%a, %b) {hash = "0123456789abcdef", schedule = #kernel.schedule<block_size = 256>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %s = graph.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %s : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// Every knob round-trips; the heuristic source is the default and is not
// printed.
// CHECK-LABEL: func @schedules
// CHECK: schedule = #kernel.schedule<source = tuned, block_size = 64, elements_per_thread = 4, tile = 32, rows_per_block = 2>
// CHECK: schedule = #kernel.schedule<source = tuned, algo_rank = 3, split_k = 4, workspace_bytes = 1024>
// CHECK: schedule = #kernel.schedule<workspace_bytes = 0>
func.func @schedules(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", schedule = #kernel.schedule<source = tuned, block_size = 64, elements_per_thread = 4, tile = 32, rows_per_block = 2>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  %1 = kernel.fusion "relu_1" pointwise(%a) {hash = "0123456789abcdef", schedule = #kernel.schedule<workspace_bytes = 1024, split_k = 4, algo_rank = 3, source = tuned>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  %2 = kernel.fusion "relu_2" pointwise(%a) {hash = "0123456789abcdef", schedule = #kernel.schedule<source = heuristic, workspace_bytes = 0>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
