//===- ScalarOpsTest.cpp - pointwise ops' scalar definitions --------------===//
//
// lib/Support/ScalarOps.h defines each pointwise op once. These tests check
// the three things made of a definition: the C++ text the targets generate
// (renderScalarTree, with its check that the text parses as the tree), the
// direct evaluation the host kernels instantiate (scalar::Eval), bit for bit
// against the formulas the host kernels had before, and the tree evaluated
// in double (evaluateScalarTree).
//
//===----------------------------------------------------------------------===//

#include "lib/Support/ScalarOps.h"
#include "lib/Codegen/ScalarExpr.h"
#include "lib/Support/ScalarTree.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace graphc;
using scalar::ScalarValue;
using scalar::TreeBuilder;

namespace {

/// Renders `root` of `b` with compute type `t`, operands x, y, z; fails the
/// test when it does not render.
std::string render(TreeBuilder &b, ScalarValue root, const char *t = "float") {
  std::string error;
  std::optional<std::string> text =
      codegen::renderScalarTree(b, root, t, {"x", "y", "z"}, error);
  EXPECT_TRUE(text.has_value()) << error;
  return text.value_or("");
}

/// The error of rendering `root`, "" when it renders.
std::string renderError(TreeBuilder &b, ScalarValue root) {
  std::string error;
  std::optional<std::string> text =
      codegen::renderScalarTree(b, root, "float", {"x", "y", "z"}, error);
  return text ? "" : error;
}

TEST(ScalarOpsTest, RendersTheTargetsText) {
  {
    TreeBuilder b(true);
    EXPECT_EQ(render(b, scalar::gelu(b, b.operand(0), true)),
              "0.5f * x * (1.0f + gc_tanh(0.797884561f * (x + 0.044715f * x * "
              "x * x)))");
  }
  {
    TreeBuilder b(true);
    EXPECT_EQ(render(b, scalar::gelu(b, b.operand(0), false)),
              "0.5f * x * (1.0f + gc_erf(x * 0.707106781f))");
  }
  {
    TreeBuilder b(true);
    EXPECT_EQ(render(b, scalar::softplus(b, b.operand(0))),
              "x > 0.0f ? x + gc_log1p(gc_exp(-x)) : gc_log1p(gc_exp(x))");
  }
  {
    TreeBuilder b(true);
    EXPECT_EQ(render(b, scalar::shrink(b, b.operand(0), 0.0, 0.5)),
              "x < -0.5f ? static_cast<float>(x + 0.0f) : (x > 0.5f ? "
              "static_cast<float>(x - 0.0f) : 0.0f)");
  }
  {
    TreeBuilder b(true);
    EXPECT_EQ(render(b, scalar::sign(b, b.operand(0))),
              "static_cast<float>((x > 0.0f) - (x < 0.0f))");
  }
  {
    TreeBuilder b(true);
    EXPECT_EQ(render(b, scalar::isInf(b, b.operand(0), true, true)),
              "gc_isinf(x) && (x > 0.0f || x < 0.0f)");
    // detect_negative only.
    EXPECT_EQ(render(b, scalar::isInf(b, b.operand(0), true, false)),
              "gc_isinf(x) && (x < 0.0f)");
    EXPECT_EQ(render(b, scalar::isInf(b, b.operand(0), false, false)), "false");
  }
  {
    TreeBuilder b(false);
    EXPECT_EQ(render(b, scalar::abs(b, b.operand(0)), "int"),
              "x < static_cast<int>(0LL) ? static_cast<int>(-x) : x");
    EXPECT_EQ(render(b,
                     scalar::pow(b, b.operand(0), b.operand(1), false, false),
                     "int"),
              "gc_ipow(static_cast<long long>(x), static_cast<long long>(y))");
    EXPECT_EQ(render(b, scalar::mod(b, b.operand(0), b.operand(1), true),
                     "int"),
              "x % y");
  }
  {
    TreeBuilder b(true);
    ScalarValue x = b.operand(0), y = b.operand(1);
    EXPECT_EQ(render(b, scalar::pow(b, x, y, true, false)),
              "gc_pow(x, static_cast<float>(y))");
    EXPECT_EQ(render(b, scalar::celu(b, x, 2.0)),
              "gc_max(0.0f, x) + gc_min(0.0f, 2.0f * (gc_exp(x / 2.0f) - "
              "1.0f))");
    EXPECT_EQ(render(b, scalar::leakyRelu(b, x, -0.5)),
              "x >= 0.0f ? x : (-0.5f) * x");
    ScalarValue z = b.operand(2);
    ScalarValue q = scalar::quantizeLinear(b, x, y, z, -128, 127);
    EXPECT_EQ(render(b, q),
              "gc_clip_high(gc_rint(x / y) + static_cast<float>(z) >= "
              "(-128.0f) ? gc_rint(x / y) + static_cast<float>(z) : "
              "(-128.0f), 127.0f)");
    // In double (pad-safety reasoning): half to even, saturated, the zero
    // point added after rounding.
    double operands[3] = {5, 2, 1};
    EXPECT_EQ(scalar::evaluateScalarTree(b, q, operands), 3);
    operands[0] = -1000;
    EXPECT_EQ(scalar::evaluateScalarTree(b, q, operands), -128);
  }
  {
    // Dequantize reads integers and computes in float.
    TreeBuilder b(false);
    ScalarValue d =
        scalar::dequantizeLinear(b, b.operand(0), b.operand(1), b.operand(2));
    EXPECT_EQ(render(b, d, "int"),
              "(static_cast<float>(x) - static_cast<float>(z)) * "
              "static_cast<float>(y)");
    double operands[3] = {16777217, 0.5, 0};
    EXPECT_EQ(scalar::evaluateScalarTree(b, d, operands), 8388608);
  }
}

TEST(ScalarOpsTest, RendersParenthesesOnlyWhereTheTreeHasThem) {
  TreeBuilder b(true);
  ScalarValue x = b.operand(0), y = b.operand(1), z = b.operand(2);
  EXPECT_EQ(render(b, b.paren(x + y) * z), "(x + y) * z");
  EXPECT_EQ(render(b, x - y - z), "x - y - z");
  EXPECT_EQ(render(b, x + y * z), "x + y * z");
  EXPECT_EQ(render(b, x - b.paren(y - z)), "x - (y - z)");
  EXPECT_EQ(render(b, b.select(x < y, x, b.select(y < z, y, z))),
            "x < y ? x : y < z ? y : z");
  EXPECT_EQ(render(b, -b.paren(-x)), "-(-x)");
}

TEST(ScalarOpsTest, RefusesTextThatParsesAsAnotherTree) {
  TreeBuilder b(true);
  ScalarValue x = b.operand(0), y = b.operand(1), z = b.operand(2);
  // Each would print as text meaning something else.
  EXPECT_NE(renderError(b, (x + y) * z), "");  // x + y * z
  EXPECT_NE(renderError(b, x - (y - z)), "");  // x - y - z
  EXPECT_NE(renderError(b, -(-x)), "");        // --x
  EXPECT_NE(renderError(b, -(x + y)), "");     // -x + y
  EXPECT_NE(renderError(b, x < (y == z)), ""); // (x < y) == z
  EXPECT_NE(renderError(b, b.select(b.select(x < y, x, y), y, z)), "");
  EXPECT_NE(renderError(b, x + b.select(x < y, y, z)), "");
  EXPECT_NE(renderError(b, (x || y) && z), "");
  // And their parenthesized forms render.
  EXPECT_EQ(renderError(b, b.paren(x + y) * z), "");
  EXPECT_EQ(renderError(b, x < b.paren(y == z)), "");
  EXPECT_EQ(render(b, (x < y) == (y < z)), "x < y == y < z");
}

TEST(ScalarOpsTest, MissingOperandDoesNotRender) {
  TreeBuilder b(true);
  ScalarValue w = b.operand(3);
  EXPECT_NE(renderError(b, w + b.operand(0)), "");
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

template <typename A> std::vector<A> sweep() {
  std::vector<A> values = {A(0),
                           -A(0),
                           A(1),
                           A(-1),
                           A(0.5),
                           A(-0.5),
                           A(2.5),
                           A(-2.5),
                           A(1e-3),
                           A(-1e-3),
                           A(88.5),
                           A(-88.5),
                           A(1e30),
                           A(-1e30),
                           std::numeric_limits<A>::denorm_min(),
                           std::numeric_limits<A>::min(),
                           std::numeric_limits<A>::max(),
                           std::numeric_limits<A>::lowest(),
                           std::numeric_limits<A>::infinity(),
                           -std::numeric_limits<A>::infinity(),
                           std::numeric_limits<A>::quiet_NaN(),
                           -std::numeric_limits<A>::quiet_NaN()};
  for (int i = -400; i <= 400; ++i)
    values.push_back(A(i) * A(0.0437));
  return values;
}

template <typename A> bool sameBits(A a, A b) {
  return std::memcmp(&a, &b, sizeof(A)) == 0;
}

/// Checks that `definition(Eval<A>, x)` equals `before(x)` bit for bit.
template <typename A, typename Definition, typename Before>
void expectSameBits(const char *name, Definition definition, Before before) {
  scalar::Eval<A> b;
  for (A x : sweep<A>()) {
    A got = static_cast<A>(definition(b, x)), want = before(x);
    EXPECT_TRUE(sameBits(got, want))
        << name << "(" << x << "): " << got << " != " << want;
  }
}

/// The host kernels' formulas before they instantiated the definitions.
template <typename A> void expectHostKernelFormulas() {
  expectSameBits<A>(
      "abs", [](auto &b, A x) { return scalar::abs(b, x); },
      [](A x) { return x < A(0) ? A(-x) : x; });
  expectSameBits<A>(
      "relu", [](auto &b, A x) { return scalar::relu(b, x); },
      [](A x) { return x > A(0) ? x : A(0); });
  expectSameBits<A>(
      "leaky_relu", [](auto &b, A x) { return scalar::leakyRelu(b, x, 0.01); },
      [](A x) { return x >= A(0) ? x : x * A(0.01); });
  expectSameBits<A>(
      "gelu_tanh", [](auto &b, A x) { return scalar::gelu(b, x, true); },
      [](A x) {
        const A k = A(0.79788456080286535588);
        return A(0.5) * x *
               (A(1) + std::tanh(k * (x + A(0.044715) * x * x * x)));
      });
  expectSameBits<A>(
      "gelu", [](auto &b, A x) { return scalar::gelu(b, x, false); },
      [](A x) {
        return A(0.5) * x * (A(1) + std::erf(x * A(0.70710678118654752440)));
      });
  expectSameBits<A>(
      "softplus", [](auto &b, A x) { return scalar::softplus(b, x); },
      [](A x) {
        return x > A(0) ? x + std::log1p(std::exp(-x))
                        : std::log1p(std::exp(x));
      });
  expectSameBits<A>(
      "softsign", [](auto &b, A x) { return scalar::softsign(b, x); },
      [](A x) { return x / (A(1) + std::fabs(x)); });
  expectSameBits<A>(
      "elu", [](auto &b, A x) { return scalar::elu(b, x, 1.5); },
      [](A x) { return x < A(0) ? A(1.5) * (std::exp(x) - A(1)) : x; });
  expectSameBits<A>(
      "thresholded_relu",
      [](auto &b, A x) { return scalar::thresholdedRelu(b, x, 1.0); },
      [](A x) { return x > A(1.0) ? x : A(0); });
  expectSameBits<A>(
      "mish", [](auto &b, A x) { return scalar::mish(b, x); },
      [](A x) {
        A softplus =
            x > A(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
        return x * std::tanh(softplus);
      });
  expectSameBits<A>(
      "shrink", [](auto &b, A x) { return scalar::shrink(b, x, 0.25, 0.5); },
      [](A x) {
        return x < A(-0.5) ? x + A(0.25) : x > A(0.5) ? x - A(0.25) : A(0);
      });
  expectSameBits<A>(
      "round", [](auto &b, A x) { return scalar::round(b, x); },
      [](A x) { return std::nearbyint(x); });
  expectSameBits<A>(
      "sign", [](auto &b, A x) { return scalar::sign(b, x); },
      [](A x) { return x > A(0)   ? A(1)
                       : x < A(0) ? A(-1)
                                  : A(0); });
  expectSameBits<A>(
      "reciprocal", [](auto &b, A x) { return scalar::reciprocal(b, x); },
      [](A x) { return A(1) / x; });
  expectSameBits<A>(
      "neg", [](auto &b, A x) { return scalar::neg(b, x); },
      [](A x) { return -x; });
  scalar::Eval<A> b;
  for (A x : sweep<A>()) {
    for (bool positive : {false, true})
      for (bool negative : {false, true})
        EXPECT_EQ(scalar::isInf(b, x, negative, positive),
                  std::isinf(x) && (x > 0 ? positive : negative));
    EXPECT_EQ(scalar::isNan(b, x), std::isnan(x));
  }
}

TEST(ScalarOpsTest, EvaluatesAsTheHostKernelsDidInFloat) {
  expectHostKernelFormulas<float>();
}

TEST(ScalarOpsTest, EvaluatesAsTheHostKernelsDidInDouble) {
  expectHostKernelFormulas<double>();
}

TEST(ScalarOpsTest, EvaluatesIntegers) {
  scalar::Eval<signed char> s;
  for (int v = -128; v < 128; ++v) {
    auto x = static_cast<signed char>(v);
    EXPECT_EQ(static_cast<signed char>(scalar::abs(s, x)),
              x < 0 ? static_cast<signed char>(-x) : x);
    EXPECT_EQ(static_cast<signed char>(scalar::sign(s, x)), x > 0   ? 1
                                                            : x < 0 ? -1
                                                                    : 0);
    EXPECT_EQ(static_cast<signed char>(scalar::bitwiseNot(s, x)),
              static_cast<signed char>(~x));
  }
  scalar::Eval<unsigned char> u;
  for (int v = 0; v < 256; ++v) {
    auto x = static_cast<unsigned char>(v);
    EXPECT_EQ(static_cast<unsigned char>(scalar::abs(u, x)), x);
    EXPECT_EQ(static_cast<unsigned char>(scalar::sign(u, x)), x > 0 ? 1 : 0);
  }
  scalar::Eval<bool> l;
  EXPECT_FALSE(scalar::logicalNot(l, true));
  EXPECT_TRUE(scalar::logicalNot(l, false));
}

TEST(ScalarOpsTest, TreeEvaluatesInDoubleAsEvalDoes) {
  scalar::Eval<double> e;
  for (double x : sweep<double>()) {
    for (bool useTanh : {false, true}) {
      TreeBuilder b(true);
      ScalarValue root = scalar::gelu(b, b.operand(0), useTanh);
      EXPECT_TRUE(sameBits(scalar::evaluateScalarTree(b, root, &x),
                           static_cast<double>(scalar::gelu(e, x, useTanh))))
          << x;
    }
    TreeBuilder b(true);
    ScalarValue root = scalar::selu(b, b.operand(0), 1.5, 1.25);
    EXPECT_TRUE(sameBits(scalar::evaluateScalarTree(b, root, &x),
                         static_cast<double>(scalar::selu(e, x, 1.5, 1.25))))
        << x;
  }
  // Comparisons and selects give 0 or 1; Max/Min propagate NaN.
  TreeBuilder b(true);
  ScalarValue x = b.operand(0), y = b.operand(1);
  double operands[] = {2.0, NAN};
  EXPECT_EQ(scalar::evaluateScalarTree(b, x < y, operands), 0.0);
  EXPECT_TRUE(std::isnan(scalar::evaluateScalarTree(b, b.max(x, y), operands)));
  EXPECT_TRUE(std::isnan(scalar::evaluateScalarTree(b, b.max(y, x), operands)));
  double ints[] = {7, -2};
  EXPECT_EQ(scalar::evaluateScalarTree(b, b.pymod(x, y), ints), -1.0);
}

TEST(ScalarOpsTest, RuntimeGeluConstantsRoundLikeFloatLiterals) {
  // The runtime's reference epilogue evaluates in float from the double
  // constants; the float literals it had are the same floats.
  EXPECT_EQ(static_cast<float>(scalar::kGeluTanhScale), 0.7978845608028654f);
  EXPECT_EQ(static_cast<float>(scalar::kGeluTanhCubic), 0.044715f);
}

} // namespace
