//===- Format.h - human-readable quantities ---------------------*- C++ -*-===//
#ifndef GRAPHC_LIB_SUPPORT_FORMAT_H
#define GRAPHC_LIB_SUPPORT_FORMAT_H

#include <cstdint>
#include <string>

namespace graphc {

/// "812 B", "37.5 KiB", "1.2 GiB".
std::string formatBytes(uint64_t bytes);

} // namespace graphc

#endif
