//===- Cudnn.cpp - loading cuDNN ------------------------------------------===//
#include "runtime/src/Cudnn.h"

#include "runtime/src/VendorLibrary.h"

#include <cstdlib>

using namespace graphc::rt;

std::string dnn::statusName(Status status) {
  switch (status) {
  case 0:
    return "CUDNN_STATUS_SUCCESS";
  case 1001:
    return "CUDNN_STATUS_NOT_INITIALIZED";
  case 1002:
    return "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH";
  case 1008:
    return "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED";
  case 2000:
    return "CUDNN_STATUS_BAD_PARAM";
  case 2002:
    return "CUDNN_STATUS_BAD_PARAM_NULL_POINTER";
  case 2003:
    return "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER";
  case 2004:
    return "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED";
  case 2005:
    return "CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND";
  case 2006:
    return "CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT";
  case 2009:
    return "CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES";
  case 2010:
    return "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE";
  case 2012:
    return "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE";
  case 3000:
    return "CUDNN_STATUS_NOT_SUPPORTED";
  case 3001:
    return "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN";
  case 3002:
    return "CUDNN_STATUS_NOT_SUPPORTED_SHAPE";
  case 3003:
    return "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE";
  case 3004:
    return "CUDNN_STATUS_NOT_SUPPORTED_LAYOUT";
  case 3007:
    return "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH";
  case 3010:
    return "CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT";
  case 4000:
    return "CUDNN_STATUS_INTERNAL_ERROR";
  case 4001:
    return "CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED";
  case 4003:
    return "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED";
  case 4004:
    return "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED";
  case 5000:
    return "CUDNN_STATUS_EXECUTION_FAILED";
  case 5001:
    return "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER";
  default:
    return "cuDNN status " + std::to_string(status);
  }
}

std::string dnn::versionText(size_t version) {
  return std::to_string(version / 10000) + "." +
         std::to_string(version % 10000 / 100) + "." +
         std::to_string(version % 100);
}

std::string dnn::Library::describe(Status status) const {
  const char *text = getErrorString ? getErrorString(status) : nullptr;
  std::string name = statusName(status);
  return text && *text ? name + " (" + text + ")" : name;
}

std::string dnn::Library::title() const {
  return "cuDNN " + versionText(version) + " (" + path + ")";
}

bool dnn::loadLibrary(const std::string &path, Library &library,
                      std::string &error) {
  void *handle = openVendorLibrary(path, error);
  if (!handle)
    return false;
#define GRAPHC_DNN_SYMBOL(member, symbol, result, params)                      \
  library.member = reinterpret_cast<decltype(library.member)>(                 \
      vendorSymbol(handle, symbol));                                           \
  if (!library.member) {                                                       \
    error = path + " lacks " symbol " (not cuDNN 9, or too old)";              \
    return false;                                                              \
  }
#include "runtime/src/CudnnSymbols.def"
  library.path = path;
  library.version = library.getVersion();
  return true;
}

const dnn::Library *dnn::getLibrary(std::string &error) {
  const char *override = std::getenv("GRAPHC_CUDNN_LIBRARY");
  // cuDNN 9: the backend API with the attributes Cudnn.h names.
  return loadVendorLibraryOnce<Library>(
      override && *override ? override : "libcudnn.so.9", loadLibrary, error);
}
