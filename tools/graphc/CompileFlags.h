//===- CompileFlags.h - flags that say what to compile ----------*- C++ -*-===//
//
// `graphc compile` and `graphc tune` compile the same way: the flags that
// shape the compiled model (shapes, buckets, fusion, libraries, the cache)
// are registered and read by one piece of code.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_TOOLS_GRAPHC_COMPILEFLAGS_H
#define GRAPHC_TOOLS_GRAPHC_COMPILEFLAGS_H

#include "lib/Pipeline/Pipeline.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace CLI {
class App;
} // namespace CLI

namespace graphc::tools {

struct CompileFlags {
  std::string input;
  std::string output;
  std::string target = "cuda";
  bool targetGiven = false;
  std::string arch = "sm_80,sm_90";
  bool cudaEmulation = false;
  bool noFusion = false;
  bool noCpuLoops = false;
  std::string libraries = "auto";
  std::string convLayout = "auto";
  std::string precision = "fp32";
  std::string ioPrecision = "fp32";
  std::vector<std::string> keepFp32;
  std::vector<std::string> calibrationInputs;
  std::vector<std::string> shapes;
  std::vector<std::string> dims;
  std::vector<std::string> constInputs;
  int64_t maxLoopIterations = int64_t(1) << 20;
  std::vector<std::string> buckets;
  std::vector<std::string> maxDims;
  std::vector<std::string> padValues;
  std::vector<std::string> assumePadSafe;
  std::string emit;
  bool weightsFile = false;
  std::string keep;
  bool force = false;
  std::string maxTensorBytes;
  bool noCache = false;
  std::string cacheDir;
  std::string cacheMaxBytes;
  std::string tuningDb;
  bool autotune = false;
  std::vector<std::string> printIrAfter;
  bool printIrAfterFailure = false;
  bool timing = false;
  std::string crashReproducer;
  std::string progress = "auto";
  bool quiet = false;
};

/// Registers the flags both commands take: --shape, --dim, --const-input,
/// --buckets,
/// --max-dim, --pad-value, --assume-pad-safe, --no-fusion, --libraries,
/// --conv-layout,
/// --precision, --io-precision, --keep-fp32, --calibration-input,
/// --cuda-emulation,
/// --max-tensor-bytes and the cache's.
void addModelFlags(CLI::App &cmd, CompileFlags &flags);

/// The options `flags` ask for; errors name the flag.
llvm::Expected<CompileOptions> compileOptionsFromFlags(const CompileFlags &flags);

/// "auto", "none", or a list such as "cublaslt,cudnn" (--libraries).
llvm::Expected<Libraries> parseLibraries(llvm::StringRef list);

/// --const-input NAME=FILE (.npy or .pb) or NAME=V1,V2,...: the file is
/// read, the values are checked to be numbers (their type is the input's).
llvm::Expected<ConstantInput> parseConstantInput(llvm::StringRef spec);

/// "sm_80,sm_90" -> {80, 90}.
llvm::Expected<std::vector<int>> parseArchList(llvm::StringRef list);

} // namespace graphc::tools

#endif
