//===- CublasLtConstantsTest.cpp - CublasLt.h against cublasLt.h ----------===//
//
// The runtime declares the cuBLASLt types and constants it uses instead of
// including cublasLt.h (it builds without the toolkit); where the toolkit
// exists, this checks them against the real header: the values, and the
// sizes and layout of the structures passed by pointer.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/CublasLt.h"

#include <cublasLt.h>

#include <gtest/gtest.h>

#include <cstddef>

namespace lt = graphc::rt::lt;

static_assert(lt::kSuccess == CUBLAS_STATUS_SUCCESS);
static_assert(lt::kStatusAllocFailed == CUBLAS_STATUS_ALLOC_FAILED);
static_assert(lt::kDataFloat == CUDA_R_32F);
static_assert(lt::kDataHalf == CUDA_R_16F);
static_assert(lt::kDataBfloat16 == CUDA_R_16BF);
static_assert(lt::kDataInt8 == CUDA_R_8I);
static_assert(lt::kDataInt32 == CUDA_R_32I);
static_assert(lt::kDataFloat8E4M3 == CUDA_R_8F_E4M3);
static_assert(lt::kComputeFloat == CUBLAS_COMPUTE_32F);
static_assert(lt::kComputeInt32 == CUBLAS_COMPUTE_32I);
static_assert(lt::kComputeFloatFastTf32 == CUBLAS_COMPUTE_32F_FAST_TF32);
static_assert(lt::kOpN == CUBLAS_OP_N && lt::kOpT == CUBLAS_OP_T);
static_assert(lt::kDescTransA == CUBLASLT_MATMUL_DESC_TRANSA);
static_assert(lt::kDescTransB == CUBLASLT_MATMUL_DESC_TRANSB);
static_assert(lt::kDescEpilogue == CUBLASLT_MATMUL_DESC_EPILOGUE);
static_assert(lt::kDescBiasPointer == CUBLASLT_MATMUL_DESC_BIAS_POINTER);
static_assert(lt::kDescBiasDataType == CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE);
static_assert(lt::kEpilogueDefault == CUBLASLT_EPILOGUE_DEFAULT);
static_assert(lt::kEpilogueRelu == CUBLASLT_EPILOGUE_RELU);
static_assert(lt::kEpilogueBias == CUBLASLT_EPILOGUE_BIAS);
static_assert(lt::kEpilogueGelu == CUBLASLT_EPILOGUE_GELU);
// The runtime builds the _BIAS epilogues by or-ing the BIAS bit in.
static_assert((lt::kEpilogueRelu | lt::kEpilogueBias) ==
              CUBLASLT_EPILOGUE_RELU_BIAS);
static_assert((lt::kEpilogueGelu | lt::kEpilogueBias) ==
              CUBLASLT_EPILOGUE_GELU_BIAS);
static_assert(lt::kLayoutBatchCount == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
static_assert(lt::kLayoutStridedBatchOffset ==
              CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
static_assert(lt::kPrefMaxWorkspaceBytes ==
              CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
static_assert(lt::kPrefMinAlignmentA ==
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES);
static_assert(lt::kPrefMinAlignmentB ==
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES);
static_assert(lt::kPrefMinAlignmentC ==
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES);
static_assert(lt::kPrefMinAlignmentD ==
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES);
static_assert(lt::kAlgoConfigSplitKNum == CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
static_assert(lt::kAlgoConfigReductionScheme ==
              CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
static_assert(lt::kReductionInPlace == CUBLASLT_REDUCTION_SCHEME_INPLACE);
static_assert(lt::kReductionComputeType ==
              CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE);
static_assert(lt::kReductionOutputType ==
              CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE);

// Passed by pointer: sizes and field offsets must agree.
static_assert(sizeof(lt::MatmulAlgo) == sizeof(cublasLtMatmulAlgo_t));
static_assert(sizeof(lt::HeuristicResult) ==
              sizeof(cublasLtMatmulHeuristicResult_t));
static_assert(offsetof(lt::HeuristicResult, algo) ==
              offsetof(cublasLtMatmulHeuristicResult_t, algo));
static_assert(offsetof(lt::HeuristicResult, workspaceSize) ==
              offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize));
static_assert(offsetof(lt::HeuristicResult, state) ==
              offsetof(cublasLtMatmulHeuristicResult_t, state));
static_assert(offsetof(lt::HeuristicResult, wavesCount) ==
              offsetof(cublasLtMatmulHeuristicResult_t, wavesCount));
static_assert(sizeof(lt::Status) == sizeof(cublasStatus_t));

// Opaque handles, passed by value.
static_assert(sizeof(lt::Handle) == sizeof(cublasLtHandle_t));
static_assert(sizeof(lt::MatmulDesc) == sizeof(cublasLtMatmulDesc_t));
static_assert(sizeof(lt::MatrixLayout) == sizeof(cublasLtMatrixLayout_t));
static_assert(sizeof(lt::Preference) == sizeof(cublasLtMatmulPreference_t));

TEST(CublasLtConstants, StatusNamesMatchTheHeader) {
  EXPECT_EQ(lt::statusName(CUBLAS_STATUS_NOT_SUPPORTED),
            "CUBLAS_STATUS_NOT_SUPPORTED");
  EXPECT_EQ(lt::statusName(CUBLAS_STATUS_INVALID_VALUE),
            "CUBLAS_STATUS_INVALID_VALUE");
  EXPECT_EQ(lt::statusName(CUBLAS_STATUS_ALLOC_FAILED),
            "CUBLAS_STATUS_ALLOC_FAILED");
  EXPECT_EQ(lt::statusName(CUBLAS_STATUS_EXECUTION_FAILED),
            "CUBLAS_STATUS_EXECUTION_FAILED");
  EXPECT_EQ(lt::statusName(CUBLAS_STATUS_NOT_INITIALIZED),
            "CUBLAS_STATUS_NOT_INITIALIZED");
}
