//===- ErrorDiagnosis.cpp - why a step's result is out of tolerance -------===//

#include "lib/Support/ErrorDiagnosis.h"
#include "lib/Support/ElementValue.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

namespace graphc {

std::optional<FloatLimits> floatLimits(int32_t dtype) {
  switch (dtype) {
  case 1:
    return FloatLimits{"float32", 3.4028234663852886e38, 0x1p-126, 0x1p-24};
  case 10:
    return FloatLimits{"float16", 65504.0, 0x1p-14, 0x1p-11};
  case 16:
    return FloatLimits{"bfloat16", 3.3895313892515355e38, 0x1p-126, 0x1p-8};
  case 11:
    return FloatLimits{"float64", 1.7976931348623157e308, 0x1p-1022, 0x1p-53};
  default:
    return std::nullopt;
  }
}

double maxAbsFinite(const HostTensor &tensor) {
  size_t size = elementValueSize(tensor.dtype);
  if (!size)
    return 0;
  double largest = 0;
  for (size_t at = 0; at + size <= tensor.data.size(); at += size) {
    double value = elementAsDouble(tensor.dtype, tensor.data.data() + at);
    if (std::isfinite(value))
      largest = std::max(largest, std::fabs(value));
  }
  return largest;
}

namespace {

std::string text(double value) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::format("%.6g", value);
  return out;
}

/// "750", "16": a ratio to three digits.
std::string ratio(double value) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::format("%.3g", value);
  return out;
}

} // namespace

std::optional<Diagnosis> diagnoseStep(const StepEvidence &evidence,
                                      const Tolerance &tolerance) {
  const TensorErrors &e = evidence.errors;
  if (e.within(tolerance))
    return std::nullopt;
  std::optional<FloatLimits> limits = floatLimits(evidence.dtype);
  if (!limits)
    return std::nullopt;
  std::string type = limits->name;
  if (e.refMaxAbs > limits->maxFinite)
    return Diagnosis{"overflow", "overflow: the reference reaches |x| = " +
                                     text(e.refMaxAbs) + ", past " + type +
                                     "'s maximum " + text(limits->maxFinite)};
  bool inherited = evidence.nanInherited || evidence.infInherited;
  if ((e.nanBorn > 0 || e.infBorn > 0) && inherited)
    return Diagnosis{"inherited",
                     "inherited: " + std::to_string(e.nanBorn) + " NaN and " +
                         std::to_string(e.infBorn) +
                         " Inf element(s) where the reference is finite, "
                         "after an earlier step this one depends on held " +
                         (evidence.nanInherited ? "a NaN" : "an Inf")};
  if (e.nanBorn > 0)
    return Diagnosis{"nan_born",
                     "NaN born here: " + std::to_string(e.nanBorn) +
                         " element(s) NaN where the reference is finite, and "
                         "no earlier step this one depends on holds a NaN or "
                         "an Inf"};
  if (e.infBorn > 0)
    return Diagnosis{"inf_born",
                     "Inf born here: " + std::to_string(e.infBorn) +
                         " element(s) infinite where the reference is finite "
                         "and within " +
                         type +
                         "'s range: a value inside the step reached a pole "
                         "(log or division of a value that became zero) or "
                         "left the range"};
  double bound = tolerance.atol + tolerance.rtol * e.refMaxAbs;
  if (e.zeroedElements > 0 && e.zeroedMaxRef < limits->minNormal &&
      e.zeroedMaxRef > bound)
    return Diagnosis{"underflow",
                     "underflow: " + std::to_string(e.zeroedElements) +
                         " element(s) 0 where the reference is nonzero (up "
                         "to |x| = " +
                         text(e.zeroedMaxRef) + ") and below " + type +
                         "'s smallest normal " + text(limits->minNormal)};
  std::optional<FloatLimits> inputLimits =
      evidence.inputsDtype ? floatLimits(evidence.inputsDtype) : limits;
  if (inputLimits && e.nanBorn == 0 && e.infBorn == 0 &&
      evidence.inputsMaxAbs > 0 && e.refMaxAbs * 16 <= evidence.inputsMaxAbs &&
      e.maxAbsError <= 8 * inputLimits->epsilon * evidence.inputsMaxAbs)
    return Diagnosis{
        "cancellation",
        "cancellation: the result (max |x| = " + text(e.refMaxAbs) + ") is " +
            text(evidence.inputsMaxAbs / std::max(e.refMaxAbs, 1e-300)) +
            "x smaller than its node's inputs (max |x| = " +
            text(evidence.inputsMaxAbs) + "); their rounding to " +
            inputLimits->name + " leaves an error of " + text(e.maxAbsError)};
  return std::nullopt;
}

} // namespace graphc
