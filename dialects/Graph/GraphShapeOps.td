//===- GraphShapeOps.td - shapes and data movement ----*- tablegen -*-===//

#ifndef GRAPHC_GRAPH_SHAPE_OPS_TD
#define GRAPHC_GRAPH_SHAPE_OPS_TD

include "dialects/Graph/GraphBase.td"

//===----------------------------------------------------------------------===//
// Constants and shapes
//===----------------------------------------------------------------------===//

def Graph_ConstantOp : Graph_Op<"constant", [Pure, ConstantLike]> {
  let summary = "a constant tensor (weights are dense resource blobs)";
  let description = [{
    Example:
    ```mlir
    %0 = graph.constant {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Graph_AnyTensor:$output);
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Graph_ConstantOfShapeOp : Graph_InferOp<"constant_of_shape", [Pure]> {
  let summary = "a tensor of the given shape filled with one value";
  let description = [{
    `value` is a one-element tensor giving the element type and the fill
    (default: f32 zero). The shape is a 1-D i64 operand.
    ```mlir
    %0 = graph.constant_of_shape %s {value = dense<1> : tensor<1xi64>} : (tensor<2xi64>) -> tensor<?x?xi64>
    ```
  }];
  let arguments = (ins Graph_I64Tensor:$input,
                       OptionalAttr<ElementsAttr>:$value);
  let results = (outs Graph_Tensor:$output);
  let hasVerifier = 1;
}

def Graph_ShapeOp : Graph_InferOp<"shape", [Pure]> {
  let summary = "the dims [start, end) of the input as a 1-D i64 tensor";
  let description = [{
    Negative `start`/`end` count from the back and both are clamped to the
    rank. Folds to a constant whenever the selected dims are static.
    ```mlir
    %0 = graph.shape %x {start = 1 : i64} : (tensor<?x3x4xf32>) -> tensor<2xi64>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data,
                       DefaultValuedAttr<I64Attr, "0">:$start,
                       OptionalAttr<I64Attr>:$end);
  let results = (outs Graph_I64Tensor:$shape);
  let hasCustomFolder = 1;
}

def Graph_SizeOp : Graph_InferOp<"size", [Pure]> {
  let summary = "the number of elements of the input as an i64 scalar";
  let description = [{
    Folds to a constant whenever the input shape is static.
    ```mlir
    %0 = graph.size %x : (tensor<2x3xf32>) -> tensor<i64>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data);
  let results = (outs Graph_I64Tensor:$size);
  let hasCustomFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reshaping
//===----------------------------------------------------------------------===//

def Graph_ReshapeOp : Graph_InferOp<"reshape", [Pure]> {
  let summary = "reshape to a shape given as a 1-D i64 tensor";
  let description = [{
    Zeros copy the input dim (unless `allowzero`), one -1 is inferred. The
    result dims are static when the shape operand is a constant.
    ```mlir
    %0 = graph.reshape %x, %s : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_I64Tensor:$shape,
                       DefaultValuedAttr<I64Attr, "0">:$allowzero);
  let results = (outs Graph_Tensor:$reshaped);
  let hasCanonicalizer = 1;
}

def Graph_FlattenOp : Graph_InferOp<"flatten", [Pure]> {
  let summary = "collapse to 2-D: dims before `axis` and dims from `axis` on";
  let description = [{
    ```mlir
    %0 = graph.flatten %x {axis = 1 : i64} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Graph_Tensor:$output);
}

def Graph_TransposeOp : Graph_InferOp<"transpose", [Pure]> {
  let summary = "permute dims; result dim i is input dim perm[i]";
  let description = [{
    Without `perm` the dims are reversed.
    ```mlir
    %0 = graph.transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<?x3x4xf32>) -> tensor<?x4x3xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data,
                       OptionalAttr<DenseI64ArrayAttr>:$perm);
  let results = (outs Graph_Tensor:$transposed);
  let hasCanonicalizer = 1;
}

def Graph_SqueezeOp : Graph_InferOp<"squeeze", [Pure]> {
  let summary = "remove size-1 dims listed in `axes` (all of them if absent)";
  let description = [{
    ```mlir
    %0 = graph.squeeze %x, %axes : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<3x1xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data, Optional<Graph_I64Tensor>:$axes);
  let results = (outs Graph_Tensor:$squeezed);
  let hasCanonicalizer = 1;
}

def Graph_UnsqueezeOp : Graph_InferOp<"unsqueeze", [Pure]> {
  let summary = "insert size-1 dims at `axes` of the result";
  let description = [{
    ```mlir
    %0 = graph.unsqueeze %x, %axes : (tensor<3xf32>, tensor<2xi64>) -> tensor<1x3x1xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_I64Tensor:$axes);
  let results = (outs Graph_Tensor:$expanded);
  let hasCanonicalizer = 1;
}

def Graph_ExpandOp : Graph_InferOp<"expand", [Pure]> {
  let summary = "broadcast the input to a shape given as a 1-D i64 tensor";
  let description = [{
    Numpy broadcasting of the input shape with the given shape.
    ```mlir
    %0 = graph.expand %x, %s : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_I64Tensor:$shape);
  let results = (outs Graph_Tensor:$output);
  let hasCanonicalizer = 1;
}

def Graph_TileOp : Graph_InferOp<"tile", [Pure]> {
  let summary = "repeat the input `repeats[i]` times along dim i";
  let description = [{
    ```mlir
    %0 = graph.tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_I64Tensor:$repeats);
  let results = (outs Graph_Tensor:$output);
}

def Graph_DepthToSpaceOp : Graph_InferOp<"depth_to_space", [Pure]> {
  let summary = "move channel blocks into spatial blocks (NCHW)";
  let description = [{
    `mode` is "DCR" (depth-column-row) or "CRD".
    ```mlir
    %0 = graph.depth_to_space %x {blocksize = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, I64Attr:$blocksize,
                       DefaultValuedStrAttr<StrAttr, "DCR">:$mode);
  let results = (outs Graph_Tensor:$output);
  let hasVerifier = 1;
}

def Graph_SpaceToDepthOp : Graph_InferOp<"space_to_depth", [Pure]> {
  let summary = "move spatial blocks into channel blocks (NCHW)";
  let description = [{
    ```mlir
    %0 = graph.space_to_depth %x {blocksize = 2 : i64} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, I64Attr:$blocksize);
  let results = (outs Graph_Tensor:$output);
}

//===----------------------------------------------------------------------===//
// Joining and splitting
//===----------------------------------------------------------------------===//

def Graph_ConcatOp : Graph_InferOp<"concat", [Pure]> {
  let summary = "join one or more tensors along `axis`";
  let description = [{
    ```mlir
    %0 = graph.concat %a, %b {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
    ```
  }];
  let arguments = (ins Variadic<Graph_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Graph_Tensor:$concat_result);
}

def Graph_SplitOp : Graph_MultiResultInferOp<"split", [Pure]> {
  let summary = "split along `axis` into `num_outputs` parts";
  let description = [{
    The optional 1-D i64 `split` operand gives the part lengths; without it
    the parts are equal, the last one smaller if the dim does not divide.
    ```mlir
    %a, %b = graph.split %x {axis = 1 : i64, num_outputs = 2 : i64} : (tensor<?x8xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>)
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Optional<Graph_I64Tensor>:$split,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       I64Attr:$num_outputs);
  let results = (outs Variadic<Graph_Tensor>:$outputs);
}

//===----------------------------------------------------------------------===//
// Slicing, gathering and scattering
//===----------------------------------------------------------------------===//

def Graph_SliceOp : Graph_InferOp<"slice", [Pure, AttrSizedOperandSegments]> {
  let summary = "strided slice [starts, ends) along `axes`";
  let description = [{
    All index operands are 1-D integer tensors of one length; `axes`
    defaults to the leading dims and `steps` to ones.
    ```mlir
    %0 = graph.slice %x, %s, %e {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<?x8xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_IndexTensor:$starts,
                       Graph_IndexTensor:$ends,
                       Optional<Graph_IndexTensor>:$axes,
                       Optional<Graph_IndexTensor>:$steps);
  let results = (outs Graph_Tensor:$output);
}

def Graph_GatherOp : Graph_InferOp<"gather", [Pure, Graph_ChecksValues]> {
  let summary = "take entries of `data` along `axis` at `indices`";
  let description = [{
    ```mlir
    %0 = graph.gather %x, %i {axis = 0 : i64} : (tensor<5x8xf32>, tensor<3xi64>) -> tensor<3x8xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Graph_Tensor:$output);
}

def Graph_GatherElementsOp : Graph_InferOp<"gather_elements", [Pure, Graph_ChecksValues]> {
  let summary = "gather elements along `axis`; result has the indices' shape";
  let description = [{
    ```mlir
    %0 = graph.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Graph_Tensor:$output);
}

def Graph_GatherNdOp : Graph_InferOp<"gather_nd", [Pure, Graph_ChecksValues]> {
  let summary = "gather slices addressed by the last dim of `indices`";
  let description = [{
    ```mlir
    %0 = graph.gather_nd %x, %i : (tensor<4x5x6xf32>, tensor<3x2xi64>) -> tensor<3x6xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_I64Tensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Graph_Tensor:$output);
}

def Graph_ScatterElementsOp : Graph_InferOp<"scatter_elements", [Pure, Graph_ChecksValues]> {
  let summary = "a copy of `data` with `updates` written along `axis`";
  let description = [{
    `reduction` is "none", "add", "mul", "max" or "min".
    ```mlir
    %0 = graph.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_IndexTensor:$indices,
                       Graph_Tensor:$updates,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedStrAttr<StrAttr, "none">:$reduction);
  let results = (outs Graph_Tensor:$output);
  let hasVerifier = 1;
  let sharedInference = [{
    return ::graphc::graph::inferSameType(adaptor.getData(), results);
  }];
}

def Graph_ScatterNdOp : Graph_InferOp<"scatter_nd", [Pure, Graph_ChecksValues]> {
  let summary = "a copy of `data` with slices addressed by `indices` updated";
  let description = [{
    ```mlir
    %0 = graph.scatter_nd %x, %i, %u : (tensor<8xf32>, tensor<2x1xi64>, tensor<2xf32>) -> tensor<8xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_I64Tensor:$indices,
                       Graph_Tensor:$updates,
                       DefaultValuedStrAttr<StrAttr, "none">:$reduction);
  let results = (outs Graph_Tensor:$output);
  let hasVerifier = 1;
  let sharedInference = [{
    return ::graphc::graph::inferSameType(adaptor.getData(), results);
  }];
}

//===----------------------------------------------------------------------===//
// Padding, resizing and generators
//===----------------------------------------------------------------------===//

def Graph_PadOp : Graph_InferOp<"pad", [Pure, AttrSizedOperandSegments]> {
  let summary = "pad by `pads` (all begins, then all ends) along `axes`";
  let description = [{
    `mode` is "constant", "reflect", "edge" or "wrap"; negative pads crop.
    ```mlir
    %0 = graph.pad %x, %p {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4x5xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_I64Tensor:$pads,
                       Optional<Graph_Tensor>:$constant_value,
                       Optional<Graph_IndexTensor>:$axes,
                       DefaultValuedStrAttr<StrAttr, "constant">:$mode);
  let results = (outs Graph_Tensor:$output);
  let hasVerifier = 1;
}

def Graph_ResizeOp : Graph_InferOp<"resize", [Pure, AttrSizedOperandSegments]> {
  let summary = "resample spatial dims by `scales` or to `sizes` (opset 19)";
  let description = [{
    Exactly one of `scales` (f32) and `sizes` (i64) is given; `axes`
    restricts both to some dims.
    ```mlir
    %0 = graph.resize %x, %s {mode = "linear", operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4xf32>) -> tensor<1x3x16x16xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$x,
      Optional<Graph_FloatTensor>:$roi,
      Optional<Graph_FloatTensor>:$scales,
      Optional<Graph_I64Tensor>:$sizes,
      DefaultValuedAttr<I64Attr, "0">:$antialias,
      OptionalAttr<DenseI64ArrayAttr>:$axes,
      DefaultValuedStrAttr<StrAttr, "half_pixel">:$coordinate_transformation_mode,
      DefaultValuedAttr<F32Attr, "-0.75">:$cubic_coeff_a,
      DefaultValuedAttr<I64Attr, "0">:$exclude_outside,
      DefaultValuedAttr<F32Attr, "0.0">:$extrapolation_value,
      DefaultValuedStrAttr<StrAttr, "stretch">:$keep_aspect_ratio_policy,
      DefaultValuedStrAttr<StrAttr, "nearest">:$mode,
      DefaultValuedStrAttr<StrAttr, "round_prefer_floor">:$nearest_mode);
  let results = (outs Graph_NumericTensor:$y);
  let hasVerifier = 1;
}

def Graph_GridSampleOp : Graph_InferOp<"grid_sample", [Pure]> {
  let summary = "sample `x` at the normalised coordinates in `grid` (opset 22)";
  let description = [{
    `x` is [N, C, D1, ..., Dk], `grid` [N, O1, ..., Ok, k] with the
    coordinate of the last spatial dim first, in [-1, 1]; `y` is
    [N, C, O1, ..., Ok]. `mode` is "linear", "nearest" (half to even) or
    "cubic" (opset 16's "bilinear" and "bicubic" are imported as those),
    `padding_mode` "zeros", "border" or "reflection". Non-finite
    coordinates never read out of bounds: with linear and cubic a NaN one,
    or an infinite one border padding does not clamp to its edge, gives
    NaN (as in onnxruntime); with nearest, NaN samples zeros (padding
    "zeros") or position 0 (see lib/HostKernels/GridSample.cpp).
    ```mlir
    %0 = graph.grid_sample %x, %g {mode = "nearest"} : (tensor<1x3x8x8xf32>, tensor<1x4x4x2xf32>) -> tensor<1x3x4x4xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$grid,
      DefaultValuedAttr<I64Attr, "0">:$align_corners,
      DefaultValuedStrAttr<StrAttr, "linear">:$mode,
      DefaultValuedStrAttr<StrAttr, "zeros">:$padding_mode);
  let results = (outs Graph_FloatTensor:$y);
  let hasVerifier = 1;
}

def Graph_AffineGridOp : Graph_InferOp<"affine_grid", [Pure]> {
  let summary = "sampling grid of affine transforms `theta` (opset 20)";
  let description = [{
    `theta` is [N, 2, 3] (2-d) or [N, 3, 4] (3-d); `size` (the output's
    [N, C, H, W] or [N, C, D, H, W]) is a shape operand: the result is
    static only when it is a constant. The grid is [N, H, W, 2] or
    [N, D, H, W, 3], each point `theta` times (x, y[, z], 1) of the
    normalised coordinates of its position.
    ```mlir
    %0 = graph.affine_grid %t, %s : (tensor<2x2x3xf32>, tensor<4xi64>) -> tensor<2x4x5x2xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$theta, Graph_IndexTensor:$size,
      DefaultValuedAttr<I64Attr, "0">:$align_corners);
  let results = (outs Graph_FloatTensor:$grid);
  let hasVerifier = 1;
}

def Graph_RoiAlignOp : Graph_InferOp<"roi_align", [Pure, Graph_ChecksValues]> {
  let summary = "pool bilinear samples of regions of interest of `x` (opset 22)";
  let description = [{
    `x` is [N, C, H, W], `rois` [R, 4] boxes (x1, y1, x2, y2) in the
    coordinates of the image `spatial_scale` scales to `x`, `batch_indices`
    [R] the image of each box; `y` is [R, C, output_height, output_width].
    Each output bin averages ("avg") or takes the largest ("max") of a
    grid of bilinear samples: `sampling_ratio` per axis, or when it is 0
    `ceil(roi size / output size)`. "half_pixel" shifts the box by -0.5;
    "output_half_pixel" (RoiAlign before opset 16) does not and makes
    boxes at least 1x1. The computation is onnxruntime's, its "max"
    included (the largest bilinear corner contribution weight * value of
    each sample, not the largest interpolated value); a batch index
    outside [0, N) fails the run (see lib/HostKernels/RoiAlign.cpp).
    `rois` may be float32 where `x` is 16-bit (coordinates).
    ```mlir
    %0 = graph.roi_align %x, %r, %b {mode = "max", output_height = 2 : i64, output_width = 2 : i64} : (tensor<1x3x8x8xf32>, tensor<5x4xf32>, tensor<5xi64>) -> tensor<5x3x2x2xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$rois,
      Graph_I64Tensor:$batch_indices,
      DefaultValuedStrAttr<StrAttr, "half_pixel">:$coordinate_transformation_mode,
      DefaultValuedStrAttr<StrAttr, "avg">:$mode,
      DefaultValuedAttr<I64Attr, "1">:$output_height,
      DefaultValuedAttr<I64Attr, "1">:$output_width,
      DefaultValuedAttr<I64Attr, "0">:$sampling_ratio,
      DefaultValuedAttr<F32Attr, "1.0">:$spatial_scale);
  let results = (outs Graph_FloatTensor:$y);
  let hasVerifier = 1;
}

def Graph_RangeOp : Graph_InferOp<"range", [Pure]> {
  let summary = "1-D sequence start, start + delta, ... up to (excluding) limit";
  let description = [{
    The operands are scalars of one numeric type; the length is static
    when all three are constants.
    ```mlir
    %0 = graph.range %s, %l, %d : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$start, Graph_NumericTensor:$limit,
                       Graph_NumericTensor:$delta);
  let results = (outs Graph_NumericTensor:$output);
}

def Graph_TriluOp : Graph_InferOp<"trilu", [Pure]> {
  let summary = "keep the upper (or lower) triangle of the last two dims";
  let description = [{
    The optional scalar `k` shifts the diagonal.
    ```mlir
    %0 = graph.trilu %x {upper = 0 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Optional<Graph_I64Tensor>:$k,
                       DefaultValuedAttr<I64Attr, "1">:$upper);
  let results = (outs Graph_Tensor:$output);
}

def Graph_OneHotOp : Graph_InferOp<"one_hot", [Pure]> {
  let summary = "one-hot encoding of `indices` with `depth` classes";
  let description = [{
    `values` is [off_value, on_value]; a new dim of size depth is inserted
    at `axis` of the result.
    ```mlir
    %0 = graph.one_hot %i, %d, %v {axis = -1 : i64} : (tensor<4xi64>, tensor<i64>, tensor<2xf32>) -> tensor<4x?xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$indices,
                       Graph_NumericTensor:$depth, Graph_Tensor:$values,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Graph_Tensor:$output);
}

def Graph_EyeLikeOp : Graph_InferOp<"eye_like", [Pure]> {
  let summary = "a 2-D tensor with ones on diagonal `k`, shaped like the input";
  let description = [{
    The element type is `dtype`, or the input's when absent.
    ```mlir
    %0 = graph.eye_like %x {dtype = f32, k = 1 : i64} : (tensor<3x4xi64>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, OptionalAttr<TypeAttr>:$dtype,
                       DefaultValuedAttr<I64Attr, "0">:$k);
  let results = (outs Graph_Tensor:$output);
}

def Graph_ReverseSequenceOp : Graph_InferOp<"reverse_sequence", [Pure, Graph_ChecksValues]> {
  let summary = "reverse the first sequence_lens[b] steps of every batch b";
  let description = [{
    ```mlir
    %0 = graph.reverse_sequence %x, %l {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<4x2x8xf32>, tensor<2xi64>) -> tensor<4x2x8xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_I64Tensor:$sequence_lens,
                       DefaultValuedAttr<I64Attr, "1">:$batch_axis,
                       DefaultValuedAttr<I64Attr, "0">:$time_axis);
  let results = (outs Graph_Tensor:$output);
  let hasVerifier = 1;
  let sharedInference = [{
    return ::graphc::graph::inferSameType(adaptor.getInput(), results);
  }];
}

//===----------------------------------------------------------------------===//
// Image blocks and unpooling
//===----------------------------------------------------------------------===//

def Graph_Col2ImOp : Graph_InferOp<"col2im", [Pure]> {
  let summary = "sum sliding blocks [N, C*prod(block), L] into an image";
  let description = [{
    The inverse of im2col: column `c * prod(block_shape) + k` of block `l`
    (row-major over the blocks' grid) adds into channel `c` of the image at
    the position kernel offset `k` of block `l` covers. `image_shape` and
    `block_shape` are 1-D shapes, one entry per spatial dim; overlapping
    contributions sum, padded positions are dropped.
    ```mlir
    %0 = graph.col2im %x, %image, %block : (tensor<1x5x25xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x1x5x5xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$input, Graph_I64Tensor:$image_shape,
                       Graph_I64Tensor:$block_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Graph_NumericTensor:$output);
}

def Graph_MaxUnpoolOp
    : Graph_InferOp<"max_unpool", [Pure, Graph_ChecksValues]> {
  let summary = "place pooled values at their MaxPool indices, zeros elsewhere";
  let description = [{
    `I` holds, per element of `X`, a flat index into the unpooled shape
    [N, C, (in - 1) * stride - pads + kernel...]; `X`'s values land there
    (the last one wins), and that tensor is the leading corner of the result,
    of shape `output_shape` when given (a 1-D shape, one entry per dim).
    ```mlir
    %y = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$x, Graph_I64Tensor:$i,
                       Optional<Graph_I64Tensor>:$output_shape,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Graph_NumericTensor:$output);
}

#endif // GRAPHC_GRAPH_SHAPE_OPS_TD
