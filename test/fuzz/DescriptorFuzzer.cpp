//===- DescriptorFuzzer.cpp - fuzzing the descriptor check ----------------===//
//
// Bytes drive the construction of a model descriptor: every table holds as
// many entries as its count says (what a reader of the artifact guarantees),
// while counts, kinds, indices, dims, offsets and sizes take any value,
// null pointers included. checkDescriptor must refuse what execution
// cannot trust without ever reading outside the tables, and a descriptor it
// accepts must give every plan tensor a byte size and every library step
// operands as large as its GEMM spans.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/DescriptorCheck.h"

#include "graphc/runtime.h"

#include <fuzzer/FuzzedDataProvider.h>

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
      k.library = bytes.ConsumeIntegralInRange<int32_t>(-1, 2);
      k.gemm = bytes.ConsumeBool() ? gemm() : nullptr;
      k.unit = bytes.ConsumeIntegralInRange<int32_t>(-1, 3);
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
      p.num_steps = count();
      p.steps = table(steps, p.num_steps, [&](graphc_step_desc &s) {
        s.kind = bytes.ConsumeIntegralInRange<int32_t>(-1, 3);
        s.kernel = bytes.ConsumeIntegralInRange<int32_t>(-1, 4);
        s.num_args = count();
        s.args = table(args, s.num_args, [&](graphc_buffer_ref &r) {
          r.kind = bytes.ConsumeIntegralInRange<int32_t>(-1, 5);
          r.index = bytes.ConsumeIntegralInRange<int32_t>(-1, 4);
          r.offset = size();
          r.size = size();
        });
      });
    });
    return desc;
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
    g.epilogue = bytes.ConsumeIntegralInRange<int32_t>(-1, 3);
    g.dtype = bytes.ConsumeIntegralInRange<int32_t>(-1, 17);
    g.compute_dtype = bytes.ConsumeIntegralInRange<int32_t>(-1, 17);
    for (int32_t *arg : {&g.a_arg, &g.b_arg, &g.c_arg, &g.bias_arg, &g.d_arg,
                         &g.workspace_arg})
      *arg = bytes.ConsumeIntegralInRange<int32_t>(-2, 6);
    return &g;
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
      t.dim_names = nullptr;
    });
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
  std::deque<std::vector<graphc_kernel_desc>> kernels;
  std::deque<graphc_gemm_desc> gemms;
  std::deque<std::vector<graphc_image_desc>> images;
  std::deque<std::vector<graphc_plan_desc>> plans;
  std::deque<std::vector<graphc_step_desc>> steps;
  std::deque<std::vector<graphc_buffer_ref>> args;
};

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

/// Every operand of an accepted library step is an argument before the
/// workspace and holds what its GEMM spans.
void checkLibrarySteps(const graphc_model_desc &desc,
                       const graphc_plan_desc &plan) {
  for (int32_t s = 0; s < plan.num_steps; ++s) {
    const graphc_step_desc &step = plan.steps[s];
    if (step.kind != GRAPHC_STEP_LIBRARY_CALL)
      continue;
    const graphc_gemm_desc &g = *desc.kernels[step.kernel].gemm;
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
  const graphc_model_desc &desc = builder.build();
  if (!graphc::rt::checkDescriptor(desc).empty())
    return 0;
  for (int32_t p = 0; p < desc.num_plans; ++p) {
    const graphc_plan_desc &plan = desc.plans[p];
    checkPlanTensors(desc.inputs, desc.num_inputs, plan.input_dims);
    checkPlanTensors(desc.outputs, desc.num_outputs, plan.output_dims);
    checkLibrarySteps(desc, plan);
  }
  return 0;
}
