//===- ApplyTuning.cpp - schedules from the tuning database ---------------===//
//
// Kernels are keyed by the content hash of their exec.kernel body: the same
// fused computation on the same shapes, whatever model or bucket it comes
// from, gets the schedule `graphc tune` measured fastest for it. The hash
// leaves the schedule out, so applying one never changes what it is looked
// up by; a library call's hash differs from that of a generated kernel of
// the same body (graphc-lower-to-exec).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace graphc {

#define GEN_PASS_DEF_APPLYTUNING
#include "passes/Passes.h.inc"

using namespace mlir;

namespace {

struct ApplyTuningPass : impl::ApplyTuningBase<ApplyTuningPass> {
  using ApplyTuningBase::ApplyTuningBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::Expected<TuningDb> db = TuningDb::load(databasePath);
    if (!db) {
      module.emitError(llvm::toString(db.takeError()));
      return signalPassFailure();
    }
    for (const std::string &note : db->notes())
      module.emitWarning(note);
    if (failed(applyTuning(module,
                           db->select(sm, cudaMajor, precision).schedules)))
      signalPassFailure();
  }
};

} // namespace

FailureOr<TuningApplied>
applyTuning(ModuleOp module,
            const llvm::DenseMap<uint64_t, Schedule> &schedules) {
  TuningApplied applied;
  for (exec::KernelOp kernel : module.getOps<exec::KernelOp>()) {
    ++applied.kernels;
    uint64_t hash;
    if (!parseKernelHash(kernel.getHash(), hash))
      return kernel.emitOpError("has no content hash to look tuning up by");
    auto found = schedules.find(hash);
    bool library = kernel.getLibrary().has_value();
    // Library and generated kernels never share a hash; a schedule of the
    // other kind would be a caller's mistake, and is not applied.
    if (found == schedules.end() || found->second.library != library)
      continue;
    const Schedule &schedule = found->second;
    // The database was validated when read; this guards the callers that
    // build schedules themselves (graphc tune's candidates).
    if (!library && !isValidBlockSize(schedule.blockSize))
      return kernel.emitOpError("tuned block_size ")
             << schedule.blockSize << " is not a multiple of 32 in [32, 1024]";
    if (!library && !isValidElementsPerThread(schedule.elementsPerThread))
      return kernel.emitOpError("tuned elements_per_thread ")
             << schedule.elementsPerThread
             << " is not a power of two in [1, 64]";
    if (!library &&
        !isValidRowsPerBlock(schedule.rowsPerBlock, schedule.blockSize))
      return kernel.emitOpError("tuned rows_per_block ")
             << schedule.rowsPerBlock
             << " is neither 1 nor a power of two in [2, 32] with block_size "
                "32 times it";
    if (!library && !isValidTile(schedule.tile))
      return kernel.emitOpError("tuned tile ")
             << schedule.tile << " is not 8, 16 or 32";
    if (library && (schedule.algoRank < 0 || schedule.algoRank >= kMaxAlgoRanks))
      return kernel.emitOpError("tuned algo_rank ")
             << schedule.algoRank << " is not in [0, " << kMaxAlgoRanks << ")";
    if (library && !isValidSplitK(schedule.splitK))
      return kernel.emitOpError("tuned split_k ")
             << schedule.splitK << " is neither 0 nor in [2, " << kMaxSplitK
             << "]";
    Builder b(kernel.getContext());
    SmallVector<NamedAttribute> knobs;
    if (library) {
      knobs.push_back(b.getNamedAttr("algo_rank",
                                     b.getI64IntegerAttr(schedule.algoRank)));
      // A GEMM's algorithm as the heuristic offers it stays implicit.
      if (schedule.splitK)
        knobs.push_back(
            b.getNamedAttr("split_k", b.getI64IntegerAttr(schedule.splitK)));
    } else {
      knobs.push_back(b.getNamedAttr("block_size",
                                     b.getI64IntegerAttr(schedule.blockSize)));
      // The heuristic's one element per thread, 16x16 tiles and one row
      // per block stay implicit.
      if (schedule.elementsPerThread != 1)
        knobs.push_back(b.getNamedAttr(
            "elements_per_thread",
            b.getI64IntegerAttr(schedule.elementsPerThread)));
      if (schedule.tile != kHeuristicTile)
        knobs.push_back(
            b.getNamedAttr("tile", b.getI64IntegerAttr(schedule.tile)));
      if (schedule.rowsPerBlock != 1)
        knobs.push_back(b.getNamedAttr(
            "rows_per_block", b.getI64IntegerAttr(schedule.rowsPerBlock)));
    }
    knobs.push_back(b.getNamedAttr("source", b.getStringAttr("tuned")));
    kernel.setScheduleAttr(b.getDictionaryAttr(knobs));
    ++applied.tuned;
  }
  return applied;
}

} // namespace graphc
