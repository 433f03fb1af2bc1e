//===- GraphFolding.cpp - folding graph ops with the host kernels ---------===//

#include "dialects/Graph/FoldBudget.h"
#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"
#include "dialects/Graph/HostEval.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/OpDefinition.h"

using namespace mlir;

namespace graphc::graph {

int32_t toHostDtype(Type type) {
  if (type.isF32())
    return GC_DTYPE_F32;
  if (type.isF16())
    return GC_DTYPE_F16;
  if (type.isBF16())
    return GC_DTYPE_BF16;
  if (type.isF64())
    return GC_DTYPE_F64;
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType)
    return GC_DTYPE_UNDEFINED;
  bool isUnsigned = intType.isUnsigned();
  switch (intType.getWidth()) {
  case 1:
    return GC_DTYPE_BOOL;
  case 8:
    return isUnsigned ? GC_DTYPE_U8 : GC_DTYPE_I8;
  case 16:
    return isUnsigned ? GC_DTYPE_U16 : GC_DTYPE_I16;
  case 32:
    return isUnsigned ? GC_DTYPE_U32 : GC_DTYPE_I32;
  case 64:
    return isUnsigned ? GC_DTYPE_U64 : GC_DTYPE_I64;
  default:
    return GC_DTYPE_UNDEFINED;
  }
}

Type fromHostDtype(MLIRContext *context, int32_t dtype) {
  Builder b(context);
  auto unsignedInt = [&](unsigned width) {
    return IntegerType::get(context, width, IntegerType::Unsigned);
  };
  switch (dtype) {
  case GC_DTYPE_F32:
    return b.getF32Type();
  case GC_DTYPE_F16:
    return b.getF16Type();
  case GC_DTYPE_BF16:
    return b.getBF16Type();
  case GC_DTYPE_F64:
    return b.getF64Type();
  case GC_DTYPE_BOOL:
    return b.getI1Type();
  case GC_DTYPE_I8:
    return b.getI8Type();
  case GC_DTYPE_I16:
    return b.getI16Type();
  case GC_DTYPE_I32:
    return b.getI32Type();
  case GC_DTYPE_I64:
    return b.getI64Type();
  case GC_DTYPE_U8:
    return unsignedInt(8);
  case GC_DTYPE_U16:
    return unsignedInt(16);
  case GC_DTYPE_U32:
    return unsignedInt(32);
  case GC_DTYPE_U64:
    return unsignedInt(64);
  default:
    return {};
  }
}

FailureOr<std::vector<char>> constantBytes(ElementsAttr value) {
  auto type = cast<ShapedType>(value.getType());
  if (!type.hasStaticShape() ||
      !isRepresentableShape(type.getShape(), /*elementBytes=*/8))
    return failure();
  int64_t count = type.getNumElements();
  Type elementType = type.getElementType();
  if (elementType.isInteger(1)) {
    std::vector<char> bytes;
    bytes.reserve(count);
    for (bool bit : value.getValues<bool>())
      bytes.push_back(bit ? 1 : 0);
    return bytes;
  }
  size_t elementSize = gc_dtype_size(toHostDtype(elementType));
  if (elementSize == 0)
    return failure();
  std::vector<char> bytes(count * elementSize);
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != bytes.size())
      return failure();
    std::copy(blob->getData().begin(), blob->getData().end(), bytes.begin());
    return bytes;
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return failure();
  ArrayRef<char> raw = dense.getRawData();
  if (dense.isSplat()) {
    for (int64_t i = 0; i < count; ++i)
      std::copy(raw.begin(), raw.begin() + elementSize,
                bytes.begin() + i * elementSize);
    return bytes;
  }
  if (raw.size() != bytes.size())
    return failure();
  std::copy(raw.begin(), raw.end(), bytes.begin());
  return bytes;
}

ElementsAttr constantFromBytes(ShapedType type, ArrayRef<char> bytes) {
  if (type.getElementType().isInteger(1)) {
    SmallVector<bool> bits(bytes.size());
    for (size_t i = 0; i < bytes.size(); ++i)
      bits[i] = bytes[i] != 0;
    if (!bits.empty() && llvm::all_equal(bits))
      return DenseElementsAttr::get(type, bits.front());
    return DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  }
  // Every element equal: a splat, one element however large the tensor
  // (lowering emits it as a literal, never as weights).
  size_t elementSize = gc_dtype_size(toHostDtype(type.getElementType()));
  if (elementSize > 0 && bytes.size() > elementSize &&
      bytes.size() % elementSize == 0) {
    ArrayRef<char> first = bytes.take_front(elementSize);
    bool splat = true;
    for (size_t at = elementSize; splat && at < bytes.size(); at += elementSize)
      splat = bytes.slice(at, elementSize) == first;
    if (splat)
      return DenseElementsAttr::getFromRawBuffer(type, first);
  }
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

FailureOr<HostAttrs> HostAttrs::fromOp(Operation *op) {
  HostAttrs result;
  for (NamedAttribute named : op->getAttrs()) {
    StringRef name = named.getName().getValue();
    if (name == "operandSegmentSizes" || name == "resultSegmentSizes")
      continue;
    gc_attr item{};
    item.name = result.strings.emplace_back(name.str()).c_str();
    Attribute attr = named.getValue();
    if (auto intAttr = dyn_cast<IntegerAttr>(attr)) {
      item.kind = GC_ATTR_INT;
      item.i = intAttr.getValue().getSExtValue();
    } else if (auto floatAttr = dyn_cast<FloatAttr>(attr)) {
      item.kind = GC_ATTR_FLOAT;
      item.f = floatAttr.getValueAsDouble();
    } else if (auto stringAttr = dyn_cast<StringAttr>(attr)) {
      item.kind = GC_ATTR_STRING;
      item.s = result.strings.emplace_back(stringAttr.str()).c_str();
    } else if (auto intsAttr = dyn_cast<DenseI64ArrayAttr>(attr)) {
      item.kind = GC_ATTR_INTS;
      auto &storage = result.ints.emplace_back(intsAttr.asArrayRef().begin(),
                                               intsAttr.asArrayRef().end());
      item.count = storage.size();
      item.ints = storage.data();
    } else if (auto floatsAttr = dyn_cast<DenseF32ArrayAttr>(attr)) {
      item.kind = GC_ATTR_FLOATS;
      auto &storage = result.floats.emplace_back(
          floatsAttr.asArrayRef().begin(), floatsAttr.asArrayRef().end());
      item.count = storage.size();
      item.floats = storage.data();
    } else if (auto typeAttr = dyn_cast<TypeAttr>(attr)) {
      item.kind = GC_ATTR_TYPE;
      item.i = toHostDtype(typeAttr.getValue());
      if (item.i == GC_DTYPE_UNDEFINED)
        return failure();
    } else if (auto elements = dyn_cast<ElementsAttr>(attr)) {
      FailureOr<std::vector<char>> bytes = constantBytes(elements);
      if (failed(bytes))
        return failure();
      auto type = cast<ShapedType>(elements.getType());
      auto &dims = result.ints.emplace_back(type.getShape().begin(),
                                            type.getShape().end());
      auto &data = result.tensorData.emplace_back(std::move(*bytes));
      gc_tensor &tensor = result.tensors.emplace_back();
      tensor.dtype = toHostDtype(type.getElementType());
      tensor.rank = static_cast<int32_t>(dims.size());
      tensor.dims = dims.data();
      tensor.data = data.data();
      item.kind = GC_ATTR_TENSOR;
      item.t = &tensor;
    } else {
      return failure();
    }
    result.itemStorage.push_back(item);
  }
  result.attrs.count = static_cast<int32_t>(result.itemStorage.size());
  result.attrs.items = result.itemStorage.data();
  return result;
}

/// ONNX input slot count of the ops whose only optional input is the last
/// one: ODS models those with a trailing Optional operand and no segments.
static unsigned trailingOptionalSlotCount(Operation *op) {
  if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
          ReduceL1Op, ReduceL2Op, ReduceLogSumOp, ReduceLogSumExpOp,
          ReduceSumSquareOp, SqueezeOp, SplitOp, TriluOp>(op))
    return 2;
  if (isa<GemmOp, ConvOp, ConvTransposeOp, LayerNormalizationOp>(op))
    return 3;
  return 0;
}

SmallVector<int32_t> operandSlotSizes(Operation *op) {
  if (auto segments =
          op->getAttrOfType<DenseI32ArrayAttr>("operandSegmentSizes"))
    return SmallVector<int32_t>(segments.asArrayRef());
  SmallVector<int32_t> sizes(op->getNumOperands(), 1);
  // An absent trailing optional input is still a slot: kernels take one
  // parameter per ONNX input.
  unsigned slots = trailingOptionalSlotCount(op);
  if (sizes.size() < slots)
    sizes.resize(slots, 0);
  return sizes;
}

FailureOr<std::vector<std::vector<char>>>
evaluateOnHost(Operation *op, ArrayRef<std::vector<char>> operandData,
               std::string &error) {
  std::string mnemonic = op->getName().stripDialect().str();
  gc_host_kernel_fn kernel = gc_host_kernel_lookup(mnemonic.c_str());
  if (!kernel) {
    error = "no host kernel for " + mnemonic;
    return failure();
  }
  FailureOr<HostAttrs> attrs = HostAttrs::fromOp(op);
  if (failed(attrs)) {
    error = "attributes of " + mnemonic + " the host kernels do not take";
    return failure();
  }
  for (Type type : op->getResultTypes()) {
    auto shaped = dyn_cast<RankedTensorType>(type);
    if (!shaped || !shaped.hasStaticShape() ||
        !isRepresentableShape(shaped.getShape(), /*elementBytes=*/8)) {
      error = "a result of " + mnemonic + " without a static shape";
      return failure();
    }
  }

  // Inputs in ONNX slot order; absent optional slots become rank -1.
  std::vector<std::vector<int64_t>> inputDims;
  std::vector<gc_tensor> inputs;
  inputDims.reserve(op->getNumOperands());
  size_t next = 0;
  for (int32_t size : operandSlotSizes(op)) {
    if (size == 0) {
      inputs.push_back(gc_tensor{GC_DTYPE_UNDEFINED, -1, nullptr, nullptr});
      continue;
    }
    for (int32_t i = 0; i < size; ++i, ++next) {
      auto type = cast<ShapedType>(op->getOperand(next).getType());
      inputDims.emplace_back(type.getShape().begin(), type.getShape().end());
      inputs.push_back(gc_tensor{toHostDtype(type.getElementType()),
                                 static_cast<int32_t>(type.getRank()),
                                 inputDims.back().data(),
                                 const_cast<char *>(operandData[next].data())});
    }
  }

  std::vector<std::vector<char>> outputData;
  std::vector<std::vector<int64_t>> outputDims;
  std::vector<gc_tensor> outputs;
  outputData.reserve(op->getNumResults());
  outputDims.reserve(op->getNumResults());
  for (Type type : op->getResultTypes()) {
    auto shaped = cast<RankedTensorType>(type);
    int32_t dtype = toHostDtype(shaped.getElementType());
    outputData.emplace_back(shaped.getNumElements() * gc_dtype_size(dtype));
    outputDims.emplace_back(shaped.getShape().begin(), shaped.getShape().end());
    outputs.push_back(gc_tensor{dtype, static_cast<int32_t>(shaped.getRank()),
                                outputDims.back().data(),
                                outputData.back().data()});
  }

  char message[256] = {0};
  if (kernel(inputs.data(), static_cast<int32_t>(inputs.size()), outputs.data(),
             static_cast<int32_t>(outputs.size()), attrs->get(), message,
             sizeof(message)) != 0) {
    message[sizeof(message) - 1] = 0;
    error = mnemonic + ": " + message;
    return failure();
  }
  return outputData;
}

LogicalResult foldByEvaluation(Operation *op, ArrayRef<Attribute> operands,
                               SmallVectorImpl<OpFoldResult> &results) {
  if (op->getNumOperands() == 0)
    return failure();
  for (Attribute operand : operands)
    if (!isa_and_nonnull<ElementsAttr>(operand))
      return failure();
  // Beyond the budget the op stays: the model computes it at run time.
  if (!chargeFoldBudget(op))
    return failure();
  std::vector<std::vector<char>> inputData;
  for (Attribute operand : operands) {
    FailureOr<std::vector<char>> bytes =
        constantBytes(cast<ElementsAttr>(operand));
    if (failed(bytes))
      return failure();
    inputData.push_back(std::move(*bytes));
  }
  std::string error;
  FailureOr<std::vector<std::vector<char>>> outputData =
      evaluateOnHost(op, inputData, error);
  if (failed(outputData))
    return failure();
  for (auto [type, data] : llvm::zip(op->getResultTypes(), *outputData))
    results.push_back(constantFromBytes(cast<ShapedType>(type), data));
  return success();
}

} // namespace graphc::graph
