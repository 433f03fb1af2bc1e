//===- HostCompiler.h - running the host C++ compiler -----------*- C++ -*-===//
#ifndef GRAPHC_LIB_CODEGEN_HOSTCOMPILER_H
#define GRAPHC_LIB_CODEGEN_HOSTCOMPILER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace graphc {
class CacheKey;
} // namespace graphc

namespace graphc::codegen {

class SignalCleanup;

/// Where a host compile runs: the given directory (created when missing),
/// or a fresh temporary one that goes away on destruction and on signals
/// unless kept (after a compiler failure, whose message points into it).
class BuildDirectory {
public:
  /// `given`, or when it is empty a new temporary directory named after
  /// `prefix`.
  static llvm::Expected<BuildDirectory> create(llvm::StringRef given,
                                               llvm::StringRef prefix);
  BuildDirectory(BuildDirectory &&other);
  BuildDirectory &operator=(BuildDirectory &&) = delete;
  ~BuildDirectory();

  llvm::StringRef path() const { return dir; }
  /// The path of `name` inside the directory.
  std::string file(llvm::StringRef name) const;
  /// Leaves a temporary directory in place.
  void keep() { keepDir = true; }

private:
  BuildDirectory(std::string dir, bool temporary);
  std::string dir;
  bool keepDir;
  std::unique_ptr<SignalCleanup> removeOnSignal;
};

/// The host C++ compiler: $GRAPHC_CXX, else `c++` on PATH.
llvm::Expected<std::string> findHostCompiler();

/// What identifies `compiler` for the compile cache: the file it resolves
/// to, its size and modification time, and its `--version` output. (A
/// wrapper script is identified by itself: what it runs is not seen.) The
/// output of --version goes through a file in `scratchDir`.
llvm::Expected<std::string> hostCompilerIdentity(llvm::StringRef compiler,
                                                 llvm::StringRef scratchDir);

/// Starts the compile cache key of one run of `compiler args...` in
/// `workDir`: graphc's version, the compiler's identity and the arguments;
/// the caller adds the run's inputs. False when the compiler cannot say what
/// it is: such a run is not cached, and running it gives the error that
/// matters.
bool keyHostCompilerRun(CacheKey &key, llvm::StringRef compiler,
                        llvm::ArrayRef<std::string> args,
                        llvm::StringRef workDir);

/// The cpu target's kernel archive (libHostKernels.a) that cpu models link.
/// It is looked up relative to the running executable, where both the build
/// tree and an installed prefix keep it; the error names the path it expected.
llvm::Expected<std::string> findHostKernelsArchive();

/// Runs `compiler args...` in `workDir`. On failure the error carries the
/// exact command line, the working directory (kept for inspection) and the
/// compiler's output.
llvm::Error runHostCompiler(llvm::StringRef compiler,
                            llvm::ArrayRef<std::string> args,
                            llvm::StringRef workDir);

} // namespace graphc::codegen

#endif
