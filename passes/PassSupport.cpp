//===- PassSupport.cpp - small helpers shared by the passes ---------------===//

#include "passes/PassSupport.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace graphc {

std::string nodeName(Location loc) {
  if (auto named = dyn_cast<NameLoc>(loc))
    return named.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string name = nodeName(inner); !name.empty())
        return name;
  return {};
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return std::nullopt;
  return axis;
}

} // namespace graphc
