//===- PassPipeline.cpp - the compile pipeline's passes -------------------===//

#include "lib/Pipeline/PassPipeline.h"

#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;

namespace graphc {

namespace {

/// One pass of the pipeline: the phases whose pass manager runs it, when
/// it applies, how to make it with its options, and the error when it
/// fails.
struct Stage {
  unsigned phases;
  bool (*applies)(const PipelineState &);
  std::unique_ptr<Pass> (*create)(PipelineState &);
  const char *failure;
};

constexpr unsigned in(Phase phase) { return static_cast<unsigned>(phase); }

bool always(const PipelineState &) { return true; }
bool fusing(const PipelineState &state) { return !state.options.noFusion; }

/// Inputs per concat on cuda: few pointers per kernel and few range tests
/// per element.
constexpr int64_t kMaxCudaConcatInputs = 64;

/// The pipeline, in order. A phase runs its stages in this order.
const Stage kStages[] = {
    {in(Phase::shapes), always,
     [](PipelineState &state) {
       return createSpecializeShapes(
           {state.options.shapes, state.options.dims});
     },
     "cannot apply the given shapes"},
    // Quantized linear ops first, while the weights' dequantizations are
    // still ops (the importer leaves them; folding would make them float).
    {in(Phase::simplify), always,
     [](PipelineState &state) {
       return createFormQuantizedRegions(&state.quantization);
     },
     "forming quantized regions failed"},
    // The graph rewrites before fusion: on the model before bucketing and
    // again on every bucket, whose static shapes fold shape sub-graphs and
    // show patterns that needed them.
    {in(Phase::simplify) | in(Phase::bucketed), always,
     [](PipelineState &) { return createFoldShapeComputations(); },
     "shape folding failed"},
    {in(Phase::simplify) | in(Phase::bucketed), always,
     [](PipelineState &) { return createRecognizeExporterPatterns(); },
     "recognising exporter patterns failed"},
    {in(Phase::simplify) | in(Phase::bucketed), always,
     [](PipelineState &) { return createFoldIntoLinearOps(); },
     "folding into linear ops failed"},
    {in(Phase::buckets), always,
     [](PipelineState &state) {
       return createSpecializeShapeBuckets({state.options.buckets,
                                            state.options.maxDims,
                                            state.options.padValues},
                                           &state.buckets);
     },
     "cannot apply the given buckets"},
    // Every dim is static per bucket now but those data-dependent ops size
    // at run time: they get their bounds, and their consumers the extents
    // (a model without buckets: first thing after bucketing, below).
    {in(Phase::bucketed), always,
     [](PipelineState &) { return createBoundDataDependentExtents(); },
     "bounding data-dependent extents failed"},
    // Whether a run may pad along each bucketed dim, per bucket: the exec
    // lowering joins the verdicts.
    {in(Phase::bucketed), always,
     [](PipelineState &) { return createAnalyzePadSafety(); },
     "pad safety analysis failed"},
    {in(Phase::attention),
     [](const PipelineState &state) { return state.buckets.empty(); },
     [](PipelineState &) { return createBoundDataDependentExtents(); },
     "bounding data-dependent extents failed"},
    // Attention chains become one op each once the analysis above has
    // reasoned about their softmax and masks; --no-fusion keeps them apart.
    {in(Phase::attention), fusing,
     [](PipelineState &) { return createRecognizeAttention(); },
     "recognising attention failed"},
    // Their Q, K and V projections become one GEMM whose parts the
    // attention kernel reads in place.
    {in(Phase::attention), fusing,
     [](PipelineState &) { return createMergeProjections(); },
     "merging projections failed"},
    {in(Phase::precision), always,
     [](PipelineState &state) {
       return createConvertPrecision({precisionName(state.options.precision),
                                      precisionName(state.options.ioPrecision),
                                      state.keepFp32},
                                     &state.precision);
     },
     "converting the precision failed"},
    // cuDNN's tensor-core engines read channels-last tensors: chains of the
    // convolutions it computes on tensor cores become channels last, in
    // their final types.
    {in(Phase::precision),
     [](const PipelineState &state) {
       return usesCudnn(state.options) && state.options.channelsLastConvs;
     },
     [](PipelineState &state) {
       return createConvertConvLayout(
           {/*convsPerTranspose=*/2.0,
            /*float32=*/state.options.precision == Precision::tf32});
     },
     "choosing the convolutions' layout failed"},
    // Large splats become literals or run-time fills, never weights.
    {in(Phase::kernel), always,
     [](PipelineState &) { return createMaterializeSplats(); },
     "materializing splats failed"},
    {in(Phase::kernel),
     [](const PipelineState &state) {
       return state.options.target == Target::cuda;
     },
     [](PipelineState &) {
       return createSplitWideConcats({kMaxCudaConcatInputs});
     },
     "splitting wide concats failed"},
    {in(Phase::kernel), always,
     [](PipelineState &state) {
       return createFormFusionGroups({/*fuse=*/!state.options.noFusion});
     },
     "fusion failed"},
    {in(Phase::kernel),
     [](const PipelineState &state) {
       return usesCublasLt(state.options) || usesCudnn(state.options) ||
              usesCudnnSdpa(state.options);
     },
     [](PipelineState &state) {
       const CompileOptions &options = state.options;
       return createSelectLibraryCalls(
           {options.target == Target::cuda ? kLibraryWorkspaceBytes : 0,
            usesCublasLt(options), usesCudnn(options), usesCudnnSdpa(options),
            usesCudnnGelu(options),
            // fp8 tensor cores: SM 8.9 and later, on every target SM.
            options.target != Target::cuda ||
                llvm::all_of(options.sms, [](int sm) { return sm >= 89; })});
     },
     "selecting library calls failed"},
    {in(Phase::exec), always,
     [](PipelineState &state) {
       return createPlanMemory(
           {/*attentionScratch=*/state.options.target == Target::cuda});
     },
     "memory planning failed"},
    {in(Phase::exec), always,
     [](PipelineState &) { return createLowerToExec({"static"}); },
     "lowering to exec failed"},
    {in(Phase::cost), always,
     [](PipelineState &) { return createEstimateKernelCost(); },
     "kernel cost estimation failed"},
};

/// Remembers the first pass that failed, whose stage names the error.
class FailedPassRecorder : public PassInstrumentation {
public:
  explicit FailedPassRecorder(Pass *&failed) : failed(failed) {}
  void runAfterPassFailed(Pass *pass, Operation *) override {
    if (!failed)
      failed = pass;
  }

private:
  Pass *&failed;
};

const char *phaseName(Phase phase) {
  switch (phase) {
  case Phase::shapes:
    return "shapes";
  case Phase::simplify:
    return "simplify";
  case Phase::buckets:
    return "buckets";
  case Phase::bucketed:
    return "bucketed";
  case Phase::attention:
    return "attention";
  case Phase::precision:
    return "precision";
  case Phase::kernel:
    return "kernel";
  case Phase::exec:
    return "exec";
  case Phase::cost:
    return "cost";
  }
  llvm_unreachable("unknown phase");
}

void instrument(PassManager &pm, const PassInstruments &instruments) {
  const CompileOptions *options = instruments.options;
  if (!options)
    return;
  if (!options->printIrAfter.empty() || options->printIrAfterFailure) {
    // As mlir-opt: with --print-ir-after-failure, IR is printed only after
    // a pass that failed.
    bool all = llvm::is_contained(options->printIrAfter, "all") ||
               options->printIrAfterFailure;
    llvm::StringSet<> names;
    for (const std::string &name : options->printIrAfter)
      names.insert(name);
    pm.enableIRPrinting(
        /*shouldPrintBeforePass=*/[](Pass *, Operation *) { return false; },
        /*shouldPrintAfterPass=*/
        [all, names](Pass *pass, Operation *) {
          return all || names.contains(pass->getArgument());
        },
        /*printModuleScope=*/false, /*printAfterOnlyOnChange=*/false,
        /*printAfterOnlyOnFailure=*/options->printIrAfterFailure, llvm::errs(),
        stagePrintingFlags());
  }
  if (!options->crashReproducer.empty())
    // The IR before the failing pass and that pass alone: a graphc-opt run
    // of the file reproduces the failure.
    pm.enableCrashReproducerGeneration(options->crashReproducer,
                                       /*genLocalReproducer=*/true);
}

} // namespace

OpPrintingFlags stagePrintingFlags() {
  OpPrintingFlags flags;
  flags.elideLargeElementsAttrs(16);
  // Printing as a nested op leaves out the resource section: weights stay
  // `dense_resource<name>` without being hex-encoded in memory first.
  flags.useLocalScope();
  // Locations carry the ONNX node names: worth reading in every stage.
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  return flags;
}

LogicalResult runPhase(ModuleOp module, Phase phase, PipelineState &state,
                       const PassInstruments &instruments,
                       std::string &failure) {
  PassManager pm(module->getContext());
  // The pipeline verifies where it always has, at the --emit stops, with
  // an error naming the stage (graphc-opt verifies after every pass).
  pm.enableVerifier(false);
  std::vector<std::pair<Pass *, const Stage *>> stages;
  for (const Stage &stage : kStages) {
    if (!(stage.phases & in(phase)) || !stage.applies(state))
      continue;
    std::unique_ptr<Pass> pass = stage.create(state);
    stages.emplace_back(pass.get(), &stage);
    pm.addPass(std::move(pass));
  }
  if (stages.empty())
    return success();
  instrument(pm, instruments);
  Pass *failed = nullptr;
  pm.addInstrumentation(std::make_unique<FailedPassRecorder>(failed));
  // Each pass manager's timers in a scope of its own: pass timers are keyed
  // by the pass's address, which a later pass manager's pass may reuse.
  TimingScope phaseTiming;
  if (instruments.timing) {
    phaseTiming = instruments.timing->nest(std::string("pass manager: ") +
                                           phaseName(phase));
    pm.enableTiming(phaseTiming);
  }
  if (succeeded(pm.run(module)))
    return success();
  failure = "the pass pipeline failed";
  for (auto [pass, stage] : stages)
    if (pass == failed)
      failure = stage->failure;
  return LogicalResult::failure();
}

llvm::Error checkInstruments(const CompileOptions &options) {
  if (!options.crashReproducer.empty()) {
    llvm::StringRef directory =
        llvm::sys::path::parent_path(options.crashReproducer);
    if (!directory.empty() && !llvm::sys::fs::is_directory(directory))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--crash-reproducer: '%s' is no directory to write %s in",
          directory.str().c_str(), options.crashReproducer.c_str());
  }
  CompileOptions defaults;
  PipelineState state(defaults);
  std::vector<std::string> arguments;
  for (const Stage &stage : kStages) {
    std::string argument = stage.create(state)->getArgument().str();
    if (!llvm::is_contained(arguments, argument))
      arguments.push_back(argument);
  }
  for (const std::string &name : options.printIrAfter)
    if (name != "all" && !llvm::is_contained(arguments, name))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--print-ir-after: no pass '%s' in the compile pipeline; its "
          "passes are %s, or all",
          name.c_str(), llvm::join(arguments, ", ").c_str());
  return llvm::Error::success();
}

} // namespace graphc
