//===- EmitCpuLoops.h - generated loops for cpu fusions ---------*- C++ -*-===//
//
// Where a cpu kernel fuses pointwise ops (a pointwise chain, or the epilogue
// of a conv, gemm or mat_mul), it computes them in one generated loop nest
// from the scalar expression builders (ScalarExpr.h), as the CUDA templates
// do, instead of one host kernel call and one temporary per op: each
// element is read once and written once. The host kernels stay what the
// loops are checked against, and compute everything else.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_CODEGEN_CPU_EMITCPULOOPS_H
#define GRAPHC_LIB_CODEGEN_CPU_EMITCPULOOPS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>

namespace graphc::codegen {

/// A loop nest over the elements of `shape` (row-major) computing the
/// pointwise ops `ops` in order and storing each of `stores` (values of
/// `shape` that `ops` compute) through its pointer expression. What the ops
/// read that they do not compute is a splat constant (a literal), a value
/// in `buffers` (a C pointer expression), or a kernel input (`args[k]`), at
/// its broadcast offset. nullopt when an op has no scalar expression or an
/// operand does not broadcast to `shape`: the caller then calls host
/// kernels, so no diagnostic is emitted.
std::optional<std::string>
emitCpuPointwiseLoop(llvm::ArrayRef<mlir::Operation *> ops,
                     llvm::ArrayRef<int64_t> shape,
                     const llvm::DenseMap<mlir::Value, std::string> &buffers,
                     llvm::ArrayRef<std::pair<mlir::Value, std::string>> stores);

} // namespace graphc::codegen

#endif
