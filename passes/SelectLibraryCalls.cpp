//===- SelectLibraryCalls.cpp - hand GEMMs and convolutions to libraries --===//
//
// A matmul fusion whose mat_mul or gemm a library GEMM computes (see
// LibraryGemm.h) becomes a cuBLASLt fusion: the GEMM with the transposes and
// epilogue the library fuses. A conv fusion whose conv a library
// convolution computes (see LibraryConv.h) becomes a cuDNN fusion: the conv
// with its bias, residual add and ReLU. An attention fusion cuDNN's SDPA
// computes (see LibrarySdpa.h) becomes a cuDNN fusion whole, its generated
// kernel kept as the fallback for a GPU whose cuDNN has no engine for it.
// What remains of the epilogue (ops
// the library cannot apply, such as the erf GELU, a SiLU or a head-split
// transpose) becomes a fusion of its own, reading the library's result.
// Vendor libraries run on tensor cores and tuned tiles that the generated
// templates do not reach, so the round trip through memory that the split
// costs is the smaller price.
//
// One epilogue avoids the split another way: cuBLASLt fuses only the tanh
// GELU, but cuDNN fuses the erf GELU (GELU_FWD) into a convolution, and a
// GEMM of an activation [M, K] by a constant weight [K, N] is a 1x1
// channels-last convolution of X [M, 1, 1, K] (the activation as it lies)
// by W [N, 1, 1, K] (the weight transposed once at compile time) into Y
// [M, 1, 1, N] (row-major [M, N]). With both libraries, such a float16 or
// bfloat16 matmul fusion (BERT's FFN1: GEMM, bias, erf GELU) becomes a
// cuDNN convolution between two reshapes, which are views: one call
// instead of a GEMM and a GELU kernel. It is opt-in (cudnn-gelu): on an
// H200 with cuDNN 9.14 the convolution took longer than cuBLASLt's GEMM
// and the GELU kernel together, at BERT-base's FFN1 in batch 1 and 64.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "passes/LibraryConv.h"
#include "passes/LibraryGemm.h"
#include "passes/LibrarySdpa.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cstring>

using namespace mlir;

namespace graphc {
#define GEN_PASS_DEF_SELECTLIBRARYCALLS
#include "passes/Passes.h.inc"

namespace {

/// A fusion computing `members` (ops of `source`'s body, in order) and
/// yielding `results`, before `source`; `outer` maps each value the members
/// read from outside them to the value the new fusion takes as its input.
kernel::FusionOp outline(kernel::FusionOp source, ArrayRef<Operation *> members,
                         ValueRange results, function_ref<Value(Value)> outer,
                         kernel::FusionKind kind, StringRef name,
                         kernel::ScheduleAttr schedule,
                         kernel::LibraryAttr library) {
  llvm::SmallPtrSet<Operation *, 16> inGroup(members.begin(), members.end());
  llvm::SetVector<Value> read;
  for (Operation *member : members)
    for (Value operand : member->getOperands())
      if (!inGroup.contains(operand.getDefiningOp()))
        read.insert(operand);
  SmallVector<Value> inputs;
  for (Value value : read)
    inputs.push_back(outer(value));
  SmallVector<Location> locations;
  for (Operation *member : members)
    locations.push_back(member->getLoc());
  OpBuilder builder(source);
  return buildFusion(builder, FusedLoc::get(source.getContext(), locations),
                     members, results, read.getArrayRef(), inputs, kind, name,
                     schedule, library);
}

/// "_12" of "mat_mul_add_12": the number that makes fusion names unique
/// within a bucket, which both halves of a split keep.
StringRef nameSuffix(StringRef name) {
  size_t underscore = name.rfind('_');
  return underscore == StringRef::npos ? StringRef() : name.substr(underscore);
}

/// The ops of a fusion a library computes, `root` the last.
struct Covered {
  SmallVector<Operation *> ops;
  Operation *root = nullptr;
};

/// What of `fusion` (its body's `ops`) the libraries in `libraries` compute,
/// and which one; nullopt when none of them computes its anchor.
std::optional<std::pair<Covered, kernel::Library>>
matchLibrary(kernel::FusionOp fusion, ArrayRef<Operation *> ops,
             const LibrarySet &libraries) {
  if (fusion.getKind() == kernel::FusionKind::matmul && libraries.cublaslt)
    if (std::optional<LibraryGemm> gemm =
            matchLibraryGemm(ops, libraries.float8))
      return std::pair(Covered{gemm->ops, gemm->root},
                       kernel::Library::cublaslt);
  if (fusion.getKind() == kernel::FusionKind::conv && libraries.cudnn)
    if (std::optional<LibraryConv> conv = matchLibraryConv(ops))
      return std::pair(Covered{conv->ops, conv->root},
                       kernel::Library::cudnn);
  return std::nullopt;
}

/// Whether the ops of `body` other than `covered` read nothing of them but
/// `computed`, and the fusion yields none of them: the library call can
/// take `covered` over and the rest read its result.
bool onlyResultLeaves(Block &body, ArrayRef<Operation *> rest,
                      const llvm::SmallPtrSetImpl<Operation *> &covered,
                      Value computed) {
  auto leaksCovered = [&](Value value) {
    return value != computed && covered.contains(value.getDefiningOp());
  };
  for (Operation *op : rest)
    if (llvm::any_of(op->getOperands(), leaksCovered))
      return false;
  return llvm::none_of(body.getTerminator()->getOperands(), [&](Value value) {
    return covered.contains(value.getDefiningOp());
  });
}

/// Replaces `fusion` by the library fusion `call`, computing its ops
/// `covered` (`computed` the value the rest reads), and a fusion of the
/// rest, `rest`, which reads `result` (`call`'s result, or a view of it)
/// for `computed`.
void splitOff(kernel::FusionOp fusion, ArrayRef<Operation *> rest,
              Value computed, Value result) {
  Block &body = fusion.getBody().front();
  auto inputOf = [&](Value value) {
    return fusion.getInputs()[cast<BlockArgument>(value).getArgNumber()];
  };
  if (rest.empty()) {
    fusion.replaceAllUsesWith(ValueRange{result});
    fusion.erase();
    return;
  }
  // What remains is the pointwise tail of the epilogue, or a layout
  // epilogue (a transpose of the result).
  kernel::FusionKind restKind =
      llvm::all_of(rest,
                   [](Operation *op) {
                     return classifyOp(op) == kernel::FusionKind::pointwise;
                   })
          ? kernel::FusionKind::pointwise
          : classifyOp(rest.front());
  kernel::FusionOp tail = outline(
      fusion, rest, body.getTerminator()->getOperands(),
      [&](Value value) { return value == computed ? result : inputOf(value); },
      restKind, describeFusionOps(rest) + nameSuffix(fusion.getName()).str(),
      fusion.getSchedule(), /*library=*/nullptr);
  fusion.replaceAllUsesWith(tail.getResults());
  fusion.erase();
}

/// Weights transposed for convolutions, by the constant they came from and
/// their new type: one blob per model, shared by every bucket function.
using ConvWeights = DenseMap<std::pair<Attribute, Type>, ElementsAttr>;

/// Past this many elements a new weight is a resource blob, as the
/// importer makes weights.
constexpr int64_t kDenseElementLimit = 64;

/// A library GEMM whose result only an erf GELU reads, by a constant 2-d
/// weight: cuDNN computes both as a 1x1 convolution.
struct GeluGemm {
  LibraryGemm gemm;
  graph::GeluOp gelu;
  graph::ConstantOp weight;
};

/// The GEMM of matmul fusion `fusion` (body `ops`) with the erf GELU after
/// its bias and residual, when a 1x1 convolution computes them: A dense and
/// untransposed (its leading dims the rows), B a 2-d constant, alpha and
/// beta 1, the bias [N].
std::optional<GeluGemm> matchGeluGemm(kernel::FusionOp fusion,
                                      ArrayRef<Operation *> ops) {
  std::optional<LibraryGemm> gemm = matchLibraryGemm(ops);
  if (!gemm || gemm->epilogue != exec::GemmEpilogue::none || gemm->transA ||
      gemm->batch != 1 || gemm->alpha != 1.0 ||
      (gemm->c && gemm->beta != 1.0) || gemm->lda != gemm->k)
    return std::nullopt;
  Value d = gemm->root->getResult(0);
  if (!d.hasOneUse())
    return std::nullopt;
  auto gelu = dyn_cast<graph::GeluOp>(*d.getUsers().begin());
  if (!gelu || gelu.getApproximate() != "none" ||
      !llvm::is_contained(ops, gelu.getOperation()))
    return std::nullopt;
  // Only 16-bit floats, which cuDNN fuses GELU_FWD into on tensor cores
  // (checked on an H200 with cuDNN 9.14). For float32 the GEMM stays on
  // cuBLASLt: exact float32 has no engine that fuses it (each one rounds to
  // tf32), and under --precision tf32 the fused 1x1 convolution of [M, K,
  // 1, 1] gave wrong results for M > 1.
  Type element =
      cast<RankedTensorType>(gelu.getResult().getType()).getElementType();
  if (!element.isF16() && !element.isBF16())
    return std::nullopt;
  auto a = dyn_cast<BlockArgument>(gemm->a);
  auto b = dyn_cast<BlockArgument>(gemm->b);
  if (!a || !b || cast<RankedTensorType>(b.getType()).getRank() != 2)
    return std::nullopt;
  auto weight =
      fusion.getInputs()[b.getArgNumber()].getDefiningOp<graph::ConstantOp>();
  if (!weight || (gemm->bias &&
                  cast<RankedTensorType>(gemm->bias.getType()).getRank() != 1))
    return std::nullopt;
  return GeluGemm{*gemm, gelu, weight};
}

/// The weight of `match` as the convolution's W of `type` ([N, 1, 1, K]),
/// B transposed unless the
/// GEMM already reads it transposed; null when its bytes cannot be read.
ElementsAttr convWeight(GeluGemm &match, RankedTensorType type,
                        ConvWeights &weights) {
  ElementsAttr attr = match.weight.getValue();
  ElementsAttr &moved = weights[{attr, type}];
  if (moved)
    return moved;
  FailureOr<std::vector<char>> bytes = graph::constantBytes(attr);
  unsigned bits = type.getElementTypeBitWidth();
  if (failed(bytes) || bits % 8 != 0)
    return nullptr;
  size_t element = bits / 8;
  int64_t n = match.gemm.n, k = match.gemm.k;
  std::vector<char> out(*bytes);
  if (!match.gemm.transB)
    for (int64_t row = 0; row < k; ++row)
      for (int64_t column = 0; column < n; ++column)
        std::memcpy(out.data() + (column * k + row) * element,
                    bytes->data() + (row * n + column) * element, element);
  if (type.getNumElements() <= kDenseElementLimit) {
    moved = graph::constantFromBytes(type, out);
  } else {
    AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(out), alignof(uint64_t));
    moved =
        DenseResourceElementsAttr::get(type, "conv_weight", std::move(blob));
  }
  return moved;
}

/// `value` viewed as `shape`: a graph.reshape by a constant shape.
Value reshapeTo(OpBuilder &b, Location loc, Value value,
                ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  auto shapeType = RankedTensorType::get({static_cast<int64_t>(shape.size())},
                                         b.getI64Type());
  Value shapeValue =
      b.create<graph::ConstantOp>(graph::withoutTensorNames(loc), shapeType,
                                  DenseIntElementsAttr::get(shapeType, shape));
  return b.create<graph::ReshapeOp>(loc, type.clone(shape), value, shapeValue);
}

/// Replaces the GEMM, bias, residual and erf GELU of `fusion` that `match`
/// found by a cuDNN 1x1 convolution between two views; the rest of the
/// fusion, if any, reads its result. False, changing nothing, when the rest
/// would read other values of the part the call computes.
bool convertGeluGemm(kernel::FusionOp fusion, ArrayRef<Operation *> ops,
                     GeluGemm &match, kernel::ScheduleAttr schedule,
                     ConvWeights &weights) {
  const LibraryGemm &gemm = match.gemm;
  llvm::SmallPtrSet<Operation *, 16> covered(gemm.ops.begin(), gemm.ops.end());
  covered.insert(match.gelu);
  SmallVector<Operation *> rest;
  for (Operation *op : ops)
    if (!covered.contains(op))
      rest.push_back(op);
  Block &body = fusion.getBody().front();
  Value computed = match.gelu.getResult();
  // The whole fusion yields the GELU, or the rest reads it.
  if (rest.empty() ? body.getTerminator()->getOperands() != ValueRange{computed}
                   : !onlyResultLeaves(body, rest, covered, computed))
    return false;

  // cuDNN's tensor-core engines take NHWC, as graphc-convert-conv-layout
  // makes f16 and bf16 convolutions; with a 1x1 window it is the GEMM's
  // row-major bytes.
  auto resultType = cast<RankedTensorType>(computed.getType());
  Type element = resultType.getElementType();
  auto dims = [&](int64_t rows, int64_t channels) {
    return SmallVector<int64_t>{rows, 1, 1, channels};
  };
  auto wType = RankedTensorType::get(dims(gemm.n, gemm.k), element);
  ElementsAttr w = convWeight(match, wType, weights);
  if (!w)
    return false;

  auto inputOf = [&](Value value) {
    return fusion.getInputs()[cast<BlockArgument>(value).getArgNumber()];
  };
  // The conv takes the locations of the GEMM and its bias add, so that the
  // kernel names their ONNX nodes; a residual add and the GELU keep theirs.
  SmallVector<Location> convLocs;
  Operation *residualAdd = nullptr;
  for (Operation *op : gemm.ops) {
    auto add = dyn_cast<graph::AddOp>(op);
    if (add && gemm.c && llvm::is_contained(add->getOperands(), gemm.c))
      residualAdd = op;
    else
      convLocs.push_back(op->getLoc());
  }
  // The views of the operands, the weights as a filter and the
  // convolution hold no ONNX tensor as written; the residual add and the
  // GELU hold theirs (in the convolution's dims).
  MLIRContext *context = fusion.getContext();
  Location convLoc =
      graph::withoutTensorNames(FusedLoc::get(context, convLocs));
  Location viewLoc = graph::withoutTensorNames(gemm.root->getLoc());

  OpBuilder b(fusion);
  Value x = reshapeTo(b, viewLoc, inputOf(gemm.a), dims(gemm.m, gemm.k));
  Value wValue = b.create<graph::ConstantOp>(
      graph::withoutTensorNames(match.weight.getLoc()), wType, w);
  SmallVector<Value> operands = {x, wValue};
  if (gemm.bias)
    operands.push_back(inputOf(gemm.bias));
  NamedAttribute channelsLast =
      b.getNamedAttr("channels_last", b.getI64IntegerAttr(1));
  auto yType = RankedTensorType::get(dims(gemm.m, gemm.n), element);
  // The members, built before the fusion and cloned into it.
  SmallVector<Operation *> members;
  Value current =
      b.create<graph::ConvOp>(convLoc, TypeRange{yType}, operands,
                              ArrayRef<NamedAttribute>{channelsLast});
  members.push_back(current.getDefiningOp());
  if (gemm.c) {
    Value z = reshapeTo(b, viewLoc, inputOf(gemm.c), dims(gemm.m, gemm.n));
    current = b.create<graph::AddOp>(
        residualAdd ? residualAdd->getLoc() : convLoc, yType, current, z);
    members.push_back(current.getDefiningOp());
  }
  current = b.create<graph::GeluOp>(match.gelu.getLoc(), yType, current,
                                    match.gelu.getApproximateAttr());
  members.push_back(current.getDefiningOp());
  kernel::FusionOp call = outline(
      fusion, members, current, [](Value value) { return value; },
      kernel::FusionKind::conv,
      describeFusionOps(members) + nameSuffix(fusion.getName()).str(), schedule,
      kernel::LibraryAttr::get(context, kernel::Library::cudnn));
  for (Operation *member : llvm::reverse(members))
    member->erase();
  b.setInsertionPoint(fusion);
  Value result = reshapeTo(b, match.gelu.getLoc(), call.getResult(0),
                           resultType.getShape());
  splitOff(fusion, rest, computed, result);
  // The weight as the GEMM read it is no longer a weight of the model.
  if (match.weight->use_empty())
    match.weight->erase();
  return true;
}

void selectLibraryCall(kernel::FusionOp fusion, int64_t workspaceBytes,
                       const LibrarySet &libraries, ConvWeights &weights) {
  Block &body = fusion.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  MLIRContext *context = fusion.getContext();
  auto schedule = kernel::ScheduleAttr::get(
      context, kernel::ScheduleSource::heuristic, /*block_size=*/std::nullopt,
      /*elements_per_thread=*/std::nullopt, /*tile=*/std::nullopt,
      /*rows_per_block=*/std::nullopt, /*algo_rank=*/std::nullopt,
      /*split_k=*/std::nullopt, workspaceBytes);
  if (fusion.getKind() == kernel::FusionKind::attention) {
    // cuDNN takes the whole attention or none of it; the fusion keeps its
    // schedule (its generated kernel is the fallback) and gains the
    // workspace the library may use.
    if (!libraries.cudnnSdpa ||
        !matchLibrarySdpa(ops, body.getTerminator()->getOperands()))
      return;
    fusion.setScheduleAttr(
        fusion.getSchedule().withWorkspaceBytes(workspaceBytes));
    fusion.setLibraryAttr(
        kernel::LibraryAttr::get(context, kernel::Library::cudnn));
    return;
  }
  // cuBLASLt would leave the erf GELU to a kernel of its own: cuDNN fuses
  // it into the same GEMM seen as a 1x1 convolution, when asked to.
  if (fusion.getKind() == kernel::FusionKind::matmul && libraries.cudnnGelu &&
      libraries.cudnn)
    if (std::optional<GeluGemm> match = matchGeluGemm(fusion, ops))
      if (convertGeluGemm(fusion, ops, *match, schedule, weights))
        return;
  auto matched = matchLibrary(fusion, ops, libraries);
  if (!matched)
    return;
  auto &[part, which] = *matched;
  auto library = kernel::LibraryAttr::get(context, which);
  if (part.ops.size() == ops.size()) {
    fusion.setScheduleAttr(schedule);
    fusion.setLibraryAttr(library);
    return;
  }

  llvm::SmallPtrSet<Operation *, 16> covered(part.ops.begin(),
                                             part.ops.end());
  SmallVector<Operation *> rest;
  for (Operation *op : ops)
    if (!covered.contains(op))
      rest.push_back(op);
  // Only D may leave the library call, and only to the rest of the fusion.
  Value computed = part.root->getResult(0);
  if (!onlyResultLeaves(body, rest, covered, computed))
    return;
  auto inputOf = [&](Value value) {
    return fusion.getInputs()[cast<BlockArgument>(value).getArgNumber()];
  };
  kernel::FusionOp call = outline(
      fusion, part.ops, part.root->getResults(), inputOf, fusion.getKind(),
      describeFusionOps(part.ops) + nameSuffix(fusion.getName()).str(),
      schedule, library);
  splitOff(fusion, rest, computed, call.getResult(0));
}

struct SelectLibraryCallsPass
    : impl::SelectLibraryCallsBase<SelectLibraryCallsPass> {
  using SelectLibraryCallsBase::SelectLibraryCallsBase;
  void runOnOperation() override {
    if (failed(selectLibraryCalls(
            getOperation(), workspaceBytes,
            LibrarySet{cublaslt, cudnn, cudnnSdpa, cudnnGelu, float8})))
      signalPassFailure();
  }
};

} // namespace

LogicalResult selectLibraryCalls(ModuleOp module, int64_t workspaceBytes,
                                 const LibrarySet &libraries) {
  if (workspaceBytes < 0)
    return module.emitError("library workspace of ")
           << workspaceBytes << " bytes";
  SmallVector<kernel::FusionOp> fusions;
  module.walk([&](kernel::FusionOp fusion) {
    if ((fusion.getKind() == kernel::FusionKind::matmul ||
         fusion.getKind() == kernel::FusionKind::conv ||
         fusion.getKind() == kernel::FusionKind::attention) &&
        !fusion.getLibrary())
      fusions.push_back(fusion);
  });
  ConvWeights weights;
  for (kernel::FusionOp fusion : fusions)
    selectLibraryCall(fusion, workspaceBytes, libraries, weights);
  return success();
}

} // namespace graphc
