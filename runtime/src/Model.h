//===- Model.h - the loaded model object ------------------------*- C++ -*-===//
#ifndef GRAPHC_RUNTIME_SRC_MODEL_H
#define GRAPHC_RUNTIME_SRC_MODEL_H

#include "graphc/runtime.h"

#include <memory>
#include <string>

namespace graphc::rt {
class CudaModel;

/// "kernel 'k' (ONNX nodes A, B)", or "kernel 'k'" when it names no nodes.
std::string describeKernel(const graphc_kernel_desc &kernel);

/// Where a value out of range was found: "node 'n' (kernel 'k')", "one of
/// the nodes 'a,b' (kernel 'k')", or "kernel 'k'" without ONNX nodes.
std::string describeValueSite(const graphc_kernel_desc &kernel);

/// The first output with a data-dependent dim (graphc_tensor_desc's
/// data_dependent), -1 when none has one; its first such dim goes to `dim`.
int32_t firstDataDependentOutput(const graphc_model_desc &desc, int32_t &dim);
} // namespace graphc::rt

/// A loaded artifact. Immutable after graphc_model_load except for the
/// lazily created per-device CUDA state, which CudaModel guards itself.
struct graphc_model {
  ~graphc_model();

  std::string path;
  void *library = nullptr;
  /// The open file the library was loaded through (as /proc/self/fd/N), held
  /// while it is loaded so that no other model is loaded under that name.
  int libraryFd = -1;
  const graphc_model_desc *desc = nullptr;
  /// desc->weights, or the mapped side file.
  const void *weights = nullptr;
  /// The side file's mapping (munmap'd on release) and path.
  void *weightsMapping = nullptr;
  size_t weightsMappingSize = 0;
  std::string weightsPath;
  /// The mapping is of the .so itself (weights appended to it), not of a
  /// side file.
  bool weightsAppended = false;
  uint32_t flags = 0;
  /// The largest arena and step argument count over all plans.
  uint64_t maxArenaBytes = 0;
  int32_t maxStepArgs = 0;
  /// Per-device modules and weights; null for cpu models and inspect-only.
  std::unique_ptr<graphc::rt::CudaModel> cuda;
};

#endif
