//===- KernelSupport.cpp - shared helpers of the host kernels -------------===//

#include "lib/HostKernels/KernelSupport.h"

#include "lib/Artifact/OnnxDtype.h"
#include "lib/Support/Axis.h"

#include <cstdarg>

namespace graphc::hk {

int fail(char *err, size_t len, const char *format, ...) {
  if (err && len) {
    va_list args;
    va_start(args, format);
    std::vsnprintf(err, len, format, args);
    va_end(args);
  }
  return 1;
}

const gc_attr *findAttr(const gc_attrs *attrs, const char *name) {
  if (!attrs || !attrs->items)
    return nullptr;
  for (int32_t i = 0; i < attrs->count; ++i)
    if (std::strcmp(attrs->items[i].name, name) == 0)
      return &attrs->items[i];
  return nullptr;
}

const char *formatDims(const int64_t *dims, int rank, char *buf, size_t len) {
  size_t used = 0;
  auto append = [&](const char *format, long long value, bool withValue) {
    if (used >= len)
      return;
    int n = withValue ? std::snprintf(buf + used, len - used, format, value)
                      : std::snprintf(buf + used, len - used, "%s", format);
    if (n > 0)
      used += static_cast<size_t>(n);
  };
  append("[", 0, false);
  for (int i = 0; i < rank; ++i)
    append(i ? ",%lld" : "%lld", static_cast<long long>(dims[i]), true);
  append("]", 0, false);
  return buf;
}

int KernelContext::validate() {
  if (numInputs < 0 || numOutputs < 0 || (numInputs && !inputs) ||
      (numOutputs && !outputs))
    return fail("null operand arrays");
  for (int32_t i = 0; i < numInputs; ++i)
    if (inputs[i].rank > kMaxRank || (inputs[i].rank > 0 && !inputs[i].dims))
      return fail("input %d has an unsupported rank %d", i, inputs[i].rank);
  for (int32_t i = 0; i < numOutputs; ++i)
    if (outputs[i].rank < 0 || outputs[i].rank > kMaxRank ||
        (outputs[i].rank > 0 && !outputs[i].dims))
      return fail("output %d has an unsupported rank %d", i, outputs[i].rank);
  return 0;
}

namespace {
/// Writes "<op>: <message>" into `err` and returns `status`.
int failWith(const KernelContext &ctx, int status, const char *format,
             va_list args) {
  if (!ctx.err || !ctx.errLen)
    return status;
  int prefix = std::snprintf(ctx.err, ctx.errLen, "%s: ", ctx.op);
  if (prefix < 0 || static_cast<size_t>(prefix) >= ctx.errLen)
    return status;
  std::vsnprintf(ctx.err + prefix, ctx.errLen - prefix, format, args);
  return status;
}
} // namespace

int KernelContext::fail(const char *format, ...) {
  va_list args;
  va_start(args, format);
  int status = failWith(*this, 1, format, args);
  va_end(args);
  return status;
}

int KernelContext::failValue(const char *format, ...) {
  va_list args;
  va_start(args, format);
  int status = failWith(*this, GC_STATUS_BAD_VALUE, format, args);
  va_end(args);
  return status;
}

static const char *dtypeName(int32_t dtype) {
  switch (dtype) {
  case GC_DTYPE_F32:
    return "f32";
  case GC_DTYPE_F64:
    return "f64";
  case GC_DTYPE_F16:
    return "f16";
  case GC_DTYPE_BF16:
    return "bf16";
  case GC_DTYPE_I8:
    return "i8";
  case GC_DTYPE_I16:
    return "i16";
  case GC_DTYPE_I32:
    return "i32";
  case GC_DTYPE_I64:
    return "i64";
  case GC_DTYPE_U8:
    return "ui8";
  case GC_DTYPE_U16:
    return "ui16";
  case GC_DTYPE_U32:
    return "ui32";
  case GC_DTYPE_U64:
    return "ui64";
  case GC_DTYPE_BOOL:
    return "i1";
  default:
    return "unknown";
  }
}

int KernelContext::unsupportedDtype(const char *what, int32_t dtype) {
  return fail("unsupported %s dtype %s (%d)", what, dtypeName(dtype), dtype);
}

int KernelContext::expect(int minInputs, int wantOutputs) {
  if (numInputs < minInputs)
    return fail("expected at least %d inputs, got %d", minInputs, numInputs);
  for (int i = 0; i < minInputs; ++i)
    if (inputs[i].rank < 0 || (!inputs[i].data && numElements(inputs[i])))
      return fail("required input %d is missing", i);
  if (numOutputs != wantOutputs)
    return fail("expected %d outputs, got %d", wantOutputs, numOutputs);
  for (int i = 0; i < numOutputs; ++i)
    if (!outputs[i].data && numElements(outputs[i]))
      return fail("output %d has no storage", i);
  return 0;
}

int KernelContext::checkOutput(int i, int32_t dtype, const Dims &dims) {
  const gc_tensor &t = outputs[i];
  if (t.dtype != dtype)
    return fail("output %d has dtype %s, expected %s", i, dtypeName(t.dtype),
                dtypeName(dtype));
  bool same = t.rank == dims.rank;
  for (int d = 0; same && d < dims.rank; ++d)
    same = t.dims[d] == dims[d];
  if (!same) {
    char got[256], want[256];
    return fail("output %d has shape %s, expected %s", i,
                formatDims(t.dims, t.rank, got, sizeof(got)),
                formatDims(dims.v, dims.rank, want, sizeof(want)));
  }
  return 0;
}

int KernelContext::checkBoundedOutput(int i, int32_t dtype, const Dims &dims) {
  const gc_tensor &t = outputs[i];
  if (t.dtype != dtype)
    return fail("output %d has dtype %s, expected %s", i, dtypeName(t.dtype),
                dtypeName(dtype));
  bool holds = t.rank == dims.rank;
  for (int d = 0; holds && d < dims.rank; ++d)
    holds = t.dims[d] >= dims[d];
  if (!holds) {
    char got[256], want[256];
    return fail("output %d has shape %s, which does not hold %s", i,
                formatDims(t.dims, t.rank, got, sizeof(got)),
                formatDims(dims.v, dims.rank, want, sizeof(want)));
  }
  return 0;
}

int KernelContext::checkSameDtype(int i, int32_t dtype, const char *what) {
  if (inputs[i].dtype != dtype)
    return fail("%s has dtype %s, expected %s", what,
                dtypeName(inputs[i].dtype), dtypeName(dtype));
  return 0;
}

namespace {

/// The attribute `name` of `ctx` if it has kind `kind` (or `alsoKind`);
/// null with `status` 0 when it is absent and optional, else with `status`
/// set by a failure naming what was expected.
const gc_attr *lookupAttr(KernelContext &ctx, const char *name,
                          AttrPresence presence, const char *expected,
                          int &status, int32_t kind, int32_t alsoKind = -1) {
  status = 0;
  const gc_attr *attr = findAttr(ctx.attrs, name);
  if (!attr) {
    if (presence == AttrPresence::required)
      status = ctx.fail("attribute '%s' is required", name);
    return nullptr;
  }
  if (attr->kind != kind && attr->kind != alsoKind) {
    status = ctx.fail("attribute '%s' must be %s", name, expected);
    return nullptr;
  }
  return attr;
}

/// Reads attribute `name` of kind `kind` into `value` as `extract` gives it;
/// `value` stays as it is when the attribute is absent and optional.
template <typename T, typename Extract>
int readOfKind(KernelContext &ctx, const char *name, AttrPresence presence,
               const char *expected, int32_t kind, T &value, Extract extract) {
  int status;
  if (const gc_attr *attr =
          lookupAttr(ctx, name, presence, expected, status, kind))
    value = extract(*attr);
  return status;
}

/// Reads an attribute with no default into `value`, left empty when absent.
template <typename T>
int readOptionalAttr(KernelContext &ctx, const char *name,
                     std::optional<T> &value, AttrPresence presence) {
  T read{};
  const bool present = findAttr(ctx.attrs, name) != nullptr;
  GC_TRY(ctx.readAttr(name, read, presence));
  if (present)
    value = read;
  return 0;
}

} // namespace

int KernelContext::readAttr(const char *name, int64_t &value,
                            AttrPresence presence) {
  return readOfKind(*this, name, presence, "an integer", GC_ATTR_INT, value,
                    [](const gc_attr &a) { return a.i; });
}

int KernelContext::readAttr(const char *name, std::optional<int64_t> &value,
                            AttrPresence presence) {
  return readOptionalAttr(*this, name, value, presence);
}

int KernelContext::readAttr(const char *name, double &value,
                            AttrPresence presence) {
  return readOfKind(*this, name, presence, "a float", GC_ATTR_FLOAT, value,
                    [](const gc_attr &a) { return a.f; });
}

int KernelContext::readAttr(const char *name, std::optional<double> &value,
                            AttrPresence presence) {
  return readOptionalAttr(*this, name, value, presence);
}

int KernelContext::readAttr(const char *name, const char *&value,
                            AttrPresence presence) {
  int status;
  if (const gc_attr *attr = lookupAttr(*this, name, presence, "a string",
                                       status, GC_ATTR_STRING)) {
    if (!attr->s)
      return fail("attribute '%s' must be a string", name);
    value = attr->s;
  }
  return status;
}

int KernelContext::readAttr(const char *name, IntList &value,
                            AttrPresence presence) {
  return readOfKind(*this, name, presence, "a list of integers", GC_ATTR_INTS, value,
                    [](const gc_attr &a) { return IntList{a.ints, a.count, true}; });
}

int KernelContext::readAttr(const char *name, FloatList &value,
                            AttrPresence presence) {
  return readOfKind(*this, name, presence, "a list of floats", GC_ATTR_FLOATS, value,
                    [](const gc_attr &a) { return FloatList{a.floats, a.count, true}; });
}

int KernelContext::readAttr(const char *name, int32_t &value,
                            AttrPresence presence) {
  return readOfKind(*this, name, presence, "a type", GC_ATTR_TYPE, value,
                    [](const gc_attr &a) { return static_cast<int32_t>(a.i); });
}

int KernelContext::readAttr(const char *name, std::optional<int32_t> &value,
                            AttrPresence presence) {
  return readOptionalAttr(*this, name, value, presence);
}

int KernelContext::readAttr(const char *name, const gc_tensor *&value,
                            AttrPresence presence) {
  int status;
  if (const gc_attr *attr = lookupAttr(*this, name, presence, "a tensor",
                                       status, GC_ATTR_TENSOR)) {
    if (!attr->t)
      return fail("attribute '%s' must be a tensor", name);
    value = attr->t;
  }
  return status;
}

int KernelContext::normalizeAxis(int64_t axis, int rank, int &result) {
  std::optional<int64_t> normalized = graphc::normalizeAxis(axis, rank);
  if (!normalized)
    return fail("axis %lld is out of range for rank %d",
                static_cast<long long>(axis), rank);
  result = static_cast<int>(*normalized);
  return 0;
}

int KernelContext::readInts(int i, Dims &values, const char *what) {
  const gc_tensor &t = inputs[i];
  if (!isIndexDtype(t.dtype))
    return unsupportedDtype(what, t.dtype);
  if (t.rank > 1)
    return fail("%s must be a 1-D tensor", what);
  int64_t n = numElements(t);
  if (n > kMaxRank)
    return fail("%s has %lld entries, at most %d are supported", what,
                static_cast<long long>(n), kMaxRank);
  values.rank = static_cast<int>(n);
  for (int64_t k = 0; k < n; ++k)
    values[static_cast<int>(k)] = intAt(t, k);
  return 0;
}

int broadcastShapes(KernelContext &ctx, const gc_tensor *const *tensors,
                    int count, Dims &result) {
  int rank = 0;
  for (int k = 0; k < count; ++k)
    rank = tensors[k]->rank > rank ? tensors[k]->rank : rank;
  result.rank = rank;
  for (int d = 0; d < rank; ++d)
    result[d] = 1;
  for (int k = 0; k < count; ++k) {
    const gc_tensor &t = *tensors[k];
    int shift = rank - t.rank;
    for (int d = 0; d < t.rank; ++d) {
      int64_t &r = result[d + shift];
      int64_t dim = t.dims[d];
      if (dim == r || dim == 1)
        continue;
      if (r != 1) {
        char a[256], b[256];
        return ctx.fail("shapes %s and %s are not broadcast-compatible",
                        formatDims(result.v, result.rank, a, sizeof(a)),
                        formatDims(t.dims, t.rank, b, sizeof(b)));
      }
      r = dim;
    }
  }
  return 0;
}

Dims broadcastStrides(const gc_tensor &t, const Dims &shape) {
  Dims own = Dims::of(t).strides();
  Dims s;
  s.rank = shape.rank;
  int shift = shape.rank - t.rank;
  for (int d = 0; d < shape.rank; ++d) {
    int src = d - shift;
    s[d] = src < 0 || t.dims[src] == 1 ? 0 : own[src];
  }
  return s;
}

} // namespace graphc::hk

// gc_dtype is the artifact format's dtype table spelled for C (HostKernels.h
// travels alone into generated sources): the same numbers.
static_assert(
    GC_DTYPE_UNDEFINED == graphc::rt::kUndefined &&
    GC_DTYPE_F32 == graphc::rt::kFloat && GC_DTYPE_U8 == graphc::rt::kUint8 &&
    GC_DTYPE_I8 == graphc::rt::kInt8 && GC_DTYPE_U16 == graphc::rt::kUint16 &&
    GC_DTYPE_I16 == graphc::rt::kInt16 && GC_DTYPE_I32 == graphc::rt::kInt32 &&
    GC_DTYPE_I64 == graphc::rt::kInt64 && GC_DTYPE_BOOL == graphc::rt::kBool &&
    GC_DTYPE_F16 == graphc::rt::kFloat16 &&
    GC_DTYPE_F64 == graphc::rt::kDouble &&
    GC_DTYPE_U32 == graphc::rt::kUint32 &&
    GC_DTYPE_U64 == graphc::rt::kUint64 &&
    GC_DTYPE_BF16 == graphc::rt::kBfloat16 &&
    GC_DTYPE_F8E4M3FN == graphc::rt::kFloat8E4M3FN &&
    GC_DTYPE_F8E4M3FNUZ == graphc::rt::kFloat8E4M3FNUZ &&
    GC_DTYPE_F8E5M2 == graphc::rt::kFloat8E5M2 &&
    GC_DTYPE_F8E5M2FNUZ == graphc::rt::kFloat8E5M2FNUZ);

extern "C" size_t gc_dtype_size(int32_t dtype) {
  return graphc::rt::dtypeSize(dtype);
}
