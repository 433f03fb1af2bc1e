//===- CpuEmitter.h - C++ source for cpu-target kernels ---------*- C++ -*-===//
#ifndef GRAPHC_LIB_CODEGEN_CPU_CPUEMITTER_H
#define GRAPHC_LIB_CODEGEN_CPU_CPUEMITTER_H

#include "dialects/Exec/ExecOps.h"

#include "llvm/Support/raw_ostream.h"

namespace graphc::codegen {

/// Writes one C++ function per exec.kernel of the cpu target, named after the
/// kernel, with the graphc_host_fn signature of descriptor.h: it binds the
/// step's buffers to tensors of the kernel's static shapes and calls the
/// op's host kernel. Fails (with a diagnostic at the op) for a kernel whose
/// op has no host kernel or an attribute it cannot pass.
/// The C symbol of a kernel's host function (prefixed so that kernel names
/// never collide with library symbols).
std::string cpuKernelSymbol(exec::KernelOp kernel);

mlir::LogicalResult emitCpuKernel(exec::KernelOp kernel,
                                  llvm::raw_ostream &os);

} // namespace graphc::codegen

#endif
