/*===- extent_model.c - outputs whose extent a run decides ---------------===*
 *
 * Keeps the positive elements of x: float32[2,4], as Compress and NonZero
 * would (descriptor ABI 16): one step, keep_positive, writes
 *   kept: float32[n]     the positive elements in row-major order
 *   where: int64[2,n]    their row and column indices (as NonZero)
 * into outputs of their bounds, float32[8] and int64[2,8], whose leading
 * corners hold the result and the rest zeros, and n, the count, as an int64
 * at arena offset 64: both outputs' data-dependent dim (kept's dim 0,
 * where's dim 1) take their extent from it.
 *
 * The kernel is extent_kernel.h's, which reports a count out of range for
 * the tests of what the runtime refuses.
 *
 *   (default)        the cpu target: keep_positive a host function
 *   EXTENT_CUDA      the cuda target for the fake driver: keep_positive a
 *                    launch, registered by the test (OutputExtentsTest.cpp)
 *   EXTENT_BUCKETS   (cpu) x is float32[rows,4] with rows bucketed at 1 and
 *                    3, which the descriptor calls pad-safe and splittable
 *                    (a compiler marks it exact): the runtime must still
 *                    run those sizes only
 *===----------------------------------------------------------------------===*/
#include "graphc/descriptor.h"

#include "extent_kernel.h"

#define COUNT_OFFSET 64

#ifdef EXTENT_CUDA
#define TARGET GRAPHC_TARGET_CUDA
#define STEP_KIND GRAPHC_STEP_LAUNCH
#define HOST_FN(n) 0
#define NUM_IMAGES 1
static const char image[] = "graphc-fake-image";
#else
#define TARGET GRAPHC_TARGET_CPU
#define STEP_KIND GRAPHC_STEP_HOST_CALL
#define HOST_FN(n) keep_positive_##n
#define NUM_IMAGES 0
static const char image[] = "";
#endif
static const graphc_image_desc images[] = {
    {80, GRAPHC_IMAGE_CUBIN, image, sizeof image, 0}};

#define DEFINE_HOST_FN(n)                                                      \
  static int keep_positive_##n(void *const *args, char *err,                   \
                               uint64_t err_len) {                             \
    (void)err;                                                                 \
    (void)err_len;                                                             \
    extent_keep_positive((const float *)args[0], n, (float *)args[1],          \
                         (int64_t *)args[2], (int64_t *)args[3]);              \
    return 0;                                                                  \
  }
#ifndef EXTENT_CUDA
DEFINE_HOST_FN(4)
DEFINE_HOST_FN(8)
DEFINE_HOST_FN(12)
#endif

static const char *const kept_names[] = {"kept_count"};
static const char *const where_names[] = {"", "where_count"};
static const int32_t kept_dd[] = {1};
static const int32_t where_dd[] = {0, 1};
static const int64_t kept_dims[] = {-1};
static const int64_t where_dims[] = {2, -1};
static const graphc_tensor_desc outputs[] = {
    {"kept", 1, 1, kept_dims, kept_names, 0, kept_dd},
    {"where", 7, 2, where_dims, where_names, 0, where_dd}};

/* Both outputs' extent is the count. */
static const graphc_buffer_ref kept_extents[] = {
    {GRAPHC_BUFFER_ARENA, 0, COUNT_OFFSET, 8}};
static const graphc_buffer_ref where_extents[] = {
    {GRAPHC_BUFFER_NONE, 0, 0, 0}, {GRAPHC_BUFFER_ARENA, 0, COUNT_OFFSET, 8}};
static const graphc_buffer_ref *const output_extents[] = {kept_extents,
                                                          where_extents};

/* One plan of `rows` rows: its dims, its step and its kernel `k`. */
#define PLAN(rows, k)                                                          \
  static const int64_t x_dims_##rows[] = {rows, 4};                            \
  static const int64_t kept_bound_##rows[] = {4 * rows};                       \
  static const int64_t where_bound_##rows[] = {2, 4 * rows};                   \
  static const int64_t *const inputs_##rows[] = {x_dims_##rows};               \
  static const int64_t *const outputs_##rows[] = {kept_bound_##rows,           \
                                                  where_bound_##rows};         \
  static const graphc_buffer_ref args_##rows[] = {                             \
      {GRAPHC_BUFFER_INPUT, 0, 0, 16 * rows},                                  \
      {GRAPHC_BUFFER_OUTPUT, 0, 0, 16 * rows},                                 \
      {GRAPHC_BUFFER_OUTPUT, 1, 0, 64 * rows},                                 \
      {GRAPHC_BUFFER_ARENA, 0, COUNT_OFFSET, 8}};                              \
  static const graphc_step_desc steps_##rows[] = {                             \
      {STEP_KIND, k, {1, 1, 1}, {1, 1, 1}, 0, 4, args_##rows}};

#ifdef EXTENT_BUCKETS
PLAN(1, 0)
PLAN(3, 2)
static const int64_t x_dims[] = {-1, 4};
static const char *const x_names[] = {"rows", ""};
static const int64_t rows_sizes[] = {1, 3};
static const int32_t rows_output_axes[] = {-1, -1};
static const graphc_bucket_dim_desc bucket_dims[] = {
    {"rows", 2, rows_sizes, 1, 1, "", "", rows_output_axes}};
static const graphc_plan_desc plans[] = {
    {"rows1", inputs_1, outputs_1, 256, 8, 1, steps_1, output_extents},
    {"rows3", inputs_3, outputs_3, 256, 8, 1, steps_3, output_extents}};
#define NUM_BUCKET_DIMS 1
#define BUCKET_DIMS bucket_dims
#elif defined(EXTENT_CUDA)
PLAN(2, 0)
static const int64_t x_dims[] = {2, 4};
static const char *const x_names[] = {"", ""};
static const graphc_plan_desc plans[] = {
    {"static", inputs_2, outputs_2, 256, 8, 1, steps_2, output_extents}};
#define NUM_BUCKET_DIMS 0
#define BUCKET_DIMS NULL
#else
PLAN(2, 1)
static const int64_t x_dims[] = {2, 4};
static const char *const x_names[] = {"", ""};
static const graphc_plan_desc plans[] = {
    {"static", inputs_2, outputs_2, 256, 8, 1, steps_2, output_extents}};
#define NUM_BUCKET_DIMS 0
#define BUCKET_DIMS NULL
#endif
static const graphc_tensor_desc inputs[] = {{"x", 1, 2, x_dims, x_names}};

#ifdef EXTENT_CUDA
static const graphc_kernel_desc kernels[] = {
    {"keep_positive_8", "compress", "Compress_0", 0x52, 0}};
#else
static const graphc_kernel_desc kernels[] = {
    {"keep_positive_4", "compress", "Compress_0", 0x51, HOST_FN(4)},
    {"keep_positive_8", "compress", "Compress_0", 0x52, HOST_FN(8)},
    {"keep_positive_12", "compress", "Compress_0", 0x53, HOST_FN(12)}};
#endif

static const graphc_model_desc descriptor GRAPHC_DESCRIPTOR_PLACEMENT = {
    GRAPHC_ABI_VERSION,
    "graphc test",
    TARGET,
    1,
    inputs,
    2,
    outputs,
    sizeof plans / sizeof plans[0],
    plans,
    sizeof kernels / sizeof kernels[0],
    kernels,
    NUM_IMAGES,
    images,
    0,
    0,
    0,
    0,
    .num_bucket_dims = NUM_BUCKET_DIMS,
    .bucket_dims = BUCKET_DIMS,
    .num_units = NUM_IMAGES,
};

__attribute__((visibility("default"))) const graphc_model_desc *
graphc_model_descriptor_v1(void) {
  return &descriptor;
}
