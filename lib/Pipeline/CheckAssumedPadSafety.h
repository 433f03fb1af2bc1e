//===- CheckAssumedPadSafety.h - --assume-pad-safe, checked -----*- C++ -*-===//
//
// `graphc compile --assume-pad-safe DIM` overrides AnalyzePadSafety where its
// rules are too strict for a model, but only after checking the claim: the
// model runs on the cpu reference (the host kernels) with random inputs,
// once at an exact size and once padded to a bucket, and the compile is
// refused with the measured difference when the two disagree.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_PIPELINE_CHECKASSUMEDPADSAFETY_H
#define GRAPHC_LIB_PIPELINE_CHECKASSUMEDPADSAFETY_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace graphc {

/// For every dim of `dims`: when some bucket function of `module` is not
/// proven pad-safe along it, runs `dynamic`'s @main (the model before
/// bucketing) at half of the smallest bucket of at least 2 and the bucket
/// function padded from it, and compares the outputs on the unpadded part.
/// When they agree, every bucket's verdict becomes pad-safe (not
/// splittable) and a note goes to `notes`; otherwise the error gives the
/// difference and the node the analysis named.
llvm::Error checkAssumedPadSafety(mlir::ModuleOp module, mlir::ModuleOp dynamic,
                                  llvm::ArrayRef<std::string> dims,
                                  llvm::ArrayRef<std::string> padValues,
                                  llvm::raw_ostream &notes);

} // namespace graphc

#endif
