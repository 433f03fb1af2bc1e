//===- FormFusionGroups.cpp - wrap graph ops into kernel.fusion -----------===//
//
// Pointwise ops (the graph dialect's Pointwise trait) join producer ->
// consumer chains computed by one kernel, which reads a transposed input
// through strides (the transpose joins it); a conv, gemm or mat_mul takes in
// the pointwise ops consuming its result as its epilogue, and a mat_mul or
// attention the data movement it alone reads through strides as its layout
// prologue (graph::layoutPrologue: for a mat_mul transposes, for attention
// also the splits and views of merged or packed Q/K/V projections) and a
// transpose of its result as its layout epilogue; a softmax, log_softmax or
// layer_normalization takes in the pointwise chain computing its data input
// as its prologue; other views (see
// Views.h) stay outside every fusion; every other op is a fusion of its own.
// Each group carries its kind, content hash and schedule.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "lib/Support/Fnv1a.h"
#include "passes/Passes.h"
#include "passes/ShapeInputs.h"
#include "passes/Views.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Format.h"

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_FORMFUSIONGROUPS
#include "passes/Passes.h.inc"

/// The template family that computes `op`, from its kind trait
/// (GraphBase.td). Data movement, and any op no template family claims,
/// has an emitter of its own: the layout kind.
kernel::FusionKind classifyOp(Operation *op) {
  if (op->hasTrait<graph::OpTrait::Pointwise>())
    return kernel::FusionKind::pointwise;
  if (op->hasTrait<graph::OpTrait::MatmulKind>())
    return kernel::FusionKind::matmul;
  if (op->hasTrait<graph::OpTrait::ConvKind>())
    return kernel::FusionKind::conv;
  if (op->hasTrait<graph::OpTrait::AttentionKind>())
    return kernel::FusionKind::attention;
  if (op->hasTrait<graph::OpTrait::ReductionKind>())
    return kernel::FusionKind::reduction;
  return kernel::FusionKind::layout;
}

std::string computeFusionHash(Region &body) {
  // FNV-1a over a canonical text: op names, attributes, types and operand
  // positions, but no SSA names or locations. Each piece ends with a 0xff
  // byte so that piece boundaries count.
  uint64_t hash = kFnvOffsetBasis;
  auto mix = [&](StringRef text) {
    static const unsigned char separator = 0xff;
    hash = fnv1a64(hash, text.data(), text.size());
    hash = fnv1a64(hash, &separator, 1);
  };
  llvm::DenseMap<Value, unsigned> numbering;
  for (BlockArgument arg : body.getArguments()) {
    numbering[arg] = numbering.size();
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "arg " << arg.getType();
    mix(os.str());
  }
  body.walk([&](Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << op->getName() << " " << op->getAttrDictionary();
    for (Value operand : op->getOperands())
      os << " %" << numbering.lookup(operand);
    for (Value result : op->getResults()) {
      numbering[result] = numbering.size();
      os << " : " << result.getType();
    }
    mix(os.str());
  });
  std::string hex;
  llvm::raw_string_ostream(hex) << llvm::format_hex_no_prefix(hash, 16);
  return hex;
}

std::string libraryKernelHash(StringRef fusionHash) {
  static const char marker[] = " library call";
  uint64_t hash = fnv1a64(kFnvOffsetBasis, fusionHash.data(), fusionHash.size());
  hash = fnv1a64(hash, marker, sizeof(marker) - 1);
  std::string hex;
  llvm::raw_string_ostream(hex) << llvm::format_hex_no_prefix(hash, 16);
  return hex;
}

kernel::FusionOp buildFusion(OpBuilder &builder, Location loc,
                             ArrayRef<Operation *> members, ValueRange results,
                             ArrayRef<Value> read, ValueRange operands,
                             kernel::FusionKind kind, StringRef name,
                             kernel::ScheduleAttr schedule,
                             kernel::LibraryAttr library) {
  MLIRContext *context = builder.getContext();
  auto fusion = builder.create<kernel::FusionOp>(
      loc, results.getTypes(), operands, builder.getStringAttr(name),
      kernel::FusionKindAttr::get(context, kind),
      builder.getStringAttr(std::string(16, '0')), schedule, library);
  Block *body = new Block();
  fusion.getBody().push_back(body);
  IRMapping mapping;
  for (Value value : read)
    mapping.map(value, body->addArgument(value.getType(), value.getLoc()));
  OpBuilder inner = OpBuilder::atBlockEnd(body);
  for (Operation *member : members)
    inner.clone(*member, mapping);
  SmallVector<Value> yielded;
  for (Value result : results)
    yielded.push_back(mapping.lookup(result));
  inner.create<kernel::YieldOp>(members.back()->getLoc(), yielded);
  fusion.setHash(computeFusionHash(fusion.getBody()));
  return fusion;
}

/// The schedule every fusion starts with until tuning picks one.
static kernel::ScheduleAttr defaultSchedule(MLIRContext *context) {
  // block_size: threads per block of grid-stride and per-row kernels; the
  // tiled matmul keeps its 16x16 tiles whatever it says.
  return kernel::ScheduleAttr::get(
      context, kernel::ScheduleSource::heuristic,
      /*block_size=*/kHeuristicBlockSize, /*elements_per_thread=*/std::nullopt,
      /*tile=*/std::nullopt, /*rows_per_block=*/std::nullopt,
      /*algo_rank=*/std::nullopt, /*split_k=*/std::nullopt,
      /*workspace_bytes=*/std::nullopt);
}

/// Reports the first dynamic dim in @main, naming what fixes it.
static LogicalResult checkStaticShapes(func::FuncOp main) {
  for (BlockArgument arg : main.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.hasStaticShape())
      continue;
    auto name = main.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                  graph::kNameAttr);
    auto symbols = main.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(),
                                                    graph::kDimsAttr);
    std::string inputName = name ? name.str() : "#" + std::to_string(arg.getArgNumber());
    for (auto [i, dim] : llvm::enumerate(type.getShape())) {
      if (!ShapedType::isDynamic(dim))
        continue;
      StringRef symbol;
      if (symbols && i < symbols.size())
        symbol = cast<StringAttr>(symbols[i]).getValue();
      auto diag = main.emitError() << "input '" << inputName << "' dim " << i
                                   << " is dynamic";
      if (!symbol.empty())
        diag << " ('" << symbol << "'): add --dim " << symbol << "=N or --shape "
             << inputName << "=...";
      else
        diag << ": add --shape " << inputName << "=D0x...";
      return failure();
    }
  }
  WalkResult walk = main.walk([&](Operation *op) {
    for (Type type : op->getResultTypes()) {
      auto ranked = dyn_cast<RankedTensorType>(type);
      if (ranked && ranked.hasStaticShape())
        continue;
      std::string node = graph::firstNodeName(op->getLoc());
      auto diag = op->emitError()
                  << "result of " << op->getName()
                  << (node.empty() ? "" : " (node '" + node + "')")
                  << " has a dynamic shape " << type
                  << " that fixed input shapes do not determine";
      // Operands are static here (this is the first dynamic result), so a
      // model input can only shape it through its values.
      std::vector<std::string> inputs;
      for (unsigned index : findValueShapedOperands(op))
        for (std::string &input : findInputSources(main, op->getOperand(index)))
          if (!llvm::is_contained(inputs, input))
            inputs.push_back(std::move(input));
      if (!inputs.empty()) {
        diag << "; its shape depends on the values of input"
             << (inputs.size() > 1 ? "s " : " ");
        for (auto [i, input] : llvm::enumerate(inputs))
          diag << (i ? ", '" : "'") << input << "'";
        diag << ": bind them at compile time with";
        for (const std::string &input : inputs)
          diag << " --const-input " << input << "=FILE.npy";
      }
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Most distinct values a pointwise fusion reads: each is a kernel
/// parameter, and this keeps launches far inside the parameter-space limit.
static constexpr unsigned kMaxPointwiseInputs = 16;

/// Most ops one pointwise fusion computes. Past a few dozen ops a fusion
/// saves little more memory traffic, while its source, its compile time and
/// (on the GPU) its register use keep growing; a long chain becomes several
/// fusions of this length, which share one kernel where they are alike.
static constexpr unsigned kMaxPointwiseOps = 32;

/// Whether `op` may be computed inside a pointwise fusion.
static bool isPointwise(Operation *op) {
  return op->hasTrait<graph::OpTrait::Pointwise>() &&
         llvm::all_of(op->getResultTypes(), [](Type type) {
           auto ranked = dyn_cast<RankedTensorType>(type);
           return ranked && ranked.hasStaticShape();
         });
}

/// The distinct values that `members` read but do not compute.
static llvm::SetVector<Value>
groupInputs(ArrayRef<Operation *> members,
            const llvm::SmallPtrSetImpl<Operation *> &inGroup) {
  llvm::SetVector<Value> inputs;
  for (Operation *member : members)
    for (Value operand : member->getOperands())
      if (!inGroup.contains(operand.getDefiningOp()))
        inputs.insert(operand);
  return inputs;
}

/// The result shape of single-result `op`.
static ArrayRef<int64_t> resultShape(Operation *op) {
  return cast<RankedTensorType>(op->getResult(0).getType()).getShape();
}

/// Partitions `ops` (in block order) into fusion groups, each in block order
/// (but for an anchor, which comes first) with its root, the only op whose
/// value leaves the group, last. Walking
/// backwards, every op not yet grouped roots a group; a pointwise root then
/// takes in each pointwise producer whose users all lie in the group, so that
/// nothing is computed twice, while the group reads at most
/// kMaxPointwiseInputs distinct values and holds at most kMaxPointwiseOps ops.
/// The walk may also take in one conv, gemm or mat_mul (the anchor) whose
/// users all lie in the group: the pointwise members become its epilogue,
/// applied to its accumulator before the store. Every member then has the
/// anchor's result shape, so that the anchor's output index addresses them
/// all, and the walk does not extend past the anchor: its operands are plain
/// inputs, and no member feeds it.
/// A root that is a prologue reduction (graph::isPrologueReduction) takes in
/// pointwise producers of its data input (slot 0) instead: each has the shape
/// of that input, so that the element index the reduction reads addresses
/// them all, and none feeds another slot of the reduction, which the kernel
/// reads as a plain input.
static SmallVector<SmallVector<Operation *>>
partitionIntoGroups(ArrayRef<Operation *> ops) {
  llvm::DenseMap<Operation *, unsigned> position;
  for (auto [i, op] : llvm::enumerate(ops))
    position[op] = i;
  llvm::DenseSet<Operation *> grouped;
  SmallVector<SmallVector<Operation *>> groups;
  for (Operation *root : llvm::reverse(ops)) {
    // A view is computed by no kernel: it joins an attention's layout
    // prologue or stays a view.
    if (grouped.contains(root) || isView(root))
      continue;
    SmallVector<Operation *> members = {root};
    llvm::SmallPtrSet<Operation *, 16> inGroup = {root};
    // A mat_mul or attention root is its own anchor: only layout prologues
    // join it. A transpose root of its result is its layout epilogue.
    Operation *anchor =
        graph::isEpilogueAnchor(root) || graph::isLayoutAnchor(root) ? root
                                                                     : nullptr;
    if (Operation *producer = root->getNumOperands()
                                  ? root->getOperand(0).getDefiningOp()
                                  : nullptr;
        producer && graph::isLayoutEpilogueOf(root, producer) &&
        position.count(producer) && !grouped.contains(producer)) {
      anchor = producer;
      members.push_back(producer);
      inGroup.insert(producer);
    }
    // Ops the anchor reads through strides (graph::layoutPrologue): the
    // walk goes on below them only to more of them.
    llvm::SmallPtrSet<Operation *, 4> prologue;
    // Transposes a pointwise group reads its inputs through: the kernel
    // loads the transpose's input at permuted strides, so the walk stops
    // there (their input is read from memory, never computed in the group).
    llvm::SmallPtrSet<Operation *, 4> stridedReads;
    // The anchor's layout prologue, computed once per anchor: the walk asks
    // about every producer.
    Operation *layoutOf = nullptr;
    graph::LayoutPrologue layout;
    auto inLayoutPrologue = [&](Operation *producer) {
      if (!graph::isLayoutAnchor(anchor))
        return false;
      if (layoutOf != anchor) {
        layout = graph::layoutPrologue(anchor);
        layoutOf = anchor;
      }
      return layout.ops.contains(producer);
    };
    // A softmax, log_softmax or layer_normalization root takes in the
    // pointwise chain computing its data input as its prologue.
    Operation *reduction =
        graph::isPrologueReduction(root) && root->getNumOperands() > 0 &&
                cast<RankedTensorType>(root->getOperand(0).getType())
                    .hasStaticShape()
            ? root
            : nullptr;
    auto hasAnchorShape = [&](Operation *op) {
      return resultShape(op) == resultShape(anchor);
    };
    // Whether `producer` may join: it is pointwise (with the anchor's shape
    // once there is one) or the group's first anchor.
    auto mayJoin = [&](Operation *producer) {
      if (inLayoutPrologue(producer)) {
        prologue.insert(producer);
        return true;
      }
      // A prologue op has the reduction's data shape and feeds no other
      // slot of it; one whose operand a conv, gemm or mat_mul computes for it
      // alone is left to that op's epilogue, which stores it once instead of
      // the reduction recomputing it on each pass over a row.
      if (reduction)
        return isPointwise(producer) &&
               resultShape(producer) ==
                   cast<RankedTensorType>(reduction->getOperand(0).getType())
                       .getShape() &&
               llvm::none_of(reduction->getOperands().drop_front(),
                             [&](Value operand) {
                               return operand.getDefiningOp() == producer;
                             }) &&
               llvm::none_of(producer->getOperands(), [](Value operand) {
                 Operation *source = operand.getDefiningOp();
                 return source && graph::isEpilogueAnchor(source) &&
                        operand.hasOneUse();
               });
      // A pointwise group without an anchor reads a transpose's input
      // through strides instead of a copy kernel writing it transposed.
      if (!anchor && isPointwise(root) && isa<graph::TransposeOp>(producer) &&
          !isView(producer) &&
          cast<RankedTensorType>(producer->getOperand(0).getType())
              .hasStaticShape() &&
          cast<RankedTensorType>(producer->getResult(0).getType())
              .hasStaticShape()) {
        stridedReads.insert(producer);
        return true;
      }
      // A member feeding the anchor would be computed inside the kernel
      // before it, where the anchor's template reads only kernel inputs.
      if (isPointwise(producer))
        return !anchor ||
               (hasAnchorShape(producer) &&
                !llvm::is_contained(producer->getUsers(), anchor));
      if (anchor || !graph::isEpilogueAnchor(producer))
        return false;
      anchor = producer;
      if (llvm::all_of(members, hasAnchorShape))
        return true;
      anchor = nullptr;
      return false;
    };
    // A member taken in makes its producers candidates again: a producer
    // turned down earlier may have all its users in the group now.
    size_t next = isPointwise(root) || anchor || reduction ? 0 : members.size();
    for (; next < members.size() && members.size() < kMaxPointwiseOps;
         ++next) {
      // A layout prologue op reads a kernel input or another prologue op.
      bool fromPrologue = prologue.contains(members[next]);
      if (stridedReads.contains(members[next]))
        continue;
      // Only the reduction's data input is computed by the prologue.
      OperandRange operands = members[next]->getOperands();
      if (members[next] == reduction)
        operands = operands.take_front(1);
      for (Value operand : operands) {
        if (members.size() == kMaxPointwiseOps)
          break;
        Operation *producer = operand.getDefiningOp();
        if (!producer || !position.count(producer) ||
            grouped.contains(producer) || inGroup.contains(producer))
          continue;
        if (!llvm::all_of(producer->getUsers(), [&](Operation *user) {
              return inGroup.contains(user);
            }))
          continue;
        if (fromPrologue && !inLayoutPrologue(producer))
          continue;
        Operation *anchorBefore = anchor;
        if (!mayJoin(producer))
          continue;
        inGroup.insert(producer);
        members.push_back(producer);
        if (groupInputs(members, inGroup).size() > kMaxPointwiseInputs) {
          members.pop_back();
          inGroup.erase(producer);
          prologue.erase(producer);
          stridedReads.erase(producer);
          anchor = anchorBefore;
        }
      }
    }
    for (Operation *member : members)
      grouped.insert(member);
    llvm::sort(members, [&](Operation *a, Operation *b) {
      return position[a] < position[b];
    });
    // The layout prologues come first, then the anchor: it reads no other
    // member, and an epilogue member placed before it in the block does not
    // read it either.
    if (anchor) {
      auto rest = std::stable_partition(
          members.begin(), members.end(),
          [&](Operation *op) { return prologue.contains(op); });
      std::stable_partition(rest, members.end(),
                            [&](Operation *op) { return op == anchor; });
    }
    groups.push_back(std::move(members));
  }
  // Roots were found last to first.
  std::reverse(groups.begin(), groups.end());
  return groups;
}

std::string describeFusionOps(ArrayRef<Operation *> members) {
  llvm::SetVector<StringRef> mnemonics;
  // Views in an attention's layout prologue compute nothing.
  for (Operation *member : members)
    if (!isView(member))
      mnemonics.insert(member->getName().stripDialect());
  std::string text;
  for (StringRef mnemonic : mnemonics.getArrayRef().take_front(4))
    text += (text.empty() ? "" : "_") + mnemonic.str();
  return text;
}

/// Groups the ops of `block` into fusions, and those of the bodies of its
/// loops, each body on its own: a fusion never spans a loop's boundary.
static void formFusionGroups(Block &block, bool fuse, unsigned &counter) {
  MLIRContext *context = block.getParentOp()->getContext();
  SmallVector<Operation *> ops;
  for (Operation &op : block) {
    if (auto loop = dyn_cast<graph::LoopOp>(op)) {
      formFusionGroups(loop.getBodyBlock(), fuse, counter);
      continue;
    }
    if (op.getDialect() && op.getDialect()->getNamespace() == "graph" &&
        !isa<graph::ConstantOp, graph::YieldOp, graph::OutputExtentsOp>(op) &&
        (fuse || !isView(&op)))
      ops.push_back(&op);
  }

  SmallVector<SmallVector<Operation *>> groups;
  if (fuse)
    groups = partitionIntoGroups(ops);
  else
    for (Operation *op : ops)
      groups.push_back({op});
  for (SmallVector<Operation *> &members : groups) {
    Operation *root = members.back();
    llvm::SmallPtrSet<Operation *, 16> inGroup(members.begin(), members.end());
    // A value read twice, or by two members, is one fusion input.
    llvm::SetVector<Value> inputs = groupInputs(members, inGroup);
    SmallVector<Location> locations;
    for (Operation *member : members)
      locations.push_back(member->getLoc());
    Location loc = FusedLoc::get(context, locations);
    // The root comes after every member, and every input dominates it.
    OpBuilder builder(root);
    // An epilogue fusion has the kind of its anchor, its first member after
    // any layout prologue; a prologue fusion that of its reduction, its root.
    // A pointwise group's transposed inputs may come first: its kind is its
    // root's.
    Operation *kindOf = graph::isPrologueReduction(root)
                            ? root
                            : graph::splitLayoutPrologue(members).second;
    if (isa<graph::TransposeOp>(kindOf) && isPointwise(root))
      kindOf = root;
    kernel::FusionKind kind = classifyOp(kindOf);
    std::string name = describeFusionOps(members) + "_" + std::to_string(counter++);
    kernel::FusionOp fusion = buildFusion(
        builder, loc, members, root->getResults(), inputs.getArrayRef(),
        inputs.getArrayRef(), kind, name, defaultSchedule(context),
        /*library=*/nullptr);
    root->replaceAllUsesWith(fusion.getResults());
    // Users first: only the root had users outside the group.
    for (Operation *member : llvm::reverse(members))
      member->erase();
  }
}

/// Groups the ops of one function (one shape bucket) into fusions.
static LogicalResult formFusionGroups(func::FuncOp main, bool fuse) {
  if (failed(checkStaticShapes(main)))
    return failure();
  unsigned counter = 0;
  formFusionGroups(main.getBody().front(), fuse, counter);
  return success();
}

LogicalResult formFusionGroups(ModuleOp module, bool fuse) {
  auto funcs = module.getOps<func::FuncOp>();
  if (funcs.empty())
    return module.emitError("module has no function to fuse");
  for (func::FuncOp func : funcs)
    if (failed(formFusionGroups(func, fuse)))
      return failure();
  return success();
}

namespace {
struct FormFusionGroupsPass
    : impl::FormFusionGroupsBase<FormFusionGroupsPass> {
  using FormFusionGroupsBase::FormFusionGroupsBase;
  void runOnOperation() override {
    if (failed(formFusionGroups(getOperation(), fuse)))
      signalPassFailure();
  }
};
} // namespace

} // namespace graphc
