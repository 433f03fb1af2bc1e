//===- GraphDataDependentOps.td - results sized by the run ---*- tablegen -*-===//
//
// Ops whose result extents depend on their operands' values. Each has a
// last `count` result, the extent one run found, and leaves the dims it
// sizes dynamic in its inferred types; graphc-bound-data-dependent-extents
// plans them for their bound (Graph_DataDependentExtentOpInterface).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHC_GRAPH_DATA_DEPENDENT_OPS_TD
#define GRAPHC_GRAPH_DATA_DEPENDENT_OPS_TD

include "dialects/Graph/GraphBase.td"
include "dialects/Graph/GraphExtentInterface.td"

class Graph_DataDependentOp<string mnemonic, list<Trait> traits = []>
    : Graph_MultiResultInferOp<mnemonic, !listconcat(traits, [Pure,
        DeclareOpInterfaceMethods<Graph_DataDependentExtentOpInterface>])>;

def Graph_NonZeroOp : Graph_DataDependentOp<"non_zero"> {
  let summary = "the coordinates of the nonzero elements (ONNX NonZero)";
  let description = [{
    Column j of `indices` holds the coordinates of the j-th nonzero element
    of `x` in row-major order; `count` is how many there are, the extent of
    the indices' dim 1 (at most the element count of `x`).
    ```mlir
    %i, %n = graph.non_zero %x : (tensor<2x3xf32>) -> (tensor<2x?xi64>, tensor<i64>)
    ```
  }];
  let arguments = (ins Graph_Tensor:$x);
  let results = (outs Graph_I64Tensor:$indices, Graph_I64Tensor:$count);
}

def Graph_CompressOp : Graph_DataDependentOp<"compress"> {
  let summary = "the slices a boolean condition selects (ONNX Compress)";
  let description = [{
    Without `axis`, the elements of the flattened `input` at the positions
    where `condition` is true; with it, the slices along `axis` at those
    positions. `condition` is 1-d and may be shorter than what it selects
    from (what lies past it is dropped), never longer. `count` is how many
    were selected, the extent of the output's dim `axis` (its only dim
    without `axis`).
    ```mlir
    %y, %n = graph.compress %x, %c {axis = 1 : i64} : (tensor<3x4xf32>, tensor<4xi1>) -> (tensor<3x?xf32>, tensor<i64>)
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_BoolTensor:$condition,
                       OptionalAttr<I64Attr>:$axis);
  let results = (outs Graph_Tensor:$output, Graph_I64Tensor:$count);
}

def Graph_EmptyIfOp : Graph_InferOp<"empty_if", [Pure]> {
  let summary = "a value, or none of it: an If whose one branch gives an empty tensor";
  let description = [{
    `value` where `condition` (one element) is false; where it is true, a
    tensor of `value`'s dims but 0 along `dims`. An If whose condition only
    the run knows, and whose one branch gives a static 0 along a dim the
    other branch's value has the run decide (torchvision's
    `if boxes.numel() == 0: return empty`), imports as this op on the other
    branch. Those dims stay dynamic; graphc-bound-data-dependent-extents
    gives them the extent `condition ? 0 : extent` of the value and the op
    becomes a view of it.
    ```mlir
    %r = graph.empty_if %c, %keep {dims = array<i64: 0>} : (tensor<i1>, tensor<?xi64>) -> tensor<?xi64>
    ```
  }];
  let arguments = (ins Graph_BoolTensor:$condition, Graph_Tensor:$value,
                       DenseI64ArrayAttr:$dims);
  let results = (outs Graph_Tensor:$output);
  let hasCustomFolder = 1;
}

def Graph_NonMaxSuppressionOp
    : Graph_DataDependentOp<"non_max_suppression", [AttrSizedOperandSegments]> {
  let summary = "greedy non-maximum suppression of boxes (ONNX NonMaxSuppression)";
  let description = [{
    `boxes` is [B, N, 4], `scores` [B, C, N]. Per batch and class, the
    candidates (every box, or those scoring above `score_threshold` when it
    is given; NaN scores never) are taken in descending score, ties by
    ascending box index, and each is selected unless its IOU with a box
    already selected for that class is above `iou_threshold` (default 0),
    until `max_output_boxes_per_class` are (absent or at most 0: none).
    Row j of `selected_indices` is [batch, class, box] of the j-th
    selection, in batch, class and selection order; `count` is how many,
    the extent of its dim 0. The three scalars are one-element tensors
    read at run time. `center_point_box` 0 gives boxes as two opposite
    corners [y1, x1, y2, x2] in either order, 1 as [x_center, y_center,
    width, height]. IOU is computed in float as onnxruntime does.
    ```mlir
    %s, %n = graph.non_max_suppression %boxes, %scores, %m, %iou {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>, tensor<1xf32>) -> (tensor<?x3xi64>, tensor<i64>)
    ```
  }];
  let arguments = (ins Graph_TensorOf<[F32]>:$boxes,
                       Graph_TensorOf<[F32]>:$scores,
                       Optional<Graph_I64Tensor>:$max_output_boxes_per_class,
                       Optional<Graph_TensorOf<[F32]>>:$iou_threshold,
                       Optional<Graph_TensorOf<[F32]>>:$score_threshold,
                       DefaultValuedAttr<I64Attr, "0">:$center_point_box);
  let results = (outs Graph_I64Tensor:$selected_indices,
                      Graph_I64Tensor:$count);
}

def Graph_UniqueOp : Graph_DataDependentOp<"unique"> {
  let summary = "the distinct elements or slices of a tensor (ONNX Unique)";
  let description = [{
    Without `axis`, the distinct elements of the flattened `x`; with it,
    the distinct slices along `axis`. `y` holds them, ascending with
    `sorted` = 1 (slices compared lexicographically in row-major order), in
    the order of their first occurrence with `sorted` = 0; each is the
    first occurrence's value (0 and -0 are equal, NaNs equal each other and
    sort last). `indices` holds each one's first position in `x` along the
    axis (flattened without one), `counts` how often it occurs, and
    `inverse_indices`, for each position of `x`, the index in `y` of its
    element or slice. `count` is how many are distinct: the extent of
    `y`'s dim `axis` (its only dim without `axis`), of `indices` and of
    `counts`.
    ```mlir
    %y, %i, %inv, %c, %n = graph.unique %x {axis = 0 : i64, sorted = 0 : i64} : (tensor<4x2xf32>) -> (tensor<?x2xf32>, tensor<?xi64>, tensor<4xi64>, tensor<?xi64>, tensor<i64>)
    ```
  }];
  let arguments = (ins Graph_Tensor:$x, OptionalAttr<I64Attr>:$axis,
                       DefaultValuedAttr<I64Attr, "1">:$sorted);
  let results = (outs Graph_Tensor:$y, Graph_I64Tensor:$indices,
                      Graph_I64Tensor:$inverse_indices,
                      Graph_I64Tensor:$counts, Graph_I64Tensor:$count);
}

def Graph_OutputExtentsOp : Graph_Op<"output_extents"> {
  let summary = "the extents the run finds for the outputs' data-dependent dims";
  let description = [{
    Made by graphc-bound-data-dependent-extents just before a function's
    return: operand j, a `tensor<i64>`, holds the extent of dim
    `positions[2j + 1]` of result `positions[2j]` (whose type holds the
    bound). It keeps the extents until the run ends, for the runtime to
    read (the descriptor's `output_extents`).
    ```mlir
    graph.output_extents %n {positions = array<i64: 0, 1>} : tensor<i64>
    ```
  }];
  let arguments = (ins Variadic<Graph_I64Tensor>:$extents,
                       DenseI64ArrayAttr:$positions);
  let assemblyFormat = "$extents attr-dict `:` type($extents)";
  let hasVerifier = 1;
}

#endif // GRAPHC_GRAPH_DATA_DEPENDENT_OPS_TD
