//===- ApplyPatterns.h - a pass made of rewrite patterns --------*- C++ -*-===//
//
// The passes that are a set of rewrite patterns applied until none matches
// run them, and report a set that does not settle, alike.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_PASSES_APPLYPATTERNS_H
#define GRAPHC_PASSES_APPLYPATTERNS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace graphc {

/// Rewrites `module` with `Patterns` (and folds) until none applies; fails
/// with "WHAT did not converge" when the greedy driver gives up.
template <typename... Patterns>
mlir::LogicalResult applyPatternsUntilDone(mlir::ModuleOp module,
                                           llvm::StringRef what) {
  mlir::RewritePatternSet patterns(module.getContext());
  patterns.add<Patterns...>(module.getContext());
  if (mlir::failed(
          mlir::applyPatternsAndFoldGreedily(module, std::move(patterns))))
    return module.emitError() << what << " did not converge";
  return mlir::success();
}

} // namespace graphc

#endif
