//===- ShapeFlags.h - parsing the shape flags of graphc compile -*- C++ -*-===//
//
// Shared by the passes that take --shape, --dim, --buckets, --max-dim and
// --pad-value entries.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_PASSES_SHAPEFLAGS_H
#define GRAPHC_PASSES_SHAPEFLAGS_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <utility>

namespace graphc {

/// Parses "KEY=VALUE" into its two trimmed halves; emits an error on
/// `module` naming `what` when either is empty.
mlir::FailureOr<std::pair<llvm::StringRef, llvm::StringRef>>
splitAssignment(mlir::ModuleOp module, llvm::StringRef entry,
                llvm::StringRef what);

/// "; did you mean 'batch'? (the model's <what>: 'batch', 'seq')", naming
/// the closest of `valid` to `wrong`, or `ifNone` when `valid` is empty.
std::string suggestName(llvm::StringRef wrong,
                        llvm::ArrayRef<std::string> valid,
                        llvm::StringRef what, llvm::StringRef ifNone);

} // namespace graphc

#endif
