// RUN: graphc-opt %s --split-input-file --graphc-convert-conv-layout=float32=true | FileCheck %s
// RUN: graphc-opt %s --split-input-file --graphc-convert-conv-layout="convs-per-transpose=0.5 float32=true" | FileCheck %s --check-prefix=EAGER
// RUN: graphc-opt %s --split-input-file --graphc-convert-conv-layout | FileCheck %s --check-prefix=EXACT

// Exact float32 convolutions run on CUDA cores, where NCHW is every cuDNN
// engine's layout: without float32 (--precision tf32) nothing moves.
// EXACT-NOT: channels_last
// EXACT-NOT: graph.transpose

// A chain of four convolutions joined by ReLUs and a residual add: each is
// channels last with its weight moved to [M, k..., C/group] at compile
// time, and the only transposes left are the chain's two ends (two for
// four convolutions). The residual add reads both sides channels last.
// CHECK-LABEL: func.func @chain
// CHECK-DAG: %[[W1:.*]] = graph.constant {value = dense<{{\[}}{{\[}}{{\[}}[1.000000e+00, 2.000000e+00]]], {{\[}}{{\[}}[3.000000e+00, 4.000000e+00]]]]> : tensor<2x1x1x2xf32>}
// CHECK-DAG: %[[W3:.*]] = graph.constant {{.*}} : () -> tensor<2x3x3x2xf32>
// CHECK: %[[X:.*]] = graph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x5x5x2xf32>
// CHECK: %[[C1:.*]] = graph.conv %[[X]], %[[W1]], %{{.*}} {channels_last = 1 : i64} : (tensor<1x5x5x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x5x5x2xf32>
// CHECK: %[[R1:.*]] = graph.relu %[[C1]] : (tensor<1x5x5x2xf32>) -> tensor<1x5x5x2xf32>
// CHECK: %[[C2:.*]] = graph.conv %[[R1]], %[[W3]] {channels_last = 1 : i64, pads = array<i64: 1, 1, 1, 1>}
// CHECK: %[[A:.*]] = graph.add %[[C2]], %[[R1]] : (tensor<1x5x5x2xf32>, tensor<1x5x5x2xf32>) -> tensor<1x5x5x2xf32>
// CHECK: %[[R2:.*]] = graph.relu %[[A]]
// CHECK: %[[C3:.*]] = graph.conv %[[R2]], %[[W1]] {channels_last = 1 : i64}
// CHECK: %[[C4:.*]] = graph.conv %[[C3]], %[[W1]] {channels_last = 1 : i64}
// CHECK: %[[Y:.*]] = graph.transpose %[[C4]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x5x5x2xf32>) -> tensor<1x2x5x5xf32>
// CHECK-NOT: graph.transpose
// CHECK: return %[[Y]]
func.func @chain(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32> {
  %w1 = graph.constant {value = dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %w3 = graph.constant {value = dense<0.5> : tensor<2x2x3x3xf32>} : () -> tensor<2x2x3x3xf32>
  %b = graph.constant {value = dense<[0.25, -0.25]> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = graph.conv %x, %w1, %b : (tensor<1x2x5x5xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x5x5xf32>
  %1 = graph.relu %0 : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  %2 = graph.conv %1, %w3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  %3 = graph.add %2, %1 : (tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  %4 = graph.relu %3 : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  %5 = graph.conv %4, %w1 : (tensor<1x2x5x5xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x5x5xf32>
  %6 = graph.conv %5, %w1 : (tensor<1x2x5x5xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x5x5xf32>
  return %6 : tensor<1x2x5x5xf32>
}

// -----

// A lone convolution would need two transposes: it stays channels first,
// unless a transpose per two convolutions is allowed.
// CHECK-LABEL: func.func @lone
// CHECK-NOT: graph.transpose
// CHECK: graph.conv %arg0, %{{.*}} : (tensor<1x3x8x8xf32>
// EAGER-LABEL: func.func @lone
// EAGER: graph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// EAGER: graph.conv {{.*}}channels_last = 1
// EAGER: graph.transpose {{.*}}perm = array<i64: 0, 3, 1, 2>
func.func @lone(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant {value = dense<1.0> : tensor<4x3x1x1xf32>} : () -> tensor<4x3x1x1xf32>
  %0 = graph.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// A chain ending in a global average pool averages the channels-last value
// over its spatial dims; the [N, 1, 1, C] mean is the pooled [N, C, 1, 1]
// tensor's bytes, so only the chain's input transposes.
// EAGER-LABEL: func.func @pooled
// EAGER-DAG: %[[AXES:.*]] = graph.constant {value = dense<[1, 2]> : tensor<2xi64>}
// EAGER: graph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// EAGER: %[[C:.*]] = graph.conv {{.*}}channels_last = 1
// EAGER: %[[M:.*]] = graph.reduce_mean %[[C]], %[[AXES]] : (tensor<2x6x6x4xf32>, tensor<2xi64>) -> tensor<2x1x1x4xf32>
// EAGER-NOT: graph.transpose
// EAGER: graph.reshape %[[M]]
// EAGER-NOT: graph.global_average_pool
func.func @pooled(%x: tensor<2x3x6x6xf32>) -> tensor<2x4x1x1xf32> {
  %w = graph.constant {value = dense<1.0> : tensor<4x3x3x3xf32>} : () -> tensor<4x3x3x3xf32>
  %0 = graph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  %1 = graph.global_average_pool %0 : (tensor<2x4x6x6xf32>) -> tensor<2x4x1x1xf32>
  return %1 : tensor<2x4x1x1xf32>
}

// -----

// A weight that is no constant cannot be moved at compile time: the
// convolution stays channels first whatever the threshold.
// EAGER-LABEL: func.func @computed_weight
// EAGER-NOT: graph.transpose
// EAGER-NOT: channels_last
func.func @computed_weight(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %0 = graph.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// torch.export writes the pool as a ReduceMean over the last two dims,
// kept: the mean moves to the channels-last value's dims 1 and 2.
// EAGER-LABEL: func.func @mean_of_last_dims
// EAGER-DAG: %[[AXES:.*]] = graph.constant {value = dense<[1, 2]> : tensor<2xi64>}
// EAGER: %[[C:.*]] = graph.conv {{.*}}channels_last = 1
// EAGER: %[[M:.*]] = graph.reduce_mean %[[C]], %[[AXES]] : (tensor<2x6x6x4xf32>, tensor<2xi64>) -> tensor<2x1x1x4xf32>
// EAGER-NOT: graph.transpose
// EAGER: graph.reshape %[[M]]
func.func @mean_of_last_dims(%x: tensor<2x3x6x6xf32>) -> tensor<2x4x1x1xf32> {
  %w = graph.constant {value = dense<1.0> : tensor<4x3x3x3xf32>} : () -> tensor<4x3x3x3xf32>
  %axes = graph.constant {value = dense<[-1, -2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = graph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  %1 = graph.reduce_mean %0, %axes : (tensor<2x4x6x6xf32>, tensor<2xi64>) -> tensor<2x4x1x1xf32>
  return %1 : tensor<2x4x1x1xf32>
}

// -----

// A float16 chain converts without float32: tensor cores take it.
// EXACT-LABEL: func.func @half_chain
// EXACT: graph.transpose %arg0
// EXACT-COUNT-4: channels_last = 1
// EXACT: graph.transpose
func.func @half_chain(%x: tensor<1x2x5x5xf16>) -> tensor<1x2x5x5xf16> {
  %w = graph.constant {value = dense<0.5> : tensor<2x2x1x1xf16>} : () -> tensor<2x2x1x1xf16>
  %0 = graph.conv %x, %w : (tensor<1x2x5x5xf16>, tensor<2x2x1x1xf16>) -> tensor<1x2x5x5xf16>
  %1 = graph.relu %0 : (tensor<1x2x5x5xf16>) -> tensor<1x2x5x5xf16>
  %2 = graph.conv %1, %w : (tensor<1x2x5x5xf16>, tensor<2x2x1x1xf16>) -> tensor<1x2x5x5xf16>
  %3 = graph.conv %2, %w : (tensor<1x2x5x5xf16>, tensor<2x2x1x1xf16>) -> tensor<1x2x5x5xf16>
  %4 = graph.conv %3, %w : (tensor<1x2x5x5xf16>, tensor<2x2x1x1xf16>) -> tensor<1x2x5x5xf16>
  return %4 : tensor<1x2x5x5xf16>
}

// -----

// Two int8 convolutions joined by the explicit pad of the second one's
// input (a zero point, see graphc-form-quantized-regions): the pad moves
// with them, its pads permuted to [N, H, W, C], and only the chain's two
// ends transpose.
// CHECK-LABEL: func.func @int8_pad
// CHECK-DAG: %[[PADS:.*]] = graph.constant {value = dense<[0, 1, 1, 0, 0, 1, 1, 0]> : tensor<8xi64>}
// CHECK: graph.transpose %arg0
// CHECK: %[[C1:.*]] = graph.quantized_conv %{{.*}} {channels_last = 1 : i64} : (tensor<1x5x5x4xi8>, tensor<4x1x1x4xi8>) -> tensor<1x5x5x4xi32>
// CHECK: %[[Q:.*]] = graph.cast %[[C1]] {to = i8} : (tensor<1x5x5x4xi32>) -> tensor<1x5x5x4xi8>
// CHECK: %[[X:.*]] = graph.pad %[[Q]], %[[PADS]], %{{.*}} {{.*}} -> tensor<1x7x7x4xi8>
// CHECK: %[[C2:.*]] = graph.quantized_conv %[[X]], %{{.*}} {channels_last = 1 : i64} : (tensor<1x7x7x4xi8>, tensor<4x3x3x4xi8>) -> tensor<1x5x5x4xi32>
// CHECK: graph.transpose %[[C2]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NOT: graph.transpose
func.func @int8_pad(%x: tensor<1x4x5x5xi8>) -> tensor<1x4x5x5xi32> {
  %w1 = graph.constant {value = dense<1> : tensor<4x4x1x1xi8>} : () -> tensor<4x4x1x1xi8>
  %w3 = graph.constant {value = dense<2> : tensor<4x4x3x3xi8>} : () -> tensor<4x4x3x3xi8>
  %pads = graph.constant {value = dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>} : () -> tensor<8xi64>
  %fill = graph.constant {value = dense<-128> : tensor<i8>} : () -> tensor<i8>
  %0 = graph.quantized_conv %x, %w1 : (tensor<1x4x5x5xi8>, tensor<4x4x1x1xi8>) -> tensor<1x4x5x5xi32>
  %1 = graph.cast %0 {to = i8} : (tensor<1x4x5x5xi32>) -> tensor<1x4x5x5xi8>
  %2 = graph.pad %1, %pads, %fill {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x4x5x5xi8>, tensor<8xi64>, tensor<i8>) -> tensor<1x4x7x7xi8>
  %3 = graph.quantized_conv %2, %w3 : (tensor<1x4x7x7xi8>, tensor<4x4x3x3xi8>) -> tensor<1x4x5x5xi32>
  return %3 : tensor<1x4x5x5xi32>
}
