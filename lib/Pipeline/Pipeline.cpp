//===- Pipeline.cpp - the compile pipeline --------------------------------===//

#include "lib/Pipeline/Pipeline.h"

#include "dialects/Graph/FoldBudget.h"
#include "graphc/BuildConfig.h"
#include "lib/Pipeline/CheckAssumedPadSafety.h"
#include "lib/Pipeline/CompileReport.h"
#include "lib/Pipeline/Diagnostics.h"
#include "lib/Pipeline/OutputPaths.h"
#include "lib/Pipeline/PassPipeline.h"
#include "lib/Support/CheckedArith.h"
#include "lib/Support/CompileCache.h"
#include "lib/Support/Format.h"
#include "lib/Support/Progress.h"

#include "dialects/Exec/ExecOps.h"
#include "dialects/Graph/GraphDialect.h"
#include "dialects/Graph/GraphOps.h"
#include "dialects/Kernel/KernelOps.h"
#if GRAPHC_HAVE_CUDA_CODEGEN
#include "lib/Codegen/CUDA/CudaEmitter.h"
#include "lib/Codegen/CUDA/CudaEmulation.h"
#include "lib/Codegen/CUDA/CudaModule.h"
#include "lib/Codegen/CUDA/NVRTCCompiler.h"
#endif
#include "lib/Codegen/LaunchTable.h"
#include "lib/Codegen/ModelSource.h"
#include "lib/Codegen/SharedObjectWriter.h"
#include "lib/HostKernels/HostEvaluator.h"
#include "lib/Import/ONNX/ONNXImporter.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"

using namespace mlir;

namespace graphc {

int cudaCompileMajor() {
#if GRAPHC_HAVE_CUDA_CODEGEN
  int major = 0;
  llvm::StringRef(codegen::nvrtcVersionString())
      .split('.')
      .first.getAsInteger(10, major);
  return major;
#else
  return 0;
#endif
}

void registerGraphcDialects(DialectRegistry &registry) {
  registry.insert<graph::GraphDialect, kernel::KernelDialect, exec::ExecDialect,
                  func::FuncDialect>();
  graph::registerHostEvaluator(registry);
}

namespace {

void printModule(ModuleOp module, llvm::raw_ostream &out) {
  module->print(out, stagePrintingFlags());
  out << "\n";
}

/// Looks the kernels' schedules up in --tuning-db and applies them, with
/// the overrides on top.
llvm::Error tuneKernels(ModuleOp module, const CompileOptions &options,
                        TuningReport &report) {
  llvm::DenseMap<uint64_t, Schedule> schedules;
  if (const TuningDb *db = options.tuningDb.get()) {
    // A fat artifact's kernels share one schedule per kernel: that of the
    // newest GPU it is built for, the one its PTX also serves.
    report.used = true;
    report.sm = options.sms.back();
    report.cudaMajor = cudaCompileMajor();
    if (!report.cudaMajor)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--tuning-db: cannot tell the CUDA version kernels are compiled "
          "with (NVRTC does not say), so no entry can be matched");
    TuningSelection selection = db->select(report.sm, report.cudaMajor,
                                           precisionName(options.precision));
    schedules = std::move(selection.schedules);
    report.foreign = selection.foreign;
    // A database measured for another GPU, toolkit or precision tunes
    // nothing: say so before the compile, not only in the summary.
    if (schedules.empty() && report.foreign && options.warnings)
      *options.warnings << "graphc: warning: --tuning-db "
                        << options.tuningDbName << " has no entry for sm_"
                        << report.sm << ", CUDA " << report.cudaMajor << ", "
                        << precisionName(options.precision) << " (its "
                        << report.foreign
                        << (report.foreign == 1 ? " entry is" : " entries are")
                        << " for other GPUs, CUDA versions or precisions): "
                           "every kernel keeps the heuristic schedule\n";
  }
  for (const auto &[hash, schedule] : options.scheduleOverrides)
    schedules[hash] = schedule;
  FailureOr<TuningApplied> applied = applyTuning(module, schedules);
  if (failed(applied))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "applying tuned schedules failed");
  report.kernels = applied->kernels;
  report.tuned = applied->tuned;
  return llvm::Error::success();
}

/// The byte size of a static tensor type, or nullopt when it is not static
/// or does not fit in int64_t.
std::optional<int64_t> tensorBytes(RankedTensorType type) {
  Type element = type.getElementType();
  if (!element.isIntOrFloat() || !type.hasStaticShape())
    return std::nullopt;
  int64_t elementBytes = (element.getIntOrFloatBitWidth() + 7) / 8;
  return checkedByteSize(type.getShape(), elementBytes);
}

/// Refuses every tensor (model input, weight, intermediate or output) over
/// `limit` bytes, naming where it comes from: its allocation would fail at
/// run time.
llvm::Error checkTensorSizes(ModuleOp module, uint64_t limit) {
  std::string error;
  auto check = [&](Value value, Location loc, llvm::StringRef what) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape() || !error.empty())
      return;
    std::optional<int64_t> bytes = tensorBytes(type);
    if (bytes && static_cast<uint64_t>(*bytes) <= limit)
      return;
    std::string where = describeLocation(loc);
    std::string typeText;
    llvm::raw_string_ostream os(typeText);
    type.print(os);
    error = (where.empty() ? what.str() : where) + ": " + what.str() +
            " of type " + typeText + " is " +
            (bytes ? std::to_string(*bytes) + " bytes" : "too large") +
            ", more than --max-tensor-bytes=" + std::to_string(limit);
  };
  module.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          check(arg, arg.getLoc(), "an input");
    for (Value result : op->getResults())
      check(result, op->getLoc(), "a tensor");
  });
  if (error.empty())
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                 error.c_str());
}

} // namespace

bool simplifyGraph(ModuleOp module, std::string &failedStage) {
  CompileOptions defaults;
  PipelineState state(defaults);
  return succeeded(
      runPhase(module, Phase::simplify, state, PassInstruments{}, failedStage));
}

llvm::Error compileModel(const CompileOptions &options,
                         llvm::raw_ostream &out) {
  if (llvm::Error e = checkInstruments(options))
    return e;
  DialectRegistry registry;
  registerGraphcDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Compilation is single-threaded so that every step, and so the output,
  // is deterministic.
  context.disableMultithreading();
  DiagnosticCollector diagnostics(context);

#if !GRAPHC_HAVE_CUDA_CODEGEN
  if (options.target == Target::cuda)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the cuda target is not available: this graphc was built without the "
        "CUDA toolkit (NVRTC); install the CUDA toolkit and reconfigure "
        "graphc, or compile with --target cpu");
#endif

  // Refuse to overwrite what is not ours before spending the compile time.
  if (options.emit == EmitStage::none) {
    if (llvm::Error e = checkOutputFiles(options))
      return e;
    if (llvm::Error e = checkKeepDir(options))
      return e;
  }
  // The cache only speeds the compile up: one that cannot be used is a
  // warning.
  std::unique_ptr<CompileCache> cache;
  if (options.useCache && options.emit == EmitStage::none) {
    auto opened = CompileCache::open(
        options.cacheDir.empty() ? CompileCache::defaultDirectory()
                                 : options.cacheDir,
        options.cacheMaxBytes ? options.cacheMaxBytes
                              : CompileCache::kDefaultMaxBytes);
    if (opened)
      cache = std::move(*opened);
    else if (options.warnings)
      *options.warnings << "graphc: warning: compiling without the compile "
                           "cache: "
                        << llvm::toString(opened.takeError()) << "\n";
    else
      llvm::consumeError(opened.takeError());
  }

  // Constant folding of large ops draws on one total for the compile.
  graph::FoldWorkScope foldWork;
  Progress *progress = options.progress;
  auto stage = [&](llvm::StringRef name) {
    if (progress)
      progress->beginStage(name);
  };
  // --timing: the passes' timers and those of the steps between them, in
  // one report on stderr when the compile ends.
  DefaultTimingManager timingManager;
  timingManager.setEnabled(options.timing);
  timingManager.setDisplayMode(DefaultTimingManager::DisplayMode::Tree);
  TimingScope timing = timingManager.getRootScope();
  PassInstruments instruments{&options, options.timing ? &timing : nullptr};
  PipelineState state(options);
  std::string failure;
  auto run = [&](ModuleOp module, Phase phase) {
    return runPhase(module, phase, state, instruments, failure);
  };

  stage("import");
  TimingScope importTiming = timing.nest("import");
  ImportOptions importOptions;
  importOptions.constantInputs = options.constantInputs;
  importOptions.maxLoopIterations = options.maxLoopIterations;
  auto imported = importONNXModel(options.inputPath, context, importOptions);
  if (!imported)
    return imported.takeError();
  importTiming.stop();
  ModuleOp module = imported->get();

  // The passes run in one pass manager per phase, built from the stage
  // table (PassPipeline.cpp). Between phases run the steps that are no pass:
  // they run the cpu reference, report progress, print, or feed a later
  // pass's options from the IR.
  stage("passes");
  if (failed(run(module, Phase::shapes)))
    return diagnostics.takeError(failure);
  // --keep-fp32 auto measures the model as imported (ONNX nodes, the
  // calibration inputs' shapes) on a copy of its own.
  std::optional<Fp32Selection> autoKeep;
  if (options.keepFp32Auto) {
    stage("keep_fp32_auto");
    TimingScope searchTiming = timing.nest("keep-fp32-auto");
    llvm::Expected<Fp32Selection> chosen = chooseFp32Nodes(
        module, options.calibrationInputs, options.precision, options.keepFp32);
    if (!chosen)
      return chosen.takeError();
    autoKeep = std::move(*chosen);
    if (!autoKeep->passed && options.warnings)
      *options.warnings << "graphc: warning: --keep-fp32 auto: outputs still "
                           "beyond "
                        << precisionName(options.precision)
                        << " tolerance of float32 on the cpu reference after "
                           "keeping "
                        << autoKeep->kept.size() << " node(s) ("
                        << autoKeep->outputError
                        << "): " << autoKeep->stopReason << "\n";
    stage("passes");
  }
  if (failed(run(module, Phase::simplify)))
    return diagnostics.takeError(failure);
  // --assume-pad-safe runs the model before bucketing at an exact size.
  OwningOpRef<ModuleOp> dynamic;
  if (!options.assumePadSafe.empty())
    dynamic = OwningOpRef<ModuleOp>(module.clone());
  if (failed(run(module, Phase::buckets)))
    return diagnostics.takeError(failure);
  if (!state.buckets.empty()) {
    if (failed(run(module, Phase::bucketed)))
      return diagnostics.takeError(failure);
    // --assume-pad-safe: a step, not a pass, for it runs the cpu reference
    // on the copy from before bucketing and prints what it checked.
    TimingScope checkTiming = timing.nest("assume-pad-safe check");
    if (llvm::Error e = checkAssumedPadSafety(
            module, *dynamic, options.assumePadSafe, options.padValues, out))
      return e;
  } else if (!options.assumePadSafe.empty()) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--assume-pad-safe names '%s', but the model has no bucketed dims",
        options.assumePadSafe.front().c_str());
  }
  if (failed(run(module, Phase::attention)))
    return diagnostics.takeError(failure);
  // graphc-convert-precision keeps these nodes in float32.
  state.keepFp32 = options.keepFp32;
  if (autoKeep) {
    // A chosen node the rewrites above folded into constants has nothing
    // left to keep (the summary says so).
    llvm::StringSet<> present;
    module.walk([&](Operation *op) {
      SmallVector<StringAttr> names;
      graph::collectNodeNames(op->getLoc(), names);
      for (StringAttr name : names)
        present.insert(name.getValue());
    });
    for (const Fp32Choice &choice : autoKeep->kept)
      if (present.contains(choice.node))
        state.keepFp32.push_back(choice.node);
  }
  if (failed(run(module, Phase::precision)))
    return diagnostics.takeError(failure);
  if (failed(verify(module)))
    return diagnostics.takeError("the graph in " +
                                 std::string(precisionName(options.precision)) +
                                 " does not verify");
  if (options.emit == EmitStage::graph) {
    printModule(module, out);
    return llvm::Error::success();
  }
  uint64_t maxTensorBytes = options.maxTensorBytes;
  if (maxTensorBytes == 0)
    maxTensorBytes = options.target == Target::cuda ? kDefaultMaxTensorBytesCuda
                                                    : kDefaultMaxTensorBytesCpu;
  if (llvm::Error e = checkTensorSizes(module, maxTensorBytes))
    return e;
  if (failed(run(module, Phase::kernel)))
    return diagnostics.takeError(failure);
  if (failed(verify(module)))
    return diagnostics.takeError("fused IR does not verify");
  if (options.emit == EmitStage::kernel) {
    printModule(module, out);
    return llvm::Error::success();
  }
  if (failed(run(module, Phase::exec)))
    return diagnostics.takeError(failure);
  if (failed(verify(module)))
    return diagnostics.takeError("exec IR does not verify");
  if (failed(run(module, Phase::cost)))
    return diagnostics.takeError(failure);
  // Tuning is a step of its own, no pass: it reads the in-memory database
  // and --autotune's overrides, and warns and reports as it goes
  // (graphc-apply-tuning, graphc-opt's form, reads a database file).
  TuningReport tuning;
  if (options.target == Target::cuda) {
    TimingScope tuningTiming = timing.nest("tuning");
    if (llvm::Error e = tuneKernels(module, options, tuning)) {
      std::string detail = llvm::toString(diagnostics.takeError(""));
      if (detail.empty())
        return e;
      llvm::consumeError(std::move(e));
      return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                     detail.c_str());
    }
  }
  if (options.emit == EmitStage::exec) {
    printModule(module, out);
    return llvm::Error::success();
  }
  // CUDA codegen: the kernels' code, in units, and their launches, which
  // the descriptor is written from (the exec IR holds no launch).
  codegen::LaunchTable launches;
#if GRAPHC_HAVE_CUDA_CODEGEN
  std::string cudaSource;
  std::vector<std::string> cudaUnits;
  if (options.target == Target::cuda) {
    stage("codegen");
    TimingScope codegenTiming = timing.nest("codegen");
    // The emulator has every feature; a GPU build has what its oldest SM
    // has. The emulator's units would each be a host compiler run: one
    // will do for tests.
    llvm::Expected<codegen::CudaModule> generated = codegen::generateCudaModule(
        module, options.cudaEmulation ? codegen::kAnySm : options.sms.front(),
        /*singleUnit=*/options.cudaEmulation,
        /*wholeSource=*/options.emit == EmitStage::source,
        [&](int64_t done, int64_t total) {
          if (options.progress)
            options.progress->kernels(done, total);
        });
    if (!generated)
      return diagnostics.takeError("cuda code generation failed: " +
                                   llvm::toString(generated.takeError()));
    cudaSource = std::move(generated->source);
    cudaUnits = std::move(generated->units);
    launches = std::move(generated->launches);
  }
#endif
  if (options.emit == EmitStage::launches) {
    codegen::printLaunches(module, launches, out);
    return llvm::Error::success();
  }

  codegen::SharedObjectOptions so;
  so.outputPath = options.outputPath;
  so.cudaTarget = options.target == Target::cuda;
  so.weightsSideFile = options.weightsSideFile;
  so.tf32Gemms = options.precision == Precision::tf32;
  so.cpuLoops = options.cpuLoops;
  so.workDir = options.keepDir;
  so.cache = cache.get();
  if (so.cudaTarget) {
#if GRAPHC_HAVE_CUDA_CODEGEN
    if (options.emit == EmitStage::source) {
      out << cudaSource;
      return llvm::Error::success();
    }
    // A model whose kernels are all library calls has no image to build.
    std::vector<codegen::CudaImage> images;
    if (options.cudaEmulation && !cudaUnits.empty()) {
      stage("emulation_compile");
      TimingScope emulationTiming = timing.nest("emulation compile");
      std::vector<std::string> kernels;
      for (const auto &[kernel, launch] : launches.entries())
        kernels.push_back(kernel);
      auto image = codegen::compileCudaEmulationModule(
          cudaUnits.front(), kernels, options.keepDir, cache.get());
      if (!image)
        return image.takeError();
      images.push_back(std::move(*image));
    } else if (!cudaUnits.empty()) {
      stage("nvrtc");
      TimingScope nvrtcTiming = timing.nest("nvrtc");
      auto compiled = codegen::compileCudaUnits(cudaUnits, options.sms,
                                                options.keepDir, cache.get());
      if (!compiled)
        return compiled.takeError();
      images = std::move(*compiled);
    }
    for (codegen::CudaImage &image : images)
      so.images.push_back({image.sm, static_cast<int>(image.format),
                           std::move(image.data), image.unit});
#endif
  } else if (options.emit == EmitStage::source) {
    auto source = codegen::generateModelSource(module, so, launches);
    if (!source) {
      llvm::consumeError(source.takeError());
      return diagnostics.takeError("cpu code generation failed");
    }
    out << source->cpp;
    return llvm::Error::success();
  }
  // The output paths may have changed while compiling.
  if (llvm::Error e = checkOutputFiles(options))
    return e;
  // Diagnostics emitted on the IR say more than a failed stage's summary.
  auto detailedError = [&](llvm::Error e) -> llvm::Error {
    std::string text = llvm::toString(diagnostics.takeError(""));
    if (text.empty())
      return e;
    llvm::consumeError(std::move(e));
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                   text.c_str());
  };
  // The model's C++ (the descriptor's tables; the cpu target's kernels) and
  // weights, then the .so the writer packages them in.
  stage("host_compile");
  TimingScope hostTiming = timing.nest("host compile");
  llvm::Expected<codegen::ModelSource> model =
      codegen::generateModelSource(module, so, launches);
  if (!model)
    return detailedError(model.takeError());
  if (llvm::Error e = codegen::writeSharedObject(*model, so))
    return detailedError(std::move(e));
  hostTiming.stop();
  if (cache) {
    if (cache->stats().misses)
      cache->trim();
    if (options.warnings)
      for (const std::string &problem : cache->warnings())
        *options.warnings << "graphc: warning: the compile cache could not "
                             "keep what was compiled: "
                          << problem << "\n";
  }
  CompileReport report{summarize(module),
                       state.buckets,
                       state.precision,
                       state.quantization,
                       autoKeep ? &*autoKeep : nullptr,
                       tuning,
                       cache.get()};
  if (progress)
    progress->finish(reportFields(report, options));
  printReport(report, module, options, out);
  return llvm::Error::success();
}

} // namespace graphc
