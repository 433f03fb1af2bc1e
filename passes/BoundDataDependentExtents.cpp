//===- BoundDataDependentExtents.cpp - plan dims the run decides ----------===//
//
// After bucketing, the only dims left dynamic are those the run decides:
// the results of data-dependent ops (NonZero, Compress, ...) and what is
// computed from them. This pass gives each such dim its compile-time bound
// (buffers are planned for it) and follows its run-time extent, an i64
// scalar the producing kernel writes, through the consumers that compute
// the corner of the bound correctly whatever the padding holds; a consumer
// that would read the padding as data is refused by name. The extents of
// the function's results go to a graph.output_extents before its return,
// which the runtime reads after a run; `graph.shape` of such a value is
// computed at run time from them. See docs/architecture.md, "Shapes that
// depend on data".
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"
#include "lib/Support/Axis.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_BOUNDDATADEPENDENTEXTENTS
#include "passes/Passes.h.inc"

namespace {

/// Per dim of a value: the i64 scalar holding its extent, or null where
/// the dim is static.
using Extents = SmallVector<Value>;

class ExtentPlanner {
public:
  explicit ExtentPlanner(func::FuncOp func) : func(func) {}
  LogicalResult run();

private:
  LogicalResult planProducer(graph::DataDependentExtentOpInterface op);
  LogicalResult foldProducer(Operation *op, int64_t bound);
  LogicalResult planConsumer(Operation *op);
  LogicalResult planShape(graph::ShapeOp op);
  LogicalResult planOutputs(func::ReturnOp ret);

  /// Result extents of `op` by the kind of consumer it is; failure (with
  /// the error emitted) where it would read the padding as data.
  FailureOr<SmallVector<Extents>> consumerExtents(Operation *op);
  FailureOr<Extents> pointwiseExtents(Operation *op);
  FailureOr<Extents> viewExtents(Operation *op);
  /// position < extent along each bounded dim of `value` (those of `dims`
  /// when given), broadcast to its rank; null where none is bounded.
  Value cornerMask(OpBuilder &builder, Location loc, Value value,
                   ArrayRef<int64_t> dims = {});
  /// `value` with zeros (false) past its corner.
  Value zerosPastCorner(OpBuilder &builder, Location loc, Value value);
  /// Extents of an op reducing (or normalising) `input` along `axes`; a
  /// bounded one is read through a mask that puts the op's identity past
  /// the extent (the corner alone counts). The others keep their extents,
  /// in place or (without `keepdims`) closing up.
  FailureOr<Extents> reducedExtents(Operation *op, Value input,
                                    ArrayRef<int64_t> axes, bool keepdims);

  /// Re-infers `op`'s result types from its (now bounded) operands.
  LogicalResult refineResults(Operation *op);

  bool isBounded(Value value) const { return extents.count(value); }
  /// "'Y' (from node 'N')": the value whose extent the run decides.
  std::string describe(Value value) const;
  LogicalResult refuse(Operation *op, Value operand, const Twine &why);
  Value constantI64(OpBuilder &builder, Location loc, int64_t value);
  Value multiply(OpBuilder &builder, Location loc, Value extent,
                 int64_t factor);

  /// One element of a shape vector the run computes: a constant, or an
  /// extent (an i64 scalar the run computes) and its bound.
  struct SymbolicDim {
    int64_t value; // the constant, or the extent's bound
    Value extent;  // null for a constant
  };
  using SymbolicShape = SmallVector<SymbolicDim>;

  /// The elements of `value`, an i64 vector or scalar, where they are
  /// constants or extents; nullopt otherwise.
  std::optional<SymbolicShape> symbolicOf(Value value);
  /// Records what `op` computes from symbolic shapes (gathers, concats,
  /// views of them; an extent times, plus, min or max a constant).
  void propagateSymbolic(Operation *op);
  /// An op whose result dims are the values of a shape the run computes:
  /// reshape, expand, constant_of_shape, range. Fails (with the error) where
  /// it cannot bound them; returns false when `op` is none of these or its
  /// shape is not symbolic.
  FailureOr<bool> planShapedBy(Operation *op);
  /// `extent` as an i64 scalar (a one-element vector is reshaped).
  Value scalarExtent(OpBuilder &builder, Location loc, Value extent);

  func::FuncOp func;
  llvm::DenseMap<Value, Extents> extents;
  llvm::DenseMap<Value, SymbolicShape> symbolic;
  /// The bound of every extent value.
  llvm::DenseMap<Value, int64_t> boundOf;
  /// Values whose users' types were inferred before the bounds were known:
  /// computed from extents (run-time shape arithmetic) or from a
  /// data-dependent op of constants computed here.
  llvm::DenseSet<Value> fromExtents;
};

std::string ExtentPlanner::describe(Value value) const {
  Operation *producer = value.getDefiningOp();
  std::string node = producer ? graph::firstNodeName(producer->getLoc()) : "";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "a value of type " << value.getType();
  auto found = extents.find(value);
  if (found != extents.end())
    for (Value extent : found->second)
      if (extent) {
        Operation *source = extent.getDefiningOp();
        std::string from = source ? graph::firstNodeName(source->getLoc()) : "";
        if (!from.empty()) {
          os << " whose extent node '" << from << "' decides at run time";
          return os.str();
        }
      }
  if (!node.empty())
    os << " (node '" << node << "')";
  os << " whose extent the run decides";
  return os.str();
}

LogicalResult ExtentPlanner::refuse(Operation *op, Value operand,
                                    const Twine &why) {
  // The diagnostic names the op's node already.
  return op->emitError() << op->getName() << " reads " << describe(operand)
                         << ": " << why;
}

Value ExtentPlanner::constantI64(OpBuilder &builder, Location loc,
                                 int64_t value) {
  auto type = RankedTensorType::get({}, builder.getI64Type());
  return builder.create<graph::ConstantOp>(
      loc, type, DenseElementsAttr::get(type, value));
}

Value ExtentPlanner::multiply(OpBuilder &builder, Location loc, Value extent,
                              int64_t factor) {
  if (factor == 1)
    return extent;
  Value product = builder.create<graph::MulOp>(
      loc, extent, constantI64(builder, loc, factor));
  fromExtents.insert(product);
  boundOf[product] = boundOf.lookup(extent) * factor;
  return product;
}

LogicalResult ExtentPlanner::refineResults(Operation *op) {
  auto infer = dyn_cast<InferTypeOpInterface>(op);
  if (!infer)
    return success();
  SmallVector<Type> inferred;
  if (failed(infer.inferReturnTypes(op->getContext(), op->getLoc(),
                                    op->getOperands(), op->getAttrDictionary(),
                                    op->getPropertiesStorage(),
                                    op->getRegions(), inferred)))
    return failure();
  for (auto [result, type] : llvm::zip(op->getResults(), inferred))
    result.setType(type);
  return success();
}

/// The bound-shaped results of `op` with every dynamic dim at `bound`.
static void setBoundTypes(Operation *op, int64_t bound) {
  for (Value result : op->getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<int64_t> shape(type.getShape());
    for (int64_t &dim : shape)
      if (ShapedType::isDynamic(dim))
        dim = bound;
    result.setType(type.clone(shape));
  }
}

/// A data-dependent op of constants is computed now: its results become
/// constants of the extents found (the corners of the bound-shaped ones).
LogicalResult ExtentPlanner::foldProducer(Operation *op, int64_t bound) {
  SmallVector<RankedTensorType> exact;
  for (Value result : op->getResults())
    exact.push_back(cast<RankedTensorType>(result.getType()));
  setBoundTypes(op, bound);
  OpBuilder builder(op);
  SmallVector<Value> folded;
  if (failed(builder.tryFold(op, folded)) || folded.size() != exact.size())
    return op->emitError() << op->getName()
                           << " of constants could not be computed";
  ElementsAttr countAttr;
  if (!matchPattern(folded.back(), m_Constant(&countAttr)))
    return op->emitError("computed no constant count");
  int64_t count = *countAttr.getValues<int64_t>().begin();
  for (auto [index, value] : llvm::enumerate(folded)) {
    ElementsAttr full;
    if (!matchPattern(value, m_Constant(&full)))
      return op->emitError("computed no constant result");
    auto boundType = cast<RankedTensorType>(full.getType());
    SmallVector<int64_t> shape(exact[index].getShape());
    for (int64_t &dim : shape)
      if (ShapedType::isDynamic(dim))
        dim = count;
    auto type = exact[index].clone(shape);
    // Element [c...] of the corner lies at [c...] of the bound dims.
    SmallVector<Attribute> all(full.getValues<Attribute>());
    SmallVector<Attribute> corner;
    SmallVector<int64_t> at(shape.size(), 0);
    for (int64_t n = type.getNumElements(); n > 0; --n) {
      int64_t linear = 0;
      for (size_t d = 0; d < shape.size(); ++d)
        linear = linear * boundType.getDimSize(d) + at[d];
      corner.push_back(all[linear]);
      for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
        if (++at[d] < shape[d])
          break;
        at[d] = 0;
      }
    }
    Value constant = builder.create<graph::ConstantOp>(
        op->getLoc(), type, DenseElementsAttr::get(type, corner));
    op->getResult(index).replaceAllUsesWith(constant);
    // Its users were inferred from the dynamic type.
    fromExtents.insert(constant);
  }
  op->erase();
  return success();
}

LogicalResult
ExtentPlanner::planProducer(graph::DataDependentExtentOpInterface op) {
  Operation *operation = op.getOperation();
  // A bounded input counts its corner only: NonZero's padding and
  // Compress's condition past its extent read as zeros (false). Compress
  // moves slices along its axis, so its input may be bounded there alone,
  // by the condition's own extent.
  OpBuilder builder(operation);
  for (OpOperand &use : operation->getOpOperands()) {
    Value operand = use.get();
    if (!isBounded(operand))
      continue;
    // NonMaxSuppression of boxes and scores the run sizes along the box
    // dim (by one extent): a NaN score is never a candidate, so the scores
    // past the extent become NaN and the padding boxes are never read.
    if (auto nms = dyn_cast<graph::NonMaxSuppressionOp>(operation)) {
      auto boxes = extents.find(nms.getBoxes());
      auto scores = extents.find(nms.getScores());
      auto only = [](const Extents &dims, size_t at) {
        return llvm::all_of(llvm::enumerate(dims), [&](auto dim) {
          return !dim.value() || dim.index() == at;
        });
      };
      Value boxCount = boxes == extents.end() ? Value() : boxes->second[1];
      Value scoreCount = scores == extents.end() ? Value() : scores->second[2];
      if (operand == nms.getBoxes() && only(boxes->second, 1) &&
          boxCount == scoreCount)
        continue;
      if (operand == nms.getScores() && only(scores->second, 2) &&
          (!boxCount || boxCount == scoreCount)) {
        auto type = cast<RankedTensorType>(operand.getType());
        auto scalarType = RankedTensorType::get({}, type.getElementType());
        Value nan = builder.create<graph::ConstantOp>(
            operation->getLoc(), scalarType,
            DenseElementsAttr::get(
                scalarType,
                APFloat::getNaN(
                    cast<FloatType>(type.getElementType()).getFloatSemantics())));
        use.set(builder.create<graph::WhereOp>(
            operation->getLoc(),
            cornerMask(builder, operation->getLoc(), operand), operand, nan));
        continue;
      }
    }
    auto compress = dyn_cast<graph::CompressOp>(operation);
    if (isa<graph::NonZeroOp>(operation) ||
        (compress && operand == compress.getCondition())) {
      use.set(zerosPastCorner(builder, operation->getLoc(), operand));
      continue;
    }
    if (compress && operand == compress.getInput() && compress.getAxis()) {
      const Extents &in = extents.find(operand)->second;
      auto condition = extents.find(compress.getCondition());
      int64_t axis = *normalizeAxis(*compress.getAxis(), in.size());
      bool alongAxisOnly = llvm::all_of(llvm::enumerate(in), [&](auto dim) {
        return !dim.value() || static_cast<int64_t>(dim.index()) == axis;
      });
      if (alongAxisOnly && condition != extents.end() &&
          condition->second.front() == in[axis])
        continue;
    }
    return refuse(operation, operand,
                  "graphc cannot yet bound a data-dependent op whose input "
                  "is itself sized by the run this way");
  }
  FailureOr<int64_t> bound = op.getExtentBound();
  if (failed(bound))
    return failure();
  if (failed(refineResults(operation)))
    return failure();
  if (llvm::all_of(operation->getOperands(), [](Value operand) {
        return matchPattern(operand, m_Constant());
      }))
    return foldProducer(operation, *bound);
  Value count = operation->getResults().back();
  boundOf[count] = *bound;
  for (Value result : operation->getResults().drop_back()) {
    auto type = cast<RankedTensorType>(result.getType());
    Extents dims(type.getRank());
    SmallVector<int64_t> shape(type.getShape());
    bool any = false;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d)) {
        shape[d] = *bound;
        dims[d] = count;
        any = true;
      }
    if (!any)
      continue;
    result.setType(type.clone(shape));
    extents[result] = std::move(dims);
  }
  return success();
}

FailureOr<Extents> ExtentPlanner::pointwiseExtents(Operation *op) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = resultType.getRank();
  Extents dims(rank);
  SmallVector<Value> sourceOf(rank);
  for (Value operand : op->getOperands()) {
    auto type = cast<RankedTensorType>(operand.getType());
    auto found = extents.find(operand);
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t at = d + rank - type.getRank();
      Value extent = found == extents.end() ? Value() : found->second[d];
      if (!extent) {
        if (type.getDimSize(d) == 1)
          continue;
        // A static dim against one the run sizes: equal only by chance.
        for (Value other : op->getOperands())
          if (auto it = extents.find(other); it != extents.end()) {
            auto otherType = cast<RankedTensorType>(other.getType());
            int64_t od = at - (rank - otherType.getRank());
            if (od >= 0 && it->second[od])
              return refuse(op, other,
                            "its dim " + Twine(od) +
                                " is combined with a static dim of " +
                                Twine(type.getDimSize(d)) +
                                " elements, which it matches only when the "
                                "run finds exactly that many");
          }
        continue;
      }
      if (dims[at] && dims[at] != extent)
        return refuse(op, operand,
                      "it is combined with another value whose extent a "
                      "different node decides along dim " +
                          Twine(at));
      dims[at] = extent;
    }
  }
  return dims;
}

/// Views and copies that keep elements in order: reshape, flatten,
/// squeeze, unsqueeze, identity. Walks the operand's and result's dims
/// in groups of equal products. A group holding a dim the run sizes keeps
/// the corner in place when that dim is the group's first that is not 1:
/// the group's result dim that is not 1 has the extent times the product
/// of the static dims after it.
FailureOr<Extents> ExtentPlanner::viewExtents(Operation *op) {
  Value input = op->getOperand(0);
  const Extents &in = extents.find(input)->second;
  ArrayRef<int64_t> from = cast<RankedTensorType>(input.getType()).getShape();
  ArrayRef<int64_t> to =
      cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  Extents dims(to.size());
  size_t i = 0, j = 0;
  OpBuilder builder(op);
  while (i < from.size() || j < to.size()) {
    // One group: the shortest runs of dims from i and from j whose
    // products match (a trailing run of 1s joins the last group).
    size_t i0 = i, j0 = j;
    int64_t left = 1, right = 1;
    if (i < from.size())
      left *= from[i++];
    if (j < to.size())
      right *= to[j++];
    while (left != right) {
      if (left < right && i < from.size())
        left *= from[i++];
      else if (j < to.size())
        right *= to[j++];
      else if (i < from.size())
        left *= from[i++];
      else
        break;
    }
    Value extent;
    int64_t bounded = -1;
    for (size_t k = i0; k < i; ++k)
      if (in[k]) {
        if (extent)
          return refuse(op, input,
                        "two of its dims that the run sizes would merge");
        extent = in[k];
        bounded = k;
      }
    if (!extent)
      continue;
    for (size_t k = i0; k < static_cast<size_t>(bounded); ++k)
      if (from[k] != 1)
        return refuse(op, input,
                      "merging dim " + Twine(bounded) +
                          ", which the run sizes, into static dims before it "
                          "would interleave the padding with the data");
    int64_t after = 1;
    for (size_t k = bounded + 1; k < i; ++k)
      after *= from[k];
    // The group's result dims: 1s, one dim of extent * after, then the
    // static dims that `after` splits into.
    size_t target = j0;
    while (target < j && to[target] == 1 && from[bounded] != 1)
      ++target;
    int64_t rest = 1;
    for (size_t k = target + 1; k < j; ++k)
      rest *= to[k];
    if (target == j || after % rest != 0)
      return refuse(op, input,
                    "splitting dim " + Twine(bounded) +
                        ", which the run sizes, would cut the data at the "
                        "bound instead of the extent");
    dims[target] = multiply(builder, op->getLoc(), extent, after / rest);
  }
  return dims;
}

/// What a reduction `op` leaves unchanged (its identity), as a scalar of
/// `element`: what padding is masked with so that it reads the corner only.
/// Null where the op has none graphc masks with (reduce_mean divides by the
/// count it reads).
static Attribute reductionIdentity(Operation *op, Type element) {
  enum { Zero, One, Lowest, Highest, None } kind =
      llvm::TypeSwitch<Operation *, decltype(Zero)>(op)
          .Case<graph::ReduceSumOp, graph::ReduceSumSquareOp, graph::ReduceL1Op,
                graph::ReduceL2Op, graph::ReduceLogSumOp>(
              [](Operation *) { return Zero; })
          .Case<graph::ReduceProdOp>([](Operation *) { return One; })
          .Case<graph::ReduceMaxOp, graph::ArgMaxOp, graph::ReduceLogSumExpOp,
                graph::SoftmaxOp, graph::LogSoftmaxOp, graph::HardmaxOp>(
              [](Operation *) { return Lowest; })
          .Case<graph::ReduceMinOp, graph::ArgMinOp>(
              [](Operation *) { return Highest; })
          .Default([](Operation *) { return None; });
  if (kind == None)
    return {};
  auto type = RankedTensorType::get({}, element);
  if (auto floatType = dyn_cast<FloatType>(element)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    APFloat value = kind == Zero   ? APFloat::getZero(semantics)
                    : kind == One  ? APFloat::getOne(semantics)
                    : kind == Lowest ? APFloat::getInf(semantics, true)
                                     : APFloat::getInf(semantics, false);
    return DenseElementsAttr::get(type, value);
  }
  auto intType = dyn_cast<IntegerType>(element);
  if (!intType)
    return {};
  unsigned width = intType.getWidth();
  bool isSigned = !intType.isUnsigned() && width > 1;
  APInt value = kind == Zero  ? APInt(width, 0)
                : kind == One ? APInt(width, 1)
                : kind == Lowest
                    ? (isSigned ? APInt::getSignedMinValue(width)
                                : APInt::getMinValue(width))
                    : (isSigned ? APInt::getSignedMaxValue(width)
                                : APInt::getMaxValue(width));
  return DenseElementsAttr::get(type, value);
}

Value ExtentPlanner::cornerMask(OpBuilder &builder, Location loc, Value value,
                                ArrayRef<int64_t> dims) {
  const Extents &in = extents.find(value)->second;
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  Value mask;
  for (int64_t d = 0; d < rank; ++d) {
    if (!in[d] || (!dims.empty() && !llvm::is_contained(dims, d)))
      continue;
    // position < extent along d, broadcast along the other dims.
    int64_t bound = type.getDimSize(d);
    SmallVector<int64_t> shape(rank, 1);
    shape[d] = bound;
    auto positionsType = RankedTensorType::get(shape, builder.getI64Type());
    Value positions = builder.create<graph::ConstantOp>(
        loc, positionsType,
        DenseElementsAttr::get(positionsType,
                               ArrayRef<int64_t>(llvm::to_vector(
                                   llvm::seq<int64_t>(0, bound)))));
    Value inside = builder.create<graph::LessOp>(loc, positions, in[d]);
    mask = mask ? builder.create<graph::AndOp>(loc, mask, inside).getResult()
                : inside;
  }
  return mask;
}

Value ExtentPlanner::zerosPastCorner(OpBuilder &builder, Location loc,
                                     Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  Attribute zero = builder.getZeroAttr(scalarType);
  Value fill = builder.create<graph::ConstantOp>(loc, scalarType,
                                                 cast<ElementsAttr>(zero));
  return builder.create<graph::WhereOp>(loc, cornerMask(builder, loc, value),
                                        value, fill);
}

FailureOr<Extents> ExtentPlanner::reducedExtents(Operation *op, Value input,
                                                 ArrayRef<int64_t> axes,
                                                 bool keepdims) {
  const Extents in = extents.find(input)->second;
  int64_t rank = in.size();
  auto inType = cast<RankedTensorType>(input.getType());
  SmallVector<bool> reduced(rank, false);
  Value mask;
  OpBuilder builder(op);
  Location loc = op->getLoc();
  SmallVector<int64_t> maskedDims;
  for (int64_t axis : axes) {
    std::optional<int64_t> normalized = normalizeAxis(axis, rank);
    if (!normalized)
      return op->emitError("axis ") << axis << " is out of range";
    int64_t d = *normalized;
    reduced[d] = true;
    if (in[d])
      maskedDims.push_back(d);
  }
  if (!maskedDims.empty())
    mask = cornerMask(builder, loc, input, maskedDims);
  if (mask) {
    Attribute identity = reductionIdentity(op, inType.getElementType());
    if (!identity)
      return refuse(op, input,
                    "graphc cannot yet compute this op over a dim the run "
                    "sizes");
    Value fill = builder.create<graph::ConstantOp>(
        loc, cast<TypedAttr>(identity).getType(), cast<ElementsAttr>(identity));
    Value masked = builder.create<graph::WhereOp>(loc, mask, input, fill);
    op->setOperand(0, masked);
  }
  // Softmax-likes normalise along their axis: every dim stays as it was.
  if (isa<graph::SoftmaxOp, graph::LogSoftmaxOp, graph::HardmaxOp>(op))
    return in;
  Extents dims;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[d] || keepdims)
      dims.push_back(reduced[d] ? Value() : in[d]);
  return dims;
}

FailureOr<SmallVector<Extents>> ExtentPlanner::consumerExtents(Operation *op) {
  auto one = [](FailureOr<Extents> dims) -> FailureOr<SmallVector<Extents>> {
    if (failed(dims))
      return failure();
    return SmallVector<Extents>{std::move(*dims)};
  };
  // Operands other than `data` that the run sizes: the op would take them
  // for a shape, an index list or a parameter.
  auto onlyData = [&](ValueRange data) -> LogicalResult {
    for (Value operand : op->getOperands())
      if (isBounded(operand) && !llvm::is_contained(data, operand))
        return refuse(op, operand,
                      "graphc cannot yet take such a value as this operand");
    return success();
  };
  if (op->hasTrait<graph::OpTrait::Pointwise>())
    return one(pointwiseExtents(op));
  return llvm::TypeSwitch<Operation *, FailureOr<SmallVector<Extents>>>(op)
      .Case<graph::ReshapeOp, graph::FlattenOp, graph::SqueezeOp,
            graph::UnsqueezeOp, graph::IdentityOp>(
          [&](Operation *) -> FailureOr<SmallVector<Extents>> {
            if (failed(onlyData(op->getOperand(0))))
              return failure();
            return one(viewExtents(op));
          })
      .Case<graph::ReduceSumOp, graph::ReduceMeanOp, graph::ReduceMaxOp,
            graph::ReduceMinOp, graph::ReduceProdOp, graph::ReduceL1Op,
            graph::ReduceL2Op, graph::ReduceLogSumOp, graph::ReduceLogSumExpOp,
            graph::ReduceSumSquareOp>(
          [&](auto reduce) -> FailureOr<SmallVector<Extents>> {
            if (failed(onlyData(reduce.getData())))
              return failure();
            int64_t rank =
                cast<RankedTensorType>(reduce.getData().getType()).getRank();
            SmallVector<int64_t> axes;
            if (Value given = reduce.getAxes()) {
              std::optional<SmallVector<int64_t>> constant =
                  graph::getConstantInts(given);
              if (!constant)
                return refuse(op, reduce.getData(),
                              "its axes must be known at compile time");
              axes = *constant;
            }
            // No axes: all of them, unless the op is then a no-op.
            if (axes.empty() && !reduce.getNoopWithEmptyAxes())
              for (int64_t d = 0; d < rank; ++d)
                axes.push_back(d);
            return one(reducedExtents(op, reduce.getData(), axes,
                                      reduce.getKeepdims() != 0));
          })
      .Case<graph::ArgMaxOp, graph::ArgMinOp>(
          [&](auto reduce) -> FailureOr<SmallVector<Extents>> {
            int64_t axis = static_cast<int64_t>(reduce.getAxis());
            return one(reducedExtents(op, reduce.getData(), {axis},
                                      reduce.getKeepdims() != 0));
          })
      .Case<graph::SoftmaxOp, graph::LogSoftmaxOp, graph::HardmaxOp>(
          [&](auto normalize) -> FailureOr<SmallVector<Extents>> {
            int64_t axis = static_cast<int64_t>(normalize.getAxis());
            return one(reducedExtents(op, normalize.getInput(), {axis},
                                      /*keepdims=*/true));
          })
      .Case([&](graph::MatMulOp matmul) -> FailureOr<SmallVector<Extents>> {
        // Rows of A the run sizes (or its batch dims) are rows of the
        // product; a bounded contraction dim, or any of B's, would sum or
        // broadcast the padding.
        if (isBounded(matmul.getB()))
          return refuse(op, matmul.getB(),
                        "graphc cannot yet multiply by a matrix whose extent "
                        "the run decides");
        const Extents &a = extents.find(matmul.getA())->second;
        if (a.size() < 2 || a.back())
          return refuse(op, matmul.getA(),
                        "its contracted dim is the one the run sizes");
        auto resultType = cast<RankedTensorType>(matmul.getType());
        Extents dims(resultType.getRank());
        // A's rows land on the result's second to last dim, or on its last
        // when B is a vector.
        int64_t shift = resultType.getRank() - static_cast<int64_t>(a.size());
        if (cast<RankedTensorType>(matmul.getB().getType()).getRank() == 1)
          ++shift;
        for (size_t d = 0; d + 1 < a.size(); ++d)
          dims[d + shift] = a[d];
        return one(dims);
      })
      .Case([&](graph::EmptyIfOp emptyIf) -> FailureOr<SmallVector<Extents>> {
        // The value with extent `condition ? 0 : extent` along `dims`: a
        // view of it carries the new extents.
        if (isBounded(emptyIf.getCondition()))
          return refuse(op, emptyIf.getCondition(),
                        "its condition must have one element");
        Extents dims = extents.find(emptyIf.getValue())->second;
        OpBuilder builder(op);
        Location loc = op->getLoc();
        Value zero = constantI64(builder, loc, 0);
        for (int64_t d : emptyIf.getDims()) {
          if (!dims[d])
            return refuse(op, emptyIf.getValue(),
                          "its dim " + Twine(d) + " is static, so it cannot "
                          "become empty at run time");
          Value chosen = builder.create<graph::WhereOp>(
              loc, emptyIf.getCondition(), zero, dims[d]);
          fromExtents.insert(chosen);
          boundOf[chosen] = boundOf.lookup(dims[d]);
          dims[d] = chosen;
        }
        return one(dims);
      })
      .Case([&](graph::SplitOp split) -> FailureOr<SmallVector<Extents>> {
        // Parts along a static dim each keep the input's other extents.
        if (failed(onlyData(split.getInput())))
          return failure();
        const Extents &in = extents.find(split.getInput())->second;
        int64_t rank = in.size();
        int64_t axis = split.getAxis() < 0 ? split.getAxis() + rank
                                           : split.getAxis();
        if (axis < 0 || axis >= rank || in[axis])
          return refuse(op, split.getInput(),
                        "graphc cannot yet split along a dim the run sizes");
        return SmallVector<Extents>(op->getNumResults(), in);
      })
      .Case([&](graph::GatherNdOp gather) -> FailureOr<SmallVector<Extents>> {
        // x[nonzero(mask)]: the indices' leading dims, which the run may
        // size, lead the result; the data must be static where the
        // indices point (they are checked against its static extents).
        auto dataType = cast<RankedTensorType>(gather.getData().getType());
        auto indicesType =
            cast<RankedTensorType>(gather.getIndices().getType());
        int64_t batch = static_cast<int64_t>(gather.getBatchDims());
        int64_t depth = indicesType.getDimSize(indicesType.getRank() - 1);
        Extents data(dataType.getRank()), indices(indicesType.getRank());
        if (auto it = extents.find(gather.getData()); it != extents.end())
          data = it->second;
        if (auto it = extents.find(gather.getIndices()); it != extents.end())
          indices = it->second;
        if (indices.back())
          return refuse(op, gather.getIndices(),
                        "its last dim, the index depth, is sized by the run");
        for (int64_t d = 0; d < batch + depth && d < dataType.getRank(); ++d)
          if (data[d])
            return refuse(op, gather.getData(),
                          "graphc cannot yet check gather_nd indices against "
                          "an extent the run decides (dim " +
                              Twine(d) + ")");
        for (int64_t d = 0; d < batch; ++d)
          if (indices[d])
            return refuse(op, gather.getIndices(),
                          "its batch dims are sized by the run");
        Extents dims(indices.begin(), indices.end() - 1);
        dims.append(data.begin() + std::min<int64_t>(batch + depth,
                                                     data.size()),
                    data.end());
        return one(dims);
      })
      .Case([&](graph::TransposeOp transpose)
                -> FailureOr<SmallVector<Extents>> {
        const Extents &in = extents.find(transpose.getData())->second;
        Extents dims(in.size());
        for (size_t d = 0; d < in.size(); ++d) {
          int64_t from = transpose.getPerm()
                             ? (*transpose.getPerm())[d]
                             : static_cast<int64_t>(in.size() - 1 - d);
          dims[d] = in[from];
        }
        return one(dims);
      })
      .Case([&](graph::GatherOp gather) -> FailureOr<SmallVector<Extents>> {
        auto dataType = cast<RankedTensorType>(gather.getData().getType());
        auto indicesType =
            cast<RankedTensorType>(gather.getIndices().getType());
        int64_t axis = gather.getAxis() < 0
                           ? gather.getAxis() + dataType.getRank()
                           : gather.getAxis();
        Extents data(dataType.getRank()), indices(indicesType.getRank());
        if (auto it = extents.find(gather.getData()); it != extents.end())
          data = it->second;
        if (auto it = extents.find(gather.getIndices()); it != extents.end())
          indices = it->second;
        if (data[axis]) {
          // Indices count from the extent (a negative one from its end) and
          // must lie inside it. The kernel checks them against the bound,
          // so each is made relative to the extent first, and one outside
          // it becomes the bound, which the kernel refuses naming the node.
          OpBuilder builder(op);
          Location loc = op->getLoc();
          Value index = gather.getIndices();
          Type element = getElementTypeOrSelf(index.getType());
          auto scalar = [&](int64_t v) -> Value {
            auto type = RankedTensorType::get({}, element);
            return builder.create<graph::ConstantOp>(
                loc, type,
                DenseElementsAttr::get(type, APInt(element.getIntOrFloatBitWidth(),
                                                   v, /*isSigned=*/true)));
          };
          Value extent = data[axis];
          if (element != builder.getI64Type())
            extent = builder.create<graph::CastOp>(
                loc, RankedTensorType::get({}, element), extent,
                TypeAttr::get(element), builder.getI64IntegerAttr(1));
          Value negative = builder.create<graph::LessOp>(loc, index, scalar(0));
          Value fromEnd = builder.create<graph::AddOp>(loc, index, extent);
          Value relative =
              builder.create<graph::WhereOp>(loc, negative, fromEnd, index);
          Value low = builder.create<graph::LessOp>(loc, relative, scalar(0));
          Value high = builder.create<graph::LessOp>(loc, relative, extent);
          Value notLow = builder.create<graph::NotOp>(loc, low);
          Value inside = builder.create<graph::AndOp>(loc, notLow, high);
          // Indices past their own corner (sized by the run too) are
          // padding: read, never checked.
          if (isBounded(index)) {
            Value padding = builder.create<graph::NotOp>(
                loc, cornerMask(builder, loc, index));
            fromExtents.insert(padding);
            inside = builder.create<graph::OrOp>(loc, inside, padding);
          }
          Value checked = builder.create<graph::WhereOp>(
              loc, inside, relative, scalar(dataType.getDimSize(axis)));
          gather->setOperand(1, checked);
          for (Value made : {negative, fromEnd, relative, low, high, notLow,
                             inside, checked})
            fromExtents.insert(made);
          // The checked indices are sized like the indices.
          if (isBounded(index))
            extents[checked] = extents.find(index)->second;
        }
        Extents dims(data.begin(), data.begin() + axis);
        dims.append(indices.begin(), indices.end());
        dims.append(data.begin() + axis + 1, data.end());
        return one(dims);
      })
      .Case([&](graph::ConcatOp concat) -> FailureOr<SmallVector<Extents>> {
        auto type = cast<RankedTensorType>(concat.getType());
        int64_t axis = concat.getAxis() < 0 ? concat.getAxis() + type.getRank()
                                            : concat.getAxis();
        // Every part must have the same extents off the axis.
        auto partExtents = [&](Value input) {
          auto it = extents.find(input);
          return it == extents.end() ? Extents(type.getRank()) : it->second;
        };
        Extents dims = partExtents(concat.getInputs().front());
        for (Value input : concat.getInputs()) {
          Extents part = partExtents(input);
          if (part[axis])
            return refuse(op, input,
                          "concatenating along its dim that the run sizes "
                          "would leave padding between the parts");
          if (part != dims)
            return refuse(op, input,
                          "its parts differ in which dims the run sizes");
        }
        return one(dims);
      })
      .Case([&](graph::SliceOp slice) -> FailureOr<SmallVector<Extents>> {
        if (failed(onlyData(slice.getData())))
          return failure();
        Extents dims = extents.find(slice.getData())->second;
        auto inType = cast<RankedTensorType>(slice.getData().getType());
        int64_t rank = inType.getRank();
        auto starts = graph::getConstantInts(slice.getStarts());
        auto ends = graph::getConstantInts(slice.getEnds());
        std::optional<SmallVector<int64_t>> axes, steps;
        if (slice.getAxes())
          axes = graph::getConstantInts(slice.getAxes());
        else if (starts)
          axes = llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
        if (slice.getSteps())
          steps = graph::getConstantInts(slice.getSteps());
        if (!starts || !ends || !axes || (slice.getSteps() && !steps))
          return refuse(op, slice.getData(),
                        "its starts, ends, axes and steps must be known at "
                        "compile time");
        OpBuilder builder(op);
        Location loc = op->getLoc();
        for (auto [k, axis] : llvm::enumerate(*axes)) {
          int64_t d = axis < 0 ? axis + rank : axis;
          if (d < 0 || d >= rank || !dims[d])
            continue;
          // x[s:e] along a dim of extent n: the kernel copies from s, so
          // the corner stays in place for s >= 0; its extent is
          // max(min(n, e) - s, 0), e counted from n where negative.
          int64_t start = (*starts)[k], end = (*ends)[k];
          if ((steps && (*steps)[k] != 1) || start < 0)
            return refuse(op, slice.getData(),
                          "graphc can slice along dim " + Twine(d) +
                              ", which the run sizes, only from a start >= 0 "
                              "by steps of 1");
          Value n = dims[d];
          // x[0:e] with e past the bound keeps every element: the extent.
          if (start == 0 && end >= inType.getDimSize(d))
            continue;
          Value last =
              end >= 0 ? builder
                             .create<graph::MinOp>(
                                 loc,
                                 ValueRange{n, constantI64(builder, loc, end)})
                             .getResult()
                       : builder
                             .create<graph::AddOp>(
                                 loc, n, constantI64(builder, loc, end))
                             .getResult();
          Value length = builder.create<graph::SubOp>(
              loc, last, constantI64(builder, loc, start));
          Value extent =
              builder
                  .create<graph::MaxOp>(
                      loc, ValueRange{length, constantI64(builder, loc, 0)})
                  .getResult();
          for (Value made : {last, length, extent})
            fromExtents.insert(made);
          boundOf[extent] = cast<RankedTensorType>(slice.getType())
                                .getDimSize(d);
          dims[d] = extent;
        }
        return one(dims);
      })
      .Case([&](graph::GemmOp gemm) -> FailureOr<SmallVector<Extents>> {
        // Rows of A the run sizes are rows of the product.
        if (isBounded(gemm.getB()) ||
            (gemm.getC() && isBounded(gemm.getC())))
          return refuse(op, isBounded(gemm.getB()) ? gemm.getB() : gemm.getC(),
                        "graphc cannot yet take such a value as this operand "
                        "of a Gemm");
        const Extents &a = extents.find(gemm.getA())->second;
        if (a[gemm.getTransA() ? 0 : 1])
          return refuse(op, gemm.getA(),
                        "its contracted dim is the one the run sizes");
        Extents dims(2);
        dims[0] = a[gemm.getTransA() ? 1 : 0];
        return one(dims);
      })
      .Default([&](Operation *) -> FailureOr<SmallVector<Extents>> {
        for (Value operand : op->getOperands())
          if (isBounded(operand))
            return refuse(op, operand,
                          "graphc cannot yet compute this op over a dim "
                          "whose extent the run decides");
        return SmallVector<Extents>();
      });
}

LogicalResult ExtentPlanner::planConsumer(Operation *op) {
  // The result types first (what a view or gather computes on the bound),
  // then which of their dims the run sizes.
  if (failed(refineResults(op)))
    return failure();
  FailureOr<SmallVector<Extents>> results = consumerExtents(op);
  if (failed(results))
    return failure();
  SmallVector<Extents> found = *results;
  // graph.empty_if is a view of its value from here on.
  if (auto emptyIf = dyn_cast<graph::EmptyIfOp>(op)) {
    OpBuilder builder(op);
    Value view = builder.create<graph::IdentityOp>(op->getLoc(),
                                                   emptyIf.getValue());
    emptyIf.getResult().replaceAllUsesWith(view);
    op->erase();
    op = view.getDefiningOp();
  }
  for (auto [result, dims] : llvm::zip(op->getResults(), found))
    if (llvm::any_of(dims, [](Value extent) { return extent; }))
      extents[result] = dims;
  return success();
}

/// `graph.shape` of a value the run sizes: the static dims as constants and
/// the others read from their extents, concatenated at run time.
LogicalResult ExtentPlanner::planShape(graph::ShapeOp op) {
  const Extents &dims = extents.find(op.getData())->second;
  auto type = cast<RankedTensorType>(op.getData().getType());
  int64_t rank = type.getRank();
  // ONNX Shape's start and end: negative counts from the back, both clamp.
  auto clampIndex = [&](int64_t index) {
    return std::clamp<int64_t>(index < 0 ? index + rank : index, 0, rank);
  };
  int64_t start = clampIndex(static_cast<int64_t>(op.getStart()));
  int64_t end = rank;
  if (std::optional<uint64_t> given = op.getEnd())
    end = clampIndex(static_cast<int64_t>(*given));
  OpBuilder builder(op);
  Location loc = op.getLoc();
  auto vectorType = RankedTensorType::get({1}, builder.getI64Type());
  Value one = builder.create<graph::ConstantOp>(
      loc, RankedTensorType::get({1}, builder.getI64Type()),
      DenseElementsAttr::get(vectorType, int64_t(1)));
  SmallVector<Value> parts;
  for (int64_t d = start; d < end; ++d)
    parts.push_back(
        dims[d] ? builder.create<graph::ReshapeOp>(loc, vectorType, dims[d], one)
                      .getResult()
                : builder.create<graph::ConstantOp>(
                      loc, vectorType,
                      DenseElementsAttr::get(vectorType, type.getDimSize(d))));
  Value shape;
  if (parts.empty())
    shape = builder.create<graph::ConstantOp>(
        loc, RankedTensorType::get({0}, builder.getI64Type()),
        DenseElementsAttr::get(RankedTensorType::get({0}, builder.getI64Type()),
                               ArrayRef<int64_t>()));
  else
    shape = parts.size() == 1
                ? parts.front()
                : builder.create<graph::ConcatOp>(loc, parts, 0).getResult();
  fromExtents.insert(shape);
  SymbolicShape entries;
  for (int64_t d = start; d < end; ++d)
    entries.push_back(dims[d] ? SymbolicDim{boundOf.lookup(dims[d]), dims[d]}
                              : SymbolicDim{type.getDimSize(d), Value()});
  symbolic[shape] = std::move(entries);
  op.getResult().replaceAllUsesWith(shape);
  op.erase();
  return success();
}

Value ExtentPlanner::scalarExtent(OpBuilder &builder, Location loc,
                                  Value extent) {
  auto type = cast<RankedTensorType>(extent.getType());
  if (type.getRank() == 0)
    return extent;
  auto scalarType = RankedTensorType::get({}, builder.getI64Type());
  auto emptyType = RankedTensorType::get({0}, builder.getI64Type());
  Value shape = builder.create<graph::ConstantOp>(
      loc, emptyType, DenseElementsAttr::get(emptyType, ArrayRef<int64_t>()));
  Value scalar =
      builder.create<graph::ReshapeOp>(loc, scalarType, extent, shape);
  fromExtents.insert(scalar);
  boundOf[scalar] = boundOf.lookup(extent);
  return scalar;
}

std::optional<ExtentPlanner::SymbolicShape>
ExtentPlanner::symbolicOf(Value value) {
  if (auto found = symbolic.find(value); found != symbolic.end())
    return found->second;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() > 1 || !type.getElementType().isInteger(64))
    return std::nullopt;
  std::optional<SmallVector<int64_t>> constant = graph::getConstantInts(value);
  if (!constant)
    return std::nullopt;
  SymbolicShape entries;
  for (int64_t element : *constant)
    entries.push_back({element, Value()});
  return entries;
}

void ExtentPlanner::propagateSymbolic(Operation *op) {
  if (op->getNumResults() != 1)
    return;
  Value result = op->getResult(0);
  auto type = dyn_cast<RankedTensorType>(result.getType());
  if (!type || type.getRank() > 1 || !type.getElementType().isInteger(64) ||
      !type.hasStaticShape())
    return;
  auto record = [&](SymbolicShape entries) {
    if (static_cast<int64_t>(entries.size()) == type.getNumElements() &&
        llvm::any_of(entries, [](const SymbolicDim &e) { return e.extent; }))
      symbolic[result] = std::move(entries);
  };
  llvm::TypeSwitch<Operation *>(op)
      .Case<graph::ReshapeOp, graph::SqueezeOp, graph::UnsqueezeOp,
            graph::IdentityOp, graph::FlattenOp>([&](Operation *) {
        if (std::optional<SymbolicShape> in = symbolicOf(op->getOperand(0)))
          record(*in);
      })
      .Case([&](graph::CastOp cast) {
        if (std::optional<SymbolicShape> in = symbolicOf(cast.getInput()))
          record(*in);
      })
      .Case([&](graph::GatherOp gather) {
        std::optional<SymbolicShape> data = symbolicOf(gather.getData());
        std::optional<SmallVector<int64_t>> indices =
            graph::getConstantInts(gather.getIndices());
        if (!data || !indices)
          return;
        SymbolicShape entries;
        for (int64_t index : *indices) {
          int64_t at = index < 0 ? index + data->size() : index;
          if (at < 0 || at >= static_cast<int64_t>(data->size()))
            return;
          entries.push_back((*data)[at]);
        }
        record(entries);
      })
      .Case([&](graph::ConcatOp concat) {
        SymbolicShape entries;
        for (Value input : concat.getInputs()) {
          std::optional<SymbolicShape> part = symbolicOf(input);
          if (!part)
            return;
          entries.append(part->begin(), part->end());
        }
        record(entries);
      })
      .Case([&](graph::SliceOp slice) {
        std::optional<SymbolicShape> data = symbolicOf(slice.getData());
        auto starts = graph::getConstantInts(slice.getStarts());
        auto ends = graph::getConstantInts(slice.getEnds());
        if (!data || !starts || !ends || starts->size() != 1 ||
            ends->size() != 1 || slice.getSteps())
          return;
        int64_t n = data->size();
        auto clampIndex = [&](int64_t i) {
          return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n);
        };
        int64_t from = clampIndex(starts->front()), to = clampIndex(ends->front());
        record(SymbolicShape(data->begin() + from,
                             data->begin() + std::max(from, to)));
      })
      .Case<graph::MulOp, graph::AddOp, graph::MinOp, graph::MaxOp>(
          [&](Operation *) {
            // One extent and non-negative constants: its bound follows.
            if (type.getNumElements() != 1)
              return;
            Value extent;
            int64_t bound = 0;
            SmallVector<int64_t> constants;
            for (Value operand : op->getOperands()) {
              std::optional<SymbolicShape> in = symbolicOf(operand);
              if (!in || in->size() != 1)
                return;
              if (in->front().extent) {
                if (extent)
                  return;
                extent = in->front().extent;
                bound = in->front().value;
              } else if (in->front().value < 0) {
                return;
              } else {
                constants.push_back(in->front().value);
              }
            }
            if (!extent)
              return;
            for (int64_t c : constants) {
              if (isa<graph::MulOp>(op))
                bound *= c;
              else if (isa<graph::AddOp>(op))
                bound += c;
              else if (isa<graph::MinOp>(op))
                bound = std::min(bound, c);
              else
                bound = std::max(bound, c);
            }
            boundOf[result] = bound;
            record({{bound, result}});
          });
}

FailureOr<bool> ExtentPlanner::planShapedBy(Operation *op) {
  auto shapeOperand = [&]() -> Value {
    return llvm::TypeSwitch<Operation *, Value>(op)
        .Case([](graph::ReshapeOp reshape) { return reshape.getShape(); })
        .Case([](graph::ExpandOp expand) { return expand.getShape(); })
        .Case([](graph::ConstantOfShapeOp fill) { return fill.getInput(); })
        .Case([](graph::RangeOp range) { return range.getLimit(); })
        .Default([](Operation *) { return Value(); });
  }();
  if (!shapeOperand)
    return false;
  std::optional<SymbolicShape> shape = symbolicOf(shapeOperand);
  if (!shape || llvm::none_of(*shape, [](const SymbolicDim &entry) {
        return entry.extent;
      }))
    return false;
  OpBuilder builder(op);
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  auto resultType = cast<RankedTensorType>(result.getType());
  auto fail = [&](const Twine &why) -> FailureOr<bool> {
    return op->emitError() << op->getName() << ": " << why;
  };
  SmallVector<int64_t> bounds;
  Extents dims;
  for (const SymbolicDim &entry : *shape) {
    if (!entry.extent && entry.value < 0)
      return fail("a shape the run computes may not hold " +
                  Twine(entry.value) + " here");
    bounds.push_back(entry.value);
    dims.push_back(entry.extent ? scalarExtent(builder, loc, entry.extent)
                                : Value());
  }
  if (auto range = dyn_cast<graph::RangeOp>(op)) {
    // torch.arange(n): from 0 by 1 up to an extent.
    std::optional<double> start = graph::getScalarConstant(range.getStart());
    std::optional<double> delta = graph::getScalarConstant(range.getDelta());
    if (shape->size() != 1 || !start || !delta || *start != 0 || *delta != 1)
      return fail("graphc can bound a range the run sizes only from 0 by 1");
    result.setType(resultType.clone({bounds.front()}));
    extents[result] = dims;
    return true;
  }
  if (auto expand = dyn_cast<graph::ExpandOp>(op)) {
    // Broadcast the input against the shape; a bounded shape dim needs the
    // input's 1 or the same extent.
    if (isBounded(expand.getInput()))
      return fail("graphc cannot yet expand a value the run sizes to a shape "
                  "the run computes");
    auto inType = cast<RankedTensorType>(expand.getInput().getType());
    int64_t rank = std::max<int64_t>(inType.getRank(), shape->size());
    SmallVector<int64_t> out(rank, 1);
    Extents outDims(rank);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t i = d - (rank - inType.getRank());
      int64_t k = d - (rank - static_cast<int64_t>(shape->size()));
      int64_t in = i >= 0 ? inType.getDimSize(i) : 1;
      if (k >= 0 && dims[k]) {
        if (in != 1)
          return fail("graphc cannot yet expand a static dim of " + Twine(in) +
                      " to an extent the run decides");
        out[d] = bounds[k];
        outDims[d] = dims[k];
        continue;
      }
      int64_t want = k >= 0 ? bounds[k] : 1;
      if (in != 1 && want != 1 && in != want)
        return fail("cannot broadcast " + Twine(in) + " to " + Twine(want));
      out[d] = in == 1 ? want : in;
    }
    result.setType(resultType.clone(out));
    extents[result] = outDims;
    return true;
  }
  if (isa<graph::ConstantOfShapeOp>(op)) {
    result.setType(resultType.clone(bounds));
    extents[result] = dims;
    return true;
  }
  auto reshape = cast<graph::ReshapeOp>(op);
  // The data's bound layout must hold the shape's bounds: the view then
  // keeps the corner where viewExtents says, and its extents come from the
  // data (the shape's are the same numbers, computed apart).
  auto dataType = cast<RankedTensorType>(reshape.getData().getType());
  std::optional<int64_t> count = graph::multiplyDims(bounds);
  if (llvm::is_contained(bounds, 0) || !count ||
      *count != dataType.getNumElements())
    return fail("graphc cannot yet reshape to a shape the run computes that "
                "does not hold exactly the bound of the data");
  result.setType(resultType.clone(bounds));
  if (!isBounded(reshape.getData())) {
    // Static data viewed in a shape the run computes: only its bound.
    return fail("graphc cannot yet reshape static data to a shape the run "
                "computes");
  }
  FailureOr<Extents> viewed = viewExtents(op);
  if (failed(viewed))
    return failure();
  extents[result] = *viewed;
  return true;
}

LogicalResult ExtentPlanner::planOutputs(func::ReturnOp ret) {
  SmallVector<Value> operands;
  SmallVector<int64_t> positions;
  for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
    auto found = extents.find(value);
    if (found == extents.end())
      continue;
    for (auto [d, extent] : llvm::enumerate(found->second))
      if (extent) {
        operands.push_back(extent);
        positions.push_back(index);
        positions.push_back(d);
      }
  }
  if (operands.empty())
    return success();
  OpBuilder builder(ret);
  builder.create<graph::OutputExtentsOp>(ret.getLoc(), operands,
                                         builder.getDenseI64ArrayAttr(positions));
  return success();
}

LogicalResult ExtentPlanner::run() {
  Block &block = func.getBody().front();
  bool any = false;
  func.walk([&](graph::DataDependentExtentOpInterface) { any = true; });
  if (!any)
    return success();
  // The model's signature keeps the dims the run sizes dynamic.
  if (!func->hasAttr(graph::kSignatureAttr))
    func->setAttr(graph::kSignatureAttr,
                  TypeAttr::get(func.getFunctionType()));
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (auto ret = dyn_cast<func::ReturnOp>(&op)) {
      if (failed(planOutputs(ret)))
        return failure();
      continue;
    }
    // A loop body that the run sizes: its steps would need the extents of
    // every iteration.
    if (isa<graph::LoopOp>(op)) {
      WalkResult walk = op.walk([&](Operation *inner) {
        if (isa<graph::DataDependentExtentOpInterface>(inner)) {
          inner->emitError()
              << inner->getName()
              << ": graphc cannot yet size results by the run inside a loop";
          return WalkResult::interrupt();
        }
        for (Value operand : inner->getOperands())
          if (isBounded(operand)) {
            (void)refuse(inner, operand,
                         "graphc cannot yet read such a value inside a loop");
            return WalkResult::interrupt();
          }
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return failure();
      continue;
    }
    if (auto producer = dyn_cast<graph::DataDependentExtentOpInterface>(op)) {
      if (failed(planProducer(producer)))
        return failure();
      continue;
    }
    if (auto shape = dyn_cast<graph::ShapeOp>(op);
        shape && isBounded(shape.getData())) {
      if (failed(planShape(shape)))
        return failure();
      continue;
    }
    FailureOr<bool> shaped = planShapedBy(&op);
    if (failed(shaped))
      return failure();
    if (*shaped)
      continue;
    bool reads = llvm::any_of(op.getOperands(),
                              [&](Value v) { return isBounded(v); });
    bool computed = llvm::any_of(op.getOperands(), [&](Value v) {
      return fromExtents.contains(v);
    });
    // planConsumer replaces a graph.empty_if by a view: `op` is gone.
    bool replaced = reads && isa<graph::EmptyIfOp>(op);
    if (reads && failed(planConsumer(&op)))
      return failure();
    if (replaced)
      continue;
    if (!reads && computed && failed(refineResults(&op)))
      return failure();
    bool dynamic = llvm::any_of(op.getResultTypes(), [](Type type) {
      auto ranked = dyn_cast<RankedTensorType>(type);
      return ranked && !ranked.hasStaticShape();
    });
    if (dynamic && (reads || computed)) {
      return op.emitError()
             << op.getName()
             << ": its result's shape depends on an extent the run decides; "
                "graphc cannot yet size such a result";
    }
    if (computed) {
      for (Value result : op.getResults())
        fromExtents.insert(result);
      propagateSymbolic(&op);
    }
  }
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                 ret.getOperandTypes()));
  return success();
}

struct BoundDataDependentExtentsPass
    : impl::BoundDataDependentExtentsBase<BoundDataDependentExtentsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(ExtentPlanner(func).run()))
        return signalPassFailure();
  }
};

} // namespace

} // namespace graphc
