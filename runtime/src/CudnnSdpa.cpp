//===- CudnnSdpa.cpp - a library kernel's attention on cuDNN --------------===//
#include "runtime/src/CudnnSdpa.h"

#include "lib/Artifact/OnnxDtype.h"
#include "runtime/src/CudnnGraph.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

using namespace graphc::rt;

namespace {
/// The graph's real tensors' unique ids; the virtual ones count up from
/// kUidVirtual.
constexpr int64_t kUidQ = 1, kUidK = 2, kUidV = 3, kUidO = 4, kUidBias = 5,
                  kUidScale = 6, kUidLowest = 7, kUidVirtual = 10;
/// Indices of the real tensors in CudnnSdpa::declared.
enum { kQ, kK, kV, kBias, kO };

/// A tensor's strides as cuDNN takes them: a dim of one element may have
/// any stride in the record (nothing steps along it); cuDNN gets the span
/// of the others, as a packed layout would give it.
std::vector<int64_t> cudnnStrides(const int64_t *dims, const int64_t *strides) {
  int64_t span = 1;
  for (int d = 0; d < 4; ++d)
    if (dims[d] > 1)
      span = std::max(span, dims[d] * strides[d]);
  std::vector<int64_t> out(strides, strides + 4);
  for (int d = 0; d < 4; ++d)
    if (dims[d] == 1)
      out[d] = span;
  return out;
}

/// The byte alignment of a tensor `offset` elements past an argument base
/// of `alignment`.
uint32_t alignmentAt(uint32_t alignment, int64_t offset, int64_t elementBytes) {
  auto bytes = static_cast<uint64_t>(offset * elementBytes);
  uint64_t bit = bytes & (~bytes + 1);
  return bit && bit < alignment ? static_cast<uint32_t>(bit) : alignment;
}

/// "batch 1, heads 12 (12 K/V heads), queries 128, keys 128, head_dim 64,
/// value_dim 64, float16, causal, with bias".
std::string problemOf(const graphc_sdpa_desc &sdpa) {
  return "batch " + std::to_string(sdpa.batch) + ", heads " +
         std::to_string(sdpa.heads) + " (" + std::to_string(sdpa.kv_heads) +
         " K/V heads), queries " + std::to_string(sdpa.queries) + ", keys " +
         std::to_string(sdpa.keys) + ", head_dim " +
         std::to_string(sdpa.head_dim) + ", value_dim " +
         std::to_string(sdpa.value_dim) + ", " + graphc_dtype_name(sdpa.dtype) +
         (sdpa.is_causal ? ", causal" : "") +
         (sdpa.bias_arg >= 0 ? ", with bias" : "");
}

/// Why an engine with these notes may not run the attention: inputs read
/// as they are, scores and the softmax in float32.
std::string excludedBy(const int32_t *notes, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if (notes[i] == dnn::kNoteDownConvertInputs)
      return "it converts the inputs down";
    if (notes[i] == dnn::kNoteReducedPrecisionReduction)
      return "it accumulates in reduced precision";
  }
  return "";
}

/// Builds the attention's operation graph into `attempt` and plans it.
void planAttention(dnn::Handle handle, const graphc_sdpa_desc &sdpa,
                   uint64_t workspaceBytes, const uint32_t (&declared)[5],
                   dnn::Attempt &attempt) {
  using dnn::TensorSpec;
  const int32_t io =
      sdpa.dtype == kBfloat16 ? dnn::kDataBfloat16 : dnn::kDataHalf;
  const int64_t b = sdpa.batch, h = sdpa.heads, hk = sdpa.kv_heads,
                sq = sdpa.queries, skv = sdpa.keys, d = sdpa.head_dim,
                dv = sdpa.value_dim;
  auto real = [&](int64_t uid, std::vector<int64_t> dims,
                  const int64_t *strides, uint32_t alignment) {
    TensorSpec spec;
    spec.uid = uid;
    spec.strides = cudnnStrides(dims.data(), strides);
    spec.dims = std::move(dims);
    spec.dataType = io;
    spec.alignment = alignment;
    return dnn::tensor(attempt, spec);
  };
  int64_t nextVirtual = kUidVirtual;
  auto virtualTensor = [&](std::vector<int64_t> dims, int32_t dataType) {
    TensorSpec spec;
    spec.uid = nextVirtual++;
    spec.strides.assign(dims.size(), 1);
    for (size_t i = dims.size() - 1; i > 0; --i)
      spec.strides[i - 1] = spec.strides[i] * dims[i];
    spec.dims = std::move(dims);
    spec.dataType = dataType;
    spec.isVirtual = true;
    return dnn::tensor(attempt, spec);
  };
  auto scalar = [&](int64_t uid) {
    TensorSpec spec;
    spec.uid = uid;
    spec.dims = {1, 1, 1, 1};
    spec.strides = {1, 1, 1, 1};
    spec.dataType = dnn::kDataFloat;
    spec.byValue = true;
    return dnn::tensor(attempt, spec);
  };
  const std::vector<int64_t> scores = {b, h, sq, skv}, rows = {b, h, sq, 1};

  dnn::Descriptor q = real(kUidQ, {b, h, sq, d}, sdpa.q_strides, declared[kQ]);
  // K^T: K's last two dims and strides swapped, as the backend takes it.
  const int64_t kDims[4] = {b, hk, skv, d};
  std::vector<int64_t> kStrides = cudnnStrides(kDims, sdpa.k_strides);
  std::swap(kStrides[2], kStrides[3]);
  dnn::Descriptor kt =
      real(kUidK, {b, hk, d, skv}, kStrides.data(), declared[kK]);
  dnn::Descriptor v =
      real(kUidV, {b, hk, skv, dv}, sdpa.v_strides, declared[kV]);
  dnn::Descriptor o = real(kUidO, {b, h, sq, dv}, sdpa.o_strides, declared[kO]);

  std::vector<dnn::Descriptor> ops;
  auto matmul = [&](dnn::Descriptor a, dnn::Descriptor bm, dnn::Descriptor c) {
    dnn::Descriptor desc =
        attempt.create(dnn::kMatmulDescriptor, "matmul descriptor");
    const int32_t compute = dnn::kDataFloat;
    attempt.set(desc, dnn::kAttrMatmulCompType, dnn::kTypeDataType, 1, &compute,
                "matmul compute type");
    attempt.finalize(desc, "matmul descriptor");
    dnn::Descriptor op =
        attempt.create(dnn::kMatmulOperationDescriptor, "matmul operation");
    attempt.set(op, dnn::kAttrMatmulOperationA, dnn::kTypeBackendDescriptor, 1,
                &a, "matmul operation's A");
    attempt.set(op, dnn::kAttrMatmulOperationB, dnn::kTypeBackendDescriptor, 1,
                &bm, "matmul operation's B");
    attempt.set(op, dnn::kAttrMatmulOperationC, dnn::kTypeBackendDescriptor, 1,
                &c, "matmul operation's C");
    attempt.set(op, dnn::kAttrMatmulOperationDesc, dnn::kTypeBackendDescriptor,
                1, &desc, "matmul operation's descriptor");
    attempt.finalize(op, "matmul operation");
    ops.push_back(op);
  };
  // A reduction over the last dim into a new float32 virtual tensor.
  auto reduce = [&](int32_t mode, dnn::Descriptor x) {
    dnn::Descriptor y = virtualTensor(rows, dnn::kDataFloat);
    dnn::Descriptor desc =
        attempt.create(dnn::kReductionDescriptor, "reduction descriptor");
    const int32_t compute = dnn::kDataFloat;
    attempt.set(desc, dnn::kAttrReductionOperator, dnn::kTypeReductionOperator,
                1, &mode, "reduction operator");
    attempt.set(desc, dnn::kAttrReductionCompType, dnn::kTypeDataType, 1,
                &compute, "reduction compute type");
    attempt.finalize(desc, "reduction descriptor");
    dnn::Descriptor op = attempt.create(dnn::kReductionOperationDescriptor,
                                        "reduction operation");
    attempt.set(op, dnn::kAttrReductionOperationX, dnn::kTypeBackendDescriptor,
                1, &x, "reduction operation's X");
    attempt.set(op, dnn::kAttrReductionOperationY, dnn::kTypeBackendDescriptor,
                1, &y, "reduction operation's Y");
    attempt.set(op, dnn::kAttrReductionOperationDesc,
                dnn::kTypeBackendDescriptor, 1, &desc,
                "reduction operation's descriptor");
    attempt.finalize(op, "reduction operation");
    ops.push_back(op);
    return y;
  };
  auto pointwise = [&](int32_t mode, dnn::Descriptor x, dnn::Descriptor bp,
                       dnn::Descriptor y, dnn::Descriptor t = nullptr,
                       int32_t precision = dnn::kDataFloat, int64_t axis = -1) {
    dnn::PointwiseSpec spec;
    spec.mode = mode;
    spec.precision = precision;
    spec.axis = axis;
    ops.push_back(dnn::pointwise(attempt, spec, x, bp, y, t));
  };
  // A pointwise op into a new float32 virtual tensor of `dims`.
  auto apply = [&](int32_t mode, dnn::Descriptor x, dnn::Descriptor bp,
                   const std::vector<int64_t> &dims) {
    dnn::Descriptor y = virtualTensor(dims, dnn::kDataFloat);
    pointwise(mode, x, bp, y);
    return y;
  };

  dnn::Descriptor s = virtualTensor(scores, dnn::kDataFloat);
  matmul(q, kt, s);
  s = apply(dnn::kPointwiseMul, s, scalar(kUidScale), scores);
  if (sdpa.bias_arg >= 0) {
    dnn::Descriptor bias = real(kUidBias,
                                {sdpa.bias_dims[0], sdpa.bias_dims[1],
                                 sdpa.bias_dims[2], sdpa.bias_dims[3]},
                                sdpa.bias_strides, declared[kBias]);
    s = apply(dnn::kPointwiseAdd, s, bias, scores);
  }
  if (sdpa.is_causal) {
    dnn::Descriptor row = virtualTensor(scores, dnn::kDataInt32);
    pointwise(dnn::kPointwiseGenIndex, s, nullptr, row, nullptr,
              dnn::kDataInt32, 2);
    dnn::Descriptor col = virtualTensor(scores, dnn::kDataInt32);
    pointwise(dnn::kPointwiseGenIndex, s, nullptr, col, nullptr,
              dnn::kDataInt32, 3);
    dnn::Descriptor keep = virtualTensor(scores, dnn::kDataBoolean);
    pointwise(dnn::kPointwiseCmpGe, row, col, keep, nullptr, dnn::kDataBoolean);
    dnn::Descriptor masked = virtualTensor(scores, dnn::kDataFloat);
    pointwise(dnn::kPointwiseBinarySelect, s, scalar(kUidLowest), masked, keep);
    s = masked;
  }
  dnn::Descriptor max = reduce(dnn::kReduceMax, s);
  dnn::Descriptor shifted = apply(dnn::kPointwiseSub, s, max, scores);
  dnn::Descriptor exps = apply(dnn::kPointwiseExp, shifted, nullptr, scores);
  dnn::Descriptor sum = reduce(dnn::kReduceAdd, exps);
  dnn::Descriptor logSum = apply(dnn::kPointwiseLog, sum, nullptr, rows);
  // The statistics max + LOG(sum), a virtual output as the frontend has it.
  apply(dnn::kPointwiseAdd, max, logSum, rows);
  // The probabilities in the tensors' type: the second matmul reads them
  // as its A (cuDNN requires the I/O type there).
  dnn::Descriptor probs = virtualTensor(scores, io);
  pointwise(dnn::kPointwiseDiv, exps, sum, probs);
  matmul(probs, v, o);
  if (attempt.status != dnn::kSuccess)
    return;
  dnn::planGraph(handle, ops, sdpa.engine_rank, workspaceBytes, excludedBy,
                 attempt);
}
} // namespace

bool graphc::rt::cudnnSupports(const graphc_sdpa_desc &sdpa,
                               std::string &error) {
  if ((sdpa.dtype != kFloat16 && sdpa.dtype != kBfloat16) ||
      sdpa.compute_dtype != kFloat) {
    error = std::string("this runtime runs cuDNN attention of float16 or "
                        "bfloat16 computing in float32, not ") +
            graphc_dtype_name(sdpa.dtype) + " computing in " +
            graphc_dtype_name(sdpa.compute_dtype);
    return false;
  }
  return true;
}

graphc_code CudnnSdpa::create(const dnn::Library &library, dnn::Handle handle,
                              const graphc_sdpa_desc &sdpa,
                              uint64_t workspaceBytes,
                              const SdpaAlignment &alignment,
                              std::unique_ptr<CudnnSdpa> &out,
                              std::string &error) {
  if (!cudnnSupports(sdpa, error))
    return GRAPHC_UNIMPLEMENTED;
  std::unique_ptr<CudnnSdpa> built(new CudnnSdpa(library, handle, sdpa));
  const int64_t elementBytes = 2;
  built->declared[kQ] = alignmentAt(alignment.q, sdpa.q_offset, elementBytes);
  built->declared[kK] = alignmentAt(alignment.k, sdpa.k_offset, elementBytes);
  built->declared[kV] = alignmentAt(alignment.v, sdpa.v_offset, elementBytes);
  built->declared[kBias] =
      alignmentAt(alignment.bias, sdpa.bias_offset, elementBytes);
  built->declared[kO] = alignmentAt(alignment.o, sdpa.o_offset, elementBytes);
  built->scale = static_cast<float>(sdpa.scale);
  // The causal mask's fill, as cuDNN's frontend writes it: float's lowest.
  built->lowest = -FLT_MAX;

  dnn::Attempt attempt(library);
  planAttention(handle, sdpa, workspaceBytes, built->declared, attempt);
  if (attempt.status == dnn::kStatusHostAllocationFailed ||
      attempt.status == dnn::kStatusDeviceAllocationFailed) {
    error = attempt.failure() + " planning the attention " + problemOf(sdpa) +
            " on " + library.title();
    return GRAPHC_RESOURCE_EXHAUSTED;
  }
  if (attempt.status != dnn::kSuccess) {
    // A cuDNN that does not know an operation or attribute of the graph
    // has no engine for it either: the fallback kernel runs.
    built->whyNot = attempt.failure();
  } else if (!attempt.plan) {
    built->whyNot = attempt.whyNot;
  } else {
    built->plan = attempt.plan;
    built->planWorkspace = attempt.workspace;
    built->rank = attempt.rank;
    built->descriptors = std::move(attempt.owned);
    attempt.owned.clear();
  }
  if (!built->whyNot.empty())
    built->whyNot = library.title() + " has no engine for the attention " +
                    problemOf(sdpa) + " within " +
                    std::to_string(workspaceBytes) + " bytes of workspace (" +
                    built->whyNot + ")";
  out = std::move(built);
  return GRAPHC_OK;
}

CudnnSdpa::~CudnnSdpa() {
  for (auto at = descriptors.rbegin(); at != descriptors.rend(); ++at)
    library.backendDestroyDescriptor(*at);
}

graphc_code CudnnSdpa::enqueue(const cu::DevicePtr *args, std::string &error) {
  if (!plan) {
    error = "the attention has no cuDNN plan";
    return GRAPHC_INTERNAL;
  }
  const struct {
    const char *name;
    int64_t uid;
    int32_t arg;
    int64_t offset;
    uint32_t alignment;
  } tensors[] = {
      {"Q", kUidQ, sdpa.q_arg, sdpa.q_offset, declared[kQ]},
      {"K", kUidK, sdpa.k_arg, sdpa.k_offset, declared[kK]},
      {"V", kUidV, sdpa.v_arg, sdpa.v_offset, declared[kV]},
      {"bias", kUidBias, sdpa.bias_arg, sdpa.bias_offset, declared[kBias]},
      {"O", kUidO, sdpa.o_arg, sdpa.o_offset, declared[kO]}};
  std::vector<int64_t> uids;
  std::vector<void *> pointers;
  for (const auto &tensor : tensors) {
    if (tensor.arg < 0)
      continue;
    // The descriptor check bounded the offset within the argument.
    cu::DevicePtr at = args[tensor.arg] + static_cast<uint64_t>(tensor.offset) *
                                              graphc_dtype_size(sdpa.dtype);
    if (at % tensor.alignment) {
      error = std::string("the attention's ") + tensor.name + " at " +
              dnn::hexPointer(at) + " is not " +
              std::to_string(tensor.alignment) +
              "-byte aligned, as its cuDNN plan needs";
      return GRAPHC_INVALID_ARGUMENT;
    }
    uids.push_back(tensor.uid);
    pointers.push_back(reinterpret_cast<void *>(at));
  }
  // The scalars passed by value: host pointers, read when the work is
  // queued.
  uids.push_back(kUidScale);
  pointers.push_back(&scale);
  if (sdpa.is_causal) {
    uids.push_back(kUidLowest);
    pointers.push_back(&lowest);
  }
  void *workspace = reinterpret_cast<void *>(args[sdpa.workspace_arg]);
  return dnn::execute(library, handle, plan, uids, pointers, workspace, error);
}
