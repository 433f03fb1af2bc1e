//===- KernelAttrs.h - the graph ops' attributes for host kernels -*- C++ -*-===//
//
// attrs::<Op> for every graph op with attributes, generated from the op
// definitions by graphc-tblgen -gen-host-kernel-attrs: one field per ODS
// attribute, initialised with its ODS default. A kernel of an op with
// attributes receives them read and checked, before its body runs:
//
//   GC_KERNEL_ATTRS(leaky_relu, LeakyRelu, a) { ... a.alpha ... }
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_HOSTKERNELS_KERNELATTRS_H
#define GRAPHC_HOSTKERNELS_KERNELATTRS_H

#include "lib/HostKernels/KernelSupport.h"

#include <optional>

namespace graphc::hk::attrs {
#include "lib/HostKernels/HostKernelAttrs.h.inc"
} // namespace graphc::hk::attrs

/// GC_KERNEL for an op with attributes: the body receives them as `var`, an
/// attrs::Attrs read from the call (a wrong kind or a missing required
/// attribute fails before the body runs).
#define GC_KERNEL_ATTRS(name, Attrs, var)                                      \
  static int name##Kernel(::graphc::hk::KernelContext &ctx,                    \
                          const ::graphc::hk::attrs::Attrs &var);              \
  GC_DEFINE_HOST_KERNEL(name) {                                                \
    ::graphc::hk::KernelContext ctx{inputs,  num_inputs, outputs, num_outputs, \
                                    attrs,   err,        err_len, #name};      \
    if (int status = ctx.validate())                                           \
      return status;                                                           \
    ::graphc::hk::attrs::Attrs read;                                           \
    if (int status = read.read(ctx))                                           \
      return status;                                                           \
    return name##Kernel(ctx, read);                                            \
  }                                                                            \
  static int name##Kernel(::graphc::hk::KernelContext &ctx,                    \
                          const ::graphc::hk::attrs::Attrs &var)

#endif // GRAPHC_HOSTKERNELS_KERNELATTRS_H
