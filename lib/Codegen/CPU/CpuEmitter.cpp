//===- CpuEmitter.cpp - C++ source for cpu-target kernels -----------------===//

#include "lib/Codegen/CPU/CpuEmitter.h"
#include "lib/Codegen/CPU/EmitCpuLoops.h"
#include "lib/Codegen/SourceText.h"

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "lib/HostKernels/HostEvaluator.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <map>

using namespace mlir;

namespace graphc::codegen {


static void emitInt64Array(llvm::raw_ostream &os, StringRef name,
                           ArrayRef<int64_t> values) {
  os << "static const int64_t " << name << "[] = {";
  if (values.empty())
    os << "0";
  llvm::interleaveComma(values, os, [&](int64_t v) { os << v << "LL"; });
  os << "};\n";
}

std::string cpuKernelSymbol(exec::KernelOp kernel) {
  return ("graphc_kernel_" + kernel.getSymName()).str();
}

SmallVector<Operation *> computeOps(exec::KernelOp kernel) {
  SmallVector<Operation *> ops;
  for (Operation &op : kernel.getBody().front().without_terminator())
    if (!op.hasTrait<OpTrait::ConstantLike>())
      ops.push_back(&op);
  return ops;
}

/// Writes `op`'s attributes as static data named after `prefix`, ending
/// with `<prefix>_attr_list`, the gc_attrs its host kernel takes.
static LogicalResult emitAttrs(Operation &op, StringRef prefix,
                               llvm::raw_ostream &os) {
  FailureOr<graph::HostAttrs> attrs = graph::HostAttrs::fromOp(&op);
  if (failed(attrs))
    return op.emitError() << "cpu target: cannot pass the attributes of "
                          << op.getName() << " to its host kernel";
  const std::vector<gc_attr> &items = attrs->items();
  for (auto [i, item] : llvm::enumerate(items)) {
    std::string base = prefix.str() + "_a" + std::to_string(i);
    if (item.kind == GC_ATTR_INTS)
      emitInt64Array(os, base + "_ints",
                     ArrayRef<int64_t>(item.ints, item.count));
    if (item.kind == GC_ATTR_FLOATS) {
      os << "static const double " << base << "_floats[] = {";
      if (item.count == 0)
        os << "0";
      for (int64_t j = 0; j < item.count; ++j)
        os << (j ? ", " : "") << cppDoubleLiteral(item.floats[j]);
      os << "};\n";
    }
    if (item.kind == GC_ATTR_TENSOR) {
      const gc_tensor &t = *item.t;
      emitInt64Array(os, base + "_dims", ArrayRef<int64_t>(t.dims, t.rank));
      int64_t count = 1;
      for (int32_t d = 0; d < t.rank; ++d)
        count *= t.dims[d];
      size_t bytes = count * gc_dtype_size(t.dtype);
      os << "alignas(16) static unsigned char " << base << "_data[] = {";
      const unsigned char *data = static_cast<const unsigned char *>(t.data);
      for (size_t j = 0; j < bytes; ++j)
        os << (j ? "," : "") << unsigned(data[j]);
      if (bytes == 0)
        os << "0";
      os << "};\n";
      os << "static const gc_tensor " << base << "_tensor = {" << t.dtype
         << ", " << t.rank << ", " << base << "_dims, " << base << "_data};\n";
    }
  }
  os << "static const gc_attr " << prefix << "_attrs[] = {\n";
  for (auto [i, item] : llvm::enumerate(items)) {
    std::string base = prefix.str() + "_a" + std::to_string(i);
    os << "  {" << cppStringLiteral(item.name) << ", " << item.kind << ", "
       << item.count << ", " << item.i << "LL, " << cppDoubleLiteral(item.f)
       << ", " << (item.s ? cppStringLiteral(item.s) : "nullptr") << ", "
       << (item.kind == GC_ATTR_INTS ? base + "_ints" : "nullptr") << ", "
       << (item.kind == GC_ATTR_FLOATS ? base + "_floats" : "nullptr") << ", "
       << (item.kind == GC_ATTR_TENSOR ? "&" + base + "_tensor" : "nullptr")
       << "},\n";
  }
  if (items.empty())
    os << "  {nullptr, 0, 0, 0, 0.0, nullptr, nullptr, nullptr, nullptr},\n";
  os << "};\n";
  os << "static const gc_attrs " << prefix << "_attr_list = {" << items.size()
     << ", " << prefix << "_attrs};\n";
  return success();
}

LogicalResult emitCpuKernel(exec::KernelOp kernel, llvm::raw_ostream &os,
                            bool generatedLoops) {
  SmallVector<Operation *> ops = computeOps(kernel);
  if (ops.empty())
    return kernel.emitOpError("computes nothing");
  // Multi-op kernels are pointwise chains, a conv, gemm or mat_mul followed
  // by its pointwise epilogue (a mat_mul or attention after the transposes
  // and splits it reads as its layout prologue, or before the transpose of its result,
  // its layout epilogue: here they run into temporaries), or a pointwise
  // prologue followed by the softmax, log_softmax or layer_normalization
  // reading it.
  kernel::FusionKind kind = kernel.getKind();
  auto isPointwiseOp = [](Operation *op) {
    return op->hasTrait<graph::OpTrait::Pointwise>();
  };
  auto [prologueOps, anchor] = graph::splitLayoutPrologue(ops);
  ArrayRef<Operation *> after = ArrayRef(ops).drop_front(prologueOps + 1);
  bool isPointwiseChain =
      llvm::all_of(after, isPointwiseOp) ||
      (after.size() == 1 && graph::isLayoutEpilogueOf(after.front(), anchor));
  bool fuses = kind == kernel::FusionKind::pointwise ||
               ((kind == kernel::FusionKind::conv ||
                 kind == kernel::FusionKind::matmul) &&
                graph::isEpilogueAnchor(anchor) && isPointwiseChain) ||
               (kind == kernel::FusionKind::attention &&
                isa<graph::AttentionOp>(anchor) &&
                (after.empty() || (after.size() == 1 &&
                                   graph::isLayoutEpilogueOf(after.front(),
                                                             anchor)))) ||
               (kind == kernel::FusionKind::reduction &&
                graph::isPrologueReduction(ops.back()) &&
                llvm::all_of(ArrayRef(ops).drop_back(), isPointwiseOp));
  if (ops.size() > 1 && !fuses)
    return kernel.emitOpError("a ")
           << kernel::stringifyFusionKind(kind)
           << " kernel must compute one op: only pointwise kernels, a "
              "conv, gemm or mat_mul with a pointwise epilogue, an "
              "attention with its layout transposes, and a softmax, "
              "log_softmax or layer_normalization with a pointwise prologue, "
              "fuse";
  std::string prefix = kernel.getSymName().str();
  Block &body = kernel.getBody().front();
  Operation *yield = body.getTerminator();

  // The fused pointwise ops, a whole pointwise kernel or the epilogue of a
  // conv, gemm or mat_mul, run as one generated loop where every one has a
  // scalar expression (EmitCpuLoops.h); the rest call host kernels.
  SmallVector<Operation *> loopOps;
  Value anchorResult;
  if (generatedLoops && ops.size() > 1 &&
      kind == kernel::FusionKind::pointwise)
    loopOps = ops;
  else if (generatedLoops && ops.size() > 1 && (kind == kernel::FusionKind::conv ||
                              kind == kernel::FusionKind::matmul) &&
           fuses && !after.empty() && llvm::all_of(after, isPointwiseOp) &&
           anchor->getNumResults() == 1 && yield->getNumOperands() == 1) {
    loopOps.assign(after.begin(), after.end());
    anchorResult = anchor->getResult(0);
  }
  SmallVector<std::pair<Value, std::string>> stores;
  for (auto [index, value] : llvm::enumerate(yield->getOperands()))
    stores.push_back(
        {value, "args[" + std::to_string(body.getNumArguments() + index) +
                    "]"});
  ArrayRef<int64_t> loopShape;
  if (!loopOps.empty()) {
    loopShape = cast<RankedTensorType>(yield->getOperand(0).getType())
                    .getShape();
    // Whether it can: the pointers do not matter yet.
    llvm::DenseMap<Value, std::string> trial;
    if (anchorResult)
      trial[anchorResult] = "anchor";
    if (!emitCpuPointwiseLoop(loopOps, loopShape, trial, stores)) {
      loopOps.clear();
      anchorResult = nullptr;
    }
  }
  for (Operation *op : ops)
    if (!llvm::is_contained(loopOps, op) &&
        !gc_host_kernel_lookup(op->getName().stripDialect().str().c_str()))
      return op->emitError()
             << "cpu target: no host kernel for " << op->getName();

  os << "// kernel " << prefix << ": ";
  llvm::interleaveComma(ops, os, [&](Operation *op) { os << op->getName(); });
  if (!kernel.getOnnxNodes().empty()) {
    os << " (onnx:";
    for (Attribute node : kernel.getOnnxNodes()) {
      // Node names are user text: keep the comment on one line.
      os << " " << commentText(cast<StringAttr>(node).getValue());
    }
    os << ")";
  }
  os << "\n";

  // Where each value lives: a kernel input, a kernel output, or (inside a
  // fusion) a temporary.
  llvm::DenseMap<Value, std::string> buffer;
  // The same places as binding codes (see graphc_bind): an argument's index,
  // or -2 - offset for an intermediate in the scratch block.
  llvm::DenseMap<Value, int64_t> place;
  for (auto [index, store] : llvm::enumerate(stores)) {
    buffer.try_emplace(store.first, store.second);
    place.try_emplace(store.first, body.getNumArguments() + index);
  }
  // An epilogue loop reads the anchor's result where the anchor wrote it:
  // in the kernel's output when it has the output's type (the loop then
  // updates each element in place), else in a temporary.
  if (anchorResult &&
      anchorResult.getType() == yield->getOperand(0).getType()) {
    buffer.try_emplace(anchorResult, stores.front().second);
    place.try_emplace(anchorResult, body.getNumArguments());
  }
  // A fusion's intermediates share one scratch block, one allocation per
  // call, each at a 64-byte aligned offset.
  int64_t scratchBytes = 0;

  // Per op: its attributes, and the tensors its host kernel call binds as
  // data (graphc_bind): static shapes and where each tensor lies, so that
  // an op of thousands of operands (a Concat) compiles as fast as a table.
  struct Call {
    std::string inputs, outputs, callee;
  };
  SmallVector<Call> calls;
  for (auto [j, op] : llvm::enumerate(ops)) {
    if (llvm::is_contained(loopOps, op))
      continue;
    std::string opPrefix =
        ops.size() == 1 ? prefix : prefix + "_op" + std::to_string(j);
    if (failed(emitAttrs(*op, opPrefix, os)))
      return failure();
    // One dims array per distinct shape of the op.
    std::map<SmallVector<int64_t>, std::string> dimsNames;
    auto dimsOf = [&](RankedTensorType type) {
      SmallVector<int64_t> dims(type.getShape());
      auto [it, inserted] = dimsNames.try_emplace(
          dims, opPrefix + "_d" + std::to_string(dimsNames.size()));
      if (inserted)
        emitInt64Array(os, it->second, dims);
      return it->second;
    };
    auto tensor = [&](Value value) {
      auto ranked = cast<RankedTensorType>(value.getType());
      return "{" + std::to_string(graph::toHostDtype(ranked.getElementType())) +
             ", " + std::to_string(ranked.getRank()) + ", " + dimsOf(ranked) +
             ", nullptr}";
    };
    SmallVector<std::string> inputs, outputs;
    SmallVector<int64_t> inputPlaces, outputPlaces;
    unsigned next = 0;
    for (int32_t size : graph::operandSlotSizes(op)) {
      if (size == 0) {
        inputs.push_back("{0, -1, nullptr, nullptr}");
        inputPlaces.push_back(-1);
      }
      for (int32_t i = 0; i < size; ++i, ++next) {
        Value value = op->getOperand(next);
        if (!place.count(value)) {
          std::optional<unsigned> argument = exec::getKernelArgument(value);
          if (!argument)
            return op->emitError("cpu target: an operand of ")
                   << op->getName() << " is neither computed nor passed";
          buffer[value] = "args[" + std::to_string(*argument) + "]";
          place[value] = *argument;
        }
        inputs.push_back(tensor(value));
        inputPlaces.push_back(place.lookup(value));
      }
    }
    for (OpResult result : op->getResults()) {
      if (!place.count(result)) {
        buffer[result] = "(void *)(scratch + " +
                         std::to_string(scratchBytes) + ")";
        place[result] = -2 - scratchBytes;
        scratchBytes += llvm::alignTo(
            std::max<int64_t>(1, exec::slotBytes(result.getType())), 64);
      }
      outputs.push_back(tensor(result));
      outputPlaces.push_back(place.lookup(result));
    }
    // An op without inputs still binds an array (C++ has no empty ones).
    size_t numInputs = inputs.size();
    if (inputs.empty()) {
      inputs.push_back("{0, -1, nullptr, nullptr}");
      inputPlaces.push_back(-1);
    }
    auto table = [&](StringRef name, ArrayRef<std::string> tensors,
                     ArrayRef<int64_t> places) {
      os << "static const gc_tensor " << name << "_shapes[] = {"
         << llvm::join(tensors, ", ") << "};\n";
      os << "static const long long " << name << "_at[] = {";
      llvm::interleaveComma(places, os);
      os << "};\n";
      return "gc_tensor " + name.str() + "[" + std::to_string(tensors.size()) +
             "]; graphc_bind(" + name.str() + ", " + name.str() + "_shapes, " +
             name.str() + "_at, " + std::to_string(tensors.size()) +
             ", args, " + (scratchBytes > 0 ? "scratch" : "nullptr") + ");";
    };
    Call call;
    std::string inputsName = opPrefix + "_inputs",
                outputsName = opPrefix + "_outputs";
    call.callee = "gc_hk_" + op->getName().stripDialect().str() + "(" +
                  inputsName + ", " + std::to_string(numInputs) + ", " +
                  outputsName + ", " + std::to_string(outputs.size()) + ", &" +
                  opPrefix + "_attr_list, err, err_len)";
    call.inputs = table(inputsName, inputs, inputPlaces);
    call.outputs = table(outputsName, outputs, outputPlaces);
    calls.push_back(std::move(call));
  }

  os << "extern \"C\" int " << cpuKernelSymbol(kernel)
     << "(void *const *args, char *err, uint64_t err_len) {\n";
  if (ops.size() == 1) {
    const Call &call = calls.front();
    os << "  " << call.inputs << "\n  " << call.outputs << "\n  return "
       << call.callee << ";\n}\n\n";
    return success();
  }
  // Otherwise a fusion runs its host-kernel ops one after another, with
  // intermediates in temporaries, then its generated loop: the loop rounds
  // each intermediate to its storage type, as the unfused graph would.
  std::optional<std::string> loop;
  if (!loopOps.empty()) {
    loop = emitCpuPointwiseLoop(loopOps, loopShape, buffer, stores);
    if (!loop)
      return kernel.emitOpError("cpu target: the generated loop of ")
             << prefix << " cannot be written";
  }
  if (calls.empty() && loop) {
    os << *loop << "  return 0;\n}\n\n";
    return success();
  }
  os << "  int status = 0;\n";
  if (scratchBytes > 0) {
    os << "  char *scratch = (char *)malloc(" << scratchBytes << ");\n";
    os << "  if (!scratch) {\n    snprintf(err, err_len, \"kernel " << prefix
       << ": out of memory for its intermediates\");\n    return 1;\n  }\n";
  }
  for (const Call &call : calls)
    os << "  if (status == 0) {\n    " << call.inputs << "\n    "
       << call.outputs << "\n    status = " << call.callee << ";\n  }\n";
  if (loop)
    os << "  if (status == 0) " << StringRef(*loop).ltrim();
  if (scratchBytes > 0)
    os << "  free(scratch);\n";
  os << "  return status;\n}\n\n";
  return success();
}

} // namespace graphc::codegen
