//===- MergeProjections.cpp - one GEMM for the Q, K and V projections -----===//
//
// graph.attention reads Q, K and V through its layout prologue
// (graph::layoutPrologue): head splits of projections, read in place. When
// two or three of them are MatMuls of one input by constant weights, each
// with an optional Add of a constant bias, they become one MatMul by the
// weights side by side (and one Add of the biases side by side): one GEMM
// reading the input once instead of one per projection. A Split along the
// last axis gives each head split its part, and the merge stands only when
// the attention reads every part in place through it, so no copy is added.
// Any head split qualifies: a Reshape [.., N] -> [.., H, D] and a Transpose,
// or a Reshape alone where unit dims (one query, one head) made the
// transpose a view; heads of any count and depth (grouped K/V heads).
//
// The unbind of a packed projection (nn.MultiheadAttention's Gathers at
// indices 0, 1, 2) becomes a Split that the attention reads in place. A
// transpose of the leading dims of a projection's input moves past the
// projection, into the attention's layout prologue, so that the GEMM reads
// its input as it lies. An exporter's own merged projection (GPT-2's
// c_attn, split along the last axis) needs nothing: the attention reads
// its parts in place as it is.
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

/// A constant, or null.
ConstantOp constantOf(Value value) { return value.getDefiningOp<ConstantOp>(); }

/// A projection x * W (+ b): a MatMul by a constant 2-d weight, with an
/// optional Add of a constant [N] bias on either side.
struct Projection {
  /// What the attention reads (through its layout prologue).
  Value result;
  MatMulOp matmul;
  ConstantOp weight;
  AddOp add;       // null without a bias
  ConstantOp bias; // null without a bias
  Value input() { return matmul.getA(); }
};

/// The projection computing `result`, which nothing else reads.
std::optional<Projection> matchProjection(Value result) {
  Projection p{result, {}, {}, {}, {}};
  if (!result.hasOneUse())
    return std::nullopt;
  Value product = result;
  if (auto add = result.getDefiningOp<AddOp>()) {
    for (auto [mm, b] : {std::pair(add.getLhs(), add.getRhs()),
                         std::pair(add.getRhs(), add.getLhs())}) {
      ConstantOp bias = constantOf(b);
      if (bias && mm.getDefiningOp<MatMulOp>() && mm.hasOneUse() &&
          shapeOf(b).size() == 1 && shapeOf(b)[0] == shapeOf(result).back() &&
          shapeOf(mm) == shapeOf(result)) {
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

/// The projections whose results `attention` reads as Q, K or V in place:
/// the tensor its layout prologue reads each from, when a projection
/// computes it and nothing but that prologue (or the attention) reads it.
/// Any head split qualifies: a Reshape and a Transpose, or a Reshape alone
/// where unit dims (one query, one head) made the transpose a view.
SmallVector<Projection> projectionsReadBy(AttentionOp attention) {
  LayoutPrologue prologue = layoutPrologue(attention);
  SmallVector<Projection> projections;
  for (unsigned slot = 0; slot < 3; ++slot) {
    auto read = prologue.reads.find(attention->getOperand(slot));
    if (read == prologue.reads.end())
      continue;
    // A source read for several operands (an exporter's packed projection,
    // already one GEMM) is no projection of one of them.
    Value source = read->second.source;
    if (!source.hasOneUse() ||
        llvm::any_of(projections,
                     [&](const Projection &p) { return p.result == source; }))
      continue;
    Operation *user = *source.getUsers().begin();
    if (user != attention.getOperation() && !prologue.ops.contains(user))
      continue;
    if (std::optional<Projection> p = matchProjection(source))
      projections.push_back(*p);
  }
  return projections;
}

Type elementTypeOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

/// Builds the merged projections of the attention ops of one function; constants built for one bucket function are reused by the
/// others (one weight blob for all buckets).
class Merger {
public:
  explicit Merger(MLIRContext *context) : context(context) {}
  void run(func::FuncOp func);

private:
  /// Merges `projections` (two or more, one input, read by `attention`)
  /// in front of the first: one MatMul by the weights side by side, one Add
  /// of the biases, and a Split along the last axis whose parts replace the
  /// projections' results. Fails, changing nothing, when a weight or bias
  /// cannot be read or the attention would not read the parts in place.
  LogicalResult merge(AttentionOp attention,
                      MutableArrayRef<Projection> projections);
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

LogicalResult Merger::merge(AttentionOp attention,
                            MutableArrayRef<Projection> projections) {
  Operation *first = projections.front().matmul;
  for (Projection &p : projections)
    if (p.matmul->isBeforeInBlock(first))
      first = p.matmul;
  Type element = elementTypeOf(projections.front().weight);
  int64_t inner = shapeOf(projections.front().weight)[0];

  SmallVector<ElementsAttr> weights, biases;
  SmallVector<int64_t> widths;
  SmallVector<Location> matmulLocs, addLocs;
  bool anyBias = false;
  for (Projection &p : projections) {
    weights.push_back(p.weight.getValue());
    biases.push_back(p.bias ? p.bias.getValue() : ElementsAttr());
    anyBias |= static_cast<bool>(p.bias);
    widths.push_back(shapeOf(p.weight)[1]);
    matmulLocs.push_back(p.matmul.getLoc());
    if (p.add)
      addLocs.push_back(p.add.getLoc());
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
  // The merged product holds no ONNX tensor; its split parts hold the
  // projections'.
  Location matmulLoc = withoutTensorNames(FusedLoc::get(context, matmulLocs));
  Value input = projections.front().input();
  SmallVector<int64_t> resultShape(shapeOf(input).drop_back());
  resultShape.push_back(total);
  auto resultType = RankedTensorType::get(resultShape, element);
  SmallVector<Operation *> created;
  auto weightConstant = b.create<ConstantOp>(matmulLoc, weightType, *weight);
  auto matmul =
      b.create<MatMulOp>(matmulLoc, resultType, input, weightConstant);
  created = {weightConstant, matmul};
  Value result = matmul;
  if (anyBias) {
    Location addLoc = withoutTensorNames(FusedLoc::get(context, addLocs));
    auto biasConstant = b.create<ConstantOp>(addLoc, biasType, *bias);
    result = b.create<AddOp>(addLoc, resultType, result, biasConstant);
    created.append({biasConstant, result.getDefiningOp()});
  }
  SmallVector<Type> partTypes;
  for (Projection &p : projections)
    partTypes.push_back(p.result.getType());
  Value sizes = i64Constant(b, matmulLoc, widths);
  SmallVector<Value> projected;
  for (Projection &p : projections)
    projected.push_back(p.result);
  auto split = b.create<SplitOp>(
      withTensorsOf(matmulLoc, projected), TypeRange(partTypes),
      ValueRange{result, sizes}, ArrayRef<NamedAttribute>{});
  split.setAxisAttr(b.getI64IntegerAttr(resultShape.size() - 1));
  split.setNumOutputsAttr(b.getI64IntegerAttr(projections.size()));
  created.append({sizes.getDefiningOp(), split});
  for (auto [p, part] : llvm::zip_equal(projections, split.getResults()))
    p.result.replaceAllUsesWith(part);

  // The parts must stay in place: the attention reads each through its
  // layout prologue, split included, or a copy would undo the gain.
  if (!isLayoutPrologueOf(split, attention)) {
    for (auto [p, part] : llvm::zip_equal(projections, split.getResults()))
      part.replaceAllUsesWith(p.result);
    for (Operation *op : llvm::reverse(created))
      op->erase();
    return failure();
  }
  // The per-projection ops and the constants only they used go.
  for (Projection &p : projections) {
    for (Operation *op : {p.add.getOperation(), p.matmul.getOperation()})
      if (op)
        op->erase();
    for (Operation *op : {p.bias.getOperation(), p.weight.getOperation()})
      if (op && op->use_empty())
        op->erase();
  }
  return success();
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
  // A source may itself be a Gather of an earlier source (an unbind of an
  // unbind: torch's adaptive pooling selects rows, then columns of them),
  // which that source's rewrite replaces: the list follows the
  // replacement, so that no entry names an erased op.
  for (size_t s = 0; s < sources.size(); ++s) {
    Value source = sources[s];
    auto type = dyn_cast<RankedTensorType>(source.getType());
    if (!type || !type.hasStaticShape() || type.getRank() == 0)
      continue;
    int64_t rank = type.getRank();
    std::optional<int64_t> axis;
    SmallVector<GatherOp> byIndex;
    auto users = source.getUsers();
    int64_t userCount = std::distance(users.begin(), users.end());
    bool unbinds = true;
    for (Operation *user : users) {
      // Each part is one slice along the axis at a constant scalar index,
      // viewed without the axis, in the function's block.
      auto gather = dyn_cast<GatherOp>(user);
      if (!gather || gather.getData() != source ||
          gather->getBlock() != &func.getBody().front()) {
        unbinds = false;
        break;
      }
      auto indexType =
          dyn_cast<RankedTensorType>(gather.getIndices().getType());
      auto resultType = dyn_cast<RankedTensorType>(gather.getType());
      std::optional<SmallVector<int64_t>> index =
          getConstantInts(gather.getIndices());
      int64_t userAxis = gather.getAxis();
      if (userAxis < 0)
        userAxis += rank;
      if (!index || index->size() != 1 || !indexType ||
          indexType.getRank() != 0 || userAxis < 0 || userAxis >= rank ||
          (axis && *axis != userAxis) || !resultType ||
          !resultType.hasStaticShape() ||
          resultType.getElementType() != type.getElementType() ||
          resultType.getNumElements() * type.getDimSize(userAxis) !=
              type.getNumElements()) {
        unbinds = false;
        break;
      }
      axis = userAxis;
      // One Gather per index, each once.
      int64_t n = type.getDimSize(userAxis);
      int64_t i = (*index)[0] < 0 ? (*index)[0] + n : (*index)[0];
      if (n != userCount) {
        unbinds = false;
        break;
      }
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
    // The parts keep the unbound axis: the reshapes below hold the
    // Gathers' tensors.
    auto split = b.create<SplitOp>(
        withoutTensorNames(FusedLoc::get(func.getContext(), locs)),
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
          withoutTensorNames(gather.getLoc()), shapeType,
          DenseIntElementsAttr::get(shapeType, resultType.getShape()));
      Value part = b.create<ReshapeOp>(gather.getLoc(), resultType,
                                       split.getResult(i), shape);
      gather.getResult().replaceAllUsesWith(part);
      std::replace(sources.begin() + s + 1, sources.end(),
                   Value(gather.getResult()), part);
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
    // The product in x's layout is no ONNX tensor; the transpose after it
    // holds the projection's.
    OpBuilder b(matmul);
    Value result = b.create<MatMulOp>(withoutTensorNames(matmul.getLoc()), type,
                                      x, matmul.getB());
    if (add) {
      b.setInsertionPoint(add);
      result =
          b.create<AddOp>(withoutTensorNames(add.getLoc()), type, result, bias);
    }
    auto moved = b.create<TransposeOp>(withTensorsOf(transpose.getLoc(), root),
                                       root.getType(), result);
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
    // Projections of one input by weights of one type.
    SmallVector<Projection> projections = projectionsReadBy(attention);
    while (projections.size() >= 2) {
      Projection &lead = projections.front();
      SmallVector<Projection> group;
      SmallVector<Projection> rest;
      for (Projection &p : projections) {
        bool same = p.input() == lead.input() &&
                    elementTypeOf(p.weight) == elementTypeOf(lead.weight) &&
                    (!p.bias ||
                     elementTypeOf(p.bias) == elementTypeOf(lead.weight));
        (same ? group : rest).push_back(p);
      }
      // A weight whose bytes cannot be read, or parts the attention could
      // not read in place, leave the projections apart (merge changes
      // nothing then).
      if (group.size() >= 2)
        (void)merge(attention, group);
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
