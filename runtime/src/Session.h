//===- Session.h - the session object ---------------------------*- C++ -*-===//
#ifndef GRAPHC_RUNTIME_SRC_SESSION_H
#define GRAPHC_RUNTIME_SRC_SESSION_H

#include "graphc/runtime.h"
#include "runtime/src/CpuExecutor.h"
#include "runtime/src/Probes.h"

#include <cstdlib>
#include <memory>
#include <vector>

namespace graphc::rt {
class CudaSession;

/// Frees memory from std::aligned_alloc.
struct FreeDeleter {
  void operator()(void *pointer) const { std::free(pointer); }
};
} // namespace graphc::rt

/// Per-thread execution state of a model.
struct graphc_session {
  ~graphc_session();

  graphc_model *model = nullptr;
  int32_t ordinal = 0;
  /// cpu: the arena (sized for the largest plan) and the scratch array of
  /// resolved step arguments.
  std::unique_ptr<void, graphc::rt::FreeDeleter> arena;
  std::vector<void *> args;
  /// cpu: buffers of the largest bucket's shapes for runs that are padded
  /// or split, allocated on the first such run.
  std::vector<std::vector<unsigned char>> inputStaging, outputStaging;
  /// cpu: GRAPHC_SESSION_PROFILE_STEPS, and what it measured.
  bool profileSteps = false;
  graphc::rt::StepProfile profile;
  /// GRAPHC_SESSION_PROBE_STEPS: where each plan's probes go, the plan of
  /// the last run when it succeeded (its last part's; -1 otherwise), and on
  /// cpu the probe buffer (cuda: CudaSession's device buffer).
  bool probeSteps = false;
  graphc::rt::ProbeLayout probes;
  int32_t probedPlan = -1;
  std::unique_ptr<void, graphc::rt::FreeDeleter> probeBuffer;
  /// The plan of the latest run when it succeeded (its arena slots hold
  /// the extents of data-dependent output dims, graphc_session_output_dims),
  /// -1 before the first run and after one that failed; and whether that
  /// run computed nothing (every output empty).
  int32_t outputPlan = -1;
  bool outputRunEmpty = false;
  /// cuda: stream, device arena, staging and captured graphs.
  std::unique_ptr<graphc::rt::CudaSession> cuda;
};

#endif
