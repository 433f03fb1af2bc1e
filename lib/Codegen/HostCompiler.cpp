//===- HostCompiler.cpp - running the host C++ compiler -------------------===//

#include "lib/Codegen/HostCompiler.h"

#include "graphc/BuildConfig.h"
#include "lib/Codegen/SignalCleanup.h"
#include "lib/Support/CompileCache.h"
#include "lib/Support/FileTree.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

using namespace llvm;

namespace graphc::codegen {

Expected<BuildDirectory> BuildDirectory::create(StringRef given,
                                                StringRef prefix) {
  SmallString<256> dir(given);
  bool temporary = dir.empty();
  if (temporary) {
    if (std::error_code ec = sys::fs::createUniqueDirectory(prefix, dir))
      return createStringError(ec, "cannot create a build directory");
  } else if (std::error_code ec = sys::fs::create_directories(dir)) {
    return createStringError(ec, "cannot create %s", dir.c_str());
  }
  return BuildDirectory(std::string(dir), temporary);
}

BuildDirectory::BuildDirectory(std::string dir, bool temporary)
    : dir(std::move(dir)), keepDir(!temporary) {
  if (temporary)
    removeOnSignal = std::make_unique<SignalCleanup>(this->dir);
}

BuildDirectory::BuildDirectory(BuildDirectory &&other)
    : dir(std::move(other.dir)), keepDir(other.keepDir),
      removeOnSignal(std::move(other.removeOnSignal)) {
  other.keepDir = true;
}

BuildDirectory::~BuildDirectory() {
  if (!keepDir)
    (void)removeTree(dir);
}

std::string BuildDirectory::file(StringRef name) const {
  SmallString<256> path(dir);
  sys::path::append(path, name);
  return std::string(path);
}

namespace {
/// Runs `program` with `argv`, its output and errors into `logPath`, stdin
/// from /dev/null and, when `tmpDir` is not empty, TMPDIR=`tmpDir`, in a
/// process group of its own that SignalKill kills with graphc. Returns its
/// exit status, or -1 (not started) or -2 (killed) with `message` set.
int runInOwnGroup(StringRef program, ArrayRef<StringRef> argv,
                  StringRef logPath, StringRef tmpDir, std::string &message) {
  std::vector<std::string> args(argv.begin(), argv.end());
  std::vector<char *> argPointers;
  for (std::string &arg : args)
    argPointers.push_back(arg.data());
  argPointers.push_back(nullptr);
  std::vector<std::string> env;
  for (char **entry = environ; entry && *entry; ++entry)
    if (tmpDir.empty() || !StringRef(*entry).starts_with("TMPDIR="))
      env.push_back(*entry);
  if (!tmpDir.empty())
    env.push_back("TMPDIR=" + tmpDir.str());
  std::vector<char *> envPointers;
  for (std::string &entry : env)
    envPointers.push_back(entry.data());
  envPointers.push_back(nullptr);

  std::string programPath = program.str(), log = logPath.str();
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
                                   O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  // Its own group (its pid), so that graphc kills it and everything it
  // starts on SIGINT/SIGTERM/SIGHUP; the default signal actions, and no
  // signal blocked (whatever the spawning thread blocks).
  posix_spawnattr_setpgroup(&attributes, 0);
  sigset_t defaults, none;
  sigemptyset(&defaults);
  sigemptyset(&none);
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGPIPE})
    sigaddset(&defaults, signal);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP |
                                            POSIX_SPAWN_SETSIGDEF |
                                            POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  int error = posix_spawn(&pid, programPath.c_str(), &actions, &attributes,
                          argPointers.data(), envPointers.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error) {
    message = "cannot run " + programPath + ": " + std::strerror(error);
    return -1;
  }
  SignalKill killOnSignal(pid);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      message = std::string("cannot wait for it: ") + std::strerror(errno);
      return -1;
    }
  }
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  message = WIFSIGNALED(status) ? std::string(strsignal(WTERMSIG(status)))
                                : std::string("stopped");
  return -2;
}
} // namespace

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
  std::string message;
  int rc = runInOwnGroup(compiler, {compiler, "--version"}, versionPath,
                         /*tmpDir=*/"", message);
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
  // Its temporary files go into a folder of its own in workDir, removed
  // after it (and with workDir if graphc is interrupted): nothing is left in
  // $TMPDIR whatever happens to it.
  SmallString<256> tmpDir(workDir);
  if (std::error_code ec = sys::fs::make_absolute(tmpDir))
    return createStringError(ec, "cannot resolve %s", tmpDir.c_str());
  sys::path::append(tmpDir, "compiler-tmp");
  SmallString<256> uniqueTmp;
  if (std::error_code ec = sys::fs::createUniqueDirectory(tmpDir, uniqueTmp))
    return createStringError(ec, "cannot create a folder in %s: %s",
                             workDir.str().c_str(), ec.message().c_str());
  std::string message;
  int rc;
  {
    SignalCleanup removeOnSignal(uniqueTmp);
    rc = runInOwnGroup(*shell, argv, logPath, uniqueTmp, message);
  }
  (void)removeTree(uniqueTmp);
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
