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
  kUint4 = 21,
  kInt4 = 22,
};

/// Whether `dtype` is one of the 8-bit float formats (lib/Support/Float8.h).
constexpr bool isFloat8Dtype(int32_t dtype) {
  return dtype >= kFloat8E4M3FN && dtype <= kFloat8E5M2FNUZ;
}

/// Whether `dtype` is ONNX's UINT4 or INT4: packed two to a byte, the first
/// element in the low nibble, the last byte's high nibble unused when the
/// count is odd (DLPack's kDLUInt/kDLInt with bits 4 too). A model's inputs
/// and outputs take them packed; inside a model they are held unpacked, one
/// per byte (docs/adding-an-op.md).
constexpr bool isFourBitDtype(int32_t dtype) {
  return dtype == kUint4 || dtype == kInt4;
}

/// Bytes per element of `dtype`, 0 for one not in the table and for the
/// 4-bit ones (a sub-byte size: dtypeBits, storageBytes).
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

/// Bits per element of `dtype`: 4 for the 4-bit integers, 8 times
/// dtypeSize otherwise (0 for one not in the table).
constexpr size_t dtypeBits(int32_t dtype) {
  return isFourBitDtype(dtype) ? 4 : 8 * dtypeSize(dtype);
}

/// The bytes `count` (>= 0) elements of `dtype` take, dense: a whole byte
/// per two 4-bit elements and one for an odd last one. -1 when the product
/// overflows or the dtype is not in the table.
constexpr int64_t storageBytes(int32_t dtype, int64_t count) {
  if (count < 0 || dtypeBits(dtype) == 0)
    return -1;
  if (isFourBitDtype(dtype))
    return count / 2 + count % 2;
  int64_t bytes = 0;
  if (__builtin_mul_overflow(count, static_cast<int64_t>(dtypeSize(dtype)),
                             &bytes))
    return -1;
  return bytes;
}

/// Element `i` of packed 4-bit data (isFourBitDtype's layout) as the byte
/// that holds it unpacked: the nibble, sign-extended when `isSigned`.
constexpr unsigned char fourBitElement(const unsigned char *packed, int64_t i,
                                       bool isSigned) {
  unsigned nibble = (packed[i / 2] >> (i % 2 * 4)) & 0xfu;
  if (isSigned && nibble >= 8)
    nibble |= 0xf0u; // -8 .. -1
  return static_cast<unsigned char>(nibble);
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
  case kUint4:
    return "uint4";
  case kInt4:
    return "int4";
  default:
    return nullptr;
  }
}

} // namespace graphc::rt

#endif
