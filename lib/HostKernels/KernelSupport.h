//===- KernelSupport.h - shared helpers of the host kernels -----*- C++ -*-===//
//
// Everything the kernels share: the call context (inputs, attributes, error
// reporting), fixed-capacity shapes, 16-bit float conversion, dtype dispatch
// and strided/broadcast iteration. Header-only where inlining matters for the
// inner loops; no exceptions or iostream, and scratch memory only through
// Scratch, whose failure is an error.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_HOSTKERNELS_KERNELSUPPORT_H
#define GRAPHC_HOSTKERNELS_KERNELSUPPORT_H

#include "lib/HostKernels/HostKernels.h"
#include "lib/Support/Float16.h"
#include "lib/Support/RowMajor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

namespace graphc::hk {

/// Declares a kernel with the gc_host_kernel_fn signature.
#define GC_DEFINE_HOST_KERNEL(name)                                            \
  extern "C" int gc_hk_##name(const gc_tensor *inputs, int32_t num_inputs,     \
                              gc_tensor *outputs, int32_t num_outputs,         \
                              const gc_attrs *attrs, char *err, size_t err_len)

/// Defines `gc_hk_<name>` as a thin C entry around a C++ body that receives a
/// validated KernelContext named `ctx`.
#define GC_KERNEL(name)                                                        \
  static int name##Kernel(::graphc::hk::KernelContext &ctx);                   \
  GC_DEFINE_HOST_KERNEL(name) {                                                \
    ::graphc::hk::KernelContext ctx{inputs,  num_inputs, outputs, num_outputs, \
                                    attrs,   err,        err_len, #name};      \
    if (int status = ctx.validate())                                           \
      return status;                                                           \
    return name##Kernel(ctx);                                                  \
  }                                                                            \
  static int name##Kernel(::graphc::hk::KernelContext &ctx)

/// Propagates a non-zero status.
#define GC_TRY(expr)                                                           \
  do {                                                                         \
    if (int status_ = (expr))                                                  \
      return status_;                                                          \
  } while (false)

/// Writes a message into the caller's error buffer and returns 1.
int fail(char *err, size_t len, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/// The attribute of a call named `name`, or null.
const gc_attr *findAttr(const gc_attrs *attrs, const char *name);

/// Whether a call may leave an attribute out (it then keeps its default).
enum class AttrPresence { optional, required };

/// Ranks beyond this are rejected up front so shapes live on the stack.
constexpr int kMaxRank = 16;

/// The product of the `n` extents at `dims` (1 for none).
inline int64_t productOf(const int64_t *dims, int n) {
  int64_t product = 1;
  for (int i = 0; i < n; ++i)
    product *= dims[i];
  return product;
}

/// A fixed-capacity shape or index list.
struct Dims {
  int64_t v[kMaxRank] = {};
  int rank = 0;

  Dims() = default;
  Dims(const int64_t *values, int count) : rank(count) {
    for (int i = 0; i < count; ++i)
      v[i] = values[i];
  }
  static Dims of(const gc_tensor &t) { return Dims(t.dims, t.rank); }
  int64_t &operator[](int i) { return v[i]; }
  int64_t operator[](int i) const { return v[i]; }
  void push(int64_t value) { v[rank++] = value; }
  int64_t product() const { return productOf(v, rank); }
  /// Row-major element strides of this shape.
  Dims strides() const {
    Dims s;
    s.rank = rank;
    int64_t step = 1;
    for (int i = rank - 1; i >= 0; --i) {
      s.v[i] = step;
      step *= v[i];
    }
    return s;
  }
};

/// Writes "[d0,d1,...]" into buf.
const char *formatDims(const int64_t *dims, int rank, char *buf, size_t len);

/// Integer attribute list (INTS) or floats (FLOATS) view.
struct IntList {
  const int64_t *data = nullptr;
  int64_t count = 0;
  bool present = false;
  int64_t operator[](int64_t i) const { return data[i]; }
};
struct FloatList {
  const double *data = nullptr;
  int64_t count = 0;
  bool present = false;
  double operator[](int64_t i) const { return data[i]; }
};

inline int64_t numElements(const gc_tensor &t) {
  return productOf(t.dims, t.rank);
}

/// Whether `dtype` is one of the integer types index, axis and count
/// tensors may have (i64 or i32).
inline bool isIndexDtype(int32_t dtype) {
  return dtype == GC_DTYPE_I64 || dtype == GC_DTYPE_I32;
}

/// Splits `t` around `axis` into outer * len * inner elements (len is 1 for
/// a scalar).
inline void splitAxis(const gc_tensor &t, int axis, int64_t &outer,
                      int64_t &len, int64_t &inner) {
  outer = inner = 1;
  for (int d = 0; d < axis; ++d)
    outer *= t.dims[d];
  len = t.rank ? t.dims[axis] : 1;
  for (int d = axis + 1; d < t.rank; ++d)
    inner *= t.dims[d];
}

using graphc::nextIndex;

/// Everything a kernel body needs: its operands, its attributes and a way to
/// report errors prefixed with the op mnemonic.
struct KernelContext {
  const gc_tensor *inputs;
  int32_t numInputs;
  gc_tensor *outputs;
  int32_t numOutputs;
  const gc_attrs *attrs;
  char *err;
  size_t errLen;
  const char *op;

  /// Rejects null arrays and ranks beyond kMaxRank.
  int validate();
  /// Writes "<op>: <message>" and returns 1.
  int fail(const char *format, ...) __attribute__((format(printf, 2, 3)));
  /// Writes "<op>: <message>" and returns GC_STATUS_BAD_VALUE: a value of
  /// the run's data (an index) is out of range.
  int failValue(const char *format, ...) __attribute__((format(printf, 2, 3)));
  int unsupportedDtype(const char *what, int32_t dtype);

  /// Fails unless at least `minInputs` inputs are present (the first
  /// `minInputs` slots non-absent) and exactly `numOutputs` outputs exist.
  int expect(int minInputs, int numOutputs);
  bool has(int i) const { return i < numInputs && inputs[i].rank >= 0; }
  const gc_tensor &in(int i) const { return inputs[i]; }
  gc_tensor &out(int i) const { return outputs[i]; }

  /// Fails unless output `i` has dtype `dtype` and shape `dims`.
  int checkOutput(int i, int32_t dtype, const Dims &dims);
  /// Fails unless output `i` has dtype `dtype` and dims at least `dims`: a
  /// kernel whose result dims are values it reads writes the bound a
  /// compiler planned where those values depend on data (the result is its
  /// leading corner; docs/architecture.md, "Shapes that depend on data").
  int checkBoundedOutput(int i, int32_t dtype, const Dims &dims);
  /// Fails unless input `i` has dtype `dtype`.
  int checkSameDtype(int i, int32_t dtype, const char *what);

  /// Reads attribute `name` into `value`; a missing attribute leaves
  /// `value` as it is (or fails when required), one of another kind fails.
  /// Kernels read their attributes through the structs generated from the
  /// op definitions (lib/HostKernels/KernelAttrs.h), which call these.
  int readAttr(const char *name, int64_t &value, AttrPresence presence);
  int readAttr(const char *name, std::optional<int64_t> &value,
               AttrPresence presence);
  int readAttr(const char *name, double &value, AttrPresence presence);
  int readAttr(const char *name, std::optional<double> &value,
               AttrPresence presence);
  int readAttr(const char *name, const char *&value, AttrPresence presence);
  int readAttr(const char *name, IntList &value, AttrPresence presence);
  int readAttr(const char *name, FloatList &value, AttrPresence presence);
  /// A type attribute: `value` is a gc_dtype.
  int readAttr(const char *name, int32_t &value, AttrPresence presence);
  int readAttr(const char *name, std::optional<int32_t> &value,
               AttrPresence presence);
  int readAttr(const char *name, const gc_tensor *&value,
               AttrPresence presence);

  /// Normalises a possibly negative axis into [0, rank); fails if outside.
  int normalizeAxis(int64_t axis, int rank, int &result);
  /// Reads an integer input (i32 or i64) as int64 values.
  int readInts(int i, Dims &values, const char *what);
};

/// Normalises axis `value` for `rank` dims like normalizeAxis and marks it
/// in `seen`; fails when it was marked already.
inline int markAxis(KernelContext &ctx, int64_t value, int rank, bool *seen,
                    int &axis) {
  GC_TRY(ctx.normalizeAxis(value, rank, axis));
  if (seen[axis])
    return ctx.fail("axis %d is repeated", axis);
  seen[axis] = true;
  return 0;
}

/// Splits `t` around `axis` like splitAxis, for kernels that move bytes
/// whatever the dtype: `outer` rows, each of dims[axis] blocks of
/// `innerBytes` bytes. Fails naming `what` for a dtype with no byte size.
inline int splitAxisBytes(KernelContext &ctx, const gc_tensor &t, int axis,
                          const char *what, int64_t &outer,
                          int64_t &innerBytes) {
  size_t size = gc_dtype_size(t.dtype);
  if (!size)
    return ctx.unsupportedDtype(what, t.dtype);
  int64_t len;
  splitAxis(t, axis, outer, len, innerBytes);
  innerBytes *= static_cast<int64_t>(size);
  return 0;
}

/// One value of a string attribute that names one of a few choices.
template <typename E> struct Choice {
  const char *name;
  E value;
};

/// Maps `value`, string attribute `name`, to the value of the choice it
/// names; fails with "unknown NAME 'STRING'" for any other.
template <typename E, size_t N>
int readChoice(KernelContext &ctx, const char *name, const char *value,
               const Choice<E> (&choices)[N], E &result) {
  for (const Choice<E> &choice : choices)
    if (!std::strcmp(choice.name, value)) {
      result = choice.value;
      return 0;
    }
  return ctx.fail("unknown %s '%s'", name, value);
}

/// Scratch memory of a kernel body, from malloc: a size the machine cannot
/// hold is an error the caller reports, never an abort (the kernels run
/// inside the compiler and inside models). For trivially copyable T.
template <typename T> class Scratch {
public:
  Scratch() = default;
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  ~Scratch() { std::free(ptr); }

  /// Allocates `count` elements; fails naming `what`.
  int allocate(KernelContext &ctx, int64_t count, const char *what) {
    size_t bytes = 0;
    if (count >= 0 && !__builtin_mul_overflow(static_cast<size_t>(count),
                                              sizeof(T), &bytes)) {
      std::free(ptr);
      ptr = static_cast<T *>(std::malloc(bytes ? bytes : 1));
      if (ptr)
        return 0;
    }
    return ctx.fail("cannot allocate %lld elements of scratch memory for %s",
                    static_cast<long long>(count), what);
  }
  T *data() const { return ptr; }

private:
  T *ptr = nullptr;
};

/// The most scratch a kernel allocates for a tile of work that it can
/// split (a convolution's columns): larger shapes take more tiles.
constexpr int64_t kMaxTileScratchBytes = int64_t(16) << 20;

//===----------------------------------------------------------------------===//
// 16-bit floats: storage types and round-to-nearest-even conversion.
//===----------------------------------------------------------------------===//

struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

using graphc::bf16ToFloat;
using graphc::bitsFloat;
using graphc::floatBits;
using graphc::floatToBf16;
using graphc::floatToHalf;
using graphc::halfToFloat;

/// Rounds a double to float with round-to-odd, so that a second rounding to
/// a format with at least two fewer significand bits is correctly rounded.
inline float doubleToFloatOdd(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || static_cast<double>(f) == d)
    return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d))
    f = std::nextafter(f, 0.0f);
  return bitsFloat(floatBits(f) | 1u);
}

inline uint16_t doubleToHalf(double d) {
  return floatToHalf(doubleToFloatOdd(d));
}
inline uint16_t doubleToBf16(double d) {
  return floatToBf16(doubleToFloatOdd(d));
}

//===----------------------------------------------------------------------===//
// Arithmetic types: 16-bit floats compute in float.
//===----------------------------------------------------------------------===//

template <typename T> struct ArithOf {
  using type = T;
};
template <> struct ArithOf<Half> {
  using type = float;
};
template <> struct ArithOf<BFloat16> {
  using type = float;
};
template <typename T> using Arith = typename ArithOf<T>::type;

template <typename T>
constexpr bool isFloatLike = std::is_floating_point_v<T> ||
                             std::is_same_v<T, Half> ||
                             std::is_same_v<T, BFloat16>;

template <typename T> inline Arith<T> toArith(T v) {
  if constexpr (std::is_same_v<T, Half>)
    return halfToFloat(v.bits);
  else if constexpr (std::is_same_v<T, BFloat16>)
    return bf16ToFloat(v.bits);
  else
    return v;
}

/// Converts any arithmetic value into storage type T: 16-bit floats round to
/// nearest even, floats to integers truncate (NaN to 0, saturating), anything
/// to bool compares with zero.
template <typename T, typename A> inline T fromArith(A v) {
  if constexpr (std::is_same_v<T, Half>) {
    if constexpr (std::is_same_v<A, double>)
      return Half{doubleToHalf(v)};
    else if constexpr (std::is_integral_v<A> && sizeof(A) > 2)
      return Half{doubleToHalf(static_cast<double>(v))};
    else
      return Half{floatToHalf(static_cast<float>(v))};
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    if constexpr (std::is_same_v<A, double>)
      return BFloat16{doubleToBf16(v)};
    else if constexpr (std::is_integral_v<A> && sizeof(A) > 2)
      return BFloat16{doubleToBf16(static_cast<double>(v))};
    else
      return BFloat16{floatToBf16(static_cast<float>(v))};
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != A(0);
  } else if constexpr (std::is_integral_v<T> && std::is_floating_point_v<A>) {
    if (std::isnan(v))
      return T(0);
    A t = std::trunc(v);
    if (t <= static_cast<A>(std::numeric_limits<T>::lowest()))
      return std::numeric_limits<T>::lowest();
    if (t >= static_cast<A>(std::numeric_limits<T>::max()))
      return std::numeric_limits<T>::max();
    return static_cast<T>(t);
  } else {
    return static_cast<T>(v);
  }
}

/// Converts between any two storage types.
template <typename To, typename From> inline To convertValue(From v) {
  return fromArith<To>(toArith(v));
}

//===----------------------------------------------------------------------===//
// Dtype dispatch.
//===----------------------------------------------------------------------===//

template <typename T> struct Tag {
  using type = T;
};

enum DtypeBits : unsigned {
  kF32 = 1u << 0,
  kF64 = 1u << 1,
  kF16 = 1u << 2,
  kBF16 = 1u << 3,
  kI8 = 1u << 4,
  kI16 = 1u << 5,
  kI32 = 1u << 6,
  kI64 = 1u << 7,
  kU8 = 1u << 8,
  kU16 = 1u << 9,
  kU32 = 1u << 10,
  kU64 = 1u << 11,
  kBoolBit = 1u << 12,
  kFloats = kF32 | kF64 | kF16 | kBF16,
  kSigned = kI8 | kI16 | kI32 | kI64,
  kUnsigned = kU8 | kU16 | kU32 | kU64,
  kInts = kSigned | kUnsigned,
  kNumeric = kFloats | kInts,
  kAll = kNumeric | kBoolBit,
};

#define GC_DISPATCH_CASE(ENUM, BIT, TYPE)                                      \
  case ENUM:                                                                   \
    if constexpr ((Set & (BIT)) != 0)                                          \
      return fn(Tag<TYPE>{});                                                  \
    break;

/// Calls `fn(Tag<T>{})` with the storage type of `dtype` when it is in `Set`;
/// otherwise reports an unsupported dtype for `what`.
template <unsigned Set, typename Fn>
int dispatch(KernelContext &ctx, int32_t dtype, const char *what, Fn &&fn) {
  switch (dtype) {
    GC_DISPATCH_CASE(GC_DTYPE_F32, kF32, float)
    GC_DISPATCH_CASE(GC_DTYPE_F64, kF64, double)
    GC_DISPATCH_CASE(GC_DTYPE_F16, kF16, Half)
    GC_DISPATCH_CASE(GC_DTYPE_BF16, kBF16, BFloat16)
    GC_DISPATCH_CASE(GC_DTYPE_I8, kI8, int8_t)
    GC_DISPATCH_CASE(GC_DTYPE_I16, kI16, int16_t)
    GC_DISPATCH_CASE(GC_DTYPE_I32, kI32, int32_t)
    GC_DISPATCH_CASE(GC_DTYPE_I64, kI64, int64_t)
    GC_DISPATCH_CASE(GC_DTYPE_U8, kU8, uint8_t)
    GC_DISPATCH_CASE(GC_DTYPE_U16, kU16, uint16_t)
    GC_DISPATCH_CASE(GC_DTYPE_U32, kU32, uint32_t)
    GC_DISPATCH_CASE(GC_DTYPE_U64, kU64, uint64_t)
    GC_DISPATCH_CASE(GC_DTYPE_BOOL, kBoolBit, bool)
  default:
    break;
  }
  return ctx.unsupportedDtype(what, dtype);
}
#undef GC_DISPATCH_CASE

/// Calls `line(tag, src, dst, len, inner)` for every line along `axis` of
/// `x` and the same line of output 0 (of x's shape and dtype): `len`
/// elements `inner` apart. tag::type is x's element type, one of Set.
template <unsigned Set, typename Fn>
int forEachAxisLine(KernelContext &ctx, const gc_tensor &x, int axis,
                    Fn &&line) {
  int64_t outer, len, inner;
  splitAxis(x, axis, outer, len, inner);
  return dispatch<Set>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = static_cast<const T *>(x.data);
    T *out = static_cast<T *>(ctx.out(0).data);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        line(tag, in + o * len * inner + i, out + o * len * inner + i, len,
             inner);
    return 0;
  });
}

/// Calls `fn(Tag<U>{})` with the unsigned integer type as wide as `dtype`,
/// for kernels that only move elements around.
template <typename Fn>
int dispatchBySize(KernelContext &ctx, int32_t dtype, const char *what,
                   Fn &&fn) {
  switch (gc_dtype_size(dtype)) {
  case 1:
    return fn(Tag<uint8_t>{});
  case 2:
    return fn(Tag<uint16_t>{});
  case 4:
    return fn(Tag<uint32_t>{});
  case 8:
    return fn(Tag<uint64_t>{});
  default:
    return ctx.unsupportedDtype(what, dtype);
  }
}

/// Reads element `i` of an integer tensor (i32 or i64) as int64.
inline int64_t intAt(const gc_tensor &t, int64_t i) {
  return t.dtype == GC_DTYPE_I32 ? static_cast<const int32_t *>(t.data)[i]
                                 : static_cast<const int64_t *>(t.data)[i];
}

//===----------------------------------------------------------------------===//
// Strided iteration.
//===----------------------------------------------------------------------===//

/// Iterates a shape with N independent element-stride sets. Adjacent
/// dimensions that are contiguous in every operand are merged, so the inner
/// callback sees rows as long as possible.
template <int N> struct StridedLoop {
  int rank = 0;
  int64_t dims[kMaxRank];
  int64_t strides[N][kMaxRank];

  /// Merges mergeable adjacent dims and drops size-1 dims.
  void coalesce() {
    int out = 0;
    for (int d = 0; d < rank; ++d) {
      if (dims[d] == 1)
        continue;
      if (out > 0) {
        bool mergeable = true;
        for (int k = 0; k < N; ++k)
          mergeable &= strides[k][out - 1] == strides[k][d] * dims[d];
        if (mergeable) {
          dims[out - 1] *= dims[d];
          for (int k = 0; k < N; ++k)
            strides[k][out - 1] = strides[k][d];
          continue;
        }
      }
      dims[out] = dims[d];
      for (int k = 0; k < N; ++k)
        strides[k][out] = strides[k][d];
      ++out;
    }
    rank = out;
  }

  /// Calls fn(offsets, count, innerStrides) once per innermost row.
  template <typename Fn> void run(Fn &&fn) const {
    int64_t offsets[N] = {};
    int64_t inner[N] = {};
    for (int d = 0; d < rank; ++d)
      if (dims[d] == 0)
        return;
    if (rank == 0) {
      fn(offsets, int64_t(1), inner);
      return;
    }
    for (int k = 0; k < N; ++k)
      inner[k] = strides[k][rank - 1];
    int64_t count = dims[rank - 1];
    int64_t index[kMaxRank] = {};
    while (true) {
      fn(offsets, count, inner);
      int d = rank - 2;
      for (; d >= 0; --d) {
        for (int k = 0; k < N; ++k)
          offsets[k] += strides[k][d];
        if (++index[d] < dims[d])
          break;
        for (int k = 0; k < N; ++k)
          offsets[k] -= strides[k][d] * dims[d];
        index[d] = 0;
      }
      if (d < 0)
        return;
    }
  }

  /// Calls fn(offsets) for every element.
  template <typename Fn> void forEach(Fn &&fn) const {
    run([&](const int64_t *base, int64_t count, const int64_t *inner) {
      int64_t offsets[N];
      for (int k = 0; k < N; ++k)
        offsets[k] = base[k];
      for (int64_t i = 0; i < count; ++i) {
        fn(static_cast<const int64_t *>(offsets));
        for (int k = 0; k < N; ++k)
          offsets[k] += inner[k];
      }
    });
  }
};

/// Computes the numpy broadcast of `count` shapes; fails on a mismatch.
int broadcastShapes(KernelContext &ctx, const gc_tensor *const *tensors,
                    int count, Dims &result);

/// Element strides of `t` seen through the broadcast shape `shape`
/// (0 along broadcast dims), right-aligned.
Dims broadcastStrides(const gc_tensor &t, const Dims &shape);

/// Fills `loop` over a contiguous output of `shape` (operand 0) and the N-1
/// inputs broadcast to it.
template <int N>
void fillBroadcastLoop(const gc_tensor *const (&ins)[N - 1], const Dims &shape,
                       StridedLoop<N> &loop) {
  loop.rank = shape.rank;
  Dims outStrides = shape.strides();
  for (int d = 0; d < shape.rank; ++d) {
    loop.dims[d] = shape[d];
    loop.strides[0][d] = outStrides[d];
  }
  for (int k = 0; k + 1 < N; ++k) {
    Dims s = broadcastStrides(*ins[k], shape);
    for (int d = 0; d < shape.rank; ++d)
      loop.strides[k + 1][d] = s[d];
  }
  loop.coalesce();
}

/// A loop over output `out` (operand 0, contiguous) and the N-1 inputs
/// broadcast to it; fails if the broadcast shape differs from the output's.
template <int N>
int makeBroadcastLoop(KernelContext &ctx, const gc_tensor *const (&ins)[N - 1],
                      const gc_tensor &out, StridedLoop<N> &loop) {
  Dims shape;
  GC_TRY(broadcastShapes(ctx, ins, N - 1, shape));
  Dims outDims = Dims::of(out);
  bool same = outDims.rank == shape.rank;
  for (int d = 0; same && d < shape.rank; ++d)
    same = outDims[d] == shape[d];
  if (!same) {
    char want[256], got[256];
    return ctx.fail("output shape %s does not match the broadcast shape %s",
                    formatDims(out.dims, out.rank, got, sizeof(got)),
                    formatDims(shape.v, shape.rank, want, sizeof(want)));
  }
  fillBroadcastLoop<N>(ins, shape, loop);
  return 0;
}

/// Applies `op(a, b)` elementwise over a broadcast loop of (out, a, b).
template <typename TO, typename TA, typename TB, typename Op>
void binaryLoop(const StridedLoop<3> &loop, TO *out, const TA *a, const TB *b,
                Op op) {
  loop.run([&](const int64_t *offsets, int64_t n, const int64_t *inner) {
    TO *po = out + offsets[0];
    const TA *pa = a + offsets[1];
    const TB *pb = b + offsets[2];
    if (inner[1] == 1 && inner[2] == 1) {
      for (int64_t i = 0; i < n; ++i)
        po[i] = op(pa[i], pb[i]);
    } else if (inner[1] == 1 && inner[2] == 0) {
      TB vb = pb[0];
      for (int64_t i = 0; i < n; ++i)
        po[i] = op(pa[i], vb);
    } else if (inner[1] == 0 && inner[2] == 1) {
      TA va = pa[0];
      for (int64_t i = 0; i < n; ++i)
        po[i] = op(va, pb[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        po[i] = op(pa[i * inner[1]], pb[i * inner[2]]);
    }
  });
}

} // namespace graphc::hk

#endif
