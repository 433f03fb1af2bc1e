//===- Staging.cpp - padding inputs and slicing outputs of a bucket -------===//
#include "lib/Artifact/Staging.h"

#include "lib/Artifact/OnnxDtype.h"
#include "lib/Support/Float8.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace graphc::rt;

namespace {

/// `value` converted to the integer type T, truncated toward zero and
/// saturated (NaN becomes 0).
template <typename T> T saturate(double value) {
  if (std::isnan(value))
    return 0;
  if (value <= static_cast<double>(std::numeric_limits<T>::lowest()))
    return std::numeric_limits<T>::lowest();
  if (value >= static_cast<double>(std::numeric_limits<T>::max()))
    return std::numeric_limits<T>::max();
  return static_cast<T>(value);
}

/// IEEE binary16 bits of `value`, rounded to nearest even.
uint16_t toHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN
    return static_cast<uint16_t>(sign | 0x7e00u);
  if (magnitude >= 0x477ff000u) // rounds to infinity
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (magnitude < 0x38800000u) {
    // Subnormal (or zero) in half: scale into the 10-bit mantissa.
    float scaled = std::fabs(value) * 16777216.0f; // 2^24
    auto mantissa = static_cast<uint32_t>(std::nearbyint(scaled));
    return static_cast<uint16_t>(sign | mantissa);
  }
  uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

/// bfloat16 bits of `value`, rounded to nearest even.
uint16_t toBfloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

template <typename T> size_t store(T value, unsigned char out[8]) {
  std::memcpy(out, &value, sizeof(T));
  return sizeof(T);
}
} // namespace

size_t graphc::rt::padPattern(int32_t dtype, double value,
                              unsigned char out[8]) {
  std::memset(out, 0, 8);
  switch (dtype) {
  case kFloat:
    return store(static_cast<float>(value), out);
  case kDouble:
    return store(value, out);
  case kFloat16:
    return store(toHalf(static_cast<float>(value)), out);
  case kBfloat16:
    return store(toBfloat16(static_cast<float>(value)), out);
  case kFloat8E4M3FN:
  case kFloat8E4M3FNUZ:
  case kFloat8E5M2:
  case kFloat8E5M2FNUZ:
    return store(graphc::gc_f8_from_float(dtype, static_cast<float>(value),
                                          /*saturate=*/true),
                 out);
  case kBool:
    return store<uint8_t>(value != 0.0, out);
  case kUint8:
    return store(saturate<uint8_t>(value), out);
  case kInt8:
    return store(saturate<int8_t>(value), out);
  case kUint16:
    return store(saturate<uint16_t>(value), out);
  case kInt16:
    return store(saturate<int16_t>(value), out);
  case kUint32:
    return store(saturate<uint32_t>(value), out);
  case kInt32:
    return store(saturate<int32_t>(value), out);
  case kUint64:
    return store(saturate<uint64_t>(value), out);
  case kInt64:
    return store(saturate<int64_t>(value), out);
  case kUint4:
  case kInt4:
    // Whole bytes: a packed 4-bit tensor has static dims and is never
    // padded (checkDescriptor), so staging just fills its bytes.
    return store<uint8_t>(0, out);
  default:
    return 0;
  }
}

bool graphc::rt::forEachContiguousRun(
    const std::vector<int64_t> &extent, const std::vector<int64_t> &srcDims,
    const std::vector<int64_t> &srcStart, const std::vector<int64_t> &dstDims,
    const std::vector<int64_t> &dstStart, size_t elementBytes,
    const std::function<void(uint64_t, uint64_t, uint64_t)> &copy) {
  size_t rank = extent.size();
  if (srcDims.size() != rank || srcStart.size() != rank ||
      dstDims.size() != rank || dstStart.size() != rank)
    return false;
  for (size_t d = 0; d < rank; ++d) {
    if (extent[d] < 0 || srcStart[d] < 0 || dstStart[d] < 0 ||
        srcStart[d] + extent[d] > srcDims[d] ||
        dstStart[d] + extent[d] > dstDims[d])
      return false;
    if (extent[d] == 0)
      return true;
  }
  // Axes from `inner` on are whole in both tensors: one run covers them,
  // and with them the box's extent along the axis before.
  size_t inner = rank;
  while (inner > 0 && extent[inner - 1] == srcDims[inner - 1] &&
         extent[inner - 1] == dstDims[inner - 1])
    --inner;
  std::vector<uint64_t> srcStride(rank + 1, 1), dstStride(rank + 1, 1);
  for (size_t d = rank; d-- > 0;) {
    srcStride[d] = srcStride[d + 1] * uint64_t(srcDims[d]);
    dstStride[d] = dstStride[d + 1] * uint64_t(dstDims[d]);
  }
  // The run: axis `inner - 1` (when there is one) over its extent, and
  // everything after it.
  size_t runAxis = inner == 0 ? 0 : inner - 1;
  uint64_t runElements =
      inner == 0 ? srcStride[0] : uint64_t(extent[runAxis]) * srcStride[inner];
  std::vector<int64_t> index(runAxis, 0);
  while (true) {
    uint64_t src = 0, dst = 0;
    for (size_t d = 0; d < rank; ++d) {
      int64_t at = d < runAxis ? index[d] : 0;
      src += uint64_t(srcStart[d] + at) * srcStride[d + 1];
      dst += uint64_t(dstStart[d] + at) * dstStride[d + 1];
    }
    copy(src * elementBytes, dst * elementBytes, runElements * elementBytes);
    // Next index over the axes before the run, last one fastest.
    size_t d = runAxis;
    while (d > 0 && ++index[d - 1] == extent[d - 1])
      index[--d] = 0;
    if (d == 0)
      return true;
  }
}

bool graphc::rt::forEachContiguousRun(
    const BoxCopy &box,
    const std::function<void(uint64_t, uint64_t, uint64_t)> &copy) {
  return forEachContiguousRun(box.extent, box.srcDims, box.srcStart,
                              box.dstDims, box.dstStart, box.elementBytes,
                              copy);
}

bool graphc::rt::forEachStagedCopy(
    const BoxCopy &box, const SegmentedTensor &caller, bool callerIsSource,
    const std::function<void(const Segment &, uint64_t, uint64_t, uint64_t)>
        &copy) {
  // Where each segment starts in the whole; the last entry is the end.
  std::vector<uint64_t> starts(caller.segments.size() + 1, 0);
  for (size_t s = 0; s < caller.segments.size(); ++s)
    starts[s + 1] = starts[s] + caller.segments[s].bytes;
  // Checked before anything is copied: every run within the segments.
  bool within = true;
  if (!forEachContiguousRun(box,
                            [&](uint64_t from, uint64_t to, uint64_t count) {
                              uint64_t at = callerIsSource ? from : to;
                              within &= at + count <= starts.back();
                            }) ||
      !within)
    return false;
  forEachContiguousRun(box, [&](uint64_t from, uint64_t to, uint64_t count) {
    uint64_t at = callerIsSource ? from : to;
    uint64_t staged = callerIsSource ? to : from;
    // The segment holding byte `at`: the last one starting at or before it
    // (empty segments start where the next does, and are skipped).
    size_t s =
        std::upper_bound(starts.begin(), starts.end(), at) - starts.begin() - 1;
    for (uint64_t done = 0; done < count; ++s) {
      uint64_t offset = at + done - starts[s];
      uint64_t bytes =
          std::min(count - done, starts[s + 1] - starts[s] - offset);
      if (bytes)
        copy(caller.segments[s], offset, staged + done, bytes);
      done += bytes;
    }
  });
  return true;
}
