//===- ScalarExpr.cpp - per-op scalar expressions shared by the targets ---===//

#include "lib/Codegen/ScalarExpr.h"

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphScalar.h"
#include "dialects/Graph/HostEval.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/Format.h"

#include <cmath>

#include "lib/Codegen/EmbeddedFloat8Header.inc"
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
  if (type.isFloat8E4M3FN())
    return "gc_f8e4m3fn";
  if (type.isFloat8E4M3FNUZ())
    return "gc_f8e4m3fnuz";
  if (type.isFloat8E5M2())
    return "gc_f8e5m2";
  if (type.isFloat8E5M2FNUZ())
    return "gc_f8e5m2fnuz";
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
  if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() <= 16)
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

SmallVector<int64_t> transposedStrides(graph::TransposeOp transpose,
                                       ArrayRef<int64_t> out) {
  SmallVector<int64_t> inStrides =
      contiguousStrides(transpose.getData().getType().getShape());
  ArrayRef<int64_t> result = transpose.getTransposed().getType().getShape();
  SmallVector<int64_t> strides(out.size(), 0);
  size_t lead = out.size() - result.size();
  for (auto [j, from] : llvm::enumerate(graph::transposePermutation(transpose)))
    if (result[j] != 1)
      strides[lead + j] = inStrides[from];
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

Type elementTypeOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

using scalar::BinaryOp;
using scalar::NodeKind;

/// C++ precedence levels, tighter binding first (as in the standard's
/// table): what an operand must not exceed to need no parentheses.
enum Precedence : int {
  kPrimary = 2, // literals, names, calls, casts, (...)
  kUnary = 3,
  kMultiplicative = 5,
  kAdditive = 6,
  kShift = 7,
  kRelational = 9,
  kEquality = 10,
  kBitAnd = 11,
  kBitXor = 12,
  kBitOr = 13,
  kLogicalAnd = 14,
  kLogicalOr = 15,
  kConditional = 16,
};

std::pair<const char *, int> binarySyntax(BinaryOp op) {
  switch (op) {
  case BinaryOp::Mul:
    return {"*", kMultiplicative};
  case BinaryOp::Div:
    return {"/", kMultiplicative};
  case BinaryOp::Rem:
    return {"%", kMultiplicative};
  case BinaryOp::Add:
    return {"+", kAdditive};
  case BinaryOp::Sub:
    return {"-", kAdditive};
  case BinaryOp::Shl:
    return {"<<", kShift};
  case BinaryOp::Shr:
    return {">>", kShift};
  case BinaryOp::Lt:
    return {"<", kRelational};
  case BinaryOp::Le:
    return {"<=", kRelational};
  case BinaryOp::Gt:
    return {">", kRelational};
  case BinaryOp::Ge:
    return {">=", kRelational};
  case BinaryOp::Eq:
    return {"==", kEquality};
  case BinaryOp::Ne:
    return {"!=", kEquality};
  case BinaryOp::BitAnd:
    return {"&", kBitAnd};
  case BinaryOp::BitXor:
    return {"^", kBitXor};
  case BinaryOp::BitOr:
    return {"|", kBitOr};
  case BinaryOp::And:
    return {"&&", kLogicalAnd};
  case BinaryOp::Or:
    return {"||", kLogicalOr};
  }
  llvm_unreachable("binary operator");
}

/// Renders a TreeBuilder's nodes, each once, with its precedence.
class TreeRenderer {
public:
  TreeRenderer(const scalar::TreeBuilder &builder, StringRef t,
               ArrayRef<std::string> operands)
      : nodes(builder.nodes()), t(t), operands(operands),
        rendered(nodes.size()) {}

  /// The text of node `id`, or nullopt with `error` set when its text would
  /// parse as another tree.
  std::optional<std::string> render(int id) {
    if (!renderNode(id))
      return std::nullopt;
    return rendered[id]->first;
  }
  std::string error;

private:
  using Text = std::pair<std::string, int>;

  /// Node `id`'s text as the operand of an operator of precedence `limit`:
  /// fails unless its own precedence is at most `limit`.
  const std::string *operand(int id, int limit, const char *context) {
    const Text *text = renderNode(id);
    if (!text)
      return nullptr;
    if (text->second > limit) {
      error =
          "'" + text->first + "' needs parentheses as an operand of " + context;
      return nullptr;
    }
    return &text->first;
  }

  const Text *renderNode(int id) {
    if (id < 0 || id >= static_cast<int>(nodes.size())) {
      error = "malformed scalar expression";
      return nullptr;
    }
    if (rendered[id])
      return &*rendered[id];
    const scalar::Node &n = nodes[id];
    std::optional<Text> text;
    switch (n.kind) {
    case NodeKind::Operand: {
      // Callers pass names (or other primary expressions).
      unsigned index = static_cast<unsigned>(n.value);
      if (index >= operands.size() || operands[index].empty()) {
        error = "operand " + std::to_string(index) + " is absent";
        return nullptr;
      }
      text = Text(operands[index], kPrimary);
      break;
    }
    case NodeKind::Constant:
      // Negative literals come parenthesized.
      text = Text(literal(n.value, t), kPrimary);
      break;
    case NodeKind::Boolean:
      text = Text(n.value != 0 ? "true" : "false", kPrimary);
      break;
    case NodeKind::Paren: {
      const std::string *a = operand(n.args[0], kConditional, "()");
      if (!a)
        return nullptr;
      text = Text("(" + *a + ")", kPrimary);
      break;
    }
    case NodeKind::Cast: {
      const std::string *a = operand(n.args[0], kConditional, "a cast");
      if (!a)
        return nullptr;
      StringRef to;
      switch (scalar::CastTo(n.op)) {
      case scalar::CastTo::Compute:
        to = t;
        break;
      case scalar::CastTo::Double:
        to = "double";
        break;
      case scalar::CastTo::Int64:
        to = "long long";
        break;
      case scalar::CastTo::Float:
        to = "float";
        break;
      }
      text = Text(("static_cast<" + to + ">(" + *a + ")").str(), kPrimary);
      break;
    }
    case NodeKind::Unary: {
      static const char *const symbols[] = {"-", "!", "~"};
      const char *symbol = symbols[n.op];
      const std::string *a = operand(n.args[0], kUnary, symbol);
      if (!a)
        return nullptr;
      // "-" before "-x" would read as a decrement.
      if (StringRef(*a).starts_with(symbol) && StringRef(symbol) == "-") {
        error = "'-" + *a + "' reads as a decrement";
        return nullptr;
      }
      text = Text(symbol + *a, kUnary);
      break;
    }
    case NodeKind::Binary: {
      auto [symbol, level] = binarySyntax(BinaryOp(n.op));
      // Left-associative: the right operand binds tighter.
      const std::string *a = operand(n.args[0], level, symbol);
      const std::string *b =
          a ? operand(n.args[1], level - 1, symbol) : nullptr;
      if (!b)
        return nullptr;
      text = Text(*a + " " + symbol + " " + *b, level);
      break;
    }
    case NodeKind::Select: {
      const std::string *c = operand(n.args[0], kLogicalOr, "?:");
      const std::string *a =
          c ? operand(n.args[1], kConditional, "?:") : nullptr;
      const std::string *b =
          a ? operand(n.args[2], kConditional, "?:") : nullptr;
      if (!b)
        return nullptr;
      text = Text(*c + " ? " + *a + " : " + *b, kConditional);
      break;
    }
    case NodeKind::Call: {
      std::string call =
          std::string("gc_") + scalar::fnName(scalar::Fn(n.op)) + "(";
      for (int k = 0; k < 2 && n.args[k] >= 0; ++k) {
        const std::string *a = operand(n.args[k], kConditional, "a call");
        if (!a)
          return nullptr;
        call += (k ? ", " : "") + *a;
      }
      text = Text(call + ")", kPrimary);
      break;
    }
    }
    rendered[id] = std::move(text);
    return &*rendered[id];
  }

  const std::vector<scalar::Node> &nodes;
  StringRef t;
  ArrayRef<std::string> operands;
  std::vector<std::optional<Text>> rendered;
};

} // namespace

std::optional<std::string> renderScalarTree(const scalar::TreeBuilder &builder,
                                            scalar::ScalarValue root,
                                            StringRef computeType,
                                            ArrayRef<std::string> operands,
                                            std::string &error) {
  TreeRenderer renderer(builder, computeType, operands);
  std::optional<std::string> text = renderer.render(root.id);
  if (!text)
    error = renderer.error;
  return text;
}

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
  auto dense = dyn_cast_or_null<DenseElementsAttr>(constant->getAttr("value"));
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
  auto scalarOp = dyn_cast<ScalarComputeOpInterface>(op);
  if (!scalarOp)
    return fail(op, operands.size() == 1
                        ? "unsupported attribute value"
                        : "no pointwise expression for this op");
  Type elementType = elementTypeOf(slots[0]);
  scalar::TreeBuilder builder(isFloatType(elementType));
  SmallVector<scalar::ScalarValue> values;
  for (auto [index, slot] : llvm::enumerate(slots))
    values.push_back(slot ? builder.operand(index) : scalar::ScalarValue());
  scalar::ScalarValue root = scalarOp.buildScalar(builder, values);
  if (!root.valid())
    return fail(op, builder.failure().empty()
                        ? "no pointwise expression for this op"
                        : builder.failure());
  std::string error;
  std::optional<std::string> text = renderScalarTree(
      builder, root, computeType(elementType), operands, error);
  if (!text)
    return fail(op, "scalar expression does not render: " + error);
  return *text;
}

//===----------------------------------------------------------------------===//
// The C++ the expressions call
//===----------------------------------------------------------------------===//

StringRef scalarHelperSource() {
  static const std::string source = std::string(R"cuda(#define GRAPHC_FLOAT8_DEVICE
)cuda") + kFloat8Header + R"cuda(
// The 8-bit floats are their bits; ONNX's dtype number names the format.
#define GC_F8_TYPE(NAME, DTYPE)                                                \
  struct NAME {                                                                \
    unsigned char bits;                                                        \
  };                                                                           \
  __device__ __forceinline__ float gc_ld(NAME v) { return gc_f8_to_float(DTYPE, v.bits); }
GC_F8_TYPE(gc_f8e4m3fn, 17)
GC_F8_TYPE(gc_f8e4m3fnuz, 18)
GC_F8_TYPE(gc_f8e5m2, 19)
GC_F8_TYPE(gc_f8e5m2fnuz, 20)

// Loads widen f16/bf16 (and fp8) to float; other types stay as they are.
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
// To fp8 through float, keeping inf and NaN: a saturating Cast clamps to
// the largest finite value first (graph.cast's scalar body).
#define GC_F8_CONV(NAME, DTYPE)                                                \
  template <> struct gc_conv<NAME> {                                           \
    template <typename F> static __device__ __forceinline__ NAME from(F v) {   \
      NAME r;                                                                  \
      r.bits = gc_f8_from_float(DTYPE, static_cast<float>(v), false);          \
      return r;                                                                \
    }                                                                          \
  };
GC_F8_CONV(gc_f8e4m3fn, 17)
GC_F8_CONV(gc_f8e4m3fnuz, 18)
GC_F8_CONV(gc_f8e5m2, 19)
GC_F8_CONV(gc_f8e5m2fnuz, 20)
#undef GC_F8_TYPE
#undef GC_F8_CONV
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
  return source;
}

StringRef cudaScalarHeader() {
  return StringRef(kCudaScalarHeader, sizeof(kCudaScalarHeader) - 1);
}

} // namespace graphc::codegen
