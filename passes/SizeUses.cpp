//===- SizeUses.cpp - where a dynamic dim's size is used as a number ------===//

#include "passes/SizeUses.h"

#include "dialects/Graph/GraphOps.h"

#include "llvm/ADT/SetVector.h"

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

} // namespace

std::optional<SizeUse> findSizeUseAsValue(func::FuncOp main) {
  // Values computed from a dynamic size, in program order.
  llvm::SetVector<Value> derived;
  for (Operation &op : main.getBody().front()) {
    if (isa<graph::ShapeOp, graph::SizeOp>(op) &&
        hasDynamicDim(op.getOperand(0))) {
      derived.insert(op.getResult(0));
      continue;
    }
    bool readsSize = false;
    for (OpOperand &operand : op.getOpOperands())
      if (derived.contains(operand.get()) &&
          !isShapeOperand(&op, operand.getOperandNumber()))
        readsSize = true;
    if (!readsSize)
      continue;
    if (isa<func::ReturnOp>(op))
      return SizeUse{nodeName(&op),
                     "an output is computed from the size of a dynamic dim"};
    if (!llvm::all_of(op.getResultTypes(), isIntegerTensor))
      return SizeUse{nodeName(&op),
                     "computes with the size of a dynamic dim, which padding "
                     "changes"};
    derived.insert(op.getResults().begin(), op.getResults().end());
  }
  return std::nullopt;
}

} // namespace graphc
