//===- TuningDb.cpp - the tuning database -----------------------------------===//

#include "lib/Support/TuningDb.h"

#include "lib/Support/ReadFile.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace graphc {
namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 message.str());
}

/// The schedule's knobs as the file names them (the format's names, which
/// #kernel.schedule's parameters share).
namespace knob {
constexpr llvm::StringLiteral blockSize = "block_size";
constexpr llvm::StringLiteral elementsPerThread = "elements_per_thread";
constexpr llvm::StringLiteral tile = "tile";
constexpr llvm::StringLiteral rowsPerBlock = "rows_per_block";
constexpr llvm::StringLiteral algoRank = "algo_rank";
constexpr llvm::StringLiteral splitK = "split_k";
constexpr llvm::StringLiteral all[] = {blockSize,    elementsPerThread, tile,
                                       rowsPerBlock, algoRank,          splitK};
} // namespace knob

bool isKnownPrecision(llvm::StringRef precision) {
  return llvm::is_contained({"fp32", "tf32", "fp16", "bf16"}, precision);
}

std::string describeKey(const TuningKey &key) {
  return "kernel " + formatKernelHash(key.kernel) + " on sm_" +
         std::to_string(key.sm) + ", CUDA " + std::to_string(key.cudaMajor) +
         ", " + key.precision;
}

/// One entry of the "entries" array, or why it cannot be used.
llvm::Expected<TuningEntry> parseEntry(const llvm::json::Value &value) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return fail("not an object");
  TuningEntry entry;
  std::optional<llvm::StringRef> kernel = object->getString("kernel");
  if (!kernel || !parseKernelHash(*kernel, entry.key.kernel))
    return fail("\"kernel\" is not 16 hex digits");
  std::optional<int64_t> sm = object->getInteger("sm");
  if (!sm || *sm < 50 || *sm > 200)
    return fail("\"sm\" is not an SM such as 90");
  entry.key.sm = static_cast<int>(*sm);
  std::optional<int64_t> cudaMajor = object->getInteger("cuda_major");
  if (!cudaMajor || *cudaMajor < 1 || *cudaMajor > 99)
    return fail("\"cuda_major\" is not a CUDA major version such as 13");
  entry.key.cudaMajor = static_cast<int>(*cudaMajor);
  std::optional<llvm::StringRef> precision = object->getString("precision");
  if (!precision || !isKnownPrecision(*precision))
    return fail("\"precision\" is not one of fp32, tf32, fp16, bf16");
  entry.key.precision = precision->str();
  std::optional<int64_t> revision = object->getInteger("schedule_revision");
  if (!revision || *revision < 1 || *revision > INT32_MAX)
    return fail("\"schedule_revision\" is not a positive integer");
  entry.scheduleRevision = static_cast<int>(*revision);
  const llvm::json::Object *schedule = object->getObject("schedule");
  if (!schedule)
    return fail("\"schedule\" is not an object");
  for (const auto &[name, value] : *schedule)
    if (!llvm::is_contained(knob::all, llvm::StringRef(name)))
      return fail("the schedule knob '" + name.str() +
                  "' is unknown to this graphc");
  // A generated kernel's block_size (and maybe elements_per_thread, tile
  // and rows_per_block), or a library call's algo_rank (and maybe split_k).
  bool library = schedule->get(knob::algoRank);
  if (library ? schedule->size() != 1u + !!schedule->get(knob::splitK)
              : !schedule->get(knob::blockSize) || schedule->get(knob::splitK))
    return fail("\"schedule\" needs \"" + knob::blockSize + "\" (and maybe \"" +
                knob::elementsPerThread + "\", \"" + knob::tile + "\" and \"" +
                knob::rowsPerBlock + "\") or \"" + knob::algoRank +
                "\" (and maybe \"" + knob::splitK + "\")");
  if (!library) {
    std::optional<int64_t> blockSize = schedule->getInteger(knob::blockSize);
    if (!blockSize || !isValidBlockSize(*blockSize))
      return fail("\"" + knob::blockSize +
                  "\" is not a multiple of 32 in [32, 1024]");
    int64_t elements = 1;
    if (schedule->get(knob::elementsPerThread)) {
      std::optional<int64_t> value =
          schedule->getInteger(knob::elementsPerThread);
      if (!value || !isValidElementsPerThread(*value))
        return fail("\"" + knob::elementsPerThread +
                    "\" is not a power of two in [1, 64]");
      elements = *value;
    }
    int64_t tile = kHeuristicTile;
    if (schedule->get(knob::tile)) {
      std::optional<int64_t> value = schedule->getInteger(knob::tile);
      if (!value || !isValidTile(*value))
        return fail("\"" + knob::tile + "\" is not 8, 16 or 32");
      tile = *value;
    }
    int64_t rows = 1;
    if (schedule->get(knob::rowsPerBlock)) {
      std::optional<int64_t> value = schedule->getInteger(knob::rowsPerBlock);
      if (!value || !isValidRowsPerBlock(*value, *blockSize))
        return fail("\"" + knob::rowsPerBlock +
                    "\" is neither 1 nor a power of two in [2, 32] with \"" +
                    knob::blockSize + "\" 32 times it");
      rows = *value;
    }
    entry.schedule = Schedule::generated(*blockSize, elements, tile, rows);
  } else {
    std::optional<int64_t> algoRank = schedule->getInteger(knob::algoRank);
    if (!algoRank || !isValidAlgoRank(*algoRank))
      return fail("\"" + knob::algoRank + "\" is not in [0, " +
                  std::to_string(kMaxAlgoRanks) + ")");
    int64_t splitK = 0;
    if (schedule->get(knob::splitK)) {
      std::optional<int64_t> value = schedule->getInteger(knob::splitK);
      if (!value || !isValidSplitK(*value))
        return fail("\"" + knob::splitK + "\" is neither 0 nor in [2, " +
                    std::to_string(kMaxSplitK) + "]");
      splitK = *value;
    }
    entry.schedule = Schedule::libraryCall(*algoRank, splitK);
  }
  // Informational fields: absent is fine, the wrong type is not.
  for (auto [name, field] :
       {std::pair<const char *, std::string *>{"kind", &entry.kind},
        {"nodes", &entry.nodes},
        {"device", &entry.device}}) {
    if (!object->get(name))
      continue;
    std::optional<llvm::StringRef> text = object->getString(name);
    if (!text)
      return fail(llvm::Twine("\"") + name + "\" is not a string");
    *field = text->str();
  }
  for (auto [name, field] :
       {std::pair<const char *, int64_t *>{"median_ns", &entry.medianNs},
        {"heuristic_median_ns", &entry.heuristicMedianNs}}) {
    if (!object->get(name))
      continue;
    std::optional<int64_t> ns = object->getInteger(name);
    if (!ns || *ns < 0)
      return fail(llvm::Twine("\"") + name +
                  "\" is not a non-negative integer");
    *field = *ns;
  }
  return entry;
}

} // namespace

std::string formatKernelHash(uint64_t hash) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format_hex_no_prefix(hash, 16);
  return text;
}

bool parseKernelHash(llvm::StringRef text, uint64_t &hash) {
  if (text.size() != 16 || !llvm::all_of(text, llvm::isHexDigit))
    return false;
  return !text.getAsInteger(16, hash);
}

llvm::Expected<TuningDb> TuningDb::load(llvm::StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readUserFile(path);
  if (!buffer)
    return fail("cannot read the tuning database: " +
                llvm::toString(buffer.takeError()));
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  if (!parsed)
    return fail(path + " is not a tuning database: " +
                llvm::toString(parsed.takeError()));
  const llvm::json::Object *top = parsed->getAsObject();
  std::optional<int64_t> version =
      top ? top->getInteger("graphc_tuning_db") : std::nullopt;
  if (!version || *version < 1)
    return fail(path + " is not a tuning database: it has no "
                       "\"graphc_tuning_db\" version field");
  TuningDb db;
  if (*version > kTuningDbVersion) {
    db.messages.push_back(path.str() + " was written by a newer graphc (schema " +
                          std::to_string(*version) + ", this graphc reads " +
                          std::to_string(kTuningDbVersion) +
                          "): none of its entries is used");
    return db;
  }
  const llvm::json::Array *entries = top->getArray("entries");
  if (!entries)
    return fail(path + " is not a tuning database: \"entries\" is not an "
                       "array");
  // Stale entries are counted, not listed: a database after a graphc
  // upgrade holds many.
  std::map<int, int64_t> staleByRevision;
  std::map<TuningKey, size_t> firstOfKey;
  for (size_t i = 0; i < entries->size(); ++i) {
    llvm::Expected<TuningEntry> entry = parseEntry((*entries)[i]);
    if (!entry) {
      db.messages.push_back(path.str() + ": entry " + std::to_string(i) +
                            " is ignored: " + llvm::toString(entry.takeError()));
      continue;
    }
    if (entry->scheduleRevision != kScheduleRevision) {
      ++staleByRevision[entry->scheduleRevision];
      continue;
    }
    // A map, not a search of what was read: a file of many entries must
    // not cost quadratic time.
    auto [existing, inserted] =
        firstOfKey.try_emplace(entry->key, db.sorted.size());
    if (!inserted) {
      db.messages.push_back(path.str() + ": entry " + std::to_string(i) +
                            " repeats " + describeKey(entry->key) +
                            "; the faster of the two is used");
      TuningEntry &kept = db.sorted[existing->second];
      if (entry->medianNs < kept.medianNs)
        kept = std::move(*entry);
      continue;
    }
    db.sorted.push_back(std::move(*entry));
  }
  for (auto [revision, count] : staleByRevision)
    db.messages.push_back(
        path.str() + ": " + std::to_string(count) +
        (count == 1 ? " entry was" : " entries were") +
        " measured with schedule revision " + std::to_string(revision) +
        " and " + (count == 1 ? "is" : "are") +
        " ignored (this graphc's is " + std::to_string(kScheduleRevision) +
        "): run graphc tune again");
  llvm::sort(db.sorted, [](const TuningEntry &a, const TuningEntry &b) {
    return a.key < b.key;
  });
  return db;
}

TuningSelection TuningDb::select(int sm, int cudaMajor,
                                 llvm::StringRef precision) const {
  TuningSelection selection;
  for (const TuningEntry &entry : sorted) {
    if (entry.key.sm == sm && entry.key.cudaMajor == cudaMajor &&
        entry.key.precision == precision)
      selection.schedules[entry.key.kernel] = entry.schedule;
    else
      ++selection.foreign;
  }
  return selection;
}

void TuningDb::put(const TuningEntry &entry) {
  auto position = llvm::lower_bound(
      sorted, entry.key,
      [](const TuningEntry &e, const TuningKey &key) { return e.key < key; });
  if (position != sorted.end() && position->key == entry.key)
    *position = entry;
  else
    sorted.insert(position, entry);
}

int64_t TuningDb::merge(const TuningDb &other) {
  // Both are sorted by key: one linear pass.
  int64_t lost = 0;
  std::vector<TuningEntry> merged;
  merged.reserve(sorted.size() + other.sorted.size());
  auto mine = sorted.begin();
  auto theirs = other.sorted.begin();
  while (mine != sorted.end() || theirs != other.sorted.end()) {
    if (theirs == other.sorted.end() ||
        (mine != sorted.end() && mine->key < theirs->key)) {
      merged.push_back(std::move(*mine++));
    } else if (mine == sorted.end() || theirs->key < mine->key) {
      merged.push_back(*theirs++);
    } else {
      if (theirs->medianNs < mine->medianNs) {
        merged.push_back(*theirs);
      } else {
        merged.push_back(std::move(*mine));
        ++lost;
      }
      ++mine;
      ++theirs;
    }
  }
  sorted = std::move(merged);
  llvm::append_range(messages, other.messages);
  return lost;
}

std::string TuningDb::serialize() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attribute("graphc_tuning_db", kTuningDbVersion);
    json.attributeArray("entries", [&] {
      for (const TuningEntry &entry : sorted)
        json.object([&] {
          json.attribute("kernel", formatKernelHash(entry.key.kernel));
          json.attribute("sm", entry.key.sm);
          json.attribute("cuda_major", entry.key.cudaMajor);
          json.attribute("precision", entry.key.precision);
          json.attribute("schedule_revision", entry.scheduleRevision);
          json.attributeObject("schedule", [&] {
            if (entry.schedule.library) {
              json.attribute(knob::algoRank, entry.schedule.algoRank);
              // Absent when unsplit: such entries read as before.
              if (entry.schedule.splitK)
                json.attribute(knob::splitK, entry.schedule.splitK);
            } else {
              json.attribute(knob::blockSize, entry.schedule.blockSize);
              json.attribute(knob::elementsPerThread,
                             entry.schedule.elementsPerThread);
              json.attribute(knob::tile, entry.schedule.tile);
              json.attribute(knob::rowsPerBlock, entry.schedule.rowsPerBlock);
            }
          });
          json.attribute("kind", entry.kind);
          json.attribute("nodes", entry.nodes);
          json.attribute("median_ns", entry.medianNs);
          json.attribute("heuristic_median_ns", entry.heuristicMedianNs);
          json.attribute("device", entry.device);
        });
    });
  });
  os << "\n";
  return text;
}

llvm::Error TuningDb::write(llvm::StringRef path) const {
  llvm::SmallString<256> temporary(path);
  temporary += ".tmp-%%%%%%";
  int fd;
  llvm::SmallString<256> temporaryPath;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(temporary, fd,
                                                           temporaryPath))
    return fail("cannot write the tuning database " + path + ": " +
                ec.message());
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << serialize();
    out.close();
    if (out.has_error()) {
      std::string message = out.error().message();
      out.clear_error();
      llvm::sys::fs::remove(temporaryPath);
      return fail("cannot write the tuning database " + path + ": " + message);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporaryPath, path)) {
    llvm::sys::fs::remove(temporaryPath);
    return fail("cannot write the tuning database " + path + ": " +
                ec.message());
  }
  return llvm::Error::success();
}

} // namespace graphc
