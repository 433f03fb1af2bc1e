//===- PassPipeline.h - the compile pipeline's passes -----------*- C++ -*-===//
//
// The passes of `graphc compile` between import and codegen, as one table of
// stages run by mlir::PassManagers: one pass manager per phase. The pipeline
// stops between phases for the work that is no pass (--keep-fp32 auto's
// search, the --assume-pad-safe check, verification, the --emit stops).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_PIPELINE_PASSPIPELINE_H
#define GRAPHC_LIB_PIPELINE_PASSPIPELINE_H

#include "lib/Pipeline/Pipeline.h"
#include "passes/Passes.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace graphc {

/// The pass managers of a compile, in the order they run.
enum class Phase : unsigned {
  shapes = 1u << 0,    ///< --shape and --dim
  simplify = 1u << 1,  ///< the graph rewrites before bucketing
  buckets = 1u << 2,   ///< one function per bucket
  bucketed = 1u << 3,  ///< the rewrites again on each bucket, pad safety
                       ///< (only when there are bucketed dims)
  attention = 1u << 4, ///< attention and its projections
  precision = 1u << 5, ///< --precision, channels-last convolutions:
                       ///< --emit graph stops after it
  kernel = 1u << 6,    ///< fusion: --emit kernel stops after it
  exec = 1u << 7,      ///< memory planning and the exec lowering
  cost = 1u << 8,      ///< the kernels' cost model
};

/// What the stages read to decide whether they run and with which options,
/// and what the reporting passes hand back: they write through a pointer
/// given at construction (graphc-specialize-shape-buckets' dims,
/// graphc-convert-precision's report).
struct PipelineState {
  explicit PipelineState(const CompileOptions &options) : options(options) {}
  const CompileOptions &options;
  /// The nodes graphc-convert-precision keeps in float32: --keep-fp32's,
  /// and those --keep-fp32 auto chose that the rewrites left.
  std::vector<std::string> keepFp32;
  /// graphc-specialize-shape-buckets' dims (empty: @main is not bucketed).
  std::vector<BucketedDim> buckets;
  /// What graphc-convert-precision did.
  PrecisionReport precision;
  /// What graphc-form-quantized-regions did.
  QuantizationReport quantization;
};

/// How a compile's pass managers are instrumented: --print-ir-after,
/// --print-ir-after-failure and --crash-reproducer from `options`, pass
/// timing into `timing` (null: none).
struct PassInstruments {
  const CompileOptions *options = nullptr;
  mlir::TimingScope *timing = nullptr;
};

/// Runs the stages of `phase` that apply to `state` on `module` in one
/// pass manager. On failure `failure` is the failed stage's message (its
/// diagnostics went to the context).
mlir::LogicalResult runPhase(mlir::ModuleOp module, Phase phase,
                             PipelineState &state,
                             const PassInstruments &instruments,
                             std::string &failure);

/// The flags under which graphc prints a stage's IR (`--emit`, and IR
/// printing after passes): large constants elided, locations shown.
mlir::OpPrintingFlags stagePrintingFlags();

/// Refuses a --print-ir-after name that is neither `all` nor the argument
/// of a pass of the pipeline, listing those, and a --crash-reproducer file
/// in no directory (the pass manager would fail to write it, and say so
/// only in a note).
llvm::Error checkInstruments(const CompileOptions &options);

} // namespace graphc

#endif
