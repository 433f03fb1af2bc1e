//===- loop_kernels.cu.cpp - CUDA kernels of the loop tests, emulated -----===//
//
// CUDA C++ built for graphc's CUDA emulator as graphc compile
// --cuda-emulation builds a module (graphc_cuda_emulation.h force-included,
// a kernel table at the end), so the fake driver loads it as an image:
//  - loop_control: a loop step's control kernel as the descriptor's
//    contract states it (descriptor.h, GRAPHC_STEP_LOOP), for loops of at
//    most LOOP_MAX_ITERATIONS iterations;
//  - accumulate: a loop body, acc += x * (iteration + 1) over 4 floats, and
//    the condition acc[0] < 50;
//  - count: ++*counter, ++*total, and a conditional handle set to
//    *counter < *limit (the fake driver's own conditional-node tests).
//
//===----------------------------------------------------------------------===//

// As the generated preamble declares it (CUDA's device runtime).
extern "C" __device__ void cudaGraphSetConditional(unsigned long long handle,
                                                   unsigned int value);

constexpr long long kMaxIterations = LOOP_MAX_ITERATIONS;

__global__ void loop_control(const long long *trip, const bool *first,
                             long long *state, const bool *condition,
                             unsigned long long handle, int phase,
                             unsigned long long *error, unsigned site) {
  long long i = phase == 0 ? 0 : state[0] + 1;
  bool go = (phase == 0 ? (first ? *first : true)
                        : (condition ? *condition : true)) &&
            (trip ? i < *trip : true);
  if (go && i == kMaxIterations) {
    // What gc_report writes; 3: a loop iteration.
    if (atomicCAS(error, 0ull, 1ull) == 0ull) {
      error[1] = site;
      error[2] = (unsigned long long)i;
      error[3] = 0;
      error[4] = (unsigned long long)kMaxIterations;
      error[5] = 3;
    }
    go = false;
  }
  state[0] = i;
  state[1] = go;
  if (handle)
    cudaGraphSetConditional(handle, go);
}

__global__ void accumulate(const float *x, float *acc, const long long *state,
                           bool *condition) {
  unsigned j = threadIdx.x;
  acc[j] += x[j] * float(state[0] + 1);
  if (j == 0)
    *condition = acc[0] < 50.0f;
}

__global__ void count(long long *counter, long long *total,
                      const long long *limit, unsigned long long handle) {
  ++*counter;
  ++*total;
  cudaGraphSetConditional(handle, *counter < *limit);
}

extern "C" __attribute__((visibility("default")))
const graphc_emu_kernel graphc_emu_kernels[] = {
    GRAPHC_EMU_KERNEL(loop_control), GRAPHC_EMU_KERNEL(accumulate),
    GRAPHC_EMU_KERNEL(count), {nullptr, nullptr, 0, nullptr}};
