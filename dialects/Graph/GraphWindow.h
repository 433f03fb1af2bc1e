//===- GraphWindow.h - sliding windows of convolution and pooling -*- C++
//-*-===//
//
// Kernel, stride, dilation and padding attributes of conv/pool ops, checked
// and resolved once so that inference and verifiers agree.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_DIALECTS_GRAPH_GRAPHWINDOW_H
#define GRAPHC_DIALECTS_GRAPH_GRAPHWINDOW_H

#include "dialects/Graph/GraphTypeInference.h"

namespace graphc::graph {

enum class AutoPad { NotSet, SameUpper, SameLower, Valid };

/// The window of a conv/pool op, one entry per spatial dim.
struct WindowParams {
  AutoPad autoPad = AutoPad::NotSet;
  /// Kernel extent; dynamic when it comes from a weight with a dynamic dim.
  llvm::SmallVector<int64_t> kernel;
  llvm::SmallVector<int64_t> strides;
  llvm::SmallVector<int64_t> dilations;
  llvm::SmallVector<int64_t> padsBegin;
  llvm::SmallVector<int64_t> padsEnd;

  /// (kernel - 1) * dilation + 1, dynamic with the kernel.
  int64_t effectiveKernel(int64_t dim) const;
};

/// Checks and completes the window attributes of an op with `rank` spatial
/// dims. The kernel comes from `kernelShape` or else `weightKernel` (the
/// weight's spatial dims, empty for pooling).
mlir::FailureOr<WindowParams>
resolveWindow(const TypeInference &infer, int64_t rank,
              std::optional<llvm::ArrayRef<int64_t>> kernelShape,
              llvm::ArrayRef<int64_t> weightKernel,
              std::optional<llvm::ArrayRef<int64_t>> strides,
              std::optional<llvm::ArrayRef<int64_t>> dilations,
              std::optional<llvm::ArrayRef<int64_t>> pads,
              llvm::StringRef autoPad);

/// Output size of spatial dim `dim` for an input of size `input`.
mlir::FailureOr<int64_t> windowOutputSize(const TypeInference &infer,
                                          const WindowParams &window,
                                          int64_t dim, int64_t input,
                                          bool ceilMode);

} // namespace graphc::graph

#endif
