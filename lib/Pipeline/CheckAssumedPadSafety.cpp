//===- CheckAssumedPadSafety.cpp - --assume-pad-safe, checked -------------===//

#include "lib/Pipeline/CheckAssumedPadSafety.h"
#include "lib/Pipeline/Pipeline.h"
#include "lib/Pipeline/ReferenceRun.h"
#include "lib/Support/ElementValue.h"

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "lib/Artifact/Staging.h"
#include "lib/HostKernels/HostKernels.h"
#include "passes/Passes.h"
#include "passes/ShapeFlags.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace graphc {
namespace {

/// Element-wise tolerance of the comparison: the conformance suite's f32
/// tolerances, since padding may change the order of additions.
constexpr double kRelativeTolerance = 1e-4, kAbsoluteTolerance = 1e-5;

llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 message.str().c_str());
}

int64_t elementCount(ShapedType type) { return type.getNumElements(); }

/// Element `index` of a host tensor as a double (integers exactly up to
/// 2^53), for the comparison.
double elementAt(const std::vector<char> &bytes, int32_t dtype,
                 int64_t index) {
  return elementAsDouble(dtype, bytes.data() + index * gc_dtype_size(dtype));
}

/// The bucket functions of `module` and the size each gives `dim`.
SmallVector<std::pair<func::FuncOp, int64_t>> bucketsOf(ModuleOp module,
                                                        StringRef dim) {
  SmallVector<std::pair<func::FuncOp, int64_t>> found;
  for (auto func : module.getOps<func::FuncOp>()) {
    auto bucket = func->getAttrOfType<DictionaryAttr>(graph::kBucketAttr);
    if (auto size = bucket ? bucket.getAs<IntegerAttr>(dim) : nullptr)
      found.push_back({func, size.getInt()});
  }
  return found;
}

/// The verdict of `func` for `dim`, or null.
DictionaryAttr verdictOf(func::FuncOp func, StringRef dim) {
  auto all = func->getAttrOfType<DictionaryAttr>(graph::kPadSafetyAttr);
  return all ? all.getAs<DictionaryAttr>(dim) : nullptr;
}

/// Replaces `func`'s verdict for `dim` by pad-safe (not splittable) with
/// `outputAxes`, keeping its input axes.
void markPadSafe(func::FuncOp func, StringRef dim,
                 ArrayRef<int64_t> outputAxes) {
  Builder b(func.getContext());
  SmallVector<NamedAttribute> entries;
  if (auto all = func->getAttrOfType<DictionaryAttr>(graph::kPadSafetyAttr))
    for (NamedAttribute entry : all)
      if (entry.getName() != dim)
        entries.push_back(entry);
  DictionaryAttr old = verdictOf(func, dim);
  SmallVector<Attribute> axes;
  for (int64_t axis : outputAxes)
    axes.push_back(b.getI64IntegerAttr(axis));
  SmallVector<NamedAttribute> verdict = {
      b.getNamedAttr("safe", b.getBoolAttr(true)),
      b.getNamedAttr("splittable", b.getBoolAttr(false)),
      b.getNamedAttr("node", b.getStringAttr("")),
      b.getNamedAttr("reason", b.getStringAttr("")),
      b.getNamedAttr("inputs", old && old.get("inputs")
                                   ? old.get("inputs")
                                   : b.getArrayAttr({})),
      b.getNamedAttr("outputs", b.getArrayAttr(axes))};
  entries.push_back(b.getNamedAttr(dim, b.getDictionaryAttr(verdict)));
  func->setAttr(graph::kPadSafetyAttr, b.getDictionaryAttr(entries));
}

/// Checks one assumed dim; see checkAssumedPadSafety.
llvm::Error checkDim(ModuleOp module, ModuleOp dynamic, StringRef dim,
                     ArrayRef<std::string> padValues, llvm::raw_ostream &notes) {
  auto buckets = bucketsOf(module, dim);
  if (buckets.empty()) {
    std::vector<std::string> names;
    if (auto first = *module.getOps<func::FuncOp>().begin())
      if (auto bucket = first->getAttrOfType<DictionaryAttr>(graph::kBucketAttr))
        for (NamedAttribute entry : bucket)
          names.push_back(entry.getName().str());
    return failure("--assume-pad-safe names '" + dim +
                   "', which is no bucketed dim" +
                   suggestName(dim, names, "bucketed dims",
                               "; the model has no bucketed dims"));
  }
  // What the analysis says, for the notes and the refusal.
  std::string finding;
  for (auto [func, size] : buckets) {
    DictionaryAttr verdict = verdictOf(func, dim);
    auto safe = verdict ? verdict.getAs<BoolAttr>("safe") : nullptr;
    if (safe && safe.getValue())
      continue;
    auto node = verdict ? verdict.getAs<StringAttr>("node") : nullptr;
    auto reason = verdict ? verdict.getAs<StringAttr>("reason") : nullptr;
    finding = (node && !node.getValue().empty()
                   ? "node '" + node.str() + "': "
                   : std::string()) +
              (reason ? reason.str() : "not analysed");
    break;
  }
  if (finding.empty()) {
    notes << "note: --assume-pad-safe " << dim
          << ": the analysis already proves it\n";
    return llvm::Error::success();
  }

  // The smallest bucket of at least 2 for the dim (smallest elsewhere too),
  // and an exact run at half its size.
  func::FuncOp padded;
  int64_t bucketSize = 0, cost = 0;
  for (auto [func, size] : buckets) {
    if (size < 2)
      continue;
    int64_t elements = 0;
    for (Type type : func.getArgumentTypes())
      elements += elementCount(cast<ShapedType>(type));
    if (!padded || size < bucketSize ||
        (size == bucketSize && elements < cost)) {
      padded = func;
      bucketSize = size;
      cost = elements;
    }
  }
  if (!padded)
    return failure("cannot check --assume-pad-safe " + dim +
                   ": it has no bucket larger than 1 to pad to");
  int64_t exactSize = bucketSize / 2;

  // The exact program: the model before bucketing, specialised to the
  // padded bucket's sizes but `dim`, which is exactSize.
  OwningOpRef<ModuleOp> exactModule = dynamic.clone();
  std::vector<std::string> sizes;
  for (NamedAttribute entry :
       padded->getAttrOfType<DictionaryAttr>(graph::kBucketAttr))
    sizes.push_back(entry.getName().str() + "=" +
                    std::to_string(entry.getName() == dim
                                       ? exactSize
                                       : cast<IntegerAttr>(entry.getValue())
                                             .getInt()));
  std::string failedStage;
  if (::mlir::failed(specializeShapeBuckets(*exactModule, sizes, {},
                                            padValues)) ||
      !simplifyGraph(*exactModule, failedStage))
    return failure("cannot check --assume-pad-safe " + dim +
                   ": the model does not compile at " + dim + "=" +
                   std::to_string(exactSize));
  auto exact = *exactModule->getOps<func::FuncOp>().begin();

  // The same random inputs for both; the padded run's are padded with
  // each input's pad value.
  std::vector<std::vector<char>> exactInputs, paddedInputs;
  for (auto [index, exactArg, paddedArg] :
       llvm::zip(llvm::seq<unsigned>(0, exact.getNumArguments()),
                 exact.getArgumentTypes(), padded.getArgumentTypes())) {
    auto exactType = cast<RankedTensorType>(exactArg);
    auto paddedType = cast<RankedTensorType>(paddedArg);
    exactInputs.push_back(randomTensorBytes(exactType, index));
    int32_t dtype = graph::toHostDtype(exactType.getElementType());
    auto padValue =
        padded.getArgAttrOfType<FloatAttr>(index, graph::kPadValueAttr);
    unsigned char pattern[8];
    size_t size = rt::padPattern(
        dtype, padValue ? padValue.getValueAsDouble() : 0.0, pattern);
    std::vector<char> bytes(elementCount(paddedType) * size);
    for (size_t at = 0; at < bytes.size(); at += size)
      std::memcpy(bytes.data() + at, pattern, size);
    std::vector<int64_t> exactDims(exactType.getShape()),
        paddedDims(paddedType.getShape()), origin(exactDims.size(), 0);
    const std::vector<char> &source = exactInputs.back();
    if (!rt::forEachContiguousRun(
            exactDims, exactDims, origin, paddedDims, origin, size,
            [&](uint64_t from, uint64_t to, uint64_t count) {
              std::memcpy(bytes.data() + to, source.data() + from, count);
            }))
      return failure("cannot check --assume-pad-safe " + dim + ": input " +
                     std::to_string(index) + " is larger at " + dim + "=" +
                     std::to_string(exactSize) + " than in its bucket");
    paddedInputs.push_back(std::move(bytes));
  }
  auto exactOutputs = interpretOnHost(exact, exactInputs);
  if (!exactOutputs)
    return failure("cannot check --assume-pad-safe " + dim + ": " +
                   llvm::toString(exactOutputs.takeError()));
  auto paddedOutputs = interpretOnHost(padded, paddedInputs);
  if (!paddedOutputs)
    return failure("cannot check --assume-pad-safe " + dim + ": " +
                   llvm::toString(paddedOutputs.takeError()));

  // Compare on the unpadded part; the axis where the shapes differ is the
  // one the runtime slices.
  SmallVector<int64_t> outputAxes;
  double worst = 0;
  std::string worstOutput;
  for (auto [o, exactType, paddedType] :
       llvm::zip(llvm::seq<unsigned>(0, exact.getNumResults()),
                 exact.getResultTypes(), padded.getResultTypes())) {
    auto exactShape = cast<RankedTensorType>(exactType).getShape();
    auto paddedShape = cast<RankedTensorType>(paddedType).getShape();
    auto nameAttr =
        padded.getResultAttrOfType<StringAttr>(o, graph::kNameAttr);
    std::string name = nameAttr ? nameAttr.str() : "#" + std::to_string(o);
    int64_t axis = -1;
    for (size_t d = 0; d < exactShape.size(); ++d) {
      if (exactShape[d] == paddedShape[d])
        continue;
      if (axis >= 0 || exactShape[d] != exactSize ||
          paddedShape[d] != bucketSize)
        return failure("--assume-pad-safe " + dim + ": output '" + name +
                       "' does not carry the dim on one axis, so it cannot "
                       "be sliced back");
      axis = d;
    }
    outputAxes.push_back(axis);
    int32_t dtype = graph::toHostDtype(
        cast<RankedTensorType>(exactType).getElementType());
    // Index of every exact element in the padded output.
    int64_t total = elementCount(cast<ShapedType>(exactType));
    for (int64_t i = 0; i < total; ++i) {
      int64_t rest = i, paddedIndex = 0, stride = 1;
      for (size_t d = exactShape.size(); d-- > 0;) {
        int64_t coordinate = rest % exactShape[d];
        rest /= exactShape[d];
        paddedIndex += coordinate * stride;
        stride *= paddedShape[d];
      }
      double want = elementAt((*exactOutputs)[o], dtype, i);
      double got = elementAt((*paddedOutputs)[o], dtype, paddedIndex);
      double difference = std::fabs(got - want);
      bool agree =
          (std::isnan(want) && std::isnan(got)) ||
          difference <= kAbsoluteTolerance + kRelativeTolerance * std::fabs(want);
      if (!agree && !(difference <= worst)) {
        worst = std::isnan(difference) ? INFINITY : difference;
        worstOutput = name;
      }
    }
  }
  std::string sizesText = std::to_string(exactSize) + " to " +
                          std::to_string(bucketSize);
  if (!worstOutput.empty())
    return failure("--assume-pad-safe " + dim + " is wrong: padding '" + dim +
                   "' from " + sizesText + " changes output '" + worstOutput +
                   "' by up to " + std::to_string(worst) +
                   " on the cpu reference (the analysis found " + finding +
                   ")");
  // Every bucket must size the sliced axes like the dim.
  for (auto [func, size] : buckets)
    for (auto [o, axis] : llvm::enumerate(outputAxes))
      if (axis >= 0 &&
          cast<ShapedType>(func.getResultTypes()[o]).getDimSize(axis) != size)
        return failure("--assume-pad-safe " + dim + ": output " +
                       std::to_string(o) + " axis " + std::to_string(axis) +
                       " does not follow the dim in every bucket");
  for (auto [func, size] : buckets)
    markPadSafe(func, dim, outputAxes);
  notes << "note: --assume-pad-safe " << dim << ": the analysis found "
        << finding << "; padding from " << sizesText
        << " gives the exact results on the cpu reference\n";
  return llvm::Error::success();
}

} // namespace

llvm::Error checkAssumedPadSafety(ModuleOp module, ModuleOp dynamic,
                                  ArrayRef<std::string> dims,
                                  ArrayRef<std::string> padValues,
                                  llvm::raw_ostream &notes) {
  for (const std::string &dim : dims)
    if (llvm::Error error = checkDim(module, dynamic, dim, padValues, notes))
      return error;
  return llvm::Error::success();
}

} // namespace graphc
