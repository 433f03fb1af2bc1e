//===- LowerToExec.cpp - planned @main to the exec run plan ---------------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "dialects/Graph/PackedBoundary.h"
#include "lib/Support/Fnv1a.h"
#include "passes/LibraryConv.h"
#include "passes/LibraryGemm.h"
#include "passes/LibrarySdpa.h"
#include "passes/Passes.h"
#include "passes/Views.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <set>

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_LOWERTOEXEC
#include "passes/Passes.h.inc"

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

/// The kernel argument holding `value` (a block argument), -1 for none.
static int64_t argumentOf(Value value) {
  return value ? static_cast<int64_t>(cast<BlockArgument>(value).getArgNumber())
               : int64_t(-1);
}

/// What library fusion `fusion` computes, its operands named by kernel
/// argument: a #exec.gemm (cuBLASLt), or a #exec.conv or #exec.sdpa
/// (cuDNN); fails when the library cannot compute all of it.
static FailureOr<Attribute> describeLibraryCall(kernel::FusionOp fusion) {
  Block &body = fusion.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  auto computesWhole = [&](ArrayRef<Operation *> covered, Operation *root) {
    return covered.size() == ops.size() &&
           body.getTerminator()->getNumOperands() == 1 &&
           body.getTerminator()->getOperand(0) == root->getResult(0);
  };
  MLIRContext *context = fusion.getContext();
  auto array = [&](ArrayRef<int64_t> values) {
    return DenseI64ArrayAttr::get(context, values);
  };
  if (fusion.getKind() == kernel::FusionKind::attention) {
    std::optional<LibrarySdpa> sdpa =
        matchLibrarySdpa(ops, body.getTerminator()->getOperands());
    if (*fusion.getLibrary() != kernel::Library::cudnn || !sdpa)
      return fusion.emitOpError("is a library attention fusion but not one "
                                "cuDNN's SDPA computes whole");
    return Attribute(exec::SdpaAttr::get(
        context, sdpa->batch, sdpa->heads, sdpa->kvHeads, sdpa->queries,
        sdpa->keys, sdpa->headDim, sdpa->valueDim, APFloat(sdpa->scale),
        sdpa->causal, argumentOf(sdpa->q.source), argumentOf(sdpa->k.source),
        argumentOf(sdpa->v.source), argumentOf(sdpa->bias.source),
        body.getNumArguments(), sdpa->q.offset, sdpa->k.offset, sdpa->v.offset,
        /*o_offset=*/0, sdpa->bias.offset, array(sdpa->q.strides),
        array(sdpa->k.strides), array(sdpa->v.strides), array(sdpa->o.strides),
        array(sdpa->bias.source ? ArrayRef<int64_t>(sdpa->biasDims)
                                : ArrayRef<int64_t>({1, 1, 1, 1})),
        array(sdpa->bias.source ? ArrayRef<int64_t>(sdpa->bias.strides)
                                : ArrayRef<int64_t>({0, 0, 0, 0}))));
  }
  if (*fusion.getLibrary() == kernel::Library::cudnn) {
    std::optional<LibraryConv> conv = matchLibraryConv(ops);
    if (!conv || !computesWhole(conv->ops, conv->root))
      return fusion.emitOpError("is a cudnn fusion but not a convolution "
                                "the library computes whole");
    return Attribute(exec::ConvAttr::get(
        context, conv->n, conv->c, conv->k, conv->groups,
        array(conv->inSize), array(conv->filterSize), array(conv->outSize),
        array(conv->padsBegin), array(conv->padsEnd), array(conv->strides),
        array(conv->dilations), conv->epilogue, argumentOf(conv->x),
        argumentOf(conv->w), argumentOf(conv->bias), argumentOf(conv->z),
        body.getNumArguments(), conv->channelsLast));
  }
  std::optional<LibraryGemm> gemm = matchLibraryGemm(ops);
  if (!gemm || !computesWhole(gemm->ops, gemm->root))
    return fusion.emitOpError("is a library fusion but not a GEMM the "
                              "library computes whole");
  return Attribute(exec::GemmAttr::get(
      context, gemm->transA, gemm->transB, gemm->m, gemm->n, gemm->k,
      gemm->batch, gemm->lda, gemm->ldb, gemm->ldc, gemm->strideA,
      gemm->strideB, gemm->strideC, APFloat(gemm->alpha), APFloat(gemm->beta),
      gemm->epilogue, argumentOf(gemm->a), argumentOf(gemm->b),
      argumentOf(gemm->c), argumentOf(gemm->bias), body.getNumArguments()));
}

namespace {

/// What the plans of all buckets share: one exec.kernel per content hash
/// and one exec.weight per distinct constant, in order of first use.
class ExecTables {
public:
  ExecTables(MLIRContext *context, bool dedupWeightsByContent)
      : context(context), dedupWeightsByContent(dedupWeightsByContent) {}

  /// The weights slot of `constant`, emitting its exec.weight before
  /// `builder`'s insertion point on first use.
  FailureOr<exec::SlotAttr> weightSlot(graph::ConstantOp constant,
                                       OpBuilder &builder);

  /// The kernel computing `fusion`, outlined before `plan` unless an
  /// identical one exists.
  FailureOr<exec::KernelOp> kernelFor(kernel::FusionOp fusion,
                                      exec::PlanOp plan);

  /// Sets every kernel's list of ONNX nodes, once all plans are lowered.
  void setNodeLists();

  /// The symbol of the kernel with content hash `hash` that fusion `name`
  /// ("conv_add_relu_17") computes: what it fuses and the start of its hash
  /// ("conv_add_relu_3fa2c1"). Fusion numbers count the fusions before it,
  /// so inserting a layer would rename every kernel after it and change
  /// every module unit's source; a name from the kernel's own contents
  /// keeps the other units' sources, and their compile cache entries.
  std::string uniqueKernelName(StringRef name, StringRef hash);

private:
  MLIRContext *context;
  bool dedupWeightsByContent;
  llvm::DenseMap<Attribute, exec::SlotAttr> weightOf;
  /// Content hash -> the constants with those bytes: a constant folded
  /// again in another bucket is a new attribute with the same contents.
  std::map<uint64_t, SmallVector<std::pair<ElementsAttr, exec::SlotAttr>>>
      weightsByContent;
  int64_t weightsEnd = 0;
  unsigned weightCounter = 0;
  llvm::StringMap<exec::KernelOp> kernelByHash;
  llvm::StringSet<> kernelNames;
  llvm::MapVector<Operation *, llvm::SetVector<Attribute>> nodesOfKernel;
};

FailureOr<exec::SlotAttr> ExecTables::weightSlot(graph::ConstantOp constant,
                                                 OpBuilder &builder) {
  Attribute value = constant.getValue();
  if (exec::SlotAttr found = weightOf.lookup(value))
    return found;
  std::optional<uint64_t> contentHash;
  if (dedupWeightsByContent) {
    auto elements = cast<ElementsAttr>(value);
    FailureOr<std::vector<char>> bytes = graph::constantBytes(elements);
    if (failed(bytes))
      return constant.emitOpError("has contents that cannot be read");
    contentHash = fnv1a64(kFnvOffsetBasis, bytes->data(), bytes->size());
    for (auto &[other, slot] : weightsByContent[*contentHash]) {
      if (other.getType() != elements.getType())
        continue;
      FailureOr<std::vector<char>> otherBytes = graph::constantBytes(other);
      if (succeeded(otherBytes) && *otherBytes == *bytes) {
        weightOf[value] = slot;
        return slot;
      }
    }
  }
  int64_t bytes = exec::slotBytes(constant.getType());
  builder.create<exec::WeightOp>(
      constant.getLoc(),
      builder.getStringAttr("w" + std::to_string(weightCounter++)),
      builder.getI64IntegerAttr(weightsEnd), constant.getValue());
  auto slot = exec::SlotAttr::get(context, exec::BufferKind::weights, 0,
                                  weightsEnd, bytes);
  weightsEnd = (weightsEnd + bytes + 255) / 256 * 256;
  weightOf[value] = slot;
  if (contentHash)
    weightsByContent[*contentHash].push_back(
        {cast<ElementsAttr>(value), slot});
  return slot;
}

FailureOr<exec::KernelOp>
ExecTables::kernelFor(kernel::FusionOp fusion, exec::PlanOp plan) {
  Attribute described;
  if (fusion.getLibrary()) {
    FailureOr<Attribute> library = describeLibraryCall(fusion);
    if (failed(library))
      return failure();
    described = *library;
  }
  // The kernel: the fusion body with its small constant inputs inlined, so
  // that codegen sees constant axes, starts, pads or scales as constants.
  // The block arguments (and so the calling convention) stay. Kernels are
  // shared by the hash of that body, which includes the inlined values.
  OpBuilder kernelBuilder(plan);
  auto kernelOp = kernelBuilder.create<exec::KernelOp>(
      fusion.getLoc(), fusion.getNameAttr(),
      kernel::FusionKindAttr::get(context, fusion.getKind()),
      fusion.getHashAttr(), fusion.getSchedule(),
      kernelBuilder.getArrayAttr({}), /*flops=*/nullptr,
      /*bytes_read=*/nullptr, /*bytes_written=*/nullptr, /*flop_type=*/nullptr,
      fusion.getLibraryAttr(), dyn_cast_or_null<exec::GemmAttr>(described),
      dyn_cast_or_null<exec::ConvAttr>(described),
      dyn_cast_or_null<exec::SdpaAttr>(described));
  IRMapping mapping;
  fusion.getBody().cloneInto(&kernelOp.getBody(), mapping);
  inlineConstantInputs(fusion, kernelOp);
  // A library call is another kernel than code generated for the same
  // body: its own hash keeps the two apart (sharing, tuning entries).
  std::string hash = computeFusionHash(kernelOp.getBody());
  if (described)
    hash = libraryKernelHash(hash);
  SmallVector<StringAttr> nodes;
  fusion.getBody().walk([&](Operation *inner) {
    if (!isa<kernel::YieldOp>(inner))
      graph::collectNodeNames(inner->getLoc(), nodes);
  });
  if (exec::KernelOp shared = kernelByHash.lookup(hash)) {
    kernelOp.erase();
    kernelOp = shared;
  } else {
    kernelOp.setHash(hash);
    kernelByHash[hash] = kernelOp;
    kernelOp.setSymName(uniqueKernelName(kernelOp.getSymName(), hash));
  }
  // The node list of a shared kernel grows with every fusion it covers;
  // it is set once at the end, since rebuilding the attribute per fusion
  // costs time and (uniqued, never freed) memory quadratic in its users.
  nodesOfKernel[kernelOp].insert(nodes.begin(), nodes.end());
  return kernelOp;
}

std::string ExecTables::uniqueKernelName(StringRef name, StringRef hash) {
  StringRef ops = name.rtrim("0123456789");
  if (ops.size() < name.size() && ops.ends_with("_"))
    ops = ops.drop_back();
  // Longer hash prefixes tell apart kernels of the same ops whose hashes
  // share a start; the whole hash names a kernel once, but a name may
  // still repeat where fusion names were given by hand.
  for (size_t digits = 6; digits <= hash.size(); digits += 2) {
    std::string candidate = (ops + "_" + hash.take_front(digits)).str();
    if (kernelNames.insert(candidate).second)
      return candidate;
  }
  for (unsigned n = 0;; ++n) {
    std::string candidate = (ops + "_" + hash + "_" + Twine(n)).str();
    if (kernelNames.insert(candidate).second)
      return candidate;
  }
}

void ExecTables::setNodeLists() {
  for (auto &[kernelOp, nodes] : nodesOfKernel)
    cast<exec::KernelOp>(kernelOp).setOnnxNodesAttr(
        ArrayAttr::get(context, nodes.getArrayRef()));
}

/// The type of a model input or output at the boundary: a 4-bit one's
/// graph.packed_type (its argument or result holds the packed bytes),
/// otherwise `type`.
Type boundaryType(Type type, DictionaryAttr attrs) {
  auto packed = attrs ? attrs.getAs<TypeAttr>(graph::kPackedTypeAttr) : nullptr;
  return packed ? packed.getValue() : type;
}

/// The model's inputs and outputs, from the first function: names, dim
/// names and pad values from its argument and result attributes, types
/// from the signature before bucketing.
void emitSignature(func::FuncOp func, OpBuilder &builder) {
  FunctionType signature = func.getFunctionType();
  if (auto original = func->getAttrOfType<TypeAttr>(graph::kSignatureAttr))
    signature = cast<FunctionType>(original.getValue());
  auto emitIO = [&](bool isOutput, unsigned index, Type type,
                    DictionaryAttr attrs) {
    auto name = attrs ? attrs.getAs<StringAttr>(graph::kNameAttr) : nullptr;
    auto dims = attrs ? attrs.getAs<ArrayAttr>(graph::kDimsAttr) : nullptr;
    auto padValue =
        attrs ? attrs.getAs<FloatAttr>(graph::kPadValueAttr) : nullptr;
    SmallVector<Attribute> dimNames;
    type = boundaryType(type, attrs);
    auto ranked = cast<RankedTensorType>(type);
    for (int64_t i = 0; i < ranked.getRank(); ++i)
      dimNames.push_back(dims && i < static_cast<int64_t>(dims.size())
                             ? dims[i]
                             : builder.getStringAttr(""));
    std::string fallback =
        (isOutput ? "output_" : "input_") + std::to_string(index);
    builder.create<exec::IOOp>(
        func.getLoc(), name ? name : builder.getStringAttr(fallback),
        builder.getBoolAttr(isOutput), builder.getI64IntegerAttr(index),
        TypeAttr::get(type), builder.getArrayAttr(dimNames),
        builder.getF64FloatAttr(padValue ? padValue.getValueAsDouble() : 0.0),
        /*data_dependent=*/nullptr);
  };
  for (auto [i, type] : llvm::enumerate(signature.getInputs()))
    emitIO(false, i, type, func.getArgAttrDict(i));
  for (auto [i, type] : llvm::enumerate(signature.getResults()))
    emitIO(true, i, type, func.getResultAttrDict(i));
  // The dims the run sizes (graph.output_extents before the return).
  Operation *ret = func.getBody().front().getTerminator();
  auto marker = dyn_cast_or_null<graph::OutputExtentsOp>(ret->getPrevNode());
  if (!marker)
    return;
  ArrayRef<int64_t> positions = marker.getPositions();
  for (auto io : func->getParentOfType<ModuleOp>().getOps<exec::IOOp>()) {
    if (!io.getIsOutput())
      continue;
    SmallVector<bool> flags(
        cast<RankedTensorType>(io.getType()).getRank(), false);
    bool any = false;
    for (size_t j = 0; j < positions.size(); j += 2)
      if (positions[j] == static_cast<int64_t>(io.getIndex())) {
        flags[positions[j + 1]] = true;
        any = true;
      }
    if (!any)
      continue;
    io.setDataDependentAttr(builder.getDenseBoolArrayAttr(flags));
    // Unnamed ones are called OUTPUT.AXIS, as unnamed bucketed dims are.
    SmallVector<Attribute> names(io.getDims().begin(), io.getDims().end());
    for (auto [d, flag] : llvm::enumerate(flags))
      if (flag && cast<StringAttr>(names[d]).getValue().empty())
        names[d] = builder.getStringAttr(io.getName() + "." + Twine(d));
    io.setDimsAttr(builder.getArrayAttr(names));
  }
}

/// One exec.bucket_dim per bucketed dim: the sizes of all buckets, and
/// AnalyzePadSafety's verdicts joined over them (a dim is pad-safe only if
/// it is so in every bucket).
LogicalResult emitBucketDims(MutableArrayRef<func::FuncOp> funcs,
                             OpBuilder &builder) {
  std::map<std::string, std::set<int64_t>> sizes;
  for (func::FuncOp func : funcs)
    if (auto bucket = func->getAttrOfType<DictionaryAttr>(graph::kBucketAttr))
      for (NamedAttribute entry : bucket)
        sizes[entry.getName().str()].insert(
            cast<IntegerAttr>(entry.getValue()).getInt());
  unsigned numOutputs = funcs.front().getNumResults();
  for (auto &[name, values] : sizes) {
    bool safe = true, splittable = true;
    std::string node, reason;
    std::optional<SmallVector<int64_t>> outputAxes;
    for (func::FuncOp func : funcs) {
      auto all = func->getAttrOfType<DictionaryAttr>(graph::kPadSafetyAttr);
      auto verdict = all ? all.getAs<DictionaryAttr>(name) : nullptr;
      if (!verdict) {
        safe = splittable = false;
        reason = "pad safety was not analysed";
        break;
      }
      auto flag = [&](StringRef key) {
        auto value = verdict.getAs<BoolAttr>(key);
        return value && value.getValue();
      };
      auto text = [&](StringRef key) {
        auto value = verdict.getAs<StringAttr>(key);
        return value ? value.str() : std::string();
      };
      SmallVector<int64_t> axes;
      if (auto list = verdict.getAs<ArrayAttr>("outputs"))
        for (Attribute axis : list)
          axes.push_back(cast<IntegerAttr>(axis).getInt());
      if (axes.size() != numOutputs)
        return func.emitOpError("has a pad safety verdict for '")
               << name << "' with " << axes.size() << " output axes, not "
               << numOutputs;
      bool wasSplittable = splittable;
      if (safe && !flag("safe")) {
        safe = splittable = false;
        node = text("node");
        reason = text("reason");
      } else if (splittable && !flag("splittable")) {
        splittable = false;
        if (safe && wasSplittable) {
          node = text("node");
          reason = text("reason");
        }
      }
      if (!outputAxes)
        outputAxes = axes;
      else if (*outputAxes != axes && safe) {
        safe = splittable = false;
        node.clear();
        reason = "the outputs carry the dim on other axes in other buckets";
      }
    }
    if (!safe)
      splittable = false;
    builder.create<exec::BucketDimOp>(
        funcs.front().getLoc(), builder.getStringAttr(name),
        builder.getDenseI64ArrayAttr(
            SmallVector<int64_t>(values.begin(), values.end())),
        builder.getBoolAttr(safe), builder.getBoolAttr(splittable),
        builder.getStringAttr(node), builder.getStringAttr(reason),
        builder.getDenseI64ArrayAttr(
            outputAxes.value_or(SmallVector<int64_t>(numOutputs, -1))));
  }
  return success();
}

/// The ONNX tensor `value` holds (onnxTensorName): a fusion's result holds
/// what its body yields.
static StringRef heldTensor(Value value) {
  auto fusion = value.getDefiningOp<kernel::FusionOp>();
  if (!fusion)
    return graph::onnxTensorName(value);
  Value yielded = fusion.getBody().front().getTerminator()->getOperand(
      cast<OpResult>(value).getResultNumber());
  if (auto argument = dyn_cast<BlockArgument>(yielded))
    return heldTensor(fusion.getInputs()[argument.getArgNumber()]);
  return graph::onnxTensorName(yielded);
}

/// What a step writes that a tool may compare: `values`, held in the
/// step's arguments from `firstArg` on.
static ArrayAttr stepResults(MLIRContext *context, ValueRange values,
                             int64_t firstArg) {
  SmallVector<Attribute> results;
  for (auto [i, value] : llvm::enumerate(values))
    results.push_back(exec::StepResultAttr::get(
        context, firstArg + static_cast<int64_t>(i),
        cast<RankedTensorType>(value.getType()), heldTensor(value)));
  return ArrayAttr::get(context, results);
}

using SlotMap = llvm::DenseMap<Value, exec::SlotAttr>;
static LogicalResult lowerSteps(Block &block, SlotMap &slotOf,
                                exec::PlanOp plan, OpBuilder &stepBuilder,
                                ExecTables &tables);

/// Lowers one planned function (one bucket) into an exec.plan.
LogicalResult lowerPlan(func::FuncOp main, StringRef planName,
                        ExecTables &tables) {
  MLIRContext *context = main.getContext();
  auto *execDialect = context->getLoadedDialect<exec::ExecDialect>();
  IntegerAttr arenaBytes = execDialect->getArenaBytesAttrHelper().getAttr(main);
  IntegerAttr intermediateBytes =
      execDialect->getIntermediateBytesAttrHelper().getAttr(main);
  if (!arenaBytes || !intermediateBytes)
    return main.emitError("memory is not planned: run graphc-plan-memory");
  Block &block = main.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  OpBuilder builder(main);
  Location loc = main.getLoc();

  // The dims the runtime checks a run's tensors against: a 4-bit one's
  // logical dims, not those of its packed bytes.
  SmallVector<Attribute> inputTypes, outputTypes;
  for (auto [i, type] : llvm::enumerate(main.getArgumentTypes()))
    inputTypes.push_back(
        TypeAttr::get(boundaryType(type, main.getArgAttrDict(i))));
  for (auto [i, type] : llvm::enumerate(main.getResultTypes()))
    outputTypes.push_back(
        TypeAttr::get(boundaryType(type, main.getResultAttrDict(i))));

  // Where every value lives.
  llvm::DenseMap<Value, exec::SlotAttr> slotOf;
  for (BlockArgument arg : main.getArguments())
    slotOf[arg] = exec::SlotAttr::get(context, exec::BufferKind::input,
                                      arg.getArgNumber(), 0,
                                      exec::slotBytes(arg.getType()));
  // Constants, those of loop bodies too (fusions hold their own).
  WalkResult placed = main.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<kernel::FusionOp>(op))
      return WalkResult::skip();
    auto constant = dyn_cast<graph::ConstantOp>(op);
    if (!constant)
      return WalkResult::advance();
    FailureOr<exec::SlotAttr> slot = tables.weightSlot(constant, builder);
    if (failed(slot))
      return WalkResult::interrupt();
    slotOf[constant.getResult()] = *slot;
    return WalkResult::advance();
  });
  if (placed.wasInterrupted())
    return failure();

  if (auto name = main->getAttrOfType<StringAttr>(graph::kPlanNameAttr))
    planName = name.getValue();
  auto plan = builder.create<exec::PlanOp>(
      loc, builder.getStringAttr(planName), arenaBytes, intermediateBytes,
      builder.getArrayAttr(inputTypes), builder.getArrayAttr(outputTypes),
      execDialect->getLiveBytesBoundAttrHelper().getAttr(main),
      /*output_extents=*/nullptr);
  Block *steps = new Block();
  plan.getSteps().push_back(steps);
  OpBuilder stepBuilder = OpBuilder::atBlockEnd(steps);

  if (failed(lowerSteps(block, slotOf, plan, stepBuilder, tables)))
    return failure();

  // Where a run leaves the extents of the outputs' dims it sizes.
  if (auto marker = dyn_cast_or_null<graph::OutputExtentsOp>(
          ret->getPrevNode())) {
    auto none = exec::SlotAttr::get(context, exec::BufferKind::none, 0, 0, 0);
    SmallVector<SmallVector<Attribute>> perOutput(ret.getNumOperands());
    ArrayRef<int64_t> positions = marker.getPositions();
    for (auto [j, extent] : llvm::enumerate(marker.getExtents())) {
      int64_t output = positions[2 * j], dim = positions[2 * j + 1];
      auto &dims = perOutput[output];
      if (dims.empty())
        dims.assign(
            cast<RankedTensorType>(ret.getOperand(output).getType()).getRank(),
            none);
      exec::SlotAttr slot = slotOf.lookup(extent);
      if (!slot || slot.getKind() != exec::BufferKind::arena)
        return marker.emitOpError("extent ")
               << j << " does not lie in the arena";
      dims[dim] = slot;
    }
    SmallVector<Attribute> lists;
    for (auto &dims : perOutput)
      lists.push_back(builder.getArrayAttr(dims));
    plan.setOutputExtentsAttr(builder.getArrayAttr(lists));
  }

  // Outputs not written by a kernel (inputs, weights, repeated results,
  // views of those, loop results) are copied into place.
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    exec::SlotAttr source = slotOf.lookup(value);
    if (!source)
      return ret.emitOpError("returns a value with no slot");
    if (source.getKind() == exec::BufferKind::output &&
        source.getIndex() == static_cast<int64_t>(i))
      continue;
    auto target = exec::SlotAttr::get(context, exec::BufferKind::output, i, 0,
                                      source.getSize());
    stepBuilder.create<exec::CopyOp>(
        ret.getLoc(), source, target,
        stepResults(context, value, /*firstArg=*/1));
  }
  return success();
}

/// The steps of graph.loop `loop`: copies of its initial values into its
/// carried slots, an exec.loop, its body's steps, and the body's end:
/// staging copies, then copies of the next carried values into the carried
/// slots (PlanMemory placed them all: its exec.slots).
static LogicalResult lowerLoop(graph::LoopOp loop, SlotMap &slotOf,
                               exec::PlanOp plan, OpBuilder &stepBuilder,
                               ExecTables &tables) {
  MLIRContext *context = loop.getContext();
  auto *execDialect = context->getLoadedDialect<exec::ExecDialect>();
  ArrayAttr slots = execDialect->getSlotsAttrHelper().getAttr(loop);
  unsigned carried = loop.getInitial().size();
  if (!slots || slots.size() != 2 + 2 * carried)
    return loop.emitOpError("has no planned slots");
  auto slotAt = [&](unsigned i) { return cast<exec::SlotAttr>(slots[i]); };
  auto none = exec::SlotAttr::get(context, exec::BufferKind::none, 0, 0, 0);
  Location loc = loop.getLoc();
  for (auto [j, initial] : llvm::enumerate(loop.getInitial())) {
    exec::SlotAttr source = slotOf.lookup(initial);
    if (!source)
      return loop.emitOpError("starts from a value with no slot");
    stepBuilder.create<exec::CopyOp>(loc, source, slotAt(1 + j),
                                     /*results=*/nullptr);
  }
  auto operandSlot = [&](Value value) -> FailureOr<exec::SlotAttr> {
    if (!value)
      return none;
    exec::SlotAttr slot = slotOf.lookup(value);
    if (!slot)
      return loop.emitOpError("reads a value with no slot");
    return slot;
  };
  FailureOr<exec::SlotAttr> tripCount = operandSlot(loop.getTripCount());
  FailureOr<exec::SlotAttr> condition = operandSlot(loop.getCondition());
  if (failed(tripCount) || failed(condition))
    return failure();
  auto step = stepBuilder.create<exec::LoopOp>(
      loc, *tripCount, *condition, slotAt(0), none,
      stepBuilder.getI64IntegerAttr(0), loop.getMaxIterationsAttr(),
      stepBuilder.getStringAttr(graph::firstNodeName(loc)));
  for (unsigned j = 0; j < carried; ++j) {
    slotOf[loop.getCarried(j)] = slotAt(1 + j);
    slotOf[loop.getResult(j)] = slotAt(1 + j);
  }
  slotOf[loop.getIteration()] = exec::SlotAttr::get(
      context, exec::BufferKind::arena, 0, slotAt(0).getOffset(), 8);
  if (failed(
          lowerSteps(loop.getBodyBlock(), slotOf, plan, stepBuilder, tables)))
    return failure();

  // The body's end. What lies in a carried slot is staged first: the
  // copies into the carried slots would overwrite it.
  Operation *yield = loop.getYield();
  SmallVector<exec::SlotAttr> yielded;
  for (auto [k, value] : llvm::enumerate(yield->getOperands())) {
    exec::SlotAttr source = slotOf.lookup(value);
    if (!source)
      return yield->emitOpError("yields a value with no slot");
    exec::SlotAttr staging = slotAt(1 + carried + k);
    if (staging.getKind() != exec::BufferKind::none) {
      stepBuilder.create<exec::CopyOp>(loc, source, staging,
                                       /*results=*/nullptr);
      source = staging;
    }
    yielded.push_back(source);
  }
  for (unsigned j = 0; j < carried; ++j)
    if (yielded[1 + j] != slotAt(1 + j))
      stepBuilder.create<exec::CopyOp>(loc, yielded[1 + j], slotAt(1 + j),
                                       /*results=*/nullptr);
  // A condition the body yields as a constant true needs no reading.
  DenseElementsAttr constant;
  bool alwaysTrue = matchPattern(yield->getOperand(0), m_Constant(&constant)) &&
                    constant.getNumElements() == 1 &&
                    *constant.getValues<bool>().begin();
  step.setBodyConditionAttr(alwaysTrue ? none : yielded[0]);
  int64_t bodySteps = 0;
  for (Operation *op = step->getNextNode(); op; op = op->getNextNode())
    ++bodySteps;
  step.setBodyStepsAttr(stepBuilder.getI64IntegerAttr(bodySteps));
  return success();
}

/// The steps of `block`'s ops: a launch or library call per fusion, a
/// loop's steps per graph.loop; views name their source's bytes.
static LogicalResult lowerSteps(Block &block, SlotMap &slotOf,
                                exec::PlanOp plan, OpBuilder &stepBuilder,
                                ExecTables &tables) {
  MLIRContext *context = block.getParentOp()->getContext();
  auto *execDialect = context->getLoadedDialect<exec::ExecDialect>();
  for (Operation &op : block) {
    if (auto loop = dyn_cast<graph::LoopOp>(op)) {
      if (failed(lowerLoop(loop, slotOf, plan, stepBuilder, tables)))
        return failure();
      continue;
    }
    if (isView(&op)) {
      // No step: the view names its source's bytes with its own type.
      exec::SlotAttr source = slotOf.lookup(op.getOperand(0));
      if (!source)
        return op.emitOpError("is a view of a value with no slot");
      Value result = op.getResult(0);
      auto slot = exec::SlotAttr::get(context, source.getKind(),
                                      source.getIndex(), source.getOffset(),
                                      exec::slotBytes(result.getType()));
      ArrayAttr planned = execDialect->getSlotsAttrHelper().getAttr(&op);
      if (planned && (planned.size() != 1 || planned[0] != slot))
        return op.emitOpError("was planned a slot other than its source's");
      slotOf[result] = slot;
      continue;
    }
    auto fusion = dyn_cast<kernel::FusionOp>(op);
    if (!fusion)
      continue;
    ArrayAttr slots = execDialect->getSlotsAttrHelper().getAttr(fusion);
    if (!slots)
      return fusion.emitOpError("has no planned slots");
    for (auto [result, slot] : llvm::zip(fusion.getResults(), slots))
      slotOf[result] = cast<exec::SlotAttr>(slot);
    FailureOr<exec::KernelOp> kernelOp = tables.kernelFor(fusion, plan);
    if (failed(kernelOp))
      return failure();

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
    auto kernelRef = FlatSymbolRefAttr::get(kernelOp->getSymNameAttr());
    ArrayAttr results =
        stepResults(context, fusion.getResults(), fusion.getInputs().size());
    if (fusion.getLibrary()) {
      exec::SlotAttr workspace =
          execDialect->getWorkspaceAttrHelper().getAttr(fusion);
      if (!workspace)
        workspace =
            exec::SlotAttr::get(context, exec::BufferKind::none, 0, 0, 0);
      stepBuilder.create<exec::LibraryCallOp>(fusion.getLoc(), kernelRef,
                                              stepBuilder.getArrayAttr(args),
                                              workspace, results);
      continue;
    }
    // An attention's flash-decoding partials and counters (PlanMemory).
    stepBuilder.create<exec::LaunchOp>(
        fusion.getLoc(), kernelRef, stepBuilder.getArrayAttr(args),
        execDialect->getScratchAttrHelper().getAttr(fusion), results);
  }
  return success();
}

} // namespace

LogicalResult lowerToExec(ModuleOp module, StringRef planName) {
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  if (funcs.empty())
    return module.emitError("module has no function to lower");
  // Every bucket has the model's signature, bucketed dims aside.
  FunctionType first = funcs.front().getFunctionType();
  for (func::FuncOp func : funcs)
    if (func.getNumArguments() != first.getNumInputs() ||
        func.getNumResults() != first.getNumResults())
      return func.emitOpError("has another signature than @")
             << funcs.front().getSymName() << ": every bucket must have one";
  OpBuilder builder(funcs.front());
  emitSignature(funcs.front(), builder);
  if (failed(emitBucketDims(funcs, builder)))
    return failure();
  ExecTables tables(module.getContext(),
                    /*dedupWeightsByContent=*/funcs.size() > 1);
  for (func::FuncOp func : funcs)
    if (failed(lowerPlan(func, planName, tables)))
      return failure();
  tables.setNodeLists();
  for (func::FuncOp func : funcs)
    func.erase();
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
