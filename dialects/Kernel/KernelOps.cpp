//===- KernelOps.cpp - kernel dialect -------------------------------------===//

#include "dialects/Kernel/KernelOps.h"

#include "lib/Support/Schedule.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace graphc::kernel;

#include "dialects/Kernel/KernelDialect.cpp.inc"
#include "dialects/Kernel/KernelEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Kernel/KernelAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/Kernel/KernelOps.cpp.inc"

void KernelDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Kernel/KernelAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/Kernel/KernelOps.cpp.inc"
      >();
}

// The messages name the knob as the tuning database spells it: callers
// prefix them ("tuned ") through their emitError.
LogicalResult ScheduleAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ScheduleSource source,
    std::optional<int64_t> blockSize, std::optional<int64_t> elementsPerThread,
    std::optional<int64_t> tile, std::optional<int64_t> rowsPerBlock,
    std::optional<int64_t> algoRank, std::optional<int64_t> splitK,
    std::optional<int64_t> workspaceBytes) {
  if (blockSize && !isValidBlockSize(*blockSize))
    return emitError() << "block_size " << *blockSize
                       << " is not a multiple of 32 in [32, 1024]";
  if (elementsPerThread && !isValidElementsPerThread(*elementsPerThread))
    return emitError() << "elements_per_thread " << *elementsPerThread
                       << " is not a power of two in [1, 64]";
  if (rowsPerBlock &&
      !isValidRowsPerBlock(*rowsPerBlock,
                           blockSize.value_or(kHeuristicBlockSize)))
    return emitError() << "rows_per_block " << *rowsPerBlock
                       << " is neither 1 nor a power of two in [2, 32] with "
                          "block_size 32 times it";
  if (tile && !isValidTile(*tile))
    return emitError() << "tile " << *tile << " is not 8, 16 or 32";
  if (algoRank && !isValidAlgoRank(*algoRank))
    return emitError() << "algo_rank " << *algoRank << " is not in [0, "
                       << kMaxAlgoRanks << ")";
  if (splitK && !isValidSplitK(*splitK))
    return emitError() << "split_k " << *splitK << " is neither 0 nor in [2, "
                       << kMaxSplitK << "]";
  if (workspaceBytes && *workspaceBytes < 0)
    return emitError() << "workspace_bytes " << *workspaceBytes
                       << " is negative";
  return success();
}

ScheduleAttr ScheduleAttr::withWorkspaceBytes(int64_t bytes) const {
  return get(getContext(), getSource(), getBlockSize(), getElementsPerThread(),
             getTile(), getRowsPerBlock(), getAlgoRank(), getSplitK(), bytes);
}

LogicalResult FusionOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("has ") << getInputs().size() << " inputs but its body "
                               << body.getNumArguments() << " arguments";
  for (auto [input, arg] : llvm::zip(getInputs(), body.getArguments()))
    if (input.getType() != arg.getType())
      return emitOpError("input type ")
             << input.getType() << " does not match body argument type "
             << arg.getType();
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yields ")
           << yield.getValues().getTypes() << " but returns "
           << getResultTypes();
  // cuBLASLt computes matmul fusions, cuDNN conv and attention fusions.
  if (std::optional<Library> library = getLibrary()) {
    bool cudnn = *library == Library::cudnn;
    bool computes = cudnn ? getKind() == FusionKind::conv ||
                                getKind() == FusionKind::attention
                          : getKind() == FusionKind::matmul;
    if (!computes)
      return emitOpError("computes a ")
             << stringifyFusionKind(getKind()) << " fusion with "
             << stringifyLibrary(*library) << ", which computes only "
             << (cudnn ? "conv and attention" : "matmul") << " fusions";
  }
  if (getHash().size() != 16 ||
      !llvm::all_of(getHash(), [](char c) { return llvm::isHexDigit(c); }))
    return emitOpError("hash must be 16 hex digits");
  return success();
}
