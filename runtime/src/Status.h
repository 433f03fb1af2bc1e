//===- Status.h - building graphc_status values -----------------*- C++ -*-===//
#ifndef GRAPHC_RUNTIME_SRC_STATUS_H
#define GRAPHC_RUNTIME_SRC_STATUS_H

#include "graphc/runtime.h"

#include <string>

namespace graphc::rt {

/// Returns a heap status with `code` (never GRAPHC_OK) and `message`; when
/// that allocation fails, a static resource_exhausted status instead.
graphc_status makeStatus(graphc_code code, const std::string &message);

} // namespace graphc::rt

#endif
