//===- SealTestModel.cpp - checksum a hand-written test model -------------===//
//
// The hand-written models are linked with a zero checksum field, like the
// compiler's; this writes the checksum in, as the compiler does after
// linking. Usage: seal-test-model MODEL.so
//
//===----------------------------------------------------------------------===//

#include "runtime/src/ArtifactReader.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: seal-test-model MODEL.so\n");
    return 1;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  if (!in.eof() && in.fail()) {
    std::fprintf(stderr, "seal-test-model: cannot read %s\n", argv[1]);
    return 1;
  }
  std::string problem = graphc::rt::sealArtifact(bytes);
  if (!problem.empty()) {
    std::fprintf(stderr, "seal-test-model: %s: %s\n", argv[1],
                 problem.c_str());
    return 1;
  }
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "seal-test-model: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
