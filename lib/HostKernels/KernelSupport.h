//===- KernelSupport.h - shared helpers of the host kernels -----*- C++ -*-===//
#ifndef GRAPHC_HOSTKERNELS_KERNELSUPPORT_H
#define GRAPHC_HOSTKERNELS_KERNELSUPPORT_H

#include "lib/HostKernels/HostKernels.h"

#include <cstdio>
#include <cstring>

namespace graphc::hk {

/// Declares a kernel with the gc_host_kernel_fn signature.
#define GC_DEFINE_HOST_KERNEL(name)                                            \
  extern "C" int gc_hk_##name(const gc_tensor *inputs, int32_t num_inputs,     \
                              gc_tensor *outputs, int32_t num_outputs,         \
                              const gc_attrs *attrs, char *err, size_t err_len)

/// Writes a message into the caller's error buffer and returns 1.
int fail(char *err, size_t len, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

inline int64_t numElements(const gc_tensor &t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t.rank; ++i)
    n *= t.dims[i];
  return n;
}

/// Attribute lookup; missing attributes take the caller's (ONNX) default.
const gc_attr *findAttr(const gc_attrs *attrs, const char *name);
int64_t getInt(const gc_attrs *attrs, const char *name, int64_t fallback);
double getFloat(const gc_attrs *attrs, const char *name, double fallback);

} // namespace graphc::hk

#endif
