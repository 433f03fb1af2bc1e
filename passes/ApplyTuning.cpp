//===- ApplyTuning.cpp - schedules from the tuning database ---------------===//
//
// Kernels are keyed by the content hash of their exec.kernel body: the same
// fused computation on the same shapes, whatever model or bucket it comes
// from, gets the schedule `graphc tune` measured fastest for it. The hash
// leaves the schedule out, so applying one never changes what it is looked
// up by.
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
    if (kernel.getLibrary())
      continue;
    ++applied.kernels;
    uint64_t hash;
    if (!parseKernelHash(kernel.getHash(), hash))
      return kernel.emitOpError("has no content hash to look tuning up by");
    auto found = schedules.find(hash);
    if (found == schedules.end())
      continue;
    // The database was validated when read; this guards the callers that
    // build schedules themselves (graphc tune's candidates).
    if (!isValidBlockSize(found->second.blockSize))
      return kernel.emitOpError("tuned block_size ")
             << found->second.blockSize
             << " is not a multiple of 32 in [32, 1024]";
    Builder b(kernel.getContext());
    kernel.setScheduleAttr(b.getDictionaryAttr(
        {b.getNamedAttr("block_size",
                        b.getI64IntegerAttr(found->second.blockSize)),
         b.getNamedAttr("source", b.getStringAttr("tuned"))}));
    ++applied.tuned;
  }
  return applied;
}

} // namespace graphc
