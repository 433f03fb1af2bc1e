//===- OutputPaths.cpp - what graphc compile may overwrite ----------------===//

#include "lib/Pipeline/OutputPaths.h"

#include "lib/Artifact/ArtifactReader.h"
#include "lib/Support/ReadFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <sys/stat.h>

using namespace llvm;

namespace graphc {
namespace {

Error refuse(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), "%s",
                           message.str().c_str());
}

/// Whether `path` and `other` are the same file (device and inode, so hard
/// links and other spellings count).
bool sameFile(const struct stat &info, const std::string &other) {
  struct stat otherInfo;
  return stat(other.c_str(), &otherInfo) == 0 &&
         info.st_dev == otherInfo.st_dev && info.st_ino == otherInfo.st_ino;
}

/// The artifact at `path`, read as data; nullopt when it is not one. A
/// damaged graphc artifact, or one of another ABI (whose view holds its
/// version only), is still one: it may be replaced.
std::optional<rt::ArtifactRead>
readExistingArtifact(const std::string &path) {
  Expected<std::unique_ptr<MemoryBuffer>> file = readUserFile(path);
  if (!file) {
    consumeError(file.takeError());
    return std::nullopt;
  }
  StringRef bytes = (*file)->getBuffer();
  rt::ArtifactRead read = rt::readArtifact(bytes.data(), bytes.size());
  if (read.error == rt::ArtifactError::notAnArtifact)
    return std::nullopt;
  return read;
}

/// Checks one existing file at `path` that the compile would replace;
/// `isOurs` says whether it holds what graphc writes there, or else may say
/// in `why` what it cannot tell.
Error checkReplaceable(const std::string &path, const std::string &flag,
                       const CompileOptions &options,
                       function_ref<bool(std::string &why)> isOurs) {
  struct stat info;
  if (lstat(path.c_str(), &info) != 0)
    return Error::success();
  if (!S_ISREG(info.st_mode))
    return refuse(flag + " '" + path +
                  "' exists and is not a regular file; refusing to replace it");
  if (sameFile(info, options.inputPath))
    return refuse(flag + " '" + path +
                  "' is the input model; refusing to replace it");
  std::string why;
  if (!options.force && !isOurs(why))
    return refuse(flag + " '" + path + "' " +
                  (why.empty() ? "exists and is not a graphc model" : why) +
                  "; refusing to replace it (--force replaces it)");
  return Error::success();
}

} // namespace

Error checkOutputFiles(const CompileOptions &options) {
  const std::string &out = options.outputPath;
  std::optional<rt::ArtifactRead> existing;
  if (Error e = checkReplaceable(out, "-o", options, [&](std::string &) {
        existing = readExistingArtifact(out);
        return existing.has_value();
      }))
    return e;
  if (!options.weightsSideFile)
    return Error::success();
  std::string side = out + ".weights";
  return checkReplaceable(side, "the weights file", options,
                          [&](std::string &why) {
    // Ours when the artifact at -o names it as its side file. An artifact
    // of another graphc release (another ABI) cannot say: its fields are
    // not this reader's.
    if (!existing)
      existing = readExistingArtifact(out);
    if (!existing)
      return false;
    if (existing->error == rt::ArtifactError::abiMismatch) {
      why = "is beside an artifact of another graphc release (descriptor "
            "ABI v" +
            std::to_string(existing->view.abiVersion) +
            "), which this graphc cannot read to tell whether it is that "
            "artifact's weights";
      return false;
    }
    return !existing->view.weightsEmbedded &&
           existing->view.weightsFile == sys::path::filename(side);
  });
}

Error checkKeepDir(const CompileOptions &options) {
  const std::string &dir = options.keepDir;
  if (dir.empty())
    return Error::success();
  sys::fs::file_status status;
  if (sys::fs::status(dir, status, /*Follow=*/false))
    return Error::success();
  if (status.type() != sys::fs::file_type::directory_file)
    return refuse("--keep '" + dir + "' exists and is not a directory");
  std::error_code ec;
  sys::fs::directory_iterator entry(dir, ec);
  if (ec)
    return refuse("--keep '" + dir + "': " + ec.message());
  if (entry != sys::fs::directory_iterator())
    return refuse("--keep '" + dir +
                  "' is not empty; give a new or empty directory");
  return Error::success();
}

} // namespace graphc
