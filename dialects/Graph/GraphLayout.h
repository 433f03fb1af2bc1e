//===- GraphLayout.h - operands read in place through strides ---*- C++ -*-===//
//
// The kernel templates of mat_mul and attention (the layout anchors) read
// their operands through strides, so the data-movement ops computing an
// operand from a tensor in memory (its layout prologue) need no kernel of
// their own: the anchor's kernel reads that tensor at an offset with
// strides. Fusion and every target decide which ops those are, and how the
// operand lies in the tensor, by the functions below.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_DIALECTS_GRAPH_GRAPHLAYOUT_H
#define GRAPHC_DIALECTS_GRAPH_GRAPHLAYOUT_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace graphc::graph {

/// Where an operand read in place lies: elements of `source` from `offset`
/// on, dim i `strides[i]` elements apart.
struct StridedRead {
  mlir::Value source;
  int64_t offset = 0;
  llvm::SmallVector<int64_t> strides;
};

/// The layout prologue of a layout anchor: the ops it reads through, and
/// for each of its operands they compute, where that operand lies.
struct LayoutPrologue {
  llvm::SetVector<mlir::Operation *> ops;
  llvm::DenseMap<mlir::Value, StridedRead> reads;
};

/// Whether the kernel template of `op` reads its operands through strides
/// and stores its result through strides: mat_mul and attention.
bool isLayoutAnchor(mlir::Operation *op);

/// The layout prologue of `anchor` (empty for an op that is no layout
/// anchor). A mat_mul's is the transposes it alone reads. An attention's is
/// every chain of transposes, splits, views (reshape, flatten, squeeze,
/// unsqueeze, identity) from a tensor to its Q, K, V or mask whose ops
/// feed the attention alone, each expressible as strides of that tensor:
/// the head split, the parts of a merged Q/K/V projection, the unbind of
/// a packed one (a reshape of a transposed tensor that needs a copy ends
/// the chain below it).
LayoutPrologue layoutPrologue(mlir::Operation *anchor);

/// Whether `op` is in the layout prologue of `anchor`.
bool isLayoutPrologueOf(mlir::Operation *op, mlir::Operation *anchor);

/// The leading layout prologue of a fused kernel's compute ops, and the
/// anchor after it: {prologue count, anchor} when `ops` starts with ops of
/// the layout prologue of the first layout anchor among them (a count of 0
/// and ops.front() otherwise).
std::pair<size_t, mlir::Operation *>
splitLayoutPrologue(llvm::ArrayRef<mlir::Operation *> ops);

/// The element strides of a row-major tensor of `shape`.
llvm::SmallVector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

} // namespace graphc::graph

#endif
