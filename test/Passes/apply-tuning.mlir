// RUN: graphc-opt %s --graphc-apply-tuning="db=%S/Inputs/apply-tuning-db.json sm=90 cuda-major=13" | FileCheck %s
// RUN: graphc-opt %s --graphc-apply-tuning="db=%S/Inputs/apply-tuning-db.json sm=80 cuda-major=13" | FileCheck %s --check-prefix=SM80
// RUN: not graphc-opt %s --graphc-apply-tuning="db=%S/Inputs/no-such-db.json" 2>&1 | FileCheck %s --check-prefix=MISSING

// Kernels are found by content hash, for this SM and CUDA major only; the
// schedule of a kernel without an entry stays heuristic, and a library
// kernel has none to tune.
// CHECK-LABEL: exec.kernel @add_relu
// CHECK-SAME: schedule = #kernel.schedule<source = tuned, block_size = 128>
// SM80-LABEL: exec.kernel @add_relu
// SM80-SAME: schedule = #kernel.schedule<source = tuned, block_size = 512>
exec.kernel @add_relu pointwise attributes {hash = "00000000000000a1", onnx_nodes = ["Add_1", "Relu_2"], schedule = #kernel.schedule<block_size = 256>} {
^bb0(%x: tensor<4x32xf32>, %y: tensor<4x32xf32>):
  %0 = graph.add %x, %y : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %1 = graph.relu %0 : (tensor<4x32xf32>) -> tensor<4x32xf32>
  kernel.yield %1 : tensor<4x32xf32>
}

// Measured with CUDA 12: not for this compile.
// CHECK-LABEL: exec.kernel @relu
// CHECK-SAME: schedule = #kernel.schedule<block_size = 256>
exec.kernel @relu pointwise attributes {hash = "00000000000000a2", onnx_nodes = ["Relu_3"], schedule = #kernel.schedule<block_size = 256>} {
^bb0(%x: tensor<4x32xf32>):
  %0 = graph.relu %x : (tensor<4x32xf32>) -> tensor<4x32xf32>
  kernel.yield %0 : tensor<4x32xf32>
}

// MISSING: error: cannot read the tuning database: cannot open '{{.*}}no-such-db.json': No such file or directory
