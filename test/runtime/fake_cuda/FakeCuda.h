/*===- FakeCuda.h - control interface of the fake CUDA driver -------------===*
 *
 * libgraphc_fake_cuda.so implements, over host memory, the part of the CUDA
 * driver API that the runtime uses (runtime/src/CudaSymbols.def), so the
 * runtime's CUDA path runs in CI without a GPU. Point the runtime at it with
 * GRAPHC_CUDA_DRIVER_LIBRARY. It is strict where the real driver is:
 *  - "device" pointers are host allocations; kernels are host functions
 *    registered by name, and an image loads when it contains the text
 *    "graphc-fake-image";
 *  - it is also graphc's CUDA emulator: an image that is a host shared
 *    object exporting `graphc_emu_kernels` (what `graphc compile
 *    --cuda-emulation` writes) loads too, and its kernels run the generated
 *    CUDA code on the host (lib/Codegen/CUDA/emulation). A kernel that
 *    cannot complete (a deadlocked barrier, an invalid launch) prints why
 *    and makes its context sticky with CUDA_ERROR_LAUNCH_FAILED;
 *  - stream work runs at once, in call order, unless the stream is being
 *    captured: then it is recorded into the graph, and runs when an
 *    instantiated graph is launched. Kernel parameters are copied at launch
 *    (or capture) time, as the driver does;
 *  - calls that are invalid during a capture (cuCtxSynchronize while any
 *    stream captures, synchronising a capturing stream, an allocation in a
 *    capturing thread that is not in relaxed mode, the legacy stream while
 *    a blocking stream captures) fail with CUDA_ERROR_STREAM_CAPTURE_*
 *    and are counted as violations;
 *  - an injected kernel fault makes the device's context sticky: every later
 *    call touching it returns the fault's error;
 *  - conditional WHILE nodes (cuGraphConditionalHandleCreate,
 *    cuGraphAddNode_v2, cuStreamGetCaptureInfo_v3,
 *    cuStreamUpdateCaptureDependencies_v2, cuStreamBeginCaptureToGraph):
 *    a node's body replays while its handle's value is non-zero (checked
 *    before each iteration); a launch resets handles created with
 *    CU_GRAPH_COND_ASSIGN_DEFAULT to their default, others keep their
 *    value; kernels set it with cudaGraphSetConditional (emulated kernels,
 *    through their image) or fakecu_graph_set_conditional (registered
 *    ones), only while their graph runs. Graphs are chains: a node, or a
 *    capture, that depends on anything but the graph's last node is
 *    refused, as are event records and waits in a body, an unused handle
 *    or a body still being captured at instantiation, and a second
 *    instantiation of a graph with conditional nodes.
 * Three devices (compute capability 8.0) let tests poison one device without
 * affecting the others. Thread-safe (one lock).
 *
 * The same library is also a cuBLASLt (FakeCublasLt.cpp; point the runtime
 * at it with GRAPHC_CUBLASLT_LIBRARY): column-major matmuls computed on the
 * host from the cuBLASLt semantics alone, queued on the fake streams like a
 * launch, strict about attributes, layouts, algorithms, workspaces,
 * alignment and the device memory every operand spans. And a cuDNN
 * (FakeCudnn.cpp; GRAPHC_CUDNN_LIBRARY): the backend (graph) API's
 * convolution, pointwise ADD, RELU_FWD, SWISH_FWD and GELU_FWD graphs,
 * computed from the descriptors alone, strict about attributes,
 * finalization, unique ids, variant packs, workspaces, alignment and device
 * memory.
 *===----------------------------------------------------------------------===*/
#ifndef GRAPHC_TEST_FAKE_CUDA_H
#define GRAPHC_TEST_FAKE_CUDA_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fakecu_launch {
  const char *kernel;
  unsigned grid[3];
  unsigned block[3];
  /* One pointer per registered parameter, to a copy of its value. */
  void **params;
} fakecu_launch;

typedef void (*fakecu_kernel_fn)(const fakecu_launch *launch);

/* Registers kernel `name` with `num_params` parameters of the given byte
 * sizes (the driver reads exactly those; further kernelParams entries are
 * ignored, as on a GPU). */
void fakecu_register_kernel(const char *name, fakecu_kernel_fn fn,
                            int num_params, const unsigned *param_sizes);
/* cudaGraphSetConditional for a registered kernel: sets the value of
 * conditional handle `handle` of the graph being launched. Returns 0, or 1
 * when there is none (outside a graph launch, a handle of another graph):
 * the launch then fails, making the context sticky. */
int fakecu_graph_set_conditional(unsigned long long handle, unsigned value);
/* Clears injected failures, counters, the trace and sticky errors. */
void fakecu_reset(void);
/* The next `times` cuInit calls return `result`. */
void fakecu_fail_init(int times, int result);
/* When kernel `name` next runs (at launch, or at replay when captured), it
 * does not run and its device's context becomes sticky with `result`. */
void fakecu_fault_kernel(const char *name, int result);
/* FAKECU_FAULT_BLOCK_THREADS=N in the environment (read at start and by
 * fakecu_reset): every launch of blocks of N threads faults the same way
 * with CUDA_ERROR_ILLEGAL_ADDRESS, as a kernel reading out of bounds on a
 * GPU; for processes that cannot call fakecu_fault_kernel (graphc tune's
 * measuring processes). FAKECU_ABORT_BLOCK_THREADS=N makes such a launch
 * abort the process instead, as a crashing driver. */
/* cuDriverGetVersion's answer (default 13000). */
void fakecu_set_driver_version(int version);
/* Every device's compute capability, major * 10 + minor (default 80). */
void fakecu_set_compute_capability(int sm);
/* Number of calls of a driver function ("cuCtxSynchronize", ...). */
int fakecu_calls(const char *function);
/* Invalid calls made during a capture, and the last one's description. */
int fakecu_violations(void);
const char *fakecu_last_violation(void);
/* One line per stream operation, in execution order: "launch K sN",
 * "memcpyDtoD sN", "eventRecord eE sN", "streamWaitEvent sN eE",
 * "streamSynchronize sN", "graphLaunch gG sN", and "replay: ..." for the
 * operations of a launched graph: "replay: while hH" for a conditional
 * node, then "replay: hH: ..." for each op of each run of its body. Streams
 * and events are numbered from 1 in creation order; s0 is the legacy
 * stream. Valid until the next call. */
const char *fakecu_trace(void);
/* The number a stream or event has in the trace. */
int fakecu_stream_id(void *stream);
int fakecu_event_id(void *event);

/* cuBLASLt. While `fail` is set the heuristic finds no algorithm. */
void fakecu_cublaslt_fail_heuristic(int fail);
/* The heuristic finds no algorithm when MAX_WORKSPACE_BYTES is below
 * `bytes` (default 0); otherwise its algorithm uses up to 1 KiB of the
 * workspace allowed, and needs at least `bytes`. */
void fakecu_cublaslt_require_workspace(unsigned long long bytes);
/* Why the last cuBLASLt call that was refused was refused ("" when none
 * was since fakecu_reset). Refusals are also printed to stderr. */
const char *fakecu_cublaslt_last_error(void);
/* The heuristic offers up to eight algorithms (as many as asked for); all
 * compute the same. Its wave count is the problem's 64 x 64 tiles over 108
 * SMs. The rank, in the heuristic's answer, of the one the last
 * cublasLtMatmul ran (-1 before any). */
int fakecu_cublaslt_last_algorithm_rank(void);
/* An algorithm reconfigured with CUBLASLT_ALGO_CONFIG_SPLITK_NUM (and
 * _REDUCTION_SCHEME: COMPUTE_TYPE needs parts x m x n x batch floats of
 * workspace, OUTPUT_TYPE as many elements of D's type, INPLACE none) sums
 * each part of K on its own and then the parts, in order;
 * cublasLtMatmulAlgoCheck reports what it needs. The parts the last
 * cublasLtMatmul split K into (0: unsplit; -1 before any). */
int fakecu_cublaslt_last_split_k(void);
/* Every cublasLtMatmul but those with the algorithm of rank `rank` split
 * into `split_k` parts (0: unsplit) takes 1 ms longer between two timing
 * events than it took the host (the fake's clock runs ahead); rank -1:
 * none does. FAKECU_CUBLASLT_FASTEST="RANK" or "RANK:SPLIT_K" in the
 * environment sets it at start and at fakecu_reset: for processes that
 * cannot call this (graphc tune's measuring processes). Lets tests check
 * what timing picks without depending on the host's timing. */
void fakecu_cublaslt_set_fastest(int rank, int split_k);

/* cuDNN. The heuristic offers four engine configurations, in this order:
 *   0  tensor cores: numerical note TENSOR_CORE, float32 X and W read as
 *      tf32; no workspace
 *   1  exact, 4096 bytes of workspace
 *   2  numerical note DOWN_CONVERT_INPUTS: X and W read as float16; none
 *   3  exact, no workspace
 * While `refuse` is set it offers none for a graph with a pointwise
 * operation (a convolution alone still gets all four). It is set from the
 * start (and after fakecu_reset) when FAKECU_CUDNN_REFUSE_FUSION is set and
 * not "0" in the environment: for processes that run models through graphc
 * or Python. */
void fakecu_cudnn_refuse_fusion(int refuse);
/* The heuristic offers the same four for the attention graph of
 * runtime/src/CudnnSdpa.h (the only graph with matmuls it offers any for),
 * and none while `refuse` is set: then the runtime runs the kernel's
 * generated attention kernel. Set from the start (and after fakecu_reset)
 * when FAKECU_CUDNN_REFUSE_SDPA is set and not "0" in the environment. */
void fakecu_cudnn_refuse_sdpa(int refuse);
/* Every engine needs at least `bytes` of workspace (default 0). */
void fakecu_cudnn_require_workspace(unsigned long long bytes);
/* Every cudnnBackendExecute of a plan whose engine configuration is not of
 * rank `rank` takes 1 ms longer between two timing events (as
 * fakecu_cublaslt_set_fastest); -1: none does. FAKECU_CUDNN_FASTEST_ENGINE
 * in the environment sets it at start and at fakecu_reset. */
void fakecu_cudnn_set_fastest_engine(int rank);
/* The rank, in the heuristic's answer, of the engine configuration whose
 * plan the last cudnnBackendExecute ran (-1 before any). */
int fakecu_cudnn_last_engine_rank(void);
/* Why the last cuDNN call that was refused was refused ("" when none was
 * since fakecu_reset). Refusals are also printed to stderr. */
const char *fakecu_cudnn_last_error(void);
/* The tensors of the last operation graph finalized ("" when none was
 * since fakecu_reset), one line each in unique-id order:
 *   "tensor 1 dims [2,4,7,6] strides [168,1,24,4]\n", " virtual" before the
 * newline of a virtual one. Valid until the next call. */
const char *fakecu_cudnn_last_graph(void);

#ifdef __cplusplus
}
#endif

#endif
