//===- KernelAttrs.h - the graph ops' attributes for host kernels -*- C++ -*-===//
//
// attrs::<Op> for every graph op with attributes, generated from the op
// definitions by graphc-tblgen -gen-host-kernel-attrs: one field per ODS
// attribute, initialised with its ODS default. A kernel reads its attributes
// only through these, e.g.
//
//   attrs::LeakyRelu a;
//   GC_TRY(a.read(ctx));
//   ... a.alpha ...
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_HOSTKERNELS_KERNELATTRS_H
#define GRAPHC_HOSTKERNELS_KERNELATTRS_H

#include "lib/HostKernels/KernelSupport.h"

#include <optional>

namespace graphc::hk::attrs {
#include "lib/HostKernels/HostKernelAttrs.h.inc"
} // namespace graphc::hk::attrs

#endif // GRAPHC_HOSTKERNELS_KERNELATTRS_H
