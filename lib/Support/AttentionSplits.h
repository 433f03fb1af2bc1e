//===- AttentionSplits.h - flash-decoding's key splits and scratch --------===//
//
// Where batch x heads x query tiles cannot fill the GPU (batch 1, decode
// steps with one query), the generated CUDA attention splits the key range
// across blocks (flash-decoding): each split writes a partial (its rows'
// max, sum and unnormalised output) to arena scratch, and the last block of
// a query tile merges them. Memory planning sizes the scratch before codegen
// picks the kernel's block, so both ask this header: planning for the most
// splits any block may use, codegen for the splits of the block it chose.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHC_SUPPORT_ATTENTIONSPLITS_H
#define GRAPHC_SUPPORT_ATTENTIONSPLITS_H

#include <algorithm>
#include <cstdint>

namespace graphc {

/// Blocks that fill an H100 (132 SMs); smaller GPUs are filled as well.
inline constexpr int64_t kAttentionTargetBlocks = 132;
/// The fewest keys a split computes: fewer would cost more in the merge
/// than they save.
inline constexpr int64_t kAttentionMinSplitKeys = 64;
/// The most query rows an attention block holds (four warps of 16 on
/// tensor cores, fewer in the scalar template).
inline constexpr int64_t kAttentionMaxBlockRows = 64;

/// Key splits for `blocks` blocks of work over `keys` keys: the least power
/// of two that makes kAttentionTargetBlocks blocks, no more than leave
/// kAttentionMinSplitKeys keys per split; 1 where none is needed.
inline int64_t attentionKeySplits(int64_t blocks, int64_t keys) {
  int64_t splits = 1;
  while (blocks * splits < kAttentionTargetBlocks &&
         keys / (2 * splits) >= kAttentionMinSplitKeys)
    splits *= 2;
  return splits;
}

/// The most key splits the CUDA attention may use for any block it picks:
/// the splits at the fewest blocks it may launch (kAttentionMaxBlockRows
/// query rows each).
inline int64_t attentionMaxKeySplits(int64_t batch, int64_t heads,
                                     int64_t queries, int64_t keys) {
  int64_t rowTiles =
      (queries + kAttentionMaxBlockRows - 1) / kAttentionMaxBlockRows;
  return attentionKeySplits(batch * heads * std::max<int64_t>(rowTiles, 1),
                            keys);
}

/// Bytes of the partials of `splits` splits: per split and query row of
/// every (batch, head), the unnormalised output row (valueDepth floats),
/// then per split and row its max and sum (2 floats).
inline int64_t attentionPartialBytes(int64_t splits, int64_t batch,
                                     int64_t heads, int64_t queries,
                                     int64_t valueDepth) {
  return splits * batch * heads * queries * (valueDepth + 2) * 4;
}

/// Bytes of the arrival counters: at most one per query row of every
/// (batch, head) (a block holds one query row or more).
inline int64_t attentionCounterBytes(int64_t batch, int64_t heads,
                                     int64_t queries) {
  return batch * heads * queries * 4;
}

} // namespace graphc

#endif // GRAPHC_SUPPORT_ATTENTIONSPLITS_H
