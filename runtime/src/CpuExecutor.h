//===- CpuExecutor.h - running a plan on the host ---------------*- C++ -*-===//
#ifndef GRAPHC_RUNTIME_SRC_CPUEXECUTOR_H
#define GRAPHC_RUNTIME_SRC_CPUEXECUTOR_H

#include "graphc/runtime.h"
#include "runtime/src/Probes.h"

#include <vector>

namespace graphc::rt {

/// The time each step of the last profiled plan launch took.
struct StepProfile {
  int32_t plan = -1;
  std::vector<double> micros;
};

/// Runs `plan`'s steps in order: host calls get one resolved pointer per
/// buffer reference, library calls run the reference GEMM or convolution on
/// them, copies are memmove. Tensors were validated by bindRun
/// and the descriptor by checkDescriptor, so every reference is in bounds.
/// `args` has room for the model's largest step. A failing host kernel or
/// library call stops the plan with an internal status naming the kernel
/// and its nodes. With a `profile`, each step's wall time is recorded there.
/// With `probes`, each step's results are copied after it into
/// `probeBuffer` where `probes` places them.
graphc_status
runCpuPlan(const graphc_model &model, const graphc_plan_desc &plan, char *arena,
           const std::vector<const DLTensor *> &inputs, const DLTensor *outputs,
           void **args, StepProfile *profile = nullptr,
           const PlanProbes *probes = nullptr, char *probeBuffer = nullptr);

} // namespace graphc::rt

#endif
