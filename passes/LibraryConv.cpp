//===- LibraryConv.cpp - convolutions a vendor library computes -----------===//

#include "passes/LibraryConv.h"

#include "dialects/Graph/GraphOps.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace graphc {
namespace {

/// The static tensor type of `value` with element type `element`, or null.
RankedTensorType staticOf(Value value, Type element) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getElementType() == element
             ? type
             : RankedTensorType();
}

/// Fills the window of `conv` (X [n, c, in...], W [k, c / groups, f...],
/// Y [n, k, out...], or with channels_last X [n, in..., c], W
/// [k, f..., c / groups], Y [n, out..., k]): the pads auto_pad implies where
/// it is set, checked against the static result shape.
template <typename ConvT>
LogicalResult describeWindow(ConvT conv, LibraryConv &lib) {
  ArrayRef<int64_t> x = cast<RankedTensorType>(conv.getX().getType()).getShape();
  ArrayRef<int64_t> w = cast<RankedTensorType>(conv.getW().getType()).getShape();
  ArrayRef<int64_t> y =
      cast<RankedTensorType>(conv.getY().getType()).getShape();
  if (x.size() < 3 || x.size() > 5 || w.size() != x.size() ||
      y.size() != x.size())
    return failure();
  size_t rank = x.size() - 2;
  lib.channelsLast = conv.getChannelsLast() != 0;
  size_t channel = lib.channelsLast ? x.size() - 1 : 1;
  size_t spatial = lib.channelsLast ? 1 : 2;
  lib.n = x[0];
  lib.c = x[channel];
  lib.k = w[0];
  lib.groups = conv.getGroup();
  if (lib.groups < 1 || lib.c % lib.groups || lib.k % lib.groups ||
      w[channel] != lib.c / lib.groups || y[0] != lib.n || y[channel] != lib.k)
    return failure();
  lib.inSize.assign(x.begin() + spatial, x.begin() + spatial + rank);
  lib.filterSize.assign(w.begin() + spatial, w.begin() + spatial + rank);
  lib.outSize.assign(y.begin() + spatial, y.begin() + spatial + rank);
  auto ints = [&](std::optional<ArrayRef<int64_t>> attr, size_t size,
                  int64_t fallback) {
    return attr ? SmallVector<int64_t>(*attr)
                : SmallVector<int64_t>(size, fallback);
  };
  lib.strides = ints(conv.getStrides(), rank, 1);
  lib.dilations = ints(conv.getDilations(), rank, 1);
  SmallVector<int64_t> pads = ints(conv.getPads(), 2 * rank, 0);
  if (lib.strides.size() != rank || lib.dilations.size() != rank ||
      pads.size() != 2 * rank)
    return failure();
  lib.padsBegin.assign(pads.begin(), pads.begin() + rank);
  lib.padsEnd.assign(pads.begin() + rank, pads.end());
  StringRef autoPad = conv.getAutoPad();
  for (size_t i = 0; i < rank; ++i) {
    if (lib.strides[i] < 1 || lib.dilations[i] < 1)
      return failure();
    int64_t extent = (lib.filterSize[i] - 1) * lib.dilations[i] + 1;
    if (autoPad == "VALID") {
      lib.padsBegin[i] = lib.padsEnd[i] = 0;
    } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      // As ONNX: the output keeps ceil(in / stride) elements, the odd pad
      // going last (SAME_UPPER) or first (SAME_LOWER).
      int64_t total = std::max<int64_t>(
          (lib.outSize[i] - 1) * lib.strides[i] + extent - lib.inSize[i], 0);
      lib.padsBegin[i] =
          autoPad == "SAME_LOWER" ? total - total / 2 : total / 2;
      lib.padsEnd[i] = total - lib.padsBegin[i];
    } else if (autoPad != "NOTSET") {
      return failure();
    }
    int64_t span = lib.inSize[i] + lib.padsBegin[i] + lib.padsEnd[i] - extent;
    if (lib.padsBegin[i] < 0 || lib.padsEnd[i] < 0 || span < 0 ||
        span / lib.strides[i] + 1 != lib.outSize[i])
      return failure();
  }
  return success();
}

/// The library convolution of a graph.quantized_conv: int8 X and W
/// channels last with 2 spatial dims, c / groups and k multiples of 4 (the
/// form of cuDNN's int8 engines), Y its int32 accumulator as it is (no
/// epilogue joins); nullopt otherwise, for the generated kernel.
std::optional<LibraryConv> matchQuantizedConv(graph::QuantizedConvOp conv) {
  if (!isLibraryInt8ConvForm(conv) || conv.getChannelsLast() == 0)
    return std::nullopt;
  LibraryConv lib;
  if (failed(describeWindow(conv, lib)))
    return std::nullopt;
  lib.x = conv.getX();
  lib.w = conv.getW();
  lib.ops.push_back(conv);
  lib.root = conv;
  return lib;
}

} // namespace

bool isLibraryInt8ConvForm(graph::QuantizedConvOp conv) {
  Builder builder(conv.getContext());
  RankedTensorType x = staticOf(conv.getX(), builder.getI8Type());
  RankedTensorType w = staticOf(conv.getW(), builder.getI8Type());
  if (!x || !w || !staticOf(conv.getY(), builder.getI32Type()) ||
      x.getRank() != 4)
    return false;
  // W is [k, c / groups, f...] or, channels last, [k, f..., c / groups].
  int64_t perGroup = w.getDimSize(conv.getChannelsLast() ? 3 : 1);
  return perGroup % 4 == 0 && w.getDimSize(0) % 4 == 0;
}

std::optional<LibraryConv> matchLibraryConv(ArrayRef<Operation *> ops) {
  // Constants a fusion holds are no work of their own.
  auto first = llvm::find_if(ops, [](Operation *op) {
    return !op->hasTrait<OpTrait::ConstantLike>();
  });
  if (first == ops.end())
    return std::nullopt;
  if (auto quantized = dyn_cast<graph::QuantizedConvOp>(*first))
    return matchQuantizedConv(quantized);
  auto conv = dyn_cast<graph::ConvOp>(*first);
  if (!conv)
    return std::nullopt;
  auto resultType = dyn_cast<RankedTensorType>(conv.getY().getType());
  if (!resultType)
    return std::nullopt;
  Type element = resultType.getElementType();
  if (!element.isF32() && !element.isF16() && !element.isBF16())
    return std::nullopt;
  auto isStatic = [&](Value value) {
    return static_cast<bool>(staticOf(value, element));
  };
  if (!llvm::all_of(conv->getOperands(), isStatic) || !isStatic(conv.getY()))
    return std::nullopt;
  LibraryConv lib;
  if (failed(describeWindow(conv, lib)))
    return std::nullopt;
  lib.x = conv.getX();
  lib.w = conv.getW();
  lib.bias = conv.getB();
  // The conv reads its operands from outside: nothing before it is fused.
  llvm::SmallPtrSet<Operation *, 16> inFusion(ops.begin(), ops.end());
  for (Value operand : conv->getOperands())
    if (Operation *def = operand.getDefiningOp(); def && inFusion.contains(def))
      return std::nullopt;
  lib.ops.push_back(conv);
  lib.root = conv;

  // The epilogue: the add of a same-shaped Z, then at most one ReLU, SiLU
  // or erf GELU, each the only user of the value before it.
  while (lib.epilogue == exec::GemmEpilogue::none) {
    Value current = lib.root->getResult(0);
    if (!current.hasOneUse())
      break;
    Operation *user = *current.getUsers().begin();
    if (!inFusion.contains(user) || user->getNumResults() != 1 ||
        user->getResult(0).getType() != resultType)
      break;
    if (auto add = dyn_cast<graph::AddOp>(user)) {
      Value other = add.getLhs() == current ? add.getRhs() : add.getLhs();
      if (lib.z || other == current || other.getType() != resultType ||
          (other.getDefiningOp() && inFusion.contains(other.getDefiningOp())))
        break;
      lib.z = other;
    } else if (isa<graph::ReluOp>(user)) {
      lib.epilogue = exec::GemmEpilogue::relu;
    } else if (isa<graph::SiluOp>(user)) {
      lib.epilogue = exec::GemmEpilogue::silu;
    } else if (auto gelu = dyn_cast<graph::GeluOp>(user);
               gelu && gelu.getApproximate() == "none") {
      lib.epilogue = exec::GemmEpilogue::gelu_erf;
    } else {
      break;
    }
    lib.ops.push_back(user);
    lib.root = user;
  }
  return lib;
}

} // namespace graphc
