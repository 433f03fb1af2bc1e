//===- CudaFakeDriverTest.cpp - the CUDA path on the fake driver ----------===//
//
// Runs the runtime's CUDA path (module load, staging, capture and replay,
// stream ordering, error handling) against test/runtime/fake_cuda, a driver
// over host memory with injectable failures, so CI without a GPU catches
// regressions there. Devices: 0 for ordinary runs; 1 and 2 are poisoned by
// the sticky-error tests (a poisoned device stays so for the process).
//
//===----------------------------------------------------------------------===//
#include "FakeCudaTestSupport.h"
#include "fake_cuda/FakeCuda.h"

#include "graphc/runtime.h"
#include "runtime/src/CudaDriver.h"
#include "runtime/src/CudaModel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

// The fake's driver entry points, for the caller-side stream.
extern "C" {
int cuDevicePrimaryCtxRetain(void **context, int device);
int cuDevicePrimaryCtxRelease_v2(int device);
int cuCtxPushCurrent_v2(void *context);
int cuCtxPopCurrent_v2(void **context);
int cuStreamCreate(void **stream, unsigned flags);
int cuStreamDestroy_v2(void *stream);
int cuStreamBeginCapture_v2(void *stream, int mode);
int cuStreamEndCapture(void *stream, void **graph);
int cuGraphDestroy(void *graph);
}

namespace {

using namespace fakecutest;

class FakeCuda : public ::testing::Test {
protected:
  void SetUp() override {
    fakecu_reset();
    registerKernels();
  }
  void TearDown() override {
    EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
    EXPECT_EQ(fakecu_calls("cuCtxSynchronize"), 0);
  }
};

//===- Capture and replay
//---------------------------------------------------===//

/// The trace lines of the run started at `before`, from the first graph
/// launch or staging copy on, without the stream names.
std::vector<std::string> runKinds(size_t before) {
  std::vector<std::string> kinds;
  for (const std::string &line : traceSince(before)) {
    std::string kind = line.substr(0, line.rfind(' '));
    if (kinds.empty() && kind != "memcpyDtoD" &&
        kind.rfind("graphLaunch", 0) != 0)
      continue;
    kinds.push_back(kind.rfind("graphLaunch", 0) == 0 ? "graphLaunch" : kind);
  }
  return kinds;
}

TEST_F(FakeCuda, StagesNewBuffersThenReplaysAGraphBoundToRepeatedOnes) {
  graphc_model *model = loadModel();
  ASSERT_NE(model, nullptr);
  {
    Bench run(model, 0);
    ASSERT_NE(run.session, nullptr);
    for (int i = 0; i < 4; ++i) {
      SCOPED_TRACE("run " + std::to_string(i));
      size_t before = traceLines().size();
      ASSERT_GRAPHC_OK(run.run({2, -1}, float(i)));
      std::vector<std::string> kinds = runKinds(before);
      // x * w = {2, 6, 12, 8, 15, 4 i}: row 0 index 2, row 1 index -1.
      EXPECT_EQ(run.result(), (std::vector<float>{12, 4.0f * i}));
      // Both kernels in step order, then the error record (the gather
      // reports index errors).
      std::vector<std::string> replay = {
          "graphLaunch", "replay: launch fake_scale",
          "replay: launch fake_gather", "replay: memcpyDtoH"};
      std::vector<std::string> expected;
      if (i == 0) {
        // New buffers: staged in, the staging graph, staged out.
        expected = {"memcpyDtoD", "memcpyDtoD"};
        expected.insert(expected.end(), replay.begin(), replay.end());
        expected.push_back("memcpyDtoD");
      } else {
        // The same buffers again: a graph bound to them, no copies.
        expected = replay;
      }
      expected.push_back("streamSynchronize");
      EXPECT_EQ(kinds, expected) << fakecu_trace();
    }
    // The staging graph, then the bound one, each captured once.
    EXPECT_EQ(fakecu_calls("cuStreamBeginCapture"), 2);
    EXPECT_EQ(fakecu_calls("cuGraphLaunch"), 4);
    // Nothing ran outside the graphs.
    for (const std::string &line : traceLines())
      EXPECT_FALSE(line.rfind("launch ", 0) == 0) << line;
  }
  graphc_model_release(model);
}

TEST_F(FakeCuda, BuffersThatChangeEveryRunAreStagedWithoutCaptures) {
  graphc_model *model = loadModel();
  ASSERT_NE(model, nullptr);
  {
    Bench run(model, 0);
    ASSERT_NE(run.session, nullptr);
    void *other = nullptr;
    ASSERT_GRAPHC_OK(graphc_session_allocate_buffer(run.session, 8, &other));
    for (int i = 0; i < 4; ++i) {
      void *out = i % 2 ? other : run.y;
      size_t before = traceLines().size();
      ASSERT_GRAPHC_OK(run.run({0, 1}, 6, false, nullptr, out));
      EXPECT_EQ(run.result(out), (std::vector<float>{2, 15}));
      EXPECT_EQ(runKinds(before).front(), "memcpyDtoD") << fakecu_trace();
    }
    EXPECT_EQ(fakecu_calls("cuStreamBeginCapture"), 1);
    graphc_session_free_buffer(run.session, other);
  }
  graphc_model_release(model);
}

TEST_F(FakeCuda, MisalignedBuffersAreAlwaysStaged) {
  graphc_model *model = loadModel();
  ASSERT_NE(model, nullptr);
  for (uint32_t flags : {0u, unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)}) {
    SCOPED_TRACE("flags " + std::to_string(flags));
    fakecu_reset();
    registerKernels();
    Bench run(model, flags);
    ASSERT_NE(run.session, nullptr);
    void *wide = nullptr;
    ASSERT_GRAPHC_OK(graphc_session_allocate_buffer(run.session, 64, &wide));
    // 4 bytes past an allocation's start: float aligned, not 256-byte.
    void *misaligned = static_cast<char *>(wide) + 4;
    for (int i = 0; i < 3; ++i) {
      size_t before = traceLines().size();
      ASSERT_GRAPHC_OK(run.run({0, 1}, 6, false, nullptr, misaligned));
      EXPECT_EQ(run.result(misaligned), (std::vector<float>{2, 15}));
      EXPECT_TRUE(contains(fakecu_trace(), "memcpyDtoD")) << fakecu_trace();
      EXPECT_EQ(runKinds(before).front(), "memcpyDtoD") << fakecu_trace();
    }
    EXPECT_EQ(fakecu_calls("cuStreamBeginCapture"), flags ? 0 : 1);
    graphc_session_free_buffer(run.session, wide);
  }
  graphc_model_release(model);
}

TEST_F(FakeCuda, PlansWithoutReportingKernelsNeverReadTheErrorRecord) {
  graphc_model *model = loadModel("fake_cuda_model_no_reports");
  ASSERT_NE(model, nullptr);
  for (uint32_t flags : {0u, unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)}) {
    SCOPED_TRACE("flags " + std::to_string(flags));
    fakecu_reset();
    registerKernels();
    Bench run(model, flags);
    ASSERT_NE(run.session, nullptr);
    for (int i = 0; i < 3; ++i) {
      ASSERT_GRAPHC_OK(run.run({0, 1}));
      EXPECT_EQ(run.result(), (std::vector<float>{2, 15}));
    }
    // Only the result downloads copy to the host.
    EXPECT_FALSE(contains(fakecu_trace(), "replay: memcpyDtoH"))
        << fakecu_trace();
    EXPECT_EQ(fakecu_calls("cuMemcpyDtoHAsync"), 3) << fakecu_trace();
  }
  graphc_model_release(model);
}

TEST_F(FakeCuda, Sm90CodeOnSm90DevicesLaunchesProgrammatically) {
  struct Case {
    const char *model;
    int sm;
    bool disabled;
    bool programmatic;
  };
  for (Case c : {Case{"fake_cuda_model_sm90", 90, false, true},
                 Case{"fake_cuda_model_sm90", 90, true, false},
                 // sm_80 PTX JIT-compiled for sm_90 has no
                 // griddepcontrol.wait: never overlapped.
                 Case{"fake_cuda_model_ptx", 90, false, false},
                 Case{"fake_cuda_model", 80, false, false}}) {
    SCOPED_TRACE(std::string(c.model) + " on sm_" + std::to_string(c.sm) +
                 (c.disabled ? " with GRAPHC_DISABLE_PDL=1" : ""));
    fakecu_reset();
    registerKernels();
    fakecu_set_compute_capability(c.sm);
    if (c.disabled)
      setenv("GRAPHC_DISABLE_PDL", "1", 1);
    graphc_model *model = loadModel(c.model);
    ASSERT_NE(model, nullptr);
    for (uint32_t flags : {0u, unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)}) {
      Bench run(model, flags);
      ASSERT_NE(run.session, nullptr);
      ASSERT_GRAPHC_OK(run.run({2, -1}));
      EXPECT_EQ(run.result(), (std::vector<float>{12, 24}));
      std::string trace = fakecu_trace();
      EXPECT_EQ(contains(trace, "launch fake_scale programmatic"),
                c.programmatic)
          << trace;
      EXPECT_EQ(contains(trace, "launch fake_gather programmatic"),
                c.programmatic)
          << trace;
      // Index errors are still found and named.
      Status status(run.run({1, 7}));
      EXPECT_EQ(status.code(), GRAPHC_INVALID_ARGUMENT);
    }
    EXPECT_EQ(fakecu_calls("cuLaunchKernelEx") > 0, c.programmatic);
    unsetenv("GRAPHC_DISABLE_PDL");
    graphc_model_release(model);
  }
}

TEST_F(FakeCuda, EagerCaptureAndPlainLaunchesAgree) {
  graphc_model *model = loadModel();
  ASSERT_NE(model, nullptr);
  for (uint32_t flags : {unsigned(GRAPHC_SESSION_EAGER_CAPTURE),
                         unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)}) {
    SCOPED_TRACE("flags " + std::to_string(flags));
    fakecu_reset();
    Bench run(model, flags);
    ASSERT_NE(run.session, nullptr);
    EXPECT_EQ(fakecu_calls("cuStreamBeginCapture"),
              flags == GRAPHC_SESSION_EAGER_CAPTURE ? 1 : 0);
    ASSERT_GRAPHC_OK(run.run({0, 1}));
    EXPECT_EQ(run.result(), (std::vector<float>{2, 15}));
  }
  graphc_model_release(model);
}

TEST_F(FakeCuda, PlainRunsStageBuffersAtAnOffset) {
  // Generated kernels move 16-byte vectors and library plans assume 256-byte
  // alignment, so a plain run hands them the caller's buffers only where
  // those are 256-byte aligned; x at a DLTensor byte_offset of 4 goes
  // through the staging buffers (both inputs and the output copied: three
  // more copies), with the same result.
  graphc_model *model = loadModel();
  ASSERT_NE(model, nullptr);
  {
    Bench run(model, GRAPHC_SESSION_DISABLE_CUDA_GRAPHS);
    ASSERT_NE(run.session, nullptr);
    auto copiesSince = [](size_t before) {
      std::vector<std::string> lines = traceLines();
      int copies = 0;
      for (size_t at = before; at < lines.size(); ++at)
        copies += lines[at].rfind("memcpyDtoD ", 0) == 0;
      return copies;
    };
    size_t before = traceLines().size();
    ASSERT_GRAPHC_OK(run.run({0, 1}));
    int alignedCopies = copiesSince(before);
    EXPECT_EQ(run.result(), (std::vector<float>{2, 15}));

    void *shifted = nullptr;
    ASSERT_GRAPHC_OK(graphc_session_allocate_buffer(run.session, 28, &shifted));
    std::vector<float> host = {0, 1, 2, 3, 4, 5, 6};
    ASSERT_GRAPHC_OK(
        graphc_session_upload(run.session, shifted, host.data(), 28));
    DLTensor x = run.tensor(shifted, 2, run.xShape, {kDLFloat, 32, 1});
    x.byte_offset = 4;
    DLTensor inputs[2] = {
        x, run.tensor(run.idx, 1, run.idxShape, {kDLInt, 64, 1})};
    DLTensor output = run.tensor(run.y, 1, run.yShape, {kDLFloat, 32, 1});
    ASSERT_GRAPHC_OK(graphc_session_upload(run.session, run.y,
                                           std::vector<float>{0, 0}.data(), 8));
    before = traceLines().size();
    ASSERT_GRAPHC_OK(
        graphc_session_run(run.session, inputs, 2, nullptr, &output, 1));
    EXPECT_EQ(copiesSince(before), alignedCopies + 3) << fakecu_trace();
    EXPECT_EQ(run.result(), (std::vector<float>{2, 15}));
    graphc_session_free_buffer(run.session, shifted);
  }
  graphc_model_release(model);
}

//===- Device-side index errors
//---------------------------------------------===//

TEST_F(FakeCuda, DeviceIndexErrorNamesTheNode) {
  graphc_model *model = loadModel();
  ASSERT_NE(model, nullptr);
  for (uint32_t flags : {0u, unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)}) {
    SCOPED_TRACE("flags " + std::to_string(flags));
    Bench run(model, flags);
    ASSERT_NE(run.session, nullptr);
    Status status(run.run({1, 7}));
    EXPECT_EQ(status.code(), GRAPHC_INVALID_ARGUMENT);
    EXPECT_EQ(status.message(), "index 7 is out of range [-3, 3) in node "
                                "'Gather_3' (kernel 'fake_gather')");
    // The record is cleared: the session keeps working.
    ASSERT_GRAPHC_OK(run.run({1, 0}));
    EXPECT_EQ(run.result(), (std::vector<float>{6, 8}));
    Status negative(run.run({-4, 0}));
    EXPECT_EQ(negative.code(), GRAPHC_INVALID_ARGUMENT);
    EXPECT_TRUE(
        contains(negative.message(), "index -4 is out of range [-3, 3)"))
        << negative.message();
  }
  graphc_model_release(model);
}

//===- Sticky errors
//----------------------------------------------------------===//

TEST_F(FakeCuda, StickyErrorPoisonsTheDeviceAndFailsFast) {
  graphc_model *model = loadModel("fake_cuda_model", 1);
  ASSERT_NE(model, nullptr);
  {
    Bench run(model, 0, 1);
    ASSERT_NE(run.session, nullptr);
    ASSERT_GRAPHC_OK(run.run({0, 0}));
    fakecu_fault_kernel("fake_gather", 700);
    Status first(run.run({0, 0}));
    EXPECT_EQ(first.code(), GRAPHC_INTERNAL);
    // The fault surfaces at the first call after it, whichever that is.
    EXPECT_TRUE(contains(first.message(), "plan 'static'")) << first.message();
    EXPECT_TRUE(contains(first.message(), "on cuda:1 for model"))
        << first.message();
    EXPECT_TRUE(contains(first.message(), "CUDA_ERROR_ILLEGAL_ADDRESS (an "
                                          "illegal memory access was "
                                          "encountered)"))
        << first.message();
    EXPECT_TRUE(contains(first.message(), "restart the process"));
    EXPECT_TRUE(contains(first.message(), "GRAPHC_DEBUG_SYNC=1"));

    // Every later call fails at once with the original cause, without
    // touching the driver.
    int launches = fakecu_calls("cuGraphLaunch");
    Status second(run.run({0, 0}));
    EXPECT_EQ(second.code(), GRAPHC_INTERNAL);
    EXPECT_EQ(second.message(),
              "cuda:1 is unusable after an earlier failure: " +
                  first.message());
    EXPECT_EQ(fakecu_calls("cuGraphLaunch"), launches);
    std::vector<float> host(2);
    Status download(
        graphc_session_download(run.session, host.data(), run.y, 8));
    EXPECT_EQ(download.code(), GRAPHC_INTERNAL);

    graphc_session *another = nullptr;
    graphc_session_options options;
    graphc_session_options_init(&options);
    options.device_ordinal = 1;
    Status created(graphc_session_create(model, &options, &another));
    EXPECT_EQ(created.code(), GRAPHC_INTERNAL);
    EXPECT_TRUE(contains(created.message(), "CUDA_ERROR_ILLEGAL_ADDRESS"));
  }
  // Other devices are unaffected.
  {
    Bench run(model, 0, 0);
    ASSERT_NE(run.session, nullptr);
    ASSERT_GRAPHC_OK(run.run({0, 0}));
  }
  graphc_model_release(model);
}

TEST_F(FakeCuda, DebugSyncNamesTheFaultingKernel) {
  graphc_model *model = loadModel("fake_cuda_model", 2);
  ASSERT_NE(model, nullptr);
  {
    Bench run(model, GRAPHC_SESSION_DEBUG_SYNC, 2);
    ASSERT_NE(run.session, nullptr);
    fakecu_fault_kernel("fake_gather", 716);
    Status status(run.run({0, 0}));
    EXPECT_EQ(status.code(), GRAPHC_INTERNAL);
    EXPECT_TRUE(contains(status.message(),
                         "plan 'static' step 1 (kernel 'fake_gather' (ONNX "
                         "nodes Gather_3)) failed on cuda:2"))
        << status.message();
    EXPECT_TRUE(contains(status.message(), "CUDA_ERROR_MISALIGNED_ADDRESS"));
    EXPECT_FALSE(contains(status.message(), "GRAPHC_DEBUG_SYNC=1"));
    EXPECT_EQ(fakecu_calls("cuStreamBeginCapture"), 0);
  }
  graphc_model_release(model);
}

TEST_F(FakeCuda, DebugSyncFromTheEnvironmentWaitsAfterEachLaunch) {
  graphc_model *model = loadModel();
  ASSERT_NE(model, nullptr);
  setenv("GRAPHC_DEBUG_SYNC", "1", 1);
  {
    Bench run(model, 0);
    unsetenv("GRAPHC_DEBUG_SYNC");
    ASSERT_NE(run.session, nullptr);
    size_t before = traceLines().size();
    ASSERT_GRAPHC_OK(run.run({0, 2}));
    std::vector<std::string> lines = traceSince(before);
    EXPECT_EQ(run.result(), (std::vector<float>{2, 24}));
    std::vector<std::string> kinds;
    for (const std::string &line : lines)
      kinds.push_back(line.substr(0, line.rfind(' ')));
    // Two uploads, then each launch followed by a wait.
    std::vector<std::string> expected = {
        "memcpyHtoD",         "streamSynchronize", "memcpyHtoD",
        "streamSynchronize",  "launch fake_scale", "streamSynchronize",
        "launch fake_gather", "streamSynchronize", "memcpyDtoH",
        "streamSynchronize"};
    EXPECT_EQ(kinds, expected) << fakecu_trace();
    EXPECT_EQ(fakecu_calls("cuStreamBeginCapture"), 0);
  }
  unsetenv("GRAPHC_DEBUG_SYNC");
  graphc_model_release(model);
}

//===- Stream interop
//--------------------------------------------------------===//

/// A stream of the caller's own, on device 0's primary context.
struct CallerStream {
  CallerStream() {
    cuDevicePrimaryCtxRetain(&context, 0);
    cuCtxPushCurrent_v2(context);
    cuStreamCreate(&stream, 0);
  }
  ~CallerStream() {
    cuStreamDestroy_v2(stream);
    void *popped = nullptr;
    cuCtxPopCurrent_v2(&popped);
    cuDevicePrimaryCtxRelease_v2(0);
  }
  void *context = nullptr;
  void *stream = nullptr;
};

TEST_F(FakeCuda, RunOnStreamIsOrderedByEventsAndDoesNotBlock) {
  graphc_model *model = loadModel();
  ASSERT_NE(model, nullptr);
  {
    CallerStream caller;
    Bench run(model, 0);
    ASSERT_NE(run.session, nullptr);
    std::string c = "s" + std::to_string(fakecu_stream_id(caller.stream));
    for (int i = 0; i < 2; ++i) {
      size_t before = traceLines().size();
      // Two calls back to back: the second queues behind the first.
      ASSERT_GRAPHC_OK(run.run({1, 1}, 6, true, caller.stream));
      ASSERT_GRAPHC_OK(run.run({2, 2}, 6, true, caller.stream));
      std::vector<std::string> lines = traceSince(before);
      // Skip the uploads (synchronous by design).
      size_t at = 0;
      while (at < lines.size() && !contains(lines[at], "eventRecord"))
        ++at;
      ASSERT_LT(at, lines.size()) << fakecu_trace();
      std::string ready = lines[at].substr(std::strlen("eventRecord "));
      ready = ready.substr(0, ready.find(' '));
      EXPECT_EQ(lines[at], "eventRecord " + ready + " " + c);
      ASSERT_LT(at + 1, lines.size());
      std::string s = lines[at + 1].substr(std::strlen("streamWaitEvent "));
      s = s.substr(0, s.find(' '));
      EXPECT_EQ(lines[at + 1], "streamWaitEvent " + s + " " + ready);
      EXPECT_NE(s, c);
      // After the work: the run's event on the session stream, waited for by
      // the caller's stream; and no host wait anywhere in the run.
      size_t done = at + 2;
      while (done < lines.size() && !contains(lines[done], "eventRecord"))
        EXPECT_FALSE(contains(lines[done++], "streamSynchronize"));
      ASSERT_LT(done + 1, lines.size()) << fakecu_trace();
      std::string event = lines[done].substr(std::strlen("eventRecord "));
      event = event.substr(0, event.find(' '));
      EXPECT_EQ(lines[done], "eventRecord " + event + " " + s);
      EXPECT_EQ(lines[done + 1], "streamWaitEvent " + c + " " + event);
      EXPECT_NE(event, ready);
      // x * w = {2, 6, 12, 8, 15, 24}.
      EXPECT_EQ(run.result(), (std::vector<float>{12, 24}));
    }
    // The legacy stream is NULL.
    size_t before = traceLines().size();
    ASSERT_GRAPHC_OK(run.run({0, 0}, 6, true, nullptr));
    std::vector<std::string> lines = traceSince(before);
    bool recordedOnLegacy = false;
    for (const std::string &line : lines)
      recordedOnLegacy |= line.rfind("eventRecord", 0) == 0 &&
                          line.substr(line.rfind(' ')) == " s0";
    EXPECT_TRUE(recordedOnLegacy) << fakecu_trace();
    EXPECT_EQ(run.result(), (std::vector<float>{2, 8}));
  }
  graphc_model_release(model);
}

TEST_F(FakeCuda, RunOnStreamReportsIndexErrorsOnTheNextCall) {
  graphc_model *model = loadModel();
  ASSERT_NE(model, nullptr);
  {
    CallerStream caller;
    Bench run(model, 0);
    ASSERT_NE(run.session, nullptr);
    ASSERT_GRAPHC_OK(run.run({0, 9}, 6, true, caller.stream));
    Status next(run.run({0, 0}, 6, true, caller.stream));
    EXPECT_EQ(next.code(), GRAPHC_INVALID_ARGUMENT);
    EXPECT_EQ(next.message(), "an earlier asynchronous run failed: index 9 is "
                              "out of range [-3, 3) in node 'Gather_3' (kernel "
                              "'fake_gather')");
    ASSERT_GRAPHC_OK(run.run({0, 0}, 6, true, caller.stream));
    ASSERT_GRAPHC_OK(run.run({0, 0}));
  }
  graphc_model_release(model);
}

TEST_F(FakeCuda, SynchronizeWaitsAndReportsAsynchronousIndexErrors) {
  graphc_model *model = loadModel();
  ASSERT_NE(model, nullptr);
  {
    CallerStream caller;
    Bench run(model, 0);
    ASSERT_NE(run.session, nullptr);
    // Nothing queued: nothing to report.
    ASSERT_GRAPHC_OK(graphc_session_synchronize(run.session));
    ASSERT_GRAPHC_OK(run.run({0, 9}, 6, true, caller.stream));
    Status status(graphc_session_synchronize(run.session));
    EXPECT_EQ(status.code(), GRAPHC_INVALID_ARGUMENT);
    EXPECT_EQ(status.message(), "an asynchronous run failed: index 9 is out "
                                "of range [-3, 3) in node 'Gather_3' (kernel "
                                "'fake_gather')");
    // Reported once; the session goes on.
    ASSERT_GRAPHC_OK(graphc_session_synchronize(run.session));
    ASSERT_GRAPHC_OK(run.run({0, 0}, 6, true, caller.stream));
    ASSERT_GRAPHC_OK(graphc_session_synchronize(run.session));
    ASSERT_GRAPHC_OK(run.run({0, 0}));
  }
  graphc_model_release(model);
}

TEST_F(FakeCuda, RunOnStreamRefusesACapturingStream) {
  graphc_model *model = loadModel();
  ASSERT_NE(model, nullptr);
  {
    CallerStream caller;
    Bench run(model, 0);
    ASSERT_NE(run.session, nullptr);
    ASSERT_EQ(cuStreamBeginCapture_v2(caller.stream, 1), 0);
    Status status(run.run({0, 0}, 6, true, caller.stream));
    void *graph = nullptr;
    ASSERT_EQ(cuStreamEndCapture(caller.stream, &graph), 0);
    cuGraphDestroy(graph);
    EXPECT_EQ(status.code(), GRAPHC_FAILED_PRECONDITION);
    EXPECT_TRUE(contains(status.message(), "being captured"))
        << status.message();
  }
  graphc_model_release(model);
}

TEST_F(FakeCuda, RunOnStreamOnCpuModelsWantsNoStream) {
  graphc_model *model = nullptr;
  ASSERT_GRAPHC_OK(
      graphc_model_load(modelPath("affine_model").c_str(), nullptr, &model));
  graphc_session *session = nullptr;
  ASSERT_GRAPHC_OK(graphc_session_create(model, nullptr, &session));
  float x[3] = {1, 2, 3}, bias[3] = {1, 1, 1}, y[3] = {}, scaled[3] = {};
  int64_t xShape[2] = {1, 3}, biasShape[1] = {3};
  DLTensor inputs[2] = {}, outputs[2] = {};
  auto fill = [](DLTensor &t, void *data, int32_t ndim, int64_t *shape) {
    t.data = data;
    t.device = {kDLCPU, 0};
    t.ndim = ndim;
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape;
  };
  fill(inputs[0], x, 2, xShape);
  fill(inputs[1], bias, 1, biasShape);
  fill(outputs[0], y, 2, xShape);
  fill(outputs[1], scaled, 2, xShape);
  int dummy = 0;
  Status refused(graphc_session_run_on_stream(session, inputs, 2, nullptr,
                                              outputs, 2, &dummy));
  EXPECT_EQ(refused.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(y[0], 0.0f);
  ASSERT_GRAPHC_OK(graphc_session_run_on_stream(session, inputs, 2, nullptr,
                                                outputs, 2, nullptr));
  EXPECT_EQ(y[0], 3.0f);
  EXPECT_EQ(scaled[2], 12.0f);
  graphc_session_release(session);
  graphc_model_release(model);
}

//===- Concurrent capture
//------------------------------------------------------===//

TEST_F(FakeCuda, NothingContextWideWhileAnotherThreadCaptures) {
  // An application thread holds a global-mode capture open on its own stream
  // while graphc loads a model, creates sessions, captures, runs, uploads,
  // allocates and frees on another thread: all of it must stay legal.
  std::promise<void> started, finish;
  std::thread application([&] {
    CallerStream caller;
    EXPECT_EQ(cuStreamBeginCapture_v2(caller.stream, /*global*/ 0), 0);
    started.set_value();
    finish.get_future().wait();
    void *graph = nullptr;
    EXPECT_EQ(cuStreamEndCapture(caller.stream, &graph), 0);
    cuGraphDestroy(graph);
  });
  started.get_future().wait();
  // Ends the application's capture however the test leaves.
  struct Join {
    std::promise<void> &finish;
    std::thread &application;
    ~Join() {
      finish.set_value();
      application.join();
    }
  } join{finish, application};
  graphc_model *model = loadModel();
  ASSERT_NE(model, nullptr);
  {
    // Two sessions capturing their first run at the same time.
    Bench a(model, 0), b(model, 0);
    ASSERT_NE(a.session, nullptr);
    ASSERT_NE(b.session, nullptr);
    std::thread other([&] {
      for (int i = 0; i < 20; ++i)
        EXPECT_GRAPHC_OK(b.run({1, 1}));
    });
    for (int i = 0; i < 20; ++i)
      EXPECT_GRAPHC_OK(a.run({2, 2}));
    other.join();
    EXPECT_EQ(a.result(), (std::vector<float>{12, 24}));
    EXPECT_EQ(b.result(), (std::vector<float>{6, 15}));
  }
  graphc_model_release(model);
  // The application's, and per session a staging graph and a graph bound to
  // its repeated buffers.
  EXPECT_EQ(fakecu_calls("cuStreamBeginCapture"), 5);
}

//===- Driver loading
//------------------------------------------------------------===//

TEST_F(FakeCuda, CuInitIsRetriedOnce) {
  graphc::rt::cu::Driver driver;
  std::string error;
  fakecu_fail_init(1, 999);
  EXPECT_TRUE(graphc::rt::cu::loadDriver(fakeCudaLibrary(), driver, error))
      << error;
  EXPECT_EQ(fakecu_calls("cuInit"), 2);

  fakecu_fail_init(2, 100);
  EXPECT_FALSE(graphc::rt::cu::loadDriver(fakeCudaLibrary(), driver, error));
  EXPECT_EQ(error, "cannot initialise the CUDA driver: cuInit returned "
                   "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is "
                   "detected), and again after 200 ms");
  fakecu_reset();
}

TEST_F(FakeCuda, DriverOlderThanThePtxIsAClearStatus) {
  fakecu_set_driver_version(12040);
  graphc_model_options options;
  graphc_model_options_init(&options);
  options.flags = GRAPHC_MODEL_SKIP_CHECKSUM;
  graphc_model *model = nullptr;
  Status status(graphc_model_load(modelPath("fake_cuda_model_ptx").c_str(),
                                  &options, &model));
  EXPECT_EQ(status.code(), GRAPHC_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(status.message(),
                       "sm_80 PTX of ISA 9.0, which needs a driver for CUDA "
                       "13.0 or newer, and the installed driver supports CUDA "
                       "12.4"))
      << status.message();

  fakecu_set_driver_version(13000);
  model = loadModel("fake_cuda_model_ptx");
  ASSERT_NE(model, nullptr);
  {
    Bench run(model, 0);
    ASSERT_NE(run.session, nullptr);
    ASSERT_GRAPHC_OK(run.run({0, 0}));
  }
  graphc_model_release(model);
}

TEST(PtxVersion, MapsIsaToDriverVersions) {
  std::string isa;
  auto required = [&](const std::string &ptx) {
    return graphc::rt::ptxRequiredDriver(ptx.data(), ptx.size(), isa);
  };
  EXPECT_EQ(required("//\n.version 9.0\n.target sm_80\n"), 13000);
  EXPECT_EQ(isa, "9.0");
  EXPECT_EQ(required(".version 8.8\n"), 12090);
  EXPECT_EQ(required(".version\t8.5\n"), 12050);
  EXPECT_EQ(required(".version 7.8\n"), 11080);
  EXPECT_EQ(required(".version 99.1\n"), 0);
  EXPECT_EQ(required(".target sm_80\n"), 0);
  EXPECT_EQ(graphc::rt::driverVersionText(12040), "12.4");
}

} // namespace

int main(int argc, char **argv) {
  // Before anything loads the driver: the runtime opens the fake, which this
  // binary also links (one copy: dlopen finds the loaded library).
  setenv("GRAPHC_CUDA_DRIVER_LIBRARY", fakecutest::fakeCudaLibrary(), 1);
  // The same library is the fake cuBLASLt.
  setenv("GRAPHC_CUBLASLT_LIBRARY", fakecutest::fakeCudaLibrary(), 1);
  unsetenv("GRAPHC_DEBUG_SYNC");
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
