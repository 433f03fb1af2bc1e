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
    // The database was validated when read; the schedule's verifier guards
    // the callers that build schedules themselves (graphc tune's
    // candidates). The heuristic's one element per thread, 16x16 tiles and
    // one row per block stay implicit, and so does a GEMM's algorithm as
    // the heuristic offers it (split_k 0).
    auto implicitUnless = [](bool set, int64_t value) {
      return set ? std::optional<int64_t>(value) : std::nullopt;
    };
    auto emitError = [&] { return kernel.emitOpError("tuned "); };
    auto tuned = kernel::ScheduleAttr::getChecked(
        function_ref<InFlightDiagnostic()>(emitError), kernel.getContext(),
        kernel::ScheduleSource::tuned,
        /*block_size=*/implicitUnless(!library, schedule.blockSize),
        /*elements_per_thread=*/
        implicitUnless(!library && schedule.elementsPerThread != 1,
                       schedule.elementsPerThread),
        /*tile=*/
        implicitUnless(!library && schedule.tile != kHeuristicTile,
                       schedule.tile),
        /*rows_per_block=*/
        implicitUnless(!library && schedule.rowsPerBlock != 1,
                       schedule.rowsPerBlock),
        /*algo_rank=*/implicitUnless(library, schedule.algoRank),
        /*split_k=*/implicitUnless(library && schedule.splitK, schedule.splitK),
        /*workspace_bytes=*/std::optional<int64_t>());
    if (!tuned)
      return failure();
    kernel.setScheduleAttr(tuned);
    ++applied.tuned;
  }
  return applied;
}

} // namespace graphc
