//===- RuntimeTest.cpp - the runtime C API on hand-written models ---------===//
//
// The models come from test/runtime/models (C sources built as MODULE
// libraries), so the runtime is tested without the compiler.
//
//===----------------------------------------------------------------------===//
#include "graphc/runtime.h"
#include "lib/Artifact/ArtifactReader.h"
#include "lib/HostKernels/HostKernels.h"
#include "runtime/src/CudaModel.h"
#include "test/runtime/ConvTestSupport.h"
#include "test/runtime/GemmTestSupport.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

// Host kernels in cpu models say "a value out of range" with the code the
// runtime reads.
static_assert(GC_STATUS_BAD_VALUE == GRAPHC_HOST_FN_BAD_VALUE);

namespace {

/// The test models' folder: GRAPHC_TEST_MODEL_DIR when set (a relocated copy,
/// as in the device bundle), else the build tree's.
std::string modelPath(const std::string &name) {
  const char *dir = std::getenv("GRAPHC_TEST_MODEL_DIR");
  return std::string(dir && *dir ? dir : GRAPHC_TEST_MODEL_DIR) + "/" + name +
         ".so";
}

/// Owns a status and exposes its code and message.
struct Status {
  explicit Status(graphc_status status) : status(status) {}
  ~Status() { graphc_status_free(status); }
  Status(const Status &) = delete;
  Status &operator=(const Status &) = delete;
  bool ok() const { return status == nullptr; }
  graphc_code code() const { return graphc_status_code(status); }
  std::string message() const { return graphc_status_message(status); }
  graphc_status status;
};

#define ASSERT_GRAPHC_OK(expr)                                                 \
  do {                                                                         \
    Status status_(expr);                                                      \
    ASSERT_TRUE(status_.ok()) << status_.message();                            \
  } while (0)

/// A float32 host tensor with its own storage.
struct Tensor {
  Tensor(std::vector<int64_t> shape, std::vector<float> values)
      : shape(std::move(shape)), values(std::move(values)) {
    tensor.data = this->values.data();
    tensor.device = {kDLCPU, 0};
    tensor.ndim = static_cast<int32_t>(this->shape.size());
    tensor.dtype = {kDLFloat, 32, 1};
    tensor.shape = this->shape.data();
    tensor.strides = nullptr;
    tensor.byte_offset = 0;
  }
  Tensor(const Tensor &) = delete;
  std::vector<int64_t> shape;
  std::vector<float> values;
  DLTensor tensor;
};

/// A temporary directory removed with its files.
struct TempDir {
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base ? base : "/tmp") + "/graphc-rt-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back(0);
    path = mkdtemp(buffer.data());
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string path;
};

std::vector<char> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string &path, const void *data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char *>(data),
            static_cast<std::streamsize>(size));
}

const float kWeights[3] = {2.0f, 3.0f, 4.0f};

graphc_model *loadOrDie(const std::string &path,
                        const graphc_model_options *options = nullptr) {
  graphc_model *model = nullptr;
  Status status(graphc_model_load(path.c_str(), options, &model));
  EXPECT_TRUE(status.ok()) << status.message();
  return model;
}

/// Fixture holding the affine model (see affine_model.c) and one session.
class AffineModelTest : public ::testing::Test {
protected:
  void SetUp() override {
    model = loadOrDie(modelPath("affine_model"));
    ASSERT_NE(model, nullptr);
    ASSERT_GRAPHC_OK(graphc_session_create(model, nullptr, &session));
  }
  void TearDown() override {
    graphc_session_release(session);
    graphc_model_release(model);
  }

  graphc_model *model = nullptr;
  graphc_session *session = nullptr;
};

/// Expected y = x * w + bias for rows of three.
std::vector<float> affine(const std::vector<float> &x,
                          const std::vector<float> &bias) {
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = x[i] * kWeights[i % 3] + bias[i % 3];
  return y;
}

TEST(RuntimeStatus, NullIsOk) {
  EXPECT_EQ(graphc_status_code(nullptr), GRAPHC_OK);
  EXPECT_STREQ(graphc_status_message(nullptr), "");
  graphc_status_free(nullptr);
  EXPECT_STREQ(graphc_code_name(GRAPHC_DATA_LOSS), "data_loss");
}

TEST(RuntimeDtype, SizesOfWholeAndSubByteDtypes) {
  // float32, uint8, int64: whole bytes per element.
  EXPECT_EQ(graphc_dtype_size(1), 4u);
  EXPECT_EQ(graphc_dtype_bits(1), 32u);
  EXPECT_EQ(graphc_dtype_bytes(1, 5), 20u);
  EXPECT_EQ(graphc_dtype_bits(2), 8u);
  EXPECT_EQ(graphc_dtype_bytes(7, 3), 24u);
  // uint4 (21) and int4 (22): no whole-byte size, 4 bits, two a byte and
  // a last half byte for an odd count.
  for (int32_t dtype : {21, 22}) {
    EXPECT_EQ(graphc_dtype_size(dtype), 0u);
    EXPECT_EQ(graphc_dtype_bits(dtype), 4u);
    EXPECT_EQ(graphc_dtype_bytes(dtype, 0), 0u);
    EXPECT_EQ(graphc_dtype_bytes(dtype, 1), 1u);
    EXPECT_EQ(graphc_dtype_bytes(dtype, 25), 13u);
    EXPECT_EQ(graphc_dtype_bytes(dtype, 26), 13u);
    EXPECT_EQ(graphc_dtype_bytes(dtype, UINT64_MAX), UINT64_MAX);
  }
  EXPECT_STREQ(graphc_dtype_name(21), "uint4");
  EXPECT_STREQ(graphc_dtype_name(22), "int4");
  // Unknown dtypes (string, float4e2m1) and overflow.
  for (int32_t dtype : {8, 23, -1}) {
    EXPECT_EQ(graphc_dtype_size(dtype), 0u);
    EXPECT_EQ(graphc_dtype_bits(dtype), 0u);
    EXPECT_EQ(graphc_dtype_bytes(dtype, 4), UINT64_MAX);
  }
  EXPECT_STREQ(graphc_dtype_name(23), "unknown");
  EXPECT_EQ(graphc_dtype_bytes(1, uint64_t{1} << 62), UINT64_MAX);
}

TEST_F(AffineModelTest, Introspection) {
  EXPECT_EQ(graphc_model_target(model), GRAPHC_TARGET_CPU);
  EXPECT_STREQ(graphc_model_producer(model), "graphc test");
  EXPECT_EQ(graphc_model_weights_size(model), 12u);
  EXPECT_EQ(graphc_model_weights_path(model), nullptr);
  ASSERT_EQ(graphc_model_input_count(model), 2);
  ASSERT_EQ(graphc_model_output_count(model), 2);
  ASSERT_EQ(graphc_model_plan_count(model), 2);
  EXPECT_EQ(graphc_model_kernel_count(model), 4);
  EXPECT_EQ(graphc_model_image_count(model), 0);

  graphc_tensor_info info;
  ASSERT_GRAPHC_OK(graphc_model_input_info(model, 0, &info));
  EXPECT_STREQ(info.name, "x");
  EXPECT_EQ(info.dtype, 1);
  ASSERT_EQ(info.rank, 2);
  EXPECT_EQ(info.dims[0], -1);
  EXPECT_EQ(info.dims[1], 3);
  EXPECT_STREQ(info.dim_names[0], "batch");
  ASSERT_GRAPHC_OK(graphc_model_output_info(model, 1, &info));
  EXPECT_STREQ(info.name, "scaled");

  graphc_plan_info plan;
  ASSERT_GRAPHC_OK(graphc_model_plan_info(model, 1, &plan));
  EXPECT_STREQ(plan.name, "batch2");
  EXPECT_EQ(plan.arena_bytes, 512u);
  EXPECT_EQ(plan.num_steps, 3);
  EXPECT_EQ(plan.input_dims[0][0], 2);
  EXPECT_EQ(plan.output_dims[1][0], 2);

  graphc_kernel_info kernel;
  ASSERT_GRAPHC_OK(graphc_model_kernel_info(model, 1, &kernel));
  EXPECT_STREQ(kernel.name, "add_rows1");
  EXPECT_STREQ(kernel.onnx_nodes, "Add_1");

  Status bad(graphc_model_input_info(model, 2, &info));
  EXPECT_EQ(bad.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(bad.message(), "input index 2 out of range (the model has 2)");
}

TEST_F(AffineModelTest, RunsEachPlan) {
  for (int64_t batch : {1, 2}) {
    std::vector<float> xValues;
    for (int64_t i = 0; i < batch * 3; ++i)
      xValues.push_back(static_cast<float>(i) - 1.5f);
    Tensor x({batch, 3}, xValues);
    Tensor bias({3}, {10.0f, 20.0f, 30.0f});
    Tensor y({batch, 3}, std::vector<float>(batch * 3, 0.0f));
    Tensor scaled({batch, 3}, std::vector<float>(batch * 3, 0.0f));
    DLTensor inputs[] = {x.tensor, bias.tensor};
    DLTensor outputs[] = {y.tensor, scaled.tensor};
    ASSERT_GRAPHC_OK(
        graphc_session_run(session, inputs, 2, nullptr, outputs, 2));
    EXPECT_EQ(y.values, affine(xValues, bias.values));
    EXPECT_EQ(scaled.values, affine(xValues, {0, 0, 0}));
  }
}

TEST_F(AffineModelTest, RunsWithNamedInputsInAnyOrder) {
  Tensor x({1, 3}, {1.0f, 2.0f, 3.0f});
  Tensor bias({3}, {0.5f, 0.5f, 0.5f});
  Tensor y({1, 3}, {0, 0, 0});
  Tensor scaled({1, 3}, {0, 0, 0});
  DLTensor inputs[] = {bias.tensor, x.tensor};
  const char *names[] = {"bias", "x"};
  DLTensor outputs[] = {y.tensor, scaled.tensor};
  ASSERT_GRAPHC_OK(graphc_session_run(session, inputs, 2, names, outputs, 2));
  EXPECT_EQ(y.values, (std::vector<float>{2.5f, 6.5f, 12.5f}));
}

TEST_F(AffineModelTest, SelectsPlans) {
  int64_t x2[] = {2, 3}, bias[] = {3}, x3[] = {3, 3};
  int32_t ranks[] = {2, 1};
  const int64_t *dims[] = {x2, bias};
  int32_t plan = -1;
  ASSERT_GRAPHC_OK(
      graphc_model_select_plan(model, 2, nullptr, ranks, dims, &plan));
  EXPECT_EQ(plan, 1);

  const int64_t *named[] = {bias, x2};
  const char *names[] = {"bias", "x"};
  int32_t namedRanks[] = {1, 2};
  ASSERT_GRAPHC_OK(
      graphc_model_select_plan(model, 2, names, namedRanks, named, &plan));
  EXPECT_EQ(plan, 1);

  dims[0] = x3;
  Status status(
      graphc_model_select_plan(model, 2, nullptr, ranks, dims, &plan));
  EXPECT_EQ(status.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(),
            "no plan accepts x: float32[3,3], bias: float32[3]; accepted "
            "shapes: x: float32[1,3], bias: float32[3] (plan 'batch1'); x: "
            "float32[2,3], bias: float32[3] (plan 'batch2')");
}

// graphc_model_select_plan, graphc_model_output_dims and graphc_session_run
// check dims alike: negative dims, a missing dims array, the wrong rank.
TEST_F(AffineModelTest, EveryEntryPointChecksDimsAlike) {
  int64_t negative[] = {-1, 3}, bias[] = {3};
  int32_t ranks[] = {2, 1};
  const int64_t *dims[] = {negative, bias};
  const std::string expected =
      "input 'x': expected float32[batch,3], got float32[-1,3]";
  int32_t plan = -7;
  Status selected(
      graphc_model_select_plan(model, 2, nullptr, ranks, dims, &plan));
  EXPECT_EQ(selected.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(selected.message(), expected);
  EXPECT_EQ(plan, -7);
  int64_t y[2] = {-7, -7}, scaled[2] = {-7, -7};
  int64_t *outDims[] = {y, scaled};
  Status sized(
      graphc_model_output_dims(model, 2, nullptr, ranks, dims, outDims));
  EXPECT_EQ(sized.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(sized.message(), expected);
  EXPECT_EQ(y[0], -7);

  Tensor x({-1, 3}, {1, 2, 3});
  Tensor b({3}, {0, 0, 0});
  Tensor yt({1, 3}, {0, 0, 0}), st({1, 3}, {0, 0, 0});
  DLTensor inputs[] = {x.tensor, b.tensor};
  DLTensor outputs[] = {yt.tensor, st.tensor};
  Status ran(graphc_session_run(session, inputs, 2, nullptr, outputs, 2));
  EXPECT_EQ(ran.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(ran.message(), expected);

  // A rank without dims, and another rank.
  dims[0] = nullptr;
  Status missing(
      graphc_model_select_plan(model, 2, nullptr, ranks, dims, &plan));
  EXPECT_EQ(missing.message(),
            "input 'x': expected float32[batch,3], got a tensor without a "
            "shape");
  dims[0] = bias;
  ranks[0] = 1;
  Status rank(
      graphc_model_output_dims(model, 2, nullptr, ranks, dims, outDims));
  EXPECT_EQ(rank.message(),
            "input 'x': expected float32[batch,3], got float32[3]");
}

/// The affine model with bucketed dims batch (1, 2; splittable) and width
/// (3), both pad-safe (affine_model.c, GRAPHC_TEST_BUCKETS).
class BucketedModelTest : public ::testing::Test {
protected:
  void SetUp() override {
    model = loadOrDie(modelPath("affine_buckets"));
    ASSERT_NE(model, nullptr);
    ASSERT_GRAPHC_OK(graphc_session_create(model, nullptr, &session));
  }
  void TearDown() override {
    graphc_session_release(session);
    graphc_model_release(model);
  }
  /// graphc_model_output_dims for x of `xDims`; y's dims in `y`.
  graphc_status outputDims(std::vector<int64_t> xDims, int64_t (&y)[2]) {
    int64_t bias[] = {3}, scaled[2];
    int32_t ranks[] = {2, 1};
    const int64_t *dims[] = {xDims.data(), bias};
    int64_t *out[] = {y, scaled};
    return graphc_model_output_dims(model, 2, nullptr, ranks, dims, out);
  }

  graphc_model *model = nullptr;
  graphc_session *session = nullptr;
};

TEST_F(BucketedModelTest, SplitsARunPastTheLargestBucket) {
  std::vector<float> xValues;
  for (int i = 0; i < 5 * 3; ++i)
    xValues.push_back(static_cast<float>(i));
  Tensor x({5, 3}, xValues);
  Tensor bias({3}, {1, 2, 3});
  Tensor y({5, 3}, std::vector<float>(15, 0));
  Tensor scaled({5, 3}, std::vector<float>(15, 0));
  DLTensor inputs[] = {x.tensor, bias.tensor};
  DLTensor outputs[] = {y.tensor, scaled.tensor};
  ASSERT_GRAPHC_OK(graphc_session_run(session, inputs, 2, nullptr, outputs, 2));
  EXPECT_EQ(y.values, affine(xValues, bias.values));
}

// A request of zero elements runs nothing, however large its other dims:
// no part per largest bucket.
TEST_F(BucketedModelTest, EmptyRequestsRunNothing) {
  int64_t huge = int64_t(1) << 31;
  int64_t y[2] = {-7, -7};
  ASSERT_GRAPHC_OK(outputDims({huge, 0}, y));
  EXPECT_EQ(y[0], huge);
  EXPECT_EQ(y[1], 0);
  int64_t bias[] = {3}, xDims[] = {huge, 0};
  int32_t ranks[] = {2, 1};
  const int64_t *dims[] = {xDims, bias};
  int32_t plan = -1;
  ASSERT_GRAPHC_OK(
      graphc_model_select_plan(model, 2, nullptr, ranks, dims, &plan));
  EXPECT_EQ(plan, 1);

  for (int64_t batch : {int64_t(0), huge, INT64_MAX}) {
    int64_t width = batch ? 0 : 3;
    Tensor x({batch, width}, {});
    Tensor b({3}, {1, 2, 3});
    Tensor yt({batch, width}, {}), st({batch, width}, {});
    x.tensor.data = yt.tensor.data = st.tensor.data = nullptr;
    DLTensor inputs[] = {x.tensor, b.tensor};
    DLTensor outputs[] = {yt.tensor, st.tensor};
    ASSERT_GRAPHC_OK(
        graphc_session_run(session, inputs, 2, nullptr, outputs, 2));
  }
}

// A run splits into at most GRAPHC_MAX_SPLIT_PARTS parts; larger requests
// are refused by every entry point, naming the input and the dim.
TEST_F(BucketedModelTest, BoundsTheSplitParts) {
  int64_t y[2];
  int64_t limit = int64_t(2) * GRAPHC_MAX_SPLIT_PARTS;
  ASSERT_GRAPHC_OK(outputDims({limit, 3}, y));
  EXPECT_EQ(y[0], limit);
  const std::string expected =
      "input 'x' dim 0 ('batch') is 131073: 65537 runs of the largest "
      "bucket (2), more than the 65536 one call may split into; make "
      "smaller requests";
  Status over(outputDims({limit + 1, 3}, y));
  EXPECT_EQ(over.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(over.message(), expected);
  for (int64_t batch : {int64_t(1) << 40, INT64_MAX}) {
    Status huge(outputDims({batch, 3}, y));
    EXPECT_EQ(huge.code(), GRAPHC_INVALID_ARGUMENT);
    EXPECT_NE(huge.message().find("input 'x' dim 0 ('batch') is " +
                                  std::to_string(batch)),
              std::string::npos)
        << huge.message();
  }
  int64_t bias[] = {3}, xDims[] = {limit + 1, 3};
  int32_t ranks[] = {2, 1};
  const int64_t *dims[] = {xDims, bias};
  int32_t plan = -1;
  Status selected(
      graphc_model_select_plan(model, 2, nullptr, ranks, dims, &plan));
  EXPECT_EQ(selected.message(), expected);
  // The run is refused before any data is read.
  float cells[3] = {};
  Tensor x({limit + 1, 3}, {}), b({3}, {1, 2, 3});
  Tensor yt({limit + 1, 3}, {}), st({limit + 1, 3}, {});
  x.tensor.data = &cells[0];
  yt.tensor.data = &cells[1];
  st.tensor.data = &cells[2];
  DLTensor inputs[] = {x.tensor, b.tensor};
  DLTensor outputs[] = {yt.tensor, st.tensor};
  Status ran(graphc_session_run(session, inputs, 2, nullptr, outputs, 2));
  EXPECT_EQ(ran.message(), expected);
}

/// One invalid call of graphc_session_run and what it must report.
struct BadRun {
  const char *name;
  graphc_code code;
  const char *message;
  /// Breaks the otherwise valid call (batch 1, positional inputs).
  void (*mutate)(std::vector<DLTensor> &inputs,
                 std::vector<const char *> &names,
                 std::vector<DLTensor> &outputs, bool &useNames);
};

int64_t kShape13[] = {1, 3};
int64_t kShape33[] = {3, 3};
int64_t kShape4[] = {4};
int64_t kShape3[] = {3};
// Strides of size-1 dims do not matter; bias (3 elements) with stride 2 is
// not dense.
int64_t kStrides11[] = {5, 1};
int64_t kStrides2[] = {2};

const BadRun kBadRuns[] = {
    {"TooFewInputs", GRAPHC_INVALID_ARGUMENT,
     "expected 2 inputs ('x', 'bias'), got 1",
     [](auto &inputs, auto &, auto &, bool &) { inputs.pop_back(); }},
    {"UnknownName", GRAPHC_NOT_FOUND,
     "unknown input 'z'; the model's inputs are 'x', 'bias'",
     [](auto &, auto &names, auto &, bool &useNames) {
       useNames = true;
       names[1] = "z";
     }},
    {"RepeatedName", GRAPHC_INVALID_ARGUMENT, "input 'x' given twice",
     [](auto &, auto &names, auto &, bool &useNames) {
       useNames = true;
       names[1] = "x";
     }},
    {"WrongDtype", GRAPHC_INVALID_ARGUMENT,
     "input 'x': expected float32[batch,3], got int32[1,3]",
     [](auto &inputs, auto &, auto &, bool &) {
       inputs[0].dtype = {kDLInt, 32, 1};
     }},
    {"WrongRank", GRAPHC_INVALID_ARGUMENT,
     "input 'bias': expected float32[3], got float32[1,3]",
     [](auto &inputs, auto &, auto &, bool &) {
       inputs[1].ndim = 2;
       inputs[1].shape = kShape13;
     }},
    {"WrongStaticDim", GRAPHC_INVALID_ARGUMENT,
     "input 'bias': expected float32[3], got float32[4]",
     [](auto &inputs, auto &, auto &, bool &) { inputs[1].shape = kShape4; }},
    {"NoPlanForShape", GRAPHC_INVALID_ARGUMENT,
     "no plan accepts x: float32[3,3], bias: float32[3]; accepted shapes: x: "
     "float32[1,3], bias: float32[3] (plan 'batch1'); x: float32[2,3], bias: "
     "float32[3] (plan 'batch2')",
     [](auto &inputs, auto &, auto &, bool &) { inputs[0].shape = kShape33; }},
    {"InputOnGpu", GRAPHC_INVALID_ARGUMENT,
     "input 'x': expected a tensor in host memory (kDLCPU) for this cpu "
     "model, got cuda:0",
     [](auto &inputs, auto &, auto &, bool &) {
       inputs[0].device = {kDLCUDA, 0};
     }},
    {"InputNotContiguous", GRAPHC_INVALID_ARGUMENT,
     "input 'bias': expected a dense row-major tensor, got strides [2]",
     [](auto &inputs, auto &, auto &, bool &) {
       inputs[1].strides = kStrides2;
     }},
    {"SizeOneDimStrideIgnored", GRAPHC_INVALID_ARGUMENT,
     "output 'y': expected float32[1,3], got float32[3]",
     [](auto &inputs, auto &, auto &outputs, bool &) {
       // x stays valid with an arbitrary stride on its size-1 dim, so the
       // first error is the output's.
       inputs[0].strides = kStrides11;
       outputs[0].ndim = 1;
       outputs[0].shape = kShape3;
     }},
    {"InputWithoutData", GRAPHC_INVALID_ARGUMENT, "input 'bias': data is NULL",
     [](auto &inputs, auto &, auto &, bool &) { inputs[1].data = nullptr; }},
    {"TooFewOutputs", GRAPHC_INVALID_ARGUMENT, "expected 2 outputs, got 1",
     [](auto &, auto &, auto &outputs, bool &) { outputs.pop_back(); }},
    {"OutputShapeOfOtherPlan", GRAPHC_INVALID_ARGUMENT,
     "output 'scaled': expected float32[1,3], got float32[3]",
     [](auto &, auto &, auto &outputs, bool &) {
       outputs[1].ndim = 1;
       outputs[1].shape = kShape3;
     }},
    {"OutputWrongDtype", GRAPHC_INVALID_ARGUMENT,
     "output 'y': expected float32[1,3], got float64[1,3]",
     [](auto &, auto &, auto &outputs, bool &) {
       outputs[0].dtype = {kDLFloat, 64, 1};
     }},
    {"OutputWithUnknownDtype", GRAPHC_INVALID_ARGUMENT,
     "output 'y': expected float32[1,3], got dlpack dtype (code 2, bits 32, "
     "lanes 4)",
     [](auto &, auto &, auto &outputs, bool &) {
       outputs[0].dtype = {kDLFloat, 32, 4};
     }},
    {"OutputOverlapsInput", GRAPHC_INVALID_ARGUMENT,
     "output 'y' overlaps input 'x'; outputs need memory of their own",
     [](auto &inputs, auto &, auto &outputs, bool &) {
       outputs[0].data = inputs[0].data;
     }},
    {"OutputsOverlap", GRAPHC_INVALID_ARGUMENT,
     "output 'scaled' overlaps output 'y'; outputs need memory of their own",
     [](auto &, auto &, auto &outputs, bool &) {
       // Both outputs in one block of their own, the second starting inside
       // the first: whatever the allocator put beside the test's tensors,
       // the only overlap is theirs.
       static float block[5];
       outputs[0].data = block;
       outputs[1].data = block + 2;
     }},
};

class BadRunTest : public AffineModelTest,
                   public ::testing::WithParamInterface<BadRun> {};

TEST_P(BadRunTest, ReportsAndLeavesOutputsUntouched) {
  const BadRun &bad = GetParam();
  Tensor x({1, 3}, {1, 2, 3});
  Tensor bias({3}, {0, 0, 0});
  Tensor y({1, 3}, {-7, -7, -7});
  Tensor scaled({1, 3}, {-7, -7, -7});
  std::vector<DLTensor> inputs = {x.tensor, bias.tensor};
  std::vector<const char *> names = {"x", "bias"};
  std::vector<DLTensor> outputs = {y.tensor, scaled.tensor};
  bool useNames = false;
  bad.mutate(inputs, names, outputs, useNames);
  Status status(graphc_session_run(
      session, inputs.data(), static_cast<int32_t>(inputs.size()),
      useNames ? names.data() : nullptr, outputs.data(),
      static_cast<int32_t>(outputs.size())));
  EXPECT_EQ(status.code(), bad.code) << status.message();
  EXPECT_EQ(status.message(), bad.message);
  EXPECT_EQ(y.values, (std::vector<float>{-7, -7, -7}));
  EXPECT_EQ(scaled.values, (std::vector<float>{-7, -7, -7}));
}

INSTANTIATE_TEST_SUITE_P(Runtime, BadRunTest, ::testing::ValuesIn(kBadRuns),
                         [](const auto &info) {
                           return std::string(info.param.name);
                         });

TEST_F(AffineModelTest, SynchronizeReturnsAtOnceOnCpu) {
  ASSERT_GRAPHC_OK(graphc_session_synchronize(session));
  Status null(graphc_session_synchronize(nullptr));
  EXPECT_EQ(null.code(), GRAPHC_INVALID_ARGUMENT);
}

TEST_F(AffineModelTest, ReportsKernelFailures) {
  Tensor x({1, 3}, {1, 2, 3});
  Tensor bias({3}, {NAN, 0, 0});
  Tensor y({1, 3}, {0, 0, 0});
  Tensor scaled({1, 3}, {0, 0, 0});
  DLTensor inputs[] = {x.tensor, bias.tensor};
  DLTensor outputs[] = {y.tensor, scaled.tensor};
  Status status(graphc_session_run(session, inputs, 2, nullptr, outputs, 2));
  EXPECT_EQ(status.code(), GRAPHC_INTERNAL);
  EXPECT_EQ(status.message(), "kernel 'add_rows1' (ONNX nodes Add_1) failed "
                              "in plan 'batch1' step 1: bias is nan");
}

// A value of the caller's data out of range (an index) is the caller's
// error, as on cuda; the session stays usable.
TEST_F(AffineModelTest, ReportsValuesOutOfRangeAsInvalidArguments) {
  Tensor x({1, 3}, {1, 2, 3});
  Tensor bias({3}, {INFINITY, 0, 0});
  Tensor y({1, 3}, {0, 0, 0});
  Tensor scaled({1, 3}, {0, 0, 0});
  DLTensor inputs[] = {x.tensor, bias.tensor};
  DLTensor outputs[] = {y.tensor, scaled.tensor};
  Status status(graphc_session_run(session, inputs, 2, nullptr, outputs, 2));
  EXPECT_EQ(status.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(),
            "bias is infinite in node 'Add_1' (kernel 'add_rows1')");
  bias.values[0] = 1;
  ASSERT_GRAPHC_OK(graphc_session_run(session, inputs, 2, nullptr, outputs, 2));
  EXPECT_EQ(y.values, affine(x.values, bias.values));
}

TEST(Runtime, ThreadsShareOneModel) {
  graphc_model *model = loadOrDie(modelPath("affine_model"));
  ASSERT_NE(model, nullptr);
  auto worker = [model](int seed, bool &ok) {
    graphc_session *session = nullptr;
    Status created(graphc_session_create(model, nullptr, &session));
    ok = created.ok();
    for (int iteration = 0; ok && iteration < 500; ++iteration) {
      int64_t batch = 1 + (iteration + seed) % 2;
      std::vector<float> xValues;
      for (int64_t i = 0; i < batch * 3; ++i)
        xValues.push_back(static_cast<float>(seed * 1000 + iteration + i));
      Tensor x({batch, 3}, xValues);
      Tensor bias({3}, {float(seed), 1.0f, 2.0f});
      Tensor y({batch, 3}, std::vector<float>(batch * 3));
      Tensor scaled({batch, 3}, std::vector<float>(batch * 3));
      DLTensor inputs[] = {x.tensor, bias.tensor};
      DLTensor outputs[] = {y.tensor, scaled.tensor};
      Status status(
          graphc_session_run(session, inputs, 2, nullptr, outputs, 2));
      ok = status.ok() && y.values == affine(xValues, bias.values);
    }
    graphc_session_release(session);
  };
  bool ok1 = false, ok2 = false;
  std::thread first(worker, 1, std::ref(ok1));
  std::thread second(worker, 2, std::ref(ok2));
  first.join();
  second.join();
  EXPECT_TRUE(ok1);
  EXPECT_TRUE(ok2);
  graphc_model_release(model);
}

/// Loads `path` and expects failure with `code` and a message containing
/// `fragment`.
void expectLoadFails(const std::string &path, graphc_code code,
                     const std::string &fragment,
                     const graphc_model_options *options = nullptr) {
  graphc_model *model = nullptr;
  Status status(graphc_model_load(path.c_str(), options, &model));
  EXPECT_EQ(status.code(), code) << status.message();
  EXPECT_NE(status.message().find(fragment), std::string::npos)
      << status.message();
  EXPECT_EQ(model, nullptr);
}

// glibc's dlopen hands back an already loaded library whose name matches, and
// a model that cannot be unloaded keeps its name after release. Two models
// loaded at once, and a model loaded after such a one, must each be the file
// asked for.
TEST(RuntimeLoad, EachModelIsTheFileAskedFor) {
  graphc_model_options inspect;
  graphc_model_options_init(&inspect);
  inspect.flags = GRAPHC_MODEL_INSPECT_ONLY;
  graphc_model *affine = loadOrDie(modelPath("affine_nodelete"));
  graphc_model *scale = loadOrDie(modelPath("scale_model"), &inspect);
  ASSERT_NE(affine, nullptr);
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(graphc_model_target(affine), GRAPHC_TARGET_CPU);
  EXPECT_EQ(graphc_model_target(scale), GRAPHC_TARGET_CUDA);
  graphc_model_release(scale);
  graphc_model_release(affine);
  // affine_nodelete stays loaded under the name it was loaded as.
  for (int i = 0; i < 3; ++i) {
    graphc_model *next = loadOrDie(modelPath("scale_model"), &inspect);
    ASSERT_NE(next, nullptr);
    EXPECT_EQ(graphc_model_target(next), GRAPHC_TARGET_CUDA);
    graphc_model_release(next);
  }
  graphc_model *again = loadOrDie(modelPath("affine_model"));
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(graphc_model_target(again), GRAPHC_TARGET_CPU);
  graphc_model_release(again);
}

TEST(RuntimeLoad, MissingFile) {
  expectLoadFails("/nonexistent/model.so", GRAPHC_NOT_FOUND,
                  "cannot open model '/nonexistent/model.so': No such file");
}

TEST(RuntimeLoad, RandomBytes) {
  TempDir dir;
  std::string path = dir.path + "/random.so";
  std::vector<char> bytes(4096);
  unsigned state = 12345;
  for (char &byte : bytes)
    byte = static_cast<char>((state = state * 1103515245u + 12345u) >> 16);
  writeFile(path, bytes.data(), bytes.size());
  expectLoadFails(path, GRAPHC_INVALID_ARGUMENT, "is not an ELF shared object");
}

TEST(RuntimeLoad, TruncatedSharedObject) {
  std::vector<char> bytes = readFile(modelPath("affine_model"));
  ASSERT_GT(bytes.size(), 4096u);
  TempDir dir;
  for (size_t size : {size_t(0), size_t(3), size_t(63), size_t(200),
                      size_t(2000), bytes.size() / 2, bytes.size() - 1}) {
    SCOPED_TRACE("truncated to " + std::to_string(size) + " bytes");
    std::string path = dir.path + "/cut" + std::to_string(size) + ".so";
    writeFile(path, bytes.data(), size);
    graphc_model *model = nullptr;
    Status status(graphc_model_load(path.c_str(), nullptr, &model));
    EXPECT_EQ(status.code(), GRAPHC_INVALID_ARGUMENT) << status.message();
    EXPECT_EQ(model, nullptr);
  }
}

TEST(RuntimeLoad, NotAModel) {
  expectLoadFails(modelPath("not_a_model"), GRAPHC_NOT_FOUND,
                  "is not a graphc model: no .graphc_model section");
}

TEST(RuntimeLoad, WrongAbiVersion) {
  expectLoadFails(modelPath("affine_abi99"), GRAPHC_FAILED_PRECONDITION,
                  "has descriptor ABI version 99, this reader reads version " +
                      std::to_string(GRAPHC_ABI_VERSION));
}

TEST(RuntimeLoad, MalformedDescriptor) {
  expectLoadFails(modelPath("affine_bad_ref"), GRAPHC_DATA_LOSS,
                  "malformed descriptor in '" + modelPath("affine_bad_ref") +
                      "': plan 'batch1' step 0 argument 2: arena range "
                      "[1024, 1036) exceeds the arena (256 bytes)");
}

/// Writes `bytes` with the byte at `offset` flipped to `dir`/`name` and
/// returns its path.
std::string writeFlipped(const TempDir &dir, const std::string &name,
                         std::vector<char> bytes, size_t offset) {
  bytes.at(offset) ^= 0x40;
  std::string path = dir.path + "/" + name;
  writeFile(path, bytes.data(), bytes.size());
  return path;
}

TEST(RuntimeLoad, CorruptedEmbeddedWeights) {
  std::vector<char> bytes = readFile(modelPath("affine_model"));
  auto at = std::search(bytes.begin(), bytes.end(),
                        reinterpret_cast<const char *>(kWeights),
                        reinterpret_cast<const char *>(kWeights) + 12);
  ASSERT_NE(at, bytes.end());
  TempDir dir;
  std::string path =
      writeFlipped(dir, "corrupt.so", bytes, at - bytes.begin() + 5);
  expectLoadFails(path, GRAPHC_DATA_LOSS,
                  "checksum mismatch in model '" + path + "': expected 0x");

  graphc_model_options options;
  graphc_model_options_init(&options);
  options.flags = GRAPHC_MODEL_SKIP_CHECKSUM;
  graphc_model *model = loadOrDie(path, &options);
  EXPECT_NE(model, nullptr);
  graphc_model_release(model);
}

// Bytes outside the weights are covered too: the descriptor, the code, and
// the ELF headers past the ones dlopen checks.
TEST(RuntimeLoad, CorruptedDescriptorOrCode) {
  std::vector<char> bytes = readFile(modelPath("affine_model"));
  graphc::rt::ArtifactRead read =
      graphc::rt::readArtifact(bytes.data(), bytes.size());
  ASSERT_EQ(read.error, graphc::rt::ArtifactError::none) << read.message;
  TempDir dir;
  // A field of the descriptor, padding inside it (which changes nothing
  // the reader sees), a byte in the middle and the last byte of the file.
  size_t descriptor = read.view.checksumOffset -
                      offsetof(graphc_model_desc, checksum) +
                      offsetof(graphc_model_desc, num_plans);
  size_t descriptorPadding = read.view.checksumOffset -
                             offsetof(graphc_model_desc, checksum) +
                             offsetof(graphc_model_desc, producer) - 1;
  for (size_t offset :
       {descriptor, descriptorPadding, bytes.size() / 2, bytes.size() - 1}) {
    SCOPED_TRACE("byte " + std::to_string(offset));
    std::string path = writeFlipped(
        dir, "flipped" + std::to_string(offset) + ".so", bytes, offset);
    expectLoadFails(path, GRAPHC_DATA_LOSS,
                    "checksum mismatch in model '" + path + "'");
  }
}

// The data-only reader takes any bytes: every truncation and many flipped
// bytes of a real artifact give a view or an error, never a crash.
TEST(ArtifactReader, AnyBytes) {
  std::vector<char> bytes = readFile(modelPath("affine_model"));
  for (size_t size = 0; size < bytes.size(); size += 7) {
    graphc::rt::ArtifactRead read =
        graphc::rt::readArtifact(bytes.data(), size);
    EXPECT_NE(read.error, graphc::rt::ArtifactError::none) << size;
  }
  unsigned state = 2024;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<char> copy = bytes;
    for (int flips = 0; flips < 4; ++flips) {
      state = state * 1103515245u + 12345u;
      copy[(state >> 8) % copy.size()] ^= static_cast<char>(1u << (state % 8));
    }
    graphc::rt::ArtifactRead read =
        graphc::rt::readArtifact(copy.data(), copy.size());
    if (read.error == graphc::rt::ArtifactError::none)
      EXPECT_LE(read.view.checksumOffset + 8, copy.size());
  }
  graphc::rt::ArtifactRead read =
      graphc::rt::readArtifact(bytes.data(), bytes.size());
  ASSERT_EQ(read.error, graphc::rt::ArtifactError::none) << read.message;
  EXPECT_EQ(read.view.producer, "graphc test");
  ASSERT_EQ(read.view.inputs.size(), 2u);
  EXPECT_EQ(read.view.inputs[0].name, "x");
  EXPECT_EQ(read.view.inputs[0].dimNames[0], "batch");
  ASSERT_EQ(read.view.plans.size(), 2u);
  EXPECT_EQ(read.view.plans[1].inputDims[0], (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(read.view.kernels[3].name, "add_rows2");
  EXPECT_TRUE(read.view.weightsEmbedded);
  EXPECT_EQ(read.view.weightsSize, 12u);
  EXPECT_EQ(
      std::memcmp(bytes.data() + read.view.weightsFileOffset, kWeights, 12), 0);
}

// Sizes that overflow when rounded up to the alignment fail cleanly instead
// of returning a small buffer.
TEST(RuntimeSession, AllocationFailuresAreStatuses) {
  graphc_model *model = loadOrDie(modelPath("affine_model"));
  ASSERT_NE(model, nullptr);
  graphc_session *session = nullptr;
  ASSERT_GRAPHC_OK(graphc_session_create(model, nullptr, &session));
  for (uint64_t bytes : {UINT64_MAX, UINT64_MAX - 100, uint64_t(1) << 62}) {
    void *data = nullptr;
    Status status(graphc_session_allocate_buffer(session, bytes, &data));
    EXPECT_EQ(status.code(), GRAPHC_RESOURCE_EXHAUSTED) << bytes;
    EXPECT_EQ(data, nullptr);
  }
  graphc_session_release(session);
  graphc_model_release(model);
}

/// Runs the affine model at batch 1 with x and bias all ones: y = x * w +
/// bias with w = {2, 3, 4}, whichever way the weights were stored.
void expectAffineRun(graphc_model *model) {
  graphc_session *session = nullptr;
  ASSERT_GRAPHC_OK(graphc_session_create(model, nullptr, &session));
  Tensor x({1, 3}, {1, 1, 1});
  Tensor bias({3}, {1, 1, 1});
  Tensor y({1, 3}, {0, 0, 0});
  Tensor scaled({1, 3}, {0, 0, 0});
  DLTensor inputs[] = {x.tensor, bias.tensor};
  DLTensor outputs[] = {y.tensor, scaled.tensor};
  ASSERT_GRAPHC_OK(graphc_session_run(session, inputs, 2, nullptr, outputs, 2));
  EXPECT_EQ(y.values, (std::vector<float>{3, 4, 5}));
  graphc_session_release(session);
}

TEST(RuntimeLoad, SideWeightsFile) {
  TempDir dir;
  std::vector<char> bytes = readFile(modelPath("affine_side"));
  std::string path = dir.path + "/affine_side.so";
  std::string weightsPath = dir.path + "/affine_side.weights";
  writeFile(path, bytes.data(), bytes.size());
  expectLoadFails(path, GRAPHC_NOT_FOUND,
                  "cannot open the weights of '" + path + "' ('" + weightsPath +
                      "')");

  writeFile(weightsPath, kWeights, 8);
  expectLoadFails(path, GRAPHC_DATA_LOSS,
                  "weights file '" + weightsPath + "' has 8 bytes, model '" +
                      path + "' expects 12");

  const float corrupt[3] = {2.0f, 3.0f, 5.0f};
  writeFile(weightsPath, corrupt, sizeof(corrupt));
  expectLoadFails(path, GRAPHC_DATA_LOSS,
                  "checksum mismatch in weights file '" + weightsPath +
                      "' of model '" + path + "'");

  writeFile(weightsPath, kWeights, sizeof(kWeights));
  graphc_model *model = loadOrDie(path);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(graphc_model_weights_path(model), weightsPath);
  expectAffineRun(model);
  graphc_model_release(model);

  // An explicit weights path replaces the artifact's side file.
  std::string otherPath = dir.path + "/other.weights";
  std::rename(weightsPath.c_str(), otherPath.c_str());
  graphc_model_options options;
  graphc_model_options_init(&options);
  options.weights_path = otherPath.c_str();
  model = loadOrDie(path, &options);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(graphc_model_weights_path(model), otherPath);
  graphc_model_release(model);
}

/// Runs `load` and says whether it had to be released from a FIFO at
/// `fifo` it blocked on (by opening the FIFO for writing after a while).
bool blocksOnFifo(const std::string &fifo, const std::function<void()> &load) {
  std::atomic<bool> done{false}, released{false};
  std::thread watchdog([&] {
    for (int tick = 0; tick < 1000 && !done; ++tick)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (done)
      return;
    released = true;
    int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0)
      close(fd);
  });
  load();
  done = true;
  watchdog.join();
  return released;
}

// A FIFO as the model or its weights file is refused at once: never opened
// in a way that waits for a writer.
TEST(RuntimeLoad, RefusesFifosWithoutBlocking) {
  TempDir dir;
  std::string fifo = dir.path + "/model.so";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(blocksOnFifo(fifo, [&] {
    expectLoadFails(fifo, GRAPHC_INVALID_ARGUMENT,
                    "model '" + fifo + "' is not a regular file");
  }));

  std::vector<char> bytes = readFile(modelPath("affine_side"));
  std::string path = dir.path + "/affine_side.so";
  writeFile(path, bytes.data(), bytes.size());
  std::string weights = dir.path + "/affine_side.weights";
  ASSERT_EQ(mkfifo(weights.c_str(), 0600), 0);
  EXPECT_FALSE(blocksOnFifo(weights, [&] {
    expectLoadFails(path, GRAPHC_INVALID_ARGUMENT,
                    "weights file '" + weights + "' is not a regular file");
  }));
  graphc_model_options options;
  graphc_model_options_init(&options);
  options.weights_path = weights.c_str();
  EXPECT_FALSE(blocksOnFifo(weights, [&] {
    expectLoadFails(path, GRAPHC_INVALID_ARGUMENT,
                    "weights file '" + weights + "' is not a regular file",
                    &options);
  }));
}

// Weights appended to the file after its ELF image (what graphc compile
// writes): mapped from the file, covered by the whole-file checksum, and
// refused when the file is cut short or the offset is wrong.
TEST(RuntimeLoad, AppendedWeights) {
  std::vector<char> bytes = readFile(modelPath("affine_appended"));
  graphc::rt::ArtifactRead read =
      graphc::rt::readArtifact(bytes.data(), bytes.size());
  ASSERT_EQ(read.error, graphc::rt::ArtifactError::none) << read.message;
  EXPECT_TRUE(read.view.weightsAppended);
  EXPECT_FALSE(read.view.weightsEmbedded);
  EXPECT_EQ(read.view.weightsFileOffset % GRAPHC_WEIGHTS_FILE_ALIGNMENT, 0u);
  EXPECT_EQ(read.view.weightsFileOffset + 12, bytes.size());
  EXPECT_EQ(
      std::memcmp(bytes.data() + read.view.weightsFileOffset, kWeights, 12), 0);

  TempDir dir;
  std::string path = dir.path + "/affine_appended.so";
  writeFile(path, bytes.data(), bytes.size());
  graphc_model *model = loadOrDie(path);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(graphc_model_weights_path(model), nullptr);
  expectAffineRun(model);
  graphc_model_release(model);

  // A flipped weight byte fails the whole-file checksum.
  std::string flipped = writeFlipped(dir, "flipped.so", bytes,
                                     read.view.weightsFileOffset + 5);
  expectLoadFails(flipped, GRAPHC_DATA_LOSS,
                  "checksum mismatch in model '" + flipped + "'");

  // Cut short (what strip or a truncated copy leaves): refused before
  // anything is mapped, even without the checksum.
  std::string cut = dir.path + "/cut.so";
  writeFile(cut, bytes.data(), bytes.size() - 4);
  graphc_model_options options;
  graphc_model_options_init(&options);
  options.flags = GRAPHC_MODEL_SKIP_CHECKSUM;
  graphc_model *none = nullptr;
  Status status(graphc_model_load(cut.c_str(), &options, &none));
  EXPECT_NE(status.code(), GRAPHC_OK);
  EXPECT_EQ(none, nullptr);
  graphc::rt::ArtifactRead cutRead =
      graphc::rt::readArtifact(bytes.data(), bytes.size() - 4);
  EXPECT_EQ(cutRead.error, graphc::rt::ArtifactError::malformed);
  EXPECT_NE(cutRead.message.find("run past the end of the file"),
            std::string::npos)
      << cutRead.message;
}

// The reader refuses an appended-weights offset that is misaligned or zero,
// and appended weights that come with embedded ones.
TEST(ArtifactReader, AppendedWeightsOffsetChecked) {
  std::vector<char> bytes = readFile(modelPath("affine_appended"));
  graphc::rt::ArtifactRead read =
      graphc::rt::readArtifact(bytes.data(), bytes.size());
  ASSERT_EQ(read.error, graphc::rt::ArtifactError::none) << read.message;
  auto withOffset = [&](uint64_t offset) {
    std::vector<char> copy = bytes;
    std::memcpy(copy.data() + read.view.weightsOffsetField, &offset, 8);
    return graphc::rt::readArtifact(copy.data(), copy.size());
  };
  graphc::rt::ArtifactRead misaligned =
      withOffset(read.view.weightsFileOffset + 4);
  EXPECT_NE(misaligned.message.find("not a multiple of 65536"),
            std::string::npos)
      << misaligned.message;
  graphc::rt::ArtifactRead inside = withOffset(0);
  EXPECT_NE(inside.message.find("neither embedded, appended nor in a side"),
            std::string::npos)
      << inside.message;
  // The embedded model given an offset too: weights in two places.
  std::vector<char> embedded = readFile(modelPath("affine_model"));
  graphc::rt::ArtifactRead embeddedRead =
      graphc::rt::readArtifact(embedded.data(), embedded.size());
  ASSERT_EQ(embeddedRead.error, graphc::rt::ArtifactError::none);
  uint64_t offset = GRAPHC_WEIGHTS_FILE_ALIGNMENT;
  std::memcpy(embedded.data() + embeddedRead.view.weightsOffsetField, &offset,
              8);
  graphc::rt::ArtifactRead both =
      graphc::rt::readArtifact(embedded.data(), embedded.size());
  EXPECT_NE(both.message.find("both embedded and appended"), std::string::npos)
      << both.message;
}

//===----------------------------------------------------------------------===//
// cuda
//===----------------------------------------------------------------------===//

graphc_image_desc image(int32_t sm, int32_t format, int32_t unit = 0) {
  static const char data[] = "image";
  return {sm, format, data, sizeof(data), unit};
}

TEST(RuntimeCuda, SelectsImages) {
  graphc_image_desc images[] = {image(80, 0), image(90, 0), image(80, 1),
                                image(86, 1)};
  graphc_model_desc desc = {};
  desc.num_images = 4;
  desc.images = images;
  std::string error;
  EXPECT_EQ(graphc::rt::selectImage(desc, 90, error), 1);
  EXPECT_EQ(graphc::rt::selectImage(desc, 80, error), 0);
  // sm_89 runs the sm_80 cubin (same major) rather than JIT-ing PTX.
  EXPECT_EQ(graphc::rt::selectImage(desc, 89, error), 0);
  EXPECT_EQ(graphc::rt::selectImage(desc, 120, error), 3);
  EXPECT_EQ(graphc::rt::selectImage(desc, 75, error), -1);
  EXPECT_EQ(error, "the device is sm_75 and the model has sm_80 (cubin), "
                   "sm_90 (cubin), sm_80 (ptx), sm_86 (ptx): no cubin for "
                   "sm_75 and no PTX for sm_75 or older (recompile with "
                   "--arch sm_75)");
  desc.num_images = 2;
  EXPECT_EQ(graphc::rt::selectImage(desc, 86, error), 0);
  EXPECT_EQ(graphc::rt::selectImage(desc, 100, error), -1);
}

// Each unit is its own module: its image is chosen among its own.
TEST(RuntimeCuda, SelectsTheImagesOfAUnit) {
  graphc_image_desc images[] = {image(80, 0, 0), image(90, 1, 0),
                                image(80, 0, 1), image(90, 1, 1)};
  graphc_model_desc desc = {};
  desc.num_images = 4;
  desc.images = images;
  desc.num_units = 2;
  std::string error;
  EXPECT_EQ(graphc::rt::selectImage(desc, 80, error, 0), 0);
  EXPECT_EQ(graphc::rt::selectImage(desc, 80, error, 1), 2);
  EXPECT_EQ(graphc::rt::selectImage(desc, 90, error, 0), 1);
  EXPECT_EQ(graphc::rt::selectImage(desc, 90, error, 1), 3);
  EXPECT_EQ(graphc::rt::selectImage(desc, 75, error, 1), -1);
  EXPECT_EQ(error, "the device is sm_75 and the model has sm_80 (cubin), "
                   "sm_90 (ptx): no cubin for sm_75 and no PTX for sm_75 or "
                   "older (recompile with --arch sm_75)");
}

TEST(RuntimeCuda, SelectsAHostEmulationImageOnlyWhenNothingElseFits) {
  graphc_image_desc images[] = {image(80, GRAPHC_IMAGE_CUBIN),
                                image(0, GRAPHC_IMAGE_HOST_EMULATION)};
  graphc_model_desc desc = {};
  desc.num_images = 2;
  desc.images = images;
  std::string error;
  EXPECT_EQ(graphc::rt::selectImage(desc, 80, error), 0);
  EXPECT_EQ(graphc::rt::selectImage(desc, 90, error), 1);
  desc.images = images + 1;
  desc.num_images = 1;
  EXPECT_EQ(graphc::rt::selectImage(desc, 80, error), 0);
}

TEST(RuntimeCuda, InspectsWithoutADriver) {
  graphc_model_options options;
  graphc_model_options_init(&options);
  options.flags = GRAPHC_MODEL_INSPECT_ONLY;
  graphc_model *model = loadOrDie(modelPath("scale_model"), &options);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(graphc_model_target(model), GRAPHC_TARGET_CUDA);
  graphc_image_info info;
  ASSERT_GRAPHC_OK(graphc_model_image_info(model, 0, &info));
  EXPECT_EQ(info.sm, 80);
  EXPECT_EQ(info.format, GRAPHC_IMAGE_PTX);
  graphc_session *session = nullptr;
  Status status(graphc_session_create(model, nullptr, &session));
  EXPECT_EQ(status.code(), GRAPHC_FAILED_PRECONDITION);
  EXPECT_NE(status.message().find("loaded for inspection only"),
            std::string::npos);
  graphc_model_release(model);
}

TEST(RuntimeCuda, RunsOnTheGpu) {
  graphc_model *model = nullptr;
  Status loaded(
      graphc_model_load(modelPath("scale_model").c_str(), nullptr, &model));
  if (loaded.code() == GRAPHC_UNAVAILABLE)
    GTEST_SKIP() << "no CUDA driver/device: " << loaded.message();
  ASSERT_TRUE(loaded.ok()) << loaded.message();

  for (uint32_t flags : {0u, unsigned(GRAPHC_SESSION_EAGER_CAPTURE),
                         unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)}) {
    SCOPED_TRACE("session flags " + std::to_string(flags));
    graphc_session_options options;
    graphc_session_options_init(&options);
    options.flags = flags;
    graphc_session *session = nullptr;
    ASSERT_GRAPHC_OK(graphc_session_create(model, &options, &session));
    void *x = nullptr, *y = nullptr;
    ASSERT_GRAPHC_OK(graphc_session_allocate_buffer(session, 24, &x));
    ASSERT_GRAPHC_OK(graphc_session_allocate_buffer(session, 24, &y));
    // Three runs: the first captures, the others replay with new data.
    for (int run = 0; run < 3; ++run) {
      std::vector<float> host = {1, 2, 3, 4, 5, float(run)};
      ASSERT_GRAPHC_OK(graphc_session_upload(session, x, host.data(), 24));
      Tensor xt({2, 3}, {}), yt({2, 3}, {});
      xt.tensor.data = x;
      xt.tensor.device = {kDLCUDA, 0};
      yt.tensor.data = y;
      yt.tensor.device = {kDLCUDA, 0};
      ASSERT_GRAPHC_OK(
          graphc_session_run(session, &xt.tensor, 1, nullptr, &yt.tensor, 1));
      std::vector<float> result(6);
      ASSERT_GRAPHC_OK(graphc_session_download(session, result.data(), y, 24));
      EXPECT_EQ(result, (std::vector<float>{2, 6, 12, 8, 15, 4.0f * run}));
    }
    // A host tensor for a cuda model is rejected before anything runs.
    Tensor hostX({2, 3}, {1, 2, 3, 4, 5, 6}), hostY({2, 3}, {0, 0, 0, 0, 0, 0});
    Status status(graphc_session_run(session, &hostX.tensor, 1, nullptr,
                                     &hostY.tensor, 1));
    EXPECT_EQ(status.code(), GRAPHC_INVALID_ARGUMENT);
    EXPECT_EQ(status.message(), "input 'x': expected a tensor on cuda:0 (the "
                                "session's device), got cpu");
    graphc_session_free_buffer(session, x);
    graphc_session_free_buffer(session, y);
    graphc_session_release(session);
  }
  graphc_model_release(model);
}

// gemm_model's cuda variant without generated kernels: its three GEMMs on
// the real cuBLASLt, the bias ones at 16-byte aligned weight offsets.
TEST(RuntimeCuda, RunsLibraryStepsOnTheGpu) {
  graphc_model *model = nullptr;
  Status loaded(graphc_model_load(
      modelPath("gemm_model_cuda_library_only").c_str(), nullptr, &model));
  if (loaded.code() == GRAPHC_UNAVAILABLE)
    GTEST_SKIP() << "no CUDA driver/device or cuBLASLt: " << loaded.message();
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> values(-1, 1);
  for (uint32_t flags : {0u, unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)}) {
    SCOPED_TRACE("session flags " + std::to_string(flags));
    graphc_session_options options;
    graphc_session_options_init(&options);
    options.flags = flags;
    graphc_session *session = nullptr;
    ASSERT_GRAPHC_OK(graphc_session_create(model, &options, &session));
    void *buffers[4] = {};
    const uint64_t bytes[4] = {96, 80, 80, 120}; // x, c, y, h2
    for (int i = 0; i < 4; ++i)
      ASSERT_GRAPHC_OK(
          graphc_session_allocate_buffer(session, bytes[i], &buffers[i]));
    for (int run = 0; run < 3; ++run) {
      std::vector<float> x(24), c(20);
      for (float &v : x)
        v = values(rng);
      for (float &v : c)
        v = values(rng);
      ASSERT_GRAPHC_OK(
          graphc_session_upload(session, buffers[0], x.data(), 96));
      ASSERT_GRAPHC_OK(
          graphc_session_upload(session, buffers[1], c.data(), 80));
      Tensor xt({2, 3, 4}, {}), ct({2, 5, 2}, {}), yt({2, 5, 2}, {}),
          ht({2, 3, 5}, {});
      Tensor *tensors[4] = {&xt, &ct, &yt, &ht};
      for (int i = 0; i < 4; ++i) {
        tensors[i]->tensor.data = buffers[i];
        tensors[i]->tensor.device = {kDLCUDA, 0};
      }
      DLTensor inputs[2] = {xt.tensor, ct.tensor};
      DLTensor outputs[2] = {yt.tensor, ht.tensor};
      ASSERT_GRAPHC_OK(
          graphc_session_run(session, inputs, 2, nullptr, outputs, 2));
      std::vector<float> y(20), h2(30);
      ASSERT_GRAPHC_OK(
          graphc_session_download(session, y.data(), buffers[2], 80));
      ASSERT_GRAPHC_OK(
          graphc_session_download(session, h2.data(), buffers[3], 120));
      gemmtest::GemmModelOutputs expected =
          gemmtest::gemmModelExpected(x, c, 1);
      // TF32 is not enabled (CUBLAS_COMPUTE_32F), so float tolerances hold.
      EXPECT_TRUE(gemmtest::near(y, expected.y, 1e-4));
      EXPECT_TRUE(gemmtest::near(h2, expected.h2, 1e-4));
    }
    for (void *buffer : buffers)
      graphc_session_free_buffer(session, buffer);
    graphc_session_release(session);
  }
  graphc_model_release(model);
}

// conv_model's cuda variants: its two convolutions (grouped 2-d with bias,
// residual and ReLU; depthwise dilated 1-d with ReLU or SiLU) on the real
// cuDNN, channels first and channels last, captured and replayed and without
// graphs. Their kernels have no epilogue kernel (the models are hand-written
// descriptors without device code), so cuDNN must fuse each whole graph.
// Where the GPU's cuDNN has no engine that does (cuDNN 9.14 on an H100 has
// none for these float32 graphs), the session must refuse with the
// precondition that names the kernel and says why, never run something else;
// graphc's own models then run the convolution alone and their finishing
// kernel, which the GPU run's model tests check.
TEST(RuntimeCuda, RunsConvStepsOnTheGpu) {
  int ran = 0, refused = 0;
  for (const char *name :
       {"conv_model_cuda", "conv_model_cuda_nhwc", "conv_model_cuda_silu"}) {
    SCOPED_TRACE(name);
    bool channelsLast = std::string(name).find("_nhwc") != std::string::npos;
    bool silu = std::string(name).find("_silu") != std::string::npos;
    graphc_model *model = nullptr;
    Status loaded(graphc_model_load(modelPath(name).c_str(), nullptr, &model));
    if (loaded.code() == GRAPHC_UNAVAILABLE)
      GTEST_SKIP() << "no CUDA driver/device or cuDNN: " << loaded.message();
    ASSERT_TRUE(loaded.ok()) << loaded.message();
    // x [2,4,7,6], z [2,6,4,3], s [2,3,12] -> y [2,6,4,3], y1 [2,3,9]
    // channels first; each with its channels moved last otherwise, the
    // same elements.
    const int64_t channels[5] = {4, 6, 3, 6, 3}, volumes[5] = {42, 12, 12, 12, 9};
    std::vector<std::vector<int64_t>> shapes = {
        {2, 4, 7, 6}, {2, 6, 4, 3}, {2, 3, 12}, {2, 6, 4, 3}, {2, 3, 9}};
    if (channelsLast)
      shapes = {{2, 7, 6, 4}, {2, 4, 3, 6}, {2, 12, 3}, {2, 4, 3, 6}, {2, 9, 3}};
    std::mt19937 rng(23);
    std::uniform_real_distribution<float> values(-1, 1);
    for (uint32_t flags : {0u, unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)}) {
      SCOPED_TRACE("session flags " + std::to_string(flags));
      graphc_session_options options;
      graphc_session_options_init(&options);
      options.flags = flags;
      graphc_session *session = nullptr;
      Status created(graphc_session_create(model, &options, &session));
      if (!created.ok()) {
        EXPECT_EQ(created.code(), GRAPHC_FAILED_PRECONDITION)
            << created.message();
        for (const char *part :
             {"cannot run kernel", "has no engine", "no epilogue kernel"})
          EXPECT_NE(created.message().find(part), std::string::npos)
              << "'" << part << "' not in: " << created.message();
        std::cout << "[ NOTE     ] " << name << ": " << created.message() << "\n";
        ++refused;
        continue;
      }
      ++ran;
      void *buffers[5] = {};
      for (int i = 0; i < 5; ++i)
        ASSERT_GRAPHC_OK(graphc_session_allocate_buffer(
            session, 2 * channels[i] * volumes[i] * sizeof(float),
            &buffers[i]));
      for (int run = 0; run < 3; ++run) {
        std::vector<float> inputs[3];
        for (int i = 0; i < 3; ++i) {
          inputs[i].resize(2 * channels[i] * volumes[i]);
          for (float &v : inputs[i])
            v = values(rng);
          ASSERT_GRAPHC_OK(graphc_session_upload(
              session, buffers[i], inputs[i].data(),
              inputs[i].size() * sizeof(float)));
        }
        std::vector<std::unique_ptr<Tensor>> tensors;
        for (int i = 0; i < 5; ++i) {
          tensors.push_back(
              std::make_unique<Tensor>(shapes[i], std::vector<float>{}));
          tensors.back()->tensor.data = buffers[i];
          tensors.back()->tensor.device = {kDLCUDA, 0};
        }
        DLTensor in[3] = {tensors[0]->tensor, tensors[1]->tensor,
                          tensors[2]->tensor};
        DLTensor out[2] = {tensors[3]->tensor, tensors[4]->tensor};
        ASSERT_GRAPHC_OK(graphc_session_run(session, in, 3, nullptr, out, 2));
        std::vector<float> y(144), y1(54);
        ASSERT_GRAPHC_OK(graphc_session_download(
            session, y.data(), buffers[3], y.size() * sizeof(float)));
        ASSERT_GRAPHC_OK(graphc_session_download(
            session, y1.data(), buffers[4], y1.size() * sizeof(float)));
        // In the model's layout (its weights are the same bytes in both).
        convtest::ConvModelOutputs expected = convtest::convModelExpected(
            inputs[0], inputs[1], inputs[2], channelsLast,
            silu ? GRAPHC_EPILOGUE_SILU : GRAPHC_EPILOGUE_RELU);
        // Exact float32 engines only (no tf32): float tolerances hold.
        EXPECT_TRUE(gemmtest::near(y, expected.y, 1e-4));
        EXPECT_TRUE(gemmtest::near(y1, expected.y1, 1e-4));
      }
      for (void *buffer : buffers)
        graphc_session_free_buffer(session, buffer);
      graphc_session_release(session);
    }
    graphc_model_release(model);
  }
  // Three models, each with and without graphs: every session ran or was
  // refused for the reason above.
  EXPECT_EQ(ran + refused, 6);
}

} // namespace

// GRAPHC_SESSION_PROFILE_STEPS times each step of the last plan launch;
// graphc_model_step_info says what each step is.
TEST(Runtime, ProfilesSteps) {
  graphc_model *model = loadOrDie(modelPath("affine_model"));
  ASSERT_NE(model, nullptr);
  Tensor x({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor bias({3}, {1, 1, 1});
  Tensor y({2, 3}, std::vector<float>(6));
  Tensor scaled({2, 3}, std::vector<float>(6));
  DLTensor inputs[] = {x.tensor, bias.tensor};
  DLTensor outputs[] = {y.tensor, scaled.tensor};
  int32_t plan = -1, steps = -1;

  // Without the flag there is nothing to read.
  graphc_session *plain = nullptr;
  ASSERT_GRAPHC_OK(graphc_session_create(model, nullptr, &plain));
  ASSERT_GRAPHC_OK(graphc_session_run(plain, inputs, 2, nullptr, outputs, 2));
  Status unprofiled(graphc_session_step_times(plain, &plan, nullptr, 0, &steps));
  EXPECT_EQ(unprofiled.code(), GRAPHC_FAILED_PRECONDITION);
  graphc_session_release(plain);

  graphc_session_options options;
  graphc_session_options_init(&options);
  options.flags = GRAPHC_SESSION_PROFILE_STEPS;
  graphc_session *session = nullptr;
  ASSERT_GRAPHC_OK(graphc_session_create(model, &options, &session));
  Status early(graphc_session_step_times(session, &plan, nullptr, 0, &steps));
  EXPECT_EQ(early.code(), GRAPHC_FAILED_PRECONDITION);
  EXPECT_EQ(early.message(), "no run has been profiled yet");

  ASSERT_GRAPHC_OK(graphc_session_run(session, inputs, 2, nullptr, outputs, 2));
  EXPECT_EQ(y.values, affine(x.values, bias.values));
  ASSERT_GRAPHC_OK(graphc_session_step_times(session, &plan, nullptr, 0, &steps));
  int32_t selected = -1;
  int32_t ranks[] = {2, 1};
  const int64_t xDims[] = {2, 3}, biasDims[] = {3};
  const int64_t *dims[] = {xDims, biasDims};
  ASSERT_GRAPHC_OK(
      graphc_model_select_plan(model, 2, nullptr, ranks, dims, &selected));
  EXPECT_EQ(plan, selected);
  graphc_plan_info info;
  ASSERT_GRAPHC_OK(graphc_model_plan_info(model, plan, &info));
  ASSERT_EQ(steps, info.num_steps);
  ASSERT_GT(steps, 0);
  std::vector<double> micros(steps, -1.0);
  ASSERT_GRAPHC_OK(graphc_session_step_times(session, &plan, micros.data(),
                                             steps, &steps));
  for (int32_t s = 0; s < steps; ++s) {
    EXPECT_GE(micros[s], 0.0) << "step " << s;
    graphc_step_info step;
    ASSERT_GRAPHC_OK(graphc_model_step_info(model, plan, s, &step));
    // Host calls name their kernel; a copy has none. Neither launches.
    if (step.kind == GRAPHC_STEP_COPY) {
      EXPECT_EQ(step.kernel, -1) << "step " << s;
    } else {
      EXPECT_EQ(step.kind, GRAPHC_STEP_HOST_CALL) << "step " << s;
      EXPECT_GE(step.kernel, 0);
      EXPECT_LT(step.kernel, graphc_model_kernel_count(model));
    }
    EXPECT_EQ(step.block[0], 0u);
  }
  graphc_step_info step;
  Status past(graphc_model_step_info(model, plan, steps, &step));
  EXPECT_EQ(past.code(), GRAPHC_INVALID_ARGUMENT);
  graphc_session_release(session);
  graphc_model_release(model);
}
