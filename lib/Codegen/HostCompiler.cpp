//===- HostCompiler.cpp - running the host C++ compiler -------------------===//

#include "lib/Codegen/HostCompiler.h"

#include "graphc/BuildConfig.h"
#include "lib/Support/CompileCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <map>
#include <mutex>

using namespace llvm;

namespace graphc::codegen {

Expected<std::string> findHostCompiler() {
  if (const char *env = std::getenv("GRAPHC_CXX"); env && *env) {
    if (sys::fs::can_execute(env))
      return std::string(env);
    ErrorOr<std::string> found = sys::findProgramByName(env);
    if (found)
      return *found;
    return createStringError(inconvertibleErrorCode(),
                             "GRAPHC_CXX names '%s', which is not an "
                             "executable",
                             env);
  }
  for (const char *name : {"c++", "g++", "clang++"})
    if (ErrorOr<std::string> found = sys::findProgramByName(name))
      return *found;
  return createStringError(inconvertibleErrorCode(),
                           "no host C++ compiler found (install g++ or set "
                           "GRAPHC_CXX)");
}

Expected<std::string> hostCompilerIdentity(StringRef compiler,
                                           StringRef scratchDir) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = known.find(compiler.str()); it != known.end())
    return it->second;
  SmallString<256> real;
  if (std::error_code ec = sys::fs::real_path(compiler, real))
    return createStringError(ec, "cannot resolve the host compiler %s: %s",
                             compiler.str().c_str(), ec.message().c_str());
  sys::fs::file_status status;
  if (std::error_code ec = sys::fs::status(real, status))
    return createStringError(ec, "cannot stat the host compiler %s: %s",
                             real.c_str(), ec.message().c_str());
  std::string identity =
      real.str().str() + " " + std::to_string(status.getSize()) + " " +
      std::to_string(sys::toTimeT(status.getLastModificationTime()));
  SmallString<256> versionPath(scratchDir);
  sys::path::append(versionPath, "compiler-version.txt");
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(versionPath),
                                          StringRef(versionPath)};
  int rc = sys::ExecuteAndWait(compiler, {compiler, "--version"}, std::nullopt,
                               redirects);
  auto version = MemoryBuffer::getFile(versionPath);
  sys::fs::remove(versionPath);
  if (rc != 0 || !version)
    return createStringError(inconvertibleErrorCode(),
                             "the host compiler %s does not answer --version",
                             compiler.str().c_str());
  identity += "\n" + (*version)->getBuffer().str();
  known[compiler.str()] = identity;
  return identity;
}

bool keyHostCompilerRun(CacheKey &key, StringRef compiler,
                        ArrayRef<std::string> args, StringRef workDir) {
  Expected<std::string> identity = hostCompilerIdentity(compiler, workDir);
  if (!identity) {
    consumeError(identity.takeError());
    return false;
  }
  key.add("graphc", GRAPHC_VERSION_STRING)
      .add("compiler", *identity)
      .add("args", llvm::join(args, " "));
  return true;
}

Expected<std::string> findHostKernelsArchive() {
  // Any address in this binary identifies it for getMainExecutable.
  static int anchor;
  std::string executable = sys::fs::getMainExecutable(nullptr, &anchor);
  if (executable.empty())
    return createStringError(inconvertibleErrorCode(),
                             "cannot locate the graphc executable to find "
                             "libHostKernels.a beside it");
  SmallString<256> path(sys::path::parent_path(executable));
  sys::path::append(path, GRAPHC_BIN_TO_PRIVATE_LIBDIR, "libHostKernels.a");
  sys::path::remove_dots(path, /*remove_dot_dot=*/true);
  if (!sys::fs::is_regular_file(path))
    return createStringError(inconvertibleErrorCode(),
                             "the cpu target's kernel library %s is missing "
                             "(graphc is installed incompletely: reinstall it "
                             "with `cmake --install`)",
                             path.c_str());
  return std::string(path);
}

Error runHostCompiler(StringRef compiler, ArrayRef<std::string> args,
                      StringRef workDir) {
  SmallString<256> logPath(workDir);
  sys::path::append(logPath, "compiler.log");
  // The compiler runs in workDir so that relative paths (and so the output)
  // do not depend on where graphc runs. A shell changes directory for it:
  // graphc's own working directory is left alone. Arguments travel as
  // positional parameters, so nothing needs quoting.
  ErrorOr<std::string> shell = sys::findProgramByName("sh");
  if (!shell)
    return createStringError(shell.getError(), "cannot find sh");
  SmallVector<StringRef> argv{"sh", "-c", "cd -- \"$0\" && exec \"$@\"",
                              workDir, compiler};
  for (const std::string &arg : args)
    argv.push_back(arg);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                          StringRef(logPath)};
  std::string message;
  int rc = sys::ExecuteAndWait(*shell, argv, std::nullopt, redirects,
                               /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                               &message);
  if (rc == 0)
    return Error::success();
  std::string command = "cd " + workDir.str() + " && " + compiler.str();
  for (const std::string &arg : args)
    command += " " + arg;
  std::string log;
  if (auto buffer = MemoryBuffer::getFile(logPath))
    log = (*buffer)->getBuffer().take_front(4000).str();
  return createStringError(inconvertibleErrorCode(),
                           "host compiler failed (exit %d%s%s); sources kept "
                           "in %s; reproduce with:\n  %s\n%s",
                           rc, message.empty() ? "" : ": ", message.c_str(),
                           workDir.str().c_str(), command.c_str(), log.c_str());
}

} // namespace graphc::codegen
