//===- GraphVerifiers.cpp - invariants of graph ops -----------------------===//
//
// Invariants that result-type inference does not already enforce (it runs
// first, as part of verification, and rejects what it cannot type): channel
// counts, operand shapes that do not affect the result, enumerated string
// attributes and unsupported modes.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"
#include "lib/Support/Axis.h"
#include "lib/Support/RoiAlign.h"

using namespace mlir;
using namespace graphc::graph;

/// Fails with a message listing the allowed values of attribute `name`.
static LogicalResult verifyOneOf(Operation *op, StringRef name, StringRef value,
                                 ArrayRef<StringRef> allowed) {
  if (llvm::is_contained(allowed, value))
    return success();
  std::string list;
  for (auto [i, option] : llvm::enumerate(allowed))
    list += (i ? ", \"" : "\"") + option.str() + "\"";
  return op->emitOpError() << name << " must be one of " << list << ", got \""
                           << value << "\"";
}

/// Fails unless `value` has the 1-D shape [size] (unknown dims pass).
static LogicalResult verifyVectorOf(Operation *op, Value value, StringRef name,
                                    int64_t size, StringRef sizeName) {
  RankedTensorType type = rankedType(value);
  if (type.getRank() != 1)
    return op->emitOpError() << name << " must be a 1-D tensor";
  int64_t dim = type.getDimSize(0);
  if (!ShapedType::isDynamic(dim) && !ShapedType::isDynamic(size) &&
      dim != size)
    return op->emitOpError() << name << " has " << dim << " entries but "
                             << sizeName << " is " << size;
  return success();
}

/// Fails unless `value` is a scalar (rank 0 or one element) of `elementType`.
static LogicalResult verifyScalarOf(Operation *op, Value value, StringRef name,
                                    Type elementType) {
  RankedTensorType type = rankedType(value);
  if (type.getRank() > 1 || type.getNumElements() != 1)
    return op->emitOpError() << name << " must be a scalar";
  if (type.getElementType() != elementType)
    return op->emitOpError()
           << name << " must have the input's element type " << elementType;
  return success();
}

static LogicalResult verifyFlag(Operation *op, StringRef name, int64_t value) {
  if (value != 0 && value != 1)
    return op->emitOpError() << name << " must be 0 or 1, got " << value;
  return success();
}

/// `axis` counted from the front, or an error naming it when out of range.
static FailureOr<int64_t> verifyAxis(Operation *op, int64_t axis, int64_t rank,
                                     StringRef name = "axis") {
  std::optional<int64_t> normalized = graphc::normalizeAxis(axis, rank);
  if (!normalized)
    return op->emitOpError()
           << name << " " << axis << " is out of range for rank " << rank;
  return *normalized;
}

//===----------------------------------------------------------------------===//
// Constants and elementwise
//===----------------------------------------------------------------------===//

LogicalResult LoopOp::verify() {
  if (getMaxIterationsAttr().getInt() < 1)
    return emitOpError("needs max_iterations of at least 1");
  auto oneElement = [](Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    return !type.hasStaticShape() || type.getNumElements() == 1;
  };
  if (getTripCount() && !oneElement(getTripCount()))
    return emitOpError("needs a trip count of one element");
  if (getCondition() && !oneElement(getCondition()))
    return emitOpError("needs a condition of one element");
  Block &body = getBodyBlock();
  size_t carried = getInitial().size();
  if (body.getNumArguments() != 1 + carried)
    return emitOpError("has a body of ")
           << body.getNumArguments()
           << " arguments; it takes the iteration number and " << carried
           << " loop-carried values";
  auto iteration = dyn_cast<RankedTensorType>(body.getArgument(0).getType());
  if (!iteration || iteration.getRank() != 0 ||
      !iteration.getElementType().isInteger(64))
    return emitOpError("needs a tensor<i64> iteration number, not ")
           << body.getArgument(0).getType();
  auto yield = dyn_cast_or_null<YieldOp>(body.empty() ? nullptr : &body.back());
  if (!yield.getOperation() || yield.getValues().size() != 1 + carried)
    return emitOpError("needs a body yielding the condition and ")
           << carried << " loop-carried values";
  auto condition = cast<RankedTensorType>(yield.getValues()[0].getType());
  if (!condition.getElementType().isInteger(1) ||
      !oneElement(yield.getValues()[0]))
    return emitOpError("needs a body condition of one bool, not ") << condition;
  if (getNumResults() != carried)
    return emitOpError("has ") << getNumResults() << " results for " << carried
                               << " loop-carried values";
  for (size_t i = 0; i < carried; ++i) {
    Type type = getInitial()[i].getType();
    if (body.getArgument(1 + i).getType() != type ||
        yield.getValues()[1 + i].getType() != type ||
        getResult(i).getType() != type)
      return emitOpError("loop-carried value ")
             << i << " is " << type << " initially, "
             << body.getArgument(1 + i).getType() << " in the body, "
             << yield.getValues()[1 + i].getType() << " yielded and "
             << getResult(i).getType() << " as a result; a loop keeps one type";
  }
  return success();
}

LogicalResult ConstantOp::verify() {
  if (getValue().getType() != getOutput().getType())
    return emitOpError("value type ")
           << getValue().getType() << " does not match result type "
           << getOutput().getType();
  return success();
}

LogicalResult ConstantOfShapeOp::verify() {
  if (ElementsAttr value = getValueAttr())
    if (value.getNumElements() != 1)
      return emitOpError("value must have exactly one element");
  return success();
}

LogicalResult GeluOp::verify() {
  return verifyOneOf(*this, "approximate", getApproximate(), {"none", "tanh"});
}

LogicalResult ClipOp::verify() {
  Type elementType = getInput().getType().getElementType();
  if (Value min = getMin())
    if (failed(verifyScalarOf(*this, min, "min", elementType)))
      return failure();
  if (Value max = getMax())
    if (failed(verifyScalarOf(*this, max, "max", elementType)))
      return failure();
  return success();
}

LogicalResult QuantizeLinearOp::verify() {
  return verifyFlag(*this, "saturate", getSaturate());
}

LogicalResult DequantizeLinearOp::verify() {
  if (getZeroPoint().getType().getElementType() !=
      getX().getType().getElementType())
    return emitOpError("zero_point must have the element type of x");
  return success();
}

LogicalResult ModOp::verify() {
  if (failed(verifyFlag(*this, "fmod", getFmod())))
    return failure();
  if (isa<FloatType>(getLhs().getType().getElementType()) && getFmod() != 1)
    return emitOpError("float operands require fmod = 1");
  return success();
}

LogicalResult BitShiftOp::verify() {
  if (!getLhs().getType().getElementType().isUnsignedInteger())
    return emitOpError("operands must be unsigned integers");
  return verifyOneOf(*this, "direction", getDirection(), {"LEFT", "RIGHT"});
}

//===----------------------------------------------------------------------===//
// Convolution and pooling (window attributes are checked by inference)
//===----------------------------------------------------------------------===//

/// The group and channel invariants of a convolution (graph.conv,
/// graph.quantized_conv); the bias's is the caller's.
template <typename ConvT> static LogicalResult verifyConvChannels(ConvT op) {
  int64_t group = op.getGroup();
  if (group < 1)
    return op.emitOpError("group must be positive");
  if (failed(verifyFlag(op, "channels_last", op.getChannelsLast())))
    return failure();
  RankedTensorType x = op.getX().getType(), w = op.getW().getType();
  // Type inference reports ranks that differ, or too small.
  if (x.getRank() != w.getRank() || x.getRank() < 3)
    return success();
  // Channels first: [N, C, spatial...]; channels last: [N, spatial..., C].
  int64_t channelDim = op.getChannelsLast() ? x.getRank() - 1 : 1;
  int64_t channels = x.getDimSize(channelDim),
          perGroup = w.getDimSize(channelDim);
  if (!ShapedType::isDynamic(channels) && !ShapedType::isDynamic(perGroup) &&
      channels != perGroup * group)
    return op.emitOpError("input has ")
           << channels << " channels but the weight expects " << perGroup
           << " x group " << group;
  int64_t features = w.getDimSize(0);
  if (!ShapedType::isDynamic(features) && features % group != 0)
    return op.emitOpError("output channels (")
           << features << ") must be a multiple of group " << group;
  return success();
}

LogicalResult ConvOp::verify() {
  if (failed(verifyConvChannels(*this)))
    return failure();
  if (Value b = getB())
    return verifyVectorOf(*this, b, "bias", getW().getType().getDimSize(0),
                          "the output channels");
  return success();
}

LogicalResult QuantizedConvOp::verify() { return verifyConvChannels(*this); }

LogicalResult QuantizedMatMulOp::verify() {
  return verifyFlag(*this, "trans_b", getTransB());
}

LogicalResult ConvTransposeOp::verify() {
  int64_t group = getGroup();
  RankedTensorType x = getX().getType(), w = getW().getType();
  int64_t channels = x.getDimSize(1), weightChannels = w.getDimSize(0);
  if (!ShapedType::isDynamic(channels) &&
      !ShapedType::isDynamic(weightChannels) && channels != weightChannels)
    return emitOpError("input has ")
           << channels << " channels but the weight expects " << weightChannels;
  if (!ShapedType::isDynamic(channels) && channels % group != 0)
    return emitOpError("input channels (")
           << channels << ") must be a multiple of group " << group;
  if (Value b = getB())
    return verifyVectorOf(*this, b, "bias", getY().getType().getDimSize(1),
                          "the output channels");
  return success();
}

LogicalResult MaxPoolOp::verify() {
  if (failed(verifyFlag(*this, "ceil_mode", getCeilMode())))
    return failure();
  return verifyFlag(*this, "storage_order", getStorageOrder());
}

LogicalResult MaxPoolWithIndicesOp::verify() {
  if (failed(verifyFlag(*this, "ceil_mode", getCeilMode())))
    return failure();
  return verifyFlag(*this, "storage_order", getStorageOrder());
}

LogicalResult AveragePoolOp::verify() {
  if (failed(verifyFlag(*this, "ceil_mode", getCeilMode())))
    return failure();
  return verifyFlag(*this, "count_include_pad", getCountIncludePad());
}

LogicalResult LpPoolOp::verify() {
  if (failed(verifyFlag(*this, "ceil_mode", getCeilMode())))
    return failure();
  if (getP() < 1)
    return emitOpError("p must be positive, got ") << getP();
  return success();
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

/// Checks that each of `params` is a [C] vector for the channels of `input`.
static LogicalResult
verifyChannelParams(Operation *op, Value input,
                    ArrayRef<std::pair<Value, StringRef>> params) {
  RankedTensorType type = rankedType(input);
  if (type.getRank() < 2)
    return op->emitOpError("input must have a batch and a channel dim");
  for (auto [value, name] : params)
    if (failed(verifyVectorOf(op, value, name, type.getDimSize(1),
                              "the channel count")))
      return failure();
  return success();
}

LogicalResult BatchNormalizationOp::verify() {
  if (getTrainingMode() != 0)
    return emitOpError("training_mode is not supported, only inference "
                       "(training_mode = 0)");
  return verifyChannelParams(*this, getX(),
                             {{getScale(), "scale"},
                              {getB(), "B"},
                              {getInputMean(), "input_mean"},
                              {getInputVar(), "input_var"}});
}

LogicalResult InstanceNormalizationOp::verify() {
  if (getInput().getType().getRank() < 3)
    return emitOpError("input must have a batch, a channel and at least one "
                       "spatial dim");
  return verifyChannelParams(*this, getInput(),
                             {{getScale(), "scale"}, {getB(), "B"}});
}

/// Layer and RMS normalisation: `axis` is in range and every parameter
/// broadcasts to the normalised dims (those from `axis` on).
static LogicalResult
verifyLastAxesParams(Operation *op, TypedValue<RankedTensorType> x,
                     int64_t axis,
                     ArrayRef<std::pair<Value, StringRef>> params) {
  int64_t rank = x.getType().getRank();
  FailureOr<int64_t> front = verifyAxis(op, axis, rank);
  if (failed(front))
    return failure();
  ArrayRef<int64_t> normalized = x.getType().getShape().drop_front(*front);
  for (auto [value, name] : params) {
    if (!value)
      continue;
    FailureOr<SmallVector<int64_t>> shape =
        broadcastShapes(normalized, rankedType(value).getShape());
    if (failed(shape) || shape->size() != normalized.size())
      return op->emitOpError()
             << name << " does not broadcast to the normalised dims";
  }
  return success();
}

LogicalResult LayerNormalizationOp::verify() {
  // The attribute accessor returns uint64_t: pass its signed value.
  return verifyLastAxesParams(*this, getX(), static_cast<int64_t>(getAxis()),
                              {{getScale(), "scale"}, {getB(), "B"}});
}

LogicalResult RmsNormalizationOp::verify() {
  return verifyLastAxesParams(*this, getX(), static_cast<int64_t>(getAxis()),
                              {{getScale(), "scale"}});
}

LogicalResult GroupNormalizationOp::verify() {
  int64_t groups = getNumGroups();
  if (groups < 1)
    return emitOpError("num_groups must be positive, got ") << groups;
  int64_t channels = getX().getType().getRank() >= 2
                         ? getX().getType().getDimSize(1)
                         : ShapedType::kDynamic;
  if (!ShapedType::isDynamic(channels) && channels % groups != 0)
    return emitOpError("channels (")
           << channels << ") must be a multiple of num_groups " << groups;
  return verifyChannelParams(*this, getX(),
                             {{getScale(), "scale"}, {getBias(), "bias"}});
}

LogicalResult LpNormalizationOp::verify() {
  if (failed(verifyAxis(*this, getAxis(), getInput().getType().getRank())))
    return failure();
  if (getP() != 1 && getP() != 2)
    return emitOpError("p must be 1 or 2, got ") << getP();
  return success();
}

LogicalResult MeanVarianceNormalizationOp::verify() {
  int64_t rank = getInput().getType().getRank();
  SmallVector<bool> seen(rank, false);
  for (int64_t axis : getAxes()) {
    FailureOr<int64_t> normalized = verifyAxis(*this, axis, rank, "axes entry");
    if (failed(normalized))
      return failure();
    if (seen[*normalized])
      return emitOpError("axes repeats axis ") << axis;
    seen[*normalized] = true;
  }
  return success();
}

LogicalResult LrnOp::verify() {
  if (getSize() < 1)
    return emitOpError("size must be positive, got ") << getSize();
  if (getInput().getType().getRank() < 3)
    return emitOpError("input must have a batch, a channel and at least one "
                       "spatial dim");
  return success();
}

//===----------------------------------------------------------------------===//
// Normalised exponentials
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}

LogicalResult HardmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult DepthToSpaceOp::verify() {
  return verifyOneOf(*this, "mode", getMode(), {"DCR", "CRD"});
}

/// The reductions ScatterElements and ScatterND know.
static LogicalResult verifyScatterReduction(Operation *op,
                                            StringRef reduction) {
  return verifyOneOf(op, "reduction", reduction,
                     {"none", "add", "mul", "max", "min"});
}

LogicalResult ScatterElementsOp::verify() {
  if (failed(verifyScatterReduction(*this, getReduction())))
    return failure();
  RankedTensorType data = getData().getType();
  RankedTensorType indices = getIndices().getType();
  if (failed(verifyAxis(*this, getAxis(), data.getRank())))
    return failure();
  if (indices.getRank() != data.getRank())
    return emitOpError("indices must have the rank of the data");
  if (getUpdates().getType().getElementType() != data.getElementType())
    return emitOpError("updates must have the data's element type");
  if (!areCompatibleShapedTypes(getUpdates().getType(),
                                indices.clone(data.getElementType())))
    return emitOpError("updates must have the shape of the indices");
  return success();
}

LogicalResult ScatterNdOp::verify() {
  if (failed(verifyScatterReduction(*this, getReduction())))
    return failure();
  RankedTensorType data = getData().getType();
  RankedTensorType indices = getIndices().getType();
  RankedTensorType updates = getUpdates().getType();
  if (updates.getElementType() != data.getElementType())
    return emitOpError("updates must have the data's element type");
  if (indices.getRank() < 1)
    return emitOpError("indices must have at least one dim");
  int64_t depth = indices.getShape().back();
  if (ShapedType::isDynamic(depth))
    return success();
  if (depth < 1 || depth > data.getRank())
    return emitOpError("the last dim of indices (")
           << depth << ") must be in [1, rank(data)]";
  // updates = indices.shape[:-1] + data.shape[depth:]
  SmallVector<int64_t> expected(indices.getShape().drop_back());
  llvm::append_range(expected, data.getShape().drop_front(depth));
  if (!areCompatibleShapedTypes(updates, updates.clone(expected)))
    return emitOpError("updates must have shape indices.shape[:-1] + "
                       "data.shape[indices.shape[-1]:]");
  return success();
}

LogicalResult PadOp::verify() {
  if (failed(verifyOneOf(*this, "mode", getMode(),
                         {"constant", "reflect", "edge", "wrap"})))
    return failure();
  if (Value value = getConstantValue())
    return verifyScalarOf(*this, value, "constant_value",
                          getData().getType().getElementType());
  return success();
}

LogicalResult GridSampleOp::verify() {
  return failure(failed(verifyOneOf(*this, "mode", getMode(),
                                    {"linear", "nearest", "cubic"})) ||
                 failed(verifyOneOf(*this, "padding_mode", getPaddingMode(),
                                    {"zeros", "border", "reflection"})) ||
                 failed(verifyFlag(*this, "align_corners", getAlignCorners())));
}

LogicalResult RoiAlignOp::verify() {
  if (failed(verifyOneOf(*this, "mode", getMode(), {"avg", "max"})) ||
      failed(verifyOneOf(*this, "coordinate_transformation_mode",
                         getCoordinateTransformationMode(),
                         {"half_pixel", "output_half_pixel"})))
    return failure();
  int64_t ratio = getSamplingRatio();
  if (ratio < 0 || ratio > graphc::kRoiAlignMaxSamplesPerAxis)
    return emitOpError() << "sampling_ratio must be in [0, "
                         << graphc::kRoiAlignMaxSamplesPerAxis << "], got "
                         << ratio;
  return success();
}

LogicalResult AffineGridOp::verify() {
  return verifyFlag(*this, "align_corners", getAlignCorners());
}

LogicalResult ResizeOp::verify() {
  if (failed(verifyOneOf(*this, "mode", getMode(),
                         {"nearest", "linear", "cubic"})) ||
      failed(verifyOneOf(*this, "coordinate_transformation_mode",
                         getCoordinateTransformationMode(),
                         {"half_pixel", "half_pixel_symmetric",
                          "pytorch_half_pixel", "align_corners", "asymmetric",
                          "tf_crop_and_resize"})) ||
      failed(verifyOneOf(
          *this, "nearest_mode", getNearestMode(),
          {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})) ||
      failed(verifyOneOf(*this, "keep_aspect_ratio_policy",
                         getKeepAspectRatioPolicy(),
                         {"stretch", "not_larger", "not_smaller"})) ||
      failed(verifyFlag(*this, "antialias", getAntialias())) ||
      failed(verifyFlag(*this, "exclude_outside", getExcludeOutside())))
    return failure();
  if (getCoordinateTransformationMode() == "tf_crop_and_resize" && !getRoi())
    return emitOpError("tf_crop_and_resize needs a roi operand");
  return success();
}

LogicalResult ReverseSequenceOp::verify() {
  RankedTensorType type = getInput().getType();
  if (type.getRank() < 2)
    return emitOpError("input must have at least two dims");
  int64_t batchAxis = getBatchAxis(), timeAxis = getTimeAxis();
  if ((batchAxis != 0 && batchAxis != 1) || (timeAxis != 0 && timeAxis != 1) ||
      batchAxis == timeAxis)
    return emitOpError("batch_axis and time_axis must be 0 and 1 in some "
                       "order");
  return verifyVectorOf(*this, getSequenceLens(), "sequence_lens",
                        type.getDimSize(batchAxis), "the batch size");
}
