//===- CudaDriver.cpp - loading the CUDA driver API -----------------------===//
#include "runtime/src/CudaDriver.h"

#include <dlfcn.h>

#include <mutex>

using namespace graphc::rt;

std::string cu::Driver::describe(Result result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (getErrorName(result, &name) != kSuccess || !name)
    return "CUDA error " + std::to_string(result);
  getErrorString(result, &text);
  return text ? std::string(name) + " (" + text + ")" : std::string(name);
}

namespace {
struct LoadedDriver {
  cu::Driver driver;
  std::string error;
};

LoadedDriver loadDriver() {
  LoadedDriver loaded;
  // Never closed: the driver must outlive every model and session.
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    loaded.error = std::string("no CUDA driver: cannot open libcuda.so.1") +
                   (reason ? std::string(" (") + reason + ")" : "");
    return loaded;
  }
#define GRAPHC_CU_SYMBOL(member, symbol, params)                               \
  loaded.driver.member = reinterpret_cast<decltype(loaded.driver.member)>(     \
      dlsym(library, symbol));                                                 \
  if (!loaded.driver.member) {                                                 \
    loaded.error = "the CUDA driver lacks " symbol " (driver too old?)";       \
    return loaded;                                                             \
  }
#include "runtime/src/CudaSymbols.def"

  cu::Result result = loaded.driver.init(0);
  if (result != cu::kSuccess)
    loaded.error =
        "cannot initialise the CUDA driver: " + loaded.driver.describe(result);
  return loaded;
}
} // namespace

const cu::Driver *cu::getDriver(std::string &error) {
  static const LoadedDriver loaded = loadDriver();
  if (!loaded.error.empty()) {
    error = loaded.error;
    return nullptr;
  }
  return &loaded.driver;
}

cu::ContextGuard::ContextGuard(const Driver &driver, Context context)
    : driver(driver), pushResult(driver.ctxPushCurrent(context)) {}

cu::ContextGuard::~ContextGuard() {
  if (pushResult == kSuccess) {
    Context popped = nullptr;
    driver.ctxPopCurrent(&popped);
  }
}
