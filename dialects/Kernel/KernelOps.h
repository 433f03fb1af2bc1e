//===- KernelOps.h - kernel dialect -----------------------------*- C++ -*-===//
#ifndef GRAPHC_DIALECTS_KERNEL_KERNELOPS_H
#define GRAPHC_DIALECTS_KERNEL_KERNELOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Kernel/KernelDialect.h.inc"
#include "dialects/Kernel/KernelEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Kernel/KernelAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/Kernel/KernelOps.h.inc"

#endif
