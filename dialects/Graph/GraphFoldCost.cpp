//===- GraphFoldCost.cpp - work and scratch of folding one op -------------===//
//
// Each estimate follows what the op's host kernel (lib/HostKernels) does:
// its loops for the work, its temporaries for the scratch. They only need to
// be upper bounds of the right order: an op near the budget folds or not,
// and either way the model computes the same values.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/FoldBudget.h"
#include "dialects/Graph/GraphEinsum.h"
#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;

namespace graphc::graph {
namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

double elementsOf(ArrayRef<int64_t> shape) {
  double count = 1;
  for (int64_t dim : shape)
    count *= static_cast<double>(std::max<int64_t>(dim, 0));
  return count;
}

double elementsOf(Value value) { return elementsOf(shapeOf(value)); }

/// Dim `index` of `value` (negative from the end), 1 when out of range.
double dimOf(Value value, int64_t index) {
  ArrayRef<int64_t> shape = shapeOf(value);
  int64_t rank = static_cast<int64_t>(shape.size());
  if (index < 0)
    index += rank;
  if (index < 0 || index >= rank)
    return 1;
  return static_cast<double>(std::max<int64_t>(shape[index], 0));
}

/// Bytes the kernels compute an element of `value` in: 16-bit floats and
/// f32 in float, everything else in its own width (at least 4).
double arithBytes(Value value) {
  Type element = cast<ShapedType>(value.getType()).getElementType();
  return element.isF64() || element.isInteger(64) ? 8 : 4;
}

bool isNarrowFloat(Value value) {
  Type element = cast<ShapedType>(value.getType()).getElementType();
  return element.isF16() || element.isBF16();
}

/// Float copies of 16-bit float operands and results (ComputeView and
/// ComputeOutput in lib/HostKernels/ComputeView.h).
double wideningBytes(Operation *op) {
  double bytes = 0;
  for (Value value : op->getOperands())
    if (isNarrowFloat(value))
      bytes += 4 * elementsOf(value);
  for (Value value : op->getResults())
    if (isNarrowFloat(value))
      bytes += 4 * elementsOf(value);
  return bytes;
}

/// Product of every label size of an einsum: the iterations of its loop
/// nest over output and summed labels.
double einsumIterations(EinsumOp op) {
  StringAttr equation = op.getEquationAttr();
  if (!equation)
    return INFINITY;
  TypeInference infer(op->getContext(), std::nullopt);
  FailureOr<EinsumEquation> parsed =
      parseEinsumEquation(infer, equation.getValue(), op->getNumOperands());
  if (failed(parsed) || parsed->inputs.size() != op->getNumOperands())
    return INFINITY;
  std::map<char, double> labels;
  // Ellipsis dims broadcast, right-aligned: the largest size per position.
  SmallVector<double> ellipsis;
  for (auto [term, operand] : llvm::zip(parsed->inputs, op->getOperands())) {
    ArrayRef<int64_t> shape = shapeOf(operand);
    int64_t letters = static_cast<int64_t>(term.letters.size());
    int64_t extra = static_cast<int64_t>(shape.size()) - letters;
    if (extra < 0)
      return INFINITY;
    int64_t at = term.ellipsisAt < 0 ? letters : term.ellipsisAt;
    for (int64_t i = 0; i < letters; ++i) {
      int64_t dim = shape[i < at ? i : i + extra];
      double &size = labels[term.letters[i]];
      size = std::max(size, static_cast<double>(std::max<int64_t>(dim, 0)));
    }
    if (static_cast<int64_t>(ellipsis.size()) < extra)
      ellipsis.insert(ellipsis.begin(), extra - ellipsis.size(), 1.0);
    for (int64_t i = 0; i < extra; ++i) {
      double &size = ellipsis[ellipsis.size() - extra + i];
      size = std::max(size, static_cast<double>(shape[at + i]));
    }
  }
  double iterations = 1;
  for (auto &[label, size] : labels)
    iterations *= size;
  for (double size : ellipsis)
    iterations *= size;
  return iterations;
}

/// Taps per output element of a resize: per dim, 1 (nearest), 2 (linear)
/// or 4 (cubic), stretched by the downscaling factor under antialias.
double resizeTaps(ResizeOp op, Value x, Value y, double &tableEntries) {
  StringRef name = op.getMode();
  double support = name == "cubic" ? 2 : 1;
  bool antialias = op.getAntialias() != 0;
  ArrayRef<int64_t> in = shapeOf(x), out = shapeOf(y);
  double taps = 1;
  tableEntries = 0;
  for (auto [inDim, outDim] : llvm::zip(in, out)) {
    double perDim = 1;
    if (name != "nearest") {
      double stretch = 1;
      if (antialias && outDim < inDim)
        stretch = static_cast<double>(inDim) /
                  static_cast<double>(std::max<int64_t>(outDim, 1));
      perDim = 2 * std::ceil(support * stretch) + 2;
    }
    taps *= perDim;
    tableEntries += perDim * static_cast<double>(std::max<int64_t>(outDim, 0));
  }
  return taps;
}

/// The innermost FoldWorkScope of this thread.
thread_local FoldWorkScope *currentScope = nullptr;

} // namespace

FoldCost estimateFoldCost(Operation *op) {
  double in = 0, out = 0;
  for (Value operand : op->getOperands())
    in += elementsOf(operand);
  for (Value result : op->getResults())
    out += elementsOf(result);
  // Every kernel reads its operands and writes its results at least once.
  FoldCost cost{in + out, 0};
  if (op->getNumOperands() == 0 || op->getNumResults() == 0)
    return cost;
  Value x = op->getOperand(0), y = op->getResult(0);
  double results = elementsOf(y);
  unsigned operands = op->getNumOperands();

  // Attributes through the ODS accessors (defaults defined once, in the
  // ops); a required one that is absent (an op not yet verified) makes the
  // work unbounded rather than guessed.
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](ConvOp conv) {
        if (operands < 2)
          return;
        // W is [M, C/group, k...] (or channels last [M, k..., C/group]):
        // each output element is a dot product of W's elements per output
        // channel, read from im2col columns [C/group * k, P] per image and
        // group.
        Value w = op->getOperand(1);
        double channels = std::max(dimOf(w, 0), 1.0);
        double perOutput = elementsOf(w) / channels;
        double positions = results / std::max(dimOf(x, 0) * channels, 1.0);
        cost.work += results * perOutput + perOutput * positions;
        cost.scratchBytes =
            perOutput * positions * arithBytes(x) + wideningBytes(op);
        if (conv.getChannelsLast())
          cost.scratchBytes += 2 * (in + out) * arithBytes(x);
      })
      .Case([&](QuantizedConvOp conv) {
        // As conv's, over int64 copies of X and W (and of channels-last
        // operands moved first).
        Value w = op->getOperand(1);
        double channels = std::max(dimOf(w, 0), 1.0);
        double perOutput = elementsOf(w) / channels;
        double positions = results / std::max(dimOf(x, 0) * channels, 1.0);
        cost.work += results * perOutput + perOutput * positions;
        cost.scratchBytes = perOutput * positions * 8 +
                            (elementsOf(x) + elementsOf(w) + results) * 8;
        // Moved copies: X and W in bytes, Y's two in int32.
        if (conv.getChannelsLast())
          cost.scratchBytes += in + 8 * out;
      })
      .Case([&](ConvTransposeOp) {
        if (operands < 2)
          return;
        // W is [C, M/group, k...]: every input element scatters into W's
        // elements per input channel, through columns [M/group * k, inSize].
        Value w = op->getOperand(1);
        double channels = std::max(dimOf(w, 0), 1.0);
        double perInput = elementsOf(w) / channels;
        double positions =
            elementsOf(x) / std::max(dimOf(x, 0) * dimOf(x, 1), 1.0);
        cost.work += 2 * elementsOf(x) * perInput;
        cost.scratchBytes =
            perInput * positions * arithBytes(x) + wideningBytes(op);
      })
      .Case<MaxPoolOp, MaxPoolWithIndicesOp, AveragePoolOp, LpPoolOp>(
          [&](auto pool) {
            DenseI64ArrayAttr kernel = pool.getKernelShapeAttr();
            cost.work +=
                results * (kernel ? elementsOf(kernel.asArrayRef()) : INFINITY);
          })
      .Case([&](Col2ImOp) {
        // Each image element visits every offset of the block.
        cost.work += results * dimOf(x, 1) / std::max(dimOf(y, 1), 1.0);
      })
      .Case([&](DetOp) {
        // LU of each [M, M] matrix in a float64 copy.
        double m = dimOf(x, -1);
        cost.work += results * m * m * m;
        cost.scratchBytes = m * m * 8;
      })
      .Case([&](MatMulOp) {
        if (operands != 2)
          return;
        cost.work += results * dimOf(x, -1);
        cost.scratchBytes = wideningBytes(op);
      })
      .Case([&](QuantizedMatMulOp) {
        // Each A matrix and the packed B in 4-byte copies.
        Value b = op->getOperand(1);
        cost.work += results * dimOf(x, -1);
        cost.scratchBytes =
            4 * (dimOf(x, -2) * dimOf(x, -1) + dimOf(b, -2) * dimOf(b, -1));
      })
      .Case([&](GemmOp gemm) {
        if (operands < 2)
          return;
        double k = gemm.getTransA() ? dimOf(x, 0) : dimOf(x, 1);
        cost.work += results * k;
        cost.scratchBytes = wideningBytes(op);
      })
      .Case([&](AttentionOp) {
        if (operands < 3)
          return;
        // Q [.., Sq, D], K [.., Sk, D], V [.., Sk, Dv]: each query row
        // scores every key and sums every value row.
        Value k = op->getOperand(1), v = op->getOperand(2);
        double depth = std::max(dimOf(x, -1), 1.0), keys = dimOf(k, -2);
        double rows = elementsOf(x) / depth;
        cost.work += rows * keys * (depth + dimOf(v, -1));
        cost.scratchBytes = keys * (arithBytes(x) + 8) + dimOf(v, -1) * 8;
      })
      .Case([&](EinsumOp einsum) {
        cost.work += einsumIterations(einsum) * operands;
      })
      .Case([&](LrnOp lrn) {
        IntegerAttr size = lrn.getSizeAttr();
        cost.work +=
            results * (size ? static_cast<double>(size.getInt()) : INFINITY);
      })
      .Case([&](TopKOp topK) {
        double length = dimOf(x, topK.getAxis());
        cost.work += elementsOf(x) * (std::log2(std::max(length, 1.0)) + 1);
        cost.scratchBytes = length * (8 + arithBytes(x));
      })
      .Case([&](ResizeOp resize) {
        double tableEntries = 0;
        double taps = resizeTaps(resize, x, y, tableEntries);
        cost.work +=
            results * taps * static_cast<double>(shapeOf(x).size() + 1);
        cost.scratchBytes = tableEntries * 17;
      })
      .Case([&](GridSampleOp sample) {
        // 1, 2 or 4 taps per spatial dim.
        double spatial = std::max<double>(shapeOf(x).size(), 2) - 2;
        double perDim = sample.getMode() == "nearest"  ? 1
                        : sample.getMode() == "linear" ? 2
                                                       : 4;
        cost.work += results * std::pow(perDim, spatial) * (spatial + 1);
      })
      .Case([&](RoiAlignOp align) {
        // Per bin, the samples of a grid (bisected to those inside the
        // image: with an adaptive grid at most about 2 per pixel and
        // axis) and 4 taps each.
        auto perAxis = [&](int64_t dim) {
          int64_t ratio = align.getSamplingRatio();
          return ratio > 0 ? static_cast<double>(ratio) : 2 * dimOf(x, dim) + 4;
        };
        cost.work += results * (perAxis(2) * perAxis(3) * 4 + 128);
      })
      .Case([&](DftOp dft) {
        // Each result element sums at most the longest dim of the input;
        // the twiddle tables hold dft_length entries.
        double longest = 0;
        for (int64_t dim : shapeOf(x))
          longest = std::max(longest, static_cast<double>(dim));
        cost.work += results * longest;
        double length = longest;
        if (Value given = dft.getDftLength())
          if (auto value = getConstantInts(given); value && value->size() == 1)
            length = std::max(length, static_cast<double>(value->front()));
        cost.scratchBytes = length * 16;
      })
      .Case<LayerNormalizationOp, RmsNormalizationOp, BatchNormalizationOp,
            InstanceNormalizationOp, GroupNormalizationOp>(
          [&](Operation *) { cost.scratchBytes = wideningBytes(op); });
  return cost;
}

bool chargeFoldBudget(Operation *op) {
  for (Type type : op->getResultTypes()) {
    auto shaped = dyn_cast<RankedTensorType>(type);
    if (!shaped || !shaped.hasStaticShape() ||
        !isRepresentableShape(shaped.getShape(), /*elementBytes=*/8) ||
        shaped.getNumElements() > FoldBudget::kMaxResultElements)
      return false;
  }
  for (Type type : op->getOperandTypes()) {
    auto shaped = dyn_cast<RankedTensorType>(type);
    if (!shaped || !shaped.hasStaticShape())
      return false;
  }
  FoldCost cost = estimateFoldCost(op);
  if (!(cost.work <= FoldBudget::kMaxWork &&
        cost.scratchBytes <= FoldBudget::kMaxScratchBytes))
    return false;
  if (cost.work <= FoldBudget::kMinCountedWork || !currentScope)
    return true;
  return currentScope->charge(cost.work);
}

FoldWorkScope::FoldWorkScope() : outer(currentScope) { currentScope = this; }

FoldWorkScope::~FoldWorkScope() { currentScope = outer; }

bool FoldWorkScope::charge(double work) {
  if (spent + work > FoldBudget::kMaxTotalWork)
    return false;
  spent += work;
  return true;
}

} // namespace graphc::graph
