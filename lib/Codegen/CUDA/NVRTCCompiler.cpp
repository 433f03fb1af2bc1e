//===- NVRTCCompiler.cpp - CUDA C++ to cubin/PTX with NVRTC ---------------===//

#include "lib/Codegen/CUDA/NVRTCCompiler.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <nvrtc.h>

#include <string>

using namespace llvm;

namespace graphc::codegen {
namespace {

/// The name NVRTC gives the source in diagnostics. Fixed so that the output
/// does not depend on where a model is compiled.
constexpr const char *kProgramName = "graphc_module.cu";

/// Options shared by every compilation. No -lineinfo or -G: debug sections
/// would make the images larger and tie them to source positions.
SmallVector<std::string> commonOptions() {
  return {"--std=c++17", "--include-path=" GRAPHC_CUDA_INCLUDE_DIR,
          "--fmad=true", "--extra-device-vectorization"};
}

/// Writes `source` to a file named after its content under `keepDir` (the
/// system temporary directory when empty) and returns the path, or a note
/// saying why it could not be kept.
std::string keepSource(StringRef source, StringRef keepDir) {
  SmallString<256> path;
  if (keepDir.empty())
    sys::path::system_temp_directory(/*ErasedOnReboot=*/true, path);
  else
    path = keepDir;
  if (std::error_code ec = sys::fs::create_directories(path))
    return ("<not kept: cannot create '" + path + "': " + ec.message() + ">")
        .str();
  sys::path::append(
      path, "graphc-cuda-" +
                utohexstr(xxh3_64bits(source), /*LowerCase=*/true) + ".cu");
  std::error_code ec;
  raw_fd_ostream os(path, ec);
  if (ec)
    return ("<not kept: cannot write '" + path + "': " + ec.message() + ">")
        .str();
  os << source;
  return std::string(path);
}

/// One NVRTC program, destroyed on scope exit.
class Program {
public:
  explicit Program(StringRef source) {
    std::string text = source.str();
    status = nvrtcCreateProgram(&program, text.c_str(), kProgramName, 0,
                                nullptr, nullptr);
  }
  ~Program() {
    if (program)
      nvrtcDestroyProgram(&program);
  }
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  nvrtcProgram program = nullptr;
  nvrtcResult status;

  std::string log() const {
    size_t size = 0;
    if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1)
      return "";
    std::string text(size, '\0');
    if (nvrtcGetProgramLog(program, text.data()) != NVRTC_SUCCESS)
      return "";
    text.resize(size - 1);
    return text;
  }
};

/// Compiles `source` for `sm` and returns the cubin, or PTX when `ptx`.
Expected<CudaImage> compileOne(StringRef source, int sm, bool ptx,
                               StringRef keepDir) {
  std::string arch =
      (ptx ? "--gpu-architecture=compute_" : "--gpu-architecture=sm_") +
      std::to_string(sm);
  SmallVector<std::string> options = commonOptions();
  options.push_back(arch);
  SmallVector<const char *> argv = llvm::map_to_vector(
      options, [](const std::string &s) { return s.c_str(); });

  Program program(source);
  if (program.status != NVRTC_SUCCESS)
    return createStringError(inconvertibleErrorCode(),
                             Twine("nvrtc cannot create a program: ") +
                                 nvrtcGetErrorString(program.status));
  nvrtcResult result =
      nvrtcCompileProgram(program.program, argv.size(), argv.data());
  if (result != NVRTC_SUCCESS) {
    std::string path = keepSource(source, keepDir);
    std::string message;
    raw_string_ostream os(message);
    os << "nvrtc failed to compile the cuda module for "
       << (ptx ? "compute_" : "sm_") << sm << " ("
       << nvrtcGetErrorString(result) << ")\n"
       << program.log() << "source kept at " << path << "\n"
       << "reproduce with: nvcc " << (ptx ? "-ptx" : "-cubin")
       << " -arch=" << (ptx ? "compute_" : "sm_") << sm
       << " -std=c++17 -I" GRAPHC_CUDA_INCLUDE_DIR
          " --fmad=true --extra-device-vectorization "
       << path << " -o /dev/null";
    return createStringError(inconvertibleErrorCode(), message);
  }

  CudaImage image{sm, ptx ? ImageFormat::ptx : ImageFormat::cubin, {}};
  size_t size = 0;
  nvrtcResult sizeResult = ptx ? nvrtcGetPTXSize(program.program, &size)
                               : nvrtcGetCUBINSize(program.program, &size);
  if (sizeResult == NVRTC_SUCCESS) {
    image.data.resize(size);
    sizeResult = ptx ? nvrtcGetPTX(program.program, image.data.data())
                     : nvrtcGetCUBIN(program.program, image.data.data());
  }
  if (sizeResult != NVRTC_SUCCESS || image.data.empty())
    return createStringError(inconvertibleErrorCode(),
                             Twine("nvrtc produced no image for sm_") +
                                 Twine(sm) + ": " +
                                 nvrtcGetErrorString(sizeResult));
  return image;
}

} // namespace

Expected<std::vector<CudaImage>>
compileCudaModule(StringRef source, ArrayRef<int> sms, StringRef keepDir) {
  if (sms.empty())
    return createStringError(inconvertibleErrorCode(),
                             "no target sm given for the cuda module");
  SmallVector<int> sorted(sms);
  llvm::sort(sorted);
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());

  std::vector<CudaImage> images;
  for (int sm : sorted) {
    Expected<CudaImage> image = compileOne(source, sm, /*ptx=*/false, keepDir);
    if (!image)
      return image.takeError();
    images.push_back(std::move(*image));
  }
  Expected<CudaImage> ptx =
      compileOne(source, sorted.back(), /*ptx=*/true, keepDir);
  if (!ptx)
    return ptx.takeError();
  images.push_back(std::move(*ptx));
  return images;
}

std::string nvrtcVersionString() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

} // namespace graphc::codegen
