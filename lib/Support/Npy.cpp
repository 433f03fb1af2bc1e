//===- Npy.cpp - reading and writing NumPy .npy files ---------------------===//
#include "lib/Support/Npy.h"
#include "lib/Artifact/OnnxDtype.h"
#include "lib/Support/CheckedArith.h"
#include "lib/Support/ReadFile.h"
#include "lib/Support/WriteFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace graphc;
using llvm::StringRef;

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr int32_t kBoolDtype = 9;

struct DtypeDescr {
  int32_t dtype; // ONNX TensorProto.DataType
  size_t size;
  StringRef descr;
};

// The descr written for each dtype; single-byte types use '|'.
constexpr DtypeDescr kDescrs[] = {
    {1, 4, "<f4"},  {2, 1, "|u1"},  {3, 1, "|i1"},  {4, 2, "<u2"},
    {5, 2, "<i2"},  {6, 4, "<i4"},  {7, 8, "<i8"},  {9, 1, "|b1"},
    {10, 2, "<f2"}, {11, 8, "<f8"}, {12, 4, "<u4"}, {13, 8, "<u8"},
    {16, 2, "<V2"},
};

llvm::Error makeError(StringRef name, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + name + "': " + message);
}

/// The dtype a descr names and whether its elements are stored big endian.
/// '=' (native) means little endian here; single-byte types have no byte
/// order, so any of '<', '>', '|' or '=' names them.
const DtypeDescr *findDescr(StringRef descr, bool &bigEndian) {
  if (descr.size() < 2)
    return nullptr;
  char order = descr[0];
  StringRef body = descr.drop_front();
  for (const DtypeDescr &entry : kDescrs) {
    if (entry.descr.drop_front() != body)
      continue;
    // '<V2' is bfloat16: raw two-byte records, so '>' cannot say how to
    // swap them.
    bool isVoid = body.starts_with("V");
    if (order == '<' || order == '=' || order == '|' ||
        (order == '>' && !isVoid)) {
      bigEndian = order == '>' && entry.size > 1;
      return &entry;
    }
    return nullptr;
  }
  return nullptr;
}

/// A strict reader of the header's Python dict literal, which must hold
/// exactly the keys 'descr' (a string), 'fortran_order' (True or False) and
/// 'shape' (a tuple of non-negative integers), each once, and nothing after
/// the closing brace but the padding spaces and newline.
class HeaderParser {
public:
  HeaderParser(StringRef text, StringRef name) : rest(text), name(name) {}

  llvm::Error parse(std::string &descr, bool &fortranOrder,
                    std::vector<int64_t> &dims) {
    skipSpace();
    if (!rest.consume_front("{"))
      return malformed("does not start with '{'");
    bool seenDescr = false, seenOrder = false, seenShape = false;
    while (true) {
      skipSpace();
      if (rest.consume_front("}"))
        break;
      std::string key;
      if (llvm::Error error = parseString(key, "a key"))
        return error;
      skipSpace();
      if (!rest.consume_front(":"))
        return malformed("has no ':' after key '" + key + "'");
      skipSpace();
      bool *seen = key == "descr"           ? &seenDescr
                   : key == "fortran_order" ? &seenOrder
                   : key == "shape"         ? &seenShape
                                            : nullptr;
      if (!seen)
        return makeError(name, "unknown key '" + key + "' in the .npy header");
      // numpy keeps the last of repeated keys; refusing them means no
      // reader of the file can see a different array than graphc does.
      if (*seen)
        return makeError(name, "repeated key '" + key + "' in the .npy header");
      *seen = true;
      llvm::Error error = key == "descr"   ? parseString(descr, "the descr")
                          : key == "shape" ? parseShape(dims)
                                           : parseBool(fortranOrder);
      if (error)
        return error;
      skipSpace();
      if (rest.consume_front(","))
        continue;
      skipSpace();
      if (!rest.consume_front("}"))
        return malformed("has no ',' or '}' after the value of '" + key + "'");
      break;
    }
    if (!rest.ltrim(" \t\r\n").empty())
      return malformed("has trailing bytes after the closing '}'");
    if (!seenDescr || !seenOrder || !seenShape)
      return malformed("lacks the key '" +
                       llvm::StringRef(!seenDescr   ? "descr"
                                       : !seenOrder ? "fortran_order"
                                                    : "shape") +
                       "'");
    return llvm::Error::success();
  }

private:
  void skipSpace() { rest = rest.ltrim(" \t"); }

  llvm::Error malformed(const llvm::Twine &what) {
    return makeError(name, "malformed .npy header: it " + what);
  }

  /// A quoted string without escapes (no descr or key needs one).
  llvm::Error parseString(std::string &value, StringRef what) {
    if (rest.empty() || (rest[0] != '\'' && rest[0] != '"'))
      return malformed("has no quoted string for " + what);
    char quote = rest[0];
    size_t close = rest.find(quote, 1);
    StringRef body =
        rest.slice(1, close == StringRef::npos ? rest.size() : close);
    if (close == StringRef::npos || body.contains('\\') || body.contains('\n'))
      return malformed("has an unterminated or escaped string for " + what);
    value = body.str();
    rest = rest.drop_front(close + 1);
    return llvm::Error::success();
  }

  llvm::Error parseBool(bool &value) {
    if (rest.consume_front("True"))
      value = true;
    else if (rest.consume_front("False"))
      value = false;
    else
      return malformed("has a 'fortran_order' that is not True or False");
    return llvm::Error::success();
  }

  /// "()", "(3,)", "(2, 3)" or "(2, 3,)".
  llvm::Error parseShape(std::vector<int64_t> &dims) {
    if (!rest.consume_front("("))
      return malformed("has a 'shape' that is not a tuple");
    while (true) {
      skipSpace();
      if (rest.consume_front(")"))
        break;
      bool negative = rest.consume_front("-");
      StringRef digits = rest.take_while(llvm::isDigit);
      rest = rest.drop_front(digits.size());
      if (digits.empty() || (digits.size() > 1 && digits[0] == '0'))
        return malformed("has a 'shape' entry that is not an integer");
      int64_t dim;
      if (negative)
        return makeError(name, "negative dim -" + digits + " in the shape");
      if (digits.getAsInteger(10, dim))
        return makeError(name, "dim " + digits + " in the shape is too large");
      dims.push_back(dim);
      skipSpace();
      // One element needs its comma: "(3)" is the integer 3, not a tuple.
      if (rest.consume_front(","))
        continue;
      if (dims.size() == 1 || !rest.consume_front(")"))
        return malformed("has a 'shape' that is not a tuple of integers");
      break;
    }
    return llvm::Error::success();
  }

  StringRef rest;
  StringRef name;
};
} // namespace

StringRef graphc::npyDescrForDtype(int32_t dtype) {
  for (const DtypeDescr &entry : kDescrs) {
    if (entry.dtype == dtype)
      return entry.descr;
  }
  return "";
}

llvm::Expected<HostTensor> graphc::parseNpy(StringRef contents,
                                            StringRef name) {
  if (contents.size() < kMagicSize + 4 ||
      !contents.starts_with(StringRef(kMagic, kMagicSize)))
    return makeError(name, "not a .npy file (bad magic)");
  uint8_t major = contents[kMagicSize];
  uint8_t minor = contents[kMagicSize + 1];
  size_t headerLength, headerStart;
  if (minor != 0 || major < 1 || major > 3)
    return makeError(name, "unsupported .npy version " +
                               llvm::Twine(static_cast<unsigned>(major)) + "." +
                               llvm::Twine(static_cast<unsigned>(minor)));
  if (major == 1) {
    headerLength = llvm::support::endian::read16le(contents.data() + 8);
    headerStart = 10;
  } else {
    if (contents.size() < 12)
      return makeError(name, "truncated .npy header");
    headerLength = llvm::support::endian::read32le(contents.data() + 8);
    headerStart = 12;
  }
  if (contents.size() - headerStart < headerLength)
    return makeError(name, "truncated .npy header: it claims " +
                               llvm::Twine(headerLength) +
                               " bytes, the file has " +
                               llvm::Twine(contents.size() - headerStart) +
                               " after the preamble");
  StringRef header = contents.substr(headerStart, headerLength);

  std::string descr;
  bool fortranOrder = false;
  HostTensor tensor;
  if (llvm::Error error =
          HeaderParser(header, name).parse(descr, fortranOrder, tensor.dims))
    return std::move(error);
  bool bigEndian = false;
  const DtypeDescr *entry = findDescr(descr, bigEndian);
  if (!entry)
    return makeError(name, "unsupported dtype '" + descr + "'");
  if (fortranOrder)
    return makeError(name, "Fortran-order arrays are not supported (save a "
                           "C-contiguous array)");
  std::optional<int64_t> bytes = checkedByteSize(tensor.dims, entry->size);
  if (!bytes)
    return makeError(name, "shape is too large: its byte size overflows");
  StringRef payload = contents.drop_front(headerStart + headerLength);
  if (payload.size() != static_cast<uint64_t>(*bytes))
    return makeError(name, "expected " + llvm::Twine(*bytes) +
                               " bytes of data for the shape, found " +
                               llvm::Twine(payload.size()));
  tensor.name = name.str();
  tensor.dtype = entry->dtype;
  tensor.data.assign(payload.begin(), payload.end());
  if (bigEndian)
    for (size_t at = 0; at < tensor.data.size(); at += entry->size)
      std::reverse(tensor.data.begin() + at,
                   tensor.data.begin() + at + entry->size);
  // Kernels read bool bytes as 0 or 1; numpy never writes anything else.
  if (entry->dtype == kBoolDtype)
    for (auto [i, byte] : llvm::enumerate(tensor.data))
      if (byte != 0 && byte != 1)
        return makeError(name, "bool element " + llvm::Twine(i) + " is " +
                                   llvm::Twine(static_cast<int>(
                                       static_cast<unsigned char>(byte))) +
                                   ", not 0 or 1");
  return tensor;
}

llvm::Expected<HostTensor> graphc::readNpyFile(StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readUserFile(path);
  if (!buffer)
    return buffer.takeError();
  llvm::Expected<HostTensor> tensor = parseNpy((*buffer)->getBuffer(), path);
  if (tensor)
    tensor->name = llvm::sys::path::stem(path).str();
  return tensor;
}

llvm::Error graphc::writeNpy(llvm::raw_ostream &os, const HostTensor &tensor) {
  StringRef descr = npyDescrForDtype(tensor.dtype);
  if (descr.empty()) {
    // The 8-bit floats have no numpy type, hence no .npy descr.
    const char *name = rt::dtypeName(tensor.dtype);
    return makeError(tensor.name, "cannot write dtype " +
                                      (name ? llvm::Twine(name)
                                            : llvm::Twine(tensor.dtype)) +
                                      " to .npy (numpy has no such type)");
  }
  bool bigEndian = false;
  std::optional<int64_t> bytes =
      checkedByteSize(tensor.dims, findDescr(descr, bigEndian)->size);
  if (!bytes)
    return makeError(tensor.name, "has a negative or overflowing shape");
  if (tensor.data.size() != static_cast<uint64_t>(*bytes))
    return makeError(tensor.name, "has " + llvm::Twine(tensor.data.size()) +
                                      " bytes of data, its shape needs " +
                                      llvm::Twine(*bytes));
  std::string header =
      ("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (").str();
  for (int64_t dim : tensor.dims)
    header += std::to_string(dim) + (tensor.dims.size() == 1 ? "," : ", ");
  if (tensor.dims.size() > 1)
    header.resize(header.size() - 2);
  header += "), }";
  // Pad with spaces and a newline so the data starts 64-byte aligned.
  size_t prefix = kMagicSize + 2 + 2;
  bool version2 = prefix + header.size() + 1 > 65535;
  if (version2)
    prefix += 2;
  size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';

  os.write(kMagic, kMagicSize);
  os << static_cast<char>(version2 ? 2 : 1) << '\0';
  // The header length, little endian: two bytes in version 1, four in 2.
  for (size_t i = 0, e = version2 ? 4 : 2; i < e; ++i)
    os << static_cast<char>((header.size() >> (8 * i)) & 0xff);
  os << header;
  os.write(tensor.data.data(), tensor.data.size());
  return llvm::Error::success();
}

llvm::Error graphc::writeNpyFile(StringRef path, const HostTensor &tensor) {
  return writeFileAtomically(
      path, [&](llvm::raw_ostream &os) { return writeNpy(os, tensor); });
}
