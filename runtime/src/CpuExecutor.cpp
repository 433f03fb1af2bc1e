//===- CpuExecutor.cpp - running a plan on the host -----------------------===//
#include "runtime/src/CpuExecutor.h"

#include "runtime/src/Binding.h"
#include "runtime/src/Model.h"
#include "runtime/src/ReferenceConv.h"
#include "runtime/src/ReferenceGemm.h"
#include "runtime/src/Status.h"

#include <chrono>
#include <cstring>

using namespace graphc::rt;

namespace {
void *resolve(const graphc_buffer_ref &ref, char *arena, const char *weights,
              const std::vector<const DLTensor *> &inputs,
              const DLTensor *outputs) {
  switch (ref.kind) {
  case GRAPHC_BUFFER_ARENA:
    return arena + ref.offset;
  case GRAPHC_BUFFER_WEIGHTS:
    // Host kernels take non-const pointers; weights are only ever read.
    return const_cast<char *>(weights) + ref.offset;
  case GRAPHC_BUFFER_INPUT:
    return tensorBase(*inputs[ref.index]) + ref.offset;
  case GRAPHC_BUFFER_OUTPUT:
    return tensorBase(outputs[ref.index]) + ref.offset;
  default:
    return nullptr;
  }
}
} // namespace

namespace {
/// Runs step `s` of `plan`; `args` is scratch.
graphc_status runCpuStep(const graphc_model &model,
                         const graphc_plan_desc &plan, int32_t s, char *arena,
                         const std::vector<const DLTensor *> &inputs,
                         const DLTensor *outputs, void **args) {
  const auto *weights = static_cast<const char *>(model.weights);
  const graphc_step_desc &step = plan.steps[s];
  for (int32_t a = 0; a < step.num_args; ++a)
    args[a] = resolve(step.args[a], arena, weights, inputs, outputs);
  if (step.kind == GRAPHC_STEP_COPY) {
    // memmove: a plan may copy between overlapping arena slots.
    if (step.args[1].size)
      std::memmove(args[1], args[0], step.args[1].size);
    return nullptr;
  }
  const graphc_kernel_desc &kernel = model.desc->kernels[step.kernel];
  std::string failure;
  if (step.kind == GRAPHC_STEP_LIBRARY_CALL) {
    if (kernel.conv ? runReferenceConv(*kernel.conv, args, failure)
                    : runReferenceGemm(*kernel.gemm, args, failure))
      return nullptr;
  } else {
    char message[512] = {0};
    int result = kernel.host_fn(args, message, sizeof(message));
    if (result == 0)
      return nullptr;
    message[sizeof(message) - 1] = 0;
    failure = message[0] ? message : "no message";
    // The caller's data holds a value out of range (as on cuda).
    if (result == GRAPHC_HOST_FN_BAD_VALUE)
      return makeStatus(GRAPHC_INVALID_ARGUMENT,
                        failure + " in " + describeValueSite(kernel));
  }
  return makeStatus(GRAPHC_INTERNAL,
                    describeKernel(kernel) + " failed in plan '" + plan.name +
                        "' step " + std::to_string(s) + ": " + failure);
}
} // namespace

namespace {
/// Runs steps [begin, end) of a plan, loops by iterating their bodies.
struct CpuPlanRun {
  const graphc_model &model;
  const graphc_plan_desc &plan;
  char *arena;
  const std::vector<const DLTensor *> &inputs;
  const DLTensor *outputs;
  void **args;
  StepProfile *profile;
  const PlanProbes *probes;
  char *probeBuffer;
  /// How many loops the steps being run lie in.
  int loopDepth = 0;

  graphc_status runSteps(int32_t begin, int32_t end) {
    for (int32_t s = begin; s < end; ++s) {
      auto start = std::chrono::steady_clock::now();
      if (plan.steps[s].kind == GRAPHC_STEP_LOOP) {
        ++loopDepth;
        graphc_status status = runLoop(s);
        --loopDepth;
        if (status)
          return status;
      } else if (graphc_status status =
                     runCpuStep(model, plan, s, arena, inputs, outputs, args)) {
        return status;
      }
      // As on cuda: a loop step's time is the whole loop's, its body's
      // steps have none of their own.
      if (profile && loopDepth == 0)
        profile->micros[s] = std::chrono::duration<double, std::micro>(
                                 std::chrono::steady_clock::now() - start)
                                 .count();
      if (plan.steps[s].kind == GRAPHC_STEP_LOOP) {
        s += plan.steps[s].body_steps;
        continue;
      }
      if (!probes)
        continue;
      // `args` still holds the step's resolved arguments; in a loop the
      // last iteration's results stay.
      for (int32_t p = probes->firstSlot[s]; p < probes->firstSlot[s + 1];
           ++p) {
        const ProbeSlot &slot = probes->slots[p];
        if (slot.size)
          std::memcpy(probeBuffer + slot.offset,
                      args[plan.steps[s].results[slot.result].arg], slot.size);
      }
    }
    return nullptr;
  }

  /// GRAPHC_STEP_LOOP step `s` (descriptor.h): its body again and again
  /// while the loop goes on.
  graphc_status runLoop(int32_t s) {
    const graphc_step_desc &step = plan.steps[s];
    const auto *weights = static_cast<const char *>(model.weights);
    void *at[4];
    for (int32_t a = 0; a < 4; ++a)
      at[a] = resolve(step.args[a], arena, weights, inputs, outputs);
    auto flag = [](void *pointer) {
      return !pointer || *static_cast<const unsigned char *>(pointer) != 0;
    };
    auto below = [&](int64_t i) {
      int64_t tripCount;
      if (!at[0])
        return true;
      std::memcpy(&tripCount, at[0], sizeof(tripCount));
      return i < tripCount;
    };
    int64_t state[2] = {0, 0};
    int64_t i = 0;
    for (bool go = flag(at[1]) && below(0); go; go = flag(at[3]) && below(i)) {
      if (i == step.max_iterations) {
        const graphc_kernel_desc &kernel = model.desc->kernels[step.kernel];
        return makeStatus(GRAPHC_INVALID_ARGUMENT,
                          "loop iteration " + std::to_string(i) +
                              " is out of range [0, " + std::to_string(i) +
                              ") in " + describeValueSite(kernel));
      }
      state[0] = i;
      state[1] = 1;
      std::memcpy(at[2], state, sizeof(state));
      if (graphc_status status = runSteps(s + 1, s + 1 + step.body_steps))
        return status;
      ++i;
    }
    state[0] = i;
    state[1] = 0;
    std::memcpy(at[2], state, sizeof(state));
    return nullptr;
  }
};
} // namespace

graphc_status
graphc::rt::runCpuPlan(const graphc_model &model, const graphc_plan_desc &plan,
                       char *arena, const std::vector<const DLTensor *> &inputs,
                       const DLTensor *outputs, void **args,
                       StepProfile *profile, const PlanProbes *probes,
                       char *probeBuffer) {
  if (profile) {
    profile->plan = static_cast<int32_t>(&plan - model.desc->plans);
    profile->micros.assign(plan.num_steps, 0.0);
  }
  CpuPlanRun run{model, plan,    arena,  inputs,     outputs,
                 args,  profile, probes, probeBuffer};
  return run.runSteps(0, plan.num_steps);
}
