//===- HostEval.h - graph ops as host data and their evaluation -*- C++ -*-===//
//
// Converts element types and constant tensors into the artifact format's
// dtype numbers (lib/Artifact/OnnxDtype.h) and dense row-major bytes, the
// form in which the host kernels, the cpu emitter and the reference run see
// an op, and evaluates an op on such bytes through HostEvaluatorInterface.
// The dialect declares that interface and folds through it; lib/HostKernels
// implements it with the host kernels (lib/HostKernels/HostEvaluator.h), so
// the dialect sits below the kernels and includes none of them.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_DIALECTS_GRAPH_HOSTEVAL_H
#define GRAPHC_DIALECTS_GRAPH_HOSTEVAL_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectInterface.h"
#include "mlir/IR/Operation.h"

#include <string>
#include <vector>

namespace graphc::graph {

/// The dtype number (ONNX's, which gc_dtype and the descriptors share) of an
/// MLIR element type, 0 (undefined) if unsupported.
int32_t toHostDtype(mlir::Type elementType);
/// The MLIR element type of a dtype number, null if unsupported.
mlir::Type fromHostDtype(mlir::MLIRContext *context, int32_t dtype);

/// Dense row-major bytes of a constant (splats expanded, i1 as one byte per
/// element), or failure for attributes it cannot read.
mlir::FailureOr<std::vector<char>> constantBytes(mlir::ElementsAttr value);
/// Builds an attribute of `type` from dense row-major bytes.
mlir::ElementsAttr constantFromBytes(mlir::ShapedType type,
                                     llvm::ArrayRef<char> bytes);

/// Operand counts of `op` per ONNX input slot (0 for an absent optional
/// input): from its operandSegmentSizes attribute, else one per operand plus
/// an empty slot for an absent trailing optional input. Kernels of every
/// target take one parameter per slot, so this is their calling convention.
llvm::SmallVector<int32_t> operandSlotSizes(mlir::Operation *op);

/// Evaluates graph ops on the host: the graph dialect's interface, which
/// folding and evaluateOnHost query. Without one registered (see
/// lib/HostKernels/HostEvaluator.h), nothing folds by evaluation.
class HostEvaluatorInterface
    : public mlir::DialectInterface::Base<HostEvaluatorInterface> {
public:
  explicit HostEvaluatorInterface(mlir::Dialect *dialect) : Base(dialect) {}

  /// Runs `op` on one dense row-major buffer per operand (in the operand
  /// types); returns one buffer per result. On failure `error` says why.
  virtual mlir::FailureOr<std::vector<std::vector<char>>>
  evaluate(mlir::Operation *op, llvm::ArrayRef<std::vector<char>> operandData,
           std::string &error) const = 0;
};

/// Runs `op`'s host kernel on one dense row-major buffer per operand (in
/// the operand types), through the graph dialect's HostEvaluatorInterface;
/// returns one buffer per result. On failure `error` says why (no
/// evaluator, no kernel, a dynamic result, the kernel's own message).
mlir::FailureOr<std::vector<std::vector<char>>>
evaluateOnHost(mlir::Operation *op,
               llvm::ArrayRef<std::vector<char>> operandData,
               std::string &error);

} // namespace graphc::graph

#endif
