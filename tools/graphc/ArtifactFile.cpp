//===- ArtifactFile.cpp - a model .so read from disk as data --------------===//

#include "tools/graphc/ArtifactFile.h"

#include "lib/Support/ReadFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

namespace graphc::tools {

llvm::Expected<ArtifactFile> readArtifactFile(const std::string &path) {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(message);
  };
  // Never blocks on a FIFO: opened without waiting, then checked regular.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file = readUserFile(path);
  if (!file)
    return file.takeError();
  llvm::StringRef bytes = (*file)->getBuffer();
  rt::ArtifactRead read = rt::readArtifact(bytes.data(), bytes.size());
  switch (read.error) {
  case rt::ArtifactError::none:
    break;
  case rt::ArtifactError::notAnArtifact:
    return fail("'" + path + "' is not a graphc model: " + read.message);
  case rt::ArtifactError::abiMismatch:
    return fail("'" + path + "' has " + read.message);
  case rt::ArtifactError::malformed:
    return fail("malformed artifact '" + path + "': " + read.message);
  }
  ArtifactFile result;
  result.checksumOk = rt::computeArtifactChecksum(bytes.data(), bytes.size(),
                                                  read.view.checksumOffset) ==
                      read.view.checksum;
  result.view = std::move(read.view);
  return result;
}

} // namespace graphc::tools
