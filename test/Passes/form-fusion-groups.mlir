// RUN: graphc-opt %s --graphc-form-fusion-groups --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @main
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[ADD:.*]] = kernel.fusion "add_0" pointwise(%{{.*}}, %{{.*}}) {hash = "[[HASH:[0-9a-f]+]]", schedule = {block_size = 256 : i64, source = "heuristic"}}
  // CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>):
  // CHECK-NEXT: graph.add %[[X]], %[[Y]]
  %0 = graph.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // An identical op in another place hashes the same.
  // CHECK: kernel.fusion "add_1" pointwise({{.*}}) {hash = "[[HASH]]"
  %1 = graph.add %0, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kernel.fusion "relu_2" pointwise
  %2 = graph.relu %1 : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// A value read twice by one op is one fusion input.
// CHECK-LABEL: func @main
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: kernel.fusion "add_0" pointwise(%{{[^,]*}})
  %0 = graph.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{input 'x' dim 0 is dynamic ('batch'): add --dim batch=N or --shape x=...}}
func.func @main(%a: tensor<?x4xf32> {graph.name = "x", graph.dims = ["batch", ""]}) -> tensor<?x4xf32> {
  %0 = graph.relu %a : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
