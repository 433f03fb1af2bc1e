//===- ScalarExpr.h - per-op scalar expressions shared by the targets -*- C++ -*-===//
//
// One element of a pointwise op's result as a C++ expression over its
// operands' values, rendered from the op's definition (lib/Support/
// ScalarOps.h, through ScalarComputeOpInterface): what every target's fused
// code is made of. The CUDA templates put them in grid-stride loops, tiles
// and epilogues; the cpu target puts them in the loops it generates for
// fused groups. The text
// calls the helpers of scalarHelperSource() (gc_ld, gc_cvt, gc_exp, ...),
// which compile with NVRTC and, through cudaScalarHeader(), with a host
// compiler; both round f16/bf16 like the reference host kernels.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_CODEGEN_SCALAREXPR_H
#define GRAPHC_LIB_CODEGEN_SCALAREXPR_H

#include "lib/Support/ScalarTree.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <optional>
#include <string>

namespace graphc::graph {
class TransposeOp;
} // namespace graphc::graph

namespace graphc::codegen {

/// C++ name of a graph element type as generated code stores it ("__half"
/// for f16, "" when it has none).
std::string cxxType(mlir::Type type);
/// Type arithmetic happens in: float for f16/bf16, the type itself otherwise.
std::string computeType(mlir::Type type);
/// Whether arithmetic on `type` is floating point (f16, bf16, f32, f64).
bool isFloatType(mlir::Type type);
/// A literal of value `v` in compute type `type` ("2.5f", "static_cast<long
/// long>(2)").
std::string literal(double v, llvm::StringRef type);
/// The largest / smallest value of compute type `type` (infinities for floats).
std::string highest(llvm::StringRef type);
std::string lowest(llvm::StringRef type);

/// Row-major strides of `dims`.
llvm::SmallVector<int64_t> contiguousStrides(llvm::ArrayRef<int64_t> dims);
/// Strides of a tensor of shape `in` read at the coordinates of the numpy
/// broadcast shape `out`: right-aligned, 0 along broadcast dims.
llvm::SmallVector<int64_t> broadcastStrides(llvm::ArrayRef<int64_t> in,
                                            llvm::ArrayRef<int64_t> out);
/// Strides of the input of `transpose` read at the coordinates of the numpy
/// broadcast shape `out` of its result (result dim j is input dim perm[j]):
/// a load that reads the transposed input without a copy.
llvm::SmallVector<int64_t> transposedStrides(graph::TransposeOp transpose,
                                             llvm::ArrayRef<int64_t> out);

/// The operands of `op` per ONNX input slot, null for an absent optional
/// one.
llvm::SmallVector<mlir::Value> inputSlots(mlir::Operation *op);

/// How a builder reports an op it has no expression for: a target emits its
/// own diagnostic, or none when it has another way to compute the op.
using ScalarExprFailure = llvm::function_ref<mlir::LogicalResult(
    mlir::Operation *, const llvm::Twine &)>;

/// The scalar expression of a pointwise op (one with the graph Pointwise
/// trait), its ScalarComputeOpInterface tree rendered: one element of its
/// result from `operands`, one C++ expression per ONNX input slot in the
/// slot's compute type ("" for an absent optional input). An operand may
/// appear several times in the result, so callers pass names. Reports
/// through `fail` when it has none.
mlir::FailureOr<std::string> pointwiseExpr(mlir::Operation *op,
                                           llvm::ArrayRef<std::string> operands,
                                           ScalarExprFailure fail);

/// The C++ text of `root`, a node of `builder` (ScalarOps.h's bodies), with
/// literals of compute type `computeType` and operand i named operands[i].
/// Infix operators render without parentheses, paren() with them; a tree
/// whose text would parse as another tree (a missing paren()) renders
/// nothing and says why in `error`.
std::optional<std::string>
renderScalarTree(const scalar::TreeBuilder &builder, scalar::ScalarValue root,
                 llvm::StringRef computeType,
                 llvm::ArrayRef<std::string> operands, std::string &error);

/// `const <type> <name> = <value>;`, rounding `value` through the storage
/// type when that is narrower than the compute type (f16, bf16), so that a
/// fused intermediate equals what a kernel of its own would have stored.
std::string defineValue(mlir::Type storage, llvm::StringRef name,
                        llvm::StringRef value);
/// A splat constant as a literal of compute type `t`, if it is one.
std::optional<std::string> splatLiteral(mlir::Operation *constant,
                                        llvm::StringRef t);

/// The helpers the expressions call, as CUDA C++ (`__device__` functions).
llvm::StringRef scalarHelperSource();
/// graphc_cuda_scalar.h: what a host compiler needs, included first, to
/// compile scalarHelperSource() and the expressions.
llvm::StringRef cudaScalarHeader();

} // namespace graphc::codegen

#endif
