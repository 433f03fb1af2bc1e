//===- OnnxModel.h - reading ONNX protobufs and what graphc supports -*- C++
//-*-===//
//
// Protobuf-level helpers shared by the importer, `graphc check` and the tensor
// file reader: loading a ModelProto, element types, op support from the
// OpTable.def contract, and the opset range graphc normalises.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_IMPORT_ONNX_ONNXMODEL_H
#define GRAPHC_LIB_IMPORT_ONNX_ONNXMODEL_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace graphc::onnx_import {

/// Opsets of the default domain that the importer normalises.
inline constexpr int64_t kMinOpset = 11;
inline constexpr int64_t kMaxOpset = 22;

/// Parses the ModelProto in `path`; fails with one line on unreadable,
/// truncated or non-ONNX files.
llvm::Expected<std::unique_ptr<onnx::ModelProto>>
loadModelProto(llvm::StringRef path);

/// True for the default ONNX domain ("" or "ai.onnx").
bool isDefaultDomain(llvm::StringRef domain);
/// The domain as users know it: "ai.onnx" for the default one.
std::string displayDomain(llvm::StringRef domain);

/// The opset version each domain of `model` imports.
std::map<std::string, int64_t> opsetVersions(const onnx::ModelProto &model);
/// The default-domain opset of `model`, or an "unsupported opset" error when
/// it is missing or outside [kMinOpset, kMaxOpset].
llvm::Expected<int64_t> checkDefaultOpset(const onnx::ModelProto &model);

/// The graph dialect mnemonic of a default-domain ONNX op (OpTable.def), or
/// an empty string when graphc does not import it.
llvm::StringRef lookupMnemonic(llvm::StringRef opType);

/// The node's name, or "<OpType>_<index>" when the model leaves it empty.
std::string nodeDisplayName(const onnx::NodeProto &node, size_t index);

/// An ONNX op used by some nodes that graphc cannot import.
struct UnsupportedOpUse {
  std::string domain;
  std::string opType;
  int64_t opset = 0;
  std::vector<std::string> nodes;
};

/// Groups the nodes of `graph` and of its subgraphs (named
/// "<node>/<attribute>/<subgraph node>") for which `isSupported(domain,
/// opType)` is false by (domain, op type), in order of first use.
std::vector<UnsupportedOpUse> findUnsupportedOps(
    const onnx::GraphProto &graph, const std::map<std::string, int64_t> &opsets,
    llvm::function_ref<bool(llvm::StringRef domain, llvm::StringRef opType)>
        isSupported);
/// One line listing every unsupported op with the nodes that use it.
std::string formatUnsupportedOps(llvm::ArrayRef<UnsupportedOpUse> uses);

/// Static facts about an ONNX TensorProto.DataType.
struct DataTypeInfo {
  /// Lower-case name ("float32", "int64", "bool", ...).
  llvm::StringRef name;
  /// Bytes per element; 0 when graphc cannot hold the type (strings,
  /// complex, 8/4-bit floats and ints).
  size_t size = 0;
};
DataTypeInfo getDataTypeInfo(int32_t dataType);

/// Number of elements of a tensor with `dims`, or nullopt when a dim is
/// negative or the count overflows.
std::optional<int64_t> elementCount(llvm::ArrayRef<int64_t> dims);

/// Creates an llvm::Error with one line of text.
llvm::Error makeError(const llvm::Twine &message);

} // namespace graphc::onnx_import

#endif
