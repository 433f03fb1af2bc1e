//===- LowerToExec.cpp - planned @main to the exec run plan ---------------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "passes/Passes.h"
#include "passes/Views.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_LOWERTOEXEC
#include "passes/Passes.h.inc"

/// The ONNX node names in a location (NameLocs, possibly fused).
static void collectNodeNames(Location loc, SmallVectorImpl<Attribute> &names) {
  if (auto named = dyn_cast<NameLoc>(loc)) {
    names.push_back(named.getName());
    return;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      collectNodeNames(inner, names);
}

/// Constants past this many elements are weights, read through their slot;
/// smaller ones (axes, starts, pads, scales, K) are worth specialising on.
static constexpr int64_t kMaxInlinedConstantElements = 1024;

/// Replaces, inside `kernelOp`, the uses of block arguments whose fusion
/// input is a small dense constant by a copy of that constant. The copy
/// names the block argument it replaces: the launch still passes that
/// input, and codegen may read the values through it.
static void inlineConstantInputs(kernel::FusionOp fusion,
                                 exec::KernelOp kernelOp) {
  Block &body = kernelOp.getBody().front();
  OpBuilder builder = OpBuilder::atBlockBegin(&body);
  for (auto [input, arg] : llvm::zip(fusion.getInputs(), body.getArguments())) {
    // A view of a constant is that constant in the view's shape.
    auto constant = viewRoot(input).getDefiningOp<graph::ConstantOp>();
    if (!constant)
      continue;
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!dense || dense.getNumElements() > kMaxInlinedConstantElements)
      continue;
    auto type = cast<ShapedType>(input.getType());
    auto copy = builder.create<graph::ConstantOp>(constant.getLoc(), type,
                                                  dense.reshape(type));
    copy->setAttr(exec::kArgumentAttr,
                  builder.getI64IntegerAttr(arg.getArgNumber()));
    arg.replaceAllUsesWith(copy.getResult());
  }
}

LogicalResult lowerToExec(ModuleOp module, StringRef planName) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main)
    return module.emitError("module has no @main function");
  auto arenaBytes = main->getAttrOfType<IntegerAttr>("exec.arena_bytes");
  auto intermediateBytes =
      main->getAttrOfType<IntegerAttr>("exec.intermediate_bytes");
  if (!arenaBytes || !intermediateBytes)
    return main.emitError("memory is not planned: run graphc-plan-memory");
  MLIRContext *context = module.getContext();
  Block &block = main.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  OpBuilder builder(context);
  builder.setInsertionPoint(main);
  Location loc = main.getLoc();

  // Signature.
  SmallVector<Attribute> inputTypes, outputTypes;
  auto emitIO = [&](bool isOutput, unsigned index, Type type,
                    DictionaryAttr attrs) {
    auto name = attrs ? attrs.getAs<StringAttr>(graph::kNameAttr) : nullptr;
    auto dims = attrs ? attrs.getAs<ArrayAttr>(graph::kDimsAttr) : nullptr;
    SmallVector<Attribute> dimNames;
    auto ranked = cast<RankedTensorType>(type);
    for (int64_t i = 0; i < ranked.getRank(); ++i)
      dimNames.push_back(dims && i < static_cast<int64_t>(dims.size())
                             ? dims[i]
                             : builder.getStringAttr(""));
    std::string fallback = (isOutput ? "output_" : "input_") + std::to_string(index);
    builder.create<exec::IOOp>(
        loc, name ? name : builder.getStringAttr(fallback),
        builder.getBoolAttr(isOutput), builder.getI64IntegerAttr(index),
        TypeAttr::get(type), builder.getArrayAttr(dimNames));
  };
  for (BlockArgument arg : main.getArguments()) {
    emitIO(false, arg.getArgNumber(), arg.getType(),
           main.getArgAttrDict(arg.getArgNumber()));
    inputTypes.push_back(TypeAttr::get(arg.getType()));
  }
  for (auto [i, type] : llvm::enumerate(main.getResultTypes())) {
    emitIO(true, i, type, main.getResultAttrDict(i));
    outputTypes.push_back(TypeAttr::get(type));
  }

  // Where every value lives.
  llvm::DenseMap<Value, exec::SlotAttr> slotOf;
  for (BlockArgument arg : main.getArguments())
    slotOf[arg] = exec::SlotAttr::get(context, exec::BufferKind::input,
                                      arg.getArgNumber(), 0,
                                      exec::slotBytes(arg.getType()));
  // Weights, in order of first appearance; one blob entry per distinct value.
  llvm::DenseMap<Attribute, exec::SlotAttr> weightOf;
  int64_t weightsEnd = 0;
  unsigned weightCounter = 0;
  for (Operation &op : block) {
    auto constant = dyn_cast<graph::ConstantOp>(op);
    if (!constant)
      continue;
    Attribute value = constant.getValue();
    auto found = weightOf.find(value);
    if (found == weightOf.end()) {
      int64_t bytes = exec::slotBytes(constant.getType());
      builder.create<exec::WeightOp>(
          constant.getLoc(),
          builder.getStringAttr("w" + std::to_string(weightCounter++)),
          builder.getI64IntegerAttr(weightsEnd), constant.getValue());
      found = weightOf
                  .try_emplace(value, exec::SlotAttr::get(
                                          context, exec::BufferKind::weights,
                                          0, weightsEnd, bytes))
                  .first;
      weightsEnd = (weightsEnd + bytes + 255) / 256 * 256;
    }
    slotOf[constant.getResult()] = found->second;
  }

  // Kernels, one per distinct content hash.
  llvm::StringMap<exec::KernelOp> kernelByHash;
  auto plan = builder.create<exec::PlanOp>(
      loc, builder.getStringAttr(planName), arenaBytes, intermediateBytes,
      builder.getArrayAttr(inputTypes), builder.getArrayAttr(outputTypes));
  Block *steps = new Block();
  plan.getSteps().push_back(steps);
  OpBuilder stepBuilder = OpBuilder::atBlockEnd(steps);
  llvm::MapVector<Operation *, llvm::SetVector<Attribute>> nodesOfKernel;

  for (Operation &op : block) {
    if (isView(&op)) {
      // No step: the view names its source's bytes with its own type.
      exec::SlotAttr source = slotOf.lookup(op.getOperand(0));
      if (!source)
        return op.emitOpError("is a view of a value with no slot");
      Value result = op.getResult(0);
      auto slot = exec::SlotAttr::get(context, source.getKind(),
                                      source.getIndex(), source.getOffset(),
                                      exec::slotBytes(result.getType()));
      auto planned = op.getAttrOfType<ArrayAttr>("exec.slots");
      if (planned && (planned.size() != 1 || planned[0] != slot))
        return op.emitOpError("was planned a slot other than its source's");
      slotOf[result] = slot;
      continue;
    }
    auto fusion = dyn_cast<kernel::FusionOp>(op);
    if (!fusion)
      continue;
    auto slots = fusion->getAttrOfType<ArrayAttr>("exec.slots");
    if (!slots)
      return fusion.emitOpError("has no planned slots");
    for (auto [result, slot] : llvm::zip(fusion.getResults(), slots))
      slotOf[result] = cast<exec::SlotAttr>(slot);

    // The kernel: the fusion body with its small constant inputs inlined, so
    // that codegen sees constant axes, starts, pads or scales as constants.
    // The block arguments (and so the calling convention) stay. Kernels are
    // shared by the hash of that body, which includes the inlined values.
    OpBuilder kernelBuilder(plan);
    auto kernelOp = kernelBuilder.create<exec::KernelOp>(
        fusion.getLoc(), fusion.getNameAttr(),
        kernel::FusionKindAttr::get(context, fusion.getKind()),
        fusion.getHashAttr(), fusion.getSchedule(),
        kernelBuilder.getArrayAttr({}), /*grid=*/nullptr, /*block=*/nullptr,
        /*shared_bytes=*/nullptr);
    IRMapping mapping;
    fusion.getBody().cloneInto(&kernelOp.getBody(), mapping);
    inlineConstantInputs(fusion, kernelOp);
    std::string hash = computeFusionHash(kernelOp.getBody());
    SmallVector<Attribute> nodes;
    fusion.getBody().walk([&](Operation *inner) {
      if (!isa<kernel::YieldOp>(inner))
        collectNodeNames(inner->getLoc(), nodes);
    });
    exec::KernelOp shared = kernelByHash.lookup(hash);
    if (shared) {
      kernelOp.erase();
      kernelOp = shared;
    } else {
      kernelOp.setHash(hash);
      kernelByHash[hash] = kernelOp;
    }
    // The node list of a shared kernel grows with every fusion it covers;
    // it is set once at the end, since rebuilding the attribute per fusion
    // costs time and (uniqued, never freed) memory quadratic in its users.
    nodesOfKernel[kernelOp].insert(nodes.begin(), nodes.end());
    StringAttr kernelName = kernelOp.getSymNameAttr();

    // Arguments: the slots of the fusion's (deduplicated) inputs, then of
    // its results; the exec.launch verifier checks them against the kernel.
    SmallVector<Attribute> args;
    for (Value input : fusion.getInputs()) {
      exec::SlotAttr slot = slotOf.lookup(input);
      if (!slot)
        return fusion.emitOpError("reads a value with no slot");
      args.push_back(slot);
    }
    llvm::append_range(args, slots);
    stepBuilder.create<exec::LaunchOp>(
        fusion.getLoc(), FlatSymbolRefAttr::get(kernelName),
        stepBuilder.getArrayAttr(args));
  }

  for (auto &[kernelOp, nodes] : nodesOfKernel)
    cast<exec::KernelOp>(kernelOp).setOnnxNodesAttr(
        ArrayAttr::get(context, nodes.getArrayRef()));

  // Outputs not written by a kernel (inputs, weights, repeated results,
  // views of those) are copied into place.
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    exec::SlotAttr source = slotOf.lookup(value);
    if (!source)
      return ret.emitOpError("returns a value with no slot");
    if (source.getKind() == exec::BufferKind::output &&
        source.getIndex() == static_cast<int64_t>(i))
      continue;
    auto target = exec::SlotAttr::get(context, exec::BufferKind::output, i, 0,
                                      source.getSize());
    stepBuilder.create<exec::CopyOp>(ret.getLoc(), source, target);
  }
  main.erase();
  return success();
}

namespace {
struct LowerToExecPass : impl::LowerToExecBase<LowerToExecPass> {
  using LowerToExecBase::LowerToExecBase;
  void runOnOperation() override {
    if (failed(lowerToExec(getOperation(), planName)))
      signalPassFailure();
  }
};
} // namespace

} // namespace graphc
