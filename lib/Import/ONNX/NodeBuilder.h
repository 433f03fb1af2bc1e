//===- NodeBuilder.h - generic creation of graph ops ------------*- C++ -*-===//
//
// Graph ops are built generically from the OpTable.def contract: operands in
// ONNX input-slot order, attributes under their ONNX names, and result types
// from the registered op's InferTypeOpInterface. Errors are emitted as MLIR
// diagnostics at the node's location; the importer collects them.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_IMPORT_ONNX_NODEBUILDER_H
#define GRAPHC_LIB_IMPORT_ONNX_NODEBUILDER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace graphc::onnx_import {

/// True when the graph dialect registers `graph.<mnemonic>`.
bool isGraphOpRegistered(mlir::MLIRContext *context, llvm::StringRef mnemonic);

/// The number of results of the registered `graph.<mnemonic>` when it is
/// fixed (up to 4), else nullopt.
std::optional<size_t> graphOpResultCount(mlir::MLIRContext *context,
                                         llvm::StringRef mnemonic);

/// Creates the graph ops of one ONNX node at one location.
class NodeBuilder {
public:
  NodeBuilder(mlir::OpBuilder &builder, mlir::Location loc)
      : builder(builder), loc(loc) {}

  mlir::Location getLoc() const { return loc; }
  mlir::MLIRContext *getContext() const { return builder.getContext(); }
  mlir::OpBuilder &getBuilder() { return builder; }

  /// Creates `graph.<mnemonic>`. `slots` holds one value per ONNX input slot,
  /// null for an absent optional input. Ops with AttrSizedOperandSegments get
  /// one segment per slot; on other ops only trailing slots may be absent.
  /// Result types come from the op's type inference. An op that folds to
  /// constants (all operands constant, or Shape/Size of a static tensor) is
  /// replaced by them on the spot:
  /// shape sub-graphs over static dims then never reach later nodes as
  /// unknown values (a Reshape fed by a computed shape sees its length).
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  create(llvm::StringRef mnemonic, llvm::ArrayRef<mlir::Value> slots,
         llvm::ArrayRef<mlir::NamedAttribute> attributes);

  /// `create` for ops with exactly one result.
  mlir::FailureOr<mlir::Value>
  createValue(llvm::StringRef mnemonic, llvm::ArrayRef<mlir::Value> slots,
              llvm::ArrayRef<mlir::NamedAttribute> attributes);

  /// A graph.constant holding `value`.
  mlir::Value constant(mlir::ElementsAttr value);
  /// A 1-D i64 graph.constant, the form of axes, shapes and split sizes.
  mlir::Value i64Constant(llvm::ArrayRef<int64_t> values);

  /// Whether `create` folds ops of constants. The ops of a DequantizeLinear
  /// stay ops (a graph.dequantize_linear always; the importer clears this
  /// for the ops of an 8-bit float one): graphc-form-quantized-regions
  /// computes the linear ops that read a quantized weight on its stored
  /// values, and the simplify phase folds what it leaves.
  bool foldConstants = true;

private:
  mlir::FailureOr<mlir::Operation *>
  createOp(llvm::StringRef mnemonic, llvm::ArrayRef<mlir::Value> slots,
           llvm::ArrayRef<mlir::NamedAttribute> attributes);

  mlir::OpBuilder &builder;
  mlir::Location loc;
};

} // namespace graphc::onnx_import

#endif
