//===- ONNXImporter.h - ONNX models into the graph dialect ------*- C++ -*-===//
//
// The public entry points of the ONNX importer. Nothing here exposes protobuf:
// callers link GraphcImportONNX and see MLIR modules and plain structs.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_IMPORT_ONNX_ONNXIMPORTER_H
#define GRAPHC_LIB_IMPORT_ONNX_ONNXIMPORTER_H

#include "lib/Support/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace graphc {

/// A model input bound to a value at compile time (--const-input NAME=...):
/// it is imported as a constant, so shape inference and folding read it, and
/// is no longer an input.
struct ConstantInput {
  std::string name;
  /// The flag's value as given ("axes=axes.npy"), for errors.
  std::string spec;
  /// From a file: the tensor (dtype set). From a value list: dtype 0 and
  /// `values` holds the numbers as written; they become a tensor of the
  /// input's declared element type, of its declared shape when that is
  /// static and holds as many elements, else 1-D.
  HostTensor tensor;
  std::vector<std::string> values;
};

struct ImportOptions {
  std::vector<ConstantInput> constantInputs;
  /// Tensors with at most this many elements (and all bool tensors) become
  /// plain DenseElementsAttr so that folding and shape inference read them
  /// directly; larger ones become DenseResourceElementsAttr blobs.
  int64_t denseElementLimit = 64;
  /// The most iterations one run of a loop the run decides may take
  /// (graph.loop's max_iterations; --max-loop-iterations): a bound on every
  /// run, so that a loop whose condition stays true fails instead of
  /// hanging. A Loop with a constant trip count below it is bounded by that.
  int64_t maxLoopIterations = int64_t(1) << 20;
};

/// An import error over a value the importer needs at compile time (a Loop's
/// trip count, an If's condition whose branches differ in shape) that is
/// computed from model inputs: binding them with --const-input makes it
/// known. `graphc check` lists the inputs as shape inputs.
class CompileTimeInputError : public llvm::ErrorInfo<CompileTimeInputError> {
public:
  static char ID;
  CompileTimeInputError(std::string message, std::vector<std::string> inputs,
                        std::string node, std::string op, unsigned operand)
      : message(std::move(message)), inputs(std::move(inputs)),
        node(std::move(node)), op(std::move(op)), operand(operand) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

  std::string message;
  /// The model inputs the value is computed from.
  std::vector<std::string> inputs;
  /// The ONNX node and op that need the value, and its input slot.
  std::string node;
  std::string op;
  unsigned operand = 0;
};

/// Imports the ONNX model in `path` as a module holding `func.func @main` in
/// the graph dialect. Loads the graph and func dialects into `context`.
/// Errors are single lines naming the node, value or file at fault.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importONNXModel(llvm::StringRef path, mlir::MLIRContext &context,
                const ImportOptions &options = {});

/// One dim of a model input or output.
struct DimSummary {
  /// The static size, or -1 when the dim is symbolic or unknown.
  int64_t size = -1;
  /// The ONNX dim_param, empty for static or unnamed dims.
  std::string name;
};

/// A model input or output as declared in the ONNX graph.
struct ValueSummary {
  std::string name;
  /// Element type name ("float32", "int64", ...), or the kind of a
  /// non-tensor value ("sequence", "map", ...).
  std::string dtype;
  /// False when the model gives no shape (the rank is unknown).
  bool hasShape = false;
  std::vector<DimSummary> dims;
};

/// How often an op occurs, and whether graphc imports it.
struct OpCount {
  std::string domain;
  std::string opType;
  int64_t count = 0;
  bool supported = true;
  /// Names of the nodes that use an unsupported op.
  std::vector<std::string> nodes;
};

/// What `graphc check` reports; computed from the protobuf alone (external
/// data is not read and no MLIR is built).
struct ModelSummary {
  int64_t irVersion = 0;
  std::string producerName;
  std::string producerVersion;
  /// (domain, version) in the order the model imports them.
  std::vector<std::pair<std::string, int64_t>> opsets;
  /// When the default-domain opset is older than graphc imports and ONNX's
  /// version converter upgraded it: the opsets before and after, else 0.
  int64_t convertedFromOpset = 0;
  int64_t convertedToOpset = 0;
  /// Op histogram, most frequent first.
  std::vector<OpCount> ops;
  std::vector<ValueSummary> inputs;
  std::vector<ValueSummary> outputs;
  /// Elements and bytes of initializers and Constant node tensors.
  int64_t parameterCount = 0;
  int64_t weightBytes = 0;
  /// Bytes of the above stored in external data files.
  int64_t externalWeightBytes = 0;
  int64_t nodeCount = 0;
  /// One line per reason the model cannot be imported (unsupported ops or
  /// opset, string inputs, ...). Empty when the model is supported.
  std::vector<std::string> problems;
};

/// Summarises the ONNX model in `path` without reading external data.
llvm::Expected<ModelSummary> summarizeONNXModel(llvm::StringRef path);

/// The default-domain opsets this graphc imports, for `graphc --version`:
/// e.g. "11-22 (1-10 through ONNX's version converter)".
std::string describeSupportedOpsets();

} // namespace graphc

#endif
