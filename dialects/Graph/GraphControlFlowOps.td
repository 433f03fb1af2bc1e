//===- GraphControlFlowOps.td - loops run at run time -----*- tablegen -*-===//
//
// Control flow that the importer cannot resolve at compile time. Most ONNX
// If, Loop and Scan nodes become the ops of their subgraphs (a folded
// condition's branch, unrolled iterations); a Loop whose trip count or
// condition only the run knows becomes a graph.loop, which runs as a loop
// of the plan's steps (a WHILE conditional node of the CUDA graph on cuda).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHC_GRAPH_CONTROL_FLOW_OPS_TD
#define GRAPHC_GRAPH_CONTROL_FLOW_OPS_TD

include "dialects/Graph/GraphBase.td"

def Graph_LoopOp : Graph_Op<"loop", [SingleBlock, RecursiveMemoryEffects,
    AttrSizedOperandSegments]> {
  let summary = "a loop whose trip count or condition the run decides (ONNX Loop)";
  let description = [{
    ONNX Loop without scan outputs:
    ```
    i = 0; go = condition (true when absent) and 0 < trip_count (when present)
    while go:
      if i == max_iterations: the run fails
      cond, carried = body(i, carried)
      i = i + 1; go = cond and i < trip_count (when present)
    results = carried
    ```
    The body's block arguments are the iteration number (tensor<i64>) and
    the loop-carried values, of the types of `initial`; `graph.yield` gives
    the condition (a one-element bool tensor) and the next carried values,
    of the same types, which are the op's results. The body's condition
    input is not an argument: the body only runs while it is true. The body
    may read values defined before the loop. `max_iterations` bounds a run
    (at least 1).
  }];
  let arguments = (ins Optional<Graph_I64Tensor>:$trip_count,
                       Optional<Graph_BoolTensor>:$condition,
                       Variadic<Graph_Tensor>:$initial,
                       I64Attr:$max_iterations);
  let results = (outs Variadic<Graph_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`trip_count` `(` $trip_count^ `:` type($trip_count) `)`)?
    (`condition` `(` $condition^ `:` type($condition) `)`)?
    `(` ($initial^ `:` type($initial))? `)` attr-dict-with-keyword
    `->` `(` type($results) `)` $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The body's iteration number.
    ::mlir::BlockArgument getIteration() { return getBodyBlock().getArgument(0); }
    /// The body's argument that holds loop-carried value `index`.
    ::mlir::BlockArgument getCarried(unsigned index) {
      return getBodyBlock().getArgument(1 + index);
    }
    ::mlir::Operation *getYield() { return getBodyBlock().getTerminator(); }
  }];
}

def Graph_YieldOp : Graph_Op<"yield", [Pure, Terminator,
    HasParent<"LoopOp">]> {
  let summary = "the condition and the next loop-carried values of a loop body";
  let arguments = (ins Variadic<Graph_Tensor>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

#endif // GRAPHC_GRAPH_CONTROL_FLOW_OPS_TD
