//===- Dtype.h - dtype names, sizes and DLPack mapping ----------*- C++ -*-===//
#ifndef GRAPHC_RUNTIME_SRC_DTYPE_H
#define GRAPHC_RUNTIME_SRC_DTYPE_H

#include "lib/Artifact/OnnxDtype.h"

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>

namespace graphc::rt {

/// DLPack 0.8 added kDLBool and 1.1 the 8-bit floats; the header here may
/// predate them.
inline constexpr uint8_t kDLBoolCode = 6;
inline constexpr uint8_t kDLFloat8E4M3FNCode = 10;
inline constexpr uint8_t kDLFloat8E4M3FNUZCode = 11;
inline constexpr uint8_t kDLFloat8E5M2Code = 12;
inline constexpr uint8_t kDLFloat8E5M2FNUZCode = 13;

/// The DLPack dtype of each dtype the runtime runs: one table for both
/// directions (the C API's checks, and callers such as the Triton backend
/// that describe their buffers to it). Header-only, for those callers.
struct DlpackDtype {
  int32_t dtype; ///< ONNX numbering
  DLDataType dlpack;
};
inline constexpr DlpackDtype kDlpackDtypes[] = {
    {kFloat, {kDLFloat, 32, 1}},  {kFloat16, {kDLFloat, 16, 1}},
    {kDouble, {kDLFloat, 64, 1}}, {kBfloat16, {kDLBfloat, 16, 1}},
    {kInt8, {kDLInt, 8, 1}},      {kInt16, {kDLInt, 16, 1}},
    {kInt32, {kDLInt, 32, 1}},    {kInt64, {kDLInt, 64, 1}},
    {kUint8, {kDLUInt, 8, 1}},    {kUint16, {kDLUInt, 16, 1}},
    {kUint32, {kDLUInt, 32, 1}},  {kUint64, {kDLUInt, 64, 1}},
    {kBool, {kDLBoolCode, 8, 1}},
    {kFloat8E4M3FN, {kDLFloat8E4M3FNCode, 8, 1}},
    {kFloat8E4M3FNUZ, {kDLFloat8E4M3FNUZCode, 8, 1}},
    {kFloat8E5M2, {kDLFloat8E5M2Code, 8, 1}},
    {kFloat8E5M2FNUZ, {kDLFloat8E5M2FNUZCode, 8, 1}},
    {kUint4, {kDLUInt, 4, 1}},
    {kInt4, {kDLInt, 4, 1}},
};

/// The ONNX dtype a DLPack dtype denotes, or 0 when it has none of ours.
inline int32_t dtypeFromDLPack(DLDataType type) {
  for (const DlpackDtype &entry : kDlpackDtypes)
    if (entry.dlpack.code == type.code && entry.dlpack.bits == type.bits &&
        entry.dlpack.lanes == type.lanes)
      return entry.dtype;
  return 0;
}

/// The DLPack dtype of an ONNX dtype; lanes 0 when it has none.
inline DLDataType dlpackFromDtype(int32_t dtype) {
  for (const DlpackDtype &entry : kDlpackDtypes)
    if (entry.dtype == dtype)
      return entry.dlpack;
  return {0, 0, 0};
}

/// Whether a library GEMM or convolution of `dtype` elements computing in
/// `computeDtype` has 8-bit operands (descriptor.h): int8 summed in int32,
/// or float8e4m3fn summed in float32 (GEMMs only).
inline constexpr bool isEightBitLibraryDtype(int32_t dtype,
                                             int32_t computeDtype) {
  return (dtype == kInt8 && computeDtype == kInt32) ||
         (dtype == kFloat8E4M3FN && computeDtype == kFloat);
}

/// The dtype of a library GEMM's C and D (a convolution's Y and Z): for
/// 8-bit operands compute_dtype, the accumulator written as it is; dtype
/// otherwise.
inline constexpr int32_t libraryOutputDtype(int32_t dtype,
                                            int32_t computeDtype) {
  return isEightBitLibraryDtype(dtype, computeDtype) ? computeDtype : dtype;
}

/// "float32[1,3,224,224]"; a dim < 0 prints its name from `dimNames` (when
/// given and non-empty) or "?".
std::string formatTensorType(int32_t dtype, int32_t rank, const int64_t *dims,
                             const char *const *dimNames = nullptr);

/// Product of `dims`, or -1 when a dim is negative or the product overflows.
int64_t elementCount(int32_t rank, const int64_t *dims);

} // namespace graphc::rt

#endif
