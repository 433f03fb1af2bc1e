//===- LibrarySdpa.h - attention a vendor library computes ------*- C++ -*-===//
//
// Which attention fusions cuDNN's SDPA (its fused flash-attention engine,
// graphc_sdpa_desc) can compute: the whole fusion, its graph.attention with
// the layout prologue it reads Q, K, V and the mask through and the layout
// epilogue it stores through, as strided views of the fusion's inputs and
// output. graphc-select-library-calls marks such fusions, and
// graphc-lower-to-exec describes them by it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_PASSES_LIBRARYSDPA_H
#define GRAPHC_PASSES_LIBRARYSDPA_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace graphc {

/// Where one tensor of the attention lies in a fusion input or output: from
/// element `offset` on, with one stride per dim of [B, H, S, D] (the mask's
/// [B, H, Sq, Skv]).
struct SdpaOperand {
  /// The fusion input (a block argument) holding it; null for the output
  /// and an absent mask.
  mlir::Value source;
  int64_t offset = 0;
  llvm::SmallVector<int64_t, 4> strides;
};

/// An attention in the terms of #exec.sdpa.
struct LibrarySdpa {
  int64_t batch = 0, heads = 0, kvHeads = 0, queries = 0, keys = 0, headDim = 0,
          valueDim = 0;
  double scale = 1.0;
  bool causal = false;
  SdpaOperand q, k, v, o, bias;
  /// The mask's dims over [B, H, Sq, Skv]: each the full extent or 1.
  llvm::SmallVector<int64_t, 4> biasDims;
};

/// Largest head size cuDNN's SDPA engines take (and heads must be a
/// multiple of 8).
inline constexpr int64_t kMaxSdpaHeadDim = 128;

/// The attention of a fusion's body `ops` (in order, without the
/// terminator) yielding `results`, when cuDNN's SDPA computes all of it:
/// f16 or bf16 Q, K, V, mask and result; head sizes up to kMaxSdpaHeadDim
/// and multiples of 8; Q, K, V and the result each a strided view with a
/// unit innermost stride of a fusion input (through the layout prologue)
/// or of the output (through the layout epilogue); a mask broadcastable to
/// [B, H, Sq, Skv] whose last dim is Skv; and no NaN guard unless there is
/// no mask (cuDNN's softmax gives NaN where every key of a row is masked
/// out by -inf, graphc's kernel 0). Nullopt otherwise.
std::optional<LibrarySdpa>
matchLibrarySdpa(llvm::ArrayRef<mlir::Operation *> ops,
                 mlir::ValueRange results);

} // namespace graphc

#endif
