//===- ReferenceRun.cpp - a model on the cpu reference, op by op ----------===//

#include "lib/Pipeline/ReferenceRun.h"
#include "lib/Pipeline/Diagnostics.h"

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "lib/Artifact/Staging.h"
#include "lib/HostKernels/HostKernels.h"
#include "passes/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <cstring>

using namespace mlir;

namespace graphc {
namespace {

/// Reproducible pseudo-random bits (a 64-bit LCG), the same everywhere so
/// that compiles stay deterministic.
struct Random {
  uint64_t state;
  uint64_t next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 11;
  }
  /// In [-1, 1).
  double uniform() { return double(next()) / double(1ull << 53) * 2.0 - 1.0; }
};

std::string dimsText(ArrayRef<int64_t> dims) {
  std::string text;
  for (int64_t dim : dims)
    text += (text.empty() ? "" : "x") + std::to_string(dim);
  return text.empty() ? "a scalar" : text;
}

/// "f16", "i64": a dtype as the compiler's messages name element types.
std::string dtypeText(MLIRContext *context, int32_t dtype) {
  Type type = graph::fromHostDtype(context, dtype);
  if (!type)
    return "dtype " + std::to_string(dtype);
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

func::FuncOp mainOf(ModuleOp module) {
  return module.lookupSymbol<func::FuncOp>("main");
}

std::string argumentName(func::FuncOp func, unsigned index) {
  auto name = func.getArgAttrOfType<StringAttr>(index, graph::kNameAttr);
  return name ? name.str() : "input " + std::to_string(index);
}

/// The value given for input `name` (the last when it is given twice).
llvm::Expected<const HostTensor *> givenInput(ArrayRef<HostTensor> inputs,
                                              StringRef name) {
  const HostTensor *input = nullptr;
  for (const HostTensor &candidate : inputs)
    if (candidate.name == name)
      input = &candidate;
  if (!input)
    return makeError("no value given for input '" + name + "'");
  return input;
}

} // namespace

llvm::Expected<std::vector<std::vector<char>>> interpretOnHost(
    func::FuncOp func, ArrayRef<std::vector<char>> inputs,
    llvm::function_ref<void(Value, const std::vector<char> &)> observe) {
  Block &body = func.getBody().front();
  // Each value is dropped after its last reader, so that a deep model
  // holds its live values only.
  llvm::DenseMap<Value, Operation *> lastUse;
  for (Operation &op : body)
    for (Value operand : op.getOperands())
      lastUse[operand] = &op;
  llvm::DenseMap<Value, std::vector<char>> values;
  for (BlockArgument arg : func.getArguments())
    values[arg] = inputs[arg.getArgNumber()];
  for (Operation &op : body) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      std::vector<std::vector<char>> results;
      for (Value value : ret.getOperands())
        results.push_back(values.lookup(value));
      return results;
    }
    std::vector<std::vector<char>> results;
    if (auto constant = dyn_cast<graph::ConstantOp>(op)) {
      FailureOr<std::vector<char>> bytes =
          graph::constantBytes(constant.getValue());
      if (::mlir::failed(bytes))
        return makeError(describeLocation(op.getLoc()) +
                         ": cannot read a constant of the model");
      results.push_back(std::move(*bytes));
    } else {
      std::vector<std::vector<char>> operands;
      for (Value operand : op.getOperands())
        operands.push_back(values.lookup(operand));
      std::string error;
      FailureOr<std::vector<std::vector<char>>> computed =
          graph::evaluateOnHost(&op, operands, error);
      if (::mlir::failed(computed))
        return makeError(describeLocation(op.getLoc()) + " (" +
                         op.getName().getStringRef() +
                         "): cannot run it on the cpu reference: " + error);
      results = std::move(*computed);
    }
    for (Value operand : op.getOperands())
      if (lastUse.lookup(operand) == &op)
        values.erase(operand);
    for (auto [result, bytes] : llvm::zip(op.getResults(), results)) {
      if (observe)
        observe(result, bytes);
      if (!result.use_empty())
        values[result] = std::move(bytes);
    }
  }
  return makeError("the model function has no return");
}

std::vector<char> randomTensorBytes(RankedTensorType type, uint64_t seed) {
  int32_t dtype = graph::toHostDtype(type.getElementType());
  size_t size = gc_dtype_size(dtype);
  std::vector<char> bytes(type.getNumElements() * size);
  Random random{seed * 0x9e3779b97f4a7c15ull + 1};
  bool isFloat = dtype == GC_DTYPE_F32 || dtype == GC_DTYPE_F64 ||
                 dtype == GC_DTYPE_F16 || dtype == GC_DTYPE_BF16;
  for (size_t at = 0; at < bytes.size(); at += size) {
    double value = random.uniform();
    if (!isFloat)
      value = value < 0 ? 0.0 : 1.0;
    unsigned char pattern[8];
    rt::padPattern(dtype, value, pattern);
    std::memcpy(bytes.data() + at, pattern, size);
  }
  return bytes;
}

llvm::Error specializeForReference(ModuleOp module,
                                   ArrayRef<HostTensor> inputs) {
  func::FuncOp main = mainOf(module);
  if (!main)
    return makeError("the model has no main function");
  MLIRContext &context = *module.getContext();
  DiagnosticCollector diagnostics(context);
  std::vector<std::string> shapes;
  for (unsigned index = 0; index < main.getNumArguments(); ++index) {
    auto type = dyn_cast<RankedTensorType>(main.getArgument(index).getType());
    if (!type || type.hasStaticShape() || type.getRank() == 0)
      continue;
    std::string name = argumentName(main, index);
    llvm::Expected<const HostTensor *> given = givenInput(inputs, name);
    if (!given)
      return given.takeError();
    const HostTensor *input = *given;
    shapes.push_back(name + "=" + dimsText(input->dims));
  }
  if (::mlir::failed(specializeShapes(module, shapes, {})))
    return diagnostics.takeError("cannot apply the inputs' shapes");
  if (::mlir::failed(foldShapeComputations(module)))
    return diagnostics.takeError("shape folding failed");
  return llvm::Error::success();
}

llvm::Expected<ReferenceValues>
runReference(ModuleOp module, ArrayRef<HostTensor> inputs,
             llvm::function_ref<bool(llvm::StringRef)> keep) {
  func::FuncOp main = mainOf(module);
  if (!main)
    return makeError("the model has no main function");
  ReferenceValues run;
  auto record = [&](StringRef name, StringRef producer, int32_t dtype,
                    ArrayRef<int64_t> dims, const std::vector<char> &bytes) {
    if (name.empty() || run.tensors.count(name) || (keep && !keep(name)))
      return;
    run.tensors[name] = HostTensor{name.str(), dtype,
                                   std::vector<int64_t>(dims.begin(),
                                                        dims.end()),
                                   bytes};
    run.order.push_back(name.str());
    if (!producer.empty())
      run.producers[name] = producer.str();
  };

  std::vector<std::vector<char>> arguments;
  llvm::StringSet<> known;
  for (unsigned index = 0; index < main.getNumArguments(); ++index) {
    std::string name = argumentName(main, index);
    known.insert(name);
    auto type = dyn_cast<RankedTensorType>(main.getArgument(index).getType());
    if (!type || !type.hasStaticShape())
      return makeError("input '" + name +
                       "' has no static shape: specialise the model first");
    llvm::Expected<const HostTensor *> given = givenInput(inputs, name);
    if (!given)
      return given.takeError();
    const HostTensor *input = *given;
    int32_t dtype = graph::toHostDtype(type.getElementType());
    if (input->dtype != dtype)
      return makeError("input '" + name + "' has dtype " +
                       dtypeText(module.getContext(), input->dtype) +
                       ", the model takes " +
                       dtypeText(module.getContext(), dtype));
    if (ArrayRef<int64_t>(input->dims) != type.getShape())
      return makeError("input '" + name + "' has shape " +
                       dimsText(input->dims) + ", the model takes " +
                       dimsText(type.getShape()));
    if (input->data.size() !=
        static_cast<size_t>(type.getNumElements()) * gc_dtype_size(dtype))
      return makeError("input '" + name + "' holds " +
                       std::to_string(input->data.size()) +
                       " bytes, not its shape's");
    arguments.push_back(input->data);
    record(name, "", dtype, type.getShape(), input->data);
  }
  for (const HostTensor &input : inputs)
    if (!known.contains(input.name))
      return makeError("the model has no input named '" + input.name + "'");

  auto observe = [&](Value value, const std::vector<char> &bytes) {
    StringRef name = graph::onnxTensorName(value);
    if (name.empty())
      return;
    auto type = cast<RankedTensorType>(value.getType());
    StringRef producer;
    if (auto named = dyn_cast<NameLoc>(value.getDefiningOp()->getLoc()))
      if (named.getName() != name)
        producer = named.getName().getValue();
    record(name, producer, graph::toHostDtype(type.getElementType()),
           type.getShape(), bytes);
  };
  llvm::Expected<std::vector<std::vector<char>>> results =
      interpretOnHost(main, arguments, observe);
  if (!results)
    return results.takeError();
  for (auto [index, bytes] : llvm::enumerate(*results)) {
    auto type = cast<RankedTensorType>(main.getResultTypes()[index]);
    auto name = main.getResultAttrOfType<StringAttr>(index, graph::kNameAttr);
    run.outputs.push_back(
        HostTensor{name ? name.str() : "output " + std::to_string(index),
                   graph::toHostDtype(type.getElementType()),
                   std::vector<int64_t>(type.getShape().begin(),
                                        type.getShape().end()),
                   std::move(bytes)});
  }
  return run;
}

} // namespace graphc
