//===- CompileReport.h - what graphc compile says it wrote ------*- C++ -*-===//
//
// The summary a compile prints (kernels, steps, arena, weights; buckets,
// precision, tuning and cache lines) and the same as the fields of the JSON
// progress summary event. The pipeline gathers a CompileReport; these
// functions only format it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_PIPELINE_COMPILEREPORT_H
#define GRAPHC_LIB_PIPELINE_COMPILEREPORT_H

#include "lib/Pipeline/ChooseFp32Nodes.h"
#include "lib/Pipeline/Pipeline.h"
#include "lib/Support/Progress.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace graphc {

class CompileCache;

/// What was written: what memory planning saved, what the artifact holds.
struct CompileSummary {
  int64_t kernels = 0, cublasLtKernels = 0, cudnnKernels = 0, steps = 0,
          plans = 0, weightBytes = 0, arenaBytes = 0, intermediateBytes = 0,
          workspaceBytes = 0;
};

/// What the tuning database gave this compile.
struct TuningReport {
  bool used = false;
  int sm = 0, cudaMajor = 0;
  int64_t kernels = 0, tuned = 0, foreign = 0;
};

/// Everything the summary reports, gathered by the pipeline.
struct CompileReport {
  CompileSummary summary;
  llvm::ArrayRef<BucketedDim> buckets;
  const PrecisionReport &precision;
  const QuantizationReport &quantization;
  /// --keep-fp32 auto's search, when it ran.
  const Fp32Selection *autoKeep = nullptr;
  const TuningReport &tuning;
  /// The compile cache, when one was used.
  const CompileCache *cache = nullptr;
};

/// Counts what the exec IR of `module` holds.
CompileSummary summarize(mlir::ModuleOp module);

/// The summary lines `graphc compile` prints: "wrote OUT (...): N kernels,
/// ...", then the buckets, precision, tuning and cache lines that apply.
void printReport(const CompileReport &report, mlir::ModuleOp module,
                 const CompileOptions &options, llvm::raw_ostream &out);

/// The summary as the fields of the JSON progress summary event.
ProgressFields reportFields(const CompileReport &report,
                            const CompileOptions &options);

/// What graphc-form-quantized-regions did, in words: "74 linear ops on
/// 8-bit values (72 int8/uint8 products, 2 int8/uint8 convolutions); float:
/// 1 node with dequantized operands: 'MatMul_6' (the zero point is not a
/// constant zero)", the first three such nodes named; empty when no linear
/// op reads a dequantized operand. The compile summary's `quantized:` line
/// and `graphc check`'s.
std::string describeQuantization(const QuantizationReport &report);

/// The same as the `quantization` field of the JSON summary event and of
/// `graphc check --json`: the three counts and each float node's reason.
llvm::json::Object quantizationJson(const QuantizationReport &report);

} // namespace graphc

#endif // GRAPHC_LIB_PIPELINE_COMPILEREPORT_H
