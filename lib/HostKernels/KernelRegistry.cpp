//===- KernelRegistry.cpp - host kernels by op mnemonic -------------------===//
//
// Only the compiler links this file: model .so files call their kernels by
// symbol, so unused kernels are dropped by the linker.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelSupport.h"

#include <cstring>

#define GC_HOST_KERNEL(name) GC_DEFINE_HOST_KERNEL(name);
#include "lib/HostKernels/HostKernelList.def"

namespace {
struct Entry {
  const char *name;
  gc_host_kernel_fn fn;
};
const Entry kKernels[] = {
#define GC_HOST_KERNEL(name) {#name, gc_hk_##name},
#include "lib/HostKernels/HostKernelList.def"
};
} // namespace

extern "C" gc_host_kernel_fn gc_host_kernel_lookup(const char *op) {
  for (const Entry &entry : kKernels)
    if (std::strcmp(entry.name, op) == 0)
      return entry.fn;
  return nullptr;
}
