//===- Probes.h - where a probing run copies step results -------*- C++ -*-===//
//
// GRAPHC_SESSION_PROBE_STEPS: after each step, each of its results
// (graphc_step_result_desc) is copied into the session's probe buffer, so
// that a tool can compare every intermediate value of one run with a
// reference without changing what the steps compute. Every plan lays its
// probes out from the buffer's start, each at a GRAPHC_ALIGNMENT boundary,
// in step order; the buffer is sized for the largest plan, since only the
// last run's probes (of the last part of a split run) are read back.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_PROBES_H
#define GRAPHC_RUNTIME_SRC_PROBES_H

#include "graphc/runtime.h"

#include <vector>

namespace graphc::rt {

/// One probed result: the step's result `result` of step `step`, `size`
/// bytes at `offset` in the probe buffer.
struct ProbeSlot {
  int32_t step;
  int32_t result;
  uint64_t offset;
  uint64_t size;
};

/// One plan's probes in step order; firstSlot[s] is the index of step s's
/// first probe (num_steps + 1 entries).
struct PlanProbes {
  std::vector<ProbeSlot> slots;
  std::vector<int32_t> firstSlot;
};

struct ProbeLayout {
  std::vector<PlanProbes> plans;
  /// The probe buffer's size: the largest plan's probes.
  uint64_t bytes = 0;
};

/// Lays out the probes of every plan of `model` (whose descriptor passed
/// checkDescriptor). GRAPHC_RESOURCE_EXHAUSTED when a plan's probes do not
/// fit 64-bit sizes or int32 counts.
graphc_status buildProbeLayout(const graphc_model &model, ProbeLayout &out);

/// graphc_session_probe_count and graphc_session_read_probe's checks on
/// the last probed run: `plan` (-1: none ran, or the last run failed) and
/// whether the session probes and has a run in flight.
graphc_status checkProbedRun(bool probing, bool inFlight, int32_t plan);

/// Fills `info` for probe `index` of `plan` (GRAPHC_INVALID_ARGUMENT when
/// out of range) and points `slot` at its place in the buffer.
graphc_status probeAt(const graphc_model &model, const ProbeLayout &layout,
                      int32_t plan, int32_t index, graphc_probe_info &info,
                      const ProbeSlot *&slot);

} // namespace graphc::rt

#endif
