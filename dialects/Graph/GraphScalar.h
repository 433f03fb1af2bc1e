//===- GraphScalar.h - pointwise ops' scalar semantics ----------*- C++ -*-===//
//
// ScalarComputeOpInterface (GraphScalarInterface.td), attached to every
// pointwise graph op by attachScalarModels when the dialect loads.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_DIALECTS_GRAPH_GRAPHSCALAR_H
#define GRAPHC_DIALECTS_GRAPH_GRAPHSCALAR_H

#include "lib/Support/ScalarTree.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/ArrayRef.h"

#include "dialects/Graph/GraphScalarInterface.h.inc"

namespace graphc::graph {
/// Attaches ScalarComputeOpInterface to the pointwise ops.
void attachScalarModels(mlir::MLIRContext &context);
} // namespace graphc::graph

#endif
