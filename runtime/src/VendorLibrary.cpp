//===- VendorLibrary.cpp - vendor libraries opened at run time ------------===//
#include "runtime/src/VendorLibrary.h"

#include <dlfcn.h>

void *graphc::rt::openVendorLibrary(const std::string &path,
                                    std::string &error) {
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    error = "cannot open " + path +
            (reason ? std::string(" (") + reason + ")" : "");
  }
  return handle;
}

void *graphc::rt::vendorSymbol(void *handle, const char *name) {
  return dlsym(handle, name);
}
