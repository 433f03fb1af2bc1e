//===- DataDependent.cpp - NonZero, Compress, NMS, Unique host kernels ----===//
//
// Ops whose result extents the run decides. Each writes its result as a
// tensor of the output's (bound) dims whose leading corner holds the
// result, zeros elsewhere, and its last output, an i64 scalar, the extent
// it found (GraphDataDependentOps.td).
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"

#include <algorithm>
#include <cstring>

using namespace graphc::hk;

namespace {
int checkCount(KernelContext &ctx, int output) {
  const gc_tensor &count = ctx.out(output);
  if (count.dtype != GC_DTYPE_I64 || numElements(count) != 1)
    return ctx.fail("the count output must be one i64 element");
  return 0;
}
} // namespace

GC_KERNEL(non_zero) {
  GC_TRY(ctx.expect(1, 2));
  const gc_tensor &x = ctx.in(0);
  gc_tensor &indices = ctx.out(0);
  GC_TRY(checkCount(ctx, 1));
  if (indices.dtype != GC_DTYPE_I64 || indices.rank != 2 ||
      indices.dims[0] != x.rank)
    return ctx.fail("indices must be i64 [%d, bound]", x.rank);
  int64_t bound = indices.dims[1], total = numElements(x);
  auto *out = static_cast<int64_t *>(indices.data);
  std::memset(out, 0, sizeof(int64_t) * x.rank * bound);
  int64_t found = 0;
  GC_TRY(dispatch<kAll>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = static_cast<const T *>(x.data);
    Dims at;
    at.rank = x.rank;
    for (int64_t i = 0; i < total; ++i, nextIndex(at.v, x.dims, x.rank)) {
      if (!(toArith(in[i]) != toArith(T{})))
        continue;
      if (found == bound)
        return ctx.fail("more than the bound of %lld nonzero elements",
                        static_cast<long long>(bound));
      for (int d = 0; d < x.rank; ++d)
        out[d * bound + found] = at[d];
      ++found;
    }
    return 0;
  }));
  *static_cast<int64_t *>(ctx.out(1).data) = found;
  return 0;
}

GC_KERNEL_ATTRS(compress, Compress, a) {
  GC_TRY(ctx.expect(2, 2));
  const gc_tensor &input = ctx.in(0), &condition = ctx.in(1);
  gc_tensor &output = ctx.out(0);
  GC_TRY(checkCount(ctx, 1));
  if (condition.rank != 1 || condition.dtype != GC_DTYPE_BOOL)
    return ctx.fail("condition must be a 1-d bool tensor");
  // Without an axis the input is read flattened: one line of single
  // elements. The output's extent along the line is the bound.
  int64_t outer = 1, len = numElements(input), inner = 1, bound = 0;
  Dims expected;
  if (a.axis) {
    int axis;
    GC_TRY(ctx.normalizeAxis(*a.axis, input.rank, axis));
    splitAxis(input, axis, outer, len, inner);
    expected = Dims::of(input);
    if (output.rank == input.rank)
      expected[axis] = bound = output.dims[axis];
  } else {
    bound = output.rank == 1 ? output.dims[0] : 0;
    expected.push(bound);
  }
  GC_TRY(ctx.checkOutput(0, input.dtype, expected));
  int64_t length = condition.dims[0];
  if (length > len)
    return ctx.fail("condition has %lld elements, more than the %lld it "
                    "selects from",
                    static_cast<long long>(length), static_cast<long long>(len));
  const auto *keep = static_cast<const bool *>(condition.data);
  int64_t found = 0;
  for (int64_t j = 0; j < length; ++j)
    found += keep[j] ? 1 : 0;
  if (found > bound)
    return ctx.fail("selects %lld, more than the bound of %lld",
                    static_cast<long long>(found), static_cast<long long>(bound));
  size_t size = gc_dtype_size(input.dtype);
  const auto *in = static_cast<const char *>(input.data);
  auto *out = static_cast<char *>(output.data);
  std::memset(out, 0, size * numElements(output));
  for (int64_t o = 0; o < outer; ++o) {
    int64_t k = 0;
    for (int64_t j = 0; j < length; ++j) {
      if (!keep[j])
        continue;
      std::memcpy(out + (o * bound + k) * inner * size,
                  in + (o * len + j) * inner * size, inner * size);
      ++k;
    }
  }
  *static_cast<int64_t *>(ctx.out(1).data) = found;
  return 0;
}

namespace {
/// A box as onnxruntime's NonMaxSuppression holds it: its extent along
/// each axis and its area, from the corner form (either corner first) or
/// the centre form. lib/Codegen/CUDA/EmitDataDependent.cpp computes the same
/// in the same float operations.
struct NmsBox {
  float yMin, xMin, yMax, xMax, area;
};

/// onnxruntime's MaxMin: the order of `a` and `b` (NaN decides as >= does).
void minMax(float a, float b, float &low, float &high) {
  low = a >= b ? b : a;
  high = a >= b ? a : b;
}

NmsBox nmsBox(const float *box, bool centerPoint) {
  NmsBox r;
  if (!centerPoint) {
    minMax(box[1], box[3], r.xMin, r.xMax);
    minMax(box[0], box[2], r.yMin, r.yMax);
    r.area = (r.yMax - r.yMin) * (r.xMax - r.xMin);
  } else {
    float halfWidth = box[2] / 2, halfHeight = box[3] / 2;
    r.area = box[2] * box[3];
    r.xMin = box[0] - halfWidth;
    r.xMax = box[0] + halfWidth;
    r.yMin = box[1] - halfHeight;
    r.yMax = box[1] + halfHeight;
  }
  return r;
}

/// Whether `selected` suppresses `candidate`: their IOU is above the
/// threshold. std::max and std::min as onnxruntime takes them (the
/// candidate first).
bool suppresses(const NmsBox &candidate, const NmsBox &selected,
                float threshold) {
  float xMin = std::max(candidate.xMin, selected.xMin);
  float xMax = std::min(candidate.xMax, selected.xMax);
  if (xMax <= xMin)
    return false;
  float yMin = std::max(candidate.yMin, selected.yMin);
  float yMax = std::min(candidate.yMax, selected.yMax);
  if (yMax <= yMin)
    return false;
  float intersection = (xMax - xMin) * (yMax - yMin);
  if (intersection <= 0.0f)
    return false;
  float unionArea = candidate.area + selected.area - intersection;
  return intersection / unionArea > threshold;
}

/// The value of the one-element input `i` of dtype `dtype`, if present.
int readOne(KernelContext &ctx, int i, int32_t dtype, const char *what,
            bool &present, const void *&value) {
  present = ctx.has(i);
  if (!present)
    return 0;
  const gc_tensor &t = ctx.in(i);
  if (t.dtype != dtype || numElements(t) != 1)
    return ctx.fail("%s must be one %s element", what,
                    dtype == GC_DTYPE_I64 ? "i64" : "f32");
  value = t.data;
  return 0;
}
} // namespace

GC_KERNEL_ATTRS(non_max_suppression, NonMaxSuppression, a) {
  GC_TRY(ctx.expect(2, 2));
  const gc_tensor &boxes = ctx.in(0), &scores = ctx.in(1);
  gc_tensor &selected = ctx.out(0);
  GC_TRY(checkCount(ctx, 1));
  if (boxes.dtype != GC_DTYPE_F32 || scores.dtype != GC_DTYPE_F32)
    return ctx.fail("boxes and scores must be f32");
  if (boxes.rank != 3 || scores.rank != 3 || boxes.dims[2] != 4 ||
      boxes.dims[0] != scores.dims[0] || boxes.dims[1] != scores.dims[2])
    return ctx.fail("boxes must be [batches, boxes, 4] and scores [batches, "
                    "classes, boxes]");
  if (a.centerPointBox != 0 && a.centerPointBox != 1)
    return ctx.fail("center_point_box must be 0 or 1");
  if (selected.dtype != GC_DTYPE_I64 || selected.rank != 2 ||
      selected.dims[1] != 3)
    return ctx.fail("selected_indices must be i64 [bound, 3]");
  bool hasLimit, hasIou, hasScore;
  const void *limitData = nullptr, *iouData = nullptr, *scoreData = nullptr;
  GC_TRY(readOne(ctx, 2, GC_DTYPE_I64, "max_output_boxes_per_class", hasLimit,
                 limitData));
  GC_TRY(readOne(ctx, 3, GC_DTYPE_F32, "iou_threshold", hasIou, iouData));
  GC_TRY(readOne(ctx, 4, GC_DTYPE_F32, "score_threshold", hasScore,
                 scoreData));
  // Absent or at most 0: nothing is selected (ONNX's default is 0).
  int64_t limit =
      hasLimit ? std::max<int64_t>(*static_cast<const int64_t *>(limitData), 0)
               : 0;
  float iou = hasIou ? *static_cast<const float *>(iouData) : 0.0f;
  float minScore = hasScore ? *static_cast<const float *>(scoreData) : 0.0f;
  if (!(iou >= 0.0f && iou <= 1.0f))
    return ctx.failValue("iou_threshold %g is outside [0, 1]",
                         static_cast<double>(iou));
  int64_t batches = scores.dims[0], classes = scores.dims[1],
          count = scores.dims[2], bound = selected.dims[0];
  auto *out = static_cast<int64_t *>(selected.data);
  std::memset(out, 0, sizeof(int64_t) * 3 * bound);
  const auto *boxData = static_cast<const float *>(boxes.data);
  const auto *scoreAll = static_cast<const float *>(scores.data);
  int64_t kept = std::min(limit, count);
  Scratch<int64_t> order;
  Scratch<NmsBox> chosen;
  GC_TRY(order.allocate(ctx, count, "the candidates"));
  GC_TRY(chosen.allocate(ctx, kept, "the selected boxes"));
  int64_t found = 0;
  for (int64_t b = 0; b < batches && kept > 0; ++b) {
    const float *batchBoxes = boxData + b * count * 4;
    for (int64_t c = 0; c < classes; ++c) {
      const float *s = scoreAll + (b * classes + c) * count;
      // The candidates in descending score, ties by ascending index: a
      // strict order, as NaN scores are never candidates.
      int64_t candidates = 0;
      for (int64_t i = 0; i < count; ++i)
        if (!std::isnan(s[i]) && (!hasScore || s[i] > minScore))
          order.data()[candidates++] = i;
      std::sort(order.data(), order.data() + candidates,
                [&](int64_t x, int64_t y) {
                  return s[x] > s[y] || (s[x] == s[y] && x < y);
                });
      int64_t picked = 0;
      for (int64_t k = 0; k < candidates && picked < kept; ++k) {
        int64_t index = order.data()[k];
        NmsBox box = nmsBox(batchBoxes + index * 4, a.centerPointBox);
        bool suppressed = false;
        for (int64_t j = 0; j < picked && !suppressed; ++j)
          suppressed = suppresses(box, chosen.data()[j], iou);
        if (suppressed)
          continue;
        if (found == bound)
          return ctx.fail("selects more than the bound of %lld boxes",
                          static_cast<long long>(bound));
        out[found * 3] = b;
        out[found * 3 + 1] = c;
        out[found * 3 + 2] = index;
        ++found;
        chosen.data()[picked++] = box;
      }
    }
  }
  *static_cast<int64_t *>(ctx.out(1).data) = found;
  return 0;
}

namespace {
/// The order Unique sorts by: NaNs equal each other and follow every
/// number; otherwise <, so 0 and -0 are equal.
template <typename A> int compareScalars(A x, A y) {
  if constexpr (std::is_floating_point_v<A>) {
    bool xNan = std::isnan(x), yNan = std::isnan(y);
    if (xNan || yNan)
      return xNan == yNan ? 0 : (xNan ? 1 : -1);
  }
  return x < y ? -1 : (y < x ? 1 : 0);
}
} // namespace

GC_KERNEL_ATTRS(unique, Unique, a) {
  GC_TRY(ctx.expect(1, 5));
  const gc_tensor &x = ctx.in(0);
  GC_TRY(checkCount(ctx, 4));
  if (a.sorted != 0 && a.sorted != 1)
    return ctx.fail("sorted must be 0 or 1");
  // Positions along the axis (each a slice of outer x inner elements), or
  // the flattened elements without one.
  int64_t outer = 1, len = numElements(x), inner = 1, bound = 0;
  const gc_tensor &indices = ctx.out(1);
  if (indices.rank == 1)
    bound = indices.dims[0];
  Dims yDims;
  if (a.axis) {
    int axis;
    GC_TRY(ctx.normalizeAxis(*a.axis, x.rank, axis));
    splitAxis(x, axis, outer, len, inner);
    yDims = Dims::of(x);
    yDims[axis] = bound;
  } else {
    yDims.push(bound);
  }
  Dims sized, positions;
  sized.push(bound);
  positions.push(len);
  GC_TRY(ctx.checkOutput(0, x.dtype, yDims));
  GC_TRY(ctx.checkOutput(1, GC_DTYPE_I64, sized));
  GC_TRY(ctx.checkOutput(2, GC_DTYPE_I64, positions));
  GC_TRY(ctx.checkOutput(3, GC_DTYPE_I64, sized));
  size_t size = gc_dtype_size(x.dtype);
  const auto *in = static_cast<const char *>(x.data);
  auto *y = static_cast<char *>(ctx.out(0).data);
  auto *firstOut = static_cast<int64_t *>(ctx.out(1).data);
  auto *inverse = static_cast<int64_t *>(ctx.out(2).data);
  auto *counts = static_cast<int64_t *>(ctx.out(3).data);
  std::memset(y, 0, size * numElements(ctx.out(0)));
  std::memset(firstOut, 0, sizeof(int64_t) * bound);
  std::memset(counts, 0, sizeof(int64_t) * bound);
  // order: the positions sorted (equal ones by position); group:
  // each position's group, numbered in sorted order; first, members: each
  // group's first position and size; rank: each group's place in y.
  Scratch<int64_t> order, group, first, members, rank;
  GC_TRY(order.allocate(ctx, len, "the sorted positions"));
  GC_TRY(group.allocate(ctx, len, "the groups"));
  GC_TRY(first.allocate(ctx, len, "the first positions"));
  GC_TRY(members.allocate(ctx, len, "the counts"));
  GC_TRY(rank.allocate(ctx, len, "the ranks"));
  int64_t groups = 0;
  GC_TRY(dispatch<kAll>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *data = reinterpret_cast<const T *>(in);
    // Slices compare lexicographically in row-major order.
    auto compare = [&](int64_t i, int64_t j) {
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t r = 0; r < inner; ++r)
          if (int sign = compareScalars(toArith(data[(o * len + i) * inner + r]),
                                        toArith(data[(o * len + j) * inner + r])))
            return sign;
      return 0;
    };
    for (int64_t i = 0; i < len; ++i)
      order.data()[i] = i;
    std::sort(order.data(), order.data() + len, [&](int64_t i, int64_t j) {
      int sign = compare(i, j);
      return sign < 0 || (sign == 0 && i < j);
    });
    for (int64_t k = 0; k < len; ++k) {
      int64_t position = order.data()[k];
      if (k == 0 || compare(order.data()[k - 1], position) != 0) {
        first.data()[groups] = position;
        members.data()[groups] = 0;
        ++groups;
      }
      group.data()[position] = groups - 1;
      ++members.data()[groups - 1];
    }
    return 0;
  }));
  if (groups > bound)
    return ctx.fail("finds %lld distinct values, more than the bound of %lld",
                    static_cast<long long>(groups),
                    static_cast<long long>(bound));
  // Sorted: the groups as numbered; unsorted: in the order of their first
  // positions.
  int64_t next = 0;
  for (int64_t i = 0; i < len; ++i) {
    int64_t g = group.data()[i];
    if (first.data()[g] == i)
      rank.data()[g] = a.sorted ? g : next++;
  }
  for (int64_t g = 0; g < groups; ++g) {
    int64_t r = rank.data()[g], from = first.data()[g];
    firstOut[r] = from;
    counts[r] = members.data()[g];
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(y + (o * bound + r) * inner * size,
                  in + (o * len + from) * inner * size, inner * size);
  }
  for (int64_t i = 0; i < len; ++i)
    inverse[i] = rank.data()[group.data()[i]];
  *static_cast<int64_t *>(ctx.out(4).data) = groups;
  return 0;
}
