//===- GraphTypeInference.cpp - shared inference and elementwise ops ------===//
//
// Result-type inference shared by op families, and that of the elementwise
// ops. Dims that cannot be known yet are dynamic (`?`); they become static
// once shape bucketing and constant folding have run and the types are
// inferred again.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphTypeInference.h"
#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "lib/Support/Axis.h"
#include "lib/Support/CheckedArith.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallSet.h"

#include <cstring>

using namespace mlir;

namespace graphc::graph {

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

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

/// The raw bits of each element of `attr`, dense or a resource blob (large
/// weights are resources, which ElementsAttr cannot iterate).
static std::optional<SmallVector<APInt>> elementBits(ElementsAttr attr) {
  unsigned width = attr.getElementType().getIntOrFloatBitWidth();
  if (width == 0 || width > 64 || (width != 1 && width % 8 != 0))
    return std::nullopt;
  FailureOr<std::vector<char>> bytes = constantBytes(attr);
  size_t elementBytes = width == 1 ? 1 : width / 8;
  if (failed(bytes) || bytes->size() % elementBytes != 0)
    return std::nullopt;
  SmallVector<APInt> bits;
  bits.reserve(bytes->size() / elementBytes);
  for (size_t at = 0; at < bytes->size(); at += elementBytes) {
    uint64_t raw = 0;
    std::memcpy(&raw, bytes->data() + at, elementBytes); // little-endian host
    bits.push_back(APInt(width, width == 1 ? raw != 0 : raw));
  }
  return bits;
}

std::optional<SmallVector<int64_t>> getConstantInts(ElementsAttr attr) {
  auto intType = dyn_cast<IntegerType>(attr.getElementType());
  if (!intType)
    return std::nullopt;
  std::optional<SmallVector<APInt>> bits = elementBits(attr);
  if (!bits)
    return std::nullopt;
  SmallVector<int64_t> ints;
  for (const APInt &v : *bits)
    ints.push_back(intType.isUnsigned() || intType.getWidth() == 1
                       ? static_cast<int64_t>(v.getZExtValue())
                       : v.getSExtValue());
  return ints;
}

/// `read` of the constant that defines `value`, if a constant does.
template <typename T>
static std::optional<SmallVector<T>>
ofConstant(Value value, std::optional<SmallVector<T>> (*read)(ElementsAttr)) {
  ElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  return read(attr);
}

std::optional<SmallVector<int64_t>> getConstantInts(Value value) {
  return ofConstant<int64_t>(value, getConstantInts);
}

std::optional<SmallVector<double>> getConstantNumbers(ElementsAttr attr) {
  auto floatType = dyn_cast<FloatType>(attr.getElementType());
  if (!floatType) {
    std::optional<SmallVector<int64_t>> ints = getConstantInts(attr);
    if (!ints)
      return std::nullopt;
    return SmallVector<double>(ints->begin(), ints->end());
  }
  std::optional<SmallVector<APInt>> bits = elementBits(attr);
  if (!bits)
    return std::nullopt;
  SmallVector<double> numbers;
  for (const APInt &v : *bits) {
    APFloat number(floatType.getFloatSemantics(), v);
    bool lost;
    number.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    numbers.push_back(number.convertToDouble());
  }
  return numbers;
}

std::optional<SmallVector<double>> getConstantNumbers(Value value) {
  return ofConstant<double>(value, getConstantNumbers);
}

std::optional<double> getScalarConstant(Value value) {
  auto type = value ? dyn_cast<RankedTensorType>(value.getType())
                    : RankedTensorType();
  if (!type || !type.hasStaticShape() || type.getNumElements() != 1)
    return std::nullopt;
  std::optional<SmallVector<double>> numbers = getConstantNumbers(value);
  if (!numbers || numbers->size() != 1)
    return std::nullopt;
  return numbers->front();
}

std::optional<int64_t> multiplyDims(ArrayRef<int64_t> dims) {
  if (llvm::any_of(dims, ShapedType::isDynamic))
    return ShapedType::kDynamic;
  return checkedElementCount(dims);
}

bool isRepresentableShape(ArrayRef<int64_t> dims, int64_t elementBytes) {
  int64_t product = elementBytes;
  for (int64_t dim : dims) {
    if (ShapedType::isDynamic(dim) || dim == 0)
      continue;
    std::optional<int64_t> next = dim < 0 ? std::nullopt
                                          : checkedMul(product, dim);
    if (!next)
      return false;
    product = *next;
  }
  return true;
}

LogicalResult TypeInference::emitError(const Twine &message) const {
  if (location)
    return mlir::emitError(*location, message);
  return failure();
}

LogicalResult TypeInference::checkOperands(ValueRange operands,
                                           DictionaryAttr attributes,
                                           int64_t numSlots) const {
  for (auto [index, operand] : llvm::enumerate(operands))
    if (!isa<RankedTensorType>(operand.getType()))
      return emitError("operand #" + Twine(index) + " must be a ranked tensor");
  if (numSlots < 0)
    return success();
  auto segments =
      attributes ? attributes.getAs<DenseI32ArrayAttr>("operandSegmentSizes")
                 : DenseI32ArrayAttr();
  if (!segments)
    return emitError("missing operandSegmentSizes attribute");
  if (static_cast<int64_t>(segments.size()) != numSlots)
    return emitError("operandSegmentSizes must have " + Twine(numSlots) +
                     " entries, one per input slot");
  int64_t total = 0;
  for (int32_t size : segments.asArrayRef()) {
    if (size < 0 || size > 1)
      return emitError("operandSegmentSizes entries must be 0 or 1");
    total += size;
  }
  if (total != static_cast<int64_t>(operands.size()))
    return emitError("operandSegmentSizes adds up to " + Twine(total) +
                     " but there are " + Twine(operands.size()) + " operands");
  return success();
}

LogicalResult TypeInference::checkAttributes(
    function_ref<LogicalResult(Location)> verify) const {
  if (location)
    return verify(*location);
  ScopedDiagnosticHandler silence(context,
                                  [](Diagnostic &) { return success(); });
  return verify(UnknownLoc::get(context));
}

FailureOr<int64_t> TypeInference::normalizeAxis(int64_t axis, int64_t rank,
                                                StringRef what) const {
  std::optional<int64_t> normalized = graphc::normalizeAxis(axis, rank);
  if (!normalized)
    return emitError(what + " " + Twine(axis) + " is out of range for rank " +
                     Twine(rank));
  return *normalized;
}

FailureOr<SmallVector<int64_t>>
TypeInference::normalizeAxes(ArrayRef<int64_t> axes, int64_t rank,
                             StringRef what) const {
  SmallVector<int64_t> normalized;
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t axis : axes) {
    FailureOr<int64_t> n = normalizeAxis(axis, rank, what);
    if (failed(n))
      return failure();
    if (!seen.insert(*n).second)
      return emitError(what + " repeats axis " + Twine(axis));
    normalized.push_back(*n);
  }
  return normalized;
}

FailureOr<int64_t> vectorLength(const TypeInference &infer, Value value,
                                StringRef name) {
  RankedTensorType type = rankedType(value);
  if (type.getRank() != 1)
    return infer.emitError(name + " must be a 1-D tensor");
  return type.getDimSize(0);
}

LogicalResult inferSameType(Value input, SmallVectorImpl<Type> &results) {
  results.push_back(input.getType());
  return success();
}

LogicalResult inferSameShape(Value input, Type elementType,
                             SmallVectorImpl<Type> &results) {
  results.push_back(rankedType(input).clone(elementType));
  return success();
}

LogicalResult inferBroadcast(const TypeInference &infer, ValueRange operands,
                             Type elementType, SmallVectorImpl<Type> &results) {
  if (operands.empty())
    return infer.emitError("expects at least one operand");
  Type shared = rankedType(operands[0]).getElementType();
  SmallVector<int64_t> shape;
  for (auto [index, operand] : llvm::enumerate(operands)) {
    RankedTensorType type = rankedType(operand);
    if (!elementType && type.getElementType() != shared)
      return infer.emitError("operand #" + Twine(index) +
                             " has another element type than operand #0");
    FailureOr<SmallVector<int64_t>> combined =
        broadcastShapes(shape, type.getShape());
    if (failed(combined))
      return infer.emitError("operand shapes do not broadcast");
    shape = *combined;
  }
  results.push_back(
      RankedTensorType::get(shape, elementType ? elementType : shared));
  return success();
}

LogicalResult inferReduction(const TypeInference &infer, Value data, Value axes,
                             int64_t keepDims, int64_t noopWithEmptyAxes,
                             SmallVectorImpl<Type> &results) {
  RankedTensorType type = rankedType(data);
  int64_t rank = type.getRank();
  auto reduceDims = [&](ArrayRef<int64_t> reduced) {
    SmallVector<int64_t> dims;
    for (int64_t i = 0; i < rank; ++i) {
      if (!llvm::is_contained(reduced, i))
        dims.push_back(type.getDimSize(i));
      else if (keepDims)
        dims.push_back(1);
    }
    results.push_back(type.clone(dims));
    return success();
  };
  auto reduceAll = [&]() {
    if (noopWithEmptyAxes)
      return inferSameType(data, results);
    return reduceDims(llvm::to_vector(llvm::seq<int64_t>(0, rank)));
  };
  if (!axes)
    return reduceAll();
  FailureOr<int64_t> length = vectorLength(infer, axes, "axes");
  if (failed(length))
    return failure();
  if (std::optional<SmallVector<int64_t>> values = getConstantInts(axes)) {
    if (values->empty())
      return reduceAll();
    FailureOr<SmallVector<int64_t>> normalized =
        infer.normalizeAxes(*values, rank);
    if (failed(normalized))
      return failure();
    return reduceDims(*normalized);
  }
  // Unknown axes: a known count still fixes the rank.
  if (*length == 0)
    return reduceAll();
  if (keepDims) {
    results.push_back(
        type.clone(SmallVector<int64_t>(rank, ShapedType::kDynamic)));
    return success();
  }
  if (ShapedType::isDynamic(*length))
    return infer.emitError(
        "the result rank depends on axes, which have an unknown length");
  if (*length > rank)
    return infer.emitError("axes has more entries than the data has dims");
  results.push_back(
      type.clone(SmallVector<int64_t>(rank - *length, ShapedType::kDynamic)));
  return success();
}

LogicalResult inferArgReduction(const TypeInference &infer, Value data,
                                int64_t axis, int64_t keepDims,
                                SmallVectorImpl<Type> &results) {
  RankedTensorType type = rankedType(data);
  FailureOr<int64_t> normalized = infer.normalizeAxis(axis, type.getRank());
  if (failed(normalized))
    return failure();
  SmallVector<int64_t> dims(type.getShape());
  if (keepDims)
    dims[*normalized] = 1;
  else
    dims.erase(dims.begin() + *normalized);
  results.push_back(
      RankedTensorType::get(dims, IntegerType::get(infer.getContext(), 64)));
  return success();
}

LogicalResult inferGlobalPool(const TypeInference &infer, Value input,
                              SmallVectorImpl<Type> &results) {
  RankedTensorType type = rankedType(input);
  if (type.getRank() < 3)
    return infer.emitError("input must have a batch, a channel and at least "
                           "one spatial dim");
  SmallVector<int64_t> dims(type.getShape());
  std::fill(dims.begin() + 2, dims.end(), 1);
  results.push_back(type.clone(dims));
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise ops with their own inference
//===----------------------------------------------------------------------===//

LogicalResult CastOp::inferResultTypes(const TypeInference &infer,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  auto to = dyn_cast_or_null<TypeAttr>(adaptor.getAttributes().get("to"));
  if (!to)
    return infer.emitError("requires a 'to' type attribute");
  return inferSameShape(adaptor.getInput(), to.getValue(), results);
}

LogicalResult PReluOp::inferResultTypes(const TypeInference &infer,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  RankedTensorType input = rankedType(adaptor.getInput());
  RankedTensorType slope = rankedType(adaptor.getSlope());
  if (input.getElementType() != slope.getElementType())
    return infer.emitError("slope has another element type than the input");
  // The slope broadcasts to the input, never the other way round.
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(input.getShape(), slope.getShape());
  if (failed(shape) || static_cast<int64_t>(shape->size()) != input.getRank())
    return infer.emitError("slope does not broadcast to the input shape");
  SmallVector<int64_t> dims(input.getShape());
  for (auto [dim, combined] : llvm::zip(dims, *shape))
    if (ShapedType::isDynamic(dim))
      dim = combined == 1 ? ShapedType::kDynamic : combined;
  results.push_back(input.clone(dims));
  return success();
}

/// x's shape with `elementType`, when `params` (a quantization's scale and
/// zero point) broadcast to x without enlarging it. A dynamic dim of x takes
/// the static size of a param that is not 1 (ONNX requires them equal).
static LogicalResult inferQuantization(const TypeInference &infer, Value x,
                                       ValueRange params, Type elementType,
                                       SmallVectorImpl<Type> &results) {
  RankedTensorType input = rankedType(x);
  SmallVector<int64_t> dims(input.getShape());
  for (Value param : params) {
    RankedTensorType type = rankedType(param);
    int64_t offset = input.getRank() - type.getRank();
    bool fits = offset >= 0;
    for (int64_t i = 0; fits && i < type.getRank(); ++i) {
      int64_t dim = type.getDimSize(i), &target = dims[offset + i];
      if (dim == 1 || dim == target)
        continue;
      if (ShapedType::isDynamic(target) && !ShapedType::isDynamic(dim))
        target = dim;
      else
        // A dynamic param dim against a static x dim other than 1 is 1 or
        // that dim; against 1 it might enlarge x.
        fits = ShapedType::isDynamic(dim) && target != 1;
    }
    if (!fits)
      return infer.emitError("scale and zero point must broadcast to x");
  }
  results.push_back(input.clone(dims).clone(elementType));
  return success();
}

LogicalResult
QuantizeLinearOp::inferResultTypes(const TypeInference &infer, Adaptor adaptor,
                                   SmallVectorImpl<Type> &results) {
  return inferQuantization(
      infer, adaptor.getX(), {adaptor.getScale(), adaptor.getZeroPoint()},
      rankedType(adaptor.getZeroPoint()).getElementType(), results);
}

LogicalResult
DequantizeLinearOp::inferResultTypes(const TypeInference &infer,
                                     Adaptor adaptor,
                                     SmallVectorImpl<Type> &results) {
  return inferQuantization(
      infer, adaptor.getX(), {adaptor.getScale(), adaptor.getZeroPoint()},
      rankedType(adaptor.getScale()).getElementType(), results);
}

LogicalResult WhereOp::inferResultTypes(const TypeInference &infer,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  Type elementType = rankedType(adaptor.getX()).getElementType();
  if (rankedType(adaptor.getY()).getElementType() != elementType)
    return infer.emitError("x and y have different element types");
  return inferBroadcast(infer, adaptor.getOperands(), elementType, results);
}

} // namespace graphc::graph
