//===- Verify.h - what the parts of `graphc verify` share -------*- C++ -*-===//
//
// `graphc verify` in three files: VerifyCommand.cpp loads the model and the
// artifact, makes the inputs and compares the outputs of each run;
// VerifyBisect.cpp compares each step's results through a probing session
// when an output fails; VerifyReport.cpp prints what they found, as text or
// JSON.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_TOOLS_GRAPHC_VERIFY_H
#define GRAPHC_TOOLS_GRAPHC_VERIFY_H

#include "graphc/runtime.h"
#include "lib/Pipeline/ReferenceRun.h"
#include "lib/Support/ErrorDiagnosis.h"
#include "lib/Support/HostTensor.h"
#include "lib/Support/Precision.h"
#include "lib/Support/TensorCompare.h"
#include "tools/graphc/ArtifactFile.h"
#include "tools/graphc/RuntimeSupport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace graphc::tools {

/// The command line of `graphc verify`.
struct VerifyOptions {
  std::string model, artifact;
  /// NAME=FILE (.npy or ONNX TensorProto .pb).
  std::vector<std::string> inputs;
  /// Runs on pseudo-random inputs (seeds 0..N-1); 0: one run when an
  /// input is not given, none otherwise.
  int randomInputs = 0;
  /// NAME=SIZE for the dynamic dims of random inputs.
  std::vector<std::string> dims;
  /// --const-input, as the artifact was compiled with: these inputs are
  /// constants of the reference model too.
  std::vector<std::string> constInputs;
  std::optional<double> rtol, atol;
  /// Empty: the artifact's.
  std::string precision;
  bool json = false;
  bool all = false;
  int device = 0;
};

/// An input of the ONNX model (@main's argument).
struct ModelInput {
  std::string name;
  mlir::RankedTensorType type;
};

/// One compared tensor: an output, or a step's result.
struct Comparison {
  std::string name;
  int32_t dtype = 0;
  std::vector<int64_t> dims;
  /// Set when compared; otherwise `why` says why not.
  std::optional<TensorErrors> errors;
  std::string why;
  bool within = false;
};

/// A step's result compared with the reference.
struct StepComparison {
  int32_t step = 0, result = 0;
  std::string kernel, kind, nodes;
  /// The ONNX node that computes the tensor the result holds.
  std::string node;
  Comparison comparison;
  std::optional<Diagnosis> diagnosis;
};

/// One run: its outputs against the reference and, when bisected, its
/// steps'.
struct RunReport {
  int index = 0;
  /// "seed 3", or "input files".
  std::string inputs;
  std::string plan;
  std::vector<Comparison> outputs;
  bool passed = true;
  /// Whether the steps were probed, and what they gave: with --all every
  /// result, otherwise up to the first out of tolerance.
  bool bisected = false;
  int32_t numSteps = 0;
  std::vector<StepComparison> steps;
  /// Index in `steps` of the first result out of tolerance, -1 when none.
  int firstFailing = -1;
  /// Results that hold no ONNX tensor the reference computes, or whose
  /// plan dims are padded past the reference's.
  int uncompared = 0;
  /// Results compared.
  int compared = 0;
  /// Outputs whose bytes differ between the probing run and the plain one
  /// (a nondeterministic kernel, or probing that changed a launch).
  std::vector<std::string> probedOutputsDiffer;
};

/// `got` against `ref` within `tolerance`; when the two cannot be compared,
/// `why` says why.
Comparison compare(const HostTensor &got, const HostTensor &ref,
                   const Tolerance &tolerance);

/// "[2,3,224,224]".
std::string dimsText(llvm::ArrayRef<int64_t> dims);

/// One `graphc verify`: its members are defined by concern in
/// VerifyCommand.cpp (the runs), VerifyBisect.cpp (the steps) and
/// VerifyReport.cpp (the output).
class Verifier {
public:
  explicit Verifier(const VerifyOptions &options) : options(options) {}
  /// Whether every output of every run is within tolerance.
  llvm::Expected<bool> run();

private:
  // VerifyCommand.cpp
  llvm::Error parseDims();
  llvm::Error loadModels();
  llvm::Error checkInterface();
  llvm::Error readInputFiles();
  llvm::Expected<std::vector<int64_t>> randomInputDims(int32_t input);
  /// The inputs of run `index`: the artifact's (its dtypes) and the
  /// reference's (the ONNX model's).
  llvm::Error makeInputs(int index, std::vector<HostTensor> &artifactInputs,
                         std::vector<HostTensor> &referenceInputs);
  /// Runs `session` on the inputs; its outputs, and the plan it ran.
  llvm::Expected<std::vector<HostTensor>>
  runArtifact(graphc_session *session, std::vector<HostTensor> &inputs,
              int32_t &planIndex);
  llvm::Expected<RunReport> verifyRun(int index,
                                      std::vector<HostTensor> &artifactInputs,
                                      const std::vector<HostTensor> &refInputs);

  // VerifyBisect.cpp
  /// Runs the inputs again through the probing session (made on first use)
  /// and notes the outputs that differ from the plain run's `outputs`.
  llvm::Error runProbed(RunReport &report,
                        std::vector<HostTensor> &artifactInputs,
                        const std::vector<HostTensor> &outputs);
  /// Compares the probed step results with `reference`, in step order.
  llvm::Error bisect(RunReport &report, const ReferenceValues &reference);

  // VerifyReport.cpp
  void printHeader();
  void printRun(const RunReport &report);
  llvm::json::Object runJson(const RunReport &report);

  graphc_tensor_info inputInfo(int32_t index) {
    graphc_tensor_info info;
    graphc_status_free(graphc_model_input_info(model(), index, &info));
    return info;
  }
  graphc_model *model() { return open.model.get(); }

  const VerifyOptions &options;
  Tolerance tolerance;
  Precision precision = Precision::fp32;
  bool precisionFromFlag = false;
  llvm::StringMap<int64_t> dimSizes;
  ArtifactFile artifactFile;
  OpenModel open;
  /// A session of the same model with GRAPHC_SESSION_PROBE_STEPS.
  SessionPtr probeSession{nullptr, graphc_session_release};
  bool cuda = false;
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<ModelInput> modelInputs;
  /// Per artifact input, the tensor read from its --input file, if any.
  std::vector<std::optional<HostTensor>> givenInputs;
  int runs = 1;
  bool anyRandom = false;
  /// The ONNX tensors the reference records: those step results hold, and
  /// the inputs of the nodes that compute them.
  llvm::StringSet<> probedTensors;
  /// @main's values by the ONNX tensor they hold.
  llvm::StringMap<mlir::Value> valuesByName;
};

} // namespace graphc::tools

#endif
