//===- ElfCheck.h - sanity checks before dlopen -----------------*- C++ -*-===//
//
// dlopen maps segments without comparing them to the file size, so a
// truncated .so can load and then fault on first access. These checks reject
// files that are not complete shared objects for this machine first.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_ELFCHECK_H
#define GRAPHC_RUNTIME_SRC_ELFCHECK_H

#include <string>

namespace graphc::rt {

/// Returns "" when the file at `path` (open as `fd`) is a shared object for
/// this machine whose headers and loadable segments lie within the file;
/// otherwise the reason it is not.
std::string checkLoadableElf(int fd);

} // namespace graphc::rt

#endif
