//===- EmitDataMovement.cpp - index-map kernels ---------------------------===//
//
// Data movement ops as index maps: one thread per output element computes
// the source coordinates from its own with baked shapes and strides. Values
// known at compile time (slice bounds, pads, shapes) are baked; index tensors
// and scalar operands are read at run time.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/EmitSupport.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;

namespace graphc::codegen::cuda {
namespace {

/// Coordinate names `<prefix><k>` for k in [begin, end).
SmallVector<std::string> coordNames(StringRef prefix, int64_t begin,
                                    int64_t end) {
  SmallVector<std::string> names;
  for (int64_t k = begin; k < end; ++k)
    names.push_back((prefix + Twine(k)).str());
  return names;
}

/// The copies of concat and split, inside the loop over the whole's
/// coordinates `o<k>` (`rank` dims): `parts` lie one after the other along
/// `axis`, and the copy of the part the coordinate falls in is
/// `copy(part, offset)`, `offset` its element offset in that part.
void emitPartCopies(KernelEmitter &e, int64_t axis, int64_t rank,
                    ArrayRef<ArrayRef<int64_t>> parts,
                    llvm::function_ref<std::string(unsigned, StringRef)> copy) {
  std::string oa = "o" + std::to_string(axis);
  int64_t begin = 0;
  for (auto [k, shape] : llvm::enumerate(parts)) {
    int64_t end = begin + shape[axis];
    SmallVector<std::string> coords = coordNames("o", 0, rank);
    coords[axis] = "(" + oa + " - " + std::to_string(begin) + ")";
    std::string line = copy(k, offsetExpr(coords, contiguousStrides(shape)));
    if (k + 1 == parts.size()) {
      e.line(line);
    } else if (shape[axis] != 0) {
      e.open("if (" + oa + " < " + std::to_string(end) + ") {");
      e.line(line);
      e.line("continue;");
      e.close();
    }
    begin = end;
  }
}

/// Opens the loop over result `index` and declares its coordinates `o<k>`.
void openOutputLoop(KernelEmitter &e, unsigned index = 0) {
  e.openLinearLoop(numElements(e.resultShape(index)));
  e.coords("o", "i", e.resultShape(index));
}

/// Elements per 16-byte vector of the copy of runs of `run` elements of
/// input 0 to the result: halved until it divides the run and input 0's
/// static offset; 1 when input 0 is read through strides.
int64_t copyVector(KernelEmitter &e, int64_t run) {
  if (e.inputStrides(0) != contiguousStrides(e.inputShape(0)))
    return 1;
  int64_t vec = vectorElements(e.inputType(0).getElementType());
  while (vec > 1 && (run % vec != 0 || e.inputOffset(0) % vec != 0))
    vec /= 2;
  return vec;
}

LogicalResult emitCopy(KernelEmitter &e) {
  int64_t n = numElements(e.resultShape());
  int64_t vec = copyVector(e, n);
  if (vec > 1) {
    std::string type = cxxType(e.resultType().getElementType());
    std::string access = "<" + type + ", " + std::to_string(vec) + ">";
    e.openLinearLoop(n / vec, "iv");
    e.line("gc_cpv" + access + "(out0 + iv * " + Twine(vec) +
           "LL, in0 + iv * " + Twine(vec) + "LL);");
    e.close();
    return success();
  }
  e.openLinearLoop(n);
  e.line("out0[i] = in0[i];");
  e.close();
  return success();
}

LogicalResult emitTranspose(KernelEmitter &e) {
  ArrayRef<int64_t> inShape = e.inputShape(0);
  int64_t rank = inShape.size();
  SmallVector<int64_t> perm;
  if (std::optional<ArrayRef<int64_t>> attr =
          e.as<graph::TransposeOp>().getPerm())
    perm.assign(attr->begin(), attr->end());
  else
    for (int64_t k = rank - 1; k >= 0; --k)
      perm.push_back(k);
  if (static_cast<int64_t>(perm.size()) != rank)
    return e.fail("perm has " + Twine(perm.size()) + " entries for rank " +
                  Twine(rank));
  SmallVector<int64_t> inStrides = contiguousStrides(inShape);
  SmallVector<int64_t> strides;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank)
      return e.fail("perm entry " + Twine(p) + " is out of range");
    strides.push_back(inStrides[p]);
  }
  openOutputLoop(e);
  e.line("out0[i] = in0[" + offsetExpr("o", strides) + "];");
  e.close();
  return success();
}

/// The constant axes operand in `slot`, or 0..count-1 when it is absent.
FailureOr<SmallVector<int64_t>> constantAxes(KernelEmitter &e, unsigned slot,
                                             int64_t count) {
  if (e.hasInput(slot)) {
    auto axes = e.constantInts(slot);
    if (!axes)
      return e.fail("axes (input " + Twine(slot) + ") must be a constant");
    return *axes;
  }
  SmallVector<int64_t> axes;
  for (int64_t k = 0; k < count; ++k)
    axes.push_back(k);
  return axes;
}

LogicalResult emitSlice(KernelEmitter &e) {
  ArrayRef<int64_t> inShape = e.inputShape(0);
  int64_t rank = inShape.size();
  auto starts = e.constantInts(1);
  if (!starts)
    return e.fail("starts (input 1) must be a constant");
  FailureOr<SmallVector<int64_t>> axes =
      constantAxes(e, 3, static_cast<int64_t>(starts->size()));
  if (failed(axes))
    return failure();
  SmallVector<int64_t> steps(starts->size(), 1);
  if (e.hasInput(4)) {
    auto constSteps = e.constantInts(4);
    if (!constSteps)
      return e.fail("steps (input 4) must be a constant");
    steps = *constSteps;
  }
  if (axes->size() != starts->size() || steps.size() != starts->size())
    return e.fail("starts, axes and steps differ in length");
  SmallVector<int64_t> begin(rank, 0), step(rank, 1);
  for (auto [start, axis, s] : llvm::zip(*starts, *axes, steps)) {
    std::optional<int64_t> a = normalizeAxis(axis, rank);
    if (!a || s == 0)
      return e.fail("invalid slice axis or zero step");
    int64_t dim = inShape[*a];
    int64_t b = start < 0 ? start + dim : start;
    b = s > 0 ? std::clamp<int64_t>(b, 0, dim)
              : std::clamp<int64_t>(b, 0, std::max<int64_t>(dim - 1, 0));
    begin[*a] = b;
    step[*a] = s;
  }
  SmallVector<int64_t> inStrides = contiguousStrides(inShape);
  SmallVector<std::string> src;
  for (int64_t k = 0; k < rank; ++k) {
    std::string c = "o" + std::to_string(k);
    if (step[k] != 1)
      c = "(" + c + " * " + std::to_string(step[k]) + ")";
    if (begin[k] != 0)
      c = "(" + std::to_string(begin[k]) + " + " + c + ")";
    src.push_back(c);
  }
  openOutputLoop(e);
  e.line("out0[i] = in0[" + offsetExpr(src, inStrides) + "];");
  e.close();
  return success();
}

LogicalResult emitExpand(KernelEmitter &e) {
  openOutputLoop(e);
  e.line("out0[i] = in0[" +
         offsetExpr("o", broadcastStrides(e.inputShape(0), e.resultShape())) +
         "];");
  e.close();
  return success();
}

LogicalResult emitTile(KernelEmitter &e) {
  ArrayRef<int64_t> inShape = e.inputShape(0);
  SmallVector<std::string> src;
  for (auto [k, dim] : llvm::enumerate(inShape))
    src.push_back(e.resultShape()[k] == dim ? "o" + std::to_string(k)
                                            : "(o" + std::to_string(k) + " % " +
                                                  std::to_string(dim) + ")");
  openOutputLoop(e);
  e.line("out0[i] = in0[" + offsetExpr(src, contiguousStrides(inShape)) + "];");
  e.close();
  return success();
}

LogicalResult emitConcat(KernelEmitter &e) {
  ArrayRef<int64_t> outShape = e.resultShape();
  std::optional<int64_t> axis =
      normalizeAxis(e.as<graph::ConcatOp>().getAxis(), outShape.size());
  if (!axis)
    return e.fail("axis is out of range");
  openOutputLoop(e);
  SmallVector<ArrayRef<int64_t>> parts;
  for (unsigned s = 0; s < e.numInputSlots(); ++s)
    parts.push_back(e.inputShape(s));
  emitPartCopies(e, *axis, outShape.size(), parts,
                 [&](unsigned s, StringRef offset) {
                   return "out0[i] = " + e.in(s) + "[" + offset.str() + "];";
                 });
  e.close();
  return success();
}

/// Split: one thread per input element writes it into the result it falls in.
LogicalResult emitSplit(KernelEmitter &e) {
  ArrayRef<int64_t> inShape = e.inputShape(0);
  std::optional<int64_t> axis =
      normalizeAxis(e.as<graph::SplitOp>().getAxis(), inShape.size());
  if (!axis)
    return e.fail("axis is out of range");
  e.openLinearLoop(numElements(inShape));
  e.coords("o", "i", inShape);
  SmallVector<ArrayRef<int64_t>> parts;
  for (unsigned r = 0; r < e.getOp()->getNumResults(); ++r)
    parts.push_back(e.resultShape(r));
  emitPartCopies(e, *axis, inShape.size(), parts,
                 [&](unsigned r, StringRef offset) {
                   return e.out(r) + "[" + offset.str() + "] = in0[i];";
                 });
  e.close();
  return success();
}

LogicalResult emitPad(KernelEmitter &e) {
  ArrayRef<int64_t> inShape = e.inputShape(0);
  int64_t rank = inShape.size();
  auto pads = e.constantInts(1);
  if (!pads)
    return e.fail("pads (input 1) must be a constant");
  FailureOr<SmallVector<int64_t>> axes = constantAxes(e, 3, rank);
  if (failed(axes))
    return failure();
  if (pads->size() != 2 * axes->size())
    return e.fail("pads must have two entries per padded axis");
  SmallVector<int64_t> before(rank, 0);
  for (auto [k, axis] : llvm::enumerate(*axes)) {
    std::optional<int64_t> a = normalizeAxis(axis, rank);
    if (!a)
      return e.fail("pad axis " + Twine(axis) + " is out of range");
    before[*a] = (*pads)[k];
  }
  std::string mode = e.as<graph::PadOp>().getMode().str();
  if (!llvm::is_contained({"constant", "reflect", "edge", "wrap"}, mode))
    return e.fail("unknown mode \"" + mode + "\"");

  openOutputLoop(e);
  for (int64_t k = 0; k < rank; ++k) {
    std::string s = "s" + std::to_string(k), n = std::to_string(inShape[k]);
    e.line("long long " + s + " = o" + Twine(k) + " - " + Twine(before[k]) +
           ";");
    if (e.resultShape()[k] == inShape[k] && before[k] == 0)
      continue;
    if (mode == "reflect") {
      // Pads are smaller than the dim, so one reflection per side suffices.
      e.line(s + " = " + s + " < 0 ? -" + s + " : " + s + ";");
      e.line(s + " = " + s + " >= " + n + " ? 2 * (" + n + " - 1) - " + s +
             " : " + s + ";");
    } else if (mode == "edge") {
      e.line(s + " = " + s + " < 0 ? 0 : (" + s + " >= " + n + " ? " + n +
             " - 1 : " + s + ");");
    } else if (mode == "wrap") {
      e.line(s + " = ((" + s + " % " + n + ") + " + n + ") % " + n + ";");
    }
  }
  std::string src =
      offsetExpr(coordNames("s", 0, rank), contiguousStrides(inShape));
  if (mode == "constant") {
    std::string inside;
    for (int64_t k = 0; k < rank; ++k) {
      if (e.resultShape()[k] == inShape[k] && before[k] == 0)
        continue;
      inside +=
          (inside.empty() ? "" : " && ") +
          ("s" + Twine(k) + " >= 0 && s" + Twine(k) + " < " + Twine(inShape[k]))
              .str();
    }
    std::string value =
        e.hasInput(2)
            ? e.in(2) + "[0]"
            : "gc_cvt<" + cxxType(e.resultType().getElementType()) + ">(0)";
    if (inside.empty())
      e.line("out0[i] = in0[" + src + "];");
    else
      e.line("out0[i] = (" + inside + ") ? in0[" + src + "] : " + value + ";");
  } else {
    e.line("out0[i] = in0[" + src + "];");
  }
  e.close();
  return success();
}

/// The value written where an out-of-range index was reported.
std::string zeroOf(KernelEmitter &e) {
  return "gc_cvt<" + cxxType(e.resultType().getElementType()) + ">(0)";
}

/// out0[i] = in0 at `src` (coordinates of the data, `idx` among them), or
/// 0 where checkedIndex found idx out of range (-1).
void emitGatheredRead(KernelEmitter &e, ArrayRef<std::string> src,
                      ArrayRef<int64_t> dataShape) {
  e.line("out0[i] = idx >= 0 ? in0[" +
         offsetExpr(src, contiguousStrides(dataShape)) + "] : " + zeroOf(e) +
         ";");
}

LogicalResult emitGather(KernelEmitter &e) {
  ArrayRef<int64_t> dataShape = e.inputShape(0);
  ArrayRef<int64_t> indShape = e.inputShape(1);
  int64_t rank = dataShape.size(), q = indShape.size();
  std::optional<int64_t> axis =
      normalizeAxis(e.as<graph::GatherOp>().getAxis(), rank);
  if (!axis)
    return e.fail("axis is out of range");
  // Each output row (a prefix index and an index) is a run of the dims
  // after the axis, copied whole: a warp per row, with one index load per
  // row and 16-byte vectors where the run allows (embedding lookups).
  int64_t run = numElements(dataShape.drop_front(*axis + 1));
  int64_t vec = copyVector(e, run);
  if (vec > 1 && run / vec >= 8) {
    int64_t indices = numElements(indShape);
    int64_t rows = numElements(dataShape.take_front(*axis)) * indices;
    // Fewer rows per block where that many would leave SMs idle.
    int64_t warps = e.getBlockSize() / 32;
    auto blocksOf = [&](int64_t w) {
      return std::clamp<int64_t>((rows + w - 1) / w, 1, kMaxGrid);
    };
    while (e.isHeuristicLaunch() && warps > 1 && blocksOf(warps) < kFillBlocks)
      warps /= 2;
    int64_t blocks = blocksOf(warps);
    std::string type = cxxType(e.resultType().getElementType());
    std::string access = "<" + type + ", " + std::to_string(vec) + ">";
    e.setLaunch({blocks}, {32 * warps});
    e.line("const int lane = threadIdx.x & 31;");
    e.open("for (long long row = (long long)blockIdx.x * " + Twine(warps) +
           " + (threadIdx.x >> 5); row < " + Twine(rows) +
           "LL; row += (long long)gridDim.x * " + Twine(warps) + ") {");
    e.line("const long long idx = " +
           e.checkedIndex("in1[row % " + Twine(indices) + "LL]",
                          dataShape[*axis]) +
           ";");
    e.line("const long long src = (row / " + Twine(indices) + "LL) * " +
           Twine(dataShape[*axis] * run) + "LL + idx * " + Twine(run) + "LL;");
    e.open("for (long long v = lane; v < " + Twine(run / vec) +
           "LL; v += 32) {");
    // A value-initialised gc_vec is zeros.
    std::string at = "out0 + row * " + std::to_string(run) + "LL + v * " +
                     std::to_string(vec) + "LL";
    e.open("if (idx >= 0) {");
    e.line("gc_cpv" + access + "(" + at + ", in0 + src + v * " + Twine(vec) +
           "LL);");
    e.close();
    e.open("else {");
    e.line("gc_stv" + access + "(" + at + ", gc_vec" + access + "{});");
    e.close();
    e.close();
    e.close();
    return success();
  }
  openOutputLoop(e);
  e.line("const long long idx = " +
         e.checkedIndex("in1[" +
                            offsetExpr(coordNames("o", *axis, *axis + q),
                                       contiguousStrides(indShape)) +
                            "]",
                        dataShape[*axis]) +
         ";");
  SmallVector<std::string> src = coordNames("o", 0, *axis);
  src.push_back("idx");
  src.append(coordNames("o", *axis + q, q + rank - 1));
  emitGatheredRead(e, src, dataShape);
  e.close();
  return success();
}

LogicalResult emitGatherElements(KernelEmitter &e) {
  ArrayRef<int64_t> dataShape = e.inputShape(0);
  int64_t rank = dataShape.size();
  std::optional<int64_t> axis =
      normalizeAxis(e.as<graph::GatherElementsOp>().getAxis(), rank);
  if (!axis)
    return e.fail("axis is out of range");
  openOutputLoop(e);
  e.line("const long long idx = " + e.checkedIndex("in1[i]", dataShape[*axis]) +
         ";");
  SmallVector<std::string> src = coordNames("o", 0, rank);
  src[*axis] = "idx";
  emitGatheredRead(e, src, dataShape);
  e.close();
  return success();
}

LogicalResult emitGatherND(KernelEmitter &e) {
  ArrayRef<int64_t> dataShape = e.inputShape(0);
  ArrayRef<int64_t> indShape = e.inputShape(1);
  int64_t batch = e.as<graph::GatherNdOp>().getBatchDims();
  int64_t q = indShape.size();
  if (q < 1 || batch < 0 || batch >= q)
    return e.fail("indices must have rank above batch_dims");
  int64_t m = indShape.back();
  if (batch + m > static_cast<int64_t>(dataShape.size()))
    return e.fail("index tuples are longer than the data rank allows");
  openOutputLoop(e);
  // Output coords: indices.shape[:-1] then data.shape[batch + m:].
  SmallVector<int64_t> tupleStrides = contiguousStrides(indShape.drop_back());
  e.line("const long long tuple = (" +
         offsetExpr(coordNames("o", 0, q - 1), tupleStrides) + ") * " +
         Twine(m) + ";");
  SmallVector<std::string> src = coordNames("o", 0, batch);
  std::string valid;
  for (int64_t j = 0; j < m; ++j) {
    std::string name = "d" + std::to_string(j);
    e.line(
        "const long long " + name + " = " +
        e.checkedIndex("in1[tuple + " + Twine(j) + "]", dataShape[batch + j]) +
        ";");
    src.push_back(name);
    valid += (j ? " && " : "") + name + " >= 0";
  }
  src.append(coordNames("o", q - 1, e.resultShape().size()));
  std::string load =
      "in0[" + offsetExpr(src, contiguousStrides(dataShape)) + "]";
  e.line(
      "out0[i] = " +
      (valid.empty() ? load : "(" + valid + ") ? " + load + " : " + zeroOf(e)) +
      ";");
  e.close();
  return success();
}

/// The statement folding update `u` into `acc` for a scatter reduction.
std::optional<std::string> scatterUpdate(StringRef reduction) {
  if (reduction == "none")
    return "acc = u;";
  if (reduction == "add")
    return "acc = acc + u;";
  if (reduction == "mul")
    return "acc = acc * u;";
  if (reduction == "max")
    return "acc = gc_max(acc, u);";
  if (reduction == "min")
    return "acc = gc_min(acc, u);";
  return std::nullopt;
}

/// ScatterElements without atomics: every output element starts from the
/// data and folds, in update order, the updates whose index hits it. Only
/// the updates along the scatter axis at the same other coordinates can.
LogicalResult emitScatterElements(KernelEmitter &e) {
  ArrayRef<int64_t> dataShape = e.inputShape(0);
  ArrayRef<int64_t> indShape = e.inputShape(1);
  int64_t rank = dataShape.size();
  auto scatter = e.as<graph::ScatterElementsOp>();
  std::optional<int64_t> axis = normalizeAxis(scatter.getAxis(), rank);
  if (!axis || static_cast<int64_t>(indShape.size()) != rank)
    return e.fail("axis is out of range or indices rank differs from data");
  std::optional<std::string> update = scatterUpdate(scatter.getReduction());
  if (!update)
    return e.fail("unknown reduction \"" + scatter.getReduction() + "\"");
  std::string t = computeType(e.inputType(0).getElementType());
  openOutputLoop(e);
  e.line(t + " acc = " + e.load(0, "i") + ";");
  std::string inRange;
  for (int64_t k = 0; k < rank; ++k)
    if (k != *axis && indShape[k] != dataShape[k])
      inRange += (inRange.empty() ? "" : " && ") +
                 ("o" + Twine(k) + " < " + Twine(indShape[k])).str();
  e.open("if (" + (inRange.empty() ? std::string("true") : inRange) + ") {");
  SmallVector<std::string> at = coordNames("o", 0, rank);
  at[*axis] = "t";
  e.open("for (long long t = 0; t < " + Twine(indShape[*axis]) + "; ++t) {");
  e.line("const long long u_at = " +
         offsetExpr(at, contiguousStrides(indShape)) + ";");
  // An out-of-range index is reported (gc_index returns -1) and matches no
  // element.
  e.open("if (" + e.checkedIndex("in1[u_at]", dataShape[*axis]) + " == o" +
         Twine(*axis) + ") {");
  e.line("const " + t + " u = " + e.load(2, "u_at") + ";");
  e.line(*update);
  e.close();
  e.close();
  e.close();
  e.line(e.store(0, "i", "acc"));
  e.close();
  return success();
}

/// ScatterND without atomics: every output element folds, in update order,
/// the update slices whose index tuple addresses its slice.
LogicalResult emitScatterND(KernelEmitter &e) {
  ArrayRef<int64_t> dataShape = e.inputShape(0);
  ArrayRef<int64_t> indShape = e.inputShape(1);
  if (indShape.empty())
    return e.fail("indices must have rank at least 1");
  int64_t k = indShape.back();
  if (k > static_cast<int64_t>(dataShape.size()))
    return e.fail("index tuples are longer than the data rank");
  StringRef reduction = e.as<graph::ScatterNdOp>().getReduction();
  std::optional<std::string> update = scatterUpdate(reduction);
  if (!update)
    return e.fail("unknown reduction \"" + reduction + "\"");
  int64_t tuples = numElements(indShape.drop_back());
  int64_t sliceSize = numElements(dataShape.drop_front(k));
  std::string t = computeType(e.inputType(0).getElementType());
  e.openLinearLoop(numElements(dataShape));
  e.line("const long long slice = i / " + Twine(sliceSize) + ", inner = i % " +
         Twine(sliceSize) + ";");
  e.coords("p", "slice", dataShape.take_front(k));
  e.line(t + " acc = " + e.load(0, "i") + ";");
  e.open("for (long long t = 0; t < " + Twine(tuples) + "; ++t) {");
  std::string match;
  // An out-of-range index is reported (gc_index returns -1) and matches no
  // slice.
  for (int64_t j = 0; j < k; ++j)
    match += (j ? " && " : "") +
             e.checkedIndex("in1[t * " + Twine(k) + " + " + Twine(j) + "]",
                            dataShape[j]) +
             " == p" + std::to_string(j);
  e.open("if (" + (match.empty() ? std::string("true") : match) + ") {");
  e.line("const " + t + " u = " +
         e.load(2, ("t * " + Twine(sliceSize) + " + inner").str()) + ";");
  e.line(*update);
  e.close();
  e.close();
  e.line(e.store(0, "i", "acc"));
  e.close();
  return success();
}

LogicalResult emitDepthToSpace(KernelEmitter &e, bool toSpace) {
  int64_t b = toSpace ? e.as<graph::DepthToSpaceOp>().getBlocksize()
                      : e.as<graph::SpaceToDepthOp>().getBlocksize();
  ArrayRef<int64_t> inShape = e.inputShape(0);
  if (b <= 0 || inShape.size() != 4)
    return e.fail("needs a positive blocksize and a 4-d input");
  SmallVector<int64_t> inStrides = contiguousStrides(inShape);
  openOutputLoop(e);
  std::string bs = std::to_string(b);
  SmallVector<std::string> src;
  if (toSpace) {
    // depth_to_space: out (n, c, h * b + bh, w * b + bw).
    int64_t c = e.resultShape()[1];
    bool crd = e.as<graph::DepthToSpaceOp>().getMode() == "CRD";
    e.line("const long long bh = o2 % " + bs + ", bw = o3 % " + bs + ";");
    std::string channel =
        crd ? "o1 * " + std::to_string(b * b) + " + bh * " + bs + " + bw"
            : "(bh * " + bs + " + bw) * " + std::to_string(c) + " + o1";
    src = {"o0", "(" + channel + ")", "(o2 / " + bs + ")", "(o3 / " + bs + ")"};
  } else {
    // space_to_depth: out channel (bh * b + bw) * C + c.
    int64_t c = inShape[1];
    e.line("const long long c = o1 % " + Twine(c) + ", bhw = o1 / " + Twine(c) +
           ";");
    src = {"o0", "c", "(o2 * " + bs + " + bhw / " + bs + ")",
           "(o3 * " + bs + " + bhw % " + bs + ")"};
  }
  e.line("out0[i] = in0[" + offsetExpr(src, inStrides) + "];");
  e.close();
  return success();
}

LogicalResult emitTrilu(KernelEmitter &e) {
  ArrayRef<int64_t> shape = e.resultShape();
  if (shape.size() < 2)
    return e.fail("input must have rank at least 2");
  bool upper = e.as<graph::TriluOp>().getUpper() != 0;
  int64_t rank = shape.size();
  openOutputLoop(e);
  e.line("const long long k = " +
         (e.hasInput(1) ? "static_cast<long long>(in1[0])" : std::string("0")) +
         ";");
  e.line("const long long diagonal = o" + Twine(rank - 1) + " - o" +
         Twine(rank - 2) + ";");
  e.line(std::string("out0[i] = diagonal ") + (upper ? ">=" : "<=") +
         " k ? in0[i] : gc_cvt<" + cxxType(e.resultType().getElementType()) +
         ">(0);");
  e.close();
  return success();
}

LogicalResult emitOneHot(KernelEmitter &e) {
  ArrayRef<int64_t> outShape = e.resultShape();
  int64_t rank = outShape.size();
  std::optional<int64_t> axis =
      normalizeAxis(e.as<graph::OneHotOp>().getAxis(), rank);
  if (!axis)
    return e.fail("axis is out of range");
  int64_t depth = outShape[*axis];
  openOutputLoop(e);
  SmallVector<std::string> at = coordNames("o", 0, *axis);
  at.append(coordNames("o", *axis + 1, rank));
  e.line("const long long idx = static_cast<long long>(" +
         e.load(0, offsetExpr(at, contiguousStrides(e.inputShape(0)))) + ");");
  // ONNX: an index outside [-depth, depth) gives a row of off values, not an
  // error; it addresses no memory either way.
  e.line("out0[i] = gc_wrap(idx, " + Twine(depth) + ") == o" + Twine(*axis) +
         " ? in2[1] : in2[0];");
  e.close();
  return success();
}

LogicalResult emitEyeLike(KernelEmitter &e) {
  if (e.resultShape().size() != 2)
    return e.fail("input must be 2-d");
  int64_t k = e.as<graph::EyeLikeOp>().getK();
  openOutputLoop(e);
  e.line(e.store(0, "i", ("o1 - o0 == " + Twine(k) + " ? 1 : 0").str()));
  e.close();
  return success();
}

LogicalResult emitRange(KernelEmitter &e) {
  std::string t = computeType(e.resultType().getElementType());
  e.openLinearLoop(numElements(e.resultShape()));
  e.line(e.store(
      0, "i",
      (e.load(0, "0") + " + static_cast<" + t + ">(i) * " + e.load(2, "0"))));
  e.close();
  return success();
}

LogicalResult emitReverseSequence(KernelEmitter &e) {
  int64_t rank = e.resultShape().size();
  auto reverse = e.as<graph::ReverseSequenceOp>();
  std::optional<int64_t> batchAxis =
      normalizeAxis(reverse.getBatchAxis(), rank);
  std::optional<int64_t> timeAxis = normalizeAxis(reverse.getTimeAxis(), rank);
  if (!batchAxis || !timeAxis || *batchAxis == *timeAxis)
    return e.fail("batch_axis and time_axis must be distinct valid axes");
  openOutputLoop(e);
  std::string tc = "o" + std::to_string(*timeAxis);
  int64_t steps = e.resultShape()[*timeAxis];
  e.line("long long length = static_cast<long long>(in1[o" + Twine(*batchAxis) +
         "]);");
  // A length above the time dim would read past it: reported, and the
  // sequence is then left as is.
  e.open("if (length < 0 || length > " + Twine(steps) + ") {");
  e.line(e.report("length", 0, steps + 1,
                  KernelEmitter::Reported::SequenceLength));
  e.line("length = 0;");
  e.close();
  SmallVector<std::string> src = coordNames("o", 0, rank);
  src[*timeAxis] =
      "(" + tc + " < length ? length - 1 - " + tc + " : " + tc + ")";
  e.line("out0[i] = in0[" +
         offsetExpr(src, contiguousStrides(e.resultShape())) + "];");
  e.close();
  return success();
}

/// Writes compile-time values with a single thread.
LogicalResult emitConstantValues(KernelEmitter &e, ArrayRef<int64_t> values) {
  e.setLaunch({1}, {1});
  e.line("const long long values[" + Twine(std::max<size_t>(values.size(), 1)) +
         "] = {" +
         llvm::join(
             llvm::map_range(
                 values, [](int64_t v) { return std::to_string(v) + "LL"; }),
             ", ") +
         "};");
  e.open("for (int i = 0; i < " + Twine(values.size()) + "; ++i) {");
  e.line("out0[i] = values[i];");
  e.close();
  return success();
}

LogicalResult emitShape(KernelEmitter &e) {
  ArrayRef<int64_t> shape = e.inputShape(0);
  int64_t rank = shape.size();
  auto clampIndex = [&](int64_t v) {
    return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank);
  };
  auto shapeOp = e.as<graph::ShapeOp>();
  int64_t start = clampIndex(shapeOp.getStart());
  int64_t end = clampIndex(shapeOp.getEnd().value_or(rank));
  SmallVector<int64_t> dims;
  for (int64_t k = start; k < end; ++k)
    dims.push_back(shape[k]);
  return emitConstantValues(e, dims);
}

LogicalResult emitConstantOfShape(KernelEmitter &e) {
  std::string t = computeType(e.resultType().getElementType());
  double value = 0;
  if (ElementsAttr attr = e.as<graph::ConstantOfShapeOp>().getValueAttr()) {
    if (attr.getNumElements() != 1)
      return e.fail("value must hold exactly one element");
    if (isa<FloatType>(attr.getElementType()))
      value = (*attr.value_begin<APFloat>()).convertToDouble();
    else if (attr.getElementType().isUnsignedInteger())
      value = static_cast<double>((*attr.value_begin<APInt>()).getZExtValue());
    else
      value = static_cast<double>((*attr.value_begin<APInt>()).getSExtValue());
  }
  e.openLinearLoop(numElements(e.resultShape()));
  e.line(e.store(0, "i", literal(value, t)));
  e.close();
  return success();
}

} // namespace

bool isDataMovement(OperationName name) {
  return isOneOf<
      graph::ReshapeOp, graph::FlattenOp, graph::SqueezeOp, graph::UnsqueezeOp,
      graph::TransposeOp, graph::SliceOp, graph::ExpandOp, graph::TileOp,
      graph::ConcatOp, graph::SplitOp, graph::PadOp, graph::GatherOp,
      graph::GatherElementsOp, graph::GatherNdOp, graph::ScatterElementsOp,
      graph::ScatterNdOp, graph::DepthToSpaceOp, graph::SpaceToDepthOp,
      graph::TriluOp, graph::OneHotOp, graph::EyeLikeOp, graph::RangeOp,
      graph::ReverseSequenceOp, graph::ShapeOp, graph::SizeOp,
      graph::ConstantOfShapeOp, graph::ResizeOp, graph::GridSampleOp,
      graph::AffineGridOp, graph::RoiAlignOp, graph::DftOp, graph::NonZeroOp,
      graph::CompressOp, graph::NonMaxSuppressionOp, graph::UniqueOp>(name);
}

LogicalResult emitDataMovement(KernelEmitter &e) {
  using namespace graph;
  return llvm::TypeSwitch<Operation *, LogicalResult>(e.getOp())
      .Case<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(
          [&](Operation *) { return emitCopy(e); })
      .Case([&](TransposeOp) { return emitTranspose(e); })
      .Case([&](NonZeroOp) { return emitNonZero(e); })
      .Case([&](CompressOp) { return emitCompress(e); })
      .Case([&](NonMaxSuppressionOp) { return emitNonMaxSuppression(e); })
      .Case([&](UniqueOp) { return emitUnique(e); })
      .Case([&](SliceOp) { return emitSlice(e); })
      .Case([&](ExpandOp) { return emitExpand(e); })
      .Case([&](TileOp) { return emitTile(e); })
      .Case([&](ConcatOp) { return emitConcat(e); })
      .Case([&](SplitOp) { return emitSplit(e); })
      .Case([&](PadOp) { return emitPad(e); })
      .Case([&](GatherOp) { return emitGather(e); })
      .Case([&](GatherElementsOp) { return emitGatherElements(e); })
      .Case([&](GatherNdOp) { return emitGatherND(e); })
      .Case([&](ScatterElementsOp) { return emitScatterElements(e); })
      .Case([&](ScatterNdOp) { return emitScatterND(e); })
      .Case(
          [&](DepthToSpaceOp) { return emitDepthToSpace(e, /*toSpace=*/true); })
      .Case([&](SpaceToDepthOp) {
        return emitDepthToSpace(e, /*toSpace=*/false);
      })
      .Case([&](TriluOp) { return emitTrilu(e); })
      .Case([&](OneHotOp) { return emitOneHot(e); })
      .Case([&](EyeLikeOp) { return emitEyeLike(e); })
      .Case([&](RangeOp) { return emitRange(e); })
      .Case([&](ReverseSequenceOp) { return emitReverseSequence(e); })
      .Case([&](ShapeOp) { return emitShape(e); })
      .Case([&](SizeOp) {
        return emitConstantValues(e, {numElements(e.inputShape(0))});
      })
      .Case([&](ConstantOfShapeOp) { return emitConstantOfShape(e); })
      .Case([&](GridSampleOp) { return emitGridSample(e); })
      .Case([&](AffineGridOp) { return emitAffineGrid(e); })
      .Case([&](RoiAlignOp) { return emitRoiAlign(e); })
      .Case([&](DftOp) { return emitDft(e); })
      .Default([&](Operation *) { return emitResize(e); });
}

} // namespace graphc::codegen::cuda
