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

/// How a trial constant is filled: shape operands reject some values
/// (repeated axes, a zero step), so a few fillings are tried.
/// Counting down from -1 gives distinct valid axes (and nonzero steps) for
/// as many axes as the rank.
enum class Fill { ones, fromZero, fromOne, fromMinusOne };
constexpr Fill kFills[] = {Fill::ones, Fill::fromZero, Fill::fromOne,
                           Fill::fromMinusOne};

/// A detached constant of `type` filled as `fill` says (k, k + 1 or
/// -(k + 1) at element k; bool: true), or null for other element types.
Operation *createFilled(OpBuilder &builder, Location loc, RankedTensorType type,
                        Fill fill) {
  Type element = type.getElementType();
  bool isFloat = isa<FloatType>(element);
  if (!isFloat && !isa<IntegerType, IndexType>(element))
    return nullptr;
  SmallVector<Attribute> values;
  for (int64_t k = 0; k < type.getNumElements(); ++k) {
    int64_t value = fill == Fill::ones || element.isInteger(1) ? 1
                    : fill == Fill::fromZero                   ? k
                    : fill == Fill::fromOne                    ? k + 1
                                                               : -(k + 1);
    if (value < 0 && element.isUnsignedInteger())
      value = k + 1;
    values.push_back(isFloat ? Attribute(builder.getFloatAttr(element, value))
                             : builder.getIntegerAttr(element, value));
  }
  return builder.create<graph::ConstantOp>(
      loc, type, DenseElementsAttr::get(type, values));
}

} // namespace

SmallVector<unsigned> findValueShapedOperands(Operation *op) {
  auto infer = dyn_cast<InferTypeOpInterface>(op);
  if (!infer || !llvm::any_of(op->getResultTypes(), isDynamic))
    return {};
  SmallVector<unsigned> candidates;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (type && type.hasStaticShape() &&
        type.getNumElements() <= kMaxShapeOperandElements &&
        !matchPattern(operand.get(), m_Constant()))
      candidates.push_back(operand.getOperandNumber());
  }
  OpBuilder builder(op->getContext());
  std::optional<SmallVector<Type>> original =
      SmallVector<Type>(op->getResultTypes());
  llvm::SmallDenseSet<unsigned> needed;
  for (Fill fill : kFills) {
    // Detached constants: inference reads them, the IR never holds them.
    SmallVector<Operation *> constants;
    for (unsigned index : candidates)
      constants.push_back(createFilled(
          builder, op->getLoc(),
          cast<RankedTensorType>(op->getOperand(index).getType()), fill));
    // The result types with the `replaced` candidates constant; nullopt
    // when inference fails (it read values it rejects).
    auto trial = [&](llvm::function_ref<bool(unsigned)> replaced)
        -> std::optional<SmallVector<Type>> {
      SmallVector<Value> operands(op->getOperands());
      for (auto [i, index] : llvm::enumerate(candidates))
        if (constants[i] && replaced(i))
          operands[index] = constants[i]->getResult(0);
      SmallVector<Type> inferred;
      if (failed(infer.inferReturnTypes(
              op->getContext(), std::nullopt, operands, op->getAttrDictionary(),
              op->getPropertiesStorage(), op->getRegions(), inferred)))
        return std::nullopt;
      return inferred;
    };
    // An operand alone (a Resize's sizes), or one of several that only
    // together fix the shape (a Range's start, limit and delta; a Slice's
    // starts and ends): with all constant and inferred, it is needed when
    // leaving it out changes the types.
    std::optional<SmallVector<Type>> all = trial([](unsigned) { return true; });
    for (auto [i, index] : llvm::enumerate(candidates)) {
      unsigned self = i;
      if (trial([&](unsigned j) { return j == self; }) != original ||
          (all && all != original &&
           trial([&](unsigned j) { return j != self; }) != all))
        needed.insert(index);
    }
    for (Operation *constant : constants)
      if (constant)
        constant->erase();
  }
  SmallVector<unsigned> found;
  for (unsigned index : candidates)
    if (needed.contains(index))
      found.push_back(index);
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
      for (std::string &input : findInputSources(main, op.getOperand(index)))
        found.push_back({std::move(input), graph::firstNodeName(op.getLoc()),
                         op.getName().getStringRef().str(), index});
  }
  return found;
}

} // namespace graphc
