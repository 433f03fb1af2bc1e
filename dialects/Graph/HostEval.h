//===- HostEval.h - bridge from graph ops to the host kernels ---*- C++ -*-===//
//
// Converts element types, constant tensors and op attributes into the plain C
// structures of lib/HostKernels. Shared by constant folding and by the cpu
// emitter, so that both see an op exactly the same way.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_DIALECTS_GRAPH_HOSTEVAL_H
#define GRAPHC_DIALECTS_GRAPH_HOSTEVAL_H

#include "lib/HostKernels/HostKernels.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

#include <deque>
#include <string>
#include <vector>

namespace graphc::graph {

/// The gc_dtype of an MLIR element type, GC_DTYPE_UNDEFINED if unsupported.
int32_t toHostDtype(mlir::Type elementType);
/// The MLIR element type of a gc_dtype, null if unsupported.
mlir::Type fromHostDtype(mlir::MLIRContext *context, int32_t dtype);

/// Dense row-major bytes of a constant (splats expanded, i1 as one byte per
/// element), or failure for attributes it cannot read.
mlir::FailureOr<std::vector<char>> constantBytes(mlir::ElementsAttr value);
/// Builds an attribute of `type` from dense row-major bytes.
mlir::ElementsAttr constantFromBytes(mlir::ShapedType type,
                                     llvm::ArrayRef<char> bytes);

/// Owns the storage behind a gc_attrs built from an op's attributes.
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

/// Operand counts of `op` per ONNX input slot (0 for an absent optional
/// input): from its operandSegmentSizes attribute, else one per operand plus
/// an empty slot for an absent trailing optional input. Kernels of every
/// target take one parameter per slot, so this is their calling convention.
llvm::SmallVector<int32_t> operandSlotSizes(mlir::Operation *op);

/// Runs `op`'s host kernel on one dense row-major buffer per operand (in
/// the operand types); returns one buffer per result. On failure `error`
/// says why (no kernel, a dynamic result, the kernel's own message).
mlir::FailureOr<std::vector<std::vector<char>>>
evaluateOnHost(mlir::Operation *op,
               llvm::ArrayRef<std::vector<char>> operandData,
               std::string &error);

} // namespace graphc::graph

#endif
