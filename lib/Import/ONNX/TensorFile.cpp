//===- TensorFile.cpp - reading serialised ONNX TensorProto files ---------===//

#include "lib/Import/ONNX/TensorFile.h"
#include "lib/Import/ONNX/OnnxModel.h"
#include "lib/Import/ONNX/TensorData.h"
#include "lib/Support/CheckedArith.h"
#include "lib/Support/ReadFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <climits>

namespace graphc {

using onnx_import::getDataTypeInfo;
using onnx_import::makeError;

llvm::Expected<HostTensor> readTensorProtoFile(llvm::StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file = readUserFile(path);
  if (!file)
    return file.takeError();
  llvm::StringRef contents = (*file)->getBuffer();
  onnx::TensorProto tensor;
  if (contents.size() > INT_MAX ||
      !tensor.ParseFromArray(contents.data(),
                             static_cast<int>(contents.size())))
    return makeError("'" + path +
                     "' is not a valid ONNX TensorProto (truncated or corrupt "
                     "protobuf)");
  file->reset();
  // Protobuf accepts many byte strings; a tensor file names a known type.
  if (getDataTypeInfo(tensor.data_type()).name == "undefined")
    return makeError("'" + path +
                     "' is not an ONNX TensorProto (no known data type)");

  std::string what = "tensor '" + tensor.name() + "' in '" + path.str() + "'";
  // Checked here as well as by takeTensorData so that the message says
  // which dim is wrong, not only that the byte count is.
  for (auto [i, dim] : llvm::enumerate(tensor.dims()))
    if (dim < 0)
      return makeError(what + " has a negative dim " + llvm::Twine(dim) +
                       " at position " + llvm::Twine(i));
  std::optional<int64_t> bytes =
      checkedByteSize(tensor.dims(), getDataTypeInfo(tensor.data_type()).size);
  if (!bytes)
    return makeError(what + " has dims whose byte size overflows");
  llvm::Expected<onnx_import::TensorData> data = onnx_import::takeTensorData(
      tensor, llvm::sys::path::parent_path(path), what);
  if (!data)
    return data.takeError();
  // Kernels read bool bytes as 0 or 1.
  if (tensor.data_type() == onnx::TensorProto::BOOL)
    for (auto [i, byte] : llvm::enumerate(data->bytes()))
      if (byte != 0 && byte != 1)
        return makeError(
            what + ": bool element " + llvm::Twine(i) + " is " +
            llvm::Twine(static_cast<int>(static_cast<unsigned char>(byte))) +
            ", not 0 or 1");

  HostTensor result;
  result.name = tensor.name();
  result.dtype = tensor.data_type();
  result.dims.assign(tensor.dims().begin(), tensor.dims().end());
  result.data.assign(data->bytes().begin(), data->bytes().end());
  return result;
}

} // namespace graphc
