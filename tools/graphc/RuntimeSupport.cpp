//===- RuntimeSupport.cpp - the runtime's C API from the tools ------------===//

#include "tools/graphc/RuntimeSupport.h"

#include "lib/Artifact/Staging.h"
#include "lib/Import/ONNX/TensorFile.h"
#include "lib/Support/CheckedArith.h"
#include "lib/Support/Npy.h"
#include "runtime/src/Dtype.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Path.h"

#include <cstring>

namespace graphc::tools {

llvm::Expected<HostTensor> readTensorArgument(const std::string &spec,
                                              std::string &name,
                                              std::string &path) {
  path = spec;
  size_t equals = spec.find('=');
  if (equals != std::string::npos) {
    name = spec.substr(0, equals);
    path = spec.substr(equals + 1);
    if (name.empty())
      return llvm::createStringError("input '" + spec +
                                     "': the name before '=' is empty");
  }
  llvm::StringRef extension = llvm::sys::path::extension(path);
  if (extension == ".npy")
    return readNpyFile(path);
  if (extension == ".pb")
    return readTensorProtoFile(path);
  return llvm::createStringError("input '" + spec +
                                 "': expected a .npy or ONNX TensorProto .pb "
                                 "file");
}

llvm::Expected<OpenModel> openModel(const std::string &path, int device,
                                    uint32_t flags) {
  OpenModel open;
  graphc_model_options loadOptions;
  graphc_model_options_init(&loadOptions);
  loadOptions.device_ordinal = device;
  graphc_model *model = nullptr;
  if (graphc_status status =
          graphc_model_load(path.c_str(), &loadOptions, &model))
    return toError(status);
  open.model.reset(model);
  graphc_session_options sessionOptions;
  graphc_session_options_init(&sessionOptions);
  sessionOptions.device_ordinal = device;
  sessionOptions.flags = flags;
  graphc_session *session = nullptr;
  if (graphc_status status =
          graphc_session_create(model, &sessionOptions, &session))
    return toError(status);
  open.session.reset(session);
  return std::move(open);
}

SessionBuffers::~SessionBuffers() {
  for (void *data : owned)
    graphc_session_free_buffer(session, data);
}

llvm::Expected<void *> SessionBuffers::allocate(uint64_t bytes) {
  void *data = nullptr;
  if (graphc_status status =
          graphc_session_allocate_buffer(session, bytes, &data))
    return toError(status);
  owned.push_back(data);
  return data;
}

llvm::Expected<void *> SessionBuffers::upload(const std::vector<char> &host) {
  llvm::Expected<void *> data = allocate(host.size());
  if (!data || host.empty())
    return data;
  if (graphc_status status =
          graphc_session_upload(session, *data, host.data(), host.size()))
    return toError(status);
  return data;
}

llvm::Error toError(graphc_status status) {
  std::string message = graphc_status_message(status);
  graphc_status_free(status);
  return llvm::createStringError(message);
}

DLDataType dlpackDtype(int32_t dtype) {
  // The runtime's own table (header-only); lanes 0 for a dtype it lacks.
  return rt::dlpackFromDtype(dtype);
}

std::optional<int64_t> denseTensorBytes(int32_t dtype,
                                        llvm::ArrayRef<int64_t> dims) {
  std::optional<int64_t> count = checkedByteSize(dims, 1);
  if (!count)
    return std::nullopt;
  int64_t bytes = rt::storageBytes(dtype, *count);
  return bytes < 0 ? std::nullopt : std::optional<int64_t>(bytes);
}

HostTensor unpackedFourBit(const HostTensor &tensor) {
  if (!rt::isFourBitDtype(tensor.dtype))
    return tensor;
  std::optional<int64_t> count = checkedByteSize(tensor.dims, 1);
  HostTensor unpacked{tensor.name,
                      tensor.dtype == rt::kInt4 ? rt::kInt8 : rt::kUint8,
                      tensor.dims,
                      {}};
  if (!count || rt::storageBytes(tensor.dtype, *count) !=
                    static_cast<int64_t>(tensor.data.size()))
    return unpacked; // not a whole tensor: no values
  unpacked.data.resize(static_cast<size_t>(*count));
  for (int64_t i = 0; i < *count; ++i)
    unpacked.data[i] = static_cast<char>(rt::fourBitElement(
        reinterpret_cast<const unsigned char *>(tensor.data.data()), i,
        tensor.dtype == rt::kInt4));
  return unpacked;
}

llvm::Error packFourBitInput(HostTensor &tensor, const std::string &path,
                             const graphc_tensor_info &info) {
  bool isSigned = info.dtype == rt::kInt4;
  if (!rt::isFourBitDtype(info.dtype) ||
      tensor.dtype != (isSigned ? rt::kInt8 : rt::kUint8))
    return llvm::Error::success();
  int low = isSigned ? -8 : 0, high = isSigned ? 7 : 15;
  std::vector<char> packed((tensor.data.size() + 1) / 2, 0);
  for (size_t i = 0; i < tensor.data.size(); ++i) {
    int value = isSigned ? static_cast<signed char>(tensor.data[i])
                         : static_cast<unsigned char>(tensor.data[i]);
    if (value < low || value > high)
      return llvm::createStringError(
          "input '" + std::string(info.name) + "': element " +
          std::to_string(i) + " of '" + path + "' is " + std::to_string(value) +
          ", outside the " + graphc_dtype_name(info.dtype) + " range [" +
          std::to_string(low) + ", " + std::to_string(high) + "]");
    packed[i / 2] |= static_cast<char>((value & 0xf) << (i % 2 * 4));
  }
  tensor.dtype = info.dtype;
  tensor.data = std::move(packed);
  return llvm::Error::success();
}

// A file may claim any rank: past 16 dims only their count is shown.
std::string describeType(int32_t dtype, llvm::ArrayRef<int64_t> dims) {
  constexpr size_t kShownDims = 16;
  std::string text = graphc_dtype_name(dtype);
  text += "[";
  for (auto [i, dim] : llvm::enumerate(dims.take_front(kShownDims)))
    text += (i ? "," : "") + (dim < 0 ? "?" : std::to_string(dim));
  if (dims.size() > kShownDims)
    text += ",... (" + std::to_string(dims.size()) + " dims)";
  return text + "]";
}

llvm::Error checkInputType(const HostTensor &tensor, const std::string &path,
                           const graphc_tensor_info &info) {
  llvm::ArrayRef<int64_t> expected(info.dims, info.rank);
  bool matches = tensor.dtype == info.dtype &&
                 tensor.dims.size() == static_cast<size_t>(info.rank);
  for (size_t d = 0; matches && d < tensor.dims.size(); ++d)
    matches = expected[d] < 0 || expected[d] == tensor.dims[d];
  if (matches)
    return llvm::Error::success();
  return llvm::createStringError(
      "input '" + std::string(info.name) + "': expected " +
      describeType(info.dtype, expected) + ", got " +
      describeType(tensor.dtype, tensor.dims) + " from '" + path + "'");
}

llvm::Expected<DLTensor> bindTensor(HostTensor &host, DLDevice device,
                                    bool cuda, bool upload,
                                    SessionBuffers &buffers,
                                    graphc_session *session) {
  DLTensor tensor{};
  tensor.device = device;
  tensor.ndim = static_cast<int32_t>(host.dims.size());
  tensor.dtype = dlpackDtype(host.dtype);
  tensor.shape = host.dims.data();
  tensor.strides = nullptr;
  tensor.byte_offset = 0;
  tensor.data = host.data.data();
  if (!cuda)
    return tensor;
  llvm::Expected<void *> data = buffers.allocate(host.data.size());
  if (!data)
    return data.takeError();
  if (upload)
    if (graphc_status status = graphc_session_upload(
            session, *data, host.data.data(), host.data.size()))
      return toError(status);
  tensor.data = *data;
  return tensor;
}

llvm::Error cutToFoundDims(graphc_session *session, int32_t o,
                           const graphc_tensor_info &info, HostTensor &host,
                           std::vector<int64_t> &bounds) {
  bounds.clear();
  if (!info.data_dependent)
    return llvm::Error::success();
  std::vector<int64_t> found(info.rank);
  if (graphc_status status =
          graphc_session_output_dims(session, o, found.data()))
    return toError(status);
  size_t elementBytes = graphc_dtype_size(host.dtype);
  // The corner lies within the bounds (the runtime checked the extents),
  // so its bytes fit too.
  std::vector<char> corner(
      static_cast<size_t>(*checkedByteSize(found, elementBytes)));
  std::vector<int64_t> origin(info.rank, 0);
  rt::forEachContiguousRun(
      found, host.dims, origin, found, origin, elementBytes,
      [&](uint64_t from, uint64_t to, uint64_t bytes) {
        std::memcpy(corner.data() + to, host.data.data() + from, bytes);
      });
  bounds = std::move(host.dims);
  host.dims = std::move(found);
  host.data = std::move(corner);
  return llvm::Error::success();
}

} // namespace graphc::tools
