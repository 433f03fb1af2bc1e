//===- LibraryStepsTest.cpp - library steps on the cpu target -------------===//
//
// checkDescriptor on hand-built descriptors with one library step, one
// fault each; gemm_model.so run on the cpu target (its GEMMs by the
// reference GEMM) against plain loops; and the artifact reader's view of
// library kernels, which `graphc inspect` prints.
//
//===----------------------------------------------------------------------===//
#include "GemmTestSupport.h"
#include "TestModelPath.h"

#include "graphc/runtime.h"
#include "lib/Artifact/ArtifactReader.h"
#include "runtime/src/DescriptorCheck.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
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

/// A valid cpu model with one library step: y = relu(x W^T + bias) for x:
/// [2,3,4] (input), W: [5,4] and bias: [5] (weights), y: [2,3,5] (output),
/// and an arena workspace. Tests break one thing and read the message.
struct LibraryModel {
  LibraryModel() {
    gemm = {
        0, 1, 3, 5, 4,  2, 4, 4, 0, 12, 0, 0, 1.0, 0.0, GRAPHC_EPILOGUE_RELU,
        1, 1, 0, 1, -1, 2, 3, 4};
    kernels[0] = {"gemm", "matmul", "MatMul_0", 1, nullptr};
    kernels[0].library = GRAPHC_LIBRARY_CUBLASLT;
    kernels[0].gemm = &gemm;
    kernels[1] = {"host", "pointwise", "Neg_1", 2, hostFunction};
    args[0] = {GRAPHC_BUFFER_INPUT, 0, 0, 96};
    args[1] = {GRAPHC_BUFFER_WEIGHTS, 0, 0, 80};
    args[2] = {GRAPHC_BUFFER_WEIGHTS, 0, 80, 20};
    args[3] = {GRAPHC_BUFFER_OUTPUT, 0, 0, 120};
    args[4] = {GRAPHC_BUFFER_ARENA, 0, 256, 256};
    steps[0] = {GRAPHC_STEP_LIBRARY_CALL, 0, {0}, {0}, 0, 5, args};
    plans[0] = {"static", inputDims, outputDims, 512, 0, 1, steps};
    desc.abi_version = GRAPHC_ABI_VERSION;
    desc.target = GRAPHC_TARGET_CPU;
    desc.num_inputs = 1;
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
  LibraryModel(const LibraryModel &) = delete;

  /// Makes argument 2 a C (beta 1) instead of the bias.
  void useC(graphc_buffer_ref ref) {
    gemm.bias_arg = -1;
    gemm.c_arg = 2;
    gemm.beta = 1;
    gemm.ldc = 5;
    gemm.stride_c = 15;
    args[2] = ref;
  }

  std::string check() const { return graphc::rt::checkDescriptor(desc); }

  int64_t xDims[3] = {2, 3, 4}, yDims[3] = {2, 3, 5};
  const char *names[3] = {"", "", ""};
  graphc_tensor_desc inputs[1] = {{"x", 1, 3, xDims, names}};
  graphc_tensor_desc outputs[1] = {{"y", 1, 3, yDims, names}};
  const int64_t *inputDims[1] = {xDims};
  const int64_t *outputDims[1] = {yDims};
  alignas(GRAPHC_ALIGNMENT) float weights[32] = {};
  graphc_gemm_desc gemm;
  graphc_kernel_desc kernels[2] = {};
  graphc_buffer_ref args[5];
  graphc_step_desc steps[1];
  graphc_plan_desc plans[1];
  graphc_model_desc desc = {};
};

TEST(LibraryDescriptorCheck, AcceptsAValidLibraryStep) {
  LibraryModel model;
  EXPECT_EQ(model.check(), "");
  // The workspace may be absent; C may be D itself, row for row.
  model.args[4] = {GRAPHC_BUFFER_NONE, 0, 0, 0};
  model.useC(model.args[3]);
  EXPECT_EQ(model.check(), "");
  // A cuda model of library steps only needs no image; a launch does.
  model.desc.target = GRAPHC_TARGET_CUDA;
  EXPECT_EQ(model.check(), "");
  graphc_buffer_ref launchArgs[1] = {{GRAPHC_BUFFER_ARENA, 0, 0, 4}};
  graphc_step_desc steps[2] = {
      model.steps[0],
      {GRAPHC_STEP_LAUNCH, 1, {1, 1, 1}, {1, 1, 1}, 0, 1, launchArgs}};
  model.plans[0].steps = steps;
  model.plans[0].num_steps = 2;
  EXPECT_EQ(model.check(), "plan 'static' step 1 launches kernel 'host' of a "
                           "cuda model without device images");
}

// Generated kernels live in module units, each with its own images.
TEST(LibraryDescriptorCheck, AcceptsEightBitGemms) {
  // int8 x int8 into int32 D (120 bytes: four per element, as the output
  // holds), C of int32 as D itself; e4m3 into float32 likewise.
  for (int32_t dtype : {3, 17}) {
    LibraryModel model;
    model.gemm.dtype = dtype;
    model.gemm.compute_dtype = dtype == 3 ? 6 : 1;
    model.gemm.bias_arg = -1;
    model.gemm.epilogue = GRAPHC_EPILOGUE_NONE;
    EXPECT_EQ(model.check(), "") << dtype;
    model.useC(model.args[3]);
    EXPECT_EQ(model.check(), "") << dtype;
  }
}

TEST(LibraryDescriptorCheck, UnitsOfACudaModel) {
  LibraryModel model;
  model.desc.target = GRAPHC_TARGET_CUDA;
  static const char data[] = "image";
  graphc_image_desc images[3] = {
      {80, GRAPHC_IMAGE_CUBIN, data, sizeof(data), 0},
      {80, GRAPHC_IMAGE_CUBIN, data, sizeof(data), 1},
      {90, GRAPHC_IMAGE_PTX, data, sizeof(data), 1}};
  model.desc.images = images;
  model.desc.num_images = 3;
  model.desc.num_units = 2;
  model.kernels[1].unit = 1; // 'host', a generated kernel
  graphc_buffer_ref launchArgs[1] = {{GRAPHC_BUFFER_ARENA, 0, 0, 4}};
  graphc_step_desc steps[2] = {
      model.steps[0],
      {GRAPHC_STEP_LAUNCH, 1, {1, 1, 1}, {1, 1, 1}, 0, 1, launchArgs}};
  model.plans[0].steps = steps;
  model.plans[0].num_steps = 2;
  EXPECT_EQ(model.check(), "");
  model.kernels[1].unit = 2;
  EXPECT_EQ(model.check(),
            "kernel 'host' is in unit 2, out of range (the model has 2)");
  model.kernels[1].unit = 1;
  images[0].unit = 1;
  EXPECT_EQ(model.check(), "unit 0 has no image");
  images[0].unit = -1;
  EXPECT_EQ(model.check(),
            "image 0 is of unit -1, out of range (the model has 2)");
  images[0].unit = 0;
  model.desc.num_units = 4;
  EXPECT_EQ(model.check(), "4 units but 3 images");
  model.desc.num_units = -1;
  EXPECT_EQ(model.check(), "negative table size");
}

struct Fault {
  const char *name;
  std::function<void(LibraryModel &)> breakIt;
  std::string message;
};

const int64_t kHuge = int64_t(1) << 40;

const Fault kFaults[] = {
    // The kernel record.
    {"unknown library", [](LibraryModel &m) { m.kernels[0].library = 7; },
     "kernel 'gemm' has unknown library 7"},
    {"library without GEMM",
     [](LibraryModel &m) { m.kernels[0].gemm = nullptr; },
     "kernel 'gemm' calls cuBLASLt without a GEMM record"},
    {"GEMM without library",
     [](LibraryModel &m) { m.kernels[0].library = GRAPHC_LIBRARY_NONE; },
     "kernel 'gemm' has a GEMM record but calls no library"},
    // The GEMM record.
    {"trans flag", [](LibraryModel &m) { m.gemm.trans_a = 2; },
     "kernel 'gemm': GEMM trans_a/trans_b are 2/1 (0 or 1 each)"},
    {"zero m", [](LibraryModel &m) { m.gemm.m = 0; },
     "kernel 'gemm': GEMM m is 0 (at least 1)"},
    {"negative k", [](LibraryModel &m) { m.gemm.k = -4; },
     "kernel 'gemm': GEMM k is -4 (at least 1)"},
    {"zero batch", [](LibraryModel &m) { m.gemm.batch = 0; },
     "kernel 'gemm': GEMM batch is 0 (at least 1)"},
    {"batch past int32", [](LibraryModel &m) { m.gemm.batch = kHuge; },
     "kernel 'gemm': GEMM batch 1099511627776 exceeds 2147483647"},
    {"short lda", [](LibraryModel &m) { m.gemm.lda = 3; },
     "kernel 'gemm': GEMM lda 3 is less than the 4 columns A stores"},
    {"short lda transposed",
     [](LibraryModel &m) {
       m.gemm.trans_a = 1;
       m.gemm.lda = 2;
     },
     "kernel 'gemm': GEMM lda 2 is less than the 3 columns A stores"},
    // 8-bit operands (descriptor.h's contract).
    {"int8 accumulating in float32", [](LibraryModel &m) { m.gemm.dtype = 3; },
     "kernel 'gemm': GEMM has int8 matrices accumulating in float32 (8-bit "
     "GEMMs are int8 accumulating in int32, or float8e4m3fn in float32)"},
    {"e4m3 accumulating in float16",
     [](LibraryModel &m) {
       m.gemm.dtype = 17;
       m.gemm.compute_dtype = 10;
     },
     "kernel 'gemm': GEMM has float8e4m3fn matrices accumulating in float16"},
    {"int8 with alpha 2",
     [](LibraryModel &m) {
       m.gemm.dtype = 3;
       m.gemm.compute_dtype = 6;
       m.gemm.alpha = 2;
     },
     "kernel 'gemm': GEMM is an 8-bit GEMM (int8) with alpha 2.000000 (int8 "
     "GEMMs write the int32 sum as it is: alpha 1)"},
    {"int8 with a bias",
     [](LibraryModel &m) {
       m.gemm.dtype = 3;
       m.gemm.compute_dtype = 6;
     },
     "kernel 'gemm': GEMM is an 8-bit GEMM (int8) with a bias (8-bit GEMMs "
     "take none)"},
    {"e4m3 with relu",
     [](LibraryModel &m) {
       m.gemm.dtype = 17;
       m.gemm.bias_arg = -1;
     },
     "kernel 'gemm': GEMM is an 8-bit GEMM (float8e4m3fn) with epilogue 1 "
     "(8-bit GEMMs take none)"},
    {"e4m3 with beta 0.5",
     [](LibraryModel &m) {
       m.useC(m.args[3]);
       m.gemm.dtype = 17;
       m.gemm.epilogue = GRAPHC_EPILOGUE_NONE;
       m.gemm.beta = 0.5;
     },
     "kernel 'gemm': GEMM is an 8-bit GEMM (float8e4m3fn) with beta "
     "0.500000 (0 or 1)"},
    {"int8 D of int8 size",
     [](LibraryModel &m) {
       m.gemm.dtype = 3;
       m.gemm.compute_dtype = 6;
       m.gemm.bias_arg = -1;
       m.gemm.epilogue = GRAPHC_EPILOGUE_NONE;
       m.args[3] = {GRAPHC_BUFFER_ARENA, 0, 0, 30};
     },
     "the GEMM's D (argument 3) has 30 bytes and the GEMM spans 120"},
    {"short ldb", [](LibraryModel &m) { m.gemm.ldb = 3; },
     "kernel 'gemm': GEMM ldb 3 is less than the 4 columns B stores"},
    {"short ldc",
     [](LibraryModel &m) {
       m.useC({GRAPHC_BUFFER_ARENA, 0, 0, 256});
       m.gemm.ldc = 4;
     },
     "kernel 'gemm': GEMM ldc 4 is less than the 5 columns C stores"},
    {"negative stride", [](LibraryModel &m) { m.gemm.stride_b = -1; },
     "kernel 'gemm': GEMM has a negative batch stride (12, -1, 0)"},
    {"nan alpha",
     [](LibraryModel &m) {
       m.gemm.alpha = std::numeric_limits<double>::quiet_NaN();
     },
     "kernel 'gemm': GEMM alpha/beta are not finite"},
    {"beta without C", [](LibraryModel &m) { m.gemm.beta = 0.5; },
     "kernel 'gemm': GEMM has beta 0.500000 but no C"},
    {"C without beta",
     [](LibraryModel &m) {
       m.useC({GRAPHC_BUFFER_ARENA, 0, 0, 256});
       m.gemm.beta = 0;
     },
     "kernel 'gemm': GEMM has a C but beta 0"},
    {"unknown epilogue", [](LibraryModel &m) { m.gemm.epilogue = 9; },
     "kernel 'gemm': GEMM has unknown epilogue 9"},
    {"convolution epilogue",
     [](LibraryModel &m) { m.gemm.epilogue = GRAPHC_EPILOGUE_SILU; },
     "kernel 'gemm': GEMM has epilogue silu, which only convolutions take "
     "(cuBLASLt has no SiLU epilogue)"},
    {"erf GELU epilogue",
     [](LibraryModel &m) { m.gemm.epilogue = GRAPHC_EPILOGUE_GELU_ERF; },
     "kernel 'gemm': GEMM has epilogue gelu_erf, which only convolutions "
     "take (cuBLASLt fuses only the tanh GELU)"},
    {"unknown dtype", [](LibraryModel &m) { m.gemm.dtype = 99; },
     "kernel 'gemm': GEMM has unsupported dtype 99"},
    {"unknown compute dtype", [](LibraryModel &m) { m.gemm.compute_dtype = 0; },
     "kernel 'gemm': GEMM has unsupported compute dtype 0"},
    {"split into one part", [](LibraryModel &m) { m.gemm.split_k = 1; },
     "kernel 'gemm': GEMM splits K into 1 parts (0, or 2 to 64)"},
    {"split into too many parts", [](LibraryModel &m) { m.gemm.split_k = 65; },
     "kernel 'gemm': GEMM splits K into 65 parts (0, or 2 to 64)"},
    {"tuned flag", [](LibraryModel &m) { m.gemm.tuned = 2; },
     "kernel 'gemm': GEMM has tuned 2 (0 or 1)"},
    {"no A", [](LibraryModel &m) { m.gemm.a_arg = -1; },
     "kernel 'gemm': GEMM lacks A, B, D or the workspace (a_arg -1, b_arg 1, "
     "c_arg -1, bias_arg 2, d_arg 3, workspace_arg 4)"},
    {"extent overflows",
     [](LibraryModel &m) {
       m.gemm.m = kHuge;
       m.gemm.n = kHuge;
       m.gemm.ldb = kHuge;
     },
     "kernel 'gemm': GEMM spans more bytes than a size can hold"},
    // Steps and kernels.
    {"library step of a generated kernel",
     [](LibraryModel &m) { m.steps[0].kernel = 1; },
     "plan 'static' step 0 is a library call of kernel 'host', which calls "
     "no library"},
    {"host call of a library kernel",
     [](LibraryModel &m) {
       m.steps[0].kind = GRAPHC_STEP_HOST_CALL;
       m.kernels[0].host_fn = hostFunction;
     },
     "plan 'static' step 0 calls kernel 'gemm', which cuBLASLt computes (a "
     "library call step)"},
    {"library step kernel out of range",
     [](LibraryModel &m) { m.steps[0].kernel = 2; },
     "plan 'static' step 0 names kernel 2 out of range"},
    // A step's arguments against its GEMM.
    {"workspace not last", [](LibraryModel &m) { m.gemm.workspace_arg = 3; },
     "plan 'static' step 0 (kernel 'gemm') has 5 arguments but the GEMM's "
     "workspace is argument 3 (the last one)"},
    {"operand past the arguments", [](LibraryModel &m) { m.gemm.b_arg = 4; },
     "plan 'static' step 0 (kernel 'gemm'): the GEMM's B is argument 4, not "
     "one of the 4 arguments before the workspace"},
    {"absent A",
     [](LibraryModel &m) {
       m.args[0] = {GRAPHC_BUFFER_NONE, 0, 0, 0};
     },
     "plan 'static' step 0 (kernel 'gemm'): the GEMM's A (argument 0) is "
     "absent"},
    {"short A", [](LibraryModel &m) { m.args[0].size = 95; },
     "plan 'static' step 0 (kernel 'gemm'): the GEMM's A (argument 0) has 95 "
     "bytes and the GEMM spans 96"},
    {"B needs its batch stride", [](LibraryModel &m) { m.gemm.stride_b = 20; },
     "plan 'static' step 0 (kernel 'gemm'): the GEMM's B (argument 1) has 80 "
     "bytes and the GEMM spans 160"},
    {"padded rows of A", [](LibraryModel &m) { m.gemm.lda = 5; },
     "the GEMM's A (argument 0) has 96 bytes and the GEMM spans 104"},
    {"short bias", [](LibraryModel &m) { m.args[2].size = 16; },
     "the GEMM's bias (argument 2) has 16 bytes and the GEMM spans 20"},
    {"short D",
     [](LibraryModel &m) {
       m.args[3] = {GRAPHC_BUFFER_ARENA, 0, 0, 100};
     },
     "the GEMM's D (argument 3) has 100 bytes and the GEMM spans 120"},
    {"short C",
     [](LibraryModel &m) {
       m.useC({GRAPHC_BUFFER_ARENA, 0, 0, 119});
     },
     "the GEMM's C (argument 2) has 119 bytes and the GEMM spans 120"},
    {"D in the weights",
     [](LibraryModel &m) {
       m.args[3] = {GRAPHC_BUFFER_WEIGHTS, 0, 0, 120};
     },
     "plan 'static' step 0 (kernel 'gemm'): the GEMM writes D (argument 3) "
     "into the weights"},
    {"D in an input",
     [](LibraryModel &m) {
       m.args[3] = {GRAPHC_BUFFER_INPUT, 0, 0, 96};
       m.gemm.batch = 1;
       m.gemm.m = 1;
     },
     "the GEMM writes D (argument 3) into an input"},
    {"workspace in the weights",
     [](LibraryModel &m) {
       m.args[4] = {GRAPHC_BUFFER_WEIGHTS, 0, 0, 16};
     },
     "plan 'static' step 0 (kernel 'gemm'): the GEMM's workspace is not in "
     "the arena"},
    {"D over A",
     [](LibraryModel &m) {
       m.args[0] = {GRAPHC_BUFFER_ARENA, 0, 0, 96};
       m.args[3] = {GRAPHC_BUFFER_ARENA, 0, 64, 120};
     },
     "plan 'static' step 0 (kernel 'gemm'): the GEMM's D (argument 3) "
     "overlaps its A (argument 0)"},
    {"D over the bias in one output",
     [](LibraryModel &m) {
       m.args[2] = {GRAPHC_BUFFER_OUTPUT, 0, 100, 20};
     },
     "the GEMM's D (argument 3) overlaps its bias (argument 2)"},
    {"C shifted over D",
     [](LibraryModel &m) {
       m.args[3] = {GRAPHC_BUFFER_ARENA, 0, 0, 120};
       m.useC({GRAPHC_BUFFER_ARENA, 0, 4, 120});
     },
     "the GEMM's D (argument 3) overlaps its C (argument 2); C may only be D "
     "itself, with ldc = n and batch stride m * n"},
    {"C is D with other rows",
     [](LibraryModel &m) {
       m.useC(m.args[3]);
       m.gemm.stride_c = 0;
     },
     "the GEMM's D (argument 3) overlaps its C (argument 2)"},
    {"workspace over A",
     [](LibraryModel &m) {
       m.args[0] = {GRAPHC_BUFFER_ARENA, 0, 0, 96};
       m.args[4] = {GRAPHC_BUFFER_ARENA, 0, 32, 64};
     },
     "plan 'static' step 0 (kernel 'gemm'): the GEMM's workspace overlaps "
     "its A"},
    {"workspace over D",
     [](LibraryModel &m) {
       m.args[3] = {GRAPHC_BUFFER_ARENA, 0, 0, 120};
       m.args[4] = {GRAPHC_BUFFER_ARENA, 0, 119, 8};
     },
     "plan 'static' step 0 (kernel 'gemm'): the GEMM's workspace overlaps "
     "its D"},
};

class LibraryDescriptorFault : public ::testing::TestWithParam<Fault> {};

TEST_P(LibraryDescriptorFault, IsRefusedWithItsReason) {
  LibraryModel model;
  GetParam().breakIt(model);
  std::string problem = model.check();
  EXPECT_NE(problem.find(GetParam().message), std::string::npos)
      << "got: " << problem;
}

INSTANTIATE_TEST_SUITE_P(Runtime, LibraryDescriptorFault,
                         ::testing::ValuesIn(kFaults),
                         [](const ::testing::TestParamInfo<Fault> &info) {
                           std::string name = info.param.name;
                           for (char &c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

//===- gemm_model.so on the cpu target ------------------------------------===//

DLTensor hostTensor(std::vector<float> &values, std::vector<int64_t> &shape) {
  DLTensor tensor{};
  tensor.data = values.data();
  tensor.device = {kDLCPU, 0};
  tensor.ndim = static_cast<int32_t>(shape.size());
  tensor.dtype = {kDLFloat, 32, 1};
  tensor.shape = shape.data();
  return tensor;
}

TEST(LibraryStepsCpu, RunsGemmsWithTheReferenceGemm) {
  graphc_model *model = nullptr;
  Status loaded(
      graphc_model_load(modelPath("gemm_model").c_str(), nullptr, &model));
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  graphc_session *session = nullptr;
  Status created(graphc_session_create(model, nullptr, &session));
  ASSERT_TRUE(created.ok()) << created.message();
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> values(-1, 1);
  std::vector<int64_t> xShape = {2, 3, 4}, cShape = {2, 5, 2},
                       h2Shape = {2, 3, 5};
  for (int run = 0; run < 2; ++run) {
    std::vector<float> x(24), c(20), y(20, -1), h2(30, -1);
    for (float &v : x)
      v = values(rng);
    for (float &v : c)
      v = values(rng);
    DLTensor inputs[2] = {hostTensor(x, xShape), hostTensor(c, cShape)};
    DLTensor outputs[2] = {hostTensor(y, cShape), hostTensor(h2, h2Shape)};
    Status ran(graphc_session_run(session, inputs, 2, nullptr, outputs, 2));
    ASSERT_TRUE(ran.ok()) << ran.message();
    gemmtest::GemmModelOutputs expected = gemmtest::gemmModelExpected(x, c);
    EXPECT_TRUE(gemmtest::near(y, expected.y));
    EXPECT_TRUE(gemmtest::near(h2, expected.h2));
  }
  // The reference GEMM computes each library kernel whole, with no
  // heuristic to rank and no workspace.
  for (int32_t kernel : {1, 2}) {
    graphc_library_kernel_info info;
    Status got(graphc_session_library_kernel_info(session, kernel, &info));
    ASSERT_TRUE(got.ok()) << got.message();
    EXPECT_EQ(info.library, GRAPHC_LIBRARY_CUBLASLT);
    EXPECT_EQ(info.fused, 1);
    EXPECT_EQ(info.rank, -1);
    EXPECT_EQ(info.workspace_bytes, 0u);
  }
  graphc_session_release(session);
  graphc_model_release(model);
}

TEST(LibraryStepsCpu, RefusesAGemmTheReferenceCannotComputeAtLoad) {
  graphc_model *model = nullptr;
  std::string path = modelPath("gemm_model_i32");
  Status loaded(graphc_model_load(path.c_str(), nullptr, &model));
  EXPECT_EQ(loaded.code(), GRAPHC_UNIMPLEMENTED);
  EXPECT_EQ(loaded.message(),
            "model '" + path +
                "' kernel 'gemm_relu_bias' (ONNX nodes MatMul_1,Add_2,Relu_3) "
                "cannot run on the cpu target: the reference GEMM computes "
                "float32, float16 or bfloat16 matrices, not int32");
  EXPECT_EQ(model, nullptr);
  // Inspecting it is fine.
  graphc_model_options options;
  graphc_model_options_init(&options);
  options.flags = GRAPHC_MODEL_INSPECT_ONLY;
  Status inspected(graphc_model_load(path.c_str(), &options, &model));
  EXPECT_TRUE(inspected.ok()) << inspected.message();
  graphc_model_release(model);
}

//===- The artifact reader ------------------------------------------------===//

TEST(LibraryStepsArtifact, ReaderSeesLibraryKernelsAndSteps) {
  std::ifstream in(modelPath("gemm_model_cuda"), std::ios::binary);
  std::vector<char> bytes(std::istreambuf_iterator<char>(in), {});
  graphc::rt::ArtifactRead read =
      graphc::rt::readArtifact(bytes.data(), bytes.size());
  ASSERT_EQ(read.error, graphc::rt::ArtifactError::none) << read.message;
  const graphc::rt::ArtifactView &view = read.view;
  ASSERT_EQ(view.kernels.size(), 3u);
  EXPECT_EQ(view.kernels[0].library, GRAPHC_LIBRARY_NONE);
  EXPECT_FALSE(view.kernels[0].gemm);
  EXPECT_EQ(view.kernels[1].library, GRAPHC_LIBRARY_CUBLASLT);
  ASSERT_TRUE(view.kernels[1].gemm);
  const graphc::rt::ArtifactGemm &relu = *view.kernels[1].gemm;
  EXPECT_EQ(relu.transA, 0);
  EXPECT_EQ(relu.transB, 1);
  EXPECT_EQ(relu.m, 3);
  EXPECT_EQ(relu.n, 5);
  EXPECT_EQ(relu.k, 4);
  EXPECT_EQ(relu.batch, 2);
  EXPECT_EQ(relu.epilogue, GRAPHC_EPILOGUE_RELU);
  EXPECT_EQ(relu.biasArg, 2);
  ASSERT_TRUE(view.kernels[2].gemm);
  EXPECT_EQ(view.kernels[2].gemm->alpha, 0.5);
  EXPECT_EQ(view.kernels[2].gemm->beta, 1.0);
  EXPECT_EQ(view.kernels[2].gemm->strideC, 10);
  EXPECT_EQ(view.kernels[2].gemm->epilogue, GRAPHC_EPILOGUE_GELU_TANH);
  ASSERT_EQ(view.plans.size(), 1u);
  ASSERT_EQ(view.plans[0].steps.size(), 4u);
  EXPECT_EQ(view.plans[0].steps[0].kind, GRAPHC_STEP_LAUNCH);
  for (int s = 1; s < 4; ++s)
    EXPECT_EQ(view.plans[0].steps[s].kind, GRAPHC_STEP_LIBRARY_CALL);
}

TEST(LibraryStepsArtifact, ReaderRefusesAnUnknownLibrary) {
  std::ifstream in(modelPath("gemm_model_bad_library"), std::ios::binary);
  std::vector<char> bytes(std::istreambuf_iterator<char>(in), {});
  graphc::rt::ArtifactRead read =
      graphc::rt::readArtifact(bytes.data(), bytes.size());
  EXPECT_EQ(read.error, graphc::rt::ArtifactError::malformed);
  EXPECT_EQ(read.message, "kernel 1 has unknown library 9");
}

} // namespace
