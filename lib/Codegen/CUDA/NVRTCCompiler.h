//===- NVRTCCompiler.h - CUDA C++ to cubin/PTX with NVRTC -------*- C++ -*-===//
#ifndef GRAPHC_LIB_CODEGEN_CUDA_NVRTCCOMPILER_H
#define GRAPHC_LIB_CODEGEN_CUDA_NVRTCCOMPILER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace graphc {
class CompileCache;
} // namespace graphc

namespace graphc::codegen {

/// How a module image is loaded; the values are graphc_image_format's.
enum class ImageFormat { cubin = 0, ptx = 1, hostEmulation = 2 };

/// Device code for one SM: a cubin, or NUL-terminated PTX text (loadable by
/// cuModuleLoadData on GPUs newer than any requested SM); or the host shared
/// object of the CUDA emulator (sm 0).
struct CudaImage {
  int sm;
  ImageFormat format;
  std::vector<char> data;
  /// The module unit (graphc_image_desc.unit) the image holds.
  int unit = 0;
};

/// Compiles one module source with NVRTC: a cubin for every SM in `sms` plus
/// PTX for the highest (for newer GPUs). The output is deterministic: the
/// same source and SMs give the same bytes. On failure: the error says which
/// SM failed, the NVRTC log, the path where the source was kept (under
/// `keepDir`, or the system temporary directory when it is empty), and an
/// equivalent nvcc command line that reproduces it. With a `cache`, each
/// image is looked up there first and stored after compiling.
llvm::Expected<std::vector<CudaImage>>
compileCudaModule(llvm::StringRef source, llvm::ArrayRef<int> sms,
                  llvm::StringRef keepDir, CompileCache *cache = nullptr);

/// compileCudaModule for each of `units` (each a whole module: the preamble
/// and its kernels), as independent NVRTC programs compiled in parallel and
/// cached one by one: the images of unit u, in the order compileCudaModule
/// gives them, come u-th, with `unit` set.
llvm::Expected<std::vector<CudaImage>>
compileCudaUnits(llvm::ArrayRef<std::string> units, llvm::ArrayRef<int> sms,
                 llvm::StringRef keepDir, CompileCache *cache = nullptr);

/// The version of the NVRTC library loaded at run time ("13.0").
std::string nvrtcVersionString();

} // namespace graphc::codegen

#endif // GRAPHC_LIB_CODEGEN_CUDA_NVRTCCOMPILER_H
