//===- GraphTypeInference.cpp - result types of graph ops -----------------===//
//
// Result-type inference for every graph op. Dims that cannot be known yet
// are dynamic (`?`); they become static once shape bucketing and constant
// folding have run and the types are inferred again.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace graphc::graph {

bool areCompatibleShapedTypes(TypeRange lhs, TypeRange rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [l, r] : llvm::zip(lhs, rhs)) {
    auto lt = dyn_cast<ShapedType>(l);
    auto rt = dyn_cast<ShapedType>(r);
    if (!lt || !rt) {
      if (l != r)
        return false;
      continue;
    }
    if (lt.getElementType() != rt.getElementType())
      return false;
    if (!lt.hasRank() || !rt.hasRank())
      continue;
    if (lt.getRank() != rt.getRank())
      return false;
    for (auto [a, b] : llvm::zip(lt.getShape(), rt.getShape()))
      if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
        return false;
  }
  return true;
}

FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> lhs,
                                                ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t b = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (a == 1)
      result[i] = b;
    else if (b == 1)
      result[i] = a;
    else if (ShapedType::isDynamic(a))
      result[i] = b;
    else if (ShapedType::isDynamic(b) || a == b)
      result[i] = a;
    else
      return failure();
  }
  return result;
}

std::optional<SmallVector<int64_t>> getConstantInts(Value value) {
  ElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  if (!isa<IntegerType>(attr.getElementType()))
    return std::nullopt;
  SmallVector<int64_t> ints;
  for (const APInt &v : attr.getValues<APInt>())
    ints.push_back(v.getSExtValue());
  return ints;
}

/// Emits an error at `location` if there is one, and returns failure.
static LogicalResult inferError(std::optional<Location> location,
                                const Twine &message) {
  if (location)
    return emitError(*location, message);
  return failure();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// Unary elementwise: the result has the operand's type.
static LogicalResult inferSameAsOperand(ValueRange operands,
                                        SmallVectorImpl<Type> &results) {
  results.push_back(operands[0].getType());
  return success();
}

/// Broadcasting binary op whose result element type is `elementType`, or the
/// operands' element type when null.
static LogicalResult inferBroadcast(std::optional<Location> location,
                                   ValueRange operands, Type elementType,
                                   SmallVectorImpl<Type> &results) {
  SmallVector<int64_t> shape;
  for (Value operand : operands) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type)
      return inferError(location, "operands must be ranked tensors");
    FailureOr<SmallVector<int64_t>> combined =
        broadcastShapes(shape, type.getShape());
    if (failed(combined))
      return inferError(location, "operand shapes do not broadcast");
    shape = *combined;
  }
  if (!elementType)
    elementType = cast<ShapedType>(operands[0].getType()).getElementType();
  results.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

LogicalResult ReluOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                       ValueRange operands, DictionaryAttr,
                                       OpaqueProperties, RegionRange,
                                       SmallVectorImpl<Type> &results) {
  return inferSameAsOperand(operands, results);
}

LogicalResult AddOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> location,
                                      ValueRange operands, DictionaryAttr,
                                      OpaqueProperties, RegionRange,
                                      SmallVectorImpl<Type> &results) {
  return inferBroadcast(location, operands, Type(), results);
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location,
    ValueRange operands, DictionaryAttr attributes, OpaqueProperties properties,
    RegionRange regions, SmallVectorImpl<Type> &results) {
  ReshapeOp::Adaptor adaptor(operands, attributes, properties, regions);
  auto dataType = cast<RankedTensorType>(adaptor.getData().getType());
  auto shapeType = cast<RankedTensorType>(adaptor.getShape().getType());
  if (shapeType.getRank() != 1)
    return inferError(location, "shape must be a 1-D tensor");
  std::optional<SmallVector<int64_t>> shape =
      getConstantInts(adaptor.getShape());
  if (!shape) {
    int64_t rank = shapeType.getDimSize(0);
    if (ShapedType::isDynamic(rank))
      return inferError(location, "shape operand must have a static length");
    results.push_back(RankedTensorType::get(
        SmallVector<int64_t>(rank, ShapedType::kDynamic),
        dataType.getElementType()));
    return success();
  }
  bool allowZero = adaptor.getAllowzero() != 0;
  SmallVector<int64_t> dims(*shape);
  int64_t inferIndex = -1;
  int64_t known = 1;
  bool knownIsStatic = true;
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim == 0 && !allowZero) {
      if (static_cast<int64_t>(i) >= dataType.getRank())
        return inferError(location, "shape copies dim " + Twine(i) +
                                        " that the input does not have");
      dim = dataType.getDimSize(i);
    }
    if (dim == -1) {
      if (inferIndex >= 0)
        return inferError(location, "shape has more than one -1");
      inferIndex = i;
      continue;
    }
    if (dim < -1)
      return inferError(location, "shape has a negative dim " + Twine(dim));
    if (ShapedType::isDynamic(dim))
      knownIsStatic = false;
    else
      known *= dim;
  }
  if (inferIndex >= 0) {
    if (!dataType.hasStaticShape() || !knownIsStatic) {
      dims[inferIndex] = ShapedType::kDynamic;
    } else {
      int64_t total = dataType.getNumElements();
      if (known == 0 || total % known != 0)
        return inferError(location, "cannot reshape " + Twine(total) +
                                        " elements into the requested shape");
      dims[inferIndex] = total / known;
    }
  } else if (dataType.hasStaticShape() && knownIsStatic &&
             known != dataType.getNumElements()) {
    return inferError(location, "cannot reshape " +
                                    Twine(dataType.getNumElements()) +
                                    " elements into " + Twine(known));
  }
  results.push_back(RankedTensorType::get(dims, dataType.getElementType()));
  return success();
}

} // namespace graphc::graph
