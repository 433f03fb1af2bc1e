//===- Fnv1a.h - FNV-1a 64-bit hashing --------------------------*- C++ -*-===//
//
// The hash behind kernel content hashes. Header only and dependency free.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_FNV1A_H
#define GRAPHC_LIB_SUPPORT_FNV1A_H

#include <cstddef>
#include <cstdint>

namespace graphc {

constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ull;
constexpr uint64_t kFnvPrime = 0x100000001b3ull;

/// Continues an FNV-1a 64 hash over `size` bytes.
inline uint64_t fnv1a64(uint64_t hash, const void *data, size_t size) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= kFnvPrime;
  }
  return hash;
}

} // namespace graphc

#endif
