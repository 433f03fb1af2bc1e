//===- TensorFile.h - reading serialised ONNX TensorProto files -*- C++ -*-===//
#ifndef GRAPHC_LIB_IMPORT_ONNX_TENSORFILE_H
#define GRAPHC_LIB_IMPORT_ONNX_TENSORFILE_H

#include "lib/Support/HostTensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace graphc {

/// Reads a serialised onnx.TensorProto (the input_N.pb / output_N.pb files of
/// the ONNX backend tests) into a dense host tensor. External data is looked
/// up relative to the file's directory.
llvm::Expected<HostTensor> readTensorProtoFile(llvm::StringRef path);

} // namespace graphc

#endif
