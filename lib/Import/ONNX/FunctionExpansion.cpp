//===- FunctionExpansion.cpp - ONNX ops as their function bodies ----------===//

#include "lib/Import/ONNX/FunctionExpansion.h"
#include "lib/Import/ONNX/ModelValidation.h"
#include "lib/Import/ONNX/OnnxModel.h"
#include "lib/Import/ONNX/OpsetUpgrade.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"

#ifdef GRAPHC_HAVE_ONNX_CONVERTER
#include <onnx/defs/schema.h>
#endif

#include <exception>
#include <string>

namespace graphc::onnx_import {

onnx::ModelProto copyWithoutTensorData(const onnx::ModelProto &model) {
  onnx::ModelProto copy;
  copy.set_ir_version(model.ir_version());
  *copy.mutable_opset_import() = model.opset_import();
  const onnx::GraphProto &graph = model.graph();
  onnx::GraphProto &copyGraph = *copy.mutable_graph();
  *copyGraph.mutable_node() = graph.node();
  *copyGraph.mutable_input() = graph.input();
  *copyGraph.mutable_output() = graph.output();
  *copyGraph.mutable_value_info() = graph.value_info();
  for (const onnx::TensorProto &tensor : graph.initializer()) {
    onnx::TensorProto &stub = *copyGraph.add_initializer();
    stub.set_name(tensor.name());
    stub.set_data_type(tensor.data_type());
    *stub.mutable_dims() = tensor.dims();
  }
  return copy;
}

#ifndef GRAPHC_HAVE_ONNX_CONVERTER

bool haveFunctionExpansion() { return false; }

bool hasOnnxFunction(llvm::StringRef, int64_t) { return false; }

llvm::Error expandFunctions(onnx::ModelProto &model, int64_t opset,
                            const LoweringQuery &,
                            std::vector<int64_t> &nodeOpsets) {
  nodeOpsets.assign(model.graph().node_size(), opset);
  return llvm::Error::success();
}

#else

bool haveFunctionExpansion() { return true; }

namespace {

/// Default-domain ops whose meaning changed in an opset newer than libonnx
/// 1.12 knows (17): for a model at or above that opset, 1.12's function
/// body is that of an older definition. Changes of the accepted types only
/// (opset 22's bfloat16, 19's and 21's float8 and int4) are not listed: the
/// bodies of those versions compute the same.
struct NewerDefinition {
  const char *opType;
  int64_t version;
};
constexpr NewerDefinition kNewerDefinitions[] = {
    {"ReduceL1", 18},
    {"ReduceL2", 18},
    {"ReduceLogSum", 18},
    {"ReduceLogSumExp", 18},
    {"ReduceMax", 18},
    {"ReduceMean", 18},
    {"ReduceMin", 18},
    {"ReduceProd", 18},
    {"ReduceSumSquare", 18},
    {"Split", 18},
    {"Pad", 18},
    {"Pad", 19},
    {"Resize", 18},
    {"Resize", 19},
    {"ScatterElements", 18},
    {"ScatterND", 18},
    {"LpPool", 18},
    {"OptionalHasElement", 18},
    {"OptionalGetElement", 18},
    {"AveragePool", 19},
    {"DFT", 20},
    {"GridSample", 20},
    {"QuantizeLinear", 21},
    {"DequantizeLinear", 21},
};

/// String attributes whose values ONNX enumerates but libonnx's function
/// builders do not check (they read any other value as one of them).
struct EnumeratedAttribute {
  const char *opType;
  const char *name;
  const char *values[3];
};
constexpr EnumeratedAttribute kEnumeratedAttributes[] = {
    {"NegativeLogLikelihoodLoss", "reduction", {"none", "sum", "mean"}},
    {"SoftmaxCrossEntropyLoss", "reduction", {"none", "sum", "mean"}},
};

/// The first enumerated attribute of `node` with a value ONNX does not
/// define, or null.
const onnx::AttributeProto *
invalidEnumeratedAttribute(const onnx::NodeProto &node) {
  for (const EnumeratedAttribute &entry : kEnumeratedAttributes) {
    if (node.op_type() != entry.opType)
      continue;
    for (const onnx::AttributeProto &attribute : node.attribute())
      if (attribute.name() == entry.name &&
          !llvm::is_contained(entry.values, attribute.s()))
        return &attribute;
  }
  return nullptr;
}

/// The newest default-domain opset libonnx knows.
int64_t libraryMaxOpset() {
  const auto &ranges =
      onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = ranges.find(onnx::ONNX_DOMAIN);
  return it == ranges.end() ? 0 : it->second.second;
}

/// The version of `opType` newer than libonnx knows that applies at `opset`,
/// or 0.
int64_t unknownNewerVersion(llvm::StringRef opType, int64_t opset) {
  int64_t newest = 0;
  int64_t known = libraryMaxOpset();
  for (const NewerDefinition &entry : kNewerDefinitions)
    if (opType == entry.opType && entry.version > known &&
        entry.version <= opset)
      newest = std::max(newest, entry.version);
  return newest;
}

const onnx::OpSchema *lookupSchema(llvm::StringRef opType, int64_t opset) {
  return onnx::OpSchemaRegistry::Schema(opType.str(), static_cast<int>(opset),
                                        onnx::ONNX_DOMAIN);
}

bool hasFunction(const onnx::OpSchema *schema) {
  return schema &&
         (schema->HasFunction() || schema->HasContextDependentFunction());
}

/// The first line of what `body` throws (libonnx reports failures by
/// throwing), or nullopt when it returns normally.
template <typename Body> std::optional<std::string> caught(Body body) {
  try {
    body();
    return std::nullopt;
  } catch (const std::exception &error) {
    llvm::StringRef text(error.what() ? error.what() : "");
    text = text.ltrim().split('\n').first.trim();
    return text.empty() ? std::string("unknown error") : text.str();
  } catch (...) {
    return std::string("unknown error");
  }
}

class Expander {
public:
  Expander(onnx::ModelProto &model, int64_t opset,
           const LoweringQuery &lowering, std::vector<int64_t> &nodeOpsets)
      : model(model), graph(*model.mutable_graph()), opset(opset),
        lowering(lowering), nodeOpsets(nodeOpsets) {}

  llvm::Error run();

private:
  /// Why node `index` must become its function body, or nullopt when it
  /// stays as it is.
  std::optional<std::string> expansionReason(const onnx::NodeProto &node);
  llvm::Error expandNode(const onnx::NodeProto &node, size_t index,
                         int64_t nodeOpset, int depth,
                         std::vector<onnx::NodeProto> &nodes,
                         std::vector<int64_t> &opsets,
                         std::vector<int> &depths);
  /// ONNX's inferred type of every value, for context-dependent functions.
  void inferTypes();
  /// A value name derived from `base` that no value of the graph has.
  std::string freshName(const std::string &base);

  onnx::ModelProto &model;
  onnx::GraphProto &graph;
  int64_t opset;
  const LoweringQuery &lowering;
  std::vector<int64_t> &nodeOpsets;
  llvm::StringSet<> usedNames;
  llvm::StringSet<> allNames;
  llvm::StringMap<onnx::TypeProto> types;
  bool typesInferred = false;
  int64_t addedNodes = 0;
};

} // namespace

bool hasOnnxFunction(llvm::StringRef opType, int64_t opset) {
  return !unknownNewerVersion(opType, opset) &&
         hasFunction(lookupSchema(opType, opset));
}

std::optional<std::string>
Expander::expansionReason(const onnx::NodeProto &node) {
  if (!isDefaultDomain(node.domain()))
    return std::nullopt;
  if (!lowering.isLowered(node.op_type()))
    return std::string("graphc has no lowering for it");
  // A lowered op is expanded only for an output its lowering cannot give.
  std::optional<size_t> modelled = lowering.modelledOutputs(node.op_type());
  if (!modelled)
    return std::nullopt;
  for (int i = static_cast<int>(*modelled); i < node.output_size(); ++i)
    if (!node.output(i).empty() && usedNames.contains(node.output(i)))
      return "its output " + std::to_string(i) + " '" + node.output(i) +
             "' is used and graphc's lowering models " +
             std::to_string(*modelled);
  return std::nullopt;
}

std::string Expander::freshName(const std::string &base) {
  std::string name = base;
  for (int suffix = 1; allNames.contains(name); ++suffix)
    name = base + "_" + std::to_string(suffix);
  allNames.insert(name);
  return name;
}

/// Whether a LayerNormalization of `graph` has an axis outside
/// [-rank, rank) of an input whose rank the graph declares.
static bool hasAxisOutsideDeclaredRank(const onnx::GraphProto &graph) {
  llvm::StringMap<int64_t> ranks;
  for (const onnx::ValueInfoProto &value : graph.input())
    if (value.type().has_tensor_type() &&
        value.type().tensor_type().has_shape())
      ranks[value.name()] = value.type().tensor_type().shape().dim_size();
  for (const onnx::ValueInfoProto &value : graph.value_info())
    if (value.type().has_tensor_type() &&
        value.type().tensor_type().has_shape())
      ranks[value.name()] = value.type().tensor_type().shape().dim_size();
  for (const onnx::TensorProto &tensor : graph.initializer())
    ranks[tensor.name()] = tensor.dims_size();
  for (const onnx::NodeProto &node : graph.node()) {
    if (node.op_type() != "LayerNormalization" || node.input_size() == 0)
      continue;
    auto rank = ranks.find(node.input(0));
    if (rank == ranks.end())
      continue;
    int64_t axis = -1;
    for (const onnx::AttributeProto &attribute : node.attribute())
      if (attribute.name() == "axis")
        axis = attribute.i();
    if (axis < -rank->second || axis >= rank->second)
      return true;
  }
  return false;
}

void Expander::inferTypes() {
  typesInferred = true;
  // Inference only needs the initializers' types and dims, not their data.
  onnx::ModelProto copy = copyWithoutTensorData(model);
  const onnx::GraphProto &copyGraph = copy.graph();
  // Values whose type inference cannot find stay unknown: a body builder
  // that needs one then declines, and the node is reported. libonnx 1.12's
  // LayerNormalization inference indexes its input's dims by `axis`
  // unchecked, so a model with an axis outside a declared rank is not
  // inferred at all (a fuzzed model crashed there).
  if (!hasAxisOutsideDeclaredRank(copyGraph))
    (void)inferShapes(copy);
  auto record = [&](const auto &values) {
    for (const onnx::ValueInfoProto &value : values)
      if (value.has_type())
        types[value.name()] = value.type();
  };
  record(copyGraph.input());
  record(copyGraph.value_info());
  record(copyGraph.output());
  for (const onnx::TensorProto &tensor : graph.initializer()) {
    onnx::TypeProto type;
    onnx::TypeProto::Tensor &tensorType = *type.mutable_tensor_type();
    tensorType.set_elem_type(tensor.data_type());
    for (int64_t dim : tensor.dims())
      tensorType.mutable_shape()->add_dim()->set_dim_value(dim);
    types[tensor.name()] = std::move(type);
  }
}

llvm::Error Expander::expandNode(const onnx::NodeProto &node, size_t index,
                                 int64_t nodeOpset, int depth,
                                 std::vector<onnx::NodeProto> &nodes,
                                 std::vector<int64_t> &opsets,
                                 std::vector<int> &depths) {
  std::string callerName = nodeDisplayName(node, index);
  std::string prefix = "node '" + callerName + "' (" + node.op_type() + "): ";
  std::optional<std::string> reason = expansionReason(node);
  const onnx::OpSchema *schema = lookupSchema(node.op_type(), nodeOpset);
  if (int64_t newer = unknownNewerVersion(node.op_type(), nodeOpset))
    return makeError(prefix + "unsupported: " + *reason + ", and " +
                     node.op_type() + "-" + llvm::Twine(newer) + " (opset " +
                     llvm::Twine(nodeOpset) +
                     ") is newer than the ONNX 1.12 schemas whose function "
                     "bodies graphc expands (opsets up to " +
                     llvm::Twine(libraryMaxOpset()) + ")");
  if (depth >= kMaxFunctionDepth)
    return makeError(prefix + "function bodies nest deeper than " +
                     llvm::Twine(kMaxFunctionDepth) + " levels");
  if (std::optional<std::string> error = caught([&] { schema->Verify(node); }))
    return makeError(prefix + "ONNX's schema rejects it in opset " +
                     llvm::Twine(nodeOpset) + ": " + *error);

  if (const onnx::AttributeProto *attribute = invalidEnumeratedAttribute(node))
    return makeError(prefix + "unsupported " + attribute->name() + " '" +
                     attribute->s() + "'");

  onnx::FunctionProto function;
  if (schema->HasFunction()) {
    function = *schema->GetFunction();
  } else {
    if (!typesInferred)
      inferTypes();
    std::vector<onnx::TypeProto> inputTypes;
    for (const std::string &input : node.input()) {
      auto it = types.find(input);
      inputTypes.push_back(it == types.end() ? onnx::TypeProto() : it->second);
    }
    onnx::FunctionBodyBuildContextImpl context(node, inputTypes);
    bool built = false;
    if (std::optional<std::string> error = caught([&] {
          built = schema->BuildContextDependentFunction(context, function);
        }))
      return makeError(prefix +
                       "ONNX 1.12 cannot build its function body: " + *error);
    if (!built)
      return makeError(prefix + "ONNX 1.12 cannot build its function body "
                                "for these inputs (their types may be "
                                "unknown)");
  }

  if (node.input_size() > function.input_size() ||
      node.output_size() > function.output_size())
    return makeError(prefix + "it has more inputs or outputs than its ONNX "
                              "function body declares");

  // The body's ops are read at the opset it was written for.
  int64_t bodyOpset = nodeOpset;
  for (const onnx::OperatorSetIdProto &import : function.opset_import())
    if (isDefaultDomain(import.domain()))
      bodyOpset = import.version();
  if (bodyOpset < kMinOpset) {
    // An old body whose ops mean at kMinOpset what they meant then.
    for (const onnx::NodeProto &bodyNode : function.node()) {
      const onnx::OpSchema *old = lookupSchema(bodyNode.op_type(), bodyOpset);
      const onnx::OpSchema *now = lookupSchema(bodyNode.op_type(), kMinOpset);
      if (isDefaultDomain(bodyNode.domain()) &&
          (!old || !now || old->SinceVersion() != now->SinceVersion()))
        return makeError(prefix +
                         "its ONNX function body is written for "
                         "opset " +
                         llvm::Twine(bodyOpset) + ", older than graphc reads");
    }
    bodyOpset = kMinOpset;
  }

  addedNodes += function.node_size();
  if (addedNodes > kMaxExpandedNodes)
    return makeError(prefix + "expanding ONNX functions would add more than " +
                     llvm::Twine(kMaxExpandedNodes) + " nodes");

  // Formal parameters are the caller's values; the body's own values get
  // names of their own.
  llvm::StringMap<std::string> rename;
  for (auto [position, formal] : llvm::enumerate(function.input()))
    rename[formal] = static_cast<int>(position) < node.input_size()
                         ? node.input(position)
                         : std::string();
  for (auto [position, formal] : llvm::enumerate(function.output()))
    rename[formal] = static_cast<int>(position) < node.output_size() &&
                             !node.output(position).empty()
                         ? node.output(position)
                         : freshName(callerName + "/" + formal);
  for (auto [bodyIndex, bodyNode] : llvm::enumerate(function.node())) {
    onnx::NodeProto expanded;
    expanded.set_op_type(bodyNode.op_type());
    expanded.set_domain(bodyNode.domain());
    expanded.set_name(callerName + "/" +
                      (bodyNode.name().empty() ? bodyNode.op_type() + "_" +
                                                     std::to_string(bodyIndex)
                                               : bodyNode.name()));
    for (const std::string &input : bodyNode.input()) {
      if (input.empty()) {
        expanded.add_input();
        continue;
      }
      auto it = rename.find(input);
      if (it == rename.end())
        return makeError(prefix + "its ONNX function body reads '" + input +
                         "', which it does not define");
      expanded.add_input(it->second);
    }
    for (const std::string &output : bodyNode.output()) {
      if (output.empty()) {
        expanded.add_output();
        continue;
      }
      auto it = rename.find(output);
      if (it == rename.end())
        it =
            rename.insert({output, freshName(callerName + "/" + output)}).first;
      expanded.add_output(it->second);
    }
    for (const onnx::AttributeProto &attribute : bodyNode.attribute()) {
      if (attribute.ref_attr_name().empty()) {
        *expanded.add_attribute() = attribute;
        continue;
      }
      // A reference takes the caller's attribute, else the schema's default,
      // else leaves the attribute out.
      const onnx::AttributeProto *value = nullptr;
      for (const onnx::AttributeProto &given : node.attribute())
        if (given.name() == attribute.ref_attr_name())
          value = &given;
      if (!value) {
        auto it = schema->attributes().find(attribute.ref_attr_name());
        if (it != schema->attributes().end() &&
            it->second.default_value.type() != onnx::AttributeProto::UNDEFINED)
          value = &it->second.default_value;
      }
      if (!value)
        continue;
      onnx::AttributeProto &copy = *expanded.add_attribute();
      copy = *value;
      copy.set_name(attribute.name());
    }
    for (const std::string &input : expanded.input())
      usedNames.insert(input);
    nodes.push_back(std::move(expanded));
    opsets.push_back(bodyOpset);
    depths.push_back(depth + 1);
  }
  return llvm::Error::success();
}

llvm::Error Expander::run() {
  nodeOpsets.assign(graph.node_size(), opset);
  std::vector<int> depths(graph.node_size(), 0);
  for (const onnx::ValueInfoProto &value : graph.input())
    allNames.insert(value.name());
  for (const onnx::ValueInfoProto &value : graph.output()) {
    allNames.insert(value.name());
    usedNames.insert(value.name());
  }
  for (const onnx::ValueInfoProto &value : graph.value_info())
    allNames.insert(value.name());
  for (const onnx::TensorProto &tensor : graph.initializer())
    allNames.insert(tensor.name());
  for (const onnx::NodeProto &node : graph.node()) {
    allNames.insert(node.input().begin(), node.input().end());
    allNames.insert(node.output().begin(), node.output().end());
    usedNames.insert(node.input().begin(), node.input().end());
  }

  // One level per round, so that ONNX's type inference sees the bodies of
  // the previous round before context-dependent functions inside them are
  // built.
  while (true) {
    std::vector<size_t> expand;
    for (int i = 0; i < graph.node_size(); ++i)
      if (expansionReason(graph.node(i)) &&
          hasFunction(lookupSchema(graph.node(i).op_type(), nodeOpsets[i])))
        expand.push_back(i);
    if (expand.empty())
      return llvm::Error::success();
    typesInferred = false;
    types.clear();
    std::vector<onnx::NodeProto> nodes;
    std::vector<int64_t> opsets;
    std::vector<int> newDepths;
    size_t next = 0;
    for (int i = 0; i < graph.node_size(); ++i) {
      if (next < expand.size() && expand[next] == static_cast<size_t>(i)) {
        ++next;
        if (llvm::Error error = expandNode(graph.node(i), i, nodeOpsets[i],
                                           depths[i], nodes, opsets, newDepths))
          return error;
        continue;
      }
      nodes.push_back(graph.node(i));
      opsets.push_back(nodeOpsets[i]);
      newDepths.push_back(depths[i]);
    }
    graph.clear_node();
    for (onnx::NodeProto &node : nodes)
      *graph.add_node() = std::move(node);
    nodeOpsets = std::move(opsets);
    depths = std::move(newDepths);
  }
}

llvm::Error expandFunctions(onnx::ModelProto &model, int64_t opset,
                            const LoweringQuery &lowering,
                            std::vector<int64_t> &nodeOpsets) {
  return Expander(model, opset, lowering, nodeOpsets).run();
}

#endif

} // namespace graphc::onnx_import
