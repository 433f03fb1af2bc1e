//===- FileTree.cpp - walking and removing without following links --------===//
#include "lib/Support/FileTree.h"

#include "llvm/ADT/SmallString.h"

#include <string>
#include <vector>

using namespace llvm;
namespace fs = llvm::sys::fs;

namespace {
/// The entries of directory `dir` (paths), without following links.
std::error_code listDir(StringRef dir, std::vector<std::string> &entries) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec, /*follow_symlinks=*/false), end;
       it != end && !ec; it.increment(ec))
    entries.push_back(it->path());
  return ec;
}
} // namespace

std::error_code
graphc::walkTree(StringRef root,
                 function_ref<void(StringRef, const fs::file_status &)> visit) {
  std::vector<std::string> pending{root.str()};
  std::error_code first;
  while (!pending.empty()) {
    std::string dir = std::move(pending.back());
    pending.pop_back();
    std::vector<std::string> entries;
    if (std::error_code ec = listDir(dir, entries); ec && !first)
      first = ec;
    for (const std::string &entry : entries) {
      fs::file_status status;
      if (fs::status(entry, status, /*Follow=*/false))
        continue;
      visit(entry, status);
      if (status.type() == fs::file_type::directory_file)
        pending.push_back(entry);
    }
  }
  return first;
}

std::error_code graphc::removeTree(StringRef path) {
  fs::file_status status;
  if (std::error_code ec = fs::status(path, status, /*Follow=*/false))
    return ec == std::errc::no_such_file_or_directory ? std::error_code() : ec;
  if (status.type() != fs::file_type::directory_file)
    return fs::remove(path, /*IgnoreNonExisting=*/true);
  std::vector<std::string> entries;
  std::error_code first = listDir(path, entries);
  for (const std::string &entry : entries)
    if (std::error_code ec = removeTree(entry); ec && !first)
      first = ec;
  if (std::error_code ec = fs::remove(path, /*IgnoreNonExisting=*/true);
      ec && !first)
    first = ec;
  return first;
}
