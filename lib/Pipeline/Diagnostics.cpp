//===- Diagnostics.cpp - MLIR diagnostics as one llvm::Error --------------===//

#include "lib/Pipeline/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace graphc {

std::string describeLocation(Location loc) {
  if (auto named = dyn_cast<NameLoc>(loc))
    return "node '" + named.getName().str() + "'";
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fused.getLocations())
      if (std::string text = describeLocation(inner); !text.empty())
        return text;
    return {};
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    if (file.getLine() != 0)
      return (file.getFilename().str() + ":" + std::to_string(file.getLine()));
  return {};
}

DiagnosticCollector::DiagnosticCollector(MLIRContext &context)
    : handler(&context, [this](Diagnostic &diag) {
        if (diag.getSeverity() != DiagnosticSeverity::Error)
          return success();
        std::string where = describeLocation(diag.getLocation());
        messages.push_back((where.empty() ? "" : where + ": ") + diag.str());
        return success();
      }) {}

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                 message.str().c_str());
}

llvm::Error DiagnosticCollector::takeError(llvm::StringRef fallback) {
  std::string text;
  for (const std::string &message : messages)
    text += (text.empty() ? "" : "\n") + message;
  messages.clear();
  if (text.empty())
    text = fallback.str();
  return makeError(text);
}

} // namespace graphc
