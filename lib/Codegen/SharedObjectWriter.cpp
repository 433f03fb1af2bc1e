//===- SharedObjectWriter.cpp - the model .so -----------------------------===//
//
// Packages what code generation made (ModelSource: model.cpp and the
// weights; the device images) as the model .so.
// The .so is built from one generated C++ file, the descriptor as static
// tables and the cpu kernels, and one assembly file that pulls the device
// images in with `.incbin` (byte-exact). The C++ is compiled to an object on
// its own; the compile cache keeps the object and the linked file, so an
// unchanged model runs neither the compiler nor the linker. The weights
// never pass through the host toolchain: they are appended to the linked
// file (or written to the side file), and the descriptor's weights_offset
// and checksum are written in afterwards. The host compiler
// runs in a scratch directory with relative paths only, so the bytes do not
// depend on where or when graphc ran.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/SharedObjectWriter.h"

#include "lib/Codegen/ModelSource.h"

#include "lib/Artifact/ArtifactReader.h"
#include "lib/Codegen/HostCompiler.h"
#include "lib/Codegen/ScalarExpr.h"
#include "lib/Codegen/SignalCleanup.h"
#include "lib/Support/CompileCache.h"
#include "lib/Support/LaneHash.h"
#include "lib/Support/WriteFile.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <optional>

#include "lib/Codegen/EmbeddedHeaders.inc"

using namespace mlir;
using namespace llvm;
namespace graphc::codegen {
namespace {

/// blobs.s: each device image in its own read-only section, 256-byte
/// aligned and NUL-terminated (PTX images are loaded as C strings), at the
/// symbol model.cpp declares.
std::string blobAssembly(size_t images) {
  std::string text;
  raw_string_ostream os(text);
  for (size_t i = 0; i < images; ++i) {
    std::string symbol = deviceImageSymbol(i);
    os << ".section .rodata." << symbol << ",\"a\",@progbits\n"
       << ".p2align 8\n.globl " << symbol << "\n.hidden " << symbol << "\n"
       << symbol << ":\n.incbin \"" << deviceImageFile(i) << "\"\n.byte 0\n";
  }
  // No executable stack: without this note the linker would assume one.
  os << ".section .note.GNU-stack,\"\",@progbits\n";
  return text;
}

/// Writes `bytes`, then `tail` if any, to `path`; the error names `name`
/// (`path` when empty).
Error writeFile(StringRef path, ArrayRef<char> bytes,
                const WeightsImage *tail = nullptr, StringRef name = "") {
  if (name.empty())
    name = path;
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return createStringError(ec, "cannot write '%s': %s", name.str().c_str(),
                             ec.message().c_str());
  os.write(bytes.data(), bytes.size());
  if (tail)
    tail->forEachRange([&](ArrayRef<char> range) {
      if (!os.has_error())
        os.write(range.data(), range.size());
    });
  return closeStream(os, name);
}

/// The bytes of the file at `path` (what a host compiler run wrote).
Expected<std::vector<char>> readWholeFile(StringRef path) {
  auto bytes = MemoryBuffer::getFile(path, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false);
  if (!bytes)
    return createStringError(bytes.getError(), "cannot read %s: %s",
                             path.str().c_str(),
                             bytes.getError().message().c_str());
  return std::vector<char>((*bytes)->getBufferStart(),
                           (*bytes)->getBufferEnd());
}

/// Whether `path` is a regular file (not a link) that holds exactly `head`
/// then `tail`, compared as it is read (the first difference ends it); if
/// so, its modification time is set to now, and false is returned when
/// that fails.
bool keepIfIdentical(StringRef path, ArrayRef<char> head,
                     const WeightsImage *tail) {
  sys::fs::file_status status;
  if (sys::fs::status(path, status, /*Follow=*/false) ||
      status.type() != sys::fs::file_type::regular_file ||
      status.getSize() != head.size() + (tail ? tail->size() : 0))
    return false;
  Expected<sys::fs::file_t> file = sys::fs::openNativeFileForRead(path);
  if (!file) {
    consumeError(file.takeError());
    return false;
  }
  auto close = make_scope_exit([&] { sys::fs::closeFile(*file); });
  std::vector<char> buffer(size_t(1) << 20);
  bool same = true;
  auto compare = [&](ArrayRef<char> expected) {
    while (same && !expected.empty()) {
      size_t want = std::min(expected.size(), buffer.size());
      Expected<size_t> got = sys::fs::readNativeFile(
          *file, MutableArrayRef<char>(buffer.data(), want));
      if (!got)
        consumeError(got.takeError());
      same = got && *got > 0 &&
             std::memcmp(buffer.data(), expected.data(), *got) == 0;
      if (same)
        expected = expected.drop_front(*got);
    }
  };
  compare(head);
  if (tail)
    tail->forEachRange(compare);
  return same && !sys::fs::setLastAccessAndModificationTime(
                     *file, std::chrono::system_clock::now());
}

/// Writes `path` through `write` into a temporary file beside it, then
/// renames it into place.
Error replaceFile(StringRef path, llvm::function_ref<Error(StringRef)> write) {
  SmallString<256> temp;
  if (std::error_code ec =
          sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%", temp))
    return createStringError(ec, "cannot write '%s': %s", path.str().c_str(),
                             ec.message().c_str());
  SignalCleanup removeOnSignal(temp);
  if (Error e = write(temp)) {
    sys::fs::remove(temp);
    return e;
  }
  if (std::error_code ec = sys::fs::rename(temp, path)) {
    sys::fs::remove(temp);
    return createStringError(ec, "cannot write '%s': %s", path.str().c_str(),
                             ec.message().c_str());
  }
  return Error::success();
}

/// Puts `head` then `tail` at `path`. A regular file there that holds
/// exactly those bytes is kept and its modification time set to now:
/// recompiling an unchanged model rewrites nothing (hundreds of MiB for a
/// large one), and build tools still see the output as new. Anything else
/// is replaced by rename, never rewritten in place: a process that has the
/// old model loaded (or its weights mapped) keeps a consistent copy.
Error putFile(StringRef path, ArrayRef<char> head, const WeightsImage *tail) {
  if (keepIfIdentical(path, head, tail))
    return Error::success();
  return replaceFile(
      path, [&](StringRef temp) { return writeFile(temp, head, tail, path); });
}

} // namespace

Error writeSharedObject(const ModelSource &model,
                        const SharedObjectOptions &options) {
  const std::string *source = &model.cpp;
  const WeightsImage &weights = model.weights;

  Expected<std::string> compiler = findHostCompiler();
  if (!compiler)
    return compiler.takeError();
  std::string hostKernels;
  if (!options.cudaTarget) {
    Expected<std::string> archive = findHostKernelsArchive();
    if (!archive)
      return archive.takeError();
    hostKernels = std::move(*archive);
  }

  // A temporary build directory goes away on every path but a compiler
  // failure, whose message points into it.
  Expected<BuildDirectory> workDir =
      BuildDirectory::create(options.workDir, "graphc-build");
  if (!workDir)
    return workDir.takeError();
  if (Error e = writeFile(
          workDir->file("descriptor.h"),
          ArrayRef<char>(kDescriptorHeader, sizeof(kDescriptorHeader) - 1)))
    return e;
  if (Error e = writeFile(
          workDir->file("HostKernels.h"),
          ArrayRef<char>(kHostKernelsHeader, sizeof(kHostKernelsHeader) - 1)))
    return e;
  if (Error e = writeFile(
          workDir->file("graphc_cuda_scalar.h"),
          ArrayRef<char>(cudaScalarHeader().data(), cudaScalarHeader().size())))
    return e;
  if (Error e = writeFile(workDir->file("model.cpp"),
                          ArrayRef<char>(source->data(), source->size())))
    return e;
  // The object of model.cpp: from the cache when this exact source was
  // compiled before by this compiler.
  std::vector<std::string> compileArgs = {
      // No floating-point contraction: generated loops round like the host
      // kernels and the CUDA emulator on every host.
      "-std=c++17", "-O2", "-ffp-contract=off", "-fPIC", "-fvisibility=hidden",
      "-ffunction-sections", "-fdata-sections", "-fno-exceptions",
      "-fno-rtti", "-fno-ident", "-I.", "-c", "model.cpp", "-o", "model.o"};
  CompileCache *cache = options.cache;
  CacheKey key("host-object");
  if (cache && keyHostCompilerRun(key, *compiler, compileArgs, workDir->path()))
    key.add("descriptor.h", StringRef(kDescriptorHeader))
        .add("HostKernels.h", StringRef(kHostKernelsHeader))
        .add("graphc_cuda_scalar.h", cudaScalarHeader())
        .add("model.cpp", *source);
  else
    cache = nullptr;
  bool compiled = false;
  Expected<std::vector<char>> object =
      cachedCompile(cache, key, [&]() -> Expected<std::vector<char>> {
        compiled = true;
        if (Error e = runHostCompiler(*compiler, compileArgs, workDir->path()))
          return std::move(e);
        return readWholeFile(workDir->file("model.o"));
      });
  if (!object) {
    workDir->keep();
    return object.takeError();
  }

  // The linked file, before its weights: from the cache when these exact
  // inputs were linked before by this compiler. A kept build directory
  // (--keep) gets every input and the linked file either way.
  std::string assembly = blobAssembly(options.images.size());
  std::vector<std::string> linkArgs = {
      "-shared", "-fPIC", "-Wl,--gc-sections", "-static-libstdc++",
      "-static-libgcc", "model.o", "blobs.s", "-o", "model.so"};
  if (!options.cudaTarget)
    linkArgs.insert(linkArgs.end() - 2, hostKernels);
  CompileCache *linkCache = options.workDir.empty() ? options.cache : nullptr;
  CacheKey linkKey("host-link");
  if (linkCache &&
      keyHostCompilerRun(linkKey, *compiler, linkArgs, workDir->path())) {
    linkKey.addBytes("model.o", *object).add("blobs.s", assembly);
    for (auto [i, image] : enumerate(options.images))
      linkKey.addBytes(deviceImageFile(i), image.data);
    if (!options.cudaTarget) {
      auto archive = MemoryBuffer::getFile(hostKernels, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
      if (archive)
        linkKey.add("libHostKernels.a", (*archive)->getBuffer());
      else
        linkCache = nullptr;
    }
  } else {
    linkCache = nullptr;
  }
  Expected<std::vector<char>> linked =
      cachedCompile(linkCache, linkKey, [&]() -> Expected<std::vector<char>> {
        if (!compiled)
          if (Error e = writeFile(workDir->file("model.o"), *object))
            return std::move(e);
        for (auto [i, image] : enumerate(options.images))
          if (Error e =
                  writeFile(workDir->file(deviceImageFile(i)),
                            image.data))
            return std::move(e);
        if (Error e =
                writeFile(workDir->file("blobs.s"),
                          ArrayRef<char>(assembly.data(), assembly.size())))
          return std::move(e);
        if (Error e = runHostCompiler(*compiler, linkArgs, workDir->path())) {
          workDir->keep();
          return std::move(e);
        }
        return readWholeFile(workDir->file("model.so"));
      });
  if (!linked)
    return linked.takeError();
  std::vector<char> bytes = std::move(*linked);

  // Only now is anything at the output path touched (see putFile).
  if (options.weightsSideFile)
    if (Error e = putFile(options.outputPath + ".weights", {}, &weights))
      return e;
  bool append = !options.weightsSideFile && !weights.empty();
  LaneHasher weightsHasher;
  weights.hash(weightsHasher);
  std::string problem = rt::writeWeightsChecksum(bytes, weightsHasher.finish());
  if (problem.empty())
    problem = append ? rt::sealWithAppendedWeights(
                           bytes, weights.size(),
                           [&](LaneHasher &hasher) { weights.hash(hasher); })
                     : rt::sealArtifact(bytes);
  if (!problem.empty())
    return createStringError(inconvertibleErrorCode(),
                             "the linked model is not readable as an "
                             "artifact: %s",
                             problem.c_str());
  return putFile(options.outputPath, bytes, append ? &weights : nullptr);
}

} // namespace graphc::codegen
