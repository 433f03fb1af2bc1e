//===- CudaSession.cpp - a session's stream, arena and CUDA graphs --------===//
#include "runtime/src/CudaSession.h"

#include "runtime/src/Binding.h"
#include "runtime/src/DescriptorCheck.h"
#include "runtime/src/Model.h"
#include "runtime/src/Status.h"

using namespace graphc::rt;

namespace {
constexpr uint64_t kCudaOutOfMemory = 2;

uint64_t alignUp(uint64_t value) {
  return (value + GRAPHC_ALIGNMENT - 1) / GRAPHC_ALIGNMENT * GRAPHC_ALIGNMENT;
}

cu::DevicePtr devicePointer(const DLTensor &tensor) {
  return reinterpret_cast<cu::DevicePtr>(tensorBase(tensor));
}
} // namespace

CudaSession::CudaSession(const graphc_model &model, CudaDevice &device,
                         bool useGraphs)
    : model(model), drv(model.cuda->driver()), device(device),
      useGraphs(useGraphs), graphs(model.desc->num_plans, nullptr),
      argValues(model.maxStepArgs), argPointers(model.maxStepArgs) {
  for (int32_t a = 0; a < model.maxStepArgs; ++a)
    argPointers[a] = &argValues[a];
}

graphc_status CudaSession::error(const std::string &what,
                                 cu::Result result) const {
  return makeStatus(
      result == kCudaOutOfMemory ? GRAPHC_RESOURCE_EXHAUSTED : GRAPHC_INTERNAL,
      what + " on cuda:" + std::to_string(device.ordinal) + " for model '" +
          model.path + "': " + drv.describe(result));
}

graphc_status CudaSession::create(const graphc_model &model, CudaDevice &device,
                                  uint32_t flags,
                                  std::unique_ptr<CudaSession> &out) {
  std::unique_ptr<CudaSession> session(new CudaSession(
      model, device, !(flags & GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)));
  const cu::Driver &drv = session->drv;
  cu::ContextGuard guard(drv, device.context);
  if (guard.result() != cu::kSuccess)
    return session->error("cannot make the context current", guard.result());
  cu::Result result =
      drv.streamCreate(&session->stream, cu::kStreamNonBlocking);
  if (result != cu::kSuccess) {
    session->stream = nullptr;
    return session->error("cannot create a stream", result);
  }

  // Staging is only read by captured graphs; plain launches use the
  // caller's buffers directly.
  const graphc_model_desc &desc = *model.desc;
  std::vector<uint64_t> inputBytes(desc.num_inputs, 0);
  std::vector<uint64_t> outputBytes(desc.num_outputs, 0);
  if (session->useGraphs) {
    for (int32_t p = 0; p < desc.num_plans; ++p) {
      for (int32_t i = 0; i < desc.num_inputs; ++i)
        inputBytes[i] = std::max(
            inputBytes[i],
            planTensorBytes(desc.inputs[i], desc.plans[p].input_dims[i]));
      for (int32_t o = 0; o < desc.num_outputs; ++o)
        outputBytes[o] = std::max(
            outputBytes[o],
            planTensorBytes(desc.outputs[o], desc.plans[p].output_dims[o]));
    }
  }
  uint64_t total = alignUp(model.maxArenaBytes);
  for (uint64_t bytes : inputBytes)
    total += alignUp(bytes);
  for (uint64_t bytes : outputBytes)
    total += alignUp(bytes);
  if (total) {
    result = drv.memAlloc(&session->block, total);
    if (result != cu::kSuccess) {
      session->block = 0;
      return session->error("cannot allocate " + std::to_string(total) +
                                " bytes for the arena and staging",
                            result);
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

  if (session->useGraphs && (flags & GRAPHC_SESSION_EAGER_CAPTURE)) {
    for (int32_t p = 0; p < desc.num_plans; ++p) {
      if (graphc_status status = session->capture(p))
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
  if (stream) {
    drv.streamSynchronize(stream);
    drv.streamDestroy(stream);
  }
  if (block)
    drv.memFree(block);
}

graphc_status CudaSession::enqueue(const graphc_plan_desc &plan,
                                   const std::vector<cu::DevicePtr> &inputs,
                                   const std::vector<cu::DevicePtr> &outputs) {
  const graphc_model_desc &desc = *model.desc;
  for (int32_t s = 0; s < plan.num_steps; ++s) {
    const graphc_step_desc &step = plan.steps[s];
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
    }
    cu::Result result;
    if (step.kind == GRAPHC_STEP_COPY) {
      if (!step.args[1].size)
        continue;
      result = drv.memcpyDtoDAsync(argValues[1], argValues[0],
                                   step.args[1].size, stream);
    } else {
      result = drv.launchKernel(device.functions[step.kernel], step.grid[0],
                                step.grid[1], step.grid[2], step.block[0],
                                step.block[1], step.block[2], step.shared_bytes,
                                stream, argPointers.data(), nullptr);
    }
    if (result != cu::kSuccess)
      return error(
          "plan '" + std::string(plan.name) + "' step " + std::to_string(s) +
              (step.kind == GRAPHC_STEP_COPY
                   ? std::string(" (copy)")
                   : " (kernel '" +
                         std::string(desc.kernels[step.kernel].name) + "')") +
              " failed to launch",
          result);
  }
  return nullptr;
}

graphc_status CudaSession::capture(int32_t planIndex) {
  const graphc_plan_desc &plan = model.desc->plans[planIndex];
  cu::Result result =
      drv.streamBeginCapture(stream, cu::kStreamCaptureModeThreadLocal);
  if (result != cu::kSuccess)
    return error("cannot begin capturing plan '" + std::string(plan.name) + "'",
                 result);
  graphc_status status = enqueue(plan, inputStaging, outputStaging);
  cu::Graph graph = nullptr;
  // Always end the capture, so the stream is usable after a failure.
  result = drv.streamEndCapture(stream, &graph);
  if (!status && result != cu::kSuccess)
    status =
        error("cannot capture plan '" + std::string(plan.name) + "'", result);
  if (!status) {
    result = drv.graphInstantiate(&graphs[planIndex], graph, 0);
    if (result != cu::kSuccess) {
      graphs[planIndex] = nullptr;
      status = error("cannot instantiate the CUDA graph of plan '" +
                         std::string(plan.name) + "'",
                     result);
    }
  }
  if (graph)
    drv.graphDestroy(graph);
  return status;
}

graphc_status CudaSession::run(int32_t planIndex,
                               const std::vector<const DLTensor *> &inputs,
                               const DLTensor *outputs) {
  const graphc_model_desc &desc = *model.desc;
  const graphc_plan_desc &plan = desc.plans[planIndex];
  cu::ContextGuard guard(drv, device.context);
  if (guard.result() != cu::kSuccess)
    return error("cannot make the context current", guard.result());

  std::vector<cu::DevicePtr> inputPtrs(desc.num_inputs);
  std::vector<cu::DevicePtr> outputPtrs(desc.num_outputs);
  for (int32_t i = 0; i < desc.num_inputs; ++i)
    inputPtrs[i] = devicePointer(*inputs[i]);
  for (int32_t o = 0; o < desc.num_outputs; ++o)
    outputPtrs[o] = devicePointer(outputs[o]);

  if (!useGraphs) {
    if (graphc_status status = enqueue(plan, inputPtrs, outputPtrs))
      return status;
  } else {
    if (!graphs[planIndex]) {
      if (graphc_status status = capture(planIndex))
        return status;
    }
    for (int32_t i = 0; i < desc.num_inputs; ++i) {
      uint64_t bytes = planTensorBytes(desc.inputs[i], plan.input_dims[i]);
      if (!bytes)
        continue;
      cu::Result result =
          drv.memcpyDtoDAsync(inputStaging[i], inputPtrs[i], bytes, stream);
      if (result != cu::kSuccess)
        return error("cannot stage input '" + std::string(desc.inputs[i].name) +
                         "'",
                     result);
    }
    cu::Result result = drv.graphLaunch(graphs[planIndex], stream);
    if (result != cu::kSuccess)
      return error("cannot launch the CUDA graph of plan '" +
                       std::string(plan.name) + "'",
                   result);
    for (int32_t o = 0; o < desc.num_outputs; ++o) {
      uint64_t bytes = planTensorBytes(desc.outputs[o], plan.output_dims[o]);
      if (!bytes)
        continue;
      result =
          drv.memcpyDtoDAsync(outputPtrs[o], outputStaging[o], bytes, stream);
      if (result != cu::kSuccess)
        return error("cannot copy out output '" +
                         std::string(desc.outputs[o].name) + "'",
                     result);
    }
  }
  cu::Result result = drv.streamSynchronize(stream);
  if (result != cu::kSuccess)
    return error("plan '" + std::string(plan.name) + "' failed", result);
  return nullptr;
}

graphc_status CudaSession::allocate(uint64_t bytes, void *&out) {
  cu::ContextGuard guard(drv, device.context);
  if (guard.result() != cu::kSuccess)
    return error("cannot make the context current", guard.result());
  cu::DevicePtr pointer = 0;
  cu::Result result = drv.memAlloc(&pointer, bytes ? bytes : 1);
  if (result != cu::kSuccess)
    return error("cannot allocate " + std::to_string(bytes) + " bytes", result);
  out = reinterpret_cast<void *>(pointer);
  return nullptr;
}

void CudaSession::free(void *data) {
  cu::ContextGuard guard(drv, device.context);
  if (guard.result() == cu::kSuccess)
    drv.memFree(reinterpret_cast<cu::DevicePtr>(data));
}

graphc_status CudaSession::upload(void *dst, const void *src, uint64_t bytes) {
  cu::ContextGuard guard(drv, device.context);
  if (guard.result() != cu::kSuccess)
    return error("cannot make the context current", guard.result());
  cu::Result result =
      drv.memcpyHtoD(reinterpret_cast<cu::DevicePtr>(dst), src, bytes);
  // The copy may return before its DMA lands (pageable source), and the
  // session's non-blocking stream does not wait for the legacy stream.
  if (result == cu::kSuccess)
    result = drv.ctxSynchronize();
  return result == cu::kSuccess ? nullptr : error("cannot upload", result);
}

graphc_status CudaSession::download(void *dst, const void *src,
                                    uint64_t bytes) {
  cu::ContextGuard guard(drv, device.context);
  if (guard.result() != cu::kSuccess)
    return error("cannot make the context current", guard.result());
  cu::Result result =
      drv.memcpyDtoH(dst, reinterpret_cast<cu::DevicePtr>(src), bytes);
  return result == cu::kSuccess ? nullptr : error("cannot download", result);
}
