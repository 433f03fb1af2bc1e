//===- DescriptorCheck.h - validating a loaded descriptor -------*- C++ -*-===//
#ifndef GRAPHC_RUNTIME_SRC_DESCRIPTORCHECK_H
#define GRAPHC_RUNTIME_SRC_DESCRIPTORCHECK_H

#include "graphc/descriptor.h"

#include <string>

namespace graphc::rt {

/// Returns "" when every count, pointer, index and buffer range in `desc`
/// is consistent, so execution can trust it without further checks;
/// otherwise what is wrong. The ABI version is checked by the caller.
std::string checkDescriptor(const graphc_model_desc &desc);

/// Bytes of one plan's input or output `index` (dims from the plan).
uint64_t planTensorBytes(const graphc_tensor_desc &tensor,
                         const int64_t *planDims);

/// Bytes of a step's result (its dims times its dtype's size), UINT64_MAX
/// when that overflows.
uint64_t stepResultBytes(const graphc_step_result_desc &result);

} // namespace graphc::rt

#endif
