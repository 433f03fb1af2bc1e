//===- QuantizationImport.h - ONNX quantization ops as graph ops -*- C++
//-*-===//
//
// QuantizeLinear and DequantizeLinear become the pointwise
// graph.quantize_linear / graph.dequantize_linear: per-axis scales and zero
// points are reshaped to broadcast along their axis, blocked ones repeated to
// x's shape, and an absent zero point becomes a zero of its type, so that the
// graph ops are ordinary broadcasting pointwise ops that fuse with their
// neighbours.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_IMPORT_ONNX_QUANTIZATIONIMPORT_H
#define GRAPHC_LIB_IMPORT_ONNX_QUANTIZATIONIMPORT_H

#include "lib/Import/ONNX/VersionNormalization.h"

namespace graphc::onnx_import {

mlir::FailureOr<llvm::SmallVector<mlir::Value>>
importQuantizeLinear(NodeBuilder &builder, NodeInfo &info);
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
importDequantizeLinear(NodeBuilder &builder, NodeInfo &info);

// The type an ONNX UINT4 (21) or INT4 (22) value is held in inside a
// model: uint8 or int8, one element a byte (isFourBitDtype).
mlir::Type fourBitHolder(mlir::MLIRContext *context, int32_t dtype);

// Cast (and CastLike) to ONNX UINT4 (21) or INT4 (22), whose values graphc
// holds unpacked in uint8 or int8: saturated to the 4-bit range and, from
// floats, rounded half to even, as onnx's reference converts. QuantizeLinear
// to them quantizes to 8 bits and saturates the same way.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
importFourBitCast(NodeBuilder &builder, mlir::Value input, int32_t dtype);

// A model input or output of type UINT4 (21) or INT4 (22) crosses the
// boundary packed, as ONNX and DLPack lay it out: two elements a byte, the
// first in the low nibble, a last half byte when the count is odd. Its
// function argument or result is those bytes (packedFourBitType, 1-D
// uint8), which these graph ops turn into the unpacked 8-bit values the
// model computes with and back; the argument or result carries its
// boundary type (graph.packed_type, dialects/Graph/PackedBoundary.h). Static
// shapes only.
mlir::RankedTensorType packedFourBitType(mlir::MLIRContext *context,
                                         llvm::ArrayRef<int64_t> shape);
mlir::FailureOr<mlir::Value>
unpackFourBitBoundary(NodeBuilder &builder, mlir::Value packed, int32_t dtype,
                      llvm::ArrayRef<int64_t> shape);
mlir::FailureOr<mlir::Value> packFourBitBoundary(NodeBuilder &builder,
                                                 mlir::Value value);

// MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv become the
// float ops on their centered operands where the arithmetic is exact:
// mat_mul in int32 (wrapping like the reference), conv in f64 (products and
// sums of 8-bit values are exact), and the requantization as
// graph.quantize_linear of the f64 product times the scales' ratio.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
importMatMulInteger(NodeBuilder &builder, NodeInfo &info);
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
importQLinearMatMul(NodeBuilder &builder, NodeInfo &info);
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
importConvInteger(NodeBuilder &builder, NodeInfo &info);
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
importQLinearConv(NodeBuilder &builder, NodeInfo &info);

} // namespace graphc::onnx_import

#endif
