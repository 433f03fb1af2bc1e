//===- SharedObjectWriter.h - the model .so -----------------------*- C++
//-*-===//
#ifndef GRAPHC_LIB_CODEGEN_SHAREDOBJECTWRITER_H
#define GRAPHC_LIB_CODEGEN_SHAREDOBJECTWRITER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace graphc {
class CompileCache;
} // namespace graphc

namespace graphc::codegen {

/// One loadable cuda module image.
struct DeviceImage {
  int sm = 0;
  int format = 0; // graphc_image_format
  std::vector<char> data;
  int unit = 0; // graphc_image_desc.unit; the kernels' `unit` name them
};

struct SharedObjectOptions {
  std::string outputPath;
  bool cudaTarget = false;
  /// Weights go to `<outputPath>.weights` instead of into the .so.
  bool weightsSideFile = false;
  /// --precision tf32: library GEMMs of float32 matrices round A and B to
  /// tf32 (graphc_gemm_desc.tf32).
  bool tf32Gemms = false;
  /// cpu only: fused pointwise ops as generated loops (see emitCpuKernel).
  bool cpuLoops = true;
  /// cuda only: the images of every unit (units 0..n-1, each with at least
  /// one), holding the kernels whose unit CUDA codegen's launch table
  /// (LaunchTable.h) gives.
  std::vector<DeviceImage> images;
  /// Where to build; empty for a fresh temporary directory (removed on
  /// success, kept on failure).
  std::string workDir;
  /// Where the compiled model.cpp is looked up and kept (nullptr: nowhere).
  CompileCache *cache = nullptr;
};

struct ModelSource;

/// Writes the model .so of `model` (ModelSource.h: the C++ and weights
/// generated from the exec module) and `options.images`: compiles and
/// links it (or takes both from the cache), seals it with its weights
/// (appended, or in the side file) and puts it at `options.outputPath`.
/// Deterministic: the same inputs give the same bytes.
llvm::Error writeSharedObject(const ModelSource &model,
                              const SharedObjectOptions &options);

} // namespace graphc::codegen

#endif
