//===- ErrorDiagnosis.h - why a step's result is out of tolerance -*- C++
//-*-===//
//
// graphc verify compares each step of an artifact's run with graphc's
// float32 reference of the ONNX tensor the step holds; for the first step
// out of tolerance it says what went wrong where the evidence is clear.
// The rules, in the order they are tried (the first that holds wins; each
// applies only to a result out of tolerance):
//
//   overflow      the reference's max |value| exceeds the largest finite
//                 value of the result's dtype (65504 for float16)
//   inherited     NaN or Inf where the reference is finite, and an earlier
//                 step's result this one depends on already held one (an
//                 Inf turns into NaN through inf - inf or 0 * inf)
//   nan_born      NaN where the reference is finite, none inherited
//   inf_born      +-Inf where the reference is finite and within the dtype's
//                 range, none inherited: a value inside the step reached a
//                 pole (log or division of a value that became zero) or
//                 left the range inside the step
//   underflow     elements are 0 where the reference is nonzero and below
//                 the dtype's smallest normal, and those elements alone
//                 exceed the tolerance
//   cancellation  the reference's max |value| is at least 16 times smaller
//                 than the max |value| of the inputs of the ONNX node that
//                 computes it, and the error is at most 8 units of rounding
//                 of those inputs (8 * eps * max |input|, eps of the
//                 coarsest dtype the inputs were stored in): the inputs'
//                 rounding, small against them, is large against their
//                 difference
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_ERRORDIAGNOSIS_H
#define GRAPHC_LIB_SUPPORT_ERRORDIAGNOSIS_H

#include "lib/Support/HostTensor.h"
#include "lib/Support/TensorCompare.h"

#include <cstdint>
#include <optional>
#include <string>

namespace graphc {

/// The limits of a floating-point dtype (ONNX numbering); nullopt for
/// integer and unknown dtypes.
struct FloatLimits {
  const char *name;
  double maxFinite;
  double minNormal;
  /// The unit roundoff: half the distance from 1 to the next value.
  double epsilon;
};
std::optional<FloatLimits> floatLimits(int32_t dtype);

/// max |x| over the finite elements of `tensor` (0 when it has none).
double maxAbsFinite(const HostTensor &tensor);

/// What is known of one step result beside its comparison.
struct StepEvidence {
  /// The dtype the step stored its result in.
  int32_t dtype = 0;
  TensorErrors errors;
  /// max |ref| over the inputs of the ONNX node that computes the result;
  /// 0 when unknown.
  double inputsMaxAbs = 0;
  /// The dtype those inputs were stored in, the coarsest where they
  /// differ; 0: the result's.
  int32_t inputsDtype = 0;
  /// Whether an earlier step's result that this one depends on held a NaN
  /// (an Inf).
  bool nanInherited = false;
  bool infInherited = false;
};

struct Diagnosis {
  /// overflow, inherited, nan_born, inf_born, underflow or cancellation.
  std::string kind;
  /// One line for a person.
  std::string message;
};

/// The first rule of the header's list that holds, or nullopt when the
/// result is within tolerance or none does.
std::optional<Diagnosis> diagnoseStep(const StepEvidence &evidence,
                                      const Tolerance &tolerance);

} // namespace graphc

#endif
