//===- SdpaStepsTest.cpp - attention steps: the descriptor check ----------===//
//
// checkDescriptor on a hand-built cuda descriptor with one attention step
// (graphc_sdpa_desc): BERT's layout, Q, K and V parts of one packed
// projection at offsets and O the head merge, with a padding bias; each
// test breaks one thing and reads the message.
//
//===----------------------------------------------------------------------===//
#include "graphc/runtime.h"
#include "runtime/src/DescriptorCheck.h"

#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <string>

namespace {

/// A valid cuda model: attention of x [2, 8, 3, 2, 16] (input 0: the packed
/// projection, Q, K and V at element offsets 0, 32 and 64, f16), a bias
/// [2, 1, 1, 8] (input 1), O [2, 8, 2, 16] (output 0), an arena workspace;
/// its fallback kernel in unit 0 of the one image.
struct SdpaModel {
  SdpaModel() {
    sdpa.batch = 2;
    sdpa.heads = sdpa.kv_heads = 2;
    sdpa.queries = sdpa.keys = 8;
    sdpa.head_dim = sdpa.value_dim = 16;
    sdpa.scale = 0.25;
    sdpa.dtype = 10;
    sdpa.compute_dtype = 1;
    sdpa.q_arg = sdpa.k_arg = sdpa.v_arg = 0;
    sdpa.bias_arg = 1;
    sdpa.o_arg = 2;
    sdpa.workspace_arg = 3;
    sdpa.k_offset = 32;
    sdpa.v_offset = 64;
    const int64_t packed[4] = {768, 16, 96, 1}, merged[4] = {256, 16, 32, 1};
    const int64_t biasDims[4] = {2, 1, 1, 8}, biasStrides[4] = {8, 0, 0, 1};
    for (int i = 0; i < 4; ++i) {
      sdpa.q_strides[i] = sdpa.k_strides[i] = sdpa.v_strides[i] = packed[i];
      sdpa.o_strides[i] = merged[i];
      sdpa.bias_dims[i] = biasDims[i];
      sdpa.bias_strides[i] = biasStrides[i];
    }
    for (int d = 0; d < 3; ++d)
      sdpa.fallback_grid[d] = sdpa.fallback_block[d] = 1;
    sdpa.fallback_grid[0] = 4;
    sdpa.fallback_block[0] = 128;
    kernels[0] = {"attention", "attention", "Attention_0", 1, nullptr};
    kernels[0].library = GRAPHC_LIBRARY_CUDNN;
    kernels[0].sdpa = &sdpa;
    kernels[0].unit = 0;
    args[0] = {GRAPHC_BUFFER_INPUT, 0, 0, 3072};
    args[1] = {GRAPHC_BUFFER_INPUT, 1, 0, 32};
    args[2] = {GRAPHC_BUFFER_OUTPUT, 0, 0, 1024};
    args[3] = {GRAPHC_BUFFER_ARENA, 0, 0, 1024};
    steps[0] = {GRAPHC_STEP_LIBRARY_CALL, 0, {0}, {0}, 0, 4, args};
    plans[0] = {"static", inputDims, outputDims, 1024, 0, 1, steps};
    desc.abi_version = GRAPHC_ABI_VERSION;
    desc.target = GRAPHC_TARGET_CUDA;
    desc.num_inputs = 2;
    desc.inputs = inputs;
    desc.num_outputs = 1;
    desc.outputs = outputs;
    desc.num_plans = 1;
    desc.plans = plans;
    desc.num_kernels = 1;
    desc.kernels = kernels;
    desc.images = images;
    desc.num_images = 1;
    desc.num_units = 1;
  }
  SdpaModel(const SdpaModel &) = delete;

  std::string check() const { return graphc::rt::checkDescriptor(desc); }

  int64_t xDims[3] = {2, 8, 96}, biasDims[4] = {2, 1, 1, 8},
          oDims[4] = {2, 8, 2, 16};
  const char *names[4] = {"", "", "", ""};
  graphc_tensor_desc inputs[2] = {{"qkv", 10, 3, xDims, names},
                                  {"mask", 10, 4, biasDims, names}};
  graphc_tensor_desc outputs[1] = {{"o", 10, 4, oDims, names}};
  const int64_t *inputDims[2] = {xDims, biasDims};
  const int64_t *outputDims[1] = {oDims};
  graphc_sdpa_desc sdpa = {};
  graphc_kernel_desc kernels[1] = {};
  graphc_buffer_ref args[4];
  graphc_step_desc steps[1];
  graphc_plan_desc plans[1];
  graphc_image_desc images[1] = {{80, GRAPHC_IMAGE_CUBIN, "image", 6, 0}};
  graphc_model_desc desc = {};
};

TEST(SdpaDescriptorCheck, AcceptsValidAttentionSteps) {
  SdpaModel model;
  EXPECT_EQ(model.check(), "");
  // Without a bias or workspace, and O in the arena.
  model.sdpa.bias_arg = -1;
  model.args[3] = {GRAPHC_BUFFER_NONE, 0, 0, 0};
  model.args[2] = {GRAPHC_BUFFER_ARENA, 0, 0, 1024};
  EXPECT_EQ(model.check(), "");
  // Grouped heads: one K/V head for both query heads, causal.
  SdpaModel grouped;
  grouped.sdpa.kv_heads = 1;
  grouped.sdpa.is_causal = 1;
  EXPECT_EQ(grouped.check(), "");
}

struct Fault {
  const char *name;
  std::function<void(SdpaModel &)> breakIt;
  const char *message;
};

const Fault kFaults[] = {
    {"cpu model", [](SdpaModel &m) { m.desc.target = GRAPHC_TARGET_CPU; },
     "kernel 'attention': attention in a cpu model"},
    {"other library",
     [](SdpaModel &m) { m.kernels[0].library = GRAPHC_LIBRARY_CUBLASLT; },
     "kernel 'attention' has an attention record but calls cuBLASLt"},
    {"no record", [](SdpaModel &m) { m.kernels[0].sdpa = nullptr; },
     "calls cuDNN without a convolution or attention record"},
    {"zero keys", [](SdpaModel &m) { m.sdpa.keys = 0; },
     "attention has keys 0"},
    {"ungrouped heads", [](SdpaModel &m) { m.sdpa.kv_heads = 3; },
     "has 2 query heads, not a multiple of its 3 K/V heads"},
    {"float32", [](SdpaModel &m) { m.sdpa.dtype = 1; },
     "attention has float32 tensors computing in float32"},
    {"causal 2", [](SdpaModel &m) { m.sdpa.is_causal = 2; },
     "has is_causal 2 (0 or 1)"},
    {"infinite scale", [](SdpaModel &m) { m.sdpa.scale = 1.0 / 0.0; },
     "has a scale that is not finite"},
    {"no O", [](SdpaModel &m) { m.sdpa.o_arg = -1; },
     "has invalid argument indices"},
    {"engine rank", [](SdpaModel &m) { m.sdpa.engine_rank = GRAPHC_MAX_ALGO_RANKS; },
     "asks for engine rank 32"},
    {"bias of other queries", [](SdpaModel &m) { m.sdpa.bias_dims[2] = 4; },
     "has bias dim 2 of 4 (1 or 8)"},
    {"negative offset", [](SdpaModel &m) { m.sdpa.k_offset = -1; },
     "has K at offset -1"},
    {"negative stride", [](SdpaModel &m) { m.sdpa.v_strides[0] = -768; },
     "has V stride 0 of -768"},
    {"strided head dim", [](SdpaModel &m) { m.sdpa.q_strides[3] = 2; },
     "has Q innermost stride 2 (cuDNN reads 1)"},
    {"overflowing span",
     [](SdpaModel &m) { m.sdpa.q_strides[0] = int64_t(1) << 62; },
     "has Q spanning more bytes than a size can hold"},
    {"O on itself", [](SdpaModel &m) { m.sdpa.o_strides[2] = 16; },
     "writes elements of O to shared addresses"},
    {"fallback launch", [](SdpaModel &m) { m.sdpa.fallback_block[0] = 2048; },
     "launches its fallback kernel with grid 4x1x1 and block 2048x1x1"},
    {"no image",
     [](SdpaModel &m) {
       m.desc.num_images = 0;
       m.desc.num_units = 0;
     },
     "kernel 'attention' has an epilogue or fallback kernel but the model "
     "has no device image"},
    {"V past its argument",
     [](SdpaModel &m) {
       m.args[0] = {GRAPHC_BUFFER_INPUT, 0, 0, 3070};
     },
     "the attention's V (argument 0) has 3070 bytes and the attention reads "
     "up to byte 3072"},
    {"workspace not last", [](SdpaModel &m) { m.sdpa.workspace_arg = 2; },
     "has 4 arguments but the attention's workspace is argument 2 (the "
     "last one)"},
    {"O into an input",
     [](SdpaModel &m) {
       m.args[2] = {GRAPHC_BUFFER_INPUT, 0, 0, 1024};
     },
     "the attention writes O (argument 2) into an input"},
    {"O over the projection",
     [](SdpaModel &m) {
       m.args[0] = {GRAPHC_BUFFER_ARENA, 0, 0, 3072};
       m.args[2] = {GRAPHC_BUFFER_ARENA, 0, 2048, 1024};
       m.args[3] = {GRAPHC_BUFFER_NONE, 0, 0, 0};
       m.plans[0].arena_bytes = 4096;
     },
     "the attention's O (argument 2) overlaps its Q (argument 0)"},
    {"workspace over the bias",
     [](SdpaModel &m) {
       m.args[1] = {GRAPHC_BUFFER_ARENA, 0, 512, 32};
     },
     "the attention's workspace overlaps its bias"},
};

class SdpaDescriptorFault : public ::testing::TestWithParam<Fault> {};

TEST_P(SdpaDescriptorFault, IsRefusedWithItsReason) {
  SdpaModel model;
  ASSERT_EQ(model.check(), "");
  GetParam().breakIt(model);
  std::string problem = model.check();
  EXPECT_NE(problem.find(GetParam().message), std::string::npos)
      << "got: " << problem;
}

INSTANTIATE_TEST_SUITE_P(Runtime, SdpaDescriptorFault,
                         ::testing::ValuesIn(kFaults),
                         [](const ::testing::TestParamInfo<Fault> &info) {
                           std::string name = info.param.name;
                           for (char &c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

} // namespace
