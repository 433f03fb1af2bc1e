//===- GraphTensorNames.cpp - the ONNX tensor each value holds -----------===//
//
// The importer records, in the location of each op that computes ONNX node
// outputs, the tensor each result holds: the NameLoc's child becomes a
// FusedLoc whose metadata is an ArrayAttr of one StringAttr per result. A
// rewrite that computes exactly the values it replaces from several nodes
// records them in a FusedLoc's metadata of its own. Any other location names
// no tensor.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace graphc::graph {

/// The names recorded in `loc`: one per result of the op it locates.
static ArrayAttr recordedNames(Location loc) {
  if (auto named = dyn_cast<NameLoc>(loc))
    loc = named.getChildLoc();
  auto fused = dyn_cast<FusedLoc>(loc);
  return fused ? dyn_cast_or_null<ArrayAttr>(fused.getMetadata()) : nullptr;
}

Location withTensorNames(NameLoc node, ArrayRef<StringAttr> tensors) {
  MLIRContext *context = node.getContext();
  SmallVector<Attribute> names(tensors.begin(), tensors.end());
  Location child = withoutTensorNames(node.getChildLoc());
  return NameLoc::get(
      node.getName(),
      FusedLoc::get({child}, ArrayAttr::get(context, names), context));
}

Location withoutTensorNames(Location loc) {
  if (auto named = dyn_cast<NameLoc>(loc)) {
    Location child = withoutTensorNames(named.getChildLoc());
    return child == named.getChildLoc() ? loc
                                        : NameLoc::get(named.getName(), child);
  }
  auto fused = dyn_cast<FusedLoc>(loc);
  if (!fused)
    return loc;
  Attribute metadata = fused.getMetadata();
  bool changed = isa_and_nonnull<ArrayAttr>(metadata);
  if (changed)
    metadata = nullptr;
  SmallVector<Location> inner;
  for (Location location : fused.getLocations()) {
    inner.push_back(withoutTensorNames(location));
    changed |= inner.back() != location;
  }
  // This FusedLoc::get simplifies: one location without metadata is that
  // location itself (the (context, locations, metadata) one does not).
  return changed ? FusedLoc::get(inner, metadata, loc.getContext()) : loc;
}

Location withTensorsOf(Location loc, ValueRange replaced) {
  MLIRContext *context = loc.getContext();
  SmallVector<StringAttr> names;
  bool any = false;
  for (Value value : replaced) {
    names.push_back(StringAttr::get(context, onnxTensorName(value)));
    any |= !names.back().getValue().empty();
  }
  Location stripped = withoutTensorNames(loc);
  if (!any)
    return stripped;
  if (auto named = dyn_cast<NameLoc>(stripped))
    return withTensorNames(named, names);
  SmallVector<Location> locations;
  if (auto fused = dyn_cast<FusedLoc>(stripped))
    llvm::append_range(locations, fused.getLocations());
  else
    locations.push_back(stripped);
  SmallVector<Attribute> metadata(names.begin(), names.end());
  return FusedLoc::get(locations, ArrayAttr::get(context, metadata), context);
}

StringRef onnxTensorName(Value value) {
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    // A graph input; a fusion's or kernel's block argument has the location
    // of the value it stands for, which names a node, not a tensor.
    Operation *owner = argument.getOwner()->getParentOp();
    if (!isa_and_nonnull<func::FuncOp>(owner))
      return {};
    if (auto named = dyn_cast<NameLoc>(argument.getLoc()))
      return named.getName().getValue();
    return {};
  }
  auto result = cast<OpResult>(value);
  ArrayAttr names = recordedNames(result.getOwner()->getLoc());
  // One name per result, or the op is not the one the names were recorded
  // for (a constant folded from one result of a multi-result op).
  if (!names || names.size() != result.getOwner()->getNumResults())
    return {};
  auto name = dyn_cast<StringAttr>(names[result.getResultNumber()]);
  return name ? name.getValue() : StringRef();
}

} // namespace graphc::graph
