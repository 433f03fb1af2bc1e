//===- CompileCache.cpp - content-addressed cache of compiled code --------===//

#include "lib/Support/CompileCache.h"
#include "lib/Support/FileTree.h"
#include "lib/Support/RegularFile.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace graphc {
namespace {

constexpr char kMagic[] = "graphc-cache-v1\n";
constexpr size_t kMagicBytes = sizeof(kMagic) - 1;
constexpr size_t kDigestBytes = 32;
constexpr size_t kHeaderBytes = kMagicBytes + kDigestBytes + 8 + kDigestBytes;
/// The layout version: entries of another layout live in another folder and
/// are never read.
constexpr const char *kLayoutDir = "v1";
constexpr const char *kTempPrefix = ".tmp-";

std::array<uint8_t, 32> digestOf(ArrayRef<char> bytes) {
  return BLAKE3::hash<32>(ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
}

void hashLength(BLAKE3 &hasher, uint64_t length) {
  uint8_t bytes[8];
  support::endian::write64le(bytes, length);
  hasher.update(ArrayRef<uint8_t>(bytes));
}

} // namespace

CacheKey::CacheKey(StringRef kind) : kindName(kind.str()) { add("kind", kind); }

CacheKey &CacheKey::add(StringRef field, StringRef value) {
  return addBytes(field, ArrayRef<char>(value.data(), value.size()));
}

CacheKey &CacheKey::addBytes(StringRef field, ArrayRef<char> bytes) {
  hashLength(hasher, field.size());
  hasher.update(field);
  hashLength(hasher, bytes.size());
  hasher.update(ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  return *this;
}

std::array<uint8_t, 32> CacheKey::digest() const {
  // result() reads the state without finishing it: the key stays usable.
  BLAKE3 copy = hasher;
  return copy.result<32>();
}

std::string CompileCache::defaultDirectory() {
  if (const char *env = std::getenv("GRAPHC_CACHE_DIR"); env && *env)
    return env;
  SmallString<256> path;
  if (!sys::path::cache_directory(path))
    return "";
  sys::path::append(path, "graphc");
  return std::string(path);
}

Expected<std::unique_ptr<CompileCache>> CompileCache::open(StringRef directory,
                                                           uint64_t maxBytes) {
  if (directory.empty())
    return createStringError(inconvertibleErrorCode(),
                             "no cache directory: set GRAPHC_CACHE_DIR or "
                             "HOME, or pass --cache-dir");
  SmallString<256> top(directory);
  sys::fs::make_absolute(top);
  sys::path::remove_dots(top, /*remove_dot_dot=*/true);
  SmallString<256> root(top);
  sys::path::append(root, kLayoutDir);
  if (std::error_code ec = sys::fs::create_directories(root))
    return createStringError(ec, "cannot create the cache directory %s: %s",
                             root.c_str(), ec.message().c_str());
  if (!sys::fs::is_directory(root))
    return createStringError(inconvertibleErrorCode(),
                             "the cache directory %s is not a directory",
                             root.c_str());
  return std::unique_ptr<CompileCache>(
      new CompileCache(std::string(top), std::string(root), maxBytes));
}

std::string CompileCache::entryPath(const CacheKey &key) const {
  SmallString<256> path(root);
  sys::path::append(path, key.kind(), toHex(key.digest(), /*LowerCase=*/true));
  return std::string(path);
}

std::optional<std::vector<char>> CompileCache::lookup(const CacheKey &key) {
  std::string path = entryPath(key);
  auto count = [&](int64_t CacheStats::*field) {
    std::lock_guard<std::mutex> lock(mutex);
    ++(counts.*field);
  };
  // An entry that is not a regular file (a planted FIFO) is a miss.
  OpenFailure failure;
  int fd = openRegularFile(path.c_str(), failure);
  if (fd < 0) {
    count(&CacheStats::misses);
    return std::nullopt;
  }
  auto closeFile =
      make_scope_exit([&] { sys::Process::SafelyCloseFileDescriptor(fd); });
  auto buffer = MemoryBuffer::getOpenFile(sys::fs::convertFDToNativeFile(fd),
                                          path, /*FileSize=*/-1,
                                          /*RequiresNullTerminator=*/false);
  std::array<uint8_t, 32> keyDigest = key.digest();
  bool valid = false;
  std::vector<char> payload;
  if (buffer) {
    StringRef bytes = (*buffer)->getBuffer();
    if (bytes.size() >= kHeaderBytes && bytes.starts_with(kMagic) &&
        std::memcmp(bytes.data() + kMagicBytes, keyDigest.data(),
                    kDigestBytes) == 0) {
      uint64_t size =
          support::endian::read64le(bytes.data() + kMagicBytes + kDigestBytes);
      if (size == bytes.size() - kHeaderBytes) {
        payload.assign(bytes.begin() + kHeaderBytes, bytes.end());
        std::array<uint8_t, 32> payloadDigest = digestOf(payload);
        valid = std::memcmp(bytes.data() + kMagicBytes + kDigestBytes + 8,
                            payloadDigest.data(), kDigestBytes) == 0;
      }
    }
  }
  if (!valid) {
    // Whatever damaged it, the next compile stores a good one here.
    sys::fs::remove(path);
    count(&CacheStats::rejected);
    count(&CacheStats::misses);
    return std::nullopt;
  }
  // Recently used entries are the last to go. A read-only cache keeps its
  // times, which is no reason to recompile.
  (void)sys::fs::setLastAccessAndModificationTime(
      fd, std::chrono::system_clock::now());
  count(&CacheStats::hits);
  return payload;
}

void CompileCache::store(const CacheKey &key, ArrayRef<char> payload) {
  std::string path = entryPath(key);
  auto fail = [&](const Twine &why) {
    std::lock_guard<std::mutex> lock(mutex);
    ++counts.storeFailures;
    std::string text = why.str();
    if (!llvm::is_contained(storeProblems, text))
      storeProblems.push_back(std::move(text));
  };
  StringRef folder = sys::path::parent_path(path);
  if (std::error_code ec = sys::fs::create_directories(folder))
    return fail("cannot create " + folder + ": " + ec.message());
  SmallString<256> temp(folder);
  sys::path::append(temp, Twine(kTempPrefix) + "%%%%%%%%%%%%");
  int fd = -1;
  if (std::error_code ec = sys::fs::createUniqueFile(temp, fd, temp))
    return fail("cannot write in " + folder + ": " + ec.message());
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    std::array<uint8_t, 32> keyDigest = key.digest();
    std::array<uint8_t, 32> payloadDigest = digestOf(payload);
    char size[8];
    support::endian::write64le(size, payload.size());
    os.write(kMagic, kMagicBytes);
    os.write(reinterpret_cast<const char *>(keyDigest.data()), kDigestBytes);
    os.write(size, sizeof(size));
    os.write(reinterpret_cast<const char *>(payloadDigest.data()),
             kDigestBytes);
    os.write(payload.data(), payload.size());
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      sys::fs::remove(temp);
      return fail("cannot write " + temp + ": " + message);
    }
  }
  // Another compile may have stored the same entry meanwhile: it holds the
  // same bytes, and rename replaces it atomically.
  if (std::error_code ec = sys::fs::rename(temp, path)) {
    sys::fs::remove(temp);
    return fail("cannot rename " + temp + " to " + path + ": " + ec.message());
  }
}

void CompileCache::trim() {
  struct Entry {
    std::string path;
    uint64_t size;
    sys::TimePoint<> used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  auto now = std::chrono::system_clock::now();
  // Regular files only, found without following links: a link planted in
  // the cache never leads a deletion outside it.
  (void)walkTree(root, [&](StringRef path, const sys::fs::file_status &status) {
    if (status.type() != sys::fs::file_type::regular_file)
      return;
    if (sys::path::filename(path).starts_with(kTempPrefix)) {
      if (now - status.getLastModificationTime() > std::chrono::hours(1))
        sys::fs::remove(path);
      return;
    }
    entries.push_back(
        {path.str(), status.getSize(), status.getLastModificationTime()});
    total += status.getSize();
  });
  if (total <= bound)
    return;
  llvm::sort(entries, [](const Entry &a, const Entry &b) {
    return std::tie(a.used, a.path) < std::tie(b.used, b.path);
  });
  int64_t evicted = 0;
  for (const Entry &entry : entries) {
    if (total <= bound)
      break;
    // Another compile may be evicting too: what is gone is gone either way.
    if (!sys::fs::remove(entry.path, /*IgnoreNonExisting=*/false))
      ++evicted;
    total -= entry.size;
  }
  std::lock_guard<std::mutex> lock(mutex);
  counts.evicted += evicted;
}

std::vector<CacheKindUsage> CompileCache::usage() const {
  std::vector<CacheKindUsage> kinds;
  std::error_code ec;
  for (sys::fs::directory_iterator folder(root, ec, /*follow_symlinks=*/false),
       end;
       folder != end && !ec; folder.increment(ec)) {
    sys::fs::file_status folderStatus;
    if (sys::fs::status(folder->path(), folderStatus, /*Follow=*/false) ||
        folderStatus.type() != sys::fs::file_type::directory_file)
      continue;
    CacheKindUsage usage;
    usage.kind = sys::path::filename(folder->path()).str();
    std::error_code inner;
    for (sys::fs::directory_iterator it(folder->path(), inner), done;
         it != done && !inner; it.increment(inner)) {
      sys::fs::file_status status;
      if (sys::path::filename(it->path()).starts_with(kTempPrefix) ||
          sys::fs::status(it->path(), status, /*Follow=*/false) ||
          status.type() != sys::fs::file_type::regular_file)
        continue;
      ++usage.entries;
      usage.bytes += status.getSize();
    }
    kinds.push_back(std::move(usage));
  }
  llvm::sort(kinds, [](const CacheKindUsage &a, const CacheKindUsage &b) {
    return a.kind < b.kind;
  });
  return kinds;
}

int64_t CompileCache::clear() {
  int64_t removed = 0;
  // Files and links (the link itself: never what it points to), found
  // without following links; the folders stay.
  std::vector<std::pair<std::string, bool>> files;
  (void)walkTree(root, [&](StringRef path, const sys::fs::file_status &status) {
    if (status.type() == sys::fs::file_type::regular_file)
      files.push_back({path.str(), true});
    else if (status.type() == sys::fs::file_type::symlink_file)
      files.push_back({path.str(), false});
  });
  for (const auto &[file, regular] : files)
    if (!sys::fs::remove(file, /*IgnoreNonExisting=*/false) && regular &&
        !sys::path::filename(file).starts_with(kTempPrefix))
      ++removed;
  return removed;
}

CacheStats CompileCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return counts;
}

std::vector<std::string> CompileCache::warnings() const {
  std::lock_guard<std::mutex> lock(mutex);
  return storeProblems;
}

Expected<std::vector<char>>
cachedCompile(CompileCache *cache, const CacheKey &key,
              function_ref<Expected<std::vector<char>>()> compile) {
  if (cache)
    if (std::optional<std::vector<char>> hit = cache->lookup(key))
      return std::move(*hit);
  Expected<std::vector<char>> output = compile();
  if (output && cache)
    cache->store(key, *output);
  return output;
}

} // namespace graphc
