//===- ModelSummary.cpp - what `graphc check` reports about a model -------===//

#include "lib/Import/ONNX/ONNXImporter.h"
#include "lib/Import/ONNX/FunctionExpansion.h"
#include "lib/Import/ONNX/ModelValidation.h"
#include "lib/Import/ONNX/OnnxModel.h"
#include "lib/Import/ONNX/OpsetUpgrade.h"
#include "lib/Import/ONNX/TensorData.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <set>

namespace graphc {

using namespace onnx_import;

/// Describes a declared graph input or output.
static ValueSummary summarizeValue(const onnx::ValueInfoProto &info) {
  ValueSummary summary;
  summary.name = info.name();
  const onnx::TypeProto &type = info.type();
  // What the value holds when it is no tensor.
  static const std::pair<onnx::TypeProto::ValueCase, const char *>
      kNotTensors[] = {{onnx::TypeProto::kSequenceType, "sequence"},
                       {onnx::TypeProto::kMapType, "map"},
                       {onnx::TypeProto::kOptionalType, "optional"},
                       {onnx::TypeProto::kSparseTensorType, "sparse tensor"}};
  if (type.value_case() != onnx::TypeProto::kTensorType) {
    summary.dtype = "unknown";
    for (auto [kind, name] : kNotTensors)
      if (type.value_case() == kind)
        summary.dtype = name;
    return summary;
  }
  const onnx::TypeProto::Tensor &tensor = type.tensor_type();
  summary.dtype = getDataTypeInfo(tensor.elem_type()).name.str();
  summary.hasShape = tensor.has_shape();
  for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim()) {
    DimSummary dimSummary;
    if (dim.has_dim_value())
      dimSummary.size = dim.dim_value();
    else if (dim.has_dim_param())
      dimSummary.name = dim.dim_param();
    summary.dims.push_back(std::move(dimSummary));
  }
  return summary;
}

/// Adds a tensor's elements and bytes to the summary without reading data.
static void countTensor(const onnx::TensorProto &tensor,
                        ModelSummary &summary) {
  std::optional<int64_t> count = elementCount(
      llvm::ArrayRef<int64_t>(tensor.dims().data(), tensor.dims().size()));
  if (count)
    summary.parameterCount += *count;
  std::optional<int64_t> bytes = tensorByteSize(tensor);
  if (!bytes)
    return;
  summary.weightBytes += *bytes;
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
    summary.externalWeightBytes += *bytes;
}

/// Records why values with unsupported types make the model unimportable.
static void checkValueType(llvm::StringRef kind, const ValueSummary &value,
                           ModelSummary &summary) {
  static constexpr llvm::StringLiteral supported[] = {
      "float32",       "float16",      "bfloat16",       "float64",
      "int8",          "int16",        "int32",          "int64",
      "uint8",         "uint16",       "uint32",         "uint64",
      "bool",          "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
      "float8e5m2fnuz"};
  if (!llvm::is_contained(supported, value.dtype))
    summary.problems.push_back(
        ("unsupported " + kind + " '" + value.name + "' of type " + value.dtype)
            .str());
}

llvm::Expected<ModelSummary> summarizeONNXModel(llvm::StringRef path) {
  llvm::Expected<std::unique_ptr<onnx::ModelProto>> loaded =
      loadModelProto(path);
  if (!loaded)
    return loaded.takeError();
  onnx::ModelProto &model = **loaded;

  ModelSummary summary;
  summary.irVersion = model.ir_version();
  summary.producerName = model.producer_name();
  summary.producerVersion = model.producer_version();
  // The opsets the file imports; ops are those of its conversion, if any,
  // which is what the importer sees.
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    summary.opsets.emplace_back(displayDomain(opset.domain()), opset.version());
  llvm::Expected<std::optional<OpsetUpgrade>> upgrade = upgradeOldOpset(model);
  if (!upgrade) {
    summary.problems.push_back(llvm::toString(upgrade.takeError()));
  } else if (*upgrade) {
    summary.convertedFromOpset = (*upgrade)->from;
    summary.convertedToOpset = (*upgrade)->to;
  } else if (llvm::Expected<int64_t> opset = checkDefaultOpset(model); !opset) {
    summary.problems.push_back(llvm::toString(opset.takeError()));
  }
  const onnx::GraphProto &graph = model.graph();

  std::set<std::string> initializerNames;
  for (const onnx::TensorProto &tensor : graph.initializer()) {
    initializerNames.insert(tensor.name());
    countTensor(tensor, summary);
  }
  if (graph.sparse_initializer_size() > 0)
    summary.problems.push_back("unsupported sparse initializers (" +
                               std::to_string(graph.sparse_initializer_size()) +
                               ")");
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializerNames.count(input.name()))
      continue;
    summary.inputs.push_back(summarizeValue(input));
    checkValueType("input", summary.inputs.back(), summary);
  }
  for (const onnx::ValueInfoProto &output : graph.output()) {
    summary.outputs.push_back(summarizeValue(output));
    checkValueType("output", summary.outputs.back(), summary);
  }

  std::map<std::string, int64_t> versions = opsetVersions(model);
  auto isLowered = [](llvm::StringRef opType) {
    return !lookupMnemonic(opType).empty();
  };
  auto isSupported = [&](llvm::StringRef domain, llvm::StringRef opType) {
    return isDefaultDomain(domain) && isLowered(opType);
  };
  // Ops without lowering import as their ONNX function bodies: unsupported
  // are the ops of the nodes the importer sees after expanding them.
  std::vector<UnsupportedOpUse> unsupported;
  std::optional<int64_t> opset;
  if (llvm::Expected<int64_t> version = checkDefaultOpset(model))
    opset = *version;
  else
    llvm::consumeError(version.takeError());
  bool structured = false;
  if (llvm::Expected<std::vector<size_t>> order = validateModelStructure(model))
    structured = true;
  else
    llvm::consumeError(order.takeError());
  if (opset && structured) {
    onnx::ModelProto expanded = copyWithoutTensorData(model);
    auto allOutputs = [](llvm::StringRef) -> std::optional<size_t> {
      return std::nullopt;
    };
    std::vector<int64_t> nodeOpsets;
    if (llvm::Error error = expandFunctions(
            expanded, *opset, {isLowered, allOutputs}, nodeOpsets))
      summary.problems.push_back(llvm::toString(std::move(error)));
    else
      unsupported = findUnsupportedOps(expanded.graph(), versions, isSupported);
  } else {
    unsupported = findUnsupportedOps(graph, versions, isSupported);
  }

  if (!unsupported.empty())
    summary.problems.push_back(formatUnsupportedOps(unsupported));

  summary.nodeCount = graph.node_size();
  for (const onnx::NodeProto &node : graph.node()) {
    std::string domain = displayDomain(node.domain());
    auto it = llvm::find_if(summary.ops, [&](const OpCount &op) {
      return op.domain == domain && op.opType == node.op_type();
    });
    if (it == summary.ops.end()) {
      summary.ops.push_back({domain,
                             node.op_type(),
                             0,
                             isSupported(node.domain(), node.op_type()) ||
                                 (isDefaultDomain(node.domain()) && opset &&
                                  hasOnnxFunction(node.op_type(), *opset)),
                             {}});
      it = std::prev(summary.ops.end());
    }
    ++it->count;
    if (node.op_type() == "Constant" && isDefaultDomain(node.domain()))
      for (const onnx::AttributeProto &attr : node.attribute())
        if (attr.name() == "value" && attr.has_t())
          countTensor(attr.t(), summary);
  }
  for (const UnsupportedOpUse &use : unsupported)
    for (OpCount &op : summary.ops)
      if (op.domain == use.domain && op.opType == use.opType)
        op.nodes = use.nodes;
  std::stable_sort(
      summary.ops.begin(), summary.ops.end(),
      [](const OpCount &a, const OpCount &b) { return a.count > b.count; });
  return summary;
}

} // namespace graphc
