//===- GraphOps.cpp - graph dialect op definitions and verifiers ----------===//

#include "dialects/Graph/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace graphc::graph;

#define GET_OP_CLASSES
#include "dialects/Graph/GraphOps.cpp.inc"

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  if (getValue().getType() != getOutput().getType())
    return emitOpError("value type ")
           << getValue().getType() << " does not match result type "
           << getOutput().getType();
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }
