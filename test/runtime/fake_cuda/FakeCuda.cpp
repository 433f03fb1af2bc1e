//===- FakeCuda.cpp - a CUDA driver over host memory, for tests -----------===//
//
// See FakeCuda.h. Exports the driver entry points under their versioned
// names (cuMemAlloc_v2, ...), as libcuda does.
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"
#include "FakeCudaInternal.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {
using Result = int;
using DevicePtr = unsigned long long;

constexpr Result kSuccess = 0;
constexpr Result kInvalidValue = 1;
constexpr Result kNoDevice = 100;
constexpr Result kInvalidDevice = 101;
constexpr Result kInvalidImage = 200;
constexpr Result kInvalidContext = 201;
constexpr Result kInvalidHandle = 400;
constexpr Result kIllegalState = 401;
constexpr Result kNotFound = 500;
constexpr Result kLaunchFailed = 719;
constexpr Result kIllegalAddress = 700;
constexpr Result kCaptureUnsupported = 900;
constexpr Result kCaptureInvalidated = 901;
constexpr Result kCaptureUnmatched = 902;
constexpr Result kCaptureImplicit = 906;
constexpr Result kCaptureWrongThread = 908;

constexpr int kDevices = 3;
constexpr int kModeGlobal = 0, kModeThreadLocal = 1, kModeRelaxed = 2;
constexpr unsigned kStreamNonBlocking = 1;
// The legacy and per-thread default stream handles.
constexpr uintptr_t kLegacyStream = 0x1, kPerThreadStream = 0x2;

struct Context {
  int device;
  Result sticky = kSuccess;
};

/// A kernel's entry in a host emulation image (graphc_emu_kernel in
/// lib/Codegen/CUDA/emulation/graphc_cuda_emulation.h).
using EmulatedLaunch = int (*)(const unsigned grid[3], const unsigned block[3],
                               unsigned sharedBytes, void **params,
                               char *error, size_t errorBytes);
struct EmulatedKernelEntry {
  const char *name;
  EmulatedLaunch launch;
  int numParams;
  const unsigned *paramSizes;
};

struct Kernel {
  std::string name;
  fakecu_kernel_fn fn;
  std::vector<unsigned> paramSizes;
  EmulatedLaunch emulated = nullptr;
};

struct Function {
  Kernel kernel;
  Context *context;
};

struct Module {
  Context *context;
  std::vector<std::unique_ptr<Function>> functions;
  // A host emulation image: the loaded library and its kernel table.
  void *library = nullptr;
  const EmulatedKernelEntry *emulated = nullptr;
};

/// The byte size of the ELF64 shared object at `image`: its section header
/// table comes last. 0 when it is not one.
size_t elfImageSize(const void *image) {
  const unsigned char *bytes = static_cast<const unsigned char *>(image);
  if (std::memcmp(bytes, "\x7f" "ELF", 4) != 0 || bytes[4] != 2 /*ELFCLASS64*/)
    return 0;
  uint64_t sectionHeaders;
  uint16_t entrySize, entries;
  std::memcpy(&sectionHeaders, bytes + 0x28, sizeof sectionHeaders);
  std::memcpy(&entrySize, bytes + 0x3a, sizeof entrySize);
  std::memcpy(&entries, bytes + 0x3c, sizeof entries);
  return sectionHeaders + uint64_t(entrySize) * entries;
}

/// Loads a host emulation image into `module`. The bytes go to a file of
/// their own name: dlopen returns an already loaded library for a name it
/// has seen, so names are never reused.
int loadEmulationImage(Module &module, const void *image, size_t size) {
  const char *dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") +
                     "/graphc-emulated-XXXXXX";
  int fd = mkstemp(path.data());
  if (fd < 0)
    return kInvalidImage;
  const char *at = static_cast<const char *>(image);
  size_t left = size;
  while (left) {
    ssize_t wrote = write(fd, at, left);
    if (wrote <= 0)
      break;
    at += wrote;
    left -= size_t(wrote);
  }
  close(fd);
  void *library = left ? nullptr : dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library && !left)
    std::fprintf(stderr, "fake CUDA driver: cannot load an emulation image: %s\n",
                 dlerror());
  unlink(path.c_str());
  if (!library)
    return kInvalidImage;
  auto *table = static_cast<const EmulatedKernelEntry *>(
      dlsym(library, "graphc_emu_kernels"));
  if (!table) {
    dlclose(library);
    return kInvalidImage;
  }
  module.library = library;
  module.emulated = table;
  return kSuccess;
}

/// A conditional handle (cuGraphConditionalHandleCreate). Its value lives
/// here, shared by the graph it was created on and that graph's one
/// instantiation (CUDA allows no second one while it lives).
struct Conditional {
  unsigned long long id;
  Context *context;
  unsigned defaultValue;
  unsigned flags; // CU_GRAPH_COND_ASSIGN_DEFAULT or 0
  unsigned value;
  bool used = false; // a conditional node uses it
};
constexpr unsigned kConditionalAssignDefault = 1;
/// A WHILE node that ran this many iterations counts as hung: the fake
/// fails it rather than spin forever, as a test would.
constexpr long kMaxConditionalIterations = 1 << 20;

struct Graph;

/// A node handle (CUgraphNode): the op at `index` of `graph`. A conditional
/// node's body is the driver-owned array cuGraphAddNode returns.
struct Node {
  Graph *graph;
  size_t index;
  Graph *bodies[1] = {nullptr};
};

struct Op {
  std::string text;
  std::function<void()> run;
  /// A conditional WHILE node (run is empty): its body runs while the
  /// handle's value is non-zero, in the context of the handle.
  std::shared_ptr<Graph> body;
  std::shared_ptr<Conditional> conditional;
  Op(std::string text, std::function<void()> run)
      : text(std::move(text)), run(std::move(run)) {}
  Op(std::string text, std::shared_ptr<Graph> body,
     std::shared_ptr<Conditional> conditional)
      : text(std::move(text)), body(std::move(body)),
        conditional(std::move(conditional)) {}
};

/// A graph. The fake's graphs are chains: every node depends on the one
/// before it, which is all stream capture of one stream makes; adding a
/// node or capturing with other dependencies is refused.
struct Graph : std::enable_shared_from_this<Graph> {
  int id;
  std::vector<Op> ops;
  std::vector<std::unique_ptr<Node>> nodes; // one per op
  /// The handles created on this graph (an instantiation: those of its
  /// whole tree).
  std::vector<std::shared_ptr<Conditional>> conditionals;
  /// Owned by a conditional node: never destroyed by cuGraphDestroy.
  bool body = false;
  /// Part of an instantiation (CUgraphExec, or a body in one).
  bool exec = false;
  /// Streams capturing into it now.
  int capturers = 0;
  /// A graph: its instantiations alive now. An instantiation (counted):
  /// its graph's count, which it decrements when destroyed.
  std::shared_ptr<int> liveExecs = std::make_shared<int>(0);
  bool counted = false;
  Graph(int id, bool body = false) : id(id), body(body) {}
  ~Graph() {
    if (counted)
      --*liveExecs;
  }
  Node *tail() const { return nodes.empty() ? nullptr : nodes.back().get(); }
};

/// CUgraphEdgeData and CUDA_CONDITIONAL_NODE_PARAMS, CUgraphNodeParams as
/// cuda.h lays them out.
struct EdgeData {
  unsigned char fromPort, toPort, type, reserved[5];
};
struct ConditionalParams {
  unsigned long long handle;
  int type;
  unsigned size;
  Graph **graphsOut;
  Context *context;
};
struct NodeParams {
  int type;
  int reserved0[3];
  union {
    long long reserved1[29];
    ConditionalParams conditional;
  };
  long long reserved2;
};
constexpr int kNodeTypeConditional = 13;
constexpr int kConditionalWhile = 1;
constexpr unsigned kSetCaptureDependencies = 1;

struct Stream {
  int id;
  Context *context;
  unsigned flags;
  bool capturing = false;
  bool invalidated = false;
  int captureMode = kModeGlobal;
  std::thread::id captureThread;
  unsigned long long captureId = 0;
  /// The graph being captured into: made by the capture, or given to
  /// cuStreamBeginCaptureToGraph (a conditional node's body).
  std::shared_ptr<Graph> graph;
  bool toGivenGraph = false;
  /// The node the next captured op depends on (null: none).
  Node *dependency = nullptr;
  /// What cuStreamGetCaptureInfo_v3 last returned.
  std::vector<Node *> dependenciesOut;
  std::vector<EdgeData> edgesOut;
};

struct Event {
  int id;
  /// Created without CU_EVENT_DISABLE_TIMING; when its last record ran.
  bool timing = false;
  bool recorded = false;
  std::chrono::steady_clock::time_point at;
};

/// The environment variable `name` as a number, 0 when unset or not one.
unsigned numberFromEnvironment(const char *name) {
  const char *value = std::getenv(name);
  return value ? static_cast<unsigned>(std::strtoul(value, nullptr, 10)) : 0;
}

int defaultComputeCapability() {
  unsigned sm = numberFromEnvironment("FAKECU_COMPUTE_CAPABILITY");
  return sm ? static_cast<int>(sm) : 80;
}

struct State {
  std::mutex mutex;
  Context contexts[kDevices] = {{0}, {1}, {2}};
  std::map<std::string, Kernel> kernels;
  std::set<Stream *> streams;
  /// Device allocations by start, with their sizes.
  std::map<void *, size_t> deviceAllocations;
  std::set<void *> hostAllocations;
  int nextStream = 1, nextEvent = 1, nextGraph = 1;
  unsigned long long nextCapture = 1, nextConditional = 1;
  /// Every graph and instantiation alive (bodies too), and those the
  /// caller owns: made by captures or instantiations, until destroyed.
  /// liveGraphs comes first: a graph leaves it when destroyed, so it must
  /// outlive ownedGraphs when the state is destroyed.
  std::set<Graph *> liveGraphs;
  std::map<Graph *, std::shared_ptr<Graph>> ownedGraphs;
  // Injections.
  int initFailures = 0;
  Result initResult = kSuccess;
  std::map<std::string, Result> faults;
  /// Launches of blocks of this many threads fault (0: none), from
  /// FAKECU_FAULT_BLOCK_THREADS: how a test makes one of graphc tune's
  /// candidates fail on the GPU, in a process that cannot call
  /// fakecu_fault_kernel.
  unsigned faultBlockThreads = numberFromEnvironment("FAKECU_FAULT_BLOCK_THREADS");
  /// Launches of blocks of this many threads abort the process (0: none),
  /// from FAKECU_ABORT_BLOCK_THREADS: a driver that crashes.
  unsigned abortBlockThreads = numberFromEnvironment("FAKECU_ABORT_BLOCK_THREADS");
  int driverVersion = 13000;
  /// Compute capability of every device, major * 10 + minor: 80, or
  /// FAKECU_COMPUTE_CAPABILITY (90: an fp8-capable device).
  int computeCapability = defaultComputeCapability();
  // Observations.
  std::map<std::string, int> calls;
  int violations = 0;
  std::string lastViolation;
  std::vector<std::string> trace;
  std::string traceText;
};

State &state() {
  static State s;
  return s;
}

thread_local std::vector<Context *> contextStack;
thread_local int captureMode = kModeGlobal;

Context *current() {
  return contextStack.empty() ? nullptr : contextStack.back();
}

/// Locks the state, counts the call (unless `name` is null), and checks the
/// current context's sticky error (every call touching a corrupted context
/// returns it).
struct Call {
  std::unique_lock<std::mutex> lock;
  State &s;
  Result sticky = kSuccess;
  explicit Call(const char *name, bool needsContext = true)
      : lock(state().mutex), s(state()) {
    if (name)
      ++s.calls[name];
    if (needsContext && current())
      sticky = current()->sticky;
  }
};

Result violate(State &s, const std::string &what, Result result) {
  ++s.violations;
  s.lastViolation = what;
  return result;
}

bool anyCapturing(State &s, bool blockingOnly = false) {
  for (Stream *stream : s.streams)
    if (stream->capturing &&
        (!blockingOnly || !(stream->flags & kStreamNonBlocking)))
      return true;
  return false;
}

/// Whether an unsafe call (allocation, free, module load) is prohibited for
/// this thread now, per cuThreadExchangeStreamCaptureMode's rules.
bool unsafeProhibited(State &s) {
  for (Stream *stream : s.streams) {
    if (!stream->capturing)
      continue;
    bool mine = stream->captureThread == std::this_thread::get_id();
    if (mine && stream->captureMode != kModeRelaxed &&
        captureMode != kModeRelaxed)
      return true;
    if (!mine && stream->captureMode == kModeGlobal &&
        captureMode == kModeGlobal)
      return true;
  }
  return false;
}

/// Resolves a stream handle; null for the legacy stream.
Stream *resolve(void *handle) {
  uintptr_t value = reinterpret_cast<uintptr_t>(handle);
  if (value == 0 || value == kLegacyStream || value == kPerThreadStream)
    return nullptr;
  return static_cast<Stream *>(handle);
}

std::string streamName(void *handle) {
  Stream *stream = resolve(handle);
  return "s" + std::to_string(stream ? stream->id : 0);
}

/// Makes a graph the driver tracks (liveGraphs) until it is destroyed.
std::shared_ptr<Graph> makeGraph(State &s, bool body) {
  Graph *graph = new Graph(s.nextGraph++, body);
  s.liveGraphs.insert(graph);
  return std::shared_ptr<Graph>(graph, [](Graph *dead) {
    // Every graph dies in a driver call, under the lock.
    state().liveGraphs.erase(dead);
    delete dead;
  });
}

/// The graph a handle names, null unless it is a live graph (not an
/// instantiation).
Graph *liveGraph(State &s, void *handle) {
  auto *graph = static_cast<Graph *>(handle);
  return s.liveGraphs.count(graph) && !graph->exec ? graph : nullptr;
}

/// Appends `op` to `graph` as its next node.
Node *appendNode(Graph &graph, Op op) {
  graph.ops.push_back(std::move(op));
  graph.nodes.push_back(
      std::make_unique<Node>(Node{&graph, graph.ops.size() - 1}));
  return graph.nodes.back().get();
}

/// Whether a node with these dependencies keeps `graph` a chain: it depends
/// on the graph's last node alone (on nothing when the graph is empty).
/// `edges` (optional) must be the default (full completion) ones.
bool extendsChain(const Graph &graph, void *const *dependencies,
                  const EdgeData *edges, size_t count) {
  if (edges)
    for (size_t d = 0; d < count; ++d)
      if (edges[d].fromPort || edges[d].toPort || edges[d].type ||
          std::any_of(std::begin(edges[d].reserved),
                      std::end(edges[d].reserved),
                      [](unsigned char b) { return b != 0; }))
        return false;
  Node *tail = graph.tail();
  if (!tail)
    return count == 0;
  return count == 1 && dependencies && dependencies[0] == tail;
}

/// Runs `op` on `handle` now, or records it when the stream captures.
Result enqueue(State &s, void *handle, Op op) {
  Stream *stream = resolve(handle);
  if (!stream) {
    if (anyCapturing(s, /*blockingOnly=*/true))
      return violate(s, "legacy stream used while a blocking stream captures",
                     kCaptureImplicit);
  } else if (stream->capturing) {
    if (stream->invalidated)
      return kCaptureInvalidated;
    // Captured work depends on the stream's dependency; anything but the
    // graph's last node would make it run beside that node.
    if (stream->dependency != stream->graph->tail())
      return violate(s,
                     op.text + " captured on " + streamName(handle) +
                         " would not depend on the last node of graph g" +
                         std::to_string(stream->graph->id) +
                         " (cuStreamUpdateCaptureDependencies after adding a "
                         "node?); the fake's graphs are chains",
                     kCaptureUnsupported);
    op.text += " " + streamName(handle);
    stream->dependency = appendNode(*stream->graph, std::move(op));
    return kSuccess;
  }
  s.trace.push_back(op.text + " " + streamName(handle));
  op.run();
  return kSuccess;
}

const char *errorName(Result result) {
  switch (result) {
  case 0:
    return "CUDA_SUCCESS";
  case 1:
    return "CUDA_ERROR_INVALID_VALUE";
  case 2:
    return "CUDA_ERROR_OUT_OF_MEMORY";
  case 3:
    return "CUDA_ERROR_NOT_INITIALIZED";
  case 100:
    return "CUDA_ERROR_NO_DEVICE";
  case 101:
    return "CUDA_ERROR_INVALID_DEVICE";
  case 200:
    return "CUDA_ERROR_INVALID_IMAGE";
  case 201:
    return "CUDA_ERROR_INVALID_CONTEXT";
  case 222:
    return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
  case 400:
    return "CUDA_ERROR_INVALID_HANDLE";
  case 500:
    return "CUDA_ERROR_NOT_FOUND";
  case 600:
    return "CUDA_ERROR_NOT_READY";
  case 700:
    return "CUDA_ERROR_ILLEGAL_ADDRESS";
  case 716:
    return "CUDA_ERROR_MISALIGNED_ADDRESS";
  case 719:
    return "CUDA_ERROR_LAUNCH_FAILED";
  case 900:
    return "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED";
  case 901:
    return "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED";
  case 902:
    return "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED";
  case 906:
    return "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT";
  case 908:
    return "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD";
  case 999:
    return "CUDA_ERROR_UNKNOWN";
  default:
    return nullptr;
  }
}

const char *errorText(Result result) {
  switch (result) {
  case 0:
    return "no error";
  case 2:
    return "out of memory";
  case 100:
    return "no CUDA-capable device is detected";
  case 222:
    return "the provided PTX was compiled with an unsupported toolchain.";
  case 700:
    return "an illegal memory access was encountered";
  case 716:
    return "misaligned address";
  case 719:
    return "unspecified launch failure";
  case 900:
    return "operation not permitted when stream is capturing";
  case 901:
    return "operation failed due to a previous error during capture";
  case 999:
    return "unknown error";
  default:
    return "fake driver error";
  }
}
} // namespace

namespace {
/// How far the fake's clock is ahead of the host's, in nanoseconds.
std::atomic<int64_t> clockLead{0};

std::chrono::steady_clock::time_point fakeNow() {
  return std::chrono::steady_clock::now() +
         std::chrono::nanoseconds(clockLead.load());
}
} // namespace

namespace {
/// The instantiation being launched on this thread (its kernels run under
/// the driver's lock, on the launching thread), null outside cuGraphLaunch.
thread_local Graph *replaying = nullptr;
/// Why a kernel's cudaGraphSetConditional was refused ("" when it was not):
/// the launch then fails.
thread_local std::string kernelFailure;

/// cudaGraphSetConditional from a running kernel: an emulated one (through
/// its image's graphc_emu_set_conditional) or a registered one
/// (fakecu_graph_set_conditional). Returns why it is refused, or null.
const char *setConditional(unsigned long long handle, unsigned value) {
  if (!replaying) {
    kernelFailure = "cudaGraphSetConditional(" + std::to_string(handle) +
                    ") outside a CUDA graph's launch";
    return kernelFailure.c_str();
  }
  for (const std::shared_ptr<Conditional> &conditional :
       replaying->conditionals)
    if (conditional->id == handle) {
      conditional->value = value;
      return nullptr;
    }
  kernelFailure = "cudaGraphSetConditional: " + std::to_string(handle) +
                  " is no conditional handle of the launched graph";
  return kernelFailure.c_str();
}

/// Runs the ops of an instantiation, tracing each; a WHILE node runs its
/// body while its handle's value is non-zero (checked before each
/// iteration), and stops when its context becomes sticky, as a faulting
/// graph does.
void replay(State &s, const Graph &graph, const std::string &prefix) {
  for (const Op &op : graph.ops) {
    s.trace.push_back(prefix + op.text);
    if (!op.body) {
      op.run();
      continue;
    }
    Conditional &conditional = *op.conditional;
    std::string bodyPrefix =
        prefix + "h" + std::to_string(conditional.id) + ": ";
    for (long iteration = 0; conditional.value && !conditional.context->sticky;
         ++iteration) {
      if (iteration == kMaxConditionalIterations) {
        std::fprintf(stderr,
                     "fake CUDA driver: the WHILE node of handle %llu ran "
                     "%ld iterations; failing it as hung\n",
                     conditional.id, iteration);
        conditional.context->sticky = kLaunchFailed;
        break;
      }
      replay(s, *op.body, bodyPrefix);
    }
  }
}

/// An instantiation of `graph`: its ops, bodies copied too, and the
/// handles of the whole tree.
std::shared_ptr<Graph> instantiate(State &s, const Graph &graph,
                                   std::shared_ptr<Graph> root = nullptr) {
  std::shared_ptr<Graph> exec = makeGraph(s, root != nullptr);
  exec->exec = true;
  if (!root)
    root = exec;
  for (const Op &op : graph.ops) {
    Op copy = op;
    if (op.body)
      copy.body = instantiate(s, *op.body, root);
    exec->ops.push_back(std::move(copy));
  }
  root->conditionals.insert(root->conditionals.end(),
                            graph.conditionals.begin(),
                            graph.conditionals.end());
  return exec;
}

/// Why `graph` cannot be instantiated now ("" when it can): a handle no
/// node uses (CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED), a body a
/// stream still captures into.
std::string notInstantiable(const Graph &graph) {
  for (const std::shared_ptr<Conditional> &conditional : graph.conditionals)
    if (!conditional->used)
      return "conditional handle " + std::to_string(conditional->id) +
             " is used by no node";
  if (graph.capturers)
    return "a stream still captures into graph g" + std::to_string(graph.id);
  for (const Op &op : graph.ops)
    if (op.body) {
      std::string why = notInstantiable(*op.body);
      if (!why.empty())
        return why;
    }
  return "";
}

bool hasConditionalNodes(const Graph &graph) {
  return std::any_of(graph.ops.begin(), graph.ops.end(),
                     [](const Op &op) { return op.body != nullptr; });
}
} // namespace

void fakecu::advanceClock(double microseconds) {
  clockLead += static_cast<int64_t>(microseconds * 1000.0);
}

int fakecu::enqueueWork(void *stream, const std::string &text,
                        std::function<void()> work) {
  Call call(nullptr);
  if (call.sticky)
    return call.sticky;
  Context *context = current();
  if (!context)
    return kInvalidContext;
  return enqueue(call.s, stream, {text, [context, work = std::move(work)] {
                                    if (!context->sticky)
                                      work();
                                  }});
}

void fakecu::countCall(const char *function) { Call call(function, false); }

int fakecu::computeCapability() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().computeCapability;
}

bool fakecu::inDeviceMemory(const void *pointer, uint64_t bytes) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto *at = static_cast<char *>(const_cast<void *>(pointer));
  auto after = s.deviceAllocations.upper_bound(at);
  if (after == s.deviceAllocations.begin())
    return false;
  auto holder = std::prev(after);
  auto *start = static_cast<char *>(holder->first);
  uint64_t offset = static_cast<uint64_t>(at - start);
  return offset <= holder->second && bytes <= holder->second - offset;
}

extern "C" {
#define FAKE_API __attribute__((visibility("default")))

//===- Control interface
//---------------------------------------------------===//

FAKE_API void fakecu_register_kernel(const char *name, fakecu_kernel_fn fn,
                                     int num_params,
                                     const unsigned *param_sizes) {
  std::lock_guard<std::mutex> lock(state().mutex);
  Kernel kernel{name, fn,
                std::vector<unsigned>(param_sizes, param_sizes + num_params)};
  state().kernels[name] = kernel;
}

FAKE_API void fakecu_reset(void) {
  fakecu::resetCublasLt();
  fakecu::resetCudnn();
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (Context &context : s.contexts)
    context.sticky = kSuccess;
  s.initFailures = 0;
  s.faults.clear();
  s.faultBlockThreads = numberFromEnvironment("FAKECU_FAULT_BLOCK_THREADS");
  s.abortBlockThreads = numberFromEnvironment("FAKECU_ABORT_BLOCK_THREADS");
  s.driverVersion = 13000;
  s.computeCapability = defaultComputeCapability();
  s.calls.clear();
  s.violations = 0;
  s.lastViolation.clear();
  s.trace.clear();
}

FAKE_API void fakecu_fail_init(int times, int result) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().initFailures = times;
  state().initResult = result;
}

FAKE_API void fakecu_fault_kernel(const char *name, int result) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().faults[name] = result;
}

FAKE_API void fakecu_set_driver_version(int version) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().driverVersion = version;
}

FAKE_API void fakecu_set_compute_capability(int sm) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().computeCapability = sm;
}

FAKE_API int fakecu_calls(const char *function) {
  std::lock_guard<std::mutex> lock(state().mutex);
  auto found = state().calls.find(function);
  return found == state().calls.end() ? 0 : found->second;
}

FAKE_API int fakecu_violations(void) {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().violations;
}

FAKE_API const char *fakecu_last_violation(void) {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().lastViolation.c_str();
}

FAKE_API const char *fakecu_trace(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.traceText.clear();
  for (const std::string &line : s.trace)
    s.traceText += line + "\n";
  return s.traceText.c_str();
}

FAKE_API int fakecu_graph_set_conditional(unsigned long long handle,
                                          unsigned value) {
  // Called by a running kernel, under the lock its launch holds.
  return setConditional(handle, value) ? 1 : 0;
}

FAKE_API int fakecu_stream_id(void *stream) {
  Stream *resolved = resolve(stream);
  return resolved ? resolved->id : 0;
}

FAKE_API int fakecu_event_id(void *event) {
  return event ? static_cast<Event *>(event)->id : 0;
}

//===- Initialisation, errors, devices
//--------------------------------------===//

FAKE_API Result cuInit(unsigned) {
  Call call("cuInit", false);
  if (call.s.initFailures > 0) {
    --call.s.initFailures;
    return call.s.initResult;
  }
  return kSuccess;
}

FAKE_API Result cuDriverGetVersion(int *version) {
  Call call("cuDriverGetVersion", false);
  *version = call.s.driverVersion;
  return kSuccess;
}

FAKE_API Result cuGetErrorName(Result error, const char **name) {
  *name = errorName(error);
  return *name ? kSuccess : kInvalidValue;
}

FAKE_API Result cuGetErrorString(Result error, const char **text) {
  *text = errorText(error);
  return kSuccess;
}

FAKE_API Result cuDeviceGetCount(int *count) {
  Call call("cuDeviceGetCount", false);
  *count = kDevices;
  return kSuccess;
}

FAKE_API Result cuDeviceGet(int *device, int ordinal) {
  Call call("cuDeviceGet", false);
  if (ordinal < 0 || ordinal >= kDevices)
    return kInvalidDevice;
  *device = ordinal;
  return kSuccess;
}

FAKE_API Result cuDeviceGetAttribute(int *value, int attribute, int device) {
  Call call("cuDeviceGetAttribute", false);
  if (device < 0 || device >= kDevices)
    return kInvalidDevice;
  switch (attribute) {
  case 75: // compute capability major
    *value = call.s.computeCapability / 10;
    return kSuccess;
  case 76: // minor
    *value = call.s.computeCapability % 10;
    return kSuccess;
  case 97: // max shared memory per block (opt-in)
    *value = 163 * 1024;
    return kSuccess;
  default:
    return kInvalidValue;
  }
}

FAKE_API Result cuDeviceGetName(char *name, int length, int device) {
  Call call("cuDeviceGetName", false);
  std::snprintf(name, length, "graphc fake GPU %d", device);
  return kSuccess;
}

//===- Contexts
//-------------------------------------------------------------===//

FAKE_API Result cuDevicePrimaryCtxRetain(void **context, int device) {
  Call call("cuDevicePrimaryCtxRetain", false);
  if (device < 0 || device >= kDevices)
    return kInvalidDevice;
  *context = &call.s.contexts[device];
  return kSuccess;
}

FAKE_API Result cuDevicePrimaryCtxRelease_v2(int) {
  Call call("cuDevicePrimaryCtxRelease", false);
  return kSuccess;
}

FAKE_API Result cuCtxPushCurrent_v2(void *context) {
  Call call("cuCtxPushCurrent", false);
  if (!context)
    return kInvalidContext;
  contextStack.push_back(static_cast<Context *>(context));
  return kSuccess;
}

FAKE_API Result cuCtxPopCurrent_v2(void **context) {
  Call call("cuCtxPopCurrent", false);
  if (contextStack.empty())
    return kInvalidContext;
  if (context)
    *context = contextStack.back();
  contextStack.pop_back();
  return kSuccess;
}

FAKE_API Result cuCtxSynchronize(void) {
  Call call("cuCtxSynchronize");
  if (call.sticky)
    return call.sticky;
  // Invalid while any stream of the context captures, in any mode.
  if (anyCapturing(call.s))
    return violate(call.s, "cuCtxSynchronize while a stream captures",
                   kCaptureUnsupported);
  return kSuccess;
}

FAKE_API Result cuThreadExchangeStreamCaptureMode(int *mode) {
  Call call("cuThreadExchangeStreamCaptureMode", false);
  std::swap(*mode, captureMode);
  return kSuccess;
}

//===- Modules
//--------------------------------------------------------------===//

FAKE_API Result cuModuleLoadData(void **module, const void *image) {
  Call call("cuModuleLoadData");
  if (call.sticky)
    return call.sticky;
  if (!current())
    return kInvalidContext;
  if (size_t size = elfImageSize(image)) {
    auto loaded = std::make_unique<Module>(Module{current(), {}});
    if (Result result = loadEmulationImage(*loaded, image, size))
      return result;
    // The image's cudaGraphSetConditional calls the driver through this
    // pointer (graphc_cuda_emulation.h).
    using SetConditional = const char *(*)(unsigned long long, unsigned);
    if (auto *hook = static_cast<SetConditional *>(
            dlsym(loaded->library, "graphc_emu_set_conditional")))
      *hook = &setConditional;
    *module = loaded.release();
    return kSuccess;
  }
  if (!std::strstr(static_cast<const char *>(image), "graphc-fake-image"))
    return kInvalidImage;
  *module = new Module{current(), {}};
  return kSuccess;
}

FAKE_API Result cuModuleUnload(void *module) {
  Call call("cuModuleUnload");
  Module *owner = static_cast<Module *>(module);
  if (owner->library)
    dlclose(owner->library);
  delete owner;
  return kSuccess;
}

FAKE_API Result cuModuleGetFunction(void **function, void *module,
                                    const char *name) {
  Call call("cuModuleGetFunction");
  Module *owner = static_cast<Module *>(module);
  Kernel kernel;
  if (owner->emulated) {
    const EmulatedKernelEntry *entry = owner->emulated;
    while (entry->name && std::strcmp(entry->name, name) != 0)
      ++entry;
    if (!entry->name)
      return kNotFound;
    kernel = Kernel{name, nullptr,
                    std::vector<unsigned>(entry->paramSizes,
                                          entry->paramSizes + entry->numParams),
                    entry->launch};
  } else {
    auto found = call.s.kernels.find(name);
    if (found == call.s.kernels.end())
      return kNotFound;
    kernel = found->second;
  }
  owner->functions.push_back(
      std::make_unique<Function>(Function{kernel, owner->context}));
  *function = owner->functions.back().get();
  return kSuccess;
}

FAKE_API Result cuFuncSetAttribute(void *, int, int) {
  Call call("cuFuncSetAttribute");
  return call.sticky;
}

//===- Memory
//---------------------------------------------------------------===//

FAKE_API Result cuMemAlloc_v2(DevicePtr *pointer, size_t bytes) {
  Call call("cuMemAlloc");
  if (call.sticky)
    return call.sticky;
  if (unsafeProhibited(call.s))
    return violate(call.s, "cuMemAlloc during a capture it may break",
                   kCaptureUnsupported);
  void *memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  std::memset(memory, 0xcd, bytes); // device memory starts undefined
  call.s.deviceAllocations.emplace(memory, bytes);
  *pointer = reinterpret_cast<DevicePtr>(memory);
  return kSuccess;
}

FAKE_API Result cuMemFree_v2(DevicePtr pointer) {
  Call call("cuMemFree");
  if (unsafeProhibited(call.s))
    return violate(call.s, "cuMemFree during a capture it may break",
                   kCaptureUnsupported);
  void *memory = reinterpret_cast<void *>(pointer);
  if (!call.s.deviceAllocations.erase(memory))
    return kInvalidValue;
  std::free(memory);
  return call.sticky;
}

FAKE_API Result cuMemAllocHost_v2(void **pointer, size_t bytes) {
  Call call("cuMemAllocHost");
  if (call.sticky)
    return call.sticky;
  if (unsafeProhibited(call.s))
    return violate(call.s, "cuMemAllocHost during a capture it may break",
                   kCaptureUnsupported);
  *pointer = std::malloc(bytes ? bytes : 1);
  call.s.hostAllocations.insert(*pointer);
  return kSuccess;
}

FAKE_API Result cuMemFreeHost(void *pointer) {
  Call call("cuMemFreeHost");
  if (!call.s.hostAllocations.erase(pointer))
    return kInvalidValue;
  std::free(pointer);
  return kSuccess;
}

FAKE_API Result cuMemcpyHtoDAsync_v2(DevicePtr dst, const void *src,
                                     size_t bytes, void *stream) {
  Call call("cuMemcpyHtoDAsync");
  if (call.sticky)
    return call.sticky;
  // A copy of no bytes is a no-op, its pointers possibly null, as the
  // driver's.
  return enqueue(call.s, stream, {"memcpyHtoD", [=] {
                                    if (bytes)
                                      std::memcpy(reinterpret_cast<void *>(dst),
                                                  src, bytes);
                                  }});
}

FAKE_API Result cuMemcpyDtoHAsync_v2(void *dst, DevicePtr src, size_t bytes,
                                     void *stream) {
  Call call("cuMemcpyDtoHAsync");
  if (call.sticky)
    return call.sticky;
  return enqueue(call.s, stream,
                 {"memcpyDtoH", [=] {
                    if (bytes)
                      std::memcpy(dst, reinterpret_cast<void *>(src), bytes);
                  }});
}

FAKE_API Result cuMemcpyDtoDAsync_v2(DevicePtr dst, DevicePtr src, size_t bytes,
                                     void *stream) {
  Call call("cuMemcpyDtoDAsync");
  if (call.sticky)
    return call.sticky;
  return enqueue(call.s, stream, {"memcpyDtoD", [=] {
                                    std::memmove(reinterpret_cast<void *>(dst),
                                                 reinterpret_cast<void *>(src),
                                                 bytes);
                                  }});
}

FAKE_API Result cuMemsetD8Async(DevicePtr dst, unsigned char value,
                                size_t count, void *stream) {
  Call call("cuMemsetD8Async");
  if (call.sticky)
    return call.sticky;
  return enqueue(call.s, stream, {"memset", [=] {
                                    std::memset(reinterpret_cast<void *>(dst),
                                                value, count);
                                  }});
}

//===- Streams and events
//---------------------------------------------------===//

FAKE_API Result cuStreamCreate(void **stream, unsigned flags) {
  Call call("cuStreamCreate");
  if (call.sticky)
    return call.sticky;
  if (!current())
    return kInvalidContext;
  Stream *created = new Stream();
  created->id = call.s.nextStream++;
  created->context = current();
  created->flags = flags;
  call.s.streams.insert(created);
  *stream = created;
  return kSuccess;
}

FAKE_API Result cuStreamDestroy_v2(void *stream) {
  Call call("cuStreamDestroy");
  Stream *resolved = resolve(stream);
  if (!resolved || !call.s.streams.erase(resolved))
    return kInvalidHandle;
  if (resolved->capturing)
    --resolved->graph->capturers;
  delete resolved;
  return kSuccess;
}

FAKE_API Result cuStreamSynchronize(void *stream) {
  Call call("cuStreamSynchronize");
  Stream *resolved = resolve(stream);
  if (resolved && resolved->capturing)
    return violate(call.s, "cuStreamSynchronize on a capturing stream",
                   kCaptureUnsupported);
  if (call.sticky)
    return call.sticky;
  call.s.trace.push_back("streamSynchronize " + streamName(stream));
  return kSuccess;
}

FAKE_API Result cuStreamIsCapturing(void *stream, int *status) {
  Call call("cuStreamIsCapturing");
  Stream *resolved = resolve(stream);
  *status =
      resolved && resolved->capturing ? (resolved->invalidated ? 2 : 1) : 0;
  return call.sticky;
}

FAKE_API Result cuEventCreate(void **event, unsigned flags) {
  Call call("cuEventCreate");
  if (call.sticky)
    return call.sticky;
  auto *created = new Event{call.s.nextEvent++, false, false, {}};
  created->timing = !(flags & 2 /* CU_EVENT_DISABLE_TIMING */);
  *event = created;
  return kSuccess;
}

FAKE_API Result cuEventDestroy_v2(void *event) {
  Call call("cuEventDestroy");
  delete static_cast<Event *>(event);
  return kSuccess;
}

FAKE_API Result cuEventRecord(void *event, void *stream) {
  Call call("cuEventRecord");
  if (call.sticky)
    return call.sticky;
  Stream *resolved = resolve(stream);
  // CUDA refuses event record nodes in a conditional node's body; the
  // fake refuses them in every capture.
  if (resolved && resolved->capturing)
    return violate(call.s,
                   resolved->graph->body
                       ? "cuEventRecord in a conditional node's body graph "
                         "(CUDA allows no event record nodes there)"
                       : "cuEventRecord on a capturing stream (unsupported "
                         "by the fake)",
                   kCaptureUnsupported);
  auto *recorded = static_cast<Event *>(event);
  // Work before it on the stream has run already: the event completes now.
  recorded->recorded = true;
  recorded->at = fakeNow();
  call.s.trace.push_back("eventRecord e" + std::to_string(recorded->id) + " " +
                         streamName(stream));
  return kSuccess;
}

FAKE_API Result cuEventElapsedTime_v2(float *milliseconds, void *start,
                                      void *end) {
  Call call("cuEventElapsedTime");
  if (call.sticky)
    return call.sticky;
  auto *from = static_cast<Event *>(start);
  auto *to = static_cast<Event *>(end);
  // As the driver: both must be timing events that were recorded.
  if (!milliseconds || !from || !to || !from->timing || !to->timing ||
      !from->recorded || !to->recorded)
    return kInvalidHandle;
  *milliseconds =
      std::chrono::duration<float, std::milli>(to->at - from->at).count();
  return kSuccess;
}

FAKE_API Result cuEventQuery(void *) {
  Call call("cuEventQuery");
  // Work runs when queued, so every recorded event has completed.
  return call.sticky;
}

FAKE_API Result cuStreamWaitEvent(void *stream, void *event, unsigned) {
  Call call("cuStreamWaitEvent");
  if (call.sticky)
    return call.sticky;
  int id = static_cast<Event *>(event)->id;
  Stream *resolved = resolve(stream);
  if (resolved && resolved->capturing && resolved->graph->body)
    return violate(call.s,
                   "cuStreamWaitEvent in a conditional node's body graph "
                   "(CUDA allows no event wait nodes there)",
                   kCaptureUnsupported);
  call.s.trace.push_back("streamWaitEvent " + streamName(stream) + " e" +
                         std::to_string(id));
  return kSuccess;
}

//===- Capture and graphs
//---------------------------------------------------===//

FAKE_API Result cuStreamBeginCapture_v2(void *stream, int mode) {
  Call call("cuStreamBeginCapture");
  if (call.sticky)
    return call.sticky;
  Stream *resolved = resolve(stream);
  if (!resolved)
    return kCaptureUnsupported; // the legacy stream cannot capture
  if (resolved->capturing)
    return kInvalidValue;
  resolved->capturing = true;
  resolved->invalidated = false;
  resolved->captureMode = mode;
  resolved->captureThread = std::this_thread::get_id();
  resolved->captureId = call.s.nextCapture++;
  resolved->graph = makeGraph(call.s, false);
  resolved->graph->capturers = 1;
  resolved->toGivenGraph = false;
  resolved->dependency = nullptr;
  return kSuccess;
}

/// Captures into an existing graph (a conditional node's body) after the
/// given dependencies, which must be its last node (none when it is
/// empty): the fake's graphs are chains.
FAKE_API Result cuStreamBeginCaptureToGraph(void *stream, void *graph,
                                            void *const *dependencies,
                                            const EdgeData *edges, size_t count,
                                            int mode) {
  Call call("cuStreamBeginCaptureToGraph");
  if (call.sticky)
    return call.sticky;
  Stream *resolved = resolve(stream);
  if (!resolved)
    return kCaptureUnsupported;
  if (resolved->capturing)
    return kInvalidValue;
  Graph *target = liveGraph(call.s, graph);
  if (!target || (count && !dependencies))
    return violate(call.s, "cuStreamBeginCaptureToGraph: not a graph",
                   kInvalidValue);
  if (!extendsChain(*target, dependencies, edges, count))
    return violate(call.s,
                   "cuStreamBeginCaptureToGraph: dependencies other than the "
                   "last node of graph g" +
                       std::to_string(target->id) +
                       " (the fake's graphs are chains)",
                   kInvalidValue);
  resolved->capturing = true;
  resolved->invalidated = false;
  resolved->captureMode = mode;
  resolved->captureThread = std::this_thread::get_id();
  resolved->captureId = call.s.nextCapture++;
  resolved->graph = target->shared_from_this();
  ++target->capturers;
  resolved->toGivenGraph = true;
  resolved->dependency = target->tail();
  return kSuccess;
}

FAKE_API Result cuStreamEndCapture(void *stream, void **graph) {
  Call call("cuStreamEndCapture");
  Stream *resolved = resolve(stream);
  if (!resolved || !resolved->capturing)
    return kCaptureUnmatched;
  if (resolved->captureMode != kModeRelaxed &&
      resolved->captureThread != std::this_thread::get_id())
    return kCaptureWrongThread;
  resolved->capturing = false;
  std::shared_ptr<Graph> captured = std::move(resolved->graph);
  --captured->capturers;
  resolved->dependency = nullptr;
  if (graph)
    *graph = nullptr;
  if (resolved->invalidated)
    return kCaptureInvalidated;
  if (call.sticky)
    return call.sticky;
  // A capture into a given graph returns that graph, which stays its
  // owner's; a new graph becomes the caller's.
  if (!resolved->toGivenGraph) {
    if (!graph)
      return kInvalidValue;
    call.s.ownedGraphs[captured.get()] = captured;
  }
  if (graph)
    *graph = captured.get();
  return kSuccess;
}

FAKE_API Result cuStreamGetCaptureInfo_v3(void *stream, int *status,
                                          unsigned long long *id, void **graph,
                                          Node *const **dependencies,
                                          const EdgeData **edges,
                                          size_t *count) {
  Call call("cuStreamGetCaptureInfo");
  if (call.sticky)
    return call.sticky;
  if (!status || (edges && !dependencies))
    return kInvalidValue;
  Stream *resolved = resolve(stream);
  if (!resolved) {
    if (anyCapturing(call.s, /*blockingOnly=*/true))
      return violate(call.s,
                     "legacy stream queried while a blocking stream captures",
                     kCaptureImplicit);
    *status = 0;
    return kSuccess;
  }
  *status = resolved->capturing ? (resolved->invalidated ? 2 : 1) : 0;
  if (*status != 1)
    return kSuccess;
  if (id)
    *id = resolved->captureId;
  if (graph)
    *graph = resolved->graph.get();
  resolved->dependenciesOut.clear();
  if (resolved->dependency)
    resolved->dependenciesOut.push_back(resolved->dependency);
  resolved->edgesOut.assign(resolved->dependenciesOut.size(), EdgeData{});
  if (dependencies)
    *dependencies = resolved->dependenciesOut.data();
  if (edges)
    *edges = resolved->edgesOut.data();
  if (count)
    *count = resolved->dependenciesOut.size();
  return kSuccess;
}

FAKE_API Result cuStreamUpdateCaptureDependencies_v2(void *stream,
                                                     Node **dependencies,
                                                     const EdgeData *edges,
                                                     size_t count,
                                                     unsigned flags) {
  Call call("cuStreamUpdateCaptureDependencies");
  if (call.sticky)
    return call.sticky;
  Stream *resolved = resolve(stream);
  if (!resolved || !resolved->capturing)
    return kIllegalState;
  if (count && !dependencies)
    return kInvalidValue;
  // Adding to the set (flags 0 or CU_STREAM_ADD_CAPTURE_DEPENDENCIES) or
  // more than one node would make the next node a join.
  if (flags != kSetCaptureDependencies || count > 1)
    return violate(call.s,
                   "cuStreamUpdateCaptureDependencies: only replacing the set "
                   "with one node (the fake's graphs are chains)",
                   kInvalidValue);
  if (count && dependencies[0]->graph != resolved->graph.get())
    return violate(call.s,
                   "cuStreamUpdateCaptureDependencies: a node of another "
                   "graph",
                   kInvalidValue);
  if (edges && count && (edges[0].fromPort || edges[0].toPort || edges[0].type))
    return violate(call.s,
                   "cuStreamUpdateCaptureDependencies: edge data other than "
                   "full completion",
                   kInvalidValue);
  resolved->dependency = count ? dependencies[0] : nullptr;
  return kSuccess;
}

FAKE_API Result cuGraphConditionalHandleCreate(unsigned long long *handle,
                                               void *graph, void *context,
                                               unsigned defaultValue,
                                               unsigned flags) {
  Call call("cuGraphConditionalHandleCreate");
  if (call.sticky)
    return call.sticky;
  Graph *owner = liveGraph(call.s, graph);
  if (!handle || !owner || (flags & ~kConditionalAssignDefault))
    return violate(call.s, "cuGraphConditionalHandleCreate: invalid value",
                   kInvalidValue);
  // The fake requires the context to be the current one (the node's
  // kernels run there).
  if (!context || context != current())
    return violate(call.s,
                   "cuGraphConditionalHandleCreate: a context that is not "
                   "the current one",
                   kInvalidContext);
  auto conditional = std::make_shared<Conditional>(
      Conditional{call.s.nextConditional++, static_cast<Context *>(context),
                  defaultValue, flags, defaultValue});
  owner->conditionals.push_back(conditional);
  *handle = conditional->id;
  return kSuccess;
}

/// Adds a conditional WHILE node, the only node the fake adds outside
/// capture, after the graph's last node.
FAKE_API Result cuGraphAddNode_v2(Node **node, void *graph,
                                  void *const *dependencies,
                                  const EdgeData *edges, size_t count,
                                  NodeParams *params) {
  Call call("cuGraphAddNode");
  if (call.sticky)
    return call.sticky;
  Graph *owner = liveGraph(call.s, graph);
  if (!node || !owner || !params || (count && !dependencies))
    return violate(call.s, "cuGraphAddNode: invalid value", kInvalidValue);
  if (params->type != kNodeTypeConditional)
    return violate(call.s,
                   "cuGraphAddNode: node type " + std::to_string(params->type) +
                       " (the fake adds conditional nodes, 13, only)",
                   kInvalidValue);
  // Reserved and unused bytes must be zero.
  const char *bytes = reinterpret_cast<const char *>(params);
  bool zero =
      params->reserved2 == 0 &&
      std::all_of(std::begin(params->reserved0), std::end(params->reserved0),
                  [](int word) { return word == 0; }) &&
      std::all_of(bytes + offsetof(NodeParams, conditional) +
                      sizeof(ConditionalParams),
                  bytes + offsetof(NodeParams, reserved2),
                  [](char b) { return b == 0; });
  if (!zero)
    return violate(call.s, "cuGraphAddNode: reserved bytes are not zero",
                   kInvalidValue);
  ConditionalParams &conditional = params->conditional;
  if (conditional.type != kConditionalWhile || conditional.size != 1)
    return violate(call.s,
                   "cuGraphAddNode: conditional type " +
                       std::to_string(conditional.type) + " of size " +
                       std::to_string(conditional.size) +
                       " (the fake has WHILE, 1, of size 1 only)",
                   kInvalidValue);
  std::shared_ptr<Conditional> handle;
  for (const std::shared_ptr<Conditional> &created : owner->conditionals)
    if (created->id == conditional.handle)
      handle = created;
  if (!handle || handle->used)
    return violate(call.s,
                   "cuGraphAddNode: handle " +
                       std::to_string(conditional.handle) +
                       (handle ? " is used by another node"
                               : " was not created on this graph"),
                   kInvalidValue);
  if (conditional.context != handle->context)
    return violate(call.s,
                   "cuGraphAddNode: the node's context is not its handle's",
                   kInvalidValue);
  if (!extendsChain(*owner, dependencies, edges, count))
    return violate(call.s,
                   "cuGraphAddNode: dependencies other than the last node of "
                   "graph g" +
                       std::to_string(owner->id) +
                       " (the fake's graphs are chains)",
                   kInvalidValue);
  handle->used = true;
  Op op("while h" + std::to_string(handle->id),
        makeGraph(call.s, /*body=*/true), handle);
  Graph *body = op.body.get();
  Node *added = appendNode(*owner, std::move(op));
  added->bodies[0] = body;
  conditional.graphsOut = added->bodies;
  *node = added;
  return kSuccess;
}

FAKE_API Result cuGraphInstantiateWithFlags(void **exec, void *graph,
                                            unsigned long long) {
  Call call("cuGraphInstantiateWithFlags");
  if (call.sticky)
    return call.sticky;
  auto owned = call.s.ownedGraphs.find(static_cast<Graph *>(graph));
  if (!exec || owned == call.s.ownedGraphs.end())
    return violate(call.s,
                   "cuGraphInstantiateWithFlags: not a graph a capture made "
                   "(the fake instantiates those only)",
                   kInvalidValue);
  Graph &source = *owned->second;
  std::string why = notInstantiable(source);
  if (!why.empty())
    return violate(call.s, "cuGraphInstantiateWithFlags: " + why,
                   kInvalidValue);
  // CUDA allows one instantiation at a time of a graph with conditional
  // nodes.
  if (hasConditionalNodes(source) && *source.liveExecs)
    return violate(call.s,
                   "cuGraphInstantiateWithFlags: a second instantiation of a "
                   "graph with conditional nodes",
                   kInvalidValue);
  std::shared_ptr<Graph> instance = instantiate(call.s, source);
  instance->liveExecs = source.liveExecs;
  instance->counted = true;
  ++*instance->liveExecs;
  call.s.ownedGraphs[instance.get()] = instance;
  *exec = instance.get();
  return kSuccess;
}

FAKE_API Result cuGraphDestroy(void *graph) {
  Call call("cuGraphDestroy");
  auto owned = call.s.ownedGraphs.find(static_cast<Graph *>(graph));
  if (owned == call.s.ownedGraphs.end() || owned->second->exec)
    return violate(call.s,
                   "cuGraphDestroy: not a graph the caller owns (a "
                   "conditional node's body belongs to the node)",
                   kInvalidValue);
  call.s.ownedGraphs.erase(owned);
  return kSuccess;
}

FAKE_API Result cuGraphExecDestroy(void *exec) {
  Call call("cuGraphExecDestroy");
  auto owned = call.s.ownedGraphs.find(static_cast<Graph *>(exec));
  if (owned == call.s.ownedGraphs.end() || !owned->second->exec)
    return violate(call.s, "cuGraphExecDestroy: not an instantiated graph",
                   kInvalidValue);
  call.s.ownedGraphs.erase(owned);
  return kSuccess;
}

FAKE_API Result cuGraphLaunch(void *exec, void *stream) {
  Call call("cuGraphLaunch");
  if (call.sticky)
    return call.sticky;
  auto owned = call.s.ownedGraphs.find(static_cast<Graph *>(exec));
  if (owned == call.s.ownedGraphs.end() || !owned->second->exec)
    return violate(call.s, "cuGraphLaunch: not an instantiated graph",
                   kInvalidValue);
  Graph *graph = owned->second.get();
  Stream *resolved = resolve(stream);
  if (resolved && resolved->capturing)
    return violate(call.s,
                   "cuGraphLaunch into a capture (unsupported by the "
                   "fake)",
                   kCaptureUnsupported);
  call.s.trace.push_back("graphLaunch g" + std::to_string(graph->id) + " " +
                         streamName(stream));
  // CU_GRAPH_COND_ASSIGN_DEFAULT: each launch starts from the default;
  // other handles keep what they were last set to.
  for (const std::shared_ptr<Conditional> &conditional : graph->conditionals)
    if (conditional->flags & kConditionalAssignDefault)
      conditional->value = conditional->defaultValue;
  replaying = graph;
  replay(call.s, *graph, "replay: ");
  replaying = nullptr;
  return kSuccess;
}

/// Queues (or captures) a launch of `function`; `programmatic` marks a
/// launch allowed to overlap the previous kernel (cuLaunchKernelEx with
/// programmatic stream serialization), which runs in order here.
static Result launchKernel(Call &call, void *function, const unsigned grid3[3],
                           const unsigned block3[3], unsigned sharedBytes,
                           void *stream, void **params, void **extra,
                           bool programmatic) {
  if (call.sticky)
    return call.sticky;
  if (!function || !params || extra)
    return kInvalidValue;
  Function *f = static_cast<Function *>(function);
  // Parameters are copied now, as the driver does: the caller may reuse its
  // argument storage as soon as the call returns.
  auto values = std::make_shared<std::vector<std::vector<char>>>();
  for (size_t p = 0; p < f->kernel.paramSizes.size(); ++p) {
    const char *from = static_cast<const char *>(params[p]);
    values->emplace_back(from, from + f->kernel.paramSizes[p]);
  }
  State *s = &call.s;
  Kernel kernel = f->kernel;
  Context *context = f->context;
  unsigned grid[3] = {grid3[0], grid3[1], grid3[2]};
  unsigned block[3] = {block3[0], block3[1], block3[2]};
  Op op{"launch " + kernel.name + (programmatic ? " programmatic" : ""), [=] {
          if (context->sticky)
            return;
          auto fault = s->faults.find(kernel.name);
          if (fault != s->faults.end()) {
            context->sticky = fault->second;
            s->faults.erase(fault);
            return;
          }
          unsigned threads = block[0] * block[1] * block[2];
          if (s->abortBlockThreads && threads == s->abortBlockThreads)
            std::abort();
          if (s->faultBlockThreads && threads == s->faultBlockThreads) {
            context->sticky = kIllegalAddress;
            return;
          }
          std::vector<void *> pointers;
          for (std::vector<char> &value : *values)
            pointers.push_back(value.data());
          kernelFailure.clear();
          if (kernel.emulated) {
            // A kernel that cannot complete fails like a GPU launch: the
            // context becomes unusable.
            char error[256] = "";
            if (kernel.emulated(grid, block, sharedBytes, pointers.data(),
                                error, sizeof error)) {
              std::fprintf(stderr, "fake CUDA driver: kernel %s: %s\n",
                           kernel.name.c_str(), error);
              context->sticky = kLaunchFailed;
            }
            return;
          }
          fakecu_launch launch{kernel.name.c_str(),
                               {grid[0], grid[1], grid[2]},
                               {block[0], block[1], block[2]},
                               pointers.data()};
          kernel.fn(&launch);
          // A refused cudaGraphSetConditional (fakecu_graph_set_conditional)
          // fails the launch.
          if (!kernelFailure.empty()) {
            std::fprintf(stderr, "fake CUDA driver: kernel %s: %s\n",
                         kernel.name.c_str(), kernelFailure.c_str());
            context->sticky = kLaunchFailed;
          }
        }};
  return enqueue(call.s, stream, std::move(op));
}

FAKE_API Result cuLaunchKernel(void *function, unsigned gridX, unsigned gridY,
                               unsigned gridZ, unsigned blockX, unsigned blockY,
                               unsigned blockZ, unsigned sharedBytes,
                               void *stream, void **params, void **extra) {
  Call call("cuLaunchKernel");
  unsigned grid[3] = {gridX, gridY, gridZ}, block[3] = {blockX, blockY, blockZ};
  return launchKernel(call, function, grid, block, sharedBytes, stream, params,
                      extra, false);
}

/// CUlaunchConfig and CUlaunchAttribute as cuda.h lays them out.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int programmaticStreamSerializationAllowed;
  } value;
};
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void *stream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};

/// Strict about what graphc uses: programmatic stream serialization only
/// (attribute 6), refused on devices older than SM 9.0.
FAKE_API Result cuLaunchKernelEx(const LaunchConfig *config, void *function,
                                 void **params, void **extra) {
  Call call("cuLaunchKernelEx");
  if (!config || (config->numAttrs && !config->attrs))
    return kInvalidValue;
  bool programmatic = false;
  for (unsigned a = 0; a < config->numAttrs; ++a) {
    const LaunchAttribute &attribute = config->attrs[a];
    if (attribute.id != 6)
      return violate(call.s,
                     "cuLaunchKernelEx: launch attribute " +
                         std::to_string(attribute.id) +
                         " (the fake knows programmatic stream serialization, "
                         "6, only)",
                     kInvalidValue);
    programmatic = attribute.value.programmaticStreamSerializationAllowed != 0;
  }
  if (programmatic && call.s.computeCapability < 90)
    return violate(call.s,
                   "cuLaunchKernelEx: programmatic stream serialization on a "
                   "device older than SM 9.0",
                   kInvalidValue);
  unsigned grid[3] = {config->gridDimX, config->gridDimY, config->gridDimZ};
  unsigned block[3] = {config->blockDimX, config->blockDimY, config->blockDimZ};
  return launchKernel(call, function, grid, block, config->sharedMemBytes,
                      config->stream, params, extra, programmatic);
}

} // extern "C"
