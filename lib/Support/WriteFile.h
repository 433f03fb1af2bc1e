//===- WriteFile.h - writing files with errors reported ---------*- C++ -*-===//
//
// A raw_fd_ostream that is destroyed with an error it holds aborts the
// process ("IO failure on output stream"). Every file graphc writes ends
// here instead: the error becomes one line naming the file, and a failed
// write (a full disk, a file size limit) leaves nothing behind.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_WRITEFILE_H
#define GRAPHC_LIB_SUPPORT_WRITEFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace graphc {

/// Closes `os` and returns the error it met, if any, cleared from the
/// stream: "cannot write '<name>': <why>".
llvm::Error closeStream(llvm::raw_fd_ostream &os, llvm::StringRef name);

/// Writes `path` through `write` into a temporary file beside it, renamed
/// into place once complete: on any failure (of `write`, of the stream, of
/// the rename) the temporary is removed, whatever was at `path` is left as
/// it was, and the error names `path`.
llvm::Error
writeFileAtomically(llvm::StringRef path,
                    llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write);

} // namespace graphc

#endif
