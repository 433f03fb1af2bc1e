//===- CublasLtGemm.h - a library kernel's GEMM on cuBLASLt -----*- C++ -*-===//
//
// A graphc_gemm_desc is row-major; cuBLASLt is column-major. A row-major
// matrix is the column-major view of its transpose, so D = op(A) op(B)
// becomes D^T = op(B)^T op(A)^T: cuBLASLt's A is our B and its B our A, its
// m our n and its n our m, each transpose flag stays with its matrix, and
// every leading dimension is kept. The bias (one per column of D) is then
// one per row of D^T, which is what cuBLASLt's BIAS epilogues add.
//
// 8-bit operands (descriptor.h): int8 A and B (CUDA_R_8I) into int32 C and
// D (CUDA_R_32I) with CUBLAS_COMPUTE_32I and int32 scales, or e4m3 A and B
// (CUDA_R_8F_E4M3) into float32 C and D with CUBLAS_COMPUTE_32F; only in the
// "TN" form cuBLASLt's IMMA and fp8 kernels take, which the row-major
// translation makes trans_a 0 and trans_b 1 (eightBitFormSupported).
//
// Everything is built when the session is created: the matmul desc, the
// layouts and the algorithm (the heuristic's answer of rank algo_rank, with
// K split into split_k parts where the artifact asks: SPLITK_NUM and the
// first reduction scheme cublasLtMatmulAlgoCheck accepts within the
// workspace, else the algorithm unsplit). A run only sets the bias pointer and
// queues cublasLtMatmul with host alpha/beta and an explicit workspace, so a
// run can be captured into a CUDA graph (nothing is allocated).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_CUBLASLTGEMM_H
#define GRAPHC_RUNTIME_SRC_CUBLASLTGEMM_H

#include "graphc/runtime.h"
#include "runtime/src/CublasLt.h"

#include <memory>
#include <string>

namespace graphc::rt {

/// Whether cublasLtGemm runs `gemm`; sets `error` to why not.
bool cublasLtSupports(const graphc_gemm_desc &gemm, std::string &error);

/// Whether an 8-bit GEMM (descriptor.h) is in the form cuBLASLt's int8
/// (IMMA) and fp8 kernels take: "TN" in its column-major terms (trans_a 0
/// and trans_b 1 here), n, k, the leading dims and batch strides multiples
/// of 4 (int8) or of 16 bytes (fp8), no epilogue or bias; sets `error` to
/// the requirement it misses.
bool eightBitFormSupported(const graphc_gemm_desc &gemm, std::string &error);

/// Whether a device of compute capability `sm` (89 for 8.9) runs `gemm` on
/// cuBLASLt: fp8 needs 8.9 or newer. Sets `error` to why not.
bool cublasLtRunsOn(const graphc_gemm_desc &gemm, int32_t sm,
                    std::string &error);

/// The pointer alignment (bytes, a power of two, at most 256) of each
/// operand in every step that runs the GEMM.
struct GemmAlignment {
  uint32_t a = lt::kDefaultAlignment, b = lt::kDefaultAlignment,
           c = lt::kDefaultAlignment, bias = lt::kDefaultAlignment,
           d = lt::kDefaultAlignment;
};

class CublasLtGemm {
public:
  /// Builds `gemm` on `handle` for steps whose workspace holds at least
  /// `workspaceBytes` and whose pointers have `alignment`. Returns GRAPHC_OK,
  /// or a code and `error`: GRAPHC_FAILED_PRECONDITION when cuBLASLt has no
  /// algorithm for it.
  static graphc_code create(const lt::Library &library, lt::Handle handle,
                            const graphc_gemm_desc &gemm,
                            uint64_t workspaceBytes,
                            const GemmAlignment &alignment,
                            std::unique_ptr<CublasLtGemm> &out,
                            std::string &error);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm &) = delete;
  CublasLtGemm &operator=(const CublasLtGemm &) = delete;

  /// Queues the GEMM on `stream`. `args` are the step's argument values
  /// (device pointers; 0 for an absent one), the workspace holding
  /// `workspaceBytes`. Returns GRAPHC_OK, else sets `error`:
  /// GRAPHC_INVALID_ARGUMENT for a pointer less aligned than the algorithm
  /// assumes (a caller's tensor), GRAPHC_INTERNAL when cuBLASLt refuses.
  graphc_code enqueue(const cu::DevicePtr *args, uint64_t workspaceBytes,
                      cu::Stream stream, std::string &error);

  /// The workspace the algorithm uses (at most the create-time bytes).
  size_t workspaceSize() const { return algoWorkspace; }
  /// The rank, among the heuristic's algorithms, of the one planned.
  int32_t algoRank() const { return rank; }
  /// The parts K is split into as planned (0: the algorithm as offered).
  int32_t splitK() const { return split; }
  /// The heuristic's wave count for the planned algorithm (below 1: its
  /// tiles leave SMs idle), and whether that algorithm splits K itself.
  float waves() const { return wavesCount; }
  bool offeredSplitK() const { return heuristicSplitK > 1; }

private:
  CublasLtGemm(const lt::Library &library, lt::Handle handle,
               const graphc_gemm_desc &gemm, const GemmAlignment &alignment)
      : library(library), handle(handle), gemm(gemm), alignment(alignment) {}

  /// Splits the planned algorithm's K into `parts` where cuBLASLt accepts
  /// it within `workspaceBytes`; leaves it unsplit otherwise.
  void splitAlgorithm(int32_t parts, uint64_t workspaceBytes);

  const lt::Library &library;
  lt::Handle handle;
  const graphc_gemm_desc gemm;
  const GemmAlignment alignment;
  lt::MatmulDesc desc = nullptr;
  /// In cuBLASLt's terms: `ltA` lays out our B, `ltB` our A; `ltC` is null
  /// without C (D then stands in for it).
  lt::MatrixLayout ltA = nullptr, ltB = nullptr, ltC = nullptr, ltD = nullptr;
  lt::MatmulAlgo algo{};
  size_t algoWorkspace = 0;
  int32_t rank = 0;
  int32_t split = 0;
  float wavesCount = 0;
  int32_t heuristicSplitK = 1;
  /// Host scalars, read by cublasLtMatmul when it is called: float32, or
  /// int32 for int8 GEMMs (the scale type).
  float alpha = 1, beta = 0;
  int32_t alphaInt = 1, betaInt = 0;
};

} // namespace graphc::rt

#endif
