//===- Shape.cpp - shape-only and generator host kernels ------------------===//
//
// Kernels whose data is a plain copy (Reshape, Flatten, Squeeze, Unsqueeze),
// a broadcast copy (Expand), or generated from the shape alone (Shape, Size,
// ConstantOfShape, Range, EyeLike). Each re-derives the output shape from
// its inputs and attributes and checks it against the preallocated one.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"

using namespace graphc::hk;

namespace {

/// Copies input 0 into output 0 unchanged after checking the output shape.
int copyAs(KernelContext &ctx, const Dims &outDims) {
  const gc_tensor &x = ctx.in(0);
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  size_t elementSize = gc_dtype_size(x.dtype);
  if (!elementSize)
    return ctx.unsupportedDtype("input", x.dtype);
  size_t bytes = static_cast<size_t>(numElements(x)) * elementSize;
  if (bytes)
    std::memmove(ctx.out(0).data, x.data, bytes);
  return 0;
}

/// Reads an optional axes list from input `slot`.
int readAxes(KernelContext &ctx, int slot, Dims &axes, bool &present) {
  present = ctx.has(slot);
  return present ? ctx.readInts(slot, axes, "axes") : 0;
}

} // namespace

GC_KERNEL_ATTRS(constant_of_shape, ConstantOfShape, a) {
  GC_TRY(ctx.expect(1, 1));
  Dims dims;
  GC_TRY(ctx.readInts(0, dims, "shape"));
  for (int d = 0; d < dims.rank; ++d)
    if (dims[d] < 0)
      return ctx.fail("shape entries must be non-negative");
  const gc_tensor *value = a.value;
  int32_t dtype = value ? value->dtype : GC_DTYPE_F32;
  if (value && numElements(*value) != 1)
    return ctx.fail("value must hold exactly one element");
  GC_TRY(ctx.checkBoundedOutput(0, dtype, dims));
  size_t size = gc_dtype_size(dtype);
  if (!size)
    return ctx.unsupportedDtype("value", dtype);
  char *out = static_cast<char *>(ctx.out(0).data);
  // The whole output: a bound past `dims` holds the value too.
  int64_t n = numElements(ctx.out(0));
  if (!value) {
    std::memset(out, 0, static_cast<size_t>(n) * size);
    return 0;
  }
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(out + i * size, value->data, size);
  return 0;
}

GC_KERNEL_ATTRS(shape, Shape, a) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  int64_t rank = x.rank;
  auto clampIndex = [rank](int64_t v) {
    v = v < 0 ? v + rank : v;
    return v < 0 ? int64_t(0) : v > rank ? rank : v;
  };
  int64_t start = clampIndex(a.start);
  int64_t end = clampIndex(a.end.value_or(rank));
  Dims outDims;
  outDims.push(end > start ? end - start : 0);
  GC_TRY(ctx.checkOutput(0, GC_DTYPE_I64, outDims));
  int64_t *out = static_cast<int64_t *>(ctx.out(0).data);
  for (int64_t d = start; d < end; ++d)
    out[d - start] = x.dims[d];
  return 0;
}

GC_KERNEL(size) {
  GC_TRY(ctx.expect(1, 1));
  GC_TRY(ctx.checkOutput(0, GC_DTYPE_I64, Dims()));
  *static_cast<int64_t *>(ctx.out(0).data) = numElements(ctx.in(0));
  return 0;
}

GC_KERNEL_ATTRS(reshape, Reshape, a) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &x = ctx.in(0);
  Dims shape;
  GC_TRY(ctx.readInts(1, shape, "shape"));
  bool allowZero = a.allowzero != 0;
  Dims outDims;
  int inferred = -1;
  int64_t known = 1;
  for (int d = 0; d < shape.rank; ++d) {
    int64_t dim = shape[d];
    if (dim == 0 && !allowZero) {
      if (d >= x.rank)
        return ctx.fail("shape entry %d copies a dimension the input lacks", d);
      dim = x.dims[d];
    }
    if (dim == -1) {
      if (inferred >= 0)
        return ctx.fail("shape has more than one -1");
      inferred = d;
      dim = 1;
    } else if (dim < 0) {
      return ctx.fail("invalid shape entry %lld", static_cast<long long>(dim));
    }
    known *= dim;
    outDims.push(dim);
  }
  int64_t total = numElements(x);
  if (inferred >= 0) {
    if (known == 0 || total % known)
      return ctx.fail("cannot infer the -1 dimension");
    outDims[inferred] = total / known;
  } else if (known != total) {
    return ctx.fail("shape holds %lld elements, the input %lld",
                    static_cast<long long>(known), static_cast<long long>(total));
  }
  return copyAs(ctx, outDims);
}

GC_KERNEL_ATTRS(flatten, Flatten, a) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  int64_t axis = a.axis;
  if (axis < -x.rank || axis > x.rank)
    return ctx.fail("axis %lld is out of range", static_cast<long long>(axis));
  if (axis < 0)
    axis += x.rank;
  Dims outDims;
  outDims.push(1);
  outDims.push(1);
  for (int d = 0; d < x.rank; ++d)
    outDims[d < axis ? 0 : 1] *= x.dims[d];
  return copyAs(ctx, outDims);
}

GC_KERNEL(squeeze) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  Dims axes;
  bool present;
  GC_TRY(readAxes(ctx, 1, axes, present));
  bool drop[kMaxRank] = {};
  if (!present) {
    for (int d = 0; d < x.rank; ++d)
      drop[d] = x.dims[d] == 1;
  }
  for (int k = 0; k < axes.rank; ++k) {
    int axis;
    GC_TRY(ctx.normalizeAxis(axes[k], x.rank, axis));
    if (x.dims[axis] != 1)
      return ctx.fail("cannot squeeze dimension %d of size %lld", axis,
                      static_cast<long long>(x.dims[axis]));
    drop[axis] = true;
  }
  Dims outDims;
  for (int d = 0; d < x.rank; ++d)
    if (!drop[d])
      outDims.push(x.dims[d]);
  return copyAs(ctx, outDims);
}

GC_KERNEL(unsqueeze) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  Dims axes;
  bool present;
  GC_TRY(readAxes(ctx, 1, axes, present));
  if (!present)
    return ctx.fail("axes are required");
  int outRank = x.rank + axes.rank;
  if (outRank > kMaxRank)
    return ctx.fail("output rank %d is too large", outRank);
  bool inserted[kMaxRank] = {};
  for (int k = 0; k < axes.rank; ++k) {
    int axis;
    GC_TRY(markAxis(ctx, axes[k], outRank, inserted, axis));
  }
  Dims outDims;
  for (int d = 0, next = 0; d < outRank; ++d)
    outDims.push(inserted[d] ? 1 : x.dims[next++]);
  return copyAs(ctx, outDims);
}

GC_KERNEL(expand) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &x = ctx.in(0);
  Dims shape;
  GC_TRY(ctx.readInts(1, shape, "shape"));
  gc_tensor shapeTensor{x.dtype, shape.rank, shape.v, nullptr};
  const gc_tensor *both[2] = {&x, &shapeTensor};
  Dims outDims;
  GC_TRY(broadcastShapes(ctx, both, 2, outDims));
  GC_TRY(ctx.checkBoundedOutput(0, x.dtype, outDims));
  // Broadcast to the whole output: where it is a bound past the shape read,
  // x has 1 along that dim (the compiler checked), so its corner is right.
  Dims whole = Dims::of(ctx.out(0));
  for (int d = 0; d < whole.rank; ++d) {
    int xd = d - (whole.rank - x.rank);
    if (whole[d] != outDims[d] && xd >= 0 && x.dims[xd] != 1)
      return ctx.fail("cannot broadcast input dim %d to a bound of %lld", xd,
                      static_cast<long long>(whole[d]));
  }
  StridedLoop<2> loop;
  fillBroadcastLoop<2>({&x}, whole, loop);
  return dispatch<kAll>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *out = static_cast<T *>(ctx.out(0).data);
    const T *in = static_cast<const T *>(x.data);
    loop.forEach([&](const int64_t *offsets) { out[offsets[0]] = in[offsets[1]]; });
    return 0;
  });
}

GC_KERNEL(range) {
  GC_TRY(ctx.expect(3, 1));
  const gc_tensor &start = ctx.in(0);
  for (int i = 0; i < 3; ++i) {
    if (numElements(ctx.in(i)) != 1)
      return ctx.fail("start, limit and delta must be scalars");
    GC_TRY(ctx.checkSameDtype(i, start.dtype, "limit and delta"));
  }
  return dispatch<kF32 | kF64 | kI16 | kI32 | kI64>(
      ctx, start.dtype, "input", [&](auto tag) {
        using T = typename decltype(tag)::type;
        T first = *static_cast<const T *>(ctx.in(0).data);
        T limit = *static_cast<const T *>(ctx.in(1).data);
        T delta = *static_cast<const T *>(ctx.in(2).data);
        if (delta == T(0))
          return ctx.fail("delta must be non-zero");
        double steps = std::ceil((static_cast<double>(limit) -
                                  static_cast<double>(first)) /
                                 static_cast<double>(delta));
        Dims outDims;
        outDims.push(steps > 0 ? static_cast<int64_t>(steps) : 0);
        GC_TRY(ctx.checkBoundedOutput(0, start.dtype, outDims));
        T *out = static_cast<T *>(ctx.out(0).data);
        // Accumulate like the ONNX reference loop (start + i * delta); a
        // bound past the count holds zeros.
        for (int64_t i = 0; i < outDims[0]; ++i)
          out[i] = static_cast<T>(first + static_cast<T>(i) * delta);
        for (int64_t i = outDims[0]; i < ctx.out(0).dims[0]; ++i)
          out[i] = T(0);
        return 0;
      });
}

GC_KERNEL_ATTRS(eye_like, EyeLike, a) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  if (x.rank != 2)
    return ctx.fail("input must be 2-D");
  int32_t dtype = a.dtype.value_or(x.dtype);
  GC_TRY(ctx.checkOutput(0, dtype, Dims::of(x)));
  int64_t k = a.k, rows = x.dims[0], cols = x.dims[1];
  return dispatch<kAll>(ctx, dtype, "output", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *out = static_cast<T *>(ctx.out(0).data);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        out[i * cols + j] = fromArith<T>(j - i == k ? 1 : 0);
    return 0;
  });
}
