//===- EmitDataDependent.cpp - NonZero and Compress -----------------------===//
//
// Ops whose extents the run decides write the leading corner of their
// bound-shaped results, zeros past it, and the extent (GraphDataDependentOps
// .td). Where an element lands depends on how many before it were kept, so
// one block walks the input in chunks of its threads: each chunk's kept
// elements are numbered by a block-wide exclusive scan (warp shuffles, then
// the warps' totals) added to the count of the chunks before, which keeps
// the order the host kernel writes. One block bounds the speed by one SM's;
// what it saves is any host round trip, so the plan stays one CUDA graph.
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

} // namespace graphc::codegen::cuda
