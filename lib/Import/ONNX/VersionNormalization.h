//===- VersionNormalization.h - ONNX nodes in their newest form -*- C++ -*-===//
//
// Graph ops mirror the newest form (opset <= 22) of each ONNX op. Nodes from
// older opsets, and ops that become other graph ops (Dropout, CastLike,
// Constant), are rewritten here; every other op imports generically.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_IMPORT_ONNX_VERSIONNORMALIZATION_H
#define GRAPHC_LIB_IMPORT_ONNX_VERSIONNORMALIZATION_H

#include "lib/Import/ONNX/NodeBuilder.h"

#include "mlir/IR/OperationSupport.h"

#include <onnx/onnx_pb.h>

namespace graphc::onnx_import {

/// One ONNX node ready to become graph ops.
struct NodeInfo {
  const onnx::NodeProto &node;
  /// The default-domain opset the model imports.
  int64_t opset;
  /// One value per ONNX input slot of the newest form, null when absent.
  llvm::SmallVector<mlir::Value> inputs;
  /// The node's attributes, converted (see GraphBase.td).
  mlir::NamedAttrList attributes;
  /// The graph dialect mnemonic from OpTable.def.
  llvm::StringRef mnemonic;
  /// Per input slot, 21 (UINT4) or 22 (INT4) where the ONNX value is a 4-bit
  /// integer, which graphc holds unpacked as uint8 or int8; otherwise 0.
  llvm::SmallVector<int32_t> fourBitInputs = {};
};

/// Number of input slots of the newest form of `opType` (optional slots
/// included), at least `given`.
size_t inputSlotCount(llvm::StringRef opType, size_t given);

/// True when the INT attribute `name` of `opType` holds an ONNX data type
/// and becomes a TypeAttr.
bool isDataTypeAttribute(llvm::StringRef opType, llvm::StringRef name);

/// The input slots of `opType` that must be constants when the node
/// imports (STFT's frame_step and frame_length, MelWeightMatrix's scalars):
/// the node becomes different ops for different values.
llvm::ArrayRef<unsigned> importTimeConstantSlots(llvm::StringRef opType);

/// Imports `info` as graph ops, returning one value per modelled ONNX output
/// (required outputs first, in order). Emits diagnostics and fails on nodes
/// graphc cannot express.
mlir::FailureOr<llvm::SmallVector<mlir::Value>> importNode(NodeBuilder &builder,
                                                           NodeInfo &info);

} // namespace graphc::onnx_import

#endif
