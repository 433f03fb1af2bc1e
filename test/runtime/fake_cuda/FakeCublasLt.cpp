//===- FakeCublasLt.cpp - cuBLASLt over the fake driver, for tests --------===//
//
// The cuBLASLt entry points the runtime uses (runtime/src/CublasLtSymbols.def),
// in the fake driver's library so that a matmul is queued on the fake's
// streams and captured and replayed like a launch. The arithmetic follows
// cuBLASLt's own conventions, column-major layouts with ROWS, COLS, LD,
// ORDER, BATCH_COUNT and STRIDED_BATCH_OFFSET, and is written without the
// runtime's row-major reference GEMM: a runtime that translates a row-major
// GEMM wrongly gets other numbers, or a refusal, here.
//
// Strict where cuBLASLt is, and stricter where a real GPU would fault later:
// attribute sizes and values, consistent dims and batch counts, ld >= rows,
// an algorithm returned by the heuristic for this very problem, a workspace
// at least as large as that algorithm's, pointers as aligned as the
// heuristic was told, every operand inside one device allocation, and D
// apart from what it reads (C may be D itself, with the same layout).
//
// An algorithm may be reconfigured to split K (CUBLASLT_ALGO_CONFIG_SPLITK_NUM
// and _REDUCTION_SCHEME, kept in the algorithm's own words, as cuBLASLt
// keeps them): cublasLtMatmulAlgoCheck then asks for the reduction's
// workspace, and the matmul sums each part of K on its own before adding
// the parts. Its heuristic reports a wave count from 64 x 64 tiles on 108
// SMs. FAKECU_CUBLASLT_FASTEST (fakecu_cublaslt_set_fastest) makes every
// algorithm but one slower on the fake's clock, for tests of what timing
// picks.
//
// 8-bit operands as cuBLASLt's tables list them: CUDA_R_8I A and B into
// CUDA_R_32I C and D with CUBLAS_COMPUTE_32I and CUDA_R_32I scales (sums
// exact in int64, wrapped to int32 as integer tensor cores wrap), and
// CUDA_R_8F_E4M3 A and B into CUDA_R_32F C and D with CUBLAS_COMPUTE_32F
// (e4m3 decoded by lib/Support/Float8.h, products summed in float), with
// the requirements of its IMMA and fp8 kernels enforced: the "TN" form (A
// transposed, B not), the default epilogue, m, k and the leading dims and
// batch strides multiples of 4 (int8) or of 16 bytes (fp8), pointers
// aligned to 4 (int8) or 16 bytes (fp8), and for fp8 a device of compute
// capability 8.9 or newer (fakecu_set_compute_capability).
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"
#include "FakeCudaInternal.h"
#include "lib/Support/Float16.h"
#include "lib/Support/Float8.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace {
using Status = int;
constexpr Status kOk = 0;
constexpr Status kNotInitialized = 1;
constexpr Status kInvalidValue = 7;
constexpr Status kExecutionFailed = 13;
constexpr Status kNotSupported = 15;

constexpr int kFloat32 = 0;     // CUDA_R_32F
constexpr int kFloat16 = 2;     // CUDA_R_16F
constexpr int kBfloat16 = 14;   // CUDA_R_16BF
constexpr int kInt8 = 3;        // CUDA_R_8I
constexpr int kInt32 = 10;      // CUDA_R_32I
constexpr int kE4M3 = 28;       // CUDA_R_8F_E4M3
constexpr int kCompute32F = 68; // CUBLAS_COMPUTE_32F
constexpr int kCompute32FFastTf32 = 77; // CUBLAS_COMPUTE_32F_FAST_TF32
constexpr int kCompute32I = 72;         // CUBLAS_COMPUTE_32I
/// ONNX's number of float8e4m3fn, as lib/Support/Float8.h names formats.
constexpr int kOnnxE4M3FN = 17;
constexpr int32_t kOrderCol = 0, kOrderRow = 1;
constexpr uint32_t kEpilogueDefault = 1, kEpilogueRelu = 2, kEpilogueBias = 4,
                   kEpilogueGelu = 32;
constexpr uint64_t kAlgoMagic = 0x666b6c74616c676full;
// cublasLtMatmulAlgoConfigAttributes_t and cublasLtReductionScheme_t.
constexpr int kConfigSplitKNum = 2, kConfigReductionScheme = 3;
constexpr uint32_t kReductionNone = 0, kReductionInPlace = 1,
                   kReductionComputeType = 2, kReductionOutputType = 4;
/// Words of an algorithm: the magic, its id, then its configuration.
constexpr int kAlgoSplitWord = 2, kAlgoSchemeWord = 3;
/// The fake GPU's SMs and tile edge, for the heuristic's wave count.
constexpr int64_t kFakeSms = 108, kFakeTile = 64;
/// How much longer, on the fake's clock, an algorithm other than the one
/// FAKECU_CUBLASLT_FASTEST names takes.
constexpr double kSlowerMicros = 1000.0;
/// What the fake's algorithm uses of the workspace it is allowed.
constexpr uint64_t kPreferredWorkspace = 1024;

struct Handle {
  int unused;
};

struct MatmulDesc {
  int32_t compute, scale;
  int32_t pointerMode = 0; // CUBLASLT_POINTER_MODE_HOST
  int32_t transA = 0, transB = 0;
  uint32_t epilogue = kEpilogueDefault;
  const void *bias = nullptr;
  int64_t biasBatchStride = 0;
  int32_t biasType = -1; // the type of D
};

struct Layout {
  uint32_t type;
  int32_t order = kOrderCol;
  uint64_t rows, cols;
  int64_t ld;
  int32_t batch = 1;
  int64_t stride = 0;
};

struct Preference {
  uint32_t searchMode = 0;
  uint64_t maxWorkspace = 0;
  uint32_t alignment[4] = {256, 256, 256, 256}; // A, B, C, D
};

struct MatmulAlgo {
  uint64_t data[8];
};

struct HeuristicResult {
  MatmulAlgo algo;
  size_t workspaceSize;
  Status state;
  float wavesCount;
  int reserved[4];
};

/// An algorithm the heuristic returned: for which problem, with what
/// workspace and alignment assumptions.
struct Algo {
  std::string problem;
  uint64_t workspace;
  uint32_t alignment[4];
  uint32_t biasAlignment;
  /// Its place in the heuristic's answer.
  int rank = 0;
};

/// How many algorithms the heuristic offers for a problem (as many as asked
/// for, up to this): all compute the same, each is its own.
constexpr int kFakeAlgorithms = 8;

/// One validated matmul: the operation and its four layouts.
struct Problem {
  MatmulDesc desc;
  Layout a, b, c, d;
  int64_t m, n, k, batch;
};

struct LtState {
  std::mutex mutex;
  std::set<const void *> handles, descs, layouts, preferences;
  std::map<uint64_t, Algo> algos;
  uint64_t nextAlgo = 1;
  bool failHeuristic = false;
  /// The rank of the algorithm the last cublasLtMatmul ran, or -1.
  int lastRank = -1;
  uint64_t requiredWorkspace = 0;
  std::string lastError;
  /// The split-K of the algorithm the last cublasLtMatmul ran (0: none).
  int lastSplitK = -1;
  /// The algorithm that runs at the host's speed (rank -1: every one);
  /// the others take kSlowerMicros longer.
  int fastestRank = -1, fastestSplitK = 0;
};

/// FAKECU_CUBLASLT_FASTEST="RANK" or "RANK:SPLIT_K" into `s`.
void fastestFromEnvironment(LtState &s) {
  s.fastestRank = -1;
  s.fastestSplitK = 0;
  const char *value = std::getenv("FAKECU_CUBLASLT_FASTEST");
  if (!value || !*value)
    return;
  char *end = nullptr;
  s.fastestRank = static_cast<int>(std::strtol(value, &end, 10));
  if (end && *end == ':')
    s.fastestSplitK = static_cast<int>(std::strtol(end + 1, nullptr, 10));
}

LtState &lt() {
  static LtState state;
  static const bool configured = (fastestFromEnvironment(state), true);
  (void)configured;
  return state;
}

/// Records and prints why `function` refuses, and returns `status`.
Status refuse(LtState &s, const char *function, const std::string &why,
              Status status) {
  s.lastError = std::string(function) + ": " + why;
  std::fprintf(stderr, "fake cuBLASLt: %s\n", s.lastError.c_str());
  return status;
}

std::string hex(const void *pointer) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", pointer);
  return text;
}

/// The largest power of two (at most 256) dividing `pointer`.
uint32_t alignmentOf(const void *pointer) {
  auto value = reinterpret_cast<uintptr_t>(pointer);
  uint32_t alignment = 256;
  while (alignment > 1 && value % alignment)
    alignment /= 2;
  return alignment;
}

/// Elements one batch of `layout` spans.
int64_t matrixSpan(const Layout &layout) {
  return layout.order == kOrderCol
             ? (int64_t(layout.cols) - 1) * layout.ld + int64_t(layout.rows)
             : (int64_t(layout.rows) - 1) * layout.ld + int64_t(layout.cols);
}

/// Elements all batches of `layout` span.
int64_t batchSpan(const Layout &layout) {
  return (int64_t(layout.batch) - 1) * layout.stride + matrixSpan(layout);
}

/// Bytes per element of a matrix type the fake computes.
uint64_t elementBytes(uint32_t type) {
  return type == kFloat32 || type == kInt32 ? 4
         : type == kInt8 || type == kE4M3   ? 1
                                            : 2;
}

/// Whether A and B are 8-bit: int8 or e4m3.
bool eightBit(uint32_t type) { return type == kInt8 || type == kE4M3; }

/// The low 32 bits of `sum` as two's complement: int32 arithmetic that
/// wraps, as the GPU's does.
int32_t wrap32(int64_t sum) {
  uint32_t low = uint32_t(uint64_t(sum));
  return low < 0x80000000u ? int32_t(low)
                           : int32_t(int64_t(low) - (int64_t(1) << 32));
}

/// Element (row, col) of batch `batch` of `layout` at `base`, widened to
/// float; `store` rounds to nearest even as the GPU does.
float load(uint32_t type, const void *base, int64_t at) {
  if (type == kFloat16)
    return graphc::halfToFloat(static_cast<const uint16_t *>(base)[at]);
  if (type == kBfloat16)
    return graphc::bf16ToFloat(static_cast<const uint16_t *>(base)[at]);
  return static_cast<const float *>(base)[at];
}
void store(uint32_t type, void *base, int64_t at, float value) {
  if (type == kFloat16)
    static_cast<uint16_t *>(base)[at] = graphc::floatToHalf(value);
  else if (type == kBfloat16)
    static_cast<uint16_t *>(base)[at] = graphc::floatToBf16(value);
  else
    static_cast<float *>(base)[at] = value;
}
int64_t offset(const Layout &layout, int64_t batch, int64_t row,
               int64_t col) {
  return batch * layout.stride + (layout.order == kOrderCol
                                      ? row + col * layout.ld
                                      : row * layout.ld + col);
}
float element(const Layout &layout, const void *base, int64_t batch,
              int64_t row, int64_t col) {
  return load(layout.type, base, offset(layout, batch, row, col));
}

/// Checks one layout on its own; "" when it is usable.
std::string checkLayout(const char *name, const Layout &layout,
                        Status &status) {
  std::string at = std::string("matrix ") + name + " ";
  status = kNotSupported;
  if (layout.type != kFloat32 && layout.type != kFloat16 &&
      layout.type != kBfloat16 && layout.type != kInt8 &&
      layout.type != kInt32 && layout.type != kE4M3)
    return at + "has type " + std::to_string(layout.type) +
           " (the fake computes CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF, and "
           "CUDA_R_8I into CUDA_R_32I and CUDA_R_8F_E4M3 into CUDA_R_32F)";
  if (layout.order != kOrderCol && layout.order != kOrderRow)
    return at + "has order " + std::to_string(layout.order);
  status = kInvalidValue;
  if (layout.rows < 1 || layout.cols < 1 || layout.rows > INT32_MAX ||
      layout.cols > INT32_MAX)
    return at + "is " + std::to_string(layout.rows) + " x " +
           std::to_string(layout.cols);
  uint64_t least = layout.order == kOrderCol ? layout.rows : layout.cols;
  if (layout.ld < 0 || uint64_t(layout.ld) < least)
    return at + "has ld " + std::to_string(layout.ld) + " < " +
           std::to_string(least) +
           (layout.order == kOrderCol ? " rows" : " columns");
  if (layout.batch < 1 || layout.stride < 0)
    return at + "has batch count " + std::to_string(layout.batch) +
           " and stride " + std::to_string(layout.stride);
  return "";
}

/// What cuBLASLt's int8 (IMMA) and fp8 kernels require of an 8-bit
/// problem beyond its types; "" when it meets it all.
std::string checkEightBit(const MatmulDesc &desc, const Layout &a,
                          const Layout &b, const Layout &c, const Layout &d,
                          Status &status) {
  const bool int8 = a.type == kInt8;
  const char *kernels = int8 ? "IMMA kernels" : "fp8 kernels";
  status = kNotSupported;
  if (desc.epilogue != kEpilogueDefault)
    return std::string(kernels) + " with epilogue " +
           std::to_string(desc.epilogue) + " (the default only)";
  if (desc.transA != 1 || desc.transB != 0)
    return std::string(kernels) + " in the form " +
           (desc.transA ? "T" : "N") + (desc.transB ? "T" : "N") +
           " (only \"TN\": A transposed, B not)";
  for (const Layout *layout : {&a, &b, &c, &d})
    if (layout->order != kOrderCol)
      return std::string(kernels) + " with a row-major matrix";
  // Dims and leading dims of 8-bit matrices in 4-element (int8) or
  // 16-byte (fp8) steps; C and D's leading dims in 16 bytes for fp8.
  const int64_t operand = int8 ? 4 : 16, output = 4;
  const int64_t m = d.rows, k = a.rows;
  const struct {
    const char *name;
    int64_t value, multiple;
  } sizes[] = {{"m", m, operand},
               {"k", k, operand},
               {"lda", a.ld, operand},
               {"ldb", b.ld, operand},
               {"ldc", c.ld, output},
               {"ldd", d.ld, output},
               {"A's batch stride", a.batch > 1 ? a.stride : 0, operand},
               {"B's batch stride", b.batch > 1 ? b.stride : 0, operand},
               {"C's batch stride", c.batch > 1 ? c.stride : 0, output},
               {"D's batch stride", d.batch > 1 ? d.stride : 0, output}};
  for (const auto &size : sizes)
    if (size.value % size.multiple)
      return std::string(kernels) + " with " + size.name + " " +
             std::to_string(size.value) + ", not a multiple of " +
             std::to_string(size.multiple);
  return "";
}

/// Checks the operation and its layouts together; fills `problem`.
std::string checkProblem(const MatmulDesc &desc, const Layout &a,
                         const Layout &b, const Layout &c, const Layout &d,
                         Problem &problem, Status &status) {
  status = kNotSupported;
  const bool int8Compute = desc.compute == kCompute32I;
  if ((desc.compute != kCompute32F && desc.compute != kCompute32FFastTf32 &&
       !int8Compute) ||
      desc.scale != (int8Compute ? kInt32 : kFloat32))
    return "compute type " + std::to_string(desc.compute) + ", scale type " +
           std::to_string(desc.scale) +
           " (the fake computes CUBLAS_COMPUTE_32F and "
           "CUBLAS_COMPUTE_32F_FAST_TF32 with CUDA_R_32F scales, and "
           "CUBLAS_COMPUTE_32I with CUDA_R_32I scales)";
  if (desc.pointerMode != 0)
    return "pointer mode " + std::to_string(desc.pointerMode) +
           " (the fake reads host alpha and beta only)";
  const uint32_t epilogues[] = {
      kEpilogueDefault, kEpilogueRelu,
      kEpilogueBias,    kEpilogueRelu | kEpilogueBias,
      kEpilogueGelu,    kEpilogueGelu | kEpilogueBias};
  bool known = false;
  for (uint32_t epilogue : epilogues)
    known |= desc.epilogue == epilogue;
  if (!known)
    return "epilogue " + std::to_string(desc.epilogue);
  if ((desc.epilogue & kEpilogueBias) && desc.biasType != -1 &&
      desc.biasType != kFloat32 && desc.biasType != int32_t(d.type))
    return "bias type " + std::to_string(desc.biasType) + " with D of type " +
           std::to_string(d.type);
  if (desc.biasBatchStride < 0) {
    status = kInvalidValue;
    return "bias batch stride " + std::to_string(desc.biasBatchStride);
  }
  const std::pair<const char *, const Layout *> layouts[] = {
      {"A", &a}, {"B", &b}, {"C", &c}, {"D", &d}};
  for (const auto &[name, layout] : layouts) {
    std::string why = checkLayout(name, *layout, status);
    if (!why.empty())
      return why;
  }
  // One type throughout, or cuBLASLt's 8-bit rows: 8I A and B into 32I C
  // and D computing in 32I, E4M3 A and B into 32F C and D in 32F. Other
  // combinations are ones cuBLASLt does not support.
  status = kNotSupported;
  const bool int8 = a.type == kInt8 && b.type == kInt8 && c.type == kInt32 &&
                    d.type == kInt32 && int8Compute;
  const bool fp8 = a.type == kE4M3 && b.type == kE4M3 && c.type == kFloat32 &&
                   d.type == kFloat32 && desc.compute == kCompute32F;
  if (!int8 && !fp8 &&
      (a.type != d.type || b.type != d.type || c.type != d.type ||
       eightBit(d.type) || d.type == kInt32 || int8Compute))
    return "matrix types " + std::to_string(a.type) + ", " +
           std::to_string(b.type) + ", " + std::to_string(c.type) + ", " +
           std::to_string(d.type) + " computing in " +
           std::to_string(desc.compute) +
           " (the fake computes one floating type throughout, 8I into 32I "
           "in CUBLAS_COMPUTE_32I and 8F_E4M3 into 32F in "
           "CUBLAS_COMPUTE_32F)";
  if (desc.compute == kCompute32FFastTf32 && d.type != kFloat32)
    return "CUBLAS_COMPUTE_32F_FAST_TF32 with matrices of type " +
           std::to_string(d.type);
  if (int8 || fp8) {
    std::string why = checkEightBit(desc, a, b, c, d, status);
    if (!why.empty())
      return why;
  }
  status = kInvalidValue;
  if (a.batch != d.batch || b.batch != d.batch || c.batch != d.batch)
    return "batch counts " + std::to_string(a.batch) + ", " +
           std::to_string(b.batch) + ", " + std::to_string(c.batch) + ", " +
           std::to_string(d.batch) + " differ";
  if (d.batch > 1 && d.stride < matrixSpan(d))
    return "the batches of D overlap (stride " + std::to_string(d.stride) + ")";
  // op(A) is m x k, op(B) k x n, C and D m x n.
  int64_t m = desc.transA ? a.cols : a.rows;
  int64_t k = desc.transA ? a.rows : a.cols;
  int64_t kB = desc.transB ? b.cols : b.rows;
  int64_t n = desc.transB ? b.rows : b.cols;
  if (k != kB || int64_t(c.rows) != m || int64_t(c.cols) != n ||
      int64_t(d.rows) != m || int64_t(d.cols) != n || c.order != d.order)
    return "op(A) is " + std::to_string(m) + " x " + std::to_string(k) +
           ", op(B) " + std::to_string(kB) + " x " + std::to_string(n) +
           ", C " + std::to_string(c.rows) + " x " + std::to_string(c.cols) +
           ", D " + std::to_string(d.rows) + " x " + std::to_string(d.cols);
  problem = {desc, a, b, c, d, m, n, k, d.batch};
  return "";
}

/// What an algorithm is bound to: everything but the pointers.
std::string fingerprint(const Problem &p) {
  std::string text = std::to_string(p.desc.compute) + "," +
                     std::to_string(p.desc.transA) + "," +
                     std::to_string(p.desc.transB) + "," +
                     std::to_string(p.desc.epilogue) + "," +
                     std::to_string(p.desc.biasType) + "," +
                     std::to_string(p.desc.biasBatchStride);
  for (const Layout *layout : {&p.a, &p.b, &p.c, &p.d})
    text += ";" + std::to_string(layout->type) + "," +
            std::to_string(layout->order) + "," +
            std::to_string(layout->rows) + "," + std::to_string(layout->cols) +
            "," + std::to_string(layout->ld) + "," +
            std::to_string(layout->batch) + "," +
            std::to_string(layout->stride);
  return text;
}

/// Whether byte ranges [x, x + xBytes) and [y, y + yBytes) intersect.
bool intersect(const void *x, uint64_t xBytes, const void *y, uint64_t yBytes) {
  auto xa = reinterpret_cast<uintptr_t>(x), ya = reinterpret_cast<uintptr_t>(y);
  return xBytes && yBytes && xa < ya + yBytes && ya < xa + xBytes;
}

/// cuBLASLt's GELU: the tanh approximation.
float gelu(float x) {
  float inner = 0.7978845608f * x * (1.0f + 0.044715f * x * x);
  return 0.5f * x * (1.0f + std::tanh(inner));
}

/// A queued matmul: the problem and scalars as they were at the call.
struct Run {
  Problem p;
  const void *a, *b, *c, *bias;
  void *d;
  /// float32 scales, or int32 ones (CUDA_R_32I) read into these.
  float alpha, beta;
  int64_t alphaInt, betaInt;
  void *workspace;
  uint64_t workspaceBytes;
  /// K is summed in this many parts, each on its own (1: in one).
  int64_t splitK;
};

/// An 8-bit matmul (checked: TN, no epilogue): int8 sums exact in int64
/// and wrapped to int32, or e4m3 products summed in float, each part of a
/// split K on its own.
void computeEightBit(const Run &run) {
  const Problem &p = run.p;
  const bool int8 = p.a.type == kInt8;
  const auto *a = static_cast<const uint8_t *>(run.a);
  const auto *b = static_cast<const uint8_t *>(run.b);
  auto decode = [int8](uint8_t code) -> double {
    return int8 ? double(int8_t(code))
                : double(graphc::gc_f8_to_float(kOnnxE4M3FN, code));
  };
  for (int64_t batch = 0; batch < p.batch; ++batch)
    for (int64_t col = 0; col < p.n; ++col)
      for (int64_t row = 0; row < p.m; ++row) {
        int64_t whole = 0;
        float sum = 0;
        for (int64_t part = 0; part < run.splitK; ++part) {
          int64_t wholePart = 0;
          float partial = 0;
          for (int64_t i = p.k * part / run.splitK;
               i < p.k * (part + 1) / run.splitK; ++i) {
            // TN: op(A)(row, i) is A(i, row), op(B)(i, col) is B(i, col).
            uint8_t x = a[offset(p.a, batch, i, row)];
            uint8_t y = b[offset(p.b, batch, i, col)];
            if (int8)
              wholePart += int64_t(int8_t(x)) * int64_t(int8_t(y));
            else
              partial += float(decode(x) * decode(y)); // exact in float
          }
          whole += wholePart;
          sum += partial;
        }
        const int64_t at = offset(p.d, batch, row, col);
        if (int8) {
          int64_t value = run.alphaInt * whole;
          if (run.betaInt != 0)
            value += run.betaInt * int64_t(static_cast<const int32_t *>(
                                     run.c)[offset(p.c, batch, row, col)]);
          static_cast<int32_t *>(run.d)[at] = wrap32(value);
        } else {
          float value = run.alpha * sum;
          if (run.beta != 0)
            value += run.beta * static_cast<const float *>(
                                    run.c)[offset(p.c, batch, row, col)];
          static_cast<float *>(run.d)[at] = value;
        }
      }
}

void compute(const Run &run) {
  const Problem &p = run.p;
  // A real kernel may use all of its workspace: later readers of it must
  // not expect what they left there.
  if (run.workspace)
    std::memset(run.workspace, 0x5a, run.workspaceBytes);
  if (eightBit(p.a.type)) {
    computeEightBit(run);
    return;
  }
  bool bias = p.desc.epilogue & kEpilogueBias;
  for (int64_t batch = 0; batch < p.batch; ++batch) {
    for (int64_t col = 0; col < p.n; ++col) {
      for (int64_t row = 0; row < p.m; ++row) {
        // Part `part` of a split K covers [k * part / parts,
        // k * (part + 1) / parts); the parts' sums are added in order.
        float sum = 0;
        for (int64_t part = 0; part < run.splitK; ++part) {
          float partial = 0;
          for (int64_t i = p.k * part / run.splitK;
               i < p.k * (part + 1) / run.splitK; ++i) {
            float x = p.desc.transA ? element(p.a, run.a, batch, i, row)
                                    : element(p.a, run.a, batch, row, i);
            float y = p.desc.transB ? element(p.b, run.b, batch, col, i)
                                    : element(p.b, run.b, batch, i, col);
            if (p.desc.compute == kCompute32FFastTf32) {
              x = graphc::roundToTf32(x);
              y = graphc::roundToTf32(y);
            }
            partial += x * y;
          }
          sum += partial;
        }
        float value = run.alpha * sum;
        // beta == 0 never reads C.
        if (run.beta != 0)
          value += run.beta * element(p.c, run.c, batch, row, col);
        // One bias element per row of D.
        if (bias)
          value += load(p.desc.biasType == -1 ? p.d.type : p.desc.biasType,
                        run.bias, batch * p.desc.biasBatchStride + row);
        if (p.desc.epilogue & kEpilogueRelu)
          value = value < 0 ? 0.0f : value; // NaN stays NaN
        if (p.desc.epilogue & kEpilogueGelu)
          value = gelu(value);
        store(p.d.type, run.d, offset(p.d, batch, row, col), value);
      }
    }
  }
}

template <typename T>
Status setValue(LtState &s, const char *function, int attribute,
                const void *buffer, size_t bytes, T &field) {
  if (!buffer || bytes != sizeof(T))
    return refuse(s, function,
                  "attribute " + std::to_string(attribute) + " takes " +
                      std::to_string(sizeof(T)) + " bytes, got " +
                      std::to_string(bytes),
                  kInvalidValue);
  std::memcpy(&field, buffer, sizeof(T));
  return kOk;
}

/// The heuristic's wave count for `p`: its 64 x 64 tiles over 108 SMs.
float wavesOf(const Problem &p) {
  int64_t tiles = (p.m + kFakeTile - 1) / kFakeTile *
                  ((p.n + kFakeTile - 1) / kFakeTile) * p.batch;
  return float(tiles) / float(kFakeSms);
}

/// The split-K configuration in `algo`'s words: its parts (1: unsplit) and
/// reduction scheme.
int64_t splitOf(const MatmulAlgo &algo) {
  return algo.data[kAlgoSplitWord] ? int64_t(algo.data[kAlgoSplitWord]) : 1;
}

/// The workspace `algo`'s split needs beyond the algorithm's own for `p`,
/// or why the split cannot run.
std::string splitWorkspace(const Problem &p, const MatmulAlgo &algo,
                           uint64_t &bytes) {
  int64_t parts = splitOf(algo);
  uint32_t scheme = uint32_t(algo.data[kAlgoSchemeWord]);
  bytes = 0;
  if (parts == 1)
    return "";
  if (parts > p.k)
    return "K of " + std::to_string(p.k) + " split into " +
           std::to_string(parts) + " parts";
  uint64_t partials = uint64_t(parts) * uint64_t(p.m * p.n * p.batch);
  if (scheme == kReductionComputeType)
    bytes = partials * sizeof(float);
  else if (scheme == kReductionOutputType)
    bytes = partials * elementBytes(p.d.type);
  else if (scheme != kReductionInPlace)
    return "K split into " + std::to_string(parts) +
           " parts with reduction scheme " + std::to_string(scheme);
  return "";
}

const char *statusText(Status status) {
  switch (status) {
  case kOk:
    return "the operation completed successfully";
  case kNotInitialized:
    return "the library was not initialized";
  case kInvalidValue:
    return "an invalid numeric value was used as an argument";
  case kExecutionFailed:
    return "the GPU program failed to execute";
  case kNotSupported:
    return "the functionality requested is not supported";
  default:
    return "unknown status";
  }
}
} // namespace

void fakecu::resetCublasLt() {
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.failHeuristic = false;
  s.requiredWorkspace = 0;
  s.lastError.clear();
  s.lastRank = -1;
  s.lastSplitK = -1;
  fastestFromEnvironment(s);
}

extern "C" {
#define FAKE_API __attribute__((visibility("default")))

//===- Control interface --------------------------------------------------===//

FAKE_API void fakecu_cublaslt_fail_heuristic(int fail) {
  std::lock_guard<std::mutex> lock(lt().mutex);
  lt().failHeuristic = fail != 0;
}

FAKE_API void fakecu_cublaslt_require_workspace(unsigned long long bytes) {
  std::lock_guard<std::mutex> lock(lt().mutex);
  lt().requiredWorkspace = bytes;
}

FAKE_API const char *fakecu_cublaslt_last_error(void) {
  return lt().lastError.c_str();
}

FAKE_API int fakecu_cublaslt_last_algorithm_rank(void) {
  std::lock_guard<std::mutex> lock(lt().mutex);
  return lt().lastRank;
}

FAKE_API int fakecu_cublaslt_last_split_k(void) {
  std::lock_guard<std::mutex> lock(lt().mutex);
  return lt().lastSplitK;
}

FAKE_API void fakecu_cublaslt_set_fastest(int rank, int split_k) {
  std::lock_guard<std::mutex> lock(lt().mutex);
  lt().fastestRank = rank;
  lt().fastestSplitK = split_k;
}

//===- Library ------------------------------------------------------------===//

FAKE_API size_t cublasLtGetVersion(void) {
  fakecu::countCall("cublasLtGetVersion");
  return 130000;
}

FAKE_API const char *cublasLtGetStatusString(Status status) {
  return statusText(status);
}

FAKE_API Status cublasLtCreate(Handle **handle) {
  fakecu::countCall("cublasLtCreate");
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!handle)
    return refuse(s, "cublasLtCreate", "no handle to set", kInvalidValue);
  *handle = new Handle();
  s.handles.insert(*handle);
  return kOk;
}

FAKE_API Status cublasLtDestroy(Handle *handle) {
  fakecu::countCall("cublasLtDestroy");
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.handles.erase(handle))
    return refuse(s, "cublasLtDestroy", "not a handle", kNotInitialized);
  delete handle;
  return kOk;
}

//===- Matmul descriptors -------------------------------------------------===//

FAKE_API Status cublasLtMatmulDescCreate(MatmulDesc **desc, int compute,
                                         int scale) {
  fakecu::countCall("cublasLtMatmulDescCreate");
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!desc)
    return refuse(s, "cublasLtMatmulDescCreate", "no desc to set",
                  kInvalidValue);
  *desc = new MatmulDesc{compute, scale};
  s.descs.insert(*desc);
  return kOk;
}

FAKE_API Status cublasLtMatmulDescDestroy(MatmulDesc *desc) {
  fakecu::countCall("cublasLtMatmulDescDestroy");
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.descs.erase(desc))
    return refuse(s, "cublasLtMatmulDescDestroy", "not a matmul desc",
                  kInvalidValue);
  delete desc;
  return kOk;
}

FAKE_API Status cublasLtMatmulDescSetAttribute(MatmulDesc *desc, int attribute,
                                               const void *buffer,
                                               size_t bytes) {
  fakecu::countCall("cublasLtMatmulDescSetAttribute");
  const char *function = "cublasLtMatmulDescSetAttribute";
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.descs.count(desc))
    return refuse(s, function, "not a matmul desc", kInvalidValue);
  Status status;
  switch (attribute) {
  case 0: // CUBLASLT_MATMUL_DESC_COMPUTE_TYPE
    return setValue(s, function, attribute, buffer, bytes, desc->compute);
  case 1: // SCALE_TYPE
    return setValue(s, function, attribute, buffer, bytes, desc->scale);
  case 2: // POINTER_MODE
    return setValue(s, function, attribute, buffer, bytes, desc->pointerMode);
  case 3:   // TRANSA
  case 4: { // TRANSB
    int32_t &field = attribute == 3 ? desc->transA : desc->transB;
    int32_t value = 0;
    if ((status = setValue(s, function, attribute, buffer, bytes, value)))
      return status;
    if (value != 0 && value != 1)
      return refuse(s, function, "transpose " + std::to_string(value),
                    kInvalidValue);
    field = value;
    return kOk;
  }
  case 7: // EPILOGUE
    return setValue(s, function, attribute, buffer, bytes, desc->epilogue);
  case 8: // BIAS_POINTER
    return setValue(s, function, attribute, buffer, bytes, desc->bias);
  case 10: // BIAS_BATCH_STRIDE
    return setValue(s, function, attribute, buffer, bytes,
                    desc->biasBatchStride);
  case 26: // BIAS_DATA_TYPE
    return setValue(s, function, attribute, buffer, bytes, desc->biasType);
  default:
    return refuse(s, function,
                  "attribute " + std::to_string(attribute) +
                      " is not one the fake models",
                  kInvalidValue);
  }
}

//===- Matrix layouts -----------------------------------------------------===//

FAKE_API Status cublasLtMatrixLayoutCreate(Layout **layout, int type,
                                           uint64_t rows, uint64_t cols,
                                           int64_t ld) {
  fakecu::countCall("cublasLtMatrixLayoutCreate");
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!layout)
    return refuse(s, "cublasLtMatrixLayoutCreate", "no layout to set",
                  kInvalidValue);
  *layout = new Layout{static_cast<uint32_t>(type), kOrderCol, rows, cols, ld};
  s.layouts.insert(*layout);
  return kOk;
}

FAKE_API Status cublasLtMatrixLayoutDestroy(Layout *layout) {
  fakecu::countCall("cublasLtMatrixLayoutDestroy");
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.layouts.erase(layout))
    return refuse(s, "cublasLtMatrixLayoutDestroy", "not a layout",
                  kInvalidValue);
  delete layout;
  return kOk;
}

FAKE_API Status cublasLtMatrixLayoutSetAttribute(Layout *layout, int attribute,
                                                 const void *buffer,
                                                 size_t bytes) {
  fakecu::countCall("cublasLtMatrixLayoutSetAttribute");
  const char *function = "cublasLtMatrixLayoutSetAttribute";
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.layouts.count(layout))
    return refuse(s, function, "not a layout", kInvalidValue);
  switch (attribute) {
  case 0: // CUBLASLT_MATRIX_LAYOUT_TYPE
    return setValue(s, function, attribute, buffer, bytes, layout->type);
  case 1: // ORDER
    return setValue(s, function, attribute, buffer, bytes, layout->order);
  case 2: // ROWS
    return setValue(s, function, attribute, buffer, bytes, layout->rows);
  case 3: // COLS
    return setValue(s, function, attribute, buffer, bytes, layout->cols);
  case 4: // LD
    return setValue(s, function, attribute, buffer, bytes, layout->ld);
  case 5: // BATCH_COUNT
    return setValue(s, function, attribute, buffer, bytes, layout->batch);
  case 6: // STRIDED_BATCH_OFFSET
    return setValue(s, function, attribute, buffer, bytes, layout->stride);
  default:
    return refuse(s, function,
                  "attribute " + std::to_string(attribute) +
                      " is not one the fake models",
                  kInvalidValue);
  }
}

//===- Preferences and the heuristic --------------------------------------===//

FAKE_API Status cublasLtMatmulPreferenceCreate(Preference **preference) {
  fakecu::countCall("cublasLtMatmulPreferenceCreate");
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!preference)
    return refuse(s, "cublasLtMatmulPreferenceCreate", "no preference to set",
                  kInvalidValue);
  *preference = new Preference();
  s.preferences.insert(*preference);
  return kOk;
}

FAKE_API Status cublasLtMatmulPreferenceDestroy(Preference *preference) {
  fakecu::countCall("cublasLtMatmulPreferenceDestroy");
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.preferences.erase(preference))
    return refuse(s, "cublasLtMatmulPreferenceDestroy", "not a preference",
                  kInvalidValue);
  delete preference;
  return kOk;
}

FAKE_API Status cublasLtMatmulPreferenceSetAttribute(Preference *preference,
                                                     int attribute,
                                                     const void *buffer,
                                                     size_t bytes) {
  fakecu::countCall("cublasLtMatmulPreferenceSetAttribute");
  const char *function = "cublasLtMatmulPreferenceSetAttribute";
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.preferences.count(preference))
    return refuse(s, function, "not a preference", kInvalidValue);
  switch (attribute) {
  case 0: // CUBLASLT_MATMUL_PREF_SEARCH_MODE
    return setValue(s, function, attribute, buffer, bytes,
                    preference->searchMode);
  case 1: // MAX_WORKSPACE_BYTES
    return setValue(s, function, attribute, buffer, bytes,
                    preference->maxWorkspace);
  case 5: // MIN_ALIGNMENT_A_BYTES .. D
  case 6:
  case 7:
  case 8: {
    uint32_t value = 0;
    if (Status status = setValue(s, function, attribute, buffer, bytes, value))
      return status;
    if (!value || (value & (value - 1)))
      return refuse(s, function, "alignment " + std::to_string(value),
                    kInvalidValue);
    preference->alignment[attribute - 5] = value;
    return kOk;
  }
  default:
    return refuse(s, function,
                  "attribute " + std::to_string(attribute) +
                      " is not one the fake models",
                  kInvalidValue);
  }
}

FAKE_API Status cublasLtMatmulAlgoGetHeuristic(
    Handle *handle, MatmulDesc *desc, Layout *a, Layout *b, Layout *c,
    Layout *d, Preference *preference, int requested, HeuristicResult *results,
    int *returned) {
  fakecu::countCall("cublasLtMatmulAlgoGetHeuristic");
  const char *function = "cublasLtMatmulAlgoGetHeuristic";
  // Read before taking cuBLASLt's lock (the driver's is taken inside).
  const int sm = fakecu::computeCapability();
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.handles.count(handle))
    return refuse(s, function, "not a handle", kNotInitialized);
  if (!s.descs.count(desc) || !s.layouts.count(a) || !s.layouts.count(b) ||
      !s.layouts.count(c) || !s.layouts.count(d) ||
      !s.preferences.count(preference))
    return refuse(s, function, "a desc, layout or preference that is none",
                  kInvalidValue);
  if (requested < 1 || !results || !returned)
    return refuse(s, function, "nowhere to put the algorithms", kInvalidValue);
  *returned = 0;
  Problem problem;
  Status status;
  std::string why = checkProblem(*desc, *a, *b, *c, *d, problem, status);
  if (!why.empty())
    return refuse(s, function, why, status);
  if (s.failHeuristic)
    return refuse(s, function, "no algorithm (injected)", kNotSupported);
  if (eightBit(problem.a.type)) {
    // IMMA kernels read 4-byte aligned matrices, fp8 ones 16-byte aligned;
    // fp8 tensor cores are Ada's (8.9) and newer.
    const bool fp8 = problem.a.type == kE4M3;
    const uint32_t least = fp8 ? 16 : 4;
    for (int i = 0; i < 4; ++i)
      if (preference->alignment[i] < least)
        return refuse(s, function,
                      std::string(fp8 ? "fp8" : "IMMA") +
                          " kernels need pointers aligned to " +
                          std::to_string(least) + " bytes, and matrix " +
                          "ABCD"[i] + " is promised " +
                          std::to_string(preference->alignment[i]),
                      kNotSupported);
    if (fp8 && sm < 89)
      return refuse(s, function,
                    "fp8 kernels need compute capability 8.9 or newer, the "
                    "device has " +
                        std::to_string(sm / 10) + "." + std::to_string(sm % 10),
                    kNotSupported);
  }
  if (preference->maxWorkspace < s.requiredWorkspace)
    return refuse(s, function,
                  "no algorithm within " +
                      std::to_string(preference->maxWorkspace) +
                      " bytes of workspace (the fake's needs " +
                      std::to_string(s.requiredWorkspace) + ")",
                  kNotSupported);
  Algo algo;
  algo.problem = fingerprint(problem);
  algo.workspace =
      std::max(s.requiredWorkspace,
               std::min(preference->maxWorkspace, kPreferredWorkspace));
  std::memcpy(algo.alignment, preference->alignment, sizeof(algo.alignment));
  // The heuristic takes the bias alignment from the pointer's value.
  algo.biasAlignment = alignmentOf(desc->bias);
  int offered = std::min(requested, kFakeAlgorithms);
  for (int rank = 0; rank < offered; ++rank) {
    uint64_t id = s.nextAlgo++;
    algo.rank = rank;
    s.algos[id] = algo;
    results[rank] = HeuristicResult{};
    results[rank].algo.data[0] = kAlgoMagic;
    results[rank].algo.data[1] = id;
    results[rank].workspaceSize = algo.workspace;
    results[rank].state = kOk;
    results[rank].wavesCount = wavesOf(problem);
  }
  *returned = offered;
  return kOk;
}

//===- Algorithm configuration --------------------------------------------===//

FAKE_API Status cublasLtMatmulAlgoConfigSetAttribute(MatmulAlgo *algo,
                                                     int attribute,
                                                     const void *buffer,
                                                     size_t bytes) {
  fakecu::countCall("cublasLtMatmulAlgoConfigSetAttribute");
  const char *function = "cublasLtMatmulAlgoConfigSetAttribute";
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!algo || algo->data[0] != kAlgoMagic || !s.algos.count(algo->data[1]))
    return refuse(s, function, "an algorithm the heuristic did not return",
                  kInvalidValue);
  if (attribute == kConfigSplitKNum) {
    int32_t parts;
    if (Status status = setValue(s, function, attribute, buffer, bytes, parts))
      return status;
    if (parts < 1)
      return refuse(s, function,
                    "SPLITK_NUM " + std::to_string(parts) + " is below 1",
                    kInvalidValue);
    algo->data[kAlgoSplitWord] = parts == 1 ? 0 : uint64_t(parts);
    return kOk;
  }
  if (attribute == kConfigReductionScheme) {
    uint32_t scheme;
    if (Status status = setValue(s, function, attribute, buffer, bytes, scheme))
      return status;
    if (scheme != kReductionNone && scheme != kReductionInPlace &&
        scheme != kReductionComputeType && scheme != kReductionOutputType)
      return refuse(s, function, "REDUCTION_SCHEME " + std::to_string(scheme),
                    kInvalidValue);
    algo->data[kAlgoSchemeWord] = scheme;
    return kOk;
  }
  return refuse(s, function,
                "algorithm attribute " + std::to_string(attribute) +
                    " (the fake configures SPLITK_NUM and REDUCTION_SCHEME)",
                kNotSupported);
}

FAKE_API Status cublasLtMatmulAlgoConfigGetAttribute(const MatmulAlgo *algo,
                                                     int attribute,
                                                     void *buffer, size_t bytes,
                                                     size_t *written) {
  fakecu::countCall("cublasLtMatmulAlgoConfigGetAttribute");
  const char *function = "cublasLtMatmulAlgoConfigGetAttribute";
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!algo || algo->data[0] != kAlgoMagic || !s.algos.count(algo->data[1]))
    return refuse(s, function, "an algorithm the heuristic did not return",
                  kInvalidValue);
  if (attribute != kConfigSplitKNum && attribute != kConfigReductionScheme)
    return refuse(s, function,
                  "algorithm attribute " + std::to_string(attribute) +
                      " (the fake reports SPLITK_NUM and REDUCTION_SCHEME)",
                  kNotSupported);
  if (bytes != 4 || !buffer)
    return refuse(s, function,
                  "attribute " + std::to_string(attribute) +
                      " takes 4 bytes, got " + std::to_string(bytes),
                  kInvalidValue);
  if (attribute == kConfigSplitKNum) {
    int32_t parts = int32_t(splitOf(*algo));
    std::memcpy(buffer, &parts, 4);
  } else {
    uint32_t scheme = uint32_t(algo->data[kAlgoSchemeWord]);
    std::memcpy(buffer, &scheme, 4);
  }
  if (written)
    *written = 4;
  return kOk;
}

FAKE_API Status cublasLtMatmulAlgoCheck(Handle *handle, MatmulDesc *desc,
                                        Layout *a, Layout *b, Layout *c,
                                        Layout *d, const MatmulAlgo *algo,
                                        HeuristicResult *result) {
  fakecu::countCall("cublasLtMatmulAlgoCheck");
  const char *function = "cublasLtMatmulAlgoCheck";
  LtState &s = lt();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.handles.count(handle))
    return refuse(s, function, "not a handle", kNotInitialized);
  if (!s.descs.count(desc) || !s.layouts.count(a) || !s.layouts.count(b) ||
      !s.layouts.count(c) || !s.layouts.count(d) || !result)
    return refuse(s, function, "a desc or layout that is none, or no result",
                  kInvalidValue);
  Problem problem;
  Status status;
  std::string why = checkProblem(*desc, *a, *b, *c, *d, problem, status);
  if (!why.empty())
    return refuse(s, function, why, status);
  auto found = algo && algo->data[0] == kAlgoMagic ? s.algos.find(algo->data[1])
                                                   : s.algos.end();
  if (found == s.algos.end())
    return refuse(s, function, "an algorithm the heuristic did not return",
                  kInvalidValue);
  if (found->second.problem != fingerprint(problem))
    return refuse(s, function, "the algorithm was found for another problem",
                  kInvalidValue);
  uint64_t splitBytes = 0;
  why = splitWorkspace(problem, *algo, splitBytes);
  if (!why.empty())
    return refuse(s, function, why, kNotSupported);
  *result = HeuristicResult{};
  result->algo = *algo;
  result->workspaceSize = found->second.workspace + splitBytes;
  result->state = kOk;
  result->wavesCount = wavesOf(problem) * float(splitOf(*algo));
  return kOk;
}

//===- Matmul -------------------------------------------------------------===//

FAKE_API Status cublasLtMatmul(Handle *handle, MatmulDesc *desc,
                               const void *alpha, const void *a,
                               Layout *aLayout, const void *b, Layout *bLayout,
                               const void *beta, const void *c, Layout *cLayout,
                               void *d, Layout *dLayout, const MatmulAlgo *algo,
                               void *workspace, size_t workspaceBytes,
                               void *stream) {
  fakecu::countCall("cublasLtMatmul");
  const char *function = "cublasLtMatmul";
  LtState &s = lt();
  std::unique_lock<std::mutex> lock(s.mutex);
  if (!s.handles.count(handle))
    return refuse(s, function, "not a handle", kNotInitialized);
  if (!s.descs.count(desc) || !s.layouts.count(aLayout) ||
      !s.layouts.count(bLayout) || !s.layouts.count(cLayout) ||
      !s.layouts.count(dLayout))
    return refuse(s, function, "a desc or layout that is none", kInvalidValue);
  if (!alpha || !beta)
    return refuse(s, function, "no alpha or beta", kInvalidValue);
  Problem problem;
  Status status;
  std::string why = checkProblem(*desc, *aLayout, *bLayout, *cLayout, *dLayout,
                                 problem, status);
  if (!why.empty())
    return refuse(s, function, why, status);
  // Without an algorithm cuBLASLt would run its heuristic here; graphc
  // chooses one when the session is created, so it must pass it.
  auto found = algo && algo->data[0] == kAlgoMagic ? s.algos.find(algo->data[1])
                                                   : s.algos.end();
  if (found == s.algos.end())
    return refuse(s, function, "an algorithm the heuristic did not return",
                  kInvalidValue);
  const Algo &chosen = found->second;
  s.lastRank = chosen.rank;
  if (chosen.problem != fingerprint(problem))
    return refuse(s, function,
                  "the algorithm was found for another problem (" +
                      chosen.problem + ", now " + fingerprint(problem) + ")",
                  kInvalidValue);
  uint64_t splitBytes = 0;
  why = splitWorkspace(problem, *algo, splitBytes);
  if (!why.empty())
    return refuse(s, function, why, kNotSupported);
  const int64_t parts = splitOf(*algo);
  s.lastSplitK = parts > 1 ? int(parts) : 0;
  const uint64_t needed = chosen.workspace + splitBytes;
  const double slower = s.fastestRank >= 0 && (chosen.rank != s.fastestRank ||
                                               s.lastSplitK != s.fastestSplitK)
                            ? kSlowerMicros
                            : 0.0;

  // Host pointer mode: the scalars are read now, as cuBLASLt reads them,
  // in the scale type (int32 for CUBLAS_COMPUTE_32I).
  float alphaValue = 0, betaValue = 0;
  int32_t alphaInt = 0, betaInt = 0;
  if (problem.desc.scale == kInt32) {
    std::memcpy(&alphaInt, alpha, sizeof(int32_t));
    std::memcpy(&betaInt, beta, sizeof(int32_t));
    alphaValue = float(alphaInt);
    betaValue = float(betaInt);
  } else {
    std::memcpy(&alphaValue, alpha, sizeof(float));
    std::memcpy(&betaValue, beta, sizeof(float));
  }
  if (!a || !b || !d || (!c && betaValue != 0))
    return refuse(s, function, "a null matrix pointer", kInvalidValue);
  if (workspaceBytes < needed || (needed && !workspace))
    return refuse(s, function,
                  std::to_string(workspaceBytes) + " bytes of workspace at " +
                      hex(workspace) + ", the algorithm needs " +
                      std::to_string(needed),
                  kInvalidValue);
  bool hasBias = problem.desc.epilogue & kEpilogueBias;
  if (hasBias && !problem.desc.bias)
    return refuse(s, function,
                  "a BIAS epilogue without CUBLASLT_MATMUL_DESC_BIAS_POINTER",
                  kInvalidValue);

  struct Span {
    const char *name;
    const void *pointer;
    uint64_t bytes;
    uint32_t alignment;
  };
  const uint64_t size = elementBytes(problem.d.type);
  const uint64_t biasSize = elementBytes(
      problem.desc.biasType == -1 ? problem.d.type : problem.desc.biasType);
  const Span spans[] = {
      {"A", a, uint64_t(batchSpan(problem.a)) * elementBytes(problem.a.type),
       chosen.alignment[0]},
      {"B", b, uint64_t(batchSpan(problem.b)) * elementBytes(problem.b.type),
       chosen.alignment[1]},
      {"C", betaValue != 0 ? c : nullptr,
       uint64_t(batchSpan(problem.c)) * elementBytes(problem.c.type),
       chosen.alignment[2]},
      {"bias", hasBias ? problem.desc.bias : nullptr,
       uint64_t((problem.batch - 1) * problem.desc.biasBatchStride +
                problem.m) *
           biasSize,
       chosen.biasAlignment},
      {"D", d, uint64_t(batchSpan(problem.d)) * size, chosen.alignment[3]},
      {"the workspace", workspace, workspace ? uint64_t(workspaceBytes) : 0, 1},
  };
  for (const Span &span : spans) {
    if (!span.pointer)
      continue;
    if (alignmentOf(span.pointer) < span.alignment)
      return refuse(s, function,
                    std::string(span.name) + " at " + hex(span.pointer) +
                        " is less aligned than the " +
                        std::to_string(span.alignment) +
                        " bytes the algorithm was chosen for",
                    kNotSupported);
    if (!fakecu::inDeviceMemory(span.pointer, span.bytes))
      return refuse(s, function,
                    std::string(span.name) + " (" + std::to_string(span.bytes) +
                        " bytes at " + hex(span.pointer) +
                        ") is not inside one device allocation",
                    kInvalidValue);
  }
  const Span &cSpan = spans[2], &dSpan = spans[4];
  for (const Span &span : spans) {
    if (&span == &dSpan || !span.pointer)
      continue;
    if (&span == &cSpan && span.pointer == d) {
      // cuBLASLt computes in place only over the very same layout.
      const Layout &x = problem.c, &y = problem.d;
      if (x.ld != y.ld || x.order != y.order || x.stride != y.stride)
        return refuse(s, function,
                      "C is D but their layouts differ (ld " +
                          std::to_string(x.ld) + " and " +
                          std::to_string(y.ld) + ", stride " +
                          std::to_string(x.stride) + " and " +
                          std::to_string(y.stride) + ")",
                      kInvalidValue);
      continue;
    }
    if (intersect(span.pointer, span.bytes, d, dSpan.bytes))
      return refuse(s, function, std::string("D overlaps ") + span.name,
                    kInvalidValue);
  }
  const Span &scratch = spans[5];
  for (const Span &span : spans)
    if (&span != &scratch && span.pointer &&
        intersect(span.pointer, span.bytes, scratch.pointer, scratch.bytes))
      return refuse(s, function,
                    std::string("the workspace overlaps ") + span.name,
                    kInvalidValue);

  Run run{problem,    a,        b,         c,      problem.desc.bias,
          d,          alphaValue, betaValue, alphaInt, betaInt,
          workspace,  needed,   parts};
  lock.unlock();
  int result = fakecu::enqueueWork(stream, "cublasLtMatmul", [run, slower] {
    compute(run);
    if (slower)
      fakecu::advanceClock(slower);
  });
  if (result != 0) {
    lock.lock();
    return refuse(s, function,
                  "the stream refused the work (CUresult " +
                      std::to_string(result) + ")",
                  kExecutionFailed);
  }
  return kOk;
}

} // extern "C"
