//===- SignalCleanup.h - temporary paths removed on SIGINT/SIGTERM -*- C++ -*-===//
//
// A compile interrupted with Ctrl-C or killed with SIGTERM must not leave its
// build directory or half-written output behind. Paths registered here are
// removed by an async-signal-safe handler, which then re-raises the signal
// under the action that was installed before (LLVM's, or the default).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_CODEGEN_SIGNALCLEANUP_H
#define GRAPHC_LIB_CODEGEN_SIGNALCLEANUP_H

#include "llvm/ADT/StringRef.h"

namespace graphc::codegen {

/// Removes a file or directory tree at `path` if SIGINT or SIGTERM arrives
/// while this object lives. Does not remove anything on destruction.
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

} // namespace graphc::codegen

#endif
