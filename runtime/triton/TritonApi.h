//===- TritonApi.h - the part of Triton's backend API graphc uses -*- C++
//-*-===//
//
// Triton Inference Server loads a backend library and calls its
// TRITONBACKEND_* entry points; the backend calls back into the server
// through TRITONBACKEND_* and TRITONSERVER_* functions that the server
// process exports. Triton's headers are not packaged anywhere graphc's build
// can reach, so this file declares the subset libtriton_graphc.so uses, from
// the documented C ABI of the backend API version below (tritonbackend.h and
// tritonserver.h of Triton's core): opaque handles, enums with their values,
// and function signatures. Nothing here is defined by graphc; the server
// resolves every call when it dlopens the backend.
//
// The enums are declared with the underlying type Triton's compilers give a
// C enum (int): they cross the ABI by value and through pointers.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_TRITON_TRITONAPI_H
#define GRAPHC_RUNTIME_TRITON_TRITONAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// The backend API version this subset follows. TRITONBACKEND_Initialize
// refuses a server whose major version differs or whose minor version is
// older: every function below exists in 1.19 with this signature.
#define GRAPHC_TRITONBACKEND_API_VERSION_MAJOR 1
#define GRAPHC_TRITONBACKEND_API_VERSION_MINOR 19

// Entry points a backend defines must be visible in the library.
#define GRAPHC_TRITON_EXPORT __attribute__((visibility("default")))

struct TRITONSERVER_Error;
struct TRITONSERVER_Message;
struct TRITONBACKEND_Backend;
struct TRITONBACKEND_Model;
struct TRITONBACKEND_ModelInstance;
struct TRITONBACKEND_Request;
struct TRITONBACKEND_Response;
struct TRITONBACKEND_Input;
struct TRITONBACKEND_Output;

typedef enum TRITONSERVER_datatype_enum {
  TRITONSERVER_TYPE_INVALID = 0,
  TRITONSERVER_TYPE_BOOL = 1,
  TRITONSERVER_TYPE_UINT8 = 2,
  TRITONSERVER_TYPE_UINT16 = 3,
  TRITONSERVER_TYPE_UINT32 = 4,
  TRITONSERVER_TYPE_UINT64 = 5,
  TRITONSERVER_TYPE_INT8 = 6,
  TRITONSERVER_TYPE_INT16 = 7,
  TRITONSERVER_TYPE_INT32 = 8,
  TRITONSERVER_TYPE_INT64 = 9,
  TRITONSERVER_TYPE_FP16 = 10,
  TRITONSERVER_TYPE_FP32 = 11,
  TRITONSERVER_TYPE_FP64 = 12,
  TRITONSERVER_TYPE_BYTES = 13,
  TRITONSERVER_TYPE_BF16 = 14,
} TRITONSERVER_DataType;

typedef enum TRITONSERVER_memorytype_enum {
  TRITONSERVER_MEMORY_CPU = 0,
  TRITONSERVER_MEMORY_CPU_PINNED = 1,
  TRITONSERVER_MEMORY_GPU = 2,
} TRITONSERVER_MemoryType;

typedef enum TRITONSERVER_instancegroupkind_enum {
  TRITONSERVER_INSTANCEGROUPKIND_AUTO = 0,
  TRITONSERVER_INSTANCEGROUPKIND_CPU = 1,
  TRITONSERVER_INSTANCEGROUPKIND_GPU = 2,
  TRITONSERVER_INSTANCEGROUPKIND_MODEL = 3,
} TRITONSERVER_InstanceGroupKind;

typedef enum TRITONSERVER_loglevel_enum {
  TRITONSERVER_LOG_INFO = 0,
  TRITONSERVER_LOG_WARN = 1,
  TRITONSERVER_LOG_ERROR = 2,
  TRITONSERVER_LOG_VERBOSE = 3,
} TRITONSERVER_LogLevel;

typedef enum TRITONSERVER_errorcode_enum {
  TRITONSERVER_ERROR_UNKNOWN = 0,
  TRITONSERVER_ERROR_INTERNAL = 1,
  TRITONSERVER_ERROR_NOT_FOUND = 2,
  TRITONSERVER_ERROR_INVALID_ARG = 3,
  TRITONSERVER_ERROR_UNAVAILABLE = 4,
  TRITONSERVER_ERROR_UNSUPPORTED = 5,
  TRITONSERVER_ERROR_ALREADY_EXISTS = 6,
  TRITONSERVER_ERROR_CANCELLED = 7,
} TRITONSERVER_Error_Code;

typedef enum TRITONBACKEND_artifacttype_enum {
  TRITONBACKEND_ARTIFACT_FILESYSTEM = 0,
} TRITONBACKEND_ArtifactType;

// TRITONBACKEND_RequestRelease's flags and TRITONBACKEND_ResponseSend's.
enum { TRITONSERVER_REQUEST_RELEASE_ALL = 1 };
enum { TRITONSERVER_RESPONSE_COMPLETE_FINAL = 1 };

//===- Server: errors, messages, logging
//-----------------------------------===//

TRITONSERVER_Error *TRITONSERVER_ErrorNew(TRITONSERVER_Error_Code code,
                                          const char *msg);
void TRITONSERVER_ErrorDelete(TRITONSERVER_Error *error);
TRITONSERVER_Error_Code TRITONSERVER_ErrorCode(TRITONSERVER_Error *error);
const char *TRITONSERVER_ErrorMessage(TRITONSERVER_Error *error);

TRITONSERVER_Error *
TRITONSERVER_MessageSerializeToJson(TRITONSERVER_Message *message,
                                    const char **base, size_t *byte_size);
TRITONSERVER_Error *TRITONSERVER_MessageDelete(TRITONSERVER_Message *message);

bool TRITONSERVER_LogIsEnabled(TRITONSERVER_LogLevel level);
TRITONSERVER_Error *TRITONSERVER_LogMessage(TRITONSERVER_LogLevel level,
                                            const char *filename, int line,
                                            const char *msg);

//===- Backend, model, instance
//--------------------------------------------===//

TRITONSERVER_Error *TRITONBACKEND_ApiVersion(uint32_t *major, uint32_t *minor);
TRITONSERVER_Error *TRITONBACKEND_BackendName(TRITONBACKEND_Backend *backend,
                                              const char **name);

TRITONSERVER_Error *TRITONBACKEND_ModelName(TRITONBACKEND_Model *model,
                                            const char **name);
TRITONSERVER_Error *TRITONBACKEND_ModelVersion(TRITONBACKEND_Model *model,
                                               uint64_t *version);
TRITONSERVER_Error *
TRITONBACKEND_ModelRepository(TRITONBACKEND_Model *model,
                              TRITONBACKEND_ArtifactType *artifact_type,
                              const char **location);
// The caller owns the message (TRITONSERVER_MessageDelete).
TRITONSERVER_Error *TRITONBACKEND_ModelConfig(TRITONBACKEND_Model *model,
                                              uint32_t config_version,
                                              TRITONSERVER_Message **config);
TRITONSERVER_Error *TRITONBACKEND_ModelState(TRITONBACKEND_Model *model,
                                             void **state);
TRITONSERVER_Error *TRITONBACKEND_ModelSetState(TRITONBACKEND_Model *model,
                                                void *state);

TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceName(TRITONBACKEND_ModelInstance *instance,
                                const char **name);
TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceKind(TRITONBACKEND_ModelInstance *instance,
                                TRITONSERVER_InstanceGroupKind *kind);
TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceDeviceId(TRITONBACKEND_ModelInstance *instance,
                                    int32_t *device_id);
TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceModel(TRITONBACKEND_ModelInstance *instance,
                                 TRITONBACKEND_Model **model);
TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceState(TRITONBACKEND_ModelInstance *instance,
                                 void **state);
TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceSetState(TRITONBACKEND_ModelInstance *instance,
                                    void *state);
// Timestamps in nanoseconds of std::chrono::steady_clock.
TRITONSERVER_Error *TRITONBACKEND_ModelInstanceReportStatistics(
    TRITONBACKEND_ModelInstance *instance, TRITONBACKEND_Request *request,
    bool success, uint64_t exec_start_ns, uint64_t compute_start_ns,
    uint64_t compute_end_ns, uint64_t exec_end_ns);
TRITONSERVER_Error *TRITONBACKEND_ModelInstanceReportBatchStatistics(
    TRITONBACKEND_ModelInstance *instance, uint64_t batch_size,
    uint64_t exec_start_ns, uint64_t compute_start_ns, uint64_t compute_end_ns,
    uint64_t exec_end_ns);

//===- Requests and their inputs
//-------------------------------------------===//

TRITONSERVER_Error *TRITONBACKEND_RequestId(TRITONBACKEND_Request *request,
                                            const char **id);
TRITONSERVER_Error *
TRITONBACKEND_RequestInputCount(TRITONBACKEND_Request *request,
                                uint32_t *count);
TRITONSERVER_Error *TRITONBACKEND_RequestInput(TRITONBACKEND_Request *request,
                                               const char *name,
                                               TRITONBACKEND_Input **input);
TRITONSERVER_Error *
TRITONBACKEND_RequestOutputCount(TRITONBACKEND_Request *request,
                                 uint32_t *count);
TRITONSERVER_Error *
TRITONBACKEND_RequestOutputName(TRITONBACKEND_Request *request, uint32_t index,
                                const char **output_name);
TRITONSERVER_Error *TRITONBACKEND_RequestRelease(TRITONBACKEND_Request *request,
                                                 uint32_t release_flags);

TRITONSERVER_Error *
TRITONBACKEND_InputProperties(TRITONBACKEND_Input *input, const char **name,
                              TRITONSERVER_DataType *datatype,
                              const int64_t **shape, uint32_t *dims_count,
                              uint64_t *byte_size, uint32_t *buffer_count);
// memory_type and memory_type_id: in, what the backend prefers; out, where
// the buffer is (Triton does not copy to honour the preference).
TRITONSERVER_Error *
TRITONBACKEND_InputBuffer(TRITONBACKEND_Input *input, uint32_t index,
                          const void **buffer, uint64_t *buffer_byte_size,
                          TRITONSERVER_MemoryType *memory_type,
                          int64_t *memory_type_id);

//===- Responses and their outputs
//-----------------------------------------===//

TRITONSERVER_Error *TRITONBACKEND_ResponseNew(TRITONBACKEND_Response **response,
                                              TRITONBACKEND_Request *request);
TRITONSERVER_Error *
TRITONBACKEND_ResponseDelete(TRITONBACKEND_Response *response);
TRITONSERVER_Error *
TRITONBACKEND_ResponseOutput(TRITONBACKEND_Response *response,
                             TRITONBACKEND_Output **output, const char *name,
                             TRITONSERVER_DataType datatype,
                             const int64_t *shape, uint32_t dims_count);
// memory_type and memory_type_id as for TRITONBACKEND_InputBuffer.
TRITONSERVER_Error *TRITONBACKEND_OutputBuffer(
    TRITONBACKEND_Output *output, void **buffer, uint64_t buffer_byte_size,
    TRITONSERVER_MemoryType *memory_type, int64_t *memory_type_id);
// Takes the response; the error stays the caller's (Triton copies it).
TRITONSERVER_Error *TRITONBACKEND_ResponseSend(TRITONBACKEND_Response *response,
                                               uint32_t send_flags,
                                               TRITONSERVER_Error *error);

//===- What the backend defines
//--------------------------------------------===//

GRAPHC_TRITON_EXPORT TRITONSERVER_Error *
TRITONBACKEND_Initialize(TRITONBACKEND_Backend *backend);
GRAPHC_TRITON_EXPORT TRITONSERVER_Error *
TRITONBACKEND_ModelInitialize(TRITONBACKEND_Model *model);
GRAPHC_TRITON_EXPORT TRITONSERVER_Error *
TRITONBACKEND_ModelFinalize(TRITONBACKEND_Model *model);
GRAPHC_TRITON_EXPORT TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceInitialize(TRITONBACKEND_ModelInstance *instance);
GRAPHC_TRITON_EXPORT TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceFinalize(TRITONBACKEND_ModelInstance *instance);
GRAPHC_TRITON_EXPORT TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceExecute(TRITONBACKEND_ModelInstance *instance,
                                   TRITONBACKEND_Request **requests,
                                   uint32_t request_count);

#ifdef __cplusplus
}
#endif

#endif
