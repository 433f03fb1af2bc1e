//===- VerifyCommand.cpp - `graphc verify` --------------------------------===//
//
// Runs a compiled model on its target and graphc's float32 cpu reference of
// the ONNX model on the same inputs, and reports each output's error
// against the reference (lib/Support/TensorCompare: one definition of
// "within tolerance"). Exit status 0 when every output of every run is
// within tolerance, 1 otherwise, so that CI can gate on it.
//
// When an output fails (or with --all) it bisects without changing the
// artifact: the session probes every step (GRAPHC_SESSION_PROBE_STEPS, a
// copy of each step's results after the step; the launches are those of a
// plain run), each result is compared with the reference value of the ONNX
// tensor it holds, and the first step out of tolerance is reported with its
// kernel, the ONNX nodes it covers and a diagnosis where one is evident
// (lib/Support/ErrorDiagnosis).
//
//===----------------------------------------------------------------------===//

#include "tools/graphc/Commands.h"

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "graphc/runtime.h"
#include "lib/Import/ONNX/ONNXImporter.h"
#include "lib/Pipeline/Pipeline.h"
#include "lib/Pipeline/ReferenceRun.h"
#include "lib/Support/CheckedArith.h"
#include "lib/Support/ElementValue.h"
#include "lib/Support/ErrorDiagnosis.h"
#include "lib/Support/HostTensor.h"
#include "lib/Support/Precision.h"
#include "lib/Support/TensorCompare.h"
#include "runtime/src/Staging.h"
#include "tools/graphc/ArtifactFile.h"
#include "tools/graphc/RuntimeSupport.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstring>
#include <new>
#include <optional>

namespace graphc::tools {

namespace {

struct VerifyOptions {
  std::string model, artifact;
  /// NAME=FILE (.npy or ONNX TensorProto .pb).
  std::vector<std::string> inputs;
  /// Runs on pseudo-random inputs (seeds 0..N-1); 0: one run when an
  /// input is not given, none otherwise.
  int randomInputs = 0;
  /// NAME=SIZE for the dynamic dims of random inputs.
  std::vector<std::string> dims;
  std::optional<double> rtol, atol;
  /// Empty: the artifact's.
  std::string precision;
  bool json = false;
  bool all = false;
  int device = 0;
};

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                 message.str().c_str());
}

std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (std::isnan(value))
    os << "nan";
  else if (std::isinf(value))
    os << (value < 0 ? "-inf" : "inf");
  else
    os << llvm::format("%.4g", value);
  return text;
}

std::string dimsText(llvm::ArrayRef<int64_t> dims) {
  std::string text = "[";
  for (auto [i, dim] : llvm::enumerate(dims))
    text += (i ? "," : "") + std::to_string(dim);
  return text + "]";
}

/// `text` cut to `width` characters, "..." marking the cut.
std::string clip(llvm::StringRef text, size_t width) {
  if (text.size() <= width)
    return text.str();
  return text.take_front(width - 3).str() + "...";
}

/// A JSON number, or null for NaN and infinities (which JSON lacks), with
/// the sign of an infinity kept as a string.
llvm::json::Value jsonNumber(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  return value;
}

/// Which precision the artifact computes in: bf16 or fp16 when any kernel
/// or step result holds that type, tf32 when a library GEMM or convolution
/// rounds to it, fp32 otherwise.
Precision artifactPrecision(const rt::ArtifactView &view) {
  bool bf16 = false, fp16 = false, tf32 = false;
  auto see = [&](int32_t dtype) {
    bf16 |= dtype == 16;
    fp16 |= dtype == 10;
  };
  for (const rt::ArtifactPlan &plan : view.plans)
    for (const rt::ArtifactStep &step : plan.steps)
      for (const rt::ArtifactStepResult &result : step.results)
        see(result.dtype);
  for (const rt::ArtifactKernel &kernel : view.kernels) {
    see(kernel.flopDtype);
    if (kernel.gemm) {
      see(kernel.gemm->dtype);
      tf32 |= kernel.gemm->tf32 != 0;
    }
    if (kernel.conv) {
      see(kernel.conv->dtype);
      tf32 |= kernel.conv->tf32 != 0;
    }
    if (kernel.sdpa)
      see(kernel.sdpa->dtype);
  }
  if (bf16)
    return Precision::bf16;
  if (fp16)
    return Precision::fp16;
  return tf32 ? Precision::tf32 : Precision::fp32;
}

/// `tensor` converted element by element to `dtype` (a float dtype), as
/// the reference sees an input the artifact takes in a narrower type.
HostTensor convertTensor(const HostTensor &tensor, int32_t dtype) {
  HostTensor converted{tensor.name, dtype, tensor.dims, {}};
  size_t from = elementValueSize(tensor.dtype), to = graphc_dtype_size(dtype);
  if (!from || !to)
    return tensor;
  size_t count = tensor.data.size() / from;
  converted.data.resize(count * to);
  for (size_t i = 0; i < count; ++i) {
    unsigned char pattern[8];
    rt::padPattern(dtype,
                   elementAsDouble(tensor.dtype, tensor.data.data() + i * from),
                   pattern);
    std::memcpy(converted.data.data() + i * to, pattern, to);
  }
  return converted;
}

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

Comparison compare(const HostTensor &got, const HostTensor &ref,
                   const Tolerance &tolerance) {
  Comparison comparison;
  comparison.name = got.name;
  comparison.dtype = got.dtype;
  comparison.dims = got.dims;
  std::string why;
  comparison.errors = compareTensors(got, ref, why);
  if (!comparison.errors) {
    comparison.why = why + " (" + graphc_dtype_name(got.dtype) +
                     dimsText(got.dims) + " against the reference's " +
                     graphc_dtype_name(ref.dtype) + dimsText(ref.dims) + ")";
    return comparison;
  }
  comparison.within = comparison.errors->within(tolerance);
  return comparison;
}

class Verifier {
public:
  explicit Verifier(const VerifyOptions &options) : options(options) {}
  /// Whether every output of every run is within tolerance.
  llvm::Expected<bool> run();

private:
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
  llvm::Error bisect(RunReport &report, const ReferenceValues &reference);
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

llvm::Error Verifier::parseDims() {
  for (const std::string &spec : options.dims) {
    llvm::StringRef name, size;
    std::tie(name, size) = llvm::StringRef(spec).split('=');
    int64_t value = 0;
    if (name.empty() || size.empty() || size.getAsInteger(10, value) ||
        value < 1)
      return fail("--dim '" + spec + "': expected NAME=SIZE with SIZE >= 1");
    if (dimSizes.count(name))
      return fail("--dim '" + name + "' is given twice");
    dimSizes[name] = value;
  }
  return llvm::Error::success();
}

llvm::Error Verifier::loadModels() {
  llvm::Expected<ArtifactFile> file = readArtifactFile(options.artifact);
  if (!file)
    return file.takeError();
  artifactFile = std::move(*file);
  // A plain session: the probing one, with its probe buffer, is made only
  // when a run is bisected.
  auto opened = openModel(options.artifact, options.device, 0u);
  if (!opened)
    return opened.takeError();
  open = std::move(*opened);
  cuda = graphc_model_target(model()) == GRAPHC_TARGET_CUDA;

  mlir::DialectRegistry registry;
  registerGraphcDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  context.disableMultithreading();
  auto imported = importONNXModel(options.model, context);
  if (!imported)
    return imported.takeError();
  module = std::move(*imported);
  auto main = module->lookupSymbol<mlir::func::FuncOp>("main");
  if (!main)
    return fail("'" + options.model + "' has no main graph");
  for (unsigned i = 0; i < main.getNumArguments(); ++i) {
    auto name = main.getArgAttrOfType<mlir::StringAttr>(i, graph::kNameAttr);
    auto type =
        llvm::dyn_cast<mlir::RankedTensorType>(main.getArgument(i).getType());
    if (!name || !type)
      return fail("'" + options.model + "': input " + std::to_string(i) +
                  " has no name or no ranked tensor type");
    modelInputs.push_back({name.str(), type});
  }
  return llvm::Error::success();
}

llvm::Error Verifier::checkInterface() {
  std::string mismatch =
      "'" + options.artifact + "' does not match '" + options.model + "': ";
  int32_t count = graphc_model_input_count(model());
  llvm::StringSet<> artifactNames;
  for (int32_t i = 0; i < count; ++i) {
    graphc_tensor_info info = inputInfo(i);
    artifactNames.insert(info.name);
    const ModelInput *input = nullptr;
    for (const ModelInput &candidate : modelInputs)
      if (candidate.name == info.name)
        input = &candidate;
    if (!input)
      return fail(mismatch + "input '" + info.name +
                  "' of the artifact is not an input of the model");
    int32_t dtype = graph::toHostDtype(input->type.getElementType());
    llvm::ArrayRef<int64_t> dims(info.dims, info.rank);
    // --io-precision: the artifact may take a float32 input narrower.
    bool narrowed = dtype == 1 && (info.dtype == 10 || info.dtype == 16);
    bool matches =
        (info.dtype == dtype || narrowed) && info.rank == input->type.getRank();
    for (int32_t d = 0; matches && d < info.rank; ++d)
      matches = input->type.isDynamicDim(d) || dims[d] < 0 ||
                dims[d] == input->type.getDimSize(d);
    if (!matches) {
      std::vector<int64_t> modelDims;
      for (int64_t dim : input->type.getShape())
        modelDims.push_back(mlir::ShapedType::isDynamic(dim) ? -1 : dim);
      return fail(mismatch + "input '" + info.name + "' is " +
                  describeType(info.dtype, dims) + " in the artifact, " +
                  describeType(dtype, modelDims) + " in the model");
    }
  }
  for (const ModelInput &input : modelInputs)
    if (!artifactNames.contains(input.name))
      return fail(mismatch + "input '" + input.name +
                  "' of the model is not an input of the artifact");
  auto main = module->lookupSymbol<mlir::func::FuncOp>("main");
  int32_t outputs = graphc_model_output_count(model());
  if (outputs != static_cast<int32_t>(main.getNumResults()))
    return fail(mismatch + "the artifact has " + std::to_string(outputs) +
                " outputs, the model " + std::to_string(main.getNumResults()));
  for (int32_t o = 0; o < outputs; ++o) {
    graphc_tensor_info info;
    if (graphc_status status = graphc_model_output_info(model(), o, &info))
      return toError(status);
    auto name = main.getResultAttrOfType<mlir::StringAttr>(o, graph::kNameAttr);
    if (name && name.getValue() != info.name)
      return fail(mismatch + "output " + std::to_string(o) + " is '" +
                  info.name + "' in the artifact, '" + name.getValue() +
                  "' in the model");
  }
  return llvm::Error::success();
}

llvm::Error Verifier::readInputFiles() {
  int32_t count = graphc_model_input_count(model());
  givenInputs.assign(count, std::nullopt);
  for (const std::string &spec : options.inputs) {
    std::string name, path;
    llvm::Expected<HostTensor> tensor = readTensorArgument(spec, name, path);
    if (!tensor)
      return tensor.takeError();
    if (name.empty())
      return fail("--input '" + spec + "': give it as NAME=FILE");
    int32_t index = -1;
    std::string known;
    for (int32_t i = 0; i < count; ++i) {
      known += (i ? ", " : "") + std::string(inputInfo(i).name);
      if (name == inputInfo(i).name)
        index = i;
    }
    if (index < 0)
      return fail("input '" + name + "' (from '" + path +
                  "'): the artifact has no input of that name (its inputs: " +
                  known + ")");
    if (givenInputs[index])
      return fail("input '" + name + "' is given twice");
    if (llvm::Error error = checkInputType(*tensor, path, inputInfo(index)))
      return error;
    tensor->name = name;
    givenInputs[index] = std::move(*tensor);
  }
  anyRandom = llvm::any_of(givenInputs, [](auto &t) { return !t; });
  if (options.randomInputs < 0)
    return fail("--random-inputs must be at least 1");
  if (!anyRandom && options.randomInputs > 0)
    return fail("--random-inputs: every input is given by --input");
  runs = anyRandom ? std::max(options.randomInputs, 1) : 1;

  // Every --dim must name a dynamic dim of some input.
  for (const auto &entry : dimSizes) {
    bool found = false;
    for (int32_t i = 0; i < count && !found; ++i) {
      graphc_tensor_info info = inputInfo(i);
      for (int32_t d = 0; d < info.rank && !found; ++d)
        found = info.dims[d] < 0 && entry.getKey() == info.dim_names[d];
    }
    if (!found)
      return fail("--dim '" + entry.getKey() +
                  "': no dynamic input dim of the artifact has that name");
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<int64_t>> Verifier::randomInputDims(int32_t input) {
  graphc_tensor_info info = inputInfo(input);
  std::vector<int64_t> dims(info.dims, info.dims + info.rank);
  for (int32_t d = 0; d < info.rank; ++d) {
    if (dims[d] >= 0)
      continue;
    llvm::StringRef name = info.dim_names[d];
    if (!name.empty()) {
      if (auto it = dimSizes.find(name); it != dimSizes.end()) {
        dims[d] = it->second;
        continue;
      }
      // A dim a given input fixes.
      for (int32_t i = 0; i < graphc_model_input_count(model()) && dims[d] < 0;
           ++i) {
        graphc_tensor_info other = inputInfo(i);
        if (!givenInputs[i])
          continue;
        for (int32_t e = 0; e < other.rank; ++e)
          if (other.dims[e] < 0 && name == other.dim_names[e])
            dims[d] = givenInputs[i]->dims[e];
      }
      if (dims[d] >= 0)
        continue;
      // A bucketed dim: its smallest bucket.
      for (int32_t b = 0; b < graphc_model_bucket_dim_count(model()); ++b) {
        graphc_bucket_dim_info bucket;
        if (graphc_status status =
                graphc_model_bucket_dim_info(model(), b, &bucket))
          return toError(status);
        if (name == bucket.name && bucket.num_sizes > 0)
          dims[d] =
              *std::min_element(bucket.sizes, bucket.sizes + bucket.num_sizes);
      }
      if (dims[d] >= 0)
        continue;
    }
    // Otherwise the first plan's size.
    graphc_plan_info plan;
    if (graphc_model_plan_count(model()) > 0 &&
        !graphc_model_plan_info(model(), 0, &plan))
      dims[d] = plan.input_dims[input][d];
    if (dims[d] < 0)
      return fail("input '" + std::string(info.name) + "': dim " +
                  std::to_string(d) + " is dynamic; give its size with --dim");
  }
  return dims;
}

llvm::Error Verifier::makeInputs(int index,
                                 std::vector<HostTensor> &artifactInputs,
                                 std::vector<HostTensor> &referenceInputs) {
  artifactInputs.clear();
  referenceInputs.clear();
  int32_t count = graphc_model_input_count(model());
  for (int32_t i = 0; i < count; ++i) {
    graphc_tensor_info info = inputInfo(i);
    HostTensor tensor;
    if (givenInputs[i]) {
      tensor = *givenInputs[i];
    } else {
      llvm::Expected<std::vector<int64_t>> dims = randomInputDims(i);
      if (!dims)
        return dims.takeError();
      std::optional<int64_t> bytes =
          checkedByteSize(*dims, graphc_dtype_size(info.dtype));
      if (!bytes || *bytes > (int64_t(1) << 34))
        return fail("input '" + std::string(info.name) +
                    "': " + describeType(info.dtype, *dims) +
                    " is too large for random inputs");
      auto type = mlir::RankedTensorType::get(
          *dims, graph::fromHostDtype(&context, info.dtype));
      // Each input its own stream, each run its own seed.
      tensor = HostTensor{
          info.name, info.dtype, *dims,
          randomTensorBytes(type, uint64_t(index) * 1000003 + uint64_t(i))};
    }
    const ModelInput *input = nullptr;
    for (const ModelInput &candidate : modelInputs)
      if (candidate.name == info.name)
        input = &candidate;
    int32_t modelDtype = graph::toHostDtype(input->type.getElementType());
    referenceInputs.push_back(tensor.dtype == modelDtype
                                  ? tensor
                                  : convertTensor(tensor, modelDtype));
    artifactInputs.push_back(std::move(tensor));
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<HostTensor>>
Verifier::runArtifact(graphc_session *session,
                      std::vector<HostTensor> &artifactInputs,
                      int32_t &planIndex) {
  DLDevice device =
      cuda ? DLDevice{kDLCUDA, options.device} : DLDevice{kDLCPU, 0};
  SessionBuffers buffers(session);

  std::vector<DLTensor> inputs;
  std::vector<const char *> names;
  std::vector<int32_t> ranks;
  std::vector<const int64_t *> dims;
  for (HostTensor &host : artifactInputs) {
    llvm::Expected<DLTensor> tensor =
        bindTensor(host, device, cuda, /*upload=*/true, buffers, session);
    if (!tensor)
      return tensor.takeError();
    inputs.push_back(*tensor);
    names.push_back(host.name.c_str());
    ranks.push_back(tensor->ndim);
    dims.push_back(host.dims.data());
  }
  int32_t numInputs = static_cast<int32_t>(inputs.size());
  if (graphc_status status =
          graphc_model_select_plan(model(), numInputs, names.data(),
                                   ranks.data(), dims.data(), &planIndex))
    return toError(status);

  int32_t numOutputs = graphc_model_output_count(model());
  std::vector<HostTensor> outputs(numOutputs);
  std::vector<int64_t *> outputDims(numOutputs);
  for (int32_t o = 0; o < numOutputs; ++o) {
    graphc_tensor_info info;
    if (graphc_status status = graphc_model_output_info(model(), o, &info))
      return toError(status);
    outputs[o].name = info.name;
    outputs[o].dtype = info.dtype;
    outputs[o].dims.assign(info.rank, 0);
    outputDims[o] = outputs[o].dims.data();
  }
  if (graphc_status status = graphc_model_output_dims(
          model(), numInputs, names.data(), ranks.data(), dims.data(),
          outputDims.data()))
    return toError(status);
  std::vector<DLTensor> outputTensors;
  for (HostTensor &host : outputs) {
    std::optional<int64_t> bytes =
        checkedByteSize(host.dims, graphc_dtype_size(host.dtype));
    if (!bytes)
      return fail("output '" + host.name + "' is too large to allocate");
    try {
      host.data.assign(static_cast<size_t>(*bytes), 0);
    } catch (const std::bad_alloc &) {
      return fail("out of memory: cannot allocate " + std::to_string(*bytes) +
                  " bytes for output '" + host.name + "'");
    }
    llvm::Expected<DLTensor> tensor =
        bindTensor(host, device, cuda, /*upload=*/false, buffers, session);
    if (!tensor)
      return tensor.takeError();
    outputTensors.push_back(*tensor);
  }
  if (graphc_status status =
          graphc_session_run(session, inputs.data(), numInputs, names.data(),
                             outputTensors.data(), numOutputs))
    return toError(status);
  if (cuda)
    for (auto [host, tensor] : llvm::zip(outputs, outputTensors))
      if (graphc_status status = graphc_session_download(
              session, host.data.data(), tensor.data, host.data.size()))
        return toError(status);

  return outputs;
}

llvm::Expected<RunReport>
Verifier::verifyRun(int index, std::vector<HostTensor> &artifactInputs,
                    const std::vector<HostTensor> &refInputs) {
  RunReport report;
  report.index = index;
  report.inputs = anyRandom ? "seed " + std::to_string(index) : "input files";
  int32_t planIndex = -1;
  llvm::Expected<std::vector<HostTensor>> outputs =
      runArtifact(open.session.get(), artifactInputs, planIndex);
  if (!outputs)
    return outputs.takeError();
  graphc_plan_info plan;
  if (graphc_status status = graphc_model_plan_info(model(), planIndex, &plan))
    return toError(status);
  report.plan = plan.name;
  report.numSteps = plan.num_steps;

  // The ONNX tensors the plan's steps hold, and the inputs of the nodes
  // computing them, are what the reference keeps.
  if (planIndex >= 0 &&
      static_cast<size_t>(planIndex) < artifactFile.view.plans.size())
    for (const rt::ArtifactStep &step :
         artifactFile.view.plans[planIndex].steps)
      for (const rt::ArtifactStepResult &result : step.results) {
        llvm::StringRef tensor = result.onnxTensor;
        if (tensor.empty() || !probedTensors.insert(tensor).second)
          continue;
        auto value = valuesByName.find(tensor);
        if (value == valuesByName.end() || !value->second.getDefiningOp())
          continue;
        for (mlir::Value operand : value->second.getDefiningOp()->getOperands())
          if (llvm::StringRef name = graph::onnxTensorName(operand);
              !name.empty())
            probedTensors.insert(name);
      }

  auto keep = [&](llvm::StringRef name) {
    return probedTensors.contains(name);
  };
  llvm::Expected<ReferenceValues> reference =
      runReference(*module, refInputs, keep);
  if (!reference)
    return reference.takeError();
  for (auto [got, ref] : llvm::zip(*outputs, reference->outputs)) {
    report.outputs.push_back(compare(got, ref, tolerance));
    report.passed &= report.outputs.back().within;
  }
  if (report.passed && !options.all)
    return report;

  // The bisect: the same inputs through a probing session.
  if (!probeSession) {
    graphc_session_options sessionOptions;
    graphc_session_options_init(&sessionOptions);
    sessionOptions.device_ordinal = options.device;
    sessionOptions.flags = GRAPHC_SESSION_PROBE_STEPS;
    graphc_session *session = nullptr;
    if (graphc_status status =
            graphc_session_create(model(), &sessionOptions, &session))
      return toError(status);
    probeSession.reset(session);
  }
  int32_t probedPlan = -1;
  llvm::Expected<std::vector<HostTensor>> probedOutputs =
      runArtifact(probeSession.get(), artifactInputs, probedPlan);
  if (!probedOutputs)
    return probedOutputs.takeError();
  // Probing changes no launch: the outputs are the plain run's.
  for (auto [probed, plain] : llvm::zip(*probedOutputs, *outputs))
    if (probed.data != plain.data)
      report.probedOutputsDiffer.push_back(plain.name);
  if (llvm::Error error = bisect(report, *reference))
    return std::move(error);
  return report;
}

void Verifier::printHeader() {
  llvm::outs() << "verify '" << options.artifact << "' ("
               << (cuda ? "cuda" : "cpu") << ") against '" << options.model
               << "' on graphc's float32 cpu reference\n"
               << "precision " << precisionName(precision)
               << (precisionFromFlag ? " (--precision)" : " (the artifact's)")
               << ": tolerance atol " << formatNumber(tolerance.atol)
               << " + rtol " << formatNumber(tolerance.rtol)
               << " * max |reference|\n";
}

/// "max abs error 3.2e-05 (rel 1.1e-05), no nan or inf": the errors of a
/// comparison, non-finite values born against a finite reference first.
std::string errorsText(const Comparison &comparison) {
  if (!comparison.errors)
    return "not compared: " + comparison.why;
  const TensorErrors &e = *comparison.errors;
  std::string text;
  auto born = [&](int64_t count, const char *what) {
    if (count)
      text +=
          (text.empty() ? "" : " and ") + std::to_string(count) + " " + what;
  };
  born(e.nanBorn, "NaN");
  born(e.infBorn, "Inf");
  if (!text.empty())
    text += " (reference finite)";
  if (e.nonFiniteMismatch)
    text += (text.empty() ? "" : ", ") + std::to_string(e.nonFiniteMismatch) +
            " not the reference's NaN or Inf";
  int64_t elsewhere = e.elements - e.nanBorn - e.infBorn - e.refNan - e.refInf;
  if (elsewhere > 0)
    text += (text.empty() ? "" : "; elsewhere ") +
            std::string("max abs error ") + formatNumber(e.maxAbsError) +
            " (rel " + formatNumber(e.relError) + ")";
  // The counts, unless the born ones above are all there is.
  bool onlyBorn =
      e.gotNan == e.nanBorn && e.gotInf == e.infBorn && !e.refNan && !e.refInf;
  if (e.gotNan || e.gotInf || e.refNan || e.refInf) {
    if (onlyBorn)
      return text;
    text += ", nan " + std::to_string(e.gotNan) + " inf " +
            std::to_string(e.gotInf) + " (reference: nan " +
            std::to_string(e.refNan) + " inf " + std::to_string(e.refInf) + ")";
  } else {
    text += ", no nan or inf";
  }
  return text;
}

std::string rangeText(const Comparison &comparison) {
  const TensorErrors &e = *comparison.errors;
  auto range = [](int64_t nans, int64_t elements, double min, double max) {
    if (elements > 0 && nans == elements)
      return std::string("every element NaN");
    return "[" + formatNumber(min) + ", " + formatNumber(max) + "]";
  };
  return "range " + range(e.gotNan, e.elements, e.gotMin, e.gotMax) +
         ", reference " + range(e.refNan, e.elements, e.refMin, e.refMax);
}

/// The kernel's nodes for a terminal: at most 60 characters.
std::string nodesText(llvm::StringRef nodes) {
  llvm::SmallVector<llvm::StringRef> list;
  nodes.split(list, ',', -1, false);
  std::string text;
  for (auto [i, node] : llvm::enumerate(list)) {
    std::string next = (i ? ", " : "") + node.str();
    if (text.size() + next.size() > 60) {
      text += " and " + std::to_string(list.size() - i) + " more";
      break;
    }
    text += next;
  }
  return text;
}

void Verifier::printRun(const RunReport &report) {
  llvm::raw_ostream &os = llvm::outs();
  os << "run " << report.index << " (" << report.inputs << ", plan '"
     << report.plan << "'): " << (report.passed ? "ok" : "FAIL") << "\n";
  for (const Comparison &output : report.outputs) {
    os << "  output '" << output.name << "' " << graphc_dtype_name(output.dtype)
       << dimsText(output.dims) << ": " << (output.within ? "ok" : "FAIL")
       << "\n    " << errorsText(output) << "\n";
    if (output.errors)
      os << "    " << rangeText(output) << "\n";
  }
  if (!report.bisected)
    return;
  if (!report.probedOutputsDiffer.empty())
    os << "  note: the probing run's outputs differ from the plain run's ("
       << llvm::join(report.probedOutputsDiffer, ", ")
       << "): a nondeterministic kernel, or probing changed a launch\n";
  auto describe = [&](const StepComparison &step) {
    os << "    step " << step.step << " of " << report.numSteps << ", kernel "
       << step.kernel << " [" << step.kind << "]";
    if (!step.nodes.empty())
      os << ", nodes " << nodesText(step.nodes);
    os << "\n      result " << step.result;
    if (step.comparison.name.empty())
      os << " holds no single ONNX tensor";
    else
      os << " holds '" << step.comparison.name << "'";
    if (!step.node.empty())
      os << " (node '" << step.node << "')";
    os << ", " << graphc_dtype_name(step.comparison.dtype)
       << dimsText(step.comparison.dims) << ": "
       << (step.comparison.errors ? (step.comparison.within ? "ok" : "FAIL")
                                  : "-")
       << "\n      " << errorsText(step.comparison) << "\n";
    if (step.comparison.errors)
      os << "      " << rangeText(step.comparison) << "\n";
    if (step.diagnosis)
      os << "      " << step.diagnosis->message << "\n";
  };
  if (options.all) {
    os << "  every step result against the reference:\n";
    for (const StepComparison &step : report.steps)
      describe(step);
  }
  if (report.firstFailing >= 0) {
    os << "  first step out of tolerance:\n";
    describe(report.steps[report.firstFailing]);
  } else if (!report.passed) {
    if (report.compared > 0)
      os << "  every compared step result is within tolerance: the error "
            "builds up over the steps\n";
    else
      os << "  no step result could be compared\n";
  }
  if (report.uncompared)
    os << "  (" << report.uncompared
       << " step result(s) hold no tensor of the reference or are padded "
          "to the plan's bucket, and were not compared)\n";
}

llvm::json::Object comparisonJson(const Comparison &comparison) {
  llvm::json::Object object{
      {"name", comparison.name},
      {"dtype", graphc_dtype_name(comparison.dtype)},
      {"dims", llvm::json::Array(comparison.dims)},
      {"compared", comparison.errors.has_value()},
  };
  if (!comparison.errors) {
    object["why"] = comparison.why;
    return object;
  }
  const TensorErrors &e = *comparison.errors;
  object["within_tolerance"] = comparison.within;
  object["max_abs_error"] = jsonNumber(e.maxAbsError);
  object["rel_error"] = jsonNumber(e.relError);
  object["nan"] = e.gotNan;
  object["inf"] = e.gotInf;
  object["nan_born"] = e.nanBorn;
  object["inf_born"] = e.infBorn;
  object["reference_nan"] = e.refNan;
  object["reference_inf"] = e.refInf;
  object["min"] = jsonNumber(e.gotMin);
  object["max"] = jsonNumber(e.gotMax);
  object["reference_min"] = jsonNumber(e.refMin);
  object["reference_max"] = jsonNumber(e.refMax);
  object["zeroed"] = e.zeroedElements;
  return object;
}

llvm::json::Object Verifier::runJson(const RunReport &report) {
  llvm::json::Array outputs, steps;
  for (const Comparison &output : report.outputs)
    outputs.push_back(comparisonJson(output));
  auto stepJson = [&](const StepComparison &step) {
    llvm::json::Object object = comparisonJson(step.comparison);
    object["step"] = step.step;
    object["result"] = step.result;
    object["kernel"] = step.kernel;
    object["kind"] = step.kind;
    llvm::SmallVector<llvm::StringRef> nodes;
    llvm::StringRef(step.nodes).split(nodes, ',', -1, false);
    llvm::json::Array nodeArray;
    for (llvm::StringRef node : nodes)
      nodeArray.push_back(node.str());
    object["onnx_nodes"] = std::move(nodeArray);
    object["tensor"] = step.comparison.name;
    object["node"] = step.node;
    if (step.diagnosis)
      object["diagnosis"] = llvm::json::Object{
          {"kind", step.diagnosis->kind}, {"message", step.diagnosis->message}};
    else
      object["diagnosis"] = nullptr;
    return object;
  };
  for (const StepComparison &step : report.steps)
    steps.push_back(stepJson(step));
  llvm::json::Object object{
      {"index", report.index},
      {"inputs", report.inputs},
      {"plan", report.plan},
      {"passed", report.passed},
      {"outputs", std::move(outputs)},
      {"bisected", report.bisected},
      {"num_steps", report.numSteps},
      {"compared_results", report.compared},
      {"uncompared_results", report.uncompared},
  };
  if (report.bisected) {
    object["steps"] = std::move(steps);
    llvm::json::Array differ;
    for (const std::string &name : report.probedOutputsDiffer)
      differ.push_back(name);
    object["probed_outputs_differ"] = std::move(differ);
  }
  object["first_failing_step"] =
      report.firstFailing >= 0
          ? llvm::json::Value(stepJson(report.steps[report.firstFailing]))
          : llvm::json::Value(nullptr);
  return object;
}

/// Whether a tensor that `value` depends on (through the graph, before
/// fusion) was found holding a non-finite value at a step before `step`.
bool inheritsFrom(mlir::Value value, int32_t step,
                  const llvm::StringMap<int32_t> &foundAt) {
  llvm::SmallVector<mlir::Operation *> work;
  llvm::DenseSet<mlir::Operation *> seen;
  if (mlir::Operation *op = value.getDefiningOp())
    work.push_back(op);
  while (!work.empty()) {
    mlir::Operation *op = work.pop_back_val();
    if (!seen.insert(op).second)
      continue;
    for (mlir::Value operand : op->getOperands()) {
      auto found = foundAt.find(graph::onnxTensorName(operand));
      if (found != foundAt.end() && found->second < step)
        return true;
      if (mlir::Operation *producer = operand.getDefiningOp())
        work.push_back(producer);
    }
  }
  return false;
}

llvm::Error Verifier::bisect(RunReport &report,
                             const ReferenceValues &reference) {
  graphc_session *session = probeSession.get();
  int32_t plan = -1, count = 0;
  if (graphc_status status = graphc_session_probe_count(session, &plan, &count))
    return toError(status);
  report.bisected = true;
  // The first step whose result held a NaN (an Inf), by ONNX tensor.
  llvm::StringMap<int32_t> nanAt, infAt;
  // The dtype each ONNX tensor was stored in by an earlier step.
  llvm::StringMap<int32_t> storedDtype;
  llvm::StringMap<double> maxAbs;
  auto refMaxAbs = [&](llvm::StringRef name) {
    auto cached = maxAbs.find(name);
    if (cached != maxAbs.end())
      return cached->second;
    auto tensor = reference.tensors.find(name);
    double value =
        tensor == reference.tensors.end() ? 0 : maxAbsFinite(tensor->second);
    maxAbs[name] = value;
    return value;
  };
  std::vector<StepComparison> steps;
  for (int32_t p = 0; p < count; ++p) {
    graphc_probe_info info;
    if (graphc_status status =
            graphc_session_read_probe(session, p, &info, nullptr, 0))
      return toError(status);
    HostTensor got;
    got.dtype = info.desc->dtype;
    got.dims.assign(info.desc->dims, info.desc->dims + info.desc->rank);
    got.name = info.desc->onnx_tensor ? info.desc->onnx_tensor : "";
    try {
      got.data.resize(info.size);
    } catch (const std::bad_alloc &) {
      return fail("out of memory: cannot read the " +
                  std::to_string(info.size) + " bytes of step " +
                  std::to_string(info.step) + "'s result");
    }
    if (graphc_status status = graphc_session_read_probe(
            session, p, &info, got.data.data(), got.data.size()))
      return toError(status);

    StepComparison step;
    step.step = info.step;
    step.result = info.result;
    graphc_step_info stepInfo;
    if (graphc_status status =
            graphc_model_step_info(model(), plan, info.step, &stepInfo))
      return toError(status);
    if (stepInfo.kernel >= 0) {
      graphc_kernel_info kernel;
      if (graphc_status status =
              graphc_model_kernel_info(model(), stepInfo.kernel, &kernel))
        return toError(status);
      step.kernel = kernel.name;
      step.kind = kernel.kind;
      step.nodes = kernel.onnx_nodes;
    } else {
      step.kernel = "copy";
      step.kind = "copy";
    }
    step.comparison.name = got.name;
    step.comparison.dtype = got.dtype;
    step.comparison.dims = got.dims;
    auto ref = reference.tensors.find(got.name);
    if (got.name.empty() || ref == reference.tensors.end()) {
      step.comparison.why = got.name.empty()
                                ? "it holds no single ONNX tensor"
                                : "the reference computes no tensor of that "
                                  "name";
      ++report.uncompared;
      steps.push_back(std::move(step));
      continue;
    }
    step.node = reference.producers.lookup(got.name);
    // A result holds its tensor element for element; the plan's dims may
    // be written differently, or padded to the bucket (not compared).
    int64_t gotCount = 1, refCount = 1;
    for (int64_t dim : got.dims)
      gotCount *= dim;
    for (int64_t dim : ref->second.dims)
      refCount *= dim;
    if (gotCount == refCount)
      got.dims = ref->second.dims;
    step.comparison = compare(got, ref->second, tolerance);
    if (gotCount != refCount)
      step.comparison.why = "the plan's " + dimsText(step.comparison.dims) +
                            " is padded past the reference's " +
                            dimsText(ref->second.dims);
    if (!step.comparison.errors) {
      ++report.uncompared;
      steps.push_back(std::move(step));
      continue;
    }
    ++report.compared;
    const TensorErrors &errors = *step.comparison.errors;
    StepEvidence evidence;
    evidence.dtype = got.dtype;
    evidence.errors = errors;
    auto value = valuesByName.find(got.name);
    if (value != valuesByName.end()) {
      if (mlir::Operation *op = value->second.getDefiningOp())
        for (mlir::Value operand : op->getOperands())
          if (llvm::StringRef name = graph::onnxTensorName(operand);
              !name.empty()) {
            evidence.inputsMaxAbs =
                std::max(evidence.inputsMaxAbs, refMaxAbs(name));
            // The coarsest: the larger epsilon.
            auto stored = storedDtype.find(name);
            std::optional<FloatLimits> limits =
                stored == storedDtype.end() ? std::nullopt
                                            : floatLimits(stored->second);
            std::optional<FloatLimits> known =
                evidence.inputsDtype ? floatLimits(evidence.inputsDtype)
                                     : std::nullopt;
            if (limits && (!known || limits->epsilon > known->epsilon))
              evidence.inputsDtype = stored->second;
          }
      if (errors.nanBorn || errors.infBorn) {
        evidence.nanInherited = inheritsFrom(value->second, info.step, nanAt);
        evidence.infInherited = inheritsFrom(value->second, info.step, infAt);
      }
    }
    storedDtype.try_emplace(got.name, got.dtype);
    if (errors.gotNan)
      nanAt.try_emplace(got.name, info.step);
    if (errors.gotInf)
      infAt.try_emplace(got.name, info.step);
    step.diagnosis = diagnoseStep(evidence, tolerance);
    bool within = step.comparison.within;
    steps.push_back(std::move(step));
    if (!within && report.firstFailing < 0) {
      report.firstFailing = static_cast<int>(steps.size()) - 1;
      if (!options.all)
        break;
    }
  }
  if (options.all) {
    report.steps = std::move(steps);
  } else if (report.firstFailing >= 0) {
    report.steps = {std::move(steps[report.firstFailing])};
    report.firstFailing = 0;
  }
  return llvm::Error::success();
}

llvm::Expected<bool> Verifier::run() {
  if (llvm::Error error = parseDims())
    return std::move(error);
  if (!options.precision.empty()) {
    std::optional<Precision> parsed = parsePrecision(options.precision);
    if (!parsed)
      return fail("--precision '" + options.precision +
                  "': expected fp32, tf32, fp16 or bf16");
    precision = *parsed;
    precisionFromFlag = true;
  }
  for (auto [flag, value] :
       {std::pair{"--rtol", options.rtol}, std::pair{"--atol", options.atol}})
    if (value && !(*value >= 0 && std::isfinite(*value)))
      return fail(std::string(flag) + " must be a finite number >= 0");
  if (llvm::Error error = loadModels())
    return std::move(error);
  if (llvm::Error error = checkInterface())
    return std::move(error);
  if (llvm::Error error = readInputFiles())
    return std::move(error);
  if (!precisionFromFlag)
    precision = artifactPrecision(artifactFile.view);
  tolerance = defaultTolerance(precision);
  if (options.rtol)
    tolerance.rtol = *options.rtol;
  if (options.atol)
    tolerance.atol = *options.atol;

  std::vector<HostTensor> artifactInputs, refInputs;
  if (llvm::Error error = makeInputs(0, artifactInputs, refInputs))
    return std::move(error);
  // Every run has the same dims: the model is specialised once.
  if (llvm::Error error = specializeForReference(*module, refInputs))
    return std::move(error);
  module->lookupSymbol<mlir::func::FuncOp>("main").walk(
      [&](mlir::Operation *op) {
        for (mlir::Value result : op->getResults())
          if (llvm::StringRef name = graph::onnxTensorName(result);
              !name.empty())
            valuesByName.try_emplace(name, result);
      });

  bool passed = true;
  llvm::json::Array runReports;
  for (int r = 0; r < runs; ++r) {
    if (r > 0)
      if (llvm::Error error = makeInputs(r, artifactInputs, refInputs))
        return std::move(error);
    llvm::Expected<RunReport> report = verifyRun(r, artifactInputs, refInputs);
    if (!report)
      return report.takeError();
    passed &= report->passed;
    if (options.json) {
      runReports.push_back(runJson(*report));
      continue;
    }
    if (r == 0)
      printHeader();
    printRun(*report);
  }
  if (options.json) {
    llvm::json::Object root{
        {"graphc_verify", 1},
        {"model", options.model},
        {"artifact", options.artifact},
        {"target", cuda ? "cuda" : "cpu"},
        {"precision", precisionName(precision)},
        {"precision_from", precisionFromFlag ? "flag" : "artifact"},
        {"rtol", tolerance.rtol},
        {"atol", tolerance.atol},
        {"passed", passed},
        {"runs", std::move(runReports)},
    };
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)))
                 << "\n";
  } else {
    llvm::outs() << (passed ? "PASS" : "FAIL") << ": " << runs
                 << (runs == 1 ? " run" : " runs") << ", "
                 << (passed ? "every output within tolerance"
                            : "an output out of tolerance")
                 << "\n";
  }
  return passed;
}

} // namespace

void addVerifyCommand(CLI::App &app, int &exitCode) {
  auto options = std::make_shared<VerifyOptions>();
  auto rtol = std::make_shared<double>(0), atol = std::make_shared<double>(0);
  CLI::App *command = app.add_subcommand(
      "verify",
      "Run a compiled model and graphc's float32 cpu reference of its ONNX "
      "model on the same inputs and compare them: exit 0 when every output "
      "is within tolerance, 1 when not. When an output fails (or with "
      "--all), compare every step's result with the reference and name the "
      "first fusion out of tolerance, its ONNX nodes and a diagnosis where "
      "one is evident: overflow (the reference exceeds the type's largest "
      "finite value), nan_born / inf_born (non-finite where the reference "
      "is finite, inherited from no earlier step), underflow (zeroed where "
      "the reference is nonzero below the type's smallest normal) or "
      "cancellation (the result is 16x or more smaller than its node's "
      "inputs and the error is within 8 roundings of those inputs)");
  command->add_option("model", options->model, "The ONNX model")->required();
  command->add_option("artifact", options->artifact, "Its compiled .so")
      ->required();
  command
      ->add_option("--input,-i", options->inputs,
                   "NAME=FILE (.npy or TensorProto .pb); inputs not given "
                   "are random")
      ->allow_extra_args(false);
  command->add_option("--random-inputs", options->randomInputs,
                      "Verify N runs on pseudo-random inputs, seeds 0..N-1 "
                      "(floats uniform in [-1, 1), integers 0 or 1); "
                      "default 1 when an input is not given");
  command
      ->add_option("--dim", options->dims,
                   "NAME=SIZE: a dynamic dim of the random inputs (default: "
                   "its smallest bucket)")
      ->allow_extra_args(false);
  auto *rtolOption = command->add_option(
      "--rtol", *rtol,
      "relative tolerance (against max |reference| of each tensor); default "
      "per precision: fp32 1e-4, tf32 and fp16 1e-2, bf16 6e-2");
  auto *atolOption =
      command->add_option("--atol", *atol, "absolute tolerance (default 0)");
  command->add_option("--precision", options->precision,
                      "the precision whose default tolerance applies (fp32, "
                      "tf32, fp16, bf16); default: what the artifact "
                      "computes in");
  command->add_flag("--json", options->json, "print the report as JSON");
  command->add_flag("--all", options->all,
                    "compare every step's results with the reference and "
                    "list them in order, even when the outputs pass");
  command->add_option("--device", options->device, "CUDA device ordinal");
  command->callback([options, rtol, atol, rtolOption, atolOption, &exitCode] {
    if (rtolOption->count())
      options->rtol = *rtol;
    if (atolOption->count())
      options->atol = *atol;
    Verifier verifier(*options);
    llvm::Expected<bool> passed = verifier.run();
    if (!passed) {
      exitCode = reportError(passed.takeError());
      return;
    }
    exitCode = *passed ? 0 : 1;
  });
}

} // namespace graphc::tools
