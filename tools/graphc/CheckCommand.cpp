//===- CheckCommand.cpp - `graphc check` ----------------------------------===//
//
// Reports what an ONNX model contains and whether graphc can compile it. The
// summary comes from the protobuf alone; the verdict comes from running the
// importer itself up to verification, so that check refuses exactly what
// `graphc import` refuses. A model the importer takes also goes through
// graphc-form-quantized-regions, for which linear ops compute on 8-bit
// values and which stay float, and why.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/Format.h"
#include "tools/graphc/Commands.h"

#include "lib/Import/ONNX/ONNXImporter.h"
#include "lib/Pipeline/CompileReport.h"
#include "lib/Pipeline/Diagnostics.h"
#include "passes/Passes.h"
#include "passes/ShapeInputs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <memory>

namespace graphc::tools {

namespace {

struct CheckOptions {
  std::string model;
  bool json = false;
};

/// What the importer found beyond the summary's protobuf view.
struct ImportFindings {
  std::vector<ShapeInput> shapeInputs;
  QuantizationReport quantization;
};

/// What graphc-form-quantized-regions makes of the imported `module`. A
/// compile runs it first among its graph rewrites, after only --shape and
/// --dim: the pass alone gives the compile's report (for a compile without
/// those flags) at a fraction of the pipeline's time.
llvm::Expected<QuantizationReport> formQuantizedRegions(mlir::ModuleOp module) {
  DiagnosticCollector diagnostics(*module.getContext());
  QuantizationReport report;
  mlir::PassManager passes(module.getContext());
  passes.addPass(createFormQuantizedRegions(&report));
  if (failed(passes.run(module)))
    return diagnostics.takeError("forming quantized regions failed");
  return report;
}

/// "operand 3 of graph.resize (node 'up')".
std::string describeReader(const ShapeInput &use) {
  return "operand " + std::to_string(use.operand) + " of " + use.op +
         (use.node.empty() ? "" : " (node '" + use.node + "')");
}

/// "[batch, 3, 224, 224]", with "?" for unknown dims.
std::string formatDims(const ValueSummary &value) {
  if (!value.hasShape)
    return "[unknown rank]";
  std::string text = "[";
  for (size_t i = 0; i < value.dims.size(); ++i) {
    const DimSummary &dim = value.dims[i];
    text += i ? ", " : "";
    if (dim.size >= 0)
      text += std::to_string(dim.size);
    else
      text += dim.name.empty() ? "?" : dim.name;
  }
  return text + "]";
}

/// A dynamic input dim, the flag that chooses its sizes, and the input
/// dims it covers.
struct DynamicDim {
  /// The dim_param, or INPUT.AXIS for an unnamed dim (as --buckets names
  /// it); for an input of unknown rank, the input.
  std::string name;
  std::string flag;
  /// (input, dim index); dim -1 for an input of unknown rank.
  std::vector<std::pair<std::string, int64_t>> dims;
};

/// The dynamic input dims, in order of appearance: each gets buckets
/// (--buckets NAME=...), except an input of unknown rank, which needs its
/// whole shape (--shape; N marks the sizes to choose).
std::vector<DynamicDim> dynamicDims(const ModelSummary &summary) {
  std::vector<DynamicDim> found;
  for (const ValueSummary &input : summary.inputs) {
    if (!input.hasShape) {
      found.push_back({input.name, "--shape " + input.name + "=N0xN1...",
                       {{input.name, -1}}});
      continue;
    }
    for (auto [i, dim] : llvm::enumerate(input.dims)) {
      if (dim.size >= 0)
        continue;
      std::string name = dim.name.empty()
                             ? input.name + "." + std::to_string(i)
                             : dim.name;
      auto known = llvm::find_if(
          found, [&](const DynamicDim &other) { return other.name == name; });
      if (known == found.end())
        known = found.insert(found.end(),
                             {name, "--buckets " + name + "=V1,V2,...", {}});
      known->dims.push_back({input.name, int64_t(i)});
    }
  }
  return found;
}

void printText(const CheckOptions &options, const ModelSummary &summary,
               const ImportFindings &found, llvm::raw_ostream &os) {
  auto row = [&](llvm::StringRef key) -> llvm::raw_ostream & {
    return os << llvm::left_justify(key, 12);
  };
  row("model") << options.model << "\n";
  row("ir version") << summary.irVersion << "\n";
  row("producer") << summary.producerName
                  << (summary.producerVersion.empty() ? "" : " ")
                  << summary.producerVersion << "\n";
  row("opsets");
  for (size_t i = 0; i < summary.opsets.size(); ++i)
    os << (i ? ", " : "") << summary.opsets[i].first << " "
       << summary.opsets[i].second;
  if (summary.convertedFromOpset)
    os << " (converted from opset " << summary.convertedFromOpset << " to "
       << summary.convertedToOpset << ")";
  os << "\n";
  auto printValues = [&](llvm::StringRef title,
                         const std::vector<ValueSummary> &values) {
    os << title << "\n";
    for (const ValueSummary &value : values)
      os << "  " << value.name << ": " << value.dtype << " "
         << formatDims(value) << "\n";
  };
  printValues("inputs", summary.inputs);
  printValues("outputs", summary.outputs);
  std::vector<DynamicDim> dynamic = dynamicDims(summary);
  if (dynamic.empty()) {
    os << "dynamic dims none (every input dim is fixed)\n";
  } else {
    os << "dynamic dims (graphc compile builds buckets for each: powers of "
          "two up to 64 unless a flag chooses; --dim NAME=N fixes one)\n";
    for (const DynamicDim &fix : dynamic) {
      os << "  " << fix.flag << "  for ";
      for (auto [i, dim] : llvm::enumerate(fix.dims)) {
        os << (i ? ", " : "") << dim.first;
        if (dim.second >= 0)
          os << " dim " << dim.second;
        else
          os << " (rank unknown)";
      }
      os << "\n";
    }
  }
  if (!found.shapeInputs.empty()) {
    os << "inputs whose values determine shapes (bind them with "
          "--const-input NAME=FILE.npy or NAME=V1,V2,...)\n";
    for (const ShapeInput &use : found.shapeInputs)
      os << "  " << use.input << "  " << describeReader(use) << "\n";
  }
  row("parameters") << summary.parameterCount << " ("
                    << formatBytes(summary.weightBytes);
  if (summary.externalWeightBytes > 0)
    os << ", " << formatBytes(summary.externalWeightBytes) << " external";
  os << ")\n";
  row("nodes") << summary.nodeCount << " (" << summary.ops.size()
               << " op types)\n";
  os << "ops\n";
  for (const OpCount &op : summary.ops)
    os << "  " << (op.domain == "ai.onnx" ? "" : op.domain + "::") << op.opType
       << " " << op.count << (op.supported ? "" : " (unsupported)") << "\n";
  std::string quantized = describeQuantization(found.quantization);
  if (!quantized.empty())
    row("quantized") << quantized << "\n";
  row("status") << (summary.problems.empty() ? "supported" : "unsupported")
                << "\n";
  for (const std::string &problem : summary.problems)
    os << "  " << problem << "\n";
}

nlohmann::ordered_json valueJson(const ValueSummary &value) {
  nlohmann::ordered_json dims = nullptr;
  if (value.hasShape) {
    dims = nlohmann::ordered_json::array();
    for (const DimSummary &dim : value.dims) {
      if (dim.size >= 0)
        dims.push_back(dim.size);
      else if (!dim.name.empty())
        dims.push_back(dim.name);
      else
        dims.push_back(nullptr);
    }
  }
  return {{"name", value.name}, {"dtype", value.dtype}, {"dims", dims}};
}

void printJson(const CheckOptions &options, const ModelSummary &summary,
               const ImportFindings &found, llvm::raw_ostream &os) {
  nlohmann::ordered_json json;
  json["model"] = options.model;
  json["ir_version"] = summary.irVersion;
  json["producer"] = {{"name", summary.producerName},
                      {"version", summary.producerVersion}};
  json["opsets"] = nlohmann::ordered_json::object();
  for (const auto &[domain, version] : summary.opsets)
    json["opsets"][domain] = version;
  if (summary.convertedFromOpset)
    json["opset_conversion"] = {{"from", summary.convertedFromOpset},
                                {"to", summary.convertedToOpset}};
  json["inputs"] = nlohmann::ordered_json::array();
  for (const ValueSummary &input : summary.inputs)
    json["inputs"].push_back(valueJson(input));
  json["outputs"] = nlohmann::ordered_json::array();
  for (const ValueSummary &output : summary.outputs)
    json["outputs"].push_back(valueJson(output));
  json["dynamic_dims"] = nlohmann::ordered_json::array();
  for (const DynamicDim &fix : dynamicDims(summary)) {
    nlohmann::ordered_json dims = nlohmann::ordered_json::array();
    for (const auto &[input, dim] : fix.dims)
      dims.push_back({{"input", input},
                      {"dim", dim >= 0 ? nlohmann::ordered_json(dim)
                                       : nlohmann::ordered_json(nullptr)}});
    json["dynamic_dims"].push_back(
        {{"name", fix.name}, {"flag", fix.flag}, {"dims", dims}});
  }
  json["shape_inputs"] = nlohmann::ordered_json::array();
  for (const ShapeInput &use : found.shapeInputs)
    json["shape_inputs"].push_back({{"input", use.input},
                                    {"node", use.node},
                                    {"op", use.op},
                                    {"operand", use.operand}});
  json["parameters"] = summary.parameterCount;
  json["weight_bytes"] = summary.weightBytes;
  json["external_weight_bytes"] = summary.externalWeightBytes;
  json["nodes"] = summary.nodeCount;
  json["ops"] = nlohmann::ordered_json::array();
  json["unsupported_ops"] = nlohmann::ordered_json::array();
  for (const OpCount &op : summary.ops) {
    json["ops"].push_back({{"domain", op.domain},
                           {"op", op.opType},
                           {"count", op.count},
                           {"supported", op.supported}});
    if (!op.supported)
      json["unsupported_ops"].push_back(
          {{"domain", op.domain}, {"op", op.opType}, {"nodes", op.nodes}});
  }
  // The compile summary event's field, through its text: one definition.
  if (!describeQuantization(found.quantization).empty())
    json["quantization"] = nlohmann::ordered_json::parse(
        llvm::formatv("{0}",
                      llvm::json::Value(quantizationJson(found.quantization)))
            .str());
  json["problems"] = summary.problems;
  json["supported"] = summary.problems.empty();
  // Names are bytes from the model, not necessarily UTF-8: invalid
  // sequences become U+FFFD instead of an exception.
  os << json.dump(2, ' ', /*ensure_ascii=*/false,
                  nlohmann::ordered_json::error_handler_t::replace)
     << "\n";
}

} // namespace

void addCheckCommand(CLI::App &app, int &exitCode) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App *command = app.add_subcommand(
      "check", "Report a model's contents and whether graphc supports it");
  command->add_option("model", options->model, "ONNX model (.onnx)")
      ->required();
  command->add_flag("--json", options->json, "Print the report as JSON");
  command->callback([options, &exitCode] {
    llvm::Expected<ModelSummary> summary = summarizeONNXModel(options->model);
    if (!summary) {
      exitCode = reportError(summary.takeError());
      return;
    }
    // The summary already explains unsupported ops and types; otherwise
    // the importer has the last word (malformed graphs, bad attributes,
    // external data, type inference).
    ImportFindings found;
    if (summary->problems.empty()) {
      mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
      llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> module =
          importONNXModel(options->model, context);
      if (!module)
        llvm::handleAllErrors(
            module.takeError(),
            [&](const CompileTimeInputError &error) {
              // Control flow the importer must resolve at compile time:
              // the inputs it comes from are shape inputs too.
              for (const std::string &input : error.inputs)
                found.shapeInputs.push_back(
                    {input, error.node, error.op, error.operand});
              summary->problems.push_back(error.message);
            },
            [&](const llvm::ErrorInfoBase &error) {
              summary->problems.push_back(error.message());
            });
      else if (auto main =
                   (*module)->lookupSymbol<mlir::func::FuncOp>("main")) {
        found.shapeInputs = findShapeInputs(main);
        llvm::Expected<QuantizationReport> quantization =
            formQuantizedRegions(**module);
        if (quantization)
          found.quantization = std::move(*quantization);
        else
          summary->problems.push_back(llvm::toString(quantization.takeError()));
      }
    }
    if (options->json)
      printJson(*options, *summary, found, llvm::outs());
    else
      printText(*options, *summary, found, llvm::outs());
    llvm::outs().flush();
    exitCode = summary->problems.empty() ? 0 : 1;
  });
}

} // namespace graphc::tools
