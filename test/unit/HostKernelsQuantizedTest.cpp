//===- HostKernelsQuantizedTest.cpp - quantized_mat_mul, quantized_conv ---===//
//
// The reference semantics of the 8-bit products: exact integer sums that
// wrap to int32 only past 2^17 extreme products, uint8 read unsigned,
// e4m3fn decoded exactly and summed over K in order, convolution windows
// with padding, groups and both layouts, and the inputs they refuse.
//
//===----------------------------------------------------------------------===//

#include "test/unit/HostKernelsTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

using namespace graphc::hk::test;

namespace {

Buffer i8(std::vector<int64_t> dims, std::vector<int8_t> values) {
  return tensor<int8_t>(GC_DTYPE_I8, std::move(dims), std::move(values));
}
Buffer u8(std::vector<int64_t> dims, std::vector<uint8_t> values) {
  return tensor<uint8_t>(GC_DTYPE_U8, std::move(dims), std::move(values));
}
Buffer f8(std::vector<int64_t> dims, std::vector<uint8_t> codes) {
  return tensor<uint8_t>(GC_DTYPE_F8E4M3FN, std::move(dims), std::move(codes));
}

/// Deterministic bytes covering the whole range.
std::vector<uint8_t> bytes(int64_t n, int seed) {
  std::vector<uint8_t> v(static_cast<size_t>(n));
  uint32_t state = 2654435761u * static_cast<uint32_t>(seed + 1);
  for (auto &x : v) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<uint8_t>(state >> 24);
  }
  return v;
}
Buffer pattern(int32_t dtype, std::vector<int64_t> dims, int seed) {
  Buffer b{dtype, std::move(dims), {}};
  std::vector<uint8_t> v = bytes(b.count(), seed);
  b.bytes.assign(v.begin(), v.end());
  return b;
}
/// Element `i` of an int8 or uint8 buffer.
int64_t at(const Buffer &b, int64_t i) {
  uint8_t byte = static_cast<uint8_t>(b.bytes[static_cast<size_t>(i)]);
  return b.dtype == GC_DTYPE_I8 ? int64_t(static_cast<int8_t>(byte))
                                : int64_t(byte);
}

TEST(HostKernelQuantized, MatMulSumsExtremeProductsAndWrapsPastInt32) {
  // -128 * -128 = 2^14 each: K = 5 is exact, K = 2^17 + 3 is 2^31 + 3 * 2^14,
  // which wraps to -2^31 + 3 * 2^14.
  for (int64_t K : {int64_t(5), (int64_t(1) << 17) + 3}) {
    Buffer a = i8({1, K}, std::vector<int8_t>(K, -128));
    Buffer b = i8({K, 1}, std::vector<int8_t>(K, -128));
    Buffer y = output(GC_DTYPE_I32, {1, 1});
    ASSERT_EQ(run("quantized_mat_mul", {&a, &b}, {&y}), 0);
    int64_t exact = 16384 * K;
    int32_t want = K == 5 ? int32_t(exact)
                          : int32_t(-2147483647 - 1 + 3 * 16384);
    EXPECT_EQ(y.values<int32_t>()[0], want) << "K = " << K;
  }
}

TEST(HostKernelQuantized, MatMulMixesSignednessTransposesAndBroadcasts) {
  struct Case {
    int32_t aType, bType;
    std::vector<int64_t> a, b, y;
    bool transB;
  };
  const Case cases[] = {
      {GC_DTYPE_U8, GC_DTYPE_I8, {3, 7}, {7, 5}, {3, 5}, false},
      {GC_DTYPE_I8, GC_DTYPE_U8, {2, 3, 7}, {5, 7}, {2, 3, 5}, true},
      {GC_DTYPE_U8, GC_DTYPE_U8, {2, 1, 3, 9}, {1, 4, 9, 6}, {2, 4, 3, 6},
       false},
      {GC_DTYPE_I8, GC_DTYPE_I8, {1, 3, 4}, {2, 5, 4}, {2, 3, 5}, true},
  };
  int seed = 0;
  for (const Case &c : cases) {
    Buffer a = pattern(c.aType, c.a, ++seed), b = pattern(c.bType, c.b, ++seed);
    Buffer y = output(GC_DTYPE_I32, c.y);
    Attrs attrs;
    attrs.i("trans_b", c.transB ? 1 : 0);
    ASSERT_EQ(run("quantized_mat_mul", {&a, &b}, {&y}, attrs), 0);
    std::vector<int32_t> got = y.values<int32_t>();
    size_t rank = c.y.size();
    int64_t M = c.y[rank - 2], N = c.y[rank - 1], K = c.a.back();
    int64_t batches = y.count() / (M * N);
    // Batch index -> each operand's matrix (its dims of 1 broadcast).
    auto matrixOf = [&](const std::vector<int64_t> &dims, int64_t batch) {
      if (dims.size() == 2)
        return int64_t(0);
      int64_t index = 0, rest = batch, stride = 1;
      for (size_t d = rank - 2; d-- > 0;) {
        int64_t coord = rest % c.y[d];
        rest /= c.y[d];
        index += (dims[d] == 1 ? 0 : coord) * stride;
        stride *= dims[d];
      }
      return index;
    };
    for (int64_t batch = 0; batch < batches; ++batch) {
      int64_t ma = matrixOf(c.a, batch), mb = matrixOf(c.b, batch);
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          int64_t want = 0;
          for (int64_t k = 0; k < K; ++k)
            want += at(a, ma * M * K + m * K + k) *
                    at(b, mb * K * N + (c.transB ? n * K + k : k * N + n));
          ASSERT_EQ(got[batch * M * N + m * N + n], want)
              << "case " << seed / 2 << " batch " << batch << " " << m << ","
              << n;
        }
    }
  }
}

TEST(HostKernelQuantized, MatMulDecodesE4M3FNExactly) {
  // 0x01 is the smallest subnormal 2^-9, 0x38 1.0, 0x7e 448, 0xfe -448.
  Buffer a = f8({1, 2}, {0x01, 0x38}), b = f8({2, 1}, {0x01, 0x38});
  Buffer y = output(GC_DTYPE_F32, {1, 1});
  ASSERT_EQ(run("quantized_mat_mul", {&a, &b}, {&y}), 0);
  EXPECT_EQ(y.values<float>()[0], 1.0f + std::ldexp(1.0f, -18));
  Buffer big = f8({1, 2}, {0x7e, 0xfe}), bigB = f8({2, 1}, {0x7e, 0x7e});
  ASSERT_EQ(run("quantized_mat_mul", {&big, &bigB}, {&y}), 0);
  EXPECT_EQ(y.values<float>()[0], 0.0f);
  // NaN (0x7f, or 0xff with the sign) makes the sum NaN.
  for (uint8_t nan : {uint8_t(0x7f), uint8_t(0xff)}) {
    Buffer n = f8({1, 2}, {0x38, nan});
    ASSERT_EQ(run("quantized_mat_mul", {&n, &b}, {&y}), 0);
    EXPECT_TRUE(std::isnan(y.values<float>()[0]));
  }
}

TEST(HostKernelQuantized, MatMulSumsE4M3FNOverKInOrder) {
  // 448 * 448 + 2^-9 * 1 - 448 * 448: in order the small product is lost
  // against 200704 (whose f32 spacing is 2^-6), so the sum is exactly 0;
  // any other order would keep it.
  Buffer a = f8({1, 3}, {0x7e, 0x01, 0xfe}), b = f8({3, 1}, {0x7e, 0x38, 0x7e});
  Buffer y = output(GC_DTYPE_F32, {1, 1});
  ASSERT_EQ(run("quantized_mat_mul", {&a, &b}, {&y}), 0);
  EXPECT_EQ(y.values<float>()[0], 0.0f);
}

TEST(HostKernelQuantized, MatMulRefusesWhatItDoesNotDefine) {
  Buffer a = i8({2, 4}, std::vector<int8_t>(8, 1));
  Buffer b = i8({4, 3}, std::vector<int8_t>(12, 1));
  Buffer f = f8({4, 3}, std::vector<uint8_t>(12, 0x38));
  Buffer y = output(GC_DTYPE_I32, {2, 3});
  std::string error;
  EXPECT_NE(run("quantized_mat_mul", {&a, &f}, {&y}, Attrs(), &error), 0);
  EXPECT_EQ(error, "quantized_mat_mul: A and B must both be float8 e4m3fn or "
                   "both 8-bit integers");
  Buffer v = i8({4}, std::vector<int8_t>(4, 1));
  EXPECT_NE(run("quantized_mat_mul", {&v, &b}, {&y}, Attrs(), &error), 0);
  EXPECT_EQ(error, "quantized_mat_mul: A must have rank >= 2 and B rank 2 or "
                   "A's (1), got 2");
  Buffer b3 = i8({1, 4, 3}, std::vector<int8_t>(12, 1));
  Buffer a4 = i8({1, 1, 2, 4}, std::vector<int8_t>(8, 1));
  Buffer y4 = output(GC_DTYPE_I32, {1, 1, 2, 3});
  EXPECT_NE(run("quantized_mat_mul", {&a4, &b3}, {&y4}, Attrs(), &error), 0);
  EXPECT_NE(run("quantized_mat_mul", {&a, &b}, {&y},
                Attrs().i("trans_b", 1), &error),
            0);
  EXPECT_EQ(error, "quantized_mat_mul: contraction dims differ: 4 vs 3");
  EXPECT_NE(run("quantized_mat_mul", {&a, &b}, {&y},
                Attrs().i("trans_b", 2), &error),
            0);
  EXPECT_EQ(error, "quantized_mat_mul: trans_b must be 0 or 1, got 2");
  Buffer yf = output(GC_DTYPE_F32, {2, 3});
  EXPECT_NE(run("quantized_mat_mul", {&a, &b}, {&yf}, Attrs(), &error), 0);
  Buffer fa = f32({2, 4}, std::vector<float>(8, 1.0f));
  EXPECT_NE(run("quantized_mat_mul", {&fa, &b}, {&y}, Attrs(), &error), 0);
}

/// A direct 2-D convolution in int64, channels first: the definition the
/// kernel's im2col + GEMM must reproduce.
std::vector<int64_t> naiveConv(const Buffer &x, const Buffer &w, int64_t group,
                               const int64_t pads[4], const int64_t strides[2],
                               const int64_t dilations[2],
                               std::vector<int64_t> &yDims) {
  int64_t N = x.dims[0], C = x.dims[1], H = x.dims[2], W = x.dims[3];
  int64_t M = w.dims[0], Cg = w.dims[1], KH = w.dims[2], KW = w.dims[3];
  int64_t OH = (H + pads[0] + pads[2] - ((KH - 1) * dilations[0] + 1)) /
                   strides[0] +
               1;
  int64_t OW = (W + pads[1] + pads[3] - ((KW - 1) * dilations[1] + 1)) /
                   strides[1] +
               1;
  yDims = {N, M, OH, OW};
  std::vector<int64_t> y(static_cast<size_t>(N * M * OH * OW));
  int64_t Mg = M / group;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          int64_t sum = 0, g = m / Mg;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                int64_t ih = oh * strides[0] - pads[0] + kh * dilations[0];
                int64_t iw = ow * strides[1] - pads[1] + kw * dilations[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                  continue;
                sum += at(x, ((n * C + g * Cg + c) * H + ih) * W + iw) *
                       at(w, ((m * Cg + c) * KH + kh) * KW + kw);
              }
          y[((n * M + m) * OH + oh) * OW + ow] = sum;
        }
  return y;
}

/// `b` ([N, C, H, W]) with its channels moved last ([N, H, W, C]).
Buffer channelsLast(const Buffer &b) {
  int64_t N = b.dims[0], C = b.dims[1], H = b.dims[2], W = b.dims[3];
  Buffer t{b.dtype, {N, H, W, C}, std::vector<char>(b.bytes.size())};
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w)
          t.bytes[((n * H + h) * W + w) * C + c] =
              b.bytes[((n * C + c) * H + h) * W + w];
  return t;
}

TEST(HostKernelQuantized, ConvPadsGroupsStridesAndDilationsInBothLayouts) {
  struct Case {
    int32_t xType, wType;
    std::vector<int64_t> x, w;
    int64_t group, pads[4], strides[2], dilations[2];
  };
  const Case cases[] = {
      {GC_DTYPE_U8, GC_DTYPE_I8, {2, 4, 7, 6}, {6, 2, 3, 3}, 2,
       {1, 2, 0, 1}, {2, 1}, {1, 2}},
      {GC_DTYPE_I8, GC_DTYPE_I8, {1, 3, 5, 5}, {4, 3, 1, 1}, 1,
       {0, 0, 0, 0}, {1, 1}, {1, 1}},
      {GC_DTYPE_I8, GC_DTYPE_U8, {1, 4, 6, 6}, {4, 1, 3, 3}, 4,
       {1, 1, 1, 1}, {1, 1}, {1, 1}},
  };
  int seed = 10;
  for (const Case &c : cases) {
    Buffer x = pattern(c.xType, c.x, ++seed), w = pattern(c.wType, c.w, ++seed);
    std::vector<int64_t> yDims;
    std::vector<int64_t> want =
        naiveConv(x, w, c.group, c.pads, c.strides, c.dilations, yDims);
    auto window = [&](Attrs &attrs) -> Attrs & {
      return attrs.i("group", c.group)
          .ints("pads", {c.pads[0], c.pads[1], c.pads[2], c.pads[3]})
          .ints("strides", {c.strides[0], c.strides[1]})
          .ints("dilations", {c.dilations[0], c.dilations[1]});
    };
    Attrs attrs;
    window(attrs);
    Buffer y = output(GC_DTYPE_I32, yDims);
    ASSERT_EQ(run("quantized_conv", {&x, &w}, {&y}, attrs), 0);
    std::vector<int32_t> got = y.values<int32_t>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], want[i]) << "case " << seed / 2 - 5 << " at " << i;

    // The same convolution channels last: X [N, H, W, C], W [M, kh, kw,
    // C/group], Y [N, OH, OW, M].
    Buffer xl = channelsLast(x), wl = channelsLast(w);
    Buffer yl = output(GC_DTYPE_I32,
                       {yDims[0], yDims[2], yDims[3], yDims[1]});
    Attrs lastAttrs;
    window(lastAttrs).i("channels_last", 1);
    ASSERT_EQ(run("quantized_conv", {&xl, &wl}, {&yl}, lastAttrs), 0);
    std::vector<int32_t> last = yl.values<int32_t>();
    for (int64_t n = 0; n < yDims[0]; ++n)
      for (int64_t m = 0; m < yDims[1]; ++m)
        for (int64_t p = 0; p < yDims[2] * yDims[3]; ++p)
          ASSERT_EQ(last[(n * yDims[2] * yDims[3] + p) * yDims[1] + m],
                    want[(n * yDims[1] + m) * yDims[2] * yDims[3] + p])
              << "channels last, case " << seed / 2 - 5;
  }
}

TEST(HostKernelQuantized, ConvRefusesFloatsAndMismatchedGroups) {
  Buffer x = i8({1, 4, 3, 3}, std::vector<int8_t>(36, 1));
  Buffer w = i8({6, 2, 1, 1}, std::vector<int8_t>(12, 1));
  Buffer y = output(GC_DTYPE_I32, {1, 6, 3, 3});
  std::string error;
  EXPECT_NE(run("quantized_conv", {&x, &w}, {&y}, Attrs().i("group", 3),
                &error),
            0);
  EXPECT_EQ(error, "quantized_conv: weight shape does not match 4 input "
                   "channels in 3 groups");
  ASSERT_EQ(run("quantized_conv", {&x, &w}, {&y}, Attrs().i("group", 2)), 0);
  for (int32_t v : y.values<int32_t>())
    EXPECT_EQ(v, 2);
  Buffer fx = f32({1, 4, 3, 3}, std::vector<float>(36, 1.0f));
  EXPECT_NE(run("quantized_conv", {&fx, &w}, {&y}, Attrs().i("group", 2),
                &error),
            0);
  Buffer yf = output(GC_DTYPE_F32, {1, 6, 3, 3});
  EXPECT_NE(run("quantized_conv", {&x, &w}, {&yf}, Attrs().i("group", 2),
                &error),
            0);
  // A channels-last output of the wrong rank is refused before any copy.
  Buffer y3 = output(GC_DTYPE_I32, {1, 3, 6});
  EXPECT_NE(run("quantized_conv", {&x, &w}, {&y3},
                Attrs().i("group", 2).i("channels_last", 1), &error),
            0);
}

} // namespace
