//===- CudnnGraph.cpp - building and planning cuDNN operation graphs ------===//
#include "runtime/src/CudnnGraph.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

using namespace graphc::rt;
using namespace graphc::rt::dnn;

namespace {
/// The most engine configurations of the heuristic's answer looked at.
constexpr int64_t kMaxEngineConfigs = 64;
/// The most reasons for skipped configurations a message lists.
constexpr size_t kMaxReasons = 8;
} // namespace

Attempt::~Attempt() {
  for (auto at = owned.rbegin(); at != owned.rend(); ++at)
    library.backendDestroyDescriptor(*at);
}

Descriptor Attempt::create(int type, const char *what) {
  if (status != kSuccess)
    return nullptr;
  Descriptor descriptor = nullptr;
  record(library.backendCreateDescriptor(type, &descriptor),
         "cudnnBackendCreateDescriptor", what);
  if (status != kSuccess)
    return nullptr;
  owned.push_back(descriptor);
  return descriptor;
}

void Attempt::set(Descriptor descriptor, int attribute, int type, int64_t count,
                  const void *values, const char *what) {
  if (status == kSuccess)
    record(
        library.backendSetAttribute(descriptor, attribute, type, count, values),
        "cudnnBackendSetAttribute", what);
}

void Attempt::finalize(Descriptor descriptor, const char *what) {
  if (status == kSuccess)
    record(library.backendFinalize(descriptor), "cudnnBackendFinalize", what);
}

void Attempt::get(Descriptor descriptor, int attribute, int type,
                  int64_t requested, int64_t *count, void *values,
                  const char *what) {
  if (status == kSuccess)
    record(library.backendGetAttribute(descriptor, attribute, type, requested,
                                       count, values),
           "cudnnBackendGetAttribute", what);
}

void Attempt::release(size_t mark) {
  while (owned.size() > mark) {
    library.backendDestroyDescriptor(owned.back());
    owned.pop_back();
  }
}

bool Attempt::goesOn() {
  if (status == kSuccess)
    return true;
  if (isNotSupported(status)) {
    whyNot = failure();
    status = kSuccess;
  }
  return false;
}

std::string Attempt::failure() const {
  return failedCall + " returned " + library.describe(status);
}

void Attempt::record(Status result, const char *function, const char *what) {
  if (result == kSuccess)
    return;
  status = result;
  failedCall = std::string(function) + " (" + what + ")";
}

Descriptor dnn::tensor(Attempt &attempt, const TensorSpec &spec) {
  Descriptor descriptor = attempt.create(kTensorDescriptor, "tensor");
  bool virtualFlag = spec.isVirtual;
  attempt.set(descriptor, kAttrTensorUniqueId, kTypeInt64, 1, &spec.uid,
              "tensor unique id");
  attempt.set(descriptor, kAttrTensorDataType, kTypeDataType, 1, &spec.dataType,
              "tensor data type");
  attempt.set(descriptor, kAttrTensorDimensions, kTypeInt64, spec.dims,
              "tensor dimensions");
  attempt.set(descriptor, kAttrTensorStrides, kTypeInt64, spec.strides,
              "tensor strides");
  attempt.set(descriptor, kAttrTensorIsVirtual, kTypeBoolean, 1, &virtualFlag,
              "tensor virtual flag");
  if (spec.byValue) {
    bool byValue = true;
    attempt.set(descriptor, kAttrTensorIsByValue, kTypeBoolean, 1, &byValue,
                "tensor by-value flag");
  }
  // cuDNN requires an alignment of every tensor; an intermediate never
  // reaches memory, so any power of two does for it.
  attempt.set(descriptor, kAttrTensorByteAlignment, kTypeInt64, 1,
              &spec.alignment, "tensor byte alignment");
  attempt.finalize(descriptor, "tensor");
  return descriptor;
}

Descriptor dnn::pointwise(Attempt &attempt, const PointwiseSpec &spec,
                          Descriptor x, Descriptor b, Descriptor y,
                          Descriptor t) {
  Descriptor desc =
      attempt.create(kPointwiseDescriptor, "pointwise descriptor");
  attempt.set(desc, kAttrPointwiseMode, kTypePointwiseMode, 1, &spec.mode,
              "pointwise mode");
  attempt.set(desc, kAttrPointwiseMathPrecision, kTypeDataType, 1,
              &spec.precision, "pointwise math precision");
  if (spec.axis >= 0)
    attempt.set(desc, kAttrPointwiseAxis, kTypeInt64, 1, &spec.axis,
                "pointwise axis");
  if (spec.swish) {
    // SWISH_FWD is x * sigmoid(beta x); SiLU is beta 1, set rather than
    // left to cuDNN's default.
    const double beta = 1.0;
    attempt.set(desc, kAttrPointwiseSwishBeta, kTypeDouble, 1, &beta,
                "pointwise swish beta");
  }
  attempt.finalize(desc, "pointwise descriptor");
  Descriptor op =
      attempt.create(kPointwiseOperationDescriptor, "pointwise operation");
  attempt.set(op, kAttrPointwiseOperationDesc, kTypeBackendDescriptor, 1, &desc,
              "pointwise operation's descriptor");
  attempt.set(op, kAttrPointwiseOperationX, kTypeBackendDescriptor, 1, &x,
              "pointwise operation's X");
  if (b)
    attempt.set(op, kAttrPointwiseOperationB, kTypeBackendDescriptor, 1, &b,
                "pointwise operation's B");
  if (t)
    attempt.set(op, kAttrPointwiseOperationT, kTypeBackendDescriptor, 1, &t,
                "pointwise operation's T");
  attempt.set(op, kAttrPointwiseOperationY, kTypeBackendDescriptor, 1, &y,
              "pointwise operation's Y");
  attempt.finalize(op, "pointwise operation");
  return op;
}

void dnn::planGraph(Handle handle, const std::vector<Descriptor> &ops,
                    int32_t engineRank, uint64_t workspaceBytes,
                    const NoteFilter &filter, Attempt &attempt) {
  Descriptor graph =
      attempt.create(kOperationGraphDescriptor, "operation graph");
  attempt.set(graph, kAttrOperationGraphOps, kTypeBackendDescriptor, ops,
              "operation graph's operations");
  attempt.set(graph, kAttrOperationGraphHandle, kTypeHandle, 1, &handle,
              "operation graph's handle");
  attempt.finalize(graph, "operation graph");

  Descriptor heuristics =
      attempt.create(kEngineHeuristicsDescriptor, "engine heuristics");
  const int32_t heuristicsMode = kHeuristicsModeA;
  attempt.set(heuristics, kAttrHeuristicsOperationGraph, kTypeBackendDescriptor,
              1, &graph, "engine heuristics' operation graph");
  attempt.set(heuristics, kAttrHeuristicsMode, kTypeHeuristicMode, 1,
              &heuristicsMode, "engine heuristics' mode");
  attempt.finalize(heuristics, "engine heuristics");
  int64_t offered = 0;
  attempt.get(heuristics, kAttrHeuristicsResults, kTypeBackendDescriptor, 0,
              &offered, nullptr, "engine heuristics' result count");
  if (!attempt.goesOn())
    return;
  offered = std::min(offered, kMaxEngineConfigs);
  std::vector<Descriptor> configs;
  for (int64_t i = 0; i < offered; ++i)
    configs.push_back(
        attempt.create(kEngineConfigDescriptor, "engine configuration"));
  int64_t returned = 0;
  if (offered > 0)
    attempt.get(heuristics, kAttrHeuristicsResults, kTypeBackendDescriptor,
                offered, &returned, configs.data(),
                "engine heuristics' results");
  if (!attempt.goesOn())
    return;
  returned = std::min(returned, offered);
  if (returned == 0) {
    attempt.whyNot = "its heuristic offers no engine";
    return;
  }

  // The tuned rank first; one the library does not offer (another GPU or
  // version than tuning saw) starts from its first choice.
  const int64_t start = engineRank < returned ? engineRank : 0;
  std::vector<std::string> reasons;
  for (int64_t i = 0; i < returned; ++i) {
    const int64_t rank = (start + i) % returned;
    const size_t mark = attempt.owned.size();
    std::string why;
    // What the engine does to the numbers, from its notes.
    Descriptor engine = attempt.create(kEngineDescriptor, "engine");
    int64_t engines = 0;
    attempt.get(configs[rank], kAttrEngineConfigEngine, kTypeBackendDescriptor,
                1, &engines, &engine, "engine configuration's engine");
    int32_t notes[kNoteTypeCount] = {};
    int64_t noteCount = 0;
    attempt.get(engine, kAttrEngineNumericalNote, kTypeNumericalNote,
                kNoteTypeCount, &noteCount, notes, "engine's numerical notes");
    if (attempt.status == kSuccess)
      why = filter(notes, std::min<int64_t>(noteCount, kNoteTypeCount));
    Descriptor plan = nullptr;
    int64_t workspace = 0;
    if (attempt.status == kSuccess && why.empty()) {
      plan = attempt.create(kExecutionPlanDescriptor, "execution plan");
      attempt.set(plan, kAttrPlanHandle, kTypeHandle, 1, &handle,
                  "execution plan's handle");
      attempt.set(plan, kAttrPlanEngineConfig, kTypeBackendDescriptor, 1,
                  &configs[rank], "execution plan's engine configuration");
      attempt.finalize(plan, "execution plan");
      int64_t count = 0;
      attempt.get(plan, kAttrPlanWorkspaceSize, kTypeInt64, 1, &count,
                  &workspace, "execution plan's workspace size");
      if (attempt.status == kSuccess &&
          (workspace < 0 || static_cast<uint64_t>(workspace) > workspaceBytes))
        why = "it needs " + std::to_string(workspace) + " bytes of workspace";
    }
    if (attempt.status != kSuccess) {
      // An engine that cannot take this graph is skipped, whatever it says.
      why = attempt.failure();
      attempt.status = kSuccess;
    }
    if (why.empty()) {
      attempt.plan = plan;
      attempt.workspace = static_cast<uint64_t>(workspace);
      attempt.rank = static_cast<int32_t>(rank);
      return;
    }
    attempt.release(mark);
    if (reasons.size() < kMaxReasons)
      reasons.push_back("rank " + std::to_string(rank) + ": " + why);
  }
  attempt.whyNot = "none of its " + std::to_string(returned) +
                   " engine configurations runs (";
  for (size_t i = 0; i < reasons.size(); ++i)
    attempt.whyNot += (i ? "; " : "") + reasons[i];
  attempt.whyNot +=
      size_t(returned) > reasons.size() ? "; ...)" : std::string(")");
}

graphc_code dnn::codeOf(Status status) {
  return status == kStatusHostAllocationFailed ||
                 status == kStatusDeviceAllocationFailed
             ? GRAPHC_RESOURCE_EXHAUSTED
             : GRAPHC_INTERNAL;
}

std::string dnn::hexPointer(cu::DevicePtr pointer) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%" PRIx64,
                static_cast<uint64_t>(pointer));
  return text;
}

graphc_code dnn::execute(const Library &library, Handle handle, Descriptor plan,
                         const std::vector<int64_t> &uids,
                         const std::vector<void *> &pointers, void *workspace,
                         std::string &error) {
  // Host memory only: the pack is built per run (the pointers differ
  // between runs without CUDA graphs) and read when the work is queued.
  Attempt pack(library);
  Descriptor variants = pack.create(kVariantPackDescriptor, "variant pack");
  pack.set(variants, kAttrVariantPackUniqueIds, kTypeInt64, uids,
           "variant pack's unique ids");
  pack.set(variants, kAttrVariantPackDataPointers, kTypeVoidPointer, pointers,
           "variant pack's data pointers");
  pack.set(variants, kAttrVariantPackWorkspace, kTypeVoidPointer, 1, &workspace,
           "variant pack's workspace");
  pack.finalize(variants, "variant pack");
  if (pack.status != kSuccess) {
    error = pack.failure();
    return codeOf(pack.status);
  }
  Status status = library.backendExecute(handle, plan, variants);
  if (status != kSuccess) {
    error = "cudnnBackendExecute returned " + library.describe(status);
    return codeOf(status);
  }
  return GRAPHC_OK;
}
