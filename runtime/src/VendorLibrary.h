//===- VendorLibrary.h - vendor libraries opened at run time ----*- C++ -*-===//
//
// The CUDA driver, cuBLASLt and cuDNN are never linked: the first model that
// needs one opens it with dlopen and reads its entry points into a table
// (CudaDriver.h, CublasLt.h, Cudnn.h). What they share: opening a library
// for the life of the process (handles and plans of live sessions point into
// it, so it is never closed), and loading each path once, keeping the table
// or the failure.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_VENDORLIBRARY_H
#define GRAPHC_RUNTIME_SRC_VENDORLIBRARY_H

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace graphc::rt {

/// dlopen's `path` for good. Returns null and sets `error` ("cannot open
/// PATH (reason)") when it does not open.
void *openVendorLibrary(const std::string &path, std::string &error);

/// The entry points symbol `name` of `handle` resolves to, or null.
void *vendorSymbol(void *handle, const char *name);

/// The table `load(path, table, error)` fills for `path`, loaded once per
/// path and table type for the life of the process: a session keeps using
/// the table its model was given, and a path that failed is not retried.
/// Returns null and sets `error` when that load failed.
template <typename Table>
const Table *loadVendorLibraryOnce(const std::string &path,
                                   bool (*load)(const std::string &, Table &,
                                                std::string &),
                                   std::string &error) {
  struct Loaded {
    Table table;
    std::string error;
  };
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Loaded>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Loaded> &entry = loaded[path];
  if (!entry) {
    entry = std::make_unique<Loaded>();
    if (!load(path, entry->table, entry->error) && entry->error.empty())
      entry->error = "cannot load " + path;
  }
  if (!entry->error.empty()) {
    error = entry->error;
    return nullptr;
  }
  return &entry->table;
}

} // namespace graphc::rt

#endif
