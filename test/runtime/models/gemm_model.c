/*===- gemm_model.c - library steps (cuBLASLt GEMMs) for the runtime tests -===*
 *
 * x: float32[2,3,4], c: float32[2,5,2] -> y: float32[2,5,2],
 * h2: float32[2,3,5]; per batch b (test/runtime/GemmModel.h computes the
 * same):
 *   t  = 2 x                               step 0, a generated kernel
 *   h  = relu(t W^T + b1)                  step 1, kernel gemm_relu_bias
 *   h2 = relu(t W^T + b2)                  step 2, the same kernel, other bias
 *   y  = gelu_tanh(0.5 h^T P + c)          step 3, kernel gemm_gelu_c
 * with weights W: 5x4 (B transposed, shared by both batches), b1, b2: 5,
 * P: 3x2 (shared), at 16-byte but not 256-byte aligned offsets. h lives in
 * the arena and is read transposed; h2 and y are written straight into the
 * outputs, and c is read from the input as C (beta 1).
 *
 * Variants (compile definitions):
 *   GEMM_CUDA          a cuda model: step 0 launches gemm_model_scale (the
 *                      tests register it with the fake driver), the GEMMs
 *                      get a 4 KiB arena workspace
 *   GEMM_LIBRARY_ONLY  with GEMM_CUDA: no step 0 (t = x) and no image,
 *                      runnable on a real GPU
 *   GEMM_DTYPE=N       the GEMMs' dtype (the cpu target refuses int32)
 *   GEMM_BAD_LIBRARY   kernel 1 names library 9, which does not exist
 *   GEMM_TUNED_RANK=N  kernel 2's GEMM was tuned: algorithm rank N, K split
 *                      in 2 (a tuning database's choice)
 *===----------------------------------------------------------------------===*/
#include "graphc/descriptor.h"

#ifndef GEMM_DTYPE
#define GEMM_DTYPE 1
#endif
#ifdef GEMM_TUNED_RANK
#define GELU_TUNING GEMM_TUNED_RANK, 0, 2, 1
#else
#define GELU_TUNING 0, 0, 0, 0
#endif
#ifdef GEMM_BAD_LIBRARY
#define RELU_LIBRARY 9
#else
#define RELU_LIBRARY GRAPHC_LIBRARY_CUBLASLT
#endif

#define W_AT(j, p) ((float)(((j) * 4 + (p)) % 7 - 3) * 0.25f)
#define B1_AT(j) (0.1f * (float)(j) - 0.2f)
#define B2_AT(j) (0.3f - 0.05f * (float)(j))
#define P_AT(p, j) ((float)((p) - (j)) * 0.5f + 0.25f)

/* W at 0, b1 at 80, b2 at 112, P at 144 (bytes). */
static const float weights[42] __attribute__((aligned(GRAPHC_ALIGNMENT))) = {
    W_AT(0, 0), W_AT(0, 1), W_AT(0, 2), W_AT(0, 3),
    W_AT(1, 0), W_AT(1, 1), W_AT(1, 2), W_AT(1, 3),
    W_AT(2, 0), W_AT(2, 1), W_AT(2, 2), W_AT(2, 3),
    W_AT(3, 0), W_AT(3, 1), W_AT(3, 2), W_AT(3, 3),
    W_AT(4, 0), W_AT(4, 1), W_AT(4, 2), W_AT(4, 3),
    B1_AT(0), B1_AT(1), B1_AT(2), B1_AT(3), B1_AT(4), 0, 0, 0,
    B2_AT(0), B2_AT(1), B2_AT(2), B2_AT(3), B2_AT(4), 0, 0, 0,
    P_AT(0, 0), P_AT(0, 1), P_AT(1, 0), P_AT(1, 1), P_AT(2, 0), P_AT(2, 1),
};

#ifdef GEMM_CUDA
#define TARGET GRAPHC_TARGET_CUDA
#define WORKSPACE {GRAPHC_BUFFER_ARENA, 0, 512, 4096}
#define ARENA_BYTES 4608
#else
#define TARGET GRAPHC_TARGET_CPU
#define WORKSPACE {GRAPHC_BUFFER_NONE, 0, 0, 0}
#define ARENA_BYTES 512
/* t = 2 x over 24 elements. */
static int scale(void *const *args, char *err, uint64_t err_len) {
  const float *x = args[0];
  float *t = args[1];
  (void)err, (void)err_len;
  for (int i = 0; i < 24; ++i)
    t[i] = 2.0f * x[i];
  return 0;
}
#endif

static const int64_t x_dims[] = {2, 3, 4};
static const int64_t c_dims[] = {2, 5, 2};
static const int64_t h2_dims[] = {2, 3, 5};
static const char *const names3[] = {"", "", ""};
static const graphc_tensor_desc inputs[] = {{"x", 1, 3, x_dims, names3},
                                            {"c", 1, 3, c_dims, names3}};
static const graphc_tensor_desc outputs[] = {{"y", 1, 3, c_dims, names3},
                                             {"h2", 1, 3, h2_dims, names3}};

/* h = relu(t W^T + bias): m 3, n 5, k 4; args A, B, bias, D, workspace. */
static const graphc_gemm_desc relu_bias = {
    0, 1, 3, 5, 4, 2, 4, 4, 0, 12, 0, 0, 1.0, 0.0,
    GRAPHC_EPILOGUE_RELU, GEMM_DTYPE, 1, 0, 1, -1, 2, 3, 4};
/* y = gelu_tanh(0.5 h^T P + c): m 5, n 2, k 3; args A, B, C, D, workspace. */
static const graphc_gemm_desc gelu_c = {
    1, 0, 5, 2, 3, 2, 5, 2, 2, 15, 0, 10, 0.5, 1.0,
    GRAPHC_EPILOGUE_GELU_TANH, GEMM_DTYPE, 1, 0, 1, 2, -1, 3, 4, GELU_TUNING};

static const graphc_kernel_desc kernels[] = {
#ifdef GEMM_CUDA
    {"gemm_model_scale", "pointwise", "Mul_0", 0x41, 0},
#else
    {"gemm_model_scale", "pointwise", "Mul_0", 0x41, scale},
#endif
    {"gemm_relu_bias", "matmul", "MatMul_1,Add_2,Relu_3", 0x42, 0, 240, 0, 0,
     1, RELU_LIBRARY, &relu_bias},
    {"gemm_gelu_c", "matmul", "MatMul_4,Add_5,Gelu_6", 0x43, 0, 120, 0, 0,
     1, GRAPHC_LIBRARY_CUBLASLT, &gelu_c},
};

#if defined(GEMM_CUDA) && !defined(GEMM_LIBRARY_ONLY)
static const char image[] = "graphc-fake-image";
static const graphc_image_desc images[] = {
    {80, GRAPHC_IMAGE_CUBIN, image, sizeof(image)}};
#define NUM_IMAGES 1
#define IMAGES images
#define NUM_UNITS 1
#else
#define NUM_IMAGES 0
#define IMAGES 0
#define NUM_UNITS 0
#endif

#ifdef GEMM_LIBRARY_ONLY
#define T_REF {GRAPHC_BUFFER_INPUT, 0, 0, 96}
#else
#define T_REF {GRAPHC_BUFFER_ARENA, 0, 0, 96}
#endif

static const int64_t *const plan_inputs[] = {x_dims, c_dims};
static const int64_t *const plan_outputs[] = {c_dims, h2_dims};
static const graphc_buffer_ref scale_args[] = {
    {GRAPHC_BUFFER_INPUT, 0, 0, 96},
    {GRAPHC_BUFFER_ARENA, 0, 0, 96},
};
static const graphc_buffer_ref h_args[] = {
    T_REF,
    {GRAPHC_BUFFER_WEIGHTS, 0, 0, 80},
    {GRAPHC_BUFFER_WEIGHTS, 0, 80, 20},
    {GRAPHC_BUFFER_ARENA, 0, 256, 120},
    WORKSPACE,
};
static const graphc_buffer_ref h2_args[] = {
    T_REF,
    {GRAPHC_BUFFER_WEIGHTS, 0, 0, 80},
    {GRAPHC_BUFFER_WEIGHTS, 0, 112, 20},
    {GRAPHC_BUFFER_OUTPUT, 1, 0, 120},
    WORKSPACE,
};
static const graphc_buffer_ref y_args[] = {
    {GRAPHC_BUFFER_ARENA, 0, 256, 120},
    {GRAPHC_BUFFER_WEIGHTS, 0, 144, 24},
    {GRAPHC_BUFFER_INPUT, 1, 0, 80},
    {GRAPHC_BUFFER_OUTPUT, 0, 0, 80},
    WORKSPACE,
};
static const graphc_step_desc steps[] = {
#ifndef GEMM_LIBRARY_ONLY
#ifdef GEMM_CUDA
    {GRAPHC_STEP_LAUNCH, 0, {1, 1, 1}, {24, 1, 1}, 0, 2, scale_args},
#else
    {GRAPHC_STEP_HOST_CALL, 0, {0}, {0}, 0, 2, scale_args},
#endif
#endif
    {GRAPHC_STEP_LIBRARY_CALL, 1, {0}, {0}, 0, 5, h_args},
    {GRAPHC_STEP_LIBRARY_CALL, 1, {0}, {0}, 0, 5, h2_args},
    {GRAPHC_STEP_LIBRARY_CALL, 2, {0}, {0}, 0, 5, y_args},
};
static const graphc_plan_desc plans[] = {
    {"static", plan_inputs, plan_outputs, ARENA_BYTES, 216,
     sizeof(steps) / sizeof(steps[0]), steps}};

static const graphc_model_desc descriptor GRAPHC_DESCRIPTOR_PLACEMENT = {
    GRAPHC_ABI_VERSION, "graphc test", TARGET,
    2, inputs, 2, outputs, 1, plans, 3, kernels, NUM_IMAGES, IMAGES,
    weights, sizeof(weights), 0, 0, .num_units = NUM_UNITS,
};

__attribute__((visibility("default"))) const graphc_model_desc *
graphc_model_descriptor_v1(void) {
  return &descriptor;
}
