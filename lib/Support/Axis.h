//===- Axis.h - ONNX axis arguments counted from the front -------*- C++ -*-===//
//
// ONNX counts a negative axis from the back. Every layer that reads one
// (type inference, passes, codegen, host kernels) normalises it here.
// Header only and dependency free.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_AXIS_H
#define GRAPHC_LIB_SUPPORT_AXIS_H

#include <cstdint>
#include <optional>

namespace graphc {

/// `axis` counted from the front of `rank` axes, or nullopt when it is out
/// of range ([-rank, rank)).
inline std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

} // namespace graphc

#endif // GRAPHC_LIB_SUPPORT_AXIS_H
