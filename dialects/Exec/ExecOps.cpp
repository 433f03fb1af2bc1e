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

LogicalResult
GemmAttr::verify(function_ref<InFlightDiagnostic()> emitError, bool transA,
                 bool transB, int64_t m, int64_t n, int64_t k, int64_t batch,
                 int64_t lda, int64_t ldb, int64_t ldc, int64_t strideA,
                 int64_t strideB, int64_t strideC, APFloat alpha, APFloat beta,
                 GemmEpilogue epilogue, int64_t a, int64_t b, int64_t c,
                 int64_t bias, int64_t d) {
  if (m < 1 || n < 1 || k < 1 || batch < 1)
    return emitError() << "gemm needs m, n, k and batch of at least 1";
  if (lda < (transA ? m : k) || ldb < (transB ? k : n) || ldc < n)
    return emitError() << "gemm leading dims are shorter than their rows";
  if (strideA < 0 || strideB < 0 || strideC < 0)
    return emitError() << "gemm batch strides must not be negative";
  if (a < 0 || b < 0 || d < 0 || c < -1 || bias < -1)
    return emitError() << "gemm needs A, B and D arguments";
  if ((c >= 0) != !beta.isZero())
    return emitError() << "gemm reads C exactly when beta is not 0";
  return success();
}

LogicalResult KernelOp::verify() {
  if (getLibrary().has_value() != static_cast<bool>(getGemm()))
    return emitOpError("sets library and gemm together or none");
  if (getLibrary() && (getGrid() || getBlock() || getSharedBytes() ||
                       getUnit()))
    return emitOpError("is a library kernel and has no launch dimensions");
  if (getUnit() && *getUnit() > uint64_t(std::numeric_limits<int32_t>::max()))
    return emitOpError("unit must be in [0, 2^31)");
  if (GemmAttr gemm = getGemmAttr()) {
    Block &body = getBody().front();
    int64_t numArgs = body.getNumArguments() +
                      body.getTerminator()->getNumOperands();
    for (int64_t index : {gemm.getA(), gemm.getB(), gemm.getC(),
                          gemm.getBias(), gemm.getD()})
      if (index >= numArgs)
        return emitOpError("gemm names argument ")
               << index << " of a kernel with " << numArgs;
    if (gemm.getD() != static_cast<int64_t>(body.getNumArguments()))
      return emitOpError("gemm must write the kernel's first output");
  }
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

/// Checks the slots `op` passes to `kernel`: one per input, then one per
/// output, each as large as its tensor, no output in a read-only slot.
static LogicalResult verifyKernelArgs(Operation *op, KernelOp kernel,
                                      ArrayAttr args) {
  StringRef name = kernel.getSymName();
  Block &body = kernel.getBody().front();
  SmallVector<Type> types(body.getArgumentTypes());
  llvm::append_range(types, body.getTerminator()->getOperandTypes());
  if (args.size() != types.size())
    return op->emitOpError("passes ")
           << args.size() << " slots but kernel @" << name
           << " takes " << body.getNumArguments() << " inputs and "
           << types.size() - body.getNumArguments() << " outputs";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(args, types))) {
    auto [attr, type] = pair;
    auto slot = cast<SlotAttr>(attr);
    bool isInput = i < body.getNumArguments();
    size_t index = isInput ? i : i - body.getNumArguments();
    if (slot.getKind() == BufferKind::none)
      return op->emitOpError("passes no slot for ")
             << (isInput ? "input " : "output ") << index << " of @"
             << name;
    if (slot.getSize() != slotBytes(type))
      return op->emitOpError("passes a slot of ")
             << slot.getSize() << " bytes for "
             << (isInput ? "input " : "output ") << index << " of @"
             << name << ", of type " << type << " ("
             << slotBytes(type) << " bytes)";
    if (!isInput && (slot.getKind() == BufferKind::weights ||
                     slot.getKind() == BufferKind::input))
      return op->emitOpError("writes output ")
             << index << " of @" << name << " into a read-only slot";
  }
  return success();
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto kernel =
      symbolTable.lookupNearestSymbolFrom<KernelOp>(*this, getKernelAttr());
  if (!kernel)
    return emitOpError("launches '")
           << getKernel() << "', which is not an exec.kernel";
  if (kernel.getLibrary())
    return emitOpError("launches library kernel @")
           << getKernel() << ": it is reached by exec.library_call";
  return verifyKernelArgs(*this, kernel, getArgs());
}

LogicalResult
LibraryCallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto kernel =
      symbolTable.lookupNearestSymbolFrom<KernelOp>(*this, getKernelAttr());
  if (!kernel)
    return emitOpError("calls '")
           << getKernel() << "', which is not an exec.kernel";
  if (!kernel.getLibrary())
    return emitOpError("calls @")
           << getKernel() << ", which no library computes";
  BufferKind workspace = getWorkspace().getKind();
  if (workspace != BufferKind::arena && workspace != BufferKind::none)
    return emitOpError("needs an arena workspace, or none");
  return verifyKernelArgs(*this, kernel, getArgs());
}
