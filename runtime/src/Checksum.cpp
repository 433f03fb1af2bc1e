//===- Checksum.cpp - the artifact checksum -------------------------------===//
#include "runtime/src/Checksum.h"

uint64_t graphc::rt::computeModelChecksum(const graphc_model_desc &desc,
                                          const void *weights) {
  uint64_t hash = kFnvOffsetBasis;
  if (desc.weights_size)
    hash = fnv1a64(hash, weights, desc.weights_size);
  for (int32_t i = 0; i < desc.num_images; ++i)
    hash = fnv1a64(hash, desc.images[i].data, desc.images[i].size);
  return hash;
}
