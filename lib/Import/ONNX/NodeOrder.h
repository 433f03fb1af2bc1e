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

#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

#include <vector>

namespace graphc::onnx_import {

/// Indices of the nodes of `graph` in an order where each value is defined
/// before it is read, keeping the file's order where it already is one.
/// Fails, naming the node or value, when a value is defined twice, a node
/// input or graph output is defined nowhere, or the nodes form a cycle.
llvm::Expected<std::vector<size_t>>
topologicalNodeOrder(const onnx::GraphProto &graph);

} // namespace graphc::onnx_import

#endif
