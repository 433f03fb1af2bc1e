//===- CudaModel.cpp - per-device modules and weights of a model ----------===//
#include "runtime/src/CudaModel.h"

#include "runtime/src/CublasLtGemm.h"
#include "runtime/src/CudnnConv.h"
#include "runtime/src/CudnnSdpa.h"
#include "runtime/src/Model.h"
#include "runtime/src/Status.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <string_view>

using namespace graphc::rt;

namespace {
/// The images of `unit` (every unit has the same kinds).
std::string listImages(const graphc_model_desc &desc, int32_t unit) {
  std::string text;
  for (int32_t i = 0; i < desc.num_images; ++i) {
    const graphc_image_desc &image = desc.images[i];
    if (image.unit != unit)
      continue;
    if (!text.empty())
      text += ", ";
    if (image.format == GRAPHC_IMAGE_HOST_EMULATION)
      text += "a host emulation image";
    else
      text += "sm_" + std::to_string(image.sm) +
              (image.format == GRAPHC_IMAGE_PTX ? " (ptx)" : " (cubin)");
  }
  return text;
}

/// Checks that device `ordinal` exists and reports its SM.
graphc_status queryDevice(const cu::Driver &drv, int32_t ordinal,
                          cu::Device &device, int32_t &sm, std::string &name) {
  int count = 0;
  cu::Result result = drv.deviceGetCount(&count);
  if (result != cu::kSuccess)
    return makeStatus(GRAPHC_UNAVAILABLE,
                      "cannot count CUDA devices: " + drv.describe(result));
  if (count == 0)
    return makeStatus(GRAPHC_UNAVAILABLE, "no CUDA device");
  if (ordinal < 0 || ordinal >= count)
    return makeStatus(GRAPHC_NOT_FOUND,
                      "no CUDA device " + std::to_string(ordinal) + " (" +
                          std::to_string(count) + " present)");
  int major = 0, minor = 0;
  char buffer[256] = {0};
  if ((result = drv.deviceGet(&device, ordinal)) != cu::kSuccess ||
      (result = drv.deviceGetAttribute(&major, cu::kAttrComputeCapabilityMajor,
                                       device)) != cu::kSuccess ||
      (result = drv.deviceGetAttribute(&minor, cu::kAttrComputeCapabilityMinor,
                                       device)) != cu::kSuccess ||
      (result = drv.deviceGetName(buffer, sizeof(buffer) - 1, device)) !=
          cu::kSuccess)
    return makeStatus(GRAPHC_UNAVAILABLE, "cannot query CUDA device " +
                                              std::to_string(ordinal) + ": " +
                                              drv.describe(result));
  sm = major * 10 + minor;
  name = buffer;
  return nullptr;
}

/// Sets `images` to the image of each unit to load on device `ordinal`
/// (none for a model without generated kernels), and `sm` to the device's
/// compute capability.
graphc_status checkCoverage(const graphc_model &model, const cu::Driver &drv,
                            int32_t ordinal, cu::Device &device,
                            std::vector<int32_t> &images, int32_t &sm) {
  std::string name;
  if (graphc_status status = queryDevice(drv, ordinal, device, sm, name))
    return status;
  images.clear();
  for (int32_t unit = 0; unit < model.desc->num_units; ++unit) {
    std::string error;
    int32_t image = selectImage(*model.desc, sm, error, unit);
    if (image < 0)
      return makeStatus(GRAPHC_FAILED_PRECONDITION,
                        "model '" + model.path + "' cannot run on CUDA device " +
                            std::to_string(ordinal) + " '" + name +
                            "': " + error);
    images.push_back(image);
    // PTX is JIT-compiled by the driver, which must know the PTX ISA that
    // NVRTC wrote; otherwise the load fails with a bare "unsupported PTX
    // version".
    const graphc_image_desc &chosen = model.desc->images[image];
    if (chosen.format != GRAPHC_IMAGE_PTX)
      continue;
    std::string isa;
    int required = ptxRequiredDriver(static_cast<const char *>(chosen.data),
                                     chosen.size, isa);
    int version = 0;
    if (required && drv.driverGetVersion(&version) == cu::kSuccess &&
        version < required)
      return makeStatus(
          GRAPHC_FAILED_PRECONDITION,
          "model '" + model.path + "' cannot run on CUDA device " +
              std::to_string(ordinal) + " '" + name + "' (sm_" +
              std::to_string(sm) + "): its only usable image is sm_" +
              std::to_string(chosen.sm) + " PTX of ISA " + isa +
              ", which needs a driver for CUDA " + driverVersionText(required) +
              " or newer, and the installed driver supports CUDA " +
              driverVersionText(version) +
              " (update the NVIDIA driver, or recompile with --arch sm_" +
              std::to_string(sm) + " for a cubin)");
  }
  return nullptr;
}
/// A status for a failed driver call while setting up device `ordinal`; a
/// sticky error poisons the device.
graphc_status deviceFailure(const cu::Driver &drv, int32_t ordinal,
                            const std::string &what, cu::Result result) {
  std::string message = what + " on CUDA device " + std::to_string(ordinal) +
                        ": " + drv.describe(result);
  if (cu::isStickyError(result))
    cu::poisonDevice(ordinal, message);
  return makeStatus(result == cu::kErrorOutOfMemory ? GRAPHC_RESOURCE_EXHAUSTED
                                                    : GRAPHC_INTERNAL,
                    message);
}
} // namespace

int graphc::rt::ptxRequiredDriver(const char *ptx, uint64_t size,
                                  std::string &isa) {
  std::string_view text(ptx, size);
  size_t at = text.find(".version");
  if (at == std::string_view::npos)
    return 0;
  at += std::strlen(".version");
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t'))
    ++at;
  int major = 0, minor = 0;
  size_t digits = at;
  while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])))
    major = major * 10 + (text[at++] - '0');
  if (at == digits || at >= text.size() || text[at] != '.')
    return 0;
  digits = ++at;
  while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])))
    minor = minor * 10 + (text[at++] - '0');
  if (at == digits)
    return 0;
  isa = std::to_string(major) + "." + std::to_string(minor);
  // The CUDA release that introduced each PTX ISA (PTX ISA release notes).
  static const struct {
    int major, minor, cuda;
  } table[] = {
      {6, 3, 10000}, {6, 4, 10010}, {6, 5, 10020}, {7, 0, 11000}, {7, 1, 11010},
      {7, 2, 11020}, {7, 3, 11030}, {7, 4, 11040}, {7, 5, 11050}, {7, 6, 11060},
      {7, 7, 11070}, {7, 8, 11080}, {8, 0, 12000}, {8, 1, 12010}, {8, 2, 12020},
      {8, 3, 12030}, {8, 4, 12040}, {8, 5, 12050}, {8, 6, 12070}, {8, 7, 12080},
      {8, 8, 12090}, {9, 0, 13000},
  };
  for (const auto &entry : table)
    if (entry.major == major && entry.minor == minor)
      return entry.cuda;
  return 0;
}

std::string graphc::rt::driverVersionText(int version) {
  return std::to_string(version / 1000) + "." +
         std::to_string(version % 1000 / 10);
}

int32_t graphc::rt::selectImage(const graphc_model_desc &desc, int32_t sm,
                                std::string &error, int32_t unit) {
  // Preference: the device's own cubin; else a cubin of the same major
  // version and an older minor (binary compatible, e.g. sm_80 on sm_86);
  // else the newest PTX the device can JIT. A host emulation image comes
  // last: only a driver that emulates CUDA loads it, and loading it reports
  // that plainly when the device is a real GPU.
  int32_t bestCubin = -1;
  int32_t bestPtx = -1;
  int32_t emulation = -1;
  for (int32_t i = 0; i < desc.num_images; ++i) {
    const graphc_image_desc &image = desc.images[i];
    if (image.unit != unit)
      continue;
    bool cubin = image.format == GRAPHC_IMAGE_CUBIN;
    if (cubin && image.sm == sm)
      return i;
    if (cubin && image.sm / 10 == sm / 10 && image.sm < sm &&
        (bestCubin < 0 || image.sm > desc.images[bestCubin].sm))
      bestCubin = i;
    if (image.format == GRAPHC_IMAGE_PTX && image.sm <= sm &&
        (bestPtx < 0 || image.sm > desc.images[bestPtx].sm))
      bestPtx = i;
    if (image.format == GRAPHC_IMAGE_HOST_EMULATION && emulation < 0)
      emulation = i;
  }
  if (bestCubin >= 0)
    return bestCubin;
  if (bestPtx < 0 && emulation >= 0)
    return emulation;
  if (bestPtx < 0)
    error = "the device is sm_" + std::to_string(sm) + " and the model has " +
            listImages(desc, unit) + ": no cubin for sm_" + std::to_string(sm) +
            " and no PTX for sm_" + std::to_string(sm) +
            " or older (recompile with --arch sm_" + std::to_string(sm) + ")";
  return bestPtx;
}

graphc_status CudaModel::create(const graphc_model &model, int32_t ordinal,
                                std::unique_ptr<CudaModel> &out) {
  std::string error;
  const cu::Driver *drv = cu::getDriver(error);
  if (!drv)
    return makeStatus(GRAPHC_UNAVAILABLE,
                      "cannot run cuda model '" + model.path + "': " + error);
  cu::Device device;
  std::vector<int32_t> images;
  int32_t sm = 0;
  if (graphc_status status =
          checkCoverage(model, *drv, ordinal, device, images, sm))
    return status;
  // cuBLASLt and cuDNN only when a kernel calls them, and every such GEMM
  // and convolution one they run.
  const lt::Library *cublasLt = nullptr;
  const dnn::Library *cudnn = nullptr;
  const graphc_model_desc &desc = *model.desc;
  for (int32_t k = 0; k < desc.num_kernels; ++k) {
    const graphc_kernel_desc &kernel = desc.kernels[k];
    std::string why;
    if (kernel.library == GRAPHC_LIBRARY_CUBLASLT) {
      if (!cublasLt && !(cublasLt = lt::getLibrary(why)))
        return makeStatus(GRAPHC_UNAVAILABLE, "model '" + model.path + "' " +
                                                  describeKernel(kernel) +
                                                  " calls cuBLASLt: " + why);
      if (!cublasLtSupports(*kernel.gemm, why))
        return makeStatus(GRAPHC_UNIMPLEMENTED,
                          "model '" + model.path + "' " +
                              describeKernel(kernel) +
                              " cannot run on cuBLASLt: " + why);
    } else if (kernel.library == GRAPHC_LIBRARY_CUDNN) {
      if (!cudnn && !(cudnn = dnn::getLibrary(why)))
        return makeStatus(GRAPHC_UNAVAILABLE, "model '" + model.path + "' " +
                                                  describeKernel(kernel) +
                                                  " calls cuDNN: " + why);
      if (kernel.conv ? !cudnnSupports(*kernel.conv, why)
                      : !cudnnSupports(*kernel.sdpa, why))
        return makeStatus(GRAPHC_UNIMPLEMENTED,
                          "model '" + model.path + "' " +
                              describeKernel(kernel) +
                              " cannot run on cuDNN: " + why);
    }
  }
  out.reset(new CudaModel(*drv, cublasLt, cudnn));
  return nullptr;
}

CudaModel::~CudaModel() {
  for (const std::unique_ptr<CudaDevice> &state : devices) {
    if (!state->context)
      continue;
    {
      cu::ContextGuard guard(drv, state->context);
      cu::RelaxedCaptureGuard relaxed(drv);
      drv.freeIfAllocated(state->weights);
      for (cu::Module module : state->modules)
        if (module)
          drv.moduleUnload(module);
    }
    drv.primaryCtxRelease(state->device);
  }
}

graphc_status CudaModel::acquire(const graphc_model &model, int32_t ordinal,
                                 CudaDevice *&out) {
  std::string cause;
  if (cu::devicePoisoned(ordinal, cause))
    return makeStatus(GRAPHC_INTERNAL, "CUDA device " +
                                           std::to_string(ordinal) +
                                           " is unusable after an earlier "
                                           "failure: " +
                                           cause);
  std::lock_guard<std::mutex> lock(mutex);
  for (const std::unique_ptr<CudaDevice> &state : devices) {
    if (state->ordinal == ordinal) {
      out = state.get();
      return nullptr;
    }
  }
  auto state = std::make_unique<CudaDevice>();
  state->ordinal = ordinal;
  if (graphc_status status = setUp(model, *state)) {
    // Keep what was created so the destructor releases it; a later acquire
    // for this ordinal retries from scratch.
    state->ordinal = -1;
    devices.push_back(std::move(state));
    return status;
  }
  out = state.get();
  devices.push_back(std::move(state));
  return nullptr;
}

graphc_status CudaModel::loadImages(const graphc_model &model,
                                    CudaDevice &state,
                                    const std::vector<int32_t> &images) {
  const graphc_model_desc &desc = *model.desc;
  auto fail = [&](const std::string &what, cu::Result result) {
    return deviceFailure(drv, state.ordinal, what, result);
  };
  state.modules.assign(images.size(), nullptr);
  for (size_t unit = 0; unit < images.size(); ++unit) {
    const graphc_image_desc &chosen = desc.images[images[unit]];
    cu::Module &module = state.modules[unit];
    cu::Result result = drv.moduleLoadData(&module, chosen.data);
    if (result == cu::kSuccess)
      continue;
    module = nullptr;
    if (result == cu::kErrorUnsupportedPtxVersion) {
      int version = 0;
      drv.driverGetVersion(&version);
      return makeStatus(GRAPHC_FAILED_PRECONDITION,
                        "cannot load the sm_" + std::to_string(chosen.sm) +
                            " PTX of '" + model.path + "' on CUDA device " +
                            std::to_string(state.ordinal) +
                            ": the driver (CUDA " + driverVersionText(version) +
                            ") is older than the NVRTC that wrote the PTX; "
                            "update the NVIDIA driver or recompile with --arch "
                            "for this GPU (" +
                            drv.describe(result) + ")");
    }
    if (chosen.format == GRAPHC_IMAGE_HOST_EMULATION)
      return makeStatus(GRAPHC_FAILED_PRECONDITION,
                        "model '" + model.path +
                            "' was compiled with --cuda-emulation: its kernels "
                            "are host code for graphc's CUDA emulator, which "
                            "CUDA device " + std::to_string(state.ordinal) +
                            " cannot load (" + drv.describe(result) +
                            "); recompile without --cuda-emulation");
    return fail(std::string("cannot load the sm_") + std::to_string(chosen.sm) +
                    (chosen.format == GRAPHC_IMAGE_PTX ? " PTX" : " cubin") +
                    " of unit " + std::to_string(unit) + " of '" + model.path +
                    "'",
                result);
  }
  cu::Result result;
  for (int32_t k = 0; k < desc.num_kernels; ++k) {
    // Library kernels are in no image, but for the epilogue kernels of
    // convolutions and the fallbacks of attention.
    const graphc_conv_desc *conv = desc.kernels[k].conv;
    if (desc.kernels[k].library != GRAPHC_LIBRARY_NONE &&
        !(conv && conv->has_epilogue_kernel) && !desc.kernels[k].sdpa)
      continue;
    // The descriptor check put every unit in range.
    int32_t unit = desc.kernels[k].unit;
    result = drv.moduleGetFunction(&state.functions[k], state.modules[unit],
                                   desc.kernels[k].name);
    if (result != cu::kSuccess)
      return makeStatus(GRAPHC_DATA_LOSS,
                        "kernel '" + std::string(desc.kernels[k].name) +
                            "' is missing from the unit " +
                            std::to_string(unit) + " image of '" + model.path +
                            "': " + drv.describe(result));
  }
  // Kernels asking for more dynamic shared memory than the default must opt
  // in once per function.
  std::vector<unsigned> sharedBytes(desc.num_kernels, 0);
  for (int32_t p = 0; p < desc.num_plans; ++p) {
    for (int32_t s = 0; s < desc.plans[p].num_steps; ++s) {
      const graphc_step_desc &step = desc.plans[p].steps[s];
      if (step.kind == GRAPHC_STEP_LAUNCH &&
          step.shared_bytes > sharedBytes[step.kernel])
        sharedBytes[step.kernel] = step.shared_bytes;
    }
  }
  // An attention's fallback kernel, launched by its library steps.
  for (int32_t k = 0; k < desc.num_kernels; ++k)
    if (const graphc_sdpa_desc *sdpa = desc.kernels[k].sdpa)
      sharedBytes[k] = std::max(sharedBytes[k], sdpa->fallback_shared_bytes);
  for (int32_t k = 0; k < desc.num_kernels; ++k) {
    if (sharedBytes[k] <= cu::kDefaultSharedBytesLimit)
      continue;
    result = drv.funcSetAttribute(state.functions[k],
                                  cu::kFuncAttrMaxDynamicSharedSizeBytes,
                                  static_cast<int>(sharedBytes[k]));
    if (result != cu::kSuccess)
      return fail("kernel '" + std::string(desc.kernels[k].name) + "' needs " +
                      std::to_string(sharedBytes[k]) +
                      " bytes of shared memory, more than the device allows",
                  result);
  }
  return nullptr;
}

graphc_status CudaModel::setUp(const graphc_model &model, CudaDevice &state) {
  const graphc_model_desc &desc = *model.desc;
  std::vector<int32_t> images;
  if (graphc_status status = checkCoverage(model, drv, state.ordinal,
                                           state.device, images, state.sm))
    return status;
  // The oldest code loaded: what the kernels were compiled for, which
  // decides the instructions they contain (the emulation image has none).
  state.codeSm = images.empty() ? 0 : INT32_MAX;
  for (int32_t image : images) {
    const graphc_image_desc &chosen = desc.images[image];
    state.codeSm =
        std::min(state.codeSm,
                 chosen.format == GRAPHC_IMAGE_HOST_EMULATION ? 0 : chosen.sm);
  }
  auto fail = [&](const std::string &what, cu::Result result) {
    return deviceFailure(drv, state.ordinal, what, result);
  };
  cu::Result result = drv.primaryCtxRetain(&state.context, state.device);
  if (result != cu::kSuccess) {
    state.context = nullptr;
    return fail("cannot retain the primary context", result);
  }
  cu::ContextGuard guard(drv, state.context);
  if (guard.result() != cu::kSuccess)
    return fail("cannot make the context current", guard.result());
  // Module loads and allocations are never part of a captured graph.
  cu::RelaxedCaptureGuard relaxed(drv);

  state.functions.assign(desc.num_kernels, nullptr);
  if (!images.empty())
    if (graphc_status status = loadImages(model, state, images))
      return status;
  if (desc.weights_size) {
    result = drv.memAlloc(&state.weights, desc.weights_size);
    if (result != cu::kSuccess) {
      state.weights = 0;
      return fail("cannot allocate " + std::to_string(desc.weights_size) +
                      " bytes of weights",
                  result);
    }
    // An asynchronous copy on a private stream, then a wait for that stream
    // only: a context-wide synchronisation, or the legacy stream that the
    // synchronous copy uses, is invalid while another thread captures.
    cu::Stream upload = nullptr;
    result = drv.streamCreate(&upload, cu::kStreamNonBlocking);
    if (result != cu::kSuccess)
      return fail("cannot create a stream to upload the weights", result);
    result = drv.memcpyHtoDAsync(state.weights, model.weights,
                                 desc.weights_size, upload);
    cu::Result synced = drv.streamSynchronize(upload);
    drv.streamDestroy(upload);
    if (result == cu::kSuccess)
      result = synced;
    if (result != cu::kSuccess)
      return fail("cannot upload the weights", result);
  }
  return nullptr;
}

graphc_status graphc_cuda_device_info(int32_t ordinal,
                                      graphc_device_info *out_info) {
  if (!out_info)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "graphc_cuda_device_info needs an out_info");
  std::string error;
  const cu::Driver *drv = cu::getDriver(error);
  if (!drv)
    return makeStatus(GRAPHC_UNAVAILABLE, error);
  cu::Device device = 0;
  int32_t sm = 0;
  std::string name;
  if (graphc_status status = queryDevice(*drv, ordinal, device, sm, name))
    return status;
  int version = 0;
  if (cu::Result result = drv->driverGetVersion(&version))
    return makeStatus(GRAPHC_UNAVAILABLE, "cannot read the CUDA driver's "
                                          "version: " +
                                              drv->describe(result));
  *out_info = graphc_device_info{};
  std::snprintf(out_info->name, sizeof(out_info->name), "%s", name.c_str());
  out_info->sm = sm;
  out_info->driver_version = version;
  return nullptr;
}
