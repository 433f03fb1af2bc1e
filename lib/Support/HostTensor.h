//===- HostTensor.h - an owned dense tensor in host memory ------*- C++ -*-===//
#ifndef GRAPHC_LIB_SUPPORT_HOSTTENSOR_H
#define GRAPHC_LIB_SUPPORT_HOSTTENSOR_H

#include <cstdint>
#include <string>
#include <vector>

namespace graphc {

/// A dense row-major tensor read from or written to a file (.npy, ONNX
/// TensorProto .pb). dtype uses the ONNX TensorProto.DataType numbering.
struct HostTensor {
  std::string name;
  int32_t dtype = 0;
  std::vector<int64_t> dims;
  std::vector<char> data;
};

} // namespace graphc

#endif
