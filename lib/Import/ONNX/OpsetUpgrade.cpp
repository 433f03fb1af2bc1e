//===- OpsetUpgrade.cpp - old opsets through ONNX's version converter -----===//

#include "lib/Import/ONNX/OpsetUpgrade.h"
#include "lib/Import/ONNX/ModelValidation.h"
#include "lib/Import/ONNX/OnnxModel.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#ifdef GRAPHC_HAVE_ONNX_CONVERTER
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>
#endif

#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace graphc::onnx_import {

/// The highest opset ONNX 1.12's converter has adapters for.
static constexpr int64_t kConverterMaxOpset = 17;

bool haveVersionConverter() {
#ifdef GRAPHC_HAVE_ONNX_CONVERTER
  return true;
#else
  return false;
#endif
}

/// The default-domain opset of `model`, or nullopt when it imports none.
static std::optional<int64_t> defaultOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    if (isDefaultDomain(opset.domain()))
      return opset.version();
  return std::nullopt;
}

#ifdef GRAPHC_HAVE_ONNX_CONVERTER
/// The first non-empty line of an ONNX exception message.
static std::string firstLine(const char *what) {
  llvm::StringRef text(what ? what : "");
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    line = line.trim();
    if (!line.empty())
      return line.str();
    text = rest;
  }
  return "unknown error";
}

/// Runs `body`; returns the first line of what it throws, or nullopt when it
/// returns normally. libonnx reports every failure by throwing.
template <typename Body>
static std::optional<std::string> exceptionText(Body body) {
  try {
    body();
    return std::nullopt;
  } catch (const std::exception &error) {
    return firstLine(error.what());
  } catch (...) {
    return std::string("unknown error");
  }
}

/// Initializer data moved out of a model while the converter copies it.
class DetachedInitializers {
public:
  /// Leaves in `model` only the name, type and dims of each initializer.
  explicit DetachedInitializers(onnx::ModelProto &model) {
    auto *initializers = model.mutable_graph()->mutable_initializer();
    tensors.resize(initializers->size());
    for (int i = 0, e = initializers->size(); i < e; ++i) {
      onnx::TensorProto &tensor = *initializers->Mutable(i);
      tensors[i].Swap(&tensor);
      tensor.set_name(tensors[i].name());
      tensor.set_data_type(tensors[i].data_type());
      *tensor.mutable_dims() = tensors[i].dims();
    }
  }

  /// Puts the data back into the initializers of `model` (the original or
  /// its conversion) that have an original of the same name; initializers
  /// the converter added keep theirs.
  void reattach(onnx::ModelProto &model) {
    llvm::StringMap<onnx::TensorProto *> byName;
    for (onnx::TensorProto &tensor : tensors)
      byName[tensor.name()] = &tensor;
    for (onnx::TensorProto &tensor :
         *model.mutable_graph()->mutable_initializer()) {
      auto it = byName.find(tensor.name());
      if (it != byName.end() && tensor.data_type() == it->second->data_type())
        tensor.Swap(it->second);
    }
    tensors.clear();
  }

private:
  std::vector<onnx::TensorProto> tensors;
};

/// Checks every node of the main graph against its ONNX schema (attributes,
/// input and output counts), which the converter's adapters rely on. The
/// whole-model checker of ONNX 1.12 is not used: it also requires a shape on
/// every graph output, which valid models may leave out.
static llvm::Error checkNodes(const onnx::ModelProto &model, int64_t opset) {
  onnx::checker::CheckerContext context;
  context.set_ir_version(static_cast<int>(model.ir_version()));
  std::unordered_map<std::string, int> opsets;
  for (const onnx::OperatorSetIdProto &import : model.opset_import())
    opsets[import.domain()] = static_cast<int>(import.version());
  context.set_opset_imports(std::move(opsets));
  context.set_is_main_graph(true);
  onnx::checker::LexicalScopeContext scope;
  for (int i = 0, e = model.graph().node_size(); i < e; ++i) {
    const onnx::NodeProto &node = model.graph().node(i);
    if (std::optional<std::string> error = exceptionText(
            [&] { onnx::checker::check_node(node, context, scope); }))
      return makeError("node '" + nodeDisplayName(node, i) + "' (" +
                       node.op_type() +
                       "): ONNX's checker rejects it in opset " +
                       llvm::Twine(opset) + ": " + *error);
  }
  return llvm::Error::success();
}

/// The schemas ONNX's shape inference runs with: the registry's, but with
/// the inference of the ops below guarded against inputs that libonnx 1.12
/// indexes out of bounds. Its convolution inference takes the kernel's rank
/// from the weight and indexes the input's per-dimension vectors with it:
/// a weight of higher rank than the input is a wild read (a crash), found
/// by fuzzing. Such a node fails inference instead (a node-level error,
/// which inference records and goes past); graphc's importer then refuses
/// the model, naming the node.
class GuardedSchemas final : public onnx::ISchemaRegistry {
public:
  const onnx::OpSchema *GetSchema(const std::string &key,
                                  const int maxInclusiveVersion,
                                  const std::string &domain) const override {
    const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Instance()->GetSchema(
        key, maxInclusiveVersion, domain);
    int weight = weightInput(key, domain);
    if (!schema || weight < 0 || !schema->has_type_and_shape_inference_function())
      return schema;
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<onnx::OpSchema> &guarded = copies[schema];
    if (!guarded) {
      guarded = std::make_unique<onnx::OpSchema>(*schema);
      onnx::InferenceFunction infer = schema->GetTypeAndShapeInferenceFunction();
      guarded->TypeAndShapeInferenceFunction(
          [infer, weight](onnx::InferenceContext &context) {
            checkKernelRank(context, weight);
            infer(context);
          });
    }
    return guarded.get();
  }

private:
  /// The input whose shape gives the kernel's, or -1 for other ops.
  static int weightInput(const std::string &op, const std::string &domain) {
    if (!isDefaultDomain(domain))
      return -1;
    if (op == "Conv" || op == "ConvInteger" || op == "ConvTranspose")
      return 1;
    if (op == "QLinearConv")
      return 3;
    return -1;
  }

  /// Fails inference when the input and the weight both have a shape, of
  /// ranks other than equal ones of at least 3.
  static void checkKernelRank(onnx::InferenceContext &context, int weight) {
    auto rankOf = [&](size_t index) -> int {
      if (index >= context.getNumInputs())
        return -1;
      const onnx::TypeProto *type = context.getInputType(index);
      if (!type || !type->has_tensor_type() ||
          !type->tensor_type().has_shape())
        return -1;
      return type->tensor_type().shape().dim_size();
    };
    int inputRank = rankOf(0), weightRank = rankOf(weight);
    if (inputRank < 0 || weightRank < 0)
      return;
    if (inputRank < 3 || weightRank != inputRank)
      fail_shape_inference("the input has rank ", inputRank,
                           " and the weight rank ", weightRank,
                           "; both need the same rank of at least 3");
  }

  mutable std::mutex mutex;
  mutable std::map<const onnx::OpSchema *, std::unique_ptr<onnx::OpSchema>>
      copies;
};

std::optional<std::string> inferShapes(onnx::ModelProto &model) {
  static const GuardedSchemas schemas;
  return exceptionText(
      [&] { onnx::shape_inference::InferShapes(model, &schemas); });
}

/// Before opset 7, PRelu applied a slope of shape [C] per channel of an
/// [N, C, ...] input; from opset 7 it broadcasts numpy-style (as onnxruntime
/// does, rejecting [C] against [N, C, D...]), and ONNX's converter leaves the
/// slope as is. Reshapes such slope initializers to [C, 1, ...] so that the
/// converted model means what the old one did. Slopes that are not
/// initializers, or that other ops also read, are left to fail later.
static void reshapePerChannelPReluSlopes(onnx::ModelProto &model) {
  onnx::GraphProto &graph = *model.mutable_graph();
  llvm::StringMap<const onnx::TensorShapeProto *> shapes;
  auto addShapes = [&](const auto &values) {
    for (const onnx::ValueInfoProto &value : values)
      if (value.type().has_tensor_type() &&
          value.type().tensor_type().has_shape())
        shapes[value.name()] = &value.type().tensor_type().shape();
  };
  addShapes(graph.input());
  addShapes(graph.value_info());
  llvm::StringMap<onnx::TensorProto *> initializers;
  for (onnx::TensorProto &tensor : *graph.mutable_initializer())
    initializers[tensor.name()] = &tensor;
  // Slope name -> the rank its per-channel form needs, or 0 when some use
  // of it does not qualify.
  llvm::StringMap<int> slopeRanks;
  for (const onnx::NodeProto &node : graph.node()) {
    bool isPRelu = node.op_type() == "PRelu" && isDefaultDomain(node.domain());
    for (int i = 0, e = node.input_size(); i < e; ++i) {
      const std::string &name = node.input(i);
      if (!initializers.count(name))
        continue;
      int rank = 0;
      if (isPRelu && i == 1 && node.input_size() == 2) {
        const onnx::TensorProto &slope = *initializers[name];
        auto shape = shapes.find(node.input(0));
        if (shape != shapes.end() && slope.dims_size() == 1 &&
            shape->second->dim_size() > 2 &&
            shape->second->dim(1).has_dim_value() &&
            shape->second->dim(1).dim_value() == slope.dims(0) &&
            slope.dims(0) != 1)
          rank = shape->second->dim_size() - 1;
      }
      auto [it, inserted] = slopeRanks.try_emplace(name, rank);
      if (!inserted && it->second != rank)
        it->second = 0;
    }
  }
  for (const auto &[name, rank] : slopeRanks) {
    if (rank == 0)
      continue;
    for (int i = 1; i < rank; ++i)
      initializers[name]->add_dims(1);
    // Old exporters also list initializers as graph inputs.
    for (onnx::ValueInfoProto &input : *graph.mutable_input())
      if (input.name() == name && input.type().has_tensor_type() &&
          input.type().tensor_type().has_shape())
        for (int i = 1; i < rank; ++i)
          input.mutable_type()
              ->mutable_tensor_type()
              ->mutable_shape()
              ->add_dim()
              ->set_dim_value(1);
  }
}
#endif

llvm::Expected<std::optional<OpsetUpgrade>>
upgradeOldOpset(onnx::ModelProto &model) {
  std::optional<int64_t> from = defaultOpset(model);
  if (!from || *from >= kMinOpset || *from <= 0)
    return std::nullopt;
#ifndef GRAPHC_HAVE_ONNX_CONVERTER
  return makeError("opset " + llvm::Twine(*from) +
                   " of the default ONNX domain needs ONNX's version "
                   "converter, and this graphc was built without it; convert "
                   "the model to opset >= " +
                   llvm::Twine(kMinOpset) + " first");
#else
  // ONNX's checker and converter trust the graph's structure (an undefined
  // graph output is a null dereference in the converter's IR import).
  if (llvm::Expected<std::vector<size_t>> order = validateModelStructure(model);
      !order)
    return order.takeError();
  if (llvm::Error error = checkNodes(model, *from))
    return std::move(error);

  // Broadcasting adapters (Add and friends before opset 7) need the shapes
  // of their inputs; node-level inference errors are not fatal (error_mode
  // 0), the checker above has rejected malformed graphs.
  if (std::optional<std::string> error = inferShapes(model))
    return makeError("ONNX's shape inference fails on the opset " +
                     llvm::Twine(*from) + " model: " + *error);

  if (*from < 7)
    reshapePerChannelPReluSlopes(model);

  // The converter copies the whole model into its own graph and back; it
  // never reads initializer values, so it converts a copy without them.
  DetachedInitializers detached(model);
  onnx::ModelProto converted;
  int64_t to = 0;
  std::string firstFailure;
  for (int64_t target = kMinOpset;
       target <= std::min(kMaxOpset, kConverterMaxOpset) && !to; ++target) {
    std::optional<std::string> error = exceptionText([&] {
      converted = onnx::version_conversion::ConvertVersion(
          model, static_cast<int>(target));
    });
    if (!error)
      to = target;
    else if (firstFailure.empty())
      firstFailure = *error;
  }
  if (!to) {
    detached.reattach(model);
    return makeError(
        "cannot convert opset " + llvm::Twine(*from) +
        " of the default ONNX domain to opset " + llvm::Twine(kMinOpset) +
        " or later with ONNX's version converter: " + firstFailure);
  }
  detached.reattach(converted);
  model.Swap(&converted);

  // value_info for the values the adapters created.
  if (std::optional<std::string> error = inferShapes(model))
    return makeError("ONNX's shape inference fails on the model converted "
                     "from opset " +
                     llvm::Twine(*from) + " to " + llvm::Twine(to) + ": " +
                     *error);
  return OpsetUpgrade{*from, to};
#endif
}

} // namespace graphc::onnx_import
