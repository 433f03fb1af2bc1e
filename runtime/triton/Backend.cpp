//===- Backend.cpp - libtriton_graphc.so: loading models and instances ----===//
//
// Triton Inference Server's backend "graphc". A model's config.pbtxt names
// the artifact in its version directory (parameter graphc_artifact, as
// `graphc triton --backend native` writes it); the backend library and the
// runtime it links sit beside the artifact, so the runtime that loads a model
// is the one its compiler was built with.
//
//===----------------------------------------------------------------------===//

#include "runtime/triton/BackendState.h"
#include "runtime/triton/TritonConfig.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>

using namespace graphc::triton;
using nlohmann::json;

namespace graphc::triton {

ModelState::~ModelState() {
  for (auto &[device, model] : models)
    graphc_model_release(model);
}

InstanceState::~InstanceState() { graphc_session_release(session); }

TRITONSERVER_Error *tritonError(TRITONSERVER_Error_Code code,
                                const std::string &message) {
  return TRITONSERVER_ErrorNew(code, ("graphc: " + message).c_str());
}

TRITONSERVER_Error *tritonError(graphc_status status) {
  TRITONSERVER_Error_Code code = TRITONSERVER_ERROR_INTERNAL;
  switch (graphc_status_code(status)) {
  case GRAPHC_INVALID_ARGUMENT:
    code = TRITONSERVER_ERROR_INVALID_ARG;
    break;
  case GRAPHC_NOT_FOUND:
    code = TRITONSERVER_ERROR_NOT_FOUND;
    break;
  case GRAPHC_UNAVAILABLE:
  case GRAPHC_RESOURCE_EXHAUSTED:
    code = TRITONSERVER_ERROR_UNAVAILABLE;
    break;
  case GRAPHC_UNIMPLEMENTED:
  case GRAPHC_FAILED_PRECONDITION:
    code = TRITONSERVER_ERROR_UNSUPPORTED;
    break;
  default:
    break;
  }
  TRITONSERVER_Error *error = tritonError(code, graphc_status_message(status));
  graphc_status_free(status);
  return error;
}

void logMessage(TRITONSERVER_LogLevel level, const std::string &message) {
  if (!TRITONSERVER_LogIsEnabled(level))
    return;
  if (TRITONSERVER_Error *error =
          TRITONSERVER_LogMessage(level, __FILE__, __LINE__, message.c_str()))
    TRITONSERVER_ErrorDelete(error);
}

} // namespace graphc::triton

namespace {

/// The model's configuration (Triton's JSON form of config.pbtxt).
TRITONSERVER_Error *readConfig(TRITONBACKEND_Model *model, json &config) {
  TRITONSERVER_Message *message = nullptr;
  if (TRITONSERVER_Error *error = TRITONBACKEND_ModelConfig(model, 1, &message))
    return error;
  const char *base = nullptr;
  size_t size = 0;
  TRITONSERVER_Error *error =
      TRITONSERVER_MessageSerializeToJson(message, &base, &size);
  if (!error) {
    config =
        json::parse(base, base + size, nullptr, /*allow_exceptions=*/false);
    if (!config.is_object())
      error = tritonError(TRITONSERVER_ERROR_INTERNAL,
                          "the model configuration Triton passed is not a "
                          "JSON object");
  }
  if (TRITONSERVER_Error *deleted = TRITONSERVER_MessageDelete(message))
    TRITONSERVER_ErrorDelete(deleted);
  return error;
}

/// A string member of a JSON object at `path`, or "".
std::string stringAt(const json &value,
                     std::initializer_list<const char *> path) {
  const json *at = &value;
  for (const char *key : path) {
    if (!at->is_object() || !at->contains(key))
      return "";
    at = &(*at)[key];
  }
  return at->is_string() ? at->get<std::string>() : "";
}

/// Reads the artifact's inputs and outputs and whether it batches, from a
/// model loaded for inspection (no device touched).
TRITONSERVER_Error *describeArtifact(ModelState &state) {
  graphc_model_options options;
  graphc_model_options_init(&options);
  options.flags = GRAPHC_MODEL_INSPECT_ONLY;
  graphc_model *model = nullptr;
  if (graphc_status status =
          graphc_model_load(state.artifactPath.c_str(), &options, &model))
    return tritonError(status);
  std::unique_ptr<graphc_model, void (*)(graphc_model *)> owner(
      model, graphc_model_release);
  state.target = graphc_model_target(model);
  for (bool isInput : {true, false}) {
    int32_t count = isInput ? graphc_model_input_count(model)
                            : graphc_model_output_count(model);
    std::vector<TensorSpec> &specs = isInput ? state.inputs : state.outputs;
    for (int32_t i = 0; i < count; ++i) {
      graphc_tensor_info info;
      if (graphc_status status =
              isInput ? graphc_model_input_info(model, i, &info)
                      : graphc_model_output_info(model, i, &info))
        return tritonError(status);
      const TritonDtype *dtype = tritonDtypeOf(info.dtype);
      if (!dtype)
        return tritonError(TRITONSERVER_ERROR_UNSUPPORTED,
                           std::string(isInput ? "input '" : "output '") +
                               info.name + "' has dtype " +
                               graphc_dtype_name(info.dtype) +
                               ", which Triton has no type for");
      specs.push_back({info.name, info.dtype, dtype->server, info.rank,
                       info.data_dependent != nullptr});
    }
  }
  for (const TensorSpec &input : state.inputs)
    state.inputNames.push_back(input.name.c_str());

  // The batch dim Triton batches along (what `graphc triton` sets
  // max_batch_size from), as the runtime defines it for batched runs.
  int32_t batchDim = -1;
  graphc_status noBatchDim = graphc_model_batch_dim(model, &batchDim);
  state.batchable = !noBatchDim;
  if (noBatchDim)
    state.noBatchDimReason = graphc_status_message(noBatchDim);
  graphc_status_free(noBatchDim);
  return nullptr;
}

/// The configuration must describe the artifact: every input and output by
/// name and dtype, and batching only where the artifact has a batch dim.
TRITONSERVER_Error *checkConfig(const ModelState &state, const json &config) {
  if (state.maxBatchSize > 0 && !state.batchable)
    return tritonError(
        TRITONSERVER_ERROR_INVALID_ARG,
        "model '" + state.name + "': config.pbtxt sets max_batch_size " +
            std::to_string(state.maxBatchSize) + ", but " + state.artifactPath +
            " cannot batch requests (" + state.noBatchDimReason +
            "); set max_batch_size: 0 or recompile with batch buckets");
  for (auto [kind, specs] : {std::pair{"input", &state.inputs},
                             std::pair{"output", &state.outputs}}) {
    const json empty = json::array();
    const json &list =
        config.contains(kind) && config[kind].is_array() ? config[kind] : empty;
    for (const TensorSpec &spec : *specs) {
      const json *entry = nullptr;
      for (const json &candidate : list)
        if (stringAt(candidate, {"name"}) == spec.name)
          entry = &candidate;
      if (!entry)
        return tritonError(TRITONSERVER_ERROR_INVALID_ARG,
                           "model '" + state.name + "': config.pbtxt has no " +
                               kind + " '" + spec.name + "', which " +
                               state.artifactPath + " has");
      std::string type = stringAt(*entry, {"data_type"});
      const char *expected = tritonDtypeOf(spec.dtype)->config;
      if (type != expected)
        return tritonError(
            TRITONSERVER_ERROR_INVALID_ARG,
            "model '" + state.name + "': config.pbtxt declares " + kind + " '" +
                spec.name + "' as " + (type.empty() ? "nothing" : type) +
                ", but the artifact's is " + expected);
    }
    if (list.size() > specs->size())
      return tritonError(TRITONSERVER_ERROR_INVALID_ARG,
                         "model '" + state.name + "': config.pbtxt lists " +
                             std::to_string(list.size()) + " " + kind +
                             "s, but " + state.artifactPath + " has " +
                             std::to_string(specs->size()));
  }
  return nullptr;
}

TRITONSERVER_Error *initializeModel(TRITONBACKEND_Model *model,
                                    ModelState &state) {
  const char *name = nullptr;
  if (TRITONSERVER_Error *error = TRITONBACKEND_ModelName(model, &name))
    return error;
  state.name = name;
  uint64_t version = 0;
  if (TRITONSERVER_Error *error = TRITONBACKEND_ModelVersion(model, &version))
    return error;
  TRITONBACKEND_ArtifactType type;
  const char *location = nullptr;
  if (TRITONSERVER_Error *error =
          TRITONBACKEND_ModelRepository(model, &type, &location))
    return error;
  if (type != TRITONBACKEND_ARTIFACT_FILESYSTEM)
    return tritonError(TRITONSERVER_ERROR_UNSUPPORTED,
                       "model '" + state.name +
                           "': graphc reads artifacts from the filesystem "
                           "only");
  json config;
  if (TRITONSERVER_Error *error = readConfig(model, config))
    return error;
  std::string artifact =
      stringAt(config, {"parameters", kArtifactParameter, "string_value"});
  if (artifact.empty() || artifact.find('/') != std::string::npos ||
      artifact == "." || artifact == "..")
    return tritonError(TRITONSERVER_ERROR_INVALID_ARG,
                       "model '" + state.name +
                           "': config.pbtxt needs the parameter " +
                           kArtifactParameter +
                           " naming the artifact file in the version "
                           "directory (as `graphc triton` writes it)");
  state.artifactPath =
      std::string(location) + "/" + std::to_string(version) + "/" + artifact;
  // An int32 field: protobuf's JSON writes it as a number.
  const json &maxBatch =
      config.contains("max_batch_size") ? config["max_batch_size"] : json(0);
  state.maxBatchSize =
      maxBatch.is_number_integer() ? maxBatch.get<int64_t>() : 0;
  if (TRITONSERVER_Error *error = describeArtifact(state))
    return error;
  if (TRITONSERVER_Error *error = checkConfig(state, config))
    return error;
  logMessage(TRITONSERVER_LOG_INFO,
             "graphc: model '" + state.name + "' from " + state.artifactPath +
                 " (" + (state.target == GRAPHC_TARGET_CUDA ? "cuda" : "cpu") +
                 " target" +
                 (state.maxBatchSize > 0
                      ? ", batches of up to " +
                            std::to_string(state.maxBatchSize) + " rows"
                      : "") +
                 ")");
  return nullptr;
}

/// The artifact loaded for `device` (-1: the cpu), loaded on first use.
TRITONSERVER_Error *modelFor(ModelState &state, int32_t device,
                             graphc_model *&out) {
  std::lock_guard<std::mutex> lock(state.mutex);
  if (auto it = state.models.find(device); it != state.models.end()) {
    out = it->second;
    return nullptr;
  }
  graphc_model_options options;
  graphc_model_options_init(&options);
  options.device_ordinal = device < 0 ? 0 : device;
  graphc_model *model = nullptr;
  if (graphc_status status =
          graphc_model_load(state.artifactPath.c_str(), &options, &model))
    return tritonError(status);
  state.models[device] = model;
  out = model;
  return nullptr;
}

TRITONSERVER_Error *initializeInstance(TRITONBACKEND_ModelInstance *instance,
                                       InstanceState &state) {
  const char *name = nullptr;
  if (TRITONSERVER_Error *error =
          TRITONBACKEND_ModelInstanceName(instance, &name))
    return error;
  state.name = name;
  TRITONSERVER_InstanceGroupKind kind;
  if (TRITONSERVER_Error *error =
          TRITONBACKEND_ModelInstanceKind(instance, &kind))
    return error;
  if (TRITONSERVER_Error *error =
          TRITONBACKEND_ModelInstanceDeviceId(instance, &state.device))
    return error;
  ModelState &model = *state.model;
  state.cuda = model.target == GRAPHC_TARGET_CUDA;
  if (state.cuda && kind == TRITONSERVER_INSTANCEGROUPKIND_CPU)
    return tritonError(TRITONSERVER_ERROR_INVALID_ARG,
                       "instance '" + state.name + "': model '" + model.name +
                           "' was compiled for cuda and runs on KIND_GPU "
                           "instances, not KIND_CPU");
  if (!state.cuda && kind == TRITONSERVER_INSTANCEGROUPKIND_GPU)
    return tritonError(TRITONSERVER_ERROR_INVALID_ARG,
                       "instance '" + state.name + "': model '" + model.name +
                           "' was compiled for the cpu and runs on KIND_CPU "
                           "instances, not KIND_GPU (compile it with "
                           "--target cuda to serve it on a GPU)");
  if (state.cuda) {
    state.preferredMemory = TRITONSERVER_MEMORY_GPU;
    state.preferredMemoryId = state.device;
  }
  if (TRITONSERVER_Error *error =
          modelFor(model, state.cuda ? state.device : -1, state.loaded))
    return error;
  graphc_session_options options;
  graphc_session_options_init(&options);
  options.device_ordinal = state.cuda ? state.device : 0;
  if (graphc_status status =
          graphc_session_create(state.loaded, &options, &state.session))
    return tritonError(status);
  logMessage(TRITONSERVER_LOG_INFO,
             "graphc: instance '" + state.name + "' runs a session on " +
                 (state.cuda ? "cuda:" + std::to_string(state.device)
                             : std::string("the cpu")));
  return nullptr;
}

/// Gives `state` to the server to keep for `object` (a model or an
/// instance) with `setState`; it is freed here if the server refuses it.
template <typename State, typename Object>
TRITONSERVER_Error *handOverState(Object *object, std::unique_ptr<State> state,
                                  TRITONSERVER_Error *(*setState)(Object *,
                                                                  void *)) {
  if (TRITONSERVER_Error *error = setState(object, state.get()))
    return error;
  state.release();
  return nullptr;
}

/// Deletes the `State` that the server keeps for `object` (a model or an
/// instance), read with `getState`.
template <typename State, typename Object>
TRITONSERVER_Error *deleteState(Object *object,
                                TRITONSERVER_Error *(*getState)(Object *,
                                                                void **)) {
  void *state = nullptr;
  if (TRITONSERVER_Error *error = getState(object, &state))
    return error;
  delete static_cast<State *>(state);
  return nullptr;
}

} // namespace

extern "C" {

TRITONSERVER_Error *TRITONBACKEND_Initialize(TRITONBACKEND_Backend *backend) {
  (void)backend; // No state of its own: models and instances hold it.
  uint32_t major = 0, minor = 0;
  if (TRITONSERVER_Error *error = TRITONBACKEND_ApiVersion(&major, &minor))
    return error;
  if (major != GRAPHC_TRITONBACKEND_API_VERSION_MAJOR ||
      minor < GRAPHC_TRITONBACKEND_API_VERSION_MINOR)
    return tritonError(
        TRITONSERVER_ERROR_UNSUPPORTED,
        "the server's backend API is version " + std::to_string(major) + "." +
            std::to_string(minor) + "; libtriton_graphc.so needs " +
            std::to_string(GRAPHC_TRITONBACKEND_API_VERSION_MAJOR) + "." +
            std::to_string(GRAPHC_TRITONBACKEND_API_VERSION_MINOR) +
            " or a later minor version");
  logMessage(TRITONSERVER_LOG_INFO,
             "graphc: backend loaded (the server's backend API " +
                 std::to_string(major) + "." + std::to_string(minor) + ")");
  return nullptr;
}

TRITONSERVER_Error *TRITONBACKEND_ModelInitialize(TRITONBACKEND_Model *model) {
  auto state = std::make_unique<ModelState>();
  if (TRITONSERVER_Error *error = initializeModel(model, *state))
    return error;
  return handOverState(model, std::move(state), TRITONBACKEND_ModelSetState);
}

TRITONSERVER_Error *TRITONBACKEND_ModelFinalize(TRITONBACKEND_Model *model) {
  return deleteState<ModelState>(model, TRITONBACKEND_ModelState);
}

TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceInitialize(TRITONBACKEND_ModelInstance *instance) {
  TRITONBACKEND_Model *model = nullptr;
  if (TRITONSERVER_Error *error =
          TRITONBACKEND_ModelInstanceModel(instance, &model))
    return error;
  void *modelState = nullptr;
  if (TRITONSERVER_Error *error = TRITONBACKEND_ModelState(model, &modelState))
    return error;
  auto state = std::make_unique<InstanceState>();
  state->instance = instance;
  state->model = static_cast<ModelState *>(modelState);
  if (TRITONSERVER_Error *error = initializeInstance(instance, *state))
    return error;
  return handOverState(instance, std::move(state),
                       TRITONBACKEND_ModelInstanceSetState);
}

TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceFinalize(TRITONBACKEND_ModelInstance *instance) {
  return deleteState<InstanceState>(instance, TRITONBACKEND_ModelInstanceState);
}

} // extern "C"
