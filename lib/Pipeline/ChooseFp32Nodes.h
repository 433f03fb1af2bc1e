//===- ChooseFp32Nodes.h - --keep-fp32 auto ---------------------*- C++ -*-===//
//
// `graphc compile --precision fp16|bf16 --keep-fp32 auto` chooses the ONNX
// nodes that stay in float32 by measuring: the model runs on the cpu
// reference (ReferenceRun) on calibration inputs, once in float32 and then
// narrowed, and nodes whose narrowed values overflow, or where the error
// first exceeds the precision's tolerance (TensorCompare), are kept in
// float32 one round at a time until the outputs agree with float32 or
// nothing left to keep changes them.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_PIPELINE_CHOOSEFP32NODES_H
#define GRAPHC_LIB_PIPELINE_CHOOSEFP32NODES_H

#include "lib/Support/HostTensor.h"
#include "lib/Support/Precision.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace graphc {

/// One --calibration-input: the tensor (named as the model input it is
/// for) and the file it came from.
struct CalibrationInput {
  HostTensor tensor;
  std::string path;
};

/// Narrowed runs --keep-fp32 auto makes at most (each one interpretation
/// of the model on the cpu reference).
constexpr int kMaxFp32Rounds = 16;

/// A node --keep-fp32 auto kept in float32, and why.
struct Fp32Choice {
  std::string node;
  /// overflow: its values do not fit the narrow type (or it makes NaN or
  /// infinity from finite inputs). error: its output is, in graph order,
  /// the first beyond the tolerance (or, already in float32, it reads the
  /// node's narrowed output).
  enum class Rule { overflow, error } rule;
  /// What was measured, for the summary.
  std::string detail;
  /// The narrowed run (1-based) that chose it.
  int round = 0;
};

/// What --keep-fp32 auto found.
struct Fp32Selection {
  std::vector<Fp32Choice> kept;
  /// Narrowed runs made.
  int runs = 0;
  /// Whether the last narrowed run's outputs were all within tolerance.
  bool passed = false;
  /// "x from x.npy, mask random": where the calibration values came from.
  std::string inputs;
  /// The worst output of the last narrowed run against float32.
  std::string outputError;
  /// When not passed: why the search stopped.
  std::string stopReason;
};

/// Chooses the nodes of `model` (imported, with the --shape and --dim
/// sizes applied; it is not changed) to keep in float32 under `compute`
/// (fp16 or bf16), besides `keepFp32` (the nodes named on the command line).
/// Inputs without a calibration value get reproducible random ones (fixed
/// seed: compiles stay deterministic); the calibration values fix the
/// model's remaining dynamic dims. Errors name the input or file.
llvm::Expected<Fp32Selection>
chooseFp32Nodes(mlir::ModuleOp model, llvm::ArrayRef<CalibrationInput> inputs,
                Precision compute, llvm::ArrayRef<std::string> keepFp32);

} // namespace graphc

#endif
