//===- NpyTest.cpp - the .npy reader and writer
//----------------------------===//
//
// The reader refuses every header numpy would read differently (repeated or
// unknown keys, trailing bytes), every descr it cannot represent, and every
// size that does not match the data; big-endian data is byte-swapped.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/Npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using namespace graphc;

namespace {

/// A version 1.0 .npy file with `header` (padded as numpy pads it) and
/// `data` after it.
std::string npyFile(const std::string &header, const std::string &data) {
  std::string padded = header;
  size_t total = (10 + padded.size() + 1 + 63) / 64 * 64;
  padded.append(total - 10 - padded.size() - 1, ' ');
  padded += '\n';
  std::string file = "\x93NUMPY";
  file += '\x01';
  file += '\x00';
  file += static_cast<char>(padded.size() & 0xff);
  file += static_cast<char>(padded.size() >> 8);
  return file + padded + data;
}

std::string floats(std::initializer_list<float> values) {
  std::string bytes(values.size() * 4, '\0');
  size_t at = 0;
  for (float value : values) {
    std::memcpy(&bytes[at], &value, 4);
    at += 4;
  }
  return bytes;
}

/// The error text of a parse that must fail.
std::string parseError(const std::string &contents) {
  llvm::Expected<HostTensor> tensor = parseNpy(contents, "x.npy");
  if (tensor) {
    ADD_FAILURE() << "parsed, expected an error";
    return "";
  }
  std::string message = llvm::toString(tensor.takeError());
  EXPECT_EQ(message.rfind("'x.npy': ", 0), 0u) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  return message;
}

TEST(NpyTest, ReadsNumpyHeaders) {
  llvm::Expected<HostTensor> tensor = parseNpy(
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1), }",
              floats({1.5f, -2.0f})),
      "x.npy");
  ASSERT_TRUE(static_cast<bool>(tensor)) << llvm::toString(tensor.takeError());
  EXPECT_EQ(tensor->dtype, 1);
  EXPECT_EQ(tensor->dims, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(std::string(tensor->data.begin(), tensor->data.end()),
            floats({1.5f, -2.0f}));
}

TEST(NpyTest, ReadsScalarsOneDimAndOtherKeyOrders) {
  llvm::Expected<HostTensor> scalar = parseNpy(
      npyFile("{\"shape\": (), \"fortran_order\": False, \"descr\": \"<f4\"}",
              floats({3.0f})),
      "x.npy");
  ASSERT_TRUE(static_cast<bool>(scalar)) << llvm::toString(scalar.takeError());
  EXPECT_TRUE(scalar->dims.empty());
  llvm::Expected<HostTensor> vector = parseNpy(
      npyFile("{'descr': '|u1', 'fortran_order': False, 'shape': (3,)}", "abc"),
      "x.npy");
  ASSERT_TRUE(static_cast<bool>(vector)) << llvm::toString(vector.takeError());
  EXPECT_EQ(vector->dims, (std::vector<int64_t>{3}));
  EXPECT_EQ(vector->dtype, 2);
}

TEST(NpyTest, RoundTripsThroughTheWriter) {
  HostTensor tensor;
  tensor.name = "t";
  tensor.dtype = 7;
  tensor.dims = {2, 0, 3};
  std::string text;
  llvm::raw_string_ostream os(text);
  ASSERT_FALSE(static_cast<bool>(writeNpy(os, tensor)));
  llvm::Expected<HostTensor> back = parseNpy(os.str(), "t.npy");
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->dims, tensor.dims);
  EXPECT_EQ(back->dtype, 7);
}

TEST(NpyTest, RefusesRepeatedKeys) {
  // numpy keeps the last 'shape' (2,); the first would read (1,).
  EXPECT_NE(parseError(npyFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (1,), 'shape': (2,), }",
                               floats({1.0f, 2.0f})))
                .find("repeated key 'shape'"),
            std::string::npos);
  EXPECT_NE(parseError(npyFile("{'descr': '<f4', 'descr': '<i4', "
                               "'fortran_order': False, 'shape': (1,)}",
                               floats({1.0f})))
                .find("repeated key 'descr'"),
            std::string::npos);
}

TEST(NpyTest, RefusesUnknownAndMissingKeys) {
  EXPECT_NE(parseError(npyFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (1,), 'extra': 1}",
                               floats({1.0f})))
                .find("unknown key 'extra'"),
            std::string::npos);
  EXPECT_NE(
      parseError(npyFile("{'descr': '<f4', 'shape': (1,)}", floats({1.0f})))
          .find("lacks the key 'fortran_order'"),
      std::string::npos);
}

TEST(NpyTest, RefusesTrailingBytesAndMalformedValues) {
  EXPECT_NE(parseError(npyFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (1,)} x",
                               floats({1.0f})))
                .find("trailing bytes"),
            std::string::npos);
  EXPECT_NE(parseError(npyFile("{'descr': '<f4', 'fortran_order': maybe, "
                               "'shape': (1,)}",
                               floats({1.0f})))
                .find("not True or False"),
            std::string::npos);
  // "(1)" is the integer 1 in Python, not a tuple.
  EXPECT_NE(parseError(npyFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (1)}",
                               floats({1.0f})))
                .find("not a tuple"),
            std::string::npos);
  EXPECT_NE(parseError(npyFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (1.5,)}",
                               floats({1.0f})))
                .find("malformed .npy header"),
            std::string::npos);
  // A key name inside a value must not be mistaken for the key.
  EXPECT_NE(parseError(npyFile("{'descr': \"'shape': (1,)\", "
                               "'fortran_order': False}",
                               floats({1.0f})))
                .find("lacks the key 'shape'"),
            std::string::npos);
}

TEST(NpyTest, RefusesDescrsItCannotRepresent) {
  for (const char *descr : {"<c8", "<U3", "|O", "<M8[s]", ">V2", "<f16", "f4"})
    EXPECT_NE(parseError(npyFile(std::string("{'descr': '") + descr +
                                     "', 'fortran_order': False, "
                                     "'shape': (1,)}",
                                 floats({1.0f})))
                  .find("unsupported dtype"),
              std::string::npos)
        << descr;
  // A structured dtype's descr is a list, not a string.
  EXPECT_NE(parseError(npyFile("{'descr': [('a', '<f4')], "
                               "'fortran_order': False, 'shape': (1,)}",
                               floats({1.0f})))
                .find("malformed .npy header"),
            std::string::npos);
}

TEST(NpyTest, SwapsBigEndianData) {
  std::string bigEndian = {'\x3f', '\xc0', '\x00', '\x00',  // 1.5f
                           '\xc0', '\x00', '\x00', '\x00'}; // -2.0f
  llvm::Expected<HostTensor> tensor = parseNpy(
      npyFile("{'descr': '>f4', 'fortran_order': False, 'shape': (2,)}",
              bigEndian),
      "x.npy");
  ASSERT_TRUE(static_cast<bool>(tensor)) << llvm::toString(tensor.takeError());
  EXPECT_EQ(tensor->dtype, 1);
  EXPECT_EQ(std::string(tensor->data.begin(), tensor->data.end()),
            floats({1.5f, -2.0f}));
  // Single bytes have no order to swap.
  llvm::Expected<HostTensor> bytes = parseNpy(
      npyFile("{'descr': '>i1', 'fortran_order': False, 'shape': (2,)}",
              "\x01\xff"),
      "x.npy");
  ASSERT_TRUE(static_cast<bool>(bytes)) << llvm::toString(bytes.takeError());
  EXPECT_EQ(std::string(bytes->data.begin(), bytes->data.end()), "\x01\xff");
}

TEST(NpyTest, RefusesFortranOrder) {
  EXPECT_NE(parseError(npyFile("{'descr': '<f4', 'fortran_order': True, "
                               "'shape': (1, 2)}",
                               floats({1.0f, 2.0f})))
                .find("Fortran-order"),
            std::string::npos);
}

TEST(NpyTest, RefusesNegativeAndOverflowingShapes) {
  EXPECT_NE(parseError(npyFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (-1,)}",
                               floats({1.0f})))
                .find("negative dim"),
            std::string::npos);
  EXPECT_NE(parseError(npyFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (99999999999999999999,)}",
                               ""))
                .find("too large"),
            std::string::npos);
  // Each dim fits, the byte size does not: no wrapped size may match the
  // (empty) data.
  EXPECT_NE(parseError(npyFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (4611686018427387904, 4)}",
                               ""))
                .find("too large"),
            std::string::npos);
  EXPECT_NE(parseError(npyFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (4611686018427387904,)}",
                               ""))
                .find("too large"),
            std::string::npos);
}

TEST(NpyTest, RefusesTruncatedFilesAndData) {
  std::string good =
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
              floats({1.0f, 2.0f}));
  EXPECT_NE(parseError(good.substr(0, good.size() - 1))
                .find("expected 8 bytes of data for the shape, found 7"),
            std::string::npos);
  EXPECT_NE(parseError(good + "x").find("found 9"), std::string::npos);
  EXPECT_NE(parseError(good.substr(0, 40)).find("truncated .npy header"),
            std::string::npos);
  EXPECT_NE(parseError(good.substr(0, 8)).find("bad magic"), std::string::npos);
  std::string badVersion = good;
  badVersion[7] = '\x01';
  EXPECT_NE(parseError(badVersion).find("unsupported .npy version 1.1"),
            std::string::npos);
}

TEST(NpyTest, RefusesBoolBytesOtherThanZeroOrOne) {
  EXPECT_NE(parseError(npyFile("{'descr': '|b1', 'fortran_order': False, "
                               "'shape': (2,)}",
                               std::string("\x01\x02", 2)))
                .find("bool element 1 is 2"),
            std::string::npos);
}

TEST(NpyTest, ReadFileNamesTheFile) {
  llvm::Expected<HostTensor> missing =
      readNpyFile("/nonexistent/graphc-npy-test.npy");
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(llvm::toString(missing.takeError())
                .find("'/nonexistent/graphc-npy-test.npy'"),
            std::string::npos);
}

} // namespace
