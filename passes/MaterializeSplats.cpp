//===- MaterializeSplats.cpp - splat constants as literals, not weights ---===//
//
// A constant whose elements are all equal costs one element, however large
// it is: `Expand(scalar, [2^20])` folds to 4 MiB that would otherwise be
// stored in the artifact. Each use of such a constant (past the size that
// kernels copy in anyway) reads instead
//  - a one-element constant of the same rank, where the user is pointwise
//    and broadcasting it gives the same result: a literal in the fused
//    expression;
//  - else a graph.expand of that one element to the constant's shape,
//    which fills the tensor at run time.
// Runs after the last folding (right before fusion), which would fold the
// expand back.
//
//===----------------------------------------------------------------------===//

#include "dialects/Exec/ExecOps.h"
#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "lib/Artifact/OnnxDtype.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_MATERIALIZESPLATS
#include "passes/Passes.h.inc"

namespace {

/// `value`'s element as a constant of `oneType` when every element is
/// equal, read in place (weights are not copied to find out).
std::optional<DenseElementsAttr> oneElementOf(ElementsAttr value,
                                              RankedTensorType oneType) {
  auto type = cast<ShapedType>(value.getType());
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (type.getElementType().isInteger(1)) {
    if (dense && dense.isSplat())
      return DenseElementsAttr::get(oneType, dense.getSplatValue<bool>());
    return std::nullopt;
  }
  size_t size = rt::dtypeSize(graph::toHostDtype(type.getElementType()));
  if (size == 0)
    return std::nullopt;
  ArrayRef<char> raw;
  if (dense) {
    raw = dense.getRawData();
    if (dense.isSplat())
      return DenseElementsAttr::getFromRawBuffer(oneType, raw.take_front(size));
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    raw = blob->getData();
  } else {
    return std::nullopt;
  }
  if (raw.size() != size * static_cast<size_t>(type.getNumElements()))
    return std::nullopt;
  for (size_t at = size; at < raw.size(); at += size)
    if (std::memcmp(raw.data() + at, raw.data(), size) != 0)
      return std::nullopt;
  return DenseElementsAttr::getFromRawBuffer(oneType, raw.take_front(size));
}

/// Whether `user`, a pointwise op, keeps its result shape when operand
/// `index` (of shape `shape`) is replaced by a shape of ones.
bool broadcastsWithoutOperand(Operation *user, unsigned index,
                              ArrayRef<int64_t> shape) {
  if (!user->hasTrait<graph::OpTrait::Pointwise>() ||
      user->getNumResults() != 1)
    return false;
  SmallVector<int64_t> broadcast(shape.size(), 1);
  for (OpOperand &operand : user->getOpOperands()) {
    if (operand.getOperandNumber() == index)
      continue;
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type)
      return false;
    FailureOr<SmallVector<int64_t>> joined =
        graph::broadcastShapes(broadcast, type.getShape());
    if (failed(joined))
      return false;
    broadcast = std::move(*joined);
  }
  auto result = dyn_cast<RankedTensorType>(user->getResult(0).getType());
  return result && result.getShape() == ArrayRef<int64_t>(broadcast);
}

void materialize(graph::ConstantOp constant) {
  auto type = dyn_cast<RankedTensorType>(constant.getType());
  if (!type || !type.hasStaticShape() ||
      type.getNumElements() <= kMaxInlinedConstantElements)
    return;
  auto oneType = RankedTensorType::get(SmallVector<int64_t>(type.getRank(), 1),
                                       type.getElementType());
  std::optional<DenseElementsAttr> element =
      oneElementOf(constant.getValue(), oneType);
  if (!element)
    return;
  OpBuilder builder(constant);
  builder.setInsertionPointAfter(constant);
  // The one element and the shape hold no ONNX tensor; the fill holds the
  // constant's.
  Location loc = constant.getLoc();
  Value one = builder.create<graph::ConstantOp>(graph::withoutTensorNames(loc),
                                                oneType, *element);
  Value filled;
  for (OpOperand &use : llvm::make_early_inc_range(constant->getUses())) {
    if (broadcastsWithoutOperand(use.getOwner(), use.getOperandNumber(),
                                 type.getShape())) {
      use.set(one);
      continue;
    }
    if (!filled) {
      auto shapeType =
          RankedTensorType::get({type.getRank()}, builder.getI64Type());
      Value shape = builder.create<graph::ConstantOp>(
          graph::withoutTensorNames(loc), shapeType,
          DenseIntElementsAttr::get(shapeType, type.getShape()));
      filled = builder.create<graph::ExpandOp>(loc, type, one, shape);
    }
    use.set(filled);
  }
  if (one.use_empty())
    one.getDefiningOp()->erase();
  constant.erase();
}

} // namespace

void materializeSplats(ModuleOp module) {
  SmallVector<graph::ConstantOp> constants;
  module.walk([&](graph::ConstantOp constant) {
    if (!constant->getParentOfType<kernel::FusionOp>())
      constants.push_back(constant);
  });
  for (graph::ConstantOp constant : constants)
    materialize(constant);
}

namespace {
struct MaterializeSplatsPass
    : impl::MaterializeSplatsBase<MaterializeSplatsPass> {
  using MaterializeSplatsBase::MaterializeSplatsBase;
  void runOnOperation() override { materializeSplats(getOperation()); }
};
} // namespace

} // namespace graphc
