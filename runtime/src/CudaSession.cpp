//===- CudaSession.cpp - a session's stream, arena and CUDA graphs --------===//
#include "runtime/src/CudaSession.h"

#include "lib/Artifact/Staging.h"
#include "runtime/src/Binding.h"
#include "runtime/src/DescriptorCheck.h"
#include "runtime/src/LibraryTiming.h"
#include "runtime/src/Model.h"
#include "runtime/src/Status.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace graphc::rt;

namespace {
uint64_t alignUp(uint64_t value) {
  return (value + GRAPHC_ALIGNMENT - 1) / GRAPHC_ALIGNMENT * GRAPHC_ALIGNMENT;
}

/// Whether a run's tensor is one buffer of the device (not batched, not in
/// host memory), which the plan may read or write in place.
bool onDevice(const SegmentedTensor &tensor) {
  return tensor.segments.size() == 1 && !tensor.segments[0].host;
}

/// The first byte of a tensor's first segment.
cu::DevicePtr devicePointer(const SegmentedTensor &tensor) {
  return reinterpret_cast<cu::DevicePtr>(tensor.segments[0].data);
}

bool environmentFlag(const char *name) {
  const char *value = std::getenv(name);
  return value && *value && std::strcmp(value, "0") != 0;
}

bool debugSyncFromEnvironment() { return environmentFlag("GRAPHC_DEBUG_SYNC"); }

/// Whether a run of `plan` can leave something in the error record.
bool planReportsErrors(const graphc_model_desc &desc,
                       const graphc_plan_desc &plan) {
  for (int32_t s = 0; s < plan.num_steps; ++s) {
    const graphc_step_desc &step = plan.steps[s];
    if (step.kind != GRAPHC_STEP_COPY &&
        desc.kernels[step.kernel].reports_errors)
      return true;
  }
  return false;
}

/// How deep the plan's loops nest (0: it has none).
int32_t loopDepth(const graphc_plan_desc &plan) {
  int32_t deepest = 0;
  std::vector<int32_t> ends; // where each open loop's body ends
  for (int32_t s = 0; s < plan.num_steps; ++s) {
    while (!ends.empty() && s >= ends.back())
      ends.pop_back();
    const graphc_step_desc &step = plan.steps[s];
    if (step.kind != GRAPHC_STEP_LOOP)
      continue;
    ends.push_back(s + 1 + step.body_steps);
    deepest = std::max(deepest, static_cast<int32_t>(ends.size()));
  }
  return deepest;
}

/// The arguments of a loop's control kernel besides the step's four
/// buffers: the conditional handle and the phase.
constexpr int32_t kLoopControlArgs = 6;

/// The input addresses followed by the output addresses.
std::vector<cu::DevicePtr>
joinBuffers(const std::vector<cu::DevicePtr> &inputs,
            const std::vector<cu::DevicePtr> &outputs) {
  std::vector<cu::DevicePtr> buffers(inputs);
  buffers.insert(buffers.end(), outputs.begin(), outputs.end());
  return buffers;
}

} // namespace

CudaSession::CudaSession(const graphc_model &model, CudaDevice &device,
                         bool useGraphs, bool debugSync, bool profile,
                         const ProbeLayout *probes)
    : model(model), drv(model.cuda->driver()), device(device),
      useGraphs(useGraphs), debugSync(debugSync), profile(profile),
      probes(probes), graphs(model.desc->num_plans, nullptr),
      boundGraphs(model.desc->num_plans),
      lastStagedBuffers(model.desc->num_plans),
      planReports(model.desc->num_plans, 0), padSource(model.desc->num_inputs),
      argValues(model.maxStepArgs),
      argPointers(std::max(model.maxStepArgs, kLoopControlArgs) + 2) {
  for (int32_t p = 0; p < model.desc->num_plans; ++p) {
    planReports[p] = planReportsErrors(*model.desc, model.desc->plans[p]);
    maxLoopDepth = std::max(maxLoopDepth, loopDepth(model.desc->plans[p]));
  }
}

std::string CudaSession::describeKernel(int32_t kernel) const {
  return graphc::rt::describeKernel(model.desc->kernels[kernel]);
}

graphc_status CudaSession::libraryError(graphc_code code,
                                        const std::string &what,
                                        const std::string &failure) const {
  return makeStatus(code, what + " on cuda:" + std::to_string(device.ordinal) +
                              " for model '" + model.path + "': " + failure);
}

uint32_t CudaSession::pointerAlignment(const graphc_buffer_ref &ref) const {
  // Callers' buffers are used in place only when aligned like staging
  // (callerBuffersUsable); otherwise the run stages them.
  uint64_t alignment = GRAPHC_ALIGNMENT;
  uint64_t offsetBit = ref.offset & (~ref.offset + 1);
  if (offsetBit && offsetBit < alignment)
    alignment = offsetBit;
  return static_cast<uint32_t>(alignment);
}

graphc_status CudaSession::prepareLibraryKernels() {
  const lt::Library *cublasLt = model.cuda->cublasLt();
  const dnn::Library *cudnn = model.cuda->cudnn();
  if (!cublasLt && !cudnn)
    return nullptr;
  const graphc_model_desc &desc = *model.desc;
  // Per kernel, over every step that calls it: the smallest workspace and
  // the least alignment of each operand. UINT64_MAX: no step calls it.
  std::vector<uint64_t> workspace(desc.num_kernels, UINT64_MAX);
  std::vector<GemmAlignment> gemmAlignment(desc.num_kernels);
  std::vector<ConvAlignment> convAlignment(desc.num_kernels);
  std::vector<SdpaAlignment> sdpaAlignment(desc.num_kernels);
  for (int32_t p = 0; p < desc.num_plans; ++p) {
    for (int32_t s = 0; s < desc.plans[p].num_steps; ++s) {
      const graphc_step_desc &step = desc.plans[p].steps[s];
      if (step.kind != GRAPHC_STEP_LIBRARY_CALL)
        continue;
      const graphc_kernel_desc &kernel = desc.kernels[step.kernel];
      const graphc_gemm_desc *gemm = kernel.gemm;
      const graphc_conv_desc *conv = kernel.conv;
      const graphc_sdpa_desc *sdpa = kernel.sdpa;
      const graphc_buffer_ref &scratch =
          step.args[gemm   ? gemm->workspace_arg
                    : sdpa ? sdpa->workspace_arg
                           : conv->workspace_arg];
      uint64_t bytes = scratch.kind == GRAPHC_BUFFER_NONE ? 0 : scratch.size;
      workspace[step.kernel] = std::min(workspace[step.kernel], bytes);
      auto narrow = [&](uint32_t &to, int32_t arg) {
        if (arg >= 0)
          to = std::min(to, pointerAlignment(step.args[arg]));
      };
      if (gemm) {
        GemmAlignment &least = gemmAlignment[step.kernel];
        narrow(least.a, gemm->a_arg);
        narrow(least.b, gemm->b_arg);
        narrow(least.c, gemm->c_arg);
        narrow(least.bias, gemm->bias_arg);
        narrow(least.d, gemm->d_arg);
      } else if (sdpa) {
        SdpaAlignment &least = sdpaAlignment[step.kernel];
        narrow(least.q, sdpa->q_arg);
        narrow(least.k, sdpa->k_arg);
        narrow(least.v, sdpa->v_arg);
        narrow(least.bias, sdpa->bias_arg);
        narrow(least.o, sdpa->o_arg);
      } else {
        ConvAlignment &least = convAlignment[step.kernel];
        narrow(least.x, conv->x_arg);
        narrow(least.w, conv->w_arg);
        narrow(least.bias, conv->bias_arg);
        narrow(least.z, conv->z_arg);
        narrow(least.y, conv->y_arg);
      }
    }
  }
  std::string where = "on cuda:" + std::to_string(device.ordinal) +
                      " for model '" + model.path + "'";
  // Like an allocation, never part of a capture.
  cu::RelaxedCaptureGuard relaxed(drv);
  if (cublasLt) {
    lt::Status status = cublasLt->create(&ltHandle);
    if (status != lt::kSuccess) {
      ltHandle = nullptr;
      return makeStatus(GRAPHC_INTERNAL, "cannot create a cuBLASLt handle " +
                                             where + ": " +
                                             cublasLt->describe(status));
    }
  }
  if (cudnn) {
    dnn::Status status = cudnn->create(&dnnHandle);
    if (status != dnn::kSuccess) {
      dnnHandle = nullptr;
      return makeStatus(GRAPHC_INTERNAL, "cannot create a cuDNN handle " +
                                             where + ": " +
                                             cudnn->describe(status));
    }
    // Every execution goes on the session's stream, in order with its
    // launches and copies, and into its captures.
    status = cudnn->setStream(dnnHandle, stream);
    if (status != dnn::kSuccess)
      return makeStatus(GRAPHC_INTERNAL, "cannot set the cuDNN handle's "
                                         "stream " +
                                             where + ": " +
                                             cudnn->describe(status));
  }
  gemms.resize(desc.num_kernels);
  convs.resize(desc.num_kernels);
  sdpas.resize(desc.num_kernels);
  for (int32_t k = 0; k < desc.num_kernels; ++k) {
    if (workspace[k] == UINT64_MAX)
      continue;
    const graphc_kernel_desc &kernel = desc.kernels[k];
    std::string why;
    if (kernel.library == GRAPHC_LIBRARY_CUBLASLT) {
      // The model's check found the GEMM's form one cuBLASLt runs; the
      // device is this session's.
      if (!cublasLtRunsOn(*kernel.gemm, device.sm, why))
        return makeStatus(GRAPHC_FAILED_PRECONDITION,
                          "cannot run " + describeKernel(k) + " on cuBLASLt " +
                              where + ": " + why);
      graphc_code code =
          CublasLtGemm::create(*cublasLt, ltHandle, *kernel.gemm, workspace[k],
                               gemmAlignment[k], gemms[k], why);
      if (code != GRAPHC_OK)
        return makeStatus(code, "cannot run " + describeKernel(k) +
                                    " on cuBLASLt " + where + ": " + why);
    } else if (kernel.sdpa) {
      graphc_code code =
          CudnnSdpa::create(*cudnn, dnnHandle, *kernel.sdpa, workspace[k],
                            sdpaAlignment[k], sdpas[k], why);
      if (code != GRAPHC_OK)
        return makeStatus(code, "cannot run " + describeKernel(k) +
                                    " on cuDNN " + where + ": " + why);
    } else if (kernel.library == GRAPHC_LIBRARY_CUDNN) {
      graphc_code code =
          CudnnConv::create(*cudnn, dnnHandle, *kernel.conv, workspace[k],
                            convAlignment[k], convs[k], why);
      if (code != GRAPHC_OK)
        return makeStatus(code, "cannot run " + describeKernel(k) +
                                    " on cuDNN " + where + ": " + why);
    }
  }
  libraryWorkspace = std::move(workspace);
  gemmAlignments = std::move(gemmAlignment);
  convAlignments = std::move(convAlignment);
  return nullptr;
}

graphc_status CudaSession::error(const std::string &what,
                                 cu::Result result) const {
  std::string message = what + " on cuda:" + std::to_string(device.ordinal) +
                        " for model '" + model.path +
                        "': " + drv.describe(result);
  if (cu::isStickyError(result)) {
    message += "; the CUDA context is unusable from now on and every later "
               "call on this device fails: restart the process";
    if (!debugSync)
      message += " (GRAPHC_DEBUG_SYNC=1 names the failing kernel)";
    cu::poisonDevice(device.ordinal, message);
  }
  return makeStatus(result == cu::kErrorOutOfMemory ? GRAPHC_RESOURCE_EXHAUSTED
                                                    : GRAPHC_INTERNAL,
                    message);
}

graphc_status CudaSession::checkDevice() const {
  std::string cause;
  if (!cu::devicePoisoned(device.ordinal, cause))
    return nullptr;
  return makeStatus(GRAPHC_INTERNAL,
                    "cuda:" + std::to_string(device.ordinal) +
                        " is unusable after an earlier failure: " + cause);
}

graphc_status
CudaSession::enterDevice(std::optional<cu::ContextGuard> &guard) const {
  if (graphc_status status = checkDevice())
    return status;
  guard.emplace(drv, device.context);
  if (guard->result() != cu::kSuccess)
    return error("cannot make the context current", guard->result());
  return nullptr;
}

graphc_status CudaSession::create(const graphc_model &model, CudaDevice &device,
                                  uint32_t flags, const ProbeLayout *probes,
                                  std::unique_ptr<CudaSession> &out) {
  bool debugSync =
      (flags & GRAPHC_SESSION_DEBUG_SYNC) || debugSyncFromEnvironment();
  bool profile = flags & GRAPHC_SESSION_PROFILE_STEPS;
  std::unique_ptr<CudaSession> session(new CudaSession(
      model, device,
      !(flags & GRAPHC_SESSION_DISABLE_CUDA_GRAPHS) && !debugSync && !profile,
      debugSync, profile, probes));
  std::optional<cu::ContextGuard> guard;
  if (graphc_status status = session->enterDevice(guard))
    return status;
  const cu::Driver &drv = session->drv;
  cu::Result result =
      drv.streamCreate(&session->stream, cu::kStreamNonBlocking);
  if (result != cu::kSuccess) {
    session->stream = nullptr;
    return session->error("cannot create a stream", result);
  }
  // One stream per loop nesting level captures the loop bodies at that
  // level (cuStreamBeginCaptureToGraph) while the levels above capture.
  if (session->useGraphs)
    for (int32_t level = 0; level < session->maxLoopDepth; ++level) {
      cu::Stream body = nullptr;
      if ((result = drv.streamCreate(&body, cu::kStreamNonBlocking)) !=
          cu::kSuccess)
        return session->error("cannot create a stream for loop bodies", result);
      session->bodyStreams.push_back(body);
    }
  if ((result = drv.eventCreate(&session->callerReady,
                                cu::kEventDisableTiming)) != cu::kSuccess ||
      (result = drv.eventCreate(&session->runDone, cu::kEventDisableTiming)) !=
          cu::kSuccess)
    return session->error("cannot create an event", result);
  if (profile) {
    if (!drv.eventElapsedTime)
      return makeStatus(GRAPHC_FAILED_PRECONDITION,
                        "cannot profile steps: the CUDA driver has no "
                        "cuEventElapsedTime");
    int32_t maxSteps = 0;
    for (int32_t p = 0; p < model.desc->num_plans; ++p)
      maxSteps = std::max(maxSteps, model.desc->plans[p].num_steps);
    session->stepEvents.assign(maxSteps + 1, nullptr);
    for (cu::Event &event : session->stepEvents)
      if ((result = drv.eventCreate(&event, 0)) != cu::kSuccess) {
        event = nullptr;
        return session->error("cannot create a timing event", result);
      }
  }

  // Staging is read by graphs captured for changing buffers, by runs
  // padded up to a bucket and by runs on buffers that cannot be used in
  // place (callerBuffersUsable).
  const graphc_model_desc &desc = *model.desc;
  std::vector<uint64_t> inputBytes(desc.num_inputs, 0);
  std::vector<uint64_t> outputBytes(desc.num_outputs, 0);
  for (int32_t p = 0; p < desc.num_plans; ++p) {
    for (int32_t i = 0; i < desc.num_inputs; ++i)
      inputBytes[i] =
          std::max(inputBytes[i], planTensorBytes(desc.inputs[i],
                                                  desc.plans[p].input_dims[i]));
    for (int32_t o = 0; o < desc.num_outputs; ++o)
      outputBytes[o] = std::max(
          outputBytes[o],
          planTensorBytes(desc.outputs[o], desc.plans[p].output_dims[o]));
  }
  // The kernels wait for their predecessor only where they were compiled
  // for SM 9.0 or newer.
  session->programmaticLaunch = device.sm >= 90 && device.codeSm >= 90 &&
                                drv.launchKernelEx &&
                                !environmentFlag("GRAPHC_DISABLE_PDL");
  uint64_t total = alignUp(model.maxArenaBytes);
  for (uint64_t bytes : inputBytes)
    total += alignUp(bytes);
  for (uint64_t bytes : outputBytes)
    total += alignUp(bytes);
  total += kErrorRecordBytes;
  {
    cu::RelaxedCaptureGuard relaxed(drv);
    result = drv.memAlloc(&session->block, total);
    if (result != cu::kSuccess) {
      session->block = 0;
      return session->error("cannot allocate " + std::to_string(total) +
                                " bytes for the arena and staging",
                            result);
    }
    void *pinned = nullptr;
    result = drv.memAllocHost(&pinned, kErrorRecordBytes);
    if (result != cu::kSuccess)
      return session->error("cannot allocate pinned host memory", result);
    session->hostRecord = static_cast<unsigned long long *>(pinned);
    std::memset(pinned, 0, kErrorRecordBytes);
    if (session->maxLoopDepth) {
      result = drv.memAllocHost(&pinned, kLoopStateBytes);
      if (result != cu::kSuccess)
        return session->error("cannot allocate pinned host memory", result);
      session->hostLoopState = static_cast<int64_t *>(pinned);
    }
    if (probes && probes->bytes) {
      result = drv.memAlloc(&session->probeBuffer, probes->bytes);
      if (result != cu::kSuccess) {
        session->probeBuffer = 0;
        return session->error("cannot allocate " +
                                  std::to_string(probes->bytes) +
                                  " bytes for the probes",
                              result);
      }
    }
  }
  cu::DevicePtr next = session->block;
  session->arena = next;
  next += alignUp(model.maxArenaBytes);
  for (uint64_t bytes : inputBytes) {
    session->inputStaging.push_back(next);
    next += alignUp(bytes);
  }
  for (uint64_t bytes : outputBytes) {
    session->outputStaging.push_back(next);
    next += alignUp(bytes);
  }
  session->errorRecord = next;
  session->errorArg = next;
  result = drv.memsetD8Async(session->errorRecord, 0, kErrorRecordBytes,
                             session->stream);
  // Attention kernels that split their keys count arrivals in the arena's
  // first bytes (graphc-plan-memory), which must start zero; they leave
  // them zero after every run.
  if (result == cu::kSuccess && model.maxArenaBytes)
    result = drv.memsetD8Async(session->arena, 0, alignUp(model.maxArenaBytes),
                               session->stream);
  if (result == cu::kSuccess)
    result = drv.streamSynchronize(session->stream);
  if (result != cu::kSuccess)
    return session->error("cannot clear the error record and the arena",
                          result);

  if (graphc_status status = session->prepareLibraryKernels())
    return status;
  if ((flags & GRAPHC_SESSION_TIME_LIBRARY_ALGORITHMS) ||
      timeLibraryAlgorithmsFromEnvironment())
    if (graphc_status status = session->timeLibraryAlgorithms())
      return status;

  if (session->useGraphs && (flags & GRAPHC_SESSION_EAGER_CAPTURE)) {
    for (int32_t p = 0; p < desc.num_plans; ++p) {
      if (graphc_status status =
              session->capture(p, session->inputStaging, session->outputStaging,
                               session->graphs[p]))
        return status;
    }
  }
  out = std::move(session);
  return nullptr;
}

CudaSession::~CudaSession() {
  cu::ContextGuard guard(drv, device.context);
  for (cu::GraphExec graph : graphs) {
    if (graph)
      drv.graphExecDestroy(graph);
  }
  for (const std::vector<BoundGraph> &bound : boundGraphs)
    for (const BoundGraph &graph : bound)
      drv.graphExecDestroy(graph.exec);
  // Work queued by an asynchronous run may still read the block.
  if (stream)
    drv.streamSynchronize(stream);
  gemms.clear();
  if (ltHandle)
    model.cuda->cublasLt()->destroy(ltHandle);
  convs.clear();
  sdpas.clear();
  if (dnnHandle)
    model.cuda->cudnn()->destroy(dnnHandle);
  drv.destroyIfCreated(callerReady);
  drv.destroyIfCreated(runDone);
  for (cu::Event event : stepEvents)
    drv.destroyIfCreated(event);
  if (stream)
    drv.streamDestroy(stream);
  for (cu::Stream body : bodyStreams)
    drv.streamDestroy(body);
  cu::RelaxedCaptureGuard relaxed(drv);
  drv.freeIfAllocated(block);
  drv.freeIfAllocated(probeBuffer);
  if (hostRecord)
    drv.memFreeHost(hostRecord);
  if (hostLoopState)
    drv.memFreeHost(hostLoopState);
}

cu::Result CudaSession::launch(cu::Function function, const uint32_t grid[3],
                               const uint32_t block[3], uint32_t sharedBytes,
                               int32_t numArgs, const graphc_plan_desc &plan,
                               int32_t step, bool plain) {
  argPointers[numArgs] = &errorArg;
  argPointers[numArgs + 1] = &stepArg;
  stepArg = static_cast<unsigned>(
      (static_cast<uint64_t>(&plan - model.desc->plans) << kSiteStepBits) |
      static_cast<uint64_t>(step));
  // Launches in a captured loop body, and the first after a conditional
  // node, wait for all of their predecessor: programmatic edges are for
  // kernel nodes, and a body's first kernel has none.
  bool programmatic =
      programmaticLaunch && !plain && !bodyLevel && !afterLoopNode;
  afterLoopNode = false;
  if (!programmatic)
    return drv.launchKernel(function, grid[0], grid[1], grid[2], block[0],
                            block[1], block[2], sharedBytes, work,
                            argPointers.data(), nullptr);
  cu::LaunchAttribute attribute{};
  attribute.id = cu::kLaunchAttributeProgrammaticStreamSerialization;
  attribute.value.programmaticStreamSerializationAllowed = 1;
  cu::LaunchConfig config{grid[0],  grid[1],     grid[2], block[0],   block[1],
                          block[2], sharedBytes, work,    &attribute, 1};
  return drv.launchKernelEx(&config, function, argPointers.data(), nullptr);
}

void CudaSession::resolveArgs(const graphc_step_desc &step,
                              const std::vector<cu::DevicePtr> &inputs,
                              const std::vector<cu::DevicePtr> &outputs) {
  for (int32_t a = 0; a < step.num_args; ++a) {
    const graphc_buffer_ref &ref = step.args[a];
    cu::DevicePtr base = 0;
    switch (ref.kind) {
    case GRAPHC_BUFFER_ARENA:
      base = arena;
      break;
    case GRAPHC_BUFFER_WEIGHTS:
      base = device.weights;
      break;
    case GRAPHC_BUFFER_INPUT:
      base = inputs[ref.index];
      break;
    case GRAPHC_BUFFER_OUTPUT:
      base = outputs[ref.index];
      break;
    default:
      break;
    }
    argValues[a] = ref.kind == GRAPHC_BUFFER_NONE ? 0 : base + ref.offset;
    argPointers[a] = &argValues[a];
  }
}

std::string CudaSession::describeStep(const graphc_plan_desc &plan,
                                      int32_t s) const {
  const graphc_step_desc &step = plan.steps[s];
  return "plan '" + std::string(plan.name) + "' step " + std::to_string(s) +
         (step.kind == GRAPHC_STEP_COPY ? std::string(" (copy)")
          : step.kind == GRAPHC_STEP_LOOP
              ? " (loop, " + describeKernel(step.kernel) + ")"
              : " (" + describeKernel(step.kernel) + ")");
}

graphc_status CudaSession::enqueue(const graphc_plan_desc &plan,
                                   const std::vector<cu::DevicePtr> &inputs,
                                   const std::vector<cu::DevicePtr> &outputs) {
  work = stream;
  bodyLevel = 0;
  afterLoopNode = false;
  if (graphc_status status =
          enqueueSteps(plan, 0, plan.num_steps, inputs, outputs))
    return status;
  if (profile) {
    if (cu::Result result = drv.eventRecord(stepEvents[plan.num_steps], stream))
      return error("cannot record a timing event", result);
    profiledPlan = static_cast<int32_t>(&plan - model.desc->plans);
  }
  if (!planReports[&plan - model.desc->plans])
    return nullptr;
  cu::Result result =
      drv.memcpyDtoHAsync(hostRecord, errorRecord, kErrorRecordBytes, stream);
  if (result != cu::kSuccess)
    return error("plan '" + std::string(plan.name) +
                     "': cannot read the device error record",
                 result);
  return nullptr;
}

graphc_status
CudaSession::enqueueSteps(const graphc_plan_desc &plan, int32_t begin,
                          int32_t end, const std::vector<cu::DevicePtr> &inputs,
                          const std::vector<cu::DevicePtr> &outputs,
                          bool inBody) {
  for (int32_t s = begin; s < end; ++s) {
    // Timing events bracket the plan's top-level steps only: a loop's time
    // covers all of its iterations (stepTimes).
    if (profile && !inBody)
      if (cu::Result result = drv.eventRecord(stepEvents[s], work))
        return error("cannot record a timing event", result);
    const graphc_step_desc &step = plan.steps[s];
    resolveArgs(step, inputs, outputs);
    std::string what = describeStep(plan, s);
    cu::Result result;
    if (step.kind == GRAPHC_STEP_LOOP) {
      if (graphc_status status = enqueueLoop(plan, s, inputs, outputs))
        return status;
      // The body ran the steps after it; its probes read the loop's
      // arguments.
      resolveArgs(step, inputs, outputs);
      result = cu::kSuccess;
    } else if (step.kind == GRAPHC_STEP_COPY) {
      // An empty copy: its result, if listed, has no bytes to probe.
      if (!step.args[1].size)
        continue;
      result = drv.memcpyDtoDAsync(argValues[1], argValues[0],
                                   step.args[1].size, work);
    } else if (step.kind == GRAPHC_STEP_LIBRARY_CALL) {
      const graphc_kernel_desc &kernel = model.desc->kernels[step.kernel];
      std::string failure;
      graphc_code code =
          kernel.sdpa
              ? (sdpas[step.kernel]->fused()
                     ? sdpas[step.kernel]->enqueue(argValues.data(), failure)
                     : GRAPHC_OK)
          : kernel.conv
              ? convs[step.kernel]->enqueue(argValues.data(), failure)
              : gemms[step.kernel]->enqueue(
                    argValues.data(),
                    step.args[kernel.gemm->workspace_arg].size, work, failure);
      if (code != GRAPHC_OK)
        return libraryError(code, what + " failed to launch", failure);
      result = cu::kSuccess;
      if (kernel.sdpa && !sdpas[step.kernel]->fused()) {
        // cuDNN has no engine for it: the generated attention kernel
        // computes it, from the step's arguments but the workspace.
        const graphc_sdpa_desc &sdpa = *kernel.sdpa;
        result = launch(device.functions[step.kernel], sdpa.fallback_grid,
                        sdpa.fallback_block, sdpa.fallback_shared_bytes,
                        sdpa.workspace_arg, plan, s);
      }
      if (kernel.conv && !convs[step.kernel]->fused()) {
        // cuDNN convolved alone into Y; the kernel's epilogue kernel
        // finishes it in place, from the step's arguments but the
        // workspace, launched as generated kernels are.
        const graphc_conv_desc &conv = *kernel.conv;
        result = launch(device.functions[step.kernel], conv.epilogue_grid,
                        conv.epilogue_block, 0, conv.workspace_arg, plan, s);
      }
    } else {
      result = launch(device.functions[step.kernel], step.grid, step.block,
                      step.shared_bytes, step.num_args, plan, s);
    }
    if (result != cu::kSuccess)
      return error(what + " failed to launch", result);
    if (probes) {
      // After the step's work on the stream, before the next step's. In a
      // loop's body, a probe holds the last iteration's value.
      const PlanProbes &planProbes = probes->plans[&plan - model.desc->plans];
      for (int32_t p = planProbes.firstSlot[s]; p < planProbes.firstSlot[s + 1];
           ++p) {
        const ProbeSlot &slot = planProbes.slots[p];
        if (!slot.size)
          continue;
        result = drv.memcpyDtoDAsync(probeBuffer + slot.offset,
                                     argValues[step.results[slot.result].arg],
                                     slot.size, work);
        if (result != cu::kSuccess)
          return error(what + ": cannot copy result " +
                           std::to_string(slot.result) + " to its probe",
                       result);
      }
    }
    if (debugSync) {
      result = drv.streamSynchronize(work);
      if (result != cu::kSuccess)
        return error(what + " failed", result);
    }
    if (step.kind == GRAPHC_STEP_LOOP)
      s += step.body_steps;
  }
  return nullptr;
}

cu::Result CudaSession::launchLoopControl(const graphc_plan_desc &plan,
                                          int32_t s,
                                          const cu::DevicePtr loopArgs[4],
                                          cu::GraphConditionalHandle handle,
                                          int phase) {
  const graphc_step_desc &step = plan.steps[s];
  // The driver copies the values at the call: locals are fine.
  cu::DevicePtr values[4] = {loopArgs[0], loopArgs[1], loopArgs[2],
                             loopArgs[3]};
  for (int a = 0; a < 4; ++a)
    argPointers[a] = &values[a];
  argPointers[4] = &handle;
  argPointers[5] = &phase;
  // Plain: the control kernel reads what the kernels before it wrote and
  // does not wait for them (gc_grid_dependency_wait) itself.
  return launch(device.functions[step.kernel], step.grid, step.block,
                step.shared_bytes, kLoopControlArgs, plan, s, /*plain=*/true);
}

graphc_status CudaSession::setLibraryStream(cu::Stream to) {
  if (!dnnHandle)
    return nullptr;
  const dnn::Library &cudnn = *model.cuda->cudnn();
  dnn::Status status = cudnn.setStream(dnnHandle, to);
  if (status != dnn::kSuccess)
    return makeStatus(GRAPHC_INTERNAL,
                      "cannot set the cuDNN handle's stream on cuda:" +
                          std::to_string(device.ordinal) + " for model '" +
                          model.path + "': " + cudnn.describe(status));
  return nullptr;
}

graphc_status
CudaSession::enqueueLoop(const graphc_plan_desc &plan, int32_t s,
                         const std::vector<cu::DevicePtr> &inputs,
                         const std::vector<cu::DevicePtr> &outputs) {
  const graphc_step_desc &step = plan.steps[s];
  const cu::DevicePtr loopArgs[4] = {argValues[0], argValues[1], argValues[2],
                                     argValues[3]};
  int32_t bodyBegin = s + 1, bodyEnd = s + 1 + step.body_steps;
  std::string what = describeStep(plan, s);
  if (capturing)
    return captureLoop(plan, s, loopArgs, inputs, outputs);

  // Not captured: the host runs the loop on the control kernel's state,
  // read back after each phase (waiting for the session's stream only).
  if (cu::Result result = launchLoopControl(plan, s, loopArgs, 0, 0))
    return error(what + " failed to launch", result);
  for (int64_t iteration = 0;; ++iteration) {
    cu::Result result =
        drv.memcpyDtoHAsync(hostLoopState, loopArgs[2], kLoopStateBytes, work);
    if (result == cu::kSuccess)
      result = drv.streamSynchronize(work);
    if (result != cu::kSuccess)
      return error(what + " failed", result);
    // The control kernel stops the loop (go = 0) where it passes
    // max_iterations and reports it; the bound keeps a kernel that does
    // not from hanging the run.
    if (!hostLoopState[1] || iteration >= step.max_iterations)
      return nullptr;
    if (graphc_status status = enqueueSteps(plan, bodyBegin, bodyEnd, inputs,
                                            outputs, /*inBody=*/true))
      return status;
    if ((result = launchLoopControl(plan, s, loopArgs, 0, 1)))
      return error(what + " failed to launch", result);
  }
}

graphc_status
CudaSession::captureLoop(const graphc_plan_desc &plan, int32_t s,
                         const cu::DevicePtr loopArgs[4],
                         const std::vector<cu::DevicePtr> &inputs,
                         const std::vector<cu::DevicePtr> &outputs) {
  const graphc_step_desc &step = plan.steps[s];
  std::string what = describeStep(plan, s);
  if (drv.missingConditionalSymbol)
    return makeStatus(
        GRAPHC_FAILED_PRECONDITION,
        "cannot capture " + what + " into a CUDA graph on cuda:" +
            std::to_string(device.ordinal) + " for model '" + model.path +
            "': the CUDA driver lacks " + drv.missingConditionalSymbol +
            " (loops in CUDA graphs need a CUDA 12.4 driver or newer; "
            "GRAPHC_SESSION_DISABLE_CUDA_GRAPHS runs them without graphs)");
  // The conditional handle belongs to the graph being captured (the plan's,
  // or the enclosing loop's body); the control kernel sets it before the
  // WHILE node and at the end of each iteration.
  int captureStatus = cu::kStreamCaptureStatusNone;
  cu::Graph graph = nullptr;
  cu::Result result = drv.streamGetCaptureInfo(
      work, &captureStatus, nullptr, &graph, nullptr, nullptr, nullptr);
  if (result == cu::kSuccess && captureStatus != cu::kStreamCaptureStatusActive)
    return makeStatus(GRAPHC_INTERNAL, "cannot capture " + what +
                                           ": the stream is not "
                                           "capturing");
  cu::GraphConditionalHandle handle = 0;
  if (result == cu::kSuccess)
    result = drv.graphConditionalHandleCreate(
        &handle, graph, device.context, 0, cu::kGraphConditionalAssignDefault);
  if (result != cu::kSuccess)
    return error("cannot create the conditional handle of " + what, result);
  if ((result = launchLoopControl(plan, s, loopArgs, handle, 0)))
    return error(what + " failed to launch", result);

  // The WHILE node after the phase-0 launch, its body captured on the
  // level's own stream, then the plan's capture continues after the node.
  const cu::GraphNode *dependencies = nullptr;
  const cu::GraphEdgeData *edges = nullptr;
  size_t count = 0;
  result = drv.streamGetCaptureInfo(work, &captureStatus, nullptr, &graph,
                                    &dependencies, &edges, &count);
  cu::GraphNodeParams params{};
  params.type = cu::kGraphNodeTypeConditional;
  params.conditional.handle = handle;
  params.conditional.type = cu::kGraphConditionalTypeWhile;
  params.conditional.size = 1;
  params.conditional.context = device.context;
  cu::GraphNode node = nullptr;
  if (result == cu::kSuccess)
    result =
        drv.graphAddNode(&node, graph, dependencies, edges, count, &params);
  if (result != cu::kSuccess)
    return error("cannot add the conditional node of " + what, result);
  cu::Stream outer = work;
  cu::Stream body = bodyStreams[bodyLevel];
  result = drv.streamBeginCaptureToGraph(body, params.conditional.graphsOut[0],
                                         nullptr, nullptr, 0,
                                         cu::kStreamCaptureModeThreadLocal);
  if (result != cu::kSuccess)
    return error("cannot begin capturing the body of " + what, result);
  work = body;
  ++bodyLevel;
  graphc_status status = setLibraryStream(body);
  if (!status)
    status = enqueueSteps(plan, s + 1, s + 1 + step.body_steps, inputs, outputs,
                          /*inBody=*/true);
  if (!status)
    if ((result = launchLoopControl(plan, s, loopArgs, handle, 1)))
      status = error(what + " failed to launch", result);
  --bodyLevel;
  work = outer;
  if (graphc_status restored = setLibraryStream(outer))
    if (!status)
      status = restored;
  // Always end the body's capture, so the stream is usable after a
  // failure; the body graph stays the node's.
  cu::Graph ended = nullptr;
  result = drv.streamEndCapture(body, &ended);
  if (status)
    return status;
  if (result != cu::kSuccess)
    return error("cannot capture the body of " + what, result);
  result = drv.streamUpdateCaptureDependencies(
      work, &node, nullptr, 1, cu::kStreamSetCaptureDependencies);
  if (result != cu::kSuccess)
    return error("cannot continue the capture after " + what, result);
  afterLoopNode = true;
  return nullptr;
}

void CudaSession::libraryKernelInfo(int32_t kernel,
                                    graphc_library_kernel_info &out) const {
  const graphc_kernel_desc &desc = model.desc->kernels[kernel];
  out.library = desc.library;
  out.requested_rank = desc.gemm   ? desc.gemm->algo_rank
                       : desc.sdpa ? desc.sdpa->engine_rank
                                   : desc.conv->engine_rank;
  out.fused = -1;
  out.rank = -1;
  out.workspace_bytes = 0;
  if (desc.gemm && size_t(kernel) < gemms.size() && gemms[kernel]) {
    // cuBLASLt fuses every epilogue the compiler gives it.
    out.fused = 1;
    out.rank = gemms[kernel]->algoRank();
    out.workspace_bytes = gemms[kernel]->workspaceSize();
  } else if (desc.sdpa && size_t(kernel) < sdpas.size() && sdpas[kernel]) {
    // Not fused: the generated attention kernel computes all of it.
    out.fused = sdpas[kernel]->fused() ? 1 : 0;
    out.rank = sdpas[kernel]->engineRank();
    out.workspace_bytes = sdpas[kernel]->workspaceSize();
  } else if (desc.conv && size_t(kernel) < convs.size() && convs[kernel]) {
    out.fused = convs[kernel]->fused() ? 1 : 0;
    out.rank = convs[kernel]->engineRank();
    out.workspace_bytes = convs[kernel]->workspaceSize();
  }
}

const std::string &CudaSession::libraryKernelNote(int32_t kernel) const {
  static const std::string none;
  const graphc_kernel_desc &desc = model.desc->kernels[kernel];
  if (desc.sdpa && size_t(kernel) < sdpas.size() && sdpas[kernel])
    return sdpas[kernel]->whyNotFused();
  if (desc.conv && size_t(kernel) < convs.size() && convs[kernel])
    return convs[kernel]->whyNotFused();
  // cuBLASLt fuses every epilogue the compiler gives it.
  return none;
}

graphc_status CudaSession::stepTimes(StepProfile &out) const {
  if (!profile)
    return makeStatus(GRAPHC_FAILED_PRECONDITION,
                      "the session was created without "
                      "GRAPHC_SESSION_PROFILE_STEPS");
  if (profiledPlan < 0)
    return makeStatus(GRAPHC_FAILED_PRECONDITION,
                      "no run has been profiled yet");
  std::optional<cu::ContextGuard> guard;
  if (graphc_status status = enterDevice(guard))
    return status;
  out.plan = profiledPlan;
  const graphc_plan_desc &plan = model.desc->plans[profiledPlan];
  out.micros.assign(plan.num_steps, 0.0);
  for (int32_t s = 0; s < plan.num_steps; ++s) {
    // A loop's time covers all of its iterations, from the event before it
    // to the one before the step after its body; its body steps keep 0.
    int32_t next = s + 1;
    if (plan.steps[s].kind == GRAPHC_STEP_LOOP)
      next += plan.steps[s].body_steps;
    float milliseconds = 0;
    cu::Result result =
        drv.eventElapsedTime(&milliseconds, stepEvents[s], stepEvents[next]);
    if (result == cu::kErrorNotReady)
      return makeStatus(GRAPHC_FAILED_PRECONDITION,
                        "the profiled run has not finished: call "
                        "graphc_session_synchronize first");
    if (result != cu::kSuccess)
      return error("cannot read a timing event", result);
    out.micros[s] = double(milliseconds) * 1000.0;
    s = next - 1;
  }
  return nullptr;
}

graphc_status CudaSession::capture(int32_t planIndex,
                                   const std::vector<cu::DevicePtr> &inputs,
                                   const std::vector<cu::DevicePtr> &outputs,
                                   cu::GraphExec &out) {
  const graphc_plan_desc &plan = model.desc->plans[planIndex];
  // Thread-local: unsafe calls made by other threads (another session's
  // allocation, a model loading) neither fail nor invalidate this capture.
  cu::Result result =
      drv.streamBeginCapture(stream, cu::kStreamCaptureModeThreadLocal);
  if (result != cu::kSuccess)
    return error("cannot begin capturing plan '" + std::string(plan.name) + "'",
                 result);
  capturing = true;
  graphc_status status = enqueue(plan, inputs, outputs);
  capturing = false;
  cu::Graph graph = nullptr;
  // Always end the capture, so the stream is usable after a failure.
  result = drv.streamEndCapture(stream, &graph);
  if (!status && result != cu::kSuccess)
    status =
        error("cannot capture plan '" + std::string(plan.name) + "'", result);
  if (!status) {
    result = drv.graphInstantiate(&out, graph, 0);
    if (result != cu::kSuccess) {
      out = nullptr;
      status = error("cannot instantiate the CUDA graph of plan '" +
                         std::string(plan.name) + "'",
                     result);
    }
  }
  if (graph)
    drv.graphDestroy(graph);
  return status;
}

graphc_status CudaSession::takeDeviceError() {
  if (!hostRecord[0])
    return nullptr;
  // Words: flag, launch site, value, low, high (exclusive), what; see
  // gc_report in the generated module's preamble.
  unsigned long long site = hostRecord[1];
  long long value = static_cast<long long>(hostRecord[2]);
  long long low = static_cast<long long>(hostRecord[3]);
  long long high = static_cast<long long>(hostRecord[4]);
  unsigned long long what = hostRecord[5];
  std::memset(hostRecord, 0, kErrorRecordBytes);
  // Nothing of this session is in flight: clear the device copy for the
  // next run.
  cu::Result result =
      drv.memsetD8Async(errorRecord, 0, kErrorRecordBytes, stream);
  if (result == cu::kSuccess)
    result = drv.streamSynchronize(stream);
  if (result != cu::kSuccess)
    return error("cannot clear the device error record", result);

  // What gc_report's `what` numbers (3: a loop's control kernel passing
  // its max_iterations).
  static const char *const names[] = {"index", "sequence length", "axis",
                                      "loop iteration"};
  std::string message = std::string(what < 4 ? names[what] : "value") + " " +
                        std::to_string(value) + " is out of range [" +
                        std::to_string(low) + ", " + std::to_string(high) +
                        ") in ";
  unsigned long long planIndex = site >> kSiteStepBits;
  unsigned long long step = site & ((1ull << kSiteStepBits) - 1);
  const graphc_model_desc &desc = *model.desc;
  // Launches, and library calls that launch an epilogue kernel, report.
  if (planIndex < static_cast<unsigned long long>(desc.num_plans) &&
      step < static_cast<unsigned long long>(desc.plans[planIndex].num_steps) &&
      desc.plans[planIndex].steps[step].kind != GRAPHC_STEP_COPY) {
    message += describeValueSite(
        desc.kernels[desc.plans[planIndex].steps[step].kernel]);
  } else {
    message += "an unknown kernel (launch site " + std::to_string(site) + ")";
  }
  return makeStatus(GRAPHC_INVALID_ARGUMENT, message);
}

graphc_status CudaSession::run(const RunShape &shape,
                               const std::vector<SegmentedTensor> &inputs,
                               const std::vector<SegmentedTensor> &outputs,
                               const cu::Stream *callerStream) {
  const graphc_model_desc &desc = *model.desc;
  const graphc_plan_desc &plan = desc.plans[shape.parts.front().plan];
  std::optional<cu::ContextGuard> guard;
  if (graphc_status status = enterDevice(guard))
    return status;

  // An earlier asynchronous run's index error is reported by the first
  // call that finds it finished: its own call returned before it ran. A
  // synchronous run waits for it (only the session's stream).
  if (asyncPending) {
    cu::Result result =
        callerStream ? drv.eventQuery(runDone) : drv.streamSynchronize(stream);
    if (result == cu::kSuccess) {
      asyncPending = false;
      if (graphc_status status = takeDeviceError())
        return prefixStatus("an earlier asynchronous run failed: ", status);
    } else if (result != cu::kErrorNotReady) {
      return error("an earlier asynchronous run failed", result);
    }
  }

  if (callerStream) {
    // The session cannot join a capture on the caller's stream: replaying
    // its own graph and reading the error record need a running stream.
    int capturing = cu::kStreamCaptureStatusNone;
    cu::Result result = drv.streamIsCapturing(*callerStream, &capturing);
    if (result != cu::kSuccess)
      return error("cannot query the caller's stream", result);
    if (capturing != cu::kStreamCaptureStatusNone)
      return makeStatus(GRAPHC_FAILED_PRECONDITION,
                        "graphc_session_run_on_stream: the stream is being "
                        "captured into a CUDA graph; run outside the capture "
                        "(the session replays its own graph)");
    // Inputs are ready when what is queued on the caller's stream is done.
    if ((result = drv.eventRecord(callerReady, *callerStream)) !=
            cu::kSuccess ||
        (result = drv.streamWaitEvent(stream, callerReady, 0)) != cu::kSuccess)
      return error("cannot order the run after the caller's stream", result);
  }

  bool allOnDevice = std::all_of(inputs.begin(), inputs.end(), onDevice) &&
                     std::all_of(outputs.begin(), outputs.end(), onDevice);
  std::vector<cu::DevicePtr> inputPtrs(desc.num_inputs);
  std::vector<cu::DevicePtr> outputPtrs(desc.num_outputs);
  for (int32_t i = 0; allOnDevice && i < desc.num_inputs; ++i)
    inputPtrs[i] = devicePointer(inputs[i]);
  for (int32_t o = 0; allOnDevice && o < desc.num_outputs; ++o)
    outputPtrs[o] = devicePointer(outputs[o]);

  // Back-to-back runs are safe without waiting: the staging buffers, the
  // arena and the error record are only touched by work on the session
  // stream, which runs in order.
  if (shape.staged) {
    for (const RunPart &part : shape.parts)
      if (graphc_status status =
              runStagedPart(shape, part, inputs, outputs, /*pad=*/true))
        return status;
  } else {
    int32_t planIndex = shape.parts.front().plan;
    bool inPlace =
        allOnDevice && callerBuffersUsable(plan, inputPtrs, outputPtrs);
    cu::GraphExec bound = nullptr;
    if (inPlace && useGraphs)
      if (graphc_status status =
              boundGraph(planIndex, inputPtrs, outputPtrs, bound))
        return status;
    if (inPlace && !useGraphs) {
      if (graphc_status status = enqueue(plan, inputPtrs, outputPtrs))
        return status;
    } else if (bound) {
      if (cu::Result result = drv.graphLaunch(bound, stream))
        return error("cannot launch the CUDA graph of plan '" +
                         std::string(plan.name) + "'",
                     result);
    } else {
      if (inPlace)
        lastStagedBuffers[planIndex] = joinBuffers(inputPtrs, outputPtrs);
      if (graphc_status status = runStagedPart(shape, shape.parts.front(),
                                               inputs, outputs, /*pad=*/false))
        return status;
    }
  }

  if (callerStream) {
    cu::Result result;
    if ((result = drv.eventRecord(runDone, stream)) != cu::kSuccess ||
        (result = drv.streamWaitEvent(*callerStream, runDone, 0)) !=
            cu::kSuccess)
      return error("cannot order the caller's stream after plan '" +
                       std::string(plan.name) + "'",
                   result);
    asyncPending = true;
    return nullptr;
  }
  cu::Result result = drv.streamSynchronize(stream);
  if (result != cu::kSuccess)
    return error("plan '" + std::string(plan.name) + "' failed", result);
  return takeDeviceError();
}

bool CudaSession::queueStagedCopy(const BoxCopy &box,
                                  const SegmentedTensor &caller,
                                  cu::DevicePtr staging, bool toStaging,
                                  cu::Result &result) {
  return forEachStagedCopy(
      box, caller, toStaging,
      [&](const Segment &segment, uint64_t at, uint64_t staged,
          uint64_t count) {
        if (result != cu::kSuccess)
          return;
        char *data = segment.data + at;
        auto device = reinterpret_cast<cu::DevicePtr>(data);
        if (toStaging)
          result = segment.host ? drv.memcpyHtoDAsync(staging + staged, data,
                                                      count, stream)
                                : drv.memcpyDtoDAsync(staging + staged, device,
                                                      count, stream);
        else
          result = segment.host ? drv.memcpyDtoHAsync(data, staging + staged,
                                                      count, stream)
                                : drv.memcpyDtoDAsync(device, staging + staged,
                                                      count, stream);
      });
}

bool CudaSession::callerBuffersUsable(
    const graphc_plan_desc &plan, const std::vector<cu::DevicePtr> &inputs,
    const std::vector<cu::DevicePtr> &outputs) const {
  // Binding already refused outputs that overlap another tensor.
  const graphc_model_desc &desc = *model.desc;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i] % GRAPHC_ALIGNMENT &&
        planTensorBytes(desc.inputs[i], plan.input_dims[i]))
      return false;
  for (size_t o = 0; o < outputs.size(); ++o)
    if (outputs[o] % GRAPHC_ALIGNMENT &&
        planTensorBytes(desc.outputs[o], plan.output_dims[o]))
      return false;
  return true;
}

graphc_status CudaSession::boundGraph(int32_t planIndex,
                                      const std::vector<cu::DevicePtr> &inputs,
                                      const std::vector<cu::DevicePtr> &outputs,
                                      cu::GraphExec &out) {
  out = nullptr;
  std::vector<cu::DevicePtr> buffers = joinBuffers(inputs, outputs);
  std::vector<BoundGraph> &cache = boundGraphs[planIndex];
  ++runCount;
  for (BoundGraph &graph : cache)
    if (graph.buffers == buffers) {
      graph.lastUse = runCount;
      out = graph.exec;
      return nullptr;
    }
  if (lastStagedBuffers[planIndex] != buffers)
    return nullptr;
  BoundGraph graph;
  graph.buffers = std::move(buffers);
  graph.lastUse = runCount;
  if (graphc_status status = capture(planIndex, inputs, outputs, graph.exec))
    return status;
  if (cache.size() < kBoundGraphsPerPlan) {
    cache.push_back(std::move(graph));
    out = cache.back().exec;
    return nullptr;
  }
  auto oldest = std::min_element(cache.begin(), cache.end(),
                                 [](const BoundGraph &a, const BoundGraph &b) {
                                   return a.lastUse < b.lastUse;
                                 });
  // Work queued earlier on the stream may still run the old graph; a graph
  // exec may be destroyed while it runs (the driver defers the release).
  drv.graphExecDestroy(oldest->exec);
  *oldest = std::move(graph);
  out = oldest->exec;
  return nullptr;
}

graphc_status CudaSession::launchOnStaging(int32_t planIndex) {
  const graphc_plan_desc &plan = model.desc->plans[planIndex];
  if (!useGraphs)
    return enqueue(plan, inputStaging, outputStaging);
  if (!graphs[planIndex]) {
    if (graphc_status status =
            capture(planIndex, inputStaging, outputStaging, graphs[planIndex]))
      return status;
  }
  cu::Result result = drv.graphLaunch(graphs[planIndex], stream);
  if (result != cu::kSuccess)
    return error("cannot launch the CUDA graph of plan '" +
                     std::string(plan.name) + "'",
                 result);
  return nullptr;
}

graphc_status CudaSession::fillPadding(int32_t input, uint64_t bytes) {
  const graphc_tensor_desc &desc = model.desc->inputs[input];
  unsigned char pattern[8];
  size_t size = padPattern(desc.dtype, desc.pad_value, pattern);
  bool uniform = size > 0;
  for (size_t b = 1; b < size; ++b)
    uniform &= pattern[b] == pattern[0];
  cu::Result result;
  if (uniform) {
    result = drv.memsetD8Async(inputStaging[input], pattern[0], bytes, stream);
  } else {
    // Other patterns come from a host copy of the filled buffer, made once;
    // it stays alive (and unchanged) while copies from it may be queued.
    std::vector<unsigned char> &host = padSource[input];
    if (host.size() < bytes) {
      host.resize(bytes);
      for (uint64_t at = 0; at + size <= bytes; at += size)
        std::memcpy(host.data() + at, pattern, size);
    }
    result = drv.memcpyHtoDAsync(inputStaging[input], host.data(), bytes,
                                 stream);
  }
  if (result != cu::kSuccess)
    return error("cannot pad input '" + std::string(desc.name) + "'", result);
  return nullptr;
}

graphc_status
CudaSession::runStagedPart(const RunShape &shape, const RunPart &part,
                           const std::vector<SegmentedTensor> &inputs,
                           const std::vector<SegmentedTensor> &outputs,
                           bool pad) {
  const graphc_model_desc &desc = *model.desc;
  const graphc_plan_desc &plan = desc.plans[part.plan];
  cu::Result result = cu::kSuccess;
  for (int32_t i = 0; i < desc.num_inputs; ++i) {
    const graphc_tensor_desc &input = desc.inputs[i];
    if (pad) {
      uint64_t bytes = planTensorBytes(input, plan.input_dims[i]);
      if (!bytes)
        continue;
      if (graphc_status status = fillPadding(i, bytes))
        return status;
    }
    if (!queueStagedCopy(
            partInputCopy(model, shape, part, i, inputs[i].dims.data()),
            inputs[i], inputStaging[i], true, result))
      return makeStatus(GRAPHC_INTERNAL,
                        "input '" + std::string(input.name) +
                            "' does not fit the staging of plan '" +
                            plan.name + "'");
    if (result != cu::kSuccess)
      return error(pad ? "cannot pad input '" + std::string(input.name) +
                             "' into plan '" + plan.name + "'"
                       : "cannot stage input '" + std::string(input.name) +
                             "' of plan '" + plan.name + "'",
                   result);
  }
  if (graphc_status status = launchOnStaging(part.plan))
    return status;
  for (int32_t o = 0; o < desc.num_outputs; ++o) {
    std::optional<BoxCopy> box = partOutputCopy(model, shape, part, o);
    if (!box)
      continue;
    const graphc_tensor_desc &output = desc.outputs[o];
    if (!queueStagedCopy(*box, outputs[o], outputStaging[o], false, result))
      return makeStatus(GRAPHC_INTERNAL,
                        "output '" + std::string(output.name) +
                            "' does not fit the staging of plan '" +
                            plan.name + "'");
    if (result != cu::kSuccess)
      return error("cannot copy out output '" + std::string(output.name) +
                       "' of plan '" + plan.name + "'",
                   result);
  }
  return nullptr;
}

graphc_status CudaSession::synchronize() {
  std::optional<cu::ContextGuard> guard;
  if (graphc_status status = enterDevice(guard))
    return status;
  cu::Result result = drv.streamSynchronize(stream);
  if (result != cu::kSuccess)
    return error("an asynchronous run failed", result);
  if (!asyncPending)
    return nullptr;
  asyncPending = false;
  if (graphc_status status = takeDeviceError())
    return prefixStatus("an asynchronous run failed: ", status);
  return nullptr;
}

graphc_status CudaSession::allocate(uint64_t bytes, void *&out) {
  std::optional<cu::ContextGuard> guard;
  if (graphc_status status = enterDevice(guard))
    return status;
  cu::RelaxedCaptureGuard relaxed(drv);
  cu::DevicePtr pointer = 0;
  cu::Result result = drv.memAlloc(&pointer, bytes ? bytes : 1);
  if (result != cu::kSuccess)
    return error("cannot allocate " + std::to_string(bytes) + " bytes", result);
  out = reinterpret_cast<void *>(pointer);
  return nullptr;
}

void CudaSession::free(void *data) {
  cu::ContextGuard guard(drv, device.context);
  if (guard.result() != cu::kSuccess)
    return;
  cu::RelaxedCaptureGuard relaxed(drv);
  drv.memFree(reinterpret_cast<cu::DevicePtr>(data));
}

graphc_status CudaSession::upload(void *dst, const void *src, uint64_t bytes) {
  std::optional<cu::ContextGuard> guard;
  if (graphc_status status = enterDevice(guard))
    return status;
  // On the session stream, so later runs are ordered after it; the wait
  // covers a pageable source whose DMA outlives the call.
  cu::Result result = drv.memcpyHtoDAsync(reinterpret_cast<cu::DevicePtr>(dst),
                                          src, bytes, stream);
  if (result == cu::kSuccess)
    result = drv.streamSynchronize(stream);
  return result == cu::kSuccess ? nullptr : error("cannot upload", result);
}

graphc_status CudaSession::readProbe(uint64_t offset, uint64_t bytes,
                                     void *dst) {
  return download(dst, reinterpret_cast<const void *>(probeBuffer + offset),
                  bytes);
}

graphc_status CudaSession::readArena(uint64_t offset, uint64_t bytes,
                                     void *dst) {
  return download(dst, reinterpret_cast<const void *>(arena + offset), bytes);
}

graphc_status CudaSession::download(void *dst, const void *src,
                                    uint64_t bytes) {
  std::optional<cu::ContextGuard> guard;
  if (graphc_status status = enterDevice(guard))
    return status;
  // After every run of this session queued so far.
  cu::Result result = drv.memcpyDtoHAsync(
      dst, reinterpret_cast<cu::DevicePtr>(src), bytes, stream);
  if (result == cu::kSuccess)
    result = drv.streamSynchronize(stream);
  return result == cu::kSuccess ? nullptr : error("cannot download", result);
}
