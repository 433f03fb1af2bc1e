//===- Status.h - building graphc_status values -----------------*- C++ -*-===//
#ifndef GRAPHC_RUNTIME_SRC_STATUS_H
#define GRAPHC_RUNTIME_SRC_STATUS_H

#include "graphc/runtime.h"

#include <new>
#include <string>

namespace graphc::rt {

/// Returns a heap status with `code` (never GRAPHC_OK) and `message`; when
/// that allocation fails, a static resource_exhausted status instead.
graphc_status makeStatus(graphc_code code, const std::string &message);

/// `status` (not null) with `prefix` before its message and the same code;
/// frees `status`.
graphc_status prefixStatus(const std::string &prefix, graphc_status status);

/// A resource_exhausted status saying "out of memory in <where>", built
/// without any allocation that could throw.
graphc_status outOfMemoryStatus(const char *where);

/// Runs `body` (returning a graphc_status) so that a failed allocation in it
/// (std::bad_alloc from a container or string) becomes a resource_exhausted
/// status: no exception crosses the C ABI.
template <typename Body>
graphc_status guardAllocations(const char *where, Body &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return outOfMemoryStatus(where);
  }
}

} // namespace graphc::rt

#endif
