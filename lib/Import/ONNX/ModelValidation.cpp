//===- ModelValidation.cpp - what ONNX requires of a model ----------------===//

#include "lib/Import/ONNX/ModelValidation.h"
#include "lib/Import/ONNX/NodeOrder.h"
#include "lib/Import/ONNX/OnnxModel.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <vector>

namespace graphc::onnx_import {

namespace {

struct SchemaRow {
  llvm::StringRef opType;
  OpSchemaInfo info;
};

} // namespace

std::optional<OpSchemaInfo> lookupOpSchema(llvm::StringRef opType,
                                           int64_t opset) {
  static const llvm::StringMap<std::vector<OpSchemaInfo>> table = [] {
    llvm::StringMap<std::vector<OpSchemaInfo>> map;
#define GRAPHC_ONNX_SCHEMA(onnxName, sinceVersion, inputs, outputs,            \
                           attributes)                                         \
  map[#onnxName].push_back({sinceVersion, inputs, outputs, attributes});
#include "lib/Import/ONNX/OpTable.def"
    return map;
  }();
  auto it = table.find(opType);
  if (it == table.end())
    return std::nullopt;
  // Rows are in increasing sinceVersion order.
  std::optional<OpSchemaInfo> applies;
  for (const OpSchemaInfo &info : it->second)
    if (info.sinceVersion <= opset)
      applies = info;
  return applies;
}

std::string printableName(llvm::StringRef name) {
  std::string text;
  for (char c : name) {
    if (c == '\0')
      text += "\\0";
    else
      text += c;
  }
  return text;
}

/// Fails when `name`, which `what` describes, holds a NUL byte: C strings
/// downstream would cut it short and merge distinct values.
static llvm::Error checkName(const std::string &name, const llvm::Twine &what) {
  if (name.find('\0') == std::string::npos)
    return llvm::Error::success();
  return makeError(what + " '" + printableName(name) + "' contains a NUL byte");
}

/// Checks the names of `values`, and that no two are the same.
template <typename Protos>
static llvm::Error checkDistinctNames(const Protos &values,
                                      const std::string &what,
                                      const char *verb) {
  llvm::StringSet<> seen;
  for (const auto &value : values) {
    if (llvm::Error error = checkName(value.name(), what))
      return error;
    if (!seen.insert(value.name()).second)
      return makeError(what + " '" + value.name() + "' is " + verb +
                       " more than once");
  }
  return llvm::Error::success();
}

static llvm::Error checkValueNames(const onnx::GraphProto &graph) {
  if (llvm::Error error = checkName(graph.name(), "graph name"))
    return error;
  if (llvm::Error error =
          checkDistinctNames(graph.input(), "graph input", "declared"))
    return error;
  if (llvm::Error error =
          checkDistinctNames(graph.initializer(), "initializer", "defined"))
    return error;
  for (const onnx::ValueInfoProto &output : graph.output())
    if (llvm::Error error = checkName(output.name(), "graph output"))
      return error;
  for (const onnx::ValueInfoProto &info : graph.value_info())
    if (llvm::Error error = checkName(info.name(), "value_info"))
      return error;
  return llvm::Error::success();
}

static std::string nodePrefix(const onnx::NodeProto &node, size_t index) {
  return "node '" + nodeDisplayName(node, index) + "' (" + node.op_type() +
         "): ";
}

/// Subgraphs nest at most this deep (a Loop in an If in a Scan ...): the
/// checks and the importer recurse once per level.
constexpr int kMaxSubgraphDepth = 16;

/// The graph attributes an op takes: If's branches, Loop's and Scan's body.
static bool takesSubgraph(llvm::StringRef opType, llvm::StringRef attribute) {
  if (opType == "If")
    return attribute == "then_branch" || attribute == "else_branch";
  return (opType == "Loop" || opType == "Scan") && attribute == "body";
}

static llvm::Error checkGraphNames(const onnx::GraphProto &graph, int depth);

/// Checks the names a node gives and uses, and those of its subgraphs,
/// which only the control-flow ops may hold (other ops' graph attributes,
/// like SequenceMap's body, graphc does not import).
static llvm::Error checkNodeNames(const onnx::NodeProto &node, size_t index,
                                  int depth) {
  if (llvm::Error error =
          checkName(node.name(), "node name of " + node.op_type() + " node"))
    return error;
  std::string prefix = nodePrefix(node, index);
  for (const std::string &input : node.input())
    if (llvm::Error error = checkName(input, prefix + "input"))
      return error;
  for (const std::string &output : node.output())
    if (llvm::Error error = checkName(output, prefix + "output"))
      return error;
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (llvm::Error error = checkName(attr.name(), prefix + "attribute"))
      return error;
    if (!attr.has_g() && attr.graphs_size() == 0)
      continue;
    if (attr.graphs_size() > 0 || !takesSubgraph(node.op_type(), attr.name()))
      return makeError(prefix + "attribute '" + attr.name() +
                       "' holds a subgraph; graphc imports subgraphs only "
                       "as the branches of If and the bodies of Loop and "
                       "Scan");
    if (depth + 1 > kMaxSubgraphDepth)
      return makeError(prefix + "subgraphs nest more than " +
                       llvm::Twine(kMaxSubgraphDepth) + " levels deep");
    if (llvm::Error error = checkGraphNames(attr.g(), depth + 1))
      return makeError(prefix + "attribute '" + attr.name() +
                       "': " + llvm::toString(std::move(error)));
  }
  return llvm::Error::success();
}

/// Checks the names of `graph`'s values and nodes, subgraphs included.
static llvm::Error checkGraphNames(const onnx::GraphProto &graph, int depth) {
  if (llvm::Error error = checkValueNames(graph))
    return error;
  for (int index = 0; index < graph.node_size(); ++index)
    if (llvm::Error error = checkNodeNames(graph.node(index), index, depth))
      return error;
  return llvm::Error::success();
}

/// Checks one node against the schema of its op at `opset`.
static llvm::Error checkNode(const onnx::NodeProto &node, size_t index,
                             int64_t opset) {
  std::string prefix = nodePrefix(node, index);
  std::optional<OpSchemaInfo> schema = lookupOpSchema(node.op_type(), opset);
  if (!schema)
    return makeError(prefix + node.op_type() + " is not defined in opset " +
                     llvm::Twine(opset));

  // Inputs: every required slot given and not "", no more than the op takes.
  llvm::StringRef formal = schema->inputs;
  // 'v': one or more trailing values, 'w': zero or more.
  bool variadic = formal.ends_with("v") || formal.ends_with("w");
  size_t given = node.input_size();
  if (!variadic && given > formal.size())
    return makeError(prefix + "has " + llvm::Twine(given) + " inputs, " +
                     node.op_type() + " takes at most " +
                     llvm::Twine(formal.size()));
  // Past the formal list only elements of a trailing variadic input remain.
  for (size_t slot = 0; slot < std::max(formal.size(), given); ++slot) {
    if (slot < formal.size() &&
        (formal[slot] == 'o' || (formal[slot] == 'w' && slot >= given)))
      continue;
    if (slot >= given)
      return makeError(prefix + "required input " + llvm::Twine(slot) +
                       " is missing");
    if (node.input(slot).empty())
      return makeError(prefix + "required input " + llvm::Twine(slot) +
                       " is empty");
  }

  llvm::StringRef outputs = schema->outputs;
  if (!outputs.ends_with("v") &&
      static_cast<size_t>(node.output_size()) > outputs.size())
    return makeError(prefix + "has " + llvm::Twine(node.output_size()) +
                     " outputs, " + node.op_type() + " has at most " +
                     llvm::Twine(outputs.size()) + " in opset " +
                     llvm::Twine(opset));
  if (node.output_size() == 0)
    return makeError(prefix + "has no outputs");

  llvm::SmallVector<llvm::StringRef> accepted;
  schema->attributes.split(accepted, ' ', -1, /*KeepEmpty=*/false);
  llvm::StringSet<> seen;
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (!llvm::is_contained(accepted, attr.name()))
      return makeError(prefix + "unknown attribute '" + attr.name() + "' of " +
                       node.op_type() + " in opset " + llvm::Twine(opset));
    if (!seen.insert(attr.name()).second)
      return makeError(prefix + "attribute '" + attr.name() +
                       "' is given more than once");
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<size_t>>
validateModelStructure(const onnx::ModelProto &model) {
  if (model.ir_version() > kMaxIrVersion)
    return makeError(
        "unsupported IR version " + llvm::Twine(model.ir_version()) +
        " (graphc reads IR versions up to " + llvm::Twine(kMaxIrVersion) + ")");
  const onnx::GraphProto &graph = model.graph();
  if (llvm::Error error = checkGraphNames(graph, /*depth=*/0))
    return std::move(error);
  return topologicalNodeOrder(graph);
}

llvm::Expected<std::vector<size_t>>
validateModel(const onnx::ModelProto &model, int64_t opset,
              llvm::ArrayRef<int64_t> nodeOpsets) {
  llvm::Expected<std::vector<size_t>> order = validateModelStructure(model);
  if (!order)
    return order.takeError();
  const onnx::GraphProto &graph = model.graph();
  for (int index = 0; index < graph.node_size(); ++index)
    if (llvm::Error error = checkNode(
            graph.node(index), index,
            index < static_cast<int>(nodeOpsets.size()) ? nodeOpsets[index]
                                                        : opset))
      return std::move(error);
  return order;
}

llvm::Expected<std::vector<size_t>>
validateSubgraph(const onnx::GraphProto &graph, int64_t opset,
                 llvm::function_ref<bool(llvm::StringRef)> isOuter) {
  // Names were checked with the model's (checkGraphNames); the schemas of
  // the nodes are checked here, once the importer reaches the subgraph.
  for (int index = 0; index < graph.node_size(); ++index)
    if (llvm::Error error = checkNode(graph.node(index), index, opset))
      return std::move(error);
  return topologicalNodeOrder(graph, isOuter);
}

} // namespace graphc::onnx_import
