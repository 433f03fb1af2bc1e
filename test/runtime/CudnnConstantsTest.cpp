//===- CudnnConstantsTest.cpp - Cudnn.h against cudnn_graph.h -------------===//
//
// The runtime declares the cuDNN types and constants it uses instead of
// including cudnn_graph.h (it builds without cuDNN); where the headers
// exist, this checks them against the real ones: the values, and the sizes
// of what is passed by pointer or as attribute elements.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/Cudnn.h"

#include <cudnn_graph.h>

#include <gtest/gtest.h>

namespace dnn = graphc::rt::dnn;

static_assert(dnn::kSuccess == CUDNN_STATUS_SUCCESS);
static_assert(dnn::kStatusBadParam == CUDNN_STATUS_BAD_PARAM);
static_assert(dnn::kStatusNotSupported == CUDNN_STATUS_NOT_SUPPORTED);
static_assert(dnn::kStatusHostAllocationFailed ==
              CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED);
static_assert(dnn::kStatusDeviceAllocationFailed ==
              CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED);
static_assert(CUDNN_STATUS_CATEGORY(CUDNN_STATUS_NOT_SUPPORTED_SHAPE) ==
              dnn::kStatusNotSupported);

static_assert(dnn::kDataFloat == CUDNN_DATA_FLOAT);
static_assert(dnn::kDataHalf == CUDNN_DATA_HALF);
static_assert(dnn::kDataBfloat16 == CUDNN_DATA_BFLOAT16);

static_assert(dnn::kPointwiseDescriptor == CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
static_assert(dnn::kConvolutionDescriptor ==
              CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
static_assert(dnn::kEngineDescriptor == CUDNN_BACKEND_ENGINE_DESCRIPTOR);
static_assert(dnn::kEngineConfigDescriptor ==
              CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
static_assert(dnn::kEngineHeuristicsDescriptor ==
              CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
static_assert(dnn::kExecutionPlanDescriptor ==
              CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
static_assert(dnn::kConvolutionForwardDescriptor ==
              CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
static_assert(dnn::kPointwiseOperationDescriptor ==
              CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
static_assert(dnn::kOperationGraphDescriptor ==
              CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
static_assert(dnn::kVariantPackDescriptor ==
              CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
static_assert(dnn::kTensorDescriptor == CUDNN_BACKEND_TENSOR_DESCRIPTOR);

static_assert(dnn::kTypeHandle == CUDNN_TYPE_HANDLE);
static_assert(dnn::kTypeDataType == CUDNN_TYPE_DATA_TYPE);
static_assert(dnn::kTypeBoolean == CUDNN_TYPE_BOOLEAN);
static_assert(dnn::kTypeInt64 == CUDNN_TYPE_INT64);
static_assert(dnn::kTypeFloat == CUDNN_TYPE_FLOAT);
static_assert(dnn::kTypeDouble == CUDNN_TYPE_DOUBLE);
static_assert(dnn::kTypeVoidPointer == CUDNN_TYPE_VOID_PTR);
static_assert(dnn::kTypeConvolutionMode == CUDNN_TYPE_CONVOLUTION_MODE);
static_assert(dnn::kTypeHeuristicMode == CUDNN_TYPE_HEUR_MODE);
static_assert(dnn::kTypeNumericalNote == CUDNN_TYPE_NUMERICAL_NOTE);
static_assert(dnn::kTypePointwiseMode == CUDNN_TYPE_POINTWISE_MODE);
static_assert(dnn::kTypeBackendDescriptor == CUDNN_TYPE_BACKEND_DESCRIPTOR);

static_assert(dnn::kAttrPointwiseMode == CUDNN_ATTR_POINTWISE_MODE);
static_assert(dnn::kAttrPointwiseMathPrecision ==
              CUDNN_ATTR_POINTWISE_MATH_PREC);
static_assert(dnn::kAttrPointwiseSwishBeta == CUDNN_ATTR_POINTWISE_SWISH_BETA);
static_assert(dnn::kAttrConvolutionComputeType ==
              CUDNN_ATTR_CONVOLUTION_COMP_TYPE);
static_assert(dnn::kAttrConvolutionMode == CUDNN_ATTR_CONVOLUTION_CONV_MODE);
static_assert(dnn::kAttrConvolutionDilations ==
              CUDNN_ATTR_CONVOLUTION_DILATIONS);
static_assert(dnn::kAttrConvolutionFilterStrides ==
              CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES);
static_assert(dnn::kAttrConvolutionPostPaddings ==
              CUDNN_ATTR_CONVOLUTION_POST_PADDINGS);
static_assert(dnn::kAttrConvolutionPrePaddings ==
              CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS);
static_assert(dnn::kAttrConvolutionSpatialDims ==
              CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS);
static_assert(dnn::kAttrHeuristicsMode == CUDNN_ATTR_ENGINEHEUR_MODE);
static_assert(dnn::kAttrHeuristicsOperationGraph ==
              CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH);
static_assert(dnn::kAttrHeuristicsResults == CUDNN_ATTR_ENGINEHEUR_RESULTS);
static_assert(dnn::kAttrEngineConfigEngine == CUDNN_ATTR_ENGINECFG_ENGINE);
static_assert(dnn::kAttrPlanHandle == CUDNN_ATTR_EXECUTION_PLAN_HANDLE);
static_assert(dnn::kAttrPlanEngineConfig ==
              CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
static_assert(dnn::kAttrPlanWorkspaceSize ==
              CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE);
static_assert(dnn::kAttrConvolutionForwardAlpha ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA);
static_assert(dnn::kAttrConvolutionForwardBeta ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA);
static_assert(dnn::kAttrConvolutionForwardDesc ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC);
static_assert(dnn::kAttrConvolutionForwardW ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W);
static_assert(dnn::kAttrConvolutionForwardX ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X);
static_assert(dnn::kAttrConvolutionForwardY ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y);
static_assert(dnn::kAttrPointwiseOperationDesc ==
              CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR);
static_assert(dnn::kAttrPointwiseOperationX ==
              CUDNN_ATTR_OPERATION_POINTWISE_XDESC);
static_assert(dnn::kAttrPointwiseOperationB ==
              CUDNN_ATTR_OPERATION_POINTWISE_BDESC);
static_assert(dnn::kAttrPointwiseOperationY ==
              CUDNN_ATTR_OPERATION_POINTWISE_YDESC);
static_assert(dnn::kAttrOperationGraphHandle ==
              CUDNN_ATTR_OPERATIONGRAPH_HANDLE);
static_assert(dnn::kAttrOperationGraphOps == CUDNN_ATTR_OPERATIONGRAPH_OPS);
static_assert(dnn::kAttrTensorByteAlignment ==
              CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT);
static_assert(dnn::kAttrTensorDataType == CUDNN_ATTR_TENSOR_DATA_TYPE);
static_assert(dnn::kAttrTensorDimensions == CUDNN_ATTR_TENSOR_DIMENSIONS);
static_assert(dnn::kAttrTensorStrides == CUDNN_ATTR_TENSOR_STRIDES);
static_assert(dnn::kAttrTensorUniqueId == CUDNN_ATTR_TENSOR_UNIQUE_ID);
static_assert(dnn::kAttrTensorIsVirtual == CUDNN_ATTR_TENSOR_IS_VIRTUAL);
static_assert(dnn::kAttrVariantPackUniqueIds ==
              CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
static_assert(dnn::kAttrVariantPackDataPointers ==
              CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
static_assert(dnn::kAttrVariantPackWorkspace ==
              CUDNN_ATTR_VARIANT_PACK_WORKSPACE);
static_assert(dnn::kAttrEngineNumericalNote ==
              CUDNN_ATTR_ENGINE_NUMERICAL_NOTE);

static_assert(dnn::kCrossCorrelation == CUDNN_CROSS_CORRELATION);
static_assert(dnn::kPointwiseAdd == CUDNN_POINTWISE_ADD);
static_assert(dnn::kPointwiseReluForward == CUDNN_POINTWISE_RELU_FWD);
static_assert(dnn::kPointwiseSwishForward == CUDNN_POINTWISE_SWISH_FWD);
// The erf GELU; GELU_APPROX_TANH_FWD (107) is the tanh form.
static_assert(dnn::kPointwiseGeluForward == CUDNN_POINTWISE_GELU_FWD);
static_assert(dnn::kHeuristicsModeA == CUDNN_HEUR_MODE_A);
static_assert(dnn::kNoteTensorCore == CUDNN_NUMERICAL_NOTE_TENSOR_CORE);
static_assert(dnn::kNoteDownConvertInputs ==
              CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS);
static_assert(dnn::kNoteReducedPrecisionReduction ==
              CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION);
static_assert(dnn::kNoteTypeCount == CUDNN_NUMERICAL_NOTE_TYPE_COUNT);

// Attention (CudnnSdpa): matmuls, reductions and the pointwise modes of
// the scale, mask and softmax.
static_assert(dnn::kDataInt8 == CUDNN_DATA_INT8);
static_assert(dnn::kDataInt32 == CUDNN_DATA_INT32);
static_assert(dnn::kDataBoolean == CUDNN_DATA_BOOLEAN);
static_assert(dnn::kMatmulDescriptor == CUDNN_BACKEND_MATMUL_DESCRIPTOR);
static_assert(dnn::kMatmulOperationDescriptor ==
              CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
static_assert(dnn::kReductionDescriptor == CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
static_assert(dnn::kReductionOperationDescriptor ==
              CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
static_assert(dnn::kTypeReductionOperator ==
              CUDNN_TYPE_REDUCTION_OPERATOR_TYPE);
static_assert(dnn::kAttrPointwiseAxis == CUDNN_ATTR_POINTWISE_AXIS);
static_assert(dnn::kAttrPointwiseOperationT ==
              CUDNN_ATTR_OPERATION_POINTWISE_TDESC);
static_assert(dnn::kAttrTensorIsByValue == CUDNN_ATTR_TENSOR_IS_BY_VALUE);
static_assert(dnn::kAttrMatmulCompType == CUDNN_ATTR_MATMUL_COMP_TYPE);
static_assert(dnn::kAttrMatmulOperationA == CUDNN_ATTR_OPERATION_MATMUL_ADESC);
static_assert(dnn::kAttrMatmulOperationB == CUDNN_ATTR_OPERATION_MATMUL_BDESC);
static_assert(dnn::kAttrMatmulOperationC == CUDNN_ATTR_OPERATION_MATMUL_CDESC);
static_assert(dnn::kAttrMatmulOperationDesc ==
              CUDNN_ATTR_OPERATION_MATMUL_DESC);
static_assert(dnn::kAttrReductionOperator == CUDNN_ATTR_REDUCTION_OPERATOR);
static_assert(dnn::kAttrReductionCompType == CUDNN_ATTR_REDUCTION_COMP_TYPE);
static_assert(dnn::kAttrReductionOperationX ==
              CUDNN_ATTR_OPERATION_REDUCTION_XDESC);
static_assert(dnn::kAttrReductionOperationY ==
              CUDNN_ATTR_OPERATION_REDUCTION_YDESC);
static_assert(dnn::kAttrReductionOperationDesc ==
              CUDNN_ATTR_OPERATION_REDUCTION_DESC);
static_assert(dnn::kPointwiseMul == CUDNN_POINTWISE_MUL);
static_assert(dnn::kPointwiseDiv == CUDNN_POINTWISE_DIV);
static_assert(dnn::kPointwiseSub == CUDNN_POINTWISE_SUB);
static_assert(dnn::kPointwiseExp == CUDNN_POINTWISE_EXP);
static_assert(dnn::kPointwiseLog == CUDNN_POINTWISE_LOG);
static_assert(dnn::kPointwiseCmpGe == CUDNN_POINTWISE_CMP_GE);
static_assert(dnn::kPointwiseGenIndex == CUDNN_POINTWISE_GEN_INDEX);
static_assert(dnn::kPointwiseBinarySelect == CUDNN_POINTWISE_BINARY_SELECT);
static_assert(dnn::kReduceAdd == CUDNN_REDUCE_TENSOR_ADD);
static_assert(dnn::kReduceMax == CUDNN_REDUCE_TENSOR_MAX);
static_assert(sizeof(int32_t) == sizeof(cudnnReduceTensorOp_t));

// Attribute elements the runtime passes as int32_t are the enums; handles
// and descriptors are pointers; CUDNN_TYPE_BOOLEAN elements are bool.
static_assert(sizeof(int32_t) == sizeof(cudnnDataType_t));
static_assert(sizeof(int32_t) == sizeof(cudnnConvolutionMode_t));
static_assert(sizeof(int32_t) == sizeof(cudnnPointwiseMode_t));
static_assert(sizeof(int32_t) == sizeof(cudnnBackendHeurMode_t));
static_assert(sizeof(int32_t) == sizeof(cudnnBackendNumericalNote_t));
static_assert(sizeof(dnn::Status) == sizeof(cudnnStatus_t));
static_assert(sizeof(dnn::Handle) == sizeof(cudnnHandle_t));
static_assert(sizeof(dnn::Descriptor) == sizeof(cudnnBackendDescriptor_t));

TEST(CudnnConstants, StatusNamesMatchTheHeader) {
  EXPECT_EQ(dnn::statusName(CUDNN_STATUS_BAD_PARAM), "CUDNN_STATUS_BAD_PARAM");
  EXPECT_EQ(dnn::statusName(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED),
            "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED");
  EXPECT_EQ(dnn::statusName(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN),
            "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN");
  EXPECT_EQ(dnn::statusName(CUDNN_STATUS_EXECUTION_FAILED),
            "CUDNN_STATUS_EXECUTION_FAILED");
  EXPECT_TRUE(dnn::isNotSupported(CUDNN_STATUS_NOT_SUPPORTED_SHAPE));
  EXPECT_FALSE(dnn::isNotSupported(CUDNN_STATUS_BAD_PARAM));
  // cudnnGetVersion's encoding in cuDNN 9.
  EXPECT_EQ(dnn::versionText(CUDNN_VERSION),
            std::to_string(CUDNN_MAJOR) + "." + std::to_string(CUDNN_MINOR) +
                "." + std::to_string(CUDNN_PATCHLEVEL));
}
