//===- CublasLt.h - cuBLASLt, loaded at run time ----------------*- C++ -*-===//
//
// Library kernels (GRAPHC_LIBRARY_CUBLASLT) run on cuBLASLt. Like the
// driver, it is never linked: the first model with a library kernel opens
// $GRAPHC_CUBLASLT_LIBRARY, else libcublasLt.so.13, else libcublasLt.so.12,
// and reads its entry points into a table. The few cuBLASLt types and
// constants used are declared here; test/runtime/CublasLtConstantsTest.cpp
// checks them against cublasLt.h where the toolkit exists.
//
// Testing hook: GRAPHC_CUBLASLT_LIBRARY names the library to open
// (test/runtime's fake driver implements cuBLASLt too).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_CUBLASLT_H
#define GRAPHC_RUNTIME_SRC_CUBLASLT_H

#include "runtime/src/CudaDriver.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace graphc::rt::lt {

using Status = int; // cublasStatus_t
using Handle = struct cublasLtContext *;
using MatmulDesc = struct cublasLtMatmulDescOpaque *;
using MatrixLayout = struct cublasLtMatrixLayoutOpaque *;
using Preference = struct cublasLtMatmulPreferenceOpaque *;

/// cublasLtMatmulAlgo_t: filled in by the heuristic, passed to the matmul.
struct MatmulAlgo {
  uint64_t data[8];
};

/// cublasLtMatmulHeuristicResult_t.
struct HeuristicResult {
  MatmulAlgo algo;
  size_t workspaceSize;
  Status state;
  float wavesCount;
  int reserved[4];
};

constexpr Status kSuccess = 0;
constexpr Status kStatusAllocFailed = 3;
// cudaDataType_t and cublasComputeType_t.
constexpr int kDataFloat = 0;     // CUDA_R_32F
constexpr int kDataHalf = 2;      // CUDA_R_16F
constexpr int kDataBfloat16 = 14; // CUDA_R_16BF
constexpr int kDataInt8 = 3;      // CUDA_R_8I
constexpr int kDataInt32 = 10;    // CUDA_R_32I
constexpr int kDataFloat8E4M3 = 28; // CUDA_R_8F_E4M3
constexpr int kComputeFloat = 68; // CUBLAS_COMPUTE_32F
constexpr int kComputeFloatFastTf32 = 77; // CUBLAS_COMPUTE_32F_FAST_TF32
constexpr int kComputeInt32 = 72; // CUBLAS_COMPUTE_32I
constexpr int32_t kOpN = 0, kOpT = 1;
// cublasLtMatmulDescAttributes_t.
constexpr int kDescTransA = 3;
constexpr int kDescTransB = 4;
constexpr int kDescEpilogue = 7;
constexpr int kDescBiasPointer = 8;
constexpr int kDescBiasDataType = 26;
// cublasLtEpilogue_t.
constexpr uint32_t kEpilogueDefault = 1;
constexpr uint32_t kEpilogueRelu = 2;
constexpr uint32_t kEpilogueBias = 4;
constexpr uint32_t kEpilogueGelu = 32;
// cublasLtMatrixLayoutAttribute_t.
constexpr int kLayoutBatchCount = 5;
constexpr int kLayoutStridedBatchOffset = 6;
// cublasLtMatmulPreferenceAttributes_t.
constexpr int kPrefMaxWorkspaceBytes = 1;
constexpr int kPrefMinAlignmentA = 5;
constexpr int kPrefMinAlignmentB = 6;
constexpr int kPrefMinAlignmentC = 7;
constexpr int kPrefMinAlignmentD = 8;
// cublasLtMatmulAlgoConfigAttributes_t: SPLITK_NUM is an int32_t,
// REDUCTION_SCHEME a uint32_t (cublasLtReductionScheme_t).
constexpr int kAlgoConfigSplitKNum = 2;
constexpr int kAlgoConfigReductionScheme = 3;
constexpr uint32_t kReductionInPlace = 1;
constexpr uint32_t kReductionComputeType = 2;
constexpr uint32_t kReductionOutputType = 4;
/// The pointer alignment cuBLASLt's heuristic assumes unless told less.
constexpr uint32_t kDefaultAlignment = 256;

/// The cuBLASLt entry points, one member per CublasLtSymbols.def entry.
struct Library {
#define GRAPHC_LT_SYMBOL(member, symbol, result, params)                       \
  result(*member) params = nullptr;
#include "runtime/src/CublasLtSymbols.def"

  /// The file it was opened from, and cublasLtGetVersion (e.g. 130001).
  std::string path;
  size_t version = 0;

  /// "CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not
  /// supported)" style text for `status`.
  std::string describe(Status status) const;
};

/// Opens the library `path` and reads every entry point. Not cached: for
/// getLibrary and the tests. Returns false and sets `error` ("cannot open
/// PATH (reason)", "PATH lacks SYMBOL") on failure.
bool loadLibrary(const std::string &path, Library &library, std::string &error);

/// The process-wide cuBLASLt: $GRAPHC_CUBLASLT_LIBRARY when set, else
/// libcublasLt.so.13, else libcublasLt.so.12. Each path is tried once per
/// process and its outcome kept. Returns nullptr and sets `error` when none
/// opens.
const Library *getLibrary(std::string &error);

/// "CUBLAS_STATUS_INVALID_VALUE" for a cublasStatus_t, or its number.
std::string statusName(Status status);

} // namespace graphc::rt::lt

#endif
