//===- EmitSupport.h - shared state and helpers of the CUDA emitter -*- C++
//-*-===//
//
// Internal to lib/Codegen/CUDA. A KernelEmitter holds the op being emitted,
// reads its operands by ONNX input slot and its attributes by ONNX name with
// ONNX defaults, and accumulates the kernel body and launch configuration.
// The free functions build index arithmetic over baked shapes and strides.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_CODEGEN_CUDA_EMITSUPPORT_H
#define GRAPHC_LIB_CODEGEN_CUDA_EMITSUPPORT_H

#include "lib/Codegen/CUDA/CudaEmitter.h"
#include "lib/Codegen/ScalarExpr.h"

#include "dialects/Exec/ExecOps.h"
#include "dialects/Graph/GraphOps.h"
#include "lib/Support/Axis.h"
#include "lib/Support/Schedule.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace graphc::codegen::cuda {

/// Threads per block of the elementwise and row kernels.
/// Threads per block when the schedule does not say.
inline constexpr int64_t kDefaultBlockSize = kHeuristicBlockSize;
/// Upper bound of grid.x for grid-stride loops.
inline constexpr int64_t kMaxGrid = 65535;
/// Blocks that give every SM of a large GPU (an H100 has 132) work: small
/// kernels shrink their blocks before they launch fewer.
inline constexpr int64_t kFillBlocks = 132;

// The target-neutral scalar helpers (ScalarExpr.h) by their plain names.
using codegen::broadcastStrides;
using codegen::computeType;
using codegen::contiguousStrides;
using codegen::cxxType;
using codegen::defineValue;
using codegen::highest;
using codegen::inputSlots;
using codegen::isFloatType;
using codegen::literal;
using codegen::lowest;
using codegen::splatLiteral;

/// Accumulator of block reductions: like computeType, but widened to a type
/// warp shuffles support (int/unsigned for narrow integers and bool).
std::string reduceType(mlir::Type type);
/// `c0 * s0 + c1 * s1 ...` over the coordinates `<prefix><k>`, skipping zero
/// strides; "0" when nothing remains.
std::string offsetExpr(llvm::StringRef prefix, llvm::ArrayRef<int64_t> strides);
/// Same over explicit coordinate expressions.
std::string offsetExpr(llvm::ArrayRef<std::string> coords,
                       llvm::ArrayRef<int64_t> strides);
/// Number of elements of a static shape.
int64_t numElements(llvm::ArrayRef<int64_t> dims);

/// Bytes of one element of `type` in memory (1 for i1).
int64_t elementBytes(mlir::Type type);
/// Elements of `type` in one 16-byte access: 16 / elementBytes(type), or 1
/// for an element that is wider or does not divide 16.
int64_t vectorElements(mlir::Type type);

/// How a vector of `vec` consecutive elements along the innermost dim of a
/// loop reads an operand whose element strides over the loop's dims are
/// `strides`, from a pointer `offset` elements past an aligned one. The
/// vector starts at an innermost coordinate that is a multiple of `vec`.
enum class VectorAccess {
  /// gc_ldv of the whole vector: innermost stride 1, every other stride and
  /// the offset multiples of `vec`, so the address is a multiple of it.
  Vector,
  /// One scalar for the whole vector: innermost stride 0 (or no dims).
  Broadcast,
  /// A scalar per element.
  Scalar,
};
VectorAccess vectorAccess(llvm::ArrayRef<int64_t> strides, int64_t offset,
                          int64_t vec);

/// The register form of a row template: each of a row's `threads` threads
/// holds `perThread` vectors of `vec` consecutive elements (the row's
/// vector v in slot v / threads of thread v % threads), so the row is read
/// from memory once. A warp per row (`rowsPerBlock` rows of a block) needs
/// no block barrier.
struct RowRegisters {
  int64_t vec = 1;
  /// Vectors per row.
  int64_t vectors = 1;
  int64_t threads = 32;
  int64_t perThread = 1;
  int64_t rowsPerBlock = 1;
  bool warpPerRow = true;
  /// Whether some thread's last slot lies past the row.
  bool masked() const { return vectors % threads != 0; }
  int64_t elements() const { return perThread * vec; }
};
/// Most elements a thread of the register form holds.
inline constexpr int64_t kMaxRowRegisters = 32;

/// Splits a tensor into rows (kept dims) and row elements (reduced dims).
struct ReductionView {
  llvm::SmallVector<int64_t> keptDims, keptStrides;
  llvm::SmallVector<int64_t> reducedDims, reducedStrides;
  int64_t rows = 1;
  int64_t length = 1;
  /// The reduced dims are the trailing ones: a row is one contiguous run.
  bool contiguous = true;
};
ReductionView makeReductionView(llvm::ArrayRef<int64_t> shape,
                                llvm::ArrayRef<bool> reduced);

/// Emits "cannot emit a cuda kernel for <op>: <reason>" at `op`.
mlir::LogicalResult failOp(mlir::Operation *op, const llvm::Twine &reason);

class KernelEmitter {
public:
  /// `blockSize`: threads per block of grid-stride and row loops, a
  /// multiple of 32 in [32, 1024] (the schedule's `block_size`). The kernel
  /// takes one parameter per ONNX input slot of `op`, `in<slot>`.
  KernelEmitter(mlir::Operation *op, llvm::StringRef name,
                int64_t blockSize = kDefaultBlockSize);
  /// The kernel of `kernel`, named after it, taking one parameter per kernel
  /// input, `arg<k>`, then per output. `op` is the op it computes (or the
  /// root of a fusion): diagnostics name it, and bindInputSlots() lets the
  /// op's emitter read its slots as `in<slot>`.
  KernelEmitter(exec::KernelOp kernel, mlir::Operation *op,
                int64_t blockSize = kDefaultBlockSize);

  mlir::Operation *getOp() const { return op; }
  /// Whether the kernel is a library call's fallback (cuDNN SDPA's): the
  /// runtime launches it with the call's inputs and outputs only.
  bool isLibraryFallback() const {
    return kernel && exec::KernelOp(kernel).getLibrary();
  }
  /// Threads per block the schedule asks for.
  int64_t getBlockSize() const { return blockSize; }
  /// The schedule's `elements_per_thread`: grid-stride loops launch this
  /// many times fewer blocks, each thread looping over as many elements
  /// (the loop's code is the same; only the launch changes).
  void setElementsPerThread(int64_t elements) { elementsPerThread = elements; }
  /// The schedule's `tile`: the output tile edge of the tiled matmul (its
  /// block is tile x tile threads).
  void setTileSize(int64_t tile) { tileSize = tile; }
  int64_t getTileSize() const { return tileSize; }
  /// The schedule's `rows_per_block`: 1, one row per block (its threads
  /// share the row), or more, one warp per row (the block size is then 32
  /// times it; see openRowLoop). Without it (0), a row template in register
  /// form picks its own layout (planRowRegisters) and the looped form takes
  /// a block per row.
  void setRowsPerBlock(int64_t rows) { rowsPerBlock = rows; }
  /// The oldest SM the kernel is compiled for (kAnySm: the emulator, which
  /// has every feature): templates use tensor cores where it has them.
  void setLowestSm(int sm) { lowestSm = sm; }
  /// Whether the launch is the heuristic's (the schedule's `source`): only
  /// then may a template shrink the block to fill the GPU; a tuned block
  /// size is kept as measured.
  void setHeuristicLaunch(bool heuristic) { heuristicLaunch = heuristic; }
  bool isHeuristicLaunch() const { return heuristicLaunch; }
  int getLowestSm() const { return lowestSm; }
  llvm::StringRef getMnemonic() const { return mnemonic; }

  /// Emits "cannot emit a cuda kernel for graph.<op>: <reason>" at the op.
  mlir::LogicalResult fail(const llvm::Twine &reason) const;

  // ONNX input slots and results.
  unsigned numInputSlots() const { return slots.size(); }
  /// The operand in `slot`, null when the optional input is absent.
  mlir::Value input(unsigned slot) const;
  bool hasInput(unsigned slot) const { return static_cast<bool>(input(slot)); }
  mlir::RankedTensorType inputType(unsigned slot) const;
  mlir::RankedTensorType resultType(unsigned index = 0) const;
  llvm::ArrayRef<int64_t> inputShape(unsigned slot) const {
    return inputType(slot).getShape();
  }
  llvm::ArrayRef<int64_t> resultShape(unsigned index = 0) const {
    return resultType(index).getShape();
  }
  /// Parameter names: "in<slot>", "out<index>".
  static std::string in(unsigned slot) { return "in" + std::to_string(slot); }
  static std::string out(unsigned index) {
    return "out" + std::to_string(index);
  }
  /// Parameter name of kernel input `k` (kernels of an exec.kernel).
  static std::string arg(unsigned k) { return "arg" + std::to_string(k); }
  /// Declares `in<slot>` for every input slot of the op as the kernel input
  /// holding it (null for an absent one). Fails when a slot holds a value
  /// that no kernel input passes.
  mlir::LogicalResult bindInputSlots();
  /// The element strides of input `slot`'s dims in the buffer bound to it:
  /// row-major, or, for a slot read through layout prologues
  /// (graph::isLayoutPrologueOf), the strides of the kernel input behind
  /// them (permuted by a transpose; a split's part keeps its input's
  /// strides and `in<slot>` points at the part). Templates that honour them
  /// (mat_mul, attention) index with them.
  llvm::SmallVector<int64_t> inputStrides(unsigned slot) const;
  /// The static element offset of `in<slot>` from the kernel input behind
  /// it (a split's part), 0 for a slot bound to a whole kernel input.
  int64_t inputOffset(unsigned slot) const {
    auto it = slotOffsets.find(slot);
    return it == slotOffsets.end() ? 0 : it->second;
  }
  /// Whether input `slot` is read as a row-major buffer of its own shape
  /// starting `vec`-aligned, so gc_ldv of `vec` elements at any offset that
  /// is a multiple of `vec` is legal.
  bool vectorReadable(unsigned slot, int64_t vec) const;
  /// Loads element `offset` of input `slot` widened to its compute type.
  std::string load(unsigned slot, llvm::StringRef offset) const {
    // With a prologue, input 0 is computed per element (emitPrologueLoader).
    if (slot == 0 && prologueReduction)
      return ("gc_prologue(" + offset + ")").str();
    return ("gc_ld(" + in(slot) + "[" + offset + "])").str();
  }
  /// A statement storing `value` (any arithmetic type) into result `index`.
  std::string store(unsigned index, llvm::StringRef offset,
                    llvm::StringRef value) const;
  /// Makes storeResult apply the epilogue of the kernel: its ops other than
  /// `anchor`, the op this emitter computes (see graph::isEpilogueAnchor).
  void setEpilogue(mlir::Operation *anchor) { epilogueAnchor = anchor; }
  /// Makes the conv template finish, in place, a convolution a library
  /// computed alone into the result: the kernel adds the conv's bias and
  /// applies the epilogue to what it finds there (see exec.kernel's `conv`).
  void setFinishesLibraryConv() { finishingLibraryConv = true; }
  bool finishesLibraryConv() const { return finishingLibraryConv; }
  /// Makes load(0, ...) compute input 0 of `reduction` (see
  /// graph::isPrologueReduction) from the kernel's other ops, and
  /// bindInputSlots leave slot 0 unbound.
  void setPrologue(mlir::Operation *reduction) {
    prologueReduction = reduction;
  }
  bool hasPrologue() const { return prologueReduction != nullptr; }
  /// Emits the prologue's loader (emitPrologueLoader: gc_prologue, or
  /// gc_prologue_vec for vectors of `vec` above 1) where the template
  /// starts; nothing without a prologue. Templates of prologue reductions
  /// call it first.
  mlir::LogicalResult definePrologue(int64_t vec = 1);
  /// Emits the store of `value`, element `offset` of the op's result 0: the
  /// value itself, or with an epilogue, the kernel's result computed from
  /// it. Fails when an epilogue op has no expression.
  mlir::LogicalResult storeResult(llvm::StringRef offset,
                                  llvm::StringRef value);
  /// `gc_index(value, n, ...)`: index `value` into a dimension of size `n`
  /// wrapped into [0, n), or -1 after reporting it to the runtime when it
  /// is outside [-n, n). The kernel then takes the error record parameters.
  std::string checkedIndex(const llvm::Twine &value, int64_t n);
  /// What a reported value is, as the runtime names it (record word 5).
  enum class Reported { Index = 0, SequenceLength = 1, Axis = 2 };
  /// A statement reporting `value`, outside [low, high), to the runtime.
  std::string report(llvm::StringRef value, int64_t low, int64_t high,
                     Reported what);
  /// Adds kernel parameter `declaration` ("float *__restrict__ name")
  /// after the outputs: arena scratch the step passes (exec.launch's
  /// `scratch`, in this order).
  void addScratchParameter(const llvm::Twine &declaration) {
    scratchParameters.push_back(declaration.str());
  }
  /// The constant integer contents of input `slot`, if it has some.
  std::optional<llvm::SmallVector<int64_t>> constantInts(unsigned slot) const;
  std::optional<llvm::SmallVector<double>> constantFloats(unsigned slot) const;

  /// The op as its ODS class, whose accessors give its attributes with
  /// their ONNX defaults (declared once, in the op's definition).
  template <typename OpT> OpT as() const { return llvm::cast<OpT>(op); }

  // Optional list attributes by ONNX name.
  std::optional<llvm::SmallVector<int64_t>>
  intsAttr(llvm::StringRef name) const;
  std::optional<llvm::SmallVector<double>>
  floatsAttr(llvm::StringRef name) const;

  // Body text, indented by nesting.
  void line(const llvm::Twine &text);
  /// Writes `text` (which ends in "{") and indents what follows.
  void open(const llvm::Twine &text);
  void close(llvm::StringRef text = "}");
  /// Declares `<prefix>0..` as the coordinates of linear index `linear`
  /// over `dims`.
  void coords(llvm::StringRef prefix, llvm::StringRef linear,
              llvm::ArrayRef<int64_t> dims);

  // Launch shapes.
  /// A grid-stride loop of `i` over [0, n) with blockSize threads; with
  /// `fillGpu` and a heuristic launch, fewer threads per block (down to 64)
  /// where that many would leave SMs of a large GPU idle (kFillBlocks).
  void openLinearLoop(int64_t n, llvm::StringRef var = "i",
                      bool fillGpu = false);
  /// A loop of `row` over [0, rows): one block per row, with threads suited
  /// to rows of `length` elements (a multiple of the warp size), or, with
  /// rows_per_block > 1 and `warpRows` (the template combines a row with
  /// rowReduce alone, no block-wide barrier), one warp per row. Inside it,
  /// a row's threads are rowThread() of rowThreads().
  void openRowLoop(int64_t rows, int64_t length, bool warpRows = true);
  /// The current thread's index among its row's threads, and their count.
  std::string rowThread() const;
  std::string rowThreads() const;
  /// The reduction of one value per row thread (every one receives the
  /// result): "gc_block_reduce" or "gc_warp_reduce", called (value, op).
  std::string rowReduce() const;
  /// The register layout of `rows` rows of `length` elements read `vec` at
  /// a time (vec divides length), honouring rows_per_block: a warp per row
  /// where it is above 1, or without it where a warp holds the row; else a
  /// block per row of up to blockSize threads. Nullopt when a thread would
  /// hold more than kMaxRowRegisters elements: the looped form then.
  std::optional<RowRegisters> planRowRegisters(int64_t rows, int64_t length,
                                               int64_t vec) const;
  /// The row loop of `plan`; rowThread() and friends then apply.
  void openRegisterRowLoop(int64_t rows, const RowRegisters &plan);
  /// Inside a register row loop: a loop over the thread's vector slots `p`,
  /// declaring `v`, the vector's index in the row, skipping slots past the
  /// row when the plan is masked. Close it with closeRowVectors.
  void openRowVectors(const RowRegisters &plan);
  void closeRowVectors(const RowRegisters &plan);
  /// Declares `<name>[plan.elements()]` of compute type `t` holding the
  /// thread's elements of input 0 of the row starting at `base` (through
  /// the prologue when there is one: definePrologue(plan.vec) first), and
  /// `fill` in slots past the row.
  void loadRowRegisters(const RowRegisters &plan, llvm::StringRef t,
                        llvm::StringRef base, llvm::StringRef name,
                        llvm::StringRef fill);
  /// A loop of `var` over [0, length) by the row's threads.
  void openRowElementLoop(int64_t length, llvm::StringRef var = "r");
  /// Threads of the current block, for strided loops inside a row.
  int64_t blockThreads() const { return block[0] * block[1] * block[2]; }
  void setLaunch(llvm::ArrayRef<int64_t> gridDims,
                 llvm::ArrayRef<int64_t> blockDims);

  /// Row base offset `base` and element offsets inside a row.
  void rowBase(const ReductionView &view, llvm::StringRef row,
               llvm::StringRef base);
  /// Declares `name` as the offset of element `r` of the row at `base`.
  void rowElement(const ReductionView &view, llvm::StringRef r,
                  llvm::StringRef base, llvm::StringRef name);
  /// Opens the loop over the elements of the row at `base` (closed by the
  /// caller), declaring the offset `at` and `x`, input 0's element there in
  /// compute type `type`.
  void openRowElements(const ReductionView &view, llvm::StringRef type,
                       llvm::StringRef base = "base");

  /// The finished kernel. Fails when an operand or result type has no CUDA
  /// counterpart.
  mlir::FailureOr<CudaKernel> finish();

  /// Validates that every present operand and every result is a ranked
  /// tensor with static dims and a supported element type.
  mlir::LogicalResult checkTypes() const;

private:
  /// The exec.kernel being emitted, null for a kernel of a bare op.
  exec::KernelOp kernel;
  mlir::Operation *op;
  std::string name;
  /// Declarations placed before the body (bindInputSlots).
  std::string prologue;
  int64_t blockSize;
  int64_t elementsPerThread = 1;
  int64_t tileSize = 16;
  int64_t rowsPerBlock = 0;
  /// Whether the open row loop gives each row one warp.
  bool warpPerRow = false;
  int lowestSm = 0;
  bool heuristicLaunch = true;
  std::string mnemonic;
  llvm::SmallVector<mlir::Value> slots;
  std::string body;
  llvm::raw_string_ostream os{body};
  int indent = 1;
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  int uniqueCounter = 0;
  /// The op whose result the kernel's epilogue consumes, null without one.
  mlir::Operation *epilogueAnchor = nullptr;
  /// Slots read through a layout prologue: their strides.
  llvm::DenseMap<unsigned, llvm::SmallVector<int64_t>> stridedSlots;
  /// Slots bound at a static element offset into their kernel input.
  llvm::DenseMap<unsigned, int64_t> slotOffsets;
  /// Whether definePrologue ran (finish() checks it did where needed).
  bool prologueDefined = false;
  /// The reduction whose input 0 the kernel's prologue computes, or null.
  mlir::Operation *prologueReduction = nullptr;
  bool finishingLibraryConv = false;
  /// Whether the kernel checks run-time values and so takes the error
  /// record and launch site parameters.
  bool reportsErrors = false;
  /// Parameters after the outputs (addScratchParameter).
  llvm::SmallVector<std::string> scratchParameters;
};

/// codegen::pointwiseExpr, failing with failOp's diagnostic at `op`.
mlir::FailureOr<std::string>
pointwiseExpr(mlir::Operation *op, llvm::ArrayRef<std::string> operands);

/// The kernel of one pointwise op: its pointwiseExpr per output element.
mlir::LogicalResult emitPointwise(KernelEmitter &e);
/// The pointwise fusion template: a grid-stride loop over the output that
/// reads every input at its broadcast offset and computes each fused op's
/// value in turn.
mlir::LogicalResult emitPointwiseFusion(KernelEmitter &e,
                                        exec::KernelOp kernel);

/// Emits, where a conv or matmul template stores `value` (the anchor's
/// result element at `offset`), the kernel's epilogue: every op of `kernel`
/// but `anchor`, pointwise ops of the anchor's result shape reading kernel
/// inputs at their broadcast offsets, then the store of the kernel's result.
mlir::LogicalResult emitEpilogueStore(KernelEmitter &e, exec::KernelOp kernel,
                                      mlir::Operation *anchor,
                                      llvm::StringRef offset,
                                      llvm::StringRef value);

/// Emits, before a row template of `reduction` (see
/// graph::isPrologueReduction), `gc_prologue(offset)`: element `offset` of the
/// reduction's input 0 computed by every other op of `kernel`, pointwise ops
/// of that input's shape reading kernel inputs at their broadcast offsets.
/// With `vec` above 1, `gc_prologue_vec(offset)` instead: the gc_vec of the
/// `vec` elements from `offset` (a multiple of `vec`, as is its innermost
/// coordinate), each computed as gc_prologue would, the prologue's inputs
/// read as vectors where vectorAccess allows.
mlir::LogicalResult emitPrologueLoader(KernelEmitter &e, exec::KernelOp kernel,
                                       mlir::Operation *reduction,
                                       int64_t vec = 1);

/// One operand a vector of output elements reads from memory: `pointer`
/// (an expression of element type `type`) at element `strides` over the
/// loop's dims, `offset` elements past an aligned address.
struct VectorRead {
  std::string name;
  std::string pointer;
  mlir::Type type;
  llvm::SmallVector<int64_t> strides;
  int64_t offset = 0;
};
/// Emits the reads of `reads` by the vector of `vec` elements of a loop over
/// `shape` starting at linear index `index` (coordinates `<coords><d>`,
/// declared here when needed): gc_ldv or broadcast scalars now, and returns
/// the declarations of each read's element `j` (compute type, named
/// `read.name`) to emit at the top of the loop over the vector's elements.
llvm::SmallVector<std::string>
emitVectorReads(KernelEmitter &e, llvm::ArrayRef<int64_t> shape,
                llvm::StringRef index, llvm::StringRef coords, int64_t vec,
                llvm::ArrayRef<VectorRead> reads);

/// Whether `name` is the name of one of `Ops`.
template <typename... Ops> bool isOneOf(mlir::OperationName name) {
  return (... || (name.getTypeID() == mlir::TypeID::get<Ops>()));
}

/// One emitter per op category, each with the predicate saying which
/// ops it handles. An emitter fails with a diagnostic when the op
/// cannot be emitted.
mlir::LogicalResult emitDataMovement(KernelEmitter &e);
bool isDataMovement(mlir::OperationName name);
mlir::LogicalResult emitResize(KernelEmitter &e);
/// GridSample and AffineGrid (EmitGridSample.cpp).
mlir::LogicalResult emitGridSample(KernelEmitter &e);
mlir::LogicalResult emitAffineGrid(KernelEmitter &e);
/// RoiAlign (EmitRoiAlign.cpp).
mlir::LogicalResult emitRoiAlign(KernelEmitter &e);
mlir::LogicalResult emitDft(KernelEmitter &e);
/// Ops whose extents the run decides (EmitDataDependent.cpp).
mlir::LogicalResult emitNonZero(KernelEmitter &e);
mlir::LogicalResult emitCompress(KernelEmitter &e);
mlir::LogicalResult emitNonMaxSuppression(KernelEmitter &e);
mlir::LogicalResult emitUnique(KernelEmitter &e);

mlir::LogicalResult emitReduction(KernelEmitter &e);
bool isReduction(mlir::OperationName name);

mlir::LogicalResult emitNormalization(KernelEmitter &e);
bool isNormalization(mlir::OperationName name);

mlir::LogicalResult emitConvPool(KernelEmitter &e);
bool isConvPool(mlir::OperationName name);

mlir::LogicalResult emitLinearAlgebra(KernelEmitter &e);
bool isLinearAlgebra(mlir::OperationName name);

/// graph.attention: the flash-style template (EmitAttention.cpp).
mlir::LogicalResult emitAttention(KernelEmitter &e);

} // namespace graphc::codegen::cuda

#endif // GRAPHC_LIB_CODEGEN_CUDA_EMITSUPPORT_H
