//===- OutputPaths.h - what graphc compile may overwrite --------*- C++ -*-===//
//
// graphc compile replaces an existing file only when it is a regular file
// holding a graphc artifact (or its weights side file), or with --force; it
// never replaces the input model or anything that is not a regular file, and
// --keep takes only a new or empty directory.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_PIPELINE_OUTPUTPATHS_H
#define GRAPHC_LIB_PIPELINE_OUTPUTPATHS_H

#include "lib/Pipeline/Pipeline.h"

#include "llvm/Support/Error.h"

namespace graphc {

/// Checks options.outputPath and, with weightsSideFile, its side file.
llvm::Error checkOutputFiles(const CompileOptions &options);

/// Checks that options.keepDir, when given, is new or an empty directory.
llvm::Error checkKeepDir(const CompileOptions &options);

} // namespace graphc

#endif
