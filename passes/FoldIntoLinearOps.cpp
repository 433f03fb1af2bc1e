//===- FoldIntoLinearOps.cpp - fold per-channel affines into weights ------===//
//
// A Conv, ConvTranspose, Gemm or MatMul followed by an inference-mode
// BatchNormalization, a Mul by a constant or an Add of a constant computes
// y * scale + shift per output channel of a linear op: the scale goes into
// the weights and the shift into the bias, so the follower disappears. New
// constants are computed in double and rounded once to the tensor's type;
// the merged op's location fuses both ONNX nodes' locations and names the
// follower's output, which the merged op now computes. Scalar scales
// of a MatMul's operands move past it, and reshapes of its result past the
// pointwise ops after it (to fold or fuse there).
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "passes/ApplyPatterns.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace graphc::graph;

namespace graphc {
#define GEN_PASS_DEF_FOLDINTOLINEAROPS
#include "passes/Passes.h.inc"

namespace {

//===----------------------------------------------------------------------===//
// Float constants
//===----------------------------------------------------------------------===//

/// A constant float tensor: its type and its values widened to double.
struct FloatConstant {
  RankedTensorType type;
  SmallVector<double> values;
};

/// The type of a constant with a float element type, without reading it.
RankedTensorType floatConstantType(Value value) {
  if (!value || !matchPattern(value, m_Constant()))
    return {};
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && isa<FloatType>(type.getElementType())
             ? type
             : RankedTensorType();
}

/// Reads a constant of a float element type, dense or resource blob.
std::optional<FloatConstant> readFloatConstant(Value value) {
  ElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(attr.getType());
  auto elementType =
      type ? dyn_cast<FloatType>(type.getElementType()) : FloatType();
  if (!elementType)
    return std::nullopt;
  FailureOr<std::vector<char>> bytes = constantBytes(attr);
  if (failed(bytes))
    return std::nullopt;
  unsigned width = elementType.getWidth();
  size_t elementBytes = width / 8;
  FloatConstant result{type, {}};
  result.values.reserve(bytes->size() / elementBytes);
  for (size_t offset = 0; offset < bytes->size(); offset += elementBytes) {
    uint64_t bits = 0;
    std::memcpy(&bits, bytes->data() + offset, elementBytes);
    APFloat element(elementType.getFloatSemantics(), APInt(width, bits));
    result.values.push_back(element.convertToDouble());
  }
  return result;
}

/// Past this many elements a new constant becomes a resource blob, as the
/// importer does with weights, so it never appears in textual IR.
constexpr int64_t kDenseElementLimit = 64;

/// A graph.constant of `type` holding `values` rounded to its element type.
Value createFloatConstant(PatternRewriter &rewriter, Location loc,
                          RankedTensorType type, ArrayRef<double> values) {
  auto elementType = cast<FloatType>(type.getElementType());
  size_t elementBytes = elementType.getWidth() / 8;
  std::vector<char> bytes(values.size() * elementBytes);
  for (auto [i, value] : llvm::enumerate(values)) {
    APFloat element(value);
    bool losesInfo = false;
    element.convert(elementType.getFloatSemantics(),
                    APFloat::rmNearestTiesToEven, &losesInfo);
    uint64_t bits = element.bitcastToAPInt().getZExtValue();
    std::memcpy(bytes.data() + i * elementBytes, &bits, elementBytes);
  }
  ElementsAttr attr;
  if (type.getNumElements() <= kDenseElementLimit) {
    attr = constantFromBytes(type, bytes);
  } else {
    AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(bytes), elementBytes);
    attr = DenseResourceElementsAttr::get(type, "folded", std::move(blob));
  }
  return rewriter.create<ConstantOp>(loc, type, attr);
}

//===----------------------------------------------------------------------===//
// The per-channel affine a follower applies
//===----------------------------------------------------------------------===//

/// y * scale[c] + shift[c] along one channel axis of the linear op's result.
struct ChannelAffine {
  Operation *follower;
  SmallVector<double> scale;
  SmallVector<double> shift;

  bool hasScale() const {
    return llvm::any_of(scale, [](double v) { return v != 1.0; });
  }
  bool hasShift() const {
    return llvm::any_of(shift, [](double v) { return v != 0.0; });
  }
};

/// Expands a constant that broadcasts along `axis` only (every other dim 1,
/// rank at most `rank`, right-aligned as numpy does) to one value per
/// channel. A constant with another layout would mix channels or grow the
/// result, so it is refused.
std::optional<SmallVector<double>>
perChannelValues(const FloatConstant &constant, int64_t rank, int64_t axis,
                 int64_t channels) {
  ArrayRef<int64_t> shape = constant.type.getShape();
  int64_t offset = rank - static_cast<int64_t>(shape.size());
  if (offset < 0)
    return std::nullopt;
  for (auto [i, dim] : llvm::enumerate(shape)) {
    bool isChannelDim = static_cast<int64_t>(i) + offset == axis;
    if (dim != 1 && !(isChannelDim && dim == channels))
      return std::nullopt;
  }
  if (constant.values.size() == 1)
    return SmallVector<double>(channels, constant.values.front());
  return constant.values;
}

/// The affine that the only user of `result` applies along `axis`, when that
/// user is a BatchNormalization over `axis`, or a Mul or Add with a constant
/// of the result's element type that broadcasts along `axis` only.
std::optional<ChannelAffine> matchChannelAffine(Value result, int64_t axis,
                                                int64_t channels) {
  auto type = dyn_cast<RankedTensorType>(result.getType());
  if (!type || !isa<FloatType>(type.getElementType()) || !result.hasOneUse())
    return std::nullopt;
  Operation *follower = *result.getUsers().begin();
  // The merged op takes the follower's type, which must not broadcast.
  if (follower->getNumResults() != 1 ||
      follower->getResult(0).getType() != type)
    return std::nullopt;
  int64_t rank = type.getRank();
  ChannelAffine affine{follower, SmallVector<double>(channels, 1.0),
                       SmallVector<double>(channels, 0.0)};

  if (auto norm = dyn_cast<BatchNormalizationOp>(follower)) {
    if (axis != 1 || norm.getX() != result || norm.getTrainingMode() != 0)
      return std::nullopt;
    std::optional<FloatConstant> gamma = readFloatConstant(norm.getScale());
    std::optional<FloatConstant> beta = readFloatConstant(norm.getB());
    std::optional<FloatConstant> mean = readFloatConstant(norm.getInputMean());
    std::optional<FloatConstant> var = readFloatConstant(norm.getInputVar());
    for (const std::optional<FloatConstant> &param : {gamma, beta, mean, var})
      if (!param || param->type.getElementType() != type.getElementType() ||
          static_cast<int64_t>(param->values.size()) != channels)
        return std::nullopt;
    double epsilon = norm.getEpsilon().convertToDouble();
    for (int64_t c = 0; c < channels; ++c) {
      affine.scale[c] = gamma->values[c] / std::sqrt(var->values[c] + epsilon);
      affine.shift[c] = beta->values[c] - mean->values[c] * affine.scale[c];
      if (!std::isfinite(affine.scale[c]) || !std::isfinite(affine.shift[c]))
        return std::nullopt;
    }
    return affine;
  }

  if (!isa<MulOp, AddOp>(follower))
    return std::nullopt;
  Value other = follower->getOperand(0) == result ? follower->getOperand(1)
                                                  : follower->getOperand(0);
  std::optional<FloatConstant> constant = readFloatConstant(other);
  if (!constant || constant->type.getElementType() != type.getElementType())
    return std::nullopt;
  std::optional<SmallVector<double>> values =
      perChannelValues(*constant, rank, axis, channels);
  if (!values)
    return std::nullopt;
  // inf * 0 inside the linear op would not be what the follower computes.
  if (!llvm::all_of(*values, [](double v) { return std::isfinite(v); }))
    return std::nullopt;
  if (isa<MulOp>(follower))
    affine.scale = std::move(*values);
  else
    affine.shift = std::move(*values);
  return affine;
}

/// The location of the merged op and its new constants: both ONNX nodes
/// stay named in reports; it names no tensor (replaceBoth names the merged
/// op's).
Location mergedLocation(Operation *linear, Operation *follower) {
  return withoutTensorNames(FusedLoc::get(
      linear->getContext(), {linear->getLoc(), follower->getLoc()}));
}

/// `weights` with every element multiplied by the scale of the output
/// channel that `channelOf` says the element contributes to, as a new
/// constant; `weights` itself when nothing is scaled. Fails, creating
/// nothing, when the weights cannot be read.
FailureOr<Value> scaleWeights(PatternRewriter &rewriter, Location loc,
                              Value weights, const ChannelAffine &affine,
                              function_ref<int64_t(int64_t)> channelOf) {
  if (!affine.hasScale())
    return weights;
  std::optional<FloatConstant> constant = readFloatConstant(weights);
  if (!constant)
    return failure();
  for (auto [i, value] : llvm::enumerate(constant->values))
    value *= affine.scale[channelOf(static_cast<int64_t>(i))];
  return createFloatConstant(rewriter, loc, constant->type, constant->values);
}

/// Replaces `follower` by `merged` and erases the linear op it consumed.
/// The merged op computes the follower's output (a BatchNormalization's, a
/// Mul's or an Add's), so it holds the follower's ONNX tensor.
void replaceBoth(PatternRewriter &rewriter, Operation *linear,
                 const ChannelAffine &affine, Operation *merged) {
  merged->setLoc(
      withTensorsOf(merged->getLoc(), affine.follower->getResults()));
  rewriter.replaceOp(affine.follower, merged->getResults());
  rewriter.eraseOp(linear);
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// Folds the follower's affine into a Conv or ConvTranspose: W[c-th output
/// channel] *= scale[c], B = B * scale + shift.
template <typename ConvT>
struct FoldAffineIntoConv : OpRewritePattern<ConvT> {
  using OpRewritePattern<ConvT>::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvT conv,
                                PatternRewriter &rewriter) const override {
    RankedTensorType wType = floatConstantType(conv.getW());
    if (!wType || wType.getRank() < 3 || wType.getNumElements() == 0)
      return rewriter.notifyMatchFailure(conv, "weights are not constant");
    ArrayRef<int64_t> wShape = wType.getShape();
    int64_t group = conv.getGroup();
    // Conv W is [M, C/group, k...]; ConvTranspose W is [C, M/group, k...].
    constexpr bool isTranspose = std::is_same_v<ConvT, ConvTransposeOp>;
    int64_t channels = isTranspose ? wShape[1] * group : wShape[0];
    std::optional<ChannelAffine> affine =
        matchChannelAffine(conv.getY(), /*axis=*/1, channels);
    if (!affine)
      return rewriter.notifyMatchFailure(conv, "no foldable per-channel user");
    std::optional<FloatConstant> bias;
    if (conv.getB() && !(bias = readFloatConstant(conv.getB())))
      return rewriter.notifyMatchFailure(conv, "bias is not constant");

    int64_t kernelSize = wType.getNumElements() / (wShape[0] * wShape[1]);
    int64_t perGroupIn = wShape[0] / group;
    auto channelOf = [&](int64_t element) -> int64_t {
      if (!isTranspose)
        return element / (wShape[1] * kernelSize);
      int64_t in = element / (wShape[1] * kernelSize);
      int64_t out = (element / kernelSize) % wShape[1];
      return in / perGroupIn * wShape[1] + out;
    };
    Location loc = mergedLocation(conv, affine->follower);
    rewriter.setInsertionPoint(affine->follower);
    FailureOr<Value> weights =
        scaleWeights(rewriter, loc, conv.getW(), *affine, channelOf);
    if (failed(weights))
      return rewriter.notifyMatchFailure(conv, "weights are unreadable");
    SmallVector<Value> operands{conv.getX(), *weights};
    if (bias || affine->hasShift()) {
      SmallVector<double> newBias(channels);
      for (int64_t c = 0; c < channels; ++c)
        newBias[c] = (bias ? bias->values[c] * affine->scale[c] : 0.0) +
                     affine->shift[c];
      auto biasType = RankedTensorType::get({channels}, wType.getElementType());
      operands.push_back(createFloatConstant(rewriter, loc, biasType, newBias));
    }
    auto merged = rewriter.create<ConvT>(
        loc, TypeRange{affine->follower->getResult(0).getType()}, operands,
        conv->getAttrs());
    replaceBoth(rewriter, conv, *affine, merged);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Gemm and MatMul
//===----------------------------------------------------------------------===//

/// C broadcast to the shape it takes against an [N] row: [N], or [M, N]
/// when C has rows of its own.
FloatConstant broadcastRows(const FloatConstant &c, int64_t n) {
  ArrayRef<int64_t> shape = c.type.getShape();
  int64_t rows = shape.size() == 2 ? shape[0] : 1;
  int64_t cols = shape.empty() ? 1 : shape.back();
  SmallVector<int64_t> dims;
  if (shape.size() == 2)
    dims.push_back(rows);
  dims.push_back(n);
  FloatConstant result{RankedTensorType::get(dims, c.type.getElementType()),
                       {}};
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j)
      result.values.push_back(c.values[r * cols + (cols == 1 ? 0 : j)]);
  return result;
}

/// Folds the follower's affine into a Gemm with constant B:
/// s * (alpha A B + beta C) + t = alpha A (B s) + beta (C s + t / beta),
/// exact when there is no shift or beta is 1 (or C is absent: beta becomes 1).
struct FoldAffineIntoGemm : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GemmOp gemm,
                                PatternRewriter &rewriter) const override {
    RankedTensorType bType = floatConstantType(gemm.getB());
    if (!bType || bType.getRank() != 2)
      return rewriter.notifyMatchFailure(gemm, "B is not a constant matrix");
    bool transB = gemm.getTransB() != 0;
    int64_t n = bType.getDimSize(transB ? 0 : 1);
    int64_t k = bType.getDimSize(transB ? 1 : 0);
    std::optional<ChannelAffine> affine =
        matchChannelAffine(gemm.getY(), /*axis=*/1, n);
    if (!affine)
      return rewriter.notifyMatchFailure(gemm, "no foldable per-column user");
    std::optional<FloatConstant> c;
    if (gemm.getC()) {
      c = readFloatConstant(gemm.getC());
      if (!c || c->type.getRank() > 2)
        return rewriter.notifyMatchFailure(gemm, "C is not a constant");
      if (affine->hasShift() && gemm.getBeta().convertToDouble() != 1.0)
        return rewriter.notifyMatchFailure(gemm, "a shift needs beta = 1");
    }

    Location loc = mergedLocation(gemm, affine->follower);
    rewriter.setInsertionPoint(affine->follower);
    FailureOr<Value> b = scaleWeights(
        rewriter, loc, gemm.getB(), *affine,
        [&](int64_t element) { return transB ? element / k : element % n; });
    if (failed(b))
      return rewriter.notifyMatchFailure(gemm, "B is unreadable");
    SmallVector<Value> operands{gemm.getA(), *b};
    bool setBetaToOne = false;
    if (c) {
      FloatConstant newC = broadcastRows(*c, n);
      for (auto [i, value] : llvm::enumerate(newC.values))
        value = value * affine->scale[i % n] + affine->shift[i % n];
      operands.push_back(
          createFloatConstant(rewriter, loc, newC.type, newC.values));
    } else if (affine->hasShift()) {
      auto type = RankedTensorType::get({n}, bType.getElementType());
      operands.push_back(
          createFloatConstant(rewriter, loc, type, affine->shift));
      setBetaToOne = true;
    }
    auto merged = rewriter.create<GemmOp>(
        loc, TypeRange{affine->follower->getResult(0).getType()}, operands,
        gemm->getAttrs());
    if (setBetaToOne)
      merged.setBetaAttr(rewriter.getF32FloatAttr(1.0f));
    replaceBoth(rewriter, gemm, *affine, merged);
    return success();
  }
};

/// Folds the follower's affine into a MatMul with a constant B of rank 2 or
/// more: the scale goes into B's columns. A shift needs a bias operand, so
/// it is folded only when A and B are matrices and the MatMul becomes a Gemm.
struct FoldAffineIntoMatMul : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp matmul,
                                PatternRewriter &rewriter) const override {
    RankedTensorType bType = floatConstantType(matmul.getB());
    auto resultType = dyn_cast<RankedTensorType>(matmul.getY().getType());
    if (!bType || bType.getRank() < 2 || !resultType)
      return rewriter.notifyMatchFailure(matmul, "B is not a constant matrix");
    int64_t n = bType.getShape().back();
    std::optional<ChannelAffine> affine =
        matchChannelAffine(matmul.getY(), resultType.getRank() - 1, n);
    if (!affine)
      return rewriter.notifyMatchFailure(matmul, "no foldable per-column user");
    bool toGemm = affine->hasShift();
    auto aType = dyn_cast<RankedTensorType>(matmul.getA().getType());
    if (toGemm && (bType.getRank() != 2 || !aType || aType.getRank() != 2))
      return rewriter.notifyMatchFailure(
          matmul, "a shift needs a Gemm, which takes matrices only");
    Location loc = mergedLocation(matmul, affine->follower);
    rewriter.setInsertionPoint(affine->follower);
    FailureOr<Value> scaledB =
        scaleWeights(rewriter, loc, matmul.getB(), *affine,
                     [&](int64_t element) { return element % n; });
    if (failed(scaledB))
      return rewriter.notifyMatchFailure(matmul, "B is unreadable");
    Type type = affine->follower->getResult(0).getType();
    Operation *merged;
    if (toGemm) {
      auto biasType = RankedTensorType::get({n}, bType.getElementType());
      Value bias = createFloatConstant(rewriter, loc, biasType, affine->shift);
      merged = rewriter.create<GemmOp>(
          loc, TypeRange{type}, ValueRange{matmul.getA(), *scaledB, bias});
    } else {
      merged = rewriter.create<MatMulOp>(loc, TypeRange{type},
                                         ValueRange{matmul.getA(), *scaledB});
    }
    replaceBoth(rewriter, matmul, *affine, merged);
    return success();
  }
};

/// MatMul(x * a, y * b) = MatMul(x, y) * (a * b) for scalar constants a and
/// b: the scales move past the product, where a constant B folds them into
/// its weights and otherwise the product's epilogue applies them, instead
/// of a kernel of their own before it. torch.export's scaled dot-product
/// attention scales Q and K^T by sqrt(scale) each this way.
struct HoistScalesOutOfMatMul : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp matmul,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(matmul.getY().getType());
    if (!resultType || !isa<FloatType>(resultType.getElementType()))
      return rewriter.notifyMatchFailure(matmul, "not a float product");
    double scale = 1;
    SmallVector<Value, 2> operands = {matmul.getA(), matmul.getB()};
    SmallVector<Location> locations;
    bool hoisted = false;
    for (Value &operand : operands) {
      auto mul = operand.getDefiningOp<MulOp>();
      // The Mul must vanish: used by this product only, and not broadcast
      // (its result has the type of the value it scales).
      if (!mul || !mul->hasOneUse())
        continue;
      for (auto [scaled, factor] :
           {std::pair{mul.getLhs(), mul.getRhs()}, std::pair{mul.getRhs(), mul.getLhs()}}) {
        std::optional<FloatConstant> constant = readFloatConstant(factor);
        if (!constant || constant->values.size() != 1 ||
            scaled.getType() != mul.getType())
          continue;
        scale *= constant->values.front();
        operand = scaled;
        locations.push_back(mul.getLoc());
        hoisted = true;
        break;
      }
    }
    if (!hoisted)
      return rewriter.notifyMatchFailure(matmul, "no operand scaled by a scalar");
    // The Mul keeps the scales' ONNX nodes, the product its own. The
    // unscaled product is no ONNX tensor; the scaled one is the MatMul's.
    Location loc =
        withoutTensorNames(FusedLoc::get(matmul.getContext(), locations));
    rewriter.setInsertionPoint(matmul);
    Value product =
        rewriter.create<MatMulOp>(withoutTensorNames(matmul.getLoc()),
                                  TypeRange{resultType}, ValueRange(operands));
    Value factor = createFloatConstant(
        rewriter, loc, RankedTensorType::get({}, resultType.getElementType()),
        {scale});
    Value scaled = rewriter.create<MulOp>(
        withTensorsOf(loc, matmul->getResults()), TypeRange{resultType},
        ValueRange{product, factor});
    rewriter.replaceOp(matmul, scaled);
    return success();
  }
};

/// P(reshape(x), y...) = reshape(P(x, y'...)) for a pointwise P: the
/// reshape (a view) moves past P, so that P reads the linear op (or the
/// pointwise chain after it) producing x directly and fuses into its
/// epilogue. Exporters reshape a Gemm's [B*S, N] result to [B, S, N] before
/// the bias-free residual add or the activation (GPT-2's Conv1D). An
/// operand y of P's shape becomes reshape(y) (a view too); any other
/// operand must broadcast the same way over x's shape as over P's, so it
/// may vary only along the trailing dims both shapes share.
struct SinkReshapeBelowPointwise : RewritePattern {
  SinkReshapeBelowPointwise(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!op->hasTrait<graph::OpTrait::Pointwise>() || op->getNumResults() != 1)
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || !resultType.hasStaticShape())
      return failure();
    // The reshaped operand: a reshape used here only, of a value used by the
    // reshape only that a linear op or a pointwise op computes.
    std::optional<unsigned> reshaped;
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      auto reshape = operand.getDefiningOp<ReshapeOp>();
      if (!reshape || !operand.hasOneUse() ||
          !reshape.getData().hasOneUse() ||
          operand.getType() != resultType)
        continue;
      Operation *producer = reshape.getData().getDefiningOp();
      if (producer && (isEpilogueAnchor(producer) ||
                       producer->hasTrait<graph::OpTrait::Pointwise>())) {
        reshaped = i;
        break;
      }
    }
    if (!reshaped)
      return failure();
    // With two reshaped operands the rewrite could move either, back and
    // forth: it moves none.
    for (auto [i, operand] : llvm::enumerate(op->getOperands()))
      if (i != *reshaped && operand.getDefiningOp<ReshapeOp>())
        return failure();
    Value source =
        op->getOperand(*reshaped).getDefiningOp<ReshapeOp>().getData();
    auto sourceType = dyn_cast<RankedTensorType>(source.getType());
    // Shapes without zeros: a 0 in a reshape's shape copies an input dim.
    if (!sourceType || !sourceType.hasStaticShape() ||
        sourceType.getNumElements() == 0 ||
        sourceType.getShape() == resultType.getShape())
      return failure();
    ArrayRef<int64_t> from = sourceType.getShape(), to = resultType.getShape();
    // The trailing dims both shapes share.
    size_t shared = 0;
    while (shared < from.size() && shared < to.size() &&
           from[from.size() - 1 - shared] == to[to.size() - 1 - shared])
      ++shared;
    auto shapeConstant = [&](ArrayRef<int64_t> dims) {
      auto type = RankedTensorType::get({static_cast<int64_t>(dims.size())},
                                        rewriter.getI64Type());
      return rewriter.create<ConstantOp>(withoutTensorNames(op->getLoc()), type,
                                         DenseIntElementsAttr::get(type, dims));
    };
    SmallVector<Value> operands;
    rewriter.setInsertionPoint(op);
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      if (i == *reshaped) {
        operands.push_back(source);
        continue;
      }
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      if (!type)
        return failure();
      ArrayRef<int64_t> dims = type.getShape();
      if (dims == to) {
        operands.push_back(operand);
        continue;
      }
      bool sameBroadcast = dims.size() <= from.size();
      for (size_t d = 0; sameBroadcast && d < dims.size(); ++d)
        sameBroadcast = dims[dims.size() - 1 - d] == 1 || d < shared;
      if (!sameBroadcast)
        return failure();
      operands.push_back(operand);
    }
    // Only now that the rewrite is certain: full-shape operands become
    // views of x's shape.
    for (auto [i, operand] : llvm::enumerate(operands)) {
      auto type = cast<RankedTensorType>(operand.getType());
      if (i == *reshaped || type.getShape() != to)
        continue;
      operand = rewriter.create<ReshapeOp>(
          operand.getLoc(), type.clone(from), operand, shapeConstant(from));
    }
    OperationState state(op->getLoc(), op->getName(), operands,
                         TypeRange{resultType.clone(from)}, op->getAttrs());
    Operation *sunk = rewriter.create(state);
    Value result = rewriter.create<ReshapeOp>(
        op->getLoc(), resultType, sunk->getResult(0), shapeConstant(to));
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

LogicalResult foldIntoLinearOps(ModuleOp module) {
  return applyPatternsUntilDone<
      FoldAffineIntoConv<ConvOp>, FoldAffineIntoConv<ConvTransposeOp>,
      FoldAffineIntoGemm, FoldAffineIntoMatMul, HoistScalesOutOfMatMul,
      SinkReshapeBelowPointwise>(module, "folding into linear ops");
}

namespace {
struct FoldIntoLinearOpsPass
    : impl::FoldIntoLinearOpsBase<FoldIntoLinearOpsPass> {
  void runOnOperation() override {
    if (failed(foldIntoLinearOps(getOperation())))
      signalPassFailure();
  }
};
} // namespace

} // namespace graphc
