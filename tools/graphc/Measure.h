//===- Measure.h - timing one artifact's kernels on the GPU -----*- C++ -*-===//
//
// `graphc tune` measures every candidate artifact in a process of its own:
// `graphc tune measure-artifact` (hidden) runs the artifact's plans through
// the runtime, times each step between CUDA events and writes what it saw
// to a file. A candidate that faults the GPU (a sticky error, after which
// no CUDA call of that process succeeds) or crashes then costs its own
// measurement only, not the tuning run.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_TOOLS_GRAPHC_MEASURE_H
#define GRAPHC_TOOLS_GRAPHC_MEASURE_H

#include "tools/graphc/Tuning.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
} // namespace CLI

namespace graphc::tools {

/// One launch of a kernel as a plan makes it.
struct Launch {
  uint32_t grid[3], block[3], sharedBytes;
  bool operator==(const Launch &o) const {
    return !std::memcmp(grid, o.grid, sizeof(grid)) &&
           !std::memcmp(block, o.block, sizeof(block)) &&
           sharedBytes == o.sharedBytes;
  }
};

/// What running one artifact gave.
struct Measurement {
  /// Per plan, per output: the bytes of the first run.
  std::vector<std::vector<std::vector<char>>> outputs;
  /// Per plan, per output: dtype, name.
  std::vector<std::vector<std::pair<int32_t, std::string>>> outputInfo;
  std::vector<std::string> planNames;
  /// By kernel content hash: the sum over its steps in every plan of the
  /// step's median time, and its launches in step order.
  std::map<uint64_t, double> kernelMicros;
  std::map<uint64_t, std::vector<Launch>> kernelLaunches;
  /// The kernels of library call steps (no launch).
  std::set<uint64_t> libraryKernels;
  /// Kernel hash -> kind and ONNX nodes.
  std::map<uint64_t, std::pair<std::string, std::string>> kernelInfo;
  /// With TuneSettings::libraryCandidates, per library kernel: every
  /// algorithm or engine configuration the library offers (and split-K
  /// variants), timed in the measuring process on the session's memory
  /// (graphc_session_time_library_kernel), in rank order.
  struct LibraryTiming {
    int32_t rank = 0, splitK = 0;
    double micros = 0;
  };
  std::map<uint64_t, std::vector<LibraryTiming>> libraryCandidates;
};

/// Runs every plan of the artifact at `path` in this process: once for its
/// outputs, then `warmup` + `repeats` times timing its steps.
llvm::Expected<Measurement> measure(const std::string &path,
                                    const TuneSettings &settings);

/// measure() in a process of its own (this executable's hidden `tune
/// measure-artifact`), its log and result in `scratch`. Fails with what the
/// process said (or the signal that ended it) when it did not measure.
llvm::Expected<Measurement> measureInProcess(const std::string &path,
                                             const TuneSettings &settings,
                                             const std::string &scratch);

/// Registers `graphc tune measure-artifact ARTIFACT --result FILE` under
/// `tune`, hidden: the measuring process measureInProcess starts.
void addMeasureArtifactCommand(CLI::App &tune, int &exitCode);

} // namespace graphc::tools

#endif
