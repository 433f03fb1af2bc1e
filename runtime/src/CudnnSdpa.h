//===- CudnnSdpa.h - a library kernel's attention on cuDNN ------*- C++ -*-===//
//
// A graphc_sdpa_desc becomes the operation graph cuDNN's fused
// flash-attention engines match, built as cuDNN's frontend builds its sdpa
// node for inference (its composite form):
//   S = MATMUL(Q, K^T)                      K^T: K's dims and strides swapped
//   S = MUL(S, scale)                       scale: a float passed by value
//   S = ADD(S, bias)                        with a bias
//   S = BINARY_SELECT(S, lowest, row >= col) when causal: GEN_INDEX rows
//                                           and columns, CMP_GE
//   M = REDUCTION MAX(S); E = EXP(SUB(S, M)); Z = REDUCTION ADD(E)
//   stats = ADD(M, LOG(Z))                  (virtual, as the frontend has it)
//   P = DIV(E, Z)                           in the tensors' 16-bit type
//   O = MATMUL(P, V)
// with float virtual tensors between, Q, K, V, O and the bias at their
// descriptor offsets and strides. Everything is built when the session is
// created: the graph, the engine by rank among the heuristic's (mode A)
// and its plan. Where the installed cuDNN refuses any of it (no engine for
// the shape on this GPU, an operation it does not know), the session runs
// the kernel's generated attention kernel instead: fused() is false.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_CUDNNSDPA_H
#define GRAPHC_RUNTIME_SRC_CUDNNSDPA_H

#include "graphc/runtime.h"
#include "runtime/src/Cudnn.h"

#include <memory>
#include <string>
#include <vector>

namespace graphc::rt {

/// Whether CudnnSdpa can describe `sdpa` to cuDNN; sets `error` to why not.
bool cudnnSupports(const graphc_sdpa_desc &sdpa, std::string &error);

/// The pointer alignment (bytes, a power of two, at most 256) of each
/// argument base in every step that runs the attention; the tensors lie
/// at their offsets from it.
struct SdpaAlignment {
  uint32_t q = 256, k = 256, v = 256, bias = 256, o = 256;
};

class CudnnSdpa {
public:
  /// Plans `sdpa` on `handle` for steps whose workspace holds at least
  /// `workspaceBytes` and whose argument bases have `alignment`. Returns
  /// GRAPHC_OK (with fused() false when cuDNN has no plan for it: the
  /// fallback kernel runs), or GRAPHC_RESOURCE_EXHAUSTED and `error` when
  /// cuDNN ran out of memory.
  static graphc_code create(const dnn::Library &library, dnn::Handle handle,
                            const graphc_sdpa_desc &sdpa,
                            uint64_t workspaceBytes,
                            const SdpaAlignment &alignment,
                            std::unique_ptr<CudnnSdpa> &out,
                            std::string &error);
  ~CudnnSdpa();
  CudnnSdpa(const CudnnSdpa &) = delete;
  CudnnSdpa &operator=(const CudnnSdpa &) = delete;

  /// Queues the planned graph on the handle's stream (fused() only).
  /// `args` are the step's argument values (device pointers; 0 for an
  /// absent one), the workspace last. Returns GRAPHC_OK, else sets `error`:
  /// GRAPHC_INVALID_ARGUMENT for a pointer less aligned than the plan
  /// assumes, GRAPHC_INTERNAL when cuDNN refuses.
  graphc_code enqueue(const cu::DevicePtr *args, std::string &error);

  /// Whether cuDNN computes it; otherwise the fallback kernel does.
  bool fused() const { return plan != nullptr; }
  /// Why cuDNN does not ("" when it does).
  const std::string &whyNotFused() const { return whyNot; }
  uint64_t workspaceSize() const { return planWorkspace; }
  /// The rank of the configuration planned, -1 when none.
  int32_t engineRank() const { return rank; }

private:
  CudnnSdpa(const dnn::Library &library, dnn::Handle handle,
            const graphc_sdpa_desc &sdpa)
      : library(library), handle(handle), sdpa(sdpa) {}

  const dnn::Library &library;
  dnn::Handle handle;
  const graphc_sdpa_desc sdpa;
  std::vector<dnn::Descriptor> descriptors;
  dnn::Descriptor plan = nullptr;
  std::string whyNot;
  uint64_t planWorkspace = 0;
  int32_t rank = -1;
  /// The alignment declared for each real tensor (at its offset).
  uint32_t declared[5] = {0, 0, 0, 0, 0};
  /// The by-value scalars the variant pack points at.
  float scale = 1.0f, lowest = 0.0f;
};

} // namespace graphc::rt

#endif
