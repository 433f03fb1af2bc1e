//===- Format.cpp - human-readable quantities -----------------------------===//

#include "lib/Support/Format.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <iterator>

namespace graphc {

std::string formatBytes(uint64_t bytes) {
  static constexpr const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (unit == 0)
    os << bytes << " B";
  else
    os << llvm::format("%.1f ", value) << units[unit];
  return text;
}

} // namespace graphc
