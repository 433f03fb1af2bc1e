//===- EmitAttention.cpp - flash-style scaled dot-product attention -------===//
//
// Two templates, both flash style: the scores never reach memory, an online
// softmax (running max and sum per row) rescales what was summed so far.
// f16 and bf16 with head sizes in multiples of 16 (up to 128) run on tensor
// cores through mma.sync, with the output in registers, where every target
// SM has the instructions; everything else (float32 included) takes the
// scalar template. Q, K, V and the mask are read through their compile-time
// strides (layout prologues read the head split in place), 16 bytes at a
// time where the layout allows, and the result is stored through the
// kernel's epilogue (a layout epilogue stores the head merge in place).
// Where batch x heads x query tiles cannot fill the GPU, both split the
// key range across blocks (flash-decoding): each split leaves a partial
// (its rows' max, sum and unnormalised output) in arena scratch, and the
// last block to finish a query tile merges them and stores the result.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/EmitSupport.h"
#include "lib/Support/AttentionSplits.h"

#include "llvm/ADT/StringExtras.h"

#include <optional>
#include <utility>

using namespace mlir;

namespace graphc::codegen::cuda {

/// Static shared memory a kernel may use without opting in.
static constexpr int64_t kSharedBytes = 48 * 1024;

namespace {

/// What both attention templates read: shapes, strides and attributes.
struct Attention {
  int64_t batch, heads, queries, depth, keys, valueDepth, group;
  SmallVector<int64_t> qs, ks, vs;
  /// The mask's strides over the scores [B, Hq, Sq, Skv]: right-aligned,
  /// 0 where it broadcasts.
  SmallVector<int64_t> ms;
  double scale;
  bool causal, nanToZero;
  /// Bytes per mask element, 0 without a mask.
  int64_t maskBytes = 0;
  /// The most key splits the scratch has room for (1: no scratch).
  int64_t maxSplits = 1;
};

/// The offset of the mask element of (b, h, row, key).
std::string maskOffset(const Attention &a) {
  return ("b * " + Twine(a.ms[0]) + "LL + h * " + Twine(a.ms[1]) +
          "LL + row * " + Twine(a.ms[2]) + "LL + key * " + Twine(a.ms[3]) +
          "LL")
      .str();
}

/// A statement staging `rows` rows of `width` elements of input `slot` into
/// shared `array` (leading dim `ld`, elements of `type`), row j from
/// `first` on at base + j * rowStride + d * colStride, zeros past `limit`
/// rows: 16 bytes at a time where the layout allows (gc_stage_tile, in the
/// preamble), with compile-time strides.
std::string stageTile(KernelEmitter &e, StringRef array, StringRef type,
                      int64_t rows, int64_t width, int64_t ld,
                      const std::string &first, int64_t limit, unsigned slot,
                      StringRef base, int64_t rowStride, int64_t colStride,
                      int64_t threads) {
  return ("gc_stage_tile<" + type + ", " +
          cxxType(e.inputType(slot).getElementType()) + ", " + Twine(rows) +
          ", " + Twine(width) + ", " + Twine(ld) + ", " + Twine(rowStride) +
          "LL, " + Twine(colStride) + "LL, " + Twine(threads) + ">(" + array +
          ", " + KernelEmitter::in(slot) + " + " + base + " + (" + first +
          ") * " + Twine(rowStride) + "LL, " + Twine(limit) + "LL - (" + first +
          "));")
      .str();
}

/// Opens the block-uniform loop over (batch, head, row tile, key split)
/// and declares the bases of the block's Q, K and V; `tile` numbers the
/// (batch, head, row tile), `split` the key split.
void openBlockLoop(KernelEmitter &e, const Attention &a, int64_t rowTiles,
                   int64_t splits) {
  // Block-uniform: __syncthreads stays legal and the grid may be clamped.
  e.open("for (long long block = blockIdx.x; block < " +
         Twine(a.batch * a.heads * rowTiles * splits) +
         "LL; block += gridDim.x) {");
  if (splits > 1) {
    e.line("const long long split = block % " + Twine(splits) + ";");
    e.line("const long long tile = block / " + Twine(splits) + ";");
  } else {
    e.line("const long long tile = block;");
  }
  e.line("const long long rowTile = tile % " + Twine(rowTiles) + ";");
  e.line("const long long h = (tile / " + Twine(rowTiles) + ") % " +
         Twine(a.heads) + ";");
  e.line("const long long b = tile / " + Twine(rowTiles * a.heads) + ";");
  e.line("const long long kvHead = h / " + Twine(a.group) + ";");
  e.line("const long long qBase = b * " + Twine(a.qs[0]) + "LL + h * " +
         Twine(a.qs[1]) + "LL;");
  e.line("const long long kBase = b * " + Twine(a.ks[0]) + "LL + kvHead * " +
         Twine(a.ks[1]) + "LL;");
  e.line("const long long vBase = b * " + Twine(a.vs[0]) + "LL + kvHead * " +
         Twine(a.vs[1]) + "LL;");
}

/// Rows of the tensor-core template's staged mask tile (0 where the mask
/// is read per score): a mask contiguous along the keys, with whole key
/// tiles, is staged by cp.async like K and V, one row for the block where
/// it broadcasts over the query rows ([B, 1, 1, Skv]: read once per key
/// tile for every row and head of the block), else the block's rows.
int64_t maskTileRows(const Attention &a, int64_t warps, int64_t keys) {
  if (!a.maskBytes || a.ms[3] != 1 || a.keys % keys != 0)
    return 0;
  return a.ms[2] == 0 ? 1 : 16 * warps;
}

/// The staged mask tile's leading dimension: rows padded by 16 bytes.
int64_t maskTileLd(const Attention &a, int64_t keys) {
  return a.maskBytes ? keys + 16 / a.maskBytes : keys;
}

/// Shared bytes of the tensor-core template: the block's query rows, two
/// buffers each of K and V tiles of `keys` keys, rows padded by 16 bytes so
/// that ldmatrix's eight row addresses fall in distinct banks, and two of
/// the mask tile; after the key loop, the same bytes hold the block's
/// output rows in float.
int64_t mmaSharedBytes(const Attention &a, int64_t warps, int64_t keys) {
  int64_t tiles =
      2 * (16 * warps * (a.depth + 8) + 2 * keys * (a.depth + 8) +
           2 * keys * (a.valueDepth + 8)) +
      2 * maskTileRows(a, warps, keys) * maskTileLd(a, keys) * a.maskBytes;
  return std::max(tiles, 4 * 16 * warps * a.valueDepth);
}

/// The key splits of a grid of `blocks` blocks, within the scratch.
int64_t keySplits(const Attention &a, int64_t blocks) {
  return std::min(a.maxSplits, attentionKeySplits(blocks, a.keys));
}

/// Statements after a split's key loop, once its partial is in scratch:
/// the block counts itself in the tile's counter, and every block but the
/// last to arrive moves on to its next (tile, split). The last resets the
/// counter (zero again for the next run or CUDA graph replay) and merges.
///
/// Ordering: each thread's partial stores are made visible device-wide by
/// __threadfence() before the barrier after which one thread counts the
/// block in (an atomic at device scope): a block that sees the count reach
/// `splits` therefore finds every other split's partial in L2, and reads it
/// past L1 (gc_ld_cg). Its own fence after the atomic keeps those reads
/// after it. The emulator runs blocks one after another, so it cannot show
/// a missing fence: this is reasoned, not tested.
void emitArrival(KernelEmitter &e, int64_t splits) {
  e.line("__threadfence();");
  e.line("__syncthreads();");
  e.open("if (threadIdx.x == 0) {");
  e.line("lastSplit = atomicAdd(&gc_counters[tile], 1u) == " +
         Twine(splits - 1) + "u;");
  e.line("if (lastSplit) atomicExch(&gc_counters[tile], 0u);");
  e.line("__threadfence();");
  e.close();
  e.line("__syncthreads();");
  e.line("if (!lastSplit) continue;");
}

/// Offsets into the scratch: the output row of query `row` in split `s`
/// (valueDepth floats), and its max and sum (2 floats).
std::string partialRow(const Attention &a, StringRef s, StringRef row) {
  return ("((" + s + ") * " + Twine(a.batch * a.heads * a.queries) +
          "LL + (b * " + Twine(a.heads) + "LL + h) * " + Twine(a.queries) +
          "LL + (" + row + "))")
      .str();
}
std::string partialOut(const Attention &a, StringRef s, StringRef row) {
  return "gc_partials[" + partialRow(a, s, row) + " * " +
         std::to_string(a.valueDepth) + "LL";
}
std::string partialStats(const Attention &a, StringRef s, StringRef row) {
  return "gc_partials[" +
         std::to_string(a.maxSplits * a.batch * a.heads * a.queries *
                        a.valueDepth) +
         "LL + " + partialRow(a, s, row) + " * 2LL";
}

/// Declares `result` (float), element `d` of query `row`'s output merged
/// from the partials of `splits` splits: each split's sum and output
/// rescaled by exp(its max - the row's max), as the online softmax would
/// have. A row with every key masked out is 0 / 0, as unsplit.
void emitMerge(KernelEmitter &e, const Attention &a, int64_t splits,
               StringRef row, StringRef d) {
  const std::string minusInf = lowest("float");
  e.line("float mergedMax = " + minusInf + ";");
  e.line("#pragma unroll 1");
  e.line("for (int s = 0; s < " + Twine(splits) +
         "; ++s) mergedMax = gc_max(mergedMax, gc_ld_cg(&" +
         partialStats(a, "s", row) + "]));");
  e.line("float mergedSum = 0.0f, merged = 0.0f;");
  e.line("#pragma unroll 1");
  e.open("for (int s = 0; s < " + Twine(splits) + "; ++s) {");
  e.line("const float splitMax = gc_ld_cg(&" + partialStats(a, "s", row) +
         "]);");
  e.line("const float weight = splitMax == " + minusInf +
         " ? 0.0f : gc_exp(splitMax - mergedMax);");
  e.line("mergedSum += weight * gc_ld_cg(&" + partialStats(a, "s", row) +
         " + 1]);");
  e.line("merged += weight * gc_ld_cg(&" + partialOut(a, "s", row) + " + (" +
         d + ")]);");
  e.close();
  std::string value = "merged / mergedSum";
  if (a.nanToZero)
    value = "mergedSum > 0.0f ? " + value + " : 0.0f";
  e.line("const float result = " + value + ";");
}

/// Opens the loop over a valid query row's output elements: lane `lane`
/// holds elements d = lane + 32 * r of its `accumulators` registers.
void openRowOutput(KernelEmitter &e, const Attention &a, int64_t accumulators) {
  e.open("if (rowValid) {");
  e.open("for (int r = 0; r < " + Twine(accumulators) + "; ++r) {");
  e.line("const int d = lane + 32 * r;");
  e.open("if (d < " + Twine(a.valueDepth) + ") {");
}

/// Stores `result` as output element d of query `row` and closes what
/// openRowOutput opened.
LogicalResult storeRowOutput(KernelEmitter &e, const Attention &a) {
  if (failed(e.storeResult(("((b * " + Twine(a.heads) + "LL + h) * " +
                            Twine(a.queries) + "LL + row) * " +
                            Twine(a.valueDepth) + "LL + d")
                               .str(),
                           "result")))
    return failure();
  e.close();
  e.close();
  e.close();
  return success();
}

/// The tensor-core template's block: warps (16 query rows each) and keys
/// per tile. Fewer warps per block where the grid would not fill the GPU
/// (short sequences, batch 1), fewer keys where shared memory runs out;
/// nullopt where even one warp and 16 keys do not fit.
std::optional<std::pair<int64_t, int64_t>> mmaBlock(const Attention &a,
                                                    int64_t blockSize) {
  int64_t warps = std::clamp<int64_t>(blockSize / 32, 1, 4);
  auto blocks = [&](int64_t w) {
    return a.batch * a.heads * ((a.queries + 16 * w - 1) / (16 * w));
  };
  while (warps > 1 && blocks(warps) < kAttentionTargetBlocks)
    warps /= 2;
  // No more keys per tile than the sequence has (in products of 16).
  const int64_t keyCap = std::max<int64_t>(16, (a.keys + 15) / 16 * 16);
  for (; warps >= 1; warps /= 2)
    for (int64_t keys : {64, 32, 16})
      if (mmaSharedBytes(a, warps, std::min(keys, keyCap)) <= kSharedBytes)
        return std::make_pair(warps, std::min(keys, keyCap));
  return std::nullopt;
}

/// Flash attention on tensor cores (FlashAttention-2's register reuse):
/// each warp owns 16 query rows, whose Q fragments it keeps in registers.
/// Per tile of keys it computes S = Q K^T with mma.sync m16n8k16 (f16 or
/// bf16 products, float accumulators) from ldmatrix fragments, takes the
/// online softmax of S where the accumulators lie (each lane holds two rows'
/// scores; a row's max and sum combine over the lane quad by shuffles),
/// converts the probabilities in registers into the A fragments of
/// O += P V, and keeps O in registers for the whole key loop. K and V tiles
/// are staged by 16-byte cp.async into two buffers, the next tile loading
/// while this one computes. At the end the normalised rows pass through
/// shared memory, so that the store through the kernel's epilogue is one
/// rolled loop, coalesced along the head dims.
LogicalResult emitTensorCoreAttention(KernelEmitter &e, const Attention &a,
                                      StringRef halfType, int64_t warps,
                                      int64_t keysPerTile) {
  const int64_t rowsPerBlock = 16 * warps, threads = 32 * warps;
  const int64_t rowTiles = (a.queries + rowsPerBlock - 1) / rowsPerBlock;
  const int64_t keyTiles = (a.keys + keysPerTile - 1) / keysPerTile;
  const int64_t splits =
      std::min(keySplits(a, a.batch * a.heads * rowTiles), keyTiles);
  const int64_t tilesPerSplit = (keyTiles + splits - 1) / splits;
  e.setLaunch(
      {std::clamp<int64_t>(a.batch * a.heads * rowTiles * splits, 1, kMaxGrid)},
      {threads});
  std::string R = std::to_string(rowsPerBlock), D = std::to_string(a.depth),
              DV = std::to_string(a.valueDepth),
              KT = std::to_string(keysPerTile), H = halfType.str();
  std::string QLD = std::to_string(a.depth + 8),
              VLD = std::to_string(a.valueDepth + 8);
  std::string mma = halfType == "__half" ? "gc_mma_f16" : "gc_mma_bf16";
  const std::string minusInf = lowest("float");
  // One shared array: Q, K and V tiles during the key loop, the output
  // rows after it.
  const int64_t qBytes = 2 * rowsPerBlock * (a.depth + 8),
                kBytes = 2 * 2 * keysPerTile * (a.depth + 8),
                vBytes = 2 * 2 * keysPerTile * (a.valueDepth + 8);
  const int64_t maskRows = maskTileRows(a, warps, keysPerTile);
  const std::string MLD = std::to_string(maskTileLd(a, keysPerTile)),
                    M = e.hasInput(3) ? cxxType(e.inputType(3).getElementType())
                                      : std::string();
  e.line("__shared__ __align__(16) unsigned char tiles[" +
         Twine(mmaSharedBytes(a, warps, keysPerTile)) + "];");
  e.line(H + " (*const qTile)[" + QLD + "] = reinterpret_cast<" + H + " (*)[" +
         QLD + "]>(tiles);");
  e.line(H + " (*const kTile)[" + KT + "][" + QLD + "] = reinterpret_cast<" +
         H + " (*)[" + KT + "][" + QLD + "]>(tiles + " + Twine(qBytes) + ");");
  e.line(H + " (*const vTile)[" + KT + "][" + VLD + "] = reinterpret_cast<" +
         H + " (*)[" + KT + "][" + VLD + "]>(tiles + " +
         Twine(qBytes + kBytes) + ");");
  if (maskRows)
    e.line(M + " (*const maskTile)[" + Twine(maskRows) + "][" + MLD +
           "] = reinterpret_cast<" + M + " (*)[" + Twine(maskRows) + "][" +
           MLD + "]>(tiles + " + Twine(qBytes + kBytes + vBytes) + ");");
  e.line("float (*const oTile)[" + DV + "] = reinterpret_cast<float (*)[" + DV +
         "]>(tiles);");
  if (splits > 1)
    e.line("__shared__ bool lastSplit;");
  e.line("const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;");
  // Fragment coordinates: lane = 4 g + t holds rows g and g + 8.
  e.line("const int g = lane >> 2, t = lane & 3;");
  openBlockLoop(e, a, rowTiles, splits);
  e.line("const long long row0 = rowTile * " + R +
         ", warpRow = row0 + warp * "
         "16;");
  // Causal rows see no key past their own index: the block stops after
  // its last row's tile.
  std::string tiles = Twine(keyTiles).str() + "LL";
  if (a.causal)
    tiles = "gc_min(" + tiles + ", (row0 + " + R + " + " + KT + " - 1) / " +
            KT + ")";
  // A split computes key tiles [tileBegin, keyTiles).
  std::string begin = "0LL";
  if (splits > 1) {
    begin = "tileBegin";
    e.line("const long long tileBegin = split * " + Twine(tilesPerSplit) +
           "LL;");
    tiles = "gc_min(" + tiles + ", tileBegin + " +
            std::to_string(tilesPerSplit) + "LL)";
  }
  e.line("const long long keyTiles = " + tiles + ";");
  if (maskRows)
    e.line("const long long maskBase = b * " + Twine(a.ms[0]) + "LL + h * " +
           Twine(a.ms[1]) + "LL;");
  auto stageKeys = [&](const std::string &tile, const std::string &buffer) {
    std::string first = tile + " * " + KT + "LL";
    e.line(stageTile(e, "&kTile[" + buffer + "][0][0]", H, keysPerTile, a.depth,
                     a.depth + 8, first, a.keys, 1, "kBase", a.ks[2], a.ks[3],
                     threads));
    e.line(stageTile(e, "&vTile[" + buffer + "][0][0]", H, keysPerTile,
                     a.valueDepth, a.valueDepth + 8, first, a.keys, 2, "vBase",
                     a.vs[2], a.vs[3], threads));
    // The mask's rows are query rows, its columns the tile's keys.
    if (maskRows == 1)
      e.line(stageTile(e, "&maskTile[" + buffer + "][0][0]", M, 1, keysPerTile,
                       maskTileLd(a, keysPerTile), "0LL", 1, 3,
                       "maskBase + " + first, 0, 1, threads));
    else if (maskRows)
      e.line(stageTile(e, "&maskTile[" + buffer + "][0][0]", M, maskRows,
                       keysPerTile, maskTileLd(a, keysPerTile), "row0",
                       a.queries, 3, "maskBase + " + first, a.ms[2], 1,
                       threads));
  };
  // The previous (batch, head, row tile) is done with shared memory.
  e.line("__syncthreads();");
  e.line(stageTile(e, "&qTile[0][0]", H, rowsPerBlock, a.depth, a.depth + 8,
                   "row0", a.queries, 0, "qBase", a.qs[2], a.qs[3], threads));
  // A split past the last tile (or a causal row tile's last) has none.
  if (splits > 1)
    e.open("if (tileBegin < keyTiles) {");
  stageKeys(begin, "0");
  if (splits > 1)
    e.close();
  e.line("gc_cp_async_commit();");
  e.line("float o[" + DV + " / 8][4];");
  e.line("#pragma unroll");
  e.line("for (int n = 0; n < " + DV +
         " / 8; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.0f;");
  e.line("float rowMax[2] = {" + minusInf + ", " + minusInf +
         "}, rowSum[2] = {0.0f, 0.0f};");
  e.line("unsigned qFrag[" + D + " / 16][4];");
  // Rolled: unrolled key tiles add code and registers, not speed.
  e.line("#pragma unroll 1");
  e.open("for (long long j = " + begin + "; j < keyTiles; ++j) {");
  e.line("const int buf = (int)((j - " + begin + ") & 1);");
  // Tile j + 1 loads into the other buffer while tile j computes.
  e.open("if (j + 1 < keyTiles) {");
  stageKeys("(j + 1)", "buf ^ 1");
  e.close();
  // Always a group, so that waiting for all but the newest one means tile j.
  e.line("gc_cp_async_commit();");
  e.line("gc_cp_async_wait<1>();");
  e.line("__syncthreads();");
  e.open("if (j == " + begin + ") {");
  e.line("#pragma unroll");
  e.line("for (int kk = 0; kk < " + D +
         " / 16; ++kk) gc_ldmatrix_x4(qFrag[kk], &qTile[warp * 16 + (lane & "
         "15)][kk * 16 + (lane >> 4) * 8]);");
  e.close();
  e.line("const long long key0 = j * " + KT + "LL;");
  // Warp-uniform: a causal warp whose rows all precede the tile skips it.
  if (a.causal)
    e.open("if (key0 <= warpRow + 15) {");
  else
    e.open("{");
  // S = Q K^T: K's rows are K^T's columns, B's "col" layout, so ldmatrix
  // reads them untransposed; x4 covers 16 keys x 16 dims.
  e.line("float s[" + KT + " / 8][4];");
  e.line("#pragma unroll");
  e.line("for (int n = 0; n < " + KT +
         " / 8; ++n) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;");
  e.line("#pragma unroll");
  e.open("for (int kk = 0; kk < " + D + " / 16; ++kk) {");
  e.line("#pragma unroll");
  e.open("for (int n = 0; n < " + KT + " / 16; ++n) {");
  e.line("unsigned kf[4];");
  e.line("gc_ldmatrix_x4(kf, &kTile[buf][n * 16 + (lane >> 4) * 8 + (lane & "
         "7)][kk * 16 + ((lane >> 3) & 1) * 8]);");
  e.line(mma + "(s[2 * n], qFrag[kk], kf[0], kf[1]);");
  e.line(mma + "(s[2 * n + 1], qFrag[kk], kf[2], kf[3]);");
  e.close();
  e.close();
  // The online softmax, in the accumulators: s[n][i] is row g + 8 (i / 2),
  // key 8 n + 2 t + i % 2 of the tile.
  e.line("float tileMax[2] = {" + minusInf + ", " + minusInf + "};");
  e.line("#pragma unroll");
  e.open("for (int n = 0; n < " + KT + " / 8; ++n) {");
  e.line("#pragma unroll");
  e.open("for (int i = 0; i < 4; ++i) {");
  SmallVector<std::string> checks;
  if (a.queries % rowsPerBlock != 0)
    checks.push_back("row < " + Twine(a.queries).str() + "LL");
  if (a.keys % keysPerTile != 0)
    checks.push_back("key < " + Twine(a.keys).str() + "LL");
  if (a.causal)
    checks.push_back("key <= row");
  e.line("const long long row = warpRow + g + 8 * (i >> 1);");
  e.line("const long long key = key0 + n * 8 + 2 * t + (i & 1);");
  std::string score = "s[n][i] * " + literal(a.scale, "float");
  if (maskRows)
    score += " + static_cast<float>(gc_ld(maskTile[buf][" +
             std::string(maskRows == 1 ? "0" : "warp * 16 + g + 8 * (i >> 1)") +
             "][n * 8 + 2 * t + (i & 1)]))";
  else if (e.hasInput(3))
    score += " + static_cast<float>(" + e.load(3, maskOffset(a)) + ")";
  if (!checks.empty())
    score =
        "(" + llvm::join(checks, " && ") + ") ? " + score + " : " + minusInf;
  e.line("s[n][i] = " + score + ";");
  e.line("tileMax[i >> 1] = gc_max(tileMax[i >> 1], s[n][i]);");
  e.close();
  e.close();
  e.line("float rescale[2];");
  e.line("#pragma unroll");
  e.open("for (int r = 0; r < 2; ++r) {");
  e.line("tileMax[r] = gc_max(tileMax[r], __shfl_xor_sync(0xffffffffu, "
         "tileMax[r], 1));");
  e.line("tileMax[r] = gc_max(tileMax[r], __shfl_xor_sync(0xffffffffu, "
         "tileMax[r], 2));");
  e.line("const float newMax = gc_max(rowMax[r], tileMax[r]);");
  e.line("rescale[r] = rowMax[r] == " + minusInf +
         " ? 0.0f : gc_exp(rowMax[r] - newMax);");
  e.line("rowMax[r] = newMax;");
  // Each lane sums its own share; the quad's shares combine at the end.
  e.line("rowSum[r] *= rescale[r];");
  e.close();
  e.line("#pragma unroll");
  e.line("for (int n = 0; n < " + DV +
         " / 8; ++n) for (int i = 0; i < 4; ++i) o[n][i] *= rescale[i >> 1];");
  e.line("#pragma unroll");
  e.open("for (int n = 0; n < " + KT + " / 8; ++n) {");
  e.line("#pragma unroll");
  e.open("for (int i = 0; i < 4; ++i) {");
  e.line("const float p = s[n][i] == " + minusInf +
         " ? 0.0f : gc_exp(s[n][i] - rowMax[i >> 1]);");
  e.line("rowSum[i >> 1] += p;");
  e.line("s[n][i] = p;");
  e.close();
  e.close();
  // O += P V: two score tiles of 8 keys are one A fragment of 16 keys;
  // V's rows are keys, so ldmatrix transposes them into B fragments.
  e.line("#pragma unroll");
  e.open("for (int kk = 0; kk < " + KT + " / 16; ++kk) {");
  e.line("const unsigned pf[4] = {gc_pack2<" + H +
         ">(s[2 * kk][0], s[2 * kk][1]), gc_pack2<" + H +
         ">(s[2 * kk][2], s[2 * kk][3]), gc_pack2<" + H +
         ">(s[2 * kk + 1][0], s[2 * kk + 1][1]), gc_pack2<" + H +
         ">(s[2 * kk + 1][2], s[2 * kk + 1][3])};");
  e.line("#pragma unroll");
  e.open("for (int n = 0; n < " + DV + " / 16; ++n) {");
  e.line("unsigned vf[4];");
  e.line("gc_ldmatrix_x4_trans(vf, &vTile[buf][kk * 16 + ((lane >> 3) & 1) * "
         "8 + (lane & 7)][n * 16 + (lane >> 4) * 8]);");
  e.line(mma + "(o[2 * n], pf, vf[0], vf[1]);");
  e.line(mma + "(o[2 * n + 1], pf, vf[2], vf[3]);");
  e.close();
  e.close();
  e.close();
  // Tile j + 2 goes into this tile's buffer.
  e.line("__syncthreads();");
  e.close();
  e.line("#pragma unroll");
  e.open("for (int r = 0; r < 2; ++r) {");
  e.line("rowSum[r] += __shfl_xor_sync(0xffffffffu, rowSum[r], 1);");
  e.line("rowSum[r] += __shfl_xor_sync(0xffffffffu, rowSum[r], 2);");
  e.close();
  if (splits > 1) {
    // The split's partial, straight from the accumulators: two adjacent
    // head dims per lane and row.
    e.line("#pragma unroll");
    e.open("for (int r = 0; r < 2; ++r) {");
    e.line("const long long row = warpRow + g + 8 * r;");
    e.open("if (row < " + Twine(a.queries) + "LL) {");
    e.line("#pragma unroll");
    e.open("for (int n = 0; n < " + DV + " / 8; ++n) {");
    e.line(partialOut(a, "split", "row") + " + n * 8 + 2 * t] = o[n][2 * r];");
    e.line(partialOut(a, "split", "row") +
           " + n * 8 + 2 * t + 1] = o[n][2 * r + 1];");
    e.close();
    e.open("if (t == 0) {");
    e.line(partialStats(a, "split", "row") + "] = rowMax[r];");
    e.line(partialStats(a, "split", "row") + " + 1] = rowSum[r];");
    e.close();
    e.close();
    e.close();
    emitArrival(e, splits);
    e.open("for (int i = threadIdx.x; i < " +
           Twine(rowsPerBlock * a.valueDepth) + "; i += " + Twine(threads) +
           ") {");
    e.line("const long long row = row0 + i / " + DV + ";");
    e.line("const int d = i % " + DV + ";");
    e.open("if (row < " + Twine(a.queries) + "LL) {");
    emitMerge(e, a, splits, "row", "d");
    return storeRowOutput(e, a);
  }
  // The output rows go through shared memory, so that the store (and the
  // layout epilogue's index arithmetic) is one rolled loop, coalesced along
  // the head dims. As in the scalar template: a row with every key masked
  // out is 0 / 0.
  e.line("__syncthreads();");
  e.line("#pragma unroll");
  e.open("for (int r = 0; r < 2; ++r) {");
  e.line("const float inverse = 1.0f / rowSum[r];");
  e.line("#pragma unroll");
  e.open("for (int n = 0; n < " + DV + " / 8; ++n) {");
  e.line("#pragma unroll");
  e.open("for (int c = 0; c < 2; ++c) {");
  std::string value = "o[n][2 * r + c] * inverse";
  if (a.nanToZero)
    value = "rowSum[r] > 0.0f ? " + value + " : 0.0f";
  e.line("oTile[warp * 16 + g + 8 * r][n * 8 + 2 * t + c] = " + value + ";");
  e.close();
  e.close();
  e.close();
  e.line("__syncthreads();");
  e.open("for (int i = threadIdx.x; i < " + Twine(rowsPerBlock * a.valueDepth) +
         "; i += " + Twine(threads) + ") {");
  e.line("const long long row = row0 + i / " + DV + ";");
  e.line("const int d = i % " + DV + ";");
  e.open("if (row < " + Twine(a.queries) + "LL) {");
  e.line("const float result = oTile[i / " + DV + "][d];");
  if (failed(e.storeResult(("((b * " + Twine(a.heads) + "LL + h) * " +
                            Twine(a.queries) + "LL + row) * " + DV + "LL + d")
                               .str(),
                           "result")))
    return failure();
  e.close();
  e.close();
  e.close();
  return success();
}

/// The scalar template (float32, and f16/bf16 where tensor cores are not
/// used): one warp computes one query row; a block holds blockSize / 32 rows
/// and walks the keys in tiles staged through shared memory: each lane
/// scores one key of the tile, the warp keeps the row's running max and sum
/// (the online softmax), and each lane accumulates its share of the output
/// row's head dims. Arithmetic in the compute type.
LogicalResult emitScalarAttention(KernelEmitter &e, const Attention &a) {
  std::string t = computeType(e.inputType(0).getElementType());
  const int64_t elementBytes = t == "double" ? 8 : 4;
  // One query row per warp of the schedule's block.
  int64_t rowsPerBlock = e.getBlockSize() / 32;
  // Keys per tile: one per lane, fewer when K and V tiles would not fit.
  int64_t tile = 32;
  auto sharedBytes = [&](int64_t keysPerTile) {
    return (keysPerTile * (a.depth + 1) + keysPerTile * a.valueDepth +
            rowsPerBlock * a.depth) *
           elementBytes;
  };
  while (tile > 8 && sharedBytes(tile) > kSharedBytes)
    tile /= 2;
  while (rowsPerBlock > 1 && sharedBytes(tile) > kSharedBytes)
    rowsPerBlock /= 2;
  if (sharedBytes(tile) > kSharedBytes)
    return e.fail("the head sizes need more shared memory than a block has");

  const int64_t rowTiles = (a.queries + rowsPerBlock - 1) / rowsPerBlock;
  const int64_t threads = rowsPerBlock * 32;
  const int64_t accumulators = std::max<int64_t>(1, (a.valueDepth + 31) / 32);
  // Key splits (their partials are float: double keeps one).
  const int64_t keyTiles = (a.keys + tile - 1) / tile;
  const int64_t splits =
      t == "double"
          ? 1
          : std::min(keySplits(a, a.batch * a.heads * rowTiles), keyTiles);
  const int64_t keysPerSplit = (keyTiles + splits - 1) / splits * tile;
  e.setLaunch(
      {std::clamp<int64_t>(a.batch * a.heads * rowTiles * splits, 1, kMaxGrid)},
      {threads});
  std::string T = std::to_string(tile), D = std::to_string(a.depth),
              DV = std::to_string(a.valueDepth),
              R = std::to_string(rowsPerBlock);
  std::string minusInf = lowest(t), zero = literal(0, t);
  e.line("__shared__ __align__(16) " + t + " qRows[" + R + "][" + D + "];");
  // K's rows padded by one element: lane j reads row j, column d.
  e.line("__shared__ __align__(16) " + t + " kTile[" + T + "][" + D + " + 1];");
  e.line("__shared__ __align__(16) " + t + " vTile[" + T + "][" + DV + "];");
  e.line("const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;");
  if (splits > 1)
    e.line("__shared__ bool lastSplit;");
  openBlockLoop(e, a, rowTiles, splits);
  e.line("const long long row = rowTile * " + R + " + warp;");
  e.line("const bool rowValid = row < " + Twine(a.queries) + ";");
  // The block's query rows.
  e.line("__syncthreads();");
  e.line(stageTile(e, "&qRows[0][0]", t, rowsPerBlock, a.depth, a.depth,
                   "rowTile * " + R, a.queries, 0, "qBase", a.qs[2], a.qs[3],
                   threads));
  e.line(t + " runningMax = " + minusInf + ", runningSum = " + zero + ";");
  e.line(t + " acc[" + Twine(accumulators) + "];");
  e.line("for (int r = 0; r < " + Twine(accumulators) + "; ++r) acc[r] = " +
         zero + ";");
  // Causal rows see no key past their own index: the block stops after
  // its last row's.
  std::string keyEnd = Twine(a.keys).str() + "LL";
  if (a.causal)
    keyEnd = "gc_min(" + keyEnd + ", rowTile * " + R + " + " + R + ")";
  // A split computes keys [keyBegin, keyEnd), whole tiles of them.
  std::string keyBegin = "0LL";
  if (splits > 1) {
    keyBegin = "keyBegin";
    e.line("const long long keyBegin = split * " + Twine(keysPerSplit) + "LL;");
    keyEnd = "gc_min(" + keyEnd + ", keyBegin + " +
             std::to_string(keysPerSplit) + "LL)";
  }
  e.line("const long long keyEnd = " + keyEnd + ";");
  e.open("for (long long key0 = " + keyBegin + "; key0 < keyEnd; key0 += " + T +
         ") {");
  e.line("__syncthreads();");
  e.line(stageTile(e, "&kTile[0][0]", t, tile, a.depth, a.depth + 1, "key0",
                   a.keys, 1, "kBase", a.ks[2], a.ks[3], threads));
  e.line(stageTile(e, "&vTile[0][0]", t, tile, a.valueDepth, a.valueDepth,
                   "key0", a.keys, 2, "vBase", a.vs[2], a.vs[3], threads));
  e.line("gc_cp_async_commit();");
  e.line("gc_cp_async_wait<0>();");
  e.line("__syncthreads();");
  // Warp-uniform: every lane of a warp has the same row.
  e.open("if (rowValid) {");
  e.line("const long long key = key0 + lane;");
  e.line(t + " score = " + minusInf + ";");
  std::string keyLimit =
      "key < " + std::to_string(a.keys) + "LL && lane < " + T;
  if (a.causal)
    keyLimit += " && key <= row";
  e.open("if (" + keyLimit + ") {");
  e.line(t + " dot = " + zero + ";");
  e.line("for (int d = 0; d < " + D +
         "; ++d) dot += qRows[warp][d] * kTile[lane][d];");
  e.line("score = dot * " + literal(a.scale, t) + ";");
  if (e.hasInput(3))
    e.line("score += static_cast<" + t + ">(" + e.load(3, maskOffset(a)) +
           ");");
  e.close();
  // The online softmax: rescale what was summed under the old max.
  e.line(t + " tileMax = score;");
  e.line("for (int offset = 16; offset > 0; offset >>= 1) tileMax = "
         "gc_max(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, offset));");
  e.line("const " + t + " newMax = gc_max(runningMax, tileMax);");
  e.line("const " + t + " p = score == " + minusInf + " ? " + zero +
         " : gc_exp(score - newMax);");
  e.line("const " + t + " rescale = runningMax == " + minusInf + " ? " + zero +
         " : gc_exp(runningMax - newMax);");
  e.line(t + " tileSum = p;");
  e.line("for (int offset = 16; offset > 0; offset >>= 1) tileSum += "
         "__shfl_xor_sync(0xffffffffu, tileSum, offset);");
  e.line("runningSum = runningSum * rescale + tileSum;");
  e.line("runningMax = newMax;");
  e.line("for (int r = 0; r < " + Twine(accumulators) +
         "; ++r) acc[r] *= rescale;");
  e.open("for (int j = 0; j < " + T + "; ++j) {");
  e.line("const " + t + " pj = __shfl_sync(0xffffffffu, p, j);");
  e.open("for (int r = 0; r < " + Twine(accumulators) + "; ++r) {");
  e.line("const int d = lane + 32 * r;");
  e.line("if (d < " + DV + ") acc[r] += pj * vTile[j][d];");
  e.close();
  e.close();
  e.close();
  e.close();
  if (splits > 1) {
    // The split's partial: each lane its head dims, lane 0 the max and sum.
    e.open("if (rowValid) {");
    e.open("for (int r = 0; r < " + Twine(accumulators) + "; ++r) {");
    e.line("const int d = lane + 32 * r;");
    e.line("if (d < " + DV + ") " + partialOut(a, "split", "row") +
           " + d] = static_cast<float>(acc[r]);");
    e.close();
    e.open("if (lane == 0) {");
    e.line(partialStats(a, "split", "row") +
           "] = static_cast<float>(runningMax);");
    e.line(partialStats(a, "split", "row") +
           " + 1] = static_cast<float>(runningSum);");
    e.close();
    e.close();
    emitArrival(e, splits);
    openRowOutput(e, a, accumulators);
    emitMerge(e, a, splits, "row", "d");
    if (failed(storeRowOutput(e, a)))
      return failure();
    e.close();
    return success();
  }
  // A row with every key masked out sums to 0 (0 / 0 = NaN, as the
  // softmax gives); NaN scores make the sum NaN. Under nan_to_zero both
  // rows' probabilities count as 0, so the row is 0.
  openRowOutput(e, a, accumulators);
  std::string value = "acc[r] / runningSum";
  if (a.nanToZero)
    value = "runningSum > " + zero + " ? " + value + " : " + zero;
  e.line("const " + t + " result = " + value + ";");
  if (failed(storeRowOutput(e, a)))
    return failure();
  e.close();
  return success();
}

} // namespace

LogicalResult emitAttention(KernelEmitter &e) {
  auto attention = e.as<graph::AttentionOp>();
  ArrayRef<int64_t> q = e.inputShape(0), k = e.inputShape(1),
                    v = e.inputShape(2);
  if (q.size() != 4 || k.size() != 4 || v.size() != 4)
    return e.fail("Q, K and V must be 4-d");
  const int64_t batch = q[0], heads = q[1], queries = q[2], depth = q[3];
  const int64_t kvHeads = k[1], keys = k[2], valueDepth = v[3];
  if (kvHeads == 0 || heads % kvHeads != 0)
    return e.fail("Q's heads are not a multiple of K and V's");
  if (depth > graph::kMaxAttentionHeadSize ||
      valueDepth > graph::kMaxAttentionHeadSize)
    return e.fail("head sizes above " + Twine(graph::kMaxAttentionHeadSize) +
                  " are not supported by the attention template");
  const int64_t group = heads / kvHeads;
  Attention a{batch,
              heads,
              queries,
              depth,
              keys,
              valueDepth,
              group,
              e.inputStrides(0),
              e.inputStrides(1),
              e.inputStrides(2),
              SmallVector<int64_t>(4, 0),
              attention.getScale().convertToDouble(),
              attention.getIsCausal() != 0,
              attention.getNanToZero() != 0};
  if (e.hasInput(3)) {
    ArrayRef<int64_t> mask = e.inputShape(3);
    SmallVector<int64_t> strides = e.inputStrides(3);
    int64_t offset = 4 - static_cast<int64_t>(mask.size());
    if (offset < 0)
      return e.fail("the mask has more than 4 dims");
    for (auto [j, dim] : llvm::enumerate(mask))
      a.ms[offset + j] = dim == 1 ? 0 : strides[j];
    a.maskBytes =
        std::max<int64_t>(1, e.inputType(3).getElementTypeBitWidth() / 8);
  }
  // The scratch graphc-plan-memory gives an attention that may split its
  // keys: partials, then arrival counters (exec.launch's scratch). A
  // library call's fallback has none: it keeps one block per query tile.
  a.maxSplits = e.isLibraryFallback()
                    ? 1
                    : attentionMaxKeySplits(batch, heads, queries, keys);
  if (a.maxSplits > 1) {
    e.addScratchParameter("float *__restrict__ gc_partials");
    e.addScratchParameter("unsigned *__restrict__ gc_counters");
  }
  // mma.sync m16n8k16 takes f16 from sm_75 (as two m16n8k8 there) and bf16
  // from sm_80 on (ldmatrix from sm_75), in products of 16: head sizes that
  // are multiples of 16. Up to 128, O's and Q's fragments stay in registers.
  Type element = e.inputType(0).getElementType();
  bool narrow = element.isF16() || element.isBF16();
  bool sameTypes = e.inputType(1).getElementType() == element &&
                   e.inputType(2).getElementType() == element;
  int needSm = element.isBF16() ? 80 : 75;
  if (narrow && sameTypes && e.getLowestSm() >= needSm && depth % 16 == 0 &&
      valueDepth % 16 == 0 && depth <= 128 && valueDepth <= 128)
    if (auto block = mmaBlock(a, e.getBlockSize()))
      return emitTensorCoreAttention(
          e, a, element.isF16() ? "__half" : "__nv_bfloat16", block->first,
          block->second);
  return emitScalarAttention(e, a);
}

} // namespace graphc::codegen::cuda
