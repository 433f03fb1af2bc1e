//===- GraphCanonicalization.cpp - graph op canonicalization patterns -----===//
//
// Removes data movement that does nothing (identity, reshape/expand/cast to
// the same type, identity transposes, squeeze/unsqueeze round trips), turns
// transposes that only move unit dims into reshapes, and
// merges chains (reshape of reshape, transpose of transpose). A value is only
// replaced by one of exactly the same type, so users stay valid.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"
#include "lib/Support/Axis.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace graphc::graph;

namespace {

/// Replaces a shape-only op by its input when the result has the input's
/// static type: nothing was reshaped, broadcast, squeezed or inserted.
template <typename OpT> struct RemoveStaticNoOp : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    Value input = op->getOperand(0);
    auto type = cast<RankedTensorType>(input.getType());
    if (!type.hasStaticShape() || op->getResult(0).getType() != type)
      return rewriter.notifyMatchFailure(op, "not a static no-op");
    rewriter.replaceOp(op, input);
    return success();
  }
};

struct RemoveIdentity : OpRewritePattern<IdentityOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(IdentityOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getInput().getType() != op.getOutput().getType())
      return rewriter.notifyMatchFailure(op, "identity refines the type");
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

struct RemoveSameTypeCast : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getInput().getType() != op.getOutput().getType())
      return rewriter.notifyMatchFailure(op, "cast changes the type");
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

/// reshape(reshape(x, s1), s2) -> reshape(x, s2) when s2 does not copy dims
/// of the intermediate value (no 0 entries, or allowzero).
struct MergeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getData().getDefiningOp<ReshapeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a reshape");
    if (op.getAllowzero() == 0) {
      std::optional<SmallVector<int64_t>> shape =
          getConstantInts(op.getShape());
      if (!shape || llvm::is_contained(*shape, 0))
        return rewriter.notifyMatchFailure(
            op, "shape may copy dims of the intermediate value");
    }
    rewriter.modifyOpInPlace(
        op, [&] { op.getDataMutable().assign(inner.getData()); });
    return success();
  }
};

} // namespace

SmallVector<int64_t> graphc::graph::transposePermutation(TransposeOp op) {
  if (std::optional<ArrayRef<int64_t>> perm = op.getPerm())
    return SmallVector<int64_t>(*perm);
  int64_t rank = op.getData().getType().getRank();
  return llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank)));
}

namespace {

struct RemoveIdentityTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<int64_t> perm = transposePermutation(op);
    for (auto [i, p] : llvm::enumerate(perm))
      if (static_cast<int64_t>(i) != p)
        return rewriter.notifyMatchFailure(op, "not the identity perm");
    if (op.getData().getType() != op.getTransposed().getType())
      return rewriter.notifyMatchFailure(op, "transpose refines the type");
    rewriter.replaceOp(op, op.getData());
    return success();
  }
};

/// transpose(transpose(x, p1), p2) -> transpose(x, p1[p2[i]]).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getData().getDefiningOp<TransposeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a transpose");
    SmallVector<int64_t> innerPerm = transposePermutation(inner);
    SmallVector<int64_t> composed;
    for (int64_t p : transposePermutation(op))
      composed.push_back(innerPerm[p]);
    rewriter.modifyOpInPlace(op, [&] {
      op.getDataMutable().assign(inner.getData());
      op.setPermAttr(rewriter.getDenseI64ArrayAttr(composed));
    });
    return success();
  }
};

/// A transpose that keeps the dims larger than 1 in order moves only unit
/// dims: its result has its input's bytes in its input's order, so it is a
/// reshape (a view, where a transpose is a copy). ViT's torch.export writes
/// one per attention block at batch 1 ([1, S, E] -> [S, 1, E]).
struct TransposeOfUnitDimsToReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto input = op.getData().getType();
    auto result = op.getTransposed().getType();
    if (!input.hasStaticShape() || !result.hasStaticShape() ||
        input == result)
      return rewriter.notifyMatchFailure(op, "not a static reordering");
    int64_t previous = -1;
    for (int64_t p : transposePermutation(op)) {
      if (input.getDimSize(p) == 1)
        continue;
      if (p < previous)
        return rewriter.notifyMatchFailure(op, "reorders dims larger than 1");
      previous = p;
    }
    auto shapeType =
        RankedTensorType::get({result.getRank()}, rewriter.getI64Type());
    // The shape names no tensor; the reshape holds the transpose's.
    Value shape = rewriter.create<ConstantOp>(
        withoutTensorNames(op.getLoc()), shapeType,
        DenseElementsAttr::get(shapeType, result.getShape()));
    // allowzero: a 0 in the shape is an empty dim, not a copied one.
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, result, op.getData(), shape,
                                           rewriter.getI64IntegerAttr(1));
    return success();
  }
};

/// The constant axes of a squeeze/unsqueeze, normalised for `rank`.
static std::optional<SmallVector<int64_t>> normalizedAxes(Value axes,
                                                          int64_t rank) {
  if (!axes)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> values = getConstantInts(axes);
  if (!values)
    return std::nullopt;
  for (int64_t &axis : *values) {
    std::optional<int64_t> normalized = graphc::normalizeAxis(axis, rank);
    if (!normalized)
      return std::nullopt;
    axis = *normalized;
  }
  llvm::sort(*values);
  return values;
}

/// squeeze(unsqueeze(x, a), a) -> x.
struct FoldSqueezeOfUnsqueeze : OpRewritePattern<SqueezeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SqueezeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getData().getDefiningOp<UnsqueezeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not an unsqueeze");
    int64_t rank = op.getData().getType().getRank();
    std::optional<SmallVector<int64_t>> removed =
        normalizedAxes(op.getAxes(), rank);
    std::optional<SmallVector<int64_t>> inserted =
        normalizedAxes(inner.getAxes(), rank);
    if (!removed || !inserted || *removed != *inserted ||
        inner.getData().getType() != op.getSqueezed().getType())
      return rewriter.notifyMatchFailure(op, "not a round trip");
    rewriter.replaceOp(op, inner.getData());
    return success();
  }
};

/// unsqueeze(squeeze(x, a), a) -> x.
struct FoldUnsqueezeOfSqueeze : OpRewritePattern<UnsqueezeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(UnsqueezeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getData().getDefiningOp<SqueezeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a squeeze");
    int64_t rank = op.getExpanded().getType().getRank();
    std::optional<SmallVector<int64_t>> inserted =
        normalizedAxes(op.getAxes(), rank);
    std::optional<SmallVector<int64_t>> removed =
        normalizedAxes(inner.getAxes(), rank);
    if (!removed || !inserted || *removed != *inserted ||
        inner.getData().getType() != op.getExpanded().getType())
      return rewriter.notifyMatchFailure(op, "not a round trip");
    rewriter.replaceOp(op, inner.getData());
    return success();
  }
};

} // namespace

void IdentityOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *context) {
  results.add<RemoveIdentity>(context);
}

void CastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<RemoveSameTypeCast>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<RemoveStaticNoOp<ReshapeOp>, MergeReshapes>(context);
}

void ExpandOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<RemoveStaticNoOp<ExpandOp>>(context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<RemoveIdentityTranspose, ComposeTransposes,
              TransposeOfUnitDimsToReshape>(context);
}

void SqueezeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<RemoveStaticNoOp<SqueezeOp>, FoldSqueezeOfUnsqueeze>(context);
}

void UnsqueezeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<RemoveStaticNoOp<UnsqueezeOp>, FoldUnsqueezeOfSqueeze>(context);
}
