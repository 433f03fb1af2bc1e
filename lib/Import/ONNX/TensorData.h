//===- TensorData.h - the bytes of an ONNX TensorProto ----------*- C++ -*-===//
#ifndef GRAPHC_LIB_IMPORT_ONNX_TENSORDATA_H
#define GRAPHC_LIB_IMPORT_ONNX_TENSORDATA_H

#include "lib/Artifact/OnnxDtype.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <onnx/onnx_pb.h>

#include <memory>
#include <string>

namespace graphc::onnx_import {

/// Dense row-major little-endian bytes of a tensor (bool as one byte per
/// element) together with the storage that owns them, so that weights can be
/// handed to MLIR without another copy.
class TensorData {
public:
  llvm::ArrayRef<char> bytes() const { return view; }

  static TensorData fromString(std::unique_ptr<std::string> storage);
  static TensorData fromBuffer(std::unique_ptr<llvm::MemoryBuffer> storage);

private:
  std::unique_ptr<std::string> string;
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  llvm::ArrayRef<char> view;
};

/// Takes the contents out of `tensor`: raw_data is moved (not copied), typed
/// fields are converted, and external data is read from the file it names
/// relative to `baseDir`. `what` names the tensor in errors ("initializer
/// 'w'"). Fails on unsupported element types and on a byte count that does
/// not match the dims.
llvm::Expected<TensorData> takeTensorData(onnx::TensorProto &tensor,
                                          llvm::StringRef baseDir,
                                          llvm::StringRef what);

/// The byte size of a tensor's data from its dims and type, without reading
/// the data (4-bit integers two to a byte); nullopt for unsupported element
/// types or invalid dims.
std::optional<int64_t> tensorByteSize(const onnx::TensorProto &tensor);

/// ONNX's UINT4 (21) and INT4 (22): packed two to a byte, the first element
/// in the low nibble. graphc holds them unpacked, one per byte
/// (unpackFourBit), as uint8 and int8.
using rt::isFourBitDtype;

/// The `count` elements of 4-bit `packed` data one per byte, those of INT4
/// (`isSigned`) sign-extended.
std::unique_ptr<std::string> unpackFourBit(llvm::ArrayRef<char> packed,
                                           int64_t count, bool isSigned);

} // namespace graphc::onnx_import

#endif
