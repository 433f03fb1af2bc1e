//===- Dtype.h - dtype names, sizes and DLPack mapping ----------*- C++ -*-===//
#ifndef GRAPHC_RUNTIME_SRC_DTYPE_H
#define GRAPHC_RUNTIME_SRC_DTYPE_H

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>

namespace graphc::rt {

/// The ONNX dtype a DLPack dtype denotes, or 0 when it has none of ours.
int32_t dtypeFromDLPack(DLDataType type);

/// "float32[1,3,224,224]"; a dim < 0 prints its name from `dimNames` (when
/// given and non-empty) or "?".
std::string formatTensorType(int32_t dtype, int32_t rank, const int64_t *dims,
                             const char *const *dimNames = nullptr);

/// Product of `dims`, or -1 when a dim is negative or the product overflows.
int64_t elementCount(int32_t rank, const int64_t *dims);

} // namespace graphc::rt

#endif
