//===- HostEvaluator.h - graph ops evaluated by host kernels ---*- C++ -*-===//
//
// The host kernels' side of the graph dialect's HostEvaluatorInterface
// (dialects/Graph/HostEval.h): the dialect folds constant ops through that
// interface, and this library implements it with the kernels of
// HostKernels.h, so the dialect itself needs no kernels. Every context that
// folds graph ops registers it (registerHostEvaluator): graphc's pipeline
// (registerGraphcDialects), the importer, graphc-opt and the tests.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_HOSTKERNELS_HOSTEVALUATOR_H
#define GRAPHC_LIB_HOSTKERNELS_HOSTEVALUATOR_H

#include "lib/HostKernels/HostKernels.h"

#include "mlir/IR/Operation.h"

#include <deque>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace graphc::graph {

/// Owns the storage behind a gc_attrs built from an op's attributes. Shared
/// by the evaluator and by the cpu emitter, so that both see an op exactly
/// the same way.
class HostAttrs {
public:
  /// Converts every inherent attribute of `op` (operandSegmentSizes is not
  /// one). Fails on an attribute kind the host kernels do not take.
  static mlir::FailureOr<HostAttrs> fromOp(mlir::Operation *op);
  const gc_attrs *get() const { return &attrs; }
  const std::vector<gc_attr> &items() const { return itemStorage; }

  // Moving keeps every pointer valid: deques and vectors move their buffers.
  HostAttrs() = default;
  HostAttrs(HostAttrs &&) = default;
  HostAttrs &operator=(HostAttrs &&) = default;

private:
  std::deque<std::string> strings;
  std::deque<std::vector<int64_t>> ints;
  std::deque<std::vector<double>> floats;
  std::deque<std::vector<char>> tensorData;
  std::deque<gc_tensor> tensors;
  std::vector<gc_attr> itemStorage;
  gc_attrs attrs{0, nullptr};
};

/// Adds the host kernels to `registry` as the graph dialect's
/// HostEvaluatorInterface.
void registerHostEvaluator(mlir::DialectRegistry &registry);

/// Registers it in `context` unless its graph dialect has an evaluator
/// already; loads the graph dialect.
void ensureHostEvaluator(mlir::MLIRContext &context);

} // namespace graphc::graph

#endif
