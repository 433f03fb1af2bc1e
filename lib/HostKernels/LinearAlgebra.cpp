//===- LinearAlgebra.cpp - MatMul, Gemm and Det host kernels --------------===//

#include "lib/HostKernels/ComputeView.h"
#include "lib/HostKernels/EightBit.h"
#include "lib/HostKernels/KernelAttrs.h"
#include "lib/Support/Gemm.h"

#include <cmath>
#include <vector>

using namespace graphc::hk;

namespace {
constexpr unsigned kMatMulTypes = kFloats | kI32 | kI64 | kU32 | kU64;
} // namespace

GC_KERNEL(mat_mul) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &a = ctx.in(0), &b = ctx.in(1);
  GC_TRY(ctx.checkSameDtype(1, a.dtype, "input B"));
  if (a.rank < 1 || b.rank < 1)
    return ctx.fail("inputs must have rank >= 1");
  // Numpy promotion: a 1-D A is a row, a 1-D B a column; both extra dims go.
  int64_t M = a.rank == 1 ? 1 : a.dims[a.rank - 2];
  int64_t K = a.dims[a.rank - 1];
  int64_t KB = b.rank == 1 ? b.dims[0] : b.dims[b.rank - 2];
  int64_t N = b.rank == 1 ? 1 : b.dims[b.rank - 1];
  if (K != KB)
    return ctx.fail("inner dimensions differ: %lld vs %lld",
                    static_cast<long long>(K), static_cast<long long>(KB));
  int batchA = a.rank > 2 ? a.rank - 2 : 0, batchB = b.rank > 2 ? b.rank - 2 : 0;
  int batchRank = std::max(batchA, batchB);
  Dims batch, strideA, strideB;
  batch.rank = strideA.rank = strideB.rank = batchRank;
  for (int d = 0; d < batchRank; ++d) {
    int da = d - (batchRank - batchA), db = d - (batchRank - batchB);
    int64_t ea = da >= 0 ? a.dims[da] : 1, eb = db >= 0 ? b.dims[db] : 1;
    if (ea != eb && ea != 1 && eb != 1)
      return ctx.fail("batch dimensions %lld and %lld do not broadcast",
                      static_cast<long long>(ea), static_cast<long long>(eb));
    batch[d] = std::max(ea, eb);
  }
  // Matrix-granular strides of the batch dims (0 where broadcast).
  int64_t stepA = M * K, stepB = K * N;
  for (int d = batchRank - 1; d >= 0; --d) {
    int da = d - (batchRank - batchA), db = d - (batchRank - batchB);
    int64_t ea = da >= 0 ? a.dims[da] : 1, eb = db >= 0 ? b.dims[db] : 1;
    strideA[d] = ea == 1 ? 0 : stepA;
    strideB[d] = eb == 1 ? 0 : stepB;
    stepA *= ea;
    stepB *= eb;
  }
  Dims outDims = batch;
  if (a.rank > 1)
    outDims.push(M);
  if (b.rank > 1)
    outDims.push(N);
  GC_TRY(ctx.checkOutput(0, a.dtype, outDims));
  return dispatch<kMatMulTypes>(ctx, a.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Arith<T>;
    ComputeView<T> va(a.data, numElements(a)), vb(b.data, numElements(b));
    ComputeOutput<T> out(ctx.out(0).data, outDims.product());
    StridedLoop<2> loop;
    loop.rank = batchRank;
    for (int d = 0; d < batchRank; ++d) {
      loop.dims[d] = batch[d];
      loop.strides[0][d] = strideA[d];
      loop.strides[1][d] = strideB[d];
    }
    int64_t index = 0;
    loop.forEach([&](const int64_t *offsets) {
      graphc::gemm<A>(false, false, M, N, K, A(1), va.data() + offsets[0], K,
                      vb.data() + offsets[1], N, A(0),
                      out.data() + index * M * N, N);
      ++index;
    });
    out.flush();
    return 0;
  });
}

GC_KERNEL_ATTRS(gemm, Gemm, opAttrs) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &a = ctx.in(0), &b = ctx.in(1);
  GC_TRY(ctx.checkSameDtype(1, a.dtype, "input B"));
  if (a.rank != 2 || b.rank != 2)
    return ctx.fail("A and B must be 2-D");
  bool transA = opAttrs.transA != 0;
  bool transB = opAttrs.transB != 0;
  double alpha = opAttrs.alpha, beta = opAttrs.beta;
  int64_t M = transA ? a.dims[1] : a.dims[0], K = transA ? a.dims[0] : a.dims[1];
  int64_t KB = transB ? b.dims[1] : b.dims[0], N = transB ? b.dims[0] : b.dims[1];
  if (K != KB)
    return ctx.fail("inner dimensions differ: %lld vs %lld",
                    static_cast<long long>(K), static_cast<long long>(KB));
  Dims outDims;
  outDims.push(M);
  outDims.push(N);
  GC_TRY(ctx.checkOutput(0, a.dtype, outDims));
  bool hasC = ctx.has(2);
  StridedLoop<3> cLoop;
  if (hasC) {
    GC_TRY(ctx.checkSameDtype(2, a.dtype, "input C"));
    const gc_tensor &c = ctx.in(2);
    // C broadcasts one way, into the output.
    GC_TRY(makeBroadcastLoop<3>(ctx, {&ctx.out(0), &c}, ctx.out(0), cLoop));
  }
  return dispatch<kMatMulTypes>(ctx, a.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Arith<T>;
    ComputeView<T> va(a.data, numElements(a)), vb(b.data, numElements(b));
    ComputeOutput<T> out(ctx.out(0).data, M * N);
    A betaValue = A(0);
    if (hasC) {
      ComputeView<T> vc(ctx.in(2).data, numElements(ctx.in(2)));
      A *o = out.data();
      const A *c = vc.data();
      cLoop.forEach([&](const int64_t *offsets) { o[offsets[0]] = c[offsets[2]]; });
      betaValue = static_cast<A>(beta);
    }
    graphc::gemm<A>(transA, transB, M, N, K, static_cast<A>(alpha), va.data(),
                    a.dims[1], vb.data(), b.dims[1], betaValue, out.data(), N);
    out.flush();
    return 0;
  });
}

namespace {
/// One matrix product of quantized_mat_mul: out[m, n] = sum_k a[m, k] *
/// bt[n, k] over widened operands, k ascending from zero. Integers sum
/// exactly in int64 and wrap to int32; e4m3fn products are exact in f32
/// (8 significant bits, exponents in [-18, 18]), so each step rounds only
/// the sum, and a sequential sum over k is what the generated CUDA kernel
/// computes too.
template <typename W, typename Acc, typename Out>
void quantizedProduct(const W *a, const W *bt, int64_t M, int64_t N, int64_t K,
                      Out *out) {
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      const W *row = a + m * K, *column = bt + n * K;
      Acc acc = Acc(0);
      for (int64_t k = 0; k < K; ++k)
        acc += static_cast<Acc>(row[k] * column[k]);
      if constexpr (std::is_integral_v<Acc>)
        out[m * N + n] = wrapToInt32(acc);
      else
        out[m * N + n] = acc;
    }
}
} // namespace

/// QuantizedMatMul: A [..., M, K] by B [K, N] (or [N, K] with trans_b), B
/// of rank 2 or A's with broadcasting batch dims; int8/uint8 in any mix to
/// int32, or e4m3fn to f32.
GC_KERNEL_ATTRS(quantized_mat_mul, QuantizedMatMul, opAttrs) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &a = ctx.in(0), &b = ctx.in(1);
  bool float8 = a.dtype == GC_DTYPE_F8E4M3FN;
  if (!float8 && !isEightBitInteger(a.dtype))
    return ctx.unsupportedDtype("input A", a.dtype);
  if (float8 ? b.dtype != GC_DTYPE_F8E4M3FN : !isEightBitInteger(b.dtype))
    return ctx.fail("A and B must both be float8 e4m3fn or both 8-bit "
                    "integers");
  if (opAttrs.transB != 0 && opAttrs.transB != 1)
    return ctx.fail("trans_b must be 0 or 1, got %lld",
                    static_cast<long long>(opAttrs.transB));
  bool transB = opAttrs.transB != 0;
  if (a.rank < 2 || (b.rank != 2 && b.rank != a.rank))
    return ctx.fail("A must have rank >= 2 and B rank 2 or A's (%d), got %d",
                    a.rank, b.rank);
  int64_t M = a.dims[a.rank - 2], K = a.dims[a.rank - 1];
  int64_t KB = b.dims[b.rank - (transB ? 1 : 2)];
  int64_t N = b.dims[b.rank - (transB ? 2 : 1)];
  if (K != KB)
    return ctx.fail("contraction dims differ: %lld vs %lld",
                    static_cast<long long>(K), static_cast<long long>(KB));
  int batchRank = a.rank - 2;
  Dims batch, strideA, strideB;
  batch.rank = strideA.rank = strideB.rank = batchRank;
  for (int d = 0; d < batchRank; ++d) {
    int64_t ea = a.dims[d], eb = b.rank == 2 ? 1 : b.dims[d];
    if (ea != eb && ea != 1 && eb != 1)
      return ctx.fail("batch dims %lld and %lld do not broadcast",
                      static_cast<long long>(ea), static_cast<long long>(eb));
    batch[d] = std::max(ea, eb);
  }
  // Matrix-granular strides of the batch dims (0 where broadcast).
  int64_t stepA = M * K, stepB = K * N;
  for (int d = batchRank - 1; d >= 0; --d) {
    int64_t ea = a.dims[d], eb = b.rank == 2 ? 1 : b.dims[d];
    strideA[d] = ea == 1 ? 0 : stepA;
    strideB[d] = eb == 1 ? 0 : stepB;
    stepA *= ea;
    stepB *= eb;
  }
  Dims outDims = batch;
  outDims.push(M);
  outDims.push(N);
  GC_TRY(ctx.checkOutput(0, float8 ? GC_DTYPE_F32 : GC_DTYPE_I32, outDims));
  auto run = [&](auto wideTag, auto accTag, auto *out) {
    using W = decltype(wideTag);
    using Acc = decltype(accTag);
    Scratch<W> wideA, packedB;
    GC_TRY(wideA.allocate(ctx, M * K, "the widened A"));
    GC_TRY(packedB.allocate(ctx, N * K, "the widened B"));
    StridedLoop<2> loop;
    loop.rank = batchRank;
    for (int d = 0; d < batchRank; ++d) {
      loop.dims[d] = batch[d];
      loop.strides[0][d] = strideA[d];
      loop.strides[1][d] = strideB[d];
    }
    int64_t index = 0, packedFrom = -1;
    loop.forEach([&](const int64_t *offsets) {
      widenEightBit(a.dtype, a.data, offsets[0], M * K, wideA.data());
      // B as [N, K], packed again only when the batch moves to another B.
      if (offsets[1] != packedFrom) {
        W *bt = packedB.data();
        if (transB) {
          widenEightBit(b.dtype, b.data, offsets[1], N * K, bt);
        } else {
          for (int64_t k = 0; k < K; ++k)
            for (int64_t n = 0; n < N; ++n)
              widenEightBit(b.dtype, b.data, offsets[1] + k * N + n, 1,
                            bt + n * K + k);
        }
        packedFrom = offsets[1];
      }
      quantizedProduct<W, Acc>(wideA.data(), packedB.data(), M, N, K,
                               out + index * M * N);
      ++index;
    });
    return 0;
  };
  if (float8)
    return run(float(), float(), static_cast<float *>(ctx.out(0).data));
  return run(int32_t(), int64_t(), static_cast<int32_t *>(ctx.out(0).data));
}

/// Det: LU with partial pivoting (the first largest magnitude in the column)
/// in float64; a zero pivot column leaves the product zero.
GC_KERNEL(det) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  if (x.rank < 2 || x.dims[x.rank - 1] != x.dims[x.rank - 2])
    return ctx.fail("input must be [*, M, M]");
  int64_t m = x.dims[x.rank - 1];
  Dims outDims(x.dims, x.rank - 2);
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  int64_t matrices = outDims.product();
  return dispatch<kFloats>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = static_cast<const T *>(x.data);
    T *out = static_cast<T *>(ctx.out(0).data);
    std::vector<double> a(static_cast<size_t>(m * m));
    for (int64_t b = 0; b < matrices; ++b) {
      for (int64_t k = 0; k < m * m; ++k)
        a[k] = static_cast<double>(toArith(in[b * m * m + k]));
      double det = 1;
      for (int64_t k = 0; k < m; ++k) {
        int64_t pivot = k;
        for (int64_t r = k + 1; r < m; ++r)
          if (std::fabs(a[r * m + k]) > std::fabs(a[pivot * m + k]))
            pivot = r;
        if (pivot != k) {
          for (int64_t c = 0; c < m; ++c)
            std::swap(a[k * m + c], a[pivot * m + c]);
          det = -det;
        }
        double p = a[k * m + k];
        det *= p;
        if (p == 0)
          continue;
        for (int64_t r = k + 1; r < m; ++r) {
          double f = a[r * m + k] / p;
          for (int64_t c = k + 1; c < m; ++c)
            a[r * m + c] -= f * a[k * m + c];
        }
      }
      out[b] = fromArith<T>(det);
    }
    return 0;
  });
}
