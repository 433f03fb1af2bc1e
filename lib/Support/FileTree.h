//===- FileTree.h - walking and removing without following links *- C++ -*-===//
//
// graphc deletes in folders others can write into (the compile cache, a
// Triton repository, $TMPDIR). A symbolic link planted there must never lead
// a deletion elsewhere: these helpers look at every entry with lstat,
// descend into real directories only, and remove a link itself, never what
// it points to.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_FILETREE_H
#define GRAPHC_LIB_SUPPORT_FILETREE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

#include <system_error>

namespace graphc {

/// Calls `visit` with the path and lstat status of every entry under
/// `root` (not `root` itself), descending only into real directories.
/// Returns the first error listing a directory.
std::error_code
walkTree(llvm::StringRef root,
         llvm::function_ref<void(llvm::StringRef path,
                                 const llvm::sys::fs::file_status &status)>
             visit);

/// Removes `path`: a directory with everything under it, anything else
/// (a symbolic link included) by unlinking it. Never follows a link. A
/// missing path is success; otherwise the first error.
std::error_code removeTree(llvm::StringRef path);

} // namespace graphc

#endif
