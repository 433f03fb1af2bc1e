//===- FakeTritonServer.cpp - the server side of Triton's backend API -----===//
//
// Definitions of the TRITONSERVER_* and TRITONBACKEND_* functions that
// libtriton_graphc.so calls, over the objects of FakeTritonServer.h.
//
//===----------------------------------------------------------------------===//

#include "FakeTritonServer.h"

#include <algorithm>

using namespace faketriton;

namespace faketriton {

Server &server() {
  static Server instance;
  return instance;
}

std::vector<TRITONBACKEND_Response *>
Server::sentFor(TRITONBACKEND_Request *request) {
  std::vector<TRITONBACKEND_Response *> sent;
  for (auto &response : responses)
    if (response->request == request && response->sent)
      sent.push_back(response.get());
  return sent;
}

void Server::violation(const std::string &what) { violations.push_back(what); }

void Server::reset() {
  for (auto [pointer, device] : gpuAllocations)
    freeGpu(pointer, device);
  gpuAllocations.clear();
  responses.clear();
  log.clear();
  violations.clear();
  outputMemory = OutputMemory::Preferred;
  gpuOutputDevice = 0;
  apiMajor = 1;
  apiMinor = 19;
}

std::string takeError(TRITONSERVER_Error *error) {
  if (!error)
    return "";
  std::string message = TRITONSERVER_ErrorMessage(error);
  TRITONSERVER_ErrorDelete(error);
  return message;
}

} // namespace faketriton

namespace {

TRITONSERVER_Error *fail(TRITONSERVER_Error_Code code,
                         const std::string &what) {
  return TRITONSERVER_ErrorNew(code, what.c_str());
}

/// A violation of the API's contract: recorded, and answered with an error.
TRITONSERVER_Error *misuse(const std::string &what) {
  server().violation(what);
  return fail(TRITONSERVER_ERROR_INTERNAL, "fake server: " + what);
}

TRITONSERVER_Error *checkLive(TRITONBACKEND_Request *request,
                              const char *function) {
  if (!request)
    return misuse(std::string(function) + " on a null request");
  if (request->releases)
    return misuse(std::string(function) + " on request '" + request->id +
                  "' after its release");
  return nullptr;
}

TRITONSERVER_Error *checkUnsent(TRITONBACKEND_Response *response,
                                const char *function) {
  if (!response)
    return misuse(std::string(function) + " on a null response");
  if (response->sent || response->deleted)
    return misuse(std::string(function) + " on a response already " +
                  (response->sent ? "sent" : "deleted"));
  return nullptr;
}

uint64_t dtypeSize(TRITONSERVER_DataType dtype) {
  switch (dtype) {
  case TRITONSERVER_TYPE_BOOL:
  case TRITONSERVER_TYPE_UINT8:
  case TRITONSERVER_TYPE_INT8:
    return 1;
  case TRITONSERVER_TYPE_UINT16:
  case TRITONSERVER_TYPE_INT16:
  case TRITONSERVER_TYPE_FP16:
  case TRITONSERVER_TYPE_BF16:
    return 2;
  case TRITONSERVER_TYPE_UINT32:
  case TRITONSERVER_TYPE_INT32:
  case TRITONSERVER_TYPE_FP32:
    return 4;
  case TRITONSERVER_TYPE_UINT64:
  case TRITONSERVER_TYPE_INT64:
  case TRITONSERVER_TYPE_FP64:
    return 8;
  default:
    return 0;
  }
}

} // namespace

extern "C" {

//===- Errors, messages, logging ------------------------------------------===//

TRITONSERVER_Error *TRITONSERVER_ErrorNew(TRITONSERVER_Error_Code code,
                                          const char *msg) {
  ++server().liveErrors;
  return new TRITONSERVER_Error{code, msg ? msg : ""};
}

void TRITONSERVER_ErrorDelete(TRITONSERVER_Error *error) {
  if (!error)
    return;
  --server().liveErrors;
  delete error;
}

TRITONSERVER_Error_Code TRITONSERVER_ErrorCode(TRITONSERVER_Error *error) {
  return error->code;
}

const char *TRITONSERVER_ErrorMessage(TRITONSERVER_Error *error) {
  return error->message.c_str();
}

TRITONSERVER_Error *
TRITONSERVER_MessageSerializeToJson(TRITONSERVER_Message *message,
                                    const char **base, size_t *byte_size) {
  *base = message->json.data();
  *byte_size = message->json.size();
  return nullptr;
}

TRITONSERVER_Error *TRITONSERVER_MessageDelete(TRITONSERVER_Message *message) {
  if (message)
    --server().liveMessages;
  delete message;
  return nullptr;
}

bool TRITONSERVER_LogIsEnabled(TRITONSERVER_LogLevel) { return true; }

TRITONSERVER_Error *TRITONSERVER_LogMessage(TRITONSERVER_LogLevel level,
                                            const char *, int,
                                            const char *msg) {
  server().log.push_back({level, msg});
  return nullptr;
}

//===- Backend, model, instance -------------------------------------------===//

TRITONSERVER_Error *TRITONBACKEND_ApiVersion(uint32_t *major, uint32_t *minor) {
  *major = server().apiMajor;
  *minor = server().apiMinor;
  return nullptr;
}

TRITONSERVER_Error *TRITONBACKEND_BackendName(TRITONBACKEND_Backend *backend,
                                              const char **name) {
  *name = backend->name.c_str();
  return nullptr;
}

TRITONSERVER_Error *TRITONBACKEND_ModelName(TRITONBACKEND_Model *model,
                                            const char **name) {
  *name = model->name.c_str();
  return nullptr;
}

TRITONSERVER_Error *TRITONBACKEND_ModelVersion(TRITONBACKEND_Model *model,
                                               uint64_t *version) {
  *version = model->version;
  return nullptr;
}

TRITONSERVER_Error *
TRITONBACKEND_ModelRepository(TRITONBACKEND_Model *model,
                              TRITONBACKEND_ArtifactType *artifact_type,
                              const char **location) {
  *artifact_type = TRITONBACKEND_ARTIFACT_FILESYSTEM;
  *location = model->repository.c_str();
  return nullptr;
}

TRITONSERVER_Error *TRITONBACKEND_ModelConfig(TRITONBACKEND_Model *model,
                                              uint32_t config_version,
                                              TRITONSERVER_Message **config) {
  if (config_version != 1)
    return fail(TRITONSERVER_ERROR_UNSUPPORTED,
                "config version " + std::to_string(config_version));
  ++server().liveMessages;
  *config = new TRITONSERVER_Message{model->config};
  return nullptr;
}

TRITONSERVER_Error *TRITONBACKEND_ModelState(TRITONBACKEND_Model *model,
                                             void **state) {
  *state = model->state;
  return nullptr;
}

TRITONSERVER_Error *TRITONBACKEND_ModelSetState(TRITONBACKEND_Model *model,
                                                void *state) {
  model->state = state;
  return nullptr;
}

TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceName(TRITONBACKEND_ModelInstance *instance,
                                const char **name) {
  *name = instance->name.c_str();
  return nullptr;
}

TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceKind(TRITONBACKEND_ModelInstance *instance,
                                TRITONSERVER_InstanceGroupKind *kind) {
  *kind = instance->kind;
  return nullptr;
}

TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceDeviceId(TRITONBACKEND_ModelInstance *instance,
                                    int32_t *device_id) {
  *device_id = instance->deviceId;
  return nullptr;
}

TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceModel(TRITONBACKEND_ModelInstance *instance,
                                 TRITONBACKEND_Model **model) {
  *model = instance->model;
  return nullptr;
}

TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceState(TRITONBACKEND_ModelInstance *instance,
                                 void **state) {
  *state = instance->state;
  return nullptr;
}

TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceSetState(TRITONBACKEND_ModelInstance *instance,
                                    void *state) {
  instance->state = state;
  return nullptr;
}

TRITONSERVER_Error *TRITONBACKEND_ModelInstanceReportStatistics(
    TRITONBACKEND_ModelInstance *instance, TRITONBACKEND_Request *request,
    bool success, uint64_t exec_start_ns, uint64_t compute_start_ns,
    uint64_t compute_end_ns, uint64_t exec_end_ns) {
  if (TRITONSERVER_Error *error =
          checkLive(request, "TRITONBACKEND_ModelInstanceReportStatistics"))
    return error;
  instance->requestStatistics.push_back({request, success, exec_start_ns,
                                         compute_start_ns, compute_end_ns,
                                         exec_end_ns});
  return nullptr;
}

TRITONSERVER_Error *TRITONBACKEND_ModelInstanceReportBatchStatistics(
    TRITONBACKEND_ModelInstance *instance, uint64_t batch_size,
    uint64_t exec_start_ns, uint64_t compute_start_ns, uint64_t compute_end_ns,
    uint64_t exec_end_ns) {
  instance->batchStatistics.push_back({batch_size, exec_start_ns,
                                       compute_start_ns, compute_end_ns,
                                       exec_end_ns});
  return nullptr;
}

//===- Requests and their inputs ------------------------------------------===//

TRITONSERVER_Error *TRITONBACKEND_RequestId(TRITONBACKEND_Request *request,
                                            const char **id) {
  if (TRITONSERVER_Error *error = checkLive(request, "TRITONBACKEND_RequestId"))
    return error;
  *id = request->id.c_str();
  return nullptr;
}

TRITONSERVER_Error *
TRITONBACKEND_RequestInputCount(TRITONBACKEND_Request *request,
                                uint32_t *count) {
  if (TRITONSERVER_Error *error =
          checkLive(request, "TRITONBACKEND_RequestInputCount"))
    return error;
  *count = static_cast<uint32_t>(request->inputs.size());
  return nullptr;
}

TRITONSERVER_Error *TRITONBACKEND_RequestInput(TRITONBACKEND_Request *request,
                                               const char *name,
                                               TRITONBACKEND_Input **input) {
  if (TRITONSERVER_Error *error =
          checkLive(request, "TRITONBACKEND_RequestInput"))
    return error;
  for (auto &candidate : request->inputs)
    if (candidate->name == name) {
      *input = candidate.get();
      return nullptr;
    }
  return fail(TRITONSERVER_ERROR_NOT_FOUND,
              std::string("unknown request input '") + name + "'");
}

TRITONSERVER_Error *
TRITONBACKEND_RequestOutputCount(TRITONBACKEND_Request *request,
                                 uint32_t *count) {
  if (TRITONSERVER_Error *error =
          checkLive(request, "TRITONBACKEND_RequestOutputCount"))
    return error;
  *count = static_cast<uint32_t>(request->requestedOutputs.size());
  return nullptr;
}

TRITONSERVER_Error *
TRITONBACKEND_RequestOutputName(TRITONBACKEND_Request *request, uint32_t index,
                                const char **output_name) {
  if (TRITONSERVER_Error *error =
          checkLive(request, "TRITONBACKEND_RequestOutputName"))
    return error;
  if (index >= request->requestedOutputs.size())
    return fail(TRITONSERVER_ERROR_INVALID_ARG,
                "out of bounds index " + std::to_string(index));
  *output_name = request->requestedOutputs[index].c_str();
  return nullptr;
}

TRITONSERVER_Error *TRITONBACKEND_RequestRelease(TRITONBACKEND_Request *request,
                                                 uint32_t release_flags) {
  if (TRITONSERVER_Error *error =
          checkLive(request, "TRITONBACKEND_RequestRelease"))
    return error;
  ++request->releases;
  request->releaseFlags = release_flags;
  return nullptr;
}

// Triton's inputs belong to their request, so a released request's inputs
// are gone; the fake cannot see that from an input alone.
TRITONSERVER_Error *
TRITONBACKEND_InputProperties(TRITONBACKEND_Input *input, const char **name,
                              TRITONSERVER_DataType *datatype,
                              const int64_t **shape, uint32_t *dims_count,
                              uint64_t *byte_size, uint32_t *buffer_count) {
  // Each out-parameter may be null, as in Triton.
  if (name)
    *name = input->name.c_str();
  if (datatype)
    *datatype = input->datatype;
  if (shape)
    *shape = input->shape.data();
  if (dims_count)
    *dims_count = static_cast<uint32_t>(input->shape.size());
  if (byte_size) {
    uint64_t total = 0;
    for (const FakeBuffer &buffer : input->buffers)
      total += buffer.size;
    *byte_size = total;
  }
  if (buffer_count)
    *buffer_count = static_cast<uint32_t>(input->buffers.size());
  return nullptr;
}

TRITONSERVER_Error *
TRITONBACKEND_InputBuffer(TRITONBACKEND_Input *input, uint32_t index,
                          const void **buffer, uint64_t *buffer_byte_size,
                          TRITONSERVER_MemoryType *memory_type,
                          int64_t *memory_type_id) {
  if (index >= input->buffers.size())
    return fail(TRITONSERVER_ERROR_INVALID_ARG, "input '" + input->name +
                                                    "' has no buffer " +
                                                    std::to_string(index));
  const FakeBuffer &held = input->buffers[index];
  *buffer = held.data;
  *buffer_byte_size = held.size;
  *memory_type = held.memoryType;
  *memory_type_id = held.memoryTypeId;
  return nullptr;
}

//===- Responses and their outputs ----------------------------------------===//

TRITONSERVER_Error *TRITONBACKEND_ResponseNew(TRITONBACKEND_Response **response,
                                              TRITONBACKEND_Request *request) {
  if (TRITONSERVER_Error *error =
          checkLive(request, "TRITONBACKEND_ResponseNew"))
    return error;
  ++request->responsesCreated;
  auto made = std::make_unique<TRITONBACKEND_Response>();
  made->request = request;
  *response = made.get();
  server().responses.push_back(std::move(made));
  return nullptr;
}

TRITONSERVER_Error *
TRITONBACKEND_ResponseDelete(TRITONBACKEND_Response *response) {
  if (TRITONSERVER_Error *error =
          checkUnsent(response, "TRITONBACKEND_ResponseDelete"))
    return error;
  response->deleted = true;
  return nullptr;
}

TRITONSERVER_Error *
TRITONBACKEND_ResponseOutput(TRITONBACKEND_Response *response,
                             TRITONBACKEND_Output **output, const char *name,
                             TRITONSERVER_DataType datatype,
                             const int64_t *shape, uint32_t dims_count) {
  if (TRITONSERVER_Error *error =
          checkUnsent(response, "TRITONBACKEND_ResponseOutput"))
    return error;
  for (auto &existing : response->outputs)
    if (existing->name == name)
      return misuse(std::string("output '") + name + "' created twice");
  auto made = std::make_unique<TRITONBACKEND_Output>();
  made->name = name;
  made->datatype = datatype;
  made->shape.assign(shape, shape + dims_count);
  *output = made.get();
  response->outputs.push_back(std::move(made));
  return nullptr;
}

TRITONSERVER_Error *TRITONBACKEND_OutputBuffer(
    TRITONBACKEND_Output *output, void **buffer, uint64_t buffer_byte_size,
    TRITONSERVER_MemoryType *memory_type, int64_t *memory_type_id) {
  Server &fake = server();
  if (output->buffer)
    return misuse("output '" + output->name + "' given a buffer twice");
  uint64_t expected = dtypeSize(output->datatype);
  for (int64_t d : output->shape)
    expected *= static_cast<uint64_t>(d);
  if (buffer_byte_size != expected)
    return misuse("output '" + output->name + "' asks for " +
                  std::to_string(buffer_byte_size) +
                  " bytes, but its shape and dtype make " +
                  std::to_string(expected));
  output->preferredType = *memory_type;
  output->preferredTypeId = *memory_type_id;
  bool gpu = fake.outputMemory == OutputMemory::Gpu ||
             (fake.outputMemory == OutputMemory::Preferred &&
              *memory_type == TRITONSERVER_MEMORY_GPU);
  output->byteSize = buffer_byte_size;
  if (gpu) {
    if (!fake.allocateGpu)
      return fail(TRITONSERVER_ERROR_UNAVAILABLE, "no GPU memory here");
    output->memoryType = TRITONSERVER_MEMORY_GPU;
    output->memoryTypeId = fake.outputMemory == OutputMemory::Gpu
                               ? fake.gpuOutputDevice
                               : *memory_type_id;
    // At least one byte: a zero-byte output still gets an address.
    output->buffer = fake.allocateGpu(std::max<uint64_t>(buffer_byte_size, 1),
                                      output->memoryTypeId);
    fake.gpuAllocations.push_back({output->buffer, output->memoryTypeId});
  } else {
    output->memoryType = TRITONSERVER_MEMORY_CPU;
    output->memoryTypeId = 0;
    output->host.resize(std::max<uint64_t>(buffer_byte_size, 1));
    output->buffer = output->host.data();
  }
  *buffer = output->buffer;
  *memory_type = output->memoryType;
  *memory_type_id = output->memoryTypeId;
  return nullptr;
}

TRITONSERVER_Error *TRITONBACKEND_ResponseSend(TRITONBACKEND_Response *response,
                                               uint32_t send_flags,
                                               TRITONSERVER_Error *error) {
  if (TRITONSERVER_Error *refused =
          checkUnsent(response, "TRITONBACKEND_ResponseSend"))
    return refused;
  if (send_flags != TRITONSERVER_RESPONSE_COMPLETE_FINAL)
    server().violation("a response sent with flags " +
                       std::to_string(send_flags));
  response->sent = true;
  response->sendFlags = send_flags;
  // Triton copies the error; the backend still owns (and deletes) it.
  if (error)
    response->error = std::make_unique<TRITONSERVER_Error>(*error);
  return nullptr;
}

} // extern "C"
