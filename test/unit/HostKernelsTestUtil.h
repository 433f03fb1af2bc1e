//===- HostKernelsTestUtil.h - calling host kernels from tests --*- C++ -*-===//
#ifndef GRAPHC_TEST_UNIT_HOSTKERNELSTESTUTIL_H
#define GRAPHC_TEST_UNIT_HOSTKERNELSTESTUTIL_H

#include "lib/HostKernels/HostKernels.h"

#include <cstring>
#include <deque>
#include <string>
#include <vector>

namespace graphc::hk::test {

/// A tensor with owned dims and storage.
struct Buffer {
  int32_t dtype = GC_DTYPE_F32;
  std::vector<int64_t> dims;
  std::vector<char> bytes;

  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : dims)
      n *= d;
    return n;
  }
  gc_tensor tensor() {
    return gc_tensor{dtype, static_cast<int32_t>(dims.size()), dims.data(),
                     bytes.empty() ? nullptr : bytes.data()};
  }
  template <typename T> std::vector<T> values() const {
    std::vector<T> out(bytes.size() / sizeof(T));
    if (!out.empty())
      std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  }
};

template <typename T>
Buffer tensor(int32_t dtype, std::vector<int64_t> dims, std::vector<T> values) {
  Buffer b{dtype, std::move(dims), {}};
  b.bytes.resize(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(b.bytes.data(), values.data(), b.bytes.size());
  return b;
}
inline Buffer f32(std::vector<int64_t> dims, std::vector<float> values) {
  return tensor<float>(GC_DTYPE_F32, std::move(dims), std::move(values));
}
inline Buffer i64(std::vector<int64_t> dims, std::vector<int64_t> values) {
  return tensor<int64_t>(GC_DTYPE_I64, std::move(dims), std::move(values));
}
/// Uninitialised output storage of the given type and shape.
inline Buffer output(int32_t dtype, std::vector<int64_t> dims) {
  Buffer b{dtype, std::move(dims), {}};
  b.bytes.assign(static_cast<size_t>(b.count()) * gc_dtype_size(dtype), 0x5a);
  return b;
}

/// Attributes with owned storage.
class Attrs {
public:
  Attrs &i(const char *name, int64_t value) {
    gc_attr &a = add(name, GC_ATTR_INT);
    a.i = value;
    return *this;
  }
  Attrs &type(const char *name, int32_t dtype) {
    gc_attr &a = add(name, GC_ATTR_TYPE);
    a.i = dtype;
    return *this;
  }
  Attrs &f(const char *name, double value) {
    gc_attr &a = add(name, GC_ATTR_FLOAT);
    a.f = value;
    return *this;
  }
  Attrs &s(const char *name, const char *value) {
    gc_attr &a = add(name, GC_ATTR_STRING);
    a.s = strings.emplace_back(value).c_str();
    return *this;
  }
  Attrs &ints(const char *name, std::vector<int64_t> values) {
    gc_attr &a = add(name, GC_ATTR_INTS);
    auto &storage = intLists.emplace_back(std::move(values));
    a.ints = storage.data();
    a.count = static_cast<int64_t>(storage.size());
    return *this;
  }
  Attrs &t(const char *name, Buffer value) {
    gc_attr &a = add(name, GC_ATTR_TENSOR);
    Buffer &stored = tensors.emplace_back(std::move(value));
    a.t = &tensorViews.emplace_back(stored.tensor());
    return *this;
  }
  gc_attrs get() const {
    return gc_attrs{static_cast<int32_t>(items.size()), items.data()};
  }

private:
  gc_attr &add(const char *name, int32_t kind) {
    gc_attr a{};
    a.name = strings.emplace_back(name).c_str();
    a.kind = kind;
    items.push_back(a);
    return items.back();
  }
  std::deque<std::string> strings;
  std::deque<std::vector<int64_t>> intLists;
  std::deque<Buffer> tensors;
  std::deque<gc_tensor> tensorViews;
  std::vector<gc_attr> items;
};

/// Runs kernel `op`; a null input is an absent optional input. Returns the
/// kernel status and leaves its message in `error`.
inline int run(const char *op, std::vector<Buffer *> inputs,
               std::vector<Buffer *> outputs, const Attrs &attrs = Attrs(),
               std::string *error = nullptr) {
  gc_host_kernel_fn fn = gc_host_kernel_lookup(op);
  if (!fn) {
    if (error)
      *error = "no kernel";
    return -1;
  }
  std::vector<gc_tensor> ins, outs;
  for (Buffer *b : inputs)
    ins.push_back(b ? b->tensor()
                    : gc_tensor{GC_DTYPE_UNDEFINED, -1, nullptr, nullptr});
  for (Buffer *b : outputs)
    outs.push_back(b->tensor());
  gc_attrs a = attrs.get();
  char message[512] = {0};
  int status = fn(ins.data(), static_cast<int32_t>(ins.size()), outs.data(),
                  static_cast<int32_t>(outs.size()), &a, message,
                  sizeof(message));
  if (error)
    *error = message;
  return status;
}

} // namespace graphc::hk::test

#endif
