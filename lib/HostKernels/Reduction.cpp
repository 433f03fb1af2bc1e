//===- Reduction.cpp - Reduce*, ArgMax/ArgMin and CumSum kernels ----------===//
//
// Floats accumulate in double and integers in 64 bits, then round once into
// the output type. Reducing an empty set yields the identity of the
// reduction (0, 1, -inf, +inf, NaN for the mean), as in ONNX.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"

using namespace graphc::hk;

namespace {

enum class ReduceKind {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  L1,
  L2,
  LogSum,
  LogSumExp,
  SumSquare
};

/// The attributes every Reduce* op has.
struct ReduceFlags {
  bool keepDims;
  bool noopWithEmptyAxes;
};

/// Input strides split into kept and reduced dimensions.
struct ReducePlan {
  StridedLoop<1> kept;
  StridedLoop<1> reduced;
  int64_t reducedCount = 1;
};

/// Resolves the axes (input 1), checks the output shape and splits the
/// iteration space. `identity` is set when the op is a no-op (empty axes
/// with noop_with_empty_axes).
int planReduction(KernelContext &ctx, const ReduceFlags &flags,
                  ReducePlan &plan, bool &identity) {
  const gc_tensor &x = ctx.in(0);
  bool keepDims = flags.keepDims;
  bool noopWithEmptyAxes = flags.noopWithEmptyAxes;
  Dims axes;
  if (ctx.has(1))
    GC_TRY(ctx.readInts(1, axes, "axes"));
  bool reduce[kMaxRank] = {};
  identity = axes.rank == 0 && noopWithEmptyAxes;
  if (axes.rank == 0 && !noopWithEmptyAxes)
    for (int d = 0; d < x.rank; ++d)
      reduce[d] = true;
  for (int k = 0; k < axes.rank; ++k) {
    int axis;
    GC_TRY(ctx.normalizeAxis(axes[k], x.rank, axis));
    if (reduce[axis])
      return ctx.fail("axis %lld is repeated", static_cast<long long>(axes[k]));
    reduce[axis] = true;
  }
  Dims outDims;
  Dims strides = Dims::of(x).strides();
  for (int d = 0; d < x.rank; ++d) {
    if (!reduce[d]) {
      outDims.push(x.dims[d]);
      plan.kept.dims[plan.kept.rank] = x.dims[d];
      plan.kept.strides[0][plan.kept.rank++] = strides[d];
      continue;
    }
    if (keepDims)
      outDims.push(1);
    plan.reduced.dims[plan.reduced.rank] = x.dims[d];
    plan.reduced.strides[0][plan.reduced.rank++] = strides[d];
    plan.reducedCount *= x.dims[d];
  }
  if (identity)
    outDims = Dims::of(x);
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  plan.reduced.coalesce();
  return 0;
}

template <typename T>
int reduceTyped(KernelContext &ctx, ReduceKind kind, const ReduceFlags &flags) {
  const gc_tensor &x = ctx.in(0);
  ReducePlan plan;
  bool identity = false;
  GC_TRY(planReduction(ctx, flags, plan, identity));
  const T *in = static_cast<const T *>(x.data);
  T *out = static_cast<T *>(ctx.out(0).data);
  using Acc = std::conditional_t<
      isFloatLike<T>, double,
      std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
  auto value = [&](int64_t offset) { return static_cast<Acc>(toArith(in[offset])); };

  if (identity) {
    // Empty axes with noop_with_empty_axes: the input passes through, with
    // the elementwise part of the reduction (square, abs, ...) still applied.
    for (int64_t i = 0, n = numElements(x); i < n; ++i) {
      Acc v = value(i);
      switch (kind) {
      case ReduceKind::L1:
      case ReduceKind::L2:
        v = v < Acc(0) ? Acc(0) - v : v;
        break;
      case ReduceKind::SumSquare:
        v = v * v;
        break;
      case ReduceKind::LogSum:
      case ReduceKind::LogSumExp:
        if constexpr (std::is_same_v<Acc, double>)
          v = kind == ReduceKind::LogSum ? std::log(v) : v;
        break;
      default:
        break;
      }
      out[i] = fromArith<T>(v);
    }
    return 0;
  }

  constexpr bool isFloat = std::is_same_v<Acc, double>;
  Acc lowest, highest;
  if constexpr (isFloat) {
    lowest = -std::numeric_limits<double>::infinity();
    highest = std::numeric_limits<double>::infinity();
  } else {
    lowest = static_cast<Acc>(std::numeric_limits<T>::lowest());
    highest = static_cast<Acc>(std::numeric_limits<T>::max());
  }
  int64_t outIndex = 0;
  plan.kept.forEach([&](const int64_t *base) {
    Acc acc = 0;
    bool nan = false;
    switch (kind) {
    case ReduceKind::Prod:
      acc = 1;
      break;
    case ReduceKind::Max:
      acc = lowest;
      break;
    case ReduceKind::Min:
      acc = highest;
      break;
    case ReduceKind::LogSumExp:
      // Shift by the maximum so that exp cannot overflow.
      acc = lowest;
      plan.reduced.forEach([&](const int64_t *offset) {
        Acc v = value(base[0] + offset[0]);
        acc = v > acc ? v : acc;
      });
      break;
    default:
      break;
    }
    Acc shift = acc;
    if (kind == ReduceKind::LogSumExp)
      acc = 0;
    if constexpr (isFloat)
      if (kind == ReduceKind::LogSumExp && std::isinf(shift))
        shift = 0;
    plan.reduced.forEach([&](const int64_t *offset) {
      Acc v = value(base[0] + offset[0]);
      switch (kind) {
      case ReduceKind::Sum:
      case ReduceKind::Mean:
      case ReduceKind::LogSum:
        acc += v;
        break;
      case ReduceKind::Prod:
        acc *= v;
        break;
      case ReduceKind::Max:
        if constexpr (isFloat)
          nan |= std::isnan(v);
        acc = v > acc ? v : acc;
        break;
      case ReduceKind::Min:
        if constexpr (isFloat)
          nan |= std::isnan(v);
        acc = v < acc ? v : acc;
        break;
      case ReduceKind::L1:
        acc += v < Acc(0) ? Acc(0) - v : v;
        break;
      case ReduceKind::L2:
      case ReduceKind::SumSquare:
        acc += v * v;
        break;
      case ReduceKind::LogSumExp:
        if constexpr (isFloat)
          acc += std::exp(v - shift);
        break;
      }
    });
    double result = static_cast<double>(acc);
    switch (kind) {
    case ReduceKind::Mean:
      result = plan.reducedCount
                   ? result / static_cast<double>(plan.reducedCount)
                   : std::numeric_limits<double>::quiet_NaN();
      break;
    case ReduceKind::L2:
      result = std::sqrt(result);
      break;
    case ReduceKind::LogSum:
      result = std::log(result);
      break;
    case ReduceKind::LogSumExp:
      result = std::log(result) + static_cast<double>(shift);
      break;
    case ReduceKind::Max:
    case ReduceKind::Min:
      if (nan)
        result = std::numeric_limits<double>::quiet_NaN();
      break;
    default:
      break;
    }
    // Integer sums and products stay exact (and wrap) in 64 bits.
    bool exactInteger = !isFloat && (kind == ReduceKind::Sum ||
                                     kind == ReduceKind::Prod ||
                                     kind == ReduceKind::Max ||
                                     kind == ReduceKind::Min ||
                                     kind == ReduceKind::L1 ||
                                     kind == ReduceKind::SumSquare);
    out[outIndex++] =
        exactInteger ? fromArith<T>(acc) : fromArith<T>(result);
  });
  return 0;
}

/// A Reduce* op; `Attrs` is its attrs struct.
template <unsigned Set, typename Attrs>
int reduce(KernelContext &ctx, ReduceKind kind) {
  GC_TRY(ctx.expect(1, 1));
  Attrs a;
  GC_TRY(a.read(ctx));
  ReduceFlags flags{a.keepdims != 0, a.noopWithEmptyAxes != 0};
  return dispatch<Set>(ctx, ctx.in(0).dtype, "input", [&](auto tag) {
    return reduceTyped<typename decltype(tag)::type>(ctx, kind, flags);
  });
}

/// ArgMax or ArgMin; `axisAttr`, `keepDims` and `selectLast` are the op's
/// attributes.
int argReduce(KernelContext &ctx, int64_t axisAttr, bool keepDims,
              bool selectLast, bool wantMax) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  int axis;
  GC_TRY(ctx.normalizeAxis(axisAttr, x.rank, axis));
  Dims outDims;
  for (int d = 0; d < x.rank; ++d)
    if (d != axis || keepDims)
      outDims.push(d == axis ? 1 : x.dims[d]);
  GC_TRY(ctx.checkOutput(0, GC_DTYPE_I64, outDims));
  int64_t outer, len, inner;
  splitAxis(x, axis, outer, len, inner);
  if (len == 0 && outer * inner != 0)
    return ctx.fail("cannot reduce an empty axis");
  return dispatch<kNumeric | kBoolBit>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = static_cast<const T *>(x.data);
    int64_t *out = static_cast<int64_t *>(ctx.out(0).data);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const T *row = in + o * len * inner + i;
        int64_t best = 0;
        auto bestValue = toArith(row[0]);
        for (int64_t k = 1; k < len; ++k) {
          auto v = toArith(row[k * inner]);
          bool better = wantMax ? (selectLast ? v >= bestValue : v > bestValue)
                                : (selectLast ? v <= bestValue : v < bestValue);
          if (better) {
            best = k;
            bestValue = v;
          }
        }
        out[o * inner + i] = best;
      }
    return 0;
  });
}

} // namespace

GC_KERNEL(reduce_sum) {
  return reduce<kNumeric, attrs::ReduceSum>(ctx, ReduceKind::Sum);
}
GC_KERNEL(reduce_mean) {
  return reduce<kNumeric, attrs::ReduceMean>(ctx, ReduceKind::Mean);
}
GC_KERNEL(reduce_max) {
  return reduce<kNumeric | kBoolBit, attrs::ReduceMax>(ctx, ReduceKind::Max);
}
GC_KERNEL(reduce_min) {
  return reduce<kNumeric | kBoolBit, attrs::ReduceMin>(ctx, ReduceKind::Min);
}
GC_KERNEL(reduce_prod) {
  return reduce<kNumeric, attrs::ReduceProd>(ctx, ReduceKind::Prod);
}
GC_KERNEL(reduce_l1) {
  return reduce<kNumeric, attrs::ReduceL1>(ctx, ReduceKind::L1);
}
GC_KERNEL(reduce_l2) {
  return reduce<kNumeric, attrs::ReduceL2>(ctx, ReduceKind::L2);
}
GC_KERNEL(reduce_log_sum) {
  return reduce<kFloats, attrs::ReduceLogSum>(ctx, ReduceKind::LogSum);
}
GC_KERNEL(reduce_log_sum_exp) {
  return reduce<kFloats, attrs::ReduceLogSumExp>(ctx, ReduceKind::LogSumExp);
}
GC_KERNEL(reduce_sum_square) {
  return reduce<kNumeric, attrs::ReduceSumSquare>(ctx, ReduceKind::SumSquare);
}

GC_KERNEL_ATTRS(arg_max, ArgMax, a) {
  return argReduce(ctx, a.axis, a.keepdims != 0, a.selectLastIndex != 0, true);
}
GC_KERNEL_ATTRS(arg_min, ArgMin, a) {
  return argReduce(ctx, a.axis, a.keepdims != 0, a.selectLastIndex != 0, false);
}

GC_KERNEL_ATTRS(cum_sum, CumSum, a) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &x = ctx.in(0), &axisTensor = ctx.in(1);
  if (numElements(axisTensor) != 1 || !isIndexDtype(axisTensor.dtype))
    return ctx.fail("axis must be a scalar i32 or i64 tensor");
  // The axis is run-time data: out of range is the caller's value.
  int64_t axisValue = intAt(axisTensor, 0);
  if (axisValue < -x.rank || axisValue >= x.rank)
    return ctx.failValue("axis %lld is out of range [-%d, %d)",
                         static_cast<long long>(axisValue), x.rank, x.rank);
  int axis = static_cast<int>(axisValue < 0 ? axisValue + x.rank : axisValue);
  bool exclusive = a.exclusive != 0;
  bool reverse = a.reverse != 0;
  GC_TRY(ctx.checkOutput(0, x.dtype, Dims::of(x)));
  return forEachAxisLine<kFloats | kInts>(
      ctx, x, axis,
      [&](auto tag, const auto *src, auto *dst, int64_t len, int64_t inner) {
        using T = typename decltype(tag)::type;
        using A = Arith<T>;
        A acc = 0;
        for (int64_t step = 0; step < len; ++step) {
          int64_t at = (reverse ? len - 1 - step : step) * inner;
          A v = toArith(src[at]);
          if (!exclusive)
            acc = static_cast<A>(acc + v);
          dst[at] = fromArith<T>(acc);
          if (exclusive)
            acc = static_cast<A>(acc + v);
        }
      });
}
