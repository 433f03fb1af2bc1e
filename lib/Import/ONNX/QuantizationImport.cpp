//===- QuantizationImport.cpp - ONNX quantization ops as graph ops --------===//

#include "lib/Import/ONNX/QuantizationImport.h"
#include "lib/Import/ONNX/TensorImport.h"

#include "lib/Support/Axis.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

namespace graphc::onnx_import {

using namespace mlir;

using NodeResults = FailureOr<SmallVector<Value>>;

namespace {

int64_t intAttribute(const NodeInfo &info, StringRef name, int64_t fallback) {
  if (auto attr = dyn_cast_or_null<IntegerAttr>(info.attributes.get(name)))
    return attr.getInt();
  return fallback;
}

/// The element types graph.quantize_linear produces.
bool isQuantizedInteger(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  return integer && (integer.getWidth() == 8 || integer.getWidth() == 16) &&
         !integer.isSigned();
}

/// A zero of `elementType` with rank 0.
Value zeroOf(NodeBuilder &builder, Type elementType) {
  auto type = RankedTensorType::get({}, elementType);
  return builder.constant(cast<ElementsAttr>(
      DenseElementsAttr::get(type, IntegerAttr::get(elementType, 0))));
}

/// `param` (a scale or zero point) as a value that broadcasts against x the
/// way ONNX applies it: a single value as a scalar, a per-axis vector of
/// x.shape[axis] entries as [n, 1, ..., 1], a blocked tensor (x's shape with
/// ceil(x.shape[axis] / blockSize) along `axis`) repeated to x's shape.
FailureOr<Value> broadcastParam(NodeBuilder &builder, Value param,
                                RankedTensorType xType, int64_t axisAttr,
                                int64_t blockSize, bool perAxisAllowed,
                                StringRef name) {
  auto fail = [&]() { return emitError(builder.getLoc()); };
  auto type = cast<RankedTensorType>(param.getType());
  int64_t rank = xType.getRank();
  if (type.hasStaticShape() && type.getNumElements() == 1) {
    if (type.getRank() == 0)
      return param;
    return builder.createValue("reshape", {param, builder.i64Constant({})}, {});
  }
  if (!perAxisAllowed)
    return fail() << name << " must be a scalar before opset 13";
  std::optional<int64_t> axis = normalizeAxis(axisAttr, rank);
  if (!axis)
    return fail() << "axis " << axisAttr << " is out of range for rank "
                  << rank;
  if (!type.hasStaticShape())
    return fail() << "unsupported: " << name
                  << " with a dynamic shape; graphc needs it static";
  int64_t dim = xType.getDimSize(*axis);
  if (blockSize < 0)
    return fail() << "block_size must not be negative, got " << blockSize;
  if (blockSize == 0) {
    if (type.getRank() != 1)
      return fail() << name << " must be a scalar or 1-D without block_size";
    if (ShapedType::isDynamic(dim) || type.getDimSize(0) != dim)
      return fail() << name << " has " << type.getDimSize(0)
                    << " entries but x has "
                    << (ShapedType::isDynamic(dim) ? std::string("?")
                                                   : std::to_string(dim))
                    << " along axis " << *axis;
    SmallVector<int64_t> dims(rank - *axis, 1);
    dims[0] = dim;
    return builder.createValue("reshape", {param, builder.i64Constant(dims)},
                               {});
  }
  // Blocked: x's shape but ceil(dim / blockSize) along the axis.
  if (type.getRank() != rank || ShapedType::isDynamic(dim))
    return fail() << "unsupported: blocked " << name
                  << " needs x's rank and a static dim along axis " << *axis;
  int64_t blocks = type.getDimSize(*axis);
  for (int64_t i = 0; i < rank; ++i)
    if (i != *axis && type.getDimSize(i) != xType.getDimSize(i))
      return fail() << name << " must have x's shape except along axis "
                    << *axis;
  // ceil(dim / blockSize) without overflow for any blockSize.
  int64_t expected = dim == 0 ? 0 : (dim - 1) / blockSize + 1;
  if (blocks != expected)
    return fail() << name << " has " << blocks << " blocks along axis " << *axis
                  << " but x's " << dim << " entries in blocks of " << blockSize
                  << " make " << expected;
  // One block spanning the axis broadcasts as it is; otherwise blockSize <
  // dim, so the repeated tensor is at most twice x's size.
  if (blocks <= 1)
    return param;
  SmallVector<int64_t> unsqueezed(type.getShape());
  unsqueezed.insert(unsqueezed.begin() + *axis + 1, 1);
  SmallVector<int64_t> expanded(unsqueezed);
  expanded[*axis + 1] = blockSize;
  SmallVector<int64_t> repeated(type.getShape());
  repeated[*axis] = blocks * blockSize;
  FailureOr<Value> value = builder.createValue(
      "reshape", {param, builder.i64Constant(unsqueezed)}, {});
  if (succeeded(value))
    value = builder.createValue("expand",
                                {*value, builder.i64Constant(expanded)}, {});
  if (succeeded(value))
    value = builder.createValue("reshape",
                                {*value, builder.i64Constant(repeated)}, {});
  if (succeeded(value) && blocks * blockSize != dim)
    value = builder.createValue("slice",
                                {*value, builder.i64Constant({0}),
                                 builder.i64Constant({dim}),
                                 builder.i64Constant({*axis}), Value()},
                                {});
  return value;
}

/// Scale and zero point of `info` (or values computed from them) broadcast
/// against x (see broadcastParam).
LogicalResult broadcastParams(NodeBuilder &builder, NodeInfo &info,
                              Value &scale, Value &zeroPoint) {
  auto xType = cast<RankedTensorType>(info.inputs[0].getType());
  int64_t axis = intAttribute(info, "axis", 1);
  int64_t blockSize = intAttribute(info, "block_size", 0);
  bool perAxis = info.opset >= 13;
  FailureOr<Value> s =
      broadcastParam(builder, scale, xType, axis, blockSize, perAxis, "scale");
  if (failed(s))
    return failure();
  scale = *s;
  if (!zeroPoint)
    return success();
  FailureOr<Value> z = broadcastParam(builder, zeroPoint, xType, axis,
                                      blockSize, perAxis, "zero point");
  if (failed(z))
    return failure();
  zeroPoint = *z;
  return success();
}

/// Whether `value` is a constant whose elements are all zero (of either
/// sign).
bool isConstantZero(Value value) {
  DenseElementsAttr dense;
  if (!matchPattern(value, m_Constant(&dense)))
    return false;
  if (isa<FloatType>(dense.getElementType()))
    return llvm::all_of(dense.getValues<APFloat>(),
                        [](const APFloat &v) { return v.isZero(); });
  return llvm::all_of(dense.getValues<APInt>(),
                      [](const APInt &v) { return v.isZero(); });
}

/// Builds a chain of graph ops; the first failure makes every later value
/// null and is reported once, by NodeBuilder.
struct Chain {
  NodeBuilder &builder;
  bool failed = false;

  Value op(StringRef mnemonic, ArrayRef<Value> slots,
           ArrayRef<NamedAttribute> attributes = {}) {
    if (failed || llvm::any_of(slots.take_front(1), [](Value v) { return !v; }))
      return markFailed();
    FailureOr<Value> value = builder.createValue(mnemonic, slots, attributes);
    return succeeded(value) ? *value : markFailed();
  }
  Value markFailed() {
    failed = true;
    return {};
  }
  Value cast(Value value, Type to) {
    OpBuilder &b = builder.getBuilder();
    return op("cast", {value}, {b.getNamedAttr("to", TypeAttr::get(to))});
  }
  Value f64(Value value) {
    return cast(value, builder.getBuilder().getF64Type());
  }
  /// A 1-D per-row (per-channel) vector as [n, 1, ..., 1] with `trailing`
  /// ones, so that it broadcasts along the rows; anything else as it is.
  Value perRow(Value value, int64_t trailing) {
    auto type = value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
    if (!type || type.getRank() != 1 || trailing == 0)
      return value;
    SmallVector<int64_t> dims(trailing + 1, 1);
    dims[0] = type.getDimSize(0);
    return op("reshape", {value, builder.i64Constant(dims)});
  }
  /// `value` minus its zero point (when given), in `type`.
  Value centered(Value value, Value zeroPoint, Type type, int64_t trailing) {
    Value centered = cast(value, type);
    if (!zeroPoint)
      return centered;
    return op("sub", {centered, cast(perRow(zeroPoint, trailing), type)});
  }
};

/// Fails unless the given ones of `values` (the 8-bit operands and zero
/// points of the integer ops, in slot order) are int8 or uint8: the exactness
/// of the f64 products and sums rests on it.
LogicalResult check8Bit(NodeBuilder &builder, const NodeInfo &info,
                        ArrayRef<size_t> slots) {
  for (size_t slot : slots) {
    if (slot >= info.inputs.size() || !info.inputs[slot])
      continue;
    Type element =
        cast<ShapedType>(info.inputs[slot].getType()).getElementType();
    if (!element.isSignlessInteger(8) && !element.isUnsignedInteger(8))
      return emitError(builder.getLoc())
             << "input " << slot << " must be int8 or uint8, got " << element;
  }
  return success();
}

int64_t rankOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank();
}

/// The product of the integer operands of MatMulInteger / QLinearMatMul in
/// `type`: A's zero point is per row (a 1-D one has M entries), B's per
/// column, so it broadcasts as it is.
Value integerMatmul(Chain &chain, Value a, Value aZero, Value b, Value bZero,
                    Type type) {
  Value lhs = chain.centered(a, aZero, type, rankOf(a) >= 2 ? 1 : 0);
  Value rhs = chain.centered(b, bZero, type, 0);
  return chain.op("mat_mul", {lhs, rhs});
}

/// Requantizes an exact integer-valued f64 `product` like the ONNX
/// reference: product * (aScale * bScale / yScale), computed in the scales'
/// type and then in double, rounded half to even, plus the zero point,
/// saturated.
Value requantize(Chain &chain, Value product, Value aScale, Value bScale,
                 Value yScale, Value yZero, int64_t aTrailing,
                 int64_t bTrailing) {
  Value multiplier =
      chain.op("div", {chain.op("mul", {chain.perRow(aScale, aTrailing),
                                        chain.perRow(bScale, bTrailing)}),
                       yScale});
  Value real = chain.op("mul", {product, chain.f64(multiplier)});
  Type f32 = chain.builder.getBuilder().getF32Type();
  Value one = chain.builder.constant(cast<ElementsAttr>(
      DenseElementsAttr::get(RankedTensorType::get({}, f32), 1.0f)));
  return chain.op("quantize_linear", {real, one, yZero});
}

NodeResults single(Chain &chain, Value value) {
  if (chain.failed || !value)
    return failure();
  return SmallVector<Value>{value};
}

Value optionalInput(const NodeInfo &info, size_t slot) {
  return info.inputs.size() > slot ? info.inputs[slot] : Value();
}

/// The Conv attributes of a ConvInteger / QLinearConv node.
SmallVector<NamedAttribute> convAttributes(const NodeInfo &info) {
  return SmallVector<NamedAttribute>(info.attributes.begin(),
                                     info.attributes.end());
}

/// Conv of the centered integer operands in f64, where every product and
/// sum of int8/uint8 values is exact: the integer convolution. w's zero
/// point may be per output channel.
Value integerConv(Chain &chain, const NodeInfo &info, Value x, Value xZero,
                  Value w, Value wZero, Value bias) {
  // x's zero point is per tensor (ONNX allows nothing else for convolutions).
  if (auto type = xZero ? dyn_cast<RankedTensorType>(xZero.getType()) : nullptr;
      type && !(type.hasStaticShape() && type.getNumElements() == 1)) {
    emitError(chain.builder.getLoc()) << "x_zero_point must be a scalar";
    return chain.markFailed();
  }
  Type f64 = chain.builder.getBuilder().getF64Type();
  Value lhs = chain.centered(x, xZero, f64, 0);
  Value rhs = chain.centered(w, wZero, f64, rankOf(w) - 1);
  return chain.op("conv", {lhs, rhs, bias ? chain.f64(bias) : Value()},
                  convAttributes(info));
}

/// The zero point of an 8-bit float x or y converted to `type`, or null
/// when there is none to apply: absent, or a constant zero, which onnx's
/// reference ignores (adding +0 would turn -0 into +0).
FailureOr<Value> float8ZeroPoint(Chain &chain, const NodeInfo &info,
                                 Type float8, Type type) {
  Value zeroPoint = optionalInput(info, 2);
  if (!zeroPoint || isConstantZero(zeroPoint))
    return Value();
  Type element = cast<ShapedType>(zeroPoint.getType()).getElementType();
  if (element != float8)
    return emitError(chain.builder.getLoc())
           << "the zero point must have element type " << float8 << ", got "
           << element;
  Value converted = chain.cast(zeroPoint, type);
  if (!converted)
    return failure();
  return converted;
}

/// QuantizeLinear to an 8-bit float is the graph ops of its formula,
/// saturate(x / scale + zero_point): the quotient in x's type, plus the zero
/// point, and a graph.cast with the node's `saturate`, whose conversion is
/// lib/Support/Float8.h's. The 8-bit floats are storage types, so the zero
/// point is converted to x's type before it is broadcast.
NodeResults quantizeToFloat8(NodeBuilder &builder, NodeInfo &info,
                             Type target) {
  Chain chain{builder};
  Type xElement = cast<ShapedType>(info.inputs[0].getType()).getElementType();
  FailureOr<Value> zeroPoint = float8ZeroPoint(chain, info, target, xElement);
  if (failed(zeroPoint))
    return failure();
  Value scale = chain.cast(info.inputs[1], xElement);
  if (chain.failed || failed(broadcastParams(builder, info, scale, *zeroPoint)))
    return failure();
  Value q = chain.op("div", {info.inputs[0], scale});
  if (*zeroPoint)
    q = chain.op("add", {q, *zeroPoint});
  OpBuilder &b = builder.getBuilder();
  int64_t saturate = intAttribute(info, "saturate", 1);
  return single(
      chain,
      chain.op("cast", {q},
               {b.getNamedAttr("to", TypeAttr::get(target)),
                b.getNamedAttr("saturate", b.getI64IntegerAttr(saturate))}));
}

/// DequantizeLinear of an 8-bit float: (float(x) - float(zero_point)) *
/// scale in f32, as onnx's reference computes it, rounded to the scale's
/// type.
NodeResults dequantizeFloat8(NodeBuilder &builder, NodeInfo &info) {
  Chain chain{builder};
  Type f32 = builder.getBuilder().getF32Type();
  Type xElement = cast<ShapedType>(info.inputs[0].getType()).getElementType();
  Type scaleElement =
      cast<ShapedType>(info.inputs[1].getType()).getElementType();
  if (!isa<Float32Type, Float16Type, BFloat16Type>(scaleElement))
    return emitError(builder.getLoc())
           << "unsupported: DequantizeLinear with a " << scaleElement
           << " scale; graphc takes f32, f16 and bf16 scales";
  FailureOr<Value> zeroPoint = float8ZeroPoint(chain, info, xElement, f32);
  if (failed(zeroPoint))
    return failure();
  // A constant x (a weight) stays a cast: see NodeBuilder::foldConstants.
  builder.foldConstants = false;
  Value x = chain.cast(info.inputs[0], f32);
  builder.foldConstants = true;
  Value scale = chain.cast(info.inputs[1], f32);
  if (chain.failed || failed(broadcastParams(builder, info, scale, *zeroPoint)))
    return failure();
  if (*zeroPoint)
    x = chain.op("sub", {x, *zeroPoint});
  return single(chain, chain.cast(chain.op("mul", {x, scale}), scaleElement));
}

/// A rank-0 constant `value` of `element`, a float or integer type.
Value scalarOf(NodeBuilder &builder, Type element, double value) {
  auto type = RankedTensorType::get({}, element);
  if (auto floatType = dyn_cast<FloatType>(element))
    return builder.constant(cast<ElementsAttr>(
        DenseElementsAttr::get(type, FloatAttr::get(floatType, value))));
  return builder.constant(cast<ElementsAttr>(DenseElementsAttr::get(
      type, IntegerAttr::get(element, static_cast<int64_t>(value)))));
}

/// `value` clamped to the range of 4-bit `dtype` and held in its 8-bit
/// type, as onnx's reference converts to 4 bits: clipped, then rounded half
/// to even (which for integer bounds is rounding, then clipping). 8-bit
/// floats are converted to f32 first, bool as it is.
Value toFourBit(Chain &chain, Value value, int32_t dtype) {
  if (!value)
    return chain.markFailed();
  NodeBuilder &builder = chain.builder;
  MLIRContext *context = builder.getBuilder().getContext();
  Type holder = fourBitHolder(context, dtype);
  double low = dtype == 22 ? -8 : 0, high = dtype == 22 ? 7 : 15;
  Type element = cast<ShapedType>(value.getType()).getElementType();
  if (element.isInteger(1))
    return chain.cast(value, holder);
  if (isa<FloatType>(element) && element.getIntOrFloatBitWidth() == 8) {
    element = builder.getBuilder().getF32Type();
    value = chain.cast(value, element);
  }
  if (isa<FloatType>(element))
    value = chain.op("round", {value});
  // An unsigned value needs no lower bound of 0 or less (nor can hold one).
  Value lowBound =
      element.isUnsignedInteger() ? Value() : scalarOf(builder, element, low);
  value = chain.op("clip", {value, lowBound, scalarOf(builder, element, high)});
  return chain.cast(value, holder);
}

} // namespace

Type fourBitHolder(MLIRContext *context, int32_t dtype) {
  return IntegerType::get(
      context, 8, dtype == 21 ? IntegerType::Unsigned : IntegerType::Signless);
}

NodeResults importFourBitCast(NodeBuilder &builder, Value input,
                              int32_t dtype) {
  Chain chain{builder};
  return single(chain, toFourBit(chain, input, dtype));
}

RankedTensorType packedFourBitType(MLIRContext *context,
                                   ArrayRef<int64_t> shape) {
  int64_t count = ShapedType::getNumElements(shape);
  return RankedTensorType::get(
      {count / 2 + count % 2},
      IntegerType::get(context, 8, IntegerType::Unsigned));
}

FailureOr<Value> unpackFourBitBoundary(NodeBuilder &builder, Value packed,
                                       int32_t dtype, ArrayRef<int64_t> shape) {
  Chain chain{builder};
  OpBuilder &b = builder.getBuilder();
  Type byte = IntegerType::get(b.getContext(), 8, IntegerType::Unsigned);
  int64_t bytes = cast<RankedTensorType>(packed.getType()).getDimSize(0);
  int64_t count = ShapedType::getNumElements(shape);
  // Byte i holds elements 2i (low nibble) and 2i + 1 (high nibble): the
  // nibbles side by side as [bytes, 2] are the elements in order.
  Value low = chain.op("bitwise_and", {packed, scalarOf(builder, byte, 15)});
  Value high =
      chain.op("bit_shift", {packed, scalarOf(builder, byte, 4)},
               {b.getNamedAttr("direction", b.getStringAttr("RIGHT"))});
  Value column = builder.i64Constant({bytes, 1});
  Value pairs = chain.op(
      "concat",
      {chain.op("reshape", {low, column}), chain.op("reshape", {high, column})},
      {b.getNamedAttr("axis", b.getI64IntegerAttr(1))});
  Value elements =
      chain.op("reshape", {pairs, builder.i64Constant({2 * bytes})});
  if (2 * bytes != count) // the unused high nibble of an odd count
    elements =
        chain.op("slice", {elements, builder.i64Constant({0}),
                           builder.i64Constant({count}), Value(), Value()});
  Value value = elements;
  if (shape.size() != 1)
    value = chain.op("reshape", {elements, builder.i64Constant(shape)});
  if (dtype == 22) {
    // Sign-extended into int8: n ^ 8 - 8 maps 0..7 to 0..7, 8..15 to -8..-1.
    Type holder = fourBitHolder(b.getContext(), dtype);
    value = chain.cast(value, holder);
    value = chain.op(
        "sub", {chain.op("bitwise_xor", {value, scalarOf(builder, holder, 8)}),
                scalarOf(builder, holder, 8)});
  }
  if (chain.failed)
    return failure();
  return value;
}

FailureOr<Value> packFourBitBoundary(NodeBuilder &builder, Value value) {
  Chain chain{builder};
  OpBuilder &b = builder.getBuilder();
  Type byte = IntegerType::get(b.getContext(), 8, IntegerType::Unsigned);
  auto type = cast<RankedTensorType>(value.getType());
  int64_t count = type.getNumElements();
  int64_t bytes = count / 2 + count % 2;
  // int8 holds INT4 sign-extended: its low nibble is the 4-bit pattern
  // (the cast to uint8 wraps, the mask drops the sign bits).
  Value flat = chain.op("reshape", {value, builder.i64Constant({count})});
  if (type.getElementType() != byte)
    flat = chain.cast(flat, byte);
  Value nibbles = chain.op("bitwise_and", {flat, scalarOf(builder, byte, 15)});
  if (count % 2) // an odd count leaves the last byte's high nibble zero
    nibbles = chain.op(
        "pad", {nibbles, builder.i64Constant({0, 1}), Value(), Value()});
  Value pairs = chain.op("reshape", {nibbles, builder.i64Constant({bytes, 2})});
  auto column = [&](int64_t at) {
    return chain.op("slice", {pairs, builder.i64Constant({at}),
                              builder.i64Constant({at + 1}),
                              builder.i64Constant({1}), Value()});
  };
  Value packed = chain.op(
      "bitwise_or",
      {column(0),
       chain.op("bit_shift", {column(1), scalarOf(builder, byte, 4)},
                {b.getNamedAttr("direction", b.getStringAttr("LEFT"))})});
  packed = chain.op("reshape", {packed, builder.i64Constant({bytes})});
  if (chain.failed)
    return failure();
  return packed;
}

NodeResults importMatMulInteger(NodeBuilder &builder, NodeInfo &info) {
  if (failed(check8Bit(builder, info, {0, 1, 2, 3})))
    return failure();
  Chain chain{builder};
  Type i32 = builder.getBuilder().getI32Type();
  return single(chain,
                integerMatmul(chain, info.inputs[0], optionalInput(info, 2),
                              info.inputs[1], optionalInput(info, 3), i32));
}

NodeResults importQLinearMatMul(NodeBuilder &builder, NodeInfo &info) {
  if (failed(check8Bit(builder, info, {0, 2, 3, 5, 7})))
    return failure();
  Chain chain{builder};
  ArrayRef<Value> in = info.inputs;
  Type f64 = builder.getBuilder().getF64Type();
  Value product = integerMatmul(chain, in[0], in[2], in[3], in[5], f64);
  return single(chain, requantize(chain, product, in[1], in[4], in[6], in[7],
                                  rankOf(in[0]) >= 2 ? 1 : 0, 0));
}

NodeResults importConvInteger(NodeBuilder &builder, NodeInfo &info) {
  if (failed(check8Bit(builder, info, {0, 1, 2, 3})))
    return failure();
  Chain chain{builder};
  Value conv = integerConv(chain, info, info.inputs[0], optionalInput(info, 2),
                           info.inputs[1], optionalInput(info, 3), Value());
  return single(chain, chain.cast(conv, builder.getBuilder().getI32Type()));
}

NodeResults importQLinearConv(NodeBuilder &builder, NodeInfo &info) {
  if (failed(check8Bit(builder, info, {0, 2, 3, 5, 7})))
    return failure();
  Value bias = optionalInput(info, 8);
  if (bias &&
      !cast<ShapedType>(bias.getType()).getElementType().isSignlessInteger(32))
    return emitError(builder.getLoc()) << "input 8 (B) must be int32";
  Chain chain{builder};
  ArrayRef<Value> in = info.inputs;
  Value conv = integerConv(chain, info, in[0], in[2], in[3], in[5], bias);
  // w's scale is per output channel: [M] broadcasts over [N, M, spatial...].
  return single(chain, requantize(chain, conv, in[1], in[4], in[6], in[7], 0,
                                  rankOf(in[3]) - 2));
}

NodeResults importQuantizeLinear(NodeBuilder &builder, NodeInfo &info) {
  Value x = info.inputs[0];
  Type xElement = cast<ShapedType>(x.getType()).getElementType();
  if (!isa<Float32Type, Float16Type, BFloat16Type>(xElement))
    return emitError(builder.getLoc())
           << "unsupported: QuantizeLinear of " << xElement
           << " input; graphc quantizes f32, f16 and bf16";
  Value zeroPoint = info.inputs.size() > 2 ? info.inputs[2] : Value();
  Type target =
      zeroPoint
          ? cast<ShapedType>(zeroPoint.getType()).getElementType()
          : IntegerType::get(builder.getContext(), 8, IntegerType::Unsigned);
  // To a 4-bit integer: the zero point is one (held in 8 bits) or
  // output_dtype names one.
  int32_t fourBit = info.fourBitInputs.size() > 2 ? info.fourBitInputs[2] : 0;
  if (int64_t dtype = intAttribute(info, "output_dtype", 0);
      !fourBit && (dtype == 21 || dtype == 22)) {
    if (zeroPoint)
      return emitError(builder.getLoc())
             << "output_dtype " << (dtype == 21 ? "uint4" : "int4")
             << " differs from the zero point's element type " << target;
    fourBit = static_cast<int32_t>(dtype);
    target = fourBitHolder(builder.getContext(), fourBit);
    info.attributes.erase("output_dtype");
  }
  if (int64_t dtype = intAttribute(info, "output_dtype", 0)) {
    if (fourBit && dtype != fourBit)
      return emitError(builder.getLoc())
             << "output_dtype " << dtype
             << " differs from the zero point's element type "
             << (fourBit == 21 ? "uint4" : "int4");
    Type requested =
        fourBit ? target : convertElementType(builder.getContext(), dtype);
    if (!requested)
      return emitError(builder.getLoc())
             << "unsupported: QuantizeLinear output_dtype " << dtype;
    if (zeroPoint && requested != target)
      return emitError(builder.getLoc())
             << "output_dtype " << requested
             << " differs from the zero point's element type " << target;
    target = requested;
  }
  if (isa<FloatType>(target) && target.getIntOrFloatBitWidth() == 8)
    return quantizeToFloat8(builder, info, target);
  if (!isQuantizedInteger(target))
    return emitError(builder.getLoc())
           << "unsupported: QuantizeLinear to " << target
           << "; graphc quantizes to int8, uint8, int16, uint16 and the 8-bit "
              "floats";
  if (!zeroPoint)
    zeroPoint = zeroOf(builder, target);
  Value scale = info.inputs[1];
  if (failed(broadcastParams(builder, info, scale, zeroPoint)))
    return failure();
  SmallVector<NamedAttribute> attributes;
  if (Attribute saturate = info.attributes.get("saturate"))
    attributes.push_back(
        builder.getBuilder().getNamedAttr("saturate", saturate));
  FailureOr<Value> y =
      builder.createValue(info.mnemonic, {x, scale, zeroPoint}, attributes);
  if (failed(y))
    return failure();
  // Saturating to the 8-bit range and then to the 4-bit one is saturating
  // to the 4-bit one.
  if (fourBit) {
    Chain chain{builder};
    return single(chain, toFourBit(chain, *y, fourBit));
  }
  return SmallVector<Value>{*y};
}

NodeResults importDequantizeLinear(NodeBuilder &builder, NodeInfo &info) {
  Value x = info.inputs[0];
  Type xElement = cast<ShapedType>(x.getType()).getElementType();
  if (isa<FloatType>(xElement) && xElement.getIntOrFloatBitWidth() == 8)
    return dequantizeFloat8(builder, info);
  if (!isQuantizedInteger(xElement) && !xElement.isSignlessInteger(32))
    return emitError(builder.getLoc())
           << "unsupported: DequantizeLinear of " << xElement
           << "; graphc dequantizes int8, uint8, int16, uint16, int32 and the "
              "8-bit floats";
  Value zeroPoint = info.inputs.size() > 2 ? info.inputs[2] : Value();
  if (!zeroPoint)
    zeroPoint = zeroOf(builder, xElement);
  Value scale = info.inputs[1];
  if (failed(broadcastParams(builder, info, scale, zeroPoint)))
    return failure();
  FailureOr<Value> y =
      builder.createValue(info.mnemonic, {x, scale, zeroPoint}, {});
  if (failed(y))
    return failure();
  return SmallVector<Value>{*y};
}

} // namespace graphc::onnx_import
