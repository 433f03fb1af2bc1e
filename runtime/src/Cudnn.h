//===- Cudnn.h - cuDNN, loaded at run time ----------------------*- C++ -*-===//
//
// Library kernels of GRAPHC_LIBRARY_CUDNN (convolutions, attention) run on
// cuDNN's graph (backend) API. Like the driver and cuBLASLt, it is never
// linked: the first model with such a kernel opens $GRAPHC_CUDNN_LIBRARY, else
// libcudnn.so.9, and reads its entry points into a table. The few cuDNN
// types and constants used are declared here;
// test/runtime/CudnnConstantsTest.cpp checks them against cudnn_graph.h
// where the toolkit has it.
//
// Testing hook: GRAPHC_CUDNN_LIBRARY names the library to open
// (test/runtime's fake driver implements cuDNN's backend API too).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_CUDNN_H
#define GRAPHC_RUNTIME_SRC_CUDNN_H

#include "runtime/src/CudaDriver.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace graphc::rt::dnn {

using Status = int; // cudnnStatus_t
using Handle = struct cudnnContext *;
using Descriptor = void *; // cudnnBackendDescriptor_t

constexpr Status kSuccess = 0;
/// Statuses come in categories of a thousand (CUDNN_STATUS_CATEGORY).
constexpr Status kStatusBadParam = 2000;
constexpr Status kStatusNotSupported = 3000;
constexpr Status kStatusHostAllocationFailed = 4003;
constexpr Status kStatusDeviceAllocationFailed = 4004;
/// Whether `status` says the library cannot do it (rather than that it was
/// asked wrongly): the CUDNN_STATUS_NOT_SUPPORTED family.
inline bool isNotSupported(Status status) {
  return status / 1000 * 1000 == kStatusNotSupported;
}

// cudnnDataType_t.
constexpr int32_t kDataFloat = 0;
constexpr int32_t kDataHalf = 2;
constexpr int32_t kDataInt8 = 3;
constexpr int32_t kDataInt32 = 4;
constexpr int32_t kDataBfloat16 = 9;
constexpr int32_t kDataBoolean = 11;

// cudnnBackendDescriptorType_t.
constexpr int kPointwiseDescriptor = 0;
constexpr int kConvolutionDescriptor = 1;
constexpr int kEngineDescriptor = 2;
constexpr int kEngineConfigDescriptor = 3;
constexpr int kEngineHeuristicsDescriptor = 4;
constexpr int kExecutionPlanDescriptor = 5;
constexpr int kConvolutionForwardDescriptor = 10;
constexpr int kPointwiseOperationDescriptor = 13;
constexpr int kOperationGraphDescriptor = 15;
constexpr int kVariantPackDescriptor = 16;
constexpr int kTensorDescriptor = 17;
constexpr int kMatmulDescriptor = 18;
constexpr int kMatmulOperationDescriptor = 19;
constexpr int kReductionDescriptor = 21;
constexpr int kReductionOperationDescriptor = 22;

// cudnnBackendAttributeType_t.
constexpr int kTypeHandle = 0;
constexpr int kTypeDataType = 1;
constexpr int kTypeBoolean = 2;
constexpr int kTypeInt64 = 3;
constexpr int kTypeFloat = 4;
constexpr int kTypeDouble = 5;
constexpr int kTypeVoidPointer = 6;
constexpr int kTypeConvolutionMode = 7;
constexpr int kTypeHeuristicMode = 8;
constexpr int kTypeNumericalNote = 11;
constexpr int kTypePointwiseMode = 14;
constexpr int kTypeBackendDescriptor = 15;
constexpr int kTypeReductionOperator = 18;

// cudnnBackendAttributeName_t.
constexpr int kAttrPointwiseMode = 0;
constexpr int kAttrPointwiseMathPrecision = 1;
constexpr int kAttrPointwiseSwishBeta = 8;
constexpr int kAttrPointwiseAxis = 9;
constexpr int kAttrConvolutionComputeType = 100;
constexpr int kAttrConvolutionMode = 101;
constexpr int kAttrConvolutionDilations = 102;
constexpr int kAttrConvolutionFilterStrides = 103;
constexpr int kAttrConvolutionPostPaddings = 104;
constexpr int kAttrConvolutionPrePaddings = 105;
constexpr int kAttrConvolutionSpatialDims = 106;
constexpr int kAttrHeuristicsMode = 200;
constexpr int kAttrHeuristicsOperationGraph = 201;
constexpr int kAttrHeuristicsResults = 202;
constexpr int kAttrEngineConfigEngine = 300;
constexpr int kAttrPlanHandle = 400;
constexpr int kAttrPlanEngineConfig = 401;
constexpr int kAttrPlanWorkspaceSize = 402;
constexpr int kAttrConvolutionForwardAlpha = 700;
constexpr int kAttrConvolutionForwardBeta = 701;
constexpr int kAttrConvolutionForwardDesc = 702;
constexpr int kAttrConvolutionForwardW = 703;
constexpr int kAttrConvolutionForwardX = 704;
constexpr int kAttrConvolutionForwardY = 705;
constexpr int kAttrPointwiseOperationDesc = 750;
constexpr int kAttrPointwiseOperationX = 751;
constexpr int kAttrPointwiseOperationB = 752;
constexpr int kAttrPointwiseOperationY = 753;
constexpr int kAttrPointwiseOperationT = 758;
constexpr int kAttrOperationGraphHandle = 800;
constexpr int kAttrOperationGraphOps = 801;
constexpr int kAttrTensorByteAlignment = 900;
constexpr int kAttrTensorDataType = 901;
constexpr int kAttrTensorDimensions = 902;
constexpr int kAttrTensorStrides = 903;
constexpr int kAttrTensorUniqueId = 906;
constexpr int kAttrTensorIsVirtual = 907;
constexpr int kAttrTensorIsByValue = 908;
constexpr int kAttrVariantPackUniqueIds = 1000;
constexpr int kAttrVariantPackDataPointers = 1001;
constexpr int kAttrVariantPackWorkspace = 1003;
constexpr int kAttrEngineNumericalNote = 1303;
constexpr int kAttrMatmulCompType = 1500;
constexpr int kAttrMatmulOperationA = 1520;
constexpr int kAttrMatmulOperationB = 1521;
constexpr int kAttrMatmulOperationC = 1522;
constexpr int kAttrMatmulOperationDesc = 1523;
constexpr int kAttrReductionOperator = 1600;
constexpr int kAttrReductionCompType = 1601;
constexpr int kAttrReductionOperationX = 1610;
constexpr int kAttrReductionOperationY = 1611;
constexpr int kAttrReductionOperationDesc = 1612;

// cudnnConvolutionMode_t, cudnnPointwiseMode_t, cudnnBackendHeurMode_t.
constexpr int32_t kCrossCorrelation = 1;
constexpr int32_t kPointwiseAdd = 0;
constexpr int32_t kPointwiseMul = 1;
constexpr int32_t kPointwiseDiv = 6;
constexpr int32_t kPointwiseSub = 9;
constexpr int32_t kPointwiseExp = 13;
constexpr int32_t kPointwiseLog = 15;
constexpr int32_t kPointwiseCmpGe = 303;
constexpr int32_t kPointwiseGenIndex = 501;
constexpr int32_t kPointwiseBinarySelect = 601;
constexpr int32_t kPointwiseReluForward = 100;
constexpr int32_t kPointwiseGeluForward = 104; // the erf form
constexpr int32_t kPointwiseSwishForward = 106;
constexpr int32_t kHeuristicsModeA = 3;
// cudnnReduceTensorOp_t.
constexpr int32_t kReduceAdd = 0;
constexpr int32_t kReduceMax = 3;

// cudnnBackendNumericalNote_t.
constexpr int32_t kNoteTensorCore = 0;
constexpr int32_t kNoteDownConvertInputs = 1;
constexpr int32_t kNoteReducedPrecisionReduction = 2;
constexpr int32_t kNoteTypeCount = 10;

/// The cuDNN entry points, one member per CudnnSymbols.def entry.
struct Library {
#define GRAPHC_DNN_SYMBOL(member, symbol, result, params)                      \
  result(*member) params = nullptr;
#include "runtime/src/CudnnSymbols.def"

  /// The file it was opened from, and cudnnGetVersion (e.g. 91900).
  std::string path;
  size_t version = 0;

  /// "CUDNN_STATUS_NOT_SUPPORTED (...)" style text for `status`.
  std::string describe(Status status) const;
  /// "cuDNN 9.19.0 (libcudnn.so.9)".
  std::string title() const;
};

/// Opens the library `path` and reads every entry point. Not cached: for
/// getLibrary and the tests. Returns false and sets `error` ("cannot open
/// PATH (reason)", "PATH lacks SYMBOL") on failure.
bool loadLibrary(const std::string &path, Library &library, std::string &error);

/// The process-wide cuDNN: $GRAPHC_CUDNN_LIBRARY when set, else
/// libcudnn.so.9. Each path is tried once per process and its outcome kept.
/// Returns nullptr and sets `error` when it does not open.
const Library *getLibrary(std::string &error);

/// "CUDNN_STATUS_BAD_PARAM" for a cudnnStatus_t, or its number.
std::string statusName(Status status);

/// "9.19.0" for cudnnGetVersion's 91900 (cuDNN 9: major * 10000 + minor *
/// 100 + patch).
std::string versionText(size_t version);

} // namespace graphc::rt::dnn

#endif
