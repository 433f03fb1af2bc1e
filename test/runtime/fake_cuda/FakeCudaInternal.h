//===- FakeCudaInternal.h - the fake driver's services ----------*- C++ -*-===//
//
// FakeCuda.cpp owns the driver state (contexts, streams, captures, device
// allocations); FakeCublasLt.cpp and FakeCudnn.cpp, the cuBLASLt and cuDNN
// of the same library, queue their work through these, so it runs in
// stream order and is captured and replayed like kernel launches. Not
// exported.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_TEST_FAKE_CUDA_INTERNAL_H
#define GRAPHC_TEST_FAKE_CUDA_INTERNAL_H

#include <cstdint>
#include <functional>
#include <string>

namespace fakecu {

/// Queues `work` on `stream` as a kernel launch is queued: it runs now, or,
/// while the stream captures, at each replay of the graph; it is skipped
/// when the current context has become sticky by then. The trace names it
/// `text`. Returns the CUresult of the enqueue (the current context's
/// sticky error, a capture violation).
int enqueueWork(void *stream, const std::string &text,
                std::function<void()> work);

/// Moves the fake's clock, which timing events read, `microseconds` ahead
/// of the host's: work that calls it (at run time, so a replayed graph
/// does too) takes that much longer between two events than it took the
/// host. How tests make one library algorithm slower than another with
/// results that do not depend on the host's timing. Lock-free: work runs
/// under the driver's lock.
void advanceClock(double microseconds);

/// Counts a call of `function` (fakecu_calls).
void countCall(const char *function);

/// Whether `bytes` bytes at `pointer` lie inside one live device
/// allocation.
bool inDeviceMemory(const void *pointer, uint64_t bytes);

/// Every fake device's compute capability, major * 10 + minor
/// (fakecu_set_compute_capability). Takes the driver's lock: call it
/// holding no other.
int computeCapability();

/// Clears the cuBLASLt part's injections (fakecu_reset).
void resetCublasLt();

/// Clears the cuDNN part's injections (fakecu_reset).
void resetCudnn();

} // namespace fakecu

#endif
