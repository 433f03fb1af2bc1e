//===- ReferenceConv.cpp - library convolutions computed on the host ------===//
//
// graphc::convolve (lib/Support/Convolution.h, the host kernels' im2col
// convolution on graphc::gemm) per image and group into a float
// accumulator, on X and W widened (or rounded to tf32) into float
// channels-first planes where they are not float32 already; then the bias
// and Z, the epilogue (ReLU, SiLU as x / (1 + exp(-x)), or the erf GELU as
// x/2 (1 + erf(x / sqrt(2)))) in float, each element of Y rounded once to
// its type when stored. Every element of Y sums its products in the order
// (input channel, filter tap), taps row-major.
//
// Channels-last tensors take the same path: W is widened into channels-
// first order once, and each image's group of channels is gathered into
// planes, so that both layouts sum the same products in the same order and
// give the same bits.
//
// int8 tensors (descriptor.h) sum their products in int64, wrapped to the
// exact int32 sum (two's complement) in Y, in either layout.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/ReferenceConv.h"

#include "graphc/runtime.h"
#include "lib/Artifact/OnnxDtype.h"
#include "lib/Support/Convolution.h"
#include "lib/Support/Float16.h"
#include "runtime/src/FloatElements.h"
#include "runtime/src/ReferenceGemm.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <vector>

using namespace graphc::rt;

ConvField graphc::rt::unsupportedConvField(const graphc_conv_desc &conv) {
  const bool int8 = conv.dtype == kInt8;
  if (!int8 && conv.dtype != kFloat && conv.dtype != kFloat16 &&
      conv.dtype != kBfloat16)
    return ConvField::kDtype;
  if (conv.compute_dtype != (int8 ? kInt32 : kFloat))
    return ConvField::kComputeDtype;
  if (int8 && (conv.bias_arg >= 0 || conv.z_arg >= 0 ||
               conv.epilogue != GRAPHC_EPILOGUE_NONE))
    return ConvField::kInt8Epilogue;
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
    error +=
        "computes float32, float16, bfloat16 or int8 tensors, not " + dtype;
    break;
  case ConvField::kComputeDtype:
    error += "computes " + dtype + " tensors in " +
             (conv.dtype == kInt8 ? "int32" : "float32") + ", not " +
             graphc_dtype_name(conv.compute_dtype);
    break;
  case ConvField::kInt8Epilogue:
    error += "writes an int8 convolution's int32 sum as it is: no bias, Z "
             "or epilogue";
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
/// The most bytes of im2col columns a convolution holds at a time (the host
/// kernels' bound).
constexpr int64_t kMaxColumnBytes = int64_t(16) << 20;
static_assert(graphc::ConvWindow::kMaxDims >= GRAPHC_MAX_CONV_SPATIAL_DIMS);

graphc::ConvWindow windowOf(const graphc_conv_desc &conv) {
  graphc::ConvWindow w;
  w.nd = conv.spatial_dims;
  for (int32_t d = 0; d < w.nd; ++d) {
    w.in[d] = conv.in_size[d];
    w.kernel[d] = conv.filter_size[d];
    w.out[d] = conv.out_size[d];
    w.padBegin[d] = conv.pads_begin[d];
    w.stride[d] = conv.strides[d];
    w.dilation[d] = conv.dilations[d];
  }
  return w;
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
  const graphc::ConvWindow window = windowOf(conv);
  const int64_t inVolume = window.inSize(), outVolume = window.outSize(),
                filterVolume = window.kernelSize();
  const bool last = conv.channels_last != 0;
  const int64_t groups = conv.groups;
  const int64_t channelsPerGroup = conv.c / groups;
  const int64_t outputsPerGroup = conv.k / groups;
  const int64_t filterPerOutput = channelsPerGroup * filterVolume;
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
  const int64_t tile =
      graphc::convolveTile<float>(window, channelsPerGroup, kMaxColumnBytes);
  std::vector<float> filters, image, accumulator, columns;
  try {
    filters.resize(static_cast<size_t>(conv.k * filterPerOutput));
    if (!wide)
      image.resize(static_cast<size_t>(channelsPerGroup * inVolume));
    accumulator.resize(static_cast<size_t>(outputsPerGroup * outVolume));
    if (!window.readsImageAsColumns())
      columns.resize(static_cast<size_t>(filterPerOutput * tile));
  } catch (const std::bad_alloc &) {
    error = "out of memory for the reference convolution's scratch";
    return false;
  }
  // filters is [k, c / groups, filter...] whatever W's layout.
  if (last) {
    for (int64_t o = 0; o < conv.k; ++o)
      for (int64_t t = 0; t < filterVolume; ++t)
        for (int64_t c = 0; c < channelsPerGroup; ++c)
          filters[(o * channelsPerGroup + c) * filterVolume + t] =
              operand(w[(o * filterVolume + t) * channelsPerGroup + c]);
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
        const T *pixels = x + n * inVolume * conv.c + firstChannel;
        for (int64_t p = 0; p < inVolume; ++p)
          for (int64_t c = 0; c < channelsPerGroup; ++c)
            image[c * inVolume + p] = operand(pixels[p * conv.c + c]);
      } else {
        const T *groupX = x + (n * conv.c + firstChannel) * inVolume;
        if constexpr (Dtype == kFloat)
          if (wide)
            channels = groupX;
        if (!wide)
          for (size_t i = 0; i < image.size(); ++i)
            image[i] = operand(groupX[i]);
      }
      graphc::convolve<float>(
          window, channels, channelsPerGroup,
          filters.data() + group * outputsPerGroup * filterPerOutput,
          outputsPerGroup, accumulator.data(), columns.data(), tile);
      for (int64_t o = 0; o < outputsPerGroup; ++o) {
        const int64_t out = group * outputsPerGroup + o;
        const float *sums = accumulator.data() + o * outVolume;
        // bias + Z, then the activation, in float; Y rounded once. Output
        // position i of this channel is at base + i * pitch in Y and Z.
        const float b = bias ? E::load(bias[out]) : 0.0f;
        const int64_t base = last ? n * outVolume * conv.k + out
                                  : (n * conv.k + out) * outVolume;
        const int64_t pitch = last ? conv.k : 1;
        for (int64_t i = 0; i < outVolume; ++i) {
          float value = sums[i] + b;
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

namespace {
/// An int8 convolution: every element of Y is the exact int32 sum of its
/// products (summed in int64, wrapped), in either layout.
void runInt8Conv(const graphc_conv_desc &conv, void *const *args) {
  const auto *x = static_cast<const int8_t *>(args[conv.x_arg]);
  const auto *w = static_cast<const int8_t *>(args[conv.w_arg]);
  auto *y = static_cast<int32_t *>(args[conv.y_arg]);
  const bool last = conv.channels_last != 0;
  const int32_t rank = conv.spatial_dims;
  // Sizes and positions over three spatial dims, leading units.
  int64_t in[3] = {1, 1, 1}, filter[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, pad[3] = {0, 0, 0};
  for (int32_t i = 0; i < rank; ++i) {
    const int32_t at = 3 - rank + i;
    in[at] = conv.in_size[i];
    filter[at] = conv.filter_size[i];
    out[at] = conv.out_size[i];
    stride[at] = conv.strides[i];
    dilation[at] = conv.dilations[i];
    pad[at] = conv.pads_begin[i];
  }
  const int64_t inVolume = in[0] * in[1] * in[2];
  const int64_t filterVolume = filter[0] * filter[1] * filter[2];
  const int64_t outVolume = out[0] * out[1] * out[2];
  const int64_t channelsPerGroup = conv.c / conv.groups;
  const int64_t outputsPerGroup = conv.k / conv.groups;
  for (int64_t n = 0; n < conv.n; ++n)
    for (int64_t o = 0; o < conv.k; ++o) {
      const int64_t firstChannel = o / outputsPerGroup * channelsPerGroup;
      for (int64_t od = 0; od < out[0]; ++od)
        for (int64_t oh = 0; oh < out[1]; ++oh)
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            int64_t sum = 0;
            for (int64_t ci = 0; ci < channelsPerGroup; ++ci)
              for (int64_t fd = 0; fd < filter[0]; ++fd)
                for (int64_t fh = 0; fh < filter[1]; ++fh)
                  for (int64_t fw = 0; fw < filter[2]; ++fw) {
                    const int64_t id = od * stride[0] - pad[0] + fd * dilation[0];
                    const int64_t ih = oh * stride[1] - pad[1] + fh * dilation[1];
                    const int64_t iw = ow * stride[2] - pad[2] + fw * dilation[2];
                    // A tap in the padding adds a product with 0.
                    if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1] ||
                        iw < 0 || iw >= in[2])
                      continue;
                    const int64_t pixel = (id * in[1] + ih) * in[2] + iw;
                    const int64_t tap = (fd * filter[1] + fh) * filter[2] + fw;
                    const int64_t channel = firstChannel + ci;
                    const int64_t xAt =
                        last ? (n * inVolume + pixel) * conv.c + channel
                             : (n * conv.c + channel) * inVolume + pixel;
                    const int64_t wAt =
                        last ? (o * filterVolume + tap) * channelsPerGroup + ci
                             : (o * channelsPerGroup + ci) * filterVolume + tap;
                    sum += int64_t(x[xAt]) * int64_t(w[wAt]);
                  }
            const int64_t position = (od * out[1] + oh) * out[2] + ow;
            y[last ? (n * outVolume + position) * conv.k + o
                   : (n * conv.k + o) * outVolume + position] =
                wrapToInt32(sum);
          }
    }
}
} // namespace

bool graphc::rt::runReferenceConv(const graphc_conv_desc &conv,
                                  void *const *args, std::string &error) {
  if (!referenceConvSupports(conv, error))
    return false;
  if (conv.dtype == kInt8) {
    runInt8Conv(conv, args);
    return true;
  }
  switch (conv.dtype) {
  case kFloat16:
    return runConv<kFloat16>(conv, args, error);
  case kBfloat16:
    return runConv<kBfloat16>(conv, args, error);
  default:
    return runConv<kFloat>(conv, args, error);
  }
}
