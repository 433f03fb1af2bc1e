//===- NVRTCCompiler.cpp - CUDA C++ to cubin/PTX with NVRTC ---------------===//

#include "lib/Codegen/CUDA/NVRTCCompiler.h"
#include "graphc/BuildConfig.h"
#include "lib/Support/CompileCache.h"
#include "lib/Support/WriteFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <dlfcn.h>
#include <nvrtc.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

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
  // Compilations run on several threads: one writes the file at a time.
  static std::mutex writing;
  std::lock_guard<std::mutex> lock(writing);
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
  if (Error error = closeStream(os, path)) {
    (void)sys::fs::remove(path);
    return ("<not kept: " + toString(std::move(error)) + ">");
  }
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

/// What identifies the NVRTC that compiles: its version, and the file and
/// modification time of the library loaded, so that a patched toolkit of
/// the same version does not reuse the old one's images (the headers graphc
/// includes ship with that library).
const std::string &nvrtcIdentity() {
  static const std::string identity = [] {
    std::string text = "nvrtc " + nvrtcVersionString();
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&nvrtcVersion), &info) &&
        info.dli_fname) {
      sys::fs::file_status status;
      text += std::string(" ") + info.dli_fname;
      if (!sys::fs::status(info.dli_fname, status))
        text += " " + std::to_string(status.getSize()) + " " +
                std::to_string(sys::toTimeT(status.getLastModificationTime()));
    }
    text += " headers " GRAPHC_CUDA_INCLUDE_DIR;
    return text;
  }();
  return identity;
}

/// Runs NVRTC with `options` (which name the architecture).
Expected<CudaImage> runNvrtc(StringRef source, ArrayRef<std::string> options,
                             int sm, bool ptx, StringRef keepDir) {
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

/// Compiles `source` for `sm` and returns the cubin, or PTX when `ptx`.
Expected<CudaImage> compileOne(StringRef source, int sm, bool ptx,
                               StringRef keepDir, CompileCache *cache) {
  std::string arch =
      (ptx ? "--gpu-architecture=compute_" : "--gpu-architecture=sm_") +
      std::to_string(sm);
  SmallVector<std::string> options = commonOptions();
  options.push_back(arch);
  // The key hashes the whole module: only worth it with a cache.
  CacheKey key("nvrtc");
  if (cache)
    key.add("graphc", GRAPHC_VERSION_STRING)
        .add("compiler", nvrtcIdentity())
        .add("options", llvm::join(options, " "))
        .add("source", source);
  Expected<std::vector<char>> data =
      cachedCompile(cache, key, [&]() -> Expected<std::vector<char>> {
        Expected<CudaImage> image = runNvrtc(source, options, sm, ptx, keepDir);
        if (!image)
          return image.takeError();
        return std::move(image->data);
      });
  if (!data)
    return data.takeError();
  return CudaImage{sm, ptx ? ImageFormat::ptx : ImageFormat::cubin,
                   std::move(*data)};
}

} // namespace

Expected<std::vector<CudaImage>> compileCudaModule(StringRef source,
                                                   ArrayRef<int> sms,
                                                   StringRef keepDir,
                                                   CompileCache *cache) {
  return compileCudaUnits({source.str()}, sms, keepDir, cache);
}

Expected<std::vector<CudaImage>> compileCudaUnits(ArrayRef<std::string> units,
                                                  ArrayRef<int> sms,
                                                  StringRef keepDir,
                                                  CompileCache *cache) {
  if (sms.empty())
    return createStringError(inconvertibleErrorCode(),
                             "no target sm given for the cuda module");
  SmallVector<int> sorted(sms);
  llvm::sort(sorted);
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());

  // Per unit, one cubin per SM, then PTX for the newest: independent NVRTC
  // programs, compiled on as many threads as the machine has (each is
  // deterministic, and the images keep this order whatever finishes first).
  struct Job {
    int unit;
    int sm;
    bool ptx;
    std::optional<Expected<CudaImage>> result;
  };
  std::vector<Job> jobs;
  for (int unit = 0; unit < static_cast<int>(units.size()); ++unit) {
    for (int sm : sorted)
      jobs.push_back({unit, sm, false, std::nullopt});
    jobs.push_back({unit, sorted.back(), true, std::nullopt});
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t j = next++; j < jobs.size(); j = next++)
      jobs[j].result.emplace(compileOne(units[jobs[j].unit], jobs[j].sm,
                                        jobs[j].ptx, keepDir, cache));
  };
  unsigned threads = std::max(
      1u, std::min<unsigned>(std::thread::hardware_concurrency(), jobs.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (std::thread &thread : pool)
    thread.join();

  std::vector<CudaImage> images;
  Error firstError = Error::success();
  for (Job &job : jobs) {
    if (!*job.result) {
      Error error = job.result->takeError();
      if (firstError)
        consumeError(std::move(error));
      else
        firstError = std::move(error);
      continue;
    }
    images.push_back(std::move(**job.result));
    images.back().unit = job.unit;
  }
  if (firstError)
    return std::move(firstError);
  return images;
}

std::string nvrtcVersionString() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

} // namespace graphc::codegen
