//===- FakeCudnn.cpp - cuDNN's graph API over the fake driver, for tests --===//
//
// The cuDNN entry points the runtime uses (runtime/src/CudnnSymbols.def), in
// the fake driver's library so that an execution is queued on the fake's
// streams and captured and replayed like a launch. The arithmetic follows
// the backend descriptors alone: tensors by their dims, strides, data type,
// unique id and virtual flag (every element of a real or virtual tensor is
// read and written where its strides put it, so that a channels-last
// tensor, [n, c, spatial...] dims with channels-last strides as in cuDNN,
// is read as one); the convolution descriptor's spatial dims,
// pre-paddings, strides, dilations and mode (cross-correlation, or true
// convolution with the filter flipped); the groups from X's and W's
// channels; pointwise ADD (with broadcast), RELU_FWD, SWISH_FWD (with its
// beta, 1 unless set) and GELU_FWD (the erf form); float intermediates (rounded to a virtual
// tensor's 16-bit type where it has one).
//
// Attention: the graph cuDNN's frontend builds for its sdpa node (see
// runtime/src/CudnnSdpa.h) is computed operation by operation from the
// descriptors: MATMUL (batch dims of A equal to C's or 1, B's dividing C's:
// grouped K/V heads), REDUCTION MAX and ADD (over the dims Y has as 1),
// pointwise MUL, SUB, DIV, EXP, LOG, GEN_INDEX (its axis), CMP_GE and
// BINARY_SELECT (its T), with broadcast, scalars passed by value (read when
// the execution is queued), INT32 and BOOLEAN virtual tensors. The
// heuristic offers engines for a graph with matmuls only when it is that
// attention graph exactly (Q, K^T, V, O and the bias real and 16-bit, the
// head dims at most 128 and multiples of 8, unit innermost strides), as
// cuDNN's fused flash-attention engine; FAKECU_CUDNN_REFUSE_SDPA refuses
// it, so that the runtime runs its fallback kernel.
// int8 convolutions as cuDNN's INT8 configurations take them: X and W of
// INT8 with their channels last (NHWC strides, W KRSC), INT32 compute, c /
// groups and k multiples of 4, here into a real INT32 Y (sums exact in
// int64, wrapped to int32), alone in their graph.
// It never calls the runtime's reference convolution: a runtime that builds
// the graph wrongly gets other numbers here, or a refusal.
//
// Strict where cuDNN is, and stricter where a GPU would fault later (or
// race): attribute types and element counts, unknown attributes,
// descriptors referred to before they are finalized (or of the wrong type),
// attributes set after finalizing, tensors whose strides put two elements
// at one address, graphs whose unique ids name two tensors, virtual
// tensors no operation writes or none reads, convolutions of tensors that
// are not 4-d or 5-d, variant packs without every real tensor of the plan
// or with a virtual one, workspaces smaller than the plan's, pointers
// outside device allocations or less aligned than their tensor says, and
// outputs overlapping what the graph reads.
//
// The heuristic offers four engine configurations, in this order: tensor
// cores (float32 products of tf32-rounded X and W; numerical note
// TENSOR_CORE), one needing 4 KiB of workspace, one converting X and W to
// float16 (DOWN_CONVERT_INPUTS), and a plain one; all others exact float32.
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"
#include "FakeCudaInternal.h"
#include "lib/Support/Float16.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {
using Status = int;
constexpr Status kOk = 0;
constexpr Status kNotInitialized = 1001;
constexpr Status kBadParam = 2000;
constexpr Status kNullPointer = 2002;
constexpr Status kMisalignedPointer = 2003;
constexpr Status kNotFinalized = 2004;
constexpr Status kOutOfBound = 2005;
constexpr Status kSizeInsufficient = 2006;
constexpr Status kDuplicatedEntries = 2009;
constexpr Status kWrongAttributeType = 2010;
constexpr Status kWrongDescriptorType = 2012;
constexpr Status kNotSupported = 3000;
constexpr Status kNotSupportedShape = 3002;
constexpr Status kNotSupportedDataType = 3003;
constexpr Status kExecutionFailed = 5000;

// cudnnBackendDescriptorType_t.
constexpr int kPointwiseDesc = 0, kConvolutionDesc = 1, kEngineDesc = 2,
              kEngineConfigDesc = 3, kHeuristicsDesc = 4, kPlanDesc = 5,
              kConvForwardDesc = 10, kPointwiseOpDesc = 13, kGraphDesc = 15,
              kVariantPackDesc = 16, kTensorDesc = 17, kMatmulDesc = 18,
              kMatmulOpDesc = 19, kReductionDesc = 21, kReductionOpDesc = 22;
// cudnnBackendAttributeType_t.
constexpr int kHandleType = 0, kDataTypeType = 1, kBooleanType = 2,
              kInt64Type = 3, kFloatType = 4, kDoubleType = 5,
              kVoidPointerType = 6, kConvolutionModeType = 7,
              kHeuristicsModeType = 8, kNumericalNoteType = 11,
              kPointwiseModeType = 14, kBackendDescriptorType = 15,
              kReductionOperatorType = 18, kBehaviorNoteType = 19;
// cudnnDataType_t, cudnnConvolutionMode_t, cudnnPointwiseMode_t,
// cudnnBackendNumericalNote_t.
constexpr int32_t kFloat32 = 0, kFloat16 = 2, kInt8 = 3, kInt32 = 4,
                  kBfloat16 = 9, kBoolean = 11;
constexpr int32_t kConvolutionMode = 0, kCrossCorrelationMode = 1;
constexpr int32_t kPointwiseAdd = 0, kPointwiseMul = 1, kPointwiseDiv = 6,
                  kPointwiseSub = 9, kPointwiseExp = 13, kPointwiseLog = 15,
                  kPointwiseReluForward = 100, kPointwiseGeluForward = 104,
                  kPointwiseSwishForward = 106,
                  kPointwiseCmpGe = 303, kPointwiseGenIndex = 501,
                  kPointwiseBinarySelect = 601;
// cudnnReduceTensorOp_t.
constexpr int32_t kReduceAdd = 0, kReduceMax = 3;
/// The largest head dim the fake's attention engines take.
constexpr int64_t kMaxAttentionHeadDim = 128;
constexpr int32_t kNoteTensorCore = 0, kNoteDownConvertInputs = 1;

/// The engines the heuristic offers, in its order.
struct FakeEngine {
  uint64_t workspace;
  std::vector<int32_t> notes;
};
const FakeEngine kEngines[] = {
    {0, {kNoteTensorCore}},
    {4096, {}},
    {0, {kNoteDownConvertInputs}},
    {0, {}},
};

struct Handle {
  void *stream = nullptr;
};

//===- Finalized descriptors ----------------------------------------------===//

struct Tensor {
  int64_t uid = 0;
  int32_t dataType = kFloat32;
  std::vector<int64_t> dims, strides;
  int64_t alignment = 0;
  bool isVirtual = false;
  /// A scalar the variant pack points at in host memory.
  bool byValue = false;
  /// The descriptor it was finalized as: one tensor may appear in several
  /// operations, two descriptors may not share a unique id.
  uint64_t serial = 0;
};

struct ConvolutionSpec {
  int32_t computeType = kFloat32, mode = kCrossCorrelationMode;
  int64_t spatialDims = 0;
  std::vector<int64_t> dilations, strides, prePaddings, postPaddings;
};

enum class OpKind { convolution, pointwise, matmul, reduction };

struct Operation {
  OpKind kind = OpKind::pointwise;
  bool convolution = false;
  ConvolutionSpec conv;
  int32_t pointwiseMode = 0;
  double swishBeta = 1;
  double alpha = 1, beta = 0, alpha2 = 1;
  /// GEN_INDEX's axis; the reduction's operator.
  int64_t axis = -1;
  int32_t reduction = 0;
  /// Matmuls: A is x, B is b, C is y; BINARY_SELECT's mask is t.
  Tensor x, w, b, t, y;
  bool hasB = false, hasT = false;
};

struct Graph {
  /// In an order where each operation follows the ones it reads from.
  std::vector<Operation> ops;
  std::vector<Tensor> tensors;
  bool hasPointwise = false;
  /// Matmuls, and whether the graph is the attention graph exactly (what
  /// the fused flash-attention engine takes), else why not.
  bool hasMatmul = false, attention = false;
  std::string notAttention;
};

struct Engine {
  std::shared_ptr<const Graph> graph;
  int rank = 0;
  uint64_t workspace = 0;
  std::vector<int32_t> notes;
};

/// What a finalized descriptor holds, immutable: descriptors that refer to
/// it keep this snapshot, whatever becomes of the descriptor.
struct Finalized {
  int type;
  Tensor tensor;
  ConvolutionSpec conv;
  int32_t pointwiseMode = 0, mathPrecision = kFloat32;
  double swishBeta = 1;
  int64_t axis = -1;
  int32_t reduction = 0;
  Operation operation;
  std::shared_ptr<const Graph> graph;
  Engine engine;
  std::vector<int64_t> uids;
  std::vector<void *> pointers;
  void *workspace = nullptr;
};
using Snapshot = std::shared_ptr<const Finalized>;

struct Value {
  int type;
  int64_t count;
  std::vector<unsigned char> bytes;
  std::vector<Snapshot> descriptors; // a descriptor-typed value's
};

struct Descriptor {
  int type;
  uint64_t serial;
  std::map<int, Value> attributes;
  Snapshot finalized;
};

/// An attribute the fake models: of which descriptor, of what type (or the
/// alternative), how many elements, whether a caller may set it, and the
/// descriptor types a descriptor-typed one refers to.
struct AttributeSpec {
  int descriptor, attribute, type, alternative;
  int64_t least, most;
  bool settable;
  int refers[2];
};
constexpr int kNo = -1;
/// In refers: any operation (convolution, pointwise, matmul, reduction).
constexpr int kAnyOperation = -2;
const AttributeSpec kAttributes[] = {
    // Tensors.
    {kTensorDesc, 900, kInt64Type, kNo, 1, 1, true, {kNo, kNo}},
    {kTensorDesc, 901, kDataTypeType, kNo, 1, 1, true, {kNo, kNo}},
    {kTensorDesc, 902, kInt64Type, kNo, 1, 8, true, {kNo, kNo}},
    {kTensorDesc, 903, kInt64Type, kNo, 1, 8, true, {kNo, kNo}},
    {kTensorDesc, 906, kInt64Type, kNo, 1, 1, true, {kNo, kNo}},
    {kTensorDesc, 907, kBooleanType, kNo, 1, 1, true, {kNo, kNo}},
    {kTensorDesc, 908, kBooleanType, kNo, 1, 1, true, {kNo, kNo}},
    // Convolution descriptors.
    {kConvolutionDesc, 100, kDataTypeType, kNo, 1, 1, true, {kNo, kNo}},
    {kConvolutionDesc, 101, kConvolutionModeType, kNo, 1, 1, true, {kNo, kNo}},
    {kConvolutionDesc, 102, kInt64Type, kNo, 1, 3, true, {kNo, kNo}},
    {kConvolutionDesc, 103, kInt64Type, kNo, 1, 3, true, {kNo, kNo}},
    {kConvolutionDesc, 104, kInt64Type, kNo, 1, 3, true, {kNo, kNo}},
    {kConvolutionDesc, 105, kInt64Type, kNo, 1, 3, true, {kNo, kNo}},
    {kConvolutionDesc, 106, kInt64Type, kNo, 1, 1, true, {kNo, kNo}},
    // Pointwise descriptors.
    {kPointwiseDesc, 0, kPointwiseModeType, kNo, 1, 1, true, {kNo, kNo}},
    {kPointwiseDesc, 1, kDataTypeType, kNo, 1, 1, true, {kNo, kNo}},
    {kPointwiseDesc, 8, kDoubleType, kFloatType, 1, 1, true, {kNo, kNo}},
    {kPointwiseDesc, 9, kInt64Type, kNo, 1, 1, true, {kNo, kNo}},
    // Forward convolutions.
    {kConvForwardDesc, 700, kFloatType, kDoubleType, 1, 1, true, {kNo, kNo}},
    {kConvForwardDesc, 701, kFloatType, kDoubleType, 1, 1, true, {kNo, kNo}},
    {kConvForwardDesc,
     702,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kConvolutionDesc, kNo}},
    {kConvForwardDesc,
     703,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kTensorDesc, kNo}},
    {kConvForwardDesc,
     704,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kTensorDesc, kNo}},
    {kConvForwardDesc,
     705,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kTensorDesc, kNo}},
    // Pointwise operations.
    {kPointwiseOpDesc,
     750,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kPointwiseDesc, kNo}},
    {kPointwiseOpDesc,
     751,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kTensorDesc, kNo}},
    {kPointwiseOpDesc,
     752,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kTensorDesc, kNo}},
    {kPointwiseOpDesc,
     753,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kTensorDesc, kNo}},
    {kPointwiseOpDesc, 754, kFloatType, kDoubleType, 1, 1, true, {kNo, kNo}},
    {kPointwiseOpDesc, 755, kFloatType, kDoubleType, 1, 1, true, {kNo, kNo}},
    {kPointwiseOpDesc,
     758,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kTensorDesc, kNo}},
    // Matmuls and reductions.
    {kMatmulDesc, 1500, kDataTypeType, kNo, 1, 1, true, {kNo, kNo}},
    {kMatmulOpDesc,
     1520,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kTensorDesc, kNo}},
    {kMatmulOpDesc,
     1521,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kTensorDesc, kNo}},
    {kMatmulOpDesc,
     1522,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kTensorDesc, kNo}},
    {kMatmulOpDesc,
     1523,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kMatmulDesc, kNo}},
    {kReductionDesc, 1600, kReductionOperatorType, kNo, 1, 1, true, {kNo, kNo}},
    {kReductionDesc, 1601, kDataTypeType, kNo, 1, 1, true, {kNo, kNo}},
    {kReductionOpDesc,
     1610,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kTensorDesc, kNo}},
    {kReductionOpDesc,
     1611,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kTensorDesc, kNo}},
    {kReductionOpDesc,
     1612,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kReductionDesc, kNo}},
    // Operation graphs.
    {kGraphDesc, 800, kHandleType, kNo, 1, 1, true, {kNo, kNo}},
    {kGraphDesc,
     801,
     kBackendDescriptorType,
     kNo,
     1,
     64,
     true,
     {kAnyOperation, kNo}},
    // Heuristics, engine configurations, engines.
    {kHeuristicsDesc, 200, kHeuristicsModeType, kNo, 1, 1, true, {kNo, kNo}},
    {kHeuristicsDesc,
     201,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kGraphDesc, kNo}},
    {kHeuristicsDesc,
     202,
     kBackendDescriptorType,
     kNo,
     0,
     0,
     false,
     {kEngineConfigDesc, kNo}},
    {kEngineConfigDesc,
     300,
     kBackendDescriptorType,
     kNo,
     0,
     0,
     false,
     {kEngineDesc, kNo}},
    {kEngineConfigDesc, 303, kInt64Type, kNo, 0, 0, false, {kNo, kNo}},
    {kEngineDesc, 1303, kNumericalNoteType, kNo, 0, 0, false, {kNo, kNo}},
    {kEngineDesc, 1305, kBehaviorNoteType, kNo, 0, 0, false, {kNo, kNo}},
    // Execution plans.
    {kPlanDesc, 400, kHandleType, kNo, 1, 1, true, {kNo, kNo}},
    {kPlanDesc,
     401,
     kBackendDescriptorType,
     kNo,
     1,
     1,
     true,
     {kEngineConfigDesc, kNo}},
    {kPlanDesc, 402, kInt64Type, kNo, 0, 0, false, {kNo, kNo}},
    // Variant packs.
    {kVariantPackDesc, 1000, kInt64Type, kNo, 1, 64, true, {kNo, kNo}},
    {kVariantPackDesc, 1001, kVoidPointerType, kNo, 1, 64, true, {kNo, kNo}},
    {kVariantPackDesc, 1003, kVoidPointerType, kNo, 1, 1, true, {kNo, kNo}},
};

const AttributeSpec *specOf(int descriptor, int attribute) {
  for (const AttributeSpec &spec : kAttributes)
    if (spec.descriptor == descriptor && spec.attribute == attribute)
      return &spec;
  return nullptr;
}

size_t elementSize(int type) {
  switch (type) {
  case kBooleanType:
    return sizeof(bool);
  case kInt64Type:
  case kDoubleType:
    return 8;
  case kHandleType:
  case kVoidPointerType:
  case kBackendDescriptorType:
    return sizeof(void *);
  default: // the enums and float
    return 4;
  }
}

/// FAKECU_CUDNN_REFUSE_FUSION=1 makes refusing fusion the default, for
/// processes that cannot call fakecu_cudnn_refuse_fusion (a model run by
/// graphc or the Python runtime).
bool refuseFusionByDefault() {
  const char *value = std::getenv("FAKECU_CUDNN_REFUSE_FUSION");
  return value && *value && std::strcmp(value, "0") != 0;
}

/// FAKECU_CUDNN_REFUSE_SDPA=1: the heuristic offers no engine for the
/// attention graph, so that the runtime runs its fallback kernel.
bool refuseSdpaByDefault() {
  const char *value = std::getenv("FAKECU_CUDNN_REFUSE_SDPA");
  return value && *value && std::strcmp(value, "0") != 0;
}
/// FAKECU_CUDNN_FASTEST_ENGINE: the engine configuration (rank) that runs
/// at the host's speed; the others take kSlowerMicros longer on the fake's
/// clock. -1 (unset): every one runs at the host's speed.
int fastestEngineByDefault() {
  const char *value = std::getenv("FAKECU_CUDNN_FASTEST_ENGINE");
  return value && *value ? static_cast<int>(std::strtol(value, nullptr, 10))
                         : -1;
}
constexpr double kSlowerMicros = 1000.0;

struct DnnState {
  std::mutex mutex;
  int fastestEngine = fastestEngineByDefault();
  std::set<Descriptor *> descriptors;
  std::set<Handle *> handles;
  uint64_t nextSerial = 1;
  bool refuseFusion = refuseFusionByDefault();
  bool refuseSdpa = refuseSdpaByDefault();
  uint64_t requiredWorkspace = 0;
  int lastRank = -1;
  std::string lastError;
  /// The tensors of the last operation graph finalized
  /// (fakecu_cudnn_last_graph).
  std::string lastGraph;
};

DnnState &dnn() {
  static DnnState state;
  return state;
}

/// Records and prints why `function` refuses, and returns `status`.
Status refuse(DnnState &s, const char *function, const std::string &why,
              Status status) {
  s.lastError = std::string(function) + ": " + why;
  std::fprintf(stderr, "fake cuDNN: %s\n", s.lastError.c_str());
  return status;
}

std::string hex(const void *pointer) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", pointer);
  return text;
}

std::string dimsText(const std::vector<int64_t> &dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? "," : "") + std::to_string(dims[i]);
  return text + "]";
}

uint64_t dataTypeBytes(int32_t type) {
  return type == kFloat32 || type == kInt32 ? 4 : type == kInt8 ? 1 : 2;
}

/// Elements from the first to the last one a tensor addresses, plus one.
int64_t spanOf(const Tensor &tensor) {
  int64_t last = 0;
  for (size_t i = 0; i < tensor.dims.size(); ++i)
    last += (tensor.dims[i] - 1) * tensor.strides[i];
  return last + 1;
}

//===- Reading attributes -------------------------------------------------===//

template <typename T> std::vector<T> valuesOf(const Value &value) {
  std::vector<T> out(static_cast<size_t>(value.count));
  std::memcpy(out.data(), value.bytes.data(), out.size() * sizeof(T));
  return out;
}
template <typename T> T valueOf(const Value &value) {
  return valuesOf<T>(value).front();
}
/// A FLOAT or DOUBLE scalar.
double scalarOf(const Value &value) {
  return value.type == kFloatType ? double(valueOf<float>(value))
                                  : valueOf<double>(value);
}

/// "SWISH_FWD" for a pointwise mode the fake computes.
std::string modeName(int32_t mode) {
  switch (mode) {
  case kPointwiseAdd:
    return "ADD";
  case kPointwiseMul:
    return "MUL";
  case kPointwiseDiv:
    return "DIV";
  case kPointwiseSub:
    return "SUB";
  case kPointwiseExp:
    return "EXP";
  case kPointwiseLog:
    return "LOG";
  case kPointwiseReluForward:
    return "RELU_FWD";
  case kPointwiseSwishForward:
    return "SWISH_FWD";
  case kPointwiseGeluForward:
    return "GELU_FWD";
  case kPointwiseCmpGe:
    return "CMP_GE";
  case kPointwiseGenIndex:
    return "GEN_INDEX";
  case kPointwiseBinarySelect:
    return "BINARY_SELECT";
  default:
    return "mode " + std::to_string(mode);
  }
}

//===- The attention graph ------------------------------------------------===//

/// Whether `ops` (with their `tensors` by unique id) are the graph cuDNN's
/// frontend builds for scaled dot-product attention in inference, which
/// its fused flash-attention engine takes:
///   S = MATMUL(Q, K^T); S = MUL(S, scale by value); [S = ADD(S, bias)];
///   [row = GEN_INDEX(S, 2); col = GEN_INDEX(S, 3); keep = CMP_GE(row, col);
///    S = BINARY_SELECT(S, fill by value, keep)];
///   M = MAX(S); E = EXP(SUB(S, M)); Z = ADD-reduce(E);
///   stats = ADD(M, LOG(Z)) (unread); P = DIV(E, Z); O = MATMUL(P, V)
/// with Q, K^T, V, O (and the bias) real, of one 16-bit type, P virtual of
/// that type, head dims at most kMaxAttentionHeadDim and multiples of 8,
/// unit strides along them. Sets `stats` to the statistics' unique id, or
/// `why` to what does not match.
bool matchAttention(const std::vector<Operation> &ops,
                    const std::map<int64_t, Tensor> &tensors, int64_t &stats,
                    std::string &why) {
  // The operations reading each tensor.
  std::map<int64_t, std::vector<const Operation *>> readers;
  for (const Operation &op : ops) {
    readers[op.x.uid].push_back(&op);
    if (op.hasB)
      readers[op.b.uid].push_back(&op);
    if (op.hasT)
      readers[op.t.uid].push_back(&op);
  }
  auto only = [&](int64_t uid) -> const Operation * {
    auto found = readers.find(uid);
    return found != readers.end() && found->second.size() == 1
               ? found->second.front()
               : nullptr;
  };
  auto isPointwise = [](const Operation *op, int32_t mode) {
    return op && op->kind == OpKind::pointwise && op->pointwiseMode == mode;
  };
  auto fail = [&](const std::string &text) {
    why = text;
    return false;
  };
  const Operation *first = nullptr;
  for (const Operation &op : ops)
    if (op.kind == OpKind::matmul && !op.x.isVirtual && !op.b.isVirtual)
      first = &op;
  if (!first)
    return fail("no matmul of two real tensors (Q and K^T)");
  const Tensor &q = first->x, &kt = first->b;
  const int32_t io = q.dataType;
  if ((io != kFloat16 && io != kBfloat16) || kt.dataType != io)
    return fail("Q and K^T are not of one 16-bit type");
  if (q.dims.size() != 4 || !first->y.isVirtual ||
      first->y.dataType != kFloat32)
    return fail("the first matmul is not 4-d into float scores");
  std::set<const Operation *> used = {first};
  int64_t current = first->y.uid;
  auto next = [&](int32_t mode) -> const Operation * {
    const Operation *op = only(current);
    if (!isPointwise(op, mode) || !op->y.isVirtual)
      return nullptr;
    used.insert(op);
    current = op->y.uid;
    return op;
  };
  const Operation *scale = next(kPointwiseMul);
  if (!scale || !scale->b.byValue)
    return fail("the scores are not scaled by a value");
  // The bias, if any: real, of the I/O type, its last dim the keys'.
  if (const Operation *op = only(current);
      isPointwise(op, kPointwiseAdd) && !op->b.isVirtual) {
    if (op->b.dataType != io || op->b.byValue ||
        op->b.dims.back() != first->y.dims[3] || op->b.strides.back() != 1)
      return fail("a bias that is not 16-bit [.., keys] with unit stride");
    next(kPointwiseAdd);
  }
  // The causal mask: two index generators and a comparison feeding a
  // select of the scores, with the fill passed by value.
  if (auto found = readers.find(current);
      found != readers.end() && found->second.size() == 3) {
    const Operation *rows = nullptr, *cols = nullptr, *select = nullptr;
    for (const Operation *op : found->second) {
      if (isPointwise(op, kPointwiseGenIndex) && op->axis == 2)
        rows = op;
      else if (isPointwise(op, kPointwiseGenIndex) && op->axis == 3)
        cols = op;
      else if (isPointwise(op, kPointwiseBinarySelect) && op->x.uid == current)
        select = op;
    }
    const Operation *compare = rows ? only(rows->y.uid) : nullptr;
    if (!rows || !cols || !select || !compare ||
        !isPointwise(compare, kPointwiseCmpGe) ||
        compare->x.uid != rows->y.uid || compare->b.uid != cols->y.uid ||
        only(cols->y.uid) != compare || only(compare->y.uid) != select ||
        select->t.uid != compare->y.uid || !select->b.byValue ||
        !select->y.isVirtual)
      return fail("a causal mask other than BINARY_SELECT(S, fill, "
                  "CMP_GE(GEN_INDEX(S, 2), GEN_INDEX(S, 3)))");
    used.insert({rows, cols, compare, select});
    current = select->y.uid;
  }
  // The softmax.
  auto found = readers.find(current);
  if (found == readers.end() || found->second.size() != 2)
    return fail("the masked scores do not feed a max and a subtraction");
  const Operation *max = nullptr, *subtract = nullptr;
  for (const Operation *op : found->second) {
    if (op->kind == OpKind::reduction && op->reduction == kReduceMax)
      max = op;
    else if (isPointwise(op, kPointwiseSub) && op->x.uid == current)
      subtract = op;
  }
  if (!max || !subtract || subtract->b.uid != max->y.uid ||
      max->y.dims.back() != 1 || !max->y.isVirtual)
    return fail("no row max subtracted from the scores");
  used.insert({max, subtract});
  current = subtract->y.uid;
  const Operation *exp = next(kPointwiseExp);
  auto exps = exp ? readers.find(exp->y.uid) : readers.end();
  if (!exp || exps == readers.end() || exps->second.size() != 2)
    return fail("no exponent feeding a sum and a division");
  const Operation *sum = nullptr, *divide = nullptr;
  for (const Operation *op : exps->second) {
    if (op->kind == OpKind::reduction && op->reduction == kReduceAdd)
      sum = op;
    else if (isPointwise(op, kPointwiseDiv) && op->x.uid == exp->y.uid)
      divide = op;
  }
  if (!sum || !divide || divide->b.uid != sum->y.uid || sum->y.dims.back() != 1)
    return fail("no row sum dividing the exponents");
  auto sums = readers.find(sum->y.uid);
  const Operation *log = nullptr;
  for (const Operation *op : sums->second)
    if (isPointwise(op, kPointwiseLog))
      log = op;
  const Operation *statistics = log ? only(log->y.uid) : nullptr;
  if (!log || sums->second.size() != 2 ||
      !isPointwise(statistics, kPointwiseAdd) ||
      statistics->x.uid != max->y.uid || statistics->b.uid != log->y.uid ||
      readers.count(statistics->y.uid) || !statistics->y.isVirtual)
    return fail("no softmax statistics max + log(sum)");
  // The max feeds the subtraction and the statistics only.
  if (readers[max->y.uid].size() != 2)
    return fail("the row max feeds more than the softmax");
  used.insert({exp, sum, divide, log, statistics});
  stats = statistics->y.uid;
  const Operation *second = only(divide->y.uid);
  if (!second || second->kind != OpKind::matmul ||
      second->x.uid != divide->y.uid || !divide->y.isVirtual ||
      divide->y.dataType != io)
    return fail("the probabilities are not a virtual 16-bit A of a matmul");
  used.insert(second);
  const Tensor &v = second->b, &o = second->y;
  if (v.isVirtual || o.isVirtual || v.dataType != io || o.dataType != io)
    return fail("V and O are not real tensors of the I/O type");
  if (used.size() != ops.size())
    return fail(std::to_string(ops.size() - used.size()) +
                " operations besides attention's");
  // What the flash engine takes: head dims, unit strides along them
  // (K^T's head dim is its dim 2), grouped heads.
  int64_t d = q.dims[3], dv = v.dims[3];
  for (int64_t dim : {d, dv})
    if (dim > kMaxAttentionHeadDim || dim % 8)
      return fail("head dim " + std::to_string(dim) + " (at most " +
                  std::to_string(kMaxAttentionHeadDim) + ", a multiple of 8)");
  if (q.strides[3] != 1 || kt.strides[2] != 1 || v.strides[3] != 1 ||
      o.strides[3] != 1)
    return fail("Q, K, V or O with a head dim stride other than 1");
  if (kt.dims[1] != v.dims[1] || q.dims[1] % kt.dims[1])
    return fail("K/V heads that do not group the query heads");
  (void)tensors;
  return true;
}

/// Finalizes one descriptor of its kind; the kinds below.
class Finalizer {
public:
  Finalizer(DnnState &s, const Descriptor &d) : s(s), d(d) {}

  const Value *find(int attribute) const {
    auto found = d.attributes.find(attribute);
    return found == d.attributes.end() ? nullptr : &found->second;
  }
  /// The attribute, or null after refusing that it is missing.
  const Value *need(int attribute, const char *name) {
    const Value *value = find(attribute);
    if (!value)
      status = refuse(s, "cudnnBackendFinalize",
                      article() + kind + " without " + name, kBadParam);
    return value;
  }
  Status fail(const std::string &why, Status code) {
    status =
        refuse(s, "cudnnBackendFinalize", article() + kind + " " + why, code);
    return status;
  }
  std::string article() const {
    return std::string(kind).find_first_of("aeiou") == 0 ? "an " : "a ";
  }

  Status tensor(Finalized &f);
  Status convolution(Finalized &f);
  Status pointwise(Finalized &f);
  Status convForward(Finalized &f);
  Status pointwiseOperation(Finalized &f);
  Status matmul(Finalized &f);
  Status matmulOperation(Finalized &f);
  Status reduction(Finalized &f);
  Status reductionOperation(Finalized &f);
  Status graph(Finalized &f);
  Status heuristics(Finalized &f);
  Status plan(Finalized &f);
  Status variantPack(Finalized &f);

  DnnState &s;
  const Descriptor &d;
  const char *kind = "descriptor";
  Status status = kOk;
};

Status Finalizer::tensor(Finalized &f) {
  kind = "tensor";
  const Value *type = need(901, "CUDNN_ATTR_TENSOR_DATA_TYPE");
  const Value *dims =
      type ? need(902, "CUDNN_ATTR_TENSOR_DIMENSIONS") : nullptr;
  const Value *strides =
      dims ? need(903, "CUDNN_ATTR_TENSOR_STRIDES") : nullptr;
  const Value *uid =
      strides ? need(906, "CUDNN_ATTR_TENSOR_UNIQUE_ID") : nullptr;
  // cuDNN wants an alignment of virtual tensors too.
  const Value *alignment =
      uid ? need(900, "CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT") : nullptr;
  if (!alignment)
    return status;
  Tensor &t = f.tensor;
  t.uid = valueOf<int64_t>(*uid);
  t.dataType = valueOf<int32_t>(*type);
  t.dims = valuesOf<int64_t>(*dims);
  t.strides = valuesOf<int64_t>(*strides);
  t.serial = d.serial;
  t.alignment = valueOf<int64_t>(*alignment);
  if (const Value *isVirtual = find(907))
    t.isVirtual = isVirtual->bytes[0] != 0;
  if (const Value *byValue = find(908))
    t.byValue = byValue->bytes[0] != 0;
  std::string what = "tensor " + std::to_string(t.uid);
  bool indexType = t.dataType == kInt32 || t.dataType == kBoolean;
  // Real INT8 and INT32 tensors: an int8 convolution's.
  bool integer = (t.dataType == kInt8 || t.dataType == kInt32) && !t.isVirtual;
  if (t.dataType != kFloat32 && t.dataType != kFloat16 &&
      t.dataType != kBfloat16 && !(indexType && t.isVirtual) && !integer)
    return fail(what + " of data type " + std::to_string(t.dataType) +
                    " (the fake computes FLOAT, HALF and BFLOAT16, INT32 "
                    "and BOOLEAN virtual tensors, and real INT8 and INT32 "
                    "ones of int8 convolutions)",
                kNotSupportedDataType);
  if (t.byValue && (t.isVirtual || t.dataType != kFloat32 ||
                    std::any_of(t.dims.begin(), t.dims.end(),
                                [](int64_t dim) { return dim != 1; })))
    return fail(what + " passed by value, not a real FLOAT scalar", kBadParam);
  if (t.dims.size() != t.strides.size())
    return fail(what + " with " + std::to_string(t.dims.size()) + " dims and " +
                    std::to_string(t.strides.size()) + " strides",
                kBadParam);
  for (size_t i = 0; i < t.dims.size(); ++i)
    if (t.dims[i] < 1 || t.strides[i] < 1)
      return fail(what + " with dims " + dimsText(t.dims) + " and strides " +
                      dimsText(t.strides),
                  kBadParam);
  if (t.alignment < 1 || (t.alignment & (t.alignment - 1)))
    return fail(what + " with byte alignment " + std::to_string(t.alignment),
                kBadParam);
  // Taken by ascending stride, each dim of more than one element must step
  // past everything the dims inside it span; otherwise two elements share
  // an address (an engine would read one value twice, or race writing it).
  std::vector<size_t> order;
  for (size_t i = 0; i < t.dims.size(); ++i)
    if (t.dims[i] > 1)
      order.push_back(i);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return t.strides[a] < t.strides[b]; });
  __int128 spanned = 1;
  for (size_t i : order) {
    if (t.strides[i] < spanned)
      return fail(what + " with dims " + dimsText(t.dims) + " and strides " +
                      dimsText(t.strides) +
                      ", which put two elements at one address",
                  kBadParam);
    spanned = __int128(t.strides[i]) * t.dims[i];
  }
  return kOk;
}

Status Finalizer::convolution(Finalized &f) {
  kind = "convolution descriptor";
  const int attributes[] = {100, 101, 102, 103, 104, 105, 106};
  const char *names[] = {"COMP_TYPE",      "CONV_MODE",     "DILATIONS",
                         "FILTER_STRIDES", "POST_PADDINGS", "PRE_PADDINGS",
                         "SPATIAL_DIMS"};
  for (int i = 0; i < 7; ++i)
    if (!need(attributes[i], names[i]))
      return status;
  ConvolutionSpec &c = f.conv;
  c.computeType = valueOf<int32_t>(*find(100));
  c.mode = valueOf<int32_t>(*find(101));
  c.dilations = valuesOf<int64_t>(*find(102));
  c.strides = valuesOf<int64_t>(*find(103));
  c.postPaddings = valuesOf<int64_t>(*find(104));
  c.prePaddings = valuesOf<int64_t>(*find(105));
  c.spatialDims = valueOf<int64_t>(*find(106));
  if (c.computeType != kFloat32 && c.computeType != kInt32)
    return fail("computing in data type " + std::to_string(c.computeType) +
                    " (the fake computes in FLOAT, and int8 convolutions "
                    "in INT32)",
                kNotSupportedDataType);
  if (c.mode != kConvolutionMode && c.mode != kCrossCorrelationMode)
    return fail("of mode " + std::to_string(c.mode), kBadParam);
  for (const std::vector<int64_t> *values :
       {&c.dilations, &c.strides, &c.postPaddings, &c.prePaddings})
    if (int64_t(values->size()) != c.spatialDims)
      return fail("of " + std::to_string(c.spatialDims) +
                      " spatial dims with " + std::to_string(values->size()) +
                      " dilations, strides or paddings",
                  kBadParam);
  for (int64_t i = 0; i < c.spatialDims; ++i)
    if (c.dilations[i] < 1 || c.strides[i] < 1 || c.prePaddings[i] < 0 ||
        c.postPaddings[i] < 0)
      return fail("with dilations " + dimsText(c.dilations) + ", strides " +
                      dimsText(c.strides) + ", paddings " +
                      dimsText(c.prePaddings) + " and " +
                      dimsText(c.postPaddings),
                  kBadParam);
  return kOk;
}

Status Finalizer::pointwise(Finalized &f) {
  kind = "pointwise descriptor";
  const Value *mode = need(0, "CUDNN_ATTR_POINTWISE_MODE");
  const Value *precision =
      mode ? need(1, "CUDNN_ATTR_POINTWISE_MATH_PREC") : nullptr;
  if (!precision)
    return status;
  f.pointwiseMode = valueOf<int32_t>(*mode);
  f.mathPrecision = valueOf<int32_t>(*precision);
  const int32_t modes[] = {
      kPointwiseAdd,         kPointwiseMul,          kPointwiseDiv,
      kPointwiseSub,         kPointwiseExp,          kPointwiseLog,
      kPointwiseReluForward, kPointwiseSwishForward, kPointwiseCmpGe,
      kPointwiseGenIndex,    kPointwiseBinarySelect, kPointwiseGeluForward};
  if (std::find(std::begin(modes), std::end(modes), f.pointwiseMode) ==
      std::end(modes))
    return fail("of mode " + std::to_string(f.pointwiseMode) +
                    " (the fake computes ADD, MUL, DIV, SUB, EXP, LOG, "
                    "RELU_FWD, SWISH_FWD, GELU_FWD, CMP_GE, GEN_INDEX and "
                    "BINARY_SELECT)",
                kNotSupported);
  // CUDNN_ATTR_POINTWISE_SWISH_BETA, 1 unless set; only SWISH_FWD reads it.
  if (const Value *beta = find(8))
    f.swishBeta = scalarOf(*beta);
  // CUDNN_ATTR_POINTWISE_AXIS: GEN_INDEX's, which needs it.
  if (const Value *axis = find(9))
    f.axis = valueOf<int64_t>(*axis);
  if (f.pointwiseMode == kPointwiseGenIndex && f.axis < 0)
    return fail("GEN_INDEX without an axis", kBadParam);
  // Index generation and comparisons compute in INT32 or BOOLEAN as
  // cuDNN's frontend asks; everything else in FLOAT.
  bool indexMode = f.pointwiseMode == kPointwiseGenIndex ||
                   f.pointwiseMode == kPointwiseCmpGe;
  if (f.mathPrecision != kFloat32 &&
      !(indexMode &&
        (f.mathPrecision == kInt32 || f.mathPrecision == kBoolean)))
    return fail("computing in data type " + std::to_string(f.mathPrecision),
                kNotSupportedDataType);
  return kOk;
}

Status Finalizer::convForward(Finalized &f) {
  kind = "forward convolution";
  const Value *desc = need(702, "its convolution descriptor");
  const Value *x = desc ? need(704, "X") : nullptr;
  const Value *w = x ? need(703, "W") : nullptr;
  const Value *y = w ? need(705, "Y") : nullptr;
  if (!y)
    return status;
  Operation &op = f.operation;
  op.kind = OpKind::convolution;
  op.convolution = true;
  op.conv = desc->descriptors[0]->conv;
  op.x = x->descriptors[0]->tensor;
  op.w = w->descriptors[0]->tensor;
  op.y = y->descriptors[0]->tensor;
  if (const Value *alpha = find(700))
    op.alpha = scalarOf(*alpha);
  if (const Value *beta = find(701))
    op.beta = scalarOf(*beta);
  const std::vector<int64_t> &xd = op.x.dims, &wd = op.w.dims, &yd = op.y.dims;
  if (xd.size() != wd.size() || xd.size() != yd.size() ||
      int64_t(xd.size()) != op.conv.spatialDims + 2)
    return fail("of X " + dimsText(xd) + ", W " + dimsText(wd) + ", Y " +
                    dimsText(yd) + " over " +
                    std::to_string(op.conv.spatialDims) + " spatial dims",
                kBadParam);
  if (xd.size() != 4 && xd.size() != 5)
    return fail("of " + std::to_string(xd.size()) +
                    "-d tensors (cuDNN convolves 4-d and 5-d ones)",
                kNotSupportedShape);
  if (op.x.dataType != op.w.dataType)
    return fail("of X and W of different data types", kNotSupportedDataType);
  const bool int8 = op.x.dataType == kInt8;
  if (int8 != (op.conv.computeType == kInt32) ||
      int8 != (op.y.dataType == kInt32))
    return fail("of X of data type " + std::to_string(op.x.dataType) +
                    " into Y of data type " + std::to_string(op.y.dataType) +
                    " computing in " + std::to_string(op.conv.computeType) +
                    " (INT8 into INT32 computing in INT32, or floating "
                    "types computing in FLOAT)",
                kNotSupportedDataType);
  if (int8) {
    // cuDNN's INT8 configurations: NHWC tensors (KRSC filters) of whole
    // 4-channel vectors.
    for (const Tensor *t : {&op.x, &op.w, &op.y}) {
      std::vector<int64_t> packed(t->dims.size(), 1);
      int64_t inner = t->dims[1];
      for (size_t i = t->dims.size() - 1; i > 1; --i) {
        packed[i] = inner;
        inner *= t->dims[i];
      }
      packed[0] = inner;
      if (t->strides != packed)
        return fail("int8 of tensor " + std::to_string(t->uid) +
                        " with dims " + dimsText(t->dims) + " and strides " +
                        dimsText(t->strides) +
                        " (INT8 convolutions are NHWC: strides " +
                        dimsText(packed) + ")",
                    kNotSupportedShape);
    }
    if (wd[1] % 4 || wd[0] % 4)
      return fail("int8 of W " + dimsText(wd) +
                      " (c / groups and k multiples of 4)",
                  kNotSupportedShape);
    if (op.y.isVirtual)
      return fail("int8 into a virtual Y (the fake computes int8 "
                  "convolutions alone)",
                  kNotSupported);
  }
  // The groups are X's channels over W's.
  if (xd[1] % wd[1] || wd[0] % (xd[1] / wd[1]))
    return fail("of X " + dimsText(xd) + " and W " + dimsText(wd) +
                    ": W's channels divide neither X's nor the groups W's "
                    "outputs",
                kBadParam);
  std::vector<int64_t> expected = {xd[0], wd[0]};
  for (int64_t i = 0; i < op.conv.spatialDims; ++i) {
    int64_t span = op.conv.dilations[i] * (wd[i + 2] - 1) + 1;
    int64_t padded =
        xd[i + 2] + op.conv.prePaddings[i] + op.conv.postPaddings[i];
    expected.push_back(
        padded < span ? 0 : (padded - span) / op.conv.strides[i] + 1);
  }
  if (yd != expected)
    return fail("of X " + dimsText(xd) + " and W " + dimsText(wd) + " into Y " +
                    dimsText(yd) + ", not " + dimsText(expected),
                kBadParam);
  return kOk;
}

Status Finalizer::pointwiseOperation(Finalized &f) {
  kind = "pointwise operation";
  const Value *desc = need(750, "its pointwise descriptor");
  const Value *x = desc ? need(751, "X") : nullptr;
  const Value *y = x ? need(753, "Y") : nullptr;
  if (!y)
    return status;
  Operation &op = f.operation;
  op.kind = OpKind::pointwise;
  op.pointwiseMode = desc->descriptors[0]->pointwiseMode;
  op.swishBeta = desc->descriptors[0]->swishBeta;
  op.axis = desc->descriptors[0]->axis;
  op.x = x->descriptors[0]->tensor;
  op.y = y->descriptors[0]->tensor;
  if (const Value *alpha = find(754))
    op.alpha = scalarOf(*alpha);
  if (const Value *alpha2 = find(755))
    op.alpha2 = scalarOf(*alpha2);
  const Value *b = find(752);
  const Value *t = find(758);
  const int32_t mode = op.pointwiseMode;
  bool binary = mode == kPointwiseAdd || mode == kPointwiseMul ||
                mode == kPointwiseDiv || mode == kPointwiseSub ||
                mode == kPointwiseCmpGe || mode == kPointwiseBinarySelect;
  bool ternary = mode == kPointwiseBinarySelect;
  std::string name = modeName(mode);
  if (binary != (b != nullptr))
    return fail(name + (binary ? " without B" : " with a B"), kBadParam);
  if (ternary != (t != nullptr))
    return fail(name + (ternary ? " without T" : " with a T"), kBadParam);
  if (op.x.dims != op.y.dims)
    return fail("of X " + dimsText(op.x.dims) + " into Y " +
                    dimsText(op.y.dims),
                kBadParam);
  if (mode == kPointwiseGenIndex &&
      op.axis >= static_cast<int64_t>(op.y.dims.size()))
    return fail("GEN_INDEX along axis " + std::to_string(op.axis) + " of " +
                    dimsText(op.y.dims),
                kBadParam);
  if ((mode == kPointwiseGenIndex && op.y.dataType != kInt32 &&
       op.y.dataType != kFloat32) ||
      (mode == kPointwiseCmpGe && op.y.dataType != kBoolean))
    return fail(name + " into Y of data type " + std::to_string(op.y.dataType),
                kNotSupportedDataType);
  auto broadcasts = [&](const Tensor &other) {
    bool fits = other.dims.size() == op.y.dims.size();
    for (size_t i = 0; fits && i < other.dims.size(); ++i)
      fits = other.dims[i] == op.y.dims[i] || other.dims[i] == 1;
    return fits;
  };
  if (b) {
    op.hasB = true;
    op.b = b->descriptors[0]->tensor;
    if (!broadcasts(op.b))
      return fail("of B " + dimsText(op.b.dims) + " into Y " +
                      dimsText(op.y.dims) + " (B's dims are Y's or 1)",
                  kBadParam);
  }
  if (t) {
    op.hasT = true;
    op.t = t->descriptors[0]->tensor;
    if (!broadcasts(op.t) || op.t.dataType != kBoolean)
      return fail("of T " + dimsText(op.t.dims) + " of data type " +
                      std::to_string(op.t.dataType) + " into Y " +
                      dimsText(op.y.dims) + " (a BOOLEAN mask of Y's dims)",
                  kBadParam);
  }
  return kOk;
}

Status Finalizer::matmul(Finalized &) {
  kind = "matmul descriptor";
  const Value *compute = need(1500, "CUDNN_ATTR_MATMUL_COMP_TYPE");
  if (!compute)
    return status;
  if (valueOf<int32_t>(*compute) != kFloat32)
    return fail("computing in data type " +
                    std::to_string(valueOf<int32_t>(*compute)) +
                    " (the fake computes in FLOAT)",
                kNotSupportedDataType);
  return kOk;
}

Status Finalizer::matmulOperation(Finalized &f) {
  kind = "matmul operation";
  const Value *desc = need(1523, "its matmul descriptor");
  const Value *a = desc ? need(1520, "A") : nullptr;
  const Value *b = a ? need(1521, "B") : nullptr;
  const Value *c = b ? need(1522, "C") : nullptr;
  if (!c)
    return status;
  Operation &op = f.operation;
  op.kind = OpKind::matmul;
  op.x = a->descriptors[0]->tensor;
  op.b = b->descriptors[0]->tensor;
  op.hasB = true;
  op.y = c->descriptors[0]->tensor;
  const std::vector<int64_t> &ad = op.x.dims, &bd = op.b.dims, &cd = op.y.dims;
  size_t rank = cd.size();
  std::string shapes = "of A " + dimsText(ad) + " and B " + dimsText(bd) +
                       " into C " + dimsText(cd);
  if (rank < 3 || ad.size() != rank || bd.size() != rank)
    return fail(shapes + " (batched matrices of one rank)", kBadParam);
  if (ad[rank - 2] != cd[rank - 2] || bd[rank - 1] != cd[rank - 1] ||
      ad[rank - 1] != bd[rank - 2])
    return fail(shapes + " (A [M, K], B [K, N], C [M, N])", kBadParam);
  // Batch dims: A's are C's or 1; B's are C's or divide them (grouped K/V
  // heads read by several query heads).
  for (size_t i = 0; i + 2 < rank; ++i)
    if ((ad[i] != cd[i] && ad[i] != 1) || cd[i] % bd[i])
      return fail(shapes + " (batch dims that do not broadcast)", kBadParam);
  for (const Tensor *tensor : {&op.x, &op.b, &op.y})
    if (tensor->dataType == kInt32 || tensor->dataType == kBoolean)
      return fail(shapes + " of data type " + std::to_string(tensor->dataType),
                  kNotSupportedDataType);
  return kOk;
}

Status Finalizer::reduction(Finalized &f) {
  kind = "reduction descriptor";
  const Value *mode = need(1600, "CUDNN_ATTR_REDUCTION_OPERATOR");
  const Value *compute =
      mode ? need(1601, "CUDNN_ATTR_REDUCTION_COMP_TYPE") : nullptr;
  if (!compute)
    return status;
  f.reduction = valueOf<int32_t>(*mode);
  if (f.reduction != kReduceAdd && f.reduction != kReduceMax)
    return fail("of operator " + std::to_string(f.reduction) +
                    " (the fake computes ADD and MAX)",
                kNotSupported);
  if (valueOf<int32_t>(*compute) != kFloat32)
    return fail("computing in data type " +
                    std::to_string(valueOf<int32_t>(*compute)),
                kNotSupportedDataType);
  return kOk;
}

Status Finalizer::reductionOperation(Finalized &f) {
  kind = "reduction operation";
  const Value *desc = need(1612, "its reduction descriptor");
  const Value *x = desc ? need(1610, "X") : nullptr;
  const Value *y = x ? need(1611, "Y") : nullptr;
  if (!y)
    return status;
  Operation &op = f.operation;
  op.kind = OpKind::reduction;
  op.reduction = desc->descriptors[0]->reduction;
  op.x = x->descriptors[0]->tensor;
  op.y = y->descriptors[0]->tensor;
  bool fits = op.x.dims.size() == op.y.dims.size();
  for (size_t i = 0; fits && i < op.x.dims.size(); ++i)
    fits = op.y.dims[i] == op.x.dims[i] || op.y.dims[i] == 1;
  if (!fits)
    return fail("of X " + dimsText(op.x.dims) + " into Y " +
                    dimsText(op.y.dims) + " (Y's dims are X's or 1)",
                kBadParam);
  return kOk;
}

Status Finalizer::graph(Finalized &f) {
  kind = "operation graph";
  const Value *ops = need(801, "operations");
  if (!ops || !need(800, "a handle"))
    return status;
  auto graph = std::make_shared<Graph>();
  std::map<int64_t, Tensor> tensors;
  std::map<int64_t, size_t> writer;
  std::set<int64_t> read;
  std::vector<Operation> pending;
  for (const Snapshot &snapshot : ops->descriptors)
    pending.push_back(snapshot->operation);
  for (size_t i = 0; i < pending.size(); ++i) {
    Operation &op = pending[i];
    graph->hasPointwise |= op.kind == OpKind::pointwise;
    graph->hasMatmul |= op.kind == OpKind::matmul;
    std::vector<const Tensor *> inputs = {&op.x};
    if (op.convolution)
      inputs.push_back(&op.w);
    if (op.hasB)
      inputs.push_back(&op.b);
    if (op.hasT)
      inputs.push_back(&op.t);
    std::vector<const Tensor *> all = inputs;
    all.push_back(&op.y);
    if (!op.convolution)
      for (const Tensor *tensor : all)
        if (!tensor->isVirtual &&
            (tensor->dataType == kInt8 || tensor->dataType == kInt32))
          return fail("that reads or writes real tensor " +
                          std::to_string(tensor->uid) + " of data type " +
                          std::to_string(tensor->dataType) +
                          " outside a convolution (the fake computes int8 "
                          "convolutions alone)",
                      kNotSupportedDataType);
    for (const Tensor *tensor : all) {
      auto [at, added] = tensors.emplace(tensor->uid, *tensor);
      if (!added && at->second.serial != tensor->serial)
        return fail("whose unique id " + std::to_string(tensor->uid) +
                        " names two tensors",
                    kDuplicatedEntries);
    }
    for (const Tensor *tensor : inputs)
      read.insert(tensor->uid);
    if (!writer.emplace(op.y.uid, i).second)
      return fail("in which two operations write tensor " +
                      std::to_string(op.y.uid),
                  kBadParam);
  }
  // The attention graph's softmax statistics (max + log of the sum) are
  // a virtual output no operation reads, as cuDNN's frontend builds it
  // for inference.
  int64_t stats = -1;
  if (graph->hasMatmul) {
    graph->attention =
        matchAttention(pending, tensors, stats, graph->notAttention);
  }
  for (const auto &[uid, tensor] : tensors) {
    if (!tensor.isVirtual)
      continue;
    if (!writer.count(uid))
      return fail("that reads virtual tensor " + std::to_string(uid) +
                      ", which no operation writes",
                  kBadParam);
    if (!read.count(uid) && uid != stats)
      return fail("that writes virtual tensor " + std::to_string(uid) +
                      ", which no operation reads",
                  kBadParam);
    if (tensor.byValue)
      return fail("with virtual tensor " + std::to_string(uid) +
                      " passed by value",
                  kBadParam);
  }
  for (const auto &[uid, tensor] : tensors)
    if (tensor.byValue && writer.count(uid))
      return fail("that writes tensor " + std::to_string(uid) +
                      ", which is passed by value",
                  kBadParam);
  // Each operation after those writing what it reads.
  std::vector<bool> done(pending.size(), false);
  while (graph->ops.size() < pending.size()) {
    bool progress = false;
    for (size_t i = 0; i < pending.size(); ++i) {
      if (done[i])
        continue;
      const Operation &op = pending[i];
      bool ready = true;
      for (const Tensor *tensor : {&op.x, &op.w, &op.b, &op.t}) {
        if ((tensor == &op.w && !op.convolution) ||
            (tensor == &op.b && !op.hasB) || (tensor == &op.t && !op.hasT))
          continue;
        auto producer = writer.find(tensor->uid);
        ready &= producer == writer.end() || done[producer->second];
      }
      if (!ready)
        continue;
      done[i] = true;
      progress = true;
      graph->ops.push_back(op);
    }
    if (!progress)
      return fail("with a cycle", kBadParam);
  }
  s.lastGraph.clear();
  for (const auto &[uid, tensor] : tensors) {
    graph->tensors.push_back(tensor);
    s.lastGraph += "tensor " + std::to_string(uid) + " dims " +
                   dimsText(tensor.dims) + " strides " +
                   dimsText(tensor.strides) +
                   (tensor.isVirtual ? " virtual\n" : "\n");
  }
  f.graph = graph;
  return kOk;
}

Status Finalizer::heuristics(Finalized &f) {
  kind = "engine heuristics descriptor";
  const Value *graph = need(201, "its operation graph");
  const Value *mode = graph ? need(200, "a mode") : nullptr;
  if (!mode)
    return status;
  int32_t value = valueOf<int32_t>(*mode);
  if (value < 0 || value > 3)
    return fail("of mode " + std::to_string(value), kBadParam);
  f.graph = graph->descriptors[0]->graph;
  return kOk;
}

Status Finalizer::plan(Finalized &f) {
  kind = "execution plan";
  const Value *config = need(401, "its engine configuration");
  if (!config || !need(400, "a handle"))
    return status;
  f.engine = config->descriptors[0]->engine;
  return kOk;
}

Status Finalizer::variantPack(Finalized &f) {
  kind = "variant pack";
  const Value *uids = need(1000, "unique ids");
  const Value *pointers = uids ? need(1001, "data pointers") : nullptr;
  if (!pointers)
    return status;
  f.uids = valuesOf<int64_t>(*uids);
  f.pointers = valuesOf<void *>(*pointers);
  if (const Value *workspace = find(1003))
    f.workspace = valueOf<void *>(*workspace);
  if (f.uids.size() != f.pointers.size())
    return fail("of " + std::to_string(f.uids.size()) + " unique ids and " +
                    std::to_string(f.pointers.size()) + " pointers",
                kBadParam);
  std::set<int64_t> seen;
  for (int64_t uid : f.uids)
    if (!seen.insert(uid).second)
      return fail("naming tensor " + std::to_string(uid) + " twice",
                  kDuplicatedEntries);
  return kOk;
}

//===- Computing ----------------------------------------------------------===//

/// The tensors of one execution: device pointers of the real ones, float
/// storage of the virtual ones.
struct Memory {
  std::map<int64_t, void *> real;
  std::map<int64_t, std::vector<float>> intermediates;
  /// The values of the scalars passed by value.
  std::map<int64_t, float> scalars;
};

float loadAt(const Tensor &t, Memory &memory, int64_t at) {
  if (t.byValue)
    return memory.scalars[t.uid];
  if (t.isVirtual)
    return memory.intermediates[t.uid][static_cast<size_t>(at)];
  const void *base = memory.real[t.uid];
  if (t.dataType == kFloat16)
    return graphc::halfToFloat(static_cast<const uint16_t *>(base)[at]);
  if (t.dataType == kBfloat16)
    return graphc::bf16ToFloat(static_cast<const uint16_t *>(base)[at]);
  return static_cast<const float *>(base)[at];
}

void storeAt(const Tensor &t, Memory &memory, int64_t at, float value) {
  if (t.isVirtual) {
    std::vector<float> &storage = memory.intermediates[t.uid];
    storage.resize(static_cast<size_t>(spanOf(t)));
    // A 16-bit intermediate holds what its type holds.
    if (t.dataType == kFloat16)
      value = graphc::halfToFloat(graphc::floatToHalf(value));
    else if (t.dataType == kBfloat16)
      value = graphc::bf16ToFloat(graphc::floatToBf16(value));
    storage[static_cast<size_t>(at)] = value;
    return;
  }
  void *base = memory.real[t.uid];
  if (t.dataType == kFloat16)
    static_cast<uint16_t *>(base)[at] = graphc::floatToHalf(value);
  else if (t.dataType == kBfloat16)
    static_cast<uint16_t *>(base)[at] = graphc::floatToBf16(value);
  else
    static_cast<float *>(base)[at] = value;
}

/// Calls `visit(index, offset)` for every element of `t` in row-major order
/// of its dims; offset by its strides.
template <typename Visit> void forEachElement(const Tensor &t, Visit visit) {
  std::vector<int64_t> index(t.dims.size(), 0);
  int64_t count = 1;
  for (int64_t dim : t.dims)
    count *= dim;
  for (int64_t n = 0; n < count; ++n) {
    int64_t offset = 0;
    for (size_t i = 0; i < index.size(); ++i)
      offset += index[i] * t.strides[i];
    visit(index, offset);
    for (size_t i = index.size(); i-- > 0;) {
      if (++index[i] < t.dims[i])
        break;
      index[i] = 0;
    }
  }
}

/// `t` as dense row-major floats.
std::vector<float> gather(const Tensor &t, Memory &memory) {
  std::vector<float> out;
  forEachElement(t, [&](const std::vector<int64_t> &, int64_t offset) {
    out.push_back(loadAt(t, memory, offset));
  });
  return out;
}

/// Writes dense row-major `values` into `t`, rounding to its type.
void scatter(const Tensor &t, Memory &memory,
             const std::vector<float> &values) {
  size_t next = 0;
  forEachElement(t, [&](const std::vector<int64_t> &, int64_t offset) {
    storeAt(t, memory, offset, values[next++]);
  });
}

/// Calls `visit(index, offset)` for every element of 4-d or 5-d `t`,
/// index lifted to [n, c, d, h, w] (leading unit spatial dims).
template <typename Visit> void forEachLifted(const Tensor &t, Visit visit) {
  forEachElement(t, [&](const std::vector<int64_t> &index, int64_t offset) {
    std::vector<int64_t> lifted = {index[0], index[1], 0, 0, 0};
    for (size_t i = 2; i < index.size(); ++i)
      lifted[5 - index.size() + i] = index[i];
    visit(lifted, offset);
  });
}

/// An int8 convolution (checked: INT8 X and W, real INT32 Y): every
/// element of Y the sum of its products, exact in int64 and wrapped to
/// int32 (alpha times it, plus beta times Y, wrapped alike). Every engine
/// computes it alike: integer sums are exact.
void convolveInt8(const Operation &op, Memory &memory) {
  const auto *x = static_cast<const int8_t *>(memory.real[op.x.uid]);
  const auto *w = static_cast<const int8_t *>(memory.real[op.w.uid]);
  auto *y = static_cast<int32_t *>(memory.real[op.y.uid]);
  // [n][c][d][h][w] offsets of X and [k][c/g][t][r][s] of W.
  auto lift = [](const std::vector<int64_t> &dims) {
    std::vector<int64_t> out = {dims[0], dims[1], 1, 1, 1};
    for (size_t i = 2; i < dims.size(); ++i)
      out[5 - dims.size() + i] = dims[i];
    return out;
  };
  auto liftStrides = [](const std::vector<int64_t> &strides) {
    std::vector<int64_t> out = {strides[0], strides[1], 0, 0, 0};
    for (size_t i = 2; i < strides.size(); ++i)
      out[5 - strides.size() + i] = strides[i];
    return out;
  };
  const std::vector<int64_t> xd = lift(op.x.dims), wd = lift(op.w.dims),
                             xs = liftStrides(op.x.strides),
                             ws = liftStrides(op.w.strides);
  std::vector<int64_t> stride(3, 1), dilation(3, 1), pad(3, 0);
  const size_t spatial = op.conv.strides.size();
  for (size_t i = 0; i < spatial; ++i) {
    stride[3 - spatial + i] = op.conv.strides[i];
    dilation[3 - spatial + i] = op.conv.dilations[i];
    pad[3 - spatial + i] = op.conv.prePaddings[i];
  }
  const int64_t cg = wd[1], kg = wd[0] / (xd[1] / cg);
  const int64_t alpha = int64_t(op.alpha), beta = int64_t(op.beta);
  forEachLifted(op.y, [&](const std::vector<int64_t> &at, int64_t offset) {
    const int64_t b = at[0], o = at[1], group = o / kg;
    int64_t sum = 0;
    for (int64_t ci = 0; ci < cg; ++ci)
      for (int64_t fd = 0; fd < wd[2]; ++fd)
        for (int64_t fh = 0; fh < wd[3]; ++fh)
          for (int64_t fw = 0; fw < wd[4]; ++fw) {
            const int64_t id = at[2] * stride[0] - pad[0] + fd * dilation[0];
            const int64_t ih = at[3] * stride[1] - pad[1] + fh * dilation[1];
            const int64_t iw = at[4] * stride[2] - pad[2] + fw * dilation[2];
            if (id < 0 || id >= xd[2] || ih < 0 || ih >= xd[3] || iw < 0 ||
                iw >= xd[4])
              continue;
            int64_t td = fd, th = fh, tw = fw;
            if (op.conv.mode == kConvolutionMode) {
              td = wd[2] - 1 - fd;
              th = wd[3] - 1 - fh;
              tw = wd[4] - 1 - fw;
            }
            const int64_t xv = x[b * xs[0] + (group * cg + ci) * xs[1] +
                                 id * xs[2] + ih * xs[3] + iw * xs[4]];
            const int64_t wv = w[o * ws[0] + ci * ws[1] + td * ws[2] +
                                 th * ws[3] + tw * ws[4]];
            sum += xv * wv;
          }
    int64_t value = alpha * sum;
    if (beta != 0)
      value += beta * int64_t(y[offset]);
    // The low 32 bits, two's complement: int32 arithmetic wraps.
    const uint32_t low = uint32_t(uint64_t(value));
    y[offset] = low < 0x80000000u ? int32_t(low)
                                  : int32_t(int64_t(low) - (int64_t(1) << 32));
  });
}

/// Y = alpha conv(X, W) + beta Y over dense floats, 4-d or 5-d.
void convolve(const Operation &op, const std::vector<int32_t> &notes,
              Memory &memory) {
  if (op.x.dataType == kInt8) {
    convolveInt8(op, memory);
    return;
  }
  std::vector<float> x = gather(op.x, memory), w = gather(op.w, memory);
  // The engine's numerics: tensor cores read float32 as tf32; a
  // down-converting engine reads everything as float16.
  bool tensorCore = std::count(notes.begin(), notes.end(), kNoteTensorCore);
  bool downConvert =
      std::count(notes.begin(), notes.end(), kNoteDownConvertInputs);
  for (std::vector<float> *values : {&x, &w})
    for (float &value : *values) {
      if (tensorCore && op.x.dataType == kFloat32)
        value = graphc::roundToTf32(value);
      if (downConvert)
        value = graphc::halfToFloat(graphc::floatToHalf(value));
    }
  // Three spatial dims, leading units for a 4-d convolution.
  auto lift = [](const std::vector<int64_t> &dims, size_t at, int64_t unit) {
    std::vector<int64_t> out(3, unit);
    size_t spatial = dims.size() - at;
    for (size_t i = 0; i < spatial; ++i)
      out[3 - spatial + i] = dims[at + i];
    return out;
  };
  const std::vector<int64_t> in = lift(op.x.dims, 2, 1),
                             filter = lift(op.w.dims, 2, 1),
                             out = lift(op.y.dims, 2, 1),
                             stride = lift(op.conv.strides, 0, 1),
                             dilation = lift(op.conv.dilations, 0, 1),
                             pad = lift(op.conv.prePaddings, 0, 0);
  const int64_t n = op.x.dims[0], c = op.x.dims[1], k = op.w.dims[0],
                cg = op.w.dims[1], groups = c / cg, kg = k / groups;
  const int64_t inVolume = in[0] * in[1] * in[2];
  const int64_t filterVolume = filter[0] * filter[1] * filter[2];
  const int64_t outVolume = out[0] * out[1] * out[2];
  std::vector<float> y(static_cast<size_t>(n * k * outVolume));
  std::vector<float> prior;
  if (op.beta != 0)
    prior = gather(op.y, memory);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < k; ++o)
      for (int64_t od = 0; od < out[0]; ++od)
        for (int64_t oh = 0; oh < out[1]; ++oh)
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            float sum = 0;
            const int64_t group = o / kg;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t fd = 0; fd < filter[0]; ++fd)
                for (int64_t fh = 0; fh < filter[1]; ++fh)
                  for (int64_t fw = 0; fw < filter[2]; ++fw) {
                    int64_t id = od * stride[0] - pad[0] + fd * dilation[0];
                    int64_t ih = oh * stride[1] - pad[1] + fh * dilation[1];
                    int64_t iw = ow * stride[2] - pad[2] + fw * dilation[2];
                    if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1] ||
                        iw < 0 || iw >= in[2])
                      continue;
                    // CUDNN_CONVOLUTION flips the filter.
                    int64_t td = fd, th = fh, tw = fw;
                    if (op.conv.mode == kConvolutionMode) {
                      td = filter[0] - 1 - fd;
                      th = filter[1] - 1 - fh;
                      tw = filter[2] - 1 - fw;
                    }
                    float xv = x[static_cast<size_t>(
                        (b * c + group * cg + ci) * inVolume +
                        (id * in[1] + ih) * in[2] + iw)];
                    float wv = w[static_cast<size_t>(
                        (o * cg + ci) * filterVolume +
                        (td * filter[1] + th) * filter[2] + tw)];
                    sum += xv * wv;
                  }
            size_t at = static_cast<size_t>((b * k + o) * outVolume +
                                            (od * out[1] + oh) * out[2] + ow);
            float value = float(op.alpha) * sum;
            if (op.beta != 0)
              value += float(op.beta) * prior[at];
            y[at] = value;
          }
  scatter(op.y, memory, y);
}

/// The offset in `t` of the element at `index` of a tensor `t` broadcasts
/// to (its dims of 1 stay at 0).
int64_t broadcastOffset(const Tensor &t, const std::vector<int64_t> &index) {
  int64_t at = 0;
  for (size_t i = 0; i < index.size(); ++i)
    if (t.dims[i] > 1)
      at += index[i] * t.strides[i];
  return at;
}

/// One pointwise operation, element by element of Y, B and T broadcast:
/// arithmetic on alpha1 X and alpha2 B, RELU_FWD, SWISH_FWD (t sigmoid(
/// beta t) for t = alpha1 X), GELU_FWD (t/2 (1 + erf(t / sqrt(2))) in
/// double), GEN_INDEX (the index along its axis),
/// CMP_GE (1 or 0) and BINARY_SELECT (X where T holds, else B).
void applyPointwise(const Operation &op, Memory &memory) {
  forEachElement(op.y, [&](const std::vector<int64_t> &index, int64_t offset) {
    float x =
        float(op.alpha) * loadAt(op.x, memory, broadcastOffset(op.x, index));
    float b = op.hasB ? float(op.alpha2) *
                            loadAt(op.b, memory, broadcastOffset(op.b, index))
                      : 0.0f;
    float value = x;
    switch (op.pointwiseMode) {
    case kPointwiseAdd:
      value = x + b;
      break;
    case kPointwiseMul:
      value = x * b;
      break;
    case kPointwiseSub:
      value = x - b;
      break;
    case kPointwiseDiv:
      value = x / b;
      break;
    case kPointwiseExp:
      value = std::exp(x);
      break;
    case kPointwiseLog:
      value = std::log(x);
      break;
    case kPointwiseSwishForward:
      value = x / (1.0f + std::exp(-float(op.swishBeta) * x));
      break;
    case kPointwiseReluForward:
      value = x < 0 ? 0.0f : x; // NaN stays NaN
      break;
    case kPointwiseGeluForward:
      value = float(0.5 * double(x) * (1.0 + std::erf(double(x) / std::sqrt(2.0))));
      break;
    case kPointwiseGenIndex:
      value = float(index[static_cast<size_t>(op.axis)]);
      break;
    case kPointwiseCmpGe:
      value = x >= b ? 1.0f : 0.0f;
      break;
    case kPointwiseBinarySelect:
      value = loadAt(op.t, memory, broadcastOffset(op.t, index)) != 0 ? x : b;
      break;
    }
    storeAt(op.y, memory, offset, value);
  });
}

/// C = A B per batch index, products summed in float in ascending k; A's
/// batch dims of 1 broadcast, and C's batch index c reads B's c / (C's
/// extent / B's) (grouped heads).
void multiply(const Operation &op, Memory &memory) {
  const std::vector<int64_t> &cd = op.y.dims;
  const size_t rank = cd.size();
  const int64_t k = op.x.dims[rank - 1];
  forEachElement(op.y, [&](const std::vector<int64_t> &index, int64_t offset) {
    std::vector<int64_t> a(index), b(index);
    for (size_t i = 0; i + 2 < rank; ++i) {
      a[i] = op.x.dims[i] == 1 ? 0 : index[i];
      b[i] = index[i] / (cd[i] / op.b.dims[i]);
    }
    float sum = 0;
    for (int64_t j = 0; j < k; ++j) {
      a[rank - 1] = j;
      b[rank - 2] = j;
      int64_t at = 0, bt = 0;
      for (size_t i = 0; i < rank; ++i) {
        at += a[i] * op.x.strides[i];
        bt += b[i] * op.b.strides[i];
      }
      sum += loadAt(op.x, memory, at) * loadAt(op.b, memory, bt);
    }
    storeAt(op.y, memory, offset, sum);
  });
}

/// Y = the MAX or sum of X over the dims Y has as 1 (and X not), in float.
void reduce(const Operation &op, Memory &memory) {
  std::map<int64_t, float> totals;
  forEachElement(op.x, [&](const std::vector<int64_t> &index, int64_t offset) {
    int64_t at = broadcastOffset(op.y, index);
    float value = loadAt(op.x, memory, offset);
    auto [slot, added] = totals.emplace(at, value);
    if (added)
      return;
    slot->second =
        op.reduction == kReduceMax
            ? (value > slot->second || std::isnan(value) ? value : slot->second)
            : slot->second + value;
  });
  for (const auto &[at, value] : totals)
    storeAt(op.y, memory, at, value);
}

/// A queued execution: the plan's graph and engine, the pointers of the
/// variant pack as they were at the call.
struct Run {
  Engine engine;
  std::map<int64_t, void *> pointers;
  void *workspace;
  /// The scalars passed by value, read when the execution was queued.
  std::map<int64_t, float> scalars;
};

void execute(const Run &run) {
  // A real engine may use all of its workspace: later readers of it must
  // not expect what they left there.
  if (run.workspace && run.engine.workspace)
    std::memset(run.workspace, 0x5a, run.engine.workspace);
  Memory memory;
  memory.real = run.pointers;
  memory.scalars = run.scalars;
  for (const Operation &op : run.engine.graph->ops) {
    switch (op.kind) {
    case OpKind::convolution:
      convolve(op, run.engine.notes, memory);
      break;
    case OpKind::pointwise:
      applyPointwise(op, memory);
      break;
    case OpKind::matmul:
      multiply(op, memory);
      break;
    case OpKind::reduction:
      reduce(op, memory);
      break;
    }
  }
}

const char *statusText(Status status) {
  switch (status) {
  case kOk:
    return "CUDNN_STATUS_SUCCESS";
  case kNotInitialized:
    return "CUDNN_STATUS_NOT_INITIALIZED";
  case kBadParam:
    return "CUDNN_STATUS_BAD_PARAM";
  case kNullPointer:
    return "CUDNN_STATUS_BAD_PARAM_NULL_POINTER";
  case kMisalignedPointer:
    return "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER";
  case kNotFinalized:
    return "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED";
  case kOutOfBound:
    return "CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND";
  case kSizeInsufficient:
    return "CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT";
  case kDuplicatedEntries:
    return "CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES";
  case kWrongAttributeType:
    return "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE";
  case kWrongDescriptorType:
    return "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE";
  case kNotSupported:
    return "CUDNN_STATUS_NOT_SUPPORTED";
  case kNotSupportedShape:
    return "CUDNN_STATUS_NOT_SUPPORTED_SHAPE";
  case kNotSupportedDataType:
    return "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE";
  case kExecutionFailed:
    return "CUDNN_STATUS_EXECUTION_FAILED";
  default:
    return "CUDNN_STATUS_UNKNOWN";
  }
}

/// The live descriptor `pointer`, or null.
Descriptor *descriptorOf(DnnState &s, void *pointer) {
  auto *descriptor = static_cast<Descriptor *>(pointer);
  return s.descriptors.count(descriptor) ? descriptor : nullptr;
}
} // namespace

void fakecu::resetCudnn() {
  DnnState &s = dnn();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.refuseFusion = refuseFusionByDefault();
  s.refuseSdpa = refuseSdpaByDefault();
  s.fastestEngine = fastestEngineByDefault();
  s.requiredWorkspace = 0;
  s.lastRank = -1;
  s.lastError.clear();
  s.lastGraph.clear();
}

extern "C" {
#define FAKE_API __attribute__((visibility("default")))

//===- Control interface --------------------------------------------------===//

FAKE_API void fakecu_cudnn_set_fastest_engine(int rank) {
  std::lock_guard<std::mutex> lock(dnn().mutex);
  dnn().fastestEngine = rank;
}

FAKE_API void fakecu_cudnn_refuse_fusion(int refuse) {
  std::lock_guard<std::mutex> lock(dnn().mutex);
  dnn().refuseFusion = refuse != 0;
}

FAKE_API void fakecu_cudnn_refuse_sdpa(int refuse) {
  std::lock_guard<std::mutex> lock(dnn().mutex);
  dnn().refuseSdpa = refuse != 0;
}

FAKE_API void fakecu_cudnn_require_workspace(unsigned long long bytes) {
  std::lock_guard<std::mutex> lock(dnn().mutex);
  dnn().requiredWorkspace = bytes;
}

FAKE_API int fakecu_cudnn_last_engine_rank(void) {
  std::lock_guard<std::mutex> lock(dnn().mutex);
  return dnn().lastRank;
}

FAKE_API const char *fakecu_cudnn_last_error(void) {
  return dnn().lastError.c_str();
}

FAKE_API const char *fakecu_cudnn_last_graph(void) {
  return dnn().lastGraph.c_str();
}

//===- Library and handles ------------------------------------------------===//

FAKE_API size_t cudnnGetVersion(void) {
  fakecu::countCall("cudnnGetVersion");
  return 91900;
}

FAKE_API const char *cudnnGetErrorString(Status status) {
  return statusText(status);
}

FAKE_API Status cudnnCreate(Handle **handle) {
  fakecu::countCall("cudnnCreate");
  DnnState &s = dnn();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!handle)
    return refuse(s, "cudnnCreate", "no handle to set", kNullPointer);
  *handle = new Handle();
  s.handles.insert(*handle);
  return kOk;
}

FAKE_API Status cudnnDestroy(Handle *handle) {
  fakecu::countCall("cudnnDestroy");
  DnnState &s = dnn();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.handles.erase(handle))
    return refuse(s, "cudnnDestroy", "not a handle", kBadParam);
  delete handle;
  return kOk;
}

FAKE_API Status cudnnSetStream(Handle *handle, void *stream) {
  fakecu::countCall("cudnnSetStream");
  DnnState &s = dnn();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.handles.count(handle))
    return refuse(s, "cudnnSetStream", "not a handle", kBadParam);
  handle->stream = stream;
  return kOk;
}

//===- Descriptors --------------------------------------------------------===//

FAKE_API Status cudnnBackendCreateDescriptor(int type, void **descriptor) {
  fakecu::countCall("cudnnBackendCreateDescriptor");
  const char *function = "cudnnBackendCreateDescriptor";
  DnnState &s = dnn();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!descriptor)
    return refuse(s, function, "no descriptor to set", kNullPointer);
  bool known = false;
  for (const AttributeSpec &spec : kAttributes)
    known |= spec.descriptor == type;
  if (!known)
    return refuse(s, function,
                  "descriptor type " + std::to_string(type) +
                      " is not one the fake models",
                  kNotSupported);
  auto *created = new Descriptor{type, s.nextSerial++, {}, nullptr};
  s.descriptors.insert(created);
  *descriptor = created;
  return kOk;
}

FAKE_API Status cudnnBackendDestroyDescriptor(void *descriptor) {
  fakecu::countCall("cudnnBackendDestroyDescriptor");
  DnnState &s = dnn();
  std::lock_guard<std::mutex> lock(s.mutex);
  Descriptor *live = descriptorOf(s, descriptor);
  if (!live)
    return refuse(s, "cudnnBackendDestroyDescriptor", "not a descriptor",
                  kBadParam);
  s.descriptors.erase(live);
  delete live;
  return kOk;
}

FAKE_API Status cudnnBackendSetAttribute(void *descriptor, int attribute,
                                         int type, int64_t count,
                                         const void *elements) {
  fakecu::countCall("cudnnBackendSetAttribute");
  const char *function = "cudnnBackendSetAttribute";
  DnnState &s = dnn();
  std::lock_guard<std::mutex> lock(s.mutex);
  Descriptor *d = descriptorOf(s, descriptor);
  if (!d)
    return refuse(s, function, "not a descriptor", kBadParam);
  std::string what = "attribute " + std::to_string(attribute) +
                     " of descriptor type " + std::to_string(d->type);
  if (d->finalized)
    return refuse(s, function, what + ": the descriptor is finalized",
                  kBadParam);
  const AttributeSpec *spec = specOf(d->type, attribute);
  if (!spec)
    return refuse(s, function, what + " is not one the fake models", kBadParam);
  if (!spec->settable)
    return refuse(s, function, what + " is read only", kBadParam);
  if (type != spec->type && type != spec->alternative)
    return refuse(s, function,
                  what + " takes attribute type " + std::to_string(spec->type) +
                      ", got " + std::to_string(type),
                  kWrongAttributeType);
  if (count < spec->least || count > spec->most)
    return refuse(s, function,
                  what + " takes " + std::to_string(spec->least) + " to " +
                      std::to_string(spec->most) + " elements, got " +
                      std::to_string(count),
                  kBadParam);
  if (!elements)
    return refuse(s, function, what + " without elements", kNullPointer);
  Value value{type, count, {}, {}};
  const auto *bytes = static_cast<const unsigned char *>(elements);
  value.bytes.assign(bytes, bytes + count * elementSize(type));
  if (type == kHandleType) {
    auto *handle = valueOf<Handle *>(value);
    if (!s.handles.count(handle))
      return refuse(s, function, what + ": not a handle", kBadParam);
  }
  if (type == kBackendDescriptorType) {
    for (void *pointer : valuesOf<void *>(value)) {
      Descriptor *referred = descriptorOf(s, pointer);
      if (!referred)
        return refuse(s, function, what + ": not a descriptor", kBadParam);
      if (!referred->finalized)
        return refuse(s, function,
                      what + ": descriptor of type " +
                          std::to_string(referred->type) + " is not finalized",
                      kNotFinalized);
      bool operation = referred->type == kConvForwardDesc ||
                       referred->type == kPointwiseOpDesc ||
                       referred->type == kMatmulOpDesc ||
                       referred->type == kReductionOpDesc;
      if (referred->type != spec->refers[0] &&
          referred->type != spec->refers[1] &&
          !(spec->refers[0] == kAnyOperation && operation))
        return refuse(s, function,
                      what + " takes no descriptor of type " +
                          std::to_string(referred->type),
                      kWrongDescriptorType);
      value.descriptors.push_back(referred->finalized);
    }
  }
  if (type == kBooleanType && value.bytes[0] > 1)
    return refuse(s, function,
                  what + ": a bool of " + std::to_string(value.bytes[0]),
                  kBadParam);
  d->attributes[attribute] = std::move(value);
  return kOk;
}

FAKE_API Status cudnnBackendFinalize(void *descriptor) {
  fakecu::countCall("cudnnBackendFinalize");
  DnnState &s = dnn();
  std::lock_guard<std::mutex> lock(s.mutex);
  Descriptor *d = descriptorOf(s, descriptor);
  if (!d)
    return refuse(s, "cudnnBackendFinalize", "not a descriptor", kBadParam);
  if (d->finalized)
    return refuse(s, "cudnnBackendFinalize",
                  "descriptor of type " + std::to_string(d->type) +
                      " is finalized already",
                  kBadParam);
  auto finalized = std::make_shared<Finalized>();
  finalized->type = d->type;
  Finalizer finalizer(s, *d);
  Status status;
  switch (d->type) {
  case kTensorDesc:
    status = finalizer.tensor(*finalized);
    break;
  case kConvolutionDesc:
    status = finalizer.convolution(*finalized);
    break;
  case kPointwiseDesc:
    status = finalizer.pointwise(*finalized);
    break;
  case kConvForwardDesc:
    status = finalizer.convForward(*finalized);
    break;
  case kPointwiseOpDesc:
    status = finalizer.pointwiseOperation(*finalized);
    break;
  case kMatmulDesc:
    status = finalizer.matmul(*finalized);
    break;
  case kMatmulOpDesc:
    status = finalizer.matmulOperation(*finalized);
    break;
  case kReductionDesc:
    status = finalizer.reduction(*finalized);
    break;
  case kReductionOpDesc:
    status = finalizer.reductionOperation(*finalized);
    break;
  case kGraphDesc:
    status = finalizer.graph(*finalized);
    break;
  case kHeuristicsDesc:
    status = finalizer.heuristics(*finalized);
    break;
  case kPlanDesc:
    status = finalizer.plan(*finalized);
    break;
  case kVariantPackDesc:
    status = finalizer.variantPack(*finalized);
    break;
  default:
    // Engines and their configurations come from the heuristic.
    status = refuse(s, "cudnnBackendFinalize",
                    "the fake fills descriptors of type " +
                        std::to_string(d->type) + " from its heuristic only",
                    kNotSupported);
  }
  if (status == kOk)
    d->finalized = finalized;
  return status;
}

FAKE_API Status cudnnBackendGetAttribute(void *descriptor, int attribute,
                                         int type, int64_t requested,
                                         int64_t *count, void *elements) {
  fakecu::countCall("cudnnBackendGetAttribute");
  const char *function = "cudnnBackendGetAttribute";
  DnnState &s = dnn();
  std::lock_guard<std::mutex> lock(s.mutex);
  Descriptor *d = descriptorOf(s, descriptor);
  if (!d)
    return refuse(s, function, "not a descriptor", kBadParam);
  std::string what = "attribute " + std::to_string(attribute) +
                     " of descriptor type " + std::to_string(d->type);
  if (!d->finalized)
    return refuse(s, function, what + ": the descriptor is not finalized",
                  kNotFinalized);
  const AttributeSpec *spec = specOf(d->type, attribute);
  if (!spec || spec->settable)
    return refuse(s, function, what + " is not one the fake reads back",
                  kBadParam);
  if (type != spec->type)
    return refuse(s, function,
                  what + " has attribute type " + std::to_string(spec->type) +
                      ", not " + std::to_string(type),
                  kWrongAttributeType);
  if (!count || requested < 0 || (requested > 0 && !elements))
    return refuse(s, function, what + " with nowhere to put it", kNullPointer);
  const Finalized &f = *d->finalized;
  auto putInt64 = [&](int64_t value) {
    if (requested < 1)
      return refuse(s, function, what + " asked for no element", kBadParam);
    std::memcpy(elements, &value, sizeof(value));
    *count = 1;
    return kOk;
  };
  /// Fills the caller's unfinalized descriptors of `wanted` type.
  auto fill = [&](int wanted, const std::vector<Engine> &engines) {
    *count = static_cast<int64_t>(engines.size());
    if (requested == 0)
      return kOk;
    auto *targets = static_cast<void **>(elements);
    int64_t filled = std::min<int64_t>(requested, *count);
    for (int64_t i = 0; i < filled; ++i) {
      Descriptor *target = descriptorOf(s, targets[i]);
      if (!target || target->type != wanted || target->finalized)
        return refuse(s, function,
                      what + ": element " + std::to_string(i) +
                          " is no new descriptor of type " +
                          std::to_string(wanted),
                      kBadParam);
      auto snapshot = std::make_shared<Finalized>();
      snapshot->type = wanted;
      snapshot->engine = engines[static_cast<size_t>(i)];
      target->finalized = snapshot;
    }
    *count = filled;
    return kOk;
  };
  switch (d->type * 10000 + attribute) {
  case kHeuristicsDesc * 10000 + 202: {
    std::vector<Engine> engines;
    // Matmuls only as the fused attention graph; convolutions with an
    // epilogue unless refused.
    bool offer = f.graph->hasMatmul
                     ? f.graph->attention && !s.refuseSdpa
                     : !(s.refuseFusion && f.graph->hasPointwise);
    if (f.graph->hasMatmul && !f.graph->attention)
      refuse(s, function,
             "no engine for a graph with matmuls that is not the attention "
             "graph: " +
                 f.graph->notAttention,
             kNotSupported);
    if (offer)
      for (int rank = 0; rank < int(std::size(kEngines)); ++rank)
        engines.push_back(
            {f.graph, rank,
             std::max(kEngines[rank].workspace, s.requiredWorkspace),
             kEngines[rank].notes});
    return fill(kEngineConfigDesc, engines);
  }
  case kEngineConfigDesc * 10000 + 300:
    return fill(kEngineDesc, {f.engine});
  case kEngineConfigDesc * 10000 + 303:
  case kPlanDesc * 10000 + 402:
    return putInt64(static_cast<int64_t>(f.engine.workspace));
  case kEngineDesc * 10000 + 1303: {
    const std::vector<int32_t> &notes = f.engine.notes;
    *count = std::min<int64_t>(requested, int64_t(notes.size()));
    if (requested == 0)
      *count = int64_t(notes.size());
    else if (*count > 0)
      std::memcpy(elements, notes.data(), size_t(*count) * sizeof(int32_t));
    return kOk;
  }
  default: // the behaviour notes: none
    *count = 0;
    return kOk;
  }
}

//===- Execution ----------------------------------------------------------===//

FAKE_API Status cudnnBackendExecute(Handle *handle, void *plan, void *pack) {
  fakecu::countCall("cudnnBackendExecute");
  const char *function = "cudnnBackendExecute";
  DnnState &s = dnn();
  std::unique_lock<std::mutex> lock(s.mutex);
  if (!s.handles.count(handle))
    return refuse(s, function, "not a handle", kBadParam);
  Descriptor *planDesc = descriptorOf(s, plan);
  Descriptor *packDesc = descriptorOf(s, pack);
  if (!planDesc || planDesc->type != kPlanDesc || !packDesc ||
      packDesc->type != kVariantPackDesc)
    return refuse(s, function, "no execution plan and variant pack", kBadParam);
  if (!planDesc->finalized || !packDesc->finalized)
    return refuse(s, function, "a plan or variant pack that is not finalized",
                  kNotFinalized);
  const Engine &engine = planDesc->finalized->engine;
  const Finalized &variants = *packDesc->finalized;
  std::map<int64_t, const Tensor *> tensors;
  for (const Tensor &tensor : engine.graph->tensors)
    tensors[tensor.uid] = &tensor;
  Run run{engine, {}, variants.workspace, {}};
  for (size_t i = 0; i < variants.uids.size(); ++i) {
    int64_t uid = variants.uids[i];
    auto found = tensors.find(uid);
    if (found == tensors.end())
      return refuse(s, function,
                    "the variant pack names tensor " + std::to_string(uid) +
                        ", which is not in the plan's graph",
                    kBadParam);
    if (found->second->isVirtual)
      return refuse(s, function,
                    "the variant pack names tensor " + std::to_string(uid) +
                        ", which is virtual",
                    kBadParam);
    if (found->second->byValue) {
      if (!variants.pointers[i])
        return refuse(s, function,
                      "scalar tensor " + std::to_string(uid) +
                          " passed by value at a null pointer",
                      kNullPointer);
      run.scalars[uid] = *static_cast<const float *>(variants.pointers[i]);
    }
    run.pointers[uid] = variants.pointers[i];
  }
  struct Span {
    const Tensor *tensor;
    const void *pointer;
    uint64_t bytes;
  };
  std::vector<Span> spans;
  for (const Tensor &tensor : engine.graph->tensors) {
    if (tensor.isVirtual)
      continue;
    std::string what = "tensor " + std::to_string(tensor.uid);
    if (tensor.byValue) {
      if (!run.pointers.count(tensor.uid))
        return refuse(s, function, "the variant pack lacks " + what, kBadParam);
      continue;
    }
    auto pointer = run.pointers.find(tensor.uid);
    if (pointer == run.pointers.end())
      return refuse(s, function, "the variant pack lacks " + what, kBadParam);
    const void *at = pointer->second;
    uint64_t bytes = uint64_t(spanOf(tensor)) * dataTypeBytes(tensor.dataType);
    if (!at)
      return refuse(s, function, what + " at a null pointer", kNullPointer);
    if (reinterpret_cast<uintptr_t>(at) % uint64_t(tensor.alignment))
      return refuse(s, function,
                    what + " at " + hex(at) + " is less aligned than its " +
                        std::to_string(tensor.alignment) + " bytes",
                    kMisalignedPointer);
    if (!fakecu::inDeviceMemory(at, bytes))
      return refuse(s, function,
                    what + " (" + std::to_string(bytes) + " bytes at " +
                        hex(at) + ") is not inside one device allocation",
                    kOutOfBound);
    spans.push_back({&tensor, at, bytes});
  }
  if (engine.workspace &&
      (!run.workspace ||
       !fakecu::inDeviceMemory(run.workspace, engine.workspace)))
    return refuse(
        s, function,
        "a workspace at " + hex(run.workspace) + " without the plan's " +
            std::to_string(engine.workspace) + " bytes of device memory",
        kSizeInsufficient);
  auto intersect = [](const void *x, uint64_t xBytes, const void *y,
                      uint64_t yBytes) {
    auto xa = reinterpret_cast<uintptr_t>(x),
         ya = reinterpret_cast<uintptr_t>(y);
    return xBytes && yBytes && xa < ya + yBytes && ya < xa + xBytes;
  };
  // What an operation writes lies apart from everything else of the graph.
  std::set<int64_t> written;
  for (const Operation &op : engine.graph->ops)
    written.insert(op.y.uid);
  for (const Span &span : spans) {
    if (engine.workspace &&
        intersect(span.pointer, span.bytes, run.workspace, engine.workspace))
      return refuse(s, function,
                    "the workspace overlaps tensor " +
                        std::to_string(span.tensor->uid),
                    kBadParam);
    if (!written.count(span.tensor->uid))
      continue;
    for (const Span &other : spans)
      if (&other != &span &&
          intersect(span.pointer, span.bytes, other.pointer, other.bytes))
        return refuse(s, function,
                      "output tensor " + std::to_string(span.tensor->uid) +
                          " overlaps tensor " +
                          std::to_string(other.tensor->uid),
                      kBadParam);
  }
  s.lastRank = engine.rank;
  void *stream = handle->stream;
  const double slower = s.fastestEngine >= 0 && engine.rank != s.fastestEngine
                            ? kSlowerMicros
                            : 0.0;
  lock.unlock();
  int result =
      fakecu::enqueueWork(stream, "cudnnBackendExecute", [run, slower] {
        execute(run);
        if (slower)
          fakecu::advanceClock(slower);
      });
  if (result != 0) {
    lock.lock();
    return refuse(s, function,
                  "the stream refused the work (CUresult " +
                      std::to_string(result) + ")",
                  kExecutionFailed);
  }
  return kOk;
}

} // extern "C"
