//===- EmitAttention.cpp - flash-style scaled dot-product attention -------===//
//
// One warp computes one query row; a block holds blockSize / 32 rows of one
// (batch, head) and walks the keys in tiles staged through shared memory:
// each lane scores one key of the tile, the warp keeps the row's running
// max and sum (the online softmax), and each lane accumulates its share of
// the output row's head dims. The scores never reach memory. Q, K, V and
// the mask are read through their strides (layout prologues read the head
// split in place) and the result is stored through the kernel's epilogue
// (a layout epilogue stores the head merge in place). Scalar arithmetic in
// the compute type: tensor cores are the GPU-library issue's.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/EmitSupport.h"

using namespace mlir;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;

namespace graphc::codegen::cuda {

/// Static shared memory a kernel may use without opting in.
static constexpr int64_t kSharedBytes = 48 * 1024;

LogicalResult emitAttention(KernelEmitter &e) {
  ArrayRef<int64_t> q = e.inputShape(0), k = e.inputShape(1),
                    v = e.inputShape(2);
  if (q.size() != 4 || k.size() != 4 || v.size() != 4)
    return e.fail("Q, K and V must be 4-d");
  const int64_t batch = q[0], heads = q[1], queries = q[2], depth = q[3];
  const int64_t kvHeads = k[1], keys = k[2], valueDepth = v[3];
  if (kvHeads == 0 || heads % kvHeads != 0)
    return e.fail("Q's heads are not a multiple of K and V's");
  if (depth > graph::kMaxAttentionHeadSize || valueDepth > graph::kMaxAttentionHeadSize)
    return e.fail("head sizes above " + Twine(graph::kMaxAttentionHeadSize) +
                  " are not supported by the attention template");
  const int64_t group = heads / kvHeads;
  std::string t = computeType(e.inputType(0).getElementType());
  const int64_t elementBytes = t == "double" ? 8 : 4;
  // One query row per warp of the schedule's block.
  int64_t rowsPerBlock = e.getBlockSize() / 32;
  // Keys per tile: one per lane, fewer when K and V tiles would not fit.
  int64_t tile = 32;
  auto sharedBytes = [&](int64_t keysPerTile) {
    return (keysPerTile * (depth + 1) + keysPerTile * valueDepth +
            rowsPerBlock * depth) *
           elementBytes;
  };
  while (tile > 8 && sharedBytes(tile) > kSharedBytes)
    tile /= 2;
  while (rowsPerBlock > 1 && sharedBytes(tile) > kSharedBytes)
    rowsPerBlock /= 2;
  if (sharedBytes(tile) > kSharedBytes)
    return e.fail("the head sizes need more shared memory than a block has");

  SmallVector<int64_t> qs = e.inputStrides(0), ks = e.inputStrides(1),
                       vs = e.inputStrides(2);
  // The mask's strides over the scores [B, Hq, Sq, Skv]: right-aligned,
  // 0 where it broadcasts.
  SmallVector<int64_t> ms(4, 0);
  if (e.hasInput(3)) {
    ArrayRef<int64_t> mask = e.inputShape(3);
    SmallVector<int64_t> strides = e.inputStrides(3);
    int64_t offset = 4 - static_cast<int64_t>(mask.size());
    if (offset < 0)
      return e.fail("the mask has more than 4 dims");
    for (auto [j, dim] : llvm::enumerate(mask))
      ms[offset + j] = dim == 1 ? 0 : strides[j];
  }
  const double scale = e.floatAttr("scale", 1.0);
  const bool causal = e.intAttr("is_causal", 0) != 0;
  const bool nanToZero = e.intAttr("nan_to_zero", 0) != 0;

  const int64_t rowTiles = (queries + rowsPerBlock - 1) / rowsPerBlock;
  const int64_t blocks = batch * heads * rowTiles;
  const int64_t accumulators = std::max<int64_t>(1, (valueDepth + 31) / 32);
  e.setLaunch({std::clamp<int64_t>(blocks, 1, kMaxGrid)}, {rowsPerBlock * 32});
  std::string T = std::to_string(tile), D = std::to_string(depth),
              DV = std::to_string(valueDepth), R = std::to_string(rowsPerBlock);
  std::string minusInf = lowest(t), zero = literal(0, t);
  // Stages `rows` rows of `width` elements of input `slot` into shared
  // `array`, row j from `first` on at base + j * rowStride + d * colStride,
  // zeros past `limit` rows.
  auto stage = [&](StringRef array, int64_t rows, int64_t width,
                   const std::string &first, int64_t limit, unsigned slot,
                   StringRef base, int64_t rowStride, int64_t colStride) {
    std::string w = std::to_string(width);
    e.open("for (int idx = threadIdx.x; idx < " + Twine(rows * width) +
           "; idx += blockDim.x) {");
    e.line("const long long j = " + first + " + idx / " + w + ";");
    e.line("const int d = idx % " + w + ";");
    e.line(array + "[idx / " + w + "][d] = j < " + Twine(limit) +
           " ? static_cast<" + t + ">(" +
           e.load(slot, (base + " + j * " + Twine(rowStride) + "LL + d * " +
                         Twine(colStride) + "LL")
                            .str()) +
           ") : " + zero + ";");
    e.close();
  };
  e.line("__shared__ " + t + " qRows[" + R + "][" + D + "];");
  e.line("__shared__ " + t + " kTile[" + T + "][" + D + " + 1];");
  e.line("__shared__ " + t + " vTile[" + T + "][" + DV + "];");
  e.line("const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;");
  // Block-uniform loop over (batch, head, row tile): __syncthreads stays
  // legal and the grid may be clamped.
  e.open("for (long long block = blockIdx.x; block < " + Twine(blocks) +
         "LL; block += gridDim.x) {");
  e.line("const long long rowTile = block % " + Twine(rowTiles) + ";");
  e.line("const long long h = (block / " + Twine(rowTiles) + ") % " +
         Twine(heads) + ";");
  e.line("const long long b = block / " + Twine(rowTiles * heads) + ";");
  e.line("const long long kvHead = h / " + Twine(group) + ";");
  e.line("const long long row = rowTile * " + R + " + warp;");
  e.line("const bool rowValid = row < " + Twine(queries) + ";");
  e.line("const long long qBase = b * " + Twine(qs[0]) + "LL + h * " +
         Twine(qs[1]) + "LL;");
  e.line("const long long kBase = b * " + Twine(ks[0]) + "LL + kvHead * " +
         Twine(ks[1]) + "LL;");
  e.line("const long long vBase = b * " + Twine(vs[0]) + "LL + kvHead * " +
         Twine(vs[1]) + "LL;");
  // The block's query rows, scaled once.
  e.line("__syncthreads();");
  stage("qRows", rowsPerBlock, depth, "rowTile * " + R, queries, 0, "qBase",
        qs[2], qs[3]);
  e.line(t + " runningMax = " + minusInf + ", runningSum = " + zero + ";");
  e.line(t + " acc[" + Twine(accumulators) + "];");
  e.line("for (int r = 0; r < " + Twine(accumulators) + "; ++r) acc[r] = " +
         zero + ";");
  // Causal rows see no key past their own index: the block stops after
  // its last row's.
  std::string keyEnd = Twine(keys).str() + "LL";
  if (causal)
    keyEnd = "gc_min(" + keyEnd + ", rowTile * " + R + " + " + R + ")";
  e.open("for (long long key0 = 0; key0 < " + keyEnd + "; key0 += " + T +
         ") {");
  e.line("__syncthreads();");
  stage("kTile", tile, depth, "key0", keys, 1, "kBase", ks[2], ks[3]);
  stage("vTile", tile, valueDepth, "key0", keys, 2, "vBase", vs[2], vs[3]);
  e.line("__syncthreads();");
  // Warp-uniform: every lane of a warp has the same row.
  e.open("if (rowValid) {");
  e.line("const long long key = key0 + lane;");
  e.line(t + " score = " + minusInf + ";");
  std::string keyLimit = "key < " + std::to_string(keys) + "LL && lane < " + T;
  if (causal)
    keyLimit += " && key <= row";
  e.open("if (" + keyLimit + ") {");
  e.line(t + " dot = " + zero + ";");
  e.line("for (int d = 0; d < " + D +
         "; ++d) dot += qRows[warp][d] * kTile[lane][d];");
  e.line("score = dot * " + literal(scale, t) + ";");
  if (e.hasInput(3))
    e.line("score += static_cast<" + t + ">(" +
           e.load(3, ("b * " + Twine(ms[0]) + "LL + h * " + Twine(ms[1]) +
                      "LL + row * " + Twine(ms[2]) + "LL + key * " +
                      Twine(ms[3]) + "LL")
                         .str()) +
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
  // A row with every key masked out sums to 0 (0 / 0 = NaN, as the
  // softmax gives); NaN scores make the sum NaN. Under nan_to_zero both
  // rows' probabilities count as 0, so the row is 0.
  e.open("if (rowValid) {");
  e.open("for (int r = 0; r < " + Twine(accumulators) + "; ++r) {");
  e.line("const int d = lane + 32 * r;");
  e.open("if (d < " + DV + ") {");
  std::string value = "acc[r] / runningSum";
  if (nanToZero)
    value = "runningSum > " + zero + " ? " + value + " : " + zero;
  e.line("const " + t + " result = " + value + ";");
  if (failed(e.storeResult(("((b * " + Twine(heads) + "LL + h) * " +
                            Twine(queries) + "LL + row) * " + DV + "LL + d")
                               .str(),
                           "result")))
    return failure();
  e.close();
  e.close();
  e.close();
  e.close();
  return success();
}

} // namespace graphc::codegen::cuda
