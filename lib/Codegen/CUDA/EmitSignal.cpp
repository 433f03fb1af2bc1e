//===- EmitSignal.cpp - ONNX DFT ------------------------------------------===//
//
// One thread per output element sums its component over the signal
// directly (O(n^2) in all), in double. The twiddle angle is 2 pi m / n with
// m = j * k mod n kept exactly in an integer, so the argument of sin and cos
// stays in [0, 2 pi) however long the signal is.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/EmitSupport.h"

#include <cmath>

using namespace mlir;

namespace graphc::codegen::cuda {

/// The constant scalar operand `slot`, `fallback` when absent; failure when
/// it is not a constant (the kernel is specialised on it).
static FailureOr<int64_t> constantScalar(KernelEmitter &e, unsigned slot,
                                         StringRef name, int64_t fallback) {
  if (!e.hasInput(slot))
    return fallback;
  std::optional<SmallVector<int64_t>> value = e.constantInts(slot);
  if (!value || value->size() != 1) {
    (void)e.fail(name + " (input " + Twine(slot) +
                 ") must be a constant scalar");
    return failure();
  }
  return value->front();
}

LogicalResult emitDft(KernelEmitter &e) {
  auto dft = e.as<graph::DftOp>();
  ArrayRef<int64_t> inShape = e.inputShape(0);
  ArrayRef<int64_t> outShape = e.resultShape();
  int64_t rank = inShape.size();
  if (rank < 2 || (inShape.back() != 1 && inShape.back() != 2) ||
      outShape.size() != inShape.size() || outShape.back() != 2)
    return e.fail("input must have rank >= 2 and a last dim of 1 or 2");
  FailureOr<int64_t> axisValue = constantScalar(e, 2, "axis", -2);
  if (failed(axisValue))
    return failure();
  std::optional<int64_t> axis = normalizeAxis(*axisValue, rank);
  if (!axis || *axis == rank - 1)
    return e.fail("axis is out of range");
  int64_t length = inShape[*axis];
  FailureOr<int64_t> n = constantScalar(e, 1, "dft_length", length);
  if (failed(n))
    return failure();
  if (*n < 1)
    return e.fail("dft_length must be positive");
  int64_t bins = dft.getOnesided() ? *n / 2 + 1 : *n;
  if (outShape[*axis] != bins)
    return e.fail("the result does not have " + Twine(bins) +
                  " bins along the axis");
  // Sums accumulate in double (as the host kernel does): in float, sums of
  // large samples miss the small bins (a zero imaginary part) by more than
  // float outputs may.
  std::string t = "double";
  bool complex = inShape.back() == 2;
  double sign = dft.getInverse() ? 1.0 : -1.0;
  double scale = dft.getInverse() ? 1.0 / static_cast<double>(*n) : 1.0;
  SmallVector<int64_t> strides = contiguousStrides(inShape);

  e.openLinearLoop(numElements(outShape));
  e.coords("o", "i", outShape);
  SmallVector<std::string> at;
  for (int64_t d = 0; d < rank; ++d)
    at.push_back(d == *axis ? "j" : "o" + std::to_string(d));
  at.back() = "0";
  std::string realAt = offsetExpr(at, strides);
  at.back() = "1";
  std::string imagAt = offsetExpr(at, strides);
  std::string k = "o" + std::to_string(*axis);
  e.line(t + " re = " + literal(0, t) + ", im = " + literal(0, t) + ";");
  e.line("long long m = 0;");
  e.open("for (long long j = 0; j < " + Twine(std::min(*n, length)) +
         "LL; ++j) {");
  e.line("const " + t + " angle = static_cast<" + t + ">(m) * " +
         literal(2.0 * M_PI / static_cast<double>(*n), t) + ";");
  e.line("const " + t + " c = cos(angle), s = " + literal(sign, t) +
         " * sin(angle);");
  e.line("const " + t + " xr = " + e.load(0, realAt) + ";");
  if (complex) {
    e.line("const " + t + " xi = " + e.load(0, imagAt) + ";");
    e.line("re += xr * c - xi * s;");
    e.line("im += xr * s + xi * c;");
  } else {
    e.line("re += xr * c;");
    e.line("im += xr * s;");
  }
  // k < n, so one subtraction keeps m = j * k mod n.
  e.line("m += " + k + ";");
  e.line("if (m >= " + Twine(*n) + "LL) m -= " + Twine(*n) + "LL;");
  e.close();
  e.line(e.store(0, "i",
                 "(o" + std::to_string(rank - 1) + " == 0 ? re : im) * " +
                     literal(scale, t)));
  e.close();
  return success();
}

} // namespace graphc::codegen::cuda
