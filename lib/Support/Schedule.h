//===- Schedule.h - the knobs of a kernel's schedule --------------*- C++ -*-===//
//
// What a schedule may say and which values of it the CUDA code generator
// and the runtime take: shared by the kernel dialect's ScheduleAttr (its
// verifier), the tuning database (which validates what it reads) and
// `graphc tune` (which builds candidates). Dependency-free.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_SCHEDULE_H
#define GRAPHC_LIB_SUPPORT_SCHEDULE_H

#include <cstdint>

namespace graphc {

/// The heuristic schedule: what a kernel gets with no tuning entry.
constexpr int64_t kHeuristicBlockSize = 256;
constexpr int64_t kHeuristicAlgoRank = 0;

/// How many of cuBLASLt's algorithms for a GEMM (or cuDNN's engine
/// configurations for a convolution) may be ranked: the runtime asks its
/// heuristic for at most this many (GRAPHC_MAX_ALGO_RANKS).
constexpr int64_t kMaxAlgoRanks = 32;

/// The most parts a GEMM's K may be split into (GRAPHC_MAX_SPLIT_K).
constexpr int64_t kMaxSplitK = 64;

constexpr int64_t kHeuristicTile = 16;

/// The knobs of a kernel. A generated kernel has four: the number of
/// threads per block of grid-stride and per-row loops; how many elements
/// each thread of a grid-stride loop takes (its launch has that many times
/// fewer blocks); the output tile edge of the tiled matmul; and how many
/// rows a row kernel (softmax, normalisation, reduction) gives each block:
/// 1, the block's threads sharing a row, or more, one warp per row (the
/// block then has 32 threads per row). A library kernel (cuBLASLt or
/// cuDNN) has the rank, in the order the library's heuristic returns them,
/// of the algorithm or engine configuration to run (0: its first choice),
/// and a cuBLASLt GEMM the number of parts its K is split into (0: the
/// algorithm as the heuristic offers it; 2 to kMaxSplitK: that algorithm
/// with CUBLASLT_ALGO_CONFIG_SPLITK_NUM set).
struct Schedule {
  bool library = false;
  int64_t blockSize = kHeuristicBlockSize;
  int64_t elementsPerThread = 1;
  int64_t tile = kHeuristicTile;
  int64_t algoRank = kHeuristicAlgoRank;
  int64_t rowsPerBlock = 1;
  int64_t splitK = 0;

  static Schedule generated(int64_t blockSize, int64_t elementsPerThread = 1,
                            int64_t tile = kHeuristicTile,
                            int64_t rowsPerBlock = 1) {
    return Schedule{false, blockSize, elementsPerThread, tile,
                    kHeuristicAlgoRank, rowsPerBlock, 0};
  }
  static Schedule libraryCall(int64_t algoRank, int64_t splitK = 0) {
    return Schedule{true, kHeuristicBlockSize, 1, kHeuristicTile, algoRank,
                    1, splitK};
  }
  bool isHeuristic() const {
    return library ? algoRank == kHeuristicAlgoRank && splitK == 0
                   : blockSize == kHeuristicBlockSize &&
                         elementsPerThread == 1 && tile == kHeuristicTile &&
                         rowsPerBlock == 1;
  }
  bool operator==(const Schedule &other) const {
    return library == other.library && blockSize == other.blockSize &&
           elementsPerThread == other.elementsPerThread &&
           tile == other.tile && algoRank == other.algoRank &&
           rowsPerBlock == other.rowsPerBlock && splitK == other.splitK;
  }
};

/// Whether `splitK` is a split_k the runtime takes: 0 (unsplit) or
/// [2, kMaxSplitK].
constexpr bool isValidSplitK(int64_t splitK) {
  return splitK == 0 || (splitK >= 2 && splitK <= kMaxSplitK);
}

/// Whether `rows` rows per block with `blockSize` threads is a row layout
/// the CUDA emitter takes: 1 row (any block size), or a power of two in
/// [2, 32] rows of one warp each (blockSize == 32 * rows).
constexpr bool isValidRowsPerBlock(int64_t rows, int64_t blockSize) {
  return rows == 1 || (rows >= 2 && rows <= 32 && (rows & (rows - 1)) == 0 &&
                       blockSize == 32 * rows);
}

/// Whether `tile` is a tiled-matmul tile edge the CUDA emitter takes: 8, 16
/// or 32.
constexpr bool isValidTile(int64_t tile) {
  return tile == 8 || tile == 16 || tile == 32;
}

/// Whether `elements` is an elements_per_thread the CUDA emitter takes: a
/// power of two in [1, 64].
constexpr bool isValidElementsPerThread(int64_t elements) {
  return elements >= 1 && elements <= 64 && (elements & (elements - 1)) == 0;
}

/// Whether `blockSize` is one the CUDA emitter takes: a multiple of 32 in
/// [32, 1024].
constexpr bool isValidBlockSize(int64_t blockSize) {
  return blockSize >= 32 && blockSize <= 1024 && blockSize % 32 == 0;
}

/// Whether `rank` is an algo_rank the runtime takes: [0, kMaxAlgoRanks).
constexpr bool isValidAlgoRank(int64_t rank) {
  return rank >= 0 && rank < kMaxAlgoRanks;
}

} // namespace graphc

#endif
