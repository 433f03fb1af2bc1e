//===- ExecOps.td - exec dialect ---------------------------*- tablegen -*-===//
//
// The exec dialect is the run plan of a compiled model: the kernel table, the
// weights with their offsets, the model signature, and one plan per shape
// bucket listing its steps over arena slots. It is what the .so descriptor
// serialises.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHC_EXEC_OPS_TD
#define GRAPHC_EXEC_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/SymbolInterfaces.td"

def Exec_Dialect : Dialect {
  let name = "exec";
  let cppNamespace = "::graphc::exec";
  let summary = "run plans: kernels, weights, arena slots and steps";
  // exec.kernel holds kernel.yield and the kernel dialect's fusion kind.
  let dependentDialects = ["::graphc::kernel::KernelDialect"];
  let usePropertiesForAttributes = 0;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  // What graphc-plan-memory tells graphc-lower-to-exec, on the kernel IR:
  // `exec.slots`, the slot of each result of a fusion or view (SlotAttrs);
  // `exec.workspace`, a library fusion's arena scratch; `exec.scratch`, a
  // splitting attention's partials and arrival counters (two SlotAttrs);
  // and on the planned function its `exec.arena_bytes`,
  // `exec.intermediate_bytes` and `exec.live_bytes_bound`. Read and written
  // through the dialect's helpers (getSlotsAttrHelper() & co.); the
  // dialect's verifier checks their element types.
  let discardableAttrs = (ins
    "::mlir::ArrayAttr":$slots,
    "::graphc::exec::SlotAttr":$workspace,
    "::mlir::ArrayAttr":$scratch,
    "::mlir::IntegerAttr":$arena_bytes,
    "::mlir::IntegerAttr":$intermediate_bytes,
    "::mlir::IntegerAttr":$live_bytes_bound);
}

def Exec_BufferKind : I32EnumAttr<"BufferKind", "where a buffer lives", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"arena", 1>,
    I32EnumAttrCase<"weights", 2>,
    I32EnumAttrCase<"input", 3>,
    I32EnumAttrCase<"output", 4>,
  ]> {
  let cppNamespace = "::graphc::exec";
  let genSpecializedAttr = 0;
}

def Exec_SlotAttr : AttrDef<Exec_Dialect, "Slot"> {
  let mnemonic = "slot";
  let summary = "a byte range in the arena, the weights, or a model input/output";
  let description = [{
    `#exec.slot<arena, 0, 256, 1024>`: kind, input/output index (0 for the
    others), byte offset and byte size. `#exec.slot<none, 0, 0, 0>` stands for
    an absent optional operand.
  }];
  let parameters = (ins "BufferKind":$kind, "int64_t":$index,
                        "int64_t":$offset, "int64_t":$size);
  let assemblyFormat = "`<` $kind `,` $index `,` $offset `,` $size `>`";
}

def Exec_StepResultAttr : AttrDef<Exec_Dialect, "StepResult"> {
  let mnemonic = "result";
  let summary = "a value a step writes, for tools that compare it";
  let description = [{
    `#exec.result<2, tensor<1x64xf16>, "y">`: the step's argument that
    holds it (an index into a launch's or library call's `args`, 1 for a
    copy's target), its static type, and the ONNX tensor whose elements it
    holds in the same order ("" when it holds none as written: a value a
    rewrite made, another layout). Its precision may be narrower than the
    model's (--precision), and its dims may be a view's of the tensor's.
    The descriptor's graphc_step_result_desc has the same meaning.
  }];
  let parameters = (ins "int64_t":$arg, "::mlir::RankedTensorType":$type,
                        StringRefParameter<"the ONNX tensor">:$onnx_tensor);
  let assemblyFormat = "`<` $arg `,` $type `,` $onnx_tensor `>`";
  let genVerifyDecl = 1;
}

def Exec_StepResultArrayAttr
    : TypedArrayAttrBase<Exec_StepResultAttr, "step result array">;

// The kernel dialect's schedule, referenced without re-generating it here.
def Exec_ScheduleAttr : Attr<
    CPred<"::llvm::isa<::graphc::kernel::ScheduleAttr>($_self)">,
    "kernel schedule"> {
  let storageType = "::graphc::kernel::ScheduleAttr";
  let returnType = "::graphc::kernel::ScheduleAttr";
  let convertFromStorage = "$_self";
}

// The kernel dialect's fusion kind, referenced without re-generating it here.
def Exec_FusionKindAttr : Attr<
    CPred<"::llvm::isa<::graphc::kernel::FusionKindAttr>($_self)">,
    "fusion kind"> {
  let storageType = "::graphc::kernel::FusionKindAttr";
  let returnType = "::graphc::kernel::FusionKind";
  let convertFromStorage = "$_self.getValue()";
}

// The kernel dialect's library, referenced without re-generating it here.
def Exec_LibraryAttr : Attr<
    CPred<"::llvm::isa<::graphc::kernel::LibraryAttr>($_self)">,
    "vendor library"> {
  let storageType = "::graphc::kernel::LibraryAttr";
  let returnType = "::graphc::kernel::Library";
  let convertFromStorage = "$_self.getValue()";
}

def Exec_GemmEpilogue : I32EnumAttr<"GemmEpilogue",
    "the activation a library GEMM or convolution applies last", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"relu", 1>,
    I32EnumAttrCase<"gelu_tanh", 2>,
    I32EnumAttrCase<"silu", 3>,
    I32EnumAttrCase<"gelu_erf", 4>,
  ]> {
  let cppNamespace = "::graphc::exec";
  let genSpecializedAttr = 0;
}

def Exec_F64Parameter : AttrParameter<"::llvm::APFloat", "a 64-bit float"> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::APFloat> {
    double value;
    if ($_parser.parseFloat(value))
      return ::mlir::failure();
    return ::llvm::APFloat(value);
  }() }];
  let printer = [{ $_printer.printFloat($_self) }];
  let comparator = [{ $_lhs.bitwiseIsEqual($_rhs) }];
}

def Exec_BoolParameter : AttrParameter<"bool", "true or false"> {
  let parser = [{ [&]() -> ::mlir::FailureOr<bool> {
    if (::mlir::succeeded($_parser.parseOptionalKeyword("true")))
      return true;
    if ($_parser.parseKeyword("false"))
      return ::mlir::failure();
    return false;
  }() }];
  let printer = [{ $_printer << ($_self ? "true" : "false") }];
}

def Exec_GemmAttr : AttrDef<Exec_Dialect, "Gemm"> {
  let mnemonic = "gemm";
  let summary = "a batched row-major GEMM, as a library step computes it";
  let description = [{
    For each batch index i < batch:
    `D_i = epilogue(alpha * op(A_i) op(B_i) + beta * C_i + bias)`, where
    op(A_i) is m x k, op(B_i) k x n, C_i and D_i m x n, and the bias has n
    elements (one per column). `lda`, `ldb`, `ldc` are the elements between
    stored rows; A_i starts `i * stride_a` elements into A (0: one matrix for
    every batch index), likewise B and C; D is dense. `a`, `b`, `c`, `bias`
    and `d` index the kernel's arguments (inputs, then its output; -1:
    absent). The runtime's graphc_gemm_desc has the same meaning.
  }];
  let parameters = (ins Exec_BoolParameter:$trans_a,
                        Exec_BoolParameter:$trans_b,
                        "int64_t":$m, "int64_t":$n, "int64_t":$k,
                        "int64_t":$batch,
                        "int64_t":$lda, "int64_t":$ldb, "int64_t":$ldc,
                        "int64_t":$stride_a, "int64_t":$stride_b,
                        "int64_t":$stride_c,
                        Exec_F64Parameter:$alpha, Exec_F64Parameter:$beta,
                        EnumParameter<Exec_GemmEpilogue>:$epilogue,
                        "int64_t":$a, "int64_t":$b, "int64_t":$c,
                        "int64_t":$bias, "int64_t":$d);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Exec_ConvAttr : AttrDef<Exec_Dialect, "Conv"> {
  let mnemonic = "conv";
  let summary = "a grouped NC[D]HW convolution, as a library step computes it";
  let description = [{
    `Y = epilogue(conv(X, W) + bias + Z)`: X is [n, c, in_size...], W
    [k, c / groups, filter_size...], Y and Z [n, k, out_size...] and the
    bias [k], all dense; with `channels_last` X is [n, in_size..., c], W
    [k, filter_size..., c / groups] and Y and Z [n, out_size..., k]. `pads_begin` and `pads_end` are the zeros before
    and after each spatial dim of X; `strides` and `dilations` one per
    spatial dim (1 to 3 of them). `x`, `w`, `bias`, `z` and `y` index the
    kernel's arguments (inputs, then its output; -1: absent). The runtime's
    graphc_conv_desc has the same meaning.
  }];
  let parameters = (ins "int64_t":$n, "int64_t":$c, "int64_t":$k,
                        "int64_t":$groups,
                        "::mlir::DenseI64ArrayAttr":$in_size,
                        "::mlir::DenseI64ArrayAttr":$filter_size,
                        "::mlir::DenseI64ArrayAttr":$out_size,
                        "::mlir::DenseI64ArrayAttr":$pads_begin,
                        "::mlir::DenseI64ArrayAttr":$pads_end,
                        "::mlir::DenseI64ArrayAttr":$strides,
                        "::mlir::DenseI64ArrayAttr":$dilations,
                        EnumParameter<Exec_GemmEpilogue>:$epilogue,
                        "int64_t":$x, "int64_t":$w, "int64_t":$bias,
                        "int64_t":$z, "int64_t":$y,
                        Exec_BoolParameter:$channels_last);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether the library adds a bias or Z or applies an activation after
    /// the convolution: what a generated epilogue kernel finishes in place
    /// when the library fuses none of it.
    bool hasEpilogue() const {
      return getBias() >= 0 || getZ() >= 0 ||
             getEpilogue() != GemmEpilogue::none;
    }
  }];
}

def Exec_SdpaAttr : AttrDef<Exec_Dialect, "Sdpa"> {
  let mnemonic = "sdpa";
  let summary = "scaled dot-product attention, as a library step computes it";
  let description = [{
    `O = softmax(scale * Q K^T + bias, causal) V` per batch and query head,
    query head h reading K/V head h / (heads / kv_heads). Q is
    [batch, heads, queries, head_dim], K [batch, kv_heads, keys, head_dim],
    V [batch, kv_heads, keys, value_dim], O [batch, heads, queries,
    value_dim], the optional bias `bias_dims` (each the full extent or 1);
    each lies at element `*_offset` of its kernel argument with `*_strides`
    (the last 1): the layout prologue and epilogue the attention kernel
    reads and writes in place. `q`, `k`, `v`, `bias` and `o` index the
    kernel's arguments (inputs, then its output; -1: absent). The runtime's
    graphc_sdpa_desc has the same meaning.
  }];
  let parameters = (ins "int64_t":$batch, "int64_t":$heads,
                        "int64_t":$kv_heads, "int64_t":$queries,
                        "int64_t":$keys, "int64_t":$head_dim,
                        "int64_t":$value_dim, Exec_F64Parameter:$scale,
                        Exec_BoolParameter:$is_causal,
                        "int64_t":$q, "int64_t":$k, "int64_t":$v,
                        "int64_t":$bias, "int64_t":$o,
                        "int64_t":$q_offset, "int64_t":$k_offset,
                        "int64_t":$v_offset, "int64_t":$o_offset,
                        "int64_t":$bias_offset,
                        "::mlir::DenseI64ArrayAttr":$q_strides,
                        "::mlir::DenseI64ArrayAttr":$k_strides,
                        "::mlir::DenseI64ArrayAttr":$v_strides,
                        "::mlir::DenseI64ArrayAttr":$o_strides,
                        "::mlir::DenseI64ArrayAttr":$bias_dims,
                        "::mlir::DenseI64ArrayAttr":$bias_strides);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

class Exec_Op<string mnemonic, list<Trait> traits = []>
    : Op<Exec_Dialect, mnemonic, traits>;

def Exec_KernelOp : Exec_Op<"kernel", [Symbol, IsolatedFromAbove,
    SingleBlockImplicitTerminator<"::graphc::kernel::YieldOp">]> {
  let summary = "one kernel of the kernel table";
  let description = [{
    The body of a fusion, outlined: its block arguments are the kernel's
    inputs (the fusion's deduplicated inputs, in order), its yield the
    outputs; a launch passes one slot per input, then one per output. Small
    constant inputs are copied into the body so that codegen sees their
    values; such a copy keeps the input it stands for in its
    `exec.argument` attribute, since the launch still passes that input.
    Identical fusions across buckets share one kernel. The kernel holds no
    launch: on the cuda target, CUDA codegen computes each generated
    kernel's grid, block, dynamic shared memory, module unit and whether it
    reports errors as its result, a launch table (lib/Codegen/LaunchTable.h)
    that the descriptor is written from and `graphc compile --emit
    launches` prints.

    The cost model (graphc-estimate-kernel-cost) sets what one launch costs:
    `flops` (arithmetic, a multiply-add counting two), `bytes_read` and
    `bytes_written` (the DRAM traffic of reading each input and writing each
    output once) and `flop_type` (the element type the arithmetic is done
    in, which picks the peak a roofline divides by).

    A kernel with a `library` is computed by that vendor library: `gemm`
    (cuBLASLt), or `conv` or `sdpa` (cuDNN) says what it computes, and it
    is reached by exec.library_call steps. Codegen generates no code for
    it, but for a cuda `conv` with an epilogue (bias, Z or an activation):
    a kernel of the same name and arguments that finishes Y in place, which
    the runtime launches (with the launch codegen computes for it) after the
    convolution alone where the library fuses no engine for the whole of
    it; and for an `sdpa`: the attention kernel of its body, which the
    runtime launches instead where cuDNN has no engine for it.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       Exec_FusionKindAttr:$kind,
                       StrAttr:$hash, Exec_ScheduleAttr:$schedule,
                       StrArrayAttr:$onnx_nodes,
                       OptionalAttr<I64Attr>:$flops,
                       OptionalAttr<I64Attr>:$bytes_read,
                       OptionalAttr<I64Attr>:$bytes_written,
                       OptionalAttr<TypeAttr>:$flop_type,
                       OptionalAttr<Exec_LibraryAttr>:$library,
                       OptionalAttr<Exec_GemmAttr>:$gemm,
                       OptionalAttr<Exec_ConvAttr>:$conv,
                       OptionalAttr<Exec_SdpaAttr>:$sdpa);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name $kind attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Exec_WeightOp : Exec_Op<"weight", [Symbol]> {
  let summary = "a constant placed in the weights blob";
  let arguments = (ins SymbolNameAttr:$sym_name, I64Attr:$offset,
                       ElementsAttr:$value);
  let assemblyFormat = "$sym_name `offset` $offset attr-dict";
}

def Exec_IOOp : Exec_Op<"io"> {
  let summary = "a model input or output";
  let description = [{
    `dims` holds the ONNX dim_param names per dim ("" when none; a bucketed
    dim without a dim_param is named INPUT.AXIS); the type may have dynamic
    dims that the plans resolve. `pad_value` is what an input is padded with
    along a pad-safe bucketed dim (0 unless --pad-value says otherwise).
    `data_dependent`, on an output, marks the dims the run sizes (dynamic
    in `type`; each plan's `output_extents` says where their extents lie).
  }];
  let arguments = (ins StrAttr:$name, BoolAttr:$is_output, I64Attr:$index,
                       TypeAttr:$type, StrArrayAttr:$dims,
                       DefaultValuedAttr<F64Attr, "0.0">:$pad_value,
                       OptionalAttr<DenseBoolArrayAttr>:$data_dependent);
  let assemblyFormat = "attr-dict";
}

def Exec_BucketDimOp : Exec_Op<"bucket_dim"> {
  let summary = "a dynamic input dim compiled for a list of sizes";
  let description = [{
    `name` is the ONNX dim_param (INPUT.AXIS for an unnamed dim) and `sizes`
    the buckets compiled for it; every plan fixes it to one of them. When
    `pad_safe`, a run whose size lies between buckets pads the inputs along
    the dim (with each input's pad value) up to the next bucket and slices
    the outputs back along `output_axes` (one per output, -1 where an output
    does not carry the dim); when also `splittable`, a size past the largest
    bucket runs as several runs. Otherwise `node` names the ONNX node that
    breaks padding and `reason` says why.
  }];
  let arguments = (ins StrAttr:$name, DenseI64ArrayAttr:$sizes,
                       BoolAttr:$pad_safe, BoolAttr:$splittable,
                       StrAttr:$node, StrAttr:$reason,
                       DenseI64ArrayAttr:$output_axes);
  let assemblyFormat = "$name attr-dict";
}

def Exec_PlanOp : Exec_Op<"plan", [Symbol, NoTerminator]> {
  let summary = "the ordered steps of one shape bucket";
  let description = [{
    `arena_bytes` is the size of the plan's arena, `intermediate_bytes` the
    sum of its intermediates without reuse (library workspaces left out),
    and `live_bytes_bound` (set by graphc-plan-memory) the most bytes of
    intermediates and workspaces live at once: the lower bound any
    placement in one arena has. `output_extents`, where an output has dims
    the run sizes, holds per output an array of one #exec.slot per dim: the
    arena slot of the i64 extent a run finds, #exec.slot<none, 0, 0, 0> for
    the other dims (an empty array for an output without such dims); the
    output types hold the bounds.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, I64Attr:$arena_bytes,
                       I64Attr:$intermediate_bytes,
                       TypeArrayAttr:$input_types, TypeArrayAttr:$output_types,
                       OptionalAttr<I64Attr>:$live_bytes_bound,
                       OptionalAttr<ArrayAttr>:$output_extents);
  let regions = (region SizedRegion<1>:$steps);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $steps";
}

def Exec_LaunchOp : Exec_Op<"launch", [HasParent<"PlanOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "run one kernel on the given slots (inputs, then outputs)";
  let description = [{
    `args` holds one slot per block argument of the kernel, then one per
    value it yields, each as large as that tensor; the verifier checks them
    against the kernel. Launch dimensions are a property of the
    (static-shape) kernel and are chosen by codegen, not stored per step.
    `scratch`, where present, follows them: arena slots the kernel uses
    during its step (a generated attention that splits its keys across
    blocks: its partials, then its arrival counters, which graphc-plan-memory
    places where the arena stays zero between steps). `results`, where
    present, lists what the step writes that a tool may compare: one
    #exec.result per output of the kernel, in order (graphc-lower-to-exec
    sets it; the descriptor lists none for a step without it).
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel,
                       TypedArrayAttrBase<Exec_SlotAttr, "slot array">:$args,
                       OptionalAttr<TypedArrayAttrBase<Exec_SlotAttr,
                                                       "slot array">>:$scratch,
                       OptionalAttr<Exec_StepResultArrayAttr>:$results);
  let assemblyFormat = "$kernel $args (`results` $results^)? attr-dict";
}

def Exec_LibraryCallOp : Exec_Op<"library_call", [HasParent<"PlanOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "run one library kernel on the given slots and workspace";
  let description = [{
    Like exec.launch, `args` holds one slot per input of the kernel, then
    one per output; the kernel must have a `library`, whose call reads its
    `gemm` or `conv`. `workspace` is the arena scratch the library may use during the
    call (`#exec.slot<none, 0, 0, 0>` when it gets none). `results` as on
    exec.launch.
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel,
                       TypedArrayAttrBase<Exec_SlotAttr, "slot array">:$args,
                       Exec_SlotAttr:$workspace,
                       OptionalAttr<Exec_StepResultArrayAttr>:$results);
  let assemblyFormat =
      "$kernel $args `workspace` $workspace (`results` $results^)? attr-dict";
}

def Exec_CopyOp : Exec_Op<"copy", [HasParent<"PlanOp">]> {
  let summary = "copy one slot into another of the same size";
  let description = [{
    `results`, where present, is the one #exec.result of the copy: its
    target (argument 1), of the type copied, as large as the slot.
  }];
  let arguments = (ins Exec_SlotAttr:$source, Exec_SlotAttr:$target,
                       OptionalAttr<Exec_StepResultArrayAttr>:$results);
  let assemblyFormat = "$source `to` $target (`results` $results^)? attr-dict";
  let hasVerifier = 1;
}

def Exec_LoopOp : Exec_Op<"loop", [HasParent<"PlanOp">]> {
  let summary = "run the next steps again and again (a graph.loop)";
  let description = [{
    The `body_steps` steps after this one are the loop's body (a nested
    loop's counted in); they run while the loop goes on, as the descriptor's
    GRAPHC_STEP_LOOP says: `trip_count` is the int64 trip count and
    `condition` the first condition (none: no trip count, true), `state`
    16 bytes of the arena holding the iteration number the body reads and
    whether another iteration runs, `body_condition` the bool the body
    computes (none: true). Copies at the body's end carry the loop-carried
    values into the slots the body reads them from. `node` names the ONNX
    Loop, for the error a run past `max_iterations` gets.
  }];
  let arguments = (ins Exec_SlotAttr:$trip_count, Exec_SlotAttr:$condition,
                       Exec_SlotAttr:$state, Exec_SlotAttr:$body_condition,
                       I64Attr:$body_steps, I64Attr:$max_iterations,
                       StrAttr:$node);
  let assemblyFormat = [{
    `trip_count` $trip_count `condition` $condition `state` $state
    `body_condition` $body_condition `body_steps` $body_steps
    `max_iterations` $max_iterations `node` $node attr-dict
  }];
  let hasVerifier = 1;
}

#endif // GRAPHC_EXEC_OPS_TD
