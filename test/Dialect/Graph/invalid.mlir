// RUN: graphc-opt %s --split-input-file -verify-diagnostics

// Verifier messages first, then result-type inference errors (which also
// fail verification, followed by the generic "failed to infer" note).
func.func @invalid_0() {
  // expected-error @+1 {{value type 'tensor<2xi64>' does not match result type 'tensor<3xi64>'}}
  %r = graph.constant {value = dense<1> : tensor<2xi64>} : () -> tensor<3xi64>
  return
}

// -----

func.func @invalid_1(%s: tensor<2xi64>) {
  // expected-error @+1 {{value must have exactly one element}}
  %r = graph.constant_of_shape %s {value = dense<[1, 2]> : tensor<2xi64>} : (tensor<2xi64>) -> tensor<?x?xi64>
  return
}

// -----

func.func @invalid_2(%x: tensor<4xf32>) {
  // expected-error @+1 {{approximate must be one of "none", "tanh", got "fast"}}
  %r = graph.gelu %x {approximate = "fast"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @invalid_3(%x: tensor<4xf32>, %m: tensor<2xf32>) {
  // expected-error @+1 {{min must be a scalar}}
  %r = graph.clip %x, %m {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @invalid_4(%x: tensor<4xf32>, %m: tensor<f16>) {
  // expected-error @+1 {{max must have the input's element type 'f32'}}
  %r = graph.clip %x, %m {operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<4xf32>, tensor<f16>) -> tensor<4xf32>
  return
}

// -----

func.func @invalid_5(%a: tensor<4xi32>) {
  // expected-error @+1 {{fmod must be 0 or 1, got 2}}
  %r = graph.mod %a, %a {fmod = 2 : i64} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @invalid_6(%a: tensor<4xf32>) {
  // expected-error @+1 {{float operands require fmod = 1}}
  %r = graph.mod %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @invalid_7(%a: tensor<4xi32>) {
  // expected-error @+1 {{operands must be unsigned integers}}
  %r = graph.bit_shift %a, %a {direction = "LEFT"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @invalid_8(%a: tensor<4xui8>) {
  // expected-error @+1 {{direction must be one of "LEFT", "RIGHT", got "UP"}}
  %r = graph.bit_shift %a, %a {direction = "UP"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return
}

// -----

func.func @invalid_9(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{group must be positive}}
  %r = graph.conv %x, %w {group = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @invalid_10(%x: tensor<1x4x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{input has 4 channels but the weight expects 3 x group 1}}
  %r = graph.conv %x, %w : (tensor<1x4x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @invalid_11(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) {
  // expected-error @+1 {{output channels (6) must be a multiple of group 4}}
  %r = graph.conv %x, %w {group = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @invalid_12(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{bias has 4 entries but the output channels is 8}}
  %r = graph.conv %x, %w, %b : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<4xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @invalid_13(%x: tensor<1x4x4x4xf32>, %w: tensor<8x3x2x2xf32>) {
  // expected-error @+1 {{input has 4 channels but the weight expects 8}}
  %r = graph.conv_transpose %x, %w : (tensor<1x4x4x4xf32>, tensor<8x3x2x2xf32>) -> tensor<1x3x5x5xf32>
  return
}

// -----

func.func @invalid_14(%x: tensor<1x3x4x4xf32>, %w: tensor<3x3x2x2xf32>) {
  // expected-error @+1 {{input channels (3) must be a multiple of group 2}}
  %r = graph.conv_transpose %x, %w {group = 2 : i64} : (tensor<1x3x4x4xf32>, tensor<3x3x2x2xf32>) -> tensor<1x6x5x5xf32>
  return
}

// -----

func.func @invalid_15(%x: tensor<1x3x4x4xf32>, %w: tensor<3x2x2x2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{bias has 3 entries but the output channels is 2}}
  %r = graph.conv_transpose %x, %w, %b : (tensor<1x3x4x4xf32>, tensor<3x2x2x2xf32>, tensor<3xf32>) -> tensor<1x2x5x5xf32>
  return
}

// -----

func.func @invalid_16(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{ceil_mode must be 0 or 1, got 2}}
  %r = graph.max_pool %x {ceil_mode = 2 : i64, kernel_shape = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @invalid_17(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{storage_order must be 0 or 1, got 3}}
  %r = graph.max_pool %x {storage_order = 3 : i64, kernel_shape = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @invalid_18(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{count_include_pad must be 0 or 1, got 5}}
  %r = graph.average_pool %x {count_include_pad = 5 : i64, kernel_shape = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @invalid_19(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{p must be positive, got 0}}
  %r = graph.lp_pool %x {p = 0 : i64, kernel_shape = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @invalid_20(%x: tensor<2x3xf32>, %c: tensor<3xf32>) {
  // expected-error @+1 {{training_mode is not supported, only inference (training_mode = 0)}}
  %r = graph.batch_normalization %x, %c, %c, %c, %c {training_mode = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @invalid_21(%x: tensor<2x3xf32>, %c: tensor<3xf32>, %v: tensor<4xf32>) {
  // expected-error @+1 {{input_var has 4 entries but the channel count is 3}}
  %r = graph.batch_normalization %x, %c, %c, %c, %v : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @invalid_22(%x: tensor<3xf32>, %c: tensor<3xf32>) {
  // expected-error @+1 {{input must have a batch and a channel dim}}
  %r = graph.batch_normalization %x, %c, %c, %c, %c : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @invalid_23(%x: tensor<2x3xf32>, %c: tensor<3xf32>) {
  // expected-error @+1 {{input must have a batch, a channel and at least one spatial dim}}
  %r = graph.instance_normalization %x, %c, %c : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @invalid_24(%x: tensor<2x3x4xf32>, %c: tensor<3xf32>) {
  // expected-error @+1 {{scale must be a 1-D tensor}}
  %r = graph.instance_normalization %x, %x, %c : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @invalid_25(%x: tensor<2x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %r = graph.layer_normalization %x, %s {axis = 2 : i64} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @invalid_26(%x: tensor<2x8xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{scale does not broadcast to the normalised dims}}
  %r = graph.layer_normalization %x, %s : (tensor<2x8xf32>, tensor<4xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @invalid_27(%x: tensor<2x4x5xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{num_groups must be positive, got 0}}
  %r = graph.group_normalization %x, %c, %c {num_groups = 0 : i64} : (tensor<2x4x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5xf32>
  return
}

// -----

func.func @invalid_28(%x: tensor<2x4x5xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{channels (4) must be a multiple of num_groups 3}}
  %r = graph.group_normalization %x, %c, %c {num_groups = 3 : i64} : (tensor<2x4x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5xf32>
  return
}

// -----

func.func @invalid_29(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{p must be 1 or 2, got 3}}
  %r = graph.lp_normalization %x {p = 3 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @invalid_30(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{axis -3 is out of range for rank 2}}
  %r = graph.lp_normalization %x {axis = -3 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @invalid_31(%x: tensor<2x4x3xf32>) {
  // expected-error @+1 {{axes entry 3 is out of range for rank 3}}
  %r = graph.mean_variance_normalization %x : (tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  return
}

// -----

func.func @invalid_32(%x: tensor<2x4x3xf32>) {
  // expected-error @+1 {{axes repeats axis -3}}
  %r = graph.mean_variance_normalization %x {axes = array<i64: 0, -3>} : (tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  return
}

// -----

func.func @invalid_33(%x: tensor<1x4x3xf32>) {
  // expected-error @+1 {{size must be positive, got 0}}
  %r = graph.lrn %x {size = 0 : i64} : (tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  return
}

// -----

func.func @invalid_34(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{input must have a batch, a channel and at least one spatial dim}}
  %r = graph.lrn %x {size = 3 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  return
}

// -----

func.func @invalid_35(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %r = graph.softmax %x {axis = 2 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @invalid_36(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{axis -3 is out of range for rank 2}}
  %r = graph.log_softmax %x {axis = -3 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @invalid_37(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{axis 5 is out of range for rank 2}}
  %r = graph.hardmax %x {axis = 5 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @invalid_38(%x: tensor<1x8x2x2xf32>) {
  // expected-error @+1 {{mode must be one of "DCR", "CRD", got "RDC"}}
  %r = graph.depth_to_space %x {blocksize = 2 : i64, mode = "RDC"} : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @invalid_39(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) {
  // expected-error @+1 {{reduction must be one of "none", "add", "mul", "max", "min", got "avg"}}
  %r = graph.scatter_elements %x, %i, %u {reduction = "avg"} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @invalid_40(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %r = graph.scatter_elements %x, %i, %u {axis = 2 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @invalid_41(%x: tensor<3x4xf32>, %i: tensor<6xi64>, %u: tensor<6xf32>) {
  // expected-error @+1 {{indices must have the rank of the data}}
  %r = graph.scatter_elements %x, %i, %u : (tensor<3x4xf32>, tensor<6xi64>, tensor<6xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @invalid_42(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf16>) {
  // expected-error @+1 {{updates must have the data's element type}}
  %r = graph.scatter_elements %x, %i, %u : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf16>) -> tensor<3x4xf32>
  return
}

// -----

func.func @invalid_43(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x3xf32>) {
  // expected-error @+1 {{updates must have the shape of the indices}}
  %r = graph.scatter_elements %x, %i, %u : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @invalid_44(%x: tensor<8xf32>, %i: tensor<2x1xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{reduction must be one of "none", "add", "mul", "max", "min", got "sub"}}
  %r = graph.scatter_nd %x, %i, %u {reduction = "sub"} : (tensor<8xf32>, tensor<2x1xi64>, tensor<2xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @invalid_45(%x: tensor<8xf32>, %i: tensor<2x1xi64>, %u: tensor<2xi32>) {
  // expected-error @+1 {{updates must have the data's element type}}
  %r = graph.scatter_nd %x, %i, %u : (tensor<8xf32>, tensor<2x1xi64>, tensor<2xi32>) -> tensor<8xf32>
  return
}

// -----

func.func @invalid_46(%x: tensor<8xf32>, %i: tensor<i64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{indices must have at least one dim}}
  %r = graph.scatter_nd %x, %i, %u : (tensor<8xf32>, tensor<i64>, tensor<2xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @invalid_47(%x: tensor<8xf32>, %i: tensor<2x2xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{the last dim of indices (2) must be in [1, rank(data)]}}
  %r = graph.scatter_nd %x, %i, %u : (tensor<8xf32>, tensor<2x2xi64>, tensor<2xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @invalid_48(%x: tensor<8x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{updates must have shape indices.shape[:-1] + data.shape[indices.shape[-1]:]}}
  %r = graph.scatter_nd %x, %i, %u : (tensor<8x3xf32>, tensor<2x1xi64>, tensor<2xf32>) -> tensor<8x3xf32>
  return
}

// -----

func.func @invalid_49(%x: tensor<4xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{mode must be one of "constant", "reflect", "edge", "wrap", got "mirror"}}
  %r = graph.pad %x, %p {mode = "mirror", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<4xf32>, tensor<2xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @invalid_50(%x: tensor<4xf32>, %p: tensor<2xi64>, %v: tensor<2xf32>) {
  // expected-error @+1 {{constant_value must be a scalar}}
  %r = graph.pad %x, %p, %v {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @invalid_51(%x: tensor<1x1x4x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{mode must be one of "nearest", "linear", "cubic", got "area"}}
  %r = graph.resize %x, %s {mode = "area", operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x1x4x4xf32>, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  return
}

// -----

func.func @invalid_52(%x: tensor<1x1x4x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{coordinate_transformation_mode must be one of}}
  %r = graph.resize %x, %s {coordinate_transformation_mode = "center", operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x1x4x4xf32>, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  return
}

// -----

func.func @invalid_53(%x: tensor<1x1x4x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{nearest_mode must be one of}}
  %r = graph.resize %x, %s {nearest_mode = "round", operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x1x4x4xf32>, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  return
}

// -----

func.func @invalid_54(%x: tensor<1x1x4x4xf32>, %s: tensor<4xi64>) {
  // expected-error @+1 {{keep_aspect_ratio_policy must be one of}}
  %r = graph.resize %x, %s {keep_aspect_ratio_policy = "fit", operandSegmentSizes = array<i32: 1, 0, 0, 1>} : (tensor<1x1x4x4xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return
}

// -----

func.func @invalid_55(%x: tensor<1x1x4x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{antialias must be 0 or 1, got 2}}
  %r = graph.resize %x, %s {antialias = 2 : i64, operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x1x4x4xf32>, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  return
}

// -----

func.func @invalid_56(%x: tensor<1x1x4x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{exclude_outside must be 0 or 1, got 2}}
  %r = graph.resize %x, %s {exclude_outside = 2 : i64, operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x1x4x4xf32>, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  return
}

// -----

func.func @invalid_57(%x: tensor<1x1x4x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{tf_crop_and_resize needs a roi operand}}
  %r = graph.resize %x, %s {coordinate_transformation_mode = "tf_crop_and_resize", operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x1x4x4xf32>, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  return
}

// -----

func.func @invalid_58(%x: tensor<4xf32>, %l: tensor<4xi64>) {
  // expected-error @+1 {{input must have at least two dims}}
  %r = graph.reverse_sequence %x, %l : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @invalid_59(%x: tensor<4x2xf32>, %l: tensor<2xi64>) {
  // expected-error @+1 {{batch_axis and time_axis must be 0 and 1 in some order}}
  %r = graph.reverse_sequence %x, %l {batch_axis = 0 : i64} : (tensor<4x2xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @invalid_60(%x: tensor<4x2xf32>, %l: tensor<4xi64>) {
  // expected-error @+1 {{sequence_lens has 4 entries but the batch size is 2}}
  %r = graph.reverse_sequence %x, %l : (tensor<4x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @invalid_61(%a: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand shapes do not broadcast}}
  %r = graph.add %a, %b : (tensor<3xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @invalid_62(%a: tensor<3xf32>, %b: tensor<3xf16>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand #1 has another element type than operand #0}}
  %r = graph.add %a, %b : (tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  return
}

// -----

func.func @invalid_63(%x: tensor<3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{perm has 2 entries but the input has rank 1}}
  %r = graph.transpose %x {perm = array<i64: 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @invalid_64(%x: tensor<3x2xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{perm is not a permutation of [0, 2)}}
  %r = graph.transpose %x {perm = array<i64: 0, 0>} : (tensor<3x2xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @invalid_65(%x: tensor<3x2xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %r = graph.concat %x, %x {axis = 2 : i64} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @invalid_66(%x: tensor<3x2xf32>, %y: tensor<4x2xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand #1 has size 4 in dim 0 where operand #0 has 3}}
  %r = graph.concat %x, %y {axis = 1 : i64} : (tensor<3x2xf32>, tensor<4x2xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @invalid_67(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{kernel_shape must have 2 entries but has 1}}
  %r = graph.max_pool %x {kernel_shape = array<i64: 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @invalid_68(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{pads must have 4 entries but has 2}}
  %r = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @invalid_69(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{strides entries must be at least 1, got 0}}
  %r = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @invalid_70(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got 'SAME'}}
  %r = graph.max_pool %x {auto_pad = "SAME", kernel_shape = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @invalid_71(%x: tensor<1x3x2x2xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{window of size 3 does not fit the padded input of size 2 in spatial dim 0}}
  %r = graph.max_pool %x {kernel_shape = array<i64: 3, 3>} : (tensor<1x3x2x2xf32>) -> tensor<1x3x1x1xf32>
  return
}

// -----

func.func @invalid_72(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{kernel_shape does not match the spatial dims of the weight}}
  %r = graph.conv %x, %w {kernel_shape = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x7x7xf32>
  return
}

// -----

func.func @invalid_73(%x: tensor<1x3x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{weight rank 4 does not match input rank 3}}
  %r = graph.conv %x, %w : (tensor<1x3x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6xf32>
  return
}

// -----

func.func @invalid_74(%a: tensor<3x4xf32>, %b: tensor<5x6xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{contraction dims do not match (4 vs 5)}}
  %r = graph.mat_mul %a, %b : (tensor<3x4xf32>, tensor<5x6xf32>) -> tensor<3x6xf32>
  return
}

// -----

func.func @invalid_75(%a: tensor<3x4xf32>, %b: tensor<4x6xf32>, %c: tensor<4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{C does not broadcast to [M, N]}}
  %r = graph.gemm %a, %b, %c : (tensor<3x4xf32>, tensor<4x6xf32>, tensor<4xf32>) -> tensor<3x6xf32>
  return
}

// -----

func.func @invalid_76(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{einsum equation has 2 input terms but the op has 1 operands}}
  %r = graph.einsum %a {equation = "ij,jk"} : (tensor<3x4xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @invalid_77(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{invalid character '1' in einsum equation}}
  %r = graph.einsum %a {equation = "i1"} : (tensor<3x4xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @invalid_78(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{einsum output label 'k' does not appear in any input}}
  %r = graph.einsum %a {equation = "ij->k"} : (tensor<3x4xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @invalid_79(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{einsum output repeats label 'i'}}
  %r = graph.einsum %a {equation = "ij->ii"} : (tensor<3x4xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @invalid_80(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{einsum term '...i...' has more than one '...'}}
  %r = graph.einsum %a {equation = "...i...->i"} : (tensor<3x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @invalid_81(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{term 'ijk' does not match the 2-d operand #0}}
  %r = graph.einsum %a {equation = "ijk->i"} : (tensor<3x4xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @invalid_82(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{sizes of label 'i' do not match (3 vs 4)}}
  %r = graph.einsum %a {equation = "ii->i"} : (tensor<3x4xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @invalid_83(%x: tensor<2x6xf32>) {
  %s = graph.constant {value = dense<[5, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{cannot reshape 12 elements into the requested shape}}
  %r = graph.reshape %x, %s : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<5x?xf32>
  return
}

// -----

func.func @invalid_84(%x: tensor<2x6xf32>) {
  %s = graph.constant {value = dense<[-1, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{shape has more than one -1}}
  %r = graph.reshape %x, %s : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @invalid_85(%x: tensor<2x6xf32>, %s: tensor<?xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{shape operand must have a static length}}
  %r = graph.reshape %x, %s : (tensor<2x6xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @invalid_86(%x: tensor<2x1xf32>) {
  %a = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{cannot squeeze dim 0 of size 2}}
  %r = graph.squeeze %x, %a : (tensor<2x1xf32>, tensor<1xi64>) -> tensor<1xf32>
  return
}

// -----

func.func @invalid_87(%x: tensor<?x1xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{squeeze without axes needs static dims, but dim 0 is dynamic}}
  %r = graph.squeeze %x : (tensor<?x1xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @invalid_88(%x: tensor<2x3xf32>) {
  %a = graph.constant {value = dense<[0, -4]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{axes repeats axis -4}}
  %r = graph.unsqueeze %x, %a : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<1x2x3x1xf32>
  return
}

// -----

func.func @invalid_89(%x: tensor<5x2xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{cannot split a dim of size 5 into 4 parts}}
  %r:4 = graph.split %x {num_outputs = 4 : i64} : (tensor<5x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  return
}

// -----

func.func @invalid_90(%x: tensor<5x2xf32>) {
  %s = graph.constant {value = dense<2> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{split lengths add up to 4 but the dim has size 5}}
  %r:2 = graph.split %x, %s {num_outputs = 2 : i64} : (tensor<5x2xf32>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  return
}

// -----

func.func @invalid_91(%x: tensor<5xf32>) {
  %s = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %z = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{steps must not be zero}}
  %r = graph.slice %x, %s, %s, %s, %z {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @invalid_92(%x: tensor<5xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{axis 1 is out of range for rank 1}}
  %r = graph.gather %x, %i {axis = 1 : i64} : (tensor<5xf32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @invalid_93(%x: tensor<2x3xf32>, %i: tensor<2x?xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{the last dim of indices must be static}}
  %r = graph.gather_nd %x, %i : (tensor<2x3xf32>, tensor<2x?xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @invalid_94(%x: tensor<1x1x4x4xf32>, %s: tensor<4xf32>, %z: tensor<4xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{exactly one of scales and sizes must be given}}
  %r = graph.resize %x, %s, %z {operandSegmentSizes = array<i32: 1, 0, 1, 1>} : (tensor<1x1x4x4xf32>, tensor<4xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return
}

// -----

func.func @invalid_95(%x: tensor<2x3xf32>) {
  %p = graph.constant {value = dense<1> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{pads has 2 entries but needs 4 (begin and end for each padded axis)}}
  %r = graph.pad %x, %p {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @invalid_96(%x: tensor<3x10xf32>) {
  %k = graph.constant {value = dense<11> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{K = 11 exceeds the 10 elements along the axis}}
  %r:2 = graph.top_k %x, %k : (tensor<3x10xf32>, tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
  return
}

// -----

func.func @invalid_97() {
  %a = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %b = graph.constant {value = dense<4> : tensor<i64>} : () -> tensor<i64>
  %c = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{delta must not be zero}}
  %r = graph.range %a, %b, %c : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return
}

// -----

func.func @invalid_99(%x: tensor<4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{input must be 2-D}}
  %r = graph.eye_like %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @invalid_100(%x: tensor<1x7x2x2xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{channels (7) must be a multiple of blocksize^2}}
  %r = graph.depth_to_space %x {blocksize = 2 : i64} : (tensor<1x7x2x2xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @invalid_101(%x: tensor<1x1x3x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{spatial dim 2 (3) must be a multiple of blocksize}}
  %r = graph.space_to_depth %x {blocksize = 2 : i64} : (tensor<1x1x3x4xf32>) -> tensor<1x4x1x2xf32>
  return
}

// -----

func.func @invalid_102(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.concat' op requires attribute 'axis'}}
  %r = graph.concat %x {} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @attention_heads(%q: tensor<1x6x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{Q's 6 heads are not a multiple of K and V's 4}}
  %r = graph.attention %q, %k, %v : (tensor<1x6x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x6x8x16xf32>
  return
}

// -----

func.func @attention_depth(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x32xf32>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{head sizes of Q and K do not match (16 vs 32)}}
  %r = graph.attention %q, %k, %v : (tensor<1x4x8x16xf32>, tensor<1x4x8x32xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_mask(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %m: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{the mask does not broadcast to the scores [batch, heads, query, key]}}
  %r = graph.attention %q, %k, %v, %m : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x3x8x8xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_rank(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>, %v: tensor<4x8x16xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{Q, K and V must be 4-d: [batch, heads, sequence, head size]}}
  %r = graph.attention %q, %k, %v : (tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return
}

// -----

func.func @rms_scale(%x: tensor<2x8xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{scale does not broadcast to the normalised dims}}
  %r = graph.rms_normalization %x, %s : (tensor<2x8xf32>, tensor<3xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @conv_channels_last_flag(%x: tensor<1x8x8x4xf32>, %w: tensor<2x1x1x4xf32>) -> tensor<1x8x8x2xf32> {
  // expected-error @+1 {{channels_last}}
  %r = graph.conv %x, %w {channels_last = 2 : i64} : (tensor<1x8x8x4xf32>, tensor<2x1x1x4xf32>) -> tensor<1x8x8x2xf32>
  return %r : tensor<1x8x8x2xf32>
}

// -----

func.func @conv_channels_last_channels(%x: tensor<1x8x8x4xf32>, %w: tensor<2x1x1x3xf32>) -> tensor<1x8x8x2xf32> {
  // expected-error @+1 {{input has 4 channels but the weight expects 3 x group 1}}
  %r = graph.conv %x, %w {channels_last = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<2x1x1x3xf32>) -> tensor<1x8x8x2xf32>
  return %r : tensor<1x8x8x2xf32>
}

// -----

func.func @grid_sample_mode(%x: tensor<1x1x4x4xf32>, %g: tensor<1x2x2x2xf32>) {
  // expected-error @+1 {{mode must be one of "linear", "nearest", "cubic", got "bilinear"}}
  %r = graph.grid_sample %x, %g {mode = "bilinear"} : (tensor<1x1x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32>
  return
}

// -----

func.func @roi_align_mode(%x: tensor<1x1x4x4xf32>, %r: tensor<2x4xf32>, %b: tensor<2xi64>) {
  // expected-error @+1 {{mode must be one of "avg", "max", got "min"}}
  %y = graph.roi_align %x, %r, %b {mode = "min"} : (tensor<1x1x4x4xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x1x1x1xf32>
  return
}

// -----

func.func @roi_align_transform(%x: tensor<1x1x4x4xf32>, %r: tensor<2x4xf32>, %b: tensor<2xi64>) {
  // expected-error @+1 {{coordinate_transformation_mode must be one of "half_pixel", "output_half_pixel", got "align_corners"}}
  %y = graph.roi_align %x, %r, %b {coordinate_transformation_mode = "align_corners"} : (tensor<1x1x4x4xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x1x1x1xf32>
  return
}

// -----

func.func @roi_align_sampling_ratio(%x: tensor<1x1x4x4xf32>, %r: tensor<2x4xf32>, %b: tensor<2xi64>) {
  // expected-error @+1 {{sampling_ratio must be in [0, 2147483648], got -1}}
  %y = graph.roi_align %x, %r, %b {sampling_ratio = -1 : i64} : (tensor<1x1x4x4xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x1x1x1xf32>
  return
}

// -----

func.func @quantize_saturate_flag(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i8>) {
  // expected-error @+1 {{saturate must be 0 or 1, got 2}}
  %r = graph.quantize_linear %x, %s, %z {saturate = 2 : i64} : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return
}

// -----

func.func @grid_sample_padding(%x: tensor<1x1x4x4xf32>, %g: tensor<1x2x2x2xf32>) {
  // expected-error @+1 {{padding_mode must be one of "zeros", "border", "reflection", got "edge"}}
  %r = graph.grid_sample %x, %g {padding_mode = "edge"} : (tensor<1x1x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32>
  return
}

// -----

func.func @grid_sample_coordinates(%x: tensor<1x1x4x4xf32>, %g: tensor<1x2x2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{grid's last dim must be 2 (one coordinate per spatial dim), not 3}}
  %r = graph.grid_sample %x, %g : (tensor<1x1x4x4xf32>, tensor<1x2x2x3xf32>) -> tensor<1x1x2x2xf32>
  return
}

// -----

func.func @dft_complex_dim(%x: tensor<2x10x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{input must have rank >= 2 and a static last dim of 1 (real) or 2 (complex)}}
  %r = graph.dft %x {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x10x3xf32>) -> tensor<2x10x2xf32>
  return
}

// -----

func.func @col2im_blocks(%x: tensor<1x8x10xf32>) {
  %image = graph.constant {value = dense<[4, 5]> : tensor<2xi64>} : () -> tensor<2xi64>
  %block = graph.constant {value = dense<2> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{input dim 2 (10) is not the number of sliding blocks 12}}
  %r = graph.col2im %x, %image, %block : (tensor<1x8x10xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x2x4x5xf32>
  return
}

// -----

func.func @dft_last_axis(%x: tensor<2x10x1xf32>) {
  %a = graph.constant {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{axis may not be the last (complex) dim}}
  %r = graph.dft %x, %a {operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<2x10x1xf32>, tensor<i64>) -> tensor<2x10x2xf32>
  return
}

// -----

func.func @quantize_scale_enlarges_x(%x: tensor<1x4xf32>, %s: tensor<3x1xf32>, %z: tensor<ui8>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{scale and zero point must broadcast to x}}
  %r = graph.quantize_linear %x, %s, %z : (tensor<1x4xf32>, tensor<3x1xf32>, tensor<ui8>) -> tensor<1x4xui8>
  return
}

// -----

func.func @dft_length_zero(%x: tensor<2x10x1xf32>) {
  %n = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{dft_length must be positive, got 0}}
  %r = graph.dft %x, %n {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x10x1xf32>, tensor<i64>) -> tensor<2x0x2xf32>
  return
}

// -----

func.func @col2im_block_size(%x: tensor<1x6x12xf32>) {
  %image = graph.constant {value = dense<[4, 5]> : tensor<2xi64>} : () -> tensor<2xi64>
  %block = graph.constant {value = dense<2> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{input dim 1 (6) is not a multiple of the block size 4}}
  %r = graph.col2im %x, %image, %block : (tensor<1x6x12xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x2x4x5xf32>
  return
}

// -----

func.func @grid_sample_batch(%x: tensor<2x1x4x4xf32>, %g: tensor<3x2x2x2xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{grid's batch 3 differs from x's 2}}
  %r = graph.grid_sample %x, %g : (tensor<2x1x4x4xf32>, tensor<3x2x2x2xf32>) -> tensor<2x1x2x2xf32>
  return
}

// -----

func.func @roi_align_box_count(%x: tensor<1x1x4x4xf32>, %r: tensor<2x4xf32>, %b: tensor<3xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{rois has 2 boxes but batch_indices 3}}
  %y = graph.roi_align %x, %r, %b : (tensor<1x1x4x4xf32>, tensor<2x4xf32>, tensor<3xi64>) -> tensor<2x1x1x1xf32>
  return
}

// -----

func.func @roi_align_box_coordinates(%x: tensor<1x1x4x4xf32>, %r: tensor<2x5xf32>, %b: tensor<2xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{rois must be [num_rois, 4]}}
  %y = graph.roi_align %x, %r, %b : (tensor<1x1x4x4xf32>, tensor<2x5xf32>, tensor<2xi64>) -> tensor<2x1x1x1xf32>
  return
}

// -----

func.func @roi_align_batch_index(%x: tensor<2x1x4x4xf32>, %r: tensor<2x4xf32>) {
  %b = graph.constant {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{batch index 2 is out of range [0, 2)}}
  %y = graph.roi_align %x, %r, %b : (tensor<2x1x4x4xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x1x1x1xf32>
  return
}

// -----

func.func @roi_align_rank(%x: tensor<1x4x4xf32>, %r: tensor<2x4xf32>, %b: tensor<2xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{x must be [N, C, H, W], not of rank 3}}
  %y = graph.roi_align %x, %r, %b : (tensor<1x4x4xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x1x1x1xf32>
  return
}

// -----

func.func @roi_align_bins(%x: tensor<1x1x4x4xf32>, %r: tensor<2x4xf32>, %b: tensor<2xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{output_height and output_width must be positive}}
  %y = graph.roi_align %x, %r, %b {output_width = 0 : i64} : (tensor<1x1x4x4xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x1x1x0xf32>
  return
}

// -----

func.func @col2im_block_rank(%x: tensor<1x8x12xf32>, %block: tensor<3xi64>) {
  %image = graph.constant {value = dense<[4, 5]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{block_shape has 3 entries but image_shape has 2}}
  %r = graph.col2im %x, %image, %block : (tensor<1x8x12xf32>, tensor<2xi64>, tensor<3xi64>) -> tensor<1x2x4x5xf32>
  return
}

// -----

func.func @quantize_to_int32(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i32>) {
  // expected-error @+1 {{operand #2 must be}}
  %r = graph.quantize_linear %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xi32>
  return
}

// -----

func.func @affine_grid_theta(%t: tensor<1x2x3xf32>) {
  %s = graph.constant {value = dense<[1, 1, 2, 2, 2]> : tensor<5xi64>} : () -> tensor<5xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{theta must be [N, 3, 4] for a size of 5 values}}
  %r = graph.affine_grid %t, %s : (tensor<1x2x3xf32>, tensor<5xi64>) -> tensor<?x?x?x?x?xf32>
  return
}

// -----

func.func @col2im_pads(%x: tensor<1x8x12xf32>) {
  %image = graph.constant {value = dense<[4, 5]> : tensor<2xi64>} : () -> tensor<2xi64>
  %block = graph.constant {value = dense<2> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{pads must have 4 entries but has 2}}
  %r = graph.col2im %x, %image, %block {pads = array<i64: 1, 1>} : (tensor<1x8x12xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x2x4x5xf32>
  return
}

// -----

func.func @affine_grid_size(%t: tensor<1x2x3xf32>) {
  %s = graph.constant {value = dense<[1, 1, -2, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{size has a negative dim -2}}
  %r = graph.affine_grid %t, %s : (tensor<1x2x3xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return
}

// -----

func.func @det_not_square(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{the matrix dims do not match (3 vs 4)}}
  %r = graph.det %x : (tensor<2x3x4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @dequantize_zero_point_type(%x: tensor<4xi8>, %s: tensor<f32>, %z: tensor<ui8>) {
  // expected-error @+1 {{zero_point must have the element type of x}}
  %r = graph.dequantize_linear %x, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  return
}

// -----

func.func @max_unpool_output_shape(%x: tensor<1x3x2x2xf32>, %i: tensor<1x3x2x2xi64>) {
  %shape = graph.constant {value = dense<[1, 3, 3, 5]> : tensor<4xi64>} : () -> tensor<4xi64>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{output_shape dim 2 (3) cannot hold the unpooled dim 4}}
  %r = graph.max_unpool %x, %i, %shape {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>, tensor<4xi64>) -> tensor<1x3x3x5xf32>
  return
}

// -----

func.func @max_unpool_indices(%x: tensor<1x3x2x2xf32>, %i: tensor<1x3x2x3xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{indices must have the input's shape}}
  %r = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>} : (tensor<1x3x2x2xf32>, tensor<1x3x2x3xi64>) -> tensor<1x3x3x3xf32>
  return
}

// -----

func.func @max_pool_with_indices_storage_order(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{storage_order must be 0 or 1, got 2}}
  %y, %i = graph.max_pool_with_indices %x {storage_order = 2 : i64, kernel_shape = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> (tensor<1x3x7x7xf32>, tensor<1x3x7x7xi64>)
  return
}

// -----

func.func @dft_length_vector(%x: tensor<2x10x1xf32>, %n: tensor<2xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{dft_length must be a scalar}}
  %r = graph.dft %x, %n {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x10x1xf32>, tensor<2xi64>) -> tensor<2x10x2xf32>
  return
}

// -----

func.func @compress_condition_too_long(%x: tensor<4x5xf32>, %c: tensor<6xi1>) {
  // expected-error @+2 {{condition has 6 elements, more than the 5 it selects from}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %n = graph.compress %x, %c {axis = 1 : i64} : (tensor<4x5xf32>, tensor<6xi1>) -> (tensor<4x?xf32>, tensor<i64>)
  return
}

// -----

func.func @output_extents_dim_past_rank(%x: tensor<4xf32>, %n: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{names dim 1 of result 0 of rank 1}}
  graph.output_extents %n {positions = array<i64: 0, 1>} : tensor<i64>
  return %x : tensor<4xf32>
}

// -----

func.func @output_extents_not_last(%x: tensor<4xf32>, %n: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{must come just before the function's return}}
  graph.output_extents %n {positions = array<i64: 0, 0>} : tensor<i64>
  %y = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @nms_box_coordinates(%b: tensor<1x6x5xf32>, %s: tensor<1x2x6xf32>) {
  // expected-error @+2 {{boxes must have 4 coordinates in their last dim, got 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %i, %n = graph.non_max_suppression %b, %s {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<1x6x5xf32>, tensor<1x2x6xf32>) -> (tensor<?x3xi64>, tensor<i64>)
  return
}

// -----

func.func @nms_boxes_disagree(%b: tensor<1x6x4xf32>, %s: tensor<1x2x7xf32>) {
  // expected-error @+2 {{boxes [batches, boxes, 4] and scores [batches, classes, boxes] disagree on batches or boxes}}
  // expected-error @+1 {{failed to infer returned types}}
  %i, %n = graph.non_max_suppression %b, %s {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<1x6x4xf32>, tensor<1x2x7xf32>) -> (tensor<?x3xi64>, tensor<i64>)
  return
}

// -----

func.func @nms_limit_not_scalar(%b: tensor<1x6x4xf32>, %s: tensor<1x2x6xf32>, %m: tensor<2xi64>) {
  // expected-error @+2 {{max_output_boxes_per_class must hold one element, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %i, %n = graph.non_max_suppression %b, %s, %m {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<2xi64>) -> (tensor<?x3xi64>, tensor<i64>)
  return
}

// -----

func.func @nms_center_point_box(%b: tensor<1x6x4xf32>, %s: tensor<1x2x6xf32>) {
  // expected-error @+2 {{center_point_box must be 0 or 1, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %i, %n = graph.non_max_suppression %b, %s {center_point_box = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>) -> (tensor<?x3xi64>, tensor<i64>)
  return
}

// -----

func.func @nms_half_boxes(%b: tensor<1x6x4xf16>, %s: tensor<1x2x6xf16>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float values, but got 'tensor<1x6x4xf16>'}}
  %i, %n = graph.non_max_suppression %b, %s {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<1x6x4xf16>, tensor<1x2x6xf16>) -> (tensor<?x3xi64>, tensor<i64>)
  return
}

// -----

func.func @unique_sorted_two(%x: tensor<4xf32>) {
  // expected-error @+2 {{sorted must be 0 or 1, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %i, %v, %c, %n = graph.unique %x {sorted = 2 : i64} : (tensor<4xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<4xi64>, tensor<?xi64>, tensor<i64>)
  return
}

// -----

func.func @unique_axis_past_rank(%x: tensor<4x2xf32>) {
  // expected-error @+2 {{axis 2 is out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %i, %v, %c, %n = graph.unique %x {axis = 2 : i64} : (tensor<4x2xf32>) -> (tensor<4x?xf32>, tensor<?xi64>, tensor<2xi64>, tensor<?xi64>, tensor<i64>)
  return
}

// -----

func.func @quantized_mat_mul_mixed_float8_and_int(%a: tensor<2x4xf8E4M3FN>, %b: tensor<4x3xi8>) {
  // expected-error @+2 {{operands must both be float8 e4m3fn or both 8-bit integers}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = graph.quantized_mat_mul %a, %b : (tensor<2x4xf8E4M3FN>, tensor<4x3xi8>) -> tensor<2x3xf32>
  return
}

// -----

func.func @quantized_mat_mul_trans_b_two(%a: tensor<2x4xi8>, %b: tensor<3x4xi8>) {
  // expected-error @+1 {{trans_b must be 0 or 1, got 2}}
  %r = graph.quantized_mat_mul %a, %b {trans_b = 2 : i64} : (tensor<2x4xi8>, tensor<3x4xi8>) -> tensor<2x3xi32>
  return
}

// -----

func.func @quantized_mat_mul_vector_a(%a: tensor<4xi8>, %b: tensor<4x3xi8>) {
  // expected-error @+2 {{A must have rank >= 2 and B rank 2 or A's}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = graph.quantized_mat_mul %a, %b : (tensor<4xi8>, tensor<4x3xi8>) -> tensor<3xi32>
  return
}

// -----

func.func @quantized_mat_mul_b_rank_between(%a: tensor<2x5x2x4xi8>, %b: tensor<5x4x3xi8>) {
  // expected-error @+2 {{A must have rank >= 2 and B rank 2 or A's}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = graph.quantized_mat_mul %a, %b : (tensor<2x5x2x4xi8>, tensor<5x4x3xi8>) -> tensor<2x5x2x3xi32>
  return
}

// -----

func.func @quantized_mat_mul_contraction(%a: tensor<2x4xi8>, %b: tensor<3x5xui8>) {
  // expected-error @+2 {{contraction dims do not match (4 vs 5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = graph.quantized_mat_mul %a, %b {trans_b = 1 : i64} : (tensor<2x4xi8>, tensor<3x5xui8>) -> tensor<2x3xi32>
  return
}

// -----

func.func @quantized_mat_mul_float_operand(%a: tensor<2x4xf32>, %b: tensor<4x3xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 8-bit signless integer or 8-bit unsigned integer or f8E4M3FN type values}}
  %r = graph.quantized_mat_mul %a, %b : (tensor<2x4xf32>, tensor<4x3xi8>) -> tensor<2x3xi32>
  return
}

// -----

func.func @quantized_conv_group_mismatch(%x: tensor<1x4x8x8xi8>, %w: tensor<6x2x3x3xi8>) {
  // expected-error @+1 {{input has 4 channels but the weight expects 2 x group 3}}
  %r = graph.quantized_conv %x, %w {group = 3 : i64} : (tensor<1x4x8x8xi8>, tensor<6x2x3x3xi8>) -> tensor<1x6x6x6xi32>
  return
}

// -----

func.func @quantized_conv_channels_last_group(%x: tensor<1x8x8x8xui8>, %w: tensor<6x3x3x2xi8>) {
  // expected-error @+1 {{output channels (6) must be a multiple of group 4}}
  %r = graph.quantized_conv %x, %w {group = 4 : i64, channels_last = 1 : i64} : (tensor<1x8x8x8xui8>, tensor<6x3x3x2xi8>) -> tensor<1x6x6x6xi32>
  return
}

// -----

func.func @quantized_conv_float8(%x: tensor<1x4x8x8xf8E4M3FN>, %w: tensor<8x4x3x3xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 8-bit signless integer or 8-bit unsigned integer values}}
  %r = graph.quantized_conv %x, %w : (tensor<1x4x8x8xf8E4M3FN>, tensor<8x4x3x3xi8>) -> tensor<1x8x6x6xi32>
  return
}
