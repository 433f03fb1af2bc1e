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
#include "lib/Support/CheckedArith.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <algorithm>

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

namespace {
/// A one-element operand (NonMaxSuppression's scalars): one element when
/// its shape is static.
LogicalResult checkScalarOperand(const TypeInference &infer, Value value,
                                 StringRef name) {
  if (!value)
    return success();
  RankedTensorType type = rankedType(value);
  if (type.hasStaticShape() && type.getNumElements() != 1)
    return infer.emitError(Twine(name) + " must hold one element, got " +
                           Twine(type.getNumElements()));
  return success();
}
} // namespace

LogicalResult NonMaxSuppressionOp::inferResultTypes(
    const TypeInference &infer, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  RankedTensorType boxes = rankedType(adaptor.getBoxes());
  RankedTensorType scores = rankedType(adaptor.getScores());
  // The ODS constraints say f32; inference says it too, so that
  // --precision keeps this op in float32.
  if (!boxes.getElementType().isF32() || !scores.getElementType().isF32())
    return infer.emitError("boxes and scores must be f32");
  if (boxes.getRank() != 3 || scores.getRank() != 3)
    return infer.emitError("boxes must be [batches, boxes, 4] and scores "
                           "[batches, classes, boxes], got ranks " +
                           Twine(boxes.getRank()) + " and " +
                           Twine(scores.getRank()));
  auto mismatch = [](int64_t a, int64_t b) {
    return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
  };
  if (mismatch(boxes.getDimSize(2), 4))
    return infer.emitError("boxes must have 4 coordinates in their last dim, "
                           "got " +
                           Twine(boxes.getDimSize(2)));
  if (mismatch(boxes.getDimSize(0), scores.getDimSize(0)) ||
      mismatch(boxes.getDimSize(1), scores.getDimSize(2)))
    return infer.emitError("boxes [batches, boxes, 4] and scores [batches, "
                           "classes, boxes] disagree on batches or boxes");
  if (adaptor.getCenterPointBox() != 0 && adaptor.getCenterPointBox() != 1)
    return infer.emitError("center_point_box must be 0 or 1, got " +
                           Twine(adaptor.getCenterPointBox()));
  if (failed(checkScalarOperand(infer, adaptor.getMaxOutputBoxesPerClass(),
                                "max_output_boxes_per_class")) ||
      failed(checkScalarOperand(infer, adaptor.getIouThreshold(),
                                "iou_threshold")) ||
      failed(checkScalarOperand(infer, adaptor.getScoreThreshold(),
                                "score_threshold")))
    return failure();
  MLIRContext *context = infer.getContext();
  results.push_back(RankedTensorType::get({ShapedType::kDynamic, 3},
                                          IntegerType::get(context, 64)));
  results.push_back(i64Scalar(context));
  return success();
}

FailureOr<int64_t> NonMaxSuppressionOp::getExtentBound() {
  RankedTensorType boxes = rankedType(getBoxes());
  RankedTensorType scores = rankedType(getScores());
  if (!boxes.hasStaticShape() || !scores.hasStaticShape())
    return emitOpError("needs boxes and scores of static shapes to bound its "
                       "result");
  // At most min(N, M) boxes per batch and class; a constant M narrows it.
  int64_t perClass = boxes.getDimSize(1);
  if (Value limit = getMaxOutputBoxesPerClass())
    if (std::optional<SmallVector<int64_t>> m = getConstantInts(limit))
      perClass = std::clamp<int64_t>(m->front(), 0, perClass);
  std::optional<int64_t> lists =
      checkedMul(scores.getDimSize(0), scores.getDimSize(1));
  std::optional<int64_t> bound =
      lists ? checkedMul(*lists, perClass) : std::nullopt;
  if (!bound || !checkedMul(*bound, 3 * sizeof(int64_t)))
    return emitOpError("its bound overflows int64");
  return *bound;
}

LogicalResult UniqueOp::inferResultTypes(const TypeInference &infer,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  RankedTensorType x = rankedType(adaptor.getX());
  if (adaptor.getSorted() != 0 && adaptor.getSorted() != 1)
    return infer.emitError("sorted must be 0 or 1, got " +
                           Twine(adaptor.getSorted()));
  SmallVector<int64_t> dims;
  int64_t positions;
  if (std::optional<int64_t> axisAttr = adaptor.getAxis()) {
    FailureOr<int64_t> axis = infer.normalizeAxis(*axisAttr, x.getRank());
    if (failed(axis))
      return failure();
    dims.assign(x.getShape().begin(), x.getShape().end());
    dims[*axis] = ShapedType::kDynamic;
    positions = x.getDimSize(*axis);
  } else {
    dims.push_back(ShapedType::kDynamic);
    positions = multiplyDims(x.getShape()).value_or(ShapedType::kDynamic);
  }
  MLIRContext *context = infer.getContext();
  Type i64 = IntegerType::get(context, 64);
  auto sized = RankedTensorType::get({ShapedType::kDynamic}, i64);
  results.push_back(x.clone(dims));
  results.push_back(sized);
  results.push_back(RankedTensorType::get({positions}, i64));
  results.push_back(sized);
  results.push_back(i64Scalar(context));
  return success();
}

FailureOr<int64_t> UniqueOp::getExtentBound() {
  if (std::optional<int64_t> axis = getAxis()) {
    RankedTensorType x = rankedType(getX());
    // Inference checked the axis.
    int64_t extent = x.getDimSize(*normalizeAxis(*axis, x.getRank()));
    if (ShapedType::isDynamic(extent))
      return emitOpError("needs a static dim along its axis");
    return extent;
  }
  return staticElementCount(*this, getX(), "the input");
}

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
