//===- NodeBuilder.cpp - generic creation of graph ops --------------------===//

#include "lib/Import/ONNX/NodeBuilder.h"

#include "mlir/IR/Matchers.h"

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace graphc::onnx_import {

using namespace mlir;

static std::string graphOpName(llvm::StringRef mnemonic) {
  return (graph::GraphDialect::getDialectNamespace() + "." + mnemonic).str();
}

bool isGraphOpRegistered(MLIRContext *context, llvm::StringRef mnemonic) {
  return RegisteredOperationName::lookup(graphOpName(mnemonic), context)
      .has_value();
}

std::optional<size_t> graphOpResultCount(MLIRContext *context,
                                         llvm::StringRef mnemonic) {
  std::optional<RegisteredOperationName> info =
      RegisteredOperationName::lookup(graphOpName(mnemonic), context);
  if (!info)
    return std::nullopt;
  if (info->hasTrait<OpTrait::ZeroResults>())
    return 0;
  if (info->hasTrait<OpTrait::OneResult>())
    return 1;
  if (info->hasTrait<OpTrait::NResults<2>::Impl>())
    return 2;
  if (info->hasTrait<OpTrait::NResults<3>::Impl>())
    return 3;
  if (info->hasTrait<OpTrait::NResults<4>::Impl>())
    return 4;
  return std::nullopt;
}

FailureOr<Operation *>
NodeBuilder::createOp(llvm::StringRef mnemonic, llvm::ArrayRef<Value> slots,
                      llvm::ArrayRef<NamedAttribute> attributes) {
  MLIRContext *context = getContext();
  std::string name = graphOpName(mnemonic);
  std::optional<RegisteredOperationName> info =
      RegisteredOperationName::lookup(name, context);
  if (!info)
    return emitError(loc) << "unsupported: the graph dialect has no '" << name
                          << "' op";

  NamedAttrList attrs(attributes);
  SmallVector<Value> operands;
  if (info->hasTrait<OpTrait::AttrSizedOperandSegments>()) {
    SmallVector<int32_t> segments;
    for (Value slot : slots) {
      segments.push_back(slot ? 1 : 0);
      if (slot)
        operands.push_back(slot);
    }
    attrs.set("operandSegmentSizes", DenseI32ArrayAttr::get(context, segments));
  } else {
    size_t used = slots.size();
    while (used > 0 && !slots[used - 1])
      --used;
    for (auto [index, slot] : llvm::enumerate(slots.take_front(used))) {
      if (!slot)
        return emitError(loc) << "unsupported: input " << index << " of '"
                              << name << "' cannot be absent";
      operands.push_back(slot);
    }
  }

  auto *inference = info->getInterface<InferTypeOpInterface>();
  if (!inference)
    return emitError(loc) << "'" << name << "' does not infer result types";
  // Generated adaptors read defaults from the dictionary itself.
  info->populateDefaultAttrs(attrs);
  DictionaryAttr dictionary = attrs.getDictionary(context);
  SmallVector<Type> resultTypes;
  if (failed(inference->inferReturnTypes(context, loc, operands, dictionary,
                                         OpaqueProperties(nullptr),
                                         RegionRange(), resultTypes)))
    return failure(); // The op's inference has said why, if it could.
  // Dims from model data (shapes, repeats, pads) must describe a tensor whose
  // sizes can be computed: later passes and folding multiply them freely.
  for (auto [index, type] : llvm::enumerate(resultTypes)) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (ranked && !graph::isRepresentableShape(ranked.getShape(),
                                               /*elementBytes=*/8))
      return emitError(loc) << "result " << index << " would have type "
                            << type << ", too large to represent";
  }

  OperationState state(loc, *info);
  state.addOperands(operands);
  state.addAttributes(dictionary.getValue());
  state.addTypes(resultTypes);
  return builder.create(state);
}

FailureOr<SmallVector<Value>>
NodeBuilder::create(llvm::StringRef mnemonic, llvm::ArrayRef<Value> slots,
                    llvm::ArrayRef<NamedAttribute> attributes) {
  FailureOr<Operation *> op = createOp(mnemonic, slots, attributes);
  if (failed(op))
    return failure();
  // Only folds to constants count: a fold that forwards an operand (an
  // identity) would change the imported structure for nothing.
  SmallVector<Value> folded;
  if (foldConstants && !isa<graph::DequantizeLinearOp>(*op) &&
      succeeded(builder.tryFold(*op, folded)) && !folded.empty() &&
      llvm::all_of(folded, [](Value value) {
        return matchPattern(value, m_Constant());
      })) {
    (*op)->erase();
    return folded;
  }
  return SmallVector<Value>((*op)->getResults());
}

FailureOr<Value>
NodeBuilder::createValue(llvm::StringRef mnemonic, llvm::ArrayRef<Value> slots,
                         llvm::ArrayRef<NamedAttribute> attributes) {
  FailureOr<SmallVector<Value>> results = create(mnemonic, slots, attributes);
  if (failed(results))
    return failure();
  if (results->size() != 1)
    return emitError(loc) << "'graph." << mnemonic << "' has "
                          << results->size() << " results, expected one";
  return results->front();
}

Value NodeBuilder::constant(ElementsAttr value) {
  return builder.create<graph::ConstantOp>(loc, value.getType(), value);
}

Value NodeBuilder::i64Constant(llvm::ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    builder.getI64Type());
  return constant(cast<ElementsAttr>(DenseElementsAttr::get(type, values)));
}

} // namespace graphc::onnx_import
