//===- HostEvaluator.cpp - graph ops evaluated by the host kernels --------===//

#include "lib/HostKernels/HostEvaluator.h"

#include "dialects/Graph/GraphDialect.h"
#include "dialects/Graph/GraphTypeInference.h"
#include "dialects/Graph/HostEval.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;

namespace graphc::graph {

FailureOr<HostAttrs> HostAttrs::fromOp(Operation *op) {
  HostAttrs result;
  for (NamedAttribute named : op->getAttrs()) {
    StringRef name = named.getName().getValue();
    if (name == "operandSegmentSizes" || name == "resultSegmentSizes")
      continue;
    gc_attr item{};
    item.name = result.strings.emplace_back(name.str()).c_str();
    Attribute attr = named.getValue();
    if (auto intAttr = dyn_cast<IntegerAttr>(attr)) {
      item.kind = GC_ATTR_INT;
      item.i = intAttr.getValue().getSExtValue();
    } else if (auto floatAttr = dyn_cast<FloatAttr>(attr)) {
      item.kind = GC_ATTR_FLOAT;
      item.f = floatAttr.getValueAsDouble();
    } else if (auto stringAttr = dyn_cast<StringAttr>(attr)) {
      item.kind = GC_ATTR_STRING;
      item.s = result.strings.emplace_back(stringAttr.str()).c_str();
    } else if (auto intsAttr = dyn_cast<DenseI64ArrayAttr>(attr)) {
      item.kind = GC_ATTR_INTS;
      auto &storage = result.ints.emplace_back(intsAttr.asArrayRef().begin(),
                                               intsAttr.asArrayRef().end());
      item.count = storage.size();
      item.ints = storage.data();
    } else if (auto floatsAttr = dyn_cast<DenseF32ArrayAttr>(attr)) {
      item.kind = GC_ATTR_FLOATS;
      auto &storage = result.floats.emplace_back(
          floatsAttr.asArrayRef().begin(), floatsAttr.asArrayRef().end());
      item.count = storage.size();
      item.floats = storage.data();
    } else if (auto typeAttr = dyn_cast<TypeAttr>(attr)) {
      item.kind = GC_ATTR_TYPE;
      item.i = toHostDtype(typeAttr.getValue());
      if (item.i == GC_DTYPE_UNDEFINED)
        return failure();
    } else if (auto elements = dyn_cast<ElementsAttr>(attr)) {
      FailureOr<std::vector<char>> bytes = constantBytes(elements);
      if (failed(bytes))
        return failure();
      auto type = cast<ShapedType>(elements.getType());
      auto &dims = result.ints.emplace_back(type.getShape().begin(),
                                            type.getShape().end());
      auto &data = result.tensorData.emplace_back(std::move(*bytes));
      gc_tensor &tensor = result.tensors.emplace_back();
      tensor.dtype = toHostDtype(type.getElementType());
      tensor.rank = static_cast<int32_t>(dims.size());
      tensor.dims = dims.data();
      tensor.data = data.data();
      item.kind = GC_ATTR_TENSOR;
      item.t = &tensor;
    } else {
      return failure();
    }
    result.itemStorage.push_back(item);
  }
  result.attrs.count = static_cast<int32_t>(result.itemStorage.size());
  result.attrs.items = result.itemStorage.data();
  return result;
}

namespace {

/// Runs an op's host kernel (gc_host_kernel_lookup by its mnemonic).
struct HostKernelEvaluator : public HostEvaluatorInterface {
  using HostEvaluatorInterface::HostEvaluatorInterface;

  FailureOr<std::vector<std::vector<char>>>
  evaluate(Operation *op, ArrayRef<std::vector<char>> operandData,
           std::string &error) const override {
    std::string mnemonic = op->getName().stripDialect().str();
    gc_host_kernel_fn kernel = gc_host_kernel_lookup(mnemonic.c_str());
    if (!kernel) {
      error = "no host kernel for " + mnemonic;
      return failure();
    }
    FailureOr<HostAttrs> attrs = HostAttrs::fromOp(op);
    if (failed(attrs)) {
      error = "attributes of " + mnemonic + " the host kernels do not take";
      return failure();
    }
    for (Type type : op->getResultTypes()) {
      auto shaped = dyn_cast<RankedTensorType>(type);
      if (!shaped || !shaped.hasStaticShape() ||
          !isRepresentableShape(shaped.getShape(), /*elementBytes=*/8)) {
        error = "a result of " + mnemonic + " without a static shape";
        return failure();
      }
    }

    // Inputs in ONNX slot order; absent optional slots become rank -1.
    std::vector<std::vector<int64_t>> inputDims;
    std::vector<gc_tensor> inputs;
    inputDims.reserve(op->getNumOperands());
    size_t next = 0;
    for (int32_t size : operandSlotSizes(op)) {
      if (size == 0) {
        inputs.push_back(gc_tensor{GC_DTYPE_UNDEFINED, -1, nullptr, nullptr});
        continue;
      }
      for (int32_t i = 0; i < size; ++i, ++next) {
        auto type = cast<ShapedType>(op->getOperand(next).getType());
        inputDims.emplace_back(type.getShape().begin(), type.getShape().end());
        inputs.push_back(gc_tensor{
            toHostDtype(type.getElementType()),
            static_cast<int32_t>(type.getRank()), inputDims.back().data(),
            const_cast<char *>(operandData[next].data())});
      }
    }

    std::vector<std::vector<char>> outputData;
    std::vector<std::vector<int64_t>> outputDims;
    std::vector<gc_tensor> outputs;
    outputData.reserve(op->getNumResults());
    outputDims.reserve(op->getNumResults());
    for (Type type : op->getResultTypes()) {
      auto shaped = cast<RankedTensorType>(type);
      int32_t dtype = toHostDtype(shaped.getElementType());
      outputData.emplace_back(shaped.getNumElements() * gc_dtype_size(dtype));
      outputDims.emplace_back(shaped.getShape().begin(),
                              shaped.getShape().end());
      outputs.push_back(gc_tensor{dtype, static_cast<int32_t>(shaped.getRank()),
                                  outputDims.back().data(),
                                  outputData.back().data()});
    }

    char message[256] = {0};
    if (kernel(inputs.data(), static_cast<int32_t>(inputs.size()),
               outputs.data(), static_cast<int32_t>(outputs.size()),
               attrs->get(), message, sizeof(message)) != 0) {
      message[sizeof(message) - 1] = 0;
      error = mnemonic + ": " + message;
      return failure();
    }
    return outputData;
  }
};

} // namespace

void registerHostEvaluator(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, GraphDialect *dialect) {
    dialect->addInterfaces<HostKernelEvaluator>();
  });
}

void ensureHostEvaluator(MLIRContext &context) {
  auto *dialect = context.getOrLoadDialect<GraphDialect>();
  if (!dialect->getRegisteredInterface<HostEvaluatorInterface>())
    dialect->addInterfaces<HostKernelEvaluator>();
}

} // namespace graphc::graph
