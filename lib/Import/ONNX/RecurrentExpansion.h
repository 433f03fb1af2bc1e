//===- RecurrentExpansion.h - ONNX LSTM, GRU, RNN as graph ops --*- C++ -*-===//
//
// graphc has no recurrent graph op: an LSTM, GRU or RNN node whose sequence
// length is static is unrolled at import into ops graphc already lowers. Per
// direction the input projection of all time steps is one Gemm; each step is
// then one recurrent Gemm (two for a GRU without linear_before_reset) and a
// pointwise cell, which fusion turns into few kernels. sequence_lens
// masks each batch row with Where: a step at t >= len keeps the state and
// writes zeros to Y, as ONNX and onnxruntime define.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_IMPORT_ONNX_RECURRENTEXPANSION_H
#define GRAPHC_LIB_IMPORT_ONNX_RECURRENTEXPANSION_H

#include "lib/Import/ONNX/VersionNormalization.h"

namespace graphc::onnx_import {

/// The most time steps (sequence length times directions) one node may
/// unroll into: each step is a few ops, and the unrolled graph must stay a
/// size that the passes and code generation handle in reasonable time.
inline constexpr int64_t kMaxRecurrentSteps = 1024;

/// Imports an LSTM, GRU or RNN node as graph ops. Returns Y, Y_h (and Y_c for
/// an LSTM); an output the node does not name is a null value. Emits a
/// diagnostic and fails on a dynamic or too long sequence, an unknown
/// activation, or inputs of the wrong shape.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
importRecurrent(NodeBuilder &builder, NodeInfo &info);

} // namespace graphc::onnx_import

#endif
