//===- OpsetUpgrade.cpp - old opsets through ONNX's version converter -----===//

#include "lib/Import/ONNX/OpsetUpgrade.h"
#include "lib/Import/ONNX/OnnxModel.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#ifdef GRAPHC_HAVE_ONNX_CONVERTER
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>
#endif

#include <exception>
#include <string>
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
  // The checker reads the weights (sizes against dims) but copies nothing.
  if (std::optional<std::string> error =
          exceptionText([&] { onnx::checker::check_model(model); }))
    return makeError("ONNX's checker rejects the opset " + llvm::Twine(*from) +
                     " model: " + *error);

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
    return makeError("cannot convert opset " + llvm::Twine(*from) +
                     " of the default ONNX domain to opset " +
                     llvm::Twine(kMinOpset) +
                     " or later with ONNX's version converter: " +
                     firstFailure);
  }
  detached.reattach(converted);
  model.Swap(&converted);

  // Shape inference reads small initializers (Reshape shapes) and fills
  // value_info; its node-level errors are not fatal (error_mode 0).
  if (std::optional<std::string> error = exceptionText(
          [&] { onnx::shape_inference::InferShapes(model); }))
    return makeError("ONNX's shape inference fails on the model converted "
                     "from opset " +
                     llvm::Twine(*from) + " to " + llvm::Twine(to) + ": " +
                     *error);
  return OpsetUpgrade{*from, to};
#endif
}

} // namespace graphc::onnx_import
