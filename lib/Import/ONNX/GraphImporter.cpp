//===- GraphImporter.cpp - an ONNX ModelProto as func.func @main ----------===//
//
// Builds `func.func @main` in the graph dialect from an ONNX graph: inputs
// become arguments, initializers constants, nodes graph ops (in dependency
// order, see VersionNormalization.h), outputs results. Arguments and results
// carry their ONNX names and dim_param names.
//
//===----------------------------------------------------------------------===//

#include "lib/Import/ONNX/ConstantInputs.h"
#include "lib/Import/ONNX/ControlFlowImport.h"
#include "lib/Import/ONNX/FunctionExpansion.h"
#include "lib/Import/ONNX/ModelValidation.h"
#include "lib/Import/ONNX/NodeBuilder.h"
#include "lib/Import/ONNX/ONNXImporter.h"
#include "lib/Import/ONNX/OnnxModel.h"
#include "lib/Import/ONNX/OpsetUpgrade.h"
#include "lib/Import/ONNX/QuantizationImport.h"
#include "lib/Import/ONNX/TensorData.h"
#include "lib/Import/ONNX/TensorImport.h"
#include "lib/Import/ONNX/VersionNormalization.h"

#include "dialects/Graph/GraphDialect.h"
#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/GraphTypeInference.h"
#include "dialects/Graph/PackedBoundary.h"
#include "lib/HostKernels/HostEvaluator.h"
#include "passes/ShapeInputs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <queue>

namespace graphc {

using namespace mlir;
using namespace onnx_import;

namespace {

/// Captures the diagnostics emitted while importing, so that they become one
/// llvm::Error line instead of being printed.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diagnostic) {
          messages.push_back({diagnostic.getLocation(), diagnostic.str()});
          return success();
        }) {}

  /// The collected messages joined by "; " (prefixed with the name of their
  /// location when `withLocation`), or `fallback` when there are none.
  /// Clears the collection.
  std::string take(llvm::StringRef fallback, bool withLocation = false) {
    std::string text;
    llvm::raw_string_ostream os(text);
    for (auto [index, entry] : llvm::enumerate(messages)) {
      os << (index ? "; " : "");
      if (auto name = dyn_cast<NameLoc>(entry.first); name && withLocation)
        os << "'" << name.getName().getValue() << "': ";
      os << entry.second;
    }
    messages.clear();
    return text.empty() ? fallback.str() : text;
  }

private:
  std::vector<std::pair<Location, std::string>> messages;
  ScopedDiagnosticHandler handler;
};

/// Nodes the importer creates from subgraphs in all (unrolled iterations and
/// branches counted each time): a bound on what a small file can make it
/// build.
constexpr int64_t kMaxSubgraphNodes = 1 << 18;

class GraphImporter : public SubgraphImporter {
public:
  GraphImporter(MLIRContext &context, onnx::ModelProto &model,
                llvm::StringRef path, const ImportOptions &options)
      : context(context), model(model), graph(*model.mutable_graph()),
        baseDir(llvm::sys::path::parent_path(path)), options(options),
        fileLoc(FileLineColLoc::get(&context, path, 0, 0)),
        diagnostics(&context) {}

  llvm::Expected<OwningOpRef<ModuleOp>> run();

private:
  bool isLowered(llvm::StringRef opType);
  llvm::Error expandOnnxFunctions();
  llvm::Error checkSupport();
  llvm::Expected<Type> convertValueType(const onnx::ValueInfoProto &info,
                                        llvm::StringRef kind);
  ArrayAttr dimNames(const onnx::ValueInfoProto &info, Type type);
  llvm::Expected<NamedAttrList> convertAttributes(onnx::NodeProto &node,
                                                  llvm::StringRef nodeName);
  /// The error for a node whose ops did not build: `message`, and, where an
  /// operand has dynamic dims that model inputs' values compute, which
  /// inputs --const-input would fix (a CompileTimeInputError).
  llvm::Error explainFailure(std::string message, llvm::ArrayRef<Value> inputs);
  /// importTensor, once per TensorProto: importing moves the data out, and
  /// the nodes of a subgraph import once per iteration or branch.
  llvm::Expected<ElementsAttr> importTensorOnce(onnx::TensorProto &tensor,
                                                const llvm::Twine &what);
  /// Imports `node`, which `name` names in messages and locations, at the
  /// default-domain opset `nodeOpset`; `inSubgraph` for the nodes of If
  /// branches and Loop and Scan bodies.
  llvm::Error importNode(OpBuilder &builder, onnx::NodeProto &node,
                         const std::string &name, int64_t nodeOpset,
                         bool inSubgraph);
  llvm::Expected<llvm::SmallVector<Value>>
  importSubgraph(onnx::GraphProto &body, llvm::ArrayRef<Value> arguments,
                 const std::string &prefix) override;
  std::vector<std::string> inputSources(Value value) override {
    return findInputSources(function, value);
  }
  int64_t maxLoopIterations() const override {
    return options.maxLoopIterations;
  }
  llvm::Error importOutputs(OpBuilder &builder, func::FuncOp function);
  /// Records on each op this node's import created and whose results are
  /// node outputs which ONNX tensor each result holds (withTensorNames).
  void recordTensorNames(const onnx::NodeProto &node, Location nodeLoc,
                         llvm::ArrayRef<Value> results);

  /// "node 'name' (OpType): " for error messages.
  static std::string nodePrefix(const onnx::NodeProto &node,
                                llvm::StringRef name) {
    return "node '" + name.str() + "' (" + node.op_type() + "): ";
  }

  MLIRContext &context;
  onnx::ModelProto &model;
  onnx::GraphProto &graph;
  std::string baseDir;
  const ImportOptions &options;
  Location fileLoc;
  DiagnosticCollector diagnostics;
  int64_t opset = 0;
  /// The MLIR value of every ONNX value imported so far.
  llvm::StringMap<Value> values;
  /// ONNX values read by some node or returned by the graph.
  llvm::StringSet<> usedNames;
  /// The default-domain opset of each node (those of function bodies may
  /// differ from the model's); empty when all are the model's.
  std::vector<int64_t> nodeOpsets;
  func::FuncOp function;
  /// The builder every op is created with: at the end of main's body, or
  /// in the body of a graph.loop while that imports.
  OpBuilder *builder = nullptr;
  /// The node order of each subgraph imported so far.
  llvm::DenseMap<const onnx::GraphProto *, std::vector<size_t>> subgraphOrders;
  llvm::DenseMap<const onnx::TensorProto *, ElementsAttr> importedTensors;
  int64_t subgraphNodes = 0;
  /// ONNX values of type UINT4 (21) or INT4 (22), held unpacked in uint8 or
  /// int8 values: the initializers and Constants of those types, Casts and
  /// QuantizeLinears to them, and the ops that pass them on unchanged.
  llvm::StringMap<int32_t> fourBitTensors;
  void recordFourBitOutput(const onnx::NodeProto &node);
};

/// Adds the names the nodes of `graph` and of its subgraphs read to `names`.
void collectUsedNames(const onnx::GraphProto &graph, llvm::StringSet<> &names) {
  for (const onnx::NodeProto &node : graph.node()) {
    names.insert(node.input().begin(), node.input().end());
    for (const onnx::AttributeProto &attr : node.attribute())
      if (attr.has_g()) {
        collectUsedNames(attr.g(), names);
        for (const onnx::ValueInfoProto &output : attr.g().output())
          names.insert(output.name());
      }
  }
}

} // namespace

bool GraphImporter::isLowered(llvm::StringRef opType) {
  llvm::StringRef mnemonic = lookupMnemonic(opType);
  return !mnemonic.empty() && isGraphOpRegistered(&context, mnemonic);
}

llvm::Error GraphImporter::expandOnnxFunctions() {
  // Models with a bad opset or structure are left to the checks that report
  // them; ONNX's type inference trusts the structure.
  llvm::Expected<int64_t> version = checkDefaultOpset(model);
  if (!version) {
    llvm::consumeError(version.takeError());
    return llvm::Error::success();
  }
  if (llvm::Expected<std::vector<size_t>> order = validateModelStructure(model);
      !order) {
    llvm::consumeError(order.takeError());
    return llvm::Error::success();
  }
  auto lowered = [&](llvm::StringRef opType) { return isLowered(opType); };
  auto modelledOutputs = [&](llvm::StringRef opType) -> std::optional<size_t> {
    // Control flow gives every output its subgraphs give.
    if (isControlFlowOp(opType))
      return std::nullopt;
    return graphOpResultCount(&context, lookupMnemonic(opType));
  };
  LoweringQuery lowering{lowered, modelledOutputs};
  return expandFunctions(model, *version, lowering, nodeOpsets);
}

llvm::Error GraphImporter::checkSupport() {
  // Unsupported ops and an unsupported opset are reported together, so that
  // one run shows everything that stands in the way.
  std::vector<std::string> problems;
  auto isSupported = [&](llvm::StringRef domain, llvm::StringRef opType) {
    return isDefaultDomain(domain) && isLowered(opType);
  };
  std::vector<UnsupportedOpUse> unsupported =
      findUnsupportedOps(graph, opsetVersions(model), isSupported);
  if (!unsupported.empty())
    problems.push_back(formatUnsupportedOps(unsupported));
  llvm::Expected<int64_t> version = checkDefaultOpset(model);
  if (version)
    opset = *version;
  else
    problems.push_back(llvm::toString(version.takeError()));
  if (graph.sparse_initializer_size() > 0)
    problems.push_back("unsupported sparse initializer '" +
                       graph.sparse_initializer(0).values().name() + "'");
  if (problems.empty())
    return llvm::Error::success();
  return makeError(llvm::join(problems, "; "));
}

/// Why a 4-bit model input or output with a dynamic dim is refused: it
/// crosses the boundary packed (QuantizationImport.h), which the graph ops
/// that unpack and pack it build at static shapes.
static constexpr const char *kFourBitStatic =
    " (4-bit inputs and outputs are packed two to a byte and take static "
    "shapes only)";

llvm::Expected<Type>
GraphImporter::convertValueType(const onnx::ValueInfoProto &info,
                                llvm::StringRef kind) {
  if (!info.type().has_tensor_type())
    return makeError("unsupported " + kind + " '" + info.name() +
                     "': only tensors are supported");
  const onnx::TypeProto::Tensor &tensor = info.type().tensor_type();
  // 4-bit values are held unpacked in their 8-bit type (isFourBitDtype).
  const bool fourBit = isFourBitDtype(tensor.elem_type());
  Type elementType = fourBit ? fourBitHolder(&context, tensor.elem_type())
                             : convertElementType(&context, tensor.elem_type());
  if (!elementType)
    return makeError("unsupported " + kind + " '" + info.name() +
                     "' of element type " +
                     getDataTypeInfo(tensor.elem_type()).name);
  if (fourBit && !tensor.has_shape())
    return makeError(kind + " '" + info.name() + "' of element type " +
                     getDataTypeInfo(tensor.elem_type()).name +
                     " has no shape" + kFourBitStatic);
  if (fourBit)
    for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim())
      if (!dim.has_dim_value() || dim.dim_value() < 0)
        return makeError(
            kind + " '" + info.name() + "' of element type " +
            getDataTypeInfo(tensor.elem_type()).name + " has a dynamic dim" +
            (dim.dim_param().empty() ? std::string()
                                     : " '" + dim.dim_param() + "'") +
            kFourBitStatic);
  if (!tensor.has_shape())
    return UnrankedTensorType::get(elementType);
  llvm::SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim())
    shape.push_back(dim.has_dim_value() && dim.dim_value() >= 0
                        ? dim.dim_value()
                        : ShapedType::kDynamic);
  if (!graph::isRepresentableShape(shape, /*elementBytes=*/8))
    return makeError(kind + " '" + info.name() +
                     "' has dims too large to represent");
  return RankedTensorType::get(shape, elementType);
}

ArrayAttr GraphImporter::dimNames(const onnx::ValueInfoProto &info, Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return {};
  const onnx::TensorShapeProto &shape = info.type().tensor_type().shape();
  bool declared = info.type().has_tensor_type() &&
                  info.type().tensor_type().has_shape() &&
                  shape.dim_size() == ranked.getRank();
  llvm::SmallVector<Attribute> names;
  for (int64_t i = 0; i < ranked.getRank(); ++i)
    names.push_back(StringAttr::get(
        &context, declared ? shape.dim(i).dim_param() : std::string()));
  return ArrayAttr::get(&context, names);
}

llvm::Expected<NamedAttrList>
GraphImporter::convertAttributes(onnx::NodeProto &node,
                                 llvm::StringRef nodeName) {
  Builder b(&context);
  NamedAttrList attributes;
  for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
    std::string prefix = nodePrefix(node, nodeName);
    if (!attr.ref_attr_name().empty())
      return makeError(prefix + "unsupported reference attribute '" +
                       attr.name() + "'");
    Attribute value;
    switch (attr.type()) {
    case onnx::AttributeProto::FLOAT:
      value = b.getF32FloatAttr(attr.f());
      break;
    case onnx::AttributeProto::INT:
      if (isDataTypeAttribute(node.op_type(), attr.name())) {
        Type type = convertElementType(&context, attr.i());
        // Cast to a 4-bit integer: i4 or ui4 only says so to importCast,
        // which holds the result in 8 bits.
        if (!type && isFourBitDtype(attr.i()) && node.op_type() == "Cast")
          type = IntegerType::get(&context, 4,
                                  attr.i() == 21 ? IntegerType::Unsigned
                                                 : IntegerType::Signless);
        if (!type)
          return makeError(prefix + "unsupported data type " +
                           getDataTypeInfo(attr.i()).name + " in attribute '" +
                           attr.name() + "'");
        value = TypeAttr::get(type);
      } else {
        value = b.getI64IntegerAttr(attr.i());
      }
      break;
    case onnx::AttributeProto::STRING:
      value = b.getStringAttr(attr.s());
      break;
    case onnx::AttributeProto::INTS:
      value = b.getDenseI64ArrayAttr(
          llvm::ArrayRef<int64_t>(attr.ints().data(), attr.ints().size()));
      break;
    case onnx::AttributeProto::STRINGS: {
      llvm::SmallVector<Attribute> strings;
      for (const std::string &text : attr.strings())
        strings.push_back(b.getStringAttr(text));
      value = b.getArrayAttr(strings);
      break;
    }
    case onnx::AttributeProto::FLOATS:
      value = b.getDenseF32ArrayAttr(
          llvm::ArrayRef<float>(attr.floats().data(), attr.floats().size()));
      break;
    case onnx::AttributeProto::TENSOR: {
      llvm::Expected<ElementsAttr> tensor = importTensorOnce(
          *attr.mutable_t(), "attribute '" + attr.name() + "'");
      if (!tensor)
        return makeError(prefix + llvm::toString(tensor.takeError()));
      value = *tensor;
      break;
    }
    default:
      return makeError(prefix + "unsupported attribute '" + attr.name() +
                       "' of kind " +
                       onnx::AttributeProto::AttributeType_Name(attr.type()));
    }
    attributes.set(attr.name(), value);
  }
  return attributes;
}

llvm::Error GraphImporter::explainFailure(std::string message,
                                          llvm::ArrayRef<Value> inputs) {
  auto dynamic = [](Value value) {
    auto type = value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
    return type && !type.hasStaticShape();
  };
  if (!llvm::any_of(inputs, dynamic))
    return makeError(message);
  // A dim can be unknown because an input's values compute it (a shape
  // split from an input): then binding that input is the way out.
  std::vector<ShapeInput> uses = findShapeInputs(function);
  if (uses.empty())
    return makeError(message);
  std::vector<std::string> sources;
  for (const ShapeInput &use : uses)
    if (!llvm::is_contained(sources, use.input))
      sources.push_back(use.input);
  message += "; an operand's dims are dynamic, and fixed input shapes do not "
             "determine them where shapes are computed from " +
             constInputHint(sources);
  return llvm::make_error<CompileTimeInputError>(
      std::move(message), std::move(sources), uses.front().node,
      uses.front().op, uses.front().operand);
}

llvm::Expected<ElementsAttr>
GraphImporter::importTensorOnce(onnx::TensorProto &tensor,
                                const llvm::Twine &what) {
  if (ElementsAttr known = importedTensors.lookup(&tensor))
    return known;
  llvm::Expected<ElementsAttr> value =
      importTensor(&context, tensor, baseDir, what.str(), options);
  if (value)
    importedTensors[&tensor] = *value;
  return value;
}

llvm::Error GraphImporter::importNode(OpBuilder &builder, onnx::NodeProto &node,
                                      const std::string &name,
                                      int64_t nodeOpset, bool inSubgraph) {
  NodeBuilder nodeBuilder(
      builder, NameLoc::get(StringAttr::get(&context, name), fileLoc));
  llvm::SmallVector<Value> inputs;
  for (const std::string &input : node.input())
    inputs.push_back(input.empty() ? Value() : values.lookup(input));
  FailureOr<llvm::SmallVector<Value>> results;
  if (isControlFlowOp(node.op_type())) {
    llvm::Expected<llvm::SmallVector<Value>> flowed =
        importControlFlow(*this, nodeBuilder, node, inputs);
    if (!flowed)
      return flowed.takeError();
    results = std::move(*flowed);
  } else {
    llvm::Expected<NamedAttrList> attributes = convertAttributes(node, name);
    if (!attributes)
      return attributes.takeError();
    NodeInfo info{node, nodeOpset, std::move(inputs), std::move(*attributes),
                  lookupMnemonic(node.op_type())};
    info.inputs.resize(inputSlotCount(node.op_type(), info.inputs.size()));
    info.fourBitInputs.resize(info.inputs.size());
    for (auto [slot, input] : llvm::enumerate(node.input()))
      if (slot < info.fourBitInputs.size())
        info.fourBitInputs[slot] = fourBitTensors.lookup(input);
    // Inputs the node's ops are made of must be known here; those
    // computed from model inputs are shape inputs --const-input binds.
    SmallVector<unsigned> unknown;
    for (unsigned slot : importTimeConstantSlots(node.op_type()))
      if (slot < info.inputs.size() && info.inputs[slot] &&
          !matchPattern(info.inputs[slot], m_Constant()))
        unknown.push_back(slot);
    if (!unknown.empty()) {
      std::vector<std::string> sources;
      for (unsigned slot : unknown)
        for (std::string &source : inputSources(info.inputs[slot]))
          if (!llvm::is_contained(sources, source))
            sources.push_back(std::move(source));
      return compileTimeInputError(
          name, node, std::move(sources), unknown.front(),
          "input " + llvm::Twine(unknown.front()) + " '" +
              node.input(unknown.front()) + "'",
          "graphc computes " + node.op_type() + " from it at import");
    }
    results = onnx_import::importNode(nodeBuilder, info);
    if (failed(results))
      return explainFailure(nodePrefix(node, name) +
                                diagnostics.take("result types do not infer"),
                            info.inputs);
  }

  recordFourBitOutput(node);
  // Inside subgraphs tensor names repeat (an unrolled body imports its
  // nodes once per iteration) and name nothing a user can observe.
  if (!inSubgraph)
    recordTensorNames(node, nodeBuilder.getLoc(), *results);
  for (auto [position, output] : llvm::enumerate(node.output())) {
    if (output.empty())
      continue;
    if (position < results->size()) {
      values[output] = (*results)[position];
      continue;
    }
    // Optional outputs that graphc does not model may only be left unused.
    if (usedNames.contains(output))
      return makeError(
          nodePrefix(node, name) + "unsupported optional output " +
          llvm::Twine(position) + " '" + output + "' is used; graphc models " +
          llvm::Twine(results->size()) + " output(s) of " + node.op_type());
  }
  return llvm::Error::success();
}

void GraphImporter::recordFourBitOutput(const onnx::NodeProto &node) {
  llvm::StringRef opType = node.op_type();
  // If, Loop and Scan pass on what their subgraphs return (a Loop body's
  // first output is its condition): 4-bit by its declared type or by the
  // node that made it.
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (!attr.has_g())
      continue;
    const onnx::GraphProto &body = attr.g();
    int skip = opType == "Loop" ? 1 : 0;
    for (int i = 0; i < node.output_size() && i + skip < body.output_size();
         ++i) {
      const onnx::ValueInfoProto &returned = body.output(i + skip);
      int32_t dtype = returned.type().tensor_type().elem_type();
      if (!isFourBitDtype(dtype))
        dtype = fourBitTensors.lookup(returned.name());
      if (isFourBitDtype(dtype) && !node.output(i).empty())
        fourBitTensors[node.output(i)] = dtype;
    }
  }
  if (node.output_size() == 0 || node.output(0).empty())
    return;
  auto input = [&](int slot) -> int32_t {
    return slot < node.input_size() ? fourBitTensors.lookup(node.input(slot))
                                    : 0;
  };
  int32_t dtype = 0;
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (opType == "Constant" && attr.name() == "value" && attr.has_t())
      dtype = attr.t().data_type();
    else if ((opType == "Cast" && attr.name() == "to") ||
             (opType == "QuantizeLinear" && attr.name() == "output_dtype"))
      dtype = static_cast<int32_t>(attr.i());
  }
  if (opType == "QuantizeLinear" && !isFourBitDtype(dtype))
    dtype = input(2);
  else if (opType == "CastLike")
    dtype = input(1);
  else if (llvm::is_contained({"Identity", "Reshape", "Flatten", "Squeeze",
                               "Unsqueeze", "Transpose"},
                              opType))
    dtype = input(0);
  if (isFourBitDtype(dtype))
    fourBitTensors[node.output(0)] = dtype;
}

llvm::Expected<llvm::SmallVector<Value>>
GraphImporter::importSubgraph(onnx::GraphProto &body,
                              llvm::ArrayRef<Value> arguments,
                              const std::string &prefix) {
  if (static_cast<size_t>(body.input_size()) != arguments.size())
    return makeError("subgraph of '" + prefix + "' has " +
                     llvm::Twine(body.input_size()) + " inputs, " +
                     llvm::Twine(arguments.size()) + " expected");
  subgraphNodes += body.node_size();
  if (subgraphNodes > kMaxSubgraphNodes)
    return makeError("'" + prefix + "': control flow would import more than " +
                     llvm::Twine(kMaxSubgraphNodes) +
                     " nodes from subgraphs (unrolled iterations counted "
                     "each time)");
  auto order = subgraphOrders.find(&body);
  if (order == subgraphOrders.end()) {
    auto isOuter = [&](llvm::StringRef name) { return values.count(name); };
    llvm::Expected<std::vector<size_t>> checked =
        validateSubgraph(body, opset, isOuter);
    if (!checked)
      return makeError("'" + prefix +
                       "': " + llvm::toString(checked.takeError()));
    order = subgraphOrders.try_emplace(&body, std::move(*checked)).first;
  }

  // The subgraph's names shadow the enclosing scopes' while it imports.
  llvm::StringMap<std::optional<Value>> shadowed;
  auto bind = [&](const std::string &name, Value value) {
    if (name.empty())
      return;
    auto it = values.find(name);
    shadowed.try_emplace(name, it == values.end()
                                   ? std::nullopt
                                   : std::optional<Value>(it->second));
    values[name] = value;
  };
  auto restore = llvm::make_scope_exit([&] {
    for (auto &entry : shadowed) {
      if (entry.second)
        values[entry.first()] = *entry.second;
      else
        values.erase(entry.first());
    }
  });
  for (auto [input, argument] : llvm::zip(body.input(), arguments)) {
    if (input.type().has_tensor_type() &&
        input.type().tensor_type().elem_type() != 0) {
      Type declared =
          convertElementType(&context, input.type().tensor_type().elem_type());
      if (declared != getElementTypeOrSelf(argument.getType()))
        return makeError(
            "'" + prefix + "': subgraph input '" + input.name() +
            "' is declared " +
            getDataTypeInfo(input.type().tensor_type().elem_type()).name +
            " but bound to a value of another element type");
    }
    bind(input.name(), argument);
  }
  for (onnx::TensorProto &tensor : *body.mutable_initializer()) {
    if (isFourBitDtype(tensor.data_type()))
      fourBitTensors[tensor.name()] = tensor.data_type();
    llvm::Expected<ElementsAttr> value = importTensorOnce(
        tensor, "initializer '" + tensor.name() + "' of '" + prefix + "'");
    if (!value)
      return value.takeError();
    Location loc = NameLoc::get(
        StringAttr::get(&context, prefix + "/" + tensor.name()), fileLoc);
    bind(tensor.name(),
         builder->create<graph::ConstantOp>(loc, value->getType(), *value));
  }
  for (size_t index : order->second) {
    onnx::NodeProto &node = *body.mutable_node(index);
    for (const std::string &output : node.output())
      bind(output, Value());
    if (llvm::Error error = importNode(
            *builder, node, prefix + "/" + nodeDisplayName(node, index), opset,
            /*inSubgraph=*/true))
      return std::move(error);
  }
  llvm::SmallVector<Value> results;
  for (const onnx::ValueInfoProto &output : body.output()) {
    Value value = values.lookup(output.name());
    if (!value)
      return makeError("'" + prefix + "': subgraph output '" + output.name() +
                       "' is an optional output graphc does not model");
    results.push_back(value);
  }
  return results;
}

void GraphImporter::recordTensorNames(const onnx::NodeProto &node,
                                      Location nodeLoc,
                                      llvm::ArrayRef<Value> results) {
  auto named = cast<NameLoc>(nodeLoc);
  llvm::SmallDenseMap<Operation *, llvm::SmallVector<StringAttr>> names;
  for (auto [position, value] : llvm::enumerate(results)) {
    if (position >= static_cast<size_t>(node.output_size()) ||
        node.output(position).empty() || !value)
      continue;
    // An output that is an earlier value (an Identity passes its input on)
    // keeps the name its own producer gave it.
    Operation *op = value.getDefiningOp();
    if (!op || op->getLoc() != nodeLoc)
      continue;
    auto &opNames = names[op];
    if (opNames.empty())
      opNames.assign(op->getNumResults(), StringAttr::get(&context, ""));
    unsigned result = cast<OpResult>(value).getResultNumber();
    if (opNames[result].getValue().empty())
      opNames[result] = StringAttr::get(&context, node.output(position));
  }
  for (auto &[op, opNames] : names)
    op->setLoc(graph::withTensorNames(named, opNames));
}

llvm::Error GraphImporter::importOutputs(OpBuilder &builder,
                                         func::FuncOp function) {
  llvm::SmallVector<Value> results;
  // The boundary types of 4-bit results (graph::kPackedTypeAttr).
  llvm::SmallDenseMap<unsigned, Type> packedTypes;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    Value value = values.lookup(output.name());
    // A 4-bit output must be one the importer knows to hold 4-bit values
    // (its 8-bit holder type alone does not say so), and of the declared
    // 4-bit type.
    int32_t fourBit = fourBitTensors.lookup(output.name());
    int32_t declaredDtype = output.type().has_tensor_type()
                                ? output.type().tensor_type().elem_type()
                                : 0;
    if ((isFourBitDtype(declaredDtype) || fourBit) && declaredDtype != 0 &&
        declaredDtype != fourBit)
      return makeError(
          "output '" + output.name() + "' is declared " +
          getDataTypeInfo(declaredDtype).name + " but computed as " +
          (fourBit ? getDataTypeInfo(fourBit).name
                   : "8-bit values that are not known to be 4-bit"));
    // A declared type must agree with the computed one; a declaration
    // without element type declares nothing.
    if (output.type().has_tensor_type() &&
        output.type().tensor_type().elem_type() != 0) {
      llvm::Expected<Type> declared = convertValueType(output, "output");
      if (!declared)
        return declared.takeError();
      if (!graph::areCompatibleShapedTypes(*declared, value.getType())) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "output '" << output.name() << "' is declared as " << *declared
           << " but computed as " << value.getType();
        return makeError(text);
      }
    }
    if (fourBit) {
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type || !type.hasStaticShape())
        return makeError("output '" + output.name() + "' of element type " +
                         getDataTypeInfo(fourBit).name + " has a dynamic dim" +
                         kFourBitStatic);
      Location loc = NameLoc::get(StringAttr::get(&context, output.name()));
      NodeBuilder nodes(builder, loc);
      FailureOr<Value> packed = packFourBitBoundary(nodes, value);
      if (failed(packed))
        return makeError("cannot pack 4-bit output '" + output.name() +
                         "': " + diagnostics.take("unknown error"));
      packedTypes[results.size()] = RankedTensorType::get(
          type.getShape(),
          IntegerType::get(&context, 4,
                           fourBit == 21 ? IntegerType::Unsigned
                                         : IntegerType::Signless));
      value = *packed;
    }
    results.push_back(value);
  }
  builder.create<func::ReturnOp>(fileLoc, results);
  function.setFunctionType(FunctionType::get(
      &context, function.getArgumentTypes(), ValueRange(results).getTypes()));
  for (auto [index, type] : packedTypes)
    function.setResultAttr(index, graph::kPackedTypeAttr, TypeAttr::get(type));
  for (auto [index, output] : llvm::enumerate(graph.output())) {
    function.setResultAttr(index, graph::kNameAttr,
                           StringAttr::get(&context, output.name()));
    if (ArrayAttr dims = dimNames(output, results[index].getType()))
      function.setResultAttr(index, graph::kDimsAttr, dims);
  }
  return llvm::Error::success();
}

llvm::Expected<OwningOpRef<ModuleOp>> GraphImporter::run() {
  if (llvm::Error error = expandOnnxFunctions())
    return std::move(error);
  if (llvm::Error error = checkSupport())
    return std::move(error);
  llvm::Expected<std::vector<size_t>> order =
      validateModel(model, opset, nodeOpsets);
  if (!order)
    return order.takeError();
  collectUsedNames(graph, usedNames);
  for (const onnx::ValueInfoProto &output : graph.output())
    usedNames.insert(output.name());

  llvm::StringSet<> initializerNames;
  for (const onnx::TensorProto &tensor : graph.initializer())
    initializerNames.insert(tensor.name());
  // --const-input: inputs imported as constants.
  llvm::StringMap<const ConstantInput *> bound;
  for (const ConstantInput &constant : options.constantInputs)
    if (!bound.try_emplace(constant.name, &constant).second)
      return makeError("--const-input '" + constant.spec + "': input '" +
                       constant.name + "' is bound twice");
  llvm::SmallVector<std::pair<std::string, ElementsAttr>> boundValues;
  llvm::SmallVector<const onnx::ValueInfoProto *> inputs;
  llvm::SmallVector<Type> inputTypes;
  std::string inputNames;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializerNames.contains(input.name()))
      continue; // An initializer listed as input is a constant.
    inputNames += (inputNames.empty() ? "'" : ", '") + input.name() + "'";
    if (const ConstantInput *constant = bound.lookup(input.name())) {
      llvm::Expected<ElementsAttr> value =
          importConstantInput(&context, *constant, input, options);
      if (!value)
        return value.takeError();
      boundValues.emplace_back(input.name(), *value);
      bound.erase(input.name());
      continue;
    }
    llvm::Expected<Type> type = convertValueType(input, "input");
    if (!type)
      return type.takeError();
    inputs.push_back(&input);
    // A 4-bit input is passed packed (QuantizationImport.h).
    if (isFourBitDtype(input.type().tensor_type().elem_type()))
      type =
          packedFourBitType(&context, cast<RankedTensorType>(*type).getShape());
    inputTypes.push_back(*type);
  }
  for (const ConstantInput &constant : options.constantInputs)
    if (bound.contains(constant.name))
      return makeError(
          "--const-input '" + constant.spec + "': the model has no input '" +
          constant.name +
          "' (its inputs: " + (inputNames.empty() ? "none" : inputNames) + ")");

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  OpBuilder builder(&context);
  builder.setInsertionPointToEnd(module->getBody());
  function = builder.create<func::FuncOp>(
      fileLoc, "main", FunctionType::get(&context, inputTypes, {}));
  Block *entry = function.addEntryBlock();
  for (auto [index, input] : llvm::enumerate(inputs)) {
    BlockArgument argument = entry->getArgument(index);
    argument.setLoc(
        NameLoc::get(StringAttr::get(&context, input->name()), fileLoc));
    function.setArgAttr(index, graph::kNameAttr,
                        StringAttr::get(&context, input->name()));
    if (ArrayAttr dims = dimNames(*input, argument.getType()))
      function.setArgAttr(index, graph::kDimsAttr, dims);
    values[input->name()] = argument;
  }

  builder.setInsertionPointToStart(entry);
  for (auto [index, input] : llvm::enumerate(inputs)) {
    int32_t dtype = input->type().tensor_type().elem_type();
    if (!isFourBitDtype(dtype))
      continue;
    llvm::Expected<Type> type = convertValueType(*input, "input");
    if (!type)
      return type.takeError();
    ArrayRef<int64_t> shape = cast<RankedTensorType>(*type).getShape();
    function.setArgAttr(
        index, graph::kPackedTypeAttr,
        TypeAttr::get(RankedTensorType::get(
            shape, IntegerType::get(&context, 4,
                                    dtype == 21 ? IntegerType::Unsigned
                                                : IntegerType::Signless))));
    StringAttr name = StringAttr::get(&context, input->name());
    NodeBuilder nodes(builder, NameLoc::get(name, fileLoc));
    FailureOr<Value> unpacked =
        unpackFourBitBoundary(nodes, entry->getArgument(index), dtype, shape);
    if (failed(unpacked))
      return makeError("cannot unpack 4-bit input '" + input->name() +
                       "': " + diagnostics.take("unknown error"));
    if (Operation *op = unpacked->getDefiningOp())
      op->setLoc(graph::withTensorNames(NameLoc::get(name, fileLoc), name));
    values[input->name()] = *unpacked;
    fourBitTensors[input->name()] = dtype;
  }
  for (auto &[inputName, value] : boundValues) {
    StringAttr name = StringAttr::get(&context, inputName);
    Location loc = graph::withTensorNames(NameLoc::get(name, fileLoc), name);
    values[inputName] =
        builder.create<graph::ConstantOp>(loc, value.getType(), value);
  }
  for (onnx::TensorProto &tensor : *graph.mutable_initializer()) {
    if (isFourBitDtype(tensor.data_type()))
      fourBitTensors[tensor.name()] = tensor.data_type();
    StringAttr name = StringAttr::get(&context, tensor.name());
    Location loc = graph::withTensorNames(NameLoc::get(name, fileLoc), name);
    llvm::Expected<ElementsAttr> value =
        importTensor(&context, tensor, baseDir,
                     "initializer '" + tensor.name() + "'", options);
    if (!value)
      return value.takeError();
    values[tensor.name()] =
        builder.create<graph::ConstantOp>(loc, value->getType(), *value);
  }
  this->builder = &builder;
  for (size_t index : *order) {
    onnx::NodeProto &node = *graph.mutable_node(index);
    if (llvm::Error error =
            importNode(builder, node, nodeDisplayName(node, index),
                       index < nodeOpsets.size() ? nodeOpsets[index] : opset,
                       /*inSubgraph=*/false))
      return std::move(error);
  }
  if (llvm::Error error = importOutputs(builder, function))
    return std::move(error);

  if (failed(verify(*module)))
    return makeError("the imported module does not verify: " +
                     diagnostics.take("unknown error", /*withLocation=*/true));
  return std::move(module);
}

llvm::Expected<OwningOpRef<ModuleOp>>
importONNXModel(llvm::StringRef path, MLIRContext &context,
                const ImportOptions &options) {
  context.loadDialect<graph::GraphDialect, func::FuncDialect>();
  // Import folds constant nodes, which evaluates them with the host kernels.
  graph::ensureHostEvaluator(context);
  llvm::Expected<std::unique_ptr<onnx::ModelProto>> model =
      loadModelProto(path);
  if (!model)
    return model.takeError();
  // Old opsets become new ones before anything reads the nodes.
  if (llvm::Expected<std::optional<OpsetUpgrade>> upgrade =
          upgradeOldOpset(**model);
      !upgrade)
    return upgrade.takeError();
  return GraphImporter(context, **model, path, options).run();
}

std::string describeSupportedOpsets() {
  std::string text = std::to_string(onnx_import::kMinOpset) + "-" +
                     std::to_string(onnx_import::kMaxOpset);
  std::string older = "1-" + std::to_string(onnx_import::kMinOpset - 1);
  if (onnx_import::haveVersionConverter())
    return text + " (" + older + " through ONNX's version converter)";
  return text + " (" + older +
         " need ONNX's version converter, which this build lacks)";
}

} // namespace graphc
