//===- SizeUses.cpp - where a dynamic dim's size is used as a number ------===//
//
// A forward walk over @main before bucketing that follows three kinds of
// values:
//  * sizes: integers computed from the Shape and Size of the inputs, with,
//    per element, the dynamic dims it depends on (a shape vector mixes
//    static and dynamic dims);
//  * positional tensors: tensors computed without the inputs' data whose
//    extent, not values, depends on a dim: Range(0, seq, 1), a table sliced
//    by [0:seq], ConstantOfShape, and what keeps their leading positions
//    (pointwise ops, unsqueezes, gathers from a table by them). Padded to a
//    bucket, such a tensor holds the unpadded run's values in its leading
//    positions, which AnalyzePadSafety assumes of every tensor that spans a
//    padded axis without carrying it;
//  * values computed from the inputs' data, which AnalyzePadSafety follows.
// A size that reaches a value (a range's start or step, a slice's start, a
// gather's indices, arithmetic into a float or an output), and a positional
// tensor read by an op that does not keep its leading positions (a reversing
// slice, a reduction), is a use of the size: padding changes it.
//
//===----------------------------------------------------------------------===//

#include "passes/SizeUses.h"

#include "dialects/Graph/GraphOps.h"

#include "dialects/Graph/GraphTypeInference.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>

using namespace mlir;

namespace graphc {
namespace {

/// The dynamic dims a value depends on, one bit per dim in order of first
/// appearance (the 64th and later share the last bit).
using DimMask = uint64_t;

/// Per element of a small integer tensor computed from shapes (row-major),
/// the dynamic dims it depends on (0: a static dim, a constant). Exporters
/// pick static dims out of shape vectors (the head size of x.shape[-1] for
/// an attention scale): those are constants, not sizes.
using Entries = SmallVector<DimMask>;

DimMask maskOf(const Entries &entries) {
  DimMask mask = 0;
  for (DimMask entry : entries)
    mask |= entry;
  return mask;
}

/// Whether `type` holds integers (or booleans): shape arithmetic.
bool isIntegerTensor(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && isa<IntegerType, IndexType>(shaped.getElementType());
}

std::string nodeName(Operation *op) {
  Location loc = op->getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto named = dyn_cast<NameLoc>(inner))
        return named.getName().str();
  if (auto named = dyn_cast<NameLoc>(loc))
    return named.getName().str();
  return op->getName().getStringRef().str();
}

/// Whether operand `index` of `op`, holding a size (`entries`: its dims per
/// element), only shapes the result: its leading positions along every
/// axis hold the same values for every size. A range's limit, a slice's
/// end, a reshape's target do; a range's start and step, a slice's start
/// (table[-seq:]), the leading pads of a pad and the sizes of a split's
/// leading parts (which place what follows) do not.
bool isShapeOperand(Operation *op, unsigned index, const Entries &entries) {
  if (isa<graph::ConstantOfShapeOp>(op))
    return true;
  if (isa<graph::RangeOp, graph::OneHotOp>(op))
    return index == 1;
  if (isa<graph::SliceOp>(op))
    return index == 2;
  if (isa<graph::PadOp>(op))
    return index == 1 && entries.size() % 2 == 0 &&
           llvm::all_of(ArrayRef(entries).take_front(entries.size() / 2),
                        [](DimMask dims) { return dims == 0; });
  if (isa<graph::SplitOp>(op))
    return index == 1 && !entries.empty() &&
           llvm::all_of(ArrayRef(entries).drop_back(),
                        [](DimMask dims) { return dims == 0; });
  if (isa<graph::ReshapeOp, graph::ExpandOp, graph::TileOp, graph::ResizeOp,
          graph::SqueezeOp, graph::UnsqueezeOp, graph::TopKOp>(op))
    return index > 0;
  return false;
}

/// Whether a reshape of a positional tensor keeps its leading positions:
/// its input and result each have one dim that may vary, with unit dims
/// before it and static dims after it, so that row-major order puts the
/// leading positions first on both sides ([1, seq] -> [seq]; not
/// [4 * seq] -> [4, seq], which interleaves).
bool keepsRowMajorPrefix(Value from, Value to) {
  auto single = [](Value value) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      return false;
    ArrayRef<int64_t> shape = type.getShape();
    auto dynamic = llvm::find_if(shape, ShapedType::isDynamic);
    return dynamic != shape.end() &&
           llvm::all_of(ArrayRef(shape.begin(), dynamic),
                        [](int64_t dim) { return dim == 1; }) &&
           llvm::none_of(ArrayRef(dynamic + 1, shape.end()),
                         ShapedType::isDynamic);
  };
  return single(from) && single(to);
}

/// Whether `op`, whose positional operands are `positional` (no operand
/// computed from the inputs' data), keeps the leading positions of its
/// result independent of the size: then the result is positional too.
bool keepsPositions(Operation *op,
                    const llvm::DenseMap<Value, DimMask> &positional) {
  auto isPositional = [&](Value value) { return positional.contains(value); };
  if (op->hasTrait<graph::OpTrait::Pointwise>())
    return true;
  if (isa<graph::IdentityOp, graph::UnsqueezeOp, graph::TransposeOp,
          graph::ExpandOp, graph::TileOp, graph::TriluOp,
          graph::ConstantOfShapeOp, graph::OneHotOp>(op))
    return true;
  // Without axes, a squeeze drops whichever dims the size makes 1.
  if (auto squeeze = dyn_cast<graph::SqueezeOp>(op))
    return squeeze->getNumOperands() > 1;
  if (isa<graph::ReshapeOp, graph::FlattenOp>(op))
    return keepsRowMajorPrefix(op->getOperand(0), op->getResult(0));
  // A forward cumulative sum of leading positions reads only those.
  if (auto cumsum = dyn_cast<graph::CumSumOp>(op))
    return cumsum.getReverse() == 0 && !isPositional(cumsum.getAxis());
  if (auto gather = dyn_cast<graph::GatherOp>(op)) {
    if (!isPositional(gather.getData()))
      return true; // a table read at positional indices
    // A negative index counts from the end, which the size moves.
    std::optional<SmallVector<int64_t>> indices =
        graph::getConstantInts(gather.getIndices());
    return indices && llvm::all_of(*indices, [](int64_t i) { return i >= 0; });
  }
  if (auto slice = dyn_cast<graph::SliceOp>(op)) {
    if (!isPositional(slice.getData()))
      return true;
    // From a start counted from the front, forwards.
    std::optional<SmallVector<int64_t>> starts =
        graph::getConstantInts(slice.getStarts());
    std::optional<SmallVector<int64_t>> steps;
    if (slice.getSteps())
      steps = graph::getConstantInts(slice.getSteps());
    return starts && llvm::all_of(*starts, [](int64_t i) { return i >= 0; }) &&
           (!slice.getSteps() ||
            (steps && llvm::all_of(*steps, [](int64_t i) { return i > 0; })));
  }
  if (auto concat = dyn_cast<graph::ConcatOp>(op)) {
    // What follows a part whose length varies moves with the size.
    auto type = dyn_cast<RankedTensorType>(concat.getType());
    if (!type)
      return false;
    int64_t axis = concat.getAxis() < 0 ? concat.getAxis() + type.getRank()
                                        : concat.getAxis();
    for (Value input : concat.getInputs().drop_back()) {
      auto inputType = dyn_cast<RankedTensorType>(input.getType());
      if (!inputType || axis < 0 || axis >= inputType.getRank() ||
          inputType.isDynamicDim(axis))
        return false;
    }
    return true;
  }
  return false;
}

/// The entries of `op`'s result from those of its size-derived operands
/// (absent from `known`: constant, all static), or nullopt when the op is
/// not followed entry by entry.
std::optional<Entries>
propagate(Operation *op, const llvm::DenseMap<Value, Entries> &known) {
  auto entriesOf = [&](Value value) -> std::optional<Entries> {
    auto found = known.find(value);
    if (found != known.end())
      return found->second;
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape())
      return std::nullopt;
    return Entries(type.getNumElements(), 0);
  };
  // A 1-D result picked from a 1-D operand by constant positions.
  auto pick = [&](Value from, ArrayRef<int64_t> positions)
      -> std::optional<Entries> {
    std::optional<Entries> source = entriesOf(from);
    if (!source)
      return std::nullopt;
    Entries result;
    int64_t size = source->size();
    for (int64_t position : positions) {
      if (position < 0)
        position += size;
      if (position < 0 || position >= size)
        return std::nullopt;
      result.push_back((*source)[position]);
    }
    return result;
  };
  if (auto gather = dyn_cast<graph::GatherOp>(op)) {
    auto indices = graph::getConstantInts(gather.getIndices());
    auto type = dyn_cast<RankedTensorType>(gather.getData().getType());
    if (!indices || !type || type.getRank() != 1)
      return std::nullopt;
    return pick(gather.getData(), *indices);
  }
  if (auto slice = dyn_cast<graph::SliceOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(slice.getData().getType());
    auto starts = graph::getConstantInts(slice.getStarts());
    auto ends = graph::getConstantInts(slice.getEnds());
    std::optional<SmallVector<int64_t>> steps;
    if (slice.getSteps())
      steps = graph::getConstantInts(slice.getSteps());
    if (!type || type.getRank() != 1 || !type.hasStaticShape() || !starts ||
        !ends || starts->size() != 1 || ends->size() != 1 ||
        (slice.getSteps() && (!steps || steps->size() != 1)))
      return std::nullopt;
    int64_t size = type.getDimSize(0), step = steps ? steps->front() : 1;
    if (step == 0)
      return std::nullopt;
    auto clampIndex = [&](int64_t index, int64_t low, int64_t high) {
      if (index < 0)
        index += size;
      return std::clamp<int64_t>(index, low, high);
    };
    SmallVector<int64_t> positions;
    if (step > 0)
      for (int64_t i = clampIndex(starts->front(), 0, size),
                   end = clampIndex(ends->front(), 0, size);
           i < end; i += step)
        positions.push_back(i);
    else
      for (int64_t i = clampIndex(starts->front(), -1, size - 1),
                   end = clampIndex(ends->front(), -1, size - 1);
           i > end; i += step)
        positions.push_back(i);
    return pick(slice.getData(), positions);
  }
  if (auto concat = dyn_cast<graph::ConcatOp>(op)) {
    Entries result;
    for (Value input : concat.getInputs()) {
      auto type = dyn_cast<RankedTensorType>(input.getType());
      std::optional<Entries> entries = entriesOf(input);
      if (!type || type.getRank() != 1 || !entries)
        return std::nullopt;
      result.append(entries->begin(), entries->end());
    }
    return result;
  }
  // Same elements in another shape or type.
  if (isa<graph::CastOp, graph::SqueezeOp, graph::UnsqueezeOp,
          graph::ReshapeOp, graph::IdentityOp>(op))
    return entriesOf(op->getOperand(0));
  return std::nullopt;
}

class SizeUseWalk {
public:
  explicit SizeUseWalk(func::FuncOp main);
  void run();
  SizeUses takeUses() { return std::move(uses); }

private:
  /// Records `op` as the first use of each dim in `dims` not used before.
  void report(DimMask dims, Operation *op, StringRef reason);
  /// The entries of a Shape or Size of `data`, or nullopt when it reads
  /// no dynamic dim of an input or a positional tensor.
  std::optional<Entries> readSize(Operation *op);
  /// An op that reads sizes (or positions that depend on them, `dims`) as
  /// values.
  void visitSizeRead(Operation *op, DimMask dims);

  func::FuncOp main;
  /// The dynamic dims' names by bit.
  SmallVector<std::string> dimNames;
  /// Per input, the dims of its axes.
  llvm::DenseMap<Value, SmallVector<DimMask>> argAxisDims;
  /// Sizes, positional tensors (with the dims that shape them), and values
  /// computed from the inputs' data.
  llvm::DenseMap<Value, Entries> sizes;
  llvm::DenseMap<Value, DimMask> positional;
  llvm::DenseSet<Value> fromInputs;
  SizeUses uses;
};

SizeUseWalk::SizeUseWalk(func::FuncOp main) : main(main) {
  for (BlockArgument arg : main.getArguments()) {
    fromInputs.insert(arg);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    auto names =
        main.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), graph::kDimsAttr);
    SmallVector<DimMask> axes;
    if (type)
      for (int64_t axis = 0; axis < type.getRank(); ++axis) {
        DimMask bit = 0;
        if (type.isDynamicDim(axis)) {
          auto name = names && axis < static_cast<int64_t>(names.size())
                          ? dyn_cast<StringAttr>(names[axis])
                          : StringAttr();
          std::string text = name && !name.getValue().empty()
                                 ? name.str()
                                 : "#" + std::to_string(arg.getArgNumber()) +
                                       "." + std::to_string(axis);
          auto known = llvm::find(dimNames, text);
          size_t index = known - dimNames.begin();
          if (known == dimNames.end())
            dimNames.push_back(text);
          bit = DimMask(1) << std::min<size_t>(index, 63);
        }
        axes.push_back(bit);
      }
    argAxisDims[arg] = std::move(axes);
  }
}

void SizeUseWalk::report(DimMask dims, Operation *op, StringRef reason) {
  for (auto [index, name] : llvm::enumerate(dimNames))
    if (dims & (DimMask(1) << std::min<size_t>(index, 63)))
      uses.try_emplace(name, SizeUse{nodeName(op), reason.str()});
}

std::optional<Entries> SizeUseWalk::readSize(Operation *op) {
  Value data = op->getOperand(0);
  // Sizes are read where they are known to be the inputs' dims (an
  // intermediate's type may not say which of its dims are static yet), or
  // of positional tensors, whose extent is the size.
  SmallVector<DimMask> axes;
  if (auto found = argAxisDims.find(data); found != argAxisDims.end()) {
    axes = found->second;
  } else if (auto found = positional.find(data); found != positional.end()) {
    auto type = dyn_cast<RankedTensorType>(data.getType());
    if (type)
      for (int64_t axis = 0; axis < type.getRank(); ++axis)
        axes.push_back(type.isDynamicDim(axis) ? found->second : 0);
    else
      return Entries(1, found->second);
  } else {
    return std::nullopt;
  }
  if (isa<graph::SizeOp>(op)) {
    DimMask all = 0;
    for (DimMask axis : axes)
      all |= axis;
    return all ? std::optional(Entries(1, all)) : std::nullopt;
  }
  auto shape = cast<graph::ShapeOp>(op);
  std::optional<int64_t> end;
  if (std::optional<uint64_t> given = shape.getEnd())
    end = static_cast<int64_t>(*given);
  auto [first, last] = graph::shapeDimRange(
      axes.size(), static_cast<int64_t>(shape.getStart()), end);
  Entries entries(axes.begin() + first, axes.begin() + last);
  if (!maskOf(entries))
    return std::nullopt;
  return entries;
}

void SizeUseWalk::visitSizeRead(Operation *op, DimMask dims) {
  if (isa<func::ReturnOp>(op))
    return report(dims, op,
                  "an output is computed from the size of a dynamic dim");
  // Positions computed from a size: named where they are made.
  if (isa<graph::RangeOp>(op))
    return report(dims, op,
                  "a range whose start or step is computed from the size of a "
                  "dynamic dim, which padding changes");
  if (auto slice = dyn_cast<graph::SliceOp>(op);
      slice && !sizes.contains(slice.getData()))
    return report(dims, op,
                  "a slice whose start or step is computed from the size of a "
                  "dynamic dim, which padding changes");
  if (auto gather = dyn_cast<graph::GatherOp>(op);
      gather && !sizes.contains(gather.getData()))
    return report(dims, op,
                  "a gather at indices computed from the size of a dynamic "
                  "dim, which padding changes");
  std::optional<Entries> entries;
  if (op->getNumResults() == 1)
    entries = propagate(op, sizes);
  // Followed entry by entry, the result may hold static dims only.
  if (entries && !maskOf(*entries))
    return;
  if (!llvm::all_of(op->getResultTypes(), isIntegerTensor))
    return report(dims, op,
                  "computes with the size of a dynamic dim, which padding "
                  "changes");
  for (Value result : op->getResults()) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    int64_t count = type && type.hasStaticShape() ? type.getNumElements() : 1;
    sizes[result] = entries && op->getNumResults() == 1
                        ? *entries
                        : Entries(std::max<int64_t>(count, 1), dims);
  }
}

void SizeUseWalk::run() {
  for (Operation &op : main.getBody().front()) {
    if (isa<graph::ShapeOp, graph::SizeOp>(op)) {
      if (std::optional<Entries> entries = readSize(&op))
        sizes[op.getResult(0)] = std::move(*entries);
      continue;
    }
    // The dims reaching the op as values, as positions, as shapes.
    DimMask valueDims = 0, positionDims = 0, shapeDims = 0;
    bool readsData = false;
    for (OpOperand &operand : op.getOpOperands()) {
      Value value = operand.get();
      readsData |= fromInputs.contains(value);
      DimMask dims = 0;
      bool shape = true;
      if (auto found = sizes.find(value); found != sizes.end()) {
        dims = maskOf(found->second);
        shape = isShapeOperand(&op, operand.getOperandNumber(), found->second);
        if (!shape)
          valueDims |= dims;
      } else if (auto found = positional.find(value);
                 found != positional.end()) {
        dims = found->second;
        shape = isShapeOperand(&op, operand.getOperandNumber(), Entries(1, 0));
        if (!shape)
          positionDims |= dims;
      }
      if (shape)
        shapeDims |= dims;
    }
    if (valueDims) {
      visitSizeRead(&op, valueDims | positionDims);
      continue;
    }
    auto markResults = [&](DimMask dims) {
      for (Value result : op.getResults())
        positional[result] = dims;
    };
    if (readsData) {
      // Past here AnalyzePadSafety follows the values.
      for (Value result : op.getResults())
        fromInputs.insert(result);
      continue;
    }
    if (positionDims) {
      if (keepsPositions(&op, positional))
        markResults(positionDims | shapeDims);
      else if (!isa<func::ReturnOp>(op))
        report(positionDims, &op,
               "reads a tensor shaped by the size of a dynamic dim other than "
               "position by position (padding moves its values)");
      continue;
    }
    if (shapeDims)
      markResults(shapeDims);
  }
}

} // namespace

SizeUses findSizeUsesAsValues(func::FuncOp main) {
  SizeUseWalk walk(main);
  walk.run();
  return walk.takeUses();
}

std::optional<SizeUse>
findBucketDependentConstant(ArrayRef<func::FuncOp> funcs, StringRef dim) {
  // Two buckets whose sizes differ in `dim` only.
  auto sizesOf = [](func::FuncOp func) {
    return func->getAttrOfType<DictionaryAttr>(graph::kBucketAttr);
  };
  func::FuncOp first, second;
  for (size_t i = 0; i < funcs.size() && !second; ++i) {
    DictionaryAttr a = sizesOf(funcs[i]);
    if (!a || !a.get(dim))
      continue;
    for (size_t j = i + 1; j < funcs.size() && !second; ++j) {
      DictionaryAttr b = sizesOf(funcs[j]);
      if (!b || b.size() != a.size())
        continue;
      bool otherwiseEqual = true;
      for (NamedAttribute entry : a)
        if (entry.getName() != dim && b.get(entry.getName()) != entry.getValue())
          otherwiseEqual = false;
      if (otherwiseEqual && b.get(dim) != a.get(dim)) {
        first = funcs[i];
        second = funcs[j];
      }
    }
  }
  if (!second)
    return std::nullopt;
  Block &one = first.getBody().front(), &two = second.getBody().front();
  if (one.getOperations().size() != two.getOperations().size())
    return std::nullopt;
  for (auto [a, b] : llvm::zip(one, two)) {
    if (a.getName() != b.getName())
      return std::nullopt;
    auto constantA = dyn_cast<graph::ConstantOp>(a);
    auto constantB = dyn_cast<graph::ConstantOp>(b);
    // A constant spanning the dim has another type in each bucket: it holds
    // per-position values (position ids, masks), not a size, and the walk
    // before bucketing checked that they lead with the unpadded run's.
    if (!constantA || constantA.getType() != constantB.getType() ||
        constantA.getValue() == constantB.getValue())
      continue;
    // The elements that differ are the sizes (a pad's leading pads may
    // stay while its trailing ones change).
    std::optional<SmallVector<int64_t>> valuesA =
        graph::getConstantInts(constantA.getValue());
    std::optional<SmallVector<int64_t>> valuesB =
        graph::getConstantInts(constantB.getValue());
    Entries entries;
    if (valuesA && valuesB && valuesA->size() == valuesB->size())
      for (auto [a, b] : llvm::zip(*valuesA, *valuesB))
        entries.push_back(a != b);
    else
      entries.assign(
          std::max<int64_t>(constantA.getValue().getNumElements(), 1), 1);
    for (OpOperand &use : constantA.getResult().getUses())
      if (!isShapeOperand(use.getOwner(), use.getOperandNumber(), entries))
        return SizeUse{nodeName(use.getOwner()),
                       "reads a constant that changes with the size of '" +
                           dim.str() + "' (the size computed with), which "
                           "padding changes"};
  }
  return std::nullopt;
}

} // namespace graphc
