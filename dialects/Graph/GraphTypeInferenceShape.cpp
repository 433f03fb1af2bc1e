//===- GraphTypeInferenceShape.cpp - shapes and data movement -------------===//
//
// Shape-like operands (reshape shape, slice bounds, axes, pads, ...) are
// looked through when they are constants; otherwise the affected dims are
// dynamic, and the result rank must still be known.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"
#include "lib/Support/CheckedArith.h"
#include "lib/Support/ImageBlocks.h"

#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace graphc::graph {

static constexpr int64_t kDynamic = ShapedType::kDynamic;

static SmallVector<int64_t> dynamicDims(int64_t rank) {
  return SmallVector<int64_t>(rank, kDynamic);
}

/// Multiplies a dim by a factor, keeping dynamic dims dynamic; nullopt when
/// the product overflows.
static std::optional<int64_t> scaleDim(int64_t dim, int64_t factor) {
  if (ShapedType::isDynamic(dim))
    return kDynamic;
  return checkedMul(dim, factor);
}

/// A dim computed in floating point (Resize, Range, OneHot), or nullopt when
/// it is not a finite value a dim can hold.
static std::optional<int64_t> dimFromDouble(double value) {
  // 2^62: large enough for any real tensor, and the cast is exact below it.
  constexpr double kLargestDim = 4611686018427387904.0;
  if (!std::isfinite(value) || value >= kLargestDim)
    return std::nullopt;
  return std::max<int64_t>(static_cast<int64_t>(value), 0);
}

/// The constant contents of a 1-D shape-like operand, or its length with
/// unknown contents: `values` is empty when they are unknown.
struct VectorOperand {
  int64_t length;
  std::optional<SmallVector<int64_t>> values;
};

static FailureOr<VectorOperand> readVector(const TypeInference &infer,
                                           Value value, StringRef name) {
  FailureOr<int64_t> length = vectorLength(infer, value, name);
  if (failed(length))
    return failure();
  return VectorOperand{*length, getConstantInts(value)};
}

//===----------------------------------------------------------------------===//
// Constants and shapes
//===----------------------------------------------------------------------===//

LogicalResult
ConstantOfShapeOp::inferResultTypes(const TypeInference &infer, Adaptor adaptor,
                                    SmallVectorImpl<Type> &results) {
  FailureOr<VectorOperand> shape =
      readVector(infer, adaptor.getInput(), "shape");
  if (failed(shape))
    return failure();
  Type elementType = Float32Type::get(infer.getContext());
  if (ElementsAttr value = adaptor.getValueAttr())
    elementType = value.getElementType();
  if (shape->values) {
    for (int64_t dim : *shape->values)
      if (dim < 0)
        return infer.emitError("shape has a negative dim " + Twine(dim));
    results.push_back(RankedTensorType::get(*shape->values, elementType));
    return success();
  }
  if (ShapedType::isDynamic(shape->length))
    return infer.emitError("shape operand must have a static length");
  results.push_back(
      RankedTensorType::get(dynamicDims(shape->length), elementType));
  return success();
}

std::pair<int64_t, int64_t> shapeDimRange(int64_t rank, int64_t start,
                                          std::optional<int64_t> end) {
  auto clamp = [&](int64_t index) {
    if (index < 0)
      index += rank;
    return std::clamp<int64_t>(index, 0, rank);
  };
  int64_t first = clamp(start);
  int64_t last = clamp(end.value_or(rank));
  return {first, std::max(first, last)};
}

LogicalResult ShapeOp::inferResultTypes(const TypeInference &infer,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  auto [first, last] = shapeDimRange(rankedType(adaptor.getData()).getRank(),
                                     adaptor.getStart(), adaptor.getEnd());
  results.push_back(RankedTensorType::get(
      {last - first}, IntegerType::get(infer.getContext(), 64)));
  return success();
}

LogicalResult SizeOp::inferResultTypes(const TypeInference &infer, Adaptor,
                                       SmallVectorImpl<Type> &results) {
  results.push_back(
      RankedTensorType::get({}, IntegerType::get(infer.getContext(), 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// Reshaping
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferResultTypes(const TypeInference &infer,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  RankedTensorType dataType = rankedType(adaptor.getData());
  FailureOr<VectorOperand> shape =
      readVector(infer, adaptor.getShape(), "shape");
  if (failed(shape))
    return failure();
  if (!shape->values) {
    if (ShapedType::isDynamic(shape->length))
      return infer.emitError("shape operand must have a static length");
    results.push_back(dataType.clone(dynamicDims(shape->length)));
    return success();
  }
  bool allowZero = adaptor.getAllowzero() != 0;
  SmallVector<int64_t> dims(*shape->values);
  int64_t inferIndex = -1;
  int64_t known = 1;
  bool knownIsStatic = true;
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim == 0 && !allowZero) {
      if (static_cast<int64_t>(i) >= dataType.getRank())
        return infer.emitError("shape copies dim " + Twine(i) +
                               " that the input does not have");
      dim = dataType.getDimSize(i);
    }
    if (dim == -1) {
      if (inferIndex >= 0)
        return infer.emitError("shape has more than one -1");
      inferIndex = i;
      continue;
    }
    if (ShapedType::isDynamic(dim)) {
      knownIsStatic = false;
      continue;
    }
    if (dim < -1)
      return infer.emitError("shape has a negative dim " + Twine(dim));
    std::optional<int64_t> product = checkedMul(known, dim);
    if (!product)
      return infer.emitError("shape has too many elements");
    known = *product;
  }
  if (inferIndex >= 0) {
    if (!dataType.hasStaticShape() || !knownIsStatic) {
      dims[inferIndex] = kDynamic;
    } else {
      int64_t total = dataType.getNumElements();
      if (known == 0 || total % known != 0)
        return infer.emitError("cannot reshape " + Twine(total) +
                               " elements into the requested shape");
      dims[inferIndex] = total / known;
    }
  } else if (dataType.hasStaticShape() && knownIsStatic &&
             known != dataType.getNumElements()) {
    return infer.emitError("cannot reshape " +
                           Twine(dataType.getNumElements()) +
                           " elements into " + Twine(known));
  }
  results.push_back(dataType.clone(dims));
  return success();
}

LogicalResult FlattenOp::inferResultTypes(const TypeInference &infer,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  RankedTensorType type = rankedType(adaptor.getInput());
  int64_t rank = type.getRank();
  int64_t axis = adaptor.getAxis();
  // Flatten accepts axis == rank (everything in the outer dim).
  if (axis < -rank || axis > rank)
    return infer.emitError("axis " + Twine(axis) +
                           " is out of range for rank " + Twine(rank));
  if (axis < 0)
    axis += rank;
  ArrayRef<int64_t> shape = type.getShape();
  std::optional<int64_t> outer = multiplyDims(shape.take_front(axis));
  std::optional<int64_t> inner = multiplyDims(shape.drop_front(axis));
  if (!outer || !inner)
    return infer.emitError("the flattened dims are too large");
  results.push_back(type.clone({*outer, *inner}));
  return success();
}

LogicalResult TransposeOp::inferResultTypes(const TypeInference &infer,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  RankedTensorType type = rankedType(adaptor.getData());
  int64_t rank = type.getRank();
  SmallVector<int64_t> perm;
  if (std::optional<ArrayRef<int64_t>> attr = adaptor.getPerm())
    perm.assign(attr->begin(), attr->end());
  else
    perm = llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank)));
  if (static_cast<int64_t>(perm.size()) != rank)
    return infer.emitError("perm has " + Twine(perm.size()) +
                           " entries but the input has rank " + Twine(rank));
  SmallVector<bool> used(rank, false);
  SmallVector<int64_t> dims;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || used[p])
      return infer.emitError("perm is not a permutation of [0, " + Twine(rank) +
                             ")");
    used[p] = true;
    dims.push_back(type.getDimSize(p));
  }
  results.push_back(type.clone(dims));
  return success();
}

LogicalResult SqueezeOp::inferResultTypes(const TypeInference &infer,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  RankedTensorType type = rankedType(adaptor.getData());
  int64_t rank = type.getRank();
  SmallVector<int64_t> removed;
  if (Value axes = adaptor.getAxes()) {
    FailureOr<VectorOperand> vector = readVector(infer, axes, "axes");
    if (failed(vector))
      return failure();
    if (!vector->values) {
      if (ShapedType::isDynamic(vector->length))
        return infer.emitError(
            "the result rank depends on axes, which have an unknown length");
      if (vector->length > rank)
        return infer.emitError("axes has more entries than the data has dims");
      results.push_back(type.clone(dynamicDims(rank - vector->length)));
      return success();
    }
    FailureOr<SmallVector<int64_t>> normalized =
        infer.normalizeAxes(*vector->values, rank);
    if (failed(normalized))
      return failure();
    for (int64_t axis : *normalized) {
      int64_t dim = type.getDimSize(axis);
      if (!ShapedType::isDynamic(dim) && dim != 1)
        return infer.emitError("cannot squeeze dim " + Twine(axis) +
                               " of size " + Twine(dim));
    }
    removed = std::move(*normalized);
  } else {
    for (auto [i, dim] : llvm::enumerate(type.getShape())) {
      if (ShapedType::isDynamic(dim))
        return infer.emitError("squeeze without axes needs static dims, but "
                               "dim " +
                               Twine(i) + " is dynamic");
      if (dim == 1)
        removed.push_back(i);
    }
  }
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(removed, i))
      dims.push_back(type.getDimSize(i));
  results.push_back(type.clone(dims));
  return success();
}

LogicalResult UnsqueezeOp::inferResultTypes(const TypeInference &infer,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  RankedTensorType type = rankedType(adaptor.getData());
  FailureOr<VectorOperand> axes = readVector(infer, adaptor.getAxes(), "axes");
  if (failed(axes))
    return failure();
  if (!axes->values) {
    if (ShapedType::isDynamic(axes->length))
      return infer.emitError(
          "the result rank depends on axes, which have an unknown length");
    results.push_back(type.clone(dynamicDims(type.getRank() + axes->length)));
    return success();
  }
  int64_t rank = type.getRank() + axes->values->size();
  FailureOr<SmallVector<int64_t>> normalized =
      infer.normalizeAxes(*axes->values, rank);
  if (failed(normalized))
    return failure();
  SmallVector<int64_t> dims;
  ArrayRef<int64_t> input = type.getShape();
  for (int64_t i = 0; i < rank; ++i) {
    if (llvm::is_contained(*normalized, i)) {
      dims.push_back(1);
    } else {
      dims.push_back(input.front());
      input = input.drop_front();
    }
  }
  results.push_back(type.clone(dims));
  return success();
}

LogicalResult ExpandOp::inferResultTypes(const TypeInference &infer,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  RankedTensorType type = rankedType(adaptor.getInput());
  FailureOr<VectorOperand> shape =
      readVector(infer, adaptor.getShape(), "shape");
  if (failed(shape))
    return failure();
  if (!shape->values && ShapedType::isDynamic(shape->length))
    return infer.emitError("shape operand must have a static length");
  // Unknown target dims broadcast like dynamic ones: a static input dim
  // other than 1 still fixes the result dim.
  SmallVector<int64_t> target =
      shape->values ? *shape->values : dynamicDims(shape->length);
  for (int64_t dim : target)
    if (!ShapedType::isDynamic(dim) && dim < 0)
      return infer.emitError("shape has a negative dim " + Twine(dim));
  FailureOr<SmallVector<int64_t>> dims =
      broadcastShapes(type.getShape(), target);
  if (failed(dims))
    return infer.emitError("input shape does not broadcast to the shape");
  results.push_back(type.clone(*dims));
  return success();
}

LogicalResult TileOp::inferResultTypes(const TypeInference &infer,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  RankedTensorType type = rankedType(adaptor.getInput());
  FailureOr<VectorOperand> repeats =
      readVector(infer, adaptor.getRepeats(), "repeats");
  if (failed(repeats))
    return failure();
  if (!ShapedType::isDynamic(repeats->length) &&
      repeats->length != type.getRank())
    return infer.emitError("repeats has " + Twine(repeats->length) +
                           " entries but the input has rank " +
                           Twine(type.getRank()));
  if (!repeats->values) {
    results.push_back(type.clone(dynamicDims(type.getRank())));
    return success();
  }
  SmallVector<int64_t> dims;
  for (auto [dim, repeat] : llvm::zip(type.getShape(), *repeats->values)) {
    if (repeat < 0)
      return infer.emitError("repeats must not be negative");
    std::optional<int64_t> tiled = scaleDim(dim, repeat);
    if (!tiled)
      return infer.emitError("repeats make a dim too large");
    dims.push_back(*tiled);
  }
  results.push_back(type.clone(dims));
  return success();
}

/// Checks the NCHW input and blocksize of depth_to_space/space_to_depth.
static FailureOr<RankedTensorType>
blockRearrangeInput(const TypeInference &infer, Value input,
                    int64_t blocksize) {
  RankedTensorType type = rankedType(input);
  if (type.getRank() != 4)
    return infer.emitError("input must be 4-D (NCHW)");
  // blocksize^2 scales a dim; past 2^31 it cannot describe a real tensor.
  if (blocksize < 1 || blocksize > (int64_t(1) << 31))
    return infer.emitError("blocksize must be in [1, 2^31]");
  return type;
}

LogicalResult DepthToSpaceOp::inferResultTypes(const TypeInference &infer,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &results) {
  int64_t b = adaptor.getBlocksize();
  FailureOr<RankedTensorType> type =
      blockRearrangeInput(infer, adaptor.getInput(), b);
  if (failed(type))
    return failure();
  int64_t c = type->getDimSize(1);
  if (!ShapedType::isDynamic(c) && c % (b * b) != 0)
    return infer.emitError("channels (" + Twine(c) +
                           ") must be a multiple of blocksize^2");
  std::optional<int64_t> height = scaleDim(type->getDimSize(2), b);
  std::optional<int64_t> width = scaleDim(type->getDimSize(3), b);
  if (!height || !width)
    return infer.emitError("blocksize makes the spatial dims too large");
  results.push_back(type->clone(
      {type->getDimSize(0), ShapedType::isDynamic(c) ? kDynamic : c / (b * b),
       *height, *width}));
  return success();
}

LogicalResult SpaceToDepthOp::inferResultTypes(const TypeInference &infer,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &results) {
  int64_t b = adaptor.getBlocksize();
  FailureOr<RankedTensorType> type =
      blockRearrangeInput(infer, adaptor.getInput(), b);
  if (failed(type))
    return failure();
  std::optional<int64_t> channels = scaleDim(type->getDimSize(1), b * b);
  if (!channels)
    return infer.emitError("blocksize makes the channel dim too large");
  SmallVector<int64_t> dims = {type->getDimSize(0), *channels};
  for (int64_t i : {2, 3}) {
    int64_t dim = type->getDimSize(i);
    if (!ShapedType::isDynamic(dim) && dim % b != 0)
      return infer.emitError("spatial dim " + Twine(i) + " (" + Twine(dim) +
                             ") must be a multiple of blocksize");
    dims.push_back(ShapedType::isDynamic(dim) ? kDynamic : dim / b);
  }
  results.push_back(type->clone(dims));
  return success();
}

//===----------------------------------------------------------------------===//
// Joining and splitting
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferResultTypes(const TypeInference &infer,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return infer.emitError("expects at least one operand");
  RankedTensorType first = rankedType(inputs[0]);
  FailureOr<int64_t> axis =
      infer.normalizeAxis(adaptor.getAxis(), first.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> dims(first.getShape());
  for (auto [index, input] : llvm::enumerate(inputs.drop_front())) {
    RankedTensorType type = rankedType(input);
    if (type.getElementType() != first.getElementType() ||
        type.getRank() != first.getRank())
      return infer.emitError("operand #" + Twine(index + 1) +
                             " differs from operand #0 in element type or "
                             "rank");
    for (int64_t i = 0; i < first.getRank(); ++i) {
      int64_t dim = type.getDimSize(i);
      if (i == *axis) {
        if (ShapedType::isDynamic(dims[i]) || ShapedType::isDynamic(dim)) {
          dims[i] = kDynamic;
          continue;
        }
        std::optional<int64_t> sum = checkedAdd(dims[i], dim);
        if (!sum)
          return infer.emitError("the concatenated dim is too large");
        dims[i] = *sum;
      } else if (ShapedType::isDynamic(dims[i])) {
        dims[i] = dim;
      } else if (!ShapedType::isDynamic(dim) && dim != dims[i]) {
        return infer.emitError("operand #" + Twine(index + 1) + " has size " +
                               Twine(dim) + " in dim " + Twine(i) +
                               " where operand #0 has " + Twine(dims[i]));
      }
    }
  }
  results.push_back(first.clone(dims));
  return success();
}

LogicalResult SplitOp::inferResultTypes(const TypeInference &infer,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  RankedTensorType type = rankedType(adaptor.getInput());
  FailureOr<int64_t> axis =
      infer.normalizeAxis(adaptor.getAxis(), type.getRank());
  if (failed(axis))
    return failure();
  int64_t count = adaptor.getNumOutputs();
  if (count < 1)
    return infer.emitError("num_outputs must be positive");
  int64_t total = type.getDimSize(*axis);
  SmallVector<int64_t> sizes(count, kDynamic);
  if (Value split = adaptor.getSplit()) {
    FailureOr<VectorOperand> lengths = readVector(infer, split, "split");
    if (failed(lengths))
      return failure();
    if (!ShapedType::isDynamic(lengths->length) && lengths->length != count)
      return infer.emitError("split has " + Twine(lengths->length) +
                             " entries but num_outputs is " + Twine(count));
    if (lengths->values) {
      int64_t sum = 0;
      for (int64_t length : *lengths->values) {
        if (length < 0)
          return infer.emitError("split lengths must not be negative");
        std::optional<int64_t> next = checkedAdd(sum, length);
        if (!next)
          return infer.emitError("split lengths are too large");
        sum = *next;
      }
      if (!ShapedType::isDynamic(total) && sum != total)
        return infer.emitError("split lengths add up to " + Twine(sum) +
                               " but the dim has size " + Twine(total));
      sizes = *lengths->values;
    }
  } else if (!ShapedType::isDynamic(total)) {
    // Equal parts; the last one is smaller when the dim does not divide.
    int64_t chunk = llvm::divideCeil(total, count);
    int64_t last = total - chunk * (count - 1);
    if (last <= 0)
      return infer.emitError("cannot split a dim of size " + Twine(total) +
                             " into " + Twine(count) + " parts");
    sizes.assign(count, chunk);
    sizes.back() = last;
  }
  for (int64_t size : sizes) {
    SmallVector<int64_t> dims(type.getShape());
    dims[*axis] = size;
    results.push_back(type.clone(dims));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Slicing and gathering
//===----------------------------------------------------------------------===//

/// Number of elements of a dim of size `dim` selected by ONNX Slice bounds.
static int64_t sliceLength(int64_t dim, int64_t start, int64_t end,
                           int64_t step) {
  auto clampIndex = [&](int64_t index, int64_t low, int64_t high) {
    if (index < 0)
      index = index < -dim ? low : index + dim;
    return std::clamp(index, low, high);
  };
  if (step > 0) {
    start = clampIndex(start, 0, dim);
    end = clampIndex(end, 0, dim);
    return end > start ? llvm::divideCeil(end - start, step) : 0;
  }
  start = clampIndex(start, 0, dim - 1);
  end = clampIndex(end, -1, dim - 1);
  if (end == -1 && start == -1)
    return 0;
  // -INT64_MIN overflows; any step past the dim selects one element anyway.
  int64_t magnitude = step < -dim ? dim + 1 : -step;
  return start > end ? llvm::divideCeil(start - end, magnitude) : 0;
}

LogicalResult SliceOp::inferResultTypes(const TypeInference &infer,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  RankedTensorType type = rankedType(adaptor.getData());
  int64_t rank = type.getRank();
  FailureOr<VectorOperand> starts =
      readVector(infer, adaptor.getStarts(), "starts");
  FailureOr<VectorOperand> ends = readVector(infer, adaptor.getEnds(), "ends");
  if (failed(starts) || failed(ends))
    return failure();
  int64_t count = starts->length;
  auto checkLength = [&](const VectorOperand &vector, StringRef name) {
    if (!ShapedType::isDynamic(count) &&
        !ShapedType::isDynamic(vector.length) && vector.length != count)
      return infer.emitError(name + " has " + Twine(vector.length) +
                             " entries but starts has " + Twine(count));
    return success();
  };
  if (failed(checkLength(*ends, "ends")))
    return failure();
  std::optional<VectorOperand> axes, steps;
  if (Value value = adaptor.getAxes()) {
    FailureOr<VectorOperand> vector = readVector(infer, value, "axes");
    if (failed(vector) || failed(checkLength(*vector, "axes")))
      return failure();
    axes = *vector;
  }
  if (Value value = adaptor.getSteps()) {
    FailureOr<VectorOperand> vector = readVector(infer, value, "steps");
    if (failed(vector) || failed(checkLength(*vector, "steps")))
      return failure();
    steps = *vector;
  }
  // Which dims are sliced: unknown axes may touch any of them.
  SmallVector<int64_t> sliced;
  if (axes) {
    if (!axes->values) {
      results.push_back(type.clone(dynamicDims(rank)));
      return success();
    }
    FailureOr<SmallVector<int64_t>> normalized =
        infer.normalizeAxes(*axes->values, rank);
    if (failed(normalized))
      return failure();
    sliced = std::move(*normalized);
  } else {
    if (ShapedType::isDynamic(count)) {
      results.push_back(type.clone(dynamicDims(rank)));
      return success();
    }
    if (count > rank)
      return infer.emitError("starts has more entries than the data has dims");
    sliced = llvm::to_vector(llvm::seq<int64_t>(0, count));
  }
  if (steps && steps->values)
    for (int64_t step : *steps->values)
      if (step == 0)
        return infer.emitError("steps must not be zero");
  SmallVector<int64_t> dims(type.getShape());
  for (auto [i, axis] : llvm::enumerate(sliced)) {
    int64_t dim = dims[axis];
    if (ShapedType::isDynamic(dim) || !starts->values || !ends->values ||
        (steps && !steps->values)) {
      dims[axis] = kDynamic;
      continue;
    }
    int64_t step = steps ? (*steps->values)[i] : 1;
    dims[axis] =
        sliceLength(dim, (*starts->values)[i], (*ends->values)[i], step);
  }
  results.push_back(type.clone(dims));
  return success();
}

/// ONNX defines no clamping for Gather and GatherElements: a constant index
/// outside a static dim is an error, caught here rather than when the
/// gather runs (or is folded).
static LogicalResult checkConstantIndices(const TypeInference &infer,
                                          Value indices, int64_t dim) {
  if (ShapedType::isDynamic(dim))
    return success();
  std::optional<SmallVector<int64_t>> values = getConstantInts(indices);
  if (!values)
    return success();
  for (int64_t index : *values)
    if (index < -dim || index >= dim)
      return infer.emitError("index " + Twine(index) +
                             " is out of range for a dim of size " +
                             Twine(dim));
  return success();
}

LogicalResult GatherOp::inferResultTypes(const TypeInference &infer,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  RankedTensorType data = rankedType(adaptor.getData());
  RankedTensorType indices = rankedType(adaptor.getIndices());
  FailureOr<int64_t> axis =
      infer.normalizeAxis(adaptor.getAxis(), data.getRank());
  if (failed(axis))
    return failure();
  if (failed(checkConstantIndices(infer, adaptor.getIndices(),
                                  data.getDimSize(*axis))))
    return failure();
  SmallVector<int64_t> dims(data.getShape().take_front(*axis));
  llvm::append_range(dims, indices.getShape());
  llvm::append_range(dims, data.getShape().drop_front(*axis + 1));
  results.push_back(data.clone(dims));
  return success();
}

LogicalResult
GatherElementsOp::inferResultTypes(const TypeInference &infer, Adaptor adaptor,
                                   SmallVectorImpl<Type> &results) {
  RankedTensorType data = rankedType(adaptor.getData());
  RankedTensorType indices = rankedType(adaptor.getIndices());
  if (data.getRank() != indices.getRank())
    return infer.emitError("indices must have the rank of the data");
  FailureOr<int64_t> axis =
      infer.normalizeAxis(adaptor.getAxis(), data.getRank());
  if (failed(axis) ||
      failed(checkConstantIndices(infer, adaptor.getIndices(),
                                  data.getDimSize(*axis))))
    return failure();
  results.push_back(indices.clone(data.getElementType()));
  return success();
}

LogicalResult GatherNdOp::inferResultTypes(const TypeInference &infer,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  RankedTensorType data = rankedType(adaptor.getData());
  RankedTensorType indices = rankedType(adaptor.getIndices());
  int64_t batchDims = adaptor.getBatchDims();
  if (data.getRank() < 1 || indices.getRank() < 1)
    return infer.emitError("data and indices must have at least one dim");
  if (batchDims < 0 || batchDims >= std::min(data.getRank(), indices.getRank()))
    return infer.emitError("batch_dims must be less than the ranks of data "
                           "and indices");
  int64_t depth = indices.getShape().back();
  if (ShapedType::isDynamic(depth))
    return infer.emitError("the last dim of indices must be static");
  if (depth < 1 || depth > data.getRank() - batchDims)
    return infer.emitError("the last dim of indices (" + Twine(depth) +
                           ") must be in [1, rank(data) - batch_dims]");
  SmallVector<int64_t> dims(indices.getShape().drop_back());
  llvm::append_range(dims, data.getShape().drop_front(batchDims + depth));
  results.push_back(data.clone(dims));
  return success();
}

//===----------------------------------------------------------------------===//
// Padding, resizing and generators
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferResultTypes(const TypeInference &infer,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  RankedTensorType type = rankedType(adaptor.getData());
  int64_t rank = type.getRank();
  FailureOr<VectorOperand> pads = readVector(infer, adaptor.getPads(), "pads");
  if (failed(pads))
    return failure();
  SmallVector<int64_t> padded;
  if (Value axes = adaptor.getAxes()) {
    FailureOr<VectorOperand> vector = readVector(infer, axes, "axes");
    if (failed(vector))
      return failure();
    if (!vector->values) {
      results.push_back(type.clone(dynamicDims(rank)));
      return success();
    }
    FailureOr<SmallVector<int64_t>> normalized =
        infer.normalizeAxes(*vector->values, rank);
    if (failed(normalized))
      return failure();
    padded = std::move(*normalized);
  } else {
    padded = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  int64_t count = padded.size();
  if (!ShapedType::isDynamic(pads->length) && pads->length != 2 * count)
    return infer.emitError("pads has " + Twine(pads->length) +
                           " entries but needs " + Twine(2 * count) +
                           " (begin and end for each padded axis)");
  SmallVector<int64_t> dims(type.getShape());
  for (auto [i, axis] : llvm::enumerate(padded)) {
    if (!pads->values || ShapedType::isDynamic(dims[axis])) {
      dims[axis] = kDynamic;
      continue;
    }
    std::optional<int64_t> begin = checkedAdd(dims[axis], (*pads->values)[i]);
    std::optional<int64_t> end =
        begin ? checkedAdd(*begin, (*pads->values)[i + count]) : std::nullopt;
    if (!end)
      return infer.emitError("pads make dim " + Twine(axis) + " too large");
    int64_t size = *end;
    if (size < 0)
      return infer.emitError("pads crop more than dim " + Twine(axis) +
                             " holds");
    dims[axis] = size;
  }
  results.push_back(type.clone(dims));
  return success();
}

LogicalResult GridSampleOp::inferResultTypes(const TypeInference &infer,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  RankedTensorType x = rankedType(adaptor.getX());
  RankedTensorType grid = rankedType(adaptor.getGrid());
  int64_t rank = x.getRank();
  if (rank < 3)
    return infer.emitError("x must have a batch, a channel and at least one "
                           "spatial dim");
  if (grid.getRank() != rank)
    return infer.emitError("grid must have rank " + Twine(rank) +
                           " like x, not " + Twine(grid.getRank()));
  int64_t coords = grid.getDimSize(rank - 1);
  if (!ShapedType::isDynamic(coords) && coords != rank - 2)
    return infer.emitError("grid's last dim must be " + Twine(rank - 2) +
                           " (one coordinate per spatial dim), not " +
                           Twine(coords));
  int64_t batch = x.getDimSize(0), gridBatch = grid.getDimSize(0);
  if (!ShapedType::isDynamic(batch) && !ShapedType::isDynamic(gridBatch) &&
      batch != gridBatch)
    return infer.emitError("grid's batch " + Twine(gridBatch) +
                           " differs from x's " + Twine(batch));
  SmallVector<int64_t> dims = {ShapedType::isDynamic(batch) ? gridBatch : batch,
                               x.getDimSize(1)};
  for (int64_t k = 1; k < rank - 1; ++k)
    dims.push_back(grid.getDimSize(k));
  results.push_back(x.clone(dims));
  return success();
}

LogicalResult RoiAlignOp::inferResultTypes(const TypeInference &infer,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  RankedTensorType x = rankedType(adaptor.getX());
  RankedTensorType rois = rankedType(adaptor.getRois());
  RankedTensorType batch = rankedType(adaptor.getBatchIndices());
  if (x.getRank() != 4)
    return infer.emitError("x must be [N, C, H, W], not of rank " +
                           Twine(x.getRank()));
  if (rois.getRank() != 2 || (!rois.isDynamicDim(1) && rois.getDimSize(1) != 4))
    return infer.emitError("rois must be [num_rois, 4]");
  if (batch.getRank() != 1)
    return infer.emitError("batch_indices must be [num_rois]");
  int64_t count = rois.getDimSize(0), batchCount = batch.getDimSize(0);
  if (!ShapedType::isDynamic(count) && !ShapedType::isDynamic(batchCount) &&
      count != batchCount)
    return infer.emitError("rois has " + Twine(count) +
                           " boxes but batch_indices " + Twine(batchCount));
  // Constant batch indices outside a static batch are caught here rather
  // than when the op runs (or is folded).
  int64_t images = x.getDimSize(0);
  if (std::optional<SmallVector<int64_t>> values =
          getConstantInts(adaptor.getBatchIndices());
      values && !ShapedType::isDynamic(images))
    for (int64_t index : *values)
      if (index < 0 || index >= images)
        return infer.emitError("batch index " + Twine(index) +
                               " is out of range [0, " + Twine(images) + ")");
  int64_t height = adaptor.getOutputHeight(), width = adaptor.getOutputWidth();
  if (height < 1 || width < 1)
    return infer.emitError("output_height and output_width must be positive");
  results.push_back(x.clone({ShapedType::isDynamic(count) ? batchCount : count,
                             x.getDimSize(1), height, width}));
  return success();
}

LogicalResult AffineGridOp::inferResultTypes(const TypeInference &infer,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  RankedTensorType theta = rankedType(adaptor.getTheta());
  FailureOr<VectorOperand> size = readVector(infer, adaptor.getSize(), "size");
  if (failed(size))
    return failure();
  if (size->length != 4 && size->length != 5)
    return infer.emitError("size must hold 4 (2-d) or 5 (3-d) values");
  int64_t spatial = size->length - 2;
  if (theta.getRank() != 3)
    return infer.emitError("theta must be [N, " + Twine(spatial) + ", " +
                           Twine(spatial + 1) + "]");
  int64_t expected[] = {spatial, spatial + 1};
  for (auto [k, want] : llvm::enumerate(expected)) {
    int64_t dim = theta.getDimSize(k + 1);
    if (!ShapedType::isDynamic(dim) && dim != want)
      return infer.emitError("theta must be [N, " + Twine(spatial) + ", " +
                             Twine(spatial + 1) + "] for a size of " +
                             Twine(size->length) + " values");
  }
  int64_t batch = theta.getDimSize(0);
  SmallVector<int64_t> dims = dynamicDims(spatial + 2);
  dims[0] = batch;
  dims.back() = spatial;
  if (size->values) {
    for (int64_t dim : *size->values)
      if (dim < 0)
        return infer.emitError("size has a negative dim " + Twine(dim));
    int64_t sizeBatch = (*size->values)[0];
    if (!ShapedType::isDynamic(batch) && batch != sizeBatch)
      return infer.emitError("size's batch " + Twine(sizeBatch) +
                             " differs from theta's " + Twine(batch));
    dims[0] = sizeBatch;
    for (int64_t k = 0; k < spatial; ++k)
      dims[k + 1] = (*size->values)[k + 2];
  }
  results.push_back(theta.clone(dims));
  return success();
}

LogicalResult ResizeOp::inferResultTypes(const TypeInference &infer,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  RankedTensorType type = rankedType(adaptor.getX());
  int64_t rank = type.getRank();
  // An empty scales tensor (older opsets) means "use sizes".
  Value scales = adaptor.getScales();
  if (scales && rankedType(scales).getRank() == 1 &&
      rankedType(scales).getDimSize(0) == 0)
    scales = Value();
  Value sizes = adaptor.getSizes();
  if (static_cast<bool>(scales) == static_cast<bool>(sizes))
    return infer.emitError("exactly one of scales and sizes must be given");
  SmallVector<int64_t> axes;
  if (std::optional<ArrayRef<int64_t>> attr = adaptor.getAxes()) {
    FailureOr<SmallVector<int64_t>> normalized =
        infer.normalizeAxes(*attr, rank);
    if (failed(normalized))
      return failure();
    axes = std::move(*normalized);
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  int64_t count = axes.size();
  Value given = scales ? scales : sizes;
  FailureOr<int64_t> length =
      vectorLength(infer, given, scales ? "scales" : "sizes");
  if (failed(length))
    return failure();
  if (!ShapedType::isDynamic(*length) && *length != count)
    return infer.emitError(Twine(scales ? "scales" : "sizes") + " has " +
                           Twine(*length) + " entries but " + Twine(count) +
                           " axes are resized");
  SmallVector<int64_t> dims(type.getShape());
  std::optional<SmallVector<double>> values = getConstantNumbers(given);
  if (!values) {
    for (int64_t axis : axes)
      dims[axis] = kDynamic;
    results.push_back(type.clone(dims));
    return success();
  }
  for (double value : *values)
    if (value < 0 || (scales && value == 0))
      return infer.emitError(Twine(scales ? "scales" : "sizes") +
                             " must be positive");
  if (scales) {
    for (auto [axis, scale] : llvm::zip(axes, *values))
      if (!ShapedType::isDynamic(dims[axis])) {
        std::optional<int64_t> dim = dimFromDouble(
            std::floor(static_cast<double>(dims[axis]) * scale));
        if (!dim)
          return infer.emitError("scales make dim " + Twine(axis) +
                                 " too large");
        dims[axis] = *dim;
      }
    results.push_back(type.clone(dims));
    return success();
  }
  StringRef policy = adaptor.getKeepAspectRatioPolicy();
  if (policy == "stretch") {
    for (auto [axis, size] : llvm::zip(axes, *values)) {
      std::optional<int64_t> dim = dimFromDouble(size);
      if (!dim)
        return infer.emitError("sizes are too large");
      dims[axis] = *dim;
    }
    results.push_back(type.clone(dims));
    return success();
  }
  // not_larger / not_smaller: one scale for all axes, chosen from the
  // requested sizes; it needs every resized input dim.
  bool notLarger = policy == "not_larger";
  double scale = notLarger ? std::numeric_limits<double>::infinity() : 0.0;
  for (auto [axis, size] : llvm::zip(axes, *values)) {
    if (ShapedType::isDynamic(dims[axis])) {
      for (int64_t a : axes)
        dims[a] = kDynamic;
      results.push_back(type.clone(dims));
      return success();
    }
    double ratio = size / static_cast<double>(dims[axis]);
    scale = notLarger ? std::min(scale, ratio) : std::max(scale, ratio);
  }
  for (int64_t axis : axes) {
    std::optional<int64_t> dim =
        dimFromDouble(std::round(scale * static_cast<double>(dims[axis])));
    if (!dim)
      return infer.emitError("sizes are too large");
    dims[axis] = *dim;
  }
  results.push_back(type.clone(dims));
  return success();
}

LogicalResult RangeOp::inferResultTypes(const TypeInference &infer,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  Type elementType = rankedType(adaptor.getStart()).getElementType();
  for (Value operand : adaptor.getOperands()) {
    RankedTensorType type = rankedType(operand);
    if (type.getNumElements() != 1 || type.getRank() > 1)
      return infer.emitError("start, limit and delta must be scalars");
    if (type.getElementType() != elementType)
      return infer.emitError("start, limit and delta must have one element "
                             "type");
  }
  std::optional<SmallVector<double>> start =
      getConstantNumbers(adaptor.getStart());
  std::optional<SmallVector<double>> limit =
      getConstantNumbers(adaptor.getLimit());
  std::optional<SmallVector<double>> delta =
      getConstantNumbers(adaptor.getDelta());
  int64_t length = kDynamic;
  if (delta && delta->front() == 0)
    return infer.emitError("delta must not be zero");
  if (start && limit && delta) {
    double steps =
        std::ceil((limit->front() - start->front()) / delta->front());
    std::optional<int64_t> count = dimFromDouble(steps);
    if (!count)
      return infer.emitError("the range has too many elements");
    length = *count;
  }
  results.push_back(RankedTensorType::get({length}, elementType));
  return success();
}

LogicalResult TriluOp::inferResultTypes(const TypeInference &infer,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  if (rankedType(adaptor.getInput()).getRank() < 2)
    return infer.emitError("input must have at least two dims");
  if (Value k = adaptor.getK())
    if (rankedType(k).getRank() != 0)
      return infer.emitError("k must be a scalar");
  return inferSameType(adaptor.getInput(), results);
}

LogicalResult OneHotOp::inferResultTypes(const TypeInference &infer,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  RankedTensorType indices = rankedType(adaptor.getIndices());
  RankedTensorType depthType = rankedType(adaptor.getDepth());
  RankedTensorType values = rankedType(adaptor.getValues());
  if (depthType.getRank() > 1 || depthType.getNumElements() != 1)
    return infer.emitError("depth must be a scalar");
  if (values.getRank() != 1 ||
      (!values.isDynamicDim(0) && values.getDimSize(0) != 2))
    return infer.emitError("values must be [off_value, on_value]");
  int64_t rank = indices.getRank() + 1;
  FailureOr<int64_t> axis = infer.normalizeAxis(adaptor.getAxis(), rank);
  if (failed(axis))
    return failure();
  int64_t depth = kDynamic;
  if (std::optional<SmallVector<double>> value =
          getConstantNumbers(adaptor.getDepth())) {
    if (!(value->front() >= 1))
      return infer.emitError("depth must be positive");
    std::optional<int64_t> dim = dimFromDouble(value->front());
    if (!dim)
      return infer.emitError("depth is too large");
    depth = *dim;
  }
  SmallVector<int64_t> dims(indices.getShape());
  dims.insert(dims.begin() + *axis, depth);
  results.push_back(RankedTensorType::get(dims, values.getElementType()));
  return success();
}

LogicalResult EyeLikeOp::inferResultTypes(const TypeInference &infer,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  RankedTensorType type = rankedType(adaptor.getInput());
  if (type.getRank() != 2)
    return infer.emitError("input must be 2-D");
  Type elementType = type.getElementType();
  if (std::optional<Type> dtype = adaptor.getDtype())
    elementType = *dtype;
  results.push_back(type.clone(elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// Image blocks
//===----------------------------------------------------------------------===//

/// Checks that the optional array attribute `name` has `length` entries.
static LogicalResult checkLength(const TypeInference &infer,
                                 std::optional<ArrayRef<int64_t>> values,
                                 StringRef name, int64_t length) {
  if (values && static_cast<int64_t>(values->size()) != length)
    return infer.emitError(name + " must have " + Twine(length) +
                           " entries but has " + Twine(values->size()));
  return success();
}

LogicalResult Col2ImOp::inferResultTypes(const TypeInference &infer,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  RankedTensorType type = rankedType(adaptor.getInput());
  if (type.getRank() != 3)
    return infer.emitError("input must have rank 3 ([N, C * prod(block), L])");
  FailureOr<VectorOperand> image =
      readVector(infer, adaptor.getImageShape(), "image_shape");
  FailureOr<VectorOperand> block =
      readVector(infer, adaptor.getBlockShape(), "block_shape");
  if (failed(image) || failed(block))
    return failure();
  int64_t nd = image->length;
  if (ShapedType::isDynamic(nd))
    return infer.emitError("image_shape must have a static length");
  if (block->length != nd)
    return infer.emitError("block_shape has " + Twine(block->length) +
                           " entries but image_shape has " + Twine(nd));
  if (failed(checkLength(infer, adaptor.getDilations(), "dilations", nd)) ||
      failed(checkLength(infer, adaptor.getStrides(), "strides", nd)) ||
      failed(checkLength(infer, adaptor.getPads(), "pads", 2 * nd)))
    return failure();
  SmallVector<int64_t> dims = {type.getDimSize(0), kDynamic};
  dims.append(image->values ? *image->values : dynamicDims(nd));
  int64_t columns = type.getDimSize(1), blocks = type.getDimSize(2);
  // The block alone gives the channels, with the image the grid of blocks.
  if (block->values) {
    if (llvm::any_of(*block->values, [](int64_t dim) { return dim < 1; }))
      return infer.emitError("block_shape must be positive");
    std::optional<int64_t> blockSize =
        checkedElementCount(block->values->data(), nd);
    if (!blockSize)
      return infer.emitError("the block is too large");
    if (!ShapedType::isDynamic(columns)) {
      if (columns % *blockSize != 0)
        return infer.emitError("input dim 1 (" + Twine(columns) +
                               ") is not a multiple of the block size " +
                               Twine(*blockSize));
      dims[1] = columns / *blockSize;
    }
  }
  if (image->values && block->values) {
    auto data = [](std::optional<ArrayRef<int64_t>> values) {
      return values ? values->data() : nullptr;
    };
    ConvWindow w;
    if (const char *error =
            col2imWindow(nd, image->values->data(), block->values->data(),
                         data(adaptor.getDilations()), data(adaptor.getPads()),
                         data(adaptor.getStrides()), w))
      return infer.emitError(error);
    std::optional<int64_t> blockCount = checkedElementCount(w.out, nd);
    if (!blockCount)
      return infer.emitError("the grid of blocks is too large");
    if (!ShapedType::isDynamic(blocks) && blocks != *blockCount)
      return infer.emitError("input dim 2 (" + Twine(blocks) +
                             ") is not the number of sliding blocks " +
                             Twine(*blockCount));
  }
  results.push_back(type.clone(dims));
  return success();
}

/// The shape MaxUnpool's indices address: [N, C, (in - 1) * stride - pads +
/// kernel...], dynamic where the input dim is.
static FailureOr<SmallVector<int64_t>>
unpooledShape(const TypeInference &infer, RankedTensorType x,
              ArrayRef<int64_t> kernel, std::optional<ArrayRef<int64_t>> pads,
              std::optional<ArrayRef<int64_t>> strides) {
  int64_t nd = x.getRank() - 2;
  if (nd < 1)
    return infer.emitError("input must have rank at least 3 ([N, C, ...])");
  if (failed(checkLength(infer, kernel, "kernel_shape", nd)) ||
      failed(checkLength(infer, strides, "strides", nd)) ||
      failed(checkLength(infer, pads, "pads", 2 * nd)))
    return failure();
  SmallVector<int64_t> dims = {x.getDimSize(0), x.getDimSize(1)};
  for (int64_t d = 0; d < nd; ++d) {
    int64_t in = x.getDimSize(d + 2);
    std::optional<int64_t> out =
        unpooledDim(ShapedType::isDynamic(in) ? 1 : in, kernel[d],
                    strides ? (*strides)[d] : 1, pads ? (*pads)[d] : 0,
                    pads ? (*pads)[nd + d] : 0);
    if (!out)
      return infer.emitError("kernel_shape, strides and pads make unpooled "
                             "dim " +
                             Twine(d + 2) + " invalid");
    dims.push_back(ShapedType::isDynamic(in) ? kDynamic : *out);
  }
  return dims;
}

LogicalResult MaxUnpoolOp::inferResultTypes(const TypeInference &infer,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  RankedTensorType x = rankedType(adaptor.getX());
  RankedTensorType indices = rankedType(adaptor.getI());
  if (indices.getRank() != x.getRank() ||
      failed(verifyCompatibleShape(x.getShape(), indices.getShape())))
    return infer.emitError("indices must have the input's shape");
  FailureOr<SmallVector<int64_t>> unpooled =
      unpooledShape(infer, x, adaptor.getKernelShape(), adaptor.getPads(),
                    adaptor.getStrides());
  if (failed(unpooled))
    return failure();
  if (!adaptor.getOutputShape()) {
    results.push_back(x.clone(*unpooled));
    return success();
  }
  FailureOr<VectorOperand> shape =
      readVector(infer, adaptor.getOutputShape(), "output_shape");
  if (failed(shape))
    return failure();
  if (shape->length != x.getRank())
    return infer.emitError("output_shape must have " + Twine(x.getRank()) +
                           " entries");
  if (!shape->values) {
    results.push_back(x.clone(dynamicDims(x.getRank())));
    return success();
  }
  for (auto [d, dim, least] : llvm::enumerate(*shape->values, *unpooled)) {
    bool batchOrChannel = d < 2;
    if (ShapedType::isDynamic(least)
            ? dim < 0
            : (batchOrChannel ? dim != least : dim < least))
      return infer.emitError("output_shape dim " + Twine(d) + " (" +
                             Twine(dim) + ") cannot hold the unpooled dim " +
                             Twine(least));
  }
  results.push_back(x.clone(*shape->values));
  return success();
}

} // namespace graphc::graph
