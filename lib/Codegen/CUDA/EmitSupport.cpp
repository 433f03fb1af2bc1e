//===- EmitSupport.cpp - shared state and helpers of the CUDA emitter -----===//

#include "lib/Codegen/CUDA/EmitSupport.h"

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"
#include "dialects/Graph/HostEval.h"
#include "lib/Codegen/SourceText.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace graphc::codegen::cuda {

//===----------------------------------------------------------------------===//
// Types and literals
//===----------------------------------------------------------------------===//

std::string reduceType(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type);
      intType && intType.getWidth() < 32)
    return intType.isUnsigned() ? "unsigned int" : "int";
  return computeType(type);
}

//===----------------------------------------------------------------------===//
// Shapes and offsets
//===----------------------------------------------------------------------===//

std::string offsetExpr(ArrayRef<std::string> coords,
                       ArrayRef<int64_t> strides) {
  std::string expr;
  for (auto [coord, stride] : llvm::zip(coords, strides)) {
    if (stride == 0)
      continue;
    if (!expr.empty())
      expr += " + ";
    expr += stride == 1 ? coord : coord + " * " + std::to_string(stride);
  }
  return expr.empty() ? "0" : expr;
}

std::string offsetExpr(StringRef prefix, ArrayRef<int64_t> strides) {
  SmallVector<std::string> coords;
  for (size_t i = 0; i < strides.size(); ++i)
    coords.push_back(prefix.str() + std::to_string(i));
  return offsetExpr(coords, strides);
}

int64_t numElements(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

int64_t elementBytes(Type type) {
  return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
}

int64_t vectorElements(Type type) {
  if (!type.isIntOrFloat())
    return 1;
  int64_t bytes = elementBytes(type);
  return bytes <= 16 && 16 % bytes == 0 ? 16 / bytes : 1;
}

VectorAccess vectorAccess(ArrayRef<int64_t> strides, int64_t offset,
                          int64_t vec) {
  if (strides.empty() || strides.back() == 0)
    return VectorAccess::Broadcast;
  if (vec <= 1 || strides.back() != 1 || offset % vec != 0)
    return VectorAccess::Scalar;
  for (int64_t stride : strides.drop_back())
    if (stride % vec != 0)
      return VectorAccess::Scalar;
  return VectorAccess::Vector;
}

ReductionView makeReductionView(ArrayRef<int64_t> shape,
                                ArrayRef<bool> reduced) {
  ReductionView view;
  SmallVector<int64_t> strides = contiguousStrides(shape);
  bool seenReduced = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (reduced[i]) {
      view.reducedDims.push_back(shape[i]);
      view.reducedStrides.push_back(strides[i]);
      view.length *= shape[i];
      seenReduced = true;
    } else {
      view.keptDims.push_back(shape[i]);
      view.keptStrides.push_back(strides[i]);
      view.rows *= shape[i];
      if (seenReduced && shape[i] != 1)
        view.contiguous = false;
    }
  }
  return view;
}

//===----------------------------------------------------------------------===//
// KernelEmitter
//===----------------------------------------------------------------------===//

KernelEmitter::KernelEmitter(exec::KernelOp kernel, Operation *op,
                             int64_t blockSize)
    : KernelEmitter(op, kernel.getSymName(), blockSize) {
  this->kernel = kernel;
}

LogicalResult KernelEmitter::bindInputSlots() {
  // Operands computed by layout prologue ops are read from the kernel input
  // behind them (graph::layoutPrologue).
  graph::LayoutPrologue layout = graph::layoutPrologue(op);
  for (auto [slot, value] : llvm::enumerate(slots)) {
    // The prologue computes input 0 (emitPrologueLoader).
    if (slot == 0 && prologueReduction)
      continue;
    if (!value) {
      prologue += "  const void *const " + in(slot) + " = nullptr;\n";
      continue;
    }
    std::optional<unsigned> argument = exec::getKernelArgument(value);
    std::string base = argument ? arg(*argument) : std::string();
    if (!argument) {
      auto read = layout.reads.find(value);
      if (read != layout.reads.end())
        argument = exec::getKernelArgument(read->second.source);
      if (!argument)
        return fail("input " + Twine(slot) + " is computed inside the kernel");
      base = arg(*argument);
      if (read->second.offset != 0) {
        base += " + " + std::to_string(read->second.offset) + "LL";
        slotOffsets[slot] = read->second.offset;
      }
      stridedSlots[slot] = read->second.strides;
    }
    prologue += "  const " + cxxType(cast<ShapedType>(value.getType())
                                          .getElementType()) +
                " *__restrict__ " + in(slot) + " = " + base + ";\n";
  }
  return success();
}

KernelEmitter::KernelEmitter(Operation *op, StringRef name, int64_t blockSize)
    : op(op), name(name.str()), blockSize(blockSize) {
  StringRef fullName = op->getName().getStringRef();
  mnemonic = fullName.starts_with("graph.") ? fullName.drop_front(6).str()
                                            : fullName.str();
  slots = inputSlots(op);
}

SmallVector<int64_t> KernelEmitter::inputStrides(unsigned slot) const {
  auto it = stridedSlots.find(slot);
  if (it == stridedSlots.end())
    return contiguousStrides(inputShape(slot));
  return it->second;
}

bool KernelEmitter::vectorReadable(unsigned slot, int64_t vec) const {
  if (!hasInput(slot) || (slot == 0 && prologueReduction) || vec <= 1)
    return false;
  ArrayRef<int64_t> shape = inputShape(slot);
  return inputStrides(slot) == contiguousStrides(shape) &&
         inputOffset(slot) % vec == 0 && !shape.empty() &&
         shape.back() % vec == 0;
}

LogicalResult KernelEmitter::definePrologue(int64_t vec) {
  if (!prologueReduction)
    return success();
  prologueDefined = true;
  return emitPrologueLoader(*this, kernel, prologueReduction, vec);
}

LogicalResult KernelEmitter::fail(const Twine &reason) const {
  return failOp(op, reason);
}

Value KernelEmitter::input(unsigned slot) const {
  return slot < slots.size() ? slots[slot] : Value();
}

RankedTensorType KernelEmitter::inputType(unsigned slot) const {
  return cast<RankedTensorType>(input(slot).getType());
}

RankedTensorType KernelEmitter::resultType(unsigned index) const {
  return cast<RankedTensorType>(op->getResult(index).getType());
}

std::string KernelEmitter::checkedIndex(const Twine &value, int64_t n) {
  reportsErrors = true;
  return ("gc_index(static_cast<long long>(" + value + "), " + Twine(n) +
          "LL, gc_error, gc_site)")
      .str();
}

std::string KernelEmitter::report(StringRef value, int64_t low, int64_t high,
                                  Reported what) {
  reportsErrors = true;
  return ("gc_report(gc_error, gc_site, " + value + ", " + Twine(low) + "LL, " +
          Twine(high) + "LL, " + Twine(static_cast<int>(what)) + ");")
      .str();
}

std::string KernelEmitter::store(unsigned index, StringRef offset,
                                 StringRef value) const {
  return (out(index) + "[" + offset + "] = gc_cvt<" +
          cxxType(resultType(index).getElementType()) + ">(" + value + ");")
      .str();
}

LogicalResult KernelEmitter::storeResult(StringRef offset, StringRef value) {
  if (!epilogueAnchor) {
    line(store(0, offset, value));
    return success();
  }
  return emitEpilogueStore(*this, kernel, epilogueAnchor, offset, value);
}

std::optional<SmallVector<int64_t>>
KernelEmitter::constantInts(unsigned slot) const {
  ElementsAttr attr;
  Value value = input(slot);
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  return graph::getConstantInts(attr);
}

std::optional<SmallVector<double>>
KernelEmitter::constantFloats(unsigned slot) const {
  ElementsAttr attr;
  Value value = input(slot);
  if (!value || !matchPattern(value, m_Constant(&attr)) ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return graph::getConstantNumbers(attr);
}

std::optional<SmallVector<int64_t>>
KernelEmitter::intsAttr(StringRef attrName) const {
  if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>(attrName))
    return SmallVector<int64_t>(attr.asArrayRef());
  return std::nullopt;
}

std::optional<SmallVector<double>>
KernelEmitter::floatsAttr(StringRef attrName) const {
  if (auto attr = op->getAttrOfType<DenseF32ArrayAttr>(attrName))
    return SmallVector<double>(attr.asArrayRef().begin(),
                               attr.asArrayRef().end());
  return std::nullopt;
}

void KernelEmitter::line(const Twine &text) {
  os.indent(indent * 2) << text << "\n";
}

void KernelEmitter::open(const Twine &text) {
  line(text);
  ++indent;
}

void KernelEmitter::close(StringRef text) {
  --indent;
  line(text);
}

void KernelEmitter::coords(StringRef prefix, StringRef linear,
                           ArrayRef<int64_t> dims) {
  if (dims.empty())
    return;
  if (dims.size() == 1) {
    line("const long long " + prefix + "0 = " + linear + ";");
    return;
  }
  std::string rest = (prefix + "_rest").str();
  line("long long " + rest + " = " + linear + ";");
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i > 0; --i) {
    line("const long long " + prefix + Twine(i) + " = " + rest + " % " +
         Twine(dims[i]) + ";");
    line(rest + " /= " + Twine(dims[i]) + ";");
  }
  line("const long long " + prefix + "0 = " + rest + ";");
}

void KernelEmitter::setLaunch(ArrayRef<int64_t> gridDims,
                              ArrayRef<int64_t> blockDims) {
  for (int i = 0; i < 3; ++i) {
    grid[i] = i < static_cast<int>(gridDims.size()) ? gridDims[i] : 1;
    block[i] = i < static_cast<int>(blockDims.size()) ? blockDims[i] : 1;
  }
}

void KernelEmitter::openLinearLoop(int64_t n, StringRef var, bool fillGpu) {
  auto blocksOf = [&](int64_t threads) {
    int64_t perBlock = threads * elementsPerThread;
    return std::clamp<int64_t>((n + perBlock - 1) / perBlock, 1, kMaxGrid);
  };
  // The loop reads blockDim, so the block may shrink freely.
  int64_t threads = blockSize;
  while (fillGpu && heuristicLaunch && threads % 64 == 0 && threads > 64 &&
         blocksOf(threads) < kFillBlocks)
    threads /= 2;
  int64_t blocks = blocksOf(threads);
  setLaunch({blocks}, {threads});
  open("for (long long " + var + " = (long long)blockIdx.x * blockDim.x + " +
       "threadIdx.x; " + var + " < " + Twine(n) + "LL; " + var +
       " += (long long)gridDim.x * blockDim.x) {");
}

/// Opens a loop of `row` over [0, rows): a block of `threads` per row, or
/// with `warpRows`, `rowsPerBlock` warps per block, one per row.
static void openRows(KernelEmitter &e, int64_t rows, bool warpRows,
                     int64_t rowsPerBlock, int64_t threads) {
  if (!warpRows) {
    e.setLaunch({std::clamp<int64_t>(rows, 1, kMaxGrid)}, {threads});
    e.open("for (long long row = blockIdx.x; row < " + Twine(rows) +
           "LL; row += gridDim.x) {");
    return;
  }
  // Warp w of a block takes rows blockIdx.x * R + w, then every gridDim.x * R
  // rows on; no barrier spans warps, so a warp past the last row just ends.
  int64_t blocks = (rows + rowsPerBlock - 1) / rowsPerBlock;
  e.setLaunch({std::clamp<int64_t>(blocks, 1, kMaxGrid)}, {32 * rowsPerBlock});
  e.line("const int rowLane = threadIdx.x & 31;");
  e.open("for (long long row = (long long)blockIdx.x * " + Twine(rowsPerBlock) +
         " + (threadIdx.x >> 5); row < " + Twine(rows) +
         "LL; row += (long long)gridDim.x * " + Twine(rowsPerBlock) + ") {");
}

void KernelEmitter::openRowLoop(int64_t rows, int64_t length, bool warpRows) {
  warpPerRow = warpRows && rowsPerBlock > 1;
  openRows(*this, rows, warpPerRow, rowsPerBlock,
           std::clamp<int64_t>((length + 31) / 32 * 32, 32, blockSize));
}

std::optional<RowRegisters> KernelEmitter::planRowRegisters(int64_t rows,
                                                            int64_t length,
                                                            int64_t vec) const {
  if (length <= 0 || vec <= 0 || length % vec != 0)
    return std::nullopt;
  RowRegisters plan;
  plan.vec = vec;
  plan.vectors = length / vec;
  auto slots = [&](int64_t threads) {
    return (plan.vectors + threads - 1) / threads;
  };
  bool warpFits = slots(32) * vec <= kMaxRowRegisters;
  if (rowsPerBlock > 1 || (rowsPerBlock == 0 && warpFits)) {
    if (!warpFits)
      return std::nullopt;
    plan.threads = 32;
    plan.warpPerRow = true;
    plan.rowsPerBlock = rowsPerBlock;
    if (rowsPerBlock == 0) {
      // Without a schedule: up to 4 warps per block while that leaves
      // about two blocks per SM of a large GPU (132 SMs); short grids keep
      // a warp per block, so that every SM gets rows.
      plan.rowsPerBlock = 1;
      while (plan.rowsPerBlock < 4 && rows / (plan.rowsPerBlock * 2) >= 264)
        plan.rowsPerBlock *= 2;
    }
  } else {
    // A block per row, its threads sharing the row's vectors.
    plan.threads =
        std::clamp<int64_t>((plan.vectors + 31) / 32 * 32, 32, blockSize);
    if (slots(plan.threads) * vec > kMaxRowRegisters)
      return std::nullopt;
    plan.warpPerRow = plan.threads == 32;
    plan.rowsPerBlock = 1;
  }
  plan.perThread = slots(plan.threads);
  return plan;
}

void KernelEmitter::openRegisterRowLoop(int64_t rows,
                                        const RowRegisters &plan) {
  warpPerRow = plan.warpPerRow;
  openRows(*this, rows, plan.warpPerRow, plan.rowsPerBlock, plan.threads);
}

void KernelEmitter::openRowVectors(const RowRegisters &plan) {
  line("#pragma unroll");
  open("for (int p = 0; p < " + Twine(plan.perThread) + "; ++p) {");
  line("const long long v = " + rowThread() + " + p * " + Twine(plan.threads) +
       "LL;");
  if (plan.masked())
    open("if (v < " + Twine(plan.vectors) + "LL) {");
}

void KernelEmitter::closeRowVectors(const RowRegisters &plan) {
  if (plan.masked())
    close();
  close();
}

void KernelEmitter::loadRowRegisters(const RowRegisters &plan, StringRef t,
                                     StringRef base, StringRef name,
                                     StringRef fill) {
  int64_t vec = plan.vec;
  line(t + " " + name + "[" + Twine(plan.elements()) + "];");
  openRowVectors(plan);
  std::string at = (base + " + v * " + Twine(vec)).str();
  if (prologueReduction && vec > 1) {
    line("const gc_vec<" + t + ", " + Twine(vec) + "> pv = gc_prologue_vec(" +
         at + ");");
  } else if (vectorReadable(0, vec)) {
    line("const gc_vec<" + cxxType(inputType(0).getElementType()) + ", " +
         Twine(vec) + "> pv = gc_ldv<" +
         cxxType(inputType(0).getElementType()) + ", " + Twine(vec) + ">(" +
         in(0) + " + " + at + ");");
  }
  std::string slot = (name + "[p * " + Twine(vec) + " + j]").str();
  line("#pragma unroll");
  open("for (int j = 0; j < " + Twine(vec) + "; ++j) {");
  if (prologueReduction && vec == 1)
    line(slot + " = gc_prologue(" + at + " + j);");
  else if (prologueReduction)
    line(slot + " = pv.e[j];");
  else if (vectorReadable(0, vec))
    line(slot + " = gc_ld(pv.e[j]);");
  else
    line(slot + " = gc_ld(" + in(0) + "[" + at + " + j]);");
  close();
  if (plan.masked()) {
    close();
    open("else {");
    line("#pragma unroll");
    line("for (int j = 0; j < " + Twine(vec) + "; ++j) " + slot + " = " + fill +
         ";");
    close();
  }
  close();
}

std::string KernelEmitter::rowThread() const {
  return warpPerRow ? "rowLane" : "threadIdx.x";
}

std::string KernelEmitter::rowThreads() const {
  return warpPerRow ? "32" : "blockDim.x";
}

std::string KernelEmitter::rowReduce() const {
  return warpPerRow ? "gc_warp_reduce" : "gc_block_reduce";
}

void KernelEmitter::openRowElementLoop(int64_t length, StringRef var) {
  open("for (long long " + var + " = " + rowThread() + "; " + var + " < " +
       Twine(length) + "LL; " + var + " += " + rowThreads() + ") {");
}

void KernelEmitter::rowBase(const ReductionView &view, StringRef row,
                            StringRef base) {
  if (view.contiguous) {
    line("const long long " + base + " = " + row + " * " + Twine(view.length) +
         "LL;");
    return;
  }
  std::string prefix = ("k" + Twine(uniqueCounter++) + "_").str();
  coords(prefix, row, view.keptDims);
  line("const long long " + base + " = " +
       offsetExpr(StringRef(prefix), view.keptStrides) + ";");
}

void KernelEmitter::rowElement(const ReductionView &view, StringRef r,
                               StringRef base, StringRef elementName) {
  if (view.contiguous) {
    line("const long long " + elementName + " = " + base + " + " + r + ";");
    return;
  }
  std::string prefix = ("r" + Twine(uniqueCounter++) + "_").str();
  coords(prefix, r, view.reducedDims);
  line("const long long " + elementName + " = " + base + " + " +
       offsetExpr(StringRef(prefix), view.reducedStrides) + ";");
}

void KernelEmitter::openRowElements(const ReductionView &view, StringRef type,
                                    StringRef base) {
  openRowElementLoop(view.length);
  rowElement(view, "r", base, "at");
  line("const " + type + " x = " + load(0, "at") + ";");
}

/// Whether `type` is a ranked tensor with static dims and a CUDA element type.
static bool isSupportedTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         !cxxType(tensor.getElementType()).empty();
}

LogicalResult KernelEmitter::checkTypes() const {
  for (auto [slot, value] : llvm::enumerate(slots))
    if (value && !isSupportedTensor(value.getType()))
      return fail("input " + Twine(slot) + " has type " +
                  Twine(llvm::formatv("{0}", value.getType()).str()) +
                  "; a static tensor of a supported element type is required");
  for (OpResult result : op->getResults())
    if (!isSupportedTensor(result.getType()))
      return fail("result " + Twine(result.getResultNumber()) + " has type " +
                  Twine(llvm::formatv("{0}", result.getType()).str()) +
                  "; a static tensor of a supported element type is required");
  return success();
}

/// `// <name>: graph.add, graph.mul (ONNX nodes 'a', 'b')`: what a kernel
/// of an exec.kernel computes, and for which nodes.
static std::string describeKernel(exec::KernelOp kernel) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// " << kernel.getSymName() << ": ";
  bool first = true;
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (op.hasTrait<OpTrait::ConstantLike>())
      continue;
    os << (first ? "" : ", ") << op.getName();
    first = false;
  }
  if (!kernel.getOnnxNodes().empty()) {
    os << " (ONNX node" << (kernel.getOnnxNodes().size() > 1 ? "s" : "");
    first = true;
    for (Attribute node : kernel.getOnnxNodes()) {
      os << (first ? " '" : ", '")
         << commentText(cast<StringAttr>(node).getValue()) << "'";
      first = false;
    }
    os << ")";
  }
  os << "\n";
  return text;
}

/// Kernel parameter bytes CUDA accepts from 12.1 on for Volta and later
/// (every architecture NVRTC 13 targets); a kernel with more cannot launch.
static constexpr size_t kMaxKernelParameterBytes = 32764;

FailureOr<CudaKernel> KernelEmitter::finish() {
  if (prologueReduction && !prologueDefined)
    return fail("the template does not define the kernel's prologue");
  // One pointer per buffer: an op of thousands of distinct operands
  // exceeds what CUDA passes to a kernel.
  size_t pointers = 0;
  if (kernel)
    pointers = kernel.getBody().front().getNumArguments() +
               kernel.getBody().front().getTerminator()->getNumOperands();
  else
    pointers = slots.size() + op->getNumResults();
  size_t parameterBytes = pointers * 8 + (reportsErrors ? 12 : 0);
  if (parameterBytes > kMaxKernelParameterBytes) {
    (void)fail("its kernel takes " + Twine(pointers) + " buffers (" +
               Twine(parameterBytes) + " bytes of parameters), more than " +
               "the " + Twine(kMaxKernelParameterBytes) +
               " bytes CUDA passes to a kernel");
    return failure();
  }
  std::string source;
  llvm::raw_string_ostream src(source);
  if (kernel) {
    src << describeKernel(kernel);
  } else {
    std::string nodeName = graph::firstNodeName(op->getLoc());
    src << "// graph." << mnemonic;
    if (!nodeName.empty())
      src << " (ONNX node '" << commentText(nodeName) << "')";
    src << ": (";
    llvm::interleaveComma(op->getOperandTypes(), src);
    src << ") -> (";
    llvm::interleaveComma(op->getResultTypes(), src);
    src << ")\n";
  }
  src << "extern \"C\" __global__ void __launch_bounds__("
      << block[0] * block[1] * block[2] << ") " << name << "(";
  bool first = true;
  auto separator = [&] {
    src << (first ? "\n    " : ",\n    ");
    first = false;
  };
  auto elementType = [](Type type) {
    return cxxType(cast<ShapedType>(type).getElementType());
  };
  if (kernel) {
    Block &body = kernel.getBody().front();
    for (BlockArgument arg : body.getArguments()) {
      separator();
      src << "const " << elementType(arg.getType()) << " *__restrict__ "
          << this->arg(arg.getArgNumber());
    }
    for (auto [index, type] :
         llvm::enumerate(body.getTerminator()->getOperandTypes())) {
      separator();
      src << elementType(type) << " *__restrict__ " << out(index);
    }
  } else {
    for (auto [slot, value] : llvm::enumerate(slots)) {
      separator();
      if (!value) {
        src << "const void *" << in(slot) << " /* absent */";
        continue;
      }
      src << "const " << elementType(value.getType()) << " *__restrict__ "
          << in(slot);
    }
    for (OpResult result : op->getResults()) {
      separator();
      src << elementType(result.getType()) << " *__restrict__ "
          << out(result.getResultNumber());
    }
  }
  for (const std::string &parameter : scratchParameters) {
    separator();
    src << parameter;
  }
  if (reportsErrors) {
    separator();
    src << "unsigned long long *gc_error";
    separator();
    src << "unsigned gc_site";
  }
  // Before anything reads memory: see gc_grid_dependency_wait.
  src << ") {\n  gc_grid_dependency_wait();\n  gc_launch_dependents();\n"
      << prologue << body << "}\n";

  CudaKernel kernel;
  kernel.name = name;
  kernel.source = std::move(source);
  for (int i = 0; i < 3; ++i) {
    kernel.grid[i] = static_cast<uint32_t>(grid[i]);
    kernel.block[i] = static_cast<uint32_t>(block[i]);
  }
  kernel.sharedBytes = 0;
  kernel.reportsErrors = reportsErrors;
  return kernel;
}

} // namespace graphc::codegen::cuda
