//===- TensorFileFuzzer.cpp - fuzzing the TensorProto file reader ---------===//
//
// Bytes as a serialised onnx.TensorProto file (`graphc run --input x=x.pb`).
// The reader only takes a path, so each input goes through a scratch file
// alone in its folder.
//
//===----------------------------------------------------------------------===//

#include "lib/Import/ONNX/TensorFile.h"
#include "test/fuzz/ScratchFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static graphc::fuzz::ScratchFile file("tensor.pb");
  llvm::Expected<graphc::HostTensor> tensor =
      graphc::readTensorProtoFile(file.write(data, size));
  if (!tensor)
    llvm::consumeError(tensor.takeError());
  return 0;
}
