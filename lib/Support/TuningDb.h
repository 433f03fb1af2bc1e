//===- TuningDb.h - the tuning database ---------------------------*- C++ -*-===//
//
// What `graphc tune` measured, as a JSON file that lives in the user's
// repository and is replayed by `graphc compile --tuning-db` on machines
// without a GPU:
//
//   {"graphc_tuning_db": 1,
//    "entries": [{"kernel": "0f1e2d3c4b5a6978", "sm": 90, "cuda_major": 13,
//                 "precision": "fp32", "schedule_revision": 1,
//                 "schedule": {"block_size": 128, "elements_per_thread": 1,
//                              "tile": 16, "rows_per_block": 4},
//                              (or {"algo_rank": 2}, {"algo_rank": 0,
//                                                     "split_k": 4})
//                 "kind": "elementwise", "nodes": "Add_3,Relu_4",
//                 "median_ns": 2310, "heuristic_median_ns": 3020,
//                 "device": "NVIDIA H100 80GB HBM3"}]}
//
// An entry is keyed by (kernel content hash, SM, CUDA major, precision):
// the same kernel body on another GPU generation, toolkit or precision is
// another entry. `schedule_revision` says what a schedule meant to the code
// generator that measured it; entries of another revision are stale and
// never applied. The file is read as untrusted input: a malformed entry is
// dropped with a note naming it, never half-applied. Writing is
// deterministic (entries sorted by key, integers only), so the same
// measurements give the same bytes and merges diff cleanly.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_TUNINGDB_H
#define GRAPHC_LIB_SUPPORT_TUNINGDB_H

#include "lib/Support/Schedule.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace graphc {

/// The schema version this graphc reads and writes.
constexpr int kTuningDbVersion = 1;

/// What a schedule's knobs mean to this graphc's CUDA code generator. Bump
/// it when the code one schedule produces changes enough that measurements
/// taken before no longer say which schedule is faster.
constexpr int kScheduleRevision = 1;

/// What a tuning entry is measured for.
struct TuningKey {
  uint64_t kernel = 0; ///< exec.kernel content hash
  int sm = 0;          ///< 90 for sm_90
  int cudaMajor = 0;   ///< of the toolkit that compiled the kernel
  std::string precision = "fp32";

  bool operator<(const TuningKey &other) const {
    return std::tie(kernel, sm, cudaMajor, precision) <
           std::tie(other.kernel, other.sm, other.cudaMajor, other.precision);
  }
  bool operator==(const TuningKey &other) const {
    return std::tie(kernel, sm, cudaMajor, precision) ==
           std::tie(other.kernel, other.sm, other.cudaMajor, other.precision);
  }
};

struct TuningEntry {
  TuningKey key;
  int scheduleRevision = kScheduleRevision;
  Schedule schedule;
  /// Informational: the fusion kind and ONNX nodes of the kernel when it was
  /// measured, and the device's name.
  std::string kind, nodes, device;
  /// Median time of one launch with this schedule, and with the heuristic
  /// one, in nanoseconds, as measured.
  int64_t medianNs = 0, heuristicMedianNs = 0;
};

/// The entries that apply to one compile, by kernel content hash.
struct TuningSelection {
  llvm::DenseMap<uint64_t, Schedule> schedules;
  /// Entries for another SM, CUDA major or precision.
  int64_t foreign = 0;
};

class TuningDb {
public:
  /// Reads `path`. A file that is not a tuning database (unreadable, not
  /// JSON, no "graphc_tuning_db" field) is an error; a database of a newer
  /// schema yields no entries and a note; an entry that is malformed, of
  /// another schedule revision, or a second entry for one key (the faster
  /// is kept) is dropped with a note. Notes are in notes().
  static llvm::Expected<TuningDb> load(llvm::StringRef path);

  /// The entries that a compile for `sm` (the highest SM it builds for),
  /// `cudaMajor` and `precision` uses.
  TuningSelection select(int sm, int cudaMajor,
                         llvm::StringRef precision) const;

  /// Adds `entry`, replacing any entry of its key: a new measurement
  /// supersedes an old one.
  void put(const TuningEntry &entry);

  /// Adds every entry of `other`; where both hold a key, the one with the
  /// lower median stays (this one's on a tie): two runs on the same kind of
  /// GPU that disagree are told apart by what they measured. Returns how
  /// many entries of `other` lost to one already here.
  int64_t merge(const TuningDb &other);

  /// The database as JSON, deterministic.
  std::string serialize() const;

  /// Writes serialize() to `path` through a temporary file and a rename, so
  /// that a reader never sees half a database.
  llvm::Error write(llvm::StringRef path) const;

  llvm::ArrayRef<TuningEntry> entries() const { return sorted; }
  llvm::ArrayRef<std::string> notes() const { return messages; }

private:
  std::vector<TuningEntry> sorted; ///< by key, one per key
  std::vector<std::string> messages;
};

/// "0f1e2d3c4b5a6978" <-> the hash (16 hex digits).
std::string formatKernelHash(uint64_t hash);
bool parseKernelHash(llvm::StringRef text, uint64_t &hash);

} // namespace graphc

#endif // GRAPHC_LIB_SUPPORT_TUNINGDB_H
