//===- FunctionExpansion.h - ONNX ops as their function bodies --*- C++ -*-===//
//
// An ONNX op graphc has no lowering for, but whose schema in the ONNX library
// graphc links (libonnx 1.12) defines a function body or a context-dependent
// function for the model's opset, is replaced before import by the nodes of
// that body, recursively. A lowered op whose node uses an optional output the
// lowering does not model is expanded too when it has a function. A direct
// lowering wins everywhere else. Builds without libonnx expand nothing.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_IMPORT_ONNX_FUNCTIONEXPANSION_H
#define GRAPHC_LIB_IMPORT_ONNX_FUNCTIONEXPANSION_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace graphc::onnx_import {

/// Function bodies nest at most this deep (a model file is untrusted).
inline constexpr int kMaxFunctionDepth = 8;
/// At most this many nodes are added by expanding functions.
inline constexpr int64_t kMaxExpandedNodes = 1 << 16;

/// What the importer can lower directly.
struct LoweringQuery {
  /// True when graphc lowers the default-domain op `opType`.
  llvm::function_ref<bool(llvm::StringRef opType)> isLowered;
  /// How many outputs the lowering of `opType` models, or nullopt when it
  /// models every output the node has.
  llvm::function_ref<std::optional<size_t>(llvm::StringRef opType)>
      modelledOutputs;
};

/// True when this graphc links libonnx's schemas and so expands functions.
bool haveFunctionExpansion();

/// True when libonnx 1.12 gives the default-domain op `opType` at `opset` a
/// function body or a context-dependent function.
bool hasOnnxFunction(llvm::StringRef opType, int64_t opset);

/// `model` with its nodes, values and opsets, and initializers that keep only
/// their names, types and dims.
onnx::ModelProto copyWithoutTensorData(const onnx::ModelProto &model);

/// Replaces, in place, every node of `model`'s graph that needs it by the
/// nodes of its function body, recursively. `nodeOpsets` receives the
/// default-domain opset each node of the result is read at: the model's
/// `opset`, or that of the function body a node comes from. Expanded nodes
/// are named "<caller>/<body node>" (e.g. "loss/ReduceSum_3"). Nodes that need
/// a function but have none are left for the unsupported-op check. Fails with
/// one line naming the node when a body cannot be built or the expansion
/// exceeds kMaxFunctionDepth or kMaxExpandedNodes.
llvm::Error expandFunctions(onnx::ModelProto &model, int64_t opset,
                            const LoweringQuery &lowering,
                            std::vector<int64_t> &nodeOpsets);

} // namespace graphc::onnx_import

#endif
