//===- Passes.td - graphc passes ---------------------------*- tablegen -*-===//

#ifndef GRAPHC_PASSES_TD
#define GRAPHC_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Graph-level simplification
//===----------------------------------------------------------------------===//

def FoldShapeComputations : Pass<"graphc-fold-shape-computations",
                                 "mlir::ModuleOp"> {
  let summary = "fold constants and shape sub-graphs, refine result types";
  let description = [{
    Alternates folding (every graph op with constant operands is evaluated
    with the host kernels; Shape and Size of static tensors become
    constants) with re-inference of result types, until neither changes
    anything. Shape -> Gather -> Concat -> Reshape chains over static dims
    fold away; function result types follow their refined values.
  }];
  let options = [
    Option<"maxIterations", "max-iterations", "unsigned", "16",
           "upper bound on fold/refine rounds">,
  ];
}

#endif // GRAPHC_PASSES_TD
