//===- CheckedArith.h - overflow-checked sizes from untrusted dims -*- C++ -*-===//
//
// Every element count and byte count computed from dims that a model, an
// input file or an artifact supplies goes through these helpers, so that a
// hostile dim such as 2^62+1 yields "too large" instead of a wrapped size.
// Header only and dependency free: the compiler and the runtime share it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_CHECKEDARITH_H
#define GRAPHC_LIB_SUPPORT_CHECKEDARITH_H

#include <cstddef>
#include <cstdint>
#include <optional>

namespace graphc {

/// a + b, or nullopt when it does not fit in int64_t.
inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_add_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

/// a * b, or nullopt when it does not fit in int64_t.
inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_mul_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

/// The number of elements of a tensor with `rank` dims, or nullopt when a dim
/// is negative (unknown) or the product does not fit in int64_t. A zero dim
/// gives zero even when the other dims' product would overflow.
inline std::optional<int64_t> checkedElementCount(const int64_t *dims,
                                                  size_t rank) {
  bool hasZero = false;
  for (size_t i = 0; i < rank; ++i) {
    if (dims[i] < 0)
      return std::nullopt;
    hasZero |= dims[i] == 0;
  }
  if (hasZero)
    return 0;
  int64_t count = 1;
  for (size_t i = 0; i < rank; ++i)
    if (__builtin_mul_overflow(count, dims[i], &count))
      return std::nullopt;
  return count;
}

/// The byte size of `rank` dims of `elementBytes`-byte elements, or nullopt
/// when a dim is negative or the size does not fit in int64_t.
inline std::optional<int64_t> checkedByteSize(const int64_t *dims, size_t rank,
                                              int64_t elementBytes) {
  std::optional<int64_t> count = checkedElementCount(dims, rank);
  if (!count)
    return std::nullopt;
  return checkedMul(*count, elementBytes);
}

/// Container overloads (std::vector, llvm::ArrayRef, llvm::SmallVector).
template <typename Dims>
std::optional<int64_t> checkedElementCount(const Dims &dims) {
  return checkedElementCount(dims.data(), dims.size());
}
template <typename Dims>
std::optional<int64_t> checkedByteSize(const Dims &dims,
                                       int64_t elementBytes) {
  return checkedByteSize(dims.data(), dims.size(), elementBytes);
}

} // namespace graphc

#endif
