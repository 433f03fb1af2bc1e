//===- EmitGridSample.cpp - ONNX GridSample and AffineGrid ----------------===//
//
// GridSample: one thread per output element [N, C, O1..Ok] (consecutive
// threads take consecutive positions of the last dim). Each thread maps the
// k coordinates of its grid point to 1, 2 or 4 taps per dim exactly as the
// host kernel (lib/HostKernels/GridSample.cpp, the reference semantics)
// does, non-finite coordinates included, and sums the taps in the compute
// type (float for f16/bf16). AffineGrid: one thread per grid value.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/EmitSupport.h"

using namespace mlir;

namespace graphc::codegen::cuda {

LogicalResult emitGridSample(KernelEmitter &e) {
  auto op = e.as<graph::GridSampleOp>();
  ArrayRef<int64_t> inShape = e.inputShape(0);
  ArrayRef<int64_t> gridShape = e.inputShape(1);
  ArrayRef<int64_t> outShape = e.resultShape();
  int64_t rank = inShape.size();
  int64_t spatial = rank - 2;
  if (rank < 3 || static_cast<int64_t>(gridShape.size()) != rank ||
      gridShape[rank - 1] != spatial)
    return e.fail("grid must be [N, ..., " + Twine(spatial) +
                  "] of the rank of x");
  std::string mode = op.getMode().str();
  std::string padding = op.getPaddingMode().str();
  if (!llvm::is_contained({"linear", "nearest", "cubic"}, mode))
    return e.fail("unknown mode \"" + mode + "\"");
  if (!llvm::is_contained({"zeros", "border", "reflection"}, padding))
    return e.fail("unknown padding_mode \"" + padding + "\"");
  bool alignCorners = op.getAlignCorners() != 0;
  int64_t total = numElements(outShape);
  for (int64_t k = 0; k < spatial; ++k)
    if (inShape[2 + k] == 0 && total > 0)
      return e.fail("cannot sample an empty spatial dim");
  std::string acc = computeType(e.resultType().getElementType());
  int64_t taps = mode == "nearest" ? 1 : mode == "linear" ? 2 : 4;
  int64_t points = numElements(outShape.drop_front(2));
  int64_t volume = numElements(inShape.drop_front(2));
  SmallVector<int64_t> strides = contiguousStrides(inShape.drop_front(2));
  auto d = [](double v) { return literal(v, "double"); };

  e.openLinearLoop(total);
  e.coords("o", "i", outShape);
  std::string point = "0LL";
  for (int64_t k = 0; k < spatial; ++k)
    point = "(" + point + " * " + std::to_string(outShape[2 + k]) + "LL + o" +
            std::to_string(2 + k) + ")";
  e.line("const long long point = " + point + ";");
  e.line("bool undefined = false;");
  e.line("const long long g = (o0 * " + Twine(points) + "LL + point) * " +
         Twine(spatial) + "LL;");
  if (padding == "reflection") {
    // The host kernel's reflect(): into [low, high] by reflections.
    e.open("auto reflect = [](double x, double low, double high) -> double {");
    e.line("const double range = high - low;");
    e.line("if (!(range > 0.0)) return low;");
    e.line("double fx = x;");
    e.open("if (x < low) {");
    e.line("const double dx = low - x, n = floor(dx / range);");
    e.line("const double r = dx - n * range;");
    e.line("fx = fmod(n, 2.0) == 0.0 ? low + r : high - r;");
    e.close();
    e.open("else if (x > high) {");
    e.line("const double dx = x - high, n = floor(dx / range);");
    e.line("const double r = dx - n * range;");
    e.line("fx = fmod(n, 2.0) == 0.0 ? high - r : low + r;");
    e.close();
    e.line("return fmin(fmax(fx, low), high);");
    e.close("};");
  }
  for (int64_t k = 0; k < spatial; ++k) {
    std::string s = std::to_string(k);
    int64_t size = inShape[2 + k];
    double length = static_cast<double>(size);
    double low = alignCorners ? 0.0 : -0.5;
    double high = alignCorners ? length - 1 : length - 0.5;
    std::string gk = "static_cast<double>(" +
                     e.load(1, ("g + " + Twine(spatial - 1 - k) + "LL").str()) +
                     ")";
    std::string x = "x" + s;
    e.line("float " + x + " = static_cast<float>(" +
           (alignCorners
                ? "(" + gk + " + 1.0) / 2.0 * " + d(length - 1)
                : "((" + gk + " + 1.0) * " + d(length) + " - 1.0) / 2.0") +
           ");");
    if (mode == "nearest") {
      e.line(x + " = rintf(" + x + ");");
    } else {
      // NaN weights, as in the host kernel.
      std::string nonFinite = "!isfinite(" + x + ")";
      if (padding == "border")
        nonFinite = "isnan(" + x + ")";
      e.open("if (" + nonFinite + ") {");
      e.line("undefined = true;");
      e.line(x + " = 0.0f;");
      e.close();
    }
    e.open("if (isnan(" + x + ")) {");
    e.line(x + " = " + (padding == "zeros" ? "-8.0f" : "0.0f") + ";");
    e.close();
    e.open("else if (" + x + " < " + literal(low, "float") + " || " + x +
           " > " + literal(high, "float") + ") {");
    if (padding == "border")
      e.line(x + " = static_cast<float>(fmin(fmax(static_cast<double>(" + x +
             "), 0.0), " + d(length - 1) + "));");
    else if (padding == "reflection")
      e.line(x + " = isfinite(" + x + ") ? static_cast<float>(reflect(" + x +
             ", " + d(low) + ", " + d(high) + ")) : 0.0f;");
    else
      e.line(x + " = static_cast<float>(fmin(fmax(static_cast<double>(" + x +
             "), -8.0), " + d(length + 8) + "));");
    e.close();
    std::string idx = "idx" + s, w = "w" + s, valid = "valid" + s;
    e.line("long long " + idx + "[" + Twine(taps) + "];");
    e.line(acc + " " + w + "[" + Twine(taps) + "];");
    e.line("bool " + valid + "[" + Twine(taps) + "];");
    std::string first = "first" + s;
    if (mode == "nearest") {
      e.line("const long long " + first + " = static_cast<long long>(" + x +
             ");");
      e.line(w + "[0] = 1;");
    } else {
      e.line("const double base" + s + " = floor(static_cast<double>(" + x +
             "));");
      e.line("const " + acc + " t" + s + " = static_cast<" + acc +
             ">(static_cast<double>(" + x + ") - base" + s + ");");
      if (mode == "linear") {
        e.line("const long long " + first + " = static_cast<long long>(base" +
               s + ");");
        e.line(w + "[0] = 1 - t" + s + ";");
        e.line(w + "[1] = t" + s + ";");
      } else {
        e.line("const long long " + first + " = static_cast<long long>(base" +
               s + ") - 1;");
        // Keys' cubic convolution with a = -0.75, as the reference.
        std::string t = "t" + s;
        auto nearW = [&](const std::string &v) {
          return "((" + acc + ")(1.25) * " + v + " - (" + acc + ")(2.25)) * " +
                 v + " * " + v + " + 1";
        };
        auto farW = [&](const std::string &v) {
          return "((" + acc + ")(-0.75) * " + v + " + (" + acc + ")(3.75)) * " +
                 v + " * " + v + " + (" + acc + ")(-6.0) * " + v + " + (" +
                 acc + ")(3.0)";
        };
        e.line(w + "[0] = " + farW("(" + t + " + 1)") + ";");
        e.line(w + "[1] = " + nearW(t) + ";");
        e.line(w + "[2] = " + nearW("(1 - " + t + ")") + ";");
        e.line(w + "[3] = " + farW("(2 - " + t + ")") + ";");
      }
    }
    std::string last = std::to_string(size - 1) + "LL";
    e.open("for (int k = 0; k < " + Twine(taps) + "; ++k) {");
    e.line("long long at = " + first + " + k;");
    if (padding == "zeros") {
      e.line(valid + "[k] = at >= 0 && at <= " + last + ";");
      e.line(idx + "[k] = " + valid + "[k] ? at : 0LL;");
    } else {
      if (padding == "reflection")
        e.line("at = static_cast<long long>(reflect(static_cast<double>(at), " +
               d(low) + ", " + d(high) + "));");
      e.line(valid + "[k] = true;");
      e.line(idx + "[k] = min(max(at, 0LL), " + last + ");");
    }
    e.close();
  }
  int64_t combos = 1;
  for (int64_t k = 0; k < spatial; ++k)
    combos *= taps;
  e.line("const long long image = (o0 * " + Twine(inShape[1]) + "LL + o1) * " +
         Twine(volume) + "LL;");
  e.line(acc + " sum = 0;");
  e.open("for (int c = 0; c < " + Twine(combos) + "; ++c) {");
  e.line("int rest = c;");
  e.line("long long offset = image;");
  e.line(acc + " weight = 1;");
  e.line("bool inside = true;");
  // The first spatial dim varies slowest, like the host kernel's taps.
  for (int64_t k = spatial - 1; k >= 0; --k) {
    std::string s = std::to_string(k);
    std::string tap = "[rest % " + std::to_string(taps) + "]";
    e.line("offset += idx" + s + tap + " * " + Twine(strides[k]) + "LL;");
    e.line("weight *= w" + s + tap + ";");
    e.line("inside = inside && valid" + s + tap + ";");
    e.line("rest /= " + Twine(taps) + ";");
  }
  e.line("if (inside) sum += weight * static_cast<" + acc + ">(" +
         e.load(0, "offset") + ");");
  e.close();
  e.line(e.store(0, "i",
                 "undefined ? static_cast<" + acc +
                     ">(__int_as_float(0x7fc00000)) : sum"));
  e.close();
  return success();
}

LogicalResult emitAffineGrid(KernelEmitter &e) {
  auto op = e.as<graph::AffineGridOp>();
  ArrayRef<int64_t> outShape = e.resultShape();
  int64_t spatial = static_cast<int64_t>(outShape.size()) - 2;
  ArrayRef<int64_t> thetaShape = e.inputShape(0);
  if ((spatial != 2 && spatial != 3) || thetaShape.size() != 3 ||
      thetaShape[1] != spatial || thetaShape[2] != spatial + 1 ||
      outShape.back() != spatial)
    return e.fail("theta must be [N, " + Twine(spatial) + ", " +
                  Twine(spatial + 1) + "]");
  bool alignCorners = op.getAlignCorners() != 0;
  std::string acc = computeType(e.resultType().getElementType());
  e.openLinearLoop(numElements(outShape));
  e.coords("o", "i", outShape);
  // o0 is the batch, o1..ok the position, o(k+1) the row of theta.
  std::string row = "o" + std::to_string(spatial + 1);
  e.line("const long long m = (o0 * " + Twine(spatial) + "LL + " + row +
         ") * " + Twine(spatial + 1) + "LL;");
  e.line("double sum = static_cast<double>(" +
         e.load(0, ("m + " + Twine(spatial) + "LL").str()) + ");");
  for (int64_t k = 0; k < spatial; ++k) {
    double length = static_cast<double>(outShape[1 + k]);
    std::string i = "static_cast<double>(o" + std::to_string(1 + k) + ")";
    std::string c;
    if (alignCorners)
      c = length > 1
              ? "-1.0 + " + i + " * " + literal(2 / (length - 1), "double")
              : "-1.0";
    else
      c = literal(-1 + 1 / length, "double") + " + " + i + " * " +
          literal(2 / length, "double");
    // The last spatial dim's coordinate multiplies theta's column 0.
    e.line("sum += static_cast<double>(" +
           e.load(0, ("m + " + Twine(spatial - 1 - k) + "LL").str()) + ") * (" +
           c + ");");
  }
  e.line(e.store(0, "i", "sum"));
  e.close();
  return success();
}

} // namespace graphc::codegen::cuda
