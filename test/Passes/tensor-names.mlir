// RUN: graphc-opt %s --split-input-file --graphc-fold-shape-computations --graphc-fold-into-linear-ops --graphc-split-wide-concats=max-inputs=2 --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

// The ONNX tensor each result holds (withTensorNames, in the NameLoc's
// child) stays truthful through rewrites: a Conv that absorbed the
// BatchNormalization after it computes the BatchNormalization's output, and
// says so; the Conv's own output is gone.
// CHECK-LABEL: func @conv_bn
// CHECK: graph.conv {{.*}} loc(fused<["bn_out"]>["conv"("m.onnx":0:0), "bn"("m.onnx":0:0)])
// CHECK-NOT: conv_out
func.func @conv_bn(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant {value = dense<[[[[1.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32> loc("w"(fused<["w"]>["m.onnx":0:0]))
  %gamma = graph.constant {value = dense<[4.0, 3.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %beta = graph.constant {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = graph.constant {value = dense<[0.5, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = graph.constant {value = dense<[3.0, 8.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = graph.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32> loc("conv"(fused<["conv_out"]>["m.onnx":0:0]))
  %1 = graph.batch_normalization %0, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("bn"(fused<["bn_out"]>["m.onnx":0:0]))
  return %1 : tensor<1x2x4x4xf32>
}

// -----

// Scalar scales moved past a MatMul: the unscaled product is no ONNX
// tensor, the scaled one holds the MatMul's output.
// CHECK-LABEL: func @hoisted_scale
// CHECK: graph.mat_mul {{.*}} loc("qk"("m.onnx":0:0))
// CHECK: graph.mul {{.*}} loc("scale_q"(fused<["scores"]>["m.onnx":0:0]))
func.func @hoisted_scale(%q: tensor<2x4xf32>, %k: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %s = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %0 = graph.mul %q, %s : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32> loc("scale_q"(fused<["q_scaled"]>["m.onnx":0:0]))
  %1 = graph.mat_mul %0, %k : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc("qk"(fused<["scores"]>["m.onnx":0:0]))
  return %1 : tensor<2x3xf32>
}

// -----

// A shape folds into a constant holding the Shape node's output. MLIR's
// folder keeps one constant per value: one that several nodes' outputs
// folded into names none of them.
// CHECK-LABEL: func @folded_shapes
// CHECK: graph.constant {value = dense<[2, 3]> : tensor<2xi64>} {{.*}} loc(unknown)
// CHECK-NEXT: graph.constant {value = dense<2> : tensor<1xi64>} {{.*}} loc("size"(fused<["n"]>["m.onnx":0:0]))
func.func @folded_shapes(%x: tensor<2x3xf32>) -> (tensor<2xi64>, tensor<2xi64>, tensor<1xi64>) {
  %a = graph.shape %x : (tensor<2x3xf32>) -> tensor<2xi64> loc("shape_a"(fused<["a"]>["m.onnx":0:0]))
  %b = graph.shape %x : (tensor<2x3xf32>) -> tensor<2xi64> loc("shape_b"(fused<["b"]>["m.onnx":0:0]))
  %n = graph.shape %x {end = 1 : i64} : (tensor<2x3xf32>) -> tensor<1xi64> loc("size"(fused<["n"]>["m.onnx":0:0]))
  return %a, %b, %n : tensor<2xi64>, tensor<2xi64>, tensor<1xi64>
}

// -----

// The partial concats of a wide one hold parts of its output only.
// CHECK-LABEL: func @wide_concat
// CHECK: graph.concat %arg0, %arg1 {{.*}} loc("cat"("m.onnx":0:0))
// CHECK: graph.concat {{.*}} loc("cat"(fused<["joined"]>["m.onnx":0:0]))
func.func @wide_concat(%a: tensor<2x1xf32>, %b: tensor<2x2xf32>, %c: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %r = graph.concat %a, %b, %c {axis = 1 : i64} : (tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x6xf32> loc("cat"(fused<["joined"]>["m.onnx":0:0]))
  return %r : tensor<2x6xf32>
}

// -----

// A transpose that moves unit dims only becomes a reshape holding its
// tensor; the shape constant holds none.
// CHECK-LABEL: func @unit_transpose
// CHECK: graph.constant {{.*}} loc("t"("m.onnx":0:0))
// CHECK: graph.reshape {{.*}} loc("t"(fused<["moved"]>["m.onnx":0:0]))
func.func @unit_transpose(%x: tensor<1x4x3xf32>) -> tensor<4x1x3xf32> {
  %t = graph.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<1x4x3xf32>) -> tensor<4x1x3xf32> loc("t"(fused<["moved"]>["m.onnx":0:0]))
  return %t : tensor<4x1x3xf32>
}
