//===- Passes.td - graphc passes ---------------------------*- tablegen -*-===//

#ifndef GRAPHC_PASSES_TD
#define GRAPHC_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Graph-level simplification
//===----------------------------------------------------------------------===//

def FormQuantizedRegions : Pass<"graphc-form-quantized-regions",
                                 "mlir::ModuleOp"> {
  let summary = "compute dequantized linear ops on their 8-bit values";
  let description = [{
    A graph.mat_mul, graph.gemm or graph.conv whose operands are both
    dequantized (graph.dequantize_linear of int8/uint8 with a constant zero
    point of zeros, or the importer's mul of a cast of float8 e4m3fn) with
    constant scales, the activation's per tensor and the weight's per tensor
    or per output column / channel, becomes a graph.quantized_mat_mul
    (B as [N, K], trans_b = 1; a constant weight transposed here) or
    graph.quantized_conv of the stored values, a cast of its accumulator to
    f32, a multiply by the product of the scales (one constant per column /
    channel; a gemm's alpha folded in), then the op's bias, beta * C and a
    cast to its result type. A linear op with a dequantized operand that
    does not qualify keeps its float form; the compile report names its
    node and why. A graph.quantize_linear of a
    graph.dequantize_linear with the same constant scale and zero point is
    replaced by the stored value; first, data movement (gather, reshape,
    transpose, squeeze, unsqueeze, flatten) of a tensor dequantized per
    tensor moves the stored values and dequantizes after (embedding tables
    stay 8-bit; the QuantizeLinear after such an op then cancels). Runs
    before any folding: the importer
    leaves the dequantization of constants to it.
  }];
}

def FoldShapeComputations : Pass<"graphc-fold-shape-computations",
                                 "mlir::ModuleOp"> {
  let summary = "fold constants and shape sub-graphs, refine result types";
  let description = [{
    Alternates folding (every graph op with constant operands is evaluated
    with the host kernels; Shape and Size of static tensors become
    constants) with re-inference of result types, until neither changes
    anything. Shape -> Gather -> Concat -> Reshape chains over static dims
    fold away; function result types follow their refined values.
  }];
  let options = [
    Option<"maxIterations", "max-iterations", "unsigned", "0",
           "upper bound on fold/refine rounds (0: until nothing changes)">,
  ];
}

def RecognizeExporterPatterns : Pass<"graphc-recognize-exporter-patterns",
                                     "mlir::ModuleOp"> {
  let summary = "turn exporter decompositions of GELU, LayerNorm, RMSNorm "
                "and SiLU into ops";
  let description = [{
    torch.onnx writes GELU as x * 0.5 * (1 + erf(x / sqrt(2))) (or its tanh
    approximation), LayerNorm as ReduceMean, Sub, Pow, ReduceMean, Add,
    Sqrt, Div, Mul, Add, RMSNorm as Pow, ReduceMean, Add, Sqrt, Reciprocal,
    Mul, Mul, and SiLU as x * Sigmoid(x). Each such chain whose intermediate
    values have no other use becomes one graph.gelu,
    graph.layer_normalization, graph.rms_normalization or graph.silu;
    constants must match to 1e-6 relative (or the rounding error of f16 and
    bf16).
  }];
}

def RecognizeAttention : Pass<"graphc-recognize-attention", "mlir::ModuleOp"> {
  let summary = "turn exporter attention chains into graph.attention";
  let description = [{
    MatMul(Q, K^T), an optional scale by a scalar constant, an optional
    additive mask, a last-axis Softmax, torch's optional NaN guard
    (Where(IsNaN(p), 0, p)) and MatMul(P, V), over 4-d [batch, heads, seq,
    head size] operands whose intermediates have no other use, become one
    graph.attention reading K (K^T's transpose, or the tensor torch.export's
    reshape/transpose/reshape sandwich started from). Repeated K/V heads
    (Llama's repeat_kv) become grouped heads, and a constant causal mask
    (0 on and below the diagonal, -inf or the lowest float above it)
    becomes is_causal. The pipeline runs it after pad-safety analysis and
    before fusion, and not under --no-fusion.
  }];
}

def MergeProjections : Pass<"graphc-merge-projections", "mlir::ModuleOp"> {
  let summary = "one GEMM for the Q, K and V projections of an attention";
  let description = [{
    Two or three graph.attention operands that are head splits (a view
    Reshape [.., N] -> [.., H, D], then a Transpose) of MatMuls of one input
    by constant 2-d weights, each with an optional Add of a constant [N]
    bias, become one MatMul by the weights side by side (and one Add of the
    biases side by side), a view Reshape to [.., H1+H2+.., D] and a Split
    along the heads that the transposes read. A Split along the last axis
    whose parts are all head splits of one attention (GPT-2's c_attn) is
    rewritten to reshape first and split along the heads; Gathers of every
    index of one tensor along one axis (nn.MultiheadAttention's unbind)
    become one Split; a transpose of the leading dims of a projection's input
    moves past the projection into the attention's layout prologue. The split and the
    transposes are layout prologues of the attention, whose kernel reads
    Q, K and V in place. The pipeline runs it after attention recognition
    and before precision conversion, and not under --no-fusion.
  }];
}

def FoldIntoLinearOps : Pass<"graphc-fold-into-linear-ops", "mlir::ModuleOp"> {
  let summary = "fold BatchNormalization and constant Mul/Add into weights";
  let description = [{
    An inference-mode BatchNormalization after a Conv or ConvTranspose, and
    a Mul by or an Add of a per-output-channel (or scalar) constant after a
    Conv, ConvTranspose, Gemm or MatMul, is folded into the linear op's
    constant weights and bias (a MatMul with matrix operands becomes a Gemm
    to take a bias). The linear op must have no other user; new constants
    are computed in double and rounded once to the tensor's element type.
    A MatMul operand scaled by a scalar constant (and used there only) loses
    the scale to a Mul after the MatMul, which folds or fuses there.
  }];
}

def ConvertPrecision : Pass<"graphc-convert-precision", "mlir::ModuleOp"> {
  let summary = "store float32 tensors in fp16 or bf16 (--precision)";
  let description = [{
    Rounds float32 constants to the narrow type once (finite values beyond
    its range to its largest finite value) and narrows the float32 results
    of every op whose type inference accepts narrow operands; kernels keep
    accumulating in float. Ops named by keep-fp32 (by their ONNX node or a
    node folded into them), Range, and ops whose result type an attribute
    fixes stay float32 with casts around them; Resize's scales and roi,
    GridSample's grid and RoiAlign's rois stay float32. Inputs and outputs keep float32 unless io-precision names
    another type, which then becomes the function's signature.
  }];
  let options = [
    Option<"precision", "precision", "std::string", "\"fp16\"",
           "fp32, tf32, fp16 or bf16">,
    Option<"ioPrecision", "io-precision", "std::string", "\"fp32\"",
           "the element type of float32 inputs and outputs: fp32, fp16 "
           "or bf16">,
    ListOption<"keepFp32", "keep-fp32", "std::string",
               "ONNX nodes that compute in float32">,
  ];
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

def SpecializeShapes : Pass<"graphc-specialize-shapes", "mlir::ModuleOp"> {
  let summary = "fix the dynamic dims of @main's inputs to given sizes";
  let description = [{
    Each `shapes` entry `NAME=D1xD2x...` gives the full shape of input NAME;
    each `dims` entry `SYMBOL=D` gives the size of every input dim named by
    the ONNX dim_param SYMBOL. Given sizes must agree with static dims.
    Run graphc-fold-shape-computations afterwards to propagate them.
  }];
  let options = [
    ListOption<"shapes", "shapes", "std::string",
               "input shapes as NAME=D1xD2x...">,
    ListOption<"dims", "dims", "std::string",
               "dim_param sizes as SYMBOL=D">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def SpecializeShapeBuckets : Pass<"graphc-specialize-shape-buckets",
                                  "mlir::ModuleOp"> {
  let summary = "one static copy of @main per combination of bucket sizes";
  let description = [{
    Every dynamic dim of @main's inputs (named by its ONNX dim_param, or
    INPUT.AXIS when unnamed) gets a list of sizes: a `buckets` entry
    `DIM=V1,V2,...`, else the powers of two from 1 up to its `max-dims`
    entry `DIM=N` (N itself included), else up to 64. @main is replaced by
    one function per combination of sizes, `@bucket_<i>`, with static input
    types and the attributes graph.bucket (the sizes), graph.plan_name
    ("batch=8,seq=128") and graph.signature (the dynamic signature). An
    unnamed bucketed dim is named INPUT.AXIS in its input's graph.dims.
    `pad-values` entries `INPUT=V` set an input's graph.pad_value. Run
    graphc-fold-shape-computations afterwards: every shape sub-graph then
    folds.
  }];
  let options = [
    ListOption<"buckets", "buckets", "std::string",
               "bucket sizes as DIM=V1,V2,...">,
    ListOption<"maxDims", "max-dims", "std::string",
               "largest default bucket as DIM=N">,
    ListOption<"padValues", "pad-values", "std::string",
               "pad value of an input as INPUT=V">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def BoundDataDependentExtents
    : Pass<"graphc-bound-data-dependent-extents", "mlir::ModuleOp"> {
  let summary = "give the dims the run decides their bound, and follow their extents";
  let description = [{
    After bucketing, the dims still dynamic are those data-dependent ops
    (NonZero, Compress, ...) size at run time and what is computed from
    them. Each gets the bound its op declares (getExtentBound), so every
    type is static and buffers are planned for the bound; its run-time
    extent, the op's i64 count result, follows the value through consumers
    that compute the leading corner right whatever the padding holds
    (pointwise ops, transposes, views that keep the corner in place,
    gathers, slices and concats off the dim). `graph.shape` of such a value
    becomes run-time arithmetic on the extents. Any other consumer is
    refused naming its node. A graph.output_extents before the return
    lists the results' extents.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def AnalyzePadSafety : Pass<"graphc-analyze-pad-safety", "mlir::ModuleOp"> {
  let summary = "prove which dynamic dims a bucket may pad and slice back";
  let description = [{
    Runs on functions specialised to one bucket (static shapes). For every
    name in the args' `graph.dims`, decides whether padding the inputs
    along that dim (with each arg's `graph.pad_value`, or 0) and slicing
    the outputs back gives exactly the unpadded results, and records it in
    the func attribute `graph.pad_safety`: dim -> {safe, splittable, node,
    reason, inputs, outputs}, with the first offending ONNX node and why,
    and per argument and result the axis carrying the dim (-1: none).

    Per value it tracks which axes carry the dim and what their padded
    region (slab) holds: a constant (zero), a mask (<= -1e4), unknown
    finite values, or anything. Pointwise ops carry it by numpy
    broadcasting and compute the slab (x * 0 = 0; scores + (1 - mask) *
    -1e4 is a mask). Over a padded axis, a sum, sum of squares, l1/l2 norm
    or contraction (MatMul, Gemm, a conv's channels) needs a zero slab, a
    max, log-sum-exp or softmax a masked one; a mean, min, product, arg
    max/min, normalisation, convolution or pooling window, gather (but a
    GatherND over the grid of all positions), slice, split, concat, pad,
    cumulative sum or top-k along it is unsafe, and so is every op not
    analysed. Reshapes map the dim through groups of axes with equal
    element counts: merged with inner axes it stays a suffix, merged with
    outer ones it is interleaved, which row-wise ops accept and a reshape
    may split back. An output must carry the dim on one plain
    axis. `splittable`: safe, and no op mixes positions along the dim.
  }];
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def MaterializeSplats : Pass<"graphc-materialize-splats", "mlir::ModuleOp"> {
  let summary = "read large splat constants as literals or run-time fills";
  let description = [{
    A constant of more than 1024 elements that are all equal is not stored
    as weights. A pointwise user that broadcasts a one-element constant to
    the same result reads that instead (a literal in its kernel); any other
    user reads a `graph.expand` of the one element to the constant's
    shape, computed at run time. Runs after the last folding.
  }];
}

def SplitWideConcats : Pass<"graphc-split-wide-concats", "mlir::ModuleOp"> {
  let summary = "make concats of many inputs a tree of narrower ones";
  let description = [{
    A concat of more than `max-inputs` inputs (static along its axis)
    becomes a tree of concats of at most `max-inputs` consecutive inputs
    each, computing the same tensor: a CUDA kernel takes one pointer per
    input, and the concat template tests each input's range per element.
    The cuda target runs it.
  }];
  let options = [
    Option<"maxInputs", "max-inputs", "int64_t", "64",
           "inputs per concat">,
  ];
}

def FormFusionGroups : Pass<"graphc-form-fusion-groups", "mlir::ModuleOp"> {
  let summary = "wrap graph ops of @main into kernel.fusion groups";
  let description = [{
    Every graph op except constants becomes part of a `kernel.fusion` with
    a kind, a content hash over its body and a default schedule. Pointwise
    ops (the graph Pointwise trait) form producer -> consumer chains: a
    producer joins its consumers' fusion when all its users are in it, and a
    fusion reads at most 16 distinct values. Every other op is a fusion of
    its own. Requires static shapes: a dynamic dim left in @main is reported
    with the input and the flag that fixes it. With `fuse=false` every op is
    a fusion of its own (graphc compile --no-fusion).
  }];
  let options = [
    Option<"fuse", "fuse", "bool", "true",
           "group ops (false: one fusion per op)">,
  ];
  let dependentDialects = ["::graphc::kernel::KernelDialect"];
}

def ConvertConvLayout : Pass<"graphc-convert-conv-layout", "mlir::ModuleOp"> {
  let summary = "make chains of cuDNN convolutions channels last (NHWC)";
  let description = [{
    Runs where convolutions are cuDNN calls. The float16 and bfloat16
    convolutions a library computes (and float32 ones with `float32`, under
    --precision tf32: tensor cores' types) that are joined by pointwise ops (ReLU, residual adds, casts)
    form a chain; a chain whose ends cost at most one transpose per
    `convs-per-transpose` convolutions becomes channels last: each conv
    gets `channels_last = 1` and its weight moved to [M, k..., C/group] at
    compile time, and the transposes between its convolutions move through
    the pointwise ops and cancel, so only the chain's ends transpose.
  }];
  let options = [
    Option<"convsPerTranspose", "convs-per-transpose", "double", "2.0",
           "convolutions a chain must have per transpose its ends cost">,
    Option<"float32", "float32", "bool", "false",
           "float32 convolutions take part (their products round to tf32)">,
  ];
}

def SelectLibraryCalls : Pass<"graphc-select-library-calls",
                              "mlir::ModuleOp"> {
  let summary = "hand GEMMs to cuBLASLt and convolutions to cuDNN";
  let description = [{
    A matmul fusion whose mat_mul or gemm has f32, f16 or bf16 operands,
    transposes only of its last two dims and batch dims that one stride per
    operand covers gets `library = cublaslt`, with the longest epilogue the
    library fuses: adds of a bias per column and of a same-shaped residual
    (beta * C), then ReLU or the tanh GELU. A conv fusion whose static
    graph.conv has f32, f16 or bf16 operands and 1 to 3 spatial dims gets
    `library = cudnn`, with its bias, the add of a same-shaped residual and
    a ReLU, SiLU or erf GELU after it. With both libraries, a matmul fusion
    whose GEMM (A dense, B a 2-d constant) has an erf GELU after its bias
    and residual, which cuBLASLt cannot fuse, becomes a cuDNN 1x1
    convolution with the GELU fused instead: X [M, K, 1, 1] and Y
    [M, N, 1, 1] are views of A and the result, W [N, K, 1, 1] B transposed
    at compile time (f16 and bf16 channels last: the same bytes). An
    attention fusion in f16 or bf16 that cuDNN's SDPA computes (see
    LibrarySdpa.h) gets `library = cudnn` whole: its generated kernel stays
    its fallback. The rest of the fusion's epilogue becomes a fusion of its
    own that reads the library's result. The schedule of a library fusion
    holds the arena `workspace_bytes` the call may use.
  }];
  let options = [
    Option<"workspaceBytes", "workspace-bytes", "int64_t", "33554432",
           "arena scratch per library call">,
    Option<"cublaslt", "cublaslt", "bool", "true",
           "hand GEMMs to cuBLASLt">,
    Option<"cudnn", "cudnn", "bool", "true",
           "hand convolutions to cuDNN">,
    Option<"cudnnSdpa", "cudnn-sdpa", "bool", "true",
           "hand attention to cuDNN's SDPA (cuda only: the attention kernel "
           "stays as its fallback)">,
    Option<"cudnnGelu", "cudnn-gelu", "bool", "false",
           "hand an f16/bf16 GEMM with bias and erf GELU to cuDNN as a 1x1 "
           "convolution with GELU_FWD fused (needs cudnn)">,
    Option<"float8", "float8", "bool", "true",
           "hand e4m3fn GEMMs to cuBLASLt (every target SM is 8.9 or "
           "later)">,
  ];
  let dependentDialects = ["::graphc::kernel::KernelDialect"];
}

//===----------------------------------------------------------------------===//
// Execution planning
//===----------------------------------------------------------------------===//

def PlanMemory : Pass<"graphc-plan-memory", "mlir::ModuleOp"> {
  let summary = "assign arena offsets to intermediates by liveness";
  let description = [{
    Gives every intermediate tensor of @main a lifetime (from the step
    computing it to its last read, views' reads included) and places all of
    them in one arena at once, greedy by size (the largest first, each at the
    lowest offset clear of the placed tensors it overlaps in time; 256-byte
    aligned). Results land in `exec.slots` attributes on the fusions and
    `exec.arena_bytes`, `exec.intermediate_bytes` and
    `exec.live_bytes_bound` (the most bytes live at one step) on @main.
    With `attention-scratch` (the cuda target), an attention fusion that may
    split its keys across blocks (flash-decoding) gets `exec.scratch`: its
    partials (live for its step) and its arrival counters, which lie in a
    prefix of the arena that every plan leaves to them (the runtime zeroes
    the arena once; the kernels leave their counters zero).
  }];
  let options = [
    Option<"attentionScratch", "attention-scratch", "bool", "false",
           "plan the scratch of generated cuda attentions that split keys">,
  ];
  let dependentDialects = ["::graphc::exec::ExecDialect"];
}

def LowerToExec : Pass<"graphc-lower-to-exec", "mlir::ModuleOp"> {
  let summary = "turn planned @main into the exec run plan";
  let description = [{
    Outlines fusion bodies into `exec.kernel`s (one per content hash),
    constants into `exec.weight`s with blob offsets, the signature into
    `exec.io`, and the ordered launches and copies into an `exec.plan`.
  }];
  let options = [
    Option<"planName", "plan-name", "std::string", "\"static\"",
           "name of the plan">,
  ];
  let dependentDialects = ["::graphc::exec::ExecDialect"];
}

def EstimateKernelCost : Pass<"graphc-estimate-kernel-cost",
                              "mlir::ModuleOp"> {
  let summary = "set each exec.kernel's flops and DRAM bytes per launch";
  let description = [{
    The cost model that `graphc inspect` turns into a roofline estimate and
    that autotuning starts from. A kernel's bytes are its inputs read once
    and its outputs written once (what a fused kernel must move at least);
    its flops add up its ops: two per multiply-add in contractions and
    convolutions, a few per element in normalisations, one per element in
    pointwise ops and reductions, none in data movement.
  }];
  let dependentDialects = ["::graphc::exec::ExecDialect"];
}

def ApplyTuning : Pass<"graphc-apply-tuning", "mlir::ModuleOp"> {
  let summary = "give exec.kernels the schedules a tuning database recorded";
  let description = [{
    Replaces the heuristic schedule of every exec.kernel whose content hash
    has an entry in the tuning database (`graphc tune`'s file) for this
    compile's SM, CUDA major and precision by the recorded one, marked
    `source = tuned`: `block_size` for a generated kernel, `algo_rank`
    (which of cuBLASLt's heuristic choices runs) for a library call.
    Entries for other GPUs, toolkits or precisions are counted and left;
    malformed or stale entries were dropped when the file was read, with a
    warning each.
  }];
  let options = [
    Option<"databasePath", "db", "std::string", "",
           "the tuning database (JSON)">,
    Option<"sm", "sm", "int", "90", "the SM the compile tunes for">,
    Option<"cudaMajor", "cuda-major", "int", "13",
           "the CUDA major version kernels are compiled with">,
    Option<"precision", "precision", "std::string", "\"fp32\"",
           "the compile's precision">,
  ];
  let dependentDialects = ["::graphc::exec::ExecDialect"];
}

#endif // GRAPHC_PASSES_TD
