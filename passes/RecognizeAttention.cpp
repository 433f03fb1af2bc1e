//===- RecognizeAttention.cpp - scaled dot-product attention chains -------===//
//
// Exporters write attention as MatMul(Q, K^T) -> optional scale -> optional
// additive mask -> Softmax -> optional NaN guard -> MatMul(P, V), with K^T
// spelled as a transpose of K (or, by torch.export, as a reshape/transpose/
// reshape sandwich around a 3-d transpose), and with K and V possibly
// repeating fewer heads for the query heads (Llama's repeat_kv: Unsqueeze,
// Expand, Reshape), which become grouped heads. Each such chain becomes one
// graph.attention, which the kernel templates compute without writing the
// scores to memory. A chain is replaced only when every intermediate value
// is used inside it alone, so nothing is computed twice. A mask that
// pointwise ops compute from an Expand (HF BERT's padding mask) is then
// computed before the broadcast, which the attention does itself.
//
// The pass runs after pad-safety analysis (which reasons about the softmax
// and masks of the unfused chain) and before fusion; `--no-fusion` skips it.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"
#include "passes/ApplyPatterns.h"
#include "passes/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace graphc::graph;

namespace graphc {
#define GEN_PASS_DEF_RECOGNIZEATTENTION
#include "passes/Passes.h.inc"

namespace {

/// The defining op of `value` as an OpTy when `value` has no other use.
template <typename OpTy> OpTy soleUseProducer(Value value) {
  return value.hasOneUse() ? value.getDefiningOp<OpTy>() : OpTy();
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// How K^T of [B, H, D, Skv] was written, so that the rewrite can read K of
/// [B, H, Skv, D] instead.
struct TransposedKey {
  /// K itself when the exporter's ops lead back to it...
  Value key;
  /// ...or the tensor K is a reshape of (torch.export merges the reshapes
  /// around a repeat_kv)...
  Value unmerged;
  /// ...else the transpose of K^T's producer giving K (perm of `source`).
  Value source;
  SmallVector<int64_t> perm;
  /// The ops that only computed K^T: erased when they lose their last use.
  SmallVector<Operation *> dead;
};

/// K for the K^T operand `kt` of the score MatMul.
TransposedKey untransposeKey(Value kt) {
  TransposedKey found;
  // transpose(x, p): K = transpose(x, p with its last two entries swapped),
  // or x itself when that is the identity.
  if (auto transpose = kt.getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> perm = transposePermutation(transpose);
    std::swap(perm[2], perm[3]);
    if (kt.hasOneUse())
      found.dead.push_back(transpose);
    if (llvm::equal(perm, llvm::seq<int64_t>(0, 4))) {
      found.key = transpose.getData();
      return found;
    }
    found.source = transpose.getData();
    found.perm = perm;
    return found;
  }
  // torch.export: reshape(transpose(reshape(K, [B*H, Skv, D]), [0, 2, 1]),
  // [B, H, D, Skv]).
  auto outer = kt.getDefiningOp<ReshapeOp>();
  auto transpose = outer ? soleUseProducer<TransposeOp>(outer.getData())
                         : TransposeOp();
  auto inner = transpose ? soleUseProducer<ReshapeOp>(transpose.getData())
                         : ReshapeOp();
  if (inner && transposePermutation(transpose) == SmallVector<int64_t>{0, 2, 1}) {
    Value key = inner.getData();
    ArrayRef<int64_t> k = shapeOf(key), merged = shapeOf(inner.getResult()),
                      t = shapeOf(kt);
    // K [.., Skv, D]: its last two dims are the merged tensor's.
    if (k.size() >= 2 && merged.size() == 3 && merged[1] == k[k.size() - 2] &&
        merged[2] == k.back() && t[2] == merged[2] && t[3] == merged[1]) {
      if (k.size() == 4 && k.take_front(2) == t.take_front(2))
        found.key = key;
      else
        found.unmerged = key;
      if (kt.hasOneUse())
        found.dead = {outer, transpose, inner};
      return found;
    }
  }
  // Anything else: K is a transpose of K^T, which the attention kernel
  // reads through strides.
  found.source = kt;
  found.perm = {0, 1, 3, 2};
  return found;
}

/// Llama's repeat_kv: `repeated` [B, Hkv, r, S, D] is
/// expand(unsqueeze(x, 2)) of x [B, Hkv, S, D], each K/V head repeated for
/// r query heads, and K or V is its reshape to `merged` [B, Hkv * r, S, D].
/// The attention op reads x as grouped heads instead of the repeated copy.
struct RepeatedHeads {
  Value heads;
  /// The ops that only repeated them, erased when they lose their last use.
  SmallVector<Operation *> dead;
};
std::optional<RepeatedHeads> unrepeatHeads(Value repeated,
                                           ArrayRef<int64_t> merged) {
  auto expand = repeated.getDefiningOp<ExpandOp>();
  Operation *inserted = expand ? expand.getInput().getDefiningOp() : nullptr;
  if (!inserted || !isa<UnsqueezeOp, ReshapeOp>(inserted) ||
      !expand.getInput().hasOneUse())
    return std::nullopt;
  Value heads = inserted->getOperand(0);
  ArrayRef<int64_t> x = shapeOf(heads), one = shapeOf(expand.getInput()),
                    copies = shapeOf(repeated);
  if (x.size() != 4 || one.size() != 5 || copies.size() != 5 ||
      merged.size() != 4 || one[2] != 1 ||
      one.take_front(2) != x.take_front(2) ||
      one.drop_front(3) != x.drop_front(2) ||
      copies.take_front(2) != x.take_front(2) ||
      copies.drop_front(3) != x.drop_front(2) || merged[0] != x[0] ||
      merged[1] != x[1] * copies[2] || merged.drop_front(2) != x.drop_front(2))
    return std::nullopt;
  RepeatedHeads found{heads, {}};
  if (repeated.hasOneUse())
    found.dead = {expand, inserted};
  return found;
}

/// The repeat_kv under K or V of shape `shape`, when `value` is the reshape
/// of one.
std::optional<RepeatedHeads> unrepeatReshaped(Value value) {
  auto reshape = value ? value.getDefiningOp<ReshapeOp>() : ReshapeOp();
  if (!reshape)
    return std::nullopt;
  std::optional<RepeatedHeads> found =
      unrepeatHeads(reshape.getData(), shapeOf(value));
  if (found && value.hasOneUse())
    found->dead.insert(found->dead.begin(), reshape);
  return found;
}

/// Whether `mask` is a constant causal mask over scores of `queries` x
/// `keys` (keys == queries): 0 where key j <= query i and -inf or the
/// element type's lowest finite value (what torch writes) where j > i, the
/// same for every batch and head. Such a mask adds nothing to the kept scores and zeroes
/// the others' probabilities, which is what is_causal does.
bool isCausalMask(Value mask, int64_t queries, int64_t keys) {
  ArrayRef<int64_t> shape = shapeOf(mask);
  if (queries != keys || ShapedType::isDynamic(keys) || shape.size() < 2 ||
      shape[shape.size() - 2] != queries || shape.back() != keys ||
      llvm::any_of(shape.drop_back(2), [](int64_t d) { return d != 1; }))
    return false;
  auto element =
      dyn_cast<FloatType>(cast<ShapedType>(mask.getType()).getElementType());
  std::optional<SmallVector<double>> values = getConstantNumbers(mask);
  if (!element || !values ||
      static_cast<int64_t>(values->size()) != queries * keys)
    return false;
  double lowest = llvm::APFloat::getLargest(element.getFloatSemantics(),
                                            /*Negative=*/true)
                      .convertToDouble();
  for (int64_t i = 0; i < queries; ++i)
    for (int64_t j = 0; j < keys; ++j) {
      double v = (*values)[i * keys + j];
      if (j <= i ? v != 0 : !(v <= lowest))
        return false;
    }
  return true;
}

/// Whether `value`, used once, is Q K^T (a 4-d MatMul) or a scale of it by
/// a scalar constant: the scores side of the mask Add.
bool isScoreProducer(Value value) {
  if (!value.hasOneUse())
    return false;
  Operation *op = value.getDefiningOp();
  if (isa_and_nonnull<MulOp, DivOp>(op)) {
    bool constantRhs = getScalarConstant(op->getOperand(1)).has_value();
    if (!constantRhs && !(isa<MulOp>(op) && getScalarConstant(op->getOperand(0))))
      return false;
    op = (constantRhs ? op->getOperand(0) : op->getOperand(1)).getDefiningOp();
  }
  return isa_and_nonnull<MatMulOp>(op) && shapeOf(op->getResult(0)).size() == 4;
}

struct RecognizeAttentionChain : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp output,
                                PatternRewriter &rewriter) const override {
    Value probabilities = output.getA(), value = output.getB();
    if (shapeOf(probabilities).size() != 4 || shapeOf(value).size() != 4)
      return rewriter.notifyMatchFailure(output, "not 4-d");
    SmallVector<Operation *> chain = {output};
    // Where(IsNaN(p), 0, p): the NaN guard of torch's exported SDPA.
    bool nanToZero = false;
    Value softmaxResult = probabilities;
    if (auto guard = soleUseProducer<WhereOp>(probabilities)) {
      auto isNan = soleUseProducer<IsNanOp>(guard.getCondition());
      std::optional<double> zero = getScalarConstant(guard.getX());
      if (!isNan || !zero || *zero != 0 ||
          isNan.getInput() != guard.getY() ||
          !llvm::all_of(guard.getY().getUsers(), [&](Operation *user) {
            return user == guard || user == isNan;
          }))
        return rewriter.notifyMatchFailure(output, "not a NaN guard");
      nanToZero = true;
      softmaxResult = guard.getY();
      chain.append({guard, isNan});
    } else if (!probabilities.hasOneUse()) {
      return rewriter.notifyMatchFailure(output, "probabilities used twice");
    }
    auto softmax = softmaxResult.getDefiningOp<SoftmaxOp>();
    if (!softmax || (static_cast<int64_t>(softmax.getAxis()) != -1 &&
                     static_cast<int64_t>(softmax.getAxis()) != 3))
      return rewriter.notifyMatchFailure(output, "no last-axis softmax");
    chain.push_back(softmax);
    Value scores = softmax.getInput();
    // scores + mask, either order; the mask must not grow the scores.
    Value mask;
    if (auto add = soleUseProducer<AddOp>(scores)) {
      Value scaled = add.getLhs();
      mask = add.getRhs();
      if (!isScoreProducer(scaled))
        std::swap(scaled, mask);
      if (!isScoreProducer(scaled) ||
          shapeOf(scaled) != shapeOf(add.getResult()) ||
          shapeOf(mask).size() > 4)
        return rewriter.notifyMatchFailure(output, "no masked scores");
      scores = scaled;
      chain.push_back(add);
    }
    // scores * c, c * scores or scores / c for a constant scalar c.
    double scale = 1.0;
    if (auto mul = soleUseProducer<MulOp>(scores)) {
      std::optional<double> c = getScalarConstant(mul.getRhs());
      Value product = mul.getLhs();
      if (!c) {
        c = getScalarConstant(mul.getLhs());
        product = mul.getRhs();
      }
      if (!c)
        return rewriter.notifyMatchFailure(output, "scale not a constant");
      scale = *c;
      scores = product;
      chain.push_back(mul);
    } else if (auto div = soleUseProducer<DivOp>(scores)) {
      std::optional<double> c = getScalarConstant(div.getRhs());
      if (!c || *c == 0)
        return rewriter.notifyMatchFailure(output, "scale not a constant");
      scale = 1.0 / *c;
      scores = div.getLhs();
      chain.push_back(div);
    }
    auto product = soleUseProducer<MatMulOp>(scores);
    if (!product)
      return rewriter.notifyMatchFailure(output, "no Q K^T product");
    chain.push_back(product);
    Value query = product.getA(), keyT = product.getB();
    ArrayRef<int64_t> q = shapeOf(query), kt = shapeOf(keyT),
                      v = shapeOf(value);
    if (q.size() != 4 || kt.size() != 4)
      return rewriter.notifyMatchFailure(output, "Q or K^T not 4-d");
    // The attention op has one batch size and K/V heads that divide Q's;
    // MatMul broadcasting allows more (a batch of 1 against B).
    if (q[0] != kt[0] || q[0] != v[0] || kt[1] != v[1] ||
        ShapedType::isDynamic(q[1]) || ShapedType::isDynamic(kt[1]) ||
        kt[1] == 0 || q[1] % kt[1] != 0)
      return rewriter.notifyMatchFailure(output, "batch or heads differ");
    if (ShapedType::isDynamic(q[3]) || q[3] > kMaxAttentionHeadSize ||
        ShapedType::isDynamic(v[3]) || v[3] > kMaxAttentionHeadSize)
      return rewriter.notifyMatchFailure(output, "head size too large");
    Type element = cast<ShapedType>(query.getType()).getElementType();
    if (!isa<FloatType>(element) ||
        (mask && cast<ShapedType>(mask.getType()).getElementType() != element))
      return rewriter.notifyMatchFailure(output, "not a float chain");

    TransposedKey key = untransposeKey(keyT);
    SmallVector<int64_t> keyShape = {kt[0], kt[1], kt[3], kt[2]};
    // Repeated K/V heads (repeat_kv on both) become grouped heads.
    std::optional<RepeatedHeads> groupedKey =
        key.unmerged ? unrepeatHeads(key.unmerged, keyShape)
                     : unrepeatReshaped(key.key);
    std::optional<RepeatedHeads> groupedValue = unrepeatReshaped(value);
    if (groupedKey && groupedValue &&
        shapeOf(groupedKey->heads)[1] == shapeOf(groupedValue->heads)[1]) {
      key.key = groupedKey->heads;
      key.unmerged = {};
      value = groupedValue->heads;
      key.dead.append(groupedKey->dead);
      key.dead.append(groupedValue->dead);
    }
    SmallVector<Location> locations;
    for (Operation *op : llvm::reverse(chain))
      locations.push_back(op->getLoc());
    for (Operation *op : key.dead)
      locations.push_back(op->getLoc());
    Location loc = withoutTensorNames(FusedLoc::get(getContext(), locations));
    rewriter.setInsertionPoint(output);
    Value k = key.key;
    if (key.unmerged) {
      auto shapeType = RankedTensorType::get({4}, rewriter.getI64Type());
      Value shape = rewriter.create<ConstantOp>(
          loc, shapeType, DenseIntElementsAttr::get(shapeType, keyShape));
      k = rewriter.create<ReshapeOp>(
          loc, cast<RankedTensorType>(query.getType()).clone(keyShape),
          key.unmerged, shape);
    } else if (!k) {
      k = rewriter.create<TransposeOp>(
          loc, key.source, rewriter.getDenseI64ArrayAttr(key.perm));
    }
    SmallVector<Value> operands = {query, k, value};
    // A constant causal mask becomes is_causal: no mask to read, and the
    // kernels skip the masked keys. A constant mask of zeros (BERT's
    // exported without an attention_mask input) adds nothing.
    bool causal = mask && isCausalMask(mask, q[2], kt[3]);
    std::optional<SmallVector<double>> constantMask =
        mask ? getConstantNumbers(mask) : std::nullopt;
    bool zeros = constantMask && llvm::all_of(*constantMask, [](double v) {
                   return v == 0;
                 });
    if (mask && !causal && !zeros)
      operands.push_back(mask);
    // The attention computes the output product: it holds its tensor.
    auto attention =
        rewriter.create<AttentionOp>(withTensorsOf(loc, output->getResults()),
                                     TypeRange{output.getType()}, operands);
    attention.setScaleAttr(rewriter.getF64FloatAttr(scale));
    if (causal)
      attention.setIsCausalAttr(rewriter.getI64IntegerAttr(1));
    if (nanToZero)
      attention.setNanToZeroAttr(rewriter.getI64IntegerAttr(1));
    rewriter.replaceOp(output, attention.getResult());
    // Users before producers: each op loses its last use before its turn.
    for (Operation *op : ArrayRef(chain).drop_front())
      if (op->use_empty())
        rewriter.eraseOp(op);
    for (Operation *op : key.dead)
      if (op->use_empty())
        rewriter.eraseOp(op);
    return success();
  }
};

/// Masks that an Expand broadcast, read before the broadcast. HF's BERT
/// export expands its [B, 1, 1, S] padding mask to [B, 1, S, S] before
/// turning it into an additive bias (Cast, Sub, Cast, Where), once for all
/// layers: a copy kernel and a pointwise kernel over S x S elements. The
/// attention broadcasts its mask against the scores, so the pointwise ops
/// can run on the Expand's input instead and every attention read their
/// smaller result: one kernel over S elements.
class MaskUnexpander {
public:
  /// Rewrites the mask `mask` that the attentions in `readers` read (and
  /// nothing else) when its chain shrinks; leaves everything as it is
  /// otherwise.
  void rewrite(Value mask, ArrayRef<AttentionOp> readers) {
    if (!shrunkShape(mask))
      return;
    // Every op of the chain must feed the chain or the masks alone: an op
    // with another user would stay, and be computed twice.
    for (Operation *op : chain)
      for (Operation *user : op->getUsers())
        if ((user->getNumResults() != 1 || !shapes.count(user->getResult(0))) &&
            !llvm::is_contained(readers, user))
          return;
    Value small = rebuild(mask);
    for (AttentionOp attention : readers)
      attention.getMaskMutable().assign(small);
    // Users first: each op has lost its last use before its turn. The
    // Expand's target shape goes too, when nothing else reads it.
    llvm::SetVector<Operation *> constants;
    for (Operation *op : llvm::reverse(chain)) {
      if (!op->use_empty())
        continue;
      for (Value operand : op->getOperands())
        if (auto constant = operand.getDefiningOp<ConstantOp>())
          constants.insert(constant);
      op->erase();
    }
    for (Operation *constant : constants)
      if (constant->use_empty())
        constant->erase();
  }

private:
  /// The shape `value` has before its broadcast, when an Expand under
  /// pointwise ops made it larger; records the ops that broadcast it.
  std::optional<SmallVector<int64_t>> shrunkShape(Value value) {
    if (auto found = shapes.find(value); found != shapes.end())
      return found->second;
    std::optional<SmallVector<int64_t>> shape = computeShrunkShape(value);
    if (shape) {
      shapes[value] = *shape;
      chain.insert(value.getDefiningOp());
    }
    return shape;
  }

  std::optional<SmallVector<int64_t>> computeShrunkShape(Value value) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    Operation *op = value.getDefiningOp();
    if (!type || !type.hasStaticShape() || !op || op->getNumResults() != 1)
      return std::nullopt;
    auto smaller = [&](ArrayRef<int64_t> shape) {
      return shape.size() == static_cast<size_t>(type.getRank()) &&
             ShapedType::getNumElements(shape) < type.getNumElements();
    };
    if (auto expand = dyn_cast<ExpandOp>(op)) {
      auto input = dyn_cast<RankedTensorType>(expand.getInput().getType());
      if (!input || !input.hasStaticShape() || !smaller(input.getShape()))
        return std::nullopt;
      return SmallVector<int64_t>(input.getShape());
    }
    if (!op->hasTrait<graph::OpTrait::Pointwise>())
      return std::nullopt;
    // Each result element is a function of the operand elements at its
    // broadcast position: computed on the unbroadcast operands, the result
    // broadcasts to the same values.
    SmallVector<SmallVector<int64_t>> operands;
    bool shrinks = false;
    for (Value operand : op->getOperands()) {
      auto operandType = dyn_cast<RankedTensorType>(operand.getType());
      if (!operandType || !operandType.hasStaticShape())
        return std::nullopt;
      if (std::optional<SmallVector<int64_t>> shape = shrunkShape(operand)) {
        operands.push_back(*shape);
        shrinks = true;
      } else {
        operands.push_back(SmallVector<int64_t>(operandType.getShape()));
      }
    }
    if (!shrinks)
      return std::nullopt;
    SmallVector<int64_t> shape;
    for (ArrayRef<int64_t> operand : operands) {
      FailureOr<SmallVector<int64_t>> joined = broadcastShapes(shape, operand);
      if (failed(joined))
        return std::nullopt;
      shape = *joined;
    }
    if (!smaller(shape))
      return std::nullopt;
    return shape;
  }

  /// `value` computed on the unbroadcast operands (after shrunkShape
  /// accepted it): the Expand's input, or a clone of the pointwise op
  /// before the original.
  Value rebuild(Value value) {
    if (Value done = rebuilt.lookup(value))
      return done;
    Operation *op = value.getDefiningOp();
    Value result;
    if (auto expand = dyn_cast<ExpandOp>(op)) {
      result = expand.getInput();
    } else {
      IRMapping mapping;
      for (Value operand : op->getOperands())
        if (shapes.count(operand))
          mapping.map(operand, rebuild(operand));
      OpBuilder builder(op);
      Operation *clone = builder.clone(*op, mapping);
      // Unbroadcast, it holds less than the op's ONNX tensor.
      clone->setLoc(withoutTensorNames(clone->getLoc()));
      result = clone->getResult(0);
      result.setType(
          cast<RankedTensorType>(value.getType()).clone(shapes[value]));
    }
    rebuilt[value] = result;
    return result;
  }

  llvm::DenseMap<Value, SmallVector<int64_t>> shapes;
  llvm::DenseMap<Value, Value> rebuilt;
  /// The ops the shrinking replaces, producers before users.
  llvm::SetVector<Operation *> chain;
};

/// Each distinct mask of an attention, read unbroadcast where it can be.
void readMasksUnexpanded(ModuleOp module) {
  llvm::MapVector<Value, SmallVector<AttentionOp>> readers;
  module.walk([&](AttentionOp attention) {
    if (Value mask = attention.getMask())
      readers[mask].push_back(attention);
  });
  for (auto &[mask, attentions] : readers) {
    // Only masks that attentions alone read.
    if (!llvm::all_of(mask.getUsers(), [&](Operation *user) {
          return llvm::is_contained(attentions, user);
        }))
      continue;
    MaskUnexpander().rewrite(mask, attentions);
  }
}

} // namespace

LogicalResult recognizeAttention(ModuleOp module) {
  if (failed(applyPatternsUntilDone<RecognizeAttentionChain>(
          module, "recognising attention")))
    return failure();
  readMasksUnexpanded(module);
  return success();
}

namespace {
struct RecognizeAttentionPass
    : impl::RecognizeAttentionBase<RecognizeAttentionPass> {
  void runOnOperation() override {
    if (failed(recognizeAttention(getOperation())))
      signalPassFailure();
  }
};
} // namespace

} // namespace graphc
