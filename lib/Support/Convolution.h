//===- Convolution.h - the one im2col convolution ---------------*- C++ -*-===//
//
// Header only and dependency free (standard C++), like Gemm.h beside it: the
// host kernels' Conv and ConvTranspose (lib/HostKernels/Conv.cpp) and the
// runtime's reference convolution (runtime/src/ReferenceConv.cpp) share it.
// A convolution of one image's group of channels, channels first, is im2col
// then graphc::gemm, over tiles of output positions so that the columns
// stay bounded; the transposed one is graphc::gemm then col2im. Every output
// element sums its (input channel, filter tap) products in that order, taps
// row-major, those of padding included as products with 0. The callers
// adapt dtypes, layouts, bias and epilogues.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_CONVOLUTION_H
#define GRAPHC_LIB_SUPPORT_CONVOLUTION_H

#include "lib/Support/Gemm.h"
#include "lib/Support/RowMajor.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace graphc {

/// The geometry of a convolution over `nd` spatial dims: input, filter and
/// output extents, strides, dilations and the padding before each dim (the
/// padding after it is implied by `out`).
struct ConvWindow {
  /// The most spatial dims: those of a rank-16 tensor, and then some.
  static constexpr int kMaxDims = 16;

  int nd = 0;
  int64_t in[kMaxDims], kernel[kMaxDims], stride[kMaxDims], dilation[kMaxDims],
      padBegin[kMaxDims], out[kMaxDims];

  int64_t extent(int d) const { return (kernel[d] - 1) * dilation[d] + 1; }
  int64_t kernelSize() const { return product(kernel); }
  int64_t outSize() const { return product(out); }
  int64_t inSize() const { return product(in); }

  /// Whether the image itself is its columns: a 1x1 filter at unit stride
  /// with no padding, so that output position p reads input position p.
  bool readsImageAsColumns() const {
    bool same = kernelSize() == 1;
    for (int d = 0; d < nd; ++d)
      same &= stride[d] == 1 && padBegin[d] == 0 && out[d] == in[d];
    return same;
  }

private:
  int64_t product(const int64_t *dims) const {
    int64_t p = 1;
    for (int d = 0; d < nd; ++d)
      p *= dims[d];
    return p;
  }
};

namespace conv_detail {
/// Visits every filter tap of `w` in row-major order.
template <typename Fn> void forEachTap(const ConvWindow &w, Fn &&fn) {
  int64_t tap[ConvWindow::kMaxDims] = {};
  for (int d = 0; d < w.nd; ++d)
    if (w.kernel[d] == 0)
      return;
  do
    fn(static_cast<const int64_t *>(tap));
  while (nextIndex(tap, w.kernel, w.nd));
}
} // namespace conv_detail

/// Columns [channels * kernelSize, count] of one image ([channels, in...]):
/// the inputs under each filter tap for output positions [first, first +
/// count) (flat, row-major over w.out), 0 where a tap lies in the padding.
template <typename A>
void im2col(const A *image, int64_t channels, const ConvWindow &w,
            int64_t first, int64_t count, A *col) {
  int64_t inSize = w.inSize();
  int last = w.nd - 1;
  int64_t rowLength = w.out[last];
  int64_t inStrides[ConvWindow::kMaxDims];
  for (int64_t d = last, step = 1; d >= 0; step *= w.in[d--])
    inStrides[d] = step;
  A *row = col;
  for (int64_t c = 0; c < channels; ++c) {
    const A *plane = image + c * inSize;
    conv_detail::forEachTap(w, [&](const int64_t *k) {
      A *dst = row;
      // Runs along the last output dim; the outer dims from each run's
      // row number.
      for (int64_t p = first, end = first + count; p < end;) {
        int64_t outer = p / rowLength, j0 = p % rowLength;
        int64_t n = std::min(rowLength - j0, end - p);
        int64_t base = 0;
        bool inside = true;
        for (int d = last - 1; d >= 0; --d) {
          int64_t o = outer % w.out[d];
          outer /= w.out[d];
          int64_t i = o * w.stride[d] - w.padBegin[d] + k[d] * w.dilation[d];
          inside &= i >= 0 && i < w.in[d];
          base += i * inStrides[d];
        }
        if (!inside) {
          std::fill(dst, dst + n, A(0));
        } else {
          int64_t start = k[last] * w.dilation[last] - w.padBegin[last];
          for (int64_t j = 0; j < n; ++j) {
            int64_t i = start + (j0 + j) * w.stride[last];
            dst[j] = i >= 0 && i < w.in[last] ? plane[base + i] : A(0);
          }
        }
        dst += n;
        p += n;
      }
      row += count;
    });
  }
}

/// Adds columns [channels * kernelSize, count], for input positions [first,
/// first + count) (flat over w.in), into an image of `w.out` (the
/// transposed convolution's output, [channels, out...]), skipping positions
/// outside it.
template <typename A>
void col2im(const A *col, int64_t channels, const ConvWindow &w, int64_t first,
            int64_t count, A *image) {
  int64_t outSize = w.outSize();
  int64_t outStrides[ConvWindow::kMaxDims];
  for (int64_t d = w.nd - 1, step = 1; d >= 0; step *= w.out[d--])
    outStrides[d] = step;
  const A *src = col;
  for (int64_t c = 0; c < channels; ++c) {
    A *plane = image + c * outSize;
    conv_detail::forEachTap(w, [&](const int64_t *k) {
      int64_t i[ConvWindow::kMaxDims];
      int64_t rest = first;
      for (int d = w.nd - 1; d >= 0; --d) {
        i[d] = rest % w.in[d];
        rest /= w.in[d];
      }
      for (int64_t t = 0; t < count; ++t) {
        int64_t offset = 0;
        bool inside = true;
        for (int d = 0; d < w.nd; ++d) {
          int64_t o = i[d] * w.stride[d] - w.padBegin[d] + k[d] * w.dilation[d];
          inside &= o >= 0 && o < w.out[d];
          offset += o * outStrides[d];
        }
        if (inside)
          plane[offset] += *src;
        ++src;
        nextIndex(i, w.in, w.nd);
      }
    });
  }
}

/// Positions per tile of columns with `rows` elements each, so that a
/// tile's columns fit `maxBytes` (at least one position, at most
/// `positions`).
inline int64_t columnTile(int64_t rows, int64_t positions, size_t elementBytes,
                          int64_t maxBytes) {
  int64_t perTile = maxBytes / (std::max<int64_t>(rows, 1) *
                                static_cast<int64_t>(elementBytes));
  return std::max<int64_t>(1, std::min(perTile, positions));
}

/// The positions per tile convolve() takes with column scratch of
/// `maxBytes`; the scratch it needs is channels * w.kernelSize() * tile
/// elements (none when the window reads the image as its columns).
template <typename A>
int64_t convolveTile(const ConvWindow &w, int64_t channels, int64_t maxBytes) {
  if (w.readsImageAsColumns())
    return std::max<int64_t>(w.outSize(), 1);
  return columnTile(channels * w.kernelSize(), w.outSize(), sizeof(A),
                    maxBytes);
}

/// result[outputs, out...] = filters[outputs, channels, kernel...] (*)
/// image[channels, in...]: one image's group of channels, channels first.
/// `col` holds channels * w.kernelSize() * tile elements (convolveTile).
template <typename A>
void convolve(const ConvWindow &w, const A *image, int64_t channels,
              const A *filters, int64_t outputs, A *result, A *col,
              int64_t tile) {
  const int64_t rows = channels * w.kernelSize(), positions = w.outSize();
  const bool direct = w.readsImageAsColumns();
  for (int64_t p0 = 0; p0 < positions; p0 += tile) {
    int64_t count = std::min(tile, positions - p0);
    if (!direct)
      im2col(image, channels, w, p0, count, col);
    gemm<A>(false, false, outputs, count, rows, A(1), filters, rows,
            direct ? image + p0 : col, direct ? positions : count, A(0),
            result + p0, positions);
  }
}

/// Adds the transposed convolution of image[channels, in...] by
/// filters[channels, outputs, kernel...] into result[outputs, out...] (the
/// window's roles swap: `in` is the transposed convolution's input). `col`
/// holds outputs * w.kernelSize() * tile elements, tile from columnTile over
/// w.inSize() positions.
template <typename A>
void convolveTransposed(const ConvWindow &w, const A *image, int64_t channels,
                        const A *filters, int64_t outputs, A *result, A *col,
                        int64_t tile) {
  const int64_t rows = outputs * w.kernelSize(), positions = w.inSize();
  for (int64_t p0 = 0; p0 < positions; p0 += tile) {
    int64_t count = std::min(tile, positions - p0);
    // col[rows, count] = filters^T [rows, channels] * image[channels, p0..]
    gemm<A>(true, false, rows, count, channels, A(1), filters, rows, image + p0,
            positions, A(0), col, count);
    col2im(col, outputs, w, p0, count, result);
  }
}

} // namespace graphc

#endif
