//===- ControlFlowImport.cpp - ONNX If, Loop and Scan as graph ops --------===//

#include "lib/Import/ONNX/ControlFlowImport.h"
#include "lib/Import/ONNX/ONNXImporter.h"
#include "lib/Import/ONNX/OnnxModel.h"

#include "dialects/Graph/GraphOps.h"
#include "lib/Support/Axis.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace graphc {

char CompileTimeInputError::ID = 0;

void CompileTimeInputError::log(llvm::raw_ostream &os) const { os << message; }

namespace onnx_import {

using namespace mlir;

bool isControlFlowOp(llvm::StringRef opType) {
  return opType == "If" || opType == "Loop" || opType == "Scan";
}

std::string constInputHint(llvm::ArrayRef<std::string> sources) {
  std::string text = sources.size() > 1 ? "inputs " : "input ";
  for (auto [index, source] : llvm::enumerate(sources))
    text += (index ? ", '" : "'") + source + "'";
  return text + ", whose values --const-input NAME=FILE.npy|VALUES binds at "
                "compile time";
}

llvm::Error compileTimeInputError(const std::string &name,
                                  const onnx::NodeProto &node,
                                  std::vector<std::string> sources,
                                  unsigned operand, const llvm::Twine &what,
                                  const llvm::Twine &why) {
  std::string message = "node '" + name + "' (" + node.op_type() +
                        "): " + what.str() +
                        " is not known at compile time, and " + why.str();
  if (sources.empty())
    return makeError(message);
  message += "; fixed input shapes do not determine it: it is computed from " +
             constInputHint(sources);
  return llvm::make_error<CompileTimeInputError>(
      std::move(message), std::move(sources), name, node.op_type(), operand);
}

namespace {

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// The value of a one-element bool or integer tensor known at compile time.
std::optional<int64_t> constantScalar(Value value) {
  DenseElementsAttr elements;
  if (!value || !matchPattern(value, m_Constant(&elements)) ||
      elements.getNumElements() != 1)
    return std::nullopt;
  Type element = elements.getElementType();
  if (element.isInteger(1))
    return *elements.getValues<bool>().begin() ? 1 : 0;
  if (isa<IntegerType>(element))
    return (*elements.getValues<APInt>().begin()).getSExtValue();
  return std::nullopt;
}

/// The ops appended to a block since a point, for checking what a branch or
/// an iteration created.
/// A gather whose indices are constants inside its axis's static extent:
/// it cannot fail, so it may run speculatively (torchvision's `keep[:, 2]`
/// of a selection the run sizes).
static bool readsConstantIndicesInRange(Operation *op) {
  auto gather = dyn_cast<graph::GatherOp>(op);
  if (!gather)
    return false;
  auto type = cast<RankedTensorType>(gather.getData().getType());
  int64_t rank = type.getRank();
  int64_t axis = gather.getAxis() < 0 ? gather.getAxis() + rank
                                      : gather.getAxis();
  if (axis < 0 || axis >= rank || type.isDynamicDim(axis))
    return false;
  std::optional<SmallVector<int64_t>> indices =
      graph::getConstantInts(gather.getIndices());
  int64_t extent = type.getDimSize(axis);
  return indices && llvm::all_of(*indices, [&](int64_t index) {
           return index >= -extent && index < extent;
         });
}

class OpMark {
public:
  explicit OpMark(OpBuilder &builder)
      : block(builder.getInsertionBlock()),
        last(block->empty() ? nullptr : &block->back()) {}

  /// The first op created since the mark that can fail at run time (in
  /// the body of a loop created since, too).
  Operation *firstCheckingOp() const {
    Operation *found = nullptr;
    for (Operation &op : created()) {
      op.walk([&](Operation *inner) {
        if (!found && inner->hasTrait<graph::OpTrait::ChecksValues>() &&
            !readsConstantIndicesInRange(inner))
          found = inner;
      });
      if (found)
        return found;
    }
    return nullptr;
  }

  /// Erases the ops created since the mark; false (erasing nothing) when
  /// one of them has a use outside them.
  bool eraseCreated() {
    llvm::SmallPtrSet<Operation *, 32> ops;
    for (Operation &op : created())
      ops.insert(&op);
    for (Operation *op : ops)
      for (Operation *user : op->getUsers())
        if (!ops.contains(block->findAncestorOpInBlock(*user)))
          return false;
    SmallVector<Operation *> order;
    for (Operation &op : created())
      order.push_back(&op);
    for (Operation *op : llvm::reverse(order))
      op->erase();
    return true;
  }

private:
  llvm::iterator_range<Block::iterator> created() const {
    return {last ? std::next(last->getIterator()) : block->begin(),
            block->end()};
  }

  Block *block;
  Operation *last;
};

class ControlFlowImporter {
public:
  ControlFlowImporter(SubgraphImporter &importer, NodeBuilder &base,
                      onnx::NodeProto &node, llvm::ArrayRef<Value> inputs)
      : importer(importer), base(base), b(base.getBuilder()), node(node),
        inputs(inputs),
        name(cast<NameLoc>(base.getLoc()).getName().getValue().str()) {}

  llvm::Expected<SmallVector<Value>> run();

private:
  llvm::Expected<SmallVector<Value>> importIf();
  llvm::Expected<SmallVector<Value>> importLoop();
  llvm::Expected<SmallVector<Value>> importScan();
  /// An If whose condition only the run knows and whose branches may not
  /// both run: each branch the body of a graph.loop of at most one
  /// iteration, entered on `cond` (then) and on its negation (else), whose
  /// loop-carried values are the outputs (of `types`, zeros before).
  llvm::Expected<SmallVector<Value>>
  importBranchLoops(Value cond, onnx::GraphProto &thenBranch,
                    onnx::GraphProto &elseBranch, ArrayRef<Type> types);
  /// A graph.loop over `initial` with an empty body block of its
  /// arguments (the iteration number, then one per initial value).
  graph::LoopOp createLoop(Location loc, Value tripCount, Value condition,
                           ValueRange initial, int64_t bound);
  /// The body of `loop` (its block made): `body` imported with `arguments`
  /// (a null one is the condition input, true while the body runs) and a
  /// graph.yield of `condition` (null: the body's first output) and the
  /// rest of its outputs, which must have the loop's result types.
  llvm::Error importLoopBody(graph::LoopOp loop, onnx::GraphProto &body,
                             ArrayRef<Value> arguments, Value condition,
                             const std::string &prefix);
  /// The Loop as a graph.loop (no scan outputs): `tripCount` and
  /// `condition` as given (null when absent), `constantTripCount` the trip
  /// count when it is known.
  llvm::Expected<SmallVector<Value>>
  importRunTimeLoop(Value tripCount, Value condition, ArrayRef<Value> carried,
                    onnx::GraphProto &body,
                    std::optional<int64_t> constantTripCount);

  llvm::Error fail(const llvm::Twine &message) const {
    return makeError("node '" + name + "' (" + node.op_type() +
                     "): " + message);
  }
  /// The error for `needed` (input `operand`, which `what` describes, and
  /// the values known with it) not known at compile time, `why` saying what
  /// needs it.
  llvm::Error needAtCompileTime(ArrayRef<Value> needed, unsigned operand,
                                llvm::StringRef what,
                                const llvm::Twine &why) const;
  /// The subgraph attribute `attribute`, or an error when it is missing.
  llvm::Expected<onnx::GraphProto *> subgraph(llvm::StringRef attribute);
  std::optional<int64_t> intAttribute(llvm::StringRef attribute) const;
  std::optional<std::vector<int64_t>>
  intsAttribute(llvm::StringRef attribute) const;

  /// A builder whose ops are named "<node>/<suffix>".
  NodeBuilder at(const llvm::Twine &suffix) {
    auto loc = cast<NameLoc>(base.getLoc());
    return NodeBuilder(b, NameLoc::get(b.getStringAttr(name + "/" + suffix),
                                       loc.getChildLoc()));
  }
  llvm::Expected<Value> op(NodeBuilder &at, llvm::StringRef mnemonic,
                           ArrayRef<Value> slots,
                           ArrayRef<NamedAttribute> attributes = {});
  /// `value` as a rank-0 tensor, for selecting whole tensors.
  llvm::Expected<Value> scalar(NodeBuilder &at, Value value);
  Value i64Scalar(NodeBuilder &at, int64_t value);
  Value boolScalar(NodeBuilder &at, bool value);
  /// Stacks `values` (equal types) along a new axis `axis` of the result.
  llvm::Expected<Value> stack(NodeBuilder &at, ArrayRef<Value> values,
                              int64_t axis, llvm::StringRef what);

  SubgraphImporter &importer;
  NodeBuilder &base;
  OpBuilder &b;
  onnx::NodeProto &node;
  llvm::ArrayRef<Value> inputs;
  std::string name;
};

llvm::Error
ControlFlowImporter::needAtCompileTime(ArrayRef<Value> needed, unsigned operand,
                                       llvm::StringRef what,
                                       const llvm::Twine &why) const {
  std::vector<std::string> sources;
  for (Value value : needed)
    for (std::string &source : importer.inputSources(value))
      if (!llvm::is_contained(sources, source))
        sources.push_back(std::move(source));
  return compileTimeInputError(name, node, std::move(sources), operand, what,
                               why);
}

llvm::Expected<onnx::GraphProto *>
ControlFlowImporter::subgraph(llvm::StringRef attribute) {
  for (onnx::AttributeProto &attr : *node.mutable_attribute())
    if (attr.name() == attribute && attr.has_g())
      return attr.mutable_g();
  return fail("the subgraph attribute '" + attribute + "' is missing");
}

std::optional<int64_t>
ControlFlowImporter::intAttribute(llvm::StringRef attribute) const {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == attribute && attr.type() == onnx::AttributeProto::INT)
      return attr.i();
  return std::nullopt;
}

std::optional<std::vector<int64_t>>
ControlFlowImporter::intsAttribute(llvm::StringRef attribute) const {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == attribute && attr.type() == onnx::AttributeProto::INTS)
      return std::vector<int64_t>(attr.ints().begin(), attr.ints().end());
  return std::nullopt;
}

llvm::Expected<Value>
ControlFlowImporter::op(NodeBuilder &at, llvm::StringRef mnemonic,
                        ArrayRef<Value> slots,
                        ArrayRef<NamedAttribute> attributes) {
  FailureOr<Value> value = at.createValue(mnemonic, slots, attributes);
  if (failed(value))
    return fail("cannot build its graph." + mnemonic +
                " (the diagnostics above say why)");
  return *value;
}

llvm::Expected<Value> ControlFlowImporter::scalar(NodeBuilder &at,
                                                  Value value) {
  if (cast<ShapedType>(value.getType()).getRank() == 0)
    return value;
  return op(at, "reshape", {value, at.i64Constant({})});
}

Value ControlFlowImporter::i64Scalar(NodeBuilder &at, int64_t value) {
  auto type = RankedTensorType::get({}, b.getI64Type());
  return at.constant(cast<ElementsAttr>(DenseElementsAttr::get(type, value)));
}

Value ControlFlowImporter::boolScalar(NodeBuilder &at, bool value) {
  auto type = RankedTensorType::get({}, b.getI1Type());
  return at.constant(cast<ElementsAttr>(DenseElementsAttr::get(type, value)));
}

llvm::Expected<Value> ControlFlowImporter::stack(NodeBuilder &at,
                                                 ArrayRef<Value> values,
                                                 int64_t axis,
                                                 llvm::StringRef what) {
  SmallVector<Value> expanded;
  for (auto [index, value] : llvm::enumerate(values)) {
    if (value.getType() != values.front().getType())
      return fail(what + " is " + typeText(values.front().getType()) +
                  " in iteration 0 but " + typeText(value.getType()) +
                  " in iteration " + llvm::Twine(index) +
                  "; ONNX requires one shape");
    llvm::Expected<Value> one =
        op(at, "unsqueeze", {value, at.i64Constant({axis})});
    if (!one)
      return one.takeError();
    expanded.push_back(*one);
  }
  return op(at, "concat", expanded,
            {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))});
}

llvm::Expected<SmallVector<Value>> ControlFlowImporter::run() {
  llvm::StringRef opType = node.op_type();
  if (opType == "If")
    return importIf();
  if (opType == "Loop")
    return importLoop();
  return importScan();
}

namespace {
/// Where one branch of an If gives a static 0 along dims that the other
/// branch's value leaves dynamic (sized by the run).
struct EmptyBranch {
  bool thenIsEmpty;
  SmallVector<int64_t> dims;
};

/// The EmptyBranch of an If output the branches give as `thenType` and
/// `elseType`, when those agree on every other dim; nullopt otherwise.
std::optional<EmptyBranch> emptyBranch(Type thenType, Type elseType) {
  auto a = dyn_cast<RankedTensorType>(thenType);
  auto b = dyn_cast<RankedTensorType>(elseType);
  if (!a || !b || a == b || a.getRank() != b.getRank() ||
      a.getElementType() != b.getElementType())
    return std::nullopt;
  std::optional<bool> thenIsEmpty;
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < a.getRank(); ++d) {
    int64_t x = a.getDimSize(d), y = b.getDimSize(d);
    if (x == y)
      continue;
    bool here;
    if (x == 0 && ShapedType::isDynamic(y))
      here = true;
    else if (y == 0 && ShapedType::isDynamic(x))
      here = false;
    else
      return std::nullopt;
    if (thenIsEmpty && *thenIsEmpty != here)
      return std::nullopt;
    thenIsEmpty = here;
    dims.push_back(d);
  }
  return EmptyBranch{*thenIsEmpty, std::move(dims)};
}
} // namespace

llvm::Expected<SmallVector<Value>> ControlFlowImporter::importIf() {
  Value cond = inputs.empty() ? Value() : inputs[0];
  auto condType = cond ? dyn_cast<RankedTensorType>(cond.getType()) : nullptr;
  if (!condType || !condType.getElementType().isInteger(1) ||
      !condType.hasStaticShape() || condType.getNumElements() != 1)
    return fail("the condition must be a bool tensor of one element");
  llvm::Expected<onnx::GraphProto *> thenBranch = subgraph("then_branch");
  if (!thenBranch)
    return thenBranch.takeError();
  llvm::Expected<onnx::GraphProto *> elseBranch = subgraph("else_branch");
  if (!elseBranch)
    return elseBranch.takeError();
  size_t count = node.output_size();
  for (auto [branch, label] : {std::pair{*thenBranch, "then_branch"},
                               std::pair{*elseBranch, "else_branch"}})
    if (static_cast<size_t>(branch->output_size()) != count)
      return fail(llvm::Twine(label) + " has " +
                  llvm::Twine(branch->output_size()) + " outputs, the node " +
                  llvm::Twine(count));

  if (std::optional<int64_t> known = constantScalar(cond)) {
    onnx::GraphProto *taken = *known ? *thenBranch : *elseBranch;
    return importer.importSubgraph(*taken, {},
                                   name + (*known ? "/then" : "/else"));
  }

  // Known only at run time: both branches, and a select of their outputs.
  OpMark mark(b);
  llvm::Expected<SmallVector<Value>> thenValues =
      importer.importSubgraph(**thenBranch, {}, name + "/then");
  if (!thenValues)
    return thenValues.takeError();
  llvm::Expected<SmallVector<Value>> elseValues =
      importer.importSubgraph(**elseBranch, {}, name + "/else");
  if (!elseValues)
    return elseValues.takeError();
  // An output one branch gives as a static 0 along dims where the other
  // has the run decide (if boxes.numel() == 0: return empty): the other
  // branch's value, emptied where the condition picks the empty one.
  SmallVector<std::optional<EmptyBranch>> emptied(count);
  for (size_t i = 0; i < count; ++i)
    emptied[i] =
        emptyBranch((*thenValues)[i].getType(), (*elseValues)[i].getType());
  for (size_t i = 0; i < count; ++i)
    if ((*thenValues)[i].getType() != (*elseValues)[i].getType() &&
        !emptied[i])
      return needAtCompileTime(
          cond, 0, "the condition",
          "its branches give output " + llvm::Twine(i) + " different types (" +
              typeText((*thenValues)[i].getType()) + " and " +
              typeText((*elseValues)[i].getType()) +
              "); graphc selects between branches at run time only when "
              "their outputs have one type");
  if (Operation *checking = mark.firstCheckingOp()) {
    // A branch that may not run speculatively: each branch a loop of at
    // most one iteration, which the run enters only for its branch.
    SmallVector<Type> types;
    for (Value value : *thenValues)
      types.push_back(value.getType());
    std::string checkingName = graph::firstNodeName(checking->getLoc());
    std::string checkingOp = checking->getName().getStringRef().str();
    bool staticTypes = llvm::all_of(types, [](Type type) {
      auto ranked = dyn_cast<RankedTensorType>(type);
      return ranked && ranked.hasStaticShape();
    });
    if (staticTypes && mark.eraseCreated())
      return importBranchLoops(cond, **thenBranch, **elseBranch, types);
    return needAtCompileTime(
        cond, 0, "the condition",
        "'" + checkingName + "' (" + checkingOp +
            ") in a branch can fail at run time; graphc selects between "
            "branches at run time only when it may compute both, or when "
            "their outputs have static shapes");
  }
  NodeBuilder select = at("select");
  llvm::Expected<Value> which = scalar(select, cond);
  if (!which)
    return which.takeError();
  SmallVector<Value> results;
  for (size_t i = 0; i < count; ++i) {
    Value thenValue = (*thenValues)[i], elseValue = (*elseValues)[i];
    if (thenValue == elseValue) {
      results.push_back(thenValue);
      continue;
    }
    if (emptied[i]) {
      Value empties = *which;
      if (!emptied[i]->thenIsEmpty) {
        llvm::Expected<Value> negated = op(select, "not", {*which});
        if (!negated)
          return negated.takeError();
        empties = *negated;
      }
      llvm::Expected<Value> chosen = op(
          select, "empty_if",
          {empties, emptied[i]->thenIsEmpty ? elseValue : thenValue},
          {b.getNamedAttr("dims", b.getDenseI64ArrayAttr(emptied[i]->dims))});
      if (!chosen)
        return chosen.takeError();
      results.push_back(*chosen);
      continue;
    }
    llvm::Expected<Value> chosen =
        op(select, "where", {*which, thenValue, elseValue});
    if (!chosen)
      return chosen.takeError();
    results.push_back(*chosen);
  }
  return results;
}

llvm::Expected<SmallVector<Value>> ControlFlowImporter::importLoop() {
  Value tripCountValue = inputs.size() > 0 ? inputs[0] : Value();
  Value initialCond = inputs.size() > 1 ? inputs[1] : Value();
  SmallVector<Value> carried(
      inputs.begin() + std::min<size_t>(2, inputs.size()), inputs.end());
  llvm::Expected<onnx::GraphProto *> bodyOrError = subgraph("body");
  if (!bodyOrError)
    return bodyOrError.takeError();
  onnx::GraphProto &body = **bodyOrError;
  size_t stateCount = carried.size();
  if (static_cast<size_t>(body.input_size()) != 2 + stateCount)
    return fail("the body has " + llvm::Twine(body.input_size()) +
                " inputs; it takes the iteration number, the condition and "
                "the " +
                llvm::Twine(stateCount) + " loop-carried values");
  if (static_cast<size_t>(body.output_size()) < 1 + stateCount)
    return fail("the body has " + llvm::Twine(body.output_size()) +
                " outputs; it gives the condition and the " +
                llvm::Twine(stateCount) + " loop-carried values first");
  size_t scanCount = body.output_size() - 1 - stateCount;
  if (static_cast<size_t>(node.output_size()) > stateCount + scanCount)
    return fail("has " + llvm::Twine(node.output_size()) +
                " outputs; its body gives " +
                llvm::Twine(stateCount + scanCount));
  for (auto [slot, value] :
       {std::pair{0u, tripCountValue}, std::pair{1u, initialCond}}) {
    auto type = value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
    if (value &&
        (!type || !type.hasStaticShape() || type.getNumElements() != 1 ||
         !type.getElementType().isInteger(slot == 0 ? 64 : 1)))
      return fail(slot == 0 ? "the trip count M must be an int64 tensor of "
                              "one element"
                            : "the condition must be a bool tensor of one "
                              "element");
  }

  // A Loop that does not unroll runs as a loop: an M the run decides or
  // past what unrolls, or no M and a condition only the run knows. Scan
  // outputs, whose length would depend on the run, keep it unrolling (and
  // its errors say what to bind).
  std::optional<int64_t> knownTripCount =
      tripCountValue ? constantScalar(tripCountValue) : std::nullopt;
  std::optional<int64_t> knownCondition =
      initialCond ? constantScalar(initialCond) : std::optional<int64_t>(1);
  if (scanCount == 0 &&
      (tripCountValue ? !knownTripCount || *knownTripCount > kMaxLoopIterations
                      : !knownCondition))
    return importRunTimeLoop(tripCountValue, initialCond, carried, body,
                             knownTripCount);

  std::optional<int64_t> tripCount;
  if (tripCountValue) {
    tripCount = constantScalar(tripCountValue);
    // With scan outputs an unknown initial condition is needed too: named
    // with M, so that one binding of the inputs resolves both.
    SmallVector<Value> unknown = {tripCountValue};
    if (scanCount > 0 && initialCond && !constantScalar(initialCond))
      unknown.push_back(initialCond);
    if (!tripCount)
      return needAtCompileTime(
          unknown, 0, "the trip count M",
          "graphc unrolls a Loop, which needs its trip count (or a "
          "condition that becomes false at compile time)");
    tripCount = std::max<int64_t>(*tripCount, 0);
    if (*tripCount > kMaxLoopIterations)
      return fail("its trip count " + llvm::Twine(*tripCount) +
                  " is more than the " + llvm::Twine(kMaxLoopIterations) +
                  " iterations graphc unrolls");
  }

  // `active`: whether the next iteration runs (null: true). Once it is known
  // only at run time, iterations are masked: loop-carried values keep theirs
  // where it is false.
  Value active = initialCond;
  bool masked = false;
  std::vector<SmallVector<Value>> scans(scanCount);
  int64_t iteration = 0;
  for (; !tripCount || iteration < *tripCount; ++iteration) {
    std::optional<int64_t> runs = active ? constantScalar(active) : 1;
    if (runs && *runs == 0)
      break;
    if (!runs && !masked) {
      if (!tripCount)
        return needAtCompileTime(
            active, 1, "the loop condition",
            "the Loop has no trip count M to bound it; graphc unrolls a "
            "Loop, which needs a bound");
      if (scanCount > 0)
        return needAtCompileTime(active, 1, "the loop condition",
                                 "it decides the length of the scan outputs");
      masked = true;
    }
    if (iteration >= kMaxLoopIterations)
      return fail("its condition is still true after " +
                  llvm::Twine(kMaxLoopIterations) +
                  " iterations, the most graphc unrolls");
    std::string prefix = name + "/iter" + std::to_string(iteration);
    NodeBuilder here = at("iter" + llvm::Twine(iteration));
    SmallVector<Value> arguments = {i64Scalar(here, iteration),
                                    active ? active : boolScalar(here, true)};
    arguments.append(carried);
    OpMark mark(b);
    llvm::Expected<SmallVector<Value>> outputs =
        importer.importSubgraph(body, arguments, prefix);
    if (!outputs)
      return outputs.takeError();
    Value condOut = (*outputs)[0];
    auto condType = dyn_cast<RankedTensorType>(condOut.getType());
    if (!condType || !condType.getElementType().isInteger(1) ||
        !condType.hasStaticShape() || condType.getNumElements() != 1)
      return fail("the body's condition output must be a bool tensor of one "
                  "element");
    for (size_t k = 0; k < scanCount; ++k)
      scans[k].push_back((*outputs)[1 + stateCount + k]);
    if (!masked) {
      for (size_t j = 0; j < stateCount; ++j)
        carried[j] = (*outputs)[1 + j];
      active = condOut;
      continue;
    }
    if (Operation *checking = mark.firstCheckingOp())
      return needAtCompileTime(
          active, 1, "the loop condition",
          "'" + graph::firstNodeName(checking->getLoc()) + "' (" +
              checking->getName().getStringRef() +
              ") in the body can fail at run time; graphc masks the "
              "iterations after the condition turns false only when it may "
              "compute them");
    NodeBuilder keep = at("iter" + llvm::Twine(iteration) + "/keep");
    llvm::Expected<Value> runsNow = scalar(keep, active);
    if (!runsNow)
      return runsNow.takeError();
    for (size_t j = 0; j < stateCount; ++j) {
      Value next = (*outputs)[1 + j];
      if (next.getType() != carried[j].getType())
        return needAtCompileTime(active, 1, "the loop condition",
                                 "loop-carried value " + llvm::Twine(j) +
                                     " changes type from " +
                                     typeText(carried[j].getType()) + " to " +
                                     typeText(next.getType()) +
                                     " in iteration " + llvm::Twine(iteration));
      llvm::Expected<Value> kept =
          op(keep, "where", {*runsNow, next, carried[j]});
      if (!kept)
        return kept.takeError();
      carried[j] = *kept;
    }
    llvm::Expected<Value> still = scalar(keep, condOut);
    if (!still)
      return still.takeError();
    llvm::Expected<Value> both = op(keep, "and", {*runsNow, *still});
    if (!both)
      return both.takeError();
    active = *both;
  }

  SmallVector<Value> results(carried);
  for (size_t k = 0; k < scanCount; ++k) {
    std::string what = "scan output " + std::to_string(k);
    if (scans[k].empty())
      return fail(what + " has no iterations to take its type from; graphc "
                         "needs at least one");
    NodeBuilder collect = at("scan" + llvm::Twine(k));
    llvm::Expected<Value> stacked = stack(collect, scans[k], 0, what);
    if (!stacked)
      return stacked.takeError();
    results.push_back(*stacked);
  }
  results.resize(node.output_size());
  return results;
}

llvm::Expected<SmallVector<Value>> ControlFlowImporter::importRunTimeLoop(
    Value tripCount, Value condition, ArrayRef<Value> carried,
    onnx::GraphProto &body, std::optional<int64_t> constantTripCount) {
  int64_t bound = importer.maxLoopIterations();
  // A known trip count bounds every run (a Loop of M <= 0 never iterates).
  if (constantTripCount)
    bound = std::min(bound, std::max<int64_t>(*constantTripCount, 1));
  SmallVector<Type> types;
  for (auto [j, value] : llvm::enumerate(carried)) {
    if (!value)
      return fail("loop-carried value " + llvm::Twine(j) + " is absent");
    Type element = getElementTypeOrSelf(value.getType());
    if (element.isFloat8E4M3FN() || element.isFloat8E4M3FNUZ() ||
        element.isFloat8E5M2() || element.isFloat8E5M2FNUZ())
      return fail("loop-carried value " + llvm::Twine(j) + " is " +
                  typeText(value.getType()) +
                  "; a loop the run decides carries no 8-bit floats");
    types.push_back(value.getType());
  }
  graph::LoopOp loop =
      createLoop(base.getLoc(), tripCount, condition, carried, bound);
  Block *block = &loop.getBodyBlock();

  // The body runs only while its condition is true: its condition input is
  // true in every iteration that runs.
  SmallVector<Value> arguments = {block->getArgument(0), Value()};
  llvm::append_range(arguments, block->getArguments().drop_front());
  if (llvm::Error error =
          importLoopBody(loop, body, arguments, Value(), name + "/body"))
    return std::move(error);
  SmallVector<Value> results(loop.getResults());
  results.resize(node.output_size());
  return results;
}

graph::LoopOp ControlFlowImporter::createLoop(Location loc, Value tripCount,
                                              Value condition,
                                              ValueRange initial,
                                              int64_t bound) {
  auto loop = b.create<graph::LoopOp>(loc, initial.getTypes(), tripCount,
                                      condition, initial,
                                      b.getI64IntegerAttr(bound));
  Block *block = new Block();
  loop.getBody().push_back(block);
  block->addArgument(RankedTensorType::get({}, b.getI64Type()), loc);
  for (Value value : initial)
    block->addArgument(value.getType(), loc);
  return loop;
}

llvm::Error ControlFlowImporter::importLoopBody(graph::LoopOp loop,
                                                onnx::GraphProto &body,
                                                ArrayRef<Value> arguments,
                                                Value condition,
                                                const std::string &prefix) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&loop.getBodyBlock());
  NodeBuilder inBody = at(llvm::StringRef(prefix).rsplit('/').second);
  SmallVector<Value> bound(arguments);
  for (Value &argument : bound)
    if (!argument)
      argument = boolScalar(inBody, true);
  llvm::Expected<SmallVector<Value>> outputs =
      importer.importSubgraph(body, bound, prefix);
  if (!outputs)
    return outputs.takeError();
  ArrayRef<Value> values = *outputs;
  bool isLoopBody = !condition;
  if (isLoopBody) {
    condition = values.front();
    values = values.drop_front();
    auto condType = dyn_cast<RankedTensorType>(condition.getType());
    if (!condType || !condType.getElementType().isInteger(1) ||
        (condType.hasStaticShape() && condType.getNumElements() != 1))
      return fail("the body's condition output must be a bool tensor of one "
                  "element");
  }
  SmallVector<Value> yielded = {condition};
  for (auto [j, next] : llvm::enumerate(values)) {
    Type type = loop.getResult(j).getType();
    if (next.getType() != type)
      return fail((isLoopBody ? "loop-carried value " : "output ") +
                  llvm::Twine(j) + " is " + typeText(type) +
                  " but the body gives " + typeText(next.getType()) +
                  "; a loop the run decides keeps each value's type");
    yielded.push_back(next);
  }
  b.create<graph::YieldOp>(loop.getLoc(), yielded);
  return llvm::Error::success();
}

llvm::Expected<SmallVector<Value>>
ControlFlowImporter::importBranchLoops(Value cond, onnx::GraphProto &thenBranch,
                                       onnx::GraphProto &elseBranch,
                                       ArrayRef<Type> types) {
  NodeBuilder entry = at("enter");
  llvm::Expected<Value> enterThen = scalar(entry, cond);
  if (!enterThen)
    return enterThen.takeError();
  llvm::Expected<Value> enterElse = op(entry, "not", {*enterThen});
  if (!enterElse)
    return enterElse.takeError();
  Value once = i64Scalar(entry, 1);
  SmallVector<Value> outputs;
  for (Type type : types) {
    auto ranked = cast<RankedTensorType>(type);
    Type element = ranked.getElementType();
    Attribute zero = isa<FloatType>(element)
                         ? Attribute(FloatAttr::get(element, 0.0))
                         : Attribute(IntegerAttr::get(element, 0));
    outputs.push_back(entry.constant(
        cast<ElementsAttr>(DenseElementsAttr::get(ranked, zero))));
  }
  for (auto [branch, enter, label] :
       {std::tuple{&thenBranch, *enterThen, "then"},
        std::tuple{&elseBranch, *enterElse, "else"}}) {
    graph::LoopOp loop =
        createLoop(at(label).getLoc(), once, enter, outputs, /*bound=*/1);
    Block *block = &loop.getBodyBlock();
    // One iteration: the trip count ends it; the body's condition is true.
    Value stay;
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(block);
      NodeBuilder inBody = at(label);
      stay = boolScalar(inBody, true);
    }
    if (llvm::Error error =
            importLoopBody(loop, *branch, {}, stay, name + "/" + label))
      return std::move(error);
    outputs.assign(loop.getResults().begin(), loop.getResults().end());
  }
  return outputs;
}

llvm::Expected<SmallVector<Value>> ControlFlowImporter::importScan() {
  llvm::Expected<onnx::GraphProto *> bodyOrError = subgraph("body");
  if (!bodyOrError)
    return bodyOrError.takeError();
  onnx::GraphProto &body = **bodyOrError;
  std::optional<int64_t> scanInputCount = intAttribute("num_scan_inputs");
  if (!scanInputCount || *scanInputCount < 1 ||
      *scanInputCount > static_cast<int64_t>(inputs.size()))
    return fail("num_scan_inputs must be between 1 and the number of inputs (" +
                llvm::Twine(inputs.size()) + ")");
  size_t scanInputs = *scanInputCount;
  size_t stateCount = inputs.size() - scanInputs;
  if (static_cast<size_t>(body.input_size()) != inputs.size())
    return fail("the body has " + llvm::Twine(body.input_size()) +
                " inputs, the node " + llvm::Twine(inputs.size()));
  if (static_cast<size_t>(body.output_size()) < stateCount)
    return fail("the body has " + llvm::Twine(body.output_size()) +
                " outputs, fewer than the " + llvm::Twine(stateCount) +
                " states");
  size_t scanOutputs = body.output_size() - stateCount;
  if (static_cast<size_t>(node.output_size()) > stateCount + scanOutputs)
    return fail("has " + llvm::Twine(node.output_size()) +
                " outputs; its body gives " +
                llvm::Twine(stateCount + scanOutputs));
  auto perScan = [&](llvm::StringRef attribute,
                     size_t count) -> llvm::Expected<std::vector<int64_t>> {
    std::optional<std::vector<int64_t>> values = intsAttribute(attribute);
    if (!values)
      return std::vector<int64_t>(count, 0);
    if (values->size() != count)
      return fail("'" + attribute + "' has " + llvm::Twine(values->size()) +
                  " values, one per scan " +
                  (attribute.contains("input") ? "input" : "output") + " (" +
                  llvm::Twine(count) + ") expected");
    return *values;
  };
  llvm::Expected<std::vector<int64_t>> inputAxes =
      perScan("scan_input_axes", scanInputs);
  if (!inputAxes)
    return inputAxes.takeError();
  llvm::Expected<std::vector<int64_t>> inputDirections =
      perScan("scan_input_directions", scanInputs);
  if (!inputDirections)
    return inputDirections.takeError();
  llvm::Expected<std::vector<int64_t>> outputAxes =
      perScan("scan_output_axes", scanOutputs);
  if (!outputAxes)
    return outputAxes.takeError();
  llvm::Expected<std::vector<int64_t>> outputDirections =
      perScan("scan_output_directions", scanOutputs);
  if (!outputDirections)
    return outputDirections.takeError();
  for (int64_t direction : *inputDirections)
    if (direction != 0 && direction != 1)
      return fail("scan_input_directions must be 0 or 1");
  for (int64_t direction : *outputDirections)
    if (direction != 0 && direction != 1)
      return fail("scan_output_directions must be 0 or 1");

  // The sequence length: the scan axis of every scan input, static.
  std::optional<int64_t> length;
  for (size_t j = 0; j < scanInputs; ++j) {
    Value input = inputs[stateCount + j];
    auto type = input ? dyn_cast<RankedTensorType>(input.getType()) : nullptr;
    if (!type)
      return fail("scan input " + llvm::Twine(j) + " must be a ranked tensor");
    std::optional<int64_t> axis =
        normalizeAxis((*inputAxes)[j], type.getRank());
    if (!axis)
      return fail("scan_input_axes[" + llvm::Twine(j) +
                  "] = " + llvm::Twine((*inputAxes)[j]) + " is outside rank " +
                  llvm::Twine(type.getRank()));
    (*inputAxes)[j] = *axis;
    int64_t size = type.getDimSize(*axis);
    if (ShapedType::isDynamic(size))
      return fail("scan input " + llvm::Twine(j) +
                  " has a dynamic sequence length; graphc unrolls a Scan, "
                  "which needs it static (fix the input's shape with "
                  "--input-shape)");
    if (length && *length != size)
      return fail("scan inputs have sequence lengths " + llvm::Twine(*length) +
                  " and " + llvm::Twine(size));
    length = size;
  }
  if (*length > kMaxLoopIterations)
    return fail("its sequence length " + llvm::Twine(*length) +
                " is more than the " + llvm::Twine(kMaxLoopIterations) +
                " iterations graphc unrolls");

  SmallVector<Value> states(inputs.begin(), inputs.begin() + stateCount);
  std::vector<SmallVector<Value>> scans(scanOutputs);
  for (int64_t t = 0; t < *length; ++t) {
    NodeBuilder here = at("iter" + llvm::Twine(t));
    SmallVector<Value> arguments(states);
    for (size_t j = 0; j < scanInputs; ++j) {
      int64_t position = (*inputDirections)[j] ? *length - 1 - t : t;
      llvm::Expected<Value> element = op(
          here, "gather", {inputs[stateCount + j], i64Scalar(here, position)},
          {b.getNamedAttr("axis", b.getI64IntegerAttr((*inputAxes)[j]))});
      if (!element)
        return element.takeError();
      arguments.push_back(*element);
    }
    llvm::Expected<SmallVector<Value>> outputs = importer.importSubgraph(
        body, arguments, name + "/iter" + std::to_string(t));
    if (!outputs)
      return outputs.takeError();
    for (size_t j = 0; j < stateCount; ++j) {
      if ((*outputs)[j].getType() != states[j].getType())
        return fail("state " + llvm::Twine(j) + " changes type from " +
                    typeText(states[j].getType()) + " to " +
                    typeText((*outputs)[j].getType()));
      states[j] = (*outputs)[j];
    }
    for (size_t k = 0; k < scanOutputs; ++k)
      scans[k].push_back((*outputs)[stateCount + k]);
  }

  SmallVector<Value> results(states);
  for (size_t k = 0; k < scanOutputs; ++k) {
    std::string what = "scan output " + std::to_string(k);
    if (scans[k].empty())
      return fail(what + " has no iterations to take its type from; graphc "
                         "needs a sequence length of at least 1");
    int64_t rank = cast<ShapedType>(scans[k].front().getType()).getRank();
    std::optional<int64_t> axis = normalizeAxis((*outputAxes)[k], rank + 1);
    if (!axis)
      return fail("scan_output_axes[" + llvm::Twine(k) +
                  "] = " + llvm::Twine((*outputAxes)[k]) + " is outside rank " +
                  llvm::Twine(rank + 1));
    // A reverse scan output is built by prepending each iteration's value.
    if ((*outputDirections)[k])
      std::reverse(scans[k].begin(), scans[k].end());
    NodeBuilder collect = at("scan" + llvm::Twine(k));
    llvm::Expected<Value> stacked = stack(collect, scans[k], *axis, what);
    if (!stacked)
      return stacked.takeError();
    results.push_back(*stacked);
  }
  results.resize(node.output_size());
  return results;
}

} // namespace

llvm::Expected<SmallVector<Value>>
importControlFlow(SubgraphImporter &importer, NodeBuilder &builder,
                  onnx::NodeProto &node, llvm::ArrayRef<Value> inputs) {
  return ControlFlowImporter(importer, builder, node, inputs).run();
}

} // namespace onnx_import
} // namespace graphc
