//===- ReferenceConvTest.cpp - the cpu target's convolution against loops -===//
//
// runReferenceConv (row-blocked, float) against naiveConv (one element at a
// time, double) over 1, 2 and 3 spatial dims, groups, strides, dilations,
// asymmetric and oversized pads, bias, Z, ReLU, SiLU and the erf GELU, with
// the channels first and last; float16 and bfloat16 against the float
// convolution of the same values, rounded once; SiLU and GELU as the
// generated kernels round them;
// tf32 against the float convolution of rounded X and W; channels last
// against channels first, bit for bit; int8 into exact int32 sums in both
// layouts, wrapping past int32.
//
//===----------------------------------------------------------------------===//
#include "ConvTestSupport.h"
#include "GemmTestSupport.h"

#include "lib/Support/Float16.h"
#include "runtime/src/ReferenceConv.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using convtest::ConvShape;

std::vector<float> random(size_t count, std::mt19937 &rng) {
  std::uniform_real_distribution<float> values(-1, 1);
  std::vector<float> out(count);
  for (float &value : out)
    value = values(rng);
  return out;
}

/// A convolution with its tensors; argument order X, W, bias, Z, Y,
/// workspace.
struct Problem {
  graphc_conv_desc conv{};
  std::vector<float> x, w, bias, z, y;

  /// Runs the reference convolution; Y is filled with a sentinel first.
  bool run(std::string &error) {
    y.assign(convtest::yElements(conv), -12345.0f);
    std::array<void *, 6> args = {x.data(),
                                  w.data(),
                                  bias.empty() ? nullptr : bias.data(),
                                  z.empty() ? nullptr : z.data(),
                                  y.data(),
                                  nullptr};
    return graphc::rt::runReferenceConv(conv, args.data(), error);
  }

  std::vector<float> expected() const {
    std::vector<float> out(convtest::yElements(conv));
    convtest::naiveConv(conv, x.data(), w.data(),
                        bias.empty() ? nullptr : bias.data(),
                        z.empty() ? nullptr : z.data(), out.data());
    return out;
  }
};

Problem makeProblem(const ConvShape &shape, bool bias, bool z, int32_t epilogue,
                    std::mt19937 &rng, bool channelsLast = false) {
  Problem p;
  p.conv = convtest::makeConv(shape, bias, z, epilogue);
  p.conv.channels_last = channelsLast;
  p.x = random(convtest::xElements(p.conv), rng);
  p.w = random(convtest::wElements(p.conv), rng);
  if (bias)
    p.bias = random(p.conv.k, rng);
  if (z)
    p.z = random(convtest::yElements(p.conv), rng);
  return p;
}

struct NamedShape {
  const char *name;
  ConvShape shape;
};

const NamedShape kShapes[] = {
    {"1-d plain", {2, 3, 4, 1, {9}, {3}, {0}, {0}, {1}, {1}}},
    {"1-d strided, dilated, asymmetric pads",
     {1, 4, 6, 2, {13}, {3}, {2}, {1}, {2}, {3}}},
    {"1-d depthwise, pads past the filter",
     {2, 3, 3, 3, {5}, {2}, {4}, {3}, {1}, {1}}},
    {"2-d 3x3 same",
     {2, 4, 5, 1, {6, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}},
    {"2-d grouped, strided, dilated, asymmetric",
     {2, 6, 4, 2, {9, 8}, {3, 2}, {1, 0}, {2, 1}, {2, 3}, {2, 1}}},
    {"2-d depthwise 5x1",
     {1, 4, 8, 4, {7, 5}, {5, 1}, {2, 0}, {2, 0}, {1, 2}, {1, 1}}},
    {"2-d 1x1 strided",
     {3, 5, 7, 1, {6, 5}, {1, 1}, {0, 0}, {0, 0}, {2, 2}, {1, 1}}},
    {"3-d",
     {1,
      2,
      3,
      1,
      {4, 5, 6},
      {2, 3, 2},
      {1, 0, 1},
      {0, 1, 1},
      {1, 2, 2},
      {1, 1, 2}}},
    {"3-d grouped",
     {2,
      4,
      6,
      2,
      {3, 4, 5},
      {3, 1, 2},
      {1, 0, 0},
      {1, 0, 1},
      {2, 1, 1},
      {1, 1, 3}}},
};

TEST(ReferenceConv, MatchesPlainLoops) {
  struct Variant {
    const char *name;
    bool bias, z;
    int32_t epilogue;
  };
  const Variant variants[] = {
      {"plain", false, false, GRAPHC_EPILOGUE_NONE},
      {"bias", true, false, GRAPHC_EPILOGUE_NONE},
      {"Z relu", false, true, GRAPHC_EPILOGUE_RELU},
      {"bias Z relu", true, true, GRAPHC_EPILOGUE_RELU},
      {"silu", false, false, GRAPHC_EPILOGUE_SILU},
      {"bias Z silu", true, true, GRAPHC_EPILOGUE_SILU},
      {"gelu", false, false, GRAPHC_EPILOGUE_GELU_ERF},
      {"bias Z gelu", true, true, GRAPHC_EPILOGUE_GELU_ERF}};
  std::mt19937 rng(7);
  for (bool last : {false, true})
    for (const NamedShape &shape : kShapes)
      for (const Variant &variant : variants) {
        SCOPED_TRACE(std::string(shape.name) + ", " + variant.name +
                     (last ? ", channels last" : ""));
        Problem p = makeProblem(shape.shape, variant.bias, variant.z,
                                variant.epilogue, rng, last);
        std::string error;
        ASSERT_TRUE(p.run(error)) << error;
        EXPECT_TRUE(gemmtest::near(p.y, p.expected(), 1e-5));
      }
}

// x: [1, 3, 2] (NWC), W: [1, 1, 2] (KSC) = {1, 100}: each output is channel
// 0 plus 100 times channel 1 of its pixel, plus the bias and Z; the same
// bytes read channels first give other sums.
TEST(ReferenceConv, ReadsChannelsLastTensors) {
  Problem p;
  p.conv = convtest::makeConv({1, 2, 1, 1, {3}, {1}, {0}, {0}, {1}, {1}}, true,
                              true, GRAPHC_EPILOGUE_NONE);
  p.conv.channels_last = 1;
  p.x = {1, 10, 2, 20, 3, 30};
  p.w = {1, 100};
  p.bias = {0.5f};
  p.z = {-1, -2, -3};
  std::string error;
  ASSERT_TRUE(p.run(error)) << error;
  EXPECT_EQ(p.y, (std::vector<float>{1000.5f, 2000.5f, 3000.5f}));
  EXPECT_EQ(p.expected(), p.y);
  p.conv.channels_last = 0;
  ASSERT_TRUE(p.run(error)) << error;
  EXPECT_EQ(p.y, (std::vector<float>{2000.5f, 308.5f, 2999.5f}));
}

// Both layouts sum the same products in the same order: the channels-last
// convolution of moved tensors is the moved channels-first result, to the
// bit (X read in place or gathered, exact or tf32).
TEST(ReferenceConv, LayoutsGiveTheSameBits) {
  std::mt19937 rng(15);
  for (const NamedShape &shape : kShapes)
    for (bool tf32 : {false, true}) {
      SCOPED_TRACE(std::string(shape.name) + (tf32 ? ", tf32" : ""));
      Problem first =
          makeProblem(shape.shape, true, true, GRAPHC_EPILOGUE_RELU, rng);
      first.conv.tf32 = tf32;
      const graphc_conv_desc &c = first.conv;
      const int64_t inVolume = convtest::product(c.in_size, c.spatial_dims),
                    filterVolume =
                        convtest::product(c.filter_size, c.spatial_dims),
                    outVolume = convtest::product(c.out_size, c.spatial_dims);
      Problem last = first;
      last.conv.channels_last = 1;
      last.x = convtest::relayout(first.x, c.n, c.c, inVolume, true);
      last.w =
          convtest::relayout(first.w, c.k, c.c / c.groups, filterVolume, true);
      last.z = convtest::relayout(first.z, c.n, c.k, outVolume, true);
      std::string error;
      ASSERT_TRUE(first.run(error)) << error;
      ASSERT_TRUE(last.run(error)) << error;
      EXPECT_EQ(last.y, convtest::relayout(first.y, c.n, c.k, outVolume, true));
    }
}

// Output positions whose window lies wholly in the padding see no input:
// they hold the bias (and Z) alone.
TEST(ReferenceConv, WindowsInThePaddingHoldTheBias) {
  std::mt19937 rng(9);
  Problem p = makeProblem({1, 2, 2, 1, {3}, {1}, {2}, {2}, {1}, {1}}, true,
                          false, GRAPHC_EPILOGUE_NONE, rng);
  std::string error;
  ASSERT_TRUE(p.run(error)) << error;
  ASSERT_EQ(p.y.size(), 14u);
  for (int k = 0; k < 2; ++k) {
    for (int o : {0, 1, 5, 6})
      EXPECT_EQ(p.y[k * 7 + o], p.bias[k]) << "channel " << k << " at " << o;
  }
  EXPECT_TRUE(gemmtest::near(p.y, p.expected(), 1e-5));
}

TEST(ReferenceConv, ReluKeepsNaNAndZeroesNegatives) {
  Problem p;
  p.conv = convtest::makeConv({1, 1, 1, 1, {3}, {1}, {0}, {0}, {1}, {1}}, false,
                              false, GRAPHC_EPILOGUE_RELU);
  p.x = {std::numeric_limits<float>::quiet_NaN(), -2, 3};
  p.w = {1};
  std::string error;
  ASSERT_TRUE(p.run(error)) << error;
  EXPECT_TRUE(std::isnan(p.y[0]));
  EXPECT_EQ(p.y[1], 0.0f);
  EXPECT_EQ(p.y[2], 3.0f);
}

// SiLU is x sigmoid(x): 0 at 0, x where the sigmoid is 1 in float, (a
// signed) 0 far below 0, NaN kept, and about -0.27 at -1.
TEST(ReferenceConv, SiluIsXTimesSigmoid) {
  Problem p;
  p.conv = convtest::makeConv({1, 1, 1, 1, {7}, {1}, {0}, {0}, {1}, {1}}, false,
                              false, GRAPHC_EPILOGUE_SILU);
  p.x = {0, 100, -100, std::numeric_limits<float>::quiet_NaN(), 1, -1, 3};
  p.w = {1};
  std::string error;
  ASSERT_TRUE(p.run(error)) << error;
  EXPECT_EQ(p.y[0], 0.0f);
  EXPECT_EQ(p.y[1], 100.0f);
  EXPECT_LT(std::fabs(p.y[2]), 1e-30f);
  EXPECT_TRUE(std::isnan(p.y[3]));
  for (int i : {4, 5, 6}) {
    double x = p.x[i];
    EXPECT_NEAR(p.y[i], x / (1 + std::exp(-x)), 1e-6) << "x " << x;
  }
  EXPECT_NEAR(p.y[5], -0.268941421, 1e-6);
}

// The reference computes SiLU with the generated kernels' expression
// (lib/Codegen/ScalarExpr.cpp's graph.silu: x / (1 + exp(-x)) in float),
// so that on the cpu target a library convolution's SiLU and a generated
// one agree to the bit.
TEST(ReferenceConv, SiluRoundsAsTheGeneratedKernels) {
  std::mt19937 rng(19);
  std::uniform_real_distribution<float> values(-20, 20);
  Problem p;
  p.conv = convtest::makeConv({1, 1, 1, 1, {4096}, {1}, {0}, {0}, {1}, {1}},
                              false, false, GRAPHC_EPILOGUE_SILU);
  p.x.resize(4096);
  for (float &value : p.x)
    value = values(rng);
  p.w = {1};
  std::string error;
  ASSERT_TRUE(p.run(error)) << error;
  for (size_t i = 0; i < p.x.size(); ++i) {
    float x = p.x[i];
    ASSERT_EQ(p.y[i], x / (1.0f + std::exp(-x))) << "x " << x;
  }
}

// The erf GELU is x/2 (1 + erf(x / sqrt(2))), not the tanh form (which
// differs by up to about 4.7e-4); computed with graph.gelu's expression in
// lib/Codegen/ScalarExpr.cpp (0.5 * x * (1 + erf(x * (1 / sqrt(2)))) in
// float, left to right), so that on the cpu target a library convolution's
// GELU and a generated one agree to the bit. NaN is kept.
TEST(ReferenceConv, GeluErfRoundsAsTheGeneratedKernels) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> values(-8, 8);
  Problem p;
  p.conv = convtest::makeConv({1, 1, 1, 1, {4096}, {1}, {0}, {0}, {1}, {1}},
                              false, false, GRAPHC_EPILOGUE_GELU_ERF);
  p.x.resize(4096);
  for (float &value : p.x)
    value = values(rng);
  p.x[0] = std::numeric_limits<float>::quiet_NaN();
  p.x[1] = -1;
  p.w = {1};
  std::string error;
  ASSERT_TRUE(p.run(error)) << error;
  EXPECT_TRUE(std::isnan(p.y[0]));
  // GELU(-1) = -Phi(-1) = -0.158655254; the tanh form gives -0.158808.
  EXPECT_NEAR(p.y[1], -0.158655254, 1e-7);
  for (size_t i = 1; i < p.x.size(); ++i) {
    float x = p.x[i];
    ASSERT_EQ(p.y[i], 0.5f * x * (1.0f + std::erf(x * 0.7071067811865476f)))
        << "x " << x;
    ASSERT_NEAR(p.y[i], 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))), 2e-6)
        << "x " << x;
  }
}

std::vector<uint16_t> narrow(const std::vector<float> &values, bool half) {
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    bits[i] =
        half ? graphc::floatToHalf(values[i]) : graphc::floatToBf16(values[i]);
  return bits;
}
std::vector<float> widen(const std::vector<uint16_t> &bits, bool half) {
  std::vector<float> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i)
    values[i] =
        half ? graphc::halfToFloat(bits[i]) : graphc::bf16ToFloat(bits[i]);
  return values;
}

// float16 and bfloat16 convolutions compute in float and round each element
// of Y once: exactly the float32 convolution of the same (representable)
// values, rounded.
TEST(ReferenceConv, ComputesSixteenBitFloatsInFloat) {
  std::mt19937 rng(11);
  for (int32_t epilogue :
       {GRAPHC_EPILOGUE_RELU, GRAPHC_EPILOGUE_SILU, GRAPHC_EPILOGUE_GELU_ERF})
    for (bool half : {true, false})
      for (const NamedShape &shape : kShapes) {
        // Channels last every other shape.
        bool last = (&shape - kShapes) % 2 == 1;
        SCOPED_TRACE(std::string(shape.name) + (half ? ", fp16" : ", bf16") +
                     ", epilogue " + std::to_string(epilogue) +
                     (last ? ", channels last" : ""));
        Problem p = makeProblem(shape.shape, true, true, epilogue, rng, last);
        std::vector<uint16_t> x = narrow(p.x, half), w = narrow(p.w, half),
                              bias = narrow(p.bias, half),
                              z = narrow(p.z, half);
        p.x = widen(x, half);
        p.w = widen(w, half);
        p.bias = widen(bias, half);
        p.z = widen(z, half);
        std::string error;
        ASSERT_TRUE(p.run(error)) << error;

        graphc_conv_desc conv = p.conv;
        conv.dtype = half ? 10 : 16;
        std::vector<uint16_t> y(p.y.size(), 0xffff);
        void *args[6] = {x.data(), w.data(), bias.data(),
                         z.data(), y.data(), nullptr};
        ASSERT_TRUE(graphc::rt::runReferenceConv(conv, args, error)) << error;
        std::vector<uint16_t> want = narrow(p.y, half);
        for (size_t i = 0; i < y.size(); ++i)
          ASSERT_EQ(y[i], want[i]) << "element " << i;
      }
}

// tf32 products: the float convolution of X and W rounded to tf32 (the bias
// and Z are added exactly).
TEST(ReferenceConv, RoundsOperandsToTf32) {
  std::mt19937 rng(13);
  for (const NamedShape &shape : kShapes) {
    bool last = (&shape - kShapes) % 2 == 0;
    SCOPED_TRACE(std::string(shape.name) + (last ? ", channels last" : ""));
    Problem p =
        makeProblem(shape.shape, true, true, GRAPHC_EPILOGUE_NONE, rng, last);
    Problem rounded = p;
    for (std::vector<float> *values : {&rounded.x, &rounded.w})
      for (float &value : *values)
        value = graphc::roundToTf32(value);
    std::string error;
    ASSERT_TRUE(rounded.run(error)) << error;
    p.conv.tf32 = 1;
    ASSERT_TRUE(p.run(error)) << error;
    EXPECT_EQ(p.y, rounded.y);
    // And tf32 changes the result: the test would notice it ignored.
    p.conv.tf32 = 0;
    ASSERT_TRUE(p.run(error)) << error;
    EXPECT_NE(p.y, rounded.y);
  }
}

/// An int8 convolution of `shape` over random int8 X and W; Y int32.
struct Int8Problem {
  graphc_conv_desc conv;
  std::vector<int8_t> x, w;
  std::vector<int32_t> y;

  bool run(std::string &error) {
    y.assign(convtest::yElements(conv), -12345);
    std::array<void *, 6> args = {x.data(), w.data(), nullptr,
                                  nullptr,  y.data(), nullptr};
    return graphc::rt::runReferenceConv(conv, args.data(), error);
  }
};

Int8Problem makeInt8Problem(const ConvShape &shape, bool channelsLast) {
  Int8Problem p;
  p.conv = convtest::makeConv(shape, false, false, GRAPHC_EPILOGUE_NONE);
  p.conv.dtype = 3;
  p.conv.compute_dtype = 6;
  p.conv.channels_last = channelsLast;
  p.x.resize(convtest::xElements(p.conv));
  p.w.resize(convtest::wElements(p.conv));
  return p;
}

TEST(ReferenceConv, Int8SumsExactlyInEitherLayout) {
  // Every shape of the float tests, both layouts, against the double
  // loops (int8 products and their sums here are exact in double).
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> byte(-128, 127);
  for (const auto &named : kShapes)
    for (bool last : {false, true}) {
      Int8Problem p = makeInt8Problem(named.shape, last);
      for (int8_t &v : p.x)
        v = int8_t(byte(rng));
      for (int8_t &v : p.w)
        v = int8_t(byte(rng));
      std::string error;
      ASSERT_TRUE(p.run(error)) << error;
      std::vector<float> x(p.x.begin(), p.x.end()), w(p.w.begin(), p.w.end());
      std::vector<float> expected(p.y.size());
      convtest::naiveConv(p.conv, x.data(), w.data(), nullptr, nullptr,
                          expected.data());
      for (size_t i = 0; i < expected.size(); ++i)
        ASSERT_EQ(p.y[i], int32_t(expected[i]))
            << named.name << (last ? " NHWC" : " NCHW") << " element " << i;
    }
}

TEST(ReferenceConv, Int8WrapsPastInt32) {
  // 8192 channels times a 4x4 filter: 2^17 products of -128 * -128 sum to
  // 2^31, which wraps to INT32_MIN (int32 arithmetic, as the GPU's); with
  // one product of -128 * 127 in place of one of them, 2^31 - 32640 fits.
  for (bool last : {false, true}) {
    Int8Problem p = makeInt8Problem(
        {1, 8192, 1, 1, {4, 4}, {4, 4}, {0, 0}, {0, 0}, {1, 1}, {1, 1}}, last);
    std::fill(p.x.begin(), p.x.end(), int8_t(-128));
    std::fill(p.w.begin(), p.w.end(), int8_t(-128));
    std::string error;
    ASSERT_TRUE(p.run(error)) << error;
    ASSERT_EQ(p.y.size(), 1u);
    EXPECT_EQ(p.y[0], std::numeric_limits<int32_t>::min());
    p.w[5] = 127;
    ASSERT_TRUE(p.run(error)) << error;
    EXPECT_EQ(p.y[0], int32_t((int64_t(1) << 31) - 16384 - 16256));
  }
}

TEST(ReferenceConv, RefusesWhatItCannotCompute) {
  std::mt19937 rng(3);
  Problem p =
      makeProblem(kShapes[0].shape, false, false, GRAPHC_EPILOGUE_NONE, rng);
  std::string error;
  p.conv.dtype = 11;
  EXPECT_FALSE(p.run(error));
  EXPECT_EQ(error, "the reference convolution computes float32, float16, "
                   "bfloat16 or int8 tensors, not float64");
  p.conv.dtype = 1;
  p.conv.compute_dtype = 10;
  EXPECT_FALSE(graphc::rt::referenceConvSupports(p.conv, error));
  EXPECT_EQ(error, "the reference convolution computes float32 tensors in "
                   "float32, not float16");
  // int8 sums in int32, and writes it as it is.
  p.conv.dtype = 3;
  p.conv.compute_dtype = 1;
  EXPECT_FALSE(graphc::rt::referenceConvSupports(p.conv, error));
  EXPECT_EQ(error, "the reference convolution computes int8 tensors in int32, "
                   "not float32");
  p.conv.compute_dtype = 6;
  EXPECT_TRUE(graphc::rt::referenceConvSupports(p.conv, error)) << error;
  p.conv.epilogue = GRAPHC_EPILOGUE_RELU;
  EXPECT_FALSE(graphc::rt::referenceConvSupports(p.conv, error));
  EXPECT_EQ(error, "the reference convolution writes an int8 convolution's "
                   "int32 sum as it is: no bias, Z or epilogue");
  p.conv.dtype = p.conv.compute_dtype = 1;
  p.conv.compute_dtype = 1;
  p.conv.epilogue = GRAPHC_EPILOGUE_GELU_TANH;
  EXPECT_FALSE(graphc::rt::referenceConvSupports(p.conv, error));
  EXPECT_EQ(error, "the reference convolution has no epilogue 2");
  p.conv.epilogue = GRAPHC_EPILOGUE_SILU;
  EXPECT_TRUE(graphc::rt::referenceConvSupports(p.conv, error));
  p.conv.epilogue = GRAPHC_EPILOGUE_GELU_ERF;
  EXPECT_TRUE(graphc::rt::referenceConvSupports(p.conv, error));
  p.conv.epilogue = 5;
  EXPECT_FALSE(graphc::rt::referenceConvSupports(p.conv, error));
  EXPECT_EQ(error, "the reference convolution has no epilogue 5");
  p.conv.epilogue = GRAPHC_EPILOGUE_NONE;
  p.conv.spatial_dims = 4;
  EXPECT_FALSE(graphc::rt::referenceConvSupports(p.conv, error));
  EXPECT_EQ(error, "the reference convolution has 1 to 3 spatial dims, not 4");
  p.conv.spatial_dims = 1;
  p.conv.dtype = 10;
  p.conv.tf32 = 1;
  EXPECT_FALSE(graphc::rt::referenceConvSupports(p.conv, error));
  EXPECT_EQ(error, "the reference convolution rounds float32 tensors to tf32, "
                   "not float16");
  p.conv.dtype = 1;
  p.conv.channels_last = 2;
  EXPECT_FALSE(graphc::rt::referenceConvSupports(p.conv, error));
  EXPECT_EQ(error, "the reference convolution has no layout channels_last 2");
  p.conv.channels_last = 1;
  EXPECT_TRUE(graphc::rt::referenceConvSupports(p.conv, error));
}

} // namespace
