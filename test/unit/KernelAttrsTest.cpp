//===- KernelAttrsTest.cpp - the generated attribute structs --------------===//
//
// attrs::<Op> comes from the op's ODS definition (graphc-tblgen
// -gen-host-kernel-attrs): its defaults are the ODS defaults, and reading is
// strict about kinds and required attributes.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "test/unit/HostKernelsTestUtil.h"

#include <gtest/gtest.h>

using namespace graphc::hk;
using graphc::hk::test::Attrs;

namespace {

/// Reads `attrs` into a fresh `A`; returns the status and the message.
template <typename A>
int readInto(A &result, const Attrs &attrs, std::string &message) {
  gc_attrs items = attrs.get();
  char err[256] = {0};
  KernelContext ctx{nullptr, 0, nullptr, 0, &items, err, sizeof(err), "op"};
  int status = result.read(ctx);
  message = err;
  return status;
}

TEST(KernelAttrsTest, DefaultsAreTheOdsDefaults) {
  attrs::LeakyRelu leaky;
  // An F32Attr default is the float its literal names, as getAlpha() gives.
  EXPECT_EQ(leaky.alpha, static_cast<double>(0.01f));
  EXPECT_NE(leaky.alpha, 0.01);
  attrs::Conv conv;
  EXPECT_EQ(conv.group, 1);
  EXPECT_STREQ(conv.autoPad, "NOTSET");
  EXPECT_FALSE(conv.pads.present);
  attrs::Resize resize;
  EXPECT_EQ(resize.cubicCoeffA, static_cast<double>(-0.75f));
  EXPECT_STREQ(resize.coordinateTransformationMode, "half_pixel");
  attrs::MeanVarianceNormalization mvn;
  ASSERT_TRUE(mvn.axes.present);
  ASSERT_EQ(mvn.axes.count, 3);
  EXPECT_EQ(mvn.axes[0], 0);
  EXPECT_EQ(mvn.axes[1], 2);
  EXPECT_EQ(mvn.axes[2], 3);
  attrs::Shape shape;
  EXPECT_FALSE(shape.end.has_value());
  EXPECT_EQ(shape.start, 0);
}

TEST(KernelAttrsTest, ReadsWhatTheCallCarries) {
  attrs::Gemm gemm;
  std::string message;
  ASSERT_EQ(readInto(gemm, Attrs().f("alpha", 2.5).i("transB", 1), message), 0)
      << message;
  EXPECT_EQ(gemm.alpha, 2.5);
  EXPECT_EQ(gemm.beta, static_cast<double>(1.0f));
  EXPECT_EQ(gemm.transA, 0);
  EXPECT_EQ(gemm.transB, 1);
  attrs::Shape shape;
  ASSERT_EQ(readInto(shape, Attrs().i("end", -1), message), 0) << message;
  EXPECT_EQ(shape.end, -1);
  attrs::Cast cast;
  ASSERT_EQ(readInto(cast, Attrs().type("to", GC_DTYPE_F16), message), 0)
      << message;
  EXPECT_EQ(cast.to, GC_DTYPE_F16);
}

TEST(KernelAttrsTest, RefusesAnAttributeOfTheWrongKind) {
  attrs::LeakyRelu leaky;
  std::string message;
  EXPECT_NE(readInto(leaky, Attrs().i("alpha", 1), message), 0);
  EXPECT_EQ(message, "op: attribute 'alpha' must be a float");
  attrs::Conv conv;
  EXPECT_NE(readInto(conv, Attrs().s("group", "1"), message), 0);
  EXPECT_EQ(message, "op: attribute 'group' must be an integer");
  attrs::Cast cast;
  EXPECT_NE(readInto(cast, Attrs().i("to", GC_DTYPE_F16), message), 0);
  EXPECT_EQ(message, "op: attribute 'to' must be a type");
}

TEST(KernelAttrsTest, RefusesAMissingRequiredAttribute) {
  attrs::Einsum einsum;
  std::string message;
  EXPECT_NE(readInto(einsum, Attrs(), message), 0);
  EXPECT_EQ(message, "op: attribute 'equation' is required");
}

TEST(KernelAttrsTest, AGeneratedKernelReadsItsAttributes) {
  using namespace graphc::hk::test;
  Buffer x = f32({2}, {-2.0f, 4.0f});
  Buffer y = output(GC_DTYPE_F32, {2});
  ASSERT_EQ(run("leaky_relu", {&x}, {&y}, Attrs().f("alpha", 0.5)), 0);
  EXPECT_EQ(y.values<float>(), (std::vector<float>{-1.0f, 4.0f}));
  ASSERT_EQ(run("leaky_relu", {&x}, {&y}), 0);
  EXPECT_EQ(y.values<float>(), (std::vector<float>{-2.0f * 0.01f, 4.0f}));
  std::string error;
  EXPECT_NE(run("leaky_relu", {&x}, {&y}, Attrs().i("alpha", 1), &error), 0);
  EXPECT_EQ(error, "leaky_relu: attribute 'alpha' must be a float");
}

} // namespace
