//===- GraphScalarInterface.td - pointwise ops' scalar semantics -*- tablegen -*-===//
//
// ScalarComputeOpInterface: how one element of a pointwise op's result is
// computed from its operands' elements, built once per op (GraphScalar.cpp,
// over the bodies of lib/Support/ScalarOps.h) and rendered or evaluated by
// its consumers: the CUDA and cpu targets' text (lib/Codegen/ScalarExpr.cpp),
// pad-safety reasoning (evaluateScalarTree).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHC_GRAPH_SCALAR_INTERFACE_TD
#define GRAPHC_GRAPH_SCALAR_INTERFACE_TD

include "mlir/IR/OpBase.td"

def Graph_ScalarComputeOpInterface : OpInterface<"ScalarComputeOpInterface"> {
  let description = [{
    A pointwise op's scalar semantics: its result element as an expression
    of its operand elements, recorded in a scalar::TreeBuilder whose compute
    type is that of input 0 (float for f16/bf16).
  }];
  let cppNamespace = "::graphc::graph";
  let methods = [
    InterfaceMethod<[{
        One element of the result from `operands`, one per ONNX input slot
        (null for an absent optional input). Returns a null value, with the
        reason in `builder.failure()`, when the op's types or attributes have
        no expression.
      }],
      "::graphc::scalar::ScalarValue", "buildScalar",
      (ins "::graphc::scalar::TreeBuilder &":$builder,
           "::llvm::ArrayRef<::graphc::scalar::ScalarValue>":$operands)>,
  ];
}

#endif
