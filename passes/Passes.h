//===- Passes.h - graphc passes ---------------------------------*- C++ -*-===//
#ifndef GRAPHC_PASSES_PASSES_H
#define GRAPHC_PASSES_PASSES_H

#include "dialects/Exec/ExecOps.h"
#include "dialects/Kernel/KernelOps.h"
#include "lib/Support/Precision.h"
#include "lib/Support/TuningDb.h"
#include "passes/AnalyzePadSafety.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace graphc {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

/// Folds constants and shape computations in `module` and refines result
/// types until a fixed point, or for at most `maxIterations` rounds when it
/// is not 0 (0: an error when the graph has not settled after a bound its
/// size gives).
mlir::LogicalResult foldShapeComputations(mlir::ModuleOp module,
                                          unsigned maxIterations = 0);

/// Re-infers the result types of graph ops in `func`-like bodies of
/// `module`, keeping the more static of old and new. Returns whether any
/// type changed.
mlir::FailureOr<bool> refineResultTypes(mlir::ModuleOp module);

/// Replaces exporter decompositions of GELU, LayerNorm, RMSNorm and SiLU in
/// `module` by graph.gelu, graph.layer_normalization,
/// graph.rms_normalization and graph.silu.
mlir::LogicalResult recognizeExporterPatterns(mlir::ModuleOp module);

/// Replaces attention chains (MatMul, scale, mask, Softmax, MatMul) in
/// `module` by graph.attention.
mlir::LogicalResult recognizeAttention(mlir::ModuleOp module);

/// Merges the Q, K and V projections of each graph.attention in `module`
/// into one MatMul whose parts the attention reads in place (see
/// graphc-merge-projections).
void mergeProjections(mlir::ModuleOp module);

/// Folds per-channel affine followers (BatchNormalization, constant Mul and
/// Add) into the weights and bias of the linear ops they follow.
mlir::LogicalResult foldIntoLinearOps(mlir::ModuleOp module);

/// What graphc-convert-precision turns float32 tensors into.
struct PrecisionConversion {
  /// fp16 or bf16 narrow the model's float32 tensors; fp32 and tf32 keep
  /// them.
  Precision compute = Precision::fp32;
  /// The element type of the float32 inputs and outputs (fp32, fp16 or
  /// bf16).
  Precision io = Precision::fp32;
  /// ONNX node names whose ops compute in float32 whatever `compute` says.
  std::vector<std::string> keepFp32;
};

/// What graphc-convert-precision did.
struct PrecisionReport {
  /// ONNX nodes left in float32: named by --keep-fp32, or of ops with no
  /// narrow form.
  std::set<std::string> pinnedNodes, wideNodes;
  /// The float32 constants narrowed, in bytes, before and after.
  uint64_t weightBytesBefore = 0, weightBytesAfter = 0;
};

/// Stores the float32 tensors of every function of `module` in the
/// narrow type of `options.compute` (see graphc-convert-precision). Fails,
/// naming it, on a --keep-fp32 name no op carries.
mlir::FailureOr<PrecisionReport>
convertPrecision(mlir::ModuleOp module, const PrecisionConversion &options);

/// graphc-convert-precision that also writes what it did to `*report`, for
/// the compile pipeline's summary (the IREE way: a pass hands a result back
/// through a pointer given at construction).
std::unique_ptr<mlir::Pass>
createConvertPrecision(const ConvertPrecisionOptions &options,
                       PrecisionReport *report);

/// What graphc-form-quantized-regions did.
struct QuantizationReport {
  /// Linear ops now computed on their 8-bit values: products of 8-bit
  /// integers, of e4m3fn values, and integer convolutions.
  int64_t integerProducts = 0, float8Products = 0, integerConvs = 0;
  /// ONNX nodes of linear ops that read a dequantized operand but stay
  /// float, with the reason.
  std::map<std::string, std::string> floatNodes;
};

/// graphc-form-quantized-regions that also writes what it did to `*report`
/// (see createConvertPrecision).
std::unique_ptr<mlir::Pass>
createFormQuantizedRegions(QuantizationReport *report);

/// Fixes dynamic input dims of @main (see SpecializeShapes).
mlir::LogicalResult specializeShapes(mlir::ModuleOp module,
                                     llvm::ArrayRef<std::string> shapes,
                                     llvm::ArrayRef<std::string> dims);

/// The sizes compiled for one dynamic input dim.
struct BucketedDim {
  std::string name;            ///< dim_param, or INPUT.AXIS when unnamed
  llvm::SmallVector<int64_t> sizes; ///< ascending
  bool isDefault = false;      ///< no --buckets entry named it
};

/// Replaces @main by one static copy per combination of bucket sizes of its
/// dynamic input dims (see SpecializeShapeBuckets); returns the dims and
/// their sizes, empty when @main has no dynamic input dim.
mlir::FailureOr<std::vector<BucketedDim>>
specializeShapeBuckets(mlir::ModuleOp module,
                       llvm::ArrayRef<std::string> buckets,
                       llvm::ArrayRef<std::string> maxDims,
                       llvm::ArrayRef<std::string> padValues);

/// graphc-specialize-shape-buckets that writes the bucketed dims to
/// `*report`. Its `buckets` entries are whole (no re-joining of entries
/// that a textual pipeline split at commas).
std::unique_ptr<mlir::Pass>
createSpecializeShapeBuckets(const SpecializeShapeBucketsOptions &options,
                             std::vector<BucketedDim> *report);

/// The kernel template family of graph op `op`: its fusion kind when it
/// anchors a fusion (from the op's kind trait; layout for data movement).
kernel::FusionKind classifyOp(mlir::Operation *op);

/// Constants past this many elements are weights, read through their slot;
/// smaller ones (axes, starts, pads, scales, K) are copied into the kernels
/// reading them, which specialise on them. A larger splat is no weight: see
/// graphc-materialize-splats.
inline constexpr int64_t kMaxInlinedConstantElements = 1024;

/// Replaces large splat constants by one-element literals (pointwise
/// users) or run-time fills; see graphc-materialize-splats.
void materializeSplats(mlir::ModuleOp module);

/// Makes every concat of more than `maxInputs` inputs a tree of concats of
/// at most `maxInputs` inputs; see graphc-split-wide-concats.
void splitWideConcats(mlir::ModuleOp module, int64_t maxInputs);

/// Wraps graph ops of @main into kernel.fusion groups.
/// With `fuse` false every op is a fusion of its own.
mlir::LogicalResult formFusionGroups(mlir::ModuleOp module, bool fuse = true);

/// The content hash of a fusion body: 16 hex digits, independent of names
/// and locations.
std::string computeFusionHash(mlir::Region &body);
/// The content hash of the library call computing a fusion of hash
/// `fusionHash`: another kernel than the code generated for that body.
std::string libraryKernelHash(llvm::StringRef fusionHash);

/// A fusion before `builder`'s insertion point computing clones of
/// `members` (in order) and yielding `results`: its body has one argument
/// per value of `read` (the values the members read from outside them),
/// and the fusion takes `operands[i]` for `read[i]`. The hash is set.
kernel::FusionOp
buildFusion(mlir::OpBuilder &builder, mlir::Location loc,
            llvm::ArrayRef<mlir::Operation *> members, mlir::ValueRange results,
            llvm::ArrayRef<mlir::Value> read, mlir::ValueRange operands,
            kernel::FusionKind kind, llvm::StringRef name,
            kernel::ScheduleAttr schedule, kernel::LibraryAttr library);

/// "add_mul_relu": the distinct mnemonics of a fusion's ops in order, at
/// most four, so that the kernel name says what it computes.
std::string describeFusionOps(llvm::ArrayRef<mlir::Operation *> ops);

/// Makes chains of float16 and bfloat16 convolutions (and float32 ones with
/// `float32`, for --precision tf32) channels last where a chain's ends cost
/// at most one transpose per `convsPerTranspose` of its convolutions; see
/// graphc-convert-conv-layout.
mlir::LogicalResult convertConvLayout(mlir::ModuleOp module,
                                      double convsPerTranspose = 2.0,
                                      bool float32 = false);

/// The vendor libraries graphc-select-library-calls may hand work to.
struct LibrarySet {
  bool cublaslt = true; ///< GEMMs
  bool cudnn = true;    ///< convolutions
  bool cudnnSdpa = true; ///< attention (cuDNN's SDPA; cuda only)
  /// f16/bf16 GEMM + bias + erf GELU as a cuDNN 1x1 convolution (opt-in).
  bool cudnnGelu = false;
  /// e4m3fn GEMMs (graph.quantized_mat_mul) on cuBLASLt: every target SM
  /// has fp8 tensor cores (8.9 and later).
  bool float8 = true;
};

/// Hands the GEMM of every matmul fusion, the convolution of every conv
/// fusion and every attention fusion that a library in `libraries`
/// computes to it (cuBLASLt, cuDNN, cuDNN's SDPA),
/// with `workspaceBytes` of arena scratch per call; see
/// graphc-select-library-calls.
mlir::LogicalResult selectLibraryCalls(mlir::ModuleOp module,
                                       int64_t workspaceBytes,
                                       const LibrarySet &libraries);

/// Assigns arena offsets to @main's intermediates; with `attentionScratch`
/// (the cuda target), also to the scratch of attentions that split their
/// keys (see graphc-plan-memory).
mlir::LogicalResult planMemory(mlir::ModuleOp module,
                               bool attentionScratch = false);

/// Lowers planned @main into exec ops.
mlir::LogicalResult lowerToExec(mlir::ModuleOp module,
                                llvm::StringRef planName);

/// Sets flops, bytes_read, bytes_written and flop_type on every exec.kernel.
mlir::LogicalResult estimateKernelCost(mlir::ModuleOp module);

/// What graphc-apply-tuning did: how many kernels there are (generated and
/// library) and how many got a recorded schedule.
struct TuningApplied {
  int64_t kernels = 0, tuned = 0;
};

/// Gives every exec.kernel whose content hash is in `schedules` that
/// schedule (source "tuned"): a block size to a generated kernel, an
/// algorithm rank to a library call; see graphc-apply-tuning.
mlir::FailureOr<TuningApplied>
applyTuning(mlir::ModuleOp module,
            const llvm::DenseMap<uint64_t, Schedule> &schedules);

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace graphc

#endif
