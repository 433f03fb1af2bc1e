//===- HostKernelsLinalgTest.cpp - matmul, conv, pooling, norm, resize ----===//

#include "test/unit/HostKernelsTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace graphc::hk::test;

namespace {

void expectNear(const std::vector<float> &got, const std::vector<float> &want,
                float tolerance = 1e-4f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tolerance) << "at " << i;
}

/// Deterministic values in [-1, 1).
std::vector<float> pattern(int64_t n, int seed) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t state = 2654435761u * static_cast<uint32_t>(seed + 1);
  for (auto &x : v) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<float>(state >> 8) / static_cast<float>(1 << 23) - 1.0f;
  }
  return v;
}

TEST(HostKernelLinalg, MatMulMatchesNaiveAcrossBlockEdges) {
  // Sizes straddle the K (128) and N (512) blocks and the 4-row step.
  const int64_t M = 7, K = 130, N = 515;
  Buffer a = f32({M, K}, pattern(M * K, 1)), b = f32({K, N}, pattern(K * N, 2));
  Buffer y = output(GC_DTYPE_F32, {M, N});
  ASSERT_EQ(run("mat_mul", {&a, &b}, {&y}), 0);
  auto av = a.values<float>(), bv = b.values<float>(), yv = y.values<float>();
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double want = 0;
      for (int64_t k = 0; k < K; ++k)
        want += double(av[i * K + k]) * bv[k * N + j];
      ASSERT_NEAR(yv[i * N + j], want, 1e-3) << i << "," << j;
    }
}

TEST(HostKernelLinalg, MatMulBroadcastsBatchesAndPromotesVectors) {
  Buffer a = f32({2, 1, 2}, {1, 2, 3, 4});
  Buffer b = f32({2, 1}, {10, 100});
  Buffer y = output(GC_DTYPE_F32, {2, 1, 1});
  ASSERT_EQ(run("mat_mul", {&a, &b}, {&y}), 0);
  expectNear(y.values<float>(), {210, 430});
  Buffer v = f32({2}, {1, 1});
  Buffer m = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Buffer row = output(GC_DTYPE_F32, {3});
  ASSERT_EQ(run("mat_mul", {&v, &m}, {&row}), 0);
  expectNear(row.values<float>(), {5, 7, 9});
}

TEST(HostKernelLinalg, GemmTransposesScalesAndBroadcastsC) {
  Buffer a = f32({2, 2}, {1, 3, 2, 4}); // A^T = [[1,2],[3,4]]
  Buffer b = f32({2, 2}, {5, 7, 6, 8}); // B^T = [[5,6],[7,8]]
  Buffer c = f32({2}, {1, 2});
  Buffer y = output(GC_DTYPE_F32, {2, 2});
  Attrs attrs;
  attrs.i("transA", 1).i("transB", 1).f("alpha", 2.0).f("beta", 10.0);
  ASSERT_EQ(run("gemm", {&a, &b, &c}, {&y}, attrs), 0);
  // A^T B^T = [[19,22],[43,50]]
  expectNear(y.values<float>(), {48, 64, 96, 120});
  ASSERT_EQ(run("gemm", {&a, &b, nullptr}, {&y}, Attrs().i("transA", 1)), 0);
  // A^T B = [[1,2],[3,4]] * [[5,7],[6,8]]
  expectNear(y.values<float>(), {17, 23, 39, 53});
}

TEST(HostKernelLinalg, ConvWithPaddingStrideAndGroups) {
  // 1x1x3x3 input, 2x2 all-ones kernel, pads 1, stride 2 -> 2x2 output.
  Buffer x = f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Buffer w = f32({1, 1, 2, 2}, {1, 1, 1, 1});
  Buffer bias = f32({1}, {0.5f});
  Buffer y = output(GC_DTYPE_F32, {1, 1, 2, 2});
  ASSERT_EQ(run("conv", {&x, &w, &bias}, {&y},
                Attrs().ints("pads", {1, 1, 1, 1}).ints("strides", {2, 2})),
            0);
  expectNear(y.values<float>(), {1.5f, 5.5f, 11.5f, 28.5f});
  // Depthwise (group = channels) 1-D conv with SAME_UPPER padding.
  Buffer x1 = f32({1, 2, 3}, {1, 2, 3, 10, 20, 30});
  Buffer w1 = f32({2, 1, 2}, {1, 1, 1, -1});
  Buffer y1 = output(GC_DTYPE_F32, {1, 2, 3});
  ASSERT_EQ(run("conv", {&x1, &w1, nullptr}, {&y1},
                Attrs().i("group", 2).s("auto_pad", "SAME_UPPER")),
            0);
  expectNear(y1.values<float>(), {3, 5, 3, -10, -10, 30});
}

TEST(HostKernelLinalg, ConvTransposeWithStrideAndOutputPadding) {
  Buffer x = f32({1, 1, 2}, {1, 2});
  Buffer w = f32({1, 1, 2}, {1, 10});
  Buffer y = output(GC_DTYPE_F32, {1, 1, 5});
  ASSERT_EQ(run("conv_transpose", {&x, &w, nullptr}, {&y},
                Attrs().ints("strides", {2}).ints("output_padding", {1})),
            0);
  expectNear(y.values<float>(), {1, 10, 2, 20, 0});
}

// Col2Im sums overlapping blocks and drops what falls in the padding.
TEST(HostKernelLinalg, Col2ImSumsOverlapsAndDropsPadding) {
  Buffer shape3 = i64({1}, {3}), shape5 = i64({1}, {5}), block = i64({1}, {2});
  Buffer x = f32({1, 2, 2}, {1, 2, 10, 20});
  Buffer y = output(GC_DTYPE_F32, {1, 1, 3});
  ASSERT_EQ(run("col2im", {&x, &shape3, &block}, {&y}), 0);
  expectNear(y.values<float>(), {1, 12, 20});
  // Blocks start at -1, 1, 3: offset 0 of the first lies in the padding.
  Buffer strided = f32({1, 2, 3}, {1, 2, 3, 10, 20, 30});
  Buffer z = output(GC_DTYPE_F32, {1, 1, 5});
  ASSERT_EQ(run("col2im", {&strided, &shape5, &block}, {&z},
                Attrs().ints("strides", {2}).ints("pads", {1, 1})),
            0);
  expectNear(z.values<float>(), {10, 2, 20, 3, 30});
  std::string error;
  EXPECT_NE(run("col2im", {&strided, &shape3, &block}, {&y}, Attrs(), &error),
            0);
  EXPECT_EQ(error,
            "col2im: input shape does not match the blocks of the image");
}

// Det pivots on the largest magnitude; a singular matrix gives 0.
TEST(HostKernelLinalg, DetPivotsAndBatches) {
  Buffer x = f32({3, 2, 2}, {0, 1, 1, 0, /**/ 2, 3, 1, 4, /**/ 1, 2, 2, 4});
  Buffer y = output(GC_DTYPE_F32, {3});
  ASSERT_EQ(run("det", {&x}, {&y}), 0);
  expectNear(y.values<float>(), {-1, 5, 0});
  Buffer m = f32({3, 3}, {2, -1, 0, -1, 2, -1, 0, -1, 2});
  Buffer d = output(GC_DTYPE_F32, {});
  ASSERT_EQ(run("det", {&m}, {&d}), 0);
  expectNear(d.values<float>(), {4});
  std::string error;
  Buffer wide = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Buffer two = output(GC_DTYPE_F32, {});
  EXPECT_NE(run("det", {&wide}, {&two}, Attrs(), &error), 0);
  EXPECT_EQ(error, "det: input must be [*, M, M]");
}

TEST(HostKernelLinalg, EinsumGeneralEquations) {
  Buffer a = f32({2, 2}, {1, 2, 3, 4});
  Buffer diag = output(GC_DTYPE_F32, {2});
  ASSERT_EQ(run("einsum", {&a}, {&diag}, Attrs().s("equation", "ii->i")), 0);
  expectNear(diag.values<float>(), {1, 4});
  Buffer trace = output(GC_DTYPE_F32, {});
  ASSERT_EQ(run("einsum", {&a}, {&trace}, Attrs().s("equation", "ii")), 0);
  expectNear(trace.values<float>(), {5});
  Buffer batch = f32({2, 1, 2}, {1, 2, 3, 4});
  Buffer prod = output(GC_DTYPE_F32, {2, 1, 2});
  ASSERT_EQ(run("einsum", {&batch, &a}, {&prod},
                Attrs().s("equation", "...ij,jk->...ik")),
            0);
  expectNear(prod.values<float>(), {7, 10, 15, 22});
  Buffer implicit = output(GC_DTYPE_F32, {2, 2});
  ASSERT_EQ(run("einsum", {&a, &a}, {&implicit}, Attrs().s("equation", "ij,jk")),
            0);
  expectNear(implicit.values<float>(), {7, 10, 15, 22});
}

TEST(HostKernelNormalization, LayerAndBatchNormalization) {
  Buffer x = f32({2, 2}, {1, 3, 4, 2});
  Buffer scale = f32({2}, {1, 2}), bias = f32({2}, {0, 1});
  Buffer y = output(GC_DTYPE_F32, {2, 2});
  ASSERT_EQ(run("layer_normalization", {&x, &scale, &bias}, {&y},
                Attrs().f("epsilon", 0.0)),
            0);
  expectNear(y.values<float>(), {-1, 3, 1, -1});
  Buffer image = f32({1, 2, 1, 1}, {3, 5});
  Buffer mean = f32({2}, {1, 1}), var = f32({2}, {4, 16});
  Buffer out = output(GC_DTYPE_F32, {1, 2, 1, 1});
  ASSERT_EQ(run("batch_normalization", {&image, &scale, &bias, &mean, &var},
                {&out}, Attrs().f("epsilon", 0.0)),
            0);
  expectNear(out.values<float>(), {1, 3});
}

TEST(HostKernelNormalization, GroupNormalizationPerChannelScale) {
  Buffer x = f32({1, 4, 1}, {1, 3, 10, 30});
  Buffer scale = f32({4}, {1, 2, 1, 1}), bias = f32({4}, {0, 0, 0, 5});
  Buffer y = output(GC_DTYPE_F32, {1, 4, 1});
  ASSERT_EQ(run("group_normalization", {&x, &scale, &bias}, {&y},
                Attrs().i("num_groups", 2).f("epsilon", 0.0)),
            0);
  expectNear(y.values<float>(), {-1, 2, -1, 6});
}

TEST(HostKernelPooling, MaxAndAveragePoolPadding) {
  Buffer x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  Buffer y = output(GC_DTYPE_F32, {1, 1, 2, 2});
  Attrs attrs;
  attrs.ints("kernel_shape", {2, 2}).ints("pads", {1, 1, 0, 0});
  ASSERT_EQ(run("max_pool", {&x}, {&y}, attrs), 0);
  expectNear(y.values<float>(), {1, 2, 3, 4});
  ASSERT_EQ(run("average_pool", {&x}, {&y}, attrs), 0);
  expectNear(y.values<float>(), {1, 1.5f, 2, 2.5f});
  attrs.i("count_include_pad", 1);
  ASSERT_EQ(run("average_pool", {&x}, {&y}, attrs), 0);
  expectNear(y.values<float>(), {0.25f, 0.75f, 1, 2.5f});
  Buffer g = output(GC_DTYPE_F32, {1, 1, 1, 1});
  ASSERT_EQ(run("global_average_pool", {&x}, {&g}), 0);
  expectNear(g.values<float>(), {2.5f});
}

// MaxPool's Indices: the first largest element of each window, as a flat
// index into the whole input, row- or column-major (storage_order); of
// equal maxima the first in window order wins.
TEST(HostKernelPooling, MaxPoolIndicesFollowStorageOrder) {
  Buffer x = f32({1, 2, 2, 3}, {1, 9, 9, 4, 5, 6, /**/ 0, 0, 0, 0, 0, 0});
  Buffer y = output(GC_DTYPE_F32, {1, 2, 1, 2});
  Buffer i = output(GC_DTYPE_I64, {1, 2, 1, 2});
  Attrs attrs;
  attrs.ints("kernel_shape", {2, 2});
  ASSERT_EQ(run("max_pool_with_indices", {&x}, {&y, &i}, attrs), 0);
  expectNear(y.values<float>(), {9, 9, 0, 0});
  EXPECT_EQ(i.values<int64_t>(), (std::vector<int64_t>{1, 1, 6, 7}));
  attrs.i("storage_order", 1);
  ASSERT_EQ(run("max_pool_with_indices", {&x}, {&y, &i}, attrs), 0);
  // Column-major: (h, w) is h + w * 2 within its plane of 6.
  EXPECT_EQ(i.values<int64_t>(), (std::vector<int64_t>{2, 2, 6, 8}));
}

// MaxUnpool places values at flat indices of the unpooled shape, which
// output_shape may enlarge (the ONNX reference's corner placement).
TEST(HostKernelPooling, MaxUnpoolPlacesIntoTheCorner) {
  Buffer x = f32({1, 1, 2, 2}, {5, 6, 7, 8});
  Buffer idx = i64({1, 1, 2, 2}, {5, 7, 13, 15});
  Attrs attrs;
  attrs.ints("kernel_shape", {2, 2}).ints("strides", {2, 2});
  Buffer y = output(GC_DTYPE_F32, {1, 1, 4, 4});
  ASSERT_EQ(run("max_unpool", {&x, &idx}, {&y}, attrs), 0);
  expectNear(y.values<float>(),
             {0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 7, 0, 8});
  Buffer shape = i64({4}, {1, 1, 5, 5});
  Buffer big = output(GC_DTYPE_F32, {1, 1, 5, 5});
  ASSERT_EQ(run("max_unpool", {&x, &idx, &shape}, {&big}, attrs), 0);
  expectNear(big.values<float>(), {0, 0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0,
                                   0, 0, 0, 7, 0, 8, 0, 0, 0, 0, 0, 0});
  Buffer bad = i64({1, 1, 2, 2}, {5, 7, 13, 16});
  std::string error;
  EXPECT_NE(run("max_unpool", {&x, &bad}, {&y}, attrs, &error), 0);
  EXPECT_EQ(error, "max_unpool: index 16 is out of range [-16, 16)");
}

// ceil_mode adds the windows that start inside the input; the part beyond it
// adds nothing to the p-norm (values from onnxruntime 1.x, LpPool-18).
TEST(HostKernelPooling, LpPoolAppliesCeilMode) {
  std::vector<float> values(25);
  for (int i = 0; i < 25; ++i)
    values[i] = static_cast<float>(i);
  Buffer x = f32({1, 1, 5, 5}, values);
  Buffer y = output(GC_DTYPE_F32, {1, 1, 3, 3});
  Attrs attrs;
  attrs.ints("kernel_shape", {2, 2}).ints("strides", {2, 2}).i("ceil_mode", 1);
  ASSERT_EQ(run("lp_pool", {&x}, {&y}, attrs), 0);
  expectNear(y.values<float>(), {7.874008f, 11.224972f, 9.848858f, 26.495283f,
                                 30.430248f, 23.600847f, 29.0f, 31.827662f,
                                 24.0f});
}

TEST(HostKernelResize, NearestAndLinearModes) {
  Buffer x = f32({1, 1, 1, 2}, {1, 2});
  Buffer scales = f32({4}, {1, 1, 1, 2});
  Buffer y = output(GC_DTYPE_F32, {1, 1, 1, 4});
  ASSERT_EQ(run("resize", {&x, nullptr, &scales, nullptr}, {&y}), 0);
  expectNear(y.values<float>(), {1, 1, 2, 2});
  ASSERT_EQ(run("resize", {&x, nullptr, &scales, nullptr}, {&y},
                Attrs().s("mode", "linear")),
            0);
  expectNear(y.values<float>(), {1, 1.25f, 1.75f, 2});
  ASSERT_EQ(run("resize", {&x, nullptr, &scales, nullptr}, {&y},
                Attrs().s("mode", "linear").s("coordinate_transformation_mode",
                                              "align_corners")),
            0);
  expectNear(y.values<float>(), {1, 4.0f / 3, 5.0f / 3, 2});
  Buffer sizes = i64({1}, {3});
  Buffer z = output(GC_DTYPE_F32, {1, 1, 1, 3});
  ASSERT_EQ(run("resize", {&x, nullptr, nullptr, &sizes}, {&z},
                Attrs().ints("axes", {3}).s("nearest_mode", "floor")),
            0);
  expectNear(z.values<float>(), {1, 1, 2});
}

TEST(HostKernelGridSample, LinearAndNearestHalfToEven) {
  Buffer x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  Buffer centre = f32({1, 1, 1, 2}, {0, 0});
  Buffer y = output(GC_DTYPE_F32, {1, 1, 1, 1});
  for (int64_t align : {0, 1}) {
    ASSERT_EQ(run("grid_sample", {&x, &centre}, {&y},
                  Attrs().i("align_corners", align)),
              0);
    expectNear(y.values<float>(), {2.5f});
  }
  // Width 4: g = -0.5, 0, 0.5 fall on 0.5, 1.5, 2.5, which round to 0, 2, 2.
  Buffer row = f32({1, 1, 1, 4}, {10, 20, 30, 40});
  Buffer grid = f32({1, 1, 3, 2}, {-0.5f, 0, 0, 0, 0.5f, 0});
  Buffer z = output(GC_DTYPE_F32, {1, 1, 1, 3});
  ASSERT_EQ(
      run("grid_sample", {&row, &grid}, {&z}, Attrs().s("mode", "nearest")), 0);
  expectNear(z.values<float>(), {10, 30, 30});
  // Reflection at the corners 0 and 3: -1 -> 1, 4 -> 2.
  Buffer outside = f32({1, 1, 2, 2}, {-5.0f / 3, 0, 5.0f / 3, 0});
  Buffer r = output(GC_DTYPE_F32, {1, 1, 1, 2});
  ASSERT_EQ(run("grid_sample", {&row, &outside}, {&r},
                Attrs()
                    .s("mode", "nearest")
                    .s("padding_mode", "reflection")
                    .i("align_corners", 1)),
            0);
  expectNear(r.values<float>(), {20, 30});
}

TEST(HostKernelGridSample, CubicWeightsSumToOne) {
  Buffer x = f32({1, 2, 4, 4}, std::vector<float>(32, 5.0f));
  Buffer grid = f32({1, 3, 3, 2}, pattern(18, 7));
  Buffer y = output(GC_DTYPE_F32, {1, 2, 3, 3});
  ASSERT_EQ(run("grid_sample", {&x, &grid}, {&y},
                Attrs().s("mode", "cubic").s("padding_mode", "border")),
            0);
  expectNear(y.values<float>(), std::vector<float>(18, 5.0f));
}

TEST(HostKernelGridSample, NonFiniteCoordinatesStayInside) {
  // Nearest: NaN samples zeros or position 0; an infinity is outside, at
  // its edge or at 0. Linear and cubic: NaN, but border clamps infinities.
  Buffer row = f32({1, 1, 1, 4}, {10, 20, 30, 40});
  float nan = std::nanf(""), inf = INFINITY;
  Buffer grid = f32({1, 1, 4, 2}, {nan, 0, inf, 0, -inf, 0, 1e30f, 0});
  Buffer y = output(GC_DTYPE_F32, {1, 1, 1, 4});
  auto expectSame = [](const std::vector<float> &got,
                       const std::vector<float> &want) {
    for (size_t i = 0; i < want.size(); ++i) {
      if (std::isnan(want[i]))
        EXPECT_TRUE(std::isnan(got[i])) << "at " << i << ": " << got[i];
      else
        EXPECT_EQ(got[i], want[i]) << "at " << i;
    }
  };
  for (const char *mode : {"nearest", "linear", "cubic"}) {
    SCOPED_TRACE(mode);
    bool nearest = std::string(mode) == "nearest";
    ASSERT_EQ(run("grid_sample", {&row, &grid}, {&y}, Attrs().s("mode", mode)),
              0);
    if (nearest)
      expectSame(y.values<float>(), {0, 0, 0, 0});
    else
      expectSame(y.values<float>(), {nan, nan, nan, 0});
    ASSERT_EQ(run("grid_sample", {&row, &grid}, {&y},
                  Attrs().s("mode", mode).s("padding_mode", "border")),
              0);
    expectSame(y.values<float>(), {nearest ? 10 : nan, 40, 10, 40});
    ASSERT_EQ(run("grid_sample", {&row, &grid}, {&y},
                  Attrs().s("mode", mode).s("padding_mode", "reflection")),
              0);
    std::vector<float> got = y.values<float>();
    if (nearest)
      expectSame({got[0], got[1], got[2]}, {10, 10, 10});
    else
      expectSame({got[0], got[1], got[2]}, {nan, nan, nan});
    // Cubic taps may overshoot the input's range.
    float slack = std::string(mode) == "cubic" ? 10 : 0;
    EXPECT_TRUE(got[3] >= 10 - slack && got[3] <= 40 + slack) << got[3];
  }
}

TEST(HostKernelRoiAlign, AveragesBilinearSamples) {
  // x = 4y + x is linear, so a bin's average is its value at the mean
  // sample position.
  std::vector<float> ramp(16);
  for (int i = 0; i < 16; ++i)
    ramp[i] = static_cast<float>(i);
  Buffer x = f32({1, 1, 4, 4}, ramp);
  Buffer rois = f32({1, 4}, {0.5f, 0.5f, 2.5f, 2.5f});
  Buffer batch = i64({1}, {0});
  Buffer y = output(GC_DTYPE_F32, {1, 1, 1, 1});
  // half_pixel: the box is [0, 2]^2, 2 x 2 samples at 0.5 and 1.5.
  ASSERT_EQ(run("roi_align", {&x, &rois, &batch}, {&y}), 0);
  expectNear(y.values<float>(), {5});
  // output_half_pixel: [0.5, 2.5]^2, samples at 1 and 2.
  ASSERT_EQ(
      run("roi_align", {&x, &rois, &batch}, {&y},
          Attrs().s("coordinate_transformation_mode", "output_half_pixel")),
      0);
  expectNear(y.values<float>(), {7.5f});
  // Two by two bins with spatial_scale 2 over [0, 4]^2 (half_pixel:
  // [-0.5, 3.5]^2), 2 x 2 samples each around the bin centres 0.5, 2.5.
  Buffer half = f32({1, 4}, {0, 0, 2, 2});
  Buffer bins = output(GC_DTYPE_F32, {1, 1, 2, 2});
  ASSERT_EQ(run("roi_align", {&x, &half, &batch}, {&bins},
                Attrs()
                    .i("output_height", 2)
                    .i("output_width", 2)
                    .f("spatial_scale", 2.0)),
            0);
  expectNear(bins.values<float>(), {2.5f, 4.5f, 10.5f, 12.5f});
}

TEST(HostKernelRoiAlign, MaxIsOfWeightedTapsAndOutsideSamplesAreZero) {
  // onnxruntime's max: the largest weight * value of the taps, so a
  // constant image of -1 gives the smallest weight's product, and a sample
  // outside the image adds a 0.
  Buffer x = f32({1, 1, 3, 3}, std::vector<float>(9, -1.0f));
  // Box 0 lies inside ([0, 1]^2 after the shift); box 1's x runs over
  // [-2.5, 1]: with 2 samples, at -1.625 (outside) and 0.125.
  Buffer rois = f32({2, 4}, {0.5f, 0.5f, 1.5f, 1.5f, -2, 0.5f, 1.5f, 1.5f});
  Buffer batch = i64({2}, {0, 0});
  Buffer y = output(GC_DTYPE_F32, {2, 1, 1, 1});
  ASSERT_EQ(run("roi_align", {&x, &rois, &batch}, {&y},
                Attrs().s("mode", "max").i("sampling_ratio", 2)),
            0);
  expectNear(y.values<float>(), {-0.0625f, 0});
  // The average counts the outside samples: 2 of 4 inside, each -1.
  ASSERT_EQ(run("roi_align", {&x, &rois, &batch}, {&y},
                Attrs().i("sampling_ratio", 2)),
            0);
  expectNear(y.values<float>(), {-1, -0.5f});
}

TEST(HostKernelRoiAlign, DegenerateAndHugeBoxes) {
  Buffer x = f32({1, 1, 4, 4}, std::vector<float>(16, 3.0f));
  float nan = std::nanf("");
  // A reversed box and a NaN one (adaptive grids of no samples), a box
  // far larger than the image (2^31 samples per axis, bisected to the
  // few inside) and one far away.
  Buffer rois = f32({4, 4}, {3, 3, 1, 1, nan, 0, 2, 2, -1e30f, -1e30f, 1e30f,
                             1e30f, 1e6f, 1e6f, 1e6f + 4, 1e6f + 4});
  Buffer batch = i64({4}, {0, 0, 0, 0});
  Buffer y = output(GC_DTYPE_F32, {4, 1, 2, 2});
  for (const char *mode : {"avg", "max"}) {
    SCOPED_TRACE(mode);
    ASSERT_EQ(
        run("roi_align", {&x, &rois, &batch}, {&y},
            Attrs().s("mode", mode).i("output_height", 2).i("output_width", 2)),
        0);
    for (float v : y.values<float>())
      EXPECT_TRUE(std::isfinite(v) && std::fabs(v) <= 3.0f) << v;
    std::vector<float> got = y.values<float>();
    expectNear({got.begin(), got.begin() + 8}, std::vector<float>(8, 0));
    expectNear({got.begin() + 12, got.end()}, std::vector<float>(4, 0));
  }
}

TEST(HostKernelRoiAlign, RefusesBatchIndicesOutOfRange) {
  Buffer x = f32({2, 1, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Buffer rois = f32({2, 4}, {0, 0, 1, 1, 0, 0, 1, 1});
  Buffer y = output(GC_DTYPE_F32, {2, 1, 1, 1});
  std::string error;
  for (int64_t bad : {2, -1}) {
    Buffer batch = i64({2}, {1, bad});
    EXPECT_EQ(run("roi_align", {&x, &rois, &batch}, {&y}, Attrs(), &error),
              GC_STATUS_BAD_VALUE);
    EXPECT_EQ(error, "roi_align: batch index " + std::to_string(bad) +
                         " is out of range [0, 2) for box 1");
  }
  // The image of each box is its batch index's.
  Buffer batch = i64({2}, {1, 0});
  ASSERT_EQ(
      run("roi_align", {&x, &rois, &batch}, {&y},
          Attrs().s("coordinate_transformation_mode", "output_half_pixel")),
      0);
  expectNear(y.values<float>(), {6.5f, 2.5f});
}

TEST(HostKernelAffineGrid, IdentityAndTranslation) {
  Buffer theta = f32({1, 2, 3}, {1, 0, 0.5f, 0, 1, 0});
  Buffer size = i64({4}, {1, 1, 2, 3});
  Buffer y = output(GC_DTYPE_F32, {1, 2, 3, 2});
  ASSERT_EQ(run("affine_grid", {&theta, &size}, {&y}), 0);
  // Centres of 3 columns and 2 rows; x moved by 0.5.
  float third = 2.0f / 3;
  expectNear(y.values<float>(),
             {0.5f - third, -0.5f, 0.5f, -0.5f, 0.5f + third, -0.5f,
              0.5f - third, 0.5f, 0.5f, 0.5f, 0.5f + third, 0.5f});
  ASSERT_EQ(
      run("affine_grid", {&theta, &size}, {&y}, Attrs().i("align_corners", 1)),
      0);
  expectNear(y.values<float>(),
             {-0.5f, -1, 0.5f, -1, 1.5f, -1, -0.5f, 1, 0.5f, 1, 1.5f, 1});
  Buffer wrong = i64({4}, {2, 1, 2, 3});
  std::string error;
  EXPECT_NE(run("affine_grid", {&theta, &wrong}, {&y}, Attrs(), &error), 0);
  EXPECT_EQ(error, "affine_grid: theta must be [2, 2, 3]");
}

TEST(HostKernelLinalgErrors, ShapeMismatchesAreReported) {
  Buffer a = f32({2, 3}, pattern(6, 3)), b = f32({2, 3}, pattern(6, 4));
  Buffer y = output(GC_DTYPE_F32, {2, 3});
  std::string error;
  EXPECT_NE(run("mat_mul", {&a, &b}, {&y}, Attrs(), &error), 0);
  EXPECT_EQ(error, "mat_mul: inner dimensions differ: 3 vs 2");
  Buffer x = f32({1, 2, 3, 3}, pattern(18, 5)), w = f32({1, 3, 2, 2}, pattern(12, 6));
  Buffer out = output(GC_DTYPE_F32, {1, 1, 2, 2});
  EXPECT_NE(run("conv", {&x, &w}, {&out}, Attrs(), &error), 0);
  EXPECT_EQ(error, "conv: weight shape does not match 2 input channels in 1 "
                   "groups");
  Buffer pool = output(GC_DTYPE_F32, {1, 2, 2, 2});
  EXPECT_NE(run("max_pool", {&x}, {&pool}, Attrs(), &error), 0);
  EXPECT_EQ(error, "max_pool: attribute 'kernel_shape' is required");
}

/// The unfused attention: per query row, softmax(scale * q.k + mask) . V
/// with K/V head h / group.
std::vector<double> naiveAttention(const std::vector<float> &q,
                                   const std::vector<float> &k,
                                   const std::vector<float> &v,
                                   const std::vector<float> &mask, int64_t B,
                                   int64_t H, int64_t Hkv, int64_t Sq,
                                   int64_t Skv, int64_t D, int64_t Dv,
                                   double scale) {
  std::vector<double> out(B * H * Sq * Dv);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < Sq; ++i) {
        int64_t kh = h / (H / Hkv);
        std::vector<double> s(Skv);
        double peak = -INFINITY;
        for (int64_t j = 0; j < Skv; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += q[((b * H + h) * Sq + i) * D + d] *
                   k[((b * Hkv + kh) * Skv + j) * D + d];
          s[j] = dot * scale + mask[i * Skv + j];
          peak = std::max(peak, s[j]);
        }
        double sum = 0;
        for (double &x : s)
          sum += x = std::exp(x - peak);
        for (int64_t d = 0; d < Dv; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < Skv; ++j)
            acc += s[j] / sum * v[((b * Hkv + kh) * Skv + j) * Dv + d];
          out[((b * H + h) * Sq + i) * Dv + d] = acc;
        }
      }
  return out;
}

TEST(HostKernelLinalg, AttentionGroupsHeadsAndBroadcastsTheMask) {
  const int64_t B = 2, H = 4, Hkv = 2, Sq = 3, Skv = 5, D = 6, Dv = 7;
  Buffer q = f32({B, H, Sq, D}, pattern(B * H * Sq * D, 5));
  Buffer k = f32({B, Hkv, Skv, D}, pattern(B * Hkv * Skv * D, 6));
  Buffer v = f32({B, Hkv, Skv, Dv}, pattern(B * Hkv * Skv * Dv, 7));
  // [Sq, Skv], broadcast over batches and heads.
  Buffer mask = f32({Sq, Skv}, pattern(Sq * Skv, 8));
  Buffer y = output(GC_DTYPE_F32, {B, H, Sq, Dv});
  ASSERT_EQ(run("attention", {&q, &k, &v, &mask}, {&y},
                Attrs().f("scale", 0.5)),
            0);
  std::vector<double> want =
      naiveAttention(q.values<float>(), k.values<float>(), v.values<float>(),
                     mask.values<float>(), B, H, Hkv, Sq, Skv, D, Dv, 0.5);
  std::vector<float> got = y.values<float>();
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-5) << i;
}

TEST(HostKernelLinalg, AttentionMasksCausallyAndZeroesNaNRowsOnRequest) {
  // Row 0 has every key masked out: NaN like the softmax gives, or 0 under
  // nan_to_zero. is_causal leaves row 1 keys 0 and 1.
  Buffer q = f32({1, 1, 2, 1}, {1, 2});
  Buffer k = f32({1, 1, 3, 1}, {1, 0, -1});
  Buffer v = f32({1, 1, 3, 1}, {10, 20, 30});
  Buffer mask = f32({2, 1}, {-INFINITY, 0});
  Buffer y = output(GC_DTYPE_F32, {1, 1, 2, 1});
  ASSERT_EQ(run("attention", {&q, &k, &v, &mask}, {&y},
                Attrs().i("is_causal", 1)),
            0);
  std::vector<float> got = y.values<float>();
  EXPECT_TRUE(std::isnan(got[0]));
  // Row 1: scores 2 and 0 over values 10 and 20.
  double e = std::exp(-2.0);
  EXPECT_NEAR(got[1], (10 + 20 * e) / (1 + e), 1e-5);
  ASSERT_EQ(run("attention", {&q, &k, &v, &mask}, {&y},
                Attrs().i("is_causal", 1).i("nan_to_zero", 1)),
            0);
  got = y.values<float>();
  EXPECT_EQ(got[0], 0.0f);
  EXPECT_NEAR(got[1], (10 + 20 * e) / (1 + e), 1e-5);
}

TEST(HostKernelLinalg, AttentionRefusesMismatchedHeads) {
  Buffer q = f32({1, 3, 1, 2}, pattern(6, 1));
  Buffer k = f32({1, 2, 1, 2}, pattern(4, 2));
  Buffer v = f32({1, 2, 1, 2}, pattern(4, 3));
  Buffer y = output(GC_DTYPE_F32, {1, 3, 1, 2});
  std::string error;
  EXPECT_NE(run("attention", {&q, &k, &v}, {&y}, Attrs(), &error), 0);
  EXPECT_EQ(error, "attention: Q's 3 heads are not a multiple of K and V's 2");
}

} // namespace
