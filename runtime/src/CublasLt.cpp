//===- CublasLt.cpp - loading cuBLASLt ------------------------------------===//
#include "runtime/src/CublasLt.h"

#include "runtime/src/VendorLibrary.h"

#include <cstdlib>

using namespace graphc::rt;

std::string lt::statusName(Status status) {
  switch (status) {
  case 0:
    return "CUBLAS_STATUS_SUCCESS";
  case 1:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case 3:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case 7:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case 8:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case 11:
    return "CUBLAS_STATUS_MAPPING_ERROR";
  case 13:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case 14:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case 15:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  case 16:
    return "CUBLAS_STATUS_LICENSE_ERROR";
  default:
    return "cuBLAS status " + std::to_string(status);
  }
}

std::string lt::Library::describe(Status status) const {
  const char *text = getStatusString ? getStatusString(status) : nullptr;
  std::string name = statusName(status);
  return text && *text ? name + " (" + text + ")" : name;
}

bool lt::loadLibrary(const std::string &path, Library &library,
                     std::string &error) {
  void *handle = openVendorLibrary(path, error);
  if (!handle)
    return false;
#define GRAPHC_LT_SYMBOL(member, symbol, result, params)                       \
  library.member = reinterpret_cast<decltype(library.member)>(                 \
      vendorSymbol(handle, symbol));                                           \
  if (!library.member) {                                                       \
    error = path + " lacks " symbol " (not cuBLASLt, or too old)";             \
    return false;                                                              \
  }
#include "runtime/src/CublasLtSymbols.def"
  library.path = path;
  library.version = library.getVersion();
  return true;
}

const lt::Library *lt::getLibrary(std::string &error) {
  const char *override = std::getenv("GRAPHC_CUBLASLT_LIBRARY");
  if (override && *override)
    return loadVendorLibraryOnce<Library>(override, loadLibrary, error);
  // CUDA 13's cuBLASLt, else CUDA 12's: the runtime uses only API both have.
  std::string current, previous;
  if (const Library *library = loadVendorLibraryOnce<Library>(
          "libcublasLt.so.13", loadLibrary, current))
    return library;
  if (const Library *library = loadVendorLibraryOnce<Library>(
          "libcublasLt.so.12", loadLibrary, previous))
    return library;
  error = current + "; " + previous;
  return nullptr;
}
