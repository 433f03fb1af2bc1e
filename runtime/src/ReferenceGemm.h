//===- ReferenceGemm.h - library GEMMs computed on the host -----*- C++ -*-===//
//
// The cpu target runs a library kernel (GRAPHC_STEP_LIBRARY_CALL) with this
// GEMM instead of a vendor library: a graphc_gemm_desc computed exactly as
// descriptor.h defines it, on row-major host matrices. float32, float16 or
// bfloat16 elements, float32 accumulation (with tf32, A and B rounded to
// tf32 first); int8 summed exactly in int32, and float8e4m3fn summed in
// float32, into D of the accumulator's type; other dtypes are refused with
// a message.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_REFERENCEGEMM_H
#define GRAPHC_RUNTIME_SRC_REFERENCEGEMM_H

#include "graphc/descriptor.h"

#include <cstdint>
#include <string>

namespace graphc::rt {

/// Whether runReferenceGemm computes `gemm` (its dtype, compute dtype and
/// epilogue); sets `error` to why not.
bool referenceGemmSupports(const graphc_gemm_desc &gemm, std::string &error);

/// Computes `gemm` on the step's resolved arguments `args` (args[a_arg],
/// ...; the workspace is not used). The descriptor was checked
/// (checkDescriptor): extents lie within the buffers, D overlaps no operand
/// but possibly C exactly. Returns false with `error` set when the GEMM is
/// not supported or scratch memory cannot be allocated.
bool runReferenceGemm(const graphc_gemm_desc &gemm, void *const *args,
                      std::string &error);

/// `sum` wrapped to int32 two's complement (its low 32 bits): an int8
/// GEMM's or convolution's exact int32 sum, computed in int64.
int32_t wrapToInt32(int64_t sum);

/// The GELU_TANH epilogue: graph GELU's tanh approximation in float
/// (scalar::gelu in lib/Support/ScalarOps.h).
float geluTanh(float x);

} // namespace graphc::rt

#endif
