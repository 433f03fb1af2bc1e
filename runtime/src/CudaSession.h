//===- CudaSession.h - a session's stream, arena, graphs --------*- C++ -*-===//
//
// Inputs and outputs are bound in one of two ways. A caller that passes the
// same buffers run after run, aligned to GRAPHC_ALIGNMENT, gets a plan graph
// captured against those buffers, kept in a small per-plan cache: its runs
// launch the graph and copy nothing. Otherwise a run goes through session-owned
// staging buffers: the plan's graph captured once against the staging
// addresses, the caller's inputs copied in before its launch and the outputs
// out after it, so that buffers can change between runs without a capture, at
// the cost of one device-to-device copy per tensor. Padded and split runs
// always stage.
//
// Everything a run does is queued on the session's own non-blocking stream,
// and the runtime only ever waits for that stream: never for the context
// (invalid while any other stream of the context is being captured) and
// never on the legacy stream.
//
// Library steps (GRAPHC_STEP_LIBRARY_CALL) queue cublasLtMatmul or
// cudnnBackendExecute on the same stream; the session owns a cuBLASLt and a
// cuDNN handle (the latter set to its stream) and, per library kernel, the
// matmul or convolution plan built at creation (CublasLtGemm, CudnnConv), so
// runs allocate nothing and capture like launches. A convolution cuDNN runs
// without its epilogue is followed by the kernel's epilogue kernel, and an
// attention cuDNN has no engine for runs the kernel's fallback kernel
// instead (CudnnSdpa), each launched like a generated kernel.
//
// Kernels that check their indices report an out-of-range index in the
// session's error record (64-bit words in device memory: flag, launch site,
// value, its valid range, what it is; first fault wins), which a run of a plan
// launching such a kernel (graphc_kernel_desc.reports_errors) copies to pinned
// host memory at its end (a memcpy node of the captured graph); other plans
// never touch it. Every launch passes the record and its launch site after the
// descriptor's arguments; kernels that do not check indices declare fewer
// parameters and the driver reads only the ones declared.
//
// On SM 9.0 and newer, generated kernels compiled for SM 9.0 or newer are
// launched with programmatic stream serialization (cuLaunchKernelEx): each
// may start while the kernel before it finishes, and waits for it in its
// first instruction (gc_grid_dependency_wait in the generated preamble), so
// launch latency overlaps the previous kernel's tail. GRAPHC_DISABLE_PDL=1
// turns it off (for measuring it).
//
// GRAPHC_SESSION_PROBE_STEPS queues, after each step, a device-to-device
// copy of each of its results into the session's probe buffer (a separate
// allocation, so the arena and staging are those of any session), captured
// into the plan's graphs as memcpy nodes when graphs are on. The launches
// keep their kernels, dims and attributes: a kernel launched with
// programmatic stream serialization after a probe copy depends on the copy
// as on a plan's own copy step, with full (not programmatic) ordering, so
// its griddepcontrol.wait returns at once and the copy has read the
// previous kernel's results before anything after it runs.
//
// A loop step (GRAPHC_STEP_LOOP) is captured as a WHILE conditional node:
// the control kernel's phase-0 launch with a conditional handle created on
// the graph being captured, then the node, whose body graph is captured on
// the session's stream for that nesting level (cuStreamBeginCaptureToGraph)
// and ends with the phase-1 launch; the capture then continues after the
// node. Nested loops nest nodes. Bodies hold kernels and copies only (CUDA
// allows no event nodes there); their launches, the control kernel's and
// the first after a loop's node are not programmatic. Not
// captured (graphs off, debug sync, profiling), the host runs the loop:
// phase 0 with handle 0, then body and phase 1 while the state the control
// kernel wrote, read back after waiting for the session's stream, says go.
// Profiling times a loop whole (its body steps report 0); a probe of a body
// step holds the last iteration's value. A driver without the conditional
// node entry points (before CUDA 12.4) fails a capture of a loop, naming
// the missing one.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_CUDASESSION_H
#define GRAPHC_RUNTIME_SRC_CUDASESSION_H

#include "graphc/runtime.h"
#include "runtime/src/Binding.h"
#include "runtime/src/CpuExecutor.h"
#include "runtime/src/CublasLtGemm.h"
#include "runtime/src/CudaModel.h"
#include "runtime/src/CudnnConv.h"
#include "runtime/src/CudnnSdpa.h"
#include "runtime/src/Probes.h"

#include <memory>
#include <optional>
#include <vector>

namespace graphc::rt {

class CudaSession {
public:
  /// Creates the stream and the device block (arena + staging + error
  /// record); captures every plan when `flags` asks for eager capture.
  /// GRAPHC_SESSION_DEBUG_SYNC (or GRAPHC_DEBUG_SYNC=1 in the environment)
  /// turns CUDA graphs off and waits after every launch.
  /// `probes` (GRAPHC_SESSION_PROBE_STEPS; it outlives the session): the
  /// probe copies every run makes after each step.
  static graphc_status create(const graphc_model &model, CudaDevice &device,
                              uint32_t flags, const ProbeLayout *probes,
                              std::unique_ptr<CudaSession> &out);
  ~CudaSession();

  /// Runs `plan` on validated tensors. With `callerStream` null the run is
  /// synchronous. Otherwise `*callerStream` is the CUstream (null: the
  /// legacy stream) the run is ordered on: the session waits for the work
  /// queued there before reading inputs, the stream waits for the run
  /// before its later work, and the host does not wait.
  /// A staged shape (padded or split) runs each part on the staging
  /// buffers: inputs padded in, outputs sliced out, all on the stream.
  /// Tensors of several segments (batched) or in host memory always go
  /// through staging; host segments are copied host to device and back.
  graphc_status run(const RunShape &shape,
                    const std::vector<SegmentedTensor> &inputs,
                    const std::vector<SegmentedTensor> &outputs,
                    const cu::Stream *callerStream);

  /// Device memory for callers without CUDA; see graphc_session_upload.
  graphc_status allocate(uint64_t bytes, void *&out);
  void free(void *data);
  graphc_status upload(void *dst, const void *src, uint64_t bytes);
  graphc_status download(void *dst, const void *src, uint64_t bytes);
  /// Waits for everything queued on the session's stream; returns what an
  /// asynchronous run found (index errors, device faults).
  graphc_status synchronize();
  /// Whether an asynchronous run may still be in flight (its results and
  /// failure are known after synchronize()).
  bool inFlight() const { return asyncPending; }
  /// Copies `bytes` at `offset` of the probe buffer to host `dst`, after
  /// everything queued on the stream.
  graphc_status readProbe(uint64_t offset, uint64_t bytes, void *dst);
  /// Copies `bytes` at `offset` of the arena to host `dst`, after
  /// everything queued on the stream (the extents a run found).
  graphc_status readArena(uint64_t offset, uint64_t bytes, void *dst);
  /// GRAPHC_SESSION_PROFILE_STEPS: the step times of the last plan launch,
  /// from its events; see graphc_session_step_times.
  graphc_status stepTimes(StepProfile &out) const;
  /// What computes library kernel `kernel`; see
  /// graphc_session_library_kernel_info (the caller checked the index).
  void libraryKernelInfo(int32_t kernel,
                         graphc_library_kernel_info &out) const;
  /// Why library kernel `kernel` is not computed whole by its library, ""
  /// when it is; see graphc_session_library_kernel_note.
  const std::string &libraryKernelNote(int32_t kernel) const;
  /// Times the candidates of library kernel `kernel` (the caller checked
  /// that it is one); see graphc_session_time_library_kernel.
  /// LibraryTiming.cpp.
  graphc_status timeLibraryKernel(int32_t kernel, int32_t maxRanks, bool splitK,
                                  int32_t warmup, int32_t repeats,
                                  std::vector<graphc_library_candidate> &out);

private:
  CudaSession(const graphc_model &model, CudaDevice &device, bool useGraphs,
              bool debugSync, bool profile, const ProbeLayout *probes);

  /// Enqueues `plan`'s steps (each followed by its probe copies when the
  /// session probes), then the copy of the error record to the host, on the
  /// stream with the given tensor addresses. In debug-sync mode waits after
  /// every launch, so a fault names its kernel.
  graphc_status enqueue(const graphc_plan_desc &plan,
                        const std::vector<cu::DevicePtr> &inputs,
                        const std::vector<cu::DevicePtr> &outputs);
  /// Enqueues steps [begin, end) of `plan` on `work` (each followed by its
  /// probe copies); a loop step enqueues its loop, body included. Steps in
  /// a loop's body (`inBody`) get no timing events.
  graphc_status enqueueSteps(const graphc_plan_desc &plan, int32_t begin,
                             int32_t end,
                             const std::vector<cu::DevicePtr> &inputs,
                             const std::vector<cu::DevicePtr> &outputs,
                             bool inBody = false);
  /// Loop step `s` of `plan`, its arguments resolved: captured as a WHILE
  /// node while capturing (captureLoop), else run from the host.
  graphc_status enqueueLoop(const graphc_plan_desc &plan, int32_t s,
                            const std::vector<cu::DevicePtr> &inputs,
                            const std::vector<cu::DevicePtr> &outputs);
  graphc_status captureLoop(const graphc_plan_desc &plan, int32_t s,
                            const cu::DevicePtr loopArgs[4],
                            const std::vector<cu::DevicePtr> &inputs,
                            const std::vector<cu::DevicePtr> &outputs);
  /// Launches loop step `s`'s control kernel on `work`: its four buffers,
  /// the conditional handle (0: none) and the phase.
  cu::Result launchLoopControl(const graphc_plan_desc &plan, int32_t s,
                               const cu::DevicePtr loopArgs[4],
                               cu::GraphConditionalHandle handle, int phase);
  /// Points the cuDNN handle (when there is one) at `to`.
  graphc_status setLibraryStream(cu::Stream to);
  /// Sets argValues and argPointers to the addresses of `step`'s buffers.
  void resolveArgs(const graphc_step_desc &step,
                   const std::vector<cu::DevicePtr> &inputs,
                   const std::vector<cu::DevicePtr> &outputs);
  /// "plan 'p' step 3 (kernel 'k' (ONNX nodes A))", "(copy)", "(loop, ...)".
  std::string describeStep(const graphc_plan_desc &plan, int32_t s) const;
  /// Creates the cuBLASLt and cuDNN handles and builds every library
  /// kernel's GEMM or convolution plan for the smallest workspace and the
  /// alignment its steps give it.
  graphc_status prepareLibraryKernels();
  /// GRAPHC_SESSION_TIME_LIBRARY_ALGORITHMS: times the first few
  /// candidates of every untuned library kernel and keeps the fastest.
  /// LibraryTiming.cpp.
  graphc_status timeLibraryAlgorithms();
  /// Queues `function` on `work` with the first `numArgs` of the
  /// current step's arguments, then the error record and the launch site of
  /// step `step` of `plan`; programmatically where the session may
  /// (see the file comment), unless `plain`.
  cu::Result launch(cu::Function function, const uint32_t grid[3],
                    const uint32_t block[3], uint32_t sharedBytes,
                    int32_t numArgs, const graphc_plan_desc &plan, int32_t step,
                    bool plain = false);
  /// The pointer alignment this session guarantees for `ref`: 256 for
  /// every buffer (arena, weights, staging, and callers' buffers used in
  /// place), less at an odd offset.
  uint32_t pointerAlignment(const graphc_buffer_ref &ref) const;
  /// Captures `plan` against the given tensor addresses into `out`.
  graphc_status capture(int32_t plan, const std::vector<cu::DevicePtr> &inputs,
                        const std::vector<cu::DevicePtr> &outputs,
                        cu::GraphExec &out);
  /// Whether a run may read and write the caller's buffers in place: every
  /// non-empty one aligned to GRAPHC_ALIGNMENT, what the kernels' vector
  /// accesses and the library plans were built for. (Outputs overlapping
  /// another tensor never get here.)
  bool callerBuffersUsable(const graphc_plan_desc &plan,
                           const std::vector<cu::DevicePtr> &inputs,
                           const std::vector<cu::DevicePtr> &outputs) const;
  /// The graph of `plan` captured against the caller's buffers: from the
  /// cache, or captured now when the previous run of the plan staged these
  /// same buffers (a caller that rotates buffers never pays a capture per
  /// run); null when this run should stage.
  graphc_status boundGraph(int32_t plan,
                           const std::vector<cu::DevicePtr> &inputs,
                           const std::vector<cu::DevicePtr> &outputs,
                           cu::GraphExec &out);
  /// Queues the copies of `box` between the caller's tensor and staging
  /// buffer `staging` on the stream (into staging when `toStaging`):
  /// device to device, or host to device and back for host segments. The
  /// first failure goes to `result`; false when the box does not fit.
  bool queueStagedCopy(const BoxCopy &box, const SegmentedTensor &caller,
                       cu::DevicePtr staging, bool toStaging,
                       cu::Result &result);
  /// Runs `plan` on the staging buffers: its graph (captured on first use),
  /// or its steps when graphs are off.
  graphc_status launchOnStaging(int32_t plan);
  /// Fills the first `bytes` of input `input`'s staging with its pad value.
  graphc_status fillPadding(int32_t input, uint64_t bytes);
  /// Copies one part's inputs into staging (when `pad`, first filled with
  /// their pad values, inputs the plan gives no bytes skipped), runs its
  /// plan there (launchOnStaging) and copies the valid part of every output
  /// out. Without `pad` the part is the whole run, at the plan's dims.
  graphc_status runStagedPart(const RunShape &shape, const RunPart &part,
                              const std::vector<SegmentedTensor> &inputs,
                              const std::vector<SegmentedTensor> &outputs,
                              bool pad);
  /// Turns the host copy of the error record into a status naming the node,
  /// and clears the record. Only when nothing of this session is in flight.
  graphc_status takeDeviceError();
  /// Fails when the device was poisoned by an earlier sticky error.
  graphc_status checkDevice() const;
  /// checkDevice, then makes the device's context current for as long as
  /// `guard` lives.
  graphc_status enterDevice(std::optional<cu::ContextGuard> &guard) const;
  /// A status for a failed driver call. A sticky error (illegal address,
  /// ...) poisons the device: this and every later call fail with `what`.
  graphc_status error(const std::string &what, cu::Result result) const;
  /// A status for a failed library call: `code` and `what` with `failure`.
  graphc_status libraryError(graphc_code code, const std::string &what,
                             const std::string &failure) const;
  /// "kernel 'k' (ONNX nodes A, B)".
  std::string describeKernel(int32_t kernel) const;

  const graphc_model &model;
  const cu::Driver &drv;
  CudaDevice &device;
  bool useGraphs;
  bool debugSync;
  /// GRAPHC_SESSION_PROFILE_STEPS: an event before every step of a launch
  /// and one after the last (timing events, created with the session), and
  /// the plan they last bracketed.
  bool profile;
  std::vector<cu::Event> stepEvents;
  int32_t profiledPlan = -1;
  /// GRAPHC_SESSION_PROBE_STEPS: where each plan's probes go (null without
  /// the flag), and the device buffer they go to (0 when no plan has any).
  const ProbeLayout *probes;
  cu::DevicePtr probeBuffer = 0;
  cu::Stream stream = nullptr;
  /// The stream enqueue queues on: the session's, or a loop level's while
  /// its body is captured.
  cu::Stream work = nullptr;
  /// Whether capture() is capturing a plan, and how many loop bodies the
  /// capture is inside; whether the last thing captured was a conditional
  /// node (the next launch is not programmatic).
  bool capturing = false;
  int32_t bodyLevel = 0;
  bool afterLoopNode = false;
  /// How deep the model's loops nest, the streams that capture each
  /// level's bodies (graphs on), and pinned host memory a loop's state is
  /// read back into (runs without graphs).
  int32_t maxLoopDepth = 0;
  std::vector<cu::Stream> bodyStreams;
  int64_t *hostLoopState = nullptr;
  /// Recorded on the caller's stream (inputs ready) and on the session
  /// stream (run done) by asynchronous runs.
  cu::Event callerReady = nullptr, runDone = nullptr;
  /// Whether an asynchronous run may still be in flight: its device error
  /// record is read by the first call that finds runDone complete.
  bool asyncPending = false;
  /// One allocation: the arena, one staging slot per input and output, and
  /// the error record.
  cu::DevicePtr block = 0;
  cu::DevicePtr arena = 0;
  cu::DevicePtr errorRecord = 0;
  unsigned long long *hostRecord = nullptr; ///< Pinned, 8 words.
  std::vector<cu::DevicePtr> inputStaging, outputStaging;
  std::vector<cu::GraphExec> graphs; ///< Per plan, null until captured.
  /// Per plan, graphs captured against callers' buffers (at most
  /// kBoundGraphsPerPlan, the least recently used replaced first), and the
  /// caller's buffers of the plan's last staged run.
  struct BoundGraph {
    std::vector<cu::DevicePtr> buffers;
    cu::GraphExec exec = nullptr;
    uint64_t lastUse = 0;
  };
  std::vector<std::vector<BoundGraph>> boundGraphs;
  std::vector<std::vector<cu::DevicePtr>> lastStagedBuffers;
  uint64_t runCount = 0;
  /// Per plan: whether a step launches a kernel that reports to the error
  /// record, so that runs read the record back.
  std::vector<char> planReports;
  /// Whether generated kernels are launched with programmatic stream
  /// serialization (see the file comment).
  bool programmaticLaunch = false;
  /// cuBLASLt: the handle, and per kernel its GEMM (null for generated
  /// kernels); none when the model has no library kernel.
  lt::Handle ltHandle = nullptr;
  std::vector<std::unique_ptr<CublasLtGemm>> gemms;
  /// cuDNN: the handle, and per kernel its convolution (null for others);
  /// none when the model has no cuDNN kernel.
  dnn::Handle dnnHandle = nullptr;
  std::vector<std::unique_ptr<CudnnConv>> convs;
  std::vector<std::unique_ptr<CudnnSdpa>> sdpas;
  /// Per kernel, what its GEMM or convolution was built for: the smallest
  /// workspace of its steps (UINT64_MAX: no step calls it) and the least
  /// alignment of each operand. Library timing builds candidates alike.
  std::vector<uint64_t> libraryWorkspace;
  std::vector<GemmAlignment> gemmAlignments;
  std::vector<ConvAlignment> convAlignments;
  /// Per input: host bytes of its pad value for patterns memset cannot
  /// write, made on first use.
  std::vector<std::vector<unsigned char>> padSource;
  /// Launch scratch: argument values and the pointers cuLaunchKernel reads
  /// (the step's arguments, then the error record and the launch site).
  std::vector<cu::DevicePtr> argValues;
  std::vector<void *> argPointers;
  cu::DevicePtr errorArg = 0;
  unsigned stepArg = 0;
};

/// Size of the error record in bytes: eight 64-bit words (flag, launch
/// site, value, low, high, what; two spare).
constexpr uint64_t kErrorRecordBytes = 64;
/// A loop's state: its iteration and whether another one runs (int64 each).
constexpr uint64_t kLoopStateBytes = 16;
/// Graphs captured against callers' buffers kept per plan.
constexpr size_t kBoundGraphsPerPlan = 4;
/// The launch site passed to kernels is (plan << kSiteStepBits) | step, so a
/// recorded fault names its node even after runs of other plans.
constexpr unsigned kSiteStepBits = 20;

} // namespace graphc::rt

#endif
