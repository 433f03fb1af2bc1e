//===- EmitElementwise.cpp - pointwise expressions and kernels ------------===//
//
// Per-op scalar expression builders (one element of a pointwise op's result
// from its operands' values), and the two loops that use them: the kernel of
// one pointwise op, and the pointwise fusion template computing a chain of
// them per output element. One thread per output element in a grid-stride
// loop; inputs are read at offsets computed from the output coordinates and
// their baked broadcast strides; f16/bf16 compute in float.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/EmitSupport.h"

#include "dialects/Exec/ExecOps.h"
#include "dialects/Graph/GraphOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;

namespace graphc::codegen::cuda {
namespace {

/// Mnemonics whose expression uses floating-point math only.
bool isFloatOnlyUnary(StringRef m) {
  return llvm::StringSwitch<bool>(m)
      .Cases("exp", "log", "sqrt", "reciprocal", "sigmoid", "hard_sigmoid",
             "hard_swish", "tanh", "erf", "gelu", true)
      .Cases("softplus", "softsign", "elu", "selu", "celu", "thresholded_relu",
             "mish", "floor", "ceil", "round", true)
      .Cases("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
             "asinh", "acosh", true)
      .Cases("atanh", "is_nan", "is_inf", "silu", true)
      .Default(false);
}

Type elementTypeOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

/// The expression computing unary op `m` (attributes read from `op`) on `x`
/// of compute type `t`.
std::optional<std::string> unaryExpr(Operation *op, StringRef m, StringRef t,
                                     const std::string &x) {
  auto c = [&](double v) { return literal(v, t); };
  // Functional casts do not accept multi-word types like "signed char".
  auto as = [&](const std::string &expr) {
    return "static_cast<" + t.str() + ">(" + expr + ")";
  };
  auto attr = [&](StringRef name, double def) {
    return literal(floatAttr(op, name, def), t);
  };
  std::string one = c(1), zero = c(0);
  if (m == "abs")
    return x + " < " + zero + " ? " + as("-" + x) + " : " + x;
  if (m == "neg")
    return as("-" + x);
  if (m == "reciprocal")
    return one + " / " + x;
  if (m == "relu")
    return x + " > " + zero + " ? " + x + " : " + zero;
  if (m == "leaky_relu")
    return x + " >= " + zero + " ? " + x + " : " + attr("alpha", 0.01) +
           " * " + x;
  if (m == "sigmoid")
    return one + " / (" + one + " + gc_exp(-" + x + "))";
  if (m == "silu")
    return x + " / (" + one + " + gc_exp(-" + x + "))";
  if (m == "hard_sigmoid")
    return "gc_max(" + zero + ", gc_min(" + one + ", " + attr("alpha", 0.2) +
           " * " + x + " + " + attr("beta", 0.5) + "))";
  if (m == "hard_swish")
    return x + " * gc_max(" + zero + ", gc_min(" + one + ", " + c(1.0 / 6.0) +
           " * " + x + " + " + c(0.5) + "))";
  if (m == "gelu") {
    std::string approximate = strAttr(op, "approximate", "none");
    if (approximate == "tanh")
      return c(0.5) + " * " + x + " * (" + one + " + gc_tanh(" +
             c(0.7978845608028654) + " * (" + x + " + " + c(0.044715) + " * " +
             x + " * " + x + " * " + x + ")))";
    if (approximate == "none")
      return c(0.5) + " * " + x + " * (" + one + " + gc_erf(" + x + " * " +
             c(0.7071067811865476) + "))";
    return std::nullopt;
  }
  std::string softplus = x + " > " + zero + " ? " + x +
                         " + gc_log1p(gc_exp(-" + x +
                         ")) : gc_log1p(gc_exp(" + x + "))";
  if (m == "softplus")
    return softplus;
  if (m == "softsign")
    return x + " / (" + one + " + gc_fabs(" + x + "))";
  if (m == "elu")
    return x + " >= " + zero + " ? " + x + " : " + attr("alpha", 1.0) +
           " * (gc_exp(" + x + ") - " + one + ")";
  if (m == "selu")
    return attr("gamma", 1.05070102214813232421875) + " * (" + x + " > " +
           zero + " ? " + x + " : " +
           attr("alpha", 1.67326319217681884765625) + " * (gc_exp(" + x +
           ") - " + one + "))";
  if (m == "celu") {
    std::string alpha = attr("alpha", 1.0);
    return "gc_max(" + zero + ", " + x + ") + gc_min(" + zero + ", " + alpha +
           " * (gc_exp(" + x + " / " + alpha + ") - " + one + "))";
  }
  if (m == "thresholded_relu")
    return x + " > " + attr("alpha", 1.0) + " ? " + x + " : " + zero;
  if (m == "mish")
    return x + " * gc_tanh(" + softplus + ")";
  if (m == "shrink") {
    std::string lambd = attr("lambd", 0.5), bias = attr("bias", 0.0);
    return x + " < -" + lambd + " ? " + as(x + " + " + bias) + " : (" + x +
           " > " + lambd + " ? " + as(x + " - " + bias) + " : " + zero + ")";
  }
  if (m == "round")
    return "gc_rint(" + x + ")";
  if (m == "sign")
    return as("(" + x + " > " + zero + ") - (" + x + " < " + zero + ")");
  if (m == "not")
    return "!" + x;
  if (m == "bitwise_not")
    return "~" + x;
  if (m == "is_nan")
    return "gc_isnan(" + x + ")";
  if (m == "is_inf") {
    std::string sides;
    if (intAttr(op, "detect_positive", 1) != 0)
      sides = x + " > " + zero;
    if (intAttr(op, "detect_negative", 1) != 0)
      sides += (sides.empty() ? "" : " || ") + x + " < " + zero;
    return sides.empty() ? "false" : "gc_isinf(" + x + ") && (" + sides + ")";
  }
  if (m == "identity")
    return x;
  // The remaining ops are the math function of the same name.
  if (llvm::is_contained({"exp", "log", "sqrt", "tanh", "erf", "floor", "ceil",
                          "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
                          "cosh", "asinh", "acosh", "atanh"},
                         m))
    return ("gc_" + m + "(" + x + ")").str();
  return std::nullopt;
}

/// The expression computing binary op `m` on `a` and `b`; fails with a
/// diagnostic at `op`.
FailureOr<std::string> binaryExpr(Operation *op, StringRef m,
                                  const std::string &a, const std::string &b) {
  Type lhsType = elementTypeOf(op->getOperand(0));
  Type rhsType = elementTypeOf(op->getOperand(1));
  std::string ta = computeType(lhsType);
  bool isFloat = isFloatType(lhsType);
  if (m.starts_with("bit") && isFloat)
    return failOp(op, "input 0 must have an integer element type");
  std::optional<std::string> symbol =
      llvm::StringSwitch<std::optional<std::string>>(m)
          .Case("add", "+")
          .Case("sub", "-")
          .Case("mul", "*")
          .Case("div", "/")
          .Case("equal", "==")
          .Case("less", "<")
          .Case("less_or_equal", "<=")
          .Case("greater", ">")
          .Case("greater_or_equal", ">=")
          .Case("and", "&&")
          .Case("or", "||")
          .Case("xor", "!=")
          .Case("bitwise_and", "&")
          .Case("bitwise_or", "|")
          .Case("bitwise_xor", "^")
          .Default(std::nullopt);
  if (symbol)
    return a + " " + *symbol + " " + b;
  if (m == "pow") {
    // Pow's exponent may have another type than its base.
    if (isFloat)
      return "gc_pow(" + a + ", static_cast<" + ta + ">(" + b + "))";
    if (isFloatType(rhsType))
      return "gc_pow(static_cast<double>(" + a + "), static_cast<double>(" +
             b + "))";
    return "gc_ipow(static_cast<long long>(" + a +
           "), static_cast<long long>(" + b + "))";
  }
  if (m == "mod") {
    if (intAttr(op, "fmod", 0) != 0)
      return isFloat ? "gc_fmod(" + a + ", " + b + ")" : a + " % " + b;
    return "gc_pymod(" + a + ", " + b + ")";
  }
  if (m == "prelu")
    return a + " < " + literal(0, ta) + " ? " + a + " * " + b + " : " + a;
  if (m == "bit_shift") {
    std::string direction = strAttr(op, "direction", "");
    if (direction == "LEFT")
      return a + " << " + b;
    if (direction == "RIGHT")
      return a + " >> " + b;
    return failOp(op, "direction must be \"LEFT\" or \"RIGHT\", got \"" +
                          direction + "\"");
  }
  return failOp(op, "no pointwise expression for this op");
}

/// Opens the loop over the result elements of shape `outShape` and returns,
/// per input shape, the offset expression of the element it contributes
/// (numpy broadcasting).
SmallVector<std::string> openBroadcastLoop(KernelEmitter &e,
                                           ArrayRef<int64_t> outShape,
                                           ArrayRef<ArrayRef<int64_t>> shapes) {
  e.openLinearLoop(numElements(outShape));
  SmallVector<std::string> offsets;
  bool needCoords = false;
  for (ArrayRef<int64_t> shape : shapes) {
    if (shape == outShape)
      offsets.push_back("i");
    else if (numElements(shape) == 1)
      offsets.push_back("0");
    else {
      offsets.push_back(offsetExpr("o", broadcastStrides(shape, outShape)));
      needCoords = true;
    }
  }
  if (needCoords)
    e.coords("o", "i", outShape);
  return offsets;
}

/// `const <type> <name> = <value>;`, rounding `value` through the storage
/// type when that is narrower than the compute type (f16, bf16), so that a
/// fused intermediate equals what a kernel of its own would have stored.
std::string defineValue(Type storage, StringRef name, StringRef value) {
  std::string compute = computeType(storage);
  if (compute != cudaType(storage))
    return ("const " + compute + " " + name + " = gc_ld(gc_cvt<" +
            cudaType(storage) + ">(" + value + "));")
        .str();
  return ("const " + compute + " " + name + " = " + value + ";").str();
}

/// A splat constant as a literal of compute type `t`, if it is one.
std::optional<std::string> splatLiteral(Operation *constant, StringRef t) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(
      constant->getAttr("value"));
  if (!dense || !dense.isSplat())
    return std::nullopt;
  Type element = dense.getElementType();
  if (isa<FloatType>(element))
    return literal(dense.getSplatValue<APFloat>().convertToDouble(), t);
  if (element.isInteger(1))
    return std::string(dense.getSplatValue<bool>() ? "true" : "false");
  auto integer = cast<IntegerType>(element);
  APInt value = dense.getSplatValue<APInt>();
  std::string digits = integer.isUnsigned()
                           ? std::to_string(value.getZExtValue()) + "ULL"
                           : std::to_string(value.getSExtValue()) + "LL";
  // The most negative long long has no literal of its own.
  if (!integer.isUnsigned() && value.isMinSignedValue() &&
      integer.getWidth() == 64)
    digits = "(-9223372036854775807LL - 1)";
  return "static_cast<" + t.str() + ">(" + digits + ")";
}

} // namespace

LogicalResult failOp(Operation *op, const Twine &reason) {
  return op->emitError() << "cannot emit a cuda kernel for "
                         << op->getName().getStringRef() << ": " << reason;
}

int64_t intAttr(Operation *op, StringRef name, int64_t defaultValue) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(name))
    return attr.getInt();
  return defaultValue;
}

double floatAttr(Operation *op, StringRef name, double defaultValue) {
  if (auto attr = op->getAttrOfType<FloatAttr>(name))
    return attr.getValueAsDouble();
  return defaultValue;
}

std::string strAttr(Operation *op, StringRef name, StringRef defaultValue) {
  if (auto attr = op->getAttrOfType<StringAttr>(name))
    return attr.getValue().str();
  return defaultValue.str();
}

FailureOr<std::string> pointwiseExpr(Operation *op,
                                     ArrayRef<std::string> operands) {
  StringRef m = op->getName().stripDialect();
  SmallVector<Value> slots = inputSlots(op);
  if (slots.size() != operands.size())
    return failOp(op, "expected " + Twine(slots.size()) + " operand values");
  if (slots.empty() || !slots[0])
    return failOp(op, "input 0 is required");
  Type elementType = elementTypeOf(slots[0]);
  std::string t = computeType(elementType);
  if (m == "where")
    return operands[0] + " ? " + operands[1] + " : " + operands[2];
  if (m == "cast")
    // The conversion happens where the value is stored or defined.
    return operands[0];
  if (m == "clip") {
    // min(max(x, lo), hi): with lo > hi every element becomes hi.
    std::string x = operands[0];
    if (slots.size() > 1 && slots[1])
      x = "gc_clip_low(" + x + ", " + operands[1] + ")";
    if (slots.size() > 2 && slots[2])
      x = "gc_clip_high(" + x + ", " + operands[2] + ")";
    return x;
  }
  if (llvm::is_contained({"sum", "mean", "max", "min"}, m)) {
    std::string acc = operands[0];
    for (const std::string &operand : ArrayRef(operands).drop_front()) {
      if (m == "max" || m == "min")
        acc = "gc_" + m.str() + "(" + acc + ", " + operand + ")";
      else
        acc += " + " + operand;
    }
    if (m == "mean")
      return "(" + acc + ") / " + literal(operands.size(), t);
    return acc;
  }
  if (operands.size() == 1) {
    if (isFloatOnlyUnary(m) && !isFloatType(elementType))
      return failOp(op, "input 0 must have a floating-point element type");
    std::optional<std::string> expr = unaryExpr(op, m, t, operands[0]);
    if (!expr)
      return failOp(op, "unsupported attribute value");
    return *expr;
  }
  if (operands.size() == 2)
    return binaryExpr(op, m, operands[0], operands[1]);
  return failOp(op, "no pointwise expression for this op");
}

LogicalResult emitPointwise(KernelEmitter &e) {
  SmallVector<ArrayRef<int64_t>> shapes;
  SmallVector<unsigned> present;
  for (unsigned slot = 0; slot < e.numInputSlots(); ++slot)
    if (e.hasInput(slot)) {
      present.push_back(slot);
      shapes.push_back(e.inputShape(slot));
    }
  SmallVector<std::string> offsets =
      openBroadcastLoop(e, e.resultShape(), shapes);
  SmallVector<std::string> names(e.numInputSlots());
  for (auto [slot, offset] : llvm::zip(present, offsets)) {
    names[slot] = "x" + std::to_string(slot);
    e.line("const " + computeType(e.inputType(slot).getElementType()) + " " +
           names[slot] + " = " + e.load(slot, offset) + ";");
  }
  FailureOr<std::string> expr = pointwiseExpr(e.getOp(), names);
  if (failed(expr))
    return failure();
  e.line(e.store(0, "i", *expr));
  e.close();
  return success();
}

LogicalResult emitPointwiseFusion(KernelEmitter &e, exec::KernelOp kernel) {
  Block &body = kernel.getBody().front();
  Operation *yield = body.getTerminator();
  if (yield->getNumOperands() == 0)
    return e.fail("a pointwise fusion must have a result");
  auto outType = cast<RankedTensorType>(yield->getOperand(0).getType());
  ArrayRef<int64_t> outShape = outType.getShape();
  for (Type type : yield->getOperandTypes())
    if (cast<RankedTensorType>(type).getShape() != outShape)
      return e.fail("the results of a pointwise fusion must have one shape");

  // Every value the loop reads from memory: the kernel inputs the body
  // uses, and the constants too large to be literals (read through the
  // input they were copied from).
  struct Load {
    Value value;
    unsigned argument;
  };
  SmallVector<Load> loads;
  for (BlockArgument arg : body.getArguments())
    if (!arg.use_empty())
      loads.push_back({arg, arg.getArgNumber()});
  llvm::DenseMap<Value, std::string> names;
  for (Operation &op : body.without_terminator()) {
    if (!op.hasTrait<OpTrait::ConstantLike>())
      continue;
    Value value = op.getResult(0);
    std::string t = computeType(elementTypeOf(value));
    if (std::optional<std::string> text = splatLiteral(&op, t)) {
      names[value] = *text;
      continue;
    }
    std::optional<unsigned> argument = exec::getKernelArgument(value);
    if (!argument)
      return failOp(&op, "a constant in a pointwise fusion must be a splat "
                         "or stand for a kernel input");
    loads.push_back({value, *argument});
  }

  SmallVector<ArrayRef<int64_t>> shapes;
  for (const Load &load : loads)
    shapes.push_back(cast<RankedTensorType>(load.value.getType()).getShape());
  SmallVector<std::string> offsets = openBroadcastLoop(e, outShape, shapes);
  for (auto [k, load] : llvm::enumerate(loads)) {
    std::string name = "x" + std::to_string(k);
    names[load.value] = name;
    e.line("const " + computeType(elementTypeOf(load.value)) + " " + name +
           " = gc_ld(" + KernelEmitter::arg(load.argument) + "[" +
           offsets[k] + "]);");
  }

  unsigned counter = 0;
  for (Operation &op : body.without_terminator()) {
    if (op.hasTrait<OpTrait::ConstantLike>())
      continue;
    if (!op.hasTrait<graph::OpTrait::Pointwise>() || op.getNumResults() != 1)
      return failOp(&op, "a pointwise fusion holds pointwise ops only");
    SmallVector<std::string> operands;
    for (Value slot : inputSlots(&op))
      operands.push_back(slot ? names.lookup(slot) : std::string());
    FailureOr<std::string> expr = pointwiseExpr(&op, operands);
    if (failed(expr))
      return failure();
    std::string name = "v" + std::to_string(counter++);
    e.line(defineValue(elementTypeOf(op.getResult(0)), name, *expr));
    names[op.getResult(0)] = name;
  }
  for (auto [index, value] : llvm::enumerate(yield->getOperands()))
    e.line(KernelEmitter::out(index) + "[i] = gc_cvt<" +
           cudaType(elementTypeOf(value)) + ">(" + names.lookup(value) + ");");
  e.close();
  return success();
}

namespace {

/// Names what the pointwise ops fused around an anchor read at one element
/// of `shape`, whose linear index is the variable `index`: values computed
/// before, splat literals, and kernel inputs loaded at their broadcast
/// offsets (`<prefix>x<k>`, from coordinates `<prefix>c<d>` declared on
/// first need). Conv/matmul epilogues and row-reduction prologues share it;
/// `role` ("an epilogue") and `shapeName` word its errors.
class ElementOperands {
public:
  ElementOperands(KernelEmitter &e, ArrayRef<int64_t> shape, StringRef index,
                  StringRef prefix, StringRef role, StringRef shapeName)
      : e(e), shape(shape), index(index.str()), prefix(prefix.str()),
        role(role.str()), shapeName(shapeName.str()) {}

  void set(Value value, std::string name) { names[value] = std::move(name); }
  std::optional<std::string> lookup(Value value) const {
    auto found = names.find(value);
    return found == names.end() ? std::nullopt
                                : std::optional<std::string>(found->second);
  }

  /// The coordinate prefix of the element, declaring the coordinates once.
  std::string coords() {
    if (!haveCoords)
      e.coords(prefix + "c", index, shape);
    haveCoords = true;
    return prefix + "c";
  }

  /// The name of `value` read by `user` at the element.
  FailureOr<std::string> name(Value value, Operation *user) {
    if (std::optional<std::string> known = lookup(value))
      return *known;
    Operation *def = value.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>())
      if (std::optional<std::string> text =
              splatLiteral(def, computeType(elementTypeOf(value)))) {
        names[value] = *text;
        return *text;
      }
    std::optional<unsigned> argument = exec::getKernelArgument(value);
    if (!argument)
      return failOp(user, role + " operand must be a kernel input, a splat "
                                 "constant or " + role + " value");
    ArrayRef<int64_t> from =
        cast<RankedTensorType>(value.getType()).getShape();
    FailureOr<SmallVector<int64_t>> broadcast =
        graph::broadcastShapes(from, shape);
    if (failed(broadcast) || ArrayRef<int64_t>(*broadcast) != shape)
      return failOp(user, role + " operand must broadcast to " + shapeName);
    std::string at;
    if (from == shape)
      at = index;
    else if (numElements(from) == 1)
      at = "0";
    else
      at = offsetExpr(StringRef(coords()), broadcastStrides(from, shape));
    std::string name = prefix + "x" + std::to_string(loads++);
    e.line("const " + computeType(elementTypeOf(value)) + " " + name +
           " = gc_ld(" + KernelEmitter::arg(*argument) + "[" + at + "]);");
    names[value] = name;
    return name;
  }

  /// The names of pointwise `op`'s operands per input slot ("" for an
  /// absent one), for pointwiseExpr.
  FailureOr<SmallVector<std::string>> of(Operation *op) {
    SmallVector<std::string> operands;
    for (Value slot : inputSlots(op)) {
      if (!slot) {
        operands.emplace_back();
        continue;
      }
      FailureOr<std::string> found = name(slot, op);
      if (failed(found))
        return failure();
      operands.push_back(*found);
    }
    return operands;
  }

private:
  KernelEmitter &e;
  ArrayRef<int64_t> shape;
  std::string index, prefix, role, shapeName;
  llvm::DenseMap<Value, std::string> names;
  bool haveCoords = false;
  unsigned loads = 0;
};

} // namespace

LogicalResult emitEpilogueStore(KernelEmitter &e, exec::KernelOp kernel,
                                Operation *anchor, StringRef offset,
                                StringRef value) {
  Block &body = kernel.getBody().front();
  Operation *yield = body.getTerminator();
  Value anchorResult = anchor->getResult(0);
  ArrayRef<int64_t> outShape =
      cast<RankedTensorType>(anchorResult.getType()).getShape();
  if (yield->getNumOperands() != 1)
    return e.fail("an epilogue fusion must have one result");

  e.line("// epilogue");
  e.line("const long long ep = " + offset + ";");
  ElementOperands operands(e, outShape, "ep", "e", "an epilogue",
                           "the anchor's result shape");
  operands.set(anchorResult, "ev0");
  e.line(defineValue(elementTypeOf(anchorResult), "ev0", value));
  unsigned defs = 1;

  // A layout epilogue: the value is stored at its transposed position.
  Operation *layoutEpilogue = nullptr;
  for (Operation &op : body.without_terminator()) {
    // Layout prologues are read by the anchor's template through strides.
    if (&op == anchor || op.hasTrait<OpTrait::ConstantLike>() ||
        graph::isLayoutPrologueOf(&op, anchor))
      continue;
    if (graph::isLayoutEpilogueOf(&op, anchor)) {
      layoutEpilogue = &op;
      operands.set(op.getResult(0), "ev0");
      continue;
    }
    if (!op.hasTrait<graph::OpTrait::Pointwise>() || op.getNumResults() != 1)
      return failOp(&op, "the epilogue of a conv or matmul kernel holds "
                         "pointwise ops only");
    if (cast<RankedTensorType>(op.getResult(0).getType()).getShape() !=
        outShape)
      return failOp(&op, "an epilogue op must have the shape of the result "
                         "of " + anchor->getName().getStringRef());
    FailureOr<SmallVector<std::string>> names = operands.of(&op);
    if (failed(names))
      return failure();
    FailureOr<std::string> expr = pointwiseExpr(&op, *names);
    if (failed(expr))
      return failure();
    std::string name = "ev" + std::to_string(defs++);
    e.line(defineValue(elementTypeOf(op.getResult(0)), name, *expr));
    operands.set(op.getResult(0), name);
  }
  Value result = yield->getOperand(0);
  std::optional<std::string> resultName = operands.lookup(result);
  if (!resultName || isa<BlockArgument>(result))
    return e.fail("an epilogue fusion must yield a value it computes");
  std::string at = "ep";
  if (layoutEpilogue) {
    // Anchor dim i lands in output dim j where perm[j] == i.
    auto transpose = cast<graph::TransposeOp>(layoutEpilogue);
    SmallVector<int64_t> outStrides = contiguousStrides(
        cast<RankedTensorType>(transpose.getType()).getShape());
    SmallVector<int64_t> strides(outShape.size(), 0);
    for (auto [j, i] : llvm::enumerate(graph::transposePermutation(transpose)))
      strides[i] = outStrides[j];
    at = offsetExpr(StringRef(operands.coords()), strides);
  }
  e.line(KernelEmitter::out(0) + "[" + at + "] = gc_cvt<" +
         cudaType(elementTypeOf(result)) + ">(" + *resultName + ");");
  return success();
}

} // namespace graphc::codegen::cuda

namespace graphc::codegen::cuda {

LogicalResult emitPrologueLoader(KernelEmitter &e, exec::KernelOp kernel,
                                 Operation *reduction) {
  Value data = reduction->getOperand(0);
  ArrayRef<int64_t> shape = cast<RankedTensorType>(data.getType()).getShape();
  std::string t = computeType(elementTypeOf(data));
  // Softmax reads each element of its row three times (peak, sum, store)
  // and layer_normalization three times (mean, variance, store): the
  // prologue is recomputed per read rather than kept in shared memory,
  // which rows of any length could not hold. Any pointwise op is accepted,
  // costly ones (exp, erf, tanh) included: a recomputation costs far less
  // than the launch and the round trip through memory that it replaces.
  e.open("auto gc_prologue = [&](long long pe) -> " + t + " {");
  ElementOperands operands(e, shape, "pe", "p", "a prologue",
                           "the shape of the reduction's input");
  unsigned defs = 0;

  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (&op == reduction || op.hasTrait<OpTrait::ConstantLike>())
      continue;
    if (!op.hasTrait<graph::OpTrait::Pointwise>() || op.getNumResults() != 1)
      return failOp(&op, "the prologue of a reduction kernel holds pointwise "
                         "ops only");
    if (cast<RankedTensorType>(op.getResult(0).getType()).getShape() != shape)
      return failOp(&op, "a prologue op must have the shape of the input of " +
                             reduction->getName().getStringRef());
    if (llvm::any_of(op.getUsers(), [&](Operation *user) {
          return user == reduction &&
                 llvm::is_contained(reduction->getOperands().drop_front(),
                                    op.getResult(0));
        }))
      return failOp(&op, "a prologue op may feed only input 0 of " +
                             reduction->getName().getStringRef());
    FailureOr<SmallVector<std::string>> names = operands.of(&op);
    if (failed(names))
      return failure();
    FailureOr<std::string> expr = pointwiseExpr(&op, *names);
    if (failed(expr))
      return failure();
    std::string name = "pv" + std::to_string(defs++);
    e.line(defineValue(elementTypeOf(op.getResult(0)), name, *expr));
    operands.set(op.getResult(0), name);
  }
  std::optional<std::string> found = operands.lookup(data);
  if (!found || isa<BlockArgument>(data) ||
      data.getDefiningOp()->hasTrait<OpTrait::ConstantLike>())
    return e.fail("the input 0 of a prologue reduction kernel must be "
                  "computed by its prologue");
  e.line("return static_cast<" + t + ">(" + *found + ");");
  e.close("};");
  return success();
}

} // namespace graphc::codegen::cuda
