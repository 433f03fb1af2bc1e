// RUN: graphc-opt %s --split-input-file --graphc-analyze-pad-safety | FileCheck %s

// A CNN's batch: samples never meet, so padding is exact and a run may be
// split along the batch.
// CHECK-LABEL: func @cnn
// CHECK-SAME: graph.pad_safety = {batch = {inputs = [0], node = "", outputs = [0], reason = "", safe = true, splittable = true}}
func.func @cnn(%x: tensor<4x3x8x8xf32> {graph.name = "image", graph.dims = ["batch", "", "", ""]}) -> (tensor<4x10xf32> {graph.name = "logits"}) {
  %w = graph.constant {value = dense<0.1> : tensor<8x3x3x3xf32>} : () -> tensor<8x3x3x3xf32>
  %b = graph.constant {value = dense<0.5> : tensor<8xf32>} : () -> tensor<8xf32>
  %0 = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<4x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<4x8x8x8xf32> loc("conv")
  %1 = graph.relu %0 : (tensor<4x8x8x8xf32>) -> tensor<4x8x8x8xf32> loc("relu")
  %2 = graph.global_average_pool %1 : (tensor<4x8x8x8xf32>) -> tensor<4x8x1x1xf32> loc("pool")
  %3 = graph.flatten %2 {axis = 1 : i64} : (tensor<4x8x1x1xf32>) -> tensor<4x8xf32> loc("flatten")
  %fw = graph.constant {value = dense<0.2> : tensor<8x10xf32>} : () -> tensor<8x10xf32>
  %fb = graph.constant {value = dense<0.0> : tensor<10xf32>} : () -> tensor<10xf32>
  %4 = graph.gemm %3, %fw, %fb : (tensor<4x8xf32>, tensor<8x10xf32>, tensor<10xf32>) -> tensor<4x10xf32> loc("fc")
  return %4 : tensor<4x10xf32>
}

// -----

// Self-attention without a mask: the softmax over the keys spreads weight
// onto padded keys. The batch stays safe.
// CHECK-LABEL: func @attention_without_mask
// CHECK-SAME: graph.pad_safety = {batch = {inputs = [0], node = "", outputs = [0], reason = "", safe = true, splittable = true}, seq = {inputs = [1], node = "softmax", outputs = [-1], reason = "a softmax over the padded axis whose padding is not masked", safe = false, splittable = false}}
func.func @attention_without_mask(%x: tensor<2x16x32xf32> {graph.name = "x", graph.dims = ["batch", "seq", ""]}) -> (tensor<2x16x32xf32> {graph.name = "y"}) {
  %wq = graph.constant {value = dense<0.1> : tensor<32x32xf32>} : () -> tensor<32x32xf32>
  %wk = graph.constant {value = dense<0.2> : tensor<32x32xf32>} : () -> tensor<32x32xf32>
  %wv = graph.constant {value = dense<0.3> : tensor<32x32xf32>} : () -> tensor<32x32xf32>
  %q = graph.mat_mul %x, %wq : (tensor<2x16x32xf32>, tensor<32x32xf32>) -> tensor<2x16x32xf32> loc("q")
  %k = graph.mat_mul %x, %wk : (tensor<2x16x32xf32>, tensor<32x32xf32>) -> tensor<2x16x32xf32> loc("k")
  %v = graph.mat_mul %x, %wv : (tensor<2x16x32xf32>, tensor<32x32xf32>) -> tensor<2x16x32xf32> loc("v")
  %kt = graph.transpose %k {perm = array<i64: 0, 2, 1>} : (tensor<2x16x32xf32>) -> tensor<2x32x16xf32> loc("kt")
  %s = graph.mat_mul %q, %kt : (tensor<2x16x32xf32>, tensor<2x32x16xf32>) -> tensor<2x16x16xf32> loc("scores")
  %p = graph.softmax %s {axis = -1 : i64} : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32> loc("softmax")
  %y = graph.mat_mul %p, %v : (tensor<2x16x16xf32>, tensor<2x16x32xf32>) -> tensor<2x16x32xf32> loc("context")
  return %y : tensor<2x16x32xf32>
}

// -----

// The same with an attention mask padded with 0: (1 - mask) * -10000 added
// to the scores masks the padded keys, so the softmax gives them weight 0
// and the context matmul sums zeros over them. Safe, but the softmax and
// the matmul mix positions along seq, so a run cannot be split along it.
// CHECK-LABEL: func @attention_with_mask
// CHECK-SAME: graph.pad_safety = {batch = {inputs = [0, 0], node = "", outputs = [0], reason = "", safe = true, splittable = true}, seq = {inputs = [1, 1], node = "softmax", outputs = [1], reason = "a softmax over the padded axis", safe = true, splittable = false}}
func.func @attention_with_mask(%x: tensor<2x16x32xf32> {graph.name = "x", graph.dims = ["batch", "seq", ""]},
                               %mask: tensor<2x16xi64> {graph.name = "attention_mask", graph.dims = ["batch", "seq"]}) -> (tensor<2x16x32xf32> {graph.name = "y"}) {
  %wq = graph.constant {value = dense<0.1> : tensor<32x32xf32>} : () -> tensor<32x32xf32>
  %wk = graph.constant {value = dense<0.2> : tensor<32x32xf32>} : () -> tensor<32x32xf32>
  %wv = graph.constant {value = dense<0.3> : tensor<32x32xf32>} : () -> tensor<32x32xf32>
  %q = graph.mat_mul %x, %wq : (tensor<2x16x32xf32>, tensor<32x32xf32>) -> tensor<2x16x32xf32> loc("q")
  %k = graph.mat_mul %x, %wk : (tensor<2x16x32xf32>, tensor<32x32xf32>) -> tensor<2x16x32xf32> loc("k")
  %v = graph.mat_mul %x, %wv : (tensor<2x16x32xf32>, tensor<32x32xf32>) -> tensor<2x16x32xf32> loc("v")
  %kt = graph.transpose %k {perm = array<i64: 0, 2, 1>} : (tensor<2x16x32xf32>) -> tensor<2x32x16xf32> loc("kt")
  %s = graph.mat_mul %q, %kt : (tensor<2x16x32xf32>, tensor<2x32x16xf32>) -> tensor<2x16x16xf32> loc("scores")
  %one = graph.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %big = graph.constant {value = dense<-10000.0> : tensor<f32>} : () -> tensor<f32>
  %axes = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %m = graph.cast %mask {to = f32} : (tensor<2x16xi64>) -> tensor<2x16xf32> loc("mask_cast")
  %inv = graph.sub %one, %m : (tensor<f32>, tensor<2x16xf32>) -> tensor<2x16xf32> loc("mask_invert")
  %bias = graph.mul %inv, %big : (tensor<2x16xf32>, tensor<f32>) -> tensor<2x16xf32> loc("mask_scale")
  %bias3 = graph.unsqueeze %bias, %axes : (tensor<2x16xf32>, tensor<1xi64>) -> tensor<2x1x16xf32> loc("mask_unsqueeze")
  %masked = graph.add %s, %bias3 : (tensor<2x16x16xf32>, tensor<2x1x16xf32>) -> tensor<2x16x16xf32> loc("mask_add")
  %p = graph.softmax %masked {axis = -1 : i64} : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32> loc("softmax")
  %y = graph.mat_mul %p, %v : (tensor<2x16x16xf32>, tensor<2x16x32xf32>) -> tensor<2x16x32xf32> loc("context")
  return %y : tensor<2x16x32xf32>
}

// -----

// A mean over the padded axis counts the padding.
// CHECK-LABEL: func @mean_over_padded_axis
// CHECK-SAME: graph.pad_safety = {seq = {inputs = [1], node = "pool_mean", outputs = [-1], reason = "a mean over the padded axis", safe = false, splittable = false}}
func.func @mean_over_padded_axis(%x: tensor<4x8xf32> {graph.name = "x", graph.dims = ["", "seq"]}) -> tensor<4xf32> {
  %axes = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = graph.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32> loc("relu")
  %1 = graph.reduce_mean %0, %axes {keepdims = 0 : i64} : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4xf32> loc("pool_mean")
  return %1 : tensor<4xf32>
}

// -----

// A sum over the padded axis of zero padding adds zeros: safe, but the sum
// mixes positions. Padding with 1 would change the sum.
// CHECK-LABEL: func @sum_of_zero_padding
// CHECK-SAME: graph.pad_safety = {seq = {inputs = [1], node = "total", outputs = [-1], reason = "a sum over the padded axis", safe = true, splittable = false}}
func.func @sum_of_zero_padding(%x: tensor<4x8xf32> {graph.name = "x", graph.dims = ["", "seq"]}) -> tensor<4x1xf32> {
  %axes = graph.constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = graph.reduce_sum %x, %axes : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4x1xf32> loc("total")
  return %0 : tensor<4x1xf32>
}

// CHECK-LABEL: func @sum_of_one_padding
// CHECK-SAME: graph.pad_safety = {seq = {inputs = [1], node = "total", outputs = [-1], reason = "a sum over the padded axis whose padding is not zero", safe = false, splittable = false}}
func.func @sum_of_one_padding(%x: tensor<4x8xf32> {graph.name = "x", graph.dims = ["", "seq"], graph.pad_value = 1.0 : f64}) -> tensor<4x1xf32> {
  %axes = graph.constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = graph.reduce_sum %x, %axes : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4x1xf32> loc("total")
  return %0 : tensor<4x1xf32>
}

// -----

// A 1-D convolution over seq reads padded neighbours at the real edge; the
// batch axis is fine.
// CHECK-LABEL: func @conv_along_seq
// CHECK-SAME: graph.pad_safety = {batch = {inputs = [0], node = "", outputs = [0], reason = "", safe = true, splittable = true}, seq = {inputs = [2], node = "temporal_conv", outputs = [-1], reason = "a convolution along the padded axis", safe = false, splittable = false}}
func.func @conv_along_seq(%x: tensor<2x4x16xf32> {graph.name = "x", graph.dims = ["batch", "", "seq"]}) -> tensor<2x8x16xf32> {
  %w = graph.constant {value = dense<0.1> : tensor<8x4x3xf32>} : () -> tensor<8x4x3xf32>
  %0 = graph.conv %x, %w {pads = array<i64: 1, 1>} : (tensor<2x4x16xf32>, tensor<8x4x3xf32>) -> tensor<2x8x16xf32> loc("temporal_conv")
  return %0 : tensor<2x8x16xf32>
}

// -----

// GPT-2's projection: [batch, seq, 16] is flattened to [batch*seq, 16] for
// a Gemm and split back. batch is the outer factor of the merged axis, so
// its padding stays a suffix; seq is interleaved, which row-wise ops (the
// layer norm over features, the Gemm's rows, the GELU) accept, and the
// reshape back restores it. Both dims are safe.
// CHECK-LABEL: func @gpt2_projection
// CHECK-SAME: graph.pad_safety = {batch = {inputs = [0], node = "", outputs = [0], reason = "", safe = true, splittable = true}, seq = {inputs = [1], node = "", outputs = [1], reason = "", safe = true, splittable = true}}
func.func @gpt2_projection(%x: tensor<2x8x16xf32> {graph.name = "hidden", graph.dims = ["batch", "seq", ""]}) -> tensor<2x8x64xf32> {
  %rows = graph.constant {value = dense<[16, 16]> : tensor<2xi64>} : () -> tensor<2xi64>
  %back = graph.constant {value = dense<[2, 8, 64]> : tensor<3xi64>} : () -> tensor<3xi64>
  %g = graph.constant {value = dense<1.0> : tensor<16xf32>} : () -> tensor<16xf32>
  %beta = graph.constant {value = dense<0.0> : tensor<16xf32>} : () -> tensor<16xf32>
  %w = graph.constant {value = dense<0.1> : tensor<16x64xf32>} : () -> tensor<16x64xf32>
  %b = graph.constant {value = dense<0.5> : tensor<64xf32>} : () -> tensor<64xf32>
  %0 = graph.reshape %x, %rows : (tensor<2x8x16xf32>, tensor<2xi64>) -> tensor<16x16xf32> loc("flatten_rows")
  %1 = graph.layer_normalization %0, %g, %beta : (tensor<16x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16x16xf32> loc("ln")
  %2 = graph.gemm %1, %w, %b : (tensor<16x16xf32>, tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("c_fc")
  %3 = graph.gelu %2 : (tensor<16x64xf32>) -> tensor<16x64xf32> loc("gelu")
  %4 = graph.reshape %3, %back : (tensor<16x64xf32>, tensor<3xi64>) -> tensor<2x8x64xf32> loc("split_rows")
  return %4 : tensor<2x8x64xf32>
}

// -----

// The batch-1 bucket of the same: the size-1 batch merges into the rows
// and comes back.
// CHECK-LABEL: func @gpt2_projection_batch_one
// CHECK-SAME: graph.pad_safety = {batch = {inputs = [0], node = "", outputs = [0], reason = "", safe = true, splittable = true}, seq = {inputs = [1], node = "", outputs = [1], reason = "", safe = true, splittable = true}}
func.func @gpt2_projection_batch_one(%x: tensor<1x8x16xf32> {graph.name = "hidden", graph.dims = ["batch", "seq", ""]}) -> tensor<1x8x64xf32> {
  %rows = graph.constant {value = dense<[8, 16]> : tensor<2xi64>} : () -> tensor<2xi64>
  %back = graph.constant {value = dense<[1, 8, 64]> : tensor<3xi64>} : () -> tensor<3xi64>
  %w = graph.constant {value = dense<0.1> : tensor<16x64xf32>} : () -> tensor<16x64xf32>
  %0 = graph.reshape %x, %rows : (tensor<1x8x16xf32>, tensor<2xi64>) -> tensor<8x16xf32> loc("flatten_rows")
  %1 = graph.gemm %0, %w : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32> loc("c_fc")
  %2 = graph.reshape %1, %back : (tensor<8x64xf32>, tensor<3xi64>) -> tensor<1x8x64xf32> loc("split_rows")
  return %2 : tensor<1x8x64xf32>
}

// -----

// An output left merged: the runtime slices one plain axis back, and seq's
// padded rows are interleaved with the real ones.
// CHECK-LABEL: func @output_merged
// CHECK-SAME: graph.pad_safety = {batch = {inputs = [0], node = "flatten_rows", outputs = [-1], reason = "output 'rows' carries the dim merged with another axis", safe = false, splittable = false}, seq = {inputs = [1], node = "flatten_rows", outputs = [-1], reason = "output 'rows' carries the dim merged with another axis", safe = false, splittable = false}}
func.func @output_merged(%x: tensor<2x8x16xf32> {graph.name = "hidden", graph.dims = ["batch", "seq", ""]}) -> (tensor<16x16xf32> {graph.name = "rows"}) {
  %rows = graph.constant {value = dense<[16, 16]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = graph.reshape %x, %rows : (tensor<2x8x16xf32>, tensor<2xi64>) -> tensor<16x16xf32> loc("flatten_rows")
  return %0 : tensor<16x16xf32>
}

// -----

// An op the analysis does not know is never taken as safe.
// CHECK-LABEL: func @not_analysed
// CHECK-SAME: graph.pad_safety = {seq = {inputs = [0], node = "project", outputs = [-1], reason = "einsum is not analysed", safe = false, splittable = false}}
func.func @not_analysed(%x: tensor<8x16xf32> {graph.name = "x", graph.dims = ["seq", ""]}) -> tensor<8x4xf32> {
  %w = graph.constant {value = dense<0.1> : tensor<16x4xf32>} : () -> tensor<16x4xf32>
  %0 = graph.einsum %x, %w {equation = "sd,de->se"} : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32> loc("project")
  return %0 : tensor<8x4xf32>
}

// -----

// Token ids padded with 0 gather real embedding rows; a folded position-id
// constant spans seq without carrying it (its leading rows are what the
// unpadded run adds); a max over the features keeps seq.
// CHECK-LABEL: func @embeddings
// CHECK-SAME: graph.pad_safety = {seq = {inputs = [1], node = "", outputs = [1, 1], reason = "", safe = true, splittable = true}}
func.func @embeddings(%ids: tensor<2x8xi64> {graph.name = "input_ids", graph.dims = ["", "seq"]}) -> (tensor<2x8x4xf32>, tensor<2x8xf32>) {
  %wte = graph.constant {value = dense<0.5> : tensor<100x4xf32>} : () -> tensor<100x4xf32>
  %wpe = graph.constant {value = dense<0.25> : tensor<8x4xf32>} : () -> tensor<8x4xf32>
  %axes = graph.constant {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = graph.gather %wte, %ids {axis = 0 : i64} : (tensor<100x4xf32>, tensor<2x8xi64>) -> tensor<2x8x4xf32> loc("wte")
  %1 = graph.add %0, %wpe : (tensor<2x8x4xf32>, tensor<8x4xf32>) -> tensor<2x8x4xf32> loc("add_positions")
  %2 = graph.reduce_max %1, %axes {keepdims = 0 : i64} : (tensor<2x8x4xf32>, tensor<1xi64>) -> tensor<2x8xf32> loc("feature_max")
  return %1, %2 : tensor<2x8x4xf32>, tensor<2x8xf32>
}

// -----

// Token ids padded with -101 would read outside the table.
// CHECK-LABEL: func @ids_out_of_range
// CHECK-SAME: graph.pad_safety = {seq = {inputs = [1], node = "wte", outputs = [-1], reason = "a gather whose padded indices may be out of range", safe = false, splittable = false}}
func.func @ids_out_of_range(%ids: tensor<2x8xi64> {graph.name = "input_ids", graph.dims = ["", "seq"], graph.pad_value = -101.0 : f64}) -> tensor<2x8x4xf32> {
  %wte = graph.constant {value = dense<0.5> : tensor<100x4xf32>} : () -> tensor<100x4xf32>
  %0 = graph.gather %wte, %ids {axis = 0 : i64} : (tensor<100x4xf32>, tensor<2x8xi64>) -> tensor<2x8x4xf32> loc("wte")
  return %0 : tensor<2x8x4xf32>
}

// -----

// GPT-2 as torch.onnx's dynamo exporter writes its masks: GatherND reads the
// attention mask at the grid of every (batch, key) position, an And with
// the causal constant and a Where turn it into 0 or the lowest float, added
// to the causally masked scores. The padded keys are masked for every
// query, so both dims are safe.
// CHECK-LABEL: func @gpt2_masks
// CHECK-SAME: graph.pad_safety = {batch = {inputs = [0, 0, 0], node = "", outputs = [0], reason = "", safe = true, splittable = true}, seq = {inputs = [2, 2, 1], node = "softmax", outputs = [2], reason = "a softmax over the padded axis", safe = true, splittable = false}}
func.func @gpt2_masks(%scores: tensor<2x2x4x4xf32> {graph.name = "scores", graph.dims = ["batch", "", "seq", "seq"]},
                      %v: tensor<2x2x4x4xf32> {graph.name = "v", graph.dims = ["batch", "", "seq", ""]},
                      %mask: tensor<2x4xi64> {graph.name = "attention_mask", graph.dims = ["batch", "seq"]}) -> tensor<2x2x4x4xf32> {
  %grid = graph.constant {value = dense<[[[0, 0], [0, 1], [0, 2], [0, 3]], [[1, 0], [1, 1], [1, 2], [1, 3]]]> : tensor<2x4x2xi64>} : () -> tensor<2x4x2xi64>
  %causal = graph.constant {value = dense<[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>} : () -> tensor<4x4xi1>
  %causal4 = graph.constant {value = dense<[[[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]]]> : tensor<1x1x4x4xi1>} : () -> tensor<1x1x4x4xi1>
  %zero = graph.constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %lowest = graph.constant {value = dense<-3.40282347E+38> : tensor<f32>} : () -> tensor<f32>
  %shape3 = graph.constant {value = dense<[2, 1, 4]> : tensor<3xi64>} : () -> tensor<3xi64>
  %shape4 = graph.constant {value = dense<[2, 1, 4, 4]> : tensor<4xi64>} : () -> tensor<4xi64>
  %0 = graph.cast %mask {to = i1} : (tensor<2x4xi64>) -> tensor<2x4xi1> loc("to_bool")
  %1 = graph.gather_nd %0, %grid : (tensor<2x4xi1>, tensor<2x4x2xi64>) -> tensor<2x4xi1> loc("mask_grid")
  %2 = graph.reshape %1, %shape3 : (tensor<2x4xi1>, tensor<3xi64>) -> tensor<2x1x4xi1> loc("view")
  %3 = graph.and %2, %causal : (tensor<2x1x4xi1>, tensor<4x4xi1>) -> tensor<2x4x4xi1> loc("and")
  %4 = graph.reshape %3, %shape4 : (tensor<2x4x4xi1>, tensor<4xi64>) -> tensor<2x1x4x4xi1> loc("view_1")
  %5 = graph.where %4, %zero, %lowest : (tensor<2x1x4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<2x1x4x4xf32> loc("mask_bias")
  %6 = graph.where %causal4, %scores, %lowest : (tensor<1x1x4x4xi1>, tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32> loc("causal")
  %7 = graph.add %6, %5 : (tensor<2x2x4x4xf32>, tensor<2x1x4x4xf32>) -> tensor<2x2x4x4xf32> loc("add_mask")
  %8 = graph.softmax %7 : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> loc("softmax")
  %9 = graph.mat_mul %8, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> loc("context")
  return %9 : tensor<2x2x4x4xf32>
}

// -----

// A GatherND whose indices into the padded axis are not the positions
// (here: reversed) moves padding into real positions.
// CHECK-LABEL: func @gather_nd_reversed
// CHECK-SAME: graph.pad_safety = {seq = {inputs = [0], node = "reverse", outputs = [-1], reason = "a gather_nd along the padded axis", safe = false, splittable = false}}
func.func @gather_nd_reversed(%x: tensor<4xf32> {graph.name = "x", graph.dims = ["seq"]}) -> tensor<4xf32> {
  %indices = graph.constant {value = dense<[[3], [2], [1], [0]]> : tensor<4x1xi64>} : () -> tensor<4x1xi64>
  %0 = graph.gather_nd %x, %indices : (tensor<4xf32>, tensor<4x1xi64>) -> tensor<4xf32> loc("reverse")
  return %0 : tensor<4xf32>
}

// -----

// RoiAlign computes each box alone: boxes padded with zeros (batch index 0,
// an image of the batch) give padded rows of the result, which the runtime
// slices off.
// CHECK-LABEL: func @roi_align_boxes
// CHECK-SAME: graph.pad_safety = {boxes = {inputs = [-1, 0, 0], node = "", outputs = [0], reason = "", safe = true, splittable = true}}
func.func @roi_align_boxes(%x: tensor<2x3x8x8xf32> {graph.name = "x"},
                           %r: tensor<8x4xf32> {graph.name = "rois", graph.dims = ["boxes", ""]},
                           %b: tensor<8xi64> {graph.name = "batch_indices", graph.dims = ["boxes"]}) -> (tensor<8x3x2x2xf32> {graph.name = "y"}) {
  %0 = graph.roi_align %x, %r, %b {output_height = 2 : i64, output_width = 2 : i64} : (tensor<2x3x8x8xf32>, tensor<8x4xf32>, tensor<8xi64>) -> tensor<8x3x2x2xf32> loc("align")
  return %0 : tensor<8x3x2x2xf32>
}

// -----

// Batch indices padded with 2, past the two images, would fail the run; a
// padded image would be sampled.
// CHECK-LABEL: func @roi_align_unsafe
// CHECK-SAME: graph.pad_safety = {batch = {inputs = [0, -1, -1], node = "align", outputs = [-1], reason = "roi_align samples along the padded axis", safe = false, splittable = false}, boxes = {inputs = [-1, 0, 0], node = "align", outputs = [-1], reason = "a roi_align whose padded batch indices may be out of range", safe = false, splittable = false}}
func.func @roi_align_unsafe(%x: tensor<2x3x8x8xf32> {graph.name = "x", graph.dims = ["batch", "", "", ""]},
                            %r: tensor<8x4xf32> {graph.name = "rois", graph.dims = ["boxes", ""]},
                            %b: tensor<8xi64> {graph.name = "batch_indices", graph.dims = ["boxes"], graph.pad_value = 2.0 : f64}) -> (tensor<8x3x2x2xf32> {graph.name = "y"}) {
  %0 = graph.roi_align %x, %r, %b {output_height = 2 : i64, output_width = 2 : i64} : (tensor<2x3x8x8xf32>, tensor<8x4xf32>, tensor<8xi64>) -> tensor<8x3x2x2xf32> loc("align")
  return %0 : tensor<8x3x2x2xf32>
}
