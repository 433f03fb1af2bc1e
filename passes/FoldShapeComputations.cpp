//===- FoldShapeComputations.cpp - fold constants and shape sub-graphs ----===//

#include "dialects/Graph/GraphDialect.h"
#include "dialects/Graph/GraphOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_FOLDSHAPECOMPUTATIONS
#include "passes/Passes.h.inc"

/// The more static of two compatible shapes, dim by dim.
static Type joinTypes(Type current, Type inferred) {
  auto a = dyn_cast<RankedTensorType>(current);
  auto b = dyn_cast<RankedTensorType>(inferred);
  if (!a || !b || a.getRank() != b.getRank() ||
      a.getElementType() != b.getElementType())
    return current;
  SmallVector<int64_t> dims;
  for (auto [x, y] : llvm::zip(a.getShape(), b.getShape()))
    dims.push_back(ShapedType::isDynamic(x) ? y : x);
  return RankedTensorType::get(dims, a.getElementType(), a.getEncoding());
}

FailureOr<bool> refineResultTypes(ModuleOp module) {
  bool changed = false;
  WalkResult walk = module.walk([&](Operation *op) {
    // A loop's body arguments and results have its initial values' types.
    if (auto loop = dyn_cast<graph::LoopOp>(op)) {
      for (auto [j, initial] : llvm::enumerate(loop.getInitial())) {
        auto from = dyn_cast<RankedTensorType>(initial.getType());
        auto to = dyn_cast<RankedTensorType>(loop.getResult(j).getType());
        if (!from || !to || from.getRank() != to.getRank())
          continue;
        Type joined = joinTypes(to, from);
        if (joined == to)
          continue;
        loop.getResult(j).setType(joined);
        loop.getCarried(j).setType(joined);
        changed = true;
      }
      return WalkResult::advance();
    }
    auto infer = dyn_cast<InferTypeOpInterface>(op);
    if (!infer)
      return WalkResult::advance();
    SmallVector<Type> inferred;
    if (failed(infer.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getAttrDictionary(), op->getPropertiesStorage(),
            op->getRegions(), inferred)))
      return WalkResult::interrupt();
    for (auto [result, type] : llvm::zip(op->getResults(), inferred)) {
      Type joined = joinTypes(result.getType(), type);
      if (joined != result.getType()) {
        result.setType(joined);
        changed = true;
      }
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  // Function signatures follow the refined values they return.
  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    SmallVector<Type> results(ret.getOperandTypes());
    if (results != SmallVector<Type>(func.getResultTypes())) {
      func.setType(FunctionType::get(func.getContext(),
                                     func.getArgumentTypes(), results));
      changed = true;
    }
  });
  return changed;
}

LogicalResult foldShapeComputations(ModuleOp module, unsigned maxIterations) {
  MLIRContext *context = module.getContext();
  RewritePatternSet patterns(context);
  for (RegisteredOperationName name : context->getRegisteredOperations())
    if (name.getDialectNamespace() == "graph")
      name.getCanonicalizationPatterns(patterns, context);
  FrozenRewritePatternSet frozen(std::move(patterns));
  // A round folds the shapes that the types known so far determine, and
  // its re-inference refines the types they shape; how far one round gets
  // depends on the sizes. A residual Add of a stream of batch 1 and a value
  // not yet inferred is [?, ...] (1 broadcasts), where batch 2 gives
  // [2, ...]: at batch 1 a layer's types follow from the last layer's
  // folded shapes, one layer a round or two. So rounds go on until nothing
  // changes; each changes the graph, so the ops and dims bound them.
  bool untilSettled = maxIterations == 0;
  if (untilSettled) {
    uint64_t bound = 16;
    module.walk([&](Operation *op) { bound += 1 + op->getNumResults(); });
    maxIterations = static_cast<unsigned>(
        std::min<uint64_t>(bound, std::numeric_limits<unsigned>::max()));
  }
  for (unsigned i = 0; i < maxIterations; ++i) {
    bool foldChanged = false;
    GreedyRewriteConfig config;
    if (failed(applyPatternsAndFoldGreedily(module, frozen, config,
                                            &foldChanged)))
      return module.emitError("folding did not converge");
    FailureOr<bool> refined = refineResultTypes(module);
    if (failed(refined))
      return failure();
    if (!foldChanged && !*refined)
      return success();
  }
  if (untilSettled)
    return module.emitError("shape folding did not settle after ")
           << maxIterations << " rounds";
  return success();
}

namespace {
struct FoldShapeComputationsPass
    : impl::FoldShapeComputationsBase<FoldShapeComputationsPass> {
  using FoldShapeComputationsBase::FoldShapeComputationsBase;
  void runOnOperation() override {
    if (failed(foldShapeComputations(getOperation(), maxIterations)))
      signalPassFailure();
  }
};
} // namespace

} // namespace graphc
