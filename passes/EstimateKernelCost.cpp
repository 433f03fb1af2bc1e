//===- EstimateKernelCost.cpp - flops and DRAM bytes per kernel ----------===//
//
// The cost model of a launch: what its kernel must move through DRAM (each
// input read once, but for a gathered table only the entries gathered; each
// output written once: a lower bound that fusion lowers) and the arithmetic
// it does. `graphc inspect` divides them by a
// GPU's bandwidth and peak for a roofline estimate; autotuning will rank
// candidates from it before measuring.
//
//===----------------------------------------------------------------------===//

#include "dialects/Exec/ExecOps.h"
#include "dialects/Graph/GraphEinsum.h"
#include "dialects/Graph/GraphOps.h"
#include "lib/Support/CheckedArith.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace graphc {

#define GEN_PASS_DEF_ESTIMATEKERNELCOST
#include "passes/Passes.h.inc"

using namespace mlir;

namespace {

int64_t elementCount(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() ? type.getNumElements() : 0;
}

ArrayRef<int64_t> shapeOf(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type ? type.getShape() : ArrayRef<int64_t>();
}

/// `count` operations as an int64_t, saturating (products of large sizes).
int64_t saturated(double count) {
  constexpr double kLargest = 9.2e18;
  return count >= kLargest ? static_cast<int64_t>(kLargest)
                           : static_cast<int64_t>(count);
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t result = 1;
  for (int64_t dim : dims)
    result *= std::max<int64_t>(dim, 0);
  return result;
}

/// 2 per multiply-add over the labels an einsum sums away: those of its
/// inputs that its output (explicit or implied) does not keep.
int64_t einsumFlops(graph::EinsumOp op) {
  graph::TypeInference quiet(op.getContext(), std::nullopt);
  FailureOr<graph::EinsumEquation> equation = graph::parseEinsumEquation(
      quiet, op.getEquation(), op.getInputs().size());
  if (failed(equation))
    return 0;
  llvm::SmallDenseMap<char, int64_t> sizes;
  for (auto [term, input] : llvm::zip(equation->inputs, op.getInputs())) {
    ArrayRef<int64_t> shape = shapeOf(input);
    int64_t letters = term.letters.size();
    for (int64_t l = 0; l < letters; ++l) {
      // Letters after the ellipsis count from the end of the shape.
      int64_t dim = term.ellipsisAt >= 0 && l >= term.ellipsisAt
                        ? static_cast<int64_t>(shape.size()) - (letters - l)
                        : l;
      if (dim >= 0 && dim < static_cast<int64_t>(shape.size()))
        sizes[term.letters[l]] = shape[dim];
    }
  }
  int64_t summed = 1;
  for (auto [label, size] : sizes)
    if (!llvm::is_contained(equation->output.letters, label))
      summed *= size;
  return 2 * elementCount(op.getOutput()) * summed;
}

int64_t opFlops(Operation *op) {
  if (op->hasTrait<graph::OpTrait::Pointwise>())
    return op->getNumResults() ? elementCount(op->getResult(0)) : 0;
  return llvm::TypeSwitch<Operation *, int64_t>(op)
      .Case([](graph::MatMulOp op) {
        ArrayRef<int64_t> a = shapeOf(op.getA());
        int64_t k = a.empty() ? 0 : a.back();
        return 2 * elementCount(op.getY()) * k;
      })
      .Case([](graph::GemmOp op) {
        ArrayRef<int64_t> a = shapeOf(op.getA());
        int64_t k = a.size() == 2 ? a[op.getTransA() ? 0 : 1] : 0;
        int64_t outputs = elementCount(op.getY());
        return 2 * outputs * k + (op.getC() ? outputs : 0);
      })
      .Case([](graph::ConvOp op) {
        // W is [M, C/group, k...]: one multiply-add per weight per output.
        int64_t outputs = elementCount(op.getY());
        return 2 * outputs * product(shapeOf(op.getW()).drop_front()) +
               (op.getB() ? outputs : 0);
      })
      .Case([](graph::QuantizedMatMulOp op) {
        ArrayRef<int64_t> a = shapeOf(op.getA());
        int64_t k = a.empty() ? 0 : a.back();
        return 2 * elementCount(op.getY()) * k;
      })
      .Case([](graph::QuantizedConvOp op) {
        // W is [M, C/group, k...] or [M, k..., C/group]: as conv's.
        return 2 * elementCount(op.getY()) *
               product(shapeOf(op.getW()).drop_front());
      })
      .Case([](graph::ConvTransposeOp op) {
        // W is [C, M/group, k...]: each input element scatters through it.
        return 2 * elementCount(op.getX()) *
                   product(shapeOf(op.getW()).drop_front()) +
               (op.getB() ? elementCount(op.getY()) : 0);
      })
      .Case([](graph::EinsumOp op) { return einsumFlops(op); })
      .Case([](graph::AttentionOp op) {
        // Q K^T and P V (a multiply-add each), and per score the scale,
        // mask, max, exp and sum of the softmax.
        ArrayRef<int64_t> q = shapeOf(op.getQ()), k = shapeOf(op.getK()),
                          v = shapeOf(op.getV());
        if (q.size() != 4 || k.size() != 4 || v.size() != 4)
          return int64_t(0);
        // A causal row i scores keys 0..i only.
        int64_t rowKeys = q[2] * k[2];
        if (op.getIsCausal() != 0) {
          rowKeys = 0;
          for (int64_t i = 0; i < q[2]; ++i)
            rowKeys += std::min(i + 1, k[2]);
        }
        int64_t scores = q[0] * q[1] * rowKeys;
        return scores * (2 * q[3] + 2 * v[3] + 5);
      })
      .Case<graph::MaxPoolOp, graph::MaxPoolWithIndicesOp, graph::AveragePoolOp,
            graph::LpPoolOp>([](auto op) {
        return elementCount(op->getResult(0)) * product(op.getKernelShape());
      })
      .Case([](graph::Col2ImOp op) {
        // Each image element visits every offset of the block.
        ArrayRef<int64_t> x = shapeOf(op.getInput()),
                          y = shapeOf(op.getOutput());
        if (x.size() != 3 || y.size() < 2 || y[1] == 0)
          return int64_t(0);
        return saturated(double(elementCount(op.getOutput())) * (x[1] / y[1]));
      })
      .Case([](graph::RoiAlignOp op) {
        // 4 taps of 2 flops per sample; an adaptive grid taken as that of
        // a box the size of the image.
        ArrayRef<int64_t> x = shapeOf(op.getX());
        if (x.size() != 4)
          return int64_t(0);
        auto perAxis = [&](int64_t dim, int64_t bins) {
          int64_t ratio = op.getSamplingRatio();
          return ratio > 0 ? static_cast<double>(ratio)
                           : std::ceil(double(std::max<int64_t>(dim, 1)) /
                                       double(std::max<int64_t>(bins, 1)));
        };
        return saturated(double(elementCount(op.getY())) * 8 *
                         perAxis(x[2], op.getOutputHeight()) *
                         perAxis(x[3], op.getOutputWidth()));
      })
      .Case([](graph::DetOp op) {
        // LU of each matrix.
        ArrayRef<int64_t> x = shapeOf(op.getX());
        double m = x.empty() ? 0 : static_cast<double>(x.back());
        return saturated(double(elementCount(op.getY())) * m * m * m);
      })
      .Case([](graph::MaxUnpoolOp op) {
        // Each result element searches all the indices.
        return saturated(double(elementCount(op.getOutput())) *
                         double(elementCount(op.getX())));
      })
      .Case<graph::SoftmaxOp, graph::LogSoftmaxOp>([](Operation *op) {
        // max, subtract, exp, sum, divide (or log).
        return 5 * elementCount(op->getOperand(0));
      })
      .Case<graph::LayerNormalizationOp, graph::RmsNormalizationOp,
            graph::GroupNormalizationOp, graph::InstanceNormalizationOp,
            graph::MeanVarianceNormalizationOp, graph::LpNormalizationOp>(
          [](Operation *op) {
            // mean, variance, normalise, scale and shift.
            return 8 * elementCount(op->getOperand(0));
          })
      .Case([](graph::BatchNormalizationOp op) {
        return 2 * elementCount(op->getOperand(0));
      })
      .Case<graph::ReduceSumOp, graph::ReduceMeanOp, graph::ReduceMaxOp,
            graph::ReduceMinOp, graph::ReduceProdOp, graph::ReduceLogSumOp,
            graph::ReduceLogSumExpOp, graph::ReduceSumSquareOp, graph::ArgMaxOp,
            graph::ArgMinOp, graph::GlobalAveragePoolOp, graph::GlobalMaxPoolOp,
            graph::GlobalLpPoolOp, graph::CumSumOp, graph::HardmaxOp,
            graph::LrnOp, graph::TopKOp>(
          [](Operation *op) { return elementCount(op->getOperand(0)); })
      .Case([](graph::DftOp op) {
        // A complex multiply-add per result element and summed sample.
        int64_t longest = 0;
        for (int64_t dim : shapeOf(op.getInput()))
          longest = std::max(longest, dim);
        std::optional<int64_t> products =
            checkedMul(elementCount(op.getOutput()), longest);
        std::optional<int64_t> flops =
            products ? checkedMul(*products, 4) : std::nullopt;
        // Saturated well below the int64 range, which the kernel's sum of
        // its ops' costs must stay in.
        constexpr int64_t kMostFlops = int64_t(1) << 60;
        return std::min(flops.value_or(kMostFlops), kMostFlops);
      })
      // Data movement and constants compute nothing.
      .Default([](Operation *) { return int64_t(0); });
}

/// The bytes a kernel reads of an input: all of it, unless its only uses
/// are as the data of gathers, which read one element of it per element
/// they produce (an embedding lookup reads the rows its indices name, not
/// the table), bounded by its size. An input whose value was copied into
/// the body is passed, not read.
int64_t inputBytesRead(BlockArgument argument) {
  int64_t whole = exec::slotBytes(argument.getType());
  auto type = cast<RankedTensorType>(argument.getType());
  int64_t elementBytes =
      std::max<int64_t>(1, (type.getElementTypeBitWidth() + 7) / 8);
  int64_t gathered = 0;
  for (OpOperand &use : argument.getUses()) {
    Operation *user = use.getOwner();
    bool isData =
        use.getOperandNumber() == 0 &&
        isa<graph::GatherOp, graph::GatherElementsOp, graph::GatherNdOp>(user);
    // A gather of a dynamic shape could read any of it.
    int64_t produced = isData ? elementCount(user->getResult(0)) : 0;
    if (!isData || produced == 0)
      return whole;
    gathered += produced * elementBytes;
  }
  return std::min(gathered, whole);
}

void estimate(exec::KernelOp kernel) {
  Block &body = kernel.getBody().front();
  int64_t read = 0, written = 0, flops = 0;
  Type flopType;
  for (BlockArgument argument : body.getArguments())
    read += inputBytesRead(argument);
  for (Value result : body.getTerminator()->getOperands())
    written += exec::slotBytes(result.getType());
  int64_t heaviest = -1;
  for (Operation &op : body.without_terminator()) {
    int64_t opCost = opFlops(&op);
    flops += opCost;
    // The heaviest op's result type is what the arithmetic runs in; a
    // quantized product multiplies its 8-bit operands (the peak of 8-bit
    // tensor cores is by operand type), whatever it accumulates in.
    if (opCost > heaviest && op.getNumResults()) {
      heaviest = opCost;
      flopType = isa<graph::QuantizedMatMulOp, graph::QuantizedConvOp>(op)
                     ? getElementTypeOrSelf(op.getOperand(0).getType())
                     : getElementTypeOrSelf(op.getResult(0).getType());
    }
  }
  Builder b(kernel.getContext());
  kernel.setFlopsAttr(b.getI64IntegerAttr(flops));
  kernel.setBytesReadAttr(b.getI64IntegerAttr(read));
  kernel.setBytesWrittenAttr(b.getI64IntegerAttr(written));
  if (flopType)
    kernel.setFlopTypeAttr(TypeAttr::get(flopType));
}

struct EstimateKernelCostPass
    : impl::EstimateKernelCostBase<EstimateKernelCostPass> {
  void runOnOperation() override {
    if (failed(estimateKernelCost(getOperation())))
      signalPassFailure();
  }
};

} // namespace

LogicalResult estimateKernelCost(ModuleOp module) {
  for (exec::KernelOp kernel : module.getOps<exec::KernelOp>())
    estimate(kernel);
  return success();
}

} // namespace graphc
