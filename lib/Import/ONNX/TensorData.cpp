//===- TensorData.cpp - the bytes of an ONNX TensorProto ------------------===//

#include "lib/Import/ONNX/TensorData.h"
#include "lib/Import/ONNX/OnnxModel.h"
#include "lib/Artifact/OnnxDtype.h"
#include "lib/Support/CheckedArith.h"
#include "lib/Support/ReadFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstring>

namespace graphc::onnx_import {

TensorData TensorData::fromString(std::unique_ptr<std::string> storage) {
  TensorData data;
  data.view = llvm::ArrayRef<char>(storage->data(), storage->size());
  data.string = std::move(storage);
  return data;
}

TensorData TensorData::fromBuffer(std::unique_ptr<llvm::MemoryBuffer> storage) {
  TensorData data;
  data.view =
      llvm::ArrayRef<char>(storage->getBufferStart(), storage->getBufferSize());
  data.buffer = std::move(storage);
  return data;
}

std::optional<int64_t> tensorByteSize(const onnx::TensorProto &tensor) {
  if (isFourBitDtype(tensor.data_type())) {
    std::optional<int64_t> count =
        checkedByteSize(tensor.dims().data(), tensor.dims().size(), 1);
    if (!count)
      return std::nullopt;
    return rt::storageBytes(tensor.data_type(), *count);
  }
  size_t elementSize = getDataTypeInfo(tensor.data_type()).size;
  if (elementSize == 0)
    return std::nullopt;
  return checkedByteSize(tensor.dims().data(), tensor.dims().size(),
                         static_cast<int64_t>(elementSize));
}

std::unique_ptr<std::string> unpackFourBit(llvm::ArrayRef<char> packed,
                                           int64_t count, bool isSigned) {
  auto bytes = std::make_unique<std::string>(count, '\0');
  for (int64_t i = 0; i < count; ++i)
    (*bytes)[i] = static_cast<char>(rt::fourBitElement(
        reinterpret_cast<const unsigned char *>(packed.data()), i, isSigned));
  return bytes;
}

/// Packs typed repeated values into little-endian elements of `Element`.
template <typename Element, typename Repeated>
static std::unique_ptr<std::string> packValues(const Repeated &values) {
  auto bytes =
      std::make_unique<std::string>(values.size() * sizeof(Element), '\0');
  for (int i = 0; i < values.size(); ++i) {
    auto value = static_cast<Element>(values.Get(i));
    std::memcpy(bytes->data() + i * sizeof(Element), &value, sizeof(Element));
  }
  return bytes;
}

/// Converts the typed value fields of `tensor` into packed bytes.
static std::unique_ptr<std::string>
packTypedFields(const onnx::TensorProto &tensor) {
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    return packValues<float>(tensor.float_data());
  case onnx::TensorProto::DOUBLE:
    return packValues<double>(tensor.double_data());
  case onnx::TensorProto::INT64:
    return packValues<int64_t>(tensor.int64_data());
  case onnx::TensorProto::UINT32:
    return packValues<uint32_t>(tensor.uint64_data());
  case onnx::TensorProto::UINT64:
    return packValues<uint64_t>(tensor.uint64_data());
  case onnx::TensorProto::INT32:
    return packValues<int32_t>(tensor.int32_data());
  // Narrow types are stored one per int32; half floats as their bit pattern.
  case onnx::TensorProto::INT16:
    return packValues<int16_t>(tensor.int32_data());
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    return packValues<uint16_t>(tensor.int32_data());
  case onnx::TensorProto::INT8:
    return packValues<int8_t>(tensor.int32_data());
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::BOOL:
  case 21: // UINT4 and INT4: a packed byte per int32
  case 22:
  case rt::kFloat8E4M3FN: // 8-bit floats as their bit pattern
  case rt::kFloat8E4M3FNUZ:
  case rt::kFloat8E5M2:
  case rt::kFloat8E5M2FNUZ:
    return packValues<uint8_t>(tensor.int32_data());
  default:
    return std::make_unique<std::string>();
  }
}

/// The real path of the external data file `location` names relative to
/// `baseDir`, refusing any location that could reach outside that folder:
/// absolute paths, `..` components, NUL bytes (which would cut the name short
/// when it reaches the C library) and symlinks, of the file or of a folder on
/// the way, that lead elsewhere.
static llvm::Expected<std::string>
resolveExternalLocation(const std::string &location, llvm::StringRef baseDir,
                        llvm::StringRef what) {
  auto refuse = [&](const llvm::Twine &reason) {
    return makeError(what + " has unsafe external data location '" +
                     llvm::StringRef(location.c_str()) + "': " + reason);
  };
  if (location.find('\0') != std::string::npos)
    return refuse("it contains a NUL byte");
  if (llvm::sys::path::is_absolute(location,
                                   llvm::sys::path::Style::posix) ||
      llvm::sys::path::is_absolute(location,
                                   llvm::sys::path::Style::windows))
    return refuse("it is an absolute path");
  for (llvm::StringRef component : llvm::make_range(
           llvm::sys::path::begin(location, llvm::sys::path::Style::windows),
           llvm::sys::path::end(location)))
    if (component == "..")
      return refuse("it contains a '..' component");

  llvm::SmallString<256> folder(baseDir.empty() ? llvm::StringRef(".")
                                                : baseDir);
  llvm::SmallString<256> path(folder);
  llvm::sys::path::append(path, location);
  llvm::SmallString<256> realFolder, realPath;
  if (std::error_code ec = llvm::sys::fs::real_path(folder, realFolder))
    return makeError("cannot resolve the folder '" + folder + "' of " + what +
                     ": " + ec.message());
  if (std::error_code ec = llvm::sys::fs::real_path(path, realPath))
    return makeError("cannot read external data file '" + path + "' of " +
                     what + ": " + ec.message());
  llvm::StringRef inside = realPath.str();
  if (!inside.consume_front(realFolder) ||
      !(realFolder.str() == "/" ||
        inside.starts_with(llvm::sys::path::get_separator())))
    return refuse("it resolves to '" + realPath +
                  "', outside the folder '" + realFolder + "'");
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(realPath, status))
    return makeError("cannot read external data file '" + path + "' of " +
                     what + ": " + ec.message());
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return refuse("it is not a regular file");
  return std::string(realPath);
}

/// Reads the external data of `tensor` from beside the model.
static llvm::Expected<TensorData>
readExternalData(const onnx::TensorProto &tensor, llvm::StringRef baseDir,
                 llvm::StringRef what, int64_t expectedBytes) {
  std::string location;
  int64_t offset = 0;
  std::optional<int64_t> length;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    llvm::StringRef value = entry.value();
    int64_t number = 0;
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      if (value.getAsInteger(10, number) || number < 0)
        return makeError(what + " has an invalid external data " + entry.key() +
                         " '" + value + "'");
      if (entry.key() == "offset")
        offset = number;
      else
        length = number;
    }
  }
  if (location.empty())
    return makeError(what + " has external data without a location");
  llvm::Expected<std::string> resolved =
      resolveExternalLocation(location, baseDir, what);
  if (!resolved)
    return resolved.takeError();
  const std::string &path = *resolved;
  uint64_t fileSize = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(path, fileSize))
    return makeError("cannot read external data file '" + path + "' of " +
                     what + ": " + ec.message());
  int64_t size = length.value_or(static_cast<int64_t>(fileSize) - offset);
  if (size != expectedBytes)
    return makeError(what + " has " + llvm::Twine(size) +
                     " bytes of external data, expected " +
                     llvm::Twine(expectedBytes));
  std::optional<int64_t> end = checkedAdd(offset, size);
  if (!end || static_cast<uint64_t>(*end) > fileSize)
    return makeError("external data of " + what + " ends past the end of '" +
                     path + "' (offset " + llvm::Twine(offset) + ", length " +
                     llvm::Twine(size) + ", file size " +
                     llvm::Twine(fileSize) + ")");
  if (size == 0)
    return TensorData::fromString(std::make_unique<std::string>());
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readUserFileSlice(path, static_cast<uint64_t>(size),
                        static_cast<uint64_t>(offset));
  if (!buffer)
    return makeError("external data of " + what + ": " +
                     llvm::toString(buffer.takeError()));
  return TensorData::fromBuffer(std::move(*buffer));
}

llvm::Expected<TensorData> takeTensorData(onnx::TensorProto &tensor,
                                          llvm::StringRef baseDir,
                                          llvm::StringRef what) {
  DataTypeInfo info = getDataTypeInfo(tensor.data_type());
  if (info.size == 0 && !isFourBitDtype(tensor.data_type()))
    return makeError("unsupported element type " + info.name + " of " + what);
  if (tensor.has_segment())
    return makeError("unsupported segmented tensor data of " + what);
  std::optional<int64_t> expectedBytes = tensorByteSize(tensor);
  if (!expectedBytes)
    return makeError(what + " has invalid dims (negative, or too large)");

  if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return readExternalData(tensor, baseDir, what, *expectedBytes);

  std::unique_ptr<std::string> bytes;
  if (tensor.has_raw_data())
    bytes =
        std::make_unique<std::string>(std::move(*tensor.mutable_raw_data()));
  else
    bytes = packTypedFields(tensor);
  if (static_cast<int64_t>(bytes->size()) != *expectedBytes)
    return makeError(what + " has " + llvm::Twine(bytes->size()) +
                     " bytes of data, expected " + llvm::Twine(*expectedBytes));
  return TensorData::fromString(std::move(bytes));
}

} // namespace graphc::onnx_import
