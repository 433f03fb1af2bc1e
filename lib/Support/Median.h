//===- Median.h - the median of timing samples ------------------*- C++ -*-===//
//
// Header only and dependency free: the runtime's library timing and the
// graphc tune command share it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_MEDIAN_H
#define GRAPHC_LIB_SUPPORT_MEDIAN_H

#include <algorithm>
#include <vector>

namespace graphc {

/// The middle value of `values` (the mean of the middle two for an even
/// count); `values` is not empty.
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

} // namespace graphc

#endif
