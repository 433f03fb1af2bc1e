//===- KernelOps.td - kernel dialect -----------------------*- tablegen -*-===//
//
// The kernel dialect groups graph ops into the units that become one device
// kernel (or one library call) each.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHC_KERNEL_OPS_TD
#define GRAPHC_KERNEL_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Kernel_Dialect : Dialect {
  let name = "kernel";
  let cppNamespace = "::graphc::kernel";
  let summary = "fusion groups of graph ops, each one kernel";
  let description = [{
    A `kernel.fusion` holds the graph ops computed by one kernel. Its kind
    tells codegen which template family applies, its content hash identifies
    identical kernels across shape buckets (and keys the tuning database and
    the compile cache), and its schedule records the launch choices.
  }];
  let usePropertiesForAttributes = 0;
  let useDefaultAttributePrinterParser = 1;
}

def Kernel_FusionKind : I32EnumAttr<"FusionKind", "kind of a fusion group", [
    I32EnumAttrCase<"pointwise", 0>,
    I32EnumAttrCase<"reduction", 1>,
    I32EnumAttrCase<"matmul", 2>,
    I32EnumAttrCase<"conv", 3>,
    I32EnumAttrCase<"attention", 4>,
    I32EnumAttrCase<"layout", 5>,
  ]> {
  let cppNamespace = "::graphc::kernel";
  let genSpecializedAttr = 0;
}

def Kernel_FusionKindAttr : EnumAttr<Kernel_Dialect, Kernel_FusionKind, "kind">;

def Kernel_Library : I32EnumAttr<"Library", "vendor library computing a fusion", [
    I32EnumAttrCase<"cublaslt", 1>,
    I32EnumAttrCase<"cudnn", 2>,
  ]> {
  let cppNamespace = "::graphc::kernel";
  let genSpecializedAttr = 0;
}

def Kernel_LibraryAttr : EnumAttr<Kernel_Dialect, Kernel_Library, "library"> {
  let assemblyFormat = "`<` $value `>`";
}

def Kernel_ScheduleSource : I32EnumAttr<"ScheduleSource",
    "where a kernel's schedule comes from", [
    I32EnumAttrCase<"heuristic", 0>,
    I32EnumAttrCase<"tuned", 1>,
  ]> {
  let cppNamespace = "::graphc::kernel";
  let genSpecializedAttr = 0;
}

def Kernel_ScheduleAttr : AttrDef<Kernel_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "the launch choices of a kernel";
  let description = [{
    What codegen and the runtime do with a kernel beyond its body. Every
    knob is optional; an absent one leaves the choice to the code
    generator's or the library's heuristic.

    - `source`: `heuristic` (the default, not printed) or `tuned` (from a
      tuning database: the CUDA emitter keeps the launch as measured and
      the runtime keeps the library algorithm instead of timing others).
    - `block_size`: threads per block of grid-stride and per-row kernels,
      a multiple of 32 in [32, 1024].
    - `elements_per_thread`: elements each thread of a grid-stride loop
      takes, a power of two in [1, 64].
    - `tile`: the tiled matmul's output tile edge, 8, 16 or 32.
    - `rows_per_block`: rows a row kernel gives each block: 1, or a power
      of two in [2, 32] with `block_size` 32 times it (a warp per row).
    - `algo_rank`: which of the library heuristic's algorithms (engine
      configurations) a library call runs, in [0, 32).
    - `split_k`: the parts a cuBLASLt GEMM's K is split into, 0 or
      [2, 64].
    - `workspace_bytes`: the arena scratch a library call may use.

    Example: `#kernel.schedule<source = tuned, block_size = 128, tile = 32>`.
  }];
  let parameters = (ins
    DefaultValuedParameter<"ScheduleSource", "ScheduleSource::heuristic",
                           "where the schedule comes from">:$source,
    OptionalParameter<"std::optional<int64_t>">:$block_size,
    OptionalParameter<"std::optional<int64_t>">:$elements_per_thread,
    OptionalParameter<"std::optional<int64_t>">:$tile,
    OptionalParameter<"std::optional<int64_t>">:$rows_per_block,
    OptionalParameter<"std::optional<int64_t>">:$algo_rank,
    OptionalParameter<"std::optional<int64_t>">:$split_k,
    OptionalParameter<"std::optional<int64_t>">:$workspace_bytes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// This schedule with `workspace_bytes` set to `bytes`.
    ScheduleAttr withWorkspaceBytes(int64_t bytes) const;
    bool isTuned() const { return getSource() == ScheduleSource::tuned; }
  }];
}

def Kernel_FusionOp : Op<Kernel_Dialect, "fusion", [
    IsolatedFromAbove, Pure,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "graph ops computed by one kernel";
  let description = [{
    The region's block arguments are the fusion inputs; `kernel.yield`
    returns its results. Every tensor type inside is static once shapes are
    specialised. A fusion with a `library` is computed by that vendor
    library rather than by a generated kernel (graphc-select-library-calls
    sets it, and the `workspace_bytes` of its schedule). Example:
    ```mlir
    %0 = kernel.fusion "add_3" pointwise(%a, %b) {hash = "f1d2...",
        schedule = #kernel.schedule<block_size = 256>}
        : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
      %s = graph.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      kernel.yield %s : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, StrAttr:$name,
                       Kernel_FusionKindAttr:$kind, StrAttr:$hash,
                       Kernel_ScheduleAttr:$schedule,
                       OptionalAttr<Kernel_LibraryAttr>:$library);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $name $kind `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
    $body
  }];
  let hasVerifier = 1;
}

def Kernel_YieldOp : Op<Kernel_Dialect, "yield", [
    Pure, Terminator, ReturnLike]> {
  let summary = "results of a fusion or an outlined kernel";
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
  let builders = [OpBuilder<(ins), [{ /* no values */ }]>];
}

#endif // GRAPHC_KERNEL_OPS_TD
