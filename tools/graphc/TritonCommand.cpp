//===- TritonCommand.cpp - `graphc triton` --------------------------------===//
//
// Writes a Triton Inference Server model repository entry for a compiled
// model:
//
//   DIR/NAME/config.pbtxt           derived from the artifact's descriptor
//   DIR/NAME/1/graphc_model.so      the artifact (and its weights side file)
// and, for the native backend (backend "graphc", the default):
//   DIR/NAME/1/libtriton_graphc.so  the backend, which Triton looks for in
//   DIR/NAME/1/libgraphc_runtime.so.0  the version directory first, and the
//                                   runtime it links
// or, for Triton's Python backend (--backend python):
//   DIR/NAME/1/model.py             the Python backend's entry point
//   DIR/NAME/1/graphc/              graphc's Python package with the runtime
//                                   library this graphc was built with
//
// The entry is self-contained: the runtime that loads the artifact comes from
// the same build as the compiler that wrote it (the Python backend's needs
// only numpy beside it). It is written beside DIR/NAME and renamed into
// place, so a server polling the repository never sees half an entry.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/FileTree.h"
#include "lib/Support/WriteFile.h"
#include "runtime/triton/TritonConfig.h"
#include "tools/graphc/ArtifactFile.h"
#include "tools/graphc/Commands.h"
#include "tools/graphc/RuntimeCommands.h"

#include "graphc/BuildConfig.h"
#include "graphc/descriptor.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <optional>

namespace graphc::tools {

namespace {

using llvm::createStringError;
using llvm::Error;
using llvm::Expected;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

/// The file names inside the version directory.
constexpr const char *kVersion = "1";
// Not model.so: the stub imports the module `model`, and Python prefers an
// extension module of that name to model.py.
constexpr const char *kArtifactName = "graphc_model.so";
constexpr const char *kEntryPoint = "model.py";
constexpr const char *kPackage = "graphc";
constexpr const char *kRuntimeLibrary = "libgraphc_runtime.so";

constexpr const char *kBackendLibrary = "libtriton_graphc.so";

/// Triton's name for an ONNX dtype; null for one Triton has no type for.
const char *tritonDtype(int32_t dtype) {
  const triton::TritonDtype *entry = triton::tritonDtypeOf(dtype);
  return entry ? entry->config : nullptr;
}

/// How requests map onto runs: Triton's batch dim, or why there is none.
struct Batching {
  const rt::ArtifactBucketDim *dim = nullptr;
  /// Why dynamic batching is off (when dim is null).
  std::string why;
};

bool carriesOnAxisZeroOnly(const rt::ArtifactTensor &tensor,
                           const std::string &dim) {
  if (tensor.dims.empty() || tensor.dims[0] >= 0 || tensor.dimNames[0] != dim)
    return false;
  return std::count(tensor.dimNames.begin(), tensor.dimNames.end(), dim) == 1;
}

/// Triton batches along axis 0 of every input and output, concatenating
/// requests from different clients: the dim must be that axis everywhere,
/// and the model must neither mix positions along it (splittable) nor mind
/// sizes between the buckets (padded).
Batching findBatching(const rt::ArtifactView &view) {
  Batching batching;
  // A run finds one extent for all its rows: requests cannot share a run
  // (graphc_model_batch_dim says the same).
  for (const rt::ArtifactTensor &output : view.outputs)
    for (size_t d = 0; d < output.dataDependent.size(); ++d)
      if (output.dataDependent[d]) {
        batching.why = "output '" + output.name + "' has data-dependent dim " +
                       std::to_string(d) +
                       ", whose extent each run finds for the whole run";
        return batching;
      }
  std::string candidate;
  for (const rt::ArtifactBucketDim &dim : view.bucketDims) {
    auto onAxisZero = [&](const rt::ArtifactTensor &tensor) {
      return carriesOnAxisZeroOnly(tensor, dim.name);
    };
    if (view.inputs.empty() ||
        !std::all_of(view.inputs.begin(), view.inputs.end(), onAxisZero) ||
        !std::all_of(view.outputs.begin(), view.outputs.end(), onAxisZero))
      continue;
    if (dim.padSafe && dim.splittable) {
      batching.dim = &dim;
      return batching;
    }
    std::string where = dim.node.empty()
                            ? dim.reason
                            : "node '" + dim.node + "': " + dim.reason;
    if (candidate.empty())
      candidate = "dim '" + dim.name +
                  "' is axis 0 of every input and "
                  "output, but " +
                  (dim.padSafe ? "the model mixes positions along it (" +
                                     where + "), so requests cannot share a run"
                               : "it takes exact sizes only (" + where + ")");
  }
  batching.why = !candidate.empty()
                     ? candidate
                     : "no bucketed dim is axis 0 of every input and output";
  return batching;
}

/// `[ 16, -1 ]` from the dims Triton sees (-1 for a dynamic dim, a
/// data-dependent one too: the backend reports each response's shape); a
/// scalar is `[ 1 ]` reshaped to `[ ]` (Triton's way of declaring a rank-0
/// tensor).
void writeTensorConfig(llvm::raw_ostream &os, const rt::ArtifactTensor &tensor,
                       const char *dtype, bool batched) {
  os << "  {\n    name: \"" << tensor.name << "\"\n    data_type: " << dtype
     << "\n    dims: [ ";
  size_t first = batched ? 1 : 0;
  if (tensor.dims.size() == first) {
    os << "1 ]\n    reshape: { shape: [ ] }\n  }";
    return;
  }
  for (size_t d = first; d < tensor.dims.size(); ++d)
    os << (d > first ? ", " : "")
       << (tensor.dims[d] >= 0 ? tensor.dims[d] : -1);
  os << " ]\n  }";
}

struct EntryPlan {
  std::string name;
  const rt::ArtifactView *view;
  Batching batching;
  int instances;
  int64_t maxQueueDelayUs;
  std::string modelPath;
  bool native;
};

std::string configText(const EntryPlan &plan) {
  const rt::ArtifactView &view = *plan.view;
  bool cuda = view.target == GRAPHC_TARGET_CUDA;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "# Written by `graphc triton` from " << path::filename(plan.modelPath)
     << " (" << view.producer << ", " << (cuda ? "cuda" : "cpu")
     << " target).\n";
  for (const rt::ArtifactBucketDim &dim : view.bucketDims) {
    os << "# bucketed dim '" << dim.name << "': ";
    for (size_t s = 0; s < dim.sizes.size(); ++s)
      os << (s ? "," : "") << dim.sizes[s];
    os << (dim.padSafe ? " (any size up to the largest, padded)\n"
                       : " (exact sizes only)\n");
  }
  for (const rt::ArtifactTensor &output : view.outputs)
    for (size_t d = 0; d < output.dataDependent.size(); ++d)
      if (output.dataDependent[d])
        os << "# output '" << output.name << "' dim " << d
           << " is data-dependent: each response has the extent its run "
              "found\n";
  if (!plan.batching.dim)
    os << "# no dynamic batching: " << plan.batching.why << "\n";
  os << "name: \"" << plan.name << "\"\n"
     << "backend: \"" << (plan.native ? "graphc" : "python") << "\"\n";
  int64_t maxBatch = 0;
  if (plan.batching.dim)
    maxBatch = plan.batching.dim->sizes.back();
  os << "max_batch_size: " << maxBatch << "\n";
  bool batched = maxBatch > 0;
  for (auto [kind, tensors] :
       {std::pair{"input", &view.inputs}, std::pair{"output", &view.outputs}}) {
    os << kind << " [\n";
    for (size_t i = 0; i < tensors->size(); ++i) {
      const rt::ArtifactTensor &tensor = (*tensors)[i];
      writeTensorConfig(os, tensor, tritonDtype(tensor.dtype), batched);
      os << (i + 1 < tensors->size() ? ",\n" : "\n");
    }
    os << "]\n";
  }
  if (batched) {
    // Triton prefers the sizes graphc compiled, so batches run unpadded.
    os << "dynamic_batching {\n  preferred_batch_size: [ ";
    for (size_t s = 0; s < plan.batching.dim->sizes.size(); ++s)
      os << (s ? ", " : "") << plan.batching.dim->sizes[s];
    os << " ]\n  max_queue_delay_microseconds: " << plan.maxQueueDelayUs
       << "\n}\n";
  }
  os << "instance_group [\n  {\n    count: " << plan.instances
     << "\n    kind: " << (cuda ? "KIND_GPU" : "KIND_CPU") << "\n  }\n]\n";
  os << "parameters: {\n  key: \"" << triton::kArtifactParameter
     << "\"\n  value: { string_value: \""
     << kArtifactName << "\" }\n}\n";
  return text;
}

Error copyFile(llvm::StringRef from, llvm::StringRef to) {
  if (std::error_code ec = fs::copy_file(from, to))
    return createStringError("cannot copy '" + from + "' to '" + to +
                             "': " + ec.message());
  return Error::success();
}

Error writeFile(llvm::StringRef file, llvm::StringRef text) {
  return writeFileAtomically(file, [&](llvm::raw_ostream &os) {
    os << text;
    return Error::success();
  });
}

/// graphc's own files that entries carry, beside its executable as
/// installed (and mirrored by the build tree); each empty when missing.
struct RuntimeFiles {
  std::string runtimeLibrary, package, backendLibrary;
};

Expected<RuntimeFiles> findRuntimeFiles() {
  static int anchor;
  std::string executable = fs::getMainExecutable(nullptr, &anchor);
  if (executable.empty())
    return createStringError("cannot locate the graphc executable to find "
                             "its runtime library and Triton backend");
  auto inLibdir = [&](const char *name) {
    llvm::SmallString<256> file(path::parent_path(executable));
    path::append(file, GRAPHC_BIN_TO_LIBDIR, name);
    path::remove_dots(file, /*remove_dot_dot=*/true);
    return fs::exists(file) ? std::string(file) : std::string();
  };
  RuntimeFiles files;
  // The unversioned link comes with the development files; a runtime-only
  // install has the SONAME.
  for (const char *name : {GRAPHC_RUNTIME_SONAME, kRuntimeLibrary})
    if (files.runtimeLibrary.empty())
      files.runtimeLibrary = inLibdir(name);
  files.backendLibrary = inLibdir(kBackendLibrary);
  llvm::SmallString<256> package(path::parent_path(executable));
  path::append(package, GRAPHC_BIN_TO_DATADIR, "python", kPackage);
  path::remove_dots(package, /*remove_dot_dot=*/true);
  if (fs::exists(package))
    files.package = std::string(package);
  return files;
}

/// What a backend's entry needs that graphc lacks, as an error; success when
/// nothing is missing.
Error checkRuntimeFiles(const RuntimeFiles &files, bool native) {
  llvm::StringRef missing = files.runtimeLibrary.empty()
                                ? "the runtime library " GRAPHC_RUNTIME_SONAME
                            : native && files.backendLibrary.empty()
                                ? "the Triton backend libtriton_graphc.so"
                            : !native && files.package.empty()
                                ? "the Python package"
                                : "";
  if (missing.empty())
    return Error::success();
  return createStringError(
      missing + " is missing beside graphc: the entry carries it from there "
                "(install graphc with `cmake --install`, or build the "
                "graphc_runtime, triton_graphc and graphc_python targets)");
}

Error copyPackage(llvm::StringRef from, llvm::StringRef to) {
  if (std::error_code ec = fs::create_directories(to))
    return createStringError("cannot create '" + to + "': " + ec.message());
  std::error_code ec;
  for (fs::directory_iterator it(from, ec), end; it != end && !ec;
       it.increment(ec)) {
    if (path::extension(it->path()) != ".py")
      continue;
    llvm::SmallString<256> target(to);
    path::append(target, path::filename(it->path()));
    if (Error error = copyFile(it->path(), target))
      return error;
  }
  if (ec)
    return createStringError("cannot list '" + from + "': " + ec.message());
  return Error::success();
}

Error writeEntry(const EntryPlan &plan, const RuntimeFiles &runtime,
                 llvm::StringRef entry) {
  const rt::ArtifactView &view = *plan.view;
  llvm::SmallString<256> version(entry);
  path::append(version, kVersion);
  if (std::error_code ec = fs::create_directories(version))
    return createStringError("cannot create '" + version +
                             "': " + ec.message());
  auto inVersion = [&](llvm::StringRef name) {
    llvm::SmallString<256> file(version);
    path::append(file, name);
    return std::string(file);
  };
  if (Error error = copyFile(plan.modelPath, inVersion(kArtifactName)))
    return error;
  if (!view.weightsEmbedded && !view.weightsFile.empty()) {
    llvm::SmallString<256> weights(path::parent_path(plan.modelPath));
    path::append(weights, view.weightsFile);
    if (Error error = copyFile(weights, inVersion(view.weightsFile)))
      return error;
  }
  if (plan.native) {
    // The backend finds the runtime by its SONAME beside itself ($ORIGIN).
    if (Error error =
            copyFile(runtime.backendLibrary, inVersion(kBackendLibrary)))
      return error;
    if (Error error =
            copyFile(runtime.runtimeLibrary, inVersion(GRAPHC_RUNTIME_SONAME)))
      return error;
  } else {
    std::string package = inVersion(kPackage);
    if (Error error = copyPackage(runtime.package, package))
      return error;
    llvm::SmallString<256> library(package);
    path::append(library, kRuntimeLibrary);
    if (Error error = copyFile(runtime.runtimeLibrary, library))
      return error;
    if (Error error = writeFile(
            inVersion(kEntryPoint),
            "# Written by `graphc triton`: Triton's Python backend runs the "
            "graphc model\n# in this directory through the graphc package "
            "beside this file.\nfrom graphc.triton import TritonPythonModel  "
            "# noqa: F401\n"))
      return error;
  }
  llvm::SmallString<256> config(entry);
  path::append(config, "config.pbtxt");
  return writeFile(config, configText(plan));
}

Error checkName(llvm::StringRef name) {
  if (name.empty() || name.starts_with(".") || name.size() > 128 ||
      !llvm::all_of(name, [](char c) {
        return llvm::isAlnum(c) || c == '_' || c == '-' || c == '.';
      }))
    return createStringError(
        "--name '" + name +
        "': a Triton model name here is 1 to 128 "
        "letters, digits, '_', '-' or '.', not starting with '.'");
  return Error::success();
}

Error checkPlan(const EntryPlan &plan) {
  const rt::ArtifactView &view = *plan.view;
  for (auto [kind, tensors] :
       {std::pair{"input", &view.inputs}, std::pair{"output", &view.outputs}})
    for (const rt::ArtifactTensor &tensor : *tensors) {
      if (!tritonDtype(tensor.dtype))
        return createStringError(std::string(kind) + " '" + tensor.name +
                                 "' has a dtype Triton has no type for");
      // Names are quoted in config.pbtxt; Triton's own names never need
      // escapes, and a name that would is refused rather than mangled.
      if (tensor.name.empty() || llvm::any_of(tensor.name, [](char c) {
            return c == '"' || c == '\\' || !llvm::isPrint(c);
          }))
        return createStringError(std::string(kind) + " '" + tensor.name +
                                 "': Triton tensor names here are printable "
                                 "and without quotes or backslashes");
    }
  llvm::StringRef weights = view.weightsFile;
  if (!view.weightsEmbedded && !weights.empty() &&
      (path::filename(weights) != weights || weights == kArtifactName ||
       weights == kEntryPoint || weights == kPackage ||
       weights == kBackendLibrary || weights == GRAPHC_RUNTIME_SONAME))
    return createStringError("the weights side file '" + view.weightsFile +
                             "' cannot sit in the version directory under "
                             "its own name");
  return Error::success();
}

} // namespace

int runTritonCommand(const TritonOptions &options) {
  Expected<ArtifactFile> artifact = readArtifactFile(options.model);
  if (!artifact)
    return reportError(artifact.takeError());
  if (!artifact->checksumOk)
    return reportError(createStringError(
        "'" + options.model +
        "' fails its checksum (the file changed after "
        "graphc wrote it); recompile it rather than serve it"));

  EntryPlan plan;
  plan.name = options.name.empty() ? std::string(path::stem(options.model))
                                   : options.name;
  plan.view = &artifact->view;
  plan.batching = findBatching(artifact->view);
  plan.instances = options.instances;
  plan.maxQueueDelayUs = options.maxQueueDelayUs;
  plan.modelPath = options.model;
  Expected<RuntimeFiles> runtime = findRuntimeFiles();
  if (!runtime)
    return reportError(runtime.takeError());
  plan.native = options.backend.empty() ? !runtime->backendLibrary.empty()
                                        : options.backend == "native";
  if (Error error = checkRuntimeFiles(*runtime, plan.native))
    return reportError(std::move(error));
  if (Error error = checkName(plan.name))
    return reportError(std::move(error));
  if (Error error = checkPlan(plan))
    return reportError(std::move(error));

  if (std::error_code ec = fs::create_directories(options.repository))
    return reportError(createStringError("cannot create the repository '" +
                                         options.repository +
                                         "': " + ec.message()));
  llvm::SmallString<256> entry(options.repository);
  path::append(entry, plan.name);
  // What is at the entry's name, the name itself (a link is not followed):
  // --force replaces a link, never what it points to.
  fs::file_status entryStatus;
  bool replacing = !fs::status(entry, entryStatus, /*Follow=*/false);
  if (replacing && !options.force)
    return reportError(createStringError(
        "'" + entry + "' exists; pass --force to replace it"));

  // Written beside the entry, then renamed into place.
  llvm::SmallString<256> staging(options.repository);
  path::append(staging, "." + plan.name + ".graphc-" +
                            std::to_string(llvm::sys::Process::getProcessId()));
  (void)removeTree(staging);
  if (Error error = writeEntry(plan, *runtime, staging)) {
    (void)removeTree(staging);
    return reportError(std::move(error));
  }
  llvm::SmallString<256> previous(staging);
  previous += ".old";
  if (replacing) {
    if (std::error_code ec = fs::rename(entry, previous)) {
      (void)removeTree(staging);
      return reportError(createStringError("cannot move '" + entry +
                                           "' aside: " + ec.message()));
    }
  }
  if (std::error_code ec = fs::rename(staging, entry)) {
    if (replacing)
      (void)fs::rename(previous, entry);
    (void)removeTree(staging);
    return reportError(createStringError("cannot move the new entry to '" +
                                         entry + "': " + ec.message()));
  }
  if (replacing)
    (void)removeTree(previous);

  const rt::ArtifactView &view = artifact->view;
  bool cuda = view.target == GRAPHC_TARGET_CUDA;
  llvm::outs() << "graphc triton: " << (replacing ? "replaced " : "wrote ")
               << entry << " (" << (cuda ? "cuda" : "cpu") << " target, "
               << (plan.native ? "native" : "Python") << " backend)\n";
  if (plan.batching.dim) {
    llvm::outs() << "  dynamic batching on dim '" << plan.batching.dim->name
                 << "': max_batch_size " << plan.batching.dim->sizes.back()
                 << ", preferred batch sizes ";
    for (size_t s = 0; s < plan.batching.dim->sizes.size(); ++s)
      llvm::outs() << (s ? "," : "") << plan.batching.dim->sizes[s];
    llvm::outs() << ", max queue delay " << plan.maxQueueDelayUs << " us\n";
  } else {
    llvm::outs() << "  no dynamic batching: " << plan.batching.why << "\n";
  }
  llvm::outs() << "  " << plan.instances << " instance"
               << (plan.instances == 1 ? "" : "s") << " ("
               << (cuda ? "KIND_GPU, on every GPU" : "KIND_CPU") << ")\n"
               << "serve it: tritonserver --model-repository "
               << options.repository << "\n";
  return 0;
}

void addTritonCommand(CLI::App &app, int &exitCode) {
  auto options = std::make_shared<TritonOptions>();
  CLI::App *command = app.add_subcommand(
      "triton", "Write a Triton Inference Server model repository entry for a "
                "compiled model .so");
  command->add_option("model", options->model, "The model .so")->required();
  command
      ->add_option("--repository", options->repository,
                   "The model repository (created when missing)")
      ->required();
  command->add_option("--name", options->name,
                      "The model's name in the repository (default: the .so's "
                      "file name without extension)");
  command
      ->add_option("--instances", options->instances,
                   "Model instances (sessions), on each GPU for cuda "
                   "models")
      ->check(CLI::Range(1, 64));
  command
      ->add_option("--max-queue-delay-us", options->maxQueueDelayUs,
                   "How long Triton may hold a request to form a larger "
                   "batch, in microseconds")
      ->check(CLI::Range(int64_t(0), int64_t(10'000'000)));
  command
      ->add_option("--backend", options->backend,
                   "native: Triton runs the model through graphc's backend "
                   "library (libtriton_graphc.so, in the entry); python: "
                   "through Triton's Python backend and graphc's Python "
                   "package (default: native when graphc was built with "
                   "it)")
      ->check(CLI::IsMember({"native", "python"}));
  command->add_flag("--force", options->force,
                    "Replace an existing entry of the same name");
  command->callback(
      [options, &exitCode] { exitCode = runTritonCommand(*options); });
}

} // namespace graphc::tools
