/*===- affine_model.c - a hand-written cpu model for the runtime tests ----===*
 *
 * y = x * w + bias and scaled = x * w, for x: float32[batch,3], bias:
 * float32[3] and weights w = {2, 3, 4}; plans for batch 1 and batch 2.
 * Steps: host call mul (x, w -> arena t), host call add (t, bias -> y), copy
 * (t -> scaled). The add kernel fails on a NaN bias[0] and reports an
 * infinite bias[0] as a value out of range (GRAPHC_HOST_FN_BAD_VALUE), so
 * the tests can exercise kernel errors.
 *
 * Variants (compile definitions):
 *   GRAPHC_TEST_ABI_VERSION  the descriptor's ABI version
 *   GRAPHC_TEST_SIDE_WEIGHTS weights in the side file "affine_side.weights"
 *   GRAPHC_TEST_APPENDED_WEIGHTS weights appended to the file after linking
 *                           (seal-test-model --append-f32 2,3,4)
 *   GRAPHC_TEST_BAD_REF      an arena reference past the arena's end
 *   GRAPHC_TEST_BUCKETS      x is float32[batch,width] with two bucketed dims,
 *                           both pad-safe and carried by both outputs: batch
 *                           (sizes 1 and 2, splittable) and width (size 3)
 *   GRAPHC_TEST_PROBES       every step lists its result (ABI v14), and a
 *                           fourth step adds the bias to t in place, after
 *                           the copy has read it: probes of t after steps 0
 *                           and 3 hold x * w and x * w + bias
 *   GRAPHC_TEST_BAD_RESULT_ARG  (with PROBES) the mul's result names
 *                           argument 3 of its 3
 *   GRAPHC_TEST_BAD_RESULT_SIZE (with PROBES) the mul's result is
 *                           float32[rows,4], past its 12 * rows bytes
 *===----------------------------------------------------------------------===*/
#include "graphc/descriptor.h"

#include <math.h>
#include <stdio.h>

#ifndef GRAPHC_TEST_ABI_VERSION
#define GRAPHC_TEST_ABI_VERSION GRAPHC_ABI_VERSION
#endif

/* LaneHash of the 12 weight bytes (2.0f, 3.0f, 4.0f little endian), checked
 * against the side file; the tests fail to load the model if it is stale.
 * The whole-file checksum is written in after linking (seal-test-model). */
#define AFFINE_WEIGHTS_CHECKSUM 0x22f7295b5b2db691ull

#if !defined(GRAPHC_TEST_SIDE_WEIGHTS) && !defined(GRAPHC_TEST_APPENDED_WEIGHTS)
static const float weights[3] __attribute__((aligned(GRAPHC_ALIGNMENT))) = {
    2.0f, 3.0f, 4.0f};
#endif

#define DEFINE_KERNELS(ROWS)                                                   \
  static int mul_rows##ROWS(void *const *args, char *err, uint64_t err_len) {  \
    const float *x = args[0], *w = args[1];                                    \
    float *t = args[2];                                                        \
    (void)err, (void)err_len;                                                  \
    for (int i = 0; i < ROWS * 3; ++i)                                         \
      t[i] = x[i] * w[i % 3];                                                  \
    return 0;                                                                  \
  }                                                                            \
  static int add_rows##ROWS(void *const *args, char *err, uint64_t err_len) {  \
    const float *t = args[0], *bias = args[1];                                 \
    float *y = args[2];                                                        \
    if (isnan(bias[0])) {                                                      \
      snprintf(err, err_len, "bias is nan");                                   \
      return 1;                                                                \
    }                                                                          \
    if (isinf(bias[0])) {                                                      \
      snprintf(err, err_len, "bias is infinite");                              \
      return GRAPHC_HOST_FN_BAD_VALUE;                                         \
    }                                                                          \
    for (int i = 0; i < ROWS * 3; ++i)                                         \
      y[i] = t[i] + bias[i % 3];                                               \
    return 0;                                                                  \
  }
DEFINE_KERNELS(1)
DEFINE_KERNELS(2)

#ifdef GRAPHC_TEST_BUCKETS
static const int64_t x_dims[] = {-1, -1};
static const char *const x_dim_names[] = {"batch", "width"};
#else
static const int64_t x_dims[] = {-1, 3};
static const char *const x_dim_names[] = {"batch", ""};
#endif
static const int64_t bias_dims[] = {3};
static const char *const bias_dim_names[] = {""};

static const graphc_tensor_desc inputs[] = {
    {"x", 1, 2, x_dims, x_dim_names},
    {"bias", 1, 1, bias_dims, bias_dim_names},
};
static const graphc_tensor_desc outputs[] = {
    {"y", 1, 2, x_dims, x_dim_names},
    {"scaled", 1, 2, x_dims, x_dim_names},
};

static const graphc_kernel_desc kernels[] = {
    {"mul_rows1", "pointwise", "Mul_0", 0x11, mul_rows1},
    {"add_rows1", "pointwise", "Add_1", 0x12, add_rows1},
    {"mul_rows2", "pointwise", "Mul_0", 0x21, mul_rows2},
    {"add_rows2", "pointwise", "Add_1", 0x22, add_rows2},
};

#ifdef GRAPHC_TEST_BAD_REF
#define T_OFFSET 1024
#else
#define T_OFFSET 0
#endif

#ifdef GRAPHC_TEST_PROBES
#ifdef GRAPHC_TEST_BAD_RESULT_ARG
#define MUL_RESULT_ARG 3
#else
#define MUL_RESULT_ARG 2
#endif
#ifdef GRAPHC_TEST_BAD_RESULT_SIZE
#define MUL_RESULT_WIDTH 4
#else
#define MUL_RESULT_WIDTH 3
#endif
#define NUM_STEPS 4
/* The results of each step, and the in-place add (t + bias -> t). */
#define DEFINE_PROBES(ROWS)                                                    \
  static const int64_t mul_dims##ROWS[] = {ROWS, MUL_RESULT_WIDTH};            \
  static const graphc_step_result_desc mul_results##ROWS[] = {                 \
      {MUL_RESULT_ARG, 1, 2, mul_dims##ROWS, "t"}};                            \
  static const graphc_step_result_desc add_results##ROWS[] = {                 \
      {2, 1, 2, x##ROWS, "y"}};                                                \
  static const graphc_step_result_desc copy_results##ROWS[] = {                \
      {1, 1, 2, x##ROWS, "scaled"}};                                           \
  static const graphc_step_result_desc add_in_place_results##ROWS[] = {        \
      {2, 1, 2, x##ROWS, ""}};                                                 \
  static const graphc_buffer_ref add_in_place_args##ROWS[] = {                 \
      {GRAPHC_BUFFER_ARENA, 0, T_OFFSET, ROWS * 12},                           \
      {GRAPHC_BUFFER_INPUT, 1, 0, 12},                                         \
      {GRAPHC_BUFFER_ARENA, 0, T_OFFSET, ROWS * 12},                           \
  };
#define RESULTS(NAME, ROWS) , 1, NAME##_results##ROWS
#define ADD_IN_PLACE_STEP(ROWS)                                                \
  , {GRAPHC_STEP_HOST_CALL, 2 * (ROWS - 1) + 1, {0}, {0}, 0, 3,               \
     add_in_place_args##ROWS RESULTS(add_in_place, ROWS)}
#else
#define NUM_STEPS 3
#define DEFINE_PROBES(ROWS)
#define RESULTS(NAME, ROWS)
#define ADD_IN_PLACE_STEP(ROWS)
#endif

#define DEFINE_PLAN(ROWS)                                                      \
  static const int64_t x##ROWS[] = {ROWS, 3};                                  \
  static const int64_t *const in_dims##ROWS[] = {x##ROWS, bias_dims};          \
  static const int64_t *const out_dims##ROWS[] = {x##ROWS, x##ROWS};           \
  static const graphc_buffer_ref mul_args##ROWS[] = {                          \
      {GRAPHC_BUFFER_INPUT, 0, 0, ROWS * 12},                                  \
      {GRAPHC_BUFFER_WEIGHTS, 0, 0, 12},                                       \
      {GRAPHC_BUFFER_ARENA, 0, T_OFFSET, ROWS * 12},                           \
  };                                                                           \
  static const graphc_buffer_ref add_args##ROWS[] = {                          \
      {GRAPHC_BUFFER_ARENA, 0, T_OFFSET, ROWS * 12},                           \
      {GRAPHC_BUFFER_INPUT, 1, 0, 12},                                         \
      {GRAPHC_BUFFER_OUTPUT, 0, 0, ROWS * 12},                                 \
  };                                                                           \
  static const graphc_buffer_ref copy_args##ROWS[] = {                         \
      {GRAPHC_BUFFER_ARENA, 0, T_OFFSET, ROWS * 12},                           \
      {GRAPHC_BUFFER_OUTPUT, 1, 0, ROWS * 12},                                 \
  };                                                                           \
  DEFINE_PROBES(ROWS)                                                          \
  static const graphc_step_desc steps##ROWS[] = {                              \
      {GRAPHC_STEP_HOST_CALL, 2 * (ROWS - 1), {0}, {0}, 0, 3,                  \
       mul_args##ROWS RESULTS(mul, ROWS)},                                     \
      {GRAPHC_STEP_HOST_CALL, 2 * (ROWS - 1) + 1, {0}, {0}, 0, 3,              \
       add_args##ROWS RESULTS(add, ROWS)},                                     \
      {GRAPHC_STEP_COPY, -1, {0}, {0}, 0, 2,                                   \
       copy_args##ROWS RESULTS(copy, ROWS)}                                    \
      ADD_IN_PLACE_STEP(ROWS)};
DEFINE_PLAN(1)
DEFINE_PLAN(2)

static const graphc_plan_desc plans[] = {
    {"batch1", in_dims1, out_dims1, 256, 12, NUM_STEPS, steps1},
    {"batch2", in_dims2, out_dims2, 512, 24, NUM_STEPS, steps2},
};

#ifdef GRAPHC_TEST_BUCKETS
static const int64_t batch_sizes[] = {1, 2};
static const int32_t batch_output_axes[] = {0, 0};
static const int64_t width_sizes[] = {3};
static const int32_t width_output_axes[] = {1, 1};
static const graphc_bucket_dim_desc bucket_dims[] = {
    {"batch", 2, batch_sizes, 1, 1, "", "", batch_output_axes},
    {"width", 1, width_sizes, 1, 0, "", "", width_output_axes},
};
#define NUM_BUCKET_DIMS 2
#define BUCKET_DIMS bucket_dims
#else
#define NUM_BUCKET_DIMS 0
#define BUCKET_DIMS NULL
#endif

static const graphc_model_desc descriptor GRAPHC_DESCRIPTOR_PLACEMENT = {
    GRAPHC_TEST_ABI_VERSION,
    "graphc test",
    GRAPHC_TARGET_CPU,
    2,
    inputs,
    2,
    outputs,
    2,
    plans,
    4,
    kernels,
    0,
    NULL,
#if defined(GRAPHC_TEST_SIDE_WEIGHTS)
    NULL,
    12,
    "affine_side.weights",
#elif defined(GRAPHC_TEST_APPENDED_WEIGHTS)
    NULL,
    12,
    NULL,
#else
    weights,
    12,
    NULL,
#endif
    0,
    AFFINE_WEIGHTS_CHECKSUM,
    NUM_BUCKET_DIMS,
    BUCKET_DIMS,
};

__attribute__((visibility("default"))) const graphc_model_desc *
graphc_model_descriptor_v1(void) {
  return &descriptor;
}
