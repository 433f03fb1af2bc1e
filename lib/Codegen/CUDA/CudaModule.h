//===- CudaModule.h - a module's CUDA code and launches ---------*- C++ -*-===//
//
// CUDA codegen of a whole exec module: every kernel with device code
// emitted (CudaEmitter.h), split into the units NVRTC compiles one by one,
// and the launch table the descriptor is written from.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_CODEGEN_CUDA_CUDAMODULE_H
#define GRAPHC_LIB_CODEGEN_CUDA_CUDAMODULE_H

#include "lib/Codegen/LaunchTable.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace graphc::codegen {

/// What CUDA codegen makes of an exec module.
struct CudaModule {
  /// One CUDA program per module unit (units 0..n-1), each the preamble and
  /// its kernels; none when no kernel has device code.
  std::vector<std::string> units;
  /// How each generated kernel is launched and which unit holds it.
  LaunchTable launches;
  /// The preamble and every kernel in module order, for --emit source;
  /// empty unless asked for.
  std::string source;
};

/// Generates the CUDA code of every exec.kernel of `module` with device
/// code (exec::hasDeviceCode), for GPUs of `lowestSm` and newer (kAnySm:
/// the emulator). `singleUnit` puts every kernel in one unit; otherwise
/// the unit boundaries depend on the kernels' content hashes, so that
/// changing one kernel changes its unit alone. `wholeSource` also fills
/// CudaModule::source. `progress(done, total)` is called per kernel.
/// Fails naming the kernel that cannot be emitted (the emitter's
/// diagnostic is on the IR) or whose launch is out of CUDA's range.
llvm::Expected<CudaModule>
generateCudaModule(mlir::ModuleOp module, int lowestSm, bool singleUnit,
                   bool wholeSource,
                   llvm::function_ref<void(int64_t, int64_t)> progress);

} // namespace graphc::codegen

#endif // GRAPHC_LIB_CODEGEN_CUDA_CUDAMODULE_H
