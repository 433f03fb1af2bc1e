// RUN: graphc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --graphc-specialize-shape-buckets="buckets=n=4,1 max-dims=x.1=3 pad-values=mask=-1.5" \
// RUN:   | FileCheck %s
// RUN: graphc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --graphc-specialize-shape-buckets="buckets=n=1,4 max-dims=x.1=3" \
// RUN:   --graphc-fold-shape-computations --graphc-form-fusion-groups \
// RUN:   --graphc-plan-memory --graphc-lower-to-exec | FileCheck %s --check-prefix=EXEC

// One static copy per combination, the first dim slowest: n = 1, 4 (sorted)
// times x.1 = 1, 2, 3 (powers of two up to --max-dim, and the max itself).
// The unnamed dim takes the name INPUT.AXIS; the pad value lands on its input.
// CHECK-LABEL: func @bucket_0(
// CHECK-SAME: tensor<1x1xf32> {graph.dims = ["n", "x.1"], graph.name = "x"}
// CHECK-SAME: tensor<1xf32> {graph.dims = ["n"], graph.name = "mask", graph.pad_value = -1.500000e+00 : f64}
// CHECK-SAME: attributes {graph.bucket = {n = 1 : i64, x.1 = 1 : i64}, graph.plan_name = "n=1,x.1=1", graph.signature = (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>}
// CHECK: func @bucket_1(%{{.*}}: tensor<1x2xf32>
// CHECK: func @bucket_2(%{{.*}}: tensor<1x3xf32>
// CHECK: func @bucket_3(%{{.*}}: tensor<4x1xf32>
// CHECK-SAME: graph.plan_name = "n=4,x.1=1"
// CHECK: func @bucket_5(%{{.*}}: tensor<4x3xf32>
// CHECK-NOT: func @main

// The exec module: the signature stays dynamic, one bucket_dim per dim, one
// plan per bucket; the weight is shared, and a kernel of another shape is
// another kernel, named after its own contents.
// EXEC: exec.io {dims = ["n", "x.1"], {{.*}}name = "x", {{.*}}type = tensor<?x?xf32>}
// EXEC: exec.io {dims = ["n"], {{.*}}name = "mask", {{.*}}type = tensor<?xf32>}
// EXEC: exec.bucket_dim "n" {{{.*}}pad_safe = false, reason = "pad safety was not analysed", sizes = array<i64: 1, 4>
// EXEC: exec.bucket_dim "x.1" {{{.*}}sizes = array<i64: 1, 2, 3>
// EXEC: exec.weight @w0
// EXEC-NOT: exec.weight
// EXEC: exec.kernel @[[FIRST:relu_mul_[0-9a-f]{6}]] pointwise
// EXEC: exec.plan @"n=1,x.1=1"
// EXEC-NEXT: exec.launch @[[FIRST]]
// EXEC: exec.kernel @[[SECOND:relu_mul_[0-9a-f]{6}]] pointwise
// EXEC-NOT: exec.kernel @[[FIRST]]
// EXEC: exec.plan @"n=1,x.1=2"
// EXEC-NEXT: exec.launch @[[SECOND]]
// EXEC: exec.plan @"n=4,x.1=3"
func.func @main(%a: tensor<?x?xf32> {graph.name = "x", graph.dims = ["n", ""]},
                %m: tensor<?xf32> {graph.name = "mask", graph.dims = ["n"]}) -> tensor<?x?xf32> {
  %w = graph.constant {value = dense<2.0> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %0 = graph.relu %a : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = graph.mul %0, %w : (tensor<?x?xf32>, tensor<1x1xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}
