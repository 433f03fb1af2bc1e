//===- PlanMemory.cpp - liveness-based arena planning ---------------------===//
//
// Walks each function's fusions in order and places every intermediate at
// a best-fit offset of one arena, freeing it after its last read (a view's
// reads count for its source). Records the arena size, the sum of all
// intermediates, and the liveness lower bound (the most bytes live at
// once), which measures how much the placement loses to fragmentation.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "passes/Passes.h"
#include "passes/Views.h"

#include "mlir/IR/Builders.h"

#include <functional>
#include <map>

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_PLANMEMORY
#include "passes/Passes.h.inc"

namespace {

constexpr int64_t kAlignment = 256;

int64_t alignUp(int64_t value) {
  return (value + kAlignment - 1) / kAlignment * kAlignment;
}

/// Best-fit allocator over one growing arena; freed ranges coalesce.
class ArenaAllocator {
public:
  int64_t allocate(int64_t bytes) {
    bytes = alignUp(std::max<int64_t>(bytes, 1));
    auto best = freeRanges.end();
    for (auto it = freeRanges.begin(); it != freeRanges.end(); ++it)
      if (it->second >= bytes &&
          (best == freeRanges.end() || it->second < best->second))
        best = it;
    if (best == freeRanges.end()) {
      // Grow: reuse a free range that ends at the top, if any.
      int64_t offset = top;
      if (!freeRanges.empty()) {
        auto last = std::prev(freeRanges.end());
        if (last->first + last->second == top) {
          offset = last->first;
          freeRanges.erase(last);
        }
      }
      top = offset + bytes;
      return offset;
    }
    int64_t offset = best->first;
    int64_t remaining = best->second - bytes;
    freeRanges.erase(best);
    if (remaining > 0)
      freeRanges[offset + bytes] = remaining;
    return offset;
  }

  void release(int64_t offset, int64_t bytes) {
    bytes = alignUp(std::max<int64_t>(bytes, 1));
    auto [it, inserted] = freeRanges.emplace(offset, bytes);
    (void)inserted;
    auto next = std::next(it);
    if (next != freeRanges.end() && it->first + it->second == next->first) {
      it->second += next->second;
      freeRanges.erase(next);
    }
    if (it != freeRanges.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        freeRanges.erase(it);
      }
    }
  }

  int64_t size() const { return top; }

private:
  std::map<int64_t, int64_t> freeRanges; // offset -> bytes
  int64_t top = 0;
};

} // namespace

/// Plans the arena of one function (one shape bucket).
static void planMemory(func::FuncOp main) {
  Block &block = main.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  MLIRContext *context = main.getContext();

  // Position of every op, and the last position at which each value is read.
  llvm::DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(block))
    position[&op] = i;
  // A view reads its source's buffer wherever the view is read, so the
  // source stays live until the last use of any view of it.
  std::function<int64_t(Value)> lastUse = [&](Value value) {
    int64_t last = position.lookup(value.getDefiningOp());
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isView(user) && use.getOperandNumber() == 0)
        last = std::max(last, lastUse(user->getResult(0)));
      else
        last = std::max(last, position.lookup(user));
    }
    return last;
  };

  // The first return of a fusion result, or of a view of one, has the
  // fusion write straight into that output; the views share it. Other
  // returns are copied into place (see LowerToExec).
  llvm::DenseMap<Value, int64_t> outputIndex;
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    Value root = viewRoot(value);
    if (root.getDefiningOp<kernel::FusionOp>() && !outputIndex.count(root))
      outputIndex[root] = i;
  }

  ArenaAllocator arena;
  int64_t intermediateBytes = 0;
  // The liveness lower bound: the most bytes of intermediates live at once
  // (each aligned), which no placement in one arena can beat.
  int64_t liveBytes = 0, liveBytesPeak = 0;
  // Arena values still live, by the position of their last use.
  std::multimap<int64_t, std::pair<int64_t, int64_t>> liveUntil;
  // The planned slot of every fusion result and view of one.
  llvm::DenseMap<Value, exec::SlotAttr> slotOf;
  for (Operation &op : block) {
    if (isView(&op)) {
      // Inputs and weights are placed by LowerToExec; views of them are too.
      exec::SlotAttr source = slotOf.lookup(op.getOperand(0));
      if (!source)
        continue;
      Value result = op.getResult(0);
      auto slot = exec::SlotAttr::get(context, source.getKind(),
                                      source.getIndex(), source.getOffset(),
                                      exec::slotBytes(result.getType()));
      slotOf[result] = slot;
      op.setAttr("exec.slots", ArrayAttr::get(context, {slot}));
      continue;
    }
    auto fusion = dyn_cast<kernel::FusionOp>(op);
    if (!fusion)
      continue;
    int64_t here = position[&op];
    SmallVector<Attribute> slots;
    for (Value result : fusion.getResults()) {
      int64_t bytes = exec::slotBytes(result.getType());
      auto out = outputIndex.find(result);
      if (out != outputIndex.end()) {
        slots.push_back(exec::SlotAttr::get(context, exec::BufferKind::output,
                                            out->second, 0, bytes));
        continue;
      }
      int64_t offset = arena.allocate(bytes);
      intermediateBytes += alignUp(std::max<int64_t>(bytes, 1));
      liveBytes += alignUp(std::max<int64_t>(bytes, 1));
      slots.push_back(exec::SlotAttr::get(context, exec::BufferKind::arena, 0,
                                          offset, bytes));
      // A result nobody reads is still written; free it after this step.
      liveUntil.emplace(std::max(lastUse(result), here),
                        std::make_pair(offset, bytes));
    }
    for (auto [result, slot] : llvm::zip(fusion.getResults(), slots))
      slotOf[result] = cast<exec::SlotAttr>(slot);
    fusion->setAttr("exec.slots", ArrayAttr::get(context, slots));
    liveBytesPeak = std::max(liveBytesPeak, liveBytes);
    // Space read for the last time by this step is free for later steps;
    // never for this step's own results, which must not alias its inputs.
    while (!liveUntil.empty() && liveUntil.begin()->first <= here) {
      arena.release(liveUntil.begin()->second.first,
                    liveUntil.begin()->second.second);
      liveBytes -= alignUp(std::max<int64_t>(liveUntil.begin()->second.second, 1));
      liveUntil.erase(liveUntil.begin());
    }
  }
  Builder b(context);
  main->setAttr("exec.arena_bytes", b.getI64IntegerAttr(arena.size()));
  main->setAttr("exec.intermediate_bytes",
                b.getI64IntegerAttr(intermediateBytes));
  main->setAttr("exec.live_bytes_bound", b.getI64IntegerAttr(liveBytesPeak));
}

LogicalResult planMemory(ModuleOp module) {
  auto funcs = module.getOps<func::FuncOp>();
  if (funcs.empty())
    return module.emitError("module has no function to plan");
  for (func::FuncOp func : funcs)
    planMemory(func);
  return success();
}

namespace {
struct PlanMemoryPass : impl::PlanMemoryBase<PlanMemoryPass> {
  void runOnOperation() override {
    if (failed(planMemory(getOperation())))
      signalPassFailure();
  }
};
} // namespace

} // namespace graphc
