//===- TensorCompare.h - a run's tensor against its reference ---*- C++ -*-===//
//
// How graphc judges computed values against a reference of the same tensor
// (graphc verify, --keep-fp32 auto): the error of a tensor is
// max |got - ref| over its elements, and it is within tolerance when that is
// at most atol + rtol * max |ref| (relative to the tensor's range, so one
// threshold fits logits and normalised activations alike: the measure of
// test/e2e and bench/export_accuracy.py). A NaN or infinity where the
// reference has a finite value is an error of its own; where the reference
// has the same non-finite value the element agrees.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_TENSORCOMPARE_H
#define GRAPHC_LIB_SUPPORT_TENSORCOMPARE_H

#include "lib/Support/HostTensor.h"
#include "lib/Support/Precision.h"

#include <cstdint>
#include <optional>
#include <string>

namespace graphc {

/// Default tolerances per precision (rtol; atol is 0): what test/e2e holds
/// every model to.
struct Tolerance {
  double rtol = 1e-4;
  double atol = 0;
};
Tolerance defaultTolerance(Precision precision);

/// What a comparison of one tensor found.
struct TensorErrors {
  int64_t elements = 0;
  /// max |got - ref| over the elements where both are finite.
  double maxAbsError = 0;
  /// maxAbsError / max |ref| (0 when the reference is all zeros and so is
  /// the error; infinity when only the reference is).
  double relError = 0;
  /// The element of the largest error (flat index), -1 when none differs.
  int64_t worstIndex = -1;
  double worstGot = 0, worstRef = 0;
  /// max |ref| over its finite elements, and the range of each side.
  double refMaxAbs = 0;
  double refMin = 0, refMax = 0, gotMin = 0, gotMax = 0;
  /// Non-finite elements of the computed tensor where the reference is
  /// finite (the errors NaN and Inf stand for), and of each side overall.
  int64_t nanBorn = 0, infBorn = 0;
  int64_t gotNan = 0, gotInf = 0, refNan = 0, refInf = 0;
  /// Elements where the reference is NaN or infinite and the computed
  /// tensor does not hold the same.
  int64_t nonFiniteMismatch = 0;
  /// Elements the computed tensor holds as exactly 0 where the reference
  /// is not (underflow, when the reference is below the type's range).
  int64_t zeroedElements = 0;
  /// The largest |ref| among those zeroed elements.
  double zeroedMaxRef = 0;

  bool within(const Tolerance &tolerance) const {
    return nanBorn == 0 && infBorn == 0 && nonFiniteMismatch == 0 &&
           maxAbsError <= tolerance.atol + tolerance.rtol * refMaxAbs;
  }
};

/// Compares `got` with `ref` element by element, in row-major order. They
/// must have the same element count (their dims may differ: a step may hold
/// the tensor as a view of other dims; dtypes may differ: a narrowed run
/// against float32); otherwise the result is nullopt and `why` says what
/// differs.
std::optional<TensorErrors> compareTensors(const HostTensor &got,
                                           const HostTensor &ref,
                                           std::string &why);

} // namespace graphc

#endif
