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
  const char *name = dtypeName(dtype);
  return name ? name : "unknown";
}

size_t graphc_dtype_size(int32_t dtype) { return dtypeSize(dtype); }

size_t graphc_dtype_bits(int32_t dtype) { return dtypeBits(dtype); }

uint64_t graphc_dtype_bytes(int32_t dtype, uint64_t count) {
  if (count > static_cast<uint64_t>(INT64_MAX))
    return UINT64_MAX;
  int64_t bytes = storageBytes(dtype, static_cast<int64_t>(count));
  return bytes < 0 ? UINT64_MAX : static_cast<uint64_t>(bytes);
}

} // extern "C"
