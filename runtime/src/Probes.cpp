//===- Probes.cpp - where a probing run copies step results ---------------===//
#include "runtime/src/Probes.h"

#include "runtime/src/DescriptorCheck.h"
#include "runtime/src/Model.h"
#include "runtime/src/Status.h"

#include <algorithm>
#include <climits>
#include <string>

using namespace graphc::rt;

graphc_status graphc::rt::buildProbeLayout(const graphc_model &model,
                                           ProbeLayout &out) {
  const graphc_model_desc &desc = *model.desc;
  out.plans.assign(desc.num_plans, PlanProbes());
  out.bytes = 0;
  for (int32_t p = 0; p < desc.num_plans; ++p) {
    const graphc_plan_desc &plan = desc.plans[p];
    PlanProbes &probes = out.plans[p];
    probes.firstSlot.reserve(plan.num_steps + 1);
    uint64_t end = 0;
    for (int32_t s = 0; s < plan.num_steps; ++s) {
      const graphc_step_desc &step = plan.steps[s];
      if (probes.slots.size() + step.num_results > INT32_MAX)
        return makeStatus(GRAPHC_RESOURCE_EXHAUSTED,
                          "plan '" + std::string(plan.name) +
                              "' has more step results than can be probed");
      probes.firstSlot.push_back(static_cast<int32_t>(probes.slots.size()));
      for (int32_t r = 0; r < step.num_results; ++r) {
        // Checked against the argument's size by checkDescriptor.
        uint64_t size = stepResultBytes(step.results[r]);
        uint64_t offset = end, next;
        if (__builtin_add_overflow(offset, size, &next) ||
            __builtin_add_overflow(next, uint64_t(GRAPHC_ALIGNMENT - 1), &next))
          return makeStatus(GRAPHC_RESOURCE_EXHAUSTED,
                            "the probes of plan '" + std::string(plan.name) +
                                "' overflow a 64-bit size");
        end = next / GRAPHC_ALIGNMENT * GRAPHC_ALIGNMENT;
        probes.slots.push_back({s, r, offset, size});
      }
    }
    probes.firstSlot.push_back(static_cast<int32_t>(probes.slots.size()));
    out.bytes = std::max(out.bytes, end);
  }
  return nullptr;
}

graphc_status graphc::rt::checkProbedRun(bool probing, bool inFlight,
                                         int32_t plan) {
  if (!probing)
    return makeStatus(GRAPHC_FAILED_PRECONDITION,
                      "the session was created without "
                      "GRAPHC_SESSION_PROBE_STEPS");
  if (inFlight)
    return makeStatus(GRAPHC_FAILED_PRECONDITION,
                      "an asynchronous run may still be in flight: call "
                      "graphc_session_synchronize first");
  if (plan < 0)
    return makeStatus(GRAPHC_FAILED_PRECONDITION,
                      "no probed run: the session has not run yet, its last "
                      "run failed, or computed nothing (every output empty)");
  return nullptr;
}

graphc_status graphc::rt::probeAt(const graphc_model &model,
                                  const ProbeLayout &layout, int32_t plan,
                                  int32_t index, graphc_probe_info &info,
                                  const ProbeSlot *&slot) {
  const std::vector<ProbeSlot> &slots = layout.plans[plan].slots;
  if (index < 0 || size_t(index) >= slots.size())
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "probe " + std::to_string(index) +
                          " is out of range: the last run's plan '" +
                          model.desc->plans[plan].name + "' has " +
                          std::to_string(slots.size()) + " probes");
  slot = &slots[index];
  info.step = slot->step;
  info.result = slot->result;
  info.desc = &model.desc->plans[plan].steps[slot->step].results[slot->result];
  info.size = slot->size;
  return nullptr;
}
