//===- CudaFakeCudnnTest.cpp - convolution steps on the fake cuDNN --------===//
//
// The runtime's cuDNN path against the fake one (test/runtime/fake_cuda,
// computing from the backend descriptors alone): CudnnConv's operation
// graphs over 1, 2 and 3 spatial dims, groups, strides, dilations, pads,
// bias, Z, ReLU, SiLU, the three dtypes and both layouts, checked against
// the reference convolution; the strides each layout gives every tensor; the
// engine rank, numerical-note and workspace rules; the convolution alone
// when cuDNN fuses nothing; the fake's own rules; conv_model on the cuda
// target through sessions (capture and replay, every way of running, the
// epilogue kernels of the fallback and the probes after them, channels
// last) and the statuses for a missing cuDNN or a convolution it has no
// engine for.
//
//===----------------------------------------------------------------------===//
#include "ConvTestSupport.h"
#include "FakeCudaTestSupport.h"
#include "GemmTestSupport.h"

#include "lib/Support/Float16.h"
#include "runtime/src/Cudnn.h"
#include "runtime/src/CudnnConv.h"
#include "runtime/src/ReferenceConv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace fakecutest;
namespace rt = graphc::rt;
namespace dnn = graphc::rt::dnn;
using convtest::ConvShape;

constexpr int32_t kF32 = 1, kF16 = 10, kBf16 = 16;

//===- The epilogue kernels of conv_model_cuda_epilogue -------------------===//

/// conv_bias_z_relu(x, w, bias, z, y): y = relu(y + bias + z) in place, as
/// the compiler's epilogue kernel finishes the convolution cuDNN left in y.
void convBiasZReluKernel(const fakecu_launch *launch) {
  const float *bias = *static_cast<float **>(launch->params[2]);
  const float *z = *static_cast<float **>(launch->params[3]);
  float *y = *static_cast<float **>(launch->params[4]);
  for (int i = 0; i < 144; ++i) {
    float value = y[i] + bias[i / 12 % 6] + z[i];
    y[i] = value < 0 ? 0 : value;
  }
}

/// The same for conv_model_cuda_epilogue_nhwc, whose y is [2,4,3,6]: the
/// output channel is the last index.
void convBiasZReluNhwcKernel(const fakecu_launch *launch) {
  const float *bias = *static_cast<float **>(launch->params[2]);
  const float *z = *static_cast<float **>(launch->params[3]);
  float *y = *static_cast<float **>(launch->params[4]);
  for (int i = 0; i < 144; ++i) {
    float value = y[i] + bias[i % 6] + z[i];
    y[i] = value < 0 ? 0 : value;
  }
}

/// conv1d_relu(s, w, t): t = relu(t) in place (in either layout).
void conv1dReluKernel(const fakecu_launch *launch) {
  float *t = *static_cast<float **>(launch->params[2]);
  for (int i = 0; i < 54; ++i)
    t[i] = t[i] < 0 ? 0 : t[i];
}

class FakeCudnn : public ::testing::Test {
protected:
  void SetUp() override {
    fakecu_reset();
    // The same library is the fake cuDNN.
    setenv("GRAPHC_CUDNN_LIBRARY", fakeCudaLibrary(), 1);
    static const unsigned five[] = {8, 8, 8, 8, 8}, three[] = {8, 8, 8};
    fakecu_register_kernel("conv_bias_z_relu", convBiasZReluKernel, 5, five);
    fakecu_register_kernel("conv1d_relu", conv1dReluKernel, 3, three);
  }
  void TearDown() override {
    if (handle)
      EXPECT_EQ(library.destroy(handle), dnn::kSuccess);
    EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
    EXPECT_EQ(fakecu_calls("cuCtxSynchronize"), 0);
    if (!refusalExpected)
      EXPECT_STREQ(fakecu_cudnn_last_error(), "");
  }
  /// Loads the fake cuDNN into `library` and creates `handle` on `stream`;
  /// TearDown destroys it (call through ASSERT_NO_FATAL_FAILURE).
  void openLibrary(const Device &device) {
    ASSERT_TRUE(dnn::loadLibrary(fakeCudaLibrary(), library, error)) << error;
    ASSERT_EQ(library.create(&handle), dnn::kSuccess);
    ASSERT_EQ(library.setStream(handle, device.cuStream()), dnn::kSuccess);
  }
  /// Set by tests that make the fake refuse a call on purpose.
  bool refusalExpected = false;
  dnn::Library library;
  dnn::Handle handle = nullptr;
  std::string error;
};

//===- CudnnConv on its own -----------------------------------------------===//

std::vector<float> random(size_t count, std::mt19937 &rng) {
  std::uniform_real_distribution<float> values(-1, 1);
  std::vector<float> out(count);
  for (float &value : out)
    value = values(rng);
  return out;
}

std::vector<uint16_t> narrow(const std::vector<float> &values, int32_t dtype) {
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    bits[i] = dtype == kF16 ? graphc::floatToHalf(values[i])
                            : graphc::floatToBf16(values[i]);
  return bits;
}
std::vector<float> widen(const std::vector<uint16_t> &bits, int32_t dtype) {
  std::vector<float> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i)
    values[i] = dtype == kF16 ? graphc::halfToFloat(bits[i])
                              : graphc::bf16ToFloat(bits[i]);
  return values;
}

/// A convolution's tensors in float, each value representable in its dtype.
struct Tensors {
  std::vector<float> x, w, bias, z;
};

Tensors randomTensors(const graphc_conv_desc &conv, std::mt19937 &rng) {
  Tensors t;
  t.x = random(convtest::xElements(conv), rng);
  t.w = random(convtest::wElements(conv), rng);
  if (conv.bias_arg >= 0)
    t.bias = random(conv.k, rng);
  if (conv.z_arg >= 0)
    t.z = random(convtest::yElements(conv), rng);
  if (conv.dtype != kF32)
    for (std::vector<float> *values : {&t.x, &t.w, &t.bias, &t.z})
      *values = widen(narrow(*values, conv.dtype), conv.dtype);
  return t;
}

/// The reference convolution's Y, widened to float.
std::vector<float> referenceY(const graphc_conv_desc &conv, const Tensors &t) {
  std::string error;
  size_t count = convtest::yElements(conv);
  if (conv.dtype == kF32) {
    Tensors copy = t;
    std::vector<float> y(count);
    void *args[6] = {copy.x.data(), copy.w.data(), copy.bias.data(),
                     copy.z.data(), y.data(),      nullptr};
    EXPECT_TRUE(rt::runReferenceConv(conv, args, error)) << error;
    return y;
  }
  std::vector<uint16_t> x = narrow(t.x, conv.dtype),
                        w = narrow(t.w, conv.dtype),
                        bias = narrow(t.bias, conv.dtype),
                        z = narrow(t.z, conv.dtype), y(count);
  void *args[6] = {x.data(), w.data(), bias.data(),
                   z.data(), y.data(), nullptr};
  EXPECT_TRUE(rt::runReferenceConv(conv, args, error)) << error;
  return widen(y, conv.dtype);
}

/// The step arguments of a convolution on the fake's device memory: X
/// `xOffset` bytes into its allocation, the bias one element into its, Y
/// filled with a sentinel, a workspace of `workspaceBytes` (none for 0).
struct DeviceArgs {
  DeviceArgs(Device &device, const graphc_conv_desc &conv, const Tensors &t,
             uint64_t workspaceBytes, size_t xOffset = 0)
      : conv(conv) {
    size_t element = conv.dtype == kF32 ? 4 : 2;
    auto upload = [&](const std::vector<float> &values, size_t offset) {
      return conv.dtype == kF32
                 ? device.upload(values, offset)
                 : device.upload16(narrow(values, conv.dtype), offset);
    };
    args[conv.x_arg] = upload(t.x, xOffset);
    args[conv.w_arg] = upload(t.w, 0);
    if (conv.bias_arg >= 0)
      args[conv.bias_arg] = upload(t.bias, element);
    if (conv.z_arg >= 0)
      args[conv.z_arg] = upload(t.z, 0);
    args[conv.y_arg] =
        upload(std::vector<float>(convtest::yElements(conv), -77.0f), 0);
    std::vector<unsigned char> scratch(workspaceBytes);
    args[conv.workspace_arg] =
        workspaceBytes ? device.uploadBytes(scratch.data(), workspaceBytes) : 0;
  }
  std::vector<float> y() const {
    size_t count = convtest::yElements(conv);
    return conv.dtype == kF32
               ? download(args[conv.y_arg], count)
               : widen(download<uint16_t>(args[conv.y_arg], count), conv.dtype);
  }
  const graphc_conv_desc &conv;
  unsigned long long args[6] = {};
};

struct NamedShape {
  const char *name;
  ConvShape shape;
};

const NamedShape kShapes[] = {
    {"1-d", {2, 3, 4, 1, {9}, {3}, {1}, {0}, {1}, {1}}},
    {"1-d strided, dilated, grouped",
     {1, 4, 6, 2, {13}, {3}, {2}, {1}, {2}, {3}}},
    {"2-d grouped, strided, dilated, asymmetric",
     {2, 6, 4, 2, {9, 8}, {3, 2}, {1, 0}, {2, 1}, {2, 3}, {2, 1}}},
    {"2-d depthwise",
     {1, 4, 8, 4, {7, 5}, {5, 1}, {2, 0}, {2, 0}, {1, 2}, {1, 1}}},
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
    // A GEMM [6, 8] x [8, 16] as graphc-select-library-calls hands one to
    // cuDNN (the erf GELU's 1x1 convolution).
    {"2-d 1x1, a GEMM",
     {6, 8, 16, 1, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {1, 1}, {1, 1}}},
};

double toleranceOf(int32_t dtype) {
  return dtype == kF32 ? 1e-5 : dtype == kF16 ? 2e-3 : 1.6e-2;
}

TEST_F(FakeCudnn, GraphsComputeWhatTheReferenceDoes) {
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  EXPECT_EQ(library.version, 91900u);
  EXPECT_EQ(library.title(),
            "cuDNN 9.19.0 (" + std::string(fakeCudaLibrary()) + ")");
  struct Variant {
    const char *name;
    bool bias, z;
    int32_t epilogue;
  };
  const Variant variants[] = {
      {"plain", false, false, GRAPHC_EPILOGUE_NONE},
      {"bias", true, false, GRAPHC_EPILOGUE_NONE},
      {"relu", false, false, GRAPHC_EPILOGUE_RELU},
      {"bias Z relu", true, true, GRAPHC_EPILOGUE_RELU},
      {"silu", false, false, GRAPHC_EPILOGUE_SILU},
      {"bias Z silu", true, true, GRAPHC_EPILOGUE_SILU},
      {"gelu", false, false, GRAPHC_EPILOGUE_GELU_ERF},
      {"bias Z gelu", true, true, GRAPHC_EPILOGUE_GELU_ERF}};
  std::mt19937 rng(5);
  for (int32_t last : {0, 1})
    for (int32_t dtype : {kF32, kF16, kBf16})
      for (const NamedShape &shape : kShapes)
        for (const Variant &variant : variants) {
          SCOPED_TRACE(std::string(shape.name) + ", " + variant.name +
                       ", dtype " + std::to_string(dtype) +
                       (last ? ", channels last" : ""));
          graphc_conv_desc conv = convtest::makeConv(
              shape.shape, variant.bias, variant.z, variant.epilogue);
          conv.dtype = dtype;
          conv.channels_last = last;
          Tensors t = randomTensors(conv, rng);
          // X 16 bytes and the bias one element into their allocations: the
          // plan must declare it, or the fake refuses the pointers.
          DeviceArgs run(device, conv, t, 4096, 16);
          rt::ConvAlignment alignment;
          alignment.x = 16;
          alignment.bias = dtype == kF32 ? 4 : 2;
          std::unique_ptr<rt::CudnnConv> planned;
          ASSERT_EQ(rt::CudnnConv::create(library, handle, conv, 4096,
                                          alignment, planned, error),
                    GRAPHC_OK)
              << error << "; fake: " << fakecu_cudnn_last_error();
          EXPECT_TRUE(planned->fused());
          // float32 without tf32 skips the tensor-core engine and gets the
          // next, which needs 4 KiB; 16-bit types take the first choice.
          EXPECT_EQ(planned->engineRank(), dtype == kF32 ? 1 : 0);
          EXPECT_EQ(planned->workspaceSize(), dtype == kF32 ? 4096u : 0u);
          ASSERT_EQ(planned->enqueue(run.args, error), GRAPHC_OK)
              << error << "; fake: " << fakecu_cudnn_last_error();
          EXPECT_EQ(fakecu_cudnn_last_engine_rank(), planned->engineRank());
          EXPECT_TRUE(
              gemmtest::near(run.y(), referenceY(conv, t), toleranceOf(dtype)));
        }
}

// engine_rank picks among the heuristic's configurations, skipping those
// whose numerics the kernel does not allow and those needing more
// workspace than its steps have, in order and around; a rank the library
// does not offer starts from its first choice.
TEST_F(FakeCudnn, EngineRankNotesAndWorkspaceChooseTheEngine) {
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  struct Case {
    int32_t dtype, tf32, rank;
    uint64_t workspace;
    int32_t expected;
  };
  const Case cases[] = {
      {kF32, 0, 0, 4096, 1}, {kF32, 0, 0, 0, 3},    {kF32, 1, 0, 0, 0},
      {kF16, 0, 0, 0, 0},    {kBf16, 0, 0, 0, 0},   {kF32, 0, 1, 4096, 1},
      {kF32, 0, 1, 4095, 3}, {kF32, 1, 1, 0, 3},    {kF32, 1, 2, 0, 3},
      {kF16, 0, 2, 0, 3},    {kF32, 1, 3, 0, 3},    {kF32, 1, 5, 0, 0},
      {kF32, 0, 7, 8192, 1}, {kF16, 0, 3, 8192, 3},
  };
  std::mt19937 rng(6);
  for (const Case &c : cases) {
    SCOPED_TRACE("dtype " + std::to_string(c.dtype) + ", tf32 " +
                 std::to_string(c.tf32) + ", rank " + std::to_string(c.rank) +
                 ", workspace " + std::to_string(c.workspace));
    graphc_conv_desc conv =
        convtest::makeConv(kShapes[2].shape, true, false, GRAPHC_EPILOGUE_RELU);
    conv.dtype = c.dtype;
    conv.tf32 = c.tf32;
    conv.engine_rank = c.rank;
    Tensors t = randomTensors(conv, rng);
    DeviceArgs run(device, conv, t, c.workspace);
    rt::ConvAlignment alignment;
    alignment.bias = c.dtype == kF32 ? 4 : 2;
    std::unique_ptr<rt::CudnnConv> planned;
    ASSERT_EQ(rt::CudnnConv::create(library, handle, conv, c.workspace,
                                    alignment, planned, error),
              GRAPHC_OK)
        << error;
    EXPECT_EQ(planned->engineRank(), c.expected);
    EXPECT_EQ(planned->workspaceSize(), c.expected == 1 ? 4096u : 0u);
    ASSERT_EQ(planned->enqueue(run.args, error), GRAPHC_OK)
        << error << "; fake: " << fakecu_cudnn_last_error();
    EXPECT_EQ(fakecu_cudnn_last_engine_rank(), c.expected);
    // Only the tensor-core engine rounds float32 to tf32.
    graphc_conv_desc reference = conv;
    reference.tf32 = c.dtype == kF32 && c.expected == 0;
    EXPECT_TRUE(gemmtest::near(run.y(), referenceY(reference, t),
                               toleranceOf(c.dtype)));
  }
}

// The fake's tensor-core engine rounds X and W to tf32: a runtime that ran
// it for exact float32 would get these other numbers.
TEST_F(FakeCudnn, Tf32OnlyWhenTheKernelAllowsIt) {
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  std::mt19937 rng(7);
  graphc_conv_desc conv =
      convtest::makeConv(kShapes[4].shape, false, false, GRAPHC_EPILOGUE_NONE);
  Tensors t = randomTensors(conv, rng);
  graphc_conv_desc tf32 = conv;
  tf32.tf32 = 1;
  std::vector<float> exact = referenceY(conv, t), rounded = referenceY(tf32, t);
  ASSERT_FALSE(gemmtest::near(exact, rounded, 1e-6));
  for (const graphc_conv_desc *desc : {&conv, &tf32}) {
    DeviceArgs run(device, *desc, t, 0);
    std::unique_ptr<rt::CudnnConv> planned;
    ASSERT_EQ(
        rt::CudnnConv::create(library, handle, *desc, 0, {}, planned, error),
        GRAPHC_OK)
        << error;
    ASSERT_EQ(planned->enqueue(run.args, error), GRAPHC_OK) << error;
    EXPECT_TRUE(gemmtest::near(run.y(), desc->tf32 ? rounded : exact, 1e-6));
  }
}

TEST_F(FakeCudnn, NoEngineWithinTheWorkspaceIsAPrecondition) {
  refusalExpected = true;
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  graphc_conv_desc conv = convtest::modelConv0();
  fakecu_cudnn_require_workspace(8192);
  std::unique_ptr<rt::CudnnConv> planned;
  EXPECT_EQ(
      rt::CudnnConv::create(library, handle, conv, 4096, {}, planned, error),
      GRAPHC_FAILED_PRECONDITION);
  EXPECT_EQ(planned, nullptr);
  std::string expected =
      library.title() +
      " has no engine for the convolution n 2, c 4, in 7x6, k 6, filter 3x2, "
      "groups 2, stride 2x2, dilation 1x2, float32, NCHW, with bias, Z and "
      "relu within 4096 bytes of workspace (fused, with bias, Z and relu: "
      "none of its 4 engine configurations runs (rank 0: it rounds float32 "
      "to tf32 on tensor cores, and the kernel asks for exact float32 "
      "products; ";
  EXPECT_EQ(error.substr(0, expected.size()), expected) << error;
  EXPECT_TRUE(contains(error, "rank 1: it needs 8192 bytes of workspace; "
                              "rank 2: it converts the inputs down; rank 3: "
                              "it needs 8192 bytes of workspace)"))
      << error;
  EXPECT_TRUE(contains(error, "and the kernel has no epilogue kernel to run "
                              "after the convolution alone)"))
      << error;
  // With an epilogue kernel the convolution alone is tried too.
  conv.has_epilogue_kernel = 1;
  EXPECT_EQ(
      rt::CudnnConv::create(library, handle, conv, 4096, {}, planned, error),
      GRAPHC_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(error, "; alone: none of its 4 engine configurations "
                              "runs (rank 0: it rounds"))
      << error;
  // Enough workspace: rank 1 gets all 8192 bytes.
  ASSERT_EQ(
      rt::CudnnConv::create(library, handle, conv, 8192, {}, planned, error),
      GRAPHC_OK)
      << error;
  EXPECT_EQ(planned->engineRank(), 1);
  EXPECT_EQ(planned->workspaceSize(), 8192u);
}

// When cuDNN fuses nothing of bias, Z and ReLU, a kernel with an epilogue
// kernel gets the convolution alone into Y (the session launches the
// epilogue kernel after it); one without is refused.
TEST_F(FakeCudnn, WithoutFusionTheConvolutionRunsAlone) {
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  fakecu_cudnn_refuse_fusion(1);
  std::mt19937 rng(8);
  for (int32_t last : {0, 1})
    for (const NamedShape &shape : kShapes) {
      // ReLU, SiLU and the erf GELU by turns.
      const int32_t epilogues[] = {GRAPHC_EPILOGUE_RELU, GRAPHC_EPILOGUE_SILU,
                                   GRAPHC_EPILOGUE_GELU_ERF};
      int32_t epilogue = epilogues[(&shape - kShapes) % 3];
      SCOPED_TRACE(std::string(shape.name) + (last ? ", channels last" : "") +
                   ", epilogue " + std::to_string(epilogue));
      graphc_conv_desc conv =
          convtest::makeConv(shape.shape, true, true, epilogue);
      conv.has_epilogue_kernel = 1;
      conv.channels_last = last;
      Tensors t = randomTensors(conv, rng);
      DeviceArgs run(device, conv, t, 0);
      std::unique_ptr<rt::CudnnConv> planned;
      ASSERT_EQ(
          rt::CudnnConv::create(library, handle, conv, 0, {}, planned, error),
          GRAPHC_OK)
          << error;
      EXPECT_FALSE(planned->fused());
      ASSERT_EQ(planned->enqueue(run.args, error), GRAPHC_OK)
          << error << "; fake: " << fakecu_cudnn_last_error();
      graphc_conv_desc alone = conv;
      alone.bias_arg = alone.z_arg = -1;
      alone.epilogue = GRAPHC_EPILOGUE_NONE;
      EXPECT_TRUE(gemmtest::near(run.y(), referenceY(alone, t), 1e-5));
    }
  // A convolution with nothing after it is its own whole graph.
  graphc_conv_desc bare =
      convtest::makeConv(kShapes[0].shape, false, false, GRAPHC_EPILOGUE_NONE);
  std::unique_ptr<rt::CudnnConv> planned;
  ASSERT_EQ(rt::CudnnConv::create(library, handle, bare, 0, {}, planned, error),
            GRAPHC_OK)
      << error;
  EXPECT_TRUE(planned->fused());

  refusalExpected = true;
  graphc_conv_desc conv =
      convtest::makeConv(kShapes[0].shape, false, true, GRAPHC_EPILOGUE_NONE);
  EXPECT_EQ(rt::CudnnConv::create(library, handle, conv, 0, {}, planned, error),
            GRAPHC_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(error, "(fused, with Z: its heuristic offers no "
                              "engine; and the kernel has no epilogue kernel "
                              "to run after the convolution alone)"))
      << error;
  // The problem names the epilogue.
  conv = convtest::makeConv(kShapes[0].shape, true, true, GRAPHC_EPILOGUE_SILU);
  EXPECT_EQ(rt::CudnnConv::create(library, handle, conv, 0, {}, planned, error),
            GRAPHC_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(error, "float32, NCW, with bias, Z and silu within 0 "
                              "bytes of workspace (fused, with bias, Z and "
                              "silu: its heuristic offers no engine;"))
      << error;
  conv = convtest::makeConv(kShapes[0].shape, true, false,
                            GRAPHC_EPILOGUE_GELU_ERF);
  EXPECT_EQ(rt::CudnnConv::create(library, handle, conv, 0, {}, planned, error),
            GRAPHC_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(error, "float32, NCW, with bias and gelu_erf within 0 "
                              "bytes of workspace"))
      << error;
}

// cuDNN keeps the dims [n, c, spatial...] in every layout: channels last is
// in the strides alone, of every tensor of the graph (the broadcast bias
// and the float32 intermediates too); a 1-d convolution's unit first
// spatial dim is as wide as the row it holds.
TEST_F(FakeCudnn, ChannelsLastIsInEveryTensorsStrides) {
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  struct Case {
    graphc_conv_desc conv;
    const char *graph;
  };
  const Case cases[] = {
      {convtest::modelConv0(true),
       "tensor 1 dims [2,4,7,6] strides [168,1,24,4]\n"
       "tensor 2 dims [6,2,3,2] strides [12,1,4,2]\n"
       "tensor 3 dims [1,6,1,1] strides [6,1,6,6]\n"
       "tensor 4 dims [2,6,4,3] strides [72,1,18,6]\n"
       "tensor 5 dims [2,6,4,3] strides [72,1,18,6]\n"
       "tensor 10 dims [2,6,4,3] strides [72,1,18,6] virtual\n"
       "tensor 11 dims [2,6,4,3] strides [72,1,18,6] virtual\n"
       "tensor 12 dims [2,6,4,3] strides [72,1,18,6] virtual\n"},
      {convtest::modelConv0(false),
       "tensor 1 dims [2,4,7,6] strides [168,42,6,1]\n"
       "tensor 2 dims [6,2,3,2] strides [12,6,2,1]\n"
       "tensor 3 dims [1,6,1,1] strides [6,1,1,1]\n"
       "tensor 4 dims [2,6,4,3] strides [72,12,3,1]\n"
       "tensor 5 dims [2,6,4,3] strides [72,12,3,1]\n"
       "tensor 10 dims [2,6,4,3] strides [72,12,3,1] virtual\n"
       "tensor 11 dims [2,6,4,3] strides [72,12,3,1] virtual\n"
       "tensor 12 dims [2,6,4,3] strides [72,12,3,1] virtual\n"},
      {convtest::modelConv1(true),
       "tensor 1 dims [2,3,1,12] strides [36,1,36,3]\n"
       "tensor 2 dims [3,1,1,4] strides [4,1,4,1]\n"
       "tensor 5 dims [2,3,1,9] strides [27,1,27,3]\n"
       "tensor 10 dims [2,3,1,9] strides [27,1,27,3] virtual\n"},
  };
  rt::ConvAlignment alignment;
  alignment.bias = 4; // DeviceArgs puts it one element in
  std::mt19937 rng(10);
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string("channels_last ") +
                 std::to_string(c.conv.channels_last) + ", " +
                 std::to_string(c.conv.spatial_dims) + "-d");
    std::unique_ptr<rt::CudnnConv> planned;
    ASSERT_EQ(rt::CudnnConv::create(library, handle, c.conv, 4096, alignment,
                                    planned, error),
              GRAPHC_OK)
        << error << "; fake: " << fakecu_cudnn_last_error();
    EXPECT_EQ(std::string(fakecu_cudnn_last_graph()), c.graph);
    // And the fake reads them so: the plain loops' numbers.
    Tensors t = randomTensors(c.conv, rng);
    DeviceArgs run(device, c.conv, t, 4096);
    ASSERT_EQ(planned->enqueue(run.args, error), GRAPHC_OK)
        << error << "; fake: " << fakecu_cudnn_last_error();
    std::vector<float> expected(convtest::yElements(c.conv));
    convtest::naiveConv(c.conv, t.x.data(), t.w.data(),
                        t.bias.empty() ? nullptr : t.bias.data(),
                        t.z.empty() ? nullptr : t.z.data(), expected.data());
    EXPECT_TRUE(gemmtest::near(run.y(), expected, 1e-5));
  }
}

// The layout is part of the problem a refusal names.
TEST_F(FakeCudnn, RefusalsNameTheLayout) {
  refusalExpected = true;
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  fakecu_cudnn_refuse_fusion(1);
  std::unique_ptr<rt::CudnnConv> planned;
  EXPECT_EQ(rt::CudnnConv::create(library, handle, convtest::modelConv0(true),
                                  4096, {}, planned, error),
            GRAPHC_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(error, "has no engine for the convolution n 2, c 4, "
                              "in 7x6, k 6, filter 3x2, groups 2, stride 2x2, "
                              "dilation 1x2, float32, NHWC, with bias, Z and "
                              "relu within 4096 bytes"))
      << error;
  EXPECT_EQ(rt::CudnnConv::create(library, handle, convtest::modelConv1(true),
                                  0, {}, planned, error),
            GRAPHC_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(error, "dilation 2, float32, NWC, with relu")) << error;
  graphc_conv_desc threeD =
      convtest::makeConv(kShapes[4].shape, false, true, GRAPHC_EPILOGUE_NONE);
  threeD.channels_last = 1;
  threeD.tf32 = 1;
  EXPECT_EQ(
      rt::CudnnConv::create(library, handle, threeD, 0, {}, planned, error),
      GRAPHC_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(error, "float32 (tf32), NDHWC, with Z")) << error;
  // A layout cuDNN has no strides for is refused before cuDNN is asked.
  threeD.channels_last = 2;
  EXPECT_EQ(
      rt::CudnnConv::create(library, handle, threeD, 0, {}, planned, error),
      GRAPHC_UNIMPLEMENTED);
  EXPECT_EQ(error, "no cuDNN layout for channels_last 2");
}

// int8 convolutions: X and W int8 with their channels last, Y the exact
// int32 sums, on the fake's independent arithmetic as on the reference.
TEST_F(FakeCudnn, Int8ConvolutionsSumExactlyIntoInt32) {
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  const convtest::ConvShape shapes[] = {
      {2, 8, 8, 2, {5, 6}, {3, 2}, {1, 0}, {0, 1}, {2, 1}, {1, 2}},
      {1, 4, 12, 1, {9}, {3}, {1}, {1}, {1}, {1}},
      {1, 4, 8, 1, {3, 4, 3}, {2, 2, 2}, {0, 1, 0}, {1, 0, 0}, {1, 1, 2},
       {1, 1, 1}},
      // 2^13 channels of a 4x4 filter: 2^17 products of -128 * -128, whose
      // sum 2^31 wraps to INT32_MIN.
      {1, 8192, 4, 1, {4, 4}, {4, 4}, {0, 0}, {0, 0}, {1, 1}, {1, 1}}};
  std::mt19937 rng(13);
  std::uniform_int_distribution<int> byte(-128, 127);
  for (const convtest::ConvShape &shape : shapes) {
    graphc_conv_desc conv =
        convtest::makeConv(shape, false, false, GRAPHC_EPILOGUE_NONE);
    conv.dtype = 3;
    conv.compute_dtype = 6;
    conv.channels_last = 1;
    SCOPED_TRACE("c " + std::to_string(conv.c) + ", " +
                 std::to_string(conv.spatial_dims) + " spatial dims");
    std::vector<int8_t> x(convtest::xElements(conv)),
        w(convtest::wElements(conv));
    const bool extreme = conv.c == 8192;
    for (int8_t &v : x)
      v = extreme ? int8_t(-128) : int8_t(byte(rng));
    for (int8_t &v : w)
      v = extreme ? int8_t(-128) : int8_t(byte(rng));
    std::vector<int32_t> expected(convtest::yElements(conv));
    void *host[6] = {x.data(), w.data(), nullptr, nullptr, expected.data(),
                     nullptr};
    ASSERT_TRUE(rt::runReferenceConv(conv, host, error)) << error;
    if (extreme)
      EXPECT_EQ(expected[0], std::numeric_limits<int32_t>::min());
    unsigned long long args[6] = {};
    args[0] = device.uploadBytes(x.data(), x.size());
    args[1] = device.uploadBytes(w.data(), w.size());
    std::vector<int32_t> sentinel(expected.size(), -7);
    args[4] = device.uploadBytes(sentinel.data(), sentinel.size() * 4);
    std::unique_ptr<rt::CudnnConv> planned;
    ASSERT_EQ(rt::CudnnConv::create(library, handle, conv, 0, {}, planned,
                                    error),
              GRAPHC_OK)
        << error << "; fake: " << fakecu_cudnn_last_error();
    // int8 tensor cores are exact: the first engine runs.
    EXPECT_EQ(planned->engineRank(), 0);
    ASSERT_EQ(planned->enqueue(args, error), GRAPHC_OK)
        << error << "; fake: " << fakecu_cudnn_last_error();
    EXPECT_EQ(download<int32_t>(args[4], expected.size()), expected);
  }
}

TEST_F(FakeCudnn, Int8ConvolutionsNeedCudnnsLayout) {
  graphc_conv_desc conv = convtest::makeConv(
      {1, 8, 4, 2, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, false,
      false, GRAPHC_EPILOGUE_NONE);
  conv.dtype = 3;
  conv.compute_dtype = 6;
  std::string why;
  EXPECT_FALSE(rt::cudnnSupports(conv, why));
  EXPECT_EQ(why, "cuDNN's int8 convolutions are channels last (NHWC): "
                 "channels_last must be 1");
  conv.channels_last = 1;
  EXPECT_TRUE(rt::cudnnSupports(conv, why)) << why;
  conv.groups = 4; // 2 channels a group
  EXPECT_FALSE(rt::cudnnSupports(conv, why));
  EXPECT_EQ(why, "cuDNN's int8 convolutions need c / groups and k multiples "
                 "of 4, not 2 and 4");
  conv.groups = 1;
  conv.k = 6;
  EXPECT_FALSE(rt::cudnnSupports(conv, why));
  conv.k = 4;
  conv.epilogue = GRAPHC_EPILOGUE_RELU;
  EXPECT_FALSE(rt::cudnnSupports(conv, why));
  EXPECT_EQ(why, "an int8 convolution with a bias, Z or epilogue (it writes "
                 "its int32 sum as it is)");
}

// Processes that run compiled models (graphc run, the Python runtime) make
// the fake refuse fusion through the environment.
TEST_F(FakeCudnn, RefusingFusionCanComeFromTheEnvironment) {
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  graphc_conv_desc conv =
      convtest::makeConv(kShapes[2].shape, true, true, GRAPHC_EPILOGUE_RELU);
  conv.has_epilogue_kernel = 1;
  std::unique_ptr<rt::CudnnConv> planned;
  for (const char *value : {"1", "0"}) {
    SCOPED_TRACE(std::string("FAKECU_CUDNN_REFUSE_FUSION=") + value);
    setenv("FAKECU_CUDNN_REFUSE_FUSION", value, 1);
    fakecu_reset();
    ASSERT_EQ(
        rt::CudnnConv::create(library, handle, conv, 0, {}, planned, error),
        GRAPHC_OK)
        << error;
    EXPECT_EQ(planned->fused(), std::string(value) == "0");
  }
  unsetenv("FAKECU_CUDNN_REFUSE_FUSION");
  fakecu_reset();
}

TEST_F(FakeCudnn, PointersLessAlignedThanPlannedAreRefused) {
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  std::mt19937 rng(9);
  graphc_conv_desc conv =
      convtest::makeConv(kShapes[0].shape, true, false, GRAPHC_EPILOGUE_NONE);
  Tensors t = randomTensors(conv, rng);
  std::unique_ptr<rt::CudnnConv> planned;
  ASSERT_EQ(rt::CudnnConv::create(library, handle, conv, 0, {}, planned, error),
            GRAPHC_OK)
      << error;
  DeviceArgs run(device, conv, t, 0, 16);
  EXPECT_EQ(planned->enqueue(run.args, error), GRAPHC_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(error, "the convolution's X at 0x")) << error;
  EXPECT_TRUE(contains(error, "is not 256-byte aligned, as its cuDNN plan "
                              "needs"))
      << error;
  EXPECT_EQ(fakecu_calls("cudnnBackendExecute"), 0);
}

//===- The fake's own rules -----------------------------------------------===//

/// Backend descriptors made through the runtime's table, destroyed at the
/// end, for the tests of the fake's rules.
struct Backend {
  explicit Backend(const dnn::Library &library) : L(library) {}
  ~Backend() {
    for (auto at = created.rbegin(); at != created.rend(); ++at)
      L.backendDestroyDescriptor(*at);
  }
  dnn::Descriptor make(int type) {
    dnn::Descriptor descriptor = nullptr;
    EXPECT_EQ(L.backendCreateDescriptor(type, &descriptor), dnn::kSuccess);
    created.push_back(descriptor);
    return descriptor;
  }
  dnn::Status set(dnn::Descriptor d, int attribute, int type, int64_t count,
                  const void *values) {
    return L.backendSetAttribute(d, attribute, type, count, values);
  }
  dnn::Status setInt64s(dnn::Descriptor d, int attribute,
                        const std::vector<int64_t> &values) {
    return set(d, attribute, dnn::kTypeInt64, int64_t(values.size()),
               values.data());
  }
  dnn::Status setDescriptor(dnn::Descriptor d, int attribute,
                            dnn::Descriptor value) {
    return set(d, attribute, dnn::kTypeBackendDescriptor, 1, &value);
  }
  /// A dense row-major tensor, finalized unless `finalize` is false.
  dnn::Descriptor tensor(int64_t uid, std::vector<int64_t> dims,
                         bool isVirtual = false, bool finalize = true) {
    std::vector<int64_t> strides(dims.size(), 1);
    for (size_t i = dims.size() - 1; i > 0; --i)
      strides[i - 1] = strides[i] * dims[i];
    dnn::Descriptor d = describe(uid, dims, strides, isVirtual);
    if (finalize)
      EXPECT_EQ(L.backendFinalize(d), dnn::kSuccess);
    return d;
  }
  /// A tensor of `dims` and `strides`, not finalized.
  dnn::Descriptor describe(int64_t uid, const std::vector<int64_t> &dims,
                           const std::vector<int64_t> &strides,
                           bool isVirtual = false) {
    dnn::Descriptor d = make(dnn::kTensorDescriptor);
    int32_t type = dnn::kDataFloat;
    int64_t alignment = 16;
    EXPECT_EQ(setInt64s(d, dnn::kAttrTensorUniqueId, {uid}), dnn::kSuccess);
    EXPECT_EQ(set(d, dnn::kAttrTensorDataType, dnn::kTypeDataType, 1, &type),
              dnn::kSuccess);
    EXPECT_EQ(setInt64s(d, dnn::kAttrTensorDimensions, dims), dnn::kSuccess);
    EXPECT_EQ(setInt64s(d, dnn::kAttrTensorStrides, strides), dnn::kSuccess);
    EXPECT_EQ(
        set(d, dnn::kAttrTensorByteAlignment, dnn::kTypeInt64, 1, &alignment),
        dnn::kSuccess);
    EXPECT_EQ(
        set(d, dnn::kAttrTensorIsVirtual, dnn::kTypeBoolean, 1, &isVirtual),
        dnn::kSuccess);
    return d;
  }
  /// A finalized convolution descriptor of `mode` with unit strides and
  /// dilations and no padding.
  dnn::Descriptor convolution(int64_t spatialDims, int32_t mode) {
    dnn::Descriptor d = make(dnn::kConvolutionDescriptor);
    int32_t compute = dnn::kDataFloat;
    std::vector<int64_t> ones(spatialDims, 1), zeros(spatialDims, 0);
    EXPECT_EQ(set(d, dnn::kAttrConvolutionComputeType, dnn::kTypeDataType, 1,
                  &compute),
              dnn::kSuccess);
    EXPECT_EQ(
        set(d, dnn::kAttrConvolutionMode, dnn::kTypeConvolutionMode, 1, &mode),
        dnn::kSuccess);
    EXPECT_EQ(setInt64s(d, dnn::kAttrConvolutionSpatialDims, {spatialDims}),
              dnn::kSuccess);
    for (int attribute :
         {dnn::kAttrConvolutionDilations, dnn::kAttrConvolutionFilterStrides})
      EXPECT_EQ(setInt64s(d, attribute, ones), dnn::kSuccess);
    for (int attribute :
         {dnn::kAttrConvolutionPrePaddings, dnn::kAttrConvolutionPostPaddings})
      EXPECT_EQ(setInt64s(d, attribute, zeros), dnn::kSuccess);
    EXPECT_EQ(L.backendFinalize(d), dnn::kSuccess);
    return d;
  }
  /// A forward convolution, not finalized.
  dnn::Descriptor forward(dnn::Descriptor conv, dnn::Descriptor x,
                          dnn::Descriptor w, dnn::Descriptor y) {
    dnn::Descriptor d = make(dnn::kConvolutionForwardDescriptor);
    EXPECT_EQ(setDescriptor(d, dnn::kAttrConvolutionForwardDesc, conv),
              dnn::kSuccess);
    EXPECT_EQ(setDescriptor(d, dnn::kAttrConvolutionForwardX, x),
              dnn::kSuccess);
    EXPECT_EQ(setDescriptor(d, dnn::kAttrConvolutionForwardW, w),
              dnn::kSuccess);
    EXPECT_EQ(setDescriptor(d, dnn::kAttrConvolutionForwardY, y),
              dnn::kSuccess);
    return d;
  }
  /// A finalized graph of `ops`, or the status of finalizing it.
  dnn::Status graph(std::vector<dnn::Descriptor> ops, dnn::Handle handle,
                    dnn::Descriptor &out) {
    out = make(dnn::kOperationGraphDescriptor);
    EXPECT_EQ(set(out, dnn::kAttrOperationGraphOps, dnn::kTypeBackendDescriptor,
                  int64_t(ops.size()), ops.data()),
              dnn::kSuccess);
    EXPECT_EQ(
        set(out, dnn::kAttrOperationGraphHandle, dnn::kTypeHandle, 1, &handle),
        dnn::kSuccess);
    return L.backendFinalize(out);
  }
  /// The execution plan of `graph`'s configuration of `rank`.
  dnn::Descriptor plan(dnn::Descriptor graph, dnn::Handle handle, int rank) {
    dnn::Descriptor heuristics = make(dnn::kEngineHeuristicsDescriptor);
    int32_t mode = dnn::kHeuristicsModeA;
    EXPECT_EQ(
        setDescriptor(heuristics, dnn::kAttrHeuristicsOperationGraph, graph),
        dnn::kSuccess);
    EXPECT_EQ(set(heuristics, dnn::kAttrHeuristicsMode, dnn::kTypeHeuristicMode,
                  1, &mode),
              dnn::kSuccess);
    EXPECT_EQ(L.backendFinalize(heuristics), dnn::kSuccess);
    std::vector<dnn::Descriptor> configs;
    for (int i = 0; i < 4; ++i)
      configs.push_back(make(dnn::kEngineConfigDescriptor));
    int64_t returned = 0;
    EXPECT_EQ(L.backendGetAttribute(heuristics, dnn::kAttrHeuristicsResults,
                                    dnn::kTypeBackendDescriptor, 4, &returned,
                                    configs.data()),
              dnn::kSuccess);
    EXPECT_EQ(returned, 4);
    dnn::Descriptor plan = make(dnn::kExecutionPlanDescriptor);
    EXPECT_EQ(set(plan, dnn::kAttrPlanHandle, dnn::kTypeHandle, 1, &handle),
              dnn::kSuccess);
    EXPECT_EQ(setDescriptor(plan, dnn::kAttrPlanEngineConfig, configs[rank]),
              dnn::kSuccess);
    EXPECT_EQ(L.backendFinalize(plan), dnn::kSuccess);
    return plan;
  }
  /// A finalized pointwise operation y = x + b computed in float.
  dnn::Descriptor floatAdd(dnn::Descriptor x, dnn::Descriptor b,
                           dnn::Descriptor y) {
    dnn::Descriptor add = make(dnn::kPointwiseDescriptor);
    int32_t mode = dnn::kPointwiseAdd, precision = dnn::kDataFloat;
    EXPECT_EQ(set(add, dnn::kAttrPointwiseMode, dnn::kTypePointwiseMode, 1, &mode),
              dnn::kSuccess);
    EXPECT_EQ(set(add, dnn::kAttrPointwiseMathPrecision, dnn::kTypeDataType, 1,
                  &precision),
              dnn::kSuccess);
    EXPECT_EQ(L.backendFinalize(add), dnn::kSuccess);
    dnn::Descriptor op = make(dnn::kPointwiseOperationDescriptor);
    EXPECT_EQ(setDescriptor(op, dnn::kAttrPointwiseOperationDesc, add),
              dnn::kSuccess);
    EXPECT_EQ(setDescriptor(op, dnn::kAttrPointwiseOperationX, x), dnn::kSuccess);
    EXPECT_EQ(setDescriptor(op, dnn::kAttrPointwiseOperationB, b), dnn::kSuccess);
    EXPECT_EQ(setDescriptor(op, dnn::kAttrPointwiseOperationY, y), dnn::kSuccess);
    EXPECT_EQ(L.backendFinalize(op), dnn::kSuccess);
    return op;
  }
  /// Executes `plan` on a new variant pack of `uids` and `pointers`.
  dnn::Status execute(dnn::Handle handle, dnn::Descriptor plan,
                      std::vector<int64_t> uids,
                      std::vector<unsigned long long> pointers,
                      unsigned long long workspace) {
    dnn::Descriptor pack = make(dnn::kVariantPackDescriptor);
    std::vector<void *> data;
    for (unsigned long long pointer : pointers)
      data.push_back(reinterpret_cast<void *>(pointer));
    void *scratch = reinterpret_cast<void *>(workspace);
    EXPECT_EQ(setInt64s(pack, dnn::kAttrVariantPackUniqueIds, uids),
              dnn::kSuccess);
    EXPECT_EQ(set(pack, dnn::kAttrVariantPackDataPointers,
                  dnn::kTypeVoidPointer, int64_t(data.size()), data.data()),
              dnn::kSuccess);
    EXPECT_EQ(set(pack, dnn::kAttrVariantPackWorkspace, dnn::kTypeVoidPointer,
                  1, &scratch),
              dnn::kSuccess);
    EXPECT_EQ(L.backendFinalize(pack), dnn::kSuccess);
    return L.backendExecute(handle, plan, pack);
  }
  const dnn::Library &L;
  std::vector<dnn::Descriptor> created;
};

TEST_F(FakeCudnn, TheFakeKeepsCudnnsRules) {
  refusalExpected = true;
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  constexpr dnn::Status kBadParam = 2000, kMisaligned = 2003,
                        kNotFinalized = 2004, kOutOfBound = 2005,
                        kSizeInsufficient = 2006, kDuplicated = 2009,
                        kAttributeType = 2010, kShape = 3002;
  Backend b(library);

  // Attributes take their type and element count; unknown ones and those
  // of finalized descriptors are refused.
  dnn::Descriptor t = b.make(dnn::kTensorDescriptor);
  int32_t uid32 = 1;
  EXPECT_EQ(b.set(t, dnn::kAttrTensorUniqueId, dnn::kTypeDataType, 1, &uid32),
            kAttributeType);
  EXPECT_TRUE(contains(fakecu_cudnn_last_error(), "takes attribute type 3"));
  EXPECT_EQ(b.setInt64s(t, dnn::kAttrTensorUniqueId, {1, 2}), kBadParam);
  EXPECT_TRUE(contains(fakecu_cudnn_last_error(), "takes 1 to 1 elements"));
  EXPECT_EQ(b.setInt64s(t, 999, {1}), kBadParam);
  EXPECT_TRUE(
      contains(fakecu_cudnn_last_error(), "is not one the fake models"));
  EXPECT_EQ(library.backendFinalize(t), kBadParam);
  EXPECT_TRUE(contains(fakecu_cudnn_last_error(),
                       "a tensor without CUDNN_ATTR_TENSOR_DATA_TYPE"));
  dnn::Descriptor x = b.tensor(1, {1, 1, 1, 4});
  EXPECT_EQ(b.setInt64s(x, dnn::kAttrTensorUniqueId, {7}), kBadParam);
  EXPECT_TRUE(
      contains(fakecu_cudnn_last_error(), "the descriptor is finalized"));

  // Descriptors are referred to once finalized; cuDNN convolves 4-d and
  // 5-d tensors only.
  dnn::Descriptor conv = b.convolution(2, dnn::kCrossCorrelation);
  dnn::Descriptor w = b.tensor(2, {1, 1, 1, 2});
  dnn::Descriptor unfinished = b.tensor(3, {1, 1, 1, 3}, false, false);
  dnn::Descriptor op = b.make(dnn::kConvolutionForwardDescriptor);
  EXPECT_EQ(b.setDescriptor(op, dnn::kAttrConvolutionForwardY, unfinished),
            kNotFinalized);
  dnn::Descriptor conv1d = b.convolution(1, dnn::kCrossCorrelation);
  dnn::Descriptor flat =
      b.forward(conv1d, b.tensor(1, {1, 1, 4}), b.tensor(2, {1, 1, 2}),
                b.tensor(3, {1, 1, 3}));
  EXPECT_EQ(library.backendFinalize(flat), kShape);
  EXPECT_TRUE(
      contains(fakecu_cudnn_last_error(), "cuDNN convolves 4-d and 5-d ones"));

  // Two tensors may not share a unique id within a graph.
  dnn::Descriptor y = b.tensor(3, {1, 1, 1, 3});
  dnn::Descriptor clash = b.forward(conv, x, w, b.tensor(1, {1, 1, 1, 3}));
  ASSERT_EQ(library.backendFinalize(clash), dnn::kSuccess);
  dnn::Descriptor graph = nullptr;
  EXPECT_EQ(b.graph({clash}, handle, graph), kDuplicated);
  EXPECT_TRUE(contains(fakecu_cudnn_last_error(), "unique id 1 names two"));

  // y = conv(x, w), x = {1, 2, 3, 4}, w = {1, 10}: cross-correlation, and
  // true convolution with the filter flipped.
  unsigned long long px = device.upload({1, 2, 3, 4});
  unsigned long long pw = device.upload({1, 10});
  unsigned long long py = device.upload({0, 0, 0});
  unsigned long long scratch = device.upload(std::vector<float>(1024));
  struct ModeCase {
    int32_t mode;
    std::vector<float> expected;
  };
  for (const ModeCase &c :
       {ModeCase{dnn::kCrossCorrelation, {21, 32, 43}},
        ModeCase{0 /* CUDNN_CONVOLUTION */, {12, 23, 34}}}) {
    dnn::Descriptor forward = b.forward(b.convolution(2, c.mode), x, w, y);
    ASSERT_EQ(library.backendFinalize(forward), dnn::kSuccess);
    ASSERT_EQ(b.graph({forward}, handle, graph), dnn::kSuccess);
    dnn::Descriptor plan = b.plan(graph, handle, 3);
    ASSERT_EQ(b.execute(handle, plan, {1, 2, 3}, {px, pw, py}, 0),
              dnn::kSuccess)
        << fakecu_cudnn_last_error();
    EXPECT_EQ(download(py, 3), c.expected) << "mode " << c.mode;
  }

  // y = conv(x, w) + bias, through a virtual tensor; rank 1 needs 4 KiB of
  // workspace.
  dnn::Descriptor between = b.tensor(10, {1, 1, 1, 3}, true);
  dnn::Descriptor bias = b.tensor(4, {1, 1, 1, 1});
  dnn::Descriptor forward = b.forward(conv, x, w, between);
  ASSERT_EQ(library.backendFinalize(forward), dnn::kSuccess);
  dnn::Descriptor addOp = b.floatAdd(between, bias, y);
  ASSERT_FALSE(::testing::Test::HasFailure());
  // A virtual tensor nothing reads is refused.
  EXPECT_EQ(b.graph({forward}, handle, graph), kBadParam);
  EXPECT_TRUE(contains(fakecu_cudnn_last_error(),
                       "writes virtual tensor 10, which no operation reads"));
  ASSERT_EQ(b.graph({addOp, forward}, handle, graph), dnn::kSuccess);
  dnn::Descriptor plan = b.plan(graph, handle, 1);
  unsigned long long pbias = device.upload({-30});
  EXPECT_EQ(b.execute(handle, plan, {1, 2, 3}, {px, pw, py}, scratch),
            kBadParam);
  EXPECT_TRUE(
      contains(fakecu_cudnn_last_error(), "the variant pack lacks tensor 4"));
  EXPECT_EQ(b.execute(handle, plan, {1, 2, 3, 4, 10}, {px, pw, py, pbias, py},
                      scratch),
            kBadParam);
  EXPECT_TRUE(
      contains(fakecu_cudnn_last_error(), "names tensor 10, which is virtual"));
  EXPECT_EQ(b.execute(handle, plan, {1, 2, 3, 4}, {px, pw, py, pbias}, 0),
            kSizeInsufficient);
  EXPECT_TRUE(
      contains(fakecu_cudnn_last_error(), "without the plan's 4096 bytes"));
  EXPECT_EQ(
      b.execute(handle, plan, {1, 2, 3, 4}, {px + 4, pw, py, pbias}, scratch),
      kMisaligned);
  EXPECT_TRUE(
      contains(fakecu_cudnn_last_error(), "is less aligned than its 16 bytes"));
  alignas(16) float host[4] = {1, 2, 3, 4};
  EXPECT_EQ(
      b.execute(handle, plan, {1, 2, 3, 4},
                {reinterpret_cast<unsigned long long>(host), pw, py, pbias},
                scratch),
      kOutOfBound);
  EXPECT_TRUE(contains(fakecu_cudnn_last_error(),
                       "is not inside one device allocation"));
  EXPECT_EQ(b.execute(handle, plan, {1, 2, 3, 4}, {px, pw, px, pbias}, scratch),
            kBadParam);
  EXPECT_TRUE(
      contains(fakecu_cudnn_last_error(), "output tensor 3 overlaps tensor 1"));
  EXPECT_EQ(fakecu_calls("cuLaunchKernel"), 0);
  ASSERT_EQ(b.execute(handle, plan, {1, 2, 3, 4}, {px, pw, py, pbias}, scratch),
            dnn::kSuccess)
      << fakecu_cudnn_last_error();
  EXPECT_EQ(download(py, 3), (std::vector<float>{-9, 2, 13}));
  EXPECT_EQ(fakecu_cudnn_last_engine_rank(), 1);
}

// SWISH_FWD is t sigmoid(beta t), beta 1 unless set (as a double or a
// float); it takes no B, and its beta no other type.
TEST_F(FakeCudnn, TheFakeComputesSwishWithItsBeta) {
  refusalExpected = true;
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  constexpr dnn::Status kBadParam = 2000, kAttributeType = 2010;
  Backend b(library);
  // y = swish(conv(x, w)) with w = {1}: swish of x itself.
  const std::vector<float> xs = {-3, -0.5f, 0, 0.25f, 2};
  dnn::Descriptor conv = b.convolution(2, dnn::kCrossCorrelation);
  dnn::Descriptor x = b.tensor(1, {1, 1, 1, 5});
  dnn::Descriptor w = b.tensor(2, {1, 1, 1, 1});
  dnn::Descriptor between = b.tensor(10, {1, 1, 1, 5}, true);
  dnn::Descriptor y = b.tensor(3, {1, 1, 1, 5});
  dnn::Descriptor forward = b.forward(conv, x, w, between);
  ASSERT_EQ(library.backendFinalize(forward), dnn::kSuccess);
  unsigned long long px = device.upload(xs), pw = device.upload({1}),
                     py = device.upload(std::vector<float>(5));
  int32_t mode = dnn::kPointwiseSwishForward, precision = dnn::kDataFloat;
  // A finalized SWISH_FWD descriptor; `setBeta` sets its beta.
  auto swish = [&](const std::function<void(dnn::Descriptor)> &setBeta) {
    dnn::Descriptor d = b.make(dnn::kPointwiseDescriptor);
    EXPECT_EQ(
        b.set(d, dnn::kAttrPointwiseMode, dnn::kTypePointwiseMode, 1, &mode),
        dnn::kSuccess);
    EXPECT_EQ(b.set(d, dnn::kAttrPointwiseMathPrecision, dnn::kTypeDataType, 1,
                    &precision),
              dnn::kSuccess);
    setBeta(d);
    EXPECT_EQ(library.backendFinalize(d), dnn::kSuccess)
        << fakecu_cudnn_last_error();
    return d;
  };
  const double two = 2.0;
  const float half = 0.5f;
  const int64_t one = 1;
  struct BetaCase {
    const char *name;
    std::function<void(dnn::Descriptor)> setBeta;
    double beta;
  };
  const BetaCase cases[] = {
      {"default", [](dnn::Descriptor) {}, 1.0},
      {"double 2",
       [&](dnn::Descriptor d) {
         EXPECT_EQ(
             b.set(d, dnn::kAttrPointwiseSwishBeta, dnn::kTypeDouble, 1, &two),
             dnn::kSuccess);
       },
       2.0},
      {"float 0.5",
       [&](dnn::Descriptor d) {
         EXPECT_EQ(
             b.set(d, dnn::kAttrPointwiseSwishBeta, dnn::kTypeFloat, 1, &half),
             dnn::kSuccess);
       },
       0.5},
  };
  for (const BetaCase &c : cases) {
    SCOPED_TRACE(c.name);
    dnn::Descriptor op = b.make(dnn::kPointwiseOperationDescriptor);
    ASSERT_EQ(
        b.setDescriptor(op, dnn::kAttrPointwiseOperationDesc, swish(c.setBeta)),
        dnn::kSuccess);
    ASSERT_EQ(b.setDescriptor(op, dnn::kAttrPointwiseOperationX, between),
              dnn::kSuccess);
    ASSERT_EQ(b.setDescriptor(op, dnn::kAttrPointwiseOperationY, y),
              dnn::kSuccess);
    ASSERT_EQ(library.backendFinalize(op), dnn::kSuccess)
        << fakecu_cudnn_last_error();
    dnn::Descriptor graph = nullptr;
    ASSERT_EQ(b.graph({forward, op}, handle, graph), dnn::kSuccess)
        << fakecu_cudnn_last_error();
    ASSERT_EQ(
        b.execute(handle, b.plan(graph, handle, 3), {1, 2, 3}, {px, pw, py}, 0),
        dnn::kSuccess)
        << fakecu_cudnn_last_error();
    std::vector<float> got = download(py, 5);
    for (size_t i = 0; i < xs.size(); ++i) {
      double t = xs[i];
      EXPECT_NEAR(got[i], t / (1 + std::exp(-c.beta * t)), 1e-6) << "x " << t;
    }
  }

  // No B; beta is a FLOAT or DOUBLE.
  dnn::Descriptor withB = b.make(dnn::kPointwiseOperationDescriptor);
  ASSERT_EQ(b.setDescriptor(withB, dnn::kAttrPointwiseOperationDesc,
                            swish([](dnn::Descriptor) {})),
            dnn::kSuccess);
  ASSERT_EQ(b.setDescriptor(withB, dnn::kAttrPointwiseOperationX, between),
            dnn::kSuccess);
  ASSERT_EQ(b.setDescriptor(withB, dnn::kAttrPointwiseOperationB, w),
            dnn::kSuccess);
  ASSERT_EQ(b.setDescriptor(withB, dnn::kAttrPointwiseOperationY, y),
            dnn::kSuccess);
  EXPECT_EQ(library.backendFinalize(withB), kBadParam);
  EXPECT_TRUE(contains(fakecu_cudnn_last_error(), "SWISH_FWD with a B"))
      << fakecu_cudnn_last_error();
  dnn::Descriptor typed = b.make(dnn::kPointwiseDescriptor);
  EXPECT_EQ(
      b.set(typed, dnn::kAttrPointwiseSwishBeta, dnn::kTypeInt64, 1, &one),
      kAttributeType);
  EXPECT_TRUE(contains(fakecu_cudnn_last_error(), "takes attribute type 5"))
      << fakecu_cudnn_last_error();
}

// Every tensor is read and written where its strides say: the same bytes
// described channels last and channels first give other numbers, and
// strides that put two elements at one address are refused.
TEST_F(FakeCudnn, TheFakeIndexesTensorsByTheirStrides) {
  refusalExpected = true;
  Device device;
  ASSERT_NO_FATAL_FAILURE(openLibrary(device));
  constexpr dnn::Status kBadParam = 2000;
  Backend b(library);
  dnn::Descriptor conv = b.convolution(2, dnn::kCrossCorrelation);
  // x: two pixels of two channels, {1, 10} and {2, 20} as NHWC; w: one
  // output of two channels, {1, 100}; y = conv(x, w) + bias, through a
  // virtual tensor.
  unsigned long long px = device.upload({1, 10, 2, 20});
  unsigned long long pw = device.upload({1, 100});
  unsigned long long pbias = device.upload({0.5f});
  unsigned long long py = device.upload({0, 0});
  struct Case {
    std::vector<int64_t> xStrides;
    std::vector<float> expected;
  };
  const Case cases[] = {
      // x NHWC ([n,c,h,w] = [1,2,1,2], strides [4,1,4,2]): c0 + 100 c1.
      {{4, 1, 4, 2}, {1001.5f, 2002.5f}},
      // The same bytes NCHW: channel 0 is {1, 10}, channel 1 {2, 20}.
      {{4, 2, 2, 1}, {201.5f, 2010.5f}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("x strides " + std::to_string(c.xStrides[1]) + ", " +
                 std::to_string(c.xStrides[3]));
    dnn::Descriptor x = b.describe(1, {1, 2, 1, 2}, c.xStrides);
    ASSERT_EQ(library.backendFinalize(x), dnn::kSuccess)
        << fakecu_cudnn_last_error();
    dnn::Descriptor w = b.tensor(2, {1, 2, 1, 1});
    dnn::Descriptor between = b.tensor(10, {1, 1, 1, 2}, true);
    dnn::Descriptor y = b.tensor(3, {1, 1, 1, 2});
    dnn::Descriptor bias = b.tensor(4, {1, 1, 1, 1});
    dnn::Descriptor forward = b.forward(conv, x, w, between);
    ASSERT_EQ(library.backendFinalize(forward), dnn::kSuccess);
    dnn::Descriptor addOp = b.floatAdd(between, bias, y);
    ASSERT_FALSE(::testing::Test::HasFailure());
    dnn::Descriptor graph = nullptr;
    ASSERT_EQ(b.graph({forward, addOp}, handle, graph), dnn::kSuccess)
        << fakecu_cudnn_last_error();
    dnn::Descriptor plan = b.plan(graph, handle, 3);
    ASSERT_EQ(b.execute(handle, plan, {1, 2, 3, 4}, {px, pw, py, pbias}, 0),
              dnn::kSuccess)
        << fakecu_cudnn_last_error();
    EXPECT_EQ(download(py, 2), c.expected);
  }

  // Overlapping elements, of X (channels and columns at stride 1) and of a
  // virtual tensor (rows over columns).
  EXPECT_EQ(library.backendFinalize(b.describe(1, {1, 2, 1, 2}, {4, 1, 4, 1})),
            kBadParam);
  EXPECT_TRUE(contains(fakecu_cudnn_last_error(),
                       "tensor 1 with dims [1,2,1,2] and strides [4,1,4,1], "
                       "which put two elements at one address"))
      << fakecu_cudnn_last_error();
  EXPECT_EQ(
      library.backendFinalize(b.describe(10, {1, 1, 3, 2}, {6, 6, 1, 1}, true)),
      kBadParam);
  EXPECT_TRUE(contains(fakecu_cudnn_last_error(), "two elements at one"));
  // Units may have any stride; nested dims any order.
  EXPECT_EQ(library.backendFinalize(b.describe(5, {1, 3, 1, 1}, {7, 1, 9, 9})),
            dnn::kSuccess);
  EXPECT_EQ(
      library.backendFinalize(b.describe(6, {2, 3, 4, 5}, {60, 1, 15, 3})),
      dnn::kSuccess);
}

//===- conv_model through sessions ----------------------------------------===//

/// A session of conv_model_cuda (or its epilogue-kernel, channels-last or
/// SiLU variants) with device buffers for x, z, s, y and y1.
struct ConvBench {
  ConvBench(graphc_model *model, uint32_t flags, bool channelsLast = false,
            int32_t conv1Epilogue = GRAPHC_EPILOGUE_RELU)
      : channelsLast(channelsLast), conv1Epilogue(conv1Epilogue) {
    if (channelsLast) {
      xShape = {2, 7, 6, 4};
      yShape = {2, 4, 3, 6};
      sShape = {2, 12, 3};
      y1Shape = {2, 9, 3};
    }
    graphc_session_options options;
    graphc_session_options_init(&options);
    options.flags = flags;
    Status status(graphc_session_create(model, &options, &session));
    EXPECT_TRUE(status.ok()) << status.message();
    if (!session)
      return;
    for (auto [buffer, bytes] :
         {std::pair{&x, 1344}, std::pair{&z, 576}, std::pair{&s, 288},
          std::pair{&y, 576}, std::pair{&y1, 216}})
      EXPECT_GRAPHC_OK(graphc_session_allocate_buffer(session, bytes, buffer));
  }
  ~ConvBench() {
    if (!session)
      return;
    for (void *buffer : {x, z, s, y, y1})
      graphc_session_free_buffer(session, buffer);
    graphc_session_release(session);
  }

  DLTensor tensor(void *data, std::vector<int64_t> &shape) {
    DLTensor t{};
    t.data = data;
    t.device = {kDLCUDA, 0};
    t.ndim = int32_t(shape.size());
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape.data();
    return t;
  }

  /// Uploads random x, z and s, runs, and checks y and y1 against
  /// conv_model's definition.
  void runAndCheck(std::mt19937 &rng) {
    std::vector<float> xs = random(336, rng), zs = random(144, rng),
                       ss = random(72, rng);
    ASSERT_GRAPHC_OK(graphc_session_upload(session, x, xs.data(), 1344));
    ASSERT_GRAPHC_OK(graphc_session_upload(session, z, zs.data(), 576));
    ASSERT_GRAPHC_OK(graphc_session_upload(session, s, ss.data(), 288));
    DLTensor inputs[3] = {tensor(x, xShape), tensor(z, yShape),
                          tensor(s, sShape)};
    DLTensor outputs[2] = {tensor(y, yShape), tensor(y1, y1Shape)};
    ASSERT_GRAPHC_OK(
        graphc_session_run(session, inputs, 3, nullptr, outputs, 2));
    std::vector<float> ys(144), y1s(54);
    ASSERT_GRAPHC_OK(graphc_session_download(session, ys.data(), y, 576));
    ASSERT_GRAPHC_OK(graphc_session_download(session, y1s.data(), y1, 216));
    convtest::ConvModelOutputs expected =
        convtest::convModelExpected(xs, zs, ss, channelsLast, conv1Epilogue);
    EXPECT_TRUE(gemmtest::near(ys, expected.y));
    EXPECT_TRUE(gemmtest::near(y1s, expected.y1));
  }

  bool channelsLast;
  int32_t conv1Epilogue;
  graphc_session *session = nullptr;
  void *x = nullptr, *z = nullptr, *s = nullptr, *y = nullptr, *y1 = nullptr;
  std::vector<int64_t> xShape = {2, 4, 7, 6}, yShape = {2, 6, 4, 3},
                       sShape = {2, 3, 12}, y1Shape = {2, 3, 9};
};

/// The replayed operations of the trace lines after the first `count`,
/// without their streams.
std::vector<std::string> replayedSince(size_t count) {
  std::vector<std::string> replay;
  for (const std::string &line : traceSince(count))
    if (line.rfind("replay: ", 0) == 0)
      replay.push_back(line.substr(0, line.rfind(' ')));
  return replay;
}

TEST_F(FakeCudnn, CapturesConvolutionStepsAndReplaysThem) {
  graphc_model *model = loadModel("conv_model_cuda");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(graphc_model_image_count(model), 0);
  {
    ConvBench bench(model, 0);
    ASSERT_NE(bench.session, nullptr);
    // One handle on the session's stream, plans made at creation.
    EXPECT_EQ(fakecu_calls("cudnnCreate"), 1);
    EXPECT_EQ(fakecu_calls("cudnnSetStream"), 1);
    EXPECT_EQ(fakecu_calls("cudnnBackendExecute"), 0);
    std::mt19937 rng(21);
    for (int run = 0; run < 3; ++run) {
      SCOPED_TRACE("run " + std::to_string(run));
      size_t before = traceLines().size();
      bench.runAndCheck(rng);
      EXPECT_EQ(replayedSince(before),
                (std::vector<std::string>{"replay: cudnnBackendExecute",
                                          "replay: cudnnBackendExecute",
                                          "replay: memcpyDtoD"}))
          << fakecu_trace();
    }
    // The staging graph at the first run, the graph bound to the repeated
    // buffers at the second; replays call nothing.
    EXPECT_EQ(fakecu_calls("cuStreamBeginCapture"), 2);
    EXPECT_EQ(fakecu_calls("cudnnBackendExecute"), 4);
    EXPECT_EQ(fakecu_calls("cuLaunchKernel"), 0);
  }
  EXPECT_EQ(fakecu_calls("cudnnDestroy"), 1);
  // Every descriptor made was destroyed with the session.
  EXPECT_EQ(fakecu_calls("cudnnBackendCreateDescriptor"),
            fakecu_calls("cudnnBackendDestroyDescriptor"));
  graphc_model_release(model);
}

TEST_F(FakeCudnn, EveryWayOfRunningAgrees) {
  std::mt19937 rng(3);
  for (const char *name : {"conv_model_cuda", "conv_model_cuda_epilogue",
                           "conv_model_cuda_silu"}) {
    graphc_model *model = loadModel(name);
    ASSERT_NE(model, nullptr);
    int32_t conv1Epilogue = std::string(name).find("silu") != std::string::npos
                                ? GRAPHC_EPILOGUE_SILU
                                : GRAPHC_EPILOGUE_RELU;
    for (uint32_t flags : {unsigned(GRAPHC_SESSION_EAGER_CAPTURE),
                           unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS),
                           unsigned(GRAPHC_SESSION_DEBUG_SYNC)}) {
      SCOPED_TRACE(std::string(name) + ", flags " + std::to_string(flags));
      fakecu_reset();
      ConvBench bench(model, flags, false, conv1Epilogue);
      ASSERT_NE(bench.session, nullptr);
      bench.runAndCheck(rng);
      bench.runAndCheck(rng);
      // Without graphs every run queues its executions itself; with them,
      // the staging graph captured at creation and the graph bound to the
      // repeated buffers at the second run queue them once each. cuDNN
      // fuses everything, so no epilogue kernel runs.
      EXPECT_EQ(fakecu_calls("cudnnBackendExecute"), 4);
      EXPECT_EQ(fakecu_calls("cuLaunchKernel"), 0);
    }
    graphc_model_release(model);
  }
}

// cuDNN fuses nothing here: each convolution runs alone and its epilogue
// kernel (the host functions registered above) finishes Y, in step order,
// in the captured graph as without one.
TEST_F(FakeCudnn, EpilogueKernelsFinishWhatCudnnDoesNotFuse) {
  graphc_model *model = loadModel("conv_model_cuda_epilogue");
  ASSERT_NE(model, nullptr);
  std::mt19937 rng(12);
  for (uint32_t flags : {0u, unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)}) {
    SCOPED_TRACE("flags " + std::to_string(flags));
    fakecu_reset();
    fakecu_cudnn_refuse_fusion(1);
    ConvBench bench(model, flags);
    ASSERT_NE(bench.session, nullptr);
    for (int run = 0; run < 2; ++run) {
      size_t before = traceLines().size();
      bench.runAndCheck(rng);
      if (flags == 0)
        EXPECT_EQ(replayedSince(before),
                  (std::vector<std::string>{"replay: cudnnBackendExecute",
                                            "replay: launch conv_bias_z_relu",
                                            "replay: cudnnBackendExecute",
                                            "replay: launch conv1d_relu",
                                            "replay: memcpyDtoD"}))
            << fakecu_trace();
    }
    // Captured twice (staging, then bound to the repeated buffers) or run
    // twice.
    EXPECT_EQ(fakecu_calls("cuLaunchKernel"), 4);
  }
  graphc_model_release(model);
}

// A probing run copies each step's result after all of the step's work:
// after the epilogue kernel that finishes Y in place, not after cuDNN's
// convolution alone.
TEST_F(FakeCudnn, ProbesFollowTheEpilogueKernels) {
  graphc_model *model = loadModel("conv_model_cuda_epilogue_probes");
  ASSERT_NE(model, nullptr);
  std::mt19937 rng(5);
  for (uint32_t flags : {0u, unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)}) {
    SCOPED_TRACE("flags " + std::to_string(flags));
    fakecu_reset();
    fakecu_cudnn_refuse_fusion(1);
    ConvBench bench(model, flags | GRAPHC_SESSION_PROBE_STEPS);
    ASSERT_NE(bench.session, nullptr);
    size_t before = traceLines().size();
    bench.runAndCheck(rng);
    if (flags == 0)
      EXPECT_EQ(
          replayedSince(before),
          (std::vector<std::string>{
              "replay: cudnnBackendExecute", "replay: launch conv_bias_z_relu",
              "replay: memcpyDtoD", "replay: cudnnBackendExecute",
              "replay: launch conv1d_relu", "replay: memcpyDtoD",
              "replay: memcpyDtoD", "replay: memcpyDtoD"}))
          << fakecu_trace();
    std::vector<float> ys(144), y1s(54);
    ASSERT_GRAPHC_OK(
        graphc_session_download(bench.session, ys.data(), bench.y, 576));
    ASSERT_GRAPHC_OK(
        graphc_session_download(bench.session, y1s.data(), bench.y1, 216));
    int32_t plan = -1, count = -1;
    ASSERT_GRAPHC_OK(graphc_session_probe_count(bench.session, &plan, &count));
    ASSERT_EQ(count, 3);
    const std::vector<float> *expected[] = {&ys, &y1s, &y1s};
    for (int32_t p = 0; p < 3; ++p) {
      graphc_probe_info info{};
      std::vector<float> values(expected[p]->size());
      ASSERT_GRAPHC_OK(graphc_session_read_probe(
          bench.session, p, &info, values.data(), values.size() * 4));
      EXPECT_EQ(info.step, p);
      EXPECT_EQ(values, *expected[p]) << "probe " << p;
    }
  }
  graphc_model_release(model);
}

// graphc_session_library_kernel_info says which convolutions cuDNN fuses
// whole and which run alone before their epilogue kernel, and the engine
// configuration planned: the fake's float32 engines are rank 1 (4 KiB of
// workspace, which the model gives) and rank 3.
TEST_F(FakeCudnn, SessionsSayWhatCudnnPlanned) {
  graphc_model *model = loadModel("conv_model_cuda_epilogue");
  ASSERT_NE(model, nullptr);
  for (int refuse : {0, 1}) {
    SCOPED_TRACE("refuse fusion " + std::to_string(refuse));
    fakecu_reset();
    fakecu_cudnn_refuse_fusion(refuse);
    ConvBench bench(model, 0);
    ASSERT_NE(bench.session, nullptr);
    for (int32_t kernel : {0, 1}) {
      SCOPED_TRACE("kernel " + std::to_string(kernel));
      graphc_library_kernel_info info;
      ASSERT_GRAPHC_OK(
          graphc_session_library_kernel_info(bench.session, kernel, &info));
      EXPECT_EQ(info.library, GRAPHC_LIBRARY_CUDNN);
      EXPECT_EQ(info.fused, refuse ? 0 : 1);
      EXPECT_EQ(info.rank, 1);
      EXPECT_EQ(info.requested_rank, 0);
      EXPECT_EQ(info.workspace_bytes, 4096u);
      // Why not fused: the fake cuDNN's refusal of the fused graph.
      const char *note = nullptr;
      ASSERT_GRAPHC_OK(
          graphc_session_library_kernel_note(bench.session, kernel, &note));
      ASSERT_NE(note, nullptr);
      if (refuse)
        EXPECT_EQ(std::string(note).rfind("fused, with ", 0), 0u) << note;
      else
        EXPECT_STREQ(note, "");
    }
    const char *note = nullptr;
    fakecutest::Status outOfRange(graphc_session_library_kernel_note(
        bench.session, graphc_model_kernel_count(model), &note));
    EXPECT_EQ(outOfRange.code(), GRAPHC_INVALID_ARGUMENT);
  }
  graphc_model_release(model);
}

// GRAPHC_SESSION_TIME_LIBRARY_ALGORITHMS times the engine configurations
// the runtime can build (the fake's ranks 1 and 3 for exact float32) and
// keeps the fastest: the fake makes all but one slower on its clock. Fused
// or not, the session then runs that engine and computes the same;
// graphc_session_time_library_kernel lists the same two.
TEST_F(FakeCudnn, TimingAtCreationPicksTheFastestEngine) {
  graphc_model *model = loadModel("conv_model_cuda_epilogue");
  ASSERT_NE(model, nullptr);
  std::mt19937 rng(12);
  for (int refuse : {0, 1})
    for (int32_t fastest : {3, 1}) {
      SCOPED_TRACE("refuse fusion " + std::to_string(refuse) +
                   ", fastest rank " + std::to_string(fastest));
      fakecu_reset();
      fakecu_cudnn_refuse_fusion(refuse);
      fakecu_cudnn_set_fastest_engine(fastest);
      auto bench = std::make_unique<ConvBench>(
          model, GRAPHC_SESSION_TIME_LIBRARY_ALGORITHMS);
      ASSERT_NE(bench->session, nullptr);
      for (int32_t kernel : {0, 1}) {
        graphc_library_kernel_info info;
        ASSERT_GRAPHC_OK(
            graphc_session_library_kernel_info(bench->session, kernel, &info));
        EXPECT_EQ(info.rank, fastest) << "kernel " << kernel;
        EXPECT_EQ(info.requested_rank, 0);
        EXPECT_EQ(info.fused, refuse ? 0 : 1);
      }
      bench->runAndCheck(rng);
      EXPECT_EQ(fakecu_cudnn_last_engine_rank(), fastest);
      graphc_library_candidate candidates[8];
      int32_t count = 0;
      ASSERT_GRAPHC_OK(graphc_session_time_library_kernel(
          bench->session, 0, GRAPHC_MAX_ALGO_RANKS, 1, 0, 2, candidates, 8,
          &count));
      ASSERT_EQ(count, 2);
      EXPECT_EQ(candidates[0].rank, 1);
      EXPECT_EQ(candidates[1].rank, 3);
      EXPECT_EQ(candidates[0].split_k, 0);
      EXPECT_EQ(candidates[fastest == 1 ? 0 : 1].micros <
                    candidates[fastest == 1 ? 1 : 0].micros,
                true);
      bench.reset();
    }
  graphc_model_release(model);
}

// The channels-last models: cuDNN fuses every convolution, or (fusion
// refused) runs each alone and their epilogue kernels, which index y as
// [2,4,3,6], finish it; captured or not.
TEST_F(FakeCudnn, RunsChannelsLastModels) {
  static const unsigned five[] = {8, 8, 8, 8, 8};
  fakecu_register_kernel("conv_bias_z_relu", convBiasZReluNhwcKernel, 5, five);
  std::mt19937 rng(14);
  for (const char *name :
       {"conv_model_cuda_nhwc", "conv_model_cuda_epilogue_nhwc"}) {
    graphc_model *model = loadModel(name);
    ASSERT_NE(model, nullptr);
    bool epilogue = std::string(name).find("epilogue") != std::string::npos;
    for (bool refuse : {false, true}) {
      if (refuse && !epilogue)
        continue;
      for (uint32_t flags :
           {0u, unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)}) {
        SCOPED_TRACE(std::string(name) + (refuse ? ", fusion refused" : "") +
                     ", flags " + std::to_string(flags));
        fakecu_reset();
        fakecu_cudnn_refuse_fusion(refuse);
        ConvBench bench(model, flags, true);
        ASSERT_NE(bench.session, nullptr);
        bench.runAndCheck(rng);
        bench.runAndCheck(rng);
        // Two runs, or two captures: staging, then bound to the repeated
        // buffers.
        int runs = 2;
        EXPECT_EQ(fakecu_calls("cudnnBackendExecute"), 2 * runs);
        EXPECT_EQ(fakecu_calls("cuLaunchKernel"), refuse ? 2 * runs : 0);
      }
    }
    graphc_model_release(model);
  }
}

/// Sets GRAPHC_CUDNN_LIBRARY for the scope.
struct CudnnPath {
  explicit CudnnPath(const std::string &path) {
    setenv("GRAPHC_CUDNN_LIBRARY", path.c_str(), 1);
  }
  ~CudnnPath() { setenv("GRAPHC_CUDNN_LIBRARY", fakeCudaLibrary(), 1); }
};

TEST_F(FakeCudnn, AMissingLibraryIsAStatusAtLoad) {
  CudnnPath missing("/nonexistent/libcudnn.so.9");
  graphc_model_options options;
  graphc_model_options_init(&options);
  options.flags = GRAPHC_MODEL_SKIP_CHECKSUM;
  graphc_model *model = nullptr;
  std::string path = modelPath("conv_model_cuda");
  Status status(graphc_model_load(path.c_str(), &options, &model));
  EXPECT_EQ(status.code(), GRAPHC_UNAVAILABLE);
  EXPECT_EQ(model, nullptr);
  std::string expected = "model '" + path +
                         "' kernel 'conv_bias_z_relu' (ONNX nodes "
                         "Conv_0,Add_1,Relu_2) calls cuDNN: cannot open "
                         "/nonexistent/libcudnn.so.9 (";
  EXPECT_EQ(status.message().substr(0, expected.size()), expected)
      << status.message();
  // A model without cuDNN kernels never opens it.
  model = loadModel("gemm_model_cuda");
  EXPECT_NE(model, nullptr);
  graphc_model_release(model);
  // Nor does inspecting one that has them.
  options.flags |= GRAPHC_MODEL_INSPECT_ONLY;
  EXPECT_GRAPHC_OK(graphc_model_load(path.c_str(), &options, &model));
  graphc_model_release(model);
}

TEST_F(FakeCudnn, ALibraryThatIsNotCudnnIsAStatusAtLoad) {
  std::string other = modelPath("fake_cuda_model");
  CudnnPath notCudnn(other);
  graphc_model_options options;
  graphc_model_options_init(&options);
  options.flags = GRAPHC_MODEL_SKIP_CHECKSUM;
  graphc_model *model = nullptr;
  Status status(graphc_model_load(modelPath("conv_model_cuda").c_str(),
                                  &options, &model));
  EXPECT_EQ(status.code(), GRAPHC_UNAVAILABLE);
  EXPECT_TRUE(contains(status.message(),
                       "calls cuDNN: " + other +
                           " lacks cudnnGetVersion (not cuDNN 9, or too old)"))
      << status.message();
}

TEST_F(FakeCudnn, NoEngineIsAStatusNamingTheKernel) {
  refusalExpected = true;
  graphc_model *model = loadModel("conv_model_cuda");
  ASSERT_NE(model, nullptr);
  graphc_session *session = nullptr;
  fakecu_cudnn_refuse_fusion(1);
  Status refused(graphc_session_create(model, nullptr, &session));
  EXPECT_EQ(refused.code(), GRAPHC_FAILED_PRECONDITION);
  EXPECT_EQ(session, nullptr);
  EXPECT_TRUE(contains(refused.message(),
                       "cannot run kernel 'conv_bias_z_relu' (ONNX nodes "
                       "Conv_0,Add_1,Relu_2) on cuDNN on cuda:0 for model '"))
      << refused.message();
  EXPECT_TRUE(contains(
      refused.message(),
      "': cuDNN 9.19.0 (" + std::string(fakeCudaLibrary()) +
          ") has no engine for the convolution n 2, c 4, in 7x6, k 6, "
          "filter 3x2, groups 2, stride 2x2, dilation 1x2, float32, NCHW, "
          "with bias, Z and relu within 4096 bytes of workspace (fused, with "
          "bias, Z and relu: its heuristic offers no engine; and the kernel "
          "has no epilogue kernel to run after the convolution alone)"))
      << refused.message();
  fakecu_cudnn_refuse_fusion(0);

  // The steps give the convolutions 4096 bytes of workspace: an engine that
  // needs all of it is found and gets it, one that needs more is not.
  fakecu_cudnn_require_workspace(4096);
  {
    ConvBench bench(model, 0);
    ASSERT_NE(bench.session, nullptr);
    std::mt19937 rng(8);
    bench.runAndCheck(rng);
  }
  fakecu_cudnn_require_workspace(4097);
  Status tooSmall(graphc_session_create(model, nullptr, &session));
  EXPECT_EQ(tooSmall.code(), GRAPHC_FAILED_PRECONDITION);
  EXPECT_TRUE(
      contains(tooSmall.message(), "rank 1: it needs 4097 bytes of workspace"))
      << tooSmall.message();
  graphc_model_release(model);
}

} // namespace
