//===- GraphWindow.cpp - sliding windows of convolution and pooling -------===//

#include "dialects/Graph/GraphWindow.h"
#include "lib/Support/CheckedArith.h"

#include "llvm/ADT/StringSwitch.h"

#include <limits>

using namespace mlir;

namespace graphc::graph {

int64_t WindowParams::effectiveKernel(int64_t dim) const {
  if (ShapedType::isDynamic(kernel[dim]))
    return ShapedType::kDynamic;
  // An extent past int64_t is larger than any padded input: saturate, and
  // the caller reports that the window does not fit.
  std::optional<int64_t> span = checkedMul(kernel[dim] - 1, dilations[dim]);
  return span ? *span + 1 : std::numeric_limits<int64_t>::max();
}

/// Window attributes past this cannot describe a real tensor; the bound
/// keeps the sums and products of the output size computation in int64_t.
static constexpr int64_t kMaxWindowValue = int64_t(1) << 31;

/// Copies `values` into `out` after checking its length and lower bound, or
/// fills `out` with `fill` when the attribute is absent.
static LogicalResult readInts(const TypeInference &infer, StringRef name,
                              std::optional<ArrayRef<int64_t>> values,
                              int64_t length, int64_t minimum, int64_t fill,
                              SmallVectorImpl<int64_t> &out) {
  if (!values) {
    out.assign(length, fill);
    return success();
  }
  if (static_cast<int64_t>(values->size()) != length)
    return infer.emitError(name + " must have " + Twine(length) +
                           " entries but has " + Twine(values->size()));
  for (int64_t value : *values) {
    if (value < minimum)
      return infer.emitError(name + " entries must be at least " +
                             Twine(minimum) + ", got " + Twine(value));
    if (value > kMaxWindowValue)
      return infer.emitError(name + " entries must be at most 2^31, got " +
                             Twine(value));
  }
  out.assign(values->begin(), values->end());
  return success();
}

FailureOr<WindowParams>
resolveWindow(const TypeInference &infer, int64_t rank,
              std::optional<ArrayRef<int64_t>> kernelShape,
              ArrayRef<int64_t> weightKernel,
              std::optional<ArrayRef<int64_t>> strides,
              std::optional<ArrayRef<int64_t>> dilations,
              std::optional<ArrayRef<int64_t>> pads, StringRef autoPad) {
  WindowParams window;
  std::optional<AutoPad> mode =
      llvm::StringSwitch<std::optional<AutoPad>>(autoPad)
          .Case("NOTSET", AutoPad::NotSet)
          .Case("SAME_UPPER", AutoPad::SameUpper)
          .Case("SAME_LOWER", AutoPad::SameLower)
          .Case("VALID", AutoPad::Valid)
          .Default(std::nullopt);
  if (!mode)
    return infer.emitError("auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER "
                           "or VALID, got '" +
                           autoPad + "'");
  window.autoPad = *mode;
  if (kernelShape) {
    if (failed(readInts(infer, "kernel_shape", kernelShape, rank, 1, 1,
                        window.kernel)))
      return failure();
    for (auto [fromAttr, fromWeight] : llvm::zip(window.kernel, weightKernel))
      if (!ShapedType::isDynamic(fromWeight) && fromAttr != fromWeight)
        return infer.emitError(
            "kernel_shape does not match the spatial dims of the weight");
  } else {
    if (static_cast<int64_t>(weightKernel.size()) != rank)
      return infer.emitError("kernel_shape is required");
    window.kernel.assign(weightKernel.begin(), weightKernel.end());
  }
  if (failed(readInts(infer, "strides", strides, rank, 1, 1, window.strides)) ||
      failed(readInts(infer, "dilations", dilations, rank, 1, 1,
                      window.dilations)))
    return failure();
  SmallVector<int64_t> allPads;
  if (failed(readInts(infer, "pads", pads, 2 * rank, 0, 0, allPads)))
    return failure();
  // Automatic padding replaces explicit pads.
  if (window.autoPad != AutoPad::NotSet)
    allPads.assign(2 * rank, 0);
  window.padsBegin.assign(allPads.begin(), allPads.begin() + rank);
  window.padsEnd.assign(allPads.begin() + rank, allPads.end());
  return window;
}

FailureOr<int64_t> windowOutputSize(const TypeInference &infer,
                                    const WindowParams &window, int64_t dim,
                                    int64_t input, bool ceilMode) {
  if (ShapedType::isDynamic(input))
    return ShapedType::kDynamic;
  int64_t stride = window.strides[dim];
  if (window.autoPad == AutoPad::SameUpper ||
      window.autoPad == AutoPad::SameLower)
    return llvm::divideCeil(input, stride);
  int64_t extent = window.effectiveKernel(dim);
  if (ShapedType::isDynamic(extent))
    return ShapedType::kDynamic;
  int64_t padded = input + window.padsBegin[dim] + window.padsEnd[dim];
  if (padded < extent)
    return infer.emitError("window of size " + Twine(extent) +
                           " does not fit the padded input of size " +
                           Twine(padded) + " in spatial dim " + Twine(dim));
  int64_t span = padded - extent;
  int64_t out = (ceilMode ? llvm::divideCeil(span, stride) : span / stride) + 1;
  // With ceil_mode the last window must still start inside the input or
  // its leading padding.
  if (ceilMode && (out - 1) * stride >= input + window.padsBegin[dim])
    --out;
  return out;
}

} // namespace graphc::graph
