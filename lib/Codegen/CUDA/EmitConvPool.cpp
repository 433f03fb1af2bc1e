//===- EmitConvPool.cpp - convolutions and pooling ------------------------===//
//
// Direct convolution and pooling: one thread per output element walks its
// window as a flat index over the baked kernel extent, for any number of
// spatial dims. Padding comes from `pads` or from auto_pad and the static
// result shape. Global pools reduce a row of spatial elements per block.
// Col2Im gathers: one thread per image element sums, in kernel-offset order,
// the columns of the blocks that cover it (no atomics, deterministic).
// MaxUnpool gathers too: each result element searches the indices for the
// last one naming it (a read of all of them per element: the sizes of the
// unpooling layers of segmentation models, not large tensors).
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/EmitSupport.h"
#include "lib/Support/ImageBlocks.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace graphc::codegen::cuda {
namespace {

/// The window attributes of a convolution or a windowed pool; the list
/// ones are absent when the model leaves them out (their defaults depend
/// on the number of spatial dims).
struct WindowAttrs {
  StringRef autoPad;
  std::optional<ArrayRef<int64_t>> strides, dilations, pads, outputPadding,
      outputShape;
};

WindowAttrs windowAttrs(Operation *op) {
  return llvm::TypeSwitch<Operation *, WindowAttrs>(op)
      .Case([](graph::ConvTransposeOp conv) {
        return WindowAttrs{conv.getAutoPad(),       conv.getStrides(),
                           conv.getDilations(),     conv.getPads(),
                           conv.getOutputPadding(), conv.getOutputShape()};
      })
      .Case<graph::ConvOp, graph::QuantizedConvOp, graph::MaxPoolOp,
            graph::MaxPoolWithIndicesOp, graph::AveragePoolOp,
            graph::LpPoolOp>([](auto windowed) {
        return WindowAttrs{windowed.getAutoPad(),
                           windowed.getStrides(),
                           windowed.getDilations(),
                           windowed.getPads(),
                           std::nullopt,
                           std::nullopt};
      });
}

/// `list`, or `n` copies of `fill` when absent.
SmallVector<int64_t> listOr(std::optional<ArrayRef<int64_t>> list, size_t n,
                            int64_t fill) {
  if (list)
    return SmallVector<int64_t>(*list);
  return SmallVector<int64_t>(n, fill);
}

struct Window {
  SmallVector<int64_t> kernel, strides, dilations, padBegin, padEnd;
};

/// Window parameters of a conv/pool over spatial `in` -> `out` dims with
/// kernel extent `kernel`. For transposed convolutions the pads relate the
/// output to the input the other way round.
FailureOr<Window> windowParams(KernelEmitter &e, ArrayRef<int64_t> kernel,
                               ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                               bool transposed) {
  size_t n = kernel.size();
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  WindowAttrs attrs = windowAttrs(e.getOp());
  w.strides = listOr(attrs.strides, n, 1);
  w.dilations = listOr(attrs.dilations, n, 1);
  if (w.strides.size() != n || w.dilations.size() != n)
    return e.fail("strides and dilations need one entry per spatial dim");
  std::string autoPad = attrs.autoPad.str();
  SmallVector<int64_t> pads = listOr(attrs.pads, 2 * n, 0);
  if (pads.size() != 2 * n)
    return e.fail("pads need two entries per spatial dim");
  w.padBegin.assign(pads.begin(), pads.begin() + n);
  w.padEnd.assign(pads.begin() + n, pads.end());
  bool explicitOutputShape = transposed && attrs.outputShape;
  if (autoPad == "NOTSET" && !explicitOutputShape)
    return w;
  if (autoPad == "VALID") {
    w.padBegin.assign(n, 0);
    w.padEnd.assign(n, 0);
    return w;
  }
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER" && autoPad != "NOTSET")
    return e.fail("unknown auto_pad \"" + autoPad + "\"");
  SmallVector<int64_t> outputPadding = listOr(attrs.outputPadding, n, 0);
  for (size_t k = 0; k < n; ++k) {
    int64_t extent = (w.kernel[k] - 1) * w.dilations[k] + 1;
    int64_t total;
    if (transposed) {
      total = w.strides[k] * (in[k] - 1) + outputPadding[k] + extent - out[k];
      // As the host kernel and ONNX's tests: SAME_LOWER puts the larger half
      // first; SAME_UPPER and an explicit output_shape put it last.
      w.padBegin[k] = autoPad == "SAME_LOWER" ? total - total / 2 : total / 2;
    } else {
      total =
          std::max<int64_t>((out[k] - 1) * w.strides[k] + extent - in[k], 0);
      w.padBegin[k] = autoPad == "SAME_LOWER" ? total - total / 2 : total / 2;
    }
    w.padEnd[k] = total - w.padBegin[k];
  }
  return w;
}

/// Declares `p<k>` (input position along spatial dim k) for window element
/// `kk` of output coords `o<firstSpatial+k>` (2 channels first, 1 channels
/// last), and `valid` (inside the input).
void emitWindowPositions(KernelEmitter &e, const Window &w,
                         ArrayRef<int64_t> in, size_t firstSpatial = 2) {
  size_t n = w.kernel.size();
  e.coords("kk", "kw", w.kernel);
  std::string valid;
  for (size_t k = 0; k < n; ++k) {
    e.line("const long long p" + Twine(k) + " = o" + Twine(k + firstSpatial) +
           " * " +
           Twine(w.strides[k]) + " - " + Twine(w.padBegin[k]) + " + kk" +
           Twine(k) + " * " + Twine(w.dilations[k]) + ";");
    valid +=
        (k ? " && " : "") +
        ("p" + Twine(k) + " >= 0 && p" + Twine(k) + " < " + Twine(in[k])).str();
  }
  e.line("const bool valid = " + (valid.empty() ? std::string("true") : valid) +
         ";");
}

/// The kernel finishing a convolution a library computed alone into the
/// result: the bias (per output channel, the last dim when channels last)
/// and the epilogue, in place.
LogicalResult emitConvFinish(KernelEmitter &e) {
  ArrayRef<int64_t> yShape = e.resultShape();
  if (yShape.size() < 3)
    return e.fail("the result must have a batch, a channel and a spatial dim");
  std::string t = computeType(e.inputType(0).getElementType());
  size_t channel =
      e.as<graph::ConvOp>().getChannelsLast() ? yShape.size() - 1 : 1;
  e.openLinearLoop(numElements(yShape));
  e.coords("o", "i", yShape);
  e.line("// " + KernelEmitter::out(0) +
         " holds the convolution cuDNN computed alone: finish it in place");
  std::string conv = "gc_ld(" + KernelEmitter::out(0) + "[i])";
  e.line(t + " acc = " +
         (e.hasInput(2) ? e.load(2, "o" + std::to_string(channel)) + " + " + conv
                        : conv) +
         ";");
  if (failed(e.storeResult("i", "acc")))
    return failure();
  e.close();
  return success();
}

LogicalResult emitConv(KernelEmitter &e) {
  if (e.finishesLibraryConv())
    return emitConvFinish(e);
  // Only cuDNN computes channels-last convolutions (graphc-convert-conv-
  // layout makes them for it alone).
  if (e.as<graph::ConvOp>().getChannelsLast())
    return e.fail("a channels-last convolution is a cuDNN call, never a "
                  "generated kernel");
  ArrayRef<int64_t> xShape = e.inputShape(0), wShape = e.inputShape(1);
  ArrayRef<int64_t> yShape = e.resultShape();
  if (xShape.size() < 3 || wShape.size() != xShape.size())
    return e.fail("input and weight must have the same rank, at least 3");
  int64_t group = e.as<graph::ConvOp>().getGroup();
  int64_t c = xShape[1], m = wShape[0];
  if (group <= 0 || c % group || m % group || wShape[1] != c / group)
    return e.fail("group " + Twine(group) + " does not fit " + Twine(c) +
                  " input and " + Twine(m) + " output channels");
  ArrayRef<int64_t> in = xShape.drop_front(2);
  FailureOr<Window> w =
      windowParams(e, wShape.drop_front(2), in, yShape.drop_front(2), false);
  if (failed(w))
    return failure();
  Type elementType = e.inputType(0).getElementType();
  std::string t = computeType(elementType);
  int64_t cg = c / group, mg = m / group;
  int64_t window = numElements(w->kernel);
  SmallVector<int64_t> xStrides = contiguousStrides(xShape);

  e.openLinearLoop(numElements(yShape));
  e.coords("o", "i", yShape);
  e.line("const long long g = o1 / " + Twine(mg) + ";");
  e.line(t + " acc = " + (e.hasInput(2) ? e.load(2, "o1") : literal(0, t)) +
         ";");
  e.open("for (long long ci = 0; ci < " + Twine(cg) + "LL; ++ci) {");
  e.line("const long long xBase = o0 * " + Twine(xStrides[0]) + " + (g * " +
         Twine(cg) + " + ci) * " + Twine(xStrides[1]) + ";");
  e.line("const long long wBase = (o1 * " + Twine(cg) + " + ci) * " +
         Twine(window) + ";");
  e.open("for (long long kw = 0; kw < " + Twine(window) + "LL; ++kw) {");
  emitWindowPositions(e, *w, in);
  e.line("if (!valid) continue;");
  SmallVector<int64_t> spatialStrides(xStrides.begin() + 2, xStrides.end());
  e.line("acc += " + e.load(0, "xBase + " + offsetExpr("p", spatialStrides)) +
         " * " + e.load(1, "wBase + kw") + ";");
  e.close();
  e.close();
  if (failed(e.storeResult("i", "acc")))
    return failure();
  e.close();
  return success();
}

/// ConvTranspose as a gather: an output position receives input position
/// p when o + pad - k * dilation == p * stride.
LogicalResult emitConvTranspose(KernelEmitter &e) {
  ArrayRef<int64_t> xShape = e.inputShape(0), wShape = e.inputShape(1);
  ArrayRef<int64_t> yShape = e.resultShape();
  if (xShape.size() < 3 || wShape.size() != xShape.size())
    return e.fail("input and weight must have the same rank, at least 3");
  int64_t group = e.as<graph::ConvTransposeOp>().getGroup();
  int64_t c = xShape[1];
  if (group <= 0 || c % group || wShape[0] != c)
    return e.fail("group " + Twine(group) + " does not fit " + Twine(c) +
                  " input channels");
  int64_t cg = c / group, mg = wShape[1];
  ArrayRef<int64_t> in = xShape.drop_front(2);
  FailureOr<Window> w =
      windowParams(e, wShape.drop_front(2), in, yShape.drop_front(2), true);
  if (failed(w))
    return failure();
  std::string t = computeType(e.inputType(0).getElementType());
  int64_t window = numElements(w->kernel);
  SmallVector<int64_t> xStrides = contiguousStrides(xShape);
  size_t n = w->kernel.size();

  e.openLinearLoop(numElements(yShape));
  e.coords("o", "i", yShape);
  e.line("const long long g = o1 / " + Twine(mg) + ", mi = o1 % " + Twine(mg) +
         ";");
  e.line(t + " acc = " + (e.hasInput(2) ? e.load(2, "o1") : literal(0, t)) +
         ";");
  e.open("for (long long ci = 0; ci < " + Twine(cg) + "LL; ++ci) {");
  e.line("const long long xBase = o0 * " + Twine(xStrides[0]) + " + (g * " +
         Twine(cg) + " + ci) * " + Twine(xStrides[1]) + ";");
  e.line("const long long wBase = ((g * " + Twine(cg) + " + ci) * " +
         Twine(mg) + " + mi) * " + Twine(window) + ";");
  e.open("for (long long kw = 0; kw < " + Twine(window) + "LL; ++kw) {");
  e.coords("kk", "kw", w->kernel);
  std::string valid;
  for (size_t k = 0; k < n; ++k) {
    std::string q = "q" + std::to_string(k);
    e.line("const long long " + q + " = o" + Twine(k + 2) + " + " +
           Twine(w->padBegin[k]) + " - kk" + Twine(k) + " * " +
           Twine(w->dilations[k]) + ";");
    e.line("const long long p" + Twine(k) + " = " + q + " / " +
           Twine(w->strides[k]) + ";");
    valid += (k ? " && " : "") +
             (q + " >= 0 && " + q + " % " + Twine(w->strides[k]) +
              " == 0 && p" + Twine(k) + " < " + Twine(in[k]))
                 .str();
  }
  e.line("if (!(" + valid + ")) continue;");
  SmallVector<int64_t> spatialStrides(xStrides.begin() + 2, xStrides.end());
  e.line("acc += " + e.load(0, "xBase + " + offsetExpr("p", spatialStrides)) +
         " * " + e.load(1, "wBase + kw") + ";");
  e.close();
  e.close();
  e.line(e.store(0, "i", "acc"));
  e.close();
  return success();
}

/// QuantizedConv: one thread per output element sums its window's int8/
/// uint8 products in wrapping unsigned int (exactly the int32 the host
/// kernel's int64 sum wraps to), channels first, or channels last (X [N,
/// spatial..., C], W [M, k..., C/group], Y [N, out..., M]: the layout
/// graphc-convert-conv-layout gives cuDNN, which this kernel stands in for
/// where cuDNN refuses), taps outer and channels inner so that consecutive
/// channels are read together.
LogicalResult emitQuantizedConv(KernelEmitter &e) {
  auto op = e.as<graph::QuantizedConvOp>();
  ArrayRef<int64_t> xShape = e.inputShape(0), wShape = e.inputShape(1);
  ArrayRef<int64_t> yShape = e.resultShape();
  size_t rank = xShape.size();
  if (rank < 3 || wShape.size() != rank || yShape.size() != rank)
    return e.fail("input, weight and result must have the same rank, at "
                  "least 3");
  bool channelsLast = op.getChannelsLast() != 0;
  size_t channelDim = channelsLast ? rank - 1 : 1;
  size_t firstSpatial = channelsLast ? 1 : 2;
  int64_t group = op.getGroup();
  int64_t c = xShape[channelDim], m = wShape[0];
  if (group <= 0 || c % group || m % group || wShape[channelDim] != c / group ||
      yShape[channelDim] != m)
    return e.fail("group " + Twine(group) + " does not fit " + Twine(c) +
                  " input and " + Twine(m) + " output channels");
  ArrayRef<int64_t> in = xShape.slice(firstSpatial, rank - 2);
  ArrayRef<int64_t> kernel = wShape.slice(firstSpatial, rank - 2);
  FailureOr<Window> w = windowParams(e, kernel, in,
                                     yShape.slice(firstSpatial, rank - 2),
                                     false);
  if (failed(w))
    return failure();
  int64_t cg = c / group, mg = m / group;
  int64_t window = numElements(w->kernel);
  SmallVector<int64_t> xStrides = contiguousStrides(xShape);
  SmallVector<int64_t> spatialStrides(xStrides.begin() + firstSpatial,
                                      xStrides.begin() + firstSpatial + rank -
                                          2);
  // X's and W's elements widened to int: their product cannot overflow.
  auto addProduct = [&](StringRef xOffset, StringRef wOffset) {
    e.line("acc += static_cast<unsigned int>(static_cast<int>(" +
           e.load(0, xOffset) + ") * static_cast<int>(" + e.load(1, wOffset) +
           "));");
  };

  e.openLinearLoop(numElements(yShape));
  e.coords("o", "i", yShape);
  std::string outChannel = "o" + std::to_string(channelDim);
  e.line("const long long g = " + outChannel + " / " + Twine(mg) + ";");
  e.line("unsigned int acc = 0u;");
  if (channelsLast) {
    // X's channels of position p are contiguous, as are W's of tap kw.
    e.open("for (long long kw = 0; kw < " + Twine(window) + "LL; ++kw) {");
    emitWindowPositions(e, *w, in, firstSpatial);
    e.line("if (!valid) continue;");
    e.line("const long long xBase = o0 * " + Twine(xStrides[0]) + " + " +
           offsetExpr("p", spatialStrides) + " + g * " + Twine(cg) + "LL;");
    e.line("const long long wBase = (" + outChannel + " * " + Twine(window) +
           " + kw) * " + Twine(cg) + ";");
    e.open("for (long long ci = 0; ci < " + Twine(cg) + "LL; ++ci) {");
    addProduct("xBase + ci", "wBase + ci");
    e.close();
    e.close();
  } else {
    // Spatial positions are contiguous: the window varies fastest.
    e.open("for (long long ci = 0; ci < " + Twine(cg) + "LL; ++ci) {");
    e.line("const long long xBase = o0 * " + Twine(xStrides[0]) + " + (g * " +
           Twine(cg) + " + ci) * " + Twine(xStrides[1]) + ";");
    e.line("const long long wBase = (" + outChannel + " * " + Twine(cg) +
           " + ci) * " + Twine(window) + ";");
    e.open("for (long long kw = 0; kw < " + Twine(window) + "LL; ++kw) {");
    emitWindowPositions(e, *w, in, firstSpatial);
    e.line("if (!valid) continue;");
    addProduct("xBase + " + offsetExpr("p", spatialStrides), "wBase + kw");
    e.close();
    e.close();
  }
  if (failed(e.storeResult("i", "static_cast<int>(acc)")))
    return failure();
  e.close();
  return success();
}

LogicalResult emitPool(KernelEmitter &e) {
  auto withIndices = dyn_cast<graph::MaxPoolWithIndicesOp>(e.getOp());
  bool isMax = withIndices || isa<graph::MaxPoolOp>(e.getOp());
  auto average = dyn_cast<graph::AveragePoolOp>(e.getOp());
  auto lpPool = dyn_cast<graph::LpPoolOp>(e.getOp());
  ArrayRef<int64_t> xShape = e.inputShape(0), yShape = e.resultShape();
  if (xShape.size() < 3)
    return e.fail("input must have rank at least 3");
  auto kernel = e.intsAttr("kernel_shape");
  if (!kernel || kernel->size() != xShape.size() - 2)
    return e.fail("kernel_shape needs one entry per spatial dim");
  ArrayRef<int64_t> in = xShape.drop_front(2);
  FailureOr<Window> w =
      windowParams(e, *kernel, in, yShape.drop_front(2), false);
  if (failed(w))
    return failure();
  std::string t = computeType(e.inputType(0).getElementType());
  SmallVector<int64_t> xStrides = contiguousStrides(xShape);
  SmallVector<int64_t> spatialStrides(xStrides.begin() + 2, xStrides.end());
  bool countPad = average && average.getCountIncludePad() != 0;
  int64_t p = lpPool ? static_cast<int64_t>(lpPool.getP()) : 0;

  e.openLinearLoop(numElements(yShape));
  e.coords("o", "i", yShape);
  e.line("const long long xBase = (o0 * " + Twine(xShape[1]) + " + o1) * " +
         Twine(xStrides[1]) + ";");
  if (isMax)
    e.line(t + " acc = " + lowest(t) + ";");
  else
    e.line(t + " acc = " + literal(0, t) + ";");
  // The ONNX reference's index: the first element, then each larger one.
  SmallVector<int64_t> indexStrides = spatialStrides;
  if (withIndices) {
    if (withIndices.getStorageOrder() == 1)
      for (int64_t d = 0, stride = 1; d < static_cast<int64_t>(in.size());
           stride *= in[d], ++d)
        indexStrides[d] = stride;
    e.line("long long arg = -1;");
    e.line(t + " argValue = acc;");
  }
  e.line("long long count = 0;");
  e.open("for (long long kw = 0; kw < " + Twine(numElements(w->kernel)) +
         "LL; ++kw) {");
  emitWindowPositions(e, *w, in);
  // With count_include_pad every window position counts, also those that
  // ceil_mode puts beyond the padding (as the ONNX reference divides by the
  // kernel size); otherwise only positions inside the input.
  if (countPad)
    e.line("count += 1;");
  else
    e.line("count += valid ? 1 : 0;");
  e.line("if (!valid) continue;");
  e.line("const " + t + " x = " +
         e.load(0, "xBase + " + offsetExpr("p", spatialStrides)) + ";");
  if (withIndices)
    e.line("if (arg < 0 || x > argValue) { argValue = x; arg = xBase + " +
           offsetExpr("p", indexStrides) + "; }");
  if (isMax)
    e.line("acc = gc_max(acc, x);");
  else if (average)
    e.line("acc += x;");
  else
    e.line(p == 1 ? "acc += gc_fabs(x);"
                  : "acc += gc_pow(gc_fabs(x), " + literal(p, t) + ");");
  e.close();
  if (average)
    e.line("acc = count > 0 ? acc / static_cast<" + t + ">(count) : acc;");
  else if (lpPool && p != 1)
    e.line("acc = gc_pow(acc, " + literal(1.0 / p, t) + ");");
  e.line(e.store(0, "i", "acc"));
  if (withIndices)
    e.line(e.store(1, "i", "arg"));
  e.close();
  return success();
}

LogicalResult emitGlobalPool(KernelEmitter &e) {
  bool isMax = isa<graph::GlobalMaxPoolOp>(e.getOp());
  bool isAverage = isa<graph::GlobalAveragePoolOp>(e.getOp());
  auto lpPool = dyn_cast<graph::GlobalLpPoolOp>(e.getOp());
  ArrayRef<int64_t> xShape = e.inputShape(0);
  if (xShape.size() < 2)
    return e.fail("input must have rank at least 2");
  std::string t = reduceType(e.inputType(0).getElementType());
  ReductionView view;
  view.rows = xShape[0] * xShape[1];
  view.length = numElements(xShape.drop_front(2));
  int64_t p = lpPool ? static_cast<int64_t>(lpPool.getP()) : 0;
  e.openRowLoop(view.rows, view.length);
  e.line("const long long base = row * " + Twine(view.length) + "LL;");
  e.line(t + " acc = " + (isMax ? lowest(t) : literal(0, t)) + ";");
  e.openRowElementLoop(view.length);
  e.line("const " + t + " x = " + e.load(0, "base + r") + ";");
  if (isMax)
    e.line("acc = gc_max(acc, x);");
  else if (isAverage)
    e.line("acc += x;");
  else
    e.line("acc += gc_pow(gc_fabs(x), " + literal(p, t) + ");");
  e.close();
  e.line("acc = " + e.rowReduce() + "(acc, " +
         (isMax ? "gc_op_max());" : "gc_op_add());"));
  std::string result = "acc";
  if (isAverage)
    result = "acc / " + literal(std::max<int64_t>(view.length, 1), t);
  else if (lpPool)
    result = "gc_pow(acc, " + literal(1.0 / p, t) + ")";
  e.line("if (" + e.rowThread() + " == 0) " + e.store(0, "row", result));
  e.close();
  return success();
}

LogicalResult emitCol2Im(KernelEmitter &e) {
  auto op = e.as<graph::Col2ImOp>();
  ArrayRef<int64_t> xShape = e.inputShape(0), yShape = e.resultShape();
  auto block = e.constantInts(2);
  if (!block)
    return e.fail("block_shape (input 2) must be a constant");
  ArrayRef<int64_t> image = yShape.drop_front(2);
  int nd = static_cast<int>(image.size());
  if (xShape.size() != 3 || static_cast<int>(block->size()) != nd)
    return e.fail("input must be [N, C * prod(block), L] with one block dim "
                  "per image dim");
  auto data = [](std::optional<ArrayRef<int64_t>> values) {
    return values ? values->data() : nullptr;
  };
  ConvWindow w;
  if (const char *error =
          col2imWindow(nd, image.data(), block->data(), data(op.getDilations()),
                       data(op.getPads()), data(op.getStrides()), w))
    return e.fail(error);
  int64_t blockSize = numElements(*block), blocks = xShape[2];
  if (blocks != numElements(ArrayRef<int64_t>(w.out, nd)) ||
      xShape[1] != yShape[1] * blockSize)
    return e.fail("input shape does not match the blocks of the image");
  std::string t = computeType(e.resultType().getElementType());
  SmallVector<int64_t> kernelStrides =
      contiguousStrides(ArrayRef<int64_t>(w.kernel, nd));
  SmallVector<int64_t> blockStrides =
      contiguousStrides(ArrayRef<int64_t>(w.out, nd));
  e.openLinearLoop(numElements(yShape));
  e.coords("o", "i", yShape);
  // Plane (n, c) reads rows c * blockSize.. of image n's columns.
  e.line("const long long base = (o0 * " + Twine(yShape[1]) + " + o1) * " +
         Twine(blockSize * blocks) + "LL;");
  e.line(t + " acc = " + literal(0, t) + ";");
  e.open("for (long long kw = 0; kw < " + Twine(blockSize) + "LL; ++kw) {");
  e.line("long long column = 0;");
  for (int d = 0; d < nd; ++d) {
    std::string D = std::to_string(d);
    e.line("const long long t" + D + " = o" + std::to_string(d + 2) + " + " +
           Twine(w.padBegin[d]) + "LL - (kw / " + Twine(kernelStrides[d]) +
           "LL % " + Twine(w.kernel[d]) + "LL) * " + Twine(w.dilation[d]) +
           "LL;");
    e.line("if (t" + D + " < 0 || t" + D + " % " + Twine(w.stride[d]) +
           "LL != 0 || t" + D + " / " + Twine(w.stride[d]) +
           "LL >= " + Twine(w.out[d]) + "LL) continue;");
    e.line("column += t" + D + " / " + Twine(w.stride[d]) + "LL * " +
           Twine(blockStrides[d]) + "LL;");
  }
  e.line("acc += " +
         e.load(0, "base + kw * " + std::to_string(blocks) + "LL + column") +
         ";");
  e.close();
  e.line(e.store(0, "i", "acc"));
  e.close();
  return success();
}

LogicalResult emitMaxUnpool(KernelEmitter &e) {
  auto op = e.as<graph::MaxUnpoolOp>();
  ArrayRef<int64_t> xShape = e.inputShape(0), yShape = e.resultShape();
  int64_t nd = static_cast<int64_t>(xShape.size()) - 2;
  ArrayRef<int64_t> kernel = op.getKernelShape();
  std::optional<ArrayRef<int64_t>> pads = op.getPads(),
                                   strides = op.getStrides();
  if (nd < 1 || static_cast<int64_t>(kernel.size()) != nd ||
      (pads && static_cast<int64_t>(pads->size()) != 2 * nd) ||
      (strides && static_cast<int64_t>(strides->size()) != nd))
    return e.fail("kernel_shape, strides and pads must match the spatial dims");
  SmallVector<int64_t> unpooled = {xShape[0], xShape[1]};
  for (int64_t d = 0; d < nd; ++d) {
    std::optional<int64_t> dim =
        unpooledDim(xShape[d + 2], kernel[d], strides ? (*strides)[d] : 1,
                    pads ? (*pads)[d] : 0, pads ? (*pads)[nd + d] : 0);
    if (!dim || *dim > yShape[d + 2])
      return e.fail("the result cannot hold the unpooled shape");
    unpooled.push_back(*dim);
  }
  std::string t = computeType(e.resultType().getElementType());
  e.openLinearLoop(numElements(yShape));
  e.coords("o", "i", yShape);
  // Past the unpooled corner the result is zero.
  std::string outside;
  for (auto [d, dim] : llvm::enumerate(unpooled))
    if (dim < yShape[d])
      outside += (outside.empty() ? "" : " || ") + ("o" + Twine(d)).str() +
                 " >= " + std::to_string(dim);
  e.line(t + " acc = " + literal(0, t) + ";");
  if (!outside.empty())
    e.open("if (!(" + outside + ")) {");
  e.line("const long long f = " + offsetExpr("o", contiguousStrides(unpooled)) +
         ";");
  e.open("for (long long x = 0; x < " + Twine(numElements(xShape)) +
         "LL; ++x) {");
  e.line("if (" + e.checkedIndex("in1[x]", numElements(unpooled)) +
         " == f) acc = " + e.load(0, "x") + ";");
  e.close();
  if (!outside.empty())
    e.close();
  e.line(e.store(0, "i", "acc"));
  e.close();
  return success();
}

} // namespace

bool isConvPool(OperationName name) {
  return isOneOf<graph::ConvOp, graph::QuantizedConvOp, graph::ConvTransposeOp,
                 graph::MaxPoolOp,
                 graph::MaxPoolWithIndicesOp, graph::AveragePoolOp,
                 graph::LpPoolOp, graph::GlobalAveragePoolOp,
                 graph::GlobalMaxPoolOp, graph::GlobalLpPoolOp, graph::Col2ImOp,
                 graph::MaxUnpoolOp>(name);
}

LogicalResult emitConvPool(KernelEmitter &e) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(e.getOp())
      .Case([&](graph::ConvOp) { return emitConv(e); })
      .Case([&](graph::QuantizedConvOp) { return emitQuantizedConv(e); })
      .Case([&](graph::ConvTransposeOp) { return emitConvTranspose(e); })
      .Case([&](graph::Col2ImOp) { return emitCol2Im(e); })
      .Case([&](graph::MaxUnpoolOp) { return emitMaxUnpool(e); })
      .Case<graph::GlobalAveragePoolOp, graph::GlobalMaxPoolOp,
            graph::GlobalLpPoolOp>(
          [&](Operation *) { return emitGlobalPool(e); })
      .Default([&](Operation *) { return emitPool(e); });
}

} // namespace graphc::codegen::cuda
