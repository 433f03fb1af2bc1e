//===- VersionNormalization.cpp - ONNX nodes in their newest form ---------===//

#include "lib/Import/ONNX/VersionNormalization.h"
#include "lib/Import/ONNX/QuantizationImport.h"
#include "lib/Import/ONNX/RecurrentExpansion.h"

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"
#include "dialects/Graph/HostEval.h"
#include "lib/Support/CheckedArith.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>

namespace graphc::onnx_import {

using namespace mlir;

using NodeResults = FailureOr<SmallVector<Value>>;

size_t inputSlotCount(llvm::StringRef opType, size_t given) {
  // Only ops with optional inputs after the last given one need an entry:
  // the count includes every optional slot of the newest form.
  size_t slots = llvm::StringSwitch<size_t>(opType)
                     .Cases("Conv", "ConvTranspose", "Gemm", "MaxUnpool", 3)
                     .Cases("Clip", "LayerNormalization", "Dropout", 3)
                     .Cases("ReduceSum", "ReduceMean", "ReduceMax", 2)
                     .Cases("ReduceMin", "ReduceProd", "ReduceL1", 2)
                     .Cases("ReduceL2", "ReduceLogSum", "ReduceLogSumExp", 2)
                     .Cases("ReduceSumSquare", "Squeeze", "Split", "Trilu", 2)
                     .Cases("Slice", "NonMaxSuppression", 5)
                     .Cases("QuantizeLinear", "DequantizeLinear", 3)
                     .Cases("MatMulInteger", "ConvInteger", 4)
                     .Case("QLinearConv", 9)
                     .Cases("Pad", "Resize", "STFT", 4)
                     .Case("DFT", 3)
                     .Default(0);
  return std::max(slots, given);
}

bool isDataTypeAttribute(llvm::StringRef opType, llvm::StringRef name) {
  return (opType == "Cast" && name == "to") ||
         (opType == "EyeLike" && name == "dtype") ||
         (opType == "MelWeightMatrix" && name == "output_datatype");
}

static NodeResults importGeneric(NodeBuilder &builder, NodeInfo &info) {
  return builder.create(info.mnemonic, info.inputs, info.attributes);
}

static NodeResults single(FailureOr<Value> value) {
  if (failed(value))
    return failure();
  return SmallVector<Value>{*value};
}

static NamedAttribute namedI64(NodeBuilder &builder, llvm::StringRef name,
                               int64_t value) {
  OpBuilder &b = builder.getBuilder();
  return b.getNamedAttr(name, b.getI64IntegerAttr(value));
}

/// Moves the INTS attribute `name` (the pre-opset-13/18 form) into input slot
/// `slot` as a 1-D i64 constant (the newer form).
static void moveAttributeToInput(NodeBuilder &builder, NodeInfo &info,
                                 llvm::StringRef name, size_t slot) {
  auto values = dyn_cast_or_null<DenseI64ArrayAttr>(info.attributes.get(name));
  if (!values)
    return;
  info.attributes.erase(name);
  if (info.inputs.size() <= slot)
    info.inputs.resize(slot + 1);
  if (!info.inputs[slot])
    info.inputs[slot] = builder.i64Constant(values.asArrayRef());
}

//===----------------------------------------------------------------------===//
// Attributes that became inputs
//===----------------------------------------------------------------------===//

/// Squeeze and Unsqueeze took `axes` as an attribute before opset 13.
static NodeResults importSqueeze(NodeBuilder &builder, NodeInfo &info) {
  if (info.opset < 13)
    moveAttributeToInput(builder, info, "axes", 1);
  // A scalar axis, which ONNX's own function bodies (AffineGrid) and
  // onnxruntime accept, is the 1-D list of that one axis.
  if (info.inputs.size() > 1 && info.inputs[1]) {
    auto type = dyn_cast<RankedTensorType>(info.inputs[1].getType());
    if (type && type.getRank() == 0) {
      FailureOr<Value> axes = builder.createValue(
          "reshape", {info.inputs[1], builder.i64Constant({1})}, {});
      if (failed(axes))
        return failure();
      info.inputs[1] = *axes;
    }
  }
  return importGeneric(builder, info);
}

/// ReduceSum took `axes` as an attribute before opset 13, the other
/// reductions before opset 18.
static NodeResults importReduction(NodeBuilder &builder, NodeInfo &info) {
  int64_t inputSince = info.node.op_type() == "ReduceSum" ? 13 : 18;
  if (info.opset < inputSince)
    moveAttributeToInput(builder, info, "axes", 1);
  return importGeneric(builder, info);
}

/// Split took `split` as an attribute before opset 13 and had no
/// `num_outputs` before 18; graph.split always carries num_outputs.
static NodeResults importSplit(NodeBuilder &builder, NodeInfo &info) {
  if (info.opset < 13)
    moveAttributeToInput(builder, info, "split", 1);
  info.attributes.set("num_outputs", builder.getBuilder().getI64IntegerAttr(
                                         info.node.output_size()));
  return importGeneric(builder, info);
}

//===----------------------------------------------------------------------===//
// Semantics that changed
//===----------------------------------------------------------------------===//

/// Softmax, LogSoftmax and Hardmax before opset 13 coerce the input to 2-D
/// at `axis` (default 1) and normalise each row: flatten, normalise the last
/// axis, and reshape back.
static NodeResults importSoftmaxFamily(NodeBuilder &builder, NodeInfo &info) {
  if (info.opset >= 13)
    return importGeneric(builder, info);
  Value input = info.inputs.front();
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type)
    return emitError(builder.getLoc())
           << "unsupported: " << info.node.op_type()
           << " before opset 13 needs an input of known rank";
  int64_t rank = type.getRank();
  int64_t axis = 1;
  if (auto attr = dyn_cast_or_null<IntegerAttr>(info.attributes.get("axis")))
    axis = attr.getInt();
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    return emitError(builder.getLoc())
           << "axis " << axis << " is out of range for rank " << rank;
  if (axis < 0)
    axis += rank;

  NamedAttribute lastAxis = namedI64(builder, "axis", -1);
  if (axis == rank - 1)
    return single(builder.createValue(info.mnemonic, {input}, {lastAxis}));
  FailureOr<Value> rows = builder.createValue(
      "flatten", {input}, {namedI64(builder, "axis", axis)});
  if (failed(rows))
    return failure();
  FailureOr<Value> normalized =
      builder.createValue(info.mnemonic, {*rows}, {lastAxis});
  if (failed(normalized))
    return failure();
  Value shape;
  if (type.hasStaticShape()) {
    shape = builder.i64Constant(type.getShape());
  } else {
    FailureOr<Value> dynamicShape = builder.createValue("shape", {input}, {});
    if (failed(dynamicShape))
      return failure();
    shape = *dynamicShape;
  }
  // The shape holds exact dims, zeros included.
  return single(builder.createValue("reshape", {*normalized, shape},
                                    {namedI64(builder, "allowzero", 1)}));
}

/// GroupNormalization-18 takes scale and bias per group; opset 21 (the graph
/// op) per channel. Constant per-group values are repeated per channel.
static NodeResults importGroupNormalization(NodeBuilder &builder,
                                            NodeInfo &info) {
  if (info.opset >= 21)
    return importGeneric(builder, info);
  auto groups =
      dyn_cast_or_null<IntegerAttr>(info.attributes.get("num_groups"));
  if (!groups || groups.getInt() <= 0)
    return emitError(builder.getLoc()) << "num_groups must be positive";
  auto inputType = dyn_cast<RankedTensorType>(info.inputs[0].getType());
  if (!inputType || inputType.getRank() < 2 || inputType.isDynamicDim(1))
    return emitError(builder.getLoc())
           << "unsupported: GroupNormalization before opset 21 needs a static "
              "channel dim";
  int64_t channels = inputType.getDimSize(1);
  int64_t numGroups = groups.getInt();
  if (channels % numGroups != 0)
    return emitError(builder.getLoc())
           << channels << " channels do not divide into " << numGroups
           << " groups";
  for (size_t slot : {1, 2}) {
    ElementsAttr perGroup;
    if (slot >= info.inputs.size() || !info.inputs[slot] ||
        !matchPattern(info.inputs[slot], m_Constant(&perGroup)))
      return emitError(builder.getLoc())
             << "unsupported: GroupNormalization before opset 21 needs "
                "constant scale and bias";
    auto type = cast<ShapedType>(perGroup.getType());
    FailureOr<std::vector<char>> bytes = graph::constantBytes(perGroup);
    if (failed(bytes) || type.getRank() != 1 || type.getDimSize(0) != numGroups)
      return emitError(builder.getLoc())
             << (slot == 1 ? "scale" : "bias") << " must hold " << numGroups
             << " values, one per group";
    size_t elementSize = bytes->size() / numGroups;
    std::vector<char> perChannel;
    perChannel.reserve(elementSize * channels);
    for (int64_t channel = 0; channel < channels; ++channel) {
      auto group = bytes->begin() + (channel / (channels / numGroups)) *
                                        static_cast<int64_t>(elementSize);
      perChannel.insert(perChannel.end(), group, group + elementSize);
    }
    auto channelType = RankedTensorType::get({channels}, type.getElementType());
    info.inputs[slot] =
        builder.constant(graph::constantFromBytes(channelType, perChannel));
  }
  return importGeneric(builder, info);
}

/// BatchNormalization imports in inference mode only.
static NodeResults importBatchNormalization(NodeBuilder &builder,
                                            NodeInfo &info) {
  auto training =
      dyn_cast_or_null<IntegerAttr>(info.attributes.get("training_mode"));
  bool trainingOutputs =
      llvm::any_of(llvm::drop_begin(info.node.output()),
                   [](const std::string &name) { return !name.empty(); });
  if ((training && training.getInt() != 0) || trainingOutputs)
    return emitError(builder.getLoc())
           << "unsupported: BatchNormalization in training mode (running "
              "mean and variance outputs)";
  info.attributes.erase("training_mode");
  return importGeneric(builder, info);
}

/// GridSample-16 names its modes "bilinear" and "bicubic" (opset 20:
/// "linear", "cubic") and samples 4-D inputs only.
static NodeResults importGridSample(NodeBuilder &builder, NodeInfo &info) {
  if (info.opset >= 20)
    return importGeneric(builder, info);
  auto rank = cast<ShapedType>(info.inputs[0].getType()).getRank();
  if (rank != 4)
    return emitError(builder.getLoc())
           << "GridSample before opset 20 takes a 4-D input, not " << rank
           << "-D";
  if (auto mode = dyn_cast_or_null<StringAttr>(info.attributes.get("mode"))) {
    StringRef renamed = llvm::StringSwitch<StringRef>(mode.getValue())
                            .Case("bilinear", "linear")
                            .Case("bicubic", "cubic")
                            .Case("nearest", "nearest")
                            .Default("");
    if (renamed.empty())
      return emitError(builder.getLoc())
             << "GridSample before opset 20: mode must be one of "
                "\"bilinear\", \"nearest\", \"bicubic\", got \""
             << mode.getValue() << "\"";
    info.attributes.set("mode", builder.getBuilder().getStringAttr(renamed));
  }
  return importGeneric(builder, info);
}

/// RoiAlign before opset 16 has no coordinate_transformation_mode and
/// computes as "output_half_pixel" (no half-pixel shift, boxes at least
/// 1x1); the graph op's default is opset 16's "half_pixel".
static NodeResults importRoiAlign(NodeBuilder &builder, NodeInfo &info) {
  if (info.opset < 16)
    info.attributes.set(
        "coordinate_transformation_mode",
        builder.getBuilder().getStringAttr("output_half_pixel"));
  return importGeneric(builder, info);
}

//===----------------------------------------------------------------------===//
// Ops that become other graph ops
//===----------------------------------------------------------------------===//

/// Dropout in inference, or in training with a ratio of 0, is the identity
/// and its mask all true. Training with another ratio draws random masks.
static NodeResults importDropout(NodeBuilder &builder, NodeInfo &info) {
  if (info.inputs.size() > 2 && info.inputs[2]) {
    std::optional<SmallVector<int64_t>> mode =
        graph::getConstantInts(info.inputs[2]);
    if (!mode) {
      // Model inputs can be bound at compile time; name them.
      InFlightDiagnostic diag =
          emitError(builder.getLoc())
          << "unsupported: Dropout training_mode must be a constant";
      std::string flags;
      for (int slot : {2, 1})
        if (info.inputs[slot] && isa<BlockArgument>(info.inputs[slot]) &&
            !graph::getScalarConstant(info.inputs[slot]))
          flags += " --const-input " + info.node.input(slot) + "=FILE.npy";
      if (!flags.empty())
        diag << "; bind "
             << (flags.find("=FILE.npy --") != std::string::npos
                     ? "training_mode and ratio"
                     : "it")
             << " at compile time with" << flags;
      return diag;
    }
    bool training = llvm::any_of(*mode, [](int64_t v) { return v != 0; });
    // The ratio defaults to 0.5.
    std::optional<double> ratio =
        info.inputs[1] ? graph::getScalarConstant(info.inputs[1]) : 0.5;
    if (training && (!ratio || *ratio != 0))
      return emitError(builder.getLoc())
             << "unsupported: Dropout in training mode with a ratio other "
                "than a constant 0 (random masks)";
  }
  Value data = info.inputs[0];
  FailureOr<Value> output = builder.createValue("identity", {data}, {});
  if (failed(output))
    return failure();
  SmallVector<Value> results = {*output};
  if (info.node.output_size() > 1 && !info.node.output(1).empty()) {
    FailureOr<Value> shape = builder.createValue("shape", {data}, {});
    if (failed(shape))
      return failure();
    OpBuilder &b = builder.getBuilder();
    auto allTrue =
        DenseElementsAttr::get(RankedTensorType::get({1}, b.getI1Type()), true);
    FailureOr<Value> mask = builder.createValue(
        "constant_of_shape", {*shape}, {b.getNamedAttr("value", allTrue)});
    if (failed(mask))
      return failure();
    results.push_back(*mask);
  }
  return results;
}

/// MaxPool whose Indices output is used is graph.max_pool_with_indices.
static NodeResults importMaxPool(NodeBuilder &builder, NodeInfo &info) {
  if (info.node.output_size() > 1 && !info.node.output(1).empty())
    return builder.create("max_pool_with_indices", info.inputs,
                          info.attributes);
  return importGeneric(builder, info);
}

/// Cast to UINT4 or INT4: GraphImporter gives `to` as ui4 or i4.
static NodeResults importCast(NodeBuilder &builder, NodeInfo &info) {
  auto to = dyn_cast_or_null<TypeAttr>(info.attributes.get("to"));
  auto integer = to ? dyn_cast<IntegerType>(to.getValue()) : nullptr;
  if (integer && integer.getWidth() == 4)
    return importFourBitCast(builder, info.inputs[0],
                             integer.isUnsigned() ? 21 : 22);
  return importGeneric(builder, info);
}

/// CastLike is a cast to the element type of its second input.
static NodeResults importCastLike(NodeBuilder &builder, NodeInfo &info) {
  if (info.fourBitInputs.size() > 1 && info.fourBitInputs[1])
    return importFourBitCast(builder, info.inputs[0], info.fourBitInputs[1]);
  Type target = cast<ShapedType>(info.inputs[1].getType()).getElementType();
  info.attributes.set("to", TypeAttr::get(target));
  return single(
      builder.createValue(info.mnemonic, {info.inputs[0]}, info.attributes));
}

/// Constant holds its value in one of several attributes.
static NodeResults importConstant(NodeBuilder &builder, NodeInfo &info) {
  OpBuilder &b = builder.getBuilder();
  if (info.attributes.getAttrs().size() != 1)
    return emitError(builder.getLoc())
           << "Constant must have exactly one value attribute";
  NamedAttribute named = *info.attributes.begin();
  llvm::StringRef name = named.getName().getValue();
  Attribute value = named.getValue();
  ElementsAttr elements;
  if (name == "value") {
    elements = dyn_cast<ElementsAttr>(value);
  } else if (name == "value_float") {
    elements = DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                      value);
  } else if (name == "value_int") {
    elements = DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                                      value);
  } else if (auto floats = dyn_cast<DenseF32ArrayAttr>(value);
             floats && name == "value_floats") {
    elements = DenseElementsAttr::get(
        RankedTensorType::get({floats.size()}, b.getF32Type()),
        floats.asArrayRef());
  } else if (auto ints = dyn_cast<DenseI64ArrayAttr>(value);
             ints && name == "value_ints") {
    elements = DenseElementsAttr::get(
        RankedTensorType::get({ints.size()}, b.getI64Type()),
        ints.asArrayRef());
  }
  if (!elements)
    return emitError(builder.getLoc())
           << "unsupported: Constant attribute '" << name << "'";
  return SmallVector<Value>{builder.constant(elements)};
}

/// CenterCropPad centres the input in `shape` along `axes`: its function
/// definition pads (size - dim) / 2 zeros before and the rest after, or
/// crops (dim - size) / 2 before and the rest after. That is one graph.pad
/// whose negative pads crop, before = (size - dim) / 2 rounded toward zero
/// (graph.div on integers). The pads are computed by graph ops, which fold
/// when `shape` is a constant (or bound with --const-input); otherwise the
/// result dims are dynamic and `shape` is a shape input like a Reshape's.
static NodeResults importCenterCropPad(NodeBuilder &builder, NodeInfo &info) {
  OpBuilder &b = builder.getBuilder();
  auto type = cast<RankedTensorType>(info.inputs[0].getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes;
  if (auto attr =
          dyn_cast_or_null<DenseI64ArrayAttr>(info.attributes.get("axes"))) {
    for (int64_t axis : attr.asArrayRef()) {
      if (axis < -rank || axis >= rank)
        return emitError(builder.getLoc())
               << "axis " << axis << " is out of range for rank " << rank;
      axis = axis < 0 ? axis + rank : axis;
      if (llvm::is_contained(axes, axis))
        return emitError(builder.getLoc()) << "axis " << axis << " repeats";
      axes.push_back(axis);
    }
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  Value shape = info.inputs[1];
  auto shapeType = cast<RankedTensorType>(shape.getType());
  if (shapeType.getRank() != 1 ||
      (!shapeType.isDynamicDim(0) &&
       shapeType.getDimSize(0) != static_cast<int64_t>(axes.size())))
    return emitError(builder.getLoc())
           << "shape must be a 1-D tensor of " << axes.size()
           << " values, one per axis";
  if (std::optional<SmallVector<int64_t>> sizes = graph::getConstantInts(shape))
    for (int64_t size : *sizes)
      if (size < 0)
        return emitError(builder.getLoc())
               << "shape has a negative dim " << size;
  Value axesValue = builder.i64Constant(axes);
  auto zero = b.getNamedAttr("axis", b.getI64IntegerAttr(0));
  if (!shapeType.getElementType().isInteger(64)) {
    FailureOr<Value> wide = builder.createValue(
        "cast", {shape}, {b.getNamedAttr("to", TypeAttr::get(b.getI64Type()))});
    if (failed(wide))
      return failure();
    shape = *wide;
  }
  FailureOr<Value> dims = builder.createValue("shape", {info.inputs[0]}, {});
  if (failed(dims))
    return failure();
  FailureOr<Value> current =
      builder.createValue("gather", {*dims, axesValue}, {zero});
  if (failed(current))
    return failure();
  FailureOr<Value> difference =
      builder.createValue("sub", {shape, *current}, {});
  if (failed(difference))
    return failure();
  FailureOr<Value> before =
      builder.createValue("div", {*difference, builder.i64Constant({2})}, {});
  if (failed(before))
    return failure();
  FailureOr<Value> after =
      builder.createValue("sub", {*difference, *before}, {});
  if (failed(after))
    return failure();
  FailureOr<Value> pads =
      builder.createValue("concat", {*before, *after}, {zero});
  if (failed(pads))
    return failure();
  return single(builder.createValue(
      "pad", {info.inputs[0], *pads, Value(), axesValue}, {}));
}

//===----------------------------------------------------------------------===//
// Signal ops
//===----------------------------------------------------------------------===//

llvm::ArrayRef<unsigned> importTimeConstantSlots(llvm::StringRef opType) {
  static const unsigned kStft[] = {1, 3};
  static const unsigned kMelWeightMatrix[] = {0, 1, 2, 3, 4};
  if (opType == "STFT")
    return kStft;
  if (opType == "MelWeightMatrix")
    return kMelWeightMatrix;
  return {};
}

static Value i64Scalar(NodeBuilder &builder, int64_t value) {
  auto type = RankedTensorType::get({}, builder.getBuilder().getI64Type());
  return builder.constant(DenseElementsAttr::get(type, value));
}

/// The constant scalar in input `slot` (importTimeConstantSlots made sure
/// it is a constant when present).
static FailureOr<int64_t> scalarInput(NodeBuilder &builder, NodeInfo &info,
                                      size_t slot, llvm::StringRef name) {
  std::optional<SmallVector<int64_t>> value =
      graph::getConstantInts(info.inputs[slot]);
  if (!value || value->size() != 1)
    return emitError(builder.getLoc()) << name << " must be a scalar";
  return value->front();
}

/// DFT took `axis` as an attribute (default 1) before opset 20, which made
/// it an optional input (default -2).
static NodeResults importDft(NodeBuilder &builder, NodeInfo &info) {
  if (info.opset < 20) {
    int64_t axis = 1;
    if (auto attr = dyn_cast_or_null<IntegerAttr>(info.attributes.get("axis")))
      axis = attr.getInt();
    info.attributes.erase("axis");
    info.inputs.resize(3);
    info.inputs[2] = i64Scalar(builder, axis);
  }
  return importGeneric(builder, info);
}

/// STFT is the DFT of the signal's frames (a gather of constant positions)
/// times the window: frame f holds samples [f * frame_step, + frame_size).
static NodeResults importStft(NodeBuilder &builder, NodeInfo &info) {
  Value signal = info.inputs[0];
  auto type = dyn_cast<RankedTensorType>(signal.getType());
  if (!type || type.getRank() != 3 || type.isDynamicDim(1))
    return emitError(builder.getLoc())
           << "unsupported: STFT needs a signal [batch, length, 1 or 2] of "
              "static length";
  int64_t length = type.getDimSize(1);
  FailureOr<int64_t> step = scalarInput(builder, info, 1, "frame_step");
  if (failed(step))
    return failure();
  if (*step < 1)
    return emitError(builder.getLoc()) << "frame_step must be positive";
  Value window = info.inputs[2];
  int64_t windowLength = 0;
  if (window) {
    auto windowType = dyn_cast<RankedTensorType>(window.getType());
    if (!windowType || windowType.getRank() != 1 || windowType.isDynamicDim(0))
      return emitError(builder.getLoc())
             << "window must be 1-D of static length";
    windowLength = windowType.getDimSize(0);
  }
  // The DFT size: frame_length, else the window's length, else the signal's.
  int64_t frameLength = window ? windowLength : length;
  if (info.inputs[3]) {
    FailureOr<int64_t> given = scalarInput(builder, info, 3, "frame_length");
    if (failed(given))
      return failure();
    frameLength = *given;
  }
  if (frameLength < 1 || frameLength > length)
    return emitError(builder.getLoc())
           << "frame_length " << frameLength
           << " must be in [1, the signal length " << length << "]";
  // Each frame holds the window's length of samples, which the DFT then
  // pads or truncates to frame_length.
  int64_t frameSize = window ? windowLength : frameLength;
  int64_t frames = 1 + (length - frameLength) / *step;
  std::optional<int64_t> positions = checkedMul(frames, frameSize);
  if (frameSize < 1 || !positions || *positions > (int64_t(1) << 24) ||
      (frames - 1) * *step + frameSize > length)
    return emitError(builder.getLoc())
           << "unsupported: STFT frames of " << frameSize
           << " samples that do not fit in the signal length " << length;
  SmallVector<int64_t> indices;
  indices.reserve(*positions);
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t k = 0; k < frameSize; ++k)
      indices.push_back(f * *step + k);
  auto indexType = RankedTensorType::get({frames, frameSize},
                                         builder.getBuilder().getI64Type());
  FailureOr<Value> framed = builder.createValue(
      "gather",
      {signal, builder.constant(DenseElementsAttr::get(
                   indexType, llvm::ArrayRef<int64_t>(indices)))},
      {namedI64(builder, "axis", 1)});
  if (failed(framed))
    return failure();
  if (window) {
    FailureOr<Value> column = builder.createValue(
        "reshape", {window, builder.i64Constant({frameSize, 1})}, {});
    if (failed(column))
      return failure();
    framed = builder.createValue("mul", {*framed, *column}, {});
    if (failed(framed))
      return failure();
  }
  int64_t onesided = 1;
  if (auto attr =
          dyn_cast_or_null<IntegerAttr>(info.attributes.get("onesided")))
    onesided = attr.getInt();
  Value dftLength =
      frameLength == frameSize ? Value() : i64Scalar(builder, frameLength);
  return single(builder.createValue("dft",
                                    {*framed, dftLength, i64Scalar(builder, 2)},
                                    {namedI64(builder, "onesided", onesided)}));
}

/// MelWeightMatrix is computed at import, as onnx's reference computes it:
/// the triangular filters of num_mel_bins bands between the mel points
/// equally spaced from mel(lower_edge_hertz) to mel(upper_edge_hertz), over
/// dft_length / 2 + 1 spectrogram bins.
static NodeResults importMelWeightMatrix(NodeBuilder &builder, NodeInfo &info) {
  FailureOr<int64_t> melBins = scalarInput(builder, info, 0, "num_mel_bins");
  FailureOr<int64_t> dftLength = scalarInput(builder, info, 1, "dft_length");
  FailureOr<int64_t> sampleRate = scalarInput(builder, info, 2, "sample_rate");
  if (failed(melBins) || failed(dftLength) || failed(sampleRate))
    return failure();
  std::optional<SmallVector<double>> lower =
      graph::getConstantNumbers(info.inputs[3]);
  std::optional<SmallVector<double>> upper =
      graph::getConstantNumbers(info.inputs[4]);
  if (!lower || lower->size() != 1 || !upper || upper->size() != 1)
    return emitError(builder.getLoc())
           << "lower_edge_hertz and upper_edge_hertz must be scalars";
  if (*melBins < 1 || *dftLength < 1 || *sampleRate < 1)
    return emitError(builder.getLoc())
           << "num_mel_bins, dft_length and sample_rate must be positive";
  int64_t spectrogramBins = *dftLength / 2 + 1;
  std::optional<int64_t> elements = checkedMul(spectrogramBins, *melBins);
  if (!elements || *elements > (int64_t(1) << 24))
    return emitError(builder.getLoc())
           << "a MelWeightMatrix of " << spectrogramBins << " x " << *melBins
           << " is too large";
  // The mel edges in float, as the reference computes them from its float
  // inputs; the points in double.
  auto mel = [](double hertz) {
    return static_cast<float>(
        2595.0f * static_cast<float>(std::log10(1.0f + float(hertz) / 700.0f)));
  };
  float lowMel = mel(lower->front()), highMel = mel(upper->front());
  float melStep = (highMel - lowMel) / static_cast<float>(*melBins + 2);
  SmallVector<int64_t> points;
  for (int64_t i = 0; i < *melBins + 2; ++i) {
    double hertz =
        700.0 * (std::pow(10.0, (double(i) * double(melStep) + double(lowMel)) /
                                    2595.0) -
                 1.0);
    double point = std::floor(double(*dftLength + 1) * hertz /
                              static_cast<double>(*sampleRate));
    if (!(point >= 0) || point >= double(spectrogramBins))
      return emitError(builder.getLoc())
             << "the mel band edges fall outside the " << spectrogramBins
             << " spectrogram bins";
    points.push_back(static_cast<int64_t>(point));
  }
  SmallVector<double> weights(*elements, 0.0);
  auto at = [&](int64_t bin, int64_t band) -> double & {
    return weights[bin * *melBins + band];
  };
  for (int64_t i = 0; i < *melBins; ++i) {
    int64_t left = points[i], center = points[i + 1], right = points[i + 2];
    if (center == left)
      at(center, i) = 1;
    else
      for (int64_t j = left; j <= center; ++j)
        at(j, i) = double(j - left) / double(center - left);
    for (int64_t j = center; j < right; ++j)
      at(j, i) = double(right - j) / double(right - center);
  }
  Type element = builder.getBuilder().getF32Type();
  if (auto attr =
          dyn_cast_or_null<TypeAttr>(info.attributes.get("output_datatype")))
    element = attr.getValue();
  auto resultType = RankedTensorType::get({spectrogramBins, *melBins}, element);
  SmallVector<Attribute> values;
  values.reserve(weights.size());
  for (double weight : weights) {
    if (auto floatType = dyn_cast<FloatType>(element))
      values.push_back(FloatAttr::get(floatType, weight));
    else if (isa<IntegerType>(element))
      values.push_back(IntegerAttr::get(element, static_cast<int64_t>(weight)));
    else
      return emitError(builder.getLoc())
             << "unsupported output_datatype " << element;
  }
  return SmallVector<Value>{
      builder.constant(DenseElementsAttr::get(resultType, values))};
}

FailureOr<SmallVector<Value>> importNode(NodeBuilder &builder, NodeInfo &info) {
  llvm::StringRef opType = info.node.op_type();
  using Importer = NodeResults (*)(NodeBuilder &, NodeInfo &);
  Importer importer =
      llvm::StringSwitch<Importer>(opType)
          .Cases("Squeeze", "Unsqueeze", importSqueeze)
          .StartsWith("Reduce", importReduction)
          .Case("Split", importSplit)
          .Cases("Softmax", "LogSoftmax", "Hardmax", importSoftmaxFamily)
          .Case("GroupNormalization", importGroupNormalization)
          .Case("BatchNormalization", importBatchNormalization)
          .Case("Dropout", importDropout)
          .Case("MaxPool", importMaxPool)
          .Case("Cast", importCast)
          .Case("CastLike", importCastLike)
          .Case("Constant", importConstant)
          .Case("GridSample", importGridSample)
          .Case("RoiAlign", importRoiAlign)
          .Case("CenterCropPad", importCenterCropPad)
          .Cases("LSTM", "GRU", "RNN", importRecurrent)
          .Case("QuantizeLinear", importQuantizeLinear)
          .Case("DequantizeLinear", importDequantizeLinear)
          .Case("MatMulInteger", importMatMulInteger)
          .Case("QLinearMatMul", importQLinearMatMul)
          .Case("ConvInteger", importConvInteger)
          .Case("QLinearConv", importQLinearConv)
          .Case("DFT", importDft)
          .Case("STFT", importStft)
          .Case("MelWeightMatrix", importMelWeightMatrix)
          .Default(importGeneric);
  return importer(builder, info);
}

} // namespace graphc::onnx_import
