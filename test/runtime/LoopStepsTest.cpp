//===- LoopStepsTest.cpp - loop steps: the load check and the cpu target --===//
//
// checkDescriptor on a hand-built cpu model with a GRAPHC_STEP_LOOP, one
// fault each (a model file is untrusted: bodies past the plan, bodies that
// cross, nesting past GRAPHC_MAX_LOOP_DEPTH, a state outside the arena);
// loop_model_cpu (models/loop_model.c) run by the cpu executor through the
// runtime's API: the trip count, the body's condition, zero iterations and
// a run past the bound. The cuda side runs in CudaLoopTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "graphc/descriptor.h"
#include "TestModelPath.h"
#include "graphc/runtime.h"
#include "runtime/src/DescriptorCheck.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

namespace {

/// acc += x * (iteration + 1) while acc[0] < limit; body condition out.
int accumulate(void *const *args, char *, uint64_t) {
  const auto *x = static_cast<const float *>(args[0]);
  const auto *iteration = static_cast<const int64_t *>(args[1]);
  auto *acc = static_cast<float *>(args[2]);
  auto *go = static_cast<bool *>(args[3]);
  for (int i = 0; i < 4; ++i)
    acc[i] += x[i] * float(*iteration + 1);
  *go = acc[0] < 50.0f;
  return 0;
}

/// A cpu model: y = x + x * (1 + 2 + ... + k) for x: float32[4] and
/// n: int64[], the loop running k iterations while k < n and acc[0] < 50,
/// at most 8.
///   step 0  copy x to acc (arena 0)
///   step 1  loop: trip count n, state at arena 256, condition at 512
///   step 2    accumulate(x, iteration, acc, condition)
///   step 3  copy acc to y
struct LoopModel {
  LoopModel() {
    kernels[0] = {"accumulate", "pointwise", "Add_0", 1, accumulate};
    kernels[1] = {"loop_control_0", "loop_control", "Loop_0", 0, nullptr};
    copyIn[0] = {GRAPHC_BUFFER_INPUT, 0, 0, 16};
    copyIn[1] = {GRAPHC_BUFFER_ARENA, 0, 0, 16};
    loopArgs[0] = {GRAPHC_BUFFER_INPUT, 1, 0, 8};
    loopArgs[1] = {GRAPHC_BUFFER_NONE, 0, 0, 0};
    loopArgs[2] = {GRAPHC_BUFFER_ARENA, 0, 256, 16};
    loopArgs[3] = {GRAPHC_BUFFER_ARENA, 0, 512, 1};
    bodyArgs[0] = {GRAPHC_BUFFER_INPUT, 0, 0, 16};
    bodyArgs[1] = {GRAPHC_BUFFER_ARENA, 0, 256, 8};
    bodyArgs[2] = {GRAPHC_BUFFER_ARENA, 0, 0, 16};
    bodyArgs[3] = {GRAPHC_BUFFER_ARENA, 0, 512, 1};
    copyOut[0] = {GRAPHC_BUFFER_ARENA, 0, 0, 16};
    copyOut[1] = {GRAPHC_BUFFER_OUTPUT, 0, 0, 16};
    steps[0] = {GRAPHC_STEP_COPY, -1, {0}, {0}, 0, 2, copyIn};
    steps[1] = {GRAPHC_STEP_LOOP, 1, {1, 1, 1}, {1, 1, 1}, 0, 4, loopArgs};
    steps[1].body_steps = 1;
    steps[1].max_iterations = 8;
    steps[2] = {GRAPHC_STEP_HOST_CALL, 0, {1, 1, 1}, {1, 1, 1}, 0, 4, bodyArgs};
    steps[3] = {GRAPHC_STEP_COPY, -1, {0}, {0}, 0, 2, copyOut};
    plans[0] = {"static", inputDims, outputDims, 768, 768, 4, steps};
    desc.abi_version = GRAPHC_ABI_VERSION;
    desc.producer = "graphc test";
    desc.target = GRAPHC_TARGET_CPU;
    desc.num_inputs = 2;
    desc.inputs = inputs;
    desc.num_outputs = 1;
    desc.outputs = outputs;
    desc.num_plans = 1;
    desc.plans = plans;
    desc.num_kernels = 2;
    desc.kernels = kernels;
  }
  LoopModel(const LoopModel &) = delete;

  std::string check() const { return graphc::rt::checkDescriptor(desc); }

  int64_t xDims[1] = {4};
  const char *names[1] = {""};
  graphc_tensor_desc inputs[2] = {{"x", 1, 1, xDims, names},
                                  {"n", 7, 0, nullptr, names}};
  graphc_tensor_desc outputs[1] = {{"y", 1, 1, xDims, names}};
  const int64_t *inputDims[2] = {xDims, nullptr};
  const int64_t *outputDims[1] = {xDims};
  graphc_kernel_desc kernels[2] = {};
  graphc_buffer_ref copyIn[2], loopArgs[4], bodyArgs[4], copyOut[2];
  graphc_step_desc steps[4] = {};
  graphc_plan_desc plans[1];
  graphc_model_desc desc = {};
};

TEST(LoopDescriptorCheck, AcceptsAValidLoop) {
  LoopModel model;
  EXPECT_EQ(model.check(), "");
  // No trip count and a body whose condition is always true.
  model.loopArgs[0] = {GRAPHC_BUFFER_NONE, 0, 0, 0};
  model.loopArgs[3] = {GRAPHC_BUFFER_NONE, 0, 0, 0};
  EXPECT_EQ(model.check(), "");
}

struct Fault {
  const char *name;
  std::function<void(LoopModel &)> breakIt;
  std::string message;
};

std::string faultName(const ::testing::TestParamInfo<Fault> &info) {
  return info.param.name;
}

const Fault kFaults[] = {
    {"body_past_the_plan", [](LoopModel &m) { m.steps[1].body_steps = 3; },
     "plan 'static' step 1 is a loop of 3 body steps, past the plan's 4 "
     "steps"},
    {"negative_body", [](LoopModel &m) { m.steps[1].body_steps = -1; },
     "plan 'static' step 1 is a loop of -1 body steps, past the plan's 4 "
     "steps"},
    {"no_iterations", [](LoopModel &m) { m.steps[1].max_iterations = 0; },
     "plan 'static' step 1 is a loop of at most 0 iterations"},
    {"three_arguments", [](LoopModel &m) { m.steps[1].num_args = 3; },
     "plan 'static' step 1 is a loop with 3 arguments, not its trip count, "
     "condition, state and body condition"},
    {"state_in_the_weights",
     [](LoopModel &m) { m.loopArgs[2].kind = GRAPHC_BUFFER_WEIGHTS; },
     "plan 'static' step 1 is a loop without 16 aligned bytes of state in "
     "the arena"},
    {"short_state", [](LoopModel &m) { m.loopArgs[2].size = 8; },
     "plan 'static' step 1 is a loop without 16 aligned bytes of state in "
     "the arena"},
    {"misaligned_state", [](LoopModel &m) { m.loopArgs[2].offset = 260; },
     "plan 'static' step 1 is a loop without 16 aligned bytes of state in "
     "the arena"},
    {"short_trip_count", [](LoopModel &m) { m.loopArgs[0].size = 4; },
     "plan 'static' step 1 is a loop whose trip count or conditions are "
     "smaller than an int64 and a bool"},
    {"state_past_the_arena", [](LoopModel &m) { m.loopArgs[2].offset = 1024; },
     "plan 'static' step 1 argument 2"},
    {"kernel_of_another_kind", [](LoopModel &m) { m.steps[1].kernel = 0; },
     "plan 'static' step 1 is a loop whose kernel 'accumulate' is no loop "
     "control kernel"},
    {"kernel_out_of_range", [](LoopModel &m) { m.steps[1].kernel = 2; },
     "plan 'static' step 1 names kernel 2 out of range"},
    {"loop_fields_on_a_copy", [](LoopModel &m) { m.steps[3].body_steps = 1; },
     "plan 'static' step 3 is no loop but has a loop body or bound"},
    {"results_of_a_loop",
     [](LoopModel &m) {
       static const graphc_step_result_desc result = {2, 7, 0, nullptr, ""};
       m.steps[1].num_results = 1;
       m.steps[1].results = &result;
     },
     "plan 'static' step 1 is a loop that lists results"},
};

class LoopDescriptorFault : public ::testing::TestWithParam<Fault> {};

TEST_P(LoopDescriptorFault, IsRefusedWithItsReason) {
  LoopModel model;
  GetParam().breakIt(model);
  std::string error = model.check();
  EXPECT_EQ(error.substr(0, GetParam().message.size()), GetParam().message)
      << error;
}

INSTANTIATE_TEST_SUITE_P(Runtime, LoopDescriptorFault,
                         ::testing::ValuesIn(kFaults), faultName);

// Bodies nest: one that starts in another ends in it, at most
// GRAPHC_MAX_LOOP_DEPTH deep.
TEST(LoopDescriptorCheck, BodiesNestAndNestBoundedly) {
  LoopModel model;
  graphc_buffer_ref innerArgs[4] = {{GRAPHC_BUFFER_NONE, 0, 0, 0},
                                    {GRAPHC_BUFFER_NONE, 0, 0, 0},
                                    {GRAPHC_BUFFER_ARENA, 0, 384, 16},
                                    {GRAPHC_BUFFER_NONE, 0, 0, 0}};
  graphc_step_desc inner = model.steps[1];
  inner.args = innerArgs;
  inner.body_steps = 1;
  graphc_step_desc steps[5] = {model.steps[0], model.steps[1], inner,
                               model.steps[2], model.steps[3]};
  steps[1].body_steps = 2;
  model.plans[0].steps = steps;
  model.plans[0].num_steps = 5;
  EXPECT_EQ(model.check(), "");
  // The inner body ends past the outer one.
  steps[1].body_steps = 1;
  steps[2].body_steps = 2;
  EXPECT_EQ(model.check(), "plan 'static' step 2 is a loop whose body ends "
                           "past the body of the loop it lies in");

  // GRAPHC_MAX_LOOP_DEPTH + 1 loops, each the whole body of the one before.
  constexpr int kLoops = GRAPHC_MAX_LOOP_DEPTH + 1;
  graphc_step_desc deep[kLoops + 1];
  for (int i = 0; i < kLoops; ++i) {
    deep[i] = inner;
    deep[i].body_steps = kLoops - i;
  }
  deep[kLoops] = model.steps[2];
  model.plans[0].steps = deep;
  model.plans[0].num_steps = kLoops + 1;
  EXPECT_EQ(model.check(), "plan 'static' step 16 is a loop nested more "
                           "than 16 deep");
  // A copy instead of the outermost: 16 deep.
  deep[0] = model.steps[0];
  EXPECT_EQ(model.check(), "");
}

//===- The cpu executor ---------------------------------------------------===//

/// loop_model_cpu (models/loop_model.c): y = x + x * (1 + 2 + ... + k), the
/// loop running k iterations while k < n and acc[0] < 50, at most 8.
struct CpuLoopModel {
  CpuLoopModel() {
    graphc_status status =
        graphc_model_load(modelPath("loop_model_cpu").c_str(), nullptr, &model);
    EXPECT_EQ(status, nullptr) << (status ? graphc_status_message(status) : "");
    graphc_status_free(status);
    if (!model)
      return;
    status = graphc_session_create(model, nullptr, &session);
    EXPECT_EQ(status, nullptr) << (status ? graphc_status_message(status) : "");
    graphc_status_free(status);
  }
  ~CpuLoopModel() {
    graphc_session_release(session);
    graphc_model_release(model);
  }

  /// Runs on `x` with trip count `n` into `y`: "" or the failure's message.
  std::string run(const float (&x)[4], int64_t n, float *y) {
    int64_t xShape[1] = {4}, nShape[1] = {1};
    DLTensor inputs[2] = {};
    DLTensor output = {};
    for (DLTensor *tensor : {&inputs[0], &inputs[1], &output})
      tensor->device = {kDLCPU, 0};
    inputs[0].data = const_cast<float *>(x);
    inputs[0].ndim = 1;
    inputs[0].shape = xShape;
    inputs[0].dtype = {kDLFloat, 32, 1};
    inputs[1].data = &n;
    inputs[1].ndim = 1;
    inputs[1].shape = nShape;
    inputs[1].dtype = {kDLInt, 64, 1};
    output.data = y;
    output.ndim = 1;
    output.shape = xShape;
    output.dtype = {kDLFloat, 32, 1};
    graphc_status status =
        graphc_session_run(session, inputs, 2, nullptr, &output, 1);
    std::string message = status ? graphc_status_message(status) : "";
    graphc_status_free(status);
    return message;
  }

  graphc_model *model = nullptr;
  graphc_session *session = nullptr;
};

TEST(LoopStepsCpu, RunWhileTheTripCountAndTheBodysConditionAllow) {
  CpuLoopModel loaded;
  ASSERT_NE(loaded.session, nullptr);
  // With x = 1, 2, 3, 4: acc[0] = 1 + k (k + 1) / 2 stays below 50 up to
  // the bound, so the trip count decides; none for n = 0.
  const float x[4] = {1, 2, 3, 4};
  for (int64_t n : {0, 1, 3, 8}) {
    float y[4] = {};
    EXPECT_EQ(loaded.run(x, n, y), "") << n;
    float factor = 1 + float(n * (n + 1) / 2);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(y[i], x[i] * factor) << "n " << n << " element " << i;
  }
  // A ninth iteration is past the bound: the run fails naming the node, and
  // the session runs again.
  float y[4] = {};
  EXPECT_EQ(loaded.run(x, 9, y),
            "loop iteration 8 is out of range [0, 8) in node 'Loop_1' "
            "(kernel 'loop_control')");
  EXPECT_EQ(loaded.run(x, 2, y), "");
  EXPECT_EQ(y[0], 4.0f);
  // The body's condition ends the loop: with x[0] = 10, acc[0] = 10 +
  // 10 k (k + 1) / 2 reaches 70 in iteration 2, whatever the trip count.
  const float tens[4] = {10, 10, 10, 10};
  EXPECT_EQ(loaded.run(tens, 100, y), "");
  EXPECT_EQ(y[0], 10.0f * (1 + 6));
}

} // namespace
