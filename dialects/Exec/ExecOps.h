//===- ExecOps.h - exec dialect ---------------------------------*- C++ -*-===//
#ifndef GRAPHC_DIALECTS_EXEC_EXECOPS_H
#define GRAPHC_DIALECTS_EXEC_EXECOPS_H

#include "dialects/Kernel/KernelOps.h"
#include "mlir/IR/SymbolTable.h"

#include "dialects/Exec/ExecEnums.h.inc"

// The attributes first: the dialect's discardable-attribute helpers name
// SlotAttr.
#define GET_ATTRDEF_CLASSES
#include "dialects/Exec/ExecAttrs.h.inc"

#include "dialects/Exec/ExecDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/Exec/ExecOps.h.inc"

namespace graphc::exec {

/// Bytes a static tensor takes in a slot: dense, row-major, one byte per
/// i1 element.
int64_t slotBytes(mlir::Type tensorType);

/// The op a single-op kernel computes: its one op besides constants and the
/// terminator, or null when there is not exactly one.
mlir::Operation *getComputeOp(KernelOp kernel);

/// Whether the cuda target generates code for `kernel`: every kernel no
/// library computes, a cuDNN convolution with an epilogue, whose code
/// finishes that epilogue when the library fuses none (ConvAttr::hasEpilogue),
/// and a cuDNN attention, whose code computes it when cuDNN has no engine.
bool hasDeviceCode(KernelOp kernel);

/// On a constant copied into a kernel body: the index of the kernel input
/// (block argument) it stands for, which the launch still passes.
inline constexpr llvm::StringLiteral kArgumentAttr = "exec.argument";

/// The kernel input that holds `value` inside a kernel body: a block
/// argument's number, or a copied constant's exec.argument; nullopt for
/// values computed in the body.
std::optional<unsigned> getKernelArgument(mlir::Value value);

} // namespace graphc::exec

#endif
