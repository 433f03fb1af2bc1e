//===- graphc_cuda_emulation.h - the CUDA execution model on the host -----===//
//
// Force-included before the CUDA source graphc generates (the very text NVRTC
// compiles) when a model is compiled with --cuda-emulation; the result is a
// host shared object that the fake CUDA driver loads as a module image. It
// gives CI without a GPU a way to run every generated kernel:
//  - a launch runs its blocks one after another; the threads of a block are
//    cooperative fibers on the launching thread, so __syncthreads() and warp
//    shuffles see the other threads' writes exactly where CUDA promises them;
//  - __shared__ variables are per launching thread and shared by the fibers
//    of the block that runs, like a block's shared memory;
//  - the scalar side of CUDA C++ (qualifiers, libm, __half and
//    __nv_bfloat16) comes from graphc_cuda_scalar.h, which cpu models with
//    generated loops include too;
//  - a fiber switch happens only at a barrier or a shuffle, so atomics are
//    plain read-modify-write.
// The module exports `graphc_emu_kernels`, one entry per kernel (see
// GRAPHC_EMU_KERNEL below), which the driver uses to launch them.
//
// cudaGraphSetConditional reaches the driver through a function pointer the
// image exports (graphc_emu_set_conditional), which the driver sets after
// loading it.
//
// Code here must stay C++17 that g++ and clang++ accept. It includes C
// headers only: <cmath> alone would double the time each module takes to
// compile, and the tests compile hundreds of modules.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_CUDA_EMULATION_H
#define GRAPHC_CUDA_EMULATION_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "graphc_cuda_scalar.h"

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

//===----------------------------------------------------------------------===//
// Fibers
//===----------------------------------------------------------------------===//

namespace gc_emu {

// What the kernel table needs of <type_traits> and <utility>.
template <typename T> struct RemoveReference { using type = T; };
template <typename T> struct RemoveReference<T &> { using type = T; };
template <typename T> struct RemoveReference<T &&> { using type = T; };
template <size_t... I> struct Indices {};
template <size_t N, size_t... I>
struct MakeIndices : MakeIndices<N - 1, N - 1, I...> {};
template <size_t... I> struct MakeIndices<0, I...> {
  using type = Indices<I...>;
};
template <typename A, typename B>
using Common = decltype(true ? A() : B());

struct uint3 {
  unsigned int x, y, z;
};
using dim3 = uint3;

enum class FiberState { ready, blockBarrier, warpBarrier, done };

struct Fiber {
  uint3 threadIdx;
  unsigned linear; // threadIdx.x + blockDim.x * (threadIdx.y + ...)
  FiberState state;
#if defined(__x86_64__)
  void *sp;
#else
  ucontext_t context;
#endif
  char *stack;
};

constexpr unsigned kMaxThreads = 1024;
// Kernels keep small arrays in registers; 128 KiB is far above what any
// generated kernel puts on its stack. The lowest page of each stack is a
// guard page, so an overflow faults instead of corrupting a neighbour.
constexpr size_t kStackBytes = 128 * 1024;
constexpr size_t kGuardBytes = 4096;

// The running launch, per launching thread.
inline thread_local uint3 blockIdx, blockDim, gridDim;
inline thread_local Fiber *current = nullptr;
inline thread_local void (*threadBody)() = nullptr;
// 8-byte lane slots of each warp for shuffles.
inline thread_local unsigned long long shuffleSlots[kMaxThreads];

/// The fibers of the running block and the scheduler's context.
struct FiberPool {
  Fiber fibers[kMaxThreads];
#if defined(__x86_64__)
  void *schedulerSp = nullptr;
#else
  ucontext_t scheduler;
#endif
};

inline thread_local FiberPool pool;

/// The stacks of one launch's block size, reused by each of its blocks and
/// unmapped when the launch ends: a process loads many modules, and mappings
/// kept per module would exhaust the kernel's mapping count.
class LaunchStacks {
public:
  explicit LaunchStacks(unsigned threads) : bytes(kStackBytes * threads) {
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return;
    memory = static_cast<char *>(p);
    for (unsigned i = 0; i < threads; ++i) {
      pool.fibers[i].stack = memory + i * kStackBytes;
      mprotect(pool.fibers[i].stack, kGuardBytes, PROT_NONE);
    }
  }
  ~LaunchStacks() {
    if (memory)
      munmap(memory, bytes);
  }
  LaunchStacks(const LaunchStacks &) = delete;
  LaunchStacks &operator=(const LaunchStacks &) = delete;
  bool ok() const { return memory != nullptr; }

private:
  size_t bytes;
  char *memory = nullptr;
};

#if defined(__x86_64__)
// Saves the callee-saved registers on the current stack, stores the stack
// pointer in *from and resumes the fiber whose stack pointer is `to`.
extern "C" void gc_emu_switch(void **from, void *to);
asm(R"(
  .text
  .p2align 4
  .type gc_emu_switch,@function
  .hidden gc_emu_switch
gc_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size gc_emu_switch, .-gc_emu_switch
)");
#endif

inline void toScheduler() {
#if defined(__x86_64__)
  gc_emu_switch(&current->sp, pool.schedulerSp);
#else
  swapcontext(&current->context, &pool.scheduler);
#endif
}

[[noreturn]] inline void fiberMain() {
  threadBody();
  current->state = FiberState::done;
  toScheduler();
  __builtin_unreachable();
}

inline void startFiber(Fiber &fiber) {
#if defined(__x86_64__)
  // A fresh stack as gc_emu_switch leaves it: six zeroed registers, then
  // fiberMain as the return address, entered with the stack aligned as
  // after a call.
  uintptr_t top = reinterpret_cast<uintptr_t>(fiber.stack + kStackBytes);
  top &= ~uintptr_t(15);
  void **sp = reinterpret_cast<void **>(top);
  *--sp = nullptr; // fiberMain's own return address: it never returns
  *--sp = reinterpret_cast<void *>(&fiberMain);
  for (int i = 0; i < 6; ++i)
    *--sp = nullptr;
  fiber.sp = sp;
#else
  getcontext(&fiber.context);
  fiber.context.uc_stack.ss_sp = fiber.stack + kGuardBytes;
  fiber.context.uc_stack.ss_size = kStackBytes - kGuardBytes;
  fiber.context.uc_link = nullptr;
  makecontext(&fiber.context, reinterpret_cast<void (*)()>(&fiberMain), 0);
#endif
}

inline void resume(Fiber &fiber) {
  current = &fiber;
#if defined(__x86_64__)
  gc_emu_switch(&pool.schedulerSp, fiber.sp);
#else
  swapcontext(&pool.scheduler, &fiber.context);
#endif
  current = nullptr;
}

/// Runs every thread of the current block until all have returned. Returns
/// false, with a message, when the threads wait for each other in a way that
/// can never complete (a barrier some live threads never reach).
inline bool runBlock(unsigned threads, char *error, size_t errorBytes) {
  for (unsigned t = 0; t < threads; ++t) {
    Fiber &fiber = pool.fibers[t];
    fiber.linear = t;
    fiber.threadIdx.x = t % blockDim.x;
    fiber.threadIdx.y = (t / blockDim.x) % blockDim.y;
    fiber.threadIdx.z = t / (blockDim.x * blockDim.y);
    fiber.state = FiberState::ready;
    startFiber(fiber);
  }
  unsigned warps = (threads + 31) / 32;
  for (;;) {
    for (unsigned t = 0; t < threads; ++t)
      if (pool.fibers[t].state == FiberState::ready)
        resume(pool.fibers[t]);
    // Every live thread now waits at a barrier. Release each warp whose live
    // lanes all wait at a warp barrier, and the block when all live threads
    // wait at __syncthreads (exited threads no longer count, as on sm_70+).
    bool released = false, live = false, allAtBlockBarrier = true;
    for (unsigned w = 0; w < warps; ++w) {
      unsigned end = w * 32 + 32 < threads ? w * 32 + 32 : threads;
      bool warpWaits = false, warpReady = true;
      for (unsigned t = w * 32; t < end; ++t) {
        FiberState s = pool.fibers[t].state;
        if (s == FiberState::done)
          continue;
        live = true;
        if (s != FiberState::blockBarrier)
          allAtBlockBarrier = false;
        if (s == FiberState::warpBarrier)
          warpWaits = true;
        else
          warpReady = false;
      }
      if (warpWaits && warpReady) {
        for (unsigned t = w * 32; t < end; ++t)
          if (pool.fibers[t].state == FiberState::warpBarrier)
            pool.fibers[t].state = FiberState::ready;
        released = true;
      }
    }
    if (!live)
      return true;
    if (!released && allAtBlockBarrier) {
      for (unsigned t = 0; t < threads; ++t)
        if (pool.fibers[t].state == FiberState::blockBarrier)
          pool.fibers[t].state = FiberState::ready;
      released = true;
    }
    if (!released) {
      snprintf(error, errorBytes,
               "block (%u,%u,%u) deadlocks: some threads wait in "
               "__syncthreads() while others wait in a warp shuffle",
               blockIdx.x, blockIdx.y, blockIdx.z);
      return false;
    }
  }
}

inline void syncthreads() {
  current->state = FiberState::blockBarrier;
  toScheduler();
}

inline void syncwarp() {
  current->state = FiberState::warpBarrier;
  toScheduler();
}

/// Exchanges `value` within the warp: every lane publishes its value, waits
/// for the others, reads lane `source(lane)`, and waits again so that no
/// lane overwrites its slot before all have read.
template <typename T, typename Source>
inline T shuffle(T value, Source source, int width) {
  static_assert(sizeof(T) <= sizeof(unsigned long long) &&
                    __is_trivially_copyable(T),
                "shuffles move at most 8 bytes");
  unsigned lane = current->linear % 32, base = current->linear - lane;
  unsigned segment = lane - lane % unsigned(width);
  memcpy(&shuffleSlots[current->linear], &value, sizeof(T));
  syncwarp();
  int from = source(int(lane - segment));
  T result = value;
  if (from >= 0 && from < width)
    memcpy(&result, &shuffleSlots[base + segment + unsigned(from)], sizeof(T));
  syncwarp();
  return result;
}

/// Why the running launch fails though its threads completed (a device
/// call the driver refused), null when it does not. Per launching thread.
inline thread_local const char *launchFailure = nullptr;

/// Runs the whole grid of `body` (which reads its parameters from where the
/// launch stored them). Returns 0, or 1 with a message.
inline int launchGrid(void (*body)(), const unsigned grid[3],
                      const unsigned block[3], char *error,
                      size_t errorBytes) {
  unsigned long long threads =
      (unsigned long long)block[0] * block[1] * block[2];
  if (threads == 0 || threads > kMaxThreads || grid[0] == 0 || grid[1] == 0 ||
      grid[2] == 0) {
    snprintf(error, errorBytes, "invalid launch: grid (%u,%u,%u), block "
             "(%u,%u,%u)", grid[0], grid[1], grid[2], block[0], block[1],
             block[2]);
    return 1;
  }
  LaunchStacks stacks{unsigned(threads)};
  if (!stacks.ok()) {
    snprintf(error, errorBytes, "cannot map the stacks of %llu threads",
             threads);
    return 1;
  }
  gridDim = {grid[0], grid[1], grid[2]};
  blockDim = {block[0], block[1], block[2]};
  threadBody = body;
  for (unsigned z = 0; z < grid[2]; ++z)
    for (unsigned y = 0; y < grid[1]; ++y)
      for (unsigned x = 0; x < grid[0]; ++x) {
        blockIdx = {x, y, z};
        if (!runBlock(unsigned(threads), error, errorBytes))
          return 1;
      }
  return 0;
}

/// The launch entry of one kernel: unpacks the parameter array the driver
/// passes into the kernel's typed arguments.
template <typename F, F kernel> struct Kernel;
template <typename... Args, void (*kernel)(Args...)>
struct Kernel<void (*)(Args...), kernel> {
  static inline thread_local void **params;

  template <size_t... I> static void call(Indices<I...>) {
    kernel(*static_cast<typename RemoveReference<Args>::type *>(params[I])...);
  }
  static void body() {
    call(typename MakeIndices<sizeof...(Args)>::type{});
  }

  static int launch(const unsigned grid[3], const unsigned block[3],
                    unsigned sharedBytes, void **kernelParams, char *error,
                    size_t errorBytes) {
    if (sharedBytes) {
      snprintf(error, errorBytes,
               "dynamic shared memory is not emulated (%u bytes asked)",
               sharedBytes);
      return 1;
    }
    params = kernelParams;
    launchFailure = nullptr;
    if (launchGrid(&body, grid, block, error, errorBytes))
      return 1;
    if (launchFailure) {
      snprintf(error, errorBytes, "%s", launchFailure);
      return 1;
    }
    return 0;
  }
  static constexpr unsigned sizes[sizeof...(Args) + 1] = {sizeof(Args)..., 0};
};

} // namespace gc_emu

/// What the module exports for the driver; the table ends with a null name.
struct graphc_emu_kernel {
  const char *name;
  int (*launch)(const unsigned grid[3], const unsigned block[3],
                unsigned sharedBytes, void **params, char *error,
                size_t errorBytes);
  int num_params;
  const unsigned *param_sizes;
};

#define GRAPHC_EMU_KERNEL(name)                                                \
  {#name, &::gc_emu::Kernel<decltype(&name), &name>::launch,                   \
   int(sizeof(::gc_emu::Kernel<decltype(&name), &name>::sizes) /               \
           sizeof(unsigned) -                                                  \
       1),                                                                     \
   ::gc_emu::Kernel<decltype(&name), &name>::sizes}

//===----------------------------------------------------------------------===//
// CUDA C++ on the host
//===----------------------------------------------------------------------===//

#define __global__
#define __launch_bounds__(...)
#define __shared__ static thread_local
#define threadIdx (::gc_emu::current->threadIdx)
#define blockIdx (::gc_emu::blockIdx)
#define blockDim (::gc_emu::blockDim)
#define gridDim (::gc_emu::gridDim)
#define warpSize 32

using dim3 = gc_emu::dim3;
using uint3 = gc_emu::uint3;

inline void __syncthreads() { gc_emu::syncthreads(); }
inline void __syncwarp(unsigned = 0xffffffffu) { gc_emu::syncwarp(); }

template <typename T>
inline T __shfl_sync(unsigned, T value, int lane, int width = 32) {
  return gc_emu::shuffle(value, [&](int) { return lane % width; }, width);
}
template <typename T>
inline T __shfl_xor_sync(unsigned, T value, int mask, int width = 32) {
  return gc_emu::shuffle(value, [&](int lane) { return lane ^ mask; }, width);
}
template <typename T>
inline T __shfl_down_sync(unsigned, T value, unsigned delta, int width = 32) {
  // A source past the segment keeps the lane's own value, as on the GPU.
  return gc_emu::shuffle(
      value, [&](int lane) { return lane + int(delta); }, width);
}
template <typename T>
inline T __shfl_up_sync(unsigned, T value, unsigned delta, int width = 32) {
  return gc_emu::shuffle(
      value, [&](int lane) { return lane - int(delta); }, width);
}

// CUDA's integer min/max take mixed operand types.
template <typename A, typename B>
inline gc_emu::Common<A, B> min(A a, B b) {
  using T = gc_emu::Common<A, B>;
  return T(b) < T(a) ? T(b) : T(a);
}
template <typename A, typename B>
inline gc_emu::Common<A, B> max(A a, B b) {
  using T = gc_emu::Common<A, B>;
  return T(a) < T(b) ? T(b) : T(a);
}

// Atomics: fibers switch only at barriers, so a read-modify-write cannot be
// interleaved with another thread's.
template <typename T> inline T atomicCAS(T *address, T compare, T value) {
  T old = *address;
  if (old == compare)
    *address = value;
  return old;
}
template <typename T> inline T atomicAdd(T *address, T value) {
  T old = *address;
  *address = old + value;
  return old;
}
template <typename T> inline T atomicExch(T *address, T value) {
  T old = *address;
  *address = value;
  return old;
}
template <typename T> inline T atomicMax(T *address, T value) {
  T old = *address;
  *address = old < value ? value : old;
  return old;
}
template <typename T> inline T atomicMin(T *address, T value) {
  T old = *address;
  *address = value < old ? value : old;
  return old;
}
// Blocks run one after another and see each other's writes in order, so a
// fence has nothing to order here (the emulator cannot show a missing one).
inline void __threadfence() {}

// CUDA graph conditional nodes. The driver that loads the image sets this
// to its own cudaGraphSetConditional, which returns why it refuses a call
// (not during a graph launch, a handle of another graph), or null. Defined
// here, not inline: the header is force-included into the one translation
// unit of each image.
extern "C" __attribute__((visibility("default")))
const char *(*graphc_emu_set_conditional)(unsigned long long handle,
                                          unsigned int value) = nullptr;

// Sets the value of a conditional node's handle (the generated preamble
// declares it, as CUDA's device runtime does); a refused call fails the
// launch, as an invalid one faults on a GPU.
extern "C" inline void cudaGraphSetConditional(unsigned long long handle,
                                               unsigned int value) {
  const char *why =
      graphc_emu_set_conditional
          ? graphc_emu_set_conditional(handle, value)
          : "cudaGraphSetConditional: the driver that loaded this image "
            "sets no conditional handles";
  if (why && !gc_emu::launchFailure)
    gc_emu::launchFailure = why;
}

//===----------------------------------------------------------------------===//
// Warp-level PTX: ldmatrix, mma.sync m16n8k16, cp.async
//===----------------------------------------------------------------------===//
//
// The preamble's gc_ldmatrix*, gc_mma_* and gc_cp_async* wrap PTX in inline
// asm, and call these when GRAPHC_CUDA_EMULATION is defined, so a kernel is
// the same text on both. The warp-collective ones exchange each lane's
// operands (a row address, or an mma's fragments) between two warp barriers,
// like the shuffles, and give each lane exactly the elements the PTX ISA
// assigns it (groupID = lane / 4, threadID_in_group = lane % 4).

#define GRAPHC_CUDA_EMULATION 1

namespace gc_emu {

// Per-lane words of the exchanges: an ldmatrix row address, or an mma's A
// (4 words), B (2 words) and C (4 floats).
inline thread_local uint32_t ptxSlots[kMaxThreads][10];

/// ldmatrix.sync.aligned.m8n8.x<count>[.trans].shared.b16: lanes 8i..8i+7
/// give the addresses of rows 0..7 of matrix i; of matrix i, lane l receives
/// in out[i] the elements (l / 4, 2 (l % 4)) and (l / 4, 2 (l % 4) + 1), the
/// first in the low half; with .trans, (2 (l % 4), l / 4) and
/// (2 (l % 4) + 1, l / 4).
inline void ldmatrix(uint32_t *out, int count, bool trans, const void *row) {
  unsigned lane = current->linear % 32, base = current->linear - lane;
  uintptr_t address = reinterpret_cast<uintptr_t>(row);
  memcpy(ptxSlots[current->linear], &address, sizeof address);
  syncwarp();
  for (int i = 0; i < count; ++i) {
    uint16_t element[2];
    for (unsigned k = 0; k < 2; ++k) {
      unsigned r = trans ? 2 * (lane % 4) + k : lane / 4;
      unsigned c = trans ? lane / 4 : 2 * (lane % 4) + k;
      uintptr_t rowAddress;
      memcpy(&rowAddress, ptxSlots[base + 8 * i + r], sizeof rowAddress);
      memcpy(&element[k], reinterpret_cast<const char *>(rowAddress) + 2 * c,
             2);
    }
    out[i] = uint32_t(element[0]) | uint32_t(element[1]) << 16;
  }
  syncwarp();
}

/// mma.sync.aligned.m16n8k16.row.col.f32.<f16|bf16>.<f16|bf16>.f32 d, a, b,
/// c. A (16 x 16): a[0] holds (g, 2t..2t+1), a[1] (g + 8, 2t..), a[2]
/// (g, 2t + 8..), a[3] (g + 8, 2t + 8..). B (16 x 8): b[0] holds
/// (2t..2t+1, g), b[1] (2t + 8.., g). C and D (16 x 8 floats): [0], [1] are
/// (g, 2t), (g, 2t + 1); [2], [3] are (g + 8, 2t), (g + 8, 2t + 1). Products
/// and sums in float, k in order.
template <bool bf16>
inline void mma16816(float *d, const uint32_t *a, const uint32_t *b,
                     const float *c) {
  unsigned lane = current->linear % 32, base = current->linear - lane;
  uint32_t *slot = ptxSlots[current->linear];
  memcpy(slot, a, 16);
  memcpy(slot + 4, b, 8);
  syncwarp();
  auto value = [](uint32_t word, unsigned half) {
    uint16_t bits = uint16_t(half ? word >> 16 : word);
    return bf16 ? bfloat16ToFloat(bits) : halfToFloat(bits);
  };
  // The lane and word holding A's (row, k) and B's (k, col).
  auto A = [&](unsigned row, unsigned k) {
    return value(
        ptxSlots[base + (row % 8) * 4 + (k % 8) / 2][row / 8 + 2 * (k / 8)],
        k % 2);
  };
  auto B = [&](unsigned k, unsigned col) {
    return value(ptxSlots[base + col * 4 + (k % 8) / 2][4 + k / 8], k % 2);
  };
  unsigned g = lane / 4, t = lane % 4;
  float out[4];
  for (unsigned i = 0; i < 4; ++i) {
    unsigned row = g + 8 * (i / 2), col = 2 * t + i % 2;
    float sum = c[i];
    for (unsigned k = 0; k < 16; ++k)
      sum += A(row, k) * B(k, col);
    out[i] = sum;
  }
  syncwarp();
  memcpy(d, out, sizeof out);
}

} // namespace gc_emu

#endif // GRAPHC_CUDA_EMULATION_H
