//===- SignalCleanup.cpp - temporaries removed on signals -----------------===//
//
// The registries are fixed arrays (absolute paths, process groups), so the
// handler neither allocates nor locks. A slot is published with a release
// store after its contents are written and withdrawn before it can be
// reused.
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

namespace graphc::codegen {
namespace {

constexpr int kSlots = 16;
char paths[kSlots][PATH_MAX];
std::atomic<bool> active[kSlots];
std::mutex slotMutex;
std::atomic<pid_t> groups[kSlots];
std::mutex groupMutex;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction previous[3];

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

/// Kills every registered process group and waits, at most about two
/// seconds, until none of its processes is left.
void killGroups() {
  for (int i = 0; i < kSlots; ++i)
    if (pid_t group = groups[i].load(std::memory_order_acquire))
      kill(-group, SIGKILL);
  for (int tick = 0; tick < 200; ++tick) {
    bool left = false;
    for (int i = 0; i < kSlots; ++i) {
      pid_t group = groups[i].load(std::memory_order_acquire);
      if (!group)
        continue;
      // Reap the leader (graphc's child) unless its own waiter did.
      waitpid(group, nullptr, WNOHANG);
      left |= kill(-group, 0) == 0;
    }
    if (!left)
      return;
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, nullptr);
  }
}

void onSignal(int signal) {
  killGroups();
  for (int i = 0; i < kSlots; ++i)
    if (active[i].load(std::memory_order_acquire))
      removeTree(AT_FDCWD, paths[i], 0);
  for (int k = 0; k < 3; ++k)
    if (kSignals[k] == signal)
      sigaction(signal, &previous[k], nullptr);
  raise(signal);
}

void installHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    for (int signal : kSignals)
      sigaddset(&action.sa_mask, signal);
    // A signal ignored by whoever started graphc (nohup, a background job)
    // stays ignored.
    for (int k = 0; k < 3; ++k) {
      sigaction(kSignals[k], &action, &previous[k]);
      if (previous[k].sa_handler == SIG_IGN)
        sigaction(kSignals[k], &previous[k], nullptr);
    }
  });
}

/// Claims the first slot whose `used` entry is unset, filling it with
/// `fill`; -1 when every slot is in use.
template <typename Used, typename Fill>
int claimSlot(std::mutex &mutex, const Used (&used)[kSlots], Fill fill) {
  std::lock_guard<std::mutex> lock(mutex);
  for (int i = 0; i < kSlots; ++i) {
    if (used[i].load(std::memory_order_relaxed))
      continue;
    fill(i);
    return i;
  }
  return -1;
}

} // namespace

SignalCleanup::SignalCleanup(llvm::StringRef path) : slot(-1) {
  llvm::SmallString<256> absolute(path);
  if (llvm::sys::fs::make_absolute(absolute) ||
      absolute.size() >= PATH_MAX)
    return;
  installHandlers();
  slot = claimSlot(slotMutex, active, [&](int i) {
    std::memcpy(paths[i], absolute.c_str(), absolute.size() + 1);
    active[i].store(true, std::memory_order_release);
  });
}

SignalCleanup::~SignalCleanup() {
  if (slot < 0)
    return;
  std::lock_guard<std::mutex> lock(slotMutex);
  active[slot].store(false, std::memory_order_release);
}

SignalKill::SignalKill(pid_t leader) : slot(-1) {
  installHandlers();
  slot = claimSlot(groupMutex, groups, [&](int i) {
    groups[i].store(leader, std::memory_order_release);
  });
}

SignalKill::~SignalKill() {
  if (slot < 0)
    return;
  std::lock_guard<std::mutex> lock(groupMutex);
  groups[slot].store(0, std::memory_order_release);
}

} // namespace graphc::codegen
