//===- SpecializeShapes.cpp - fix dynamic input dims ----------------------===//

#include "dialects/Graph/GraphOps.h"
#include "passes/Passes.h"
#include "passes/ShapeFlags.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_SPECIALIZESHAPES
#include "passes/Passes.h.inc"

LogicalResult specializeShapes(ModuleOp module, ArrayRef<std::string> shapes,
                               ArrayRef<std::string> dims) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main)
    return module.emitError("module has no @main function");

  llvm::StringMap<SmallVector<int64_t>> shapeByName;
  for (const std::string &entry : shapes) {
    auto parts = splitAssignment(module, entry, "shape");
    if (failed(parts))
      return failure();
    SmallVector<int64_t> sizes;
    SmallVector<StringRef> pieces;
    parts->second.split(pieces, 'x');
    for (StringRef piece : pieces) {
      int64_t size;
      if (piece.trim().getAsInteger(10, size) || size < 0)
        return module.emitError() << "malformed shape '" << entry
                                  << "': dims must be non-negative integers";
      sizes.push_back(size);
    }
    shapeByName[parts->first] = sizes;
  }
  llvm::StringMap<int64_t> dimBySymbol;
  for (const std::string &entry : dims) {
    auto parts = splitAssignment(module, entry, "dim");
    if (failed(parts))
      return failure();
    int64_t size;
    if (parts->second.getAsInteger(10, size) || size < 0)
      return module.emitError() << "malformed dim '" << entry
                                << "': the size must be a non-negative integer";
    dimBySymbol[parts->first] = size;
  }

  llvm::StringSet<> usedShapes, usedSymbols;
  // For the hints when a flag names nothing in the model.
  std::vector<std::string> inputNames, dimNames;
  llvm::StringSet<> dimNamesSeen;
  SmallVector<Type> argTypes;
  for (BlockArgument arg : main.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    auto nameAttr =
        main.getArgAttrOfType<StringAttr>(arg.getArgNumber(), graph::kNameAttr);
    StringRef name = nameAttr ? nameAttr.getValue() : StringRef();
    auto symbols =
        main.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), graph::kDimsAttr);
    if (!name.empty())
      inputNames.push_back(name.str());
    if (symbols)
      for (Attribute symbol : symbols) {
        StringRef text = cast<StringAttr>(symbol).getValue();
        if (!text.empty() && dimNamesSeen.insert(text).second)
          dimNames.push_back(text.str());
      }
    if (!type) {
      argTypes.push_back(arg.getType());
      continue;
    }
    SmallVector<int64_t> newShape(type.getShape());
    auto it = shapeByName.find(name);
    if (it != shapeByName.end()) {
      usedShapes.insert(name);
      if (it->second.size() != newShape.size())
        return module.emitError()
               << "shape for input '" << name << "' has " << it->second.size()
               << " dims but the input has rank " << type.getRank();
      for (auto [i, dim] : llvm::enumerate(newShape)) {
        if (!ShapedType::isDynamic(dim) && dim != it->second[i])
          return module.emitError()
                 << "shape for input '" << name << "' sets dim " << i << " to "
                 << it->second[i] << " but the model fixes it to " << dim;
        dim = it->second[i];
      }
    }
    for (auto [i, dim] : llvm::enumerate(newShape)) {
      if (!symbols || i >= symbols.size())
        break;
      StringRef symbol = cast<StringAttr>(symbols[i]).getValue();
      auto found = dimBySymbol.find(symbol);
      if (symbol.empty() || found == dimBySymbol.end())
        continue;
      usedSymbols.insert(symbol);
      if (!ShapedType::isDynamic(dim) && dim != found->second)
        return module.emitError()
               << "dim '" << symbol << "' = " << found->second
               << " conflicts with size " << dim << " of input '" << name
               << "' dim " << i;
      dim = found->second;
    }
    auto newType = RankedTensorType::get(newShape, type.getElementType());
    arg.setType(newType);
    argTypes.push_back(newType);
  }
  // An entry of a flag that names nothing in the model is an error, with a
  // hint.
  auto checkAllUsed = [&](const auto &given, const llvm::StringSet<> &used,
                          StringRef flag, StringRef notFound,
                          ArrayRef<std::string> names, StringRef kind,
                          StringRef none) -> LogicalResult {
    for (auto &entry : given)
      if (!used.contains(entry.getKey()))
        return module.emitError()
               << flag << " names '" << entry.getKey() << "', which "
               << notFound << suggestName(entry.getKey(), names, kind, none);
    return success();
  };
  if (failed(checkAllUsed(shapeByName, usedShapes, "--shape",
                          "is not an input of the model", inputNames, "inputs",
                          "; the model has no named inputs")) ||
      failed(checkAllUsed(dimBySymbol, usedSymbols, "--dim",
                          "is no input dim's name", dimNames, "named dims",
                          "; the model names no dims: drop the flag, or "
                          "fix an unnamed dim with --shape (graphc check "
                          "lists them)")))
    return failure();
  main.setType(FunctionType::get(module.getContext(), argTypes,
                                 main.getResultTypes()));
  return success();
}

namespace {
struct SpecializeShapesPass
    : impl::SpecializeShapesBase<SpecializeShapesPass> {
  using SpecializeShapesBase::SpecializeShapesBase;
  void runOnOperation() override {
    SmallVector<std::string> shapeList(shapes.begin(), shapes.end());
    SmallVector<std::string> dimList(dims.begin(), dims.end());
    if (failed(specializeShapes(getOperation(), shapeList, dimList)))
      signalPassFailure();
  }
};
} // namespace

} // namespace graphc
