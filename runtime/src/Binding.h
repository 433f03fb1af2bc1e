//===- Binding.h - validating a run's tensors and choosing a plan -*- C++
//-*-===//
#ifndef GRAPHC_RUNTIME_SRC_BINDING_H
#define GRAPHC_RUNTIME_SRC_BINDING_H

#include "graphc/runtime.h"

#include <vector>

namespace graphc::rt {

/// Where a session's tensors must live.
struct DeviceRequirement {
  graphc_target target;
  int32_t ordinal; ///< cuda only.
};

/// Maps caller input position -> model input index: identity when `names`
/// is NULL, otherwise by name. Checks the count, unknown and repeated names.
graphc_status orderInputs(const graphc_model &model, int32_t numInputs,
                          const char *const *names,
                          std::vector<int32_t> &modelIndex);

/// Chooses the plan whose input dims equal `dims` (model order); the status
/// says which shapes the model accepts when none does.
graphc_status selectPlan(const graphc_model &model, const int32_t *ranks,
                         const int64_t *const *dims, int32_t &plan);

/// Validates everything graphc_session_run receives: counts, names, dtypes,
/// shapes, devices, contiguity and data of inputs and outputs. On success
/// `ordered` holds the inputs in model order and `plan` the chosen plan.
graphc_status bindRun(const graphc_model &model, DeviceRequirement device,
                      const DLTensor *inputs, int32_t numInputs,
                      const char *const *names, const DLTensor *outputs,
                      int32_t numOutputs,
                      std::vector<const DLTensor *> &ordered, int32_t &plan);

/// First byte of a validated tensor's data.
inline char *tensorBase(const DLTensor &tensor) {
  return static_cast<char *>(tensor.data) + tensor.byte_offset;
}

} // namespace graphc::rt

#endif
