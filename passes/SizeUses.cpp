//===- SizeUses.cpp - where a dynamic dim's size is used as a number ------===//
//
// A forward walk over @main before bucketing that follows three kinds of
// values:
//  * sizes: integers computed from the Shape and Size of the inputs, per
//    element a linear term over the dims (a constant plus integer multiples
//    of each dim's size: `k - q` with both the sequence length folds to 0),
//    or an opaque value that depends on some dims (a product of sizes);
//  * positional tensors: tensors computed without the inputs' data whose
//    extent, not values, depends on a dim: Range(0, seq, 1), a table sliced
//    by [0:seq], ConstantOfShape, and what keeps their leading positions.
//    Each axis has its extent as a term, so the dims that shape it are
//    known per axis. Padded to a bucket, such a tensor holds the unpadded
//    run's values in its leading positions along every axis, which
//    AnalyzePadSafety assumes of every tensor that spans a padded axis
//    without carrying it;
//  * values computed from the inputs' data, which AnalyzePadSafety follows.
// A size that reaches a value (a range's start or step, a slice's start, a
// gather's indices, arithmetic into a float or an output) is a use of the
// size: padding changes it. So is an op that reads an axis of a positional
// tensor other than position by position (a reversing slice, a reduction,
// a concatenation after a part of varying length, a negative index): it is
// a use of the dims that shape that axis only, so a concatenation along seq
// keeps batch pad-safe.
// A run split into parts of the largest bucket reads each positional tensor
// at the bucket's leading positions in every part: where one that differs
// along an axis a dim shapes meets the data (x + Range(0, batch)), only
// splitting along that dim is refused.
//
//===----------------------------------------------------------------------===//

#include "passes/SizeUses.h"

#include "dialects/Graph/GraphOps.h"

#include "dialects/Graph/GraphTypeInference.h"
#include "lib/Support/Axis.h"
#include "lib/Support/CheckedArith.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Sequence.h"

#include <algorithm>
#include <numeric>

using namespace mlir;

namespace graphc {
namespace {

/// The dynamic dims a value depends on, one bit per dim in order of first
/// appearance (the 64th and later share the last bit).
using DimMask = uint64_t;
constexpr unsigned kSharedBit = 63;

/// A size: `constant` plus coeffs[i] times the size of dim i, or, where
/// arithmetic leaves that form (a product of sizes, a division), an opaque
/// value that depends on `opaqueDims`. A linear term without dims is a
/// known constant; an opaque one without dims is a static value not known
/// here.
struct Term {
  bool linear = true;
  int64_t constant = 0;
  SmallVector<int64_t, 4> coeffs; ///< by dim bit, no trailing zeros
  DimMask opaqueDims = 0;

  static Term of(int64_t value) { return Term{true, value, {}, 0}; }
  static Term opaque(DimMask dims) { return Term{false, 0, {}, dims}; }
  static Term dim(unsigned bit) {
    // Dims past the last bit share it, so their sizes are not told apart.
    if (bit >= kSharedBit)
      return opaque(DimMask(1) << kSharedBit);
    Term term;
    term.coeffs.assign(bit + 1, 0);
    term.coeffs[bit] = 1;
    return term;
  }

  DimMask dims() const {
    if (!linear)
      return opaqueDims;
    DimMask mask = 0;
    for (auto [bit, coeff] : llvm::enumerate(coeffs))
      if (coeff)
        mask |= DimMask(1) << bit;
    return mask;
  }
  bool isConstant() const { return linear && !dims(); }
  bool is(int64_t value) const { return isConstant() && constant == value; }
  /// Whether it never decreases as a dim grows.
  bool isMonotone() const {
    return !linear || llvm::all_of(coeffs, [](int64_t c) { return c >= 0; });
  }
  /// Whether it is at least 0 for every size.
  bool isNonNegative() const {
    return linear && constant >= 0 &&
           llvm::all_of(coeffs, [](int64_t c) { return c >= 0; });
  }
  /// Opaque terms are equal only as copies of one (`constant` numbers
  /// them; 0 for one equal to none).
  bool operator==(const Term &other) const {
    if (!linear || !other.linear)
      return !linear && !other.linear && constant != 0 &&
             constant == other.constant;
    return constant == other.constant && coeffs == other.coeffs;
  }
  bool operator!=(const Term &other) const { return !(*this == other); }

  void trim() {
    while (!coeffs.empty() && coeffs.back() == 0)
      coeffs.pop_back();
  }
};

/// a + scale * b, opaque on overflow or when either is opaque.
Term addTerms(const Term &a, const Term &b, int64_t scale = 1) {
  if (!a.linear || !b.linear)
    return Term::opaque(a.dims() | b.dims());
  Term result = a;
  result.coeffs.resize(std::max(a.coeffs.size(), b.coeffs.size()), 0);
  auto scaledAdd = [&](int64_t x, int64_t y) -> std::optional<int64_t> {
    std::optional<int64_t> product = checkedMul(y, scale);
    return product ? checkedAdd(x, *product) : std::nullopt;
  };
  std::optional<int64_t> constant = scaledAdd(a.constant, b.constant);
  if (!constant)
    return Term::opaque(a.dims() | b.dims());
  result.constant = *constant;
  for (auto [index, coeff] : llvm::enumerate(b.coeffs)) {
    std::optional<int64_t> sum = scaledAdd(result.coeffs[index], coeff);
    if (!sum)
      return Term::opaque(a.dims() | b.dims());
    result.coeffs[index] = *sum;
  }
  result.trim();
  return result;
}

Term scaleTerm(const Term &a, int64_t scale) {
  return addTerms(Term::of(0), a, scale);
}

Term mulTerms(const Term &a, const Term &b) {
  if (a.isConstant())
    return scaleTerm(b, a.constant);
  if (b.isConstant())
    return scaleTerm(a, b.constant);
  return Term::opaque(a.dims() | b.dims());
}

/// Per element of a small integer tensor computed from shapes (row-major),
/// its term. Exporters pick static dims out of shape vectors (the head size
/// of x.shape[-1] for an attention scale): those are constants, not sizes.
using Entries = SmallVector<Term>;

DimMask maskOf(ArrayRef<Term> terms) {
  DimMask mask = 0;
  for (const Term &term : terms)
    mask |= term.dims();
  return mask;
}

SmallVector<DimMask> masksOf(ArrayRef<Term> terms) {
  return llvm::map_to_vector(terms,
                             [](const Term &term) { return term.dims(); });
}

/// Whether `type` holds integers (or booleans): shape arithmetic.
bool isIntegerTensor(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && isa<IntegerType, IndexType>(shaped.getElementType());
}

std::string nodeName(Operation *op) {
  Location loc = op->getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto named = dyn_cast<NameLoc>(inner))
        return named.getName().str();
  if (auto named = dyn_cast<NameLoc>(loc))
    return named.getName().str();
  return op->getName().getStringRef().str();
}

/// Whether operand `index` of `op`, holding a size (`dims`: the dims of
/// each element), only shapes the result: its leading positions along every
/// axis hold the same values for every size. A range's limit, a slice's
/// end, a reshape's target do; a range's start and step, a slice's start
/// (table[-seq:]), the leading pads of a pad and the sizes of a split's
/// leading parts (which place what follows) do not.
bool isShapeOperand(Operation *op, unsigned index, ArrayRef<DimMask> dims) {
  if (isa<graph::ConstantOfShapeOp>(op))
    return true;
  if (isa<graph::RangeOp, graph::OneHotOp>(op))
    return index == 1;
  if (isa<graph::MaxUnpoolOp>(op))
    return index == 2;
  if (isa<graph::SliceOp>(op))
    return index == 2;
  if (isa<graph::PadOp>(op))
    return index == 1 && dims.size() % 2 == 0 &&
           llvm::all_of(dims.take_front(dims.size() / 2),
                        [](DimMask mask) { return mask == 0; });
  if (isa<graph::SplitOp>(op))
    return index == 1 && !dims.empty() &&
           llvm::all_of(dims.drop_back(),
                        [](DimMask mask) { return mask == 0; });
  if (isa<graph::ReshapeOp, graph::ExpandOp, graph::TileOp, graph::ResizeOp,
          graph::SqueezeOp, graph::UnsqueezeOp, graph::TopKOp, graph::Col2ImOp>(
          op))
    return index > 0;
  return false;
}

/// The integers of `value` when it is a constant.
std::optional<Entries> constantTerms(Value value) {
  std::optional<SmallVector<int64_t>> ints = graph::getConstantInts(value);
  if (!ints)
    return std::nullopt;
  return llvm::map_to_vector(*ints, [](int64_t i) { return Term::of(i); });
}

/// Whether `value`'s static shape, without leading unit dims, is `shape`'s.
bool sameElementOrder(Value value, ArrayRef<int64_t> shape) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return false;
  auto dropUnits = [](ArrayRef<int64_t> dims) {
    while (!dims.empty() && dims.front() == 1)
      dims = dims.drop_front();
    return dims;
  };
  return dropUnits(type.getShape()) == dropUnits(shape);
}

/// The entries of `op`'s result from those of its size-derived operands
/// (absent from `known`: constants, or static values), or nullopt when the
/// op is not followed entry by entry.
std::optional<Entries> propagate(Operation *op,
                                 const llvm::DenseMap<Value, Entries> &known) {
  auto entriesOf = [&](Value value) -> std::optional<Entries> {
    auto found = known.find(value);
    if (found != known.end())
      return found->second;
    if (std::optional<Entries> constant = constantTerms(value))
      return constant;
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape())
      return std::nullopt;
    return Entries(type.getNumElements(), Term::opaque(0));
  };
  // A 1-D result picked from a 1-D operand by constant positions.
  auto pick = [&](Value from,
                  ArrayRef<int64_t> positions) -> std::optional<Entries> {
    std::optional<Entries> source = entriesOf(from);
    if (!source)
      return std::nullopt;
    Entries result;
    int64_t size = source->size();
    for (int64_t position : positions) {
      if (position < 0)
        position += size;
      if (position < 0 || position >= size)
        return std::nullopt;
      result.push_back((*source)[position]);
    }
    return result;
  };
  if (auto gather = dyn_cast<graph::GatherOp>(op)) {
    std::optional<Entries> indices = entriesOf(gather.getIndices());
    auto type = dyn_cast<RankedTensorType>(gather.getData().getType());
    if (!indices || !type || type.getRank() != 1 ||
        !llvm::all_of(*indices, [](const Term &t) { return t.isConstant(); }))
      return std::nullopt;
    return pick(gather.getData(),
                llvm::map_to_vector(*indices,
                                    [](const Term &t) { return t.constant; }));
  }
  if (auto slice = dyn_cast<graph::SliceOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(slice.getData().getType());
    auto starts = graph::getConstantInts(slice.getStarts());
    auto ends = graph::getConstantInts(slice.getEnds());
    std::optional<SmallVector<int64_t>> steps;
    if (slice.getSteps())
      steps = graph::getConstantInts(slice.getSteps());
    if (!type || type.getRank() != 1 || !type.hasStaticShape() || !starts ||
        !ends || starts->size() != 1 || ends->size() != 1 ||
        (slice.getSteps() && (!steps || steps->size() != 1)))
      return std::nullopt;
    int64_t size = type.getDimSize(0), step = steps ? steps->front() : 1;
    if (step == 0)
      return std::nullopt;
    auto clampIndex = [&](int64_t index, int64_t low, int64_t high) {
      if (index < 0)
        index += size;
      return std::clamp<int64_t>(index, low, high);
    };
    SmallVector<int64_t> positions;
    if (step > 0)
      for (int64_t i = clampIndex(starts->front(), 0, size),
                   end = clampIndex(ends->front(), 0, size);
           i < end; i += step)
        positions.push_back(i);
    else
      for (int64_t i = clampIndex(starts->front(), -1, size - 1),
                   end = clampIndex(ends->front(), -1, size - 1);
           i > end; i += step)
        positions.push_back(i);
    return pick(slice.getData(), positions);
  }
  if (auto concat = dyn_cast<graph::ConcatOp>(op)) {
    Entries result;
    for (Value input : concat.getInputs()) {
      auto type = dyn_cast<RankedTensorType>(input.getType());
      std::optional<Entries> entries = entriesOf(input);
      if (!type || type.getRank() != 1 || !entries)
        return std::nullopt;
      result.append(entries->begin(), entries->end());
    }
    return result;
  }
  // Same elements in another shape or type.
  if (isa<graph::CastOp, graph::SqueezeOp, graph::UnsqueezeOp, graph::ReshapeOp,
          graph::IdentityOp>(op))
    return entriesOf(op->getOperand(0));
  // Linear arithmetic, element by element (a scalar broadcast), and the
  // TorchScript exporter's expand target Where(s == -1, 1, s), which is s:
  // a size is never negative.
  if (isa<graph::AddOp, graph::SubOp, graph::MulOp, graph::NegOp,
          graph::EqualOp, graph::WhereOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape())
      return std::nullopt;
    int64_t count = type.getNumElements();
    SmallVector<Entries> operands;
    for (Value operand : op->getOperands()) {
      std::optional<Entries> entries = entriesOf(operand);
      if (!entries || (entries->size() != 1 &&
                       (static_cast<int64_t>(entries->size()) != count ||
                        !sameElementOrder(operand, type.getShape()))))
        return std::nullopt;
      operands.push_back(std::move(*entries));
    }
    auto at = [&](const Entries &entries, int64_t i) -> const Term & {
      return entries.size() == 1 ? entries.front() : entries[i];
    };
    // Whether a equals b: 1, 0, or an opaque value.
    auto equal = [](const Term &a, const Term &b) {
      Term difference = addTerms(a, b, -1);
      if (difference.isConstant())
        return Term::of(difference.constant == 0);
      if ((a.isNonNegative() && b.linear && b.isConstant() && b.constant < 0) ||
          (b.isNonNegative() && a.linear && a.isConstant() && a.constant < 0))
        return Term::of(0);
      return Term::opaque(a.dims() | b.dims());
    };
    Entries result;
    for (int64_t i = 0; i < count; ++i) {
      if (isa<graph::WhereOp>(op)) {
        const Term &condition = at(operands[0], i);
        if (!condition.isConstant())
          return std::nullopt;
        result.push_back(at(operands[condition.constant ? 1 : 2], i));
      } else if (isa<graph::EqualOp>(op))
        result.push_back(equal(at(operands[0], i), at(operands[1], i)));
      else if (isa<graph::NegOp>(op))
        result.push_back(scaleTerm(at(operands[0], i), -1));
      else if (isa<graph::AddOp>(op))
        result.push_back(addTerms(at(operands[0], i), at(operands[1], i)));
      else if (isa<graph::SubOp>(op))
        result.push_back(addTerms(at(operands[0], i), at(operands[1], i), -1));
      else
        result.push_back(mulTerms(at(operands[0], i), at(operands[1], i)));
    }
    return result;
  }
  return std::nullopt;
}

/// An extent as a product: a static factor times at most one term that
/// varies (seq, seq + 1; 4 * seq is 4 times seq).
struct Monomial {
  int64_t factor = 1;
  std::optional<Term> symbol;
};

Monomial monomialOf(const Term &term) {
  if (term.isConstant())
    return {term.constant, std::nullopt};
  if (!term.linear || term.constant != 0)
    return {1, term};
  int64_t divisor = 0;
  for (int64_t coeff : term.coeffs)
    divisor = std::gcd(divisor, coeff);
  if (divisor <= 0)
    return {1, term};
  Term symbol = term;
  for (int64_t &coeff : symbol.coeffs)
    coeff /= divisor;
  return {divisor, symbol};
}

/// The extents of a reshape's result from its operand's (`from`) and its
/// target entries (`to`: 0 copies the operand's extent unless `allowZero`,
/// one -1 is inferred), or nullopt when the reshape does not keep each
/// varying axis whole: the operand's and the result's axes must split into
/// groups of equal products, each with at most one varying axis, preceded
/// in its group by unit axes only. Then row-major order puts that axis's
/// leading positions first on both sides ([seq, 4] -> [4 * seq],
/// [batch, seq] -> [batch, 1, seq]; not [4, seq] -> [4 * seq], which
/// interleaves).
std::optional<Entries> reshapeExtents(ArrayRef<Term> from,
                                      ArrayRef<bool> fromUniform, Entries to,
                                      bool allowZero,
                                      SmallVector<bool> &toUniform) {
  int inferred = -1;
  for (size_t index = 0; index < to.size(); ++index) {
    if (to[index].is(0) && !allowZero) {
      if (index >= from.size())
        return std::nullopt;
      to[index] = from[index];
    } else if (to[index].is(-1)) {
      if (inferred >= 0)
        return std::nullopt;
      inferred = index;
    } else if (to[index].linear && !to[index].isNonNegative()) {
      return std::nullopt;
    }
  }
  SmallVector<Monomial> in = llvm::map_to_vector(from, monomialOf);
  if (inferred >= 0) {
    // What the other result extents leave of the operand's.
    int64_t factor = 1;
    SmallVector<Term> symbols;
    for (const Monomial &m : in) {
      std::optional<int64_t> product = checkedMul(factor, m.factor);
      if (!product)
        return std::nullopt;
      factor = *product;
      if (m.symbol)
        symbols.push_back(*m.symbol);
    }
    for (size_t index = 0; index < to.size(); ++index) {
      if (static_cast<int>(index) == inferred)
        continue;
      Monomial m = monomialOf(to[index]);
      if (m.factor <= 0 || factor % m.factor != 0)
        return std::nullopt;
      factor /= m.factor;
      if (m.symbol) {
        auto found = llvm::find(symbols, *m.symbol);
        if (found == symbols.end())
          return std::nullopt;
        symbols.erase(found);
      }
    }
    if (symbols.size() > 1)
      return std::nullopt;
    to[inferred] =
        symbols.empty() ? Term::of(factor) : scaleTerm(symbols.front(), factor);
  }
  SmallVector<Monomial> out = llvm::map_to_vector(to, monomialOf);
  // Walks both sides a group at a time. A result axis is uniform where
  // every axis of its group is.
  toUniform.assign(to.size(), true);
  size_t i = 0, j = 0;
  auto isUnit = [](const Monomial &m) { return !m.symbol && m.factor == 1; };
  auto closeGroup = [&](size_t inFirst, size_t outFirst) {
    bool uniform = true;
    for (size_t k = inFirst; k < i; ++k)
      uniform &= isUnit(in[k]) || fromUniform[k];
    for (size_t k = outFirst; k < j; ++k)
      toUniform[k] = uniform;
  };
  while (true) {
    while (i < in.size() && isUnit(in[i]))
      ++i;
    while (j < out.size() && isUnit(out[j]))
      ++j;
    if (i == in.size() || j == out.size())
      return i == in.size() && j == out.size() ? std::optional(to)
                                               : std::nullopt;
    size_t inFirst = i, outFirst = j;
    Monomial a = in[i++], b = out[j++];
    while (a.factor != b.factor ||
           a.symbol.has_value() != b.symbol.has_value() ||
           (a.symbol && *a.symbol != *b.symbol)) {
      // Grow the side that lacks the varying part, else the smaller one.
      bool growIn;
      if (a.symbol.has_value() != b.symbol.has_value())
        growIn = !a.symbol;
      else if (a.symbol && *a.symbol != *b.symbol)
        return std::nullopt;
      else
        growIn = a.factor < b.factor;
      Monomial &side = growIn ? a : b;
      SmallVector<Monomial> &axes = growIn ? in : out;
      size_t &next = growIn ? i : j;
      if (next == axes.size())
        return std::nullopt;
      const Monomial &m = axes[next++];
      // A varying axis after a non-unit one interleaves.
      if (m.symbol && (side.symbol || side.factor != 1))
        return std::nullopt;
      std::optional<int64_t> product = checkedMul(side.factor, m.factor);
      if (!product || *product == 0)
        return std::nullopt;
      side.factor = *product;
      if (m.symbol)
        side.symbol = m.symbol;
    }
    closeGroup(inFirst, outFirst);
  }
}

/// A tensor shaped by sizes: its extent along each axis (static ones as
/// constants); per axis, whether it holds the same values at every position
/// along it (a broadcast), which splitting a run along a dim that shapes
/// the axis needs: each part reads the largest bucket's leading positions;
/// and whether its values are known to be at least 0, which a gather's
/// indices need to address the same elements in every bucket.
struct Positional {
  Entries extents;
  SmallVector<bool> uniform;
  bool nonNegative = false;
};

/// The extent of a broadcast axis from its operands' (those that have the
/// axis). Adds to `moved` the dims of an extent that may be 1 in the
/// unpadded run, broadcast, and more than 1 padded: extents that differ.
Term broadcastExtent(ArrayRef<Term> extents, DimMask &moved) {
  SmallVector<Term> rest;
  for (const Term &extent : extents)
    if (!extent.is(1))
      rest.push_back(extent);
  if (rest.empty())
    return Term::of(1);
  if (llvm::all_of(rest, [&](const Term &t) { return t == rest.front(); }))
    return rest.front();
  std::optional<int64_t> fixed;
  DimMask dims = 0;
  for (const Term &extent : rest) {
    if (extent.isConstant())
      fixed = extent.constant;
    dims |= extent.dims();
  }
  moved |= dims;
  return fixed ? Term::of(*fixed) : Term::opaque(dims);
}

/// Whether `a >= b` for every size of at least 1 (AnalyzePadSafety assumes
/// so too: a run has at least one real position).
bool isAtLeast(const Term &a, const Term &b) {
  Term difference = addTerms(a, b, -1);
  if (!difference.linear || !difference.isMonotone())
    return false;
  int64_t least = difference.constant;
  for (int64_t coeff : difference.coeffs) {
    std::optional<int64_t> sum = checkedAdd(least, coeff);
    if (!sum)
      return false;
    least = *sum;
  }
  return least >= 0;
}

class SizeUseWalk {
public:
  explicit SizeUseWalk(func::FuncOp main);
  void run();
  SizeUses takeUses() { return std::move(uses); }

private:
  /// Records `op` as the first use of each dim in `dims` not used before
  /// (`splitOnly`: one that only splitting a run changes).
  void report(DimMask dims, Operation *op, StringRef reason,
              bool splitOnly = false);
  /// The same for an op that reads a positional tensor along an axis that
  /// `dims` shape other than position by position.
  void reportMoved(DimMask dims, Operation *op);
  /// The entries of a Shape or Size of `data`, or nullopt when it reads
  /// no dynamic dim of an input or a positional tensor.
  std::optional<Entries> readSize(Operation *op);
  /// An op that reads sizes (or positions that depend on them, `dims`) as
  /// values.
  void visitSizeRead(Operation *op, DimMask dims);
  /// An op that reads positional tensors, or makes one from sizes
  /// (`shapeDims`): follows it per axis, reporting the dims whose axes it
  /// reads out of order.
  void visitPositional(Operation *op, DimMask shapeDims);
  /// The result of `op` as a positional tensor, adding to `moved` the dims
  /// whose positions it moves; nullopt when the op is not followed.
  std::optional<Positional> positionalResult(Operation *op, DimMask &moved);

  /// A size's or a constant's entries.
  std::optional<Entries> termsOf(Value value) const;
  std::optional<SmallVector<int64_t>> constantInts(Value value) const;
  /// A positional tensor's extents, or a static shape's.
  std::optional<Entries> extentsOf(Value value) const;
  /// Per axis of a positional tensor or a static shape, whether it holds
  /// the same values at every position along it (unit axes do).
  SmallVector<bool> uniformOf(Value value) const;
  bool isNonNegative(Value value) const;
  /// An opaque term that equals itself only (copies of it compare equal).
  Term freshOpaque(DimMask dims) {
    Term term = Term::opaque(dims);
    term.constant = ++opaqueCount;
    return term;
  }

  func::FuncOp main;
  /// The dynamic dims' names by bit.
  SmallVector<std::string> dimNames;
  /// Per input, the extents of its axes.
  llvm::DenseMap<Value, Entries> argExtents;
  /// Sizes, positional tensors, and values computed from the inputs' data.
  llvm::DenseMap<Value, Entries> sizes;
  llvm::DenseMap<Value, Positional> positional;
  llvm::DenseSet<Value> fromInputs;
  int64_t opaqueCount = 0;
  SizeUses uses;
};

SizeUseWalk::SizeUseWalk(func::FuncOp main) : main(main) {
  for (BlockArgument arg : main.getArguments()) {
    fromInputs.insert(arg);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    auto names =
        main.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), graph::kDimsAttr);
    Entries axes;
    if (type)
      for (int64_t axis = 0; axis < type.getRank(); ++axis) {
        if (!type.isDynamicDim(axis)) {
          axes.push_back(Term::of(type.getDimSize(axis)));
          continue;
        }
        auto name = names && axis < static_cast<int64_t>(names.size())
                        ? dyn_cast<StringAttr>(names[axis])
                        : StringAttr();
        std::string text = name && !name.getValue().empty()
                               ? name.str()
                               : "#" + std::to_string(arg.getArgNumber()) +
                                     "." + std::to_string(axis);
        auto known = llvm::find(dimNames, text);
        size_t index = known - dimNames.begin();
        if (known == dimNames.end())
          dimNames.push_back(text);
        axes.push_back(Term::dim(std::min<size_t>(index, kSharedBit)));
      }
    argExtents[arg] = std::move(axes);
  }
}

void SizeUseWalk::report(DimMask dims, Operation *op, StringRef reason,
                         bool splitOnly) {
  for (auto [index, name] : llvm::enumerate(dimNames)) {
    if (!(dims & (DimMask(1) << std::min<size_t>(index, kSharedBit))))
      continue;
    SizeUse use{nodeName(op), reason.str(), splitOnly};
    // A use that padding changes outranks one that splitting does.
    auto [found, inserted] = uses.try_emplace(name, use);
    if (!inserted && found->second.splitOnly && !splitOnly)
      found->second = std::move(use);
  }
}

void SizeUseWalk::reportMoved(DimMask dims, Operation *op) {
  report(dims, op,
         "reads a tensor shaped by the size of a dynamic dim other than "
         "position by position (padding moves its values)");
}

std::optional<Entries> SizeUseWalk::termsOf(Value value) const {
  if (auto found = sizes.find(value); found != sizes.end())
    return found->second;
  return constantTerms(value);
}

std::optional<SmallVector<int64_t>>
SizeUseWalk::constantInts(Value value) const {
  std::optional<Entries> terms = termsOf(value);
  if (!terms ||
      !llvm::all_of(*terms, [](const Term &t) { return t.isConstant(); }))
    return std::nullopt;
  return llvm::map_to_vector(*terms, [](const Term &t) { return t.constant; });
}

std::optional<Entries> SizeUseWalk::extentsOf(Value value) const {
  if (auto found = positional.find(value); found != positional.end())
    return found->second.extents;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return llvm::map_to_vector(type.getShape(),
                             [](int64_t size) { return Term::of(size); });
}

SmallVector<bool> SizeUseWalk::uniformOf(Value value) const {
  if (auto found = positional.find(value); found != positional.end())
    return found->second.uniform;
  // A splat (BERT's token type table of zeros) is the same everywhere.
  auto constant = value.getDefiningOp<graph::ConstantOp>();
  auto dense = constant ? dyn_cast<DenseElementsAttr>(constant.getValue())
                        : DenseElementsAttr();
  SmallVector<bool> uniform;
  if (std::optional<Entries> extents = extentsOf(value))
    for (const Term &extent : *extents)
      uniform.push_back(extent.is(1) || (dense && dense.isSplat()));
  return uniform;
}

bool SizeUseWalk::isNonNegative(Value value) const {
  if (auto found = positional.find(value); found != positional.end())
    if (found->second.nonNegative)
      return true;
  if (auto shaped = dyn_cast<ShapedType>(value.getType()))
    if (auto integer = dyn_cast<IntegerType>(shaped.getElementType());
        integer && (integer.getWidth() == 1 || integer.isUnsigned()))
      return true;
  std::optional<Entries> terms = termsOf(value);
  return terms &&
         llvm::all_of(*terms, [](const Term &t) { return t.isNonNegative(); });
}

std::optional<Entries> SizeUseWalk::readSize(Operation *op) {
  Value data = op->getOperand(0);
  // Sizes are read where they are known to be the inputs' dims (an
  // intermediate's type may not say which of its dims are static yet), or
  // of positional tensors, whose extent is the size.
  Entries axes;
  if (auto found = argExtents.find(data); found != argExtents.end())
    axes = found->second;
  else if (auto found = positional.find(data); found != positional.end())
    axes = found->second.extents;
  else
    return std::nullopt;
  if (isa<graph::SizeOp>(op)) {
    Term size = Term::of(1);
    for (const Term &axis : axes)
      size = mulTerms(size, axis);
    if (!size.linear)
      size = freshOpaque(size.dims());
    return size.dims() ? std::optional(Entries(1, size)) : std::nullopt;
  }
  auto shape = cast<graph::ShapeOp>(op);
  std::optional<int64_t> end;
  if (std::optional<uint64_t> given = shape.getEnd())
    end = static_cast<int64_t>(*given);
  auto [first, last] = graph::shapeDimRange(
      axes.size(), static_cast<int64_t>(shape.getStart()), end);
  Entries entries(axes.begin() + first, axes.begin() + last);
  if (!maskOf(entries))
    return std::nullopt;
  return entries;
}

void SizeUseWalk::visitSizeRead(Operation *op, DimMask dims) {
  if (isa<func::ReturnOp>(op))
    return report(dims, op,
                  "an output is computed from the size of a dynamic dim");
  // Positions computed from a size: named where they are made.
  if (isa<graph::RangeOp>(op))
    return report(dims, op,
                  "a range whose start or step is computed from the size of a "
                  "dynamic dim, which padding changes");
  if (auto slice = dyn_cast<graph::SliceOp>(op);
      slice && !sizes.contains(slice.getData()))
    return report(dims, op,
                  "a slice whose start or step is computed from the size of a "
                  "dynamic dim, which padding changes");
  if (auto gather = dyn_cast<graph::GatherOp>(op);
      gather && !sizes.contains(gather.getData()))
    return report(dims, op,
                  "a gather at indices computed from the size of a dynamic "
                  "dim, which padding changes");
  // Followed entry by entry where no operand is positional (propagate
  // would take one for a static value).
  std::optional<Entries> entries;
  if (op->getNumResults() == 1 &&
      llvm::none_of(op->getOperands(),
                    [&](Value value) { return positional.contains(value); }))
    entries = propagate(op, sizes);
  // Followed entry by entry, the result may hold constants only (seq - seq).
  if (entries && !maskOf(*entries)) {
    sizes[op->getResult(0)] = std::move(*entries);
    return;
  }
  if (!llvm::all_of(op->getResultTypes(), isIntegerTensor))
    return report(dims, op,
                  "computes with the size of a dynamic dim, which padding "
                  "changes");
  if (entries) {
    for (Term &entry : *entries)
      if (!entry.linear && entry.constant == 0)
        entry = freshOpaque(entry.dims());
    sizes[op->getResult(0)] = std::move(*entries);
    return;
  }
  for (Value result : op->getResults()) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    int64_t count = type && type.hasStaticShape() ? type.getNumElements() : 1;
    Entries opaque;
    for (int64_t i = 0; i < std::max<int64_t>(count, 1); ++i)
      opaque.push_back(freshOpaque(dims));
    sizes[result] = std::move(opaque);
  }
}

std::optional<Positional> SizeUseWalk::positionalResult(Operation *op,
                                                        DimMask &moved) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return std::nullopt;
  int64_t rank = type.getRank();
  auto nonNegative = [&](Value value) { return isNonNegative(value); };
  auto varies = [](const Term &extent) { return extent.dims() != 0; };

  auto result = [&]() -> std::optional<Positional> {
    if (op->hasTrait<graph::OpTrait::Pointwise>()) {
      SmallVector<Entries> operands;
      for (Value operand : op->getOperands()) {
        std::optional<Entries> extents = extentsOf(operand);
        if (!extents)
          return std::nullopt;
        operands.push_back(std::move(*extents));
      }
      Positional out;
      for (int64_t axis = 0; axis < rank; ++axis) {
        // Numpy broadcasting aligns axes from the right.
        SmallVector<Term> at;
        bool uniform = true;
        for (auto [operand, extents] : llvm::zip(op->getOperands(), operands))
          if (int64_t k = axis - (rank - static_cast<int64_t>(extents.size()));
              k >= 0) {
            at.push_back(extents[k]);
            uniform &= extents[k].is(1) || uniformOf(operand)[k];
          }
        out.extents.push_back(broadcastExtent(at, moved));
        out.uniform.push_back(uniform);
      }
      if (isa<graph::IdentityOp, graph::CastOp, graph::MinOp>(op))
        out.nonNegative = llvm::all_of(op->getOperands(), nonNegative);
      else if (isa<graph::AbsOp, graph::ReluOp>(op))
        out.nonNegative = true;
      else if (isa<graph::AddOp, graph::MulOp>(op))
        out.nonNegative = llvm::all_of(op->getOperands(), nonNegative);
      else if (isa<graph::MaxOp>(op))
        out.nonNegative = llvm::any_of(op->getOperands(), nonNegative);
      else if (isa<graph::WhereOp>(op))
        out.nonNegative =
            llvm::all_of(op->getOperands().drop_front(), nonNegative);
      return out;
    }
    if (auto range = dyn_cast<graph::RangeOp>(op)) {
      std::optional<SmallVector<int64_t>> start =
          constantInts(range.getStart());
      std::optional<SmallVector<int64_t>> delta =
          constantInts(range.getDelta());
      std::optional<Entries> limit = termsOf(range.getLimit());
      if (!start || !delta || !limit || start->size() != 1 ||
          delta->size() != 1 || limit->size() != 1)
        return std::nullopt;
      const Term &end = limit->front();
      // Counting down to a size, or up to one that falls as a dim grows,
      // the range has fewer elements padded.
      if (delta->front() <= 0 || !end.isMonotone())
        moved |= end.dims();
      Positional out;
      out.extents.push_back(delta->front() == 1
                                ? addTerms(end, Term::of(start->front()), -1)
                                : freshOpaque(end.dims()));
      out.uniform.push_back(false);
      out.nonNegative = start->front() >= 0 && delta->front() > 0;
      return out;
    }
    if (auto fill = dyn_cast<graph::ConstantOfShapeOp>(op)) {
      std::optional<Entries> shape = termsOf(fill.getInput());
      if (!shape)
        return std::nullopt;
      for (const Term &extent : *shape)
        if (!extent.isMonotone())
          moved |= extent.dims();
      Positional out{*shape, SmallVector<bool>(shape->size(), true),
                     !fill.getValue()};
      if (std::optional<ElementsAttr> value = fill.getValue())
        if (auto ints = graph::getConstantInts(*value))
          out.nonNegative =
              llvm::all_of(*ints, [](int64_t i) { return i >= 0; });
      return out;
    }
    std::optional<Entries> in = extentsOf(op->getOperand(0));
    if (!in)
      return std::nullopt;
    int64_t inRank = in->size();
    SmallVector<bool> inUniform = uniformOf(op->getOperand(0));
    bool inNonNegative = isNonNegative(op->getOperand(0));
    if (auto unsqueeze = dyn_cast<graph::UnsqueezeOp>(op)) {
      std::optional<SmallVector<int64_t>> axes =
          constantInts(unsqueeze.getAxes());
      if (!axes || inRank + static_cast<int64_t>(axes->size()) != rank)
        return std::nullopt;
      SmallVector<bool> inserted(rank, false);
      for (int64_t axis : *axes) {
        std::optional<int64_t> at = normalizeAxis(axis, rank);
        if (!at || inserted[*at])
          return std::nullopt;
        inserted[*at] = true;
      }
      Positional out{{}, {}, inNonNegative};
      for (int64_t axis = 0, next = 0; axis < rank; ++axis) {
        out.extents.push_back(inserted[axis] ? Term::of(1) : (*in)[next]);
        out.uniform.push_back(inserted[axis] || inUniform[next]);
        next += !inserted[axis];
      }
      return out;
    }
    if (auto squeeze = dyn_cast<graph::SqueezeOp>(op)) {
      // Without axes, a squeeze drops whichever dims the size makes 1.
      if (!squeeze.getAxes())
        return std::nullopt;
      std::optional<SmallVector<int64_t>> axes =
          constantInts(squeeze.getAxes());
      if (!axes)
        return std::nullopt;
      SmallVector<bool> dropped(inRank, false);
      for (int64_t axis : *axes) {
        std::optional<int64_t> at = normalizeAxis(axis, inRank);
        if (!at)
          return std::nullopt;
        dropped[*at] = true;
        // A size of 1 only where the dim is 1.
        if (varies((*in)[*at]))
          moved |= (*in)[*at].dims();
      }
      Positional out{{}, {}, inNonNegative};
      for (int64_t axis = 0; axis < inRank; ++axis)
        if (!dropped[axis]) {
          out.extents.push_back((*in)[axis]);
          out.uniform.push_back(inUniform[axis]);
        }
      return out;
    }
    if (auto transpose = dyn_cast<graph::TransposeOp>(op)) {
      SmallVector<int64_t> perm;
      if (std::optional<ArrayRef<int64_t>> given = transpose.getPerm())
        perm.assign(given->begin(), given->end());
      else
        for (int64_t axis = inRank - 1; axis >= 0; --axis)
          perm.push_back(axis);
      if (static_cast<int64_t>(perm.size()) != inRank)
        return std::nullopt;
      Positional out{{}, {}, inNonNegative};
      for (int64_t axis : perm) {
        if (axis < 0 || axis >= inRank)
          return std::nullopt;
        out.extents.push_back((*in)[axis]);
        out.uniform.push_back(inUniform[axis]);
      }
      return out;
    }
    if (isa<graph::ExpandOp, graph::TileOp>(op)) {
      std::optional<Entries> shape = termsOf(op->getOperand(1));
      if (!shape)
        return std::nullopt;
      Positional out{{}, {}, inNonNegative};
      if (isa<graph::TileOp>(op)) {
        if (static_cast<int64_t>(shape->size()) != inRank)
          return std::nullopt;
        for (auto [extent, repeats, uniform] :
             llvm::zip(*in, *shape, inUniform)) {
          // A second copy starts where the first ends.
          if (!repeats.is(1) && varies(extent))
            moved |= extent.dims();
          out.extents.push_back(repeats.is(1) ? extent
                                              : mulTerms(extent, repeats));
          out.uniform.push_back(uniform || extent.is(1));
        }
        return out;
      }
      int64_t shapeRank = shape->size();
      for (int64_t axis = 0; axis < rank; ++axis) {
        int64_t k = axis - (rank - inRank), s = axis - (rank - shapeRank);
        SmallVector<Term> at;
        if (k >= 0)
          at.push_back((*in)[k]);
        if (s >= 0)
          at.push_back((*shape)[s]);
        out.extents.push_back(broadcastExtent(at, moved));
        // A broadcast unit axis holds its one value everywhere.
        out.uniform.push_back(k < 0 || (*in)[k].is(1) || inUniform[k]);
      }
      return out;
    }
    if (isa<graph::ReshapeOp, graph::FlattenOp>(op)) {
      Entries target;
      bool allowZero = true;
      if (auto reshape = dyn_cast<graph::ReshapeOp>(op)) {
        std::optional<Entries> shape = termsOf(reshape.getShape());
        if (!shape)
          return std::nullopt;
        target = std::move(*shape);
        allowZero = reshape.getAllowzero() != 0;
      } else {
        int64_t axis = cast<graph::FlattenOp>(op).getAxis();
        if (axis < 0)
          axis += inRank;
        if (axis < 0 || axis > inRank)
          return std::nullopt;
        Term outer = Term::of(1), inner = Term::of(1);
        for (int64_t k = 0; k < inRank; ++k)
          (k < axis ? outer : inner) =
              mulTerms(k < axis ? outer : inner, (*in)[k]);
        target = {outer, inner};
      }
      SmallVector<bool> uniform;
      if (std::optional<Entries> extents =
              reshapeExtents(*in, inUniform, target, allowZero, uniform))
        return Positional{std::move(*extents), std::move(uniform),
                          inNonNegative};
      moved |= maskOf(*in) | maskOf(target);
      Positional out{{}, SmallVector<bool>(rank, false), inNonNegative};
      for (int64_t axis = 0; axis < rank; ++axis)
        out.extents.push_back(freshOpaque(maskOf(*in) | maskOf(target)));
      return out;
    }
    if (auto slice = dyn_cast<graph::SliceOp>(op)) {
      std::optional<SmallVector<int64_t>> starts =
          constantInts(slice.getStarts());
      std::optional<Entries> ends = termsOf(slice.getEnds());
      if (!starts || !ends || ends->size() != starts->size())
        return std::nullopt;
      // Optional axes and steps: constant, one per start, when given.
      int64_t count = starts->size();
      auto perStart = [&](Value given, SmallVector<int64_t> absent)
          -> std::optional<SmallVector<int64_t>> {
        if (!given)
          return absent;
        std::optional<SmallVector<int64_t>> values = constantInts(given);
        if (!values || static_cast<int64_t>(values->size()) != count)
          return std::nullopt;
        return values;
      };
      std::optional<SmallVector<int64_t>> axes = perStart(
          slice.getAxes(), llvm::to_vector(llvm::seq<int64_t>(0, count)));
      std::optional<SmallVector<int64_t>> steps =
          perStart(slice.getSteps(), SmallVector<int64_t>(count, 1));
      if (!axes || !steps)
        return std::nullopt;
      Positional out{*in, inUniform, inNonNegative};
      for (auto [start, end, axis, step] :
           llvm::zip(*starts, *ends, *axes, *steps)) {
        std::optional<int64_t> at = normalizeAxis(axis, inRank);
        if (!at)
          return std::nullopt;
        Term extent = (*in)[*at];
        // From a start counted from the front, forwards, the leading
        // positions are the same elements for every size.
        if (varies(extent) && (start < 0 || step <= 0))
          moved |= extent.dims();
        // An end that falls as a dim grows gives fewer elements padded.
        if (!end.isMonotone())
          moved |= end.dims();
        Term &result = out.extents[*at];
        constexpr int64_t kToTheEnd = int64_t(1) << 62;
        if (step != 1 || start < 0)
          result = freshOpaque(extent.dims() | end.dims());
        else if ((end.isConstant() && end.constant >= kToTheEnd) ||
                 isAtLeast(end, extent))
          result = addTerms(extent, Term::of(start), -1);
        else if (isAtLeast(extent, end) || (!varies(extent) && varies(end)))
          // Within the operand (table[:seq] is, in every run that
          // compiles).
          result = addTerms(end, Term::of(start), -1);
        else
          result = freshOpaque(extent.dims() | end.dims());
        if (result.linear && !isAtLeast(result, Term::of(0)))
          result = freshOpaque(result.dims());
      }
      return out;
    }
    if (auto concat = dyn_cast<graph::ConcatOp>(op)) {
      std::optional<int64_t> axis = normalizeAxis(concat.getAxis(), rank);
      if (!axis)
        return std::nullopt;
      SmallVector<Entries> parts;
      for (Value input : concat.getInputs()) {
        std::optional<Entries> extents = extentsOf(input);
        if (!extents || static_cast<int64_t>(extents->size()) != rank)
          return std::nullopt;
        parts.push_back(std::move(*extents));
      }
      Positional out;
      out.nonNegative = llvm::all_of(concat.getInputs(), nonNegative);
      for (int64_t k = 0; k < rank; ++k) {
        out.uniform.push_back(k != *axis);
        if (k != *axis) {
          SmallVector<Term> at;
          for (auto [input, part] : llvm::zip(concat.getInputs(), parts)) {
            at.push_back(part[k]);
            out.uniform.back() = out.uniform.back() && uniformOf(input)[k];
          }
          out.extents.push_back(broadcastExtent(at, moved));
          continue;
        }
        // What follows a part whose length varies moves with the size.
        Term sum = Term::of(0);
        for (auto [index, part] : llvm::enumerate(parts)) {
          if (index + 1 < parts.size() && varies(part[k]))
            moved |= part[k].dims();
          sum = addTerms(sum, part[k]);
        }
        out.extents.push_back(sum.linear ? sum : freshOpaque(sum.dims()));
      }
      return out;
    }
    if (auto gather = dyn_cast<graph::GatherOp>(op)) {
      std::optional<Entries> indices = extentsOf(gather.getIndices());
      std::optional<int64_t> axis = normalizeAxis(gather.getAxis(), inRank);
      if (!indices || !axis)
        return std::nullopt;
      // A negative index counts from the end, which the size moves.
      if (varies((*in)[*axis]) && !isNonNegative(gather.getIndices()))
        moved |= (*in)[*axis].dims();
      Positional out{{}, {}, inNonNegative};
      out.extents.append(in->begin(), in->begin() + *axis);
      out.extents.append(indices->begin(), indices->end());
      out.extents.append(in->begin() + *axis + 1, in->end());
      // Along the indices' axes, equal indices or a broadcast data axis
      // read equal values.
      out.uniform.append(inUniform.begin(), inUniform.begin() + *axis);
      for (bool uniform : uniformOf(gather.getIndices()))
        out.uniform.push_back(uniform || inUniform[*axis]);
      out.uniform.append(inUniform.begin() + *axis + 1, inUniform.end());
      return out;
    }
    if (auto gather = dyn_cast<graph::GatherNdOp>(op)) {
      // Each row of the indices' last axis addresses data's axes from
      // batch_dims on; non-negative, it is the same element in every
      // bucket, as the unpadded run addresses within its own extents.
      std::optional<Entries> indices = extentsOf(gather.getIndices());
      int64_t batch = gather.getBatchDims();
      if (!indices || indices->empty() || !indices->back().isConstant())
        return std::nullopt;
      int64_t depth = indices->back().constant;
      if (batch < 0 || batch + depth > inRank ||
          batch >= static_cast<int64_t>(indices->size()))
        return std::nullopt;
      for (int64_t k = 0; k < batch; ++k)
        if ((*in)[k] != (*indices)[k])
          moved |= (*in)[k].dims() | (*indices)[k].dims();
      // The index columns, told apart where the indices are a
      // concatenation along their last axis (transformers' (row,
      // position) pairs): per column, whether it is at least 0 and along
      // which axes it is uniform.
      struct Column {
        bool nonNegative;
        SmallVector<bool> uniform;
      };
      SmallVector<Column> columns;
      auto parts = gather.getIndices().getDefiningOp<graph::ConcatOp>();
      if (parts && normalizeAxis(parts.getAxis(), indices->size()) ==
                       static_cast<int64_t>(indices->size()) - 1) {
        for (Value part : parts.getInputs()) {
          std::optional<Entries> extents = extentsOf(part);
          if (!extents || extents->size() != indices->size() ||
              !extents->back().isConstant())
            return std::nullopt;
          for (int64_t k = 0; k < extents->back().constant; ++k)
            columns.push_back({isNonNegative(part), uniformOf(part)});
        }
      }
      if (static_cast<int64_t>(columns.size()) != depth)
        columns.assign(depth, {isNonNegative(gather.getIndices()),
                               uniformOf(gather.getIndices())});
      // A negative index counts from the end, which the size moves.
      for (auto [k, column] : llvm::enumerate(columns))
        if (!column.nonNegative)
          moved |= (*in)[batch + k].dims();
      Positional out{{}, {}, inNonNegative};
      out.extents.append(indices->begin(), indices->end() - 1);
      out.extents.append(in->begin() + batch + depth, in->end());
      // Along an axis of the indices, the result holds equal values where
      // each column is equal along it or addresses a data axis that is
      // (transformers' pairs read a tensor equal in every row).
      for (int64_t k = 0; k + 1 < static_cast<int64_t>(indices->size()); ++k) {
        bool uniform = k >= batch || inUniform[k];
        for (auto [index, column] : llvm::enumerate(columns))
          uniform &= column.uniform[k] || inUniform[batch + index];
        out.uniform.push_back(uniform);
      }
      out.uniform.append(inUniform.begin() + batch + depth, inUniform.end());
      return out;
    }
    if (auto cumsum = dyn_cast<graph::CumSumOp>(op)) {
      std::optional<SmallVector<int64_t>> given =
          constantInts(cumsum.getAxis());
      std::optional<int64_t> axis = given && given->size() == 1
                                        ? normalizeAxis(given->front(), inRank)
                                        : std::nullopt;
      if (!axis)
        return std::nullopt;
      // A forward sum of leading positions reads only those.
      if (cumsum.getReverse() != 0)
        moved |= (*in)[*axis].dims();
      Positional out{*in, inUniform, inNonNegative};
      out.uniform[*axis] = false;
      return out;
    }
    if (isa<graph::TriluOp>(op)) {
      if (inRank < 2)
        return std::nullopt;
      Positional out{*in, inUniform, inNonNegative};
      out.uniform[inRank - 1] = out.uniform[inRank - 2] = false;
      return out;
    }
    if (auto oneHot = dyn_cast<graph::OneHotOp>(op)) {
      std::optional<Entries> depth = termsOf(oneHot.getDepth());
      std::optional<int64_t> axis = normalizeAxis(oneHot.getAxis(), rank);
      if (!depth || depth->size() != 1 || !axis || inRank + 1 != rank)
        return std::nullopt;
      // A negative index counts from the end of the new axis.
      if (!inNonNegative || !depth->front().isMonotone())
        moved |= depth->front().dims();
      Positional out{*in, inUniform, false};
      out.extents.insert(out.extents.begin() + *axis, depth->front());
      out.uniform.insert(out.uniform.begin() + *axis, false);
      if (auto values = constantInts(oneHot.getValues()))
        out.nonNegative =
            llvm::all_of(*values, [](int64_t i) { return i >= 0; });
      return out;
    }
    return std::nullopt;
  }();
  if (!result || static_cast<int64_t>(result->extents.size()) != rank ||
      static_cast<int64_t>(result->uniform.size()) != rank)
    return std::nullopt;
  // Static in the type: type inference knows the extent.
  for (int64_t axis = 0; axis < rank; ++axis)
    if (!type.isDynamicDim(axis))
      result->extents[axis] = Term::of(type.getDimSize(axis));
  if (auto integer = dyn_cast<IntegerType>(type.getElementType());
      integer && (integer.getWidth() == 1 || integer.isUnsigned()))
    result->nonNegative = true;
  return result;
}

void SizeUseWalk::visitPositional(Operation *op, DimMask shapeDims) {
  // The dims reaching the op through positional operands.
  DimMask readDims = 0;
  bool readsPositional = false;
  for (Value operand : op->getOperands())
    if (auto found = positional.find(operand); found != positional.end()) {
      readDims |= maskOf(found->second.extents);
      readsPositional = true;
    }
  DimMask moved = 0;
  if (std::optional<Positional> result = positionalResult(op, moved)) {
    reportMoved(moved, op);
    positional[op->getResult(0)] = std::move(*result);
    return;
  }
  if (isa<func::ReturnOp>(op))
    return;
  if (readsPositional)
    return reportMoved(readDims, op);
  // Made from sizes by an op not followed axis by axis (a pad, a split, a
  // top-k of a table): each varying axis stands for every dim.
  for (Value result : op->getResults()) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type)
      continue;
    Positional out;
    for (int64_t axis = 0; axis < type.getRank(); ++axis) {
      out.extents.push_back(type.isDynamicDim(axis)
                                ? freshOpaque(shapeDims)
                                : Term::of(type.getDimSize(axis)));
      out.uniform.push_back(type.getDimSize(axis) == 1);
    }
    positional[result] = std::move(out);
  }
}

void SizeUseWalk::run() {
  for (Operation &op : main.getBody().front()) {
    if (isa<graph::ShapeOp, graph::SizeOp>(op)) {
      if (std::optional<Entries> entries = readSize(&op))
        sizes[op.getResult(0)] = std::move(*entries);
      continue;
    }
    // An output shaped by a size but not computed from the inputs' data
    // carries no padded axis that the runtime could cut back.
    if (isa<func::ReturnOp>(op))
      for (Value operand : op.getOperands())
        if (auto found = positional.find(operand); found != positional.end())
          report(maskOf(found->second.extents), &op,
                 "an output is shaped by the size of a dynamic dim without "
                 "being computed from the inputs, so a padded run cannot cut "
                 "it back");
    // The dims reaching the op as values, as positions, as shapes.
    DimMask valueDims = 0, positionDims = 0, shapeDims = 0;
    bool readsData = false, readsSize = false, readsPositional = false;
    for (OpOperand &operand : op.getOpOperands()) {
      Value value = operand.get();
      readsData |= fromInputs.contains(value);
      unsigned index = operand.getOperandNumber();
      if (auto found = sizes.find(value); found != sizes.end()) {
        readsSize = true;
        DimMask dims = maskOf(found->second);
        if (isShapeOperand(&op, index, masksOf(found->second)))
          shapeDims |= dims;
        else
          valueDims |= dims;
      } else if (auto found = positional.find(value);
                 found != positional.end()) {
        DimMask dims = maskOf(found->second.extents);
        if (isShapeOperand(&op, index, DimMask(0))) {
          shapeDims |= dims;
        } else {
          positionDims |= dims;
          readsPositional = true;
        }
      }
    }
    if (valueDims) {
      visitSizeRead(&op, valueDims | positionDims);
      continue;
    }
    if (readsData) {
      // Past here AnalyzePadSafety follows the values. A part of a split
      // run reads the largest bucket's leading positions, the first
      // part's: exact where they hold the same values along the dim.
      DimMask splitDims = 0;
      for (Value operand : op.getOperands())
        if (auto found = positional.find(operand); found != positional.end())
          for (auto [extent, uniform] :
               llvm::zip(found->second.extents, found->second.uniform))
            if (!uniform)
              splitDims |= extent.dims();
      report(splitDims, &op,
             "reads a tensor shaped by the size of a dynamic dim that holds "
             "other values at each position along it (a run split into "
             "parts would read the first part's in every part)",
             /*splitOnly=*/true);
      for (Value result : op.getResults())
        fromInputs.insert(result);
      continue;
    }
    // Sizes that fold to constants (seq - seq) stay known as constants.
    if (readsSize && !shapeDims && !readsPositional && op.getNumResults() == 1)
      if (std::optional<Entries> entries = propagate(&op, sizes)) {
        sizes[op.getResult(0)] = std::move(*entries);
        continue;
      }
    if (readsPositional || shapeDims)
      visitPositional(&op, shapeDims);
  }
}

} // namespace

SizeUses findSizeUsesAsValues(func::FuncOp main) {
  SizeUseWalk walk(main);
  walk.run();
  return walk.takeUses();
}

std::optional<SizeUse> findBucketDependentConstant(ArrayRef<func::FuncOp> funcs,
                                                   StringRef dim) {
  // Two buckets whose sizes differ in `dim` only.
  auto sizesOf = [](func::FuncOp func) {
    return func->getAttrOfType<DictionaryAttr>(graph::kBucketAttr);
  };
  func::FuncOp first, second;
  for (size_t i = 0; i < funcs.size() && !second; ++i) {
    DictionaryAttr a = sizesOf(funcs[i]);
    if (!a || !a.get(dim))
      continue;
    for (size_t j = i + 1; j < funcs.size() && !second; ++j) {
      DictionaryAttr b = sizesOf(funcs[j]);
      if (!b || b.size() != a.size())
        continue;
      bool otherwiseEqual = true;
      for (NamedAttribute entry : a)
        if (entry.getName() != dim &&
            b.get(entry.getName()) != entry.getValue())
          otherwiseEqual = false;
      if (otherwiseEqual && b.get(dim) != a.get(dim)) {
        first = funcs[i];
        second = funcs[j];
      }
    }
  }
  if (!second)
    return std::nullopt;
  Block &one = first.getBody().front(), &two = second.getBody().front();
  if (one.getOperations().size() != two.getOperations().size())
    return std::nullopt;
  for (auto [a, b] : llvm::zip(one, two)) {
    if (a.getName() != b.getName())
      return std::nullopt;
    auto constantA = dyn_cast<graph::ConstantOp>(a);
    auto constantB = dyn_cast<graph::ConstantOp>(b);
    // A constant spanning the dim has another type in each bucket: it holds
    // per-position values (position ids, masks), not a size, and the walk
    // before bucketing checked that they lead with the unpadded run's.
    if (!constantA || constantA.getType() != constantB.getType() ||
        constantA.getValue() == constantB.getValue())
      continue;
    // The elements that differ are the sizes (a pad's leading pads may
    // stay while its trailing ones change).
    std::optional<SmallVector<int64_t>> valuesA =
        graph::getConstantInts(constantA.getValue());
    std::optional<SmallVector<int64_t>> valuesB =
        graph::getConstantInts(constantB.getValue());
    SmallVector<DimMask> entries;
    if (valuesA && valuesB && valuesA->size() == valuesB->size())
      for (auto [a, b] : llvm::zip(*valuesA, *valuesB))
        entries.push_back(a != b);
    else
      entries.assign(
          std::max<int64_t>(constantA.getValue().getNumElements(), 1), 1);
    for (OpOperand &use : constantA.getResult().getUses())
      if (!isShapeOperand(use.getOwner(), use.getOperandNumber(), entries))
        return SizeUse{nodeName(use.getOwner()),
                       "reads a constant that changes with the size of '" +
                           dim.str() +
                           "' (the size computed with), which "
                           "padding changes"};
  }
  return std::nullopt;
}

} // namespace graphc
