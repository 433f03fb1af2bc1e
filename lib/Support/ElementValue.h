//===- ElementValue.h - a tensor element as a double ------------*- C++ -*-===//
//
// For comparing outputs of two runs: any dtype graphc computes in (ONNX
// TensorProto.DataType numbering) read as a double, integers exactly up to
// 2^53, half floats decoded.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_ELEMENTVALUE_H
#define GRAPHC_LIB_SUPPORT_ELEMENTVALUE_H

#include <cmath>
#include <cstdint>
#include <cstddef>
#include <cstring>

#include "lib/Support/Float8.h"

namespace graphc {

/// The element at `at` of ONNX dtype `dtype` as a double; NaN for a dtype
/// graphc does not compute in.
inline double elementAsDouble(int32_t dtype, const void *at) {
  auto load = [&](auto value) {
    std::memcpy(&value, at, sizeof(value));
    return double(value);
  };
  switch (dtype) {
  case 1:
    return load(float());
  case 2:
    return load(uint8_t());
  case 9:
    return load(uint8_t()) != 0;
  case 3:
    return load(int8_t());
  case 4:
    return load(uint16_t());
  case 5:
    return load(int16_t());
  case 6:
    return load(int32_t());
  case 7:
    return load(int64_t());
  case 11:
    return load(double());
  case 12:
    return load(uint32_t());
  case 13:
    return load(uint64_t());
  case 10: {
    uint16_t half;
    std::memcpy(&half, at, 2);
    int exponent = (half >> 10) & 0x1f, mantissa = half & 0x3ff;
    double magnitude =
        exponent == 0    ? std::ldexp(mantissa, -24)
        : exponent == 31 ? (mantissa ? NAN : INFINITY)
                         : std::ldexp(1024 + mantissa, exponent - 25);
    return (half & 0x8000) ? -magnitude : magnitude;
  }
  case 16: {
    uint16_t bits;
    std::memcpy(&bits, at, 2);
    uint32_t wide = uint32_t(bits) << 16;
    float value;
    std::memcpy(&value, &wide, 4);
    return value;
  }
  case 17: // the 8-bit floats, by their ONNX numbers
  case 18:
  case 19:
  case 20:
    return gc_f8_to_float(dtype, load(uint8_t()));
  default:
    return NAN;
  }
}

/// Bytes per element of the dtypes elementAsDouble reads; 0 for others.
inline size_t elementValueSize(int32_t dtype) {
  switch (dtype) {
  case 2: case 3: case 9:
    return 1;
  case 4: case 5: case 10: case 16:
    return 2;
  case 1: case 6: case 12:
    return 4;
  case 7: case 11: case 13:
    return 8;
  default:
    return 0;
  }
}

} // namespace graphc

#endif // GRAPHC_LIB_SUPPORT_ELEMENTVALUE_H
