//===- LibraryConv.h - convolutions a vendor library computes ---*- C++ -*-===//
//
// Which part of a conv fusion a library convolution (graphc_conv_desc,
// computed by cuDNN's graph API on the GPU and by the runtime's reference
// convolution on the host) can take over: the graph.conv with its bias, then
// the epilogue cuDNN fuses: the add of a same-shaped residual Z, then ReLU,
// SiLU or the erf GELU (cuDNN's GELU_FWD).
// graphc-select-library-calls splits fusions by it, and graphc-lower-to-exec
// describes library kernels by it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_PASSES_LIBRARYCONV_H
#define GRAPHC_PASSES_LIBRARYCONV_H

#include "dialects/Exec/ExecOps.h"
#include "dialects/Graph/GraphOps.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace graphc {

/// A convolution in the terms of #exec.conv, over values the ops it covers
/// read from outside.
struct LibraryConv {
  /// The ops computed by the library: the conv, then the epilogue chain in
  /// order; `root` (the last) computes Y.
  llvm::SmallVector<mlir::Operation *> ops;
  mlir::Operation *root = nullptr;
  /// X and W, the bias and Z (null when absent).
  mlir::Value x, w, bias, z;
  int64_t n = 0, c = 0, k = 0, groups = 1;
  llvm::SmallVector<int64_t> inSize, filterSize, outSize, padsBegin, padsEnd,
      strides, dilations;
  exec::GemmEpilogue epilogue = exec::GemmEpilogue::none;
  /// X, W, Y and Z have their channels last (graph.conv's channels_last).
  bool channelsLast = false;
};

/// The library convolution computing the graph.conv of a conv fusion's
/// `ops` (in fusion order, the conv first) and the longest epilogue chain
/// after it that the library fuses; nullopt when no library computes the
/// conv (element types other than f32, f16 and bf16 or mixed ones, other
/// than 1 to 3 spatial dims, shapes that are not static, an auto_pad the
/// static shapes do not resolve). A graph.quantized_conv of int8 tensors,
/// channels last, 2 spatial dims, c / groups and k multiples of 4, is a
/// convolution whose Y is its int32 accumulator (see graphc_conv_desc),
/// without epilogue.
std::optional<LibraryConv>
matchLibraryConv(llvm::ArrayRef<mlir::Operation *> ops);

/// Whether `conv` has the shape and types of cuDNN's int8 convolutions
/// (int8 X and W, 2 spatial dims, c / groups and k multiples of 4) in
/// either layout; matchLibraryConv takes it once it is channels last.
bool isLibraryInt8ConvForm(graph::QuantizedConvOp conv);

} // namespace graphc

#endif
