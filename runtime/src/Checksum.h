//===- Checksum.h - the artifact checksum ------------------------*- C++
//-*-===//
#ifndef GRAPHC_RUNTIME_SRC_CHECKSUM_H
#define GRAPHC_RUNTIME_SRC_CHECKSUM_H

#include "graphc/descriptor.h"
#include "lib/Support/Fnv1a.h"

#include <cstddef>
#include <cstdint>

namespace graphc::rt {

using graphc::fnv1a64;
using graphc::kFnvOffsetBasis;

uint64_t computeModelChecksum(const graphc_model_desc &desc,
                              const void *weights);

} // namespace graphc::rt

#endif
