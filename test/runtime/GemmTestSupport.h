//===- GemmTestSupport.h - oracles for the library-step tests ---*- C++ -*-===//
//
// Plain loops in double, written from descriptor.h's definition of a
// graphc_gemm_desc and from gemm_model.c's comment, against which the
// reference GEMM, the cpu target and the cuBLASLt path are compared.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_TEST_RUNTIME_GEMMTESTSUPPORT_H
#define GRAPHC_TEST_RUNTIME_GEMMTESTSUPPORT_H

#include "graphc/descriptor.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace gemmtest {

inline double geluTanh(double x) {
  const double pi = 3.14159265358979323846;
  return 0.5 * x *
         (1 + std::tanh(std::sqrt(2 / pi) * (x + 0.044715 * x * x * x)));
}

inline double activate(int32_t epilogue, double x) {
  if (epilogue == GRAPHC_EPILOGUE_RELU)
    return x < 0 ? 0 : x;
  if (epilogue == GRAPHC_EPILOGUE_GELU_TANH)
    return geluTanh(x);
  return x;
}

/// D_i = epilogue(alpha op(A_i) op(B_i) + beta C_i + bias), element by
/// element; `c` and `bias` may be null.
inline void naiveGemm(const graphc_gemm_desc &g, const float *a, const float *b,
                      const float *c, const float *bias, float *d) {
  for (int64_t i = 0; i < g.batch; ++i)
    for (int64_t row = 0; row < g.m; ++row)
      for (int64_t col = 0; col < g.n; ++col) {
        double sum = 0;
        for (int64_t p = 0; p < g.k; ++p) {
          double x = g.trans_a ? a[i * g.stride_a + p * g.lda + row]
                               : a[i * g.stride_a + row * g.lda + p];
          double y = g.trans_b ? b[i * g.stride_b + col * g.ldb + p]
                               : b[i * g.stride_b + p * g.ldb + col];
          sum += x * y;
        }
        double value = g.alpha * sum;
        if (c && g.beta != 0)
          value += g.beta * c[i * g.stride_c + row * g.ldc + col];
        if (bias)
          value += bias[col];
        d[(i * g.m + row) * g.n + col] =
            static_cast<float>(activate(g.epilogue, value));
      }
}

/// gemm_model.c's weights, from the same formulas.
inline float modelW(int j, int p) { return float((j * 4 + p) % 7 - 3) * 0.25f; }
inline float modelB1(int j) { return 0.1f * float(j) - 0.2f; }
inline float modelB2(int j) { return 0.3f - 0.05f * float(j); }
inline float modelP(int p, int j) { return float(p - j) * 0.5f + 0.25f; }

/// gemm_model.c's outputs for x (2x3x4) and c (2x5x2); `scale` is 2, or 1
/// for the GEMM_LIBRARY_ONLY variant.
struct GemmModelOutputs {
  std::vector<float> y, h2;
};
inline GemmModelOutputs gemmModelExpected(const std::vector<float> &x,
                                          const std::vector<float> &c,
                                          float scale = 2) {
  GemmModelOutputs out{std::vector<float>(20), std::vector<float>(30)};
  for (int b = 0; b < 2; ++b) {
    double h[3][5];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) {
        double sum = 0;
        for (int p = 0; p < 4; ++p)
          sum += double(scale * x[b * 12 + i * 4 + p]) * modelW(j, p);
        h[i][j] = float(activate(GRAPHC_EPILOGUE_RELU, sum + modelB1(j)));
        out.h2[b * 15 + i * 5 + j] =
            float(activate(GRAPHC_EPILOGUE_RELU, sum + modelB2(j)));
      }
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 2; ++j) {
        double sum = 0;
        for (int p = 0; p < 3; ++p)
          sum += h[p][i] * modelP(p, j);
        out.y[b * 10 + i * 2 + j] = float(activate(
            GRAPHC_EPILOGUE_GELU_TANH, 0.5 * sum + c[b * 10 + i * 2 + j]));
      }
  }
  return out;
}

/// Whether every |actual - expected| <= tolerance * max(1, |expected|);
/// NaNs must match.
inline bool near(const std::vector<float> &actual,
                 const std::vector<float> &expected, double tolerance = 1e-5) {
  if (actual.size() != expected.size())
    return false;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (std::isnan(expected[i]) || std::isnan(actual[i])) {
      if (std::isnan(expected[i]) != std::isnan(actual[i]))
        return false;
      continue;
    }
    double scale = std::fmax(1.0, std::fabs(expected[i]));
    if (std::fabs(double(actual[i]) - expected[i]) > tolerance * scale)
      return false;
  }
  return true;
}

} // namespace gemmtest

#endif
