//===- OpsetUpgrade.h - old opsets through ONNX's version converter -*- C++ -*-===//
//
// Models of default-domain opsets below kMinOpset are converted with ONNX's
// own version converter (libonnx) before graphc's version normalisation, after
// ONNX's checker has accepted them; ONNX's shape inference then fills the
// value_info of the converted graph. Builds without libonnx (the static one)
// reject those models with a message saying so.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_IMPORT_ONNX_OPSETUPGRADE_H
#define GRAPHC_LIB_IMPORT_ONNX_OPSETUPGRADE_H

#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>

namespace graphc::onnx_import {

/// The default-domain opsets of a model before and after conversion.
struct OpsetUpgrade {
  int64_t from = 0;
  int64_t to = 0;
};

/// True when this graphc links ONNX's checker, shape inference and version
/// converter.
bool haveVersionConverter();

/// ONNX's shape inference over `model` (value_info for the values it
/// infers), with the schemas guarded against inputs libonnx 1.12 mishandles;
/// node-level failures are skipped. Returns the first line of what it throws.
/// Only in builds with libonnx (haveVersionConverter()).
std::optional<std::string> inferShapes(onnx::ModelProto &model);

/// When `model` imports a default-domain opset below kMinOpset, replaces it by
/// its conversion to the lowest opset in [kMinOpset, kMaxOpset] that ONNX's
/// converter reaches and returns both opsets; returns nullopt and leaves
/// `model` alone otherwise. Fails with one line when ONNX's checker rejects
/// the model or no conversion succeeds.
llvm::Expected<std::optional<OpsetUpgrade>>
upgradeOldOpset(onnx::ModelProto &model);

} // namespace graphc::onnx_import

#endif
