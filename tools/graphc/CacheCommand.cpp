//===- CacheCommand.cpp - `graphc cache` ----------------------------------===//
//
// What the compile cache holds, per kind of entry; --clear empties it and
// --trim evicts the least recently used entries down to a size.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/CompileCache.h"
#include "lib/Support/Format.h"
#include "tools/graphc/Commands.h"

#include "CLI/CLI.hpp"
#include "llvm/Support/raw_ostream.h"
#include <nlohmann/json.hpp>

#include <memory>

namespace graphc::tools {
namespace {

struct CacheFlags {
  std::string directory;
  bool clear = false;
  std::string trim;
  bool json = false;
};

int runCache(const CacheFlags &flags) {
  std::string directory = flags.directory.empty()
                              ? CompileCache::defaultDirectory()
                              : flags.directory;
  uint64_t bound = CompileCache::kDefaultMaxBytes;
  if (!flags.trim.empty()) {
    auto bytes = parseByteSize("--trim", flags.trim);
    if (!bytes)
      return reportError(bytes.takeError());
    bound = *bytes;
  }
  auto opened = CompileCache::open(directory, bound);
  if (!opened)
    return reportError(opened.takeError());
  CompileCache &cache = **opened;
  int64_t removed = 0;
  if (flags.clear)
    removed = cache.clear();
  else if (!flags.trim.empty()) {
    cache.trim();
    removed = cache.stats().evicted;
  }

  std::vector<CacheKindUsage> kinds = cache.usage();
  int64_t entries = 0;
  uint64_t bytes = 0;
  for (const CacheKindUsage &kind : kinds) {
    entries += kind.entries;
    bytes += kind.bytes;
  }
  if (flags.json) {
    nlohmann::ordered_json report;
    report["directory"] = cache.directory().str();
    report["removed"] = removed;
    report["entries"] = entries;
    report["bytes"] = bytes;
    nlohmann::ordered_json list = nlohmann::json::array();
    for (const CacheKindUsage &kind : kinds)
      list.push_back({{"kind", kind.kind},
                      {"entries", kind.entries},
                      {"bytes", kind.bytes}});
    report["kinds"] = std::move(list);
    llvm::outs() << report.dump(1) << "\n";
    return 0;
  }
  llvm::raw_ostream &os = llvm::outs();
  if (flags.clear)
    os << "removed " << removed << " entries\n";
  else if (!flags.trim.empty())
    os << "removed " << removed << " least recently used entries to keep "
       << formatBytes(bound) << "\n";
  os << "cache     " << cache.directory() << "\n"
     << "entries   " << entries << " (" << formatBytes(bytes) << ")\n";
  for (const CacheKindUsage &kind : kinds)
    os << "  " << kind.kind << ": " << kind.entries << " ("
       << formatBytes(kind.bytes) << ")\n";
  return 0;
}

} // namespace

void addCacheCommand(CLI::App &app, int &exitCode) {
  auto flags = std::make_shared<CacheFlags>();
  CLI::App *cmd = app.add_subcommand(
      "cache", "show, clear or trim the compile cache of `graphc compile`");
  cmd->add_option("--cache-dir", flags->directory,
                  "the cache's directory (default: $GRAPHC_CACHE_DIR, else "
                  "graphc under $XDG_CACHE_HOME or ~/.cache)");
  CLI::Option *clear =
      cmd->add_flag("--clear", flags->clear, "remove every entry");
  cmd->add_option("--trim", flags->trim,
                  "remove the least recently used entries until the cache "
                  "holds at most this many bytes (KiB/MiB/GiB/TiB suffixes)")
      ->excludes(clear);
  cmd->add_flag("--json", flags->json, "print JSON");
  cmd->callback([flags, &exitCode] { exitCode = runCache(*flags); });
}

} // namespace graphc::tools
