// RUN: graphc-opt %s --graphc-convert-precision=precision=fp16 --split-input-file --mlir-print-local-scope | FileCheck %s
// RUN: graphc-opt %s --graphc-convert-precision="precision=bf16 io-precision=bf16" --split-input-file --mlir-print-local-scope | FileCheck %s --check-prefix=IO
// RUN: graphc-opt %s --graphc-convert-precision="precision=fp16 keep-fp32=gelu" --mlir-print-local-scope | FileCheck %s --check-prefix=KEEP
// RUN: not graphc-opt %s --graphc-convert-precision="precision=fp16 keep-fp32=nope" 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// Weights are rounded once, the input is cast at the entry, every op
// computes in f16 and the output is cast back: the signature stays f32.
// The f32 weights are gone. 1e6 is beyond f16's range: it becomes 65504,
// the largest finite f16, not infinity.
// CHECK-LABEL: func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>) -> tensor<2x2xf32>
// CHECK-NOT: xf32>}
// CHECK-DAG: %[[W:.*]] = graph.constant {value = dense<{{\[\[}}1.000000e+00, 5.000000e-01], [2.500000e-01, 6.550400e+04], [-1.000000e+00, 0.000000e+00]]> : tensor<3x2xf16>}
// CHECK-DAG: %[[B:.*]] = graph.constant {value = dense<9.997550e-02> : tensor<2xf16>}
// CHECK-DAG: %[[XH:.*]] = graph.cast %[[X]] {to = f16} : (tensor<2x3xf32>) -> tensor<2x3xf16>
// CHECK: %[[M:.*]] = graph.mat_mul %[[XH]], %[[W]] : (tensor<2x3xf16>, tensor<3x2xf16>) -> tensor<2x2xf16>
// CHECK: %[[A:.*]] = graph.add %[[M]], %[[B]] : (tensor<2x2xf16>, tensor<2xf16>) -> tensor<2x2xf16>
// CHECK: %[[G:.*]] = graph.gelu %[[A]] : (tensor<2x2xf16>) -> tensor<2x2xf16>
// CHECK: %[[Y:.*]] = graph.cast %[[G]] {to = f32} : (tensor<2x2xf16>) -> tensor<2x2xf32>
// CHECK: return %[[Y]] : tensor<2x2xf32>

// With --io-precision bf16 the signature is bf16 and no cast remains.
// IO-LABEL: func @mlp
// IO-SAME: (%[[X:.*]]: tensor<2x3xbf16>) -> tensor<2x2xbf16>
// IO-NOT: graph.cast
// IO: graph.mat_mul %[[X]], %{{.*}} : (tensor<2x3xbf16>, tensor<3x2xbf16>) -> tensor<2x2xbf16>
// IO-NOT: graph.cast
// IO: return %{{.*}} : tensor<2x2xbf16>

// A node named by --keep-fp32 computes in f32 between two casts.
// KEEP-LABEL: func @mlp
// KEEP: %[[A:.*]] = graph.add {{.*}} -> tensor<2x2xf16>
// KEEP: %[[AW:.*]] = graph.cast %[[A]] {to = f32} : (tensor<2x2xf16>) -> tensor<2x2xf32>
// KEEP: %[[G:.*]] = graph.gelu %[[AW]] : (tensor<2x2xf32>) -> tensor<2x2xf32>
// KEEP: return %[[G]] : tensor<2x2xf32>

// UNKNOWN: error: --keep-fp32 names 'nope', which no op computes
func.func @mlp(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = graph.constant {value = dense<[[1.0, 0.5], [0.25, 1.0e6], [-1.0, 0.0]]> : tensor<3x2xf32>} : () -> tensor<3x2xf32>
  %b = graph.constant {value = dense<0.1> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = graph.mat_mul %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32> loc("matmul")
  %1 = graph.add %0, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32> loc("add")
  %2 = graph.gelu %1 : (tensor<2x2xf32>) -> tensor<2x2xf32> loc("gelu")
  return %2 : tensor<2x2xf32>
}

// -----

// A Cast to float32 (a mask computed from booleans) casts to f16 instead;
// Resize keeps its float32 scales; Range keeps computing float32 positions
// (its f32 result is cast where an f16 op reads it); integer ops and their
// integer results are left alone.
// CHECK-LABEL: func @mixed
// CHECK: %[[MASK:.*]] = graph.cast %{{.*}} {to = f16} : (tensor<4xi1>) -> tensor<4xf16>
// CHECK: %[[R:.*]] = graph.range %{{.*}} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %[[RH:.*]] = graph.cast %[[R]] {to = f16} : (tensor<4xf32>) -> tensor<4xf16>
// CHECK: graph.mul %{{.*}}, %[[MASK]] : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
// CHECK: graph.add %{{.*}}, %[[RH]] : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
// CHECK: graph.resize %{{.*}}, %{{.*}} {{{.*}}} : (tensor<1x1x2x2xf16>, tensor<4xf32>) -> tensor<1x1x4x4xf16>
// CHECK: graph.shape %{{.*}} : (tensor<1x1x4x4xf16>) -> tensor<4xi64>
func.func @mixed(%x: tensor<4xf32>, %keep: tensor<4xi1>, %img: tensor<1x1x2x2xf32>) -> (tensor<4xf32>, tensor<1x1x4x4xf32>, tensor<4xi64>) {
  %start = graph.constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %limit = graph.constant {value = dense<4.0> : tensor<f32>} : () -> tensor<f32>
  %delta = graph.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %scales = graph.constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %mask = graph.cast %keep {to = f32} : (tensor<4xi1>) -> tensor<4xf32> loc("mask")
  %pos = graph.range %start, %limit, %delta : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32> loc("positions")
  %0 = graph.mul %x, %mask : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = graph.add %0, %pos : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = graph.resize %img, %scales {mode = "linear", operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  %3 = graph.shape %2 : (tensor<1x1x4x4xf32>) -> tensor<4xi64>
  return %1, %2, %3 : tensor<4xf32>, tensor<1x1x4x4xf32>, tensor<4xi64>
}

// -----

// A quantized product's accumulator, corrected for a zero point by an
// integer add, is rescaled in float32 (int32 sums overflow fp16); the
// bias add after it narrows.
// CHECK-LABEL: func.func @corrected_accumulator
// CHECK: %[[P:.*]] = graph.quantized_mat_mul
// CHECK: %[[A:.*]] = graph.add %[[P]], %{{.*}} : (tensor<3x2xi32>, tensor<2xi32>) -> tensor<3x2xi32>
// CHECK: %[[C:.*]] = graph.cast %[[A]] {to = f32} : (tensor<3x2xi32>) -> tensor<3x2xf32>
// CHECK: %[[M:.*]] = graph.mul %[[C]], %{{.*}} : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
// CHECK: %[[N:.*]] = graph.cast %[[M]] {to = f16}
// CHECK: graph.add %[[N]], %{{.*}} : (tensor<3x2xf16>, tensor<2xf16>) -> tensor<3x2xf16>
func.func @corrected_accumulator(%x: tensor<3x4xi8>, %w: tensor<2x4xi8>) -> tensor<3x2xf32> {
  %z = graph.constant {value = dense<[-12, -18]> : tensor<2xi32>} : () -> tensor<2xi32>
  %s = graph.constant {value = dense<[5.0e-01, 2.5e-01]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = graph.constant {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %p = graph.quantized_mat_mul %x, %w {trans_b = 1 : i64} : (tensor<3x4xi8>, tensor<2x4xi8>) -> tensor<3x2xi32>
  %a = graph.add %p, %z : (tensor<3x2xi32>, tensor<2xi32>) -> tensor<3x2xi32>
  %c = graph.cast %a {to = f32} : (tensor<3x2xi32>) -> tensor<3x2xf32>
  %m = graph.mul %c, %s : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %y = graph.add %m, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
