//===- CudaEmitter.cpp - CUDA C++ kernels for graph ops -------------------===//
//
// Chooses the template of a kernel: its fusion kind picks the family, and a
// kernel of one op goes to the emitter of that op's category. Every category
// reads operands by ONNX input slot and attributes through the op classes'
// accessors, which hold the ONNX defaults.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/CudaEmitter.h"
#include "lib/Codegen/CUDA/EmitSupport.h"

#include "dialects/Graph/GraphOps.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace graphc::codegen {

static LogicalResult checkBlockSize(Operation *op, int64_t blockSize) {
  if (blockSize < 32 || blockSize > 1024 || blockSize % 32 != 0)
    return op->emitError() << "cannot emit a cuda kernel for '"
                           << op->getName() << "': block_size " << blockSize
                           << " is not a multiple of 32 in [32, 1024]";
  return success();
}

/// Emits the body of the kernel computing `emitter`'s op alone.
static LogicalResult emitOp(cuda::KernelEmitter &emitter) {
  Operation *op = emitter.getOp();
  if (!isa_and_nonnull<graph::GraphDialect>(op->getDialect()))
    return op->emitError() << "cannot emit a cuda kernel for '" << op->getName()
                           << "': not a graph op";
  if (isa<graph::ConstantOp>(op))
    return emitter.fail("constants are data, never kernels");
  if (failed(emitter.checkTypes()))
    return failure();

  if (op->hasTrait<graph::OpTrait::Pointwise>())
    return cuda::emitPointwise(emitter);
  // Keep hasCudaEmitter in step with these families.
  OperationName name = op->getName();
  if (cuda::isDataMovement(name))
    return cuda::emitDataMovement(emitter);
  if (cuda::isReduction(name))
    return cuda::emitReduction(emitter);
  if (cuda::isNormalization(name))
    return cuda::emitNormalization(emitter);
  if (cuda::isConvPool(name))
    return cuda::emitConvPool(emitter);
  if (cuda::isLinearAlgebra(name))
    return cuda::emitLinearAlgebra(emitter);
  if (isa<graph::AttentionOp>(op))
    return cuda::emitAttention(emitter);
  return emitter.fail("no cuda emitter for this op");
}

bool hasCudaEmitter(RegisteredOperationName name) {
  if (!isa<graph::GraphDialect>(name.getDialect()) ||
      cuda::isOneOf<graph::ConstantOp>(name))
    return false;
  return name.hasTrait<graph::OpTrait::Pointwise>() ||
         cuda::isDataMovement(name) || cuda::isReduction(name) ||
         cuda::isNormalization(name) || cuda::isConvPool(name) ||
         cuda::isLinearAlgebra(name) || cuda::isOneOf<graph::AttentionOp>(name);
}

FailureOr<CudaKernel> emitCudaKernel(Operation *op, llvm::StringRef name,
                                     int64_t blockSize) {
  if (failed(checkBlockSize(op, blockSize)))
    return failure();
  cuda::KernelEmitter emitter(op, name, blockSize);
  if (failed(emitOp(emitter)))
    return failure();
  return emitter.finish();
}

/// Whether every value the fusion `kernel` reads or computes has
/// a CUDA element type and static dims.
static LogicalResult checkFusionTypes(exec::KernelOp kernel) {
  auto check = [](Value value, Operation *where) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (type && type.hasStaticShape() &&
        !cuda::cxxType(type.getElementType()).empty())
      return success();
    return cuda::failOp(where, "a value of type " +
                                   llvm::Twine(llvm::formatv(
                                       "{0}", value.getType()).str()) +
                                   " has no static cuda counterpart");
  };
  for (BlockArgument arg : kernel.getBody().getArguments())
    if (!arg.use_empty())
      if (failed(check(arg, *arg.getUsers().begin())))
        return failure();
  for (Operation &op : kernel.getBody().front().without_terminator())
    for (Value result : op.getResults())
      if (failed(check(result, &op)))
        return failure();
  return success();
}

FailureOr<CudaKernel> emitCudaKernel(exec::KernelOp kernel, int lowestSm) {
  // The schedule's verifier has checked every knob it holds.
  kernel::ScheduleAttr schedule = kernel.getSchedule();
  int64_t blockSize = schedule.getBlockSize().value_or(cuda::kDefaultBlockSize);
  int64_t elementsPerThread = schedule.getElementsPerThread().value_or(1);
  int64_t tile = schedule.getTile().value_or(kHeuristicTile);
  // 0: the schedule leaves the row layout to the template.
  int64_t rowsPerBlock = schedule.getRowsPerBlock().value_or(0);
  // A tuned launch is kept as measured (see setHeuristicLaunch).
  bool heuristicLaunch = !schedule.isTuned();
  Block &body = kernel.getBody().front();
  Operation *yield = body.getTerminator();

  if (kernel.getKind() == kernel::FusionKind::pointwise) {
    Operation *root = yield->getNumOperands()
                          ? yield->getOperand(0).getDefiningOp()
                          : nullptr;
    if (!root)
      return kernel.emitOpError("pointwise kernel yields no computed value");
    if (failed(checkBlockSize(root, blockSize)) ||
        failed(checkFusionTypes(kernel)))
      return failure();
    cuda::KernelEmitter emitter(kernel, root, blockSize);
    emitter.setElementsPerThread(elementsPerThread);
    emitter.setTileSize(tile);
    emitter.setHeuristicLaunch(heuristicLaunch);
    if (failed(cuda::emitPointwiseFusion(emitter, kernel)))
      return failure();
    return emitter.finish();
  }

  // The other families have a template for one op, which for conv and
  // matmul kernels may apply a pointwise epilogue before its store, and for
  // matmul and attention kernels read and store through layout transposes,
  // and for softmax, log_softmax and layer_normalization a pointwise
  // prologue to its loads of input 0.
  Operation *op = exec::getComputeOp(kernel);
  bool hasEpilogue = false, hasPrologue = false;
  if (!op && kernel.getKind() == kernel::FusionKind::reduction) {
    Operation *root = yield->getNumOperands()
                          ? yield->getOperand(0).getDefiningOp()
                          : nullptr;
    if (!root || !graph::isPrologueReduction(root) ||
        !llvm::equal(yield->getOperands(), root->getResults()))
      return kernel.emitOpError(
          "a reduction kernel of several ops must yield the results of "
          "graph.softmax, graph.log_softmax or graph.layer_normalization, "
          "whose pointwise prologue the others are");
    if (failed(checkFusionTypes(kernel)))
      return failure();
    op = root;
    hasPrologue = true;
  } else if (!op) {
    kernel::FusionKind kind = kernel.getKind();
    if (kind != kernel::FusionKind::conv &&
        kind != kernel::FusionKind::matmul &&
        kind != kernel::FusionKind::attention)
      return kernel.emitOpError("a ")
             << kernel::stringifyFusionKind(kind)
             << " kernel must compute one op: only pointwise kernels, a "
                "conv, gemm or mat_mul with a pointwise epilogue, an "
                "attention with its layout transposes, and a softmax, "
                "log_softmax or layer_normalization with a pointwise "
                "prologue, fuse";
    SmallVector<Operation *> computed;
    for (Operation &member : body.without_terminator())
      if (!member.hasTrait<OpTrait::ConstantLike>())
        computed.push_back(&member);
    op = graph::splitLayoutPrologue(computed).second;
    bool anchors = kind == kernel::FusionKind::attention
                       ? isa_and_nonnull<graph::AttentionOp>(op)
                       : op && graph::isEpilogueAnchor(op);
    if (!anchors)
      return kernel.emitOpError("a ")
             << kernel::stringifyFusionKind(kind)
             << " kernel of several ops must start with "
             << (kind == kernel::FusionKind::attention
                     ? "graph.attention"
                     : "graph.conv, graph.gemm, graph.mat_mul or their "
                       "quantized forms")
             << ", not "
             << (op ? op->getName().getStringRef() : StringRef("nothing"))
             << " (only transposes and splits it reads as its layout "
                "prologue may come before it)";
    if (kind == kernel::FusionKind::attention &&
        (computed.back() != op &&
         !graph::isLayoutEpilogueOf(computed.back(), op)))
      return kernel.emitOpError("an attention kernel ends with its "
                                "graph.attention or the transpose of its "
                                "result, not ")
             << computed.back()->getName();
    if (failed(checkFusionTypes(kernel)))
      return failure();
    hasEpilogue = computed.back() != op;
    if (!hasEpilogue && !llvm::equal(yield->getOperands(), op->getResults()))
      return kernel.emitOpError("must yield the results of its mat_mul");
  } else if (!llvm::equal(yield->getOperands(), op->getResults())) {
    return kernel.emitOpError("must yield the results of its op in order");
  }
  if (failed(checkBlockSize(op, blockSize)))
    return failure();
  cuda::KernelEmitter emitter(kernel, op, blockSize);
  emitter.setElementsPerThread(elementsPerThread);
  emitter.setTileSize(tile);
  emitter.setRowsPerBlock(rowsPerBlock);
  emitter.setLowestSm(lowestSm);
  emitter.setHeuristicLaunch(heuristicLaunch);
  if (kernel.getConv()) {
    if (!isa<graph::ConvOp>(op))
      return kernel.emitOpError("is a cudnn kernel without a graph.conv");
    emitter.setFinishesLibraryConv();
  }
  if (hasEpilogue)
    emitter.setEpilogue(op);
  // The template emits the prologue's loaders (definePrologue) in the form
  // it reads them.
  if (hasPrologue)
    emitter.setPrologue(op);
  if (failed(emitter.bindInputSlots()) || failed(emitOp(emitter)))
    return failure();
  return emitter.finish();
}

} // namespace graphc::codegen
