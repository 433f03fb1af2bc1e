//===- GraphTypeInferenceReduction.cpp - scans and top-k ------------------===//
//
// Reductions, arg reductions and softmax-like ops share the inference in
// GraphTypeInference.cpp; the ops here have their own.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"

using namespace mlir;

namespace graphc::graph {

LogicalResult CumSumOp::inferResultTypes(const TypeInference &infer,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  RankedTensorType axisType = rankedType(adaptor.getAxis());
  if (axisType.getRank() > 1 ||
      (axisType.getRank() == 1 && axisType.getDimSize(0) != 1))
    return infer.emitError("axis must be a scalar");
  RankedTensorType x = rankedType(adaptor.getX());
  if (std::optional<SmallVector<int64_t>> axis =
          getConstantInts(adaptor.getAxis()))
    if (failed(infer.normalizeAxis(axis->front(), x.getRank())))
      return failure();
  return inferSameType(adaptor.getX(), results);
}

LogicalResult TopKOp::inferResultTypes(const TypeInference &infer,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  RankedTensorType x = rankedType(adaptor.getX());
  FailureOr<int64_t> axis = infer.normalizeAxis(adaptor.getAxis(), x.getRank());
  if (failed(axis))
    return failure();
  FailureOr<int64_t> length = vectorLength(infer, adaptor.getK(), "K");
  if (failed(length))
    return failure();
  if (!ShapedType::isDynamic(*length) && *length != 1)
    return infer.emitError("K must have exactly one element");
  SmallVector<int64_t> dims(x.getShape());
  dims[*axis] = ShapedType::kDynamic;
  if (std::optional<SmallVector<int64_t>> k = getConstantInts(adaptor.getK())) {
    int64_t count = k->front();
    int64_t available = x.getDimSize(*axis);
    if (count < 0)
      return infer.emitError("K must not be negative, got " + Twine(count));
    if (!ShapedType::isDynamic(available) && count > available)
      return infer.emitError("K = " + Twine(count) + " exceeds the " +
                             Twine(available) + " elements along the axis");
    dims[*axis] = count;
  }
  results.push_back(x.clone(dims));
  results.push_back(
      RankedTensorType::get(dims, IntegerType::get(infer.getContext(), 64)));
  return success();
}

LogicalResult DftOp::inferResultTypes(const TypeInference &infer,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  RankedTensorType x = rankedType(adaptor.getInput());
  int64_t rank = x.getRank();
  if (rank < 2 || (x.getDimSize(rank - 1) != 1 && x.getDimSize(rank - 1) != 2))
    return infer.emitError("input must have rank >= 2 and a static last dim "
                           "of 1 (real) or 2 (complex)");
  for (auto [value, name] : {std::pair(adaptor.getDftLength(), "dft_length"),
                             std::pair(adaptor.getAxis(), "axis")})
    if (value && (!rankedType(value).hasStaticShape() ||
                  rankedType(value).getNumElements() != 1))
      return infer.emitError(Twine(name) + " must be a scalar");
  // Without a constant axis only the last dim is known (the size of the
  // axis changes with dft_length and onesided).
  SmallVector<int64_t> dims(rank, ShapedType::kDynamic);
  dims[rank - 1] = 2;
  int64_t axisValue = -2;
  if (Value axisOperand = adaptor.getAxis()) {
    std::optional<SmallVector<int64_t>> axis = getConstantInts(axisOperand);
    if (!axis) {
      results.push_back(x.clone(dims));
      return success();
    }
    axisValue = axis->front();
  }
  FailureOr<int64_t> axis = infer.normalizeAxis(axisValue, rank);
  if (failed(axis))
    return failure();
  if (*axis == rank - 1)
    return infer.emitError("axis may not be the last (complex) dim");
  dims.assign(x.getShape().begin(), x.getShape().end());
  dims[rank - 1] = 2;
  int64_t length = x.getDimSize(*axis);
  if (Value lengthOperand = adaptor.getDftLength()) {
    length = ShapedType::kDynamic;
    if (std::optional<SmallVector<int64_t>> value =
            getConstantInts(lengthOperand)) {
      if (value->front() < 1)
        return infer.emitError("dft_length must be positive, got " +
                               Twine(value->front()));
      length = value->front();
    }
  }
  dims[*axis] = ShapedType::isDynamic(length) || !adaptor.getOnesided()
                    ? length
                    : length / 2 + 1;
  results.push_back(x.clone(dims));
  return success();
}

} // namespace graphc::graph
