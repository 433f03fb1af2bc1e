//===- BackendState.h - what libtriton_graphc.so keeps per model -*- C++
//-*-===//
//
// A Triton model of backend "graphc" is one graphc artifact; each of its
// instances is one graphc session, on the cpu or on the instance's GPU.
// Triton serialises calls per instance (Execute never runs twice at once on
// one instance), which is the session's threading rule too.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_TRITON_BACKENDSTATE_H
#define GRAPHC_RUNTIME_TRITON_BACKENDSTATE_H

#include "graphc/runtime.h"
#include "runtime/triton/TritonApi.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace graphc::triton {

/// A model input or output as requests see it.
struct TensorSpec {
  std::string name;
  int32_t dtype = 0; ///< graphc's (ONNX numbering)
  TRITONSERVER_DataType serverDtype = TRITONSERVER_TYPE_INVALID;
  int32_t rank = 0;
  /// An output with data-dependent dims: its shape is known after the run
  /// (graphc_session_output_dims), which writes it at its bounds.
  bool dataDependent = false;
};

/// Per Triton model.
struct ModelState {
  ~ModelState();

  std::string name;
  std::string artifactPath;
  /// config.pbtxt's max_batch_size: > 0 when requests carry the batch dim
  /// (axis 0 of every input and output), which Triton batches along.
  int64_t maxBatchSize = 0;
  /// The artifact, loaded once per device its instances use (-1: cpu).
  /// Guarded by `mutex`: instances may be created concurrently.
  std::mutex mutex;
  std::map<int32_t, graphc_model *> models;
  graphc_target target = GRAPHC_TARGET_CPU;
  std::vector<TensorSpec> inputs, outputs;
  std::vector<const char *> inputNames; ///< for the runtime's calls
  /// Whether several requests can share one run (graphc_model_batch_dim),
  /// and why not.
  bool batchable = false;
  std::string noBatchDimReason;
};

/// Per Triton model instance.
struct InstanceState {
  ~InstanceState();

  TRITONBACKEND_ModelInstance *instance = nullptr;
  ModelState *model = nullptr;
  std::string name;
  graphc_model *loaded = nullptr; ///< owned by `model`
  graphc_session *session = nullptr;
  bool cuda = false;
  int32_t device = 0;
  /// Where the backend asks Triton to put inputs and outputs.
  TRITONSERVER_MemoryType preferredMemory = TRITONSERVER_MEMORY_CPU;
  int64_t preferredMemoryId = 0;
};

/// A Triton error for a graphc status (which it frees): the message is
/// graphc's, prefixed with "graphc: ", and the code the closest Triton has.
TRITONSERVER_Error *tritonError(graphc_status status);
TRITONSERVER_Error *tritonError(TRITONSERVER_Error_Code code,
                                const std::string &message);

/// Logs through the server's log (its level filter applies).
void logMessage(TRITONSERVER_LogLevel level, const std::string &message);

} // namespace graphc::triton

#endif
