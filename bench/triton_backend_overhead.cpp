//===- triton_backend_overhead.cpp - the native backend's own cost --------===//
//
// What libtriton_graphc.so adds to a run, without Triton's frontends: the
// backend's sources (runtime/triton/Backend.cpp, Execute.cpp) linked with
// the fake server of triton-backend-test (test/triton/FakeTritonServer.cpp),
// as that test links them, and timed against direct graphc_session_run
// calls on the same cpu artifact, in one loop on one thread:
//
//   direct1   graphc_session_run of one row, on a session of its own;
//   control1  the same on a second session of its own (the artifact loaded
//             again, as the backend loads it): control1 - direct1 is what
//             two sessions differ by with no backend between, the noise
//             floor of execute1 - direct1;
//   execute1  TRITONBACKEND_ModelInstanceExecute of one request of one row
//             (inputs and outputs in host memory);
//   direct8   graphc_session_run of 8 rows;
//   execute8  TRITONBACKEND_ModelInstanceExecute of 8 requests of 1 row
//             (one graphc_session_run_batch of 8 rows);
//   control8  direct8 on the second session;
//   fake1     the fake server's calls that execute1 makes, made without the
//             backend: the fake's own share of execute1.
//
// The timed region of each execute is the Execute call alone: reading the
// requests, graphc_model_output_dims, creating each response and its
// outputs (the fake's ResponseNew, ResponseOutput and OutputBuffer, which
// allocate the response, its output objects and their host buffers, as
// Triton does), the run, ResponseSend, the statistics and the releases.
// Outside it: making the request objects (made once, their release counts
// reset before each call), checking that every request was answered once
// without error and released, and destroying the responses. Each iteration runs
// every case once, direct, execute and control in rotating order (the one-row
// cases, then the 8-row ones), so that cache and clock effects hit each alike;
// the first --warmup iterations are not recorded. "paired" figures are the
// median of the per-iteration differences.
// Before timing, the backend's outputs are checked to equal the direct runs'.
//
//   ninja -C build triton-backend-overhead
//   build/bin/triton-backend-overhead [--iterations N] [--warmup N]
//       [--json FILE] ARTIFACT.so...
//
// Each artifact is a cpu artifact with a batch dim (a padded, splittable
// bucketed dim on axis 0 of every input and output) bucketed to 8 rows or
// more, its other dims static.
//
//===----------------------------------------------------------------------===//

#include "FakeTritonServer.h"

#include "graphc/runtime.h"
#include "runtime/src/Dtype.h"
#include "runtime/triton/TritonConfig.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

using namespace faketriton;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kBatch = 8;

/// The model directories' root, removed on exit.
fs::path workDir;

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "triton-backend-overhead: error: %s\n", message.c_str());
  if (!workDir.empty())
    fs::remove_all(workDir);
  std::exit(1);
}

void check(graphc_status status, const std::string &what) {
  if (!status)
    return;
  std::string message = graphc_status_message(status);
  graphc_status_free(status);
  fail(what + ": " + message);
}

void check(TRITONSERVER_Error *error, const std::string &what) {
  if (std::string message = takeError(error); !message.empty())
    fail(what + ": " + message);
}

uint64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string loadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

//===- The artifact -------------------------------------------------------===//

/// Host tensors of the model's inputs and outputs for `rows` rows.
struct Tensors {
  std::vector<std::vector<unsigned char>> data; ///< inputs, then outputs
  std::vector<std::vector<int64_t>> dims;
  std::vector<DLTensor> inputs, outputs;
};

/// An artifact loaded with a session of its own: the direct runs, and what
/// the backend's requests and config are made from.
struct Artifact {
  explicit Artifact(const std::string &path) : path(path) {
    graphc_model_options options;
    graphc_model_options_init(&options);
    check(graphc_model_load(path.c_str(), &options, &model), path);
    if (graphc_model_target(model) != GRAPHC_TARGET_CPU)
      fail(path + ": not a cpu artifact (compile it with --target cpu)");
    graphc_session_options sessionOptions;
    graphc_session_options_init(&sessionOptions);
    check(graphc_session_create(model, &sessionOptions, &session), path);
    for (int32_t i = 0; i < graphc_model_input_count(model); ++i) {
      graphc_tensor_info info;
      check(graphc_model_input_info(model, i, &info), path);
      inputs.push_back(info);
      inputNames.push_back(info.name);
      if (info.rank < 1 || info.dims[0] >= 0)
        fail(path + ": input '" + info.name + "' has no dynamic axis 0");
      for (int32_t d = 1; d < info.rank; ++d)
        if (info.dims[d] < 0)
          fail(path + ": input '" + info.name + "' has a dynamic dim " +
               std::to_string(d) + "; only axis 0 (the batch) may be");
    }
    for (int32_t o = 0; o < graphc_model_output_count(model); ++o) {
      graphc_tensor_info info;
      check(graphc_model_output_info(model, o, &info), path);
      outputs.push_back(info);
    }
    for (int32_t d = 0; d < graphc_model_bucket_dim_count(model); ++d) {
      graphc_bucket_dim_info dim;
      check(graphc_model_bucket_dim_info(model, d, &dim), path);
      if (dim.pad_safe && dim.splittable &&
          std::strcmp(dim.name, inputs[0].dim_names[0]) == 0)
        maxBatchSize = *std::max_element(dim.sizes, dim.sizes + dim.num_sizes);
    }
    if (maxBatchSize < kBatch)
      fail(path +
           ": needs a batch dim (padded, splittable, axis 0) with "
           "buckets up to " +
           std::to_string(kBatch) + " rows or more (--buckets batch=...)");
  }
  ~Artifact() {
    graphc_session_release(session);
    graphc_model_release(model);
  }
  Artifact(const Artifact &) = delete;

  /// Inputs of `rows` rows (float inputs: values in [-1.5, 1.5), others
  /// zero) and room for the outputs.
  Tensors tensors(int64_t rows) const {
    Tensors t;
    size_t numInputs = inputs.size(), numOutputs = outputs.size();
    t.data.resize(numInputs + numOutputs);
    t.dims.resize(numInputs + numOutputs);
    std::vector<int32_t> ranks;
    std::vector<const int64_t *> inputDims;
    for (size_t i = 0; i < numInputs; ++i) {
      const graphc_tensor_info &info = inputs[i];
      t.dims[i].assign(info.dims, info.dims + info.rank);
      t.dims[i][0] = rows;
      ranks.push_back(info.rank);
      inputDims.push_back(t.dims[i].data());
    }
    std::vector<int64_t *> outputDims;
    for (size_t o = 0; o < numOutputs; ++o) {
      t.dims[numInputs + o].resize(outputs[o].rank);
      outputDims.push_back(t.dims[numInputs + o].data());
    }
    check(graphc_model_output_dims(model, int32_t(numInputs), inputNames.data(),
                                   ranks.data(), inputDims.data(),
                                   outputDims.data()),
          path + ": output dims for " + std::to_string(rows) + " rows");
    for (size_t k = 0; k < numInputs + numOutputs; ++k) {
      const graphc_tensor_info &info =
          k < numInputs ? inputs[k] : outputs[k - numInputs];
      uint64_t count = 1;
      for (int64_t d : t.dims[k])
        count *= uint64_t(d);
      t.data[k].assign(count * graphc_dtype_size(info.dtype), 0);
      if (k < numInputs && info.dtype == graphc::rt::kFloat) {
        auto *values = reinterpret_cast<float *>(t.data[k].data());
        for (uint64_t e = 0; e < count; ++e)
          values[e] = float((e * 11 + k * 37) % 23) / 7.0f - 1.5f;
      }
      DLTensor tensor{};
      tensor.data = t.data[k].data();
      tensor.device = {kDLCPU, 0};
      tensor.ndim = info.rank;
      tensor.shape = t.dims[k].data();
      tensor.dtype = graphc::rt::dlpackFromDtype(info.dtype);
      (k < numInputs ? t.inputs : t.outputs).push_back(tensor);
    }
    return t;
  }

  void run(Tensors &t) {
    check(graphc_session_run(session, t.inputs.data(), int32_t(t.inputs.size()),
                             inputNames.data(), t.outputs.data(),
                             int32_t(t.outputs.size())),
          path + ": graphc_session_run");
  }

  /// config.pbtxt in Triton's JSON form, as `graphc triton` writes it.
  json config(const std::string &name) const {
    json config = {
        {"name", name},
        {"backend", "graphc"},
        {"max_batch_size", maxBatchSize},
        {"parameters",
         {{graphc::triton::kArtifactParameter,
           {{"string_value", fs::path(path).filename().string()}}}}}};
    for (auto [kind, infos] :
         {std::pair{"input", &inputs}, std::pair{"output", &outputs}}) {
      json list = json::array();
      for (const graphc_tensor_info &info : *infos) {
        json dims = json::array();
        for (int32_t d = 1; d < info.rank; ++d)
          dims.push_back(std::to_string(info.dims[d]));
        list.push_back(
            {{"name", info.name},
             {"data_type", graphc::triton::tritonDtypeOf(info.dtype)->config},
             {"dims", dims}});
      }
      config[kind] = list;
    }
    return config;
  }

  std::string path;
  graphc_model *model = nullptr;
  graphc_session *session = nullptr;
  std::vector<graphc_tensor_info> inputs, outputs;
  std::vector<const char *> inputNames;
  int64_t maxBatchSize = 0;
};

//===- Playing Triton -----------------------------------------------------===//

/// Requests of one row each over the rows of `t`'s inputs, asking for
/// every output.
std::vector<std::unique_ptr<TRITONBACKEND_Request>>
requestsOver(const Artifact &artifact, const Tensors &t) {
  std::vector<std::unique_ptr<TRITONBACKEND_Request>> requests;
  int64_t rows = t.dims[0][0];
  for (int64_t r = 0; r < rows; ++r) {
    auto request = std::make_unique<TRITONBACKEND_Request>();
    request->id = "r" + std::to_string(r);
    for (size_t i = 0; i < artifact.inputs.size(); ++i) {
      const graphc_tensor_info &info = artifact.inputs[i];
      auto input = std::make_unique<TRITONBACKEND_Input>();
      input->name = info.name;
      input->datatype = graphc::triton::tritonDtypeOf(info.dtype)->server;
      input->shape = t.dims[i];
      input->shape[0] = 1;
      uint64_t rowBytes = t.data[i].size() / uint64_t(rows);
      input->buffers = {{t.data[i].data() + r * rowBytes, rowBytes}};
      request->inputs.push_back(std::move(input));
    }
    for (const graphc_tensor_info &info : artifact.outputs)
      request->requestedOutputs.push_back(info.name);
    requests.push_back(std::move(request));
  }
  return requests;
}

/// A Triton model of the artifact with one KIND_CPU instance, in a model
/// directory of its own (version 1 links to the artifact).
struct Served {
  Served(const Artifact &artifact, const std::string &name,
         const fs::path &work) {
    fs::path version = work / name / "1";
    fs::create_directories(version);
    // The artifact, and its weights side file when it has one.
    for (std::string suffix : {"", ".weights"}) {
      fs::path file = fs::absolute(artifact.path + suffix);
      if (suffix.empty() || fs::exists(file))
        fs::create_symlink(file, version / file.filename());
    }
    model.name = name;
    model.repository = (work / name).string();
    model.config = artifact.config(name).dump();
    check(TRITONBACKEND_ModelInitialize(&model), "ModelInitialize " + name);
    instance.name = name + "_0";
    instance.kind = TRITONSERVER_INSTANCEGROUPKIND_CPU;
    instance.model = &model;
    check(TRITONBACKEND_ModelInstanceInitialize(&instance),
          "ModelInstanceInitialize " + name);
  }
  ~Served() {
    check(TRITONBACKEND_ModelInstanceFinalize(&instance),
          "ModelInstanceFinalize");
    check(TRITONBACKEND_ModelFinalize(&model), "ModelFinalize");
  }

  /// Execute of `requests`, timed around the call alone; then checks that
  /// each was answered once without error and released, and forgets the
  /// responses and statistics (which the server keeps).
  uint64_t execute(std::vector<TRITONBACKEND_Request *> &requests) {
    for (TRITONBACKEND_Request *request : requests)
      request->releases = request->responsesCreated = 0;
    uint64_t start = nowNs();
    TRITONSERVER_Error *error = TRITONBACKEND_ModelInstanceExecute(
        &instance, requests.data(), uint32_t(requests.size()));
    uint64_t elapsed = nowNs() - start;
    check(error, "ModelInstanceExecute");
    Server &fake = server();
    if (!fake.violations.empty())
      fail("the fake server saw: " + fake.violations.front());
    if (fake.responses.size() != requests.size())
      fail("ModelInstanceExecute sent " +
           std::to_string(fake.responses.size()) + " responses to " +
           std::to_string(requests.size()) + " requests");
    for (size_t r = 0; r < requests.size(); ++r) {
      const TRITONBACKEND_Response &response = *fake.responses[r];
      if (!response.sent || response.request != requests[r] ||
          requests[r]->releases != 1)
        fail("request " + requests[r]->id + " not answered and released");
      if (response.error)
        fail("request " + requests[r]->id + ": " + response.error->message);
    }
    fake.responses.clear();
    instance.requestStatistics.clear();
    instance.batchStatistics.clear();
    return elapsed;
  }

  TRITONBACKEND_Model model;
  TRITONBACKEND_ModelInstance instance;
};

/// The fake server's calls Execute makes for one request, in its order,
/// without the backend: their cost is the fake's share of execute1.
uint64_t fakeCalls(const Artifact &artifact,
                   TRITONBACKEND_ModelInstance &instance,
                   TRITONBACKEND_Request &request, const Tensors &t) {
  request.releases = request.responsesCreated = 0;
  size_t numInputs = t.inputs.size();
  uint64_t start = nowNs();
  void *state = nullptr;
  TRITONBACKEND_ModelInstanceState(&instance, &state);
  uint32_t count = 0;
  TRITONBACKEND_RequestInputCount(&request, &count);
  for (size_t i = 0; i < numInputs; ++i) {
    TRITONBACKEND_Input *input = nullptr;
    TRITONBACKEND_RequestInput(&request, artifact.inputNames[i], &input);
    TRITONSERVER_DataType datatype;
    const int64_t *shape = nullptr;
    uint32_t rank = 0, buffers = 0;
    uint64_t bytes = 0;
    TRITONBACKEND_InputProperties(input, nullptr, &datatype, &shape, &rank,
                                  &bytes, &buffers);
    const void *buffer = nullptr;
    uint64_t size = 0;
    TRITONSERVER_MemoryType type = TRITONSERVER_MEMORY_CPU;
    int64_t id = 0;
    TRITONBACKEND_InputBuffer(input, 0, &buffer, &size, &type, &id);
  }
  TRITONBACKEND_RequestOutputCount(&request, &count);
  for (uint32_t o = 0; o < count; ++o) {
    const char *name = nullptr;
    TRITONBACKEND_RequestOutputName(&request, o, &name);
  }
  TRITONBACKEND_Response *response = nullptr;
  TRITONBACKEND_ResponseNew(&response, &request);
  for (size_t o = 0; o < t.outputs.size(); ++o) {
    const std::vector<int64_t> &dims = t.dims[numInputs + o];
    TRITONBACKEND_Output *output = nullptr;
    TRITONBACKEND_ResponseOutput(
        response, &output, artifact.outputs[o].name,
        graphc::triton::tritonDtypeOf(artifact.outputs[o].dtype)->server,
        dims.data(), uint32_t(dims.size()));
    void *buffer = nullptr;
    TRITONSERVER_MemoryType type = TRITONSERVER_MEMORY_CPU;
    int64_t id = 0;
    TRITONBACKEND_OutputBuffer(output, &buffer, t.data[numInputs + o].size(),
                               &type, &id);
  }
  TRITONBACKEND_ResponseSend(response, TRITONSERVER_RESPONSE_COMPLETE_FINAL,
                             nullptr);
  TRITONBACKEND_ModelInstanceReportStatistics(&instance, &request, true, 0, 0,
                                              0, 0);
  TRITONBACKEND_RequestRelease(&request, TRITONSERVER_REQUEST_RELEASE_ALL);
  TRITONBACKEND_ModelInstanceReportBatchStatistics(&instance, 1, 0, 0, 0, 0);
  uint64_t elapsed = nowNs() - start;
  Server &fake = server();
  if (!fake.violations.empty())
    fail("the fake server saw: " + fake.violations.front());
  if (fake.responses.size() != 1 || !fake.responses[0]->sent ||
      request.releases != 1)
    fail("the fake server's calls left the request unanswered");
  fake.responses.clear();
  instance.requestStatistics.clear();
  instance.batchStatistics.clear();
  return elapsed;
}

/// The backend's outputs for `requests` (one row each) equal `direct`'s
/// rows, byte for byte.
void checkOutputs(const Artifact &artifact,
                  const std::vector<TRITONBACKEND_Request *> &requests,
                  const Tensors &direct) {
  Server &fake = server();
  size_t numInputs = artifact.inputs.size();
  for (size_t r = 0; r < requests.size(); ++r) {
    const TRITONBACKEND_Response &response = *fake.responses[r];
    for (size_t o = 0; o < artifact.outputs.size(); ++o) {
      const std::vector<unsigned char> &all = direct.data[numInputs + o];
      uint64_t rowBytes = all.size() / requests.size();
      const TRITONBACKEND_Output *output = nullptr;
      for (const auto &candidate : response.outputs)
        if (candidate->name == artifact.outputs[o].name)
          output = candidate.get();
      if (!output || output->byteSize != rowBytes ||
          std::memcmp(output->buffer, all.data() + r * rowBytes, rowBytes))
        fail(artifact.path + ": the backend's output '" +
             artifact.outputs[o].name + "' of request " + requests[r]->id +
             " differs from the direct run's");
    }
  }
}

//===- Statistics ---------------------------------------------------------===//

struct Summary {
  double median, p99; ///< microseconds
};

Summary summarize(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  size_t n = us.size();
  double median = n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2;
  size_t rank = (99 * n + 99) / 100; // ceil(0.99 n), nearest rank
  return {median, us[std::max<size_t>(rank, 1) - 1]};
}

json toJson(const Summary &s) {
  return {{"median_us", s.median}, {"p99_us", s.p99}};
}

/// One model's figures: each case's per-iteration microseconds.
json measure(const std::string &path, const fs::path &work, int iterations,
             int warmup) {
  std::string name = fs::path(path).stem().string();
  Artifact artifact(path), control(path);
  Served served(artifact, name, work);
  Tensors direct1 = artifact.tensors(1), direct8 = artifact.tensors(kBatch);
  // The requests read the direct runs' inputs (never written).
  auto one = requestsOver(artifact, direct1);
  auto eight = requestsOver(artifact, direct8);
  std::vector<TRITONBACKEND_Request *> execute1{one[0].get()}, execute8;
  for (auto &request : eight)
    execute8.push_back(request.get());
  // Room that Execute's responses reuse, so that no call grows it.
  server().responses.reserve(kBatch);
  served.instance.requestStatistics.reserve(kBatch);
  served.instance.batchStatistics.reserve(kBatch);

  // The outputs are right before they are timed.
  for (auto *requests : {&execute1, &execute8}) {
    Tensors &direct = requests->size() == 1 ? direct1 : direct8;
    artifact.run(direct);
    for (TRITONBACKEND_Request *request : *requests)
      request->releases = request->responsesCreated = 0;
    check(TRITONBACKEND_ModelInstanceExecute(&served.instance, requests->data(),
                                             uint32_t(requests->size())),
          "ModelInstanceExecute");
    checkOutputs(artifact, *requests, direct);
    server().responses.clear();
    served.instance.requestStatistics.clear();
    served.instance.batchStatistics.clear();
  }

  TRITONBACKEND_Request fakeRequest;
  fakeRequest.id = "fake";
  for (const auto &input : one[0]->inputs)
    fakeRequest.inputs.push_back(std::make_unique<TRITONBACKEND_Input>(*input));
  fakeRequest.requestedOutputs = one[0]->requestedOutputs;
  TRITONBACKEND_ModelInstance fakeInstance;
  fakeInstance.requestStatistics.reserve(1);
  fakeInstance.batchStatistics.reserve(1);
  Tensors fakeShapes = artifact.tensors(1);

  std::vector<double> a, b, a2, d8, c, d82, f, ba, a2a, cd8, d82d8;
  auto timeDirect = [&](Artifact &on, Tensors &t) {
    uint64_t start = nowNs();
    on.run(t);
    return double(nowNs() - start) / 1e3;
  };
  auto timeExecute = [&](std::vector<TRITONBACKEND_Request *> &requests) {
    return double(served.execute(requests)) / 1e3;
  };
  std::string loadBefore = loadAverage();
  for (int i = -warmup; i < iterations; ++i) {
    // Direct, execute and control, in the order of rotation i % 3.
    int rotation = ((i % 3) + 3) % 3;
    double one[3], eight[3];
    for (auto [times, direct, requests] :
         {std::tuple{one, &direct1, &execute1},
          std::tuple{eight, &direct8, &execute8}})
      for (int k = 0; k < 3; ++k) {
        int which = (k + rotation) % 3;
        times[which] = which == 0   ? timeDirect(artifact, *direct)
                       : which == 1 ? timeExecute(*requests)
                                    : timeDirect(control, *direct);
      }
    double ta = one[0], tb = one[1], ta2 = one[2];
    double td8 = eight[0], tc = eight[1], td82 = eight[2];
    double tf =
        double(fakeCalls(artifact, fakeInstance, fakeRequest, fakeShapes)) /
        1e3;
    if (i < 0)
      continue;
    a.push_back(ta);
    b.push_back(tb);
    a2.push_back(ta2);
    a2a.push_back(ta2 - ta);
    d8.push_back(td8);
    c.push_back(tc);
    f.push_back(tf);
    ba.push_back(tb - ta);
    cd8.push_back(tc - td8);
    d82.push_back(td82);
    d82d8.push_back(td82 - td8);
  }
  Summary sa = summarize(a), sb = summarize(b), sa2 = summarize(a2),
          sd8 = summarize(d8), sc = summarize(c), sf = summarize(f),
          sba = summarize(ba), sa2a = summarize(a2a), scd8 = summarize(cd8),
          sd82 = summarize(d82), sd82d8 = summarize(d82d8);
  std::printf("%s: direct1 %.1f (p99 %.1f)  execute1 %.1f (p99 %.1f)  "
              "b-a %+.1f (paired %+.1f)  control1-a %+.1f (paired %+.1f)  |  "
              "direct8 %.1f (p99 %.1f)  execute8x1 %.1f (p99 %.1f)  "
              "c-direct8 %+.1f (paired %+.1f)  control8-direct8 %+.1f (paired "
              "%+.1f)  |  fake1 %.2f (p99 %.2f)  "
              "[us, median (p99)]\n",
              name.c_str(), sa.median, sa.p99, sb.median, sb.p99,
              sb.median - sa.median, sba.median, sa2.median - sa.median,
              sa2a.median, sd8.median, sd8.p99, sc.median, sc.p99,
              sc.median - sd8.median, scd8.median, sd82.median - sd8.median,
              sd82d8.median, sf.median, sf.p99);
  std::fflush(stdout);
  return {{"model", name},
          {"artifact", path},
          {"iterations", iterations},
          {"warmup", warmup},
          {"load_average_before", loadBefore},
          {"load_average_after", loadAverage()},
          {"direct1", toJson(sa)},
          {"execute1", toJson(sb)},
          {"control1", toJson(sa2)},
          {"direct8", toJson(sd8)},
          {"execute8x1", toJson(sc)},
          {"control8", toJson(sd82)},
          {"fake1", toJson(sf)},
          {"execute1_minus_direct1_us", sb.median - sa.median},
          {"execute1_minus_direct1_paired", toJson(sba)},
          {"control1_minus_direct1_us", sa2.median - sa.median},
          {"control1_minus_direct1_paired", toJson(sa2a)},
          {"execute8x1_minus_direct8_us", sc.median - sd8.median},
          {"execute8x1_minus_direct8_paired", toJson(scd8)},
          {"control8_minus_direct8_us", sd82.median - sd8.median},
          {"control8_minus_direct8_paired", toJson(sd82d8)}};
}

int parsePositive(const char *flag, const char *value) {
  char *end = nullptr;
  long parsed = value ? std::strtol(value, &end, 10) : 0;
  if (!value || *end || parsed < 1 || parsed > 100000000)
    fail(std::string(flag) + " takes a positive count, not '" +
         (value ? value : "") + "'");
  return int(parsed);
}

} // namespace

int main(int argc, char **argv) {
  int iterations = 2000, warmup = 200;
  std::string jsonPath;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (arg == "--iterations") {
      iterations = parsePositive("--iterations", value);
      ++i;
    } else if (arg == "--warmup") {
      warmup = value && std::strcmp(value, "0") == 0
                   ? 0
                   : parsePositive("--warmup", value);
      ++i;
    } else if (arg == "--json") {
      if (!value)
        fail("--json takes a file");
      jsonPath = value;
      ++i;
    } else if (arg == "-h" || arg == "--help") {
      std::printf("usage: triton-backend-overhead [--iterations N] "
                  "[--warmup N] [--json FILE] ARTIFACT.so...\n");
      return 0;
    } else if (!arg.empty() && arg[0] == '-') {
      fail("unknown flag '" + arg + "'");
    } else {
      paths.push_back(arg);
    }
  }
  if (paths.empty())
    fail("no artifacts given (usage: triton-backend-overhead [--iterations "
         "N] [--warmup N] [--json FILE] ARTIFACT.so...)");

  TRITONBACKEND_Backend backend;
  check(TRITONBACKEND_Initialize(&backend), "TRITONBACKEND_Initialize");
  for (const std::string &path : paths)
    if (!fs::is_regular_file(path))
      fail("no artifact at " + path);
  char pattern[] = "/tmp/graphc-triton-overhead-XXXXXX";
  if (!mkdtemp(pattern))
    fail("cannot make a directory under /tmp");
  workDir = pattern;
  json models = json::array();
  for (const std::string &path : paths)
    models.push_back(measure(path, workDir, iterations, warmup));
  fs::remove_all(workDir);
  workDir.clear();
  if (!jsonPath.empty()) {
    json report = {
        {"command",
         [&] {
           std::string command;
           for (int i = 0; i < argc; ++i)
             command += (i ? " " : "") + std::string(argv[i]);
           return command;
         }()},
        {"timed", "execute: the TRITONBACKEND_ModelInstanceExecute call "
                  "(fake server; host memory); direct1, control1, direct8, "
                  "control8: "
                  "the graphc_session_run call; fake1: the fake server's calls "
                  "of one request without the backend"},
        {"models", models}};
    std::ofstream out(jsonPath);
    out << report.dump(2) << "\n";
    if (!out)
      fail("cannot write " + jsonPath);
  }
  return 0;
}
