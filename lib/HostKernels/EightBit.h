//===- EightBit.h - the 8-bit operands of the quantized ops -----*- C++ -*-===//
//
// graph.quantized_mat_mul and graph.quantized_conv read int8, uint8 or
// float8 e4m3fn operands and accumulate them wide: integers in int64,
// wrapped to the int32 result at the end, e4m3fn decoded exactly into f32.
// These widen an operand once, so the products read plain arrays.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_HOSTKERNELS_EIGHTBIT_H
#define GRAPHC_HOSTKERNELS_EIGHTBIT_H

#include "lib/HostKernels/KernelSupport.h"
#include "lib/Support/Float8.h"

#include <cstdint>

namespace graphc::hk {

/// Whether `dtype` is an integer operand of the quantized ops.
inline bool isEightBitInteger(int32_t dtype) {
  return dtype == GC_DTYPE_I8 || dtype == GC_DTYPE_U8;
}

/// `count` elements of 8-bit tensor data `data` (int8, uint8 or e4m3fn)
/// starting at element `first`, widened into `to`: integers to their value,
/// e4m3fn to its exact float (NaN stays NaN; the format has no infinity).
template <typename T>
void widenEightBit(int32_t dtype, const void *data, int64_t first,
                   int64_t count, T *to) {
  const uint8_t *bytes = static_cast<const uint8_t *>(data) + first;
  if (dtype == GC_DTYPE_F8E4M3FN) {
    // Every code once: the conversion is lib/Support/Float8.h's.
    static const auto table = [] {
      struct Table {
        float value[256];
      } t;
      for (unsigned code = 0; code < 256; ++code)
        t.value[code] = graphc::gc_f8_to_float(GC_DTYPE_F8E4M3FN, code);
      return t;
    }();
    for (int64_t i = 0; i < count; ++i)
      to[i] = static_cast<T>(table.value[bytes[i]]);
  } else if (dtype == GC_DTYPE_I8) {
    for (int64_t i = 0; i < count; ++i)
      to[i] = static_cast<T>(static_cast<int8_t>(bytes[i]));
  } else {
    for (int64_t i = 0; i < count; ++i)
      to[i] = static_cast<T>(bytes[i]);
  }
}

/// `sum` modulo 2^32 as a two's complement int32, with no conversion the
/// language leaves to the implementation.
inline int32_t wrapToInt32(int64_t sum) {
  uint32_t low = static_cast<uint32_t>(static_cast<uint64_t>(sum));
  return low <= 0x7fffffffu
             ? static_cast<int32_t>(low)
             : static_cast<int32_t>(static_cast<int64_t>(low) -
                                    (int64_t(1) << 32));
}

} // namespace graphc::hk

#endif
