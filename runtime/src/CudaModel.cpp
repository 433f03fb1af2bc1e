//===- CudaModel.cpp - per-device modules and weights of a model ----------===//
#include "runtime/src/CudaModel.h"

#include "runtime/src/Model.h"
#include "runtime/src/Status.h"

using namespace graphc::rt;

namespace {
std::string listImages(const graphc_model_desc &desc) {
  std::string text;
  for (int32_t i = 0; i < desc.num_images; ++i) {
    if (i)
      text += ", ";
    text += "sm_" + std::to_string(desc.images[i].sm) +
            (desc.images[i].is_ptx ? " (ptx)" : " (cubin)");
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

graphc_status checkCoverage(const graphc_model &model, const cu::Driver &drv,
                            int32_t ordinal, cu::Device &device,
                            int32_t &image) {
  int32_t sm = 0;
  std::string name;
  if (graphc_status status = queryDevice(drv, ordinal, device, sm, name))
    return status;
  std::string error;
  image = selectImage(*model.desc, sm, error);
  if (image < 0)
    return makeStatus(GRAPHC_FAILED_PRECONDITION,
                      "model '" + model.path + "' cannot run on CUDA device " +
                          std::to_string(ordinal) + " '" + name +
                          "': " + error);
  return nullptr;
}
} // namespace

int32_t graphc::rt::selectImage(const graphc_model_desc &desc, int32_t sm,
                                std::string &error) {
  // Preference: the device's own cubin; else a cubin of the same major
  // version and an older minor (binary compatible, e.g. sm_80 on sm_86);
  // else the newest PTX the device can JIT.
  int32_t bestCubin = -1;
  int32_t bestPtx = -1;
  for (int32_t i = 0; i < desc.num_images; ++i) {
    const graphc_image_desc &image = desc.images[i];
    if (!image.is_ptx && image.sm == sm)
      return i;
    if (!image.is_ptx && image.sm / 10 == sm / 10 && image.sm < sm &&
        (bestCubin < 0 || image.sm > desc.images[bestCubin].sm))
      bestCubin = i;
    if (image.is_ptx && image.sm <= sm &&
        (bestPtx < 0 || image.sm > desc.images[bestPtx].sm))
      bestPtx = i;
  }
  if (bestCubin >= 0)
    return bestCubin;
  if (bestPtx < 0)
    error = "the device is sm_" + std::to_string(sm) + " and the model has " +
            listImages(desc) + ": no cubin for sm_" + std::to_string(sm) +
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
  int32_t image;
  if (graphc_status status = checkCoverage(model, *drv, ordinal, device, image))
    return status;
  out.reset(new CudaModel(*drv));
  return nullptr;
}

CudaModel::~CudaModel() {
  for (const std::unique_ptr<CudaDevice> &state : devices) {
    if (!state->context)
      continue;
    {
      cu::ContextGuard guard(drv, state->context);
      if (state->weights)
        drv.memFree(state->weights);
      if (state->module)
        drv.moduleUnload(state->module);
    }
    drv.primaryCtxRelease(state->device);
  }
}

graphc_status CudaModel::acquire(const graphc_model &model, int32_t ordinal,
                                 CudaDevice *&out) {
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

graphc_status CudaModel::setUp(const graphc_model &model, CudaDevice &state) {
  const graphc_model_desc &desc = *model.desc;
  int32_t image;
  if (graphc_status status =
          checkCoverage(model, drv, state.ordinal, state.device, image))
    return status;
  auto fail = [&](const std::string &what, cu::Result result) {
    return makeStatus(result == 2 /*CUDA_ERROR_OUT_OF_MEMORY*/
                          ? GRAPHC_RESOURCE_EXHAUSTED
                          : GRAPHC_INTERNAL,
                      what + " on CUDA device " +
                          std::to_string(state.ordinal) + ": " +
                          drv.describe(result));
  };
  cu::Result result = drv.primaryCtxRetain(&state.context, state.device);
  if (result != cu::kSuccess) {
    state.context = nullptr;
    return fail("cannot retain the primary context", result);
  }
  cu::ContextGuard guard(drv, state.context);
  if (guard.result() != cu::kSuccess)
    return fail("cannot make the context current", guard.result());

  const graphc_image_desc &chosen = desc.images[image];
  result = drv.moduleLoadData(&state.module, chosen.data);
  if (result != cu::kSuccess) {
    state.module = nullptr;
    return fail(std::string("cannot load the sm_") + std::to_string(chosen.sm) +
                    (chosen.is_ptx ? " PTX" : " cubin") + " of '" + model.path +
                    "'",
                result);
  }
  state.functions.resize(desc.num_kernels);
  for (int32_t k = 0; k < desc.num_kernels; ++k) {
    result = drv.moduleGetFunction(&state.functions[k], state.module,
                                   desc.kernels[k].name);
    if (result != cu::kSuccess)
      return makeStatus(GRAPHC_DATA_LOSS,
                        "kernel '" + std::string(desc.kernels[k].name) +
                            "' is missing from the image of '" + model.path +
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
  if (desc.weights_size) {
    result = drv.memAlloc(&state.weights, desc.weights_size);
    if (result != cu::kSuccess) {
      state.weights = 0;
      return fail("cannot allocate " + std::to_string(desc.weights_size) +
                      " bytes of weights",
                  result);
    }
    result = drv.memcpyHtoD(state.weights, model.weights, desc.weights_size);
    if (result != cu::kSuccess)
      return fail("cannot upload the weights", result);
    // A copy from pageable memory may return before its DMA lands, and the
    // sessions' non-blocking streams do not wait for the legacy stream.
    result = drv.ctxSynchronize();
    if (result != cu::kSuccess)
      return fail("cannot upload the weights", result);
  }
  return nullptr;
}
