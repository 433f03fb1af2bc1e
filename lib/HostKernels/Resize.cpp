//===- Resize.cpp - Resize host kernel -------------------------------------===//
//
// Separable nearest / linear / cubic interpolation over any axes, with every
// coordinate_transformation_mode and nearest_mode of opset 19, and
// antialiased linear/cubic downsampling. For each axis a table gives, per
// output coordinate, the source taps and their weights; the output then sums
// the product of the per-axis taps.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"

#include <vector>

using namespace graphc::hk;

namespace {

enum class Mode { Nearest, Linear, Cubic };
enum class Transform {
  HalfPixel,
  HalfPixelSymmetric,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfCropAndResize
};
enum class Rounding { PreferFloor, PreferCeil, Floor, Ceil };
enum class Policy { Stretch, NotLarger, NotSmaller };

/// Source taps of every output coordinate along one axis.
struct AxisTable {
  int taps = 1;
  std::vector<int64_t> index;  // [out][taps]
  std::vector<double> weight;  // [out][taps]
  std::vector<bool> outside;   // extrapolated coordinates
};

/// Maps output coordinate x to the input like the ONNX reference, which
/// measures the output length as the unrounded `scale * inLen`.
double toOriginal(Transform transform, double x, double scale, int64_t inLen,
                  int64_t outLen, double roiStart, double roiEnd) {
  double outWidth = scale * static_cast<double>(inLen);
  switch (transform) {
  case Transform::HalfPixel:
    return (x + 0.5) / scale - 0.5;
  case Transform::HalfPixelSymmetric: {
    double adjustment = static_cast<double>(outLen) / outWidth;
    double center = static_cast<double>(inLen) / 2;
    return center * (1 - adjustment) + (x + 0.5) / scale - 0.5;
  }
  case Transform::PytorchHalfPixel:
    return outWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  case Transform::AlignCorners:
    return outWidth == 1 ? 0.0
                         : x * static_cast<double>(inLen - 1) / (outWidth - 1);
  case Transform::Asymmetric:
    return x / scale;
  case Transform::TfCropAndResize:
    return outWidth == 1
               ? (roiEnd - roiStart) * (inLen - 1) / 2 + roiStart * (inLen - 1)
               : x * (roiEnd - roiStart) * (inLen - 1) / (outWidth - 1) +
                     roiStart * (inLen - 1);
  }
  return x;
}

} // namespace

GC_KERNEL_ATTRS(resize, Resize, a) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  int rank = x.rank;
  static const Choice<Mode> modes[] = {{"nearest", Mode::Nearest},
                                       {"linear", Mode::Linear},
                                       {"cubic", Mode::Cubic}};
  Mode mode;
  GC_TRY(readChoice(ctx, "mode", a.mode, modes, mode));
  static const Choice<Transform> transforms[] = {
      {"half_pixel", Transform::HalfPixel},
      {"half_pixel_symmetric", Transform::HalfPixelSymmetric},
      {"pytorch_half_pixel", Transform::PytorchHalfPixel},
      {"align_corners", Transform::AlignCorners},
      {"asymmetric", Transform::Asymmetric},
      {"tf_crop_and_resize", Transform::TfCropAndResize}};
  Transform transform;
  GC_TRY(readChoice(ctx, "coordinate_transformation_mode",
                    a.coordinateTransformationMode, transforms, transform));
  static const Choice<Rounding> roundings[] = {
      {"round_prefer_floor", Rounding::PreferFloor},
      {"round_prefer_ceil", Rounding::PreferCeil},
      {"floor", Rounding::Floor},
      {"ceil", Rounding::Ceil}};
  Rounding rounding;
  GC_TRY(readChoice(ctx, "nearest_mode", a.nearestMode, roundings, rounding));
  static const Choice<Policy> policies[] = {
      {"stretch", Policy::Stretch},
      {"not_larger", Policy::NotLarger},
      {"not_smaller", Policy::NotSmaller}};
  Policy policy;
  GC_TRY(readChoice(ctx, "keep_aspect_ratio_policy", a.keepAspectRatioPolicy,
                    policies, policy));
  bool stretch = policy == Policy::Stretch;
  bool notLarger = policy == Policy::NotLarger;
  double cubicA = a.cubicCoeffA;
  bool excludeOutside = a.excludeOutside != 0;
  double extrapolation = a.extrapolationValue;
  bool antialias = a.antialias != 0;

  int axes[kMaxRank], numAxes = 0;
  bool used[kMaxRank] = {};
  if (a.axes.present) {
    for (int64_t k = 0; k < a.axes.count; ++k) {
      int axis;
      GC_TRY(markAxis(ctx, a.axes[k], rank, used, axis));
      axes[numAxes++] = axis;
    }
  } else {
    for (int d = 0; d < rank; ++d)
      axes[numAxes++] = d;
  }

  auto readFloats = [&](int slot, double *values, const char *what) {
    const gc_tensor &t = ctx.in(slot);
    return dispatch<kFloats>(ctx, t.dtype, what, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (int64_t i = 0, n = numElements(t); i < n; ++i)
        values[i] = toArith(static_cast<const T *>(t.data)[i]);
      return 0;
    });
  };
  double scale[kMaxRank], roiStart[kMaxRank], roiEnd[kMaxRank];
  Dims outDims = Dims::of(x);
  for (int d = 0; d < rank; ++d) {
    scale[d] = 1;
    roiStart[d] = 0;
    roiEnd[d] = 1;
  }
  bool hasScales = ctx.has(2) && numElements(ctx.in(2)) > 0;
  bool hasSizes = ctx.has(3) && numElements(ctx.in(3)) > 0;
  if (hasScales == hasSizes)
    return ctx.fail("exactly one of scales and sizes must be given");
  if (hasScales) {
    if (numElements(ctx.in(2)) != numAxes)
      return ctx.fail("scales must have %d entries", numAxes);
    double values[kMaxRank];
    GC_TRY(readFloats(2, values, "scales"));
    for (int k = 0; k < numAxes; ++k) {
      if (values[k] <= 0)
        return ctx.fail("scales must be positive");
      scale[axes[k]] = values[k];
      outDims[axes[k]] = static_cast<int64_t>(x.dims[axes[k]] * values[k]);
    }
  } else {
    Dims sizes;
    GC_TRY(ctx.readInts(3, sizes, "sizes"));
    if (sizes.rank != numAxes)
      return ctx.fail("sizes must have %d entries", numAxes);
    if (stretch) {
      for (int k = 0; k < numAxes; ++k) {
        outDims[axes[k]] = sizes[k];
        scale[axes[k]] = static_cast<double>(sizes[k]) / x.dims[axes[k]];
      }
    } else {
      // One scale for every axis keeps the aspect ratio.
      double common = notLarger ? 1e300 : 0;
      for (int k = 0; k < numAxes; ++k) {
        double s = static_cast<double>(sizes[k]) / x.dims[axes[k]];
        common = notLarger ? std::min(common, s) : std::max(common, s);
      }
      for (int k = 0; k < numAxes; ++k) {
        scale[axes[k]] = common;
        outDims[axes[k]] =
            static_cast<int64_t>(std::nearbyint(common * x.dims[axes[k]]));
      }
    }
  }
  if (transform == Transform::TfCropAndResize && ctx.has(1) &&
      numElements(ctx.in(1)) > 0) {
    if (numElements(ctx.in(1)) != 2 * numAxes)
      return ctx.fail("roi must have %d entries", 2 * numAxes);
    double values[2 * kMaxRank];
    GC_TRY(readFloats(1, values, "roi"));
    for (int k = 0; k < numAxes; ++k) {
      roiStart[axes[k]] = values[k];
      roiEnd[axes[k]] = values[k + numAxes];
    }
  }
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  if (antialias && mode == Mode::Nearest)
    return ctx.fail("antialias is not defined for mode nearest");
  // Antialiased downsampling stretches the filter by 1 / scale.
  double filterScale[kMaxRank];
  int64_t firstTap[kMaxRank], tapCount[kMaxRank];
  for (int d = 0; d < rank; ++d) {
    filterScale[d] = antialias ? std::min(scale[d], 1.0) : 1.0;
    double support = mode == Mode::Cubic ? 2.0 : 1.0;
    firstTap[d] = mode == Mode::Nearest
                      ? 0
                      : static_cast<int64_t>(std::floor(-support / filterScale[d])) + 1;
    tapCount[d] = mode == Mode::Nearest ? 1 : 2 - 2 * firstTap[d];
  }

  AxisTable tables[kMaxRank];
  for (int d = 0; d < rank; ++d) {
    AxisTable &table = tables[d];
    int64_t inLen = x.dims[d], outLen = outDims[d];
    table.taps = static_cast<int>(tapCount[d]);
    table.index.assign(static_cast<size_t>(outLen * table.taps), 0);
    table.weight.assign(static_cast<size_t>(outLen * table.taps), 0.0);
    table.outside.assign(static_cast<size_t>(outLen), false);
    for (int64_t o = 0; o < outLen; ++o) {
      double pos = toOriginal(transform, static_cast<double>(o), scale[d], inLen,
                              outLen, roiStart[d], roiEnd[d]);
      if (transform == Transform::TfCropAndResize &&
          (pos < 0 || pos > static_cast<double>(inLen - 1)))
        table.outside[o] = true;
      int64_t *index = &table.index[o * table.taps];
      double *weight = &table.weight[o * table.taps];
      if (mode == Mode::Nearest) {
        double r;
        switch (rounding) {
        case Rounding::PreferFloor:
          r = pos == std::floor(pos) + 0.5 ? std::floor(pos) : std::round(pos);
          break;
        case Rounding::PreferCeil:
          r = std::floor(pos + 0.5);
          break;
        case Rounding::Floor:
          r = std::floor(pos);
          break;
        case Rounding::Ceil:
          r = std::ceil(pos);
          break;
        }
        index[0] = std::clamp<int64_t>(static_cast<int64_t>(r), 0, inLen - 1);
        weight[0] = 1;
        continue;
      }
      // Taps sit at integer offsets i from xl = pos - ratio, where ratio is
      // in (0, 1] (an integer pos counts as ratio 1, as in the reference).
      double ratio = pos - std::floor(pos);
      if (ratio == 0)
        ratio = 1;
      int64_t left = static_cast<int64_t>(std::llround(pos - ratio));
      double s = filterScale[d];
      double total = 0;
      for (int k = 0; k < table.taps; ++k) {
        int64_t i = firstTap[d] + k;
        double arg = std::fabs(s * (static_cast<double>(i) - ratio));
        double w;
        if (mode == Mode::Linear) {
          w = std::max(0.0, 1 - arg);
        } else {
          double a = cubicA;
          w = arg <= 1   ? ((a + 2) * arg - (a + 3)) * arg * arg + 1
              : arg < 2 ? ((a * arg - 5 * a) * arg + 8 * a) * arg - 4 * a
                        : 0.0;
        }
        int64_t source = left + i;
        if (excludeOutside && (source < 0 || source >= inLen))
          w = 0;
        weight[k] = w;
        total += w;
        index[k] = std::clamp<int64_t>(source, 0, inLen - 1);
      }
      if ((antialias || excludeOutside) && total != 0)
        for (int k = 0; k < table.taps; ++k)
          weight[k] /= total;
    }
  }

  Dims inStrides = Dims::of(x).strides();
  return dispatch<kNumeric>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = static_cast<const T *>(x.data);
    T *out = static_cast<T *>(ctx.out(0).data);
    int64_t total = outDims.product();
    int64_t index[kMaxRank] = {};
    for (int64_t o = 0; o < total; ++o) {
      bool outside = false;
      for (int d = 0; d < rank; ++d)
        outside |= tables[d].outside[index[d]];
      double value = extrapolation;
      if (!outside) {
        value = 0;
        int tap[kMaxRank] = {};
        while (true) {
          double w = 1;
          int64_t offset = 0;
          for (int d = 0; d < rank; ++d) {
            int64_t at = index[d] * tables[d].taps + tap[d];
            w *= tables[d].weight[at];
            offset += tables[d].index[at] * inStrides[d];
          }
          if (w != 0)
            value += w * static_cast<double>(toArith(in[offset]));
          int d = rank - 1;
          for (; d >= 0; --d) {
            if (++tap[d] < tables[d].taps)
              break;
            tap[d] = 0;
          }
          if (d < 0)
            break;
        }
      }
      if constexpr (std::is_integral_v<Arith<T>>)
        value = std::nearbyint(value);
      out[o] = fromArith<T>(value);
      nextIndex(index, outDims.v, rank);
    }
    return 0;
  });
}
