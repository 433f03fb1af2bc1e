//===- SizeUses.cpp - where a dynamic dim's size is used as a number ------===//

#include "passes/SizeUses.h"

#include "dialects/Graph/GraphOps.h"

#include "dialects/Graph/GraphTypeInference.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>

using namespace mlir;

namespace graphc {
namespace {

/// Whether operand `index` of `op` is a shape (a target shape, bounds,
/// positions along axes): a size there shapes the result but is no value
/// of it.
bool isShapeOperand(Operation *op, unsigned index) {
  if (isa<graph::ConstantOfShapeOp, graph::RangeOp>(op))
    return true;
  if (isa<graph::OneHotOp, graph::PadOp>(op))
    return index == 1;
  if (isa<graph::ReshapeOp, graph::ExpandOp, graph::TileOp, graph::SliceOp,
          graph::ResizeOp, graph::SqueezeOp, graph::UnsqueezeOp,
          graph::SplitOp, graph::TopKOp>(op))
    return index > 0;
  return false;
}

/// Whether `type` holds integers (or booleans): shape arithmetic.
bool isIntegerTensor(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && isa<IntegerType, IndexType>(shaped.getElementType());
}

bool hasDynamicDim(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return !type || !type.hasStaticShape();
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

/// Per entry of a small integer tensor computed from shapes (row-major),
/// whether it depends on a dynamic dim. Shape vectors mix static and
/// dynamic dims, and exporters pick static ones out of them (the head size
/// of x.shape[-1] for an attention scale): those are constants, not sizes.
using Entries = SmallVector<bool>;

bool anyDynamic(const Entries &entries) {
  return llvm::any_of(entries, [](bool dynamic) { return dynamic; });
}

/// The entries of `op`'s result from those of its size-derived operands
/// (absent from `known`: constant, all static), or nullopt when the op is
/// not followed entry by entry: every entry of its result is then dynamic.
std::optional<Entries>
propagate(Operation *op, const llvm::DenseMap<Value, Entries> &known) {
  auto entriesOf = [&](Value value) -> std::optional<Entries> {
    auto found = known.find(value);
    if (found != known.end())
      return found->second;
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape())
      return std::nullopt;
    return Entries(type.getNumElements(), false);
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

} // namespace

std::optional<SizeUse> findSizeUseAsValue(func::FuncOp main) {
  // Integer values computed from shapes, with their dynamic entries; a
  // value with none is a constant and is not kept.
  llvm::DenseMap<Value, Entries> derived;
  for (Operation &op : main.getBody().front()) {
    // Sizes are read where they are known to be the inputs' dims: an
    // intermediate's type may not say which of its dims are static yet.
    if (auto shape = dyn_cast<graph::ShapeOp>(op);
        shape && isa<BlockArgument>(shape.getData())) {
      auto type = dyn_cast<RankedTensorType>(shape.getData().getType());
      if (!type) {
        derived[shape.getResult()] = Entries(1, true);
        continue;
      }
      std::optional<int64_t> end;
      if (std::optional<uint64_t> given = shape.getEnd())
        end = static_cast<int64_t>(*given);
      auto [first, last] = graph::shapeDimRange(
          type.getRank(), static_cast<int64_t>(shape.getStart()), end);
      Entries entries;
      for (int64_t axis = first; axis < last; ++axis)
        entries.push_back(type.isDynamicDim(axis));
      if (anyDynamic(entries))
        derived[shape.getResult()] = std::move(entries);
      continue;
    }
    if (auto size = dyn_cast<graph::SizeOp>(op);
        size && isa<BlockArgument>(size.getData())) {
      if (hasDynamicDim(size.getData()))
        derived[size.getResult()] = Entries(1, true);
      continue;
    }
    bool readsSize = false;
    for (OpOperand &operand : op.getOpOperands()) {
      auto found = derived.find(operand.get());
      if (found != derived.end() && anyDynamic(found->second) &&
          !isShapeOperand(&op, operand.getOperandNumber()))
        readsSize = true;
    }
    if (!readsSize)
      continue;
    if (isa<func::ReturnOp>(op))
      return SizeUse{nodeName(&op),
                     "an output is computed from the size of a dynamic dim"};
    std::optional<Entries> entries;
    if (op.getNumResults() == 1)
      entries = propagate(&op, derived);
    // Followed entry by entry, the result may hold static dims only.
    if (entries && !anyDynamic(*entries))
      continue;
    if (!llvm::all_of(op.getResultTypes(), isIntegerTensor))
      return SizeUse{nodeName(&op),
                     "computes with the size of a dynamic dim, which padding "
                     "changes"};
    for (Value result : op.getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      int64_t count =
          type && type.hasStaticShape() ? type.getNumElements() : 1;
      derived[result] = entries && op.getNumResults() == 1
                            ? *entries
                            : Entries(std::max<int64_t>(count, 1), true);
    }
  }
  return std::nullopt;
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
    // per-position values (position ids, masks), not a size.
    if (!constantA || constantA.getType() != constantB.getType() ||
        constantA.getValue() == constantB.getValue())
      continue;
    for (OpOperand &use : constantA.getResult().getUses())
      if (!isShapeOperand(use.getOwner(), use.getOperandNumber()))
        return SizeUse{nodeName(use.getOwner()),
                       "reads a constant that changes with the size of '" +
                           dim.str() + "' (the size computed with), which "
                           "padding changes"};
  }
  return std::nullopt;
}

} // namespace graphc
