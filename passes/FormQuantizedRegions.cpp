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
// An activation's zero point za (asymmetric quantization, onnxruntime's
// default) is undone in the integers:
//   sum_k (a_mk - za) b_kn = sum_k a_mk b_kn - za sum_k b_kn
// where the weight's column sums are constants: one int32 added per column
// before the rescale. A convolution's padding is the float 0, the stored
// za: an explicit pad writes it. uint8 activations against int8 weights
// shift by -128 to int8 with their zero point (exact; the QuantizeLinear
// that writes them writes int8 instead), so that the product is the
// int8 x int8 the tensor cores and libraries take.
//
// Rewritten are MatMul, Gemm and Conv whose operands are both dequantized:
// int8 or uint8 with constant zero points, one per tensor for the first
// operand and zero for the weight, or float8 e4m3fn (the mul of a cast the
// importer makes of its DequantizeLinear), the activation's scale per
// tensor, the weight's per tensor or per output column / channel, both
// constants. Anything else stays float, and the compile report names its
// node with the reason.
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

/// The one value of the integer constant `value` (a zero point), or
/// nullopt when it is not a constant or its elements differ.
std::optional<int64_t> uniformInteger(Value value) {
  ElementsAttr attr = constantOf(value);
  auto type = attr ? dyn_cast<IntegerType>(attr.getElementType()) : nullptr;
  if (!type || type.getWidth() % 8 != 0 || type.getWidth() > 64)
    return std::nullopt;
  FailureOr<std::vector<char>> bytes = graph::constantBytes(attr);
  size_t width = type.getWidth() / 8;
  if (failed(bytes) || bytes->empty() || bytes->size() % width != 0)
    return std::nullopt;
  for (size_t i = width; i < bytes->size(); i += width)
    if (std::memcmp(bytes->data(), bytes->data() + i, width) != 0)
      return std::nullopt;
  // Little-endian, sign- or zero-extended from its width.
  uint64_t raw = 0;
  std::memcpy(&raw, bytes->data(), width);
  APInt element(type.getWidth(), raw);
  return type.isUnsigned() ? int64_t(element.getZExtValue())
                           : element.getSExtValue();
}

/// A dequantized operand: the stored 8-bit value, its constant scale as
/// DequantizeLinear broadcasts it against `stored`, and its zero point,
/// one for the whole tensor.
struct Dequantized {
  Value stored;
  ElementsAttr scale;
  int64_t zeroPoint = 0;
};

/// A zero point as a product reads it: a value known now, or an int32
/// scalar computed at run time (MatMulInteger of DynamicQuantizeLinear).
struct ZeroPoint {
  int64_t known = 0;
  Value runTime;
  bool isZero() const { return !runTime && known == 0; }
};

/// `value` as a dequantization of an 8-bit value with a constant scale and
/// a constant zero point, zero or one for the whole tensor (see the file
/// comment), or nullopt with `why` set.
std::optional<Dequantized> dequantized(Value value, std::string &why) {
  if (auto dq = value.getDefiningOp<graph::DequantizeLinearOp>()) {
    Type element = rankedOf(dq.getX()).getElementType();
    if (!element.isSignlessInteger(8) && !element.isUnsignedInteger(8)) {
      why = "the stored values are not 8-bit";
      return std::nullopt;
    }
    std::optional<int64_t> zeroPoint = 0;
    if (dq.getZeroPoint() && !isZeroConstant(dq.getZeroPoint()))
      zeroPoint = uniformInteger(dq.getZeroPoint());
    if (!zeroPoint) {
      why = "the zero point is computed at run time or varies along the "
            "tensor";
      return std::nullopt;
    }
    ElementsAttr scale = constantOf(dq.getScale());
    if (!scale) {
      why = "the scale is computed at run time";
      return std::nullopt;
    }
    return Dequantized{dq.getX(), scale, *zeroPoint};
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

/// An integer constant of `type` holding `values` (one per element, or one
/// for all), each wrapped to the element type's width.
Value integerConstant(OpBuilder &b, Location loc, RankedTensorType type,
                      ArrayRef<int64_t> values) {
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  SmallVector<APInt> elements;
  for (int64_t value : values)
    elements.push_back(APInt(64, static_cast<uint64_t>(value)).trunc(width));
  auto attr = DenseElementsAttr::get(type, elements);
  return b.create<graph::ConstantOp>(loc, type, cast<ElementsAttr>(attr));
}

/// The sums of the 8-bit integer constant `stored` over all its dims but
/// `axis`, one per index along `axis`; nullopt unless it is such a
/// constant of static shape. With the zero point `za` of the other operand,
/// `-za * sums[n]` is what the zero point takes from column (channel) n.
std::optional<std::vector<int64_t>> sumsAlong(Value stored, int64_t axis) {
  ElementsAttr attr = constantOf(stored);
  RankedTensorType type = rankedOf(stored);
  if (!attr || !type.hasStaticShape() || !type.getElementType().isInteger(8))
    return std::nullopt;
  FailureOr<std::vector<char>> bytes = graph::constantBytes(attr);
  if (failed(bytes) ||
      bytes->size() != static_cast<size_t>(type.getNumElements()))
    return std::nullopt;
  bool isUnsigned = type.getElementType().isUnsignedInteger();
  int64_t count = type.getDimSize(axis), inner = 1;
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= type.getDimSize(d);
  std::vector<int64_t> sums(count, 0);
  for (size_t i = 0; i < bytes->size(); ++i) {
    char byte = (*bytes)[i];
    sums[(i / inner) % count] += isUnsigned
                                     ? int64_t(static_cast<uint8_t>(byte))
                                     : int64_t(static_cast<int8_t>(byte));
  }
  return sums;
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
        rewritten = rankedOf(matmul.getY()).getElementType().isInteger(32)
                        ? rewriteIntegerMatMul(matmul)
                        : rewriteMatMul(matmul, why, float8);
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

  /// Whether `operand` is uint8, which a product reads as int8 shifted from
  /// it (see shiftedToSigned); a convolution does only against an int8
  /// weight.
  static bool shiftsToSigned(Value operand) {
    return rankedOf(operand).getElementType().isUnsignedInteger(8);
  }

  /// `stored` (uint8) minus 128 as int8, exact: sum (a - za) b is
  /// unchanged when a and za both shift. A constant shifts now; a
  /// QuantizeLinear writing it (per tensor) writes int8 with its zero point
  /// shifted instead; other values shift through a pointwise op. One
  /// shifted value per stored one.
  Value shiftedToSigned(OpBuilder &b, Location loc, Value stored) {
    Value &shifted = shiftedValues[stored];
    if (shifted)
      return shifted;
    OpBuilder::InsertionGuard guard(b);
    Type i8 = b.getIntegerType(8);
    RankedTensorType signedType = rankedOf(stored).clone(i8);
    if (ElementsAttr constant = constantOf(stored)) {
      FailureOr<std::vector<char>> bytes = graph::constantBytes(constant);
      ElementsAttr moved;
      if (succeeded(bytes)) {
        for (char &byte : *bytes)
          byte = static_cast<char>(static_cast<uint8_t>(byte) ^ 0x80);
        moved = graph::constantFromBytes(signedType, *bytes);
      }
      if (moved) {
        shifted = b.create<graph::ConstantOp>(
            graph::withoutTensorNames(stored.getLoc()), signedType, moved);
        return shifted;
      }
    }
    auto q = stored.getDefiningOp<graph::QuantizeLinearOp>();
    std::optional<int64_t> zq =
        q ? uniformInteger(q.getZeroPoint()) : std::nullopt;
    if (q && zq) {
      b.setInsertionPointAfter(q);
      auto zpType =
          RankedTensorType::get(rankedOf(q.getZeroPoint()).getShape(), i8);
      Value zp = integerConstant(
          b, loc, zpType,
          std::vector<int64_t>(zpType.getNumElements(), *zq - 128));
      shifted = b.create<graph::QuantizeLinearOp>(
          graph::withoutTensorNames(q.getLoc()), q.getX(), q.getScale(), zp,
          q.getSaturate());
      return shifted;
    }
    if (Operation *def = stored.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(cast<BlockArgument>(stored).getOwner());
    Type i16 = b.getIntegerType(16);
    Value wide = b.create<graph::CastOp>(loc, stored, i16);
    Value offset =
        integerConstant(b, loc, RankedTensorType::get({}, i16), {128});
    Value moved = b.create<graph::SubOp>(loc, wide, offset);
    shifted = b.create<graph::CastOp>(loc, moved, i8);
    return shifted;
  }

  /// `operand`'s stored values as a product reads them: shifted to int8
  /// when `shift`.
  Value productOperand(OpBuilder &b, Location loc, const Dequantized &operand,
                       bool shift) {
    return shift ? shiftedToSigned(b, loc, operand.stored) : operand.stored;
  }

  /// `operand`'s zero point as a product reads it (see productOperand).
  static int64_t productZeroPoint(const Dequantized &operand, bool shift) {
    return shift ? operand.zeroPoint - 128 : operand.zeroPoint;
  }

  /// A known zero point.
  static ZeroPoint knownZeroPoint(int64_t value) {
    ZeroPoint zeroPoint;
    zeroPoint.known = value;
    return zeroPoint;
  }

  /// The int32 sums of `value` along `axis`, computed at run time.
  static Value runTimeSums(OpBuilder &b, Location loc, Value value,
                           int64_t axis, bool keepdims) {
    Value wide = b.create<graph::CastOp>(loc, value, b.getI32Type());
    Value axes = integerConstant(
        b, loc, RankedTensorType::get({1}, b.getI64Type()), {axis});
    return b.create<graph::ReduceSumOp>(
        loc, wide, axes, b.getI64IntegerAttr(keepdims), b.getI64IntegerAttr(0));
  }

  /// An int32 scalar constant.
  static Value int32Scalar(OpBuilder &b, Location loc, int64_t value) {
    return integerConstant(b, loc, RankedTensorType::get({}, b.getI32Type()),
                           {value});
  }

  /// Whether `corrected` can undo zero points `za` and `zb` of a product
  /// of A [.., M, K]: both need K (else `why` says so).
  static bool correctable(Value a, ZeroPoint za, ZeroPoint zb,
                          std::string &why) {
    RankedTensorType aType = rankedOf(a);
    if (!za.isZero() && !zb.isZero() &&
        ShapedType::isDynamic(aType.getDimSize(aType.getRank() - 1))) {
      why = "both operands have zero points and K is dynamic";
      return false;
    }
    return true;
  }

  /// acc - sums * z: a known z folds into the factor -z; a run-time one is
  /// multiplied and subtracted.
  static Value subtractScaled(OpBuilder &b, Location loc, Value acc, Value sums,
                              ZeroPoint z) {
    if (!z.runTime) {
      Value factor = int32Scalar(b, loc, -z.known);
      Value term = b.create<graph::MulOp>(loc, sums, factor);
      return b.create<graph::AddOp>(loc, acc, term);
    }
    Value term = b.create<graph::MulOp>(loc, sums, z.runTime);
    return b.create<graph::SubOp>(loc, acc, term);
  }

  /// The accumulator of a product of A [.., M, K] and B with their zero
  /// points undone (see correctable):
  ///   sum_k (a - za)(b - zb) = acc - zb rowsum(A) - za colsum(B) + K za zb
  /// A's row sums (a reduction at run time) come [.., M, 1]; B's column
  /// sums (along all dims but `columnAxis`) are one constant per column
  /// when B is a rank-2 constant (times a known za: one constant), else
  /// `columnSums` computes them at run time, shaped to broadcast as
  /// [.., 1, N] or [N].
  static Value corrected(OpBuilder &b, Location loc, Value acc, Value a,
                         Value bValue, ZeroPoint za, ZeroPoint zb,
                         int64_t columnAxis,
                         llvm::function_ref<Value()> columnSums) {
    RankedTensorType aType = rankedOf(a);
    int64_t k = aType.getDimSize(aType.getRank() - 1);
    if (!zb.isZero()) {
      Value rows = runTimeSums(b, loc, a, aType.getRank() - 1, true);
      acc = subtractScaled(b, loc, acc, rows, zb);
    }
    if (!za.isZero()) {
      std::optional<std::vector<int64_t>> sums;
      if (rankedOf(bValue).getRank() == 2)
        sums = sumsAlong(bValue, columnAxis);
      int64_t n = sums ? static_cast<int64_t>(sums->size()) : 0;
      auto columnType = RankedTensorType::get({n}, b.getI32Type());
      if (sums && !za.runTime) {
        for (int64_t &sum : *sums)
          sum *= -za.known;
        Value term = integerConstant(b, loc, columnType, *sums);
        acc = b.create<graph::AddOp>(loc, acc, term);
      } else {
        Value columns =
            sums ? integerConstant(b, loc, columnType, *sums) : columnSums();
        acc = subtractScaled(b, loc, acc, columns, za);
      }
    }
    if (!za.isZero() && !zb.isZero()) {
      if (!za.runTime && !zb.runTime) {
        acc = b.create<graph::AddOp>(
            loc, acc, int32Scalar(b, loc, k * za.known * zb.known));
      } else {
        auto valueOf = [&](ZeroPoint z) {
          return z.runTime ? z.runTime : int32Scalar(b, loc, z.known);
        };
        Value zaValue = valueOf(za);
        Value zbValue = valueOf(zb);
        Value kValue = int32Scalar(b, loc, k);
        Value both = b.create<graph::MulOp>(loc, zaValue, zbValue);
        Value term = b.create<graph::MulOp>(loc, both, kValue);
        acc = b.create<graph::AddOp>(loc, acc, term);
      }
    }
    return acc;
  }

  /// quantized_mat_mul of `a` [.., M, K] and `bValue` ([.., K, N], or
  /// [N, K] when `transB`, a Gemm's) with the zero points undone (see
  /// corrected).
  static Value correctedProduct(OpBuilder &b, Location loc, Value a,
                                Value bValue, bool transB, ZeroPoint za,
                                ZeroPoint zb) {
    int64_t rank = rankedOf(bValue).getRank();
    Value bNK = transB ? bValue : transposedMatrix(b, loc, bValue);
    Value product =
        b.create<graph::QuantizedMatMulOp>(loc, a, bNK, /*trans_b=*/1);
    int64_t columnAxis = transB ? rank - 2 : rank - 1;
    return corrected(b, loc, product, a, bValue, za, zb, columnAxis, [&] {
      return transB ? runTimeSums(b, loc, bValue, rank - 1, /*keepdims=*/false)
                    : runTimeSums(b, loc, bValue, rank - 2, /*keepdims=*/true);
    });
  }

  /// The corrected accumulator of the product of the dequantized `qa` and
  /// `qb` (B laid out as for correctedProduct), built before `op`; nullopt
  /// with `why`, and nothing built, when its zero points cannot be undone.
  std::optional<Value> dequantizedProduct(Operation *op, const Dequantized &qa,
                                          const Dequantized &qb, bool transB,
                                          std::string &why) {
    bool shiftA = shiftsToSigned(qa.stored), shiftB = shiftsToSigned(qb.stored);
    ZeroPoint za = knownZeroPoint(productZeroPoint(qa, shiftA));
    ZeroPoint zb = knownZeroPoint(productZeroPoint(qb, shiftB));
    if (!correctable(qa.stored, za, zb, why))
      return std::nullopt;
    OpBuilder b(op);
    Location loc = graph::withoutTensorNames(op->getLoc());
    Value a = productOperand(b, loc, qa, shiftA);
    Value bValue = productOperand(b, loc, qb, shiftB);
    return correctedProduct(b, loc, a, bValue, transB, za, zb);
  }

  /// The float result of type `resultType` of the corrected accumulator
  /// `acc` of a product: one scale per column; `loc` goes to the last op.
  static Value rescaledColumns(OpBuilder &b, Location loc, Value acc,
                               ArrayRef<double> scales,
                               RankedTensorType resultType) {
    int64_t n = static_cast<int64_t>(scales.size());
    Value scaleValue =
        floatConstant(b, graph::withoutTensorNames(loc),
                      RankedTensorType::get({n}, b.getF32Type()), scales);
    return rescale(b, loc, acc, scaleValue, resultType);
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
    int64_t rank = bType.getRank();
    if (aType.getRank() < 2 || (rank != 2 && rank != aType.getRank())) {
      why = "a matrix-vector or broadcast product";
      return failure();
    }
    int64_t n = bType.getDimSize(rank - 1);
    if (ShapedType::isDynamic(n)) {
      why = "the number of columns is dynamic";
      return failure();
    }
    std::optional<std::vector<double>> scales =
        combinedScales(qa, qb, rank, rank - 1, n, 1.0, "B", why);
    if (!scales)
      return failure();
    std::optional<Value> acc = dequantizedProduct(op, qa, qb, false, why);
    if (!acc)
      return failure();
    OpBuilder b(op);
    Value result = rescaledColumns(b, op.getLoc(), *acc, *scales, resultType);
    op.getY().replaceAllUsesWith(result);
    eraseRewritten(op);
    return success();
  }

  /// An operand of an int32 product as the importer writes MatMulInteger's:
  /// cast(x, i32), or cast(x, i32) - cast(z, i32), of 8-bit x and z; or,
  /// where the importer folded a constant weight's cast and zero point, an
  /// int32 constant whose values are int8 (`narrowed`, made an int8
  /// constant by `storedOf`).
  struct Centered {
    Value stored;
    Value zeroPoint;
    std::optional<std::vector<char>> narrowed;
  };

  static Value throughIdentities(Value value) {
    while (auto identity = value.getDefiningOp<graph::IdentityOp>())
      value = identity.getInput();
    return value;
  }

  /// The bytes of the int32 constant `value` as int8, when every element
  /// fits.
  static std::optional<std::vector<char>> int8Bytes(Value value) {
    ElementsAttr attr = constantOf(value);
    RankedTensorType type = rankedOf(value);
    if (!attr || !type.hasStaticShape() ||
        !type.getElementType().isSignlessInteger(32))
      return std::nullopt;
    FailureOr<std::vector<char>> bytes = graph::constantBytes(attr);
    if (failed(bytes) ||
        bytes->size() != static_cast<size_t>(4 * type.getNumElements()))
      return std::nullopt;
    std::vector<char> narrow(type.getNumElements());
    for (size_t i = 0; i < narrow.size(); ++i) {
      int32_t element;
      std::memcpy(&element, bytes->data() + 4 * i, 4);
      if (element < -128 || element > 127)
        return std::nullopt;
      narrow[i] = static_cast<char>(element);
    }
    return narrow;
  }

  static std::optional<Centered> centeredOf(Value value) {
    value = throughIdentities(value);
    if (std::optional<std::vector<char>> narrow = int8Bytes(value))
      return Centered{value, nullptr, std::move(narrow)};
    // The zero point: cast(z, i32) of an 8-bit z, or a constant (a cast
    // the importer folded).
    Value widened = value, zeroPoint;
    if (auto sub = value.getDefiningOp<graph::SubOp>()) {
      Value rhs = throughIdentities(sub.getRhs());
      if (auto zeroCast = rhs.getDefiningOp<graph::CastOp>())
        zeroPoint = throughIdentities(zeroCast.getInput());
      else if (uniformInteger(rhs))
        zeroPoint = rhs;
      else
        return std::nullopt;
      widened = throughIdentities(sub.getLhs());
    }
    auto cast = widened.getDefiningOp<graph::CastOp>();
    if (!cast || !rankedOf(cast.getInput()).getElementType().isInteger(8) ||
        (zeroPoint && !rankedOf(zeroPoint).getElementType().isInteger(8) &&
         !uniformInteger(zeroPoint)))
      return std::nullopt;
    return Centered{throughIdentities(cast.getInput()), zeroPoint,
                    std::nullopt};
  }

  /// The 8-bit values of `operand`: an int8 constant of its narrowed int32
  /// constant, or its stored value.
  static Value storedOf(OpBuilder &b, const Centered &operand) {
    if (!operand.narrowed)
      return operand.stored;
    RankedTensorType type = rankedOf(operand.stored).clone(b.getI8Type());
    ElementsAttr attr = graph::constantFromBytes(type, *operand.narrowed);
    return b.create<graph::ConstantOp>(
        graph::withoutTensorNames(operand.stored.getLoc()), type, attr);
  }

  /// The zero point (one value) of `operand` as a product reads it,
  /// int8-shifted when `shift`: known when a constant, else computed at run
  /// time.
  static ZeroPoint centeredZeroPoint(OpBuilder &b, Location loc,
                                     const Centered &operand, bool shift) {
    int64_t offset = shift ? 128 : 0;
    if (!operand.zeroPoint)
      return knownZeroPoint(-offset);
    if (std::optional<int64_t> known = uniformInteger(operand.zeroPoint))
      return knownZeroPoint(*known - offset);
    ZeroPoint zeroPoint;
    zeroPoint.runTime =
        b.create<graph::CastOp>(loc, operand.zeroPoint, b.getI32Type());
    if (offset)
      zeroPoint.runTime = b.create<graph::SubOp>(loc, zeroPoint.runTime,
                                                 int32Scalar(b, loc, offset));
    return zeroPoint;
  }

  /// MatMulInteger as imported: mat_mul of centered 8-bit operands into
  /// int32 (see centeredOf), with zero points of one value each, constant
  /// or computed at run time (onnxruntime's dynamic quantization:
  /// DynamicQuantizeLinear's uint8 activations and zero point). The same
  /// quantized_mat_mul and corrections as a QDQ product, with no rescale:
  /// the result is the exact int32 the ops compute.
  LogicalResult rewriteIntegerMatMul(graph::MatMulOp op) {
    std::optional<Centered> ca = centeredOf(op.getA());
    std::optional<Centered> cb = centeredOf(op.getB());
    if (!ca || !cb)
      return failure();
    RankedTensorType aType = rankedOf(ca->stored), bType = rankedOf(cb->stored);
    int64_t rank = bType.getRank();
    if (aType.getRank() < 2 || (rank != 2 && rank != aType.getRank()))
      return failure();
    auto oneValue = [](Value zeroPoint) {
      RankedTensorType type = zeroPoint ? rankedOf(zeroPoint) : nullptr;
      return !type || (type.hasStaticShape() && type.getNumElements() == 1);
    };
    if (!oneValue(ca->zeroPoint) || !oneValue(cb->zeroPoint))
      return failure();
    bool shiftA = shiftsToSigned(ca->stored),
         shiftB = shiftsToSigned(cb->stored);
    // Both zero points need K (see correctable), checked before any op is
    // built.
    auto nonZero = [](const Centered &operand, bool shift) {
      if (!operand.zeroPoint)
        return shift;
      std::optional<int64_t> known = uniformInteger(operand.zeroPoint);
      return !known || *known != (shift ? 128 : 0);
    };
    if (nonZero(*ca, shiftA) && nonZero(*cb, shiftB) &&
        ShapedType::isDynamic(aType.getDimSize(aType.getRank() - 1)))
      return failure();
    OpBuilder b(op);
    Location loc = graph::withoutTensorNames(op.getLoc());
    ZeroPoint za = centeredZeroPoint(b, loc, *ca, shiftA);
    ZeroPoint zb = centeredZeroPoint(b, loc, *cb, shiftB);
    Dequantized a{storedOf(b, *ca), nullptr},
        bOperand{storedOf(b, *cb), nullptr};
    Value aValue = productOperand(b, loc, a, shiftA);
    Value bKN = productOperand(b, loc, bOperand, shiftB);
    Value acc = correctedProduct(b, loc, aValue, bKN, /*transB=*/false, za, zb);
    if (Operation *last = acc.getDefiningOp())
      last->setLoc(op.getLoc());
    op.getY().replaceAllUsesWith(acc);
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
    std::optional<Value> acc = dequantizedProduct(op, qa, qb, transB, why);
    if (!acc)
      return failure();
    OpBuilder b(op);
    Location loc = graph::withoutTensorNames(op.getLoc());
    Value c = op.getC();
    Value result = rescaledColumns(b, c && beta != 0.0 ? loc : op.getLoc(),
                                   *acc, *scales, resultType);
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
    // The weight's zero point would need the input's window sums; a uint8
    // input against an int8 weight shifts to int8.
    if (qw.zeroPoint != 0) {
      why = "the weight's zero point is not zero";
      return failure();
    }
    bool shiftX = shiftsToSigned(qx.stored) &&
                  wType.getElementType().isSignlessInteger(8);
    int64_t zx = productZeroPoint(qx, shiftX);
    std::optional<std::vector<int64_t>> sums = sumsAlong(qw.stored, 0);
    if (zx != 0 && !sums) {
      why = "the input's zero point is not zero and the weight is not a "
            "constant";
      return failure();
    }
    // The input's padding is a float 0, the stored value zx: with a zero
    // point, an explicit pad writes it and the convolution pads nothing.
    ArrayRef<int64_t> pads = op.getPads().value_or(ArrayRef<int64_t>());
    bool padded = llvm::any_of(pads, [](int64_t pad) { return pad != 0; });
    bool autoPadded = op.getAutoPad() != "NOTSET" && op.getAutoPad() != "VALID";
    if (zx != 0 && autoPadded) {
      why = "automatic padding with an input zero point that is not zero";
      return failure();
    }
    OpBuilder b(op);
    Location loc = graph::withoutTensorNames(op.getLoc());
    Value x = productOperand(b, loc, qx, shiftX);
    SmallVector<NamedAttribute> attributes(op->getAttrs());
    if (zx != 0 && padded) {
      x = paddedInput(b, loc, x, pads, zx);
      llvm::erase_if(attributes, [](NamedAttribute attribute) {
        return attribute.getName() == "pads";
      });
    }
    auto product = b.create<graph::QuantizedConvOp>(
        loc, ValueRange{x, qw.stored}, attributes);
    // [1, M, 1, ...]: the scale of each output channel, of the result's rank
    // (a channels-last layout transposes it with the result).
    SmallVector<int64_t> channelShape(rank, 1);
    channelShape[1] = m;
    // sum (x - zx) w = acc - zx * sum(w) per output channel.
    Value acc = product.getY();
    if (zx != 0) {
      for (int64_t &sum : *sums)
        sum *= -zx;
      acc = b.create<graph::AddOp>(
          loc, acc,
          integerConstant(b, loc,
                          RankedTensorType::get(channelShape, b.getI32Type()),
                          *sums));
    }
    Value scaleValue = floatConstant(
        b, loc, RankedTensorType::get(channelShape, b.getF32Type()), *scales);
    Value bias = op.getB();
    Value result =
        rescale(b, bias ? loc : op.getLoc(), acc, scaleValue, resultType);
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

  /// `x` padded by the convolution's `pads` (spatial begins, then ends)
  /// with the stored value `value`.
  static Value paddedInput(OpBuilder &b, Location loc, Value x,
                           ArrayRef<int64_t> pads, int64_t value) {
    RankedTensorType type = rankedOf(x);
    int64_t rank = type.getRank(), spatial = rank - 2;
    SmallVector<int64_t> all(2 * rank, 0);
    for (int64_t d = 0; d < spatial; ++d) {
      all[2 + d] = pads[d];
      all[rank + 2 + d] = pads[spatial + d];
    }
    Value padsValue = integerConstant(
        b, loc, RankedTensorType::get({2 * rank}, b.getI64Type()), all);
    Value fill = integerConstant(
        b, loc, RankedTensorType::get({}, type.getElementType()), {value});
    return b.create<graph::PadOp>(loc, x, padsValue, fill, Value(), "constant");
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

  /// The dequantizing and centering ops (and what only they read) that the
  /// rewrites left unused; nothing else of the model is touched.
  void eraseDeadDequantizations() {
    while (!maybeDead.empty()) {
      Operation *op = maybeDead.pop_back_val();
      if (!op->use_empty() || !isa<graph::DequantizeLinearOp, graph::CastOp,
                                   graph::MulOp, graph::SubOp, graph::ReshapeOp,
                                   graph::TransposeOp, graph::ConstantOp>(op))
        continue;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          maybeDead.insert(def);
      op->erase();
    }
  }

  llvm::SetVector<Operation *> maybeDead;
  /// uint8 values and their int8 shifts (see shiftedToSigned).
  DenseMap<Value, Value> shiftedValues;
};

} // namespace

std::unique_ptr<Pass> createFormQuantizedRegions(QuantizationReport *report) {
  return std::make_unique<FormQuantizedRegionsPass>(report);
}

} // namespace graphc
