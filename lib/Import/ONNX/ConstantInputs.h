//===- ConstantInputs.h - model inputs bound at compile time ----*- C++ -*-===//
#ifndef GRAPHC_LIB_IMPORT_ONNX_CONSTANTINPUTS_H
#define GRAPHC_LIB_IMPORT_ONNX_CONSTANTINPUTS_H

#include "lib/Import/ONNX/ONNXImporter.h"

#include "mlir/IR/BuiltinAttributeInterfaces.h"

#include <onnx/onnx_pb.h>

namespace graphc::onnx_import {

/// The value --const-input gives the model input `declared`: the file's
/// tensor, whose dtype must be the input's and whose shape its declared
/// shape allows, or the value list as a 1-D tensor of the input's element
/// type. Errors name the flag value.
llvm::Expected<mlir::ElementsAttr>
importConstantInput(mlir::MLIRContext *context, const ConstantInput &input,
                    const onnx::ValueInfoProto &declared,
                    const ImportOptions &options);

} // namespace graphc::onnx_import

#endif
