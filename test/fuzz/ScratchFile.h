//===- ScratchFile.h - one file in a private folder for fuzz targets -*- C++ -*-===//
//
// Readers that only take a path get each input through a file of their own
// folder: created once per process (mkdtemp under $TMPDIR, else /dev/shm,
// else /tmp), otherwise empty, so a relative external-data location resolves
// inside it and finds nothing, and removed at exit.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_TEST_FUZZ_SCRATCHFILE_H
#define GRAPHC_TEST_FUZZ_SCRATCHFILE_H

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace graphc::fuzz {

class ScratchFile {
public:
  /// Makes the folder; `fileName` is the name every input is written under.
  explicit ScratchFile(const char *fileName) {
    const char *base = std::getenv("TMPDIR");
    if (!base || !*base)
      base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string pattern = std::string(base) + "/graphc-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      std::perror("graphc fuzz: cannot create a scratch folder");
      std::abort();
    }
    folder = pattern;
    path = folder + "/" + fileName;
  }
  ~ScratchFile() {
    unlink(path.c_str());
    rmdir(folder.c_str());
  }
  ScratchFile(const ScratchFile &) = delete;
  ScratchFile &operator=(const ScratchFile &) = delete;

  /// Replaces the file's contents with `data`; returns its path.
  const std::string &write(const uint8_t *data, size_t size) {
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
      std::perror("graphc fuzz: cannot write the scratch file");
      std::abort();
    }
    while (size) {
      ssize_t written = ::write(fd, data, size);
      if (written <= 0) {
        std::perror("graphc fuzz: cannot write the scratch file");
        std::abort();
      }
      data += written;
      size -= static_cast<size_t>(written);
    }
    close(fd);
    return path;
  }

private:
  std::string folder;
  std::string path;
};

} // namespace graphc::fuzz

#endif
