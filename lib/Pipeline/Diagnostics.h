//===- Diagnostics.h - MLIR diagnostics as one llvm::Error ------*- C++ -*-===//
#ifndef GRAPHC_LIB_PIPELINE_DIAGNOSTICS_H
#define GRAPHC_LIB_PIPELINE_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace graphc {

/// The innermost readable place of a location: an ONNX node name, or a
/// file position.
std::string describeLocation(mlir::Location loc);

/// An llvm::Error that carries `message` as it is.
llvm::Error makeError(const llvm::Twine &message);

/// Collects the error diagnostics of a context while it lives, so that they
/// come back as one llvm::Error, each prefixed with its node.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext &context);

  /// The collected errors, one per line, or `fallback` when there are none.
  /// Clears the collection.
  llvm::Error takeError(llvm::StringRef fallback);

private:
  mlir::ScopedDiagnosticHandler handler;
  std::vector<std::string> messages;
};

} // namespace graphc

#endif
