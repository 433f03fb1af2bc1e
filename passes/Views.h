//===- Views.h - ops that reinterpret a buffer ------------------*- C++ -*-===//
//
// A view gives its input's contiguous buffer a new static shape: no kernel
// computes it, and memory planning lets it share its source's slot.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_PASSES_VIEWS_H
#define GRAPHC_PASSES_VIEWS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

namespace graphc {

/// Whether `op` is a reshape, flatten, squeeze, unsqueeze or identity whose
/// data operand and result have static shapes, the same element type and
/// the same element count: its result is its data operand's bytes.
bool isView(mlir::Operation *op);

/// The value whose buffer `value` shares: `value` itself unless a view
/// defines it, else the source of that view, through chains of views.
mlir::Value viewRoot(mlir::Value value);

} // namespace graphc

#endif
