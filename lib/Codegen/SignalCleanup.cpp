//===- SignalCleanup.cpp - temporary paths removed on SIGINT/SIGTERM ------===//
//
// The registry is a fixed array of absolute paths, so the handler neither
// allocates nor locks. A slot is published with a release store after its
// path is written and withdrawn before it can be reused.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/SignalCleanup.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <limits.h>
#include <mutex>
#include <sys/syscall.h>
#include <unistd.h>

namespace graphc::codegen {
namespace {

constexpr int kSlots = 16;
char paths[kSlots][PATH_MAX];
std::atomic<bool> active[kSlots];
std::mutex slotMutex;
struct sigaction previousInt, previousTerm;

/// The kernel's getdents64 record.
struct DirEntry64 {
  uint64_t inode;
  int64_t offset;
  unsigned short length;
  unsigned char type;
  char name[1];
};

/// Removes `name` under `dirFd`, recursing into directories: only system
/// calls, so it may run in a signal handler.
void removeTree(int dirFd, const char *name, int depth) {
  if (unlinkat(dirFd, name, 0) == 0 || depth > 16)
    return;
  int fd = openat(dirFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return;
  alignas(8) char buffer[2048];
  // Entries vanish as they are removed; scan again until a pass removes
  // nothing, so none is missed (a few passes at most, in case some entry
  // cannot be removed).
  for (int pass = 0, removedAny = true; removedAny && pass < 8; ++pass) {
    removedAny = false;
    lseek(fd, 0, SEEK_SET);
    for (;;) {
      long got = syscall(SYS_getdents64, fd, buffer, sizeof(buffer));
      if (got <= 0)
        break;
      for (long at = 0; at < got;) {
        auto *entry = reinterpret_cast<DirEntry64 *>(buffer + at);
        at += entry->length;
        if (std::strcmp(entry->name, ".") == 0 ||
            std::strcmp(entry->name, "..") == 0)
          continue;
        removeTree(fd, entry->name, depth + 1);
        removedAny = true;
      }
    }
    if (removedAny && unlinkat(dirFd, name, AT_REMOVEDIR) == 0)
      break;
  }
  close(fd);
  unlinkat(dirFd, name, AT_REMOVEDIR);
}

void onSignal(int signal) {
  for (int i = 0; i < kSlots; ++i)
    if (active[i].load(std::memory_order_acquire))
      removeTree(AT_FDCWD, paths[i], 0);
  sigaction(signal, signal == SIGINT ? &previousInt : &previousTerm, nullptr);
  raise(signal);
}

void installHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, SIGINT);
    sigaddset(&action.sa_mask, SIGTERM);
    // A signal ignored by whoever started graphc (nohup, a background job)
    // stays ignored.
    sigaction(SIGINT, &action, &previousInt);
    if (previousInt.sa_handler == SIG_IGN)
      sigaction(SIGINT, &previousInt, nullptr);
    sigaction(SIGTERM, &action, &previousTerm);
    if (previousTerm.sa_handler == SIG_IGN)
      sigaction(SIGTERM, &previousTerm, nullptr);
  });
}

} // namespace

SignalCleanup::SignalCleanup(llvm::StringRef path) : slot(-1) {
  llvm::SmallString<256> absolute(path);
  if (llvm::sys::fs::make_absolute(absolute) ||
      absolute.size() >= PATH_MAX)
    return;
  installHandlers();
  std::lock_guard<std::mutex> lock(slotMutex);
  for (int i = 0; i < kSlots; ++i) {
    if (active[i].load(std::memory_order_relaxed))
      continue;
    std::memcpy(paths[i], absolute.c_str(), absolute.size() + 1);
    active[i].store(true, std::memory_order_release);
    slot = i;
    return;
  }
}

SignalCleanup::~SignalCleanup() {
  if (slot < 0)
    return;
  std::lock_guard<std::mutex> lock(slotMutex);
  active[slot].store(false, std::memory_order_release);
}

} // namespace graphc::codegen
