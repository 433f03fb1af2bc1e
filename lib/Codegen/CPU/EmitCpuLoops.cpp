//===- EmitCpuLoops.cpp - generated loops for cpu fusions -----------------===//

#include "lib/Codegen/CPU/EmitCpuLoops.h"
#include "lib/Codegen/ScalarExpr.h"

#include "dialects/Exec/ExecOps.h"
#include "dialects/Graph/GraphOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using llvm::ArrayRef;
using llvm::SmallVector;

namespace graphc::codegen {
namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// One dim of the loop nest: a run of output dims that every operand steps
/// through with one stride (merged where each reads them contiguously, or
/// not at all).
struct LoopDim {
  int64_t size;
  SmallVector<int64_t> strides; // per operand read from memory
};

/// The loop dims over `shape` for operands read at `strides` (one list per
/// operand, over the dims of `shape`). Dims of size 1 are left out, and a
/// dim merges into the one outside it where every operand's outer stride is
/// its inner stride times the inner size, as a contiguous or broadcast read
/// has it: fewer, longer loops that the host compiler can vectorize.
SmallVector<LoopDim> loopDims(ArrayRef<int64_t> shape,
                              ArrayRef<SmallVector<int64_t>> strides) {
  SmallVector<LoopDim> dims;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (size == 1)
      continue;
    SmallVector<int64_t> at;
    for (const SmallVector<int64_t> &operand : strides)
      at.push_back(operand[d]);
    if (!dims.empty() &&
        llvm::all_of(llvm::seq<size_t>(0, at.size()), [&](size_t k) {
          return dims.back().strides[k] == at[k] * size;
        })) {
      dims.back().size *= size;
      dims.back().strides = std::move(at);
      continue;
    }
    dims.push_back({size, std::move(at)});
  }
  return dims;
}

} // namespace

std::optional<std::string>
emitCpuPointwiseLoop(ArrayRef<Operation *> ops, ArrayRef<int64_t> shape,
                     const llvm::DenseMap<Value, std::string> &buffers,
                     ArrayRef<std::pair<Value, std::string>> stores) {
  auto silently = [](Operation *, const llvm::Twine &) { return failure(); };
  auto broadcastsToShape = [&](Value value) {
    FailureOr<SmallVector<int64_t>> to =
        graph::broadcastShapes(shapeOf(value), shape);
    return succeeded(to) && ArrayRef<int64_t>(*to) == shape;
  };

  // What each op reads: a value computed before it, a literal, or an
  // operand loaded from memory (named in order of first read).
  llvm::DenseMap<Value, std::string> names;
  struct Load {
    Value value;
    std::string pointer;
    /// Element strides over the loop's dims (0 along broadcast dims).
    SmallVector<int64_t> strides;
  };
  SmallVector<Load> loads;
  // Where `value`, not computed by `ops`, lies: its pointer.
  auto pointerOf = [&](Value value) -> std::optional<std::string> {
    if (auto buffer = buffers.find(value); buffer != buffers.end())
      return buffer->second;
    if (std::optional<unsigned> argument = exec::getKernelArgument(value))
      return "args[" + std::to_string(*argument) + "]";
    return std::nullopt;
  };
  auto nameOf = [&](Value value) -> std::optional<std::string> {
    if (auto known = names.find(value); known != names.end())
      return known->second;
    if (!broadcastsToShape(value) || cxxType(elementTypeOf(value)).empty())
      return std::nullopt;
    Operation *def = value.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>())
      if (std::optional<std::string> text =
              splatLiteral(def, computeType(elementTypeOf(value))))
        return names[value] = *text;
    std::optional<std::string> pointer = pointerOf(value);
    if (!pointer)
      return std::nullopt;
    std::string name = "x" + std::to_string(loads.size());
    loads.push_back({value, *pointer, broadcastStrides(shapeOf(value), shape)});
    return names[value] = name;
  };
  // A transpose of an input the ops do not compute is a load of that input
  // at permuted strides (result dim j is input dim perm[j]).
  auto nameTranspose = [&](graph::TransposeOp transpose) -> bool {
    Value data = transpose.getData();
    std::optional<std::string> pointer = pointerOf(data);
    if (!pointer || llvm::is_contained(ops, data.getDefiningOp()) ||
        !broadcastsToShape(transpose.getResult()) ||
        cxxType(elementTypeOf(data)).empty())
      return false;
    names[transpose.getResult()] = "x" + std::to_string(loads.size());
    loads.push_back(
        {transpose.getResult(), *pointer, transposedStrides(transpose, shape)});
    return true;
  };

  SmallVector<std::string> body;
  for (auto [k, op] : llvm::enumerate(ops)) {
    if (auto transpose = dyn_cast<graph::TransposeOp>(op)) {
      if (!nameTranspose(transpose))
        return std::nullopt;
      continue;
    }
    if (!op->hasTrait<graph::OpTrait::Pointwise>() || op->getNumResults() != 1 ||
        !broadcastsToShape(op->getResult(0)) ||
        cxxType(elementTypeOf(op->getResult(0))).empty())
      return std::nullopt;
    SmallVector<std::string> operands;
    for (Value slot : inputSlots(op)) {
      if (!slot) {
        operands.emplace_back();
        continue;
      }
      std::optional<std::string> name = nameOf(slot);
      if (!name)
        return std::nullopt;
      operands.push_back(*name);
    }
    FailureOr<std::string> expr = pointwiseExpr(op, operands, silently);
    if (failed(expr))
      return std::nullopt;
    std::string name = "v" + std::to_string(k);
    body.push_back(defineValue(elementTypeOf(op->getResult(0)), name, *expr));
    names[op->getResult(0)] = name;
  }
  for (const auto &[value, pointer] : stores)
    if (shapeOf(value) != shape || !names.count(value) ||
        !llvm::is_contained(ops, value.getDefiningOp()))
      return std::nullopt;

  // Loads step through memory at their broadcast strides; stores are
  // contiguous, at the running linear index `i`.
  SmallVector<SmallVector<int64_t>> strides;
  for (const Load &load : loads)
    strides.push_back(load.strides);
  SmallVector<LoopDim> dims = loopDims(shape, strides);
  SmallVector<int64_t> outStrides(dims.size(), 1);
  for (int64_t d = int64_t(dims.size()) - 2; d >= 0; --d)
    outStrides[d] = outStrides[d + 1] * dims[d + 1].size;

  std::string text;
  auto line = [&](unsigned depth, const std::string &code) {
    text += std::string(2 * depth + 2, ' ') + code + "\n";
  };
  if (llvm::is_contained(shape, 0)) {
    line(0, "// no elements");
    return text;
  }
  line(0, "{");
  for (auto [k, load] : llvm::enumerate(loads)) {
    std::string type = cxxType(elementTypeOf(load.value));
    line(1, "const " + type + " *in" + std::to_string(k) + " = (const " +
                type + " *)(" + load.pointer + ");");
  }
  for (auto [k, store] : llvm::enumerate(stores)) {
    std::string type = cxxType(elementTypeOf(store.first));
    line(1, type + " *out" + std::to_string(k) + " = (" + type + " *)(" +
                store.second + ");");
  }
  unsigned depth = 1;
  if (dims.empty()) {
    line(depth, "const long long i = 0;");
  } else {
    line(depth, "long long i = 0;");
    for (auto [d, dim] : llvm::enumerate(dims)) {
      std::string c = "c" + std::to_string(d);
      bool innermost = d + 1 == dims.size();
      line(depth++, "for (long long " + c + " = 0; " + c + " < " +
                        std::to_string(dim.size) + "LL; ++" + c +
                        (innermost ? ", ++i" : "") + ") {");
    }
  }
  for (auto [k, load] : llvm::enumerate(loads)) {
    std::string offset;
    bool linear = true;
    for (auto [d, dim] : llvm::enumerate(dims)) {
      int64_t stride = dim.strides[k];
      linear &= stride == outStrides[d];
      if (stride == 0)
        continue;
      offset += (offset.empty() ? "" : " + ") + ("c" + std::to_string(d)) +
                (stride == 1 ? "" : " * " + std::to_string(stride) + "LL");
    }
    if (linear)
      offset = "i";
    else if (offset.empty())
      offset = "0";
    line(depth, "const " + computeType(elementTypeOf(load.value)) + " x" +
                    std::to_string(k) + " = gc_ld(in" + std::to_string(k) +
                    "[" + offset + "]);");
  }
  for (const std::string &code : body)
    line(depth, code);
  for (auto [k, store] : llvm::enumerate(stores))
    line(depth, "out" + std::to_string(k) + "[i] = gc_cvt<" +
                    cxxType(elementTypeOf(store.first)) + ">(" +
                    names.lookup(store.first) + ");");
  while (depth > 1)
    line(--depth, "}");
  line(0, "}");
  return text;
}

} // namespace graphc::codegen
