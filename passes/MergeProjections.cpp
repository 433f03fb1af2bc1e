//===- MergeProjections.cpp - one GEMM for the Q, K and V projections -----===//
//
// graph.attention reads Q, K and V as head splits of projections: a Reshape
// [.., N] -> [.., H, D] (a view) and a Transpose. When two or three of them
// are MatMuls of one input by constant weights, each with an optional Add of
// a constant bias, they become one MatMul by the weights side by side (and
// one Add of the biases side by side): one GEMM reading the input once
// instead of one per projection. Its result is reshaped to [.., H1+H2+.., D]
// (a view) and split along the heads, and the head transposes read the
// parts. The split and the transposes are layout prologues of the attention
// (graph::isLayoutPrologueOf): its kernel reads Q, K and V in place from the
// merged result, so no copy is added for the parts.
//
// An exporter's own merged projection (GPT-2's c_attn: one MatMul, Split
// along the last axis, a head-split Reshape per part) is brought to the
// same form by reshaping before the split instead of after it, and the
// unbind of a packed one (nn.MultiheadAttention's Gathers at indices 0, 1,
// 2) becomes a Split that the attention reads in place. A transpose of the
// leading dims of a projection's input moves past the projection, into the
// attention's layout prologue, so that the GEMM reads its input as it lies.
//
// The pass runs after attention recognition, before precision conversion
// and fusion; not under --no-fusion, where nothing would read the parts in
// place.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphLayout.h"
#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "passes/Passes.h"
#include "passes/Views.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/SetVector.h"

#include <cstring>

using namespace mlir;
using namespace graphc::graph;

namespace graphc {
#define GEN_PASS_DEF_MERGEPROJECTIONS
#include "passes/Passes.h.inc"

namespace {

/// Past this many elements a merged constant becomes a resource blob, as
/// the importer does with weights.
constexpr int64_t kDenseElementLimit = 64;

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// One attention operand read as a head split: transpose(reshape(part)),
/// where the reshape splits the last dim of `part` into [heads, depth].
struct HeadSplit {
  TransposeOp transpose;
  ReshapeOp reshape;
  int64_t heads = 0, depth = 0;
  /// The tensor split into heads.
  Value part;
};

/// A head split of attention operand `slot` used by the attention alone.
std::optional<HeadSplit> matchHeadSplit(AttentionOp attention, unsigned slot) {
  Value operand = attention->getOperand(slot);
  auto transpose = operand.getDefiningOp<TransposeOp>();
  // One use: the attention does not read this operand in two slots.
  if (!transpose || !operand.hasOneUse())
    return std::nullopt;
  auto reshape = transpose.getData().getDefiningOp<ReshapeOp>();
  if (!reshape || !reshape->hasOneUse() || !isView(reshape))
    return std::nullopt;
  ArrayRef<int64_t> from = shapeOf(reshape.getData());
  ArrayRef<int64_t> to = shapeOf(reshape.getResult());
  if (from.empty() || to.size() != from.size() + 1 ||
      from.drop_back() != to.drop_back(2) ||
      to[to.size() - 2] * to.back() != from.back())
    return std::nullopt;
  return HeadSplit{transpose, reshape, to[to.size() - 2], to.back(),
                   reshape.getData()};
}

/// A constant, or null.
ConstantOp constantOf(Value value) { return value.getDefiningOp<ConstantOp>(); }

/// A projection x * W (+ b) computing a head split's part.
struct Projection {
  HeadSplit split;
  MatMulOp matmul;
  ConstantOp weight;
  AddOp add;       // null without a bias
  ConstantOp bias; // null without a bias
  Value input() { return matmul.getA(); }
};

std::optional<Projection> matchProjection(const HeadSplit &split) {
  Projection p{split, {}, {}, {}, {}};
  Value part = split.part;
  if (!part.hasOneUse())
    return std::nullopt;
  Value product = part;
  if (auto add = part.getDefiningOp<AddOp>()) {
    // The bias is a constant [N] on either side.
    for (auto [mm, b] : {std::pair(add.getLhs(), add.getRhs()),
                         std::pair(add.getRhs(), add.getLhs())}) {
      ConstantOp bias = constantOf(b);
      if (bias && mm.getDefiningOp<MatMulOp>() && mm.hasOneUse() &&
          shapeOf(b).size() == 1 && shapeOf(b)[0] == shapeOf(part).back() &&
          shapeOf(mm) == shapeOf(part)) {
        p.add = add;
        p.bias = bias;
        product = mm;
        break;
      }
    }
    if (!p.add)
      return std::nullopt;
  }
  p.matmul = product.getDefiningOp<MatMulOp>();
  if (!p.matmul)
    return std::nullopt;
  p.weight = constantOf(p.matmul.getB());
  ArrayRef<int64_t> a = shapeOf(p.matmul.getA());
  if (!p.weight || shapeOf(p.weight).size() != 2 || a.size() < 2 ||
      shapeOf(p.weight)[0] != a.back() ||
      shapeOf(p.matmul.getResult()).drop_back() != a.drop_back())
    return std::nullopt;
  return p;
}

Type elementTypeOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

/// Builds the merged projections and head splits of the attention ops of
/// one function; constants built for one bucket function are reused by the
/// others (one weight blob for all buckets).
class Merger {
public:
  explicit Merger(MLIRContext *context) : context(context) {}
  void run(func::FuncOp func);

private:
  /// Merges `projections` (two or more, one input) in front of the first;
  /// fails, changing nothing, when a weight or bias cannot be read.
  LogicalResult merge(MutableArrayRef<Projection> projections);
  /// Makes a split along the last axis, each part head split for one
  /// attention, a split along the heads of the reshaped input.
  void splitAlongHeads(SplitOp split, ArrayRef<HeadSplit> parts);
  /// Reshapes `value` [.., N] to [.., N / depth, depth], then splits it
  /// along the heads into `heads`; the split's results.
  ValueRange reshapeAndSplit(OpBuilder &b, Location loc, Value value,
                             ArrayRef<int64_t> heads, int64_t depth);
  /// An attribute of `type` holding `bytes`, as a resource blob past
  /// kDenseElementLimit elements.
  ElementsAttr makeAttr(RankedTensorType type, ArrayRef<char> bytes);
  /// The constants in `attrs`, side by side along their last axis ([K, Ni]
  /// or [Ni]); a null entry stands for zeros of width `widths[i]`.
  FailureOr<ElementsAttr> concatenate(ArrayRef<ElementsAttr> attrs,
                                      ArrayRef<int64_t> widths,
                                      RankedTensorType type);
  Value i64Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> values);

  MLIRContext *context;
  /// Merged weights and biases by the constants they were made of.
  DenseMap<Attribute, ElementsAttr> merged;
};

ElementsAttr Merger::makeAttr(RankedTensorType type, ArrayRef<char> bytes) {
  if (type.getNumElements() <= kDenseElementLimit)
    return constantFromBytes(type, bytes);
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignof(uint64_t));
  return DenseResourceElementsAttr::get(type, "merged", std::move(blob));
}

FailureOr<ElementsAttr> Merger::concatenate(ArrayRef<ElementsAttr> attrs,
                                            ArrayRef<int64_t> widths,
                                            RankedTensorType type) {
  SmallVector<Attribute> key(attrs.begin(), attrs.end());
  for (Attribute &entry : key)
    if (!entry)
      entry = UnitAttr::get(context);
  key.push_back(TypeAttr::get(type));
  Attribute keyAttr = ArrayAttr::get(context, key);
  if (auto found = merged.find(keyAttr); found != merged.end())
    return found->second;

  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  if (bits % 8 != 0)
    return failure();
  size_t element = bits / 8;
  int64_t rows = type.getRank() == 2 ? type.getDimSize(0) : 1;
  int64_t total = type.getShape().back();
  std::vector<char> out(static_cast<size_t>(rows * total) * element, 0);
  int64_t column = 0;
  for (auto [attr, width] : llvm::zip_equal(attrs, widths)) {
    if (attr) {
      FailureOr<std::vector<char>> bytes = constantBytes(attr);
      if (failed(bytes) ||
          bytes->size() != static_cast<size_t>(rows * width) * element)
        return failure();
      for (int64_t r = 0; r < rows; ++r)
        std::memcpy(out.data() + (r * total + column) * element,
                    bytes->data() + r * width * element, width * element);
    }
    column += width;
  }
  ElementsAttr attr = makeAttr(type, out);
  merged[keyAttr] = attr;
  return attr;
}

Value Merger::i64Constant(OpBuilder &b, Location loc,
                          ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getI64Type());
  return b.create<ConstantOp>(loc, type,
                              DenseIntElementsAttr::get(type, values));
}

ValueRange Merger::reshapeAndSplit(OpBuilder &b, Location loc, Value value,
                                   ArrayRef<int64_t> heads, int64_t depth) {
  ArrayRef<int64_t> shape = shapeOf(value);
  SmallVector<int64_t> headShape(shape.drop_back());
  headShape.push_back(shape.back() / depth);
  headShape.push_back(depth);
  Type element = elementTypeOf(value);
  Value reshaped = b.create<ReshapeOp>(
      loc, RankedTensorType::get(headShape, element), value,
      i64Constant(b, loc, headShape));
  SmallVector<Type> parts;
  for (int64_t count : heads) {
    headShape[headShape.size() - 2] = count;
    parts.push_back(RankedTensorType::get(headShape, element));
  }
  auto split = b.create<SplitOp>(
      loc, TypeRange(parts),
      ValueRange{reshaped, i64Constant(b, loc, heads)},
      ArrayRef<NamedAttribute>{});
  split.setAxisAttr(b.getI64IntegerAttr(headShape.size() - 2));
  split.setNumOutputsAttr(b.getI64IntegerAttr(heads.size()));
  return split.getResults();
}

LogicalResult Merger::merge(MutableArrayRef<Projection> projections) {
  Operation *first = projections.front().matmul;
  for (Projection &p : projections)
    if (p.matmul->isBeforeInBlock(first))
      first = p.matmul;
  int64_t depth = projections.front().split.depth;
  Type element = elementTypeOf(projections.front().weight);
  int64_t inner = shapeOf(projections.front().weight)[0];

  SmallVector<ElementsAttr> weights, biases;
  SmallVector<int64_t> widths, heads;
  SmallVector<Location> matmulLocs, addLocs, splitLocs;
  bool anyBias = false;
  for (Projection &p : projections) {
    weights.push_back(p.weight.getValue());
    biases.push_back(p.bias ? p.bias.getValue() : ElementsAttr());
    anyBias |= static_cast<bool>(p.bias);
    widths.push_back(shapeOf(p.weight)[1]);
    heads.push_back(p.split.heads);
    matmulLocs.push_back(p.matmul.getLoc());
    if (p.add)
      addLocs.push_back(p.add.getLoc());
    splitLocs.push_back(p.split.reshape.getLoc());
  }
  int64_t total = 0;
  for (int64_t width : widths)
    total += width;
  auto weightType = RankedTensorType::get({inner, total}, element);
  FailureOr<ElementsAttr> weight = concatenate(weights, widths, weightType);
  if (failed(weight))
    return failure();
  FailureOr<ElementsAttr> bias;
  auto biasType = RankedTensorType::get({total}, element);
  if (anyBias) {
    bias = concatenate(biases, widths, biasType);
    if (failed(bias))
      return failure();
  }

  OpBuilder b(first);
  Location matmulLoc = FusedLoc::get(context, matmulLocs);
  Value input = projections.front().input();
  SmallVector<int64_t> resultShape(shapeOf(input).drop_back());
  resultShape.push_back(total);
  auto resultType = RankedTensorType::get(resultShape, element);
  Value result = b.create<MatMulOp>(
      matmulLoc, resultType, input,
      b.create<ConstantOp>(matmulLoc, weightType, *weight));
  if (anyBias) {
    Location addLoc = FusedLoc::get(context, addLocs);
    result = b.create<AddOp>(addLoc, resultType, result,
                             b.create<ConstantOp>(addLoc, biasType, *bias));
  }
  ValueRange parts = reshapeAndSplit(
      b, FusedLoc::get(context, splitLocs), result, heads, depth);

  // Each transpose reads its part of the split; the per-projection ops and
  // the constants only they used go.
  for (auto [p, part] : llvm::zip_equal(projections, parts)) {
    p.split.transpose->setOperand(0, part);
    SmallVector<Operation *> dead = {p.split.reshape, p.add, p.matmul};
    SmallVector<Operation *> constants = {p.split.reshape.getShape().getDefiningOp(),
                                          p.bias, p.weight};
    for (Operation *op : dead)
      if (op)
        op->erase();
    for (Operation *op : constants)
      if (op && op->use_empty())
        op->erase();
  }
  return success();
}

void Merger::splitAlongHeads(SplitOp split, ArrayRef<HeadSplit> parts) {
  SmallVector<int64_t> heads;
  SmallVector<Location> locs = {split.getLoc()};
  for (HeadSplit part : parts) {
    heads.push_back(part.heads);
    locs.push_back(part.reshape.getLoc());
  }
  OpBuilder b(split);
  ValueRange newParts =
      reshapeAndSplit(b, FusedLoc::get(context, locs), split.getInput(),
                      heads, parts.front().depth);
  for (auto [constPart, newPart] : llvm::zip_equal(parts, newParts)) {
    HeadSplit part = constPart;
    part.transpose->setOperand(0, newPart);
    Operation *shape = part.reshape.getShape().getDefiningOp();
    part.reshape->erase();
    if (shape && shape->use_empty())
      shape->erase();
  }
  Operation *sizes = split.getSplit() ? split.getSplit().getDefiningOp()
                                      : nullptr;
  split->erase();
  if (sizes && sizes->use_empty())
    sizes->erase();
}

/// Turns the unbind of a packed projection into a split: when every use of
/// a tensor is a Gather of a constant scalar index along one axis, each
/// index 0..n-1 once (torch's nn.MultiheadAttention unbinds its packed
/// Q/K/V so), the Gathers become the parts of one Split, each viewed
/// without the axis. The split moves the same bytes in one kernel, and an
/// attention reads its parts in place (graph::layoutPrologue).
void unbindToSplit(func::FuncOp func) {
  SmallVector<Value> sources;
  func.walk([&](GatherOp gather) {
    if (!llvm::is_contained(sources, gather.getData()))
      sources.push_back(gather.getData());
  });
  for (Value source : sources) {
    auto type = dyn_cast<RankedTensorType>(source.getType());
    if (!type || !type.hasStaticShape() || type.getRank() == 0)
      continue;
    int64_t rank = type.getRank();
    std::optional<int64_t> axis;
    SmallVector<GatherOp> byIndex;
    bool unbinds = true;
    for (Operation *user : source.getUsers()) {
      auto gather = dyn_cast<GatherOp>(user);
      std::optional<SmallVector<int64_t>> index =
          gather ? getConstantInts(gather.getIndices())
                 : std::optional<SmallVector<int64_t>>();
      int64_t userAxis = gather ? gather.getAxis() : 0;
      if (userAxis < 0)
        userAxis += rank;
      if (!gather || gather.getData() != source || !index ||
          index->size() != 1 ||
          cast<ShapedType>(gather.getIndices().getType()).getRank() != 0 ||
          userAxis < 0 || userAxis >= rank || (axis && *axis != userAxis)) {
        unbinds = false;
        break;
      }
      axis = userAxis;
      int64_t n = type.getDimSize(userAxis);
      int64_t i = (*index)[0] < 0 ? (*index)[0] + n : (*index)[0];
      if (byIndex.empty())
        byIndex.resize(n);
      if (i < 0 || i >= n || byIndex[i]) {
        unbinds = false;
        break;
      }
      byIndex[i] = gather;
    }
    if (!unbinds || !axis || byIndex.size() < 2 ||
        llvm::any_of(byIndex, [](GatherOp g) { return !g; }))
      continue;
    SmallVector<Location> locs;
    for (GatherOp gather : byIndex)
      locs.push_back(gather.getLoc());
    Operation *first = byIndex.front();
    for (GatherOp gather : byIndex)
      if (gather->isBeforeInBlock(first))
        first = gather;
    OpBuilder b(first);
    SmallVector<int64_t> partShape(type.getShape());
    partShape[*axis] = 1;
    auto partType = RankedTensorType::get(partShape, type.getElementType());
    auto split = b.create<SplitOp>(
        FusedLoc::get(func.getContext(), locs),
        SmallVector<Type>(byIndex.size(), partType), ValueRange{source},
        ArrayRef<NamedAttribute>{});
    split.setAxisAttr(b.getI64IntegerAttr(*axis));
    split.setNumOutputsAttr(b.getI64IntegerAttr(byIndex.size()));
    b.setInsertionPointAfter(split);
    for (auto [i, gather] : llvm::enumerate(byIndex)) {
      auto resultType = cast<RankedTensorType>(gather.getType());
      auto shapeType = RankedTensorType::get({resultType.getRank()},
                                             b.getI64Type());
      Value shape = b.create<ConstantOp>(
          gather.getLoc(), shapeType,
          DenseIntElementsAttr::get(shapeType, resultType.getShape()));
      Value part = b.create<ReshapeOp>(gather.getLoc(), resultType,
                                       split.getResult(i), shape);
      gather.getResult().replaceAllUsesWith(part);
    }
    // Erased last: the insertion point above sits before the first one.
    for (GatherOp gather : byIndex) {
      Operation *index = gather.getIndices().getDefiningOp();
      gather->erase();
      if (index && index->use_empty())
        index->erase();
    }
  }
}

/// Moves a transpose of the leading dims of a projection's input past the
/// projection when the attention reads the projection's result through its
/// layout prologue: MatMul(Transpose(x), W) (+ b) becomes
/// Transpose(MatMul(x, W) (+ b)), the GEMM reads x as it lies (a library
/// GEMM takes no such permutation) and the transpose joins the prologue,
/// where it costs nothing (nn.MultiheadAttention's batch_first inputs are
/// made sequence-first so).
void sinkInputTransposes(AttentionOp attention) {
  graph::LayoutPrologue prologue = graph::layoutPrologue(attention);
  SmallVector<Value> roots;
  for (Operation *op : prologue.ops)
    if (!prologue.ops.contains(op->getOperand(0).getDefiningOp()) &&
        !llvm::is_contained(roots, op->getOperand(0)))
      roots.push_back(op->getOperand(0));
  for (Value root : roots) {
    if (!root.hasOneUse())
      continue;
    AddOp add = root.getDefiningOp<AddOp>();
    ConstantOp bias;
    Value product = root;
    if (add) {
      // The bias [N] is a constant on either side.
      bool rhsBias = constantOf(add.getRhs()) != nullptr;
      bias = constantOf(rhsBias ? add.getRhs() : add.getLhs());
      product = rhsBias ? add.getLhs() : add.getRhs();
      if (!bias || shapeOf(bias).size() != 1 || !product.hasOneUse() ||
          shapeOf(product) != shapeOf(root))
        continue;
    }
    auto matmul = product.getDefiningOp<MatMulOp>();
    auto transpose =
        matmul ? matmul.getA().getDefiningOp<TransposeOp>() : TransposeOp();
    if (!transpose || !transpose->hasOneUse() ||
        !constantOf(matmul.getB()) || shapeOf(matmul.getB()).size() != 2)
      continue;
    SmallVector<int64_t> perm = transposePermutation(transpose);
    int64_t rank = perm.size();
    if (rank < 2 || perm.back() != rank - 1 ||
        shapeOf(matmul.getResult()).size() != static_cast<size_t>(rank))
      continue;
    // The product of x as it lies: x's dims with the last one of the
    // result.
    Value x = transpose.getData();
    SmallVector<int64_t> shape(shapeOf(x));
    shape.back() = shapeOf(matmul.getResult()).back();
    auto type = RankedTensorType::get(shape, elementTypeOf(root));
    OpBuilder b(matmul);
    Value result =
        b.create<MatMulOp>(matmul.getLoc(), type, x, matmul.getB());
    if (add) {
      b.setInsertionPoint(add);
      result = b.create<AddOp>(add.getLoc(), type, result, bias);
    }
    auto moved = b.create<TransposeOp>(transpose.getLoc(), root.getType(),
                                       result);
    moved.setPermAttr(b.getDenseI64ArrayAttr(perm));
    root.replaceAllUsesWith(moved.getResult());
    if (add)
      add->erase();
    matmul->erase();
    transpose->erase();
  }
}

void Merger::run(func::FuncOp func) {
  unbindToSplit(func);
  SmallVector<AttentionOp> attentions(func.getOps<AttentionOp>());
  for (AttentionOp attention : attentions)
    sinkInputTransposes(attention);
  for (AttentionOp attention : attentions) {
    SmallVector<HeadSplit> splits;
    for (unsigned slot = 0; slot < 3; ++slot)
      if (std::optional<HeadSplit> split = matchHeadSplit(attention, slot))
        splits.push_back(*split);

    // An exporter's split along the last axis whose every part is a head
    // split of this attention, all of one head size (GPT-2's Q/K/V, or a
    // packed K/V beside a Q of its own).
    llvm::SetVector<Operation *> exporterSplits;
    for (const HeadSplit &split : splits)
      if (auto op = split.part.getDefiningOp<SplitOp>())
        exporterSplits.insert(op);
    for (Operation *op : exporterSplits) {
      auto split = cast<SplitOp>(op);
      int64_t rank = shapeOf(split.getInput()).size();
      if (split.getAxis() != rank - 1 && split.getAxis() != -1)
        continue;
      SmallVector<HeadSplit> parts;
      for (Value result : split.getResults())
        for (const HeadSplit &candidate : splits)
          if (candidate.part == result && result.hasOneUse())
            parts.push_back(candidate);
      if (parts.size() != split.getNumResults() ||
          llvm::any_of(parts, [&](const HeadSplit &part) {
            return part.depth != parts.front().depth;
          }))
        continue;
      llvm::erase_if(splits, [&](const HeadSplit &candidate) {
        return candidate.part.getDefiningOp() == op;
      });
      splitAlongHeads(split, parts);
    }

    // Projections of one input by weights of one type and head size.
    SmallVector<Projection> projections;
    for (const HeadSplit &split : splits)
      if (std::optional<Projection> p = matchProjection(split))
        projections.push_back(*p);
    while (projections.size() >= 2) {
      Projection &lead = projections.front();
      SmallVector<Projection> group;
      SmallVector<Projection> rest;
      for (Projection &p : projections) {
        bool same = p.input() == lead.input() &&
                    elementTypeOf(p.weight) == elementTypeOf(lead.weight) &&
                    (!p.bias ||
                     elementTypeOf(p.bias) == elementTypeOf(lead.weight)) &&
                    p.split.depth == lead.split.depth;
        (same ? group : rest).push_back(p);
      }
      // A weight whose bytes cannot be read stays apart (merge changes
      // nothing then).
      if (group.size() >= 2)
        (void)merge(group);
      projections = std::move(rest);
    }
  }
}

} // namespace

void mergeProjections(ModuleOp module) {
  Merger merger(module.getContext());
  for (func::FuncOp func : module.getOps<func::FuncOp>())
    merger.run(func);
}

namespace {
struct MergeProjectionsPass
    : impl::MergeProjectionsBase<MergeProjectionsPass> {
  void runOnOperation() override { mergeProjections(getOperation()); }
};
} // namespace

} // namespace graphc
