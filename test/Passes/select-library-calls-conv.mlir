// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-select-library-calls=workspace-bytes=1024 | FileCheck %s
// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-select-library-calls --graphc-plan-memory --graphc-lower-to-exec | FileCheck %s --check-prefix=EXEC
// RUN: graphc-opt %s --split-input-file --graphc-form-fusion-groups --graphc-select-library-calls=cudnn=false | FileCheck %s --check-prefix=NOCUDNN

// A ResNet block's end: the conv with its bias, the residual add and the
// ReLU are one cuDNN call.
// CHECK-LABEL: func.func @conv_bias_add_relu
// CHECK: kernel.fusion "conv_add_relu_0" conv
// CHECK-SAME: library = #kernel.library<cudnn>
// CHECK-SAME: schedule = #kernel.schedule<workspace_bytes = 1024>
// CHECK-NOT: kernel.fusion
// EXEC-LABEL: exec.kernel @conv_add_relu_{{[0-9a-f]+}} conv
// EXEC-SAME: conv = #exec.conv<n = 2, c = 4, k = 8, groups = 1, in_size = [6, 6], filter_size = [3, 3], out_size = [6, 6], pads_begin = [1, 1], pads_end = [1, 1], strides = [1, 1], dilations = [1, 1], epilogue = relu, x = 0, w = 1, bias = 2, z = 3, y = 4, channels_last = false>
// EXEC-SAME: library = #kernel.library<cudnn>
// EXEC: exec.library_call @[[K_CONV_ADD_RELU_0:conv_add_relu_[0-9a-f]+]] [{{.*}}] workspace <arena, {{[0-9]+}}, {{[0-9]+}}, 33554432>
// NOCUDNN-LABEL: func.func @conv_bias_add_relu
// NOCUDNN: kernel.fusion "conv_add_relu_0" conv
// NOCUDNN-SAME: {hash = "{{[0-9a-f]+}}", schedule
func.func @conv_bias_add_relu(%x: tensor<2x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>, %r: tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32> {
  %0 = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x4x6x6xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<2x8x6x6xf32>
  %1 = graph.add %r, %0 : (tensor<2x8x6x6xf32>, tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %2 = graph.relu %1 : (tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  return %2 : tensor<2x8x6x6xf32>
}

// -----

// SiLU is no cuDNN epilogue here: the conv (and its bias) is the call, the
// sigmoid and product a generated pointwise kernel reading its result.
// CHECK-LABEL: func.func @conv_silu
// CHECK: %[[CALL:.*]] = kernel.fusion "conv_0" conv
// CHECK-SAME: library = #kernel.library<cudnn>
// CHECK: graph.conv
// CHECK-NEXT: kernel.yield
// CHECK: kernel.fusion "sigmoid_mul_0" pointwise(%[[CALL]])
// CHECK-SAME: {hash = "{{[0-9a-f]+}}", schedule
// EXEC-LABEL: exec.kernel @conv_{{[0-9a-f]+}} conv
// EXEC-SAME: epilogue = none, x = 0, w = 1, bias = 2, z = -1, y = 3, channels_last = false>
// EXEC: exec.library_call @[[K_CONV_0:conv_[0-9a-f]+]]
// EXEC-NEXT: exec.launch @[[K_SIGMOID_MUL_0:sigmoid_mul_[0-9a-f]+]]
func.func @conv_silu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x1x1xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %0 = graph.conv %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %1 = graph.sigmoid %0 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = graph.mul %0, %1 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %2 : tensor<1x4x8x8xf32>
}

// -----

// SAME_UPPER with stride 2 over an even size pads one zero after only; a
// depthwise, dilated f16 convolution keeps its groups and dilations.
// EXEC-LABEL: exec.kernel @conv_{{[0-9a-f]+}} conv
// EXEC-SAME: conv = #exec.conv<n = 1, c = 8, k = 8, groups = 8, in_size = [8, 8], filter_size = [3, 3], out_size = [4, 4], pads_begin = [1, 1], pads_end = [2, 2], strides = [2, 2], dilations = [2, 2], epilogue = none, x = 0, w = 1, bias = -1, z = -1, y = 2, channels_last = false>
func.func @depthwise_same_upper(%x: tensor<1x8x8x8xf16>, %w: tensor<8x1x3x3xf16>) -> tensor<1x8x4x4xf16> {
  %0 = graph.conv %x, %w {auto_pad = "SAME_UPPER", group = 8 : i64, strides = array<i64: 2, 2>, dilations = array<i64: 2, 2>} : (tensor<1x8x8x8xf16>, tensor<8x1x3x3xf16>) -> tensor<1x8x4x4xf16>
  return %0 : tensor<1x8x4x4xf16>
}

// -----

// A 1-d and a 3-d convolution are library calls too; a transposed one is
// not (cuDNN's backward-data convolution is not used).
// CHECK-LABEL: func.func @ranks
// CHECK: kernel.fusion "conv_0" conv
// CHECK-SAME: library = #kernel.library<cudnn>
// CHECK: kernel.fusion "conv_1" conv
// CHECK-SAME: library = #kernel.library<cudnn>
// CHECK: kernel.fusion "conv_transpose_2" conv
// CHECK-SAME: {hash = "{{[0-9a-f]+}}", schedule
// EXEC-LABEL: exec.kernel @conv_{{[0-9a-f]+}} conv
// EXEC-SAME: in_size = [10], filter_size = [3], out_size = [4], pads_begin = [0], pads_end = [0], strides = [2]
// EXEC-LABEL: exec.kernel @conv_{{[0-9a-f]+}} conv
// EXEC-SAME: in_size = [4, 5, 6], filter_size = [1, 2, 3], out_size = [4, 4, 4]
func.func @ranks(%a: tensor<1x2x10xf32>, %wa: tensor<3x2x3xf32>, %v: tensor<1x2x4x5x6xbf16>, %wv: tensor<3x2x1x2x3xbf16>, %t: tensor<1x2x4x4xf32>, %wt: tensor<2x3x2x2xf32>) -> (tensor<1x3x4xf32>, tensor<1x3x4x4x4xbf16>, tensor<1x3x8x8xf32>) {
  %0 = graph.conv %a, %wa {strides = array<i64: 2>} : (tensor<1x2x10xf32>, tensor<3x2x3xf32>) -> tensor<1x3x4xf32>
  %1 = graph.conv %v, %wv : (tensor<1x2x4x5x6xbf16>, tensor<3x2x1x2x3xbf16>) -> tensor<1x3x4x4x4xbf16>
  %2 = graph.conv_transpose %t, %wt {strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<2x3x2x2xf32>) -> tensor<1x3x8x8xf32>
  return %0, %1, %2 : tensor<1x3x4xf32>, tensor<1x3x4x4x4xbf16>, tensor<1x3x8x8xf32>
}

// -----

// A conv whose result is also returned keeps its ReLU out of the call: only
// the call's own result may leave it.
// CHECK-LABEL: func.func @two_uses
// CHECK: %[[CALL:.*]] = kernel.fusion "conv_0" conv
// CHECK-SAME: library = #kernel.library<cudnn>
// CHECK: kernel.fusion "relu_1" pointwise(%[[CALL]])
func.func @two_uses(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %0 = graph.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.relu %0 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %0, %1 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// SiLU (one graph op once the exporter's Sigmoid and Mul are recognised) is
// a cuDNN epilogue, SWISH_FWD: the whole fusion is one call.
// CHECK-LABEL: func.func @conv_silu_op
// CHECK: kernel.fusion "conv_silu_0" conv
// CHECK-SAME: library = #kernel.library<cudnn>
// CHECK-NOT: kernel.fusion
// EXEC-LABEL: exec.kernel @conv_silu_{{[0-9a-f]+}} conv
// EXEC-SAME: epilogue = silu, x = 0, w = 1, bias = 2, z = -1, y = 3, channels_last = false>
func.func @conv_silu_op(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %0 = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %1 = graph.silu %0 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %1 : tensor<1x4x8x8xf32>
}

// -----

// The erf GELU is a cuDNN epilogue too (GELU_FWD); the tanh GELU is not,
// so it stays a generated pointwise kernel after the call.
// CHECK-LABEL: func.func @conv_gelu
// CHECK: %[[CALL:.*]] = kernel.fusion "conv_gelu_0" conv
// CHECK-SAME: library = #kernel.library<cudnn>
// CHECK: kernel.fusion "conv_1" conv{{.*}}library = #kernel.library<cudnn>
// CHECK: kernel.fusion "gelu_1" pointwise
// EXEC-LABEL: exec.kernel @conv_gelu_{{[0-9a-f]+}} conv
// EXEC-SAME: epilogue = gelu_erf, x = 0, w = 1, bias = 2, z = -1, y = 3, channels_last = false>
func.func @conv_gelu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %0 = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %1 = graph.gelu %0 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %3 = graph.gelu %2 {approximate = "tanh"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %1, %3 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}
