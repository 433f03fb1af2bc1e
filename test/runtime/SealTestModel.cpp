//===- SealTestModel.cpp - checksum a hand-written test model -------------===//
//
// The hand-written models are linked with a zero checksum field, like the
// compiler's; this writes the checksum in, as the compiler does after
// linking, and with --append-f32 first appends float32 weights, as the
// compiler appends a model's weights.
// Usage: seal-test-model MODEL.so [--append-f32 V1,V2,...]
//
//===----------------------------------------------------------------------===//

#include "lib/Artifact/ArtifactReader.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  bool append = argc == 4 && std::strcmp(argv[2], "--append-f32") == 0;
  if (argc != 2 && !append) {
    std::fprintf(stderr,
                 "usage: seal-test-model MODEL.so [--append-f32 V1,V2,...]\n");
    return 1;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  if (!in.eof() && in.fail()) {
    std::fprintf(stderr, "seal-test-model: cannot read %s\n", argv[1]);
    return 1;
  }
  std::vector<char> weights;
  if (append) {
    std::stringstream values(argv[3]);
    for (std::string value; std::getline(values, value, ',');) {
      float f = std::strtof(value.c_str(), nullptr);
      const char *raw = reinterpret_cast<const char *>(&f);
      weights.insert(weights.end(), raw, raw + sizeof(f));
    }
  }
  std::string problem =
      append ? graphc::rt::sealWithAppendedWeights(
                   bytes, weights.size(),
                   [&](graphc::LaneHasher &hasher) {
                     hasher.update(weights.data(), weights.size());
                   })
             : graphc::rt::sealArtifact(bytes);
  if (!problem.empty()) {
    std::fprintf(stderr, "seal-test-model: %s: %s\n", argv[1],
                 problem.c_str());
    return 1;
  }
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.write(weights.data(), static_cast<std::streamsize>(weights.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "seal-test-model: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
