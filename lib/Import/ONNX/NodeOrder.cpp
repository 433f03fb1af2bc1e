//===- NodeOrder.cpp - the data-flow order of a graph's nodes -------------===//

#include "lib/Import/ONNX/NodeOrder.h"
#include "lib/Import/ONNX/OnnxModel.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <queue>

namespace graphc::onnx_import {

/// Adds to `free` the names `graph` reads that neither it nor `bound` (the
/// names of the scopes between it and the node that holds it) defines.
static void collectFreeNames(const onnx::GraphProto &graph,
                             llvm::StringSet<> bound,
                             std::vector<std::string> &free,
                             llvm::StringSet<> &seen) {
  for (const onnx::ValueInfoProto &input : graph.input())
    bound.insert(input.name());
  for (const onnx::TensorProto &tensor : graph.initializer())
    bound.insert(tensor.name());
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &output : node.output())
      bound.insert(output);
  auto read = [&](const std::string &name) {
    if (!name.empty() && !bound.contains(name) && seen.insert(name).second)
      free.push_back(name);
  };
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &input : node.input())
      read(input);
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g())
        collectFreeNames(attr.g(), bound, free, seen);
      for (const onnx::GraphProto &sub : attr.graphs())
        collectFreeNames(sub, bound, free, seen);
    }
  }
  for (const onnx::ValueInfoProto &output : graph.output())
    read(output.name());
}

std::vector<std::string> implicitInputs(const onnx::NodeProto &node) {
  std::vector<std::string> free;
  llvm::StringSet<> seen;
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (attr.has_g())
      collectFreeNames(attr.g(), {}, free, seen);
    for (const onnx::GraphProto &sub : attr.graphs())
      collectFreeNames(sub, {}, free, seen);
  }
  return free;
}

llvm::Expected<std::vector<size_t>>
topologicalNodeOrder(const onnx::GraphProto &graph,
                     llvm::function_ref<bool(llvm::StringRef)> isOuter) {
  llvm::StringSet<> available;
  for (const onnx::TensorProto &tensor : graph.initializer())
    available.insert(tensor.name());
  for (const onnx::ValueInfoProto &input : graph.input())
    available.insert(input.name());

  size_t count = graph.node_size();
  llvm::StringMap<size_t> producer;
  for (size_t i = 0; i < count; ++i) {
    const onnx::NodeProto &node = graph.node(i);
    for (const std::string &output : node.output()) {
      if (output.empty())
        continue;
      std::string name = nodeDisplayName(node, i);
      if (available.contains(output))
        return makeError("node '" + name + "' (" + node.op_type() +
                         "): output '" + output +
                         "' redefines a graph input or initializer");
      auto [it, inserted] = producer.try_emplace(output, i);
      if (!inserted)
        return makeError("value '" + output + "' is produced by both node '" +
                         nodeDisplayName(graph.node(it->second), it->second) +
                         "' and node '" + name + "'");
    }
  }

  // Kahn's algorithm, taking ready nodes in model order so that a sorted
  // graph keeps its order.
  std::vector<size_t> pending(count, 0);
  std::vector<llvm::SmallVector<size_t>> users(count);
  auto outer = [&](llvm::StringRef name) { return isOuter && isOuter(name); };
  for (size_t i = 0; i < count; ++i) {
    const onnx::NodeProto &node = graph.node(i);
    std::vector<std::string> implicit = implicitInputs(node);
    auto depend = [&](const std::string &input,
                      const char *kind) -> llvm::Error {
      if (input.empty() || available.contains(input))
        return llvm::Error::success();
      auto it = producer.find(input);
      if (it == producer.end()) {
        if (outer(input))
          return llvm::Error::success();
        return makeError("node '" + nodeDisplayName(node, i) + "' (" +
                         node.op_type() + "): " + kind + " '" + input +
                         "' is not produced by any node, graph input or "
                         "initializer");
      }
      ++pending[i];
      users[it->second].push_back(i);
      return llvm::Error::success();
    };
    for (const std::string &input : node.input())
      if (llvm::Error error = depend(input, "input"))
        return std::move(error);
    for (const std::string &input : implicit)
      if (llvm::Error error = depend(input, "subgraph value"))
        return std::move(error);
  }
  for (const onnx::ValueInfoProto &output : graph.output()) {
    if (!available.contains(output.name()) && !producer.count(output.name()) &&
        !outer(output.name()))
      return makeError("graph output '" + output.name() +
                       "' is not produced by any node, graph input or "
                       "initializer");
  }

  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < count; ++i)
    if (pending[i] == 0)
      ready.push(i);
  std::vector<size_t> order;
  order.reserve(count);
  while (!ready.empty()) {
    size_t next = ready.top();
    ready.pop();
    order.push_back(next);
    for (size_t user : users[next])
      if (--pending[user] == 0)
        ready.push(user);
  }
  if (order.size() == count)
    return order;

  // Nodes left over either lie on a cycle or wait on one. Peel off those
  // whose outputs no other left-over node reads, so that the message names
  // the cycle itself.
  std::vector<size_t> leftUsers(count, 0);
  std::vector<bool> left(count, false);
  for (size_t i = 0; i < count; ++i)
    left[i] = pending[i] != 0;
  for (size_t i = 0; i < count; ++i)
    if (left[i])
      for (size_t user : users[i])
        leftUsers[i] += left[user] ? 1 : 0;
  std::vector<size_t> unused;
  for (size_t i = 0; i < count; ++i)
    if (left[i] && leftUsers[i] == 0)
      unused.push_back(i);
  while (!unused.empty()) {
    size_t next = unused.back();
    unused.pop_back();
    left[next] = false;
    for (const std::string &input : graph.node(next).input()) {
      auto it = producer.find(input);
      if (it != producer.end() && left[it->second] &&
          --leftUsers[it->second] == 0)
        unused.push_back(it->second);
    }
  }
  std::string names;
  llvm::raw_string_ostream os(names);
  size_t listed = 0;
  for (size_t i = 0; i < count; ++i) {
    if (!left[i])
      continue;
    if (listed++ < 4)
      os << (listed > 1 ? ", '" : "'") << nodeDisplayName(graph.node(i), i)
         << "'";
  }
  if (listed > 4)
    os << " and " << listed - 4 << " more";
  return makeError("graph is not a DAG: nodes " + names + " form a cycle");
}

} // namespace graphc::onnx_import
