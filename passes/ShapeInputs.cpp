//===- ShapeInputs.cpp - inputs whose values determine shapes -------------===//

#include "passes/ShapeInputs.h"

#include "dialects/Graph/GraphDialect.h"
#include "dialects/Graph/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/DenseSet.h"

namespace graphc {

using namespace mlir;

namespace {

/// Operands larger than this are data, never shapes, and are not tried.
constexpr int64_t kMaxShapeOperandElements = 64;
/// Values visited when tracing a shape operand back to the inputs.
constexpr unsigned kMaxTracedValues = 256;

bool isDynamic(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  return !ranked || !ranked.hasStaticShape();
}

/// A constant of `type` holding ones (true for bool): valid as most shape
/// operands' values, and unlike what any dynamic result was inferred from.
Operation *createOnes(OpBuilder &builder, Location loc,
                      RankedTensorType type) {
  Type element = type.getElementType();
  Attribute one;
  if (auto floatType = dyn_cast<FloatType>(element))
    one = builder.getFloatAttr(floatType, 1.0);
  else if (isa<IntegerType, IndexType>(element))
    one = builder.getIntegerAttr(element, 1);
  else
    return nullptr;
  return builder.create<graph::ConstantOp>(
      loc, type, DenseElementsAttr::get(type, one));
}

} // namespace

SmallVector<unsigned> findValueShapedOperands(Operation *op) {
  SmallVector<unsigned> found;
  auto infer = dyn_cast<InferTypeOpInterface>(op);
  if (!infer || !llvm::any_of(op->getResultTypes(), isDynamic))
    return found;
  OpBuilder builder(op->getContext());
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type || !type.hasStaticShape() ||
        type.getNumElements() > kMaxShapeOperandElements ||
        matchPattern(operand.get(), m_Constant()))
      continue;
    // A detached constant: inference reads it, the IR never holds it.
    Operation *ones = createOnes(builder, op->getLoc(), type);
    if (!ones)
      continue;
    SmallVector<Value> operands(op->getOperands());
    operands[operand.getOperandNumber()] = ones->getResult(0);
    SmallVector<Type> inferred;
    bool reads =
        failed(infer.inferReturnTypes(
            op->getContext(), std::nullopt, operands, op->getAttrDictionary(),
            op->getPropertiesStorage(), op->getRegions(), inferred)) ||
        TypeRange(inferred) != op->getResultTypes();
    ones->erase();
    if (reads)
      found.push_back(operand.getOperandNumber());
  }
  return found;
}

std::vector<std::string> findInputSources(func::FuncOp main, Value value) {
  std::vector<std::string> inputs;
  SmallVector<Value> worklist = {value};
  llvm::DenseSet<Value> seen = {value};
  while (!worklist.empty() && seen.size() <= kMaxTracedValues) {
    Value next = worklist.pop_back_val();
    if (auto argument = dyn_cast<BlockArgument>(next)) {
      if (argument.getOwner() != &main.getBody().front())
        continue;
      auto name = main.getArgAttrOfType<StringAttr>(argument.getArgNumber(),
                                                    graph::kNameAttr);
      inputs.push_back(name ? name.str()
                            : "#" + std::to_string(argument.getArgNumber()));
      continue;
    }
    Operation *op = next.getDefiningOp();
    if (!op || isa<graph::ShapeOp, graph::SizeOp>(op) ||
        matchPattern(next, m_Constant()))
      continue;
    for (Value operand : op->getOperands())
      if (seen.insert(operand).second)
        worklist.push_back(operand);
  }
  llvm::sort(inputs);
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  return inputs;
}

std::vector<ShapeInput> findShapeInputs(func::FuncOp main) {
  std::vector<ShapeInput> found;
  for (Operation &op : main.getBody().front()) {
    for (unsigned index : findValueShapedOperands(&op))
      for (std::string &input :
           findInputSources(main, op.getOperand(index)))
        found.push_back({std::move(input), graph::firstNodeName(op.getLoc()),
                         op.getName().getStringRef().str(), index});
  }
  return found;
}

} // namespace graphc
