//===- OnnxDtype.h - ONNX TensorProto.DataType numbers ----------*- C++ -*-===//
//
// The dtype table of the artifact format: the numbering of descriptors, of
// the C API and of the host kernels (gc_dtype), and each dtype's size. The
// compiler's element types map onto it (graph::toHostDtype); the runtime
// switches on it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_ARTIFACT_ONNXDTYPE_H
#define GRAPHC_LIB_ARTIFACT_ONNXDTYPE_H

#include <cstddef>
#include <cstdint>

namespace graphc::rt {

enum OnnxDtype : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kBfloat16 = 16,
};

/// Bytes per element of `dtype`, 0 for one not in the table.
constexpr size_t dtypeSize(int32_t dtype) {
  switch (dtype) {
  case kUint8:
  case kInt8:
  case kBool:
    return 1;
  case kUint16:
  case kInt16:
  case kFloat16:
  case kBfloat16:
    return 2;
  case kFloat:
  case kInt32:
  case kUint32:
    return 4;
  case kInt64:
  case kDouble:
  case kUint64:
    return 8;
  default:
    return 0;
  }
}

} // namespace graphc::rt

#endif
