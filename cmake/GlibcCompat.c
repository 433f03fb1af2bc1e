/*===- GlibcCompat.c - older-glibc fallbacks for the static build ---------===*
 *
 * The static build (cmake/GraphcStatic.cmake) links libstdc++ and libgcc
 * statically. Built on glibc 2.36, they call arc4random (glibc 2.36, from
 * std::random_device) and _dl_find_object (glibc 2.35, from the exception
 * unwinder), so the binaries would refuse to start on older systems such as
 * Ubuntu 22.04. This file defines both from calls that glibc has had for
 * years (getrandom, dl_iterate_phdr); it is compiled with hidden visibility
 * and linked into each binary and shared library of that build, so the
 * definitions bind inside it and never interpose for other code.
 *
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

uint32_t arc4random(void) {
  uint32_t value;
  for (;;) {
    ssize_t got = getrandom(&value, sizeof value, 0);
    if (got == (ssize_t)sizeof value)
      return value;
    if (got < 0 && errno != EINTR)
      abort(); /* As glibc's arc4random does without a randomness source. */
  }
}

struct ObjectSearch {
  uintptr_t address;
  struct dl_find_object *result;
  int found;
};

/* dl_iterate_phdr callback: fills the search's result from the loaded object
 * whose PT_LOAD segments contain the address, and stops there. */
static int findObject(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct ObjectSearch *search = data;
  uintptr_t start = UINTPTR_MAX, end = 0;
  uintptr_t ehFrameHeader = 0;
  int contains = 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *phdr = &info->dlpi_phdr[i];
    uintptr_t begin = info->dlpi_addr + phdr->p_vaddr;
    if (phdr->p_type == PT_LOAD) {
      uintptr_t limit = begin + phdr->p_memsz;
      if (begin < start)
        start = begin;
      if (limit > end)
        end = limit;
      if (search->address >= begin && search->address < limit)
        contains = 1;
    } else if (phdr->p_type == PT_GNU_EH_FRAME) {
      ehFrameHeader = begin;
    }
  }
  if (!contains)
    return 0;
  memset(search->result, 0, sizeof *search->result);
  search->result->dlfo_map_start = (void *)start;
  search->result->dlfo_map_end = (void *)end;
  /* What the unwinder reads: the object's .eh_frame_hdr, as glibc gives it. */
  search->result->dlfo_eh_frame = (void *)ehFrameHeader;
  search->found = 1;
  return 1;
}

int _dl_find_object(void *address, struct dl_find_object *result) {
  struct ObjectSearch search = {(uintptr_t)address, result, 0};
  dl_iterate_phdr(findObject, &search);
  return search.found ? 0 : -1;
}
