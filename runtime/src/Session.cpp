//===- Session.cpp - sessions and running a model -------------------------===//
#include "runtime/src/Session.h"

#include "lib/Artifact/Staging.h"
#include "runtime/src/Binding.h"
#include "runtime/src/CpuExecutor.h"
#include "runtime/src/CudaSession.h"
#include "runtime/src/Dtype.h"
#include "runtime/src/Model.h"
#include "runtime/src/Status.h"

#include <algorithm>
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
  session.probeSteps = options.flags & GRAPHC_SESSION_PROBE_STEPS;
  if (session.probeSteps) {
    // The copies between the steps would be timed with them.
    if (options.flags & GRAPHC_SESSION_PROFILE_STEPS)
      return makeStatus(GRAPHC_INVALID_ARGUMENT,
                        "GRAPHC_SESSION_PROBE_STEPS and "
                        "GRAPHC_SESSION_PROFILE_STEPS cannot be combined: the "
                        "probe copies would be timed with their steps");
    if (graphc_status status = buildProbeLayout(model, session.probes))
      return status;
  }
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
    session.profileSteps = options.flags & GRAPHC_SESSION_PROFILE_STEPS;
    if (session.probeSteps && session.probes.bytes) {
      uint64_t bytes = roundUpToAlignment(session.probes.bytes);
      if (bytes)
        session.probeBuffer.reset(std::aligned_alloc(GRAPHC_ALIGNMENT, bytes));
      if (!session.probeBuffer)
        return makeStatus(
            GRAPHC_RESOURCE_EXHAUSTED,
            "cannot allocate a " + std::to_string(session.probes.bytes) +
                "-byte probe buffer for model '" + model.path + "'");
    }
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
  return CudaSession::create(model, *device, options.flags,
                             session.probeSteps ? &session.probes : nullptr,
                             session.cuda);
}

/// Bytes of `tensor` at a plan's `dims`.
uint64_t planBytes(const graphc_tensor_desc &tensor, const int64_t *dims) {
  return graphc_dtype_bytes(
      tensor.dtype, static_cast<uint64_t>(elementCount(tensor.rank, dims)));
}

graphc_status stagingError(const char *what, const char *name,
                           const graphc_plan_desc &plan) {
  return makeStatus(GRAPHC_INTERNAL, std::string(what) + " '" + name +
                                         "' does not fit the staging of plan '" +
                                         plan.name + "'");
}

/// A host tensor over `data` with `dims` (kept alive by the caller).
DLTensor hostTensor(void *data, const graphc_tensor_desc &desc,
                    std::vector<int64_t> &dims) {
  DLTensor tensor{};
  tensor.data = data;
  tensor.device = {kDLCPU, 0};
  tensor.ndim = desc.rank;
  tensor.shape = dims.data();
  return tensor;
}

/// Runs plan `planIndex` of `session` (a cpu one) on these tensors.
graphc_status runCpuPlanOf(graphc_session &session, int32_t planIndex,
                           const std::vector<const DLTensor *> &inputs,
                           const DLTensor *outputs) {
  const graphc_model &model = *session.model;
  return runCpuPlan(
      model, model.desc->plans[planIndex],
      static_cast<char *>(session.arena.get()), inputs, outputs,
      session.args.data(), session.profileSteps ? &session.profile : nullptr,
      session.probeSteps ? &session.probes.plans[planIndex] : nullptr,
      static_cast<char *>(session.probeBuffer.get()));
}

/// Runs a padded or split run, or a batched one, on the host: each part's
/// inputs are padded into staging of its bucket's shapes (a batch's
/// requests gathered there), its plan runs, and the valid part of each
/// output is copied out (to each request's own output).
graphc_status runCpuStaged(graphc_session &session, const RunShape &shape,
                           const std::vector<SegmentedTensor> &inputs,
                           const std::vector<SegmentedTensor> &outputs) {
  const graphc_model &model = *session.model;
  const graphc_model_desc &desc = *model.desc;
  if (session.inputStaging.empty()) {
    session.inputStaging.resize(desc.num_inputs);
    session.outputStaging.resize(desc.num_outputs);
    for (int32_t p = 0; p < desc.num_plans; ++p) {
      for (int32_t i = 0; i < desc.num_inputs; ++i)
        if (uint64_t bytes =
                planBytes(desc.inputs[i], desc.plans[p].input_dims[i]);
            bytes > session.inputStaging[i].size())
          session.inputStaging[i].resize(bytes);
      for (int32_t o = 0; o < desc.num_outputs; ++o)
        if (uint64_t bytes =
                planBytes(desc.outputs[o], desc.plans[p].output_dims[o]);
            bytes > session.outputStaging[o].size())
          session.outputStaging[o].resize(bytes);
    }
  }
  for (const RunPart &part : shape.parts) {
    const graphc_plan_desc &plan = desc.plans[part.plan];
    std::vector<std::vector<int64_t>> stagedDims(desc.num_inputs +
                                                 desc.num_outputs);
    std::vector<DLTensor> stagedInputs(desc.num_inputs);
    std::vector<const DLTensor *> stagedPointers(desc.num_inputs);
    for (int32_t i = 0; i < desc.num_inputs; ++i) {
      const graphc_tensor_desc &input = desc.inputs[i];
      std::vector<int64_t> &dims = stagedDims[i];
      dims.assign(plan.input_dims[i], plan.input_dims[i] + input.rank);
      unsigned char *staging = session.inputStaging[i].data();
      unsigned char pattern[8];
      size_t elementBytes = padPattern(input.dtype, input.pad_value, pattern);
      uint64_t bytes = planBytes(input, plan.input_dims[i]);
      // A run at the plan's dims (batched) covers all of it.
      for (uint64_t at = 0; shape.staged && at < bytes; at += elementBytes)
        std::memcpy(staging + at, pattern, elementBytes);
      if (!forEachStagedCopy(
              partInputCopy(model, shape, part, i, inputs[i].dims.data()),
              inputs[i], true,
              [&](const Segment &source, uint64_t from, uint64_t to,
                  uint64_t count) {
                std::memcpy(staging + to, source.data + from, count);
              }))
        return stagingError("input", input.name, plan);
      stagedInputs[i] = hostTensor(staging, input, dims);
      stagedPointers[i] = &stagedInputs[i];
    }
    std::vector<DLTensor> stagedOutputs(desc.num_outputs);
    for (int32_t o = 0; o < desc.num_outputs; ++o) {
      std::vector<int64_t> &dims = stagedDims[desc.num_inputs + o];
      dims.assign(plan.output_dims[o],
                  plan.output_dims[o] + desc.outputs[o].rank);
      stagedOutputs[o] = hostTensor(session.outputStaging[o].data(),
                                    desc.outputs[o], dims);
    }
    if (graphc_status status = runCpuPlanOf(session, part.plan, stagedPointers,
                                            stagedOutputs.data()))
      return status;
    for (int32_t o = 0; o < desc.num_outputs; ++o) {
      std::optional<BoxCopy> box = partOutputCopy(model, shape, part, o);
      if (!box)
        continue;
      const unsigned char *staged = session.outputStaging[o].data();
      if (!forEachStagedCopy(*box, outputs[o], false,
                             [&](const Segment &target, uint64_t to,
                                 uint64_t from, uint64_t count) {
                               std::memcpy(target.data + to, staged + from,
                                           count);
                             }))
        return stagingError("output", desc.outputs[o].name, plan);
    }
  }
  return nullptr;
}

/// resolveRun for inputs given in the caller's order (by name when
/// `names` is not null), as the C API takes them.
graphc_status resolveNamedRun(const graphc_model &model, int32_t numInputs,
                              const char *const *names, const int32_t *ranks,
                              const int64_t *const *dims, RunShape &shape) {
  std::vector<int32_t> modelIndex;
  if (graphc_status status = orderInputs(model, numInputs, names, modelIndex))
    return status;
  std::vector<int32_t> orderedRanks(numInputs);
  std::vector<const int64_t *> orderedDims(numInputs);
  for (int32_t i = 0; i < numInputs; ++i) {
    orderedRanks[modelIndex[i]] = ranks[i];
    orderedDims[modelIndex[i]] = dims[i];
  }
  return resolveRun(model, orderedRanks.data(), orderedDims.data(), shape);
}

/// Runs a validated run of `shape` on its tensors (model order): on cuda
/// (`stream` as CudaSession::run takes it), staged on the host (padded,
/// split or batched), or by the plan on the caller's tensors themselves.
graphc_status runBound(graphc_session &session, const RunShape &shape,
                       const std::vector<SegmentedTensor> &inputs,
                       const std::vector<SegmentedTensor> &outputs,
                       const cu::Stream *stream) {
  // Every output is empty: validated, and nothing to compute or write.
  if (shape.empty) {
    session.outputPlan = shape.parts.back().plan;
    session.outputRunEmpty = true;
    return nullptr;
  }
  auto segmented = [](const std::vector<SegmentedTensor> &tensors) {
    return std::any_of(
        tensors.begin(), tensors.end(),
        [](const SegmentedTensor &t) { return t.segments.size() != 1; });
  };
  // cpu kernels load and store whole elements: a caller's buffer not
  // aligned to its element size (a tensor inside a network message, as a
  // server hands it over) goes through the staging buffers, which are.
  const graphc_model_desc &model = *session.model->desc;
  auto misaligned = [](const std::vector<SegmentedTensor> &tensors,
                       const graphc_tensor_desc *descs) {
    for (size_t t = 0; t < tensors.size(); ++t) {
      uintptr_t size = graphc_dtype_size(descs[t].dtype);
      for (const Segment &segment : tensors[t].segments)
        if (size > 1 && reinterpret_cast<uintptr_t>(segment.data) % size)
          return true;
    }
    return false;
  };
  graphc_status status;
  if (session.cuda) {
    status = session.cuda->run(shape, inputs, outputs, stream);
  } else if (shape.staged || segmented(inputs) || segmented(outputs) ||
             misaligned(inputs, model.inputs) ||
             misaligned(outputs, model.outputs)) {
    status = runCpuStaged(session, shape, inputs, outputs);
  } else {
    const graphc_model_desc &desc = model;
    std::vector<DLTensor> plain(desc.num_inputs + desc.num_outputs);
    std::vector<const DLTensor *> plainInputs(desc.num_inputs);
    std::vector<std::vector<int64_t>> dims(plain.size());
    for (int32_t i = 0; i < desc.num_inputs; ++i) {
      dims[i] = inputs[i].dims;
      plain[i] =
          hostTensor(inputs[i].segments[0].data, desc.inputs[i], dims[i]);
      plainInputs[i] = &plain[i];
    }
    for (int32_t o = 0; o < desc.num_outputs; ++o) {
      size_t at = desc.num_inputs + o;
      dims[at] = outputs[o].dims;
      plain[at] =
          hostTensor(outputs[o].segments[0].data, desc.outputs[o], dims[at]);
    }
    status = runCpuPlanOf(session, shape.parts.front().plan, plainInputs,
                          plain.data() + desc.num_inputs);
  }
  if (!status) {
    session.probedPlan = shape.parts.back().plan;
    session.outputPlan = shape.parts.back().plan;
    session.outputRunEmpty = false;
  }
  return status;
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
  // Probes and output dims name the last run's plan only when that run
  // succeeds.
  session->probedPlan = -1;
  session->outputPlan = -1;
  DeviceRequirement device{static_cast<graphc_target>(model.desc->target),
                           session->ordinal};
  std::vector<const DLTensor *> ordered;
  RunShape shape;
  if (graphc_status status =
          bindRun(model, device, inputs, numInputs, inputNames, outputs,
                  numOutputs, ordered, shape))
    return status;
  std::vector<SegmentedTensor> inputParts, outputParts;
  for (const DLTensor *input : ordered)
    inputParts.push_back(wholeTensor(*input));
  for (int32_t o = 0; o < numOutputs; ++o)
    outputParts.push_back(wholeTensor(outputs[o]));
  return runBound(*session, shape, inputParts, outputParts, stream);
}

/// graphc_session_run_batch: `stream` null runs synchronously on the
/// session's stream, else `*stream` is the caller's CUstream on cuda.
graphc_status runBatch(graphc_session *session, int32_t numRequests,
                       const DLTensor *const *requestInputs, int32_t numInputs,
                       const char *const *inputNames,
                       const DLTensor *const *requestOutputs,
                       int32_t numOutputs, const cu::Stream *stream) {
  if (!session)
    return makeStatus(GRAPHC_INVALID_ARGUMENT, "session is NULL");
  const graphc_model &model = *session->model;
  session->probedPlan = -1;
  session->outputPlan = -1;
  DeviceRequirement device{static_cast<graphc_target>(model.desc->target),
                           session->ordinal, true};
  BatchRun batch;
  if (graphc_status status =
          bindBatch(model, device, numRequests, requestInputs, numInputs,
                    inputNames, requestOutputs, numOutputs, batch))
    return status;
  return runBound(*session, batch.shape, batch.inputs, batch.outputs, stream);
}

/// The plan of the session's last probed run, after the checks that
/// graphc_session_probe_count documents.
graphc_status lastProbedPlan(graphc_session &session, int32_t &plan) {
  if (graphc_status status = checkProbedRun(
          session.probeSteps, session.cuda && session.cuda->inFlight(),
          session.probedPlan))
    return status;
  plan = session.probedPlan;
  return nullptr;
}

/// Fails unless `kernel` indexes the model's kernel table.
graphc_status checkKernelIndex(const graphc_model_desc &desc, int32_t kernel) {
  if (kernel >= 0 && kernel < desc.num_kernels)
    return nullptr;
  return makeStatus(GRAPHC_INVALID_ARGUMENT,
                    "kernel " + std::to_string(kernel) +
                        " is out of range: the model has " +
                        std::to_string(desc.num_kernels) + " kernels");
}

/// What the entry points that size a run without running it share: their
/// arguments checked (`out` names the caller's out-parameter, given or not
/// as `hasOut`), the run of the named inputs resolved and `use` called with
/// its shape, under guardAllocations(`entry`).
template <typename Use>
graphc_status withResolvedRun(const char *entry, const char *out, bool hasOut,
                              const graphc_model *model, int32_t numInputs,
                              const char *const *names, const int32_t *ranks,
                              const int64_t *const *dims, Use use) {
  if (!model || !hasOut || (numInputs > 0 && (!ranks || !dims)))
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      std::string(entry) + " needs a model, ranks, dims and " +
                          out);
  return guardAllocations(entry, [&]() -> graphc_status {
    RunShape shape;
    if (graphc_status status =
            resolveNamedRun(*model, numInputs, names, ranks, dims, shape))
      return status;
    return use(shape);
  });
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

graphc_status graphc_session_run_batch(graphc_session *session,
                                       int32_t num_requests,
                                       const DLTensor *const *request_inputs,
                                       int32_t num_inputs,
                                       const char *const *input_names,
                                       const DLTensor *const *request_outputs,
                                       int32_t num_outputs, void *stream) {
  if (session && !session->cuda && stream)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "graphc_session_run_batch: a cpu model runs on no "
                      "stream; pass NULL");
  // NULL: synchronous on the session's own stream, as graphc_session_run.
  cu::Stream cudaStream = static_cast<cu::Stream>(stream);
  return guardAllocations("graphc_session_run_batch", [&] {
    return runBatch(session, num_requests, request_inputs, num_inputs,
                    input_names, request_outputs, num_outputs,
                    stream ? &cudaStream : nullptr);
  });
}

graphc_status graphc_session_synchronize(graphc_session *session) {
  if (!session)
    return makeStatus(GRAPHC_INVALID_ARGUMENT, "session is NULL");
  graphc_status status = session->cuda ? session->cuda->synchronize() : nullptr;
  // An asynchronous run that failed leaves no probes and no extents to read.
  if (status) {
    session->probedPlan = -1;
    session->outputPlan = -1;
  }
  return status;
}

graphc_status graphc_session_output_dims(graphc_session *session,
                                         int32_t output, int64_t *out_dims) {
  if (!session)
    return makeStatus(GRAPHC_INVALID_ARGUMENT, "session is NULL");
  const graphc_model_desc &desc = *session->model->desc;
  if (output < 0 || output >= desc.num_outputs)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "output index " + std::to_string(output) +
                          " out of range (the model has " +
                          std::to_string(desc.num_outputs) + ")");
  const graphc_tensor_desc &tensor = desc.outputs[output];
  std::string name = "output '" + std::string(tensor.name) + "'";
  if (tensor.rank > 0 && !out_dims)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "graphc_session_output_dims: out_dims is NULL for " +
                          name + " of rank " + std::to_string(tensor.rank));
  return guardAllocations("graphc_session_output_dims", [&]() -> graphc_status {
    if (session->outputPlan < 0)
      return makeStatus(GRAPHC_FAILED_PRECONDITION,
                        name + ": the session has no run to give its dims "
                               "(none yet, or the latest one failed)");
    // The latest run may still be queued: its extents are known once it
    // has finished, and a failure it found is reported instead.
    if (session->cuda)
      if (graphc_status status = graphc_session_synchronize(session))
        return status;
    const graphc_plan_desc &plan = desc.plans[session->outputPlan];
    std::vector<int64_t> dims(plan.output_dims[output],
                              plan.output_dims[output] + tensor.rank);
    for (int32_t d = 0; tensor.data_dependent && d < tensor.rank; ++d) {
      if (!tensor.data_dependent[d])
        continue;
      // A run that computed nothing (every output empty) found nothing.
      int64_t extent = 0;
      uint64_t offset = plan.output_extents[output][d].offset;
      if (!session->outputRunEmpty && session->cuda) {
        if (graphc_status status =
                session->cuda->readArena(offset, sizeof extent, &extent))
          return status;
      } else if (!session->outputRunEmpty) {
        std::memcpy(&extent, static_cast<char *>(session->arena.get()) + offset,
                    sizeof extent);
      }
      // The kernel that found it is the artifact's: a value past the bound
      // the buffers were planned for is a bug, never the caller's.
      if (extent < 0 || extent > dims[d])
        return makeStatus(GRAPHC_INTERNAL,
                          name + " dim " + std::to_string(d) +
                              ": the run found extent " +
                              std::to_string(extent) + ", outside [0, " +
                              std::to_string(dims[d]) +
                              "], the bound of plan '" + plan.name + "'");
      dims[d] = extent;
    }
    std::copy(dims.begin(), dims.end(), out_dims);
    return nullptr;
  });
}

graphc_status graphc_session_probe_count(graphc_session *session,
                                         int32_t *out_plan,
                                         int32_t *out_count) {
  if (!session || !out_plan || !out_count)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "graphc_session_probe_count needs a session, an "
                      "out_plan and an out_count");
  int32_t plan = -1;
  if (graphc_status status = lastProbedPlan(*session, plan))
    return status;
  *out_plan = plan;
  *out_count = static_cast<int32_t>(session->probes.plans[plan].slots.size());
  return nullptr;
}

graphc_status graphc_session_read_probe(graphc_session *session, int32_t index,
                                        graphc_probe_info *out_info, void *data,
                                        uint64_t capacity) {
  if (!session || !out_info)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "graphc_session_read_probe needs a session and an "
                      "out_info");
  return guardAllocations("graphc_session_read_probe", [&]() -> graphc_status {
    int32_t plan = -1;
    if (graphc_status status = lastProbedPlan(*session, plan))
      return status;
    graphc_probe_info info;
    const ProbeSlot *slot = nullptr;
    if (graphc_status status =
            probeAt(*session->model, session->probes, plan, index, info, slot))
      return status;
    if (data && capacity < slot->size)
      return makeStatus(GRAPHC_INVALID_ARGUMENT,
                        "probe " + std::to_string(index) + " is " +
                            std::to_string(slot->size) + " bytes, more than " +
                            "the capacity of " + std::to_string(capacity));
    if (data && slot->size) {
      if (session->cuda) {
        if (graphc_status status =
                session->cuda->readProbe(slot->offset, slot->size, data))
          return status;
      } else {
        std::memcpy(data,
                    static_cast<char *>(session->probeBuffer.get()) +
                        slot->offset,
                    slot->size);
      }
    }
    *out_info = info;
    return nullptr;
  });
}

graphc_status graphc_session_step_times(graphc_session *session,
                                       int32_t *out_plan, double *out_micros,
                                       int32_t capacity, int32_t *out_steps) {
  if (!session || !out_plan || !out_steps || capacity < 0 ||
      (capacity > 0 && !out_micros))
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "graphc_session_step_times needs a session, out_plan, "
                      "out_steps, and out_micros for a positive capacity");
  StepProfile profile;
  if (session->cuda) {
    if (graphc_status status = session->cuda->stepTimes(profile))
      return status;
  } else {
    if (!session->profileSteps)
      return makeStatus(GRAPHC_FAILED_PRECONDITION,
                        "the session was created without "
                        "GRAPHC_SESSION_PROFILE_STEPS");
    if (session->profile.plan < 0)
      return makeStatus(GRAPHC_FAILED_PRECONDITION,
                        "no run has been profiled yet");
    profile = session->profile;
  }
  *out_plan = profile.plan;
  *out_steps = static_cast<int32_t>(profile.micros.size());
  std::copy_n(profile.micros.begin(),
              std::min<size_t>(capacity, profile.micros.size()), out_micros);
  return nullptr;
}

graphc_status graphc_session_library_kernel_note(graphc_session *session,
                                                 int32_t kernel,
                                                 const char **out_note) {
  if (!session || !out_note)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "graphc_session_library_kernel_note needs a session and "
                      "an out_note");
  if (graphc_status status = checkKernelIndex(*session->model->desc, kernel))
    return status;
  *out_note = "";
  if (session->cuda &&
      session->model->desc->kernels[kernel].library != GRAPHC_LIBRARY_NONE)
    *out_note = session->cuda->libraryKernelNote(kernel).c_str();
  return nullptr;
}

graphc_status
graphc_session_library_kernel_info(graphc_session *session, int32_t kernel,
                                   graphc_library_kernel_info *out_info) {
  if (!session || !out_info)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "graphc_session_library_kernel_info needs a session and "
                      "an out_info");
  const graphc_model_desc &desc = *session->model->desc;
  if (graphc_status status = checkKernelIndex(desc, kernel))
    return status;
  const graphc_kernel_desc &k = desc.kernels[kernel];
  if (k.library == GRAPHC_LIBRARY_NONE) {
    *out_info = {GRAPHC_LIBRARY_NONE, -1, -1, -1, 0};
    return nullptr;
  }
  if (session->cuda) {
    session->cuda->libraryKernelInfo(kernel, *out_info);
    return nullptr;
  }
  // The reference GEMM and convolution compute everything, with no
  // heuristic and no workspace.
  out_info->library = k.library;
  out_info->fused = 1;
  out_info->rank = -1;
  out_info->requested_rank = k.gemm ? k.gemm->algo_rank : k.conv->engine_rank;
  out_info->workspace_bytes = 0;
  return nullptr;
}

graphc_status graphc_session_time_library_kernel(
    graphc_session *session, int32_t kernel, int32_t max_ranks, int32_t split_k,
    int32_t warmup, int32_t repeats, graphc_library_candidate *out,
    int32_t capacity, int32_t *out_count) {
  if (!session || !out_count || capacity < 0 || (capacity > 0 && !out))
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "graphc_session_time_library_kernel needs a session, "
                      "an out_count and room for `capacity` candidates");
  const graphc_model_desc &desc = *session->model->desc;
  if (graphc_status status = checkKernelIndex(desc, kernel))
    return status;
  if (desc.kernels[kernel].library == GRAPHC_LIBRARY_NONE)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "kernel " + std::to_string(kernel) +
                          " is generated, not a library kernel");
  if (!session->cuda)
    return makeStatus(GRAPHC_UNIMPLEMENTED,
                      "a cpu model's library kernels run the runtime's "
                      "reference code, which has no algorithms to time");
  std::vector<graphc_library_candidate> candidates;
  if (graphc_status status = session->cuda->timeLibraryKernel(
          kernel, max_ranks, split_k != 0, warmup, repeats, candidates))
    return status;
  for (size_t c = 0; c < candidates.size() && c < size_t(capacity); ++c)
    out[c] = candidates[c];
  *out_count = static_cast<int32_t>(candidates.size());
  return nullptr;
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
  return withResolvedRun("graphc_model_select_plan", "an out_plan_index",
                         out_plan_index != nullptr, model, num_inputs,
                         input_names, input_ranks, input_dims,
                         [&](const RunShape &shape) -> graphc_status {
                           *out_plan_index = shape.parts.front().plan;
                           return nullptr;
                         });
}

graphc_status graphc_model_batch_dim(const graphc_model *model,
                                     int32_t *out_index) {
  if (!model || !out_index)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "graphc_model_batch_dim needs a model and an out_index");
  return guardAllocations("graphc_model_batch_dim", [&]() -> graphc_status {
    int32_t dim = -1;
    if (graphc_status status = findBatchDim(*model, 0, dim))
      return status;
    *out_index = dim;
    return nullptr;
  });
}

graphc_status graphc_model_output_dims(const graphc_model *model,
                                       int32_t num_inputs,
                                       const char *const *input_names,
                                       const int32_t *input_ranks,
                                       const int64_t *const *input_dims,
                                       int64_t *const *out_output_dims) {
  return withResolvedRun(
      "graphc_model_output_dims", "out_output_dims", out_output_dims != nullptr,
      model, num_inputs, input_names, input_ranks, input_dims,
      [&](const RunShape &shape) -> graphc_status {
        // Checked before anything is written; a rank-0 output has no dims
        // to write, so its pointer may be NULL.
        for (int32_t o = 0; o < model->desc->num_outputs; ++o)
          if (!out_output_dims[o] && !shape.outputDims[o].empty())
            return makeStatus(GRAPHC_INVALID_ARGUMENT,
                              "out_output_dims[" + std::to_string(o) +
                                  "] is NULL");
        for (int32_t o = 0; o < model->desc->num_outputs; ++o)
          std::copy(shape.outputDims[o].begin(), shape.outputDims[o].end(),
                    out_output_dims[o]);
        return nullptr;
      });
}

} // extern "C"
