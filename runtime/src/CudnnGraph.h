//===- CudnnGraph.h - building and planning cuDNN operation graphs -*- C++
//-*-===//
//
// What the library kernels on cuDNN's graph (backend) API share
// (CudnnConv, CudnnSdpa): a planning attempt that owns the descriptors it
// creates and records the first failing call, tensor and pointwise
// descriptors, the heuristic query and engine choice by rank (numerical
// notes, workspace, finalization), and a run's variant pack and execution.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_CUDNNGRAPH_H
#define GRAPHC_RUNTIME_SRC_CUDNNGRAPH_H

#include "graphc/runtime.h"
#include "runtime/src/Cudnn.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace graphc::rt::dnn {

/// One planning attempt: the descriptors it created (destroyed with it
/// unless adopted), the sequence's first failing call, and the plan.
class Attempt {
public:
  explicit Attempt(const Library &library) : library(library) {}
  ~Attempt();
  Attempt(const Attempt &) = delete;
  Attempt &operator=(const Attempt &) = delete;

  /// A new descriptor of `type`, or null once a call failed.
  Descriptor create(int type, const char *what);
  void set(Descriptor descriptor, int attribute, int type, int64_t count,
           const void *values, const char *what);
  /// Sets `values` whole as the attribute's array.
  template <typename T>
  void set(Descriptor descriptor, int attribute, int type,
           const std::vector<T> &values, const char *what) {
    set(descriptor, attribute, type, static_cast<int64_t>(values.size()),
        values.data(), what);
  }
  void finalize(Descriptor descriptor, const char *what);
  void get(Descriptor descriptor, int attribute, int type, int64_t requested,
           int64_t *count, void *values, const char *what);
  /// Destroys the descriptors created since `mark` (a skipped engine's).
  void release(size_t mark);
  /// Whether no call failed. A graph cuDNN does not support is no error of
  /// the runtime's: that failure becomes the reason there is no plan.
  bool goesOn();
  /// "cudnnBackendFinalize (operation graph) returned ...".
  std::string failure() const;

  const Library &library;
  std::vector<Descriptor> owned;
  Status status = kSuccess;
  std::string failedCall;
  Descriptor plan = nullptr;
  uint64_t workspace = 0;
  int32_t rank = -1;
  /// Why the graph has no plan, when it has none and nothing failed hard.
  std::string whyNot;

private:
  void record(Status result, const char *function, const char *what);
};

/// The byte alignment declared for virtual tensors (as cuDNN's frontend
/// does): they never reach memory.
constexpr int64_t kVirtualAlignment = 16;

/// What a tensor descriptor declares.
struct TensorSpec {
  int64_t uid = 0;
  std::vector<int64_t> dims, strides;
  int32_t dataType = kDataFloat;
  int64_t alignment = kVirtualAlignment;
  bool isVirtual = false;
  /// A scalar passed by value: the variant pack points at host memory.
  bool byValue = false;
};

/// A finalized tensor descriptor.
Descriptor tensor(Attempt &attempt, const TensorSpec &spec);

/// What a pointwise descriptor declares beyond its mode.
struct PointwiseSpec {
  int32_t mode = kPointwiseAdd;
  /// CUDNN_ATTR_POINTWISE_MATH_PRECISION.
  int32_t precision = kDataFloat;
  /// GEN_INDEX's axis (-1: not set).
  int64_t axis = -1;
  /// SWISH_FWD's beta, set (a double, as cuDNN's frontend passes it).
  bool swish = false;
};

/// A finalized pointwise operation: y = mode(x[, b[, t]]) (t: the mask of
/// BINARY_SELECT, which picks x where it holds and b elsewhere).
Descriptor pointwise(Attempt &attempt, const PointwiseSpec &spec, Descriptor x,
                     Descriptor b, Descriptor y, Descriptor t = nullptr);

/// Why an engine configuration with these numerical notes may not run the
/// graph ("" when it may).
using NoteFilter =
    std::function<std::string(const int32_t *notes, int64_t count)>;

/// Finalizes the operation graph of `ops` on `handle` and plans it: mode A
/// heuristics, then the configuration of rank `engineRank` when `filter`
/// allows its notes, it finalizes and needs at most `workspaceBytes`, else
/// the next ones in the heuristic's order (and around). Leaves
/// attempt.plan null with whyNot, or with a failed call in attempt.status.
void planGraph(Handle handle, const std::vector<Descriptor> &ops,
               int32_t engineRank, uint64_t workspaceBytes,
               const NoteFilter &filter, Attempt &attempt);

/// The status of a failed cuDNN call: host or device memory exhausted, or
/// an internal error.
graphc_code codeOf(Status status);

/// "0x7f..." for error messages.
std::string hexPointer(cu::DevicePtr pointer);

/// Builds the variant pack of `uids` and `pointers` (host memory only) and
/// queues `plan` on the handle's stream. Returns GRAPHC_OK, else sets
/// `error`.
graphc_code execute(const Library &library, Handle handle, Descriptor plan,
                    const std::vector<int64_t> &uids,
                    const std::vector<void *> &pointers, void *workspace,
                    std::string &error);

} // namespace graphc::rt::dnn

#endif
