//===- Gemm.h - the one cache-blocked matrix multiply -----------*- C++ -*-===//
//
// Header only and dependency free (standard C++): the host kernels' MatMul,
// Gemm, Conv and ConvTranspose (lib/HostKernels, which fold constants in
// the compiler and run in cpu-target models) and the runtime's reference
// library GEMM and convolution (runtime/src/Reference*) share it. Every
// element of C sums its K products in ascending order, each scaled by alpha
// first, onto beta * C: the compiler's constant folding depends on these
// exact bits.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_GEMM_H
#define GRAPHC_LIB_SUPPORT_GEMM_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace graphc {

/// C[M,N] = alpha * op(A)[M,K] * op(B)[K,N] + beta * C. op(X) transposes
/// when the flag is set; A(i,k) is A[i*lda+k] (or A[k*lda+i] transposed).
///
/// Blocked over K and N so that a KC x NC panel of B stays in cache while
/// four rows of C are updated from it with a unit-stride (vectorisable)
/// inner loop; a transposed B panel is packed first.
template <typename T>
void gemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, T alpha,
          const T *A, int64_t lda, const T *B, int64_t ldb, T beta, T *C,
          int64_t ldc) {
  for (int64_t i = 0; i < M; ++i) {
    T *row = C + i * ldc;
    if (beta == T(0))
      std::fill(row, row + N, T(0));
    else if (beta != T(1))
      for (int64_t j = 0; j < N; ++j)
        row[j] *= beta;
  }
  if (M == 0 || N == 0 || K == 0 || alpha == T(0))
    return;
  constexpr int64_t KC = 128, NC = 512;
  std::vector<T> packed;
  if (transB)
    packed.resize(static_cast<size_t>(std::min(K, KC) * std::min(N, NC)));
  auto a = [&](int64_t i, int64_t k) {
    return transA ? A[k * lda + i] : A[i * lda + k];
  };
  for (int64_t j0 = 0; j0 < N; j0 += NC) {
    int64_t nc = std::min(NC, N - j0);
    for (int64_t k0 = 0; k0 < K; k0 += KC) {
      int64_t kc = std::min(KC, K - k0);
      const T *panel;
      int64_t ldp;
      if (transB) {
        for (int64_t k = 0; k < kc; ++k)
          for (int64_t j = 0; j < nc; ++j)
            packed[k * nc + j] = B[(j0 + j) * ldb + k0 + k];
        panel = packed.data();
        ldp = nc;
      } else {
        panel = B + k0 * ldb + j0;
        ldp = ldb;
      }
      int64_t i = 0;
      for (; i + 4 <= M; i += 4) {
        T *c0 = C + i * ldc + j0, *c1 = c0 + ldc, *c2 = c1 + ldc,
          *c3 = c2 + ldc;
        for (int64_t k = 0; k < kc; ++k) {
          T a0 = alpha * a(i, k0 + k), a1 = alpha * a(i + 1, k0 + k),
            a2 = alpha * a(i + 2, k0 + k), a3 = alpha * a(i + 3, k0 + k);
          const T *b = panel + k * ldp;
          for (int64_t j = 0; j < nc; ++j) {
            T bj = b[j];
            c0[j] += a0 * bj;
            c1[j] += a1 * bj;
            c2[j] += a2 * bj;
            c3[j] += a3 * bj;
          }
        }
      }
      for (; i < M; ++i) {
        T *c0 = C + i * ldc + j0;
        for (int64_t k = 0; k < kc; ++k) {
          T a0 = alpha * a(i, k0 + k);
          const T *b = panel + k * ldp;
          for (int64_t j = 0; j < nc; ++j)
            c0[j] += a0 * b[j];
        }
      }
    }
  }
}

} // namespace graphc

#endif
