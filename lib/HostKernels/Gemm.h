//===- Gemm.h - cache-blocked matrix multiply for the host kernels -*- C++ -*-===//
//
// One GEMM shared by MatMul, Gemm, Conv (after im2col) and ConvTranspose
// (before col2im). Row-major operands with leading dimensions; 16-bit floats
// are widened into float scratch by the callers (ComputeView).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_HOSTKERNELS_GEMM_H
#define GRAPHC_HOSTKERNELS_GEMM_H

#include "lib/HostKernels/KernelSupport.h"

#include <algorithm>
#include <vector>

namespace graphc::hk {

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

/// A tensor's elements in its arithmetic type: the data itself, or a widened
/// float copy for f16/bf16.
template <typename T> class ComputeView {
public:
  ComputeView(const void *data, int64_t count) {
    if constexpr (std::is_same_v<T, Arith<T>>) {
      ptr = static_cast<const T *>(data);
    } else {
      const T *src = static_cast<const T *>(data);
      storage.resize(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i)
        storage[i] = toArith(src[i]);
      ptr = storage.data();
    }
  }
  const Arith<T> *data() const { return ptr; }

private:
  std::vector<Arith<T>> storage;
  const Arith<T> *ptr;
};

/// Output storage in the arithmetic type, rounded into the tensor by flush().
template <typename T> class ComputeOutput {
public:
  ComputeOutput(void *data, int64_t count) : out(static_cast<T *>(data)), n(count) {
    if constexpr (std::is_same_v<T, Arith<T>>)
      ptr = out;
    else {
      storage.resize(static_cast<size_t>(count));
      ptr = storage.data();
    }
  }
  Arith<T> *data() { return ptr; }
  void flush() {
    if constexpr (!std::is_same_v<T, Arith<T>>)
      for (int64_t i = 0; i < n; ++i)
        out[i] = fromArith<T>(storage[i]);
  }

private:
  std::vector<Arith<T>> storage;
  T *out;
  int64_t n;
  Arith<T> *ptr;
};

} // namespace graphc::hk

#endif
