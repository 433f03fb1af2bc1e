//===- ConstantInputs.cpp - model inputs bound at compile time ------------===//

#include "lib/Import/ONNX/ConstantInputs.h"
#include "lib/Import/ONNX/OnnxModel.h"
#include "lib/Import/ONNX/TensorImport.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"

#include <cstring>
#include <optional>

namespace graphc::onnx_import {

using namespace mlir;

namespace {

/// Appends the `width`-byte little-endian representation of `bits`.
void appendBits(std::string &bytes, const llvm::APInt &bits) {
  for (unsigned i = 0; i < bits.getBitWidth() / 8; ++i)
    bytes.push_back(static_cast<char>(bits.extractBitsAsZExtValue(8, i * 8)));
}

/// The raw bytes of `values` as elements of `dataType`; the error says
/// which value does not fit.
llvm::Expected<std::string> valueBytes(llvm::ArrayRef<std::string> values,
                                       int32_t dataType, Type elementType,
                                       const llvm::Twine &prefix) {
  std::string bytes;
  for (llvm::StringRef text : values) {
    auto bad = [&](llvm::StringRef why) {
      return makeError(prefix + "'" + text + "' is not " + why);
    };
    if (auto floatType = dyn_cast<FloatType>(elementType)) {
      llvm::APFloat value(floatType.getFloatSemantics());
      auto status =
          value.convertFromString(text, llvm::APFloat::rmNearestTiesToEven);
      if (!status) {
        llvm::consumeError(status.takeError());
        return bad("a number (the input is " +
                   getDataTypeInfo(dataType).name.str() + ")");
      }
      appendBits(bytes, value.bitcastToAPInt());
      continue;
    }
    auto integerType = cast<IntegerType>(elementType);
    unsigned width = integerType.getWidth();
    std::string range = "an integer the input's " +
                        getDataTypeInfo(dataType).name.str() + " holds";
    if (width == 1) {
      if (text != "0" && text != "1")
        return bad("0 or 1 (the input is bool)");
      bytes.push_back(text == "1" ? 1 : 0);
      continue;
    }
    bool isUnsigned = integerType.isUnsigned();
    llvm::APInt value;
    if (isUnsigned) {
      uint64_t number;
      if (text.getAsInteger(10, number) || (width < 64 && number >> width != 0))
        return bad(range);
      value = llvm::APInt(width, number);
    } else {
      int64_t number;
      if (text.getAsInteger(10, number) ||
          (width < 64 && (number < -(int64_t(1) << (width - 1)) ||
                          number >= int64_t(1) << (width - 1))))
        return bad(range);
      value = llvm::APInt(width, number, /*isSigned=*/true);
    }
    appendBits(bytes, value);
  }
  return bytes;
}

} // namespace

llvm::Expected<ElementsAttr>
importConstantInput(MLIRContext *context, const ConstantInput &input,
                    const onnx::ValueInfoProto &declared,
                    const ImportOptions &options) {
  std::string prefix = "--const-input '" + input.spec + "': ";
  if (!declared.type().has_tensor_type())
    return makeError(prefix + "input '" + input.name + "' is not a tensor");
  const onnx::TypeProto::Tensor &type = declared.type().tensor_type();
  int32_t dataType = type.elem_type();
  Type elementType = convertElementType(context, dataType);
  if (!elementType)
    return makeError(prefix + "input '" + input.name +
                     "' has the unsupported element type " +
                     getDataTypeInfo(dataType).name);

  onnx::TensorProto tensor;
  tensor.set_name(input.name);
  tensor.set_data_type(dataType);
  if (input.tensor.dtype == 0) {
    llvm::Expected<std::string> bytes =
        valueBytes(input.values, dataType, elementType, prefix);
    if (!bytes)
      return bytes.takeError();
    // The values fill the declared shape when it is static and holds as
    // many (a scalar trip count, a [1, 2] pair); otherwise they are 1-D.
    std::vector<int64_t> declaredDims;
    bool declaredStatic = type.has_shape();
    for (int i = 0; declaredStatic && i < type.shape().dim_size(); ++i) {
      const onnx::TensorShapeProto::Dimension &dim = type.shape().dim(i);
      declaredStatic = dim.has_dim_value() && dim.dim_value() >= 0;
      if (declaredStatic)
        declaredDims.push_back(dim.dim_value());
    }
    std::optional<int64_t> declaredCount = elementCount(declaredDims);
    if (declaredStatic && declaredCount &&
        *declaredCount == static_cast<int64_t>(input.values.size())) {
      for (int64_t dim : declaredDims)
        tensor.add_dims(dim);
    } else {
      tensor.add_dims(static_cast<int64_t>(input.values.size()));
    }
    tensor.set_raw_data(std::move(*bytes));
  } else {
    if (input.tensor.dtype != dataType)
      return makeError(prefix + "the file holds " +
                       getDataTypeInfo(input.tensor.dtype).name +
                       ", but input '" + input.name + "' is " +
                       getDataTypeInfo(dataType).name);
    for (int64_t dim : input.tensor.dims)
      tensor.add_dims(dim);
    tensor.set_raw_data(input.tensor.data.data(), input.tensor.data.size());
  }

  // The declared shape: same rank, and the value's size at every static dim.
  if (type.has_shape()) {
    const auto &dims = type.shape().dim();
    auto shapeText = [](auto range) {
      std::string text = "[";
      for (auto [i, dim] : llvm::enumerate(range))
        text += (i ? "x" : "") + dim;
      return text + "]";
    };
    std::vector<std::string> declaredDims, givenDims;
    for (const onnx::TensorShapeProto::Dimension &dim : dims)
      declaredDims.push_back(
          dim.has_dim_value()
              ? std::to_string(dim.dim_value())
              : (dim.dim_param().empty() ? std::string("?") : dim.dim_param()));
    for (int64_t dim : tensor.dims())
      givenDims.push_back(std::to_string(dim));
    bool compatible = dims.size() == tensor.dims_size();
    for (int i = 0; compatible && i < dims.size(); ++i)
      compatible = !dims[i].has_dim_value() || dims[i].dim_value() < 0 ||
                   dims[i].dim_value() == tensor.dims(i);
    if (!compatible)
      return makeError(prefix + "the value's shape " + shapeText(givenDims) +
                       " does not fit input '" + input.name + "' of shape " +
                       shapeText(declaredDims));
  }
  return importTensor(context, tensor, /*baseDir=*/"",
                      "--const-input '" + input.spec + "'", options);
}

} // namespace graphc::onnx_import
