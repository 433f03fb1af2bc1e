//===- ReferenceGemm.cpp - library GEMMs computed on the host -------------===//
//
// graphc::gemm (lib/Support/Gemm.h, the host kernels' GEMM) into a float
// accumulator, a block of D at a time, then alpha, beta * C, the bias and
// the activation in float. float32 operands are read where they lie;
// float16, bfloat16 and tf32 ones are widened (or rounded) into float
// blocks first. Every element of D sums its k products in ascending order,
// as the plain triple loop does, in float, and is rounded once to the
// element type when stored (as cuBLASLt's CUBLAS_COMPUTE_32F does).
//
// 8-bit operands (descriptor.h) write the accumulator: int8 products are
// summed in int64 and wrapped to int32 two's complement (the exact int32
// sum, as integer tensor cores wrap it); float8e4m3fn elements are decoded
// exactly (lib/Support/Float8.h) and their products, exact in float, summed
// in float in ascending k, then alpha * sum + beta * C in float.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/ReferenceGemm.h"

#include "graphc/runtime.h"
#include "lib/Artifact/OnnxDtype.h"
#include "lib/Support/Float16.h"
#include "lib/Support/Float8.h"
#include "lib/Support/Gemm.h"
#include "lib/Support/ScalarOps.h"
#include "runtime/src/Dtype.h"
#include "runtime/src/FloatElements.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <type_traits>
#include <vector>

using namespace graphc::rt;

namespace {
/// A block of D is kRowBlock x kColumnBlock, accumulated kDepthBlock
/// products at a time: the accumulator and the widened blocks of op(A) and
/// op(B) stay bounded.
constexpr int64_t kRowBlock = 64;
constexpr int64_t kColumnBlock = 512;
constexpr int64_t kDepthBlock = 256;

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
  scalar::Eval<float> b;
  return scalar::gelu(b, x, /*useTanh=*/true);
}

bool graphc::rt::referenceGemmSupports(const graphc_gemm_desc &gemm,
                                       std::string &error) {
  if (isEightBitLibraryDtype(gemm.dtype, gemm.compute_dtype)) {
    // The load-time check holds them to descriptor.h's contract.
    if (gemm.epilogue != GRAPHC_EPILOGUE_NONE || gemm.bias_arg >= 0 ||
        gemm.tf32) {
      error = std::string("the reference GEMM takes no epilogue, bias or "
                          "tf32 for ") +
              graphc_dtype_name(gemm.dtype) + " matrices";
      return false;
    }
    return true;
  }
  if (gemm.dtype != kFloat && gemm.dtype != kFloat16 &&
      gemm.dtype != kBfloat16) {
    error = std::string("the reference GEMM computes float32, float16 or "
                        "bfloat16 matrices, not ") +
            graphc_dtype_name(gemm.dtype);
    return false;
  }
  if (gemm.compute_dtype != kFloat) {
    error = std::string("the reference GEMM accumulates in float32, not ") +
            graphc_dtype_name(gemm.compute_dtype);
    return false;
  }
  if (gemm.epilogue == GRAPHC_EPILOGUE_SILU) {
    error = "the reference GEMM has no SiLU epilogue (a convolution's alone)";
    return false;
  }
  if (gemm.epilogue == GRAPHC_EPILOGUE_GELU_ERF) {
    error = "the reference GEMM has no erf GELU epilogue (a convolution's "
            "alone)";
    return false;
  }
  if (gemm.epilogue != GRAPHC_EPILOGUE_NONE &&
      gemm.epilogue != GRAPHC_EPILOGUE_RELU &&
      gemm.epilogue != GRAPHC_EPILOGUE_GELU_TANH) {
    error =
        "the reference GEMM has no epilogue " + std::to_string(gemm.epilogue);
    return false;
  }
  if (gemm.tf32 && gemm.dtype != kFloat) {
    error = std::string("the reference GEMM rounds float32 matrices to "
                        "tf32, not ") +
            graphc_dtype_name(gemm.dtype);
    return false;
  }
  return true;
}

namespace {
template <int32_t Dtype>
bool runGemm(const graphc_gemm_desc &gemm, void *const *args,
             std::string &error) {
  using E = FloatElements<Dtype>;
  using T = typename E::Storage;
  // float32 operands are read where they lie; other types and tf32
  // products widen (or round) blocks of A and B into float.
  const bool tf32 = gemm.tf32 != 0;
  const bool direct = Dtype == kFloat && !tf32;
  auto operand = [tf32](T v) {
    return tf32 ? graphc::roundToTf32(E::load(v)) : E::load(v);
  };
  // Rows [i0, i0 + is) x columns [j0, j0 + js) of op(X), X row-major with
  // leading dimension `ld` (transposed: X holds the columns as rows): a
  // pointer into X itself, or the block widened into `scratch`; `blockLd`
  // is the result's leading dimension.
  auto block = [&](const T *x, int64_t ld, bool trans, int64_t i0, int64_t is,
                   int64_t j0, int64_t js, std::vector<float> &scratch,
                   int64_t &blockLd) -> const float * {
    if (trans) {
      std::swap(i0, j0);
      std::swap(is, js);
    }
    if constexpr (Dtype == kFloat)
      if (direct) {
        blockLd = ld;
        return x + i0 * ld + j0;
      }
    for (int64_t i = 0; i < is; ++i)
      for (int64_t j = 0; j < js; ++j)
        scratch[i * js + j] = operand(x[(i0 + i) * ld + j0 + j]);
    blockLd = js;
    return scratch.data();
  };
  const int64_t m = gemm.m, n = gemm.n, k = gemm.k;
  const bool transA = gemm.trans_a != 0, transB = gemm.trans_b != 0;
  const auto *a = static_cast<const T *>(args[gemm.a_arg]);
  const auto *b = static_cast<const T *>(args[gemm.b_arg]);
  // beta == 0 never reads C, which may then be absent.
  const T *c = gemm.beta != 0 && gemm.c_arg >= 0
                   ? static_cast<const T *>(args[gemm.c_arg])
                   : nullptr;
  const T *bias = gemm.bias_arg >= 0
                      ? static_cast<const T *>(args[gemm.bias_arg])
                      : nullptr;
  auto *d = static_cast<T *>(args[gemm.d_arg]);
  const float alpha = static_cast<float>(gemm.alpha);
  const float beta = static_cast<float>(gemm.beta);

  const int64_t height = std::min(kRowBlock, m);
  const int64_t width = std::min(kColumnBlock, n);
  const int64_t deep = std::min(kDepthBlock, k);
  std::vector<float> accumulator, aBlock, bBlock, row;
  try {
    accumulator.resize(static_cast<size_t>(height * width));
    if (!direct) {
      aBlock.resize(static_cast<size_t>(height * deep));
      bBlock.resize(static_cast<size_t>(deep * width));
    }
    row.resize(static_cast<size_t>(width));

    for (int64_t i = 0; i < gemm.batch; ++i) {
      const T *ai = a + i * gemm.stride_a;
      const T *bi = b + i * gemm.stride_b;
      const T *ci = c ? c + i * gemm.stride_c : nullptr;
      T *di = d + i * m * n;
      for (int64_t col0 = 0; col0 < n; col0 += kColumnBlock) {
        const int64_t cols = std::min(kColumnBlock, n - col0);
        for (int64_t row0 = 0; row0 < m; row0 += kRowBlock) {
          const int64_t rows = std::min(kRowBlock, m - row0);
          // k == 0 still runs once: the block is then 0.
          for (int64_t p0 = 0; p0 < k || p0 == 0; p0 += kDepthBlock) {
            const int64_t depth = std::min(kDepthBlock, k - p0);
            // op(A)[row0.., p0..] and op(B)[p0.., col0..] as blocks of A
            // and B as stored (A k x m when transposed, B n x k).
            int64_t lda, ldb;
            const float *opA =
                block(ai, gemm.lda, transA, row0, rows, p0, depth, aBlock, lda);
            const float *opB =
                block(bi, gemm.ldb, transB, p0, depth, col0, cols, bBlock, ldb);
            // Later depth blocks add on (beta 1): each element still sums
            // its products in ascending order.
            graphc::gemm<float>(transA, transB, rows, cols, depth, 1.0f, opA,
                                lda, opB, ldb, p0 == 0 ? 0.0f : 1.0f,
                                accumulator.data(), cols);
          }
          for (int64_t r = 0; r < rows; ++r) {
            const int64_t rowIndex = row0 + r;
            const float *acc = accumulator.data() + r * cols;
            // C may be D itself (same rows): the row is computed whole
            // before it is stored.
            const T *cRow = ci ? ci + rowIndex * gemm.ldc + col0 : nullptr;
            for (int64_t j = 0; j < cols; ++j) {
              float value = alpha * acc[j];
              if (cRow)
                value += beta * E::load(cRow[j]);
              if (bias)
                value += E::load(bias[col0 + j]);
              row[j] = value;
            }
            activate(gemm.epilogue, row.data(), cols);
            T *dRow = di + rowIndex * n + col0;
            for (int64_t j = 0; j < cols; ++j)
              dRow[j] = E::store(row[j]);
          }
        }
      }
    }
  } catch (const std::bad_alloc &) {
    error = "out of memory for the reference GEMM's scratch";
    return false;
  }
  return true;
}
} // namespace

int32_t graphc::rt::wrapToInt32(int64_t sum) {
  // The low 32 bits read as two's complement, without an out-of-range
  // conversion.
  const uint32_t low = static_cast<uint32_t>(static_cast<uint64_t>(sum));
  return low <= uint32_t(INT32_MAX)
             ? static_cast<int32_t>(low)
             : static_cast<int32_t>(int64_t(low) - (int64_t(1) << 32));
}

namespace {
/// An 8-bit GEMM (descriptor.h): int8 summed exactly in int32, or
/// float8e4m3fn summed in float; D (and C) hold the accumulator.
template <bool Int8>
void runEightBitGemm(const graphc_gemm_desc &gemm, void *const *args) {
  using Sum = std::conditional_t<Int8, int64_t, float>;
  using Out = std::conditional_t<Int8, int32_t, float>;
  // Every e4m3fn code's value, decoded once.
  float decoded[256] = {};
  if constexpr (!Int8)
    for (unsigned code = 0; code < 256; ++code)
      decoded[code] = graphc::gc_f8_to_float(kFloat8E4M3FN, code);
  auto value = [&](const uint8_t *base, int64_t at) -> Sum {
    if constexpr (Int8)
      return static_cast<int8_t>(base[at]);
    else
      return decoded[base[at]];
  };
  const int64_t m = gemm.m, n = gemm.n, k = gemm.k;
  const auto *a = static_cast<const uint8_t *>(args[gemm.a_arg]);
  const auto *b = static_cast<const uint8_t *>(args[gemm.b_arg]);
  // beta == 0 never reads C, which may then be absent.
  const Out *c = gemm.beta != 0 && gemm.c_arg >= 0
                     ? static_cast<const Out *>(args[gemm.c_arg])
                     : nullptr;
  auto *d = static_cast<Out *>(args[gemm.d_arg]);
  // op(A)[i, p] and op(B)[p, j] as stored: steps along i, p and j.
  const int64_t aRow = gemm.trans_a ? 1 : gemm.lda;
  const int64_t aDepth = gemm.trans_a ? gemm.lda : 1;
  const int64_t bDepth = gemm.trans_b ? 1 : gemm.ldb;
  const int64_t bColumn = gemm.trans_b ? gemm.ldb : 1;
  const float alpha = static_cast<float>(gemm.alpha);
  const float beta = static_cast<float>(gemm.beta);
  for (int64_t batch = 0; batch < gemm.batch; ++batch) {
    const uint8_t *ai = a + batch * gemm.stride_a;
    const uint8_t *bi = b + batch * gemm.stride_b;
    const Out *ci = c ? c + batch * gemm.stride_c : nullptr;
    Out *di = d + batch * m * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        Sum sum = 0;
        for (int64_t p = 0; p < k; ++p)
          sum += value(ai, i * aRow + p * aDepth) *
                 value(bi, p * bDepth + j * bColumn);
        // C may be D itself (same rows): C's element is read before D's
        // is written.
        if constexpr (Int8) {
          // beta is 1 when C is read; alpha is 1.
          if (ci)
            sum += ci[i * gemm.ldc + j];
          di[i * n + j] = wrapToInt32(sum);
        } else {
          float result = alpha * sum;
          if (ci)
            result += beta * ci[i * gemm.ldc + j];
          di[i * n + j] = result;
        }
      }
    }
  }
}
} // namespace

bool graphc::rt::runReferenceGemm(const graphc_gemm_desc &gemm,
                                  void *const *args, std::string &error) {
  if (!referenceGemmSupports(gemm, error))
    return false;
  if (isEightBitLibraryDtype(gemm.dtype, gemm.compute_dtype)) {
    if (gemm.dtype == kInt8)
      runEightBitGemm<true>(gemm, args);
    else
      runEightBitGemm<false>(gemm, args);
    return true;
  }
  switch (gemm.dtype) {
  case kFloat16:
    return runGemm<kFloat16>(gemm, args, error);
  case kBfloat16:
    return runGemm<kBfloat16>(gemm, args, error);
  default:
    return runGemm<kFloat>(gemm, args, error);
  }
}
