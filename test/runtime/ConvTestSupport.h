//===- ConvTestSupport.h - oracles for the convolution tests ----*- C++ -*-===//
//
// Plain loops in double, written from descriptor.h's definition of a
// graphc_conv_desc and from conv_model.c's comment, against which the
// reference convolution, the cpu target and the cuDNN path are compared.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_TEST_RUNTIME_CONVTESTSUPPORT_H
#define GRAPHC_TEST_RUNTIME_CONVTESTSUPPORT_H

#include "graphc/descriptor.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace convtest {

/// out = (in + pads - dilation * (filter - 1) - 1) / stride + 1.
inline int64_t outSize(int64_t in, int64_t filter, int64_t padBegin,
                       int64_t padEnd, int64_t stride, int64_t dilation) {
  return (in + padBegin + padEnd - dilation * (filter - 1) - 1) / stride + 1;
}

/// The shape of a convolution, per spatial dim.
struct ConvShape {
  int64_t n, c, k, groups;
  std::vector<int64_t> in, filter, padsBegin, padsEnd, strides, dilations;
};

/// A float32 graphc_conv_desc of `shape` (out_size from the formula),
/// arguments X, W, bias, Z, Y, workspace; bias and Z present when asked.
inline graphc_conv_desc makeConv(const ConvShape &shape, bool bias, bool z,
                                 int32_t epilogue) {
  graphc_conv_desc conv{};
  conv.spatial_dims = static_cast<int32_t>(shape.in.size());
  conv.n = shape.n;
  conv.c = shape.c;
  conv.k = shape.k;
  conv.groups = shape.groups;
  for (size_t i = 0; i < shape.in.size(); ++i) {
    conv.in_size[i] = shape.in[i];
    conv.filter_size[i] = shape.filter[i];
    conv.pads_begin[i] = shape.padsBegin[i];
    conv.pads_end[i] = shape.padsEnd[i];
    conv.strides[i] = shape.strides[i];
    conv.dilations[i] = shape.dilations[i];
    conv.out_size[i] =
        outSize(shape.in[i], shape.filter[i], shape.padsBegin[i],
                shape.padsEnd[i], shape.strides[i], shape.dilations[i]);
  }
  conv.epilogue = epilogue;
  conv.dtype = conv.compute_dtype = 1;
  conv.x_arg = 0;
  conv.w_arg = 1;
  conv.bias_arg = bias ? 2 : -1;
  conv.z_arg = z ? 3 : -1;
  conv.y_arg = 4;
  conv.workspace_arg = 5;
  return conv;
}

inline int64_t product(const int64_t *values, int32_t count) {
  int64_t result = 1;
  for (int32_t i = 0; i < count; ++i)
    result *= values[i];
  return result;
}
inline int64_t xElements(const graphc_conv_desc &c) {
  return c.n * c.c * product(c.in_size, c.spatial_dims);
}
inline int64_t wElements(const graphc_conv_desc &c) {
  return c.k * (c.c / c.groups) * product(c.filter_size, c.spatial_dims);
}
inline int64_t yElements(const graphc_conv_desc &c) {
  return c.n * c.k * product(c.out_size, c.spatial_dims);
}

/// Where element (outer, channel, position) of a dense tensor of `outer`
/// rows, `channels` channels and `volume` row-major spatial positions lies:
/// [outer, channels, spatial...], or [outer, spatial..., channels] with the
/// channels last. X's rows are images, W's output channels, Y's images.
inline int64_t elementAt(bool channelsLast, int64_t outer, int64_t channel,
                         int64_t channels, int64_t position, int64_t volume) {
  return channelsLast ? (outer * volume + position) * channels + channel
                      : (outer * channels + channel) * volume + position;
}

/// `values` of [outer, channels, volume] moved to the other layout
/// (`toChannelsLast`: to [outer, volume, channels]).
inline std::vector<float> relayout(const std::vector<float> &values,
                                   int64_t outer, int64_t channels,
                                   int64_t volume, bool toChannelsLast) {
  std::vector<float> out(values.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t p = 0; p < volume; ++p)
        out[elementAt(toChannelsLast, o, c, channels, p, volume)] =
            values[elementAt(!toChannelsLast, o, c, channels, p, volume)];
  return out;
}

/// Y = epilogue(conv(X, W) + bias + Z), one element at a time in double:
/// output position o of channel k in group g = k / (K / groups) sums, over
/// the group's input channels and every filter position f, X at
/// o * stride - pads_begin + f * dilation (zero outside X) times W. X, W,
/// Z and Y are indexed in the layout channels_last says. `bias` and `z`
/// may be null.
inline void naiveConv(const graphc_conv_desc &c, const float *x, const float *w,
                      const float *bias, const float *z, float *y) {
  const int32_t dims = c.spatial_dims;
  const int64_t channelsPerGroup = c.c / c.groups;
  const int64_t outputsPerGroup = c.k / c.groups;
  const int64_t outCount = product(c.out_size, dims);
  const int64_t filterCount = product(c.filter_size, dims);
  const int64_t inCount = product(c.in_size, dims);
  const bool last = c.channels_last != 0;
  std::vector<int64_t> out(dims), tap(dims);
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t k = 0; k < c.k; ++k)
      for (int64_t o = 0; o < outCount; ++o) {
        // Row-major spatial indices of output element o.
        for (int64_t rest = o, d = dims - 1; d >= 0; --d) {
          out[d] = rest % c.out_size[d];
          rest /= c.out_size[d];
        }
        double sum = 0;
        const int64_t group = k / outputsPerGroup;
        for (int64_t ci = 0; ci < channelsPerGroup; ++ci)
          for (int64_t f = 0; f < filterCount; ++f) {
            for (int64_t rest = f, d = dims - 1; d >= 0; --d) {
              tap[d] = rest % c.filter_size[d];
              rest /= c.filter_size[d];
            }
            int64_t at = 0;
            bool inside = true;
            for (int32_t d = 0; d < dims; ++d) {
              int64_t i = out[d] * c.strides[d] - c.pads_begin[d] +
                          tap[d] * c.dilations[d];
              inside &= i >= 0 && i < c.in_size[d];
              at = at * c.in_size[d] + i;
            }
            if (!inside)
              continue;
            int64_t channel = group * channelsPerGroup + ci;
            sum += double(x[elementAt(last, b, channel, c.c, at, inCount)]) *
                   double(w[elementAt(last, k, ci, channelsPerGroup, f,
                                      filterCount)]);
          }
        int64_t at = elementAt(last, b, k, c.k, o, outCount);
        if (bias)
          sum += bias[k];
        if (z)
          sum += z[at];
        if (c.epilogue == GRAPHC_EPILOGUE_RELU && sum < 0)
          sum = 0;
        if (c.epilogue == GRAPHC_EPILOGUE_SILU)
          sum = sum / (1 + std::exp(-sum)); // x sigmoid(x)
        if (c.epilogue == GRAPHC_EPILOGUE_GELU_ERF)
          sum = 0.5 * sum * (1 + std::erf(sum / std::sqrt(2.0)));
        y[at] = static_cast<float>(sum);
      }
}

/// conv_model.c's weights, from the same formulas.
inline std::vector<float> modelW0() {
  std::vector<float> w(72);
  for (int i = 0; i < 72; ++i)
    w[i] = float((i * 5) % 11 - 5) * 0.125f;
  return w;
}
inline std::vector<float> modelB0() {
  std::vector<float> b(6);
  for (int j = 0; j < 6; ++j)
    b[j] = 0.25f * float(j) - 0.5f;
  return b;
}
inline std::vector<float> modelW1() {
  std::vector<float> w(12);
  for (int i = 0; i < 12; ++i)
    w[i] = float((i * 3) % 7 - 3) * 0.25f;
  return w;
}

/// conv_model.c's two convolutions (CONV_CHANNELS_LAST: `channelsLast`;
/// CONV_SILU: the second's `epilogue` is GRAPHC_EPILOGUE_SILU).
inline graphc_conv_desc modelConv0(bool channelsLast = false) {
  graphc_conv_desc conv =
      makeConv({2, 4, 6, 2, {7, 6}, {3, 2}, {1, 0}, {1, 1}, {2, 2}, {1, 2}},
               true, true, GRAPHC_EPILOGUE_RELU);
  conv.channels_last = channelsLast;
  return conv;
}
inline graphc_conv_desc modelConv1(bool channelsLast = false,
                                   int32_t epilogue = GRAPHC_EPILOGUE_RELU) {
  graphc_conv_desc conv = makeConv({2, 3, 3, 3, {12}, {4}, {2}, {1}, {1}, {2}},
                                   false, false, epilogue);
  conv.channels_last = channelsLast;
  return conv;
}

/// conv_model.c's outputs for x, z and s, in the model's layout, with the
/// second convolution's epilogue `conv1Epilogue`.
struct ConvModelOutputs {
  std::vector<float> y, y1;
};
inline ConvModelOutputs
convModelExpected(const std::vector<float> &x, const std::vector<float> &z,
                  const std::vector<float> &s, bool channelsLast = false,
                  int32_t conv1Epilogue = GRAPHC_EPILOGUE_RELU) {
  ConvModelOutputs out{std::vector<float>(144), std::vector<float>(54)};
  std::vector<float> w0 = modelW0(), b0 = modelB0(), w1 = modelW1();
  naiveConv(modelConv0(channelsLast), x.data(), w0.data(), b0.data(), z.data(),
            out.y.data());
  naiveConv(modelConv1(channelsLast, conv1Epilogue), s.data(), w1.data(),
            nullptr, nullptr, out.y1.data());
  return out;
}

} // namespace convtest

#endif
