//===- Elementwise.cpp - unary and broadcasting binary host kernels -------===//

#include "lib/HostKernels/KernelSupport.h"

#include <algorithm>

using namespace graphc::hk;

GC_DEFINE_HOST_KERNEL(relu) {
  (void)num_inputs;
  (void)num_outputs;
  (void)attrs;
  if (inputs[0].dtype != GC_DTYPE_F32)
    return fail(err, err_len, "relu: unsupported dtype %d", inputs[0].dtype);
  const float *in = static_cast<const float *>(inputs[0].data);
  float *out = static_cast<float *>(outputs[0].data);
  for (int64_t i = 0, n = numElements(inputs[0]); i < n; ++i)
    out[i] = std::max(in[i], 0.0f);
  return 0;
}

GC_DEFINE_HOST_KERNEL(add) {
  (void)num_inputs;
  (void)num_outputs;
  (void)attrs;
  return fail(err, err_len, "add: not implemented yet");
}
