//===- LibraryGemm.h - GEMMs a vendor library computes ----------*- C++ -*-===//
//
// Which part of a matmul fusion a library GEMM (graphc_gemm_desc, computed
// by cuBLASLt on the GPU and by the runtime's reference GEMM on the host)
// can take over: the mat_mul or gemm, the transposes it reads through (as
// transpose flags), and the epilogue cuBLASLt fuses: a bias per column, a
// same-shaped residual added through beta * C, then ReLU or the tanh form
// of GELU. graphc-select-library-calls splits fusions by it, and
// graphc-lower-to-exec describes library kernels by it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_PASSES_LIBRARYGEMM_H
#define GRAPHC_PASSES_LIBRARYGEMM_H

#include "dialects/Exec/ExecOps.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace graphc {

/// A GEMM in the row-major terms of #exec.gemm, over values the ops it
/// covers read from outside.
struct LibraryGemm {
  /// The ops computed by the GEMM: layout prologues, the anchor, then the
  /// epilogue chain in order; `root` (the last) computes D.
  llvm::SmallVector<mlir::Operation *> ops;
  mlir::Operation *root = nullptr;
  /// A and B as stored (before any transpose flag), C and the bias (null
  /// when absent).
  mlir::Value a, b, c, bias;
  bool transA = false, transB = false;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  double alpha = 1.0, beta = 0.0;
  exec::GemmEpilogue epilogue = exec::GemmEpilogue::none;
};

/// The library GEMM computing the anchor of a matmul fusion's `ops` (in
/// fusion order: layout prologues, the anchor, the epilogue) and the longest
/// epilogue chain after it that the library fuses; nullopt when no library
/// computes the anchor (einsum, element types other than f32, f16 and bf16
/// or mixed ones, a transpose other than of the last two dims, batch dims
/// broadcast in part, a gemm C neither a row bias nor [M, N]). A
/// graph.quantized_mat_mul of int8 operands, or of e4m3fn ones with
/// `float8` (every target SM has fp8 tensor cores), is a GEMM of those
/// operands whose C and D are its accumulator (int32 or f32; see
/// graphc_gemm_desc), without epilogue.
std::optional<LibraryGemm>
matchLibraryGemm(llvm::ArrayRef<mlir::Operation *> ops, bool float8 = true);

} // namespace graphc

#endif
