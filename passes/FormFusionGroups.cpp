//===- FormFusionGroups.cpp - wrap graph ops into kernel.fusion -----------===//
//
// For now every graph op is its own fusion group; the groups already carry
// their kind, content hash and schedule so that merging several ops into one
// group changes only how groups are chosen.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "lib/Support/Fnv1a.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_FORMFUSIONGROUPS
#include "passes/Passes.h.inc"

/// The template family that computes `op`.
static kernel::FusionKind classify(Operation *op) {
  StringRef name = op->getName().stripDialect();
  if (name == "mat_mul" || name == "gemm" || name == "einsum")
    return kernel::FusionKind::matmul;
  if (name == "conv" || name == "conv_transpose")
    return kernel::FusionKind::conv;
  if (name.starts_with("reduce_") || name.starts_with("arg_") ||
      name.ends_with("softmax") || name == "hardmax" || name == "cum_sum" ||
      name == "top_k" || name.ends_with("normalization") || name == "lrn" ||
      name.ends_with("pool"))
    return kernel::FusionKind::reduction;
  bool layout = llvm::StringSwitch<bool>(name)
                    .Cases("reshape", "flatten", "transpose", "squeeze",
                           "unsqueeze", "concat", "split", "slice", true)
                    .Cases("gather", "gather_elements", "gather_nd",
                           "scatter_elements", "scatter_nd", "expand", "tile",
                           true)
                    .Cases("pad", "resize", "depth_to_space", "space_to_depth",
                           "trilu", "identity", "reverse_sequence", true)
                    .Cases("shape", "size", "range", "constant_of_shape",
                           "one_hot", "eye_like", true)
                    .Default(false);
  return layout ? kernel::FusionKind::layout : kernel::FusionKind::pointwise;
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

/// The schedule every fusion starts with until tuning picks one.
static DictionaryAttr defaultSchedule(MLIRContext *context) {
  Builder b(context);
  SmallVector<NamedAttribute> entries;
  entries.push_back(b.getNamedAttr("source", b.getStringAttr("heuristic")));
  // block_size: threads per block of grid-stride and per-row kernels; the
  // tiled matmul keeps its 16x16 tiles whatever it says.
  entries.push_back(b.getNamedAttr("block_size", b.getI64IntegerAttr(256)));
  return b.getDictionaryAttr(entries);
}

/// The ONNX node name recorded in a location, if any.
static std::string nodeName(Location loc) {
  if (auto named = dyn_cast<NameLoc>(loc))
    return named.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string name = nodeName(inner); !name.empty())
        return name;
  return {};
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
      std::string node = nodeName(op->getLoc());
      op->emitError() << "result of " << op->getName()
                      << (node.empty() ? "" : " (node '" + node + "')")
                      << " has a dynamic shape " << type
                      << " that fixed input shapes do not determine";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult formFusionGroups(ModuleOp module) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main)
    return module.emitError("module has no @main function");
  if (failed(checkStaticShapes(main)))
    return failure();
  MLIRContext *context = module.getContext();
  unsigned counter = 0;
  SmallVector<Operation *> ops;
  for (Operation &op : main.getBody().front())
    if (op.getDialect() && op.getDialect()->getNamespace() == "graph" &&
        !isa<graph::ConstantOp>(op))
      ops.push_back(&op);

  for (Operation *op : ops) {
    OpBuilder builder(op);
    kernel::FusionKind kind = classify(op);
    std::string name =
        (op->getName().stripDialect() + "_" + Twine(counter++)).str();
    // A value used twice by the op is one fusion input.
    llvm::SetVector<Value> inputs(op->getOperands().begin(),
                                  op->getOperands().end());
    auto fusion = builder.create<kernel::FusionOp>(
        op->getLoc(), op->getResultTypes(), inputs.getArrayRef(),
        builder.getStringAttr(name),
        kernel::FusionKindAttr::get(context, kind),
        builder.getStringAttr(std::string(16, '0')),
        defaultSchedule(context));
    Block *body = new Block();
    fusion.getBody().push_back(body);
    IRMapping mapping;
    for (Value operand : inputs)
      mapping.map(operand, body->addArgument(operand.getType(), op->getLoc()));
    OpBuilder inner = OpBuilder::atBlockEnd(body);
    Operation *clone = inner.clone(*op, mapping);
    inner.create<kernel::YieldOp>(op->getLoc(), clone->getResults());
    fusion.setHash(computeFusionHash(fusion.getBody()));
    op->replaceAllUsesWith(fusion.getResults());
    op->erase();
  }
  return success();
}

namespace {
struct FormFusionGroupsPass
    : impl::FormFusionGroupsBase<FormFusionGroupsPass> {
  void runOnOperation() override {
    if (failed(formFusionGroups(getOperation())))
      signalPassFailure();
  }
};
} // namespace

} // namespace graphc
