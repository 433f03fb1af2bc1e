//===- Tuning.h - measuring kernel schedules on the GPU ---------*- C++ -*-===//
//
// What `graphc tune` and `graphc compile --autotune` share.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_TOOLS_GRAPHC_TUNING_H
#define GRAPHC_TOOLS_GRAPHC_TUNING_H

#include "lib/Pipeline/Pipeline.h"
#include "lib/Support/TuningDb.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace graphc::tools {

struct TuneSettings {
  /// Compiling and measuring candidates stop after this long.
  double budgetSeconds = 600;
  /// Timed and untimed runs of every plan per schedule.
  int repeats = 30;
  int warmup = 5;
  /// Candidate artifacts compiled at once (0: the CPU count, at most 4).
  int jobs = 0;
  /// The CUDA device measured on.
  int device = 0;
  /// Also time every algorithm (and split-K) the libraries offer for each
  /// library kernel, in the measuring process (the heuristic artifact's
  /// measurement only).
  bool libraryCandidates = false;
};

/// Compiles the model `options` describes with the heuristic schedule and
/// with every candidate block size, checks each candidate's outputs against
/// the heuristic's, times every kernel on the GPU and puts each kernel's
/// winner into `db` (replacing its entry for this GPU, if any). Prints
/// progress and a table of the kernels to `out`. Without a GPU it fails
/// saying so, and `db` is unchanged.
llvm::Error tuneModel(CompileOptions options, const TuneSettings &settings,
                      TuningDb &db, llvm::raw_ostream &out);

} // namespace graphc::tools

#endif
