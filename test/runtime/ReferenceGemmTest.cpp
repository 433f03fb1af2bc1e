//===- ReferenceGemmTest.cpp - the cpu target's GEMM against plain loops --===//
//
// runReferenceGemm (blocked, packed, float) against naiveGemm (one element
// at a time, double) over transposes, odd and block-crossing sizes, padded
// leading dims, broadcast batches, bias, C and the epilogues; float16 and
// bfloat16 against the float GEMM of the same values; int8 (exact int32
// sums, wrapping past int32) and float8e4m3fn (subnormals, NaN) operands
// into the accumulator's type.
//
//===----------------------------------------------------------------------===//
#include "GemmTestSupport.h"

#include "lib/Support/Float16.h"
#include "runtime/src/ReferenceGemm.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using gemmtest::naiveGemm;

/// A step's arguments over host buffers: A, B, C, bias, D, the workspace;
/// an empty C or bias is absent.
template <typename T>
std::array<void *, 6> gemmArgs(std::vector<T> &a, std::vector<T> &b,
                               std::vector<T> &c, std::vector<T> &bias,
                               std::vector<T> &d) {
  return {a.data(),
          b.data(),
          c.empty() ? nullptr : c.data(),
          bias.empty() ? nullptr : bias.data(),
          d.data(),
          nullptr};
}

/// A GEMM with its operands; argument order A, B, C, bias, D, workspace.
struct Problem {
  graphc_gemm_desc gemm{};
  std::vector<float> a, b, c, bias, d;

  /// Runs the reference GEMM; D is filled with a sentinel first.
  bool run(std::string &error) {
    d.assign(gemm.batch * gemm.m * gemm.n, -12345.0f);
    return graphc::rt::runReferenceGemm(
        gemm, gemmArgs(a, b, c, bias, d).data(), error);
  }

  std::vector<float> expected() const {
    std::vector<float> out(gemm.batch * gemm.m * gemm.n);
    naiveGemm(gemm, a.data(), b.data(), gemm.c_arg >= 0 ? c.data() : nullptr,
              gemm.bias_arg >= 0 ? bias.data() : nullptr, out.data());
    return out;
  }
};

struct Shape {
  int64_t m, n, k, batch;
};

/// How a problem's operands are laid out beyond the shape.
struct Variant {
  const char *name;
  bool bias = false, withC = false;
  int32_t epilogue = GRAPHC_EPILOGUE_NONE;
  double alpha = 1;
  int64_t pad = 0; ///< Extra elements per row of A, B and C.
  bool shareA = false, shareB = false, shareC = false; ///< Stride 0.
};

std::vector<float> random(size_t count, std::mt19937 &rng) {
  std::uniform_real_distribution<float> values(-1, 1);
  std::vector<float> out(count);
  for (float &value : out)
    value = values(rng);
  return out;
}

Problem makeProblem(int transA, int transB, const Shape &shape,
                    const Variant &variant, std::mt19937 &rng) {
  Problem p;
  graphc_gemm_desc &g = p.gemm;
  g.trans_a = transA;
  g.trans_b = transB;
  g.m = shape.m;
  g.n = shape.n;
  g.k = shape.k;
  g.batch = shape.batch;
  int64_t rowsA = transA ? g.k : g.m, colsA = transA ? g.m : g.k;
  int64_t rowsB = transB ? g.n : g.k, colsB = transB ? g.k : g.n;
  g.lda = colsA + variant.pad;
  g.ldb = colsB + variant.pad;
  g.ldc = g.n + variant.pad;
  // A batch stride with a gap after each matrix, or 0 to share one.
  g.stride_a = variant.shareA ? 0 : rowsA * g.lda + 3;
  g.stride_b = variant.shareB ? 0 : rowsB * g.ldb + 1;
  g.stride_c = variant.shareC ? 0 : g.m * g.ldc + 2;
  g.alpha = variant.alpha;
  g.beta = variant.withC ? -0.75 : 0;
  g.epilogue = variant.epilogue;
  g.dtype = 1;
  g.compute_dtype = 1;
  g.a_arg = 0;
  g.b_arg = 1;
  g.c_arg = variant.withC ? 2 : -1;
  g.bias_arg = variant.bias ? 3 : -1;
  g.d_arg = 4;
  g.workspace_arg = 5;
  p.a = random((g.batch - 1) * g.stride_a + rowsA * g.lda, rng);
  p.b = random((g.batch - 1) * g.stride_b + rowsB * g.ldb, rng);
  if (variant.withC)
    p.c = random((g.batch - 1) * g.stride_c + g.m * g.ldc, rng);
  if (variant.bias)
    p.bias = random(g.n, rng);
  return p;
}

TEST(ReferenceGemm, MatchesPlainLoops) {
  // 1x1x1; odd sizes; more rows than a row block and more products than a
  // depth block (64 and 256); more columns than a column block (512).
  const Shape shapes[] = {
      {1, 1, 1, 1}, {7, 5, 3, 3}, {70, 33, 300, 2}, {3, 530, 7, 2}};
  const Variant variants[] = {
      {"plain"},
      {"bias relu", true, false, GRAPHC_EPILOGUE_RELU},
      {"C gelu_tanh", false, true, GRAPHC_EPILOGUE_GELU_TANH, 0.5},
      {"bias C relu, padded rows", true, true, GRAPHC_EPILOGUE_RELU, 2.0, 5},
      {"shared A", false, false, GRAPHC_EPILOGUE_NONE, 1, 0, true},
      {"shared B and C", true, true, GRAPHC_EPILOGUE_NONE, 1, 1, false, true,
       true},
  };
  std::mt19937 rng(7);
  for (int transA : {0, 1})
    for (int transB : {0, 1})
      for (const Shape &shape : shapes)
        for (const Variant &variant : variants) {
          SCOPED_TRACE(std::string(variant.name) + ", trans " +
                       std::to_string(transA) + std::to_string(transB) +
                       ", m n k batch " + std::to_string(shape.m) + " " +
                       std::to_string(shape.n) + " " + std::to_string(shape.k) +
                       " " + std::to_string(shape.batch));
          Problem p = makeProblem(transA, transB, shape, variant, rng);
          std::string error;
          ASSERT_TRUE(p.run(error)) << error;
          EXPECT_TRUE(gemmtest::near(p.d, p.expected(), 1e-5));
        }
}

TEST(ReferenceGemm, BetaZeroNeverReadsC) {
  std::mt19937 rng(1);
  Problem p = makeProblem(0, 0, {4, 3, 2, 2}, {"C", false, true}, rng);
  p.gemm.beta = 0;
  // A C full of NaN, even named by c_arg, must not reach D; nor an absent
  // one be read.
  std::fill(p.c.begin(), p.c.end(), std::numeric_limits<float>::quiet_NaN());
  std::string error;
  ASSERT_TRUE(p.run(error)) << error;
  p.gemm.c_arg = -1;
  std::vector<float> expected = p.expected();
  EXPECT_TRUE(gemmtest::near(p.d, expected));
  p.c.clear();
  ASSERT_TRUE(p.run(error)) << error;
  EXPECT_TRUE(gemmtest::near(p.d, expected));
}

TEST(ReferenceGemm, CMayBeDItself) {
  std::mt19937 rng(2);
  for (int transB : {0, 1}) {
    Problem p = makeProblem(1, transB, {70, 520, 5, 2}, {"C", true, true}, rng);
    p.gemm.ldc = p.gemm.n;
    p.gemm.stride_c = p.gemm.m * p.gemm.n;
    p.c = random(p.gemm.batch * p.gemm.m * p.gemm.n, rng);
    std::vector<float> expected = p.expected();
    // C and D are one buffer.
    std::vector<float> cd = p.c;
    void *args[6] = {p.a.data(),    p.b.data(), cd.data(),
                     p.bias.data(), cd.data(),  nullptr};
    std::string error;
    ASSERT_TRUE(graphc::rt::runReferenceGemm(p.gemm, args, error)) << error;
    EXPECT_TRUE(gemmtest::near(cd, expected));
  }
}

TEST(ReferenceGemm, ReluKeepsNaNAndZeroesNegatives) {
  graphc_gemm_desc g{};
  g.m = g.k = g.batch = 1;
  g.n = 3;
  g.lda = 1;
  g.ldb = 3;
  g.alpha = 1;
  g.epilogue = GRAPHC_EPILOGUE_RELU;
  g.dtype = g.compute_dtype = 1;
  g.a_arg = 0, g.b_arg = 1, g.c_arg = -1, g.bias_arg = -1, g.d_arg = 2,
  g.workspace_arg = 3;
  float a = 1, b[3] = {std::numeric_limits<float>::quiet_NaN(), -2, 3}, d[3];
  void *args[4] = {&a, b, d, nullptr};
  std::string error;
  ASSERT_TRUE(graphc::rt::runReferenceGemm(g, args, error)) << error;
  EXPECT_TRUE(std::isnan(d[0]));
  EXPECT_EQ(d[1], 0.0f);
  EXPECT_EQ(d[2], 3.0f);
}

TEST(ReferenceGemm, GeluTanhIsTheTanhForm) {
  for (float x : {-6.0f, -1.0f, -0.25f, 0.0f, 0.5f, 1.0f, 3.0f}) {
    SCOPED_TRACE(x);
    EXPECT_NEAR(graphc::rt::geluTanh(x), gemmtest::geluTanh(x), 1e-6);
  }
  // Known values of the tanh form (the erf form gives 0.841345 at 1).
  EXPECT_NEAR(graphc::rt::geluTanh(1.0f), 0.841192f, 1e-6);
  EXPECT_NEAR(graphc::rt::geluTanh(-1.0f), -0.158808f, 1e-6);
}

/// The 16-bit bits of every element of `values` (fp16 or bf16).
std::vector<uint16_t> narrow(const std::vector<float> &values, bool half) {
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    bits[i] = half ? graphc::floatToHalf(values[i])
                   : graphc::floatToBf16(values[i]);
  return bits;
}
std::vector<float> widen(const std::vector<uint16_t> &bits, bool half) {
  std::vector<float> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i)
    values[i] = half ? graphc::halfToFloat(bits[i]) : graphc::bf16ToFloat(bits[i]);
  return values;
}

// float16 and bfloat16 GEMMs compute in float and round each element of D
// once: exactly the float32 GEMM of the same (representable) values, rounded.
TEST(ReferenceGemm, ComputesSixteenBitFloatsInFloat) {
  const Variant variants[] = {
      {"plain"},
      {"bias C relu, padded rows", true, true, GRAPHC_EPILOGUE_RELU, 2.0, 5},
      {"C gelu_tanh", false, true, GRAPHC_EPILOGUE_GELU_TANH, 0.5},
  };
  std::mt19937 rng(11);
  for (bool half : {true, false})
    for (int transB : {0, 1})
      for (const Variant &variant : variants) {
        SCOPED_TRACE(std::string(variant.name) + (half ? ", fp16" : ", bf16") +
                     ", trans_b " + std::to_string(transB));
        Problem p = makeProblem(0, transB, {70, 33, 300, 2}, variant, rng);
        // The float problem over the values the narrow one holds.
        std::vector<uint16_t> a = narrow(p.a, half), b = narrow(p.b, half),
                              c = narrow(p.c, half),
                              bias = narrow(p.bias, half);
        p.a = widen(a, half);
        p.b = widen(b, half);
        p.c = widen(c, half);
        p.bias = widen(bias, half);
        std::string error;
        ASSERT_TRUE(p.run(error)) << error;

        graphc_gemm_desc g = p.gemm;
        g.dtype = half ? 10 : 16;
        std::vector<uint16_t> d(p.d.size(), 0xffff);
        ASSERT_TRUE(graphc::rt::runReferenceGemm(
            g, gemmArgs(a, b, c, bias, d).data(), error))
            << error;
        std::vector<uint16_t> want = narrow(p.d, half);
        for (size_t i = 0; i < d.size(); ++i)
          ASSERT_EQ(d[i], want[i]) << "element " << i;
      }
}

TEST(ReferenceGemm, RoundsToTf32TiesAway) {
  using graphc::roundToTf32;
  EXPECT_EQ(roundToTf32(1.0f + 0x1p-11f), 1.0f + 0x1p-10f); // a tie: away
  EXPECT_EQ(roundToTf32(1.0f + 0x1p-12f), 1.0f);
  EXPECT_EQ(roundToTf32(-(1.0f + 0x1p-11f)), -(1.0f + 0x1p-10f));
  EXPECT_EQ(roundToTf32(1.0f + 0x1p-10f), 1.0f + 0x1p-10f); // exact
  EXPECT_TRUE(std::isinf(roundToTf32(std::numeric_limits<float>::infinity())));
  EXPECT_TRUE(std::isnan(roundToTf32(std::numeric_limits<float>::quiet_NaN())));
}

// tf32 products: the float GEMM of A and B rounded to tf32 (C and the bias
// are added exactly).
TEST(ReferenceGemm, RoundsOperandsToTf32) {
  std::mt19937 rng(13);
  for (int transB : {0, 1}) {
    SCOPED_TRACE("trans_b " + std::to_string(transB));
    Problem p = makeProblem(1, transB, {70, 33, 300, 2},
                            {"bias C relu", true, true, GRAPHC_EPILOGUE_RELU},
                            rng);
    Problem rounded = p;
    for (std::vector<float> *values : {&rounded.a, &rounded.b})
      for (float &value : *values)
        value = graphc::roundToTf32(value);
    std::string error;
    ASSERT_TRUE(rounded.run(error)) << error;
    p.gemm.tf32 = 1;
    ASSERT_TRUE(p.run(error)) << error;
    EXPECT_EQ(p.d, rounded.d);
    // And tf32 changes the result: the test would notice it ignored.
    p.gemm.tf32 = 0;
    ASSERT_TRUE(p.run(error)) << error;
    EXPECT_NE(p.d, rounded.d);
  }
}

TEST(ReferenceGemm, RefusesWhatItCannotCompute) {
  std::mt19937 rng(3);
  Problem p = makeProblem(0, 0, {2, 2, 2, 1}, {"plain"}, rng);
  std::string error;
  p.gemm.dtype = 11;
  EXPECT_FALSE(p.run(error));
  EXPECT_EQ(error, "the reference GEMM computes float32, float16 or bfloat16 "
                   "matrices, not float64");
  p.gemm.dtype = 1;
  p.gemm.compute_dtype = 11;
  EXPECT_FALSE(p.run(error));
  EXPECT_EQ(error, "the reference GEMM accumulates in float32, not float64");
  p.gemm.compute_dtype = 1;
  p.gemm.epilogue = 9;
  EXPECT_FALSE(graphc::rt::referenceGemmSupports(p.gemm, error));
  EXPECT_EQ(error, "the reference GEMM has no epilogue 9");
  p.gemm.epilogue = GRAPHC_EPILOGUE_SILU;
  EXPECT_FALSE(p.run(error));
  EXPECT_EQ(error,
            "the reference GEMM has no SiLU epilogue (a convolution's alone)");
}

} // namespace

//===- 8-bit operands ------------------------------------------------------===//

namespace {

/// An 8-bit GEMM over byte operands and a C and D of the accumulator's
/// type `Out` (int32 or float); argument order A, B, C, bias, D, workspace.
template <typename Out> struct EightBitProblem {
  graphc_gemm_desc gemm{};
  std::vector<uint8_t> a, b;
  std::vector<Out> c, d;

  bool run(std::string &error) {
    d.assign(gemm.batch * gemm.m * gemm.n, Out(-12345));
    std::array<void *, 6> args = {a.data(), b.data(),
                                  c.empty() ? nullptr : c.data(), nullptr,
                                  d.data(), nullptr};
    return graphc::rt::runReferenceGemm(gemm, args.data(), error);
  }
};

graphc_gemm_desc eightBitGemm(int32_t dtype, int64_t m, int64_t n, int64_t k,
                              bool transA, bool transB) {
  graphc_gemm_desc g{};
  g.trans_a = transA;
  g.trans_b = transB;
  g.m = m;
  g.n = n;
  g.k = k;
  g.batch = 1;
  g.lda = transA ? m : k;
  g.ldb = transB ? k : n;
  g.alpha = 1;
  g.dtype = dtype;
  g.compute_dtype = dtype == 3 ? 6 : 1;
  g.a_arg = 0;
  g.b_arg = 1;
  g.c_arg = -1;
  g.bias_arg = -1;
  g.d_arg = 4;
  g.workspace_arg = 5;
  return g;
}

} // namespace

TEST(ReferenceGemm, Int8SumsExactlyAndWrapsPastInt32) {
  // k = 2^17 products of -128 * -128 = 2^14 sum to 2^31, one past
  // INT32_MAX: it wraps to INT32_MIN as int32 arithmetic (and integer
  // tensor cores) do. -128 * 127 * 2^17 = -2130706432 fits. C (beta 1) is
  // added before the wrap.
  const int64_t k = int64_t(1) << 17;
  EightBitProblem<int32_t> p;
  p.gemm = eightBitGemm(3, 1, 3, k, false, true);
  p.a.assign(k, uint8_t(0x80)); // -128
  p.b.resize(3 * k);
  for (int64_t i = 0; i < k; ++i) {
    p.b[i] = 0x80;             // -128
    p.b[k + i] = 0x7f;         // 127
    p.b[2 * k + i] = i % 2 ? 0x80 : 0x7f; // alternating: -128 + 127 pairs
  }
  std::string error;
  ASSERT_TRUE(p.run(error)) << error;
  EXPECT_EQ(p.d[0], std::numeric_limits<int32_t>::min());
  EXPECT_EQ(p.d[1], -2130706432);
  EXPECT_EQ(p.d[2], int32_t(-128 * (-128 + 127) * (k / 2) * -1 * -1));
  p.gemm.c_arg = 2;
  p.gemm.beta = 1;
  p.gemm.ldc = 3;
  p.c = {5, -7, 0};
  ASSERT_TRUE(p.run(error)) << error;
  EXPECT_EQ(p.d[0], std::numeric_limits<int32_t>::min() + 5);
  EXPECT_EQ(p.d[1], -2130706432 - 7);
  EXPECT_EQ(graphc::rt::wrapToInt32(int64_t(1) << 31),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(graphc::rt::wrapToInt32(-(int64_t(1) << 31) - 1),
            std::numeric_limits<int32_t>::max());
  EXPECT_EQ(graphc::rt::wrapToInt32((int64_t(5) << 32) - 3), -3);
}

TEST(ReferenceGemm, Int8MatchesPlainLoopsInEveryForm) {
  // Every transpose form (cuBLASLt takes TN only; the cpu target all),
  // padded leading dims, two batches, C of int32.
  std::mt19937 rng(8);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int form = 0; form < 4; ++form) {
    const bool transA = form & 1, transB = form & 2;
    const int64_t m = 5, n = 7, k = 9, pad = 3;
    EightBitProblem<int32_t> p;
    p.gemm = eightBitGemm(3, m, n, k, transA, transB);
    p.gemm.batch = 2;
    p.gemm.lda += pad;
    p.gemm.ldb += pad;
    p.gemm.stride_a = (transA ? k : m) * p.gemm.lda;
    p.gemm.stride_b = (transB ? n : k) * p.gemm.ldb;
    p.gemm.c_arg = 2;
    p.gemm.beta = 1;
    p.gemm.ldc = n + pad;
    p.gemm.stride_c = m * p.gemm.ldc;
    p.a.resize(2 * p.gemm.stride_a);
    p.b.resize(2 * p.gemm.stride_b);
    p.c.resize(2 * p.gemm.stride_c);
    for (uint8_t &v : p.a)
      v = uint8_t(byte(rng));
    for (uint8_t &v : p.b)
      v = uint8_t(byte(rng));
    for (int32_t &v : p.c)
      v = byte(rng) * 1000 - 128000;
    std::string error;
    ASSERT_TRUE(p.run(error)) << error;
    const graphc_gemm_desc &g = p.gemm;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t row = 0; row < m; ++row)
        for (int64_t col = 0; col < n; ++col) {
          int64_t sum = p.c[i * g.stride_c + row * g.ldc + col];
          for (int64_t q = 0; q < k; ++q) {
            int8_t x = int8_t(transA ? p.a[i * g.stride_a + q * g.lda + row]
                                     : p.a[i * g.stride_a + row * g.lda + q]);
            int8_t y = int8_t(transB ? p.b[i * g.stride_b + col * g.ldb + q]
                                     : p.b[i * g.stride_b + q * g.ldb + col]);
            sum += int64_t(x) * y;
          }
          EXPECT_EQ(p.d[(i * m + row) * n + col], sum)
              << "form " << form << " batch " << i << " (" << row << ", "
              << col << ")";
        }
  }
}

TEST(ReferenceGemm, Float8E4M3SumsDecodedValuesInFloat) {
  // e4m3fn: 0x01 is the smallest subnormal 2^-9, 0x07 the largest 7 *
  // 2^-9, 0x08 the smallest normal 2^-6, 0x38 1, 0x40 2, 0x7e 448 (the
  // largest), 0xb8 -1; 0x7f and 0xff are NaN (no infinities).
  EightBitProblem<float> p;
  p.gemm = eightBitGemm(17, 2, 3, 4, false, true);
  p.a = {0x01, 0x38, 0x07, 0x08,  // 2^-9, 1, 7 * 2^-9, 2^-6
         0x7e, 0xb8, 0x00, 0x80}; // 448, -1, 0, -0
  p.b = {0x01, 0x40, 0x00, 0x00,  // column 0: 2^-9, 2
         0x7e, 0x7e, 0x7e, 0x7e,  // column 1: 448 each
         0x7f, 0x38, 0x38, 0x38}; // column 2: NaN first
  p.gemm.alpha = 0.5; // a per-tensor scale
  std::string error;
  ASSERT_TRUE(p.run(error)) << error;
  // Products exact in float, summed in ascending k in float, then alpha.
  const float tiny = std::ldexp(1.0f, -9);
  EXPECT_EQ(p.d[0], 0.5f * (tiny * tiny + 2.0f));
  EXPECT_EQ(p.d[1], 0.5f * (((tiny * 448 + 448) + 7 * tiny * 448) +
                            std::ldexp(1.0f, -6) * 448));
  EXPECT_TRUE(std::isnan(p.d[2]));
  EXPECT_EQ(p.d[3], 0.5f * (448.0f * tiny + -2.0f));
  EXPECT_EQ(p.d[4], 0.5f * (448.0f * 448 - 448));
  EXPECT_TRUE(std::isnan(p.d[5]));
  // 0xff is NaN too; beta 1 adds C in float.
  p.b[8] = 0x38;
  p.a[3] = 0xff;
  p.gemm.c_arg = 2;
  p.gemm.beta = 1;
  p.gemm.ldc = 3;
  p.c = {1, 2, 3, 4, 5, 6};
  ASSERT_TRUE(p.run(error)) << error;
  EXPECT_TRUE(std::isnan(p.d[0]));
  EXPECT_EQ(p.d[3], 0.5f * (448.0f * tiny + -2.0f) + 4);
  EXPECT_EQ(p.d[5], 0.5f * (448.0f - 1) + 6);
}

TEST(ReferenceGemm, EightBitSupport) {
  std::string error;
  graphc_gemm_desc g = eightBitGemm(3, 4, 4, 4, false, true);
  EXPECT_TRUE(graphc::rt::referenceGemmSupports(g, error)) << error;
  g.dtype = 17;
  g.compute_dtype = 1;
  EXPECT_TRUE(graphc::rt::referenceGemmSupports(g, error)) << error;
  g.epilogue = GRAPHC_EPILOGUE_RELU;
  EXPECT_FALSE(graphc::rt::referenceGemmSupports(g, error));
  EXPECT_EQ(error, "the reference GEMM takes no epilogue, bias or tf32 for "
                   "float8e4m3fn matrices");
  // int8 accumulating in float32 is no 8-bit combination.
  g = eightBitGemm(3, 4, 4, 4, false, true);
  g.compute_dtype = 1;
  EXPECT_FALSE(graphc::rt::referenceGemmSupports(g, error));
}
