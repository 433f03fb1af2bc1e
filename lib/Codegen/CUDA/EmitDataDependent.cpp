//===- EmitDataDependent.cpp - NonZero, Compress, NMS, Unique -------------===//
//
// Ops whose extents the run decides write the leading corner of their
// bound-shaped results, zeros past it, and the extent (GraphDataDependentOps
// .td). Where an element lands depends on how many before it were kept, so
// one block walks the input in chunks of its threads: each chunk's kept
// elements are numbered by a block-wide exclusive scan (warp shuffles, then
// the warps' totals) added to the count of the chunks before, which keeps
// the order the host kernel writes. One block bounds the speed by one SM's;
// what it saves is any host round trip, so the plan stays one CUDA graph.
// NonMaxSuppression and Unique are one block too, without scratch memory
// (a kernel has only its operands and results): see each for its cost.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/EmitSupport.h"

using namespace mlir;

namespace graphc::codegen::cuda {

namespace {
constexpr int64_t kScanThreads = 1024;

/// Opens the chunk loop: `flag` (an int expression of `i`, false past
/// `total`) numbered into `rank`, the kept elements before `i` in all
/// chunks so far; `kept` counts every chunk's once the loop closes
/// (closeScanLoop).
void openScanLoop(KernelEmitter &e, int64_t total, StringRef flag) {
  e.line("__shared__ long long gc_warp_totals[32];");
  e.line("const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;");
  e.line("long long kept = 0;");
  e.open("for (long long start = 0; start < " + Twine(total) +
         "LL; start += " + Twine(kScanThreads) + "LL) {");
  e.line("const long long i = start + threadIdx.x;");
  e.line(("const int flag = i < " + Twine(total) + "LL && (" + flag +
          ") ? 1 : 0;")
             .str());
  e.line("int inclusive = flag;");
  e.open("for (int offset = 1; offset < 32; offset <<= 1) {");
  e.line("const int before = __shfl_up_sync(0xffffffffu, inclusive, offset);");
  e.line("if (lane >= offset) inclusive += before;");
  e.close();
  e.line("if (lane == 31) gc_warp_totals[warp] = inclusive;");
  e.line("__syncthreads();");
  e.open("if (warp == 0) {");
  e.line("int total = gc_warp_totals[lane];");
  e.open("for (int offset = 1; offset < 32; offset <<= 1) {");
  e.line("const int before = __shfl_up_sync(0xffffffffu, total, offset);");
  e.line("if (lane >= offset) total += before;");
  e.close();
  e.line("gc_warp_totals[lane] = total;");
  e.close();
  e.line("__syncthreads();");
  e.line("const long long rank = kept + inclusive - flag + "
         "(warp ? gc_warp_totals[warp - 1] : 0);");
}

/// Closes the chunk loop: `kept` moves past the chunk, and no thread
/// overwrites the warps' totals before all have read them.
void closeScanLoop(KernelEmitter &e) {
  e.line("kept += gc_warp_totals[31];");
  e.line("__syncthreads();");
  e.close();
}
} // namespace

LogicalResult emitNonZero(KernelEmitter &e) {
  ArrayRef<int64_t> inShape = e.inputShape(0);
  ArrayRef<int64_t> outShape = e.resultShape(0);
  int64_t rank = inShape.size();
  if (outShape.size() != 2 || outShape[0] != rank)
    return e.fail("indices must be [rank, bound]");
  int64_t bound = outShape[1], total = numElements(inShape);
  Type element = e.inputType(0).getElementType();
  std::string zero = literal(0, computeType(element));
  e.setLaunch({1}, {kScanThreads});
  openScanLoop(e, total, e.load(0, "i") + " != " + zero);
  e.open("if (flag && rank < " + Twine(bound) + "LL) {");
  e.coords("c", "i", inShape);
  for (int64_t d = 0; d < rank; ++d)
    e.line("out0[" + Twine(d) + "LL * " + Twine(bound) + "LL + rank] = c" +
           Twine(d) + ";");
  e.close();
  closeScanLoop(e);
  // The bound is the element count, so `kept` never passes it.
  e.open("for (long long j = kept + threadIdx.x; j < " + Twine(bound) +
         "LL; j += " + Twine(kScanThreads) + "LL) {");
  for (int64_t d = 0; d < rank; ++d)
    e.line("out0[" + Twine(d) + "LL * " + Twine(bound) + "LL + j] = 0;");
  e.close();
  e.line("if (threadIdx.x == 0) out1[0] = kept;");
  return success();
}

LogicalResult emitCompress(KernelEmitter &e) {
  auto compress = e.as<graph::CompressOp>();
  ArrayRef<int64_t> inShape = e.inputShape(0);
  ArrayRef<int64_t> outShape = e.resultShape(0);
  int64_t length = e.inputShape(1).front();
  int64_t outer = 1, len = numElements(inShape), inner = 1, bound;
  if (std::optional<int64_t> axisAttr = compress.getAxis()) {
    std::optional<int64_t> axis = normalizeAxis(*axisAttr, inShape.size());
    if (!axis || outShape.size() != inShape.size())
      return e.fail("the output must have the input's rank");
    outer = numElements(inShape.take_front(*axis));
    len = inShape[*axis];
    inner = numElements(inShape.drop_front(*axis + 1));
    bound = outShape[*axis];
  } else {
    if (outShape.size() != 1)
      return e.fail("the output of a Compress without axis must be 1-d");
    bound = outShape[0];
  }
  if (length > len)
    return e.fail("condition has " + Twine(length) + " elements, more than the " +
                  Twine(len) + " it selects from");
  e.setLaunch({1}, {kScanThreads});
  openScanLoop(e, length, "in1[i]");
  // Each kept slice is copied by the thread that kept it: the slices of
  // one chunk are copied side by side.
  e.open("if (flag && rank < " + Twine(bound) + "LL) {");
  e.open("for (long long o = 0; o < " + Twine(outer) + "LL; ++o) {");
  e.open("for (long long r = 0; r < " + Twine(inner) + "LL; ++r) {");
  e.line("out0[(o * " + Twine(bound) + "LL + rank) * " + Twine(inner) +
         "LL + r] = in0[(o * " + Twine(len) + "LL + i) * " + Twine(inner) +
         "LL + r];");
  e.close();
  e.close();
  e.close();
  closeScanLoop(e);
  // `kept` is at most the condition's length, which the bound covers.
  e.line("using gc_element = " + cxxType(e.resultType(0).getElementType()) +
         ";");
  e.open("for (long long j = threadIdx.x; j < " +
         Twine(outer * bound * inner) + "LL; j += " + Twine(kScanThreads) +
         "LL) {");
  e.line("if ((j / " + Twine(inner) + "LL) % " + Twine(bound) +
         "LL >= kept) out0[j] = gc_element();");
  e.close();
  e.line("if (threadIdx.x == 0) out1[0] = kept;");
  return success();
}

namespace {
/// Declares `<p>x0, <p>x1, <p>y0, <p>y1, <p>area`: box `index` of batch
/// `batch` as the host kernel's nmsBox (lib/HostKernels/DataDependent.cpp)
/// computes it, in the same float operations: products through __fmul_rn,
/// so that no multiply-add contracts them and rounds differently.
void emitNmsBox(KernelEmitter &e, StringRef p, StringRef batch,
                StringRef index, int64_t boxes, bool centerPoint) {
  std::string at = ("(" + batch + " * " + Twine(boxes) + "LL + " + index +
                    ") * 4LL")
                       .str();
  for (int k = 0; k < 4; ++k)
    e.line("const float " + p + "c" + Twine(k) + " = " +
           e.load(0, at + " + " + std::to_string(k)) + ";");
  std::string c = (p + "c").str();
  if (!centerPoint) {
    // onnxruntime's MaxMin: either corner may come first.
    e.line("const float " + p + "x0 = " + c + "1 >= " + c + "3 ? " + c +
           "3 : " + c + "1, " + p + "x1 = " + c + "1 >= " + c + "3 ? " + c +
           "1 : " + c + "3;");
    e.line("const float " + p + "y0 = " + c + "0 >= " + c + "2 ? " + c +
           "2 : " + c + "0, " + p + "y1 = " + c + "0 >= " + c + "2 ? " + c +
           "0 : " + c + "2;");
    e.line("const float " + p + "area = __fmul_rn(" + p + "y1 - " + p +
           "y0, " + p + "x1 - " + p + "x0);");
    return;
  }
  // Halving is exact either way: x * 0.5 is x / 2.
  e.line("const float " + p + "hw = __fmul_rn(" + c + "2, 0.5f), " + p +
         "hh = __fmul_rn(" + c + "3, 0.5f);");
  e.line("const float " + p + "area = __fmul_rn(" + c + "2, " + c + "3);");
  e.line("const float " + p + "x0 = " + c + "0 - " + p + "hw, " + p + "x1 = " +
         c + "0 + " + p + "hw;");
  e.line("const float " + p + "y0 = " + c + "1 - " + p + "hh, " + p + "y1 = " +
         c + "1 + " + p + "hh;");
}
} // namespace

// One block takes the B * C lists one after another, each as the host
// kernel does: the candidates in descending score (ties by ascending
// index), each tested against the boxes already selected for the list,
// which the output holds. Without scratch to sort in, each step finds the
// next candidate by a block-wide argmax over the scores that follow the
// last one taken, then ORs the threads' IOU tests. A step costs a pass
// over the list's N scores and two barriers, so a list costs
// O(candidates taken * N / 1024) and the lists run on one SM: fast for
// the few candidates a score threshold leaves, slow for thousands.
// An iou_threshold outside [0, 1], which the host kernel refuses, is used
// as it is.
LogicalResult emitNonMaxSuppression(KernelEmitter &e) {
  auto nms = e.as<graph::NonMaxSuppressionOp>();
  ArrayRef<int64_t> boxShape = e.inputShape(0);
  ArrayRef<int64_t> scoreShape = e.inputShape(1);
  ArrayRef<int64_t> outShape = e.resultShape(0);
  if (boxShape.size() != 3 || scoreShape.size() != 3 || boxShape[2] != 4 ||
      boxShape[0] != scoreShape[0] || boxShape[1] != scoreShape[2])
    return e.fail("boxes must be [batches, boxes, 4] and scores [batches, "
                  "classes, boxes]");
  if (outShape.size() != 2 || outShape[1] != 3)
    return e.fail("selected_indices must be [bound, 3]");
  for (unsigned slot = 2; slot < 5; ++slot)
    if (e.hasInput(slot) && numElements(e.inputShape(slot)) != 1)
      return e.fail("input " + Twine(slot) + " must hold one element");
  int64_t lists = scoreShape[0] * scoreShape[1], classes = scoreShape[1];
  int64_t boxes = boxShape[1], bound = outShape[0];
  std::string n = std::to_string(boxes) + "LL";
  e.setLaunch({1}, {kScanThreads});
  e.line("__shared__ float gc_best_score[32];");
  e.line("__shared__ long long gc_best_index[32];");
  e.line("__shared__ int gc_suppressed[32];");
  e.line("const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;");
  // Absent or at most 0: nothing is selected; more than N: N.
  if (e.hasInput(2)) {
    e.line("long long limit = " + e.load(2, "0") + ";");
    e.line("limit = limit < 0LL ? 0LL : (limit > " + n + " ? " + n +
           " : limit);");
  } else {
    e.line("const long long limit = 0LL;");
  }
  e.line("const float iou = " +
         (e.hasInput(3) ? e.load(3, "0") : std::string("0.0f")) + ";");
  if (e.hasInput(4))
    e.line("const float min_score = " + e.load(4, "0") + ";");
  e.line("long long found = 0;");
  e.open("for (long long list = 0; list < " + Twine(lists) +
         "LL && limit > 0LL; ++list) {");
  e.line("const long long batch = list / " + Twine(classes) + "LL;");
  e.line("long long picked = 0, last = -1;");
  e.line("float last_score = 0.0f;");
  e.open("while (picked < limit && found < " + Twine(bound) + "LL) {");
  // The thread's best candidate after the last one taken; its indices
  // ascend, so a tie keeps the lower index.
  e.line("float best = 0.0f;");
  e.line("long long at = -1;");
  e.open("for (long long i = threadIdx.x; i < " + n + "; i += " +
         Twine(kScanThreads) + "LL) {");
  e.line("const float v = " + e.load(1, "list * " + n + " + i") + ";");
  e.line(std::string("if (isnan(v)") +
         (e.hasInput(4) ? " || !(v > min_score)" : "") + ") continue;");
  e.line("if (last >= 0 && !(v < last_score || (v == last_score && i > "
         "last))) continue;");
  e.line("if (at < 0 || v > best) { best = v; at = i; }");
  e.close();
  auto combine = [&](StringRef score, StringRef index) {
    e.line(("if (" + index + " >= 0 && (at < 0 || " + score + " > best || (" +
            score + " == best && " + index + " < at))) { best = " + score +
            "; at = " + index + "; }")
               .str());
  };
  e.open("for (int offset = 16; offset > 0; offset >>= 1) {");
  e.line("const float other = __shfl_down_sync(0xffffffffu, best, offset);");
  e.line("const long long other_at = __shfl_down_sync(0xffffffffu, at, "
         "offset);");
  combine("other", "other_at");
  e.close();
  e.line("if (lane == 0) { gc_best_score[warp] = best; gc_best_index[warp] = "
         "at; }");
  e.line("__syncthreads();");
  // Every thread combines the warps' bests in the same order.
  e.line("best = gc_best_score[0];");
  e.line("at = gc_best_index[0];");
  e.open("for (int w = 1; w < 32; ++w) {");
  combine("gc_best_score[w]", "gc_best_index[w]");
  e.close();
  // The IOU tests against the list's selected boxes, rows [found - picked,
  // found) of the output, which thread 0 wrote before the last barrier.
  e.line("int suppressed = 0;");
  e.open("if (at >= 0) {");
  emitNmsBox(e, "c", "batch", "at", boxes, nms.getCenterPointBox());
  e.open("for (long long j = threadIdx.x; j < picked; j += " +
         Twine(kScanThreads) + "LL) {");
  e.line("const long long chosen = out0[(found - picked + j) * 3LL + 2LL];");
  emitNmsBox(e, "s", "batch", "chosen", boxes, nms.getCenterPointBox());
  // std::max(candidate, selected) and std::min as onnxruntime takes them.
  e.line("const float ix0 = cx0 < sx0 ? sx0 : cx0, ix1 = sx1 < cx1 ? sx1 : "
         "cx1;");
  e.line("if (ix1 <= ix0) continue;");
  e.line("const float iy0 = cy0 < sy0 ? sy0 : cy0, iy1 = sy1 < cy1 ? sy1 : "
         "cy1;");
  e.line("if (iy1 <= iy0) continue;");
  e.line("const float inter = __fmul_rn(ix1 - ix0, iy1 - iy0);");
  e.line("if (inter <= 0.0f) continue;");
  e.line("if (inter / (carea + sarea - inter) > iou) { suppressed = 1; break; "
         "}");
  e.close();
  e.close();
  e.open("for (int offset = 16; offset > 0; offset >>= 1) {");
  e.line("suppressed |= __shfl_xor_sync(0xffffffffu, suppressed, offset);");
  e.close();
  e.line("if (lane == 0) gc_suppressed[warp] = suppressed;");
  // Also orders the reads of the warps' bests before the next step's
  // writes.
  e.line("__syncthreads();");
  e.open("for (int w = 0; w < 32; ++w) {");
  e.line("suppressed |= gc_suppressed[w];");
  e.close();
  e.line("if (at < 0) break;");
  e.line("last = at;");
  e.line("last_score = best;");
  e.open("if (!suppressed) {");
  e.open("if (threadIdx.x == 0) {");
  e.line("out0[found * 3LL] = batch;");
  e.line("out0[found * 3LL + 1LL] = list - batch * " + Twine(classes) +
         "LL;");
  e.line("out0[found * 3LL + 2LL] = at;");
  e.close();
  e.line("++picked;");
  e.line("++found;");
  e.close();
  e.close(); // while
  e.close(); // lists
  e.open("for (long long j = found * 3LL + threadIdx.x; j < " +
         Twine(bound * 3) + "LL; j += " + Twine(kScanThreads) + "LL) {");
  e.line("out0[j] = 0;");
  e.close();
  e.line("if (threadIdx.x == 0) out1[0] = found;");
  return success();
}

namespace {
/// Declares `gc_compare(i, j)`, the sign of position i's element or slice
/// against position j's in the order of the host kernel's compareScalars
/// (NaNs equal and last, 0 == -0), slices lexicographically.
void emitUniqueCompare(KernelEmitter &e, int64_t outer, int64_t len,
                       int64_t inner) {
  Type element = e.inputType(0).getElementType();
  std::string t = computeType(element);
  e.open("auto gc_compare = [&](long long i, long long j) -> int {");
  e.open("for (long long o = 0; o < " + Twine(outer) + "LL; ++o) {");
  e.open("for (long long r = 0; r < " + Twine(inner) + "LL; ++r) {");
  e.line("const " + t + " a = " +
         e.load(0, "(o * " + std::to_string(len) + "LL + i) * " +
                       std::to_string(inner) + "LL + r") +
         ";");
  e.line("const " + t + " b = " +
         e.load(0, "(o * " + std::to_string(len) + "LL + j) * " +
                       std::to_string(inner) + "LL + r") +
         ";");
  if (isFloatType(element)) {
    e.line("const bool a_nan = isnan(a), b_nan = isnan(b);");
    e.line("if (a_nan || b_nan) { if (a_nan != b_nan) return a_nan ? 1 : -1; "
           "continue; }");
  }
  e.line("if (a < b) return -1;");
  e.line("if (b < a) return 1;");
  e.close();
  e.close();
  e.line("return 0;");
  e.close("};");
}
} // namespace

// One block, the outputs as its only memory: inverse_indices first holds
// each position's first equal position (a search of the positions before
// it), then the distinct ones are ranked (sorted: those that compare
// lower; unsorted: those first seen before) and written, then each
// position finds its first equal's rank in `indices`. Every phase compares
// each position with every other: O(positions^2 * slice) work over 1024
// threads on one SM, fine for the hundreds of values models take unique
// of, slow for a large tensor.
LogicalResult emitUnique(KernelEmitter &e) {
  auto unique = e.as<graph::UniqueOp>();
  ArrayRef<int64_t> inShape = e.inputShape(0);
  ArrayRef<int64_t> yShape = e.resultShape(0);
  int64_t outer = 1, len = numElements(inShape), inner = 1, bound;
  if (std::optional<int64_t> axisAttr = unique.getAxis()) {
    std::optional<int64_t> axis = normalizeAxis(*axisAttr, inShape.size());
    if (!axis || yShape.size() != inShape.size())
      return e.fail("y must have the input's rank");
    outer = numElements(inShape.take_front(*axis));
    len = inShape[*axis];
    inner = numElements(inShape.drop_front(*axis + 1));
    bound = yShape[*axis];
  } else {
    if (yShape.size() != 1)
      return e.fail("y of a Unique without axis must be 1-d");
    bound = yShape[0];
  }
  if (e.resultShape(1) != ArrayRef<int64_t>{bound} ||
      e.resultShape(3) != ArrayRef<int64_t>{bound} ||
      e.resultShape(2) != ArrayRef<int64_t>{len})
    return e.fail("indices and counts must be [bound], inverse_indices "
                  "[positions]");
  // Each position is its own or a later one's first equal, so there are at
  // most `len` distinct ones: the bound (the positions) covers them.
  if (bound < len)
    return e.fail("the bound " + Twine(bound) + " is below the " +
                  Twine(len) + " positions");
  std::string threads = std::to_string(kScanThreads) + "LL";
  std::string n = std::to_string(len) + "LL";
  e.setLaunch({1}, {kScanThreads});
  e.line("__shared__ long long gc_warp_totals[32];");
  e.line("const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;");
  emitUniqueCompare(e, outer, len, inner);
  // Phase 1: first equal positions, and how many positions are first.
  e.line("long long firsts = 0;");
  e.open("for (long long i = threadIdx.x; i < " + n + "; i += " + threads +
         ") {");
  e.line("long long first = i;");
  e.open("for (long long j = 0; j < i; ++j) {");
  e.line("if (gc_compare(j, i) == 0) { first = j; break; }");
  e.close();
  e.line("out2[i] = first;");
  e.line("firsts += first == i ? 1 : 0;");
  e.close();
  e.open("for (int offset = 16; offset > 0; offset >>= 1) {");
  e.line("firsts += __shfl_xor_sync(0xffffffffu, firsts, offset);");
  e.close();
  e.line("if (lane == 0) gc_warp_totals[warp] = firsts;");
  e.line("__syncthreads();");
  e.line("long long total = 0;");
  e.line("for (int w = 0; w < 32; ++w) total += gc_warp_totals[w];");
  // Phase 2: each distinct one's rank, its count, its row of y.
  e.open("for (long long i = threadIdx.x; i < " + n + "; i += " + threads +
         ") {");
  e.line("if (out2[i] != i) continue;");
  e.line("long long rank = 0, count = 0;");
  e.open("for (long long j = 0; j < " + n + "; ++j) {");
  if (unique.getSorted())
    e.line("if (out2[j] == j && gc_compare(j, i) < 0) ++rank;");
  else
    e.line("if (j < i && out2[j] == j) ++rank;");
  e.line("if (out2[j] == i) ++count;");
  e.close();
  e.line("out1[rank] = i;");
  e.line("out3[rank] = count;");
  e.open("for (long long o = 0; o < " + Twine(outer) + "LL; ++o) {");
  e.open("for (long long r = 0; r < " + Twine(inner) + "LL; ++r) {");
  e.line("out0[(o * " + Twine(bound) + "LL + rank) * " + Twine(inner) +
         "LL + r] = in0[(o * " + n + " + i) * " + Twine(inner) + "LL + r];");
  e.close();
  e.close();
  e.close();
  // Zeros past the distinct ones.
  e.open("for (long long k = total + threadIdx.x; k < " + Twine(bound) +
         "LL; k += " + threads + ") {");
  e.line("out1[k] = 0;");
  e.line("out3[k] = 0;");
  e.close();
  e.open("for (long long j = threadIdx.x; j < " +
         Twine(outer * bound * inner) + "LL; j += " + threads + ") {");
  e.line("if ((j / " + Twine(inner) + "LL) % " + Twine(bound) +
         "LL >= total) " + e.store(0, "j", "0"));
  e.close();
  e.line("__syncthreads();");
  // Phase 3: each position's index in y, the rank whose first position is
  // its first equal's.
  e.open("for (long long i = threadIdx.x; i < " + n + "; i += " + threads +
         ") {");
  e.line("const long long first = out2[i];");
  e.line("long long rank = 0;");
  e.line("while (rank < total && out1[rank] != first) ++rank;");
  e.line("out2[i] = rank;");
  e.close();
  e.line("if (threadIdx.x == 0) out4[0] = total;");
  return success();
}

} // namespace graphc::codegen::cuda
