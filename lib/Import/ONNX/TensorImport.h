//===- TensorImport.h - ONNX tensors and types as MLIR ----------*- C++ -*-===//
#ifndef GRAPHC_LIB_IMPORT_ONNX_TENSORIMPORT_H
#define GRAPHC_LIB_IMPORT_ONNX_TENSORIMPORT_H

#include "lib/Import/ONNX/ONNXImporter.h"

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"

#include <onnx/onnx_pb.h>

namespace graphc::onnx_import {

/// The MLIR element type of an ONNX TensorProto.DataType, or null for types
/// graphc does not compile (strings, complex, 8/4-bit types).
mlir::Type convertElementType(mlir::MLIRContext *context, int32_t dataType);

/// Converts `tensor` into an attribute, taking its data out of the proto:
/// small and bool tensors become DenseElementsAttr, the others
/// DenseResourceElementsAttr blobs that own the (moved or mapped) bytes.
/// `what` names the tensor in errors; external data is read relative to
/// `baseDir`.
llvm::Expected<mlir::ElementsAttr> importTensor(mlir::MLIRContext *context,
                                                onnx::TensorProto &tensor,
                                                llvm::StringRef baseDir,
                                                llvm::StringRef what,
                                                const ImportOptions &options);

} // namespace graphc::onnx_import

#endif
