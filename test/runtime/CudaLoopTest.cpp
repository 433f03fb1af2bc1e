//===- CudaLoopTest.cpp - loop steps and conditional nodes, fake driver ---===//
//
// The fake driver's conditional WHILE nodes, driven directly with emulated
// kernels (loop_kernels.cu.cpp) that count and set their handle: a body
// replayed while the handle is set, nested nodes, the default value at each
// launch, and what CUDA refuses. Then the runtime's loop steps
// (GRAPHC_STEP_LOOP) on loop_model and loop_model_nested, captured into
// CUDA graphs and run from the host without them.
//
//===----------------------------------------------------------------------===//
#include "FakeCudaTestSupport.h"
#include "fake_cuda/FakeCuda.h"

#include "graphc/runtime.h"
#include "runtime/src/CudaDriver.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace cu = graphc::rt::cu;

// The fake's driver entry points the tests drive themselves.
extern "C" {
int cuModuleLoadData(void **module, const void *image);
int cuModuleUnload(void *module);
int cuModuleGetFunction(void **function, void *module, const char *name);
int cuLaunchKernel(void *function, unsigned gridX, unsigned gridY,
                   unsigned gridZ, unsigned blockX, unsigned blockY,
                   unsigned blockZ, unsigned sharedBytes, void *stream,
                   void **params, void **extra);
int cuMemcpyDtoDAsync_v2(unsigned long long dst, unsigned long long src,
                         size_t bytes, void *stream);
int cuMemsetD8Async(unsigned long long dst, unsigned char value, size_t count,
                    void *stream);
int cuStreamBeginCapture_v2(void *stream, int mode);
int cuStreamEndCapture(void *stream, void **graph);
int cuStreamGetCaptureInfo_v3(void *stream, int *status, unsigned long long *id,
                              void **graph, const cu::GraphNode **dependencies,
                              const cu::GraphEdgeData **edges, size_t *count);
int cuStreamUpdateCaptureDependencies_v2(void *stream,
                                         cu::GraphNode *dependencies,
                                         const cu::GraphEdgeData *edges,
                                         size_t count, unsigned flags);
int cuStreamBeginCaptureToGraph(void *stream, void *graph,
                                const cu::GraphNode *dependencies,
                                const cu::GraphEdgeData *edges, size_t count,
                                int mode);
int cuGraphConditionalHandleCreate(unsigned long long *handle, void *graph,
                                   void *context, unsigned defaultValue,
                                   unsigned flags);
int cuGraphAddNode_v2(cu::GraphNode *node, void *graph,
                      const cu::GraphNode *dependencies,
                      const cu::GraphEdgeData *edges, size_t count,
                      cu::GraphNodeParams *params);
int cuGraphInstantiateWithFlags(void **exec, void *graph,
                                unsigned long long flags);
int cuGraphLaunch(void *exec, void *stream);
int cuGraphDestroy(void *graph);
int cuGraphExecDestroy(void *exec);
int cuEventCreate(void **event, unsigned flags);
int cuEventDestroy_v2(void *event);
int cuEventRecord(void *event, void *stream);
}

namespace {

using namespace fakecutest;

constexpr int kCaptureUnsupported = 900;
constexpr int kLaunchFailed = 719;

/// Device 0 with the emulated loop kernels loaded, a second and a third
/// stream for bodies, and device memory for the count kernel.
class ConditionalNodes : public ::testing::Test {
protected:
  void SetUp() override {
    fakecu_reset();
    std::ifstream in(modelPath("loop_kernels"), std::ios::binary);
    image.assign(std::istreambuf_iterator<char>(in),
                 std::istreambuf_iterator<char>());
    ASSERT_FALSE(image.empty()) << modelPath("loop_kernels");
    ASSERT_EQ(cuModuleLoadData(&module, image.data()), 0);
    ASSERT_EQ(cuModuleGetFunction(&countKernel, module, "count"), 0);
    for (void *&body : bodies)
      ASSERT_EQ(cuStreamCreate(&body, 1), 0);
    // counter, total, limit of the outer and the inner loop.
    const long long zeros[8] = {};
    words =
        reinterpret_cast<long long *>(device.uploadBytes(zeros, sizeof zeros));
  }
  void TearDown() override {
    for (void *body : bodies)
      cuStreamDestroy_v2(body);
    if (module)
      cuModuleUnload(module);
    EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
    fakecu_reset();
  }

  /// Captures count(counter, total, limit, handle) on `stream`.
  int count(void *stream, long long *counter, long long *total,
            long long *limit, unsigned long long handle) {
    void *params[] = {&counter, &total, &limit, &handle};
    return cuLaunchKernel(countKernel, 1, 1, 1, 1, 1, 1, 0, stream, params,
                          nullptr);
  }

  /// A new handle (default `value`, `flags`) on the graph `stream`
  /// captures into.
  void createHandle(void *stream, unsigned value, unsigned flags,
                    unsigned long long &handle) {
    int status = 0;
    void *graph = nullptr;
    ASSERT_EQ(cuStreamGetCaptureInfo_v3(stream, &status, nullptr, &graph,
                                        nullptr, nullptr, nullptr),
              0);
    ASSERT_EQ(status, cu::kStreamCaptureStatusActive);
    ASSERT_EQ(cuGraphConditionalHandleCreate(&handle, graph, device.context,
                                             value, flags),
              0);
  }

  /// Adds a WHILE node of `handle` after what `stream` captured, and begins
  /// capturing its body on `body`.
  void addWhile(void *stream, void *body, unsigned long long handle,
                cu::GraphNode &node) {
    int status = 0;
    void *graph = nullptr;
    const cu::GraphNode *dependencies = nullptr;
    const cu::GraphEdgeData *edges = nullptr;
    size_t numDependencies = 0;
    ASSERT_EQ(cuStreamGetCaptureInfo_v3(stream, &status, nullptr, &graph,
                                        &dependencies, &edges,
                                        &numDependencies),
              0);
    cu::GraphNodeParams params{};
    params.type = cu::kGraphNodeTypeConditional;
    params.conditional.handle = handle;
    params.conditional.type = cu::kGraphConditionalTypeWhile;
    params.conditional.size = 1;
    params.conditional.context = static_cast<cu::Context>(device.context);
    ASSERT_EQ(cuGraphAddNode_v2(&node, graph, dependencies, edges,
                                numDependencies, &params),
              0);
    ASSERT_EQ(cuStreamBeginCaptureToGraph(body, params.conditional.graphsOut[0],
                                          nullptr, nullptr, 0,
                                          cu::kStreamCaptureModeThreadLocal),
              0);
  }

  /// createHandle, then addWhile.
  void beginWhile(void *stream, void *body, unsigned value, unsigned flags,
                  unsigned long long &handle, cu::GraphNode &node) {
    createHandle(stream, value, flags, handle);
    addWhile(stream, body, handle, node);
  }

  /// Ends `body`'s capture and continues `stream`'s after `node`.
  void endWhile(void *stream, void *body, cu::GraphNode node) {
    void *graph = nullptr;
    ASSERT_EQ(cuStreamEndCapture(body, &graph), 0);
    ASSERT_EQ(cuStreamUpdateCaptureDependencies_v2(
                  stream, &node, nullptr, 1, cu::kStreamSetCaptureDependencies),
              0);
  }

  /// A graph of one WHILE node of a handle of default 1 and `flags` around
  /// count(outer counter, outer total, limit), then a copy of the counter
  /// to words[7]; instantiated.
  void *countingGraph(unsigned flags) {
    void *exec = nullptr;
    EXPECT_EQ(cuStreamBeginCapture_v2(device.stream,
                                      cu::kStreamCaptureModeThreadLocal),
              0);
    unsigned long long &handle = lastHandle;
    cu::GraphNode node = nullptr;
    beginWhile(device.stream, bodies[0], 1, flags, handle, node);
    EXPECT_EQ(count(bodies[0], &words[0], &words[1], &words[2], handle), 0);
    endWhile(device.stream, bodies[0], node);
    // After the node, in the plan's stream.
    EXPECT_EQ(
        cuMemcpyDtoDAsync_v2(reinterpret_cast<unsigned long long>(&words[7]),
                             reinterpret_cast<unsigned long long>(&words[0]), 8,
                             device.stream),
        0);
    void *graph = nullptr;
    EXPECT_EQ(cuStreamEndCapture(device.stream, &graph), 0);
    EXPECT_EQ(cuGraphInstantiateWithFlags(&exec, graph, 0), 0);
    EXPECT_EQ(cuGraphDestroy(graph), 0);
    return exec;
  }

  Device device;
  std::vector<char> image;
  void *module = nullptr, *countKernel = nullptr;
  void *bodies[2] = {nullptr, nullptr};
  long long *words = nullptr;
  unsigned long long lastHandle = 0; ///< countingGraph's
};

size_t countLines(const std::vector<std::string> &lines,
                  const std::string &line) {
  return std::count(lines.begin(), lines.end(), line);
}

TEST_F(ConditionalNodes, ReplayTheBodyWhileTheKernelSetsTheHandle) {
  void *exec = countingGraph(cu::kGraphConditionalAssignDefault);
  ASSERT_NE(exec, nullptr);
  words[2] = 5;
  size_t before = traceLines().size();
  ASSERT_EQ(cuGraphLaunch(exec, device.stream), 0);
  EXPECT_EQ(words[0], 5);
  EXPECT_EQ(words[7], 5); // the copy after the node saw the last iteration
  std::vector<std::string> lines = traceSince(before);
  std::string handle = "h" + std::to_string(lastHandle);
  std::string body = "replay: " + handle + ": launch count s" +
                     std::to_string(fakecu_stream_id(bodies[0]));
  EXPECT_EQ(countLines(lines, body), 5u) << fakecu_trace();
  ASSERT_EQ(lines.size(), 8u) << fakecu_trace();
  EXPECT_EQ(lines[1], "replay: while " + handle);
  EXPECT_EQ(lines[7].rfind("replay: memcpyDtoD", 0), 0u);

  // The next launch starts from the default (1) again: one iteration, which
  // finds the counter past the limit.
  ASSERT_EQ(cuGraphLaunch(exec, device.stream), 0);
  EXPECT_EQ(words[0], 6);
  EXPECT_EQ(cuGraphExecDestroy(exec), 0);
}

TEST_F(ConditionalNodes, AHandleWithoutAssignDefaultKeepsItsValue) {
  void *exec = countingGraph(0);
  ASSERT_NE(exec, nullptr);
  words[2] = 3;
  ASSERT_EQ(cuGraphLaunch(exec, device.stream), 0);
  EXPECT_EQ(words[0], 3);
  // The kernel left the handle 0: the body does not run again.
  ASSERT_EQ(cuGraphLaunch(exec, device.stream), 0);
  EXPECT_EQ(words[0], 3);
  EXPECT_EQ(words[7], 3);
  EXPECT_EQ(cuGraphExecDestroy(exec), 0);
}

TEST_F(ConditionalNodes, NestedWhileNodesRunTheInnerBodyPerOuterIteration) {
  ASSERT_EQ(
      cuStreamBeginCapture_v2(device.stream, cu::kStreamCaptureModeThreadLocal),
      0);
  unsigned long long outer = 0, inner = 0;
  cu::GraphNode outerNode = nullptr, innerNode = nullptr;
  beginWhile(device.stream, bodies[0], 1, cu::kGraphConditionalAssignDefault,
             outer, outerNode);
  // Each outer iteration zeroes the inner counter, loops 3 times, counts.
  ASSERT_EQ(cuMemsetD8Async(reinterpret_cast<unsigned long long>(&words[3]), 0,
                            8, bodies[0]),
            0);
  // The default applies at each graph launch, not at each entry to the
  // node: from the second outer iteration on, the inner handle holds what
  // the inner loop left (0) unless a kernel before the node sets it, as a
  // loop step's phase-0 launch does. This one counts words[6] below
  // words[7] and sets it to 1.
  createHandle(bodies[0], 1, cu::kGraphConditionalAssignDefault, inner);
  ASSERT_EQ(count(bodies[0], &words[6], &words[6], &words[7], inner), 0);
  addWhile(bodies[0], bodies[1], inner, innerNode);
  ASSERT_EQ(count(bodies[1], &words[3], &words[4], &words[5], inner), 0);
  endWhile(bodies[0], bodies[1], innerNode);
  ASSERT_EQ(count(bodies[0], &words[0], &words[1], &words[2], outer), 0);
  endWhile(device.stream, bodies[0], outerNode);
  void *graph = nullptr, *exec = nullptr;
  ASSERT_EQ(cuStreamEndCapture(device.stream, &graph), 0);
  ASSERT_EQ(cuGraphInstantiateWithFlags(&exec, graph, 0), 0);
  ASSERT_EQ(cuGraphDestroy(graph), 0);
  words[2] = 2; // outer iterations
  words[5] = 3; // inner iterations each
  words[7] = 1000;
  ASSERT_EQ(cuGraphLaunch(exec, device.stream), 0);
  EXPECT_EQ(words[0], 2);
  EXPECT_EQ(words[3], 3);
  EXPECT_EQ(words[4], 6) << fakecu_trace(); // inner iterations in all
  EXPECT_EQ(cuGraphExecDestroy(exec), 0);
}

TEST_F(ConditionalNodes, RefuseWhatCudaRefusesAndNonChains) {
  void *event = nullptr;
  ASSERT_EQ(cuEventCreate(&event, 2), 0);
  ASSERT_EQ(
      cuStreamBeginCapture_v2(device.stream, cu::kStreamCaptureModeThreadLocal),
      0);
  unsigned long long handle = 0;
  cu::GraphNode node = nullptr;
  beginWhile(device.stream, bodies[0], 1, cu::kGraphConditionalAssignDefault,
             handle, node);
  // No event record nodes in a body.
  EXPECT_EQ(cuEventRecord(event, bodies[0]), kCaptureUnsupported);
  EXPECT_TRUE(contains(fakecu_last_violation(), "conditional node's body"))
      << fakecu_last_violation();
  ASSERT_EQ(count(bodies[0], &words[0], &words[1], &words[2], handle), 0);
  // Captured on the plan's stream without depending on the node, work
  // would run beside the loop (a branch CUDA allows; the fake's graphs are
  // chains, and the runtime never wants one).
  EXPECT_EQ(count(device.stream, &words[0], &words[1], &words[2], handle),
            kCaptureUnsupported);
  EXPECT_TRUE(contains(fakecu_last_violation(), "would not depend"))
      << fakecu_last_violation();
  ASSERT_EQ(
      cuStreamUpdateCaptureDependencies_v2(device.stream, &node, nullptr, 1,
                                           cu::kStreamSetCaptureDependencies),
      0);
  void *graph = nullptr, *exec = nullptr;
  ASSERT_EQ(cuStreamEndCapture(device.stream, &graph), 0);
  // Not while the body is still being captured.
  EXPECT_NE(cuGraphInstantiateWithFlags(&exec, graph, 0), 0);
  EXPECT_TRUE(contains(fakecu_last_violation(), "still captures"))
      << fakecu_last_violation();
  void *body = nullptr;
  ASSERT_EQ(cuStreamEndCapture(bodies[0], &body), 0);
  ASSERT_NE(body, nullptr);
  // A body belongs to its node.
  EXPECT_NE(cuGraphDestroy(body), 0);
  ASSERT_EQ(cuGraphInstantiateWithFlags(&exec, graph, 0), 0);
  // One instantiation at a time of a graph with conditional nodes.
  void *second = nullptr;
  EXPECT_NE(cuGraphInstantiateWithFlags(&second, graph, 0), 0);
  EXPECT_TRUE(contains(fakecu_last_violation(), "second instantiation"))
      << fakecu_last_violation();
  EXPECT_EQ(cuGraphExecDestroy(exec), 0);
  EXPECT_EQ(cuGraphDestroy(graph), 0);

  // A handle no node uses fails instantiation.
  ASSERT_EQ(
      cuStreamBeginCapture_v2(device.stream, cu::kStreamCaptureModeThreadLocal),
      0);
  int status = 0;
  ASSERT_EQ(cuStreamGetCaptureInfo_v3(device.stream, &status, nullptr, &graph,
                                      nullptr, nullptr, nullptr),
            0);
  ASSERT_EQ(
      cuGraphConditionalHandleCreate(&handle, graph, device.context, 0, 0), 0);
  ASSERT_EQ(cuStreamEndCapture(device.stream, &graph), 0);
  EXPECT_NE(cuGraphInstantiateWithFlags(&exec, graph, 0), 0);
  EXPECT_TRUE(contains(fakecu_last_violation(), "used by no node"))
      << fakecu_last_violation();
  EXPECT_EQ(cuGraphDestroy(graph), 0);
  EXPECT_EQ(fakecu_violations(), 6);
  cuEventDestroy_v2(event);
  fakecu_reset(); // the violations above were expected
}

TEST_F(ConditionalNodes, SettingAHandleOutsideAGraphFailsTheLaunch) {
  words[2] = 1;
  ASSERT_EQ(count(device.stream, &words[0], &words[1], &words[2], 7), 0);
  EXPECT_EQ(words[0], 1);
  // The context is sticky now, as after a device fault.
  EXPECT_EQ(count(device.stream, &words[0], &words[1], &words[2], 7),
            kLaunchFailed);
  fakecu_reset();
}

TEST(ConditionalEntryPoints, AreOptionalAndTheFakeHasThemAll) {
  cu::Driver driver;
  std::string error;
  ASSERT_TRUE(cu::loadDriver(fakeCudaLibrary(), driver, error)) << error;
  EXPECT_EQ(driver.missingConditionalSymbol, nullptr)
      << driver.missingConditionalSymbol;
  EXPECT_NE(driver.graphConditionalHandleCreate, nullptr);
  EXPECT_NE(driver.streamGetCaptureInfo, nullptr);
  EXPECT_NE(driver.graphAddNode, nullptr);
  EXPECT_NE(driver.streamUpdateCaptureDependencies, nullptr);
  EXPECT_NE(driver.streamBeginCaptureToGraph, nullptr);
}

//===- Loop steps in cuda sessions
//-----------------------------------------===//

/// A session on loop_model (or _nested) with device buffers x, n and y.
struct LoopBench {
  LoopBench(graphc_model *model, uint32_t flags) {
    graphc_session_options options;
    graphc_session_options_init(&options);
    options.flags = flags;
    Status status(graphc_session_create(model, &options, &session));
    EXPECT_TRUE(status.ok()) << status.message();
    if (!session)
      return;
    EXPECT_GRAPHC_OK(graphc_session_allocate_buffer(session, 16, &x));
    EXPECT_GRAPHC_OK(graphc_session_allocate_buffer(session, 8, &n));
    EXPECT_GRAPHC_OK(graphc_session_allocate_buffer(session, 16, &y));
  }
  ~LoopBench() {
    if (!session)
      return;
    for (void *buffer : {x, n, y})
      graphc_session_free_buffer(session, buffer);
    graphc_session_release(session);
  }

  DLTensor tensor(void *data, int64_t *shape, DLDataType type) {
    DLTensor t{};
    t.data = data;
    t.device = {kDLCUDA, 0};
    t.ndim = 1;
    t.dtype = type;
    t.shape = shape;
    return t;
  }

  /// Runs with `values` and trip count `trips`; y into `out`.
  graphc_status run(std::vector<float> values, int64_t trips,
                    std::vector<float> &out) {
    graphc_status status = graphc_session_upload(session, x, values.data(), 16);
    if (!status)
      status = graphc_session_upload(session, n, &trips, 8);
    DLTensor inputs[2] = {tensor(x, xShape, {kDLFloat, 32, 1}),
                          tensor(n, nShape, {kDLInt, 64, 1})};
    DLTensor output = tensor(y, xShape, {kDLFloat, 32, 1});
    if (!status)
      status = graphc_session_run(session, inputs, 2, nullptr, &output, 1);
    out.assign(4, 0.0f);
    if (!status)
      status = graphc_session_download(session, out.data(), y, 16);
    return status;
  }

  graphc_session *session = nullptr;
  void *x = nullptr, *n = nullptr, *y = nullptr;
  int64_t xShape[1] = {4}, nShape[1] = {1};
};

class LoopSteps : public ::testing::TestWithParam<uint32_t> {
protected:
  void SetUp() override { fakecu_reset(); }
  void TearDown() override {
    EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
    EXPECT_EQ(fakecu_calls("cuCtxSynchronize"), 0);
  }
};

std::vector<float> times(std::vector<float> x, float factor) {
  for (float &value : x)
    value *= factor;
  return x;
}

TEST_P(LoopSteps, RunWhileTheTripCountAndTheBodysConditionAllow) {
  graphc_model *model = loadModel("loop_model");
  ASSERT_NE(model, nullptr);
  {
    LoopBench bench(model, GetParam());
    ASSERT_NE(bench.session, nullptr);
    std::vector<float> x = {1, 2, 3, 4}, y;
    // Each run twice: the second replays the captured graph.
    for (int repeat = 0; repeat < 2; ++repeat) {
      // Three iterations: x (1 + 1 + 2 + 3).
      ASSERT_GRAPHC_OK(bench.run(x, 3, y));
      EXPECT_EQ(y, times(x, 7));
      // None.
      ASSERT_GRAPHC_OK(bench.run(x, 0, y));
      EXPECT_EQ(y, x);
      // Stopped by the body's condition (acc[0] = 70 after three).
      std::vector<float> big = {10, 1, 1, 1};
      ASSERT_GRAPHC_OK(bench.run(big, 20, y));
      EXPECT_EQ(y, times(big, 7));
      // Eight iterations, the most the loop may take.
      ASSERT_GRAPHC_OK(bench.run(x, 8, y));
      EXPECT_EQ(y, times(x, 37));
    }
    // A ninth fails the run, naming the loop's node; the session stays
    // usable.
    Status failed(bench.run(x, 20, y));
    EXPECT_EQ(failed.code(), GRAPHC_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(failed.message(),
                         "loop iteration 8 is out of range [0, 8) in node "
                         "'Loop_1' (kernel 'loop_control')"))
        << failed.message();
    ASSERT_GRAPHC_OK(bench.run(x, 2, y));
    EXPECT_EQ(y, times(x, 4));
  }
  graphc_model_release(model);
}

TEST_P(LoopSteps, NestedLoopsRunTheInnerLoopPerOuterIteration) {
  graphc_model *model = loadModel("loop_model_nested");
  ASSERT_NE(model, nullptr);
  {
    LoopBench bench(model, GetParam());
    ASSERT_NE(bench.session, nullptr);
    std::vector<float> x = {1, 2, 3, 4}, y;
    for (int64_t trips : {3, 0, 1, 3}) {
      SCOPED_TRACE(trips);
      // Each outer iteration adds x * (1 + 2).
      ASSERT_GRAPHC_OK(bench.run(x, trips, y));
      EXPECT_EQ(y, times(x, 1 + 3 * float(trips)));
    }
  }
  graphc_model_release(model);
}

TEST_P(LoopSteps, ProbesOfABodyStepHoldTheLastIteration) {
  graphc_model *model = loadModel("loop_model");
  ASSERT_NE(model, nullptr);
  {
    LoopBench bench(model, GetParam() | GRAPHC_SESSION_PROBE_STEPS);
    ASSERT_NE(bench.session, nullptr);
    std::vector<float> x = {1, 2, 3, 4}, y;
    for (int repeat = 0; repeat < 3; ++repeat) {
      ASSERT_GRAPHC_OK(bench.run(x, 3, y));
      EXPECT_EQ(y, times(x, 7));
      int32_t plan = -1, count = 0;
      ASSERT_GRAPHC_OK(
          graphc_session_probe_count(bench.session, &plan, &count));
      ASSERT_EQ(count, 2);
      // The accumulate's acc after its third iteration (not 2 x after the
      // first), then y.
      for (int32_t p = 0; p < count; ++p) {
        graphc_probe_info info{};
        std::vector<float> values(4, -1.0f);
        ASSERT_GRAPHC_OK(graphc_session_read_probe(bench.session, p, &info,
                                                   values.data(), 16));
        EXPECT_EQ(info.step, p == 0 ? 2 : 3);
        EXPECT_EQ(values, times(x, 7)) << "probe " << p;
      }
    }
  }
  graphc_model_release(model);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, LoopSteps,
    ::testing::Values(0u, uint32_t(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS),
                      uint32_t(GRAPHC_SESSION_DEBUG_SYNC)),
    [](const ::testing::TestParamInfo<uint32_t> &info) {
      return info.param == 0 ? std::string("Captured")
             : info.param == GRAPHC_SESSION_DISABLE_CUDA_GRAPHS
                 ? std::string("Eager")
                 : std::string("DebugSync");
    });

TEST(LoopStepsCaptured, AreConditionalNodesOfTheGraph) {
  fakecu_reset();
  graphc_model *model = loadModel("loop_model_nested");
  ASSERT_NE(model, nullptr);
  {
    LoopBench bench(model, 0);
    ASSERT_NE(bench.session, nullptr);
    std::vector<float> x = {1, 2, 3, 4}, y;
    // Staged (the staging graph captured), then bound to these buffers (a
    // second graph captured), then replayed.
    ASSERT_GRAPHC_OK(bench.run(x, 2, y));
    ASSERT_GRAPHC_OK(bench.run(x, 2, y));
    size_t before = traceLines().size();
    ASSERT_GRAPHC_OK(bench.run(x, 2, y));
    EXPECT_EQ(y, times(x, 7));
    std::vector<std::string> lines = traceSince(before);
    // Replayed: two outer iterations of two inner ones, each ending with
    // its control kernel's phase-1 launch; nothing launched outside.
    auto has = [&](const std::string &prefix) {
      size_t found = 0;
      for (const std::string &line : lines)
        found += line.rfind(prefix, 0) == 0;
      return found;
    };
    EXPECT_EQ(has("replay: while h"), 1u) << fakecu_trace();
    EXPECT_EQ(has("replay: h"), 2u * (1 + 1 + 2 * 2 + 1)) << fakecu_trace();
    EXPECT_EQ(has("launch "), 0u) << fakecu_trace();
    // Two loops in each of the two graphs.
    EXPECT_EQ(fakecu_calls("cuGraphAddNode"), 4);
    EXPECT_EQ(fakecu_calls("cuStreamBeginCaptureToGraph"), 4);
  }
  graphc_model_release(model);
  EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
}

TEST(LoopStepsProfiled, TimeALoopWholeAndItsBodyStepsAsZero) {
  fakecu_reset();
  graphc_model *model = loadModel("loop_model");
  ASSERT_NE(model, nullptr);
  {
    LoopBench bench(model, GRAPHC_SESSION_PROFILE_STEPS);
    ASSERT_NE(bench.session, nullptr);
    std::vector<float> x = {1, 2, 3, 4}, y;
    ASSERT_GRAPHC_OK(bench.run(x, 3, y));
    EXPECT_EQ(y, times(x, 7));
    int32_t plan = -1, steps = 0;
    double micros[4] = {-1, -1, -1, -1};
    ASSERT_GRAPHC_OK(
        graphc_session_step_times(bench.session, &plan, micros, 4, &steps));
    EXPECT_EQ(steps, 4);
    EXPECT_GE(micros[1], 0.0);
    EXPECT_EQ(micros[2], 0.0); // the body's step
  }
  graphc_model_release(model);
  EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
}

/// loop_control and accumulate (loop_kernels.cu.cpp) as host kernels of
/// the fake driver, for loop_model_fake_sm90.
void fakeLoopControl(const fakecu_launch *launch) {
  auto arg = [&](int p) { return *static_cast<void **>(launch->params[p]); };
  auto *trip = static_cast<const int64_t *>(arg(0));
  auto *first = static_cast<const bool *>(arg(1));
  auto *state = static_cast<int64_t *>(arg(2));
  auto *condition = static_cast<const bool *>(arg(3));
  unsigned long long handle =
      *static_cast<unsigned long long *>(launch->params[4]);
  int phase = *static_cast<int *>(launch->params[5]);
  auto *error = static_cast<unsigned long long *>(arg(6));
  unsigned site = *static_cast<unsigned *>(launch->params[7]);
  int64_t i = phase == 0 ? 0 : state[0] + 1;
  bool go = (phase == 0 ? (!first || *first) : (!condition || *condition)) &&
            (!trip || i < *trip);
  if (go && i == 8) {
    if (!error[0]) {
      error[0] = 1;
      error[1] = site;
      error[2] = 8;
      error[3] = 0;
      error[4] = 8;
      error[5] = 3;
    }
    go = false;
  }
  state[0] = i;
  state[1] = go;
  if (handle)
    fakecu_graph_set_conditional(handle, go);
}

void fakeAccumulate(const fakecu_launch *launch) {
  auto arg = [&](int p) { return *static_cast<void **>(launch->params[p]); };
  auto *x = static_cast<const float *>(arg(0));
  auto *acc = static_cast<float *>(arg(1));
  auto *state = static_cast<const int64_t *>(arg(2));
  for (int j = 0; j < 4; ++j)
    acc[j] += x[j] * float(state[0] + 1);
  *static_cast<bool *>(arg(3)) = acc[0] < 50.0f;
}

TEST(LoopStepsOnSm90, LaunchTheControlKernelAndCapturedBodiesPlainly) {
  fakecu_reset();
  static const unsigned controlParams[] = {8, 8, 8, 8, 8, 4, 8, 4};
  static const unsigned accumulateParams[] = {8, 8, 8, 8};
  fakecu_register_kernel("loop_control", fakeLoopControl, 8, controlParams);
  fakecu_register_kernel("accumulate", fakeAccumulate, 4, accumulateParams);
  fakecu_set_compute_capability(90);
  graphc_model *model = loadModel("loop_model_fake_sm90");
  ASSERT_NE(model, nullptr);
  for (uint32_t flags : {0u, unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)}) {
    SCOPED_TRACE(flags);
    LoopBench bench(model, flags);
    ASSERT_NE(bench.session, nullptr);
    std::vector<float> x = {1, 2, 3, 4}, y;
    size_t before = traceLines().size();
    ASSERT_GRAPHC_OK(bench.run(x, 3, y));
    EXPECT_EQ(y, times(x, 7));
    size_t control = 0, accumulate = 0, programmatic = 0;
    for (const std::string &line : traceSince(before)) {
      control += contains(line, "launch loop_control");
      accumulate += contains(line, "launch accumulate");
      programmatic += contains(line, "programmatic");
      // The control kernel does not wait for its predecessor itself.
      EXPECT_FALSE(contains(line, "launch loop_control programmatic")) << line;
    }
    EXPECT_EQ(control, 4u) << fakecu_trace();
    EXPECT_EQ(accumulate, 3u) << fakecu_trace();
    // Run from the host, the body's kernel overlaps the control kernel
    // ahead of it; in a captured body, nothing is programmatic.
    EXPECT_EQ(programmatic, flags ? 3u : 0u) << fakecu_trace();
    Status failed(bench.run(x, 20, y));
    EXPECT_TRUE(contains(failed.message(), "loop iteration 8 is out of range"))
        << failed.message();
  }
  graphc_model_release(model);
  EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
  fakecu_reset();
}

} // namespace
