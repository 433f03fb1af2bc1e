//===- EmitLinearAlgebra.cpp - mat_mul, gemm, einsum, det -----------------===//
//
// MatMul, Gemm and QuantizedMatMul share one shared-memory tiled kernel: T x
// T output tiles (the schedule's `tile`, 16 unless tuned), K walked in
// T-wide slabs staged through shared memory, accumulation in the compute
// type (float for f16/bf16 and e4m3fn; 8-bit integers in wrapping unsigned
// int), batches on grid.z with numpy broadcasting of the batch dims.
// Einsum is a generic index loop. Det: one thread per matrix factorises a
// float64 copy of it (LU with partial pivoting, as the host kernel does), for
// matrices up to kMaxDetSize square.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/CUDA/EmitSupport.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace graphc::codegen::cuda {
namespace {

/// A batched product out[b, m, n] = sum_k A[b, m, k] * B[b, k, n] with
/// arbitrary element strides, plus an optional Gemm epilogue.
struct MatmulPlan {
  SmallVector<int64_t> batchDims, aBatchStrides, bBatchStrides;
  int64_t m = 1, n = 1, k = 1;
  int64_t aRowStride = 0, aKStride = 1, bKStride = 0, bColStride = 1;
  /// Gemm: alpha * AB + beta * C[cRowStride * m + cColStride * n].
  bool gemm = false;
  double alpha = 1, beta = 1;
  int64_t cRowStride = 0, cColStride = 0;
  /// QuantizedMatMul of 8-bit integers: the tiles hold int, products add
  /// into an unsigned int (wrapping modulo 2^32, exactly the int32 result
  /// the host kernel's int64 sum wraps to) stored as int.
  bool wrappingInt = false;
};

LogicalResult emitTiledMatmul(KernelEmitter &e, const MatmulPlan &plan) {
  // The tiles' type: the compute type, float for e4m3fn (decoded by gc_ld).
  std::string t = plan.wrappingInt
                      ? std::string("int")
                      : computeType(e.inputType(0).getElementType());
  std::string accType = plan.wrappingInt ? "unsigned int" : t;
  int64_t batch = numElements(plan.batchDims);
  int64_t kTile = e.getTileSize();
  int64_t rowTiles = (plan.m + kTile - 1) / kTile;
  int64_t colTiles = (plan.n + kTile - 1) / kTile;
  // Tiles and batches are visited by block-uniform grid-stride loops, so the
  // grid may be clamped (and is never empty) and __syncthreads stays legal.
  e.setLaunch({std::clamp<int64_t>(colTiles, 1, kMaxGrid),
               std::clamp<int64_t>(rowTiles, 1, kMaxGrid),
               std::clamp<int64_t>(batch, 1, kMaxGrid)},
              {kTile, kTile});
  std::string tile = std::to_string(kTile);
  e.line("__shared__ " + t + " aTile[" + tile + "][" + tile + " + 1];");
  e.line("__shared__ " + t + " bTile[" + tile + "][" + tile + " + 1];");
  e.open("for (long long rowTile = blockIdx.y; rowTile < " + Twine(rowTiles) +
         "LL; rowTile += gridDim.y) {");
  e.open("for (long long colTile = blockIdx.x; colTile < " + Twine(colTiles) +
         "LL; colTile += gridDim.x) {");
  e.line("const long long row = rowTile * " + tile + " + threadIdx.y;");
  e.line("const long long col = colTile * " + tile + " + threadIdx.x;");
  e.open("for (long long batch = blockIdx.z; batch < " + Twine(batch) +
         "LL; batch += gridDim.z) {");
  e.coords("b", "batch", plan.batchDims);
  e.line("const long long aBase = " + offsetExpr("b", plan.aBatchStrides) +
         ";");
  e.line("const long long bBase = " + offsetExpr("b", plan.bBatchStrides) +
         ";");
  e.line(accType + " acc = " + (plan.wrappingInt ? "0u" : literal(0, t)) + ";");
  e.open("for (long long k0 = 0; k0 < " + Twine(plan.k) + "LL; k0 += " + tile +
         ") {");
  e.line("const long long ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;");
  // Stages operand `input`'s element at `offset` into `tileName` where
  // `inside` holds, 0 elsewhere.
  auto stageTile = [&](StringRef tileName, const Twine &inside, int input,
                       const Twine &offset) {
    e.line(tileName + "[threadIdx.y][threadIdx.x] = (" + inside +
           ") ? static_cast<" + t + ">(" + e.load(input, offset.str()) +
           ") : " + literal(0, t) + ";");
  };
  stageTile("aTile", "row < " + Twine(plan.m) + " && ka < " + Twine(plan.k), 0,
            "aBase + row * " + Twine(plan.aRowStride) + " + ka * " +
                Twine(plan.aKStride));
  stageTile("bTile", "kb < " + Twine(plan.k) + " && col < " + Twine(plan.n), 1,
            "bBase + kb * " + Twine(plan.bKStride) + " + col * " +
                Twine(plan.bColStride));
  e.line("__syncthreads();");
  // K ascending, one product at a time: the host kernels' order.
  e.open("for (int kk = 0; kk < " + tile + "; ++kk) {");
  if (plan.wrappingInt)
    e.line("acc += static_cast<unsigned int>(aTile[threadIdx.y][kk] * "
           "bTile[kk][threadIdx.x]);");
  else
    e.line("acc += aTile[threadIdx.y][kk] * bTile[kk][threadIdx.x];");
  e.close();
  e.line("__syncthreads();");
  e.close();
  e.open("if (row < " + Twine(plan.m) + " && col < " + Twine(plan.n) + ") {");
  std::string value = plan.wrappingInt ? "static_cast<int>(acc)" : "acc";
  if (plan.gemm) {
    value = literal(plan.alpha, t) + " * acc";
    if (e.hasInput(2) && plan.beta != 0)
      value += " + " + literal(plan.beta, t) + " * static_cast<" + t + ">(" +
               e.load(2, ("row * " + Twine(plan.cRowStride) + " + col * " +
                          Twine(plan.cColStride))
                             .str()) +
               ")";
  }
  if (failed(e.storeResult(("batch * " + Twine(plan.m * plan.n) +
                             " + row * " + Twine(plan.n) + " + col")
                                .str(),
                            value)))
    return failure();
  e.close();
  e.close();
  e.close();
  e.close();
  return success();
}

LogicalResult emitMatMul(KernelEmitter &e) {
  ArrayRef<int64_t> a = e.inputShape(0), b = e.inputShape(1);
  ArrayRef<int64_t> out = e.resultShape();
  if (a.empty() || b.empty())
    return e.fail("operands must have rank at least 1");
  MatmulPlan plan;
  bool aVector = a.size() == 1, bVector = b.size() == 1;
  plan.k = a.back();
  int64_t bK = bVector ? b[0] : b[b.size() - 2];
  if (plan.k != bK)
    return e.fail("contraction dims differ: " + Twine(plan.k) + " vs " +
                  Twine(bK));
  plan.m = aVector ? 1 : a[a.size() - 2];
  plan.n = bVector ? 1 : b.back();
  // Operands are read through their strides: row-major, or permuted for an
  // operand computed by a layout prologue (a transpose read in place).
  SmallVector<int64_t> aStrides = e.inputStrides(0), bStrides = e.inputStrides(1);
  plan.aRowStride = aVector ? 0 : aStrides[a.size() - 2];
  plan.aKStride = aStrides.back();
  plan.bKStride = bVector ? bStrides[0] : bStrides[b.size() - 2];
  plan.bColStride = bVector ? 0 : bStrides.back();
  int64_t batchRank =
      static_cast<int64_t>(out.size()) - (aVector ? 0 : 1) - (bVector ? 0 : 1);
  if (batchRank < 0)
    return e.fail("result rank does not fit the operands");
  plan.batchDims.assign(out.begin(), out.begin() + batchRank);
  // Batch dims align to the right; a dim of 1 broadcasts (stride 0).
  auto batchStrides = [&](ArrayRef<int64_t> shape, ArrayRef<int64_t> strides,
                          bool vector, SmallVector<int64_t> &out) {
    int64_t rank = vector ? 0 : static_cast<int64_t>(shape.size()) - 2;
    for (int64_t j = 0; j < batchRank; ++j) {
      int64_t d = j - (batchRank - rank);
      out.push_back(d < 0 || shape[d] == 1 ? 0 : strides[d]);
    }
  };
  batchStrides(a, aStrides, aVector, plan.aBatchStrides);
  batchStrides(b, bStrides, bVector, plan.bBatchStrides);
  return emitTiledMatmul(e, plan);
}

LogicalResult emitGemm(KernelEmitter &e) {
  ArrayRef<int64_t> a = e.inputShape(0), b = e.inputShape(1);
  if (a.size() != 2 || b.size() != 2)
    return e.fail("A and B must be 2-d");
  auto gemm = e.as<graph::GemmOp>();
  bool transA = gemm.getTransA() != 0;
  bool transB = gemm.getTransB() != 0;
  MatmulPlan plan;
  plan.gemm = true;
  plan.m = transA ? a[1] : a[0];
  plan.k = transA ? a[0] : a[1];
  plan.n = transB ? b[0] : b[1];
  if ((transB ? b[1] : b[0]) != plan.k)
    return e.fail("contraction dims of A and B differ");
  plan.aRowStride = transA ? 1 : a[1];
  plan.aKStride = transA ? a[1] : 1;
  plan.bKStride = transB ? 1 : b[1];
  plan.bColStride = transB ? b[1] : 1;
  plan.alpha = gemm.getAlpha().convertToDouble();
  plan.beta = gemm.getBeta().convertToDouble();
  if (e.hasInput(2)) {
    SmallVector<int64_t> c =
        broadcastStrides(e.inputShape(2), {plan.m, plan.n});
    plan.cRowStride = c[0];
    plan.cColStride = c[1];
  }
  return emitTiledMatmul(e, plan);
}

/// QuantizedMatMul: the tiled product of 8-bit operands, widened into the
/// tiles (int, or float decoded from e4m3fn) and summed over K ascending as
/// the host kernel does: exactly, wrapping to int32, for integers; in f32
/// for e4m3fn, whose products are exact, so the sums round as the host's.
LogicalResult emitQuantizedMatMul(KernelEmitter &e) {
  auto op = e.as<graph::QuantizedMatMulOp>();
  ArrayRef<int64_t> a = e.inputShape(0), b = e.inputShape(1);
  ArrayRef<int64_t> out = e.resultShape();
  bool transB = op.getTransB() != 0;
  int64_t aRank = a.size(), bRank = b.size();
  if (aRank < 2 || (bRank != 2 && bRank != aRank) ||
      static_cast<int64_t>(out.size()) != aRank)
    return e.fail("A must have rank >= 2, B rank 2 or A's, and the result "
                  "A's rank");
  MatmulPlan plan;
  plan.wrappingInt = !e.inputType(0).getElementType().isFloat8E4M3FN();
  plan.m = a[aRank - 2];
  plan.k = a[aRank - 1];
  plan.n = b[bRank - (transB ? 2 : 1)];
  if (b[bRank - (transB ? 1 : 2)] != plan.k)
    return e.fail("contraction dims of A and B differ");
  SmallVector<int64_t> aStrides = e.inputStrides(0), bStrides = e.inputStrides(1);
  plan.aRowStride = aStrides[aRank - 2];
  plan.aKStride = aStrides[aRank - 1];
  plan.bKStride = bStrides[bRank - (transB ? 1 : 2)];
  plan.bColStride = bStrides[bRank - (transB ? 2 : 1)];
  int64_t batchRank = aRank - 2;
  plan.batchDims.assign(out.begin(), out.begin() + batchRank);
  // A dim of 1 broadcasts (stride 0); a B of rank 2 is every batch's.
  for (int64_t d = 0; d < batchRank; ++d) {
    plan.aBatchStrides.push_back(a[d] == 1 ? 0 : aStrides[d]);
    plan.bBatchStrides.push_back(bRank == 2 || b[d] == 1 ? 0 : bStrides[d]);
  }
  return emitTiledMatmul(e, plan);
}

/// Einsum labels: letters keep their character, ellipsis dims are numbered
/// from 256 upwards (right-aligned across operands).
using Labels = SmallVector<int>;

FailureOr<Labels> parseTerm(KernelEmitter &e, StringRef term, int64_t rank,
                            int64_t ellipsisRank) {
  Labels labels;
  size_t dots = term.find("...");
  StringRef before = term.substr(0, dots);
  StringRef after = dots == StringRef::npos ? "" : term.substr(dots + 3);
  for (char c : before) {
    if (!llvm::isAlpha(c))
      return e.fail("bad character '" + Twine(c) + "' in equation");
    labels.push_back(c);
  }
  if (dots != StringRef::npos) {
    int64_t own =
        rank < 0 ? ellipsisRank
                 : rank - static_cast<int64_t>(before.size() + after.size());
    if (own < 0 || own > ellipsisRank)
      return e.fail("ellipsis does not fit operand rank");
    for (int64_t j = ellipsisRank - own; j < ellipsisRank; ++j)
      labels.push_back(256 + j);
  }
  for (char c : after) {
    if (!llvm::isAlpha(c))
      return e.fail("bad character '" + Twine(c) + "' in equation");
    labels.push_back(c);
  }
  if (rank >= 0 && static_cast<int64_t>(labels.size()) != rank)
    return e.fail("term '" + term + "' does not match operand rank " +
                  Twine(rank));
  return labels;
}

std::string labelName(int label) {
  return label >= 256 ? "e" + std::to_string(label - 256)
                      : std::string("i_") + static_cast<char>(label);
}

LogicalResult emitEinsum(KernelEmitter &e) {
  std::string equation;
  for (char c : e.as<graph::EinsumOp>().getEquation())
    if (c != ' ')
      equation += c;
  StringRef eq = equation;
  auto [lhs, rhs] = eq.split("->");
  bool explicitOutput = eq.contains("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != e.numInputSlots())
    return e.fail("equation has " + Twine(terms.size()) + " terms for " +
                  Twine(e.numInputSlots()) + " inputs");
  int64_t ellipsisRank = 0;
  for (auto [slot, term] : llvm::enumerate(terms))
    if (term.contains("..."))
      ellipsisRank = std::max<int64_t>(
          ellipsisRank, static_cast<int64_t>(e.inputShape(slot).size()) -
                            static_cast<int64_t>(term.size() - 3));
  SmallVector<Labels> inputs;
  llvm::DenseMap<int, int64_t> sizes;
  llvm::DenseMap<int, int> counts;
  for (auto [slot, term] : llvm::enumerate(terms)) {
    ArrayRef<int64_t> shape = e.inputShape(slot);
    FailureOr<Labels> labels = parseTerm(e, term, shape.size(), ellipsisRank);
    if (failed(labels))
      return failure();
    for (auto [label, dim] : llvm::zip(*labels, shape)) {
      int64_t &size = sizes[label];
      if (size > 1 && dim > 1 && size != dim)
        return e.fail("label '" + labelName(label) + "' has sizes " +
                      Twine(size) + " and " + Twine(dim));
      size = std::max(size, dim);
      ++counts[label];
    }
    inputs.push_back(*labels);
  }
  Labels output;
  if (explicitOutput) {
    FailureOr<Labels> labels = parseTerm(e, rhs, -1, ellipsisRank);
    if (failed(labels))
      return failure();
    output = *labels;
  } else {
    for (int64_t j = 0; j < ellipsisRank; ++j)
      output.push_back(256 + j);
    SmallVector<int> once;
    for (auto [label, count] : counts)
      if (label < 256 && count == 1)
        once.push_back(label);
    llvm::sort(once);
    output.append(once.begin(), once.end());
  }
  ArrayRef<int64_t> outShape = e.resultShape();
  if (output.size() != outShape.size())
    return e.fail("output term does not match the result rank");
  for (auto [label, dim] : llvm::zip(output, outShape))
    if (!sizes.count(label) || sizes[label] != dim)
      return e.fail("output label '" + labelName(label) +
                    "' does not match the result shape");
  Labels summed;
  for (const Labels &labels : inputs)
    for (int label : labels)
      if (!llvm::is_contained(output, label) &&
          !llvm::is_contained(summed, label))
        summed.push_back(label);
  SmallVector<int64_t> summedDims;
  for (int label : summed)
    summedDims.push_back(sizes[label]);

  std::string t = computeType(e.inputType(0).getElementType());
  e.openLinearLoop(numElements(outShape));
  e.coords("o", "i", outShape);
  for (auto [j, label] : llvm::enumerate(output))
    e.line("const long long " + labelName(label) + " = o" + Twine(j) + ";");
  e.line(t + " acc = " + literal(0, t) + ";");
  e.open("for (long long s = 0; s < " + Twine(numElements(summedDims)) +
         "LL; ++s) {");
  e.coords("s", "s", summedDims);
  for (auto [j, label] : llvm::enumerate(summed))
    e.line("const long long " + labelName(label) + " = s" + Twine(j) + ";");
  std::string product;
  for (auto [slot, labels] : llvm::enumerate(inputs)) {
    ArrayRef<int64_t> shape = e.inputShape(slot);
    SmallVector<int64_t> strides = contiguousStrides(shape);
    SmallVector<std::string> coords;
    for (auto [k, label] : llvm::enumerate(labels)) {
      coords.push_back(labelName(label));
      if (shape[k] == 1)
        strides[k] = 0;
    }
    product +=
        (slot ? " * " : "") + ("static_cast<" + t + ">(" +
                               e.load(slot, offsetExpr(coords, strides)) + ")");
  }
  e.line("acc += " + product + ";");
  e.close();
  e.line(e.store(0, "i", "acc"));
  e.close();
  return success();
}

/// The largest matrix det factorises on the device: its float64 copy lives in
/// the thread's local memory (8 KiB at 32 x 32).
constexpr int64_t kMaxDetSize = 32;

LogicalResult emitDet(KernelEmitter &e) {
  ArrayRef<int64_t> xShape = e.inputShape(0);
  if (xShape.size() < 2 || xShape.back() != xShape[xShape.size() - 2])
    return e.fail("input must be [*, M, M]");
  int64_t m = xShape.back();
  if (m > kMaxDetSize)
    return e.fail("matrices of " + Twine(m) + "x" + Twine(m) +
                  " are larger than the " + Twine(kMaxDetSize) + "x" +
                  Twine(kMaxDetSize) + " the cuda target factorises");
  std::string M = std::to_string(m), MM = std::to_string(m * m);
  e.openLinearLoop(numElements(e.resultShape()));
  e.line("double a[" + std::to_string(std::max<int64_t>(1, m * m)) + "];");
  e.open("for (int k = 0; k < " + MM + "; ++k) {");
  e.line("a[k] = static_cast<double>(" + e.load(0, "i * " + MM + "LL + k") +
         ");");
  e.close();
  e.line("double det = 1.0;");
  e.open("for (int k = 0; k < " + M + "; ++k) {");
  e.line("int pivot = k;");
  e.open("for (int r = k + 1; r < " + M + "; ++r) {");
  e.line("if (fabs(a[r * " + M + " + k]) > fabs(a[pivot * " + M +
         " + k])) pivot = r;");
  e.close();
  e.open("if (pivot != k) {");
  e.open("for (int c = 0; c < " + M + "; ++c) {");
  e.line("const double t = a[k * " + M + " + c];");
  e.line("a[k * " + M + " + c] = a[pivot * " + M + " + c];");
  e.line("a[pivot * " + M + " + c] = t;");
  e.close();
  e.line("det = -det;");
  e.close();
  e.line("const double p = a[k * " + M + " + k];");
  e.line("det *= p;");
  e.line("if (p == 0.0) continue;");
  e.open("for (int r = k + 1; r < " + M + "; ++r) {");
  e.line("const double f = a[r * " + M + " + k] / p;");
  e.open("for (int c = k + 1; c < " + M + "; ++c) {");
  e.line("a[r * " + M + " + c] -= f * a[k * " + M + " + c];");
  e.close();
  e.close();
  e.close();
  e.line(e.store(0, "i", "det"));
  e.close();
  return success();
}
} // namespace

bool isLinearAlgebra(OperationName name) {
  return isOneOf<graph::MatMulOp, graph::GemmOp, graph::EinsumOp, graph::DetOp,
                 graph::QuantizedMatMulOp>(name);
}

LogicalResult emitLinearAlgebra(KernelEmitter &e) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(e.getOp())
      .Case([&](graph::MatMulOp) { return emitMatMul(e); })
      .Case([&](graph::GemmOp) { return emitGemm(e); })
      .Case([&](graph::QuantizedMatMulOp) { return emitQuantizedMatMul(e); })
      .Case([&](graph::DetOp) { return emitDet(e); })
      .Default([&](Operation *) { return emitEinsum(e); });
}

} // namespace graphc::codegen::cuda
