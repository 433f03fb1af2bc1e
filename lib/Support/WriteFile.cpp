//===- WriteFile.cpp - writing files with errors reported -----------------===//
#include "lib/Support/WriteFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;

Error graphc::closeStream(raw_fd_ostream &os, StringRef name) {
  os.close();
  if (!os.has_error())
    return Error::success();
  std::error_code ec = os.error();
  os.clear_error();
  return createStringError(ec, "cannot write '" + name + "': " + ec.message());
}

Error graphc::writeFileAtomically(StringRef path,
                                  function_ref<Error(raw_ostream &)> write) {
  SmallString<256> temp;
  int fd = -1;
  if (std::error_code ec =
          sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, temp))
    return createStringError(ec,
                             "cannot write '" + path + "': " + ec.message());
  Error written = [&]() -> Error {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    Error error = write(os);
    Error closed = closeStream(os, path);
    if (error) {
      consumeError(std::move(closed));
      return error;
    }
    return closed;
  }();
  if (!written)
    if (std::error_code ec = sys::fs::rename(temp, path))
      written =
          createStringError(ec, "cannot write '" + path + "': " + ec.message());
  if (written)
    sys::fs::remove(temp);
  return written;
}
