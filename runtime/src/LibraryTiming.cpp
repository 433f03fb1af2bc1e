//===- LibraryTiming.cpp - timing a library kernel's algorithms -----------===//
#include "runtime/src/LibraryTiming.h"

#include "lib/Support/Median.h"
#include "runtime/src/CudaSession.h"
#include "runtime/src/Model.h"
#include "runtime/src/Status.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>

using namespace graphc::rt;

namespace {

/// Untimed runs of each candidate before the timed ones at session
/// creation: the first run of a library kernel loads its code.
constexpr int32_t kCreationWarmup = 3;

/// Split-K is tried on the first this many ranks only: further down the
/// heuristic's list the algorithms are rarely close enough to gain.
constexpr int32_t kSplitKRanks = 4;
/// Each part of a split K is at least this deep: shallower parts spend
/// more on the reduction than the idle SMs they fill.
constexpr int64_t kMinSplitDepth = 64;
/// A split is tried while it gives at most this many waves.
constexpr float kMaxSplitWaves = 2.0f;

uint64_t alignUp(uint64_t value) {
  return (value + GRAPHC_ALIGNMENT - 1) / GRAPHC_ALIGNMENT * GRAPHC_ALIGNMENT;
}

/// Elements `batch` row-major `rows` x `cols` matrices with leading dim
/// `ld`, `stride` elements apart, span.
uint64_t matrixElements(int64_t rows, int64_t cols, int64_t ld, int64_t batch,
                        int64_t stride) {
  if (rows <= 0 || cols <= 0 || batch <= 0)
    return 0;
  return uint64_t((batch - 1) * stride + (rows - 1) * ld + cols);
}

int64_t product(const int64_t *values, int32_t count) {
  int64_t result = 1;
  for (int32_t i = 0; i < count; ++i)
    result *= values[i];
  return result;
}

/// Per step argument of a call of `kernel`, the bytes its operand spans
/// (0: absent), the workspace (`workspace` bytes) last. Arguments given
/// twice (C computed in place in D) span the larger.
std::vector<uint64_t> operandBytes(const graphc_kernel_desc &kernel,
                                   uint64_t workspace) {
  std::vector<uint64_t> bytes;
  auto need = [&](int32_t arg, uint64_t size) {
    if (arg < 0)
      return;
    if (size_t(arg) >= bytes.size())
      bytes.resize(arg + 1, 0);
    bytes[arg] = std::max(bytes[arg], size);
  };
  if (const graphc_gemm_desc *g = kernel.gemm) {
    uint64_t size = graphc_dtype_size(g->dtype);
    need(g->a_arg, size * matrixElements(g->trans_a ? g->k : g->m,
                                         g->trans_a ? g->m : g->k, g->lda,
                                         g->batch, g->stride_a));
    need(g->b_arg, size * matrixElements(g->trans_b ? g->n : g->k,
                                         g->trans_b ? g->k : g->n, g->ldb,
                                         g->batch, g->stride_b));
    need(g->c_arg,
         size * matrixElements(g->m, g->n, g->ldc, g->batch, g->stride_c));
    need(g->bias_arg, size * uint64_t(g->n));
    need(g->d_arg, size * uint64_t(g->m * g->n * g->batch));
    need(g->workspace_arg, workspace);
  } else if (const graphc_conv_desc *c = kernel.conv) {
    uint64_t size = graphc_dtype_size(c->dtype);
    int32_t dims = c->spatial_dims;
    uint64_t out = uint64_t(c->n * c->k * product(c->out_size, dims));
    need(c->x_arg, size * uint64_t(c->n * c->c * product(c->in_size, dims)));
    need(c->w_arg, size * uint64_t(c->k * (c->c / c->groups) *
                                   product(c->filter_size, dims)));
    need(c->bias_arg, size * uint64_t(c->k));
    need(c->z_arg, size * out);
    need(c->y_arg, size * out);
    need(c->workspace_arg, workspace);
  }
  return bytes;
}

} // namespace

bool graphc::rt::timeLibraryAlgorithmsFromEnvironment() {
  const char *value = std::getenv("GRAPHC_TIME_LIBRARY_ALGORITHMS");
  return value && *value && std::strcmp(value, "0") != 0;
}

graphc_status
CudaSession::timeLibraryKernel(int32_t k, int32_t maxRanks, bool splitK,
                               int32_t warmup, int32_t repeats,
                               std::vector<graphc_library_candidate> &out) {
  out.clear();
  const graphc_kernel_desc &kernel = model.desc->kernels[k];
  const bool gemm = kernel.gemm != nullptr;
  if (kernel.sdpa)
    return makeStatus(GRAPHC_FAILED_PRECONDITION,
                      describeKernel(k) +
                          " is attention on cuDNN, whose engines are not "
                          "timed: it runs the heuristic's rank");
  if (size_t(k) >= libraryWorkspace.size() ||
      libraryWorkspace[k] == UINT64_MAX ||
      !(gemm ? gemms[k] != nullptr : convs[k] != nullptr))
    return makeStatus(GRAPHC_FAILED_PRECONDITION,
                      "no step calls " + describeKernel(k) +
                          ", so the session built nothing to time");
  if (asyncPending)
    return makeStatus(GRAPHC_FAILED_PRECONDITION,
                      "an asynchronous run may still be in flight: call "
                      "graphc_session_synchronize first");
  if (!drv.eventElapsedTime)
    return makeStatus(GRAPHC_FAILED_PRECONDITION,
                      "cannot time library algorithms: the CUDA driver has "
                      "no cuEventElapsedTime");
  std::optional<cu::ContextGuard> guard;
  if (graphc_status status = enterDevice(guard))
    return status;
  // Like session creation, never part of a capture another stream of the
  // caller's thread may be making.
  cu::RelaxedCaptureGuard relaxed(drv);
  maxRanks = std::clamp(maxRanks, 1, int32_t(GRAPHC_MAX_ALGO_RANKS));
  warmup = std::max(warmup, 0);
  repeats = std::max(repeats, 1);
  const uint64_t workspace = libraryWorkspace[k];
  const std::string where = " of " + describeKernel(k) +
                            " on cuda:" + std::to_string(device.ordinal) +
                            " for model '" + model.path + "'";

  // The operands: one 256-byte-aligned slot per argument, in the arena
  // when they fit, else in a block of their own.
  std::vector<uint64_t> bytes = operandBytes(kernel, workspace);
  uint64_t total = 0;
  for (uint64_t size : bytes)
    total += alignUp(size);
  cu::DevicePtr base = arena;
  cu::DevicePtr scratch = 0;
  cu::Event start = nullptr, end = nullptr;
  // Frees what the timing allocated however it ends.
  struct Cleanup {
    const cu::Driver &drv;
    cu::DevicePtr &scratch;
    cu::Event &start, &end;
    ~Cleanup() {
      drv.freeIfAllocated(scratch);
      drv.destroyIfCreated(start);
      drv.destroyIfCreated(end);
    }
  } cleanup{drv, scratch, start, end};
  if (total > model.maxArenaBytes) {
    cu::Result result = drv.memAlloc(&scratch, total);
    if (result != cu::kSuccess) {
      scratch = 0;
      return error("cannot allocate " + std::to_string(total) +
                       " bytes to time the algorithms" + where,
                   result);
    }
    base = scratch;
  }
  std::vector<cu::DevicePtr> args(bytes.size(), 0);
  cu::DevicePtr next = base;
  for (size_t a = 0; a < bytes.size(); ++a) {
    if (!bytes[a])
      continue;
    args[a] = next;
    next += alignUp(bytes[a]);
  }
  cu::Result result = cu::kSuccess;
  if (total)
    result = drv.memsetD8Async(base, 0, total, stream);
  if (result == cu::kSuccess)
    result = drv.eventCreate(&start, 0);
  if (result == cu::kSuccess)
    result = drv.eventCreate(&end, 0);
  if (result != cu::kSuccess)
    return error("cannot prepare to time the algorithms" + where, result);

  // Runs `enqueue` warmup + repeats times; the median of the timed runs,
  // or none when the library refuses to queue the candidate (it is then
  // skipped: the heuristic offered it, but this build of the library will
  // not run it). A driver failure ends the timing.
  auto time = [&](const std::function<graphc_code(std::string &)> &enqueue,
                  std::optional<double> &micros) -> graphc_status {
    micros.reset();
    std::vector<double> samples;
    for (int32_t r = 0; r < warmup + repeats; ++r) {
      std::string failure;
      cu::Result status = drv.eventRecord(start, stream);
      if (status != cu::kSuccess)
        return error("cannot record a timing event", status);
      if (enqueue(failure) != GRAPHC_OK)
        return nullptr;
      if ((status = drv.eventRecord(end, stream)) != cu::kSuccess ||
          (status = drv.streamSynchronize(stream)) != cu::kSuccess)
        return error("timing the algorithms" + where, status);
      float milliseconds = 0;
      if ((status = drv.eventElapsedTime(&milliseconds, start, end)) !=
          cu::kSuccess)
        return error("cannot read a timing event", status);
      if (r >= warmup)
        samples.push_back(double(milliseconds) * 1000.0);
    }
    micros = median(std::move(samples));
    return nullptr;
  };

  if (gemm) {
    const lt::Library &library = *model.cuda->cublasLt();
    auto build = [&](int32_t rank, int32_t parts,
                     std::unique_ptr<CublasLtGemm> &built) -> graphc_status {
      graphc_gemm_desc desc = *kernel.gemm;
      desc.algo_rank = rank;
      desc.split_k = parts;
      std::string why;
      graphc_code code = CublasLtGemm::create(
          library, ltHandle, desc, workspace, gemmAlignments[k], built, why);
      if (code != GRAPHC_OK)
        return libraryError(code, "cannot build a candidate" + where, why);
      return nullptr;
    };
    auto timeBuilt = [&](CublasLtGemm &built, std::optional<double> &micros) {
      return time(
          [&](std::string &failure) {
            return built.enqueue(args.data(), workspace, stream, failure);
          },
          micros);
    };
    for (int32_t rank = 0; rank < maxRanks; ++rank) {
      std::unique_ptr<CublasLtGemm> built;
      if (graphc_status status = build(rank, 0, built))
        return status;
      // A library that offers fewer algorithms runs its first instead.
      if (built->algoRank() != rank)
        break;
      std::optional<double> micros;
      if (graphc_status status = timeBuilt(*built, micros))
        return status;
      if (micros)
        out.push_back({rank, 0, *micros});
      const float waves = built->waves();
      if (!splitK || rank >= kSplitKRanks || built->offeredSplitK() ||
          !(waves > 0 && waves < 1))
        continue;
      for (int32_t parts = 2; parts <= 16; parts *= 2) {
        if (kernel.gemm->k / parts < kMinSplitDepth ||
            waves * float(parts) > kMaxSplitWaves)
          break;
        std::unique_ptr<CublasLtGemm> split;
        if (graphc_status status = build(rank, parts, split))
          return status;
        // cuBLASLt refused this split (or it needs more workspace).
        if (split->algoRank() != rank || split->splitK() != parts)
          continue;
        if (graphc_status status = timeBuilt(*split, micros))
          return status;
        if (micros)
          out.push_back({rank, parts, *micros});
      }
    }
  } else {
    const dnn::Library &library = *model.cuda->cudnn();
    for (int32_t rank = 0; rank < maxRanks; ++rank) {
      graphc_conv_desc desc = *kernel.conv;
      desc.engine_rank = rank;
      std::unique_ptr<CudnnConv> built;
      std::string why;
      graphc_code code = CudnnConv::create(library, dnnHandle, desc, workspace,
                                           convAlignments[k], built, why);
      if (code != GRAPHC_OK)
        return libraryError(code, "cannot build a candidate" + where, why);
      // An engine that cannot run the graph gives way to the next one in
      // the heuristic's order, wrapping around past the last: a lower rank
      // means none is left from this one on.
      if (built->engineRank() < rank)
        break;
      if (built->engineRank() != rank)
        continue;
      std::optional<double> micros;
      if (graphc_status status = time(
              [&](std::string &failure) {
                return built->enqueue(args.data(), failure);
              },
              micros))
        return status;
      if (micros)
        out.push_back({rank, 0, *micros});
    }
  }
  return nullptr;
}

graphc_status CudaSession::timeLibraryAlgorithms() {
  const graphc_model_desc &desc = *model.desc;
  std::vector<graphc_library_candidate> candidates;
  for (int32_t k = 0; k < desc.num_kernels; ++k) {
    const graphc_kernel_desc &kernel = desc.kernels[k];
    // A tuned choice was measured on the GPU it was tuned for; keep it.
    bool planned = kernel.gemm   ? size_t(k) < gemms.size() && gemms[k]
                   : kernel.conv ? size_t(k) < convs.size() && convs[k]
                                 : false;
    if (!planned || (kernel.gemm ? kernel.gemm->tuned : kernel.conv->tuned))
      continue;
    if (graphc_status status = timeLibraryKernel(
            k, GRAPHC_LIBRARY_TIMING_RANKS, /*splitK=*/false, kCreationWarmup,
            GRAPHC_LIBRARY_TIMING_REPEATS, candidates))
      return status;
    if (candidates.empty())
      continue;
    // The fastest; the lower rank on a tie.
    const graphc_library_candidate *best = &candidates[0];
    for (const graphc_library_candidate &candidate : candidates)
      if (candidate.micros < best->micros)
        best = &candidate;
    const int32_t current =
        kernel.gemm ? gemms[k]->algoRank() : convs[k]->engineRank();
    if (best->rank == current)
      continue;
    std::string why;
    graphc_code code;
    if (kernel.gemm) {
      graphc_gemm_desc chosen = *kernel.gemm;
      chosen.algo_rank = best->rank;
      code = CublasLtGemm::create(*model.cuda->cublasLt(), ltHandle, chosen,
                                  libraryWorkspace[k], gemmAlignments[k],
                                  gemms[k], why);
    } else {
      graphc_conv_desc chosen = *kernel.conv;
      chosen.engine_rank = best->rank;
      code = CudnnConv::create(*model.cuda->cudnn(), dnnHandle, chosen,
                               libraryWorkspace[k], convAlignments[k], convs[k],
                               why);
    }
    if (code != GRAPHC_OK)
      return makeStatus(code, "cannot run " + describeKernel(k) +
                                  " with its fastest algorithm: " + why);
  }
  return nullptr;
}
