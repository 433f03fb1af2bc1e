//===- SpecializeShapeBuckets.cpp - one static @main per shape bucket -----===//

#include "dialects/Graph/GraphOps.h"
#include "lib/Support/CheckedArith.h"
#include "passes/Passes.h"
#include "passes/ShapeFlags.h"
#include "passes/SizeUses.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_SPECIALIZESHAPEBUCKETS
#include "passes/Passes.h.inc"

/// More combinations than this would make compile time and artifact size
/// explode without the user asking for it.
static constexpr size_t kMaxBucketCombinations = 256;
/// The largest default bucket of a dim with no --max-dim entry.
static constexpr int64_t kDefaultMaxDim = 64;

namespace {

/// One dynamic dim of @main's inputs and the argument axes that carry it.
struct DynamicDim {
  std::string name;
  SmallVector<std::pair<unsigned, unsigned>> axes; // (argument, axis)
  SmallVector<int64_t> sizes;
  bool isDefault = true;
};

/// The input's name, or "#N" when it has none.
std::string inputName(func::FuncOp main, unsigned index) {
  auto name = main.getArgAttrOfType<StringAttr>(index, graph::kNameAttr);
  return name ? name.str() : "#" + std::to_string(index);
}

/// "1,2,4,8" from a list of sizes.
std::string joinSizes(ArrayRef<int64_t> sizes) {
  std::string text;
  for (int64_t size : sizes)
    text += (text.empty() ? "" : ",") + std::to_string(size);
  return text;
}

/// The dynamic dims of @main's inputs in order of first appearance; names
/// unnamed ones INPUT.AXIS in their input's graph.dims.
llvm::MapVector<StringRef, DynamicDim> collectDynamicDims(func::FuncOp main) {
  llvm::MapVector<StringRef, DynamicDim> dims;
  Builder b(main.getContext());
  for (BlockArgument arg : main.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.hasStaticShape())
      continue;
    unsigned index = arg.getArgNumber();
    auto symbols = main.getArgAttrOfType<ArrayAttr>(index, graph::kDimsAttr);
    SmallVector<Attribute> names;
    for (int64_t i = 0; i < type.getRank(); ++i)
      names.push_back(symbols && i < static_cast<int64_t>(symbols.size())
                          ? symbols[i]
                          : b.getStringAttr(""));
    for (auto [axis, size] : llvm::enumerate(type.getShape())) {
      if (!ShapedType::isDynamic(size))
        continue;
      auto name = cast<StringAttr>(names[axis]);
      if (name.getValue().empty()) {
        name = b.getStringAttr(inputName(main, index) + "." +
                               std::to_string(axis));
        names[axis] = name;
      }
      DynamicDim &dim = dims[name.getValue()];
      dim.name = name.str();
      dim.axes.push_back({index, static_cast<unsigned>(axis)});
    }
    main.setArgAttr(index, graph::kDimsAttr, b.getArrayAttr(names));
  }
  return dims;
}

/// Parses a positive size.
FailureOr<int64_t> parseSize(ModuleOp module, StringRef text,
                             StringRef entry, StringRef flag) {
  int64_t size;
  if (text.trim().getAsInteger(10, size) || size < 1) {
    module.emitError() << "malformed " << flag << " '" << entry
                       << "': sizes must be positive integers";
    return failure();
  }
  return size;
}

/// The dim a --buckets or --max-dim entry names: a dim name, or INPUT.AXIS
/// of an input axis that carries one.
FailureOr<DynamicDim *> findDim(ModuleOp module, func::FuncOp main,
                                llvm::MapVector<StringRef, DynamicDim> &dims,
                                StringRef key, StringRef flag) {
  auto found = dims.find(key);
  if (found != dims.end())
    return &found->second;
  for (auto &[name, dim] : dims)
    for (auto [arg, axis] : dim.axes)
      if (key == inputName(main, arg) + "." + std::to_string(axis))
        return &dim;
  std::vector<std::string> names;
  for (auto &entry : dims)
    names.push_back(entry.first.str());
  module.emitError() << flag << " names '" << key
                     << "', which is no dynamic input dim"
                     << suggestName(key, names, "dynamic dims",
                                    "; every input dim of the model is "
                                    "static (or fixed by --dim/--shape)");
  return failure();
}

/// Sets graph.pad_value on the inputs named by `padValues` entries.
LogicalResult applyPadValues(ModuleOp module, func::FuncOp main,
                             ArrayRef<std::string> padValues) {
  std::vector<std::string> names;
  for (unsigned i = 0; i < main.getNumArguments(); ++i)
    names.push_back(inputName(main, i));
  Builder b(module.getContext());
  for (const std::string &entry : padValues) {
    auto parts = splitAssignment(module, entry, "pad value");
    if (failed(parts))
      return failure();
    double value;
    if (parts->second.getAsDouble(value))
      return module.emitError() << "malformed pad value '" << entry
                                << "': the value must be a number";
    auto input = llvm::find(names, parts->first.str());
    if (input == names.end())
      return module.emitError()
             << "--pad-value names '" << parts->first
             << "', which is not an input of the model"
             << suggestName(parts->first, names, "inputs",
                            "; the model has no inputs");
    main.setArgAttr(input - names.begin(), graph::kPadValueAttr,
                    b.getF64FloatAttr(value));
  }
  return success();
}

} // namespace

FailureOr<std::vector<BucketedDim>>
specializeShapeBuckets(ModuleOp module, ArrayRef<std::string> buckets,
                       ArrayRef<std::string> maxDims,
                       ArrayRef<std::string> padValues) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main)
    return module.emitError("module has no @main function");
  if (failed(applyPadValues(module, main, padValues)))
    return failure();
  llvm::MapVector<StringRef, DynamicDim> dims = collectDynamicDims(main);

  // The dim that `entry` ("NAME=VALUE") of `flag` names, and its VALUE.
  auto dimOf =
      [&](const std::string &entry, StringRef what,
          StringRef flag) -> FailureOr<std::pair<DynamicDim *, StringRef>> {
    auto parts = splitAssignment(module, entry, what);
    if (failed(parts))
      return failure();
    FailureOr<DynamicDim *> dim =
        findDim(module, main, dims, parts->first, flag);
    if (failed(dim))
      return failure();
    return std::make_pair(*dim, parts->second);
  };
  for (const std::string &entry : buckets) {
    auto found = dimOf(entry, "buckets", "--buckets");
    if (failed(found))
      return failure();
    auto [dim, value] = *found;
    if (!dim->isDefault)
      return module.emitError()
             << "--buckets gives the sizes of '" << dim->name << "' twice";
    SmallVector<StringRef> pieces;
    value.split(pieces, ',');
    for (StringRef piece : pieces) {
      FailureOr<int64_t> size = parseSize(module, piece, entry, "buckets");
      if (failed(size))
        return failure();
      dim->sizes.push_back(*size);
    }
    dim->isDefault = false;
  }
  llvm::StringMap<int64_t> maxOf;
  for (const std::string &entry : maxDims) {
    auto found = dimOf(entry, "max dim", "--max-dim");
    if (failed(found))
      return failure();
    auto [dim, value] = *found;
    FailureOr<int64_t> size = parseSize(module, value, entry, "max dim");
    if (failed(size))
      return failure();
    if (!dim->isDefault)
      return module.emitError()
             << "--max-dim " << entry << " and --buckets both give the sizes "
             << "of '" << dim->name << "': keep one";
    maxOf[dim->name] = *size;
  }
  size_t combinations = 1;
  for (auto &[name, dim] : dims) {
    if (dim.isDefault) {
      int64_t max = maxOf.lookup(dim.name);
      if (max == 0)
        max = kDefaultMaxDim;
      // Doubling stops before it overflows: --max-dim batch=2^62+1 gives
      // 63 sizes, whose tensors the size limit then refuses.
      for (std::optional<int64_t> size = 1; size && *size < max;
           size = checkedMul(*size, 2))
        dim.sizes.push_back(*size);
      dim.sizes.push_back(max);
    }
    llvm::sort(dim.sizes);
    dim.sizes.erase(std::unique(dim.sizes.begin(), dim.sizes.end()),
                    dim.sizes.end());
    combinations *= dim.sizes.size();
    if (combinations > kMaxBucketCombinations)
      break;
  }
  std::vector<BucketedDim> result;
  for (auto &[name, dim] : dims)
    result.push_back({dim.name, dim.sizes, dim.isDefault});
  if (dims.empty())
    return result;
  if (combinations > kMaxBucketCombinations) {
    std::string list;
    for (auto &[name, dim] : dims)
      list += (list.empty() ? "" : ", ") + dim.name + "=" +
              joinSizes(dim.sizes) + (dim.isDefault ? " (default)" : "");
    return module.emitError()
           << "the bucket sizes " << list << " make more than "
           << kMaxBucketCombinations
           << " combinations; give fewer with --buckets DIM=V1,V2,... or fix "
              "a dim with --dim";
  }

  // One static copy per combination; the first dim varies slowest.
  MLIRContext *context = module.getContext();
  Builder b(context);
  // Once folded per bucket, a size computed with looks like a weight: say
  // so now, while it is still a Shape or Size op.
  SmallVector<NamedAttribute> sizeUses;
  for (auto &[dim, use] : findSizeUsesAsValues(main)) {
    SmallVector<NamedAttribute> fields = {
        b.getNamedAttr("node", b.getStringAttr(use.node)),
        b.getNamedAttr("reason", b.getStringAttr(use.reason))};
    if (use.splitOnly)
      fields.push_back(b.getNamedAttr("split_only", b.getUnitAttr()));
    sizeUses.push_back(b.getNamedAttr(dim, b.getDictionaryAttr(fields)));
  }
  if (!sizeUses.empty())
    main->setAttr(graph::kSizeUseAttr, b.getDictionaryAttr(sizeUses));
  auto signature = TypeAttr::get(main.getFunctionType());
  SmallVector<size_t> choice(dims.size(), 0);
  OpBuilder builder(main);
  for (size_t bucket = 0; bucket < combinations; ++bucket) {
    auto copy = cast<func::FuncOp>(builder.clone(*main));
    copy.setSymName("bucket_" + std::to_string(bucket));
    SmallVector<SmallVector<int64_t>> shapes;
    for (Type type : copy.getArgumentTypes())
      shapes.emplace_back(cast<ShapedType>(type).getShape());
    SmallVector<NamedAttribute> sizes;
    std::string planName;
    for (auto [d, entry] : llvm::enumerate(dims)) {
      const DynamicDim &dim = entry.second;
      int64_t size = dim.sizes[choice[d]];
      for (auto [arg, axis] : dim.axes)
        shapes[arg][axis] = size;
      sizes.push_back(b.getNamedAttr(dim.name, b.getI64IntegerAttr(size)));
      planName += (planName.empty() ? "" : ",") + dim.name + "=" +
                  std::to_string(size);
    }
    SmallVector<Type> argTypes;
    for (auto [arg, shape] : llvm::zip(copy.getArguments(), shapes)) {
      auto type = RankedTensorType::get(
          shape, cast<ShapedType>(arg.getType()).getElementType());
      arg.setType(type);
      argTypes.push_back(type);
    }
    copy.setType(FunctionType::get(context, argTypes, copy.getResultTypes()));
    copy->setAttr(graph::kBucketAttr, b.getDictionaryAttr(sizes));
    copy->setAttr(graph::kPlanNameAttr, b.getStringAttr(planName));
    copy->setAttr(graph::kSignatureAttr, signature);
    // Next combination, like an odometer whose last digit turns fastest.
    for (size_t d = dims.size(); d-- > 0;) {
      if (++choice[d] < dims.begin()[d].second.sizes.size())
        break;
      choice[d] = 0;
    }
  }
  main.erase();
  return result;
}

namespace {
struct SpecializeShapeBucketsPass
    : impl::SpecializeShapeBucketsBase<SpecializeShapeBucketsPass> {
  using SpecializeShapeBucketsBase::SpecializeShapeBucketsBase;
  SpecializeShapeBucketsPass(const SpecializeShapeBucketsOptions &options,
                             std::vector<BucketedDim> *report)
      : SpecializeShapeBucketsBase(options), report(report),
        wholeEntries(true) {}

  void runOnOperation() override {
    // The pass option parser splits "n=1,2,4" at its commas: sizes without
    // a name continue the entry before them. Entries given as a list
    // (graphc compile's flags) are whole: one without a name is an error.
    SmallVector<std::string> bucketList;
    for (const std::string &entry : buckets) {
      if (!wholeEntries && !bucketList.empty() &&
          !StringRef(entry).contains('='))
        bucketList.back() += "," + entry;
      else
        bucketList.push_back(entry);
    }
    SmallVector<std::string> maxList(maxDims.begin(), maxDims.end());
    SmallVector<std::string> padList(padValues.begin(), padValues.end());
    FailureOr<std::vector<BucketedDim>> dims =
        specializeShapeBuckets(getOperation(), bucketList, maxList, padList);
    if (failed(dims))
      return signalPassFailure();
    if (report)
      *report = std::move(*dims);
  }

  /// Where the pipeline wants the bucketed dims (null: nowhere).
  std::vector<BucketedDim> *report = nullptr;
  bool wholeEntries = false;
};
} // namespace

std::unique_ptr<Pass>
createSpecializeShapeBuckets(const SpecializeShapeBucketsOptions &options,
                             std::vector<BucketedDim> *report) {
  return std::make_unique<SpecializeShapeBucketsPass>(options, report);
}

} // namespace graphc
