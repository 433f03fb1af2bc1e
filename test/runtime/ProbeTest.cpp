//===- ProbeTest.cpp - probing runs (GRAPHC_SESSION_PROBE_STEPS) ----------===//
//
// The values a probing run copies out after each step, on cpu
// (affine_probes: four host steps, the last overwriting the arena slot the
// first wrote) and on the fake CUDA driver (fake_cuda_model_probes: three
// launches, the last overwriting the first's slot), with CUDA graphs and
// without; that probing leaves the outputs and the launches as they are;
// the calls' preconditions; and the descriptor checks of step results.
//
//===----------------------------------------------------------------------===//
#include "FakeCudaTestSupport.h"
#include "fake_cuda/FakeCuda.h"

#include "graphc/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace fakecutest;

/// A probe's info and its bytes as floats.
struct Probe {
  graphc_probe_info info{};
  std::vector<float> values;
};

/// Every probe of `session`'s last run, and its plan.
std::vector<Probe> readProbes(graphc_session *session, int32_t &plan) {
  int32_t count = -1;
  plan = -1;
  Status counted(graphc_session_probe_count(session, &plan, &count));
  EXPECT_TRUE(counted.ok()) << counted.message();
  std::vector<Probe> probes(counted.ok() ? count : 0);
  for (int32_t p = 0; p < int32_t(probes.size()); ++p) {
    // The info alone first (no data), then the bytes.
    EXPECT_GRAPHC_OK(
        graphc_session_read_probe(session, p, &probes[p].info, nullptr, 0));
    probes[p].values.assign(probes[p].info.size / 4, -1.0f);
    EXPECT_GRAPHC_OK(graphc_session_read_probe(session, p, &probes[p].info,
                                               probes[p].values.data(),
                                               probes[p].values.size() * 4));
  }
  return probes;
}

graphc_session *createSession(graphc_model *model, uint32_t flags) {
  graphc_session_options options;
  graphc_session_options_init(&options);
  options.flags = flags;
  graphc_session *session = nullptr;
  Status status(graphc_session_create(model, &options, &session));
  EXPECT_TRUE(status.ok()) << status.message();
  return session;
}

//===- cpu ----------------------------------------------------------------===//

graphc_model *loadCpuModel(const std::string &name) {
  graphc_model *model = nullptr;
  Status status(graphc_model_load(modelPath(name).c_str(), nullptr, &model));
  EXPECT_TRUE(status.ok()) << status.message();
  return model;
}

/// affine_probes on the host: x of `rows` rows and bias in, y and scaled
/// out.
struct CpuRun {
  explicit CpuRun(int64_t rows)
      : rows(rows), x(rows * 3), y(rows * 3), scaled(rows * 3) {
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(i + 1);
  }
  DLTensor tensor(std::vector<float> &data, int32_t ndim, int64_t *shape) {
    DLTensor t{};
    t.data = data.data();
    t.device = {kDLCPU, 0};
    t.ndim = ndim;
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape;
    return t;
  }
  graphc_status run(graphc_session *session) {
    DLTensor inputs[2] = {tensor(x, 2, xShape), tensor(bias, 1, biasShape)};
    DLTensor outputs[2] = {tensor(y, 2, xShape), tensor(scaled, 2, xShape)};
    return graphc_session_run(session, inputs, 2, nullptr, outputs, 2);
  }
  /// x * w and x * w + bias, element by element.
  std::vector<float> product() const {
    std::vector<float> out(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      out[i] = x[i] * float(2 + i % 3);
    return out;
  }
  std::vector<float> affine() const {
    std::vector<float> out = product();
    for (size_t i = 0; i < out.size(); ++i)
      out[i] += bias[i % 3];
    return out;
  }
  int64_t rows;
  std::vector<float> x, y, scaled, bias = {10, 20, 30};
  int64_t xShape[2] = {rows, 3}, biasShape[1] = {3};
};

TEST(ProbeCpu, ProbesHoldEachStepsValueAndLeaveTheOutputsAlone) {
  graphc_model *model = loadCpuModel("affine_probes");
  ASSERT_NE(model, nullptr);
  graphc_session *plain = createSession(model, 0);
  graphc_session *probing = createSession(model, GRAPHC_SESSION_PROBE_STEPS);
  ASSERT_NE(plain, nullptr);
  ASSERT_NE(probing, nullptr);
  for (int64_t rows : {2, 1}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    CpuRun expected(rows), run(rows);
    ASSERT_GRAPHC_OK(expected.run(plain));
    ASSERT_GRAPHC_OK(run.run(probing));
    EXPECT_EQ(run.y, expected.y);
    EXPECT_EQ(run.scaled, expected.scaled);
    EXPECT_EQ(run.y, run.affine());
    EXPECT_EQ(run.scaled, run.product());

    int32_t plan = -1;
    std::vector<Probe> probes = readProbes(probing, plan);
    EXPECT_EQ(plan, rows == 2 ? 1 : 0);
    ASSERT_EQ(probes.size(), 4u);
    const char *tensors[] = {"t", "y", "scaled", ""};
    for (int32_t p = 0; p < 4; ++p) {
      SCOPED_TRACE("probe " + std::to_string(p));
      EXPECT_EQ(probes[p].info.step, p);
      EXPECT_EQ(probes[p].info.result, 0);
      EXPECT_EQ(probes[p].info.size, uint64_t(rows * 12));
      ASSERT_NE(probes[p].info.desc, nullptr);
      EXPECT_STREQ(probes[p].info.desc->onnx_tensor, tensors[p]);
      EXPECT_EQ(probes[p].info.desc->dtype, 1);
      EXPECT_EQ(probes[p].info.desc->rank, 2);
      EXPECT_EQ(probes[p].info.desc->dims[0], rows);
    }
    // Step 3 overwrote step 0's arena slot; step 0's probe kept its value.
    EXPECT_EQ(probes[0].values, run.product());
    EXPECT_EQ(probes[1].values, run.affine());
    EXPECT_EQ(probes[2].values, run.product());
    EXPECT_EQ(probes[3].values, run.affine());
  }
  graphc_session_release(plain);
  graphc_session_release(probing);
  graphc_model_release(model);
}

TEST(ProbeCpu, ASplitRunReportsItsLastPart) {
  graphc_model *model = loadCpuModel("affine_probes_buckets");
  ASSERT_NE(model, nullptr);
  graphc_session *session = createSession(model, GRAPHC_SESSION_PROBE_STEPS);
  ASSERT_NE(session, nullptr);
  // Batch 3: a part of batch 2 (plan 1), then one of batch 1 (plan 0),
  // whose row is x's last.
  CpuRun run(3);
  ASSERT_GRAPHC_OK(run.run(session));
  EXPECT_EQ(run.y, run.affine());
  int32_t plan = -1;
  std::vector<Probe> probes = readProbes(session, plan);
  EXPECT_EQ(plan, 0);
  ASSERT_EQ(probes.size(), 4u);
  std::vector<float> product = run.product();
  std::vector<float> lastRow(product.begin() + 6, product.end());
  EXPECT_EQ(probes[0].values, lastRow);
  graphc_session_release(session);
  graphc_model_release(model);
}

TEST(ProbeCpu, PreconditionsAndArguments) {
  graphc_model *model = loadCpuModel("affine_probes");
  ASSERT_NE(model, nullptr);
  int32_t plan = -1, count = -1;
  graphc_probe_info info{};
  float data[6];
  {
    // Without the flag.
    graphc_session *session = createSession(model, 0);
    CpuRun run(2);
    ASSERT_GRAPHC_OK(run.run(session));
    Status status(graphc_session_probe_count(session, &plan, &count));
    EXPECT_EQ(status.code(), GRAPHC_FAILED_PRECONDITION);
    EXPECT_NE(status.message().find("GRAPHC_SESSION_PROBE_STEPS"),
              std::string::npos)
        << status.message();
    graphc_session_release(session);
  }
  {
    // Probing and profiling: the copies would be timed with the steps.
    graphc_session_options options;
    graphc_session_options_init(&options);
    options.flags = GRAPHC_SESSION_PROBE_STEPS | GRAPHC_SESSION_PROFILE_STEPS;
    graphc_session *session = nullptr;
    Status status(graphc_session_create(model, &options, &session));
    EXPECT_EQ(status.code(), GRAPHC_INVALID_ARGUMENT);
    EXPECT_EQ(session, nullptr);
  }
  graphc_session *session = createSession(model, GRAPHC_SESSION_PROBE_STEPS);
  ASSERT_NE(session, nullptr);
  {
    Status status(graphc_session_probe_count(session, &plan, &count));
    EXPECT_EQ(status.code(), GRAPHC_FAILED_PRECONDITION) << "before a run";
    Status read(graphc_session_read_probe(session, 0, &info, data, 24));
    EXPECT_EQ(read.code(), GRAPHC_FAILED_PRECONDITION) << "before a run";
  }
  CpuRun run(2);
  ASSERT_GRAPHC_OK(run.run(session));
  ASSERT_GRAPHC_OK(graphc_session_probe_count(session, &plan, &count));
  EXPECT_EQ(count, 4);
  for (int32_t index : {-1, 4}) {
    Status status(graphc_session_read_probe(session, index, &info, data, 24));
    EXPECT_EQ(status.code(), GRAPHC_INVALID_ARGUMENT) << index;
  }
  {
    // 24 bytes into 20: refused, nothing written.
    data[0] = -7;
    Status status(graphc_session_read_probe(session, 0, &info, data, 20));
    EXPECT_EQ(status.code(), GRAPHC_INVALID_ARGUMENT);
    EXPECT_EQ(data[0], -7);
  }
  {
    Status status(graphc_session_read_probe(session, 0, nullptr, data, 24));
    EXPECT_EQ(status.code(), GRAPHC_INVALID_ARGUMENT);
  }
  ASSERT_GRAPHC_OK(graphc_session_read_probe(session, 0, &info, data, 24));
  {
    // A run that fails (the add kernel refuses a NaN bias) leaves no
    // probes, and a good one brings them back.
    CpuRun bad(2);
    bad.bias[0] = NAN;
    Status failed(bad.run(session));
    EXPECT_EQ(failed.code(), GRAPHC_INTERNAL);
    Status status(graphc_session_probe_count(session, &plan, &count));
    EXPECT_EQ(status.code(), GRAPHC_FAILED_PRECONDITION);
    Status read(graphc_session_read_probe(session, 0, &info, data, 24));
    EXPECT_EQ(read.code(), GRAPHC_FAILED_PRECONDITION);
    ASSERT_GRAPHC_OK(run.run(session));
    EXPECT_GRAPHC_OK(graphc_session_probe_count(session, &plan, &count));
  }
  {
    // A run with a wrong shape fails before it runs: no probes either.
    CpuRun wrong(2);
    wrong.xShape[1] = 4;
    Status failed(wrong.run(session));
    EXPECT_EQ(failed.code(), GRAPHC_INVALID_ARGUMENT);
    Status status(graphc_session_probe_count(session, &plan, &count));
    EXPECT_EQ(status.code(), GRAPHC_FAILED_PRECONDITION);
  }
  graphc_session_release(session);
  graphc_model_release(model);
}

TEST(ProbeCpu, AModelWithoutResultsHasNoProbes) {
  graphc_model *model = loadCpuModel("affine_model");
  ASSERT_NE(model, nullptr);
  graphc_session *session = createSession(model, GRAPHC_SESSION_PROBE_STEPS);
  ASSERT_NE(session, nullptr);
  CpuRun run(2);
  ASSERT_GRAPHC_OK(run.run(session));
  EXPECT_EQ(run.y, run.affine());
  int32_t plan = -1, count = -1;
  ASSERT_GRAPHC_OK(graphc_session_probe_count(session, &plan, &count));
  EXPECT_EQ(plan, 1);
  EXPECT_EQ(count, 0);
  graphc_session_release(session);
  graphc_model_release(model);
}

TEST(ProbeCpu, MalformedResultsAreRefusedAtLoad) {
  struct Case {
    const char *model;
    const char *message;
  } cases[] = {
      {"affine_bad_result_arg",
       "plan 'batch1' step 0 result 0 is argument 3, out of range (the step "
       "has 3)"},
      {"affine_bad_result_size",
       "plan 'batch1' step 0 result 0 float32[1,4] is 16 bytes, more than "
       "argument 2 holds (12 bytes)"},
  };
  for (const Case &c : cases) {
    graphc_model *model = nullptr;
    Status status(
        graphc_model_load(modelPath(c.model).c_str(), nullptr, &model));
    EXPECT_EQ(status.code(), GRAPHC_DATA_LOSS) << c.model;
    EXPECT_NE(status.message().find(c.message), std::string::npos)
        << status.message();
    EXPECT_EQ(model, nullptr);
  }
}

//===- cuda (the fake driver) ---------------------------------------------===//

class ProbeFakeCuda : public ::testing::Test {
protected:
  void SetUp() override {
    fakecu_reset();
    registerKernels();
  }
  void TearDown() override {
    EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
    fakecu_set_compute_capability(80);
  }
};

/// x * w for Bench's x = {1, 2, 3, 4, 5, last}, times w again `times`
/// times.
std::vector<float> scaled(float last, int times) {
  std::vector<float> x = {1, 2, 3, 4, 5, last};
  for (int t = 0; t < times; ++t)
    for (int i = 0; i < 6; ++i)
      x[i] *= float(2 + i % 3);
  return x;
}

/// The trace lines since `before` that launch a kernel, as run (a graph's
/// replayed ones without their prefix).
std::vector<std::string> launches(size_t before) {
  std::vector<std::string> out;
  for (std::string line : traceSince(before)) {
    if (line.rfind("replay: ", 0) == 0)
      line = line.substr(8);
    if (line.rfind("launch ", 0) == 0)
      out.push_back(line.substr(0, line.rfind(' ')));
  }
  return out;
}

TEST_F(ProbeFakeCuda, ProbesHoldEachStepsValueWithAndWithoutGraphs) {
  graphc_model *model = loadModel("fake_cuda_model_probes");
  ASSERT_NE(model, nullptr);
  for (uint32_t flags : {0u, unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)}) {
    SCOPED_TRACE("flags " + std::to_string(flags));
    Bench plain(model, flags);
    Bench probing(model, flags | GRAPHC_SESSION_PROBE_STEPS);
    ASSERT_NE(plain.session, nullptr);
    ASSERT_NE(probing.session, nullptr);
    // New buffers (staged), then the same ones (a graph bound to them).
    for (int i = 0; i < 3; ++i) {
      SCOPED_TRACE("run " + std::to_string(i));
      float last = float(6 + i);
      ASSERT_GRAPHC_OK(plain.run({2, -1}, last));
      size_t before = traceLines().size();
      ASSERT_GRAPHC_OK(probing.run({2, -1}, last));
      std::vector<std::string> trace = traceSince(before);
      std::vector<float> xw = scaled(last, 1);
      EXPECT_EQ(probing.result(), plain.result());
      EXPECT_EQ(probing.result(), (std::vector<float>{xw[2], xw[5]}));

      int32_t plan = -1;
      std::vector<Probe> probes = readProbes(probing.session, plan);
      EXPECT_EQ(plan, 0);
      ASSERT_EQ(probes.size(), 3u);
      EXPECT_STREQ(probes[0].info.desc->onnx_tensor, "Mul_0_out");
      EXPECT_STREQ(probes[1].info.desc->onnx_tensor, "y");
      EXPECT_STREQ(probes[2].info.desc->onnx_tensor, "");
      EXPECT_EQ(probes[1].info.step, 1);
      EXPECT_EQ(probes[1].info.size, 8u);
      // Step 2 scaled step 0's arena slot again; step 0's probe kept x * w.
      EXPECT_EQ(probes[0].values, xw);
      EXPECT_EQ(probes[1].values, (std::vector<float>{xw[2], xw[5]}));
      EXPECT_EQ(probes[2].values, scaled(last, 2));

      // A copy after each launch, in the graph when graphs are on.
      std::vector<std::string> steps;
      for (const std::string &line : trace) {
        std::string kind = line.substr(0, line.rfind(' '));
        bool replayed = kind.rfind("replay: ", 0) == 0;
        if (replayed)
          kind = kind.substr(8);
        if (replayed == !flags &&
            (kind.rfind("launch ", 0) == 0 || kind == "memcpyDtoD"))
          steps.push_back(kind);
      }
      EXPECT_EQ(steps,
                (std::vector<std::string>{"launch fake_scale", "memcpyDtoD",
                                          "launch fake_gather", "memcpyDtoD",
                                          "launch fake_scale", "memcpyDtoD"}))
          << fakecu_trace();
    }
  }
  graphc_model_release(model);
}

TEST_F(ProbeFakeCuda, LaunchesAreThoseOfAnUnprobedSessionOnSm90) {
  fakecu_set_compute_capability(90);
  graphc_model *model = loadModel("fake_cuda_model_probes_sm90");
  ASSERT_NE(model, nullptr);
  for (uint32_t flags : {0u, unsigned(GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)}) {
    SCOPED_TRACE("flags " + std::to_string(flags));
    std::vector<std::string> runs[2];
    int launchesEx[2];
    for (int probe = 0; probe < 2; ++probe) {
      Bench run(model, flags | (probe ? GRAPHC_SESSION_PROBE_STEPS : 0));
      ASSERT_NE(run.session, nullptr);
      int before = fakecu_calls("cuLaunchKernelEx");
      size_t lines = traceLines().size();
      ASSERT_GRAPHC_OK(run.run({2, -1}));
      runs[probe] = launches(lines);
      launchesEx[probe] = fakecu_calls("cuLaunchKernelEx") - before;
      EXPECT_EQ(run.result(), (std::vector<float>{12, 24}));
    }
    // The same kernels, in the same order, each still launched
    // programmatically.
    EXPECT_EQ(runs[1], runs[0]);
    EXPECT_EQ(runs[1],
              (std::vector<std::string>{"launch fake_scale programmatic",
                                        "launch fake_gather programmatic",
                                        "launch fake_scale programmatic"}));
    EXPECT_EQ(launchesEx[1], launchesEx[0]);
    EXPECT_EQ(launchesEx[1], 3);
  }
  graphc_model_release(model);
}

TEST_F(ProbeFakeCuda, PreconditionsAndFailedRuns) {
  graphc_model *model = loadModel("fake_cuda_model_probes");
  ASSERT_NE(model, nullptr);
  int32_t plan = -1, count = -1;
  graphc_probe_info info{};
  float data[6];
  {
    Bench plain(model, 0);
    ASSERT_GRAPHC_OK(plain.run({0, 1}));
    Status status(graphc_session_probe_count(plain.session, &plan, &count));
    EXPECT_EQ(status.code(), GRAPHC_FAILED_PRECONDITION);
  }
  // Released before the model.
  auto run = std::make_unique<Bench>(model, GRAPHC_SESSION_PROBE_STEPS);
  ASSERT_NE(run->session, nullptr);
  {
    Status status(graphc_session_probe_count(run->session, &plan, &count));
    EXPECT_EQ(status.code(), GRAPHC_FAILED_PRECONDITION) << "before a run";
  }
  ASSERT_GRAPHC_OK(run->run({0, 1}));
  ASSERT_GRAPHC_OK(graphc_session_probe_count(run->session, &plan, &count));
  EXPECT_EQ(count, 3);
  for (int32_t index : {-1, 3}) {
    Status status(
        graphc_session_read_probe(run->session, index, &info, data, 24));
    EXPECT_EQ(status.code(), GRAPHC_INVALID_ARGUMENT) << index;
  }
  {
    Status status(graphc_session_read_probe(run->session, 0, &info, data, 23));
    EXPECT_EQ(status.code(), GRAPHC_INVALID_ARGUMENT);
  }
  {
    // An index out of range, found on the device: the run failed.
    Status failed(run->run({0, 9}));
    EXPECT_EQ(failed.code(), GRAPHC_INVALID_ARGUMENT);
    Status status(graphc_session_probe_count(run->session, &plan, &count));
    EXPECT_EQ(status.code(), GRAPHC_FAILED_PRECONDITION);
  }
  {
    // An asynchronous run: readable once synchronized.
    Device device;
    ASSERT_GRAPHC_OK(run->run({0, 1}, 6, true, device.stream));
    Status status(graphc_session_probe_count(run->session, &plan, &count));
    EXPECT_EQ(status.code(), GRAPHC_FAILED_PRECONDITION);
    EXPECT_NE(status.message().find("graphc_session_synchronize"),
              std::string::npos)
        << status.message();
    ASSERT_GRAPHC_OK(graphc_session_synchronize(run->session));
    ASSERT_GRAPHC_OK(graphc_session_probe_count(run->session, &plan, &count));
    ASSERT_GRAPHC_OK(
        graphc_session_read_probe(run->session, 0, &info, data, sizeof(data)));
    EXPECT_EQ(std::vector<float>(data, data + 6), scaled(6, 1));
    // One whose index error surfaces at the synchronize.
    ASSERT_GRAPHC_OK(run->run({0, 9}, 6, true, device.stream));
    Status failed(graphc_session_synchronize(run->session));
    EXPECT_EQ(failed.code(), GRAPHC_INVALID_ARGUMENT);
    Status after(graphc_session_probe_count(run->session, &plan, &count));
    EXPECT_EQ(after.code(), GRAPHC_FAILED_PRECONDITION);
  }
  run.reset();
  graphc_model_release(model);
}

} // namespace
