//===- SourceText.h - text of generated C++ sources -------------*- C++ -*-===//
#ifndef GRAPHC_LIB_CODEGEN_SOURCETEXT_H
#define GRAPHC_LIB_CODEGEN_SOURCETEXT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <string>

namespace graphc::codegen {

/// A C/C++ string literal holding exactly the bytes of `text`: printable
/// ASCII as is, everything else (UTF-8 bytes, control characters) as
/// three-digit octal escapes, which never run into the following character.
inline std::string cppStringLiteral(llvm::StringRef text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f && c != '?') {
      // '?' is escaped too, so that no trigraph can form.
      out += static_cast<char>(c);
    } else {
      out += '\\';
      out += static_cast<char>('0' + ((c >> 6) & 7));
      out += static_cast<char>('0' + ((c >> 3) & 7));
      out += static_cast<char>('0' + (c & 7));
    }
  }
  return out + "\"";
}

/// A double as an exact C/C++ literal (hexadecimal floating point).
inline std::string cppDoubleLiteral(double value) {
  if (std::isnan(value))
    return "__builtin_nan(\"\")";
  if (std::isinf(value))
    return value > 0 ? "__builtin_inf()" : "-__builtin_inf()";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%a", value);
  return text;
}

/// `text` made safe for a `//` comment: control characters (a newline would
/// end the comment) become spaces, and a trailing backslash (which would
/// continue it) is dropped.
inline std::string commentText(llvm::StringRef text) {
  std::string out;
  for (unsigned char c : text)
    out += c < 0x20 || c == 0x7f ? ' ' : static_cast<char>(c);
  while (!out.empty() && out.back() == '\\')
    out.pop_back();
  return out;
}

} // namespace graphc::codegen

#endif
