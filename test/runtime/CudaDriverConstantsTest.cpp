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
