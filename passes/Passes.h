//===- Passes.h - graphc passes ---------------------------------*- C++ -*-===//
#ifndef GRAPHC_PASSES_PASSES_H
#define GRAPHC_PASSES_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace graphc {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

/// Folds constants and shape computations in `module` and refines result
/// types until a fixed point (or `maxIterations` rounds).
mlir::LogicalResult foldShapeComputations(mlir::ModuleOp module,
                                          unsigned maxIterations = 16);

/// Re-infers the result types of graph ops in `func`-like bodies of
/// `module`, keeping the more static of old and new. Returns whether any
/// type changed.
mlir::FailureOr<bool> refineResultTypes(mlir::ModuleOp module);

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace graphc

#endif
