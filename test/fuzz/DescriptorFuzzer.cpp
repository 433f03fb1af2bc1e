//===- DescriptorFuzzer.cpp - fuzzing the descriptor check ----------------===//
//
// Bytes drive the construction of a model descriptor: every table holds as
// many entries as its count says (what a reader of the artifact guarantees),
// while counts, kinds, indices, dims, offsets and sizes take any value,
// null pointers included. checkDescriptor must refuse what execution
// cannot trust without ever reading outside the tables, and a descriptor it
// accepts must give every plan tensor a byte size, every GEMM step operands
// as large as its GEMM spans, and every convolution step a shape that holds
// together and tensors of exactly its sizes, Y apart from the others, every
// attention step (cuda only) tensors whose every element lies inside its
// argument, O apart from what it reads and no two of its elements at one
// address; every GEMM an epilogue cuBLASLt has (not SiLU or the erf
// GELU), every convolution one cuDNN has (not the tanh GELU); and every
// data-dependent output dim an int64 extent slot in each plan's arena.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/DescriptorCheck.h"

#include "graphc/runtime.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <limits>
#include <string>
#include <vector>

namespace {
int hostFunction(void *const *, char *, uint64_t) {
  std::fprintf(stderr, "checkDescriptor called a host function\n");
  std::abort();
}

/// Builds one descriptor from the fuzzer's bytes and owns its storage.
class DescriptorBuilder {
public:
  explicit DescriptorBuilder(FuzzedDataProvider &bytes) : bytes(bytes) {}

  const graphc_model_desc &build() {
    desc.abi_version = GRAPHC_ABI_VERSION;
    desc.producer = "graphc fuzz";
    desc.target = bytes.ConsumeIntegralInRange<int32_t>(-1, 2);
    desc.inputs = tensors(desc.num_inputs);
    desc.outputs = tensors(desc.num_outputs);
    desc.num_kernels = count();
    desc.kernels = table(kernels, desc.num_kernels, [&](graphc_kernel_desc &k) {
      k.name = string();
      k.kind = "pointwise";
      k.onnx_nodes = "";
      k.host_fn = bytes.ConsumeBool() ? hostFunction : nullptr;
      k.library = bytes.ConsumeIntegralInRange<int32_t>(-1, 3);
      k.gemm = bytes.ConsumeBool() ? gemm() : nullptr;
      k.unit = bytes.ConsumeIntegralInRange<int32_t>(-1, 3);
      k.conv = bytes.ConsumeBool() ? conv() : nullptr;
      k.sdpa = bytes.ConsumeBool() ? sdpa() : nullptr;
    });
    desc.num_images = count();
    desc.images = table(images, desc.num_images, [&](graphc_image_desc &i) {
      i.sm = bytes.ConsumeIntegral<int32_t>();
      i.format = bytes.ConsumeIntegral<int32_t>();
      i.size = bytes.ConsumeIntegralInRange<uint64_t>(0, 64);
      i.data = bytes.ConsumeBool() ? buffer(i.size) : nullptr;
      i.unit = bytes.ConsumeIntegralInRange<int32_t>(-1, 3);
    });
    desc.num_units = bytes.ConsumeIntegralInRange<int32_t>(-1, 4);
    // Embedded weights are as large as the descriptor says; the size of
    // appended ones and of a side file is not bounded by anything in memory.
    switch (bytes.ConsumeIntegralInRange<int>(0, 2)) {
    case 0:
      desc.weights_size = bytes.ConsumeIntegralInRange<uint64_t>(0, 1024);
      desc.weights = buffer(desc.weights_size);
      break;
    case 1:
      desc.weights_size = size();
      desc.weights_file = string();
      break;
    default:
      desc.weights_size = size();
      desc.weights_offset = size();
      break;
    }
    desc.num_plans = count();
    desc.plans = table(plans, desc.num_plans, [&](graphc_plan_desc &p) {
      p.name = string();
      p.input_dims = planDims(desc.inputs, desc.num_inputs);
      p.output_dims = planDims(desc.outputs, desc.num_outputs);
      p.arena_bytes = size();
      p.output_extents = outputExtents(p.arena_bytes);
      p.num_steps = count();
      p.steps = table(steps, p.num_steps, [&](graphc_step_desc &s) {
        s.kind = bytes.ConsumeIntegralInRange<int32_t>(-1, 3);
        s.kernel = bytes.ConsumeIntegralInRange<int32_t>(-1, 4);
        // Convolution steps are accepted only with tensors of exactly
        // their bytes: often give them those.
        const graphc_conv_desc *conv =
            desc.kernels && s.kernel >= 0 && s.kernel < desc.num_kernels
                ? desc.kernels[s.kernel].conv
                : nullptr;
        bool fitted = conv && conv->workspace_arg >= 0 &&
                      conv->workspace_arg < 8 && bytes.ConsumeBool();
        s.num_args = fitted ? conv->workspace_arg + 1 : count();
        s.args = table(args, s.num_args, [&](graphc_buffer_ref &r) {
          r.kind = bytes.ConsumeIntegralInRange<int32_t>(-1, 5);
          r.index = bytes.ConsumeIntegralInRange<int32_t>(-1, 4);
          r.offset = size();
          r.size = size();
        });
        if (fitted && s.args)
          fitConvolution(*conv, args.back());
        s.results = stepResults(s.num_results);
      });
    });
    return desc;
  }

  /// The model frame of the library-step builders: two inputs and an output
  /// of 4096 bytes each (uint8), and one kernel `name` of `kind` in the
  /// kernel table, whose library is mostly `library` and now and then any
  /// value. The caller fills in the kernel's record and unit.
  graphc_kernel_desc &oneLibraryKernel(const char *name, const char *kind,
                                       int32_t library) {
    static const int64_t dims[] = {4096};
    static const char *const names[] = {""};
    desc.abi_version = GRAPHC_ABI_VERSION;
    desc.producer = "graphc fuzz";
    desc.target = bytes.ConsumeBool() ? GRAPHC_TARGET_CUDA : GRAPHC_TARGET_CPU;
    std::vector<graphc_tensor_desc> &io =
        tensorTables.emplace_back(3, graphc_tensor_desc{});
    const char *ioNames[] = {"x", "z", "y"};
    for (int i = 0; i < 3; ++i)
      io[i] = {ioNames[i], 2, 1, dims, names, 0};
    desc.num_inputs = 2;
    desc.inputs = io.data();
    desc.num_outputs = 1;
    desc.outputs = io.data() + 2;
    std::vector<graphc_kernel_desc> &table = kernels.emplace_back(1);
    graphc_kernel_desc &kernel = table[0];
    kernel.name = name;
    kernel.kind = kind;
    kernel.onnx_nodes = "";
    kernel.library = bytes.ConsumeIntegralInRange<int>(0, 7)
                         ? library
                         : bytes.ConsumeIntegralInRange<int32_t>(-1, 3);
    desc.num_kernels = 1;
    desc.kernels = table.data();
    return kernel;
  }

  /// A library step's argument count: mostly up to its record's workspace
  /// argument, now and then any.
  int32_t argumentCount(int32_t workspaceArg) {
    return workspaceArg >= 0 && workspaceArg < 8 &&
                   bytes.ConsumeIntegralInRange<int>(0, 7)
               ? workspaceArg + 1
               : count();
  }

  /// Completes the model with one plan of one library step of kernel 0.
  const graphc_model_desc &withOneStepPlan(int32_t numArgs,
                                           std::vector<graphc_buffer_ref> &refs) {
    static const int64_t dims[] = {4096};
    static const int64_t *const planDims[] = {dims, dims};
    std::vector<graphc_step_desc> &step = steps.emplace_back(1);
    step[0] = {GRAPHC_STEP_LIBRARY_CALL, 0, {0}, {0}, 0, numArgs, refs.data()};
    step[0].results = stepResults(step[0].num_results);
    std::vector<graphc_plan_desc> &plan = plans.emplace_back(1);
    plan[0] = {"plan", planDims, planDims + 1, 8192, 0, 1, step.data()};
    desc.num_plans = 1;
    desc.plans = plan.data();
    return desc;
  }

  /// A valid model around one library step of a fuzzed convolution record
  /// and fuzzed (often fitted) arguments: the convolution checks decide,
  /// and they accept often enough for the properties to be checked.
  const graphc_model_desc &buildConvolutionStep() {
    graphc_kernel_desc &kernel =
        oneLibraryKernel("conv", "conv", GRAPHC_LIBRARY_CUDNN);
    kernel.conv = conv();
    kernel.unit = bytes.ConsumeIntegralInRange<int32_t>(-1, 1);
    if (bytes.ConsumeBool()) {
      std::vector<graphc_image_desc> &image = images.emplace_back(1);
      image[0] = {80, GRAPHC_IMAGE_CUBIN, buffer(16), 16, 0};
      desc.num_images = 1;
      desc.images = image.data();
      desc.num_units = 1;
    }
    desc.weights_size = 4096;
    desc.weights = buffer(desc.weights_size);
    const graphc_conv_desc &c = *kernel.conv;
    int32_t numArgs = argumentCount(c.workspace_arg);
    std::vector<graphc_buffer_ref> &refs =
        args.emplace_back(std::max(numArgs, 0), graphc_buffer_ref{});
    for (graphc_buffer_ref &ref : refs) {
      ref.kind = bytes.ConsumeIntegralInRange<int32_t>(0, 4);
      // Inputs 0 and 1, output 0.
      ref.index = ref.kind == GRAPHC_BUFFER_INPUT
                      ? bytes.ConsumeIntegralInRange<int32_t>(0, 1)
                      : 0;
      ref.offset = bytes.ConsumeIntegralInRange<uint64_t>(0, 4096);
      ref.size = bytes.ConsumeIntegralInRange<uint64_t>(0, 4096);
    }
    if (bytes.ConsumeIntegralInRange<int>(0, 3))
      fitConvolution(c, refs);
    return withOneStepPlan(numArgs, refs);
  }

  /// A valid model around one library step of a fuzzed (often consistent)
  /// attention record, its arguments the packed projection (input x), the
  /// bias (weights), O (output y), the workspace (arena), now and then any
  /// reference: the attention checks decide.
  const graphc_model_desc &buildSdpaStep() {
    graphc_kernel_desc &kernel =
        oneLibraryKernel("attention", "attention", GRAPHC_LIBRARY_CUDNN);
    kernel.sdpa = sdpa();
    kernel.unit = bytes.ConsumeIntegralInRange<int>(0, 7)
                      ? 0
                      : bytes.ConsumeIntegralInRange<int32_t>(-1, 1);
    if (bytes.ConsumeIntegralInRange<int>(0, 3)) {
      desc.target = GRAPHC_TARGET_CUDA;
      std::vector<graphc_image_desc> &image = images.emplace_back(1);
      image[0] = {80, GRAPHC_IMAGE_CUBIN, buffer(16), 16, 0};
      desc.num_images = 1;
      desc.images = image.data();
      desc.num_units = 1;
    }
    desc.weights_size = 4096;
    desc.weights = buffer(desc.weights_size);
    const graphc_sdpa_desc &a = *kernel.sdpa;
    int32_t numArgs = argumentCount(a.workspace_arg);
    const graphc_buffer_ref layout[] = {{GRAPHC_BUFFER_INPUT, 0, 0, 4096},
                                        {GRAPHC_BUFFER_WEIGHTS, 0, 0, 4096},
                                        {GRAPHC_BUFFER_OUTPUT, 0, 0, 4096},
                                        {GRAPHC_BUFFER_ARENA, 0, 0, 4096}};
    std::vector<graphc_buffer_ref> &refs =
        args.emplace_back(std::max(numArgs, 0), graphc_buffer_ref{});
    for (size_t i = 0; i < refs.size(); ++i) {
      refs[i] = layout[std::min<size_t>(i, 3)];
      if (bytes.ConsumeIntegralInRange<int>(0, 7))
        continue;
      refs[i].kind = bytes.ConsumeIntegralInRange<int32_t>(0, 4);
      refs[i].index = refs[i].kind == GRAPHC_BUFFER_INPUT
                          ? bytes.ConsumeIntegralInRange<int32_t>(0, 1)
                          : 0;
      refs[i].offset = bytes.ConsumeIntegralInRange<uint64_t>(0, 4096);
      refs[i].size = bytes.ConsumeIntegralInRange<uint64_t>(0, 4096);
    }
    return withOneStepPlan(numArgs, refs);
  }

  /// A valid model around one library step of a fuzzed (often consistent)
  /// GEMM record, its arguments in the order A (weights), B (input x), C
  /// (input z), bias (weights), D (output y), then the workspace (arena),
  /// each 4096 bytes and now and then any reference: the GEMM checks decide.
  const graphc_model_desc &buildGemmStep() {
    graphc_kernel_desc &kernel =
        oneLibraryKernel("gemm", "matmul", GRAPHC_LIBRARY_CUBLASLT);
    kernel.gemm = stepGemm();
    kernel.unit = -1;
    desc.weights_size = 8192;
    desc.weights = buffer(desc.weights_size);
    const graphc_gemm_desc &g = *kernel.gemm;
    int32_t numArgs = argumentCount(g.workspace_arg);
    const graphc_buffer_ref layout[] = {{GRAPHC_BUFFER_WEIGHTS, 0, 0, 4096},
                                        {GRAPHC_BUFFER_INPUT, 0, 0, 4096},
                                        {GRAPHC_BUFFER_INPUT, 1, 0, 4096},
                                        {GRAPHC_BUFFER_WEIGHTS, 0, 4096, 4096},
                                        {GRAPHC_BUFFER_OUTPUT, 0, 0, 4096},
                                        {GRAPHC_BUFFER_ARENA, 0, 0, 4096}};
    std::vector<graphc_buffer_ref> &refs =
        args.emplace_back(std::max(numArgs, 0), graphc_buffer_ref{});
    for (size_t i = 0; i < refs.size(); ++i) {
      refs[i] = layout[std::min<size_t>(i, 5)];
      if (bytes.ConsumeIntegralInRange<int>(0, 7))
        continue;
      refs[i].kind = bytes.ConsumeIntegralInRange<int32_t>(0, 4);
      refs[i].index = refs[i].kind == GRAPHC_BUFFER_INPUT
                          ? bytes.ConsumeIntegralInRange<int32_t>(0, 1)
                          : 0;
      refs[i].offset = bytes.ConsumeIntegralInRange<uint64_t>(0, 4096);
      refs[i].size = bytes.ConsumeIntegralInRange<uint64_t>(0, 4096);
    }
    return withOneStepPlan(numArgs, refs);
  }

private:
  /// A table size: usually small, sometimes negative.
  int32_t count() { return bytes.ConsumeIntegralInRange<int32_t>(-1, 4); }

  /// Sizes and offsets, biased towards the edges of the arithmetic.
  uint64_t size() {
    switch (bytes.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return bytes.ConsumeIntegralInRange<uint64_t>(0, 4096);
    case 1:
      return std::numeric_limits<uint64_t>::max() -
             bytes.ConsumeIntegralInRange<uint64_t>(0, 4096);
    default:
      return bytes.ConsumeIntegral<uint64_t>();
    }
  }

  int64_t dim() {
    switch (bytes.ConsumeIntegralInRange<int>(0, 2)) {
    case 0:
      return bytes.ConsumeIntegralInRange<int64_t>(-2, 8);
    case 1:
      return int64_t(1) << bytes.ConsumeIntegralInRange<int>(0, 62);
    default:
      return bytes.ConsumeIntegral<int64_t>();
    }
  }

  /// A GEMM record: small shapes mostly, any value sometimes.
  const graphc_gemm_desc *gemm() {
    graphc_gemm_desc &g = gemms.emplace_back();
    g.trans_a = bytes.ConsumeIntegralInRange<int32_t>(-1, 2);
    g.trans_b = bytes.ConsumeIntegralInRange<int32_t>(-1, 2);
    for (int64_t *field : {&g.m, &g.n, &g.k, &g.batch, &g.lda, &g.ldb, &g.ldc,
                           &g.stride_a, &g.stride_b, &g.stride_c})
      *field = dim();
    g.alpha = bytes.ConsumeFloatingPoint<double>();
    g.beta = bytes.ConsumeBool() ? 0.0 : bytes.ConsumeFloatingPoint<double>();
    // Past GRAPHC_EPILOGUE_GELU_ERF, a convolution's, by one.
    g.epilogue = bytes.ConsumeIntegralInRange<int32_t>(-1, 5);
    g.dtype = bytes.ConsumeIntegralInRange<int32_t>(-1, 17);
    g.compute_dtype = bytes.ConsumeIntegralInRange<int32_t>(-1, 17);
    for (int32_t *arg : {&g.a_arg, &g.b_arg, &g.c_arg, &g.bias_arg, &g.d_arg,
                         &g.workspace_arg})
      *arg = bytes.ConsumeIntegralInRange<int32_t>(-2, 6);
    return &g;
  }

  /// A GEMM record for buildGemmStep: half the time a small, consistent one
  /// (arguments A, B, C, bias, D, workspace) whose fields each take any
  /// value now and then, its epilogue any of the four (SiLU too, which a
  /// GEMM may not have); otherwise gemm()'s.
  const graphc_gemm_desc *stepGemm() {
    if (bytes.ConsumeBool())
      return gemm();
    graphc_gemm_desc &g = gemms.emplace_back();
    auto pick = [&](int64_t valid, int64_t anyLow, int64_t anyHigh) {
      if (bytes.ConsumeIntegralInRange<int>(0, 15))
        return valid;
      return bytes.ConsumeIntegralInRange<int64_t>(anyLow, anyHigh);
    };
    auto small = [&](int64_t low, int64_t high) {
      return bytes.ConsumeIntegralInRange<int64_t>(low, high);
    };
    g.trans_a = int32_t(pick(small(0, 1), -1, 2));
    g.trans_b = int32_t(pick(small(0, 1), -1, 2));
    for (int64_t *size : {&g.m, &g.n, &g.k, &g.batch})
      *size = pick(small(1, 4), -1, 8);
    const int64_t rowsA = g.trans_a ? g.k : g.m, colsA = g.trans_a ? g.m : g.k;
    const int64_t rowsB = g.trans_b ? g.n : g.k, colsB = g.trans_b ? g.k : g.n;
    g.lda = pick(colsA + small(0, 1), -1, 8);
    g.ldb = pick(colsB + small(0, 1), -1, 8);
    g.ldc = pick(g.n + small(0, 1), -1, 8);
    // 0: every batch index reads one matrix.
    g.stride_a = pick(bytes.ConsumeBool() ? rowsA * g.lda : 0, -1, 64);
    g.stride_b = pick(bytes.ConsumeBool() ? rowsB * g.ldb : 0, -1, 64);
    g.stride_c = pick(g.m * g.ldc, -1, 64);
    const bool hasC = bytes.ConsumeBool();
    g.alpha = bytes.ConsumeIntegralInRange<int>(0, 15)
                  ? 1.0
                  : bytes.ConsumeFloatingPoint<double>();
    // beta != 0 exactly when there is a C, mostly.
    g.beta = pick(hasC, 0, 1) ? 1.0 : 0.0;
    const int32_t epilogues[] = {
        GRAPHC_EPILOGUE_NONE, GRAPHC_EPILOGUE_RELU, GRAPHC_EPILOGUE_GELU_TANH,
        GRAPHC_EPILOGUE_SILU, GRAPHC_EPILOGUE_GELU_ERF};
    g.epilogue = int32_t(pick(epilogues[small(0, 4)], -1, 5));
    const int32_t dtypes[] = {1, 10, 16};
    g.dtype = int32_t(pick(dtypes[small(0, 2)], -1, 17));
    g.compute_dtype = int32_t(pick(1, -1, 17));
    g.a_arg = int32_t(pick(0, -2, 6));
    g.b_arg = int32_t(pick(1, -2, 6));
    g.c_arg = int32_t(pick(hasC ? 2 : -1, -2, 6));
    g.bias_arg = int32_t(pick(bytes.ConsumeBool() ? 3 : -1, -2, 6));
    g.d_arg = int32_t(pick(4, -2, 6));
    g.workspace_arg = int32_t(pick(5, -2, 6));
    g.algo_rank = int32_t(pick(small(0, 7), -1, GRAPHC_MAX_ALGO_RANKS));
    g.tf32 = int32_t(pick(g.dtype == 1 ? small(0, 1) : 0, -1, 2));
    g.split_k = int32_t(pick(bytes.ConsumeBool() ? 0 : small(2, 16), -1,
                             GRAPHC_MAX_SPLIT_K + 1));
    g.tuned = int32_t(pick(small(0, 1), -1, 2));
    return &g;
  }

  /// A convolution record: half the time a small, consistent one whose
  /// fields each take any value now and then, otherwise any values with
  /// often an out_size from the formula.
  const graphc_conv_desc *conv() {
    graphc_conv_desc &c = convs.emplace_back();
    bool consistent = bytes.ConsumeBool();
    // In a consistent record, `valid` mostly; otherwise `any`.
    auto pick = [&](int32_t valid, int32_t anyLow, int32_t anyHigh) {
      if (consistent && bytes.ConsumeIntegralInRange<int>(0, 15))
        return valid;
      return bytes.ConsumeIntegralInRange<int32_t>(anyLow, anyHigh);
    };
    if (consistent) {
      c.spatial_dims = bytes.ConsumeIntegralInRange<int32_t>(1, 3);
      c.groups = bytes.ConsumeIntegralInRange<int64_t>(1, 2);
      c.n = bytes.ConsumeIntegralInRange<int64_t>(1, 2);
      c.c = c.groups * bytes.ConsumeIntegralInRange<int64_t>(1, 2);
      c.k = c.groups * bytes.ConsumeIntegralInRange<int64_t>(1, 2);
      for (int i = 0; i < c.spatial_dims; ++i) {
        c.in_size[i] = bytes.ConsumeIntegralInRange<int64_t>(1, 5);
        c.filter_size[i] = bytes.ConsumeIntegralInRange<int64_t>(1, 3);
        c.pads_begin[i] = bytes.ConsumeIntegralInRange<int64_t>(0, 2);
        c.pads_end[i] = bytes.ConsumeIntegralInRange<int64_t>(0, 2);
        c.strides[i] = bytes.ConsumeIntegralInRange<int64_t>(1, 2);
        c.dilations[i] = bytes.ConsumeIntegralInRange<int64_t>(1, 2);
      }
    } else {
      c.spatial_dims = bytes.ConsumeIntegralInRange<int32_t>(-1, 4);
      for (int64_t *field : {&c.n, &c.c, &c.k, &c.groups})
        *field = dim();
      for (int64_t *array : {c.in_size, c.filter_size, c.out_size, c.pads_begin,
                             c.pads_end, c.strides, c.dilations})
        for (int i = 0; i < GRAPHC_MAX_CONV_SPATIAL_DIMS; ++i)
          array[i] = bytes.ConsumeBool() ? 0 : dim();
    }
    if (consistent || bytes.ConsumeBool()) {
      for (int i = 0; i < GRAPHC_MAX_CONV_SPATIAL_DIMS; ++i) {
        __int128 room =
            __int128(c.in_size[i]) + c.pads_begin[i] + c.pads_end[i] -
            __int128(c.dilations[i]) * (__int128(c.filter_size[i]) - 1) - 1;
        if (c.strides[i] > 0 && room >= 0 && room / c.strides[i] < INT64_MAX)
          c.out_size[i] = int64_t(room / c.strides[i] + 1);
      }
    }
    const int32_t dtypes[] = {1, 10, 16};
    const int32_t epilogues[] = {GRAPHC_EPILOGUE_NONE, GRAPHC_EPILOGUE_RELU,
                                 GRAPHC_EPILOGUE_SILU,
                                 GRAPHC_EPILOGUE_GELU_ERF};
    c.epilogue =
        pick(epilogues[bytes.ConsumeIntegralInRange<int>(0, 3)], -1, 5);
    c.dtype = pick(dtypes[bytes.ConsumeIntegralInRange<int>(0, 2)], -1, 17);
    c.compute_dtype = pick(1, -1, 17);
    c.tf32 = pick(
        c.dtype == 1 ? bytes.ConsumeIntegralInRange<int32_t>(0, 1) : 0, -1, 2);
    // X, W, bias, Z, Y, the workspace.
    c.x_arg = pick(0, -2, 6);
    c.w_arg = pick(1, -2, 6);
    c.bias_arg = pick(bytes.ConsumeBool() ? 2 : -1, -2, 6);
    c.z_arg = pick(bytes.ConsumeBool() ? 3 : -1, -2, 6);
    c.y_arg = pick(4, -2, 6);
    c.workspace_arg = pick(5, -2, 6);
    c.engine_rank = pick(bytes.ConsumeIntegralInRange<int32_t>(0, 7), -1,
                         GRAPHC_MAX_ALGO_RANKS);
    c.has_epilogue_kernel =
        pick(bytes.ConsumeIntegralInRange<int32_t>(0, 1), -1, 2);
    for (uint32_t *launch : {c.epilogue_grid, c.epilogue_block})
      for (int d = 0; d < 3; ++d)
        launch[d] = consistent && bytes.ConsumeIntegralInRange<int>(0, 15)
                        ? bytes.ConsumeIntegralInRange<uint32_t>(1, 8)
                    : bytes.ConsumeBool()
                        ? bytes.ConsumeIntegralInRange<uint32_t>(0, 2048)
                        : bytes.ConsumeIntegral<uint32_t>();
    c.channels_last = pick(bytes.ConsumeIntegralInRange<int32_t>(0, 1), -1, 2);
    c.tuned = pick(bytes.ConsumeIntegralInRange<int32_t>(0, 1), -1, 2);
    return &c;
  }

  /// An attention record: half the time a small, consistent one (Q, K and
  /// V parts of argument 0, [B, S, 3, H, D], the bias argument 1, O
  /// argument 2 as [B, S, H, D], the workspace 3) whose fields each take
  /// any value now and then (rarely: it has some fifty, and the checks
  /// should accept it often); otherwise any values.
  const graphc_sdpa_desc *sdpa() {
    graphc_sdpa_desc &a = sdpas.emplace_back();
    bool consistent = bytes.ConsumeBool();
    auto pick = [&](int64_t valid) {
      if (consistent && bytes.ConsumeIntegralInRange<int>(0, 63))
        return valid;
      return bytes.ConsumeBool() ? bytes.ConsumeIntegralInRange<int64_t>(-2, 9)
                                 : dim();
    };
    auto small = [&](int64_t low, int64_t high) {
      return bytes.ConsumeIntegralInRange<int64_t>(low, high);
    };
    const int64_t b = small(1, 2), kv = small(1, 2), h = kv * small(1, 2),
                  s = small(1, 4), d = 8 * small(1, 2);
    a.batch = pick(b);
    a.heads = pick(h);
    a.kv_heads = pick(kv);
    a.queries = pick(s);
    a.keys = pick(s);
    a.head_dim = pick(d);
    a.value_dim = pick(d);
    a.scale = bytes.ConsumeIntegralInRange<int>(0, 15)
                  ? 0.125
                  : bytes.ConsumeFloatingPoint<double>();
    a.is_causal = int32_t(pick(small(0, 1)));
    const int32_t dtypes[] = {10, 16};
    a.dtype = int32_t(pick(dtypes[small(0, 1)]));
    a.compute_dtype = int32_t(pick(1));
    const int64_t row = (h + 2 * kv) * d;
    a.q_arg = int32_t(pick(0));
    a.k_arg = int32_t(pick(0));
    a.v_arg = int32_t(pick(0));
    a.bias_arg = int32_t(pick(bytes.ConsumeBool() ? 1 : -1));
    a.o_arg = int32_t(pick(2));
    a.workspace_arg = int32_t(pick(3));
    a.engine_rank = int32_t(pick(small(0, 7)));
    a.q_offset = pick(0);
    a.k_offset = pick(h * d);
    a.v_offset = pick((h + kv) * d);
    a.o_offset = pick(0);
    a.bias_offset = pick(0);
    const int64_t packed[4] = {s * row, d, row, 1};
    const int64_t merged[4] = {s * h * d, d, h * d, 1};
    for (int i = 0; i < 4; ++i) {
      a.q_strides[i] = pick(packed[i]);
      a.k_strides[i] = pick(packed[i]);
      a.v_strides[i] = pick(packed[i]);
      a.o_strides[i] = pick(merged[i]);
    }
    const int64_t padding[4] = {b, 1, 1, s}, paddingStrides[4] = {s, 0, 0, 1};
    for (int i = 0; i < 4; ++i) {
      a.bias_dims[i] = pick(padding[i]);
      a.bias_strides[i] = pick(paddingStrides[i]);
    }
    for (uint32_t *launch : {a.fallback_grid, a.fallback_block})
      for (int i = 0; i < 3; ++i)
        launch[i] = consistent && bytes.ConsumeIntegralInRange<int>(0, 63)
                        ? bytes.ConsumeIntegralInRange<uint32_t>(1, 8)
                        : bytes.ConsumeIntegral<uint32_t>();
    a.fallback_shared_bytes = bytes.ConsumeIntegralInRange<uint32_t>(0, 65536);
    return &a;
  }

  /// Gives the tensors of `c` among `refs` its byte sizes (where they fit
  /// in 64 bits) at small offsets.
  void fitConvolution(const graphc_conv_desc &c,
                      std::vector<graphc_buffer_ref> &refs) {
    if (c.spatial_dims < 1 || c.spatial_dims > GRAPHC_MAX_CONV_SPATIAL_DIMS ||
        c.groups == 0)
      return;
    // Products of sizes up to 2^20 fit in 128 bits; larger ones are refused
    // anyway.
    constexpr int64_t kLimit = int64_t(1) << 20;
    for (int64_t size : {c.n, c.c, c.k})
      if (size < 0 || size > kLimit)
        return;
    for (int i = 0; i < c.spatial_dims; ++i)
      for (int64_t size : {c.in_size[i], c.filter_size[i], c.out_size[i]})
        if (size < 0 || size > kLimit)
          return;
    __int128 spatialIn = 1, spatialFilter = 1, spatialOut = 1;
    for (int i = 0; i < c.spatial_dims; ++i) {
      spatialIn *= c.in_size[i];
      spatialFilter *= c.filter_size[i];
      spatialOut *= c.out_size[i];
    }
    __int128 element = graphc_dtype_size(c.dtype);
    const struct {
      int32_t arg;
      __int128 bytes;
    } tensors[] = {
        {c.x_arg, __int128(c.n) * c.c * spatialIn * element},
        {c.w_arg, __int128(c.k) * (c.c / c.groups) * spatialFilter * element},
        {c.bias_arg, __int128(c.k) * element},
        {c.z_arg, __int128(c.n) * c.k * spatialOut * element},
        {c.y_arg, __int128(c.n) * c.k * spatialOut * element},
    };
    for (const auto &tensor : tensors) {
      if (tensor.arg < 0 || size_t(tensor.arg) >= refs.size() ||
          tensor.bytes < 0 || tensor.bytes > __int128(UINT64_MAX))
        continue;
      refs[tensor.arg].size = uint64_t(tensor.bytes);
      refs[tensor.arg].offset = bytes.ConsumeIntegralInRange<uint64_t>(0, 512);
    }
  }

  /// A step's results (graphc_step_result_desc): fuzzed arguments, dtypes
  /// and dims, whose bytes are often near an argument's.
  const graphc_step_result_desc *stepResults(int32_t &n) {
    n = count();
    return table(results, n, [&](graphc_step_result_desc &r) {
      r.arg = bytes.ConsumeIntegralInRange<int32_t>(-1, 6);
      r.dtype = bytes.ConsumeIntegralInRange<int32_t>(-1, 17);
      r.rank = bytes.ConsumeIntegralInRange<int32_t>(-1, 4);
      r.dims = dims(r.rank);
      r.onnx_tensor = bytes.ConsumeIntegralInRange<int>(0, 7) ? "" : nullptr;
    });
  }

  const char *string() {
    if (bytes.ConsumeBool())
      return nullptr;
    return strings.emplace_back(bytes.ConsumeRandomLengthString(16)).c_str();
  }

  const void *buffer(uint64_t size) {
    return buffers.emplace_back(size + 1, '\0').data();
  }

  const int64_t *dims(int32_t rank) {
    if (rank <= 0 || bytes.ConsumeIntegralInRange<int>(0, 7) == 0)
      return nullptr;
    std::vector<int64_t> &values = dimArrays.emplace_back(rank);
    for (int64_t &value : values)
      value = dim();
    return values.data();
  }

  /// A table of `n` entries filled by `fill`, or null when `n` <= 0 or the
  /// bytes say so.
  template <typename T, typename Fill>
  const T *table(std::deque<std::vector<T>> &storage, int32_t n, Fill fill) {
    if (n <= 0 || bytes.ConsumeIntegralInRange<int>(0, 15) == 0)
      return nullptr;
    std::vector<T> &entries = storage.emplace_back(n, T{});
    for (T &entry : entries)
      fill(entry);
    return entries.data();
  }

  const graphc_tensor_desc *tensors(int32_t &n) {
    n = count();
    return table(tensorTables, n, [&](graphc_tensor_desc &t) {
      t.name = string();
      t.dtype = bytes.ConsumeIntegralInRange<int32_t>(-1, 17);
      t.rank = bytes.ConsumeIntegralInRange<int32_t>(-1, 4);
      t.dims = dims(t.rank);
      // Named dims, and data-dependent ones (any flag values): a run reads
      // the extent of what the check accepts.
      t.dim_names = table(nameTables, t.rank,
                          [&](const char *&name) { name = string(); });
      t.data_dependent = table(flagTables, t.rank, [&](int32_t &flag) {
        flag = bytes.ConsumeIntegralInRange<int32_t>(-1, 2);
      });
    });
  }

  /// A plan's extent slots (graphc_plan_desc.output_extents): per output
  /// none or one reference per dim, often an int64 of the arena.
  const graphc_buffer_ref *const *outputExtents(uint64_t arenaBytes) {
    if (desc.num_outputs <= 0 || !desc.outputs ||
        bytes.ConsumeIntegralInRange<int>(0, 3) == 0)
      return nullptr;
    std::vector<const graphc_buffer_ref *> &entries =
        extentTables.emplace_back(desc.num_outputs);
    for (int32_t o = 0; o < desc.num_outputs; ++o)
      entries[o] = table(args, desc.outputs[o].rank, [&](graphc_buffer_ref &r) {
        r.kind = bytes.ConsumeIntegralInRange<int32_t>(-1, 5);
        r.index = bytes.ConsumeIntegralInRange<int32_t>(-1, 4);
        bool slot = bytes.ConsumeBool();
        r.offset =
            slot && arenaBytes >= 8
                ? bytes.ConsumeIntegralInRange<uint64_t>(0, arenaBytes - 8)
                : size();
        r.size = slot ? 8 : size();
      });
    return entries.data();
  }

  const int64_t *const *planDims(const graphc_tensor_desc *tensors,
                                 int32_t n) {
    if (n <= 0 || !tensors || bytes.ConsumeIntegralInRange<int>(0, 15) == 0)
      return nullptr;
    std::vector<const int64_t *> &entries = dimTables.emplace_back(n);
    for (int32_t i = 0; i < n; ++i)
      entries[i] = dims(tensors[i].rank);
    return entries.data();
  }

  FuzzedDataProvider &bytes;
  graphc_model_desc desc{};
  std::deque<std::string> strings;
  std::deque<std::vector<char>> buffers;
  std::deque<std::vector<int64_t>> dimArrays;
  std::deque<std::vector<const int64_t *>> dimTables;
  std::deque<std::vector<graphc_tensor_desc>> tensorTables;
  std::deque<std::vector<const char *>> nameTables;
  std::deque<std::vector<int32_t>> flagTables;
  std::deque<std::vector<const graphc_buffer_ref *>> extentTables;
  std::deque<std::vector<graphc_kernel_desc>> kernels;
  std::deque<graphc_gemm_desc> gemms;
  std::deque<graphc_conv_desc> convs;
  std::deque<graphc_sdpa_desc> sdpas;
  std::deque<std::vector<graphc_image_desc>> images;
  std::deque<std::vector<graphc_plan_desc>> plans;
  std::deque<std::vector<graphc_step_desc>> steps;
  std::deque<std::vector<graphc_buffer_ref>> args;
  std::deque<std::vector<graphc_step_result_desc>> results;
};

/// Every result of an accepted step is a present argument of it whose
/// bytes hold the result's, with a name: what a probing run copies.
void checkStepResults(const graphc_plan_desc &plan) {
  for (int32_t s = 0; s < plan.num_steps; ++s) {
    const graphc_step_desc &step = plan.steps[s];
    for (int32_t r = 0; r < step.num_results; ++r) {
      const graphc_step_result_desc &result = step.results[r];
      if (result.arg < 0 || result.arg >= step.num_args ||
          step.args[result.arg].kind == GRAPHC_BUFFER_NONE ||
          !result.onnx_tensor ||
          graphc::rt::stepResultBytes(result) > step.args[result.arg].size) {
        std::fprintf(stderr,
                     "checkDescriptor accepted step %d's result %d "
                     "outside its argument\n",
                     s, r);
        std::abort();
      }
    }
  }
}

/// An accepted plan's extent slots: each data-dependent dim of an output
/// an int64 in the arena (graphc_session_output_dims reads it there), at a
/// non-negative bound.
void checkOutputExtents(const graphc_model_desc &desc,
                        const graphc_plan_desc &plan) {
  for (int32_t o = 0; o < desc.num_outputs; ++o) {
    const graphc_tensor_desc &output = desc.outputs[o];
    for (int32_t d = 0; output.data_dependent && d < output.rank; ++d) {
      if (!output.data_dependent[d])
        continue;
      const graphc_buffer_ref *refs =
          plan.output_extents ? plan.output_extents[o] : nullptr;
      if (!refs || refs[d].kind != GRAPHC_BUFFER_ARENA || refs[d].size != 8 ||
          refs[d].offset % 8 || refs[d].offset > plan.arena_bytes ||
          plan.arena_bytes - refs[d].offset < 8 || plan.output_dims[o][d] < 0 ||
          output.dims[d] != -1 || !output.dim_names || !output.dim_names[d]) {
        std::fprintf(stderr,
                     "checkDescriptor accepted output %d dim %d without an "
                     "extent slot in the arena\n",
                     o, d);
        std::abort();
      }
    }
  }
}

/// A plan tensor of an accepted descriptor whose byte size overflows.
void checkPlanTensors(const graphc_tensor_desc *tensors, int32_t n,
                      const int64_t *const *dims) {
  for (int32_t i = 0; i < n; ++i) {
    if (graphc::rt::planTensorBytes(tensors[i], dims[i]) == UINT64_MAX) {
      std::fprintf(stderr, "checkDescriptor accepted a plan tensor whose size "
                           "overflows\n");
      std::abort();
    }
  }
}
/// Elements of a stored matrix, in 128 bits so that nothing wraps.
__int128 matrixElements(const graphc_gemm_desc &g, int64_t stride, int64_t rows,
                        int64_t ld, int64_t cols) {
  return __int128(g.batch - 1) * stride + __int128(rows - 1) * ld + cols;
}

[[noreturn]] void acceptedBadConv(const char *what) {
  std::fprintf(stderr, "checkDescriptor accepted a convolution step %s\n",
               what);
  std::abort();
}

/// An accepted convolution step: its shape holds together, its layout is
/// one of the two, every tensor is an argument before the workspace of
/// exactly its bytes (the same in either layout), and Y overlaps none of
/// the others (all computed in 128 bits, so nothing wraps).
void checkConvStep(const graphc_conv_desc &c, const graphc_step_desc &step) {
  if (c.spatial_dims < 1 || c.spatial_dims > GRAPHC_MAX_CONV_SPATIAL_DIMS)
    acceptedBadConv("with a spatial dim count out of range");
  if (c.channels_last != 0 && c.channels_last != 1)
    acceptedBadConv("with a layout that is neither channels first nor last");
  if (c.n < 1 || c.c < 1 || c.k < 1 || c.groups < 1 || c.c % c.groups ||
      c.k % c.groups)
    acceptedBadConv("with sizes or groups that do not hold together");
  if (c.workspace_arg != step.num_args - 1)
    acceptedBadConv("whose workspace is not its last argument");
  __int128 spatialIn = 1, spatialFilter = 1, spatialOut = 1;
  for (int i = 0; i < GRAPHC_MAX_CONV_SPATIAL_DIMS; ++i) {
    if (i >= c.spatial_dims) {
      if (c.in_size[i] || c.filter_size[i] || c.out_size[i] ||
          c.pads_begin[i] || c.pads_end[i] || c.strides[i] || c.dilations[i])
        acceptedBadConv("with entries past its spatial dims");
      continue;
    }
    if (c.strides[i] < 1 || c.dilations[i] < 1 || c.pads_begin[i] < 0 ||
        c.pads_end[i] < 0 || c.in_size[i] < 1 || c.filter_size[i] < 1)
      acceptedBadConv("with a spatial size, stride, dilation or pad out of "
                      "range");
    __int128 room =
        __int128(c.in_size[i]) + c.pads_begin[i] + c.pads_end[i] -
        __int128(c.dilations[i]) * (__int128(c.filter_size[i]) - 1) - 1;
    if (room < 0 || c.out_size[i] != room / c.strides[i] + 1)
      acceptedBadConv("whose out_size is not the formula's");
    spatialIn *= c.in_size[i];
    spatialFilter *= c.filter_size[i];
    spatialOut *= c.out_size[i];
  }
  __int128 element = graphc_dtype_size(c.dtype);
  const struct {
    int32_t arg;
    __int128 bytes;
  } tensors[] = {
      {c.x_arg, __int128(c.n) * c.c * spatialIn * element},
      {c.w_arg, __int128(c.k) * (c.c / c.groups) * spatialFilter * element},
      {c.bias_arg, __int128(c.k) * element},
      {c.z_arg, __int128(c.n) * c.k * spatialOut * element},
      {c.y_arg, __int128(c.n) * c.k * spatialOut * element},
  };
  for (const auto &tensor : tensors) {
    if (tensor.arg < 0)
      continue;
    if (tensor.arg >= step.num_args - 1 ||
        step.args[tensor.arg].kind == GRAPHC_BUFFER_NONE ||
        __int128(step.args[tensor.arg].size) != tensor.bytes)
      acceptedBadConv("with a tensor missing or of other bytes");
  }
  const graphc_buffer_ref &y = step.args[c.y_arg];
  for (const auto &tensor : tensors) {
    if (tensor.arg < 0 || tensor.arg == c.y_arg)
      continue;
    const graphc_buffer_ref &other = step.args[tensor.arg];
    bool indexed =
        y.kind == GRAPHC_BUFFER_INPUT || y.kind == GRAPHC_BUFFER_OUTPUT;
    bool sameBuffer =
        other.kind == y.kind && (!indexed || other.index == y.index);
    if (sameBuffer && other.size && y.size &&
        __int128(other.offset) < __int128(y.offset) + y.size &&
        __int128(y.offset) < __int128(other.offset) + other.size)
      acceptedBadConv("whose Y overlaps what it reads");
  }
}

[[noreturn]] void acceptedBadSdpa(const char *what) {
  std::fprintf(stderr, "checkDescriptor accepted an attention step %s\n", what);
  std::abort();
}

/// An accepted attention step: a cuda model's; every tensor an argument
/// before the workspace whose buffer holds its last element, O in the arena
/// or an output, apart from what it reads, its elements at distinct
/// addresses (all in 128 bits, so nothing wraps).
void checkSdpaStep(const graphc_model_desc &desc, const graphc_sdpa_desc &a,
                   const graphc_step_desc &step) {
  if (desc.target != GRAPHC_TARGET_CUDA)
    acceptedBadSdpa("in a cpu model");
  if (a.batch < 1 || a.heads < 1 || a.kv_heads < 1 || a.queries < 1 ||
      a.keys < 1 || a.head_dim < 1 || a.value_dim < 1 || a.heads % a.kv_heads)
    acceptedBadSdpa("with sizes that do not hold together");
  if (a.workspace_arg != step.num_args - 1)
    acceptedBadSdpa("whose workspace is not its last argument");
  const struct {
    int32_t arg;
    int64_t dims[4];
    int64_t offset;
    const int64_t *strides;
  } tensors[] = {
      {a.q_arg,
       {a.batch, a.heads, a.queries, a.head_dim},
       a.q_offset,
       a.q_strides},
      {a.k_arg,
       {a.batch, a.kv_heads, a.keys, a.head_dim},
       a.k_offset,
       a.k_strides},
      {a.v_arg,
       {a.batch, a.kv_heads, a.keys, a.value_dim},
       a.v_offset,
       a.v_strides},
      {a.bias_arg,
       {a.bias_dims[0], a.bias_dims[1], a.bias_dims[2], a.bias_dims[3]},
       a.bias_offset,
       a.bias_strides},
      {a.o_arg,
       {a.batch, a.heads, a.queries, a.value_dim},
       a.o_offset,
       a.o_strides},
  };
  __int128 element = graphc_dtype_size(a.dtype);
  for (const auto &tensor : tensors) {
    if (tensor.arg < 0)
      continue;
    __int128 last = tensor.offset;
    for (int i = 0; i < 4; ++i) {
      if (tensor.dims[i] < 1 || tensor.strides[i] < 0)
        acceptedBadSdpa("with a dim or stride out of range");
      last += __int128(tensor.dims[i] - 1) * tensor.strides[i];
    }
    if (tensor.offset < 0 || tensor.arg >= step.num_args - 1 ||
        step.args[tensor.arg].kind == GRAPHC_BUFFER_NONE ||
        __int128(step.args[tensor.arg].size) < (last + 1) * element)
      acceptedBadSdpa("with a tensor missing or past its argument");
  }
  const graphc_buffer_ref &o = step.args[a.o_arg];
  if (o.kind != GRAPHC_BUFFER_ARENA && o.kind != GRAPHC_BUFFER_OUTPUT)
    acceptedBadSdpa("writing O into the weights or an input");
  for (const auto &tensor : tensors) {
    if (tensor.arg < 0 || tensor.arg == a.o_arg)
      continue;
    const graphc_buffer_ref &other = step.args[tensor.arg];
    bool indexed =
        o.kind == GRAPHC_BUFFER_INPUT || o.kind == GRAPHC_BUFFER_OUTPUT;
    bool sameBuffer =
        other.kind == o.kind && (!indexed || other.index == o.index);
    if (sameBuffer && other.size && o.size &&
        __int128(other.offset) < __int128(o.offset) + o.size &&
        __int128(o.offset) < __int128(other.offset) + other.size)
      acceptedBadSdpa("whose O overlaps what it reads");
  }
  // O's elements at distinct addresses: by ascending stride, each dim of
  // more than one element steps past what the inner ones span.
  const auto &out = tensors[4];
  int order[4] = {0, 1, 2, 3};
  std::sort(order, order + 4,
            [&](int x, int y) { return out.strides[x] < out.strides[y]; });
  __int128 inner = 1;
  for (int i : order) {
    if (out.dims[i] == 1)
      continue;
    if (out.strides[i] < inner)
      acceptedBadSdpa("writing two elements of O at one address");
    inner += __int128(out.dims[i] - 1) * out.strides[i];
  }
}

/// Every GEMM and convolution record of an accepted descriptor has an
/// epilogue its library fuses: SiLU and the erf GELU are a convolution's
/// alone, the tanh GELU a GEMM's.
void checkEpilogues(const graphc_model_desc &desc) {
  for (int32_t k = 0; k < desc.num_kernels; ++k) {
    const graphc_kernel_desc &kernel = desc.kernels[k];
    int32_t gemm = kernel.gemm ? kernel.gemm->epilogue : GRAPHC_EPILOGUE_NONE;
    int32_t conv = kernel.conv ? kernel.conv->epilogue : GRAPHC_EPILOGUE_NONE;
    bool gemmFused = gemm == GRAPHC_EPILOGUE_NONE ||
                     gemm == GRAPHC_EPILOGUE_RELU ||
                     gemm == GRAPHC_EPILOGUE_GELU_TANH;
    bool convFused =
        conv == GRAPHC_EPILOGUE_NONE || conv == GRAPHC_EPILOGUE_RELU ||
        conv == GRAPHC_EPILOGUE_SILU || conv == GRAPHC_EPILOGUE_GELU_ERF;
    if (!gemmFused || !convFused) {
      std::fprintf(
          stderr, "checkDescriptor accepted kernel %d's %s of epilogue %d\n", k,
          gemmFused ? "convolution" : "GEMM", gemmFused ? conv : gemm);
      std::abort();
    }
  }
}

/// Every operand of an accepted library step is an argument before the
/// workspace and holds what its GEMM spans.
void checkLibrarySteps(const graphc_model_desc &desc,
                       const graphc_plan_desc &plan) {
  for (int32_t s = 0; s < plan.num_steps; ++s) {
    const graphc_step_desc &step = plan.steps[s];
    if (step.kind != GRAPHC_STEP_LIBRARY_CALL)
      continue;
    const graphc_kernel_desc &kernel = desc.kernels[step.kernel];
    if ((kernel.library == GRAPHC_LIBRARY_CUDNN) !=
            (kernel.conv != nullptr || kernel.sdpa != nullptr) ||
        (kernel.conv && kernel.sdpa) ||
        (kernel.library == GRAPHC_LIBRARY_CUBLASLT) != (kernel.gemm != nullptr))
      acceptedBadConv("of a kernel without exactly its library's record");
    if (kernel.sdpa) {
      checkSdpaStep(desc, *kernel.sdpa, step);
      continue;
    }
    if (kernel.conv) {
      checkConvStep(*kernel.conv, step);
      continue;
    }
    const graphc_gemm_desc &g = *kernel.gemm;
    __int128 element = graphc_dtype_size(g.dtype);
    const struct {
      int32_t arg;
      __int128 elements;
    } operands[] = {
        {g.a_arg, matrixElements(g, g.stride_a, g.trans_a ? g.k : g.m, g.lda,
                                 g.trans_a ? g.m : g.k)},
        {g.b_arg, matrixElements(g, g.stride_b, g.trans_b ? g.n : g.k, g.ldb,
                                 g.trans_b ? g.k : g.n)},
        {g.c_arg, matrixElements(g, g.stride_c, g.m, g.ldc, g.n)},
        {g.bias_arg, g.n},
        {g.d_arg, __int128(g.batch) * g.m * g.n},
    };
    for (const auto &operand : operands) {
      if (operand.arg < 0)
        continue;
      if (operand.arg >= step.num_args - 1 ||
          step.args[operand.arg].kind == GRAPHC_BUFFER_NONE ||
          __int128(step.args[operand.arg].size) < operand.elements * element) {
        std::fprintf(stderr,
                     "checkDescriptor accepted a library step whose "
                     "operand %d is missing or too small\n",
                     operand.arg);
        std::abort();
      }
    }
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider bytes(data, size);
  DescriptorBuilder builder(bytes);
  const int which = bytes.ConsumeIntegralInRange<int>(0, 5);
  const graphc_model_desc &desc = which == 0   ? builder.buildConvolutionStep()
                                  : which == 1 ? builder.buildGemmStep()
                                  : which == 2 ? builder.buildSdpaStep()
                                               : builder.build();
  if (!graphc::rt::checkDescriptor(desc).empty())
    return 0;
  checkEpilogues(desc);
  for (int32_t p = 0; p < desc.num_plans; ++p) {
    const graphc_plan_desc &plan = desc.plans[p];
    checkPlanTensors(desc.inputs, desc.num_inputs, plan.input_dims);
    checkPlanTensors(desc.outputs, desc.num_outputs, plan.output_dims);
    checkLibrarySteps(desc, plan);
    checkStepResults(plan);
    checkOutputExtents(desc, plan);
  }
  return 0;
}
