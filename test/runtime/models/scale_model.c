/*===- scale_model.c - a hand-written cuda model for the runtime tests ----===*
 *
 * y = x * w for x: float32[2,3] and weights w = {2, 3, 4} broadcast along
 * the last dim: one PTX image (sm_80, JIT on newer GPUs) with one kernel,
 * launched as one block of six threads.
 *===----------------------------------------------------------------------===*/
#include "graphc/descriptor.h"

static const float weights[3] __attribute__((aligned(GRAPHC_ALIGNMENT))) = {
    2.0f, 3.0f, 4.0f};

/* y[i] = x[i] * w[i % 3]. */
static const char ptx[] =
    ".version 9.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    "\t// .globl\tscale_add\n"
    "\n"
    ".visible .entry scale_add(\n"
    "\t.param .u64 scale_add_param_0,\n"
    "\t.param .u64 scale_add_param_1,\n"
    "\t.param .u64 scale_add_param_2\n"
    ")\n"
    "{\n"
    "\t.reg .f32 \t%f<4>;\n"
    "\t.reg .b32 \t%r<8>;\n"
    "\t.reg .b64 \t%rd<14>;\n"
    "\n"
    "\n"
    "\tld.param.u64 \t%rd1, [scale_add_param_0];\n"
    "\tld.param.u64 \t%rd2, [scale_add_param_1];\n"
    "\tld.param.u64 \t%rd3, [scale_add_param_2];\n"
    "\tcvta.to.global.u64 \t%rd4, %rd3;\n"
    "\tcvta.to.global.u64 \t%rd5, %rd2;\n"
    "\tcvta.to.global.u64 \t%rd6, %rd1;\n"
    "\tmov.u32 \t%r1, %ctaid.x;\n"
    "\tmov.u32 \t%r2, %ntid.x;\n"
    "\tmov.u32 \t%r3, %tid.x;\n"
    "\tmad.lo.s32 \t%r4, %r1, %r2, %r3;\n"
    "\tmul.wide.u32 \t%rd7, %r4, 4;\n"
    "\tadd.s64 \t%rd8, %rd6, %rd7;\n"
    "\tld.global.f32 \t%f1, [%rd8];\n"
    "\tmul.wide.u32 \t%rd9, %r4, -1431655765;\n"
    "\tshr.u64 \t%rd10, %rd9, 33;\n"
    "\tcvt.u32.u64 \t%r5, %rd10;\n"
    "\tmul.lo.s32 \t%r6, %r5, 3;\n"
    "\tsub.s32 \t%r7, %r4, %r6;\n"
    "\tmul.wide.u32 \t%rd11, %r7, 4;\n"
    "\tadd.s64 \t%rd12, %rd5, %rd11;\n"
    "\tld.global.f32 \t%f2, [%rd12];\n"
    "\tmul.f32 \t%f3, %f1, %f2;\n"
    "\tadd.s64 \t%rd13, %rd4, %rd7;\n"
    "\tst.global.f32 \t[%rd13], %f3;\n"
    "\tret;\n"
    "\n"
    "}\n";

static const int64_t dims[] = {2, 3};
static const char *const dim_names[] = {"", ""};
static const graphc_tensor_desc inputs[] = {{"x", 1, 2, dims, dim_names}};
static const graphc_tensor_desc outputs[] = {{"y", 1, 2, dims, dim_names}};
static const graphc_kernel_desc kernels[] = {
    {"scale_add", "pointwise", "Mul_0", 0x31, 0}};
static const graphc_image_desc images[] = {{80, 1, ptx, sizeof(ptx)}};

static const int64_t *const plan_dims[] = {dims};
static const graphc_buffer_ref launch_args[] = {
    {GRAPHC_BUFFER_INPUT, 0, 0, 24},
    {GRAPHC_BUFFER_WEIGHTS, 0, 0, 12},
    {GRAPHC_BUFFER_OUTPUT, 0, 0, 24},
};
static const graphc_step_desc steps[] = {
    {GRAPHC_STEP_LAUNCH, 0, {1, 1, 1}, {6, 1, 1}, 0, 3, launch_args}};
static const graphc_plan_desc plans[] = {
    {"static", plan_dims, plan_dims, 0, 0, 1, steps}};

static const graphc_model_desc descriptor GRAPHC_DESCRIPTOR_PLACEMENT = {
    GRAPHC_ABI_VERSION, "graphc test", GRAPHC_TARGET_CUDA,
    1, inputs, 1, outputs, 1, plans, 1, kernels, 1, images,
    /* The checksum is written in after linking (seal-test-model). */
    weights, 12, 0, 0, .num_units = 1,
};

__attribute__((visibility("default"))) const graphc_model_desc *
graphc_model_descriptor_v1(void) {
  return &descriptor;
}
