//===- EmitResize.cpp - ONNX Resize (nearest, linear, cubic) --------------===//
//
// One thread per output element. Each resized axis maps its output
// coordinate to a source coordinate with the coordinate transformation mode
// (scales baked; a tf_crop_and_resize roi baked when constant, read from
// input 1 otherwise), then gathers 1 (nearest), 2 (linear) or 4 (cubic) taps
// per axis and blends them. Antialiased downsampling widens the linear or
// cubic filter by 1 / scale and normalises its weights; that path, and a
// roi read at run time, compute in double and mirror lib/HostKernels/
// Resize.cpp (toOriginal and the tap table) formula for formula, as the
// reference they must agree with.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/EmitSupport.h"

using namespace mlir;

namespace graphc::codegen::cuda {

LogicalResult emitResize(KernelEmitter &e) {
  ArrayRef<int64_t> inShape = e.inputShape(0);
  ArrayRef<int64_t> outShape = e.resultShape();
  int64_t rank = inShape.size();
  auto resize = e.as<graph::ResizeOp>();
  bool antialias = resize.getAntialias() != 0;
  std::string mode = resize.getMode().str();
  if (!llvm::is_contained({"nearest", "linear", "cubic"}, mode))
    return e.fail("unknown mode \"" + mode + "\"");
  if (antialias && mode == "nearest")
    return e.fail("antialias is not defined for mode nearest");
  std::string transform = resize.getCoordinateTransformationMode().str();
  if (!llvm::is_contained({"half_pixel", "half_pixel_symmetric",
                           "pytorch_half_pixel", "align_corners", "asymmetric",
                           "tf_crop_and_resize"},
                          transform))
    return e.fail("unknown coordinate_transformation_mode \"" + transform +
                  "\"");
  std::string nearestMode = resize.getNearestMode().str();
  if (!llvm::is_contained(
          {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
          nearestMode))
    return e.fail("unknown nearest_mode \"" + nearestMode + "\"");

  SmallVector<int64_t> axes;
  if (auto attr = e.intsAttr("axes")) {
    for (int64_t axis : *attr) {
      std::optional<int64_t> a = normalizeAxis(axis, rank);
      if (!a)
        return e.fail("axis " + Twine(axis) + " is out of range");
      axes.push_back(*a);
    }
  } else {
    for (int64_t k = 0; k < rank; ++k)
      axes.push_back(k);
  }

  // Scales: given as a constant, or implied by the sizes.
  SmallVector<double> scale(rank, 1.0);
  std::optional<SmallVector<double>> scales =
      e.hasInput(2) ? e.constantFloats(2) : std::nullopt;
  if (scales && !scales->empty()) {
    if (scales->size() != axes.size())
      return e.fail("scales must have one entry per axis");
    for (auto [axis, s] : llvm::zip(axes, *scales))
      scale[axis] = s;
  } else if (e.hasInput(3)) {
    std::string policy = resize.getKeepAspectRatioPolicy().str();
    if (policy == "stretch") {
      for (int64_t axis : axes)
        scale[axis] = static_cast<double>(outShape[axis]) / inShape[axis];
    } else {
      auto sizes = e.constantInts(3);
      if (!sizes || sizes->size() != axes.size())
        return e.fail("sizes (input 3) must be a constant with one entry per "
                      "axis for keep_aspect_ratio_policy \"" +
                      policy + "\"");
      double common = policy == "not_larger" ? INFINITY : 0.0;
      for (auto [axis, size] : llvm::zip(axes, *sizes)) {
        double s = static_cast<double>(size) / inShape[axis];
        common =
            policy == "not_larger" ? std::min(common, s) : std::max(common, s);
      }
      for (int64_t axis : axes)
        scale[axis] = common;
    }
  } else {
    return e.fail("scales (input 2) must be a constant, or sizes given");
  }

  // The roi per axis: starts then ends, baked when constant, else read from
  // input 1 (`runtimeRoi`) by the entry of each resized axis.
  SmallVector<double> roi;
  SmallVector<int64_t> roiEntry(rank, -1);
  bool runtimeRoi = false;
  if (transform == "tf_crop_and_resize") {
    roi.assign(2 * rank, 0.0);
    for (int64_t k = 0; k < rank; ++k)
      roi[rank + k] = 1.0;
    auto constRoi = e.hasInput(1) ? e.constantFloats(1) : std::nullopt;
    if (constRoi && !constRoi->empty()) {
      if (constRoi->size() != 2 * axes.size())
        return e.fail("roi (input 1) must have two entries per axis");
      for (auto [j, axis] : llvm::enumerate(axes)) {
        roi[axis] = (*constRoi)[j];
        roi[rank + axis] = (*constRoi)[axes.size() + j];
      }
    } else if (e.hasInput(1) && !constRoi) {
      ArrayRef<int64_t> roiShape = e.inputShape(1);
      int64_t entries = roiShape.size() == 1 ? roiShape[0] : -1;
      if (entries != 0 && entries != static_cast<int64_t>(2 * axes.size()))
        return e.fail("roi (input 1) must have two entries per axis");
      runtimeRoi = entries != 0;
      for (auto [j, axis] : llvm::enumerate(axes))
        roiEntry[axis] = j;
    }
  }

  bool excludeOutside = resize.getExcludeOutside() != 0;
  double a = resize.getCubicCoeffA().convertToDouble();
  auto f = [](double v) { return literal(v, "float"); };
  auto dbl = [](double v) { return literal(v, "double"); };
  SmallVector<int64_t> inStrides = contiguousStrides(inShape);
  // Taps per axis: an antialiased filter spans 1 / scale times the usual
  // support (the host kernel's firstTap and tapCount).
  SmallVector<int64_t> taps(rank), firstTap(rank);
  SmallVector<double> filterScale(rank);
  for (int64_t k = 0; k < rank; ++k) {
    filterScale[k] = antialias ? std::min(scale[k], 1.0) : 1.0;
    double support = mode == "cubic" ? 2.0 : 1.0;
    firstTap[k] =
        mode == "nearest"
            ? 0
            : static_cast<int64_t>(std::floor(-support / filterScale[k])) + 1;
    taps[k] = mode == "nearest"  ? 1
              : antialias        ? 2 - 2 * firstTap[k]
              : mode == "linear" ? 2
                                 : 4;
  }
  std::string accType = antialias ? "double" : "float";

  e.openLinearLoop(numElements(outShape));
  e.coords("o", "i", outShape);
  SmallVector<int64_t> resized;
  std::string base;
  for (int64_t k = 0; k < rank; ++k) {
    bool identity = inShape[k] == outShape[k] && scale[k] == 1.0 &&
                    transform != "tf_crop_and_resize";
    if (identity) {
      if (inStrides[k] != 0)
        base += (base.empty() ? "" : " + ") +
                ("o" + Twine(k) + " * " + Twine(inStrides[k])).str();
      continue;
    }
    resized.push_back(k);
    std::string xk = "x" + std::to_string(k);
    std::string idx = "idx" + std::to_string(k), w = "w" + std::to_string(k);
    std::string last = std::to_string(inShape[k] - 1);
    // The output length as the ONNX reference measures it, unrounded (as the
    // host kernel's toOriginal does): with scales that do not divide the
    // input, align_corners and tf_crop_and_resize stretch over it, not over
    // the rounded output shape.
    double outWidth = scale[k] * static_cast<double>(inShape[k]);
    if (antialias || runtimeRoi) {
      // The source coordinate in double, toOriginal's expressions verbatim.
      std::string o = ("static_cast<double>(o" + Twine(k) + ")").str();
      std::string s = dbl(scale[k]), in1 = dbl(inShape[k] - 1);
      std::string start = dbl(roi.empty() ? 0.0 : roi[k]);
      std::string end = dbl(roi.empty() ? 1.0 : roi[rank + k]);
      if (runtimeRoi && roiEntry[k] >= 0) {
        start = "rs" + std::to_string(k);
        end = "re" + std::to_string(k);
        e.line("const double " + start + " = static_cast<double>(" +
               e.load(1, std::to_string(roiEntry[k])) + ");");
        e.line("const double " + end + " = static_cast<double>(" +
               e.load(1, std::to_string(roiEntry[k] + axes.size())) + ");");
      }
      std::string x;
      if (transform == "half_pixel")
        x = "(" + o + " + 0.5) / " + s + " - 0.5";
      else if (transform == "half_pixel_symmetric") {
        double adjustment = static_cast<double>(outShape[k]) / outWidth;
        double center = static_cast<double>(inShape[k]) / 2;
        x = dbl(center * (1 - adjustment)) + " + (" + o + " + 0.5) / " + s +
            " - 0.5";
      } else if (transform == "pytorch_half_pixel")
        x = outWidth == 1 ? "-0.5" : "(" + o + " + 0.5) / " + s + " - 0.5";
      else if (transform == "align_corners")
        x = outWidth == 1 ? "0.0" : o + " * " + in1 + " / " + dbl(outWidth - 1);
      else if (transform == "asymmetric")
        x = o + " / " + s;
      else
        x = outWidth == 1
                ? "(" + end + " - " + start + ") * " + in1 + " / 2 + " + start +
                      " * " + in1
                : o + " * (" + end + " - " + start + ") * " + in1 + " / " +
                      dbl(outWidth - 1) + " + " + start + " * " + in1;
      std::string pk = "p" + std::to_string(k);
      e.line("const double " + pk + " = " + x + ";");
      if (transform == "tf_crop_and_resize") {
        e.open("if (" + pk + " < 0.0 || " + pk + " > " + in1 + ") {");
        e.line(e.store(0, "i",
                       f(resize.getExtrapolationValue().convertToDouble())));
        e.line("continue;");
        e.close();
      }
      if (!antialias) {
        e.line("float " + xk + " = static_cast<float>(" + pk + ");");
      } else {
        // The host kernel's taps: integer offsets from pos - ratio, ratio in
        // (0, 1]; pos - ratio is an integer, so the cast is its llround.
        std::string kk = std::to_string(k);
        e.line("long long " + idx + "[" + Twine(taps[k]) + "];");
        e.line("double " + w + "[" + Twine(taps[k]) + "];");
        e.line("double ratio" + kk + " = " + pk + " - floor(" + pk + ");");
        e.line("if (ratio" + kk + " == 0.0) ratio" + kk + " = 1.0;");
        e.line("const long long left" + kk + " = static_cast<long long>(" + pk +
               " - ratio" + kk + ");");
        e.line("double total" + kk + " = 0.0;");
        e.open("for (int j = 0; j < " + Twine(taps[k]) + "; ++j) {");
        e.line("const long long tap = " + std::to_string(firstTap[k]) +
               "LL + j;");
        e.line("const double arg = fabs(" + dbl(filterScale[k]) +
               " * (static_cast<double>(tap) - ratio" + kk + "));");
        if (mode == "linear")
          e.line("double wt = fmax(0.0, 1 - arg);");
        else
          e.line("double wt = arg <= 1 ? ((" + dbl(a + 2) + " * arg - " +
                 dbl(a + 3) + ") * arg * arg + 1) : arg < 2 ? (((" + dbl(a) +
                 " * arg - " + dbl(5 * a) + ") * arg + " + dbl(8 * a) +
                 ") * arg - " + dbl(4 * a) + ") : 0.0;");
        e.line("const long long at = left" + kk + " + tap;");
        if (excludeOutside)
          e.line("if (at < 0 || at > " + last + ") wt = 0.0;");
        e.line(w + "[j] = wt;");
        e.line("total" + kk + " += wt;");
        e.line(idx + "[j] = min(max(at, 0LL), " + last + "LL);");
        e.close();
        e.line("if (total" + kk + " != 0.0) for (int j = 0; j < " +
               Twine(taps[k]) + "; ++j) " + w + "[j] /= total" + kk + ";");
        continue;
      }
    } else {
      std::string o = ("static_cast<float>(o" + Twine(k) + ")").str();
      std::string s = f(scale[k]);
      std::string x;
      if (transform == "half_pixel")
        x = "(" + o + " + 0.5f) / " + s + " - 0.5f";
      else if (transform == "half_pixel_symmetric") {
        double adjustment = outShape[k] / outWidth;
        double offset = inShape[k] / 2.0 * (1 - adjustment);
        x = f(offset) + " + (" + o + " + 0.5f) / " + s + " - 0.5f";
      } else if (transform == "pytorch_half_pixel")
        x = outShape[k] > 1 ? "(" + o + " + 0.5f) / " + s + " - 0.5f" : "0.0f";
      else if (transform == "align_corners")
        x = outWidth == 1
                ? "0.0f"
                : o + " * " +
                      f(static_cast<double>(inShape[k] - 1) / (outWidth - 1));
      else if (transform == "asymmetric")
        x = o + " / " + s;
      else {
        double start = roi[k], end = roi[rank + k];
        x = outWidth != 1
                ? f(start * (inShape[k] - 1)) + " + " + o + " * " +
                      f((end - start) * (inShape[k] - 1) / (outWidth - 1))
                : f(0.5 * (start + end) * (inShape[k] - 1));
      }
      e.line("float " + xk + " = " + x + ";");
      if (transform == "tf_crop_and_resize") {
        e.open("if (" + xk + " < 0.0f || " + xk + " > " + f(inShape[k] - 1) +
               ") {");
        e.line(e.store(0, "i",
                       f(resize.getExtrapolationValue().convertToDouble())));
        e.line("continue;");
        e.close();
      }
    }
    e.line("long long " + idx + "[" + Twine(taps[k]) + "];");
    e.line("float " + w + "[" + Twine(taps[k]) + "];");
    if (mode == "nearest") {
      std::string n;
      if (nearestMode == "floor")
        n = "floorf(" + xk + ")";
      else if (nearestMode == "ceil")
        n = "ceilf(" + xk + ")";
      else if (nearestMode == "round_prefer_floor")
        n = "(" + xk + " == floorf(" + xk + ") + 0.5f ? floorf(" + xk +
            ") : roundf(" + xk + "))";
      else
        n = "(" + xk + " == floorf(" + xk + ") + 0.5f ? ceilf(" + xk +
            ") : roundf(" + xk + "))";
      e.line(idx + "[0] = min(max(static_cast<long long>(" + n + "), 0LL), " +
             last + "LL);");
      e.line(w + "[0] = 1.0f;");
    } else if (mode == "linear") {
      e.line(xk + " = fminf(fmaxf(" + xk + ", 0.0f), " + f(inShape[k] - 1) +
             ");");
      e.line(idx + "[0] = static_cast<long long>(floorf(" + xk + "));");
      e.line(idx + "[1] = min(" + idx + "[0] + 1, " + last + "LL);");
      e.line(w + "[1] = " + xk + " - static_cast<float>(" + idx + "[0]);");
      e.line(w + "[0] = 1.0f - " + w + "[1];");
    } else {
      e.line("const float base" + Twine(k) + " = floorf(" + xk + ");");
      e.line("const float t" + Twine(k) + " = " + xk + " - base" + Twine(k) +
             ";");
      e.line("float sum" + Twine(k) + " = 0.0f;");
      e.open("for (int j = 0; j < 4; ++j) {");
      std::string d = "fabsf(t" + std::to_string(k) + " + 1.0f - j)";
      // Keys' cubic convolution kernel with parameter a.
      e.line("const float d = " + d + ";");
      e.line("float wt = d <= 1.0f ? ((" + f(a + 2) + " * d - " + f(a + 3) +
             ") * d * d + 1.0f) : (((" + f(a) + " * d - " + f(5 * a) +
             ") * d + " + f(8 * a) + ") * d - " + f(4 * a) + ");");
      e.line("long long at = static_cast<long long>(base" + Twine(k) +
             ") - 1 + j;");
      if (excludeOutside)
        e.line("if (at < 0 || at > " + last + ") wt = 0.0f;");
      e.line(idx + "[j] = min(max(at, 0LL), " + last + "LL);");
      e.line(w + "[j] = wt;");
      e.line("sum" + Twine(k) + " += wt;");
      e.close();
      if (excludeOutside)
        e.line("for (int j = 0; j < 4; ++j) " + w + "[j] /= sum" + Twine(k) +
               ";");
    }
  }
  // The taps combine with the last axis fastest and the weights multiply
  // from the first axis, as the host kernel sums them.
  int64_t combos = 1;
  for (int64_t k : resized)
    combos *= taps[k];
  e.line(accType + " acc = 0;");
  e.open("for (int c = 0; c < " + Twine(combos) + "; ++c) {");
  e.line("int rest = c;");
  for (int64_t k : llvm::reverse(resized)) {
    e.line("const int t" + Twine(k) + "_ = rest % " + Twine(taps[k]) + ";");
    e.line("rest /= " + Twine(taps[k]) + ";");
  }
  e.line("long long offset = " + (base.empty() ? std::string("0") : base) +
         ";");
  e.line(accType + " weight = 1;");
  for (int64_t k : resized) {
    e.line("offset += idx" + Twine(k) + "[t" + Twine(k) + "_] * " +
           Twine(inStrides[k]) + ";");
    e.line("weight *= w" + Twine(k) + "[t" + Twine(k) + "_];");
  }
  if (antialias)
    e.line("if (weight != 0) acc += weight * static_cast<double>(" +
           e.load(0, "offset") + ");");
  else
    e.line("acc += weight * static_cast<float>(" + e.load(0, "offset") + ");");
  e.close();
  Type elementType = e.resultType().getElementType();
  if (isFloatType(elementType))
    e.line(e.store(0, "i", "acc"));
  else
    e.line(e.store(0, "i", antialias ? "rint(acc)" : "rintf(acc)"));
  e.close();
  return success();
}

} // namespace graphc::codegen::cuda
