//===- GraphOps.td - graph dialect ops ---------------------*- tablegen -*-===//
//
// One op per mnemonic of lib/Import/ONNX/OpTable.def, grouped by category.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHC_GRAPH_OPS_TD
#define GRAPHC_GRAPH_OPS_TD

include "dialects/Graph/GraphBase.td"
include "dialects/Graph/GraphElementwiseOps.td"
include "dialects/Graph/GraphNNOps.td"
include "dialects/Graph/GraphReductionOps.td"
include "dialects/Graph/GraphShapeOps.td"
include "dialects/Graph/GraphControlFlowOps.td"
include "dialects/Graph/GraphDataDependentOps.td"
include "dialects/Graph/GraphQuantizedOps.td"

#endif // GRAPHC_GRAPH_OPS_TD
