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
