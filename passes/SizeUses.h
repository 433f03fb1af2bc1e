//===- SizeUses.h - where a dynamic dim's size is used as a number -*- C++ -*-===//
//
// A bucket function folds every Shape and Size of its inputs into constants,
// so a model that computes with a dim's size (x.sum(1) / x.shape[1]) holds
// the bucket's size where the unpadded run would use the actual one, and
// AnalyzePadSafety cannot tell that constant from a weight. This looks at the
// graph before bucketing, where the sizes are still Shape and Size ops.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_PASSES_SIZEUSES_H
#define GRAPHC_PASSES_SIZEUSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <string>

namespace graphc {

/// An op that computes with the size of a dynamic dim.
struct SizeUse {
  std::string node;   ///< its ONNX node name
  std::string reason; ///< lower case, for the pad safety verdict
};

/// The first op of `main` (dynamic shapes, before bucketing) whose floating
/// point result, or whose non-shape operand, is computed from the size of a
/// dynamic input dim: Shape and Size of the inputs followed through integer
/// arithmetic, but not into shape operands (a reshape's target, a range's
/// bounds, slice starts and ends, ...). nullopt when there is none.
///
/// Only the inputs' sizes are followed: before bucketing an intermediate's
/// type may hide which of its dims are static (BERT's attention scale is
/// the static head size of a tensor typed ?x?x?x?), and flagging those
/// would refuse padding for every attention export. A model that computes
/// with an intermediate's dynamic size is not caught.
std::optional<SizeUse> findSizeUseAsValue(mlir::func::FuncOp main);

/// The first constant of the bucket functions in `funcs` that two buckets
/// differing only in `dim` hold with the same type but other values, and
/// that an op reads as a value (not as a shape): a size computed with,
/// folded per bucket. Named by its first such reader. nullopt when there is
/// none, or when no two buckets differ only in `dim`, or when the two found
/// do not have the same ops in the same order.
std::optional<SizeUse>
findBucketDependentConstant(llvm::ArrayRef<mlir::func::FuncOp> funcs,
                            llvm::StringRef dim);

} // namespace graphc

#endif
