//===- Binding.h - validating a run's tensors and choosing plans -*- C++ -*-===//
#ifndef GRAPHC_RUNTIME_SRC_BINDING_H
#define GRAPHC_RUNTIME_SRC_BINDING_H

#include "graphc/runtime.h"
#include "lib/Artifact/Staging.h"

#include <optional>
#include <string>
#include <vector>

namespace graphc::rt {

/// Where a session's tensors must live.
struct DeviceRequirement {
  graphc_target target;
  int32_t ordinal; ///< cuda only.
  /// cuda: host memory (kDLCPU, kDLCUDAHost) is taken too, copied to and
  /// from the device by the run (graphc_session_run_batch).
  bool hostToo = false;
};

/// Maps caller input position -> model input index: identity when `names`
/// is NULL, otherwise by name. Checks the count, unknown and repeated names.
graphc_status orderInputs(const graphc_model &model, int32_t numInputs,
                          const char *const *names,
                          std::vector<int32_t> &modelIndex);

/// One run of a bucket plan. A run whose dims match a plan is one part that
/// needs no staging; otherwise the inputs are padded into staging buffers
/// of the plan's shapes and the outputs sliced back, and a dim past the
/// largest bucket is split into parts along it.
struct RunPart {
  int32_t plan = -1;
  /// Where this part starts along the split dim, and how many it covers.
  int64_t start = 0, size = 0;
};

struct RunShape {
  /// The parts in order; one when `empty`.
  std::vector<RunPart> parts;
  /// Every output has zero elements: nothing runs (parts.front() is the
  /// plan such a run would use).
  bool empty = false;
  /// Whether the caller's tensors go through staging (padding or split).
  bool staged = false;
  /// The actual size of each bucketed dim (desc.bucket_dims order).
  std::vector<int64_t> dimSizes;
  /// The bucketed dim runs are split along, or -1.
  int32_t splitDim = -1;
  /// The dims of every output the caller provides.
  std::vector<std::vector<int64_t>> outputDims;
};

/// Checks dims a caller gives for a tensor of the model: `rank` dims, each
/// non-negative and equal to `expectedDims`' where that is not dynamic (-1).
/// Every entry point that takes dims checks them here, so that they fail
/// alike; the status names `what` ("input 'x'").
graphc_status checkDims(const graphc_tensor_desc &expected,
                        const int64_t *expectedDims, int32_t rank,
                        const int64_t *dims, const std::string &what);

/// Maps inputs of `dims` (model order) onto the plans: an exact plan, else
/// the smallest bucket that covers every dim where padding is exact (split
/// into parts past the largest where that is exact too, at most
/// GRAPHC_MAX_SPLIT_PARTS of them). Checks the dims first (checkDims). The
/// status says which sizes the model accepts when no plan can run them.
graphc_status resolveRun(const graphc_model &model, const int32_t *ranks,
                         const int64_t *const *dims, RunShape &shape);

/// Where part `part` copies caller input `input` (of dims `callerDims`)
/// into a staging buffer of its plan's input shape.
BoxCopy partInputCopy(const graphc_model &model, const RunShape &shape,
                      const RunPart &part, int32_t input,
                      const int64_t *callerDims);

/// Where part `part` copies the results in a staging buffer of its plan's
/// output `output` to the caller's output; nullopt when the part writes
/// none of it (an output that does not carry the split dim is the same in
/// every part, and the first part writes it).
std::optional<BoxCopy> partOutputCopy(const graphc_model &model,
                                      const RunShape &shape,
                                      const RunPart &part, int32_t output);

/// Validates everything graphc_session_run receives: counts, names, dtypes,
/// shapes, devices, contiguity and data of inputs and outputs. On success
/// `ordered` holds the inputs in model order and `shape` how they run.
graphc_status bindRun(const graphc_model &model, DeviceRequirement device,
                      const DLTensor *inputs, int32_t numInputs,
                      const char *const *names, const DLTensor *outputs,
                      int32_t numOutputs,
                      std::vector<const DLTensor *> &ordered, RunShape &shape);

/// First byte of a validated tensor's data.
inline char *tensorBase(const DLTensor &tensor) {
  return static_cast<char *>(tensor.data) + tensor.byte_offset;
}

/// A validated tensor as one segment.
SegmentedTensor wholeTensor(const DLTensor &tensor);

/// The bucketed dim that is axis 0, and no other axis, of every input and
/// output, and along which the model mixes no positions (pad-safe and
/// splittable): requests may be concatenated along it. Otherwise a status
/// saying why the model has none (which input or output lacks it, or what
/// mixes its positions), for a batch of `numRequests` (0: asked for itself,
/// graphc_model_batch_dim).
graphc_status findBatchDim(const graphc_model &model, int32_t numRequests,
                           int32_t &dim);

/// A validated batched run: the requests' tensors concatenated along the
/// batch dim (model order), and how the whole runs.
struct BatchRun {
  std::vector<SegmentedTensor> inputs, outputs;
  RunShape shape;
};

/// Validates graphc_session_run_batch's arguments: each request by bindRun
/// (its status prefixed "request R: "), then, for more than one request,
/// the batch dim, that the requests differ in it only, the run of their
/// concatenation (resolveRun), and that no output shares memory with any
/// input or other output of any request.
graphc_status bindBatch(const graphc_model &model, DeviceRequirement device,
                        int32_t numRequests,
                        const DLTensor *const *requestInputs, int32_t numInputs,
                        const char *const *names,
                        const DLTensor *const *requestOutputs,
                        int32_t numOutputs, BatchRun &batch);

} // namespace graphc::rt

#endif
