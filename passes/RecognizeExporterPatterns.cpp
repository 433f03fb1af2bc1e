//===- RecognizeExporterPatterns.cpp - GELU, norms and SiLU from exporters ===//
//
// torch.onnx writes GELU, LayerNorm, RMSNorm and SiLU as chains of
// elementwise ops and reductions when the opset has no such op. Each recognised
// chain becomes one graph op, which fuses into one kernel and computes in one
// rounding step. A chain is only replaced when none of its intermediate values
// is used outside it, every intermediate has the input's type (no broadcast
// grows it) and its constants match to 1e-6 relative (or the rounding
// error of a narrower float type). The new op's location fuses the chain's
// and names the ONNX tensor of the chain's last op, which it computes.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"
#include "lib/Support/ScalarOps.h"
#include "passes/ApplyPatterns.h"
#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

using namespace mlir;
using namespace graphc::graph;

namespace graphc {
#define GEN_PASS_DEF_RECOGNIZEEXPORTERPATTERNS
#include "passes/Passes.h.inc"

namespace {

/// Whether `value` is a one-element constant within the tolerance of its
/// element type of `expected`.
bool isScalarNear(Value value, double expected) {
  std::optional<double> number = getScalarConstant(value);
  if (!number)
    return false;
  double tolerance = 1e-6;
  Type elementType = cast<ShapedType>(value.getType()).getElementType();
  if (auto floatType = dyn_cast<FloatType>(elementType))
    tolerance = std::max(
        tolerance,
        std::ldexp(1.0, 1 - static_cast<int>(floatType.getFPMantissaWidth())));
  return std::abs(*number - expected) <= tolerance * std::abs(expected);
}

/// The operand of a binary `op` other than `known`, or null when `known` is
/// not an operand. For x * x, the other operand is x.
Value otherOperand(Operation *op, Value known) {
  if (op->getOperand(0) == known)
    return op->getOperand(1);
  if (op->getOperand(1) == known)
    return op->getOperand(0);
  return {};
}

/// The only user of `value`, when it has exactly one use.
Operation *soleUser(Value value) {
  return value.hasOneUse() ? *value.getUsers().begin() : nullptr;
}

/// The ops of a matched chain, the last one producing its result. Checks
/// that each op's result has the input's type and that each result but the
/// last is used inside the chain only.
class Chain {
public:
  explicit Chain(Value input) : input(input) {}

  /// Adds `op` when it is a single-result op of the input's type.
  bool add(Operation *op) {
    if (!op || op->getNumResults() != 1 ||
        op->getResult(0).getType() != input.getType())
      return false;
    ops.push_back(op);
    return true;
  }

  /// Whether every value but the last one's is used by chain ops only.
  bool isClosed() const {
    for (Operation *op : ArrayRef<Operation *>(ops).drop_back())
      for (Operation *user : op->getResult(0).getUsers())
        if (!llvm::is_contained(ops, user))
          return false;
    return true;
  }

  Operation *last() const { return ops.back(); }

  /// Every op's location fused, so that reports name all ONNX nodes.
  Location fusedLocation() const {
    SmallVector<Location> locations;
    for (Operation *op : ops)
      locations.push_back(op->getLoc());
    return FusedLoc::get(input.getContext(), locations);
  }

  /// Replaces the last op by `replacement` and erases the rest, users first.
  /// The replacement computes the last op's output: it holds its tensor.
  void replace(PatternRewriter &rewriter, Value replacement) {
    Operation *op = replacement.getDefiningOp();
    op->setLoc(withTensorsOf(op->getLoc(), last()->getResults()));
    rewriter.replaceOp(last(), replacement);
    SmallVector<Operation *> rest(ops.begin(), ops.end() - 1);
    // Erase in an order where every erased op has no users left.
    while (!rest.empty()) {
      auto unused = llvm::find_if(
          rest, [](Operation *op) { return op->getResult(0).use_empty(); });
      assert(unused != rest.end() && "a closed chain has an unused op");
      rewriter.eraseOp(*unused);
      rest.erase(unused);
    }
  }

private:
  Value input;
  SmallVector<Operation *> ops;
};

//===----------------------------------------------------------------------===//
// GELU
//===----------------------------------------------------------------------===//

/// Matches the common tail of both GELU forms: `onePlus` = 1 + f(x), times
/// x and 0.5 in any association (x * onePlus * 0.5, x * 0.5 * onePlus,
/// x * (onePlus * 0.5)). Adds the tail's ops to `chain`.
bool matchHalfXTimes(Value onePlus, Value x, Chain &chain) {
  auto isHalf = [](Value v) { return isScalarNear(v, 0.5); };
  auto first = dyn_cast_or_null<MulOp>(soleUser(onePlus));
  if (!first)
    return false;
  Value factor = otherOperand(first, onePlus);
  if (factor == x || isHalf(factor)) {
    auto second = dyn_cast_or_null<MulOp>(soleUser(first.getResult()));
    if (!chain.add(first) || !second || !chain.add(second))
      return false;
    Value rest = otherOperand(second, first.getResult());
    return factor == x ? isHalf(rest) : rest == x;
  }
  auto halfX = factor.getDefiningOp<MulOp>();
  return halfX && isHalf(otherOperand(halfX, x)) && chain.add(halfX) &&
         chain.add(first);
}

/// 1 + `value`, the Add being the only user of value.
AddOp onePlus(Value value) {
  auto add = dyn_cast_or_null<AddOp>(soleUser(value));
  if (!add || !isScalarNear(otherOperand(add, value), 1.0))
    return {};
  return add;
}

/// x * 0.5 * (1 + erf(x / sqrt(2))), the division also written as a
/// multiplication by 1 / sqrt(2).
struct RecognizeErfGelu : OpRewritePattern<ErfOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ErfOp erf,
                                PatternRewriter &rewriter) const override {
    Operation *scaling = erf.getInput().getDefiningOp();
    Value x;
    if (auto div = dyn_cast_or_null<DivOp>(scaling);
        div && isScalarNear(div.getRhs(), M_SQRT2))
      x = div.getLhs();
    else if (auto mul = dyn_cast_or_null<MulOp>(scaling)) {
      if (isScalarNear(mul.getRhs(), M_SQRT1_2))
        x = mul.getLhs();
      else if (isScalarNear(mul.getLhs(), M_SQRT1_2))
        x = mul.getRhs();
    }
    if (!x)
      return rewriter.notifyMatchFailure(erf, "input is not x / sqrt(2)");
    Chain chain(x);
    AddOp plus = onePlus(erf.getResult());
    if (!chain.add(scaling) || !chain.add(erf) || !plus || !chain.add(plus) ||
        !matchHalfXTimes(plus.getResult(), x, chain) || !chain.isClosed())
      return rewriter.notifyMatchFailure(erf, "not an erf GELU");
    rewriter.setInsertionPoint(chain.last());
    auto gelu = rewriter.create<GeluOp>(chain.fusedLocation(), x.getType(), x,
                                        rewriter.getStringAttr("none"));
    chain.replace(rewriter, gelu);
    return success();
  }
};

/// Whether `value` is x^3: Pow(x, 3), x * (x * x) or (x * x) * x. Adds the
/// ops to `chain`.
bool matchCube(Value value, Value x, Chain &chain) {
  Operation *op = value.getDefiningOp();
  if (auto pow = dyn_cast_or_null<PowOp>(op))
    return pow.getLhs() == x && isScalarNear(pow.getRhs(), 3.0) &&
           chain.add(pow);
  auto mul = dyn_cast_or_null<MulOp>(op);
  if (!mul)
    return false;
  Value square = otherOperand(mul, x);
  auto squareOp = square ? square.getDefiningOp<MulOp>() : MulOp();
  return squareOp && squareOp.getLhs() == x && squareOp.getRhs() == x &&
         chain.add(squareOp) && chain.add(mul);
}

/// The tanh approximation of GELU (scalar::gelu), its constants
/// scalar::kGeluTanhScale and kGeluTanhCubic.
struct RecognizeTanhGelu : OpRewritePattern<TanhOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TanhOp tanh,
                                PatternRewriter &rewriter) const override {
    auto scale = tanh.getInput().getDefiningOp<MulOp>();
    if (!scale)
      return rewriter.notifyMatchFailure(tanh, "input is not a product");
    Value inner =
        isScalarNear(scale.getLhs(), scalar::kGeluTanhScale)   ? scale.getRhs()
        : isScalarNear(scale.getRhs(), scalar::kGeluTanhScale) ? scale.getLhs()
                                                               : Value();
    auto sum = inner ? inner.getDefiningOp<AddOp>() : AddOp();
    if (!sum)
      return rewriter.notifyMatchFailure(tanh, "not sqrt(2/pi) * (x + ...)");
    // Either addend may be x; the other is kGeluTanhCubic * x^3.
    for (auto [x, term] : {std::pair(sum.getLhs(), sum.getRhs()),
                           std::pair(sum.getRhs(), sum.getLhs())}) {
      auto cubic = term.getDefiningOp<MulOp>();
      if (!cubic)
        continue;
      Value cube =
          isScalarNear(cubic.getLhs(), scalar::kGeluTanhCubic)   ? cubic.getRhs()
          : isScalarNear(cubic.getRhs(), scalar::kGeluTanhCubic) ? cubic.getLhs()
                                                                 : Value();
      Chain chain(x);
      if (!cube || !matchCube(cube, x, chain) || !chain.add(cubic) ||
          !chain.add(sum) || !chain.add(scale) || !chain.add(tanh))
        continue;
      AddOp plus = onePlus(tanh.getResult());
      if (!plus || !chain.add(plus) ||
          !matchHalfXTimes(plus.getResult(), x, chain) || !chain.isClosed())
        continue;
      rewriter.setInsertionPoint(chain.last());
      auto gelu = rewriter.create<GeluOp>(chain.fusedLocation(), x.getType(),
                                          x, rewriter.getStringAttr("tanh"));
      chain.replace(rewriter, gelu);
      return success();
    }
    return rewriter.notifyMatchFailure(tanh, "not a tanh GELU");
  }
};

//===----------------------------------------------------------------------===//
// LayerNorm
//===----------------------------------------------------------------------===//

/// A ReduceMean of `data` over its last axis only, keeping dims.
ReduceMeanOp meanOverLastAxis(Value value, Value data) {
  auto mean = value.getDefiningOp<ReduceMeanOp>();
  if (!mean || mean.getData() != data || mean.getKeepdims() != 1 ||
      !mean.getAxes())
    return {};
  std::optional<SmallVector<int64_t>> axes = getConstantInts(mean.getAxes());
  auto type = dyn_cast<RankedTensorType>(data.getType());
  if (!type || !axes || axes->size() != 1 ||
      ((*axes)[0] != -1 && (*axes)[0] != type.getRank() - 1))
    return {};
  return mean;
}

/// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) * gamma [+ beta], the
/// means over the last axis, gamma and beta vectors of its size.
struct RecognizeLayerNorm : OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DivOp div,
                                PatternRewriter &rewriter) const override {
    auto centered = div.getLhs().getDefiningOp<SubOp>();
    if (!centered)
      return rewriter.notifyMatchFailure(div, "numerator is not x - mean");
    Value x = centered.getLhs();
    auto type = dyn_cast<RankedTensorType>(x.getType());
    if (!type || type.getRank() == 0 || !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(div, "x is not a float tensor");
    ReduceMeanOp mean = meanOverLastAxis(centered.getRhs(), x);
    auto root = div.getRhs().getDefiningOp<SqrtOp>();
    auto shifted = root ? root.getInput().getDefiningOp<AddOp>() : AddOp();
    if (!mean || !shifted)
      return rewriter.notifyMatchFailure(div, "not (x - mean) / sqrt(. + eps)");
    Value d = centered.getResult();
    ReduceMeanOp variance;
    Value epsilon;
    for (auto [v, e] : {std::pair(shifted.getLhs(), shifted.getRhs()),
                        std::pair(shifted.getRhs(), shifted.getLhs())}) {
      if (auto candidate = v.getDefiningOp<ReduceMeanOp>()) {
        variance = candidate;
        epsilon = e;
      }
    }
    std::optional<double> eps = getScalarConstant(epsilon);
    if (!variance || !eps || !(*eps >= 0.0))
      return rewriter.notifyMatchFailure(div, "no variance + constant eps");
    Operation *square = variance.getData().getDefiningOp();
    bool isSquare = false;
    if (auto pow = dyn_cast_or_null<PowOp>(square))
      isSquare = pow.getLhs() == d && isScalarNear(pow.getRhs(), 2.0);
    else if (auto mul = dyn_cast_or_null<MulOp>(square))
      isSquare = mul.getLhs() == d && mul.getRhs() == d;
    if (!isSquare ||
        !meanOverLastAxis(variance.getResult(), square->getResult(0)))
      return rewriter.notifyMatchFailure(div, "variance is not mean(d^2)");

    int64_t size = type.getShape().back();
    auto isParameter = [&](Value v) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t && t.getRank() == 1 && t.getDimSize(0) == size &&
             !ShapedType::isDynamic(size) &&
             t.getElementType() == type.getElementType();
    };
    auto scaled = dyn_cast_or_null<MulOp>(soleUser(div.getResult()));
    Value gamma = scaled ? otherOperand(scaled, div.getResult()) : Value();
    if (!gamma || !isParameter(gamma))
      return rewriter.notifyMatchFailure(div, "no scale by a [D] gamma");
    auto biased = dyn_cast_or_null<AddOp>(soleUser(scaled.getResult()));
    Value beta = biased ? otherOperand(biased, scaled.getResult()) : Value();
    if (beta && !isParameter(beta))
      beta = {};

    // The mean and variance have the reduced type; the rest has x's.
    Type reducedType = mean.getType();
    Chain chain(x);
    if (variance.getType() != reducedType ||
        shifted.getType() != reducedType || root.getType() != reducedType ||
        !chain.add(centered) || !chain.add(square) || !chain.add(div) ||
        !chain.add(scaled) || (beta && !chain.add(biased)))
      return rewriter.notifyMatchFailure(div, "a value changes type");
    // mean feeds only the Sub; d feeds only the square and the Div; the
    // reduced values feed only their successor.
    auto usersAre = [](Value v, std::initializer_list<Operation *> users) {
      return llvm::all_of(v.getUsers(), [&](Operation *user) {
        return llvm::is_contained(users, user);
      });
    };
    if (!usersAre(mean.getResult(), {centered}) ||
        !usersAre(d, {square, div}) ||
        !usersAre(square->getResult(0), {variance}) ||
        !usersAre(variance.getResult(), {shifted}) ||
        !usersAre(shifted.getResult(), {root}) ||
        !usersAre(root.getResult(), {div}) ||
        (beta && !usersAre(scaled.getResult(), {biased})))
      return rewriter.notifyMatchFailure(div,
                                         "an intermediate has another use");

    SmallVector<Location> locations{mean.getLoc(),    centered.getLoc(),
                                    square->getLoc(), variance.getLoc(),
                                    shifted.getLoc(), root.getLoc(),
                                    div.getLoc(),     scaled.getLoc()};
    if (beta)
      locations.push_back(biased.getLoc());
    Operation *last = beta ? biased.getOperation() : scaled.getOperation();
    rewriter.setInsertionPoint(last);
    SmallVector<Value> operands{x, gamma};
    if (beta)
      operands.push_back(beta);
    auto norm = rewriter.create<LayerNormalizationOp>(
        withTensorsOf(FusedLoc::get(getContext(), locations),
                      last->getResults()),
        TypeRange{type}, operands);
    norm.setEpsilonAttr(
        rewriter.getF32FloatAttr(static_cast<float>(*eps)));
    rewriter.replaceOp(last, norm.getResult());
    for (Operation *op : {beta ? scaled.getOperation() : nullptr,
                          div.getOperation(), root.getOperation(),
                          shifted.getOperation(), variance.getOperation(),
                          square, centered.getOperation(),
                          mean.getOperation()})
      if (op)
        rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// SiLU
//===----------------------------------------------------------------------===//

/// x * sigmoid(x), either order: torch's SiLU.
struct RecognizeSilu : OpRewritePattern<SigmoidOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SigmoidOp sigmoid,
                                PatternRewriter &rewriter) const override {
    Value x = sigmoid.getInput();
    auto mul = dyn_cast_or_null<MulOp>(soleUser(sigmoid.getResult()));
    Chain chain(x);
    if (!mul || otherOperand(mul, sigmoid.getResult()) != x ||
        !chain.add(sigmoid) || !chain.add(mul))
      return rewriter.notifyMatchFailure(sigmoid, "not x * sigmoid(x)");
    rewriter.setInsertionPoint(mul);
    auto silu = rewriter.create<SiluOp>(chain.fusedLocation(), x.getType(), x);
    chain.replace(rewriter, silu);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// RMSNorm
//===----------------------------------------------------------------------===//

/// x / sqrt(mean(x^2) + eps) * gamma (the division also written as
/// x * reciprocal(sqrt(.)), as torch exports rsqrt), the mean over the last
/// axis, gamma a vector of its size: Llama's RMSNorm.
struct RecognizeRmsNorm : OpRewritePattern<ReduceMeanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceMeanOp mean,
                                PatternRewriter &rewriter) const override {
    Operation *square = mean.getData().getDefiningOp();
    Value x;
    if (auto pow = dyn_cast_or_null<PowOp>(square);
        pow && isScalarNear(pow.getRhs(), 2.0))
      x = pow.getLhs();
    else if (auto mul = dyn_cast_or_null<MulOp>(square);
             mul && mul.getLhs() == mul.getRhs())
      x = mul.getLhs();
    auto type = x ? dyn_cast<RankedTensorType>(x.getType())
                  : RankedTensorType();
    if (!type || type.getRank() == 0 ||
        !isa<FloatType>(type.getElementType()) ||
        !meanOverLastAxis(mean.getResult(), square->getResult(0)) ||
        !square->getResult(0).hasOneUse())
      return rewriter.notifyMatchFailure(mean, "not mean(x^2) over the last axis");
    auto shifted = dyn_cast_or_null<AddOp>(soleUser(mean.getResult()));
    std::optional<double> eps =
        shifted ? getScalarConstant(otherOperand(shifted, mean.getResult()))
                : std::nullopt;
    auto root = shifted ? dyn_cast_or_null<SqrtOp>(soleUser(shifted.getResult()))
                        : SqrtOp();
    if (!eps || !(*eps >= 0.0) || !root)
      return rewriter.notifyMatchFailure(mean, "no sqrt(. + constant eps)");
    // x / root, or x * reciprocal(root).
    Operation *inverse = nullptr, *normed = soleUser(root.getResult());
    if (auto reciprocal = dyn_cast_or_null<ReciprocalOp>(normed)) {
      inverse = reciprocal;
      normed = soleUser(reciprocal.getResult());
      auto mul = dyn_cast_or_null<MulOp>(normed);
      if (!mul || otherOperand(mul, reciprocal.getResult()) != x)
        normed = nullptr;
    } else if (auto div = dyn_cast_or_null<DivOp>(normed)) {
      if (div.getLhs() != x || div.getRhs() != root.getResult())
        normed = nullptr;
    } else {
      normed = nullptr;
    }
    if (!normed)
      return rewriter.notifyMatchFailure(mean, "x is not divided by the root");
    int64_t size = type.getShape().back();
    auto scaled = dyn_cast_or_null<MulOp>(soleUser(normed->getResult(0)));
    Value gamma =
        scaled ? otherOperand(scaled, normed->getResult(0)) : Value();
    auto gammaType =
        gamma ? dyn_cast<RankedTensorType>(gamma.getType()) : RankedTensorType();
    if (!gammaType || gammaType.getRank() != 1 ||
        ShapedType::isDynamic(size) || gammaType.getDimSize(0) != size ||
        gammaType.getElementType() != type.getElementType())
      return rewriter.notifyMatchFailure(mean, "no scale by a [D] gamma");
    // The reduced values keep the mean's type; the rest has x's.
    Type reducedType = mean.getType();
    Chain chain(x);
    if (shifted.getType() != reducedType || root.getType() != reducedType ||
        (inverse && inverse->getResult(0).getType() != reducedType) ||
        !chain.add(square) || !chain.add(normed) || !chain.add(scaled))
      return rewriter.notifyMatchFailure(mean, "a value changes type");

    SmallVector<Location> locations{square->getLoc(), mean.getLoc(),
                                    shifted.getLoc(), root.getLoc()};
    if (inverse)
      locations.push_back(inverse->getLoc());
    locations.append({normed->getLoc(), scaled.getLoc()});
    rewriter.setInsertionPoint(scaled);
    auto norm = rewriter.create<RmsNormalizationOp>(
        withTensorsOf(FusedLoc::get(getContext(), locations),
                      scaled->getResults()),
        TypeRange{type}, ValueRange{x, gamma});
    norm.setEpsilonAttr(rewriter.getF32FloatAttr(static_cast<float>(*eps)));
    rewriter.replaceOp(scaled, norm.getResult());
    for (Operation *op : {normed, inverse, root.getOperation(),
                          shifted.getOperation(), mean.getOperation(), square})
      if (op)
        rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

LogicalResult recognizeExporterPatterns(ModuleOp module) {
  return applyPatternsUntilDone<RecognizeErfGelu, RecognizeTanhGelu,
                                RecognizeLayerNorm, RecognizeRmsNorm,
                                RecognizeSilu>(module,
                                               "recognising exporter patterns");
}

namespace {
struct RecognizeExporterPatternsPass
    : impl::RecognizeExporterPatternsBase<RecognizeExporterPatternsPass> {
  void runOnOperation() override {
    if (failed(recognizeExporterPatterns(getOperation())))
      signalPassFailure();
  }
};
} // namespace

} // namespace graphc
