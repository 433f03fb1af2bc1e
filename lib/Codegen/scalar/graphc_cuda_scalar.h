//===- graphc_cuda_scalar.h - CUDA C++ scalar code on the host ------------===//
//
// What the scalar code graphc generates for CUDA needs from the CUDA headers
// and the device runtime, for a host compiler: the function qualifiers,
// libm's float and double functions, bit reinterpretations, and __half and
// __nv_bfloat16 (16 bits stored, converted with round to nearest even like
// cuda_fp16.h and cuda_bf16.h). Two things include it: the CUDA emulation
// header (lib/Codegen/CUDA/emulation), and the C++ source of a cpu model
// whose fused loops use the scalar expression builders (ScalarExpr.h), so
// that both compute what a GPU would.
//
// Code here must stay C++17 that g++ and clang++ accept. It includes C
// headers only and declares the libm functions it calls itself: <cmath>
// alone would double the time each emulated module takes to compile.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_CUDA_SCALAR_H
#define GRAPHC_CUDA_SCALAR_H

#include <stdint.h>
#include <string.h>

// The float and double functions of libm that CUDA device code has.
#define GC_EMU_LIBM1(NAME)                                                     \
  float NAME##f(float) noexcept;                                               \
  double NAME(double) noexcept;
#define GC_EMU_LIBM2(NAME)                                                     \
  float NAME##f(float, float) noexcept;                                        \
  double NAME(double, double) noexcept;
extern "C" {
GC_EMU_LIBM1(exp) GC_EMU_LIBM1(exp2) GC_EMU_LIBM1(expm1) GC_EMU_LIBM1(log)
GC_EMU_LIBM1(log2) GC_EMU_LIBM1(log10) GC_EMU_LIBM1(log1p) GC_EMU_LIBM1(sqrt)
GC_EMU_LIBM1(cbrt) GC_EMU_LIBM1(sin) GC_EMU_LIBM1(cos) GC_EMU_LIBM1(tan)
GC_EMU_LIBM1(asin) GC_EMU_LIBM1(acos) GC_EMU_LIBM1(atan) GC_EMU_LIBM1(sinh)
GC_EMU_LIBM1(cosh) GC_EMU_LIBM1(tanh) GC_EMU_LIBM1(asinh) GC_EMU_LIBM1(acosh)
GC_EMU_LIBM1(atanh) GC_EMU_LIBM1(erf) GC_EMU_LIBM1(erfc) GC_EMU_LIBM1(lgamma)
GC_EMU_LIBM1(tgamma) GC_EMU_LIBM1(floor) GC_EMU_LIBM1(ceil)
GC_EMU_LIBM1(trunc) GC_EMU_LIBM1(round) GC_EMU_LIBM1(rint)
GC_EMU_LIBM1(nearbyint) GC_EMU_LIBM1(fabs)
GC_EMU_LIBM2(pow) GC_EMU_LIBM2(fmod) GC_EMU_LIBM2(remainder) GC_EMU_LIBM2(fmin)
GC_EMU_LIBM2(fmax) GC_EMU_LIBM2(atan2) GC_EMU_LIBM2(hypot)
GC_EMU_LIBM2(copysign)
float ldexpf(float, int) noexcept;
double ldexp(double, int) noexcept;
float fmaf(float, float, float) noexcept;
double fma(double, double, double) noexcept;
}
#undef GC_EMU_LIBM1
#undef GC_EMU_LIBM2
inline bool isnan(float x) { return __builtin_isnan(x); }
inline bool isnan(double x) { return __builtin_isnan(x); }
inline bool isinf(float x) { return __builtin_isinf(x); }
inline bool isinf(double x) { return __builtin_isinf(x); }
inline bool isfinite(float x) { return __builtin_isfinite(x); }
inline bool isfinite(double x) { return __builtin_isfinite(x); }
inline bool signbit(float x) { return __builtin_signbit(x); }
inline bool signbit(double x) { return __builtin_signbit(x); }

#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))

// Reinterpretations.
inline float __int_as_float(int v) {
  float f;
  memcpy(&f, &v, sizeof f);
  return f;
}
inline int __float_as_int(float v) {
  int i;
  memcpy(&i, &v, sizeof i);
  return i;
}
inline double __longlong_as_double(long long v) {
  double d;
  memcpy(&d, &v, sizeof d);
  return d;
}
inline long long __double_as_longlong(double v) {
  long long i;
  memcpy(&i, &v, sizeof i);
  return i;
}

// Device math the host library lacks.
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __fdividef(float a, float b) { return a / b; }
// A product that no multiply-add contracts (the emulator compiles with
// -ffp-contract=off anyway).
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }

//===----------------------------------------------------------------------===//
// cuda_fp16.h and cuda_bf16.h
//===----------------------------------------------------------------------===//

namespace gc_emu {
inline unsigned short floatToHalf(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  uint32_t sign = (bits >> 16) & 0x8000u, magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN stays a quiet NaN
    return (unsigned short)(sign | 0x7e00u);
  if (magnitude >= 0x477ff000u) // 65520 and up round to infinity
    return (unsigned short)(sign | 0x7c00u);
  if (magnitude < 0x38800000u) { // below 2^-14: a subnormal half, or zero
    float scaled;
    memcpy(&scaled, &magnitude, sizeof scaled);
    // |value| * 2^24 is exact; rounding it to an integer in the default
    // (nearest-even) mode gives the subnormal's mantissa, or the smallest
    // normal when it rounds up to 2^10.
    return (unsigned short)(sign | (uint32_t)nearbyintf(scaled * 16777216.0f));
  }
  uint32_t half = ((magnitude >> 23) - 112u) << 10 | (magnitude >> 13 & 0x3ffu);
  uint32_t rest = magnitude & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
    ++half; // a carry into the exponent is the correct rounding
  return (unsigned short)(sign | half);
}

inline float halfToFloat(unsigned short half) {
  uint32_t sign = (uint32_t)(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu, mantissa = half & 0x3ffu;
  if (exponent == 0) {
    float magnitude = ldexpf((float)mantissa, -24);
    return sign ? -magnitude : magnitude;
  }
  uint32_t bits = exponent == 31
                      ? (sign | 0x7f800000u | mantissa << 13)
                      : (sign | (exponent + 112u) << 23 | mantissa << 13);
  float result;
  memcpy(&result, &bits, sizeof result);
  return result;
}

inline unsigned short floatToBfloat16(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return (unsigned short)((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return (unsigned short)(bits >> 16);
}

inline float bfloat16ToFloat(unsigned short value) {
  uint32_t bits = (uint32_t)value << 16;
  float result;
  memcpy(&result, &bits, sizeof result);
  return result;
}
} // namespace gc_emu

struct __half {
  unsigned short __x;
  __half() = default;
  __half(float value) : __x(gc_emu::floatToHalf(value)) {}
  operator float() const { return gc_emu::halfToFloat(__x); }
};
struct __nv_bfloat16 {
  unsigned short __x;
  __nv_bfloat16() = default;
  __nv_bfloat16(float value) : __x(gc_emu::floatToBfloat16(value)) {}
  operator float() const { return gc_emu::bfloat16ToFloat(__x); }
};
static_assert(sizeof(__half) == 2 && sizeof(__nv_bfloat16) == 2,
              "16-bit floats are stored in 16 bits");

inline float __half2float(__half v) { return gc_emu::halfToFloat(v.__x); }
inline __half __float2half_rn(float v) { return __half(v); }
inline __half __float2half(float v) { return __half(v); }
inline float __bfloat162float(__nv_bfloat16 v) {
  return gc_emu::bfloat16ToFloat(v.__x);
}
inline __nv_bfloat16 __float2bfloat16_rn(float v) { return __nv_bfloat16(v); }
inline __nv_bfloat16 __float2bfloat16(float v) { return __nv_bfloat16(v); }

#endif // GRAPHC_CUDA_SCALAR_H
