//===- CompileCommand.cpp - `graphc compile` ------------------------------===//

#include "lib/Pipeline/Pipeline.h"
#include "lib/Support/Progress.h"
#include "tools/graphc/Commands.h"
#include "tools/graphc/CompileFlags.h"
#include "tools/graphc/RuntimeSupport.h"
#include "tools/graphc/Tuning.h"

#include "CLI/CLI.hpp"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <memory>
#include <utility>

namespace graphc::tools {
namespace {


/// --autotune: measures the model's kernels on the GPU when there is one,
/// into the --tuning-db database (written back) or a fresh one, which the
/// compile then uses. Without a GPU, a warning: the compile goes on with
/// the recorded or heuristic schedules.
llvm::Error autotune(const CompileFlags &flags, CompileOptions &options) {
  if (options.target != Target::cuda)
    return llvm::createStringError("compile: --autotune needs --target cuda");
  if (options.emit != EmitStage::none)
    return llvm::createStringError(
        "compile: --autotune measures compiled artifacts: it does not go "
        "with --emit");
  graphc_device_info device;
  if (graphc_status status = graphc_cuda_device_info(0, &device)) {
    llvm::errs() << "graphc: warning: --autotune: no GPU to measure on ("
                 << llvm::toString(toError(status)) << "); kernels keep "
                 << (options.tuningDb ? "their --tuning-db or heuristic"
                                      : "the heuristic")
                 << " schedules\n";
    return llvm::Error::success();
  }
  if (!llvm::is_contained(options.sms, device.sm))
    llvm::errs() << "graphc: warning: --autotune measures on sm_" << device.sm
                 << ", which --arch does not name: the compile uses the "
                    "entries of sm_"
                 << options.sms.back() << "\n";
  auto db = options.tuningDb ? std::make_shared<TuningDb>(*options.tuningDb)
                             : std::make_shared<TuningDb>();
  llvm::raw_ostream &out = flags.quiet ? llvm::nulls() : llvm::outs();
  if (llvm::Error e = tuneModel(options, TuneSettings{}, *db, out))
    return e;
  if (!flags.tuningDb.empty()) {
    if (llvm::Error e = db->write(flags.tuningDb))
      return e;
    out << "tune: recorded in " << flags.tuningDb << "\n";
  }
  options.tuningDb = std::move(db);
  if (options.tuningDbName.empty())
    options.tuningDbName = "--autotune measurements";
  return llvm::Error::success();
}

int runCompile(const CompileFlags &flags) {
  auto converted = compileOptionsFromFlags(flags);
  if (!converted)
    return reportError(converted.takeError());
  CompileOptions options = std::move(*converted);
  if (options.emit == EmitStage::none && options.outputPath.empty())
    return reportError(
        llvm::createStringError(llvm::inconvertibleErrorCode(),
                                "compile: -o OUT.so is required (or --emit)"));
  if (!options.outputPath.empty() &&
      llvm::sys::fs::is_directory(options.outputPath))
    return reportError(llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "compile: -o " + options.outputPath + " is a directory"));
  if (flags.autotune)
    if (llvm::Error e = autotune(flags, options))
      return reportError(std::move(e));
  ProgressMode mode = ProgressMode::none;
  if (flags.progress == "json")
    mode = ProgressMode::json;
  else if (flags.progress == "auto" && !flags.quiet)
    mode = detectProgressMode();
  Progress progress(mode, llvm::errs());
  options.progress = &progress;
  // --quiet keeps stdout for what --emit prints, and drops the summary.
  llvm::raw_ostream &out = flags.quiet && options.emit == EmitStage::none
                               ? llvm::nulls()
                               : llvm::outs();
  if (llvm::Error e = compileModel(options, out)) {
    // The progress line goes before the error takes its place.
    progress.finish();
    return reportError(std::move(e));
  }
  progress.finish();
  return 0;
}

} // namespace

llvm::Expected<std::vector<int>> parseArchList(llvm::StringRef list) {
  std::vector<int> sms;
  llvm::SmallVector<llvm::StringRef> items;
  list.split(items, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    llvm::StringRef digits = item.trim();
    if (!digits.consume_front("sm_"))
      digits.consume_front("compute_");
    int sm;
    if (digits.getAsInteger(10, sm) || sm < 50 || sm > 200)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--arch: '%s' is not an SM such as sm_80",
                                     item.str().c_str());
    sms.push_back(sm);
  }
  if (sms.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--arch names no SM");
  llvm::sort(sms);
  sms.erase(std::unique(sms.begin(), sms.end()), sms.end());
  return sms;
}

llvm::Expected<Libraries> parseLibraries(llvm::StringRef list) {
  Libraries libraries;
  if (list.trim() == "auto")
    return libraries;
  libraries.automatic = false;
  if (list.trim() == "none")
    return libraries;
  llvm::SmallVector<llvm::StringRef> items;
  list.split(items, ',', -1, /*KeepEmpty=*/true);
  for (llvm::StringRef item : items) {
    item = item.trim();
    if (item == "cublaslt")
      libraries.cublaslt = true;
    else if (item == "cudnn")
      libraries.cudnn = true;
    else if (item == "cudnn-sdpa")
      libraries.cudnnSdpa = true;
    else if (item == "cudnn-gelu")
      libraries.cudnnGelu = true;
    else
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--libraries: '%s' is not auto, none or a comma-separated list of "
          "cublaslt, cudnn, cudnn-sdpa and cudnn-gelu",
          item.str().c_str());
  }
  return libraries;
}

llvm::Expected<ConstantInput> parseConstantInput(llvm::StringRef spec) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--const-input '" + spec + "': " + why);
  };
  ConstantInput input;
  input.spec = spec.str();
  auto [name, value] = spec.split('=');
  name = name.trim();
  value = value.trim();
  if (name.empty() || value.empty() || !spec.contains('='))
    return fail("expected NAME=FILE.npy, NAME=FILE.pb or NAME=V1,V2,...");
  input.name = name.str();
  llvm::StringRef extension = llvm::sys::path::extension(value);
  if (extension == ".npy" || extension == ".pb") {
    std::string ignoredName, path;
    llvm::Expected<HostTensor> tensor =
        readTensorArgument(value.str(), ignoredName, path);
    if (!tensor)
      return fail(llvm::toString(tensor.takeError()));
    input.tensor = std::move(*tensor);
    return input;
  }
  // A value list: numbers now, their type once the input's is known.
  llvm::SmallVector<llvm::StringRef> items;
  value.split(items, ',', -1, /*KeepEmpty=*/true);
  for (llvm::StringRef item : items) {
    item = item.trim();
    double number;
    if (item.empty() || item.getAsDouble(number, /*AllowInexact=*/true))
      return fail("'" + value +
                  "' is neither a .npy or .pb file nor a comma-separated "
                  "list of numbers");
    input.values.push_back(item.str());
  }
  return input;
}

llvm::Expected<CompileOptions>
compileOptionsFromFlags(const CompileFlags &flags) {
  CompileOptions options;
  options.inputPath = flags.input;
  options.outputPath = flags.output;
  options.target = flags.target == "cpu" ? Target::cpu : Target::cuda;
  options.targetIsDefault = !flags.targetGiven;
  options.shapes = flags.shapes;
  options.dims = flags.dims;
  for (const std::string &spec : flags.constInputs) {
    llvm::Expected<ConstantInput> input = parseConstantInput(spec);
    if (!input)
      return input.takeError();
    options.constantInputs.push_back(std::move(*input));
  }
  if (flags.maxLoopIterations < 1)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--max-loop-iterations must be at least 1");
  options.maxLoopIterations = flags.maxLoopIterations;
  options.buckets = flags.buckets;
  options.maxDims = flags.maxDims;
  options.padValues = flags.padValues;
  options.assumePadSafe = flags.assumePadSafe;
  options.weightsSideFile = flags.weightsFile;
  options.keepDir = flags.keep;
  options.force = flags.force;
  options.printIrAfter = flags.printIrAfter;
  options.printIrAfterFailure = flags.printIrAfterFailure;
  options.timing = flags.timing;
  options.crashReproducer = flags.crashReproducer;
  if (!flags.maxTensorBytes.empty()) {
    auto bytes = parseByteSize("--max-tensor-bytes", flags.maxTensorBytes);
    if (!bytes)
      return bytes.takeError();
    options.maxTensorBytes = *bytes;
  }
  options.useCache = !flags.noCache;
  options.cacheDir = flags.cacheDir;
  if (!flags.cacheMaxBytes.empty()) {
    auto bytes = parseByteSize("--cache-max-bytes", flags.cacheMaxBytes);
    if (!bytes)
      return bytes.takeError();
    options.cacheMaxBytes = *bytes;
  }
  if (!flags.tuningDb.empty()) {
    if (options.target != Target::cuda)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--tuning-db needs --target cuda (cpu kernels have no schedule to "
          "tune)");
    // --autotune creates the database it records in.
    auto db = flags.autotune && !llvm::sys::fs::exists(flags.tuningDb)
                  ? llvm::Expected<TuningDb>(TuningDb())
                  : TuningDb::load(flags.tuningDb);
    if (!db)
      return db.takeError();
    for (const std::string &note : db->notes())
      llvm::errs() << "graphc: warning: " << note << "\n";
    options.tuningDb = std::make_shared<TuningDb>(std::move(*db));
    options.tuningDbName = flags.tuningDb;
  }
  options.warnings = &llvm::errs();
  if (flags.emit == "graph")
    options.emit = EmitStage::graph;
  else if (flags.emit == "kernel")
    options.emit = EmitStage::kernel;
  else if (flags.emit == "exec")
    options.emit = EmitStage::exec;
  else if (flags.emit == "launches")
    options.emit = EmitStage::launches;
  if (options.emit == EmitStage::launches && options.target != Target::cuda)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--emit launches needs --target cuda (cpu kernels are host calls, "
        "with no launch)");
  else if (flags.emit == "source" || flags.emit == "cuda")
    options.emit = EmitStage::source;
  auto sms = parseArchList(flags.arch);
  if (!sms)
    return sms.takeError();
  options.sms = *sms;
  options.cudaEmulation = flags.cudaEmulation;
  options.noFusion = flags.noFusion;
  options.cpuLoops = !flags.noCpuLoops;
  auto libraries = parseLibraries(flags.libraries);
  if (!libraries)
    return libraries.takeError();
  options.libraries = *libraries;
  if (options.libraries.cudnnGelu && !options.libraries.cudnn)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--libraries: cudnn-gelu makes GEMMs cuDNN convolutions: name cudnn "
        "too");
  if (options.libraries.cudnnSdpa && options.target != Target::cuda)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--libraries: cudnn-sdpa needs --target cuda (its fallback is the "
        "generated CUDA attention kernel, and the cpu runtime has no "
        "reference attention)");
  options.channelsLastConvs = flags.convLayout != "nchw";
  options.precision = *parsePrecision(flags.precision);
  options.ioPrecision = *parsePrecision(flags.ioPrecision);
  for (const std::string &node : flags.keepFp32)
    if (node == "auto")
      options.keepFp32Auto = true;
    else
      options.keepFp32.push_back(node);
  if ((!options.keepFp32.empty() || options.keepFp32Auto) &&
      !narrowsTensors(options.precision))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--keep-fp32 needs --precision fp16 or bf16 (under %s every node "
        "computes in float32 already)",
        precisionName(options.precision));
  if (!flags.calibrationInputs.empty() && !options.keepFp32Auto)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--calibration-input needs --keep-fp32 auto (it is what the "
        "comparison with float32 runs on)");
  for (const std::string &spec : flags.calibrationInputs) {
    CalibrationInput input;
    std::string name;
    llvm::Expected<HostTensor> tensor =
        readTensorArgument(spec, name, input.path);
    if (!tensor)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(), "--calibration-input: %s",
          llvm::toString(tensor.takeError()).c_str());
    if (name.empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--calibration-input '%s': expected NAME=FILE (the model input "
          "it is for)",
          spec.c_str());
    input.tensor = std::move(*tensor);
    input.tensor.name = name;
    options.calibrationInputs.push_back(std::move(input));
  }
  if (options.cudaEmulation && options.target != Target::cuda)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--cuda-emulation needs --target cuda");
  return options;
}

llvm::Expected<uint64_t> parseByteSize(llvm::StringRef flag,
                                       llvm::StringRef text) {
  llvm::StringRef digits = text.trim();
  unsigned shift = 0;
  for (auto [suffix, bits] : {std::pair<const char *, unsigned>{"KiB", 10},
                              {"MiB", 20},
                              {"GiB", 30},
                              {"TiB", 40}})
    if (digits.consume_back(suffix)) {
      shift = bits;
      break;
    }
  uint64_t value;
  if (digits.getAsInteger(10, value) || value == 0 ||
      value > (UINT64_MAX >> shift))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "%s: '%s' is not a positive byte count such as 17179869184 or 16GiB",
        flag.str().c_str(), text.str().c_str());
  return value << shift;
}

void addModelFlags(CLI::App &cmd, CompileFlags &flags) {
  cmd.add_flag("--cuda-emulation", flags.cudaEmulation,
                "for testing without a GPU: compile the CUDA kernels for the "
                "host, to run on graphc's CUDA emulator (the test driver), "
                "instead of for GPUs");
  cmd.add_option("--shape", flags.shapes,
                  "fix an input's whole shape, e.g. --shape "
                  "image=8x3x224x224 (repeatable)");
  cmd.add_option("--dim", flags.dims,
                  "fix a named dim (an ONNX dim_param, as `graphc check` "
                  "lists them) to a size, e.g. --dim batch=8 (repeatable)");
  cmd.add_option("--const-input", flags.constInputs,
                 "bind a model input to a value at compile time, e.g. "
                 "--const-input axes=axes.npy (or .pb) or --const-input "
                 "axes=0,2 (the input's element type, its declared shape "
                 "when static and of that size, else 1-D): it "
                 "becomes a constant, no longer an input, so that a shape "
                 "computed from it is fixed (repeatable)");
  cmd.add_option("--max-loop-iterations", flags.maxLoopIterations,
                 "the most iterations one run of a Loop that runs as a loop "
                 "(a trip count or condition the run decides) may take; a "
                 "run past it fails naming the Loop node (default 1048576)");
  cmd.add_option("--buckets", flags.buckets,
                  "compile a dynamic dim (a dim_param, or INPUT.AXIS) for "
                  "these sizes, e.g. --buckets batch=1,2,4,8 (repeatable); a "
                  "run takes any size up to the largest where padding is "
                  "exact, else exactly these");
  cmd.add_option("--max-dim", flags.maxDims,
                  "the largest default bucket of a dynamic dim with no "
                  "--buckets, e.g. --max-dim seq=512: powers of two from 1 "
                  "up to it (default 64) (repeatable)");
  cmd.add_option("--pad-value", flags.padValues,
                  "what an input is padded with up to its bucket, e.g. "
                  "--pad-value attention_mask=0 (default 0) (repeatable)");
  cmd.add_option("--assume-pad-safe", flags.assumePadSafe,
                  "let runs pad along a bucketed dim the analysis cannot prove "
                  "exact, after checking it on the cpu reference with random "
                  "inputs (refused with the difference when it is wrong) "
                  "(repeatable)");
  cmd.add_flag("--no-fusion", flags.noFusion,
                "one kernel per graph op (reshapes stay views, attention "
                "chains stay apart): the baseline to compare fusion against");
  cmd.add_flag("--no-cpu-loops", flags.noCpuLoops,
                "cpu target: compute every op of a fusion with its reference "
                "host kernel instead of one generated loop for its pointwise "
                "ops (to compare the two, or to find which one is wrong)");
  cmd.add_option("--libraries", flags.libraries,
                 "what vendor libraries compute: auto (GEMMs on cuBLASLt, "
                 "convolutions on cuDNN and attention on cuDNN's SDPA on "
                 "the cuda target, none on cpu), none (generated kernels "
                 "only), or a comma-separated list of cublaslt, cudnn, "
                 "cudnn-sdpa and cudnn-gelu (the first two also on cpu, "
                 "where the runtime's reference GEMM and convolution stand "
                 "in; cudnn-sdpa on cuda only; cudnn-gelu, never automatic, "
                 "makes a float16 or bfloat16 GEMM with bias and erf GELU a "
                 "cuDNN 1x1 convolution with the GELU fused)");
  cmd.add_option("--conv-layout", flags.convLayout,
                  "the layout of convolutions cuDNN computes: auto (chains "
                  "of them channels last, NHWC, where their ends cost few "
                  "transposes) or nchw (as the ONNX model has them)")
      ->check(CLI::IsMember({"auto", "nchw"}));
  cmd.add_option("--precision", flags.precision,
                  "what float32 tensors become: fp32 (default); fp16 or bf16 "
                  "(weights and activations stored narrow, arithmetic, "
                  "accumulation and statistics in float32); tf32 (float32 "
                  "tensors, library GEMMs round their operands to tf32 on "
                  "tensor cores)")
      ->check(CLI::IsMember({"fp32", "tf32", "fp16", "bf16"}));
  cmd.add_option("--io-precision", flags.ioPrecision,
                  "the element type of the model's float32 inputs and "
                  "outputs: fp32 (default, as in the ONNX model), fp16 or "
                  "bf16")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  cmd.add_option("--keep-fp32", flags.keepFp32,
                 "an ONNX node that computes in float32 under --precision "
                 "fp16 or bf16, with casts around it (repeatable); auto: "
                 "also the nodes a comparison with float32 on the cpu "
                 "reference picks (overflow, or where the error first "
                 "exceeds the precision's tolerance), on the "
                 "--calibration-input values");
  cmd.add_option("--calibration-input", flags.calibrationInputs,
                 "NAME=FILE (.npy or ONNX TensorProto .pb): the value of "
                 "model input NAME that --keep-fp32 auto compares on "
                 "(repeatable; inputs not given get reproducible random "
                 "values, floats in [-1, 1), integers 0 or 1)");
  cmd.add_option("--max-tensor-bytes", flags.maxTensorBytes,
                  "refuse models with a larger tensor, in bytes or with a "
                  "KiB/MiB/GiB/TiB suffix (default: 16GiB for cpu, 80GiB for "
                  "cuda)");
  CLI::Option *noCache = cmd.add_flag(
      "--no-cache", flags.noCache,
      "compile everything afresh, neither reading nor writing the compile "
      "cache");
  cmd.add_option("--cache-dir", flags.cacheDir,
                  "the compile cache's directory (default: $GRAPHC_CACHE_DIR, "
                  "else graphc under $XDG_CACHE_HOME or ~/.cache)")
      ->excludes(noCache);
  cmd.add_option("--cache-max-bytes", flags.cacheMaxBytes,
                  "evict the least recently used cache entries beyond this "
                  "size, in bytes or with a KiB/MiB/GiB/TiB suffix (default "
                  "2GiB)");
}

void addCompileCommand(CLI::App &app, int &exitCode) {
  auto flags = std::make_shared<CompileFlags>();
  CLI::App *cmd =
      app.add_subcommand("compile", "compile an ONNX model to a shared object");
  cmd->add_option("model", flags->input, "ONNX model")->required();
  cmd->add_option("-o,--output", flags->output, "output .so");
  cmd->add_option("--target", flags->target, "cuda (default) or cpu")
      ->check(CLI::IsMember({"cuda", "cpu"}))
      ->each([flags](const std::string &) { flags->targetGiven = true; });
  cmd->add_option("--arch", flags->arch,
                  "comma-separated SMs for the cuda target (sm_80,sm_90)");
  addModelFlags(*cmd, *flags);
  cmd->add_option("--emit", flags->emit,
                  "stop after a stage and print it: graph, kernel, exec, "
                  "launches (cuda: each generated kernel's grid, block, "
                  "shared bytes and unit), source (cuda: CUDA C++, cpu: C++)")
      ->check(CLI::IsMember(
          {"graph", "kernel", "exec", "launches", "source", "cuda"}));
  cmd->add_flag("--weights-file", flags->weightsFile,
                "write weights to OUT.so.weights instead of into the .so");
  cmd->add_option("--keep", flags->keep,
                  "keep generated sources and build files in this directory "
                  "(new or empty)");
  cmd->add_flag("--force", flags->force,
                "replace an existing regular file at -o (or its .weights) "
                "even if it is not a graphc model (never the input model)");
  CLI::Option *tuningDb = cmd->add_option(
      "--tuning-db", flags->tuningDb,
      "give kernels the schedules `graphc tune` recorded in this JSON file "
      "for the highest --arch SM (needs no GPU); kernels without an entry "
      "keep the heuristic schedule");
  cmd->add_flag("--autotune", flags->autotune,
                "measure the kernels' schedules on the GPU first, when there "
                "is one (as graphc tune; with --tuning-db, recorded there), "
                "and compile with the winners; without a GPU, a warning");
  tuningDb->check(CLI::ExistingFile | CLI::NonexistentPath);
  // The pass manager's instruments, as every MLIR tool has them.
  cmd->add_option("--print-ir-after", flags->printIrAfter,
                  "print the IR after this pass to stderr (a pass argument "
                  "as graphc-opt takes it, e.g. graphc-form-fusion-groups; "
                  "all: after every pass) (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--print-ir-after-failure", flags->printIrAfterFailure,
                "print the IR after a pass that failed to stderr (with it, "
                "--print-ir-after prints only after failed passes, as in "
                "mlir-opt)");
  cmd->add_flag("--timing", flags->timing,
                "print MLIR's timing report of the passes and the steps "
                "between them to stderr");
  cmd->add_option("--crash-reproducer", flags->crashReproducer,
                  "when a pass fails or crashes, write its input IR and the "
                  "pass to this file, for graphc-opt to run");
  cmd->add_option("--progress", flags->progress,
                  "auto: a progress line on stderr when it is a terminal "
                  "and the compile takes over a second; json: one JSON event "
                  "per line on stderr (stages, durations, kernel counts, "
                  "summary); none")
      ->check(CLI::IsMember({"auto", "json", "none"}));
  cmd->add_flag("--quiet,-q", flags->quiet,
                "print neither the progress line nor the summary line "
                "(errors still go to stderr; --progress json still prints)");
  cmd->callback([flags, &exitCode] { exitCode = runCompile(*flags); });
}

} // namespace graphc::tools
