//===- PlanMemory.cpp - liveness-based arena planning ---------------------===//
//
// Every intermediate of a function lives from the step computing it to its
// last read (a view's reads count for its source); all lifetimes are known,
// so they are placed in one arena at once, greedy by size, together with
// the workspace of each library call (live for its step). Records the
// arena size, the sum of all intermediates, and the liveness lower bound
// (the most bytes live at once), which measures what the placement loses
// to fragmentation.
//
// With attention scratch (the cuda target), a generated attention that may
// split its keys across blocks (flash-decoding, lib/Support/AttentionSplits.h)
// gets two more slots: its partials, placed like a library workspace, and
// its arrival counters, in a prefix of the arena that no plan places
// anything else in. The runtime zeroes the arena once; the last block of a
// query tile resets its counter, so the counters are zero again after every
// run (and every CUDA graph replay).
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "lib/Support/AttentionSplits.h"
#include "passes/Passes.h"
#include "passes/Views.h"

#include "mlir/IR/Builders.h"

#include <functional>
#include <map>
#include <optional>

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_PLANMEMORY
#include "passes/Passes.h.inc"

namespace {

constexpr int64_t kAlignment = 256;

int64_t alignUp(int64_t value) {
  return (value + kAlignment - 1) / kAlignment * kAlignment;
}

/// One intermediate the arena holds: live from the step computing it to
/// its last read, inclusive (so that it never shares memory with what that
/// step reads, nor with what its last reader writes).
struct ArenaValue {
  /// The intermediate, or null for the scratch of fusion `workspaceOf` (a
  /// library call's workspace, an attention's partials), which lives for
  /// its own step only.
  Value value;
  Operation *workspaceOf = nullptr;
  /// Or slot `loopSlot` of the exec.slots of loop `loopOf`.
  Operation *loopOf = nullptr;
  unsigned loopSlot = 0;
  int64_t start, end, bytes;
  /// The scratch's own size (`bytes` is aligned).
  int64_t scratchBytes = 0;
  int64_t offset = -1;
  /// The values live at the same time.
  SmallVector<unsigned> overlaps;
};

/// Offsets for `values` (in order of `start`) by greedy-by-size: largest
/// first, each at the lowest offset clear of every placed value it overlaps
/// in time. Placing all lifetimes at once, rather than allocating as the
/// steps go, keeps the arena close to the liveness lower bound. Returns
/// the arena size.
int64_t placeBySize(MutableArrayRef<ArenaValue> values) {
  // Who overlaps whom: a sweep over starts keeps the values still live.
  SmallVector<unsigned> live;
  for (auto [i, value] : llvm::enumerate(values)) {
    llvm::erase_if(live, [&](unsigned j) { return values[j].end < value.start; });
    for (unsigned j : live) {
      value.overlaps.push_back(j);
      values[j].overlaps.push_back(i);
    }
    live.push_back(i);
  }
  SmallVector<unsigned> order(values.size());
  for (unsigned i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    return values[a].bytes > values[b].bytes;
  });
  int64_t arenaBytes = 0;
  SmallVector<std::pair<int64_t, int64_t>> taken;
  for (unsigned i : order) {
    ArenaValue &value = values[i];
    taken.clear();
    for (unsigned j : value.overlaps)
      if (values[j].offset >= 0)
        taken.push_back({values[j].offset, values[j].bytes});
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [at, bytes] : taken) {
      if (at - offset >= value.bytes)
        break;
      offset = std::max(offset, at + bytes);
    }
    value.offset = offset;
    arenaBytes = std::max(arenaBytes, offset + value.bytes);
  }
  return arenaBytes;
}

/// The arena scratch library fusion `fusion` asks for in its schedule.
int64_t workspaceBytes(kernel::FusionOp fusion) {
  // The schedule's verifier keeps it non-negative.
  return fusion.getSchedule().getWorkspaceBytes().value_or(0);
}

/// What a generated attention that may split its keys needs beside its
/// results: the partials' bytes and the counters' bytes; nullopt where it
/// never splits.
std::optional<std::pair<int64_t, int64_t>>
attentionScratch(kernel::FusionOp fusion) {
  if (fusion.getLibrary() || fusion.getKind() != kernel::FusionKind::attention)
    return std::nullopt;
  graph::AttentionOp attention;
  fusion.getBody().walk([&](graph::AttentionOp op) { attention = op; });
  if (!attention)
    return std::nullopt;
  auto shape = [&](unsigned i) {
    return cast<ShapedType>(attention->getOperand(i).getType()).getShape();
  };
  ArrayRef<int64_t> q = shape(0), k = shape(1), v = shape(2);
  if (q.size() != 4 || k.size() != 4 || v.size() != 4)
    return std::nullopt;
  int64_t splits = attentionMaxKeySplits(q[0], q[1], q[2], k[2]);
  if (splits <= 1)
    return std::nullopt;
  return std::make_pair(attentionPartialBytes(splits, q[0], q[1], q[2], v[3]),
                        attentionCounterBytes(q[0], q[1], q[2]));
}

/// The bytes of the counter prefix that `main`'s attentions need.
int64_t counterPrefixBytes(func::FuncOp main) {
  int64_t bytes = 0;
  main.walk([&](kernel::FusionOp fusion) {
    if (auto scratch = attentionScratch(fusion))
      bytes += alignUp(scratch->second);
  });
  return bytes;
}

/// Positions of the ops of a function in step order, loop bodies inline:
/// a graph.loop's position is that of its first step (the copies of its
/// initial values), its body's ops follow, and its end is the position
/// after its body (the copies of the next carried values).
struct StepOrder {
  llvm::DenseMap<Operation *, int64_t> position;
  llvm::DenseMap<Operation *, int64_t> loopEnd;
  int64_t next = 0;

  void number(Block &block) {
    for (Operation &op : block) {
      position[&op] = next++;
      if (auto loop = dyn_cast<graph::LoopOp>(op)) {
        number(loop.getBodyBlock());
        loopEnd[loop] = next++;
      }
    }
  }

  /// Where `user` reads `value`: its own position, unless it lies in the
  /// body of a loop that `value` is defined outside of: it is then read in
  /// every iteration, until the end of the outermost such loop. A loop
  /// reads its operands (the trip count in every iteration) until its end,
  /// and what its body yields at its end.
  int64_t readAt(Value value, Operation *user) const {
    Operation *scope = value.getDefiningOp()
                           ? value.getDefiningOp()
                           : value.getParentBlock()->getParentOp();
    int64_t at = position.lookup(user);
    if (isa<graph::LoopOp>(user) && user != scope)
      at = loopEnd.lookup(user);
    // The body's end copies what it yields, with the staging copies.
    if (isa<graph::YieldOp>(user))
      at = loopEnd.lookup(user->getParentOp());
    for (Operation *parent = user->getParentOp();
         parent && isa<graph::LoopOp>(parent); parent = parent->getParentOp()) {
      if (parent->isAncestor(scope))
        break;
      at = loopEnd.lookup(parent);
    }
    return at;
  }
};

} // namespace

/// The type of what slot `index` of `loop`'s exec.slots holds (not the
/// state, slot 0).
static Type loopSlotType(graph::LoopOp loop, unsigned index) {
  unsigned carried = loop.getInitial().size();
  if (index <= carried)
    return loop.getResult(index - 1).getType();
  return loop.getYield()->getOperand(index - 1 - carried).getType();
}

/// Plans the arena of one function (one shape bucket); with
/// `attentionScratch`, the counters take the arena's first `prefixBytes`.
/// A graph.loop gets `exec.slots`: its state (16 bytes: the iteration
/// number the body reads, and whether another iteration runs), one slot per
/// loop-carried value (which the body reads it from, and its result), and
/// one per value its body yields (the condition first): a staging slot
/// where the value lies in a carried slot, which the copies at the body's
/// end would overwrite before it is read, else #exec.slot<none>.
static void planMemory(func::FuncOp main, bool withAttentionScratch,
                       int64_t prefixBytes) {
  Block &block = main.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  MLIRContext *context = main.getContext();

  // Position of every op, and the last position at which each value is read.
  StepOrder order;
  order.number(block);
  const llvm::DenseMap<Operation *, int64_t> &position = order.position;
  // A view reads its source's buffer wherever the view is read, so the
  // source stays live until the last use of any view of it.
  std::function<int64_t(Value)> lastUse = [&](Value value) {
    int64_t last =
        value.getDefiningOp() ? position.lookup(value.getDefiningOp()) : 0;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      last = std::max(last, order.readAt(value, user));
      if (isView(user) && use.getOperandNumber() == 0)
        last = std::max(last, lastUse(user->getResult(0)));
    }
    return last;
  };

  SmallVector<kernel::FusionOp> fusions;
  SmallVector<graph::LoopOp> loops;
  main.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto fusion = dyn_cast<kernel::FusionOp>(op)) {
      fusions.push_back(fusion);
      return WalkResult::skip();
    }
    if (auto loop = dyn_cast<graph::LoopOp>(op))
      loops.push_back(loop);
    return WalkResult::advance();
  });

  // The first return of a fusion result, or of a view of one, has the
  // fusion write straight into that output; the views share it. Other
  // returns are copied into place (see LowerToExec).
  llvm::DenseMap<Value, int64_t> outputIndex;
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    Value root = viewRoot(value);
    if (root.getDefiningOp<kernel::FusionOp>() && !outputIndex.count(root))
      outputIndex[root] = i;
  }

  // Every fusion result the arena holds, with its lifetime. A result
  // nobody reads is still written: it lives for its own step.
  SmallVector<ArenaValue> values;
  int64_t intermediateBytes = 0;
  for (kernel::FusionOp fusion : fusions)
    for (Value result : fusion.getResults())
      if (!outputIndex.count(result)) {
        int64_t here = position.lookup(fusion);
        int64_t bytes =
            alignUp(std::max<int64_t>(exec::slotBytes(result.getType()), 1));
        values.push_back({result, nullptr, nullptr, 0, here,
                          std::max(lastUse(result), here), bytes});
        intermediateBytes += bytes;
      }
  // A loop's state and carried values live from its start to its end (the
  // results, which are the carried slots, until their last read); a staging
  // slot at the body's end, where the copies happen.
  for (graph::LoopOp loop : loops) {
    int64_t start = position.lookup(loop), end = order.loopEnd.lookup(loop);
    auto add = [&](unsigned slot, int64_t from, int64_t to, int64_t size) {
      int64_t bytes = alignUp(std::max<int64_t>(size, 1));
      values.push_back({Value(), nullptr, loop, slot, from, to, bytes});
      intermediateBytes += bytes;
    };
    add(0, start, end, 16);
    unsigned carried = loop.getInitial().size();
    for (unsigned j = 0; j < carried; ++j)
      add(1 + j, start,
          std::max(
              {end, lastUse(loop.getResult(j)), lastUse(loop.getCarried(j))}),
          exec::slotBytes(loop.getResult(j).getType()));
    for (auto [k, yielded] : llvm::enumerate(loop.getYield()->getOperands()))
      if (auto argument = dyn_cast<BlockArgument>(viewRoot(yielded));
          argument && argument.getOwner() == &loop.getBodyBlock() &&
          argument.getArgNumber() > 0)
        add(1 + carried + k, end, end, exec::slotBytes(yielded.getType()));
  }
  // Library calls' scratch: live during their own step, so that it never
  // overlaps what the call reads or writes.
  for (kernel::FusionOp fusion : fusions)
    if (fusion.getLibrary())
      if (int64_t bytes = workspaceBytes(fusion)) {
        int64_t here = position.lookup(fusion);
        values.push_back(
            {Value(), fusion, nullptr, 0, here, here, alignUp(bytes), bytes});
      }
  // Attentions' partials likewise; their counters go into the prefix.
  llvm::DenseMap<Operation *, exec::SlotAttr> counterOf;
  int64_t counterEnd = 0;
  if (withAttentionScratch)
    for (kernel::FusionOp fusion : fusions)
      if (auto scratch = attentionScratch(fusion)) {
        int64_t here = position.lookup(fusion);
        values.push_back({Value(), fusion, nullptr, 0, here, here,
                          alignUp(scratch->first), scratch->first});
        counterOf[fusion] = exec::SlotAttr::get(
            context, exec::BufferKind::arena, 0, counterEnd, scratch->second);
        counterEnd += alignUp(scratch->second);
      }
  assert(counterEnd <= prefixBytes && "the counter prefix is too small");
  // placeBySize finds overlaps by sweeping over starts.
  llvm::stable_sort(values, [](const ArenaValue &a, const ArenaValue &b) {
    return a.start < b.start;
  });
  // The liveness lower bound: the most bytes live at any one step.
  int64_t liveBytesBound = 0;
  {
    std::map<int64_t, int64_t> delta;
    for (const ArenaValue &value : values) {
      delta[value.start] += value.bytes;
      delta[value.end + 1] -= value.bytes;
    }
    int64_t live = 0;
    for (auto [step, change] : delta)
      liveBytesBound = std::max(liveBytesBound, live += change);
  }
  int64_t arenaBytes = placeBySize(values);
  // Everything else lies past the counters, in every plan alike.
  for (ArenaValue &value : values)
    value.offset += prefixBytes;
  arenaBytes += prefixBytes;
  liveBytesBound += prefixBytes;

  auto *execDialect = context->getLoadedDialect<exec::ExecDialect>();
  llvm::DenseMap<Value, exec::SlotAttr> slotOf;
  llvm::DenseMap<Operation *, std::map<unsigned, exec::SlotAttr>> loopSlots;
  for (const ArenaValue &value : values) {
    if (value.workspaceOf) {
      auto slot = exec::SlotAttr::get(context, exec::BufferKind::arena, 0,
                                      value.offset, value.scratchBytes);
      if (cast<kernel::FusionOp>(value.workspaceOf).getLibrary())
        execDialect->getWorkspaceAttrHelper().setAttr(value.workspaceOf, slot);
      else
        execDialect->getScratchAttrHelper().setAttr(
            value.workspaceOf,
            ArrayAttr::get(context,
                           {slot, counterOf.lookup(value.workspaceOf)}));
      continue;
    }
    if (value.loopOf) {
      loopSlots[value.loopOf][value.loopSlot] = exec::SlotAttr::get(
          context, exec::BufferKind::arena, 0, value.offset,
          value.loopSlot == 0
              ? 16
              : exec::slotBytes(loopSlotType(cast<graph::LoopOp>(value.loopOf),
                                             value.loopSlot)));
      continue;
    }
    slotOf[value.value] =
        exec::SlotAttr::get(context, exec::BufferKind::arena, 0, value.offset,
                            exec::slotBytes(value.value.getType()));
  }
  // The loops' slots; what the body reads its iteration number and carried
  // values from, and the loop's results, are in them.
  auto none = exec::SlotAttr::get(context, exec::BufferKind::none, 0, 0, 0);
  for (graph::LoopOp loop : loops) {
    unsigned carried = loop.getInitial().size();
    SmallVector<Attribute> slots(2 + 2 * carried, none);
    for (auto [index, slot] : loopSlots[loop])
      slots[index] = slot;
    exec::SlotAttr state = cast<exec::SlotAttr>(slots[0]);
    slotOf[loop.getIteration()] = exec::SlotAttr::get(
        context, exec::BufferKind::arena, 0, state.getOffset(), 8);
    for (unsigned j = 0; j < carried; ++j) {
      slotOf[loop.getCarried(j)] = cast<exec::SlotAttr>(slots[1 + j]);
      slotOf[loop.getResult(j)] = cast<exec::SlotAttr>(slots[1 + j]);
    }
    execDialect->getSlotsAttrHelper().setAttr(loop,
                                              ArrayAttr::get(context, slots));
  }
  // Views and fusions in step order, so that a view's source has its slot.
  SmallVector<Operation *> ops;
  main.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<kernel::FusionOp>(op)) {
      ops.push_back(op);
      return WalkResult::skip();
    }
    if (isView(op))
      ops.push_back(op);
    return WalkResult::advance();
  });
  for (Operation *opPtr : ops) {
    Operation &op = *opPtr;
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
      execDialect->getSlotsAttrHelper().setAttr(
          &op, ArrayAttr::get(context, {slot}));
      continue;
    }
    auto fusion = dyn_cast<kernel::FusionOp>(op);
    if (!fusion)
      continue;
    SmallVector<Attribute> slots;
    for (Value result : fusion.getResults()) {
      auto out = outputIndex.find(result);
      if (out != outputIndex.end()) {
        auto slot = exec::SlotAttr::get(context, exec::BufferKind::output,
                                        out->second, 0,
                                        exec::slotBytes(result.getType()));
        slotOf[result] = slot;
        slots.push_back(slot);
        continue;
      }
      slots.push_back(slotOf.lookup(result));
    }
    execDialect->getSlotsAttrHelper().setAttr(fusion,
                                              ArrayAttr::get(context, slots));
  }
  Builder b(context);
  execDialect->getArenaBytesAttrHelper().setAttr(
      main, b.getI64IntegerAttr(arenaBytes));
  execDialect->getIntermediateBytesAttrHelper().setAttr(
      main, b.getI64IntegerAttr(intermediateBytes));
  execDialect->getLiveBytesBoundAttrHelper().setAttr(
      main, b.getI64IntegerAttr(liveBytesBound));
}

LogicalResult planMemory(ModuleOp module, bool attentionScratch) {
  auto funcs = module.getOps<func::FuncOp>();
  if (funcs.empty())
    return module.emitError("module has no function to plan");
  // One prefix for all plans: a plan's counters are never another plan's
  // intermediates, so they stay zero between runs of different plans.
  int64_t prefixBytes = 0;
  if (attentionScratch)
    for (func::FuncOp func : funcs)
      prefixBytes = std::max(prefixBytes, counterPrefixBytes(func));
  for (func::FuncOp func : funcs)
    planMemory(func, attentionScratch, prefixBytes);
  return success();
}

namespace {
struct PlanMemoryPass : impl::PlanMemoryBase<PlanMemoryPass> {
  using PlanMemoryBase::PlanMemoryBase;
  void runOnOperation() override {
    if (failed(planMemory(getOperation(), attentionScratch)))
      signalPassFailure();
  }
};
} // namespace

} // namespace graphc
