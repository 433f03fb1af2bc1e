//===- FormQuantizedRegions.cpp - linear ops on the quantized values ------===//
//
// A QDQ model (onnxruntime's quantizer, ModelOpt, torch.ao) writes each
// quantized linear op as float ops on dequantized operands:
//   MatMul(DequantizeLinear(a, sa), DequantizeLinear(b, sb))
// Run as written, the 8-bit values are widened to float and the product
// runs in float: quantization saves nothing. With zero points of zero,
//   sum_k (a_mk sa)(b_kn sb_n) = sa sb_n sum_k a_mk b_kn
// so the product is computed on the stored 8-bit values, accumulated wide
// (graph.quantized_mat_mul / graph.quantized_conv: int8 tensor-core GEMMs
// and convolutions), and the scales move into the epilogue: a multiply by
// one constant per output column (channel), which fusion joins to the
// bias, activation and QuantizeLinear that follow. The weights stay
// stored quantized (the artifact shrinks 4x), already in the [N, K] layout
// the tensor-core GEMMs read. A QuantizeLinear of a DequantizeLinear with
// the same scale and zero point returns the stored value and goes. Data
// movement (Gather, Reshape, Transpose, ...) of a value dequantized per
// tensor moves the stored values first: the quantizers' QuantizeLinear
// after it then cancels, and an embedding table stays 8-bit.
//
// Rewritten are MatMul, Gemm and Conv whose operands are both dequantized:
// int8 or uint8 with zero points that are constant zeros, or float8 e4m3fn
// (the mul of a cast the importer makes of its DequantizeLinear), the
// activation's scale per tensor, the weight's per tensor or per output
// column / channel, both constants. Anything else stays float, and the
// compile report names its node with the reason.
//
// Runs first, before the simplify phase folds a weight's dequantization
// into a float constant (the importer leaves those unfolded).
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

#include <cstring>

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_FORMQUANTIZEDREGIONS
#include "passes/Passes.h.inc"

namespace {

RankedTensorType rankedOf(Value value) {
  return dyn_cast<RankedTensorType>(value.getType());
}

/// The constant `value` holds, or null.
ElementsAttr constantOf(Value value) {
  ElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return nullptr;
  return attr;
}

/// Whether `value` is a constant whose every byte is zero (an integer zero
/// point of zeros).
bool isZeroConstant(Value value) {
  ElementsAttr attr = constantOf(value);
  if (!attr)
    return false;
  FailureOr<std::vector<char>> bytes = graph::constantBytes(attr);
  return succeeded(bytes) &&
         llvm::all_of(*bytes, [](char byte) { return byte == 0; });
}

/// `attr`'s elements as doubles (a float constant), or nullopt.
std::optional<std::vector<double>> floatsOf(ElementsAttr attr) {
  if (!attr || !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  std::vector<double> values;
  for (APFloat value : attr.getValues<APFloat>())
    values.push_back(value.convertToDouble() == value.convertToDouble()
                         ? value.convertToDouble()
                         : 0.0);
  return values;
}

/// A dequantized operand: the stored 8-bit value, its constant scale as
/// DequantizeLinear broadcasts it against `stored`, and the ops that
/// dequantize it (erased once unused).
struct Dequantized {
  Value stored;
  ElementsAttr scale;
};

/// `value` as a dequantization of an 8-bit value with a constant scale and
/// no zero point (see the file comment), or nullopt with `why` set.
std::optional<Dequantized> dequantized(Value value, std::string &why) {
  if (auto dq = value.getDefiningOp<graph::DequantizeLinearOp>()) {
    Type element = rankedOf(dq.getX()).getElementType();
    if (!element.isSignlessInteger(8) && !element.isUnsignedInteger(8)) {
      why = "the stored values are not 8-bit";
      return std::nullopt;
    }
    if (!isZeroConstant(dq.getZeroPoint())) {
      why = "the zero point is not a constant zero";
      return std::nullopt;
    }
    ElementsAttr scale = constantOf(dq.getScale());
    if (!scale) {
      why = "the scale is computed at run time";
      return std::nullopt;
    }
    return Dequantized{dq.getX(), scale};
  }
  // The importer's e4m3fn DequantizeLinear: mul(cast(x, f32), scale),
  // perhaps cast to the scale's type after.
  Value product = value;
  if (auto cast = value.getDefiningOp<graph::CastOp>())
    product = cast.getInput();
  if (auto mul = product.getDefiningOp<graph::MulOp>()) {
    for (auto [castSide, scaleSide] :
         {std::pair(mul.getLhs(), mul.getRhs()),
          std::pair(mul.getRhs(), mul.getLhs())}) {
      auto widen = castSide.getDefiningOp<graph::CastOp>();
      if (!widen ||
          !isa<Float8E4M3FNType>(rankedOf(widen.getInput()).getElementType()))
        continue;
      ElementsAttr scale = constantOf(scaleSide);
      if (!scale) {
        why = "the scale is computed at run time";
        return std::nullopt;
      }
      return Dequantized{widen.getInput(), scale};
    }
  }
  why = "an operand is not dequantized";
  return std::nullopt;
}

/// The one scale of a per-tensor `scale` (all its elements equal), or
/// nullopt.
std::optional<double> perTensor(ElementsAttr scale) {
  std::optional<std::vector<double>> values = floatsOf(scale);
  if (!values || values->empty())
    return std::nullopt;
  for (double value : *values)
    if (value != values->front())
      return std::nullopt;
  return values->front();
}

/// The scale per index along dim `axis` of a `rank`-d tensor with `count`
/// entries there, when `scale` (DequantizeLinear's, broadcast against that
/// tensor) varies along no other dim; nullopt otherwise.
std::optional<std::vector<double>> perAxis(ElementsAttr scale, int64_t rank,
                                           int64_t axis, int64_t count) {
  std::optional<std::vector<double>> values = floatsOf(scale);
  auto type = cast<ShapedType>(scale.getType());
  if (!values || type.getRank() > rank)
    return std::nullopt;
  // The scale's dims, aligned to the tensor's trailing dims.
  int64_t offset = rank - type.getRank();
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d + offset != axis && type.getDimSize(d) != 1)
      return std::nullopt;
  int64_t along = axis >= offset ? type.getDimSize(axis - offset) : 1;
  if (along == 1)
    return std::vector<double>(count, values->front());
  if (along != count)
    return std::nullopt;
  return values;
}

/// A float constant of `type` holding `values`.
Value floatConstant(OpBuilder &b, Location loc, RankedTensorType type,
                    ArrayRef<double> values) {
  SmallVector<APFloat> elements;
  const llvm::fltSemantics &semantics =
      cast<FloatType>(type.getElementType()).getFloatSemantics();
  for (double value : values) {
    APFloat element(value);
    bool lost = false;
    element.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
    elements.push_back(element);
  }
  auto attr = DenseElementsAttr::get(type, elements);
  return b.create<graph::ConstantOp>(loc, type, cast<ElementsAttr>(attr));
}

/// `stored` (a rank-2 [K, N] 8-bit value) as [N, K]: a constant transposed
/// now, in its own bytes; anything else through a graph.transpose.
Value transposedMatrix(OpBuilder &b, Location loc, Value stored) {
  RankedTensorType type = rankedOf(stored);
  int64_t rank = type.getRank();
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d + 2 < rank; ++d)
    perm.push_back(d);
  perm.push_back(rank - 1);
  perm.push_back(rank - 2);
  if (auto transpose = stored.getDefiningOp<graph::TransposeOp>();
      transpose && ArrayRef<int64_t>(graph::transposePermutation(transpose)) ==
                       ArrayRef<int64_t>(perm))
    return transpose.getData();
  ElementsAttr constant = constantOf(stored);
  if (constant && rank == 2 && type.hasStaticShape()) {
    FailureOr<std::vector<char>> bytes = graph::constantBytes(constant);
    int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
    if (succeeded(bytes) &&
        bytes->size() == static_cast<size_t>(rows * columns)) {
      std::vector<char> moved(bytes->size());
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < columns; ++c)
          moved[c * rows + r] = (*bytes)[r * columns + c];
      auto movedType = RankedTensorType::get({columns, rows},
                                             type.getElementType());
      ElementsAttr attr = graph::constantFromBytes(movedType, moved);
      if (attr)
        return b.create<graph::ConstantOp>(
            graph::withoutTensorNames(stored.getLoc()), movedType, attr);
    }
  }
  return b.create<graph::TransposeOp>(loc, stored,
                                      b.getDenseI64ArrayAttr(perm));
}

/// Whether `a` and `b` are one 8-bit family: both integers, or both e4m3fn.
bool sameFamily(Value a, Value b) {
  return isa<Float8E4M3FNType>(rankedOf(a).getElementType()) ==
         isa<Float8E4M3FNType>(rankedOf(b).getElementType());
}

/// The epilogue that turns the accumulator `acc` into the linear op's
/// float result of type `resultType`: acc (in f32) times `scale` (one per
/// column / channel, shaped to broadcast), then in the result's type.
/// `loc` goes to the last op, which computes the linear op's value.
Value rescale(OpBuilder &b, Location loc, Value acc, Value scale,
              RankedTensorType resultType) {
  Type f32 = b.getF32Type();
  Location inner = graph::withoutTensorNames(loc);
  bool narrow = resultType.getElementType() != f32;
  Value wide = acc;
  if (rankedOf(acc).getElementType() != f32)
    wide = b.create<graph::CastOp>(inner, acc, f32);
  Value scaled = b.create<graph::MulOp>(narrow ? inner : loc, wide, scale);
  if (narrow)
    scaled = b.create<graph::CastOp>(loc, scaled, resultType.getElementType());
  return scaled;
}

class FormQuantizedRegionsPass
    : public impl::FormQuantizedRegionsBase<FormQuantizedRegionsPass> {
public:
  using FormQuantizedRegionsBase::FormQuantizedRegionsBase;
  explicit FormQuantizedRegionsPass(QuantizationReport *report)
      : report(report) {}

  void runOnOperation() override {
    SmallVector<Operation *> linear;
    getOperation()->walk([&](Operation *op) {
      if (isa<graph::MatMulOp, graph::GemmOp, graph::ConvOp>(op))
        linear.push_back(op);
    });
    QuantizationReport done;
    moveDataBeforeDequantizing();
    for (Operation *op : linear) {
      std::string why;
      bool float8 = false, conv = isa<graph::ConvOp>(op);
      LogicalResult rewritten = failure();
      if (auto matmul = dyn_cast<graph::MatMulOp>(op))
        rewritten = rewriteMatMul(matmul, why, float8);
      else if (auto gemm = dyn_cast<graph::GemmOp>(op))
        rewritten = rewriteGemm(gemm, why, float8);
      else
        rewritten = rewriteConv(cast<graph::ConvOp>(op), why);
      if (succeeded(rewritten)) {
        ++(conv     ? done.integerConvs
           : float8 ? done.float8Products
                    : done.integerProducts);
        continue;
      }
      // Ops with no dequantized operand were never quantized: only those
      // with one are worth a word.
      if (why.empty())
        continue;
      SmallVector<StringAttr> names;
      graph::collectNodeNames(op->getLoc(), names);
      for (StringAttr name : names)
        done.floatNodes.emplace(name.str(), why);
    }
    cancelRequantizations();
    eraseDeadDequantizations();
    if (report)
      *report = std::move(done);
  }

private:
  QuantizationReport *report = nullptr;

  /// Whether `op` reads a dequantized value at all (else it was never
  /// quantized and no reason is recorded).
  static bool readsDequantized(Operation *op) {
    return llvm::any_of(op->getOperands(), [](Value operand) {
      std::string ignored;
      return operand && (operand.getDefiningOp<graph::DequantizeLinearOp>() ||
                         dequantized(operand, ignored));
    });
  }

  /// The operands of a product A [.., M, K] x B: both dequantized, of one
  /// family, A's scale per tensor; nullopt with `why` otherwise.
  static std::optional<std::pair<Dequantized, Dequantized>>
  operandsOf(Operation *op, Value a, Value b, std::string &why) {
    if (!readsDequantized(op))
      return std::nullopt;
    std::optional<Dequantized> qa = dequantized(a, why);
    if (!qa)
      return std::nullopt;
    std::optional<Dequantized> qb = dequantized(b, why);
    if (!qb)
      return std::nullopt;
    if (!sameFamily(qa->stored, qb->stored)) {
      why = "one operand is float8 and the other an integer";
      return std::nullopt;
    }
    return std::pair(*qa, *qb);
  }

  /// `factor * sa * sb[n]` for each of the `count` columns (output
  /// channels) along dim `axis` of the weight `b`'s `rank` dims: one
  /// constant per column rescales the product of the stored values. Nullopt
  /// with `why` unless A's scale is per tensor and the weight's (`name`)
  /// varies along that dim only.
  static std::optional<std::vector<double>>
  combinedScales(const Dequantized &a, const Dequantized &b, int64_t rank,
                 int64_t axis, int64_t count, double factor, StringRef name,
                 std::string &why) {
    std::optional<double> sa = perTensor(a.scale);
    if (!sa) {
      why = "the activation's scale is not per tensor";
      return std::nullopt;
    }
    std::optional<std::vector<double>> sb = perAxis(b.scale, rank, axis, count);
    if (!sb) {
      why = (name + "'s scale varies along other dims than its output "
                    "columns or channels")
                .str();
      return std::nullopt;
    }
    for (double &column : *sb)
      column *= factor * *sa;
    return sb;
  }

  /// quantized_mat_mul(a, bNK) (B stored [N, K]) rescaled by one constant
  /// per column into `resultType`; `loc` goes to the last op.
  static Value scaledProduct(OpBuilder &b, Location loc, Value a, Value bNK,
                             ArrayRef<double> scales,
                             RankedTensorType resultType) {
    Location inner = graph::withoutTensorNames(loc);
    auto product =
        b.create<graph::QuantizedMatMulOp>(inner, a, bNK, /*trans_b=*/1);
    int64_t n = static_cast<int64_t>(scales.size());
    Value scaleValue = floatConstant(
        b, inner, RankedTensorType::get({n}, b.getF32Type()), scales);
    return rescale(b, loc, product.getY(), scaleValue, resultType);
  }

  /// mat_mul(DQ(a), DQ(b)) with A of rank >= 2 and B of rank 2 (a weight)
  /// or A's (attention's products).
  LogicalResult rewriteMatMul(graph::MatMulOp op, std::string &why,
                              bool &float8) {
    auto operands = operandsOf(op, op.getA(), op.getB(), why);
    if (!operands)
      return failure();
    auto [qa, qb] = *operands;
    float8 = isa<Float8E4M3FNType>(rankedOf(qa.stored).getElementType());
    RankedTensorType aType = rankedOf(qa.stored), bType = rankedOf(qb.stored);
    RankedTensorType resultType = rankedOf(op.getY());
    if (aType.getRank() < 2 ||
        (bType.getRank() != 2 && bType.getRank() != aType.getRank())) {
      why = "a matrix-vector or broadcast product";
      return failure();
    }
    int64_t n = bType.getDimSize(bType.getRank() - 1);
    if (ShapedType::isDynamic(n)) {
      why = "the number of columns is dynamic";
      return failure();
    }
    std::optional<std::vector<double>> scales = combinedScales(
        qa, qb, bType.getRank(), bType.getRank() - 1, n, 1.0, "B", why);
    if (!scales)
      return failure();
    OpBuilder b(op);
    Location loc = graph::withoutTensorNames(op.getLoc());
    Value bT = transposedMatrix(b, loc, qb.stored);
    Value result =
        scaledProduct(b, op.getLoc(), qa.stored, bT, *scales, resultType);
    op.getY().replaceAllUsesWith(result);
    eraseRewritten(op);
    return success();
  }

  /// gemm(DQ(a), DQ(b), c): alpha folds into the scale, beta * C is added.
  LogicalResult rewriteGemm(graph::GemmOp op, std::string &why,
                            bool &float8) {
    auto operands = operandsOf(op, op.getA(), op.getB(), why);
    if (!operands)
      return failure();
    auto [qa, qb] = *operands;
    float8 = isa<Float8E4M3FNType>(rankedOf(qa.stored).getElementType());
    if (op.getTransA() != 0) {
      why = "A is transposed";
      return failure();
    }
    RankedTensorType bType = rankedOf(qb.stored);
    RankedTensorType resultType = rankedOf(op.getY());
    bool transB = op.getTransB() != 0;
    int64_t columnAxis = transB ? 0 : 1;
    int64_t n = bType.getDimSize(columnAxis);
    if (ShapedType::isDynamic(n)) {
      why = "the number of columns is dynamic";
      return failure();
    }
    double alpha = op.getAlphaAttr().getValueAsDouble();
    double beta = op.getBetaAttr().getValueAsDouble();
    std::optional<std::vector<double>> scales =
        combinedScales(qa, qb, 2, columnAxis, n, alpha, "B", why);
    if (!scales)
      return failure();
    OpBuilder b(op);
    Location loc = graph::withoutTensorNames(op.getLoc());
    Value bNK = transB ? qb.stored : transposedMatrix(b, loc, qb.stored);
    Value c = op.getC();
    Value result = scaledProduct(b, c && beta != 0.0 ? loc : op.getLoc(),
                                 qa.stored, bNK, *scales, resultType);
    if (c && beta != 0.0) {
      if (beta != 1.0) {
        RankedTensorType cType = rankedOf(c);
        Value betaValue = floatConstant(
            b, loc, RankedTensorType::get({}, cType.getElementType()), {beta});
        c = b.create<graph::MulOp>(loc, c, betaValue);
      }
      result = b.create<graph::AddOp>(op.getLoc(), result, c);
    }
    op.getY().replaceAllUsesWith(result);
    eraseRewritten(op);
    return success();
  }

  /// conv(DQ(x), DQ(w), bias) on integers: the scale per output channel,
  /// then the bias.
  LogicalResult rewriteConv(graph::ConvOp op, std::string &why) {
    auto operands = operandsOf(op, op.getX(), op.getW(), why);
    if (!operands)
      return failure();
    auto [qx, qw] = *operands;
    if (isa<Float8E4M3FNType>(rankedOf(qx.stored).getElementType())) {
      why = "float8 convolutions are not quantized";
      return failure();
    }
    if (op.getChannelsLast() != 0) {
      why = "the convolution is channels last";
      return failure();
    }
    RankedTensorType wType = rankedOf(qw.stored);
    RankedTensorType resultType = rankedOf(op.getY());
    int64_t m = wType.getDimSize(0), rank = wType.getRank();
    if (ShapedType::isDynamic(m)) {
      why = "the number of output channels is dynamic";
      return failure();
    }
    std::optional<std::vector<double>> scales =
        combinedScales(qx, qw, rank, 0, m, 1.0, "W", why);
    if (!scales)
      return failure();
    OpBuilder b(op);
    Location loc = graph::withoutTensorNames(op.getLoc());
    SmallVector<NamedAttribute> attributes(op->getAttrs());
    auto product = b.create<graph::QuantizedConvOp>(
        loc, ValueRange{qx.stored, qw.stored}, attributes);
    // [1, M, 1, ...]: the scale of each output channel, of the result's rank
    // (a channels-last layout transposes it with the result).
    SmallVector<int64_t> channelShape(rank, 1);
    channelShape[1] = m;
    Value scaleValue = floatConstant(
        b, loc, RankedTensorType::get(channelShape, b.getF32Type()), *scales);
    Value bias = op.getB();
    Value result = rescale(b, bias ? loc : op.getLoc(), product.getY(),
                           scaleValue, resultType);
    if (bias) {
      SmallVector<int64_t> shape(channelShape);
      auto shapeType =
          RankedTensorType::get({rank}, b.getI64Type());
      Value shapeValue = b.create<graph::ConstantOp>(
          loc, shapeType,
          cast<ElementsAttr>(DenseElementsAttr::get(shapeType,
                                                    ArrayRef<int64_t>(shape))));
      Value channelBias = b.create<graph::ReshapeOp>(loc, bias, shapeValue);
      result = b.create<graph::AddOp>(op.getLoc(), result, channelBias);
    }
    op.getY().replaceAllUsesWith(result);
    eraseRewritten(op);
    return success();
  }

  /// op(dequantize_linear(x, s, z), ...) -> dequantize_linear(op(x, ...), s,
  /// z) for data movement `op` (gather, reshape, transpose, squeeze,
  /// unsqueeze, flatten) and a per-tensor s and z: the 8-bit values move,
  /// a quarter of the bytes. A gathered embedding table stays 8-bit in the
  /// artifact and a run dequantizes only the rows it reads; the
  /// QuantizeLinear quantizers write after such an op then meets the
  /// DequantizeLinear it cancels, and a linear op reads a dequantization.
  void moveDataBeforeDequantizing() {
    SmallVector<Operation *> moves;
    getOperation()->walk([&](Operation *op) {
      if (isa<graph::GatherOp, graph::ReshapeOp, graph::TransposeOp,
              graph::SqueezeOp, graph::UnsqueezeOp, graph::FlattenOp>(op))
        moves.push_back(op);
    });
    for (Operation *op : moves) {
      auto dq = op->getOperand(0).getDefiningOp<graph::DequantizeLinearOp>();
      RankedTensorType result = rankedOf(op->getResult(0));
      auto perTensorOperand = [&](Value value) {
        RankedTensorType type = rankedOf(value);
        return type.hasStaticShape() && type.getNumElements() == 1 &&
               type.getRank() <= result.getRank();
      };
      if (!dq || !perTensorOperand(dq.getScale()) ||
          !perTensorOperand(dq.getZeroPoint()))
        continue;
      OpBuilder b(op);
      Operation *moved = b.clone(*op);
      moved->setLoc(graph::withoutTensorNames(op->getLoc()));
      moved->setOperand(0, dq.getX());
      moved->getResult(0).setType(
          result.clone(rankedOf(dq.getX()).getElementType()));
      Value dequantized = b.create<graph::DequantizeLinearOp>(
          op->getLoc(), moved->getResult(0), dq.getScale(), dq.getZeroPoint());
      op->getResult(0).replaceAllUsesWith(dequantized);
      eraseRewritten(op);
    }
  }

  /// quantize_linear(dequantize_linear(q, s, z), s, z) -> q: the same scale
  /// and zero point return the stored value exactly.
  void cancelRequantizations() {
    SmallVector<graph::QuantizeLinearOp> quantizes;
    getOperation()->walk(
        [&](graph::QuantizeLinearOp op) { quantizes.push_back(op); });
    for (graph::QuantizeLinearOp q : quantizes) {
      auto dq = q.getX().getDefiningOp<graph::DequantizeLinearOp>();
      if (!dq || dq.getX().getType() != q.getOutput().getType() ||
          !sameConstant(dq.getScale(), q.getScale()) ||
          !sameConstant(dq.getZeroPoint(), q.getZeroPoint()))
        continue;
      q.getOutput().replaceAllUsesWith(dq.getX());
      eraseRewritten(q);
    }
  }

  static bool sameConstant(Value a, Value b) {
    if (a == b)
      return true;
    ElementsAttr ca = constantOf(a), cb = constantOf(b);
    return ca && cb && ca == cb;
  }

  /// Erases `op`, a rewritten op, and remembers what it read: the
  /// dequantizations only it used go too.
  void eraseRewritten(Operation *op) {
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        maybeDead.insert(def);
    maybeDead.remove(op);
    op->erase();
  }

  /// The dequantizing ops (and what only they read) that the rewrites left
  /// unused; nothing else of the model is touched.
  void eraseDeadDequantizations() {
    while (!maybeDead.empty()) {
      Operation *op = maybeDead.pop_back_val();
      if (!op->use_empty() ||
          !isa<graph::DequantizeLinearOp, graph::CastOp, graph::MulOp,
               graph::TransposeOp, graph::ConstantOp>(op))
        continue;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          maybeDead.insert(def);
      op->erase();
    }
  }

  llvm::SetVector<Operation *> maybeDead;
};

} // namespace

std::unique_ptr<Pass> createFormQuantizedRegions(QuantizationReport *report) {
  return std::make_unique<FormQuantizedRegionsPass>(report);
}

} // namespace graphc
