//===- AnalyzePadSafety.h - may a bucket run padded inputs? -----*- C++ -*-===//
//
// A shape bucket is one static copy of @main. An input whose dynamic dim lies
// between buckets is padded along that dim up to the next bucket, and the
// outputs are sliced back. This analysis proves (or refutes) that the sliced
// outputs equal the results of running the unpadded inputs.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_PASSES_ANALYZEPADSAFETY_H
#define GRAPHC_PASSES_ANALYZEPADSAFETY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace graphc {

/// Whether zero- (or declared-value-) padding the inputs along one dynamic
/// dim and slicing the outputs gives exactly the unpadded results.
struct PadSafety {
  std::string dim;        // the dim's name, as in the args' graph.dims
  bool padSafe = false;   // padding then slicing is exact
  bool splittable = false; // no op mixes positions along the dim at all, so a run may be split into several runs along it (implies padSafe)
  std::string node;       // not padSafe (or not splittable): the ONNX node name (the NameLoc of the op) that breaks it
  std::string reason;     // ditto: one short lower-case phrase, e.g. "a mean over the padded axis"
  llvm::SmallVector<int64_t> inputAxes;  // per function argument: the axis carrying the dim, or -1
  llvm::SmallVector<int64_t> outputAxes; // per function result: the axis carrying the dim, or -1
};

/// Analyses a function with static shapes (one bucket) over graph-dialect ops.
/// The dim `dim` is carried by every argument axis whose `graph.dims` arg
/// attribute entry equals `dim`. An argument's padded region holds its
/// `graph.pad_value` arg attribute (an F64Attr), or 0.
///
/// An argument carrying the dim on several axes (a [seq, seq] mask) reports
/// its first one in `inputAxes`; its `graph.dims` names them all. Output axes
/// are only known when the analysis reaches the end of the function: after
/// an unsafe op they are all -1. An op without a NameLoc is named by its op
/// name in `node`.
PadSafety analyzePadSafety(mlir::func::FuncOp func, llvm::StringRef dim);

/// The pass: for every func in the module and every non-empty name in its
/// args' graph.dims, sets the func attribute `graph.pad_safety`, a dictionary
/// from dim name to a dictionary {safe: bool, splittable: bool, node: str,
/// reason: str, inputs: [i64 axes], outputs: [i64 axes]}.
mlir::LogicalResult analyzePadSafety(mlir::ModuleOp module);

} // namespace graphc

#endif
