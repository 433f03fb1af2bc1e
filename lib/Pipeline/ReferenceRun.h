//===- ReferenceRun.h - a model on the cpu reference, op by op --*- C++ -*-===//
//
// graphc's cpu reference of a model: every graph op through its host kernel
// (the kernels constant folding uses), one op at a time, in the order of the
// graph, nothing fused and nothing narrowed that the graph does not narrow.
// Each value it computes can be observed, and the ONNX tensors graph ops
// record (graph::onnxTensorName) are collected by name, so that a run of an
// artifact can be compared with it tensor by tensor. Shared by
// --assume-pad-safe's check, graphc verify and --keep-fp32 auto.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_PIPELINE_REFERENCERUN_H
#define GRAPHC_LIB_PIPELINE_REFERENCERUN_H

#include "lib/Support/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace graphc {

/// Runs `func` (static shapes) op by op through the host kernels on one
/// dense row-major buffer per argument. `observe`, when given, sees every
/// op result as it is computed (constants included). Returns one buffer per
/// result of the function.
llvm::Expected<std::vector<std::vector<char>>> interpretOnHost(
    mlir::func::FuncOp func, llvm::ArrayRef<std::vector<char>> inputs,
    llvm::function_ref<void(mlir::Value, const std::vector<char> &)> observe =
        nullptr);

/// Reproducible pseudo-random contents for a tensor of `type`, the same on
/// every machine: floats uniform in [-1, 1), integers and booleans 0 or 1
/// (valid as token ids, masks and indices alike).
std::vector<char> randomTensorBytes(mlir::RankedTensorType type,
                                    uint64_t seed);

/// Fixes @main of `module` (as imported) to the dims of `inputs` (matched
/// by name; every dynamic input dim must be given) and folds its shape
/// computations, so that every op has static shapes for interpretOnHost.
/// No other rewrite runs: each op is still the ONNX node it came from.
llvm::Error specializeForReference(mlir::ModuleOp module,
                                   llvm::ArrayRef<HostTensor> inputs);

/// One run of a model on the cpu reference.
struct ReferenceValues {
  /// The ONNX tensors the run computed or read (inputs, initializers, node
  /// outputs) that `keep` accepted, by name; dims and dtype as computed.
  llvm::StringMap<HostTensor> tensors;
  /// Those names in the order the run computed them.
  std::vector<std::string> order;
  /// The ONNX node that computed each node output (inputs and initializers
  /// have none), by tensor name.
  llvm::StringMap<std::string> producers;
  /// The model's outputs, in order, named as the model names them.
  std::vector<HostTensor> outputs;
};

/// Runs @main of `module` (static shapes: see specializeForReference) on
/// `inputs`, matched to its arguments by name; each must have the
/// argument's dtype and dims. Records the ONNX tensors `keep` accepts (all
/// when it is null).
llvm::Expected<ReferenceValues>
runReference(mlir::ModuleOp module, llvm::ArrayRef<HostTensor> inputs,
             llvm::function_ref<bool(llvm::StringRef)> keep = nullptr);

} // namespace graphc

#endif
