//===- FakeTritonServer.h - Triton's side of the backend API ---*- C++ -*-===//
//
// triton-backend-test links libtriton_graphc.so's sources into a test
// binary that defines every TRITONSERVER_* and TRITONBACKEND_* function
// runtime/triton/TritonApi.h declares for the server side, here: the test
// plays Triton, calling the backend's entry points as the server does, and
// looks at what the backend did through the objects below (the opaque
// handles' definitions).
//
// The fake is strict where Triton's contract is: a request used after its
// release, a response used after it was sent, a second release, a send
// without the FINAL flag, an output asked for twice or a buffer asked for
// twice are recorded as violations (and answered with an error), which
// every test checks are none. Errors and messages are counted, so that one
// the backend leaks shows.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_TEST_TRITON_FAKETRITONSERVER_H
#define GRAPHC_TEST_TRITON_FAKETRITONSERVER_H

#include "runtime/triton/TritonApi.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

struct TRITONSERVER_Error {
  TRITONSERVER_Error_Code code;
  std::string message;
};

struct TRITONSERVER_Message {
  std::string json;
};

struct TRITONBACKEND_Backend {
  std::string name = "graphc";
};

struct TRITONBACKEND_Model {
  std::string name;
  uint64_t version = 1;
  std::string repository; ///< the model's directory
  std::string config;     ///< config.pbtxt in Triton's JSON form
  void *state = nullptr;
};

struct TRITONBACKEND_ModelInstance {
  std::string name;
  TRITONSERVER_InstanceGroupKind kind = TRITONSERVER_INSTANCEGROUPKIND_CPU;
  int32_t deviceId = 0;
  TRITONBACKEND_Model *model = nullptr;
  void *state = nullptr;

  struct RequestStatistics {
    TRITONBACKEND_Request *request;
    bool success;
    uint64_t execStart, computeStart, computeEnd, execEnd;
  };
  struct BatchStatistics {
    uint64_t batchSize;
    uint64_t execStart, computeStart, computeEnd, execEnd;
  };
  std::vector<RequestStatistics> requestStatistics;
  std::vector<BatchStatistics> batchStatistics;
};

/// One buffer of an input, where the test put it.
struct FakeBuffer {
  const void *data = nullptr;
  uint64_t size = 0;
  TRITONSERVER_MemoryType memoryType = TRITONSERVER_MEMORY_CPU;
  int64_t memoryTypeId = 0;
};

struct TRITONBACKEND_Input {
  std::string name;
  TRITONSERVER_DataType datatype = TRITONSERVER_TYPE_FP32;
  std::vector<int64_t> shape;
  std::vector<FakeBuffer> buffers;
};

struct TRITONBACKEND_Request {
  std::string id;
  std::vector<std::unique_ptr<TRITONBACKEND_Input>> inputs;
  std::vector<std::string> requestedOutputs;
  int releases = 0;
  uint32_t releaseFlags = 0;
  int responsesCreated = 0;
};

struct TRITONBACKEND_Output {
  std::string name;
  TRITONSERVER_DataType datatype = TRITONSERVER_TYPE_INVALID;
  std::vector<int64_t> shape;
  /// Set by TRITONBACKEND_OutputBuffer.
  void *buffer = nullptr;
  uint64_t byteSize = 0;
  TRITONSERVER_MemoryType memoryType = TRITONSERVER_MEMORY_CPU;
  int64_t memoryTypeId = 0;
  /// What the backend asked for.
  TRITONSERVER_MemoryType preferredType = TRITONSERVER_MEMORY_CPU;
  int64_t preferredTypeId = 0;
  std::vector<unsigned char> host; ///< the buffer, when in host memory
};

struct TRITONBACKEND_Response {
  TRITONBACKEND_Request *request = nullptr;
  std::vector<std::unique_ptr<TRITONBACKEND_Output>> outputs;
  bool sent = false, deleted = false;
  uint32_t sendFlags = 0;
  /// A copy of the error it was sent with, or none.
  std::unique_ptr<TRITONSERVER_Error> error;
};

namespace faketriton {

struct LogLine {
  TRITONSERVER_LogLevel level;
  std::string message;
};

/// Where TRITONBACKEND_OutputBuffer puts an output.
enum class OutputMemory {
  Preferred, ///< where the backend asked (GPU: on the device it named)
  Host,      ///< host memory, whatever the backend asked
  Gpu,       ///< the memory of GPU `gpuOutputDevice`, whatever it asked
};

/// The server's state; tests reset it.
struct Server {
  uint32_t apiMajor = 1, apiMinor = 19;
  std::vector<LogLine> log;
  std::vector<std::string> violations;
  /// Every response the backend created, in order (sent or not).
  std::vector<std::unique_ptr<TRITONBACKEND_Response>> responses;

  OutputMemory outputMemory = OutputMemory::Preferred;
  int64_t gpuOutputDevice = 0;
  /// Allocates and frees memory of a GPU for outputs in GPU memory (set by
  /// the tests that use it).
  std::function<void *(uint64_t bytes, int64_t device)> allocateGpu;
  std::function<void(void *pointer, int64_t device)> freeGpu;
  std::vector<std::pair<void *, int64_t>> gpuAllocations;

  int64_t liveErrors = 0, liveMessages = 0;

  /// The responses sent for `request`.
  std::vector<TRITONBACKEND_Response *> sentFor(TRITONBACKEND_Request *request);
  void violation(const std::string &what);
  /// Frees the GPU outputs and forgets responses, log and violations.
  void reset();
};

Server &server();

/// Takes an error a backend entry point returned: its message ("" for
/// none), and the error deleted.
std::string takeError(TRITONSERVER_Error *error);

} // namespace faketriton

#endif
