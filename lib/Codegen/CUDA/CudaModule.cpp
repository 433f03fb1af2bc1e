//===- CudaModule.cpp - a module's CUDA code and launches -----------------===//

#include "lib/Codegen/CUDA/CudaModule.h"
#include "lib/Codegen/LoopControl.h"

#include "lib/Codegen/CUDA/CudaEmitter.h"
#include "lib/Support/TuningDb.h"

#include "dialects/Exec/ExecOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <limits>

using namespace mlir;

namespace graphc::codegen {

namespace {

/// A unit ends after a kernel whose mixed content hash is this minus one
/// modulo this, or at kMaxUnitKernels kernels.
constexpr uint64_t kUnitSpread = 8;
constexpr size_t kMaxUnitKernels = 32;

/// Splits `kernels` (in module order) into the CUDA module units NVRTC
/// compiles one by one. The boundaries depend on the kernels' own contents,
/// so that changing one kernel changes its unit alone (and, when it moves a
/// boundary, a neighbour), and the compile cache keeps the other units'
/// images.
std::vector<std::vector<exec::KernelOp>>
splitIntoUnits(ArrayRef<exec::KernelOp> kernels) {
  std::vector<std::vector<exec::KernelOp>> units;
  std::vector<exec::KernelOp> current;
  for (exec::KernelOp kernel : kernels) {
    current.push_back(kernel);
    uint64_t hash = 0;
    parseKernelHash(kernel.getHash(), hash);
    // splitmix64's finaliser: every bit of the hash moves the boundary.
    hash = (hash ^ (hash >> 30)) * 0xbf58476d1ce4e5b9ull;
    hash = (hash ^ (hash >> 27)) * 0x94d049bb133111ebull;
    hash ^= hash >> 31;
    if (hash % kUnitSpread == kUnitSpread - 1 ||
        current.size() == kMaxUnitKernels) {
      units.push_back(std::move(current));
      current.clear();
    }
  }
  if (!current.empty())
    units.push_back(std::move(current));
  return units;
}

/// Whether `kernel`'s launch is one the descriptor and CUDA take: grid and
/// block sizes in [1, 2^31), dynamic shared memory below 2^31.
bool inRange(const CudaKernel &kernel) {
  constexpr uint32_t kMax = std::numeric_limits<int32_t>::max();
  for (int i = 0; i < 3; ++i)
    if (kernel.grid[i] < 1 || kernel.grid[i] > kMax || kernel.block[i] < 1 ||
        kernel.block[i] > kMax)
      return false;
  return kernel.sharedBytes <= kMax;
}

llvm::Error kernelError(exec::KernelOp kernel, const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "kernel " + kernel.getSymName() + ": " + what);
}

} // namespace

llvm::Expected<CudaModule>
generateCudaModule(ModuleOp module, int lowestSm, bool singleUnit,
                   bool wholeSource,
                   llvm::function_ref<void(int64_t, int64_t)> progress) {
  // Library kernels have no code, the runtime calls the library, but for
  // the kernels finishing a convolution's epilogue where cuDNN fuses none
  // and the attention kernels standing in where cuDNN has no engine.
  SmallVector<exec::KernelOp> kernels;
  for (auto kernel : module.getOps<exec::KernelOp>())
    if (exec::hasDeviceCode(kernel))
      kernels.push_back(kernel);
  int64_t total = kernels.size();
  llvm::DenseMap<Operation *, CudaKernel> emitted;
  for (auto [done, kernel] : llvm::enumerate(kernels)) {
    progress(done, total);
    FailureOr<CudaKernel> code = emitCudaKernel(kernel, lowestSm);
    if (failed(code))
      return kernelError(kernel, "cannot emit its CUDA code");
    if (!inRange(*code))
      return kernelError(kernel, "its launch is out of CUDA's range");
    emitted[kernel] = std::move(*code);
  }
  progress(total, total);

  CudaModule result;
  std::string preamble = cudaModulePreamble().str() + "\n";
  // The whole module is only printed: the units are what is compiled.
  if (wholeSource) {
    result.source = preamble;
    for (exec::KernelOp kernel : kernels)
      result.source += emitted[kernel].source + "\n";
  }
  std::vector<std::vector<exec::KernelOp>> units;
  if (singleUnit && !kernels.empty())
    units.push_back(
        std::vector<exec::KernelOp>(kernels.begin(), kernels.end()));
  else
    units = splitIntoUnits(kernels);
  // Units hold consecutive kernels: the table is in module order.
  for (auto [u, unit] : llvm::enumerate(units)) {
    std::string text = preamble;
    for (exec::KernelOp kernel : unit) {
      const CudaKernel &code = emitted[kernel];
      text += code.source + "\n";
      CudaLaunch launch;
      for (int i = 0; i < 3; ++i) {
        launch.grid[i] = code.grid[i];
        launch.block[i] = code.block[i];
      }
      launch.sharedBytes = code.sharedBytes;
      launch.reportsErrors = code.reportsErrors;
      launch.unit = static_cast<int32_t>(u);
      result.launches.add(kernel.getSymName(), launch);
    }
    result.units.push_back(std::move(text));
  }
  // The kernels that drive the plans' loops go into the last unit (one of
  // their own when there is none).
  std::vector<LoopControl> controls = loopControls(module);
  if (!controls.empty() && result.units.empty())
    result.units.push_back(preamble);
  for (const LoopControl &control : controls) {
    std::string code = loopControlSource(control);
    result.units.back() += code + "\n";
    if (wholeSource)
      result.source += code + "\n";
    CudaLaunch launch;
    launch.reportsErrors = true;
    launch.unit = static_cast<int32_t>(result.units.size() - 1);
    result.launches.add(control.name, launch);
  }
  return result;
}

} // namespace graphc::codegen
