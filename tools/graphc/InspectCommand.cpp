//===- InspectCommand.cpp - `graphc inspect` ------------------------------===//
//
// Describes a compiled model from its descriptor. The model is loaded for
// inspection only, so cuda models can be inspected without a GPU.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/Format.h"
#include "tools/graphc/RuntimeCommands.h"

#include "graphc/runtime.h"
#include "tools/graphc/Commands.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace graphc::tools {

namespace {

nlohmann::ordered_json tensorJson(const graphc_tensor_info &info) {
  nlohmann::ordered_json dims = nlohmann::json::array();
  for (int32_t d = 0; d < info.rank; ++d) {
    if (info.dims[d] >= 0)
      dims.push_back(info.dims[d]);
    else if (info.dim_names && info.dim_names[d] && info.dim_names[d][0])
      dims.push_back(info.dim_names[d]);
    else
      dims.push_back(nullptr);
  }
  return {{"name", info.name},
          {"dtype", graphc_dtype_name(info.dtype)},
          {"shape", dims}};
}

/// Collects the report; the model was loaded successfully so every index
/// below is in range.
nlohmann::ordered_json describe(const std::string &path,
                                const graphc_model *model) {
  nlohmann::ordered_json report;
  report["model"] = path;
  report["producer"] = graphc_model_producer(model);
  bool cuda = graphc_model_target(model) == GRAPHC_TARGET_CUDA;
  report["target"] = cuda ? "cuda" : "cpu";
  nlohmann::ordered_json images = nlohmann::json::array();
  for (int32_t i = 0; i < graphc_model_image_count(model); ++i) {
    graphc_image_info info;
    graphc_status_free(graphc_model_image_info(model, i, &info));
    images.push_back({{"sm", info.sm},
                      {"kind", info.is_ptx ? "ptx" : "cubin"},
                      {"bytes", info.size}});
  }
  report["images"] = images;
  report["weight_bytes"] = graphc_model_weights_size(model);
  const char *weightsPath = graphc_model_weights_path(model);
  report["weights_file"] = weightsPath ? nlohmann::json(weightsPath) : nullptr;

  std::vector<graphc_tensor_info> inputs(graphc_model_input_count(model));
  std::vector<graphc_tensor_info> outputs(graphc_model_output_count(model));
  report["inputs"] = nlohmann::json::array();
  report["outputs"] = nlohmann::json::array();
  for (size_t i = 0; i < inputs.size(); ++i) {
    graphc_status_free(graphc_model_input_info(model, i, &inputs[i]));
    report["inputs"].push_back(tensorJson(inputs[i]));
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    graphc_status_free(graphc_model_output_info(model, o, &outputs[o]));
    report["outputs"].push_back(tensorJson(outputs[o]));
  }

  report["plans"] = nlohmann::json::array();
  uint64_t maxArena = 0;
  for (int32_t p = 0; p < graphc_model_plan_count(model); ++p) {
    graphc_plan_info plan;
    graphc_status_free(graphc_model_plan_info(model, p, &plan));
    maxArena = std::max(maxArena, plan.arena_bytes);
    nlohmann::ordered_json planInputs, planOutputs;
    for (size_t i = 0; i < inputs.size(); ++i)
      planInputs[inputs[i].name] = std::vector<int64_t>(
          plan.input_dims[i], plan.input_dims[i] + inputs[i].rank);
    for (size_t o = 0; o < outputs.size(); ++o)
      planOutputs[outputs[o].name] = std::vector<int64_t>(
          plan.output_dims[o], plan.output_dims[o] + outputs[o].rank);
    report["plans"].push_back({{"name", plan.name},
                               {"arena_bytes", plan.arena_bytes},
                               {"intermediate_bytes", plan.intermediate_bytes},
                               {"steps", plan.num_steps},
                               {"inputs", planInputs},
                               {"outputs", planOutputs}});
  }
  report["arena_bytes"] = maxArena;

  report["kernels"] = nlohmann::json::array();
  for (int32_t k = 0; k < graphc_model_kernel_count(model); ++k) {
    graphc_kernel_info info;
    graphc_status_free(graphc_model_kernel_info(model, k, &info));
    char hash[24];
    std::snprintf(hash, sizeof(hash), "%016llx",
                  static_cast<unsigned long long>(info.content_hash));
    report["kernels"].push_back({{"name", info.name},
                                 {"kind", info.kind},
                                 {"hash", hash},
                                 {"onnx_nodes", info.onnx_nodes}});
  }
  return report;
}


std::string shapeText(const nlohmann::ordered_json &shape) {
  std::string text = "[";
  for (size_t d = 0; d < shape.size(); ++d) {
    text += d ? "," : "";
    const auto &dim = shape[d];
    text += dim.is_null()     ? "?"
            : dim.is_string() ? dim.get<std::string>()
                              : std::to_string(dim.get<int64_t>());
  }
  return text + "]";
}

void printText(const nlohmann::ordered_json &report, llvm::raw_ostream &os) {
  auto row = [&](llvm::StringRef key) -> llvm::raw_ostream & {
    return os << llvm::left_justify(key, 10);
  };
  row("model") << report["model"].get<std::string>() << "\n";
  row("producer") << report["producer"].get<std::string>() << "\n";
  row("target") << report["target"].get<std::string>();
  if (!report["images"].empty()) {
    os << " (";
    for (size_t i = 0; i < report["images"].size(); ++i) {
      const auto &image = report["images"][i];
      os << (i ? ", " : "") << "sm_" << image["sm"].get<int>() << " "
         << image["kind"].get<std::string>();
    }
    os << ")";
  }
  os << "\n";
  row("weights") << formatBytes(report["weight_bytes"].get<uint64_t>());
  if (!report["weights_file"].is_null())
    os << " in " << report["weights_file"].get<std::string>();
  os << "\n";
  row("arena") << formatBytes(report["arena_bytes"].get<uint64_t>())
               << " (largest plan)\n";
  for (const char *kind : {"inputs", "outputs"}) {
    os << kind << "\n";
    for (const auto &tensor : report[kind])
      os << "  " << tensor["name"].get<std::string>() << ": "
         << tensor["dtype"].get<std::string>() << shapeText(tensor["shape"])
         << "\n";
  }
  os << "plans\n";
  for (const auto &plan : report["plans"]) {
    os << "  " << plan["name"].get<std::string>() << ": arena "
       << formatBytes(plan["arena_bytes"].get<uint64_t>()) << ", "
       << plan["steps"].get<int>() << " steps,";
    for (const auto &[name, dims] : plan["inputs"].items())
      os << " " << name << shapeText(dims);
    os << " ->";
    for (const auto &[name, dims] : plan["outputs"].items())
      os << " " << name << shapeText(dims);
    os << "\n";
  }
  os << "kernels (" << report["kernels"].size() << ")\n";
  for (const auto &kernel : report["kernels"])
    os << "  " << kernel["name"].get<std::string>() << " ["
       << kernel["kind"].get<std::string>() << "] "
       << kernel["onnx_nodes"].get<std::string>() << "\n";
}

} // namespace

int runInspectCommand(const InspectOptions &options) {
  graphc_model_options loadOptions;
  graphc_model_options_init(&loadOptions);
  loadOptions.flags = GRAPHC_MODEL_INSPECT_ONLY;
  graphc_model *model = nullptr;
  if (graphc_status status =
          graphc_model_load(options.model.c_str(), &loadOptions, &model)) {
    std::string message = graphc_status_message(status);
    graphc_status_free(status);
    return reportError(llvm::createStringError(message));
  }
  nlohmann::ordered_json report = describe(options.model, model);
  graphc_model_release(model);
  if (options.json)
    llvm::outs() << report.dump(2) << "\n";
  else
    printText(report, llvm::outs());
  return 0;
}

void addInspectCommand(CLI::App &app, int &exitCode) {
  auto options = std::make_shared<InspectOptions>();
  CLI::App *command =
      app.add_subcommand("inspect", "Describe a compiled model .so");
  command->add_option("model", options->model, "The model .so")->required();
  command->add_flag("--json", options->json, "Print JSON");
  command->callback(
      [options, &exitCode] { exitCode = runInspectCommand(*options); });
}

} // namespace graphc::tools
