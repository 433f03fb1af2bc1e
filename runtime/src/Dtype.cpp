//===- Dtype.cpp - dtype names, sizes and DLPack mapping ------------------===//
#include "runtime/src/Dtype.h"

#include "graphc/runtime.h"
#include "lib/Artifact/OnnxDtype.h"

using namespace graphc::rt;

std::string graphc::rt::formatTensorType(int32_t dtype, int32_t rank,
                                         const int64_t *dims,
                                         const char *const *dimNames) {
  std::string text = graphc_dtype_name(dtype);
  text += '[';
  for (int32_t i = 0; i < rank; ++i) {
    if (i)
      text += ',';
    if (dims[i] >= 0)
      text += std::to_string(dims[i]);
    else if (dimNames && dimNames[i] && dimNames[i][0])
      text += dimNames[i];
    else
      text += '?';
  }
  text += ']';
  return text;
}

int64_t graphc::rt::elementCount(int32_t rank, const int64_t *dims) {
  int64_t count = 1;
  for (int32_t i = 0; i < rank; ++i) {
    if (dims[i] < 0 || __builtin_mul_overflow(count, dims[i], &count))
      return -1;
  }
  return count;
}

extern "C" {

const char *graphc_dtype_name(int32_t dtype) {
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
  default:
    return "unknown";
  }
}

size_t graphc_dtype_size(int32_t dtype) { return dtypeSize(dtype); }

} // extern "C"
