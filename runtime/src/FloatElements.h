//===- FloatElements.h - float storage types of the references --*- C++ -*-===//
//
// Element access for the reference GEMM and convolution: float32, or the
// bits of a 16-bit float widened on load and rounded to nearest even on
// store, so that both round their results alike.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_FLOATELEMENTS_H
#define GRAPHC_RUNTIME_SRC_FLOATELEMENTS_H

#include "lib/Artifact/OnnxDtype.h"
#include "lib/Support/Float16.h"

#include <cstdint>

namespace graphc::rt {

template <int32_t Dtype> struct FloatElements;
template <> struct FloatElements<kFloat> {
  using Storage = float;
  static float load(Storage v) { return v; }
  static Storage store(float v) { return v; }
};
template <> struct FloatElements<kFloat16> {
  using Storage = uint16_t;
  static float load(Storage v) { return graphc::halfToFloat(v); }
  static Storage store(float v) { return graphc::floatToHalf(v); }
};
template <> struct FloatElements<kBfloat16> {
  using Storage = uint16_t;
  static float load(Storage v) { return graphc::bf16ToFloat(v); }
  static Storage store(float v) { return graphc::floatToBf16(v); }
};

} // namespace graphc::rt

#endif
