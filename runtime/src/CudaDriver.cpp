//===- CudaDriver.cpp - loading the CUDA driver API -----------------------===//
#include "runtime/src/CudaDriver.h"
#include "runtime/src/VendorLibrary.h"

#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>

using namespace graphc::rt;

std::string cu::Driver::describe(Result result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (getErrorName(result, &name) != kSuccess || !name)
    return "CUDA error " + std::to_string(result);
  getErrorString(result, &text);
  return text ? std::string(name) + " (" + text + ")" : std::string(name);
}

bool cu::loadDriver(const std::string &path, Driver &driver,
                    std::string &error) {
  // Never closed: the driver must outlive every model and session.
  void *library = openVendorLibrary(path, error);
  if (!library) {
    error = "no CUDA driver: " + error;
    return false;
  }
#define GRAPHC_CU_SYMBOL(member, symbol, params)                               \
  driver.member = reinterpret_cast<decltype(driver.member)>(                   \
      vendorSymbol(library, symbol));                                          \
  if (!driver.member) {                                                        \
    error = "the CUDA driver " + path + " lacks " symbol " (driver too old?)"; \
    return false;                                                              \
  }
#include "runtime/src/CudaSymbols.def"
  for (const char *symbol : {"cuEventElapsedTime_v2", "cuEventElapsedTime"})
    if (!driver.eventElapsedTime)
      driver.eventElapsedTime =
          reinterpret_cast<decltype(driver.eventElapsedTime)>(
              vendorSymbol(library, symbol));
  driver.launchKernelEx = reinterpret_cast<decltype(driver.launchKernelEx)>(
      vendorSymbol(library, "cuLaunchKernelEx"));
#define GRAPHC_CU_SYMBOL(member, symbol, params)
#define GRAPHC_CU_CONDITIONAL_SYMBOL(member, symbol, params)                   \
  driver.member = reinterpret_cast<decltype(driver.member)>(                   \
      vendorSymbol(library, symbol));                                          \
  if (!driver.member && !driver.missingConditionalSymbol)                      \
    driver.missingConditionalSymbol = symbol;
#include "runtime/src/CudaSymbols.def"

  Result first = driver.init(0);
  if (first == kSuccess)
    return true;
  // One retry: cuInit can fail transiently while the kernel module or the
  // persistence daemon is still coming up, and the outcome is then cached.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  Result second = driver.init(0);
  if (second == kSuccess)
    return true;
  error =
      "cannot initialise the CUDA driver: cuInit returned " +
      driver.describe(first) +
      (second == first ? ", and again after 200 ms"
                       : ", then " + driver.describe(second) + " after 200 ms");
  return false;
}

namespace {
struct LoadedDriver {
  cu::Driver driver;
  std::string error;
};

LoadedDriver loadProcessDriver() {
  LoadedDriver loaded;
  const char *override = std::getenv("GRAPHC_CUDA_DRIVER_LIBRARY");
  std::string path = override && *override ? override : "libcuda.so.1";
  if (!cu::loadDriver(path, loaded.driver, loaded.error) &&
      loaded.error.empty())
    loaded.error = "cannot load the CUDA driver " + path;
  return loaded;
}

struct PoisonRegistry {
  std::mutex mutex;
  std::map<int, std::string> causes;
};

PoisonRegistry &poisonRegistry() {
  static PoisonRegistry registry;
  return registry;
}
} // namespace

const cu::Driver *cu::getDriver(std::string &error) {
  static const LoadedDriver loaded = loadProcessDriver();
  if (!loaded.error.empty()) {
    error = loaded.error;
    return nullptr;
  }
  return &loaded.driver;
}

bool cu::isStickyError(Result result) {
  switch (result) {
  case 214: // CUDA_ERROR_ECC_UNCORRECTABLE
  case 700: // CUDA_ERROR_ILLEGAL_ADDRESS
  case 702: // CUDA_ERROR_LAUNCH_TIMEOUT
  case 710: // CUDA_ERROR_ASSERT
  case 714: // CUDA_ERROR_HARDWARE_STACK_ERROR
  case 715: // CUDA_ERROR_ILLEGAL_INSTRUCTION
  case 716: // CUDA_ERROR_MISALIGNED_ADDRESS
  case 717: // CUDA_ERROR_INVALID_ADDRESS_SPACE
  case 718: // CUDA_ERROR_INVALID_PC
  case 719: // CUDA_ERROR_LAUNCH_FAILED
    return true;
  default:
    return false;
  }
}

void cu::poisonDevice(int ordinal, const std::string &cause) {
  PoisonRegistry &registry = poisonRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  registry.causes.emplace(ordinal, cause);
}

bool cu::devicePoisoned(int ordinal, std::string &cause) {
  PoisonRegistry &registry = poisonRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto found = registry.causes.find(ordinal);
  if (found == registry.causes.end())
    return false;
  cause = found->second;
  return true;
}

cu::ContextGuard::ContextGuard(const Driver &driver, Context context)
    : driver(driver), pushResult(driver.ctxPushCurrent(context)) {}

cu::ContextGuard::~ContextGuard() {
  if (pushResult == kSuccess) {
    Context popped = nullptr;
    driver.ctxPopCurrent(&popped);
  }
}

cu::RelaxedCaptureGuard::RelaxedCaptureGuard(const Driver &driver)
    : driver(driver),
      exchanged(driver.threadExchangeStreamCaptureMode(&previous) == kSuccess) {
}

cu::RelaxedCaptureGuard::~RelaxedCaptureGuard() {
  if (exchanged)
    driver.threadExchangeStreamCaptureMode(&previous);
}
