//===- GraphScalar.cpp - pointwise ops' scalar semantics ------------------===//
//
// Each pointwise op's ScalarComputeOpInterface: its attributes through the
// ODS accessors (each ONNX default is defined once, in the op's definition)
// and its types passed to its body in lib/Support/ScalarOps.h, which the
// host kernels instantiate too.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphScalar.h"

#include "dialects/Graph/GraphOps.h"

using namespace mlir;
using namespace graphc::graph;
using graphc::scalar::ScalarValue;
using graphc::scalar::TreeBuilder;
namespace scalar = graphc::scalar;

#include "dialects/Graph/GraphScalarInterface.cpp.inc"

namespace {

using Operands = ArrayRef<ScalarValue>;

double value(const APFloat &v) { return v.convertToDouble(); }

bool isFloatElement(Value value) {
  return isa<FloatType>(cast<ShapedType>(value.getType()).getElementType());
}

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

// The attribute-free body in lib/Support/ScalarOps.h.
#define GRAPHC_SCALAR_BODY(Op, fn)                                             \
  ScalarValue body(Op, TreeBuilder &b, Operands x) {                           \
    return scalar::fn(b, x[0]);                                                \
  }
GRAPHC_SCALAR_BODY(AbsOp, abs)
GRAPHC_SCALAR_BODY(NegOp, neg)
GRAPHC_SCALAR_BODY(ReciprocalOp, reciprocal)
GRAPHC_SCALAR_BODY(ReluOp, relu)
GRAPHC_SCALAR_BODY(SigmoidOp, sigmoid)
GRAPHC_SCALAR_BODY(SiluOp, silu)
GRAPHC_SCALAR_BODY(HardSwishOp, hardSwish)
GRAPHC_SCALAR_BODY(SoftplusOp, softplus)
GRAPHC_SCALAR_BODY(SoftsignOp, softsign)
GRAPHC_SCALAR_BODY(MishOp, mish)
GRAPHC_SCALAR_BODY(RoundOp, round)
GRAPHC_SCALAR_BODY(SignOp, sign)
GRAPHC_SCALAR_BODY(NotOp, logicalNot)
GRAPHC_SCALAR_BODY(BitwiseNotOp, bitwiseNot)
GRAPHC_SCALAR_BODY(IsNanOp, isNan)
#undef GRAPHC_SCALAR_BODY
ScalarValue body(LeakyReluOp op, TreeBuilder &b, Operands x) {
  return scalar::leakyRelu(b, x[0], value(op.getAlpha()));
}
ScalarValue body(HardSigmoidOp op, TreeBuilder &b, Operands x) {
  return scalar::hardSigmoid(b, x[0], value(op.getAlpha()),
                             value(op.getBeta()));
}
ScalarValue body(GeluOp op, TreeBuilder &b, Operands x) {
  StringRef approximate = op.getApproximate();
  if (approximate != "tanh" && approximate != "none")
    return b.fail("unsupported attribute value");
  return scalar::gelu(b, x[0], approximate == "tanh");
}
ScalarValue body(EluOp op, TreeBuilder &b, Operands x) {
  return scalar::elu(b, x[0], value(op.getAlpha()));
}
ScalarValue body(SeluOp op, TreeBuilder &b, Operands x) {
  return scalar::selu(b, x[0], value(op.getAlpha()), value(op.getGamma()));
}
ScalarValue body(CeluOp op, TreeBuilder &b, Operands x) {
  return scalar::celu(b, x[0], value(op.getAlpha()));
}
ScalarValue body(ThresholdedReluOp op, TreeBuilder &b, Operands x) {
  return scalar::thresholdedRelu(b, x[0], value(op.getAlpha()));
}
ScalarValue body(ShrinkOp op, TreeBuilder &b, Operands x) {
  return scalar::shrink(b, x[0], value(op.getLambd()), value(op.getBias()));
}
ScalarValue body(IsInfOp op, TreeBuilder &b, Operands x) {
  return scalar::isInf(b, x[0], op.getDetectPositive() != 0,
                       op.getDetectNegative() != 0);
}
ScalarValue body(IdentityOp, TreeBuilder &, Operands x) { return x[0]; }
// The math function of the op's own name.
#define GRAPHC_MATH_BODY(Op, fn)                                               \
  ScalarValue body(Op, TreeBuilder &b, Operands x) { return b.fn(x[0]); }
GRAPHC_MATH_BODY(ExpOp, exp)
GRAPHC_MATH_BODY(LogOp, log)
GRAPHC_MATH_BODY(SqrtOp, sqrt)
GRAPHC_MATH_BODY(TanhOp, tanh)
GRAPHC_MATH_BODY(ErfOp, erf)
GRAPHC_MATH_BODY(FloorOp, floor)
GRAPHC_MATH_BODY(CeilOp, ceil)
GRAPHC_MATH_BODY(SinOp, sin)
GRAPHC_MATH_BODY(CosOp, cos)
GRAPHC_MATH_BODY(TanOp, tan)
GRAPHC_MATH_BODY(AsinOp, asin)
GRAPHC_MATH_BODY(AcosOp, acos)
GRAPHC_MATH_BODY(AtanOp, atan)
GRAPHC_MATH_BODY(SinhOp, sinh)
GRAPHC_MATH_BODY(CoshOp, cosh)
GRAPHC_MATH_BODY(AsinhOp, asinh)
GRAPHC_MATH_BODY(AcoshOp, acosh)
GRAPHC_MATH_BODY(AtanhOp, atanh)
#undef GRAPHC_MATH_BODY

//===----------------------------------------------------------------------===//
// Binary, ternary and variadic
//===----------------------------------------------------------------------===//

#define GRAPHC_INFIX_BODY(Op, symbol)                                          \
  ScalarValue body(Op, TreeBuilder &, Operands x) { return x[0] symbol x[1]; }
GRAPHC_INFIX_BODY(AddOp, +)
GRAPHC_INFIX_BODY(SubOp, -)
GRAPHC_INFIX_BODY(MulOp, *)
GRAPHC_INFIX_BODY(DivOp, /)
GRAPHC_INFIX_BODY(EqualOp, ==)
GRAPHC_INFIX_BODY(LessOp, <)
GRAPHC_INFIX_BODY(LessOrEqualOp, <=)
GRAPHC_INFIX_BODY(GreaterOp, >)
GRAPHC_INFIX_BODY(GreaterOrEqualOp, >=)
GRAPHC_INFIX_BODY(AndOp, &&)
GRAPHC_INFIX_BODY(OrOp, ||)
GRAPHC_INFIX_BODY(XorOp, !=)
GRAPHC_INFIX_BODY(BitwiseAndOp, &)
GRAPHC_INFIX_BODY(BitwiseOrOp, |)
GRAPHC_INFIX_BODY(BitwiseXorOp, ^)
#undef GRAPHC_INFIX_BODY

ScalarValue body(PowOp op, TreeBuilder &b, Operands x) {
  return scalar::pow(b, x[0], x[1], b.isFloat(),
                     isFloatElement(op->getOperand(1)));
}
ScalarValue body(ModOp op, TreeBuilder &b, Operands x) {
  return scalar::mod(b, x[0], x[1], op.getFmod() != 0, b.isFloat());
}
ScalarValue body(PReluOp, TreeBuilder &b, Operands x) {
  return scalar::prelu(b, x[0], x[1]);
}
ScalarValue body(BitShiftOp op, TreeBuilder &b, Operands x) {
  StringRef direction = op.getDirection();
  if (direction == "LEFT")
    return x[0] << x[1];
  if (direction == "RIGHT")
    return x[0] >> x[1];
  return b.fail(
      ("direction must be \"LEFT\" or \"RIGHT\", got \"" + direction + "\"")
          .str());
}
ScalarValue body(WhereOp, TreeBuilder &b, Operands x) {
  return b.select(x[0], x[1], x[2]);
}
// The conversion happens where the value is stored or defined.
ScalarValue body(CastOp, TreeBuilder &, Operands x) { return x[0]; }
ScalarValue body(ClipOp, TreeBuilder &b, Operands x) {
  const ScalarValue *low = x.size() > 1 && x[1].valid() ? &x[1] : nullptr;
  const ScalarValue *high = x.size() > 2 && x[2].valid() ? &x[2] : nullptr;
  return scalar::clip(b, x[0], low, high);
}
ScalarValue sumOf(Operands x) {
  ScalarValue acc = x[0];
  for (ScalarValue operand : x.drop_front())
    acc = acc + operand;
  return acc;
}
ScalarValue body(SumOp, TreeBuilder &, Operands x) { return sumOf(x); }
ScalarValue body(MeanOp, TreeBuilder &b, Operands x) {
  return b.paren(sumOf(x)) / b.constant(x.size());
}
ScalarValue body(MaxOp, TreeBuilder &b, Operands x) {
  ScalarValue acc = x[0];
  for (ScalarValue operand : x.drop_front())
    acc = b.max(acc, operand);
  return acc;
}
ScalarValue body(MinOp, TreeBuilder &b, Operands x) {
  ScalarValue acc = x[0];
  for (ScalarValue operand : x.drop_front())
    acc = b.min(acc, operand);
  return acc;
}

//===----------------------------------------------------------------------===//
// The models
//===----------------------------------------------------------------------===//

/// An op whose body() is its scalar semantics for any input type.
template <typename OpT>
struct AnyInput : ScalarComputeOpInterface::ExternalModel<AnyInput<OpT>, OpT> {
  ScalarValue buildScalar(Operation *op, TreeBuilder &b, Operands x) const {
    return body(cast<OpT>(op), b, x);
  }
};

/// An op defined on floating-point input only.
template <typename OpT>
struct FloatInput
    : ScalarComputeOpInterface::ExternalModel<FloatInput<OpT>, OpT> {
  ScalarValue buildScalar(Operation *op, TreeBuilder &b, Operands x) const {
    if (!b.isFloat())
      return b.fail("input 0 must have a floating-point element type");
    return body(cast<OpT>(op), b, x);
  }
};

/// An op defined on integer input only.
template <typename OpT>
struct IntegerInput
    : ScalarComputeOpInterface::ExternalModel<IntegerInput<OpT>, OpT> {
  ScalarValue buildScalar(Operation *op, TreeBuilder &b, Operands x) const {
    if (b.isFloat())
      return b.fail("input 0 must have an integer element type");
    return body(cast<OpT>(op), b, x);
  }
};

template <template <typename> class Model, typename... Ops>
void attach(MLIRContext &context) {
  (Ops::template attachInterface<Model<Ops>>(context), ...);
}

} // namespace

void graphc::graph::attachScalarModels(MLIRContext &context) {
  attach<AnyInput, AbsOp, NegOp, ReluOp, LeakyReluOp, ShrinkOp, SignOp, NotOp,
         BitwiseNotOp, IdentityOp, AddOp, SubOp, MulOp, DivOp, EqualOp, LessOp,
         LessOrEqualOp, GreaterOp, GreaterOrEqualOp, AndOp, OrOp, XorOp, PowOp,
         ModOp, PReluOp, WhereOp, CastOp, ClipOp, SumOp, MeanOp, MaxOp, MinOp>(
      context);
  attach<FloatInput, ExpOp, LogOp, SqrtOp, ReciprocalOp, SigmoidOp,
         HardSigmoidOp, HardSwishOp, TanhOp, ErfOp, GeluOp, SoftplusOp,
         SoftsignOp, EluOp, SeluOp, CeluOp, ThresholdedReluOp, MishOp, FloorOp,
         CeilOp, RoundOp, SinOp, CosOp, TanOp, AsinOp, AcosOp, AtanOp, SinhOp,
         CoshOp, AsinhOp, AcoshOp, AtanhOp, IsNanOp, IsInfOp, SiluOp>(context);
  attach<IntegerInput, BitShiftOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp>(
      context);
}
