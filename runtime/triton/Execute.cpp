//===- Execute.cpp - libtriton_graphc.so: running a batch of requests -----===//
//
// TRITONBACKEND_ModelInstanceExecute hands over N requests at once (dynamic
// batching). Each is read in place: its inputs stay in the buffers Triton
// received them in (host memory for HTTP and gRPC, device memory when a
// client or an ensemble step passed them there), and each response's output
// buffers are allocated first, so that graphc_session_run_batch gathers the
// requests' rows straight into the session's buffers and writes each
// request's output rows straight into its response: no concatenation, no
// copy of the outputs in the backend.
//
// An output with data-dependent dims (NonZero, Compress, ...) is the
// exception: its shape is known only after the run. The run writes it at
// its bounds into a host buffer of the backend's, and its response output,
// of the dims the run found (graphc_session_output_dims), is allocated
// afterwards and given the leading corner alone. Such a model runs one
// request at a time (the runtime finds no batch dim for it).
//
// A request that is wrong on its own (a missing input, a dtype or shape the
// artifact does not take) gets its own error and leaves the batch; the rest
// run. Every request is answered and released exactly once.
//
//===----------------------------------------------------------------------===//

#include "lib/Artifact/Staging.h"
#include "runtime/src/Dtype.h"
#include "runtime/triton/BackendState.h"
#include "runtime/triton/TritonConfig.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace graphc::triton;

namespace {

uint64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Deletes a Triton error that only needs logging.
void logIfError(TRITONSERVER_Error *error, const char *what) {
  if (!error)
    return;
  logMessage(TRITONSERVER_LOG_ERROR, std::string("graphc: ") + what + ": " +
                                         TRITONSERVER_ErrorMessage(error));
  TRITONSERVER_ErrorDelete(error);
}

/// One request of the batch, read and with its response allocated.
struct Pending {
  TRITONBACKEND_Request *request = nullptr;
  TRITONBACKEND_Response *response = nullptr;
  TRITONSERVER_Error *error = nullptr; ///< set: answered with it
  bool succeeded = false;
  std::vector<std::vector<int64_t>> inputDims, outputDims;
  std::vector<DLTensor> inputs, outputs;
  /// Inputs that arrived in several buffers, gathered on the host.
  std::vector<std::vector<unsigned char>> gathered;
  /// Room for the outputs this request did not ask for, and for those with
  /// data-dependent dims at their bounds.
  std::vector<std::vector<unsigned char>> unrequested;
  /// Per output: data-dependent and asked for, so answered after the run.
  std::vector<bool> answerAfterRun;
  uint64_t rows = 1;
};

/// Bytes of a dense tensor of `dims` and `dtype`; false when a dim is
/// negative or the product overflows (a request's dims are the client's).
bool denseBytes(const std::vector<int64_t> &dims, int32_t dtype,
                uint64_t &bytes) {
  bytes = graphc_dtype_size(dtype);
  for (int64_t d : dims)
    if (d < 0 ||
        __builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes))
      return false;
  return true;
}

/// Where a buffer Triton handed over lives, as DLPack says it for the
/// session: the session's device, or host memory.
TRITONSERVER_Error *deviceOf(const InstanceState &state,
                             TRITONSERVER_MemoryType type, int64_t id,
                             const char *kind, const TensorSpec &spec,
                             DLDevice &device) {
  if (type == TRITONSERVER_MEMORY_GPU) {
    if (!state.cuda || id != state.device)
      return tritonError(TRITONSERVER_ERROR_INVALID_ARG,
                         std::string(kind) + " '" + spec.name +
                             "' is in the memory of GPU " + std::to_string(id) +
                             ", but instance '" + state.name + "' runs on " +
                             (state.cuda ? "GPU " + std::to_string(state.device)
                                         : std::string("the cpu")));
    device = {kDLCUDA, static_cast<int32_t>(id)};
    return nullptr;
  }
  // Pinned host memory is host memory to a cpu session.
  device = {state.cuda && type == TRITONSERVER_MEMORY_CPU_PINNED ? kDLCUDAHost
                                                                 : kDLCPU,
            0};
  return nullptr;
}

DLTensor tensorOver(void *data, DLDevice device, const TensorSpec &spec,
                    std::vector<int64_t> &dims) {
  DLTensor tensor{};
  tensor.data = data;
  tensor.device = device;
  tensor.ndim = static_cast<int32_t>(dims.size());
  tensor.shape = dims.data();
  tensor.dtype = graphc::rt::dlpackFromDtype(spec.dtype);
  return tensor;
}

/// Reads input `i` of a request into `pending`.
TRITONSERVER_Error *readInput(InstanceState &state, Pending &pending,
                              size_t i) {
  const TensorSpec &spec = state.model->inputs[i];
  // Named in errors only: no string is built for a request that is right.
  auto what = [&] { return "input '" + spec.name + "'"; };
  TRITONBACKEND_Input *input = nullptr;
  if (TRITONSERVER_Error *error = TRITONBACKEND_RequestInput(
          pending.request, spec.name.c_str(), &input)) {
    TRITONSERVER_ErrorDelete(error);
    return tritonError(TRITONSERVER_ERROR_INVALID_ARG,
                       "the request has no " + what() + ", which model '" +
                           state.model->name + "' takes");
  }
  TRITONSERVER_DataType datatype;
  const int64_t *shape = nullptr;
  uint32_t rank = 0, buffers = 0;
  uint64_t bytes = 0;
  if (TRITONSERVER_Error *error = TRITONBACKEND_InputProperties(
          input, nullptr, &datatype, &shape, &rank, &bytes, &buffers))
    return error;
  if (datatype != spec.serverDtype) {
    const TritonDtype *given = tritonDtypeOfServer(datatype);
    return tritonError(
        TRITONSERVER_ERROR_INVALID_ARG,
        what() + " is " +
            (given ? std::string(given->config)
                   : "of Triton data type " + std::to_string(int(datatype))) +
            "; model '" + state.model->name + "' takes " +
            tritonDtypeOf(spec.dtype)->config + " (" +
            graphc_dtype_name(spec.dtype) + ")");
  }
  std::vector<int64_t> &dims = pending.inputDims[i];
  dims.assign(shape, shape + rank);
  uint64_t expected = 0;
  if (!denseBytes(dims, spec.dtype, expected))
    return tritonError(TRITONSERVER_ERROR_INVALID_ARG,
                       what() + " has a negative dim, or more bytes than fit "
                                "in 64 bits");
  if (bytes != expected)
    return tritonError(TRITONSERVER_ERROR_INVALID_ARG,
                       what() + " carries " + std::to_string(bytes) +
                           " bytes, but its shape and dtype make " +
                           std::to_string(expected));
  DLDevice device{kDLCPU, 0};
  void *data = nullptr;
  if (buffers == 1) {
    const void *buffer = nullptr;
    uint64_t size = 0;
    TRITONSERVER_MemoryType type = state.preferredMemory;
    int64_t id = state.preferredMemoryId;
    if (TRITONSERVER_Error *error =
            TRITONBACKEND_InputBuffer(input, 0, &buffer, &size, &type, &id))
      return error;
    if (TRITONSERVER_Error *error =
            deviceOf(state, type, id, "input", spec, device))
      return error;
    data = const_cast<void *>(buffer);
  } else {
    // Several buffers (a client that sent the tensor in pieces): gathered
    // into one host buffer, the only copy the backend makes.
    std::vector<unsigned char> &host = pending.gathered[i];
    host.resize(bytes);
    uint64_t at = 0;
    for (uint32_t b = 0; b < buffers; ++b) {
      const void *buffer = nullptr;
      uint64_t size = 0;
      TRITONSERVER_MemoryType type = TRITONSERVER_MEMORY_CPU;
      int64_t id = 0;
      if (TRITONSERVER_Error *error =
              TRITONBACKEND_InputBuffer(input, b, &buffer, &size, &type, &id))
        return error;
      if (size > bytes - at)
        return tritonError(TRITONSERVER_ERROR_INVALID_ARG,
                           what() + "'s buffers hold more than its " +
                               std::to_string(bytes) + " bytes");
      DLDevice piece;
      if (TRITONSERVER_Error *error =
              deviceOf(state, type, id, "input", spec, piece))
        return error;
      if (piece.device_type == kDLCUDA) {
        if (graphc_status status = graphc_session_download(
                state.session, host.data() + at, buffer, size))
          return tritonError(status);
      } else if (size) {
        std::memcpy(host.data() + at, buffer, size);
      }
      at += size;
    }
    data = host.data();
  }
  // A zero-byte tensor may come without a buffer; the runtime wants one.
  static unsigned char empty;
  pending.inputs[i] = tensorOver(data ? data : &empty, device, spec, dims);
  return nullptr;
}

/// Reads a request's inputs, asks the artifact for its output dims and
/// allocates its response's outputs.
TRITONSERVER_Error *prepare(InstanceState &state, Pending &pending) {
  const ModelState &model = *state.model;
  size_t numInputs = model.inputs.size(), numOutputs = model.outputs.size();
  pending.inputDims.resize(numInputs);
  pending.inputs.resize(numInputs);
  pending.gathered.resize(numInputs);
  pending.outputDims.resize(numOutputs);
  pending.outputs.resize(numOutputs);
  pending.unrequested.resize(numOutputs);
  pending.answerAfterRun.assign(numOutputs, false);
  uint32_t given = 0;
  if (TRITONSERVER_Error *error =
          TRITONBACKEND_RequestInputCount(pending.request, &given))
    return error;
  if (given != numInputs)
    return tritonError(TRITONSERVER_ERROR_INVALID_ARG,
                       "the request has " + std::to_string(given) +
                           " inputs; model '" + model.name + "' takes " +
                           std::to_string(numInputs));
  for (size_t i = 0; i < numInputs; ++i)
    if (TRITONSERVER_Error *error = readInput(state, pending, i))
      return error;
  if (model.maxBatchSize > 0 && !pending.inputDims.empty() &&
      !pending.inputDims[0].empty())
    pending.rows = static_cast<uint64_t>(pending.inputDims[0][0]);

  // The artifact's answer for these dims: its error names the input and
  // dim, and the sizes it takes.
  std::vector<int32_t> ranks(numInputs);
  std::vector<const int64_t *> dims(numInputs);
  for (size_t i = 0; i < numInputs; ++i) {
    ranks[i] = static_cast<int32_t>(pending.inputDims[i].size());
    dims[i] = pending.inputDims[i].data();
  }
  std::vector<int64_t *> outputDims(numOutputs);
  for (size_t o = 0; o < numOutputs; ++o) {
    pending.outputDims[o].resize(model.outputs[o].rank);
    outputDims[o] = pending.outputDims[o].data();
  }
  if (graphc_status status = graphc_model_output_dims(
          state.loaded, static_cast<int32_t>(numInputs),
          model.inputNames.data(), ranks.data(), dims.data(),
          outputDims.data()))
    return tritonError(status);

  std::vector<bool> requested(numOutputs, false);
  uint32_t asked = 0;
  if (TRITONSERVER_Error *error =
          TRITONBACKEND_RequestOutputCount(pending.request, &asked))
    return error;
  for (uint32_t a = 0; a < asked; ++a) {
    const char *name = nullptr;
    if (TRITONSERVER_Error *error =
            TRITONBACKEND_RequestOutputName(pending.request, a, &name))
      return error;
    for (size_t o = 0; o < numOutputs; ++o)
      if (model.outputs[o].name == name)
        requested[o] = true;
  }
  if (TRITONSERVER_Error *error =
          TRITONBACKEND_ResponseNew(&pending.response, pending.request))
    return error;
  for (size_t o = 0; o < numOutputs; ++o) {
    const TensorSpec &spec = model.outputs[o];
    std::vector<int64_t> &shape = pending.outputDims[o];
    // The runtime computed these dims for a run it accepts: they fit.
    uint64_t bytes = 0;
    denseBytes(shape, spec.dtype, bytes);
    void *data = nullptr;
    DLDevice device{kDLCPU, 0};
    // Known at its bounds only: the run writes it to host memory here (a
    // cuda run copies it there), and the response gets its corner later.
    pending.answerAfterRun[o] = requested[o] && spec.dataDependent;
    if (requested[o] && !spec.dataDependent) {
      TRITONBACKEND_Output *output = nullptr;
      if (TRITONSERVER_Error *error = TRITONBACKEND_ResponseOutput(
              pending.response, &output, spec.name.c_str(), spec.serverDtype,
              shape.data(), static_cast<uint32_t>(shape.size())))
        return error;
      TRITONSERVER_MemoryType type = state.preferredMemory;
      int64_t id = state.preferredMemoryId;
      if (TRITONSERVER_Error *error =
              TRITONBACKEND_OutputBuffer(output, &data, bytes, &type, &id))
        return error;
      if (TRITONSERVER_Error *error =
              deviceOf(state, type, id, "output", spec, device))
        return error;
    } else {
      pending.unrequested[o].resize(bytes);
      data = pending.unrequested[o].data();
    }
    static unsigned char empty;
    pending.outputs[o] = tensorOver(data ? data : &empty, device, spec, shape);
  }
  return nullptr;
}

/// Runs `batch` as one run (its requests' rows concatenated), or one request
/// alone when the batch has one: synchronously, on the session's own stream
/// (the responses go out once the run is complete).
graphc_status runBatch(InstanceState &state,
                       const std::vector<Pending *> &batch) {
  std::vector<const DLTensor *> inputs, outputs;
  for (Pending *pending : batch) {
    inputs.push_back(pending->inputs.data());
    outputs.push_back(pending->outputs.data());
  }
  const ModelState &model = *state.model;
  return graphc_session_run_batch(
      state.session, static_cast<int32_t>(batch.size()), inputs.data(),
      static_cast<int32_t>(model.inputs.size()), model.inputNames.data(),
      outputs.data(), static_cast<int32_t>(model.outputs.size()), nullptr);
}

/// After `pending`'s run (the session's latest), adds each requested
/// output with data-dependent dims to its response: of the dims the run
/// found, holding the leading corner of what the run wrote at the bounds.
TRITONSERVER_Error *answerAfterRun(InstanceState &state, Pending &pending) {
  const ModelState &model = *state.model;
  for (size_t o = 0; o < model.outputs.size(); ++o) {
    if (!pending.answerAfterRun[o])
      continue;
    const TensorSpec &spec = model.outputs[o];
    std::vector<int64_t> found(spec.rank);
    if (graphc_status status = graphc_session_output_dims(
            state.session, static_cast<int32_t>(o), found.data()))
      return tritonError(status);
    // Within the bounds the runtime checked, so the bytes fit.
    uint64_t bytes = 0;
    denseBytes(found, spec.dtype, bytes);
    TRITONBACKEND_Output *output = nullptr;
    if (TRITONSERVER_Error *error = TRITONBACKEND_ResponseOutput(
            pending.response, &output, spec.name.c_str(), spec.serverDtype,
            found.data(), static_cast<uint32_t>(found.size())))
      return error;
    void *data = nullptr;
    TRITONSERVER_MemoryType type = state.preferredMemory;
    int64_t id = state.preferredMemoryId;
    if (TRITONSERVER_Error *error =
            TRITONBACKEND_OutputBuffer(output, &data, bytes, &type, &id))
      return error;
    DLDevice device;
    if (TRITONSERVER_Error *error =
            deviceOf(state, type, id, "output", spec, device))
      return error;
    if (!bytes)
      continue;
    // The corner, gathered row by row: into the response's host buffer, or
    // on the host first and then uploaded to its GPU buffer.
    std::vector<unsigned char> gathered;
    auto *into = static_cast<unsigned char *>(data);
    if (device.device_type == kDLCUDA) {
      gathered.resize(bytes);
      into = gathered.data();
    }
    std::vector<int64_t> origin(found.size(), 0);
    const unsigned char *bounded = pending.unrequested[o].data();
    graphc::rt::forEachContiguousRun(
        found, pending.outputDims[o], origin, found, origin,
        graphc_dtype_size(spec.dtype),
        [&](uint64_t from, uint64_t to, uint64_t count) {
          std::memcpy(into + to, bounded + from, count);
        });
    if (device.device_type == kDLCUDA)
      if (graphc_status status =
              graphc_session_upload(state.session, data, into, bytes))
        return tritonError(status);
  }
  return nullptr;
}

/// Runs each request of `batch` alone, each with its own outcome.
void runAlone(InstanceState &state, const std::vector<Pending *> &batch) {
  for (Pending *p : batch) {
    if (graphc_status status = runBatch(state, {p}))
      p->error = tritonError(status);
    else
      p->error = answerAfterRun(state, *p);
  }
}

} // namespace

extern "C" TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceExecute(TRITONBACKEND_ModelInstance *instance,
                                   TRITONBACKEND_Request **requests,
                                   uint32_t request_count) {
  uint64_t execStart = nowNs();
  void *statePointer = nullptr;
  if (TRITONSERVER_Error *error =
          TRITONBACKEND_ModelInstanceState(instance, &statePointer))
    return error; // Triton keeps the requests.
  InstanceState &state = *static_cast<InstanceState *>(statePointer);

  // From here on the requests are ours: each is answered and released.
  std::vector<Pending> pending(request_count);
  std::vector<Pending *> runnable;
  for (uint32_t r = 0; r < request_count; ++r) {
    pending[r].request = requests[r];
    pending[r].error = prepare(state, pending[r]);
    if (!pending[r].error)
      runnable.push_back(&pending[r]);
  }

  uint64_t computeStart = nowNs();
  if (state.model->batchable && runnable.size() > 1) {
    graphc_status status = runBatch(state, runnable);
    if (graphc_status_code(status) == GRAPHC_INVALID_ARGUMENT) {
      // One request's data was wrong (an index out of range in a Gather):
      // each runs alone, so that only that request gets the error.
      graphc_status_free(status);
      runAlone(state, runnable);
    } else if (status) {
      // A device fault or memory: the batch as a whole failed.
      TRITONSERVER_Error *error = tritonError(status);
      for (Pending *p : runnable)
        p->error = TRITONSERVER_ErrorNew(TRITONSERVER_ErrorCode(error),
                                         TRITONSERVER_ErrorMessage(error));
      TRITONSERVER_ErrorDelete(error);
    }
  } else {
    runAlone(state, runnable);
  }
  uint64_t computeEnd = nowNs();

  uint64_t rows = 0;
  for (Pending &p : pending) {
    p.succeeded = !p.error;
    if (p.succeeded)
      rows += p.rows;
    if (!p.response) {
      if (TRITONSERVER_Error *made =
              TRITONBACKEND_ResponseNew(&p.response, p.request)) {
        // No response can be made: the request is still released below.
        logIfError(made, "cannot create a response");
        TRITONSERVER_ErrorDelete(p.error);
        p.response = nullptr;
        continue;
      }
    }
    // ResponseSend takes the response but not the error, which it copies
    // (one error may answer several responses).
    logIfError(TRITONBACKEND_ResponseSend(
                   p.response, TRITONSERVER_RESPONSE_COMPLETE_FINAL, p.error),
               "cannot send a response");
    TRITONSERVER_ErrorDelete(p.error);
    p.error = nullptr;
  }
  uint64_t execEnd = nowNs();

  for (Pending &p : pending) {
    logIfError(TRITONBACKEND_ModelInstanceReportStatistics(
                   instance, p.request, p.succeeded, execStart, computeStart,
                   computeEnd, execEnd),
               "cannot report a request's statistics");
    logIfError(TRITONBACKEND_RequestRelease(p.request,
                                            TRITONSERVER_REQUEST_RELEASE_ALL),
               "cannot release a request");
  }
  if (rows)
    logIfError(
        TRITONBACKEND_ModelInstanceReportBatchStatistics(
            instance, rows, execStart, computeStart, computeEnd, execEnd),
        "cannot report the batch's statistics");
  return nullptr;
}
