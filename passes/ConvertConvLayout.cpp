//===- ConvertConvLayout.cpp - channels-last convolution chains -----------===//
//
// cuDNN's tensor-core convolution engines read and write channels-last
// (NHWC) tensors; given ONNX's NCHW they transpose inside every call, or
// run a slower engine. Where convolutions are cuDNN calls, this pass makes
// whole chains of them channels last: each convolution of a chain becomes
// `transpose(conv{channels_last}(transpose(x), W'))` with W' the weight
// moved to [M, k..., C/group] at compile time; the transposes then move
// forward through the pointwise ops between convolutions (ReLU, residual
// adds, casts) and cancel in pairs, so that only the chain's ends transpose.
//
// Only convolutions tensor cores compute take part: float16 and bfloat16,
// float32 under --precision tf32, and the int8 graph.quantized_conv (whose
// cuDNN engines read channels last only); exact float32 stays NCHW, the
// layout every cuDNN engine takes. A chain is a set of such convolutions whose
// inputs and outputs are joined by pointwise ops. It is converted when its ends cost few transposes for
// its convolutions: at most one copy kernel per `convs-per-transpose`
// convolutions. A lone convolution (ViT's patch embedding) would need two
// and stays channels first.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "passes/LibraryConv.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"

#include <cstring>

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_CONVERTCONVLAYOUT
#include "passes/Passes.h.inc"

namespace {

/// Past this many elements a new constant becomes a resource blob, as the
/// importer does with weights, so it never appears in textual IR.
constexpr int64_t kDenseElementLimit = 64;

/// [0, 2, 3, ..., 1]: channels first to channels last, for `rank` dims.
SmallVector<int64_t> toChannelsLast(int64_t rank) {
  SmallVector<int64_t> perm = {0};
  for (int64_t d = 2; d < rank; ++d)
    perm.push_back(d);
  perm.push_back(1);
  return perm;
}

/// [0, rank - 1, 1, ..., rank - 2]: channels last to channels first.
SmallVector<int64_t> toChannelsFirst(int64_t rank) {
  SmallVector<int64_t> perm = {0, rank - 1};
  for (int64_t d = 1; d < rank - 1; ++d)
    perm.push_back(d);
  return perm;
}

RankedTensorType rankedOf(Value value) {
  return dyn_cast<RankedTensorType>(value.getType());
}

/// Whether `op` is a graph.transpose by `perm`.
bool isTransposeBy(Operation *op, ArrayRef<int64_t> perm) {
  auto transpose = dyn_cast_or_null<graph::TransposeOp>(op);
  return transpose &&
         ArrayRef<int64_t>(graph::transposePermutation(transpose)) == perm;
}

/// Whether `value` broadcasts alike in either layout: all its dims are 1.
bool isScalarLike(Value value) {
  RankedTensorType type = rankedOf(value);
  return type && type.hasStaticShape() &&
         llvm::all_of(type.getShape(), [](int64_t d) { return d == 1; });
}

/// A pointwise op a channels-first transpose moves through: every operand
/// is of its result's rank, or all ones; it has one result.
bool isLayoutAgnostic(Operation *op) {
  if (!op->hasTrait<graph::OpTrait::Pointwise>() || op->getNumResults() != 1)
    return false;
  RankedTensorType result = rankedOf(op->getResult(0));
  if (!result || !result.hasStaticShape())
    return false;
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    RankedTensorType type = rankedOf(operand);
    return type &&
           (type.getRank() == result.getRank() || isScalarLike(operand));
  });
}

/// A constant pad of one value a channels-first transpose moves through by
/// permuting its pads: the explicit padding of a quantized convolution's
/// input (its zero point), which sits between the convolutions of a chain.
bool isMovablePad(Operation *op) {
  auto pad = dyn_cast<graph::PadOp>(op);
  if (!pad || pad.getMode() != "constant" || pad.getAxes())
    return false;
  RankedTensorType result = rankedOf(pad.getOutput());
  DenseIntElementsAttr pads;
  return result && result.hasStaticShape() && result.getRank() >= 3 &&
         matchPattern(pad.getPads(), m_Constant(&pads)) &&
         pads.getNumElements() == 2 * result.getRank() &&
         (!pad.getConstantValue() || isScalarLike(pad.getConstantValue()));
}

/// `conv` (a graph.conv or quantized_conv) with `channels_last` set, on the
/// channels-last `x` and `w` (and conv's bias).
Operation *channelsLastConv(OpBuilder &b, Location loc, Operation *conv,
                            Value x, Value w) {
  SmallVector<Value> operands = {x, w};
  if (conv->getNumOperands() > 2)
    operands.push_back(conv->getOperand(2));
  SmallVector<NamedAttribute> attributes(conv->getAttrs());
  llvm::erase_if(attributes, [](NamedAttribute attribute) {
    return attribute.getName() == "channels_last";
  });
  attributes.push_back(b.getNamedAttr("channels_last", b.getI64IntegerAttr(1)));
  // [N, M, out...] -> [N, out..., M].
  RankedTensorType y = rankedOf(conv->getResult(0));
  SmallVector<int64_t> dims = {y.getDimSize(0)};
  for (int64_t d = 2; d < y.getRank(); ++d)
    dims.push_back(y.getDimSize(d));
  dims.push_back(y.getDimSize(1));
  OperationState state(loc, conv->getName());
  state.addOperands(operands);
  state.addAttributes(attributes);
  state.addTypes(y.clone(dims));
  return b.create(state);
}

/// A convolution this pass converts: graph.conv, or graph.quantized_conv
/// (operands X, W[, bias], result Y alike).
bool isConvolution(Operation *op) {
  return isa<graph::ConvOp, graph::QuantizedConvOp>(op);
}

/// The convolutions a chain may convert: those a library computes (see
/// LibraryConv.h), channels first, with a constant weight, of an element
/// type tensor cores take: float16, bfloat16, or float32 with `float32`
/// (under --precision tf32), and int8 (cuDNN's int8 engines read only
/// channels last). Exact float32 runs on CUDA cores, where NCHW is what
/// every cuDNN engine takes.
bool isConvertible(Operation *op, bool float32) {
  ElementsAttr weight;
  if (!matchPattern(op->getOperand(1), m_Constant(&weight)))
    return false;
  if (auto quantized = dyn_cast<graph::QuantizedConvOp>(op)) {
    // cuDNN's int8 form, but for the layout this pass gives it.
    return quantized.getChannelsLast() == 0 && isLibraryInt8ConvForm(quantized);
  }
  auto conv = dyn_cast<graph::ConvOp>(op);
  if (!conv || conv.getChannelsLast() != 0)
    return false;
  Type element = cast<RankedTensorType>(conv.getY().getType()).getElementType();
  if (!element.isF16() && !element.isBF16() && !(float32 && element.isF32()))
    return false;
  return matchLibraryConv({op}).has_value();
}

/// Moves dim 1 of the constant `attr` ([M, C/group, k...]) last
/// ([M, k..., C/group]). Null when its bytes cannot be read.
ElementsAttr weightChannelsLast(ElementsAttr attr) {
  auto type = cast<RankedTensorType>(attr.getType());
  FailureOr<std::vector<char>> bytes = graph::constantBytes(attr);
  unsigned bits = type.getElementTypeBitWidth();
  if (failed(bytes) || bits % 8 != 0)
    return nullptr;
  size_t element = bits / 8;
  ArrayRef<int64_t> shape = type.getShape();
  int64_t outer = shape[0], channels = shape[1], window = 1;
  for (int64_t d : shape.drop_front(2))
    window *= d;
  std::vector<char> moved(bytes->size());
  for (int64_t m = 0; m < outer; ++m)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t k = 0; k < window; ++k)
        std::memcpy(moved.data() + ((m * window + k) * channels + c) * element,
                    bytes->data() + ((m * channels + c) * window + k) * element,
                    element);
  SmallVector<int64_t> dims = {outer};
  llvm::append_range(dims, shape.drop_front(2));
  dims.push_back(channels);
  RankedTensorType movedType = type.clone(dims);
  if (movedType.getNumElements() <= kDenseElementLimit)
    return graph::constantFromBytes(movedType, moved);
  AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
      ArrayRef<char>(moved), alignof(uint64_t));
  return DenseResourceElementsAttr::get(movedType, "channels_last",
                                        std::move(blob));
}

/// The chains of `func`: its convertible convolutions grouped by the values
/// layout-agnostic ops join (a convolution joins its input and output).
SmallVector<SmallVector<Operation *>> findChains(func::FuncOp func,
                                                 bool float32) {
  llvm::EquivalenceClasses<void *> joined;
  auto join = [&](Value a, Value b) {
    joined.unionSets(a.getAsOpaquePointer(), b.getAsOpaquePointer());
  };
  SmallVector<Operation *> convs;
  func.walk([&](Operation *op) {
    if (isConvolution(op) && isConvertible(op, float32)) {
      convs.push_back(op);
      join(op->getOperand(0), op->getResult(0));
    } else if (isLayoutAgnostic(op)) {
      for (Value operand : op->getOperands())
        if (!isScalarLike(operand) && !matchPattern(operand, m_Constant()))
          join(operand, op->getResult(0));
    } else if (isMovablePad(op)) {
      join(op->getOperand(0), op->getResult(0));
    }
  });
  llvm::MapVector<void *, SmallVector<Operation *>> byLeader;
  for (Operation *conv : convs)
    byLeader[joined.getLeaderValue(conv->getResult(0).getAsOpaquePointer())]
        .push_back(conv);
  SmallVector<SmallVector<Operation *>> chains;
  for (auto &[leader, chain] : byLeader)
    chains.push_back(std::move(chain));
  return chains;
}

/// Converts `convs` (of one function) to channels last, each between two
/// transposes; `weights` caches each weight's moved copy (one for every
/// bucket). Returns how many it converted.
int64_t convertConvs(ArrayRef<Operation *> convs,
                     DenseMap<Attribute, ElementsAttr> &weights) {
  int64_t converted = 0;
  for (Operation *conv : convs) {
    Value xValue = conv->getOperand(0), wValue = conv->getOperand(1);
    ElementsAttr weight;
    if (!matchPattern(wValue, m_Constant(&weight)))
      continue;
    ElementsAttr &moved = weights[weight];
    if (!moved)
      moved = weightChannelsLast(weight);
    if (!moved)
      continue;
    OpBuilder b(conv);
    // Channels last, the weights, input and convolution hold no ONNX
    // tensor as written; the transpose back holds the Conv's output.
    Location loc = graph::withoutTensorNames(conv->getLoc());
    int64_t rank = rankedOf(xValue).getRank();
    Value w = b.create<graph::ConstantOp>(
        graph::withoutTensorNames(wValue.getLoc()),
        cast<RankedTensorType>(moved.getType()), moved);
    Value x = b.create<graph::TransposeOp>(
        loc, xValue, b.getDenseI64ArrayAttr(toChannelsLast(rank)));
    Operation *last = channelsLastConv(b, loc, conv, x, w);
    Value y = b.create<graph::TransposeOp>(
        conv->getLoc(), last->getResult(0),
        b.getDenseI64ArrayAttr(toChannelsFirst(rank)));
    conv->getResult(0).replaceAllUsesWith(y);
    conv->erase();
    ++converted;
  }
  return converted;
}

/// pad(transpose(x, to channels first)) -> transpose(pad'(x)), where pad'
/// pads the channels-last dims as `pad` pads the channels-first ones.
void sinkThroughPad(graph::PadOp pad, ArrayRef<int64_t> first,
                    ArrayRef<int64_t> last) {
  Operation *input = pad.getData().getDefiningOp();
  if (!isTransposeBy(input, first))
    return;
  DenseIntElementsAttr pads;
  if (!matchPattern(pad.getPads(), m_Constant(&pads)))
    return;
  SmallVector<int64_t> firstPads(pads.getValues<int64_t>());
  int64_t rank = static_cast<int64_t>(last.size());
  // Dim d of the channels-last value is dim last[d] of the padded one.
  SmallVector<int64_t> lastPads(2 * rank);
  for (int64_t d = 0; d < rank; ++d) {
    lastPads[d] = firstPads[last[d]];
    lastPads[rank + d] = firstPads[rank + last[d]];
  }
  OpBuilder b(pad);
  // Channels last, the pad holds no ONNX tensor as written; the transpose
  // back holds its output.
  Location loc = graph::withoutTensorNames(pad.getLoc());
  auto padsType = RankedTensorType::get({2 * rank}, b.getI64Type());
  Value padsValue = b.create<graph::ConstantOp>(
      loc, padsType, DenseIntElementsAttr::get(padsType, lastPads));
  Value moved =
      b.create<graph::PadOp>(loc, input->getOperand(0), padsValue,
                             pad.getConstantValue(), Value(), pad.getMode());
  Value back = b.create<graph::TransposeOp>(pad.getLoc(), moved,
                                            b.getDenseI64ArrayAttr(first));
  pad.getOutput().replaceAllUsesWith(back);
  pad.erase();
}

/// Moves channels-first transposes forward through the layout-agnostic ops
/// of `func`, in program order: an op all of whose operands are such
/// transposes, all-ones tensors or constants of its rank computes on the
/// channels-last values instead (constants transposed at compile time),
/// and its result is transposed back. A global average pool of such a
/// transpose averages over the channels-last spatial dims. Then composes
/// and cancels transposes and drops the unused ones.
void sinkTransposes(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isLayoutAgnostic(op) || isMovablePad(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    int64_t rank = rankedOf(op->getResult(0)).getRank();
    if (rank < 3)
      continue;
    SmallVector<int64_t> first = toChannelsFirst(rank);
    SmallVector<int64_t> last = toChannelsLast(rank);
    if (auto pad = dyn_cast<graph::PadOp>(op)) {
      sinkThroughPad(pad, first, last);
      continue;
    }
    // The channels-last form of an operand the op does not read through a
    // transpose: one computed already, before the op (a residual read
    // both by a convolution and by the add after it).
    auto channelsLastOf = [&](Value operand) -> Value {
      for (Operation *user : operand.getUsers())
        if (isTransposeBy(user, last) && user->getBlock() == op->getBlock() &&
            user->isBeforeInBlock(op))
          return user->getResult(0);
      return nullptr;
    };
    bool anyTransposed = false, movable = true;
    for (Value operand : op->getOperands()) {
      if (isTransposeBy(operand.getDefiningOp(), first))
        anyTransposed = true;
      else if (!isScalarLike(operand) && !matchPattern(operand, m_Constant()) &&
               !channelsLastOf(operand))
        movable = false;
    }
    if (!anyTransposed || !movable)
      continue;
    OpBuilder b(op);
    // Channels last, the op holds no ONNX tensor as written; the transpose
    // back holds its output.
    Location lastLoc = graph::withoutTensorNames(op->getLoc());
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      if (isTransposeBy(operand.getDefiningOp(), first))
        operands.push_back(operand.getDefiningOp()->getOperand(0));
      else if (isScalarLike(operand))
        operands.push_back(operand);
      else if (Value known = channelsLastOf(operand))
        operands.push_back(known);
      else
        operands.push_back(b.createOrFold<graph::TransposeOp>(
            lastLoc, operand, b.getDenseI64ArrayAttr(last)));
    }
    RankedTensorType type = rankedOf(op->getResult(0));
    SmallVector<int64_t> shape;
    for (int64_t d : toChannelsLast(rank))
      shape.push_back(type.getDimSize(d));
    OperationState state(lastLoc, op->getName(), operands,
                         TypeRange{type.clone(shape)}, op->getAttrs());
    Operation *moved = b.create(state);
    Value back = b.create<graph::TransposeOp>(op->getLoc(), moved->getResult(0),
                                              b.getDenseI64ArrayAttr(first));
    op->getResult(0).replaceAllUsesWith(back);
    op->erase();
  }
  // A mean over dims of a channels-first transpose (a global average pool,
  // or the ReduceMean over H and W torch.export writes for one) is the mean
  // over the same dims of the channels-last value: [N, 1, ..., 1, C] for
  // the spatial dims, whose transpose back moves unit dims only (a view).
  SmallVector<Operation *> means;
  func.walk([&](Operation *op) {
    if (isa<graph::GlobalAveragePoolOp, graph::ReduceMeanOp>(op))
      means.push_back(op);
  });
  for (Operation *op : means) {
    RankedTensorType type = rankedOf(op->getResult(0));
    if (!type || !type.hasStaticShape() || type.getRank() < 3)
      continue;
    int64_t rank = type.getRank();
    SmallVector<int64_t> first = toChannelsFirst(rank);
    Operation *input = op->getOperand(0).getDefiningOp();
    if (!isTransposeBy(input, first))
      continue;
    // The dims averaged, in the channels-first transpose's numbering.
    SmallVector<int64_t> dims;
    if (isa<graph::GlobalAveragePoolOp>(op)) {
      for (int64_t d = 2; d < rank; ++d)
        dims.push_back(d);
    } else {
      auto mean = cast<graph::ReduceMeanOp>(op);
      DenseIntElementsAttr axes;
      if (mean.getKeepdims() != 1 || !mean.getAxes() ||
          !matchPattern(mean.getAxes(), m_Constant(&axes)))
        continue;
      for (const APInt &axis : axes.getValues<APInt>()) {
        int64_t d = axis.getSExtValue();
        dims.push_back(d < 0 ? d + rank : d);
      }
      if (dims.empty() ||
          llvm::any_of(dims, [&](int64_t d) { return d < 0 || d >= rank; }))
        continue;
    }
    // Dim d of the transpose is dim first[d] of its channels-last input.
    SmallVector<int64_t> moved;
    for (int64_t d : dims)
      moved.push_back(first[d]);
    llvm::sort(moved);
    OpBuilder b(op);
    // The channels-last mean holds no ONNX tensor; the transpose back
    // holds the op's output.
    Location loc = graph::withoutTensorNames(op->getLoc());
    auto axesType =
        RankedTensorType::get({int64_t(moved.size())}, b.getIntegerType(64));
    Value axes = b.create<graph::ConstantOp>(
        loc, axesType, DenseIntElementsAttr::get(axesType, moved));
    Value mean = b.create<graph::ReduceMeanOp>(
        loc, ValueRange{input->getOperand(0), axes},
        ArrayRef<NamedAttribute>{
            b.getNamedAttr("keepdims", b.getI64IntegerAttr(1)),
            b.getNamedAttr("noop_with_empty_axes", b.getI64IntegerAttr(0))});
    Value back = b.create<graph::TransposeOp>(op->getLoc(), mean,
                                              b.getDenseI64ArrayAttr(first));
    op->getResult(0).replaceAllUsesWith(back);
    op->erase();
  }
  // transpose(to channels last) of transpose(to channels first) composes
  // into the identity, which goes; unused transposes and weights go too.
  RewritePatternSet patterns(func.getContext());
  graph::TransposeOp::getCanonicalizationPatterns(patterns, func.getContext());
  (void)applyPatternsAndFoldGreedily(func, std::move(patterns));
  // One transpose per value and permutation: a residual read by two
  // convolutions (a block's and its projection's) is moved once.
  DenseMap<std::pair<Value, Attribute>, graph::TransposeOp> seen;
  SmallVector<graph::TransposeOp> duplicates;
  func.walk([&](graph::TransposeOp transpose) {
    auto key =
        std::make_pair(transpose.getData(), Attribute(transpose.getPermAttr()));
    auto [found, inserted] = seen.try_emplace(key, transpose);
    if (!inserted && found->second->getBlock() == transpose->getBlock()) {
      transpose.getResult().replaceAllUsesWith(found->second.getResult());
      duplicates.push_back(transpose);
    }
  });
  for (graph::TransposeOp transpose : duplicates)
    transpose.erase();
}

/// The transposes of `func` that are copies: what a layout change costs.
int64_t countTransposes(func::FuncOp func) {
  int64_t count = 0;
  func.walk([&](graph::TransposeOp) { ++count; });
  return count;
}

/// Marks a chain left channels first, so that it is not tried again.
constexpr llvm::StringLiteral kKeepChannelsFirst = "graphc.keep_channels_first";

LogicalResult convertFunction(func::FuncOp func, double convsPerTranspose,
                              bool float32,
                              DenseMap<Attribute, ElementsAttr> &weights) {
  while (true) {
    SmallVector<SmallVector<Operation *>> chains = findChains(func, float32);
    llvm::erase_if(chains, [](ArrayRef<Operation *> chain) {
      return chain.front()->hasAttr(kKeepChannelsFirst);
    });
    if (chains.empty())
      break;
    // The largest chain first: it decides what its neighbours join.
    llvm::stable_sort(chains, [](const auto &a, const auto &b) {
      return a.size() > b.size();
    });
    ArrayRef<Operation *> chain = chains.front();
    // Tried on a copy of the function: kept when its ends cost few copies.
    SmallVector<Operation *> all;
    func.walk([&](Operation *op) {
      if (isConvolution(op))
        all.push_back(op);
    });
    func::FuncOp trial = func.clone();
    SmallVector<Operation *> trialAll;
    trial.walk([&](Operation *op) {
      if (isConvolution(op))
        trialAll.push_back(op);
    });
    SmallVector<Operation *> trialChain;
    for (Operation *conv : chain)
      trialChain.push_back(
          trialAll[std::distance(all.begin(), llvm::find(all, conv))]);
    int64_t before = countTransposes(func);
    int64_t converted = convertConvs(trialChain, weights);
    sinkTransposes(trial);
    int64_t added = countTransposes(trial) - before;
    // An int8 convolution left channels first has no library form at all
    // (a generated kernel computes it): its chain converts whatever its
    // ends cost.
    bool eightBit = llvm::any_of(chain, [](Operation *conv) {
      return isa<graph::QuantizedConvOp>(conv);
    });
    if (converted > 0 &&
        (eightBit || double(added) * convsPerTranspose <= converted)) {
      func.getBody().takeBody(trial.getBody());
    } else {
      for (Operation *conv : chain)
        conv->setAttr(kKeepChannelsFirst, UnitAttr::get(func.getContext()));
    }
    trial.erase();
  }
  func.walk([](Operation *op) {
    if (isConvolution(op))
      op->removeAttr(kKeepChannelsFirst);
  });
  return success();
}

struct ConvertConvLayoutPass
    : impl::ConvertConvLayoutBase<ConvertConvLayoutPass> {
  using ConvertConvLayoutBase::ConvertConvLayoutBase;
  void runOnOperation() override {
    if (failed(convertConvLayout(getOperation(), convsPerTranspose, float32)))
      signalPassFailure();
  }
};

} // namespace

LogicalResult convertConvLayout(ModuleOp module, double convsPerTranspose,
                                bool float32) {
  if (!(convsPerTranspose > 0))
    return module.emitError("convs-per-transpose must be positive");
  DenseMap<Attribute, ElementsAttr> weights;
  for (func::FuncOp func : module.getOps<func::FuncOp>())
    if (failed(convertFunction(func, convsPerTranspose, float32, weights)))
      return failure();
  return success();
}

} // namespace graphc
