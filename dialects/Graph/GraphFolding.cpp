//===- GraphFolding.cpp - folding graph ops by evaluating them ------------===//

#include "dialects/Graph/FoldBudget.h"
#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"
#include "dialects/Graph/HostEval.h"
#include "lib/Artifact/OnnxDtype.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/OpDefinition.h"

using namespace mlir;

namespace graphc::graph {

int32_t toHostDtype(Type type) {
  if (type.isF32())
    return rt::kFloat;
  if (type.isF16())
    return rt::kFloat16;
  if (type.isBF16())
    return rt::kBfloat16;
  if (type.isF64())
    return rt::kDouble;
  if (type.isFloat8E4M3FN())
    return rt::kFloat8E4M3FN;
  if (type.isFloat8E4M3FNUZ())
    return rt::kFloat8E4M3FNUZ;
  if (type.isFloat8E5M2())
    return rt::kFloat8E5M2;
  if (type.isFloat8E5M2FNUZ())
    return rt::kFloat8E5M2FNUZ;
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType)
    return rt::kUndefined;
  bool isUnsigned = intType.isUnsigned();
  switch (intType.getWidth()) {
  case 1:
    return rt::kBool;
  case 4: // only a boundary type (kPackedTypeAttr)
    return isUnsigned ? rt::kUint4 : rt::kInt4;
  case 8:
    return isUnsigned ? rt::kUint8 : rt::kInt8;
  case 16:
    return isUnsigned ? rt::kUint16 : rt::kInt16;
  case 32:
    return isUnsigned ? rt::kUint32 : rt::kInt32;
  case 64:
    return isUnsigned ? rt::kUint64 : rt::kInt64;
  default:
    return rt::kUndefined;
  }
}

Type fromHostDtype(MLIRContext *context, int32_t dtype) {
  Builder b(context);
  auto unsignedInt = [&](unsigned width) {
    return IntegerType::get(context, width, IntegerType::Unsigned);
  };
  switch (dtype) {
  case rt::kFloat:
    return b.getF32Type();
  case rt::kFloat16:
    return b.getF16Type();
  case rt::kBfloat16:
    return b.getBF16Type();
  case rt::kDouble:
    return b.getF64Type();
  case rt::kFloat8E4M3FN:
    return b.getFloat8E4M3FNType();
  case rt::kFloat8E4M3FNUZ:
    return b.getFloat8E4M3FNUZType();
  case rt::kFloat8E5M2:
    return b.getFloat8E5M2Type();
  case rt::kFloat8E5M2FNUZ:
    return b.getFloat8E5M2FNUZType();
  case rt::kBool:
    return b.getI1Type();
  case rt::kInt8:
    return b.getI8Type();
  case rt::kInt16:
    return b.getI16Type();
  case rt::kInt32:
    return b.getI32Type();
  case rt::kInt64:
    return b.getI64Type();
  case rt::kUint8:
    return unsignedInt(8);
  case rt::kUint16:
    return unsignedInt(16);
  case rt::kUint32:
    return unsignedInt(32);
  case rt::kUint64:
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
  size_t elementSize = rt::dtypeSize(toHostDtype(elementType));
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
  size_t elementSize = rt::dtypeSize(toHostDtype(type.getElementType()));
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
  auto *dialect = op->getContext()->getLoadedDialect<GraphDialect>();
  const auto *evaluator =
      dialect ? dialect->getRegisteredInterface<HostEvaluatorInterface>()
              : nullptr;
  if (!evaluator) {
    error = "no host evaluator registered for the graph dialect";
    return failure();
  }
  return evaluator->evaluate(op, operandData, error);
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
