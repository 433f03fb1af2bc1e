//===- Normalization.cpp - normalisation host kernels ---------------------===//
//
// BatchNormalization (inference, or batch statistics in training mode),
// Instance/Layer/RMS/Group/MeanVariance normalisation, LpNormalization and
// LRN.
// Statistics are computed in double with two passes for stability.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/ComputeView.h"
#include "lib/HostKernels/KernelAttrs.h"

using namespace graphc::hk;

namespace {

/// Mean and (population) variance of n values at `data` (stride 1).
template <typename A>
void moments(const A *data, int64_t n, double &mean, double &variance) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += static_cast<double>(data[i]);
  mean = n ? sum / static_cast<double>(n) : 0.0;
  double squares = 0;
  for (int64_t i = 0; i < n; ++i) {
    double d = static_cast<double>(data[i]) - mean;
    squares += d * d;
  }
  variance = n ? squares / static_cast<double>(n) : 0.0;
}

/// Splits input 0, of rank `minRank` or more, as [N, C, inner...]; fails
/// for a lower rank.
int splitChannels(KernelContext &ctx, int minRank, int64_t &N, int64_t &C,
                  int64_t &inner) {
  const gc_tensor &x = ctx.in(0);
  if (x.rank < minRank)
    return ctx.fail("input must have rank >= %d", minRank);
  N = x.dims[0];
  C = x.dims[1];
  inner = numElements(x) / (N * C != 0 ? N * C : 1);
  return 0;
}

/// Checks that input `i` is a 1-D tensor of `n` elements of `dtype`.
int checkVector(KernelContext &ctx, int i, int32_t dtype, int64_t n,
                const char *what) {
  const gc_tensor &t = ctx.in(i);
  GC_TRY(ctx.checkSameDtype(i, dtype, what));
  if (t.rank != 1 || t.dims[0] != n)
    return ctx.fail("%s must have shape [%lld]", what,
                    static_cast<long long>(n));
  return 0;
}

} // namespace

GC_KERNEL_ATTRS(batch_normalization, BatchNormalization, a) {
  GC_TRY(ctx.expect(5, 1));
  const gc_tensor &x = ctx.in(0);
  int64_t N, C, inner;
  GC_TRY(splitChannels(ctx, 2, N, C, inner));
  static const char *names[] = {"", "scale", "bias", "input_mean", "input_var"};
  for (int i = 1; i < 5; ++i)
    GC_TRY(checkVector(ctx, i, x.dtype, C, names[i]));
  GC_TRY(ctx.checkOutput(0, x.dtype, Dims::of(x)));
  double epsilon = a.epsilon;
  bool training = a.trainingMode != 0;
  return dispatch<kFloats>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Arith<T>;
    ComputeView<T> vx(x.data, numElements(x));
    ComputeView<T> scale(ctx.in(1).data, C), bias(ctx.in(2).data, C),
        mean(ctx.in(3).data, C), var(ctx.in(4).data, C);
    T *out = static_cast<T *>(ctx.out(0).data);
    for (int64_t c = 0; c < C; ++c) {
      double m = mean.data()[c], v = var.data()[c];
      if (training) {
        // Training mode normalises with the batch statistics.
        double sum = 0, squares = 0;
        for (int64_t n = 0; n < N; ++n)
          for (int64_t i = 0; i < inner; ++i)
            sum += vx.data()[(n * C + c) * inner + i];
        m = sum / static_cast<double>(N * inner);
        for (int64_t n = 0; n < N; ++n)
          for (int64_t i = 0; i < inner; ++i) {
            double d = vx.data()[(n * C + c) * inner + i] - m;
            squares += d * d;
          }
        v = squares / static_cast<double>(N * inner);
      }
      A factor = static_cast<A>(scale.data()[c] / std::sqrt(v + epsilon));
      A shift = static_cast<A>(bias.data()[c] - m * factor);
      for (int64_t n = 0; n < N; ++n) {
        const A *src = vx.data() + (n * C + c) * inner;
        T *dst = out + (n * C + c) * inner;
        for (int64_t i = 0; i < inner; ++i)
          dst[i] = fromArith<T>(src[i] * factor + shift);
      }
    }
    return 0;
  });
}

GC_KERNEL_ATTRS(instance_normalization, InstanceNormalization, a) {
  GC_TRY(ctx.expect(3, 1));
  const gc_tensor &x = ctx.in(0);
  int64_t N, C, inner;
  GC_TRY(splitChannels(ctx, 3, N, C, inner));
  GC_TRY(checkVector(ctx, 1, x.dtype, C, "scale"));
  GC_TRY(checkVector(ctx, 2, x.dtype, C, "bias"));
  GC_TRY(ctx.checkOutput(0, x.dtype, Dims::of(x)));
  double epsilon = a.epsilon;
  return dispatch<kFloats>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    ComputeView<T> vx(x.data, numElements(x)), scale(ctx.in(1).data, C),
        bias(ctx.in(2).data, C);
    T *out = static_cast<T *>(ctx.out(0).data);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c) {
        const auto *src = vx.data() + (n * C + c) * inner;
        double mean, variance;
        moments(src, inner, mean, variance);
        double factor = scale.data()[c] / std::sqrt(variance + epsilon);
        double shift = bias.data()[c] - mean * factor;
        T *dst = out + (n * C + c) * inner;
        for (int64_t i = 0; i < inner; ++i)
          dst[i] = fromArith<T>(src[i] * factor + shift);
      }
    return 0;
  });
}

namespace {

/// LayerNormalization and RMSNormalization: each row of the dims from
/// `axis` on is normalised by its mean and variance, or by its root mean
/// square, then scaled (and for LayerNormalization shifted) by inputs that
/// broadcast into X (they normally have the normalised shape). `axisAttr`
/// and `epsilon` are the op's attributes.
int normalizeRows(KernelContext &ctx, int64_t axisAttr, double epsilon,
                  bool rms) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &x = ctx.in(0), &scale = ctx.in(1);
  int axis;
  GC_TRY(ctx.normalizeAxis(axisAttr, x.rank, axis));
  GC_TRY(ctx.checkSameDtype(1, x.dtype, "scale"));
  bool hasBias = !rms && ctx.has(2);
  if (hasBias)
    GC_TRY(ctx.checkSameDtype(2, x.dtype, "bias"));
  GC_TRY(ctx.checkOutput(0, x.dtype, Dims::of(x)));
  StridedLoop<4> affine;
  const gc_tensor &bias = hasBias ? ctx.in(2) : scale;
  GC_TRY(makeBroadcastLoop<4>(ctx, {&x, &scale, &bias}, ctx.out(0), affine));
  int64_t outer = productOf(x.dims, axis);
  int64_t inner = productOf(x.dims + axis, x.rank - axis);
  return dispatch<kFloats>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Arith<T>;
    ComputeView<T> vx(x.data, numElements(x));
    ComputeView<T> vs(scale.data, numElements(scale)), vb(bias.data, numElements(bias));
    ComputeOutput<T> out(ctx.out(0).data, numElements(x));
    for (int64_t o = 0; o < outer; ++o) {
      const A *src = vx.data() + o * inner;
      A *dst = out.data() + o * inner;
      if (rms) {
        double squares = 0;
        for (int64_t i = 0; i < inner; ++i)
          squares += static_cast<double>(src[i]) * src[i];
        double inv =
            1.0 / std::sqrt(squares / static_cast<double>(inner) + epsilon);
        for (int64_t i = 0; i < inner; ++i)
          dst[i] = static_cast<A>(src[i] * inv);
        continue;
      }
      double mean, variance;
      moments(src, inner, mean, variance);
      double inv = 1.0 / std::sqrt(variance + epsilon);
      for (int64_t i = 0; i < inner; ++i)
        dst[i] = static_cast<A>((src[i] - mean) * inv);
    }
    A *o = out.data();
    affine.forEach([&](const int64_t *offsets) {
      A v = o[offsets[0]] * vs.data()[offsets[2]];
      o[offsets[0]] = hasBias ? v + vb.data()[offsets[3]] : v;
    });
    out.flush();
    return 0;
  });
}

} // namespace

GC_KERNEL_ATTRS(layer_normalization, LayerNormalization, a) {
  return normalizeRows(ctx, a.axis, a.epsilon, false);
}
GC_KERNEL_ATTRS(rms_normalization, RmsNormalization, a) {
  return normalizeRows(ctx, a.axis, a.epsilon, true);
}

GC_KERNEL_ATTRS(group_normalization, GroupNormalization, a) {
  GC_TRY(ctx.expect(3, 1));
  const gc_tensor &x = ctx.in(0);
  int64_t N, C, spatial;
  GC_TRY(splitChannels(ctx, 2, N, C, spatial));
  int64_t groups = a.numGroups;
  if (groups < 1 || C % groups)
    return ctx.fail("num_groups (%lld) must divide the %lld channels",
                    static_cast<long long>(groups), static_cast<long long>(C));
  // Opset 21 scales per channel; opset-18 models scale per group.
  int64_t params = numElements(ctx.in(1));
  if (params != C && params != groups)
    return ctx.fail("scale must have C or num_groups elements");
  GC_TRY(checkVector(ctx, 1, x.dtype, params, "scale"));
  GC_TRY(checkVector(ctx, 2, x.dtype, params, "bias"));
  GC_TRY(ctx.checkOutput(0, x.dtype, Dims::of(x)));
  double epsilon = a.epsilon;
  int64_t perGroup = C / groups;
  return dispatch<kFloats>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    ComputeView<T> vx(x.data, numElements(x)), scale(ctx.in(1).data, params),
        bias(ctx.in(2).data, params);
    T *out = static_cast<T *>(ctx.out(0).data);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t g = 0; g < groups; ++g) {
        int64_t base = (n * C + g * perGroup) * spatial;
        double mean, variance;
        moments(vx.data() + base, perGroup * spatial, mean, variance);
        double inv = 1.0 / std::sqrt(variance + epsilon);
        for (int64_t c = 0; c < perGroup; ++c) {
          int64_t p = params == C ? g * perGroup + c : g;
          double factor = scale.data()[p] * inv;
          double shift = bias.data()[p] - mean * factor;
          for (int64_t i = 0; i < spatial; ++i) {
            int64_t at = base + c * spatial + i;
            out[at] = fromArith<T>(vx.data()[at] * factor + shift);
          }
        }
      }
    return 0;
  });
}

GC_KERNEL_ATTRS(lp_normalization, LpNormalization, a) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  int axis;
  GC_TRY(ctx.normalizeAxis(a.axis, x.rank, axis));
  int64_t p = a.p;
  if (p != 1 && p != 2)
    return ctx.fail("p must be 1 or 2, got %lld", static_cast<long long>(p));
  GC_TRY(ctx.checkOutput(0, x.dtype, Dims::of(x)));
  return forEachAxisLine<kFloats>(
      ctx, x, axis,
      [&](auto tag, const auto *src, auto *dst, int64_t len, int64_t inner) {
        using T = typename decltype(tag)::type;
        double norm = 0;
        for (int64_t k = 0; k < len; ++k) {
          double v = toArith(src[k * inner]);
          norm += p == 1 ? std::fabs(v) : v * v;
        }
        norm = p == 1 ? norm : std::sqrt(norm);
        for (int64_t k = 0; k < len; ++k)
          dst[k * inner] =
              fromArith<T>(static_cast<double>(toArith(src[k * inner])) / norm);
      });
}

GC_KERNEL_ATTRS(mean_variance_normalization, MeanVarianceNormalization, a) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  GC_TRY(ctx.checkOutput(0, x.dtype, Dims::of(x)));
  bool reduce[kMaxRank] = {};
  for (int64_t k = 0; k < a.axes.count; ++k) {
    int axis;
    GC_TRY(ctx.normalizeAxis(a.axes[k], x.rank, axis));
    reduce[axis] = true;
  }
  StridedLoop<1> kept, reduced;
  Dims strides = Dims::of(x).strides();
  int64_t count = 1;
  for (int d = 0; d < x.rank; ++d) {
    StridedLoop<1> &loop = reduce[d] ? reduced : kept;
    loop.dims[loop.rank] = x.dims[d];
    loop.strides[0][loop.rank++] = strides[d];
    if (reduce[d])
      count *= x.dims[d];
  }
  return dispatch<kFloats>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = static_cast<const T *>(x.data);
    T *out = static_cast<T *>(ctx.out(0).data);
    kept.forEach([&](const int64_t *base) {
      double sum = 0, squares = 0;
      reduced.forEach([&](const int64_t *offset) {
        double v = toArith(in[base[0] + offset[0]]);
        sum += v;
        squares += v * v;
      });
      double mean = sum / static_cast<double>(count);
      double variance = squares / static_cast<double>(count) - mean * mean;
      // The ONNX function adds 1e-9 to the standard deviation.
      double scale = 1.0 / (std::sqrt(variance > 0 ? variance : 0) + 1e-9);
      reduced.forEach([&](const int64_t *offset) {
        int64_t at = base[0] + offset[0];
        out[at] = fromArith<T>((static_cast<double>(toArith(in[at])) - mean) * scale);
      });
    });
    return 0;
  });
}

GC_KERNEL_ATTRS(lrn, Lrn, a) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  int64_t N, C, inner;
  GC_TRY(splitChannels(ctx, 2, N, C, inner));
  int64_t size = a.size;
  if (size < 1)
    return ctx.fail("size must be a positive integer");
  double alpha = a.alpha, beta = a.beta, bias = a.bias;
  GC_TRY(ctx.checkOutput(0, x.dtype, Dims::of(x)));
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  return dispatch<kFloats>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = static_cast<const T *>(x.data);
    T *out = static_cast<T *>(ctx.out(0).data);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t i = 0; i < inner; ++i) {
          double squares = 0;
          for (int64_t k = std::max<int64_t>(0, c - before);
               k <= std::min(C - 1, c + after); ++k) {
            double v = toArith(in[(n * C + k) * inner + i]);
            squares += v * v;
          }
          int64_t at = (n * C + c) * inner + i;
          double v = toArith(in[at]);
          out[at] = fromArith<T>(
              v / std::pow(bias + alpha / static_cast<double>(size) * squares, beta));
        }
    return 0;
  });
}
