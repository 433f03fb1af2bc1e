// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-plan-memory=attention-scratch=1 | FileCheck %s
// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-plan-memory | FileCheck %s --check-prefix=NONE

// One query against 512 keys, 2 heads: 8 key splits (flash-decoding). The
// attention gets its partials (8 splits x 2 heads x 1 row x (64 + 2)
// floats), placed like a library workspace, and its counters (one per
// query row of each head) in the arena's prefix, which everything else
// lies past.
// CHECK-LABEL: func @main
// CHECK-SAME: exec.arena_bytes = 5120 : i64
// CHECK: exec.scratch = [#exec.slot<arena, 0, 256, 4224>, #exec.slot<arena, 0, 0, 8>]
// CHECK-SAME: exec.slots = [#exec.slot<arena, 0, 4608, 512>]
// NONE-NOT: exec.scratch
func.func @main(%q: tensor<1x2x1x64xf32>, %k: tensor<1x2x512x64xf32>, %v: tensor<1x2x512x64xf32>) -> tensor<1x2x1x64xf32> {
  %0 = graph.attention %q, %k, %v {scale = 0.125 : f64} : (tensor<1x2x1x64xf32>, tensor<1x2x512x64xf32>, tensor<1x2x512x64xf32>) -> tensor<1x2x1x64xf32>
  %1 = graph.relu %0 : (tensor<1x2x1x64xf32>) -> tensor<1x2x1x64xf32>
  return %1 : tensor<1x2x1x64xf32>
}

// -----

// Enough heads to fill the GPU: no split, no scratch.
// CHECK-LABEL: func @main
// CHECK-SAME: exec.arena_bytes = 0 : i64
// CHECK-NOT: exec.scratch
func.func @main(%q: tensor<1x256x1x64xf32>, %k: tensor<1x256x512x64xf32>, %v: tensor<1x256x512x64xf32>) -> tensor<1x256x1x64xf32> {
  %0 = graph.attention %q, %k, %v {scale = 0.125 : f64} : (tensor<1x256x1x64xf32>, tensor<1x256x512x64xf32>, tensor<1x256x512x64xf32>) -> tensor<1x256x1x64xf32>
  return %0 : tensor<1x256x1x64xf32>
}
