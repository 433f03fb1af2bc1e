//===- RoiAlign.cpp - RoiAlign host kernel --------------------------------===//
//
// RoiAlign as onnxruntime computes it, in the same expressions and order, in
// float (double when x or rois is float64). Box r, scaled by spatial_scale
// and shifted by -0.5 ("half_pixel"; "output_half_pixel" does not shift and
// makes boxes at least 1x1), is cut into output_height x output_width bins.
// Bin (ph, pw) samples a grid of count_h x count_w points (sampling_ratio,
// or ceil(box size / bins) when 0), sample i along an axis at
//   start + p * bin + ((float)i + 0.5f) * bin / count.
// A sample outside [-1, H] x [-1, W] contributes zero; one inside is
// clamped to [0, H-1] x [0, W-1] and read through its 4 bilinear taps
// (weight w_k, value v_k). "avg" sums w1 v1 + w2 v2 + w3 v3 + w4 v4 over
// the samples and divides by count_h * count_w; "max" takes the largest
// w_k v_k over taps and samples (onnxruntime's, not the largest
// interpolated value), a zero among them when a sample lies outside.
//
// What onnxruntime leaves undefined is defined here (and in the CUDA
// emitter), so that nothing reads out of bounds or runs without end:
//  - A batch index outside [0, N) fails the run.
//  - A count that is not positive (an empty or reversed box with an
//    adaptive grid; NaN) gives no samples and the bin 0; an adaptive count
//    is clamped to kRoiAlignMaxSamplesPerAxis.
//  - Positions are monotone in i, so the samples inside the image are one
//    run per axis, found by bisection: a huge box costs its samples inside
//    the image (at most about two per pixel with an adaptive grid), not
//    its count. A NaN position is outside.
//  - Samples outside contribute an exact zero: onnxruntime adds (or takes
//    the max of) 0 * x[b, c, 0, 0], which differs only when that is not
//    finite. Where "max" meets NaN values, the comparisons are
//    onnxruntime's (a < b ? b : a), the outside zero first.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/RoiAlign.h"
#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"

#include <cmath>
#include <type_traits>

using namespace graphc::hk;

namespace {

enum class Mode { Avg, Max };

/// Samples along one axis of a bin: `count` points, point i at
/// first + ((float)i + 0.5f) * bin / count (onnxruntime's expression; the
/// offset is computed in float whatever C is, as there).
template <typename C> struct SampleAxis {
  C first = 0, bin = 0;
  int64_t count = 0;

  C at(int64_t i) const {
    return first + static_cast<C>(static_cast<float>(i) + 0.5f) * bin /
                       static_cast<C>(count);
  }
};

/// The samples of a box dimension of `size` (already scaled) split into
/// `bins`: `ratio` when positive, else ceil(size / bins), 0 when that is
/// not positive, at most kRoiAlignMaxSamplesPerAxis.
template <typename C> int64_t sampleCount(int64_t ratio, C size, int64_t bins) {
  if (ratio > 0)
    return ratio;
  C count = std::ceil(size / static_cast<C>(bins));
  if (!(count > 0))
    return 0;
  if (count >= static_cast<C>(graphc::kRoiAlignMaxSamplesPerAxis))
    return graphc::kRoiAlignMaxSamplesPerAxis;
  return static_cast<int64_t>(count);
}

/// The first i in [0, n) where `pred` holds, n when none; `pred` must be
/// false then true along i.
template <typename Pred> int64_t firstWhere(int64_t n, Pred pred) {
  int64_t low = 0, high = n;
  while (low < high) {
    int64_t mid = low + (high - low) / 2;
    if (pred(mid))
      high = mid;
    else
      low = mid + 1;
  }
  return low;
}

/// The run [begin, end) of the samples of `axis` inside [-1, size]. The
/// positions are monotone in i (non-decreasing for bin >= 0) and, unless
/// none is inside, never NaN.
template <typename C>
void insideRun(const SampleAxis<C> &axis, int64_t size, int64_t &begin,
               int64_t &end) {
  C limit = static_cast<C>(size);
  if (axis.bin >= 0) {
    begin = firstWhere(axis.count, [&](int64_t i) { return axis.at(i) >= -1; });
    end = firstWhere(axis.count, [&](int64_t i) { return axis.at(i) > limit; });
  } else {
    begin =
        firstWhere(axis.count, [&](int64_t i) { return axis.at(i) <= limit; });
    end = firstWhere(axis.count, [&](int64_t i) { return axis.at(i) < -1; });
  }
  if (end < begin)
    end = begin;
}

/// The two taps of a sample at `y` (inside [-1, size]) and their weights.
template <typename C> struct Tap {
  int64_t low, high;
  C lowWeight, highWeight;
};

template <typename C> Tap<C> tapAt(C y, int64_t size) {
  if (y <= 0)
    y = 0;
  Tap<C> tap;
  tap.low = static_cast<int64_t>(y);
  if (tap.low >= size - 1) {
    tap.high = tap.low = size - 1;
    y = static_cast<C>(tap.low);
  } else {
    tap.high = tap.low + 1;
  }
  C l = y - static_cast<C>(tap.low);
  tap.highWeight = l;
  tap.lowWeight = static_cast<C>(1) - l;
  return tap;
}

/// onnxruntime's std::max.
template <typename C> C maxOf(C a, C b) { return a < b ? b : a; }

} // namespace

GC_KERNEL_ATTRS(roi_align, RoiAlign, a) {
  GC_TRY(ctx.expect(3, 1));
  const gc_tensor &x = ctx.in(0), &rois = ctx.in(1), &batch = ctx.in(2);
  static const Choice<Mode> modes[] = {{"avg", Mode::Avg}, {"max", Mode::Max}};
  Mode mode;
  GC_TRY(readChoice(ctx, "mode", a.mode, modes, mode));
  static const Choice<bool> transforms[] = {{"half_pixel", true},
                                            {"output_half_pixel", false}};
  bool halfPixel;
  GC_TRY(readChoice(ctx, "coordinate_transformation_mode",
                    a.coordinateTransformationMode, transforms, halfPixel));
  int64_t outH = a.outputHeight, outW = a.outputWidth;
  if (outH < 1 || outW < 1)
    return ctx.fail("output_height and output_width must be positive");
  int64_t ratio = a.samplingRatio;
  if (ratio < 0 || ratio > graphc::kRoiAlignMaxSamplesPerAxis)
    return ctx.fail("sampling_ratio %lld is out of range",
                    static_cast<long long>(ratio));
  if (x.rank != 4)
    return ctx.fail("x must be [N, C, H, W]");
  if (rois.rank != 2 || rois.dims[1] != 4)
    return ctx.fail("rois must be [num_rois, 4]");
  if (batch.rank != 1 || batch.dims[0] != rois.dims[0])
    return ctx.fail("batch_indices must be [num_rois]");
  if (!isIndexDtype(batch.dtype))
    return ctx.unsupportedDtype("batch_indices", batch.dtype);
  int64_t images = x.dims[0], channels = x.dims[1];
  int64_t height = x.dims[2], width = x.dims[3], boxes = rois.dims[0];
  Dims outDims;
  outDims.push(boxes);
  outDims.push(channels);
  outDims.push(outH);
  outDims.push(outW);
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  if (numElements(ctx.out(0)) == 0)
    return 0;
  if (height == 0 || width == 0)
    return ctx.fail("cannot sample an empty spatial dim");
  for (int64_t r = 0; r < boxes; ++r) {
    int64_t b = intAt(batch, r);
    if (b < 0 || b >= images)
      return ctx.failValue("batch index %lld is out of range [0, %lld) for "
                           "box %lld",
                           static_cast<long long>(b),
                           static_cast<long long>(images),
                           static_cast<long long>(r));
  }
  // spatial_scale is a float attribute, multiplied in C.
  float spatialScale = static_cast<float>(a.spatialScale);

  return dispatch<kFloats>(ctx, rois.dtype, "rois", [&](auto roiTag) {
    using R = typename decltype(roiTag)::type;
    const R *box = static_cast<const R *>(rois.data);
    return dispatch<kFloats>(ctx, x.dtype, "x", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = std::conditional_t<std::is_same_v<T, double> ||
                                       std::is_same_v<R, double>,
                                   double, float>;
      const T *in = static_cast<const T *>(x.data);
      T *out = static_cast<T *>(ctx.out(0).data);
      C scale = static_cast<C>(spatialScale);
      C offset = halfPixel ? static_cast<C>(0.5) : static_cast<C>(0);
      for (int64_t r = 0; r < boxes; ++r) {
        auto coord = [&](int k) {
          return static_cast<C>(toArith(box[r * 4 + k])) * scale - offset;
        };
        C startW = coord(0), startH = coord(1);
        C boxW = coord(2) - startW, boxH = coord(3) - startH;
        if (!halfPixel) {
          // Malformed boxes become 1x1 (std::max: NaN stays).
          boxW = maxOf(boxW, static_cast<C>(1));
          boxH = maxOf(boxH, static_cast<C>(1));
        }
        SampleAxis<C> ay, ax;
        ay.bin = boxH / static_cast<C>(outH);
        ax.bin = boxW / static_cast<C>(outW);
        ay.count = sampleCount(ratio, boxH, outH);
        ax.count = sampleCount(ratio, boxW, outW);
        // ay.count * ax.count <= 2^62.
        int64_t total = ay.count * ax.count;
        const T *image = in + intAt(batch, r) * channels * height * width;
        for (int64_t ph = 0; ph < outH; ++ph) {
          ay.first = startH + static_cast<C>(ph) * ay.bin;
          int64_t y0 = 0, y1 = 0;
          if (total > 0)
            insideRun(ay, height, y0, y1);
          for (int64_t pw = 0; pw < outW; ++pw) {
            ax.first = startW + static_cast<C>(pw) * ax.bin;
            int64_t x0 = 0, x1 = 0;
            if (total > 0)
              insideRun(ax, width, x0, x1);
            // Runs are at most 2^31 long, their product fits.
            bool someOutside = (y1 - y0) * (x1 - x0) < total;
            for (int64_t c = 0; c < channels; ++c) {
              const T *plane = image + c * height * width;
              auto value = [&](int64_t yy, int64_t xx) {
                return static_cast<C>(toArith(plane[yy * width + xx]));
              };
              C result = 0;
              bool any = mode == Mode::Max && someOutside;
              for (int64_t iy = y0; iy < y1; ++iy) {
                Tap<C> ty = tapAt(ay.at(iy), height);
                for (int64_t ix = x0; ix < x1; ++ix) {
                  Tap<C> tx = tapAt(ax.at(ix), width);
                  C w1 = ty.lowWeight * tx.lowWeight;
                  C w2 = ty.lowWeight * tx.highWeight;
                  C w3 = ty.highWeight * tx.lowWeight;
                  C w4 = ty.highWeight * tx.highWeight;
                  C v1 = value(ty.low, tx.low), v2 = value(ty.low, tx.high);
                  C v3 = value(ty.high, tx.low), v4 = value(ty.high, tx.high);
                  if (mode == Mode::Avg) {
                    result += w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;
                  } else {
                    C sample =
                        maxOf(maxOf(maxOf(w1 * v1, w2 * v2), w3 * v3), w4 * v4);
                    result = any ? maxOf(result, sample) : sample;
                    any = true;
                  }
                }
              }
              if (mode == Mode::Avg && total > 0)
                result /= static_cast<C>(total);
              out[((r * channels + c) * outH + ph) * outW + pw] =
                  fromArith<T>(result);
            }
          }
        }
      }
      return 0;
    });
  });
}
