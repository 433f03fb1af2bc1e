//===- LibrarySdpa.cpp - attention a vendor library computes --------------===//

#include "passes/LibrarySdpa.h"

#include "dialects/Graph/GraphLayout.h"
#include "dialects/Graph/GraphOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace graphc {
namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// Where the attention operand `value` lies: in the fusion input its
/// layout prologue reads, or in the input it is.
std::optional<SdpaOperand> operandOf(Value value,
                                     const graph::LayoutPrologue &layout) {
  SdpaOperand operand;
  auto read = layout.reads.find(value);
  if (read != layout.reads.end()) {
    operand.source = read->second.source;
    operand.offset = read->second.offset;
    operand.strides.assign(read->second.strides.begin(),
                           read->second.strides.end());
  } else {
    operand.source = value;
    SmallVector<int64_t> strides = graph::rowMajorStrides(shapeOf(value));
    operand.strides.assign(strides.begin(), strides.end());
  }
  if (!isa<BlockArgument>(operand.source) || operand.offset < 0 ||
      llvm::any_of(operand.strides, [](int64_t s) { return s < 0; }))
    return std::nullopt;
  return operand;
}

bool isStatic(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape();
}

} // namespace

std::optional<LibrarySdpa> matchLibrarySdpa(ArrayRef<Operation *> ops,
                                            ValueRange results) {
  auto found = llvm::find_if(
      ops, [](Operation *op) { return isa<graph::AttentionOp>(op); });
  if (found == ops.end() || results.size() != 1)
    return std::nullopt;
  auto attention = cast<graph::AttentionOp>(*found);
  graph::LayoutPrologue layout = graph::layoutPrologue(attention);
  // The fusion is the attention, its layout prologue and at most its
  // layout epilogue, whose result it yields.
  Operation *root = attention;
  for (Operation *op : ops) {
    if (op == attention.getOperation() || layout.ops.contains(op))
      continue;
    if (root == attention.getOperation() &&
        graph::isLayoutEpilogueOf(op, attention)) {
      root = op;
      continue;
    }
    return std::nullopt;
  }
  if (results.front() != root->getResult(0))
    return std::nullopt;

  Value q = attention.getQ(), k = attention.getK(), v = attention.getV(),
        mask = attention.getMask(), y = attention.getY();
  for (Value value : {q, k, v, y})
    if (!isStatic(value) || shapeOf(value).size() != 4)
      return std::nullopt;
  Type element = cast<RankedTensorType>(y.getType()).getElementType();
  if (!element.isF16() && !element.isBF16())
    return std::nullopt;
  for (Value value : {q, k, v, mask})
    if (value &&
        cast<RankedTensorType>(value.getType()).getElementType() != element)
      return std::nullopt;
  // cuDNN's softmax leaves NaN where a row's keys are all masked out; the
  // NaN guard makes those rows 0. Without a mask no row loses every key
  // (causal masking keeps key 0), so the guard only differs on NaN inputs.
  if (attention.getNanToZero() && mask)
    return std::nullopt;

  LibrarySdpa lib;
  ArrayRef<int64_t> qs = shapeOf(q), ks = shapeOf(k), vs = shapeOf(v),
                    ys = shapeOf(y);
  lib.batch = qs[0];
  lib.heads = qs[1];
  lib.queries = qs[2];
  lib.headDim = qs[3];
  lib.kvHeads = ks[1];
  lib.keys = ks[2];
  lib.valueDim = vs[3];
  if (lib.batch < 1 || lib.heads < 1 || lib.queries < 1 || lib.keys < 1 ||
      lib.kvHeads < 1 || lib.heads % lib.kvHeads || ks[0] != lib.batch ||
      ks[3] != lib.headDim || vs[0] != lib.batch || vs[1] != lib.kvHeads ||
      vs[2] != lib.keys || ys[0] != lib.batch || ys[1] != lib.heads ||
      ys[2] != lib.queries || ys[3] != lib.valueDim)
    return std::nullopt;
  for (int64_t dim : {lib.headDim, lib.valueDim})
    if (dim < 8 || dim > kMaxSdpaHeadDim || dim % 8)
      return std::nullopt;
  lib.scale = attention.getScale().convertToDouble();
  lib.causal = attention.getIsCausal() != 0;

  std::optional<SdpaOperand> qo = operandOf(q, layout),
                             ko = operandOf(k, layout),
                             vo = operandOf(v, layout);
  if (!qo || !ko || !vo)
    return std::nullopt;
  lib.q = *qo;
  lib.k = *ko;
  lib.v = *vo;
  // O: row-major [B, H, Sq, Dv], or stored through the layout epilogue's
  // transpose (result dim i is O's dim perm[i]).
  SmallVector<int64_t> stored =
      graph::rowMajorStrides(shapeOf(root->getResult(0)));
  lib.o.strides.assign(4, 0);
  if (auto transpose = dyn_cast<graph::TransposeOp>(root)) {
    SmallVector<int64_t> perm = graph::transposePermutation(transpose);
    if (perm.size() != 4)
      return std::nullopt;
    for (auto [i, axis] : llvm::enumerate(perm))
      lib.o.strides[axis] = stored[i];
  } else {
    lib.o.strides.assign(stored.begin(), stored.end());
  }
  for (const SdpaOperand *operand : {&lib.q, &lib.k, &lib.v, &lib.o})
    if (operand->strides.size() != 4 || operand->strides[3] != 1)
      return std::nullopt;

  if (mask) {
    if (!isStatic(mask))
      return std::nullopt;
    ArrayRef<int64_t> ms = shapeOf(mask);
    if (ms.size() > 4 || ms.empty())
      return std::nullopt;
    std::optional<SdpaOperand> mo = operandOf(mask, layout);
    if (!mo)
      return std::nullopt;
    // Right-aligned over [B, H, Sq, Skv]; a dim of 1 broadcasts.
    int64_t full[4] = {lib.batch, lib.heads, lib.queries, lib.keys};
    size_t lead = 4 - ms.size();
    lib.bias.source = mo->source;
    lib.bias.offset = mo->offset;
    lib.bias.strides.assign(4, 0);
    lib.biasDims.assign(4, 1);
    for (size_t i = 0; i < ms.size(); ++i) {
      if (ms[i] != 1 && ms[i] != full[lead + i])
        return std::nullopt;
      lib.biasDims[lead + i] = ms[i];
      lib.bias.strides[lead + i] = ms[i] == 1 ? 0 : mo->strides[i];
    }
    // cuDNN adds a bias with the keys' dim: one that broadcasts over keys
    // stays a generated kernel.
    if (lib.biasDims[3] != lib.keys ||
        (lib.keys > 1 && lib.bias.strides[3] != 1))
      return std::nullopt;
  }
  return lib;
}

} // namespace graphc
