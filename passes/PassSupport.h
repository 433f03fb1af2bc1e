//===- PassSupport.h - small helpers shared by the passes -------*- C++ -*-===//
//
// Location and axis utilities that several passes need alike.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_PASSES_PASSSUPPORT_H
#define GRAPHC_PASSES_PASSSUPPORT_H

#include "mlir/IR/Location.h"

#include <cstdint>
#include <optional>
#include <string>

namespace graphc {

/// The ONNX node name recorded in a location (the first one found in a
/// fused location), or "" when there is none.
std::string nodeName(mlir::Location loc);

/// `axis` counted from the front of `rank` axes, or nullopt when out of
/// range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

} // namespace graphc

#endif
