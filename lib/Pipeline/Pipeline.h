//===- Pipeline.h - the compile pipeline ------------------------*- C++ -*-===//
#ifndef GRAPHC_LIB_PIPELINE_PIPELINE_H
#define GRAPHC_LIB_PIPELINE_PIPELINE_H

#include "lib/Import/ONNX/ONNXImporter.h"
#include "lib/Pipeline/ChooseFp32Nodes.h"
#include "lib/Support/Precision.h"
#include "lib/Support/TuningDb.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class ModuleOp;
} // namespace mlir

namespace graphc {

class Progress;

enum class Target { cpu, cuda };

/// Where `graphc compile --emit` stops and what it prints.
enum class EmitStage {
  none,     ///< write the .so
  graph,    ///< graph dialect after shape specialisation and folding
  kernel,   ///< kernel dialect after fusion
  exec,     ///< exec dialect after memory planning
  launches, ///< cuda: each generated kernel's launch and module unit
  source,   ///< the generated C++ (cpu) or CUDA (cuda) source
};

/// Which work is left to vendor libraries (--libraries).
struct Libraries {
  /// Every library on the cuda target and none on cpu; otherwise those
  /// named below (on cpu, the runtime's reference kernels stand in).
  bool automatic = true;
  bool cublaslt = false; ///< GEMMs on cuBLASLt
  bool cudnn = false;    ///< convolutions on cuDNN
  bool cudnnSdpa = false; ///< attention on cuDNN's SDPA (cuda target only)
  /// A float16 or bfloat16 GEMM, bias and erf GELU (BERT's FFN1) as one
  /// cuDNN 1x1 convolution with GELU_FWD fused: opt-in, never automatic
  /// (slower than cuBLASLt and a GELU kernel on an H200, 2026-11-28).
  bool cudnnGelu = false;
};

/// Everything `graphc compile` takes.
struct CompileOptions {
  std::string inputPath;
  std::string outputPath;
  Target target = Target::cuda;
  /// The target came from no --target flag: the summary says so.
  bool targetIsDefault = false;
  /// SM versions to build cubins for (cuda), e.g. {80, 90}.
  std::vector<int> sms = {80, 90};
  /// cuda: compile the kernels for the host instead, as the one image of the
  /// artifact, for graphc's CUDA emulator (tests without a GPU).
  bool cudaEmulation = false;
  /// NAME=D1xD2x... full input shapes, SYMBOL=D dim_param sizes.
  std::vector<std::string> shapes;
  std::vector<std::string> dims;
  /// --const-input: inputs imported as constants (not inputs of the
  /// artifact), so that their values can determine shapes.
  std::vector<ConstantInput> constantInputs;
  /// --max-loop-iterations (ImportOptions::maxLoopIterations).
  int64_t maxLoopIterations = int64_t(1) << 20;
  /// DIM=V1,V2,... bucket sizes, DIM=N largest default bucket, INPUT=V
  /// pad values (see SpecializeShapeBuckets).
  std::vector<std::string> buckets;
  std::vector<std::string> maxDims;
  std::vector<std::string> padValues;
  /// Bucketed dims to treat as pad-safe where the analysis cannot prove
  /// it, after checking on the cpu reference (see CheckAssumedPadSafety).
  std::vector<std::string> assumePadSafe;
  /// One kernel per graph op (views stay views): the baseline that fusion's
  /// figures and A/B timings compare against.
  bool noFusion = false;
  /// cpu target: fused pointwise ops run as generated loops (EmitCpuLoops.h);
  /// false runs every op of a fusion through its host kernel, the reference,
  /// to A/B the loops or to bisect a wrong result.
  bool cpuLoops = true;
  Libraries libraries;
  /// Where convolutions are cuDNN calls, make chains of them channels last
  /// (graphc-convert-conv-layout); false keeps ONNX's channels first
  /// (--conv-layout nchw).
  bool channelsLastConvs = true;
  /// --precision: what float32 tensors become (see ConvertPrecision), and
  /// the precision tuning entries are looked up by.
  Precision precision = Precision::fp32;
  /// --io-precision: the element type of float32 inputs and outputs.
  Precision ioPrecision = Precision::fp32;
  /// --keep-fp32: ONNX nodes that compute in float32 under fp16 or bf16.
  std::vector<std::string> keepFp32;
  /// --keep-fp32 auto: also keep the nodes a comparison with float32 on
  /// the cpu reference picks (see ChooseFp32Nodes), on these
  /// --calibration-input values (random ones for the inputs not given).
  bool keepFp32Auto = false;
  std::vector<CalibrationInput> calibrationInputs;
  EmitStage emit = EmitStage::none;
  /// Weights in `<output>.weights` beside the .so instead of inside it.
  bool weightsSideFile = false;
  /// Keep generated sources and compiler outputs here (empty: temporary).
  /// It must be new or empty.
  std::string keepDir;
  /// Replace an existing regular file at the output paths even when it is
  /// not a graphc artifact (never the input model, never a non-regular
  /// file).
  bool force = false;
  /// The largest tensor (input, output, weight or intermediate) the compile
  /// accepts, in bytes; 0 for the target's default.
  uint64_t maxTensorBytes = 0;
  /// The compile cache (see CompileCache.h): off, or its directory (empty:
  /// CompileCache::defaultDirectory()) and size bound (0: the default).
  bool useCache = true;
  std::string cacheDir;
  uint64_t cacheMaxBytes = 0;
  /// cuda: the tuning database (`graphc tune`'s file, read by the caller)
  /// whose entries for the highest of `sms`, this CUDA major and precision give
  /// kernels their schedules (null: the heuristic schedule everywhere), and
  /// what the summary calls it.
  std::shared_ptr<const TuningDb> tuningDb;
  std::string tuningDbName;
  /// cuda: schedules by kernel content hash that take precedence over the
  /// tuning database (the candidates `graphc tune` measures).
  llvm::DenseMap<uint64_t, Schedule> scheduleOverrides;
  /// Where warnings go, one line each (nullptr: nowhere): a cache that
  /// cannot be used is one, never an error.
  llvm::raw_ostream *warnings = nullptr;
  /// --print-ir-after: the pass arguments (as in passes/Passes.td, or
  /// `all`) after which the IR goes to stderr.
  std::vector<std::string> printIrAfter;
  /// --print-ir-after-failure: the IR after a pass that failed, to stderr.
  bool printIrAfterFailure = false;
  /// --timing: MLIR's pass timing report on stderr.
  bool timing = false;
  /// --crash-reproducer: where a pass that fails or crashes leaves its
  /// input IR and itself as a pipeline graphc-opt runs (empty: nowhere).
  std::string crashReproducer;
  /// Where the stages are reported (nullptr: nowhere). compileModel
  /// finishes it before printing the summary, so that a terminal progress
  /// line is gone when the summary appears.
  Progress *progress = nullptr;
};

/// The default --max-tensor-bytes of each target: what fits in the host
/// memory of a typical inference machine (cpu) or a data-centre GPU (cuda).
constexpr uint64_t kDefaultMaxTensorBytesCpu = uint64_t(16) << 30;
constexpr uint64_t kDefaultMaxTensorBytesCuda = uint64_t(80) << 30;

/// Arena scratch per library call: what cuBLASLt's split-K and stream-K
/// algorithms on Hopper may ask for, and what cuDNN's implicit-GEMM
/// convolution engines need for all but the largest layers.
constexpr int64_t kLibraryWorkspaceBytes = int64_t(32) << 20;

/// Whether `options` hands GEMMs to cuBLASLt.
inline bool usesCublasLt(const CompileOptions &options) {
  return options.libraries.automatic ? options.target == Target::cuda
                                     : options.libraries.cublaslt;
}

/// Whether `options` hands convolutions to cuDNN.
inline bool usesCudnn(const CompileOptions &options) {
  return options.libraries.automatic ? options.target == Target::cuda
                                     : options.libraries.cudnn;
}

/// Attention on cuDNN's SDPA: the cuda target only, whose generated
/// attention kernel is its fallback (compileOptionsFromFlags refuses the
/// name on cpu).
inline bool usesCudnnSdpa(const CompileOptions &options) {
  return options.target == Target::cuda &&
         (options.libraries.automatic || options.libraries.cudnnSdpa);
}

/// The erf-GELU GEMMs as cuDNN convolutions: only when named (and cuDNN
/// computes convolutions).
inline bool usesCudnnGelu(const CompileOptions &options) {
  return options.libraries.cudnnGelu && usesCudnn(options);
}

/// The CUDA major version the cuda target's kernels are compiled with (that
/// of the NVRTC graphc loads), or 0 when unknown or without the cuda target.
int cudaCompileMajor();

/// Registers every dialect graphc's IR can hold.
void registerGraphcDialects(mlir::DialectRegistry &registry);

/// The graph rewrites before fusion, in order: quantized regions, shape
/// folding, exporter patterns, folds into linear ops (the pipeline's simplify
/// phase, see PassPipeline.h). They run on the model before bucketing and again
/// on every bucket. On failure `failedStage` says which failed (its diagnostics
/// went to the context).
bool simplifyGraph(mlir::ModuleOp module, std::string &failedStage);

/// Runs the whole pipeline. With an emit stage the IR or source of that stage
/// goes to `out` and nothing is written; otherwise the .so is written to
/// options.outputPath and a one-line summary goes to `out`. Errors name the
/// ONNX node, input or flag concerned.
llvm::Error compileModel(const CompileOptions &options, llvm::raw_ostream &out);

} // namespace graphc

#endif
