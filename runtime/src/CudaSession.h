//===- CudaSession.h - a session's stream, arena and CUDA graphs -*- C++
//-*-===//
//
// Inputs and outputs are bound through session-owned staging buffers: a
// plan's CUDA graph is captured once against the staging addresses, and each
// run copies the caller's inputs in before the graph launch and the outputs
// out after it. Caller buffers can change between runs without re-capture
// at the cost of one device-to-device copy per tensor.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_CUDASESSION_H
#define GRAPHC_RUNTIME_SRC_CUDASESSION_H

#include "graphc/runtime.h"
#include "runtime/src/CudaModel.h"

#include <memory>
#include <vector>

namespace graphc::rt {

class CudaSession {
public:
  /// Creates the stream and the device block (arena + staging); captures
  /// every plan when `flags` asks for eager capture.
  static graphc_status create(const graphc_model &model, CudaDevice &device,
                              uint32_t flags,
                              std::unique_ptr<CudaSession> &out);
  ~CudaSession();

  /// Runs `plan` on validated tensors and waits for it.
  graphc_status run(int32_t plan, const std::vector<const DLTensor *> &inputs,
                    const DLTensor *outputs);

  /// Device memory for callers without CUDA; see graphc_session_upload.
  graphc_status allocate(uint64_t bytes, void *&out);
  void free(void *data);
  graphc_status upload(void *dst, const void *src, uint64_t bytes);
  graphc_status download(void *dst, const void *src, uint64_t bytes);

private:
  CudaSession(const graphc_model &model, CudaDevice &device, bool useGraphs);

  /// Enqueues `plan`'s steps on the stream with the given tensor addresses.
  graphc_status enqueue(const graphc_plan_desc &plan,
                        const std::vector<cu::DevicePtr> &inputs,
                        const std::vector<cu::DevicePtr> &outputs);
  /// Captures `plan` against the staging buffers into graphs[plan].
  graphc_status capture(int32_t plan);
  graphc_status error(const std::string &what, cu::Result result) const;

  const graphc_model &model;
  const cu::Driver &drv;
  CudaDevice &device;
  bool useGraphs;
  cu::Stream stream = nullptr;
  /// One allocation: the arena, then one staging slot per input and output.
  cu::DevicePtr block = 0;
  cu::DevicePtr arena = 0;
  std::vector<cu::DevicePtr> inputStaging, outputStaging;
  std::vector<cu::GraphExec> graphs; ///< Per plan, null until captured.
  /// Launch scratch: argument values and the pointers cuLaunchKernel reads.
  std::vector<cu::DevicePtr> argValues;
  std::vector<void *> argPointers;
};

} // namespace graphc::rt

#endif
