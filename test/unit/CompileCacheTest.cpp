//===- CompileCacheTest.cpp - the compile cache ---------------------------===//
//
// Entries come back byte for byte; damaged ones are refused and removed;
// trim() evicts the least recently used; concurrent writers of one entry all
// succeed; a cache it cannot write to slows a compile down but never fails it.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/CompileCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace graphc;
using namespace llvm;

namespace {

std::vector<char> bytesOf(StringRef text) {
  return std::vector<char>(text.begin(), text.end());
}

class CompileCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("graphc-cache-test", dir));
  }
  void TearDown() override { sys::fs::remove_directories(dir); }

  std::unique_ptr<CompileCache> openCache(uint64_t bound = 1 << 20) {
    auto cache = CompileCache::open(dir, bound);
    EXPECT_TRUE(bool(cache)) << toString(cache.takeError());
    return cache ? std::move(*cache) : nullptr;
  }

  /// The one file under <dir>/v1/<kind>/.
  std::string entryFile(StringRef kind) {
    SmallString<256> folder(dir);
    sys::path::append(folder, "v1", kind);
    std::error_code ec;
    std::string found;
    for (sys::fs::directory_iterator it(folder, ec), end; it != end && !ec;
         it.increment(ec)) {
      EXPECT_TRUE(found.empty())
          << "more than one entry in " << folder.str().str();
      found = it->path();
    }
    return found;
  }

  SmallString<256> dir;
};

std::string readFile(StringRef path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  return buffer ? (*buffer)->getBuffer().str() : "";
}

void writeFile(StringRef path, StringRef bytes) {
  std::error_code ec;
  raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec) << ec.message();
  os << bytes;
}

TEST(CacheKey, FieldsAreDelimited) {
  auto digest = [](StringRef a, StringRef b) {
    CacheKey key("k");
    key.add("x", a).add("y", b);
    return key.digest();
  };
  EXPECT_EQ(digest("ab", "c"), digest("ab", "c"));
  EXPECT_NE(digest("ab", "c"), digest("a", "bc"));
  EXPECT_NE(digest("", "abc"), digest("abc", ""));
  CacheKey named("k");
  named.add("xy", "c");
  CacheKey split("k");
  split.add("x", "yc");
  EXPECT_NE(named.digest(), split.digest());
  EXPECT_NE(CacheKey("a").digest(), CacheKey("b").digest());
}

TEST(CacheKey, DigestLeavesTheKeyUsable) {
  CacheKey key("k");
  key.add("a", "1");
  auto first = key.digest();
  EXPECT_EQ(first, key.digest());
  key.add("b", "2");
  EXPECT_NE(first, key.digest());
}

TEST_F(CompileCacheTest, StoredPayloadComesBackByteForByte) {
  auto cache = openCache();
  CacheKey key("nvrtc");
  key.add("source", "__global__ void k() {}");
  EXPECT_FALSE(cache->lookup(key));
  std::string payload("\0\x01image\xff", 8);
  cache->store(key, bytesOf(payload));
  std::optional<std::vector<char>> hit = cache->lookup(key);
  ASSERT_TRUE(hit);
  EXPECT_EQ(std::string(hit->begin(), hit->end()), payload);
  CacheKey other("nvrtc");
  other.add("source", "__global__ void j() {}");
  EXPECT_FALSE(cache->lookup(other));
  CacheStats stats = cache->stats();
  EXPECT_EQ(stats.hits, 1);
  EXPECT_EQ(stats.misses, 2);
  EXPECT_EQ(stats.rejected, 0);
}

TEST_F(CompileCacheTest, EmptyPayloadIsAnEntry) {
  auto cache = openCache();
  CacheKey key("host-object");
  cache->store(key, {});
  std::optional<std::vector<char>> hit = cache->lookup(key);
  ASSERT_TRUE(hit);
  EXPECT_TRUE(hit->empty());
}

TEST_F(CompileCacheTest, AnotherProcessReadsWhatOneStored) {
  CacheKey key("nvrtc");
  key.add("source", "s");
  openCache()->store(key, bytesOf("cubin"));
  std::optional<std::vector<char>> hit = openCache()->lookup(key);
  ASSERT_TRUE(hit);
  EXPECT_EQ(std::string(hit->begin(), hit->end()), "cubin");
}

/// Damages the entry at `path` with `damage` and checks that the
/// entry is refused, counted and removed, and that a new store heals it.
void expectRejected(CompileCache &cache, const CacheKey &key,
                    const std::string &path,
                    llvm::function_ref<std::string(std::string)> damage) {
  writeFile(path, damage(readFile(path)));
  EXPECT_FALSE(cache.lookup(key));
  EXPECT_FALSE(sys::fs::exists(path)) << "a damaged entry stays behind";
  cache.store(key, bytesOf("payload"));
  EXPECT_TRUE(cache.lookup(key));
}

TEST_F(CompileCacheTest, DamagedEntriesAreRefusedAndRemoved) {
  auto cache = openCache();
  CacheKey key("host-object");
  key.add("model.cpp", "int f();");
  cache->store(key, bytesOf("payload"));
  std::string path = entryFile("host-object");
  ASSERT_FALSE(path.empty());
  std::string good = readFile(path);

  // A flipped payload byte, a truncated file, a truncated header, an empty
  // file, trailing bytes, a foreign magic.
  expectRejected(*cache, key, path, [](std::string bytes) {
    bytes.back() ^= 0x20;
    return bytes;
  });
  expectRejected(*cache, key, path,
                 [](std::string bytes) { return bytes.substr(0, 90); });
  expectRejected(*cache, key, path,
                 [](std::string bytes) { return bytes.substr(0, 20); });
  expectRejected(*cache, key, path, [](std::string) { return std::string(); });
  expectRejected(*cache, key, path,
                 [](std::string bytes) { return bytes + "x"; });
  expectRejected(*cache, key, path, [](std::string bytes) {
    bytes[0] = 'G';
    return bytes;
  });
  EXPECT_EQ(cache->stats().rejected, 6);
  EXPECT_EQ(readFile(path), good);
}

TEST_F(CompileCacheTest, AnEntryUnderAnotherKeysNameIsRefused) {
  // A valid entry copied to another key's file name (a collision, or a
  // hand-made mistake) does not answer for that key.
  auto cache = openCache();
  CacheKey stored("nvrtc"), asked("nvrtc");
  stored.add("source", "a");
  asked.add("source", "b");
  cache->store(stored, bytesOf("image of a"));
  std::string from = entryFile("nvrtc");
  std::string to = (sys::path::parent_path(from) + "/" +
                    toHex(asked.digest(), /*LowerCase=*/true))
                       .str();
  ASSERT_FALSE(sys::fs::copy_file(from, to));
  EXPECT_FALSE(cache->lookup(asked));
  EXPECT_EQ(cache->stats().rejected, 1);
  EXPECT_TRUE(cache->lookup(stored));
}

TEST_F(CompileCacheTest, TrimEvictsTheLeastRecentlyUsed) {
  // Each entry is 88 header bytes and a 100-byte payload: the bound holds
  // two of them.
  auto cache = openCache(/*bound=*/2 * 188);
  std::vector<CacheKey> keys;
  for (int i = 0; i < 3; ++i) {
    keys.emplace_back("nvrtc");
    keys.back().add("source", std::to_string(i));
    cache->store(keys.back(), std::vector<char>(100, char('a' + i)));
  }
  // Age them: 0 is the oldest, then 1, then 2; then a hit makes 0 the most
  // recently used.
  auto now = std::chrono::system_clock::now();
  for (int i = 0; i < 3; ++i) {
    SmallString<256> path(dir);
    sys::path::append(path, "v1", "nvrtc",
                      toHex(keys[i].digest(), /*LowerCase=*/true));
    int fd;
    ASSERT_FALSE(sys::fs::openFileForWrite(path, fd, sys::fs::CD_OpenExisting,
                                           sys::fs::OF_Append));
    ASSERT_FALSE(sys::fs::setLastAccessAndModificationTime(
        fd, now - std::chrono::hours(10 - i)));
    sys::fs::closeFile(fd);
  }
  ASSERT_TRUE(cache->lookup(keys[0]));
  cache->trim();
  EXPECT_EQ(cache->stats().evicted, 1);
  EXPECT_TRUE(cache->lookup(keys[0]));
  EXPECT_FALSE(cache->lookup(keys[1]));
  EXPECT_TRUE(cache->lookup(keys[2]));
}

TEST_F(CompileCacheTest, TrimRemovesOnlyStaleTemporaryFiles) {
  auto cache = openCache();
  SmallString<256> folder(dir);
  sys::path::append(folder, "v1", "nvrtc");
  ASSERT_FALSE(sys::fs::create_directories(folder));
  std::string stale = (folder + "/.tmp-stale").str();
  std::string fresh = (folder + "/.tmp-fresh").str();
  writeFile(stale, "half an entry");
  writeFile(fresh, "being written");
  int fd;
  ASSERT_FALSE(sys::fs::openFileForWrite(stale, fd, sys::fs::CD_OpenExisting,
                                         sys::fs::OF_Append));
  ASSERT_FALSE(sys::fs::setLastAccessAndModificationTime(
      fd, std::chrono::system_clock::now() - std::chrono::hours(2)));
  sys::fs::closeFile(fd);
  cache->trim();
  EXPECT_FALSE(sys::fs::exists(stale));
  EXPECT_TRUE(sys::fs::exists(fresh));
}

TEST_F(CompileCacheTest, ConcurrentWritersOfOneEntryAgree) {
  // Two caches on one directory stand for two compiles at once.
  auto first = openCache();
  auto second = openCache();
  CacheKey key("nvrtc");
  key.add("source", "shared");
  std::vector<char> payload(1 << 16);
  for (size_t i = 0; i < payload.size(); ++i)
    payload[i] = char(i * 7);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      CompileCache &cache = t % 2 ? *first : *second;
      for (int round = 0; round < 20; ++round) {
        cache.store(key, payload);
        std::optional<std::vector<char>> hit = cache.lookup(key);
        if (!hit || *hit != payload)
          ++wrong;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(first->stats().rejected + second->stats().rejected, 0);
  EXPECT_EQ(first->stats().storeFailures + second->stats().storeFailures, 0);
}

TEST_F(CompileCacheTest, AStoreThatFailsIsAWarning) {
  // A file where the kind's folder belongs: stores fail, lookups miss.
  auto cache = openCache();
  SmallString<256> blocker(dir);
  sys::path::append(blocker, "v1", "nvrtc");
  writeFile(blocker, "not a folder");
  CacheKey key("nvrtc");
  cache->store(key, bytesOf("cubin"));
  cache->store(key, bytesOf("cubin"));
  EXPECT_FALSE(cache->lookup(key));
  EXPECT_EQ(cache->stats().storeFailures, 2);
  std::vector<std::string> warnings = cache->warnings();
  ASSERT_EQ(warnings.size(), 1u) << "one line per distinct reason";
  EXPECT_NE(warnings[0].find("nvrtc"), std::string::npos) << warnings[0];
}

TEST_F(CompileCacheTest, OpenRefusesAFile) {
  SmallString<256> file(dir);
  sys::path::append(file, "plain");
  writeFile(file, "x");
  auto cache = CompileCache::open(file);
  ASSERT_FALSE(bool(cache));
  std::string message = toString(cache.takeError());
  EXPECT_NE(message.find("plain"), std::string::npos) << message;
}

TEST_F(CompileCacheTest, CachedCompileRunsTheCompilerOnlyOnAMiss) {
  auto cache = openCache();
  CacheKey key("host-object");
  key.add("model.cpp", "x");
  int runs = 0;
  auto compile = [&]() -> Expected<std::vector<char>> {
    ++runs;
    return bytesOf("object");
  };
  for (int i = 0; i < 3; ++i) {
    Expected<std::vector<char>> out = cachedCompile(cache.get(), key, compile);
    ASSERT_TRUE(bool(out));
    EXPECT_EQ(std::string(out->begin(), out->end()), "object");
  }
  EXPECT_EQ(runs, 1);
  // Without a cache every call compiles; a failure is returned, not stored.
  Expected<std::vector<char>> direct = cachedCompile(nullptr, key, compile);
  ASSERT_TRUE(bool(direct));
  EXPECT_EQ(runs, 2);
  CacheKey failing("host-object");
  failing.add("model.cpp", "does not compile");
  auto broken = []() -> Expected<std::vector<char>> {
    return createStringError(inconvertibleErrorCode(), "syntax error");
  };
  Expected<std::vector<char>> failed =
      cachedCompile(cache.get(), failing, broken);
  ASSERT_FALSE(bool(failed));
  EXPECT_EQ(toString(failed.takeError()), "syntax error");
  EXPECT_FALSE(cache->lookup(failing));
}

} // namespace
