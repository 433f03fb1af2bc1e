//===- OnnxDtype.h - ONNX TensorProto.DataType numbers ----------*- C++ -*-===//
//
// The dtype numbering of descriptors and of the C API (gc_dtype), for the
// runtime sources that switch on it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_ARTIFACT_ONNXDTYPE_H
#define GRAPHC_LIB_ARTIFACT_ONNXDTYPE_H

#include <cstdint>

namespace graphc::rt {

enum OnnxDtype : int32_t {
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

} // namespace graphc::rt

#endif
