/*===- descriptor.h - the model artifact's descriptor (ABI v15) ------------===*
 *
 * A graphc model .so exports one symbol, `graphc_model_descriptor_v1`, a
 * function returning a pointer to a read-only graphc_model_desc. Everything
 * the runtime needs is reachable from it; the .so needs nothing but libc.
 * The compiler (lib/Codegen) writes these structures as C source; the runtime
 * (runtime/src) reads them. Any layout change bumps GRAPHC_ABI_VERSION.
 *===----------------------------------------------------------------------===*/
#ifndef GRAPHC_DESCRIPTOR_H
#define GRAPHC_DESCRIPTOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GRAPHC_ABI_VERSION 16u
#define GRAPHC_DESCRIPTOR_SYMBOL "graphc_model_descriptor_v1"
/* The graphc_model_desc itself lives alone in this ELF section, so that
 * tools can find and read it from the file without loading the .so. */
#define GRAPHC_DESCRIPTOR_SECTION ".graphc_model"
#define GRAPHC_DESCRIPTOR_PLACEMENT                                            \
  __attribute__((section(GRAPHC_DESCRIPTOR_SECTION), used))
/* Weights (and every arena slot) start on this boundary. */
#define GRAPHC_ALIGNMENT 256u
/* Weights appended to the .so start at a file offset that is a multiple of
 * this: every page size the runtime maps them with divides it. */
#define GRAPHC_WEIGHTS_FILE_ALIGNMENT 65536u

typedef enum graphc_target {
  GRAPHC_TARGET_CPU = 0,
  GRAPHC_TARGET_CUDA = 1,
} graphc_target;

/* An input or output of the model. dims hold -1 for dynamic (bucketed)
 * dims, whose names are in dim_names: the ONNX dim_param, or INPUT.AXIS for
 * a bucketed dim the model leaves unnamed ("" for static dims). */
typedef struct graphc_tensor_desc {
  const char *name;
  int32_t dtype; /* ONNX TensorProto.DataType numbering (gc_dtype) */
  int32_t rank;
  const int64_t *dims;
  const char *const *dim_names;
  /* Inputs: the value padding fills in along a pad-safe bucketed dim. */
  double pad_value;
  /* Outputs: per dim, 1 where the run decides the extent (a data-dependent
   * dim: NonZero, NonMaxSuppression, Compress, Unique), else 0; NULL when no
   * dim is. Such a dim is -1 in dims and named in dim_names; each plan's
   * output_dims hold its bound and its output_extents where a run leaves
   * the extent it found. The output is written as a dense tensor of the
   * plan's dims whose leading corner (the extents found) holds the result;
   * what lies past it is unspecified. */
  const int32_t *data_dependent;
} graphc_tensor_desc;

/* A dynamic dim compiled for a list of sizes (buckets); each plan fixes it
 * to one of them. When pad_safe, a run whose size lies between two buckets
 * pads every input axis named `name` (with the input's pad_value) up to
 * the next bucket and slices output o back along output_axes[o] (-1: that
 * output does not carry the dim). When splittable too, a size past the
 * largest bucket runs as several runs along the dim. Otherwise sizes must
 * match a bucket exactly; node and reason say what breaks padding. */
typedef struct graphc_bucket_dim_desc {
  const char *name;
  int32_t num_sizes;
  const int64_t *sizes; /* ascending */
  int32_t pad_safe;
  int32_t splittable;
  const char *node;   /* ONNX node that breaks padding, or "" */
  const char *reason; /* why, or "" */
  const int32_t *output_axes; /* one per model output */
} graphc_bucket_dim_desc;

typedef enum graphc_buffer_kind {
  GRAPHC_BUFFER_NONE = 0,    /* absent optional operand: NULL pointer */
  GRAPHC_BUFFER_ARENA = 1,   /* session arena + offset */
  GRAPHC_BUFFER_WEIGHTS = 2, /* model weights + offset */
  GRAPHC_BUFFER_INPUT = 3,   /* caller's input `index` + offset */
  GRAPHC_BUFFER_OUTPUT = 4,  /* caller's output `index` + offset */
} graphc_buffer_kind;

typedef struct graphc_buffer_ref {
  int32_t kind; /* graphc_buffer_kind */
  int32_t index;
  uint64_t offset;
  uint64_t size; /* bytes */
} graphc_buffer_ref;

typedef enum graphc_step_kind {
  /* cuda: launch kernels[kernel] with one pointer argument per buffer. */
  GRAPHC_STEP_LAUNCH = 0,
  /* cpu: call kernels[kernel].host_fn with one pointer per buffer. */
  GRAPHC_STEP_HOST_CALL = 1,
  /* copy args[0] (source) to args[1] (destination), args[1].size bytes. */
  GRAPHC_STEP_COPY = 2,
  /* run kernels[kernel].gemm, .conv or .sdpa through
   * kernels[kernel].library (cuda), or the runtime's reference GEMM or
   * convolution (cpu; attention is a library call on cuda only), on the
   * step's buffers: the kernel's inputs, its
   * output, then the workspace (NONE when the library needs none). grid,
   * block and shared_bytes are 0. */
  GRAPHC_STEP_LIBRARY_CALL = 3,
  /* A loop (ONNX Loop whose trip count or condition only the run knows).
   * The body_steps steps after this one are its body; they run again and
   * again while the loop goes on:
   *   i = 0
   *   go = (args[1] ? *args[1] : 1) && (args[0] ? 0 < *args[0] : 1)
   *   while (go) {
   *     if (i == max_iterations) the run fails (GRAPHC_INVALID_ARGUMENT)
   *     state.iteration = i; run the body
   *     i = i + 1
   *     go = (args[3] ? *args[3] : 1) && (args[0] ? i < *args[0] : 1)
   *   }
   * args: [0] the trip count (int64 scalar; NONE: none), [1] the first
   * condition (bool, one byte; NONE: true), [2] the loop's state, 16 bytes
   * in the arena: the iteration number (int64; the body reads it) and
   * whether another iteration runs (int64, 0 or 1; cuda), [3] the
   * condition the body computes (bool, one byte; NONE: true). Copies
   * in the body carry values from one iteration to the next.
   * cuda: kernel is the loop's control kernel (kind "loop_control"), a
   * generated kernel whose parameters are the four arguments (NULL for
   * NONE), the conditional handle (unsigned long long; 0 when no CUDA
   * graph is captured), the phase (int: 0 before the first iteration, 1
   * after each) and then the error record and site every generated kernel
   * takes. It writes the state and, given a handle, sets the handle's
   * value to `go` (cudaGraphSetConditional); when max_iterations would be
   * passed it reports the iteration in the error record and stops. The
   * runtime captures the body as the body graph of a WHILE conditional
   * node, the phase-1 launch its last node. grid and block are 1.
   * cpu: kernel is a kernel of kind "loop_control" without a host
   * function, which names the loop's ONNX node; the runtime runs the loop.
   * Loops nest at most GRAPHC_MAX_LOOP_DEPTH deep. ABI v15 */
  GRAPHC_STEP_LOOP = 4,
} graphc_step_kind;

/* The deepest nesting of GRAPHC_STEP_LOOP steps a plan may have. */
#define GRAPHC_MAX_LOOP_DEPTH 16

/* A value a step writes, for tools that compare a run with a reference
 * (graphc verify, through GRAPHC_SESSION_PROBE_STEPS). ABI v14 */
typedef struct graphc_step_result_desc {
  int32_t arg;   /* the step's argument that holds it, in [0, num_args) */
  int32_t dtype; /* ONNX TensorProto.DataType numbering (gc_dtype) */
  int32_t rank;
  const int64_t *dims; /* static: the plan's */
  /* The ONNX tensor (a node's output) whose value it holds, element for
   * element in the same layout and order; its precision may be narrower
   * (--precision fp16/bf16). "" when it holds no single ONNX tensor as
   * written: a value a rewrite made (merged projections, a channels-last
   * layout, a constant folded into a linear op), or a kernel's scratch. */
  const char *onnx_tensor;
} graphc_step_result_desc;

typedef struct graphc_step_desc {
  int32_t kind; /* graphc_step_kind */
  int32_t kernel;
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t shared_bytes;
  int32_t num_args;
  const graphc_buffer_ref *args;
  /* What the step writes that a tool may compare: each result of a launch,
   * host call or library call (not a workspace or scratch), the
   * destination of a copy. ABI v14 */
  int32_t num_results;
  const graphc_step_result_desc *results;
  /* GRAPHC_STEP_LOOP: how many of the steps after this one are its body
   * (a nested loop's body counted in), and the most iterations one run
   * may take (at least 1). 0 for other steps. ABI v15 */
  int32_t body_steps;
  int64_t max_iterations;
} graphc_step_desc;

/* The vendor library that computes a kernel. */
typedef enum graphc_library {
  GRAPHC_LIBRARY_NONE = 0,     /* a generated kernel (launch or host call) */
  GRAPHC_LIBRARY_CUBLASLT = 1, /* cuBLASLt (cuda); reference GEMM (cpu) */
  /* cuDNN's graph API (cuda): convolutions and attention (SDPA);
   * reference convolution (cpu) */
  GRAPHC_LIBRARY_CUDNN = 2,
} graphc_library;

/* The activation a GEMM or convolution applies last. GELU_TANH is the
 * tanh approximation of GELU (graph gelu with approximate = "tanh"), the
 * form cuBLASLt fuses; the erf form of ONNX Gelu is GELU_ERF, a
 * convolution's alone. */
typedef enum graphc_gemm_epilogue {
  GRAPHC_EPILOGUE_NONE = 0,
  GRAPHC_EPILOGUE_RELU = 1,
  GRAPHC_EPILOGUE_GELU_TANH = 2,
  /* x * sigmoid(x) = x / (1 + exp(-x)): convolutions only (cuDNN's
   * SWISH_FWD); cuBLASLt has no such epilogue. */
  GRAPHC_EPILOGUE_SILU = 3,
  /* x/2 * (1 + erf(x / sqrt(2))): convolutions only (cuDNN's GELU_FWD);
   * cuBLASLt fuses only the tanh form. */
  GRAPHC_EPILOGUE_GELU_ERF = 4,
} graphc_gemm_epilogue;

/* The runtime asks a library's heuristic for at most this many algorithms. */
#define GRAPHC_MAX_ALGO_RANKS 32
/* The most parts a GEMM's K may be split into (graphc_gemm_desc.split_k). */
#define GRAPHC_MAX_SPLIT_K 64

/* A batched GEMM on row-major matrices, library-neutral. For each batch
 * index i < batch:
 *   D_i = epilogue(alpha * op(A_i) op(B_i) + beta * C_i + bias)
 * op(A_i) is m x k and op(B_i) k x n (op transposes when trans_a/trans_b is
 * set: A_i is then stored k x m); C_i, D_i are m x n; bias has n elements,
 * one per column of D_i. lda, ldb, ldc count the elements between rows as
 * stored; A_i starts i * stride_a elements into A (stride 0: every batch
 * index reads one matrix), likewise B and C. D is dense: ldd = n, stride
 * m * n. The *_arg fields index the step's arguments (-1: absent; C needs
 * beta != 0). Elements are dtype (ONNX numbering) throughout; products
 * accumulate in compute_dtype.
 *
 * 8-bit operands, a combination of these fields that runtimes before it
 * refuse at load (no new field, no ABI change): dtype INT8 (3) with
 * compute_dtype INT32 (6), or FLOAT8E4M3FN (17) with compute_dtype FLOAT
 * (1). A and B are dtype; for 8-bit operand types, C and D are
 * compute_dtype: the accumulator written as it is. int8 products are
 * summed exactly in int32 (two's complement: a sum past its range wraps,
 * as the GPU's integer tensor cores do); e4m3fn elements (bias 7,
 * subnormals, no infinities, 0x7f and 0xff NaN) are products summed in
 * float32, then alpha * sum + beta * C in float32. int8 takes alpha 1;
 * e4m3fn any finite alpha (the operands' per-tensor scales, multiplied
 * in); beta is 0 or 1; no bias, epilogue NONE, tf32 0. The load-time check
 * refuses any other 8-bit combination. The cpu target computes every such
 * GEMM. cuBLASLt (cuda) runs only the form its int8 (IMMA) and fp8 kernels
 * take, "TN" in its column-major terms, which is trans_a 0 and trans_b 1
 * here (A m x k, B n x k, both with k contiguous: D = A B^T); n, k, lda,
 * ldb, ldc and the batch strides of A, B and C multiples of 4 (int8) or,
 * for e4m3fn, of 16 (n, k, lda, ldb, stride_a, stride_b: 16 bytes) and 4
 * (ldc, stride_c: 16 bytes of float32); e4m3fn also needs an SM 8.9 or
 * newer device. The cuda runtime refuses another form when the model
 * loads (GRAPHC_UNIMPLEMENTED, naming the requirement) and e4m3fn on an
 * older device when the session is created (GRAPHC_FAILED_PRECONDITION):
 * a GEMM has no generated kernel to fall back to, so the compiler emits a
 * library step only in that form and computes the others itself. */
typedef struct graphc_gemm_desc {
  int32_t trans_a;
  int32_t trans_b;
  int64_t m, n, k, batch;
  int64_t lda, ldb, ldc;
  int64_t stride_a, stride_b, stride_c;
  double alpha;
  double beta;
  int32_t epilogue; /* graphc_gemm_epilogue */
  int32_t dtype;
  int32_t compute_dtype;
  int32_t a_arg, b_arg, c_arg, bias_arg, d_arg;
  int32_t workspace_arg; /* the step's last argument */
  /* Which algorithm runs, by rank in the order the library's heuristic
   * returns them for this GEMM (0: its first choice), below
   * GRAPHC_MAX_ALGO_RANKS: what graphc tune measured fastest. A library
   * that offers fewer falls back to its first choice. */
  int32_t algo_rank;
  /* 1: float32 matrices whose A and B elements the products round to tf32
   * (10 mantissa bits, on tensor cores: --precision tf32); 0: exact
   * float32 products. */
  int32_t tf32;
  /* 0: the algorithm as the heuristic offers it; 2 to GRAPHC_MAX_SPLIT_K:
   * that algorithm with K split into this many parts, reduced by the first
   * scheme cuBLASLt accepts within the workspace (what graphc tune measured
   * fastest where the heuristic's tiles leave SMs idle). A library that
   * refuses it runs the algorithm unsplit. ABI v13 */
  int32_t split_k;
  /* 1: algo_rank and split_k come from a tuning database (graphc tune
   * measured them); 0: the heuristic's choice, which a session created
   * with GRAPHC_SESSION_TIME_LIBRARY_ALGORITHMS may time and replace. */
  int32_t tuned;
} graphc_gemm_desc;

/* The most spatial dims a library convolution has. */
#define GRAPHC_MAX_CONV_SPATIAL_DIMS 3

/* A grouped convolution (cross-correlation, as ONNX Conv) over 1 to
 * GRAPHC_MAX_CONV_SPATIAL_DIMS spatial dims, on dense row-major tensors,
 * library-neutral:
 *   Y = epilogue(conv(X, W) + bias + Z)
 * Channels first (channels_last 0): X is [n, c, in_size...], W
 * [k, c / groups, filter_size...], Y and Z [n, k, out_size...]. Channels
 * last (channels_last 1): X is [n, in_size..., c], W
 * [k, filter_size..., c / groups], Y and Z [n, out_size..., k]. The bias is
 * [k] (one per output channel) either way, with
 *   out_size[i] = (in_size[i] + pads_begin[i] + pads_end[i]
 *                  - dilations[i] * (filter_size[i] - 1) - 1) / strides[i] + 1
 * pads_begin and pads_end are the zeros before and after each spatial dim
 * of X. Entries past spatial_dims are 0. epilogue is NONE, RELU, SILU or
 * GELU_ERF. The *_arg fields index the step's arguments (-1: absent).
 * Elements are dtype
 * throughout; products and the epilogue compute in compute_dtype.
 *
 * 8-bit tensors, a combination of these fields that runtimes before it
 * refuse at load (no new field, no ABI change): dtype INT8 (3) with
 * compute_dtype INT32 (6). X and W are int8; Y is compute_dtype, the
 * accumulator written as it is: products summed exactly in int32 (two's
 * complement: a sum past its range wraps). No bias, no Z, epilogue NONE,
 * tf32 0, no epilogue kernel; the load-time check refuses any other 8-bit
 * combination. The cpu target computes it in either layout. cuDNN (cuda)
 * runs it only with channels_last 1 (cuDNN's int8 convolutions are NHWC),
 * c / groups and k multiples of 4, as X, W -> CONVOLUTION_FORWARD (INT32
 * compute) -> Y of CUDNN_DATA_INT32; the cuda runtime refuses another form
 * when the model loads (GRAPHC_UNIMPLEMENTED, naming the requirement), and
 * session creation fails (GRAPHC_FAILED_PRECONDITION) where cuDNN offers no
 * engine: nothing falls back, so the compiler emits a library step only in
 * that form. */
typedef struct graphc_conv_desc {
  int32_t spatial_dims;
  int64_t n, c, k, groups;
  int64_t in_size[GRAPHC_MAX_CONV_SPATIAL_DIMS];
  int64_t filter_size[GRAPHC_MAX_CONV_SPATIAL_DIMS];
  int64_t out_size[GRAPHC_MAX_CONV_SPATIAL_DIMS];
  int64_t pads_begin[GRAPHC_MAX_CONV_SPATIAL_DIMS];
  int64_t pads_end[GRAPHC_MAX_CONV_SPATIAL_DIMS];
  int64_t strides[GRAPHC_MAX_CONV_SPATIAL_DIMS];
  int64_t dilations[GRAPHC_MAX_CONV_SPATIAL_DIMS];
  int32_t epilogue; /* graphc_gemm_epilogue */
  int32_t dtype;
  int32_t compute_dtype;
  /* 1: float32 tensors whose X and W elements the products may round to
   * tf32 (--precision tf32); 0: exact float32 products. */
  int32_t tf32;
  int32_t x_arg, w_arg, bias_arg, z_arg, y_arg;
  int32_t workspace_arg; /* the step's last argument */
  /* Which engine configuration runs, by rank in the order the library's
   * heuristic returns them for this convolution (0: its first choice),
   * below GRAPHC_MAX_ALGO_RANKS. A library that offers fewer falls back to
   * its first choice. */
  int32_t engine_rank;
  /* cuda, 1 when bias, Z or the epilogue are present: the kernel also has
   * code, a generated kernel of the kernel's name in its unit that takes
   * the step's arguments but the workspace and finishes Y in place (adds
   * bias and Z, applies the epilogue to the convolution it finds in Y). The
   * runtime runs the convolution alone and then launches it, with these
   * launch dims, when the library fuses no engine for the whole of it.
   * 0 otherwise (and on cpu). */
  int32_t has_epilogue_kernel;
  uint32_t epilogue_grid[3];
  uint32_t epilogue_block[3];
  /* 1: every tensor but the bias has its channels last (NHWC, and W KRSC),
   * the layout cuDNN's tensor-core engines read without transposing. */
  int32_t channels_last;
  /* 1: engine_rank comes from a tuning database; 0: the heuristic's
   * choice (see graphc_gemm_desc.tuned). */
  int32_t tuned;
} graphc_conv_desc;

/* Scaled dot-product attention (cuDNN's SDPA; cuda only) on strided views
 * of its arguments, library-neutral. For b < batch, h < heads, i < queries,
 * with g = heads / kv_heads (grouped K/V heads):
 *   s[j] = scale * sum_d Q[b, h, i, d] K[b, h / g, j, d] + bias[b, h, i, j]
 *   O[b, h, i, :] = sum_j softmax(s)[j] V[b, h / g, j, :]
 * where is_causal drops every key j > i (top-left aligned). Q is
 * [batch, heads, queries, head_dim], K [batch, kv_heads, keys, head_dim],
 * V [batch, kv_heads, keys, value_dim], O [batch, heads, queries,
 * value_dim]; the optional additive bias is bias_dims, each entry the full
 * extent of its dim of [batch, heads, queries, keys] or 1 (broadcast), the
 * last always keys. Tensor T's element (i0, i1, i2, i3) lies at element
 * T_offset + sum_n i_n T_strides[n] of its argument (the last stride 1; a
 * stride of a dim of 1 is ignored): Q, K and V may be parts of one
 * projection's output, O the head merge of its consumer. Elements are dtype
 * (float16 or bfloat16) throughout; products, scores and the softmax
 * compute in compute_dtype (float32). The *_arg fields index the step's
 * arguments (-1: absent). On cuda the kernel always has code as well: the
 * generated attention kernel of its name in its unit, which takes the
 * step's arguments but the workspace and computes the same; the runtime
 * launches it (fallback_grid, fallback_block, fallback_shared_bytes of
 * dynamic shared memory) where cuDNN has no engine for the graph. */
typedef struct graphc_sdpa_desc {
  int64_t batch, heads, kv_heads, queries, keys, head_dim, value_dim;
  double scale;
  int32_t is_causal;
  int32_t dtype;
  int32_t compute_dtype;
  int32_t q_arg, k_arg, v_arg, bias_arg, o_arg;
  int32_t workspace_arg; /* the step's last argument */
  /* Which engine configuration runs, by rank in the order the library's
   * heuristic returns them (0: its first choice), below
   * GRAPHC_MAX_ALGO_RANKS. */
  int32_t engine_rank;
  int64_t q_offset, k_offset, v_offset, o_offset, bias_offset;
  int64_t q_strides[4], k_strides[4], v_strides[4], o_strides[4];
  int64_t bias_dims[4], bias_strides[4];
  uint32_t fallback_grid[3];
  uint32_t fallback_block[3];
  uint32_t fallback_shared_bytes;
} graphc_sdpa_desc;

/* cpu kernels take the resolved buffer pointers of their step; they return 0
 * on success, else non-zero with a lower-case message written into err:
 * GRAPHC_HOST_FN_BAD_VALUE when a value of the run's data is out of range
 * (an index, a sequence length, an axis read from a tensor; the runtime
 * reports GRAPHC_INVALID_ARGUMENT), anything else for other failures
 * (GRAPHC_INTERNAL). */
#define GRAPHC_HOST_FN_BAD_VALUE 2
typedef int (*graphc_host_fn)(void *const *args, char *err, uint64_t err_len);

typedef struct graphc_kernel_desc {
  const char *name;       /* symbol in the cuda images, or a readable name */
  const char *kind;       /* fusion kind: pointwise, reduction, matmul, ... */
  const char *onnx_nodes; /* comma-separated ONNX node names it covers */
  uint64_t content_hash;
  graphc_host_fn host_fn; /* cpu target only */
  /* The cost model of one launch (0 when unknown): arithmetic (a
   * multiply-add counts two), DRAM bytes of reading each input and writing
   * each output once, and the ONNX dtype the arithmetic runs in. */
  uint64_t flops;
  uint64_t bytes_read;
  uint64_t bytes_written;
  int32_t flop_dtype;
  /* graphc_library; for a library kernel, what it computes: gemm
   * (cuBLASLt), or conv or sdpa (cuDNN), the others NULL. Its steps are
   * GRAPHC_STEP_LIBRARY_CALL; it is in no image unless its conv has an
   * epilogue kernel or it is an sdpa (whose fallback kernel has code). */
  int32_t library;
  const graphc_gemm_desc *gemm;
  /* cuda, generated kernels (and cuDNN kernels with an epilogue kernel) of
   * a model with units: the module unit whose images hold its code, in
   * [0, num_units); ignored otherwise (the compiler writes -1). */
  int32_t unit;
  const graphc_conv_desc *conv;
  /* cuda: 1 when the kernel's code (a generated kernel, a conv's epilogue
   * kernel or an attention's fallback kernel) checks values read at run
   * time (indices, lengths, an axis) and reports them in the session's
   * error record; the runtime reads the record back only after plans that
   * launch such a kernel. ABI v11 */
  int32_t reports_errors;
  const graphc_sdpa_desc *sdpa; /* ABI v12 */
} graphc_kernel_desc;

/* How an image's bytes are to be loaded. */
typedef enum graphc_image_format {
  GRAPHC_IMAGE_CUBIN = 0, /* machine code for exactly one SM family */
  GRAPHC_IMAGE_PTX = 1,   /* NUL-terminated PTX, JIT-compiled for newer SMs */
  /* A host shared object built from the same CUDA source for graphc's CUDA
   * emulator (graphc compile --cuda-emulation); only a driver that emulates
   * CUDA on the host (the test driver) loads it. sm is 0. */
  GRAPHC_IMAGE_HOST_EMULATION = 2,
} graphc_image_format;

/* One loadable CUDA module image holding the kernels of one unit: a cubin
 * for one SM, PTX (sm == compute capability it was generated for, JIT for
 * newer), or a host emulation image. The generated kernels are split into
 * units, each compiled on its own (so that a compile cache keeps each
 * unit's images apart) and loaded as its own module; every unit has the
 * same set of images. */
typedef struct graphc_image_desc {
  int32_t sm; /* e.g. 80, 90 */
  int32_t format; /* graphc_image_format */
  const void *data;
  uint64_t size;
  int32_t unit; /* in [0, num_units) */
} graphc_image_desc;

/* One run plan (one bucket): the shapes it accepts (one dims array per input, outputs
 * likewise, all static), its arena size and its steps. */
typedef struct graphc_plan_desc {
  const char *name;
  const int64_t *const *input_dims;
  const int64_t *const *output_dims;
  uint64_t arena_bytes;
  uint64_t intermediate_bytes; /* sum of all intermediates, before reuse */
  int32_t num_steps;
  const graphc_step_desc *steps;
  /* Per output: NULL when it has no data-dependent dim, else rank refs: ref
   * d (kind ARENA, 8 bytes) holds the int64 extent a run found along dim d,
   * kind NONE for the other dims. The arena keeps it until the next run. */
  const graphc_buffer_ref *const *output_extents;
} graphc_plan_desc;

typedef struct graphc_model_desc {
  uint32_t abi_version; /* GRAPHC_ABI_VERSION */
  const char *producer; /* "graphc <version>" */
  int32_t target;       /* graphc_target */
  int32_t num_inputs;
  const graphc_tensor_desc *inputs;
  int32_t num_outputs;
  const graphc_tensor_desc *outputs;
  int32_t num_plans;
  const graphc_plan_desc *plans;
  int32_t num_kernels;
  const graphc_kernel_desc *kernels;
  int32_t num_images;
  const graphc_image_desc *images;
  /* Weights, one of: in the loaded image (weights); appended to the .so file
   * after its ELF image, at weights_offset (weights NULL, weights_file NULL);
   * in a side file named weights_file, relative to the .so (weights NULL). */
  const void *weights;
  uint64_t weights_size;
  const char *weights_file;
  /* LaneHash (lib/Support/LaneHash.h) of the whole .so file with these 8
   * bytes read as zero: written into the file after linking. */
  uint64_t checksum;
  /* LaneHash of the weights bytes; checked for a side file. */
  uint64_t weights_checksum;
  /* The bucketed dims, in name order; none for a model of one shape. */
  int32_t num_bucket_dims;
  const graphc_bucket_dim_desc *bucket_dims;
  /* The file offset of appended weights (a multiple of
   * GRAPHC_WEIGHTS_FILE_ALIGNMENT), 0 when they are not appended. The
   * compiler writes it into the file after linking, like the checksum; the
   * checksum covers the appended bytes. */
  uint64_t weights_offset;
  /* The module units of the generated kernels (see graphc_image_desc); 0
   * when there are none. */
  int32_t num_units;
} graphc_model_desc;

typedef const graphc_model_desc *(*graphc_model_descriptor_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHC_DESCRIPTOR_H */
