//===- Status.cpp - graphc_status implementation --------------------------===//
#include "runtime/src/Status.h"

#include <cstdlib>
#include <cstring>

/// A status is one allocation: the code followed by the NUL-terminated
/// message, so releasing it is a single free.
struct graphc_status_impl {
  graphc_code code;
  char message[1];
};

namespace {
/// Returned when a status cannot be allocated; never freed.
graphc_status_impl staticOutOfMemory = {GRAPHC_RESOURCE_EXHAUSTED, ""};
} // namespace

graphc_status graphc::rt::makeStatus(graphc_code code,
                                     const std::string &message) {
  auto *status = static_cast<graphc_status_impl *>(
      std::malloc(sizeof(graphc_status_impl) + message.size()));
  if (!status)
    return &staticOutOfMemory;
  status->code = code;
  std::memcpy(status->message, message.c_str(), message.size() + 1);
  return status;
}

graphc_status graphc::rt::prefixStatus(const std::string &prefix,
                                       graphc_status status) {
  graphc_status prefixed = makeStatus(graphc_status_code(status),
                                      prefix + graphc_status_message(status));
  graphc_status_free(status);
  return prefixed;
}

graphc_status graphc::rt::outOfMemoryStatus(const char *where) {
  static const char prefix[] = "out of memory in ";
  size_t whereLength = std::strlen(where);
  auto *status = static_cast<graphc_status_impl *>(
      std::malloc(sizeof(graphc_status_impl) + sizeof(prefix) + whereLength));
  if (!status)
    return &staticOutOfMemory;
  status->code = GRAPHC_RESOURCE_EXHAUSTED;
  std::memcpy(status->message, prefix, sizeof(prefix) - 1);
  std::memcpy(status->message + sizeof(prefix) - 1, where, whereLength + 1);
  return status;
}

extern "C" {

graphc_code graphc_status_code(graphc_status status) {
  return status ? status->code : GRAPHC_OK;
}

const char *graphc_status_message(graphc_status status) {
  if (status == &staticOutOfMemory)
    return "out of memory while reporting an error";
  return status ? status->message : "";
}

void graphc_status_free(graphc_status status) {
  if (status != &staticOutOfMemory)
    std::free(status);
}

const char *graphc_code_name(graphc_code code) {
  switch (code) {
  case GRAPHC_OK:
    return "ok";
  case GRAPHC_INVALID_ARGUMENT:
    return "invalid_argument";
  case GRAPHC_NOT_FOUND:
    return "not_found";
  case GRAPHC_FAILED_PRECONDITION:
    return "failed_precondition";
  case GRAPHC_UNAVAILABLE:
    return "unavailable";
  case GRAPHC_DATA_LOSS:
    return "data_loss";
  case GRAPHC_RESOURCE_EXHAUSTED:
    return "resource_exhausted";
  case GRAPHC_UNIMPLEMENTED:
    return "unimplemented";
  case GRAPHC_INTERNAL:
    return "internal";
  }
  return "unknown";
}

} // extern "C"
