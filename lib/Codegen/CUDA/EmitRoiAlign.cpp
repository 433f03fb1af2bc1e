//===- EmitRoiAlign.cpp - ONNX RoiAlign -----------------------------------===//
//
// One thread per output element [R, C, output_height, output_width]: it
// checks its box's batch index (reported through the error record, the
// element then 0), finds the runs of its bin's samples inside the image by
// bisection and sums (or takes the max of) their bilinear taps, in the
// expressions and order of the host kernel (lib/HostKernels/RoiAlign.cpp,
// the reference semantics, which says what is defined beyond
// onnxruntime), in float (double when x or rois is float64).
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/EmitSupport.h"
#include "lib/Support/RoiAlign.h"

using namespace mlir;

namespace graphc::codegen::cuda {

LogicalResult emitRoiAlign(KernelEmitter &e) {
  auto op = e.as<graph::RoiAlignOp>();
  ArrayRef<int64_t> xShape = e.inputShape(0);
  ArrayRef<int64_t> roisShape = e.inputShape(1);
  ArrayRef<int64_t> outShape = e.resultShape();
  if (xShape.size() != 4 || roisShape.size() != 2 || roisShape[1] != 4 ||
      outShape.size() != 4)
    return e.fail("x must be [N, C, H, W] and rois [num_rois, 4]");
  std::string mode = op.getMode().str();
  std::string transform = op.getCoordinateTransformationMode().str();
  if (mode != "avg" && mode != "max")
    return e.fail("unknown mode \"" + mode + "\"");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    return e.fail("unknown coordinate_transformation_mode \"" + transform +
                  "\"");
  bool halfPixel = transform == "half_pixel";
  int64_t ratio = op.getSamplingRatio();
  if (ratio < 0 || ratio > kRoiAlignMaxSamplesPerAxis)
    return e.fail("sampling_ratio is out of range");
  int64_t images = xShape[0], channels = xShape[1];
  int64_t height = xShape[2], width = xShape[3];
  int64_t total = numElements(outShape);
  if ((height == 0 || width == 0) && total > 0)
    return e.fail("cannot sample an empty spatial dim");
  bool wide = e.inputType(0).getElementType().isF64() ||
              e.inputType(1).getElementType().isF64();
  std::string c = wide ? "double" : "float";
  auto lit = [&](double v) { return literal(v, c); };
  auto cast = [&](const std::string &v) {
    return "static_cast<" + c + ">(" + v + ")";
  };
  std::string ceil = wide ? "ceil" : "ceilf";
  std::string oh = std::to_string(outShape[2]),
              ow = std::to_string(outShape[3]);
  // spatial_scale is a float attribute, multiplied in C.
  double scale = static_cast<float>(op.getSpatialScale().convertToFloat());

  e.openLinearLoop(total);
  e.coords("o", "i", outShape);
  e.line("const long long b = static_cast<long long>(" + e.in(2) + "[o0]);");
  e.open("if (b < 0 || b >= " + Twine(images) + "LL) {");
  e.line(e.report("b", 0, images, KernelEmitter::Reported::Index));
  e.line(e.store(0, "i", "0"));
  e.close();
  e.open("else {");
  // Samples of a box dim of `size` cut into `bins` when sampling_ratio is
  // 0: ceil(size / bins), 0 when not positive, clamped.
  e.open("auto sample_count = [](" + c + " size, " + c +
         " bins) -> long long {");
  e.line("const " + c + " n = " + ceil + "(size / bins);");
  e.line("if (!(n > " + lit(0) + ")) return 0LL;");
  e.line("if (n >= " + lit(static_cast<double>(kRoiAlignMaxSamplesPerAxis)) +
         ") return " + Twine(kRoiAlignMaxSamplesPerAxis) + "LL;");
  e.line("return static_cast<long long>(n);");
  e.close("};");
  // Sample i of an axis of a bin, as onnxruntime computes it.
  std::string at = "first + " + cast("static_cast<float>(k) + 0.5f") +
                   " * bin / " + cast("count");
  // The run [begin, end) of samples inside [-1, limit]: positions are
  // monotone in i, so two bisections find it.
  e.open("auto inside_run = [](" + c + " first, " + c +
         " bin, long long count, " + c +
         " limit, long long &begin, long long &end) {");
  e.line("const bool up = bin >= " + lit(0) + ";");
  for (int bound = 0; bound < 2; ++bound) {
    e.line("long long low" + Twine(bound) + " = 0, high" + Twine(bound) +
           " = count;");
    e.open("while (low" + Twine(bound) + " < high" + Twine(bound) + ") {");
    e.line("const long long k = low" + Twine(bound) + " + (high" +
           Twine(bound) + " - low" + Twine(bound) + ") / 2;");
    e.line("const " + c + " p = " + at + ";");
    std::string test = bound == 0 ? "up ? p >= " + lit(-1) + " : p <= limit"
                                  : "up ? p > limit : p < " + lit(-1);
    e.line("if (" + test + ") high" + Twine(bound) + " = k; else low" +
           Twine(bound) + " = k + 1;");
    e.close();
  }
  e.line("begin = low0;");
  e.line("end = low1 < low0 ? low0 : low1;");
  e.close("};");

  std::string box = "o0 * 4LL";
  auto coord = [&](int k) {
    return cast(e.load(1, box + " + " + std::to_string(k) + "LL")) + " * " +
           lit(scale) + " - " + lit(halfPixel ? 0.5 : 0.0);
  };
  e.line("const " + c + " start_w = " + coord(0) + ";");
  e.line("const " + c + " start_h = " + coord(1) + ";");
  e.line(c + " box_w = " + coord(2) + " - start_w;");
  e.line(c + " box_h = " + coord(3) + " - start_h;");
  if (!halfPixel) {
    // Malformed boxes become 1x1 (std::max: NaN stays).
    e.line("box_w = box_w < " + lit(1) + " ? " + lit(1) + " : box_w;");
    e.line("box_h = box_h < " + lit(1) + " ? " + lit(1) + " : box_h;");
  }
  e.line("const " + c + " bin_h = box_h / " + cast(oh) + ";");
  e.line("const " + c + " bin_w = box_w / " + cast(ow) + ";");
  if (ratio > 0) {
    e.line("const long long count_h = " + Twine(ratio) + "LL;");
    e.line("const long long count_w = " + Twine(ratio) + "LL;");
  } else {
    e.line("const long long count_h = sample_count(box_h, " + cast(oh) + ");");
    e.line("const long long count_w = sample_count(box_w, " + cast(ow) + ");");
  }
  e.line("const long long total = count_h * count_w;");
  e.line("const " + c + " first_h = start_h + " + cast("o2") + " * bin_h;");
  e.line("const " + c + " first_w = start_w + " + cast("o3") + " * bin_w;");
  e.line("long long y0 = 0, y1 = 0, x0 = 0, x1 = 0;");
  e.open("if (total > 0) {");
  e.line("inside_run(first_h, bin_h, count_h, " + lit(height) + ", y0, y1);");
  e.line("inside_run(first_w, bin_w, count_w, " + lit(width) + ", x0, x1);");
  e.close();
  e.line("const long long plane = (b * " + Twine(channels) + "LL + o1) * " +
         Twine(height * width) + "LL;");
  e.line(c + " result = 0;");
  if (mode == "max")
    e.line("bool any = (y1 - y0) * (x1 - x0) < total;");
  // Position `p` of sample k<axis> of an axis of `size` (inside [-1,
  // size]): its two taps p_low, p_high and their weights hp, lp.
  auto tap = [&](const std::string &axis, const std::string &p, int64_t size) {
    std::string last = std::to_string(size - 1) + "LL";
    e.line(c + " " + p + " = first_" + axis + " + " +
           cast("static_cast<float>(k" + axis + ") + 0.5f") + " * bin_" + axis +
           " / " + cast("count_" + axis) + ";");
    e.line("if (" + p + " <= " + lit(0) + ") " + p + " = " + lit(0) + ";");
    e.line("long long " + p + "_low = static_cast<long long>(" + p + "), " + p +
           "_high;");
    e.open("if (" + p + "_low >= " + last + ") {");
    e.line(p + "_high = " + p + "_low = " + last + ";");
    e.line(p + " = " + cast(p + "_low") + ";");
    e.close();
    e.line("else " + p + "_high = " + p + "_low + 1;");
    e.line("const " + c + " l" + p + " = " + p + " - " + cast(p + "_low") +
           ";");
    e.line("const " + c + " h" + p + " = " + lit(1) + " - l" + p + ";");
  };
  e.open("for (long long kh = y0; kh < y1; ++kh) {");
  tap("h", "y", height);
  e.open("for (long long kw = x0; kw < x1; ++kw) {");
  tap("w", "x", width);
  std::string w = std::to_string(width);
  auto value = [&](const std::string &row, const std::string &col) {
    return cast(e.load(0, "plane + " + row + " * " + w + "LL + " + col));
  };
  e.line("const " + c +
         " w1 = hy * hx, w2 = hy * lx, w3 = ly * hx, w4 = ly * lx;");
  e.line("const " + c + " v1 = " + value("y_low", "x_low") + ";");
  e.line("const " + c + " v2 = " + value("y_low", "x_high") + ";");
  e.line("const " + c + " v3 = " + value("y_high", "x_low") + ";");
  e.line("const " + c + " v4 = " + value("y_high", "x_high") + ";");
  if (mode == "avg") {
    e.line("result += w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;");
  } else {
    // onnxruntime's std::max (a < b ? b : a), in its order.
    e.line(c + " m = w1 * v1;");
    e.line("m = m < w2 * v2 ? w2 * v2 : m;");
    e.line("m = m < w3 * v3 ? w3 * v3 : m;");
    e.line("m = m < w4 * v4 ? w4 * v4 : m;");
    e.line("result = any ? (result < m ? m : result) : m;");
    e.line("any = true;");
  }
  e.close();
  e.close();
  if (mode == "avg")
    e.line("if (total > 0) result /= " + cast("total") + ";");
  e.line(e.store(0, "i", "result"));
  e.close();
  e.close();
  return success();
}

} // namespace graphc::codegen::cuda
