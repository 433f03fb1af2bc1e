//===- OutputExtentsTest.cpp - data-dependent output dims on the cpu ------===//
//
// checkDescriptor on a hand-built model with data-dependent output dims
// (descriptor ABI 16), one fault each: a model file is untrusted, so flags,
// dims, names and every plan's extent slots are checked before a run reads
// an extent. Then extent_model (models/extent_model.c, keep the positive
// elements) run by the cpu executor: graphc_session_output_dims after runs
// of different data through every run entry point, the corner it names in
// the bound-shaped outputs, its errors before a run, after a failed one and
// for extents outside the bound, and the runs a model with such outputs
// refuses (padded, split or batched ones). The cuda side runs in
// CudaOutputExtentsTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "TestModelPath.h"
#include "graphc/descriptor.h"
#include "graphc/runtime.h"
#include "runtime/src/DescriptorCheck.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

//===- The load check -----------------------------------------------------===//

int noKernel(void *const *, char *, uint64_t) { return 0; }

/// A cpu model of kept: float32[n] (bound 8) and where: int64[2,n] (bound
/// [2,8]) from x: float32[rows,4], rows bucketed at 2, one host call
/// writing both and the count at arena 64, which both outputs' extent is.
struct ExtentModel {
  ExtentModel() {
    kernels[0] = {"keep_positive", "compress", "Compress_0", 1, noKernel};
    args[0] = {GRAPHC_BUFFER_INPUT, 0, 0, 32};
    args[1] = {GRAPHC_BUFFER_OUTPUT, 0, 0, 32};
    args[2] = {GRAPHC_BUFFER_OUTPUT, 1, 0, 128};
    args[3] = {GRAPHC_BUFFER_ARENA, 0, 64, 8};
    steps[0] = {GRAPHC_STEP_HOST_CALL, 0, {1, 1, 1}, {1, 1, 1}, 0, 4, args};
    keptExtents[0] = {GRAPHC_BUFFER_ARENA, 0, 64, 8};
    whereExtents[0] = {GRAPHC_BUFFER_NONE, 0, 0, 0};
    whereExtents[1] = {GRAPHC_BUFFER_ARENA, 0, 64, 8};
    plans[0] = {"static", inputDims, outputDims, 256, 8, 1, steps, extents};
    bucketDims[0] = {"rows", 1, rowsSizes, 1, 1, "", "", outputAxes};
    desc.abi_version = GRAPHC_ABI_VERSION;
    desc.producer = "graphc test";
    desc.target = GRAPHC_TARGET_CPU;
    desc.num_inputs = 1;
    desc.inputs = inputs;
    desc.num_outputs = 2;
    desc.outputs = outputs;
    desc.num_plans = 1;
    desc.plans = plans;
    desc.num_kernels = 1;
    desc.kernels = kernels;
    desc.num_bucket_dims = 1;
    desc.bucket_dims = bucketDims;
  }
  ExtentModel(const ExtentModel &) = delete;

  std::string check() const { return graphc::rt::checkDescriptor(desc); }

  int64_t xDims[2] = {-1, 4}, keptDims[1] = {-1}, whereDims[2] = {2, -1};
  const char *xNames[2] = {"rows", ""};
  const char *keptNames[1] = {"kept_count"};
  const char *whereNames[2] = {"", "where_count"};
  int32_t keptFlags[1] = {1}, whereFlags[2] = {0, 1};
  graphc_tensor_desc inputs[1] = {{"x", 1, 2, xDims, xNames}};
  graphc_tensor_desc outputs[2] = {
      {"kept", 1, 1, keptDims, keptNames, 0, keptFlags},
      {"where", 7, 2, whereDims, whereNames, 0, whereFlags}};
  int64_t planX[2] = {2, 4}, planKept[1] = {8}, planWhere[2] = {2, 8};
  const int64_t *inputDims[1] = {planX};
  const int64_t *outputDims[2] = {planKept, planWhere};
  graphc_buffer_ref keptExtents[1], whereExtents[2];
  const graphc_buffer_ref *extents[2] = {keptExtents, whereExtents};
  int64_t rowsSizes[1] = {2};
  int32_t outputAxes[2] = {-1, -1};
  graphc_bucket_dim_desc bucketDims[1];
  graphc_kernel_desc kernels[1] = {};
  graphc_buffer_ref args[4];
  graphc_step_desc steps[1] = {};
  graphc_plan_desc plans[1];
  graphc_model_desc desc = {};
};

TEST(OutputExtentsDescriptorCheck, AcceptsDataDependentOutputs) {
  ExtentModel model;
  EXPECT_EQ(model.check(), "");
  // Without data-dependent dims, a plan may leave out the whole table.
  model.outputs[0].data_dependent = nullptr;
  model.outputs[1].data_dependent = nullptr;
  model.keptDims[0] = 8;
  model.whereDims[1] = 8;
  model.plans[0].output_extents = nullptr;
  EXPECT_EQ(model.check(), "");
}

struct Fault {
  const char *name;
  std::function<void(ExtentModel &)> breakIt;
  std::string message;
};

std::string faultName(const ::testing::TestParamInfo<Fault> &info) {
  return info.param.name;
}

const Fault kFaults[] = {
    {"data_dependent_input",
     [](ExtentModel &m) { m.inputs[0].data_dependent = m.whereFlags; },
     "input 0 'x' has data-dependent dims, which only outputs have"},
    {"flag_other_than_0_or_1", [](ExtentModel &m) { m.whereFlags[0] = 2; },
     "output 1 'where' dim 0 has data_dependent 2 (0 or 1)"},
    {"negative_flag", [](ExtentModel &m) { m.keptFlags[0] = -1; },
     "output 0 'kept' dim 0 has data_dependent -1 (0 or 1)"},
    {"static_data_dependent_dim", [](ExtentModel &m) { m.keptDims[0] = 8; },
     "output 0 'kept' dim 0 is data-dependent but has static size 8 (-1 "
     "expected)"},
    {"unnamed_data_dependent_dim", [](ExtentModel &m) { m.whereNames[1] = ""; },
     "output 1 'where' dim 1 is data-dependent but unnamed"},
    {"no_dim_names", [](ExtentModel &m) { m.outputs[0].dim_names = nullptr; },
     "output 0 'kept' dim 0 is data-dependent but unnamed"},
    {"flags_without_a_data_dependent_dim",
     [](ExtentModel &m) { m.whereFlags[1] = 0; },
     "output 1 'where' has a data_dependent array without a data-dependent "
     "dim (NULL is none)"},
    {"no_extent_table",
     [](ExtentModel &m) { m.plans[0].output_extents = nullptr; },
     "plan 'static' has no output extents, but the model has data-dependent "
     "output dims"},
    {"no_extents_of_an_output", [](ExtentModel &m) { m.extents[1] = nullptr; },
     "plan 'static' output 'where' has no extents for its data-dependent "
     "dims"},
    {"extents_of_an_output_without_data_dependent_dims",
     [](ExtentModel &m) {
       m.outputs[0].data_dependent = nullptr;
       m.keptDims[0] = 8;
     },
     "plan 'static' output 'kept' has extents, but no data-dependent dim"},
    {"extent_in_the_weights",
     [](ExtentModel &m) { m.keptExtents[0].kind = GRAPHC_BUFFER_WEIGHTS; },
     "plan 'static' output 'kept' dim 0: its extent is not an int64 at an "
     "8-aligned arena offset (buffer kind 2, offset 64, size 8)"},
    {"extent_in_an_output",
     [](ExtentModel &m) {
       m.whereExtents[1] = {GRAPHC_BUFFER_OUTPUT, 1, 0, 8};
     },
     "plan 'static' output 'where' dim 1: its extent is not an int64 at an "
     "8-aligned arena offset (buffer kind 4, offset 0, size 8)"},
    {"short_extent", [](ExtentModel &m) { m.keptExtents[0].size = 4; },
     "plan 'static' output 'kept' dim 0: its extent is not an int64 at an "
     "8-aligned arena offset (buffer kind 1, offset 64, size 4)"},
    {"misaligned_extent", [](ExtentModel &m) { m.keptExtents[0].offset = 60; },
     "plan 'static' output 'kept' dim 0: its extent is not an int64 at an "
     "8-aligned arena offset (buffer kind 1, offset 60, size 8)"},
    {"extent_past_the_arena",
     [](ExtentModel &m) { m.keptExtents[0].offset = 256; },
     "plan 'static' output 'kept' dim 0: its extent at arena offset 256 lies "
     "past the arena (256 bytes)"},
    {"extent_whose_end_overflows",
     [](ExtentModel &m) { m.whereExtents[1].offset = UINT64_MAX - 7; },
     "plan 'static' output 'where' dim 1: its extent at arena offset "
     "18446744073709551608 lies past the arena (256 bytes)"},
    {"extent_of_a_static_dim",
     [](ExtentModel &m) {
       m.whereExtents[0] = {GRAPHC_BUFFER_ARENA, 0, 0, 8};
     },
     "plan 'static' output 'where' dim 0 is not data-dependent but has an "
     "extent (buffer kind 1)"},
    {"negative_bound", [](ExtentModel &m) { m.planKept[0] = -1; },
     "plan 'static' gives output 'kept' shape float32[?], which does not fit "
     "float32[kept_count]"},
    {"bucket_dim_on_a_data_dependent_axis",
     [](ExtentModel &m) { m.outputAxes[1] = 1; },
     "bucket dim 'rows' names axis 1 of output 'where', which is "
     "data-dependent"},
    {"bucket_dim_named_as_a_data_dependent_dim",
     [](ExtentModel &m) { m.keptNames[0] = "rows"; },
     "bucket dim 'rows' is also the name of data-dependent dim 0 of output "
     "'kept'"},
};

class OutputExtentsDescriptorFault : public ::testing::TestWithParam<Fault> {};

TEST_P(OutputExtentsDescriptorFault, IsRefusedWithItsReason) {
  ExtentModel model;
  GetParam().breakIt(model);
  EXPECT_EQ(model.check(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(Runtime, OutputExtentsDescriptorFault,
                         ::testing::ValuesIn(kFaults), faultName);

//===- The cpu executor ---------------------------------------------------===//

/// The message of `status` ("" for success); frees it.
std::string take(graphc_status status) {
  std::string message = status ? graphc_status_message(status) : "";
  graphc_status_free(status);
  return message;
}

/// The code of `status`; frees it.
graphc_code codeOf(graphc_status status) {
  graphc_code code = graphc_status_code(status);
  graphc_status_free(status);
  return code;
}

DLTensor hostTensor(void *data, int32_t ndim, int64_t *shape, DLDataType type) {
  DLTensor tensor{};
  tensor.data = data;
  tensor.device = {kDLCPU, 0};
  tensor.ndim = ndim;
  tensor.shape = shape;
  tensor.dtype = type;
  return tensor;
}

/// extent_model (or a variant) loaded with a session, and the bound-shaped
/// outputs of `rows` rows of x.
struct CpuExtentModel {
  explicit CpuExtentModel(const char *name = "extent_model", int64_t rows = 2)
      : rows(rows), kept(4 * rows), where(8 * rows) {
    EXPECT_EQ(take(graphc_model_load(modelPath(name).c_str(), nullptr, &model)),
              "");
    if (model)
      EXPECT_EQ(take(graphc_session_create(model, nullptr, &session)), "");
    xShape[0] = rows;
    keptShape[0] = 4 * rows;
    whereShape[1] = 4 * rows;
  }
  ~CpuExtentModel() {
    graphc_session_release(session);
    graphc_model_release(model);
  }

  DLTensor input(std::vector<float> &x) {
    return hostTensor(x.data(), 2, xShape, {kDLFloat, 32, 1});
  }
  void outputsInto(DLTensor (&outputs)[2]) {
    outputs[0] = hostTensor(kept.data(), 1, keptShape, {kDLFloat, 32, 1});
    outputs[1] = hostTensor(where.data(), 2, whereShape, {kDLInt, 64, 1});
  }

  /// Runs on `x` through graphc_session_run: "" or the failure's message.
  std::string run(std::vector<float> x) {
    DLTensor in = input(x);
    DLTensor outputs[2];
    outputsInto(outputs);
    return take(graphc_session_run(session, &in, 1, nullptr, outputs, 2));
  }

  /// graphc_session_output_dims of output `o`: "" and `dims`, or why not.
  std::string dims(int32_t o, std::vector<int64_t> &dims) {
    dims.assign(o == 0 ? 1 : 2, -7);
    return take(graphc_session_output_dims(session, o, dims.data()));
  }

  graphc_model *model = nullptr;
  graphc_session *session = nullptr;
  int64_t rows;
  int64_t xShape[2] = {2, 4}, keptShape[1] = {8}, whereShape[2] = {2, 8};
  std::vector<float> kept;
  std::vector<int64_t> where;
};

/// What keep_positive finds in `x`: the positive elements and their rows
/// and columns.
struct Kept {
  std::vector<float> values;
  std::vector<int64_t> rows, columns;
};
Kept expectedOf(const std::vector<float> &x) {
  Kept kept;
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i] > 0) {
      kept.values.push_back(x[i]);
      kept.rows.push_back(int64_t(i / 4));
      kept.columns.push_back(int64_t(i % 4));
    }
  return kept;
}

/// Checks the last run's dims and the corners of `loaded`'s outputs
/// against what `x` holds, and that the rest of them is zero.
void expectCorner(CpuExtentModel &loaded, const std::vector<float> &x) {
  Kept expected = expectedOf(x);
  int64_t n = int64_t(expected.values.size());
  int64_t bound = 4 * loaded.rows;
  std::vector<int64_t> dims;
  ASSERT_EQ(loaded.dims(0, dims), "");
  EXPECT_EQ(dims, std::vector<int64_t>({n}));
  ASSERT_EQ(loaded.dims(1, dims), "");
  EXPECT_EQ(dims, std::vector<int64_t>({2, n}));
  for (int64_t i = 0; i < bound; ++i) {
    EXPECT_EQ(loaded.kept[i], i < n ? expected.values[i] : 0.0f) << i;
    // where is [2, bound]: the corner [2, n] has rows `bound` apart.
    EXPECT_EQ(loaded.where[i], i < n ? expected.rows[i] : 0) << i;
    EXPECT_EQ(loaded.where[bound + i], i < n ? expected.columns[i] : 0) << i;
  }
}

TEST(OutputExtentsCpu, DescribesDataDependentDimsAndTheirBounds) {
  CpuExtentModel loaded;
  ASSERT_NE(loaded.session, nullptr);
  graphc_tensor_info info;
  ASSERT_EQ(take(graphc_model_output_info(loaded.model, 1, &info)), "");
  ASSERT_NE(info.data_dependent, nullptr);
  EXPECT_EQ(info.data_dependent[0], 0);
  EXPECT_EQ(info.data_dependent[1], 1);
  EXPECT_EQ(info.dims[1], -1);
  EXPECT_STREQ(info.dim_names[1], "where_count");
  ASSERT_EQ(take(graphc_model_input_info(loaded.model, 0, &info)), "");
  EXPECT_EQ(info.data_dependent, nullptr);
  // graphc_model_output_dims gives the bounds, which the caller allocates.
  int64_t xDims[2] = {2, 4};
  const int64_t *inputDims[1] = {xDims};
  int32_t ranks[1] = {2};
  int64_t kept[1] = {0}, where[2] = {0, 0};
  int64_t *outputDims[2] = {kept, where};
  ASSERT_EQ(take(graphc_model_output_dims(loaded.model, 1, nullptr, ranks,
                                          inputDims, outputDims)),
            "");
  EXPECT_EQ(kept[0], 8);
  EXPECT_EQ(where[0], 2);
  EXPECT_EQ(where[1], 8);
}

TEST(OutputExtentsCpu, GivesTheExtentsEachRunFound) {
  CpuExtentModel loaded;
  ASSERT_NE(loaded.session, nullptr);
  std::vector<int64_t> dims;
  EXPECT_EQ(loaded.dims(0, dims),
            "output 'kept': the session has no run to give its dims (none "
            "yet, or the latest one failed)");
  EXPECT_EQ(codeOf(graphc_session_output_dims(loaded.session, 0, dims.data())),
            GRAPHC_FAILED_PRECONDITION);
  // Some, none and all of the elements positive.
  const std::vector<std::vector<float>> cases = {
      {1, -2, 3, 0, -5, 6, 7, -8},
      {-1, -2, -3, 0, -5, -6, -7, -8},
      {1, 2, 3, 4, 5, 6, 7, 8},
      {0, 0, 0, 0, 0, 0, 0, 9}};
  for (const std::vector<float> &x : cases) {
    // Stale values the run must overwrite.
    std::fill(loaded.kept.begin(), loaded.kept.end(), 99.0f);
    std::fill(loaded.where.begin(), loaded.where.end(), 99);
    ASSERT_EQ(loaded.run(x), "");
    expectCorner(loaded, x);
  }
  // A failed run leaves nothing to give; the next one does again.
  std::vector<float> x = cases[0];
  DLTensor in = loaded.input(x);
  in.dtype = {kDLInt, 32, 1};
  DLTensor outputs[2];
  loaded.outputsInto(outputs);
  EXPECT_EQ(
      codeOf(graphc_session_run(loaded.session, &in, 1, nullptr, outputs, 2)),
      GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(codeOf(graphc_session_output_dims(loaded.session, 0, dims.data())),
            GRAPHC_FAILED_PRECONDITION);
  ASSERT_EQ(loaded.run(cases[3]), "");
  expectCorner(loaded, cases[3]);
  // The caller's mistakes.
  EXPECT_EQ(take(graphc_session_output_dims(loaded.session, 2, dims.data())),
            "output index 2 out of range (the model has 2)");
  EXPECT_EQ(take(graphc_session_output_dims(loaded.session, 1, nullptr)),
            "graphc_session_output_dims: out_dims is NULL for output 'where' "
            "of rank 2");
  EXPECT_EQ(take(graphc_session_output_dims(nullptr, 0, dims.data())),
            "session is NULL");
}

TEST(OutputExtentsCpu, EveryRunEntryPointKeepsItsExtents) {
  CpuExtentModel loaded;
  ASSERT_NE(loaded.session, nullptr);
  std::vector<float> x = {5, -1, -1, 6, -1, -1, 7, -1};
  DLTensor in = loaded.input(x);
  DLTensor outputs[2];
  loaded.outputsInto(outputs);
  ASSERT_EQ(take(graphc_session_run_on_stream(loaded.session, &in, 1, nullptr,
                                              outputs, 2, nullptr)),
            "");
  expectCorner(loaded, x);

  // A batch of one request.
  x = {-1, 2, -1, -1, -1, -1, -1, -1};
  in = loaded.input(x);
  const DLTensor *requestInputs[1] = {&in};
  const DLTensor *requestOutputs[1] = {outputs};
  ASSERT_EQ(take(graphc_session_run_batch(loaded.session, 1, requestInputs, 1,
                                          nullptr, requestOutputs, 2, nullptr)),
            "");
  expectCorner(loaded, x);

  // Outputs inside a message, not aligned to their elements: the run goes
  // through the session's staging, whole, and finds the same.
  std::vector<char> message(1 + 8 * 4 + 16 * 8 + 8);
  DLTensor shifted[2];
  loaded.outputsInto(shifted);
  shifted[0].data = message.data() + 1;
  shifted[1].data = message.data() + 1 + 8 * 4 + 3;
  x = {1, 2, -3, 4, 0, 0, 0, 5};
  in = loaded.input(x);
  ASSERT_EQ(
      take(graphc_session_run(loaded.session, &in, 1, nullptr, shifted, 2)),
      "");
  std::memcpy(loaded.kept.data(), shifted[0].data, 8 * 4);
  std::memcpy(loaded.where.data(), shifted[1].data, 16 * 8);
  expectCorner(loaded, x);
}

TEST(OutputExtentsCpu, RefusesExtentsPastTheBound) {
  CpuExtentModel loaded;
  ASSERT_NE(loaded.session, nullptr);
  std::vector<int64_t> dims;
  // extent_kernel.h's hook: a count of 9 for 8 elements, then -1.
  ASSERT_EQ(loaded.run({1000, 1, 1, 1, 1, 1, 1, 1}), "");
  EXPECT_EQ(loaded.dims(1, dims),
            "output 'where' dim 1: the run found extent 9, outside [0, 8], the "
            "bound of plan 'static'");
  EXPECT_EQ(codeOf(graphc_session_output_dims(loaded.session, 0, dims.data())),
            GRAPHC_INTERNAL);
  ASSERT_EQ(loaded.run({-1000, 1, 1, 1, 1, 1, 1, 1}), "");
  EXPECT_EQ(loaded.dims(0, dims),
            "output 'kept' dim 0: the run found extent -1, outside [0, 8], the "
            "bound of plan 'static'");
}

TEST(OutputExtentsCpu, RefusesBatchesOfSeveralRequests) {
  CpuExtentModel loaded;
  ASSERT_NE(loaded.session, nullptr);
  int32_t dim = -1;
  EXPECT_EQ(take(graphc_model_batch_dim(loaded.model, &dim)),
            "the model has no batch dim: output 'kept' has data-dependent dim "
            "0, whose extent each run finds for the whole run, so requests "
            "cannot share one");
  std::vector<float> x(8, 1), y(8, 2);
  DLTensor inputs[2] = {loaded.input(x), loaded.input(y)};
  std::vector<float> kept2(8);
  std::vector<int64_t> where2(16);
  DLTensor outputs[2][2];
  loaded.outputsInto(outputs[0]);
  outputs[1][0] =
      hostTensor(kept2.data(), 1, loaded.keptShape, {kDLFloat, 32, 1});
  outputs[1][1] =
      hostTensor(where2.data(), 2, loaded.whereShape, {kDLInt, 64, 1});
  const DLTensor *requestInputs[2] = {&inputs[0], &inputs[1]};
  const DLTensor *requestOutputs[2] = {outputs[0], outputs[1]};
  graphc_status status = graphc_session_run_batch(
      loaded.session, 2, requestInputs, 1, nullptr, requestOutputs, 2, nullptr);
  EXPECT_EQ(graphc_status_code(status), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(take(status),
            "2 requests run together need a batch dim, and the model has "
            "none: output 'kept' has data-dependent dim 0, whose extent each "
            "run finds for the whole run, so requests cannot share one");
  std::vector<int64_t> dims(1);
  EXPECT_EQ(codeOf(graphc_session_output_dims(loaded.session, 0, dims.data())),
            GRAPHC_FAILED_PRECONDITION);
}

TEST(OutputExtentsCpu, RunsOnlyTheBucketsSizes) {
  // rows is bucketed at 1 and 3 and called pad-safe and splittable: a model
  // with a data-dependent output still runs those sizes only.
  for (int64_t rows : {1, 3}) {
    CpuExtentModel loaded("extent_model_buckets", rows);
    ASSERT_NE(loaded.session, nullptr);
    std::vector<float> x(4 * rows);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = i % 3 == 1 ? float(i) : -1.0f;
    ASSERT_EQ(loaded.run(x), "") << rows;
    expectCorner(loaded, x);
  }
  const std::string refusal =
      ", but the model runs 'rows' = 1, 3 only: output 'kept' has "
      "data-dependent dim 0, so runs are neither padded nor split";
  for (int64_t rows : {2, 4, 7}) {
    CpuExtentModel loaded("extent_model_buckets", rows);
    ASSERT_NE(loaded.session, nullptr);
    std::string expected =
        "input 'x' dim 0 ('rows') is " + std::to_string(rows) + refusal;
    EXPECT_EQ(loaded.run(std::vector<float>(4 * rows, 1)), expected);
    // Asked beforehand, the same answer.
    int64_t xDims[2] = {rows, 4};
    const int64_t *inputDims[1] = {xDims};
    int32_t ranks[1] = {2}, plan = -1;
    EXPECT_EQ(take(graphc_model_select_plan(loaded.model, 1, nullptr, ranks,
                                            inputDims, &plan)),
              expected);
    int64_t kept[1], where[2];
    int64_t *outputDims[2] = {kept, where};
    EXPECT_EQ(take(graphc_model_output_dims(loaded.model, 1, nullptr, ranks,
                                            inputDims, outputDims)),
              expected);
  }
}

} // namespace
