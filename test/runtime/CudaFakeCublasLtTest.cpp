//===- CudaFakeCublasLtTest.cpp - library steps on the fake cuBLASLt ------===//
//
// The runtime's cuBLASLt path against the fake one (test/runtime/fake_cuda,
// column-major semantics written independently of the runtime): the
// row-major to column-major translation of CublasLtGemm over transposes,
// batch strides, bias, C, epilogues and alignment, checked against plain
// row-major loops; gemm_model on the cuda target through sessions (capture
// and replay, eager capture, no graphs, debug sync, caller streams); and
// the statuses for a missing cuBLASLt or a GEMM it has no algorithm for.
//
//===----------------------------------------------------------------------===//
#include "FakeCudaTestSupport.h"
#include "GemmTestSupport.h"

#include "runtime/src/CublasLt.h"
#include "runtime/src/CublasLtGemm.h"
#include "runtime/src/ReferenceGemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace fakecutest;
namespace rt = graphc::rt;
namespace lt = graphc::rt::lt;

/// gemm_model_scale(x, t): t = 2 x over 24 elements.
void scaleKernel(const fakecu_launch *launch) {
  const float *x = *static_cast<float **>(launch->params[0]);
  float *t = *static_cast<float **>(launch->params[1]);
  for (int i = 0; i < 24; ++i)
    t[i] = 2 * x[i];
}

class FakeCublasLt : public ::testing::Test {
protected:
  void SetUp() override {
    fakecu_reset();
    static const unsigned params[] = {8, 8};
    fakecu_register_kernel("gemm_model_scale", scaleKernel, 2, params);
  }
  void TearDown() override {
    if (handle)
      EXPECT_EQ(library.destroy(handle), lt::kSuccess);
    EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
    EXPECT_EQ(fakecu_calls("cuCtxSynchronize"), 0);
    if (!refusalExpected)
      EXPECT_STREQ(fakecu_cublaslt_last_error(), "");
  }
  /// Loads the fake cuBLASLt into `library` and creates `handle`, which
  /// TearDown destroys (call through ASSERT_NO_FATAL_FAILURE).
  void openLibrary() {
    ASSERT_TRUE(lt::loadLibrary(fakeCudaLibrary(), library, error)) << error;
    ASSERT_EQ(library.create(&handle), lt::kSuccess);
  }
  /// Set by tests that make the fake refuse a call on purpose.
  bool refusalExpected = false;
  lt::Library library;
  lt::Handle handle = nullptr;
  std::string error;
};

//===- CublasLtGemm on its own --------------------------------------------===//

std::vector<float> random(size_t count, std::mt19937 &rng) {
  std::uniform_real_distribution<float> values(-1, 1);
  std::vector<float> out(count);
  for (float &value : out)
    value = values(rng);
  return out;
}

struct Variant {
  const char *name;
  bool bias = false, withC = false;
  int32_t epilogue = GRAPHC_EPILOGUE_NONE;
  double alpha = 1;
  int64_t pad = 0;
  bool shareA = false, shareB = false, shareC = false, cIsD = false;
};

TEST_F(FakeCublasLt, RowMajorGemmsTranslateToColumnMajor) {
  ASSERT_NO_FATAL_FAILURE(openLibrary());
  EXPECT_EQ(library.version, 130000u);
  Device device;

  struct Shape {
    int64_t m, n, k, batch;
  };
  const Shape shapes[] = {{1, 1, 1, 1}, {7, 5, 3, 3}, {33, 17, 9, 2}};
  const Variant variants[] = {
      {"plain"},
      {"bias relu", true, false, GRAPHC_EPILOGUE_RELU},
      {"C gelu_tanh", false, true, GRAPHC_EPILOGUE_GELU_TANH, 0.5},
      {"bias C gelu_tanh, padded rows", true, true, GRAPHC_EPILOGUE_GELU_TANH,
       -1.5, 3},
      {"shared A", true, false, GRAPHC_EPILOGUE_NONE, 1, 0, true},
      {"shared B and C", false, true, GRAPHC_EPILOGUE_RELU, 1, 2, false, true,
       true},
      {"C is D", true, true, GRAPHC_EPILOGUE_NONE, 1, 0, false, false, false,
       true},
  };
  std::mt19937 rng(5);
  for (int transA : {0, 1})
    for (int transB : {0, 1})
      for (const Shape &shape : shapes)
        for (const Variant &variant : variants) {
          SCOPED_TRACE(std::string(variant.name) + ", trans " +
                       std::to_string(transA) + std::to_string(transB) +
                       ", m n k batch " + std::to_string(shape.m) + " " +
                       std::to_string(shape.n) + " " + std::to_string(shape.k) +
                       " " + std::to_string(shape.batch));
          graphc_gemm_desc g{};
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
          g.ldc = variant.cIsD ? g.n : g.n + variant.pad;
          g.stride_a = variant.shareA ? 0 : rowsA * g.lda + 1;
          g.stride_b = variant.shareB ? 0 : rowsB * g.ldb + 2;
          g.stride_c = variant.shareC ? 0
                       : variant.cIsD ? g.m * g.n
                                      : g.m * g.ldc + 3;
          g.alpha = variant.alpha;
          g.beta = variant.withC ? 0.75 : 0;
          g.epilogue = variant.epilogue;
          g.dtype = g.compute_dtype = 1;
          g.a_arg = 0, g.b_arg = 1, g.c_arg = variant.withC ? 2 : -1,
          g.bias_arg = variant.bias ? 3 : -1, g.d_arg = 4, g.workspace_arg = 5;

          std::vector<float> a =
              random((g.batch - 1) * g.stride_a + rowsA * g.lda, rng);
          std::vector<float> b =
              random((g.batch - 1) * g.stride_b + rowsB * g.ldb, rng);
          std::vector<float> c =
              variant.cIsD
                  ? random(g.batch * g.m * g.n, rng)
                  : random((g.batch - 1) * g.stride_c + g.m * g.ldc, rng);
          std::vector<float> bias = random(g.n, rng);
          std::vector<float> expected(g.batch * g.m * g.n);
          gemmtest::naiveGemm(
              g, a.data(), b.data(), variant.withC ? c.data() : nullptr,
              variant.bias ? bias.data() : nullptr, expected.data());

          // A 16 bytes and the bias 4 bytes into their allocations: the
          // heuristic must be told, or the fake refuses the pointers.
          unsigned long long args[6] = {};
          args[0] = device.upload(a, 16);
          args[1] = device.upload(b);
          args[4] = device.upload(std::vector<float>(expected.size(), -7));
          args[2] = variant.cIsD ? args[4] : device.upload(c);
          if (variant.cIsD)
            std::memcpy(reinterpret_cast<void *>(args[4]), c.data(),
                        c.size() * 4);
          args[3] = device.upload(bias, 4);
          args[5] = device.upload(std::vector<float>(256));
          rt::GemmAlignment alignment;
          alignment.a = 16;
          alignment.bias = 4;

          std::unique_ptr<rt::CublasLtGemm> gemm;
          graphc_code code = rt::CublasLtGemm::create(library, handle, g, 1024,
                                                      alignment, gemm, error);
          ASSERT_EQ(code, GRAPHC_OK) << error;
          EXPECT_EQ(gemm->workspaceSize(), 1024u);
          code = gemm->enqueue(args, 1024, device.cuStream(), error);
          ASSERT_EQ(code, GRAPHC_OK)
              << error << "; fake: " << fakecu_cublaslt_last_error();
          EXPECT_TRUE(gemmtest::near(download(args[4], expected.size()),
                                     expected, 1e-5));
        }
}

//===- 8-bit GEMMs ---------------------------------------------------------===//

/// An 8-bit GEMM in cuBLASLt's "TN" form (trans_a 0, trans_b 1): A m x k,
/// B n x k, batch 2, C of the accumulator's type (beta 1) at stride m * ldc.
graphc_gemm_desc eightBitTn(int32_t dtype, int64_t m, int64_t n, int64_t k) {
  graphc_gemm_desc g{};
  g.trans_a = 0;
  g.trans_b = 1;
  g.m = m, g.n = n, g.k = k, g.batch = 2;
  g.lda = k, g.ldb = k, g.ldc = n;
  g.stride_a = m * k, g.stride_b = n * k, g.stride_c = m * n;
  g.alpha = 1, g.beta = 1;
  g.dtype = dtype;
  g.compute_dtype = dtype == 3 ? 6 : 1;
  g.a_arg = 0, g.b_arg = 1, g.c_arg = 2, g.bias_arg = -1, g.d_arg = 4;
  g.workspace_arg = 5;
  return g;
}

TEST_F(FakeCublasLt, Int8GemmsSumExactlyInInt32) {
  ASSERT_NO_FATAL_FAILURE(openLibrary());
  Device device;
  // k = 2^17: -128 * -128 summed wraps to INT32_MIN on both sides; the
  // other columns are random. n and k multiples of 4, as IMMA needs.
  const int64_t m = 3, n = 4, k = int64_t(1) << 17;
  graphc_gemm_desc g = eightBitTn(3, m, n, k);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> a(2 * m * k), b(2 * n * k);
  for (uint8_t &v : a)
    v = uint8_t(byte(rng));
  for (uint8_t &v : b)
    v = uint8_t(byte(rng));
  std::fill(a.begin(), a.begin() + k, uint8_t(0x80)); // batch 0, row 0
  std::fill(b.begin(), b.begin() + k, uint8_t(0x80)); // batch 0, column 0
  std::vector<int32_t> c(2 * m * n);
  for (int32_t &v : c)
    v = byte(rng) - 128;
  c[0] = 0;
  unsigned long long args[6] = {};
  args[0] = device.uploadBytes(a.data(), a.size());
  args[1] = device.uploadBytes(b.data(), b.size());
  args[2] = device.uploadBytes(c.data(), c.size() * 4);
  args[4] = device.uploadBytes(c.data(), c.size() * 4);
  args[5] = device.upload(std::vector<float>(256));
  std::unique_ptr<rt::CublasLtGemm> gemm;
  ASSERT_EQ(rt::CublasLtGemm::create(library, handle, g, 1024, {}, gemm, error),
            GRAPHC_OK)
      << error;
  ASSERT_EQ(gemm->enqueue(args, 1024, device.cuStream(), error), GRAPHC_OK)
      << error << "; fake: " << fakecu_cublaslt_last_error();
  std::vector<int32_t> d = download<int32_t>(args[4], c.size());
  EXPECT_EQ(d[0], std::numeric_limits<int32_t>::min());
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t row = 0; row < m; ++row)
      for (int64_t col = 0; col < n; ++col) {
        int64_t sum = c[(i * m + row) * n + col];
        for (int64_t p = 0; p < k; ++p)
          sum += int64_t(int8_t(a[(i * m + row) * k + p])) *
                 int8_t(b[(i * n + col) * k + p]);
        EXPECT_EQ(d[(i * m + row) * n + col], rt::wrapToInt32(sum))
            << i << " " << row << " " << col;
      }
}

TEST_F(FakeCublasLt, Float8GemmsSumDecodedValuesOnAda) {
  ASSERT_NO_FATAL_FAILURE(openLibrary());
  Device device;
  const int64_t m = 2, n = 16, k = 16;
  graphc_gemm_desc g = eightBitTn(17, m, n, k);
  g.alpha = 0.25;
  fakecu_set_compute_capability(89); // fp8 tensor cores: Ada and newer
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> code(0, 255);
  std::vector<uint8_t> a(2 * m * k), b(2 * n * k);
  // Every code but the NaNs: subnormals, 448, zeros of both signs.
  for (uint8_t &v : a)
    do
      v = uint8_t(code(rng));
    while ((v & 0x7f) == 0x7f);
  for (uint8_t &v : b)
    do
      v = uint8_t(code(rng));
    while ((v & 0x7f) == 0x7f);
  a[5] = 0x7f; // one NaN: its row's outputs are NaN
  std::vector<float> c = random(2 * m * n, rng);
  unsigned long long args[6] = {};
  args[0] = device.uploadBytes(a.data(), a.size());
  args[1] = device.uploadBytes(b.data(), b.size());
  args[2] = device.upload(c);
  args[4] = device.upload(std::vector<float>(c.size(), -7));
  args[5] = device.upload(std::vector<float>(256));
  std::unique_ptr<rt::CublasLtGemm> gemm;
  ASSERT_EQ(rt::CublasLtGemm::create(library, handle, g, 1024, {}, gemm, error),
            GRAPHC_OK)
      << error;
  ASSERT_EQ(gemm->enqueue(args, 1024, device.cuStream(), error), GRAPHC_OK)
      << error << "; fake: " << fakecu_cublaslt_last_error();
  // The runtime's reference computes the same sums in the same order.
  std::vector<float> expected(c.size());
  void *host[6] = {a.data(), b.data(), c.data(), nullptr, expected.data(),
                   nullptr};
  ASSERT_TRUE(rt::runReferenceGemm(g, host, error)) << error;
  std::vector<float> d = download<float>(args[4], c.size());
  for (size_t i = 0; i < d.size(); ++i) {
    if (i < size_t(n)) {
      EXPECT_TRUE(std::isnan(d[i])) << i;
      EXPECT_TRUE(std::isnan(expected[i])) << i;
    } else {
      EXPECT_EQ(d[i], expected[i]) << i;
    }
  }
}

TEST_F(FakeCublasLt, EightBitGemmsKeepCublasLtsRequirements) {
  // The runtime refuses what the fake (and cuBLASLt) would: not "TN", dims
  // not multiples of 4 (16 for fp8), an epilogue; fp8 before SM 8.9.
  std::string why;
  graphc_gemm_desc g = eightBitTn(3, 3, 4, 8);
  EXPECT_TRUE(rt::cublasLtSupports(g, why)) << why;
  g.trans_b = 0;
  g.ldb = 4;
  EXPECT_FALSE(rt::cublasLtSupports(g, why));
  EXPECT_EQ(why, "cuBLASLt's int8 (IMMA) kernels take the \"TN\" form only: "
                 "trans_a 0 and trans_b 1 (A m x k and B n x k, k contiguous "
                 "in both), not trans_a 0 and trans_b 0");
  g = eightBitTn(3, 3, 4, 6);
  EXPECT_FALSE(rt::cublasLtSupports(g, why));
  EXPECT_EQ(why, "cuBLASLt's int8 (IMMA) kernels need k a multiple of 4, not "
                 "6 (n, k, lda, ldb, ldc and the batch strides multiples of "
                 "4)");
  g = eightBitTn(3, 3, 4, 8);
  g.ldc = 6;
  g.stride_c = 18;
  EXPECT_FALSE(rt::cublasLtSupports(g, why));
  EXPECT_TRUE(contains(why, "need ldc a multiple of 4, not 6")) << why;
  g = eightBitTn(17, 3, 16, 8);
  EXPECT_FALSE(rt::cublasLtSupports(g, why));
  EXPECT_TRUE(contains(why, "cuBLASLt's fp8 kernels need k a multiple of "
                            "16, not 8 (n, k, lda, ldb and the batch strides "
                            "of A and B multiples of 16, ldc and C's of 4: "
                            "16 bytes)"))
      << why;
  g = eightBitTn(17, 3, 16, 16);
  EXPECT_TRUE(rt::cublasLtSupports(g, why)) << why;
  EXPECT_TRUE(rt::cublasLtRunsOn(g, 89, why)) << why;
  EXPECT_FALSE(rt::cublasLtRunsOn(g, 80, why));
  EXPECT_EQ(why, "cuBLASLt's fp8 kernels need an SM 8.9 or newer device, and "
                 "this one is sm_80");

  // The fake refuses the same forms itself: an NN int8 GEMM built
  // directly, and fp8 on the default sm_80 device.
  refusalExpected = true;
  ASSERT_NO_FATAL_FAILURE(openLibrary());
  auto heuristic = [&](int transA, int scaleType, int compute, int abType,
                       int cdType, uint64_t rows) {
    lt::MatmulDesc desc = nullptr;
    lt::MatrixLayout a = nullptr, b = nullptr, c = nullptr;
    lt::Preference preference = nullptr;
    EXPECT_EQ(library.matmulDescCreate(&desc, compute, scaleType),
              lt::kSuccess);
    EXPECT_EQ(library.matmulDescSetAttribute(desc, lt::kDescTransA, &transA,
                                             sizeof(transA)),
              lt::kSuccess);
    EXPECT_EQ(library.matrixLayoutCreate(&a, abType, rows, rows, rows),
              lt::kSuccess);
    EXPECT_EQ(library.matrixLayoutCreate(&b, abType, rows, rows, rows),
              lt::kSuccess);
    EXPECT_EQ(library.matrixLayoutCreate(&c, cdType, rows, rows, rows),
              lt::kSuccess);
    EXPECT_EQ(library.preferenceCreate(&preference), lt::kSuccess);
    lt::HeuristicResult results[1] = {};
    int returned = 0;
    lt::Status status = library.algoGetHeuristic(
        handle, desc, a, b, c, c, preference, 1, results, &returned);
    library.preferenceDestroy(preference);
    for (lt::MatrixLayout layout : {a, b, c})
      library.matrixLayoutDestroy(layout);
    library.matmulDescDestroy(desc);
    return status;
  };
  constexpr lt::Status kNotSupported = 15;
  EXPECT_EQ(heuristic(1, lt::kDataInt32, lt::kComputeInt32, lt::kDataInt8,
                      lt::kDataInt32, 16),
            lt::kSuccess)
      << fakecu_cublaslt_last_error();
  EXPECT_EQ(heuristic(0, lt::kDataInt32, lt::kComputeInt32, lt::kDataInt8,
                      lt::kDataInt32, 16),
            kNotSupported);
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(),
                       "IMMA kernels in the form NN (only \"TN\""))
      << fakecu_cublaslt_last_error();
  EXPECT_EQ(heuristic(1, lt::kDataInt32, lt::kComputeInt32, lt::kDataInt8,
                      lt::kDataInt32, 6),
            kNotSupported);
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(),
                       "IMMA kernels with m 6, not a multiple of 4"))
      << fakecu_cublaslt_last_error();
  // int8 into int8 D, or int32 scales with float compute: not cuBLASLt's.
  EXPECT_EQ(heuristic(1, lt::kDataInt32, lt::kComputeInt32, lt::kDataInt8,
                      lt::kDataInt8, 16),
            kNotSupported);
  EXPECT_EQ(heuristic(1, lt::kDataFloat, lt::kComputeFloat,
                      lt::kDataFloat8E4M3, lt::kDataFloat, 16),
            kNotSupported);
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(),
                       "fp8 kernels need compute capability 8.9 or newer, "
                       "the device has 8.0"))
      << fakecu_cublaslt_last_error();
  fakecu_set_compute_capability(90);
  EXPECT_EQ(heuristic(1, lt::kDataFloat, lt::kComputeFloat,
                      lt::kDataFloat8E4M3, lt::kDataFloat, 16),
            lt::kSuccess)
      << fakecu_cublaslt_last_error();
}

TEST_F(FakeCublasLt, OneMatrixInPlaceNeedsNoBatchStride) {
  ASSERT_NO_FATAL_FAILURE(openLibrary());
  Device device;
  // D = A B + C with C = D: one matrix, so C's batch stride (0) and D's
  // (m * n) mean nothing, and cuBLASLt gets identical layouts for them.
  graphc_gemm_desc g = {0, 0, 2, 3, 2, 1, 2, 3, 3, 0, 0, 0, 1.0, 1.0,
                        GRAPHC_EPILOGUE_NONE, 1, 1, 0, 1, 2, -1, 3, 4};
  std::vector<float> a = {1, 2, 3, 4}, b = {1, 0, 2, 0, 1, 3},
                     c = {10, 20, 30, 40, 50, 60}, expected(6);
  gemmtest::naiveGemm(g, a.data(), b.data(), c.data(), nullptr,
                      expected.data());
  unsigned long long cd = device.upload(c);
  unsigned long long args[5] = {device.upload(a), device.upload(b), cd, cd, 0};
  std::unique_ptr<rt::CublasLtGemm> gemm;
  ASSERT_EQ(rt::CublasLtGemm::create(library, handle, g, 0, {}, gemm, error),
            GRAPHC_OK)
      << error;
  ASSERT_EQ(gemm->enqueue(args, 0, device.cuStream(), error), GRAPHC_OK)
      << error << "; fake: " << fakecu_cublaslt_last_error();
  EXPECT_EQ(download(cd, 6), expected);
}

// algo_rank picks among the heuristic's answers; a rank the library does
// not offer runs its first choice.
TEST_F(FakeCublasLt, RunsTheAlgorithmOfTheTunedRank) {
  ASSERT_NO_FATAL_FAILURE(openLibrary());
  Device device;
  std::vector<float> a = {1, 2, 3, 4}, b = {1, 0, 2, 0, 1, 3}, expected(6);
  for (int32_t rank : {0, 1, 2, 7, 9}) {
    graphc_gemm_desc g = {0, 0, 2, 3, 2, 1, 2, 3, 3, 0, 0, 0, 1.0, 0.0,
                          GRAPHC_EPILOGUE_NONE, 1, 1, 0, 1, -1, -1, 2, 3,
                          rank};
    gemmtest::naiveGemm(g, a.data(), b.data(), nullptr, nullptr,
                        expected.data());
    unsigned long long d = device.upload(std::vector<float>(6, 0.0f));
    unsigned long long args[4] = {device.upload(a), device.upload(b), d, 0};
    std::unique_ptr<rt::CublasLtGemm> gemm;
    ASSERT_EQ(rt::CublasLtGemm::create(library, handle, g, 0, {}, gemm, error),
              GRAPHC_OK)
        << error;
    ASSERT_EQ(gemm->enqueue(args, 0, device.cuStream(), error), GRAPHC_OK)
        << error << "; fake: " << fakecu_cublaslt_last_error();
    EXPECT_EQ(download(d, 6), expected) << "rank " << rank;
    // The fake offers eight.
    EXPECT_EQ(fakecu_cublaslt_last_algorithm_rank(), rank < 8 ? rank : 0);
    EXPECT_EQ(gemm->algoRank(), rank < 8 ? rank : 0);
  }
}

// split_k splits the planned algorithm's K (SPLITK_NUM and the first
// reduction scheme cublasLtMatmulAlgoCheck accepts within the workspace):
// the same GEMM, summed in parts. Values that are small integers make
// every order of summation exact, so the results must be equal. A split
// cuBLASLt refuses (more parts than K) runs unsplit.
TEST_F(FakeCublasLt, SplitKComputesWhatTheUnsplitGemmComputes) {
  ASSERT_NO_FATAL_FAILURE(openLibrary());
  Device device;
  const int64_t m = 3, n = 5, k = 16;
  std::vector<float> a(m * k), b(k * n), bias(n);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = float(int(i % 7) - 3);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = float(int(i % 5) - 2);
  for (size_t i = 0; i < bias.size(); ++i)
    bias[i] = float(i);
  // D = relu(A B + bias); arguments A, B, bias, D, workspace.
  graphc_gemm_desc g = {
      0, 0, m, n, k,  1, k, n, 0, 0, 0, 0, 1.0, 0.0, GRAPHC_EPILOGUE_RELU,
      1, 1, 0, 1, -1, 2, 3, 4, 1};
  std::vector<float> expected(m * n);
  gemmtest::naiveGemm(g, a.data(), b.data(), nullptr, bias.data(),
                      expected.data());
  const struct {
    int32_t parts;
    uint64_t workspace;
    int32_t planned;
  } cases[] = {{0, 4096, 0},
               {2, 4096, 2},
               {4, 4096, 4},
               // No room for partial sums: reduced in place.
               {8, 0, 8},
               {16, 4096, 16},
               // More parts than K has elements.
               {32, 4096, 0}};
  for (const auto &c : cases) {
    SCOPED_TRACE("split_k " + std::to_string(c.parts) + ", workspace " +
                 std::to_string(c.workspace));
    graphc_gemm_desc split = g;
    split.split_k = c.parts;
    unsigned long long d = device.upload(std::vector<float>(m * n, -7));
    unsigned long long args[5] = {
        device.upload(a), device.upload(b), device.upload(bias), d,
        c.workspace ? device.upload(std::vector<float>(c.workspace / 4)) : 0};
    std::unique_ptr<rt::CublasLtGemm> gemm;
    ASSERT_EQ(rt::CublasLtGemm::create(library, handle, split, c.workspace, {},
                                       gemm, error),
              GRAPHC_OK)
        << error;
    EXPECT_EQ(gemm->splitK(), c.planned);
    EXPECT_EQ(gemm->algoRank(), 1);
    // 1 x 1 tiles of 64 x 64 on 108 SMs, times the parts.
    EXPECT_FLOAT_EQ(gemm->waves(), std::max(c.planned, 1) / 108.0f);
    EXPECT_FALSE(gemm->offeredSplitK());
    ASSERT_EQ(gemm->enqueue(args, c.workspace, device.cuStream(), error),
              GRAPHC_OK)
        << error << "; fake: " << fakecu_cublaslt_last_error();
    EXPECT_EQ(fakecu_cublaslt_last_split_k(), c.planned);
    EXPECT_EQ(download(d, m * n), expected);
  }
  // The refused split was refused by cublasLtMatmulAlgoCheck, once per
  // reduction scheme.
  refusalExpected = true;
}

TEST_F(FakeCublasLt, PointersLessAlignedThanAssumedAreRefused) {
  ASSERT_NO_FATAL_FAILURE(openLibrary());
  Device device;
  graphc_gemm_desc g = {
      0, 0, 2, 2, 2,  1,  2, 2, 0, 0, 0, 0, 1.0, 0.0, GRAPHC_EPILOGUE_NONE,
      1, 1, 0, 1, -1, -1, 2, 3};
  std::unique_ptr<rt::CublasLtGemm> gemm;
  ASSERT_EQ(rt::CublasLtGemm::create(library, handle, g, 0, {}, gemm, error),
            GRAPHC_OK)
      << error;
  unsigned long long args[4] = {device.upload(std::vector<float>(4), 8),
                                device.upload(std::vector<float>(4)),
                                device.upload(std::vector<float>(4)), 0};
  EXPECT_EQ(gemm->enqueue(args, 0, device.cuStream(), error),
            GRAPHC_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(error, "the GEMM's A at 0x")) << error;
  EXPECT_TRUE(contains(error, "is not 256-byte aligned, as its cuBLASLt "
                              "algorithm needs"))
      << error;
  EXPECT_EQ(fakecu_calls("cublasLtMatmul"), 0);
}

TEST_F(FakeCublasLt, TheFakeKeepsCublasLtsRules) {
  refusalExpected = true;
  lt::Library L;
  std::string error;
  ASSERT_TRUE(lt::loadLibrary(fakeCudaLibrary(), L, error)) << error;
  lt::Handle handle = nullptr;
  ASSERT_EQ(L.create(&handle), lt::kSuccess);
  Device device;
  constexpr lt::Status kInvalid = 7, kNotSupported = 15;
  // D (2x3, column-major) = A (2x2) B (2x3), all CUDA_R_32F.
  lt::MatmulDesc desc = nullptr;
  ASSERT_EQ(L.matmulDescCreate(&desc, lt::kComputeFloat, lt::kDataFloat), 0);
  lt::MatrixLayout a = nullptr, b = nullptr, d = nullptr, wide = nullptr;
  ASSERT_EQ(L.matrixLayoutCreate(&a, lt::kDataFloat, 2, 2, 2), 0);
  ASSERT_EQ(L.matrixLayoutCreate(&b, lt::kDataFloat, 2, 3, 2), 0);
  ASSERT_EQ(L.matrixLayoutCreate(&d, lt::kDataFloat, 2, 3, 2), 0);
  ASSERT_EQ(L.matrixLayoutCreate(&wide, lt::kDataFloat, 3, 3, 3), 0);
  lt::Preference preference = nullptr;
  ASSERT_EQ(L.preferenceCreate(&preference), 0);
  uint64_t workspaceBytes = 64;
  ASSERT_EQ(L.preferenceSetAttribute(preference, lt::kPrefMaxWorkspaceBytes,
                                     &workspaceBytes, 8),
            0);
  lt::HeuristicResult result{};
  int returned = 0;
  auto heuristic = [&](lt::MatrixLayout bLayout) {
    return L.algoGetHeuristic(handle, desc, a, bLayout, d, d, preference, 1,
                              &result, &returned);
  };

  // Attributes take exactly their type's bytes; unknown ones are refused.
  int64_t eight = 1;
  EXPECT_EQ(L.matmulDescSetAttribute(desc, lt::kDescTransA, &eight, 8),
            kInvalid);
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(), "takes 4 bytes, got 8"));
  int32_t value = 1;
  EXPECT_EQ(L.matmulDescSetAttribute(desc, 99, &value, 4), kInvalid);
  // Inconsistent shapes, ld < rows, differing batch counts.
  EXPECT_EQ(heuristic(wide), kInvalid);
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(), "op(A) is 2 x 2, op(B) 3"))
      << fakecu_cublaslt_last_error();
  lt::MatrixLayout shortLd = nullptr;
  ASSERT_EQ(L.matrixLayoutCreate(&shortLd, lt::kDataFloat, 2, 3, 1), 0);
  EXPECT_EQ(heuristic(shortLd), kInvalid);
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(), "ld 1 < 2 rows"));
  int32_t two = 2;
  ASSERT_EQ(L.matrixLayoutSetAttribute(b, lt::kLayoutBatchCount, &two, 4), 0);
  EXPECT_EQ(heuristic(b), kInvalid);
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(), "batch counts"));
  int32_t one = 1;
  ASSERT_EQ(L.matrixLayoutSetAttribute(b, lt::kLayoutBatchCount, &one, 4), 0);

  ASSERT_EQ(heuristic(b), lt::kSuccess) << fakecu_cublaslt_last_error();
  ASSERT_EQ(returned, 1);
  EXPECT_EQ(result.workspaceSize, 64u);
  // Column-major: A = [1 3; 2 4], B = [1 0 2; 0 1 3] (rows listed).
  unsigned long long pa = device.upload({1, 2, 3, 4});
  unsigned long long pb = device.upload({1, 0, 0, 1, 2, 3});
  unsigned long long pd = device.upload(std::vector<float>(6, -1));
  unsigned long long pw = device.upload(std::vector<float>(16));
  float alpha = 1, beta = 0;
  auto matmul = [&](const void *A, const void *D, const lt::MatmulAlgo *algo,
                    unsigned long long workspace, size_t bytes) {
    return L.matmul(handle, desc, &alpha, A, a, reinterpret_cast<void *>(pb), b,
                    &beta, D, d, const_cast<void *>(D), d, algo,
                    reinterpret_cast<void *>(workspace), bytes,
                    device.cuStream());
  };
  const void *A = reinterpret_cast<void *>(pa),
             *D = reinterpret_cast<void *>(pd);
  lt::MatmulAlgo forged{};
  EXPECT_EQ(matmul(A, D, &forged, pw, 64), kInvalid);
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(),
                       "an algorithm the heuristic did not return"));
  EXPECT_EQ(matmul(A, D, &result.algo, pw, 32), kInvalid);
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(), "the algorithm needs 64"));
  EXPECT_EQ(matmul(nullptr, D, &result.algo, pw, 64), kInvalid);
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(), "a null matrix pointer"));
  alignas(256) float host[4] = {1, 2, 3, 4};
  EXPECT_EQ(matmul(host, D, &result.algo, pw, 64), kInvalid);
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(), "A (16 bytes at 0x"));
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(),
                       "is not inside one device allocation"));
  unsigned long long shared = device.upload(std::vector<float>(12));
  EXPECT_EQ(matmul(reinterpret_cast<void *>(shared),
                   reinterpret_cast<void *>(shared), &result.algo, pw, 64),
            kInvalid);
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(), "D overlaps A"));
  // The heuristic assumed 256-byte alignment.
  unsigned long long offset = device.upload({1, 2, 3, 4}, 16);
  EXPECT_EQ(matmul(reinterpret_cast<void *>(offset), D, &result.algo, pw, 64),
            kNotSupported);
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(), "less aligned than"));

  ASSERT_EQ(matmul(A, D, &result.algo, pw, 64), lt::kSuccess)
      << fakecu_cublaslt_last_error();
  // D = A B column by column: [1 3 11; 2 4 16] (rows listed).
  EXPECT_EQ(download(pd, 6), (std::vector<float>{1, 2, 3, 4, 11, 16}));

  // An algorithm is bound to its problem: a BIAS epilogue set afterwards
  // needs a new one, and a bias pointer with it.
  uint32_t epilogue = lt::kEpilogueBias;
  ASSERT_EQ(L.matmulDescSetAttribute(desc, lt::kDescEpilogue, &epilogue, 4), 0);
  EXPECT_EQ(matmul(A, D, &result.algo, pw, 64), kInvalid);
  EXPECT_TRUE(
      contains(fakecu_cublaslt_last_error(), "found for another problem"));
  ASSERT_EQ(heuristic(b), lt::kSuccess);
  EXPECT_EQ(matmul(A, D, &result.algo, pw, 64), kInvalid);
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(),
                       "without CUBLASLT_MATMUL_DESC_BIAS_POINTER"));
  unsigned long long bias = device.upload({10, 20});
  const void *biasPointer = reinterpret_cast<void *>(bias);
  ASSERT_EQ(L.matmulDescSetAttribute(desc, lt::kDescBiasPointer, &biasPointer,
                                     sizeof(biasPointer)),
            0);
  ASSERT_EQ(matmul(A, D, &result.algo, pw, 64), lt::kSuccess)
      << fakecu_cublaslt_last_error();
  // One bias element per row of D.
  EXPECT_EQ(download(pd, 6), (std::vector<float>{11, 22, 13, 24, 21, 36}));

  for (lt::MatrixLayout layout : {a, b, d, wide, shortLd})
    EXPECT_EQ(L.matrixLayoutDestroy(layout), 0);
  EXPECT_EQ(L.preferenceDestroy(preference), 0);
  EXPECT_EQ(L.matmulDescDestroy(desc), 0);
  EXPECT_EQ(L.destroy(handle), lt::kSuccess);
  EXPECT_EQ(L.destroy(handle), 1); // no longer a handle
}

//===- gemm_model through sessions ----------------------------------------===//

/// A session of gemm_model_cuda (or its library-only variant) with device
/// buffers for x, c, y and h2.
struct GemmBench {
  GemmBench(graphc_model *model, uint32_t flags) {
    graphc_session_options options;
    graphc_session_options_init(&options);
    options.flags = flags;
    Status status(graphc_session_create(model, &options, &session));
    EXPECT_TRUE(status.ok()) << status.message();
    if (!session)
      return;
    EXPECT_GRAPHC_OK(graphc_session_allocate_buffer(session, 96, &x));
    EXPECT_GRAPHC_OK(graphc_session_allocate_buffer(session, 80, &c));
    EXPECT_GRAPHC_OK(graphc_session_allocate_buffer(session, 80, &y));
    EXPECT_GRAPHC_OK(graphc_session_allocate_buffer(session, 120, &h2));
  }
  ~GemmBench() {
    if (!session)
      return;
    for (void *buffer : {x, c, y, h2})
      graphc_session_free_buffer(session, buffer);
    graphc_session_release(session);
  }

  DLTensor tensor(void *data, int64_t *shape) {
    DLTensor t{};
    t.data = data;
    t.device = {kDLCUDA, 0};
    t.ndim = 3;
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape;
    return t;
  }

  /// Uploads random x and c, runs (on `stream` when `onStream`), and
  /// checks y and h2 against gemm_model's definition.
  void runAndCheck(std::mt19937 &rng, float scale = 2, bool onStream = false,
                   void *stream = nullptr) {
    std::vector<float> xs = random(24, rng), cs = random(20, rng);
    ASSERT_GRAPHC_OK(graphc_session_upload(session, x, xs.data(), 96));
    ASSERT_GRAPHC_OK(graphc_session_upload(session, c, cs.data(), 80));
    DLTensor inputs[2] = {tensor(x, xShape), tensor(c, cShape)};
    DLTensor outputs[2] = {tensor(y, cShape), tensor(h2, h2Shape)};
    if (onStream) {
      ASSERT_GRAPHC_OK(graphc_session_run_on_stream(session, inputs, 2, nullptr,
                                                    outputs, 2, stream));
      ASSERT_GRAPHC_OK(graphc_session_synchronize(session));
    } else {
      ASSERT_GRAPHC_OK(
          graphc_session_run(session, inputs, 2, nullptr, outputs, 2));
    }
    std::vector<float> ys(20), h2s(30);
    ASSERT_GRAPHC_OK(graphc_session_download(session, ys.data(), y, 80));
    ASSERT_GRAPHC_OK(graphc_session_download(session, h2s.data(), h2, 120));
    gemmtest::GemmModelOutputs expected =
        gemmtest::gemmModelExpected(xs, cs, scale);
    EXPECT_TRUE(gemmtest::near(ys, expected.y));
    EXPECT_TRUE(gemmtest::near(h2s, expected.h2));
  }

  graphc_session *session = nullptr;
  void *x = nullptr, *c = nullptr, *y = nullptr, *h2 = nullptr;
  int64_t xShape[3] = {2, 3, 4}, cShape[3] = {2, 5, 2}, h2Shape[3] = {2, 3, 5};
};

TEST_F(FakeCublasLt, CapturesLibraryCallsWithLaunchesAndReplaysThem) {
  graphc_model *model = loadModel("gemm_model_cuda");
  ASSERT_NE(model, nullptr);
  {
    GemmBench bench(model, 0);
    ASSERT_NE(bench.session, nullptr);
    // One algorithm per library kernel, chosen at session creation.
    EXPECT_EQ(fakecu_calls("cublasLtMatmulAlgoGetHeuristic"), 2);
    std::mt19937 rng(21);
    for (int run = 0; run < 3; ++run) {
      SCOPED_TRACE("run " + std::to_string(run));
      size_t before = traceLines().size();
      bench.runAndCheck(rng);
      // The graph replays the launch and the three matmuls in step order,
      // all on the session's stream (no kernel reports to the error
      // record, so nothing copies it back).
      std::vector<std::string> replay;
      for (const std::string &line : traceSince(before))
        if (line.rfind("replay: ", 0) == 0)
          replay.push_back(line.substr(0, line.rfind(' ')));
      EXPECT_EQ(replay,
                (std::vector<std::string>{
                    "replay: launch gemm_model_scale", "replay: cublasLtMatmul",
                    "replay: cublasLtMatmul", "replay: cublasLtMatmul"}))
          << fakecu_trace();
    }
    // The staging graph at the first run, the graph bound to the repeated
    // buffers at the second; replays call nothing.
    EXPECT_EQ(fakecu_calls("cuStreamBeginCapture"), 2);
    EXPECT_EQ(fakecu_calls("cublasLtMatmul"), 6);
    EXPECT_EQ(fakecu_calls("cublasLtMatmulAlgoGetHeuristic"), 2);
  }
  // The session's handle and GEMMs are released with it.
  EXPECT_EQ(fakecu_calls("cublasLtDestroy"), 1);
  EXPECT_EQ(fakecu_calls("cublasLtMatmulDescDestroy"), 2);
  graphc_model_release(model);
}

// graphc_session_library_kernel_info: cuBLASLt computes each library
// kernel whole, with the algorithm of the artifact's rank; the generated
// kernel is no library's.
TEST_F(FakeCublasLt, SessionsSayWhatCublasLtPlanned) {
  graphc_model *model = loadModel("gemm_model_cuda");
  ASSERT_NE(model, nullptr);
  auto bench = std::make_unique<GemmBench>(model, 0);
  ASSERT_NE(bench->session, nullptr);
  graphc_library_kernel_info info;
  ASSERT_GRAPHC_OK(graphc_session_library_kernel_info(bench->session, 0, &info));
  EXPECT_EQ(info.library, GRAPHC_LIBRARY_NONE);
  EXPECT_EQ(info.fused, -1);
  for (int32_t kernel : {1, 2}) {
    SCOPED_TRACE("kernel " + std::to_string(kernel));
    ASSERT_GRAPHC_OK(
        graphc_session_library_kernel_info(bench->session, kernel, &info));
    EXPECT_EQ(info.library, GRAPHC_LIBRARY_CUBLASLT);
    EXPECT_EQ(info.fused, 1);
    EXPECT_EQ(info.rank, 0);
    EXPECT_EQ(info.requested_rank, 0);
  }
  Status outside(graphc_session_library_kernel_info(bench->session, 3, &info));
  EXPECT_EQ(outside.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_NE(outside.message().find("the model has 3 kernels"), std::string::npos)
      << outside.message();
  Status none(graphc_session_library_kernel_info(bench->session, 1, nullptr));
  EXPECT_EQ(none.code(), GRAPHC_INVALID_ARGUMENT);
  bench.reset();
  graphc_model_release(model);
}

// GRAPHC_SESSION_TIME_LIBRARY_ALGORITHMS times the first
// GRAPHC_LIBRARY_TIMING_RANKS algorithms of each untuned GEMM and keeps the
// fastest: the fake makes all but one rank 1 ms slower on its clock. The
// session then runs that rank, computes the same, and says so; without
// the option the heuristic's first choice runs.
TEST_F(FakeCublasLt, TimingAtCreationPicksTheFastestAlgorithm) {
  graphc_model *model = loadModel("gemm_model_cuda");
  ASSERT_NE(model, nullptr);
  std::mt19937 rng(8);
  for (int32_t fastest : {2, 0, 3}) {
    SCOPED_TRACE("fastest rank " + std::to_string(fastest));
    fakecu_reset();
    fakecu_cublaslt_set_fastest(fastest, 0);
    auto bench = std::make_unique<GemmBench>(
        model, GRAPHC_SESSION_TIME_LIBRARY_ALGORITHMS);
    ASSERT_NE(bench->session, nullptr);
    for (int32_t kernel : {1, 2}) {
      graphc_library_kernel_info info;
      ASSERT_GRAPHC_OK(
          graphc_session_library_kernel_info(bench->session, kernel, &info));
      EXPECT_EQ(info.rank, fastest) << "kernel " << kernel;
      EXPECT_EQ(info.requested_rank, 0);
    }
    // Four candidates per kernel, then the winner built again where it is
    // not the first choice already built.
    EXPECT_EQ(fakecu_calls("cublasLtMatmulAlgoGetHeuristic"),
              2 * (1 + GRAPHC_LIBRARY_TIMING_RANKS + (fastest != 0)));
    size_t before = traceLines().size();
    bench->runAndCheck(rng);
    EXPECT_EQ(fakecu_cublaslt_last_algorithm_rank(), fastest);
    // The timing ran on the session's own memory, before the run: the
    // run's graph holds the three matmuls alone.
    int matmuls = 0;
    for (const std::string &line : traceSince(before))
      matmuls += line.rfind("replay: cublasLtMatmul", 0) == 0;
    EXPECT_EQ(matmuls, 3);
    bench.reset();
  }
  // Without the option (and without GRAPHC_TIME_LIBRARY_ALGORITHMS), the
  // heuristic's first choice, untimed.
  fakecu_reset();
  fakecu_cublaslt_set_fastest(2, 0);
  {
    GemmBench bench(model, 0);
    ASSERT_NE(bench.session, nullptr);
    graphc_library_kernel_info info;
    ASSERT_GRAPHC_OK(
        graphc_session_library_kernel_info(bench.session, 1, &info));
    EXPECT_EQ(info.rank, 0);
    EXPECT_EQ(fakecu_calls("cublasLtMatmul"), 0);
  }
  // The environment variable sets the option for every session.
  fakecu_reset();
  fakecu_cublaslt_set_fastest(1, 0);
  setenv("GRAPHC_TIME_LIBRARY_ALGORITHMS", "1", 1);
  {
    GemmBench bench(model, 0);
    ASSERT_NE(bench.session, nullptr);
    graphc_library_kernel_info info;
    ASSERT_GRAPHC_OK(
        graphc_session_library_kernel_info(bench.session, 2, &info));
    EXPECT_EQ(info.rank, 1);
  }
  unsetenv("GRAPHC_TIME_LIBRARY_ALGORITHMS");
  graphc_model_release(model);
}

// A tuned GEMM (a tuning database's algorithm and split, marked tuned in
// the artifact) keeps its choice when the session times the others; both
// compute what gemm_model defines.
TEST_F(FakeCublasLt, TimingAtCreationKeepsTunedChoices) {
  graphc_model *model = loadModel("gemm_model_cuda_tuned");
  ASSERT_NE(model, nullptr);
  fakecu_cublaslt_set_fastest(2, 0);
  auto bench = std::make_unique<GemmBench>(
      model, GRAPHC_SESSION_TIME_LIBRARY_ALGORITHMS);
  ASSERT_NE(bench->session, nullptr);
  graphc_library_kernel_info info;
  ASSERT_GRAPHC_OK(graphc_session_library_kernel_info(bench->session, 1, &info));
  EXPECT_EQ(info.rank, 2);
  EXPECT_EQ(info.requested_rank, 0);
  ASSERT_GRAPHC_OK(graphc_session_library_kernel_info(bench->session, 2, &info));
  EXPECT_EQ(info.rank, 6);
  EXPECT_EQ(info.requested_rank, 6);
  // Only the untuned kernel's four candidates were timed.
  EXPECT_EQ(fakecu_calls("cublasLtMatmulAlgoGetHeuristic"),
            2 + GRAPHC_LIBRARY_TIMING_RANKS + 1);
  std::mt19937 rng(6);
  bench->runAndCheck(rng);
  // gelu_c runs last, as tuned: rank 6, K (3) split in 2.
  EXPECT_EQ(fakecu_cublaslt_last_algorithm_rank(), 6);
  EXPECT_EQ(fakecu_cublaslt_last_split_k(), 2);
  bench.reset();
  graphc_model_release(model);
}

// graphc_session_time_library_kernel: every algorithm the heuristic offers
// (eight in the fake), in rank order, each timed; the planted fastest is
// the fastest. gemm_model's K is too shallow to split. Its arguments are
// checked.
TEST_F(FakeCublasLt, ToolsTimeEveryAlgorithmOfAKernel) {
  graphc_model *model = loadModel("gemm_model_cuda");
  ASSERT_NE(model, nullptr);
  fakecu_cublaslt_set_fastest(6, 0);
  auto bench = std::make_unique<GemmBench>(model, 0);
  ASSERT_NE(bench->session, nullptr);
  graphc_library_candidate candidates[GRAPHC_MAX_ALGO_RANKS * 5];
  int32_t count = 0;
  ASSERT_GRAPHC_OK(graphc_session_time_library_kernel(
      bench->session, 1, GRAPHC_MAX_ALGO_RANKS, 1, 1, 3, candidates,
      GRAPHC_MAX_ALGO_RANKS * 5, &count));
  ASSERT_EQ(count, 8);
  int32_t fastest = 0;
  for (int32_t c = 0; c < count; ++c) {
    EXPECT_EQ(candidates[c].rank, c);
    EXPECT_EQ(candidates[c].split_k, 0);
    if (candidates[c].micros < candidates[fastest].micros)
      fastest = c;
  }
  EXPECT_EQ(fastest, 6);
  // Capped by max_ranks; the count alone with no room.
  ASSERT_GRAPHC_OK(graphc_session_time_library_kernel(
      bench->session, 2, 3, 0, 0, 1, nullptr, 0, &count));
  EXPECT_EQ(count, 3);
  // The session still runs its own plan, the heuristic's first choice.
  std::mt19937 rng(4);
  bench->runAndCheck(rng);
  EXPECT_EQ(fakecu_cublaslt_last_algorithm_rank(), 0);
  Status generated(graphc_session_time_library_kernel(
      bench->session, 0, 4, 0, 0, 1, nullptr, 0, &count));
  EXPECT_EQ(generated.code(), GRAPHC_INVALID_ARGUMENT);
  Status outside(graphc_session_time_library_kernel(bench->session, 3, 4, 0, 0,
                                                    1, nullptr, 0, &count));
  EXPECT_EQ(outside.code(), GRAPHC_INVALID_ARGUMENT);
  Status noCount(graphc_session_time_library_kernel(bench->session, 1, 4, 0, 0,
                                                    1, nullptr, 0, nullptr));
  EXPECT_EQ(noCount.code(), GRAPHC_INVALID_ARGUMENT);
  bench.reset();
  graphc_model_release(model);
}

TEST_F(FakeCublasLt, EveryWayOfRunningAgrees) {
  graphc_model *model = loadModel("gemm_model_cuda");
  ASSERT_NE(model, nullptr);
  std::mt19937 rng(3);
  for (uint32_t flags : {unsigned(GRAPHC_SESSION_EAGER_CAPTURE),
                         unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS),
                         unsigned(GRAPHC_SESSION_DEBUG_SYNC)}) {
    SCOPED_TRACE("flags " + std::to_string(flags));
    fakecu_reset();
    GemmBench bench(model, flags);
    ASSERT_NE(bench.session, nullptr);
    bench.runAndCheck(rng);
    bench.runAndCheck(rng);
    // Without graphs every run queues its matmuls itself; with them, the
    // staging graph captured at creation and the graph bound to the
    // repeated buffers at the second run queue them once each.
    EXPECT_EQ(fakecu_calls("cublasLtMatmul"), 6);
  }
  graphc_model_release(model);
}

TEST_F(FakeCublasLt, RunsOnACallersStream) {
  graphc_model *model = loadModel("gemm_model_cuda");
  ASSERT_NE(model, nullptr);
  {
    void *context = nullptr, *stream = nullptr;
    cuDevicePrimaryCtxRetain(&context, 0);
    cuCtxPushCurrent_v2(context);
    cuStreamCreate(&stream, 0);
    {
      GemmBench bench(model, 0);
      ASSERT_NE(bench.session, nullptr);
      std::mt19937 rng(4);
      bench.runAndCheck(rng, 2, true, stream);
      bench.runAndCheck(rng, 2, true, stream);
    }
    cuStreamDestroy_v2(stream);
    void *popped = nullptr;
    cuCtxPopCurrent_v2(&popped);
    cuDevicePrimaryCtxRelease_v2(0);
  }
  graphc_model_release(model);
}

TEST_F(FakeCublasLt, RunsAModelOfLibraryStepsOnly) {
  graphc_model *model = loadModel("gemm_model_cuda_library_only");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(graphc_model_image_count(model), 0);
  for (uint32_t flags : {0u, unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)}) {
    SCOPED_TRACE("flags " + std::to_string(flags));
    GemmBench bench(model, flags);
    ASSERT_NE(bench.session, nullptr);
    std::mt19937 rng(6);
    bench.runAndCheck(rng, 1);
    bench.runAndCheck(rng, 1);
  }
  EXPECT_EQ(fakecu_calls("cuModuleLoadData"), 0);
  graphc_model_release(model);
}

//===- Failures -----------------------------------------------------------===//

/// Sets GRAPHC_CUBLASLT_LIBRARY for the scope.
struct CublasLtPath {
  explicit CublasLtPath(const std::string &path) {
    setenv("GRAPHC_CUBLASLT_LIBRARY", path.c_str(), 1);
  }
  ~CublasLtPath() { setenv("GRAPHC_CUBLASLT_LIBRARY", fakeCudaLibrary(), 1); }
};

TEST_F(FakeCublasLt, AMissingLibraryIsAStatusAtLoad) {
  CublasLtPath missing("/nonexistent/libcublasLt.so.13");
  graphc_model_options options;
  graphc_model_options_init(&options);
  options.flags = GRAPHC_MODEL_SKIP_CHECKSUM;
  graphc_model *model = nullptr;
  std::string path = modelPath("gemm_model_cuda");
  Status status(graphc_model_load(path.c_str(), &options, &model));
  EXPECT_EQ(status.code(), GRAPHC_UNAVAILABLE);
  EXPECT_EQ(model, nullptr);
  std::string expected =
      "model '" + path +
      "' kernel 'gemm_relu_bias' (ONNX nodes MatMul_1,Add_2,Relu_3) calls "
      "cuBLASLt: cannot open /nonexistent/libcublasLt.so.13 (";
  EXPECT_EQ(status.message().substr(0, expected.size()), expected)
      << status.message();
  // A model without library kernels never opens it.
  model = loadModel("fake_cuda_model");
  EXPECT_NE(model, nullptr);
  graphc_model_release(model);
  // Nor does inspecting one that has them.
  options.flags |= GRAPHC_MODEL_INSPECT_ONLY;
  EXPECT_GRAPHC_OK(graphc_model_load(path.c_str(), &options, &model));
  graphc_model_release(model);
}

TEST_F(FakeCublasLt, ALibraryThatIsNotCublasLtIsAStatusAtLoad) {
  std::string other = modelPath("fake_cuda_model");
  CublasLtPath notCublasLt(other);
  graphc_model_options options;
  graphc_model_options_init(&options);
  options.flags = GRAPHC_MODEL_SKIP_CHECKSUM;
  graphc_model *model = nullptr;
  Status status(graphc_model_load(modelPath("gemm_model_cuda").c_str(),
                                  &options, &model));
  EXPECT_EQ(status.code(), GRAPHC_UNAVAILABLE);
  EXPECT_TRUE(contains(status.message(),
                       "calls cuBLASLt: " + other +
                           " lacks cublasLtCreate (not cuBLASLt, or too old)"))
      << status.message();
}

TEST_F(FakeCublasLt, NoAlgorithmIsAStatusNamingTheKernel) {
  refusalExpected = true;
  graphc_model *model = loadModel("gemm_model_cuda");
  ASSERT_NE(model, nullptr);
  graphc_session *session = nullptr;
  fakecu_cublaslt_fail_heuristic(1);
  Status failed(graphc_session_create(model, nullptr, &session));
  EXPECT_EQ(failed.code(), GRAPHC_FAILED_PRECONDITION);
  EXPECT_EQ(session, nullptr);
  EXPECT_TRUE(contains(failed.message(),
                       "cannot run kernel 'gemm_relu_bias' (ONNX nodes "
                       "MatMul_1,Add_2,Relu_3) on cuBLASLt on cuda:0 for "
                       "model '"))
      << failed.message();
  EXPECT_TRUE(contains(failed.message(),
                       "cublasLtMatmulAlgoGetHeuristic returned "
                       "CUBLAS_STATUS_NOT_SUPPORTED (the functionality "
                       "requested is not supported) (m 3, n 5, k 4, batch 2, "
                       "4096-byte workspace)"))
      << failed.message();
  fakecu_cublaslt_fail_heuristic(0);

  // The steps give the GEMMs 4096 bytes of workspace: an algorithm that
  // needs all of it is found and gets it, one that needs more is not.
  fakecu_cublaslt_require_workspace(4096);
  {
    GemmBench bench(model, 0);
    ASSERT_NE(bench.session, nullptr);
    std::mt19937 rng(8);
    bench.runAndCheck(rng);
  }
  fakecu_cublaslt_require_workspace(4097);
  Status tooSmall(graphc_session_create(model, nullptr, &session));
  EXPECT_EQ(tooSmall.code(), GRAPHC_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(fakecu_cublaslt_last_error(),
                       "no algorithm within 4096 bytes of workspace"))
      << fakecu_cublaslt_last_error();
  graphc_model_release(model);
}

// SiLU is a convolution epilogue: a GEMM record with it (which the load-time
// check refuses first) is refused here too, by name, not as unknown.
TEST(CublasLtGemm, RefusesTheConvolutionsSiluEpilogue) {
  graphc_gemm_desc gemm{};
  gemm.m = gemm.n = gemm.k = gemm.lda = gemm.ldb = 2;
  gemm.batch = 1;
  gemm.alpha = 1.0;
  gemm.epilogue = GRAPHC_EPILOGUE_SILU;
  gemm.dtype = gemm.compute_dtype = 1;
  std::string error;
  EXPECT_FALSE(rt::cublasLtSupports(gemm, error));
  EXPECT_EQ(error, "cuBLASLt has no SiLU epilogue (a convolution's alone)");
  gemm.epilogue = GRAPHC_EPILOGUE_GELU_TANH;
  EXPECT_TRUE(rt::cublasLtSupports(gemm, error)) << error;
  // The erf GELU, cuDNN's GELU_FWD, likewise.
  gemm.epilogue = GRAPHC_EPILOGUE_GELU_ERF;
  EXPECT_FALSE(rt::cublasLtSupports(gemm, error));
  EXPECT_EQ(error, "cuBLASLt has no erf GELU epilogue (its GELU is the tanh "
                   "form; the erf form is a convolution's alone)");
  gemm.epilogue = 5;
  EXPECT_FALSE(rt::cublasLtSupports(gemm, error));
  EXPECT_EQ(error, "unknown GEMM epilogue 5");
}

} // namespace
