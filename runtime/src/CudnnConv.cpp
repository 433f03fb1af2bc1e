//===- CudnnConv.cpp - a library kernel's convolution on cuDNN ------------===//
#include "runtime/src/CudnnConv.h"

#include "lib/Artifact/OnnxDtype.h"
#include "runtime/src/CudnnGraph.h"
#include "runtime/src/ReferenceConv.h"

#include <algorithm>
#include <utility>

using namespace graphc::rt;

namespace {
/// The tensors' unique ids in the graph; the virtual ones count up from
/// kUidVirtual.
constexpr int64_t kUidX = 1, kUidW = 2, kUidBias = 3, kUidZ = 4, kUidY = 5,
                  kUidVirtual = 10;
constexpr uint32_t kVirtualAlignment = dnn::kVirtualAlignment;

/// The cuDNN data type of a checked convolution's X and W (and bias).
int32_t dataTypeOf(const graphc_conv_desc &conv) {
  return conv.dtype == kFloat16    ? dnn::kDataHalf
         : conv.dtype == kBfloat16 ? dnn::kDataBfloat16
         : conv.dtype == kInt8     ? dnn::kDataInt8
                                   : dnn::kDataFloat;
}

/// The cuDNN data type of its Y and Z: an int8 convolution writes its
/// int32 sum as it is.
int32_t outputTypeOf(const graphc_conv_desc &conv) {
  return conv.dtype == kInt8 ? dnn::kDataInt32 : dataTypeOf(conv);
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
         graphc_dtype_name(conv.dtype) + (conv.tf32 ? " (tf32)" : "") +
         (conv.dtype == kInt8 ? " into int32" : "") + ", " + layoutOf(conv);
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

using dnn::Attempt;

/// A finalized tensor descriptor of `dims` in the convolution's layout.
dnn::Descriptor tensor(Attempt &attempt, int64_t uid,
                       const std::vector<int64_t> &dims, bool channelsLast,
                       int32_t dataType, uint32_t alignment, bool isVirtual) {
  dnn::TensorSpec spec;
  spec.uid = uid;
  spec.dims = dims;
  spec.strides = stridesOf(dims, channelsLast);
  spec.dataType = dataType;
  spec.alignment = alignment;
  spec.isVirtual = isVirtual;
  return dnn::tensor(attempt, spec);
}

/// A finalized pointwise operation: y = mode(x[, b]) in float32.
dnn::Descriptor pointwise(Attempt &attempt, int32_t mode, dnn::Descriptor x,
                          dnn::Descriptor b, dnn::Descriptor y) {
  dnn::PointwiseSpec spec;
  spec.mode = mode;
  spec.swish = mode == dnn::kPointwiseSwishForward;
  return dnn::pointwise(attempt, spec, x, b, y);
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
  // int8 products sum exactly in int32 (nothing follows an int8
  // convolution, so no float intermediate sees its sum).
  const int32_t computeType =
      conv.dtype == kInt8 ? dnn::kDataInt32 : dnn::kDataFloat;
  // The operations after the convolution, in order.
  const bool bias = whole && conv.bias_arg >= 0;
  const bool z = whole && conv.z_arg >= 0;
  const bool activation = whole && conv.epilogue != GRAPHC_EPILOGUE_NONE;
  const int followers = int(bias) + int(z) + int(activation);

  dnn::Descriptor x =
      tensor(attempt, kUidX, shape.x, last, dataType, alignment.x, false);
  dnn::Descriptor w =
      tensor(attempt, kUidW, shape.w, last, dataType, alignment.w, false);
  dnn::Descriptor y = tensor(attempt, kUidY, shape.y, last,
                             outputTypeOf(conv), alignment.y, false);
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
              &computeType, "convolution compute type");
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
    dnn::Descriptor residual = tensor(attempt, kUidZ, shape.y, last,
                                      outputTypeOf(conv), alignment.z, false);
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

  dnn::planGraph(
      handle, ops, conv.engine_rank, workspaceBytes,
      [&](const int32_t *notes, int64_t count) {
        return excludedBy(notes, count, conv);
      },
      attempt);
}

} // namespace

bool graphc::rt::cudnnSupports(const graphc_conv_desc &conv,
                               std::string &error) {
  switch (unsupportedConvField(conv)) {
  case ConvField::kNone:
    break;
  case ConvField::kDtype:
  case ConvField::kComputeDtype:
    error = std::string("this runtime runs cuDNN convolutions of float32, "
                        "float16 or bfloat16 computing in float32, or int8 "
                        "in int32, not ") +
            graphc_dtype_name(conv.dtype) + " computing in " +
            graphc_dtype_name(conv.compute_dtype);
    return false;
  case ConvField::kInt8Epilogue:
    error = "an int8 convolution with a bias, Z or epilogue (it writes its "
            "int32 sum as it is)";
    return false;
  case ConvField::kEpilogue:
    error = "no cuDNN epilogue for graphc epilogue " +
            std::to_string(conv.epilogue);
    return false;
  case ConvField::kSpatialDims:
    error = "cuDNN convolves 1 to " +
            std::to_string(GRAPHC_MAX_CONV_SPATIAL_DIMS) +
            " spatial dims here, not " + std::to_string(conv.spatial_dims);
    return false;
  case ConvField::kTf32:
    error = std::string("tf32 products of ") + graphc_dtype_name(conv.dtype) +
            " tensors";
    return false;
  case ConvField::kLayout:
    error = "no cuDNN layout for channels_last " +
            std::to_string(conv.channels_last);
    return false;
  }
  if (conv.dtype == kInt8) {
    // cuDNN's int8 convolutions read NHWC tensors of whole 4-channel
    // vectors (its INT8_CONFIG).
    if (!conv.channels_last) {
      error = "cuDNN's int8 convolutions are channels last (NHWC): "
              "channels_last must be 1";
      return false;
    }
    if ((conv.c / conv.groups) % 4 || conv.k % 4) {
      error = "cuDNN's int8 convolutions need c / groups and k multiples "
              "of 4, not " +
              std::to_string(conv.c / conv.groups) + " and " +
              std::to_string(conv.k);
      return false;
    }
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
    return dnn::codeOf(attempt.status);
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
      built->wholeGraph = false;
      built->whyNot = whyNot;
      whyNot += "; alone: " + attempt->whyNot;
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
            dnn::hexPointer(args[tensor.arg]) + " is not " +
            std::to_string(tensor.alignment) +
            "-byte aligned, as its cuDNN plan needs";
    return GRAPHC_INVALID_ARGUMENT;
  }
  std::vector<void *> pointers;
  for (int32_t arg : uidArgs)
    pointers.push_back(reinterpret_cast<void *>(args[arg]));
  void *workspace = reinterpret_cast<void *>(args[conv.workspace_arg]);

  return dnn::execute(library, handle, plan, uids, pointers, workspace, error);
}
