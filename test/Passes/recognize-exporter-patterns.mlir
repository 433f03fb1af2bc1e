// RUN: graphc-opt %s --graphc-recognize-exporter-patterns --split-input-file --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

// torch.onnx's erf GELU: (x * (1 + erf(x / 1.4142135))) * 0.5 (approximate
// = "none", the default, is not printed).
// CHECK-LABEL: func @gelu_erf_div
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x8xf32>
func.func @gelu_erf_div(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // CHECK-NEXT: %[[Y:.*]] = graph.gelu %[[X]] : (tensor<2x8xf32>) -> tensor<2x8xf32> loc(fused["div", "erf", "add", "mul", "half"])
  // CHECK-NEXT: return %[[Y]]
  %sqrt2 = graph.constant {value = dense<1.4142135> : tensor<f32>} : () -> tensor<f32>
  %one = graph.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %half = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %0 = graph.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32> loc("div")
  %1 = graph.erf %0 : (tensor<2x8xf32>) -> tensor<2x8xf32> loc("erf")
  %2 = graph.add %1, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32> loc("add")
  %3 = graph.mul %x, %2 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32> loc("mul")
  %4 = graph.mul %3, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32> loc("half")
  return %4 : tensor<2x8xf32>
}

// -----

// The Hugging Face spelling: x * 0.5 * (1 + erf(x * 0.70710678)).
// CHECK-LABEL: func @gelu_erf_mul
func.func @gelu_erf_mul(%x: tensor<?x8xf16>) -> tensor<?x8xf16> {
  // CHECK-NEXT: %[[Y:.*]] = graph.gelu %{{.*}} : (tensor<?x8xf16>)
  // CHECK-NEXT: return %[[Y]]
  %rsqrt2 = graph.constant {value = dense<0.70710678> : tensor<1xf16>} : () -> tensor<1xf16>
  %one = graph.constant {value = dense<1.0> : tensor<f16>} : () -> tensor<f16>
  %half = graph.constant {value = dense<0.5> : tensor<f16>} : () -> tensor<f16>
  %0 = graph.mul %x, %half : (tensor<?x8xf16>, tensor<f16>) -> tensor<?x8xf16>
  %1 = graph.mul %rsqrt2, %x : (tensor<1xf16>, tensor<?x8xf16>) -> tensor<?x8xf16>
  %2 = graph.erf %1 : (tensor<?x8xf16>) -> tensor<?x8xf16>
  %3 = graph.add %one, %2 : (tensor<f16>, tensor<?x8xf16>) -> tensor<?x8xf16>
  %4 = graph.mul %0, %3 : (tensor<?x8xf16>, tensor<?x8xf16>) -> tensor<?x8xf16>
  return %4 : tensor<?x8xf16>
}

// -----

// The tanh approximation with Pow(x, 3), as NewGELU writes it.
// CHECK-LABEL: func @gelu_tanh_pow
func.func @gelu_tanh_pow(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: %[[Y:.*]] = graph.gelu %{{.*}} {approximate = "tanh"}
  // CHECK-NEXT: return %[[Y]]
  %three = graph.constant {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %kappa = graph.constant {value = dense<0.044715> : tensor<f32>} : () -> tensor<f32>
  %beta = graph.constant {value = dense<0.797884583> : tensor<f32>} : () -> tensor<f32>
  %one = graph.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %half = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %0 = graph.mul %half, %x : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = graph.pow %x, %three : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = graph.mul %kappa, %1 : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = graph.add %x, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = graph.mul %beta, %3 : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = graph.tanh %4 : (tensor<4xf32>) -> tensor<4xf32>
  %6 = graph.add %one, %5 : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %7 = graph.mul %0, %6 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %7 : tensor<4xf32>
}

// -----

// torch.onnx's tanh GELU: x * (x * x), and 0.5 * (x * (1 + tanh(...))).
// CHECK-LABEL: func @gelu_tanh_mul
func.func @gelu_tanh_mul(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: %[[Y:.*]] = graph.gelu %{{.*}} {approximate = "tanh"}
  // CHECK-NEXT: return %[[Y]]
  %kappa = graph.constant {value = dense<0.044715> : tensor<f32>} : () -> tensor<f32>
  %beta = graph.constant {value = dense<0.797884583> : tensor<f32>} : () -> tensor<f32>
  %one = graph.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %half = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %0 = graph.mul %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = graph.mul %x, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = graph.mul %kappa, %1 : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = graph.add %x, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = graph.mul %beta, %3 : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = graph.tanh %4 : (tensor<4xf32>) -> tensor<4xf32>
  %6 = graph.add %one, %5 : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %7 = graph.mul %x, %6 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %8 = graph.mul %half, %7 : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %8 : tensor<4xf32>
}

// -----

// Not recognised: 1 + erf(.) is also returned.
// CHECK-LABEL: func @gelu_shared_intermediate
func.func @gelu_shared_intermediate(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NOT: graph.gelu
  // CHECK: graph.erf
  %sqrt2 = graph.constant {value = dense<1.4142135> : tensor<f32>} : () -> tensor<f32>
  %one = graph.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %half = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %0 = graph.div %x, %sqrt2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = graph.erf %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = graph.add %1, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = graph.mul %x, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = graph.mul %3, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %4, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Not recognised: the divisor is 1.5, not sqrt(2).
// CHECK-LABEL: func @gelu_wrong_constant
func.func @gelu_wrong_constant(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NOT: graph.gelu
  // CHECK: graph.erf
  %c = graph.constant {value = dense<1.5> : tensor<f32>} : () -> tensor<f32>
  %one = graph.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %half = graph.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %0 = graph.div %x, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = graph.erf %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = graph.add %1, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = graph.mul %x, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = graph.mul %3, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// The LayerNorm decomposition with Pow 2, gamma and beta (eps = 1e-5, the
// default, is not printed).
// CHECK-LABEL: func @layer_norm
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x3x8xf32> {{[^,]*}}, %[[G:[^:]*]]: tensor<8xf32> {{[^,]*}}, %[[B:[^:]*]]: tensor<8xf32>
func.func @layer_norm(%x: tensor<?x3x8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>) -> tensor<?x3x8xf32> {
  // CHECK: %[[Y:.*]] = graph.layer_normalization %[[X]], %[[G]], %[[B]] : {{.*}} loc(fused["mean", "sub", "pow", "var", "add_eps", "sqrt", "div", "mul", "add"])
  // CHECK-NEXT: return %[[Y]]
  %axes = graph.constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %two = graph.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %eps = graph.constant {value = dense<1.0e-5> : tensor<f32>} : () -> tensor<f32>
  %0 = graph.reduce_mean %x, %axes : (tensor<?x3x8xf32>, tensor<1xi64>) -> tensor<?x3x1xf32> loc("mean")
  %1 = graph.sub %x, %0 : (tensor<?x3x8xf32>, tensor<?x3x1xf32>) -> tensor<?x3x8xf32> loc("sub")
  %2 = graph.pow %1, %two : (tensor<?x3x8xf32>, tensor<f32>) -> tensor<?x3x8xf32> loc("pow")
  %3 = graph.reduce_mean %2, %axes : (tensor<?x3x8xf32>, tensor<1xi64>) -> tensor<?x3x1xf32> loc("var")
  %4 = graph.add %3, %eps : (tensor<?x3x1xf32>, tensor<f32>) -> tensor<?x3x1xf32> loc("add_eps")
  %5 = graph.sqrt %4 : (tensor<?x3x1xf32>) -> tensor<?x3x1xf32> loc("sqrt")
  %6 = graph.div %1, %5 : (tensor<?x3x8xf32>, tensor<?x3x1xf32>) -> tensor<?x3x8xf32> loc("div")
  %7 = graph.mul %6, %gamma : (tensor<?x3x8xf32>, tensor<8xf32>) -> tensor<?x3x8xf32> loc("mul")
  %8 = graph.add %7, %beta : (tensor<?x3x8xf32>, tensor<8xf32>) -> tensor<?x3x8xf32> loc("add")
  return %8 : tensor<?x3x8xf32>
}

// -----

// d * d for the square, the axis spelled as rank - 1, and no beta.
// CHECK-LABEL: func @layer_norm_no_bias
func.func @layer_norm_no_bias(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // CHECK: %[[G:.*]] = graph.constant {value = dense<2.000000e+00> : tensor<8xf32>}
  // CHECK-NEXT: %[[Y:.*]] = graph.layer_normalization %{{.*}}, %[[G]] {epsilon = 9.99999996E-13 : f32}
  // CHECK-NEXT: return %[[Y]]
  %axes = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %eps = graph.constant {value = dense<1.0e-12> : tensor<1xf32>} : () -> tensor<1xf32>
  %gamma = graph.constant {value = dense<2.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %0 = graph.reduce_mean %x, %axes : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %1 = graph.sub %x, %0 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %2 = graph.mul %1, %1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = graph.reduce_mean %2, %axes : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %4 = graph.add %eps, %3 : (tensor<1xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %5 = graph.sqrt %4 : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %6 = graph.div %1, %5 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %7 = graph.mul %gamma, %6 : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %7 : tensor<2x8xf32>
}

// -----

// Not recognised: the means are over the first axis.
// CHECK-LABEL: func @layer_norm_wrong_axis
func.func @layer_norm_wrong_axis(%x: tensor<2x8xf32>, %gamma: tensor<8xf32>) -> tensor<2x8xf32> {
  // CHECK-NOT: graph.layer_normalization
  // CHECK: graph.reduce_mean
  %axes = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %eps = graph.constant {value = dense<1.0e-5> : tensor<f32>} : () -> tensor<f32>
  %0 = graph.reduce_mean %x, %axes : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<1x8xf32>
  %1 = graph.sub %x, %0 : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  %2 = graph.mul %1, %1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = graph.reduce_mean %2, %axes : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<1x8xf32>
  %4 = graph.add %3, %eps : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %5 = graph.sqrt %4 : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %6 = graph.div %1, %5 : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  %7 = graph.mul %6, %gamma : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %7 : tensor<2x8xf32>
}

// -----

// Not recognised: the mean is also returned.
// CHECK-LABEL: func @layer_norm_shared_mean
func.func @layer_norm_shared_mean(%x: tensor<2x8xf32>, %gamma: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>) {
  // CHECK-NOT: graph.layer_normalization
  // CHECK: graph.reduce_mean
  %axes = graph.constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %eps = graph.constant {value = dense<1.0e-5> : tensor<f32>} : () -> tensor<f32>
  %0 = graph.reduce_mean %x, %axes : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %1 = graph.sub %x, %0 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %2 = graph.mul %1, %1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = graph.reduce_mean %2, %axes : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %4 = graph.add %3, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %5 = graph.sqrt %4 : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %6 = graph.div %1, %5 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %7 = graph.mul %6, %gamma : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %7, %0 : tensor<2x8xf32>, tensor<2x1xf32>
}

// -----

// Not recognised: 1 + erf(.) is scaled by a tensor of weights, not by 0.5.
// CHECK-LABEL: func @gelu_weighted
func.func @gelu_weighted(%x: tensor<2x40xf32>) -> tensor<2x40xf32> {
  // CHECK-NOT: graph.gelu
  // CHECK: graph.erf
  %sqrt2 = graph.constant {value = dense<1.4142135> : tensor<f32>} : () -> tensor<f32>
  %one = graph.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %w = graph.constant {value = dense_resource<weights> : tensor<2x40xf32>} : () -> tensor<2x40xf32>
  %0 = graph.div %x, %sqrt2 : (tensor<2x40xf32>, tensor<f32>) -> tensor<2x40xf32>
  %1 = graph.erf %0 : (tensor<2x40xf32>) -> tensor<2x40xf32>
  %2 = graph.add %1, %one : (tensor<2x40xf32>, tensor<f32>) -> tensor<2x40xf32>
  %3 = graph.mul %2, %w : (tensor<2x40xf32>, tensor<2x40xf32>) -> tensor<2x40xf32>
  %4 = graph.mul %3, %x : (tensor<2x40xf32>, tensor<2x40xf32>) -> tensor<2x40xf32>
  return %4 : tensor<2x40xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    }
  }
#-}

// -----

// Llama's RMSNorm as torch exports it: x * reciprocal(sqrt(mean(x^2) +
// eps)), then the weight (on either side).
// CHECK-LABEL: func @rms_norm_reciprocal
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x8xf32> {{.*}}, %[[G:[^:]*]]: tensor<8xf32>
func.func @rms_norm_reciprocal(%x: tensor<2x8xf32>, %gamma: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  // CHECK-NEXT: %[[Y:.*]] = graph.rms_normalization %[[X]], %[[G]] {epsilon = 9.99999997E-7 : f32} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32> loc(fused["pow", "mean", "eps", "sqrt", "reciprocal", "normalize", "scale"])
  // CHECK-NEXT: return %[[Y]], %[[X]]
  %two = graph.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %axes = graph.constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %eps = graph.constant {value = dense<1.0e-6> : tensor<f32>} : () -> tensor<f32>
  %0 = graph.pow %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32> loc("pow")
  %1 = graph.reduce_mean %0, %axes : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32> loc("mean")
  %2 = graph.add %1, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32> loc("eps")
  %3 = graph.sqrt %2 : (tensor<2x1xf32>) -> tensor<2x1xf32> loc("sqrt")
  %4 = graph.reciprocal %3 : (tensor<2x1xf32>) -> tensor<2x1xf32> loc("reciprocal")
  %5 = graph.mul %x, %4 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32> loc("normalize")
  %6 = graph.mul %gamma, %5 : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32> loc("scale")
  return %6, %x : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// The division form with x * x; the root read twice stays apart.
// CHECK-LABEL: func @rms_norm_div
func.func @rms_norm_div(%x: tensor<3x4xf32>, %gamma: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x1xf32>) {
  // CHECK: %[[Y:.*]] = graph.rms_normalization %arg0, %arg1 : (
  // CHECK: graph.reduce_mean
  // CHECK: return %[[Y]]
  %axes = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %eps = graph.constant {value = dense<1.0e-5> : tensor<f32>} : () -> tensor<f32>
  %0 = graph.mul %x, %x : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = graph.reduce_mean %0, %axes : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  %2 = graph.add %eps, %1 : (tensor<f32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  %3 = graph.sqrt %2 : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %4 = graph.div %x, %3 : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %5 = graph.mul %4, %gamma : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %6 = graph.mul %x, %x : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %7 = graph.reduce_mean %6, %axes : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  %8 = graph.add %eps, %7 : (tensor<f32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  %9 = graph.sqrt %8 : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %10 = graph.div %x, %9 : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %11 = graph.mul %10, %gamma : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %5, %11, %9 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x1xf32>
}

// -----

// SiLU: x * sigmoid(x) in either order; a sigmoid read elsewhere stays.
// CHECK-LABEL: func @silu
func.func @silu(%x: tensor<4xf32>, %z: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NEXT: %[[A:.*]] = graph.silu %arg0 : (tensor<4xf32>) -> tensor<4xf32> loc(fused["s", "m"])
  // CHECK-NEXT: %[[S:.*]] = graph.sigmoid %arg1
  // CHECK-NEXT: %[[B:.*]] = graph.mul %[[S]], %arg1
  // CHECK-NEXT: return %[[A]], %[[B]], %[[S]]
  %0 = graph.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32> loc("s")
  %1 = graph.mul %0, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("m")
  %2 = graph.sigmoid %z : (tensor<4xf32>) -> tensor<4xf32>
  %3 = graph.mul %2, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1, %3, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
