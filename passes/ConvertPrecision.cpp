//===- ConvertPrecision.cpp - float32 tensors to fp16 or bf16 -------------===//
//
// `--precision fp16|bf16` stores the model's float32 tensors in the narrow
// type: weights are rounded once here, and every op whose type inference
// accepts narrow operands computes on them. Kernels of both targets keep
// their arithmetic, accumulations and statistics in float and round what
// they store, so the cpu target is the reference for the same rounding.
//
// An op stays in float32, with casts around it, when --keep-fp32 names its
// ONNX node (or a node folded into it), when narrow operands would change
// what it means (Range: positions past 2048 are not exact in fp16), or
// when its type inference refuses the narrow types (an attribute decides
// its result type: ConstantOfShape's value). Resize's scales and roi,
// GridSample's grid and RoiAlign's rois are coordinates, not data, and stay
// float32, and so does the rescale of a quantized region's wide accumulator
// (its cast to float32 and the multiply by the scales: int32 sums overflow
// fp16). Inputs and outputs keep float32 unless --io-precision names
// another type; then the signature changes and the casts to the compute
// type sit at the entry and before the return.
//
// Finite constants beyond the narrow type's range become its largest
// finite value rather than infinity, so that a "very negative" additive
// mask (torch writes float32's lowest) stays finite and x + mask - mask
// stays a number.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "lib/Support/Float16.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>
#include <cstring>
#include <set>

using namespace mlir;
using namespace graphc::graph;

namespace graphc {
#define GEN_PASS_DEF_CONVERTPRECISION
#include "passes/Passes.h.inc"

namespace {

/// Past this many elements a converted constant becomes a resource blob,
/// as the importer does with weights.
constexpr int64_t kDenseElementLimit = 64;

Type elementTypeOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

/// The tensor element type of a precision (f32 for fp32 and tf32).
Type storageType(MLIRContext *context, Precision precision) {
  if (precision == Precision::fp16)
    return Float16Type::get(context);
  if (precision == Precision::bf16)
    return BFloat16Type::get(context);
  return Float32Type::get(context);
}

/// Rounds a float to the narrow type's bits, finite values to finite ones.
uint16_t narrowBits(float value, bool half) {
  uint16_t bits = half ? floatToHalf(value) : floatToBf16(value);
  float back = half ? halfToFloat(bits) : bf16ToFloat(bits);
  if (std::isinf(back) && std::isfinite(value))
    bits = (bits & 0x8000u) | (half ? 0x7BFFu : 0x7F7Fu);
  return bits;
}

/// Operands that are coordinates rather than data: their type is not the
/// data's in ONNX either.
bool isCoordinateOperand(Operation *op, Value operand) {
  if (auto resize = dyn_cast<ResizeOp>(op))
    return operand == resize.getRoi() || operand == resize.getScales();
  if (auto sample = dyn_cast<GridSampleOp>(op))
    return operand == sample.getGrid();
  if (auto align = dyn_cast<RoiAlignOp>(op))
    return operand == align.getRois();
  return false;
}

/// Whether `value` is the wide accumulator of a quantized region's product
/// (graph.quantized_mat_mul / quantized_conv: int32 sums up to 2^31, e4m3fn
/// ones past fp16's range), perhaps corrected for a zero point (an integer
/// add), or that accumulator cast to float32.
bool isAccumulator(Value value) {
  Operation *def = value.getDefiningOp();
  if (auto cast = dyn_cast_or_null<CastOp>(def))
    def = cast.getInput().getDefiningOp();
  // The corrections add onto the accumulator, their left operand.
  for (auto add = dyn_cast_or_null<AddOp>(def);
       add && isa<IntegerType>(getElementTypeOrSelf(add.getType()));
       add = dyn_cast_or_null<AddOp>(def))
    def = add.getLhs().getDefiningOp();
  return isa_and_nonnull<QuantizedMatMulOp, QuantizedConvOp>(def);
}

/// Whether `op` applies the scales to a quantized accumulator (the cast to
/// float32 and the multiply graphc-form-quantized-regions writes): it stays
/// float32, as dequantization does, and the narrow type starts after it.
bool rescalesAccumulator(Operation *op) {
  if (auto cast = dyn_cast<CastOp>(op))
    return isAccumulator(cast.getInput());
  return isa<MulOp>(op) && llvm::any_of(op->getOperands(), isAccumulator);
}

class Converter {
public:
  Converter(MLIRContext *context, const PrecisionConversion &options,
            PrecisionReport &report)
      : f32(Float32Type::get(context)),
        compute(storageType(context, options.compute)),
        io(storageType(context, options.io)), report(report) {
    keep.insert(options.keepFp32.begin(), options.keepFp32.end());
  }

  void run(func::FuncOp func);

private:
  /// `value` as a tensor of element type `element`: itself, a constant
  /// converted once, or a cast right after its definition (cached).
  Value convert(Value value, Type element);
  Value convertConstant(ConstantOp constant, Type element);
  /// Narrows `op` in place if its type inference accepts it; false (and
  /// `op` as it was) otherwise.
  bool tryNarrow(Operation *op);
  /// Whether --keep-fp32 names a node of `op`.
  bool isPinned(Operation *op) const;

  Type f32, compute, io;
  PrecisionReport &report;
  llvm::StringSet<> keep;
  /// Values whose element type this pass changed from f32 (arguments,
  /// results, conversions): an op left in f32 casts them back.
  DenseSet<Value> narrowed;
  DenseMap<std::pair<Value, Type>, Value> conversions;
  /// Narrowed weights by their float32 attribute: bucket functions share
  /// their weights, and so share one narrowed copy (counted once).
  DenseMap<std::pair<Attribute, Type>, ElementsAttr> narrowedAttrs;
  /// Constants this pass replaced or built, erased when unused at the end.
  SmallVector<Operation *> maybeDead;
};

Value Converter::convertConstant(ConstantOp constant, Type element) {
  auto type = cast<RankedTensorType>(constant.getType());
  auto newType = type.clone(element);
  bool half = element.isF16();
  if (!(element.isF16() || element.isBF16()) || !type.getElementType().isF32())
    return {};
  OpBuilder b(constant);
  b.setInsertionPointAfter(constant);
  ElementsAttr value = constant.getValue();
  auto key = std::make_pair(Attribute(value), element);
  if (auto found = narrowedAttrs.find(key); found != narrowedAttrs.end())
    return b.create<ConstantOp>(constant.getLoc(), newType, found->second);
  if (auto dense = dyn_cast<DenseElementsAttr>(value); dense && dense.isSplat()) {
    uint16_t bits = narrowBits(dense.getSplatValue<float>(), half);
    APFloat narrow(cast<FloatType>(element).getFloatSemantics(),
                   APInt(16, bits));
    return b.create<ConstantOp>(constant.getLoc(), newType,
                                DenseElementsAttr::get(newType, narrow));
  }
  FailureOr<std::vector<char>> bytes = constantBytes(value);
  if (failed(bytes))
    return {};
  size_t count = bytes->size() / sizeof(float);
  std::vector<char> narrow(count * sizeof(uint16_t));
  for (size_t i = 0; i < count; ++i) {
    float element32;
    std::memcpy(&element32, bytes->data() + i * sizeof(float), sizeof(float));
    uint16_t bits = narrowBits(element32, half);
    std::memcpy(narrow.data() + i * sizeof(uint16_t), &bits, sizeof(bits));
  }
  report.weightBytesBefore += bytes->size();
  report.weightBytesAfter += narrow.size();
  ElementsAttr attr;
  if (newType.getNumElements() <= kDenseElementLimit) {
    attr = constantFromBytes(newType, narrow);
  } else {
    AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(narrow), alignof(uint16_t));
    attr = DenseResourceElementsAttr::get(newType, "narrowed", std::move(blob));
  }
  narrowedAttrs[key] = attr;
  return b.create<ConstantOp>(constant.getLoc(), newType, attr);
}

Value Converter::convert(Value value, Type element) {
  if (elementTypeOf(value) == element)
    return value;
  auto key = std::make_pair(value, element);
  if (auto found = conversions.find(key); found != conversions.end())
    return found->second;
  Value result;
  auto constant = value.getDefiningOp<ConstantOp>();
  if (constant && (result = convertConstant(constant, element))) {
    maybeDead.push_back(constant);
    maybeDead.push_back(result.getDefiningOp());
  } else {
    OpBuilder b(value.getContext());
    if (auto arg = dyn_cast<BlockArgument>(value))
      b.setInsertionPointToStart(arg.getOwner());
    else
      b.setInsertionPointAfter(value.getDefiningOp());
    // The cast holds the value's ONNX tensor in another precision.
    result =
        b.create<CastOp>(withTensorsOf(value.getLoc(), value), value, element);
    maybeDead.push_back(result.getDefiningOp());
  }
  if (element != f32)
    narrowed.insert(result);
  conversions[key] = result;
  return result;
}

bool Converter::isPinned(Operation *op) const {
  SmallVector<StringAttr> names;
  collectNodeNames(op->getLoc(), names);
  return llvm::any_of(names,
                      [&](StringAttr name) { return keep.count(name.getValue()); });
}

bool Converter::tryNarrow(Operation *op) {
  auto inference = dyn_cast<InferTypeOpInterface>(op);
  if (!inference || isa<RangeOp>(op))
    return false;
  bool f32Results = llvm::any_of(op->getResults(), [&](Value result) {
    return elementTypeOf(result) == f32;
  });
  bool narrowOperands = llvm::any_of(op->getOperands(), [&](Value operand) {
    return narrowed.contains(operand);
  });
  // An op computing no float32 from float32 alone (a Shape of an f32
  // tensor) has nothing to narrow.
  if (!f32Results && !narrowOperands)
    return true;

  SmallVector<Value> before(op->getOperands());
  for (OpOperand &operand : op->getOpOperands()) {
    Value value = operand.get();
    if (isCoordinateOperand(op, value))
      continue;
    Type element = elementTypeOf(value);
    if (element == f32 || (narrowed.contains(value) && element != compute))
      operand.set(convert(value, compute));
  }
  auto castOp = dyn_cast<CastOp>(op);
  Type castTo = castOp ? castOp.getTo() : Type();
  if (castOp && castTo == f32)
    castOp.setTo(compute);

  SmallVector<Type> inferred;
  bool accepted =
      succeeded(inference.inferReturnTypes(
          op->getContext(), op->getLoc(), op->getOperands(),
          op->getAttrDictionary(), op->getPropertiesStorage(),
          op->getRegions(), inferred)) &&
      inferred.size() == op->getNumResults();
  for (auto [result, type] : llvm::zip(op->getResults(), inferred)) {
    Type want = elementTypeOf(result) == f32 ? compute : elementTypeOf(result);
    accepted = accepted && getElementTypeOrSelf(type) == want;
  }
  if (!accepted) {
    for (auto [operand, value] : llvm::zip(op->getOpOperands(), before))
      operand.set(value);
    if (castOp)
      castOp.setTo(castTo);
    return false;
  }
  for (Value result : op->getResults()) {
    if (elementTypeOf(result) != f32)
      continue;
    result.setType(cast<ShapedType>(result.getType()).clone(compute));
    narrowed.insert(result);
  }
  return true;
}

void Converter::run(func::FuncOp func) {
  Block &body = func.front();
  for (BlockArgument arg : body.getArguments())
    if (elementTypeOf(arg) == f32 && io != f32) {
      arg.setType(cast<ShapedType>(arg.getType()).clone(io));
      narrowed.insert(arg);
    }
  SmallVector<Operation *> ops;
  for (Operation &op : body)
    ops.push_back(&op);
  for (Operation *op : ops) {
    if (isa<ConstantOp>(op))
      continue;
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (auto [operand, type] :
           llvm::zip(ret->getOpOperands(), func.getResultTypes()))
        if (getElementTypeOrSelf(type) == f32)
          operand.set(convert(operand.get(), io));
      continue;
    }
    bool pinned = isPinned(op);
    bool rescale = rescalesAccumulator(op);
    if (!pinned && !rescale && compute != f32 && tryNarrow(op))
      continue;
    // The op computes in float32: what it reads narrowed goes back.
    bool readsNarrow = false;
    for (OpOperand &operand : op->getOpOperands())
      if (narrowed.contains(operand.get())) {
        operand.set(convert(operand.get(), f32));
        readsNarrow = true;
      }
    bool computesFloat = llvm::any_of(op->getResults(), [&](Value result) {
      return elementTypeOf(result) == f32;
    });
    if (compute != f32 && !rescale && (readsNarrow || computesFloat)) {
      SmallVector<StringAttr> names;
      collectNodeNames(op->getLoc(), names);
      for (StringAttr name : names)
        (pinned ? report.pinnedNodes : report.wideNodes).insert(name.str());
    }
  }
  func.setType(FunctionType::get(func.getContext(), body.getArgumentTypes(),
                                 body.getTerminator()->getOperandTypes()));
  for (Operation *op : llvm::reverse(maybeDead))
    if (op->use_empty())
      op->erase();
  maybeDead.clear();
  conversions.clear();
  narrowed.clear();
}

struct ConvertPrecisionPass
    : impl::ConvertPrecisionBase<ConvertPrecisionPass> {
  using ConvertPrecisionBase::ConvertPrecisionBase;
  ConvertPrecisionPass(const ConvertPrecisionOptions &options,
                       PrecisionReport *report)
      : ConvertPrecisionBase(options), report(report) {}

  void runOnOperation() override {
    PrecisionConversion options;
    auto computeName = parsePrecision(precision);
    auto ioName = parsePrecision(ioPrecision);
    if (!computeName || !ioName || *ioName == Precision::tf32) {
      getOperation().emitError("unknown precision '")
          << (computeName ? ioPrecision : precision) << "'";
      return signalPassFailure();
    }
    options.compute = *computeName;
    options.io = *ioName;
    options.keepFp32.assign(keepFp32.begin(), keepFp32.end());
    FailureOr<PrecisionReport> done = convertPrecision(getOperation(), options);
    if (failed(done))
      return signalPassFailure();
    if (report)
      *report = std::move(*done);
  }

  /// Where the pipeline wants what the pass did (null: nowhere).
  PrecisionReport *report = nullptr;
};

} // namespace

std::unique_ptr<Pass>
createConvertPrecision(const ConvertPrecisionOptions &options,
                       PrecisionReport *report) {
  return std::make_unique<ConvertPrecisionPass>(options, report);
}

FailureOr<PrecisionReport>
convertPrecision(ModuleOp module, const PrecisionConversion &options) {
  PrecisionReport report;
  if (!options.keepFp32.empty()) {
    llvm::StringSet<> present;
    module.walk([&](Operation *op) {
      SmallVector<StringAttr> names;
      collectNodeNames(op->getLoc(), names);
      for (StringAttr name : names)
        present.insert(name.getValue());
    });
    for (const std::string &name : options.keepFp32)
      if (!present.count(name))
        return module.emitError("--keep-fp32 names '")
               << name
               << "', which no op computes (no node of that name, or one "
                  "folded into constants)";
  }
  if (!narrowsTensors(options.compute) && options.io == Precision::fp32)
    return report;
  Converter converter(module.getContext(), options, report);
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      converter.run(func);
  return report;
}

} // namespace graphc
