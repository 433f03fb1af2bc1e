//===- TensorImport.cpp - ONNX tensors and types as MLIR ------------------===//

#include "lib/Import/ONNX/TensorImport.h"
#include "lib/Artifact/OnnxDtype.h"
#include "lib/Import/ONNX/OnnxModel.h"
#include "lib/Import/ONNX/TensorData.h"

#include "dialects/Graph/GraphTypeInference.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Alignment.h"

namespace graphc::onnx_import {

using namespace mlir;

Type convertElementType(MLIRContext *context, int32_t dataType) {
  auto integer = [&](unsigned width, bool isUnsigned = false) -> Type {
    return IntegerType::get(context, width,
                            isUnsigned ? IntegerType::Unsigned
                                       : IntegerType::Signless);
  };
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    return Float32Type::get(context);
  case onnx::TensorProto::FLOAT16:
    return Float16Type::get(context);
  case onnx::TensorProto::BFLOAT16:
    return BFloat16Type::get(context);
  case onnx::TensorProto::DOUBLE:
    return Float64Type::get(context);
  case onnx::TensorProto::INT8:
    return integer(8);
  case onnx::TensorProto::INT16:
    return integer(16);
  case onnx::TensorProto::INT32:
    return integer(32);
  case onnx::TensorProto::INT64:
    return integer(64);
  case onnx::TensorProto::UINT8:
    return integer(8, true);
  case onnx::TensorProto::UINT16:
    return integer(16, true);
  case onnx::TensorProto::UINT32:
    return integer(32, true);
  case onnx::TensorProto::UINT64:
    return integer(64, true);
  case onnx::TensorProto::BOOL:
    return integer(1);
  // Numbered as rt::OnnxDtype: newer than the protobuf definitions.
  case rt::kFloat8E4M3FN:
    return Float8E4M3FNType::get(context);
  case rt::kFloat8E4M3FNUZ:
    return Float8E4M3FNUZType::get(context);
  case rt::kFloat8E5M2:
    return Float8E5M2Type::get(context);
  case rt::kFloat8E5M2FNUZ:
    return Float8E5M2FNUZType::get(context);
  default:
    return {};
  }
}

/// A resource key the MLIR printer and parser accept: the tensor name with
/// anything but letters, digits, '_' and '.' replaced.
static std::string resourceKey(llvm::StringRef name) {
  std::string key = name.empty() ? std::string("tensor") : name.str();
  for (char &c : key)
    if (!llvm::isAlnum(c) && c != '_' && c != '.')
      c = '_';
  return key;
}

llvm::Expected<ElementsAttr> importTensor(MLIRContext *context,
                                          onnx::TensorProto &tensor,
                                          llvm::StringRef baseDir,
                                          llvm::StringRef what,
                                          const ImportOptions &options) {
  // 4-bit integers are held unpacked, one per byte (isFourBitDtype).
  const bool fourBit = isFourBitDtype(tensor.data_type());
  Type elementType = fourBit ? IntegerType::get(context, 8,
                                                tensor.data_type() == 21
                                                    ? IntegerType::Unsigned
                                                    : IntegerType::Signless)
                             : convertElementType(context, tensor.data_type());
  if (!elementType)
    return makeError("unsupported element type " +
                     getDataTypeInfo(tensor.data_type()).name + " of " + what);
  llvm::SmallVector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
  std::optional<int64_t> count = elementCount(dims);
  if (!count || !graph::isRepresentableShape(dims, /*elementBytes=*/8))
    return makeError(what + " has invalid dims (negative, or too large)");
  auto type = RankedTensorType::get(dims, elementType);

  llvm::Expected<TensorData> data = takeTensorData(tensor, baseDir, what);
  if (!data)
    return data.takeError();
  if (fourBit)
    data = TensorData::fromString(
        unpackFourBit(data->bytes(), *count, tensor.data_type() == 22));
  llvm::ArrayRef<char> bytes = data->bytes();

  if (elementType.isInteger(1)) {
    llvm::SmallVector<bool> bits;
    bits.reserve(bytes.size());
    for (char byte : bytes)
      bits.push_back(byte != 0);
    return cast<ElementsAttr>(DenseElementsAttr::get(type, bits));
  }
  if (*count <= options.denseElementLimit)
    return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(type, bytes));

  // The blob takes ownership of the storage, so the weights exist once in
  // memory: in the moved protobuf string or in the mapped external file.
  size_t alignment = fourBit ? 1 : getDataTypeInfo(tensor.data_type()).size;
  if (!llvm::isAddrAligned(llvm::Align(alignment), bytes.data()))
    data = TensorData::fromString(
        std::make_unique<std::string>(bytes.begin(), bytes.end()));
  bytes = data->bytes();
  AsmResourceBlob blob(
      bytes, alignment,
      [owner = std::make_unique<TensorData>(std::move(*data))](
          void *, size_t, size_t) mutable { owner.reset(); },
      /*dataIsMutable=*/false);
  return cast<ElementsAttr>(DenseResourceElementsAttr::get(
      type, resourceKey(tensor.name()), std::move(blob)));
}

} // namespace graphc::onnx_import
