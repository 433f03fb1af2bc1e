//===- CudaFakeCudnnSdpaTest.cpp - attention steps on the fake cuDNN ------===//
//
// CudnnSdpa against the fake cuDNN (which computes the attention graph
// operation by operation from the backend descriptors): Q, K and V as
// strided parts of one packed projection at offsets, O stored as the head
// merge, additive biases broadcast over batch, heads or queries, causal
// masks, grouped K/V heads, float16 and bfloat16, checked against plain
// loops here; the fallback when the fake (as cuDNN without an engine for
// the shape) refuses, by switch or because the head dim is not one the
// flash engine takes; pointers less aligned than the plan declares.
//
//===----------------------------------------------------------------------===//
#include "FakeCudaTestSupport.h"
#include "GemmTestSupport.h"

#include "lib/Support/Float16.h"
#include "runtime/src/Cudnn.h"
#include "runtime/src/CudnnSdpa.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace fakecutest;
namespace rt = graphc::rt;
namespace dnn = graphc::rt::dnn;

constexpr int32_t kF32 = 1, kF16 = 10, kBf16 = 16;

class FakeCudnnSdpa : public ::testing::Test {
protected:
  void SetUp() override { fakecu_reset(); }
  void TearDown() override {
    if (handle)
      EXPECT_EQ(library.destroy(handle), dnn::kSuccess);
    EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
    if (!refusalExpected)
      EXPECT_STREQ(fakecu_cudnn_last_error(), "");
  }
  void openLibrary(const Device &device) {
    ASSERT_TRUE(dnn::loadLibrary(fakeCudaLibrary(), library, error)) << error;
    ASSERT_EQ(library.create(&handle), dnn::kSuccess);
    ASSERT_EQ(library.setStream(handle, device.cuStream()), dnn::kSuccess);
  }
  bool refusalExpected = false;
  dnn::Library library;
  dnn::Handle handle = nullptr;
  std::string error;
};

/// An attention problem laid out as the compiler lays out BERT's: Q, K and
/// V parts of one packed projection [B, S, 3, H, D] (K and V with `kvHeads`
/// heads after Q's), O the head merge [B, Sq, H, Dv]; the bias [B|1, H|1,
/// Sq|1, Skv] dense.
struct Problem {
  int64_t batch = 2, heads = 4, kvHeads = 4, queries = 5, keys = 5,
          headDim = 16;
  bool causal = false;
  /// Which dims of [B, H, Sq, Skv] the bias has (none: no bias).
  bool bias = false, biasBatch = true, biasHeads = false, biasQueries = false;
  int32_t dtype = kF16;
};

/// The record of `p`: the packed projection is argument 0, the bias 1 (or
/// O is 1 without one).
graphc_sdpa_desc describe(const Problem &p) {
  graphc_sdpa_desc d = {};
  d.batch = p.batch;
  d.heads = p.heads;
  d.kv_heads = p.kvHeads;
  d.queries = p.queries;
  d.keys = p.keys;
  d.head_dim = p.headDim;
  d.value_dim = p.headDim;
  d.scale = 1.0 / std::sqrt(double(p.headDim));
  d.is_causal = p.causal;
  d.dtype = p.dtype;
  d.compute_dtype = kF32;
  // The packed row of one token: Q's heads, then K's, then V's.
  const int64_t row = (p.heads + 2 * p.kvHeads) * p.headDim;
  const int64_t seq = p.queries; // queries == keys here: one projection
  d.q_arg = d.k_arg = d.v_arg = 0;
  d.q_offset = 0;
  d.k_offset = p.heads * p.headDim;
  d.v_offset = (p.heads + p.kvHeads) * p.headDim;
  const int64_t strides[4] = {seq * row, p.headDim, row, 1};
  for (int i = 0; i < 4; ++i)
    d.q_strides[i] = d.k_strides[i] = d.v_strides[i] = strides[i];
  d.bias_arg = p.bias ? 1 : -1;
  d.o_arg = p.bias ? 2 : 1;
  d.workspace_arg = d.o_arg + 1;
  // O [B, Sq, H, Dv] seen as [B, H, Sq, Dv].
  d.o_strides[0] = p.queries * p.heads * p.headDim;
  d.o_strides[1] = p.headDim;
  d.o_strides[2] = p.heads * p.headDim;
  d.o_strides[3] = 1;
  if (p.bias) {
    int64_t dims[4] = {p.biasBatch ? p.batch : 1, p.biasHeads ? p.heads : 1,
                       p.biasQueries ? p.queries : 1, p.keys};
    int64_t stride = 1;
    for (int i = 3; i >= 0; --i) {
      d.bias_dims[i] = dims[i];
      d.bias_strides[i] = dims[i] == 1 ? 0 : stride;
      stride *= dims[i];
    }
  } else {
    for (int i = 0; i < 4; ++i)
      d.bias_dims[i] = 1;
  }
  for (int i = 0; i < 3; ++i)
    d.fallback_grid[i] = d.fallback_block[i] = 1;
  return d;
}

int64_t biasElements(const graphc_sdpa_desc &d) {
  return d.bias_arg < 0 ? 0
                        : d.bias_dims[0] * d.bias_dims[1] * d.bias_dims[2] *
                              d.bias_dims[3];
}

/// Values representable in `dtype`.
std::vector<float> random(size_t count, int32_t dtype, std::mt19937 &rng,
                          float range = 1.0f) {
  std::uniform_real_distribution<float> values(-range, range);
  std::vector<float> out(count);
  for (float &value : out) {
    value = values(rng);
    value = dtype == kF16 ? graphc::halfToFloat(graphc::floatToHalf(value))
                          : graphc::bf16ToFloat(graphc::floatToBf16(value));
  }
  return out;
}

std::vector<uint16_t> narrow(const std::vector<float> &values, int32_t dtype) {
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    bits[i] = dtype == kF16 ? graphc::floatToHalf(values[i])
                            : graphc::floatToBf16(values[i]);
  return bits;
}

/// softmax(scale Q K^T + bias, causal) V in double, O as [B, Sq, H, Dv].
std::vector<float> attend(const graphc_sdpa_desc &d,
                          const std::vector<float> &packed,
                          const std::vector<float> &bias) {
  std::vector<float> o(size_t(d.batch * d.queries * d.heads * d.value_dim));
  const int64_t group = d.heads / d.kv_heads;
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t h = 0; h < d.heads; ++h)
      for (int64_t i = 0; i < d.queries; ++i) {
        std::vector<double> scores(size_t(d.keys));
        double max = -INFINITY;
        for (int64_t j = 0; j < d.keys; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < d.head_dim; ++c)
            dot += double(packed[size_t(d.q_offset + b * d.q_strides[0] +
                                        h * d.q_strides[1] +
                                        i * d.q_strides[2] + c)]) *
                   packed[size_t(d.k_offset + b * d.k_strides[0] +
                                 (h / group) * d.k_strides[1] +
                                 j * d.k_strides[2] + c)];
          double s = d.scale * dot;
          if (d.bias_arg >= 0)
            s += bias[size_t((d.bias_dims[0] > 1 ? b : 0) * d.bias_strides[0] +
                             (d.bias_dims[1] > 1 ? h : 0) * d.bias_strides[1] +
                             (d.bias_dims[2] > 1 ? i : 0) * d.bias_strides[2] +
                             j * d.bias_strides[3])];
          if (d.is_causal && j > i)
            s = -INFINITY;
          scores[size_t(j)] = s;
          max = std::fmax(max, s);
        }
        double sum = 0;
        for (double &s : scores)
          sum += (s = std::exp(s - max));
        for (int64_t c = 0; c < d.value_dim; ++c) {
          double value = 0;
          for (int64_t j = 0; j < d.keys; ++j)
            value += scores[size_t(j)] / sum *
                     packed[size_t(d.v_offset + b * d.v_strides[0] +
                                   (h / group) * d.v_strides[1] +
                                   j * d.v_strides[2] + c)];
          o[size_t(b * d.o_strides[0] + h * d.o_strides[1] +
                   i * d.o_strides[2] + c)] = float(value);
        }
      }
  return o;
}

/// The device arguments of `d`: the packed projection, the bias, O filled
/// with a sentinel, a 4 KiB workspace.
struct DeviceArgs {
  DeviceArgs(Device &device, const graphc_sdpa_desc &d,
             const std::vector<float> &packed, const std::vector<float> &bias,
             size_t offset = 0)
      : d(d) {
    args[0] = device.upload16(narrow(packed, d.dtype), offset);
    if (d.bias_arg >= 0)
      args[d.bias_arg] = device.upload16(narrow(bias, d.dtype));
    args[d.o_arg] = device.upload16(
        std::vector<uint16_t>(size_t(outputs()), narrow({-77.0f}, d.dtype)[0]));
    std::vector<unsigned char> scratch(4096);
    args[d.workspace_arg] = device.uploadBytes(scratch.data(), scratch.size());
  }
  int64_t outputs() const {
    return d.batch * d.queries * d.heads * d.value_dim;
  }
  std::vector<float> o() const {
    std::vector<uint16_t> bits =
        download<uint16_t>(args[d.o_arg], size_t(outputs()));
    std::vector<float> values(bits.size());
    for (size_t i = 0; i < bits.size(); ++i)
      values[i] = d.dtype == kF16 ? graphc::halfToFloat(bits[i])
                                  : graphc::bf16ToFloat(bits[i]);
    return values;
  }
  const graphc_sdpa_desc &d;
  unsigned long long args[4] = {};
};

double toleranceOf(int32_t dtype) { return dtype == kF16 ? 4e-3 : 3e-2; }

std::vector<float> packedProjection(const graphc_sdpa_desc &d,
                                    std::mt19937 &rng) {
  int64_t row = (d.heads + 2 * d.kv_heads) * d.head_dim;
  return random(size_t(d.batch * d.queries * row), d.dtype, rng);
}

TEST_F(FakeCudnnSdpa, GraphsComputeAttention) {
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  struct Variant {
    const char *name;
    Problem problem;
  };
  std::vector<Variant> variants;
  Problem plain;
  variants.push_back({"plain", plain});
  Problem padding = plain; // BERT's mask: [B, 1, 1, Skv]
  padding.bias = true;
  variants.push_back({"padding bias", padding});
  Problem full = plain;
  full.bias = true;
  full.biasBatch = false;
  full.biasHeads = true;
  full.biasQueries = true;
  variants.push_back({"[1, H, Sq, Skv] bias", full});
  Problem causal = plain;
  causal.causal = true;
  causal.queries = causal.keys = 7;
  variants.push_back({"causal", causal});
  Problem grouped = causal;
  grouped.kvHeads = 2;
  grouped.headDim = 8;
  variants.push_back({"causal, grouped heads", grouped});
  Problem both = padding;
  both.causal = true;
  both.headDim = 32;
  variants.push_back({"causal with bias", both});
  std::mt19937 rng(3);
  for (int32_t dtype : {kF16, kBf16})
    for (const Variant &variant : variants) {
      SCOPED_TRACE(std::string(variant.name) +
                   (dtype == kF16 ? ", float16" : ", bfloat16"));
      Problem problem = variant.problem;
      problem.dtype = dtype;
      graphc_sdpa_desc d = describe(problem);
      std::vector<float> packed = packedProjection(d, rng);
      std::vector<float> bias = random(size_t(biasElements(d)), dtype, rng, 2);
      DeviceArgs run(device, d, packed, bias);
      std::unique_ptr<rt::CudnnSdpa> planned;
      ASSERT_EQ(
          rt::CudnnSdpa::create(library, handle, d, 4096, {}, planned, error),
          GRAPHC_OK)
          << error;
      ASSERT_TRUE(planned->fused()) << planned->whyNotFused();
      // The first choice: tensor cores take 16-bit inputs as they are.
      EXPECT_EQ(planned->engineRank(), 0);
      ASSERT_EQ(planned->enqueue(run.args, error), GRAPHC_OK)
          << error << "; fake: " << fakecu_cudnn_last_error();
      EXPECT_EQ(fakecu_cudnn_last_engine_rank(), 0);
      EXPECT_TRUE(
          gemmtest::near(run.o(), attend(d, packed, bias), toleranceOf(dtype)));
    }
}

// A tuned rank picks among the heuristic's configurations; engines that
// convert the inputs down are skipped.
TEST_F(FakeCudnnSdpa, EngineRankChoosesTheEngine) {
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  graphc_sdpa_desc d = describe(Problem());
  for (auto [asked, planned] :
       {std::pair(1, 1), std::pair(2, 3), std::pair(7, 0)}) {
    d.engine_rank = asked;
    std::unique_ptr<rt::CudnnSdpa> sdpa;
    ASSERT_EQ(rt::CudnnSdpa::create(library, handle, d, 4096, {}, sdpa, error),
              GRAPHC_OK);
    EXPECT_EQ(sdpa->engineRank(), planned) << "rank " << asked;
  }
  // Without workspace, the engine needing 4 KiB is skipped too.
  d.engine_rank = 1;
  std::unique_ptr<rt::CudnnSdpa> sdpa;
  ASSERT_EQ(rt::CudnnSdpa::create(library, handle, d, 0, {}, sdpa, error),
            GRAPHC_OK);
  EXPECT_EQ(sdpa->engineRank(), 3);
}

// Where cuDNN offers no engine (the fake refuses by switch, or because a
// head dim is not a multiple of 8), the plan is not fused: the session
// runs the fallback kernel; why is said.
TEST_F(FakeCudnnSdpa, WithoutAnEngineTheFallbackRuns) {
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  fakecu_cudnn_refuse_sdpa(1);
  graphc_sdpa_desc d = describe(Problem());
  std::unique_ptr<rt::CudnnSdpa> sdpa;
  ASSERT_EQ(rt::CudnnSdpa::create(library, handle, d, 4096, {}, sdpa, error),
            GRAPHC_OK);
  EXPECT_FALSE(sdpa->fused());
  EXPECT_EQ(sdpa->engineRank(), -1);
  EXPECT_NE(sdpa->whyNotFused().find("has no engine for the attention batch "
                                     "2, heads 4 (4 K/V heads), queries 5"),
            std::string::npos)
      << sdpa->whyNotFused();
  EXPECT_NE(sdpa->whyNotFused().find("its heuristic offers no engine"),
            std::string::npos);
  EXPECT_EQ(sdpa->enqueue(nullptr, error), GRAPHC_INTERNAL);

  fakecu_cudnn_refuse_sdpa(0);
  refusalExpected = true;
  Problem odd;
  odd.headDim = 12;
  d = describe(odd);
  ASSERT_EQ(rt::CudnnSdpa::create(library, handle, d, 4096, {}, sdpa, error),
            GRAPHC_OK);
  EXPECT_FALSE(sdpa->fused());
  EXPECT_NE(std::string(fakecu_cudnn_last_error()).find("head dim 12"),
            std::string::npos)
      << fakecu_cudnn_last_error();
}

TEST_F(FakeCudnnSdpa, RefusingSdpaCanComeFromTheEnvironment) {
  setenv("FAKECU_CUDNN_REFUSE_SDPA", "1", 1);
  fakecu_reset();
  unsetenv("FAKECU_CUDNN_REFUSE_SDPA");
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  std::unique_ptr<rt::CudnnSdpa> sdpa;
  ASSERT_EQ(rt::CudnnSdpa::create(library, handle, describe(Problem()), 4096,
                                  {}, sdpa, error),
            GRAPHC_OK);
  EXPECT_FALSE(sdpa->fused());
  fakecu_reset();
}

// The plan declares each tensor's alignment at its offset from the
// argument's base; a pointer with less is refused before cuDNN sees it.
TEST_F(FakeCudnnSdpa, PointersLessAlignedThanPlannedAreRefused) {
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  graphc_sdpa_desc d = describe(Problem());
  std::mt19937 rng(1);
  std::vector<float> packed = packedProjection(d, rng);
  std::unique_ptr<rt::CudnnSdpa> sdpa;
  ASSERT_EQ(rt::CudnnSdpa::create(library, handle, d, 4096, {}, sdpa, error),
            GRAPHC_OK);
  DeviceArgs run(device, d, packed, {}, 2);
  EXPECT_EQ(sdpa->enqueue(run.args, error), GRAPHC_INVALID_ARGUMENT);
  EXPECT_NE(error.find("the attention's Q at 0x"), std::string::npos) << error;
  EXPECT_NE(error.find("is not 256-byte aligned"), std::string::npos) << error;
  // Planned for an argument 2 bytes into its allocation, it runs there.
  rt::SdpaAlignment two;
  two.q = two.k = two.v = 2;
  ASSERT_EQ(rt::CudnnSdpa::create(library, handle, d, 4096, two, sdpa, error),
            GRAPHC_OK);
  EXPECT_EQ(sdpa->enqueue(run.args, error), GRAPHC_OK)
      << error << "; fake: " << fakecu_cudnn_last_error();
  EXPECT_TRUE(
      gemmtest::near(run.o(), attend(d, packed, {}), toleranceOf(kF16)));
}

} // namespace
