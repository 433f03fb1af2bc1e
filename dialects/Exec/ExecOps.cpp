//===- ExecOps.cpp - exec dialect -----------------------------------------===//

#include "dialects/Exec/ExecOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

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

LogicalResult KernelOp::verify() {
  if (!getGrid() && !getBlock() && !getSharedBytes())
    return success();
  if (!getGrid() || !getBlock() || !getSharedBytes())
    return emitOpError("sets grid, block and shared_bytes together or none");
  for (ArrayRef<int64_t> dims : {*getGrid(), *getBlock()})
    if (dims.size() != 3 || llvm::any_of(dims, [](int64_t d) {
          return d < 1 || d > std::numeric_limits<int32_t>::max();
        }))
      return emitOpError("grid and block need 3 sizes in [1, 2^31)");
  if (*getSharedBytes() < 0 ||
      *getSharedBytes() > std::numeric_limits<int32_t>::max())
    return emitOpError("shared_bytes must be in [0, 2^31)");
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

std::optional<unsigned> graphc::exec::getKernelArgument(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getArgNumber();
  Operation *def = value.getDefiningOp();
  if (!def || !def->hasTrait<OpTrait::ConstantLike>())
    return std::nullopt;
  if (auto index = def->getAttrOfType<IntegerAttr>(kArgumentAttr))
    return index.getInt();
  return std::nullopt;
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto kernel =
      symbolTable.lookupNearestSymbolFrom<KernelOp>(*this, getKernelAttr());
  if (!kernel)
    return emitOpError("launches '") << getKernel() << "', which is not an exec.kernel";
  Block &body = kernel.getBody().front();
  SmallVector<Type> types(body.getArgumentTypes());
  llvm::append_range(types, body.getTerminator()->getOperandTypes());
  if (getArgs().size() != types.size())
    return emitOpError("passes ")
           << getArgs().size() << " slots but kernel @" << getKernel()
           << " takes " << body.getNumArguments() << " inputs and "
           << types.size() - body.getNumArguments() << " outputs";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(getArgs(), types))) {
    auto [attr, type] = pair;
    auto slot = cast<SlotAttr>(attr);
    bool isInput = i < body.getNumArguments();
    size_t index = isInput ? i : i - body.getNumArguments();
    if (slot.getKind() == BufferKind::none)
      return emitOpError("passes no slot for ")
             << (isInput ? "input " : "output ") << index << " of @"
             << getKernel();
    if (slot.getSize() != slotBytes(type))
      return emitOpError("passes a slot of ")
             << slot.getSize() << " bytes for "
             << (isInput ? "input " : "output ") << index << " of @"
             << getKernel() << ", of type " << type << " ("
             << slotBytes(type) << " bytes)";
    if (!isInput && (slot.getKind() == BufferKind::weights ||
                     slot.getKind() == BufferKind::input))
      return emitOpError("writes output ")
             << index << " of @" << getKernel() << " into a read-only slot";
  }
  return success();
}
