//===- ImageBlocks.h - the geometry of Col2Im and MaxUnpool -----*- C++ -*-===//
//
// Header only: the type inference, host kernels and CUDA emitters of
// graph.col2im and graph.max_unpool resolve their attributes the same way.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_IMAGEBLOCKS_H
#define GRAPHC_LIB_SUPPORT_IMAGEBLOCKS_H

#include "lib/Support/CheckedArith.h"
#include "lib/Support/Convolution.h"

namespace graphc {

/// Col2Im: the image is the window's input, the block its kernel, the grid
/// of sliding blocks its output. Fills `w` for `nd` spatial dims from the image
/// and block shapes and the optional attributes (null: absent; `pads` holds 2 *
/// nd entries, begins then ends). Returns null, or why the shapes do not make a
/// grid of blocks.
inline const char *col2imWindow(int nd, const int64_t *image,
                                const int64_t *block, const int64_t *dilations,
                                const int64_t *pads, const int64_t *strides,
                                ConvWindow &w) {
  if (nd < 1 || nd > ConvWindow::kMaxDims)
    return "image_shape must have between 1 and 16 entries";
  w.nd = nd;
  for (int d = 0; d < nd; ++d) {
    w.in[d] = image[d];
    w.kernel[d] = block[d];
    w.dilation[d] = dilations ? dilations[d] : 1;
    w.stride[d] = strides ? strides[d] : 1;
    w.padBegin[d] = pads ? pads[d] : 0;
    int64_t padEnd = pads ? pads[nd + d] : 0;
    if (w.in[d] < 1 || w.kernel[d] < 1)
      return "image_shape and block_shape must be positive";
    if (w.dilation[d] < 1 || w.stride[d] < 1)
      return "dilations and strides must be positive";
    if (w.padBegin[d] < 0 || padEnd < 0)
      return "pads must not be negative";
    std::optional<int64_t> extent = checkedMul(w.kernel[d] - 1, w.dilation[d]);
    std::optional<int64_t> padded = checkedAdd(w.in[d], w.padBegin[d]);
    if (padded)
      padded = checkedAdd(*padded, padEnd);
    if (!extent || !padded)
      return "the image or block is too large";
    if (*padded < *extent + 1)
      return "the block does not fit in the padded image";
    w.out[d] = (*padded - *extent - 1) / w.stride[d] + 1;
  }
  return nullptr;
}

/// MaxUnpool: the extent of a spatial dim of `in` elements unpooled, (in -
/// 1) * stride - pads + kernel, or nullopt when the attributes are invalid
/// or it is negative or too large.
inline std::optional<int64_t> unpooledDim(int64_t in, int64_t kernel,
                                          int64_t stride, int64_t padBegin,
                                          int64_t padEnd) {
  if (in < 0 || kernel < 1 || stride < 1 || padBegin < 0 || padEnd < 0)
    return std::nullopt;
  if (in == 0)
    return 0;
  std::optional<int64_t> dim = checkedMul(in - 1, stride);
  if (dim)
    dim = checkedAdd(*dim, kernel);
  if (dim)
    dim = checkedAdd(*dim, -padBegin);
  if (dim)
    dim = checkedAdd(*dim, -padEnd);
  if (!dim || *dim < 0)
    return std::nullopt;
  return dim;
}

} // namespace graphc

#endif // GRAPHC_LIB_SUPPORT_IMAGEBLOCKS_H
