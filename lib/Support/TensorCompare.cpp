//===- TensorCompare.cpp - a run's tensor against its reference -----------===//

#include "lib/Support/TensorCompare.h"
#include "lib/Support/ElementValue.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace graphc {
namespace {

int64_t elementCount(const HostTensor &tensor) {
  int64_t count = 1;
  for (int64_t dim : tensor.dims)
    count *= dim;
  return count;
}

} // namespace

Tolerance defaultTolerance(Precision precision) {
  switch (precision) {
  case Precision::fp32:
    return {1e-4, 0};
  case Precision::tf32:
  case Precision::fp16:
    return {1e-2, 0};
  case Precision::bf16:
    return {6e-2, 0};
  }
  return {1e-4, 0};
}

std::optional<TensorErrors> compareTensors(const HostTensor &got,
                                           const HostTensor &ref,
                                           std::string &why) {
  size_t gotSize = elementValueSize(got.dtype),
         refSize = elementValueSize(ref.dtype);
  if (!gotSize || !refSize) {
    why = "a dtype that cannot be compared";
    return std::nullopt;
  }
  int64_t count = elementCount(ref);
  // A step may hold a tensor viewed with other dims (a reshape is a view):
  // the same elements in the same order compare alike.
  if (elementCount(got) != count) {
    why = "the element counts differ";
    return std::nullopt;
  }
  if (got.data.size() != size_t(count) * gotSize ||
      ref.data.size() != size_t(count) * refSize) {
    why = "the data does not fill the shape";
    return std::nullopt;
  }
  TensorErrors errors;
  errors.elements = count;
  constexpr double inf = std::numeric_limits<double>::infinity();
  errors.refMin = errors.gotMin = inf;
  errors.refMax = errors.gotMax = -inf;
  for (int64_t i = 0; i < count; ++i) {
    double g = elementAsDouble(got.dtype, got.data.data() + i * gotSize);
    double r = elementAsDouble(ref.dtype, ref.data.data() + i * refSize);
    errors.gotNan += std::isnan(g);
    errors.gotInf += std::isinf(g);
    errors.refNan += std::isnan(r);
    errors.refInf += std::isinf(r);
    if (!std::isnan(g)) {
      errors.gotMin = std::min(errors.gotMin, g);
      errors.gotMax = std::max(errors.gotMax, g);
    }
    if (!std::isnan(r)) {
      errors.refMin = std::min(errors.refMin, r);
      errors.refMax = std::max(errors.refMax, r);
    }
    if (!std::isfinite(r)) {
      // The same non-finite value agrees; anything else is an error of
      // the reference's kind that the computed tensor does not share.
      bool same = std::isnan(r) ? std::isnan(g) : g == r;
      errors.nonFiniteMismatch += !same;
      if (!same && errors.worstIndex < 0) {
        errors.worstIndex = i;
        errors.worstGot = g;
        errors.worstRef = r;
      }
      continue;
    }
    errors.refMaxAbs = std::max(errors.refMaxAbs, std::fabs(r));
    if (std::isnan(g)) {
      ++errors.nanBorn;
      continue;
    }
    if (std::isinf(g)) {
      ++errors.infBorn;
      continue;
    }
    if (g == 0 && r != 0) {
      ++errors.zeroedElements;
      errors.zeroedMaxRef = std::max(errors.zeroedMaxRef, std::fabs(r));
    }
    double error = std::fabs(g - r);
    if (error > errors.maxAbsError ||
        (errors.worstIndex < 0 && error > 0)) {
      errors.maxAbsError = error;
      errors.worstIndex = i;
      errors.worstGot = g;
      errors.worstRef = r;
    }
  }
  if (errors.refMaxAbs > 0)
    errors.relError = errors.maxAbsError / errors.refMaxAbs;
  else
    errors.relError = errors.maxAbsError > 0 ? inf : 0;
  if (count == 0 || errors.refMin == inf)
    errors.refMin = errors.refMax = 0;
  if (count == 0 || errors.gotMin == inf)
    errors.gotMin = errors.gotMax = 0;
  return errors;
}

} // namespace graphc
