//===- CudaEmulation.cpp - generated CUDA compiled for the host -----------===//

#include "lib/Codegen/CUDA/CudaEmulation.h"
#include "lib/Codegen/HostCompiler.h"
#include "lib/Codegen/ScalarExpr.h"
#include "lib/Support/CompileCache.h"
#include "lib/Support/WriteFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace graphc::codegen {
namespace {
#include "EmbeddedEmulationHeader.inc"

Error writeText(StringRef path, StringRef text) {
  std::error_code ec;
  raw_fd_ostream os(path, ec);
  if (ec)
    return createStringError(ec, "cannot write %s", path.str().c_str());
  os << text;
  return closeStream(os, path);
}
} // namespace

StringRef cudaEmulationHeader() {
  return StringRef(kEmulationHeader, sizeof(kEmulationHeader) - 1);
}

Expected<CudaImage> compileCudaEmulationModule(StringRef source,
                                               ArrayRef<std::string> kernels,
                                               StringRef keepDir,
                                               CompileCache *cache) {
  Expected<std::string> compiler = findHostCompiler();
  if (!compiler)
    return compiler.takeError();
  SmallString<256> given(keepDir);
  if (!given.empty())
    sys::path::append(given, "emulation");
  Expected<BuildDirectory> workDir =
      BuildDirectory::create(given, "graphc-emulation");
  if (!workDir)
    return workDir.takeError();

  // The module text is NVRTC's, unchanged; the kernel table the emulating
  // driver reads follows it.
  std::string module = source.str();
  module += "\nextern \"C\" __attribute__((visibility(\"default\")))\n"
            "const graphc_emu_kernel graphc_emu_kernels[] = {\n";
  for (const std::string &kernel : kernels)
    module += "  GRAPHC_EMU_KERNEL(" + kernel + "),\n";
  module += "  {nullptr, nullptr, 0, nullptr}};\n";

  // The module includes cuda_fp16.h and cuda_bf16.h; the emulation header,
  // force-included, provides what they would.
  static const char kStandIn[] =
      "// graphc CUDA emulation: graphc_cuda_emulation.h provides this.\n";
  if (Error e = writeText(workDir->file("graphc_cuda_emulation.h"),
                          cudaEmulationHeader()))
    return std::move(e);
  if (Error e =
          writeText(workDir->file("graphc_cuda_scalar.h"), cudaScalarHeader()))
    return std::move(e);
  for (const char *name : {"cuda_fp16.h", "cuda_bf16.h"})
    if (Error e = writeText(workDir->file(name), kStandIn))
      return std::move(e);
  if (Error e = writeText(workDir->file("module.cu.cpp"), module))
    return std::move(e);

  // -O1: the tests compile hundreds of modules, each run on small tensors.
  // Floating-point contraction stays off, so emulated results round like
  // the reference host kernels.
  std::vector<std::string> args = {
      "-std=c++17", "-O1", "-fPIC", "-shared", "-fvisibility=hidden",
      "-ffp-contract=off", "-fno-exceptions", "-fno-rtti", "-fno-ident", "-w",
      "-I.",
      "-include", "graphc_cuda_emulation.h", "module.cu.cpp",
      "-o", "module.so"};
  CacheKey key("cuda-emulation");
  if (cache && keyHostCompilerRun(key, *compiler, args, workDir->path()))
    key.add("header", cudaEmulationHeader())
        .add("scalar-header", cudaScalarHeader())
        .add("stand-in", kStandIn)
        .add("module", module);
  else
    cache = nullptr;
  Expected<std::vector<char>> data =
      cachedCompile(cache, key, [&]() -> Expected<std::vector<char>> {
        if (Error e = runHostCompiler(*compiler, args, workDir->path())) {
          workDir->keep();
          return std::move(e);
        }
        std::string built = workDir->file("module.so");
        auto bytes = MemoryBuffer::getFile(built, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
        if (!bytes)
          return createStringError(bytes.getError(), "cannot read %s",
                                   built.c_str());
        return std::vector<char>((*bytes)->getBufferStart(),
                                 (*bytes)->getBufferEnd());
      });
  if (!data)
    return data.takeError();
  return CudaImage{0, ImageFormat::hostEmulation, std::move(*data)};
}

} // namespace graphc::codegen
