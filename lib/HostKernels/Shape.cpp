//===- Shape.cpp - data movement host kernels -----------------------------===//

#include "lib/HostKernels/KernelSupport.h"

using namespace graphc::hk;

GC_DEFINE_HOST_KERNEL(reshape) {
  (void)num_inputs;
  (void)num_outputs;
  (void)attrs;
  size_t bytes = numElements(inputs[0]) * gc_dtype_size(inputs[0].dtype);
  (void)err;
  (void)err_len;
  std::memcpy(outputs[0].data, inputs[0].data, bytes);
  return 0;
}
