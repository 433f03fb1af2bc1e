//===- GraphTypeInferenceNN.cpp - linear algebra, conv and pooling --------===//

#include "dialects/Graph/GraphEinsum.h"
#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"
#include "dialects/Graph/GraphWindow.h"
#include "lib/Support/CheckedArith.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace graphc::graph {

static constexpr int64_t kDynamic = ShapedType::kDynamic;

/// Two dims that must be equal: the static one if either is, else dynamic.
static FailureOr<int64_t> unifyDims(const TypeInference &infer, int64_t a,
                                    int64_t b, const Twine &what) {
  if (ShapedType::isDynamic(a))
    return b;
  if (!ShapedType::isDynamic(b) && a != b)
    return infer.emitError(what + " do not match (" + Twine(a) + " vs " +
                           Twine(b) + ")");
  return a;
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

LogicalResult DetOp::inferResultTypes(const TypeInference &infer,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  RankedTensorType x = rankedType(adaptor.getX());
  if (x.getRank() < 2)
    return infer.emitError("input must have rank at least 2 ([*, M, M])");
  FailureOr<int64_t> m =
      unifyDims(infer, x.getDimSize(x.getRank() - 2),
                x.getDimSize(x.getRank() - 1), "the matrix dims");
  if (failed(m))
    return failure();
  results.push_back(x.clone(x.getShape().drop_back(2)));
  return success();
}

LogicalResult MatMulOp::inferResultTypes(const TypeInference &infer,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  RankedTensorType a = rankedType(adaptor.getA());
  RankedTensorType b = rankedType(adaptor.getB());
  if (a.getElementType() != b.getElementType())
    return infer.emitError("operands have different element types");
  if (a.getRank() == 0 || b.getRank() == 0)
    return infer.emitError("operands must have at least one dim");
  // 1-D operands are promoted to matrices and the added dim dropped again.
  SmallVector<int64_t> aDims(a.getShape()), bDims(b.getShape());
  if (aDims.size() == 1)
    aDims.insert(aDims.begin(), 1);
  if (bDims.size() == 1)
    bDims.push_back(1);
  if (failed(unifyDims(infer, aDims.back(), bDims[bDims.size() - 2],
                       "contraction dims")))
    return failure();
  FailureOr<SmallVector<int64_t>> batch = broadcastShapes(
      ArrayRef(aDims).drop_back(2), ArrayRef(bDims).drop_back(2));
  if (failed(batch))
    return infer.emitError("batch dims do not broadcast");
  SmallVector<int64_t> dims(*batch);
  if (a.getRank() > 1)
    dims.push_back(aDims[aDims.size() - 2]);
  if (b.getRank() > 1)
    dims.push_back(bDims.back());
  results.push_back(a.clone(dims));
  return success();
}

LogicalResult QuantizedMatMulOp::inferResultTypes(
    const TypeInference &infer, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  RankedTensorType a = rankedType(adaptor.getA());
  RankedTensorType b = rankedType(adaptor.getB());
  Type aElement = a.getElementType(), bElement = b.getElementType();
  bool float8 = isa<Float8E4M3FNType>(aElement);
  if (float8 != isa<Float8E4M3FNType>(bElement))
    return infer.emitError("operands must both be float8 e4m3fn or both "
                           "8-bit integers");
  if (a.getRank() < 2 || (b.getRank() != 2 && b.getRank() != a.getRank()))
    return infer.emitError("A must have rank >= 2 and B rank 2 or A's");
  bool transB = adaptor.getTransB() != 0;
  int64_t bRank = b.getRank();
  int64_t bK = b.getDimSize(bRank - (transB ? 1 : 2));
  int64_t bN = b.getDimSize(bRank - (transB ? 2 : 1));
  if (failed(unifyDims(infer, a.getDimSize(a.getRank() - 1), bK,
                       "contraction dims")))
    return failure();
  SmallVector<int64_t> dims(a.getShape().drop_back(2));
  if (bRank == a.getRank()) {
    FailureOr<SmallVector<int64_t>> batch = broadcastShapes(
        a.getShape().drop_back(2), b.getShape().drop_back(2));
    if (failed(batch))
      return infer.emitError("batch dims do not broadcast");
    dims = *batch;
  }
  dims.push_back(a.getDimSize(a.getRank() - 2));
  dims.push_back(bN);
  Builder builder(a.getContext());
  results.push_back(RankedTensorType::get(
      dims, float8 ? Type(builder.getF32Type()) : builder.getI32Type()));
  return success();
}

LogicalResult GemmOp::inferResultTypes(const TypeInference &infer,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  RankedTensorType a = rankedType(adaptor.getA());
  RankedTensorType b = rankedType(adaptor.getB());
  if (a.getRank() != 2 || b.getRank() != 2)
    return infer.emitError("A and B must be matrices");
  if (a.getElementType() != b.getElementType())
    return infer.emitError("A and B have different element types");
  bool transA = adaptor.getTransA() != 0, transB = adaptor.getTransB() != 0;
  int64_t m = a.getDimSize(transA ? 1 : 0), k = a.getDimSize(transA ? 0 : 1);
  int64_t kb = b.getDimSize(transB ? 1 : 0), n = b.getDimSize(transB ? 0 : 1);
  if (failed(unifyDims(infer, k, kb, "contraction dims")))
    return failure();
  if (Value c = adaptor.getC()) {
    RankedTensorType cType = rankedType(c);
    if (cType.getElementType() != a.getElementType())
      return infer.emitError("C has another element type than A");
    FailureOr<SmallVector<int64_t>> shape =
        broadcastShapes({m, n}, cType.getShape());
    if (failed(shape) || shape->size() != 2)
      return infer.emitError("C does not broadcast to [M, N]");
  }
  results.push_back(a.clone({m, n}));
  return success();
}

LogicalResult AttentionOp::inferResultTypes(const TypeInference &infer,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  RankedTensorType q = rankedType(adaptor.getQ());
  RankedTensorType k = rankedType(adaptor.getK());
  RankedTensorType v = rankedType(adaptor.getV());
  if (q.getRank() != 4 || k.getRank() != 4 || v.getRank() != 4)
    return infer.emitError("Q, K and V must be 4-d: [batch, heads, sequence, "
                           "head size]");
  Type element = q.getElementType();
  if (k.getElementType() != element || v.getElementType() != element)
    return infer.emitError("Q, K and V have different element types");
  FailureOr<int64_t> batch = unifyDims(infer, q.getDimSize(0), k.getDimSize(0),
                                       "batch dims of Q and K");
  if (failed(batch) ||
      failed(batch = unifyDims(infer, *batch, v.getDimSize(0),
                               "batch dims of Q and V")))
    return failure();
  FailureOr<int64_t> kvHeads = unifyDims(infer, k.getDimSize(1),
                                         v.getDimSize(1), "heads of K and V");
  if (failed(kvHeads) ||
      failed(unifyDims(infer, q.getDimSize(3), k.getDimSize(3),
                       "head sizes of Q and K")) ||
      failed(unifyDims(infer, k.getDimSize(2), v.getDimSize(2),
                       "sequence lengths of K and V")))
    return failure();
  int64_t heads = q.getDimSize(1);
  if (!ShapedType::isDynamic(heads) && !ShapedType::isDynamic(*kvHeads) &&
      (*kvHeads == 0 ? heads != 0 : heads % *kvHeads != 0))
    return infer.emitError("Q's " + Twine(heads) +
                           " heads are not a multiple of K and V's " +
                           Twine(*kvHeads));
  SmallVector<int64_t> dims = {*batch, heads, q.getDimSize(2),
                               v.getDimSize(3)};
  if (Value mask = adaptor.getMask()) {
    RankedTensorType maskType = rankedType(mask);
    if (maskType.getElementType() != element)
      return infer.emitError("the mask has another element type than Q");
    SmallVector<int64_t> scores = {*batch, heads, q.getDimSize(2),
                                   k.getDimSize(2)};
    FailureOr<SmallVector<int64_t>> shape =
        broadcastShapes(scores, maskType.getShape());
    if (failed(shape) || shape->size() != 4)
      return infer.emitError("the mask does not broadcast to the scores "
                             "[batch, heads, query, key]");
  }
  results.push_back(q.clone(dims));
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution and pooling windows
//===----------------------------------------------------------------------===//

/// The [N, C, spatial...] input of a windowed op, with its spatial rank.
static FailureOr<int64_t> spatialRank(const TypeInference &infer,
                                      RankedTensorType input) {
  if (input.getRank() < 3)
    return infer.emitError("input must have a batch, a channel and at least "
                           "one spatial dim");
  return input.getRank() - 2;
}

/// The spatial rank of a convolution's input `x`, whose weight `w` must
/// have its rank.
static FailureOr<int64_t> convSpatialRank(const TypeInference &infer,
                                          RankedTensorType x,
                                          RankedTensorType w) {
  FailureOr<int64_t> rank = spatialRank(infer, x);
  if (failed(rank))
    return failure();
  if (w.getRank() != x.getRank())
    return infer.emitError("weight rank " + Twine(w.getRank()) +
                           " does not match input rank " + Twine(x.getRank()));
  return rank;
}

/// resolveWindow over a windowed op's own attributes; `weightKernel` as
/// there.
template <typename AdaptorT>
static FailureOr<WindowParams> windowOf(const TypeInference &infer,
                                        AdaptorT adaptor, int64_t rank,
                                        ArrayRef<int64_t> weightKernel) {
  return resolveWindow(infer, rank, adaptor.getKernelShape(), weightKernel,
                       adaptor.getStrides(), adaptor.getDilations(),
                       adaptor.getPads(), adaptor.getAutoPad());
}

/// The result dims of a convolution (graph.conv, graph.quantized_conv) of
/// `x` by `w` under the op's window, layout and group attributes.
template <typename AdaptorT>
static FailureOr<SmallVector<int64_t>>
convResultDims(const TypeInference &infer, AdaptorT adaptor) {
  RankedTensorType x = rankedType(adaptor.getX());
  RankedTensorType w = rankedType(adaptor.getW());
  FailureOr<int64_t> rank = convSpatialRank(infer, x, w);
  if (failed(rank))
    return failure();
  // Channels first: [N, C, spatial...]; channels last: [N, spatial..., C].
  bool channelsLast = adaptor.getChannelsLast() != 0;
  int64_t firstSpatial = channelsLast ? 1 : 2;
  FailureOr<WindowParams> window =
      windowOf(infer, adaptor, *rank, w.getShape().slice(firstSpatial, *rank));
  if (failed(window))
    return failure();
  SmallVector<int64_t> dims = {x.getDimSize(0)};
  if (!channelsLast)
    dims.push_back(w.getDimSize(0));
  for (int64_t i = 0; i < *rank; ++i) {
    FailureOr<int64_t> out = windowOutputSize(
        infer, *window, i, x.getDimSize(i + firstSpatial), false);
    if (failed(out))
      return failure();
    dims.push_back(*out);
  }
  if (channelsLast)
    dims.push_back(w.getDimSize(0));
  return dims;
}

LogicalResult ConvOp::inferResultTypes(const TypeInference &infer,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  FailureOr<SmallVector<int64_t>> dims = convResultDims(infer, adaptor);
  if (failed(dims))
    return failure();
  results.push_back(rankedType(adaptor.getX()).clone(*dims));
  return success();
}

LogicalResult QuantizedConvOp::inferResultTypes(
    const TypeInference &infer, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  FailureOr<SmallVector<int64_t>> dims = convResultDims(infer, adaptor);
  if (failed(dims))
    return failure();
  MLIRContext *context = rankedType(adaptor.getX()).getContext();
  results.push_back(
      RankedTensorType::get(*dims, IntegerType::get(context, 32)));
  return success();
}

LogicalResult
ConvTransposeOp::inferResultTypes(const TypeInference &infer, Adaptor adaptor,
                                  SmallVectorImpl<Type> &results) {
  RankedTensorType x = rankedType(adaptor.getX());
  RankedTensorType w = rankedType(adaptor.getW());
  FailureOr<int64_t> rank = convSpatialRank(infer, x, w);
  if (failed(rank))
    return failure();
  int64_t group = adaptor.getGroup();
  if (group < 1)
    return infer.emitError("group must be positive");
  FailureOr<WindowParams> window =
      windowOf(infer, adaptor, *rank, w.getShape().drop_front(2));
  if (failed(window))
    return failure();
  SmallVector<int64_t> outputPadding(*rank, 0);
  if (std::optional<ArrayRef<int64_t>> attr = adaptor.getOutputPadding()) {
    if (static_cast<int64_t>(attr->size()) != *rank)
      return infer.emitError("output_padding must have " + Twine(*rank) +
                             " entries, one per spatial dim");
    outputPadding.assign(attr->begin(), attr->end());
  }
  int64_t channels = w.getDimSize(1);
  std::optional<int64_t> outChannels = ShapedType::isDynamic(channels)
                                           ? kDynamic
                                           : checkedMul(channels, group);
  if (!outChannels)
    return infer.emitError("group makes the output channels too large");
  SmallVector<int64_t> dims = {x.getDimSize(0), *outChannels};
  std::optional<ArrayRef<int64_t>> outputShape = adaptor.getOutputShape();
  if (outputShape) {
    // Spatial dims, optionally preceded by N and C.
    ArrayRef<int64_t> spatial = *outputShape;
    if (static_cast<int64_t>(spatial.size()) == *rank + 2)
      spatial = spatial.drop_front(2);
    if (static_cast<int64_t>(spatial.size()) != *rank)
      return infer.emitError("output_shape must have " + Twine(*rank) +
                             " entries, one per spatial dim");
    llvm::append_range(dims, spatial);
    results.push_back(x.clone(dims));
    return success();
  }
  for (int64_t i = 0; i < *rank; ++i) {
    int64_t in = x.getDimSize(i + 2);
    if (ShapedType::isDynamic(in)) {
      dims.push_back(kDynamic);
      continue;
    }
    int64_t stride = window->strides[i];
    auto tooLarge = [&] {
      return infer.emitError("spatial dim " + Twine(i) +
                             " of the output is too large");
    };
    if (window->autoPad == AutoPad::SameUpper ||
        window->autoPad == AutoPad::SameLower) {
      std::optional<int64_t> out = checkedMul(in, stride);
      if (!out)
        return tooLarge();
      dims.push_back(*out);
      continue;
    }
    int64_t extent = window->effectiveKernel(i);
    if (ShapedType::isDynamic(extent)) {
      dims.push_back(kDynamic);
      continue;
    }
    std::optional<int64_t> out = checkedMul(stride, in - 1);
    for (int64_t term : {outputPadding[i], extent, -window->padsBegin[i],
                         -window->padsEnd[i]})
      out = out ? checkedAdd(*out, term) : std::nullopt;
    if (!out)
      return tooLarge();
    if (*out <= 0)
      return infer.emitError("spatial dim " + Twine(i) +
                             " of the output would be empty");
    dims.push_back(*out);
  }
  results.push_back(x.clone(dims));
  return success();
}

/// Output of a pooling op: [N, C, pooled spatial dims...].
template <typename AdaptorT>
static LogicalResult inferPool(const TypeInference &infer, AdaptorT adaptor,
                               SmallVectorImpl<Type> &results) {
  RankedTensorType x = rankedType(adaptor.getX());
  FailureOr<int64_t> rank = spatialRank(infer, x);
  if (failed(rank))
    return failure();
  FailureOr<WindowParams> window = windowOf(infer, adaptor, *rank, {});
  if (failed(window))
    return failure();
  SmallVector<int64_t> dims = {x.getDimSize(0), x.getDimSize(1)};
  for (int64_t i = 0; i < *rank; ++i) {
    FailureOr<int64_t> out = windowOutputSize(
        infer, *window, i, x.getDimSize(i + 2), adaptor.getCeilMode() != 0);
    if (failed(out))
      return failure();
    dims.push_back(*out);
  }
  results.push_back(x.clone(dims));
  return success();
}

LogicalResult MaxPoolOp::inferResultTypes(const TypeInference &infer,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  return inferPool(infer, adaptor, results);
}

LogicalResult
MaxPoolWithIndicesOp::inferResultTypes(const TypeInference &infer,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  if (failed(inferPool(infer, adaptor, results)))
    return failure();
  auto y = cast<RankedTensorType>(results.front());
  results.push_back(y.clone(IntegerType::get(infer.getContext(), 64)));
  return success();
}

LogicalResult AveragePoolOp::inferResultTypes(const TypeInference &infer,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  return inferPool(infer, adaptor, results);
}

LogicalResult LpPoolOp::inferResultTypes(const TypeInference &infer,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  return inferPool(infer, adaptor, results);
}

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

LogicalResult EinsumOp::inferResultTypes(const TypeInference &infer,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return infer.emitError("expects at least one operand");
  FailureOr<EinsumEquation> equation =
      parseEinsumEquation(infer, adaptor.getEquation(), inputs.size());
  if (failed(equation))
    return failure();
  Type elementType = rankedType(inputs[0]).getElementType();
  // Letter dims must agree across operands; ellipsis dims broadcast.
  llvm::DenseMap<char, int64_t> letterDims;
  SmallVector<int64_t> ellipsisDims;
  for (auto [index, input] : llvm::enumerate(inputs)) {
    RankedTensorType type = rankedType(input);
    if (type.getElementType() != elementType)
      return infer.emitError("operand #" + Twine(index) +
                             " has another element type than operand #0");
    const EinsumTerm &term = equation->inputs[index];
    int64_t letters = term.letters.size();
    int64_t rank = type.getRank();
    if (term.ellipsisAt < 0 ? rank != letters : rank < letters)
      return infer.emitError("term '" + term.spelling +
                             "' does not match the " + Twine(rank) +
                             "-d operand #" + Twine(index));
    int64_t ellipsisRank = rank - letters;
    int64_t dim = 0;
    for (int64_t pos = 0; pos <= letters; ++pos) {
      if (pos == term.ellipsisAt) {
        FailureOr<SmallVector<int64_t>> combined = broadcastShapes(
            ellipsisDims, type.getShape().slice(dim, ellipsisRank));
        if (failed(combined))
          return infer.emitError("dims covered by '...' do not broadcast");
        ellipsisDims = *combined;
        dim += ellipsisRank;
      }
      if (pos == letters)
        break;
      char letter = term.letters[pos];
      auto [it, inserted] =
          letterDims.try_emplace(letter, type.getDimSize(dim));
      if (!inserted) {
        FailureOr<int64_t> unified =
            unifyDims(infer, it->second, type.getDimSize(dim),
                      "sizes of label '" + Twine(letter) + "'");
        if (failed(unified))
          return failure();
        it->second = *unified;
      }
      ++dim;
    }
  }
  SmallVector<int64_t> dims;
  const EinsumTerm &output = equation->output;
  for (int64_t pos = 0; pos <= static_cast<int64_t>(output.letters.size());
       ++pos) {
    if (pos == output.ellipsisAt)
      llvm::append_range(dims, ellipsisDims);
    if (pos < static_cast<int64_t>(output.letters.size()))
      dims.push_back(letterDims.lookup(output.letters[pos]));
  }
  results.push_back(RankedTensorType::get(dims, elementType));
  return success();
}

} // namespace graphc::graph
