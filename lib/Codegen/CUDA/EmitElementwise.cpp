//===- EmitElementwise.cpp - pointwise expressions and kernels ------------===//
//
// Per-op scalar expression builders (one element of a pointwise op's result
// from its operands' values), and the two loops that use them: the kernel of
// one pointwise op, and the pointwise fusion template computing a chain of
// them per output element. One thread per output element in a grid-stride
// loop; inputs are read at offsets computed from the output coordinates and
// their baked broadcast strides; f16/bf16 compute in float.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/EmitSupport.h"

#include "dialects/Exec/ExecOps.h"
#include "dialects/Graph/GraphOps.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace graphc::codegen::cuda {
namespace {

Type elementTypeOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// How a loop over an output reads one input: numpy broadcasting of a
/// tensor of `shape`, or, when `strides` is set, at those element strides
/// over the output's dims (a transposed input).
struct LoopRead {
  ArrayRef<int64_t> shape;
  std::optional<SmallVector<int64_t>> strides;
};

/// Opens the loop over the result elements of shape `outShape` and returns,
/// per read, the offset expression of the element it contributes.
SmallVector<std::string> openBroadcastLoop(KernelEmitter &e,
                                           ArrayRef<int64_t> outShape,
                                           ArrayRef<LoopRead> reads) {
  e.openLinearLoop(numElements(outShape));
  SmallVector<std::string> offsets;
  bool needCoords = false;
  for (const LoopRead &read : reads) {
    if (read.strides) {
      offsets.push_back(offsetExpr("o", *read.strides));
      needCoords = true;
    } else if (read.shape == outShape) {
      offsets.push_back("i");
    } else if (numElements(read.shape) == 1) {
      offsets.push_back("0");
    } else {
      offsets.push_back(
          offsetExpr("o", broadcastStrides(read.shape, outShape)));
      needCoords = true;
    }
  }
  if (needCoords)
    e.coords("o", "i", outShape);
  return offsets;
}

} // namespace

LogicalResult failOp(Operation *op, const Twine &reason) {
  return op->emitError() << "cannot emit a cuda kernel for "
                         << op->getName().getStringRef() << ": " << reason;
}

FailureOr<std::string> pointwiseExpr(Operation *op,
                                     ArrayRef<std::string> operands) {
  return codegen::pointwiseExpr(op, operands, failOp);
}

SmallVector<std::string>
emitVectorReads(KernelEmitter &e, ArrayRef<int64_t> shape, StringRef index,
                StringRef coords, int64_t vec, ArrayRef<VectorRead> reads) {
  SmallVector<int64_t> contiguous = contiguousStrides(shape);
  // Dims of extent 1 contribute nothing whatever their stride.
  auto matches = [&](const VectorRead &read, auto expected) {
    for (auto [d, extent] : llvm::enumerate(shape))
      if (extent != 1 && read.strides[d] != expected(d))
        return false;
    return true;
  };
  bool haveCoords = false;
  SmallVector<std::string> perElement;
  for (const VectorRead &read : reads) {
    std::string at;
    if (matches(read, [&](size_t d) { return contiguous[d]; })) {
      at = index.str();
    } else if (matches(read, [](size_t) { return int64_t(0); })) {
      at = "0";
    } else {
      if (!haveCoords)
        e.coords(coords, index, shape);
      haveCoords = true;
      at = offsetExpr(coords, read.strides);
    }
    std::string storage = cxxType(read.type);
    std::string compute = computeType(read.type);
    std::string vecType =
        "gc_vec<" + storage + ", " + std::to_string(vec) + ">";
    switch (vectorAccess(read.strides, read.offset, vec)) {
    case VectorAccess::Vector:
      e.line("const " + vecType + " " + read.name + "v = gc_ldv<" + storage +
             ", " + Twine(vec) + ">(" + read.pointer + " + " + at + ");");
      perElement.push_back("const " + compute + " " + read.name + " = gc_ld(" +
                           read.name + "v.e[j]);");
      break;
    case VectorAccess::Broadcast:
      e.line("const " + compute + " " + read.name + " = gc_ld(" + read.pointer +
             "[" + at + "]);");
      break;
    case VectorAccess::Scalar:
      perElement.push_back("const " + compute + " " + read.name + " = gc_ld(" +
                           read.pointer + "[" + at + " + j * " +
                           std::to_string(read.strides.back()) + "LL]);");
      break;
    }
  }
  return perElement;
}

LogicalResult emitPointwise(KernelEmitter &e) {
  SmallVector<LoopRead> reads;
  SmallVector<unsigned> present;
  for (unsigned slot = 0; slot < e.numInputSlots(); ++slot)
    if (e.hasInput(slot)) {
      present.push_back(slot);
      reads.push_back({e.inputShape(slot), std::nullopt});
    }
  SmallVector<std::string> offsets =
      openBroadcastLoop(e, e.resultShape(), reads);
  SmallVector<std::string> names(e.numInputSlots());
  for (auto [slot, offset] : llvm::zip(present, offsets)) {
    names[slot] = "x" + std::to_string(slot);
    e.line("const " + computeType(e.inputType(slot).getElementType()) + " " +
           names[slot] + " = " + e.load(slot, offset) + ";");
  }
  FailureOr<std::string> expr = pointwiseExpr(e.getOp(), names);
  if (failed(expr))
    return failure();
  e.line(e.store(0, "i", *expr));
  e.close();
  return success();
}

LogicalResult emitPointwiseFusion(KernelEmitter &e, exec::KernelOp kernel) {
  Block &body = kernel.getBody().front();
  Operation *yield = body.getTerminator();
  if (yield->getNumOperands() == 0)
    return e.fail("a pointwise fusion must have a result");
  auto outType = cast<RankedTensorType>(yield->getOperand(0).getType());
  ArrayRef<int64_t> outShape = outType.getShape();
  for (Type type : yield->getOperandTypes())
    if (cast<RankedTensorType>(type).getShape() != outShape)
      return e.fail("the results of a pointwise fusion must have one shape");

  // Every value the loop reads from memory: the kernel inputs the body
  // uses, the constants too large to be literals (read through the input
  // they were copied from), and transposes of kernel inputs (read from the
  // input at permuted strides), each at its offset in the output's
  // coordinates.
  struct Load {
    Value value;
    unsigned argument;
    /// Set for a transposed input (see LoopRead).
    std::optional<SmallVector<int64_t>> strides;
  };
  SmallVector<Load> loads;
  auto readAlone = [](Value value) {
    return llvm::all_of(value.getUsers(), [](Operation *user) {
      return isa<graph::TransposeOp>(user);
    });
  };
  for (BlockArgument arg : body.getArguments())
    if (!arg.use_empty() && !readAlone(arg))
      loads.push_back({arg, arg.getArgNumber(), std::nullopt});
  for (Operation &op : body.without_terminator()) {
    auto transpose = dyn_cast<graph::TransposeOp>(op);
    if (!transpose)
      continue;
    std::optional<unsigned> argument =
        exec::getKernelArgument(transpose.getData());
    if (!argument)
      return failOp(&op, "a pointwise fusion transposes kernel inputs only");
    loads.push_back({transpose.getResult(), *argument,
                     transposedStrides(transpose, outShape)});
  }
  llvm::DenseMap<Value, std::string> names;
  for (Operation &op : body.without_terminator()) {
    if (!op.hasTrait<OpTrait::ConstantLike>())
      continue;
    Value value = op.getResult(0);
    std::string t = computeType(elementTypeOf(value));
    if (std::optional<std::string> text = splatLiteral(&op, t)) {
      names[value] = *text;
      continue;
    }
    std::optional<unsigned> argument = exec::getKernelArgument(value);
    if (!argument)
      return failOp(&op, "a constant in a pointwise fusion must be a splat "
                         "or stand for a kernel input");
    if (!readAlone(value))
      loads.push_back({value, *argument, std::nullopt});
  }

  // Each thread computes `vec` consecutive output elements, so that the
  // outputs and the inputs contiguous along the innermost dim move as
  // 16-byte vectors (vectorAccess decides per input); a vector never
  // crosses the innermost dim.
  int64_t widest = 1;
  for (Type type : yield->getOperandTypes())
    widest =
        std::max(widest, elementBytes(cast<ShapedType>(type).getElementType()));
  for (const Load &load : loads)
    widest = std::max(widest, elementBytes(elementTypeOf(load.value)));
  int64_t vec = widest <= 16 && 16 % widest == 0 ? 16 / widest : 1;
  while (vec > 1 && (outShape.empty() || outShape.back() % vec != 0))
    vec /= 2;

  SmallVector<std::string> perElement;
  if (vec > 1) {
    e.openLinearLoop(numElements(outShape) / vec, "iv", /*fillGpu=*/true);
    e.line("const long long i = iv * " + Twine(vec) + "LL;");
    SmallVector<VectorRead> reads;
    for (auto [k, load] : llvm::enumerate(loads)) {
      VectorRead read;
      read.name = "x" + std::to_string(k);
      read.pointer = KernelEmitter::arg(load.argument);
      read.type = elementTypeOf(load.value);
      read.strides = load.strides
                         ? *load.strides
                         : broadcastStrides(shapeOf(load.value), outShape);
      names[load.value] = read.name;
      reads.push_back(std::move(read));
    }
    perElement = emitVectorReads(e, outShape, "i", "o", vec, reads);
    for (auto [index, value] : llvm::enumerate(yield->getOperands()))
      e.line("gc_vec<" + cxxType(elementTypeOf(value)) + ", " + Twine(vec) +
             "> y" + Twine(index) + ";");
    e.line("#pragma unroll");
    e.open("for (int j = 0; j < " + Twine(vec) + "; ++j) {");
    for (const std::string &declaration : perElement)
      e.line(declaration);
  } else {
    SmallVector<LoopRead> reads;
    for (const Load &load : loads)
      reads.push_back({shapeOf(load.value), load.strides});
    SmallVector<std::string> offsets = openBroadcastLoop(e, outShape, reads);
    for (auto [k, load] : llvm::enumerate(loads)) {
      std::string name = "x" + std::to_string(k);
      names[load.value] = name;
      e.line("const " + computeType(elementTypeOf(load.value)) + " " + name +
             " = gc_ld(" + KernelEmitter::arg(load.argument) + "[" +
             offsets[k] + "]);");
    }
  }

  unsigned counter = 0;
  for (Operation &op : body.without_terminator()) {
    if (op.hasTrait<OpTrait::ConstantLike>() || isa<graph::TransposeOp>(op))
      continue;
    if (!op.hasTrait<graph::OpTrait::Pointwise>() || op.getNumResults() != 1)
      return failOp(&op, "a pointwise fusion holds pointwise ops only");
    SmallVector<std::string> operands;
    for (Value slot : inputSlots(&op))
      operands.push_back(slot ? names.lookup(slot) : std::string());
    FailureOr<std::string> expr = pointwiseExpr(&op, operands);
    if (failed(expr))
      return failure();
    std::string name = "v" + std::to_string(counter++);
    e.line(defineValue(elementTypeOf(op.getResult(0)), name, *expr));
    names[op.getResult(0)] = name;
  }
  if (vec > 1) {
    for (auto [index, value] : llvm::enumerate(yield->getOperands()))
      e.line("y" + Twine(index) + ".e[j] = gc_cvt<" +
             cxxType(elementTypeOf(value)) + ">(" + names.lookup(value) + ");");
    e.close();
    for (auto [index, value] : llvm::enumerate(yield->getOperands()))
      e.line("gc_stv<" + cxxType(elementTypeOf(value)) + ", " + Twine(vec) +
             ">(" + KernelEmitter::out(index) + " + i, y" + Twine(index) +
             ");");
    e.close();
    return success();
  }
  for (auto [index, value] : llvm::enumerate(yield->getOperands()))
    e.line(KernelEmitter::out(index) + "[i] = gc_cvt<" +
           cxxType(elementTypeOf(value)) + ">(" + names.lookup(value) + ");");
  e.close();
  return success();
}

namespace {

/// Names what the pointwise ops fused around an anchor read at one element
/// of `shape`, whose linear index is the variable `index`: values computed
/// before, splat literals, and kernel inputs loaded at their broadcast
/// offsets (`<prefix>x<k>`, from coordinates `<prefix>c<d>` declared on
/// first need). Conv/matmul epilogues and row-reduction prologues share it;
/// `role` ("an epilogue") and `shapeName` word its errors.
class ElementOperands {
public:
  ElementOperands(KernelEmitter &e, ArrayRef<int64_t> shape, StringRef index,
                  StringRef prefix, StringRef role, StringRef shapeName)
      : e(e), shape(shape), index(index.str()), prefix(prefix.str()),
        role(role.str()), shapeName(shapeName.str()) {}

  void set(Value value, std::string name) { names[value] = std::move(name); }
  std::optional<std::string> lookup(Value value) const {
    auto found = names.find(value);
    return found == names.end() ? std::nullopt
                                : std::optional<std::string>(found->second);
  }

  /// The coordinate prefix of the element, declaring the coordinates once.
  std::string coords() {
    if (!haveCoords)
      e.coords(prefix + "c", index, shape);
    haveCoords = true;
    return prefix + "c";
  }

  /// The name of `value` read by `user` at the element.
  FailureOr<std::string> name(Value value, Operation *user) {
    if (std::optional<std::string> known = lookup(value))
      return *known;
    Operation *def = value.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>())
      if (std::optional<std::string> text =
              splatLiteral(def, computeType(elementTypeOf(value)))) {
        names[value] = *text;
        return *text;
      }
    std::optional<unsigned> argument = exec::getKernelArgument(value);
    if (!argument)
      return failOp(user, role + " operand must be a kernel input, a splat "
                                 "constant or " + role + " value");
    ArrayRef<int64_t> from =
        cast<RankedTensorType>(value.getType()).getShape();
    FailureOr<SmallVector<int64_t>> broadcast =
        graph::broadcastShapes(from, shape);
    if (failed(broadcast) || ArrayRef<int64_t>(*broadcast) != shape)
      return failOp(user, role + " operand must broadcast to " + shapeName);
    std::string at;
    if (from == shape)
      at = index;
    else if (numElements(from) == 1)
      at = "0";
    else
      at = offsetExpr(StringRef(coords()), broadcastStrides(from, shape));
    std::string name = prefix + "x" + std::to_string(loads++);
    e.line("const " + computeType(elementTypeOf(value)) + " " + name +
           " = gc_ld(" + KernelEmitter::arg(*argument) + "[" + at + "]);");
    names[value] = name;
    return name;
  }

  /// The names of pointwise `op`'s operands per input slot ("" for an
  /// absent one), for pointwiseExpr.
  FailureOr<SmallVector<std::string>> of(Operation *op) {
    SmallVector<std::string> operands;
    for (Value slot : inputSlots(op)) {
      if (!slot) {
        operands.emplace_back();
        continue;
      }
      FailureOr<std::string> found = name(slot, op);
      if (failed(found))
        return failure();
      operands.push_back(*found);
    }
    return operands;
  }

private:
  KernelEmitter &e;
  ArrayRef<int64_t> shape;
  std::string index, prefix, role, shapeName;
  llvm::DenseMap<Value, std::string> names;
  bool haveCoords = false;
  unsigned loads = 0;
};

} // namespace

LogicalResult emitEpilogueStore(KernelEmitter &e, exec::KernelOp kernel,
                                Operation *anchor, StringRef offset,
                                StringRef value) {
  Block &body = kernel.getBody().front();
  Operation *yield = body.getTerminator();
  Value anchorResult = anchor->getResult(0);
  ArrayRef<int64_t> outShape =
      cast<RankedTensorType>(anchorResult.getType()).getShape();
  if (yield->getNumOperands() != 1)
    return e.fail("an epilogue fusion must have one result");

  e.line("// epilogue");
  e.line("const long long ep = " + offset + ";");
  ElementOperands operands(e, outShape, "ep", "e", "an epilogue",
                           "the anchor's result shape");
  operands.set(anchorResult, "ev0");
  e.line(defineValue(elementTypeOf(anchorResult), "ev0", value));
  unsigned defs = 1;

  // A layout epilogue: the value is stored at its transposed position.
  Operation *layoutEpilogue = nullptr;
  for (Operation &op : body.without_terminator()) {
    // Layout prologues are read by the anchor's template through strides.
    if (&op == anchor || op.hasTrait<OpTrait::ConstantLike>() ||
        graph::isLayoutPrologueOf(&op, anchor))
      continue;
    if (graph::isLayoutEpilogueOf(&op, anchor)) {
      layoutEpilogue = &op;
      operands.set(op.getResult(0), "ev0");
      continue;
    }
    if (!op.hasTrait<graph::OpTrait::Pointwise>() || op.getNumResults() != 1)
      return failOp(&op, "the epilogue of a conv or matmul kernel holds "
                         "pointwise ops only");
    if (cast<RankedTensorType>(op.getResult(0).getType()).getShape() !=
        outShape)
      return failOp(&op, "an epilogue op must have the shape of the result "
                         "of " + anchor->getName().getStringRef());
    FailureOr<SmallVector<std::string>> names = operands.of(&op);
    if (failed(names))
      return failure();
    FailureOr<std::string> expr = pointwiseExpr(&op, *names);
    if (failed(expr))
      return failure();
    std::string name = "ev" + std::to_string(defs++);
    e.line(defineValue(elementTypeOf(op.getResult(0)), name, *expr));
    operands.set(op.getResult(0), name);
  }
  Value result = yield->getOperand(0);
  std::optional<std::string> resultName = operands.lookup(result);
  if (!resultName || isa<BlockArgument>(result))
    return e.fail("an epilogue fusion must yield a value it computes");
  std::string at = "ep";
  if (layoutEpilogue) {
    // Anchor dim i lands in output dim j where perm[j] == i.
    auto transpose = cast<graph::TransposeOp>(layoutEpilogue);
    SmallVector<int64_t> outStrides = contiguousStrides(
        cast<RankedTensorType>(transpose.getType()).getShape());
    SmallVector<int64_t> strides(outShape.size(), 0);
    for (auto [j, i] : llvm::enumerate(graph::transposePermutation(transpose)))
      strides[i] = outStrides[j];
    at = offsetExpr(StringRef(operands.coords()), strides);
  }
  e.line(KernelEmitter::out(0) + "[" + at + "] = gc_cvt<" +
         cxxType(elementTypeOf(result)) + ">(" + *resultName + ");");
  return success();
}

} // namespace graphc::codegen::cuda

namespace graphc::codegen::cuda {

/// The ops of `kernel` computing input 0 of `reduction`, in order, once
/// checked to be what a prologue may hold.
static FailureOr<SmallVector<Operation *>>
prologueOps(KernelEmitter &e, exec::KernelOp kernel, Operation *reduction) {
  Value data = reduction->getOperand(0);
  ArrayRef<int64_t> shape = shapeOf(data);
  SmallVector<Operation *> ops;
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (&op == reduction || op.hasTrait<OpTrait::ConstantLike>())
      continue;
    if (!op.hasTrait<graph::OpTrait::Pointwise>() || op.getNumResults() != 1)
      return failOp(&op, "the prologue of a reduction kernel holds pointwise "
                         "ops only");
    if (shapeOf(op.getResult(0)) != shape)
      return failOp(&op, "a prologue op must have the shape of the input of " +
                             reduction->getName().getStringRef());
    if (llvm::any_of(op.getUsers(), [&](Operation *user) {
          return user == reduction &&
                 llvm::is_contained(reduction->getOperands().drop_front(),
                                    op.getResult(0));
        }))
      return failOp(&op, "a prologue op may feed only input 0 of " +
                             reduction->getName().getStringRef());
    ops.push_back(&op);
  }
  if (isa<BlockArgument>(data) ||
      data.getDefiningOp()->hasTrait<OpTrait::ConstantLike>())
    return e.fail("the input 0 of a prologue reduction kernel must be "
                  "computed by its prologue");
  return ops;
}

LogicalResult emitPrologueLoader(KernelEmitter &e, exec::KernelOp kernel,
                                 Operation *reduction, int64_t vec) {
  Value data = reduction->getOperand(0);
  ArrayRef<int64_t> shape = shapeOf(data);
  std::string t = computeType(elementTypeOf(data));
  FailureOr<SmallVector<Operation *>> ops = prologueOps(e, kernel, reduction);
  if (failed(ops))
    return failure();
  // The looped templates read each element of a row two or three times
  // (softmax: peak, sum, store; layer_normalization: mean, variance,
  // store) and recompute the prologue per read, as no memory holds rows of
  // any length; the register forms compute it once per element. Any
  // pointwise op is accepted, costly ones (exp, erf, tanh) included: a
  // recomputation costs far less than the launch and the round trip
  // through memory that it replaces.
  if (vec <= 1) {
    e.open("auto gc_prologue = [&](long long pe) -> " + t + " {");
    ElementOperands operands(e, shape, "pe", "p", "a prologue",
                             "the shape of the reduction's input");
    unsigned defs = 0;
    for (Operation *op : *ops) {
      FailureOr<SmallVector<std::string>> names = operands.of(op);
      if (failed(names))
        return failure();
      FailureOr<std::string> expr = pointwiseExpr(op, *names);
      if (failed(expr))
        return failure();
      std::string name = "pv" + std::to_string(defs++);
      e.line(defineValue(elementTypeOf(op->getResult(0)), name, *expr));
      operands.set(op->getResult(0), name);
    }
    e.line("return static_cast<" + t + ">(" + *operands.lookup(data) + ");");
    e.close("};");
    return success();
  }

  // A vector of elements: the kernel inputs the prologue reads are loaded
  // once for the vector (as vectors where vectorAccess allows), before the
  // loop computing each element as gc_prologue would.
  e.open("auto gc_prologue_vec = [&](long long pe) -> gc_vec<" + t + ", " +
         Twine(vec) + "> {");
  llvm::DenseMap<Value, std::string> names;
  SmallVector<VectorRead> reads;
  for (Operation *op : *ops) {
    for (Value slot : inputSlots(op)) {
      if (!slot || names.count(slot))
        continue;
      Operation *def = slot.getDefiningOp();
      if (def && !def->hasTrait<OpTrait::ConstantLike>())
        continue;
      if (def)
        if (std::optional<std::string> text =
                splatLiteral(def, computeType(elementTypeOf(slot)))) {
          names[slot] = *text;
          continue;
        }
      std::optional<unsigned> argument = exec::getKernelArgument(slot);
      if (!argument)
        return failOp(op, "a prologue operand must be a kernel input, a "
                          "splat constant or a prologue value");
      FailureOr<SmallVector<int64_t>> broadcast =
          graph::broadcastShapes(shapeOf(slot), shape);
      if (failed(broadcast) || ArrayRef<int64_t>(*broadcast) != shape)
        return failOp(op, "a prologue operand must broadcast to the shape of "
                          "the reduction's input");
      VectorRead read;
      read.name = "px" + std::to_string(reads.size());
      read.pointer = KernelEmitter::arg(*argument);
      read.type = elementTypeOf(slot);
      read.strides = broadcastStrides(shapeOf(slot), shape);
      names[slot] = read.name;
      reads.push_back(std::move(read));
    }
  }
  SmallVector<std::string> perElement =
      emitVectorReads(e, shape, "pe", "pc", vec, reads);
  e.line("gc_vec<" + t + ", " + Twine(vec) + "> pr;");
  e.line("#pragma unroll");
  e.open("for (int j = 0; j < " + Twine(vec) + "; ++j) {");
  for (const std::string &declaration : perElement)
    e.line(declaration);
  unsigned defs = 0;
  for (Operation *op : *ops) {
    SmallVector<std::string> operands;
    for (Value slot : inputSlots(op))
      operands.push_back(slot ? names.lookup(slot) : std::string());
    FailureOr<std::string> expr = pointwiseExpr(op, operands);
    if (failed(expr))
      return failure();
    std::string name = "pv" + std::to_string(defs++);
    e.line(defineValue(elementTypeOf(op->getResult(0)), name, *expr));
    names[op->getResult(0)] = name;
  }
  e.line("pr.e[j] = static_cast<" + t + ">(" + names.lookup(data) + ");");
  e.close();
  e.line("return pr;");
  e.close("};");
  return success();
}

} // namespace graphc::codegen::cuda
