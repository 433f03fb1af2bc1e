//===- RunCommand.cpp - `graphc run` --------------------------------------===//
//
// Runs a compiled model on tensors read from .npy or ONNX TensorProto .pb
// files through the runtime's C API, prints each output's shape, dtype and
// value summary (min, max, mean, NaN and Inf counts) and the median latency,
// and optionally writes the outputs as .npy files. An output with
// data-dependent dims is summarised and written at the dims the run found
// (the corner of its bounds), which it prints with the bounds.
//
//===----------------------------------------------------------------------===//

#include "tools/graphc/RuntimeCommands.h"

#include "graphc/runtime.h"
#include "lib/Support/CheckedArith.h"
#include "lib/Support/ElementValue.h"
#include "lib/Support/HostTensor.h"
#include "lib/Support/Npy.h"
#include "tools/graphc/Commands.h"
#include "tools/graphc/RuntimeSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <optional>

namespace graphc::tools {

namespace {


/// Element `i` of a dense tensor as a double (64-bit integers round).
double elementAt(const HostTensor &tensor, size_t i) {
  return elementAsDouble(tensor.dtype,
                         tensor.data.data() + i * graphc_dtype_size(tensor.dtype));
}

/// " min 0 max 1 mean 0.5 nan 0 inf 0": what a glance at an output should
/// tell (all NaN, saturated, zero). NaN and Inf are left out of min, max and
/// mean; integer tensors have neither, so their counts are not printed.
std::string describeValues(const HostTensor &tensor) {
  size_t elementSize = graphc_dtype_size(tensor.dtype);
  size_t count = elementSize ? tensor.data.size() / elementSize : 0;
  if (count == 0)
    return " (empty)";
  bool floating = tensor.dtype == 1 || tensor.dtype == 10 ||
                  tensor.dtype == 11 || tensor.dtype == 16;
  double minimum = std::numeric_limits<double>::infinity();
  double maximum = -minimum;
  double sum = 0;
  size_t finite = 0, nans = 0, infs = 0;
  for (size_t i = 0; i < count; ++i) {
    double value = elementAt(tensor, i);
    if (std::isnan(value)) {
      ++nans;
      continue;
    }
    if (std::isinf(value)) {
      ++infs;
      continue;
    }
    minimum = std::min(minimum, value);
    maximum = std::max(maximum, value);
    sum += value;
    ++finite;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (finite)
    os << llvm::format(" min %.6g max %.6g mean %.6g", minimum, maximum,
                       sum / finite);
  else
    os << " (no finite values)";
  if (floating)
    os << " nan " << nans << " inf " << infs;
  return text;
}

/// The .npy file names of the outputs `names`, one each and all different:
/// ONNX names may hold '/' or ':', which become '_', so two outputs may
/// map to one name ("y:0", "y_0"); each later one gets "-<its index>" (and
/// "-<index>-<n>" should that be taken too), so no output overwrites
/// another.
std::vector<std::string> outputFileNames(llvm::ArrayRef<std::string> names) {
  std::vector<std::string> files;
  llvm::StringSet<> taken;
  for (auto [o, name] : llvm::enumerate(names)) {
    std::string stem;
    for (char c : name)
      stem += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' ||
               c == '-' || c == '_')
                  ? c
                  : '_';
    if (stem.empty())
      stem = "output";
    std::string file = stem + ".npy";
    for (int n = 0; taken.contains(file); ++n)
      file = stem + "-" + std::to_string(o) +
             (n ? "-" + std::to_string(n) : std::string()) + ".npy";
    taken.insert(file);
    files.push_back(std::move(file));
  }
  return files;
}

/// --profile: each step's median time over the runs, and its share of
/// their sum; with --profile-json the same medians go to a file that
/// `graphc inspect --profile` reads (its plan, and per step its kind and
/// kernel, so that inspect can check they describe the same model).
llvm::Error printProfile(graphc_model *model, int32_t planIndex,
                         std::vector<std::vector<double>> &stepMicros,
                         const RunOptions &options) {
  graphc_plan_info plan;
  if (graphc_status status = graphc_model_plan_info(model, planIndex, &plan))
    return toError(status);
  std::vector<double> medians;
  double total = 0;
  for (std::vector<double> &samples : stepMicros) {
    std::nth_element(samples.begin(), samples.begin() + samples.size() / 2,
                     samples.end());
    medians.push_back(samples[samples.size() / 2]);
    total += medians.back();
  }
  size_t runs = stepMicros.empty() ? 0 : stepMicros[0].size();
  llvm::outs() << "steps of plan '" << plan.name << "' (median over " << runs
               << " runs, each step timed alone):\n";
  llvm::json::Array steps;
  for (size_t s = 0; s < medians.size(); ++s) {
    graphc_step_info step;
    if (graphc_status status =
            graphc_model_step_info(model, planIndex, s, &step))
      return toError(status);
    std::string what = "copy";
    llvm::json::Value kernelName = nullptr;
    if (step.kernel >= 0) {
      graphc_kernel_info kernel;
      if (graphc_status status =
              graphc_model_kernel_info(model, step.kernel, &kernel))
        return toError(status);
      kernelName = kernel.name;
      what = std::string(kernel.name) + " [" + kernel.kind + "] " +
             kernel.onnx_nodes;
      if (what.size() > 90)
        what = what.substr(0, 87) + "...";
    }
    // A loop's time is the whole loop's; its body's steps show 0.
    const char *kind = step.kind == GRAPHC_STEP_LIBRARY_CALL ? "library"
                       : step.kind == GRAPHC_STEP_COPY       ? "copy"
                       : step.kind == GRAPHC_STEP_LOOP       ? "loop"
                                                             : "kernel";
    llvm::outs() << llvm::format("  %4zu  %-7s %10.2f us %5.1f%%  ", s, kind,
                                 medians[s],
                                 total > 0 ? 100 * medians[s] / total : 0.0)
                 << what << "\n";
    steps.push_back(llvm::json::Object{{"index", static_cast<int64_t>(s)},
                                       {"kind", kind},
                                       {"kernel", std::move(kernelName)},
                                       {"median_us", medians[s]}});
  }
  llvm::outs() << llvm::format("  steps add up to %.2f us\n", total);
  if (options.profileJson.empty())
    return llvm::Error::success();
  llvm::json::Object profile{
      {"graphc_profile", 1},
      {"model", options.model},
      {"target",
       graphc_model_target(model) == GRAPHC_TARGET_CUDA ? "cuda" : "cpu"},
      {"plan", plan.name},
      {"runs", static_cast<int64_t>(runs)},
      {"total_us", total},
      {"steps", std::move(steps)}};
  std::error_code ec;
  llvm::raw_fd_ostream out(options.profileJson, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return llvm::createStringError(ec, "--profile-json: cannot write '" +
                                           options.profileJson +
                                           "': " + ec.message());
  out << llvm::formatv("{0:2}", llvm::json::Value(std::move(profile))) << "\n";
  out.close();
  if (out.has_error())
    return llvm::createStringError(
        out.error(), "--profile-json: cannot write '" + options.profileJson +
                         "': " + out.error().message());
  return llvm::Error::success();
}

llvm::Error run(const RunOptions &options) {
  if (options.repeat < 1)
    return llvm::createStringError("--repeat must be at least 1");
  auto open = openModel(options.model, options.device,
                        options.profile ? GRAPHC_SESSION_PROFILE_STEPS : 0u);
  if (!open)
    return open.takeError();
  graphc_model *model = open->model.get();
  graphc_session *session = open->session.get();
  SessionBuffers buffers(session);
  bool cuda = graphc_model_target(model) == GRAPHC_TARGET_CUDA;
  DLDevice device =
      cuda ? DLDevice{kDLCUDA, options.device} : DLDevice{kDLCPU, 0};

  // Inputs: named ones by name, the others in model order.
  std::vector<HostTensor> hostInputs;
  std::vector<std::string> names, paths;
  for (const std::string &spec : options.inputs) {
    std::string name, path;
    llvm::Expected<HostTensor> tensor = readTensorArgument(spec, name, path);
    if (!tensor)
      return tensor.takeError();
    hostInputs.push_back(std::move(*tensor));
    names.push_back(name);
    paths.push_back(path);
  }
  int32_t modelInputs = graphc_model_input_count(model);
  auto inputInfo = [&](int32_t index) {
    graphc_tensor_info info;
    graphc_status_free(graphc_model_input_info(model, index, &info));
    return info;
  };
  // The model input each file binds to, or -1 for one the model lacks.
  std::vector<int32_t> bound(hostInputs.size(), -1);
  bool anyNamed = llvm::any_of(names, [](auto &n) { return !n.empty(); });
  if (anyNamed) {
    // Positional inputs take the model inputs no NAME= claimed, in order.
    std::vector<int> claimedBy(modelInputs, -1);
    for (auto [f, name] : llvm::enumerate(names)) {
      if (name.empty())
        continue;
      for (int32_t i = 0; i < modelInputs; ++i) {
        if (name != inputInfo(i).name)
          continue;
        if (claimedBy[i] >= 0)
          return llvm::createStringError(
              "input '" + name + "' is given twice ('" + paths[claimedBy[i]] +
              "' and '" + paths[f] + "')");
        claimedBy[i] = f;
        bound[f] = i;
      }
    }
    int32_t next = 0;
    for (auto [f, name] : llvm::enumerate(names)) {
      if (!name.empty())
        continue;
      while (next < modelInputs && claimedBy[next] >= 0)
        ++next;
      if (next == modelInputs)
        return llvm::createStringError(
            "more inputs given than the model has (" +
            std::to_string(modelInputs) + ")");
      bound[f] = next;
      name = inputInfo(next++).name;
    }
  } else {
    for (size_t f = 0; f < hostInputs.size(); ++f)
      bound[f] = f < static_cast<size_t>(modelInputs) ? f : -1;
  }
  // Unknown names and a wrong count are the runtime's to report.
  for (size_t f = 0; f < hostInputs.size(); ++f)
    if (bound[f] >= 0) {
      if (llvm::Error error =
              packFourBitInput(hostInputs[f], paths[f], inputInfo(bound[f])))
        return error;
      if (llvm::Error error =
              checkInputType(hostInputs[f], paths[f], inputInfo(bound[f])))
        return error;
    }
  std::vector<const char *> namePointers;
  for (const std::string &name : names)
    namePointers.push_back(name.c_str());

  std::vector<DLTensor> inputs(hostInputs.size());
  std::vector<int32_t> ranks;
  std::vector<const int64_t *> dims;
  for (size_t i = 0; i < hostInputs.size(); ++i) {
    HostTensor &host = hostInputs[i];
    llvm::Expected<DLTensor> tensor =
        bindTensor(host, device, cuda, /*upload=*/true, buffers, session);
    if (!tensor)
      return tensor.takeError();
    inputs[i] = *tensor;
    ranks.push_back(inputs[i].ndim);
    dims.push_back(host.dims.data());
  }

  int32_t planIndex = -1;
  if (graphc_status status =
          graphc_model_select_plan(model, static_cast<int32_t>(inputs.size()),
                                   anyNamed ? namePointers.data() : nullptr,
                                   ranks.data(), dims.data(), &planIndex))
    return toError(status);
  graphc_plan_info plan;
  if (graphc_status status = graphc_model_plan_info(model, planIndex, &plan))
    return toError(status);

  // Outputs have the run's dims: those of a bucket the inputs were padded
  // to are sliced back to the inputs' sizes.
  int32_t numOutputs = graphc_model_output_count(model);
  std::vector<HostTensor> hostOutputs(numOutputs);
  std::vector<DLTensor> outputs(numOutputs);
  std::vector<int64_t *> outputDims(numOutputs);
  for (int32_t o = 0; o < numOutputs; ++o) {
    graphc_tensor_info info;
    if (graphc_status status = graphc_model_output_info(model, o, &info))
      return toError(status);
    hostOutputs[o].dims.assign(info.rank, 0);
    outputDims[o] = hostOutputs[o].dims.data();
  }
  if (graphc_status status = graphc_model_output_dims(
          model, static_cast<int32_t>(inputs.size()),
          anyNamed ? namePointers.data() : nullptr, ranks.data(), dims.data(),
          outputDims.data()))
    return toError(status);
  for (int32_t o = 0; o < numOutputs; ++o) {
    graphc_tensor_info info;
    if (graphc_status status = graphc_model_output_info(model, o, &info))
      return toError(status);
    HostTensor &host = hostOutputs[o];
    host.name = info.name;
    host.dtype = info.dtype;
    std::optional<int64_t> bytes = denseTensorBytes(info.dtype, host.dims);
    if (!bytes || static_cast<uint64_t>(*bytes) > host.data.max_size())
      return llvm::createStringError(
          "output '" + host.name + "' of plan '" + plan.name +
          "' is too large to allocate");
    try {
      host.data.assign(static_cast<size_t>(*bytes), 0);
    } catch (const std::bad_alloc &) {
      return llvm::createStringError(
          "out of memory: cannot allocate " + std::to_string(*bytes) +
          " bytes for output '" + host.name + "'");
    }
    llvm::Expected<DLTensor> tensor =
        bindTensor(host, device, cuda, /*upload=*/false, buffers, session);
    if (!tensor)
      return tensor.takeError();
    outputs[o] = *tensor;
  }

  std::vector<double> milliseconds;
  // --profile: per step of the plan launched last, its time in every run.
  std::vector<std::vector<double>> stepMicros;
  int32_t profiledPlan = -1;
  for (int r = 0; r < options.repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    if (graphc_status status = graphc_session_run(
            session, inputs.data(), static_cast<int32_t>(inputs.size()),
            anyNamed ? namePointers.data() : nullptr, outputs.data(),
            numOutputs))
      return toError(status);
    milliseconds.push_back(std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - start)
                               .count());
    if (!options.profile)
      continue;
    int32_t steps = 0;
    if (graphc_status status = graphc_session_step_times(
            session, &profiledPlan, nullptr, 0, &steps))
      return toError(status);
    std::vector<double> micros(steps);
    if (graphc_status status = graphc_session_step_times(
            session, &profiledPlan, micros.data(), steps, &steps))
      return toError(status);
    stepMicros.resize(steps);
    for (int32_t s = 0; s < steps; ++s)
      stepMicros[s].push_back(micros[s]);
  }

  std::vector<std::string> fileNames;
  if (!options.outputDir.empty()) {
    if (std::error_code ec =
            llvm::sys::fs::create_directories(options.outputDir))
      return llvm::createStringError(ec, "cannot create '" + options.outputDir +
                                             "': " + ec.message());
    std::vector<std::string> names;
    for (const HostTensor &host : hostOutputs)
      names.push_back(host.name);
    fileNames = outputFileNames(names);
  }
  for (int32_t o = 0; o < numOutputs; ++o) {
    HostTensor &host = hostOutputs[o];
    if (cuda) {
      if (graphc_status status = graphc_session_download(
              session, host.data.data(), outputs[o].data, host.data.size()))
        return toError(status);
    }
    graphc_tensor_info info;
    if (graphc_status status = graphc_model_output_info(model, o, &info))
      return toError(status);
    std::vector<int64_t> bounds;
    if (llvm::Error error = cutToFoundDims(session, o, info, host, bounds))
      return error;
    auto printDims = [](const std::vector<int64_t> &dims) {
      llvm::outs() << "[";
      for (size_t d = 0; d < dims.size(); ++d)
        llvm::outs() << (d ? "," : "") << dims[d];
      llvm::outs() << "]";
    };
    llvm::outs() << "output '" << host.name
                 << "': " << graphc_dtype_name(host.dtype);
    printDims(host.dims);
    // The dims the run found, within the ones the plan allocates.
    if (!bounds.empty()) {
      llvm::outs() << " (bound ";
      printDims(bounds);
      llvm::outs() << ")";
    }
    // numpy has no 4-bit dtype: their values are shown and written one a
    // byte, int8 or uint8.
    HostTensor values = unpackedFourBit(host);
    llvm::outs() << describeValues(values);
    if (!options.outputDir.empty()) {
      llvm::SmallString<256> path(options.outputDir);
      llvm::sys::path::append(path, fileNames[o]);
      if (llvm::Error error = writeNpyFile(path, values))
        return error;
      llvm::outs() << " -> " << path;
    }
    llvm::outs() << "\n";
  }
  std::nth_element(milliseconds.begin(),
                   milliseconds.begin() + milliseconds.size() / 2,
                   milliseconds.end());
  llvm::outs() << "plan '" << plan.name << "', median latency over "
               << options.repeat << (options.repeat == 1 ? " run: " : " runs: ")
               << llvm::format("%.3f", milliseconds[milliseconds.size() / 2])
               << " ms\n";
  if (options.profile)
    return printProfile(model, profiledPlan, stepMicros, options);
  return llvm::Error::success();
}

} // namespace

int runRunCommand(const RunOptions &options) {
  if (llvm::Error error = run(options))
    return reportError(std::move(error));
  return 0;
}

void addRunCommand(CLI::App &app, int &exitCode) {
  auto options = std::make_shared<RunOptions>();
  auto positional = std::make_shared<std::vector<std::string>>();
  CLI::App *command = app.add_subcommand(
      "run", "Run a compiled model .so on tensor files: graphc run model.so "
             "x.npy [NAME=y.pb ...]");
  command->add_option("model", options->model, "The model .so")->required();
  command->add_option("inputs", *positional,
                      "Input files (.npy or TensorProto .pb), FILE or "
                      "NAME=FILE: a FILE binds to the next model input that "
                      "no NAME=FILE claims, in order");
  command
      ->add_option("--input,-i", options->inputs,
                   "NAME=FILE or FILE, as the positional inputs (these come "
                   "first)")
      ->allow_extra_args(false);
  command->add_option("--output-dir,-o", options->outputDir,
                      "Write each output to DIR/<output>.npy (characters "
                      "other than letters, digits, '.', '-' and '_' become "
                      "'_'; an output whose file name another one took "
                      "gets '-<its index>')");
  command->add_option("--repeat", options->repeat,
                      "Run N times and report the median latency");
  command->add_option("--device", options->device, "CUDA device ordinal");
  command->add_flag("--profile", options->profile,
                    "time every step (cuda: between CUDA events, launched one "
                    "by one without CUDA graphs) and print each step's median "
                    "time and share");
  command->add_option(
      "--profile-json", options->profileJson,
      "with --profile, also write each step's median time to FILE (JSON), "
      "for graphc inspect --profile");
  command->callback([options, positional, &exitCode] {
    options->profile |= !options->profileJson.empty();
    options->inputs.insert(options->inputs.end(), positional->begin(),
                           positional->end());
    exitCode = runRunCommand(*options);
  });
}

} // namespace graphc::tools
