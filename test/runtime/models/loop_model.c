/*===- loop_model.c - a cuda model with a loop step, emulated -------------===*
 *
 * y = x + x * (1 + 2 + ... + k) for x: float32[4] and n: int64[1], where
 * the loop runs k iterations: while k < n and acc[0] < 50 (a ninth one
 * fails the run):
 *   step 0  copy x to acc (arena 0)
 *   step 1  loop (loop_control; trip count n, its state at arena 256, the
 *           body's condition at arena 512), at most 8 iterations
 *   step 2    accumulate: acc += x * (iteration + 1), condition acc[0] < 50
 *   step 3  copy acc to y
 * LOOP_NESTED: step 1's loop has no condition and its body is an inner loop
 * of trip count 2 (from the weights; its state at arena 768) around the
 * accumulate, which reads the inner iteration: y = x + 3 x n.
 * The one image is loop_kernels.cu.cpp built for the CUDA emulator, its
 * bytes in LOOP_IMAGE_HEADER (test/runtime/EmbedFile.cmake). LOOP_FAKE_SM90:
 * an sm_90 cubin of the fake driver instead, whose kernels the tests
 * register (launched programmatically where the runtime may). LOOP_CPU:
 * a cpu model, the body a host function, the loop run by the runtime.
 *===----------------------------------------------------------------------===*/
#include "graphc/descriptor.h"

#ifdef LOOP_CPU
/* The body on the host: acc += x * (iteration + 1), condition acc[0] < 50
 * (loop_kernels.cu.cpp's accumulate). */
static int accumulate_host(void *const *args, char *err, uint64_t err_len) {
  const float *x = (const float *)args[0];
  float *acc = (float *)args[1];
  const int64_t *state = (const int64_t *)args[2];
  unsigned char *go = (unsigned char *)args[3];
  (void)err;
  (void)err_len;
  for (int i = 0; i < 4; ++i)
    acc[i] += x[i] * (float)(state[0] + 1);
  *go = acc[0] < 50.0f;
  return 0;
}
#define TARGET GRAPHC_TARGET_CPU
#define BODY_KIND GRAPHC_STEP_HOST_CALL
#define BODY_FN accumulate_host
#define NUM_IMAGES 0
#else
#define TARGET GRAPHC_TARGET_CUDA
#define BODY_KIND GRAPHC_STEP_LAUNCH
#define BODY_FN 0
#define NUM_IMAGES 1
#endif

#ifdef LOOP_CPU
static const char loop_image[] = "";
#define IMAGE_SM 0
#define IMAGE_FORMAT GRAPHC_IMAGE_CUBIN
#elif defined(LOOP_FAKE_SM90)
static const char loop_image[] = "graphc-fake-image";
#define IMAGE_SM 90
#define IMAGE_FORMAT GRAPHC_IMAGE_CUBIN
#else
#include LOOP_IMAGE_HEADER
#define IMAGE_SM 0
#define IMAGE_FORMAT GRAPHC_IMAGE_HOST_EMULATION
#endif

static const int64_t weights[1] __attribute__((aligned(GRAPHC_ALIGNMENT))) = {
    2};

static const int64_t x_dims[] = {4};
static const int64_t n_dims[] = {1};
static const char *const names1[] = {""};
static const graphc_tensor_desc inputs[] = {{"x", 1, 1, x_dims, names1},
                                            {"n", 7, 1, n_dims, names1}};
static const graphc_tensor_desc outputs[] = {{"y", 1, 1, x_dims, names1}};
static const graphc_kernel_desc kernels[] = {
    {"loop_control", "loop_control", "Loop_1", 0x41, 0, .reports_errors = 1,
     .unit = 0},
    {"accumulate", "pointwise", "Add_2", 0x42, BODY_FN, .unit = 0}};
static const graphc_image_desc images[] = {
    {IMAGE_SM, IMAGE_FORMAT, loop_image, sizeof loop_image, 0}};

static const int64_t *const plan_inputs[] = {x_dims, n_dims};
static const int64_t *const plan_outputs[] = {x_dims};
static const graphc_buffer_ref copy_in_args[] = {
    {GRAPHC_BUFFER_INPUT, 0, 0, 16}, {GRAPHC_BUFFER_ARENA, 0, 0, 16}};
static const graphc_buffer_ref copy_out_args[] = {
    {GRAPHC_BUFFER_ARENA, 0, 0, 16}, {GRAPHC_BUFFER_OUTPUT, 0, 0, 16}};
#ifdef LOOP_NESTED
static const graphc_buffer_ref loop_args[] = {
    {GRAPHC_BUFFER_INPUT, 1, 0, 8},
    {GRAPHC_BUFFER_NONE, 0, 0, 0},
    {GRAPHC_BUFFER_ARENA, 0, 256, 16},
    {GRAPHC_BUFFER_NONE, 0, 0, 0}};
static const graphc_buffer_ref inner_args[] = {
    {GRAPHC_BUFFER_WEIGHTS, 0, 0, 8},
    {GRAPHC_BUFFER_NONE, 0, 0, 0},
    {GRAPHC_BUFFER_ARENA, 0, 768, 16},
    {GRAPHC_BUFFER_NONE, 0, 0, 0}};
#define BODY_STATE 768
#else
static const graphc_buffer_ref loop_args[] = {
    {GRAPHC_BUFFER_INPUT, 1, 0, 8},
    {GRAPHC_BUFFER_NONE, 0, 0, 0},
    {GRAPHC_BUFFER_ARENA, 0, 256, 16},
    {GRAPHC_BUFFER_ARENA, 0, 512, 1}};
#define BODY_STATE 256
#endif
static const graphc_buffer_ref accumulate_args[] = {
    {GRAPHC_BUFFER_INPUT, 0, 0, 16},
    {GRAPHC_BUFFER_ARENA, 0, 0, 16},
    {GRAPHC_BUFFER_ARENA, 0, BODY_STATE, 16},
    {GRAPHC_BUFFER_ARENA, 0, 512, 1}};
static const graphc_step_result_desc accumulate_results[] = {
    {1, 1, 1, x_dims, ""}};
static const graphc_step_result_desc copy_out_results[] = {
    {1, 1, 1, x_dims, "y"}};
static const graphc_step_desc steps[] = {
    {GRAPHC_STEP_COPY, -1, {0}, {0}, 0, 2, copy_in_args},
#ifdef LOOP_NESTED
    {GRAPHC_STEP_LOOP,
     0,
     {1, 1, 1},
     {1, 1, 1},
     0,
     4,
     loop_args,
     .body_steps = 2,
     .max_iterations = 8},
    {GRAPHC_STEP_LOOP,
     0,
     {1, 1, 1},
     {1, 1, 1},
     0,
     4,
     inner_args,
     .body_steps = 1,
     .max_iterations = 8},
#else
    {GRAPHC_STEP_LOOP,
     0,
     {1, 1, 1},
     {1, 1, 1},
     0,
     4,
     loop_args,
     .body_steps = 1,
     .max_iterations = 8},
#endif
    {BODY_KIND,
     1,
     {1, 1, 1},
     {4, 1, 1},
     0,
     4,
     accumulate_args,
     1,
     accumulate_results},
    {GRAPHC_STEP_COPY, -1, {0}, {0}, 0, 2, copy_out_args, 1, copy_out_results},
};
static const graphc_plan_desc plans[] = {
    {"static", plan_inputs, plan_outputs, 1024, 1024,
     sizeof steps / sizeof steps[0], steps}};

static const graphc_model_desc descriptor GRAPHC_DESCRIPTOR_PLACEMENT = {
    GRAPHC_ABI_VERSION,
    "graphc test",
    TARGET,
    2,
    inputs,
    1,
    outputs,
    1,
    plans,
    2,
    kernels,
    NUM_IMAGES,
    images,
    weights,
    8,
    0,
    0,
    .num_units = NUM_IMAGES,
};

__attribute__((visibility("default"))) const graphc_model_desc *
graphc_model_descriptor_v1(void) {
  return &descriptor;
}
