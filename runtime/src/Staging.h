//===- Staging.h - padding inputs and slicing outputs of a bucket -*- C++ -*-===//
//
// A run whose dims lie between buckets goes through staging buffers of the
// bucket's shapes: inputs are filled with their pad value and their data
// copied in, outputs are copied back out. Both are box copies between two
// row-major tensors, done as contiguous runs by whichever memory (host or
// device) holds them.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_STAGING_H
#define GRAPHC_RUNTIME_SRC_STAGING_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace graphc::rt {

/// The bytes of one element of `dtype` holding `value` (rounded to the
/// dtype; integers truncate toward zero and saturate), in `out`; returns
/// the element size, 0 for an unknown dtype.
size_t padPattern(int32_t dtype, double value, unsigned char out[8]);

/// A box of `extent` elements copied from `srcStart` in a row-major tensor of
/// `srcDims` to `dstStart` in one of `dstDims`.
struct BoxCopy {
  std::vector<int64_t> extent, srcDims, srcStart, dstDims, dstStart;
  size_t elementBytes = 0;
};

/// Calls `copy(srcOffset, dstOffset, bytes)` for every contiguous run of
/// copying the box of `extent` elements, starting at `srcStart` in a
/// row-major tensor of `srcDims`, to `dstStart` in one of `dstDims`.
/// Returns false (copying nothing) when the box lies outside either tensor.
bool forEachContiguousRun(
    const std::vector<int64_t> &extent, const std::vector<int64_t> &srcDims,
    const std::vector<int64_t> &srcStart, const std::vector<int64_t> &dstDims,
    const std::vector<int64_t> &dstStart, size_t elementBytes,
    const std::function<void(uint64_t, uint64_t, uint64_t)> &copy);
bool forEachContiguousRun(
    const BoxCopy &box,
    const std::function<void(uint64_t, uint64_t, uint64_t)> &copy);

} // namespace graphc::rt

#endif
