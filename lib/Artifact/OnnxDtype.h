//===- OnnxDtype.h - ONNX TensorProto.DataType numbers ----------*- C++ -*-===//
//
// The dtype table of the artifact format: the numbering of descriptors, of
// the C API and of the host kernels (gc_dtype), and each dtype's size and
// name. The
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
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
};

/// Whether `dtype` is one of the 8-bit float formats (lib/Support/Float8.h).
constexpr bool isFloat8Dtype(int32_t dtype) {
  return dtype >= kFloat8E4M3FN && dtype <= kFloat8E5M2FNUZ;
}

/// Bytes per element of `dtype`, 0 for one not in the table.
constexpr size_t dtypeSize(int32_t dtype) {
  switch (dtype) {
  case kUint8:
  case kInt8:
  case kBool:
  case kFloat8E4M3FN:
  case kFloat8E4M3FNUZ:
  case kFloat8E5M2:
  case kFloat8E5M2FNUZ:
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

/// The name of `dtype` ("float32", "bfloat16", "bool", ...): the C API's
/// (graphc_dtype_name) and the importer's; null for one not in the table.
constexpr const char *dtypeName(int32_t dtype) {
  switch (dtype) {
  case kFloat:
    return "float32";
  case kUint8:
    return "uint8";
  case kInt8:
    return "int8";
  case kUint16:
    return "uint16";
  case kInt16:
    return "int16";
  case kInt32:
    return "int32";
  case kInt64:
    return "int64";
  case kBool:
    return "bool";
  case kFloat16:
    return "float16";
  case kDouble:
    return "float64";
  case kUint32:
    return "uint32";
  case kUint64:
    return "uint64";
  case kBfloat16:
    return "bfloat16";
  case kFloat8E4M3FN:
    return "float8e4m3fn";
  case kFloat8E4M3FNUZ:
    return "float8e4m3fnuz";
  case kFloat8E5M2:
    return "float8e5m2";
  case kFloat8E5M2FNUZ:
    return "float8e5m2fnuz";
  default:
    return nullptr;
  }
}

} // namespace graphc::rt

#endif
