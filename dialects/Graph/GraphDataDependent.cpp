//===- GraphDataDependent.cpp - ops whose extents the run decides ---------===//
//
// Result types and bounds of the data-dependent ops
// (GraphDataDependentOps.td): the dims the run sizes stay dynamic in the
// inferred types; getExtentBound is the most they can be.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"
#include "lib/Support/Axis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

#include "dialects/Graph/GraphExtentInterface.cpp.inc"

namespace graphc::graph {

namespace {
Type i64Scalar(MLIRContext *context) {
  return RankedTensorType::get({}, IntegerType::get(context, 64));
}

FailureOr<int64_t> staticElementCount(Operation *op, Value value,
                                      StringRef what) {
  auto type = rankedType(value);
  std::optional<int64_t> count =
      type.hasStaticShape() ? multiplyDims(type.getShape()) : std::nullopt;
  if (!count)
    return op->emitOpError() << what
                             << " needs a static shape to bound its result";
  return *count;
}
} // namespace

LogicalResult NonZeroOp::inferResultTypes(const TypeInference &infer,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  RankedTensorType x = rankedType(adaptor.getX());
  results.push_back(RankedTensorType::get(
      {x.getRank(), ShapedType::kDynamic},
      IntegerType::get(infer.getContext(), 64)));
  results.push_back(i64Scalar(infer.getContext()));
  return success();
}

FailureOr<int64_t> NonZeroOp::getExtentBound() {
  return staticElementCount(*this, getX(), "the input");
}

LogicalResult CompressOp::inferResultTypes(const TypeInference &infer,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  RankedTensorType input = rankedType(adaptor.getInput());
  RankedTensorType condition = rankedType(adaptor.getCondition());
  if (condition.getRank() != 1)
    return infer.emitError("condition must be 1-d, got rank " +
                           Twine(condition.getRank()));
  int64_t available;
  SmallVector<int64_t> dims;
  if (std::optional<int64_t> axisAttr = adaptor.getAxis()) {
    FailureOr<int64_t> axis = infer.normalizeAxis(*axisAttr, input.getRank());
    if (failed(axis))
      return failure();
    available = input.getDimSize(*axis);
    dims.assign(input.getShape().begin(), input.getShape().end());
    dims[*axis] = ShapedType::kDynamic;
  } else {
    available = input.hasStaticShape()
                    ? multiplyDims(input.getShape()).value_or(
                          ShapedType::kDynamic)
                    : ShapedType::kDynamic;
    dims.push_back(ShapedType::kDynamic);
  }
  int64_t length = condition.getDimSize(0);
  if (!ShapedType::isDynamic(available) && !ShapedType::isDynamic(length) &&
      length > available)
    return infer.emitError("condition has " + Twine(length) +
                           " elements, more than the " + Twine(available) +
                           " it selects from");
  results.push_back(input.clone(dims));
  results.push_back(i64Scalar(infer.getContext()));
  return success();
}

FailureOr<int64_t> CompressOp::getExtentBound() {
  FailureOr<int64_t> length =
      staticElementCount(*this, getCondition(), "the condition");
  if (failed(length))
    return failure();
  RankedTensorType input = rankedType(getInput());
  if (std::optional<int64_t> axis = getAxis()) {
    // Inference checked the axis.
    int64_t extent = input.getDimSize(*normalizeAxis(*axis, input.getRank()));
    if (ShapedType::isDynamic(extent))
      return emitOpError("needs a static dim along its axis");
    return std::min(*length, extent);
  }
  FailureOr<int64_t> count = staticElementCount(*this, getInput(), "the input");
  if (failed(count))
    return failure();
  return std::min(*length, *count);
}

LogicalResult EmptyIfOp::inferResultTypes(const TypeInference &infer,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  RankedTensorType value = rankedType(adaptor.getValue());
  std::optional<int64_t> count =
      multiplyDims(rankedType(adaptor.getCondition()).getShape());
  if (count && *count != 1)
    return infer.emitError("condition must have one element");
  SmallVector<int64_t> dims(value.getShape());
  for (int64_t dim : adaptor.getDims()) {
    if (dim < 0 || dim >= value.getRank())
      return infer.emitError("dim " + Twine(dim) + " is outside rank " +
                             Twine(value.getRank()));
    dims[dim] = ShapedType::kDynamic;
  }
  results.push_back(value.clone(dims));
  return success();
}

/// Its size depends on the condition: never a constant of one type.
OpFoldResult EmptyIfOp::fold(FoldAdaptor) { return {}; }

LogicalResult OutputExtentsOp::verify() {
  ArrayRef<int64_t> positions = getPositions();
  if (positions.size() != 2 * getExtents().size())
    return emitOpError("needs an (output, dim) pair per extent");
  auto ret = dyn_cast_or_null<func::ReturnOp>((*this)->getNextNode());
  if (!ret)
    return emitOpError("must come just before the function's return");
  for (size_t j = 0; j < positions.size(); j += 2) {
    int64_t output = positions[j], dim = positions[j + 1];
    if (output < 0 || output >= static_cast<int64_t>(ret.getNumOperands()))
      return emitOpError("names result ") << output << ", which is not one";
    auto type = cast<RankedTensorType>(ret.getOperand(output).getType());
    if (dim < 0 || dim >= type.getRank())
      return emitOpError("names dim ")
             << dim << " of result " << output << " of rank "
             << type.getRank();
    if (cast<RankedTensorType>(getExtents()[j / 2].getType()).getRank() != 0)
      return emitOpError("takes i64 scalars");
  }
  return success();
}

} // namespace graphc::graph
