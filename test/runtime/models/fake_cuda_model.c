/*===- fake_cuda_model.c - a cuda model for the fake driver's tests -------===*
 *
 * y[r] = (x * w)[r, idx[r]] for x: float32[2,3], idx: int64[2] and weights
 * w = {2, 3, 4} broadcast along the last dim: kernel fake_scale writes x * w
 * to the arena, kernel fake_gather picks one element per row. Their host
 * implementations are registered with the fake driver by the tests; the
 * image only carries the marker the fake loads. With FAKE_PTX the image is
 * sm_80 PTX of ISA 9.0 (CUDA 13.0) instead of an sm_80 cubin; FAKE_SM90,
 * FAKE_NO_REPORTS and FAKE_PROBES are described where they apply.
 *===----------------------------------------------------------------------===*/
#include "graphc/descriptor.h"

static const float weights[3] __attribute__((aligned(GRAPHC_ALIGNMENT))) = {
    2.0f, 3.0f, 4.0f};

#ifdef FAKE_PTX
static const char image[] = ".version 9.0\n.target sm_80\n"
                            "// graphc-fake-image\n";
#define IMAGE_IS_PTX 1
#else
static const char image[] = "graphc-fake-image";
#define IMAGE_IS_PTX 0
#endif

static const int64_t x_dims[] = {2, 3};
static const int64_t idx_dims[] = {2};
static const int64_t y_dims[] = {2};
static const char *const names2[] = {"", ""};
static const char *const names1[] = {""};
static const graphc_tensor_desc inputs[] = {{"x", 1, 2, x_dims, names2},
                                            {"idx", 7, 1, idx_dims, names1}};
static const graphc_tensor_desc outputs[] = {{"y", 1, 1, y_dims, names1}};
/* FAKE_NO_REPORTS: the gather does not say that it reports index errors,
 * so runs never read the error record back. */
#ifdef FAKE_NO_REPORTS
#define GATHER_REPORTS 0
#else
#define GATHER_REPORTS 1
#endif
static const graphc_kernel_desc kernels[] = {
    {"fake_scale", "pointwise", "Mul_0", 0x31, 0},
    {"fake_gather", "gather", "Gather_3", 0x32, 0,
     .reports_errors = GATHER_REPORTS}};
/* FAKE_SM90: an sm_90 cubin, whose kernels may be launched programmatically
 * on an SM 9.0 device. */
#ifdef FAKE_SM90
#define IMAGE_SM 90
#else
#define IMAGE_SM 80
#endif
static const graphc_image_desc images[] = {
    {IMAGE_SM, IMAGE_IS_PTX, image, sizeof(image)}};

static const int64_t *const plan_inputs[] = {x_dims, idx_dims};
static const int64_t *const plan_outputs[] = {y_dims};
static const graphc_buffer_ref scale_args[] = {
    {GRAPHC_BUFFER_INPUT, 0, 0, 24},
    {GRAPHC_BUFFER_WEIGHTS, 0, 0, 12},
    {GRAPHC_BUFFER_ARENA, 0, 0, 24},
};
static const graphc_buffer_ref gather_args[] = {
    {GRAPHC_BUFFER_ARENA, 0, 0, 24},
    {GRAPHC_BUFFER_INPUT, 1, 0, 16},
    {GRAPHC_BUFFER_OUTPUT, 0, 0, 8},
};
/* FAKE_PROBES: every step lists its result (ABI v14), and a third step
 * scales the arena's x * w in place by w again after the gather has read
 * it: probes of it after steps 0 and 2 hold x * w and x * w * w. */
#ifdef FAKE_PROBES
static const graphc_buffer_ref rescale_args[] = {
    {GRAPHC_BUFFER_ARENA, 0, 0, 24},
    {GRAPHC_BUFFER_WEIGHTS, 0, 0, 12},
    {GRAPHC_BUFFER_ARENA, 0, 0, 24},
};
static const graphc_step_result_desc scale_results[] = {
    {2, 1, 2, x_dims, "Mul_0_out"}};
static const graphc_step_result_desc gather_results[] = {
    {2, 1, 1, y_dims, "y"}};
static const graphc_step_result_desc rescale_results[] = {
    {2, 1, 2, x_dims, ""}};
#define RESULTS(NAME) , 1, NAME##_results
#define NUM_STEPS 3
#else
#define RESULTS(NAME)
#define NUM_STEPS 2
#endif
static const graphc_step_desc steps[] = {
    {GRAPHC_STEP_LAUNCH, 0, {1, 1, 1}, {6, 1, 1}, 0, 3, scale_args
     RESULTS(scale)},
    {GRAPHC_STEP_LAUNCH, 1, {1, 1, 1}, {2, 1, 1}, 0, 3, gather_args
     RESULTS(gather)},
#ifdef FAKE_PROBES
    {GRAPHC_STEP_LAUNCH, 0, {1, 1, 1}, {6, 1, 1}, 0, 3, rescale_args
     RESULTS(rescale)},
#endif
};
static const graphc_plan_desc plans[] = {
    {"static", plan_inputs, plan_outputs, 256, 24, NUM_STEPS, steps}};

static const graphc_model_desc descriptor GRAPHC_DESCRIPTOR_PLACEMENT = {
    GRAPHC_ABI_VERSION, "graphc test", GRAPHC_TARGET_CUDA,
    2, inputs, 1, outputs, 1, plans, 2, kernels, 1, images,
    weights, 12, 0, 0, .num_units = 1,
};

__attribute__((visibility("default"))) const graphc_model_desc *
graphc_model_descriptor_v1(void) {
  return &descriptor;
}
