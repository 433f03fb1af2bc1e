//===- Staging.h - padding inputs and slicing outputs of a bucket -*- C++
//-*-===//
//
// A run whose dims lie between buckets goes through staging buffers of the
// bucket's shapes: inputs are filled with their pad value and their data
// copied in, outputs are copied back out. Both are box copies between two
// row-major tensors, done as contiguous runs by whichever memory (host or
// device) holds them. The caller's side of a copy is a segmented tensor:
// a batched run's tensor is the concatenation along axis 0 of its requests'
// tensors, which for dense row-major tensors is the concatenation of their
// bytes, so each contiguous run is split where one request's bytes end.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_ARTIFACT_STAGING_H
#define GRAPHC_LIB_ARTIFACT_STAGING_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace graphc::rt {

/// The bytes of one element of `dtype` holding `value` (rounded to the
/// dtype; integers truncate toward zero and saturate), in `out`; returns
/// the element size, 0 for an unknown dtype (a zero byte for the packed
/// 4-bit dtypes, which are never padded).
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

/// Bytes of a caller's tensor in one piece of memory.
struct Segment {
  char *data = nullptr;
  uint64_t bytes = 0;
  /// cuda: host memory (copied host to device and back), not the device's.
  bool host = false;
};

/// A run's tensor as the caller holds it: `dims` of the whole, whose bytes
/// are `segments` one after another (one segment for a plain run, one per
/// request for a batched one).
struct SegmentedTensor {
  std::vector<int64_t> dims;
  std::vector<Segment> segments;
};

/// Calls `copy(segment, callerOffset, stagingOffset, bytes)` for every
/// contiguous run of `box` between `caller` and a staging buffer, split at
/// the segments' boundaries (callerOffset is into `segment`). The caller's
/// tensor is the box's source when `callerIsSource` (inputs), else its
/// destination (outputs). Returns false (copying nothing) when the box
/// lies outside either tensor or past the segments' bytes.
bool forEachStagedCopy(const BoxCopy &box, const SegmentedTensor &caller,
                       bool callerIsSource,
                       const std::function<void(const Segment &, uint64_t,
                                                uint64_t, uint64_t)> &copy);

} // namespace graphc::rt

#endif
