//===- TuningDbTest.cpp - the tuning database -----------------------------===//
//
// The file is untrusted input: every malformed entry is dropped with a note,
// never half-used; writing is deterministic; merging keeps the faster entry.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/TuningDb.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace graphc;

namespace {

class TuningDbTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tuning-db-test", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string write(llvm::StringRef name, llvm::StringRef text) {
    std::string path = (dir + "/" + name).str();
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec);
    EXPECT_FALSE(ec);
    out << text;
    return path;
  }

  llvm::SmallString<128> dir;
};

/// One well-formed entry; `fields` replaces or adds fields.
std::string entry(llvm::StringRef kernel, int sm, int blockSize,
                  int64_t medianNs, llvm::StringRef extra = "") {
  std::string text;
  llvm::raw_string_ostream(text)
      << "{\"kernel\": \"" << kernel << "\", \"sm\": " << sm
      << ", \"cuda_major\": 13, \"precision\": \"fp32\", "
         "\"schedule_revision\": 1, \"schedule\": {\"block_size\": "
      << blockSize << "}, \"median_ns\": " << medianNs << extra << "}";
  return text;
}

std::string database(llvm::ArrayRef<std::string> entries) {
  std::string text = "{\"graphc_tuning_db\": 1, \"entries\": [";
  for (size_t i = 0; i < entries.size(); ++i)
    text += (i ? ", " : "") + entries[i];
  return text + "]}";
}

TEST_F(TuningDbTest, SelectsEntriesOfOneTarget) {
  std::string path = write(
      "db.json", database({entry("00000000000000a1", 90, 128, 10),
                           entry("00000000000000a2", 90, 512, 10),
                           entry("00000000000000a1", 80, 64, 10),
                           entry("00000000000000a3", 90, 64, 10,
                                 ", \"precision\": \"fp16\"")}));
  auto db = TuningDb::load(path);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  EXPECT_TRUE(db->notes().empty());
  ASSERT_EQ(db->entries().size(), 4u);
  TuningSelection sm90 = db->select(90, 13, "fp32");
  ASSERT_EQ(sm90.schedules.size(), 2u);
  EXPECT_EQ(sm90.schedules.lookup(0xa1).blockSize, 128);
  EXPECT_EQ(sm90.schedules.lookup(0xa2).blockSize, 512);
  EXPECT_EQ(sm90.foreign, 2);
  TuningSelection sm80 = db->select(80, 13, "fp32");
  ASSERT_EQ(sm80.schedules.size(), 1u);
  EXPECT_EQ(sm80.schedules.lookup(0xa1).blockSize, 64);
  EXPECT_TRUE(db->select(90, 12, "fp32").schedules.empty());
}

TEST_F(TuningDbTest, MalformedEntriesAreDroppedWithANote) {
  std::string good = entry("00000000000000b1", 90, 128, 10);
  std::string path = write(
      "db.json",
      database({"3", entry("not-a-hash", 90, 128, 10),
                entry("00000000000000b2", 90, 100, 10),
                entry("00000000000000b3", 90, 2048, 10),
                entry("00000000000000b4", 7, 128, 10),
                entry("00000000000000b5", 90, 128, -1),
                entry("00000000000000b6", 90, 128, 10, ", \"device\": 4"),
                "{\"kernel\": \"00000000000000b7\", \"sm\": 90, "
                "\"cuda_major\": 13, \"precision\": \"fp32\", "
                "\"schedule_revision\": 1, \"schedule\": {\"block_size\": 64, "
                "\"stages\": 3}}",
                good}));
  auto db = TuningDb::load(path);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  ASSERT_EQ(db->entries().size(), 1u);
  EXPECT_EQ(db->entries()[0].key.kernel, 0xb1u);
  std::vector<std::string> notes(db->notes().begin(), db->notes().end());
  ASSERT_EQ(notes.size(), 8u);
  EXPECT_EQ(notes[0], path + ": entry 0 is ignored: not an object");
  EXPECT_EQ(notes[1],
            path + ": entry 1 is ignored: \"kernel\" is not 16 hex digits");
  EXPECT_EQ(notes[2], path + ": entry 2 is ignored: \"block_size\" is not a "
                             "multiple of 32 in [32, 1024]");
  EXPECT_EQ(notes[3], path + ": entry 3 is ignored: \"block_size\" is not a "
                             "multiple of 32 in [32, 1024]");
  EXPECT_EQ(notes[4],
            path + ": entry 4 is ignored: \"sm\" is not an SM such as 90");
  EXPECT_EQ(notes[5], path + ": entry 5 is ignored: \"median_ns\" is not a "
                             "non-negative integer");
  EXPECT_EQ(notes[6],
            path + ": entry 6 is ignored: \"device\" is not a string");
  EXPECT_EQ(notes[7], path + ": entry 7 is ignored: the schedule knob "
                             "'stages' is unknown to this graphc");
}

// A generated kernel's knobs: block_size, elements_per_thread (1 when
// absent) and tile (16 when absent).
TEST_F(TuningDbTest, GeneratedKernelKnobs) {
  std::string path = write(
      "db.json",
      database({entry("00000000000000e1", 90, 256, 10),
                "{\"kernel\": \"00000000000000e2\", \"sm\": 90, "
                "\"cuda_major\": 13, \"precision\": \"fp32\", "
                "\"schedule_revision\": 1, \"schedule\": {\"block_size\": 128, "
                "\"elements_per_thread\": 4, \"tile\": 32}}",
                "{\"kernel\": \"00000000000000e4\", \"sm\": 90, "
                "\"cuda_major\": 13, \"precision\": \"fp32\", "
                "\"schedule_revision\": 1, \"schedule\": {\"block_size\": 128, "
                "\"tile\": 12}}",
                "{\"kernel\": \"00000000000000e3\", \"sm\": 90, "
                "\"cuda_major\": 13, \"precision\": \"fp32\", "
                "\"schedule_revision\": 1, \"schedule\": {\"block_size\": 128, "
                "\"elements_per_thread\": 3}}"}));
  auto db = TuningDb::load(path);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  TuningSelection selection = db->select(90, 13, "fp32");
  EXPECT_EQ(selection.schedules.lookup(0xe1).elementsPerThread, 1);
  EXPECT_TRUE(selection.schedules.lookup(0xe1).isHeuristic());
  EXPECT_EQ(selection.schedules.lookup(0xe1).tile, 16);
  EXPECT_EQ(selection.schedules.lookup(0xe2).elementsPerThread, 4);
  EXPECT_EQ(selection.schedules.lookup(0xe2).tile, 32);
  EXPECT_FALSE(selection.schedules.lookup(0xe2).isHeuristic());
  ASSERT_EQ(db->notes().size(), 2u);
  EXPECT_EQ(db->notes()[0], path + ": entry 2 is ignored: \"tile\" is not 8, "
                                   "16 or 32");
  EXPECT_EQ(db->notes()[1], path + ": entry 3 is ignored: "
                                   "\"elements_per_thread\" is not a power "
                                   "of two in [1, 64]");
  EXPECT_NE(db->serialize().find("\"elements_per_thread\": 4"),
            std::string::npos);
}

// rows_per_block: 1, or a power of two in [2, 32] rows of one warp each,
// with a block of exactly that many warps.
TEST_F(TuningDbTest, RowsPerBlockNeedsAWarpPerRow) {
  auto generated = [](llvm::StringRef kernel, llvm::StringRef schedule) {
    return "{\"kernel\": \"" + kernel.str() +
           "\", \"sm\": 90, \"cuda_major\": 13, \"precision\": \"fp32\", "
           "\"schedule_revision\": 1, \"schedule\": " +
           schedule.str() + "}";
  };
  std::string path = write(
      "db.json",
      database({generated("00000000000000f1",
                          "{\"block_size\": 128, \"rows_per_block\": 4}"),
                generated("00000000000000f2",
                          "{\"block_size\": 256, \"rows_per_block\": 4}"),
                generated("00000000000000f3",
                          "{\"block_size\": 96, \"rows_per_block\": 3}"),
                generated("00000000000000f4",
                          "{\"block_size\": 1024, \"rows_per_block\": 64}"),
                generated("00000000000000f5",
                          "{\"block_size\": 256, \"rows_per_block\": 1}")}));
  auto db = TuningDb::load(path);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  TuningSelection selection = db->select(90, 13, "fp32");
  EXPECT_EQ(selection.schedules.lookup(0xf1).rowsPerBlock, 4);
  EXPECT_FALSE(selection.schedules.lookup(0xf1).isHeuristic());
  EXPECT_TRUE(selection.schedules.lookup(0xf5).isHeuristic());
  ASSERT_EQ(db->notes().size(), 3u);
  for (auto [i, note] : llvm::enumerate(db->notes()))
    EXPECT_EQ(note, path + ": entry " + std::to_string(i + 1) +
                        " is ignored: \"rows_per_block\" is neither 1 nor a "
                        "power of two in [2, 32] with \"block_size\" 32 "
                        "times it");
  EXPECT_NE(db->serialize().find("\"rows_per_block\": 4"), std::string::npos);
}

// A library call's knobs are the rank of the algorithm (cuBLASLt) or
// engine configuration (cuDNN) it runs, below GRAPHC_MAX_ALGO_RANKS, and
// for a GEMM the parts its K is split into.
TEST_F(TuningDbTest, LibraryEntriesRankAlgorithms) {
  auto library = [](llvm::StringRef kernel, llvm::StringRef schedule) {
    return "{\"kernel\": \"" + kernel.str() +
           "\", \"sm\": 90, \"cuda_major\": 13, \"precision\": \"fp32\", "
           "\"schedule_revision\": 1, \"schedule\": " +
           schedule.str() + "}";
  };
  std::string path = write(
      "db.json",
      database(
          {library("00000000000000d1", "{\"algo_rank\": 3}"),
           library("00000000000000d2", "{\"algo_rank\": 32}"),
           library("00000000000000d3",
                   "{\"algo_rank\": 1, \"block_size\": 64}"),
           library("00000000000000d4", "{}"),
           library("00000000000000d5", "{\"algo_rank\": 17, \"split_k\": 4}"),
           library("00000000000000d6", "{\"algo_rank\": 0, \"split_k\": 1}"),
           library("00000000000000d7", "{\"algo_rank\": 0, \"split_k\": 65}"),
           library("00000000000000d8", "{\"split_k\": 2}"),
           library("00000000000000d9",
                   "{\"block_size\": 64, \"split_k\": 2}")}));
  auto db = TuningDb::load(path);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  ASSERT_EQ(db->entries().size(), 2u);
  TuningSelection selection = db->select(90, 13, "fp32");
  Schedule schedule = selection.schedules.lookup(0xd1);
  EXPECT_TRUE(schedule.library);
  EXPECT_EQ(schedule.algoRank, 3);
  EXPECT_EQ(schedule.splitK, 0);
  EXPECT_FALSE(schedule.isHeuristic());
  Schedule split = selection.schedules.lookup(0xd5);
  EXPECT_TRUE(split.library);
  EXPECT_EQ(split.algoRank, 17);
  EXPECT_EQ(split.splitK, 4);
  // Rank 0 split is not the heuristic's algorithm as offered.
  EXPECT_FALSE(Schedule::libraryCall(0, 2).isHeuristic());
  EXPECT_TRUE(Schedule::libraryCall(0, 0).isHeuristic());
  EXPECT_FALSE(Schedule::libraryCall(0, 2) == Schedule::libraryCall(0, 4));
  std::vector<std::string> notes(db->notes().begin(), db->notes().end());
  ASSERT_EQ(notes.size(), 7u);
  EXPECT_EQ(notes[0],
            path + ": entry 1 is ignored: \"algo_rank\" is not in [0, 32)");
  const std::string needs = " is ignored: \"schedule\" needs \"block_size\" "
                            "(and maybe \"elements_per_thread\", \"tile\" "
                            "and \"rows_per_block\") or \"algo_rank\" (and "
                            "maybe \"split_k\")";
  EXPECT_EQ(notes[1], path + ": entry 2" + needs);
  EXPECT_EQ(notes[2], path + ": entry 3" + needs);
  const std::string badSplit =
      " is ignored: \"split_k\" is neither 0 nor in [2, 64]";
  EXPECT_EQ(notes[3], path + ": entry 5" + badSplit);
  EXPECT_EQ(notes[4], path + ": entry 6" + badSplit);
  EXPECT_EQ(notes[5], path + ": entry 7" + needs);
  EXPECT_EQ(notes[6], path + ": entry 8" + needs);
  // Written back as it was read: split_k only where K is split, so an
  // entry of an unsplit algorithm reads as it did before split_k existed.
  std::string text = db->serialize();
  EXPECT_NE(text.find("\"algo_rank\": 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\"algo_rank\": 17,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"split_k\": 4"), std::string::npos) << text;
  EXPECT_EQ(text.find("\"split_k\": 0"), std::string::npos) << text;
  EXPECT_EQ(text.find("block_size"), std::string::npos);
  std::string again = write("again.json", text);
  auto reread = TuningDb::load(again);
  ASSERT_TRUE(bool(reread)) << llvm::toString(reread.takeError());
  EXPECT_TRUE(reread->notes().empty());
  EXPECT_EQ(reread->serialize(), text);
}

// A database written before split_k existed (library entries of
// algo_rank alone, ranks of the old limit of 8) loads unchanged.
TEST_F(TuningDbTest, DatabasesFromBeforeSplitKStillLoad) {
  std::string old =
      "{\"graphc_tuning_db\": 1, \"entries\": [{\"kernel\": "
      "\"00000000000000e1\", \"sm\": 90, \"cuda_major\": 13, "
      "\"precision\": \"fp16\", \"schedule_revision\": 1, \"schedule\": "
      "{\"algo_rank\": 4}, \"kind\": \"matmul\", \"nodes\": \"fc\", "
      "\"median_ns\": 900, \"heuristic_median_ns\": 1000, \"device\": "
      "\"NVIDIA H100 80GB HBM3\"}]}";
  auto db = TuningDb::load(write("old.json", old));
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  EXPECT_TRUE(db->notes().empty());
  Schedule schedule = db->select(90, 13, "fp16").schedules.lookup(0xe1);
  EXPECT_TRUE(schedule.library);
  EXPECT_EQ(schedule.algoRank, 4);
  EXPECT_EQ(schedule.splitK, 0);
  EXPECT_EQ(db->serialize().find("split_k"), std::string::npos);
}

TEST_F(TuningDbTest, StaleAndRepeatedEntries) {
  std::string path = write(
      "db.json",
      database({entry("00000000000000c1", 90, 128, 30),
                entry("00000000000000c1", 90, 512, 20),
                entry("00000000000000c2", 90, 128, 10,
                      ", \"schedule_revision\": 0"),
                entry("00000000000000c3", 90, 128, 10,
                      ", \"schedule_revision\": 2"),
                entry("00000000000000c4", 90, 128, 10,
                      ", \"schedule_revision\": 2")}));
  auto db = TuningDb::load(path);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  ASSERT_EQ(db->entries().size(), 1u);
  // The faster of the two entries of one key.
  EXPECT_EQ(db->entries()[0].schedule.blockSize, 512);
  std::vector<std::string> notes(db->notes().begin(), db->notes().end());
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0], path + ": entry 1 repeats kernel 00000000000000c1 on "
                             "sm_90, CUDA 13, fp32; the faster of the two is "
                             "used");
  EXPECT_EQ(notes[1], path + ": entry 2 is ignored: \"schedule_revision\" is "
                             "not a positive integer");
  EXPECT_EQ(notes[2], path + ": 2 entries were measured with schedule "
                             "revision 2 and are ignored (this graphc's is "
                             "1): run graphc tune again");
}

TEST_F(TuningDbTest, FilesThatAreNoDatabase) {
  for (auto [name, text] : {std::pair<const char *, const char *>{
                                "list.json", "[1, 2]"},
                            {"object.json", "{\"entries\": []}"},
                            {"text.json", "block_size = 128"}}) {
    std::string path = write(name, text);
    auto db = TuningDb::load(path);
    ASSERT_FALSE(bool(db)) << name;
    std::string message = llvm::toString(db.takeError());
    EXPECT_EQ(message.rfind(path + " is not a tuning database", 0), 0u)
        << message;
  }
  auto missing = TuningDb::load((dir + "/missing.json").str());
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError())
                .find("cannot read the tuning database"),
            std::string::npos);
  std::string newer =
      write("newer.json", "{\"graphc_tuning_db\": 2, \"entries\": 5}");
  auto db = TuningDb::load(newer);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  EXPECT_TRUE(db->entries().empty());
  ASSERT_EQ(db->notes().size(), 1u);
  EXPECT_EQ(db->notes()[0], newer + " was written by a newer graphc (schema "
                                    "2, this graphc reads 1): none of its "
                                    "entries is used");
}

TuningEntry makeEntry(uint64_t kernel, int sm, int64_t blockSize,
                      int64_t medianNs) {
  TuningEntry e;
  e.key = {kernel, sm, 13, "fp32"};
  e.schedule.blockSize = blockSize;
  e.medianNs = medianNs;
  e.heuristicMedianNs = medianNs + 5;
  e.kind = "pointwise";
  e.nodes = "Add_1,Relu_2";
  e.device = "NVIDIA \"quoted\" GPU";
  return e;
}

TEST_F(TuningDbTest, WritesDeterministicallyAndReadsBack) {
  TuningDb a, b;
  a.put(makeEntry(3, 90, 128, 7));
  a.put(makeEntry(1, 90, 64, 9));
  a.put(makeEntry(1, 80, 512, 9));
  b.put(makeEntry(1, 80, 512, 9));
  b.put(makeEntry(1, 90, 64, 9));
  b.put(makeEntry(3, 90, 128, 7));
  EXPECT_EQ(a.serialize(), b.serialize());
  // put() replaces: a new measurement supersedes an old one.
  a.put(makeEntry(3, 90, 1024, 70));
  ASSERT_EQ(a.entries().size(), 3u);
  std::string path = (dir + "/round-trip.json").str();
  ASSERT_FALSE(bool(a.write(path)));
  auto read = TuningDb::load(path);
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_TRUE(read->notes().empty());
  EXPECT_EQ(read->serialize(), a.serialize());
  EXPECT_EQ(read->select(90, 13, "fp32").schedules.lookup(3).blockSize, 1024);
  EXPECT_EQ(read->entries()[0].device, "NVIDIA \"quoted\" GPU");
}

TEST_F(TuningDbTest, MergeKeepsTheFasterEntry) {
  TuningDb mine, theirs;
  mine.put(makeEntry(1, 90, 128, 10));
  mine.put(makeEntry(2, 90, 128, 10));
  theirs.put(makeEntry(1, 90, 512, 5));  // faster: wins
  theirs.put(makeEntry(2, 90, 512, 10)); // a tie: mine stays
  theirs.put(makeEntry(3, 80, 64, 10));  // new
  EXPECT_EQ(mine.merge(theirs), 1);
  TuningSelection sm90 = mine.select(90, 13, "fp32");
  EXPECT_EQ(sm90.schedules.lookup(1).blockSize, 512);
  EXPECT_EQ(sm90.schedules.lookup(2).blockSize, 128);
  EXPECT_EQ(mine.entries().size(), 3u);
}

TEST(TuningKernelHash, RoundTrips) {
  uint64_t hash = 0;
  EXPECT_TRUE(parseKernelHash("0123456789abcdef", hash));
  EXPECT_EQ(hash, 0x0123456789abcdefu);
  EXPECT_EQ(formatKernelHash(hash), "0123456789abcdef");
  EXPECT_EQ(formatKernelHash(5), "0000000000000005");
  EXPECT_FALSE(parseKernelHash("0123456789abcde", hash));
  EXPECT_FALSE(parseKernelHash("0123456789abcdeg", hash));
  EXPECT_FALSE(parseKernelHash("+123456789abcdef", hash));
  EXPECT_TRUE(isValidBlockSize(32));
  EXPECT_TRUE(isValidBlockSize(1024));
  EXPECT_FALSE(isValidBlockSize(0));
  EXPECT_FALSE(isValidBlockSize(48));
  EXPECT_FALSE(isValidBlockSize(2048));
}

} // namespace
