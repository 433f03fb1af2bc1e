// RUN: graphc-opt %s --split-input-file | graphc-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func @constants_and_shapes
func.func @constants_and_shapes(%x: tensor<?x3x4xf32>, %s: tensor<2xi64>) -> (tensor<?x?xi64>, tensor<2x3xf32>, tensor<3xi64>, tensor<2xi64>, tensor<i64>) {
  // CHECK: graph.constant_of_shape %{{.*}} {value = dense<1> : tensor<1xi64>} : (tensor<2xi64>) -> tensor<?x?xi64>
  %0 = graph.constant_of_shape %s {value = dense<1> : tensor<1xi64>} : (tensor<2xi64>) -> tensor<?x?xi64>
  %c = graph.constant {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: graph.constant_of_shape %{{.*}} : (tensor<2xi64>) -> tensor<2x3xf32>
  %1 = graph.constant_of_shape %c : (tensor<2xi64>) -> tensor<2x3xf32>
  // CHECK: graph.shape %{{.*}} : (tensor<?x3x4xf32>) -> tensor<3xi64>
  %2 = graph.shape %x : (tensor<?x3x4xf32>) -> tensor<3xi64>
  // CHECK: graph.shape %{{.*}} {end = -1 : i64, start = -3 : i64} : (tensor<?x3x4xf32>) -> tensor<2xi64>
  %3 = graph.shape %x {start = -3 : i64, end = -1 : i64} : (tensor<?x3x4xf32>) -> tensor<2xi64>
  // CHECK: graph.size %{{.*}} : (tensor<?x3x4xf32>) -> tensor<i64>
  %4 = graph.size %x : (tensor<?x3x4xf32>) -> tensor<i64>
  return %0, %1, %2, %3, %4 : tensor<?x?xi64>, tensor<2x3xf32>, tensor<3xi64>, tensor<2xi64>, tensor<i64>
}

// -----

// CHECK-LABEL: func @reshaping
func.func @reshaping(%x: tensor<?x3x4xf32>, %shape: tensor<2xi64>, %axes: tensor<1xi64>) -> (tensor<?x?xf32>, tensor<?x12xf32>, tensor<4x?x3xf32>, tensor<1x?x3x4xf32>, tensor<?x4xf32>, tensor<?x3x4xf32>, tensor<?x6x8xf32>) {
  // CHECK: graph.reshape %{{.*}}, %{{.*}} : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %0 = graph.reshape %x, %shape : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  // CHECK: graph.flatten %{{.*}} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  %1 = graph.flatten %x : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  // CHECK: graph.transpose %{{.*}} : (tensor<?x3x4xf32>) -> tensor<4x?x3xf32>
  %2 = graph.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<?x3x4xf32>) -> tensor<4x?x3xf32>
  %zero = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  // CHECK: graph.unsqueeze %{{.*}}, %{{.*}} : (tensor<?x3x4xf32>, tensor<1xi64>) -> tensor<1x?x3x4xf32>
  %3 = graph.unsqueeze %x, %zero : (tensor<?x3x4xf32>, tensor<1xi64>) -> tensor<1x?x3x4xf32>
  // CHECK: graph.squeeze %{{.*}}, %{{.*}} : (tensor<1x?x3x4xf32>, tensor<1xi64>) -> tensor<?x3x4xf32>
  %4 = graph.squeeze %3, %zero : (tensor<1x?x3x4xf32>, tensor<1xi64>) -> tensor<?x3x4xf32>
  %s = graph.constant {value = dense<[-1, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: graph.reshape
  %5 = graph.reshape %4, %s : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  %e = graph.constant {value = dense<[1, 1, 1]> : tensor<3xi64>} : () -> tensor<3xi64>
  // CHECK: graph.expand %{{.*}}, %{{.*}} : (tensor<?x3x4xf32>, tensor<3xi64>) -> tensor<?x3x4xf32>
  %6 = graph.expand %x, %e : (tensor<?x3x4xf32>, tensor<3xi64>) -> tensor<?x3x4xf32>
  %r = graph.constant {value = dense<[1, 2, 2]> : tensor<3xi64>} : () -> tensor<3xi64>
  // CHECK: graph.tile %{{.*}}, %{{.*}} : (tensor<?x3x4xf32>, tensor<3xi64>) -> tensor<?x6x8xf32>
  %7 = graph.tile %x, %r : (tensor<?x3x4xf32>, tensor<3xi64>) -> tensor<?x6x8xf32>
  // CHECK: graph.squeeze %{{.*}} : (tensor<1x3x1xf32>) -> tensor<3xf32>
  %one = graph.constant {value = dense<1.0> : tensor<1x3x1xf32>} : () -> tensor<1x3x1xf32>
  %8 = graph.squeeze %one : (tensor<1x3x1xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3, %5, %6, %7 : tensor<?x?xf32>, tensor<?x12xf32>, tensor<4x?x3xf32>, tensor<1x?x3x4xf32>, tensor<?x4xf32>, tensor<?x3x4xf32>, tensor<?x6x8xf32>
}

// -----

// CHECK-LABEL: func @blocks
func.func @blocks(%x: tensor<1x8x2x3xf32>, %y: tensor<1x2x4x6xf32>) -> (tensor<1x2x4x6xf32>, tensor<1x8x2x3xf32>) {
  // CHECK: graph.depth_to_space %{{.*}} {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  %0 = graph.depth_to_space %x {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  // CHECK: graph.space_to_depth %{{.*}} {blocksize = 2 : i64} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  %1 = graph.space_to_depth %y {blocksize = 2 : i64} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  return %0, %1 : tensor<1x2x4x6xf32>, tensor<1x8x2x3xf32>
}

// -----

// CHECK-LABEL: func @join_and_split
func.func @join_and_split(%a: tensor<?x4xf32>, %b: tensor<?x2xf32>, %s: tensor<2xi64>) -> (tensor<?x6xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x2xf32>, tensor<?x?xf32>) {
  // CHECK: graph.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<?x4xf32>, tensor<?x2xf32>) -> tensor<?x6xf32>
  %0 = graph.concat %a, %b {axis = 1 : i64} : (tensor<?x4xf32>, tensor<?x2xf32>) -> tensor<?x6xf32>
  // CHECK: graph.split %{{.*}} {axis = 1 : i64, num_outputs = 2 : i64} : (tensor<?x6xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>)
  %1:2 = graph.split %0 {axis = 1 : i64, num_outputs = 2 : i64} : (tensor<?x6xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>)
  %lens = graph.constant {value = dense<[4, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: graph.split %{{.*}}, %{{.*}} {axis = -1 : i64, num_outputs = 2 : i64} : (tensor<?x6xf32>, tensor<2xi64>) -> (tensor<?x4xf32>, tensor<?x2xf32>)
  %2:2 = graph.split %0, %lens {axis = -1 : i64, num_outputs = 2 : i64} : (tensor<?x6xf32>, tensor<2xi64>) -> (tensor<?x4xf32>, tensor<?x2xf32>)
  // CHECK: graph.split %{{.*}}, %{{.*}} {axis = 1 : i64, num_outputs = 2 : i64} : (tensor<?x6xf32>, tensor<2xi64>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
  %3:2 = graph.split %0, %s {axis = 1 : i64, num_outputs = 2 : i64} : (tensor<?x6xf32>, tensor<2xi64>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
  return %0, %1#0, %1#1, %1#0, %2#1, %3#0 : tensor<?x6xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x2xf32>, tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @slicing_and_gathering
func.func @slicing_and_gathering(%x: tensor<5x8xf32>, %i: tensor<3xi64>, %ie: tensor<5x2xi64>, %nd: tensor<3x2xi64>, %t: tensor<4x5x6xf32>) -> (tensor<5x3xf32>, tensor<3x8xf32>, tensor<5x2xf32>, tensor<3x6xf32>, tensor<5x8xf32>, tensor<5x8xf32>) {
  %starts = graph.constant {value = dense<[1, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %ends = graph.constant {value = dense<[4, -9223372036854775807]> : tensor<2xi64>} : () -> tensor<2xi64>
  %axes = graph.constant {value = dense<[1, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  %steps = graph.constant {value = dense<[1, -2]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: graph.slice %{{.*}} {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<5x8xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3x3xf32>
  %s = graph.slice %x, %starts, %ends, %axes, %steps {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<5x8xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3x3xf32>
  %s1 = graph.constant {value = dense<[0, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %e1 = graph.constant {value = dense<[100, 5]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: graph.slice %{{.*}} {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<5x8xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<5x3xf32>
  %0 = graph.slice %x, %s1, %e1 {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<5x8xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<5x3xf32>
  // CHECK: graph.gather %{{.*}}, %{{.*}} : (tensor<5x8xf32>, tensor<3xi64>) -> tensor<3x8xf32>
  %1 = graph.gather %x, %i : (tensor<5x8xf32>, tensor<3xi64>) -> tensor<3x8xf32>
  // CHECK: graph.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<5x8xf32>, tensor<5x2xi64>) -> tensor<5x2xf32>
  %2 = graph.gather_elements %x, %ie {axis = 1 : i64} : (tensor<5x8xf32>, tensor<5x2xi64>) -> tensor<5x2xf32>
  // CHECK: graph.gather_nd %{{.*}}, %{{.*}} : (tensor<4x5x6xf32>, tensor<3x2xi64>) -> tensor<3x6xf32>
  %3 = graph.gather_nd %t, %nd : (tensor<4x5x6xf32>, tensor<3x2xi64>) -> tensor<3x6xf32>
  // CHECK: graph.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, reduction = "add"} : (tensor<5x8xf32>, tensor<5x2xi64>, tensor<5x2xf32>) -> tensor<5x8xf32>
  %4 = graph.scatter_elements %x, %ie, %2 {axis = 1 : i64, reduction = "add"} : (tensor<5x8xf32>, tensor<5x2xi64>, tensor<5x2xf32>) -> tensor<5x8xf32>
  %rows = graph.constant {value = dense<[[0], [3]]> : tensor<2x1xi64>} : () -> tensor<2x1xi64>
  %upd = graph.constant {value = dense<1.0> : tensor<2x8xf32>} : () -> tensor<2x8xf32>
  // CHECK: graph.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} : (tensor<5x8xf32>, tensor<2x1xi64>, tensor<2x8xf32>) -> tensor<5x8xf32>
  %5 = graph.scatter_nd %x, %rows, %upd : (tensor<5x8xf32>, tensor<2x1xi64>, tensor<2x8xf32>) -> tensor<5x8xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<5x3xf32>, tensor<3x8xf32>, tensor<5x2xf32>, tensor<3x6xf32>, tensor<5x8xf32>, tensor<5x8xf32>
}

// -----

// CHECK-LABEL: func @padding_and_resizing
func.func @padding_and_resizing(%x: tensor<1x3x8x8xf32>, %v: tensor<f32>) -> (tensor<1x3x10x11xf32>, tensor<1x3x16x16xf32>, tensor<1x3x4x6xf32>, tensor<1x3x6x6xf32>) {
  %pads = graph.constant {value = dense<[1, 1, 1, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %axes = graph.constant {value = dense<[2, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: graph.pad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {mode = "reflect", operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4xi64>, tensor<f32>, tensor<2xi64>) -> tensor<1x3x10x11xf32>
  %0 = graph.pad %x, %pads, %v, %axes {mode = "reflect", operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4xi64>, tensor<f32>, tensor<2xi64>) -> tensor<1x3x10x11xf32>
  %scales = graph.constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  // CHECK: graph.resize %{{.*}}, %{{.*}} {mode = "linear", operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4xf32>) -> tensor<1x3x16x16xf32>
  %1 = graph.resize %x, %scales {mode = "linear", operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4xf32>) -> tensor<1x3x16x16xf32>
  %sizes = graph.constant {value = dense<[4, 6]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: graph.resize %{{.*}}, %{{.*}} {axes = array<i64: 2, 3>, operandSegmentSizes = array<i32: 1, 0, 0, 1>} : (tensor<1x3x8x8xf32>, tensor<2xi64>) -> tensor<1x3x4x6xf32>
  %2 = graph.resize %x, %sizes {axes = array<i64: 2, 3>, operandSegmentSizes = array<i32: 1, 0, 0, 1>} : (tensor<1x3x8x8xf32>, tensor<2xi64>) -> tensor<1x3x4x6xf32>
  // CHECK: graph.resize %{{.*}}, %{{.*}} {axes = array<i64: 2, 3>, keep_aspect_ratio_policy = "not_smaller", operandSegmentSizes = array<i32: 1, 0, 0, 1>} : (tensor<1x3x8x8xf32>, tensor<2xi64>) -> tensor<1x3x6x6xf32>
  %3 = graph.resize %x, %sizes {axes = array<i64: 2, 3>, keep_aspect_ratio_policy = "not_smaller", operandSegmentSizes = array<i32: 1, 0, 0, 1>} : (tensor<1x3x8x8xf32>, tensor<2xi64>) -> tensor<1x3x6x6xf32>
  return %0, %1, %2, %3 : tensor<1x3x10x11xf32>, tensor<1x3x16x16xf32>, tensor<1x3x4x6xf32>, tensor<1x3x6x6xf32>
}

// -----

// CHECK-LABEL: func @generators
func.func @generators(%x: tensor<4x4xf32>, %k: tensor<i64>, %i: tensor<4xi64>, %v: tensor<2xf32>, %n: tensor<i64>, %l: tensor<2xi64>) -> (tensor<5xi64>, tensor<?xi64>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x3xf32>, tensor<4x?xf32>, tensor<4x4xi64>, tensor<4x4xf32>) {
  %start = graph.constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %limit = graph.constant {value = dense<10> : tensor<i64>} : () -> tensor<i64>
  %delta = graph.constant {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  // CHECK: graph.range %{{.*}}, %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<5xi64>
  %0 = graph.range %start, %limit, %delta : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<5xi64>
  // CHECK: graph.range %{{.*}}, %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %1 = graph.range %start, %n, %delta : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  // CHECK: graph.trilu %{{.*}} {upper = 0 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = graph.trilu %x {upper = 0 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  // CHECK: graph.trilu %{{.*}}, %{{.*}} : (tensor<4x4xf32>, tensor<i64>) -> tensor<4x4xf32>
  %3 = graph.trilu %x, %k : (tensor<4x4xf32>, tensor<i64>) -> tensor<4x4xf32>
  %depth = graph.constant {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  // CHECK: graph.one_hot %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4xi64>, tensor<i64>, tensor<2xf32>) -> tensor<4x3xf32>
  %4 = graph.one_hot %i, %depth, %v : (tensor<4xi64>, tensor<i64>, tensor<2xf32>) -> tensor<4x3xf32>
  // CHECK: graph.one_hot %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4xi64>, tensor<i64>, tensor<2xf32>) -> tensor<4x?xf32>
  %5 = graph.one_hot %i, %n, %v : (tensor<4xi64>, tensor<i64>, tensor<2xf32>) -> tensor<4x?xf32>
  // CHECK: graph.eye_like %{{.*}} {dtype = i64, k = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xi64>
  %6 = graph.eye_like %x {dtype = i64, k = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xi64>
  // CHECK: graph.reverse_sequence %{{.*}}, %{{.*}} {batch_axis = 0 : i64, time_axis = 1 : i64} : (tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x4xf32>
  %7 = graph.reverse_sequence %x, %i {batch_axis = 0 : i64, time_axis = 1 : i64} : (tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<5xi64>, tensor<?xi64>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x3xf32>, tensor<4x?xf32>, tensor<4x4xi64>, tensor<4x4xf32>
}

// -----

// CHECK-LABEL: func @grid_sampling
func.func @grid_sampling(%x: tensor<2x3x8x8xf16>, %g: tensor<2x4x5x2xf32>, %v: tensor<1x2x4x4x4xf32>, %h: tensor<1x2x3x3xf32>, %t: tensor<2x2x3xf32>, %s: tensor<4xi64>) -> (tensor<2x3x4x5xf16>, tensor<1x2x2x3x3xf32>, tensor<2x4x5x2xf32>, tensor<?x?x?x2xf32>) {
  // CHECK: graph.grid_sample %{{.*}}, %{{.*}} : (tensor<2x3x8x8xf16>, tensor<2x4x5x2xf32>) -> tensor<2x3x4x5xf16>
  %0 = graph.grid_sample %x, %g : (tensor<2x3x8x8xf16>, tensor<2x4x5x2xf32>) -> tensor<2x3x4x5xf16>
  %g3 = graph.constant {value = dense<0.5> : tensor<1x2x3x3x3xf32>} : () -> tensor<1x2x3x3x3xf32>
  // CHECK: graph.grid_sample %{{.*}}, %{{.*}} {align_corners = 1 : i64, mode = "cubic", padding_mode = "reflection"} : (tensor<1x2x4x4x4xf32>, tensor<1x2x3x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  %1 = graph.grid_sample %v, %g3 {align_corners = 1 : i64, mode = "cubic", padding_mode = "reflection"} : (tensor<1x2x4x4x4xf32>, tensor<1x2x3x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  %size = graph.constant {value = dense<[2, 1, 4, 5]> : tensor<4xi64>} : () -> tensor<4xi64>
  // CHECK: graph.affine_grid %{{.*}}, %{{.*}} {align_corners = 1 : i64} : (tensor<2x2x3xf32>, tensor<4xi64>) -> tensor<2x4x5x2xf32>
  %2 = graph.affine_grid %t, %size {align_corners = 1 : i64} : (tensor<2x2x3xf32>, tensor<4xi64>) -> tensor<2x4x5x2xf32>
  // A size that is not a constant leaves the grid's dims but the last unknown.
  // CHECK: graph.affine_grid %{{.*}}, %{{.*}} : (tensor<2x2x3xf32>, tensor<4xi64>) -> tensor<?x?x?x2xf32>
  %3 = graph.affine_grid %t, %s : (tensor<2x2x3xf32>, tensor<4xi64>) -> tensor<?x?x?x2xf32>
  return %0, %1, %2, %3 : tensor<2x3x4x5xf16>, tensor<1x2x2x3x3xf32>, tensor<2x4x5x2xf32>, tensor<?x?x?x2xf32>
}

// -----

// CHECK-LABEL: func @roi_align
func.func @roi_align(%x: tensor<2x3x8x8xf16>, %r: tensor<5x4xf32>, %b: tensor<5xi64>, %rd: tensor<?x4xf64>, %bd: tensor<?xi64>) -> (tensor<5x3x1x1xf16>, tensor<?x3x2x4xf16>) {
  // CHECK: graph.roi_align %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3x8x8xf16>, tensor<5x4xf32>, tensor<5xi64>) -> tensor<5x3x1x1xf16>
  %0 = graph.roi_align %x, %r, %b : (tensor<2x3x8x8xf16>, tensor<5x4xf32>, tensor<5xi64>) -> tensor<5x3x1x1xf16>
  // CHECK: graph.roi_align %{{.*}}, %{{.*}}, %{{.*}} {coordinate_transformation_mode = "output_half_pixel", mode = "max", output_height = 2 : i64, output_width = 4 : i64, sampling_ratio = 2 : i64, spatial_scale = 2.500000e-01 : f32} : (tensor<2x3x8x8xf16>, tensor<?x4xf64>, tensor<?xi64>) -> tensor<?x3x2x4xf16>
  %1 = graph.roi_align %x, %rd, %bd {coordinate_transformation_mode = "output_half_pixel", mode = "max", output_height = 2 : i64, output_width = 4 : i64, sampling_ratio = 2 : i64, spatial_scale = 0.25 : f32} : (tensor<2x3x8x8xf16>, tensor<?x4xf64>, tensor<?xi64>) -> tensor<?x3x2x4xf16>
  return %0, %1 : tensor<5x3x1x1xf16>, tensor<?x3x2x4xf16>
}

// -----

// CHECK-LABEL: func @col2im
func.func @col2im(%x: tensor<?x8x12xf32>, %y: tensor<1x4x9xf32>, %s: tensor<2xi64>) -> (tensor<?x2x4x5xf32>, tensor<1x1x5x5xf32>, tensor<?x2x?x?xf32>, tensor<?x?x4x5xf32>) {
  %image = graph.constant {value = dense<[4, 5]> : tensor<2xi64>} : () -> tensor<2xi64>
  %block = graph.constant {value = dense<2> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: graph.col2im %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x8x12xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x2x4x5xf32>
  %0 = graph.col2im %x, %image, %block : (tensor<?x8x12xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x2x4x5xf32>
  %square = graph.constant {value = dense<5> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: graph.col2im %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x9xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x1x5x5xf32>
  %1 = graph.col2im %y, %square, %block {dilations = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x9xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x1x5x5xf32>
  // The block alone gives the channels; the image shape, known at run time, the image dims.
  // CHECK: graph.col2im %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x8x12xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x2x?x?xf32>
  %2 = graph.col2im %x, %s, %block : (tensor<?x8x12xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x2x?x?xf32>
  // CHECK: graph.col2im %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x8x12xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?x4x5xf32>
  %3 = graph.col2im %x, %image, %s : (tensor<?x8x12xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?x4x5xf32>
  return %0, %1, %2, %3 : tensor<?x2x4x5xf32>, tensor<1x1x5x5xf32>, tensor<?x2x?x?xf32>, tensor<?x?x4x5xf32>
}

// -----

// CHECK-LABEL: func @max_unpool
func.func @max_unpool(%x: tensor<?x3x2x2xf32>, %i: tensor<?x3x2x2xi64>, %s: tensor<4xi64>) -> (tensor<?x3x4x4xf32>, tensor<2x3x5x5xf32>, tensor<?x?x?x?xf32>) {
  // CHECK: graph.max_unpool %{{.*}}, %{{.*}} {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x3x2x2xf32>, tensor<?x3x2x2xi64>) -> tensor<?x3x4x4xf32>
  %0 = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x3x2x2xf32>, tensor<?x3x2x2xi64>) -> tensor<?x3x4x4xf32>
  %shape = graph.constant {value = dense<[2, 3, 5, 5]> : tensor<4xi64>} : () -> tensor<4xi64>
  // CHECK: graph.max_unpool %{{.*}}, %{{.*}}, %{{.*}} {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x3x2x2xf32>, tensor<?x3x2x2xi64>, tensor<4xi64>) -> tensor<2x3x5x5xf32>
  %1 = graph.max_unpool %x, %i, %shape {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x3x2x2xf32>, tensor<?x3x2x2xi64>, tensor<4xi64>) -> tensor<2x3x5x5xf32>
  // CHECK: graph.max_unpool %{{.*}}, %{{.*}}, %{{.*}} {kernel_shape = array<i64: 2, 2>} : (tensor<?x3x2x2xf32>, tensor<?x3x2x2xi64>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  %2 = graph.max_unpool %x, %i, %s {kernel_shape = array<i64: 2, 2>} : (tensor<?x3x2x2xf32>, tensor<?x3x2x2xi64>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return %0, %1, %2 : tensor<?x3x4x4xf32>, tensor<2x3x5x5xf32>, tensor<?x?x?x?xf32>
}
