//===- ErrorDiagnosisTest.cpp - why a step is out of tolerance ------------===//
//
// Each rule of lib/Support/ErrorDiagnosis on tensors built to trip it, and
// its boundary: the same evidence just past the rule's threshold gets no
// diagnosis (or the next rule's).
//
//===----------------------------------------------------------------------===//

#include "lib/Support/ErrorDiagnosis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace graphc;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

HostTensor floats(const std::vector<float> &values) {
  HostTensor tensor{"t", 1, {static_cast<int64_t>(values.size())}, {}};
  tensor.data.resize(values.size() * 4);
  std::memcpy(tensor.data.data(), values.data(), tensor.data.size());
  return tensor;
}

/// The evidence of `got` (in `dtype`, held here as float32 values already
/// rounded) against `ref`.
StepEvidence evidence(const std::vector<float> &got,
                      const std::vector<float> &ref, int32_t dtype) {
  std::string why;
  std::optional<TensorErrors> errors =
      compareTensors(floats(got), floats(ref), why);
  EXPECT_TRUE(errors) << why;
  StepEvidence result;
  result.dtype = dtype;
  result.errors = *errors;
  return result;
}

const Tolerance kFp16{1e-2, 0};

TEST(ErrorDiagnosis, Limits) {
  EXPECT_EQ(floatLimits(10)->maxFinite, 65504.0);
  EXPECT_EQ(floatLimits(10)->minNormal, std::ldexp(1.0, -14));
  EXPECT_EQ(floatLimits(16)->epsilon, std::ldexp(1.0, -8));
  EXPECT_FALSE(floatLimits(7));
  EXPECT_EQ(maxAbsFinite(floats({1, -3, float(kInf), NAN})), 3.0);
}

TEST(ErrorDiagnosis, WithinToleranceHasNone) {
  EXPECT_FALSE(diagnoseStep(evidence({1, 2}, {1, 2.001f}, 10), kFp16));
}

TEST(ErrorDiagnosis, Overflow) {
  auto d = diagnoseStep(evidence({float(kInf), 1}, {70000, 1}, 10), kFp16);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, "overflow");
  EXPECT_NE(d->message.find("65504"), std::string::npos);
  // 60000 fits float16: the same Inf is born inside the step, not overflow.
  d = diagnoseStep(evidence({float(kInf), 1}, {60000, 1}, 10), kFp16);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, "inf_born");
  // bfloat16's range holds 70000.
  d = diagnoseStep(evidence({float(kInf), 1}, {70000, 1}, 16), kFp16);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, "inf_born");
}

TEST(ErrorDiagnosis, NanBornOrInherited) {
  StepEvidence e = evidence({NAN, 1}, {-8.5f, 1}, 10);
  auto d = diagnoseStep(e, kFp16);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, "nan_born");
  e.nanInherited = true;
  EXPECT_EQ(diagnoseStep(e, kFp16)->kind, "inherited");
  // An Inf upstream (inf - inf) is as good a source.
  e.nanInherited = false;
  e.infInherited = true;
  EXPECT_EQ(diagnoseStep(e, kFp16)->kind, "inherited");
}

TEST(ErrorDiagnosis, InfBornOrInherited) {
  StepEvidence e = evidence({-float(kInf), 1}, {-8.5f, 1}, 10);
  auto d = diagnoseStep(e, kFp16);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, "inf_born");
  e.infInherited = true;
  EXPECT_EQ(diagnoseStep(e, kFp16)->kind, "inherited");
}

TEST(ErrorDiagnosis, Underflow) {
  // 1e-5 is below float16's smallest normal (6.1e-5) and zeroed.
  auto d = diagnoseStep(evidence({0, 0}, {1e-5f, 1e-5f}, 10), kFp16);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, "underflow");
  // 1e-3 is a normal float16: zeroing it is no underflow.
  EXPECT_FALSE(diagnoseStep(evidence({0, 0}, {1e-3f, 1e-3f}, 10), kFp16));
  // A zeroed element too small to matter against the tensor's range.
  EXPECT_FALSE(diagnoseStep(evidence({0, 1.5f}, {1e-5f, 1}, 10), kFp16));
}

TEST(ErrorDiagnosis, Cancellation) {
  // bfloat16 inputs near 100 (eps 2^-8) differ by 0.1: an error of 0.5 is
  // two roundings of them.
  StepEvidence e = evidence({0.5f, -0.4f}, {0.1f, 0.05f}, 1);
  e.inputsMaxAbs = 100;
  e.inputsDtype = 16;
  auto d = diagnoseStep(e, Tolerance{6e-2, 0});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, "cancellation");
  EXPECT_NE(d->message.find("bfloat16"), std::string::npos);
  // Inputs stored as float32 cannot explain an error of 0.4.
  e.inputsDtype = 1;
  EXPECT_FALSE(diagnoseStep(e, Tolerance{6e-2, 0}));
  // A result as large as its inputs is no cancellation.
  e = evidence({50.5f, 40}, {50, 40}, 16);
  e.inputsMaxAbs = 100;
  e.inputsDtype = 16;
  EXPECT_FALSE(diagnoseStep(e, Tolerance{1e-4, 0}));
}

} // namespace
