//===- TritonConfig.h - what a graphc entry's config.pbtxt says -*- C++ -*-===//
//
// Both sides of a repository entry use these: `graphc triton` writes
// config.pbtxt with them, and the native backend reads it back at load time
// and maps the same dtypes to the server's TRITONSERVER_DataType.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_TRITON_TRITONCONFIG_H
#define GRAPHC_RUNTIME_TRITON_TRITONCONFIG_H

#include "lib/Artifact/OnnxDtype.h"
#include "runtime/triton/TritonApi.h"

#include <cstdint>

namespace graphc::triton {

/// The config.pbtxt parameter naming the artifact in the version directory
/// (graphc/triton.py, the Python backend's entry, reads the same key).
inline constexpr const char *kArtifactParameter = "graphc_artifact";

struct TritonDtype {
  int32_t onnx; ///< graphc's dtype (ONNX numbering)
  TRITONSERVER_DataType server;
  const char *config; ///< the data_type name in config.pbtxt
};

inline constexpr TritonDtype kTritonDtypes[] = {
    {rt::kBool, TRITONSERVER_TYPE_BOOL, "TYPE_BOOL"},
    {rt::kUint8, TRITONSERVER_TYPE_UINT8, "TYPE_UINT8"},
    {rt::kUint16, TRITONSERVER_TYPE_UINT16, "TYPE_UINT16"},
    {rt::kUint32, TRITONSERVER_TYPE_UINT32, "TYPE_UINT32"},
    {rt::kUint64, TRITONSERVER_TYPE_UINT64, "TYPE_UINT64"},
    {rt::kInt8, TRITONSERVER_TYPE_INT8, "TYPE_INT8"},
    {rt::kInt16, TRITONSERVER_TYPE_INT16, "TYPE_INT16"},
    {rt::kInt32, TRITONSERVER_TYPE_INT32, "TYPE_INT32"},
    {rt::kInt64, TRITONSERVER_TYPE_INT64, "TYPE_INT64"},
    {rt::kFloat16, TRITONSERVER_TYPE_FP16, "TYPE_FP16"},
    {rt::kFloat, TRITONSERVER_TYPE_FP32, "TYPE_FP32"},
    {rt::kDouble, TRITONSERVER_TYPE_FP64, "TYPE_FP64"},
    {rt::kBfloat16, TRITONSERVER_TYPE_BF16, "TYPE_BF16"},
};

/// The entry of a server data type; null for one graphc has no dtype for
/// (TYPE_STRING).
inline const TritonDtype *tritonDtypeOfServer(TRITONSERVER_DataType server) {
  for (const TritonDtype &dtype : kTritonDtypes)
    if (dtype.server == server)
      return &dtype;
  return nullptr;
}

/// Triton's type for a graphc dtype; null for one Triton has no type for.
inline const TritonDtype *tritonDtypeOf(int32_t onnx) {
  for (const TritonDtype &dtype : kTritonDtypes)
    if (dtype.onnx == onnx)
      return &dtype;
  return nullptr;
}

} // namespace graphc::triton

#endif
