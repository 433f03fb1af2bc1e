//===- LibraryGemm.cpp - GEMMs a vendor library computes ------------------===//

#include "passes/LibraryGemm.h"

#include "dialects/Graph/GraphOps.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace graphc {
namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// Whether `value` is a static tensor of the library GEMM's element type.
bool isStaticOf(Value value, Type element) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getElementType() == element;
}

/// The element type a library GEMM computing `anchor` stores: its result's,
/// when the libraries take it (f32, f16, bf16; products accumulate in f32).
Type libraryElementType(Operation *anchor) {
  Type element =
      cast<RankedTensorType>(anchor->getResult(0).getType()).getElementType();
  return element.isF32() || element.isF16() || element.isBF16() ? element
                                                                 : Type();
}

/// The operand element type of a library GEMM computing a
/// graph.quantized_mat_mul: int8 (int32 accumulator) or, with `float8`,
/// e4m3fn (f32 accumulator), both operands alike; null otherwise (uint8
/// has no library GEMM).
Type quantizedElementType(graph::QuantizedMatMulOp op, bool float8) {
  Type a = cast<RankedTensorType>(op.getA().getType()).getElementType();
  Type b = cast<RankedTensorType>(op.getB().getType()).getElementType();
  if (a != b)
    return Type();
  if (a.isSignlessInteger(8) || (float8 && isa<Float8E4M3FNType>(a)))
    return a;
  return Type();
}

/// Whether `perm` swaps the last two dims and keeps the others in place.
bool swapsLastTwo(ArrayRef<int64_t> perm) {
  size_t rank = perm.size();
  if (rank < 2)
    return false;
  for (size_t i = 0; i + 2 < rank; ++i)
    if (perm[i] != static_cast<int64_t>(i))
      return false;
  return perm[rank - 2] == static_cast<int64_t>(rank - 1) &&
         perm[rank - 1] == static_cast<int64_t>(rank - 2);
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t total = 1;
  for (int64_t dim : dims)
    total *= dim;
  return total;
}

/// The batch stride of an operand whose batch dims are `dims` in a product
/// with batch dims `batchDims`: one matrix per batch index, or the same
/// matrix for every one; nullopt when it broadcasts along some batch dims
/// only, which one stride cannot express.
std::optional<int64_t> batchStride(ArrayRef<int64_t> dims,
                                   ArrayRef<int64_t> batchDims,
                                   int64_t matrixElements) {
  if (product(dims) == 1)
    return 0;
  SmallVector<int64_t> padded(batchDims.size() - dims.size(), 1);
  llvm::append_range(padded, dims);
  if (ArrayRef<int64_t>(padded) != batchDims)
    return std::nullopt;
  return matrixElements;
}

/// Whether `value` broadcasts as one bias element per column of a result
/// of shape `result`: [N], or [1, ..., 1, N].
bool isColumnBias(Value value, ArrayRef<int64_t> result) {
  ArrayRef<int64_t> shape = shapeOf(value);
  if (shape.empty() || shape.size() > result.size() ||
      shape.back() != result.back())
    return false;
  return llvm::all_of(shape.drop_back(), [](int64_t dim) { return dim == 1; });
}

/// Fills the operands and sizes of a product A x B (a mat_mul, or a
/// quantized_mat_mul whose B is stored transposed when `bStoredTransposed`);
/// `transposeOf(v)` is the layout prologue computing `v`, if any.
LogicalResult
describeMatMul(Value aIn, Value bIn, bool bStoredTransposed, LibraryGemm &gemm,
               function_ref<graph::TransposeOp(Value)> transposeOf) {
  auto operand = [&](Value value, Value &stored, bool &trans,
                     bool storedTransposed) {
    stored = value;
    trans = storedTransposed;
    graph::TransposeOp transpose = transposeOf(value);
    if (!transpose)
      return success();
    if (!swapsLastTwo(graph::transposePermutation(transpose)))
      return failure();
    stored = transpose.getData();
    trans = !storedTransposed;
    return success();
  };
  if (failed(operand(aIn, gemm.a, gemm.transA, false)) ||
      failed(operand(bIn, gemm.b, gemm.transB, bStoredTransposed)))
    return failure();
  ArrayRef<int64_t> a = shapeOf(gemm.a), b = shapeOf(gemm.b);
  // A 1-D A is one row, a 1-D B one column; neither has batch dims.
  ArrayRef<int64_t> aBatch = a.size() > 2 ? a.drop_back(2) : ArrayRef<int64_t>();
  ArrayRef<int64_t> bBatch = b.size() > 2 ? b.drop_back(2) : ArrayRef<int64_t>();
  if (a.size() == 1) {
    gemm.m = 1;
    gemm.k = a[0];
  } else {
    gemm.m = a[a.size() - (gemm.transA ? 1 : 2)];
    gemm.k = a[a.size() - (gemm.transA ? 2 : 1)];
  }
  int64_t kB;
  if (b.size() == 1) {
    kB = b[0];
    gemm.n = 1;
  } else {
    kB = b[b.size() - (gemm.transB ? 1 : 2)];
    gemm.n = b[b.size() - (gemm.transB ? 2 : 1)];
  }
  if (kB != gemm.k)
    return failure();
  gemm.lda = a.size() == 1 ? gemm.k : a.back();
  gemm.ldb = b.size() == 1 ? 1 : b.back();
  FailureOr<SmallVector<int64_t>> batchDims =
      graph::broadcastShapes(aBatch, bBatch);
  if (failed(batchDims))
    return failure();
  gemm.batch = product(*batchDims);
  std::optional<int64_t> strideA =
      batchStride(aBatch, *batchDims, gemm.m * gemm.k);
  std::optional<int64_t> strideB =
      batchStride(bBatch, *batchDims, gemm.k * gemm.n);
  if (!strideA || !strideB)
    return failure();
  gemm.strideA = *strideA;
  gemm.strideB = *strideB;
  // One B for every batch index of a dense, untransposed A (a Linear layer
  // on [batch, seq, features]): the batch is rows of one larger GEMM, which
  // the library tiles far better than many small ones.
  if (gemm.batch > 1 && gemm.strideB == 0 && !gemm.transA &&
      gemm.strideA == gemm.m * gemm.k && gemm.lda == gemm.k) {
    gemm.m *= gemm.batch;
    gemm.batch = 1;
    gemm.strideA = 0;
  }
  return success();
}

/// Fills the operands and sizes of a gemm anchor, its C as a bias or as C.
LogicalResult describeGemm(graph::GemmOp op, LibraryGemm &gemm) {
  gemm.a = op.getA();
  gemm.b = op.getB();
  gemm.transA = op.getTransA() != 0;
  gemm.transB = op.getTransB() != 0;
  ArrayRef<int64_t> a = shapeOf(gemm.a), b = shapeOf(gemm.b);
  if (a.size() != 2 || b.size() != 2)
    return failure();
  gemm.m = gemm.transA ? a[1] : a[0];
  gemm.k = gemm.transA ? a[0] : a[1];
  gemm.n = gemm.transB ? b[0] : b[1];
  if ((gemm.transB ? b[1] : b[0]) != gemm.k)
    return failure();
  gemm.lda = a[1];
  gemm.ldb = b[1];
  gemm.alpha = op.getAlphaAttr().getValueAsDouble();
  double beta = op.getBetaAttr().getValueAsDouble();
  Value c = op.getC();
  if (!c || beta == 0.0)
    return success();
  if (!isStaticOf(c, libraryElementType(op)))
    return failure();
  ArrayRef<int64_t> result = shapeOf(op.getResult());
  // The library adds a bias unscaled, and C scaled by beta.
  if (isColumnBias(c, result) && beta == 1.0) {
    gemm.bias = c;
    return success();
  }
  if (shapeOf(c) != result)
    return failure();
  gemm.c = c;
  gemm.beta = beta;
  gemm.ldc = gemm.n;
  return success();
}

/// The library GEMM of a graph.quantized_mat_mul: its operands as they are
/// (no prologue or epilogue joins: the accumulator leaves as it is) in the
/// form the int8 and fp8 tensor-core GEMMs take, A [M, K] and B stored
/// [N, K] (cuBLASLt's "TN"), with K and N multiples of 4 bytes (int8) or
/// 16 (e4m3); nullopt otherwise, for the generated kernel.
std::optional<LibraryGemm> matchQuantizedGemm(graph::QuantizedMatMulOp op,
                                              bool float8) {
  Type element = quantizedElementType(op, float8);
  auto isStatic = [](Value value) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    return type && type.hasStaticShape();
  };
  if (!element || !isStatic(op.getA()) || !isStatic(op.getB()) ||
      !isStatic(op.getY()))
    return std::nullopt;
  LibraryGemm gemm;
  auto noPrologue = [](Value) -> graph::TransposeOp { return nullptr; };
  if (failed(describeMatMul(op.getA(), op.getB(), op.getTransB() != 0, gemm,
                            noPrologue)))
    return std::nullopt;
  int64_t multiple = isa<Float8E4M3FNType>(element) ? 16 : 4;
  if (gemm.transA || !gemm.transB || gemm.k % multiple || gemm.n % multiple ||
      gemm.lda % multiple || gemm.ldb % multiple)
    return std::nullopt;
  gemm.ops.push_back(op);
  gemm.root = op;
  gemm.ldc = gemm.n;
  return gemm;
}

} // namespace

std::optional<LibraryGemm> matchLibraryGemm(ArrayRef<Operation *> ops,
                                            bool float8) {
  auto [prologueCount, anchor] = graph::splitLayoutPrologue(ops);
  if (auto quantized = dyn_cast_or_null<graph::QuantizedMatMulOp>(anchor))
    return prologueCount == 0 ? matchQuantizedGemm(quantized, float8)
                              : std::nullopt;
  if (!anchor || !isa<graph::MatMulOp, graph::GemmOp>(anchor))
    return std::nullopt;
  llvm::SmallPtrSet<Operation *, 16> inFusion(ops.begin(), ops.end());
  Type element = libraryElementType(anchor);
  auto isStatic = [&](Value value) { return isStaticOf(value, element); };
  if (!element || !llvm::all_of(anchor->getOperands(), isStatic) ||
      !isStatic(anchor->getResult(0)))
    return std::nullopt;

  LibraryGemm gemm;
  auto transposeOf = [&](Value value) -> graph::TransposeOp {
    auto transpose = value.getDefiningOp<graph::TransposeOp>();
    return transpose && inFusion.contains(transpose) ? transpose : nullptr;
  };
  if (auto matmul = dyn_cast<graph::MatMulOp>(anchor)) {
    if (failed(describeMatMul(matmul.getA(), matmul.getB(), false, gemm,
                              transposeOf)))
      return std::nullopt;
  } else if (failed(describeGemm(cast<graph::GemmOp>(anchor), gemm))) {
    return std::nullopt;
  }
  // Whatever the anchor reads must come from outside the fusion: a value a
  // fusion member computes would have to be computed before the call.
  for (Value operand : {gemm.a, gemm.b, gemm.c, gemm.bias})
    if (operand && operand.getDefiningOp() &&
        inFusion.contains(operand.getDefiningOp()))
      return std::nullopt;
  for (Value operand : anchor->getOperands())
    if (Operation *def = operand.getDefiningOp();
        def && inFusion.contains(def) && !transposeOf(operand))
      return std::nullopt;
  for (Operation *op : ops.take_front(prologueCount))
    gemm.ops.push_back(op);
  gemm.ops.push_back(anchor);
  gemm.root = anchor;

  // D is dense, and so is a C that an epilogue add supplies.
  if (!gemm.c)
    gemm.ldc = gemm.n;

  // The epilogue: adds of a column bias or of a same-shaped residual, then
  // at most one activation, each the only user of the value before it.
  ArrayRef<int64_t> result = shapeOf(anchor->getResult(0));
  int64_t matrixElements = gemm.m * gemm.n;
  while (gemm.epilogue == exec::GemmEpilogue::none) {
    Value current = gemm.root->getResult(0);
    if (!current.hasOneUse())
      break;
    Operation *user = *current.getUsers().begin();
    if (!inFusion.contains(user) || !isStatic(user->getResult(0)) ||
        shapeOf(user->getResult(0)) != result)
      break;
    if (auto add = dyn_cast<graph::AddOp>(user)) {
      Value other = add.getLhs() == current ? add.getRhs() : add.getLhs();
      if (other == current || !isStatic(other) ||
          (other.getDefiningOp() && inFusion.contains(other.getDefiningOp())))
        break;
      if (!gemm.bias && isColumnBias(other, result)) {
        gemm.bias = other;
      } else if (!gemm.c && shapeOf(other) == result) {
        gemm.c = other;
        gemm.beta = 1.0;
        gemm.strideC = gemm.batch > 1 ? matrixElements : 0;
      } else {
        break;
      }
    } else if (isa<graph::ReluOp>(user)) {
      gemm.epilogue = exec::GemmEpilogue::relu;
    } else if (auto gelu = dyn_cast<graph::GeluOp>(user);
               gelu && gelu.getApproximate() == "tanh") {
      gemm.epilogue = exec::GemmEpilogue::gelu_tanh;
    } else {
      break;
    }
    gemm.ops.push_back(user);
    gemm.root = user;
  }
  return gemm;
}

} // namespace graphc
