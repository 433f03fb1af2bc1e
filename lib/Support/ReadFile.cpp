//===- ReadFile.cpp - reading a file a user names -------------------------===//
#include "lib/Support/ReadFile.h"

#include "lib/Support/RegularFile.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

#include <cstring>

using namespace llvm;

Expected<int> graphc::openUserFile(StringRef path) {
  SmallString<256> name(path);
  OpenFailure failure;
  int fd = openRegularFile(name.c_str(), failure);
  if (fd >= 0)
    return fd;
  if (failure.error == 0)
    return createStringError("'" + path + "' is not a regular file");
  return createStringError(
      std::error_code(failure.error, std::generic_category()),
      "cannot open '" + path + "': " + std::strerror(failure.error));
}

namespace {
Expected<std::unique_ptr<MemoryBuffer>> readOpened(StringRef path, int64_t size,
                                                   uint64_t offset) {
  Expected<int> fd = graphc::openUserFile(path);
  if (!fd)
    return fd.takeError();
  auto closeFile =
      make_scope_exit([&] { sys::Process::SafelyCloseFileDescriptor(*fd); });
  sys::fs::file_t file = sys::fs::convertFDToNativeFile(*fd);
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      size < 0 ? MemoryBuffer::getOpenFile(file, path, /*FileSize=*/-1,
                                           /*RequiresNullTerminator=*/false)
               : MemoryBuffer::getOpenFileSlice(file, path,
                                                static_cast<uint64_t>(size),
                                                static_cast<int64_t>(offset));
  if (!buffer)
    return createStringError(buffer.getError(),
                             "cannot read '" + path +
                                 "': " + buffer.getError().message());
  return std::move(*buffer);
}
} // namespace

Expected<std::unique_ptr<MemoryBuffer>> graphc::readUserFile(StringRef path) {
  return readOpened(path, -1, 0);
}

Expected<std::unique_ptr<MemoryBuffer>>
graphc::readUserFileSlice(StringRef path, uint64_t size, uint64_t offset) {
  return readOpened(path, static_cast<int64_t>(size), offset);
}
