//===- ReferenceGemm.cpp - library GEMMs computed on the host -------------===//
//
// Blocked i-k-j loops: a block of D accumulates in a float buffer, each
// product adding a * (a row segment of op(B)), a contiguous axpy the
// compiler vectorises. op(B)'s rows are B's own, or, for trans_b, those of
// a packed transposed panel. Every element of D sums its k products in
// ascending order, as the plain triple loop does.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/ReferenceGemm.h"

#include "graphc/runtime.h"
#include "runtime/src/OnnxDtype.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <vector>

using namespace graphc::rt;

namespace {
/// A block of D is kRowBlock x kColumnBlock, accumulated kDepthBlock
/// products at a time: the accumulator and a panel of op(B) stay in cache.
constexpr int64_t kRowBlock = 64;
constexpr int64_t kColumnBlock = 512;
constexpr int64_t kDepthBlock = 256;

void axpy(float *__restrict y, float a, const float *__restrict x, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    y[j] += a * x[j];
}

/// Applies the activation to `row` in place.
void activate(int32_t epilogue, float *row, int64_t n) {
  switch (epilogue) {
  case GRAPHC_EPILOGUE_RELU:
    // max(x, 0) with NaN kept: a NaN compares false and stays.
    for (int64_t j = 0; j < n; ++j)
      row[j] = row[j] < 0.0f ? 0.0f : row[j];
    break;
  case GRAPHC_EPILOGUE_GELU_TANH:
    for (int64_t j = 0; j < n; ++j)
      row[j] = geluTanh(row[j]);
    break;
  default:
    break;
  }
}
} // namespace

float graphc::rt::geluTanh(float x) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  return 0.5f * x *
         (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
}

bool graphc::rt::referenceGemmSupports(const graphc_gemm_desc &gemm,
                                       std::string &error) {
  if (gemm.dtype != kFloat) {
    error = std::string("the reference GEMM computes float32 matrices, not ") +
            graphc_dtype_name(gemm.dtype);
    return false;
  }
  if (gemm.compute_dtype != kFloat) {
    error = std::string("the reference GEMM accumulates in float32, not ") +
            graphc_dtype_name(gemm.compute_dtype);
    return false;
  }
  if (gemm.epilogue != GRAPHC_EPILOGUE_NONE &&
      gemm.epilogue != GRAPHC_EPILOGUE_RELU &&
      gemm.epilogue != GRAPHC_EPILOGUE_GELU_TANH) {
    error =
        "the reference GEMM has no epilogue " + std::to_string(gemm.epilogue);
    return false;
  }
  return true;
}

bool graphc::rt::runReferenceGemm(const graphc_gemm_desc &gemm,
                                  void *const *args, std::string &error) {
  if (!referenceGemmSupports(gemm, error))
    return false;
  const int64_t m = gemm.m, n = gemm.n, k = gemm.k;
  const auto *a = static_cast<const float *>(args[gemm.a_arg]);
  const auto *b = static_cast<const float *>(args[gemm.b_arg]);
  // beta == 0 never reads C, which may then be absent.
  const float *c = gemm.beta != 0 && gemm.c_arg >= 0
                       ? static_cast<const float *>(args[gemm.c_arg])
                       : nullptr;
  const float *bias = gemm.bias_arg >= 0
                          ? static_cast<const float *>(args[gemm.bias_arg])
                          : nullptr;
  auto *d = static_cast<float *>(args[gemm.d_arg]);
  const float alpha = static_cast<float>(gemm.alpha);
  const float beta = static_cast<float>(gemm.beta);

  const int64_t width = std::min(kColumnBlock, n);
  std::vector<float> accumulator, panel;
  try {
    accumulator.resize(static_cast<size_t>(std::min(kRowBlock, m) * width));
    if (gemm.trans_b)
      panel.resize(static_cast<size_t>(std::min(kDepthBlock, k) * width));
  } catch (const std::bad_alloc &) {
    error = "out of memory for the reference GEMM's scratch";
    return false;
  }

  for (int64_t i = 0; i < gemm.batch; ++i) {
    const float *ai = a + i * gemm.stride_a;
    const float *bi = b + i * gemm.stride_b;
    const float *ci = c ? c + i * gemm.stride_c : nullptr;
    float *di = d + i * m * n;
    for (int64_t row0 = 0; row0 < m; row0 += kRowBlock) {
      const int64_t rows = std::min(kRowBlock, m - row0);
      for (int64_t col0 = 0; col0 < n; col0 += kColumnBlock) {
        const int64_t cols = std::min(kColumnBlock, n - col0);
        std::fill(accumulator.begin(), accumulator.begin() + rows * cols,
                  0.0f);
        for (int64_t p0 = 0; p0 < k; p0 += kDepthBlock) {
          const int64_t depth = std::min(kDepthBlock, k - p0);
          // Columns col0.. of row p of op(B), for p in [p0, p0 + depth),
          // `bStep` apart.
          const float *bRows = bi + p0 * gemm.ldb + col0;
          int64_t bStep = gemm.ldb;
          if (gemm.trans_b) {
            // B is stored n x k: gather its columns p0.. into rows.
            for (int64_t p = 0; p < depth; ++p)
              for (int64_t j = 0; j < cols; ++j)
                panel[p * cols + j] = bi[(col0 + j) * gemm.ldb + p0 + p];
            bRows = panel.data();
            bStep = cols;
          }
          for (int64_t r = 0; r < rows; ++r) {
            const int64_t row = row0 + r;
            float *acc = accumulator.data() + r * cols;
            for (int64_t p = 0; p < depth; ++p) {
              // op(A)[row][p0 + p]; A is stored k x m when transposed.
              float factor = gemm.trans_a ? ai[(p0 + p) * gemm.lda + row]
                                          : ai[row * gemm.lda + p0 + p];
              axpy(acc, factor, bRows + p * bStep, cols);
            }
          }
        }
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t row = row0 + r;
          const float *acc = accumulator.data() + r * cols;
          // C may be D itself (same rows): each element is read before it
          // is written.
          const float *cRow = ci ? ci + row * gemm.ldc + col0 : nullptr;
          float *dRow = di + row * n + col0;
          for (int64_t j = 0; j < cols; ++j) {
            float value = alpha * acc[j];
            if (cRow)
              value += beta * cRow[j];
            if (bias)
              value += bias[col0 + j];
            dRow[j] = value;
          }
          activate(gemm.epilogue, dRow, cols);
        }
      }
    }
  }
  return true;
}
