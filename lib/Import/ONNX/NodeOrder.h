//===- NodeOrder.h - the data-flow order of a graph's nodes -----*- C++ -*-===//
//
// ONNX requires a graph's nodes in topological order, but exporters and
// hand-edited files do not always keep it. The importer, and ONNX's version
// converter before it (whose IR import dereferences undefined values), need
// every value defined once and before its uses; this computes such an order
// or says which value or cycle stands in the way.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_IMPORT_ONNX_NODEORDER_H
#define GRAPHC_LIB_IMPORT_ONNX_NODEORDER_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

#include <vector>

namespace graphc::onnx_import {

/// The values that the subgraphs of `node` (If branches, Loop and Scan
/// bodies, and those nested in them) read from enclosing scopes: ONNX's
/// implicit inputs, which order the node after their producers like its
/// inputs do. In order of first use, each once.
std::vector<std::string> implicitInputs(const onnx::NodeProto &node);

/// Indices of the nodes of `graph` in an order where each value is defined
/// before it is read (a node's implicit inputs included), keeping the file's
/// order where it already is one. `isOuter`, for a subgraph, says which
/// names its enclosing scopes define. Fails, naming the node or value, when
/// a value is defined twice, a node input or graph output is defined
/// nowhere, or the nodes form a cycle.
llvm::Expected<std::vector<size_t>> topologicalNodeOrder(
    const onnx::GraphProto &graph,
    llvm::function_ref<bool(llvm::StringRef)> isOuter = nullptr);

} // namespace graphc::onnx_import

#endif
