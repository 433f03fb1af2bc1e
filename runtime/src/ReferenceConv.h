//===- ReferenceConv.h - library convolutions computed on the host -*- C++
//-*-===//
//
// The cpu target runs a cuDNN kernel (GRAPHC_LIBRARY_CUDNN) with this
// convolution instead of the library: a graphc_conv_desc computed exactly
// as descriptor.h defines it, on dense host tensors with their channels
// first (NC[D]HW) or last (N[D]HWC, W [k, filter..., c / groups]).
// float32, float16 or bfloat16 elements; products, sums and the epilogue
// in float (with tf32, X and W rounded to tf32 first), each element of Y
// rounded once to its type when stored. Both layouts give the same bits.
// int8 X and W into int32 Y: the exact int32 sums (two's complement).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_REFERENCECONV_H
#define GRAPHC_RUNTIME_SRC_REFERENCECONV_H

#include "graphc/descriptor.h"

#include <string>

namespace graphc::rt {

/// A field of a convolution descriptor whose value no convolution of this
/// runtime (the reference's or cuDNN's) computes.
enum class ConvField {
  kNone,
  kDtype,        // not float32, float16, bfloat16 or int8
  kComputeDtype, // not float32 (int32 for int8)
  kInt8Epilogue, // an int8 convolution with a bias, Z or epilogue
  kEpilogue,     // not none, relu, silu or gelu (erf)
  kSpatialDims,  // not 1 to GRAPHC_MAX_CONV_SPATIAL_DIMS
  kTf32,         // tf32 products of tensors other than float32
  kLayout,       // channels_last neither 0 nor 1
};
/// The first such field of `conv`, kNone when there is none; each caller
/// says why in its own words.
ConvField unsupportedConvField(const graphc_conv_desc &conv);

/// Whether runReferenceConv computes `conv` (its dtype, compute dtype,
/// epilogue, spatial dims and layout); sets `error` to why not.
bool referenceConvSupports(const graphc_conv_desc &conv, std::string &error);

/// Computes `conv` on the step's resolved arguments `args` (args[x_arg],
/// ...; the workspace is not used). The descriptor was checked
/// (checkDescriptor): every tensor lies within its buffer and Y overlaps
/// none of them. Returns false with `error` set when the convolution is not
/// supported or scratch memory cannot be allocated.
bool runReferenceConv(const graphc_conv_desc &conv, void *const *args,
                      std::string &error);

} // namespace graphc::rt

#endif
