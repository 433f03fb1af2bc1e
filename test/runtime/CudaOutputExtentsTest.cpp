//===- CudaOutputExtentsTest.cpp - data-dependent output dims on cuda -----===//
//
// extent_model_cuda (models/extent_model.c, keep the positive elements) on
// the fake driver: graphc_session_output_dims reads each extent back from
// the device arena after the session's queued work (captured graphs, graphs
// off, runs on a caller's stream and batches of one request with host
// tensors), gives the corner of the bound-shaped outputs, and refuses before
// a run, after a failed one, for an extent past the bound, and for a batch
// of several requests. The cpu side runs in OutputExtentsTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "FakeCudaTestSupport.h"
#include "fake_cuda/FakeCuda.h"
#include "models/extent_kernel.h"

#include "graphc/runtime.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace fakecutest;

/// keep_positive_8(x, kept, where, count) on 8 elements, as the cpu model's
/// host function (extent_kernel.h).
void keepPositive(const fakecu_launch *launch) {
  extent_keep_positive(*static_cast<const float **>(launch->params[0]), 8,
                       *static_cast<float **>(launch->params[1]),
                       *static_cast<int64_t **>(launch->params[2]),
                       *static_cast<int64_t **>(launch->params[3]));
}

/// A session of extent_model_cuda created with the parameter's flags, and
/// device buffers for x and the outputs at their bounds.
class CudaOutputExtents : public ::testing::TestWithParam<uint32_t> {
protected:
  void SetUp() override {
    fakecu_reset();
    static const unsigned params[] = {8, 8, 8, 8};
    fakecu_register_kernel("keep_positive_8", keepPositive, 4, params);
    model = loadModel("extent_model_cuda");
    ASSERT_NE(model, nullptr);
    graphc_session_options options;
    graphc_session_options_init(&options);
    options.flags = GetParam();
    ASSERT_GRAPHC_OK(graphc_session_create(model, &options, &session));
    for (auto [buffer, bytes] :
         {std::pair{&x, 32}, std::pair{&kept, 32}, std::pair{&where, 128}})
      ASSERT_GRAPHC_OK(graphc_session_allocate_buffer(session, bytes, buffer));
  }
  void TearDown() override {
    for (void *buffer : {x, kept, where})
      graphc_session_free_buffer(session, buffer);
    graphc_session_release(session);
    graphc_model_release(model);
    EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
  }

  DLTensor tensor(void *data, int32_t ndim, int64_t *shape, DLDataType type,
                  DLDeviceType device = kDLCUDA) {
    DLTensor t{};
    t.data = data;
    t.device = {device, 0};
    t.ndim = ndim;
    t.shape = shape;
    t.dtype = type;
    return t;
  }
  DLTensor input() { return tensor(x, 2, xShape, {kDLFloat, 32, 1}); }
  void outputsInto(DLTensor (&outputs)[2]) {
    outputs[0] = tensor(kept, 1, keptShape, {kDLFloat, 32, 1});
    outputs[1] = tensor(where, 2, whereShape, {kDLInt, 64, 1});
  }

  /// Uploads `values` as x and runs: synchronously, or on `stream`.
  graphc_status run(const std::vector<float> &values, void *stream = nullptr) {
    if (graphc_status status =
            graphc_session_upload(session, x, values.data(), 32))
      return status;
    DLTensor in = input();
    DLTensor outputs[2];
    outputsInto(outputs);
    return stream ? graphc_session_run_on_stream(session, &in, 1, nullptr,
                                                 outputs, 2, stream)
                  : graphc_session_run(session, &in, 1, nullptr, outputs, 2);
  }

  /// Checks graphc_session_output_dims and the outputs' corners against
  /// what keep_positive finds in `values`, read from `keptAt` and
  /// `whereAt` (device memory is the fake's host memory).
  void expectCorner(const std::vector<float> &values, const void *keptAt,
                    const void *whereAt) {
    std::vector<float> expectedKept;
    std::vector<int64_t> rows, columns;
    for (size_t i = 0; i < values.size(); ++i)
      if (values[i] > 0) {
        expectedKept.push_back(values[i]);
        rows.push_back(int64_t(i / 4));
        columns.push_back(int64_t(i % 4));
      }
    int64_t n = int64_t(expectedKept.size());
    int64_t dims[2] = {-7, -7};
    ASSERT_GRAPHC_OK(graphc_session_output_dims(session, 0, dims));
    EXPECT_EQ(dims[0], n);
    ASSERT_GRAPHC_OK(graphc_session_output_dims(session, 1, dims));
    EXPECT_EQ(dims[0], 2);
    EXPECT_EQ(dims[1], n);
    const auto *k = static_cast<const float *>(keptAt);
    const auto *w = static_cast<const int64_t *>(whereAt);
    for (int64_t i = 0; i < 8; ++i) {
      EXPECT_EQ(k[i], i < n ? expectedKept[i] : 0.0f) << i;
      EXPECT_EQ(w[i], i < n ? rows[i] : 0) << i;
      EXPECT_EQ(w[8 + i], i < n ? columns[i] : 0) << i;
    }
  }

  graphc_model *model = nullptr;
  graphc_session *session = nullptr;
  void *x = nullptr, *kept = nullptr, *where = nullptr;
  int64_t xShape[2] = {2, 4}, keptShape[1] = {8}, whereShape[2] = {2, 8};
};

TEST_P(CudaOutputExtents, ReadsEachRunsExtentsFromTheDevice) {
  int64_t dims[2];
  Status before(graphc_session_output_dims(session, 1, dims));
  EXPECT_EQ(before.code(), GRAPHC_FAILED_PRECONDITION);
  EXPECT_EQ(before.message(), "output 'where': the session has no run to "
                              "give its dims (none yet, or the latest one "
                              "failed)");
  const std::vector<std::vector<float>> cases = {
      {1, -2, 3, 0, -5, 6, 7, -8},
      {-1, -2, -3, 0, -5, -6, -7, -8},
      {1, 2, 3, 4, 5, 6, 7, 8}};
  // The same buffers run after run: staged, then in place.
  for (int repeat = 0; repeat < 2; ++repeat)
    for (const std::vector<float> &values : cases) {
      ASSERT_GRAPHC_OK(run(values));
      expectCorner(values, kept, where);
    }
  // Past the bound, and negative: the artifact's kernel is wrong.
  ASSERT_GRAPHC_OK(run({1000, 1, 1, 1, 1, 1, 1, 1}));
  Status past(graphc_session_output_dims(session, 0, dims));
  EXPECT_EQ(past.code(), GRAPHC_INTERNAL);
  EXPECT_EQ(past.message(), "output 'kept' dim 0: the run found extent 9, "
                            "outside [0, 8], the bound of plan 'static'");
  ASSERT_GRAPHC_OK(run({-1000, 1, 1, 1, 1, 1, 1, 1}));
  Status negative(graphc_session_output_dims(session, 1, dims));
  EXPECT_EQ(negative.message(), "output 'where' dim 1: the run found extent "
                                "-1, outside [0, 8], the bound of plan "
                                "'static'");
  // A failed run leaves none.
  DLTensor in = input();
  in.dtype = {kDLInt, 32, 1};
  DLTensor outputs[2];
  outputsInto(outputs);
  Status failed(graphc_session_run(session, &in, 1, nullptr, outputs, 2));
  EXPECT_EQ(failed.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(Status(graphc_session_output_dims(session, 0, dims)).code(),
            GRAPHC_FAILED_PRECONDITION);
}

TEST_P(CudaOutputExtents, WaitsForARunOnTheCallersStream) {
  Device device;
  std::vector<float> values = {-1, 2, -1, 4, -1, 6, -1, 8};
  ASSERT_GRAPHC_OK(run(values, device.stream));
  size_t before = traceLines().size();
  expectCorner(values, kept, where);
  // The extents were read after waiting for the session's stream (never
  // the context), each with a copy from the device.
  std::vector<std::string> since = traceSince(before);
  ASSERT_FALSE(since.empty());
  EXPECT_TRUE(contains(since.front(), "streamSynchronize")) << since.front();
  EXPECT_EQ(fakecu_calls("cuCtxSynchronize"), 0);
}

TEST_P(CudaOutputExtents, RunsBatchesOfOneRequestOnly) {
  // One request with host tensors: copied in and out by the run.
  std::vector<float> values = {3, 0, 0, 0, 0, 0, -1, 1};
  std::vector<float> hostKept(8, 99);
  std::vector<int64_t> hostWhere(16, 99);
  DLTensor in = tensor(values.data(), 2, xShape, {kDLFloat, 32, 1}, kDLCPU);
  DLTensor outputs[2] = {
      tensor(hostKept.data(), 1, keptShape, {kDLFloat, 32, 1}, kDLCPU),
      tensor(hostWhere.data(), 2, whereShape, {kDLInt, 64, 1}, kDLCPU)};
  const DLTensor *requestInputs[2] = {&in, &in};
  const DLTensor *requestOutputs[2] = {outputs, outputs};
  ASSERT_GRAPHC_OK(graphc_session_run_batch(
      session, 1, requestInputs, 1, nullptr, requestOutputs, 2, nullptr));
  expectCorner(values, hostKept.data(), hostWhere.data());
  // Two requests would share one extent: refused, naming the output.
  std::vector<float> other(8, 1);
  DLTensor in2 = tensor(other.data(), 2, xShape, {kDLFloat, 32, 1}, kDLCPU);
  std::vector<float> kept2(8);
  std::vector<int64_t> where2(16);
  DLTensor outputs2[2] = {
      tensor(kept2.data(), 1, keptShape, {kDLFloat, 32, 1}, kDLCPU),
      tensor(where2.data(), 2, whereShape, {kDLInt, 64, 1}, kDLCPU)};
  requestInputs[1] = &in2;
  requestOutputs[1] = outputs2;
  Status batch(graphc_session_run_batch(session, 2, requestInputs, 1, nullptr,
                                        requestOutputs, 2, nullptr));
  EXPECT_EQ(batch.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_TRUE(
      contains(batch.message(), "output 'kept' has data-dependent dim 0"))
      << batch.message();
  int64_t dims[1];
  EXPECT_EQ(Status(graphc_session_output_dims(session, 0, dims)).code(),
            GRAPHC_FAILED_PRECONDITION);
}

INSTANTIATE_TEST_SUITE_P(Runtime, CudaOutputExtents,
                         ::testing::Values(0u,
                                           GRAPHC_SESSION_DISABLE_CUDA_GRAPHS),
                         [](const ::testing::TestParamInfo<uint32_t> &info) {
                           return info.param ? std::string("WithoutGraphs")
                                             : std::string("Captured");
                         });

} // namespace
