//===- GraphScalar.cpp - pointwise ops' scalar semantics ------------------===//
//
// Each pointwise op's ScalarComputeOpInterface. An op whose ODS definition
// names its scalar definition (`let scalarDefinition = "softsign"`) gets its
// body and model from graphc-tblgen -gen-scalar-models
// (GraphScalarModels.cpp.inc): the template in lib/Support/ScalarOps.h, which
// the host kernels instantiate too, called with the op's attributes through
// their ODS accessors. The bodies here are the ops a template with
// operands-then-attributes cannot express: string attributes, optional or
// variadic operands, an exponent of another type, conversions.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphScalar.h"

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "lib/Support/Float8.h"

#include <cmath>

#include <cmath>

using namespace mlir;
using namespace graphc::graph;
using graphc::scalar::ScalarValue;
using graphc::scalar::TreeBuilder;
namespace scalar = graphc::scalar;

#include "dialects/Graph/GraphScalarInterface.cpp.inc"

namespace {

using Operands = ArrayRef<ScalarValue>;

bool isFloatElement(Value value) {
  return isa<FloatType>(cast<ShapedType>(value.getType()).getElementType());
}

//===----------------------------------------------------------------------===//
// Bodies written by hand
//===----------------------------------------------------------------------===//

ScalarValue body(GeluOp op, TreeBuilder &b, Operands x) {
  StringRef approximate = op.getApproximate();
  if (approximate != "tanh" && approximate != "none")
    return b.fail("unsupported attribute value");
  return scalar::gelu(b, x[0], approximate == "tanh");
}
ScalarValue body(PowOp op, TreeBuilder &b, Operands x) {
  return scalar::pow(b, x[0], x[1], b.isFloat(),
                     isFloatElement(op->getOperand(1)));
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
// The conversion happens where the value is stored or defined. That
// conversion to an 8-bit float keeps inf and NaN; a saturating cast clamps
// to the largest finite value first (NaN stays NaN), which is the same as
// saturating in the conversion. An integer input is clamped only where its
// type reaches past that value, so that the bound is one of its values.
ScalarValue body(CastOp op, TreeBuilder &b, Operands x) {
  auto to = dyn_cast<FloatType>(op.getTo());
  if (!to || to.getWidth() != 8 || op.getSaturate() == 0)
    return x[0];
  int32_t dtype = toHostDtype(to);
  double max = graphc::gc_f8_max(dtype);
  Type from = cast<ShapedType>(op.getInput().getType()).getElementType();
  ScalarValue high = b.constant(max), low = b.constant(-max);
  if (isa<FloatType>(from))
    return scalar::clip(b, x[0], &low, &high);
  auto integer = cast<IntegerType>(from);
  unsigned width = integer.getWidth();
  if (width == 1)
    return x[0];
  bool isUnsigned = integer.isUnsigned();
  double typeHigh =
      isUnsigned ? std::ldexp(1.0, width) - 1 : std::ldexp(1.0, width - 1) - 1;
  if (typeHigh <= max)
    return x[0];
  return scalar::clip(b, x[0], isUnsigned ? nullptr : &low, &high);
}
ScalarValue body(ClipOp, TreeBuilder &b, Operands x) {
  const ScalarValue *low = x.size() > 1 && x[1].valid() ? &x[1] : nullptr;
  const ScalarValue *high = x.size() > 2 && x[2].valid() ? &x[2] : nullptr;
  return scalar::clip(b, x[0], low, high);
}
// The integer range of the result picks quantize_linear's bounds.
ScalarValue body(QuantizeLinearOp op, TreeBuilder &b, Operands x) {
  auto type = dyn_cast<IntegerType>(op.getOutput().getType().getElementType());
  if (!type)
    return b.fail("quantize_linear supports integer results only");
  unsigned width = type.getWidth();
  double low = type.isUnsigned() ? 0 : -std::ldexp(1.0, width - 1);
  double high = type.isUnsigned() ? std::ldexp(1.0, width) - 1
                                  : std::ldexp(1.0, width - 1) - 1;
  return scalar::quantizeLinear(b, x[0], x[1], x[2], low, high);
}
ScalarValue body(DequantizeLinearOp, TreeBuilder &b, Operands x) {
  return scalar::dequantizeLinear(b, x[0], x[1], x[2]);
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

#define GRAPHC_SCALAR_BODIES
#include "dialects/Graph/GraphScalarModels.cpp.inc"
#undef GRAPHC_SCALAR_BODIES

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

#define GRAPHC_SCALAR_ATTACH
#include "dialects/Graph/GraphScalarModels.cpp.inc"
#undef GRAPHC_SCALAR_ATTACH

} // namespace

void graphc::graph::attachScalarModels(MLIRContext &context) {
  attachDefinedScalarModels(context);
  attach<AnyInput, PowOp, WhereOp, CastOp, ClipOp, SumOp, MaxOp, MinOp>(
      context);
  attach<FloatInput, GeluOp, MeanOp, QuantizeLinearOp>(context);
  attach<IntegerInput, BitShiftOp, DequantizeLinearOp>(context);
}
