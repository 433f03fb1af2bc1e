//===- ArtifactFile.h - a model .so read from disk as data -------*- C++ -*-===//
//
// `graphc inspect` and `graphc triton` read a model's descriptor from its
// file without loading it (lib/Artifact/ArtifactReader): nothing in the file
// runs, and cuda models need no GPU. Both report unreadable, foreign and
// malformed files the same way.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_TOOLS_GRAPHC_ARTIFACTFILE_H
#define GRAPHC_TOOLS_GRAPHC_ARTIFACTFILE_H

#include "lib/Artifact/ArtifactReader.h"

#include "llvm/Support/Error.h"

#include <string>

namespace graphc::tools {

struct ArtifactFile {
  rt::ArtifactView view;
  /// Whether the whole-file checksum matches the descriptor's.
  bool checksumOk = false;
};

/// Reads and checks the descriptor of the model .so at `path`; an error
/// names the file and says what is wrong with it.
llvm::Expected<ArtifactFile> readArtifactFile(const std::string &path);

} // namespace graphc::tools

#endif
