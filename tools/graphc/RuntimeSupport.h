//===- RuntimeSupport.h - the runtime's C API from the tools ----*- C++ -*-===//
#ifndef GRAPHC_TOOLS_GRAPHC_RUNTIMESUPPORT_H
#define GRAPHC_TOOLS_GRAPHC_RUNTIMESUPPORT_H

#include "graphc/runtime.h"

#include "llvm/Support/Error.h"

namespace graphc::tools {

/// The message of a failed runtime call as an llvm::Error; frees `status`.
llvm::Error toError(graphc_status status);

/// The DLPack dtype of an ONNX dtype (graphc's dtypes only).
DLDataType dlpackDtype(int32_t dtype);

} // namespace graphc::tools

#endif
