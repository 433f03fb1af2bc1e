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
  auto resultType = RankedTensorType::get(
      {static_cast<int64_t>(dims.size())}, IntegerType::get(getContext(), 64));
  return DenseIntElementsAttr::get(resultType, dims);
}

OpFoldResult SizeOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = getData().getType();
  if (!type.hasStaticShape())
    return foldWithKernel(*this, adaptor.getOperands());
  auto resultType =
      RankedTensorType::get({}, IntegerType::get(getContext(), 64));
  return DenseIntElementsAttr::get(resultType,
                                   ArrayRef<int64_t>{type.getNumElements()});
}
