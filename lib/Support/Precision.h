//===- Precision.h - the arithmetic precision of a compile ------*- C++ -*-===//
//
// `graphc compile --precision`: what float32 tensors of the model become.
// fp16 and bf16 store weights and activations in the narrow type (kernels
// still accumulate, normalise and take softmax statistics in float); tf32
// keeps float32 tensors and lets library GEMMs round their operands to
// tf32 on tensor cores. The name is also what tuning entries are keyed by.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_PRECISION_H
#define GRAPHC_LIB_SUPPORT_PRECISION_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace graphc {

enum class Precision { fp32, tf32, fp16, bf16 };

inline const char *precisionName(Precision precision) {
  switch (precision) {
  case Precision::fp32:
    return "fp32";
  case Precision::tf32:
    return "tf32";
  case Precision::fp16:
    return "fp16";
  case Precision::bf16:
    return "bf16";
  }
  return "fp32";
}

inline std::optional<Precision> parsePrecision(llvm::StringRef name) {
  for (Precision precision :
       {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16})
    if (name == precisionName(precision))
      return precision;
  return std::nullopt;
}

/// Whether float32 tensors are stored in another type (fp16, bf16).
inline bool narrowsTensors(Precision precision) {
  return precision == Precision::fp16 || precision == Precision::bf16;
}

} // namespace graphc

#endif
