//===- Model.cpp - loading a model .so and introspecting it ---------------===//
#include "runtime/src/Model.h"

#include "lib/Artifact/ArtifactReader.h"
#include "lib/Support/LaneHash.h"
#include "lib/Support/RegularFile.h"
#include "runtime/src/CudaModel.h"
#include "runtime/src/DescriptorCheck.h"
#include "runtime/src/ElfCheck.h"
#include "runtime/src/ReferenceConv.h"
#include "runtime/src/ReferenceGemm.h"
#include "runtime/src/Status.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

using namespace graphc::rt;
using graphc::OpenFailure;
using graphc::openRegularFile;

std::string graphc::rt::describeKernel(const graphc_kernel_desc &kernel) {
  std::string text = "kernel '" + std::string(kernel.name) + "'";
  if (kernel.onnx_nodes && *kernel.onnx_nodes)
    text += std::string(" (ONNX nodes ") + kernel.onnx_nodes + ")";
  return text;
}

std::string graphc::rt::describeValueSite(const graphc_kernel_desc &kernel) {
  std::string nodes = kernel.onnx_nodes ? kernel.onnx_nodes : "";
  if (nodes.empty())
    return "kernel '" + std::string(kernel.name) + "'";
  return (nodes.find(',') == std::string::npos ? "node '"
                                               : "one of the nodes '") +
         nodes + "' (kernel '" + kernel.name + "')";
}

graphc_model::~graphc_model() {
  // Device state references the descriptor's images: release it first.
  cuda.reset();
  if (weightsMapping)
    munmap(weightsMapping, weightsMappingSize);
  if (library)
    dlclose(library);
  if (libraryFd >= 0)
    close(libraryFd);
}

int32_t graphc::rt::firstDataDependentOutput(const graphc_model_desc &desc,
                                             int32_t &dim) {
  for (int32_t o = 0; o < desc.num_outputs; ++o) {
    const graphc_tensor_desc &output = desc.outputs[o];
    for (int32_t d = 0; output.data_dependent && d < output.rank; ++d)
      if (output.data_dependent[d]) {
        dim = d;
        return o;
      }
  }
  dim = -1;
  return -1;
}

namespace {
/// Closes a file descriptor on scope exit.
struct FileCloser {
  int fd;
  ~FileCloser() {
    if (fd >= 0)
      close(fd);
  }
};

std::string hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%016" PRIx64, value);
  return buffer;
}

std::string directoryOf(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".")
                                    : path.substr(0, slash == 0 ? 1 : slash);
}

/// Reads the artifact's descriptor from the file and, unless
/// `verifyChecksum` is false, compares the whole file's checksum with it,
/// before anything in the file can run. Sets `storedChecksum` to the
/// checksum the descriptor holds.
graphc_status verifyArtifactFile(int fd, uint64_t fileSize,
                                 const std::string &path, bool verifyChecksum,
                                 uint64_t &storedChecksum) {
  void *mapping = mmap(nullptr, fileSize, PROT_READ, MAP_PRIVATE, fd, 0);
  if (mapping == MAP_FAILED)
    return makeStatus(GRAPHC_RESOURCE_EXHAUSTED,
                      "cannot map model '" + path +
                          "': " + std::strerror(errno));
  ArtifactRead read = readArtifact(mapping, fileSize);
  // A malformed descriptor is most likely a corrupted file: say so when the
  // checksum can tell.
  bool checksumKnown =
      verifyChecksum && (read.error == ArtifactError::none ||
                         (read.error == ArtifactError::malformed &&
                          read.view.checksumOffset != 0));
  uint64_t actual = 0;
  if (checksumKnown)
    actual =
        computeArtifactChecksum(mapping, fileSize, read.view.checksumOffset);
  munmap(mapping, fileSize);
  storedChecksum = read.view.checksum;
  if (checksumKnown && actual != read.view.checksum)
    return makeStatus(GRAPHC_DATA_LOSS,
                      "checksum mismatch in model '" + path + "': expected " +
                          hex(read.view.checksum) + ", computed " +
                          hex(actual) + " (the file is corrupted)");
  switch (read.error) {
  case ArtifactError::none:
    break;
  case ArtifactError::notAnArtifact:
    return makeStatus(GRAPHC_NOT_FOUND,
                      "'" + path + "' is not a graphc model: " + read.message);
  case ArtifactError::abiMismatch:
    return makeStatus(GRAPHC_FAILED_PRECONDITION,
                      "model '" + path + "' has " + read.message +
                          " (compile it with a graphc matching this runtime)");
  case ArtifactError::malformed:
    return makeStatus(GRAPHC_DATA_LOSS,
                      "malformed artifact '" + path + "': " + read.message);
  }
  return nullptr;
}

/// dlopen's the library at `name` and reads its descriptor. Sets `same` to
/// whether that library is the file that was checked: its descriptor holds
/// the file's checksum. glibc hands back an already loaded library whose name
/// matches instead of loading the file, and a model that cannot be unloaded
/// (GNU unique symbols of the static C++ library make cpu models NODELETE)
/// stays loaded under its /proc/self/fd/N name after dlclose.
graphc_status loadLibraryAs(graphc_model &model, const std::string &name,
                            uint64_t checksum, bool &same) {
  const std::string &path = model.path;
  model.library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!model.library) {
    const char *reason = dlerror();
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "cannot load model '" + path +
                          "': " + (reason ? reason : "dlopen failed"));
  }
  auto descriptorFn = reinterpret_cast<graphc_model_descriptor_fn>(
      dlsym(model.library, GRAPHC_DESCRIPTOR_SYMBOL));
  if (!descriptorFn)
    return makeStatus(GRAPHC_NOT_FOUND,
                      "'" + path +
                          "' is not a graphc model: it does not "
                          "export " GRAPHC_DESCRIPTOR_SYMBOL);
  model.desc = descriptorFn();
  if (!model.desc)
    return makeStatus(GRAPHC_DATA_LOSS,
                      "'" + path + "' returned no descriptor");
  // The file's own descriptor passed the ABI check before dlopen; another
  // library's may not have.
  same = model.desc->abi_version == GRAPHC_ABI_VERSION &&
         model.desc->checksum == checksum;
  if (same)
    return nullptr;
  model.desc = nullptr;
  dlclose(model.library);
  model.library = nullptr;
  return nullptr;
}

graphc_status openLibrary(graphc_model &model) {
  const std::string &path = model.path;
  OpenFailure failure;
  struct stat info;
  int fd = openRegularFile(path.c_str(), failure, &info);
  if (fd < 0 && !failure.error)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "model '" + path + "' is not a regular file");
  if (fd < 0)
    return makeStatus(
        failure.error == ENOENT ? GRAPHC_NOT_FOUND : GRAPHC_INVALID_ARGUMENT,
        "cannot open model '" + path + "': " + std::strerror(failure.error));
  FileCloser closer{fd};
  std::string problem = checkLoadableElf(fd);
  if (!problem.empty())
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "model '" + path + "' is " + problem);
  // A file that is not a graphc artifact is refused before dlopen could run
  // its constructors, with or without the checksum.
  uint64_t checksum = 0;
  if (graphc_status status = verifyArtifactFile(
          fd, static_cast<uint64_t>(info.st_size), path,
          !(model.flags & GRAPHC_MODEL_SKIP_CHECKSUM), checksum))
    return status;

  // Load the descriptor we checked, not whatever the path names by now: a
  // file replaced between the check and dlopen is never loaded. The
  // descriptor stays open while the model is loaded, so no other model is
  // loaded under its name; a name an unloadable earlier model still holds
  // is skipped for a higher descriptor number.
  bool same = false;
  if (access(("/proc/self/fd/" + std::to_string(fd)).c_str(), R_OK) == 0) {
    constexpr int kMaxNames = 64;
    for (int attempt = 0; attempt < kMaxNames && !same; ++attempt) {
      if (attempt > 0) {
        int higher = fcntl(fd, F_DUPFD_CLOEXEC, fd + 1);
        if (higher < 0)
          return makeStatus(GRAPHC_RESOURCE_EXHAUSTED,
                            "cannot load model '" + path +
                                "': " + std::strerror(errno));
        close(fd);
        fd = closer.fd = higher;
      }
      if (graphc_status status = loadLibraryAs(
              model, "/proc/self/fd/" + std::to_string(fd), checksum, same))
        return status;
    }
    if (same) {
      model.libraryFd = fd;
      closer.fd = -1;
    }
  } else {
    // Without /proc, by path (a name with a slash is a path, not looked up
    // in the library search path).
    std::string name = path.find('/') == std::string::npos ? "./" + path : path;
    if (graphc_status status = loadLibraryAs(model, name, checksum, same))
      return status;
  }
  if (!same)
    return makeStatus(GRAPHC_FAILED_PRECONDITION,
                      "cannot load model '" + path +
                          "': this process already holds a different library "
                          "under the name it would be loaded as (an earlier "
                          "model that could not be unloaded)");
  return nullptr;
}

/// Maps the weights appended to the .so after its ELF image. The whole-file
/// checksum, verified before dlopen, covers them.
graphc_status mapAppendedWeights(graphc_model &model) {
  const graphc_model_desc &desc = *model.desc;
  if (desc.weights_offset % GRAPHC_WEIGHTS_FILE_ALIGNMENT)
    return makeStatus(GRAPHC_DATA_LOSS,
                      "malformed descriptor in '" + model.path +
                          "': appended weights at offset " +
                          std::to_string(desc.weights_offset) +
                          ", not a multiple of " +
                          std::to_string(GRAPHC_WEIGHTS_FILE_ALIGNMENT));
  // The file that was checked and loaded, when it is still open: not
  // whatever the path names by now.
  int fd = model.libraryFd;
  FileCloser closer{-1};
  if (fd < 0) {
    OpenFailure failure;
    fd = closer.fd = openRegularFile(model.path.c_str(), failure);
    if (fd < 0 && failure.error)
      return makeStatus(GRAPHC_NOT_FOUND, "cannot open '" + model.path +
                                              "' to map its weights: " +
                                              std::strerror(failure.error));
  }
  struct stat info;
  if (fd < 0 || fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "'" + model.path + "' is not a regular file");
  uint64_t fileSize = static_cast<uint64_t>(info.st_size);
  if (desc.weights_offset > fileSize ||
      desc.weights_size > fileSize - desc.weights_offset)
    return makeStatus(GRAPHC_DATA_LOSS,
                      "'" + model.path + "' has " + std::to_string(fileSize) +
                          " bytes, too few for its " +
                          std::to_string(desc.weights_size) +
                          " bytes of weights at offset " +
                          std::to_string(desc.weights_offset) +
                          " (the file is truncated)");
  // The offset is a multiple of every page size the mapping may use.
  void *mapping = mmap(nullptr, desc.weights_size, PROT_READ, MAP_PRIVATE, fd,
                       static_cast<off_t>(desc.weights_offset));
  if (mapping == MAP_FAILED)
    return makeStatus(GRAPHC_RESOURCE_EXHAUSTED,
                      "cannot map the weights of '" + model.path +
                          "': " + std::strerror(errno));
  model.weightsMapping = mapping;
  model.weightsMappingSize = desc.weights_size;
  model.weights = mapping;
  model.weightsAppended = true;
  return nullptr;
}

graphc_status mapWeights(graphc_model &model, const char *overridePath) {
  const graphc_model_desc &desc = *model.desc;
  if (desc.weights) {
    if (reinterpret_cast<uintptr_t>(desc.weights) % GRAPHC_ALIGNMENT)
      return makeStatus(GRAPHC_DATA_LOSS,
                        "malformed descriptor in '" + model.path +
                            "': embedded weights are not " +
                            std::to_string(GRAPHC_ALIGNMENT) + "-byte aligned");
    model.weights = desc.weights;
    return nullptr;
  }
  if (!desc.weights_size)
    return nullptr;
  if (desc.weights_offset)
    return mapAppendedWeights(model);
  model.weightsPath = overridePath
                          ? std::string(overridePath)
                          : directoryOf(model.path) + "/" + desc.weights_file;
  const std::string &path = model.weightsPath;
  OpenFailure failure;
  struct stat info;
  int fd = openRegularFile(path.c_str(), failure, &info);
  if (fd < 0 && !failure.error)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "weights file '" + path + "' is not a regular file");
  if (fd < 0)
    return makeStatus(failure.error == ENOENT ? GRAPHC_NOT_FOUND
                                              : GRAPHC_INVALID_ARGUMENT,
                      "cannot open the weights of '" + model.path + "' ('" +
                          path + "'): " + std::strerror(failure.error));
  FileCloser closer{fd};
  if (static_cast<uint64_t>(info.st_size) != desc.weights_size)
    return makeStatus(GRAPHC_DATA_LOSS, "weights file '" + path + "' has " +
                                            std::to_string(info.st_size) +
                                            " bytes, model '" + model.path +
                                            "' expects " +
                                            std::to_string(desc.weights_size));
  // A private read-only mapping: page aligned (a multiple of the 256-byte
  // weights alignment) and paged in only as used.
  void *mapping =
      mmap(nullptr, desc.weights_size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (mapping == MAP_FAILED)
    return makeStatus(GRAPHC_RESOURCE_EXHAUSTED,
                      "cannot map weights file '" + path +
                          "': " + std::strerror(errno));
  model.weightsMapping = mapping;
  model.weightsMappingSize = desc.weights_size;
  model.weights = mapping;
  return nullptr;
}

graphc_status loadModel(graphc_model &model,
                        const graphc_model_options &options) {
  if (graphc_status status = openLibrary(model))
    return status;
  const graphc_model_desc &desc = *model.desc;
  std::string problem = checkDescriptor(desc);
  if (!problem.empty())
    return makeStatus(GRAPHC_DATA_LOSS, "malformed descriptor in '" +
                                            model.path + "': " + problem);
  if (graphc_status status = mapWeights(model, options.weights_path))
    return status;
  if (model.weightsMapping && !model.weightsAppended &&
      !(options.flags & GRAPHC_MODEL_SKIP_CHECKSUM)) {
    uint64_t actual = graphc::laneHash64(model.weights, desc.weights_size);
    if (actual != desc.weights_checksum)
      return makeStatus(GRAPHC_DATA_LOSS,
                        "checksum mismatch in weights file '" +
                            model.weightsPath + "' of model '" + model.path +
                            "': expected " + hex(desc.weights_checksum) +
                            ", computed " + hex(actual) +
                            " (the file is corrupted)");
  }
  // The cpu target computes library kernels with the reference GEMM and
  // convolution: one they cannot compute is refused now, not at the first
  // run (a model loaded for inspection only is not refused for what it
  // cannot run).
  bool willRun = !(options.flags & GRAPHC_MODEL_INSPECT_ONLY);
  for (int32_t k = 0; k < desc.num_kernels; ++k) {
    const graphc_kernel_desc &kernel = desc.kernels[k];
    if (!willRun || desc.target != GRAPHC_TARGET_CPU)
      break;
    std::string why;
    if ((kernel.gemm && !referenceGemmSupports(*kernel.gemm, why)) ||
        (kernel.conv && !referenceConvSupports(*kernel.conv, why)))
      return makeStatus(GRAPHC_UNIMPLEMENTED,
                        "model '" + model.path + "' " + describeKernel(kernel) +
                            " cannot run on the cpu target: " + why);
  }
  for (int32_t p = 0; p < desc.num_plans; ++p) {
    const graphc_plan_desc &plan = desc.plans[p];
    model.maxArenaBytes = std::max(model.maxArenaBytes, plan.arena_bytes);
    for (int32_t s = 0; s < plan.num_steps; ++s)
      model.maxStepArgs = std::max(model.maxStepArgs, plan.steps[s].num_args);
  }
  if (desc.target == GRAPHC_TARGET_CUDA &&
      !(options.flags & GRAPHC_MODEL_INSPECT_ONLY))
    return CudaModel::create(model, options.device_ordinal, model.cuda);
  return nullptr;
}

graphc_status indexError(const char *what, int32_t index, int32_t count) {
  return makeStatus(GRAPHC_INVALID_ARGUMENT,
                    std::string(what) + " index " + std::to_string(index) +
                        " out of range (the model has " +
                        std::to_string(count) + ")");
}
} // namespace

extern "C" {

void graphc_model_options_init(graphc_model_options *options) {
  if (!options)
    return;
  options->flags = 0;
  options->device_ordinal = 0;
  options->weights_path = nullptr;
}

graphc_status graphc_model_load(const char *path,
                                const graphc_model_options *options,
                                graphc_model **out_model) {
  if (!path || !out_model)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "graphc_model_load needs a path and an out_model");
  graphc_model_options defaults;
  graphc_model_options_init(&defaults);
  return guardAllocations("graphc_model_load", [&]() -> graphc_status {
    auto model = std::make_unique<graphc_model>();
    model->path = path;
    model->flags = (options ? options : &defaults)->flags;
    if (graphc_status status = loadModel(*model, options ? *options : defaults))
      return status;
    *out_model = model.release();
    return nullptr;
  });
}

void graphc_model_release(graphc_model *model) { delete model; }

graphc_target graphc_model_target(const graphc_model *model) {
  return static_cast<graphc_target>(model->desc->target);
}

const char *graphc_model_producer(const graphc_model *model) {
  return model->desc->producer ? model->desc->producer : "";
}

uint64_t graphc_model_weights_size(const graphc_model *model) {
  return model->desc->weights_size;
}

const char *graphc_model_weights_path(const graphc_model *model) {
  return model->weightsMapping && !model->weightsAppended
             ? model->weightsPath.c_str()
             : nullptr;
}

int32_t graphc_model_input_count(const graphc_model *model) {
  return model->desc->num_inputs;
}

int32_t graphc_model_output_count(const graphc_model *model) {
  return model->desc->num_outputs;
}

int32_t graphc_model_plan_count(const graphc_model *model) {
  return model->desc->num_plans;
}

int32_t graphc_model_kernel_count(const graphc_model *model) {
  return model->desc->num_kernels;
}

int32_t graphc_model_image_count(const graphc_model *model) {
  return model->desc->num_images;
}

int32_t graphc_model_bucket_dim_count(const graphc_model *model) {
  return model->desc->num_bucket_dims;
}

graphc_status graphc_model_bucket_dim_info(const graphc_model *model,
                                           int32_t index,
                                           graphc_bucket_dim_info *out_info) {
  if (index < 0 || index >= model->desc->num_bucket_dims)
    return indexError("bucket dim", index, model->desc->num_bucket_dims);
  const graphc_bucket_dim_desc &dim = model->desc->bucket_dims[index];
  out_info->name = dim.name;
  out_info->num_sizes = dim.num_sizes;
  out_info->sizes = dim.sizes;
  out_info->pad_safe = dim.pad_safe;
  out_info->splittable = dim.splittable;
  out_info->node = dim.node ? dim.node : "";
  out_info->reason = dim.reason ? dim.reason : "";
  out_info->output_axes = dim.output_axes;
  return nullptr;
}

static void fillTensorInfo(const graphc_tensor_desc &tensor,
                           graphc_tensor_info *info) {
  info->name = tensor.name;
  info->dtype = tensor.dtype;
  info->rank = tensor.rank;
  info->dims = tensor.dims;
  info->dim_names = tensor.dim_names;
  info->pad_value = tensor.pad_value;
  info->data_dependent = tensor.data_dependent;
}

graphc_status graphc_model_input_info(const graphc_model *model, int32_t index,
                                      graphc_tensor_info *out_info) {
  if (index < 0 || index >= model->desc->num_inputs)
    return indexError("input", index, model->desc->num_inputs);
  fillTensorInfo(model->desc->inputs[index], out_info);
  return nullptr;
}

graphc_status graphc_model_output_info(const graphc_model *model, int32_t index,
                                       graphc_tensor_info *out_info) {
  if (index < 0 || index >= model->desc->num_outputs)
    return indexError("output", index, model->desc->num_outputs);
  fillTensorInfo(model->desc->outputs[index], out_info);
  return nullptr;
}

graphc_status graphc_model_plan_info(const graphc_model *model, int32_t index,
                                     graphc_plan_info *out_info) {
  if (index < 0 || index >= model->desc->num_plans)
    return indexError("plan", index, model->desc->num_plans);
  const graphc_plan_desc &plan = model->desc->plans[index];
  out_info->name = plan.name;
  out_info->arena_bytes = plan.arena_bytes;
  out_info->intermediate_bytes = plan.intermediate_bytes;
  out_info->num_steps = plan.num_steps;
  out_info->input_dims = plan.input_dims;
  out_info->output_dims = plan.output_dims;
  return nullptr;
}

graphc_status graphc_model_kernel_info(const graphc_model *model, int32_t index,
                                       graphc_kernel_info *out_info) {
  if (index < 0 || index >= model->desc->num_kernels)
    return indexError("kernel", index, model->desc->num_kernels);
  const graphc_kernel_desc &kernel = model->desc->kernels[index];
  out_info->name = kernel.name;
  out_info->kind = kernel.kind ? kernel.kind : "";
  out_info->onnx_nodes = kernel.onnx_nodes ? kernel.onnx_nodes : "";
  out_info->content_hash = kernel.content_hash;
  return nullptr;
}

graphc_status graphc_model_step_info(const graphc_model *model, int32_t plan,
                                     int32_t step,
                                     graphc_step_info *out_info) {
  if (plan < 0 || plan >= model->desc->num_plans)
    return indexError("plan", plan, model->desc->num_plans);
  const graphc_plan_desc &desc = model->desc->plans[plan];
  if (step < 0 || step >= desc.num_steps)
    return indexError("step", step, desc.num_steps);
  const graphc_step_desc &s = desc.steps[step];
  *out_info = graphc_step_info{};
  out_info->kind = s.kind;
  out_info->kernel = s.kind == GRAPHC_STEP_COPY ? -1 : s.kernel;
  if (s.kind == GRAPHC_STEP_LAUNCH) {
    for (int d = 0; d < 3; ++d) {
      out_info->grid[d] = s.grid[d];
      out_info->block[d] = s.block[d];
    }
    out_info->shared_bytes = s.shared_bytes;
  }
  return nullptr;
}

graphc_status graphc_model_image_info(const graphc_model *model, int32_t index,
                                      graphc_image_info *out_info) {
  if (index < 0 || index >= model->desc->num_images)
    return indexError("image", index, model->desc->num_images);
  const graphc_image_desc &image = model->desc->images[index];
  out_info->sm = image.sm;
  out_info->format = image.format;
  out_info->size = image.size;
  return nullptr;
}

} // extern "C"
