//===- ScalarExpr.cpp - per-op scalar expressions shared by the targets ---===//

#include "lib/Codegen/ScalarExpr.h"

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

#include <cmath>

#include "lib/Codegen/EmbeddedScalarHeader.inc"

using namespace mlir;
using namespace graphc::graph;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;

namespace graphc::codegen {

//===----------------------------------------------------------------------===//
// Types and literals
//===----------------------------------------------------------------------===//

std::string cxxType(Type type) {
  if (type.isF16())
    return "__half";
  if (type.isBF16())
    return "__nv_bfloat16";
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType || intType.isSigned())
    return "";
  bool isUnsigned = intType.isUnsigned();
  switch (intType.getWidth()) {
  case 1:
    return isUnsigned ? "" : "bool";
  case 8:
    return isUnsigned ? "unsigned char" : "signed char";
  case 16:
    return isUnsigned ? "unsigned short" : "short";
  case 32:
    return isUnsigned ? "unsigned int" : "int";
  case 64:
    return isUnsigned ? "unsigned long long" : "long long";
  default:
    return "";
  }
}

std::string computeType(Type type) {
  if (type.isF16() || type.isBF16())
    return "float";
  return cxxType(type);
}

bool isFloatType(Type type) { return isa<FloatType>(type); }

static bool isFloatName(StringRef type) {
  return type == "float" || type == "double";
}

std::string literal(double v, StringRef type) {
  if (isFloatName(type)) {
    bool isDouble = type == "double";
    if (std::isnan(v))
      return isDouble ? "__longlong_as_double(0x7ff8000000000000ULL)"
                      : "__int_as_float(0x7fc00000)";
    if (std::isinf(v)) {
      std::string inf = isDouble ? "__longlong_as_double(0x7ff0000000000000ULL)"
                                 : "__int_as_float(0x7f800000)";
      return v < 0 ? "(-" + inf + ")" : inf;
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    if (isDouble)
      os << llvm::format("%.17g", v);
    else
      os << llvm::format("%.9g", v);
    if (StringRef(text).find_first_of(".en") == StringRef::npos)
      text += ".0";
    if (!isDouble)
      text += "f";
    return v < 0 ? "(" + text + ")" : text;
  }
  if (type == "bool")
    return v != 0 ? "true" : "false";
  return "static_cast<" + type.str() + ">(" +
         std::to_string(static_cast<long long>(v)) + "LL)";
}

std::string highest(StringRef type) {
  return isFloatName(type) ? literal(INFINITY, type)
                           : "gc_limits<" + type.str() + ">::highest()";
}

std::string lowest(StringRef type) {
  return isFloatName(type) ? literal(-INFINITY, type)
                           : "gc_limits<" + type.str() + ">::lowest()";
}

//===----------------------------------------------------------------------===//
// Shapes, operands and attributes
//===----------------------------------------------------------------------===//

SmallVector<int64_t> contiguousStrides(ArrayRef<int64_t> dims) {
  SmallVector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * dims[i + 1];
  return strides;
}

SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> in,
                                      ArrayRef<int64_t> out) {
  SmallVector<int64_t> inStrides = contiguousStrides(in);
  SmallVector<int64_t> strides(out.size(), 0);
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] != 1 || out[lead + i] == 1)
      strides[lead + i] = in[i] == 1 ? 0 : inStrides[i];
  return strides;
}

SmallVector<Value> inputSlots(Operation *op) {
  // Every target reads an op's operands by ONNX input slot
  // (graph::operandSlotSizes).
  SmallVector<Value> slots;
  unsigned next = 0;
  for (int32_t size : graph::operandSlotSizes(op)) {
    slots.push_back(size > 0 ? op->getOperand(next) : Value());
    next += size;
  }
  return slots;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

namespace {

/// Ops whose expression uses floating-point math only.
bool isFloatOnlyUnary(Operation *op) {
  return isa<ExpOp, LogOp, SqrtOp, ReciprocalOp, SigmoidOp, HardSigmoidOp,
             HardSwishOp, TanhOp, ErfOp, GeluOp, SoftplusOp, SoftsignOp, EluOp,
             SeluOp, CeluOp, ThresholdedReluOp, MishOp, FloorOp, CeilOp,
             RoundOp, SinOp, CosOp, TanOp, AsinOp, AcosOp, AtanOp, SinhOp,
             CoshOp, AsinhOp, AcoshOp, AtanhOp, IsNanOp, IsInfOp, SiluOp>(op);
}

Type elementTypeOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

/// The expression computing unary op `op` on `x` of compute type `t`.
std::optional<std::string> unaryExpr(Operation *op, StringRef t,
                                     const std::string &x) {
  auto c = [&](double v) { return literal(v, t); };
  // Functional casts do not accept multi-word types like "signed char".
  auto as = [&](const std::string &expr) {
    return "static_cast<" + t.str() + ">(" + expr + ")";
  };
  // Attributes through the ODS accessors: each ONNX default is defined
  // once, in the op's definition.
  auto value = [&](const APFloat &v) {
    return literal(v.convertToDouble(), t);
  };
  std::string one = c(1), zero = c(0);
  auto softplus = [&] {
    return x + " > " + zero + " ? " + x + " + gc_log1p(gc_exp(-" + x +
           ")) : gc_log1p(gc_exp(" + x + "))";
  };
  using Expr = std::optional<std::string>;
  return llvm::TypeSwitch<Operation *, Expr>(op)
      .Case([&](AbsOp) {
        return x + " < " + zero + " ? " + as("-" + x) + " : " + x;
      })
      .Case([&](NegOp) { return as("-" + x); })
      .Case([&](ReciprocalOp) { return one + " / " + x; })
      .Case([&](ReluOp) { return x + " > " + zero + " ? " + x + " : " + zero; })
      .Case([&](LeakyReluOp leakyRelu) {
        return x + " >= " + zero + " ? " + x + " : " +
               value(leakyRelu.getAlpha()) + " * " + x;
      })
      .Case([&](SigmoidOp) {
        return one + " / (" + one + " + gc_exp(-" + x + "))";
      })
      .Case([&](SiluOp) { return x + " / (" + one + " + gc_exp(-" + x + "))"; })
      .Case([&](HardSigmoidOp hardSigmoid) {
        return "gc_max(" + zero + ", gc_min(" + one + ", " +
               value(hardSigmoid.getAlpha()) + " * " + x + " + " +
               value(hardSigmoid.getBeta()) + "))";
      })
      .Case([&](HardSwishOp) {
        return x + " * gc_max(" + zero + ", gc_min(" + one + ", " +
               c(1.0 / 6.0) + " * " + x + " + " + c(0.5) + "))";
      })
      .Case([&](GeluOp gelu) -> Expr {
        StringRef approximate = gelu.getApproximate();
        if (approximate == "tanh")
          return c(0.5) + " * " + x + " * (" + one + " + gc_tanh(" +
                 c(0.7978845608028654) + " * (" + x + " + " + c(0.044715) +
                 " * " + x + " * " + x + " * " + x + ")))";
        if (approximate == "none")
          return c(0.5) + " * " + x + " * (" + one + " + gc_erf(" + x + " * " +
                 c(0.7071067811865476) + "))";
        return std::nullopt;
      })
      .Case([&](SoftplusOp) { return softplus(); })
      .Case([&](SoftsignOp) {
        return x + " / (" + one + " + gc_fabs(" + x + "))";
      })
      .Case([&](EluOp elu) {
        return x + " >= " + zero + " ? " + x + " : " + value(elu.getAlpha()) +
               " * (gc_exp(" + x + ") - " + one + ")";
      })
      .Case([&](SeluOp selu) {
        return value(selu.getGamma()) + " * (" + x + " > " + zero + " ? " + x +
               " : " + value(selu.getAlpha()) + " * (gc_exp(" + x + ") - " +
               one + "))";
      })
      .Case([&](CeluOp celu) {
        std::string alpha = value(celu.getAlpha());
        return "gc_max(" + zero + ", " + x + ") + gc_min(" + zero + ", " +
               alpha + " * (gc_exp(" + x + " / " + alpha + ") - " + one + "))";
      })
      .Case([&](ThresholdedReluOp thresholdedRelu) {
        return x + " > " + value(thresholdedRelu.getAlpha()) + " ? " + x +
               " : " + zero;
      })
      .Case([&](MishOp) { return x + " * gc_tanh(" + softplus() + ")"; })
      .Case([&](ShrinkOp shrink) {
        std::string lambd = value(shrink.getLambd()),
                    bias = value(shrink.getBias());
        return x + " < -" + lambd + " ? " + as(x + " + " + bias) + " : (" + x +
               " > " + lambd + " ? " + as(x + " - " + bias) + " : " + zero +
               ")";
      })
      .Case([&](RoundOp) { return "gc_rint(" + x + ")"; })
      .Case([&](SignOp) {
        return as("(" + x + " > " + zero + ") - (" + x + " < " + zero + ")");
      })
      .Case([&](NotOp) { return "!" + x; })
      .Case([&](BitwiseNotOp) { return "~" + x; })
      .Case([&](IsNanOp) { return "gc_isnan(" + x + ")"; })
      .Case([&](IsInfOp isInf) {
        std::string sides;
        if (isInf.getDetectPositive() != 0)
          sides = x + " > " + zero;
        if (isInf.getDetectNegative() != 0)
          sides += (sides.empty() ? "" : " || ") + x + " < " + zero;
        return sides.empty() ? "false"
                             : "gc_isinf(" + x + ") && (" + sides + ")";
      })
      .Case([&](IdentityOp) { return x; })
      // The math function of the op's own name.
      .Case<ExpOp, LogOp, SqrtOp, TanhOp, ErfOp, FloorOp, CeilOp, SinOp, CosOp,
            TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp,
            AtanhOp>([&](Operation *math) {
        return ("gc_" + math->getName().stripDialect() + "(" + x + ")").str();
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// The expression computing binary op `op` on `a` and `b`; fails with a
/// diagnostic at `op`.
FailureOr<std::string> binaryExpr(Operation *op, const std::string &a,
                                  const std::string &b,
                                  ScalarExprFailure fail) {
  Type lhsType = elementTypeOf(op->getOperand(0));
  Type rhsType = elementTypeOf(op->getOperand(1));
  std::string ta = computeType(lhsType);
  bool isFloat = isFloatType(lhsType);
  if (isa<BitShiftOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp>(op) && isFloat)
    return fail(op, "input 0 must have an integer element type");
  auto infix = [&](StringRef symbol) {
    return [&a, &b, symbol](Operation *) -> FailureOr<std::string> {
      return a + " " + symbol.str() + " " + b;
    };
  };
  return llvm::TypeSwitch<Operation *, FailureOr<std::string>>(op)
      .Case<AddOp>(infix("+"))
      .Case<SubOp>(infix("-"))
      .Case<MulOp>(infix("*"))
      .Case<DivOp>(infix("/"))
      .Case<EqualOp>(infix("=="))
      .Case<LessOp>(infix("<"))
      .Case<LessOrEqualOp>(infix("<="))
      .Case<GreaterOp>(infix(">"))
      .Case<GreaterOrEqualOp>(infix(">="))
      .Case<AndOp>(infix("&&"))
      .Case<OrOp>(infix("||"))
      .Case<XorOp>(infix("!="))
      .Case<BitwiseAndOp>(infix("&"))
      .Case<BitwiseOrOp>(infix("|"))
      .Case<BitwiseXorOp>(infix("^"))
      .Case([&](PowOp) -> FailureOr<std::string> {
        // Pow's exponent may have another type than its base.
        if (isFloat)
          return "gc_pow(" + a + ", static_cast<" + ta + ">(" + b + "))";
        if (isFloatType(rhsType))
          return "gc_pow(static_cast<double>(" + a + "), static_cast<double>(" +
                 b + "))";
        return "gc_ipow(static_cast<long long>(" + a +
               "), static_cast<long long>(" + b + "))";
      })
      .Case([&](ModOp mod) -> FailureOr<std::string> {
        if (mod.getFmod() != 0)
          return isFloat ? "gc_fmod(" + a + ", " + b + ")" : a + " % " + b;
        return "gc_pymod(" + a + ", " + b + ")";
      })
      .Case([&](PReluOp) -> FailureOr<std::string> {
        return a + " < " + literal(0, ta) + " ? " + a + " * " + b + " : " + a;
      })
      .Case([&](BitShiftOp bitShift) -> FailureOr<std::string> {
        StringRef direction = bitShift.getDirection();
        if (direction == "LEFT")
          return a + " << " + b;
        if (direction == "RIGHT")
          return a + " >> " + b;
        return fail(op, "direction must be \"LEFT\" or \"RIGHT\", got \"" +
                            direction + "\"");
      })
      .Default([&](Operation *) -> FailureOr<std::string> {
        return fail(op, "no pointwise expression for this op");
      });
}

} // namespace

/// `const <type> <name> = <value>;`, rounding `value` through the storage
/// type when that is narrower than the compute type (f16, bf16), so that a
/// fused intermediate equals what a kernel of its own would have stored.
std::string defineValue(Type storage, StringRef name, StringRef value) {
  std::string compute = computeType(storage);
  if (compute != cxxType(storage))
    return ("const " + compute + " " + name + " = gc_ld(gc_cvt<" +
            cxxType(storage) + ">(" + value + "));")
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

FailureOr<std::string> pointwiseExpr(Operation *op,
                                     ArrayRef<std::string> operands,
                                     ScalarExprFailure fail) {
  SmallVector<Value> slots = inputSlots(op);
  if (slots.size() != operands.size())
    return fail(op, "expected " + Twine(slots.size()) + " operand values");
  if (slots.empty() || !slots[0])
    return fail(op, "input 0 is required");
  Type elementType = elementTypeOf(slots[0]);
  std::string t = computeType(elementType);
  if (isa<WhereOp>(op))
    return operands[0] + " ? " + operands[1] + " : " + operands[2];
  if (isa<CastOp>(op))
    // The conversion happens where the value is stored or defined.
    return operands[0];
  if (isa<ClipOp>(op)) {
    // min(max(x, lo), hi): with lo > hi every element becomes hi.
    std::string x = operands[0];
    if (slots.size() > 1 && slots[1])
      x = "gc_clip_low(" + x + ", " + operands[1] + ")";
    if (slots.size() > 2 && slots[2])
      x = "gc_clip_high(" + x + ", " + operands[2] + ")";
    return x;
  }
  if (isa<SumOp, MeanOp, MaxOp, MinOp>(op)) {
    std::string acc = operands[0];
    for (const std::string &operand : ArrayRef(operands).drop_front()) {
      if (isa<MaxOp>(op))
        acc = "gc_max(" + acc + ", " + operand + ")";
      else if (isa<MinOp>(op))
        acc = "gc_min(" + acc + ", " + operand + ")";
      else
        acc += " + " + operand;
    }
    if (isa<MeanOp>(op))
      return "(" + acc + ") / " + literal(operands.size(), t);
    return acc;
  }
  if (operands.size() == 1) {
    if (isFloatOnlyUnary(op) && !isFloatType(elementType))
      return fail(op, "input 0 must have a floating-point element type");
    std::optional<std::string> expr = unaryExpr(op, t, operands[0]);
    if (!expr)
      return fail(op, "unsupported attribute value");
    return *expr;
  }
  if (operands.size() == 2)
    return binaryExpr(op, operands[0], operands[1], fail);
  return fail(op, "no pointwise expression for this op");
}

//===----------------------------------------------------------------------===//
// The C++ the expressions call
//===----------------------------------------------------------------------===//

StringRef scalarHelperSource() {
  return R"cuda(// Loads widen f16/bf16 to float; other types stay as they are.
__device__ __forceinline__ float gc_ld(__half v) { return __half2float(v); }
__device__ __forceinline__ float gc_ld(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T gc_ld(T v) { return v; }

// Conversions with ONNX Cast semantics: to bool is "!= 0", to f16/bf16
// rounds to nearest even.
template <typename To> struct gc_conv {
  template <typename F> static __device__ __forceinline__ To from(F v) { return static_cast<To>(v); }
};
template <> struct gc_conv<bool> {
  template <typename F> static __device__ __forceinline__ bool from(F v) { return v != F(0); }
};
template <> struct gc_conv<__half> {
  template <typename F> static __device__ __forceinline__ __half from(F v) {
    return __float2half_rn(static_cast<float>(v));
  }
};
template <> struct gc_conv<__nv_bfloat16> {
  template <typename F> static __device__ __forceinline__ __nv_bfloat16 from(F v) {
    return __float2bfloat16_rn(static_cast<float>(v));
  }
};
template <typename To, typename F> __device__ __forceinline__ To gc_cvt(F v) {
  return gc_conv<To>::from(gc_ld(v));
}

template <typename T> struct gc_limits;
#define GC_LIMITS(T, LO, HI)                                                   \
  template <> struct gc_limits<T> {                                            \
    static __device__ __forceinline__ T lowest() { return LO; }                \
    static __device__ __forceinline__ T highest() { return HI; }               \
  };
GC_LIMITS(bool, false, true)
GC_LIMITS(signed char, -128, 127)
GC_LIMITS(unsigned char, 0, 255)
GC_LIMITS(short, -32768, 32767)
GC_LIMITS(unsigned short, 0, 65535)
GC_LIMITS(int, -2147483647 - 1, 2147483647)
GC_LIMITS(unsigned int, 0u, 4294967295u)
GC_LIMITS(long long, -9223372036854775807LL - 1, 9223372036854775807LL)
GC_LIMITS(unsigned long long, 0ULL, 18446744073709551615ULL)
GC_LIMITS(float, -__int_as_float(0x7f800000), __int_as_float(0x7f800000))
GC_LIMITS(double, -__longlong_as_double(0x7ff0000000000000LL), __longlong_as_double(0x7ff0000000000000LL))
#undef GC_LIMITS

// Math with one name per function for float and double.
#define GC_MATH1(NAME, F32, F64)                                               \
  __device__ __forceinline__ float gc_##NAME(float x) { return F32(x); }       \
  __device__ __forceinline__ double gc_##NAME(double x) { return F64(x); }
GC_MATH1(exp, expf, exp)
GC_MATH1(log, logf, log)
GC_MATH1(log1p, log1pf, log1p)
GC_MATH1(sqrt, sqrtf, sqrt)
GC_MATH1(tanh, tanhf, tanh)
GC_MATH1(erf, erff, erf)
GC_MATH1(sin, sinf, sin)
GC_MATH1(cos, cosf, cos)
GC_MATH1(tan, tanf, tan)
GC_MATH1(asin, asinf, asin)
GC_MATH1(acos, acosf, acos)
GC_MATH1(atan, atanf, atan)
GC_MATH1(sinh, sinhf, sinh)
GC_MATH1(cosh, coshf, cosh)
GC_MATH1(asinh, asinhf, asinh)
GC_MATH1(acosh, acoshf, acosh)
GC_MATH1(atanh, atanhf, atanh)
GC_MATH1(floor, floorf, floor)
GC_MATH1(ceil, ceilf, ceil)
GC_MATH1(rint, rintf, rint)
GC_MATH1(fabs, fabsf, fabs)
#undef GC_MATH1
__device__ __forceinline__ float gc_pow(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double gc_pow(double a, double b) { return pow(a, b); }
__device__ __forceinline__ float gc_fmod(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double gc_fmod(double a, double b) { return fmod(a, b); }
__device__ __forceinline__ bool gc_isnan(float x) { return isnan(x); }
__device__ __forceinline__ bool gc_isnan(double x) { return isnan(x); }
template <typename T> __device__ __forceinline__ bool gc_isnan(T) { return false; }
__device__ __forceinline__ bool gc_isinf(float x) { return isinf(x); }
__device__ __forceinline__ bool gc_isinf(double x) { return isinf(x); }

// Integer power by squaring; negative exponents follow integer division.
__device__ __forceinline__ long long gc_ipow(long long base, long long e) {
  if (e < 0)
    return base == 1 ? 1 : (base == -1 ? ((e & 1) ? -1 : 1) : 0);
  long long result = 1;
  while (e) {
    if (e & 1)
      result *= base;
    base *= base;
    e >>= 1;
  }
  return result;
}

// Modulo with the sign of the divisor (ONNX Mod with fmod = 0).
template <typename T> __device__ __forceinline__ T gc_pymod(T a, T b) {
  T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? T(r + b) : r;
}
__device__ __forceinline__ float gc_pymod(float a, float b) {
  float r = fmodf(a, b);
  return (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) ? r + b : r;
}
__device__ __forceinline__ double gc_pymod(double a, double b) {
  double r = fmod(a, b);
  return (r != 0.0 && ((r < 0.0) != (b < 0.0))) ? r + b : r;
}

// Max/min propagating NaN like numpy (and ONNX Max/Min).
template <typename T> __device__ __forceinline__ T gc_max(T a, T b) {
  return (a > b || gc_isnan(a)) ? a : b;
}
template <typename T> __device__ __forceinline__ T gc_min(T a, T b) {
  return (a < b || gc_isnan(a)) ? a : b;
}

// Clip's bounds, applied low first: with low > high every element becomes
// high; a NaN element stays NaN.
template <typename T> __device__ __forceinline__ T gc_clip_low(T x, T low) {
  return x < low ? low : x;
}
template <typename T> __device__ __forceinline__ T gc_clip_high(T x, T high) {
  return x > high ? high : x;
}

)cuda";
}

StringRef cudaScalarHeader() {
  return StringRef(kCudaScalarHeader, sizeof(kCudaScalarHeader) - 1);
}

} // namespace graphc::codegen
