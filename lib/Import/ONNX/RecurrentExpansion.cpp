//===- RecurrentExpansion.cpp - ONNX LSTM, GRU, RNN as graph ops ----------===//
//
// The equations are those of the ONNX operator documents; where they leave a
// choice (activation parameter defaults, clip after the bias and peephole,
// final states of an empty sequence) the expansion computes what onnxruntime
// computes.
//
//===----------------------------------------------------------------------===//

#include "lib/Import/ONNX/RecurrentExpansion.h"

#include "dialects/Graph/GraphOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"

namespace graphc::onnx_import {

using namespace mlir;

namespace {

enum class CellKind { LSTM, GRU, RNN };

/// One activation function with its parameters.
struct Activation {
  std::string name; // lower case
  float alpha = 0.0f;
  float beta = 0.0f;
};

/// The weights of one direction, sliced from the node's inputs.
struct DirectionWeights {
  Value w, r;          // [G*H, I], [G*H, H]
  Value bias;          // added to the input projection, or null
  Value recurrentBias; // GRU with linear_before_reset: Rbh, or null
  Value rZR, rH;       // GRU without linear_before_reset: R split
  Value pI, pO, pF;    // LSTM peepholes, or null
  Value h0, c0;        // initial states [B, H], or null (zeros)
  llvm::SmallVector<Activation> activations;
};

class RecurrentExpander {
public:
  RecurrentExpander(NodeBuilder &base, NodeInfo &info)
      : base(base), info(info), b(base.getBuilder()),
        name(cast<NameLoc>(base.getLoc()).getName().getValue()) {}

  FailureOr<SmallVector<Value>> run();

private:
  // Reading and checking the node.
  LogicalResult readAttributes();
  LogicalResult readShapes();
  LogicalResult readActivations();
  InFlightDiagnostic error() { return emitError(base.getLoc()); }

  // Op creation. After the first failure no op is created and every helper
  // returns null; run() then fails with the diagnostic already emitted.
  Value op(NodeBuilder &at, llvm::StringRef mnemonic, ArrayRef<Value> slots,
           ArrayRef<NamedAttribute> attributes = {});
  Value op(llvm::StringRef mnemonic, ArrayRef<Value> slots,
           ArrayRef<NamedAttribute> attributes = {}) {
    return op(*current, mnemonic, slots, attributes);
  }
  SmallVector<Value> split(Value value, ArrayRef<int64_t> sizes);
  Value scalar(double value);
  Value index(int64_t value);
  Value gather(Value value, int64_t axis, int64_t position);
  Value slice(Value value, int64_t start, int64_t end);
  Value unsqueeze(NodeBuilder &at, Value value, ArrayRef<int64_t> axes);
  Value concat(NodeBuilder &at, ArrayRef<Value> values, int64_t axis);
  Value add(Value lhs, Value rhs) { return op("add", {lhs, rhs}); }
  Value mul(Value lhs, Value rhs) { return op("mul", {lhs, rhs}); }
  Value gemm(Value a, Value weights, Value c);
  Value clip(Value value);
  Value activate(const Activation &activation, Value value);
  NamedAttribute f32Attr(llvm::StringRef attrName, float value) {
    return b.getNamedAttr(attrName, b.getF32FloatAttr(value));
  }
  NamedAttribute i64Attr(llvm::StringRef attrName, int64_t value) {
    return b.getNamedAttr(attrName, b.getI64IntegerAttr(value));
  }

  /// A builder whose ops are named "<node>/<suffix>".
  NodeBuilder &named(const llvm::Twine &suffix);

  DirectionWeights directionWeights(int64_t direction);
  /// Runs one direction over all steps; returns the per-step outputs (when Y
  /// is used) and the final h and c.
  void runDirection(int64_t direction, Value projection,
                    DirectionWeights &weights, SmallVector<Value> &ys,
                    Value &hFinal, Value &cFinal);
  Value maskAt(int64_t step);

  NodeBuilder &base;
  NodeInfo &info;
  OpBuilder &b;
  std::string name;
  std::optional<NodeBuilder> scoped;
  NodeBuilder *current = nullptr;
  bool hadError = false;

  CellKind kind = CellKind::RNN;
  int64_t gates = 1;          // G: 4, 3 or 1 blocks of H rows in W and R
  int64_t activationsPer = 1; // f, g, h: 3, 2 or 1
  int64_t directions = 1;
  bool reverseOnly = false;
  int64_t layout = 0;
  int64_t hidden = 0;
  bool inputForget = false;
  bool linearBeforeReset = false;
  std::optional<float> clipThreshold;
  Type elementType;
  int64_t steps = 0, batch = ShapedType::kDynamic, inputSize = 0;
  Value x, w, r, bias, seqLens, initialH, initialC, peepholes;
  SmallVector<Activation> activations;
  SmallVector<Value> masks; // per step, [B, 1] i1, when seqLens is given
};

} // namespace

//===----------------------------------------------------------------------===//
// Op creation
//===----------------------------------------------------------------------===//

NodeBuilder &RecurrentExpander::named(const llvm::Twine &suffix) {
  MLIRContext *context = b.getContext();
  Location loc = NameLoc::get(StringAttr::get(context, name + "/" + suffix),
                              cast<NameLoc>(base.getLoc()).getChildLoc());
  scoped.emplace(b, loc);
  current = &*scoped;
  return *current;
}

Value RecurrentExpander::op(NodeBuilder &at, llvm::StringRef mnemonic,
                            ArrayRef<Value> slots,
                            ArrayRef<NamedAttribute> attributes) {
  if (hadError ||
      llvm::any_of(slots.take_front(1), [](Value slot) { return !slot; })) {
    hadError = true;
    return {};
  }
  FailureOr<Value> value = at.createValue(mnemonic, slots, attributes);
  if (failed(value)) {
    hadError = true;
    return {};
  }
  return *value;
}

SmallVector<Value> RecurrentExpander::split(Value value,
                                            ArrayRef<int64_t> sizes) {
  SmallVector<Value> parts(sizes.size());
  if (hadError || !value) {
    hadError = true;
    return parts;
  }
  FailureOr<SmallVector<Value>> results = current->create(
      "split", {value, current->i64Constant(sizes)},
      {i64Attr("axis", 1), i64Attr("num_outputs", sizes.size())});
  if (failed(results) || results->size() != sizes.size()) {
    hadError = true;
    return parts;
  }
  return *results;
}

Value RecurrentExpander::scalar(double value) {
  auto type = RankedTensorType::get({}, elementType);
  return current->constant(cast<ElementsAttr>(
      DenseElementsAttr::get(type, FloatAttr::get(elementType, value))));
}

Value RecurrentExpander::index(int64_t value) {
  auto type = RankedTensorType::get({}, b.getI64Type());
  return current->constant(
      cast<ElementsAttr>(DenseElementsAttr::get(type, value)));
}

Value RecurrentExpander::gather(Value value, int64_t axis, int64_t position) {
  return op("gather", {value, index(position)}, {i64Attr("axis", axis)});
}

Value RecurrentExpander::slice(Value value, int64_t start, int64_t end) {
  int64_t axis = 0;
  if (value)
    axis = cast<ShapedType>(value.getType()).getRank() - 1;
  return op("slice",
            {value, current->i64Constant({start}), current->i64Constant({end}),
             current->i64Constant({axis}), Value()});
}

Value RecurrentExpander::unsqueeze(NodeBuilder &at, Value value,
                                   ArrayRef<int64_t> axes) {
  return op(at, "unsqueeze", {value, at.i64Constant(axes)});
}

Value RecurrentExpander::concat(NodeBuilder &at, ArrayRef<Value> values,
                                int64_t axis) {
  if (llvm::any_of(values, [](Value value) { return !value; })) {
    hadError = true;
    return {};
  }
  return op(at, "concat", values, {i64Attr("axis", axis)});
}

/// a * weights^T + c (c optional).
Value RecurrentExpander::gemm(Value a, Value weights, Value c) {
  return op("gemm", {a, weights, c}, {i64Attr("transB", 1)});
}

Value RecurrentExpander::clip(Value value) {
  if (!clipThreshold)
    return value;
  return op("clip", {value, scalar(-*clipThreshold), scalar(*clipThreshold)});
}

Value RecurrentExpander::activate(const Activation &activation, Value value) {
  llvm::StringRef fn = activation.name;
  if (fn == "affine")
    return add(mul(value, scalar(activation.alpha)), scalar(activation.beta));
  if (fn == "scaledtanh")
    return mul(op("tanh", {mul(value, scalar(activation.beta))}),
               scalar(activation.alpha));
  if (fn == "leakyrelu")
    return op("leaky_relu", {value}, {f32Attr("alpha", activation.alpha)});
  if (fn == "thresholdedrelu")
    return op("thresholded_relu", {value},
              {f32Attr("alpha", activation.alpha)});
  if (fn == "elu")
    return op("elu", {value}, {f32Attr("alpha", activation.alpha)});
  if (fn == "hardsigmoid")
    return op(
        "hard_sigmoid", {value},
        {f32Attr("alpha", activation.alpha), f32Attr("beta", activation.beta)});
  // relu, tanh, sigmoid, softsign, softplus: graph ops of the same name.
  return op(fn, {value});
}

//===----------------------------------------------------------------------===//
// Reading the node
//===----------------------------------------------------------------------===//

LogicalResult RecurrentExpander::readAttributes() {
  llvm::StringRef opType = info.node.op_type();
  kind = opType == "LSTM"  ? CellKind::LSTM
         : opType == "GRU" ? CellKind::GRU
                           : CellKind::RNN;
  gates = kind == CellKind::LSTM ? 4 : kind == CellKind::GRU ? 3 : 1;
  activationsPer = kind == CellKind::LSTM ? 3 : kind == CellKind::GRU ? 2 : 1;

  auto intAttr = [&](llvm::StringRef attrName, int64_t fallback) {
    auto attr = dyn_cast_or_null<IntegerAttr>(info.attributes.get(attrName));
    return attr ? attr.getInt() : fallback;
  };
  llvm::StringRef direction = "forward";
  if (Attribute attr = info.attributes.get("direction")) {
    auto text = dyn_cast<StringAttr>(attr);
    if (!text)
      return error() << "attribute 'direction' must be a string";
    direction = text.getValue();
  }
  if (direction == "bidirectional")
    directions = 2;
  else if (direction == "reverse")
    reverseOnly = true;
  else if (direction != "forward")
    return error() << "direction '" << direction
                   << "' is not forward, reverse or bidirectional";
  layout = intAttr("layout", 0);
  if (layout != 0 && layout != 1)
    return error() << "layout " << layout << " is not 0 or 1";
  hidden = intAttr("hidden_size", 0);
  if (info.attributes.get("hidden_size") && hidden <= 0)
    return error() << "hidden_size " << hidden << " must be positive";
  inputForget = intAttr("input_forget", 0) != 0;
  linearBeforeReset = intAttr("linear_before_reset", 0) != 0;
  if (Attribute attr = info.attributes.get("clip")) {
    auto value = dyn_cast<FloatAttr>(attr);
    if (!value)
      return error() << "attribute 'clip' must be a float";
    float threshold = value.getValue().convertToFloat();
    if (!(threshold >= 0.0f))
      return error() << "clip " << threshold << " must be non-negative";
    clipThreshold = threshold;
  }
  return success();
}

LogicalResult RecurrentExpander::readShapes() {
  info.inputs.resize(kind == CellKind::LSTM ? 8 : 6);
  x = info.inputs[0];
  w = info.inputs[1];
  r = info.inputs[2];
  bias = info.inputs[3];
  seqLens = info.inputs[4];
  initialH = info.inputs[5];
  if (kind == CellKind::LSTM) {
    initialC = info.inputs[6];
    peepholes = info.inputs[7];
  }

  auto xType = dyn_cast<RankedTensorType>(x.getType());
  if (!xType || xType.getRank() != 3)
    return error() << "input X must have rank 3";
  elementType = xType.getElementType();
  if (!isa<FloatType>(elementType))
    return error() << "input X must hold floats, not " << elementType;
  int64_t timeAxis = layout == 0 ? 0 : 1;
  steps = xType.getDimSize(timeAxis);
  batch = xType.getDimSize(1 - timeAxis);
  if (ShapedType::isDynamic(steps))
    return error() << "unsupported: the sequence length (dim " << timeAxis
                   << " of X) is dynamic; graphc unrolls recurrent nodes and "
                      "needs a static sequence length";
  if (steps == 0)
    return error() << "unsupported: a sequence length of 0";
  if (steps * directions > kMaxRecurrentSteps)
    return error() << "unsupported: " << steps << " time steps x " << directions
                   << " direction(s) exceed the " << kMaxRecurrentSteps
                   << " steps graphc unrolls a recurrent node into";

  // Float operands: same element type, the documented ranks and sizes.
  struct Expected {
    const char *what;
    Value value;
    SmallVector<int64_t> shape; // kDynamic: any
  };
  auto rType = dyn_cast<RankedTensorType>(r.getType());
  if (!rType || rType.getRank() != 3)
    return error() << "input R must have rank 3";
  if (hidden <= 0)
    hidden = rType.getDimSize(2);
  if (ShapedType::isDynamic(hidden) || hidden <= 0)
    return error() << "hidden_size must be given or R must have a static "
                      "last dim";
  // The sizes below multiply hidden by up to 8: keep them representable.
  if (hidden > (int64_t(1) << 40))
    return error() << "hidden_size " << hidden << " is too large";
  auto wType = dyn_cast<RankedTensorType>(w.getType());
  if (!wType || wType.getRank() != 3)
    return error() << "input W must have rank 3";
  inputSize = wType.getDimSize(2);
  if (ShapedType::isDynamic(inputSize))
    inputSize = xType.getDimSize(2);
  if (ShapedType::isDynamic(inputSize))
    return error() << "unsupported: the input size (dim 2 of X and W) is "
                      "dynamic";
  int64_t dyn = ShapedType::kDynamic;
  SmallVector<int64_t> stateShape =
      layout == 0 ? SmallVector<int64_t>{directions, batch, hidden}
                  : SmallVector<int64_t>{batch, directions, hidden};
  Expected expected[] = {
      {"X", x,
       layout == 0 ? SmallVector<int64_t>{steps, batch, inputSize}
                   : SmallVector<int64_t>{batch, steps, inputSize}},
      {"W", w, {directions, gates * hidden, inputSize}},
      {"R", r, {directions, gates * hidden, hidden}},
      {"B", bias, {directions, 2 * gates * hidden}},
      {"initial_h", initialH, stateShape},
      {"initial_c", initialC, stateShape},
      {"P", peepholes, {directions, 3 * hidden}},
  };
  for (const Expected &operand : expected) {
    if (!operand.value)
      continue;
    auto type = dyn_cast<RankedTensorType>(operand.value.getType());
    bool ok = type && type.getElementType() == elementType &&
              type.getRank() == static_cast<int64_t>(operand.shape.size());
    for (size_t i = 0; ok && i < operand.shape.size(); ++i)
      ok = operand.shape[i] == dyn || type.isDynamicDim(i) ||
           type.getDimSize(i) == operand.shape[i];
    if (!ok) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "tensor<";
      for (int64_t dim : operand.shape)
        os << (dim == dyn ? std::string("?") : std::to_string(dim)) << "x";
      os << elementType << ">, not " << operand.value.getType();
      return error() << "input " << operand.what << " must be a " << text;
    }
  }
  if (seqLens) {
    auto type = dyn_cast<RankedTensorType>(seqLens.getType());
    if (!type || type.getRank() != 1 ||
        !isa<IntegerType>(type.getElementType()))
      return error() << "input sequence_lens must be a 1-D integer tensor";
    if (!type.isDynamicDim(0) && !ShapedType::isDynamic(batch) &&
        type.getDimSize(0) != batch)
      return error() << "input sequence_lens holds " << type.getDimSize(0)
                     << " lengths for a batch of " << batch;
  }
  return success();
}

LogicalResult RecurrentExpander::readActivations() {
  SmallVector<std::string> names;
  if (Attribute attr = info.attributes.get("activations")) {
    auto list = dyn_cast<ArrayAttr>(attr);
    if (!list)
      return error() << "attribute 'activations' must be a list of strings";
    for (Attribute entry : list) {
      auto text = dyn_cast<StringAttr>(entry);
      if (!text)
        return error() << "attribute 'activations' must be a list of strings";
      names.push_back(text.getValue().lower());
    }
  } else if (kind == CellKind::LSTM) {
    names = {"sigmoid", "tanh", "tanh"};
  } else if (kind == CellKind::GRU) {
    names = {"sigmoid", "tanh"};
  } else {
    names = {"tanh"};
  }
  // The RNN schema's default list is {Tanh, Tanh}, written out by some
  // exporters for one direction: its first entry applies.
  if (kind == CellKind::RNN && directions == 1 && names.size() == 2)
    names.resize(1);
  // One set for both directions is repeated, as onnxruntime does.
  if (directions == 2 && static_cast<int64_t>(names.size()) == activationsPer)
    names.append(SmallVector<std::string>(names));
  if (static_cast<int64_t>(names.size()) != activationsPer * directions)
    return error() << "attribute 'activations' has " << names.size()
                   << " entries; " << info.node.op_type() << " with "
                   << directions << " direction(s) takes "
                   << activationsPer * directions;

  auto floats = [&](llvm::StringRef attrName) {
    auto attr =
        dyn_cast_or_null<DenseF32ArrayAttr>(info.attributes.get(attrName));
    return attr ? attr.asArrayRef() : ArrayRef<float>();
  };
  ArrayRef<float> alphas = floats("activation_alpha");
  ArrayRef<float> betas = floats("activation_beta");
  // Each function that takes alpha (beta) consumes the next value of
  // activation_alpha (activation_beta) in order; missing ones take defaults.
  struct Known {
    const char *name;
    bool alpha, beta;
    float alphaDefault, betaDefault;
  };
  static const Known known[] = {
      {"relu", false, false, 0, 0},
      {"tanh", false, false, 0, 0},
      {"sigmoid", false, false, 0, 0},
      {"affine", true, true, 0, 0},
      {"leakyrelu", true, false, 0.01f, 0},
      {"thresholdedrelu", true, false, 0, 0},
      {"scaledtanh", true, true, 0, 0},
      {"hardsigmoid", true, true, 0.2f, 0.5f},
      {"elu", true, false, 1.0f, 0},
      {"softsign", false, false, 0, 0},
      {"softplus", false, false, 0, 0},
  };
  size_t nextAlpha = 0, nextBeta = 0;
  for (const std::string &fn : names) {
    const Known *entry = llvm::find_if(
        known, [&](const Known &candidate) { return fn == candidate.name; });
    if (entry == std::end(known))
      return error() << "unsupported activation '" << fn
                     << "' (ONNX recurrent ops take Relu, Tanh, Sigmoid, "
                        "Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, "
                        "HardSigmoid, Elu, Softsign, Softplus)";
    Activation activation{fn, entry->alphaDefault, entry->betaDefault};
    if (entry->alpha && nextAlpha < alphas.size())
      activation.alpha = alphas[nextAlpha++];
    if (entry->beta && nextBeta < betas.size())
      activation.beta = betas[nextBeta++];
    activations.push_back(activation);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The expansion
//===----------------------------------------------------------------------===//

DirectionWeights RecurrentExpander::directionWeights(int64_t direction) {
  DirectionWeights weights;
  int64_t gh = gates * hidden;
  weights.w = gather(w, 0, direction);
  weights.r = gather(r, 0, direction);
  if (bias) {
    Value both = gather(bias, 0, direction);
    Value wb = slice(both, 0, gh);
    Value rb = slice(both, gh, 2 * gh);
    if (kind == CellKind::GRU && linearBeforeReset) {
      // Rbh stays inside r * (Ht-1 Rh^T + Rbh).
      weights.bias =
          concat(*current,
                 {add(slice(wb, 0, 2 * hidden), slice(rb, 0, 2 * hidden)),
                  slice(wb, 2 * hidden, gh)},
                 0);
      weights.recurrentBias = slice(rb, 2 * hidden, gh);
    } else {
      weights.bias = add(wb, rb);
    }
  }
  if (kind == CellKind::GRU && !linearBeforeReset) {
    weights.rZR = op("slice", {weights.r, current->i64Constant({0}),
                               current->i64Constant({2 * hidden}),
                               current->i64Constant({0}), Value()});
    weights.rH = op("slice", {weights.r, current->i64Constant({2 * hidden}),
                              current->i64Constant({gh}),
                              current->i64Constant({0}), Value()});
  }
  if (peepholes) {
    Value p = gather(peepholes, 0, direction);
    weights.pI = slice(p, 0, hidden);
    weights.pO = slice(p, hidden, 2 * hidden);
    weights.pF = slice(p, 2 * hidden, 3 * hidden);
  }
  int64_t stateAxis = layout == 0 ? 0 : 1;
  if (initialH)
    weights.h0 = gather(initialH, stateAxis, direction);
  if (initialC)
    weights.c0 = gather(initialC, stateAxis, direction);
  weights.activations.assign(activations.begin() + direction * activationsPer,
                             activations.begin() +
                                 (direction + 1) * activationsPer);
  return weights;
}

Value RecurrentExpander::maskAt(int64_t step) {
  if (!seqLens)
    return {};
  if (masks.empty()) {
    // One comparison for all steps, [T, 1] < [1, B], then a [B, 1] mask
    // per step.
    named("mask");
    auto lensType = cast<RankedTensorType>(seqLens.getType());
    unsigned bits = lensType.getElementTypeBitWidth();
    SmallVector<APInt> positions;
    for (int64_t t = 0; t < steps; ++t)
      positions.push_back(APInt(bits, t, /*isSigned=*/true));
    auto type = RankedTensorType::get({steps, 1}, lensType.getElementType());
    Value position = current->constant(
        cast<ElementsAttr>(DenseElementsAttr::get(type, positions)));
    Value all = unsqueeze(
        *current, op("less", {position, unsqueeze(*current, seqLens, {0})}),
        {2});
    for (int64_t t = 0; t < steps; ++t)
      masks.push_back(gather(all, 0, t));
  }
  return masks[step];
}

void RecurrentExpander::runDirection(int64_t direction, Value projection,
                                     DirectionWeights &wt,
                                     SmallVector<Value> &ys, Value &hFinal,
                                     Value &cFinal) {
  bool reverse = reverseOnly || direction == 1;
  std::string dirName = reverse ? "reverse" : "forward";
  bool wantY = !info.node.output().empty() && !info.node.output(0).empty();
  ys.assign(steps, Value());
  Value h = wt.h0, c = wt.c0;
  const Activation &f = wt.activations[0];
  for (int64_t i = 0; i < steps && !hadError; ++i) {
    int64_t t = reverse ? steps - 1 - i : i;
    Value mask = maskAt(t);
    named(dirName + "/t" + std::to_string(t));
    Value xt = gather(projection, 0, t); // [B, G*H]
    Value hNew, cNew;
    if (kind == CellKind::LSTM) {
      const Activation &g = wt.activations[1], &hAct = wt.activations[2];
      Value pre = h ? gemm(h, wt.r, xt) : xt;
      SmallVector<Value> iofc = split(pre, {hidden, hidden, hidden, hidden});
      Value in = iofc[0], out = iofc[1], forget = iofc[2], cell = iofc[3];
      if (wt.pI && c) {
        in = add(in, mul(wt.pI, c));
        forget = add(forget, mul(wt.pF, c));
      }
      in = activate(f, clip(in));
      forget = inputForget ? op("sub", {scalar(1.0), in})
                           : activate(f, clip(forget));
      cell = activate(g, clip(cell));
      cNew = c ? add(mul(forget, c), mul(in, cell)) : mul(in, cell);
      if (wt.pO)
        out = add(out, mul(wt.pO, cNew));
      out = activate(f, clip(out));
      hNew = mul(out, activate(hAct, cNew));
    } else if (kind == CellKind::GRU) {
      const Activation &g = wt.activations[1];
      Value z, reset, candidate;
      if (linearBeforeReset) {
        SmallVector<Value> xzrh = split(xt, {hidden, hidden, hidden});
        Value zPre = xzrh[0], rPre = xzrh[1], hh = wt.recurrentBias;
        if (h) {
          SmallVector<Value> rec =
              split(gemm(h, wt.r, Value()), {hidden, hidden, hidden});
          zPre = add(zPre, rec[0]);
          rPre = add(rPre, rec[1]);
          hh = hh ? add(rec[2], hh) : rec[2];
        }
        z = activate(f, clip(zPre));
        reset = activate(f, clip(rPre));
        candidate = hh ? add(xzrh[2], mul(reset, hh)) : xzrh[2];
      } else {
        SmallVector<Value> xzr_h = split(xt, {2 * hidden, hidden});
        Value zr = h ? gemm(h, wt.rZR, xzr_h[0]) : xzr_h[0];
        SmallVector<Value> zrParts = split(zr, {hidden, hidden});
        z = activate(f, clip(zrParts[0]));
        reset = activate(f, clip(zrParts[1]));
        candidate = h ? gemm(mul(reset, h), wt.rH, xzr_h[1]) : xzr_h[1];
      }
      candidate = activate(g, clip(candidate));
      hNew = mul(op("sub", {scalar(1.0), z}), candidate);
      if (h)
        hNew = add(hNew, mul(z, h));
    } else {
      Value pre = h ? gemm(h, wt.r, xt) : xt;
      hNew = activate(f, clip(pre));
    }
    if (mask) {
      if (wantY)
        ys[t] = op("where", {mask, hNew, scalar(0.0)});
      hNew = op("where", {mask, hNew, h ? h : scalar(0.0)});
      if (cNew)
        cNew = op("where", {mask, cNew, c ? c : scalar(0.0)});
    } else if (wantY) {
      ys[t] = hNew;
    }
    h = hNew;
    c = cNew;
  }
  // onnxruntime gives an empty sequence zero final states, whatever the
  // initial ones.
  if (seqLens && (wt.h0 || wt.c0) && !hadError) {
    named(dirName + "/final");
    auto lensType = cast<RankedTensorType>(seqLens.getType());
    auto zeroType = RankedTensorType::get({}, lensType.getElementType());
    Value zero = current->constant(cast<ElementsAttr>(DenseElementsAttr::get(
        zeroType, APInt(lensType.getElementTypeBitWidth(), 0))));
    Value nonEmpty = unsqueeze(*current, op("greater", {seqLens, zero}), {1});
    if (wt.h0)
      h = op("where", {nonEmpty, h, scalar(0.0)});
    if (c && wt.c0)
      c = op("where", {nonEmpty, c, scalar(0.0)});
  }
  hFinal = h;
  cFinal = c;
}

FailureOr<SmallVector<Value>> RecurrentExpander::run() {
  if (failed(readAttributes()) || failed(readShapes()) ||
      failed(readActivations()))
    return failure();
  current = &base;
  auto wanted = [&](int position) {
    return info.node.output_size() > position &&
           !info.node.output(position).empty();
  };

  // The input projection of all steps, one Gemm per direction over
  // [T*B, I]; X in [T, B, I] order first.
  named("input");
  Value sequence =
      layout == 0
          ? x
          : op("transpose", {x},
               {b.getNamedAttr("perm", b.getDenseI64ArrayAttr({1, 0, 2}))});
  Value rows = op("reshape", {sequence, current->i64Constant({-1, inputSize})});
  int64_t batchDim = ShapedType::isDynamic(batch) ? -1 : batch;

  SmallVector<SmallVector<Value>> ys(directions);
  SmallVector<Value> hFinal(directions), cFinal(directions);
  for (int64_t d = 0; d < directions && !hadError; ++d) {
    std::string dirName = (reverseOnly || d == 1) ? "reverse" : "forward";
    named(dirName + "/weights");
    DirectionWeights weights = directionWeights(d);
    named(dirName + "/input_projection");
    Value projection = op(
        "reshape", {gemm(rows, weights.w, weights.bias),
                    current->i64Constant({steps, batchDim, gates * hidden})});
    runDirection(d, projection, weights, ys[d], hFinal[d], cFinal[d]);
  }
  if (hadError)
    return failure();

  // Outputs: Y [T, D, B, H] (layout 1: [B, T, D, H]), Y_h and Y_c [D, B, H]
  // (layout 1: [B, D, H]). The final ops carry the node's own name.
  SmallVector<Value> results(kind == CellKind::LSTM ? 3 : 2);
  if (wanted(0)) {
    named("output");
    SmallVector<Value> perDirection;
    for (int64_t d = 0; d < directions; ++d) {
      SmallVector<Value> stepped;
      for (Value y : ys[d])
        stepped.push_back(unsqueeze(*current, y,
                                    layout == 0 ? ArrayRef<int64_t>{0, 1}
                                                : ArrayRef<int64_t>{1, 2}));
      perDirection.push_back(concat(*current, stepped, layout == 0 ? 0 : 1));
    }
    results[0] = concat(base, perDirection, layout == 0 ? 1 : 2);
  }
  auto finalState = [&](ArrayRef<Value> states) {
    named("output");
    SmallVector<Value> perDirection;
    for (Value state : states)
      perDirection.push_back(unsqueeze(*current, state, {layout == 0 ? 0 : 1}));
    return concat(base, perDirection, layout == 0 ? 0 : 1);
  };
  if (wanted(1))
    results[1] = finalState(hFinal);
  if (kind == CellKind::LSTM && wanted(2)) {
    // Y_c without initial_c and without steps is still defined: c is always
    // set after the first step.
    results[2] = finalState(cFinal);
  }
  if (hadError)
    return failure();
  return results;
}

FailureOr<SmallVector<Value>> importRecurrent(NodeBuilder &builder,
                                              NodeInfo &info) {
  return RecurrentExpander(builder, info).run();
}

} // namespace graphc::onnx_import
