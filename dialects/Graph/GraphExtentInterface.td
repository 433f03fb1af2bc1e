//===- GraphExtentInterface.td - ops whose extents the run decides -*- tablegen -*-===//
//
// DataDependentExtentOpInterface: the ops whose result extents depend on
// the values of their operands (NonZero, Compress, NonMaxSuppression,
// Unique). docs/architecture.md, "Shapes that depend on data", says how the
// pipeline plans them.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHC_GRAPH_EXTENT_INTERFACE_TD
#define GRAPHC_GRAPH_EXTENT_INTERFACE_TD

include "mlir/IR/OpBase.td"

def Graph_DataDependentExtentOpInterface
    : OpInterface<"DataDependentExtentOpInterface"> {
  let description = [{
    An op with dims whose extent the run decides. Its last result is a
    `tensor<i64>`: the extent one run found. Given operands of static
    shape, the op's inferred result types leave exactly those dims dynamic
    (`?`); graphc-bound-data-dependent-extents gives them the compile-time
    bound and tells their consumers the extent. Its kernels write each
    such result as a dense tensor of the bound dims whose leading corner,
    the extents found, holds the result, and zeros elsewhere (consumers
    may leave anything past the corner).
  }];
  let cppNamespace = "::graphc::graph";
  let methods = [
    InterfaceMethod<[{
        The most the extent can be, for operands of static shape (a constant
        operand may narrow it). Fails with an error on the op when the
        operands do not bound it.
      }],
      "::mlir::FailureOr<int64_t>", "getExtentBound", (ins)>,
  ];
}

#endif
