//===- ShapeInputs.h - inputs whose values determine shapes -----*- C++ -*-===//
//
// A Resize's sizes, a Reshape's target, a Range's limit or a ReduceSum's
// axes read as a model input leave the result's shape unknown however the
// input shapes are fixed: only binding the input's values at compile time
// (--const-input) does. This finds such inputs, for `graphc check` and for
// the error when a shape stays dynamic.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_PASSES_SHAPEINPUTS_H
#define GRAPHC_PASSES_SHAPEINPUTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace graphc {

/// A model input whose values an op's result shape depends on.
struct ShapeInput {
  std::string input; ///< the model input's name
  std::string node;  ///< the ONNX node of the op reading it (may be empty)
  std::string op;    ///< the graph op, e.g. "graph.resize"
  unsigned operand = 0;
};

/// The operands of `op` whose values (not only their shapes) its result
/// types depend on: small static operands that are not constants and
/// whose replacement by a constant changes what the op's type inference
/// gives (or makes it fail).
llvm::SmallVector<unsigned> findValueShapedOperands(mlir::Operation *op);

/// The inputs (arguments of `main`) that `value`'s values are computed
/// from, following defining ops through their operands (not through
/// graph.shape or graph.size, which read only shapes) over a bounded
/// number of values. The names are the inputs' graph.name.
std::vector<std::string> findInputSources(mlir::func::FuncOp main,
                                          mlir::Value value);

/// Every op of `main` with a dynamic result type that an input's values
/// shape, once per (input, op, operand), in program order.
std::vector<ShapeInput> findShapeInputs(mlir::func::FuncOp main);

} // namespace graphc

#endif
