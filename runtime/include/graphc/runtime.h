/*===- runtime.h - the graphc runtime C API --------------------------------===*
 *
 * Loads a model .so written by `graphc compile` and runs it on DLPack tensors.
 * Pure C; C++17 inside; no exception crosses this boundary.
 *
 * Objects and ownership
 *  - graphc_status: NULL means success. A non-NULL status is owned by the
 *    caller, who must release it with graphc_status_free. Its message is valid
 *    until then.
 *  - graphc_model: created by graphc_model_load, released by
 *    graphc_model_release. Immutable once loaded: every graphc_model_*
 *    function may be called from any number of threads at once. Strings and
 *    arrays returned by introspection live as long as the model.
 *  - graphc_session: created by graphc_session_create from a model, released
 *    by graphc_session_release, which must happen before the model's release.
 *    A session owns a stream, an arena and its captured CUDA graphs; use it
 *    from one thread at a time (one session per concurrent request stream).
 *  - Tensors (DLTensor) are borrowed for the duration of a call; the runtime
 *    never keeps a pointer to them after graphc_session_run returns.
 *
 * Conventions: functions are named graphc_<object>_<verb>, return a status,
 * and take their out-parameters last. Out-parameters are written only on
 * success. Dtypes use the ONNX TensorProto.DataType numbering.
 *===----------------------------------------------------------------------===*/
#ifndef GRAPHC_RUNTIME_H
#define GRAPHC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "graphc/descriptor.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GRAPHC_API __attribute__((visibility("default")))
#else
#define GRAPHC_API
#endif

/*===----------------------------------------------------------------------===*
 * Status
 *===----------------------------------------------------------------------===*/

typedef enum graphc_code {
  GRAPHC_OK = 0,
  /* The caller passed something wrong (tensor shape, dtype, argument). */
  GRAPHC_INVALID_ARGUMENT = 1,
  /* A file, symbol, input name or device does not exist. */
  GRAPHC_NOT_FOUND = 2,
  /* The system is not in a state to do this (ABI version, GPU arch). */
  GRAPHC_FAILED_PRECONDITION = 3,
  /* A needed service is missing (no CUDA driver or device). */
  GRAPHC_UNAVAILABLE = 4,
  /* The artifact is corrupted (checksum, malformed descriptor). */
  GRAPHC_DATA_LOSS = 5,
  /* Out of host or device memory. */
  GRAPHC_RESOURCE_EXHAUSTED = 6,
  /* The artifact needs something this runtime does not support. */
  GRAPHC_UNIMPLEMENTED = 7,
  /* A bug in graphc, or a CUDA error in a kernel. */
  GRAPHC_INTERNAL = 8,
} graphc_code;

typedef struct graphc_status_impl *graphc_status;

/* GRAPHC_OK for NULL. */
GRAPHC_API graphc_code graphc_status_code(graphc_status status);
/* "" for NULL. Valid until graphc_status_free. */
GRAPHC_API const char *graphc_status_message(graphc_status status);
/* Accepts NULL. */
GRAPHC_API void graphc_status_free(graphc_status status);
/* "ok", "invalid_argument", ... */
GRAPHC_API const char *graphc_code_name(graphc_code code);

/*===----------------------------------------------------------------------===*
 * Model
 *===----------------------------------------------------------------------===*/

typedef struct graphc_model graphc_model;

typedef enum graphc_model_flags {
  /* Do not verify the checksums of the file and its weights (the file is
   * still checked to be a graphc artifact before it is loaded). */
  GRAPHC_MODEL_SKIP_CHECKSUM = 1u << 0,
  /* Introspection only: do not touch the CUDA driver (a cuda model can be
   * inspected on a machine without a GPU); sessions cannot be created. */
  GRAPHC_MODEL_INSPECT_ONLY = 1u << 1,
} graphc_model_flags;

typedef struct graphc_model_options {
  uint32_t flags; /* graphc_model_flags */
  /* cuda: the device whose SM the images must cover. */
  int32_t device_ordinal;
  /* Weights side file to use instead of the one named by the artifact
   * (which is resolved relative to the .so). NULL: the artifact's. */
  const char *weights_path;
} graphc_model_options;

/* Fills the defaults: no flags, device 0, the artifact's weights file. */
GRAPHC_API void graphc_model_options_init(graphc_model_options *options);

/* Loads the model .so at `path`. `options` may be NULL (defaults). Checks the
 * ABI version, the descriptor's consistency, the checksum, the weights and,
 * for cuda models, that the device's SM is covered by a cubin or PTX. */
GRAPHC_API graphc_status graphc_model_load(const char *path,
                                           const graphc_model_options *options,
                                           graphc_model **out_model);
/* Accepts NULL. Every session of the model must be released before. */
GRAPHC_API void graphc_model_release(graphc_model *model);

typedef struct graphc_tensor_info {
  const char *name;
  int32_t dtype;
  int32_t rank;
  const int64_t *dims;          /* rank entries, -1 for dynamic dims */
  const char *const *dim_names; /* rank entries, "" when unnamed */
  double pad_value; /* inputs: what padding along a bucketed dim fills in */
  /* outputs: rank entries, 1 where the run decides the dim's extent (see
   * graphc_session_output_dims), else 0; NULL when no dim is */
  const int32_t *data_dependent;
} graphc_tensor_info;

/* A dynamic dim the model was compiled for a list of sizes (buckets) of.
 * Runs take any size up to the largest when pad_safe (inputs are padded to
 * the next bucket and outputs sliced back), larger ones too when splittable
 * (several runs); otherwise exactly one of the sizes. */
typedef struct graphc_bucket_dim_info {
  const char *name;
  int32_t num_sizes;
  const int64_t *sizes;
  int32_t pad_safe;
  int32_t splittable;
  const char *node;   /* what breaks padding: an ONNX node name, or "" */
  const char *reason; /* why, or "" */
  const int32_t *output_axes; /* per output: the axis carrying it, or -1 */
} graphc_bucket_dim_info;

typedef struct graphc_plan_info {
  const char *name;
  uint64_t arena_bytes;
  uint64_t intermediate_bytes;
  int32_t num_steps;
  /* One static dims array per model input (rank from its tensor info). */
  const int64_t *const *input_dims;
  /* One static dims array per model output. */
  const int64_t *const *output_dims;
} graphc_plan_info;

typedef struct graphc_kernel_info {
  const char *name;
  const char *kind;
  const char *onnx_nodes; /* comma-separated */
  uint64_t content_hash;
} graphc_kernel_info;

/* One step of a plan: what graphc inspect lists, for measuring tools. */
typedef struct graphc_step_info {
  int32_t kind;   /* graphc_step_kind (descriptor.h) */
  int32_t kernel; /* kernel index; -1 for a copy */
  uint32_t grid[3], block[3], shared_bytes; /* launches; zero otherwise */
} graphc_step_info;

typedef struct graphc_image_info {
  int32_t sm;
  int32_t format; /* graphc_image_format */
  uint64_t size;
} graphc_image_info;

GRAPHC_API graphc_target graphc_model_target(const graphc_model *model);
GRAPHC_API const char *graphc_model_producer(const graphc_model *model);
GRAPHC_API uint64_t graphc_model_weights_size(const graphc_model *model);
/* The side file the weights were read from, or NULL when embedded. */
GRAPHC_API const char *graphc_model_weights_path(const graphc_model *model);
GRAPHC_API int32_t graphc_model_input_count(const graphc_model *model);
GRAPHC_API int32_t graphc_model_output_count(const graphc_model *model);
GRAPHC_API int32_t graphc_model_plan_count(const graphc_model *model);
GRAPHC_API int32_t graphc_model_kernel_count(const graphc_model *model);
GRAPHC_API int32_t graphc_model_image_count(const graphc_model *model);
GRAPHC_API int32_t graphc_model_bucket_dim_count(const graphc_model *model);
GRAPHC_API graphc_status graphc_model_input_info(const graphc_model *model,
                                                 int32_t index,
                                                 graphc_tensor_info *out_info);
GRAPHC_API graphc_status graphc_model_output_info(const graphc_model *model,
                                                  int32_t index,
                                                  graphc_tensor_info *out_info);
GRAPHC_API graphc_status graphc_model_plan_info(const graphc_model *model,
                                                int32_t index,
                                                graphc_plan_info *out_info);
GRAPHC_API graphc_status graphc_model_kernel_info(const graphc_model *model,
                                                  int32_t index,
                                                  graphc_kernel_info *out_info);
GRAPHC_API graphc_status graphc_model_step_info(const graphc_model *model,
                                                int32_t plan, int32_t step,
                                                graphc_step_info *out_info);
GRAPHC_API graphc_status graphc_model_image_info(const graphc_model *model,
                                                 int32_t index,
                                                 graphc_image_info *out_info);
GRAPHC_API graphc_status
graphc_model_bucket_dim_info(const graphc_model *model, int32_t index,
                             graphc_bucket_dim_info *out_info);

/* The most parts one run is split into along a splittable dim past its
 * largest bucket (ceil(size / largest bucket) parts): a larger request is
 * GRAPHC_INVALID_ARGUMENT naming the input and the dim, from
 * graphc_session_run, graphc_model_select_plan and graphc_model_output_dims
 * alike. Make smaller requests instead. */
#define GRAPHC_MAX_SPLIT_PARTS 65536

/* Chooses the plan (bucket) graphc_session_run would use for inputs of
 * these dims: the plan of these exact dims, else the smallest bucket that
 * covers them by padding (for a run split into several, the first part's).
 * `input_names` may be NULL (positional); otherwise input i is named
 * input_names[i]. Every dim must be non-negative and match the model's
 * static dims. The status on failure is the one graphc_session_run would
 * return. */
GRAPHC_API graphc_status graphc_model_select_plan(
    const graphc_model *model, int32_t num_inputs,
    const char *const *input_names, const int32_t *input_ranks,
    const int64_t *const *input_dims, int32_t *out_plan_index);

/* The model's batch dim, along which graphc_session_run_batch concatenates
 * requests: a bucketed dim that is axis 0, and no other axis, of every input
 * and output, and along which the model mixes no rows (pad_safe and
 * splittable). Its index (graphc_model_bucket_dim_info) goes to *out_index;
 * without one, GRAPHC_INVALID_ARGUMENT saying why (which input or output
 * lacks it, or which node mixes the rows). */
GRAPHC_API graphc_status graphc_model_batch_dim(const graphc_model *model,
                                                int32_t *out_index);

/* The dims of the outputs graphc_session_run produces for inputs of these
 * dims (arguments as graphc_model_select_plan): out_output_dims[o] points to
 * room for output o's rank dims, written on success; it may be NULL for an
 * output of rank 0. A data-dependent dim (graphc_tensor_info's
 * data_dependent) gets its bound: the caller allocates the output for it,
 * and graphc_session_output_dims says afterwards what the run found. */
GRAPHC_API graphc_status graphc_model_output_dims(
    const graphc_model *model, int32_t num_inputs,
    const char *const *input_names, const int32_t *input_ranks,
    const int64_t *const *input_dims, int64_t *const *out_output_dims);

/*===----------------------------------------------------------------------===*
 * Session
 *===----------------------------------------------------------------------===*/

/* A CUDA device, for tools that record where they measured. */
typedef struct graphc_device_info {
  char name[256];         /* "NVIDIA H100 80GB HBM3" */
  int32_t sm;             /* 90 for compute capability 9.0 */
  int32_t driver_version; /* the driver's CUDA version: 13000 for 13.0 */
} graphc_device_info;

/* Describes CUDA device `ordinal`: GRAPHC_UNAVAILABLE without a CUDA driver
 * or device, GRAPHC_NOT_FOUND for an ordinal past the last device. */
GRAPHC_API graphc_status graphc_cuda_device_info(int32_t ordinal,
                                                 graphc_device_info *out_info);

typedef struct graphc_session graphc_session;

typedef enum graphc_session_flags {
  /* cuda: capture every plan's CUDA graph at creation, not on first run. */
  GRAPHC_SESSION_EAGER_CAPTURE = 1u << 0,
  /* cuda: launch the steps one by one on every run (no CUDA graphs). */
  GRAPHC_SESSION_DISABLE_CUDA_GRAPHS = 1u << 1,
  /* cuda, for debugging device faults: no CUDA graphs, and a wait after
   * every launch, so that a fault (illegal address, ...) names its kernel
   * and ONNX nodes. Slow. The environment variable GRAPHC_DEBUG_SYNC=1 sets
   * it for every session of the process (for tools). */
  GRAPHC_SESSION_DEBUG_SYNC = 1u << 2,
  /* For measuring tools (graphc tune): time every step of every run, read
   * back with graphc_session_step_times. cuda: the steps are launched one
   * by one (no CUDA graphs), each between two CUDA events; cpu: the host
   * clock around each step. */
  GRAPHC_SESSION_PROFILE_STEPS = 1u << 3,
  /* cuda, for artifacts compiled without a tuning database: at creation,
   * time the first GRAPHC_LIBRARY_TIMING_RANKS algorithms (cuBLASLt) or
   * engine configurations (cuDNN) the library's heuristic offers for each
   * library kernel whose choice was not tuned, and keep the fastest
   * (graphc_session_library_kernel_info's `rank` reports it). Each
   * candidate runs a few untimed and GRAPHC_LIBRARY_TIMING_REPEATS timed
   * times on the session's own memory (its arena, or a scratch block freed
   * before creation returns when the arena is smaller than the operands):
   * nothing the caller owns is touched, and the values computed are
   * thrown away. The cost is creation time: about (3 +
   * GRAPHC_LIBRARY_TIMING_REPEATS) runs of each library kernel per
   * candidate plus one heuristic query per candidate (milliseconds for a
   * model like BERT-base; the runs stop early for a kernel whose library
   * offers fewer). The environment variable
   * GRAPHC_TIME_LIBRARY_ALGORITHMS=1 sets it for every session of the
   * process (for tools). */
  GRAPHC_SESSION_TIME_LIBRARY_ALGORITHMS = 1u << 4,
  /* For tools that compare a run with a reference (graphc verify): after
   * each step of a run, copy each of the step's results
   * (graphc_step_result_desc) into a probe buffer the session owns, read
   * back with graphc_session_read_probe. cuda: device-to-device copies
   * between the steps, in the plan's CUDA graph when graphs are on; the
   * kernels, their launch dims, the library calls and the arena are those
   * of a session without the flag, so the values are what the artifact
   * computes (a kernel launched programmatically after a copy waits for
   * the copy in full, as after a plan's own copy step). cpu: a memcpy after
   * each step. Costs one probe buffer of the largest plan's probe bytes
   * (the sum of its steps' result sizes, each rounded up to
   * GRAPHC_ALIGNMENT) and the copies' time. GRAPHC_INVALID_ARGUMENT with
   * GRAPHC_SESSION_PROFILE_STEPS: the copies would be timed with the
   * steps. */
  GRAPHC_SESSION_PROBE_STEPS = 1u << 5,
} graphc_session_flags;

/* GRAPHC_SESSION_TIME_LIBRARY_ALGORITHMS: the candidates of each kernel
 * and the timed runs of each. */
#define GRAPHC_LIBRARY_TIMING_RANKS 4
#define GRAPHC_LIBRARY_TIMING_REPEATS 10

typedef struct graphc_session_options {
  uint32_t flags;         /* graphc_session_flags */
  int32_t device_ordinal; /* cuda only */
} graphc_session_options;

/* Fills the defaults: no flags, device 0. */
GRAPHC_API void graphc_session_options_init(graphc_session_options *options);

/* `options` may be NULL (defaults). The model must outlive the session. */
GRAPHC_API graphc_status graphc_session_create(
    graphc_model *model, const graphc_session_options *options,
    graphc_session **out_session);
/* Accepts NULL. */
GRAPHC_API void graphc_session_release(graphc_session *session);

/* Runs the model synchronously: outputs are complete when it returns.
 *
 * `inputs` holds num_inputs tensors, in model order when `input_names` is
 * NULL, otherwise input i is named input_names[i]. `outputs` holds one
 * caller-allocated tensor per model output, in model order, with the dims of
 * the selected plan. Tensors must be dense row-major (strides NULL or
 * compact) and live on the session's device: kDLCPU for cpu models, kDLCUDA
 * with the session's ordinal for cuda models. Their data may start at any
 * byte (a tensor inside a network message): a cpu run copies tensors not
 * aligned to their element size through the session's staging buffers. An output may not share memory
 * with an input or another output. Everything is validated before any
 * output is written; on failure outputs are untouched. When every output
 * has zero elements (a zero-sized dim they carry), nothing runs: the call
 * validates its arguments and returns, however large the other dims. A run
 * split into more than GRAPHC_MAX_SPLIT_PARTS parts is refused.
 *
 * cuda: inputs must be ready when the call is made (synchronise the stream
 * that produced them, or use graphc_session_run_on_stream). Inputs are
 * copied into session-owned staging buffers that the captured CUDA graph
 * reads, and outputs are copied out of staging after the graph, so caller
 * buffers may change between runs without a new capture.
 *
 * Errors: an index out of range in a Gather, GatherElements, GatherND,
 * ScatterElements or ScatterND input (likewise a ReverseSequence length
 * above the time dim, a run-time CumSum axis out of range) is
 * GRAPHC_INVALID_ARGUMENT naming the value and the node, on cpu and cuda;
 * the kernel addresses no memory with it, and the session stays usable. On
 * cuda, a device fault that corrupts the CUDA context (illegal address, ...)
 * is GRAPHC_INTERNAL naming the CUDA error; the device is then unusable for
 * the rest of the process, and every later call on it fails at once with
 * the original cause. GRAPHC_SESSION_DEBUG_SYNC makes the status name the
 * kernel. */
GRAPHC_API graphc_status graphc_session_run(graphc_session *session,
                                            const DLTensor *inputs,
                                            int32_t num_inputs,
                                            const char *const *input_names,
                                            const DLTensor *outputs,
                                            int32_t num_outputs);

/* Runs the model ordered on the caller's stream, without blocking the host.
 *
 * Same arguments and validation as graphc_session_run, plus `stream`:
 *  - cuda: a CUstream of the session's device and context (NULL: the legacy
 *    default stream). The run starts after everything already queued on
 *    `stream` (an event recorded there is waited for by the session's
 *    stream), and work queued on `stream` after the call sees the outputs
 *    (an event recorded after the run is waited for by `stream`). The call
 *    returns once the work is queued: inputs and outputs must stay
 *    allocated, and inputs unchanged, until it has run. Back-to-back calls
 *    on one session need no wait in between: the session's staging
 *    buffers, arena and error record are only used by work queued in order
 *    on the session's own stream, so a run cannot overwrite what an earlier
 *    one still reads. `stream` must not be capturing a CUDA graph
 *    (GRAPHC_FAILED_PRECONDITION): the session replays its own graph.
 *    An index error found on the device by such a run is returned by the
 *    first later run on the session that finds it finished
 *    (graphc_session_run always does: it waits for the session's stream),
 *    or by graphc_session_synchronize.
 *  - cpu: identical to graphc_session_run; `stream` must be NULL
 *    (else GRAPHC_INVALID_ARGUMENT). */
GRAPHC_API graphc_status graphc_session_run_on_stream(
    graphc_session *session, const DLTensor *inputs, int32_t num_inputs,
    const char *const *input_names, const DLTensor *outputs,
    int32_t num_outputs, void *stream);

/* Runs several requests as one batch, for servers that gather requests
 * (a Triton backend): each request's tensors are read and written where
 * the request has them, with no concatenated copy made by the caller.
 *
 * request_inputs[r] holds request r's num_inputs tensors (named by
 * `input_names` as in graphc_session_run, NULL: model order, the same for
 * every request) and request_outputs[r] its num_outputs outputs, in model
 * order. Input i of the run is the concatenation along axis 0 of
 * request_inputs[r][i] for r = 0 .. num_requests - 1, in order; request
 * r's rows of output o, after the earlier requests' rows, go to
 * request_outputs[r][o], whose dims are those request r alone would have
 * (graphc_model_output_dims of its inputs).
 *
 *  - num_requests 1 runs as graphc_session_run_on_stream; below 1 is
 *    GRAPHC_INVALID_ARGUMENT.
 *  - More requests need a batch dim: a bucketed dim
 *    (graphc_bucket_dim_info) that is axis 0, and no other axis, of every
 *    input and output and along which the model mixes no rows (pad_safe
 *    and splittable). Without one the call is GRAPHC_INVALID_ARGUMENT
 *    saying which input or output lacks it, or which node mixes the rows.
 *    The requests may differ in that dim only; their total runs as any
 *    run of that size does (padded to the next bucket, split past the
 *    largest).
 *  - Each request is validated as a run of its own (names, dtypes, dims,
 *    contiguity, data, devices; its outputs' dims), and a status about
 *    one request starts with "request R: ". No output may share memory
 *    with any input or other output of any request. Everything is
 *    validated before anything is written.
 *  - Devices: cpu models take host tensors as graphc_session_run. cuda
 *    models take, per tensor, memory of the session's device (kDLCUDA, its
 *    ordinal) or host memory (kDLCPU, kDLCUDAHost): host inputs are copied
 *    to the device and host outputs back by the run, on its stream, into
 *    and out of the session's staging buffers.
 *  - `stream` NULL: the run is synchronous, on the session's own stream,
 *    as graphc_session_run (outputs complete on return; a server's
 *    instance runs this way, with no event between streams). Otherwise
 *    (cuda only) as graphc_session_run_on_stream: a CUstream of the
 *    session's device (CU_STREAM_LEGACY for the legacy default stream);
 *    the call returns once the work is queued, and every tensor, host ones
 *    included, must stay allocated and the inputs unchanged until the run
 *    has finished (graphc_session_synchronize, or a wait on `stream`).
 *    cpu: NULL, and the run is complete on return.
 *
 * A batch of several requests always goes through the staging buffers
 * (cpu: the session's own, gathered there), one copy per request and
 * tensor each way. */
GRAPHC_API graphc_status graphc_session_run_batch(
    graphc_session *session, int32_t num_requests,
    const DLTensor *const *request_inputs, int32_t num_inputs,
    const char *const *input_names, const DLTensor *const *request_outputs,
    int32_t num_outputs, void *stream);

/* The dims of output `output` as the session's latest run produced them:
 * the plan's dims, each data-dependent dim (graphc_tensor_info's
 * data_dependent) replaced by the extent the run found; rank entries go to
 * out_dims (NULL for rank 0). The result is the leading corner of these
 * dims in the output buffer, which has the plan's dims (row-major strides
 * of the bounds); what lies past it is unspecified. cuda: waits for the
 * session's queued runs first, and reports what graphc_session_synchronize
 * would. Before the session's first run, or after a run that failed (was
 * refused, or whose failure graphc_session_synchronize reported):
 * GRAPHC_FAILED_PRECONDITION. An extent outside [0, bound] is
 * GRAPHC_INTERNAL naming the output, dim and plan (the artifact's kernel
 * found it). A run that computed nothing (every output empty) found
 * extents of 0. GRAPHC_INVALID_ARGUMENT for an output out of range or a
 * NULL out_dims of an output of rank 1 or more.
 *
 * A model with data-dependent output dims runs its buckets' sizes only (a
 * run it would pad or split along a bucketed dim is refused naming the
 * input, the dim and the output) and has no batch dim
 * (graphc_model_batch_dim): graphc_session_run_batch takes one request. */
GRAPHC_API graphc_status graphc_session_output_dims(graphc_session *session,
                                                    int32_t output,
                                                    int64_t *out_dims);

/* Waits until every run queued on the session (by
 * graphc_session_run_on_stream) has finished, and returns what such a run
 * found that its own call could not report: an index out of range
 * (GRAPHC_INVALID_ARGUMENT naming the node, the session stays usable) or a
 * device fault. Waits for the session's work only, never the whole device.
 * cpu: returns at once. */
GRAPHC_API graphc_status graphc_session_synchronize(graphc_session *session);

/* How long each step of the session's last plan launch took, for a session
 * created with GRAPHC_SESSION_PROFILE_STEPS: the plan's index goes to
 * *out_plan, its step count to *out_steps, and the first
 * min(capacity, steps) times, in microseconds, to out_micros (NULL with
 * capacity 0 asks for the count). A run split into parts reports its last
 * part. A loop step's time covers all of its iterations, and the steps
 * of its body report 0. GRAPHC_FAILED_PRECONDITION without the flag, before
 * any run, or
 * while an asynchronous run is still in flight (synchronize first). */
GRAPHC_API graphc_status graphc_session_step_times(graphc_session *session,
                                                   int32_t *out_plan,
                                                   double *out_micros,
                                                   int32_t capacity,
                                                   int32_t *out_steps);

/* One probed value of a session's last run (GRAPHC_SESSION_PROBE_STEPS). */
typedef struct graphc_probe_info {
  int32_t step;   /* in the plan's steps */
  int32_t result; /* in that step's results */
  /* The step's result as the descriptor describes it (dtype, dims, the
   * ONNX tensor it holds); points into the model, which outlives it. */
  const graphc_step_result_desc *desc;
  uint64_t size; /* bytes */
} graphc_probe_info;

/* For a session created with GRAPHC_SESSION_PROBE_STEPS, after a run: the
 * plan the last run used goes to *out_plan and the number of probed values
 * (every result of every step, in step order) to *out_count. A run split
 * into parts reports its last part (the probes hold that part's values; a
 * padded run's hold its bucket's padded shapes). GRAPHC_FAILED_PRECONDITION
 * without the flag, before any run, after a run that failed (also one
 * refused before it ran, and an asynchronous run whose failure
 * graphc_session_synchronize reported), after a run that computed nothing
 * (every output empty), or while an asynchronous run may be in flight
 * (call graphc_session_synchronize first). */
GRAPHC_API graphc_status graphc_session_probe_count(graphc_session *session,
                                                    int32_t *out_plan,
                                                    int32_t *out_count);

/* Probe `index` (< the count above) of the last run: what it is into
 * *out_info, and its bytes (dense, row-major, the result's dtype) copied
 * into host memory at `data` when `data` is not NULL (`capacity` bytes;
 * GRAPHC_INVALID_ARGUMENT when smaller than the probe). cuda: a
 * synchronous device-to-host copy. Preconditions as
 * graphc_session_probe_count; GRAPHC_INVALID_ARGUMENT for an index out of
 * range. */
GRAPHC_API graphc_status graphc_session_read_probe(graphc_session *session,
                                                   int32_t index,
                                                   graphc_probe_info *out_info,
                                                   void *data,
                                                   uint64_t capacity);

/* What computes library kernel `kernel` (graphc_model_kernel_count) in this
 * session, planned when the session was created. cuda: the cuBLASLt
 * algorithm or cuDNN engine configuration the library's heuristic offered,
 * and whether it computes the kernel's whole epilogue; cpu: the runtime's
 * reference GEMM and convolution, which compute all of it (rank -1). A
 * generated kernel has library GRAPHC_LIBRARY_NONE and -1 elsewhere.
 * GRAPHC_INVALID_ARGUMENT for a kernel out of range. */
typedef struct graphc_library_kernel_info {
  int32_t library; /* graphc_library (descriptor.h) */
  /* 1: the library computes the kernel with its bias, residual and
   * activation; 0: it computes the GEMM or convolution alone and the
   * kernel's generated epilogue kernel finishes it (one launch more), or,
   * for an attention (cuDNN's SDPA), the library has no engine for it and
   * the kernel's generated attention kernel computes it instead (rank -1);
   * -1: no step calls it, so nothing was planned. */
  int32_t fused;
  /* The planned choice's rank among the heuristic's, and the rank the
   * artifact asked for (its tuning); they differ where this library offers
   * fewer choices than the tuning GPU's did, or none the request allows. */
  int32_t rank, requested_rank;
  uint64_t workspace_bytes; /* of the library workspace, what the plan uses */
} graphc_library_kernel_info;

GRAPHC_API graphc_status graphc_session_library_kernel_info(
    graphc_session *session, int32_t kernel,
    graphc_library_kernel_info *out_info);

/* Why library kernel `kernel` is not computed whole by its library in this
 * session (graphc_library_kernel_info's fused is 0): the library's own
 * refusal of the fused graph, as it gave it, e.g. which engines cuDNN
 * offered and the notes that excluded them. *out_note is "" when the kernel
 * is fused, generated, not planned, or on cpu; it stays valid until the
 * session is released. GRAPHC_INVALID_ARGUMENT for a kernel out of range. */
GRAPHC_API graphc_status graphc_session_library_kernel_note(
    graphc_session *session, int32_t kernel, const char **out_note);

/* One way to compute a library kernel, and how long it took. */
typedef struct graphc_library_candidate {
  int32_t rank; /* among the heuristic's algorithms or engine configurations */
  /* cuBLASLt: 0, the algorithm as offered, or the parts K was split into
   * (CUBLASLT_ALGO_CONFIG_SPLITK_NUM); cuDNN: 0. */
  int32_t split_k;
  double micros; /* the median of the timed runs */
} graphc_library_candidate;

/* For measuring tools (graphc tune): times the ways the library can
 * compute library kernel `kernel`, each built as the session builds its
 * own (same workspace, same alignment) and run `warmup` untimed and
 * `repeats` timed times between two CUDA events on the session's own
 * memory (see GRAPHC_SESSION_TIME_LIBRARY_ALGORITHMS; the session's plans
 * and outputs are unaffected). The candidates are every algorithm or
 * engine configuration of the first `max_ranks` (at most
 * GRAPHC_MAX_ALGO_RANKS) the heuristic offers that the runtime can build
 * for the kernel and the library agrees to queue, in rank order, and with `split_k` set, for a cuBLASLt
 * GEMM whose candidate's tiles leave SMs idle (the heuristic's wave count
 * below 1) and that does not split K itself, that algorithm with K split
 * into 2, 4, 8 or 16 parts where cuBLASLt accepts it (each part at least
 * 64 deep, at most two waves). The first min(capacity, count) go to
 * `out` (NULL with capacity 0 asks for the count), the count to
 * *out_count. cuda only (GRAPHC_UNIMPLEMENTED on cpu);
 * GRAPHC_INVALID_ARGUMENT for a kernel out of range or one that is not a
 * library kernel, GRAPHC_FAILED_PRECONDITION for one no step calls or
 * while an asynchronous run is in flight (synchronize first). */
GRAPHC_API graphc_status graphc_session_time_library_kernel(
    graphc_session *session, int32_t kernel, int32_t max_ranks, int32_t split_k,
    int32_t warmup, int32_t repeats, graphc_library_candidate *out,
    int32_t capacity, int32_t *out_count);

/* Memory on the session's device (host memory for cpu models), for callers
 * that start from host data and have no CUDA of their own (tools, tests).
 * Released with graphc_session_free_buffer before the session. */
GRAPHC_API graphc_status graphc_session_allocate_buffer(graphc_session *session,
                                                        uint64_t bytes,
                                                        void **out_data);
GRAPHC_API void graphc_session_free_buffer(graphc_session *session, void *data);
/* Synchronous copies between host memory and session device memory. */
GRAPHC_API graphc_status graphc_session_upload(graphc_session *session,
                                               void *device_dst,
                                               const void *host_src,
                                               uint64_t bytes);
GRAPHC_API graphc_status graphc_session_download(graphc_session *session,
                                                 void *host_dst,
                                                 const void *device_src,
                                                 uint64_t bytes);

/*===----------------------------------------------------------------------===*
 * Dtypes
 *===----------------------------------------------------------------------===*/

/* "float32", "int64", "int4", ...; "unknown" for others. */
GRAPHC_API const char *graphc_dtype_name(int32_t dtype);
/* Bytes per element; 0 for unknown dtypes and for the sub-byte ones, uint4
 * (21) and int4 (22), whose sizes graphc_dtype_bits and graphc_dtype_bytes
 * give. */
GRAPHC_API size_t graphc_dtype_size(int32_t dtype);
/* Bits per element: 4 for uint4 and int4, 8 * graphc_dtype_size otherwise
 * (0 for unknown dtypes). */
GRAPHC_API size_t graphc_dtype_bits(int32_t dtype);
/* Bytes of a dense tensor of `count` elements: count * size, or for uint4
 * and int4 (count + 1) / 2, packed as ONNX and DLPack (bits 4) lay them out:
 * two a byte, the first element in the low nibble, the last byte's high
 * nibble unused when count is odd. UINT64_MAX for unknown dtypes and on
 * overflow. Every tensor of a run (inputs, outputs, buffers) is sized so. */
GRAPHC_API uint64_t graphc_dtype_bytes(int32_t dtype, uint64_t count);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHC_RUNTIME_H */
