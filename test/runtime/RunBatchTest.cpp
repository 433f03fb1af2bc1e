//===- RunBatchTest.cpp - graphc_session_run_batch on cpu and cuda --------===//
//
// Batched runs of batch_model (test/runtime/models/batch_model.c) on the cpu
// target and on the cuda target over the fake driver: requests gathered
// along the batch dim give the bits of one run over their concatenation
// (exact, padded and split totals), one request is a plain run, each
// request is validated alone and named in the status, and on cuda host
// parts are copied in and out on the stream.
//
//===----------------------------------------------------------------------===//
#include "FakeCudaTestSupport.h"
#include "fake_cuda/FakeCuda.h"

#include "graphc/runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <numeric>
#include <string>
#include <vector>

namespace {

using namespace fakecutest;

/// batch_rows(x, s, w, y, r) with one block per row: y = x * w + s and r =
/// the sum of x's row, as batch_model.c's cpu kernels compute them.
void batchRows(const fakecu_launch *launch) {
  const float *x = *static_cast<float **>(launch->params[0]);
  const float *s = *static_cast<float **>(launch->params[1]);
  const float *w = *static_cast<float **>(launch->params[2]);
  float *y = *static_cast<float **>(launch->params[3]);
  float *r = *static_cast<float **>(launch->params[4]);
  for (unsigned row = 0; row < launch->grid[0]; ++row) {
    r[row] = 0;
    for (int c = 0; c < 3; ++c) {
      y[row * 3 + c] = x[row * 3 + c] * w[c] + s[row];
      r[row] += x[row * 3 + c];
    }
  }
}

/// One request's tensors: x, s in; y, r out.
struct Request {
  DLTensor inputs[2], outputs[2];
};

/// A session of batch_model on the target the parameter names ("cpu" or
/// "cuda"), and tensors in its memory or in host memory.
class RunBatch : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    fakecu_reset();
    static const unsigned params[] = {8, 8, 8, 8, 8};
    fakecu_register_kernel("batch_rows", batchRows, 5, params);
    cuda = std::string(GetParam()) == "cuda";
    model = loadModel(modelName());
    ASSERT_NE(model, nullptr);
    ASSERT_GRAPHC_OK(graphc_session_create(model, nullptr, &session));
  }
  void TearDown() override {
    for (void *buffer : buffers)
      graphc_session_free_buffer(session, buffer);
    graphc_session_release(session);
    graphc_model_release(model);
    EXPECT_EQ(fakecu_violations(), 0) << fakecu_last_violation();
  }

  /// batch_model's variant (`suffix`: "" or "_mixes") for the target.
  std::string modelName(const std::string &suffix = "") const {
    return std::string("batch_model") + (cuda ? "_cuda" : "") + suffix;
  }

  /// A float32 tensor of `rows` x `width` holding `values` (zeros when
  /// empty): in the session's memory, or in host memory when `host`.
  DLTensor tensor(int64_t rows, int64_t width, std::vector<float> values = {},
                  bool host = false) {
    size_t count = static_cast<size_t>(rows * width);
    values.resize(count, 0.0f);
    shapes.push_back({rows, width});
    DLTensor t{};
    t.ndim = 2;
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shapes.back().data();
    if (host || !cuda) {
      hostData.push_back(values);
      t.data = hostData.back().data();
      t.device = {kDLCPU, 0};
      return t;
    }
    void *data = nullptr;
    EXPECT_GRAPHC_OK(
        graphc_session_allocate_buffer(session, count * 4 + 4, &data));
    buffers.push_back(data);
    EXPECT_GRAPHC_OK(
        graphc_session_upload(session, data, values.data(), count * 4));
    t.data = data;
    t.device = {kDLCUDA, 0};
    return t;
  }

  /// The values of a float32 tensor made by tensor().
  std::vector<float> read(const DLTensor &t) {
    std::vector<float> values(static_cast<size_t>(t.shape[0] * t.shape[1]));
    if (t.device.device_type == kDLCUDA)
      EXPECT_GRAPHC_OK(graphc_session_download(session, values.data(), t.data,
                                               values.size() * 4));
    else if (!values.empty()) // an empty request's data may be null
      std::memcpy(values.data(), t.data, values.size() * 4);
    return values;
  }

  /// A request of `rows` rows whose values start at `first` (x) and
  /// -first (s); its tensors in host memory where `host`.
  Request request(int64_t rows, float first, bool host = false) {
    std::vector<float> x(static_cast<size_t>(rows * 3)),
        s(static_cast<size_t>(rows));
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = first + 0.25f * static_cast<float>(i);
    for (size_t i = 0; i < s.size(); ++i)
      s[i] = -first - static_cast<float>(i);
    return {{tensor(rows, 3, x, host), tensor(rows, 1, s, host)},
            {tensor(rows, 3, {}, host), tensor(rows, 1, {}, host)}};
  }

  /// Runs the requests as one batch (cuda: on the legacy stream, then
  /// synchronised).
  graphc_status runBatch(std::vector<Request> &requests) {
    std::vector<const DLTensor *> in, out;
    for (Request &r : requests) {
      in.push_back(r.inputs);
      out.push_back(r.outputs);
    }
    graphc_status status =
        graphc_session_run_batch(session, static_cast<int32_t>(requests.size()),
                                 in.data(), 2, nullptr, out.data(), 2, nullptr);
    if (status || !cuda)
      return status;
    return graphc_session_synchronize(session);
  }

  /// One graphc_session_run over the requests' inputs concatenated, each
  /// output split back into the requests' rows: [request][output].
  std::vector<std::vector<std::vector<float>>>
  runConcatenated(std::vector<Request> &requests) {
    int64_t rows = 0;
    std::vector<float> x, s;
    for (Request &r : requests) {
      rows += r.inputs[0].shape[0];
      std::vector<float> rx = read(r.inputs[0]), rs = read(r.inputs[1]);
      x.insert(x.end(), rx.begin(), rx.end());
      s.insert(s.end(), rs.begin(), rs.end());
    }
    DLTensor inputs[] = {tensor(rows, 3, x), tensor(rows, 1, s)};
    DLTensor outputs[] = {tensor(rows, 3), tensor(rows, 1)};
    EXPECT_GRAPHC_OK(
        graphc_session_run(session, inputs, 2, nullptr, outputs, 2));
    std::vector<float> y = read(outputs[0]), r = read(outputs[1]);
    std::vector<std::vector<std::vector<float>>> split;
    size_t at = 0;
    for (Request &request : requests) {
      size_t n = static_cast<size_t>(request.inputs[0].shape[0]);
      split.push_back(
          {std::vector<float>(y.begin() + at * 3, y.begin() + (at + n) * 3),
           std::vector<float>(r.begin() + at, r.begin() + at + n)});
      at += n;
    }
    return split;
  }

  /// Bitwise equality of float vectors.
  static bool sameBits(const std::vector<float> &a,
                       const std::vector<float> &b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
  }

  /// The batched run of `requests` against one run over their
  /// concatenation, bit for bit, and against the model's formula.
  void expectLikeOneRun(std::vector<Request> &requests) {
    ASSERT_GRAPHC_OK(runBatch(requests));
    auto expected = runConcatenated(requests);
    for (size_t q = 0; q < requests.size(); ++q) {
      SCOPED_TRACE("request " + std::to_string(q));
      std::vector<float> y = read(requests[q].outputs[0]);
      std::vector<float> r = read(requests[q].outputs[1]);
      EXPECT_TRUE(sameBits(y, expected[q][0]));
      EXPECT_TRUE(sameBits(r, expected[q][1]));
      std::vector<float> x = read(requests[q].inputs[0]);
      std::vector<float> s = read(requests[q].inputs[1]);
      const float w[3] = {2, 3, 4};
      for (size_t row = 0; row < s.size(); ++row) {
        float sum = 0;
        for (int c = 0; c < 3; ++c) {
          EXPECT_EQ(y[row * 3 + c], x[row * 3 + c] * w[c] + s[row]);
          sum += x[row * 3 + c];
        }
        EXPECT_EQ(r[row], sum);
      }
    }
  }

  bool cuda = false;
  graphc_model *model = nullptr;
  graphc_session *session = nullptr;
  std::deque<std::vector<int64_t>> shapes;
  std::deque<std::vector<float>> hostData;
  std::vector<void *> buffers;
};

// Totals of an exact bucket (4), padded ones (5 and 6 -> 8) and one past
// the largest bucket (12: parts of 8 and 4).
TEST_P(RunBatch, GivesTheBitsOfOneRunOverTheConcatenation) {
  for (std::vector<int64_t> sizes : {std::vector<int64_t>{1, 2, 3},
                                     {1, 2, 2},
                                     {1, 1, 2},
                                     {3, 4, 5},
                                     {2, 0, 3}}) {
    std::string name;
    for (int64_t size : sizes)
      name += std::to_string(size) + " ";
    SCOPED_TRACE("rows " + name);
    std::vector<Request> requests;
    for (size_t q = 0; q < sizes.size(); ++q)
      requests.push_back(request(sizes[q], 1.5f + 10.0f * float(q)));
    expectLikeOneRun(requests);
  }
}

TEST_P(RunBatch, OneRequestIsAPlainRun) {
  std::vector<Request> requests = {request(3, 2.0f)};
  expectLikeOneRun(requests);
  // One request needs no batch dim.
  graphc_model *mixes = loadModel(modelName("_mixes"));
  ASSERT_NE(mixes, nullptr);
  graphc_session *other = nullptr;
  ASSERT_GRAPHC_OK(graphc_session_create(mixes, nullptr, &other));
  const DLTensor *in[] = {requests[0].inputs};
  const DLTensor *out[] = {requests[0].outputs};
  EXPECT_GRAPHC_OK(
      graphc_session_run_batch(other, 1, in, 2, nullptr, out, 2, nullptr));
  EXPECT_GRAPHC_OK(graphc_session_synchronize(other));
  graphc_session_release(other);
  graphc_model_release(mixes);
}

TEST_P(RunBatch, TakesNamedInputsInAnyOrder) {
  std::vector<Request> requests = {request(1, 1.0f), request(2, 5.0f)};
  std::vector<Request> swapped = requests;
  for (Request &r : swapped) {
    std::swap(r.inputs[0], r.inputs[1]);
    r.outputs[0] = tensor(r.outputs[0].shape[0], 3);
    r.outputs[1] = tensor(r.outputs[1].shape[0], 1);
  }
  ASSERT_GRAPHC_OK(runBatch(requests));
  const char *names[] = {"s", "x"};
  const DLTensor *in[] = {swapped[0].inputs, swapped[1].inputs};
  const DLTensor *out[] = {swapped[0].outputs, swapped[1].outputs};
  ASSERT_GRAPHC_OK(
      graphc_session_run_batch(session, 2, in, 2, names, out, 2, nullptr));
  ASSERT_GRAPHC_OK(graphc_session_synchronize(session));
  for (size_t q = 0; q < 2; ++q)
    for (int o = 0; o < 2; ++o)
      EXPECT_TRUE(
          sameBits(read(swapped[q].outputs[o]), read(requests[q].outputs[o])));
}

TEST_P(RunBatch, ValidatesEveryRequestBeforeWritingAnything) {
  std::vector<Request> requests = {request(1, 1.0f), request(2, 5.0f),
                                   request(3, 9.0f)};
  for (Request &r : requests)
    for (DLTensor &output : r.outputs) {
      std::vector<float> marked(
          static_cast<size_t>(output.shape[0] * output.shape[1]), -7.0f);
      output = tensor(output.shape[0], output.shape[1], marked);
    }
  auto expectUntouched = [&] {
    for (Request &r : requests)
      for (DLTensor &output : r.outputs)
        for (float v : read(output))
          ASSERT_EQ(v, -7.0f);
  };
  auto call = [&](int32_t count, std::vector<Request> &batch) {
    std::vector<const DLTensor *> in, out;
    for (Request &r : batch) {
      in.push_back(r.inputs);
      out.push_back(r.outputs);
    }
    return graphc_session_run_batch(session, count, in.data(), 2, nullptr,
                                    out.data(), 2, nullptr);
  };

  Status none(call(0, requests));
  EXPECT_EQ(none.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(none.message(),
            "num_requests is 0; a batch needs at least one request");

  // Request 1's x has 4 columns: the message of a run of its own, named.
  std::vector<Request> wrongDim = requests;
  wrongDim[1].inputs[0] = tensor(2, 4);
  Status dim(call(3, wrongDim));
  EXPECT_EQ(dim.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(dim.message(), "request 1: input 'x': expected float32[batch,3], "
                           "got float32[2,4]");

  // Request 2's output too short for its own rows.
  std::vector<Request> wrongOutput = requests;
  wrongOutput[2].outputs[1] = tensor(2, 1);
  Status rows(call(3, wrongOutput));
  EXPECT_EQ(rows.message(), "request 2: output 'r': expected float32[3,1], "
                            "got float32[2,1]");

  // Request 1 writes y over request 0's x.
  std::vector<Request> overlapping = requests;
  overlapping[1].outputs[0].data = requests[0].inputs[0].data;
  Status overlap(call(3, overlapping));
  EXPECT_EQ(overlap.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(overlap.message(),
            "request 1: output 'y' overlaps request 0's input 'x'; outputs "
            "need memory of their own");
  // Two requests given one output.
  std::vector<Request> shared = requests;
  shared[2].outputs[1] = shared[0].outputs[1];
  shared[2].outputs[1].shape = requests[2].outputs[1].shape;
  Status twice(call(3, shared));
  EXPECT_EQ(twice.message(),
            "request 2: output 'r' overlaps request 0's output 'r'; outputs "
            "need memory of their own");

  // A model whose rows mix has no batch dim; one request still runs.
  graphc_model *mixes = loadModel(modelName("_mixes"));
  ASSERT_NE(mixes, nullptr);
  graphc_session *other = nullptr;
  ASSERT_GRAPHC_OK(graphc_session_create(mixes, nullptr, &other));
  std::vector<const DLTensor *> in, out;
  for (Request &r : requests) {
    in.push_back(r.inputs);
    out.push_back(r.outputs);
  }
  Status mixed(graphc_session_run_batch(other, 3, in.data(), 2, nullptr,
                                        out.data(), 2, nullptr));
  EXPECT_EQ(mixed.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(mixed.message(),
            "3 requests run together need a batch dim, and the model has "
            "none: dim 'batch' is axis 0 of every input and output, but the "
            "model mixes positions along it (node 'CumSum_2': a cumulative "
            "sum along it), so requests cannot share a run");
  int32_t batchDim = -1;
  Status noBatchDim(graphc_model_batch_dim(mixes, &batchDim));
  EXPECT_EQ(noBatchDim.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(noBatchDim.message(),
            "the model has no batch dim: dim 'batch' is axis 0 of every "
            "input and output, but the model mixes positions along it (node "
            "'CumSum_2': a cumulative sum along it), so requests cannot "
            "share a run");
  EXPECT_EQ(batchDim, -1);
  ASSERT_GRAPHC_OK(graphc_model_batch_dim(model, &batchDim));
  EXPECT_EQ(batchDim, 0);
  graphc_session_release(other);
  graphc_model_release(mixes);
  expectUntouched();

  if (!cuda) {
    Status stream(graphc_session_run_batch(session, 3, in.data(), 2, nullptr,
                                           out.data(), 2, &requests));
    EXPECT_EQ(stream.message(), "graphc_session_run_batch: a cpu model runs "
                                "on no stream; pass NULL");
    return;
  }
  // A tensor on another device.
  std::vector<Request> elsewhere = requests;
  elsewhere[2].inputs[1].device = {kDLCUDA, 1};
  Status device(call(3, elsewhere));
  EXPECT_EQ(device.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(device.message(),
            "request 2: input 's': expected a tensor on cuda:0 (the session's "
            "device) or in host memory, got cuda:1");
  expectUntouched();
}

// A server hands over tensors where they sit in a network message, at any
// byte offset: a cpu run whose buffers are not aligned to their element
// size goes through staging, and batch_model's kernels (which refuse
// misaligned arguments) compute the same as from aligned buffers.
TEST(RunBatchCpu, RunsMisalignedBuffersThroughStaging) {
  graphc_model *model = loadModel("batch_model");
  ASSERT_NE(model, nullptr);
  graphc_session *session = nullptr;
  ASSERT_GRAPHC_OK(graphc_session_create(model, nullptr, &session));
  const float x[6] = {1, -2, 3.5f, 4, 0.25f, -6}, s[2] = {0.5f, -1};
  int64_t xShape[] = {2, 3}, sShape[] = {2, 1};
  auto tensor = [](void *data, int64_t *shape) {
    DLTensor t{};
    t.data = data;
    t.device = {kDLCPU, 0};
    t.ndim = 2;
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape;
    return t;
  };
  // Aligned: the reference.
  float y[6], r[2];
  DLTensor in[] = {tensor(const_cast<float *>(x), xShape),
                   tensor(const_cast<float *>(s), sShape)};
  DLTensor out[] = {tensor(y, xShape), tensor(r, sShape)};
  ASSERT_GRAPHC_OK(graphc_session_run(session, in, 2, nullptr, out, 2));
  // The same values 1 and 2 bytes past alignment.
  for (size_t offset : {1, 2}) {
    SCOPED_TRACE("offset " + std::to_string(offset));
    alignas(16) unsigned char bytes[4][64] = {};
    std::memcpy(bytes[0] + offset, x, sizeof x);
    std::memcpy(bytes[1] + offset, s, sizeof s);
    DLTensor odd[] = {tensor(bytes[0] + offset, xShape),
                      tensor(bytes[1] + offset, sShape)};
    DLTensor oddOut[] = {tensor(bytes[2] + offset, xShape),
                         tensor(bytes[3] + offset, sShape)};
    ASSERT_GRAPHC_OK(graphc_session_run(session, odd, 2, nullptr, oddOut, 2));
    EXPECT_EQ(std::memcmp(bytes[2] + offset, y, sizeof y), 0);
    EXPECT_EQ(std::memcmp(bytes[3] + offset, r, sizeof r), 0);
    std::memset(bytes[2], 0, sizeof bytes[2]);
    std::memset(bytes[3], 0, sizeof bytes[3]);
    const DLTensor *request[] = {odd};
    const DLTensor *requestOut[] = {oddOut};
    ASSERT_GRAPHC_OK(graphc_session_run_batch(session, 1, request, 2, nullptr,
                                              requestOut, 2, nullptr));
    EXPECT_EQ(std::memcmp(bytes[2] + offset, y, sizeof y), 0);
    EXPECT_EQ(std::memcmp(bytes[3] + offset, r, sizeof r), 0);
  }
  graphc_session_release(session);
  graphc_model_release(model);
}

// A model whose batch is not axis 0 of every input has no batch dim
// (affine_buckets: its bias has no batch axis).
TEST(RunBatchCpu, NamesTheInputWithoutTheBatchDim) {
  graphc_model *model = loadModel("affine_buckets");
  ASSERT_NE(model, nullptr);
  graphc_session *session = nullptr;
  ASSERT_GRAPHC_OK(graphc_session_create(model, nullptr, &session));
  float x[6] = {}, bias[3] = {}, y[6], scaled[6];
  int64_t xShape[] = {1, 3}, biasShape[] = {3};
  auto make = [](void *data, int32_t ndim, int64_t *shape) {
    DLTensor t{};
    t.data = data;
    t.device = {kDLCPU, 0};
    t.ndim = ndim;
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape;
    return t;
  };
  DLTensor in0[] = {make(x, 2, xShape), make(bias, 1, biasShape)};
  DLTensor in1[] = {make(x + 3, 2, xShape), make(bias, 1, biasShape)};
  DLTensor out0[] = {make(y, 2, xShape), make(scaled, 2, xShape)};
  DLTensor out1[] = {make(y + 3, 2, xShape), make(scaled + 3, 2, xShape)};
  const DLTensor *in[] = {in0, in1};
  const DLTensor *out[] = {out0, out1};
  Status status(
      graphc_session_run_batch(session, 2, in, 2, nullptr, out, 2, nullptr));
  EXPECT_EQ(status.code(), GRAPHC_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(),
            "2 requests run together need a batch dim, and the model has "
            "none: dim 'batch' is not axis 0 of input 'bias'");
  int32_t batchDim = -1;
  Status none(graphc_model_batch_dim(model, &batchDim));
  EXPECT_EQ(none.message(),
            "the model has no batch dim: dim 'batch' is not axis 0 of input "
            "'bias'");
  graphc_session_release(session);
  graphc_model_release(model);
}

// On cuda, host tensors are copied in and out on the stream: the same bits
// as device tensors, with host-to-device and device-to-host copies.
using RunBatchCuda = RunBatch;
TEST_P(RunBatchCuda, TakesHostMemory) {
  std::vector<Request> device = {request(1, 1.0f), request(2, 5.0f),
                                 request(2, 9.0f)};
  ASSERT_GRAPHC_OK(runBatch(device));
  // Request 0 all in host memory, request 1 on the device, request 2's x
  // and y pinned host memory and its s and r on the device.
  std::vector<Request> mixed = {request(1, 1.0f, true), request(2, 5.0f),
                                request(2, 9.0f)};
  DLTensor &pinnedX = mixed[2].inputs[0], &pinnedY = mixed[2].outputs[0];
  pinnedX = tensor(2, 3, read(pinnedX), true);
  pinnedY = tensor(2, 3, {}, true);
  pinnedX.device = pinnedY.device = {kDLCUDAHost, 0};
  size_t before = traceLines().size();
  Device caller; // a stream of the caller's
  std::vector<const DLTensor *> in, out;
  for (Request &r : mixed) {
    in.push_back(r.inputs);
    out.push_back(r.outputs);
  }
  ASSERT_GRAPHC_OK(graphc_session_run_batch(session, 3, in.data(), 2, nullptr,
                                            out.data(), 2, caller.stream));
  ASSERT_GRAPHC_OK(graphc_session_synchronize(session));
  int toDevice = 0, toHost = 0;
  for (const std::string &line : traceSince(before)) {
    toDevice += line.rfind("memcpyHtoD ", 0) == 0;
    toHost += line.rfind("memcpyDtoH ", 0) == 0;
  }
  // Request 0's x and s and request 2's x in; request 0's y and r and
  // request 2's y out.
  EXPECT_EQ(toDevice, 3) << fakecu_trace();
  EXPECT_EQ(toHost, 3) << fakecu_trace();
  for (size_t q = 0; q < 3; ++q)
    for (int o = 0; o < 2; ++o)
      EXPECT_TRUE(
          sameBits(read(mixed[q].outputs[o]), read(device[q].outputs[o])))
          << "request " << q << " output " << o;

  // One request in host memory is staged through the device.
  std::vector<Request> one = {request(3, 4.0f, true)};
  expectLikeOneRun(one);
}

auto targetName = [](const auto &info) { return std::string(info.param); };
INSTANTIATE_TEST_SUITE_P(Targets, RunBatch, ::testing::Values("cpu", "cuda"),
                         targetName);
// A cpu model takes host memory only.
INSTANTIATE_TEST_SUITE_P(Targets, RunBatchCuda, ::testing::Values("cuda"),
                         targetName);

} // namespace
