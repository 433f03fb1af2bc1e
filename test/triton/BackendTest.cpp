//===- BackendTest.cpp - libtriton_graphc.so against a fake Triton --------===//
//
// The backend's sources (runtime/triton/Backend.cpp, Execute.cpp) linked
// with the runtime and with FakeTritonServer.cpp, which defines the server's
// side of the API. Each test plays Triton: TRITONBACKEND_Initialize,
// ModelInitialize, ModelInstanceInitialize, ModelInstanceExecute with a
// batch of requests, then the finalizers in order; and checks what the
// backend answered against direct graphc_session_run calls on the same
// artifact. The cuda cases run an artifact compiled with --cuda-emulation on
// the fake CUDA driver (docs/cuda-emulation.md), with inputs and outputs in
// host memory and in the emulated GPU's memory, so that the GPU instance
// path is tested without a GPU.
//
// The models (make_backend_models.py) are compiled by this binary on first
// use, with the graphc of the build tree.
//
//===----------------------------------------------------------------------===//

#include "FakeTritonServer.h"

#include "fake_cuda/FakeCuda.h"
#include "graphc/runtime.h"
#include "models/extent_kernel.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

using namespace faketriton;
using nlohmann::json;

namespace {

constexpr int64_t kFeatures = 8, kClasses = 4;

bool startsWith(const std::string &text, const std::string &prefix) {
  return text.rfind(prefix, 0) == 0;
}
bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

//===- The artifacts ------------------------------------------------------===//

/// Each model's directory (Triton's model directory: version 1 holds the
/// artifact), compiled once per process.
struct Artifacts {
  std::string error; ///< why they could not be made
  std::string headsCpu, headsCuda, fixedCpu, lookupCpu;
};

/// A path of the build tree, or the environment's `variable` when set: the
/// device bundle (scripts/device-bundle.sh) runs this binary away from it.
std::string configured(const char *variable, const char *builtIn) {
  const char *value = std::getenv(variable);
  return value && *value ? value : builtIn;
}
std::string workDir() {
  return configured("GRAPHC_TEST_TRITON_WORKDIR", GRAPHC_TRITON_TEST_WORKDIR);
}

bool runCommand(const std::string &command, std::string &error) {
  std::string log = workDir() + "/command.log";
  std::string logged = command + " > '" + log + "' 2>&1";
  if (std::system(logged.c_str()) == 0)
    return true;
  error = "failed: " + command + " (see " + log + ")";
  return false;
}

/// The ONNX models, in `work`/onnx.
bool makeOnnx(const std::string &work, std::string &error) {
  std::filesystem::create_directories(work + "/onnx");
  return runCommand("'" + configured("GRAPHC_TEST_PYTHON", GRAPHC_PYTHON) +
                        "' '" +
                        configured("GRAPHC_TEST_TRITON_MODEL_SCRIPT",
                                   GRAPHC_TRITON_MODEL_SCRIPT) +
                        "' '" + work + "/onnx'",
                    error);
}

/// Compiles `work`/onnx/`onnx`.onnx with `options` into the model directory
/// `work`/`name` (version 1), which it returns in `dir`.
bool compileModel(const std::string &work, const std::string &name,
                  const std::string &onnx, const std::string &options,
                  std::string &dir, std::string &error) {
  dir = work + "/" + name;
  std::filesystem::create_directories(dir + "/1");
  return runCommand("'" + configured("GRAPHC_TEST_GRAPHC", GRAPHC_BINARY) +
                        "' compile '" + work + "/onnx/" + onnx + ".onnx' " +
                        options + " -o '" + dir + "/1/" + onnx +
                        ".so' --force --quiet",
                    error);
}

const Artifacts &artifacts() {
  static const Artifacts made = [] {
    Artifacts a;
    std::string work = workDir();
    if (!makeOnnx(work, a.error))
      return a;
    struct Compile {
      std::string *dir;
      const char *name, *onnx, *options;
    };
    for (Compile c : {
             Compile{&a.headsCpu, "heads_cpu", "heads",
                     "--target cpu --buckets batch=1,2,4,8"},
             Compile{&a.headsCuda, "heads_cuda", "heads",
                     "--target cuda --cuda-emulation --buckets batch=1,2,4,8"},
             Compile{&a.fixedCpu, "fixed_cpu", "fixed", "--target cpu"},
             Compile{&a.lookupCpu, "lookup_cpu", "lookup",
                     "--target cpu --buckets batch=1,2,4,8"},
         }) {
      if (!compileModel(work, c.name, c.onnx, c.options, *c.dir, a.error))
        return a;
    }
    return a;
  }();
  return made;
}

/// config.pbtxt in the JSON form Triton hands backends, as `graphc triton`
/// writes it for the heads models.
json headsConfig(const std::string &name, int maxBatchSize,
                 const std::string &artifact = "heads.so") {
  json dims = maxBatchSize > 0 ? json::array({"8"}) : json::array({"2", "8"});
  json outDims =
      maxBatchSize > 0 ? json::array({"4"}) : json::array({"2", "4"});
  return {
      {"name", name},
      {"backend", "graphc"},
      {"max_batch_size", maxBatchSize},
      {"input",
       json::array(
           {{{"name", "x"}, {"data_type", "TYPE_FP32"}, {"dims", dims}}})},
      {"output",
       json::array(
           {{{"name", "logits"}, {"data_type", "TYPE_FP32"}, {"dims", outDims}},
            {{"name", "probs"},
             {"data_type", "TYPE_FP32"},
             {"dims", outDims}}})},
      {"parameters", {{"graphc_artifact", {{"string_value", artifact}}}}},
  };
}

//===- Direct runs --------------------------------------------------------===//

/// A model and a session of it, run directly: the reference. For a cuda
/// model it is also the test's access to the emulated GPU's memory (of GPU
/// `device`).
struct Direct {
  explicit Direct(const std::string &artifact, int32_t device = 0)
      : device(device) {
    graphc_model_options options;
    graphc_model_options_init(&options);
    options.device_ordinal = device;
    ok(graphc_model_load(artifact.c_str(), &options, &model));
    graphc_session_options sessionOptions;
    graphc_session_options_init(&sessionOptions);
    sessionOptions.device_ordinal = device;
    if (model)
      ok(graphc_session_create(model, &sessionOptions, &session));
    cuda = model && graphc_model_target(model) == GRAPHC_TARGET_CUDA;
  }
  ~Direct() {
    for (void *buffer : buffers)
      graphc_session_free_buffer(session, buffer);
    graphc_session_release(session);
    graphc_model_release(model);
  }
  Direct(const Direct &) = delete;

  void ok(graphc_status status) {
    if (status) {
      ADD_FAILURE() << graphc_status_message(status);
      graphc_status_free(status);
    }
  }

  /// Device memory of the session (cuda), freed with it.
  void *allocate(uint64_t bytes) {
    void *buffer = nullptr;
    ok(graphc_session_allocate_buffer(session, bytes, &buffer));
    buffers.push_back(buffer);
    return buffer;
  }
  void release(void *buffer) {
    for (size_t i = 0; i < buffers.size(); ++i)
      if (buffers[i] == buffer) {
        graphc_session_free_buffer(session, buffer);
        buffers.erase(buffers.begin() + i);
        return;
      }
    ADD_FAILURE() << "freeing memory not allocated here";
  }
  void *upload(const std::vector<float> &values) {
    void *buffer = allocate(values.size() * sizeof(float));
    ok(graphc_session_upload(session, buffer, values.data(),
                             values.size() * sizeof(float)));
    return buffer;
  }
  std::vector<float> download(const void *buffer, size_t count) {
    std::vector<float> host(count);
    ok(graphc_session_download(session, host.data(), buffer,
                               count * sizeof(float)));
    return host;
  }

  /// The heads model's outputs (logits, probs) for `x` of `rows` rows.
  std::vector<std::vector<float>> run(const std::vector<float> &x,
                                      int64_t rows) {
    std::vector<std::vector<float>> out(2, std::vector<float>(rows * kClasses));
    int64_t xShape[2] = {rows, kFeatures}, yShape[2] = {rows, kClasses};
    auto tensor = [&](void *data, int64_t *shape) {
      DLTensor t{};
      t.data = data;
      t.device = cuda ? DLDevice{kDLCUDA, device} : DLDevice{kDLCPU, 0};
      t.ndim = 2;
      t.shape = shape;
      t.dtype = {kDLFloat, 32, 1};
      return t;
    };
    void *xData = const_cast<float *>(x.data());
    void *yData[2] = {out[0].data(), out[1].data()};
    if (cuda) {
      xData = upload(x);
      yData[0] = allocate(rows * kClasses * sizeof(float));
      yData[1] = allocate(rows * kClasses * sizeof(float));
    }
    DLTensor input = tensor(xData, xShape);
    DLTensor outputs[2] = {tensor(yData[0], yShape), tensor(yData[1], yShape)};
    ok(graphc_session_run(session, &input, 1, nullptr, outputs, 2));
    if (cuda)
      for (int o = 0; o < 2; ++o)
        out[o] = download(yData[o], rows * kClasses);
    return out;
  }

  int32_t device;
  graphc_model *model = nullptr;
  graphc_session *session = nullptr;
  bool cuda = false;
  std::vector<void *> buffers;
};

/// `rows` rows of distinct values, different for each `seed`.
std::vector<float> rowsOf(int64_t rows, int seed) {
  std::vector<float> x(rows * kFeatures);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>((seed * 37 + int(i) * 11) % 23) / 7.0f - 1.5f;
  return x;
}

//===- Playing Triton -----------------------------------------------------===//

/// A request of `rows` rows of input x (one host buffer unless changed).
std::unique_ptr<TRITONBACKEND_Request>
request(const std::string &id, const std::vector<float> &x, int64_t rows,
        std::vector<std::string> outputs = {"logits", "probs"}) {
  auto made = std::make_unique<TRITONBACKEND_Request>();
  made->id = id;
  auto input = std::make_unique<TRITONBACKEND_Input>();
  input->name = "x";
  input->shape = {rows, kFeatures};
  input->buffers = {{x.data(), x.size() * sizeof(float)}};
  made->inputs.push_back(std::move(input));
  made->requestedOutputs = std::move(outputs);
  return made;
}

/// --real-cuda (main): BackendGpu runs on the machine's GPU.
bool realCuda = false;

/// One request's results from the backend and from a direct run of the
/// artifact. On the fake driver they are equal bit for bit. On a real GPU
/// a batch runs in a larger bucket than the request alone, and cuBLASLt's
/// algorithm for the larger GEMM may sum in another order: equal within
/// float32 rounding there.
void expectSameResults(const std::vector<float> &got,
                       const std::vector<float> &want) {
  if (!realCuda) {
    EXPECT_EQ(got, want);
    return;
  }
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5f * std::max(1.0f, std::fabs(want[i])))
        << "element " << i;
}

class BackendTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(artifacts().error, "");
    startBackend();
  }

  void startBackend() {
    server().reset();
    // Counted per test, so that a leak shows in the test that made it.
    server().liveErrors = server().liveMessages = 0;
    // Initialize is per backend and cheap; each test starts from it.
    ASSERT_EQ(takeError(TRITONBACKEND_Initialize(&backend)), "");
  }

  void TearDown() override {
    finalize();
    EXPECT_EQ(server().violations, std::vector<std::string>());
    server().reset();
    EXPECT_EQ(server().liveErrors, 0) << "errors the backend did not free";
    EXPECT_EQ(server().liveMessages, 0) << "messages the backend did not free";
    server().allocateGpu = nullptr;
    server().freeGpu = nullptr;
    direct.reset();
    direct1.reset();
  }

  /// ModelInitialize of `config` in model directory `dir`; "" or the error.
  std::string loadModel(const std::string &dir, const json &config) {
    model.name = config.value("name", "model");
    model.repository = dir;
    model.config = config.dump();
    std::string error = takeError(TRITONBACKEND_ModelInitialize(&model));
    modelLoaded = error.empty();
    if (modelLoaded) {
      EXPECT_NE(model.state, nullptr);
    }
    return error;
  }

  /// ModelInstanceInitialize; "" or the error.
  std::string addInstance(TRITONSERVER_InstanceGroupKind kind, int32_t device) {
    instance.name = model.name + "_0";
    instance.kind = kind;
    instance.deviceId = device;
    instance.model = &model;
    std::string error =
        takeError(TRITONBACKEND_ModelInstanceInitialize(&instance));
    instanceLoaded = error.empty();
    return error;
  }

  /// Instance, then model, as Triton unloads.
  void finalize() {
    if (secondLoaded) {
      EXPECT_EQ(takeError(TRITONBACKEND_ModelInstanceFinalize(&second)), "");
    }
    secondLoaded = false;
    if (instanceLoaded) {
      EXPECT_EQ(takeError(TRITONBACKEND_ModelInstanceFinalize(&instance)), "");
    }
    if (modelLoaded) {
      EXPECT_EQ(takeError(TRITONBACKEND_ModelFinalize(&model)), "");
    }
    instanceLoaded = modelLoaded = false;
  }

  /// ModelInstanceExecute on the requests; checks what every execution
  /// must do: each request answered by one response sent FINAL and
  /// released once with RELEASE_ALL, one statistics record each.
  void execute(const std::vector<TRITONBACKEND_Request *> &requests,
               TRITONBACKEND_ModelInstance *on = nullptr) {
    TRITONBACKEND_ModelInstance &instance = on ? *on : this->instance;
    std::vector<TRITONBACKEND_Request *> batch = requests;
    size_t statsBefore = instance.requestStatistics.size();
    ASSERT_EQ(takeError(TRITONBACKEND_ModelInstanceExecute(
                  &instance, batch.data(), uint32_t(batch.size()))),
              "");
    ASSERT_EQ(instance.requestStatistics.size(), statsBefore + batch.size());
    for (size_t r = 0; r < batch.size(); ++r) {
      TRITONBACKEND_Request *req = batch[r];
      EXPECT_EQ(req->releases, 1) << req->id;
      EXPECT_EQ(req->releaseFlags, uint32_t(TRITONSERVER_REQUEST_RELEASE_ALL))
          << req->id;
      EXPECT_EQ(req->responsesCreated, 1) << req->id;
      EXPECT_EQ(server().sentFor(req).size(), 1u) << req->id;
      const auto &stats = instance.requestStatistics[statsBefore + r];
      EXPECT_EQ(stats.request, req);
      EXPECT_LE(stats.execStart, stats.computeStart);
      EXPECT_LE(stats.computeStart, stats.computeEnd);
      EXPECT_LE(stats.computeEnd, stats.execEnd);
    }
    EXPECT_EQ(server().violations, std::vector<std::string>());
    EXPECT_EQ(server().liveErrors, 0);
  }

  TRITONBACKEND_Response *response(TRITONBACKEND_Request *req) {
    auto sent = server().sentFor(req);
    return sent.size() == 1 ? sent[0] : nullptr;
  }

  /// The request's statistics' success flag.
  bool succeeded(TRITONBACKEND_Request *req) {
    for (auto *on : {&instance, &second})
      for (const auto &stats : on->requestStatistics)
        if (stats.request == req)
          return stats.success;
    ADD_FAILURE() << "no statistics for " << req->id;
    return false;
  }

  /// The response's error message ("" when it succeeded).
  std::string errorOf(TRITONBACKEND_Request *req) {
    TRITONBACKEND_Response *sent = response(req);
    if (!sent)
      return "(no response)";
    return sent->error ? sent->error->message : "";
  }

  /// The response's output `name` as host floats (downloaded from the GPU
  /// when there); checks its dtype, shape and size.
  std::vector<float> outputOf(TRITONBACKEND_Request *req,
                              const std::string &name, int64_t rows) {
    TRITONBACKEND_Response *sent = response(req);
    if (!sent)
      return {};
    for (const auto &output : sent->outputs) {
      if (output->name != name)
        continue;
      EXPECT_EQ(output->datatype, TRITONSERVER_TYPE_FP32);
      EXPECT_EQ(output->shape, (std::vector<int64_t>{rows, kClasses}));
      size_t count = size_t(rows * kClasses);
      EXPECT_EQ(output->byteSize, count * sizeof(float));
      if (!output->buffer)
        return {};
      if (output->memoryType == TRITONSERVER_MEMORY_GPU)
        return gpu(output->memoryTypeId).download(output->buffer, count);
      std::vector<float> host(count);
      std::memcpy(host.data(), output->buffer, count * sizeof(float));
      return host;
    }
    ADD_FAILURE() << req->id << " has no output '" << name << "'";
    return {};
  }

  /// The response's outputs equal a direct run of `x`.
  void expectMatchesDirect(TRITONBACKEND_Request *req,
                           const std::vector<float> &x, int64_t rows) {
    SCOPED_TRACE(req->id);
    EXPECT_EQ(errorOf(req), "");
    EXPECT_TRUE(succeeded(req));
    auto expected = direct->run(x, rows);
    expectSameResults(outputOf(req, "logits", rows), expected[0]);
    expectSameResults(outputOf(req, "probs", rows), expected[1]);
  }

  uint64_t batchRows() {
    uint64_t rows = 0;
    for (const auto &stats : instance.batchStatistics) {
      rows += stats.batchSize;
      EXPECT_LE(stats.execStart, stats.computeStart);
      EXPECT_LE(stats.computeStart, stats.computeEnd);
      EXPECT_LE(stats.computeEnd, stats.execEnd);
    }
    return rows;
  }

  /// A cuda model (of model directory `dir`: the emulated one unless
  /// given) on a KIND_GPU instance of device 0, with `direct` its reference
  /// and the source of the GPU memory the server hands out.
  void loadCudaModel(std::string dir = "") {
    if (dir.empty())
      dir = artifacts().headsCuda;
    direct = std::make_unique<Direct>(dir + "/1/heads.so");
    ASSERT_TRUE(direct->cuda);
    server().allocateGpu = [this](uint64_t bytes, int64_t device) {
      return gpu(device).allocate(bytes);
    };
    server().freeGpu = [this](void *buffer, int64_t device) {
      gpu(device).release(buffer);
    };
    ASSERT_EQ(loadModel(dir, headsConfig("heads_cuda", 8)), "");
    ASSERT_EQ(addInstance(TRITONSERVER_INSTANCEGROUPKIND_GPU, 0), "");
  }

  void loadCpuModel() {
    direct = std::make_unique<Direct>(artifacts().headsCpu + "/1/heads.so");
    ASSERT_EQ(loadModel(artifacts().headsCpu, headsConfig("heads_cpu", 8)), "");
    ASSERT_EQ(addInstance(TRITONSERVER_INSTANCEGROUPKIND_CPU, 0), "");
  }

  /// The session of GPU `device` (0 or 1) of a cuda model's test.
  Direct &gpu(int64_t device) {
    std::unique_ptr<Direct> &on = device == 1 ? direct1 : direct;
    EXPECT_TRUE(on && (device == 0 || device == 1)) << "GPU " << device;
    return *on;
  }

  /// A KIND_GPU instance (emulated or real) with host inputs and outputs:
  /// three requests as one batch, each matching a direct run, with the
  /// backend asking for its GPU's memory and taking host memory. Returns
  /// the graph launches of the batch's execution on the fake driver.
  int checkGpuInstanceWithHostMemory() {
    server().outputMemory = OutputMemory::Host;
    std::vector<float> x1 = rowsOf(1, 13), x2 = rowsOf(2, 14),
                       x3 = rowsOf(3, 15);
    auto r1 = request("r1", x1, 1), r2 = request("r2", x2, 2),
         r3 = request("r3", x3, 3);
    int launches = fakecu_calls("cuGraphLaunch");
    execute({r1.get(), r2.get(), r3.get()});
    launches = fakecu_calls("cuGraphLaunch") - launches;
    expectMatchesDirect(r1.get(), x1, 1);
    expectMatchesDirect(r2.get(), x2, 2);
    expectMatchesDirect(r3.get(), x3, 3);
    EXPECT_EQ(batchRows(), 6u);
    for (const auto &output : response(r1.get())->outputs) {
      EXPECT_EQ(output->preferredType, TRITONSERVER_MEMORY_GPU);
      EXPECT_EQ(output->preferredTypeId, 0);
      EXPECT_EQ(output->memoryType, TRITONSERVER_MEMORY_CPU);
    }
    return launches;
  }

  /// A KIND_GPU instance with inputs in GPU memory (one request's in two
  /// device buffers, gathered), one in host memory, and outputs in GPU
  /// memory.
  void checkGpuInstanceWithGpuMemory() {
    std::vector<float> x1 = rowsOf(1, 17), x2 = rowsOf(2, 18),
                       x3 = rowsOf(3, 19), x4 = rowsOf(2, 20);
    auto r1 = request("r1", x1, 1), r2 = request("r2", x2, 2),
         r3 = request("host input", x3, 3),
         r4 = request("two GPU buffers", x4, 2);
    for (auto [req, x] : {std::pair{r1.get(), &x1}, std::pair{r2.get(), &x2}}) {
      FakeBuffer &buffer = req->inputs[0]->buffers[0];
      buffer.data = direct->upload(*x);
      buffer.memoryType = TRITONSERVER_MEMORY_GPU;
      buffer.memoryTypeId = 0;
    }
    std::vector<float> row0(x4.begin(), x4.begin() + kFeatures),
        row1(x4.begin() + kFeatures, x4.end());
    r4->inputs[0]->buffers = {{direct->upload(row0), kFeatures * sizeof(float),
                               TRITONSERVER_MEMORY_GPU, 0},
                              {direct->upload(row1), kFeatures * sizeof(float),
                               TRITONSERVER_MEMORY_GPU, 0}};
    execute({r1.get(), r2.get(), r3.get(), r4.get()});
    expectMatchesDirect(r1.get(), x1, 1);
    expectMatchesDirect(r2.get(), x2, 2);
    expectMatchesDirect(r3.get(), x3, 3);
    expectMatchesDirect(r4.get(), x4, 2);
    EXPECT_EQ(batchRows(), 8u);
    for (auto *req : {r1.get(), r3.get()})
      for (const auto &output : response(req)->outputs) {
        EXPECT_EQ(output->memoryType, TRITONSERVER_MEMORY_GPU);
        EXPECT_EQ(output->memoryTypeId, 0);
      }
  }

  TRITONBACKEND_Backend backend;
  TRITONBACKEND_Model model;
  TRITONBACKEND_ModelInstance instance, second;
  bool modelLoaded = false, instanceLoaded = false, secondLoaded = false;
  std::unique_ptr<Direct> direct, direct1;
};

//===- The backend's API version ------------------------------------------===//

TEST_F(BackendTest, RefusesAnOlderOrOtherMajorApiVersion) {
  server().apiMinor = 18;
  std::string error = takeError(TRITONBACKEND_Initialize(&backend));
  EXPECT_TRUE(startsWith(error, "graphc: ")) << error;
  EXPECT_TRUE(contains(error, "version 1.18")) << error;
  EXPECT_TRUE(contains(error, "needs 1.19")) << error;
  server().apiMajor = 2;
  server().apiMinor = 19;
  error = takeError(TRITONBACKEND_Initialize(&backend));
  EXPECT_TRUE(contains(error, "version 2.19")) << error;
  // A later minor version is fine.
  server().apiMajor = 1;
  server().apiMinor = 24;
  EXPECT_EQ(takeError(TRITONBACKEND_Initialize(&backend)), "");
}

//===- Batches on the cpu -------------------------------------------------===//

TEST_F(BackendTest, CpuBatchMatchesDirectRunsOfEachRequest) {
  loadCpuModel();
  std::vector<float> x1 = rowsOf(1, 1), x2 = rowsOf(2, 2), x3 = rowsOf(3, 3);
  auto r1 = request("r1", x1, 1), r2 = request("r2", x2, 2),
       r3 = request("r3", x3, 3);
  execute({r1.get(), r2.get(), r3.get()});
  expectMatchesDirect(r1.get(), x1, 1);
  expectMatchesDirect(r2.get(), x2, 2);
  expectMatchesDirect(r3.get(), x3, 3);
  // The server's log says what was loaded.
  bool logged = false;
  for (const LogLine &line : server().log)
    logged |= line.level == TRITONSERVER_LOG_INFO &&
              line.message ==
                  "graphc: instance 'heads_cpu_0' runs a session on the cpu";
  EXPECT_TRUE(logged);
  // One batch of 6 rows.
  ASSERT_EQ(instance.batchStatistics.size(), 1u);
  EXPECT_EQ(instance.batchStatistics[0].batchSize, 6u);
  // The outputs are where the backend asked: host memory.
  for (const auto &output : response(r2.get())->outputs) {
    EXPECT_EQ(output->preferredType, TRITONSERVER_MEMORY_CPU);
    EXPECT_EQ(output->memoryType, TRITONSERVER_MEMORY_CPU);
  }

  // A second execution on the same instance, one request alone.
  std::vector<float> x4 = rowsOf(4, 4);
  auto r4 = request("r4", x4, 4);
  execute({r4.get()});
  expectMatchesDirect(r4.get(), x4, 4);
  EXPECT_EQ(batchRows(), 10u);
}

TEST_F(BackendTest, RequestedOutputsOnly) {
  loadCpuModel();
  std::vector<float> x1 = rowsOf(2, 5), x2 = rowsOf(1, 6), x3 = rowsOf(3, 7);
  auto r1 = request("probs only", x1, 2, {"probs"});
  auto r2 = request("logits only", x2, 1, {"logits"});
  auto r3 = request("both", x3, 3);
  execute({r1.get(), r2.get(), r3.get()});
  for (auto [req, x, rows, name] :
       {std::tuple{r1.get(), &x1, int64_t(2), "probs"},
        std::tuple{r2.get(), &x2, int64_t(1), "logits"}}) {
    SCOPED_TRACE(req->id);
    EXPECT_EQ(errorOf(req), "");
    EXPECT_TRUE(succeeded(req));
    TRITONBACKEND_Response *sent = response(req);
    ASSERT_NE(sent, nullptr);
    ASSERT_EQ(sent->outputs.size(), 1u);
    EXPECT_EQ(sent->outputs[0]->name, name);
    auto expected = direct->run(*x, rows);
    EXPECT_EQ(outputOf(req, name, rows),
              expected[std::string(name) == "logits" ? 0 : 1]);
  }
  expectMatchesDirect(r3.get(), x3, 3);
  EXPECT_EQ(response(r3.get())->outputs.size(), 2u);
  EXPECT_EQ(batchRows(), 6u);
}

/// A request of no rows answers with empty outputs; a batch of more rows
/// than the largest bucket runs in parts. Neither touches its neighbours.
TEST_F(BackendTest, CpuBatchWithAnEmptyRequestAndMoreRowsThanTheLargestBucket) {
  loadCpuModel();
  std::vector<float> x1 = rowsOf(5, 23), x2 = rowsOf(6, 24), none;
  auto r1 = request("5 rows", x1, 5), empty = request("no rows", none, 0),
       r2 = request("6 rows", x2, 6);
  execute({r1.get(), empty.get(), r2.get()});
  expectMatchesDirect(r1.get(), x1, 5);
  expectMatchesDirect(r2.get(), x2, 6);
  EXPECT_EQ(errorOf(empty.get()), "");
  EXPECT_TRUE(succeeded(empty.get()));
  EXPECT_EQ(outputOf(empty.get(), "logits", 0), std::vector<float>());
  EXPECT_EQ(outputOf(empty.get(), "probs", 0), std::vector<float>());
  EXPECT_EQ(batchRows(), 11u);
}

//===- Requests wrong on their own ----------------------------------------===//

TEST_F(BackendTest, ErrorsAreAnsweredPerRequestAndTheRestRuns) {
  loadCpuModel();
  std::vector<float> good1 = rowsOf(2, 8), good2 = rowsOf(1, 9);
  std::vector<float> split = rowsOf(3, 10), narrow(2 * 7, 0.5f);

  auto first = request("good 1", good1, 2);
  auto noInputs = request("no inputs", good1, 2);
  noInputs->inputs.clear();
  auto misnamed = request("misnamed", good1, 2);
  misnamed->inputs[0]->name = "y";
  auto wrongDtype = request("int32", good1, 2);
  wrongDtype->inputs[0]->datatype = TRITONSERVER_TYPE_INT32;
  auto wrongDim = request("7 features", narrow, 2);
  wrongDim->inputs[0]->shape = {2, 7};
  auto wrongBytes = request("short", good1, 2);
  wrongBytes->inputs[0]->buffers[0].size -= 4;
  // Rows 0..1 and row 2 in separate buffers: gathered, and it runs.
  auto twoBuffers = request("two buffers", split, 3);
  twoBuffers->inputs[0]->buffers = {
      {split.data(), 2 * kFeatures * sizeof(float)},
      {split.data() + 2 * kFeatures, kFeatures * sizeof(float)}};
  // GPU memory on a cpu instance.
  auto onGpu = request("GPU memory", good1, 2);
  onGpu->inputs[0]->buffers[0].memoryType = TRITONSERVER_MEMORY_GPU;
  auto last = request("good 2", good2, 1);

  execute({first.get(), noInputs.get(), misnamed.get(), wrongDtype.get(),
           wrongDim.get(), wrongBytes.get(), twoBuffers.get(), onGpu.get(),
           last.get()});

  expectMatchesDirect(first.get(), good1, 2);
  expectMatchesDirect(twoBuffers.get(), split, 3);
  expectMatchesDirect(last.get(), good2, 1);
  EXPECT_EQ(batchRows(), 6u);

  struct Expected {
    TRITONBACKEND_Request *req;
    std::vector<std::string> parts;
  };
  for (const Expected &e : {
           Expected{noInputs.get(), {"has 0 inputs", "takes 1"}},
           Expected{misnamed.get(), {"no input 'x'", "heads_cpu"}},
           Expected{wrongDtype.get(),
                    {"input 'x' is TYPE_INT32", "TYPE_FP32 (float32)"}},
           // graphc's own message: the input, and the dims it takes.
           Expected{wrongDim.get(), {"input 'x'", "[batch,8]", "[2,7]"}},
           Expected{wrongBytes.get(), {"input 'x'", "60 bytes", "64"}},
           Expected{onGpu.get(), {"input 'x'", "GPU 0", "the cpu"}},
       }) {
    SCOPED_TRACE(e.req->id);
    std::string error = errorOf(e.req);
    EXPECT_TRUE(startsWith(error, "graphc: ")) << error;
    for (const std::string &part : e.parts)
      EXPECT_TRUE(contains(error, part)) << error << " lacks " << part;
    EXPECT_EQ(response(e.req)->error->code, TRITONSERVER_ERROR_INVALID_ARG);
    EXPECT_FALSE(succeeded(e.req));
  }
}

/// A request whose data only the run finds wrong (an index out of range in
/// a Gather) fails the batch's run; each request then runs alone and only
/// that one gets the error.
TEST_F(BackendTest, AFailureInsideABatchFailsOnlyItsRequest) {
  ASSERT_EQ(loadModel(artifacts().lookupCpu,
                      [] {
                        json config = headsConfig("lookup_cpu", 8, "lookup.so");
                        config["input"][0] = {{"name", "idx"},
                                              {"data_type", "TYPE_INT64"},
                                              {"dims", json::array()}};
                        config["output"] =
                            json::array({{{"name", "rows"},
                                          {"data_type", "TYPE_FP32"},
                                          {"dims", json::array({"4"})}}});
                        return config;
                      }()),
            "");
  ASSERT_EQ(addInstance(TRITONSERVER_INSTANCEGROUPKIND_CPU, 0), "");
  auto lookup = [](const std::string &id, std::vector<int64_t> &idx) {
    auto made = std::make_unique<TRITONBACKEND_Request>();
    made->id = id;
    auto input = std::make_unique<TRITONBACKEND_Input>();
    input->name = "idx";
    input->datatype = TRITONSERVER_TYPE_INT64;
    input->shape = {int64_t(idx.size())};
    input->buffers = {{idx.data(), idx.size() * sizeof(int64_t)}};
    made->inputs.push_back(std::move(input));
    made->requestedOutputs = {"rows"};
    return made;
  };
  std::vector<int64_t> a = {1, 3}, bad = {2, 42}, c = {0};
  auto ra = lookup("a", a), rbad = lookup("bad", bad), rc = lookup("c", c);
  execute({ra.get(), rbad.get(), rc.get()});
  std::string error = errorOf(rbad.get());
  EXPECT_TRUE(startsWith(error, "graphc: ")) << error;
  EXPECT_TRUE(contains(error, "42")) << error;
  EXPECT_FALSE(succeeded(rbad.get()));
  // The table row r is (r, r + 0.5, r + 1, r + 1.5) (make_backend_models.py).
  for (auto [req, idx] : {std::pair{ra.get(), &a}, std::pair{rc.get(), &c}}) {
    SCOPED_TRACE(req->id);
    EXPECT_EQ(errorOf(req), "");
    EXPECT_TRUE(succeeded(req));
    TRITONBACKEND_Response *sent = response(req);
    ASSERT_NE(sent, nullptr);
    ASSERT_EQ(sent->outputs.size(), 1u);
    const auto &output = sent->outputs[0];
    ASSERT_EQ(output->shape,
              (std::vector<int64_t>{int64_t(idx->size()), kClasses}));
    std::vector<float> got(idx->size() * kClasses), want;
    std::memcpy(got.data(), output->buffer, got.size() * sizeof(float));
    for (int64_t i : *idx)
      for (int k = 0; k < kClasses; ++k)
        want.push_back(float(i) + 0.5f * float(k));
    EXPECT_EQ(got, want);
  }
  EXPECT_EQ(batchRows(), 3u);
}

//===- Configurations that do not describe the artifact -------------------===//

TEST_F(BackendTest, ConfigWithoutTheArtifactParameter) {
  json config = headsConfig("heads_cpu", 8);
  config.erase("parameters");
  std::string error = loadModel(artifacts().headsCpu, config);
  EXPECT_TRUE(startsWith(error, "graphc: ")) << error;
  EXPECT_TRUE(contains(error, "graphc_artifact")) << error;
  EXPECT_EQ(model.state, nullptr);
}

TEST_F(BackendTest, ConfigBatchingAModelWithoutABatchDim) {
  std::string error =
      loadModel(artifacts().fixedCpu, headsConfig("fixed_cpu", 8, "fixed.so"));
  EXPECT_TRUE(startsWith(error, "graphc: ")) << error;
  EXPECT_TRUE(contains(error, "max_batch_size 8")) << error;
  // The runtime's reason (graphc_model_batch_dim).
  EXPECT_TRUE(contains(error, "the model has no batch dim: it has no "
                              "bucketed dims"))
      << error;
  // Without batching it loads and runs requests of the model's shape.
  ASSERT_EQ(
      loadModel(artifacts().fixedCpu, headsConfig("fixed_cpu", 0, "fixed.so")),
      "");
  ASSERT_EQ(addInstance(TRITONSERVER_INSTANCEGROUPKIND_CPU, 0), "");
  direct = std::make_unique<Direct>(artifacts().fixedCpu + "/1/fixed.so");
  std::vector<float> x1 = rowsOf(2, 11), x2 = rowsOf(2, 12);
  auto r1 = request("r1", x1, 2), r2 = request("r2", x2, 2);
  execute({r1.get(), r2.get()});
  expectMatchesDirect(r1.get(), x1, 2);
  expectMatchesDirect(r2.get(), x2, 2);
}

TEST_F(BackendTest, ConfigInputTypeOtherThanTheArtifacts) {
  json config = headsConfig("heads_cpu", 8);
  config["input"][0]["data_type"] = "TYPE_FP16";
  std::string error = loadModel(artifacts().headsCpu, config);
  EXPECT_TRUE(startsWith(error, "graphc: ")) << error;
  EXPECT_TRUE(contains(error, "input 'x'")) << error;
  EXPECT_TRUE(contains(error, "TYPE_FP16")) << error;
  EXPECT_TRUE(contains(error, "TYPE_FP32")) << error;
}

TEST_F(BackendTest, ConfigOutputsOtherThanTheArtifacts) {
  json config = headsConfig("heads_cpu", 8);
  json extra = config["output"][1];
  config["output"].erase(1);
  std::string error = loadModel(artifacts().headsCpu, config);
  EXPECT_TRUE(startsWith(error, "graphc: ")) << error;
  EXPECT_TRUE(contains(error, "no output 'probs'")) << error;
  extra["name"] = "extra";
  config = headsConfig("heads_cpu", 8);
  config["output"].push_back(extra);
  error = loadModel(artifacts().headsCpu, config);
  EXPECT_TRUE(startsWith(error, "graphc: ")) << error;
  EXPECT_TRUE(contains(error, "lists 3 outputs")) << error;
}

TEST_F(BackendTest, CpuModelOnAGpuInstance) {
  ASSERT_EQ(loadModel(artifacts().headsCpu, headsConfig("heads_cpu", 8)), "");
  std::string error = addInstance(TRITONSERVER_INSTANCEGROUPKIND_GPU, 0);
  EXPECT_TRUE(startsWith(error, "graphc: ")) << error;
  EXPECT_TRUE(contains(error, "KIND_GPU")) << error;
  EXPECT_EQ(instance.state, nullptr);
}

TEST_F(BackendTest, CudaModelOnACpuInstance) {
  ASSERT_EQ(loadModel(artifacts().headsCuda, headsConfig("heads_cuda", 8)), "");
  std::string error = addInstance(TRITONSERVER_INSTANCEGROUPKIND_CPU, 0);
  EXPECT_TRUE(startsWith(error, "graphc: ")) << error;
  EXPECT_TRUE(contains(error, "KIND_CPU")) << error;
  EXPECT_EQ(instance.state, nullptr);
}

//===- GPU instances (the emulated GPU) -----------------------------------===//

TEST_F(BackendTest, CudaInstanceWithHostMemory) {
  loadCudaModel();
  // The batch ran on the emulated GPU as one run: one replay of the
  // session's graph for the 6 rows (run alone, each request would be one).
  EXPECT_EQ(checkGpuInstanceWithHostMemory(), 1);

  // One request alone takes host memory too.
  std::vector<float> x4 = rowsOf(2, 16);
  auto r4 = request("r4", x4, 2);
  execute({r4.get()});
  expectMatchesDirect(r4.get(), x4, 2);
  EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
}

TEST_F(BackendTest, CudaInstanceWithGpuMemory) {
  loadCudaModel();
  checkGpuInstanceWithGpuMemory();
  EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
}

/// Pinned host memory is host memory to the backend.
TEST_F(BackendTest, CudaInstanceWithPinnedHostInputs) {
  loadCudaModel();
  server().outputMemory = OutputMemory::Host;
  std::vector<float> x1 = rowsOf(2, 25), x2 = rowsOf(3, 26);
  auto r1 = request("pinned", x1, 2), r2 = request("pageable", x2, 3);
  r1->inputs[0]->buffers[0].memoryType = TRITONSERVER_MEMORY_CPU_PINNED;
  execute({r1.get(), r2.get()});
  expectMatchesDirect(r1.get(), x1, 2);
  expectMatchesDirect(r2.get(), x2, 3);
  EXPECT_EQ(batchRows(), 5u);
}

/// Two KIND_GPU instances of one model, on GPUs 0 and 1: each runs on its
/// own GPU, with its inputs and outputs in that GPU's memory.
TEST_F(BackendTest, CudaInstancesOnTwoGpus) {
  loadCudaModel();
  direct1 = std::make_unique<Direct>(artifacts().headsCuda + "/1/heads.so", 1);
  second.name = "heads_cuda_1";
  second.kind = TRITONSERVER_INSTANCEGROUPKIND_GPU;
  second.deviceId = 1;
  second.model = &model;
  ASSERT_EQ(takeError(TRITONBACKEND_ModelInstanceInitialize(&second)), "");
  secondLoaded = true;
  std::vector<float> x1 = rowsOf(3, 27), x2 = rowsOf(2, 28), x3 = rowsOf(1, 29);
  auto r1 = request("GPU 1 input", x1, 3), r2 = request("host input", x2, 2),
       r3 = request("GPU 0", x3, 1);
  FakeBuffer &buffer = r1->inputs[0]->buffers[0];
  buffer.data = direct1->upload(x1);
  buffer.memoryType = TRITONSERVER_MEMORY_GPU;
  buffer.memoryTypeId = 1;
  execute({r1.get(), r2.get()}, &second);
  FakeBuffer &buffer0 = r3->inputs[0]->buffers[0];
  buffer0.data = direct->upload(x3);
  buffer0.memoryType = TRITONSERVER_MEMORY_GPU;
  execute({r3.get()});
  expectMatchesDirect(r1.get(), x1, 3);
  expectMatchesDirect(r2.get(), x2, 2);
  expectMatchesDirect(r3.get(), x3, 1);
  for (auto [req, device] :
       {std::pair{r1.get(), 1}, std::pair{r2.get(), 1}, std::pair{r3.get(), 0}})
    for (const auto &output : response(req)->outputs) {
      EXPECT_EQ(output->memoryType, TRITONSERVER_MEMORY_GPU);
      EXPECT_EQ(output->memoryTypeId, device) << req->id;
    }
  EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
}

/// Inputs or outputs in the memory of another GPU than the instance's are
/// that request's error.
TEST_F(BackendTest, CudaInstanceRefusesAnotherGpusMemory) {
  loadCudaModel();
  std::vector<float> x1 = rowsOf(2, 21), x2 = rowsOf(1, 22);
  auto r1 = request("GPU 1 input", x1, 2), r2 = request("good", x2, 1);
  FakeBuffer &buffer = r1->inputs[0]->buffers[0];
  buffer.data = direct->upload(x1);
  buffer.memoryType = TRITONSERVER_MEMORY_GPU;
  buffer.memoryTypeId = 1;
  execute({r1.get(), r2.get()});
  std::string error = errorOf(r1.get());
  EXPECT_TRUE(startsWith(error, "graphc: ")) << error;
  EXPECT_TRUE(contains(error, "GPU 1")) << error;
  EXPECT_TRUE(contains(error, "GPU 0")) << error;
  expectMatchesDirect(r2.get(), x2, 1);
}

//===- GPU instances on a real GPU ----------------------------------------===//
//
// BackendGpu repeats the GPU instance cases on the machine's CUDA device 0,
// with the heads model compiled for its SM (no emulation), checked against
// direct runs of that artifact. The process runs them only when started
// with --real-cuda (ctest triton-backend-gpu-test; stage triton-backend-gpu
// of the device bundle's run.sh), which keeps main() from pointing the
// runtime at the fake driver; without a CUDA device they skip saying so.

/// The heads model for CUDA device 0: its model directory, or why there is
/// none (`skip`: no device to run it; `error`: it did not compile).
struct GpuArtifact {
  std::string skip, error, dir;
};

const GpuArtifact &gpuArtifact() {
  static const GpuArtifact made = [] {
    GpuArtifact a;
    if (!realCuda) {
      a.skip = "the fake CUDA driver is loaded: BackendGpu runs with "
               "--real-cuda";
      return a;
    }
    graphc_device_info info;
    if (graphc_status status = graphc_cuda_device_info(0, &info)) {
      a.skip = std::string("no CUDA device: ") + graphc_status_message(status);
      graphc_status_free(status);
      return a;
    }
    std::string work = workDir() + "/gpu", sm = "sm_" + std::to_string(info.sm);
    if (makeOnnx(work, a.error))
      compileModel(work, "heads_" + sm, "heads",
                   "--target cuda --arch " + sm + " --buckets batch=1,2,4,8",
                   a.dir, a.error);
    return a;
  }();
  return made;
}

/// Page-locked host memory from the CUDA driver (cuMemHostAlloc, portable:
/// pinned for every context), as in Triton's pinned memory pool.
class PinnedHost {
public:
  explicit PinnedHost(size_t bytes) {
    driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!driver) {
      ADD_FAILURE() << "no libcuda.so.1: " << dlerror();
      return;
    }
    auto init = symbol<int (*)(unsigned)>("cuInit");
    auto get = symbol<int (*)(int *, int)>("cuDeviceGet");
    auto retain = symbol<int (*)(void **, int)>("cuDevicePrimaryCtxRetain");
    auto push = symbol<int (*)(void *)>("cuCtxPushCurrent_v2");
    auto pop = symbol<int (*)(void **)>("cuCtxPopCurrent_v2");
    auto alloc = symbol<int (*)(void **, size_t, unsigned)>("cuMemHostAlloc");
    free = symbol<int (*)(void *)>("cuMemFreeHost");
    if (!init || !get || !retain || !push || !pop || !alloc || !free)
      return;
    void *context = nullptr, *popped = nullptr;
    const unsigned portable = 0x01; // CU_MEMHOSTALLOC_PORTABLE
    int result = init(0);
    if (!result)
      result = get(&device, 0);
    if (!result)
      result = retain(&context, device);
    if (!result && !(result = push(context))) {
      result = alloc(&data, bytes, portable);
      pop(&popped);
    }
    EXPECT_EQ(result, 0) << "cuMemHostAlloc of " << bytes << " bytes";
  }
  ~PinnedHost() {
    // Portable pinned memory frees in any context; the primary context
    // stays retained until the process ends (the runtime uses it too).
    if (data) {
      EXPECT_EQ(free(data), 0) << "cuMemFreeHost";
    }
    if (driver)
      dlclose(driver);
  }
  PinnedHost(const PinnedHost &) = delete;

  void *data = nullptr;

private:
  template <typename Fn> Fn symbol(const char *name) {
    auto fn = reinterpret_cast<Fn>(dlsym(driver, name));
    EXPECT_NE(fn, nullptr) << "libcuda.so.1 has no " << name;
    return fn;
  }
  void *driver = nullptr;
  int device = 0;
  int (*free)(void *) = nullptr;
};

class BackendGpu : public BackendTest {
protected:
  void SetUp() override {
    const GpuArtifact &a = gpuArtifact();
    if (!a.skip.empty())
      GTEST_SKIP() << a.skip;
    ASSERT_EQ(a.error, "");
    startBackend();
    loadCudaModel(a.dir);
  }
  void TearDown() override {
    if (IsSkipped())
      return;
    BackendTest::TearDown();
    // The real driver ran it all: the fake one linked into this binary
    // was never called.
    EXPECT_EQ(fakecu_calls("cuInit"), 0);
  }
};

TEST_F(BackendGpu, HostMemory) {
  checkGpuInstanceWithHostMemory();
  // One request alone; then more rows than the largest bucket (8), in parts.
  std::vector<float> x4 = rowsOf(2, 16), x5 = rowsOf(5, 23), x6 = rowsOf(6, 24);
  auto r4 = request("r4", x4, 2);
  execute({r4.get()});
  expectMatchesDirect(r4.get(), x4, 2);
  auto r5 = request("5 rows", x5, 5), r6 = request("6 rows", x6, 6);
  execute({r5.get(), r6.get()});
  expectMatchesDirect(r5.get(), x5, 5);
  expectMatchesDirect(r6.get(), x6, 6);
  EXPECT_EQ(batchRows(), 19u);
}

TEST_F(BackendGpu, GpuMemory) { checkGpuInstanceWithGpuMemory(); }

TEST_F(BackendGpu, PinnedHostInputs) {
  server().outputMemory = OutputMemory::Host;
  std::vector<float> x1 = rowsOf(2, 25), x2 = rowsOf(3, 26);
  PinnedHost pinned(x1.size() * sizeof(float));
  ASSERT_NE(pinned.data, nullptr);
  std::memcpy(pinned.data, x1.data(), x1.size() * sizeof(float));
  auto r1 = request("pinned", x1, 2), r2 = request("pageable", x2, 3);
  r1->inputs[0]->buffers[0].data = pinned.data;
  r1->inputs[0]->buffers[0].memoryType = TRITONSERVER_MEMORY_CPU_PINNED;
  execute({r1.get(), r2.get()});
  expectMatchesDirect(r1.get(), x1, 2);
  expectMatchesDirect(r2.get(), x2, 3);
  EXPECT_EQ(batchRows(), 5u);
}

} // namespace

//===- Data-dependent output dims (extent_model) --------------------------===//

/// extent_model (test/runtime/models/extent_model.c): kept: float32[n] and
/// where: int64[2,n] for x: float32[2,4], n the positive elements of x,
/// written at the bounds [8] and [2,8].
class BackendExtents : public BackendTest {
protected:
  // The hand-written models need none of the compiled ones.
  void SetUp() override { startBackend(); }

  /// `artifact` (a test model) as the version 1 of model directory `name`.
  std::string modelDir(const std::string &artifact, const std::string &name) {
    std::string dir = workDir() + "/" + name;
    std::filesystem::create_directories(dir + "/1");
    std::filesystem::copy_file(
        std::string(GRAPHC_TEST_MODEL_DIR) + "/" + artifact + ".so",
        dir + "/1/extent.so",
        std::filesystem::copy_options::overwrite_existing);
    return dir;
  }

  /// config.pbtxt as `graphc triton` writes it: the data-dependent dims -1.
  static json extentConfig(const std::string &name, int maxBatchSize = 0) {
    auto tensor = [](const char *name, const char *type, json dims) {
      return json{{"name", name}, {"data_type", type}, {"dims", dims}};
    };
    return {
        {"name", name},
        {"backend", "graphc"},
        {"max_batch_size", maxBatchSize},
        {"input", json::array({tensor("x", "TYPE_FP32", {"2", "4"})})},
        {"output", json::array({tensor("kept", "TYPE_FP32", {"-1"}),
                                tensor("where", "TYPE_INT64", {"2", "-1"})})},
        {"parameters", {{"graphc_artifact", {{"string_value", "extent.so"}}}}},
    };
  }

  static std::unique_ptr<TRITONBACKEND_Request>
  extentRequest(const std::string &id, const std::vector<float> &x,
                std::vector<std::string> outputs = {"kept", "where"}) {
    auto made = std::make_unique<TRITONBACKEND_Request>();
    made->id = id;
    auto input = std::make_unique<TRITONBACKEND_Input>();
    input->name = "x";
    input->shape = {2, 4};
    input->buffers = {{x.data(), x.size() * sizeof(float)}};
    made->inputs.push_back(std::move(input));
    made->requestedOutputs = std::move(outputs);
    return made;
  }

  /// Output `name` of the response to `req` as host bytes; checks its
  /// shape and size.
  std::vector<char> bytesOf(TRITONBACKEND_Request *req, const std::string &name,
                            const std::vector<int64_t> &shape,
                            size_t elementBytes) {
    TRITONBACKEND_Response *sent = response(req);
    if (!sent)
      return {};
    for (const auto &output : sent->outputs) {
      if (output->name != name)
        continue;
      EXPECT_EQ(output->shape, shape) << name;
      size_t bytes = elementBytes;
      for (int64_t d : shape)
        bytes *= size_t(d);
      EXPECT_EQ(output->byteSize, bytes) << name;
      std::vector<char> host(bytes);
      if (bytes && output->memoryType == TRITONSERVER_MEMORY_GPU)
        direct->ok(graphc_session_download(direct->session, host.data(),
                                           output->buffer, bytes));
      else if (bytes)
        std::memcpy(host.data(), output->buffer, bytes);
      return host;
    }
    ADD_FAILURE() << req->id << " has no output '" << name << "'";
    return {};
  }

  /// The response to `req` holds what keep_positive finds in `x`: the
  /// outputs `asked` at the dims found.
  void expectKept(TRITONBACKEND_Request *req, const std::vector<float> &x,
                  std::vector<std::string> asked = {"kept", "where"}) {
    SCOPED_TRACE(req->id);
    EXPECT_EQ(errorOf(req), "");
    std::vector<float> kept;
    std::vector<int64_t> where[2];
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i] > 0) {
        kept.push_back(x[i]);
        where[0].push_back(int64_t(i / 4));
        where[1].push_back(int64_t(i % 4));
      }
    int64_t n = int64_t(kept.size());
    EXPECT_EQ(response(req)->outputs.size(), asked.size());
    for (const std::string &name : asked) {
      if (name == "kept") {
        std::vector<char> bytes = bytesOf(req, "kept", {n}, sizeof(float));
        std::vector<float> got(kept.size());
        if (bytes.size() == got.size() * sizeof(float))
          std::memcpy(got.data(), bytes.data(), bytes.size());
        EXPECT_EQ(got, kept);
        continue;
      }
      std::vector<char> bytes = bytesOf(req, "where", {2, n}, sizeof(int64_t));
      std::vector<int64_t> got(2 * kept.size()), want = where[0];
      want.insert(want.end(), where[1].begin(), where[1].end());
      if (bytes.size() == got.size() * sizeof(int64_t))
        std::memcpy(got.data(), bytes.data(), bytes.size());
      EXPECT_EQ(got, want);
    }
  }

  const std::vector<std::vector<float>> cases = {
      {1, -2, 3, 0, -5, 6, 7, -8},
      {-1, -2, -3, 0, -5, -6, -7, -8},
      {1, 2, 3, 4, 5, 6, 7, 8}};
};

/// extent_model_cuda's kernel on the fake driver (extent_kernel.h's).
void keepPositive(const fakecu_launch *launch) {
  extent_keep_positive(*static_cast<const float **>(launch->params[0]), 8,
                       *static_cast<float **>(launch->params[1]),
                       *static_cast<int64_t **>(launch->params[2]),
                       *static_cast<int64_t **>(launch->params[3]));
}

TEST_F(BackendExtents, CpuResponsesHaveTheDimsEachRunFound) {
  std::string dir = modelDir("extent_model", "extent_cpu");
  // One run finds one extent: Triton may not batch requests.
  std::string error = loadModel(dir, extentConfig("extent_cpu", 4));
  EXPECT_TRUE(contains(error, "output 'kept' has data-dependent dim 0"))
      << error;
  ASSERT_EQ(loadModel(dir, extentConfig("extent_cpu")), "");
  ASSERT_EQ(addInstance(TRITONSERVER_INSTANCEGROUPKIND_CPU, 0), "");
  auto r1 = extentRequest("some", cases[0]),
       r2 = extentRequest("none", cases[1]),
       r3 = extentRequest("all", cases[2]),
       r4 = extentRequest("where only", cases[0], {"where"});
  // A count past the bound (extent_kernel.h's hook) fails its request
  // alone.
  std::vector<float> past = cases[2];
  past[0] = 1000;
  auto r5 = extentRequest("past the bound", past);
  execute({r1.get(), r2.get(), r3.get(), r4.get(), r5.get()});
  expectKept(r1.get(), cases[0]);
  expectKept(r2.get(), cases[1]);
  expectKept(r3.get(), cases[2]);
  expectKept(r4.get(), cases[0], {"where"});
  EXPECT_TRUE(contains(errorOf(r5.get()), "the run found extent 9, outside "
                                          "[0, 8]"))
      << errorOf(r5.get());
  EXPECT_FALSE(succeeded(r5.get()));
}

TEST_F(BackendExtents, GpuResponsesInHostAndGpuMemory) {
  fakecu_reset();
  static const unsigned params[] = {8, 8, 8, 8};
  fakecu_register_kernel("keep_positive_8", keepPositive, 4, params);
  std::string dir = modelDir("extent_model_cuda", "extent_cuda");
  direct = std::make_unique<Direct>(dir + "/1/extent.so");
  server().allocateGpu = [this](uint64_t bytes, int64_t device) {
    return gpu(device).allocate(bytes);
  };
  server().freeGpu = [this](void *buffer, int64_t device) {
    gpu(device).release(buffer);
  };
  ASSERT_EQ(loadModel(dir, extentConfig("extent_cuda")), "");
  ASSERT_EQ(addInstance(TRITONSERVER_INSTANCEGROUPKIND_GPU, 0), "");
  // The server tells requests apart by address: all of them stay alive.
  std::vector<std::unique_ptr<TRITONBACKEND_Request>> made;
  for (OutputMemory memory : {OutputMemory::Host, OutputMemory::Gpu}) {
    server().outputMemory = memory;
    auto *r1 = made.emplace_back(extentRequest("some", cases[0])).get();
    auto *r2 = made.emplace_back(extentRequest("none", cases[1])).get();
    auto *r3 = made.emplace_back(extentRequest("all", cases[2])).get();
    execute({r1, r2, r3});
    expectKept(r1, cases[0]);
    expectKept(r2, cases[1]);
    expectKept(r3, cases[2]);
    for (const auto &output : response(r1)->outputs)
      EXPECT_EQ(output->memoryType, memory == OutputMemory::Gpu
                                        ? TRITONSERVER_MEMORY_GPU
                                        : TRITONSERVER_MEMORY_CPU);
  }
  EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
}

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i)
    realCuda |= std::strcmp(argv[i], "--real-cuda") == 0;
  if (realCuda) {
    // The real driver and cuBLASLt: unless filtered otherwise, only the
    // cases for them (the others want the fake driver), and only those
    // cases without it.
    if (::testing::GTEST_FLAG(filter) == "*")
      ::testing::GTEST_FLAG(filter) = "BackendGpu.*";
  } else {
    if (::testing::GTEST_FLAG(filter) == "*")
      ::testing::GTEST_FLAG(filter) = "-BackendGpu.*";
    // Before the runtime loads a driver: the fake CUDA driver, which is also
    // the fake cuBLASLt (the cuda model's GEMMs).
    setenv("GRAPHC_CUDA_DRIVER_LIBRARY", GRAPHC_FAKE_CUDA_LIBRARY, 0);
    setenv("GRAPHC_CUBLASLT_LIBRARY", GRAPHC_FAKE_CUDA_LIBRARY, 0);
  }
  return RUN_ALL_TESTS();
}
