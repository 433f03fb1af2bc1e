//===- Progress.h - compile progress on stderr ------------------*- C++ -*-===//
//
// What a long compile is doing, for a person at a terminal or for a CI log.
// The terminal display is one line on stderr, drawn only once the compile has
// run for a second (so quick compiles print nothing) and erased at the end.
// The JSON form prints one event object per line on stderr:
//
//   {"event":"stage_start","stage":"import"}
//   {"event":"stage_end","stage":"import","ms":12}
//   {"event":"kernels","stage":"codegen","done":3,"total":10}
//   {"event":"summary",...the compile's summary fields...,"ms":2310}
//
// Durations are whole milliseconds; "ms" of the summary is the whole run.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_PROGRESS_H
#define GRAPHC_LIB_SUPPORT_PROGRESS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace graphc {

/// Named values of a JSON event, printed in this order.
using ProgressFields = std::vector<std::pair<std::string, llvm::json::Value>>;

enum class ProgressMode {
  none,     ///< nothing
  terminal, ///< one redrawn line, after the first second
  json,     ///< one JSON event per line
};

/// `auto`: the terminal display when stderr is a terminal (and TERM is not
/// "dumb"), nothing otherwise.
ProgressMode detectProgressMode();

/// Reports the stages of one compile. Calls come from the compiling thread;
/// the terminal display is redrawn by a timer thread so that a long stage
/// (a host compiler run) still shows its elapsed time.
class Progress {
public:
  /// `os` is stderr in graphc; tests pass a string stream. The terminal
  /// display waits `delay` before drawing anything.
  Progress(ProgressMode mode, llvm::raw_ostream &os,
           std::chrono::milliseconds delay = defaultDelay());
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  /// Ends the current stage, if any, and starts `stage`.
  void beginStage(llvm::StringRef stage);
  /// Ends the current stage (its duration goes to the JSON event).
  void endStage();
  /// `done` of `total` kernels handled in the current stage.
  void kernels(int64_t done, int64_t total);
  /// Ends the current stage, erases the terminal line and, in JSON mode,
  /// prints the summary event with `fields`. Later calls do nothing.
  void finish(ProgressFields fields = {});

  /// 1 s, or GRAPHC_PROGRESS_DELAY_MS when set (0 draws at once).
  static std::chrono::milliseconds defaultDelay();

private:
  using Clock = std::chrono::steady_clock;

  /// Prints {"event":`event`, ...fields} as one line.
  void emit(llvm::StringRef event, ProgressFields fields);
  void startTimer();
  void stopTimer();
  /// Draws the terminal line; the caller holds `mutex`.
  void drawLocked();
  void eraseLocked();

  ProgressMode mode;
  llvm::raw_ostream &os;
  std::chrono::milliseconds delay;
  Clock::time_point start;
  Clock::time_point stageStart;
  std::string stage;
  int64_t kernelsDone = -1, kernelsTotal = -1;
  bool finished = false;
  bool drawn = false;

  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::thread timer;
};

} // namespace graphc

#endif
