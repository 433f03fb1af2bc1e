//===- SplitWideConcats.cpp - concats of many inputs as a tree ------------===//
//
// A CUDA kernel takes one pointer per input, within CUDA's limit on kernel
// parameters, and the concat template tests each input's range per element. A
// concat of thousands of inputs (cheap to write in a model) becomes a tree
// of concats of at most `maxInputs` inputs each: the same values, every
// element copied once per level.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_SPLITWIDECONCATS
#include "passes/Passes.h.inc"

namespace {

/// Replaces `concat`'s inputs by concats of consecutive groups of at most
/// `maxInputs`, level by level, until it has at most `maxInputs` inputs.
/// Requires static sizes along the axis.
void splitConcat(graph::ConcatOp concat, int64_t maxInputs) {
  auto resultType = cast<RankedTensorType>(concat.getType());
  int64_t rank = resultType.getRank();
  int64_t axis =
      concat.getAxis() < 0 ? concat.getAxis() + rank : concat.getAxis();
  if (axis < 0 || axis >= rank)
    return;
  SmallVector<Value> inputs(concat.getInputs());
  for (Value input : inputs) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type || type.getRank() != rank || type.isDynamicDim(axis))
      return;
  }
  OpBuilder builder(concat);
  while (static_cast<int64_t>(inputs.size()) > maxInputs) {
    SmallVector<Value> level;
    for (size_t first = 0; first < inputs.size(); first += maxInputs) {
      ArrayRef<Value> group = ArrayRef(inputs).slice(
          first, std::min<size_t>(maxInputs, inputs.size() - first));
      if (group.size() == 1) {
        level.push_back(group.front());
        continue;
      }
      SmallVector<int64_t> shape(resultType.getShape());
      shape[axis] = 0;
      for (Value input : group)
        shape[axis] += cast<RankedTensorType>(input.getType()).getDimSize(axis);
      auto type = RankedTensorType::get(shape, resultType.getElementType());
      // A partial concat holds a part of the concat's output only.
      level.push_back(builder.create<graph::ConcatOp>(
          graph::withoutTensorNames(concat.getLoc()), type, group,
          concat.getAxisAttr()));
    }
    inputs = std::move(level);
  }
  concat.getInputsMutable().assign(inputs);
}

} // namespace

void splitWideConcats(ModuleOp module, int64_t maxInputs) {
  if (maxInputs < 2)
    return;
  SmallVector<graph::ConcatOp> wide;
  module.walk([&](graph::ConcatOp concat) {
    if (static_cast<int64_t>(concat.getInputs().size()) > maxInputs)
      wide.push_back(concat);
  });
  for (graph::ConcatOp concat : wide)
    splitConcat(concat, maxInputs);
}

namespace {
struct SplitWideConcatsPass : impl::SplitWideConcatsBase<SplitWideConcatsPass> {
  using SplitWideConcatsBase::SplitWideConcatsBase;
  void runOnOperation() override {
    splitWideConcats(getOperation(), maxInputs);
  }
};
} // namespace

} // namespace graphc
