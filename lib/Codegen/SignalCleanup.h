//===- SignalCleanup.h - temporaries removed on signals ---------*- C++ -*-===//
//
// A compile interrupted with Ctrl-C, killed with SIGTERM or hung up on must
// not leave its build directory, half-written output or a running host
// compiler behind. An async-signal-safe handler kills the process groups
// registered here (the host compiler and whatever it started) and waits for
// them, removes the paths registered here, then re-raises the signal under
// the action that was installed before (LLVM's, or the default).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_CODEGEN_SIGNALCLEANUP_H
#define GRAPHC_LIB_CODEGEN_SIGNALCLEANUP_H

#include "llvm/ADT/StringRef.h"

#include <sys/types.h>

namespace graphc::codegen {

/// Removes a file or directory tree at `path` if SIGINT, SIGTERM or SIGHUP
/// arrives while this object lives. Does not remove anything on
/// destruction.
class SignalCleanup {
public:
  explicit SignalCleanup(llvm::StringRef path);
  ~SignalCleanup();
  SignalCleanup(const SignalCleanup &) = delete;
  SignalCleanup &operator=(const SignalCleanup &) = delete;

private:
  /// The registry slot, or -1 when every slot was taken.
  int slot;
};

/// Kills process group `group` (SIGKILL; `leader`, its first process, is a
/// child of graphc) and waits for it to be gone, if SIGINT, SIGTERM or
/// SIGHUP arrives while this object lives; before the registered paths are
/// removed, so that nothing writes into them afterwards.
class SignalKill {
public:
  explicit SignalKill(pid_t leader);
  ~SignalKill();
  SignalKill(const SignalKill &) = delete;
  SignalKill &operator=(const SignalKill &) = delete;

private:
  int slot;
};

} // namespace graphc::codegen

#endif
