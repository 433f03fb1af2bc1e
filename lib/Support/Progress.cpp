//===- Progress.cpp - compile progress on stderr --------------------------===//

#include "lib/Support/Progress.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"

#include <algorithm>
#include <cstdlib>

namespace graphc {

static int64_t millisecondsSince(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now() - since)
      .count();
}

ProgressMode detectProgressMode() {
  if (!llvm::sys::Process::StandardErrIsDisplayed())
    return ProgressMode::none;
  const char *term = std::getenv("TERM");
  if (term && llvm::StringRef(term) == "dumb")
    return ProgressMode::none;
  return ProgressMode::terminal;
}

std::chrono::milliseconds Progress::defaultDelay() {
  if (const char *text = std::getenv("GRAPHC_PROGRESS_DELAY_MS")) {
    unsigned ms;
    if (!llvm::StringRef(text).getAsInteger(10, ms))
      return std::chrono::milliseconds(ms);
  }
  return std::chrono::seconds(1);
}

Progress::Progress(ProgressMode mode, llvm::raw_ostream &os,
                   std::chrono::milliseconds delay)
    : mode(mode), os(os), delay(delay), start(Clock::now()), stageStart(start) {
  if (mode == ProgressMode::terminal)
    startTimer();
}

Progress::~Progress() { finish(); }

void Progress::beginStage(llvm::StringRef name) {
  endStage();
  std::lock_guard<std::mutex> lock(mutex);
  if (finished)
    return;
  stage = name.str();
  stageStart = Clock::now();
  kernelsDone = kernelsTotal = -1;
  if (mode == ProgressMode::json)
    emit("stage_start", {{"stage", stage}});
  else if (mode == ProgressMode::terminal)
    drawLocked();
}

void Progress::endStage() {
  std::lock_guard<std::mutex> lock(mutex);
  if (finished || stage.empty())
    return;
  if (mode == ProgressMode::json) {
    emit("stage_end",
         {{"stage", stage}, {"ms", millisecondsSince(stageStart)}});
  }
  stage.clear();
}

void Progress::kernels(int64_t done, int64_t total) {
  std::lock_guard<std::mutex> lock(mutex);
  if (finished)
    return;
  kernelsDone = done;
  kernelsTotal = total;
  if (mode == ProgressMode::json)
    emit("kernels", {{"stage", stage}, {"done", done}, {"total", total}});
  else if (mode == ProgressMode::terminal)
    drawLocked();
}

void Progress::finish(ProgressFields fields) {
  endStage();
  stopTimer();
  std::lock_guard<std::mutex> lock(mutex);
  if (finished)
    return;
  finished = true;
  if (mode == ProgressMode::terminal) {
    eraseLocked();
  } else if (mode == ProgressMode::json && !fields.empty()) {
    fields.emplace_back("ms", millisecondsSince(start));
    emit("summary", std::move(fields));
  }
}

void Progress::emit(llvm::StringRef event, ProgressFields fields) {
  {
    llvm::json::OStream json(os);
    json.object([&] {
      json.attribute("event", event);
      for (auto &[key, value] : fields)
        json.attribute(key, std::move(value));
    });
  }
  os << "\n";
  os.flush();
}

void Progress::startTimer() {
  timer = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex);
    while (!stopping) {
      // Redraw often enough for the elapsed seconds to tick.
      wake.wait_for(lock, std::chrono::milliseconds(200));
      if (!stopping && !finished)
        drawLocked();
    }
  });
}

void Progress::stopTimer() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  if (timer.joinable())
    timer.join();
}

void Progress::drawLocked() {
  Clock::time_point now = Clock::now();
  if (now - start < delay || stage.empty())
    return;
  std::string line = "graphc: " + stage;
  std::replace(line.begin(), line.end(), '_', ' ');
  if (kernelsTotal >= 0)
    line += ", kernel " + std::to_string(kernelsDone) + " of " +
            std::to_string(kernelsTotal);
  double elapsed = std::chrono::duration<double>(now - start).count();
  std::string seconds;
  llvm::raw_string_ostream(seconds) << llvm::format(" (%.1fs)", elapsed);
  line += seconds;
  // A line longer than the terminal would wrap, and "\r" would then
  // redraw only its last row.
  unsigned columns = llvm::sys::Process::StandardErrColumns();
  if (columns > 1 && line.size() >= columns)
    line.resize(columns - 1);
  os << "\r\x1b[K" << line;
  os.flush();
  drawn = true;
}

void Progress::eraseLocked() {
  if (!drawn)
    return;
  os << "\r\x1b[K";
  os.flush();
  drawn = false;
}

} // namespace graphc
