//===- KernelSupport.cpp - shared helpers of the host kernels -------------===//

#include "lib/HostKernels/KernelSupport.h"

#include <cstdarg>

namespace graphc::hk {

int fail(char *err, size_t len, const char *format, ...) {
  if (err && len) {
    va_list args;
    va_start(args, format);
    std::vsnprintf(err, len, format, args);
    va_end(args);
  }
  return 1;
}

const gc_attr *findAttr(const gc_attrs *attrs, const char *name) {
  if (!attrs)
    return nullptr;
  for (int32_t i = 0; i < attrs->count; ++i)
    if (std::strcmp(attrs->items[i].name, name) == 0)
      return &attrs->items[i];
  return nullptr;
}

int64_t getInt(const gc_attrs *attrs, const char *name, int64_t fallback) {
  const gc_attr *attr = findAttr(attrs, name);
  return attr && (attr->kind == GC_ATTR_INT || attr->kind == GC_ATTR_TYPE)
             ? attr->i
             : fallback;
}

double getFloat(const gc_attrs *attrs, const char *name, double fallback) {
  const gc_attr *attr = findAttr(attrs, name);
  return attr && attr->kind == GC_ATTR_FLOAT ? attr->f : fallback;
}

} // namespace graphc::hk

extern "C" size_t gc_dtype_size(int32_t dtype) {
  switch (dtype) {
  case GC_DTYPE_BOOL:
  case GC_DTYPE_U8:
  case GC_DTYPE_I8:
    return 1;
  case GC_DTYPE_U16:
  case GC_DTYPE_I16:
  case GC_DTYPE_F16:
  case GC_DTYPE_BF16:
    return 2;
  case GC_DTYPE_F32:
  case GC_DTYPE_I32:
  case GC_DTYPE_U32:
    return 4;
  case GC_DTYPE_F64:
  case GC_DTYPE_I64:
  case GC_DTYPE_U64:
    return 8;
  default:
    return 0;
  }
}
