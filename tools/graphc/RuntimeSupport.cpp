//===- RuntimeSupport.cpp - the runtime's C API from the tools ------------===//

#include "tools/graphc/RuntimeSupport.h"

namespace graphc::tools {

llvm::Error toError(graphc_status status) {
  std::string message = graphc_status_message(status);
  graphc_status_free(status);
  return llvm::createStringError(message);
}

DLDataType dlpackDtype(int32_t dtype) {
  switch (dtype) {
  case 1:
    return {kDLFloat, 32, 1};
  case 2:
    return {kDLUInt, 8, 1};
  case 3:
    return {kDLInt, 8, 1};
  case 4:
    return {kDLUInt, 16, 1};
  case 5:
    return {kDLInt, 16, 1};
  case 6:
    return {kDLInt, 32, 1};
  case 7:
    return {kDLInt, 64, 1};
  case 9:
    return {/*kDLBool*/ 6, 8, 1};
  case 10:
    return {kDLFloat, 16, 1};
  case 11:
    return {kDLFloat, 64, 1};
  case 12:
    return {kDLUInt, 32, 1};
  case 13:
    return {kDLUInt, 64, 1};
  case 16:
    return {kDLBfloat, 16, 1};
  default:
    return {kDLOpaqueHandle, 0, 0};
  }
}

} // namespace graphc::tools
