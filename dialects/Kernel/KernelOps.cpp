//===- KernelOps.cpp - kernel dialect -------------------------------------===//

#include "dialects/Kernel/KernelOps.h"

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
