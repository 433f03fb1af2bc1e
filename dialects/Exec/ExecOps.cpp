//===- ExecOps.cpp - exec dialect -----------------------------------------===//

#include "dialects/Exec/ExecOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace graphc::exec;

#include "dialects/Exec/ExecDialect.cpp.inc"
#include "dialects/Exec/ExecEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Exec/ExecAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/Exec/ExecOps.cpp.inc"

void ExecDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Exec/ExecAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/Exec/ExecOps.cpp.inc"
      >();
}

LogicalResult CopyOp::verify() {
  if (getSource().getSize() != getTarget().getSize())
    return emitOpError("copies ")
           << getSource().getSize() << " bytes into a slot of "
           << getTarget().getSize();
  return success();
}

int64_t graphc::exec::slotBytes(Type tensorType) {
  auto shaped = cast<RankedTensorType>(tensorType);
  int64_t elementBytes =
      std::max<int64_t>(1, (shaped.getElementTypeBitWidth() + 7) / 8);
  return shaped.getNumElements() * elementBytes;
}

Operation *graphc::exec::getComputeOp(KernelOp kernel) {
  Operation *compute = nullptr;
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (op.hasTrait<OpTrait::ConstantLike>())
      continue;
    if (compute)
      return nullptr;
    compute = &op;
  }
  return compute;
}
