//===- AnalyzePadSafety.cpp - prove that padding a bucket is exact --------===//
//
// For one dim, every tensor axis that carries it has a padded region, its
// slab: the elements whose index along the axis lies at or past the actual
// size. The analysis walks the function in order and tracks, per value,
// which axes carry the dim, how (a reshape may merge the dim with other
// axes), and what each slab holds. An op whose valid results would read a
// slab that changes them breaks pad-safety; the first such op is reported.
//
// Assumptions, each used where it is needed:
//  * Values computed from real data, and weights, are finite, and arithmetic
//    on finite values does not overflow. Slabs are computed from padding the
//    model never saw, so their finiteness is tracked instead.
//  * A tensor that does not carry the dim but spans a padded axis at full
//    size (folded position ids, a sliced position table) holds what the
//    unpadded run would use in its leading positions. passes/SizeUses.cpp
//    checks this of every tensor shaped by an input's size (Range(0, seq)
//    holds; Range(seq - 1, -1, -1) and table[-seq:] do not, and refuse
//    padding along seq there).
//  * A masked slab (a constant <= -1e4, plus finite values far smaller than
//    that) vanishes next to real scores in a softmax or max, and every row
//    has at least one real entry (the actual size is at least 1). Two masks
//    near the float limit may add up to -inf, which a softmax or max still
//    ignores; elsewhere masks count as finite.
//
// Not visible here: constants folded from the bucket's size (x.sum(1) /
// x.shape[1] folds to a division by a constant). Shape and Size ops that
// read the padded dim are refused, but once folded they cannot be told
// from weights.
//
//===----------------------------------------------------------------------===//

#include "passes/AnalyzePadSafety.h"

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphScalar.h"
#include "dialects/Graph/GraphTypeInference.h"
#include "lib/Support/Axis.h"
#include "passes/Passes.h"
#include "passes/SizeUses.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <numeric>

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_ANALYZEPADSAFETY
#include "passes/Passes.h.inc"

namespace {

/// A mask adds at most this much to the scores it hides.
constexpr double kMaskBound = -1e4;

/// Float constants up to this many elements are read to summarise them;
/// larger ones are weights, assumed finite.
constexpr int64_t kMaxScannedConstant = 4096;

/// What the padded region of one axis holds.
struct Slab {
  enum Kind {
    Constant, // every element equals `value` (0: the zero slab)
    NegLarge, // a mask: <= kMaskBound plus finite values far smaller in
              // magnitude
    Finite,   // unknown finite values
    Unknown,  // anything, infinities and NaN included
  };
  Kind kind = Unknown;
  double value = 0;

  static Slab constant(double value) { return {Constant, value}; }
  static Slab negLarge() { return {NegLarge, 0}; }
  static Slab finite() { return {Finite, 0}; }
  static Slab unknown() { return {Unknown, 0}; }

  bool isConstant() const { return kind == Constant; }
  bool isZero() const { return kind == Constant && value == 0; }
  bool isFinite() const {
    return kind == NegLarge || kind == Finite ||
           (kind == Constant && std::isfinite(value));
  }
  /// Whether a softmax or max over the axis ignores the slab.
  bool isMasked() const {
    return kind == NegLarge || (kind == Constant && value <= kMaskBound);
  }
};

/// What a region holding the elements of both `a` and `b` holds.
Slab join(Slab a, Slab b) {
  if (a.isConstant() && b.isConstant() &&
      (a.value == b.value || (std::isnan(a.value) && std::isnan(b.value))))
    return a;
  if (!a.isFinite() || !b.isFinite())
    return Slab::unknown();
  if (a.isMasked() && b.isMasked())
    return Slab::negLarge();
  return Slab::finite();
}

/// The slab of -x.
Slab negate(Slab slab) {
  if (slab.isConstant())
    return Slab::constant(-slab.value);
  return slab.isFinite() ? Slab::finite() : Slab::unknown();
}

/// The slab of `factor` * x.
Slab scale(Slab slab, double factor) {
  if (factor == 1)
    return slab;
  if (slab.isConstant())
    return Slab::constant(slab.value * factor);
  return slab.isFinite() && std::isfinite(factor) ? Slab::finite()
                                                  : Slab::unknown();
}

/// The slab of a sum of terms with the given slabs.
Slab sumSlab(ArrayRef<Slab> terms) {
  SmallVector<Slab> nonZero;
  for (Slab term : terms)
    if (!term.isZero())
      nonZero.push_back(term);
  if (nonZero.empty())
    return Slab::constant(0);
  if (nonZero.size() == 1)
    return nonZero.front();
  if (llvm::all_of(nonZero, [](Slab s) { return s.isConstant(); })) {
    double total = 0;
    for (Slab term : nonZero)
      total += term.value;
    return Slab::constant(total);
  }
  if (!llvm::all_of(nonZero, [](Slab s) { return s.isFinite(); }))
    return Slab::unknown();
  // A mask stays a mask when what is added to it is unknown finite values
  // (scores, assumed far smaller) or more negative constants.
  bool masked = llvm::any_of(nonZero, [](Slab s) { return s.isMasked(); });
  bool onlyNonPositiveConstants = llvm::all_of(
      nonZero, [](Slab s) { return !s.isConstant() || s.value <= 0; });
  return masked && onlyNonPositiveConstants ? Slab::negLarge() : Slab::finite();
}

/// The slab of a product of factors with the given slabs, or of a sum of
/// such products (a contraction): zero times finite values is zero.
Slab productSlab(ArrayRef<Slab> factors) {
  if (!llvm::all_of(factors, [](Slab s) { return s.isFinite(); }))
    return Slab::unknown();
  if (llvm::any_of(factors, [](Slab s) { return s.isZero(); }))
    return Slab::constant(0);
  return Slab::finite();
}

/// `value` as an element of `type` holds it, or nullopt when it has no
/// such value (NaN or out of range for an integer).
std::optional<double> roundToType(Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    APFloat number(value);
    bool lost;
    number.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                   &lost);
    number.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    return number.convertToDouble();
  }
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType)
    return std::nullopt;
  if (intType.getWidth() == 1)
    return value != 0 ? 1.0 : 0.0;
  if (!std::isfinite(value))
    return std::nullopt;
  unsigned width = intType.getWidth();
  double low = intType.isUnsigned() ? 0 : -std::ldexp(1.0, width - 1);
  double high = intType.isUnsigned() ? std::ldexp(1.0, width)
                                     : std::ldexp(1.0, width - 1);
  double truncated = std::trunc(value);
  if (truncated < low || truncated >= high)
    return std::nullopt;
  return truncated;
}

/// `slab` as a tensor of element type `type` holds it: constants rounded,
/// and integers, which hold no infinities, finite.
Slab ofType(Type type, Slab slab) {
  bool isFloat = isa<FloatType>(type);
  if (slab.isConstant()) {
    if (std::optional<double> rounded = roundToType(type, slab.value))
      return Slab::constant(*rounded);
    return isFloat ? Slab::unknown() : Slab::finite();
  }
  if (!isFloat && slab.kind == Slab::Unknown)
    return Slab::finite();
  return slab;
}

/// Whether converting any finite value of type `from` to `to` gives a
/// finite value.
bool castKeepsFinite(Type from, Type to) {
  auto toFloat = dyn_cast<FloatType>(to);
  if (!toFloat)
    return true;
  int toExponent = APFloat::semanticsMaxExponent(toFloat.getFloatSemantics());
  if (auto fromFloat = dyn_cast<FloatType>(from))
    return toExponent >=
           APFloat::semanticsMaxExponent(fromFloat.getFloatSemantics());
  // Every integer of `width` bits is below 2^width in magnitude.
  return toExponent >= static_cast<int>(from.getIntOrFloatBitWidth());
}

/// Pointwise `op`'s definition (ScalarComputeOpInterface) evaluated in double
/// at one element of each operand.
std::optional<double> evaluateDefinition(Operation *op, ArrayRef<double> x) {
  auto scalarOp = dyn_cast<graph::ScalarComputeOpInterface>(op);
  if (!scalarOp)
    return std::nullopt;
  Type type = cast<ShapedType>(op->getOperand(0).getType()).getElementType();
  scalar::TreeBuilder builder(isa<FloatType>(type));
  SmallVector<scalar::ScalarValue> operands;
  for (size_t i = 0; i < x.size(); ++i)
    operands.push_back(builder.operand(i));
  scalar::ScalarValue root = scalarOp.buildScalar(builder, operands);
  if (!root.valid())
    return std::nullopt;
  return scalar::evaluateScalarTree(builder, root, x.data());
}

/// Pointwise `op` applied to one element of each operand, for the ops whose
/// slabs are worth computing (masks, zeros, casts of padding values).
std::optional<double> evaluateScalar(Operation *op, ArrayRef<double> x) {
  using namespace graph;
  // Ops whose definition computes in double as the cases below would; the
  // others differ in double (integer division, NaN and signed zeros).
  if (isa<AddOp, SubOp, MulOp, NegOp, LeakyReluOp, ExpOp, LogOp, SqrtOp,
          ReciprocalOp, SigmoidOp, SiluOp, TanhOp, ErfOp, GeluOp, FloorOp,
          CeilOp, RoundOp, IdentityOp, CastOp, SumOp, MeanOp, WhereOp,
          EqualOp, LessOp, LessOrEqualOp, GreaterOp, GreaterOrEqualOp, NotOp,
          AndOp, OrOp, XorOp>(op))
    return evaluateDefinition(op, x);
  auto all = [&](auto combine) {
    double result = x.front();
    for (double v : x.drop_front())
      result = combine(result, v);
    return result;
  };
  return llvm::TypeSwitch<Operation *, std::optional<double>>(op)
      .Case<DivOp>([&](DivOp div) -> std::optional<double> {
        // Integer division by zero has no value.
        if (!isa<FloatType>(div.getType().getElementType()) && x[1] == 0)
          return std::nullopt;
        return x[0] / x[1];
      })
      .Case<PowOp>([&](auto) { return std::pow(x[0], x[1]); })
      .Case<AbsOp>([&](auto) { return std::fabs(x[0]); })
      .Case<ReluOp>([&](auto) { return x[0] < 0 ? 0.0 : x[0]; })
      .Case<SignOp>([&](auto) {
        return x[0] > 0 ? 1.0 : x[0] < 0 ? -1.0 : x[0];
      })
      .Case<ExpandOp>([&](auto) { return x[0]; })
      .Case<MaxOp>([&](auto) {
        return all([](double a, double b) {
          return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
        });
      })
      .Case<MinOp>([&](auto) {
        return all([](double a, double b) {
          return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
        });
      })
      .Case<ClipOp>([&](ClipOp clip) {
        double v = x[0];
        size_t bound = 1;
        if (clip.getMin())
          v = std::max(v, x[bound++]);
        if (clip.getMax())
          v = std::min(v, x[bound]);
        return v;
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Whether pointwise `op` maps finite operands to finite results (overflow
/// aside): no division by, or logarithm of, what might be zero.
bool keepsFinite(Operation *op) {
  using namespace graph;
  return isa<AbsOp, NegOp, ReluOp, LeakyReluOp, PReluOp, SigmoidOp, SiluOp,
             TanhOp,
             ErfOp, GeluOp, HardSigmoidOp, HardSwishOp, SoftsignOp, EluOp,
             SeluOp, CeluOp, ThresholdedReluOp, ShrinkOp, SinOp, CosOp, AtanOp,
             AsinhOp, FloorOp, CeilOp, RoundOp, SignOp, ClipOp, MaxOp, MinOp,
             MeanOp, AddOp, SubOp, MulOp, SumOp, WhereOp, IdentityOp>(op);
}

/// The slab of pointwise `op`'s result where its operands hold `in`.
Slab pointwiseSlab(Operation *op, ArrayRef<Slab> in) {
  Type type = cast<ShapedType>(op->getResult(0).getType()).getElementType();
  if (llvm::all_of(in, [](Slab s) { return s.isConstant(); })) {
    SmallVector<double> values;
    for (Slab s : in)
      values.push_back(s.value);
    if (std::optional<double> value = evaluateScalar(op, values))
      return ofType(type, Slab::constant(*value));
  }
  bool allFinite = llvm::all_of(in, [](Slab s) { return s.isFinite(); });
  using namespace graph;
  Slab slab =
      llvm::TypeSwitch<Operation *, Slab>(op)
          .Case<AddOp, SumOp>([&](auto) { return sumSlab(in); })
          .Case<SubOp>([&](auto) {
            return sumSlab({in[0], negate(in[1])});
          })
          .Case<MulOp>([&](auto) {
            if (in[0].isConstant() && in[0].value == 1)
              return in[1];
            if (in[1].isConstant() && in[1].value == 1)
              return in[0];
            return productSlab(in);
          })
          .Case<DivOp>([&](auto) {
            bool byFiniteNonZero = in[1].isConstant() && in[1].value != 0 &&
                                   std::isfinite(in[1].value);
            if (byFiniteNonZero && in[1].value == 1)
              return in[0];
            return byFiniteNonZero && in[0].isFinite() ? Slab::finite()
                                                       : Slab::unknown();
          })
          // false and x is false, true or x is true, whatever x is.
          .Case<AndOp>([&](auto) {
            return llvm::any_of(in, [](Slab s) { return s.isZero(); })
                       ? Slab::constant(0)
                       : Slab::finite();
          })
          .Case<OrOp>([&](auto) {
            return llvm::any_of(
                       in,
                       [](Slab s) { return s.isConstant() && s.value != 0; })
                       ? Slab::constant(1)
                       : Slab::finite();
          })
          .Case<NegOp>([&](auto) { return negate(in[0]); })
          .Case<IdentityOp, ExpandOp>([&](auto) { return in[0]; })
          .Case<WhereOp>([&](auto) {
            if (in[0].isConstant())
              return in[0].value != 0 ? in[1] : in[2];
            return join(in[1], in[2]);
          })
          .Case<CastOp>([&](CastOp cast) {
            Type from = cast.getInput().getType().getElementType();
            if (!castKeepsFinite(from, type))
              return Slab::unknown();
            return type.isInteger(1) && in[0].isFinite() ? Slab::finite()
                                                         : in[0];
          })
          .Default([&](Operation *) {
            return allFinite && keepsFinite(op) ? Slab::finite()
                                                : Slab::unknown();
          });
  return ofType(type, slab);
}

/// Reductions, by what each computes over the reduced axes.
enum class Reduction {
  Sum,
  SumSquare,
  L1,
  L2,
  LogSum,
  LogSumExp,
  Mean,
  Max,
  Min,
  Prod,
  ArgMax,
  ArgMin
};

/// What a reduction needs of a padded axis it reduces.
enum class Need { Zero, Mask, Never };

struct ReductionRule {
  const char *phrase; // "a sum": what the reasons call it
  Need need;
};

ReductionRule ruleFor(Reduction kind) {
  switch (kind) {
  case Reduction::Sum:
    return {"a sum", Need::Zero};
  case Reduction::SumSquare:
    return {"a sum of squares", Need::Zero};
  case Reduction::L1:
    return {"an l1 norm", Need::Zero};
  case Reduction::L2:
    return {"an l2 norm", Need::Zero};
  case Reduction::LogSum:
    return {"a log-sum", Need::Zero};
  case Reduction::LogSumExp:
    return {"a log-sum-exp", Need::Mask};
  case Reduction::Max:
    return {"a max", Need::Mask};
  case Reduction::Mean:
    return {"a mean", Need::Never};
  case Reduction::Min:
    return {"a min", Need::Never};
  case Reduction::Prod:
    return {"a product", Need::Never};
  case Reduction::ArgMax:
    return {"an arg max", Need::Never};
  case Reduction::ArgMin:
    return {"an arg min", Need::Never};
  }
  llvm_unreachable("unknown reduction");
}

/// The slab of a reduction of `count` elements of a slab `slab` (the padded
/// region of an axis that is not reduced).
Slab reduceSlab(Reduction kind, Slab slab, int64_t count) {
  double n = static_cast<double>(count);
  if (slab.isConstant()) {
    double c = slab.value;
    switch (kind) {
    case Reduction::Sum:
      return Slab::constant(c * n);
    case Reduction::SumSquare:
      return Slab::constant(c * c * n);
    case Reduction::L1:
      return Slab::constant(std::fabs(c) * n);
    case Reduction::L2:
      return Slab::constant(std::sqrt(c * c * n));
    case Reduction::LogSum:
      return Slab::constant(std::log(c * n));
    case Reduction::LogSumExp:
      return Slab::constant(c + std::log(n));
    case Reduction::Mean:
    case Reduction::Max:
    case Reduction::Min:
      return slab;
    case Reduction::Prod:
      return Slab::constant(std::pow(c, n));
    case Reduction::ArgMax:
    case Reduction::ArgMin:
      return Slab::finite();
    }
  }
  switch (kind) {
  case Reduction::Sum:
  case Reduction::Mean:
  case Reduction::Max:
  case Reduction::Min:
  case Reduction::LogSumExp:
    // Sums, means and extremes of masks are masks.
    return slab.kind == Slab::NegLarge ? slab
           : slab.isFinite()           ? Slab::finite()
                                       : Slab::unknown();
  case Reduction::SumSquare:
  case Reduction::L1:
  case Reduction::L2:
  case Reduction::Prod:
    // Powers of large masks overflow.
    return slab.kind == Slab::Finite ? slab : Slab::unknown();
  case Reduction::LogSum:
    return Slab::unknown();
  case Reduction::ArgMax:
  case Reduction::ArgMin:
    return Slab::finite();
  }
  llvm_unreachable("unknown reduction");
}

/// How one axis carries the dim. The axis has outer * N * inner elements (N
/// the bucket size); index i is padding when (i / inner) % N is at least the
/// actual size. A plain axis has outer = inner = 1; a reshape that merges
/// the dim with inner axes keeps the padding a suffix (outer = 1), one that
/// merges it with outer axes interleaves it (outer > 1).
struct Carry {
  int64_t outer = 1;
  int64_t inner = 1;
  Slab slab;

  bool isPlain() const { return outer == 1 && inner == 1; }
  bool sameLayout(const Carry &other) const {
    return outer == other.outer && inner == other.inner;
  }
};

/// Per axis of a value, how it carries the dim, if it does.
using Layout = SmallVector<std::optional<Carry>>;

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

int64_t rankOf(Value value) { return shapeOf(value).size(); }

Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// The axes [first, last).
SmallVector<int64_t> axisRange(int64_t first, int64_t last) {
  SmallVector<int64_t> axes(std::max<int64_t>(last - first, 0));
  std::iota(axes.begin(), axes.end(), first);
  return axes;
}

/// The ONNX node name of `op`, or its op name when it has none.
std::string nodeName(Operation *op) {
  std::string name = graph::firstNodeName(op->getLoc());
  return name.empty() ? op->getName().getStringRef().str() : name;
}

/// The name reasons give `op`: its mnemonic for a graph op.
std::string opName(Operation *op) {
  if (isa<graph::GraphDialect>(op->getDialect()))
    return op->getName().stripDialect().str();
  return op->getName().getStringRef().str();
}

/// The analysis of one function for one dim.
class PadSafetyAnalysis {
public:
  PadSafetyAnalysis(func::FuncOp func, StringRef dim) : func(func) {
    result.dim = dim.str();
    result.inputAxes.assign(func.getNumArguments(), -1);
    result.outputAxes.assign(func.getNumResults(), -1);
  }

  PadSafety run();

private:
  // Outcomes.
  LogicalResult failAt(std::string node, const Twine &reason);
  LogicalResult fail(Operation *op, const Twine &reason) {
    return failAt(nodeName(op), reason);
  }
  LogicalResult notAnalysed(Operation *op) {
    // Padding would change what it counts and where its results lie.
    if (isa<graph::DataDependentExtentOpInterface>(op))
      return fail(op, opName(op) + " sizes its result by the values it reads");
    return fail(op, opName(op) + " is not analysed");
  }
  void noteMixing(Operation *op, const Twine &reason);

  // What values carry.
  const Layout *layoutOf(Value value) const;
  std::optional<Carry> carryAt(Value value, int64_t axis) const;
  bool isCarried(Value value) const { return layouts.count(value); }
  bool readsCarried(Operation *op) const;
  void setLayout(Value value, Layout layout);
  Slab wholeValue(Value value) const;
  Slab contribution(Value value, int64_t axis) const;
  std::string argumentName(unsigned index);

  // Setup and the function's end.
  LogicalResult checkStaticShapes();
  LogicalResult seedArguments();
  LogicalResult visitReturn(func::ReturnOp ret);

  // Ops.
  LogicalResult visit(Operation *op);
  LogicalResult requireCarriedOnly(Operation *op, ValueRange allowed);
  FailureOr<std::optional<Carry>> mergeAxis(Operation *op, int64_t size,
                                            ValueRange operands,
                                            ArrayRef<int64_t> axes);
  LogicalResult visitPointwise(Operation *op, ValueRange operands);
  template <typename ReduceOp>
  LogicalResult visitReduce(ReduceOp op, Reduction kind);
  LogicalResult reduce(Operation *op, Value data, ArrayRef<int64_t> axes,
                       bool keepDims, Reduction kind);
  LogicalResult visitSoftmax(Operation *op, Value input, int64_t axis,
                             StringRef phrase, bool zeroesPadding);
  LogicalResult contract(Operation *op, Value a, int64_t axisA, Value b,
                         int64_t axisB);
  LogicalResult visitMatMul(graph::MatMulOp op);
  LogicalResult visitGemm(graph::GemmOp op);
  LogicalResult visitConv(Operation *op, Value x, Value weights, Value bias,
                          int64_t group);
  LogicalResult visitPool(Operation *op, Value x);
  LogicalResult visitNormalization(Operation *op, Value x,
                                   ArrayRef<int64_t> normalizedAxes);
  LogicalResult visitGather(graph::GatherOp op);
  LogicalResult visitGatherNd(graph::GatherNdOp op);
  LogicalResult visitReshape(Operation *op, Value data);
  LogicalResult visitTranspose(graph::TransposeOp op);
  LogicalResult visitSlice(graph::SliceOp op);
  LogicalResult visitSplit(graph::SplitOp op);
  LogicalResult visitConcat(graph::ConcatOp op);
  LogicalResult visitTile(graph::TileOp op);
  LogicalResult visitPad(graph::PadOp op);
  LogicalResult visitCumSum(graph::CumSumOp op);
  LogicalResult visitTopK(graph::TopKOp op);
  LogicalResult visitTrilu(graph::TriluOp op);
  LogicalResult visitRoiAlign(graph::RoiAlignOp op);
  LogicalResult visitShape(graph::ShapeOp op);

  func::FuncOp func;
  PadSafety result;
  /// The bucket's size of the dim.
  int64_t bucketSize = 0;
  llvm::DenseMap<Value, Layout> layouts;
  /// The first op that mixes positions along the dim, safely.
  bool mixes = false;
  std::string mixNode, mixReason;
};

LogicalResult PadSafetyAnalysis::failAt(std::string node, const Twine &reason) {
  result.node = std::move(node);
  result.reason = reason.str();
  return failure();
}

void PadSafetyAnalysis::noteMixing(Operation *op, const Twine &reason) {
  if (mixes)
    return;
  mixes = true;
  mixNode = nodeName(op);
  mixReason = reason.str();
}

const Layout *PadSafetyAnalysis::layoutOf(Value value) const {
  auto it = layouts.find(value);
  return it == layouts.end() ? nullptr : &it->second;
}

std::optional<Carry> PadSafetyAnalysis::carryAt(Value value,
                                                int64_t axis) const {
  const Layout *layout = layoutOf(value);
  if (!layout || axis < 0 || axis >= static_cast<int64_t>(layout->size()))
    return std::nullopt;
  return (*layout)[axis];
}

bool PadSafetyAnalysis::readsCarried(Operation *op) const {
  auto carried = [&](Value v) { return isCarried(v); };
  if (llvm::any_of(op->getOperands(), carried))
    return true;
  // Ops with regions may read values from above.
  return op->getNumRegions() &&
         op->walk([&](Operation *inner) {
             return llvm::any_of(inner->getOperands(), carried)
                        ? WalkResult::interrupt()
                        : WalkResult::advance();
           }).wasInterrupted();
}

void PadSafetyAnalysis::setLayout(Value value, Layout layout) {
  if (llvm::any_of(layout, [](const auto &c) { return c.has_value(); }))
    layouts[value] = std::move(layout);
}

/// What any element of `value` may hold: its real values are finite (an
/// assumption), its slabs what they hold. A constant is read when small.
Slab PadSafetyAnalysis::wholeValue(Value value) const {
  if (const Layout *layout = layoutOf(value)) {
    Slab slab = Slab::finite();
    for (const std::optional<Carry> &carry : *layout)
      if (carry)
        slab = join(slab, carry->slab);
    return slab;
  }
  ElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return Slab::finite();
  if (attr.isSplat()) {
    Attribute splat = attr.getSplatValue<Attribute>();
    if (auto number = dyn_cast<FloatAttr>(splat))
      return Slab::constant(number.getValueAsDouble());
    if (auto integer = dyn_cast<IntegerAttr>(splat))
      return Slab::constant(
          integer.getType().isUnsignedInteger() ||
                  integer.getType().isInteger(1)
              ? static_cast<double>(integer.getValue().getZExtValue())
              : static_cast<double>(integer.getValue().getSExtValue()));
    return Slab::finite();
  }
  // Integers hold no infinities; a small float constant is read for them
  // (a -inf mask).
  if (!isa<FloatType>(attr.getElementType()) ||
      attr.getNumElements() > kMaxScannedConstant)
    return Slab::finite();
  std::optional<SmallVector<double>> numbers = graph::getConstantNumbers(attr);
  if (!numbers || numbers->empty())
    return Slab::finite();
  Slab slab = Slab::constant(numbers->front());
  for (double number : *numbers)
    slab = join(slab, Slab::constant(number));
  return slab;
}

/// What `value` holds where a result axis that reads its axis `axis` (-1:
/// none, broadcast) is padded.
Slab PadSafetyAnalysis::contribution(Value value, int64_t axis) const {
  if (std::optional<Carry> carry = carryAt(value, axis))
    return carry->slab;
  return wholeValue(value);
}

std::string PadSafetyAnalysis::argumentName(unsigned index) {
  if (auto name = func.getArgAttrOfType<StringAttr>(index, graph::kNameAttr))
    return name.str();
  return "#" + std::to_string(index);
}

LogicalResult PadSafetyAnalysis::checkStaticShapes() {
  auto isStatic = [](Type type) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    return ranked && ranked.hasStaticShape();
  };
  for (BlockArgument arg : func.getArguments())
    if (!isStatic(arg.getType()))
      return failAt(argumentName(arg.getArgNumber()),
                    "the function is not specialised to static shapes");
  WalkResult walk = func.walk([&](Operation *op) {
    if (llvm::all_of(op->getResultTypes(), isStatic))
      return WalkResult::advance();
    (void)fail(op, "the function is not specialised to static shapes");
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult PadSafetyAnalysis::seedArguments() {
  for (BlockArgument arg : func.getArguments()) {
    unsigned index = arg.getArgNumber();
    auto names = func.getArgAttrOfType<ArrayAttr>(index, graph::kDimsAttr);
    if (!names)
      continue;
    auto padValue =
        func.getArgAttrOfType<FloatAttr>(index, graph::kPadValueAttr);
    Slab padding =
        ofType(elementTypeOf(arg),
               Slab::constant(padValue ? padValue.getValueAsDouble() : 0.0));
    ArrayRef<int64_t> shape = shapeOf(arg);
    Layout layout(shape.size());
    for (auto [axis, name] : llvm::enumerate(names)) {
      auto text = dyn_cast<StringAttr>(name);
      if (axis >= shape.size() || !text || text.getValue() != result.dim)
        continue;
      if (bucketSize != 0 && shape[axis] != bucketSize)
        return failAt(argumentName(index),
                      "inputs disagree on the size of the dim");
      bucketSize = shape[axis];
      layout[axis] = Carry{1, 1, padding};
      if (result.inputAxes[index] < 0)
        result.inputAxes[index] = axis;
    }
    setLayout(arg, std::move(layout));
  }
  if (bucketSize == 0)
    return failAt("", "no input carries the dim");
  return success();
}

LogicalResult PadSafetyAnalysis::visitReturn(func::ReturnOp ret) {
  SmallVector<int64_t> outputAxes(ret.getNumOperands(), -1);
  for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
    const Layout *layout = layoutOf(value);
    if (!layout)
      continue;
    auto name = func.getResultAttrOfType<StringAttr>(index, graph::kNameAttr);
    std::string output = name ? name.str() : "#" + std::to_string(index);
    std::string node;
    if (Operation *def = value.getDefiningOp())
      node = nodeName(def);
    else
      node = argumentName(cast<BlockArgument>(value).getArgNumber());
    // The runtime slices one plain axis of each output back.
    for (auto [axis, carry] : llvm::enumerate(*layout)) {
      if (!carry)
        continue;
      if (outputAxes[index] >= 0)
        return failAt(node,
                      "output '" + output + "' carries the dim on two axes");
      if (!carry->isPlain())
        return failAt(node, "output '" + output +
                                "' carries the dim merged with another axis");
      outputAxes[index] = axis;
    }
  }
  result.outputAxes = std::move(outputAxes);
  return success();
}

PadSafety PadSafetyAnalysis::run() {
  if (func.isExternal()) {
    (void)failAt("", "the function has no body");
    return result;
  }
  if (!func.getBody().hasOneBlock()) {
    (void)fail(func, "control flow is not analysed");
    return result;
  }
  if (failed(checkStaticShapes()) || failed(seedArguments()))
    return result;
  for (Operation &op : func.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      if (failed(visitReturn(ret)))
        return result;
      continue;
    }
    // An op that reads no padded value computes what the unpadded run does.
    if (readsCarried(&op) && failed(visit(&op)))
      return result;
  }
  result.padSafe = true;
  result.splittable = !mixes;
  if (mixes) {
    result.node = mixNode;
    result.reason = mixReason;
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult PadSafetyAnalysis::visit(Operation *op) {
  using namespace graph;
  if (op->hasTrait<graph::OpTrait::Pointwise>() && op->getNumResults() == 1)
    return visitPointwise(op, op->getOperands());
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](ReduceSumOp op) { return visitReduce(op, Reduction::Sum); })
      .Case([&](ReduceSumSquareOp op) {
        return visitReduce(op, Reduction::SumSquare);
      })
      .Case([&](ReduceL1Op op) { return visitReduce(op, Reduction::L1); })
      .Case([&](ReduceL2Op op) { return visitReduce(op, Reduction::L2); })
      .Case(
          [&](ReduceLogSumOp op) { return visitReduce(op, Reduction::LogSum); })
      .Case([&](ReduceLogSumExpOp op) {
        return visitReduce(op, Reduction::LogSumExp);
      })
      .Case([&](ReduceMeanOp op) { return visitReduce(op, Reduction::Mean); })
      .Case([&](ReduceMaxOp op) { return visitReduce(op, Reduction::Max); })
      .Case([&](ReduceMinOp op) { return visitReduce(op, Reduction::Min); })
      .Case([&](ReduceProdOp op) { return visitReduce(op, Reduction::Prod); })
      .Case<ArgMaxOp, ArgMinOp>([&](auto op) -> LogicalResult {
        std::optional<int64_t> axis =
            normalizeAxis(op.getAxis(), rankOf(op.getData()));
        if (!axis)
          return notAnalysed(op);
        bool isMax = isa<ArgMaxOp>(op.getOperation());
        return reduce(op, op.getData(), {*axis}, op.getKeepdims() != 0,
                      isMax ? Reduction::ArgMax : Reduction::ArgMin);
      })
      .Case<GlobalAveragePoolOp, GlobalMaxPoolOp, GlobalLpPoolOp>(
          [&](auto op) -> LogicalResult {
            Reduction kind = Reduction::Mean;
            if (isa<GlobalMaxPoolOp>(op.getOperation()))
              kind = Reduction::Max;
            if (auto lp = dyn_cast<GlobalLpPoolOp>(op.getOperation())) {
              if (lp.getP() != 1 && lp.getP() != 2)
                return notAnalysed(op);
              kind = lp.getP() == 1 ? Reduction::L1 : Reduction::L2;
            }
            return reduce(op, op.getX(), axisRange(2, rankOf(op.getX())),
                          /*keepDims=*/true, kind);
          })
      .Case([&](SoftmaxOp op) {
        return visitSoftmax(op, op.getInput(), op.getAxis(), "a softmax",
                            /*zeroesPadding=*/true);
      })
      .Case([&](LogSoftmaxOp op) {
        return visitSoftmax(op, op.getInput(), op.getAxis(), "a log-softmax",
                            /*zeroesPadding=*/false);
      })
      .Case([&](HardmaxOp op) {
        return visitSoftmax(op, op.getInput(), op.getAxis(), "a hardmax",
                            /*zeroesPadding=*/true);
      })
      .Case([&](MatMulOp op) { return visitMatMul(op); })
      .Case([&](GemmOp op) { return visitGemm(op); })
      .Case([&](ConvOp op) {
        return visitConv(op, op.getX(), op.getW(), op.getB(), op.getGroup());
      })
      .Case([&](ConvTransposeOp op) {
        return visitConv(op, op.getX(), op.getW(), op.getB(), op.getGroup());
      })
      .Case<MaxPoolOp, AveragePoolOp, LpPoolOp>(
          [&](auto op) { return visitPool(op, op.getX()); })
      .Case<LayerNormalizationOp, RmsNormalizationOp>(
          [&](auto op) -> LogicalResult {
        int64_t rank = rankOf(op.getX());
        std::optional<int64_t> first = normalizeAxis(op.getAxis(), rank);
        if (!first)
          return notAnalysed(op);
        return visitNormalization(op, op.getX(), axisRange(*first, rank));
      })
      .Case([&](BatchNormalizationOp op) {
        return visitNormalization(op, op.getX(), {1});
      })
      .Case([&](InstanceNormalizationOp op) {
        return visitNormalization(op, op.getInput(),
                                  axisRange(2, rankOf(op.getInput())));
      })
      .Case([&](GroupNormalizationOp op) {
        return visitNormalization(op, op.getX(),
                                  axisRange(1, rankOf(op.getX())));
      })
      .Case([&](MeanVarianceNormalizationOp op) -> LogicalResult {
        SmallVector<int64_t> axes;
        for (int64_t axis : op.getAxes()) {
          std::optional<int64_t> normalized =
              normalizeAxis(axis, rankOf(op.getInput()));
          if (!normalized)
            return notAnalysed(op);
          axes.push_back(*normalized);
        }
        return visitNormalization(op, op.getInput(), axes);
      })
      .Case([&](LpNormalizationOp op) -> LogicalResult {
        std::optional<int64_t> axis =
            normalizeAxis(op.getAxis(), rankOf(op.getInput()));
        if (!axis)
          return notAnalysed(op);
        return visitNormalization(op, op.getInput(), {*axis});
      })
      .Case(
          [&](LrnOp op) { return visitNormalization(op, op.getInput(), {1}); })
      .Case([&](GatherOp op) { return visitGather(op); })
      .Case([&](GatherNdOp op) { return visitGatherNd(op); })
      .Case<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(
          [&](auto op) { return visitReshape(op, op->getOperand(0)); })
      .Case([&](TransposeOp op) { return visitTranspose(op); })
      .Case([&](ExpandOp op) -> LogicalResult {
        if (failed(requireCarriedOnly(op, op.getInput())))
          return failure();
        return visitPointwise(op, op.getInput());
      })
      .Case([&](SliceOp op) { return visitSlice(op); })
      .Case([&](SplitOp op) { return visitSplit(op); })
      .Case([&](ConcatOp op) { return visitConcat(op); })
      .Case([&](TileOp op) { return visitTile(op); })
      .Case([&](PadOp op) { return visitPad(op); })
      .Case([&](CumSumOp op) { return visitCumSum(op); })
      .Case([&](TopKOp op) { return visitTopK(op); })
      .Case([&](TriluOp op) { return visitTrilu(op); })
      .Case([&](RoiAlignOp op) { return visitRoiAlign(op); })
      .Case([&](ShapeOp op) { return visitShape(op); })
      .Case([&](SizeOp op) {
        return fail(op, "a read of the padded dim's size");
      })
      .Default([&](Operation *op) { return notAnalysed(op); });
}

/// Refuses `op` when an operand other than `allowed` carries the dim: shape,
/// index and parameter operands are not analysed.
LogicalResult PadSafetyAnalysis::requireCarriedOnly(Operation *op,
                                                    ValueRange allowed) {
  for (Value operand : op->getOperands())
    if (isCarried(operand) && !llvm::is_contained(allowed, operand))
      return notAnalysed(op);
  return success();
}

/// The layout (slab left unknown) of a result axis of `size` elements that
/// reads axis axes[k] of operands[k] (-1: the operand has no such axis), or
/// nullopt when no operand carries the dim there.
FailureOr<std::optional<Carry>>
PadSafetyAnalysis::mergeAxis(Operation *op, int64_t size, ValueRange operands,
                             ArrayRef<int64_t> axes) {
  std::optional<Carry> merged;
  bool spannedByOther = false;
  for (auto [operand, axis] : llvm::zip(operands, axes)) {
    if (axis < 0)
      continue;
    std::optional<Carry> carry = carryAt(operand, axis);
    bool spans = shapeOf(operand)[axis] == size;
    if (!carry) {
      spannedByOther |= spans;
      continue;
    }
    if (!spans)
      return fail(op, "the padded axis is broadcast");
    if (merged && !merged->sameLayout(*carry))
      return fail(op, "operands carry the padded axis in different layouts");
    merged = carry;
  }
  // A tensor without the dim that spans the axis holds the unpadded run's
  // values in its leading positions (see the file comment); interleaved
  // padding has no such leading positions.
  if (merged && spannedByOther && merged->outer != 1)
    return fail(op, "a tensor without the dim meets the interleaved padded "
                    "axis");
  return merged;
}

LogicalResult PadSafetyAnalysis::visitPointwise(Operation *op,
                                                ValueRange operands) {
  Value output = op->getResult(0);
  ArrayRef<int64_t> shape = shapeOf(output);
  int64_t rank = shape.size();
  Layout layout(rank);
  for (int64_t axis = 0; axis < rank; ++axis) {
    // Numpy broadcasting aligns axes from the right.
    SmallVector<int64_t> axes;
    for (Value operand : operands)
      axes.push_back(std::max<int64_t>(axis - (rank - rankOf(operand)), -1));
    FailureOr<std::optional<Carry>> carry =
        mergeAxis(op, shape[axis], operands, axes);
    if (failed(carry))
      return failure();
    if (!*carry)
      continue;
    SmallVector<Slab> in;
    for (auto [operand, operandAxis] : llvm::zip(operands, axes))
      in.push_back(contribution(operand, operandAxis));
    (*carry)->slab = pointwiseSlab(op, in);
    layout[axis] = *carry;
  }
  setLayout(output, std::move(layout));
  return success();
}

template <typename ReduceOp>
LogicalResult PadSafetyAnalysis::visitReduce(ReduceOp op, Reduction kind) {
  if (failed(requireCarriedOnly(op, op.getData())))
    return failure();
  int64_t rank = rankOf(op.getData());
  SmallVector<int64_t> axes;
  if (Value axesOperand = op.getAxes()) {
    std::optional<SmallVector<int64_t>> values =
        graph::getConstantInts(axesOperand);
    if (!values)
      return fail(op, opName(op) + " over non-constant axes is not analysed");
    for (int64_t axis : *values) {
      std::optional<int64_t> normalized = normalizeAxis(axis, rank);
      if (!normalized)
        return notAnalysed(op);
      axes.push_back(*normalized);
    }
  }
  if (axes.empty()) {
    if (op.getNoopWithEmptyAxes()) {
      setLayout(op.getResult(), *layoutOf(op.getData()));
      return success();
    }
    axes = axisRange(0, rank);
  }
  return reduce(op, op.getData(), axes, op.getKeepdims() != 0, kind);
}

LogicalResult PadSafetyAnalysis::reduce(Operation *op, Value data,
                                        ArrayRef<int64_t> axes, bool keepDims,
                                        Reduction kind) {
  if (failed(requireCarriedOnly(op, data)))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(data);
  const Layout &in = *layoutOf(data);
  SmallVector<bool> reduced(shape.size(), false);
  int64_t count = 1;
  for (int64_t axis : axes)
    if (!reduced[axis]) {
      reduced[axis] = true;
      count *= shape[axis];
    }
  ReductionRule rule = ruleFor(kind);
  for (auto [axis, carry] : llvm::enumerate(in)) {
    if (!carry || !reduced[axis])
      continue;
    std::string where = std::string(rule.phrase) + " over the padded axis";
    if (rule.need == Need::Never)
      return fail(op, where);
    if (rule.need == Need::Zero && !carry->slab.isZero())
      return fail(op, where + " whose padding is not zero");
    if (rule.need == Need::Mask && !carry->slab.isMasked())
      return fail(op, where + " whose padding is not masked");
    noteMixing(op, where);
  }
  // A kept axis's padding reduces over the same padding along the others.
  Type type = elementTypeOf(op->getResult(0));
  Layout out;
  for (auto [axis, carry] : llvm::enumerate(in)) {
    if (reduced[axis]) {
      if (keepDims)
        out.push_back(std::nullopt);
      continue;
    }
    std::optional<Carry> kept = carry;
    if (kept)
      kept->slab = ofType(type, reduceSlab(kind, kept->slab, count));
    out.push_back(kept);
  }
  setLayout(op->getResult(0), std::move(out));
  return success();
}

LogicalResult PadSafetyAnalysis::visitSoftmax(Operation *op, Value input,
                                              int64_t axisAttr,
                                              StringRef phrase,
                                              bool zeroesPadding) {
  std::optional<int64_t> axis = normalizeAxis(axisAttr, rankOf(input));
  if (!axis)
    return notAnalysed(op);
  Layout layout = *layoutOf(input);
  // Each row along the axis reads padding of the other axes too.
  bool othersFinite = true;
  for (auto [i, carry] : llvm::enumerate(layout))
    if (carry && static_cast<int64_t>(i) != *axis)
      othersFinite &= carry->slab.isFinite();
  for (auto [i, carry] : llvm::enumerate(layout)) {
    if (!carry)
      continue;
    if (static_cast<int64_t>(i) != *axis) {
      carry->slab = carry->slab.isFinite() ? Slab::finite() : Slab::unknown();
      continue;
    }
    if (!carry->slab.isMasked())
      return fail(op, phrase + " over the padded axis whose padding is not "
                               "masked");
    noteMixing(op, phrase + " over the padded axis");
    // Masked entries get weight zero (exp underflows) or are never the max;
    // a log-softmax keeps them large and negative.
    if (!othersFinite)
      carry->slab = Slab::unknown();
    else if (zeroesPadding)
      carry->slab = Slab::constant(0);
    else
      carry->slab = carry->slab.isFinite() ? Slab::finite() : Slab::unknown();
  }
  setLayout(op->getResult(0), std::move(layout));
  return success();
}

/// Checks a sum of products along axis `axisA` of `a` and `axisB` of `b`:
/// padding must add zero to the real results.
LogicalResult PadSafetyAnalysis::contract(Operation *op, Value a, int64_t axisA,
                                          Value b, int64_t axisB) {
  std::optional<Carry> carryA = carryAt(a, axisA), carryB = carryAt(b, axisB);
  if (!carryA && !carryB)
    return success();
  if (carryA && carryB && !carryA->sameLayout(*carryB))
    return fail(op, "operands carry the padded axis in different layouts");
  // Where the result is real, a factor without the dim on this axis holds
  // real (finite) values at the padded positions.
  Slab slabA = carryA ? carryA->slab : Slab::finite();
  Slab slabB = carryB ? carryB->slab : Slab::finite();
  if (!(slabA.isZero() && slabB.isFinite()) &&
      !(slabB.isZero() && slabA.isFinite()))
    return fail(op, "a contraction over the padded axis whose padding is not "
                    "zero");
  noteMixing(op, "a contraction over the padded axis");
  return success();
}

LogicalResult PadSafetyAnalysis::visitMatMul(graph::MatMulOp op) {
  Value a = op.getA(), b = op.getB(), y = op.getY();
  int64_t rankA = rankOf(a), rankB = rankOf(b);
  // 1-D operands are promoted: A [K] is [1, K], B [K] is [K, 1].
  if (failed(contract(op, a, rankA - 1, b, rankB == 1 ? 0 : rankB - 2)))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(y);
  int64_t batchRank = shape.size() - (rankA > 1) - (rankB > 1);
  Layout layout(shape.size());
  // Batch axes broadcast like a pointwise op's.
  for (int64_t axis = 0; axis < batchRank; ++axis) {
    int64_t axisA = axis - (batchRank - std::max<int64_t>(rankA - 2, 0));
    int64_t axisB = axis - (batchRank - std::max<int64_t>(rankB - 2, 0));
    axisA = std::max<int64_t>(axisA, -1);
    axisB = std::max<int64_t>(axisB, -1);
    FailureOr<std::optional<Carry>> carry =
        mergeAxis(op, shape[axis], {a, b}, {axisA, axisB});
    if (failed(carry))
      return failure();
    if (!*carry)
      continue;
    (*carry)->slab =
        productSlab({contribution(a, axisA), contribution(b, axisB)});
    layout[axis] = *carry;
  }
  // Rows of A and columns of B carry through; a padded row or column reads
  // all of the other factor.
  if (rankA > 1)
    if (std::optional<Carry> rows = carryAt(a, rankA - 2)) {
      rows->slab = productSlab({rows->slab, wholeValue(b)});
      layout[batchRank] = rows;
    }
  if (rankB > 1)
    if (std::optional<Carry> columns = carryAt(b, rankB - 1)) {
      columns->slab = productSlab({wholeValue(a), columns->slab});
      layout.back() = columns;
    }
  Type type = elementTypeOf(y);
  for (std::optional<Carry> &carry : layout)
    if (carry)
      carry->slab = ofType(type, carry->slab);
  setLayout(y, std::move(layout));
  return success();
}

LogicalResult PadSafetyAnalysis::visitGemm(graph::GemmOp op) {
  Value a = op.getA(), b = op.getB(), c = op.getC(), y = op.getY();
  int64_t rowAxis = op.getTransA() ? 1 : 0, columnAxis = op.getTransB() ? 0 : 1;
  if (failed(contract(op, a, 1 - rowAxis, b, 1 - columnAxis)))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(y);
  double alpha = op.getAlpha().convertToDouble();
  double beta = op.getBeta().convertToDouble();
  Layout layout(2);
  struct Side {
    Value factor, other;
    int64_t factorAxis;
  };
  Side sides[2] = {{a, b, rowAxis}, {b, a, columnAxis}};
  for (auto [axis, side] : llvm::enumerate(sides)) {
    SmallVector<Value> operands = {side.factor};
    SmallVector<int64_t> axes = {side.factorAxis};
    if (c) {
      // C broadcasts to [M, N] from the right.
      operands.push_back(c);
      axes.push_back(
          std::max<int64_t>(static_cast<int64_t>(axis) - (2 - rankOf(c)), -1));
    }
    FailureOr<std::optional<Carry>> carry =
        mergeAxis(op, shape[axis], operands, axes);
    if (failed(carry))
      return failure();
    if (!*carry)
      continue;
    Slab product = scale(productSlab({contribution(side.factor, axes[0]),
                                      wholeValue(side.other)}),
                         alpha);
    Slab slab =
        c ? sumSlab({product, scale(contribution(c, axes[1]), beta)}) : product;
    (*carry)->slab = ofType(elementTypeOf(y), slab);
    layout[axis] = *carry;
  }
  setLayout(y, std::move(layout));
  return success();
}

/// Conv and ConvTranspose: X is [N, C, spatial...]; both sum over C.
LogicalResult PadSafetyAnalysis::visitConv(Operation *op, Value x,
                                           Value weights, Value bias,
                                           int64_t group) {
  if (failed(requireCarriedOnly(op, x)))
    return failure();
  Layout layout(rankOf(op->getResult(0)));
  for (auto [axis, carry] : llvm::enumerate(*layoutOf(x))) {
    if (!carry)
      continue;
    if (axis >= 2)
      return fail(op, "a convolution along the padded axis");
    if (axis == 1) {
      if (group != 1)
        return fail(op, "a grouped convolution over the padded channel axis");
      if (failed(contract(op, x, 1, weights, -1)))
        return failure();
      continue;
    }
    // Samples are independent; a padded one sees the (finite) weights.
    Slab slab = productSlab({carry->slab, Slab::finite()});
    if (bias)
      slab = sumSlab({slab, wholeValue(bias)});
    layout[0] = Carry{carry->outer, carry->inner,
                      ofType(elementTypeOf(op->getResult(0)), slab)};
  }
  setLayout(op->getResult(0), std::move(layout));
  return success();
}

/// Pooling windows: per sample and channel, along the spatial axes.
LogicalResult PadSafetyAnalysis::visitPool(Operation *op, Value x) {
  Layout layout = *layoutOf(x);
  for (auto [axis, carry] : llvm::enumerate(layout)) {
    if (!carry)
      continue;
    if (axis >= 2)
      return fail(op, "a pooling window along the padded axis");
    // A window of zeros (and zero or ignored border padding) pools to zero.
    if (!carry->slab.isZero())
      carry->slab = carry->slab.isFinite() ? Slab::finite() : Slab::unknown();
  }
  setLayout(op->getResult(0), std::move(layout));
  return success();
}

/// Normalisations computing statistics over `normalizedAxes` of `x`.
LogicalResult
PadSafetyAnalysis::visitNormalization(Operation *op, Value x,
                                      ArrayRef<int64_t> normalizedAxes) {
  if (failed(requireCarriedOnly(op, x)))
    return failure();
  Layout layout = *layoutOf(x);
  for (auto [axis, carry] : llvm::enumerate(layout)) {
    if (!carry)
      continue;
    if (llvm::is_contained(normalizedAxes, static_cast<int64_t>(axis)))
      return fail(op, "a normalisation over the padded axis");
    // Normalising a constant row gives the bias: finite either way.
    carry->slab = carry->slab.isFinite() ? Slab::finite() : Slab::unknown();
  }
  setLayout(op->getResult(0), std::move(layout));
  return success();
}

LogicalResult PadSafetyAnalysis::visitGather(graph::GatherOp op) {
  Value data = op.getData(), indices = op.getIndices();
  std::optional<int64_t> axis = normalizeAxis(op.getAxis(), rankOf(data));
  if (!axis)
    return notAnalysed(op);
  int64_t indexRank = rankOf(indices);
  Layout layout(rankOf(op.getOutput()));
  if (const Layout *dataLayout = layoutOf(data))
    for (auto [i, carry] : llvm::enumerate(*dataLayout)) {
      int64_t dataAxis = i;
      if (!carry)
        continue;
      if (dataAxis == *axis)
        return fail(op, "a gather along the padded axis");
      layout[dataAxis < *axis ? dataAxis : dataAxis + indexRank - 1] = carry;
    }
  if (const Layout *indexLayout = layoutOf(indices))
    for (auto [i, carry] : llvm::enumerate(*indexLayout)) {
      if (!carry)
        continue;
      // Padded indices must still select real entries: the kernel reads
      // them.
      int64_t size = shapeOf(data)[*axis];
      Slab index = carry->slab;
      if (!index.isConstant() || index.value < -size || index.value >= size)
        return fail(op, "a gather whose padded indices may be out of range");
      layout[*axis + i] = Carry{carry->outer, carry->inner,
                                ofType(elementTypeOf(data), wholeValue(data))};
    }
  setLayout(op.getOutput(), std::move(layout));
  return success();
}

/// GatherND with constant indices. Exporters index a padded axis with the
/// grid of all positions (mask[b, k] for every b and k): where the index
/// into a padded data axis equals the position along one result axis, that
/// axis carries the dim unchanged; any other index into it is unsafe.
LogicalResult PadSafetyAnalysis::visitGatherNd(graph::GatherNdOp op) {
  Value data = op.getData(), indices = op.getIndices();
  if (failed(requireCarriedOnly(op, data)) || op.getBatchDims() != 0)
    return notAnalysed(op);
  std::optional<SmallVector<int64_t>> values = graph::getConstantInts(indices);
  if (!values)
    return fail(op, "gather_nd with non-constant indices is not analysed");
  ArrayRef<int64_t> dataShape = shapeOf(data), indexShape = shapeOf(indices);
  int64_t depth = indexShape.back(); // data axes each index tuple selects
  int64_t gridRank = indexShape.size() - 1;
  Layout layout(rankOf(op.getOutput()));
  for (auto [i, carry] : llvm::enumerate(*layoutOf(data))) {
    int64_t axis = i;
    if (!carry)
      continue;
    // Data axes past the index tuple are copied whole.
    if (axis >= depth) {
      layout[gridRank + axis - depth] = carry;
      continue;
    }
    // Find the grid axis whose position every tuple uses as this index.
    std::optional<int64_t> source;
    for (int64_t gridAxis = 0; gridAxis < gridRank && !source; ++gridAxis) {
      if (indexShape[gridAxis] != dataShape[axis] || layout[gridAxis])
        continue;
      int64_t stride = 1;
      for (int64_t after = gridAxis + 1; after < gridRank; ++after)
        stride *= indexShape[after];
      bool identity = true;
      for (size_t tuple = 0; identity && tuple * depth < values->size();
           ++tuple) {
        int64_t index = (*values)[tuple * depth + axis];
        if (index < 0)
          index += dataShape[axis];
        identity = index ==
                   static_cast<int64_t>(tuple / stride) % indexShape[gridAxis];
      }
      if (identity)
        source = gridAxis;
    }
    if (!source)
      return fail(op, "a gather_nd along the padded axis");
    layout[*source] = carry;
  }
  setLayout(op.getOutput(), std::move(layout));
  return success();
}

/// Reshape, Flatten, Squeeze and Unsqueeze, by their static shapes. Axes
/// are grouped into the shortest runs whose element counts agree (size-1
/// axes join the run before them); within a run, the dim's factor of each
/// padded axis must land inside one result axis.
LogicalResult PadSafetyAnalysis::visitReshape(Operation *op, Value data) {
  if (failed(requireCarriedOnly(op, data)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(data);
  ArrayRef<int64_t> out = shapeOf(op->getResult(0));
  const Layout &inLayout = *layoutOf(data);
  auto empty = [](int64_t size) { return size <= 0; };
  if (llvm::any_of(in, empty) || llvm::any_of(out, empty))
    return fail(op, "a reshape of an empty tensor is not analysed");
  Layout layout(out.size());
  size_t i = 0, o = 0;
  while (i < in.size() || o < out.size()) {
    size_t inBegin = i, outBegin = o;
    int64_t inCount = 1, outCount = 1;
    // Take axes until each side has one (if it has any left) and the
    // counts agree.
    while (inCount != outCount || (i == inBegin && i < in.size()) ||
           (o == outBegin && o < out.size())) {
      bool takeIn = i < in.size() && (inCount < outCount || o == out.size() ||
                                      (inCount == outCount && i == inBegin));
      if (takeIn)
        inCount *= in[i++];
      else if (o < out.size())
        outCount *= out[o++];
      else
        return notAnalysed(op);
    }
    while (i < in.size() && in[i] == 1)
      ++i;
    while (o < out.size() && out[o] == 1)
      ++o;
    // Strides within the run: the dim's factor of axis t spans strides
    // [low, low * N) of the run's flat index.
    int64_t inStride = 1;
    for (size_t t = i; t-- > inBegin; inStride *= in[t]) {
      if (!inLayout[t])
        continue;
      int64_t low = inLayout[t]->inner * inStride;
      int64_t high = low * bucketSize;
      std::optional<size_t> target;
      int64_t targetStride = 0;
      int64_t outStride = 1;
      for (size_t u = o; u-- > outBegin; outStride *= out[u]) {
        int64_t top = outStride * out[u];
        if (outStride > low || high > top || low % outStride || top % high)
          continue;
        // With N = 1 two axes may fit; the one keeping the padding a
        // suffix is the better.
        if (!target || top == high) {
          target = u;
          targetStride = outStride;
        }
      }
      if (!target)
        return fail(op, "a reshape splits the padded axis");
      if (layout[*target])
        return fail(op, "a reshape merges two padded axes");
      int64_t top = targetStride * out[*target];
      layout[*target] =
          Carry{top / high, low / targetStride, inLayout[t]->slab};
    }
  }
  setLayout(op->getResult(0), std::move(layout));
  return success();
}

LogicalResult PadSafetyAnalysis::visitTranspose(graph::TransposeOp op) {
  const Layout &in = *layoutOf(op.getData());
  SmallVector<int64_t> perm = graph::transposePermutation(op);
  Layout layout;
  for (int64_t source : perm)
    layout.push_back(in[source]);
  setLayout(op.getTransposed(), std::move(layout));
  return success();
}

LogicalResult PadSafetyAnalysis::visitSlice(graph::SliceOp op) {
  Value data = op.getData();
  if (failed(requireCarriedOnly(op, data)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(data), out = shapeOf(op.getOutput());
  int64_t count = shapeOf(op.getStarts()).front();
  std::optional<SmallVector<int64_t>> axes, steps;
  if (Value given = op.getAxes())
    axes = graph::getConstantInts(given);
  else
    axes = axisRange(0, count);
  if (Value given = op.getSteps())
    steps = graph::getConstantInts(given);
  else
    steps = SmallVector<int64_t>(count, 1);
  const Layout &layout = *layoutOf(data);
  for (auto [axis, carry] : llvm::enumerate(layout)) {
    if (!carry)
      continue;
    // Only the whole axis, in order, keeps the padding where it was.
    bool whole = in[axis] == out[axis] && steps;
    for (size_t k = 0; whole && k < steps->size(); ++k) {
      std::optional<int64_t> sliced =
          axes ? normalizeAxis((*axes)[k], in.size()) : std::nullopt;
      // Unknown axes might name this one.
      if ((!sliced || *sliced == static_cast<int64_t>(axis)) &&
          (*steps)[k] != 1)
        whole = false;
    }
    if (!whole)
      return fail(op, "a slice along the padded axis");
  }
  setLayout(op.getOutput(), layout);
  return success();
}

LogicalResult PadSafetyAnalysis::visitSplit(graph::SplitOp op) {
  if (failed(requireCarriedOnly(op, op.getInput())))
    return failure();
  const Layout &layout = *layoutOf(op.getInput());
  std::optional<int64_t> axis = normalizeAxis(op.getAxis(), layout.size());
  if (!axis)
    return notAnalysed(op);
  if (layout[*axis] && op.getNumResults() > 1)
    return fail(op, "a split along the padded axis");
  for (Value output : op.getOutputs())
    setLayout(output, layout);
  return success();
}

LogicalResult PadSafetyAnalysis::visitConcat(graph::ConcatOp op) {
  ArrayRef<int64_t> shape = shapeOf(op.getConcatResult());
  std::optional<int64_t> axis = normalizeAxis(op.getAxis(), shape.size());
  if (!axis)
    return notAnalysed(op);
  Layout layout(shape.size());
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i) {
    SmallVector<int64_t> axes(op.getInputs().size(), i);
    if (i == *axis) {
      for (Value input : op.getInputs())
        if (carryAt(input, i))
          return fail(op, "a concat along the padded axis");
      continue;
    }
    FailureOr<std::optional<Carry>> carry =
        mergeAxis(op, shape[i], op.getInputs(), axes);
    if (failed(carry))
      return failure();
    if (!*carry)
      continue;
    // The padding is each input's padding, side by side.
    Slab slab = contribution(op.getInputs().front(), i);
    for (Value input : op.getInputs().drop_front())
      slab = join(slab, contribution(input, i));
    (*carry)->slab = slab;
    layout[i] = *carry;
  }
  setLayout(op.getConcatResult(), std::move(layout));
  return success();
}

LogicalResult PadSafetyAnalysis::visitTile(graph::TileOp op) {
  if (failed(requireCarriedOnly(op, op.getInput())))
    return failure();
  std::optional<SmallVector<int64_t>> repeats =
      graph::getConstantInts(op.getRepeats());
  const Layout &layout = *layoutOf(op.getInput());
  for (auto [axis, carry] : llvm::enumerate(layout))
    if (carry && (!repeats || (*repeats)[axis] != 1))
      return fail(op, "a tile along the padded axis");
  setLayout(op.getOutput(), layout);
  return success();
}

LogicalResult PadSafetyAnalysis::visitPad(graph::PadOp op) {
  Value data = op.getData();
  if (failed(requireCarriedOnly(op, data)))
    return failure();
  int64_t rank = rankOf(data);
  std::optional<SmallVector<int64_t>> pads =
      graph::getConstantInts(op.getPads());
  std::optional<SmallVector<int64_t>> axes;
  if (Value given = op.getAxes())
    axes = graph::getConstantInts(given);
  else
    axes = axisRange(0, rank);
  if (!pads || !axes || pads->size() != 2 * axes->size())
    return fail(op, "pad with non-constant pads is not analysed");
  Layout layout = *layoutOf(data);
  for (auto [k, axis] : llvm::enumerate(*axes)) {
    std::optional<int64_t> padded = normalizeAxis(axis, rank);
    if (!padded)
      return notAnalysed(op);
    if (layout[*padded] && ((*pads)[k] != 0 || (*pads)[k + axes->size()] != 0))
      return fail(op, "a pad along the padded axis");
  }
  // Border padding of the other axes lands in the dim's padded region too.
  if (op.getMode() == "constant") {
    Slab border = op.getConstantValue() ? wholeValue(op.getConstantValue())
                                        : Slab::constant(0);
    for (std::optional<Carry> &carry : layout)
      if (carry)
        carry->slab = join(carry->slab, border);
  }
  setLayout(op.getOutput(), std::move(layout));
  return success();
}

LogicalResult PadSafetyAnalysis::visitCumSum(graph::CumSumOp op) {
  if (failed(requireCarriedOnly(op, op.getX())))
    return failure();
  Layout layout = *layoutOf(op.getX());
  std::optional<SmallVector<int64_t>> axis =
      graph::getConstantInts(op.getAxis());
  std::optional<int64_t> scanned =
      axis && axis->size() == 1 ? normalizeAxis(axis->front(), layout.size())
                                : std::nullopt;
  for (auto [i, carry] : llvm::enumerate(layout)) {
    if (!carry)
      continue;
    if (!scanned || *scanned == static_cast<int64_t>(i))
      return fail(op, "a cumulative sum along the padded axis");
    if (!carry->slab.isZero())
      carry->slab = carry->slab.isFinite() ? Slab::finite() : Slab::unknown();
  }
  setLayout(op.getY(), std::move(layout));
  return success();
}

LogicalResult PadSafetyAnalysis::visitTopK(graph::TopKOp op) {
  if (failed(requireCarriedOnly(op, op.getX())))
    return failure();
  Layout layout = *layoutOf(op.getX());
  std::optional<int64_t> axis = normalizeAxis(op.getAxis(), layout.size());
  if (!axis)
    return notAnalysed(op);
  if (layout[*axis])
    return fail(op, "a top-k along the padded axis");
  // The values are some of the row's; the indices are integers.
  setLayout(op.getValues(), layout);
  for (std::optional<Carry> &carry : layout)
    if (carry)
      carry->slab = Slab::finite();
  setLayout(op.getIndices(), std::move(layout));
  return success();
}

LogicalResult PadSafetyAnalysis::visitTrilu(graph::TriluOp op) {
  if (failed(requireCarriedOnly(op, op.getInput())))
    return failure();
  Layout layout = *layoutOf(op.getInput());
  int64_t rank = layout.size();
  for (auto [axis, carry] : llvm::enumerate(layout)) {
    if (!carry)
      continue;
    if (static_cast<int64_t>(axis) >= rank - 2)
      return fail(op, "trilu along the padded axis");
    carry->slab = join(carry->slab, Slab::constant(0));
  }
  setLayout(op.getOutput(), std::move(layout));
  return success();
}

/// RoiAlign computes each box and channel alone: padded boxes (rows of
/// rois and batch_indices) give padded result rows, padded channels padded
/// result channels, each a sum or max of weighted values of x. Padded batch
/// indices must still name an image (the kernels refuse others); padded
/// images and pixels would be sampled.
LogicalResult PadSafetyAnalysis::visitRoiAlign(graph::RoiAlignOp op) {
  Value x = op.getX(), rois = op.getRois(), batch = op.getBatchIndices();
  if (carryAt(x, 0) || carryAt(x, 2) || carryAt(x, 3))
    return fail(op, "roi_align samples along the padded axis");
  if (carryAt(rois, 1))
    return notAnalysed(op);
  Slab values = wholeValue(x).isFinite() ? Slab::finite() : Slab::unknown();
  Layout layout(rankOf(op.getY()));
  FailureOr<std::optional<Carry>> boxes =
      mergeAxis(op, shapeOf(op.getY())[0], {rois, batch}, {0, 0});
  if (failed(boxes))
    return failure();
  if (*boxes) {
    Slab index = contribution(batch, 0);
    if (!index.isConstant() || index.value < 0 || index.value >= shapeOf(x)[0])
      return fail(op, "a roi_align whose padded batch indices may be out of "
                      "range");
    layout[0] = Carry{(*boxes)->outer, (*boxes)->inner, values};
  }
  if (std::optional<Carry> channels = carryAt(x, 1))
    layout[1] =
        Carry{channels->outer, channels->inner,
              channels->slab.isFinite() ? Slab::finite() : Slab::unknown()};
  setLayout(op.getY(), std::move(layout));
  return success();
}

LogicalResult PadSafetyAnalysis::visitShape(graph::ShapeOp op) {
  const Layout &layout = *layoutOf(op.getData());
  std::optional<int64_t> end;
  if (std::optional<uint64_t> given = op.getEnd())
    end = static_cast<int64_t>(*given);
  auto [first, last] = graph::shapeDimRange(
      layout.size(), static_cast<int64_t>(op.getStart()), end);
  for (int64_t axis = first; axis < last; ++axis)
    if (layout[axis])
      return fail(op, "a read of the padded dim's size");
  return success();
}

} // namespace

PadSafety analyzePadSafety(func::FuncOp func, StringRef dim) {
  PadSafety safety = PadSafetyAnalysis(func, dim).run();
  // The model computes with a size that the bucket folded into a constant.
  auto uses = func->getAttrOfType<DictionaryAttr>(graph::kSizeUseAttr);
  auto use = uses ? uses.getAs<DictionaryAttr>(dim) : DictionaryAttr();
  if (!use || !safety.padSafe)
    return safety;
  auto text = [&](StringRef key) {
    auto value = use.getAs<StringAttr>(key);
    return value ? value.str() : std::string();
  };
  // Padding keeps it exact; a run split into parts does not.
  if (use.get("split_only")) {
    if (safety.splittable) {
      safety.splittable = false;
      safety.node = text("node");
      safety.reason = text("reason");
    }
    return safety;
  }
  safety.padSafe = safety.splittable = false;
  safety.node = text("node");
  safety.reason = text("reason");
  safety.outputAxes.assign(func.getNumResults(), -1);
  return safety;
}

LogicalResult analyzePadSafety(ModuleOp module) {
  Builder b(module.getContext());
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  // Sizes folded into constants, found by comparing two buckets per dim.
  llvm::StringMap<std::optional<SizeUse>> constantUses;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    llvm::SetVector<StringRef> dims;
    for (unsigned index = 0; index < func.getNumArguments(); ++index) {
      auto names = func.getArgAttrOfType<ArrayAttr>(index, graph::kDimsAttr);
      if (!names)
        continue;
      for (Attribute name : names) {
        auto text = dyn_cast<StringAttr>(name);
        if (!text)
          return func.emitError()
                 << "argument " << index << " has a " << graph::kDimsAttr
                 << " entry that is not a string";
        if (!text.getValue().empty())
          dims.insert(text.getValue());
      }
    }
    if (dims.empty())
      continue;
    SmallVector<NamedAttribute> entries;
    for (StringRef dim : dims) {
      PadSafety safety = analyzePadSafety(func, dim);
      auto known = constantUses.find(dim);
      if (known == constantUses.end())
        known = constantUses
                    .try_emplace(dim, findBucketDependentConstant(funcs, dim))
                    .first;
      if (const std::optional<SizeUse> &use = known->second;
          use && safety.padSafe) {
        safety.padSafe = safety.splittable = false;
        safety.node = use->node;
        safety.reason = use->reason;
        safety.outputAxes.assign(func.getNumResults(), -1);
      }
      entries.push_back(b.getNamedAttr(
          dim,
          b.getDictionaryAttr({
              b.getNamedAttr("safe", b.getBoolAttr(safety.padSafe)),
              b.getNamedAttr("splittable", b.getBoolAttr(safety.splittable)),
              b.getNamedAttr("node", b.getStringAttr(safety.node)),
              b.getNamedAttr("reason", b.getStringAttr(safety.reason)),
              b.getNamedAttr("inputs", b.getI64ArrayAttr(safety.inputAxes)),
              b.getNamedAttr("outputs", b.getI64ArrayAttr(safety.outputAxes)),
          })));
    }
    func->setAttr(graph::kPadSafetyAttr, b.getDictionaryAttr(entries));
  }
  return success();
}

namespace {
struct AnalyzePadSafetyPass : impl::AnalyzePadSafetyBase<AnalyzePadSafetyPass> {
  void runOnOperation() override {
    if (failed(analyzePadSafety(getOperation())))
      signalPassFailure();
  }
};
} // namespace

} // namespace graphc
