//===- ReferenceConv.cpp - library convolutions computed on the host ------===//
//
// Direct convolution over 3 spatial dims (1-d and 2-d ones get leading unit
// dims). Per image, group and output channel a float accumulator holds the
// whole output plane; each (input channel, filter tap) pair adds
// w * (a row of X) to each of its rows, over the output columns whose
// input column lies inside X (computed up front, so the inner loop has no
// branch and vectorises when the stride is 1). Every element of Y sums its
// products in the order (input channel, filter depth, row, column), in
// float, then adds the bias and Z, applies the epilogue (ReLU, SiLU as
// x / (1 + exp(-x)), or the erf GELU as x/2 (1 + erf(x / sqrt(2)))) and is
// rounded once to its type when stored.
//
// Channels-last tensors take the same path: W is widened into channels-
// first order once, and each image's group of channels is gathered into
// planes, so that both layouts sum the same products in the same order and
// give the same bits.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/ReferenceConv.h"

#include "graphc/runtime.h"
#include "lib/Artifact/OnnxDtype.h"
#include "lib/Support/Float16.h"
#include "runtime/src/FloatElements.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <vector>

using namespace graphc::rt;

ConvField graphc::rt::unsupportedConvField(const graphc_conv_desc &conv) {
  if (conv.dtype != kFloat && conv.dtype != kFloat16 && conv.dtype != kBfloat16)
    return ConvField::kDtype;
  if (conv.compute_dtype != kFloat)
    return ConvField::kComputeDtype;
  if (conv.epilogue != GRAPHC_EPILOGUE_NONE &&
      conv.epilogue != GRAPHC_EPILOGUE_RELU &&
      conv.epilogue != GRAPHC_EPILOGUE_SILU &&
      conv.epilogue != GRAPHC_EPILOGUE_GELU_ERF)
    return ConvField::kEpilogue;
  if (conv.spatial_dims < 1 || conv.spatial_dims > GRAPHC_MAX_CONV_SPATIAL_DIMS)
    return ConvField::kSpatialDims;
  if (conv.tf32 && conv.dtype != kFloat)
    return ConvField::kTf32;
  if (conv.channels_last != 0 && conv.channels_last != 1)
    return ConvField::kLayout;
  return ConvField::kNone;
}

bool graphc::rt::referenceConvSupports(const graphc_conv_desc &conv,
                                       std::string &error) {
  ConvField field = unsupportedConvField(conv);
  if (field == ConvField::kNone)
    return true;
  const std::string dtype = graphc_dtype_name(conv.dtype);
  error = "the reference convolution ";
  switch (field) {
  case ConvField::kNone:
    break;
  case ConvField::kDtype:
    error += "computes float32, float16 or bfloat16 tensors, not " + dtype;
    break;
  case ConvField::kComputeDtype:
    error += std::string("computes in float32, not ") +
             graphc_dtype_name(conv.compute_dtype);
    break;
  case ConvField::kEpilogue:
    error += "has no epilogue " + std::to_string(conv.epilogue);
    break;
  case ConvField::kSpatialDims:
    error += "has 1 to " + std::to_string(GRAPHC_MAX_CONV_SPATIAL_DIMS) +
             " spatial dims, not " + std::to_string(conv.spatial_dims);
    break;
  case ConvField::kTf32:
    error += "rounds float32 tensors to tf32, not " + dtype;
    break;
  case ConvField::kLayout:
    error +=
        "has no layout channels_last " + std::to_string(conv.channels_last);
    break;
  }
  return false;
}

namespace {
/// The spatial geometry over exactly 3 dims (depth, rows, columns); dims a
/// convolution lacks are units.
struct Geometry {
  int64_t in[3], filter[3], out[3], pad[3], stride[3], dilation[3];
  int64_t inVolume, filterVolume, outVolume;
};

Geometry geometryOf(const graphc_conv_desc &conv) {
  Geometry g;
  int32_t lead = 3 - conv.spatial_dims;
  for (int32_t d = 0; d < 3; ++d) {
    bool unit = d < lead;
    int32_t i = d - lead;
    g.in[d] = unit ? 1 : conv.in_size[i];
    g.filter[d] = unit ? 1 : conv.filter_size[i];
    g.out[d] = unit ? 1 : conv.out_size[i];
    g.pad[d] = unit ? 0 : conv.pads_begin[i];
    g.stride[d] = unit ? 1 : conv.strides[i];
    g.dilation[d] = unit ? 1 : conv.dilations[i];
  }
  g.inVolume = g.in[0] * g.in[1] * g.in[2];
  g.filterVolume = g.filter[0] * g.filter[1] * g.filter[2];
  g.outVolume = g.out[0] * g.out[1] * g.out[2];
  return g;
}

/// Floor and ceiling of a / b for b > 0.
int64_t floorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

/// The outputs [first, last) along one dim whose input index, out * stride
/// - pad + tap * dilation, lies in [0, size).
void validOutputs(const Geometry &g, int32_t d, int64_t tap, int64_t &first,
                  int64_t &last) {
  int64_t shift = g.pad[d] - tap * g.dilation[d];
  first = std::max<int64_t>(0, ceilDiv(shift, g.stride[d]));
  last = std::min<int64_t>(g.out[d],
                           floorDiv(g.in[d] - 1 + shift, g.stride[d]) + 1);
}

template <int32_t Dtype>
bool runConv(const graphc_conv_desc &conv, void *const *args,
             std::string &error) {
  using E = FloatElements<Dtype>;
  using T = typename E::Storage;
  const bool tf32 = conv.tf32 != 0;
  auto operand = [tf32](T v) {
    return tf32 ? graphc::roundToTf32(E::load(v)) : E::load(v);
  };
  const Geometry g = geometryOf(conv);
  const bool last = conv.channels_last != 0;
  const int64_t groups = conv.groups;
  const int64_t channelsPerGroup = conv.c / groups;
  const int64_t outputsPerGroup = conv.k / groups;
  const int64_t filterPerOutput = channelsPerGroup * g.filterVolume;
  const auto *x = static_cast<const T *>(args[conv.x_arg]);
  const auto *w = static_cast<const T *>(args[conv.w_arg]);
  const T *bias = conv.bias_arg >= 0
                      ? static_cast<const T *>(args[conv.bias_arg])
                      : nullptr;
  const T *z =
      conv.z_arg >= 0 ? static_cast<const T *>(args[conv.z_arg]) : nullptr;
  auto *y = static_cast<T *>(args[conv.y_arg]);

  // Channels-first float32 X is read where it lies; other types, tf32
  // products and channels-last X widen (or round, or gather) one image's
  // group of channels into planes at a time. W is widened once.
  const bool wide = Dtype == kFloat && !tf32 && !last;
  std::vector<float> filters, image, accumulator;
  try {
    filters.resize(static_cast<size_t>(conv.k * filterPerOutput));
    if (!wide)
      image.resize(static_cast<size_t>(channelsPerGroup * g.inVolume));
    accumulator.resize(static_cast<size_t>(g.outVolume));
  } catch (const std::bad_alloc &) {
    error = "out of memory for the reference convolution's scratch";
    return false;
  }
  // filters is [k, c / groups, filter...] whatever W's layout.
  if (last) {
    for (int64_t o = 0; o < conv.k; ++o)
      for (int64_t t = 0; t < g.filterVolume; ++t)
        for (int64_t c = 0; c < channelsPerGroup; ++c)
          filters[(o * channelsPerGroup + c) * g.filterVolume + t] =
              operand(w[(o * g.filterVolume + t) * channelsPerGroup + c]);
  } else {
    for (size_t i = 0; i < filters.size(); ++i)
      filters[i] = operand(w[i]);
  }

  for (int64_t n = 0; n < conv.n; ++n) {
    for (int64_t group = 0; group < groups; ++group) {
      const int64_t firstChannel = group * channelsPerGroup;
      const float *channels = image.data();
      if (last) {
        // Pixel p of channel c is at (n * in volume + p) * C + c.
        const T *pixels = x + n * g.inVolume * conv.c + firstChannel;
        for (int64_t p = 0; p < g.inVolume; ++p)
          for (int64_t c = 0; c < channelsPerGroup; ++c)
            image[c * g.inVolume + p] = operand(pixels[p * conv.c + c]);
      } else {
        const T *groupX = x + (n * conv.c + firstChannel) * g.inVolume;
        if constexpr (Dtype == kFloat)
          if (wide)
            channels = groupX;
        if (!wide)
          for (size_t i = 0; i < image.size(); ++i)
            image[i] = operand(groupX[i]);
      }
      for (int64_t o = 0; o < outputsPerGroup; ++o) {
        const int64_t out = group * outputsPerGroup + o;
        std::fill(accumulator.begin(), accumulator.end(), 0.0f);
        const float *filter = filters.data() + out * filterPerOutput;
        for (int64_t c = 0; c < channelsPerGroup; ++c) {
          const float *plane = channels + c * g.inVolume;
          for (int64_t fd = 0; fd < g.filter[0]; ++fd) {
            int64_t d0, d1;
            validOutputs(g, 0, fd, d0, d1);
            for (int64_t fh = 0; fh < g.filter[1]; ++fh) {
              int64_t h0, h1;
              validOutputs(g, 1, fh, h0, h1);
              for (int64_t fw = 0; fw < g.filter[2]; ++fw) {
                int64_t w0, w1;
                validOutputs(g, 2, fw, w0, w1);
                const float tap =
                    filter[((c * g.filter[0] + fd) * g.filter[1] + fh) *
                               g.filter[2] +
                           fw];
                const int64_t columnShift = fw * g.dilation[2] - g.pad[2];
                const int64_t step = g.stride[2];
                for (int64_t od = d0; od < d1; ++od) {
                  const int64_t id =
                      od * g.stride[0] - g.pad[0] + fd * g.dilation[0];
                  for (int64_t oh = h0; oh < h1; ++oh) {
                    const int64_t ih =
                        oh * g.stride[1] - g.pad[1] + fh * g.dilation[1];
                    // Negative before ow * step is added: an index, not
                    // a pointer outside the plane.
                    const int64_t row =
                        (id * g.in[1] + ih) * g.in[2] + columnShift;
                    float *acc =
                        accumulator.data() + (od * g.out[1] + oh) * g.out[2];
                    for (int64_t ow = w0; ow < w1; ++ow)
                      acc[ow] += tap * plane[row + ow * step];
                  }
                }
              }
            }
          }
        }
        // bias + Z, then the activation, in float; Y rounded once. Output
        // position i of this channel is at base + i * pitch in Y and Z.
        const float b = bias ? E::load(bias[out]) : 0.0f;
        const int64_t base = last ? n * g.outVolume * conv.k + out
                                  : (n * conv.k + out) * g.outVolume;
        const int64_t pitch = last ? conv.k : 1;
        for (int64_t i = 0; i < g.outVolume; ++i) {
          float value = accumulator[i] + b;
          if (z)
            value += E::load(z[base + i * pitch]);
          // max(x, 0) with NaN kept: a NaN compares false and stays.
          if (conv.epilogue == GRAPHC_EPILOGUE_RELU && value < 0.0f)
            value = 0.0f;
          // x / (1 + exp(-x)) in float: the generated kernels' expression,
          // so that the cpu target's generated loops give the same bits
          // (and the cuda fallback's epilogue kernel differs by its expf).
          if (conv.epilogue == GRAPHC_EPILOGUE_SILU)
            value = value / (1.0f + std::exp(-value));
          // 0.5 x (1 + erf(x * (1 / sqrt(2)))) in float, evaluated left to
          // right: graph.gelu's expression in lib/Codegen/ScalarExpr.cpp.
          if (conv.epilogue == GRAPHC_EPILOGUE_GELU_ERF)
            value =
                0.5f * value * (1.0f + std::erf(value * 0.7071067811865476f));
          y[base + i * pitch] = E::store(value);
        }
      }
    }
  }
  return true;
}
} // namespace

bool graphc::rt::runReferenceConv(const graphc_conv_desc &conv,
                                  void *const *args, std::string &error) {
  if (!referenceConvSupports(conv, error))
    return false;
  switch (conv.dtype) {
  case kFloat16:
    return runConv<kFloat16>(conv, args, error);
  case kBfloat16:
    return runConv<kBfloat16>(conv, args, error);
  default:
    return runConv<kFloat>(conv, args, error);
  }
}
