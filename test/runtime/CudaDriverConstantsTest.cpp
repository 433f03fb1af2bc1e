//===- CudaDriverConstantsTest.cpp - CudaDriver.h against cuda.h ----------===//
//
// The runtime declares the few driver constants it uses instead of including
// cuda.h (it builds without the toolkit); where the toolkit exists, this
// checks them, and the sticky-error list, against the real header.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/CudaDriver.h"

#include <cuda.h>

#include <cstddef>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace cu = graphc::rt::cu;

static_assert(cu::kSuccess == CUDA_SUCCESS);
static_assert(cu::kErrorOutOfMemory == CUDA_ERROR_OUT_OF_MEMORY);
static_assert(cu::kErrorUnsupportedPtxVersion ==
              CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
static_assert(cu::kErrorNotReady == CUDA_ERROR_NOT_READY);
static_assert(cu::kAttrComputeCapabilityMajor ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(cu::kAttrComputeCapabilityMinor ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(cu::kAttrMaxSharedMemoryPerBlockOptin ==
              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
static_assert(cu::kFuncAttrMaxDynamicSharedSizeBytes ==
              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
static_assert(cu::kStreamNonBlocking == CU_STREAM_NON_BLOCKING);
static_assert(cu::kEventDisableTiming == CU_EVENT_DISABLE_TIMING);
static_assert(cu::kStreamCaptureModeThreadLocal ==
              CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
static_assert(cu::kStreamCaptureModeRelaxed == CU_STREAM_CAPTURE_MODE_RELAXED);
static_assert(cu::kStreamCaptureStatusNone == CU_STREAM_CAPTURE_STATUS_NONE);
static_assert(sizeof(cu::DevicePtr) == sizeof(CUdeviceptr));
static_assert(sizeof(cu::Device) == sizeof(CUdevice));
static_assert(cu::kLaunchAttributeProgrammaticStreamSerialization ==
              CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
static_assert(sizeof(cu::LaunchAttribute) == sizeof(CUlaunchAttribute));
static_assert(offsetof(cu::LaunchAttribute, value) ==
              offsetof(CUlaunchAttribute, value));
static_assert(offsetof(cu::LaunchAttribute,
                       value.programmaticStreamSerializationAllowed) ==
              offsetof(CUlaunchAttribute,
                       value.programmaticStreamSerializationAllowed));
static_assert(sizeof(cu::LaunchConfig) == sizeof(CUlaunchConfig));
static_assert(offsetof(cu::LaunchConfig, sharedMemBytes) ==
              offsetof(CUlaunchConfig, sharedMemBytes));
static_assert(offsetof(cu::LaunchConfig, stream) ==
              offsetof(CUlaunchConfig, hStream));
static_assert(offsetof(cu::LaunchConfig, attrs) ==
              offsetof(CUlaunchConfig, attrs));
static_assert(offsetof(cu::LaunchConfig, numAttrs) ==
              offsetof(CUlaunchConfig, numAttrs));

static_assert(cu::kStreamCaptureStatusActive ==
              CU_STREAM_CAPTURE_STATUS_ACTIVE);
static_assert(cu::kGraphNodeTypeConditional == CU_GRAPH_NODE_TYPE_CONDITIONAL);
static_assert(cu::kGraphConditionalTypeWhile == CU_GRAPH_COND_TYPE_WHILE);
static_assert(cu::kGraphConditionalAssignDefault ==
              CU_GRAPH_COND_ASSIGN_DEFAULT);
static_assert(cu::kStreamSetCaptureDependencies ==
              CU_STREAM_SET_CAPTURE_DEPENDENCIES);
static_assert(sizeof(cu::GraphConditionalHandle) ==
              sizeof(CUgraphConditionalHandle));
static_assert(sizeof(cu::GraphEdgeData) == sizeof(CUgraphEdgeData));
static_assert(offsetof(cu::GraphEdgeData, type) ==
              offsetof(CUgraphEdgeData, type));
static_assert(sizeof(cu::ConditionalNodeParams) ==
              sizeof(CUDA_CONDITIONAL_NODE_PARAMS));
static_assert(offsetof(cu::ConditionalNodeParams, type) ==
              offsetof(CUDA_CONDITIONAL_NODE_PARAMS, type));
static_assert(offsetof(cu::ConditionalNodeParams, size) ==
              offsetof(CUDA_CONDITIONAL_NODE_PARAMS, size));
static_assert(offsetof(cu::ConditionalNodeParams, graphsOut) ==
              offsetof(CUDA_CONDITIONAL_NODE_PARAMS, phGraph_out));
static_assert(offsetof(cu::ConditionalNodeParams, context) ==
              offsetof(CUDA_CONDITIONAL_NODE_PARAMS, ctx));
static_assert(sizeof(cu::GraphNodeParams) == sizeof(CUgraphNodeParams));
static_assert(offsetof(cu::GraphNodeParams, conditional) ==
              offsetof(CUgraphNodeParams, conditional));
static_assert(offsetof(cu::GraphNodeParams, reserved2) ==
              offsetof(CUgraphNodeParams, reserved2));

#define GRAPHC_NAME_OF(symbol) GRAPHC_NAME_OF_EXPANDED(symbol)
#define GRAPHC_NAME_OF_EXPANDED(symbol) #symbol

TEST(CudaDriverConstants, ConditionalSymbolsAreTheOnesCudaHMapsTo) {
  // cuda.h maps each entry point to the versioned symbol of its current
  // signature, the one whose parameters CudaSymbols.def declares.
  std::vector<std::string> names;
#define GRAPHC_CU_SYMBOL(member, symbol, params)
#define GRAPHC_CU_CONDITIONAL_SYMBOL(member, symbol, params)                   \
  names.push_back(symbol);
#include "runtime/src/CudaSymbols.def"
  EXPECT_EQ(names, (std::vector<std::string>{
                       GRAPHC_NAME_OF(cuGraphConditionalHandleCreate),
                       GRAPHC_NAME_OF(cuStreamGetCaptureInfo),
                       GRAPHC_NAME_OF(cuGraphAddNode),
                       GRAPHC_NAME_OF(cuStreamUpdateCaptureDependencies),
                       GRAPHC_NAME_OF(cuStreamBeginCaptureToGraph)}));
}

TEST(CudaDriverConstants, StickyErrorsAreTheContextCorruptingOnes) {
  for (CUresult sticky :
       {CUDA_ERROR_ECC_UNCORRECTABLE, CUDA_ERROR_ILLEGAL_ADDRESS,
        CUDA_ERROR_LAUNCH_TIMEOUT, CUDA_ERROR_ASSERT,
        CUDA_ERROR_HARDWARE_STACK_ERROR, CUDA_ERROR_ILLEGAL_INSTRUCTION,
        CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_INVALID_ADDRESS_SPACE,
        CUDA_ERROR_INVALID_PC, CUDA_ERROR_LAUNCH_FAILED})
    EXPECT_TRUE(cu::isStickyError(sticky)) << sticky;
  for (CUresult recoverable :
       {CUDA_SUCCESS, CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_INVALID_VALUE,
        CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, CUDA_ERROR_NOT_READY,
        CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
        CUDA_ERROR_STREAM_CAPTURE_INVALIDATED})
    EXPECT_FALSE(cu::isStickyError(recoverable)) << recoverable;
}
