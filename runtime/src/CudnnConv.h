//===- CudnnConv.h - a library kernel's convolution on cuDNN ----*- C++ -*-===//
//
// A graphc_conv_desc becomes a cuDNN operation graph:
//   X, W -> CONVOLUTION_FORWARD -> [ADD bias] -> [ADD Z]
//        -> [RELU_FWD, or SWISH_FWD with beta 1 for SiLU] -> Y
// with float32 virtual tensors between the operations (the convolution
// computes in float32, cross-correlation as ONNX Conv; the groups are W's
// [k, c / groups, ...] shape). cuDNN convolves 4-d and 5-d tensors: a 1-d
// convolution runs as a 2-d one with a unit first spatial dim. Tensors are
// dense; cuDNN's dims are [n, c, spatial...] in either layout, and the
// strides say where the channels are: NC[D]HW, or N[D]HWC (W K[T]RSC) with
// channels_last. The intermediates and the bias, broadcast as
// [1, k, 1, 1(, 1)], have the strides of the same layout. An int8
// convolution (descriptor.h) is X, W (CUDNN_DATA_INT8, channels last, c /
// groups and k multiples of 4) -> CONVOLUTION_FORWARD computing in INT32 ->
// Y of CUDNN_DATA_INT32, nothing after it.
//
// Everything is built when the session is created: the graph, the engine
// (by rank among the heuristic's configurations, mode A) and its execution
// plan. When no engine runs the whole graph and the kernel has an epilogue
// kernel, the convolution alone is planned instead (X, W -> Y) and the
// session launches the epilogue kernel after each run of it. A run only
// builds a variant pack (host memory) and queues cudnnBackendExecute on the
// handle's stream with an explicit workspace, so runs are captured into
// CUDA graphs like launches (nothing is allocated on the device).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_CUDNNCONV_H
#define GRAPHC_RUNTIME_SRC_CUDNNCONV_H

#include "graphc/runtime.h"
#include "runtime/src/Cudnn.h"

#include <memory>
#include <string>
#include <vector>

namespace graphc::rt {

/// Whether CudnnConv runs `conv`; sets `error` to why not.
bool cudnnSupports(const graphc_conv_desc &conv, std::string &error);

/// The pointer alignment (bytes, a power of two, at most 256) of each
/// tensor in every step that runs the convolution.
struct ConvAlignment {
  uint32_t x = 256, w = 256, bias = 256, z = 256, y = 256;
};

class CudnnConv {
public:
  /// Plans `conv` on `handle` for steps whose workspace holds at least
  /// `workspaceBytes` and whose pointers have `alignment`. Returns
  /// GRAPHC_OK, or a code and `error`: GRAPHC_FAILED_PRECONDITION when
  /// cuDNN has no engine for the graph (nor, with an epilogue kernel, for
  /// the convolution alone), naming the problem and cuDNN's version.
  static graphc_code create(const dnn::Library &library, dnn::Handle handle,
                            const graphc_conv_desc &conv,
                            uint64_t workspaceBytes,
                            const ConvAlignment &alignment,
                            std::unique_ptr<CudnnConv> &out,
                            std::string &error);
  ~CudnnConv();
  CudnnConv(const CudnnConv &) = delete;
  CudnnConv &operator=(const CudnnConv &) = delete;

  /// Queues the planned graph on the handle's stream. `args` are the step's
  /// argument values (device pointers; 0 for an absent one), the workspace
  /// last. Returns GRAPHC_OK, else sets `error`: GRAPHC_INVALID_ARGUMENT for
  /// a pointer less aligned than the plan assumes (a caller's tensor),
  /// GRAPHC_INTERNAL when cuDNN refuses.
  graphc_code enqueue(const cu::DevicePtr *args, std::string &error);

  /// Whether cuDNN computes the whole of it; otherwise it computes the
  /// convolution alone into Y and the kernel's epilogue kernel finishes Y.
  bool fused() const { return wholeGraph; }
  /// Why cuDNN does not compute the whole of it ("" when fused()).
  const std::string &whyNotFused() const { return whyNot; }
  /// The workspace the plan uses (at most the create-time bytes).
  uint64_t workspaceSize() const { return planWorkspace; }
  /// The rank, among the heuristic's configurations, of the one planned.
  int32_t engineRank() const { return rank; }

private:
  CudnnConv(const dnn::Library &library, dnn::Handle handle,
            const graphc_conv_desc &conv, const ConvAlignment &alignment)
      : library(library), handle(handle), conv(conv), alignment(alignment) {}

  const dnn::Library &library;
  dnn::Handle handle;
  const graphc_conv_desc conv;
  const ConvAlignment alignment;
  /// Every descriptor of the planned graph, its configuration and plan, in
  /// creation order: the plan may refer to any of them.
  std::vector<dnn::Descriptor> descriptors;
  dnn::Descriptor plan = nullptr;
  bool wholeGraph = true;
  std::string whyNot;
  uint64_t planWorkspace = 0;
  int32_t rank = 0;
  /// The graph's tensors that are not virtual, as the variant pack names
  /// them, and the step argument each one is.
  std::vector<int64_t> uids;
  std::vector<int32_t> uidArgs;
};

} // namespace graphc::rt

#endif
