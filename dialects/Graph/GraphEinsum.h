//===- GraphEinsum.h - einsum equations -------------------------*- C++ -*-===//
#ifndef GRAPHC_DIALECTS_GRAPH_GRAPHEINSUM_H
#define GRAPHC_DIALECTS_GRAPH_GRAPHEINSUM_H

#include "dialects/Graph/GraphTypeInference.h"

#include <string>

namespace graphc::graph {

/// One operand or the result of an einsum equation.
struct EinsumTerm {
  /// The term as written, for messages.
  std::string spelling;
  /// The labels, in order, without the ellipsis.
  std::string letters;
  /// Position among `letters` where `...` stands, -1 when absent.
  int64_t ellipsisAt = -1;
};

struct EinsumEquation {
  llvm::SmallVector<EinsumTerm> inputs;
  /// Explicit (after `->`) or implied: `...` then the labels used once, in
  /// alphabetical order.
  EinsumTerm output;
};

/// Parses `equation` for an op with `numInputs` operands, reporting syntax
/// errors through `infer`.
mlir::FailureOr<EinsumEquation> parseEinsumEquation(const TypeInference &infer,
                                                    llvm::StringRef equation,
                                                    size_t numInputs);

} // namespace graphc::graph

#endif
