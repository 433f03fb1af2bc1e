//===- CudnnConv.cpp - a library kernel's convolution on cuDNN ------------===//
#include "runtime/src/CudnnConv.h"

#include "runtime/src/OnnxDtype.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <utility>

using namespace graphc::rt;

namespace {
/// The tensors' unique ids in the graph; the virtual ones count up from
/// kUidVirtual.
constexpr int64_t kUidX = 1, kUidW = 2, kUidBias = 3, kUidZ = 4, kUidY = 5,
                  kUidVirtual = 10;
/// The byte alignment declared for virtual tensors (as cuDNN's frontend
/// does).
constexpr uint32_t kVirtualAlignment = 16;
/// The most engine configurations of the heuristic's answer looked at.
constexpr int64_t kMaxEngineConfigs = 64;
/// The most reasons for skipped configurations a message lists.
constexpr size_t kMaxReasons = 8;

std::string hexPointer(cu::DevicePtr pointer) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%" PRIx64,
                static_cast<uint64_t>(pointer));
  return text;
}

/// The cuDNN data type of a checked convolution's tensors.
int32_t dataTypeOf(const graphc_conv_desc &conv) {
  return conv.dtype == kFloat16    ? dnn::kDataHalf
         : conv.dtype == kBfloat16 ? dnn::kDataBfloat16
                                   : dnn::kDataFloat;
}

/// A convolution's tensor dims and attributes as cuDNN takes them: 4-d or
/// 5-d, a 1-d convolution lifted to 2-d with a unit first spatial dim.
struct CudnnShape {
  std::vector<int64_t> x, w, y, bias;
  std::vector<int64_t> prePaddings, postPaddings, strides, dilations;
};

CudnnShape shapeOf(const graphc_conv_desc &conv) {
  CudnnShape shape;
  shape.x = {conv.n, conv.c};
  shape.w = {conv.k, conv.c / conv.groups};
  shape.y = {conv.n, conv.k};
  shape.bias = {1, conv.k};
  if (conv.spatial_dims == 1) {
    for (std::vector<int64_t> *dims :
         {&shape.x, &shape.w, &shape.y, &shape.bias, &shape.strides,
          &shape.dilations})
      dims->push_back(1);
    shape.prePaddings.push_back(0);
    shape.postPaddings.push_back(0);
  }
  for (int32_t i = 0; i < conv.spatial_dims; ++i) {
    shape.x.push_back(conv.in_size[i]);
    shape.w.push_back(conv.filter_size[i]);
    shape.y.push_back(conv.out_size[i]);
    shape.bias.push_back(1);
    shape.prePaddings.push_back(conv.pads_begin[i]);
    shape.postPaddings.push_back(conv.pads_end[i]);
    shape.strides.push_back(conv.strides[i]);
    shape.dilations.push_back(conv.dilations[i]);
  }
  return shape;
}

/// The strides of a dense tensor of cuDNN's `dims` ([n, c, spatial...]):
/// row-major, or with the channels last ([n, spatial..., c] row-major).
/// cuDNN keeps that dim order in every layout; only the strides differ.
std::vector<int64_t> stridesOf(const std::vector<int64_t> &dims,
                               bool channelsLast) {
  std::vector<int64_t> strides(dims.size(), 1);
  if (!channelsLast) {
    for (size_t i = dims.size() - 1; i > 0; --i)
      strides[i - 1] = strides[i] * dims[i];
    return strides;
  }
  int64_t inner = dims[1];
  for (size_t i = dims.size() - 1; i > 1; --i) {
    strides[i] = inner;
    inner *= dims[i];
  }
  strides[0] = inner;
  return strides;
}

/// "NHWC" and the like: the layout of `conv`'s X and Y.
std::string layoutOf(const graphc_conv_desc &conv) {
  static const char *const first[] = {"NCW", "NCHW", "NCDHW"};
  static const char *const last[] = {"NWC", "NHWC", "NDHWC"};
  return (conv.channels_last ? last : first)[conv.spatial_dims - 1];
}

/// "7x6" for the first `count` of `values`.
std::string joined(const int64_t *values, int32_t count) {
  std::string text;
  for (int32_t i = 0; i < count; ++i)
    text += (i ? "x" : "") + std::to_string(values[i]);
  return text;
}

/// "n 2, c 4, in 7x6, k 6, filter 3x2, groups 2, stride 2x2, dilation 1x2,
/// float32, NCHW".
std::string problemOf(const graphc_conv_desc &conv) {
  return "n " + std::to_string(conv.n) + ", c " + std::to_string(conv.c) +
         ", in " + joined(conv.in_size, conv.spatial_dims) + ", k " +
         std::to_string(conv.k) + ", filter " +
         joined(conv.filter_size, conv.spatial_dims) + ", groups " +
         std::to_string(conv.groups) + ", stride " +
         joined(conv.strides, conv.spatial_dims) + ", dilation " +
         joined(conv.dilations, conv.spatial_dims) + ", " +
         graphc_dtype_name(conv.dtype) + (conv.tf32 ? " (tf32)" : "") + ", " +
         layoutOf(conv);
}

/// ", with bias, Z and relu" (or silu, gelu_erf) for what follows the
/// convolution.
std::string epilogueOf(const graphc_conv_desc &conv) {
  std::vector<std::string> parts;
  if (conv.bias_arg >= 0)
    parts.push_back("bias");
  if (conv.z_arg >= 0)
    parts.push_back("Z");
  if (conv.epilogue == GRAPHC_EPILOGUE_RELU)
    parts.push_back("relu");
  else if (conv.epilogue == GRAPHC_EPILOGUE_SILU)
    parts.push_back("silu");
  else if (conv.epilogue == GRAPHC_EPILOGUE_GELU_ERF)
    parts.push_back("gelu_erf");
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i)
    text += (i == 0                  ? ", with "
             : i + 1 == parts.size() ? " and "
                                     : ", ") +
            parts[i];
  return text;
}

/// One planning attempt: the descriptors it created (destroyed with it
/// unless adopted), the sequence's first failing call, and the plan.
class Attempt {
public:
  explicit Attempt(const dnn::Library &library) : library(library) {}
  ~Attempt() {
    for (auto at = owned.rbegin(); at != owned.rend(); ++at)
      library.backendDestroyDescriptor(*at);
  }
  Attempt(const Attempt &) = delete;
  Attempt &operator=(const Attempt &) = delete;

  /// A new descriptor of `type`, or null once a call failed.
  dnn::Descriptor create(int type, const char *what) {
    if (status != dnn::kSuccess)
      return nullptr;
    dnn::Descriptor descriptor = nullptr;
    record(library.backendCreateDescriptor(type, &descriptor),
           "cudnnBackendCreateDescriptor", what);
    if (status != dnn::kSuccess)
      return nullptr;
    owned.push_back(descriptor);
    return descriptor;
  }
  void set(dnn::Descriptor descriptor, int attribute, int type, int64_t count,
           const void *values, const char *what) {
    if (status == dnn::kSuccess)
      record(library.backendSetAttribute(descriptor, attribute, type, count,
                                         values),
             "cudnnBackendSetAttribute", what);
  }
  void finalize(dnn::Descriptor descriptor, const char *what) {
    if (status == dnn::kSuccess)
      record(library.backendFinalize(descriptor), "cudnnBackendFinalize", what);
  }
  void get(dnn::Descriptor descriptor, int attribute, int type,
           int64_t requested, int64_t *count, void *values, const char *what) {
    if (status == dnn::kSuccess)
      record(library.backendGetAttribute(descriptor, attribute, type, requested,
                                         count, values),
             "cudnnBackendGetAttribute", what);
  }
  /// Destroys the descriptors created since `mark` (a skipped engine's).
  void release(size_t mark) {
    while (owned.size() > mark) {
      library.backendDestroyDescriptor(owned.back());
      owned.pop_back();
    }
  }
  /// Whether no call failed. A graph cuDNN does not support is no error of
  /// the runtime's: that failure becomes the reason there is no plan.
  bool goesOn() {
    if (status == dnn::kSuccess)
      return true;
    if (dnn::isNotSupported(status)) {
      whyNot = failure();
      status = dnn::kSuccess;
    }
    return false;
  }
  /// "cudnnBackendFinalize (operation graph) returned ...".
  std::string failure() const {
    return failedCall + " returned " + library.describe(status);
  }

  const dnn::Library &library;
  std::vector<dnn::Descriptor> owned;
  dnn::Status status = dnn::kSuccess;
  std::string failedCall;
  dnn::Descriptor plan = nullptr;
  uint64_t workspace = 0;
  int32_t rank = -1;
  /// Why the graph has no plan, when it has none and nothing failed hard.
  std::string whyNot;

private:
  void record(dnn::Status result, const char *function, const char *what) {
    if (result == dnn::kSuccess)
      return;
    status = result;
    failedCall = std::string(function) + " (" + what + ")";
  }
};

/// A finalized tensor descriptor of `dims` in the convolution's layout.
dnn::Descriptor tensor(Attempt &attempt, int64_t uid,
                       const std::vector<int64_t> &dims, bool channelsLast,
                       int32_t dataType, uint32_t alignment, bool isVirtual) {
  dnn::Descriptor descriptor = attempt.create(dnn::kTensorDescriptor, "tensor");
  std::vector<int64_t> strides = stridesOf(dims, channelsLast);
  auto count = static_cast<int64_t>(dims.size());
  int64_t bytes = alignment;
  bool virtualFlag = isVirtual;
  attempt.set(descriptor, dnn::kAttrTensorUniqueId, dnn::kTypeInt64, 1, &uid,
              "tensor unique id");
  attempt.set(descriptor, dnn::kAttrTensorDataType, dnn::kTypeDataType, 1,
              &dataType, "tensor data type");
  attempt.set(descriptor, dnn::kAttrTensorDimensions, dnn::kTypeInt64, count,
              dims.data(), "tensor dimensions");
  attempt.set(descriptor, dnn::kAttrTensorStrides, dnn::kTypeInt64, count,
              strides.data(), "tensor strides");
  attempt.set(descriptor, dnn::kAttrTensorIsVirtual, dnn::kTypeBoolean, 1,
              &virtualFlag, "tensor virtual flag");
  // cuDNN requires an alignment of every tensor; an intermediate never
  // reaches memory, so any power of two does for it.
  attempt.set(descriptor, dnn::kAttrTensorByteAlignment, dnn::kTypeInt64, 1,
              &bytes, "tensor byte alignment");
  attempt.finalize(descriptor, "tensor");
  return descriptor;
}

/// A finalized pointwise operation: y = mode(x[, b]).
dnn::Descriptor pointwise(Attempt &attempt, int32_t mode, dnn::Descriptor x,
                          dnn::Descriptor b, dnn::Descriptor y) {
  dnn::Descriptor desc =
      attempt.create(dnn::kPointwiseDescriptor, "pointwise descriptor");
  int32_t precision = dnn::kDataFloat;
  attempt.set(desc, dnn::kAttrPointwiseMode, dnn::kTypePointwiseMode, 1, &mode,
              "pointwise mode");
  attempt.set(desc, dnn::kAttrPointwiseMathPrecision, dnn::kTypeDataType, 1,
              &precision, "pointwise math precision");
  if (mode == dnn::kPointwiseSwishForward) {
    // SWISH_FWD is x * sigmoid(beta x); SiLU is beta 1, set rather than
    // left to cuDNN's default. A double, as cuDNN's frontend passes it.
    const double beta = 1.0;
    attempt.set(desc, dnn::kAttrPointwiseSwishBeta, dnn::kTypeDouble, 1, &beta,
                "pointwise swish beta");
  }
  attempt.finalize(desc, "pointwise descriptor");
  dnn::Descriptor op =
      attempt.create(dnn::kPointwiseOperationDescriptor, "pointwise operation");
  attempt.set(op, dnn::kAttrPointwiseOperationDesc, dnn::kTypeBackendDescriptor,
              1, &desc, "pointwise operation's descriptor");
  attempt.set(op, dnn::kAttrPointwiseOperationX, dnn::kTypeBackendDescriptor, 1,
              &x, "pointwise operation's X");
  if (b)
    attempt.set(op, dnn::kAttrPointwiseOperationB, dnn::kTypeBackendDescriptor,
                1, &b, "pointwise operation's B");
  attempt.set(op, dnn::kAttrPointwiseOperationY, dnn::kTypeBackendDescriptor, 1,
              &y, "pointwise operation's Y");
  attempt.finalize(op, "pointwise operation");
  return op;
}

/// Why the configuration with these numerical notes may not run `conv`,
/// or "" when it may: products accumulate in float32 from the tensors'
/// own values, and float32 ones round to tf32 (on tensor cores) only with
/// tf32.
std::string excludedBy(const int32_t *notes, int64_t count,
                       const graphc_conv_desc &conv) {
  for (int64_t i = 0; i < count; ++i) {
    if (notes[i] == dnn::kNoteDownConvertInputs)
      return "it converts the inputs down";
    if (notes[i] == dnn::kNoteReducedPrecisionReduction)
      return "it accumulates in reduced precision";
    if (notes[i] == dnn::kNoteTensorCore && conv.dtype == kFloat && !conv.tf32)
      return "it rounds float32 to tf32 on tensor cores, and the kernel "
             "asks for exact float32 products";
  }
  return "";
}

/// Builds the operation graph of `conv` (the whole of it, or the
/// convolution alone) into `attempt` and plans it: the configuration of
/// rank conv.engine_rank when it may run the graph, finalizes and needs at
/// most `workspaceBytes`, else the next ones in the heuristic's order.
/// Leaves attempt.plan null with whyNot, or with a failed call in
/// attempt.status.
void planGraph(dnn::Handle handle, const graphc_conv_desc &conv, bool whole,
               uint64_t workspaceBytes, const ConvAlignment &alignment,
               Attempt &attempt) {
  const CudnnShape shape = shapeOf(conv);
  // Every tensor in the layout, the intermediates and the broadcast bias
  // too: an engine then reads and writes them all alike.
  const bool last = conv.channels_last != 0;
  const int32_t dataType = dataTypeOf(conv);
  const int32_t floatType = dnn::kDataFloat;
  // The operations after the convolution, in order.
  const bool bias = whole && conv.bias_arg >= 0;
  const bool z = whole && conv.z_arg >= 0;
  const bool activation = whole && conv.epilogue != GRAPHC_EPILOGUE_NONE;
  const int followers = int(bias) + int(z) + int(activation);

  dnn::Descriptor x =
      tensor(attempt, kUidX, shape.x, last, dataType, alignment.x, false);
  dnn::Descriptor w =
      tensor(attempt, kUidW, shape.w, last, dataType, alignment.w, false);
  dnn::Descriptor y =
      tensor(attempt, kUidY, shape.y, last, dataType, alignment.y, false);
  // The output of each operation: a float32 intermediate, or Y for the last.
  int64_t nextVirtual = kUidVirtual;
  int remaining = followers;
  auto output = [&]() {
    return remaining-- == 0 ? y
                            : tensor(attempt, nextVirtual++, shape.y, last,
                                     floatType, kVirtualAlignment, true);
  };

  dnn::Descriptor convDesc =
      attempt.create(dnn::kConvolutionDescriptor, "convolution descriptor");
  const auto spatial = static_cast<int64_t>(shape.strides.size());
  const int32_t mode = dnn::kCrossCorrelation;
  attempt.set(convDesc, dnn::kAttrConvolutionComputeType, dnn::kTypeDataType, 1,
              &floatType, "convolution compute type");
  attempt.set(convDesc, dnn::kAttrConvolutionMode, dnn::kTypeConvolutionMode, 1,
              &mode, "convolution mode");
  attempt.set(convDesc, dnn::kAttrConvolutionSpatialDims, dnn::kTypeInt64, 1,
              &spatial, "convolution spatial dims");
  attempt.set(convDesc, dnn::kAttrConvolutionPrePaddings, dnn::kTypeInt64,
              spatial, shape.prePaddings.data(), "convolution pre-paddings");
  attempt.set(convDesc, dnn::kAttrConvolutionPostPaddings, dnn::kTypeInt64,
              spatial, shape.postPaddings.data(), "convolution post-paddings");
  attempt.set(convDesc, dnn::kAttrConvolutionFilterStrides, dnn::kTypeInt64,
              spatial, shape.strides.data(), "convolution strides");
  attempt.set(convDesc, dnn::kAttrConvolutionDilations, dnn::kTypeInt64,
              spatial, shape.dilations.data(), "convolution dilations");
  attempt.finalize(convDesc, "convolution descriptor");

  std::vector<dnn::Descriptor> ops;
  dnn::Descriptor current = output();
  dnn::Descriptor forward = attempt.create(dnn::kConvolutionForwardDescriptor,
                                           "convolution forward operation");
  const float alpha = 1.0f, beta = 0.0f;
  attempt.set(forward, dnn::kAttrConvolutionForwardDesc,
              dnn::kTypeBackendDescriptor, 1, &convDesc,
              "convolution forward descriptor");
  attempt.set(forward, dnn::kAttrConvolutionForwardX,
              dnn::kTypeBackendDescriptor, 1, &x, "convolution forward X");
  attempt.set(forward, dnn::kAttrConvolutionForwardW,
              dnn::kTypeBackendDescriptor, 1, &w, "convolution forward W");
  attempt.set(forward, dnn::kAttrConvolutionForwardY,
              dnn::kTypeBackendDescriptor, 1, &current,
              "convolution forward Y");
  attempt.set(forward, dnn::kAttrConvolutionForwardAlpha, dnn::kTypeFloat, 1,
              &alpha, "convolution forward alpha");
  attempt.set(forward, dnn::kAttrConvolutionForwardBeta, dnn::kTypeFloat, 1,
              &beta, "convolution forward beta");
  attempt.finalize(forward, "convolution forward operation");
  ops.push_back(forward);
  if (bias) {
    dnn::Descriptor b = tensor(attempt, kUidBias, shape.bias, last, dataType,
                               alignment.bias, false);
    dnn::Descriptor next = output();
    ops.push_back(pointwise(attempt, dnn::kPointwiseAdd, current, b, next));
    current = next;
  }
  if (z) {
    dnn::Descriptor residual =
        tensor(attempt, kUidZ, shape.y, last, dataType, alignment.z, false);
    dnn::Descriptor next = output();
    ops.push_back(
        pointwise(attempt, dnn::kPointwiseAdd, current, residual, next));
    current = next;
  }
  if (activation)
    ops.push_back(pointwise(attempt,
                            conv.epilogue == GRAPHC_EPILOGUE_SILU
                                ? dnn::kPointwiseSwishForward
                            : conv.epilogue == GRAPHC_EPILOGUE_GELU_ERF
                                ? dnn::kPointwiseGeluForward
                                : dnn::kPointwiseReluForward,
                            current, nullptr, output()));

  dnn::Descriptor graph =
      attempt.create(dnn::kOperationGraphDescriptor, "operation graph");
  attempt.set(graph, dnn::kAttrOperationGraphOps, dnn::kTypeBackendDescriptor,
              static_cast<int64_t>(ops.size()), ops.data(),
              "operation graph's operations");
  attempt.set(graph, dnn::kAttrOperationGraphHandle, dnn::kTypeHandle, 1,
              &handle, "operation graph's handle");
  attempt.finalize(graph, "operation graph");

  dnn::Descriptor heuristics =
      attempt.create(dnn::kEngineHeuristicsDescriptor, "engine heuristics");
  const int32_t heuristicsMode = dnn::kHeuristicsModeA;
  attempt.set(heuristics, dnn::kAttrHeuristicsOperationGraph,
              dnn::kTypeBackendDescriptor, 1, &graph,
              "engine heuristics' operation graph");
  attempt.set(heuristics, dnn::kAttrHeuristicsMode, dnn::kTypeHeuristicMode, 1,
              &heuristicsMode, "engine heuristics' mode");
  attempt.finalize(heuristics, "engine heuristics");
  int64_t offered = 0;
  attempt.get(heuristics, dnn::kAttrHeuristicsResults,
              dnn::kTypeBackendDescriptor, 0, &offered, nullptr,
              "engine heuristics' result count");
  if (!attempt.goesOn())
    return;
  offered = std::min(offered, kMaxEngineConfigs);
  std::vector<dnn::Descriptor> configs;
  for (int64_t i = 0; i < offered; ++i)
    configs.push_back(
        attempt.create(dnn::kEngineConfigDescriptor, "engine configuration"));
  int64_t returned = 0;
  if (offered > 0)
    attempt.get(heuristics, dnn::kAttrHeuristicsResults,
                dnn::kTypeBackendDescriptor, offered, &returned, configs.data(),
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
  const int64_t start = conv.engine_rank < returned ? conv.engine_rank : 0;
  std::vector<std::string> reasons;
  for (int64_t i = 0; i < returned; ++i) {
    const int64_t rank = (start + i) % returned;
    const size_t mark = attempt.owned.size();
    std::string why;
    // What the engine does to the numbers, from its notes.
    dnn::Descriptor engine = attempt.create(dnn::kEngineDescriptor, "engine");
    int64_t engines = 0;
    attempt.get(configs[rank], dnn::kAttrEngineConfigEngine,
                dnn::kTypeBackendDescriptor, 1, &engines, &engine,
                "engine configuration's engine");
    int32_t notes[dnn::kNoteTypeCount] = {};
    int64_t noteCount = 0;
    attempt.get(engine, dnn::kAttrEngineNumericalNote, dnn::kTypeNumericalNote,
                dnn::kNoteTypeCount, &noteCount, notes,
                "engine's numerical notes");
    if (attempt.status == dnn::kSuccess)
      why = excludedBy(notes, std::min<int64_t>(noteCount, dnn::kNoteTypeCount),
                       conv);
    dnn::Descriptor plan = nullptr;
    int64_t workspace = 0;
    if (attempt.status == dnn::kSuccess && why.empty()) {
      plan = attempt.create(dnn::kExecutionPlanDescriptor, "execution plan");
      attempt.set(plan, dnn::kAttrPlanHandle, dnn::kTypeHandle, 1, &handle,
                  "execution plan's handle");
      attempt.set(plan, dnn::kAttrPlanEngineConfig, dnn::kTypeBackendDescriptor,
                  1, &configs[rank], "execution plan's engine configuration");
      attempt.finalize(plan, "execution plan");
      int64_t count = 0;
      attempt.get(plan, dnn::kAttrPlanWorkspaceSize, dnn::kTypeInt64, 1, &count,
                  &workspace, "execution plan's workspace size");
      if (attempt.status == dnn::kSuccess &&
          (workspace < 0 || static_cast<uint64_t>(workspace) > workspaceBytes))
        why = "it needs " + std::to_string(workspace) + " bytes of workspace";
    }
    if (attempt.status != dnn::kSuccess) {
      // An engine that cannot take this graph is skipped, whatever it says.
      why = attempt.failure();
      attempt.status = dnn::kSuccess;
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

/// The status of a failed cuDNN call: host or device memory exhausted, or
/// an internal error.
graphc_code codeOf(dnn::Status status) {
  return status == dnn::kStatusHostAllocationFailed ||
                 status == dnn::kStatusDeviceAllocationFailed
             ? GRAPHC_RESOURCE_EXHAUSTED
             : GRAPHC_INTERNAL;
}
} // namespace

bool graphc::rt::cudnnSupports(const graphc_conv_desc &conv,
                               std::string &error) {
  if ((conv.dtype != kFloat && conv.dtype != kFloat16 &&
       conv.dtype != kBfloat16) ||
      conv.compute_dtype != kFloat) {
    error = std::string("this runtime runs cuDNN convolutions of float32, "
                        "float16 or bfloat16 computing in float32, not ") +
            graphc_dtype_name(conv.dtype) + " computing in " +
            graphc_dtype_name(conv.compute_dtype);
    return false;
  }
  if (conv.epilogue != GRAPHC_EPILOGUE_NONE &&
      conv.epilogue != GRAPHC_EPILOGUE_RELU &&
      conv.epilogue != GRAPHC_EPILOGUE_SILU &&
      conv.epilogue != GRAPHC_EPILOGUE_GELU_ERF) {
    error = "no cuDNN epilogue for graphc epilogue " +
            std::to_string(conv.epilogue);
    return false;
  }
  if (conv.spatial_dims < 1 ||
      conv.spatial_dims > GRAPHC_MAX_CONV_SPATIAL_DIMS) {
    error = "cuDNN convolves 1 to " +
            std::to_string(GRAPHC_MAX_CONV_SPATIAL_DIMS) +
            " spatial dims here, not " + std::to_string(conv.spatial_dims);
    return false;
  }
  if (conv.tf32 && conv.dtype != kFloat) {
    error = std::string("tf32 products of ") + graphc_dtype_name(conv.dtype) +
            " tensors";
    return false;
  }
  if (conv.channels_last != 0 && conv.channels_last != 1) {
    error = "no cuDNN layout for channels_last " +
            std::to_string(conv.channels_last);
    return false;
  }
  return true;
}

graphc_code CudnnConv::create(const dnn::Library &library, dnn::Handle handle,
                              const graphc_conv_desc &conv,
                              uint64_t workspaceBytes,
                              const ConvAlignment &alignment,
                              std::unique_ptr<CudnnConv> &out,
                              std::string &error) {
  if (!cudnnSupports(conv, error))
    return GRAPHC_UNIMPLEMENTED;
  const std::string problem = problemOf(conv);
  const std::string epilogue = epilogueOf(conv);
  auto failed = [&](const Attempt &attempt) {
    error = attempt.failure() + " planning the convolution " + problem +
            epilogue + " on " + library.title();
    return codeOf(attempt.status);
  };

  std::unique_ptr<CudnnConv> built(
      new CudnnConv(library, handle, conv, alignment));
  std::unique_ptr<Attempt> attempt = std::make_unique<Attempt>(library);
  planGraph(handle, conv, /*whole=*/true, workspaceBytes, alignment, *attempt);
  if (attempt->status != dnn::kSuccess)
    return failed(*attempt);
  std::string whyNot = attempt->whyNot;
  if (!attempt->plan && !epilogue.empty()) {
    // cuDNN fuses nothing of it: the convolution alone, finished by the
    // kernel's epilogue kernel.
    whyNot = "fused" + epilogue + ": " + whyNot;
    if (conv.has_epilogue_kernel) {
      attempt = std::make_unique<Attempt>(library);
      planGraph(handle, conv, /*whole=*/false, workspaceBytes, alignment,
                *attempt);
      if (attempt->status != dnn::kSuccess)
        return failed(*attempt);
      whyNot += "; alone: " + attempt->whyNot;
      built->wholeGraph = false;
    } else {
      whyNot += "; and the kernel has no epilogue kernel to run after the "
                "convolution alone";
    }
  }
  if (!attempt->plan) {
    error = library.title() + " has no engine for the convolution " + problem +
            epilogue + " within " + std::to_string(workspaceBytes) +
            " bytes of workspace (" + whyNot + ")";
    return GRAPHC_FAILED_PRECONDITION;
  }
  built->plan = attempt->plan;
  built->planWorkspace = attempt->workspace;
  built->rank = attempt->rank;
  built->descriptors = std::move(attempt->owned);
  attempt->owned.clear();
  // The variant pack names the graph's real tensors.
  auto use = [&](int64_t uid, int32_t arg) {
    built->uids.push_back(uid);
    built->uidArgs.push_back(arg);
  };
  use(kUidX, conv.x_arg);
  use(kUidW, conv.w_arg);
  if (built->wholeGraph && conv.bias_arg >= 0)
    use(kUidBias, conv.bias_arg);
  if (built->wholeGraph && conv.z_arg >= 0)
    use(kUidZ, conv.z_arg);
  use(kUidY, conv.y_arg);
  out = std::move(built);
  return GRAPHC_OK;
}

CudnnConv::~CudnnConv() {
  for (auto at = descriptors.rbegin(); at != descriptors.rend(); ++at)
    library.backendDestroyDescriptor(*at);
}

graphc_code CudnnConv::enqueue(const cu::DevicePtr *args, std::string &error) {
  // The plan was made for this alignment; a caller's tensor (used directly
  // without CUDA graphs) may have less.
  const struct {
    const char *name;
    int32_t arg;
    uint32_t alignment;
  } tensors[] = {{"X", conv.x_arg, alignment.x},
                 {"W", conv.w_arg, alignment.w},
                 {"bias", wholeGraph ? conv.bias_arg : -1, alignment.bias},
                 {"Z", wholeGraph ? conv.z_arg : -1, alignment.z},
                 {"Y", conv.y_arg, alignment.y}};
  for (const auto &tensor : tensors) {
    if (tensor.arg < 0 || args[tensor.arg] % tensor.alignment == 0)
      continue;
    error = std::string("the convolution's ") + tensor.name + " at " +
            hexPointer(args[tensor.arg]) + " is not " +
            std::to_string(tensor.alignment) +
            "-byte aligned, as its cuDNN plan needs";
    return GRAPHC_INVALID_ARGUMENT;
  }
  std::vector<void *> pointers;
  for (int32_t arg : uidArgs)
    pointers.push_back(reinterpret_cast<void *>(args[arg]));
  void *workspace = reinterpret_cast<void *>(args[conv.workspace_arg]);

  // Host memory only: the pack is built per run (the pointers differ
  // between runs without CUDA graphs) and read when the work is queued.
  Attempt pack(library);
  dnn::Descriptor variants =
      pack.create(dnn::kVariantPackDescriptor, "variant pack");
  pack.set(variants, dnn::kAttrVariantPackUniqueIds, dnn::kTypeInt64,
           static_cast<int64_t>(uids.size()), uids.data(),
           "variant pack's unique ids");
  pack.set(variants, dnn::kAttrVariantPackDataPointers, dnn::kTypeVoidPointer,
           static_cast<int64_t>(pointers.size()), pointers.data(),
           "variant pack's data pointers");
  pack.set(variants, dnn::kAttrVariantPackWorkspace, dnn::kTypeVoidPointer, 1,
           &workspace, "variant pack's workspace");
  pack.finalize(variants, "variant pack");
  if (pack.status != dnn::kSuccess) {
    error = pack.failure();
    return codeOf(pack.status);
  }
  dnn::Status status = library.backendExecute(handle, plan, variants);
  if (status != dnn::kSuccess) {
    error = "cudnnBackendExecute returned " + library.describe(status);
    return codeOf(status);
  }
  return GRAPHC_OK;
}
