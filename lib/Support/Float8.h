//===- Float8.h - 8-bit float bits to and from float ------------*- C++ -*-===//
//
// ONNX's four 8-bit float formats (FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2,
// FLOAT8E5M2FNUZ), each named by its ONNX dtype number (17 to 20), to and
// from float with round to nearest even, as ONNX Cast specifies them: with
// `saturate` an out-of-range value or infinity becomes the largest finite
// value of its sign; without it, e5m2 overflows to infinity and the others
// to NaN. The FNUZ formats have no infinity and no negative zero, and their
// only NaN is 0x80. NaN converts to 0x7f (or 0xff, keeping the sign) in
// e4m3fn and e5m2. "Out of range" is after rounding: 464 rounds to 448 in
// e4m3fn, 61440 to infinity in e5m2. (onnx 1.17's reference helpers differ
// at the top binade without saturate, non-monotonically: e4m3fn 470 gives
// NaN but 480 gives 448, e5m2 61440 gives NaN but 65536 infinity; the node
// tests hold none of those values.)
//
// One definition for host and device: the host kernels include this header,
// and generated CUDA and cpu-loop code embed its text with
// GRAPHC_FLOAT8_DEVICE defined (lib/Codegen/ScalarExpr.cpp), so it is written
// in the C++ both accept: no standard headers on that side.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_FLOAT8_H
#define GRAPHC_LIB_SUPPORT_FLOAT8_H

#ifdef GRAPHC_FLOAT8_DEVICE
#define GC_F8_FN __device__ __forceinline__
GC_F8_FN unsigned gc_f8_float_bits(float f) {
  return static_cast<unsigned>(__float_as_int(f));
}
GC_F8_FN float gc_f8_bits_float(unsigned b) {
  return __int_as_float(static_cast<int>(b));
}
#else
#include <cstring>
namespace graphc {
#define GC_F8_FN inline
GC_F8_FN unsigned gc_f8_float_bits(float f) {
  unsigned b;
  std::memcpy(&b, &f, 4);
  return b;
}
GC_F8_FN float gc_f8_bits_float(unsigned b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
#endif

/// Mantissa bits, exponent bias, and whether the format is FNUZ.
GC_F8_FN unsigned gc_f8_mantissa_bits(int dtype) {
  return dtype == 17 || dtype == 18 ? 3u : 2u;
}
GC_F8_FN int gc_f8_bias(int dtype) {
  return dtype == 17 ? 7 : dtype == 18 ? 8 : dtype == 19 ? 15 : 16;
}
GC_F8_FN bool gc_f8_is_fnuz(int dtype) { return dtype == 18 || dtype == 20; }
/// The code of the largest finite magnitude: 448, 240, 57344, 57344.
GC_F8_FN unsigned gc_f8_max_code(int dtype) {
  return dtype == 17 ? 0x7eu : dtype == 19 ? 0x7bu : 0x7fu;
}

/// The value of 8-bit float `bits` in format `dtype`.
GC_F8_FN float gc_f8_to_float(int dtype, unsigned bits) {
  bits &= 0xffu;
  const unsigned sign = (bits & 0x80u) << 24;
  const unsigned magnitude = bits & 0x7fu;
  if (gc_f8_is_fnuz(dtype)) {
    if (bits == 0x80u)
      return gc_f8_bits_float(0x7fc00000u);
  } else if (dtype == 17) {
    if (magnitude == 0x7fu)
      return gc_f8_bits_float(sign | 0x7fc00000u);
  } else if (magnitude >= 0x7cu) {
    return gc_f8_bits_float(sign |
                            (magnitude == 0x7cu ? 0x7f800000u : 0x7fc00000u));
  }
  const unsigned m = gc_f8_mantissa_bits(dtype);
  const int bias = gc_f8_bias(dtype);
  const unsigned exponent = magnitude >> m;
  const unsigned mantissa = magnitude & ((1u << m) - 1u);
  if (exponent == 0) {
    // Subnormal: mantissa * 2^(1 - bias - m), exact in float.
    float step = gc_f8_bits_float(
        static_cast<unsigned>(127 + 1 - bias - static_cast<int>(m)) << 23);
    float value = static_cast<float>(mantissa) * step;
    return sign ? -value : value;
  }
  return gc_f8_bits_float(
      sign |
      (static_cast<unsigned>(static_cast<int>(exponent) - bias + 127) << 23) |
      (mantissa << (23 - m)));
}

/// `f` as 8-bit float bits in format `dtype`, rounded to nearest even.
GC_F8_FN unsigned char gc_f8_from_float(int dtype, float f, bool saturate) {
  const unsigned b = gc_f8_float_bits(f);
  const unsigned sign = (b >> 24) & 0x80u;
  const unsigned a = b & 0x7fffffffu;
  const bool fnuz = gc_f8_is_fnuz(dtype);
  const unsigned nan = fnuz ? 0x80u : (sign | 0x7fu);
  const unsigned maxCode = gc_f8_max_code(dtype);
  const unsigned overflow =
      saturate ? (sign | maxCode) : (dtype == 19 ? (sign | 0x7cu) : nan);
  if (a > 0x7f800000u)
    return static_cast<unsigned char>(nan);
  if (a == 0x7f800000u)
    return static_cast<unsigned char>(overflow);
  const unsigned m = gc_f8_mantissa_bits(dtype);
  const int bias = gc_f8_bias(dtype);
  const int exponent = static_cast<int>(a >> 23) - 127;
  const int minExponent = 1 - bias;
  unsigned code = 0;
  if (a < 0x00800000u) {
    // Float zero or subnormal: far below half the smallest fp8 subnormal.
    code = 0;
  } else if (exponent < minExponent) {
    // An fp8 subnormal: the significand in units of 2^(minExponent - m).
    const unsigned significand = (a & 0x7fffffu) | 0x800000u;
    const int shift = 23 + minExponent - static_cast<int>(m) - exponent;
    if (shift <= 25) {
      const unsigned half = 1u << (shift - 1);
      const unsigned rest = significand & ((1u << shift) - 1u);
      code = significand >> shift;
      if (rest > half || (rest == half && (code & 1u)))
        ++code; // may carry into the smallest normal, whose code it is
    }
  } else {
    const unsigned drop = 23 - m;
    const unsigned half = 1u << (drop - 1);
    const unsigned rest = a & ((1u << drop) - 1u);
    code = (static_cast<unsigned>(exponent + bias) << m) |
           ((a & 0x7fffffu) >> drop);
    if (rest > half || (rest == half && (code & 1u)))
      ++code; // a carry steps to the next binade
  }
  if (code > maxCode)
    return static_cast<unsigned char>(overflow);
  if (code == 0 && fnuz)
    return 0; // no negative zero
  return static_cast<unsigned char>(sign | code);
}

/// The largest finite value of format `dtype`.
GC_F8_FN float gc_f8_max(int dtype) {
  return gc_f8_to_float(dtype, gc_f8_max_code(dtype));
}

#undef GC_F8_FN
#ifndef GRAPHC_FLOAT8_DEVICE
} // namespace graphc
#endif

#endif
