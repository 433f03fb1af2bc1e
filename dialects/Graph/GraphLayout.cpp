//===- GraphLayout.cpp - operands read in place through strides -----------===//

#include "dialects/Graph/GraphLayout.h"

#include "dialects/Graph/GraphOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace graphc::graph {

bool isLayoutAnchor(Operation *op) {
  return isa_and_nonnull<MatMulOp, AttentionOp>(op);
}

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// Static and not empty: an empty tensor has no layout to follow (and the
/// factor arithmetic below divides by dims).
bool isStatic(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getNumElements() > 0;
}

/// Whether an attention's layout prologue may hold `op`: a transpose, a
/// split or a view, static, reading its data operand (operand 0) only.
bool isAttentionLayoutOp(Operation *op) {
  if (!isa<TransposeOp, SplitOp, ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp,
           IdentityOp>(op))
    return false;
  if (!isStatic(op->getOperand(0)))
    return false;
  for (Value result : op->getResults())
    if (!isStatic(result) ||
        cast<ShapedType>(result.getType()).getElementType() !=
            cast<ShapedType>(op->getOperand(0).getType()).getElementType())
      return false;
  return true;
}

/// One factor of a dim of a layout: `size` indices `stride` elements
/// apart.
struct Atom {
  int64_t size, stride;
};

/// How a value lies in a tensor in memory while a chain of layout ops is
/// followed: each dim a list of atoms, outer to inner (index i of a dim is
/// its mixed-radix digits over the atoms). A reshape that merges dims of
/// different strides keeps them as atoms of one dim, so that a later
/// reshape splitting it again (torch's [S, B*H, D] views of a packed
/// projection) gets plain strides back.
struct Layout {
  Value source;
  int64_t offset = 0;
  SmallVector<SmallVector<Atom>> dims;
};

/// `dims` with unit atoms dropped and atoms that are contiguous with the
/// next merged.
void simplify(SmallVector<SmallVector<Atom>> &dims) {
  for (SmallVector<Atom> &dim : dims) {
    SmallVector<Atom> merged;
    for (Atom atom : dim) {
      if (atom.size == 1)
        continue;
      if (!merged.empty() &&
          merged.back().stride == atom.stride * atom.size) {
        merged.back() = {merged.back().size * atom.size, atom.stride};
        continue;
      }
      merged.push_back(atom);
    }
    dim = std::move(merged);
  }
}

Layout rowMajor(Value value) {
  Layout layout{value, 0, {}};
  ArrayRef<int64_t> shape = shapeOf(value);
  for (auto [size, stride] : llvm::zip_equal(shape, rowMajorStrides(shape)))
    layout.dims.push_back({Atom{size, stride}});
  simplify(layout.dims);
  return layout;
}

/// `in` viewed as shape `to`: the atoms of every dim in order, cut into
/// the new dims (an atom is split where a new dim ends inside it, when its
/// size divides); none when they do not divide.
std::optional<Layout> reshape(const Layout &in, ArrayRef<int64_t> to) {
  SmallVector<Atom> atoms;
  for (const SmallVector<Atom> &dim : in.dims)
    atoms.append(dim.begin(), dim.end());
  Layout out{in.source, in.offset, {}};
  size_t next = 0;
  for (int64_t size : to) {
    SmallVector<Atom> dim;
    int64_t need = size;
    while (need > 1) {
      if (next == atoms.size())
        return std::nullopt;
      Atom &atom = atoms[next];
      if (atom.size <= need) {
        if (need % atom.size != 0)
          return std::nullopt;
        dim.push_back(atom);
        need /= atom.size;
        ++next;
        continue;
      }
      // The new dim ends inside this atom: take its outer `need` indices.
      if (atom.size % need != 0)
        return std::nullopt;
      int64_t inner = atom.size / need;
      dim.push_back({need, atom.stride * inner});
      atom = {inner, atom.stride};
      need = 1;
    }
    out.dims.push_back(std::move(dim));
  }
  if (next != atoms.size())
    return std::nullopt;
  simplify(out.dims);
  return out;
}

/// Result `index` of layout op `op` given how its data operand lies; none
/// when that needs a copy.
std::optional<Layout> apply(Operation *op, unsigned index, const Layout &in) {
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    // Result dim i is input dim perm[i].
    Layout out{in.source, in.offset, {}};
    for (int64_t axis : transposePermutation(transpose))
      out.dims.push_back(in.dims[axis]);
    return out;
  }
  if (auto split = dyn_cast<SplitOp>(op)) {
    int64_t rank = in.dims.size();
    int64_t axis =
        split.getAxis() < 0 ? split.getAxis() + rank : split.getAxis();
    // A part starts inside the dim: the dim must be one atom (or none, a
    // dim of 1).
    if (axis < 0 || axis >= rank || in.dims[axis].size() > 1)
      return std::nullopt;
    Layout out = in;
    int64_t first = 0;
    for (unsigned i = 0; i < index; ++i)
      first += shapeOf(split.getResult(i))[axis];
    if (first > 0)
      out.offset += first * in.dims[axis].front().stride;
    int64_t size = shapeOf(split.getResult(index))[axis];
    if (!out.dims[axis].empty())
      out.dims[axis].front().size = size;
    simplify(out.dims);
    return out;
  }
  return reshape(in, shapeOf(op->getResult(0)));
}

/// The strides of a layout whose every dim is one atom (or none: a dim of
/// 1, stride 0); none otherwise.
std::optional<StridedRead> strided(const Layout &layout) {
  StridedRead read{layout.source, layout.offset, {}};
  for (const SmallVector<Atom> &dim : layout.dims) {
    if (dim.size() > 1)
      return std::nullopt;
    read.strides.push_back(dim.empty() ? 0 : dim.front().stride);
  }
  return read;
}

/// The transposes a mat_mul alone reads.
LayoutPrologue matmulPrologue(Operation *anchor) {
  LayoutPrologue prologue;
  for (Value operand : anchor->getOperands()) {
    auto transpose = operand.getDefiningOp<TransposeOp>();
    if (!transpose || !llvm::all_of(transpose->getUsers(), [&](Operation *u) {
          return u == anchor;
        }))
      continue;
    Layout in{transpose.getData(), 0, {}};
    ArrayRef<int64_t> shape = shapeOf(transpose.getData());
    for (auto [size, stride] : llvm::zip_equal(shape, rowMajorStrides(shape)))
      in.dims.push_back({Atom{size, stride}});
    std::optional<StridedRead> read = strided(*apply(transpose, 0, in));
    prologue.ops.insert(transpose);
    prologue.reads[operand] = *read;
  }
  return prologue;
}

LayoutPrologue attentionPrologue(Operation *anchor) {
  // Candidates: layout ops reachable from the anchor's operands through
  // layout ops; then, until nothing changes, drop a candidate with a user
  // that is neither the anchor nor a candidate (its result must exist in
  // memory), one whose result is no strided view of what it reads, and
  // one computing an operand of the anchor whose dims are not plain
  // strides.
  llvm::SetVector<Operation *> candidates;
  SmallVector<Value> work(anchor->getOperands());
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !isAttentionLayoutOp(def) || !candidates.insert(def))
      continue;
    work.push_back(def->getOperand(0));
  }
  DenseMap<Value, Layout> layouts;
  // Block order: producers before users.
  SmallVector<Operation *> order(candidates.begin(), candidates.end());
  llvm::sort(order, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  auto drop = [&](Operation *op) { candidates.remove(op); };
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation *op : order) {
      if (!candidates.contains(op))
        continue;
      bool feedsOnly = llvm::all_of(op->getUsers(), [&](Operation *user) {
        return user == anchor || candidates.contains(user);
      });
      if (!feedsOnly) {
        drop(op);
        changed = true;
      }
    }
    if (changed)
      continue;
    layouts.clear();
    for (Operation *op : order) {
      if (!candidates.contains(op))
        continue;
      Value data = op->getOperand(0);
      auto found = layouts.find(data);
      Layout in = found != layouts.end() ? found->second : rowMajor(data);
      for (OpResult result : op->getResults()) {
        std::optional<Layout> out = apply(op, result.getResultNumber(), in);
        bool readByAnchor = llvm::is_contained(result.getUsers(), anchor);
        if (!out || (readByAnchor && !strided(*out))) {
          // Its result needs a copy: the op leaves, and the ops below it
          // then feed a non-candidate and leave too.
          drop(op);
          changed = true;
          break;
        }
        layouts[result] = std::move(*out);
      }
      if (changed)
        break;
    }
  }
  LayoutPrologue prologue;
  for (Operation *op : order)
    if (candidates.contains(op))
      prologue.ops.insert(op);
  for (Value operand : anchor->getOperands())
    if (auto found = layouts.find(operand); found != layouts.end())
      prologue.reads[operand] = *strided(found->second);
  return prologue;
}

} // namespace

LayoutPrologue layoutPrologue(Operation *anchor) {
  if (isa_and_nonnull<MatMulOp>(anchor))
    return matmulPrologue(anchor);
  if (isa_and_nonnull<AttentionOp>(anchor))
    return attentionPrologue(anchor);
  return LayoutPrologue();
}

bool isLayoutPrologueOf(Operation *op, Operation *anchor) {
  if (!op || !isLayoutAnchor(anchor))
    return false;
  // Cheap refusals before the walk.
  if (isa<MatMulOp>(anchor) ? !isa<TransposeOp>(op) : !isAttentionLayoutOp(op))
    return false;
  return layoutPrologue(anchor).ops.contains(op);
}

std::pair<size_t, Operation *>
splitLayoutPrologue(ArrayRef<Operation *> ops) {
  if (ops.empty())
    return {0, nullptr};
  for (auto [i, op] : llvm::enumerate(ops)) {
    if (!isLayoutAnchor(op))
      continue;
    if (i == 0)
      break;
    LayoutPrologue prologue = layoutPrologue(op);
    if (llvm::all_of(ops.take_front(i), [&](Operation *member) {
          return prologue.ops.contains(member);
        }))
      return {i, op};
    break;
  }
  return {0, ops.front()};
}

} // namespace graphc::graph
