//===- CublasLt.cpp - loading cuBLASLt ------------------------------------===//
#include "runtime/src/CublasLt.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

using namespace graphc::rt;

std::string lt::statusName(Status status) {
  switch (status) {
  case 0:
    return "CUBLAS_STATUS_SUCCESS";
  case 1:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case 3:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case 7:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case 8:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case 11:
    return "CUBLAS_STATUS_MAPPING_ERROR";
  case 13:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case 14:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case 15:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  case 16:
    return "CUBLAS_STATUS_LICENSE_ERROR";
  default:
    return "cuBLAS status " + std::to_string(status);
  }
}

std::string lt::Library::describe(Status status) const {
  const char *text = getStatusString ? getStatusString(status) : nullptr;
  std::string name = statusName(status);
  return text && *text ? name + " (" + text + ")" : name;
}

bool lt::loadLibrary(const std::string &path, Library &library,
                     std::string &error) {
  // Never closed: handles and algorithms of live sessions point into it.
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    error = "cannot open " + path +
            (reason ? std::string(" (") + reason + ")" : "");
    return false;
  }
#define GRAPHC_LT_SYMBOL(member, symbol, result, params)                       \
  library.member =                                                             \
      reinterpret_cast<decltype(library.member)>(dlsym(handle, symbol));       \
  if (!library.member) {                                                       \
    error = path + " lacks " symbol " (not cuBLASLt, or too old)";             \
    return false;                                                              \
  }
#include "runtime/src/CublasLtSymbols.def"
  library.path = path;
  library.version = library.getVersion();
  return true;
}

namespace {
struct Loaded {
  lt::Library library;
  std::string error;
};

/// One load per path for the life of the process: a session keeps using
/// the table its model was given, and a path that failed is not retried.
const Loaded &loadOnce(const std::string &path) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Loaded>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Loaded> &entry = loaded[path];
  if (!entry) {
    entry = std::make_unique<Loaded>();
    if (!lt::loadLibrary(path, entry->library, entry->error) &&
        entry->error.empty())
      entry->error = "cannot load " + path;
  }
  return *entry;
}
} // namespace

const lt::Library *lt::getLibrary(std::string &error) {
  const char *override = std::getenv("GRAPHC_CUBLASLT_LIBRARY");
  if (override && *override) {
    const Loaded &loaded = loadOnce(override);
    if (!loaded.error.empty()) {
      error = loaded.error;
      return nullptr;
    }
    return &loaded.library;
  }
  // CUDA 13's cuBLASLt, else CUDA 12's: the runtime uses only API both have.
  const Loaded &current = loadOnce("libcublasLt.so.13");
  if (current.error.empty())
    return &current.library;
  const Loaded &previous = loadOnce("libcublasLt.so.12");
  if (previous.error.empty())
    return &previous.library;
  error = current.error + "; " + previous.error;
  return nullptr;
}
