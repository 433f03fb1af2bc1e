//===- CudaBatchCompile.cpp - NVRTC-compile batches of emitted kernels ----===//
//
// Test driver for the conformance suite's cuda compile-only check. Compiling
// every node-test model through NVRTC one by one costs minutes per model
// set; instead the suite collects the kernels `graphc compile --emit source
// --target cuda` prints, removes duplicates and hands them here in a few
// files. Each file is compiled as one module (the shared preamble followed by
// the file's kernels) with the compiler's own NVRTC driver, so the options
// are exactly those `graphc compile --target cuda` uses.
//
//   graphc-cuda-batch-compile --print-preamble
//   graphc-cuda-batch-compile --sm 80,90 kernels0.cu kernels1.cu ...
//
// Prints "ok FILE: N images, M bytes" or "error FILE: MESSAGE" per file;
// exits 1 when any file fails.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/CudaEmitter.h"
#include "lib/Codegen/CUDA/NVRTCCompiler.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace llvm;

static cl::opt<bool> printPreamble(
    "print-preamble",
    cl::desc("print the preamble every emitted cuda module starts with"));
static cl::opt<std::string> smList("sm", cl::desc("comma-separated SMs"),
                                   cl::init("80,90"));
static cl::list<std::string> inputFiles(cl::Positional,
                                        cl::desc("<kernel files>"));

/// Parses "80,90" into SM numbers; reports and fails on anything else.
static bool parseSms(StringRef text, SmallVectorImpl<int> &sms) {
  SmallVector<StringRef> parts;
  text.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    int sm;
    if (part.trim().getAsInteger(10, sm)) {
      errs() << "error: invalid sm '" << part << "' in --sm\n";
      return false;
    }
    sms.push_back(sm);
  }
  if (sms.empty())
    errs() << "error: --sm names no sm\n";
  return !sms.empty();
}

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "NVRTC-compiles files of graphc cuda kernels\n");
  if (printPreamble) {
    outs() << graphc::codegen::cudaModulePreamble();
    return 0;
  }
  SmallVector<int> sms;
  if (!parseSms(smList, sms))
    return 2;

  bool allOk = true;
  for (const std::string &path : inputFiles) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> file = MemoryBuffer::getFile(path);
    if (!file) {
      outs() << "error " << path << ": cannot read: "
             << file.getError().message() << "\n";
      allOk = false;
      continue;
    }
    std::string source = graphc::codegen::cudaModulePreamble().str();
    source += (*file)->getBuffer();
    Expected<std::vector<graphc::codegen::CudaImage>> images =
        graphc::codegen::compileCudaModule(source, sms, /*keepDir=*/"");
    if (images) {
      size_t bytes = 0;
      for (const graphc::codegen::CudaImage &image : *images)
        bytes += image.data.size();
      outs() << "ok " << path << ": " << images->size() << " images, "
             << bytes << " bytes\n";
    } else {
      // One line per file keeps the output parseable; the log follows on
      // continuation lines that start with a space.
      std::string message = toString(images.takeError());
      SmallVector<StringRef> lines;
      StringRef(message).split(lines, '\n');
      outs() << "error " << path << ": " << lines.front() << "\n";
      for (StringRef line : ArrayRef(lines).drop_front())
        outs() << " " << line << "\n";
      allOk = false;
    }
    outs().flush();
  }
  return allOk ? 0 : 1;
}
