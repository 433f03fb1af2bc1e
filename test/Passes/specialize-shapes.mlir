// RUN: graphc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --graphc-specialize-shapes="dims=batch=8 shapes=y=8x5" --graphc-fold-shape-computations | FileCheck %s

// CHECK-LABEL: func @main
// CHECK-SAME: (%{{.*}}: tensor<8x4xf32> {{.*}}, %{{.*}}: tensor<8x5xf32> {{.*}}) -> tensor<8x4xf32>
func.func @main(%a: tensor<?x4xf32> {graph.name = "x", graph.dims = ["batch", ""]},
                %b: tensor<?x?xf32> {graph.name = "y", graph.dims = ["", ""]}) -> tensor<?x4xf32> {
  // CHECK: graph.relu %{{.*}} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %0 = graph.relu %a : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// expected-error @+1 {{--dim names 'batch', which is no input dim's name}}
module {
func.func @main(%a: tensor<?x4xf32> {graph.name = "x", graph.dims = ["n", ""]},
                %b: tensor<8x5xf32> {graph.name = "y", graph.dims = ["", ""]}) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}
}
