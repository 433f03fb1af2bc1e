//===- ShapeFlags.cpp - parsing the shape flags of graphc compile ---------===//

#include "passes/ShapeFlags.h"

using namespace mlir;

namespace graphc {

FailureOr<std::pair<StringRef, StringRef>>
splitAssignment(ModuleOp module, StringRef entry, StringRef what) {
  auto [key, value] = entry.split('=');
  if (key.empty() || value.empty()) {
    module.emitError() << "malformed " << what << " '" << entry
                       << "': expected NAME=VALUE";
    return failure();
  }
  return std::make_pair(key.trim(), value.trim());
}

std::string suggestName(StringRef wrong, ArrayRef<std::string> valid,
                        StringRef what, StringRef ifNone) {
  if (valid.empty())
    return ifNone.str();
  const std::string *closest = nullptr;
  unsigned best = ~0u;
  for (const std::string &name : valid) {
    unsigned distance = wrong.edit_distance(name, /*AllowReplacements=*/true);
    if (distance < best) {
      best = distance;
      closest = &name;
    }
  }
  std::string text = "; did you mean '" + *closest + "'? (the model's " +
                     what.str() + ": ";
  for (auto [i, name] : llvm::enumerate(valid))
    text += (i ? ", '" : "'") + name + "'";
  return text + ")";
}

} // namespace graphc
