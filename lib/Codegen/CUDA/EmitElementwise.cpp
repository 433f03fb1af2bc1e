//===- EmitElementwise.cpp - unary, broadcasting and variadic kernels -----===//
//
// One thread per output element in a grid-stride loop. Inputs are read at
// offsets computed from the output coordinates and their baked broadcast
// strides; f16/bf16 compute in float.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/EmitSupport.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;

namespace graphc::codegen::cuda {
namespace {

/// Opens the loop over the result elements and returns, per input slot, the
/// offset expression of the element it contributes (numpy broadcasting).
SmallVector<std::string> openBroadcastLoop(KernelEmitter &e,
                                           ArrayRef<unsigned> slotsToRead) {
  ArrayRef<int64_t> outShape = e.resultShape();
  e.openLinearLoop(numElements(outShape));
  SmallVector<std::string> offsets;
  bool needCoords = false;
  for (unsigned slot : slotsToRead) {
    ArrayRef<int64_t> shape = e.inputShape(slot);
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

/// Mnemonics whose expression uses floating-point math only.
bool isFloatOnlyUnary(StringRef m) {
  return llvm::StringSwitch<bool>(m)
      .Cases("exp", "log", "sqrt", "reciprocal", "sigmoid", "hard_sigmoid",
             "hard_swish", "tanh", "erf", "gelu", true)
      .Cases("softplus", "softsign", "elu", "selu", "celu", "thresholded_relu",
             "mish", "floor", "ceil", "round", true)
      .Cases("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
             "asinh", "acosh", true)
      .Cases("atanh", "is_nan", "is_inf", true)
      .Default(false);
}

/// The expression computing unary op `m` on `x` of compute type `t`.
std::optional<std::string> unaryExpr(const KernelEmitter &e, StringRef m,
                                     StringRef t) {
  auto c = [&](double v) { return literal(v, t); };
  // Functional casts do not accept multi-word types like "signed char".
  auto as = [&](const std::string &expr) {
    return "static_cast<" + t.str() + ">(" + expr + ")";
  };
  auto attr = [&](StringRef name, double def) {
    return literal(e.floatAttr(name, def), t);
  };
  std::string one = c(1), zero = c(0);
  if (m == "abs")
    return "x < " + zero + " ? " + as("-x") + " : x";
  if (m == "neg")
    return as("-x");
  if (m == "reciprocal")
    return one + " / x";
  if (m == "relu")
    return "x > " + zero + " ? x : " + zero;
  if (m == "leaky_relu")
    return "x >= " + zero + " ? x : " + attr("alpha", 0.01) + " * x";
  if (m == "sigmoid")
    return one + " / (" + one + " + gc_exp(-x))";
  if (m == "hard_sigmoid")
    return "gc_max(" + zero + ", gc_min(" + one + ", " + attr("alpha", 0.2) +
           " * x + " + attr("beta", 0.5) + "))";
  if (m == "hard_swish")
    return "x * gc_max(" + zero + ", gc_min(" + one + ", " + c(1.0 / 6.0) +
           " * x + " + c(0.5) + "))";
  if (m == "gelu") {
    std::string approximate = e.strAttr("approximate", "none");
    if (approximate == "tanh")
      return c(0.5) + " * x * (" + one + " + gc_tanh(" + c(0.7978845608028654) +
             " * (x + " + c(0.044715) + " * x * x * x)))";
    if (approximate == "none")
      return c(0.5) + " * x * (" + one + " + gc_erf(x * " +
             c(0.7071067811865476) + "))";
    return std::nullopt;
  }
  if (m == "softplus")
    return "x > " + zero + " ? x + gc_log1p(gc_exp(-x)) : gc_log1p(gc_exp(x))";
  if (m == "softsign")
    return "x / (" + one + " + gc_fabs(x))";
  if (m == "elu")
    return "x >= " + zero + " ? x : " + attr("alpha", 1.0) +
           " * (gc_exp(x) - " + one + ")";
  if (m == "selu")
    return attr("gamma", 1.05070102214813232421875) + " * (x > " + zero +
           " ? x : " + attr("alpha", 1.67326319217681884765625) +
           " * (gc_exp(x) - " + one + "))";
  if (m == "celu") {
    std::string alpha = attr("alpha", 1.0);
    return "gc_max(" + zero + ", x) + gc_min(" + zero + ", " + alpha +
           " * (gc_exp(x / " + alpha + ") - " + one + "))";
  }
  if (m == "thresholded_relu")
    return "x > " + attr("alpha", 1.0) + " ? x : " + zero;
  if (m == "mish")
    return "x * gc_tanh(x > " + zero +
           " ? x + gc_log1p(gc_exp(-x)) : gc_log1p(gc_exp(x)))";
  if (m == "shrink") {
    std::string lambd = attr("lambd", 0.5), bias = attr("bias", 0.0);
    return "x < -" + lambd + " ? " + as("x + " + bias) + " : (x > " + lambd +
           " ? " + as("x - " + bias) + " : " + zero + ")";
  }
  if (m == "round")
    return "gc_rint(x)";
  if (m == "sign")
    return as("(x > " + zero + ") - (x < " + zero + ")");
  if (m == "not")
    return "!x";
  if (m == "bitwise_not")
    return "~x";
  if (m == "is_nan")
    return "gc_isnan(x)";
  if (m == "is_inf") {
    std::string sides;
    if (e.intAttr("detect_positive", 1) != 0)
      sides = "x > " + zero;
    if (e.intAttr("detect_negative", 1) != 0)
      sides += (sides.empty() ? "x < " : " || x < ") + zero;
    return sides.empty() ? "false" : "gc_isinf(x) && (" + sides + ")";
  }
  if (m == "identity")
    return "x";
  // The remaining ops are the math function of the same name.
  if (llvm::is_contained({"exp", "log", "sqrt", "tanh", "erf", "floor", "ceil",
                          "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
                          "cosh", "asinh", "acosh", "atanh"},
                         m))
    return ("gc_" + m + "(x)").str();
  return std::nullopt;
}

} // namespace

bool isUnary(StringRef m) {
  return isFloatOnlyUnary(m) ||
         llvm::is_contained({"abs", "neg", "relu", "leaky_relu", "shrink",
                             "sign", "not", "bitwise_not", "identity"},
                            m);
}

bool isBinary(StringRef m) {
  return llvm::is_contained(
      {"add", "sub", "mul", "div", "pow", "mod", "prelu", "equal", "less",
       "less_or_equal", "greater", "greater_or_equal", "and", "or", "xor",
       "bit_shift", "bitwise_and", "bitwise_or", "bitwise_xor"},
      m);
}

LogicalResult emitUnary(KernelEmitter &e) {
  StringRef m = e.getMnemonic();
  Type elementType = e.inputType(0).getElementType();
  if (isFloatOnlyUnary(m) && !isFloatType(elementType))
    return e.fail("input 0 must have a floating-point element type");
  std::string t = computeType(elementType);
  std::optional<std::string> expr = unaryExpr(e, m, t);
  if (!expr)
    return e.fail("unsupported attribute value");
  e.openLinearLoop(numElements(e.resultShape()));
  e.line("const " + t + " x = " + e.load(0, "i") + ";");
  e.line(e.store(0, "i", *expr));
  e.close();
  return success();
}

LogicalResult emitBinary(KernelEmitter &e) {
  StringRef m = e.getMnemonic();
  Type lhsType = e.inputType(0).getElementType();
  Type rhsType = e.inputType(1).getElementType();
  std::string ta = computeType(lhsType), tb = computeType(rhsType);
  bool isFloat = isFloatType(lhsType);
  std::string expr;
  if (m == "add")
    expr = "a + b";
  else if (m == "sub")
    expr = "a - b";
  else if (m == "mul")
    expr = "a * b";
  else if (m == "div")
    expr = "a / b";
  else if (m == "pow") {
    // Pow's exponent may have another type than its base.
    if (isFloat)
      expr = "gc_pow(a, static_cast<" + ta + ">(b))";
    else if (isFloatType(rhsType))
      expr = "gc_pow(static_cast<double>(a), static_cast<double>(b))";
    else
      expr = "gc_ipow(static_cast<long long>(a), static_cast<long long>(b))";
  } else if (m == "mod") {
    if (e.intAttr("fmod", 0) != 0)
      expr = isFloat ? "gc_fmod(a, b)" : "a % b";
    else
      expr = "gc_pymod(a, b)";
  } else if (m == "prelu")
    expr = "a < " + literal(0, ta) + " ? a * b : a";
  else if (m == "equal")
    expr = "a == b";
  else if (m == "less")
    expr = "a < b";
  else if (m == "less_or_equal")
    expr = "a <= b";
  else if (m == "greater")
    expr = "a > b";
  else if (m == "greater_or_equal")
    expr = "a >= b";
  else if (m == "and")
    expr = "a && b";
  else if (m == "or")
    expr = "a || b";
  else if (m == "xor")
    expr = "a != b";
  else if (m == "bitwise_and")
    expr = "a & b";
  else if (m == "bitwise_or")
    expr = "a | b";
  else if (m == "bitwise_xor")
    expr = "a ^ b";
  else if (m == "bit_shift") {
    std::string direction = e.strAttr("direction", "");
    if (direction == "LEFT")
      expr = "a << b";
    else if (direction == "RIGHT")
      expr = "a >> b";
    else
      return e.fail("direction must be \"LEFT\" or \"RIGHT\", got \"" +
                    direction + "\"");
  }
  if (m.starts_with("bit") && isFloat)
    return e.fail("input 0 must have an integer element type");

  SmallVector<std::string> offsets = openBroadcastLoop(e, {0, 1});
  e.line("const " + ta + " a = " + e.load(0, offsets[0]) + ";");
  e.line("const " + tb + " b = " + e.load(1, offsets[1]) + ";");
  e.line(e.store(0, "i", expr));
  e.close();
  return success();
}

LogicalResult emitVariadic(KernelEmitter &e) {
  StringRef m = e.getMnemonic();
  unsigned n = e.numInputSlots();
  if (n == 0)
    return e.fail("at least one input is required");
  std::string t = computeType(e.inputType(0).getElementType());
  SmallVector<unsigned> slots;
  for (unsigned s = 0; s < n; ++s)
    slots.push_back(s);
  SmallVector<std::string> offsets = openBroadcastLoop(e, slots);
  e.line(t + " acc = " + e.load(0, offsets[0]) + ";");
  for (unsigned s = 1; s < n; ++s) {
    std::string v = e.load(s, offsets[s]);
    if (m == "max")
      e.line("acc = gc_max(acc, " + v + ");");
    else if (m == "min")
      e.line("acc = gc_min(acc, " + v + ");");
    else
      e.line("acc += " + v + ";");
  }
  if (m == "mean")
    e.line("acc /= " + literal(n, t) + ";");
  e.line(e.store(0, "i", "acc"));
  e.close();
  return success();
}

LogicalResult emitWhere(KernelEmitter &e) {
  SmallVector<std::string> offsets = openBroadcastLoop(e, {0, 1, 2});
  e.line("out0[i] = " + e.in(0) + "[" + offsets[0] + "] ? " + e.in(1) + "[" +
         offsets[1] + "] : " + e.in(2) + "[" + offsets[2] + "];");
  e.close();
  return success();
}

LogicalResult emitClip(KernelEmitter &e) {
  std::string t = computeType(e.inputType(0).getElementType());
  e.openLinearLoop(numElements(e.resultShape()));
  e.line(t + " x = " + e.load(0, "i") + ";");
  // min(max(x, lo), hi): with lo > hi every element becomes hi.
  if (e.hasInput(1))
    e.line("x = x < " + e.load(1, "0") + " ? " + e.load(1, "0") + " : x;");
  if (e.hasInput(2))
    e.line("x = x > " + e.load(2, "0") + " ? " + e.load(2, "0") + " : x;");
  e.line(e.store(0, "i", "x"));
  e.close();
  return success();
}

LogicalResult emitCast(KernelEmitter &e) {
  e.openLinearLoop(numElements(e.resultShape()));
  e.line(e.store(0, "i", e.in(0) + "[i]"));
  e.close();
  return success();
}

} // namespace graphc::codegen::cuda
