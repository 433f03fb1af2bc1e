//===- CudaDriver.h - the CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// Nothing CUDA is linked at build time: libcuda.so.1 is opened on first use
// and its entry points are read into a table, so the cpu path runs on
// machines without a driver. The handful of driver types and constants used
// are declared here; test/runtime/CudaDriverConstantsTest.cpp checks them
// against cuda.h where the toolkit exists.
//
// Testing hook: GRAPHC_CUDA_DRIVER_LIBRARY names another library to open
// instead of libcuda.so.1 (test/runtime's fake driver).
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
using Event = struct CUevent_st *;
using Graph = struct CUgraph_st *;
using GraphExec = struct CUgraphExec_st *;
using GraphNode = struct CUgraphNode_st *;
using GraphConditionalHandle = unsigned long long;

constexpr Result kSuccess = 0;
constexpr Result kErrorOutOfMemory = 2;
constexpr Result kErrorUnsupportedPtxVersion = 222;
constexpr Result kErrorNotReady = 600;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr int kAttrMaxSharedMemoryPerBlockOptin = 97;
constexpr int kFuncAttrMaxDynamicSharedSizeBytes = 8;
constexpr unsigned kStreamNonBlocking = 1;
constexpr unsigned kEventDisableTiming = 2;
constexpr int kStreamCaptureModeThreadLocal = 1;
constexpr int kStreamCaptureModeRelaxed = 2;
constexpr int kStreamCaptureStatusNone = 0;
constexpr int kStreamCaptureStatusActive = 1;
/// Conditional (WHILE) nodes, which loop steps are captured as.
constexpr int kGraphNodeTypeConditional = 13;
constexpr int kGraphConditionalTypeWhile = 1;
constexpr unsigned kGraphConditionalAssignDefault = 1;
constexpr unsigned kStreamSetCaptureDependencies = 1;
/// Dynamic shared memory a kernel may use without opting in.
constexpr unsigned kDefaultSharedBytesLimit = 48 * 1024;
/// CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION: the launched
/// kernel may start before the previous kernel on the stream finishes (it
/// waits for it in griddepcontrol.wait); SM 9.0 and newer.
constexpr int kLaunchAttributeProgrammaticStreamSerialization = 6;

/// CUlaunchAttribute: an id, padding to 8 bytes, a 64-byte value union of
/// which the runtime only sets the int
/// `programmaticStreamSerializationAllowed`.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int programmaticStreamSerializationAllowed;
  } value;
};

/// CUlaunchConfig of cuLaunchKernelEx.
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  Stream stream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};

/// CUgraphEdgeData: an annotation of a dependency (all zero: full
/// completion of the upstream node).
struct GraphEdgeData {
  unsigned char fromPort, toPort, type;
  unsigned char reserved[5];
};

/// CUDA_CONDITIONAL_NODE_PARAMS.
struct ConditionalNodeParams {
  GraphConditionalHandle handle;
  int type;
  unsigned size;
  /// Driver-owned: the node's body graphs, filled in by cuGraphAddNode.
  Graph *graphsOut;
  Context context;
};

/// CUgraphNodeParams, of which the runtime adds conditional nodes only.
struct GraphNodeParams {
  int type;
  int reserved0[3];
  union {
    long long reserved1[29];
    ConditionalNodeParams conditional;
  };
  long long reserved2;
};

/// The driver entry points, one member per CudaSymbols.def entry.
struct Driver {
#define GRAPHC_CU_SYMBOL(member, symbol, params)                               \
  Result(*member) params = nullptr;
#define GRAPHC_CU_CONDITIONAL_SYMBOL(member, symbol, params)                   \
  Result(*member) params = nullptr;
#include "runtime/src/CudaSymbols.def"
  /// The first conditional-node entry point (CudaSymbols.def) the driver
  /// lacks, nullptr when it has them all.
  const char *missingConditionalSymbol = nullptr;
  /// cuEventElapsedTime_v2, else the original entry point of the same
  /// signature (drivers before CUDA 12.8); nullptr when the driver has
  /// neither. Only step profiling needs it.
  Result (*eventElapsedTime)(float *milliseconds, Event start,
                             Event end) = nullptr;
  /// cuLaunchKernelEx (CUDA 12.0 and newer), nullptr when the driver lacks
  /// it: only programmatic dependent launch needs it.
  Result (*launchKernelEx)(const LaunchConfig *config, Function function,
                           void **params, void **extra) = nullptr;

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string describe(Result result) const;

  /// Frees or destroys what a cleanup holds, skipping what was never
  /// allocated (null): cleanups run however far creation got.
  void freeIfAllocated(DevicePtr pointer) const {
    if (pointer)
      memFree(pointer);
  }
  void destroyIfCreated(Event event) const {
    if (event)
      eventDestroy(event);
  }
};

/// Opens the driver library `path`, reads every entry point and calls
/// cuInit, retrying once after a short delay (a driver still starting up,
/// e.g. in a freshly booted VM, can fail the first call). Not cached: for
/// getDriver and the tests. Returns false and sets `error` on failure.
bool loadDriver(const std::string &path, Driver &driver, std::string &error);

/// The process-wide driver table, loaded and initialised once from
/// GRAPHC_CUDA_DRIVER_LIBRARY or libcuda.so.1. Returns nullptr and sets
/// `error` when the library is missing, lacks an entry point or fails to
/// initialise twice; the outcome is cached for the life of the process.
const Driver *getDriver(std::string &error);

/// Whether `result` leaves the CUDA context unusable: after an illegal
/// address, a device-side assert, a misaligned access and the like, every
/// later call in the context fails with the same error.
bool isStickyError(Result result);

/// Marks device `ordinal` unusable for the rest of the process (its primary
/// context, shared by every model and session, is corrupted) with `cause`,
/// the status message of the failure. The first cause is kept.
void poisonDevice(int ordinal, const std::string &cause);
/// Whether device `ordinal` was poisoned; sets `cause` when it was.
bool devicePoisoned(int ordinal, std::string &cause);

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

/// Sets this thread's stream capture interaction mode to relaxed for the
/// guard's lifetime. Wraps the runtime's allocations and frees, which are
/// never part of a captured graph: in the default (global) mode they would
/// fail, or invalidate the capture, whenever another thread of the process
/// captures in global mode (e.g. an application capturing its own graph).
class RelaxedCaptureGuard {
public:
  explicit RelaxedCaptureGuard(const Driver &driver);
  ~RelaxedCaptureGuard();
  RelaxedCaptureGuard(const RelaxedCaptureGuard &) = delete;
  RelaxedCaptureGuard &operator=(const RelaxedCaptureGuard &) = delete;

private:
  const Driver &driver;
  int previous = kStreamCaptureModeRelaxed;
  bool exchanged;
};

} // namespace graphc::rt::cu

#endif
