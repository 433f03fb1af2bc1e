//===- CudaEmitter.cpp - CUDA C++ kernels for graph ops -------------------===//
//
// Dispatches a graph op to the emitter of its category. Every category reads
// the op generically (operands by ONNX input slot, attributes by ONNX name),
// so the emitter depends on the graph dialect's conventions, not on its C++
// op classes.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/CudaEmitter.h"
#include "lib/Codegen/CUDA/EmitSupport.h"

using namespace mlir;

namespace graphc::codegen {

FailureOr<CudaKernel> emitCudaKernel(Operation *op, llvm::StringRef name,
                                     int64_t blockSize) {
  if (blockSize < 32 || blockSize > 1024 || blockSize % 32 != 0)
    return op->emitError() << "cannot emit a cuda kernel for '"
                           << op->getName() << "': block_size " << blockSize
                           << " is not a multiple of 32 in [32, 1024]";
  cuda::KernelEmitter emitter(op, name, blockSize);
  llvm::StringRef mnemonic = emitter.getMnemonic();
  if (!op->getName().getStringRef().starts_with("graph."))
    return op->emitError() << "cannot emit a cuda kernel for '" << op->getName()
                           << "': not a graph op";
  if (mnemonic == "constant")
    return emitter.fail("constants are data, never kernels");
  if (failed(emitter.checkTypes()))
    return failure();

  LogicalResult result = failure();
  if (cuda::isUnary(mnemonic))
    result = cuda::emitUnary(emitter);
  else if (cuda::isBinary(mnemonic))
    result = cuda::emitBinary(emitter);
  else if (mnemonic == "sum" || mnemonic == "mean" || mnemonic == "max" ||
           mnemonic == "min")
    result = cuda::emitVariadic(emitter);
  else if (mnemonic == "where")
    result = cuda::emitWhere(emitter);
  else if (mnemonic == "clip")
    result = cuda::emitClip(emitter);
  else if (mnemonic == "cast")
    result = cuda::emitCast(emitter);
  else if (cuda::isDataMovement(mnemonic))
    result = cuda::emitDataMovement(emitter);
  else if (cuda::isReduction(mnemonic))
    result = cuda::emitReduction(emitter);
  else if (cuda::isNormalization(mnemonic))
    result = cuda::emitNormalization(emitter);
  else if (cuda::isConvPool(mnemonic))
    result = cuda::emitConvPool(emitter);
  else if (cuda::isLinearAlgebra(mnemonic))
    result = cuda::emitLinearAlgebra(emitter);
  else
    return emitter.fail("no cuda emitter for this op");
  if (failed(result))
    return failure();
  return emitter.finish();
}

} // namespace graphc::codegen
