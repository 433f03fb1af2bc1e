//===- RegularFile.h - opening a path without blocking ----------*- C++ -*-===//
//
// Every file a user names is opened here. A plain open() of a FIFO waits
// forever for a writer, and of a device may do anything; so the path is
// opened with O_NONBLOCK, checked with fstat to be a regular file, and only
// then read (O_NONBLOCK cleared). POSIX only, no LLVM: the runtime uses it
// too.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_REGULARFILE_H
#define GRAPHC_LIB_SUPPORT_REGULARFILE_H

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace graphc {

/// Why openRegularFile failed: `error` is the errno of open or fstat, 0
/// when the path exists but is not a regular file.
struct OpenFailure {
  int error = 0;
};

/// Opens `path` read-only and close-on-exec without blocking, and returns
/// the descriptor when it is a regular file (its stat in `info` when
/// given); otherwise -1 with `failure` saying why.
inline int openRegularFile(const char *path, OpenFailure &failure,
                           struct stat *info = nullptr) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    failure.error = errno;
    return -1;
  }
  struct stat local;
  struct stat &st = info ? *info : local;
  int flags = 0;
  failure.error = 0;
  if (fstat(fd, &st) != 0)
    failure.error = errno;
  else if (!S_ISREG(st.st_mode))
    failure.error = 0; // Not a regular file.
  else if ((flags = fcntl(fd, F_GETFL)) >= 0 &&
           fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0)
    return fd;
  else
    failure.error = errno;
  ::close(fd);
  return -1;
}

} // namespace graphc

#endif
