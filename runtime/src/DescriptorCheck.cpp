//===- DescriptorCheck.cpp - validating a loaded descriptor ---------------===//
#include "runtime/src/DescriptorCheck.h"

#include "graphc/runtime.h"
#include "lib/Artifact/OnnxDtype.h"
#include "lib/Support/CheckedArith.h"
#include "runtime/src/Dtype.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <tuple>
#include <vector>

using namespace graphc::rt;

namespace {
/// "" when `dtype` is one graphc knows and `rank` dims at `dims` are each at
/// least `leastDim`, else what is wrong, after `where`.
std::string checkDtypeAndDims(const std::string &where, int32_t dtype,
                              int32_t rank, const int64_t *dims,
                              int64_t leastDim) {
  if (graphc_dtype_bits(dtype) == 0)
    return where + " has unsupported dtype " + std::to_string(dtype);
  if (rank < 0 || (rank > 0 && !dims))
    return where + " has no valid dims";
  for (int32_t i = 0; i < rank; ++i)
    if (dims[i] < leastDim)
      return where + " has dim " + std::to_string(dims[i]);
  return "";
}

std::string checkTensor(const graphc_tensor_desc &tensor,
                        const std::string &what, bool isOutput) {
  if (!tensor.name)
    return what + " has no name";
  std::string where = what + " '" + tensor.name + "'";
  // -1: a dynamic dim.
  if (std::string error =
          checkDtypeAndDims(where, tensor.dtype, tensor.rank, tensor.dims, -1);
      !error.empty())
    return error;
  // A packed 4-bit tensor is copied, padded and split in whole bytes only
  // as a whole: the compiler gives it static dims (and no bucket names an
  // axis of it, checkBucketDim).
  if (isFourBitDtype(tensor.dtype)) {
    for (int32_t d = 0; d < tensor.rank; ++d)
      if (tensor.dims[d] < 0)
        return where + " is " + graphc_dtype_name(tensor.dtype) +
               " with dynamic dim " + std::to_string(d) +
               " (4-bit tensors are packed and have static dims)";
  }
  if (!tensor.data_dependent)
    return "";
  // A run decides the extent of an output's dim only.
  if (!isOutput)
    return where + " has data-dependent dims, which only outputs have";
  bool any = false;
  for (int32_t d = 0; d < tensor.rank; ++d) {
    int32_t flag = tensor.data_dependent[d];
    std::string at = where + " dim " + std::to_string(d);
    if (flag != 0 && flag != 1)
      return at + " has data_dependent " + std::to_string(flag) + " (0 or 1)";
    if (!flag)
      continue;
    any = true;
    if (tensor.dims[d] != -1)
      return at + " is data-dependent but has static size " +
             std::to_string(tensor.dims[d]) + " (-1 expected)";
    if (!tensor.dim_names || !tensor.dim_names[d] || !tensor.dim_names[d][0])
      return at + " is data-dependent but unnamed";
  }
  if (!any)
    return where + " has a data_dependent array without a data-dependent "
                   "dim (NULL is none)";
  return "";
}

/// Whether dim `d` of `tensor` (an output) is data-dependent.
bool isDataDependent(const graphc_tensor_desc &tensor, int32_t d) {
  return tensor.data_dependent && tensor.data_dependent[d];
}

/// Checks a plan's static dims for the model tensors `tensors`.
std::string checkPlanDims(const graphc_tensor_desc *tensors, int32_t count,
                          const int64_t *const *dims, const std::string &where,
                          const char *what) {
  if (count > 0 && !dims)
    return where + " has no " + what + " dims";
  for (int32_t i = 0; i < count; ++i) {
    const graphc_tensor_desc &tensor = tensors[i];
    if (tensor.rank > 0 && !dims[i])
      return where + " has no dims for " + what + " '" + tensor.name + "'";
    for (int32_t d = 0; d < tensor.rank; ++d) {
      if (dims[i][d] < 0 ||
          (tensor.dims[d] >= 0 && tensor.dims[d] != dims[i][d]))
        return where + " gives " + what + " '" + tensor.name + "' shape " +
               formatTensorType(tensor.dtype, tensor.rank, dims[i]) +
               ", which does not fit " +
               formatTensorType(tensor.dtype, tensor.rank, tensor.dims,
                                tensor.dim_names);
    }
    if (planTensorBytes(tensor, dims[i]) == UINT64_MAX)
      return where + " gives " + what + " '" + tensor.name +
             "' a size that overflows";
  }
  return "";
}

bool rangeWithin(const graphc_buffer_ref &ref, uint64_t limit) {
  return ref.offset <= limit && ref.size <= limit - ref.offset;
}

/// A plan's extent slots (graphc_plan_desc.output_extents): one table entry
/// per output, NULL exactly for outputs without data-dependent dims; each
/// data-dependent dim an int64 in the arena (8 aligned bytes), the other
/// dims NONE. The plan's dims (checkPlanDims) hold each one's bound.
std::string checkOutputExtents(const graphc_model_desc &desc,
                               const graphc_plan_desc &plan,
                               const std::string &where) {
  bool anyDataDependent = false;
  for (int32_t o = 0; o < desc.num_outputs; ++o)
    anyDataDependent |= desc.outputs[o].data_dependent != nullptr;
  // A model without data-dependent dims may leave out the whole table.
  if (!plan.output_extents) {
    if (!anyDataDependent)
      return "";
    return where + " has no output extents, but the model has "
                   "data-dependent output dims";
  }
  for (int32_t o = 0; o < desc.num_outputs; ++o) {
    const graphc_tensor_desc &output = desc.outputs[o];
    const graphc_buffer_ref *refs = plan.output_extents[o];
    std::string what = where + " output '" + output.name + "'";
    if (!output.data_dependent) {
      if (refs)
        return what + " has extents, but no data-dependent dim";
      continue;
    }
    if (!refs)
      return what + " has no extents for its data-dependent dims";
    for (int32_t d = 0; d < output.rank; ++d) {
      const graphc_buffer_ref &ref = refs[d];
      std::string at = what + " dim " + std::to_string(d);
      if (!isDataDependent(output, d)) {
        if (ref.kind != GRAPHC_BUFFER_NONE)
          return at + " is not data-dependent but has an extent (buffer kind " +
                 std::to_string(ref.kind) + ")";
        continue;
      }
      if (ref.kind != GRAPHC_BUFFER_ARENA || ref.size != 8 ||
          ref.offset % 8 != 0)
        return at +
               ": its extent is not an int64 at an 8-aligned arena offset "
               "(buffer kind " +
               std::to_string(ref.kind) + ", offset " +
               std::to_string(ref.offset) + ", size " +
               std::to_string(ref.size) + ")";
      if (!rangeWithin(ref, plan.arena_bytes))
        return at + ": its extent at arena offset " +
               std::to_string(ref.offset) + " lies past the arena (" +
               std::to_string(plan.arena_bytes) + " bytes)";
    }
  }
  return "";
}

std::string checkBufferRef(const graphc_model_desc &desc,
                           const graphc_plan_desc &plan,
                           const graphc_buffer_ref &ref,
                           const std::string &where) {
  auto range = [&]() {
    return "[" + std::to_string(ref.offset) + ", " +
           std::to_string(ref.offset + ref.size) + ")";
  };
  switch (ref.kind) {
  case GRAPHC_BUFFER_NONE:
    return "";
  case GRAPHC_BUFFER_ARENA:
    if (!rangeWithin(ref, plan.arena_bytes))
      return where + ": arena range " + range() + " exceeds the arena (" +
             std::to_string(plan.arena_bytes) + " bytes)";
    return "";
  case GRAPHC_BUFFER_WEIGHTS:
    if (!rangeWithin(ref, desc.weights_size))
      return where + ": weights range " + range() + " exceeds the weights (" +
             std::to_string(desc.weights_size) + " bytes)";
    return "";
  case GRAPHC_BUFFER_INPUT:
  case GRAPHC_BUFFER_OUTPUT: {
    bool isInput = ref.kind == GRAPHC_BUFFER_INPUT;
    int32_t count = isInput ? desc.num_inputs : desc.num_outputs;
    const char *what = isInput ? "input" : "output";
    if (ref.index < 0 || ref.index >= count)
      return where + ": " + what + " index " + std::to_string(ref.index) +
             " out of range";
    const graphc_tensor_desc &tensor =
        isInput ? desc.inputs[ref.index] : desc.outputs[ref.index];
    uint64_t bytes =
        planTensorBytes(tensor, isInput ? plan.input_dims[ref.index]
                                        : plan.output_dims[ref.index]);
    if (!rangeWithin(ref, bytes))
      return where + ": range " + range() + " exceeds " + what + " '" +
             tensor.name + "' (" + std::to_string(bytes) + " bytes)";
    return "";
  }
  default:
    return where + ": unknown buffer kind " + std::to_string(ref.kind);
  }
}

const char *libraryTitle(int32_t library) {
  switch (library) {
  case GRAPHC_LIBRARY_CUBLASLT:
    return "cuBLASLt";
  case GRAPHC_LIBRARY_CUDNN:
    return "cuDNN";
  default:
    return "no library";
  }
}

/// Bytes a stored matrix of `dtype` elements spans: its last batch's start
/// plus its last row's end, ((batch - 1) * stride + (rows - 1) * ld + cols)
/// elements; nullopt when that overflows.
std::optional<int64_t> matrixBytes(const graphc_gemm_desc &gemm, int32_t dtype,
                                   int64_t stride, int64_t rows, int64_t ld,
                                   int64_t cols) {
  std::optional<int64_t> batches = graphc::checkedMul(gemm.batch - 1, stride);
  std::optional<int64_t> lastRow = graphc::checkedMul(rows - 1, ld);
  if (!batches || !lastRow)
    return std::nullopt;
  std::optional<int64_t> elements = graphc::checkedAdd(*batches, *lastRow);
  if (elements)
    elements = graphc::checkedAdd(*elements, cols);
  if (!elements)
    return std::nullopt;
  return graphc::checkedMul(*elements,
                            static_cast<int64_t>(graphc_dtype_size(dtype)));
}

/// One operand of a GEMM or convolution step: its name in messages, its
/// argument index and the bytes the library touches in it.
struct SizedOperand {
  const char *name;
  int32_t arg;
  int64_t bytes;
};

/// A named field of a record, as messages show it.
struct NamedValue {
  const char *name;
  int64_t value;
};

/// The first of `sizes` that is less than 1, if any.
std::optional<NamedValue>
firstNonPositive(std::initializer_list<NamedValue> sizes) {
  for (const NamedValue &size : sizes)
    if (size.value < 1)
      return size;
  return std::nullopt;
}

/// An argument index of a library record: -1 means absent, which only an
/// optional operand may be.
struct ArgumentIndex {
  const char *name;
  int32_t arg;
  bool optional;
};

/// "" when every index in `args` is valid, else "AT" + `what` followed by
/// all of them ("(a_arg 0, b_arg -1, ...)").
std::string checkArgumentIndices(const std::string &at, const char *what,
                                 std::initializer_list<ArgumentIndex> args) {
  bool valid = true;
  std::string list;
  for (const ArgumentIndex &index : args) {
    valid &= index.arg >= (index.optional ? -1 : 0);
    list += (list.empty() ? "" : ", ") + std::string(index.name) + " " +
            std::to_string(index.arg);
  }
  return valid ? "" : at + what + " (" + list + ")";
}

/// "" when `flag` is 0 or 1, else "AThas NAME FLAG (0 or 1)".
std::string checkFlag(const std::string &at, const char *name, int32_t flag) {
  if (flag == 0 || flag == 1)
    return "";
  return at + "has " + name + " " + std::to_string(flag) + " (0 or 1)";
}

/// "" when `rank` is one of the GRAPHC_MAX_ALGO_RANKS choices the runtime
/// asks a library's heuristic for, else "ATasks for WHAT rank RANK ...".
std::string checkAlgoRank(const std::string &at, const char *what,
                          int32_t rank) {
  if (rank >= 0 && rank < GRAPHC_MAX_ALGO_RANKS)
    return "";
  return at + "asks for " + what + " rank " + std::to_string(rank) + " (0 to " +
         std::to_string(GRAPHC_MAX_ALGO_RANKS - 1) + ")";
}

/// A's, B's, C's, bias's and D's extents in bytes (absent ones have arg -1).
/// Fails when one overflows.
bool gemmOperands(const graphc_gemm_desc &gemm, SizedOperand (&out)[5]) {
  int64_t rowsA = gemm.trans_a ? gemm.k : gemm.m;
  int64_t colsA = gemm.trans_a ? gemm.m : gemm.k;
  int64_t rowsB = gemm.trans_b ? gemm.n : gemm.k;
  int64_t colsB = gemm.trans_b ? gemm.k : gemm.n;
  auto elementBytes = static_cast<int64_t>(graphc_dtype_size(gemm.dtype));
  // 8-bit operands write the accumulator: C and D are compute_dtype.
  const int32_t outputDtype = libraryOutputDtype(gemm.dtype, gemm.compute_dtype);
  std::optional<int64_t> a =
      matrixBytes(gemm, gemm.dtype, gemm.stride_a, rowsA, gemm.lda, colsA);
  std::optional<int64_t> b =
      matrixBytes(gemm, gemm.dtype, gemm.stride_b, rowsB, gemm.ldb, colsB);
  std::optional<int64_t> c =
      gemm.c_arg >= 0 ? matrixBytes(gemm, outputDtype, gemm.stride_c, gemm.m,
                                    gemm.ldc, gemm.n)
                      : std::optional<int64_t>(0);
  std::optional<int64_t> bias = graphc::checkedMul(gemm.n, elementBytes);
  // D is dense: batch * m * n elements.
  std::optional<int64_t> d = graphc::checkedMul(gemm.batch, gemm.m);
  if (d)
    d = graphc::checkedMul(*d, gemm.n);
  if (d)
    d = graphc::checkedMul(
        *d, static_cast<int64_t>(graphc_dtype_size(outputDtype)));
  if (!a || !b || !c || !bias || !d)
    return false;
  out[0] = {"A", gemm.a_arg, *a};
  out[1] = {"B", gemm.b_arg, *b};
  out[2] = {"C", gemm.c_arg, *c};
  out[3] = {"bias", gemm.bias_arg, *bias};
  out[4] = {"D", gemm.d_arg, *d};
  return true;
}

/// "float16", or "dtype 99" for a number that names none.
std::string dtypeText(int32_t dtype) {
  return graphc_dtype_size(dtype) ? std::string(graphc_dtype_name(dtype))
                                  : "dtype " + std::to_string(dtype);
}

/// "" unless `gemm` has 8-bit operands outside descriptor.h's contract:
/// int8 summed in int32 with alpha 1, or float8e4m3fn summed in float32;
/// beta 0 or 1, no bias, epilogue NONE.
std::string checkEightBitGemm(const graphc_gemm_desc &gemm,
                              const std::string &at) {
  const bool int8 = gemm.dtype == kInt8;
  if (!int8 && !isFloat8Dtype(gemm.dtype))
    return "";
  if (!isEightBitLibraryDtype(gemm.dtype, gemm.compute_dtype))
    return at + "has " + graphc_dtype_name(gemm.dtype) +
           " matrices accumulating in " + dtypeText(gemm.compute_dtype) +
           " (8-bit GEMMs are int8 accumulating in int32, or float8e4m3fn "
           "in float32)";
  const std::string what =
      std::string("8-bit GEMM (") + graphc_dtype_name(gemm.dtype) + ")";
  if (int8 && gemm.alpha != 1)
    return at + "is an " + what + " with alpha " + std::to_string(gemm.alpha) +
           " (int8 GEMMs write the int32 sum as it is: alpha 1)";
  if (gemm.beta != 0 && gemm.beta != 1)
    return at + "is an " + what + " with beta " + std::to_string(gemm.beta) +
           " (0 or 1)";
  if (gemm.bias_arg >= 0)
    return at + "is an " + what + " with a bias (8-bit GEMMs take none)";
  if (gemm.epilogue != GRAPHC_EPILOGUE_NONE)
    return at + "is an " + what + " with epilogue " +
           std::to_string(gemm.epilogue) + " (8-bit GEMMs take none)";
  return "";
}

/// The GEMM record of a library kernel on its own: shapes, leading dims,
/// strides, scalars and kinds. Argument indices are checked per step.
std::string checkGemm(const graphc_gemm_desc &gemm, const std::string &where) {
  std::string at = where + ": GEMM ";
  if ((gemm.trans_a != 0 && gemm.trans_a != 1) ||
      (gemm.trans_b != 0 && gemm.trans_b != 1))
    return at + "trans_a/trans_b are " + std::to_string(gemm.trans_a) + "/" +
           std::to_string(gemm.trans_b) + " (0 or 1 each)";
  if (std::optional<NamedValue> size = firstNonPositive(
          {{"m", gemm.m}, {"n", gemm.n}, {"k", gemm.k}, {"batch", gemm.batch}}))
    return at + size->name + " is " + std::to_string(size->value) +
           " (at least 1)";
  // cuBLASLt counts batches in an int32_t.
  if (gemm.batch > INT32_MAX)
    return at + "batch " + std::to_string(gemm.batch) + " exceeds " +
           std::to_string(INT32_MAX);
  if (gemm.lda < (gemm.trans_a ? gemm.m : gemm.k))
    return at + "lda " + std::to_string(gemm.lda) + " is less than the " +
           std::to_string(gemm.trans_a ? gemm.m : gemm.k) + " columns A stores";
  if (gemm.ldb < (gemm.trans_b ? gemm.k : gemm.n))
    return at + "ldb " + std::to_string(gemm.ldb) + " is less than the " +
           std::to_string(gemm.trans_b ? gemm.k : gemm.n) + " columns B stores";
  if (gemm.c_arg >= 0 && gemm.ldc < gemm.n)
    return at + "ldc " + std::to_string(gemm.ldc) + " is less than the " +
           std::to_string(gemm.n) + " columns C stores";
  if (gemm.stride_a < 0 || gemm.stride_b < 0 || gemm.stride_c < 0)
    return at + "has a negative batch stride (" +
           std::to_string(gemm.stride_a) + ", " +
           std::to_string(gemm.stride_b) + ", " +
           std::to_string(gemm.stride_c) + ")";
  if (!std::isfinite(gemm.alpha) || !std::isfinite(gemm.beta))
    return at + "alpha/beta are not finite";
  if ((gemm.c_arg >= 0) != (gemm.beta != 0))
    return at + (gemm.c_arg >= 0
                     ? "has a C but beta 0"
                     : "has beta " + std::to_string(gemm.beta) + " but no C");
  if (gemm.epilogue == GRAPHC_EPILOGUE_SILU)
    return at + "has epilogue silu, which only convolutions take (cuBLASLt "
                "has no SiLU epilogue)";
  if (gemm.epilogue == GRAPHC_EPILOGUE_GELU_ERF)
    return at + "has epilogue gelu_erf, which only convolutions take "
                "(cuBLASLt fuses only the tanh GELU)";
  if (gemm.epilogue != GRAPHC_EPILOGUE_NONE &&
      gemm.epilogue != GRAPHC_EPILOGUE_RELU &&
      gemm.epilogue != GRAPHC_EPILOGUE_GELU_TANH)
    return at + "has unknown epilogue " + std::to_string(gemm.epilogue);
  if (graphc_dtype_size(gemm.dtype) == 0)
    return at + "has unsupported dtype " + std::to_string(gemm.dtype);
  if (graphc_dtype_size(gemm.compute_dtype) == 0)
    return at + "has unsupported compute dtype " +
           std::to_string(gemm.compute_dtype);
  if (std::string error =
          checkArgumentIndices(at, "lacks A, B, D or the workspace",
                               {{"a_arg", gemm.a_arg, false},
                                {"b_arg", gemm.b_arg, false},
                                {"c_arg", gemm.c_arg, true},
                                {"bias_arg", gemm.bias_arg, true},
                                {"d_arg", gemm.d_arg, false},
                                {"workspace_arg", gemm.workspace_arg, false}});
      !error.empty())
    return error;
  if (std::string error = checkAlgoRank(at, "algorithm", gemm.algo_rank);
      !error.empty())
    return error;
  if (std::string error = checkFlag(at, "tf32", gemm.tf32); !error.empty())
    return error;
  if (gemm.split_k != 0 &&
      (gemm.split_k < 2 || gemm.split_k > GRAPHC_MAX_SPLIT_K))
    return at + "splits K into " + std::to_string(gemm.split_k) +
           " parts (0, or 2 to " + std::to_string(GRAPHC_MAX_SPLIT_K) + ")";
  if (std::string error = checkFlag(at, "tuned", gemm.tuned); !error.empty())
    return error;
  if (gemm.tf32 && gemm.dtype != kFloat)
    return at + "rounds to tf32 but its matrices are " +
           graphc_dtype_name(gemm.dtype);
  if (std::string error = checkEightBitGemm(gemm, at); !error.empty())
    return error;
  SizedOperand operands[5];
  if (!gemmOperands(gemm, operands))
    return at + "spans more bytes than a size can hold";
  return "";
}

/// The bytes of `count` elements times the product of `dims[0, rank)`;
/// nullopt when that overflows.
std::optional<int64_t> convTensorBytes(int64_t count, const int64_t *dims,
                                       int32_t rank, int64_t elementBytes) {
  std::optional<int64_t> total = count;
  for (int32_t i = 0; i < rank && total; ++i)
    total = graphc::checkedMul(*total, dims[i]);
  if (total)
    total = graphc::checkedMul(*total, elementBytes);
  return total;
}

/// X's, W's, the bias's, Z's and Y's bytes (absent ones have arg -1), from
/// a convolution whose sizes checkConv found positive; the same in either
/// layout (channels_last permutes dense tensors). Fails when one
/// overflows.
bool convOperands(const graphc_conv_desc &conv, SizedOperand (&out)[5]) {
  auto elementBytes = static_cast<int64_t>(graphc_dtype_size(conv.dtype));
  int32_t rank = conv.spatial_dims;
  std::optional<int64_t> nc = graphc::checkedMul(conv.n, conv.c);
  std::optional<int64_t> nk = graphc::checkedMul(conv.n, conv.k);
  std::optional<int64_t> kc = graphc::checkedMul(conv.k, conv.c / conv.groups);
  if (!nc || !nk || !kc)
    return false;
  std::optional<int64_t> x =
      convTensorBytes(*nc, conv.in_size, rank, elementBytes);
  std::optional<int64_t> w =
      convTensorBytes(*kc, conv.filter_size, rank, elementBytes);
  std::optional<int64_t> bias = graphc::checkedMul(conv.k, elementBytes);
  // 8-bit tensors write the accumulator: Y and Z are compute_dtype.
  std::optional<int64_t> y = convTensorBytes(
      *nk, conv.out_size, rank,
      static_cast<int64_t>(graphc_dtype_size(
          libraryOutputDtype(conv.dtype, conv.compute_dtype))));
  if (!x || !w || !bias || !y)
    return false;
  out[0] = {"X", conv.x_arg, *x};
  out[1] = {"W", conv.w_arg, *w};
  out[2] = {"bias", conv.bias_arg, *bias};
  out[3] = {"Z", conv.z_arg, *y};
  out[4] = {"Y", conv.y_arg, *y};
  return true;
}

/// The most threads in a block, block dims and grid dims a CUDA launch may
/// have (every GPU graphc targets).
constexpr uint64_t kMaxBlockThreads = 1024;
constexpr uint32_t kMaxBlockDims[3] = {1024, 1024, 64};
constexpr uint32_t kMaxGridDims[3] = {2147483647u, 65535, 65535};

/// "" when a launch of `what` with these dims is one CUDA can make, else
/// why not ("launches its fallback kernel with grid ...").
std::string checkLaunchDims(const uint32_t grid[3], const uint32_t block[3],
                            const char *what) {
  uint64_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    if (grid[d] < 1 || grid[d] > kMaxGridDims[d] || block[d] < 1 ||
        block[d] > kMaxBlockDims[d])
      return std::string("launches ") + what + " with grid " +
             std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" +
             std::to_string(grid[2]) + " and block " +
             std::to_string(block[0]) + "x" + std::to_string(block[1]) + "x" +
             std::to_string(block[2]) + ", beyond what CUDA launches";
    threads *= block[d];
  }
  if (threads > kMaxBlockThreads)
    return std::string("launches ") + what + " with " +
           std::to_string(threads) + " threads a block (at most " +
           std::to_string(kMaxBlockThreads) + ")";
  return "";
}

/// The convolution record of a library kernel on its own: sizes, the
/// output size formula, kinds and the epilogue kernel's launch. Argument
/// indices are checked per step; the epilogue kernel's unit with the
/// model's units.
std::string checkConv(const graphc_conv_desc &conv, const std::string &where) {
  std::string at = where + ": convolution ";
  if (conv.spatial_dims < 1 || conv.spatial_dims > GRAPHC_MAX_CONV_SPATIAL_DIMS)
    return at + "has " + std::to_string(conv.spatial_dims) +
           " spatial dims (1 to " +
           std::to_string(GRAPHC_MAX_CONV_SPATIAL_DIMS) + ")";
  if (std::optional<NamedValue> size =
          firstNonPositive({{"n", conv.n},
                            {"c", conv.c},
                            {"k", conv.k},
                            {"groups", conv.groups}}))
    return at + size->name + " is " + std::to_string(size->value) +
           " (at least 1)";
  if (conv.c % conv.groups || conv.k % conv.groups)
    return at + "has " + std::to_string(conv.groups) +
           " groups, which do not divide c " + std::to_string(conv.c) +
           " and k " + std::to_string(conv.k);
  const struct {
    const char *name;
    const int64_t *values;
    int64_t least;
  } spatial[] = {
      {"in_size", conv.in_size, 1},    {"filter_size", conv.filter_size, 1},
      {"out_size", conv.out_size, 1},  {"pads_begin", conv.pads_begin, 0},
      {"pads_end", conv.pads_end, 0},  {"strides", conv.strides, 1},
      {"dilations", conv.dilations, 1}};
  for (const auto &field : spatial) {
    for (int32_t i = 0; i < GRAPHC_MAX_CONV_SPATIAL_DIMS; ++i) {
      int64_t value = field.values[i];
      std::string entry = std::string(field.name) + "[" + std::to_string(i) +
                          "] is " + std::to_string(value);
      if (i >= conv.spatial_dims && value != 0)
        return at + entry + ", past its " + std::to_string(conv.spatial_dims) +
               " spatial dims (0 there)";
      if (i < conv.spatial_dims && value < field.least)
        return at + entry + " (at least " + std::to_string(field.least) + ")";
    }
  }
  for (int32_t i = 0; i < conv.spatial_dims; ++i) {
    // (in + pads - dilation * (filter - 1) - 1) / stride + 1, checked.
    std::optional<int64_t> padded =
        graphc::checkedAdd(conv.in_size[i], conv.pads_begin[i]);
    if (padded)
      padded = graphc::checkedAdd(*padded, conv.pads_end[i]);
    std::optional<int64_t> reach =
        graphc::checkedMul(conv.dilations[i], conv.filter_size[i] - 1);
    if (!padded || !reach)
      return at + "spatial dim " + std::to_string(i) +
             " spans more than a size can hold";
    int64_t room = *padded - *reach - 1;
    if (room < 0)
      return at + "spatial dim " + std::to_string(i) + ": the filter spans " +
             std::to_string(*reach + 1) + " elements of a padded input of " +
             std::to_string(*padded);
    int64_t expected = room / conv.strides[i] + 1;
    if (conv.out_size[i] != expected)
      return at + "out_size[" + std::to_string(i) + "] is " +
             std::to_string(conv.out_size[i]) +
             ", but (in + pads - "
             "dilation * (filter - 1) - 1) / stride + 1 is " +
             std::to_string(expected);
  }
  if (conv.epilogue != GRAPHC_EPILOGUE_NONE &&
      conv.epilogue != GRAPHC_EPILOGUE_RELU &&
      conv.epilogue != GRAPHC_EPILOGUE_SILU &&
      conv.epilogue != GRAPHC_EPILOGUE_GELU_ERF)
    return at + "has epilogue " + std::to_string(conv.epilogue) +
           " (none, relu, silu or gelu_erf)";
  const bool int8 = conv.dtype == kInt8 && conv.compute_dtype == kInt32;
  if (!int8 && ((conv.dtype != kFloat && conv.dtype != kFloat16 &&
                 conv.dtype != kBfloat16) ||
                conv.compute_dtype != kFloat))
    return at + "has " + dtypeText(conv.dtype) + " tensors computing in " +
           dtypeText(conv.compute_dtype) +
           " (float32, float16 or bfloat16 computing in float32, or int8 "
           "in int32)";
  if (int8 && (conv.bias_arg >= 0 || conv.z_arg >= 0 ||
               conv.epilogue != GRAPHC_EPILOGUE_NONE ||
               conv.has_epilogue_kernel != 0))
    return at + "is an int8 convolution with a bias, Z, epilogue or "
                "epilogue kernel (bias_arg " +
           std::to_string(conv.bias_arg) + ", z_arg " +
           std::to_string(conv.z_arg) + ", epilogue " +
           std::to_string(conv.epilogue) + ", has_epilogue_kernel " +
           std::to_string(conv.has_epilogue_kernel) +
           "): it writes the int32 sum as it is";
  if (std::string error = checkFlag(at, "tf32", conv.tf32); !error.empty())
    return error;
  if (conv.tf32 && conv.dtype != kFloat)
    return at + "rounds to tf32 but its tensors are " +
           graphc_dtype_name(conv.dtype);
  if (std::string error = checkFlag(at, "channels_last", conv.channels_last);
      !error.empty())
    return error;
  if (std::string error =
          checkArgumentIndices(at, "lacks X, W, Y or the workspace",
                               {{"x_arg", conv.x_arg, false},
                                {"w_arg", conv.w_arg, false},
                                {"bias_arg", conv.bias_arg, true},
                                {"z_arg", conv.z_arg, true},
                                {"y_arg", conv.y_arg, false},
                                {"workspace_arg", conv.workspace_arg, false}});
      !error.empty())
    return error;
  if (std::string error = checkAlgoRank(at, "engine", conv.engine_rank);
      !error.empty())
    return error;
  if (std::string error = checkFlag(at, "tuned", conv.tuned); !error.empty())
    return error;
  if (std::string error =
          checkFlag(at, "has_epilogue_kernel", conv.has_epilogue_kernel);
      !error.empty())
    return error;
  if (conv.has_epilogue_kernel) {
    if (conv.bias_arg < 0 && conv.z_arg < 0 &&
        conv.epilogue == GRAPHC_EPILOGUE_NONE)
      return at + "has an epilogue kernel but no bias, Z or epilogue for it "
                  "to apply";
    std::string launch = checkLaunchDims(conv.epilogue_grid, conv.epilogue_block,
                                         "its epilogue kernel");
    if (!launch.empty())
      return at + launch;
  }
  SizedOperand operands[5];
  if (!convOperands(conv, operands))
    return at + "spans more bytes than a size can hold";
  return "";
}

/// One tensor of an attention step: its name, argument index, dims over
/// [B, H, S, D], element offset and strides.
struct SdpaOperand {
  const char *name;
  int32_t arg;
  int64_t dims[4];
  int64_t offset;
  const int64_t *strides;
};

/// The tensors of an attention record: Q, K, V, the bias (arg -1 when
/// absent) and O, O last.
void sdpaOperands(const graphc_sdpa_desc &sdpa, SdpaOperand (&out)[5]) {
  out[0] = {"Q",
            sdpa.q_arg,
            {sdpa.batch, sdpa.heads, sdpa.queries, sdpa.head_dim},
            sdpa.q_offset,
            sdpa.q_strides};
  out[1] = {"K",
            sdpa.k_arg,
            {sdpa.batch, sdpa.kv_heads, sdpa.keys, sdpa.head_dim},
            sdpa.k_offset,
            sdpa.k_strides};
  out[2] = {"V",
            sdpa.v_arg,
            {sdpa.batch, sdpa.kv_heads, sdpa.keys, sdpa.value_dim},
            sdpa.v_offset,
            sdpa.v_strides};
  out[3] = {"bias",
            sdpa.bias_arg,
            {sdpa.bias_dims[0], sdpa.bias_dims[1], sdpa.bias_dims[2],
             sdpa.bias_dims[3]},
            sdpa.bias_offset,
            sdpa.bias_strides};
  out[4] = {"O",
            sdpa.o_arg,
            {sdpa.batch, sdpa.heads, sdpa.queries, sdpa.value_dim},
            sdpa.o_offset,
            sdpa.o_strides};
}

/// The bytes from the start of a tensor's argument to the end of its last
/// element: (offset + sum (dim - 1) stride + 1) elements, for positive dims
/// and non-negative strides and offset; nullopt when that overflows.
std::optional<int64_t> sdpaSpanBytes(const SdpaOperand &operand,
                                     int64_t elementBytes) {
  std::optional<int64_t> last = operand.offset;
  for (int d = 0; d < 4 && last; ++d) {
    std::optional<int64_t> step =
        graphc::checkedMul(operand.dims[d] - 1, operand.strides[d]);
    last = step ? graphc::checkedAdd(*last, *step) : std::nullopt;
  }
  if (last)
    last = graphc::checkedAdd(*last, 1);
  return last ? graphc::checkedMul(*last, elementBytes) : std::nullopt;
}

/// Whether no two elements of `operand` share an address: ordered by
/// stride, each dim (of more than one element) steps past everything the
/// dims inside it span. Only then may a library write it in any order.
bool sdpaDistinct(const SdpaOperand &operand) {
  int order[4] = {0, 1, 2, 3};
  std::sort(order, order + 4, [&](int a, int b) {
    return operand.strides[a] < operand.strides[b];
  });
  int64_t inner = 1; // elements the inner dims span, up to their last + 1
  for (int d : order) {
    if (operand.dims[d] == 1)
      continue;
    if (operand.strides[d] < inner)
      return false;
    std::optional<int64_t> span =
        graphc::checkedMul(operand.dims[d] - 1, operand.strides[d]);
    if (!span || !(span = graphc::checkedAdd(*span, inner)))
      return false;
    inner = *span;
  }
  return true;
}

/// The attention record of a library kernel on its own: sizes, dtypes,
/// argument indices, strides and offsets (spans overflow-checked), the
/// fallback kernel's launch.
std::string checkSdpa(const graphc_sdpa_desc &sdpa, const std::string &where,
                      int32_t target) {
  std::string at = where + ": attention ";
  if (target != GRAPHC_TARGET_CUDA)
    return at + "in a cpu model (cuDNN's SDPA runs on cuda only)";
  if (std::optional<NamedValue> size =
          firstNonPositive({{"batch", sdpa.batch},
                            {"heads", sdpa.heads},
                            {"kv_heads", sdpa.kv_heads},
                            {"queries", sdpa.queries},
                            {"keys", sdpa.keys},
                            {"head_dim", sdpa.head_dim},
                            {"value_dim", sdpa.value_dim}}))
    return at + "has " + size->name + " " + std::to_string(size->value);
  if (sdpa.heads % sdpa.kv_heads)
    return at + "has " + std::to_string(sdpa.heads) +
           " query heads, not a "
           "multiple of its " +
           std::to_string(sdpa.kv_heads) + " K/V heads";
  if ((sdpa.dtype != kFloat16 && sdpa.dtype != kBfloat16) ||
      sdpa.compute_dtype != kFloat)
    return at + "has " + dtypeText(sdpa.dtype) + " tensors computing in " +
           dtypeText(sdpa.compute_dtype) +
           " (float16 or bfloat16 computing in float32)";
  if (std::string error = checkFlag(at, "is_causal", sdpa.is_causal);
      !error.empty())
    return error;
  if (!std::isfinite(sdpa.scale))
    return at + "has a scale that is not finite";
  if (std::string error =
          checkArgumentIndices(at, "has invalid argument indices",
                               {{"q_arg", sdpa.q_arg, false},
                                {"k_arg", sdpa.k_arg, false},
                                {"v_arg", sdpa.v_arg, false},
                                {"bias_arg", sdpa.bias_arg, true},
                                {"o_arg", sdpa.o_arg, false},
                                {"workspace_arg", sdpa.workspace_arg, false}});
      !error.empty())
    return error;
  if (std::string error = checkAlgoRank(at, "engine", sdpa.engine_rank);
      !error.empty())
    return error;
  const int64_t full[4] = {sdpa.batch, sdpa.heads, sdpa.queries, sdpa.keys};
  if (sdpa.bias_arg >= 0) {
    for (int d = 0; d < 4; ++d)
      if (sdpa.bias_dims[d] != 1 && sdpa.bias_dims[d] != full[d])
        return at + "has bias dim " + std::to_string(d) + " of " +
               std::to_string(sdpa.bias_dims[d]) + " (1 or " +
               std::to_string(full[d]) + ")";
    if (sdpa.bias_dims[3] != sdpa.keys)
      return at + "has a bias of " + std::to_string(sdpa.bias_dims[3]) +
             " keys, not " + std::to_string(sdpa.keys);
  }
  SdpaOperand operands[5];
  sdpaOperands(sdpa, operands);
  auto elementBytes = static_cast<int64_t>(graphc_dtype_size(sdpa.dtype));
  for (const SdpaOperand &operand : operands) {
    if (operand.arg < 0)
      continue;
    std::string name = std::string(operand.name) + " ";
    if (operand.offset < 0)
      return at + "has " + name + "at offset " + std::to_string(operand.offset);
    for (int d = 0; d < 4; ++d)
      if (operand.strides[d] < 0)
        return at + "has " + name + "stride " + std::to_string(d) + " of " +
               std::to_string(operand.strides[d]);
    if (operand.dims[3] > 1 && operand.strides[3] != 1)
      return at + "has " + name + "innermost stride " +
             std::to_string(operand.strides[3]) + " (cuDNN reads 1)";
    if (!sdpaSpanBytes(operand, elementBytes))
      return at + "has " + name + "spanning more bytes than a size can hold";
  }
  if (!sdpaDistinct(operands[4]))
    return at + "writes elements of O to shared addresses (strides " +
           std::to_string(sdpa.o_strides[0]) + ", " +
           std::to_string(sdpa.o_strides[1]) + ", " +
           std::to_string(sdpa.o_strides[2]) + ", " +
           std::to_string(sdpa.o_strides[3]) + ")";
  std::string launch = checkLaunchDims(sdpa.fallback_grid, sdpa.fallback_block,
                                       "its fallback kernel");
  if (!launch.empty())
    return at + launch;
  return "";
}

std::string checkKernel(const graphc_kernel_desc &kernel, int32_t index,
                        int32_t target) {
  if (!kernel.name)
    return "kernel " + std::to_string(index) + " has no name";
  std::string where = "kernel '" + std::string(kernel.name) + "'";
  if (kernel.library != GRAPHC_LIBRARY_NONE &&
      kernel.library != GRAPHC_LIBRARY_CUBLASLT &&
      kernel.library != GRAPHC_LIBRARY_CUDNN)
    return where + " has unknown library " + std::to_string(kernel.library);
  // A library kernel has exactly the record of its library.
  const struct {
    bool present;
    const char *record;
    int32_t library;
  } records[] = {
      {kernel.gemm != nullptr, "a GEMM record", GRAPHC_LIBRARY_CUBLASLT},
      {kernel.conv != nullptr, "a convolution record", GRAPHC_LIBRARY_CUDNN},
      {kernel.sdpa != nullptr, "an attention record", GRAPHC_LIBRARY_CUDNN}};
  for (const auto &record : records)
    if (record.present && kernel.library != record.library)
      return where + " has " + record.record + " but calls " +
             libraryTitle(kernel.library);
  if (kernel.library == GRAPHC_LIBRARY_CUBLASLT && !kernel.gemm)
    return where + " calls cuBLASLt without a GEMM record";
  if (kernel.conv && kernel.sdpa)
    return where + " has a convolution and an attention record";
  if (kernel.library == GRAPHC_LIBRARY_CUDNN && !kernel.conv && !kernel.sdpa)
    return where + " calls cuDNN without a convolution or attention record";
  if (kernel.gemm)
    return checkGemm(*kernel.gemm, where);
  if (kernel.sdpa)
    return checkSdpa(*kernel.sdpa, where, target);
  if (kernel.conv) {
    std::string error = checkConv(*kernel.conv, where);
    if (error.empty() && kernel.conv->has_epilogue_kernel &&
        target != GRAPHC_TARGET_CUDA)
      error = where + ": convolution has an epilogue kernel in a cpu model";
    return error;
  }
  return "";
}

/// Whether two references may name common bytes: the same buffer and
/// intersecting ranges (both already within their buffer).
bool overlaps(const graphc_buffer_ref &x, const graphc_buffer_ref &y) {
  if (x.kind != y.kind || x.kind == GRAPHC_BUFFER_NONE || !x.size || !y.size)
    return false;
  if ((x.kind == GRAPHC_BUFFER_INPUT || x.kind == GRAPHC_BUFFER_OUTPUT) &&
      x.index != y.index)
    return false;
  return x.offset < y.offset + y.size && y.offset < x.offset + x.size;
}

/// What every library call's arguments share: the workspace is the last
/// argument and in the arena (or absent), and each operand the record has
/// (arg >= 0) an argument before it that names a buffer; then
/// `checkOperand(operand, ref, name)` for what the library needs of that
/// buffer. `title` names the operation in messages ("GEMM"). Returns "" or
/// the first failure.
template <typename Operand, typename CheckOperand>
std::string
checkLibraryArguments(const graphc_step_desc &step, const std::string &at,
                      const char *title, int32_t workspaceArg,
                      const Operand (&operands)[5], CheckOperand checkOperand) {
  std::string its = std::string(": the ") + title + "'s ";
  if (workspaceArg != step.num_args - 1)
    return at + " has " + std::to_string(step.num_args) +
           " arguments but the " + title + "'s workspace is argument " +
           std::to_string(workspaceArg) + " (the last one)";
  const graphc_buffer_ref &workspace = step.args[workspaceArg];
  if (workspace.kind != GRAPHC_BUFFER_NONE &&
      workspace.kind != GRAPHC_BUFFER_ARENA)
    return at + its + "workspace is not in the arena";
  for (const Operand &operand : operands) {
    if (operand.arg < 0)
      continue;
    std::string name = std::string(operand.name) + " (argument " +
                       std::to_string(operand.arg) + ")";
    if (operand.arg >= workspaceArg)
      return at + its + operand.name + " is argument " +
             std::to_string(operand.arg) + ", not one of the " +
             std::to_string(workspaceArg) + " arguments before the workspace";
    const graphc_buffer_ref &ref = step.args[operand.arg];
    if (ref.kind == GRAPHC_BUFFER_NONE)
      return at + its + name + " is absent";
    std::string error = checkOperand(operand, ref, name);
    if (!error.empty())
      return error;
  }
  return "";
}

/// Fails unless the operand a library call writes, `letter` at argument
/// `arg`, is in the arena or an output.
std::string checkWrittenArgument(const graphc_step_desc &step,
                                 const std::string &at, const char *title,
                                 const char *letter, int32_t arg) {
  const graphc_buffer_ref &ref = step.args[arg];
  if (ref.kind == GRAPHC_BUFFER_ARENA || ref.kind == GRAPHC_BUFFER_OUTPUT)
    return "";
  return at + ": the " + title + " writes " + letter + " (argument " +
         std::to_string(arg) + ") into " +
         (ref.kind == GRAPHC_BUFFER_WEIGHTS ? "the weights" : "an input");
}

/// "KERNEL's W (argument 4) overlaps its X (argument 0)": the written
/// operand `letter` of a library call shares bytes with `operand`.
template <typename Operand>
std::string writtenOverlapText(const std::string &at, const char *title,
                               const char *letter, int32_t arg,
                               const Operand &operand) {
  return at + ": the " + title + "'s " + letter + " (argument " +
         std::to_string(arg) + ") overlaps its " + operand.name +
         " (argument " + std::to_string(operand.arg) + ")";
}

/// A library call's arguments against its kernel's GEMM: every operand an
/// argument before the workspace, large enough for what the GEMM touches,
/// D (written) apart from what it reads. Runs after every argument was
/// found within its buffer.
std::string checkGemmStep(const graphc_gemm_desc &gemm,
                          const graphc_step_desc &step, const std::string &at) {
  SizedOperand operands[5];
  gemmOperands(gemm, operands); // cannot overflow: checkGemm passed
  std::string error = checkLibraryArguments(
      step, at, "GEMM", gemm.workspace_arg, operands,
      [&](const SizedOperand &operand, const graphc_buffer_ref &ref,
          const std::string &name) -> std::string {
        if (ref.size < static_cast<uint64_t>(operand.bytes))
          return at + ": the GEMM's " + name + " has " +
                 std::to_string(ref.size) + " bytes and the GEMM spans " +
                 std::to_string(operand.bytes);
        return "";
      });
  if (error.empty())
    error = checkWrittenArgument(step, at, "GEMM", "D", gemm.d_arg);
  if (!error.empty())
    return error;
  const graphc_buffer_ref &workspace = step.args[gemm.workspace_arg];
  const graphc_buffer_ref &d = step.args[gemm.d_arg];
  for (const SizedOperand &operand : operands) {
    if (operand.arg < 0 || operand.arg == gemm.d_arg)
      continue;
    const graphc_buffer_ref &ref = step.args[operand.arg];
    if (overlaps(ref, workspace))
      return at + ": the GEMM's workspace overlaps its " + operand.name;
    if (!overlaps(ref, d))
      continue;
    // C may be D itself, row for row: each element is read before its
    // result is written there.
    bool sameRows = ref.offset == d.offset && gemm.ldc == gemm.n &&
                    (gemm.batch == 1 || gemm.stride_c == gemm.m * gemm.n);
    if (operand.arg == gemm.c_arg && sameRows)
      continue;
    return writtenOverlapText(at, "GEMM", "D", gemm.d_arg, operand) +
           (operand.arg == gemm.c_arg
                ? "; C may only be D itself, with ldc = n and batch stride "
                  "m * n"
                : "");
  }
  if (overlaps(d, workspace))
    return at + ": the GEMM's workspace overlaps its D";
  return "";
}

/// A library call's arguments against its kernel's convolution: every
/// tensor an argument before the workspace whose buffer holds exactly its
/// bytes, Y (written) in the arena or an output and apart from everything
/// else. Runs after every argument was found within its buffer.
std::string checkConvStep(const graphc_conv_desc &conv,
                          const graphc_step_desc &step, const std::string &at) {
  SizedOperand operands[5];
  convOperands(conv, operands); // cannot overflow: checkConv passed
  std::string error = checkLibraryArguments(
      step, at, "convolution", conv.workspace_arg, operands,
      [&](const SizedOperand &operand, const graphc_buffer_ref &ref,
          const std::string &name) -> std::string {
        if (ref.size != static_cast<uint64_t>(operand.bytes))
          return at + ": the convolution's " + name + " has " +
                 std::to_string(ref.size) + " bytes and the tensor " +
                 std::to_string(operand.bytes);
        return "";
      });
  if (error.empty())
    error = checkWrittenArgument(step, at, "convolution", "Y", conv.y_arg);
  if (!error.empty())
    return error;
  const graphc_buffer_ref &workspace = step.args[conv.workspace_arg];
  const graphc_buffer_ref &y = step.args[conv.y_arg];
  for (const SizedOperand &operand : operands) {
    if (operand.arg < 0)
      continue;
    const graphc_buffer_ref &ref = step.args[operand.arg];
    if (overlaps(ref, workspace))
      return at + ": the convolution's workspace overlaps its " + operand.name;
    // Every output element reads a window of X and Z's element at it; an
    // engine may write Y before it has read them all.
    if (operand.arg != conv.y_arg && overlaps(ref, y))
      return writtenOverlapText(at, "convolution", "Y", conv.y_arg, operand);
  }
  return "";
}

/// A library call's arguments against its kernel's attention: every tensor
/// an argument before the workspace whose buffer holds every element it
/// reads or writes, O (written) in the arena or an output and apart from
/// everything else (Q, K and V may share a buffer: parts of one
/// projection). Runs after every argument was found within its buffer.
std::string checkSdpaStep(const graphc_sdpa_desc &sdpa,
                          const graphc_step_desc &step, const std::string &at) {
  SdpaOperand operands[5];
  sdpaOperands(sdpa, operands);
  auto elementBytes = static_cast<int64_t>(graphc_dtype_size(sdpa.dtype));
  std::string error = checkLibraryArguments(
      step, at, "attention", sdpa.workspace_arg, operands,
      [&](const SdpaOperand &operand, const graphc_buffer_ref &ref,
          const std::string &name) -> std::string {
        // Cannot overflow: checkSdpa passed.
        int64_t bytes = *sdpaSpanBytes(operand, elementBytes);
        if (ref.size < static_cast<uint64_t>(bytes))
          return at + ": the attention's " + name + " has " +
                 std::to_string(ref.size) +
                 " bytes and the attention reads up to byte " +
                 std::to_string(bytes);
        if (overlaps(ref, step.args[sdpa.workspace_arg]))
          return at + ": the attention's workspace overlaps its " +
                 operand.name;
        return "";
      });
  if (error.empty())
    error = checkWrittenArgument(step, at, "attention", "O", sdpa.o_arg);
  if (!error.empty())
    return error;
  const graphc_buffer_ref &o = step.args[sdpa.o_arg];
  for (const SdpaOperand &operand : operands) {
    if (operand.arg < 0 || operand.arg == sdpa.o_arg)
      continue;
    if (overlaps(step.args[operand.arg], o))
      return writtenOverlapText(at, "attention", "O", sdpa.o_arg, operand);
  }
  for (int32_t arg : {sdpa.q_arg, sdpa.k_arg, sdpa.v_arg, sdpa.bias_arg})
    if (arg == sdpa.o_arg)
      return at + ": the attention's O is argument " + std::to_string(arg) +
             ", which it also reads";
  return "";
}

std::string checkLibraryStep(const graphc_model_desc &desc,
                             const graphc_step_desc &step,
                             const std::string &where) {
  const graphc_kernel_desc &kernel = desc.kernels[step.kernel];
  std::string at = where + " (kernel '" + kernel.name + "')";
  if (kernel.sdpa)
    return checkSdpaStep(*kernel.sdpa, step, at);
  return kernel.conv ? checkConvStep(*kernel.conv, step, at)
                     : checkGemmStep(*kernel.gemm, step, at);
}

/// The results a probing run copies out (graphc_step_result_desc): each
/// names a present argument of the step (a copy's destination) whose
/// buffer holds all of its bytes, a known dtype and static dims.
std::string checkStepResults(const graphc_step_desc &step,
                             const std::string &where) {
  if (step.num_results < 0 || (step.num_results > 0 && !step.results))
    return where + " has no valid results";
  for (int32_t r = 0; r < step.num_results; ++r) {
    const graphc_step_result_desc &result = step.results[r];
    std::string at = where + " result " + std::to_string(r);
    if (result.arg < 0 || result.arg >= step.num_args)
      return at + " is argument " + std::to_string(result.arg) +
             ", out of range (the step has " + std::to_string(step.num_args) +
             ")";
    if (step.kind == GRAPHC_STEP_COPY && result.arg != 1)
      return at + " is argument " + std::to_string(result.arg) +
             " of a copy, which writes only its destination (argument 1)";
    const graphc_buffer_ref &ref = step.args[result.arg];
    if (ref.kind == GRAPHC_BUFFER_NONE)
      return at + " is argument " + std::to_string(result.arg) +
             ", which is absent";
    if (std::string error =
            checkDtypeAndDims(at, result.dtype, result.rank, result.dims, 0);
        !error.empty())
      return error;
    if (!result.onnx_tensor)
      return at + " has no ONNX tensor name (\"\" when it holds none)";
    uint64_t bytes = stepResultBytes(result);
    if (bytes == UINT64_MAX)
      return at + " " +
             formatTensorType(result.dtype, result.rank, result.dims) +
             " has a size that overflows";
    if (bytes > ref.size)
      return at + " " +
             formatTensorType(result.dtype, result.rank, result.dims) + " is " +
             std::to_string(bytes) + " bytes, more than argument " +
             std::to_string(result.arg) + " holds (" +
             std::to_string(ref.size) + " bytes)";
  }
  return "";
}

std::string checkStep(const graphc_model_desc &desc,
                      const graphc_plan_desc &plan,
                      const graphc_step_desc &step, const std::string &where) {
  if (step.num_args < 0 || (step.num_args > 0 && !step.args))
    return where + " has no valid arguments";
  switch (step.kind) {
  case GRAPHC_STEP_LAUNCH:
  case GRAPHC_STEP_HOST_CALL: {
    bool isLaunch = step.kind == GRAPHC_STEP_LAUNCH;
    if (isLaunch != (desc.target == GRAPHC_TARGET_CUDA))
      return where + " is a " + (isLaunch ? "launch" : "host call") +
             " step in a " +
             (desc.target == GRAPHC_TARGET_CUDA ? "cuda" : "cpu") + " model";
    if (step.kernel < 0 || step.kernel >= desc.num_kernels)
      return where + " names kernel " + std::to_string(step.kernel) +
             " out of range";
    const graphc_kernel_desc &kernel = desc.kernels[step.kernel];
    if (kernel.library != GRAPHC_LIBRARY_NONE)
      return where + (isLaunch ? " launches" : " calls") + " kernel '" +
             kernel.name + "', which " + libraryTitle(kernel.library) +
             " computes (a library call step)";
    if (!isLaunch && !kernel.host_fn)
      return where + " calls kernel '" + kernel.name +
             "', which has no host function";
    // Library kernels are in no image: a model of library steps needs none.
    if (isLaunch && desc.num_images == 0)
      return where + " launches kernel '" + kernel.name +
             "' of a cuda model without device images";
    break;
  }
  case GRAPHC_STEP_LIBRARY_CALL:
    if (step.kernel < 0 || step.kernel >= desc.num_kernels)
      return where + " names kernel " + std::to_string(step.kernel) +
             " out of range";
    if (desc.kernels[step.kernel].library == GRAPHC_LIBRARY_NONE)
      return where + " is a library call of kernel '" +
             desc.kernels[step.kernel].name + "', which calls no library";
    break;
  case GRAPHC_STEP_COPY:
    if (step.num_args != 2 || step.args[0].kind == GRAPHC_BUFFER_NONE ||
        step.args[1].kind == GRAPHC_BUFFER_NONE)
      return where + " is a copy without a source and a destination";
    if (step.args[0].size < step.args[1].size)
      return where + " copies " + std::to_string(step.args[1].size) +
             " bytes from a " + std::to_string(step.args[0].size) +
             "-byte source";
    break;
  case GRAPHC_STEP_LOOP: {
    if (step.num_args != 4)
      return where + " is a loop with " + std::to_string(step.num_args) +
             " arguments, not its trip count, condition, state and body "
             "condition";
    if (step.kernel < 0 || step.kernel >= desc.num_kernels)
      return where + " names kernel " + std::to_string(step.kernel) +
             " out of range";
    const graphc_kernel_desc &kernel = desc.kernels[step.kernel];
    if (kernel.library != GRAPHC_LIBRARY_NONE || !kernel.kind ||
        std::strcmp(kernel.kind, "loop_control") != 0)
      return where + " is a loop whose kernel '" +
             std::string(kernel.name ? kernel.name : "") +
             "' is no loop control kernel";
    if (desc.target == GRAPHC_TARGET_CUDA && desc.num_images == 0)
      return where + " is a loop of a cuda model without device images";
    if (step.max_iterations < 1)
      return where + " is a loop of at most " +
             std::to_string(step.max_iterations) + " iterations";
    if (step.num_results != 0)
      return where + " is a loop that lists results";
    const graphc_buffer_ref &state = step.args[2];
    if (state.kind != GRAPHC_BUFFER_ARENA || state.size < 16 ||
        state.offset % 8 != 0)
      return where + " is a loop without 16 aligned bytes of state in the "
                     "arena";
    auto holds = [](const graphc_buffer_ref &ref, uint64_t bytes) {
      return ref.kind == GRAPHC_BUFFER_NONE || ref.size >= bytes;
    };
    if (!holds(step.args[0], 8) || !holds(step.args[1], 1) ||
        !holds(step.args[3], 1))
      return where + " is a loop whose trip count or conditions are smaller "
                     "than an int64 and a bool";
    break;
  }
  default:
    return where + " has unknown kind " + std::to_string(step.kind);
  }
  if (step.kind != GRAPHC_STEP_LOOP && (step.body_steps || step.max_iterations))
    return where + " is no loop but has a loop body or bound";
  for (int32_t a = 0; a < step.num_args; ++a) {
    std::string error = checkBufferRef(
        desc, plan, step.args[a], where + " argument " + std::to_string(a));
    if (!error.empty())
      return error;
  }
  if (std::string error = checkStepResults(step, where); !error.empty())
    return error;
  if (step.kind == GRAPHC_STEP_LIBRARY_CALL)
    return checkLibraryStep(desc, step, where);
  return "";
}
/// A bucketed dim must name input axes, list ascending sizes, and (when
/// runs pad along it) name output axes that every plan sizes like its
/// inputs: slicing copies along them.
std::string checkBucketDim(const graphc_model_desc &desc, int32_t k) {
  const graphc_bucket_dim_desc &dim = desc.bucket_dims[k];
  std::string where = "bucket dim " + std::to_string(k);
  if (!dim.name || !dim.name[0])
    return where + " has no name";
  where = "bucket dim '" + std::string(dim.name) + "'";
  if (dim.num_sizes < 1 || !dim.sizes)
    return where + " has no sizes";
  for (int32_t s = 0; s < dim.num_sizes; ++s)
    if (dim.sizes[s] < 1 || (s && dim.sizes[s] <= dim.sizes[s - 1]))
      return where + " has sizes that are not positive and ascending";
  if (desc.num_outputs && !dim.output_axes)
    return where + " has no output axes";
  for (int32_t o = 0; o < desc.num_outputs; ++o)
    for (int32_t d = 0; d < desc.outputs[o].rank; ++d)
      if (isDataDependent(desc.outputs[o], d) &&
          std::strcmp(desc.outputs[o].dim_names[d], dim.name) == 0)
        return where + " is also the name of data-dependent dim " +
               std::to_string(d) + " of output '" + desc.outputs[o].name + "'";
  for (int32_t p = 0; p < desc.num_plans; ++p) {
    const graphc_plan_desc &plan = desc.plans[p];
    // The plan's size of this dim, from an input axis that carries it.
    int64_t size = -1;
    for (int32_t i = 0; size < 0 && i < desc.num_inputs; ++i)
      for (int32_t d = 0; d < desc.inputs[i].rank; ++d)
        if (desc.inputs[i].dims[d] < 0 && desc.inputs[i].dim_names &&
            desc.inputs[i].dim_names[d] &&
            std::string(desc.inputs[i].dim_names[d]) == dim.name) {
          size = plan.input_dims[i][d];
          break;
        }
    if (size < 0)
      return where + " is carried by no input";
    for (int32_t o = 0; o < desc.num_outputs; ++o) {
      int32_t axis = dim.output_axes[o];
      if (axis < -1 || axis >= desc.outputs[o].rank)
        return where + " names axis " + std::to_string(axis) + " of output " +
               std::to_string(o);
      // A run decides a data-dependent dim's extent: no bucket sizes it.
      if (axis >= 0 && isFourBitDtype(desc.outputs[o].dtype))
        return where + " names axis " + std::to_string(axis) + " of output '" +
               desc.outputs[o].name + "', which is packed 4-bit";
      if (axis >= 0 && isDataDependent(desc.outputs[o], axis))
        return where + " names axis " + std::to_string(axis) + " of output '" +
               desc.outputs[o].name + "', which is data-dependent";
      if (axis >= 0 && dim.pad_safe && plan.output_dims[o][axis] != size)
        return where + " is " + std::to_string(size) + " in plan '" +
               (plan.name ? plan.name : "") + "' but output " +
               std::to_string(o) + " axis " + std::to_string(axis) +
               " is " + std::to_string(plan.output_dims[o][axis]);
    }
  }
  return "";
}
} // namespace

/// Bytes of a dense tensor of `dtype` with `rank` dims at `dims`,
/// UINT64_MAX when that overflows.
static uint64_t denseBytes(int32_t dtype, int32_t rank, const int64_t *dims) {
  int64_t count = elementCount(rank, dims);
  int64_t bytes = count < 0 ? -1 : storageBytes(dtype, count);
  return bytes < 0 ? UINT64_MAX : static_cast<uint64_t>(bytes);
}

uint64_t graphc::rt::planTensorBytes(const graphc_tensor_desc &tensor,
                                     const int64_t *planDims) {
  return denseBytes(tensor.dtype, tensor.rank, planDims);
}

uint64_t graphc::rt::stepResultBytes(const graphc_step_result_desc &result) {
  return denseBytes(result.dtype, result.rank, result.dims);
}

std::string graphc::rt::checkDescriptor(const graphc_model_desc &desc) {
  if (desc.target != GRAPHC_TARGET_CPU && desc.target != GRAPHC_TARGET_CUDA)
    return "unknown target " + std::to_string(desc.target);
  if (desc.num_inputs < 0 || desc.num_outputs < 0 || desc.num_plans < 0 ||
      desc.num_kernels < 0 || desc.num_images < 0 || desc.num_units < 0)
    return "negative table size";
  if ((desc.num_inputs && !desc.inputs) ||
      (desc.num_outputs && !desc.outputs) || (desc.num_plans && !desc.plans) ||
      (desc.num_kernels && !desc.kernels) || (desc.num_images && !desc.images))
    return "missing table";
  if (desc.num_plans == 0)
    return "no plans";
  for (auto [tensors, count, what, isOutput] :
       {std::tuple(desc.inputs, desc.num_inputs, "input ", false),
        std::tuple(desc.outputs, desc.num_outputs, "output ", true)})
    for (int32_t i = 0; i < count; ++i)
      if (std::string error =
              checkTensor(tensors[i], what + std::to_string(i), isOutput);
          !error.empty())
        return error;
  for (int32_t i = 0; i < desc.num_kernels; ++i) {
    std::string error = checkKernel(desc.kernels[i], i, desc.target);
    if (!error.empty())
      return error;
  }
  for (int32_t i = 0; i < desc.num_images; ++i) {
    const graphc_image_desc &image = desc.images[i];
    if (!image.data || image.size == 0)
      return "image " + std::to_string(i) + " is empty";
    if (image.format != GRAPHC_IMAGE_CUBIN && image.format != GRAPHC_IMAGE_PTX &&
        image.format != GRAPHC_IMAGE_HOST_EMULATION)
      return "image " + std::to_string(i) + " has unknown format " +
             std::to_string(image.format);
    if (image.unit < 0 || image.unit >= desc.num_units)
      return "image " + std::to_string(i) + " is of unit " +
             std::to_string(image.unit) + ", out of range (the model has " +
             std::to_string(desc.num_units) + ")";
  }
  // Every unit is a module of its own: it needs an image, and every
  // generated cuda kernel one unit holding its code.
  if (desc.num_units > desc.num_images)
    return std::to_string(desc.num_units) + " units but " +
           std::to_string(desc.num_images) + " images";
  std::vector<bool> unitHasImage(desc.num_units, false);
  for (int32_t i = 0; i < desc.num_images; ++i)
    unitHasImage[desc.images[i].unit] = true;
  for (int32_t u = 0; u < desc.num_units; ++u)
    if (!unitHasImage[u])
      return "unit " + std::to_string(u) + " has no image";
  // Without units no generated kernel has code, and a launch is refused
  // below; an epilogue kernel, launched by its library step, needs one.
  if (desc.target == GRAPHC_TARGET_CUDA)
    for (int32_t k = 0; k < desc.num_kernels; ++k) {
      const graphc_kernel_desc &kernel = desc.kernels[k];
      bool epilogueKernel =
          (kernel.conv && kernel.conv->has_epilogue_kernel) || kernel.sdpa;
      if (epilogueKernel && desc.num_units == 0)
        return "kernel '" + std::string(kernel.name) +
               "' has an epilogue or fallback kernel but the model has no "
               "device image";
      if ((kernel.library == GRAPHC_LIBRARY_NONE && desc.num_units > 0) ||
          epilogueKernel)
        if (kernel.unit < 0 || kernel.unit >= desc.num_units)
          return "kernel '" + std::string(kernel.name) + "' is in unit " +
                 std::to_string(kernel.unit) +
                 ", out of range (the model has " +
                 std::to_string(desc.num_units) + ")";
    }
  bool sideFile = desc.weights_file && desc.weights_file[0];
  if (desc.weights_size && !desc.weights && !desc.weights_offset && !sideFile)
    return "weights neither embedded, appended nor in a side file";
  if (int(desc.weights != nullptr) + int(desc.weights_offset != 0) +
          int(sideFile) >
      1)
    return "weights in more than one place (embedded, appended, side file)";
  if (desc.weights_offset % GRAPHC_WEIGHTS_FILE_ALIGNMENT)
    return "appended weights at offset " + std::to_string(desc.weights_offset) +
           ", not a multiple of " +
           std::to_string(GRAPHC_WEIGHTS_FILE_ALIGNMENT);
  for (int32_t p = 0; p < desc.num_plans; ++p) {
    const graphc_plan_desc &plan = desc.plans[p];
    std::string where = "plan " + std::to_string(p);
    if (!plan.name)
      return where + " has no name";
    where = "plan '" + std::string(plan.name) + "'";
    std::string error = checkPlanDims(desc.inputs, desc.num_inputs,
                                      plan.input_dims, where, "input");
    if (error.empty())
      error = checkPlanDims(desc.outputs, desc.num_outputs, plan.output_dims,
                            where, "output");
    if (error.empty())
      error = checkOutputExtents(desc, plan, where);
    if (!error.empty())
      return error;
    if (plan.num_steps < 0 || (plan.num_steps && !plan.steps))
      return where + " has no valid steps";
    // Loop bodies lie within the plan and nest: a body that starts inside
    // another ends inside it.
    std::vector<int64_t> bodyEnds;
    for (int32_t s = 0; s < plan.num_steps; ++s) {
      std::string at = where + " step " + std::to_string(s);
      error = checkStep(desc, plan, plan.steps[s], at);
      if (!error.empty())
        return error;
      while (!bodyEnds.empty() && bodyEnds.back() <= s)
        bodyEnds.pop_back();
      if (plan.steps[s].kind != GRAPHC_STEP_LOOP)
        continue;
      int64_t end = int64_t(s) + 1 + plan.steps[s].body_steps;
      if (plan.steps[s].body_steps < 0 || end > plan.num_steps)
        return at + " is a loop of " +
               std::to_string(plan.steps[s].body_steps) +
               " body steps, past the plan's " +
               std::to_string(plan.num_steps) + " steps";
      if (!bodyEnds.empty() && end > bodyEnds.back())
        return at + " is a loop whose body ends past the body of the loop "
                    "it lies in";
      bodyEnds.push_back(end);
      if (bodyEnds.size() > GRAPHC_MAX_LOOP_DEPTH)
        return at + " is a loop nested more than " +
               std::to_string(GRAPHC_MAX_LOOP_DEPTH) + " deep";
    }
  }
  // After the plans: the bucket dims are checked against their dims.
  if (desc.num_bucket_dims < 0 ||
      (desc.num_bucket_dims && !desc.bucket_dims))
    return "the bucket dim table is missing";
  for (int32_t k = 0; k < desc.num_bucket_dims; ++k) {
    std::string error = checkBucketDim(desc, k);
    if (!error.empty())
      return error;
  }
  return "";
}
