//===- FakeCudaTestSupport.h - helpers of the fake driver tests -*- C++ -*-===//
//
// Shared by the tests that run the runtime's CUDA path on the fake driver
// (CudaFakeDriverTest.cpp, CudaFakeCublasLtTest.cpp, CudaFakeCudnnTest.cpp,
// ProbeTest.cpp): where the fake and the test models are, statuses, model
// loading, the fake's trace and its device memory, and fake_cuda_model's
// kernels with a session that runs it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_TEST_RUNTIME_FAKECUDATESTSUPPORT_H
#define GRAPHC_TEST_RUNTIME_FAKECUDATESTSUPPORT_H

#include "fake_cuda/FakeCuda.h"
#include "TestModelPath.h"

#include "graphc/runtime.h"
#include "runtime/src/CudaDriver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// The fake's driver entry points the tests call themselves.
extern "C" {
int cuDevicePrimaryCtxRetain(void **context, int device);
int cuDevicePrimaryCtxRelease_v2(int device);
int cuCtxPushCurrent_v2(void *context);
int cuCtxPopCurrent_v2(void **context);
int cuStreamCreate(void **stream, unsigned flags);
int cuStreamDestroy_v2(void *stream);
int cuMemAlloc_v2(unsigned long long *pointer, size_t bytes);
int cuMemFree_v2(unsigned long long pointer);
}

namespace fakecutest {

/// The fake driver: GRAPHC_TEST_FAKE_CUDA_LIBRARY when set, else the build
/// tree's.
inline const char *fakeCudaLibrary() {
  const char *path = std::getenv("GRAPHC_TEST_FAKE_CUDA_LIBRARY");
  return path && *path ? path : GRAPHC_FAKE_CUDA_LIBRARY;
}

/// Owns a status; frees it on destruction.
struct Status {
  explicit Status(graphc_status status) : status(status) {}
  ~Status() { graphc_status_free(status); }
  Status(const Status &) = delete;
  bool ok() const { return status == nullptr; }
  graphc_code code() const { return graphc_status_code(status); }
  std::string message() const { return graphc_status_message(status); }
  graphc_status status;
};

#define EXPECT_GRAPHC_OK(expr)                                                 \
  do {                                                                         \
    ::fakecutest::Status s_(expr);                                             \
    EXPECT_TRUE(s_.ok()) << s_.message();                                      \
  } while (0)
#define ASSERT_GRAPHC_OK(expr)                                                 \
  do {                                                                         \
    ::fakecutest::Status s_(expr);                                             \
    ASSERT_TRUE(s_.ok()) << s_.message();                                      \
  } while (0)

inline graphc_model *loadModel(const std::string &name = "fake_cuda_model",
                               int32_t ordinal = 0) {
  graphc_model_options options;
  graphc_model_options_init(&options);
  options.flags = GRAPHC_MODEL_SKIP_CHECKSUM;
  options.device_ordinal = ordinal;
  graphc_model *model = nullptr;
  Status status(graphc_model_load(modelPath(name).c_str(), &options, &model));
  EXPECT_TRUE(status.ok()) << status.message();
  return model;
}

inline std::vector<std::string> traceLines() {
  std::vector<std::string> lines;
  std::string text = fakecu_trace();
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos;
       start = end + 1)
    lines.push_back(text.substr(start, end - start));
  return lines;
}

/// The trace lines after the first `count`.
inline std::vector<std::string> traceSince(size_t count) {
  std::vector<std::string> lines = traceLines();
  return std::vector<std::string>(lines.begin() + std::min(count, lines.size()),
                                  lines.end());
}

inline bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// Device 0's context made current, a stream, and device allocations freed
/// at the end. The fake's device memory is host memory: tests fill and read
/// it directly.
struct Device {
  Device() {
    cuDevicePrimaryCtxRetain(&context, 0);
    cuCtxPushCurrent_v2(context);
    cuStreamCreate(&stream, 1);
  }
  ~Device() {
    for (unsigned long long pointer : allocations)
      cuMemFree_v2(pointer);
    cuStreamDestroy_v2(stream);
    void *popped = nullptr;
    cuCtxPopCurrent_v2(&popped);
    cuDevicePrimaryCtxRelease_v2(0);
  }
  Device(const Device &) = delete;
  /// `bytes` bytes of `data` in a new allocation, `offset` bytes into it.
  unsigned long long uploadBytes(const void *data, size_t bytes,
                                 size_t offset = 0) {
    unsigned long long base = 0;
    EXPECT_EQ(cuMemAlloc_v2(&base, offset + bytes + 4), 0);
    allocations.push_back(base);
    if (bytes)
      std::memcpy(reinterpret_cast<char *>(base) + offset, data, bytes);
    return base + offset;
  }
  unsigned long long upload(const std::vector<float> &values,
                            size_t offset = 0) {
    return uploadBytes(values.data(), values.size() * 4, offset);
  }
  unsigned long long upload16(const std::vector<uint16_t> &values,
                              size_t offset = 0) {
    return uploadBytes(values.data(), values.size() * 2, offset);
  }
  graphc::rt::cu::Stream cuStream() const {
    return static_cast<graphc::rt::cu::Stream>(stream);
  }
  void *context = nullptr, *stream = nullptr;
  std::vector<unsigned long long> allocations;
};

/// `count` elements of T at device pointer `pointer`.
template <typename T = float>
std::vector<T> download(unsigned long long pointer, size_t count) {
  std::vector<T> out(count);
  std::memcpy(out.data(), reinterpret_cast<const void *>(pointer),
              count * sizeof(T));
  return out;
}

//===- fake_cuda_model's kernels and a session running it -----------------===//

/// fake_scale(x, w, t): t[i] = x[i] * w[i % 3] over 6 elements.
inline void fakeScale(const fakecu_launch *launch) {
  const float *x = *static_cast<float **>(launch->params[0]);
  const float *w = *static_cast<float **>(launch->params[1]);
  float *t = *static_cast<float **>(launch->params[2]);
  for (int i = 0; i < 6; ++i)
    t[i] = x[i] * w[i % 3];
}

/// fake_gather(t, idx, y, error record, site): y[r] = t[r, idx[r]], with
/// the bounds check and error report generated gather kernels make.
inline void fakeGather(const fakecu_launch *launch) {
  const float *t = *static_cast<float **>(launch->params[0]);
  const int64_t *idx = *static_cast<int64_t **>(launch->params[1]);
  float *y = *static_cast<float **>(launch->params[2]);
  unsigned long long *record =
      *static_cast<unsigned long long **>(launch->params[3]);
  unsigned site = *static_cast<unsigned *>(launch->params[4]);
  for (int r = 0; r < 2; ++r) {
    int64_t i = idx[r];
    if (i < -3 || i >= 3) {
      if (!record[0]) {
        record[0] = 1;
        record[1] = site;
        record[2] = static_cast<unsigned long long>(i);
        record[3] = static_cast<unsigned long long>(-3ll);
        record[4] = 3;
        record[5] = 0; // an index
      }
      y[r] = 0;
      continue;
    }
    y[r] = t[r * 3 + (i < 0 ? i + 3 : i)];
  }
}

inline void registerKernels() {
  static const unsigned scaleParams[] = {8, 8, 8};
  static const unsigned gatherParams[] = {8, 8, 8, 8, 4};
  fakecu_register_kernel("fake_scale", fakeScale, 3, scaleParams);
  fakecu_register_kernel("fake_gather", fakeGather, 5, gatherParams);
}

/// A session plus device buffers for x, idx and y.
struct Bench {
  Bench(graphc_model *model, uint32_t flags, int32_t ordinal = 0)
      : ordinal(ordinal) {
    graphc_session_options options;
    graphc_session_options_init(&options);
    options.flags = flags;
    options.device_ordinal = ordinal;
    Status status(graphc_session_create(model, &options, &session));
    EXPECT_TRUE(status.ok()) << status.message();
    if (!session)
      return;
    EXPECT_GRAPHC_OK(graphc_session_allocate_buffer(session, 24, &x));
    EXPECT_GRAPHC_OK(graphc_session_allocate_buffer(session, 16, &idx));
    EXPECT_GRAPHC_OK(graphc_session_allocate_buffer(session, 8, &y));
  }
  ~Bench() {
    if (!session)
      return;
    graphc_session_free_buffer(session, x);
    graphc_session_free_buffer(session, idx);
    graphc_session_free_buffer(session, y);
    graphc_session_release(session);
  }

  DLTensor tensor(void *data, int32_t ndim, int64_t *shape, DLDataType type) {
    DLTensor t{};
    t.data = data;
    t.device = {kDLCUDA, ordinal};
    t.ndim = ndim;
    t.dtype = type;
    t.shape = shape;
    return t;
  }

  /// Uploads x = {1..5, last} and `indices`, then runs (synchronously, or
  /// on `stream` when `onStream`) into `out` (default y).
  graphc_status run(std::vector<int64_t> indices, float last = 6,
                    bool onStream = false, void *stream = nullptr,
                    void *out = nullptr) {
    std::vector<float> host = {1, 2, 3, 4, 5, last};
    graphc_status status = graphc_session_upload(session, x, host.data(), 24);
    if (status)
      return status;
    if ((status = graphc_session_upload(session, idx, indices.data(), 16)))
      return status;
    DLTensor inputs[2] = {tensor(x, 2, xShape, {kDLFloat, 32, 1}),
                          tensor(idx, 1, idxShape, {kDLInt, 64, 1})};
    DLTensor output = tensor(out ? out : y, 1, yShape, {kDLFloat, 32, 1});
    return onStream
               ? graphc_session_run_on_stream(session, inputs, 2, nullptr,
                                              &output, 1, stream)
               : graphc_session_run(session, inputs, 2, nullptr, &output, 1);
  }

  std::vector<float> result(const void *out = nullptr) {
    std::vector<float> host(2);
    EXPECT_GRAPHC_OK(
        graphc_session_download(session, host.data(), out ? out : y, 8));
    return host;
  }

  int32_t ordinal;
  graphc_session *session = nullptr;
  void *x = nullptr, *idx = nullptr, *y = nullptr;
  int64_t xShape[2] = {2, 3}, idxShape[1] = {2}, yShape[1] = {2};
};

} // namespace fakecutest

#endif
