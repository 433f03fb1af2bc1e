//===- CpuEmitter.cpp - C++ source for cpu-target kernels -----------------===//

#include "lib/Codegen/CPU/CpuEmitter.h"
#include "lib/Codegen/SourceText.h"

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"

#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;

namespace graphc::codegen {

/// A double as an exact C++ literal.
static std::string doubleLiteral(double value) {
  if (std::isnan(value))
    return "__builtin_nan(\"\")";
  if (std::isinf(value))
    return value > 0 ? "__builtin_inf()" : "-__builtin_inf()";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%a", value);
  return text;
}

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

LogicalResult emitCpuKernel(exec::KernelOp kernel, llvm::raw_ostream &os) {
  Operation *compute = exec::getComputeOp(kernel);
  if (!compute)
    return kernel.emitOpError("the cpu target takes one op per kernel");
  Operation &op = *compute;
  std::string mnemonic = op.getName().stripDialect().str();
  if (!gc_host_kernel_lookup(mnemonic.c_str()))
    return op.emitError() << "cpu target: no host kernel for " << op.getName();
  FailureOr<graph::HostAttrs> attrs = graph::HostAttrs::fromOp(&op);
  if (failed(attrs))
    return op.emitError() << "cpu target: cannot pass the attributes of "
                          << op.getName() << " to its host kernel";
  std::string prefix = kernel.getSymName().str();

  os << "// kernel " << prefix << ": " << op.getName();
  if (!kernel.getOnnxNodes().empty()) {
    os << " (onnx:";
    for (Attribute node : kernel.getOnnxNodes()) {
      // Node names are user text: keep the comment on one line.
      os << " " << commentText(cast<StringAttr>(node).getValue());
    }
    os << ")";
  }
  os << "\n";

  // Attributes as static data.
  const std::vector<gc_attr> &items = attrs->items();
  for (auto [i, item] : llvm::enumerate(items)) {
    std::string base = prefix + "_a" + std::to_string(i);
    if (item.kind == GC_ATTR_INTS)
      emitInt64Array(os, base + "_ints",
                     ArrayRef<int64_t>(item.ints, item.count));
    if (item.kind == GC_ATTR_FLOATS) {
      os << "static const double " << base << "_floats[] = {";
      if (item.count == 0)
        os << "0";
      for (int64_t j = 0; j < item.count; ++j)
        os << (j ? ", " : "") << doubleLiteral(item.floats[j]);
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
    std::string base = prefix + "_a" + std::to_string(i);
    os << "  {" << cppStringLiteral(item.name) << ", " << item.kind << ", "
       << item.count << ", " << item.i << "LL, " << doubleLiteral(item.f)
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

  // Shapes of the op's input slots, then of its results.
  SmallVector<int32_t> slotSizes = graph::operandSlotSizes(&op);
  struct Binding {
    int32_t dtype;
    int64_t rank; // -1: absent optional input
    std::string dims;
  };
  SmallVector<Binding> inputs, outputs;
  unsigned next = 0;
  auto bind = [&](Type type, const std::string &dimsName) -> Binding {
    auto ranked = cast<RankedTensorType>(type);
    emitInt64Array(os, dimsName, ranked.getShape());
    return {graph::toHostDtype(ranked.getElementType()), ranked.getRank(),
            dimsName};
  };
  for (int32_t size : slotSizes) {
    if (size == 0)
      inputs.push_back({0, -1, "nullptr"});
    for (int32_t i = 0; i < size; ++i, ++next)
      inputs.push_back(bind(op.getOperand(next).getType(),
                            prefix + "_in" + std::to_string(inputs.size())));
  }
  for (auto [i, result] : llvm::enumerate(op.getResults()))
    outputs.push_back(
        bind(result.getType(), prefix + "_out" + std::to_string(i)));

  os << "extern \"C\" int " << cpuKernelSymbol(kernel)
     << "(void *const *args, char *err, uint64_t err_len) {\n";
  os << "  gc_tensor inputs[] = {";
  for (auto [i, in] : llvm::enumerate(inputs))
    os << (i ? ", " : "") << "{" << in.dtype << ", " << in.rank << ", "
       << in.dims << ", args[" << i << "]}";
  if (inputs.empty())
    os << "{0, -1, nullptr, nullptr}";
  os << "};\n  gc_tensor outputs[] = {";
  for (auto [i, out] : llvm::enumerate(outputs))
    os << (i ? ", " : "") << "{" << out.dtype << ", " << out.rank << ", "
       << out.dims << ", args[" << inputs.size() + i << "]}";
  os << "};\n";
  os << "  return gc_hk_" << mnemonic << "(inputs, " << inputs.size()
     << ", outputs, " << outputs.size() << ", &" << prefix
     << "_attr_list, err, err_len);\n}\n\n";
  return success();
}

} // namespace graphc::codegen
