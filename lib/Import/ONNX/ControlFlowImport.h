//===- ControlFlowImport.h - ONNX If, Loop and Scan as graph ops -*- C++
//-*-===//
//
// graphc's plans are straight-line: each bucket is one CUDA graph of kernels.
// The importer therefore imports ONNX control flow as the graph ops of its
// subgraphs, which see the values of the enclosing scopes:
//
//  - If: a condition known at compile time (a constant, or folded from
//    constants and static shapes, as exporters' rank and size tests are)
//    selects its branch. Otherwise both branches are imported and each
//    output is a `graph.where` of the two; that needs branches whose outputs
//    have the same types and that hold no op which can fail at run time
//    (Graph_ChecksValues), since the branch not taken is computed too.
//  - Loop: unrolled when its trip count M is known at compile time and at
//    most kMaxLoopIterations, or when it has no M and a condition known at
//    compile time that folds to false within kMaxLoopIterations. A
//    condition known only at run time, under such an M, masks the remaining
//    iterations: each loop-carried value keeps its value once the condition
//    is false (which needs loop-carried types that do not change and a body
//    with no op that can fail). Any other Loop without scan outputs (an M
//    the run decides or past kMaxLoopIterations, no M and a condition the
//    run decides) becomes a graph.loop: its body imported once into the
//    op's region, run by the plan as a loop (a WHILE conditional node of the
//    CUDA graph on cuda), bounded by ImportOptions::maxLoopIterations. Scan
//    outputs, whose length would then be data-dependent, need M known.
//  - Scan: unrolled over the scan inputs' (static) sequence length, in
//    either direction, with scan outputs concatenated along their axes.
//
// A value that must be known at compile time but is computed from model
// inputs is reported as a CompileTimeInputError naming them: binding them
// with --const-input makes it known. Unrolling is bounded (iterations and
// imported nodes), and every op created is named "<node>/<branch or
// iteration>/<subgraph node>".
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_IMPORT_ONNX_CONTROLFLOWIMPORT_H
#define GRAPHC_LIB_IMPORT_ONNX_CONTROLFLOWIMPORT_H

#include "lib/Import/ONNX/NodeBuilder.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace graphc::onnx_import {

/// Iterations a Loop or Scan may unroll to.
inline constexpr int64_t kMaxLoopIterations = 4096;

/// What importing control flow needs of the graph importer.
class SubgraphImporter {
public:
  virtual ~SubgraphImporter() = default;
  /// Imports `body` with its formal inputs bound to `arguments` and the
  /// values of the enclosing scopes visible, naming its ops
  /// "<prefix>/<node>". Returns one value per output of `body`.
  virtual llvm::Expected<llvm::SmallVector<mlir::Value>>
  importSubgraph(onnx::GraphProto &body, llvm::ArrayRef<mlir::Value> arguments,
                 const std::string &prefix) = 0;
  /// The names of the model inputs `value` is computed from.
  virtual std::vector<std::string> inputSources(mlir::Value value) = 0;
  /// ImportOptions::maxLoopIterations.
  virtual int64_t maxLoopIterations() const = 0;
};

/// True for the ops importControlFlow imports.
bool isControlFlowOp(llvm::StringRef opType);

/// Imports the If, Loop or Scan `node` (named by `builder`'s location),
/// whose inputs are `inputs` (null for absent optional ones). Returns one
/// value per node output.
llvm::Expected<llvm::SmallVector<mlir::Value>>
importControlFlow(SubgraphImporter &importer, NodeBuilder &builder,
                  onnx::NodeProto &node, llvm::ArrayRef<mlir::Value> inputs);

/// "input 'a'" or "inputs 'a', 'b'", and that --const-input binds them: the
/// way out that every CompileTimeInputError names.
std::string constInputHint(llvm::ArrayRef<std::string> sources);

/// The CompileTimeInputError of node `name` (`node`): `what`, its input
/// `operand`, is not known at compile time and `why` says what needs it;
/// `sources` are the model inputs it is computed from (none: a plain
/// error).
llvm::Error compileTimeInputError(const std::string &name,
                                  const onnx::NodeProto &node,
                                  std::vector<std::string> sources,
                                  unsigned operand, const llvm::Twine &what,
                                  const llvm::Twine &why);

} // namespace graphc::onnx_import

#endif
