//===- RuntimeSupport.h - the runtime's C API from the tools ----*- C++ -*-===//
#ifndef GRAPHC_TOOLS_GRAPHC_RUNTIMESUPPORT_H
#define GRAPHC_TOOLS_GRAPHC_RUNTIMESUPPORT_H

#include "graphc/runtime.h"
#include "lib/Support/HostTensor.h"

#include "llvm/ADT/ArrayRef.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace graphc::tools {

using ModelPtr = std::unique_ptr<graphc_model, void (*)(graphc_model *)>;
using SessionPtr = std::unique_ptr<graphc_session, void (*)(graphc_session *)>;

/// A model loaded from `path` for CUDA device `device` (ignored on cpu),
/// and a session on it created with `flags` (graphc_session_flags).
struct OpenModel {
  ModelPtr model{nullptr, graphc_model_release};
  SessionPtr session{nullptr, graphc_session_release};
};
llvm::Expected<OpenModel> openModel(const std::string &path, int device,
                                    uint32_t flags);

/// Device memory of a session (host memory for cpu models), freed with this
/// object, which must go before the session.
class SessionBuffers {
public:
  explicit SessionBuffers(graphc_session *session) : session(session) {}
  ~SessionBuffers();
  SessionBuffers(const SessionBuffers &) = delete;
  SessionBuffers &operator=(const SessionBuffers &) = delete;
  llvm::Expected<void *> allocate(uint64_t bytes);
  /// A buffer holding a copy of `host`.
  llvm::Expected<void *> upload(const std::vector<char> &host);

private:
  graphc_session *session;
  std::vector<void *> owned;
};

/// The message of a failed runtime call as an llvm::Error; frees `status`.
llvm::Error toError(graphc_status status);

/// Reads "NAME=FILE" or "FILE", a .npy or ONNX TensorProto .pb file by its
/// extension (graphc run's --input, graphc compile's --calibration-input);
/// `name` is left empty for a bare FILE and `path` names the file.
llvm::Expected<HostTensor> readTensorArgument(const std::string &spec,
                                              std::string &name,
                                              std::string &path);

/// The DLPack dtype of an ONNX dtype (graphc's dtypes only).
DLDataType dlpackDtype(int32_t dtype);

/// Bytes of a dense tensor of `dtype` and `dims` as the runtime lays it out
/// (graphc_dtype_bytes: 4-bit dtypes packed two a byte); nullopt when a dim
/// is negative or the size overflows.
std::optional<int64_t> denseTensorBytes(int32_t dtype,
                                        llvm::ArrayRef<int64_t> dims);

/// A host tensor of a 4-bit dtype (packed, as runs take and give it) as
/// its values one a byte, int8 or uint8 (what `graphc run` prints and
/// writes to .npy); others as they are.
HostTensor unpackedFourBit(const HostTensor &tensor);

/// For a 4-bit input (`info`), `tensor` read from a .npy file of its values
/// one a byte (int8 for int4, uint8 for uint4; .npy has no packed type)
/// packed as runs take it; values out of the 4-bit range are refused. Other
/// tensors (a .pb file's 4-bit tensor is packed already) stay as they are.
llvm::Error packFourBitInput(HostTensor &tensor, const std::string &path,
                             const graphc_tensor_info &info);

/// "float32[4,?]" for a model input, with '?' for a dim left to the plan.
std::string describeType(int32_t dtype, llvm::ArrayRef<int64_t> dims);

/// Checks the dtype, rank and fixed dims of the tensor read from `path`
/// against the model input it binds to, so that a mismatch names the file.
/// Dims the model leaves open are the plan selection's to check.
llvm::Error checkInputType(const HostTensor &tensor, const std::string &path,
                           const graphc_tensor_info &info);

/// A dense DLTensor over `host` on `device`. For a cuda model the data lives
/// in a fresh session buffer, filled from `host` when `upload` is set.
llvm::Expected<DLTensor> bindTensor(HostTensor &host, DLDevice device,
                                    bool cuda, bool upload,
                                    SessionBuffers &buffers,
                                    graphc_session *session);

/// Cuts output `o` of the session's latest run, read into `host` at its
/// plan's dims, to the dims the run found (graphc_session_output_dims): a
/// compact copy of the leading corner the run wrote its result into, for an
/// output with data-dependent dims (`info`, the output's); others stay as
/// they are. The bounds go to `bounds` (empty for others).
llvm::Error cutToFoundDims(graphc_session *session, int32_t o,
                           const graphc_tensor_info &info, HostTensor &host,
                           std::vector<int64_t> &bounds);

} // namespace graphc::tools

#endif
