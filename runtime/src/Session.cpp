//===- Session.cpp - sessions and running a model -------------------------===//
#include "runtime/src/Session.h"

#include "runtime/src/Binding.h"
#include "runtime/src/CpuExecutor.h"
#include "runtime/src/CudaSession.h"
#include "runtime/src/Model.h"
#include "runtime/src/Status.h"

#include <cstring>

using namespace graphc::rt;

graphc_session::~graphc_session() = default;

namespace {
/// `bytes` rounded up to GRAPHC_ALIGNMENT, or 0 when that overflows.
uint64_t roundUpToAlignment(uint64_t bytes) {
  uint64_t padded;
  if (__builtin_add_overflow(bytes, GRAPHC_ALIGNMENT - 1, &padded))
    return 0;
  return padded / GRAPHC_ALIGNMENT * GRAPHC_ALIGNMENT;
}

graphc_status createSession(graphc_session &session,
                            const graphc_session_options &options) {
  const graphc_model &model = *session.model;
  if (model.desc->target == GRAPHC_TARGET_CPU) {
    if (model.maxArenaBytes) {
      // aligned_alloc wants a size that is a multiple of the alignment.
      uint64_t bytes = roundUpToAlignment(model.maxArenaBytes);
      if (bytes)
        session.arena.reset(std::aligned_alloc(GRAPHC_ALIGNMENT, bytes));
      if (!session.arena)
        return makeStatus(GRAPHC_RESOURCE_EXHAUSTED,
                          "cannot allocate a " + std::to_string(bytes) +
                              "-byte arena for model '" + model.path + "'");
    }
    session.args.resize(model.maxStepArgs);
    return nullptr;
  }
  if (!model.cuda)
    return makeStatus(GRAPHC_FAILED_PRECONDITION,
                      "model '" + model.path +
                          "' was loaded for inspection only and cannot run");
  CudaDevice *device = nullptr;
  if (graphc_status status =
          model.cuda->acquire(model, options.device_ordinal, device))
    return status;
  return CudaSession::create(model, *device, options.flags, session.cuda);
}

/// graphc_session_run (`stream` null: synchronous) and
/// graphc_session_run_on_stream (`*stream`: the caller's CUstream).
graphc_status runSession(graphc_session *session, const DLTensor *inputs,
                         int32_t numInputs, const char *const *inputNames,
                         const DLTensor *outputs, int32_t numOutputs,
                         const cu::Stream *stream) {
  if (!session)
    return makeStatus(GRAPHC_INVALID_ARGUMENT, "session is NULL");
  const graphc_model &model = *session->model;
  DeviceRequirement device{static_cast<graphc_target>(model.desc->target),
                           session->ordinal};
  std::vector<const DLTensor *> ordered;
  int32_t plan = -1;
  if (graphc_status status =
          bindRun(model, device, inputs, numInputs, inputNames, outputs,
                  numOutputs, ordered, plan))
    return status;
  if (session->cuda)
    return session->cuda->run(plan, ordered, outputs, stream);
  return runCpuPlan(model, model.desc->plans[plan],
                    static_cast<char *>(session->arena.get()), ordered, outputs,
                    session->args.data());
}
} // namespace

extern "C" {

void graphc_session_options_init(graphc_session_options *options) {
  if (!options)
    return;
  options->flags = 0;
  options->device_ordinal = 0;
}

graphc_status graphc_session_create(graphc_model *model,
                                    const graphc_session_options *options,
                                    graphc_session **out_session) {
  if (!model || !out_session)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "graphc_session_create needs a model and an out_session");
  graphc_session_options defaults;
  graphc_session_options_init(&defaults);
  if (!options)
    options = &defaults;
  return guardAllocations("graphc_session_create", [&]() -> graphc_status {
    auto session = std::make_unique<graphc_session>();
    session->model = model;
    session->ordinal = options->device_ordinal;
    if (graphc_status status = createSession(*session, *options))
      return status;
    *out_session = session.release();
    return nullptr;
  });
}

void graphc_session_release(graphc_session *session) { delete session; }

graphc_status graphc_session_run(graphc_session *session,
                                 const DLTensor *inputs, int32_t num_inputs,
                                 const char *const *input_names,
                                 const DLTensor *outputs, int32_t num_outputs) {
  return guardAllocations("graphc_session_run", [&] {
    return runSession(session, inputs, num_inputs, input_names, outputs,
                      num_outputs, nullptr);
  });
}

graphc_status graphc_session_run_on_stream(graphc_session *session,
                                           const DLTensor *inputs,
                                           int32_t num_inputs,
                                           const char *const *input_names,
                                           const DLTensor *outputs,
                                           int32_t num_outputs, void *stream) {
  if (session && !session->cuda && stream)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "graphc_session_run_on_stream: a cpu model runs on no "
                      "stream; pass NULL");
  cu::Stream cudaStream = static_cast<cu::Stream>(stream);
  return guardAllocations("graphc_session_run_on_stream", [&] {
    return runSession(session, inputs, num_inputs, input_names, outputs,
                      num_outputs, &cudaStream);
  });
}

graphc_status graphc_session_synchronize(graphc_session *session) {
  if (!session)
    return makeStatus(GRAPHC_INVALID_ARGUMENT, "session is NULL");
  return session->cuda ? session->cuda->synchronize() : nullptr;
}

graphc_status graphc_session_allocate_buffer(graphc_session *session,
                                             uint64_t bytes, void **out_data) {
  if (!session || !out_data)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "graphc_session_allocate_buffer needs a session and an "
                      "out_data");
  if (session->cuda) {
    void *data = nullptr;
    if (graphc_status status = session->cuda->allocate(bytes, data))
      return status;
    *out_data = data;
    return nullptr;
  }
  uint64_t rounded = bytes ? roundUpToAlignment(bytes) : GRAPHC_ALIGNMENT;
  void *data =
      rounded ? std::aligned_alloc(GRAPHC_ALIGNMENT, rounded) : nullptr;
  if (!data)
    return makeStatus(GRAPHC_RESOURCE_EXHAUSTED,
                      "cannot allocate " + std::to_string(bytes) + " bytes");
  *out_data = data;
  return nullptr;
}

void graphc_session_free_buffer(graphc_session *session, void *data) {
  if (!session || !data)
    return;
  if (session->cuda)
    session->cuda->free(data);
  else
    std::free(data);
}

graphc_status graphc_session_upload(graphc_session *session, void *device_dst,
                                    const void *host_src, uint64_t bytes) {
  if (!session)
    return makeStatus(GRAPHC_INVALID_ARGUMENT, "session is NULL");
  if (session->cuda)
    return session->cuda->upload(device_dst, host_src, bytes);
  std::memcpy(device_dst, host_src, bytes);
  return nullptr;
}

graphc_status graphc_session_download(graphc_session *session, void *host_dst,
                                      const void *device_src, uint64_t bytes) {
  if (!session)
    return makeStatus(GRAPHC_INVALID_ARGUMENT, "session is NULL");
  if (session->cuda)
    return session->cuda->download(host_dst, device_src, bytes);
  std::memcpy(host_dst, device_src, bytes);
  return nullptr;
}

graphc_status graphc_model_select_plan(const graphc_model *model,
                                       int32_t num_inputs,
                                       const char *const *input_names,
                                       const int32_t *input_ranks,
                                       const int64_t *const *input_dims,
                                       int32_t *out_plan_index) {
  if (!model || !out_plan_index ||
      (num_inputs > 0 && (!input_ranks || !input_dims)))
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "graphc_model_select_plan needs a model, ranks, dims "
                      "and an out_plan_index");
  return guardAllocations("graphc_model_select_plan", [&]() -> graphc_status {
    std::vector<int32_t> modelIndex;
    if (graphc_status status =
            orderInputs(*model, num_inputs, input_names, modelIndex))
      return status;
    std::vector<int32_t> ranks(num_inputs);
    std::vector<const int64_t *> dims(num_inputs);
    for (int32_t i = 0; i < num_inputs; ++i) {
      ranks[modelIndex[i]] = input_ranks[i];
      dims[modelIndex[i]] = input_dims[i];
    }
    int32_t plan = -1;
    if (graphc_status status =
            selectPlan(*model, ranks.data(), dims.data(), plan))
      return status;
    *out_plan_index = plan;
    return nullptr;
  });
}

} // extern "C"
