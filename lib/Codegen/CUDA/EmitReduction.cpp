//===- EmitReduction.cpp - reductions, arg-reductions, softmax, scans
//------===//
//
// Reductions view the input as rows (kept dims) of row elements (reduced
// dims). One block handles a row: its threads stride over the elements and
// combine with warp shuffles (gc_block_reduce, or gc_warp_reduce with a warp
// per row), in a fixed order so that the
// results are deterministic.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/EmitSupport.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;

namespace graphc::codegen::cuda {
namespace {

/// The view reducing exactly `axis` of `shape`.
ReductionView axisView(ArrayRef<int64_t> shape, int64_t axis) {
  SmallVector<bool> reduced(shape.size(), false);
  reduced[axis] = true;
  return makeReductionView(shape, reduced);
}

/// keepdims and noop_with_empty_axes of a reduce_* op.
struct ReduceFlags {
  bool keepdims, noopWithEmptyAxes;
};
ReduceFlags reduceFlags(Operation *op) {
  return llvm::TypeSwitch<Operation *, ReduceFlags>(op)
      .Case<graph::ReduceSumOp, graph::ReduceMeanOp, graph::ReduceMaxOp,
            graph::ReduceMinOp, graph::ReduceProdOp, graph::ReduceL1Op,
            graph::ReduceL2Op, graph::ReduceLogSumOp, graph::ReduceLogSumExpOp,
            graph::ReduceSumSquareOp>([](auto reduce) {
        return ReduceFlags{reduce.getKeepdims() != 0,
                           reduce.getNoopWithEmptyAxes() != 0};
      })
      .Default([](Operation *) -> ReduceFlags {
        llvm_unreachable("not a reduce_* op");
      });
}

/// The axes reduced by a reduce_* op: the constant `axes` operand (or
/// attribute), all axes when empty unless noop_with_empty_axes, and as a last
/// resort the axes whose extent the keepdims result type changes.
FailureOr<SmallVector<bool>> reducedAxes(KernelEmitter &e) {
  ArrayRef<int64_t> inShape = e.inputShape(0);
  int64_t rank = inShape.size();
  ReduceFlags flags = reduceFlags(e.getOp());
  std::optional<SmallVector<int64_t>> axes;
  if (e.hasInput(1)) {
    axes = e.constantInts(1);
    if (!axes) {
      ArrayRef<int64_t> outShape = e.resultShape();
      if (!flags.keepdims || static_cast<int64_t>(outShape.size()) != rank)
        return e.fail("axes (input 1) must be a constant");
      // Reducing a dim of extent 1 or not changes nothing, so the dims whose
      // extent changes identify the reduction.
      SmallVector<bool> reduced(rank, false);
      for (int64_t k = 0; k < rank; ++k)
        reduced[k] = inShape[k] != outShape[k];
      return reduced;
    }
  } else {
    axes = e.intsAttr("axes");
  }
  SmallVector<bool> reduced(rank, false);
  if (!axes || axes->empty()) {
    if (!flags.noopWithEmptyAxes)
      reduced.assign(rank, true);
    return reduced;
  }
  for (int64_t axis : *axes) {
    std::optional<int64_t> a = normalizeAxis(axis, rank);
    if (!a)
      return e.fail("axis " + Twine(axis) + " is out of range");
    reduced[*a] = true;
  }
  return reduced;
}

LogicalResult emitReduce(KernelEmitter &e) {
  FailureOr<SmallVector<bool>> reduced = reducedAxes(e);
  if (failed(reduced))
    return failure();
  Type elementType = e.inputType(0).getElementType();
  std::string t = reduceType(elementType);
  ReductionView view = makeReductionView(e.inputShape(0), *reduced);
  bool isFloat = isFloatType(elementType);
  std::string asFloat = isFloat ? "acc" : "static_cast<double>(acc)";

  e.openRowLoop(view.rows, view.length);
  e.rowBase(view, "row", "base");
  if (isa<graph::ReduceLogSumExpOp>(e.getOp())) {
    // Subtract the row maximum before exponentiating to avoid overflow.
    std::string ft = isFloat ? t : "double";
    e.line(ft + " peak = " + lowest(ft) + ";");
    e.openRowElements(view, ft);
    e.line("peak = gc_max(peak, x);");
    e.close();
    e.line("peak = " + e.rowReduce() + "(peak, gc_op_max());");
    e.line("const " + ft + " shift = gc_isinf(peak) ? " + literal(0, ft) +
           " : peak;");
    e.line(ft + " acc = " + literal(0, ft) + ";");
    e.openRowElements(view, ft);
    e.line("acc += gc_exp(x - shift);");
    e.close();
    e.line("acc = " + e.rowReduce() + "(acc, gc_op_add());");
    e.line("if (" + e.rowThread() + " == 0) " + e.store(0, "row", "shift + gc_log(acc)"));
    e.close();
    return success();
  }

  std::string init = literal(0, t), op = "gc_op_add()", update = "acc += x;";
  std::string result = "acc";
  llvm::TypeSwitch<Operation *>(e.getOp())
      .Case([&](graph::ReduceMaxOp) {
        init = lowest(t);
        op = "gc_op_max()";
        update = "acc = gc_max(acc, x);";
      })
      .Case([&](graph::ReduceMinOp) {
        init = highest(t);
        op = "gc_op_min()";
        update = "acc = gc_min(acc, x);";
      })
      .Case([&](graph::ReduceProdOp) {
        init = literal(1, t);
        op = "gc_op_mul()";
        update = "acc *= x;";
      })
      .Case([&](graph::ReduceL1Op) {
        update = "acc += x < " + literal(0, t) + " ? static_cast<" + t +
                 ">(-x) : x;";
      })
      .Case([&](graph::ReduceL2Op) {
        update = "acc += x * x;";
        result = "gc_sqrt(" + asFloat + ")";
      })
      .Case([&](graph::ReduceSumSquareOp) { update = "acc += x * x;"; })
      .Case([&](graph::ReduceLogSumOp) { result = "gc_log(" + asFloat + ")"; })
      .Case([&](graph::ReduceMeanOp) {
        result = "acc / " + literal(std::max<int64_t>(view.length, 1), t);
      });
  e.line(t + " acc = " + init + ";");
  e.openRowElements(view, t);
  e.line(update);
  e.close();
  e.line("acc = " + e.rowReduce() + "(acc, " + op + ");");
  e.line("if (" + e.rowThread() + " == 0) " + e.store(0, "row", result));
  e.close();
  return success();
}

LogicalResult emitArgReduce(KernelEmitter &e) {
  ArrayRef<int64_t> shape = e.inputShape(0);
  bool largest = isa<graph::ArgMaxOp>(e.getOp());
  std::pair<int64_t, bool> axisAndLast =
      llvm::TypeSwitch<Operation *, std::pair<int64_t, bool>>(e.getOp())
          .Case<graph::ArgMaxOp, graph::ArgMinOp>([](auto arg) {
            return std::pair<int64_t, bool>(arg.getAxis(),
                                            arg.getSelectLastIndex() != 0);
          });
  auto [axisAttr, last] = axisAndLast;
  std::optional<int64_t> axis = normalizeAxis(axisAttr, shape.size());
  if (!axis)
    return e.fail("axis is out of range");
  std::string t = reduceType(e.inputType(0).getElementType());
  std::string flags = std::string(largest ? "true" : "false") + ", " +
                      (last ? "true" : "false");
  ReductionView view = axisView(shape, *axis);
  // gc_block_arg combines through shared memory and a block barrier: one
  // row per block, whatever rows_per_block says.
  e.openRowLoop(view.rows, view.length, /*warpRows=*/false);
  e.rowBase(view, "row", "base");
  e.line(t + " best = " + (largest ? lowest(t) : highest(t)) + ";");
  e.line("long long bestIndex = -1;");
  e.openRowElements(view, t);
  e.open("if (bestIndex < 0 || gc_arg_better(x, r, best, bestIndex, " + flags +
         ")) {");
  e.line("best = x;");
  e.line("bestIndex = r;");
  e.close();
  e.close();
  e.line("bestIndex = gc_block_arg(best, bestIndex, " + flags + ");");
  e.line("if (threadIdx.x == 0) out0[row] = bestIndex < 0 ? 0 : bestIndex;");
  e.close();
  return success();
}

/// Softmax and log_softmax in register form (see RowRegisters): the row is
/// read once into `xr`; softmax keeps exp(x - peak) there for the store.
LogicalResult emitSoftmaxRegisters(KernelEmitter &e, StringRef t,
                                   const ReductionView &view,
                                   const RowRegisters &plan) {
  bool log = isa<graph::LogSoftmaxOp>(e.getOp());
  int64_t vec = plan.vec;
  std::string x = "xr[p * " + std::to_string(vec) + " + j]";
  if (failed(e.definePrologue(vec)))
    return failure();
  e.openRegisterRowLoop(view.rows, plan);
  e.line("const long long base = row * " + Twine(view.length) + "LL;");
  // Slots past the row hold the lowest value, which leaves the peak alone.
  e.loadRowRegisters(plan, t, "base", "xr", lowest(t));
  e.line(t + " peak = " + lowest(t) + ";");
  e.line("#pragma unroll");
  e.line("for (int k = 0; k < " + Twine(plan.elements()) +
         "; ++k) peak = gc_max(peak, xr[k]);");
  e.line("peak = " + e.rowReduce() + "(peak, gc_op_max());");
  e.line(t + " sum = " + literal(0, t) + ";");
  e.openRowVectors(plan);
  e.line("#pragma unroll");
  e.open("for (int j = 0; j < " + Twine(vec) + "; ++j) {");
  if (log) {
    e.line("sum += gc_exp(" + x + " - peak);");
  } else {
    e.line(x + " = gc_exp(" + x + " - peak);");
    e.line("sum += " + x + ";");
  }
  e.close();
  e.closeRowVectors(plan);
  e.line("sum = " + e.rowReduce() + "(sum, gc_op_add());");
  if (log)
    e.line("const " + t + " logSum = gc_log(sum);");
  std::string outType = cxxType(e.resultType().getElementType());
  e.openRowVectors(plan);
  e.line("gc_vec<" + outType + ", " + Twine(vec) + "> y;");
  e.line("#pragma unroll");
  e.line("for (int j = 0; j < " + Twine(vec) + "; ++j) y.e[j] = gc_cvt<" +
         outType + ">(" + (log ? x + " - peak - logSum" : x + " / sum") + ");");
  e.line("gc_stv<" + outType + ", " + Twine(vec) + ">(out0 + base + v * " +
         Twine(vec) + "LL, y);");
  e.closeRowVectors(plan);
  e.close();
  return success();
}

LogicalResult emitSoftmax(KernelEmitter &e) {
  bool hardmax = isa<graph::HardmaxOp>(e.getOp());
  bool log = isa<graph::LogSoftmaxOp>(e.getOp());
  ArrayRef<int64_t> shape = e.inputShape(0);
  std::optional<int64_t> axis = normalizeAxis(
      llvm::TypeSwitch<Operation *, int64_t>(e.getOp())
          .Case<graph::SoftmaxOp, graph::LogSoftmaxOp, graph::HardmaxOp>(
              [](auto softmax) { return softmax.getAxis(); }),
      shape.size());
  if (!axis)
    return e.fail("axis is out of range");
  Type elementType = e.inputType(0).getElementType();
  if (!isFloatType(elementType))
    return e.fail("input 0 must have a floating-point element type");
  std::string t = computeType(elementType);
  ReductionView view = axisView(shape, *axis);
  if (!hardmax && view.contiguous) {
    // Softmax and log_softmax over the innermost axis: the register form.
    int64_t vec = vectorElements(elementType);
    while (vec > 1 && shape.back() % vec != 0)
      vec /= 2;
    if (std::optional<RowRegisters> plan =
            e.planRowRegisters(view.rows, view.length, vec))
      return emitSoftmaxRegisters(e, t, view, *plan);
  }
  if (failed(e.definePrologue()))
    return failure();
  // Hardmax's gc_block_arg needs the whole block (see emitArgReduce).
  e.openRowLoop(view.rows, view.length, /*warpRows=*/!hardmax);
  e.rowBase(view, "row", "base");
  if (hardmax) {
    e.line(t + " best = " + lowest(t) + ";");
    e.line("long long bestIndex = -1;");
    e.openRowElements(view, t);
    e.open("if (bestIndex < 0 || gc_arg_better(x, r, best, bestIndex, true, "
           "false)) {");
    e.line("best = x;");
    e.line("bestIndex = r;");
    e.close();
    e.close();
    e.line("bestIndex = gc_block_arg(best, bestIndex, true, false);");
    e.openRowElements(view, t);
    e.line(e.store(0, "at", "r == bestIndex ? 1.0f : 0.0f"));
    e.close();
    e.close();
    return success();
  }
  e.line(t + " peak = " + lowest(t) + ";");
  e.openRowElements(view, t);
  e.line("peak = gc_max(peak, x);");
  e.close();
  e.line("peak = " + e.rowReduce() + "(peak, gc_op_max());");
  e.line(t + " sum = " + literal(0, t) + ";");
  e.openRowElements(view, t);
  e.line("sum += gc_exp(x - peak);");
  e.close();
  e.line("sum = " + e.rowReduce() + "(sum, gc_op_add());");
  if (log)
    e.line("const " + t + " logSum = gc_log(sum);");
  e.openRowElements(view, t);
  e.line(
      e.store(0, "at", log ? "x - peak - logSum" : "gc_exp(x - peak) / sum"));
  e.close();
  e.close();
  return success();
}

/// The scan of CumSum along `axis`: one thread scans one line.
void emitCumSumAlong(KernelEmitter &e, int64_t axis) {
  ArrayRef<int64_t> shape = e.inputShape(0);
  auto cumSum = e.as<graph::CumSumOp>();
  bool exclusive = cumSum.getExclusive() != 0;
  bool reverse = cumSum.getReverse() != 0;
  std::string t = computeType(e.inputType(0).getElementType());
  ReductionView view = axisView(shape, axis);
  e.openLinearLoop(view.rows, "row");
  e.rowBase(view, "row", "base");
  e.line(t + " acc = " + literal(0, t) + ";");
  int64_t n = view.length;
  e.open("for (long long j = 0; j < " + Twine(n) + "LL; ++j) {");
  e.line("const long long r = " +
         (reverse ? "(" + Twine(n - 1) + "LL - j)" : Twine("j")) + ";");
  e.rowElement(view, "r", "base", "at");
  e.line("const " + t + " x = " + e.load(0, "at") + ";");
  if (exclusive) {
    e.line(e.store(0, "at", "acc"));
    e.line("acc += x;");
  } else {
    e.line("acc += x;");
    e.line(e.store(0, "at", "acc"));
  }
  e.close();
  e.close();
}

/// CumSum. A constant axis gives one specialised scan; an axis known only at
/// run time selects among the scans of every axis of the (static) rank, all
/// grid-stride loops, so one launch configuration serves them all.
LogicalResult emitCumSum(KernelEmitter &e) {
  ArrayRef<int64_t> shape = e.inputShape(0);
  int64_t rank = shape.size();
  if (auto axisValue = e.constantInts(1)) {
    if (axisValue->size() != 1)
      return e.fail("axis (input 1) must be a scalar");
    std::optional<int64_t> axis = normalizeAxis(axisValue->front(), rank);
    if (!axis)
      return e.fail("axis is out of range");
    emitCumSumAlong(e, *axis);
    return success();
  }
  if (!e.hasInput(1) || e.inputType(1).getNumElements() != 1)
    return e.fail("axis (input 1) must be a scalar");
  if (rank == 0)
    return e.fail("cum_sum needs an input of rank 1 or more");
  e.line("long long axis = (long long)in1[0];");
  e.line("if (axis < 0) axis += " + Twine(rank) + "LL;");
  e.open("switch (axis) {");
  for (int64_t axis = 0; axis < rank; ++axis) {
    e.open("case " + Twine(axis) + ": {");
    emitCumSumAlong(e, axis);
    e.line("break;");
    e.close();
  }
  e.line("default:");
  e.line("  " + e.report("(long long)in1[0]", -rank, rank,
                         KernelEmitter::Reported::Axis));
  e.close();
  return success();
}

/// TopK by ranking: every element counts the elements that precede it in
/// the requested order (ties by index) and, when its rank is below k, writes
/// itself at that rank. The output is therefore always sorted.
LogicalResult emitTopK(KernelEmitter &e) {
  ArrayRef<int64_t> shape = e.inputShape(0);
  auto topK = e.as<graph::TopKOp>();
  std::optional<int64_t> axis = normalizeAxis(topK.getAxis(), shape.size());
  if (!axis)
    return e.fail("axis is out of range");
  bool largest = topK.getLargest() != 0;
  std::string t = computeType(e.inputType(0).getElementType());
  ReductionView view = axisView(shape, *axis);
  ReductionView outView = axisView(e.resultShape(0), *axis);
  int64_t k = outView.length;
  std::string cmp = largest ? ">" : "<";
  e.openRowLoop(view.rows, view.length);
  e.rowBase(view, "row", "base");
  e.rowBase(outView, "row", "outBase");
  e.openRowElements(view, t);
  e.line("long long rank = 0;");
  e.open("for (long long j = 0; j < " + Twine(view.length) + "LL; ++j) {");
  e.rowElement(view, "j", "base", "other");
  e.line("const " + t + " y = " + e.load(0, "other") + ";");
  e.line("rank += (y " + cmp + " x || (y == x && j < r)) ? 1 : 0;");
  e.close();
  e.open("if (rank < " + Twine(k) + "LL) {");
  e.rowElement(outView, "rank", "outBase", "dst");
  e.line("out0[dst] = in0[at];");
  e.line("out1[dst] = r;");
  e.close();
  e.close();
  e.close();
  return success();
}

} // namespace

bool isReduction(OperationName name) {
  return isOneOf<graph::ReduceSumOp, graph::ReduceMeanOp, graph::ReduceMaxOp,
                 graph::ReduceMinOp, graph::ReduceProdOp, graph::ReduceL1Op,
                 graph::ReduceL2Op, graph::ReduceLogSumOp,
                 graph::ReduceLogSumExpOp, graph::ReduceSumSquareOp,
                 graph::ArgMaxOp, graph::ArgMinOp, graph::SoftmaxOp,
                 graph::LogSoftmaxOp, graph::HardmaxOp, graph::CumSumOp,
                 graph::TopKOp>(name);
}

LogicalResult emitReduction(KernelEmitter &e) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(e.getOp())
      .Case<graph::ReduceSumOp, graph::ReduceMeanOp, graph::ReduceMaxOp,
            graph::ReduceMinOp, graph::ReduceProdOp, graph::ReduceL1Op,
            graph::ReduceL2Op, graph::ReduceLogSumOp, graph::ReduceLogSumExpOp,
            graph::ReduceSumSquareOp>(
          [&](Operation *) { return emitReduce(e); })
      .Case<graph::ArgMaxOp, graph::ArgMinOp>(
          [&](Operation *) { return emitArgReduce(e); })
      .Case([&](graph::CumSumOp) { return emitCumSum(e); })
      .Case([&](graph::TopKOp) { return emitTopK(e); })
      .Default([&](Operation *) { return emitSoftmax(e); });
}

} // namespace graphc::codegen::cuda
