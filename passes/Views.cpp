//===- Views.cpp - ops that reinterpret a buffer --------------------------===//

#include "passes/Views.h"

#include "dialects/Graph/GraphOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace graphc {

bool isView(Operation *op) {
  if (!isa<graph::ReshapeOp, graph::FlattenOp, graph::SqueezeOp,
           graph::UnsqueezeOp, graph::IdentityOp>(op))
    return false;
  auto source = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return source && result && source.hasStaticShape() &&
         result.hasStaticShape() &&
         source.getElementType() == result.getElementType() &&
         source.getNumElements() == result.getNumElements();
}

Value viewRoot(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isView(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

} // namespace graphc
