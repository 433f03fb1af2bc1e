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

/// Whether `attr` is an array of `count` slots (any count when nullopt).
static bool isSlotArray(Attribute attr, std::optional<size_t> count) {
  auto array = dyn_cast<ArrayAttr>(attr);
  return array && (!count || array.size() == *count) &&
         llvm::all_of(array,
                      [](Attribute slot) { return isa<SlotAttr>(slot); });
}

LogicalResult ExecDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringAttr name = attr.getName();
  Attribute value = attr.getValue();
  if (name == getSlotsAttrHelper().getName()) {
    if (!isSlotArray(value, op->getNumResults()))
      return op->emitOpError("needs one #exec.slot per result in '")
             << name.getValue() << "'";
  } else if (name == getWorkspaceAttrHelper().getName()) {
    if (!isa<SlotAttr>(value))
      return op->emitOpError("needs a #exec.slot in '")
             << name.getValue() << "'";
  } else if (name == getScratchAttrHelper().getName()) {
    if (!isSlotArray(value, 2))
      return op->emitOpError("needs two #exec.slot (partials and counters) "
                             "in '")
             << name.getValue() << "'";
  } else if (name == getArenaBytesAttrHelper().getName() ||
             name == getIntermediateBytesAttrHelper().getName() ||
             name == getLiveBytesBoundAttrHelper().getName()) {
    auto bytes = dyn_cast<IntegerAttr>(value);
    if (!bytes || !bytes.getType().isInteger(64) || bytes.getInt() < 0)
      return op->emitOpError("needs a non-negative i64 in '")
             << name.getValue() << "'";
  }
  return success();
}

LogicalResult CopyOp::verify() {
  if (getSource().getSize() != getTarget().getSize())
    return emitOpError("copies ")
           << getSource().getSize() << " bytes into a slot of "
           << getTarget().getSize();
  if (std::optional<ArrayAttr> results = getResults()) {
    auto result = results->size() == 1
                      ? cast<StepResultAttr>(results->getValue().front())
                      : StepResultAttr();
    if (!result || result.getArg() != 1)
      return emitOpError("has one result, its target (argument 1)");
    if (slotBytes(result.getType()) != getTarget().getSize())
      return emitOpError("says its target holds ")
             << result.getType() << " (" << slotBytes(result.getType())
             << " bytes), in a slot of " << getTarget().getSize();
  }
  return success();
}

LogicalResult LoopOp::verify() {
  if (getMaxIterationsAttr().getInt() < 1)
    return emitOpError("needs max_iterations of at least 1");
  if (getBodyStepsAttr().getInt() < 0)
    return emitOpError("has a negative number of body steps");
  if (getState().getKind() != BufferKind::arena || getState().getSize() != 16)
    return emitOpError("needs a state of 16 bytes in the arena");
  auto oneElement = [](SlotAttr slot, int64_t bytes) {
    return slot.getKind() == BufferKind::none || slot.getSize() == bytes;
  };
  if (!oneElement(getTripCount(), 8))
    return emitOpError("reads a trip count of ")
           << getTripCount().getSize() << " bytes, not one int64";
  if (!oneElement(getCondition(), 1) || !oneElement(getBodyCondition(), 1))
    return emitOpError("reads a condition that is not one bool");
  // The body is the steps after the loop within its plan.
  int64_t after = 0;
  for (Operation *op = getOperation()->getNextNode(); op;
       op = op->getNextNode())
    ++after;
  if (getBodyStepsAttr().getInt() > after)
    return emitOpError("has ")
           << getBodyStepsAttr().getInt() << " body steps but the plan has "
           << after
           << " after it";
  return success();
}

LogicalResult
StepResultAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t arg, RankedTensorType type,
                       StringRef onnxTensor) {
  if (arg < 0)
    return emitError() << "step result needs an argument index";
  if (!type.hasStaticShape())
    return emitError() << "step result needs a static type, not " << type;
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
  if (epilogue == GemmEpilogue::silu || epilogue == GemmEpilogue::gelu_erf)
    return emitError() << "gemm epilogue must be none, relu or gelu_tanh";
  return success();
}

LogicalResult
ConvAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t n,
                 int64_t c, int64_t k, int64_t groups,
                 DenseI64ArrayAttr inSize, DenseI64ArrayAttr filterSize,
                 DenseI64ArrayAttr outSize, DenseI64ArrayAttr padsBegin,
                 DenseI64ArrayAttr padsEnd, DenseI64ArrayAttr strides,
                 DenseI64ArrayAttr dilations, GemmEpilogue epilogue,
                 int64_t x, int64_t w, int64_t bias, int64_t z, int64_t y,
                 bool channelsLast) {
  if (n < 1 || c < 1 || k < 1 || groups < 1 || c % groups || k % groups)
    return emitError() << "conv needs positive n, c and k, and groups "
                          "dividing c and k";
  size_t rank = inSize.size();
  if (rank < 1 || rank > 3)
    return emitError() << "conv needs 1 to 3 spatial dims, not " << rank;
  for (DenseI64ArrayAttr dims :
       {filterSize, outSize, padsBegin, padsEnd, strides, dilations})
    if (dims.size() != rank)
      return emitError() << "conv needs " << rank
                         << " entries in each of its spatial arrays";
  for (size_t i = 0; i < rank; ++i) {
    if (inSize[i] < 1 || filterSize[i] < 1 || strides[i] < 1 ||
        dilations[i] < 1 || padsBegin[i] < 0 || padsEnd[i] < 0)
      return emitError() << "conv spatial dim " << i
                         << " has a size, stride or dilation below 1, or "
                            "a negative pad";
    int64_t span = inSize[i] + padsBegin[i] + padsEnd[i] -
                   dilations[i] * (filterSize[i] - 1) - 1;
    if (span < 0 || span / strides[i] + 1 != outSize[i])
      return emitError() << "conv spatial dim " << i << " of size "
                         << inSize[i] << " gives " << outSize[i]
                         << " outputs, not what its filter, pads, stride "
                            "and dilation give";
  }
  if (epilogue == GemmEpilogue::gelu_tanh)
    return emitError() << "conv epilogue must be none, relu, silu or gelu_erf";
  if (x < 0 || w < 0 || y < 0 || bias < -1 || z < -1)
    return emitError() << "conv needs X, W and Y arguments";
  return success();
}

LogicalResult
SdpaAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t batch,
                 int64_t heads, int64_t kvHeads, int64_t queries, int64_t keys,
                 int64_t headDim, int64_t valueDim, APFloat scale,
                 bool isCausal, int64_t q, int64_t k, int64_t v, int64_t bias,
                 int64_t o, int64_t qOffset, int64_t kOffset, int64_t vOffset,
                 int64_t oOffset, int64_t biasOffset,
                 DenseI64ArrayAttr qStrides, DenseI64ArrayAttr kStrides,
                 DenseI64ArrayAttr vStrides, DenseI64ArrayAttr oStrides,
                 DenseI64ArrayAttr biasDims, DenseI64ArrayAttr biasStrides) {
  if (batch < 1 || heads < 1 || kvHeads < 1 || queries < 1 || keys < 1 ||
      headDim < 1 || valueDim < 1 || heads % kvHeads)
    return emitError() << "sdpa needs positive sizes and kv_heads dividing "
                          "heads";
  for (DenseI64ArrayAttr strides :
       {qStrides, kStrides, vStrides, oStrides, biasDims, biasStrides})
    if (strides.size() != 4 ||
        llvm::any_of(strides.asArrayRef(), [](int64_t s) { return s < 0; }))
      return emitError() << "sdpa needs 4 non-negative strides per tensor "
                            "and 4 bias dims";
  for (DenseI64ArrayAttr strides : {qStrides, kStrides, vStrides, oStrides})
    if (strides[3] != 1)
      return emitError() << "sdpa tensors need a unit innermost stride";
  if (qOffset < 0 || kOffset < 0 || vOffset < 0 || oOffset < 0 ||
      biasOffset < 0)
    return emitError() << "sdpa offsets must not be negative";
  if (q < 0 || k < 0 || v < 0 || o < 0 || bias < -1)
    return emitError() << "sdpa needs Q, K, V and O arguments";
  return success();
}

LogicalResult KernelOp::verify() {
  std::optional<kernel::Library> library = getLibrary();
  if (int(bool(getGemm())) + int(bool(getConv())) + int(bool(getSdpa())) > 1)
    return emitOpError("computes at most one of a gemm, a conv and an sdpa");
  if (library != (getGemm() ? std::optional(kernel::Library::cublaslt)
                  : getConv() || getSdpa()
                      ? std::optional(kernel::Library::cudnn)
                      : std::nullopt))
    return emitOpError("sets library with what it computes: cublaslt with a "
                       "gemm, cudnn with a conv or an sdpa, or none of them");
  ConvAttr conv = getConvAttr();
  SdpaAttr sdpa = getSdpaAttr();
  Block &body = getBody().front();
  int64_t numArgs =
      body.getNumArguments() + body.getTerminator()->getNumOperands();
  auto checkArguments = [&](StringRef what, ArrayRef<int64_t> indices,
                            int64_t output) -> LogicalResult {
    for (int64_t index : indices)
      if (index >= numArgs)
        return emitOpError(what) << " names argument " << index
                                 << " of a kernel with " << numArgs;
    if (output != static_cast<int64_t>(body.getNumArguments()) ||
        body.getTerminator()->getNumOperands() != 1)
      return emitOpError(what) << " must write the kernel's one output";
    return success();
  };
  if (GemmAttr gemm = getGemmAttr())
    if (failed(checkArguments("gemm",
                              {gemm.getA(), gemm.getB(), gemm.getC(),
                               gemm.getBias(), gemm.getD()},
                              gemm.getD())))
      return failure();
  if (conv && failed(checkArguments("conv",
                                    {conv.getX(), conv.getW(), conv.getBias(),
                                     conv.getZ(), conv.getY()},
                                    conv.getY())))
    return failure();
  if (sdpa && failed(checkArguments("sdpa",
                                    {sdpa.getQ(), sdpa.getK(), sdpa.getV(),
                                     sdpa.getBias(), sdpa.getO()},
                                    sdpa.getO())))
    return failure();
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

bool graphc::exec::hasDeviceCode(KernelOp kernel) {
  if (!kernel.getLibrary())
    return true;
  ConvAttr conv = kernel.getConvAttr();
  return (conv && conv.hasEpilogue()) || kernel.getSdpa();
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

/// Checks the results `op` lists (when it lists them): one per output of
/// `kernel`, in order, each in its output's argument with its type.
static LogicalResult verifyStepResults(Operation *op, KernelOp kernel,
                                       std::optional<ArrayAttr> results) {
  if (!results)
    return success();
  Block &body = kernel.getBody().front();
  Operation *yield = body.getTerminator();
  if (results->size() != yield->getNumOperands())
    return op->emitOpError("lists ")
           << results->size() << " results but kernel @" << kernel.getSymName()
           << " has " << yield->getNumOperands() << " outputs";
  for (auto [i, attr] : llvm::enumerate(*results)) {
    auto result = cast<StepResultAttr>(attr);
    int64_t arg = body.getNumArguments() + i;
    if (result.getArg() != arg ||
        result.getType() != yield->getOperandTypes()[i])
      return op->emitOpError("lists result ")
             << i << " as argument " << result.getArg() << " of type "
             << result.getType() << ", not argument " << arg << " of type "
             << yield->getOperandTypes()[i];
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
  if (auto scratch = getScratch()) {
    if (kernel.getKind() != kernel::FusionKind::attention ||
        scratch->size() != 2)
      return emitOpError("passes scratch to @")
             << getKernel()
             << ": only attention kernels take scratch (partials, counters)";
    for (Attribute slot : *scratch)
      if (cast<SlotAttr>(slot).getKind() != BufferKind::arena)
        return emitOpError("passes scratch outside the arena");
  }
  if (failed(verifyKernelArgs(*this, kernel, getArgs())))
    return failure();
  return verifyStepResults(*this, kernel, getResults());
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
  if (failed(verifyKernelArgs(*this, kernel, getArgs())))
    return failure();
  return verifyStepResults(*this, kernel, getResults());
}
