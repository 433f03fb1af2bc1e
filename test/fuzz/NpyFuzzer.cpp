//===- NpyFuzzer.cpp - fuzzing the .npy reader ----------------------------===//
//
// Bytes as the contents of a .npy file. A tensor the reader accepts must
// write back (the writer checks that the data fits the dtype and dims) and
// read back unchanged.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/Npy.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

namespace {
[[noreturn]] void fail(const char *what, llvm::Error error) {
  std::fprintf(stderr, "%s: %s\n", what,
               llvm::toString(std::move(error)).c_str());
  std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef contents(reinterpret_cast<const char *>(data), size);
  llvm::Expected<graphc::HostTensor> tensor =
      graphc::parseNpy(contents, "input");
  if (!tensor) {
    llvm::consumeError(tensor.takeError());
    return 0;
  }

  std::string written;
  llvm::raw_string_ostream os(written);
  if (llvm::Error error = graphc::writeNpy(os, *tensor))
    fail("an accepted .npy does not write back", std::move(error));
  os.flush();
  llvm::Expected<graphc::HostTensor> reread =
      graphc::parseNpy(written, "input");
  if (!reread)
    fail("a written .npy does not read back", reread.takeError());
  if (reread->dtype != tensor->dtype || reread->dims != tensor->dims ||
      reread->data != tensor->data) {
    std::fprintf(stderr, "a .npy changes on writing and reading back\n");
    std::abort();
  }
  return 0;
}
