//===- Checksum.h - the artifact checksum ------------------------*- C++
//-*-===//
#ifndef GRAPHC_RUNTIME_SRC_CHECKSUM_H
#define GRAPHC_RUNTIME_SRC_CHECKSUM_H

#include "graphc/descriptor.h"

#include <cstddef>
#include <cstdint>

namespace graphc::rt {

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

/// The checksum descriptor.h defines: the weights, then every image.
uint64_t computeModelChecksum(const graphc_model_desc &desc,
                              const void *weights);

} // namespace graphc::rt

#endif
