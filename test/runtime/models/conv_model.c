/*===- conv_model.c - library steps (cuDNN convolutions) for the runtime tests
 *
 * x: float32[2,4,7,6], z: float32[2,6,4,3], s: float32[2,3,12]
 *   -> y: float32[2,6,4,3], y1: float32[2,3,9]
 * (test/runtime/ConvTestSupport.h computes the same from the definition of
 * graphc_conv_desc):
 *   y  = relu(conv(x, W0) + b0 + z)   step 0, kernel conv_bias_z_relu: 2-d,
 *        2 groups, filter 3x2, strides 2x2, dilations 1x2, pads (1,0)
 *        before and (1,1) after
 *   t  = relu(conv(s, W1))            step 1, kernel conv1d_relu: 1-d,
 *        depthwise (3 groups), filter 4, dilation 2, pads 2 before and 1
 *        after; t lives in the arena
 *   y1 = t                            step 2, a copy
 * with weights W0: [6,2,3,2] and W1: [3,1,4] at 16-byte but not 256-byte
 * aligned offsets, b0: [6]. x and z are read from the inputs, y written
 * straight into the output.
 *
 * Variants (compile definitions):
 *   CONV_CUDA      a cuda model of library steps only (no image), runnable
 *                  on a real GPU; the convolutions share a 4 KiB arena
 *                  workspace
 *   CONV_EPILOGUE  with CONV_CUDA: both kernels also have an epilogue
 *                  kernel in the model's one image (the tests register
 *                  host functions of their names with the fake driver)
 *   CONV_CHANNELS_LAST  the same convolutions with their channels last:
 *                  x: [2,7,6,4], z and y: [2,4,3,6], s: [2,12,3],
 *                  y1: [2,9,3]; W0 [6,3,2,2] and W1 [3,4,1] (KRSC) are
 *                  the same bytes read in that layout
 *   CONV_BAD_LAYOUT  conv1d_relu's channels_last is 2, which names no
 *                  layout (the artifact reader refuses it)
 *   CONV_SILU      t = silu(conv(s, W1)) = x sigmoid(x) instead of the
 *                  ReLU, in kernel conv1d_silu
 *   CONV_PROBES    every step lists its result (ABI v14): y, t, y1
 *===----------------------------------------------------------------------===*/
#include "graphc/descriptor.h"

#define W0_AT(i) ((float)(((i) * 5) % 11 - 5) * 0.125f)
#define B0_AT(j) (0.25f * (float)(j) - 0.5f)
#define W1_AT(i) ((float)(((i) * 3) % 7 - 3) * 0.25f)
#define X4(F, i) F(i), F((i) + 1), F((i) + 2), F((i) + 3)
#define X12(F, i) X4(F, i), X4(F, (i) + 4), X4(F, (i) + 8)
#define X24(F, i) X12(F, i), X12(F, (i) + 12)

/* W0 at 16, b0 at 304, W1 at 336 (bytes). */
static const float weights[96] __attribute__((aligned(GRAPHC_ALIGNMENT))) = {
    0, 0, 0, 0,
    X24(W0_AT, 0), X24(W0_AT, 24), X24(W0_AT, 48),
    B0_AT(0), B0_AT(1), B0_AT(2), B0_AT(3), B0_AT(4), B0_AT(5), 0, 0,
    X12(W1_AT, 0),
};

#ifdef CONV_CUDA
#define TARGET GRAPHC_TARGET_CUDA
#define WORKSPACE {GRAPHC_BUFFER_ARENA, 0, 0, 4096}
#define T_OFFSET 4096
#define ARENA_BYTES 4352
#else
#define TARGET GRAPHC_TARGET_CPU
#define WORKSPACE {GRAPHC_BUFFER_NONE, 0, 0, 0}
#define T_OFFSET 0
#define ARENA_BYTES 256
#endif

#ifdef CONV_EPILOGUE
#define EPILOGUE_KERNEL 1
#define UNIT 0
#else
#define EPILOGUE_KERNEL 0
#define UNIT -1
#endif

#ifdef CONV_CHANNELS_LAST
#define CHANNELS_LAST 1
static const int64_t x_dims[] = {2, 7, 6, 4};
static const int64_t y_dims[] = {2, 4, 3, 6};
static const int64_t s_dims[] = {2, 12, 3};
static const int64_t y1_dims[] = {2, 9, 3};
#else
#define CHANNELS_LAST 0
static const int64_t x_dims[] = {2, 4, 7, 6};
static const int64_t y_dims[] = {2, 6, 4, 3};
static const int64_t s_dims[] = {2, 3, 12};
static const int64_t y1_dims[] = {2, 3, 9};
#endif
#ifdef CONV_BAD_LAYOUT
#define CONV1D_CHANNELS_LAST 2
#else
#define CONV1D_CHANNELS_LAST CHANNELS_LAST
#endif
#ifdef CONV_SILU
#define CONV1D_EPILOGUE GRAPHC_EPILOGUE_SILU
#define CONV1D_NAME "conv1d_silu"
#define CONV1D_NODES "Conv_3,Sigmoid_4,Mul_5"
#else
#define CONV1D_EPILOGUE GRAPHC_EPILOGUE_RELU
#define CONV1D_NAME "conv1d_relu"
#define CONV1D_NODES "Conv_3,Relu_4"
#endif
static const char *const names4[] = {"", "", "", ""};
static const graphc_tensor_desc inputs[] = {{"x", 1, 4, x_dims, names4},
                                            {"z", 1, 4, y_dims, names4},
                                            {"s", 1, 3, s_dims, names4}};
static const graphc_tensor_desc outputs[] = {{"y", 1, 4, y_dims, names4},
                                             {"y1", 1, 3, y1_dims, names4}};

/* Arguments X, W, bias, Z, Y, workspace. */
static const graphc_conv_desc conv_bias_z_relu = {
    .spatial_dims = 2, .n = 2, .c = 4, .k = 6, .groups = 2,
    .in_size = {7, 6}, .filter_size = {3, 2}, .out_size = {4, 3},
    .pads_begin = {1, 0}, .pads_end = {1, 1}, .strides = {2, 2},
    .dilations = {1, 2}, .epilogue = GRAPHC_EPILOGUE_RELU, .dtype = 1,
    .compute_dtype = 1, .x_arg = 0, .w_arg = 1, .bias_arg = 2, .z_arg = 3,
    .y_arg = 4, .workspace_arg = 5, .has_epilogue_kernel = EPILOGUE_KERNEL,
    .epilogue_grid = {1, 1, 1}, .epilogue_block = {144, 1, 1},
    .channels_last = CHANNELS_LAST};
/* Arguments X, W, Y, workspace. */
static const graphc_conv_desc conv1d = {
    .spatial_dims = 1, .n = 2, .c = 3, .k = 3, .groups = 3,
    .in_size = {12}, .filter_size = {4}, .out_size = {9}, .pads_begin = {2},
    .pads_end = {1}, .strides = {1}, .dilations = {2},
    .epilogue = CONV1D_EPILOGUE, .dtype = 1, .compute_dtype = 1,
    .x_arg = 0, .w_arg = 1, .bias_arg = -1, .z_arg = -1, .y_arg = 2,
    .workspace_arg = 3, .has_epilogue_kernel = EPILOGUE_KERNEL,
    .epilogue_grid = {1, 1, 1}, .epilogue_block = {54, 1, 1},
    .channels_last = CONV1D_CHANNELS_LAST};

static const graphc_kernel_desc kernels[] = {
    {"conv_bias_z_relu", "conv", "Conv_0,Add_1,Relu_2", 0x51, 0, 13824, 2040,
     576, 1, GRAPHC_LIBRARY_CUDNN, 0, UNIT, &conv_bias_z_relu},
    {CONV1D_NAME, "conv", CONV1D_NODES, 0x52, 0, 432, 336, 216, 1,
     GRAPHC_LIBRARY_CUDNN, 0, UNIT, &conv1d},
};

#ifdef CONV_EPILOGUE
static const char image[] = "graphc-fake-image";
static const graphc_image_desc images[] = {
    {80, GRAPHC_IMAGE_CUBIN, image, sizeof(image), 0}};
#define NUM_IMAGES 1
#define IMAGES images
#define NUM_UNITS 1
#else
#define NUM_IMAGES 0
#define IMAGES 0
#define NUM_UNITS 0
#endif

static const int64_t *const plan_inputs[] = {x_dims, y_dims, s_dims};
static const int64_t *const plan_outputs[] = {y_dims, y1_dims};
static const graphc_buffer_ref y_args[] = {
    {GRAPHC_BUFFER_INPUT, 0, 0, 1344},
    {GRAPHC_BUFFER_WEIGHTS, 0, 16, 288},
    {GRAPHC_BUFFER_WEIGHTS, 0, 304, 24},
    {GRAPHC_BUFFER_INPUT, 1, 0, 576},
    {GRAPHC_BUFFER_OUTPUT, 0, 0, 576},
    WORKSPACE,
};
static const graphc_buffer_ref t_args[] = {
    {GRAPHC_BUFFER_INPUT, 2, 0, 288},
    {GRAPHC_BUFFER_WEIGHTS, 0, 336, 48},
    {GRAPHC_BUFFER_ARENA, 0, T_OFFSET, 216},
    WORKSPACE,
};
static const graphc_buffer_ref copy_args[] = {
    {GRAPHC_BUFFER_ARENA, 0, T_OFFSET, 216},
    {GRAPHC_BUFFER_OUTPUT, 1, 0, 216},
};
#ifdef CONV_PROBES
static const graphc_step_result_desc y_results[] = {{4, 1, 4, y_dims, "y"}};
static const graphc_step_result_desc t_results[] = {{2, 1, 3, y1_dims, "t"}};
static const graphc_step_result_desc copy_results[] = {
    {1, 1, 3, y1_dims, "y1"}};
#define RESULTS(NAME) , 1, NAME##_results
#else
#define RESULTS(NAME)
#endif
static const graphc_step_desc steps[] = {
    {GRAPHC_STEP_LIBRARY_CALL, 0, {0}, {0}, 0, 6, y_args RESULTS(y)},
    {GRAPHC_STEP_LIBRARY_CALL, 1, {0}, {0}, 0, 4, t_args RESULTS(t)},
    {GRAPHC_STEP_COPY, -1, {0}, {0}, 0, 2, copy_args RESULTS(copy)},
};
static const graphc_plan_desc plans[] = {
    {"static", plan_inputs, plan_outputs, ARENA_BYTES, 216,
     sizeof(steps) / sizeof(steps[0]), steps}};

static const graphc_model_desc descriptor GRAPHC_DESCRIPTOR_PLACEMENT = {
    GRAPHC_ABI_VERSION, "graphc test", TARGET,
    3, inputs, 2, outputs, 1, plans, 2, kernels, NUM_IMAGES, IMAGES,
    weights, sizeof(weights), 0, 0, .num_units = NUM_UNITS,
};

__attribute__((visibility("default"))) const graphc_model_desc *
graphc_model_descriptor_v1(void) {
  return &descriptor;
}
