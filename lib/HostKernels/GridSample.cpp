//===- GridSample.cpp - GridSample and AffineGrid host kernels ------------===//
//
// GridSample as the ONNX reference computes it: each spatial coordinate of
// the grid is denormalised (in double, kept as float like the reference),
// rounded half to even for nearest, moved inside by the padding mode when
// outside the borders, and read through 1, 2 or 4 taps per dim, each tap
// index again mapped by the padding mode. Non-finite coordinates, which the
// reference leaves undefined, are defined here (and in the CUDA emitter) so
// that no tap ever reads outside the input. With nearest, NaN samples zeros
// (padding "zeros") or position 0, and an infinity is outside (zeros), at
// its edge (border) or at position 0 (reflection). With linear and cubic
// the output is NaN, as in onnxruntime, except that border padding clamps
// an infinity to its edge as the reference does.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"

#include <cmath>
#include <limits>

using namespace graphc::hk;

namespace {

enum class Mode { Linear, Nearest, Cubic };
enum class Padding { Zeros, Border, Reflection };

/// Reflects `x` at the borders `low` and `high` until it lies between them
/// (the reference's _gs_reflect); finite x only.
double reflect(double x, double low, double high) {
  double range = high - low;
  if (!(range > 0))
    return low;
  double fx = x;
  if (x < low) {
    double dx = low - x;
    double n = std::floor(dx / range);
    double r = dx - n * range;
    fx = std::fmod(n, 2.0) == 0 ? low + r : high - r;
  } else if (x > high) {
    double dx = x - high;
    double n = std::floor(dx / range);
    double r = dx - n * range;
    fx = std::fmod(n, 2.0) == 0 ? high - r : low + r;
  }
  // Rounding of huge coordinates must not leave the borders.
  return std::clamp(fx, low, high);
}

/// The taps of one spatial dim of one grid point.
struct Taps {
  /// The coordinate has no taps: the output is NaN.
  bool undefined = false;
  int count = 1;
  int64_t index[4] = {};
  double weight[4] = {};
  bool inside[4] = {};
};

void cubicWeights(double t, double *w) {
  constexpr double a = -0.75;
  auto near = [&](double x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  auto far = [&](double x) {
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

/// Maps normalised coordinate `g` of a dim of `size` to its taps.
Taps sampleAxis(double g, int64_t size, bool alignCorners, Mode mode,
                Padding padding) {
  double d = static_cast<double>(size);
  double low = alignCorners ? 0.0 : -0.5;
  double high = alignCorners ? d - 1 : d - 0.5;
  float x = static_cast<float>(alignCorners ? (g + 1) / 2 * (d - 1)
                                            : ((g + 1) * d - 1) / 2);
  if (mode == Mode::Nearest)
    x = std::nearbyint(x);
  Taps taps;
  // Linear and cubic weights of a NaN or infinite coordinate are NaN (as
  // in onnxruntime), unless border padding clamps an infinity to its edge.
  if (mode != Mode::Nearest && !std::isfinite(x) &&
      (std::isnan(x) || padding != Padding::Border)) {
    taps.undefined = true;
    return taps;
  }
  if (std::isnan(x)) {
    // Nearest: outside for zeros; position 0 for the others.
    x = padding == Padding::Zeros ? -8.0f : 0.0f;
  } else if (x < low || x > high) {
    if (padding == Padding::Border)
      x = static_cast<float>(std::clamp<double>(x, 0, d - 1));
    else if (padding == Padding::Reflection)
      x = std::isfinite(x) ? static_cast<float>(reflect(x, low, high)) : 0.0f;
    else
      // Every tap stays outside; the clamp only keeps indices small.
      x = static_cast<float>(std::clamp<double>(x, -8, d + 8));
  }
  int64_t first;
  if (mode == Mode::Nearest) {
    taps.count = 1;
    first = static_cast<int64_t>(x);
    taps.weight[0] = 1;
  } else {
    double base = std::floor(static_cast<double>(x));
    double t = static_cast<double>(x) - base;
    if (mode == Mode::Linear) {
      taps.count = 2;
      first = static_cast<int64_t>(base);
      taps.weight[0] = 1 - t;
      taps.weight[1] = t;
    } else {
      taps.count = 4;
      first = static_cast<int64_t>(base) - 1;
      cubicWeights(t, taps.weight);
    }
  }
  for (int k = 0; k < taps.count; ++k) {
    int64_t i = first + k;
    bool inside = i >= 0 && i < size;
    if (padding == Padding::Border) {
      i = std::clamp<int64_t>(i, 0, size - 1);
      inside = true;
    } else if (padding == Padding::Reflection) {
      i = std::clamp<int64_t>(
          static_cast<int64_t>(reflect(static_cast<double>(i), low, high)), 0,
          size - 1);
      inside = true;
    }
    taps.index[k] = inside ? i : 0;
    taps.inside[k] = inside;
  }
  return taps;
}

} // namespace

GC_KERNEL_ATTRS(grid_sample, GridSample, a) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &x = ctx.in(0);
  const gc_tensor &grid = ctx.in(1);
  static const Choice<Mode> modes[] = {{"linear", Mode::Linear},
                                       {"nearest", Mode::Nearest},
                                       {"cubic", Mode::Cubic}};
  Mode mode;
  GC_TRY(readChoice(ctx, "mode", a.mode, modes, mode));
  static const Choice<Padding> paddings[] = {
      {"zeros", Padding::Zeros},
      {"border", Padding::Border},
      {"reflection", Padding::Reflection}};
  Padding padding;
  GC_TRY(readChoice(ctx, "padding_mode", a.paddingMode, paddings, padding));
  bool alignCorners = a.alignCorners != 0;

  int rank = x.rank;
  int spatial = rank - 2;
  if (rank < 3 || grid.rank != rank || grid.dims[rank - 1] != spatial ||
      grid.dims[0] != x.dims[0])
    return ctx.fail("grid must be [N, ..., %d] of the rank of x", spatial);
  Dims outDims;
  outDims.push(x.dims[0]);
  outDims.push(x.dims[1]);
  for (int k = 1; k <= spatial; ++k)
    outDims.push(grid.dims[k]);
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  int64_t batch = x.dims[0], channels = x.dims[1];
  int64_t points = productOf(grid.dims + 1, spatial);
  int64_t volume = productOf(x.dims + 2, spatial);
  for (int k = 0; k < spatial; ++k)
    if (x.dims[2 + k] == 0 && points > 0 && channels > 0)
      return ctx.fail("cannot sample an empty spatial dim");
  Dims strides = Dims(x.dims + 2, spatial).strides();

  return dispatch<kFloats>(ctx, grid.dtype, "grid", [&](auto gridTag) {
    using G = typename decltype(gridTag)::type;
    const G *g = static_cast<const G *>(grid.data);
    return dispatch<kFloats>(ctx, x.dtype, "x", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T *in = static_cast<const T *>(x.data);
      T *out = static_cast<T *>(ctx.out(0).data);
      Taps taps[kMaxRank];
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t p = 0; p < points; ++p) {
          // The grid's last dim lists the coordinate of the last spatial
          // dim first.
          const G *point = g + (n * points + p) * spatial;
          bool undefined = false;
          for (int k = 0; k < spatial; ++k) {
            taps[k] =
                sampleAxis(static_cast<double>(toArith(point[spatial - 1 - k])),
                           x.dims[2 + k], alignCorners, mode, padding);
            undefined |= taps[k].undefined;
          }
          for (int64_t c = 0; c < channels; ++c) {
            T *y = out + (n * channels + c) * points + p;
            if (undefined) {
              *y = fromArith<T>(std::numeric_limits<double>::quiet_NaN());
              continue;
            }
            const T *image = in + (n * channels + c) * volume;
            double value = 0;
            int tap[kMaxRank] = {};
            while (true) {
              double w = 1;
              int64_t offset = 0;
              bool inside = true;
              for (int k = 0; k < spatial; ++k) {
                w *= taps[k].weight[tap[k]];
                offset += taps[k].index[tap[k]] * strides[k];
                inside &= taps[k].inside[tap[k]];
              }
              if (inside)
                value += w * static_cast<double>(toArith(image[offset]));
              int k = spatial - 1;
              for (; k >= 0; --k) {
                if (++tap[k] < taps[k].count)
                  break;
                tap[k] = 0;
              }
              if (k < 0)
                break;
            }
            *y = fromArith<T>(value);
          }
        }
      }
      return 0;
    });
  });
}

GC_KERNEL_ATTRS(affine_grid, AffineGrid, a) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &theta = ctx.in(0);
  Dims size;
  GC_TRY(ctx.readInts(1, size, "size"));
  if (size.rank != 4 && size.rank != 5)
    return ctx.fail("size must hold 4 or 5 values");
  int spatial = size.rank - 2;
  if (theta.rank != 3 || theta.dims[0] != size[0] || theta.dims[1] != spatial ||
      theta.dims[2] != spatial + 1)
    return ctx.fail("theta must be [%lld, %d, %d]",
                    static_cast<long long>(size[0]), spatial, spatial + 1);
  Dims outDims;
  outDims.push(size[0]);
  for (int k = 0; k < spatial; ++k) {
    if (size[2 + k] < 0)
      return ctx.fail("size has a negative dim");
    outDims.push(size[2 + k]);
  }
  outDims.push(spatial);
  GC_TRY(ctx.checkOutput(0, theta.dtype, outDims));
  bool alignCorners = a.alignCorners != 0;
  int64_t points = productOf(outDims.v + 1, spatial);
  return dispatch<kFloats>(ctx, theta.dtype, "theta", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *t = static_cast<const T *>(theta.data);
    T *out = static_cast<T *>(ctx.out(0).data);
    for (int64_t n = 0; n < size[0]; ++n) {
      int64_t index[kMaxRank] = {};
      for (int64_t p = 0; p < points; ++p) {
        // (x, y[, z], 1): the last spatial dim's coordinate first.
        double v[4];
        for (int k = 0; k < spatial; ++k) {
          double length = static_cast<double>(outDims[1 + k]);
          double i = static_cast<double>(index[k]);
          double c;
          if (alignCorners)
            c = length > 1 ? -1 + i * (2 / (length - 1)) : -1.0;
          else
            c = -1 + 1 / length + i * (2 / length);
          v[spatial - 1 - k] = c;
        }
        v[spatial] = 1;
        const T *m = t + n * spatial * (spatial + 1);
        for (int r = 0; r < spatial; ++r) {
          double sum = 0;
          for (int j = 0; j <= spatial; ++j)
            sum +=
                static_cast<double>(toArith(m[r * (spatial + 1) + j])) * v[j];
          out[(n * points + p) * spatial + r] = fromArith<T>(sum);
        }
        nextIndex(index, outDims.v + 1, spatial);
      }
    }
    return 0;
  });
}
