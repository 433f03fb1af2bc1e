//===- ConvStepsTest.cpp - cuDNN convolution steps without a GPU ----------===//
//
// checkDescriptor on hand-built descriptors with one convolution step, one
// fault each (every rule refuses with a message naming the kernel);
// conv_model.so and its channels-last variant run on the cpu target (their
// convolutions by the reference convolution) against plain loops; and the
// artifact reader's view of convolution kernels, which `graphc inspect`
// prints.
//
//===----------------------------------------------------------------------===//
#include "ConvTestSupport.h"
#include "TestModelPath.h"
#include "GemmTestSupport.h"

#include "graphc/runtime.h"
#include "lib/Artifact/ArtifactReader.h"
#include "runtime/src/DescriptorCheck.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace {

struct Status {
  explicit Status(graphc_status status) : status(status) {}
  ~Status() { graphc_status_free(status); }
  Status(const Status &) = delete;
  bool ok() const { return status == nullptr; }
  graphc_code code() const { return graphc_status_code(status); }
  std::string message() const { return graphc_status_message(status); }
  graphc_status status;
};

int hostFunction(void *const *, char *, uint64_t) { return 0; }

//===- Descriptor checks --------------------------------------------------===//

/// A valid cpu model with one convolution step, conv_model.c's first:
/// y = relu(conv(x, W) + bias + z) for x: [2,4,7,6] (input 0), W: [6,2,3,2]
/// and bias: [6] (weights), z: [2,6,4,3] (input 1), y: [2,6,4,3]
/// (output), and an arena workspace. Tests break one thing and read the
/// message.
struct ConvModel {
  ConvModel() {
    conv = convtest::modelConv0();
    kernels[0] = {"conv", "conv", "Conv_0", 1, nullptr};
    kernels[0].library = GRAPHC_LIBRARY_CUDNN;
    kernels[0].conv = &conv;
    kernels[0].unit = -1;
    kernels[1] = {"host", "pointwise", "Neg_1", 2, hostFunction};
    args[0] = {GRAPHC_BUFFER_INPUT, 0, 0, 1344};
    args[1] = {GRAPHC_BUFFER_WEIGHTS, 0, 0, 288};
    args[2] = {GRAPHC_BUFFER_WEIGHTS, 0, 288, 24};
    args[3] = {GRAPHC_BUFFER_INPUT, 1, 0, 576};
    args[4] = {GRAPHC_BUFFER_OUTPUT, 0, 0, 576};
    args[5] = {GRAPHC_BUFFER_ARENA, 0, 3072, 1024};
    steps[0] = {GRAPHC_STEP_LIBRARY_CALL, 0, {0}, {0}, 0, 6, args};
    plans[0] = {"static", inputDims, outputDims, 4096, 0, 1, steps};
    desc.abi_version = GRAPHC_ABI_VERSION;
    desc.target = GRAPHC_TARGET_CPU;
    desc.num_inputs = 2;
    desc.inputs = inputs;
    desc.num_outputs = 1;
    desc.outputs = outputs;
    desc.num_plans = 1;
    desc.plans = plans;
    desc.num_kernels = 2;
    desc.kernels = kernels;
    desc.weights = weights;
    desc.weights_size = sizeof(weights);
  }
  ConvModel(const ConvModel &) = delete;

  /// A cuda model whose convolution has an epilogue kernel in unit 0 of
  /// its one image.
  void withEpilogueKernel() {
    desc.target = GRAPHC_TARGET_CUDA;
    desc.images = images;
    desc.num_images = 1;
    desc.num_units = 1;
    kernels[0].unit = 0;
    conv.has_epilogue_kernel = 1;
    for (int d = 0; d < 3; ++d)
      conv.epilogue_grid[d] = conv.epilogue_block[d] = 1;
    conv.epilogue_block[0] = 144;
  }

  std::string check() const { return graphc::rt::checkDescriptor(desc); }

  int64_t xDims[4] = {2, 4, 7, 6}, yDims[4] = {2, 6, 4, 3};
  const char *names[4] = {"", "", "", ""};
  graphc_tensor_desc inputs[2] = {{"x", 1, 4, xDims, names},
                                  {"z", 1, 4, yDims, names}};
  graphc_tensor_desc outputs[1] = {{"y", 1, 4, yDims, names}};
  const int64_t *inputDims[2] = {xDims, yDims};
  const int64_t *outputDims[1] = {yDims};
  alignas(GRAPHC_ALIGNMENT) float weights[256] = {};
  graphc_conv_desc conv;
  graphc_gemm_desc gemm{};
  graphc_kernel_desc kernels[2] = {};
  graphc_buffer_ref args[6];
  graphc_step_desc steps[1];
  graphc_plan_desc plans[1];
  graphc_image_desc images[1] = {{80, GRAPHC_IMAGE_CUBIN, "image", 6, 0}};
  graphc_model_desc desc = {};
};

TEST(ConvDescriptorCheck, AcceptsValidConvolutionSteps) {
  ConvModel model;
  EXPECT_EQ(model.check(), "");
  // The workspace may be absent; a cuda model of library steps only needs
  // no image.
  model.args[5] = {GRAPHC_BUFFER_NONE, 0, 0, 0};
  model.desc.target = GRAPHC_TARGET_CUDA;
  EXPECT_EQ(model.check(), "");
  // An epilogue kernel lives in a unit, like a generated kernel.
  model.withEpilogueKernel();
  EXPECT_EQ(model.check(), "");
  // Y may be in the arena, 1-d and 3-d convolutions have entries to 0 past
  // their dims.
  ConvModel arena;
  arena.args[4] = {GRAPHC_BUFFER_ARENA, 0, 0, 576};
  EXPECT_EQ(arena.check(), "");
  ConvModel oneD;
  oneD.conv = convtest::modelConv1(); // X, W, -, -, Y, workspace
  oneD.args[0].size = 2 * 3 * 12 * 4;
  oneD.args[1].size = 3 * 4 * 4;
  oneD.args[4].size = 2 * 3 * 9 * 4;
  EXPECT_EQ(oneD.check(), "");
  // Channels last: the same bytes in another order.
  ConvModel nhwc;
  nhwc.conv.channels_last = 1;
  const int64_t xDims[] = {2, 7, 6, 4}, yDims[] = {2, 4, 3, 6};
  std::copy(std::begin(xDims), std::end(xDims), nhwc.xDims);
  std::copy(std::begin(yDims), std::end(yDims), nhwc.yDims);
  EXPECT_EQ(nhwc.check(), "");
  // SiLU, fused or by an epilogue kernel.
  ConvModel silu;
  silu.conv.epilogue = GRAPHC_EPILOGUE_SILU;
  EXPECT_EQ(silu.check(), "");
  silu.withEpilogueKernel();
  silu.conv.bias_arg = silu.conv.z_arg = -1;
  EXPECT_EQ(silu.check(), "");
}

struct Fault {
  const char *name;
  std::function<void(ConvModel &)> breakIt;
  std::string message;
};

const int64_t kHuge = int64_t(1) << 40;

const Fault kFaults[] = {
    // The kernel record.
    {"cuDNN without a convolution",
     [](ConvModel &m) { m.kernels[0].conv = nullptr; },
     "kernel 'conv' calls cuDNN without a convolution or attention record"},
    {"convolution without a library",
     [](ConvModel &m) { m.kernels[0].library = GRAPHC_LIBRARY_NONE; },
     "kernel 'conv' has a convolution record but calls no library"},
    {"convolution on cuBLASLt",
     [](ConvModel &m) { m.kernels[0].library = GRAPHC_LIBRARY_CUBLASLT; },
     "kernel 'conv' has a convolution record but calls cuBLASLt"},
    {"GEMM on cuDNN", [](ConvModel &m) { m.kernels[0].gemm = &m.gemm; },
     "kernel 'conv' has a GEMM record but calls cuDNN"},
    // The convolution record.
    {"no spatial dims", [](ConvModel &m) { m.conv.spatial_dims = 0; },
     "kernel 'conv': convolution has 0 spatial dims (1 to 3)"},
    {"four spatial dims", [](ConvModel &m) { m.conv.spatial_dims = 4; },
     "kernel 'conv': convolution has 4 spatial dims (1 to 3)"},
    {"zero n", [](ConvModel &m) { m.conv.n = 0; },
     "kernel 'conv': convolution n is 0 (at least 1)"},
    {"negative c", [](ConvModel &m) { m.conv.c = -4; },
     "kernel 'conv': convolution c is -4 (at least 1)"},
    {"zero k", [](ConvModel &m) { m.conv.k = 0; },
     "kernel 'conv': convolution k is 0 (at least 1)"},
    {"zero groups", [](ConvModel &m) { m.conv.groups = 0; },
     "kernel 'conv': convolution groups is 0 (at least 1)"},
    {"groups not dividing c", [](ConvModel &m) { m.conv.groups = 3; },
     "kernel 'conv': convolution has 3 groups, which do not divide c 4 and "
     "k 6"},
    {"groups not dividing k", [](ConvModel &m) { m.conv.groups = 4; },
     "kernel 'conv': convolution has 4 groups, which do not divide c 4 and "
     "k 6"},
    {"zero in_size", [](ConvModel &m) { m.conv.in_size[1] = 0; },
     "kernel 'conv': convolution in_size[1] is 0 (at least 1)"},
    {"zero filter", [](ConvModel &m) { m.conv.filter_size[0] = 0; },
     "kernel 'conv': convolution filter_size[0] is 0 (at least 1)"},
    {"negative pad", [](ConvModel &m) { m.conv.pads_begin[0] = -1; },
     "kernel 'conv': convolution pads_begin[0] is -1 (at least 0)"},
    {"negative end pad", [](ConvModel &m) { m.conv.pads_end[1] = -2; },
     "kernel 'conv': convolution pads_end[1] is -2 (at least 0)"},
    {"zero stride", [](ConvModel &m) { m.conv.strides[1] = 0; },
     "kernel 'conv': convolution strides[1] is 0 (at least 1)"},
    {"zero dilation", [](ConvModel &m) { m.conv.dilations[0] = 0; },
     "kernel 'conv': convolution dilations[0] is 0 (at least 1)"},
    {"entry past the spatial dims", [](ConvModel &m) { m.conv.in_size[2] = 1; },
     "kernel 'conv': convolution in_size[2] is 1, past its 2 spatial dims "
     "(0 there)"},
    {"stride past the spatial dims",
     [](ConvModel &m) { m.conv.strides[2] = 1; },
     "kernel 'conv': convolution strides[2] is 1, past its 2 spatial dims"},
    {"out_size off the formula", [](ConvModel &m) { m.conv.out_size[0] = 5; },
     "kernel 'conv': convolution out_size[0] is 5, but (in + pads - "
     "dilation * (filter - 1) - 1) / stride + 1 is 4"},
    {"filter wider than the padded input",
     [](ConvModel &m) { m.conv.filter_size[1] = 5; },
     "kernel 'conv': convolution spatial dim 1: the filter spans 9 elements "
     "of a padded input of 7"},
    {"spatial sizes overflow",
     [](ConvModel &m) { m.conv.in_size[0] = INT64_MAX; },
     "kernel 'conv': convolution spatial dim 0 spans more than a size can "
     "hold"},
    {"GEMM epilogue",
     [](ConvModel &m) { m.conv.epilogue = GRAPHC_EPILOGUE_GELU_TANH; },
     "kernel 'conv': convolution has epilogue 2 (none, relu, silu or "
     "gelu_erf)"},
    {"unknown epilogue", [](ConvModel &m) { m.conv.epilogue = 5; },
     "kernel 'conv': convolution has epilogue 5 (none, relu, silu or "
     "gelu_erf)"},
    {"integer tensors", [](ConvModel &m) { m.conv.dtype = 6; },
     "kernel 'conv': convolution has int32 tensors computing in float32 "
     "(float32, float16 or bfloat16 computing in float32, or int8 in "
     "int32)"},
    {"int8 computing in float32", [](ConvModel &m) { m.conv.dtype = 3; },
     "kernel 'conv': convolution has int8 tensors computing in float32"},
    {"int8 with bias, Z and relu",
     [](ConvModel &m) {
       m.conv.dtype = 3;
       m.conv.compute_dtype = 6;
     },
     "kernel 'conv': convolution is an int8 convolution with a bias, Z, "
     "epilogue or epilogue kernel (bias_arg 2, z_arg 3, epilogue 1, "
     "has_epilogue_kernel 0): it writes the int32 sum as it is"},
    {"unknown dtype", [](ConvModel &m) { m.conv.dtype = 99; },
     "kernel 'conv': convolution has dtype 99 tensors computing in float32"},
    {"float16 computation", [](ConvModel &m) { m.conv.compute_dtype = 10; },
     "kernel 'conv': convolution has float32 tensors computing in float16"},
    {"tf32 flag", [](ConvModel &m) { m.conv.tf32 = 2; },
     "kernel 'conv': convolution has tf32 2 (0 or 1)"},
    {"tf32 of float16",
     [](ConvModel &m) {
       m.conv.dtype = 10;
       m.conv.tf32 = 1;
     },
     "kernel 'conv': convolution rounds to tf32 but its tensors are "
     "float16"},
    {"channels_last flag", [](ConvModel &m) { m.conv.channels_last = 2; },
     "kernel 'conv': convolution has channels_last 2 (0 or 1)"},
    {"negative channels_last", [](ConvModel &m) { m.conv.channels_last = -1; },
     "kernel 'conv': convolution has channels_last -1 (0 or 1)"},
    {"tuned flag", [](ConvModel &m) { m.conv.tuned = 3; },
     "kernel 'conv': convolution has tuned 3 (0 or 1)"},
    {"no X", [](ConvModel &m) { m.conv.x_arg = -1; },
     "kernel 'conv': convolution lacks X, W, Y or the workspace (x_arg -1, "
     "w_arg 1, bias_arg 2, z_arg 3, y_arg 4, workspace_arg 5)"},
    {"bias index below -1", [](ConvModel &m) { m.conv.bias_arg = -2; },
     "kernel 'conv': convolution lacks X, W, Y or the workspace"},
    {"engine rank past the heuristic's",
     [](ConvModel &m) { m.conv.engine_rank = GRAPHC_MAX_ALGO_RANKS; },
     "kernel 'conv': convolution asks for engine rank 32 (0 to 31)"},
    {"negative engine rank", [](ConvModel &m) { m.conv.engine_rank = -1; },
     "kernel 'conv': convolution asks for engine rank -1 (0 to 31)"},
    {"extent overflows",
     [](ConvModel &m) {
       m.conv.n = kHuge;
       m.conv.c = kHuge;
     },
     "kernel 'conv': convolution spans more bytes than a size can hold"},
    // The epilogue kernel.
    {"epilogue kernel flag",
     [](ConvModel &m) {
       m.withEpilogueKernel();
       m.conv.has_epilogue_kernel = 2;
     },
     "kernel 'conv': convolution has has_epilogue_kernel 2 (0 or 1)"},
    {"epilogue kernel in a cpu model",
     [](ConvModel &m) {
       m.withEpilogueKernel();
       m.desc.target = GRAPHC_TARGET_CPU;
     },
     "kernel 'conv': convolution has an epilogue kernel in a cpu model"},
    {"epilogue kernel with nothing to do",
     [](ConvModel &m) {
       m.withEpilogueKernel();
       m.conv.bias_arg = m.conv.z_arg = -1;
       m.conv.epilogue = GRAPHC_EPILOGUE_NONE;
     },
     "kernel 'conv': convolution has an epilogue kernel but no bias, Z or "
     "epilogue for it to apply"},
    {"epilogue kernel's block too wide",
     [](ConvModel &m) {
       m.withEpilogueKernel();
       m.conv.epilogue_block[0] = 2048;
     },
     "kernel 'conv': convolution launches its epilogue kernel with grid "
     "1x1x1 and block 2048x1x1, beyond what CUDA launches"},
    {"epilogue kernel's empty grid",
     [](ConvModel &m) {
       m.withEpilogueKernel();
       m.conv.epilogue_grid[2] = 0;
     },
     "kernel 'conv': convolution launches its epilogue kernel with grid "
     "1x1x0 and block 144x1x1, beyond what CUDA launches"},
    {"epilogue kernel's grid too tall",
     [](ConvModel &m) {
       m.withEpilogueKernel();
       m.conv.epilogue_grid[1] = 65536;
     },
     "with grid 1x65536x1 and block 144x1x1, beyond what CUDA launches"},
    {"epilogue kernel's block too large",
     [](ConvModel &m) {
       m.withEpilogueKernel();
       m.conv.epilogue_block[0] = 32;
       m.conv.epilogue_block[1] = 32;
       m.conv.epilogue_block[2] = 2;
     },
     "kernel 'conv': convolution launches its epilogue kernel with 2048 "
     "threads a block (at most 1024)"},
    {"epilogue kernel out of the units",
     [](ConvModel &m) {
       m.withEpilogueKernel();
       m.kernels[0].unit = 1;
     },
     "kernel 'conv' is in unit 1, out of range (the model has 1)"},
    {"epilogue kernel without an image",
     [](ConvModel &m) {
       m.withEpilogueKernel();
       m.desc.num_images = 0;
       m.desc.num_units = 0;
     },
     "kernel 'conv' has an epilogue or fallback kernel but the model has "
     "no device image"},
    // Steps and kernels.
    {"launch of a cuDNN kernel",
     [](ConvModel &m) {
       m.withEpilogueKernel();
       m.steps[0].kind = GRAPHC_STEP_LAUNCH;
     },
     "plan 'static' step 0 launches kernel 'conv', which cuDNN computes (a "
     "library call step)"},
    // A step's arguments against its convolution.
    {"workspace not last", [](ConvModel &m) { m.conv.workspace_arg = 4; },
     "plan 'static' step 0 (kernel 'conv') has 6 arguments but the "
     "convolution's workspace is argument 4 (the last one)"},
    {"operand past the arguments", [](ConvModel &m) { m.conv.z_arg = 5; },
     "plan 'static' step 0 (kernel 'conv'): the convolution's Z is argument "
     "5, not one of the 5 arguments before the workspace"},
    {"absent X",
     [](ConvModel &m) {
       m.args[0] = {GRAPHC_BUFFER_NONE, 0, 0, 0};
     },
     "plan 'static' step 0 (kernel 'conv'): the convolution's X (argument 0) "
     "is absent"},
    {"short W", [](ConvModel &m) { m.args[1].size = 284; },
     "plan 'static' step 0 (kernel 'conv'): the convolution's W (argument 1) "
     "has 284 bytes and the tensor 288"},
    {"long bias", [](ConvModel &m) { m.args[2].size = 28; },
     "the convolution's bias (argument 2) has 28 bytes and the tensor 24"},
    {"short Y",
     [](ConvModel &m) {
       m.args[4] = {GRAPHC_BUFFER_ARENA, 0, 0, 572};
     },
     "the convolution's Y (argument 4) has 572 bytes and the tensor 576"},
    {"Y in the weights",
     [](ConvModel &m) {
       m.args[4] = {GRAPHC_BUFFER_WEIGHTS, 0, 0, 576};
     },
     "plan 'static' step 0 (kernel 'conv'): the convolution writes Y "
     "(argument 4) into the weights"},
    {"Y in an input",
     [](ConvModel &m) {
       m.args[4] = {GRAPHC_BUFFER_INPUT, 1, 0, 576};
     },
     "the convolution writes Y (argument 4) into an input"},
    {"Y over X",
     [](ConvModel &m) {
       m.args[0] = {GRAPHC_BUFFER_ARENA, 0, 0, 1344};
       m.args[4] = {GRAPHC_BUFFER_ARENA, 0, 1024, 576};
     },
     "plan 'static' step 0 (kernel 'conv'): the convolution's Y (argument 4) "
     "overlaps its X (argument 0)"},
    {"Y is Z",
     [](ConvModel &m) {
       m.args[3] = {GRAPHC_BUFFER_OUTPUT, 0, 0, 576};
     },
     "the convolution's Y (argument 4) overlaps its Z (argument 3)"},
    {"workspace in the weights",
     [](ConvModel &m) {
       m.args[5] = {GRAPHC_BUFFER_WEIGHTS, 0, 0, 16};
     },
     "plan 'static' step 0 (kernel 'conv'): the convolution's workspace is "
     "not in the arena"},
    {"workspace over Y",
     [](ConvModel &m) {
       m.args[4] = {GRAPHC_BUFFER_ARENA, 0, 2560, 576};
     },
     "plan 'static' step 0 (kernel 'conv'): the convolution's workspace "
     "overlaps its Y"},
    {"workspace over X",
     [](ConvModel &m) {
       m.args[0] = {GRAPHC_BUFFER_ARENA, 0, 2048, 1344};
     },
     "the convolution's workspace overlaps its X"},
};

class ConvDescriptorFault : public ::testing::TestWithParam<Fault> {};

TEST_P(ConvDescriptorFault, IsRefusedWithItsReason) {
  ConvModel model;
  ASSERT_EQ(model.check(), "");
  GetParam().breakIt(model);
  std::string problem = model.check();
  EXPECT_NE(problem.find(GetParam().message), std::string::npos)
      << "got: " << problem;
}

INSTANTIATE_TEST_SUITE_P(Runtime, ConvDescriptorFault,
                         ::testing::ValuesIn(kFaults),
                         [](const ::testing::TestParamInfo<Fault> &info) {
                           std::string name = info.param.name;
                           for (char &c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

//===- conv_model.so on the cpu target ------------------------------------===//

DLTensor hostTensor(std::vector<float> &values, std::vector<int64_t> &shape) {
  DLTensor tensor{};
  tensor.data = values.data();
  tensor.device = {kDLCPU, 0};
  tensor.ndim = static_cast<int32_t>(shape.size());
  tensor.dtype = {kDLFloat, 32, 1};
  tensor.shape = shape.data();
  return tensor;
}

std::vector<float> random(size_t count, std::mt19937 &rng) {
  std::uniform_real_distribution<float> values(-1, 1);
  std::vector<float> out(count);
  for (float &value : out)
    value = values(rng);
  return out;
}

/// Runs conv_model (or its channels-last or SiLU variant) on the cpu target
/// twice and checks y and y1 against conv_model's definition, its second
/// convolution's epilogue `conv1Epilogue`.
void runConvModel(const char *name, bool channelsLast,
                  int32_t conv1Epilogue = GRAPHC_EPILOGUE_RELU) {
  graphc_model *model = nullptr;
  Status loaded(graphc_model_load(modelPath(name).c_str(), nullptr, &model));
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  graphc_session *session = nullptr;
  Status created(graphc_session_create(model, nullptr, &session));
  ASSERT_TRUE(created.ok()) << created.message();
  std::mt19937 rng(17);
  std::vector<int64_t> xShape = {2, 4, 7, 6}, yShape = {2, 6, 4, 3},
                       sShape = {2, 3, 12}, y1Shape = {2, 3, 9};
  if (channelsLast) {
    xShape = {2, 7, 6, 4};
    yShape = {2, 4, 3, 6};
    sShape = {2, 12, 3};
    y1Shape = {2, 9, 3};
  }
  for (int run = 0; run < 2; ++run) {
    std::vector<float> x = random(336, rng), z = random(144, rng),
                       s = random(72, rng), y(144, -1), y1(54, -1);
    DLTensor inputs[3] = {hostTensor(x, xShape), hostTensor(z, yShape),
                          hostTensor(s, sShape)};
    DLTensor outputs[2] = {hostTensor(y, yShape), hostTensor(y1, y1Shape)};
    Status ran(graphc_session_run(session, inputs, 3, nullptr, outputs, 2));
    ASSERT_TRUE(ran.ok()) << ran.message();
    convtest::ConvModelOutputs expected =
        convtest::convModelExpected(x, z, s, channelsLast, conv1Epilogue);
    EXPECT_TRUE(gemmtest::near(y, expected.y));
    EXPECT_TRUE(gemmtest::near(y1, expected.y1));
  }
  graphc_session_release(session);
  graphc_model_release(model);
}

TEST(ConvStepsCpu, RunsConvolutionsWithTheReferenceConvolution) {
  runConvModel("conv_model", false);
}

TEST(ConvStepsCpu, RunsChannelsLastConvolutions) {
  runConvModel("conv_model_nhwc", true);
}

TEST(ConvStepsCpu, RunsSiluConvolutions) {
  runConvModel("conv_model_silu", false, GRAPHC_EPILOGUE_SILU);
}

//===- The artifact reader ------------------------------------------------===//

graphc::rt::ArtifactRead readModel(const std::string &name) {
  std::ifstream in(modelPath(name), std::ios::binary);
  std::vector<char> bytes(std::istreambuf_iterator<char>(in), {});
  return graphc::rt::readArtifact(bytes.data(), bytes.size());
}

TEST(ConvStepsArtifact, ReaderSeesConvolutionKernels) {
  graphc::rt::ArtifactRead read = readModel("conv_model_cuda_epilogue");
  ASSERT_EQ(read.error, graphc::rt::ArtifactError::none) << read.message;
  const graphc::rt::ArtifactView &view = read.view;
  ASSERT_EQ(view.kernels.size(), 2u);
  EXPECT_STREQ(graphc::rt::libraryName(view.kernels[0].library), "cudnn");
  EXPECT_FALSE(view.kernels[0].gemm);
  ASSERT_TRUE(view.kernels[0].conv);
  const graphc::rt::ArtifactConv &conv = *view.kernels[0].conv;
  EXPECT_EQ(conv.spatialDims, 2);
  EXPECT_EQ(conv.n, 2);
  EXPECT_EQ(conv.c, 4);
  EXPECT_EQ(conv.k, 6);
  EXPECT_EQ(conv.groups, 2);
  EXPECT_EQ(conv.inSize, (std::vector<int64_t>{7, 6}));
  EXPECT_EQ(conv.filterSize, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(conv.outSize, (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(conv.padsBegin, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(conv.padsEnd, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(conv.strides, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(conv.dilations, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(conv.epilogue, GRAPHC_EPILOGUE_RELU);
  EXPECT_EQ(conv.biasArg, 2);
  EXPECT_EQ(conv.zArg, 3);
  EXPECT_EQ(conv.workspaceArg, 5);
  EXPECT_TRUE(conv.hasEpilogueKernel);
  EXPECT_EQ(conv.epilogueBlock[0], 144u);
  EXPECT_FALSE(conv.channelsLast);
  EXPECT_EQ(view.kernels[0].unit, 0);
  ASSERT_TRUE(view.kernels[1].conv);
  EXPECT_EQ(view.kernels[1].conv->spatialDims, 1);
  EXPECT_EQ(view.kernels[1].conv->dilations, (std::vector<int64_t>{2}));
  EXPECT_EQ(view.kernels[1].conv->zArg, -1);
  ASSERT_EQ(view.plans.size(), 1u);
  ASSERT_EQ(view.plans[0].steps.size(), 3u);
  EXPECT_EQ(view.plans[0].steps[0].kind, GRAPHC_STEP_LIBRARY_CALL);
  EXPECT_EQ(view.plans[0].steps[1].kind, GRAPHC_STEP_LIBRARY_CALL);
  EXPECT_EQ(view.plans[0].steps[2].kind, GRAPHC_STEP_COPY);
  // Without epilogue kernels the model has no image at all.
  read = readModel("conv_model_cuda");
  ASSERT_EQ(read.error, graphc::rt::ArtifactError::none) << read.message;
  EXPECT_TRUE(read.view.images.empty());
  ASSERT_TRUE(read.view.kernels[0].conv);
  EXPECT_FALSE(read.view.kernels[0].conv->hasEpilogueKernel);
  // The channels-last variant says so of both kernels, and nothing else
  // differs.
  read = readModel("conv_model_cuda_epilogue_nhwc");
  ASSERT_EQ(read.error, graphc::rt::ArtifactError::none) << read.message;
  ASSERT_EQ(read.view.kernels.size(), 2u);
  for (const graphc::rt::ArtifactKernel &kernel : read.view.kernels) {
    ASSERT_TRUE(kernel.conv);
    EXPECT_TRUE(kernel.conv->channelsLast) << kernel.name;
    EXPECT_TRUE(kernel.conv->hasEpilogueKernel) << kernel.name;
  }
  EXPECT_EQ(read.view.kernels[0].conv->inSize, (std::vector<int64_t>{7, 6}));
  EXPECT_EQ(read.view.kernels[1].conv->dilations, (std::vector<int64_t>{2}));
}

TEST(ConvStepsArtifact, ReaderRefusesAnUnknownLayout) {
  graphc::rt::ArtifactRead read = readModel("conv_model_bad_layout");
  EXPECT_EQ(read.error, graphc::rt::ArtifactError::malformed);
  EXPECT_EQ(read.message, "kernel 1's convolution has channels_last 2");
}

TEST(ConvStepsArtifact, ReaderSeesSiluEpilogues) {
  graphc::rt::ArtifactRead read = readModel("conv_model_cuda_silu");
  ASSERT_EQ(read.error, graphc::rt::ArtifactError::none) << read.message;
  ASSERT_EQ(read.view.kernels.size(), 2u);
  ASSERT_TRUE(read.view.kernels[1].conv);
  EXPECT_EQ(read.view.kernels[1].name, "conv1d_silu");
  EXPECT_EQ(read.view.kernels[1].conv->epilogue, GRAPHC_EPILOGUE_SILU);
  EXPECT_STREQ(graphc::rt::epilogueName(read.view.kernels[1].conv->epilogue),
               "silu");
}

TEST(ConvStepsArtifact, EpilogueNames) {
  EXPECT_STREQ(graphc::rt::epilogueName(GRAPHC_EPILOGUE_NONE), "none");
  EXPECT_STREQ(graphc::rt::epilogueName(GRAPHC_EPILOGUE_RELU), "relu");
  EXPECT_STREQ(graphc::rt::epilogueName(GRAPHC_EPILOGUE_GELU_TANH),
               "gelu_tanh");
  EXPECT_STREQ(graphc::rt::epilogueName(GRAPHC_EPILOGUE_SILU), "silu");
  EXPECT_STREQ(graphc::rt::epilogueName(GRAPHC_EPILOGUE_GELU_ERF), "gelu_erf");
  EXPECT_EQ(graphc::rt::epilogueName(5), nullptr);
  EXPECT_EQ(graphc::rt::epilogueName(-1), nullptr);
}

TEST(ConvStepsArtifact, LibraryNames) {
  EXPECT_STREQ(graphc::rt::libraryName(GRAPHC_LIBRARY_NONE), "");
  EXPECT_STREQ(graphc::rt::libraryName(GRAPHC_LIBRARY_CUBLASLT), "cublaslt");
  EXPECT_STREQ(graphc::rt::libraryName(GRAPHC_LIBRARY_CUDNN), "cudnn");
  EXPECT_EQ(graphc::rt::libraryName(3), nullptr);
}

} // namespace
