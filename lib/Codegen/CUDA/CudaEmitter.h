//===- CudaEmitter.h - CUDA C++ kernels for graph ops -----------*- C++ -*-===//
//
// Turns one graph op with static tensor types into one specialised CUDA
// kernel: shapes and strides are baked in as constants, the launch
// configuration is chosen from the shape.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_CODEGEN_CUDA_CUDAEMITTER_H
#define GRAPHC_LIB_CODEGEN_CUDA_CUDAEMITTER_H

#include "dialects/Exec/ExecOps.h"

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace graphc::codegen {

/// One generated kernel and how to launch it.
struct CudaKernel {
  std::string name;
  /// `extern "C" __global__` definition; needs cudaModulePreamble() above it.
  std::string source;
  uint32_t grid[3];
  uint32_t block[3];
  /// Dynamic shared memory; the generated kernels use static shared memory
  /// only, so this is 0 today.
  uint32_t sharedBytes;
  /// Whether the kernel checks values read at run time and so takes the
  /// error record and launch site parameters.
  bool reportsErrors = false;
};

/// Whether a CUDA emitter family handles the graph op `name` (every graph op
/// but graph.constant should); the op registry test checks them all.
bool hasCudaEmitter(mlir::RegisteredOperationName name);

/// Emits `extern "C" __global__ void <name>(...)` computing `op`. Parameters:
/// one pointer per ONNX input slot of the op in order (an absent optional
/// input is passed as nullptr), then one per result, then, for kernels that
/// check indices (or lengths, or an axis) read at run time, the session's
/// error record (`unsigned long long *`) and the launch site (`unsigned`)
/// that the runtime passes to every launch (see cudaModulePreamble's
/// gc_report). Fails with an error at
/// op->getLoc() naming the op and the reason when it cannot emit it.
/// `blockSize` (the kernel schedule's block_size) is the threads per block of
/// elementwise, data-movement and per-row kernels.
mlir::FailureOr<CudaKernel> emitCudaKernel(mlir::Operation *op,
                                           llvm::StringRef name,
                                           int64_t blockSize = 256);

/// Emits the kernel of `kernel` under its symbol name, with the template of
/// its fusion kind: the pointwise fusion template for pointwise kernels,
/// the op's own emitter for a kernel of one op of another kind, and for a
/// conv or matmul kernel of several ops, the anchor's emitter applying the
/// pointwise epilogue before its store; for a cudnn kernel (see exec.kernel's
/// `conv`), the kernel finishing in place what the library convolved alone
/// into its output. Parameters:
/// one pointer per kernel input (its block arguments), then one per output,
/// then the error record and launch site when the kernel checks values read
/// at run time (as for emitCudaKernel of an op). Fails with an error naming
/// the op and the reason when it cannot emit it.
/// `lowestSm` is the oldest SM the kernel is compiled for (kAnySm for the
/// emulator): templates use tensor cores only where every target has them.
mlir::FailureOr<CudaKernel> emitCudaKernel(exec::KernelOp kernel,
                                           int lowestSm = 0);

/// emitCudaKernel's `lowestSm` for a target with every feature (the
/// emulator).
inline constexpr int kAnySm = 1 << 20;

/// Shared preamble (fp16/bf16 helpers, math wrappers, index helpers) placed
/// once at the top of a module.
llvm::StringRef cudaModulePreamble();

} // namespace graphc::codegen

#endif // GRAPHC_LIB_CODEGEN_CUDA_CUDAEMITTER_H
