//===- Float16.h - fp16 and bf16 bits to and from float ---------*- C++ -*-===//
//
// Round-to-nearest-even conversions between float and the bits of IEEE
// half and bfloat16, and tf32 rounding, without a dependency: the host
// kernels, the runtime's reference GEMM, the precision conversion and the
// test libraries share them, so every one rounds alike.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_FLOAT16_H
#define GRAPHC_LIB_SUPPORT_FLOAT16_H

#include <cstdint>
#include <cstring>

namespace graphc {

inline uint32_t floatBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}
inline float bitsFloat(uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

inline float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  if (exponent == 0x1f)
    return bitsFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24 is exact in float.
    float value = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -value : value;
  }
  return bitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

inline uint16_t floatToHalf(float f) {
  uint32_t x = floatBits(f);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t absBits = x & 0x7fffffffu;
  if (absBits >= 0x7f800000u) // inf or nan (quiet it, keep payload bits)
    return static_cast<uint16_t>(
        sign | 0x7c00 |
        (absBits > 0x7f800000u ? 0x200 | ((absBits >> 13) & 0x3ff) : 0));
  if (absBits >= 0x477ff000u) // rounds to infinity
    return static_cast<uint16_t>(sign | 0x7c00);
  if (absBits < 0x38800000u) {
    // Half subnormal: adding 0.5 makes the float ulp 2^-24 (the half
    // subnormal step), so the FPU rounds to nearest even for us.
    float shifted = bitsFloat(absBits) + 0.5f;
    return static_cast<uint16_t>(sign | (floatBits(shifted) - 0x3f000000u));
  }
  uint32_t odd = (absBits >> 13) & 1;
  absBits += 0xc8000fffu + odd; // rebias exponent by -112, round to even
  return static_cast<uint16_t>(sign | (absBits >> 13));
}

inline float bf16ToFloat(uint16_t b) {
  return bitsFloat(static_cast<uint32_t>(b) << 16);
}

inline uint16_t floatToBf16(float f) {
  uint32_t x = floatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40);
  x += 0x7fffu + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

/// `x` as a tf32 tensor-core operand: 10 mantissa bits, rounded to nearest
/// with ties away from zero (PTX cvt.rna.tf32.f32); infinities and NaNs
/// keep their bits.
inline float roundToTf32(float x) {
  uint32_t bits = floatBits(x);
  if ((bits & 0x7f800000u) != 0x7f800000u)
    bits = (bits + 0x1000u) & ~0x1fffu;
  return bitsFloat(bits);
}

} // namespace graphc

#endif
