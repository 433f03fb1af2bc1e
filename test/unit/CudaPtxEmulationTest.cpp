//===- CudaPtxEmulationTest.cpp - emulated warp-level PTX fragments -------===//
//
// The attention template's PTX wrappers (cudaModulePreamble: gc_ldmatrix*,
// gc_mma_f16/bf16, gc_cp_async*) run as inline asm on a GPU and as the
// emulation header's C++ here; only the emulated side is tested without a
// GPU, so these tests pin it to the PTX ISA's per-lane fragment layouts:
// fragments built by hand from the ISA's formulas, products checked against
// a plain matrix product, and ldmatrix results checked element by element.
// A kernel module (the preamble and a test kernel) is compiled for the
// emulator as graphc compiles models, loaded, and launched with one warp.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/CudaEmitter.h"
#include "lib/Codegen/CUDA/CudaEmulation.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <vector>

using namespace graphc::codegen;

namespace {

// The module's kernel table (graphc_cuda_emulation.h).
struct EmuKernel {
  const char *name;
  int (*launch)(const unsigned grid[3], const unsigned block[3],
                unsigned sharedBytes, void **params, char *error,
                size_t errorBytes);
  int numParams;
  const unsigned *paramSizes;
};

// One warp; lane = 4 g + t. Every matrix is row-major in global memory.
//  - mma_direct: A (16 x 16), B (16 x 8) and C (16 x 8) fragments built
//    from the ISA's formulas, D = A B + C stored by the C/D formula;
//  - mma_ldmatrix: A by ldmatrix.x4, B from its transpose Bt (8 x 16, the
//    way K is stored) by ldmatrix.x2 and from B itself (16 x 8, the way V
//    is stored) by ldmatrix.x2.trans; D1 = A B by each;
//  - ldmatrix_raw: of an 8 x 8 matrix M (row r at r * 8), the two halves
//    each lane receives from .x1 and .x1.trans, and .x4's four matrices.
const char *kKernels = R"cuda(
template <typename H>
__device__ void mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1);
template <> __device__ void mma<__half>(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) { gc_mma_f16(d, a, b0, b1); }
template <> __device__ void mma<__nv_bfloat16>(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) { gc_mma_bf16(d, a, b0, b1); }

template <typename H>
__device__ unsigned pair(const H *m, int ld, int r, int c) {
  return (unsigned)gc_bits16(m[r * ld + c]) | (unsigned)gc_bits16(m[r * ld + c + 1]) << 16;
}
__device__ void storeD(float *out, const float (&d)[4]) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  out[g * 8 + 2 * t] = d[0];
  out[g * 8 + 2 * t + 1] = d[1];
  out[(g + 8) * 8 + 2 * t] = d[2];
  out[(g + 8) * 8 + 2 * t + 1] = d[3];
}

template <typename H>
__device__ void mmaDirect(const H *A, const H *B, const float *C, float *D) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const unsigned a[4] = {pair(A, 16, g, 2 * t), pair(A, 16, g + 8, 2 * t),
                         pair(A, 16, g, 2 * t + 8), pair(A, 16, g + 8, 2 * t + 8)};
  // B's (k, n) pairs run down a column: B^T's rows.
  H Bt[8 * 16];
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 8; ++n)
      Bt[n * 16 + k] = B[k * 8 + n];
  const unsigned b0 = pair(Bt, 16, g, 2 * t), b1 = pair(Bt, 16, g, 2 * t + 8);
  float d[4] = {C[g * 8 + 2 * t], C[g * 8 + 2 * t + 1], C[(g + 8) * 8 + 2 * t],
                C[(g + 8) * 8 + 2 * t + 1]};
  mma<H>(d, a, b0, b1);
  storeD(D, d);
}

extern "C" __global__ void mma_direct(const __half *A, const __half *B, const float *C,
                                      float *D, const __nv_bfloat16 *Abf,
                                      const __nv_bfloat16 *Bbf, float *Dbf) {
  mmaDirect<__half>(A, B, C, D);
  mmaDirect<__nv_bfloat16>(Abf, Bbf, C, Dbf);
}

extern "C" __global__ void mma_ldmatrix(const __half *A, const __half *B, float *D1,
                                        float *D2) {
  __shared__ __align__(16) __half a[16][24];
  __shared__ __align__(16) __half bt[8][24];
  __shared__ __align__(16) __half b[16][16];
  const int lane = threadIdx.x & 31;
  for (int i = lane; i < 256; i += 32) a[i / 16][i % 16] = A[i];
  for (int i = lane; i < 128; i += 32) {
    bt[i % 8][i / 8] = B[i];
    b[i / 8][i % 8] = B[i];
  }
  __syncwarp();
  unsigned af[4], bf[2], bfT[2];
  gc_ldmatrix_x4(af, &a[lane & 15][(lane >> 4) * 8]);
  gc_ldmatrix_x2(bf, &bt[lane & 7][((lane >> 3) & 1) * 8]);
  gc_ldmatrix_x2_trans(bfT, &b[lane & 15][0]);
  float d1[4] = {0.0f, 0.0f, 0.0f, 0.0f}, d2[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  gc_mma_f16(d1, af, bf[0], bf[1]);
  gc_mma_f16(d2, af, bfT[0], bfT[1]);
  storeD(D1, d1);
  storeD(D2, d2);
}

extern "C" __global__ void ldmatrix_raw(const __half *M, unsigned *x1, unsigned *x1t,
                                        unsigned *x4) {
  __shared__ __align__(16) __half m[32][8];
  const int lane = threadIdx.x & 31;
  for (int i = lane; i < 256; i += 32) m[i / 8][i % 8] = M[i];
  __syncwarp();
  unsigned r1[1], r1t[1], r4[4];
  gc_ldmatrix_x1(r1, &m[lane & 7][0]);
  gc_ldmatrix_x1_trans(r1t, &m[lane & 7][0]);
  gc_ldmatrix_x4(r4, &m[lane][0]);
  x1[lane] = r1[0];
  x1t[lane] = r1t[0];
  for (int i = 0; i < 4; ++i) x4[lane * 4 + i] = r4[i];
}

// cp.async into shared memory, then back out.
extern "C" __global__ void cp_async(const __half *src, __half *dst) {
  __shared__ __align__(16) __half s[64];
  const int lane = threadIdx.x & 31;
  if (lane < 8) gc_cp_async16(&s[lane * 8], src + lane * 8);
  gc_cp_async_commit();
  gc_cp_async_wait<0>();
  __syncwarp();
  dst[lane] = s[lane];
  dst[lane + 32] = s[lane + 32];
}
)cuda";

// IEEE binary16 and bfloat16 of small integers and halves (exact).
uint16_t toHalf(float v) {
  if (v == 0.0f)
    return 0;
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  uint32_t sign = bits >> 31, exponent = (bits >> 23) & 0xff,
           mantissa = bits & 0x7fffff;
  return uint16_t(sign << 15 | (exponent - 127 + 15) << 10 | mantissa >> 13);
}
uint16_t toBfloat16(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return uint16_t(bits >> 16);
}

class CudaPtxEmulationTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string source = cudaModulePreamble().str() + kKernels;
    llvm::Expected<CudaImage> image = compileCudaEmulationModule(
        source, {"mma_direct", "mma_ldmatrix", "ldmatrix_raw", "cp_async"}, "");
    ASSERT_TRUE(static_cast<bool>(image)) << llvm::toString(image.takeError());
    llvm::SmallString<128> path;
    int fd;
    ASSERT_FALSE(
        llvm::sys::fs::createTemporaryFile("graphc-ptx-test", "so", fd, path));
    {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
      os.write(image->data.data(), image->data.size());
    }
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    llvm::sys::fs::remove(path);
    ASSERT_NE(handle, nullptr) << dlerror();
    table = static_cast<const EmuKernel *>(dlsym(handle, "graphc_emu_kernels"));
    ASSERT_NE(table, nullptr);
  }
  void TearDown() override {
    if (handle)
      dlclose(handle);
  }

  /// Launches `name` with one warp and `args` (pointers).
  void launch(const char *name, std::vector<void *> args) {
    const EmuKernel *kernel = table;
    while (kernel->name && std::strcmp(kernel->name, name) != 0)
      ++kernel;
    ASSERT_NE(kernel->name, nullptr) << name;
    ASSERT_EQ(kernel->numParams, int(args.size()));
    std::vector<void *> params;
    for (void *&arg : args)
      params.push_back(&arg);
    const unsigned grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
    char error[256] = "";
    ASSERT_EQ(
        kernel->launch(grid, block, 0, params.data(), error, sizeof error), 0)
        << error;
  }

  void *handle = nullptr;
  const EmuKernel *table = nullptr;
};

// Small integers: every product and sum is exact in float, so the emulated
// result must equal the plain product exactly.
float aValue(int r, int k) { return float((r * 3 + k * 5) % 7 - 3); }
float bValue(int k, int n) { return float((k * 2 + n * 7) % 5 - 2) * 0.5f; }
float cValue(int r, int n) { return float(r * 8 + n); }

TEST_F(CudaPtxEmulationTest, MmaFragmentsFollowTheIsaLayout) {
  std::vector<uint16_t> a(256), b(128), abf(256), bbf(128);
  std::vector<float> c(128), d(128, NAN), dbf(128, NAN);
  for (int r = 0; r < 16; ++r)
    for (int k = 0; k < 16; ++k) {
      a[r * 16 + k] = toHalf(aValue(r, k));
      abf[r * 16 + k] = toBfloat16(aValue(r, k));
    }
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 8; ++n) {
      b[k * 8 + n] = toHalf(bValue(k, n));
      bbf[k * 8 + n] = toBfloat16(bValue(k, n));
    }
  for (int r = 0; r < 16; ++r)
    for (int n = 0; n < 8; ++n)
      c[r * 8 + n] = cValue(r, n);
  launch("mma_direct", {a.data(), b.data(), c.data(), d.data(), abf.data(),
                        bbf.data(), dbf.data()});
  for (int r = 0; r < 16; ++r)
    for (int n = 0; n < 8; ++n) {
      float expected = cValue(r, n);
      for (int k = 0; k < 16; ++k)
        expected += aValue(r, k) * bValue(k, n);
      EXPECT_EQ(d[r * 8 + n], expected) << "f16 D(" << r << ", " << n << ")";
      EXPECT_EQ(dbf[r * 8 + n], expected) << "bf16 D(" << r << ", " << n << ")";
    }
}

TEST_F(CudaPtxEmulationTest, LdmatrixFeedsMmaLikeTheAttentionTemplate) {
  std::vector<uint16_t> a(256), b(128);
  std::vector<float> d1(128, NAN), d2(128, NAN);
  for (int r = 0; r < 16; ++r)
    for (int k = 0; k < 16; ++k)
      a[r * 16 + k] = toHalf(aValue(r, k));
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 8; ++n)
      b[k * 8 + n] = toHalf(bValue(k, n));
  launch("mma_ldmatrix", {a.data(), b.data(), d1.data(), d2.data()});
  for (int r = 0; r < 16; ++r)
    for (int n = 0; n < 8; ++n) {
      float expected = 0.0f;
      for (int k = 0; k < 16; ++k)
        expected += aValue(r, k) * bValue(k, n);
      EXPECT_EQ(d1[r * 8 + n], expected)
          << "B^T rows: D(" << r << ", " << n << ")";
      EXPECT_EQ(d2[r * 8 + n], expected)
          << ".trans: D(" << r << ", " << n << ")";
    }
}

TEST_F(CudaPtxEmulationTest, LdmatrixGivesEachLaneItsElements) {
  // Element (r, c) of the 32 x 8 input holds r * 8 + c (exact in f16).
  std::vector<uint16_t> m(256);
  for (int i = 0; i < 256; ++i)
    m[i] = toHalf(float(i));
  std::vector<unsigned> x1(32), x1t(32), x4(128);
  launch("ldmatrix_raw", {m.data(), x1.data(), x1t.data(), x4.data()});
  auto pairOf = [&](int first, int second) {
    return unsigned(m[first]) | unsigned(m[second]) << 16;
  };
  for (int lane = 0; lane < 32; ++lane) {
    int row = lane / 4, col = 2 * (lane % 4);
    EXPECT_EQ(x1[lane], pairOf(row * 8 + col, row * 8 + col + 1)) << lane;
    // .trans: the lane's pair runs down column lane / 4.
    EXPECT_EQ(x1t[lane], pairOf(col * 8 + row, (col + 1) * 8 + row)) << lane;
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(x4[lane * 4 + i],
                pairOf((8 * i + row) * 8 + col, (8 * i + row) * 8 + col + 1))
          << "lane " << lane << " matrix " << i;
  }
}

TEST_F(CudaPtxEmulationTest, CpAsyncCopiesSixteenBytes) {
  std::vector<uint16_t> src(64), dst(64, 0xffff);
  for (int i = 0; i < 64; ++i)
    src[i] = uint16_t(i * 3 + 1);
  launch("cp_async", {src.data(), dst.data()});
  EXPECT_EQ(src, dst);
}

} // namespace
