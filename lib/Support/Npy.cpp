//===- Npy.cpp - reading and writing NumPy .npy files ---------------------===//
#include "lib/Support/Npy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace graphc;
using llvm::StringRef;

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

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

const DtypeDescr *findDescr(StringRef descr) {
  // '=' (native) and '|' (not applicable) mean little endian here, and
  // single-byte types may carry any of '<', '|' or '='.
  if (descr.size() >= 2 &&
      (descr[0] == '=' || descr[0] == '|' || descr[0] == '<')) {
    StringRef body = descr.drop_front();
    for (const DtypeDescr &entry : kDescrs) {
      if (entry.descr.drop_front() == body)
        return &entry;
    }
  }
  return nullptr;
}

/// Reads the value of `key` in the header's Python dict literal: the text
/// after "'key':" up to the next top-level comma or closing brace.
std::optional<StringRef> findValue(StringRef header, StringRef key) {
  std::string quotedKey = ("'" + key + "'").str();
  size_t at = header.find(quotedKey);
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(at + quotedKey.size()).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t close = rest.find(')');
    return close == StringRef::npos ? std::nullopt
                                    : std::optional(rest.take_front(close + 1));
  }
  return rest.take_until([](char c) { return c == ',' || c == '}'; }).rtrim();
}

llvm::Error parseShape(StringRef text, StringRef name,
                       std::vector<int64_t> &dims) {
  if (!text.consume_front("(") || !text.consume_back(")"))
    return makeError(name, "malformed shape '" + text + "'");
  llvm::SmallVector<StringRef> parts;
  text.split(parts, ',');
  for (StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      continue; // the trailing comma of "(3,)"
    int64_t dim;
    if (part.getAsInteger(10, dim) || dim < 0)
      return makeError(name, "malformed dim '" + part + "' in the shape");
    dims.push_back(dim);
  }
  return llvm::Error::success();
}
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
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = llvm::support::endian::read16le(contents.data() + 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (contents.size() < 12)
      return makeError(name, "truncated .npy header");
    headerLength = llvm::support::endian::read32le(contents.data() + 8);
    headerStart = 12;
  } else {
    return makeError(name, "unsupported .npy version " + llvm::Twine(major));
  }
  if (contents.size() - headerStart < headerLength)
    return makeError(name, "truncated .npy header");
  StringRef header = contents.substr(headerStart, headerLength);

  std::optional<StringRef> descr = findValue(header, "descr");
  std::optional<StringRef> order = findValue(header, "fortran_order");
  std::optional<StringRef> shape = findValue(header, "shape");
  if (!descr || !order || !shape)
    return makeError(name, "malformed .npy header '" + header.trim() + "'");
  StringRef descrText = descr->trim("'\"");
  const DtypeDescr *entry = findDescr(descrText);
  if (!entry) {
    if (descrText.starts_with(">"))
      return makeError(name, "big-endian dtype '" + descrText +
                                 "' is not supported (save it little endian)");
    return makeError(name, "unsupported dtype '" + descrText + "'");
  }
  if (*order != "False")
    return makeError(name, "Fortran-order arrays are not supported (save a "
                           "C-contiguous array)");

  HostTensor tensor;
  tensor.name = name.str();
  tensor.dtype = entry->dtype;
  if (llvm::Error error = parseShape(*shape, name, tensor.dims))
    return std::move(error);
  uint64_t count = 1;
  for (int64_t dim : tensor.dims) {
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(dim), &count))
      return makeError(name, "shape too large");
  }
  uint64_t bytes;
  if (__builtin_mul_overflow(count, entry->size, &bytes))
    return makeError(name, "shape too large");
  StringRef payload = contents.drop_front(headerStart + headerLength);
  if (payload.size() != bytes)
    return makeError(name, "expected " + llvm::Twine(bytes) +
                               " bytes of data for the shape, found " +
                               llvm::Twine(payload.size()));
  tensor.data.assign(payload.begin(), payload.end());
  return tensor;
}

llvm::Expected<HostTensor> graphc::readNpyFile(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read '" + path +
                                       "': " + buffer.getError().message());
  llvm::Expected<HostTensor> tensor = parseNpy((*buffer)->getBuffer(), path);
  if (tensor)
    tensor->name = llvm::sys::path::stem(path).str();
  return tensor;
}

llvm::Error graphc::writeNpy(llvm::raw_ostream &os, const HostTensor &tensor) {
  StringRef descr = npyDescrForDtype(tensor.dtype);
  if (descr.empty())
    return makeError(tensor.name, "cannot write dtype " +
                                      llvm::Twine(tensor.dtype) + " to .npy");
  uint64_t count = 1;
  for (int64_t dim : tensor.dims)
    count *= static_cast<uint64_t>(dim);
  if (tensor.data.size() != count * findDescr(descr)->size)
    return makeError(tensor.name,
                     "has " + llvm::Twine(tensor.data.size()) +
                         " bytes of data, its shape needs " +
                         llvm::Twine(count * findDescr(descr)->size));
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
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError(ec, "cannot write '" + path +
                                           "': " + ec.message());
  if (llvm::Error error = writeNpy(os, tensor))
    return error;
  os.close();
  if (os.has_error())
    return llvm::createStringError(
        os.error(), "cannot write '" + path + "': " + os.error().message());
  return llvm::Error::success();
}
