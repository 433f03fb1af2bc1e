//===- ArtifactFuzzer.cpp - fuzzing the artifact checks -------------------===//
//
// Bytes as a model .so: the checks the runtime makes before anything in the
// file is mapped or run. Nothing here loads or executes the bytes.
//
//===----------------------------------------------------------------------===//

#include "lib/Artifact/ArtifactReader.h"
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

/// Aborts (a finding) when a view the reader accepted points outside the
/// bytes it was read from.
void checkViewBounds(const graphc::rt::ArtifactView &view, size_t size) {
  auto within = [size](uint64_t offset, uint64_t length) {
    return offset <= size && length <= size - offset;
  };
  bool ok = view.checksumOffset != 0 && within(view.checksumOffset, 8);
  if (view.weightsEmbedded)
    ok = ok && within(view.weightsFileOffset, view.weightsSize);
  for (const graphc::rt::ArtifactImage &image : view.images)
    ok = ok && within(image.fileOffset, image.size);
  if (!ok) {
    std::fprintf(stderr, "graphc fuzz: accepted artifact view points outside "
                         "its %zu bytes\n",
                 size);
    std::abort();
  }
}
} // namespace

/// What the runtime does with an artifact's bytes before dlopen: the ELF
/// checks, reading the descriptor as data, and the whole-file checksum.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fd = memoryFile();
  replaceContents(fd, data, size);
  std::string problem = graphc::rt::checkLoadableElf(fd);
  (void)problem;
  graphc::rt::ArtifactRead read = graphc::rt::readArtifact(data, size);
  if (read.error == graphc::rt::ArtifactError::none) {
    checkViewBounds(read.view, size);
    uint64_t checksum = graphc::rt::computeArtifactChecksum(
        data, size, read.view.checksumOffset);
    (void)checksum;
  }
  return 0;
}
