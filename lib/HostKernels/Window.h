//===- Window.h - sliding-window geometry for conv and pooling --*- C++ -*-===//
//
// Resolves kernel_shape, strides, dilations, pads, auto_pad and ceil_mode,
// as read into a conv's or pool's attrs struct, into begin/end pads and
// output sizes, following the ONNX reference: in ceil mode the windows that
// overhang the input get extra padding split between both ends, and no
// window starts in the end padding.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_HOSTKERNELS_WINDOW_H
#define GRAPHC_HOSTKERNELS_WINDOW_H

#include "lib/HostKernels/KernelSupport.h"
#include "lib/Support/Convolution.h"

namespace graphc::hk {

/// A convolution's or a pool's window: the convolution geometry
/// (lib/Support/Convolution.h) with the padding after each dim, which
/// pooling reads.
struct Window : ConvWindow {
  int64_t padEnd[kMaxDims];
};
static_assert(ConvWindow::kMaxDims >= kMaxRank - 2,
              "a window has the spatial dims of a rank-kMaxRank tensor");

/// The auto_pad attribute of a convolution or a windowed pool.
enum class AutoPad { NotSet, SameUpper, SameLower, Valid };

/// Maps auto_pad's string `value` to its AutoPad.
inline int readAutoPad(KernelContext &ctx, const char *value,
                       AutoPad &autoPad) {
  static const Choice<AutoPad> choices[] = {{"NOTSET", AutoPad::NotSet},
                                            {"SAME_UPPER", AutoPad::SameUpper},
                                            {"SAME_LOWER", AutoPad::SameLower},
                                            {"VALID", AutoPad::Valid}};
  return readChoice(ctx, "auto_pad", value, choices, autoPad);
}

/// Fills `w` for input `x` ([N, C, spatial...]) from `a`, the attrs struct
/// of a conv or pool (kernelShape, strides, dilations, pads, autoPad).
/// `kernel` gives the kernel extents when kernel_shape is absent (conv
/// weights); null makes kernel_shape required (pooling).
template <typename Attrs>
int computeWindow(KernelContext &ctx, const Attrs &a, const gc_tensor &x,
                  const int64_t *kernel, bool ceilMode, Window &w) {
  if (x.rank < 3)
    return ctx.fail("input must have rank >= 3 ([N, C, spatial...]), got %d",
                    x.rank);
  w.nd = x.rank - 2;
  const IntList &kernelShape = a.kernelShape, &strides = a.strides,
                &dilations = a.dilations, &pads = a.pads;
  if (!kernel && !kernelShape.present)
    return ctx.fail("kernel_shape is required");
  if ((kernelShape.present && kernelShape.count != w.nd) ||
      (strides.present && strides.count != w.nd) ||
      (dilations.present && dilations.count != w.nd) ||
      (pads.present && pads.count != 2 * w.nd))
    return ctx.fail("kernel_shape, strides, dilations and pads must match "
                    "the %d spatial dims",
                    w.nd);
  AutoPad autoPad;
  GC_TRY(readAutoPad(ctx, a.autoPad, autoPad));
  bool same = autoPad == AutoPad::SameUpper || autoPad == AutoPad::SameLower;
  bool valid = autoPad == AutoPad::Valid;
  for (int d = 0; d < w.nd; ++d) {
    w.in[d] = x.dims[d + 2];
    w.kernel[d] = kernelShape.present ? kernelShape[d] : kernel[d];
    if (kernel && kernel[d] != w.kernel[d])
      return ctx.fail("kernel_shape does not match the weight shape");
    w.stride[d] = strides.present ? strides[d] : 1;
    w.dilation[d] = dilations.present ? dilations[d] : 1;
    if (w.kernel[d] < 1 || w.stride[d] < 1 || w.dilation[d] < 1)
      return ctx.fail("kernel, strides and dilations must be positive");
    int64_t extent = w.extent(d);
    if (same) {
      w.out[d] = (w.in[d] + w.stride[d] - 1) / w.stride[d];
      int64_t total = (w.out[d] - 1) * w.stride[d] + extent - w.in[d];
      total = total > 0 ? total : 0;
      bool upper = autoPad == AutoPad::SameUpper;
      w.padBegin[d] = upper ? total / 2 : total - total / 2;
      w.padEnd[d] = total - w.padBegin[d];
      continue;
    }
    w.padBegin[d] = valid || !pads.present ? 0 : pads[d];
    w.padEnd[d] = valid || !pads.present ? 0 : pads[d + w.nd];
    if (w.padBegin[d] < 0 || w.padEnd[d] < 0)
      return ctx.fail("pads must be non-negative");
    int64_t span = w.in[d] + w.padBegin[d] + w.padEnd[d] - extent;
    if (span < 0)
      return ctx.fail("the window is larger than the padded input");
    w.out[d] = (ceilMode ? (span + w.stride[d] - 1) / w.stride[d]
                         : span / w.stride[d]) +
               1;
    // A ceil-mode window must start inside the input or the begin padding.
    if (ceilMode && (w.out[d] - 1) * w.stride[d] >= w.in[d] + w.padBegin[d])
      --w.out[d];
    int64_t extra = (w.out[d] - 1) * w.stride[d] + extent -
                    (w.in[d] + w.padBegin[d] + w.padEnd[d]);
    if (extra > 0) {
      w.padBegin[d] += extra / 2;
      w.padEnd[d] += extra - extra / 2;
    }
  }
  return 0;
}

/// Visits every index of `dims` (rank n) in row-major order.
template <typename Fn> void forEachIndex(const int64_t *dims, int n, Fn &&fn) {
  int64_t index[kMaxRank] = {};
  for (int d = 0; d < n; ++d)
    if (dims[d] == 0)
      return;
  while (true) {
    fn(static_cast<const int64_t *>(index));
    if (!nextIndex(index, dims, n))
      return;
  }
}

} // namespace graphc::hk

#endif
