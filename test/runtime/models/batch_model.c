/*===- batch_model.c - a model with a batch dim, for batched runs ---------===*
 *
 * y = x * w + s and r = the sum of each row of x, for x: float32[batch,3],
 * s: float32[batch,1] and weights w = {2, 3, 4}; the bucketed dim batch
 * (sizes 1, 2, 4, 8) is axis 0 of every input and output, pad-safe and
 * splittable: graphc_session_run_batch may concatenate requests along it.
 * One step per plan computes both outputs row by row: on cpu a host call
 * of one function per plan, on cuda (BATCH_CUDA) a launch of kernel
 * batch_rows with one block per row, which the tests register with the
 * fake driver (the image only carries the marker the fake loads).
 *
 * Variants (compile definitions):
 *   BATCH_CUDA   the cuda target
 *   BATCH_MIXES  batch is pad-safe but not splittable (node 'CumSum_2'
 *                mixes rows): the model has no batch dim
 *===----------------------------------------------------------------------===*/
#include "graphc/descriptor.h"

#include <stdint.h>
#include <stdio.h>

static const float weights[3]
    __attribute__((aligned(GRAPHC_ALIGNMENT))) = {2.0f, 3.0f, 4.0f};

static const int64_t x_dims[] = {-1, 3};
static const int64_t s_dims[] = {-1, 1};
static const char *const batch_names[] = {"batch", ""};

static const graphc_tensor_desc inputs[] = {
    {"x", 1, 2, x_dims, batch_names},
    {"s", 1, 2, s_dims, batch_names},
};
static const graphc_tensor_desc outputs[] = {
    {"y", 1, 2, x_dims, batch_names},
    {"r", 1, 2, s_dims, batch_names},
};

#ifdef BATCH_CUDA
static const char image[] = "graphc-fake-image";
static const graphc_image_desc images[] = {{80, 0, image, sizeof(image)}};
static const graphc_kernel_desc kernels[] = {
    {"batch_rows", "pointwise", "Mul_0,Add_1,ReduceSum_2", 0x41, 0}};
#define STEP(ROWS)                                                             \
  { GRAPHC_STEP_LAUNCH, 0, {ROWS, 1, 1}, {1, 1, 1}, 0, 5, args##ROWS }
#define NUM_KERNELS 1
#else
/* x, s, w -> y, r over ROWS rows. A kernel may load whole floats only: an
 * argument not 4-byte aligned is refused, so a runtime that hands one over
 * fails the test (GRAPHC_INTERNAL) instead of passing on x86. */
static int misaligned(void *const *args, char *err, uint64_t err_len) {
  for (int a = 0; a < 5; ++a)
    if ((uintptr_t)args[a] % sizeof(float)) {
      snprintf(err, err_len, "argument %d is not 4-byte aligned", a);
      return 1;
    }
  return 0;
}
#define DEFINE_KERNEL(ROWS)                                                    \
  static int rows##ROWS(void *const *args, char *err, uint64_t err_len) {      \
    const float *x = args[0], *s = args[1], *w = args[2];                      \
    float *y = args[3], *r = args[4];                                          \
    if (misaligned(args, err, err_len))                                        \
      return 1;                                                                \
    for (int row = 0; row < ROWS; ++row) {                                     \
      r[row] = 0;                                                              \
      for (int c = 0; c < 3; ++c) {                                            \
        y[row * 3 + c] = x[row * 3 + c] * w[c] + s[row];                       \
        r[row] += x[row * 3 + c];                                              \
      }                                                                        \
    }                                                                          \
    return 0;                                                                  \
  }
DEFINE_KERNEL(1)
DEFINE_KERNEL(2)
DEFINE_KERNEL(4)
DEFINE_KERNEL(8)
static const graphc_kernel_desc kernels[] = {
    {"rows1", "pointwise", "Mul_0,Add_1,ReduceSum_2", 0x41, rows1},
    {"rows2", "pointwise", "Mul_0,Add_1,ReduceSum_2", 0x42, rows2},
    {"rows4", "pointwise", "Mul_0,Add_1,ReduceSum_2", 0x44, rows4},
    {"rows8", "pointwise", "Mul_0,Add_1,ReduceSum_2", 0x48, rows8},
};
#define KERNEL_OF_1 0
#define KERNEL_OF_2 1
#define KERNEL_OF_4 2
#define KERNEL_OF_8 3
#define STEP(ROWS)                                                             \
  { GRAPHC_STEP_HOST_CALL, KERNEL_OF_##ROWS, {0}, {0}, 0, 5, args##ROWS }
#define NUM_KERNELS 4
#endif

#define DEFINE_PLAN(ROWS)                                                      \
  static const int64_t x##ROWS[] = {ROWS, 3};                                  \
  static const int64_t s##ROWS[] = {ROWS, 1};                                  \
  static const int64_t *const dims##ROWS[] = {x##ROWS, s##ROWS};               \
  static const graphc_buffer_ref args##ROWS[] = {                              \
      {GRAPHC_BUFFER_INPUT, 0, 0, ROWS * 12},                                  \
      {GRAPHC_BUFFER_INPUT, 1, 0, ROWS * 4},                                   \
      {GRAPHC_BUFFER_WEIGHTS, 0, 0, 12},                                       \
      {GRAPHC_BUFFER_OUTPUT, 0, 0, ROWS * 12},                                 \
      {GRAPHC_BUFFER_OUTPUT, 1, 0, ROWS * 4},                                  \
  };                                                                           \
  static const graphc_step_desc steps##ROWS[] = {STEP(ROWS)};
DEFINE_PLAN(1)
DEFINE_PLAN(2)
DEFINE_PLAN(4)
DEFINE_PLAN(8)

static const graphc_plan_desc plans[] = {
    {"batch1", dims1, dims1, 256, 0, 1, steps1},
    {"batch2", dims2, dims2, 256, 0, 1, steps2},
    {"batch4", dims4, dims4, 256, 0, 1, steps4},
    {"batch8", dims8, dims8, 256, 0, 1, steps8},
};

static const int64_t batch_sizes[] = {1, 2, 4, 8};
static const int32_t batch_output_axes[] = {0, 0};
#ifdef BATCH_MIXES
static const graphc_bucket_dim_desc bucket_dims[] = {
    {"batch", 4, batch_sizes, 1, 0, "CumSum_2", "a cumulative sum along it",
     batch_output_axes}};
#else
static const graphc_bucket_dim_desc bucket_dims[] = {
    {"batch", 4, batch_sizes, 1, 1, "", "", batch_output_axes}};
#endif

static const graphc_model_desc descriptor GRAPHC_DESCRIPTOR_PLACEMENT = {
    .abi_version = GRAPHC_ABI_VERSION,
    .producer = "graphc test",
#ifdef BATCH_CUDA
    .target = GRAPHC_TARGET_CUDA,
    .num_images = 1,
    .images = images,
    .num_units = 1,
#else
    .target = GRAPHC_TARGET_CPU,
#endif
    .num_inputs = 2,
    .inputs = inputs,
    .num_outputs = 2,
    .outputs = outputs,
    .num_plans = 4,
    .plans = plans,
    .num_kernels = NUM_KERNELS,
    .kernels = kernels,
    .weights = weights,
    .weights_size = 12,
    .num_bucket_dims = 1,
    .bucket_dims = bucket_dims,
};

__attribute__((visibility("default"))) const graphc_model_desc *
graphc_model_descriptor_v1(void) {
  return &descriptor;
}
