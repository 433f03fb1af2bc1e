//===- CpuEmitter.h - C++ source for cpu-target kernels ---------*- C++ -*-===//
#ifndef GRAPHC_LIB_CODEGEN_CPU_CPUEMITTER_H
#define GRAPHC_LIB_CODEGEN_CPU_CPUEMITTER_H

#include "dialects/Exec/ExecOps.h"

#include "llvm/Support/raw_ostream.h"

namespace graphc::codegen {

/// The C symbol of a kernel's host function (prefixed so that kernel names
/// never collide with library symbols).
std::string cpuKernelSymbol(exec::KernelOp kernel);

/// The ops a kernel computes (all but constants and the terminator), in
/// order; each is one host kernel call on the cpu target.
llvm::SmallVector<mlir::Operation *> computeOps(exec::KernelOp kernel);

/// Writes one C++ function per exec.kernel of the cpu target, named after the
/// kernel, with the graphc_host_fn signature of descriptor.h: it binds the
/// step's buffers (the kernel's inputs, then its outputs) to tensors of the
/// kernel's static shapes and calls each op's host kernel in turn, with the
/// intermediates of a fusion in temporaries. Fails (with a diagnostic at the
/// op) for an op with no host kernel or an attribute it cannot pass. With
/// `generatedLoops`, the fused pointwise ops (a pointwise kernel, or the
/// epilogue of a conv, gemm or mat_mul) run as one generated loop instead
/// (EmitCpuLoops.h) wherever each has a scalar expression.
mlir::LogicalResult emitCpuKernel(exec::KernelOp kernel, llvm::raw_ostream &os,
                                  bool generatedLoops = true);

} // namespace graphc::codegen

#endif
