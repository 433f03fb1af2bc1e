//===- TuneCommand.cpp - `graphc tune` --------------------------------------===//
//
// Measures schedules of a model's kernels on the GPU and records the
// fastest of each in the tuning database.
//
// Every generated kernel of the model takes one candidate schedule at once:
// one artifact per candidate, kernels being independent launches. Library
// kernels (cuBLASLt GEMMs, cuDNN convolutions) are timed differently: the
// heuristic artifact's measuring process builds every algorithm or engine
// configuration the library's heuristic offers for each (and, for a GEMM
// whose tiles leave SMs idle, split-K variants) and times each on the
// session's memory (graphc_session_time_library_kernel), so that 32 ranks
// cost 32 timings, not 32 artifacts. The library winners are then checked
// together in one more artifact, whose outputs must agree with the
// heuristic's before they are recorded. The artifacts are built in parallel,
// then run one after the other, each in a measuring process of its own
// (Measure.h), through the runtime with GRAPHC_SESSION_PROFILE_STEPS, so that
// each step is timed between two CUDA events and a candidate that faults the
// GPU costs only itself. A candidate artifact's outputs must agree with the
// heuristic artifact's on the same inputs before any of its timings count. Each
// run reads the next of several copies of the inputs, so that no run finds its
// inputs in L2 from the run before.
//
// `graphc tune merge` joins databases.
//
//===----------------------------------------------------------------------===//

#include "graphc/runtime.h"
#include "lib/Pipeline/Pipeline.h"
#include "lib/Support/ElementValue.h"
#include "lib/Support/FileTree.h"
#include "lib/Support/TuningDb.h"
#include "tools/graphc/Commands.h"
#include "tools/graphc/CompileFlags.h"
#include "tools/graphc/Measure.h"
#include "tools/graphc/RuntimeSupport.h"
#include "tools/graphc/Tuning.h"

#include "CLI/CLI.hpp"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <thread>

namespace graphc::tools {
namespace {

using Clock = std::chrono::steady_clock;

/// The candidates measured against the heuristic schedule, one artifact
/// each: a block size, elements per thread, matmul tile and rows per block
/// for every generated kernel (the heuristic's are 256, 1, 16 and 1; library
/// calls keep the heuristic's algorithm in them). A kernel a knob does not
/// apply to launches as some earlier candidate did and is not measured
/// twice (the last three are the first two block sizes and the heuristic's
/// to kernels without rows).
constexpr struct {
  int64_t blockSize, elementsPerThread, tile, rowsPerBlock;
} kCandidates[] = {{64, 1, 16, 1},   {128, 1, 16, 1}, {512, 1, 16, 1},
                   {1024, 1, 16, 1}, {256, 2, 16, 1}, {256, 4, 16, 1},
                   {256, 8, 16, 1},  {256, 1, 8, 1},  {256, 1, 32, 1},
                   {64, 1, 16, 2},   {128, 1, 16, 4}, {256, 1, 16, 8}};

/// A candidate must beat the heuristic by this much to be recorded as
/// faster: closer medians are within the noise of one tuning run.
constexpr double kSignificantSpeedup = 1.02;

struct TuneFlags {
  CompileFlags compile;
  std::string db;
  TuneSettings settings;
  std::vector<std::string> mergeInputs;
  std::string mergeOutput;
};

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Removes the tuning run's scratch directory however it ends.
struct ScratchDirectory {
  llvm::SmallString<128> path;
  ~ScratchDirectory() {
    if (!path.empty())
      (void)removeTree(path);
  }
};


bool isFloating(int32_t dtype) {
  return dtype == 1 || dtype == 10 || dtype == 11 || dtype == 16;
}

/// The largest difference between two runs' bytes of one output beyond
/// what reordering a reduction explains, or nullopt when they agree.
std::optional<double> disagreement(int32_t dtype, const std::vector<char> &a,
                                   const std::vector<char> &b) {
  if (a.size() != b.size())
    return INFINITY;
  if (!isFloating(dtype))
    return a == b ? std::nullopt : std::optional<double>(INFINITY);
  size_t size = graphc_dtype_size(dtype);
  double worst = 0;
  bool bad = false;
  for (size_t i = 0; i < a.size(); i += size) {
    double x = elementAsDouble(dtype, a.data() + i);
    double y = elementAsDouble(dtype, b.data() + i);
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) != std::isnan(y)) {
        bad = true;
        worst = INFINITY;
      }
      continue;
    }
    double difference = std::fabs(x - y);
    double tolerance = dtype == 1 || dtype == 11 ? 1e-4 + 1e-3 * std::fabs(y)
                                                 : 1e-2 + 1e-2 * std::fabs(y);
    if (!(difference <= tolerance)) {
      bad = true;
      worst = std::max(worst, difference);
    }
  }
  return bad ? std::optional<double>(worst) : std::nullopt;
}



/// One artifact to build and measure: the heuristic schedule or one
/// candidate for every kernel.
struct Variant {
  int64_t blockSize = kHeuristicBlockSize;
  int64_t elementsPerThread = 1;
  int64_t tile = kHeuristicTile;
  int64_t rowsPerBlock = 1;
  /// "block_size 64, elements_per_thread 1, tile 16, rows_per_block 1",
  /// for messages.
  std::string describe() const {
    return "block_size " + std::to_string(blockSize) +
           ", elements_per_thread " + std::to_string(elementsPerThread) +
           ", tile " + std::to_string(tile) + ", rows_per_block " +
           std::to_string(rowsPerBlock);
  }
  std::string path;
  std::optional<llvm::Error> compileError;
  double compileSeconds = 0;
  std::optional<Measurement> measurement;
  /// Plans whose outputs disagreed with the heuristic's: why.
  std::string rejection;
};

/// Builds the variants in parallel, at most `jobs` at once, starting none
/// after `deadline`.
void compileVariants(std::vector<Variant> &variants, const CompileOptions &base,
                     const std::vector<uint64_t> &kernels,
                     const std::set<uint64_t> &libraryKernels, int jobs,
                     Clock::time_point deadline) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t v; (v = next++) < variants.size();) {
      Variant &variant = variants[v];
      if (Clock::now() > deadline) {
        variant.compileError = llvm::createStringError(
            "not compiled: the --budget-seconds ran out");
        continue;
      }
      CompileOptions options = base;
      options.outputPath = variant.path;
      options.warnings = nullptr;
      options.progress = nullptr;
      for (uint64_t hash : kernels)
        if (!libraryKernels.count(hash))
          options.scheduleOverrides[hash] =
              Schedule::generated(variant.blockSize, variant.elementsPerThread,
                                  variant.tile, variant.rowsPerBlock);
      auto start = Clock::now();
      if (llvm::Error e = compileModel(options, llvm::nulls()))
        variant.compileError = std::move(e);
      variant.compileSeconds = secondsSince(start);
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < jobs; ++j)
    threads.emplace_back(work);
  for (std::thread &thread : threads)
    thread.join();
}

/// Why `candidate`'s outputs are not the heuristic's, or "" when they agree.
std::string compareOutputs(const Measurement &heuristic,
                           const Measurement &candidate) {
  if (heuristic.outputs.size() != candidate.outputs.size())
    return "it has another number of plans";
  for (size_t p = 0; p < heuristic.outputs.size(); ++p)
    for (size_t o = 0; o < heuristic.outputs[p].size(); ++o) {
      auto [dtype, name] = heuristic.outputInfo[p][o];
      if (std::optional<double> worst = disagreement(
              dtype, candidate.outputs[p][o], heuristic.outputs[p][o])) {
        std::string text;
        llvm::raw_string_ostream(text)
            << "output '" << name << "' of plan '" << heuristic.planNames[p]
            << "' differs from the heuristic schedule's by up to "
            << llvm::format("%.3g", *worst);
        return text;
      }
    }
  return "";
}

std::string formatMicros(double micros) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.2f us", micros);
  return text;
}

} // namespace

llvm::Error tuneModel(CompileOptions options, const TuneSettings &flags,
                      TuningDb &db, llvm::raw_ostream &out) {
  if (flags.repeats < 1 || flags.warmup < 0)
    return llvm::createStringError(
        "tune: --repeats must be at least 1 and --warmup at least 0");
  if (!(flags.budgetSeconds > 0))
    return llvm::createStringError("tune: --budget-seconds must be positive");
  options.tuningDb = nullptr;
  options.scheduleOverrides.clear();
  auto start = Clock::now();
  auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(flags.budgetSeconds));
  graphc_device_info device;
  if (graphc_status status = graphc_cuda_device_info(flags.device, &device))
    return llvm::createStringError(
        "tune: measuring needs a CUDA GPU: " +
        llvm::toString(toError(status)));
  int cudaMajor = cudaCompileMajor();
  if (!cudaMajor)
    return llvm::createStringError(
        "tune: cannot tell the CUDA version kernels are compiled with "
        "(NVRTC does not say)");
  // Candidates are built for the GPU that measures them, whatever --arch
  // a deployment compile asks for: entries are keyed by this SM.
  options.sms = {device.sm};
  out << "tune: " << device.name << " (sm_" << device.sm << ", driver "
      << device.driver_version / 1000 << "." << device.driver_version % 1000 / 10
      << "), CUDA " << cudaMajor << " kernels, "
      << precisionName(options.precision)
      << (options.cudaEmulation ? ", on the CUDA emulator" : "") << "\n";

  ScratchDirectory scratch;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("graphc-tune", scratch.path))
    return llvm::createStringError("tune: cannot create a scratch directory: " +
                                   ec.message());
  std::vector<Variant> variants(1);
  for (auto candidate : kCandidates) {
    variants.emplace_back().blockSize = candidate.blockSize;
    variants.back().elementsPerThread = candidate.elementsPerThread;
    variants.back().tile = candidate.tile;
    variants.back().rowsPerBlock = candidate.rowsPerBlock;
  }
  for (auto [v, variant] : llvm::enumerate(variants))
    variant.path = (scratch.path + "/variant" + std::to_string(v) + ".so").str();
  const std::string scratchDir = scratch.path.str().str();

  // The heuristic artifact first: it names the kernels to tune.
  {
    CompileOptions heuristic = options;
    heuristic.outputPath = variants[0].path;
    heuristic.progress = nullptr;
    if (llvm::Error e = compileModel(heuristic, llvm::nulls()))
      return e;
  }
  // The heuristic artifact's measurement also times every library
  // kernel's algorithms.
  TuneSettings withLibraries = flags;
  withLibraries.libraryCandidates = true;
  auto baseline = measureInProcess(variants[0].path, withLibraries, scratchDir);
  if (!baseline)
    return baseline.takeError();
  variants[0].measurement = std::move(*baseline);
  const Measurement &heuristic = *variants[0].measurement;
  std::vector<uint64_t> kernels;
  for (const auto &[hash, micros] : heuristic.kernelMicros)
    kernels.push_back(hash);
  if (kernels.empty()) {
    out << "tune: the model has no kernel to tune (it is all views and "
           "copies)\n";
    return llvm::Error::success();
  }

  int jobs = flags.jobs > 0 ? flags.jobs
                            : std::clamp<int>(std::thread::hardware_concurrency(),
                                              1, 4);
  jobs = std::min<int>(jobs, variants.size() - 1);
  auto compileStart = Clock::now();
  std::vector<Variant> candidates;
  for (size_t v = 1; v < variants.size(); ++v)
    candidates.push_back(std::move(variants[v]));
  variants.resize(1);
  compileVariants(candidates, options, kernels, heuristic.libraryKernels, jobs,
                  deadline);
  out << "tune: compiled " << candidates.size() << " candidate schedules of "
      << kernels.size() << " kernels in "
      << llvm::format("%.1f", secondsSince(compileStart)) << " s (" << jobs
      << (jobs == 1 ? " job" : " jobs") << ")\n";

  auto measureStart = Clock::now();
  int measured = 1;
  for (Variant &candidate : candidates) {
    if (candidate.compileError) {
      llvm::errs() << "graphc: warning: tune: "
                   << candidate.describe() << ": "
                   << llvm::toString(std::move(*candidate.compileError))
                   << "\n";
      candidate.compileError.reset();
      candidate.rejection = "not compiled";
      continue;
    }
    if (Clock::now() > deadline) {
      candidate.rejection = "not measured: the --budget-seconds ran out";
      llvm::errs() << "graphc: warning: tune: "
                   << candidate.describe() << " " << candidate.rejection
                   << "\n";
      continue;
    }
    auto result = measureInProcess(candidate.path, flags, scratchDir);
    if (!result) {
      candidate.rejection = llvm::toString(result.takeError());
      llvm::errs() << "graphc: warning: tune: "
                   << candidate.describe() << " failed to run: "
                   << candidate.rejection << "\n";
      continue;
    }
    ++measured;
    candidate.rejection = compareOutputs(heuristic, *result);
    if (!candidate.rejection.empty()) {
      llvm::errs() << "graphc: warning: tune: "
                   << candidate.describe() << " is not used: "
                   << candidate.rejection << "\n";
      continue;
    }
    candidate.measurement = std::move(*result);
  }
  // The heuristic artifact ran first, while the GPU's clocks and caches
  // were coldest: it is timed again after the candidates, and that second
  // timing is what they are compared with.
  std::map<uint64_t, double> heuristicTimes = heuristic.kernelMicros;
  if (Clock::now() <= deadline) {
    auto again = measureInProcess(variants[0].path, flags, scratchDir);
    if (!again)
      return again.takeError();
    heuristicTimes = std::move(again->kernelMicros);
  }
  out << "tune: measured " << measured << " schedules in "
      << llvm::format("%.1f", secondsSince(measureStart)) << " s ("
      << flags.warmup << " warm-up and " << flags.repeats
      << " timed runs of every plan each)\n";

  // Library kernels: the fastest of the algorithms the measuring process
  // timed, against the heuristic's choice timed alike: the first candidate,
  // the first the runtime can build, which is what rank 0 runs (cuDNN's
  // first engine configuration may be one it never takes, such as tf32
  // for exact float32).
  std::map<uint64_t, std::pair<double, double>> libraryTimes;
  std::map<uint64_t, Schedule> libraryWinners;
  size_t libraryCandidates = 0;
  for (const auto &[hash, timings] : heuristic.libraryCandidates) {
    if (timings.empty() || timings[0].splitK != 0)
      continue;
    libraryCandidates += timings.size();
    double heuristicMicros = timings[0].micros, bestMicros = heuristicMicros;
    Schedule best = Schedule::libraryCall(kHeuristicAlgoRank);
    for (const Measurement::LibraryTiming &timing :
         llvm::ArrayRef(timings).drop_front())
      if (timing.micros * kSignificantSpeedup < bestMicros) {
        bestMicros = timing.micros;
        best = Schedule::libraryCall(timing.rank, timing.splitK);
      }
    libraryTimes[hash] = {heuristicMicros, bestMicros};
    if (!best.isHeuristic())
      libraryWinners[hash] = best;
  }
  if (!libraryTimes.empty())
    out << "tune: timed " << libraryCandidates << " library algorithms of "
        << libraryTimes.size() << " library kernels\n";
  // They were timed on the session's memory, not the model's values: one
  // artifact with every library winner must compute what the heuristic's
  // does before any is recorded.
  if (!libraryWinners.empty()) {
    std::string rejection;
    if (Clock::now() > deadline) {
      rejection = "not checked: the --budget-seconds ran out";
    } else {
      CompileOptions tuned = options;
      tuned.outputPath = scratch.path.str().str() + "/library-winners.so";
      tuned.progress = nullptr;
      tuned.warnings = nullptr;
      tuned.scheduleOverrides.insert(libraryWinners.begin(),
                                     libraryWinners.end());
      if (llvm::Error e = compileModel(tuned, llvm::nulls())) {
        rejection = "not compiled: " + llvm::toString(std::move(e));
      } else {
        auto result = measureInProcess(tuned.outputPath, flags, scratchDir);
        rejection =
            result ? compareOutputs(heuristic, *result)
                   : "failed to run: " + llvm::toString(result.takeError());
      }
    }
    if (!rejection.empty()) {
      llvm::errs() << "graphc: warning: tune: the fastest library algorithms "
                      "are not used: "
                   << rejection << "\n";
      for (auto &[hash, times] : libraryTimes)
        times.second = times.first;
      libraryWinners.clear();
    }
  }

  // Per kernel, the fastest schedule; for a generated kernel, among those
  // whose launches differ from the heuristic's (a candidate that launches
  // the same way is the same schedule: its block size is clamped to the
  // work); for a library kernel, the checked winner of its timed
  // algorithms.
  out << "kernel            kind            heuristic        tuned  schedule   "
         "speedup  onnx nodes\n";
  double heuristicTotal = 0, tunedTotal = 0;
  int64_t faster = 0;
  for (uint64_t hash : kernels) {
    double heuristicMicros = heuristicTimes.at(hash);
    auto libraryTime = libraryTimes.find(hash);
    if (libraryTime != libraryTimes.end())
      heuristicMicros = libraryTime->second.first;
    // Library calls have no launch.
    static const std::vector<Launch> kNoLaunches;
    auto found = heuristic.kernelLaunches.find(hash);
    const std::vector<Launch> &heuristicLaunches =
        found == heuristic.kernelLaunches.end() ? kNoLaunches : found->second;
    double bestMicros = heuristicMicros;
    bool library = heuristic.libraryKernels.count(hash);
    Schedule best = library ? Schedule::libraryCall(kHeuristicAlgoRank)
                            : Schedule::generated(kHeuristicBlockSize);
    std::vector<const std::vector<Launch> *> seen{&heuristicLaunches};
    if (libraryTime != libraryTimes.end()) {
      bestMicros = libraryTime->second.second;
      auto winner = libraryWinners.find(hash);
      if (winner != libraryWinners.end())
        best = winner->second;
    }
    for (const Variant &candidate : candidates) {
      // Candidate artifacts give library kernels the heuristic's algorithm.
      if (library)
        break;
      if (!candidate.measurement)
        continue;
      const Measurement &m = *candidate.measurement;
      auto micros = m.kernelMicros.find(hash);
      if (micros == m.kernelMicros.end())
        continue;
      if (!library) {
        auto launches = m.kernelLaunches.find(hash);
        if (launches == m.kernelLaunches.end() ||
            llvm::any_of(seen, [&](const std::vector<Launch> *other) {
              return *other == launches->second;
            }))
          continue;
        seen.push_back(&launches->second);
      }
      if (micros->second * kSignificantSpeedup < bestMicros) {
        bestMicros = micros->second;
        best = Schedule::generated(candidate.blockSize,
                                   candidate.elementsPerThread, candidate.tile,
                                   candidate.rowsPerBlock);
      }
    }
    heuristicTotal += heuristicMicros;
    tunedTotal += bestMicros;
    faster += !best.isHeuristic();
    auto [kind, nodes] = heuristic.kernelInfo.at(hash);
    std::string schedule =
        library ? "algo " + std::to_string(best.algoRank) +
                      (best.splitK ? " k/" + std::to_string(best.splitK) : "")
        : best.tile != kHeuristicTile ? "tile " + std::to_string(best.tile)
        : best.rowsPerBlock > 1
            ? std::to_string(best.rowsPerBlock) + " rows"
            : "block " + std::to_string(best.blockSize) +
                  (best.elementsPerThread > 1
                       ? "x" + std::to_string(best.elementsPerThread)
                       : "");
    out << llvm::format("%-16s  %-12s  %11s  %11s  %-10s %6.2fx  %s\n",
                        formatKernelHash(hash).c_str(), kind.c_str(),
                        formatMicros(heuristicMicros).c_str(),
                        formatMicros(bestMicros).c_str(), schedule.c_str(),
                        bestMicros > 0 ? heuristicMicros / bestMicros : 1.0,
                        nodes.c_str());
    TuningEntry entry;
    entry.key = {hash, device.sm, cudaMajor,
                 precisionName(options.precision)};
    entry.schedule = best;
    entry.kind = kind;
    entry.nodes = nodes;
    entry.device = device.name;
    entry.medianNs = std::llround(bestMicros * 1000);
    entry.heuristicMedianNs = std::llround(heuristicMicros * 1000);
    db.put(entry);
  }
  out << "tune: " << kernels.size() << " kernels, " << faster
      << " faster than the heuristic schedule; their medians add up to "
      << formatMicros(heuristicTotal) << " heuristic, "
      << formatMicros(tunedTotal) << " tuned, measured in "
      << llvm::format("%.1f", secondsSince(start)) << " s\n";
  return llvm::Error::success();
}

namespace {

/// `graphc tune`: the database is read first (a file that is not one stops
/// the run before any work), measured into, and written back whole.
llvm::Error tune(const TuneFlags &flags, llvm::raw_ostream &out) {
  auto options = compileOptionsFromFlags(flags.compile);
  if (!options)
    return options.takeError();
  options->warnings = &llvm::errs();
  TuningDb db;
  if (llvm::sys::fs::exists(flags.db)) {
    auto loaded = TuningDb::load(flags.db);
    if (!loaded)
      return loaded.takeError();
    db = std::move(*loaded);
    for (const std::string &note : db.notes())
      llvm::errs() << "graphc: warning: " << note << "\n";
  }
  if (llvm::Error e = tuneModel(std::move(*options), flags.settings, db, out))
    return e;
  if (llvm::Error e = db.write(flags.db))
    return e;
  out << "tune: wrote " << flags.db << " (" << db.entries().size()
      << (db.entries().size() == 1 ? " entry" : " entries") << ")\n";
  return llvm::Error::success();
}

llvm::Error merge(const TuneFlags &flags, llvm::raw_ostream &out) {
  TuningDb merged;
  int64_t lost = 0;
  for (const std::string &path : flags.mergeInputs) {
    auto db = TuningDb::load(path);
    if (!db)
      return db.takeError();
    lost += merged.merge(*db);
  }
  for (const std::string &note : merged.notes())
    llvm::errs() << "graphc: warning: " << note << "\n";
  if (llvm::Error e = merged.write(flags.mergeOutput))
    return e;
  out << "wrote " << flags.mergeOutput << ": " << merged.entries().size()
      << " entries from " << flags.mergeInputs.size() << " databases";
  if (lost)
    out << " (" << lost << " slower duplicate"
        << (lost == 1 ? "" : "s") << " dropped)";
  out << "\n";
  return llvm::Error::success();
}

} // namespace

void addTuneCommand(CLI::App &app, int &exitCode) {
  auto flags = std::make_shared<TuneFlags>();
  CLI::App *cmd = app.add_subcommand(
      "tune", "measure kernel schedules on the GPU and record the fastest "
              "in a tuning database for `graphc compile --tuning-db`");
  cmd->add_option("model", flags->compile.input, "ONNX model");
  cmd->add_option("--db", flags->db,
                  "the tuning database to add the measurements to (created "
                  "when missing; its other entries are kept)");
  addModelFlags(*cmd, flags->compile);
  cmd->add_option("--budget-seconds", flags->settings.budgetSeconds,
                  "stop compiling and measuring candidates after this long "
                  "(default 600); what was measured is recorded");
  cmd->add_option("--repeats", flags->settings.repeats,
                  "timed runs of every plan per schedule (default 30): the "
                  "median counts");
  cmd->add_option("--warmup", flags->settings.warmup,
                  "untimed runs before them (default 5)");
  cmd->add_option("--jobs,-j", flags->settings.jobs,
                  "candidate artifacts compiled at once (default: the CPU "
                  "count, at most 4)");
  cmd->add_option("--device", flags->settings.device,
                  "CUDA device ordinal (0)");

  addMeasureArtifactCommand(*cmd, exitCode);
  CLI::App *mergeCmd = cmd->add_subcommand(
      "merge", "join tuning databases: the faster entry of a key wins");
  mergeCmd->add_option("databases", flags->mergeInputs, "tuning databases")
      ->required()
      ->check(CLI::ExistingFile);
  mergeCmd->add_option("-o,--output", flags->mergeOutput,
                       "the merged database (may be one of the inputs)")
      ->required();
  mergeCmd->callback([flags, &exitCode] {
    if (llvm::Error e = merge(*flags, llvm::outs()))
      exitCode = reportError(std::move(e));
    else
      exitCode = 0;
  });
  cmd->callback([cmd, mergeCmd, flags, &exitCode] {
    if (mergeCmd->parsed() || cmd->get_subcommand("measure-artifact")->parsed())
      return;
    if (flags->compile.input.empty() || flags->db.empty()) {
      exitCode = reportError(llvm::createStringError(
          "tune: give a model and --db FILE (or: graphc tune merge A B -o C)"));
      return;
    }
    if (llvm::Error e = tune(*flags, llvm::outs()))
      exitCode = reportError(std::move(e));
    else
      exitCode = 0;
  });
}

} // namespace graphc::tools
