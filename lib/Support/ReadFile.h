//===- ReadFile.h - reading a file a user names -----------------*- C++ -*-===//
#ifndef GRAPHC_LIB_SUPPORT_READFILE_H
#define GRAPHC_LIB_SUPPORT_READFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace graphc {

/// Opens `path` with openRegularFile (never blocking on a FIFO or a
/// device) and returns the file's descriptor; the error is one line
/// naming the file: "cannot open 'p': <why>" or "'p' is not a regular
/// file".
llvm::Expected<int> openUserFile(llvm::StringRef path);

/// Reads the regular file at `path` whole (see openUserFile).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readUserFile(llvm::StringRef path);

/// Reads `size` bytes at `offset` of the regular file at `path`.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readUserFileSlice(llvm::StringRef path, uint64_t size, uint64_t offset);

} // namespace graphc

#endif
