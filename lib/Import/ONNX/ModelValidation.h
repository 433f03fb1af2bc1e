//===- ModelValidation.h - what ONNX requires of a model --------*- C++ -*-===//
//
// A model file is untrusted input. Before any IR is built, the importer checks
// what ONNX itself (and onnxruntime) require: a known IR version, names without
// NUL bytes, unique graph inputs and initializers, values defined once and
// without cycles, and every node against the schema of its op at the model's
// opset (OpTable.def): input and output counts, required inputs present, known
// attributes given once.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_IMPORT_ONNX_MODELVALIDATION_H
#define GRAPHC_LIB_IMPORT_ONNX_MODELVALIDATION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <vector>

namespace graphc::onnx_import {

/// The newest ONNX IR version graphc reads (that of opset 22, ONNX 1.16+).
inline constexpr int64_t kMaxIrVersion = 10;

/// The signature of a default-domain op at one opset (see OpTable.def).
struct OpSchemaInfo {
  int64_t sinceVersion = 0;
  /// One letter per formal input or output: 'r', 'o', 'v' or 'w'.
  llvm::StringRef inputs;
  llvm::StringRef outputs;
  /// Accepted attribute names separated by spaces.
  llvm::StringRef attributes;
};

/// The schema of `opType` that applies at `opset`, or nullopt when the op is
/// not in OpTable.def or not defined yet at that opset.
std::optional<OpSchemaInfo> lookupOpSchema(llvm::StringRef opType,
                                           int64_t opset);

/// `name` with NUL bytes shown as "\0", for error messages.
std::string printableName(llvm::StringRef name);

/// Checks what does not depend on op schemas: the IR version, names without
/// NUL bytes (subgraphs included), unique graph inputs and initializers,
/// subgraphs only where If, Loop and Scan take them, every value
/// defined once and the nodes free of cycles. ONNX's own checker and version
/// converter may only see models that pass this. Returns the nodes'
/// topological order (see topologicalNodeOrder).
llvm::Expected<std::vector<size_t>>
validateModelStructure(const onnx::ModelProto &model);

/// Checks `model`, whose default-domain opset is `opset` and whose nodes all
/// use ops of OpTable.def: its structure, then each node against its schema
/// at `nodeOpsets[index]` when given (nodes from ONNX function bodies), else
/// at `opset`. Fails with one line naming the node, value or attribute at
/// fault; returns the nodes' topological order otherwise.
llvm::Expected<std::vector<size_t>>
validateModel(const onnx::ModelProto &model, int64_t opset,
              llvm::ArrayRef<int64_t> nodeOpsets = {});

/// Checks a subgraph (an If branch, a Loop or Scan body) whose names the
/// model's checks covered: each node against its schema at `opset`, then the
/// order of its nodes, where `isOuter` says which names the enclosing scopes
/// define. Returns the nodes' topological order.
llvm::Expected<std::vector<size_t>>
validateSubgraph(const onnx::GraphProto &graph, int64_t opset,
                 llvm::function_ref<bool(llvm::StringRef)> isOuter);

} // namespace graphc::onnx_import

#endif
