//===- EmitNormalization.cpp - batch/instance/layer/rms/group/lp/mvn/lrn --===//
//
// Statistics-based normalisations reuse the row view of the reductions: one
// block per normalised row computes the mean and the variance in two passes
// (numerically safer than E[x^2] - E[x]^2) and then writes the row.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/EmitSupport.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace graphc::codegen::cuda {
namespace {

/// epsilon of a normalisation that has one.
double epsilonOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, double>(op)
      .Case<graph::BatchNormalizationOp, graph::InstanceNormalizationOp,
            graph::GroupNormalizationOp, graph::LayerNormalizationOp,
            graph::RmsNormalizationOp>(
          [](auto norm) { return norm.getEpsilon().convertToDouble(); })
      .Default([](Operation *) -> double {
        llvm_unreachable("a normalisation without epsilon");
      });
}

/// Emits, inside an open row loop with `base`, `mean` and `variance` of the
/// row, then a loop over its elements declaring `at` and `x` where the
/// caller writes the result.
void emitRowMoments(KernelEmitter &e, const ReductionView &view, StringRef t) {
  std::string length = literal(std::max<int64_t>(view.length, 1), t);
  e.line(t + " sum = " + literal(0, t) + ";");
  e.openRowElements(view, t);
  e.line("sum += x;");
  e.close();
  e.line("const " + t + " mean = " + e.rowReduce() + "(sum, gc_op_add()) / " +
         length + ";");
  e.line(t + " squares = " + literal(0, t) + ";");
  e.openRowElements(view, t);
  e.line("squares += (x - mean) * (x - mean);");
  e.close();
  e.line("const " + t + " variance = " + e.rowReduce() +
         "(squares, gc_op_add()) / " +
         length + ";");
  e.openRowElements(view, t);
}

/// The compute type of a float normalisation, failing for other types.
FailureOr<std::string> floatComputeType(KernelEmitter &e) {
  Type elementType = e.inputType(0).getElementType();
  if (!isFloatType(elementType))
    return e.fail("input 0 must have a floating-point element type");
  return computeType(elementType);
}

LogicalResult emitBatchNorm(KernelEmitter &e, StringRef t) {
  ArrayRef<int64_t> shape = e.inputShape(0);
  if (shape.size() < 2)
    return e.fail("input must have rank at least 2");
  int64_t spatial = numElements(shape.drop_front(2));
  double eps = epsilonOf(e.getOp());
  e.openLinearLoop(numElements(shape));
  e.line("const long long c = (i / " + Twine(spatial) + ") % " +
         Twine(shape[1]) + ";");
  e.line("const " + t + " inv = " + literal(1, t) + " / gc_sqrt(" +
         e.load(4, "c") + " + " + literal(eps, t) + ");");
  e.line(e.store(0, "i",
                 "(" + e.load(0, "i") + " - " + e.load(3, "c") + ") * inv * " +
                     e.load(1, "c") + " + " + e.load(2, "c")));
  e.close();
  return success();
}

/// Instance and group normalisation: rows of contiguous channels groups.
LogicalResult emitChannelGroupNorm(KernelEmitter &e, StringRef t,
                                   int64_t groups) {
  ArrayRef<int64_t> shape = e.inputShape(0);
  if (shape.size() < 2)
    return e.fail("input must have rank at least 2");
  int64_t channels = shape[1];
  if (groups <= 0 || channels % groups != 0)
    return e.fail("num_groups must divide the " + Twine(channels) +
                  " channels");
  int64_t spatial = numElements(shape.drop_front(2));
  ReductionView view;
  view.rows = shape[0] * groups;
  view.length = channels / groups * spatial;
  double eps = epsilonOf(e.getOp());
  e.openRowLoop(view.rows, view.length);
  e.rowBase(view, "row", "base");
  emitRowMoments(e, view, t);
  e.line("const long long c = (row % " + Twine(groups) + ") * " +
         Twine(channels / groups) + " + r / " + Twine(spatial) + ";");
  e.line(e.store(0, "at",
                 "(x - mean) / gc_sqrt(variance + " + literal(eps, t) + ") * " +
                     e.load(1, "c") + " + " + e.load(2, "c")));
  e.close();
  e.close();
  return success();
}

/// Layer and RMS normalisation in register form (see RowRegisters): the
/// thread's elements of the row are read once into `xr`, the mean and the
/// variance computed from them in two passes, and the result written as
/// vectors. Scale and bias are read per vector as vectorAccess allows.
LogicalResult emitLayerNormRegisters(KernelEmitter &e, StringRef t, bool rms,
                                     const ReductionView &view,
                                     ArrayRef<int64_t> normShape,
                                     const RowRegisters &plan) {
  double eps = epsilonOf(e.getOp());
  int64_t vec = plan.vec;
  std::string length = literal(std::max<int64_t>(view.length, 1), t);
  std::string k = std::to_string(plan.elements());
  std::string x = "xr[p * " + std::to_string(vec) + " + j]";
  if (failed(e.definePrologue(vec)))
    return failure();
  e.openRegisterRowLoop(view.rows, plan);
  e.line("const long long base = row * " + Twine(view.length) + "LL;");
  e.loadRowRegisters(plan, t, "base", "xr", literal(0, t));
  std::string denom;
  if (rms) {
    e.line(t + " squares = " + literal(0, t) + ";");
    e.line("#pragma unroll");
    e.line("for (int k = 0; k < " + k + "; ++k) squares += xr[k] * xr[k];");
    e.line("const " + t + " rms = gc_sqrt(" + e.rowReduce() +
           "(squares, gc_op_add()) / " + length + " + " + literal(eps, t) +
           ");");
  } else {
    // Slots past the row hold 0: they add nothing to the sum, but must
    // stay out of the squares.
    e.line(t + " sum = " + literal(0, t) + ";");
    e.line("#pragma unroll");
    e.line("for (int k = 0; k < " + k + "; ++k) sum += xr[k];");
    e.line("const " + t + " mean = " + e.rowReduce() + "(sum, gc_op_add()) / " +
           length + ";");
    e.line(t + " squares = " + literal(0, t) + ";");
    e.openRowVectors(plan);
    e.line("#pragma unroll");
    e.line("for (int j = 0; j < " + Twine(vec) + "; ++j) squares += (" + x +
           " - mean) * (" + x + " - mean);");
    e.closeRowVectors(plan);
    e.line("const " + t + " variance = " + e.rowReduce() +
           "(squares, gc_op_add()) / " + length + ";");
    e.line("const " + t + " denom = gc_sqrt(variance + " + literal(eps, t) +
           ");");
  }
  SmallVector<VectorRead> params;
  for (unsigned slot : {1u, 2u}) {
    if (!e.hasInput(slot) || (rms && slot == 2))
      continue;
    VectorRead read;
    read.name = slot == 1 ? "scale" : "bias";
    read.pointer = e.in(slot);
    read.type = e.inputType(slot).getElementType();
    read.strides = broadcastStrides(e.inputShape(slot), normShape);
    read.offset = e.inputOffset(slot);
    params.push_back(std::move(read));
  }
  e.openRowVectors(plan);
  e.line("const long long r0 = v * " + Twine(vec) + "LL;");
  SmallVector<std::string> perElement =
      emitVectorReads(e, normShape, "r0", "n", vec, params);
  std::string outType = cxxType(e.resultType().getElementType());
  e.line("gc_vec<" + outType + ", " + Twine(vec) + "> y;");
  e.line("#pragma unroll");
  e.open("for (int j = 0; j < " + Twine(vec) + "; ++j) {");
  for (const std::string &declaration : perElement)
    e.line(declaration);
  std::string y =
      rms ? x + " / rms * scale" : "(" + x + " - mean) / denom * scale";
  if (params.size() > 1)
    y += " + bias";
  e.line("y.e[j] = gc_cvt<" + outType + ">(" + y + ");");
  e.close();
  e.line("gc_stv<" + outType + ", " + Twine(vec) + ">(out0 + base + r0, y);");
  e.closeRowVectors(plan);
  e.close();
  return success();
}

/// Elements of input 0 per vector of a row template over `shape`: a 16-byte
/// access, halved until it divides the innermost dim (1 when odd).
int64_t rowVector(KernelEmitter &e, ArrayRef<int64_t> shape) {
  int64_t vec = vectorElements(e.inputType(0).getElementType());
  while (vec > 1 && (shape.empty() || shape.back() % vec != 0))
    vec /= 2;
  return vec;
}

/// Layer and RMS normalisation over the dims from `axis` on: RMS divides
/// by sqrt(mean(x^2) + eps) and neither centres nor takes a bias.
LogicalResult emitLayerNorm(KernelEmitter &e, StringRef t, bool rms) {
  ArrayRef<int64_t> shape = e.inputShape(0);
  std::optional<int64_t> axis =
      normalizeAxis(rms ? e.as<graph::RmsNormalizationOp>().getAxis()
                        : e.as<graph::LayerNormalizationOp>().getAxis(),
                    shape.size());
  if (!axis)
    return e.fail("axis is out of range");
  SmallVector<bool> reduced(shape.size(), false);
  for (size_t k = *axis; k < shape.size(); ++k)
    reduced[k] = true;
  ReductionView view = makeReductionView(shape, reduced);
  ArrayRef<int64_t> normShape = shape.drop_front(*axis);
  double eps = epsilonOf(e.getOp());
  // Scale and bias broadcast against the normalised dims.
  auto paramOffset = [&](unsigned slot) -> std::string {
    ArrayRef<int64_t> paramShape = e.inputShape(slot);
    if (paramShape == normShape)
      return "r";
    return offsetExpr("n", broadcastStrides(paramShape, normShape));
  };
  // Rows that fit the registers are read once; a scale or bias read
  // through strides (never today) keeps the looped form.
  auto plainParam = [&](unsigned slot) {
    return !e.hasInput(slot) ||
           e.inputStrides(slot) == contiguousStrides(e.inputShape(slot));
  };
  if (view.contiguous && plainParam(1) && plainParam(2))
    if (std::optional<RowRegisters> plan =
            e.planRowRegisters(view.rows, view.length, rowVector(e, shape)))
      return emitLayerNormRegisters(e, t, rms, view, normShape, *plan);
  if (failed(e.definePrologue()))
    return failure();
  e.openRowLoop(view.rows, view.length);
  e.rowBase(view, "row", "base");
  if (rms) {
    e.line(t + " squares = " + literal(0, t) + ";");
    e.openRowElements(view, t);
    e.line("squares += x * x;");
    e.close();
    e.line("const " + t + " rms = gc_sqrt(" + e.rowReduce() + "(squares, "
           "gc_op_add()) / " +
           literal(std::max<int64_t>(view.length, 1), t) + " + " +
           literal(eps, t) + ");");
    e.openRowElements(view, t);
  } else {
    emitRowMoments(e, view, t);
  }
  std::string scaleOffset = paramOffset(1);
  std::string biasOffset = !rms && e.hasInput(2) ? paramOffset(2) : "";
  if (scaleOffset != "r" || (!biasOffset.empty() && biasOffset != "r"))
    e.coords("n", "r", normShape);
  std::string y = rms ? "x / rms * " + e.load(1, scaleOffset)
                      : "(x - mean) / gc_sqrt(variance + " + literal(eps, t) +
                            ") * " + e.load(1, scaleOffset);
  if (!biasOffset.empty())
    y += " + " + e.load(2, biasOffset);
  e.line(e.store(0, "at", y));
  e.close();
  e.close();
  return success();
}

LogicalResult emitMeanVarianceNorm(KernelEmitter &e, StringRef t) {
  ArrayRef<int64_t> shape = e.inputShape(0);
  ArrayRef<int64_t> axes = e.as<graph::MeanVarianceNormalizationOp>().getAxes();
  SmallVector<bool> reduced(shape.size(), false);
  for (int64_t axis : axes) {
    std::optional<int64_t> a = normalizeAxis(axis, shape.size());
    if (!a)
      return e.fail("axis " + Twine(axis) + " is out of range");
    reduced[*a] = true;
  }
  ReductionView view = makeReductionView(shape, reduced);
  e.openRowLoop(view.rows, view.length);
  e.rowBase(view, "row", "base");
  emitRowMoments(e, view, t);
  // As the ONNX function body: (x - mean) / (sqrt(variance) + 1e-9).
  e.line(e.store(
      0, "at", "(x - mean) / (gc_sqrt(variance) + " + literal(1e-9, t) + ")"));
  e.close();
  e.close();
  return success();
}

LogicalResult emitLpNorm(KernelEmitter &e, StringRef t) {
  ArrayRef<int64_t> shape = e.inputShape(0);
  auto lpNorm = e.as<graph::LpNormalizationOp>();
  std::optional<int64_t> axis = normalizeAxis(lpNorm.getAxis(), shape.size());
  if (!axis)
    return e.fail("axis is out of range");
  int64_t p = lpNorm.getP();
  if (p != 1 && p != 2)
    return e.fail("p must be 1 or 2, got " + Twine(p));
  SmallVector<bool> reduced(shape.size(), false);
  reduced[*axis] = true;
  ReductionView view = makeReductionView(shape, reduced);
  e.openRowLoop(view.rows, view.length);
  e.rowBase(view, "row", "base");
  e.line(t + " norm = " + literal(0, t) + ";");
  e.openRowElements(view, t);
  e.line(p == 1 ? "norm += gc_fabs(x);" : "norm += x * x;");
  e.close();
  e.line("norm = " + e.rowReduce() + "(norm, gc_op_add());");
  if (p == 2)
    e.line("norm = gc_sqrt(norm);");
  e.openRowElements(view, t);
  e.line(e.store(0, "at", "x / norm"));
  e.close();
  e.close();
  return success();
}

LogicalResult emitLrn(KernelEmitter &e, StringRef t) {
  ArrayRef<int64_t> shape = e.inputShape(0);
  auto lrn = e.as<graph::LrnOp>();
  int64_t size = lrn.getSize();
  if (size <= 0 || shape.size() < 2)
    return e.fail("needs a positive size and an input of rank at least 2");
  int64_t channels = shape[1];
  int64_t spatial = numElements(shape.drop_front(2));
  double alpha = lrn.getAlpha().convertToDouble();
  double beta = lrn.getBeta().convertToDouble();
  double bias = lrn.getBias().convertToDouble();
  e.openLinearLoop(numElements(shape));
  e.line("const long long c = (i / " + Twine(spatial) + ") % " +
         Twine(channels) + ";");
  // Window [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)].
  e.line("const long long first = max(c - " + Twine((size - 1) / 2) +
         "LL, 0LL), last = min(c + " + Twine(size / 2) + "LL, " +
         Twine(channels - 1) + "LL);");
  e.line(t + " squares = " + literal(0, t) + ";");
  e.open("for (long long j = first; j <= last; ++j) {");
  e.line("const " + t +
         " v = " + e.load(0, ("i + (j - c) * " + Twine(spatial)).str()) + ";");
  e.line("squares += v * v;");
  e.close();
  e.line(e.store(0, "i",
                 e.load(0, "i") + " / gc_pow(" + literal(bias, t) + " + " +
                     literal(alpha / size, t) + " * squares, " +
                     literal(beta, t) + ")"));
  e.close();
  return success();
}

} // namespace

bool isNormalization(OperationName name) {
  return isOneOf<graph::BatchNormalizationOp, graph::InstanceNormalizationOp,
                 graph::LayerNormalizationOp, graph::RmsNormalizationOp,
                 graph::GroupNormalizationOp, graph::LpNormalizationOp,
                 graph::MeanVarianceNormalizationOp, graph::LrnOp>(name);
}

LogicalResult emitNormalization(KernelEmitter &e) {
  FailureOr<std::string> t = floatComputeType(e);
  if (failed(t))
    return failure();
  return llvm::TypeSwitch<Operation *, LogicalResult>(e.getOp())
      .Case([&](graph::BatchNormalizationOp) { return emitBatchNorm(e, *t); })
      .Case([&](graph::InstanceNormalizationOp) {
        return emitChannelGroupNorm(
            e, *t, e.inputShape(0).size() >= 2 ? e.inputShape(0)[1] : 1);
      })
      .Case([&](graph::GroupNormalizationOp group) {
        return emitChannelGroupNorm(e, *t, group.getNumGroups());
      })
      .Case([&](graph::LayerNormalizationOp) {
        return emitLayerNorm(e, *t, /*rms=*/false);
      })
      .Case([&](graph::RmsNormalizationOp) {
        return emitLayerNorm(e, *t, /*rms=*/true);
      })
      .Case([&](graph::MeanVarianceNormalizationOp) {
        return emitMeanVarianceNorm(e, *t);
      })
      .Case([&](graph::LpNormalizationOp) { return emitLpNorm(e, *t); })
      .Default([&](Operation *) { return emitLrn(e, *t); });
}

} // namespace graphc::codegen::cuda
