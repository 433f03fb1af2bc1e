//===- PackedBoundary.h - 4-bit model inputs and outputs --------*- C++ -*-===//
//
// ONNX's UINT4 and INT4 cross a model's boundary packed, two elements a
// byte (the first in the low nibble, a last half byte for an odd count), as
// ONNX and DLPack (bits 4) lay them out. Inside, graphc holds them one a
// byte in uint8 and int8 (docs/adding-an-op.md).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_DIALECTS_GRAPH_PACKEDBOUNDARY_H
#define GRAPHC_DIALECTS_GRAPH_PACKEDBOUNDARY_H

#include "llvm/ADT/StringRef.h"

namespace graphc::graph {

/// On a `func.func @main` argument or result that is an ONNX UINT4 or INT4
/// tensor: its type at the model boundary (a TypeAttr, a static tensor of
/// ui4 or i4, which toHostDtype numbers 21 and 22). The argument or result
/// itself is the packed bytes (a 1-D ui8 tensor); the importer unpacks and
/// packs them with graph ops (lib/Import/ONNX/QuantizationImport.h), and
/// graphc-lower-to-exec describes the model's input or output, and the
/// plans' dims of it, with the boundary type.
inline constexpr llvm::StringLiteral kPackedTypeAttr = "graph.packed_type";

} // namespace graphc::graph

#endif
