//===- OnnxModel.cpp - reading ONNX protobufs and what graphc supports ----===//

#include "lib/Import/ONNX/OnnxModel.h"
#include "lib/Artifact/OnnxDtype.h"
#include "lib/Support/CheckedArith.h"
#include "lib/Support/ReadFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <climits>

namespace graphc::onnx_import {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<std::unique_ptr<onnx::ModelProto>>
loadModelProto(llvm::StringRef path) {
  if (llvm::sys::fs::is_directory(path))
    return makeError("'" + path + "' is a directory, not an ONNX model");
  llvm::Expected<int> opened = openUserFile(path);
  if (!opened)
    return opened.takeError();
  int fd = *opened;

  auto model = std::make_unique<onnx::ModelProto>();
  bool parsed = false;
  {
    // Stream from the descriptor so that the file is never held in memory
    // next to the parsed message; weights are then moved out of the message.
    google::protobuf::io::FileInputStream fileStream(fd);
    google::protobuf::io::CodedInputStream coded(&fileStream);
    coded.SetTotalBytesLimit(INT_MAX);
    parsed = model->ParseFromCodedStream(&coded) &&
             coded.ConsumedEntireMessage() && fileStream.GetErrno() == 0;
  }
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  if (!parsed)
    return makeError("'" + path +
                     "' is not a valid ONNX model (truncated or corrupt "
                     "protobuf)");
  if (model->ir_version() <= 0 || !model->has_graph())
    return makeError("'" + path +
                     "' is not an ONNX model (no IR version or no graph)");
  return std::move(model);
}

bool isDefaultDomain(llvm::StringRef domain) {
  return domain.empty() || domain == "ai.onnx";
}

std::string displayDomain(llvm::StringRef domain) {
  return isDefaultDomain(domain) ? std::string("ai.onnx") : domain.str();
}

std::map<std::string, int64_t> opsetVersions(const onnx::ModelProto &model) {
  std::map<std::string, int64_t> versions;
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    versions[displayDomain(opset.domain())] = opset.version();
  return versions;
}

llvm::Expected<int64_t> checkDefaultOpset(const onnx::ModelProto &model) {
  std::map<std::string, int64_t> versions = opsetVersions(model);
  auto it = versions.find("ai.onnx");
  if (it == versions.end())
    return makeError("unsupported model: it imports no opset of the default "
                     "ONNX domain");
  int64_t version = it->second;
  if (version < kMinOpset || version > kMaxOpset)
    return makeError("unsupported opset " + llvm::Twine(version) +
                     " of the default ONNX domain (graphc imports opsets " +
                     llvm::Twine(kMinOpset) + " to " + llvm::Twine(kMaxOpset) +
                     ")");
  return version;
}

llvm::StringRef lookupMnemonic(llvm::StringRef opType) {
  static const llvm::StringMap<llvm::StringRef> table = [] {
    llvm::StringMap<llvm::StringRef> map;
#define GRAPHC_ONNX_OP(onnxName, mnemonic) map[#onnxName] = #mnemonic;
#include "lib/Import/ONNX/OpTable.def"
    return map;
  }();
  auto it = table.find(opType);
  return it == table.end() ? llvm::StringRef() : it->second;
}

std::string nodeDisplayName(const onnx::NodeProto &node, size_t index) {
  if (!node.name().empty())
    return node.name();
  return node.op_type() + "_" + std::to_string(index);
}

/// Adds the unsupported ops of `graph`'s nodes, and of their subgraphs, to
/// `uses`; `prefix` qualifies the node names of a subgraph.
static void collectUnsupportedOps(
    const onnx::GraphProto &graph, const std::map<std::string, int64_t> &opsets,
    llvm::function_ref<bool(llvm::StringRef, llvm::StringRef)> isSupported,
    const std::string &prefix, std::vector<UnsupportedOpUse> &uses) {
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    std::string name = prefix + nodeDisplayName(node, index);
    for (const onnx::AttributeProto &attr : node.attribute())
      if (attr.has_g())
        collectUnsupportedOps(attr.g(), opsets, isSupported,
                              name + "/" + attr.name() + "/", uses);
    if (isSupported(node.domain(), node.op_type()))
      continue;
    std::string domain = displayDomain(node.domain());
    auto it = llvm::find_if(uses, [&](const UnsupportedOpUse &use) {
      return use.domain == domain && use.opType == node.op_type();
    });
    if (it == uses.end()) {
      auto opset = opsets.find(domain);
      uses.push_back({domain,
                      node.op_type(),
                      opset == opsets.end() ? 0 : opset->second,
                      {}});
      it = std::prev(uses.end());
    }
    it->nodes.push_back(name);
  }
}

std::vector<UnsupportedOpUse> findUnsupportedOps(
    const onnx::GraphProto &graph, const std::map<std::string, int64_t> &opsets,
    llvm::function_ref<bool(llvm::StringRef, llvm::StringRef)> isSupported) {
  std::vector<UnsupportedOpUse> uses;
  collectUnsupportedOps(graph, opsets, isSupported, "", uses);
  return uses;
}

std::string formatUnsupportedOps(llvm::ArrayRef<UnsupportedOpUse> uses) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "unsupported ONNX ops: ";
  llvm::interleave(
      uses, os,
      [&](const UnsupportedOpUse &use) {
        os << use.domain << "::" << use.opType;
        if (use.opset > 0)
          os << " (opset " << use.opset << ")";
        else
          os << " (domain not imported)";
        os << " used by ";
        // Long lists name the first few nodes and count the rest.
        constexpr size_t kMaxNamed = 4;
        os << (use.nodes.size() == 1 ? "node " : "nodes ");
        for (size_t i = 0; i < use.nodes.size() && i < kMaxNamed; ++i)
          os << (i ? ", '" : "'") << use.nodes[i] << "'";
        if (use.nodes.size() > kMaxNamed)
          os << " and " << use.nodes.size() - kMaxNamed << " more";
      },
      "; ");
  return text;
}

DataTypeInfo getDataTypeInfo(int32_t dataType) {
  // The types graphc holds: the artifact format's table.
  if (const char *name = rt::dtypeName(dataType))
    return {name, rt::dtypeSize(dataType)};
  switch (dataType) {
  case onnx::TensorProto::STRING:
    return {"string", 0};
  case onnx::TensorProto::COMPLEX64:
    return {"complex64", 0};
  case onnx::TensorProto::COMPLEX128:
    return {"complex128", 0};
  // Types newer than the protobuf definitions graphc builds against.
  case 23:
    return {"float4e2m1", 0};
  default:
    return {"undefined", 0};
  }
}

std::optional<int64_t> elementCount(llvm::ArrayRef<int64_t> dims) {
  return checkedElementCount(dims);
}

} // namespace graphc::onnx_import
