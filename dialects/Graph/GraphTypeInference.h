//===- GraphTypeInference.h - shared result-type inference ------*- C++ -*-===//
//
// The pieces every graph op's inferResultTypes is built from. Inference runs
// on operands and attributes alone (the importer calls it before an op
// exists), so it must reject everything a user can get wrong with a message
// rather than assume the op verified.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_DIALECTS_GRAPH_GRAPHTYPEINFERENCE_H
#define GRAPHC_DIALECTS_GRAPH_GRAPHTYPEINFERENCE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/TypeRange.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace graphc::graph {

/// Where an inference reports its errors. Errors are emitted only when the
/// caller gave a location; inference fails either way.
class TypeInference {
public:
  TypeInference(mlir::MLIRContext *context,
                std::optional<mlir::Location> location)
      : context(context), location(location) {}

  mlir::MLIRContext *getContext() const { return context; }

  /// Emits `message` when a location is known; always returns failure.
  mlir::LogicalResult emitError(const llvm::Twine &message) const;

  /// Checks what the generated adaptors rely on: every operand is a ranked
  /// tensor and, when `numSlots` >= 0, `operandSegmentSizes` has one
  /// non-negative entry per slot and the entries add up to the operands.
  mlir::LogicalResult checkOperands(mlir::ValueRange operands,
                                    mlir::DictionaryAttr attributes,
                                    int64_t numSlots) const;

  /// Runs the ODS attribute checks of an adaptor (`verify(loc)`), reporting
  /// nothing when no location was given.
  mlir::LogicalResult checkAttributes(
      llvm::function_ref<mlir::LogicalResult(mlir::Location)> verify) const;

  /// `axis` in [-rank, rank) made non-negative; `what` names it in errors.
  mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                         llvm::StringRef what = "axis") const;

  /// Normalises every axis and rejects repeats.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  normalizeAxes(llvm::ArrayRef<int64_t> axes, int64_t rank,
                llvm::StringRef what = "axes") const;

private:
  mlir::MLIRContext *context;
  std::optional<mlir::Location> location;
};

/// The ranked type of a value that checkOperands accepted.
inline mlir::RankedTensorType rankedType(mlir::Value value) {
  return mlir::cast<mlir::RankedTensorType>(value.getType());
}

/// Product of dims, dynamic when any dim is; nullopt when it overflows.
std::optional<int64_t> multiplyDims(llvm::ArrayRef<int64_t> dims);

/// True when every static dim is non-negative and the static dims other than
/// zeros, times `elementBytes`, fit in int64_t: then no product of some of
/// the dims (element counts, strides, byte sizes) can overflow.
bool isRepresentableShape(llvm::ArrayRef<int64_t> dims, int64_t elementBytes);

/// The value of a one-element constant (of any static shape), if `value` is
/// one. Larger constants are not read: rewrites looking for a scalar never
/// want a weight.
std::optional<double> getScalarConstant(mlir::Value value);

/// The numeric contents of a constant value as doubles (any element type).
std::optional<llvm::SmallVector<double>> getConstantNumbers(mlir::Value value);
/// The contents of a numeric constant as doubles, dense or a resource blob.
std::optional<llvm::SmallVector<double>>
getConstantNumbers(mlir::ElementsAttr attr);

/// The length of a 1-D operand, or failure (with an error) when it is not
/// 1-D; dynamic when its only dim is.
mlir::FailureOr<int64_t> vectorLength(const TypeInference &infer,
                                      mlir::Value value, llvm::StringRef name);

/// The dims [first, last) that graph.shape selects from a rank-`rank`
/// input: negative bounds count from the back, both are clamped.
std::pair<int64_t, int64_t> shapeDimRange(int64_t rank, int64_t start,
                                          std::optional<int64_t> end);

/// Result type equal to the operand type.
mlir::LogicalResult inferSameType(mlir::Value input,
                                  llvm::SmallVectorImpl<mlir::Type> &results);

/// Result with the operand's shape and `elementType`.
mlir::LogicalResult inferSameShape(mlir::Value input, mlir::Type elementType,
                                   llvm::SmallVectorImpl<mlir::Type> &results);

/// Numpy broadcast of all operands (at least one). The result element type
/// is `elementType`, or the shared element type of the operands when null
/// (operands of different element types are then an error).
mlir::LogicalResult inferBroadcast(const TypeInference &infer,
                                   mlir::ValueRange operands,
                                   mlir::Type elementType,
                                   llvm::SmallVectorImpl<mlir::Type> &results);

/// Reductions over an optional axes operand.
mlir::LogicalResult inferReduction(const TypeInference &infer, mlir::Value data,
                                   mlir::Value axes, int64_t keepDims,
                                   int64_t noopWithEmptyAxes,
                                   llvm::SmallVectorImpl<mlir::Type> &results);

/// arg_max / arg_min: i64 indices with `axis` removed or kept as 1.
mlir::LogicalResult
inferArgReduction(const TypeInference &infer, mlir::Value data, int64_t axis,
                  int64_t keepDims, llvm::SmallVectorImpl<mlir::Type> &results);

/// Global pooling: [N, C, d...] -> [N, C, 1...].
mlir::LogicalResult inferGlobalPool(const TypeInference &infer,
                                    mlir::Value input,
                                    llvm::SmallVectorImpl<mlir::Type> &results);

} // namespace graphc::graph

#endif
