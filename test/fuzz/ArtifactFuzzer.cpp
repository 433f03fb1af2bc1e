//===- ArtifactFuzzer.cpp - fuzzing the artifact checks -------------------===//
//
// Bytes as a model .so: the checks the runtime makes before anything in the
// file is mapped or run. Nothing here loads or executes the bytes.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/ElfCheck.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace {
/// An anonymous in-memory file that holds the current input.
int memoryFile() {
  static int fd = [] {
    int created = memfd_create("graphc-fuzz-artifact", MFD_CLOEXEC);
    if (created < 0) {
      std::perror("graphc fuzz: memfd_create");
      std::abort();
    }
    return created;
  }();
  return fd;
}

void replaceContents(int fd, const uint8_t *data, size_t size) {
  if (ftruncate(fd, 0) != 0) {
    std::perror("graphc fuzz: ftruncate");
    std::abort();
  }
  for (off_t offset = 0; size;) {
    ssize_t written = pwrite(fd, data, size, offset);
    if (written <= 0) {
      std::perror("graphc fuzz: pwrite");
      std::abort();
    }
    data += written;
    size -= static_cast<size_t>(written);
    offset += written;
  }
}

/// What the runtime checks on an artifact's bytes before dlopen. The
/// data-only artifact reader, once there, replaces the ELF check with reading
/// the descriptor from `data` and checkDescriptor on it.
std::string checkArtifact(const uint8_t *data, size_t size) {
  int fd = memoryFile();
  replaceContents(fd, data, size);
  return graphc::rt::checkLoadableElf(fd);
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string problem = checkArtifact(data, size);
  (void)problem;
  return 0;
}
