//===- CompileCache.h - content-addressed cache of compiled code -*- C++
//-*-===//
//
// What graphc compiles with an outside compiler (NVRTC images, the host
// emulation image, the model's host object) is kept under a cache directory,
// named by a digest of everything that determines it. A compile whose parts
// are all cached runs no outside compiler; its artifact is byte-identical to
// a cold compile's, because an entry is only ever what that compiler made of
// exactly that input.
//
// An entry is one file, <dir>/v1/<kind>/<key digest>:
//
//   "graphc-cache-v1\n"   16 bytes
//   key digest            32 bytes (BLAKE3 of the key's fields)
//   payload size          8 bytes, little-endian
//   payload digest        32 bytes (BLAKE3 of the payload)
//   payload
//
// It is written to a temporary file beside it and renamed into place, so
// concurrent compiles never see half an entry, and two that make the same
// entry both succeed with the same bytes. Every read checks the header and
// the payload digest: a damaged entry is removed and recompiled, never used.
// A hit refreshes the entry's modification time; trim() removes the least
// recently used entries once the directory holds more than its bound.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_COMPILECACHE_H
#define GRAPHC_LIB_SUPPORT_COMPILECACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace graphc {

/// Everything that determines one cached output. Fields are hashed with
/// their names and lengths, so no two different field lists collide by
/// concatenation.
class CacheKey {
public:
  /// `kind` names the compiler and output ("nvrtc", "host-object", ...): it
  /// is the entry's directory.
  explicit CacheKey(llvm::StringRef kind);

  CacheKey &add(llvm::StringRef field, llvm::StringRef value);
  CacheKey &addBytes(llvm::StringRef field, llvm::ArrayRef<char> bytes);

  llvm::StringRef kind() const { return kindName; }
  std::array<uint8_t, 32> digest() const;

private:
  std::string kindName;
  llvm::BLAKE3 hasher;
};

/// The entries of one kind.
struct CacheKindUsage {
  std::string kind;
  int64_t entries = 0;
  uint64_t bytes = 0;
};

/// What one compile did with the cache.
struct CacheStats {
  int64_t hits = 0;     ///< entries used
  int64_t misses = 0;   ///< outputs compiled (and stored)
  int64_t rejected = 0; ///< damaged entries removed, then recompiled
  int64_t storeFailures = 0;
  int64_t evicted = 0; ///< entries trim() removed
};

class CompileCache {
public:
  /// The default bound on the directory's size.
  static constexpr uint64_t kDefaultMaxBytes = uint64_t(2) << 30;

  /// $GRAPHC_CACHE_DIR when set and not empty, else `graphc` under the
  /// user's cache directory ($XDG_CACHE_HOME or ~/.cache); empty when there
  /// is neither.
  static std::string defaultDirectory();

  /// Opens the cache in `directory`, creating it. The error names the
  /// directory and why it cannot be used.
  static llvm::Expected<std::unique_ptr<CompileCache>>
  open(llvm::StringRef directory, uint64_t maxBytes = kDefaultMaxBytes);

  /// The payload stored under `key`, checked; nullopt when there is none or
  /// it was damaged (then it is removed). Safe to call from several threads.
  std::optional<std::vector<char>> lookup(const CacheKey &key);

  /// Stores `payload` under `key`. A failure (a full disk, a read-only
  /// directory) is counted and kept for warnings(): the compile itself goes
  /// on. Safe to call from several threads.
  void store(const CacheKey &key, llvm::ArrayRef<char> payload);

  /// Removes the least recently used entries until the directory holds at
  /// most the bound, and temporary files that writers which died left
  /// behind an hour ago or more. Never follows a symbolic link: one inside
  /// the directory is neither counted nor followed.
  void trim();

  /// Entries and bytes per kind, in kind order (temporary files left out).
  std::vector<CacheKindUsage> usage() const;

  /// Removes every entry (and temporary file) of this layout, and any
  /// symbolic link in it (the link itself, never its target); returns how
  /// many entries it removed.
  int64_t clear();

  CacheStats stats() const;
  /// Why stores failed, one line per distinct reason.
  std::vector<std::string> warnings() const;
  /// The directory given to open(), made absolute.
  llvm::StringRef directory() const { return top; }
  uint64_t maxBytes() const { return bound; }

private:
  CompileCache(std::string top, std::string root, uint64_t bound)
      : top(std::move(top)), root(std::move(root)), bound(bound) {}
  std::string entryPath(const CacheKey &key) const;

  std::string top;
  /// top/v1: where this layout's entries live.
  std::string root;
  uint64_t bound;
  mutable std::mutex mutex;
  CacheStats counts;
  std::vector<std::string> storeProblems;
};

/// Looks `key` up in `cache` (when not null); on a miss runs `compile` and
/// stores what it returns.
llvm::Expected<std::vector<char>>
cachedCompile(CompileCache *cache, const CacheKey &key,
              llvm::function_ref<llvm::Expected<std::vector<char>>()> compile);

} // namespace graphc

#endif
