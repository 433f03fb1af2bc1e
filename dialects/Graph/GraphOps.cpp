//===- GraphOps.cpp - graph op definitions and op-specific folders --------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace graphc::graph;

#define GET_OP_CLASSES
#include "dialects/Graph/GraphOps.cpp.inc"

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Shape and Size: fold from the static type, whatever the input value is
//===----------------------------------------------------------------------===//

/// Evaluates `op` with its host kernel (constant operands).
static OpFoldResult foldWithKernel(Operation *op,
                                   ArrayRef<Attribute> operands) {
  SmallVector<OpFoldResult, 1> results;
  if (failed(foldByEvaluation(op, operands, results)))
    return {};
  return results.front();
}

OpFoldResult ShapeOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = getData().getType();
  auto [first, last] = shapeDimRange(type.getRank(), getStart(), getEnd());
  ArrayRef<int64_t> dims = type.getShape().slice(first, last - first);
  if (llvm::any_of(dims, ShapedType::isDynamic))
    return foldWithKernel(*this, adaptor.getOperands());
  // A result still typed tensor<?xi64> folds once it has been refined.
  if (!getType().hasStaticShape())
    return {};
  return DenseIntElementsAttr::get(getType(), dims);
}

OpFoldResult SizeOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = getData().getType();
  if (!type.hasStaticShape())
    return foldWithKernel(*this, adaptor.getOperands());
  return DenseIntElementsAttr::get(getType(),
                                   ArrayRef<int64_t>{type.getNumElements()});
}
