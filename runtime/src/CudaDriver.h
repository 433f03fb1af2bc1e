//===- CudaDriver.h - the CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// Nothing CUDA is linked at build time: libcuda.so.1 is opened on first use
// and its entry points are read into a table, so the cpu path runs on
// machines without a driver. The handful of driver types and constants used
// are declared here; test/unit checks them against cuda.h where it exists.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_CUDADRIVER_H
#define GRAPHC_RUNTIME_SRC_CUDADRIVER_H

#include <cstddef>
#include <string>

namespace graphc::rt::cu {

using Result = int;
using Device = int;
using DevicePtr = unsigned long long;
using Context = struct CUctx_st *;
using Module = struct CUmod_st *;
using Function = struct CUfunc_st *;
using Stream = struct CUstream_st *;
using Graph = struct CUgraph_st *;
using GraphExec = struct CUgraphExec_st *;

constexpr Result kSuccess = 0;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr int kAttrMaxSharedMemoryPerBlockOptin = 97;
constexpr int kFuncAttrMaxDynamicSharedSizeBytes = 8;
constexpr unsigned kStreamNonBlocking = 1;
constexpr int kStreamCaptureModeThreadLocal = 1;
/// Dynamic shared memory a kernel may use without opting in.
constexpr unsigned kDefaultSharedBytesLimit = 48 * 1024;

/// The driver entry points, one member per CudaSymbols.def entry.
struct Driver {
#define GRAPHC_CU_SYMBOL(member, symbol, params)                               \
  Result(*member) params = nullptr;
#include "runtime/src/CudaSymbols.def"

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string describe(Result result) const;
};

/// The process-wide driver table, loaded and initialised (cuInit) once.
/// Returns nullptr and sets `error` when libcuda.so.1 is missing, lacks an
/// entry point or fails to initialise; the outcome is cached.
const Driver *getDriver(std::string &error);

/// Makes `context` current on this thread for the guard's lifetime.
class ContextGuard {
public:
  ContextGuard(const Driver &driver, Context context);
  ~ContextGuard();
  ContextGuard(const ContextGuard &) = delete;
  ContextGuard &operator=(const ContextGuard &) = delete;
  /// The push's result; kSuccess when the context is current.
  Result result() const { return pushResult; }

private:
  const Driver &driver;
  Result pushResult;
};

} // namespace graphc::rt::cu

#endif
