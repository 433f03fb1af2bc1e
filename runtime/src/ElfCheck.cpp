//===- ElfCheck.cpp - sanity checks before dlopen -------------------------===//
#include "runtime/src/ElfCheck.h"

#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace {
#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
#else
#error "unsupported host architecture"
#endif

bool readAt(int fd, void *buffer, size_t size, off_t offset) {
  auto *out = static_cast<char *>(buffer);
  while (size) {
    ssize_t got = pread(fd, out, size, offset);
    if (got <= 0)
      return false;
    out += got;
    size -= static_cast<size_t>(got);
    offset += got;
  }
  return true;
}

bool endsWithin(uint64_t offset, uint64_t size, uint64_t fileSize) {
  return offset <= fileSize && size <= fileSize - offset;
}
} // namespace

std::string graphc::rt::checkLoadableElf(int fd) {
  struct stat info;
  if (fstat(fd, &info) != 0)
    return std::string("cannot stat: ") + std::strerror(errno);
  uint64_t fileSize = static_cast<uint64_t>(info.st_size);

  Elf64_Ehdr header;
  if (fileSize < sizeof(header) || !readAt(fd, &header, sizeof(header), 0) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    return "not an ELF shared object";
  if (header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB || header.e_machine != kMachine)
    return "an ELF file for another machine";
  if (header.e_type != ET_DYN)
    return "an ELF file that is not a shared object";
  if (header.e_phentsize != sizeof(Elf64_Phdr) ||
      !endsWithin(header.e_phoff, uint64_t(header.e_phnum) * sizeof(Elf64_Phdr),
                  fileSize))
    return "truncated (program headers lie past the end of the file)";
  if (header.e_shnum &&
      !endsWithin(header.e_shoff, uint64_t(header.e_shnum) * header.e_shentsize,
                  fileSize))
    return "truncated (section headers lie past the end of the file)";

  std::vector<Elf64_Phdr> segments(header.e_phnum);
  if (!readAt(fd, segments.data(), segments.size() * sizeof(Elf64_Phdr),
              static_cast<off_t>(header.e_phoff)))
    return "cannot read the program headers";
  for (const Elf64_Phdr &segment : segments) {
    if (segment.p_type == PT_LOAD &&
        !endsWithin(segment.p_offset, segment.p_filesz, fileSize))
      return "truncated (a loadable segment ends at byte " +
             std::to_string(segment.p_offset + segment.p_filesz) +
             ", the file has " + std::to_string(fileSize) + ")";
  }
  return "";
}
