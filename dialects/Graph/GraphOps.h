//===- GraphOps.h - graph dialect ops ---------------------------*- C++ -*-===//
#ifndef GRAPHC_DIALECTS_GRAPH_GRAPHOPS_H
#define GRAPHC_DIALECTS_GRAPH_GRAPHOPS_H

#include "dialects/Graph/GraphDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace graphc::graph {
class TypeInference;

namespace OpTrait {
/// Each result element is a function of the operand elements at the same
/// position under numpy broadcasting: the op can join a pointwise fusion.
template <typename ConcreteType>
class Pointwise : public mlir::OpTrait::TraitBase<ConcreteType, Pointwise> {};

// The kernel template family of a non-pointwise op (GraphBase.td).
template <typename ConcreteType>
class MatmulKind : public mlir::OpTrait::TraitBase<ConcreteType, MatmulKind> {};
template <typename ConcreteType>
class ConvKind : public mlir::OpTrait::TraitBase<ConcreteType, ConvKind> {};
template <typename ConcreteType>
class ReductionKind
    : public mlir::OpTrait::TraitBase<ConcreteType, ReductionKind> {};
template <typename ConcreteType>
class AttentionKind
    : public mlir::OpTrait::TraitBase<ConcreteType, AttentionKind> {};

/// The op reads indices, lengths or an axis from an operand's values and
/// reports those out of range when it runs (GraphBase.td).
template <typename ConcreteType>
class ChecksValues
    : public mlir::OpTrait::TraitBase<ConcreteType, ChecksValues> {};
} // namespace OpTrait
} // namespace graphc::graph

#include "dialects/Graph/GraphExtentInterface.h.inc"

#define GET_OP_CLASSES
#include "dialects/Graph/GraphOps.h.inc"

#include "dialects/Graph/GraphLayout.h"

namespace graphc::graph {

/// Attribute names on `func.func @main` arguments and results.
inline constexpr llvm::StringLiteral kNameAttr = "graph.name";
/// Per-dim ONNX dim_param names ("" for unnamed or static dims).
inline constexpr llvm::StringLiteral kDimsAttr = "graph.dims";
/// On an argument: the value it is padded with along a pad-safe bucketed
/// dim (an F64Attr; 0 when absent).
inline constexpr llvm::StringLiteral kPadValueAttr = "graph.pad_value";

/// On a function that is one shape bucket of the model: the size of each
/// bucketed dim (a dictionary from dim name to i64).
inline constexpr llvm::StringLiteral kBucketAttr = "graph.bucket";
/// On a bucket function: the model's signature before bucketing (a
/// FunctionType with the bucketed dims dynamic).
inline constexpr llvm::StringLiteral kSignatureAttr = "graph.signature";
/// On a bucket function: the name of its run plan, e.g. "batch=8,seq=128".
inline constexpr llvm::StringLiteral kPlanNameAttr = "graph.plan_name";
/// On a bucket function whose model computes with a dynamic dim's size
/// (see passes/SizeUses.h): {DIM = {node, reason}} per such dim, which is
/// not pad-safe.
inline constexpr llvm::StringLiteral kSizeUseAttr = "graph.size_use";
/// On a bucket function: AnalyzePadSafety's verdict per bucketed dim.
inline constexpr llvm::StringLiteral kPadSafetyAttr = "graph.pad_safety";

/// Result types are compatible when element types match and every dim is
/// equal or dynamic on either side: refinement may make results more static.
bool areCompatibleShapedTypes(mlir::TypeRange lhs, mlir::TypeRange rhs);

/// Numpy-style broadcast of two shapes; fails when static dims disagree.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// The integer contents of a value defined by a constant, if it is one.
std::optional<llvm::SmallVector<int64_t>> getConstantInts(mlir::Value value);
/// The contents of an integer constant, dense or a resource blob.
std::optional<llvm::SmallVector<int64_t>> getConstantInts(mlir::ElementsAttr attr);

/// The perm of a transpose, with the default (reversed dims) spelled out:
/// result dim i is input dim perm[i].
llvm::SmallVector<int64_t> transposePermutation(TransposeOp op);

/// Folds `op` by evaluating it with the host kernels when all its operands
/// are constants and its results static and small enough. Fills `results`
/// with one attribute per result on success.
mlir::LogicalResult
foldByEvaluation(mlir::Operation *op, llvm::ArrayRef<mlir::Attribute> operands,
                 llvm::SmallVectorImpl<mlir::OpFoldResult> &results);

/// Whether `op` can anchor an epilogue fusion: the kernel templates of
/// conv, gemm and mat_mul (and their quantized forms, whose epilogue is the
/// dequantizing cast and scale) apply the pointwise ops consuming the
/// result to the accumulator before the store. Fusion grouping and every
/// target that emits such fusions decide by this one predicate.
inline bool isEpilogueAnchor(mlir::Operation *op) {
  return mlir::isa<ConvOp, GemmOp, MatMulOp, QuantizedConvOp,
                   QuantizedMatMulOp>(op);
}

/// Appends the ONNX node names a location records: its NameLoc, or every
/// NameLoc of a fused location (an op a rewrite made of several nodes).
inline void collectNodeNames(mlir::Location loc,
                             llvm::SmallVectorImpl<mlir::StringAttr> &names) {
  if (auto named = mlir::dyn_cast<mlir::NameLoc>(loc)) {
    names.push_back(named.getName());
    return;
  }
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location inner : fused.getLocations())
      collectNodeNames(inner, names);
}

/// The ONNX node name a location records (the first of a fused location's,
/// a call site's callee's), or "" when it records none: what diagnostics and
/// kernel comments name an op by.
inline std::string firstNodeName(mlir::Location loc) {
  if (auto named = mlir::dyn_cast<mlir::NameLoc>(loc))
    return named.getName().str();
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location inner : fused.getLocations())
      if (std::string name = firstNodeName(inner); !name.empty())
        return name;
  if (auto callSite = mlir::dyn_cast<mlir::CallSiteLoc>(loc))
    return firstNodeName(callSite.getCallee());
  return "";
}

/// The location of an op that computes outputs of ONNX node `node` (its
/// NameLoc): the same NameLoc, whose child location also records, per
/// result of the op, the ONNX tensor it holds ("" for a result that is no
/// output of the node). Tools that compare a run with a reference (graphc
/// verify) find the tensors through it; diagnostics and kernel comments
/// still read the node's name.
mlir::Location withTensorNames(mlir::NameLoc node,
                               llvm::ArrayRef<mlir::StringAttr> tensors);

/// `loc` without the tensor names withTensorNames or withTensorsOf
/// recorded, at any depth: for a rewrite that keeps a node's location on an
/// op whose results no longer hold the node's outputs as written (another
/// layout, a part of the computation, a shape constant). The node names
/// stay, for reports.
mlir::Location withoutTensorNames(mlir::Location loc);

/// `loc` (a node's, or several fused) naming, per result of an op that
/// replaces `replaced` one for one, the ONNX tensor each replaced value
/// holds: for a rewrite whose op computes exactly the values it replaces
/// (a chain recognised as one op, a linear op that absorbed the affine
/// after it). A fused location records the names in its metadata. Without
/// names when no replaced value has one.
mlir::Location withTensorsOf(mlir::Location loc, mlir::ValueRange replaced);

/// The ONNX tensor `value` holds, element for element in the same order
/// (its precision may differ, and a view its dims): a graph input's name,
/// or an initializer or node output recorded by withTensorNames or
/// withTensorsOf. Empty when unknown (a value a rewrite made of several
/// nodes without naming it, or in another layout).
llvm::StringRef onnxTensorName(mlir::Value value);

/// Largest head size (of Q, K and V) a graph.attention is made with: the
/// attention kernel templates keep K and V tiles of it in shared memory.
inline constexpr int64_t kMaxAttentionHeadSize = 256;

/// Whether `op` is a layout epilogue of `anchor`: a transpose of the result
/// of the layout anchor `anchor`, its only user. Fusion ends the anchor's
/// kernel with it, and the anchor's template stores each element at its
/// transposed position instead of writing a copy to transpose (the head
/// merge of attention).
inline bool isLayoutEpilogueOf(mlir::Operation *op, mlir::Operation *anchor) {
  return mlir::isa<TransposeOp>(op) && isLayoutAnchor(anchor) &&
         op->getOperand(0) == anchor->getResult(0) && anchor->hasOneUse();
}

/// Whether `op` can take in a pointwise prologue: the row templates of
/// softmax, log_softmax and layer_normalization read their data input
/// (slot 0) only through one load, which a prologue kernel replaces by the
/// pointwise chain computing that element. Fusion grouping and every target
/// that emits such fusions decide by this one predicate.
inline bool isPrologueReduction(mlir::Operation *op) {
  return mlir::isa<SoftmaxOp, LogSoftmaxOp, LayerNormalizationOp>(op);
}

} // namespace graphc::graph

#endif
