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
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "passes/LibraryConv.h"
#include "passes/LibraryGemm.h"
#include "passes/LibrarySdpa.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

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
                         DictionaryAttr schedule, kernel::LibraryAttr library) {
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
    if (std::optional<LibraryGemm> gemm = matchLibraryGemm(ops))
      return std::pair(Covered{gemm->ops, gemm->root},
                       kernel::Library::cublaslt);
  if (fusion.getKind() == kernel::FusionKind::conv && libraries.cudnn)
    if (std::optional<LibraryConv> conv = matchLibraryConv(ops))
      return std::pair(Covered{conv->ops, conv->root},
                       kernel::Library::cudnn);
  return std::nullopt;
}

void selectLibraryCall(kernel::FusionOp fusion, int64_t workspaceBytes,
                       const LibrarySet &libraries) {
  Block &body = fusion.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  MLIRContext *context = fusion.getContext();
  Builder b(context);
  DictionaryAttr schedule = b.getDictionaryAttr(
      {b.getNamedAttr("source", b.getStringAttr("heuristic")),
       b.getNamedAttr("workspace_bytes", b.getI64IntegerAttr(workspaceBytes))});
  if (fusion.getKind() == kernel::FusionKind::attention) {
    // cuDNN takes the whole attention or none of it; the fusion keeps its
    // schedule (its generated kernel is the fallback) and gains the
    // workspace the library may use.
    if (!libraries.cudnnSdpa ||
        !matchLibrarySdpa(ops, body.getTerminator()->getOperands()))
      return;
    SmallVector<NamedAttribute> entries(fusion.getSchedule().getValue());
    llvm::erase_if(entries, [](NamedAttribute entry) {
      return entry.getName() == "workspace_bytes";
    });
    entries.push_back(
        b.getNamedAttr("workspace_bytes", b.getI64IntegerAttr(workspaceBytes)));
    fusion.setScheduleAttr(b.getDictionaryAttr(entries));
    fusion.setLibraryAttr(
        kernel::LibraryAttr::get(context, kernel::Library::cudnn));
    return;
  }
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
  auto leaksCovered = [&](Value value) {
    return value != computed && covered.contains(value.getDefiningOp());
  };
  for (Operation *op : rest)
    if (llvm::any_of(op->getOperands(), leaksCovered))
      return;
  if (llvm::any_of(body.getTerminator()->getOperands(), [&](Value value) {
        return covered.contains(value.getDefiningOp());
      }))
    return;
  StringRef suffix = nameSuffix(fusion.getName());
  auto inputOf = [&](Value value) {
    return fusion.getInputs()[cast<BlockArgument>(value).getArgNumber()];
  };
  kernel::FusionOp call = outline(
      fusion, part.ops, part.root->getResults(), inputOf, fusion.getKind(),
      describeFusionOps(part.ops) + suffix.str(), schedule, library);
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
      [&](Value value) {
        return value == computed ? call.getResult(0) : inputOf(value);
      },
      restKind, describeFusionOps(rest) + suffix.str(),
      fusion.getSchedule(), /*library=*/nullptr);
  fusion.replaceAllUsesWith(tail.getResults());
  fusion.erase();
}

struct SelectLibraryCallsPass
    : impl::SelectLibraryCallsBase<SelectLibraryCallsPass> {
  using SelectLibraryCallsBase::SelectLibraryCallsBase;
  void runOnOperation() override {
    if (failed(selectLibraryCalls(getOperation(), workspaceBytes,
                                  LibrarySet{cublaslt, cudnn, cudnnSdpa})))
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
  for (kernel::FusionOp fusion : fusions)
    selectLibraryCall(fusion, workspaceBytes, libraries);
  return success();
}

} // namespace graphc
