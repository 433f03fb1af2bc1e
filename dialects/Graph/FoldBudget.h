//===- FoldBudget.h - what folding one op may cost --------------*- C++ -*-===//
//
// Constant folding runs an op's host kernel at compile time, on operands a
// model file can make from a few bytes. Before it does, the op's work and
// scratch memory are estimated from static shapes and attributes; an op
// beyond the budget is not folded and runs with the model instead.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_DIALECTS_GRAPH_FOLDBUDGET_H
#define GRAPHC_DIALECTS_GRAPH_FOLDBUDGET_H

#include "mlir/IR/Operation.h"

#include <cstdint>

namespace graphc::graph {

/// The limits of one fold (docs/security.md).
struct FoldBudget {
  /// Past this many result elements a constant would bloat the IR and the
  /// artifact more than folding saves.
  static constexpr int64_t kMaxResultElements = int64_t(1) << 20;
  /// Element operations (a multiply-add, a compare, a copied element).
  static constexpr double kMaxWork = double(int64_t(1) << 24);
  /// Bytes the host kernel allocates beyond its operands and results.
  static constexpr double kMaxScratchBytes = double(int64_t(64) << 20);
  /// Ops of more work than this count against a total per compile (an
  /// MLIRContext), so that many ops each within the budget cannot add up
  /// to minutes; shape computations stay far below it and always fold.
  static constexpr double kMinCountedWork = double(int64_t(1) << 16);
  static constexpr double kMaxTotalWork = double(int64_t(1) << 30);
};

/// While one lives on a thread, folds there of more than kMinCountedWork
/// draw on its total of kMaxTotalWork. A compile holds one for its whole
/// run (compilation is single-threaded); scopes nest, the innermost counts.
class FoldWorkScope {
public:
  FoldWorkScope();
  ~FoldWorkScope();
  FoldWorkScope(const FoldWorkScope &) = delete;
  FoldWorkScope &operator=(const FoldWorkScope &) = delete;

  /// Charges `work` if the total allows it.
  bool charge(double work);

private:
  double spent = 0;
  FoldWorkScope *outer;
};

/// Estimated cost of evaluating an op on the host. Doubles: the products of
/// hostile dims may exceed any integer, and only the comparison matters.
struct FoldCost {
  double work = 0;
  double scratchBytes = 0;
};

/// The cost of `op`'s host kernel; requires static operand and result
/// shapes. Exact for the ops whose work is not linear in their operands
/// and results (convolutions, pools, products, einsum, attention, resize,
/// top_k, lrn), the total operand and result size for every other op.
FoldCost estimateFoldCost(mlir::Operation *op);

/// Whether folding `op` stays within FoldBudget: static results of at most
/// kMaxResultElements each, its estimated work and scratch, and the total
/// left to the thread's FoldWorkScope, if any, which a `true` answer
/// charges.
bool chargeFoldBudget(mlir::Operation *op);

} // namespace graphc::graph

#endif
