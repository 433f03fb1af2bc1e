//===- SizeUses.h - where a dynamic dim's size is used as a number -*- C++ -*-===//
//
// A bucket function folds every Shape and Size of its inputs into constants,
// so a model that computes with a dim's size (x.sum(1) / x.shape[1],
// x + Range(seq - 1, -1, -1), x + table[-seq:]) holds the bucket's size
// where the unpadded run would use the actual one, and AnalyzePadSafety
// cannot tell that constant from a weight. This looks at the graph before
// bucketing, where the sizes are still Shape and Size ops.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_PASSES_SIZEUSES_H
#define GRAPHC_PASSES_SIZEUSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include <map>
#include <optional>
#include <string>

namespace graphc {

/// An op that computes with the size of a dynamic dim.
struct SizeUse {
  std::string node;   ///< its ONNX node name
  std::string reason; ///< lower case, for the pad safety verdict
};

/// The first use of each dim's size, by dim name.
using SizeUses = std::map<std::string, SizeUse>;

/// Per dynamic input dim of `main` (dynamic shapes, before bucketing; dims
/// named by the inputs' graph.dims), the first op that computes a value from
/// its size: Shape and Size of the inputs followed through integer
/// arithmetic, and tensors shaped by a size (Range(0, seq), table[:seq],
/// ConstantOfShape) followed while their leading positions hold the same
/// values for every size. A size in a shape operand (a reshape's target, a
/// range's limit, a slice's end) is no use; a range's start or step, a
/// slice's start, a gather's indices, a float or an output computed from a
/// size are, and so is a reversing slice, a reduction or any op not known
/// to keep the leading positions of a tensor shaped by a size.
///
/// Only the inputs' sizes (and those of tensors shaped by them) are
/// followed: before bucketing an intermediate's type may hide which of its
/// dims are static (BERT's attention scale is the static head size of a
/// tensor typed ?x?x?x?), and flagging those would refuse padding for every
/// attention export. A model that computes with an intermediate's dynamic
/// size is caught by findBucketDependentConstant instead.
SizeUses findSizeUsesAsValues(mlir::func::FuncOp main);

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
