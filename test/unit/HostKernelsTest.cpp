//===- HostKernelsTest.cpp - elementwise, reduction and movement kernels --===//

#include "lib/HostKernels/KernelSupport.h"
#include "lib/Support/Float8.h"
#include "test/unit/HostKernelsTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace graphc::hk;
using namespace graphc::hk::test;

namespace {

void expectNear(const std::vector<float> &got, const std::vector<float> &want,
                float tolerance = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tolerance) << "at " << i;
}

//===----------------------------------------------------------------------===//
// Support
//===----------------------------------------------------------------------===//

TEST(HostKernelSupport, HalfRoundsToNearestEven) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  // 1 + 2^-11 is halfway between 1 and the next half: ties go to even.
  EXPECT_EQ(floatToHalf(1.0f + 0x1p-11f), 0x3c00);
  EXPECT_EQ(floatToHalf(1.0f + 3 * 0x1p-11f), 0x3c02);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);   // rounds to infinity
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);   // largest finite
  EXPECT_EQ(floatToHalf(0x1p-24f), 0x0001);   // smallest subnormal
  EXPECT_EQ(halfToFloat(0x0001), 0x1p-24f);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
}

TEST(HostKernelSupport, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBf16(bitsFloat(0x3f808000u)), 0x3f80); // tie, even
  EXPECT_EQ(floatToBf16(bitsFloat(0x3f818000u)), 0x3f82); // tie, to even
  EXPECT_EQ(floatToBf16(bitsFloat(0x3f808001u)), 0x3f81);
  EXPECT_EQ(bf16ToFloat(0x4040), 3.0f);
}

TEST(HostKernelSupport, DoubleNarrowsWithOneRounding) {
  // Just above the half tie: rounding through float first would hit the tie
  // exactly and round down to even.
  double value = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(doubleToHalf(value), 0x3c01);
}

TEST(HostKernelSupport, RegistryKnowsEveryKernelOnce) {
  EXPECT_NE(gc_host_kernel_lookup("add"), nullptr);
  EXPECT_NE(gc_host_kernel_lookup("not"), nullptr);
  EXPECT_NE(gc_host_kernel_lookup("resize"), nullptr);
  EXPECT_EQ(gc_host_kernel_lookup("constant"), nullptr);
  EXPECT_EQ(gc_host_kernel_lookup("no_such_op"), nullptr);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

TEST(HostKernelElementwise, ReluSigmoidAndRound) {
  Buffer x = f32({5}, {-2.5f, -0.5f, 0.5f, 1.5f, 2.5f});
  Buffer y = output(GC_DTYPE_F32, {5});
  ASSERT_EQ(run("relu", {&x}, {&y}), 0);
  expectNear(y.values<float>(), {0, 0, 0.5f, 1.5f, 2.5f});
  ASSERT_EQ(run("round", {&x}, {&y}), 0);
  expectNear(y.values<float>(), {-2, -0, 0, 2, 2}); // halves to even
  ASSERT_EQ(run("sigmoid", {&x}, {&y}), 0);
  expectNear(y.values<float>(),
             {0.0758582f, 0.3775407f, 0.6224593f, 0.8175745f, 0.9241418f});
}

TEST(HostKernelElementwise, SiluStaysFiniteAtBothEnds) {
  Buffer x = f32({5}, {-200.0f, -1.0f, 0.0f, 2.0f, 200.0f});
  Buffer y = output(GC_DTYPE_F32, {5});
  ASSERT_EQ(run("silu", {&x}, {&y}), 0);
  expectNear(y.values<float>(), {-0.0f, -0.2689414f, 0.0f, 1.7615942f, 200.0f});
}

TEST(HostKernelElementwise, RmsNormalizationScalesEachRow) {
  // Rows [3, 4] and [0, 0]: rms 3.5355 and sqrt(eps).
  Buffer x = f32({2, 2}, {3, 4, 0, 0});
  Buffer scale = f32({2}, {1, 2});
  Buffer y = output(GC_DTYPE_F32, {2, 2});
  ASSERT_EQ(run("rms_normalization", {&x, &scale}, {&y},
                Attrs().f("epsilon", 1e-6)),
            0);
  float rms = std::sqrt(12.5f + 1e-6f);
  expectNear(y.values<float>(), {3 / rms, 2 * 4 / rms, 0, 0});
  Buffer wrong = f32({3}, {1, 2, 3});
  std::string error;
  EXPECT_NE(run("rms_normalization", {&x, &wrong}, {&y}, Attrs(), &error), 0);
  EXPECT_NE(error.find("rms_normalization:"), std::string::npos) << error;
}

TEST(HostKernelElementwise, HalfInputsComputeInFloat) {
  Buffer x = tensor<uint16_t>(GC_DTYPE_F16, {2}, {0x3c00, 0xc000}); // 1, -2
  Buffer y = output(GC_DTYPE_F16, {2});
  ASSERT_EQ(run("neg", {&x}, {&y}), 0);
  EXPECT_EQ(y.values<uint16_t>(), (std::vector<uint16_t>{0xbc00, 0x4000}));
}

TEST(HostKernelElementwise, IsInfHonoursDetectFlags) {
  Buffer x = f32({3}, {INFINITY, -INFINITY, 1.0f});
  Buffer y = output(GC_DTYPE_BOOL, {3});
  ASSERT_EQ(run("is_inf", {&x}, {&y}, Attrs().i("detect_negative", 0)), 0);
  EXPECT_EQ(y.values<uint8_t>(), (std::vector<uint8_t>{1, 0, 0}));
}

TEST(HostKernelElementwise, ClipWithIntegerBounds) {
  Buffer x = tensor<int8_t>(GC_DTYPE_I8, {4}, {-100, -3, 4, 120});
  Buffer lo = tensor<int8_t>(GC_DTYPE_I8, {}, {-5});
  Buffer y = output(GC_DTYPE_I8, {4});
  ASSERT_EQ(run("clip", {&x, &lo, nullptr}, {&y}), 0);
  EXPECT_EQ(y.values<int8_t>(), (std::vector<int8_t>{-5, -3, 4, 120}));
}

TEST(HostKernelElementwise, CastTruncatesAndRounds) {
  Buffer x = f32({4}, {-1.7f, 2.9f, 0.0f, 1.0f + 0x1p-11f});
  Buffer toInt = output(GC_DTYPE_I32, {4});
  ASSERT_EQ(run("cast", {&x}, {&toInt}, Attrs().type("to", GC_DTYPE_I32)), 0);
  EXPECT_EQ(toInt.values<int32_t>(), (std::vector<int32_t>{-1, 2, 0, 1}));
  Buffer toBool = output(GC_DTYPE_BOOL, {4});
  ASSERT_EQ(run("cast", {&x}, {&toBool}, Attrs().type("to", GC_DTYPE_BOOL)), 0);
  EXPECT_EQ(toBool.values<uint8_t>(), (std::vector<uint8_t>{1, 1, 0, 1}));
  Buffer toHalf = output(GC_DTYPE_F16, {4});
  ASSERT_EQ(run("cast", {&x}, {&toHalf}, Attrs().type("to", GC_DTYPE_F16)), 0);
  EXPECT_EQ(toHalf.values<uint16_t>()[3], 0x3c00);
}

//===----------------------------------------------------------------------===//
// 8-bit floats (lib/Support/Float8.h)
//===----------------------------------------------------------------------===//

constexpr int kE4M3FN = GC_DTYPE_F8E4M3FN, kE4M3FNUZ = GC_DTYPE_F8E4M3FNUZ,
              kE5M2 = GC_DTYPE_F8E5M2, kE5M2FNUZ = GC_DTYPE_F8E5M2FNUZ;
constexpr int kFloat8Formats[] = {kE4M3FN, kE4M3FNUZ, kE5M2, kE5M2FNUZ};

unsigned toF8(int format, float v, bool saturate = true) {
  return graphc::gc_f8_from_float(format, v, saturate);
}

TEST(Float8, EveryBitPatternRoundTrips) {
  for (int format : kFloat8Formats) {
    int nans = 0;
    for (unsigned bits = 0; bits < 256; ++bits) {
      float v = graphc::gc_f8_to_float(format, bits);
      SCOPED_TRACE("format " + std::to_string(format) + " bits " +
                   std::to_string(bits));
      if (std::isnan(v)) {
        ++nans;
        // NaN converts to the format's NaN of the same sign.
        unsigned nan = graphc::gc_f8_is_fnuz(format) ? 0x80u : (bits | 0x7fu);
        EXPECT_EQ(toF8(format, v), nan);
        continue;
      }
      if (std::isinf(v)) {
        ASSERT_EQ(format, kE5M2);
        EXPECT_EQ(toF8(format, v, false), bits);
        EXPECT_EQ(toF8(format, v, true), (bits & 0x80u) | 0x7bu);
        continue;
      }
      EXPECT_EQ(toF8(format, v, true), bits);
      EXPECT_EQ(toF8(format, v, false), bits);
    }
    // e4m3fn: 0x7f and 0xff; e5m2: three mantissas of each sign; FNUZ: 0x80.
    EXPECT_EQ(nans, format == kE4M3FN ? 2 : format == kE5M2 ? 6 : 1);
  }
}

TEST(Float8, KnownValues) {
  EXPECT_EQ(graphc::gc_f8_max(kE4M3FN), 448.0f);
  EXPECT_EQ(graphc::gc_f8_max(kE4M3FNUZ), 240.0f);
  EXPECT_EQ(graphc::gc_f8_max(kE5M2), 57344.0f);
  EXPECT_EQ(graphc::gc_f8_max(kE5M2FNUZ), 57344.0f);
  // The smallest subnormals.
  EXPECT_EQ(graphc::gc_f8_to_float(kE4M3FN, 0x01), 0x1p-9f);
  EXPECT_EQ(graphc::gc_f8_to_float(kE4M3FNUZ, 0x01), 0x1p-10f);
  EXPECT_EQ(graphc::gc_f8_to_float(kE5M2, 0x01), 0x1p-16f);
  EXPECT_EQ(graphc::gc_f8_to_float(kE5M2FNUZ, 0x01), 0x1p-17f);
  EXPECT_EQ(graphc::gc_f8_to_float(kE4M3FN, 0x38), 1.0f);
  EXPECT_EQ(graphc::gc_f8_to_float(kE4M3FNUZ, 0x40), 1.0f);
  EXPECT_EQ(graphc::gc_f8_to_float(kE5M2, 0x3c), 1.0f);
  EXPECT_EQ(graphc::gc_f8_to_float(kE5M2FNUZ, 0x40), 1.0f);
  EXPECT_EQ(graphc::gc_f8_to_float(kE5M2, 0xfc), -INFINITY);
}

TEST(Float8, RoundsToNearestEven) {
  // Halfway between 1 and 1.125 rounds to 1, between 1.125 and 1.25 to 1.25.
  EXPECT_EQ(toF8(kE4M3FN, 1.0625f), 0x38u);
  EXPECT_EQ(toF8(kE4M3FN, 1.1875f), 0x3au);
  EXPECT_EQ(toF8(kE4M3FN, 1.0625f + 0x1p-20f), 0x39u);
  // Subnormals: half the smallest is 0; 1.5 and 2.5 steps go to 2.
  EXPECT_EQ(toF8(kE4M3FN, 0x1p-10f), 0x00u);
  EXPECT_EQ(toF8(kE4M3FN, 0x1p-10f + 0x1p-30f), 0x01u);
  EXPECT_EQ(toF8(kE4M3FN, 3 * 0x1p-10f), 0x02u);
  EXPECT_EQ(toF8(kE4M3FN, 5 * 0x1p-10f), 0x02u);
  EXPECT_EQ(toF8(kE5M2, -3 * 0x1p-17f), 0x82u);
  // The largest subnormal rounds up into the smallest normal.
  EXPECT_EQ(toF8(kE4M3FN, 0x1p-6f - 0x1p-12f), 0x08u);
  // Float subnormals and zeros; FNUZ has no negative zero.
  EXPECT_EQ(toF8(kE4M3FN, -0.0f), 0x80u);
  EXPECT_EQ(toF8(kE4M3FNUZ, -0.0f), 0x00u);
  EXPECT_EQ(toF8(kE5M2FNUZ, -1e-30f), 0x00u);
  EXPECT_EQ(toF8(kE5M2, 1e-40f), 0x00u);
}

TEST(Float8, SaturateAndOverflow) {
  struct Case {
    int format;
    unsigned saturated, overflow; // of +1e6 with and without saturate
  } cases[] = {{kE4M3FN, 0x7e, 0x7f},
               {kE4M3FNUZ, 0x7f, 0x80},
               {kE5M2, 0x7b, 0x7c},
               {kE5M2FNUZ, 0x7f, 0x80}};
  for (const Case &c : cases) {
    SCOPED_TRACE("format " + std::to_string(c.format));
    bool fnuz = graphc::gc_f8_is_fnuz(c.format);
    for (float big : {1e6f, INFINITY}) {
      EXPECT_EQ(toF8(c.format, big, true), c.saturated);
      EXPECT_EQ(toF8(c.format, -big, true), c.saturated | 0x80u);
      EXPECT_EQ(toF8(c.format, big, false), c.overflow);
      EXPECT_EQ(toF8(c.format, -big, false), fnuz ? 0x80u : c.overflow | 0x80u);
    }
    EXPECT_EQ(toF8(c.format, NAN, true), fnuz ? 0x80u : 0x7fu);
    EXPECT_EQ(toF8(c.format, -NAN, false), fnuz ? 0x80u : 0xffu);
  }
  // e4m3fn: 464 is halfway between 448 and 480 (NaN's code): even, 448;
  // anything above overflows.
  EXPECT_EQ(toF8(kE4M3FN, 464.0f, false), 0x7eu);
  EXPECT_EQ(toF8(kE4M3FN, 465.0f, false), 0x7fu);
  EXPECT_EQ(toF8(kE4M3FN, 465.0f, true), 0x7eu);
  // e5m2: 61440 is halfway between 57344 and infinity: even, infinity.
  EXPECT_EQ(toF8(kE5M2, 61439.0f, false), 0x7bu);
  EXPECT_EQ(toF8(kE5M2, 61440.0f, false), 0x7cu);
  EXPECT_EQ(toF8(kE5M2, 61440.0f, true), 0x7bu);
  // Monotone above the largest value (where onnx's reference is not).
  EXPECT_EQ(toF8(kE4M3FN, 480.0f, false), 0x7fu);
  EXPECT_EQ(toF8(kE5M2, 65504.0f, false), 0x7cu);
}

TEST(HostKernelElementwise, CastToAndFromFloat8) {
  Buffer x = f32({5}, {1.0f, -2.5f, 1000.0f, NAN, 0x1p-10f});
  Buffer saturated = output(GC_DTYPE_F8E4M3FN, {5});
  ASSERT_EQ(
      run("cast", {&x}, {&saturated}, Attrs().type("to", GC_DTYPE_F8E4M3FN)),
      0);
  EXPECT_EQ(saturated.values<uint8_t>(),
            (std::vector<uint8_t>{0x38, 0xc2, 0x7e, 0x7f, 0x00}));
  Buffer overflow = output(GC_DTYPE_F8E5M2, {5});
  ASSERT_EQ(run("cast", {&x}, {&overflow},
                Attrs().type("to", GC_DTYPE_F8E5M2).i("saturate", 0)),
            0);
  EXPECT_EQ(overflow.values<uint8_t>()[2], 0x64); // 1024 (1000 rounded)
  Buffer big = f32({1}, {1e5f});
  Buffer inf = output(GC_DTYPE_F8E5M2, {1});
  ASSERT_EQ(run("cast", {&big}, {&inf},
                Attrs().type("to", GC_DTYPE_F8E5M2).i("saturate", 0)),
            0);
  EXPECT_EQ(inf.values<uint8_t>()[0], 0x7c);

  Buffer f8 =
      tensor<uint8_t>(GC_DTYPE_F8E4M3FNUZ, {4}, {0x40, 0xc8, 0x80, 0x7f});
  Buffer half = output(GC_DTYPE_F16, {4});
  ASSERT_EQ(run("cast", {&f8}, {&half}, Attrs().type("to", GC_DTYPE_F16)), 0);
  EXPECT_EQ(half.values<uint16_t>(),
            (std::vector<uint16_t>{0x3c00, 0xc000, 0x7e00, 0x5b80}));
  Buffer ints = output(GC_DTYPE_I32, {4});
  ASSERT_EQ(run("cast", {&f8}, {&ints}, Attrs().type("to", GC_DTYPE_I32)), 0);
  EXPECT_EQ(ints.values<int32_t>(), (std::vector<int32_t>{1, -2, 0, 240}));
  // 8-bit float to 8-bit float goes through float.
  Buffer e5m2 = output(GC_DTYPE_F8E5M2, {4});
  ASSERT_EQ(run("cast", {&f8}, {&e5m2}, Attrs().type("to", GC_DTYPE_F8E5M2)),
            0);
  EXPECT_EQ(e5m2.values<uint8_t>(),
            (std::vector<uint8_t>{0x3c, 0xc0, 0x7f, 0x5c})); // 240: tie, 256
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

TEST(HostKernelBinary, AddBroadcasts) {
  Buffer a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Buffer b = f32({3}, {10, 20, 30});
  Buffer y = output(GC_DTYPE_F32, {2, 3});
  ASSERT_EQ(run("add", {&a, &b}, {&y}), 0);
  expectNear(y.values<float>(), {11, 22, 33, 14, 25, 36});
  Buffer col = f32({2, 1}, {100, 200});
  ASSERT_EQ(run("sub", {&col, &a}, {&y}), 0);
  expectNear(y.values<float>(), {99, 98, 97, 196, 195, 194});
}

TEST(HostKernelBinary, ModFollowsDivisorOrDividendSign) {
  Buffer a = tensor<int32_t>(GC_DTYPE_I32, {4}, {-7, 7, -7, 7});
  Buffer b = tensor<int32_t>(GC_DTYPE_I32, {4}, {3, -3, -3, 0});
  Buffer y = output(GC_DTYPE_I32, {4});
  ASSERT_EQ(run("mod", {&a, &b}, {&y}), 0);
  EXPECT_EQ(y.values<int32_t>(), (std::vector<int32_t>{2, -2, -1, 0}));
  ASSERT_EQ(run("mod", {&a, &b}, {&y}, Attrs().i("fmod", 1)), 0);
  EXPECT_EQ(y.values<int32_t>(), (std::vector<int32_t>{-1, 1, -1, 0}));
}

TEST(HostKernelBinary, BitShiftAndWhere) {
  Buffer a = tensor<uint8_t>(GC_DTYPE_U8, {3}, {1, 2, 255});
  Buffer s = tensor<uint8_t>(GC_DTYPE_U8, {3}, {1, 3, 9});
  Buffer y = output(GC_DTYPE_U8, {3});
  ASSERT_EQ(run("bit_shift", {&a, &s}, {&y}, Attrs().s("direction", "LEFT")), 0);
  EXPECT_EQ(y.values<uint8_t>(), (std::vector<uint8_t>{2, 16, 0}));
  Buffer c = tensor<uint8_t>(GC_DTYPE_BOOL, {3}, {1, 0, 1});
  Buffer x = f32({3}, {1, 2, 3}), z = f32({}, {-1});
  Buffer w = output(GC_DTYPE_F32, {3});
  ASSERT_EQ(run("where", {&c, &x, &z}, {&w}), 0);
  expectNear(w.values<float>(), {1, -1, 3});
}

TEST(HostKernelQuantization, QuantizeRoundsHalfToEvenAndSaturates) {
  // x / 2: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0, 300 and -300 saturate,
  // NaN saturates low.
  Buffer x = f32({7}, {1, 3, 5, -1, 600, -600, NAN});
  Buffer scale = f32({}, {2});
  Buffer zero = tensor<uint8_t>(GC_DTYPE_U8, {}, {10});
  Buffer y = output(GC_DTYPE_U8, {7});
  ASSERT_EQ(run("quantize_linear", {&x, &scale, &zero}, {&y}), 0);
  EXPECT_EQ(y.values<uint8_t>(),
            (std::vector<uint8_t>{10, 12, 12, 10, 255, 0, 0}));
  Buffer signedZero = tensor<int8_t>(GC_DTYPE_I8, {}, {-1});
  Buffer s = output(GC_DTYPE_I8, {7});
  ASSERT_EQ(run("quantize_linear", {&x, &scale, &signedZero}, {&s}), 0);
  EXPECT_EQ(s.values<int8_t>(),
            (std::vector<int8_t>{-1, 1, 1, -1, 127, -128, -128}));
}

TEST(HostKernelQuantization, QuantizePerAxisBroadcast) {
  // Scale [2, 1] and zero point [2, 1] apply per row of x [2, 2].
  Buffer x = f32({2, 2}, {4, -4, 4, -4});
  Buffer scale = f32({2, 1}, {1, 4});
  Buffer zero = tensor<int16_t>(GC_DTYPE_I16, {2, 1}, {0, 100});
  Buffer y = output(GC_DTYPE_I16, {2, 2});
  ASSERT_EQ(run("quantize_linear", {&x, &scale, &zero}, {&y}), 0);
  EXPECT_EQ(y.values<int16_t>(), (std::vector<int16_t>{4, -4, 101, 99}));
}

TEST(HostKernelQuantization, DequantizeComputesInFloat) {
  Buffer x = tensor<int32_t>(GC_DTYPE_I32, {3}, {-2147483647 - 1, 5, 16777217});
  Buffer scale = f32({}, {0.5f});
  Buffer zero = tensor<int32_t>(GC_DTYPE_I32, {}, {1});
  Buffer y = output(GC_DTYPE_F32, {3});
  ASSERT_EQ(run("dequantize_linear", {&x, &scale, &zero}, {&y}), 0);
  // float(16777217) rounds to 16777216 before the zero point is taken off,
  // as in the ONNX reference; INT32_MIN does not overflow.
  EXPECT_EQ(y.values<float>(),
            (std::vector<float>{-1073741824.0f, 2, 8388607.5f}));
  Buffer mismatched = tensor<int8_t>(GC_DTYPE_I8, {}, {1});
  EXPECT_NE(run("dequantize_linear", {&x, &scale, &mismatched}, {&y}), 0);
}

TEST(HostKernelBinary, VariadicMaxAndMean) {
  Buffer a = f32({2}, {1, 5}), b = f32({2}, {3, 2}), c = f32({}, {4});
  Buffer y = output(GC_DTYPE_F32, {2});
  ASSERT_EQ(run("max", {&a, &b, &c}, {&y}), 0);
  expectNear(y.values<float>(), {4, 5});
  ASSERT_EQ(run("mean", {&a, &b, &c}, {&y}), 0);
  expectNear(y.values<float>(), {8.0f / 3, 11.0f / 3});
}

TEST(HostKernelBinary, IntegerDivisionByZeroDoesNotTrap) {
  Buffer a = tensor<int32_t>(GC_DTYPE_I32, {2}, {7, -7});
  Buffer b = tensor<int32_t>(GC_DTYPE_I32, {2}, {0, 2});
  Buffer y = output(GC_DTYPE_I32, {2});
  ASSERT_EQ(run("div", {&a, &b}, {&y}), 0);
  EXPECT_EQ(y.values<int32_t>(), (std::vector<int32_t>{0, -3}));
}

//===----------------------------------------------------------------------===//
// Reductions, softmax, top-k
//===----------------------------------------------------------------------===//

TEST(HostKernelReduction, SumWithAxesInputAndKeepDims) {
  Buffer x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Buffer axes = i64({1}, {-1});
  Buffer y = output(GC_DTYPE_F32, {2, 1});
  ASSERT_EQ(run("reduce_sum", {&x, &axes}, {&y}), 0);
  expectNear(y.values<float>(), {6, 15});
  Buffer all = output(GC_DTYPE_F32, {});
  ASSERT_EQ(run("reduce_max", {&x, nullptr}, {&all}, Attrs().i("keepdims", 0)), 0);
  expectNear(all.values<float>(), {6});
  Buffer same = output(GC_DTYPE_F32, {2, 3});
  ASSERT_EQ(run("reduce_sum_square", {&x, nullptr}, {&same},
                Attrs().i("noop_with_empty_axes", 1)),
            0);
  expectNear(same.values<float>(), {1, 4, 9, 16, 25, 36});
}

TEST(HostKernelReduction, EmptySetGivesIdentity) {
  Buffer x = f32({2, 0}, {});
  Buffer axes = i64({1}, {1});
  Buffer y = output(GC_DTYPE_F32, {2, 1});
  ASSERT_EQ(run("reduce_prod", {&x, &axes}, {&y}), 0);
  expectNear(y.values<float>(), {1, 1});
  ASSERT_EQ(run("reduce_log_sum_exp", {&x, &axes}, {&y}), 0);
  EXPECT_TRUE(std::isinf(y.values<float>()[0]));
}

TEST(HostKernelReduction, ArgMaxSelectLastIndex) {
  Buffer x = f32({2, 3}, {1, 3, 3, 2, 2, 0});
  Buffer y = output(GC_DTYPE_I64, {2});
  ASSERT_EQ(run("arg_max", {&x}, {&y}, Attrs().i("axis", 1).i("keepdims", 0)), 0);
  EXPECT_EQ(y.values<int64_t>(), (std::vector<int64_t>{1, 0}));
  ASSERT_EQ(run("arg_max", {&x}, {&y},
                Attrs().i("axis", 1).i("keepdims", 0).i("select_last_index", 1)),
            0);
  EXPECT_EQ(y.values<int64_t>(), (std::vector<int64_t>{2, 1}));
}

TEST(HostKernelReduction, CumSumExclusiveReverse) {
  Buffer x = f32({4}, {1, 2, 3, 4});
  Buffer axis = tensor<int32_t>(GC_DTYPE_I32, {}, {0});
  Buffer y = output(GC_DTYPE_F32, {4});
  ASSERT_EQ(run("cum_sum", {&x, &axis}, {&y},
                Attrs().i("exclusive", 1).i("reverse", 1)),
            0);
  expectNear(y.values<float>(), {9, 7, 4, 0});
}

TEST(HostKernelReduction, SoftmaxAlongAxis) {
  Buffer x = f32({2, 2}, {0, 0, 1, 3});
  Buffer y = output(GC_DTYPE_F32, {2, 2});
  ASSERT_EQ(run("softmax", {&x}, {&y}, Attrs().i("axis", 0)), 0);
  expectNear(y.values<float>(), {0.2689414f, 0.0474259f, 0.7310586f, 0.9525741f});
  ASSERT_EQ(run("hardmax", {&x}, {&y}), 0);
  expectNear(y.values<float>(), {1, 0, 0, 1});
}

TEST(HostKernelReduction, TopKBreaksTiesByLowerIndex) {
  Buffer x = f32({5}, {3, 1, 3, 5, 1});
  Buffer k = i64({1}, {3});
  Buffer values = output(GC_DTYPE_F32, {3}), indices = output(GC_DTYPE_I64, {3});
  ASSERT_EQ(run("top_k", {&x, &k}, {&values, &indices}), 0);
  expectNear(values.values<float>(), {5, 3, 3});
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{3, 0, 2}));
  ASSERT_EQ(run("top_k", {&x, &k}, {&values, &indices}, Attrs().i("largest", 0)),
            0);
  EXPECT_EQ(indices.values<int64_t>(), (std::vector<int64_t>{1, 4, 0}));
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

TEST(HostKernelMovement, SliceWithNegativeStepAndClamping) {
  Buffer x = f32({6}, {0, 1, 2, 3, 4, 5});
  Buffer starts = i64({1}, {100}), ends = i64({1}, {-100}), steps = i64({1}, {-2});
  Buffer y = output(GC_DTYPE_F32, {3});
  ASSERT_EQ(run("slice", {&x, &starts, &ends, nullptr, &steps}, {&y}), 0);
  expectNear(y.values<float>(), {5, 3, 1});
}

TEST(HostKernelMovement, PadModesAndNegativePads) {
  Buffer x = f32({4}, {1, 2, 3, 4});
  Buffer pads = i64({2}, {2, -1});
  Buffer y = output(GC_DTYPE_F32, {5});
  ASSERT_EQ(run("pad", {&x, &pads}, {&y}, Attrs().s("mode", "reflect")), 0);
  expectNear(y.values<float>(), {3, 2, 1, 2, 3});
  ASSERT_EQ(run("pad", {&x, &pads}, {&y}, Attrs().s("mode", "wrap")), 0);
  expectNear(y.values<float>(), {2, 3, 1, 2, 3});
  Buffer value = f32({}, {9});
  ASSERT_EQ(run("pad", {&x, &pads, &value}, {&y}), 0);
  expectNear(y.values<float>(), {9, 9, 1, 2, 3});
}

TEST(HostKernelMovement, TransposeConcatSplit) {
  Buffer x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Buffer t = output(GC_DTYPE_F32, {3, 2});
  ASSERT_EQ(run("transpose", {&x}, {&t}), 0);
  expectNear(t.values<float>(), {1, 4, 2, 5, 3, 6});
  Buffer c = output(GC_DTYPE_F32, {2, 6});
  ASSERT_EQ(run("concat", {&x, &x}, {&c}, Attrs().i("axis", 1)), 0);
  expectNear(c.values<float>(), {1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6});
  Buffer a = output(GC_DTYPE_F32, {2, 2}), b = output(GC_DTYPE_F32, {2, 1});
  Buffer sizes = i64({2}, {2, 1});
  ASSERT_EQ(run("split", {&x, &sizes}, {&a, &b},
                Attrs().i("axis", 1).i("num_outputs", 2)),
            0);
  expectNear(a.values<float>(), {1, 2, 4, 5});
  expectNear(b.values<float>(), {3, 6});
}

TEST(HostKernelMovement, GatherScatterWithNegativeIndices) {
  Buffer x = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  Buffer idx = i64({2}, {-1, 0});
  Buffer y = output(GC_DTYPE_F32, {2, 2});
  ASSERT_EQ(run("gather", {&x, &idx}, {&y}), 0);
  expectNear(y.values<float>(), {5, 6, 1, 2});
  Buffer data = f32({4}, {1, 1, 1, 1});
  Buffer where = i64({3}, {-1, 0, 3}), updates = f32({3}, {2, 3, 4});
  Buffer out = output(GC_DTYPE_F32, {4});
  ASSERT_EQ(run("scatter_elements", {&data, &where, &updates}, {&out},
                Attrs().s("reduction", "add")),
            0);
  expectNear(out.values<float>(), {4, 1, 1, 7});
}

TEST(HostKernelMovement, DepthToSpaceModes) {
  std::vector<float> values(8);
  for (int i = 0; i < 8; ++i)
    values[i] = static_cast<float>(i);
  Buffer x = f32({1, 4, 1, 2}, values);
  Buffer y = output(GC_DTYPE_F32, {1, 1, 2, 4});
  ASSERT_EQ(run("depth_to_space", {&x}, {&y}, Attrs().i("blocksize", 2)), 0);
  expectNear(y.values<float>(), {0, 2, 1, 3, 4, 6, 5, 7});
  ASSERT_EQ(run("depth_to_space", {&x}, {&y},
                Attrs().i("blocksize", 2).s("mode", "CRD")),
            0);
  expectNear(y.values<float>(), {0, 2, 1, 3, 4, 6, 5, 7});
  Buffer back = output(GC_DTYPE_F32, {1, 4, 1, 2});
  ASSERT_EQ(run("space_to_depth", {&y}, {&back}, Attrs().i("blocksize", 2)), 0);
  expectNear(back.values<float>(), values);
}

TEST(HostKernelMovement, GeneratorsAndShapes) {
  Buffer start = f32({}, {1}), limit = f32({}, {2}), delta = f32({}, {0.3f});
  Buffer r = output(GC_DTYPE_F32, {4});
  ASSERT_EQ(run("range", {&start, &limit, &delta}, {&r}), 0);
  expectNear(r.values<float>(), {1, 1.3f, 1.6f, 1.9f});
  Buffer x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Buffer eye = output(GC_DTYPE_I32, {2, 3});
  ASSERT_EQ(run("eye_like", {&x}, {&eye},
                Attrs().type("dtype", GC_DTYPE_I32).i("k", 1)),
            0);
  EXPECT_EQ(eye.values<int32_t>(), (std::vector<int32_t>{0, 1, 0, 0, 0, 1}));
  Buffer shape = output(GC_DTYPE_I64, {1});
  ASSERT_EQ(run("shape", {&x}, {&shape}, Attrs().i("start", -1)), 0);
  EXPECT_EQ(shape.values<int64_t>(), (std::vector<int64_t>{3}));
  Buffer dims = i64({2}, {2, 2});
  Buffer filled = output(GC_DTYPE_I64, {2, 2});
  ASSERT_EQ(run("constant_of_shape", {&dims}, {&filled},
                Attrs().t("value", i64({1}, {7}))),
            0);
  EXPECT_EQ(filled.values<int64_t>(), (std::vector<int64_t>{7, 7, 7, 7}));
  Buffer tri = output(GC_DTYPE_F32, {2, 3});
  ASSERT_EQ(run("trilu", {&x, nullptr}, {&tri}, Attrs().i("upper", 0)), 0);
  expectNear(tri.values<float>(), {1, 0, 0, 4, 5, 0});
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(HostKernelErrors, WrongOutputShapeIsRejected) {
  Buffer a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Buffer y = output(GC_DTYPE_F32, {3, 2});
  std::string error;
  EXPECT_NE(run("add", {&a, &a}, {&y}, Attrs(), &error), 0);
  EXPECT_EQ(error, "add: output shape [3,2] does not match the broadcast "
                   "shape [2,3]");
  Buffer small = output(GC_DTYPE_F32, {2});
  EXPECT_NE(run("relu", {&a}, {&small}, Attrs(), &error), 0);
  EXPECT_EQ(error, "relu: output 0 has shape [2], expected [2,3]");
}

TEST(HostKernelErrors, UnsupportedDtypeIsNamed) {
  Buffer x = tensor<int32_t>(GC_DTYPE_I32, {2}, {1, 2});
  Buffer y = output(GC_DTYPE_I32, {2});
  std::string error;
  EXPECT_NE(run("exp", {&x}, {&y}, Attrs(), &error), 0);
  EXPECT_EQ(error, "exp: unsupported input dtype i32 (6)");
}

TEST(HostKernelErrors, MissingInputAndBadIndex) {
  Buffer x = f32({3}, {1, 2, 3});
  Buffer y = output(GC_DTYPE_F32, {3});
  std::string error;
  EXPECT_EQ(run("add", {&x, nullptr}, {&y}, Attrs(), &error), 1);
  EXPECT_EQ(error, "add: required input 1 is missing");
  // An index of the run's data is the caller's value out of range, which
  // the runtime reports as an invalid argument, not a failure of graphc.
  Buffer idx = i64({1}, {3});
  Buffer g = output(GC_DTYPE_F32, {1});
  EXPECT_EQ(run("gather", {&x, &idx}, {&g}, Attrs(), &error),
            GC_STATUS_BAD_VALUE);
  EXPECT_EQ(error, "gather: index 3 is out of range [-3, 3)");
  Buffer axis = i64({}, {1});
  Buffer summed = output(GC_DTYPE_F32, {3});
  EXPECT_EQ(run("cum_sum", {&x, &axis}, {&summed}, Attrs(), &error),
            GC_STATUS_BAD_VALUE);
  EXPECT_EQ(error, "cum_sum: axis 1 is out of range [-1, 1)");
  Buffer bad = f32({}, {1});
  EXPECT_NE(run("reshape", {&x, &x}, {&bad}, Attrs(), &error), 0);
  EXPECT_EQ(error, "reshape: unsupported shape dtype f32 (1)");
}

//===----------------------------------------------------------------------===//
// Signal
//===----------------------------------------------------------------------===//

TEST(HostKernelSignal, DftOfAShiftedImpulseIsATwiddleRow) {
  // x[j] = [j == 1]: X[k] = exp(-2 pi i k / 4) = 1, -i, -1, i.
  Buffer x = f32({1, 4, 1}, {0, 1, 0, 0});
  Buffer y = output(GC_DTYPE_F32, {1, 4, 2});
  ASSERT_EQ(run("dft", {&x}, {&y}), 0);
  expectNear(y.values<float>(), {1, 0, 0, -1, -1, 0, 0, 1});
}

TEST(HostKernelSignal, DftPadsToDftLengthAndKeepsOneSide) {
  // Four ones zero-padded to n = 6 along axis 0; bins 0..3.
  Buffer x = f32({4, 1}, {1, 1, 1, 1});
  Buffer n = i64({}, {6}), axis = i64({}, {0});
  Buffer y = output(GC_DTYPE_F32, {4, 2});
  ASSERT_EQ(run("dft", {&x, &n, &axis}, {&y}, Attrs().i("onesided", 1)), 0);
  std::vector<float> want;
  for (int k = 0; k < 4; ++k) {
    double re = 0, im = 0;
    for (int j = 0; j < 4; ++j) {
      re += std::cos(2 * M_PI * j * k / 6);
      im -= std::sin(2 * M_PI * j * k / 6);
    }
    want.push_back(static_cast<float>(re));
    want.push_back(static_cast<float>(im));
  }
  expectNear(y.values<float>(), want);
  EXPECT_NEAR(want[6], 0, 1e-12); // k = 3: 1 - 1 + 1 - 1
}

TEST(HostKernelSignal, DftTruncatesToDftLength) {
  // n = 2 of [1, 2, 5, 7]: only the first two samples count.
  Buffer x = f32({1, 4, 1}, {1, 2, 5, 7});
  Buffer n = i64({}, {2});
  Buffer y = output(GC_DTYPE_F32, {1, 2, 2});
  ASSERT_EQ(run("dft", {&x, &n}, {&y}), 0);
  expectNear(y.values<float>(), {3, 0, -1, 0});
}

TEST(HostKernelSignal, InverseDftUndoesTheDftAlongAnInnerAxis) {
  // [2, 3, 2, 2] complex along axis 1 (of 3).
  std::vector<float> values;
  for (int i = 0; i < 24; ++i)
    values.push_back(static_cast<float>((i * 7) % 11) - 5);
  Buffer x = f32({2, 3, 2, 2}, values);
  Buffer axis = i64({}, {1});
  Buffer y = output(GC_DTYPE_F32, {2, 3, 2, 2});
  ASSERT_EQ(run("dft", {&x, nullptr, &axis}, {&y}), 0);
  Buffer back = output(GC_DTYPE_F32, {2, 3, 2, 2});
  ASSERT_EQ(run("dft", {&y, nullptr, &axis}, {&back}, Attrs().i("inverse", 1)),
            0);
  expectNear(back.values<float>(), values);
}

TEST(HostKernelSignal, DftRefusesBadShapesAndLengths) {
  std::string error;
  Buffer wide = f32({2, 3}, {0, 0, 0, 0, 0, 0});
  Buffer y = output(GC_DTYPE_F32, {2, 2});
  EXPECT_NE(run("dft", {&wide}, {&y}, Attrs(), &error), 0);
  EXPECT_NE(error.find("last dim of 1 (real) or 2"), std::string::npos)
      << error;
  Buffer x = f32({2, 1}, {1, 2});
  Buffer last = i64({}, {-1});
  EXPECT_NE(run("dft", {&x, nullptr, &last}, {&y}, Attrs(), &error), 0);
  EXPECT_NE(error.find("axis may not be the last"), std::string::npos) << error;
  Buffer zero = i64({}, {0}), first = i64({}, {0});
  EXPECT_NE(run("dft", {&x, &zero, &first}, {&y}, Attrs(), &error), 0);
  EXPECT_EQ(error, "dft: dft_length must be positive");
}

//===----------------------------------------------------------------------===//
// Results sized by the run: the corner of the bound, zeros past it
//===----------------------------------------------------------------------===//

TEST(HostKernelDataDependent, NmsTiesTakeTheLowerIndexFirst) {
  // Four equal scores: disjoint boxes 0, 1 and 3 are all kept, lower
  // indices first; box 2 overlaps box 1 (IOU 0.6) and is suppressed.
  Buffer boxes = f32({1, 4, 4}, {0, 0, 1, 1, 2, 0, 3, 1,  //
                                 2, 0, 3, 0.6f, 5, 0, 6, 1});
  Buffer scores = f32({1, 1, 4}, {0.5f, 0.5f, 0.5f, 0.5f});
  Buffer limit = i64({1}, {10}), iou = f32({1}, {0.5f});
  Buffer selected = output(GC_DTYPE_I64, {4, 3}), count = output(GC_DTYPE_I64, {});
  ASSERT_EQ(run("non_max_suppression", {&boxes, &scores, &limit, &iou},
                {&selected, &count}),
            0);
  EXPECT_EQ(count.values<int64_t>(), (std::vector<int64_t>{3}));
  EXPECT_EQ(selected.values<int64_t>(),
            (std::vector<int64_t>{0, 0, 0, 0, 0, 1, 0, 0, 3, 0, 0, 0}));
}

TEST(HostKernelDataDependent, NmsFlippedCornersAndCentresAgree) {
  // Box 1 overlaps box 0 with IOU 1/3, box 2 is apart; scores rank 1, 0, 2.
  Buffer corners = f32({1, 3, 4}, {1, 1, 0, 0, 0, 0.5f, 1, 1.5f, 9, 9, 10, 10});
  Buffer centres = f32({1, 3, 4}, {0.5f, 0.5f, 1, 1, 1, 0.5f, 1, 1,  //
                                   9.5f, 9.5f, 1, 1});
  Buffer scores = f32({1, 1, 3}, {0.7f, 0.9f, 0.1f});
  Buffer limit = i64({1}, {3});
  for (float threshold : {0.3f, 0.4f}) {
    Buffer iou = f32({}, {threshold});
    std::vector<int64_t> want =
        threshold < 1.0f / 3 ? std::vector<int64_t>{0, 0, 1, 0, 0, 2, 0, 0, 0}
                             : std::vector<int64_t>{0, 0, 1, 0, 0, 0, 0, 0, 2};
    for (auto [box, center] : {std::pair(&corners, 0), std::pair(&centres, 1)}) {
      Buffer selected = output(GC_DTYPE_I64, {3, 3});
      Buffer count = output(GC_DTYPE_I64, {});
      ASSERT_EQ(run("non_max_suppression", {box, &scores, &limit, &iou},
                    {&selected, &count},
                    Attrs().i("center_point_box", center)),
                0);
      EXPECT_EQ(selected.values<int64_t>(), want)
          << "threshold " << threshold << " centre " << center;
    }
  }
}

TEST(HostKernelDataDependent, NmsLimitsAndScoreThreshold) {
  Buffer boxes = f32({1, 3, 4}, {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5});
  Buffer scores = f32({1, 2, 3}, {0.2f, NAN, 0.9f, 0.5f, 0.6f, 0.4f});
  Buffer selected = output(GC_DTYPE_I64, {6, 3}), count = output(GC_DTYPE_I64, {});
  // No limit, or one at most 0: nothing, and zeros where the bound is.
  Buffer negative = i64({1}, {-3});
  for (Buffer *limit : {static_cast<Buffer *>(nullptr), &negative}) {
    ASSERT_EQ(run("non_max_suppression", {&boxes, &scores, limit},
                  {&selected, &count}),
              0);
    EXPECT_EQ(count.values<int64_t>(), (std::vector<int64_t>{0}));
    EXPECT_EQ(selected.values<int64_t>(), std::vector<int64_t>(18, 0));
  }
  // A score must be above the threshold (0.5 is not); NaN never is kept.
  Buffer limit = i64({1}, {2}), floor = f32({1}, {0.5f});
  ASSERT_EQ(run("non_max_suppression", {&boxes, &scores, &limit, nullptr, &floor},
                {&selected, &count}),
            0);
  EXPECT_EQ(count.values<int64_t>(), (std::vector<int64_t>{2}));
  std::vector<int64_t> want(18, 0);
  want[2] = 2;                  // [0, 0, 2]
  want[4] = 1, want[5] = 1;     // [0, 1, 1]
  EXPECT_EQ(selected.values<int64_t>(), want);
  // Without a threshold every number is a candidate, NaN still not.
  ASSERT_EQ(run("non_max_suppression", {&boxes, &scores, &limit},
                {&selected, &count}),
            0);
  EXPECT_EQ(selected.values<int64_t>(),
            (std::vector<int64_t>{0, 0, 2, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0,
                                  0, 0, 0}));
}

TEST(HostKernelDataDependent, NmsRefusesBadThresholdsAndBounds) {
  std::string error;
  Buffer boxes = f32({1, 2, 4}, {0, 0, 1, 1, 2, 2, 3, 3});
  Buffer scores = f32({1, 1, 2}, {0.5f, 0.6f});
  Buffer limit = i64({1}, {5}), high = f32({1}, {1.5f});
  Buffer selected = output(GC_DTYPE_I64, {2, 3}), count = output(GC_DTYPE_I64, {});
  EXPECT_EQ(run("non_max_suppression", {&boxes, &scores, &limit, &high},
                {&selected, &count}, Attrs(), &error),
            GC_STATUS_BAD_VALUE);
  EXPECT_NE(error.find("iou_threshold 1.5 is outside [0, 1]"),
            std::string::npos)
      << error;
  Buffer small = output(GC_DTYPE_I64, {1, 3});
  EXPECT_NE(run("non_max_suppression", {&boxes, &scores, &limit},
                {&small, &count}, Attrs(), &error),
            0);
  EXPECT_NE(error.find("more than the bound of 1"), std::string::npos)
      << error;
}

TEST(HostKernelDataDependent, UniqueFlatNaNsAndSignedZeros) {
  // 0 and -0 are one value (the first one's), NaNs are one and sort last.
  Buffer x = f32({7}, {2, NAN, -0.0f, 1, 0.0f, NAN, 2});
  Buffer y = output(GC_DTYPE_F32, {7}), first = output(GC_DTYPE_I64, {7}),
         inverse = output(GC_DTYPE_I64, {7}), counts = output(GC_DTYPE_I64, {7}),
         count = output(GC_DTYPE_I64, {});
  ASSERT_EQ(run("unique", {&x}, {&y, &first, &inverse, &counts, &count}), 0);
  EXPECT_EQ(count.values<int64_t>(), (std::vector<int64_t>{4}));
  std::vector<float> values = y.values<float>();
  EXPECT_EQ(values[0], 0.0f);
  EXPECT_TRUE(std::signbit(values[0]));
  EXPECT_EQ(values[1], 1.0f);
  EXPECT_EQ(values[2], 2.0f);
  EXPECT_TRUE(std::isnan(values[3]));
  EXPECT_EQ((std::vector<float>(values.begin() + 4, values.end())),
            (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(first.values<int64_t>(), (std::vector<int64_t>{2, 3, 0, 1, 0, 0, 0}));
  EXPECT_EQ(inverse.values<int64_t>(), (std::vector<int64_t>{2, 3, 0, 1, 0, 3, 2}));
  EXPECT_EQ(counts.values<int64_t>(), (std::vector<int64_t>{2, 1, 2, 2, 0, 0, 0}));
}

TEST(HostKernelDataDependent, UniqueRowsSortedAndInFirstOrder) {
  Buffer x = i64({4, 2}, {1, 2, 0, 1, 1, 2, 0, 0});
  for (int64_t sorted : {0, 1}) {
    Buffer y = output(GC_DTYPE_I64, {4, 2}), first = output(GC_DTYPE_I64, {4}),
           inverse = output(GC_DTYPE_I64, {4}),
           counts = output(GC_DTYPE_I64, {4}), count = output(GC_DTYPE_I64, {});
    ASSERT_EQ(run("unique", {&x}, {&y, &first, &inverse, &counts, &count},
                  Attrs().i("axis", -2).i("sorted", sorted)),
              0);
    EXPECT_EQ(count.values<int64_t>(), (std::vector<int64_t>{3}));
    if (sorted) {
      EXPECT_EQ(y.values<int64_t>(), (std::vector<int64_t>{0, 0, 0, 1, 1, 2, 0, 0}));
      EXPECT_EQ(first.values<int64_t>(), (std::vector<int64_t>{3, 1, 0, 0}));
      EXPECT_EQ(inverse.values<int64_t>(), (std::vector<int64_t>{2, 1, 2, 0}));
      EXPECT_EQ(counts.values<int64_t>(), (std::vector<int64_t>{1, 1, 2, 0}));
    } else {
      EXPECT_EQ(y.values<int64_t>(), (std::vector<int64_t>{1, 2, 0, 1, 0, 0, 0, 0}));
      EXPECT_EQ(first.values<int64_t>(), (std::vector<int64_t>{0, 1, 3, 0}));
      EXPECT_EQ(inverse.values<int64_t>(), (std::vector<int64_t>{0, 1, 0, 2}));
      EXPECT_EQ(counts.values<int64_t>(), (std::vector<int64_t>{2, 1, 1, 0}));
    }
  }
}

TEST(HostKernelDataDependent, UniqueRefusesASmallBound) {
  std::string error;
  Buffer x = i64({3}, {1, 2, 3});
  Buffer y = output(GC_DTYPE_I64, {2}), first = output(GC_DTYPE_I64, {2}),
         inverse = output(GC_DTYPE_I64, {3}), counts = output(GC_DTYPE_I64, {2}),
         count = output(GC_DTYPE_I64, {});
  EXPECT_NE(run("unique", {&x}, {&y, &first, &inverse, &counts, &count},
                Attrs(), &error),
            0);
  EXPECT_NE(error.find("finds 3 distinct values, more than the bound of 2"),
            std::string::npos)
      << error;
}

} // namespace
