//===- ComputeView.h - 16-bit floats computed in float ----------*- C++ -*-===//
//
// The arithmetic copies of the host kernels' operands and results: MatMul,
// Gemm, Conv, ConvTranspose and the normalizations widen f16/bf16 tensors
// into float scratch (ComputeView), compute there (the GEMM is graphc::gemm,
// lib/Support/Gemm.h) and round once into the output (ComputeOutput).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_HOSTKERNELS_COMPUTEVIEW_H
#define GRAPHC_HOSTKERNELS_COMPUTEVIEW_H

#include "lib/HostKernels/KernelSupport.h"

#include <vector>

namespace graphc::hk {

/// A tensor's elements in its arithmetic type: the data itself, or a widened
/// float copy for f16/bf16.
template <typename T> class ComputeView {
public:
  ComputeView(const void *data, int64_t count) {
    if constexpr (std::is_same_v<T, Arith<T>>) {
      ptr = static_cast<const T *>(data);
    } else {
      const T *src = static_cast<const T *>(data);
      storage.resize(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i)
        storage[i] = toArith(src[i]);
      ptr = storage.data();
    }
  }
  const Arith<T> *data() const { return ptr; }

private:
  std::vector<Arith<T>> storage;
  const Arith<T> *ptr;
};

/// Output storage in the arithmetic type, rounded into the tensor by flush().
template <typename T> class ComputeOutput {
public:
  ComputeOutput(void *data, int64_t count)
      : out(static_cast<T *>(data)), n(count) {
    if constexpr (std::is_same_v<T, Arith<T>>)
      ptr = out;
    else {
      storage.resize(static_cast<size_t>(count));
      ptr = storage.data();
    }
  }
  Arith<T> *data() { return ptr; }
  void flush() {
    if constexpr (!std::is_same_v<T, Arith<T>>)
      for (int64_t i = 0; i < n; ++i)
        out[i] = fromArith<T>(storage[i]);
  }

private:
  std::vector<Arith<T>> storage;
  T *out;
  int64_t n;
  Arith<T> *ptr;
};

} // namespace graphc::hk

#endif
