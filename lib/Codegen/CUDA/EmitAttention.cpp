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
// the compute type; f16 and bf16 with head sizes in multiples of 16 take
// the tensor-core template below where every target SM has tensor cores
// for them.
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
};

/// The offset of the mask element of (b, h, row, key).
std::string maskOffset(const Attention &a) {
  return ("b * " + Twine(a.ms[0]) + "LL + h * " + Twine(a.ms[1]) +
          "LL + row * " + Twine(a.ms[2]) + "LL + key * " + Twine(a.ms[3]) +
          "LL")
      .str();
}

/// Stages `rows` rows of `width` elements of input `slot` into shared
/// `array` as `type`, row j from `first` on at base + j * rowStride + d *
/// colStride, zeros past `limit` rows; the block's threads share the work.
void stage(KernelEmitter &e, StringRef array, StringRef type, int64_t rows,
           int64_t width, const std::string &first, int64_t limit,
           unsigned slot, StringRef base, int64_t rowStride,
           int64_t colStride) {
  std::string w = std::to_string(width);
  e.open("for (int idx = threadIdx.x; idx < " + Twine(rows * width) +
         "; idx += blockDim.x) {");
  e.line("const long long j = " + first + " + idx / " + w + ";");
  e.line("const int d = idx % " + w + ";");
  e.line(array + "[idx / " + w + "][d] = gc_conv<" + type + ">::from(j < " +
         Twine(limit) + " ? " +
         e.load(slot, (base + " + j * " + Twine(rowStride) + "LL + d * " +
                       Twine(colStride) + "LL")
                          .str()) +
         " : 0);");
  e.close();
}

/// Opens the block-uniform loop over (batch, head, row tile) and declares
/// the bases of the block's Q, K and V.
void openBlockLoop(KernelEmitter &e, const Attention &a, int64_t rowTiles) {
  // Block-uniform: __syncthreads stays legal and the grid may be clamped.
  e.open("for (long long block = blockIdx.x; block < " +
         Twine(a.batch * a.heads * rowTiles) +
         "LL; block += gridDim.x) {");
  e.line("const long long rowTile = block % " + Twine(rowTiles) + ";");
  e.line("const long long h = (block / " + Twine(rowTiles) + ") % " +
         Twine(a.heads) + ";");
  e.line("const long long b = block / " + Twine(rowTiles * a.heads) + ";");
  e.line("const long long kvHead = h / " + Twine(a.group) + ";");
  e.line("const long long qBase = b * " + Twine(a.qs[0]) + "LL + h * " +
         Twine(a.qs[1]) + "LL;");
  e.line("const long long kBase = b * " + Twine(a.ks[0]) + "LL + kvHead * " +
         Twine(a.ks[1]) + "LL;");
  e.line("const long long vBase = b * " + Twine(a.vs[0]) + "LL + kvHead * " +
         Twine(a.vs[1]) + "LL;");
}

/// Keys per tile of the tensor-core template: two 16-key products.
constexpr int64_t kMmaKeys = 32;

/// Shared bytes of the tensor-core template with `warps` warps.
int64_t mmaSharedBytes(const Attention &a, int64_t warps) {
  int64_t rows = 16 * warps;
  return 2 * (rows * (a.depth + 8) + kMmaKeys * (a.depth + 8) +
              kMmaKeys * (a.valueDepth + 8)) +
         warps * 16 * (4 * kMmaKeys + 2 * (kMmaKeys + 8) + 4 * a.valueDepth);
}

/// One warp's product of shared-memory tiles on tensor cores: for each of
/// `tiles` 16-column tiles j of C, the statement `init` sets the
/// accumulator `acc` up, the products of A's and B's 16 x 16 blocks kk <
/// `depth` / 16 add to it, and it is stored to `c` (tile j, leading dim
/// `ldc`). `a` and `b` address the blocks (in terms of j and kk) loaded
/// into `aFrag` and `bFrag` with leading dims `lda` and `ldb`.
struct TileProduct {
  int64_t tiles, depth;
  std::string acc, init, aFrag, a, lda, bFrag, b, ldb, c, ldc;
};
void emitTileProduct(KernelEmitter &e, const TileProduct &p) {
  e.open("for (int j = 0; j < " + Twine(p.tiles) + "; ++j) {");
  e.line(p.init);
  e.open("for (int kk = 0; kk < " + Twine(p.depth / 16) + "; ++kk) {");
  e.line("wmma::load_matrix_sync(" + p.aFrag + ", " + p.a + ", " + p.lda +
         ");");
  e.line("wmma::load_matrix_sync(" + p.bFrag + ", " + p.b + ", " + p.ldb +
         ");");
  e.line("wmma::mma_sync(" + p.acc + ", " + p.aFrag + ", " + p.bFrag + ", " +
         p.acc + ");");
  e.close();
  e.line("wmma::store_matrix_sync(" + p.c + ", " + p.acc + ", " + p.ldc +
         ", wmma::mem_row_major);");
  e.close();
}

/// Flash attention on tensor cores (nvcuda::wmma, 16x16x16 products of
/// f16 or bf16 accumulating in float): each warp owns 16 query rows; per
/// tile of 32 keys it computes the 16 x 32 scores S = Q K^T, takes the
/// online softmax of them in float (two lanes per row), and adds P V to its
/// output rows, kept in float in shared memory (fragment element order is
/// unspecified, so the per-row rescale happens there). Scores and
/// probabilities never reach global memory.
LogicalResult emitTensorCoreAttention(KernelEmitter &e, const Attention &a,
                                      StringRef halfType) {
  int64_t warps = std::clamp<int64_t>(e.getBlockSize() / 32, 1, 4);
  while (warps > 1 && mmaSharedBytes(a, warps) > kSharedBytes)
    warps /= 2;
  if (mmaSharedBytes(a, warps) > kSharedBytes)
    return e.fail("the head sizes need more shared memory than a block has");
  const int64_t rowsPerBlock = 16 * warps;
  const int64_t rowTiles = (a.queries + rowsPerBlock - 1) / rowsPerBlock;
  e.include("mma.h");
  e.setLaunch({std::clamp<int64_t>(a.batch * a.heads * rowTiles, 1, kMaxGrid)},
              {warps * 32});
  std::string W = std::to_string(warps), R = std::to_string(rowsPerBlock),
              D = std::to_string(a.depth), DV = std::to_string(a.valueDepth),
              KT = std::to_string(kMmaKeys), H = halfType.str();
  std::string QLD = std::to_string(a.depth + 8),
              VLD = std::to_string(a.valueDepth + 8),
              PLD = std::to_string(kMmaKeys + 8);
  const std::string minusInf = lowest("float");
  e.line("using namespace nvcuda;");
  e.line("__shared__ __align__(32) " + H + " qTile[" + R + "][" + QLD + "];");
  e.line("__shared__ __align__(32) " + H + " kTile[" + KT + "][" + QLD + "];");
  e.line("__shared__ __align__(32) " + H + " vTile[" + KT + "][" + VLD + "];");
  e.line("__shared__ __align__(32) float sTile[" + W + "][16][" + KT + "];");
  e.line("__shared__ __align__(32) " + H + " pTile[" + W + "][16][" + PLD +
         "];");
  e.line("__shared__ __align__(32) float oTile[" + W + "][16][" + DV + "];");
  e.line("const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;");
  // Lanes 2r and 2r + 1 share row r of the warp's 16: each takes half of
  // the row's scores and output elements.
  e.line("const int prow = lane >> 1, part = lane & 1;");
  openBlockLoop(e, a, rowTiles);
  e.line("const long long row = rowTile * " + R + " + warp * 16 + prow;");
  e.line("__syncthreads();");
  stage(e, "qTile", H, rowsPerBlock, a.depth, "rowTile * " + R, a.queries, 0,
        "qBase", a.qs[2], a.qs[3]);
  e.line("for (int idx = lane; idx < 16 * " + DV + "; idx += 32) oTile[warp]"
         "[idx / " + DV + "][idx % " + DV + "] = 0.0f;");
  e.line("float runningMax = " + minusInf + ", runningSum = 0.0f;");
  std::string keyEnd = Twine(a.keys).str() + "LL";
  if (a.causal)
    keyEnd = "gc_min(" + keyEnd + ", rowTile * " + R + " + " + R + ")";
  e.open("for (long long key0 = 0; key0 < " + keyEnd + "; key0 += " + KT +
         ") {");
  e.line("__syncthreads();");
  stage(e, "kTile", H, kMmaKeys, a.depth, "key0", a.keys, 1, "kBase", a.ks[2],
        a.ks[3]);
  stage(e, "vTile", H, kMmaKeys, a.valueDepth, "key0", a.keys, 2, "vBase",
        a.vs[2], a.vs[3]);
  e.line("__syncthreads();");
  // Warp-uniform: a causal warp whose rows all precede the tile skips it.
  if (a.causal)
    e.open("if (key0 <= rowTile * " + R + " + warp * 16 + 15) {");
  else
    e.open("{");
  e.line("wmma::fragment<wmma::accumulator, 16, 16, 16, float> sAcc;");
  e.line("wmma::fragment<wmma::matrix_a, 16, 16, 16, " + H +
         ", wmma::row_major> qFrag;");
  e.line("wmma::fragment<wmma::matrix_b, 16, 16, 16, " + H +
         ", wmma::col_major> kFrag;");
  // S = Q K^T. K^T's column j is K's row j: K stored row-major is K^T
  // col-major.
  emitTileProduct(e, {kMmaKeys / 16, a.depth, "sAcc",
                      "wmma::fill_fragment(sAcc, 0.0f);", "qFrag",
                      "&qTile[warp * 16][kk * 16]", QLD, "kFrag",
                      "&kTile[j * 16][kk * 16]", QLD,
                      "&sTile[warp][0][j * 16]", KT});
  e.line("__syncwarp();");
  // The online softmax of the lane's 16 scores of its row.
  e.line("float scores[16];");
  e.line("float tileMax = " + minusInf + ";");
  e.open("for (int c = 0; c < 16; ++c) {");
  e.line("const int col = part * 16 + c;");
  e.line("const long long key = key0 + col;");
  e.line("float score = " + minusInf + ";");
  std::string valid = "row < " + Twine(a.queries).str() + "LL && key < " +
                      Twine(a.keys).str() + "LL";
  if (a.causal)
    valid += " && key <= row";
  e.open("if (" + valid + ") {");
  e.line("score = sTile[warp][prow][col] * " + literal(a.scale, "float") +
         ";");
  if (e.hasInput(3))
    e.line("score += static_cast<float>(" + e.load(3, maskOffset(a)) + ");");
  e.close();
  e.line("scores[c] = score;");
  e.line("tileMax = gc_max(tileMax, score);");
  e.close();
  e.line("tileMax = gc_max(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, "
         "1));");
  e.line("const float newMax = gc_max(runningMax, tileMax);");
  e.line("float tileSum = 0.0f;");
  e.open("for (int c = 0; c < 16; ++c) {");
  e.line("const float p = scores[c] == " + minusInf +
         " ? 0.0f : gc_exp(scores[c] - newMax);");
  e.line("tileSum += p;");
  e.line("pTile[warp][prow][part * 16 + c] = gc_conv<" + H + ">::from(p);");
  e.close();
  e.line("tileSum += __shfl_xor_sync(0xffffffffu, tileSum, 1);");
  e.line("const float rescale = runningMax == " + minusInf +
         " ? 0.0f : gc_exp(runningMax - newMax);");
  e.line("runningSum = runningSum * rescale + tileSum;");
  e.line("runningMax = newMax;");
  e.line("for (int d = part; d < " + DV +
         "; d += 2) oTile[warp][prow][d] *= rescale;");
  e.line("__syncwarp();");
  // O += P V, 16 output columns at a time.
  e.line("wmma::fragment<wmma::accumulator, 16, 16, 16, float> oAcc;");
  e.line("wmma::fragment<wmma::matrix_a, 16, 16, 16, " + H +
         ", wmma::row_major> pFrag;");
  e.line("wmma::fragment<wmma::matrix_b, 16, 16, 16, " + H +
         ", wmma::row_major> vFrag;");
  emitTileProduct(e, {a.valueDepth / 16, kMmaKeys, "oAcc",
                      "wmma::load_matrix_sync(oAcc, &oTile[warp][0][j * 16], " +
                          DV + ", wmma::mem_row_major);",
                      "pFrag", "&pTile[warp][0][kk * 16]", PLD, "vFrag",
                      "&vTile[kk * 16][j * 16]", VLD, "&oTile[warp][0][j * 16]",
                      DV});
  e.line("__syncwarp();");
  e.close();
  e.close();
  // As in the scalar template: a row with every key masked out is 0 / 0.
  e.open("if (row < " + Twine(a.queries) + "LL) {");
  e.open("for (int d = part; d < " + DV + "; d += 2) {");
  std::string value = "oTile[warp][prow][d] / runningSum";
  if (a.nanToZero)
    value = "runningSum > 0.0f ? " + value + " : 0.0f";
  e.line("const float result = " + value + ";");
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

} // namespace

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
  {
    Attention a{batch, heads, queries, depth, keys, valueDepth, group,
                e.inputStrides(0), e.inputStrides(1), e.inputStrides(2),
                SmallVector<int64_t>(4, 0), e.floatAttr("scale", 1.0),
                e.intAttr("is_causal", 0) != 0,
                e.intAttr("nan_to_zero", 0) != 0};
    if (e.hasInput(3)) {
      ArrayRef<int64_t> mask = e.inputShape(3);
      SmallVector<int64_t> strides = e.inputStrides(3);
      int64_t offset = 4 - static_cast<int64_t>(mask.size());
      if (offset < 0)
        return e.fail("the mask has more than 4 dims");
      for (auto [j, dim] : llvm::enumerate(mask))
        a.ms[offset + j] = dim == 1 ? 0 : strides[j];
    }
    // Tensor cores take f16 from sm_70 and bf16 from sm_80 on, in products
    // of 16: head sizes that are multiples of 16.
    Type element = e.inputType(0).getElementType();
    bool narrow = element.isF16() || element.isBF16();
    bool sameTypes = e.inputType(1).getElementType() == element &&
                     e.inputType(2).getElementType() == element;
    int needSm = element.isBF16() ? 80 : 70;
    if (narrow && sameTypes && e.getLowestSm() >= needSm && depth % 16 == 0 &&
        valueDepth % 16 == 0 && mmaSharedBytes(a, 1) <= kSharedBytes)
      return emitTensorCoreAttention(e, a,
                                     element.isF16() ? "__half"
                                                     : "__nv_bfloat16");
  }
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
