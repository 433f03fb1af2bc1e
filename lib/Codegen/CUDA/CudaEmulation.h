//===- CudaEmulation.h - generated CUDA compiled for the host ---*- C++ -*-===//
//
// graphc's CUDA emulator runs the kernels graphc generates on the CPU, so CI
// without a GPU executes them. The module source (exactly what NVRTC would
// compile) is compiled by the host C++ compiler with
// emulation/graphc_cuda_emulation.h force-included, which maps the CUDA
// execution model onto fibers. The resulting shared object is the artifact's
// one module image (GRAPHC_IMAGE_HOST_EMULATION); the test driver
// (test/runtime/fake_cuda) loads it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_CODEGEN_CUDA_CUDAEMULATION_H
#define GRAPHC_LIB_CODEGEN_CUDA_CUDAEMULATION_H

#include "lib/Codegen/CUDA/NVRTCCompiler.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace graphc::codegen {

/// Compiles `source` (a module: cudaModulePreamble() and the kernels) for
/// the emulator. `kernels` names every `extern "C" __global__` function the
/// module exports to the runtime. Builds under `keepDir` when it is not
/// empty (kept), else in a temporary directory removed unless the host
/// compiler fails, whose error names the directory. With a `cache`, the
/// image is looked up there first and stored after compiling.
llvm::Expected<CudaImage>
compileCudaEmulationModule(llvm::StringRef source,
                           llvm::ArrayRef<std::string> kernels,
                           llvm::StringRef keepDir,
                           CompileCache *cache = nullptr);

/// The text of emulation/graphc_cuda_emulation.h.
llvm::StringRef cudaEmulationHeader();

} // namespace graphc::codegen

#endif // GRAPHC_LIB_CODEGEN_CUDA_CUDAEMULATION_H
