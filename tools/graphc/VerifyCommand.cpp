//===- VerifyCommand.cpp - `graphc verify` --------------------------------===//
//
// Runs a compiled model on its target and graphc's float32 cpu reference of
// the ONNX model on the same inputs, and reports each output's error
// against the reference (lib/Support/TensorCompare: one definition of
// "within tolerance"). Exit status 0 when every output of every run is
// within tolerance, 1 otherwise, so that CI can gate on it.
//
// When an output fails (or with --all) it bisects without changing the
// artifact (VerifyBisect.cpp). This file registers the command, loads the
// model and the artifact, checks that they match, makes each run's inputs
// and compares the outputs; VerifyReport.cpp prints the reports.
//
//===----------------------------------------------------------------------===//

#include "tools/graphc/Commands.h"
#include "tools/graphc/CompileFlags.h"
#include "tools/graphc/Verify.h"

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "lib/Artifact/Staging.h"
#include "lib/Import/ONNX/ONNXImporter.h"
#include "lib/Pipeline/Pipeline.h"
#include "lib/Support/CheckedArith.h"
#include "lib/Support/ElementValue.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstring>
#include <new>

namespace graphc::tools {

namespace {

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

} // namespace

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

llvm::Error Verifier::parseDims() {
  for (const std::string &spec : options.dims) {
    llvm::StringRef name, size;
    std::tie(name, size) = llvm::StringRef(spec).split('=');
    int64_t value = 0;
    if (name.empty() || size.empty() || size.getAsInteger(10, value) ||
        value < 1)
      return llvm::createStringError("--dim '" + spec +
                                     "': expected NAME=SIZE with SIZE >= 1");
    if (dimSizes.count(name))
      return llvm::createStringError("--dim '" + name + "' is given twice");
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
  ImportOptions importOptions;
  for (const std::string &spec : options.constInputs) {
    llvm::Expected<ConstantInput> input = parseConstantInput(spec);
    if (!input)
      return input.takeError();
    importOptions.constantInputs.push_back(std::move(*input));
  }
  auto imported = importONNXModel(options.model, context, importOptions);
  if (!imported)
    return imported.takeError();
  module = std::move(*imported);
  auto main = module->lookupSymbol<mlir::func::FuncOp>("main");
  if (!main)
    return llvm::createStringError("'" + options.model + "' has no main graph");
  for (unsigned i = 0; i < main.getNumArguments(); ++i) {
    auto name = main.getArgAttrOfType<mlir::StringAttr>(i, graph::kNameAttr);
    auto type =
        llvm::dyn_cast<mlir::RankedTensorType>(main.getArgument(i).getType());
    if (!name || !type)
      return llvm::createStringError("'" + options.model + "': input " +
                                     std::to_string(i) +
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
      return llvm::createStringError(
          mismatch + "input '" + info.name +
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
      return llvm::createStringError(
          mismatch + "input '" + info.name + "' is " +
          describeType(info.dtype, dims) + " in the artifact, " +
          describeType(dtype, modelDims) + " in the model");
    }
  }
  for (const ModelInput &input : modelInputs)
    if (!artifactNames.contains(input.name))
      return llvm::createStringError(
          mismatch + "input '" + input.name +
          "' of the model is not an input of the artifact (if the compile "
          "bound it with --const-input, give verify the same "
          "--const-input)");
  auto main = module->lookupSymbol<mlir::func::FuncOp>("main");
  int32_t outputs = graphc_model_output_count(model());
  if (outputs != static_cast<int32_t>(main.getNumResults()))
    return llvm::createStringError(
        mismatch + "the artifact has " + std::to_string(outputs) +
        " outputs, the model " + std::to_string(main.getNumResults()));
  for (int32_t o = 0; o < outputs; ++o) {
    graphc_tensor_info info;
    if (graphc_status status = graphc_model_output_info(model(), o, &info))
      return toError(status);
    auto name = main.getResultAttrOfType<mlir::StringAttr>(o, graph::kNameAttr);
    if (name && name.getValue() != info.name)
      return llvm::createStringError(
          mismatch + "output " + std::to_string(o) + " is '" + info.name +
          "' in the artifact, '" + name.getValue() + "' in the model");
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
      return llvm::createStringError("--input '" + spec +
                                     "': give it as NAME=FILE");
    int32_t index = -1;
    std::string known;
    for (int32_t i = 0; i < count; ++i) {
      known += (i ? ", " : "") + std::string(inputInfo(i).name);
      if (name == inputInfo(i).name)
        index = i;
    }
    if (index < 0)
      return llvm::createStringError(
          "input '" + name + "' (from '" + path +
          "'): the artifact has no input of that name (its inputs: " + known +
          ")");
    if (givenInputs[index])
      return llvm::createStringError("input '" + name + "' is given twice");
    if (llvm::Error error = checkInputType(*tensor, path, inputInfo(index)))
      return error;
    tensor->name = name;
    givenInputs[index] = std::move(*tensor);
  }
  anyRandom = llvm::any_of(givenInputs, [](auto &t) { return !t; });
  if (options.randomInputs < 0)
    return llvm::createStringError("--random-inputs must be at least 1");
  if (!anyRandom && options.randomInputs > 0)
    return llvm::createStringError(
        "--random-inputs: every input is given by --input");
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
      return llvm::createStringError(
          "--dim '" + entry.getKey() +
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
      return llvm::createStringError("input '" + std::string(info.name) +
                                     "': dim " + std::to_string(d) +
                                     " is dynamic; give its size with --dim");
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
      std::optional<int64_t> bytes = denseTensorBytes(info.dtype, *dims);
      if (!bytes || *bytes > (int64_t(1) << 34))
        return llvm::createStringError("input '" + std::string(info.name) +
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
    std::optional<int64_t> bytes = denseTensorBytes(host.dtype, host.dims);
    if (!bytes)
      return llvm::createStringError("output '" + host.name +
                                     "' is too large to allocate");
    try {
      host.data.assign(static_cast<size_t>(*bytes), 0);
    } catch (const std::bad_alloc &) {
      return llvm::createStringError("out of memory: cannot allocate " +
                                     std::to_string(*bytes) +
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
  // An output with data-dependent dims is compared as the run found it.
  for (int32_t o = 0; o < numOutputs; ++o) {
    graphc_tensor_info info;
    if (graphc_status status = graphc_model_output_info(model(), o, &info))
      return toError(status);
    std::vector<int64_t> bounds;
    if (llvm::Error error =
            cutToFoundDims(session, o, info, outputs[o], bounds))
      return std::move(error);
  }

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
  if (llvm::Error error = runProbed(report, artifactInputs, *outputs))
    return std::move(error);
  if (llvm::Error error = bisect(report, *reference))
    return std::move(error);
  return report;
}

llvm::Expected<bool> Verifier::run() {
  if (llvm::Error error = parseDims())
    return std::move(error);
  if (!options.precision.empty()) {
    std::optional<Precision> parsed = parsePrecision(options.precision);
    if (!parsed)
      return llvm::createStringError("--precision '" + options.precision +
                                     "': expected fp32, tf32, fp16 or bf16");
    precision = *parsed;
    precisionFromFlag = true;
  }
  for (auto [flag, value] :
       {std::pair{"--rtol", options.rtol}, std::pair{"--atol", options.atol}})
    if (value && !(*value >= 0 && std::isfinite(*value)))
      return llvm::createStringError(std::string(flag) +
                                     " must be a finite number >= 0");
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
  command
      ->add_option("--const-input", options->constInputs,
                   "NAME=FILE or NAME=V1,V2,...: an input the artifact was "
                   "compiled with bound (graphc compile --const-input), "
                   "bound the same way in the reference (repeatable)")
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
