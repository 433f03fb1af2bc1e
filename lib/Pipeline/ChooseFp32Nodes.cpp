//===- ChooseFp32Nodes.cpp - --keep-fp32 auto -----------------------------===//
//
// The search, deterministic and bounded: one float32 run of the model on
// the cpu reference, then narrowed runs (convertPrecision with the kept
// nodes so far, io in float32 so that only the compute precision is
// measured), each compared tensor by tensor with the float32 run. After a
// run whose outputs are all within defaultTolerance(compute) it stops.
// Otherwise it keeps, of the nodes that still compute narrowed:
//   1. overflow: every node whose float32 values exceed the narrow type's
//      largest finite value, or whose narrowed output holds NaN or infinity
//      where float32 is finite while its inputs hold none;
//   2. else error: the node of the first tensor, in graph order, whose error
//      exceeds the tolerance. When that node computes in float32 already
//      (kept, or without a narrow form), its error comes from its inputs'
//      rounding: the nodes producing its narrowed inputs are kept instead.
// and runs again. It stops with the best effort when no node is left to
// keep or after kMaxFp32Rounds narrowed runs.
//
//===----------------------------------------------------------------------===//

#include "lib/Pipeline/ChooseFp32Nodes.h"
#include "lib/Pipeline/Diagnostics.h"
#include "lib/Pipeline/ReferenceRun.h"
#include "lib/Support/TensorCompare.h"

#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "passes/Passes.h"
#include "passes/ShapeFlags.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <optional>

using namespace mlir;

namespace graphc {
namespace {

/// "%.3g" of a value (more digits on request).
std::string number(double value, int digits = 3) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.*g", digits, value);
  return text;
}

/// "tensor<2x8xf32>" for a model input, "2x8xf32" for a file's tensor.
std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

std::string fileTypeText(MLIRContext *context, const HostTensor &tensor) {
  std::string text;
  for (int64_t dim : tensor.dims)
    text += std::to_string(dim) + "x";
  Type element = graph::fromHostDtype(context, tensor.dtype);
  return text + (element ? typeText(element)
                         : "dtype " + std::to_string(tensor.dtype));
}

bool isFloatDtype(int32_t dtype) {
  return dtype == 1 || dtype == 10 || dtype == 16 || dtype == 11;
}

/// The narrow type's largest finite value.
double largestFinite(Precision compute) {
  return compute == Precision::fp16 ? 65504.0 : 3.3895313892515355e38;
}

/// "max |error| 0.3 (2.5e-02 of the range 12, tolerance 1e-02)", or the
/// NaN and infinity counts.
std::string describeError(const TensorErrors &errors,
                          const Tolerance &tolerance) {
  if (errors.nanBorn || errors.infBorn || errors.nonFiniteMismatch)
    return std::to_string(errors.nanBorn) + " NaN and " +
           std::to_string(errors.infBorn) +
           " infinite elements where float32 is finite" +
           (errors.nonFiniteMismatch
                ? ", " + std::to_string(errors.nonFiniteMismatch) +
                      " differing where float32 is not"
                : std::string());
  return "max |error| " + number(errors.maxAbsError) + " (" +
         number(errors.relError) + " of float32's largest |value| " +
         number(errors.refMaxAbs) + ", tolerance " + number(tolerance.rtol) +
         ")";
}

/// How far beyond tolerance an output is, for choosing the worst one.
double badness(const TensorErrors &errors, const Tolerance &tolerance) {
  if (errors.nanBorn || errors.infBorn || errors.nonFiniteMismatch)
    return INFINITY;
  double allowed = tolerance.atol + tolerance.rtol * errors.refMaxAbs;
  return allowed > 0 ? errors.maxAbsError / allowed
                     : (errors.maxAbsError > 0 ? INFINITY : 0);
}

/// The graph structure the rules follow, read off the float32 module: the
/// ONNX tensors each node reads, and the tensors the ops compute (what the
/// runs record: not weights, whose rounding no kept node changes).
struct NodeGraph {
  llvm::StringMap<std::vector<std::string>> inputs;
  llvm::StringSet<> computed;
};

NodeGraph readNodeGraph(func::FuncOp main) {
  NodeGraph nodes;
  for (Operation &op : main.getBody().front()) {
    if (isa<graph::ConstantOp, func::ReturnOp>(op))
      continue;
    for (Value result : op.getResults())
      if (StringRef name = graph::onnxTensorName(result); !name.empty())
        nodes.computed.insert(name);
    SmallVector<StringAttr> names;
    graph::collectNodeNames(op.getLoc(), names);
    for (StringAttr node : names) {
      std::vector<std::string> &reads = nodes.inputs[node.getValue()];
      for (Value operand : op.getOperands())
        if (StringRef name = graph::onnxTensorName(operand); !name.empty())
          if (!llvm::is_contained(reads, name))
            reads.push_back(name.str());
    }
  }
  return nodes;
}

/// The model's inputs for the runs: the calibration values, checked
/// against the model's inputs, and random values for the others.
llvm::Expected<std::vector<HostTensor>>
bindInputs(func::FuncOp main, ArrayRef<CalibrationInput> calibration,
           std::string &described) {
  MLIRContext *context = main.getContext();
  std::vector<std::string> names;
  for (unsigned index = 0; index < main.getNumArguments(); ++index) {
    auto name = main.getArgAttrOfType<StringAttr>(index, graph::kNameAttr);
    names.push_back(name ? name.str() : "input " + std::to_string(index));
  }
  std::vector<const CalibrationInput *> given(names.size(), nullptr);
  for (const CalibrationInput &input : calibration) {
    const std::string &name = input.tensor.name;
    auto found = llvm::find(names, name);
    if (found == names.end())
      return makeError(
          "--calibration-input " + name + ": the model has no input named '" +
          name + "'" +
          suggestName(name, names, "inputs", "; the model has no inputs"));
    size_t index = found - names.begin();
    if (given[index])
      return makeError("--calibration-input " + name + " is given twice ('" +
                       given[index]->path + "' and '" + input.path + "')");
    given[index] = &input;
    auto type = cast<RankedTensorType>(main.getArgument(index).getType());
    bool matches =
        input.tensor.dtype == graph::toHostDtype(type.getElementType()) &&
        input.tensor.dims.size() == size_t(type.getRank());
    for (size_t d = 0; matches && d < input.tensor.dims.size(); ++d)
      matches =
          type.isDynamicDim(d) || type.getDimSize(d) == input.tensor.dims[d];
    if (!matches)
      return makeError("--calibration-input " + name + ": '" + input.path +
                       "' holds " + fileTypeText(context, input.tensor) +
                       ", the model takes " + typeText(type));
  }
  std::vector<HostTensor> inputs;
  for (auto [index, name] : llvm::enumerate(names)) {
    described += described.empty() ? "" : ", ";
    if (given[index]) {
      inputs.push_back(given[index]->tensor);
      described += name + " from " + given[index]->path;
      continue;
    }
    auto type = cast<RankedTensorType>(main.getArgument(index).getType());
    if (!type.hasStaticShape())
      return makeError("--keep-fp32 auto: input '" + name + "' has dynamic " +
                       "dims (" + typeText(type) +
                       "): give it a value with --calibration-input " + name +
                       "=FILE, or fix them with --shape or --dim");
    inputs.push_back(HostTensor{name, graph::toHostDtype(type.getElementType()),
                                type.getShape().vec(),
                                randomTensorBytes(type, index)});
    described += name + " random";
  }
  return inputs;
}

} // namespace

llvm::Expected<Fp32Selection>
chooseFp32Nodes(ModuleOp model, ArrayRef<CalibrationInput> calibration,
                Precision compute, ArrayRef<std::string> keepFp32) {
  MLIRContext &context = *model.getContext();
  DiagnosticCollector diagnostics(context);
  auto main = model.lookupSymbol<func::FuncOp>("main");
  if (!main)
    return makeError("--keep-fp32 auto: the model has no main function");
  Fp32Selection selection;
  llvm::Expected<std::vector<HostTensor>> inputs =
      bindInputs(main, calibration, selection.inputs);
  if (!inputs)
    return inputs.takeError();

  OwningOpRef<ModuleOp> reference(model.clone());
  if (llvm::Error e = specializeForReference(*reference, *inputs))
    return makeError("--keep-fp32 auto: " + llvm::toString(std::move(e)));
  NodeGraph nodes =
      readNodeGraph(reference->lookupSymbol<func::FuncOp>("main"));
  auto recorded = [&](StringRef name) { return nodes.computed.contains(name); };
  llvm::Expected<ReferenceValues> wide =
      runReference(*reference, *inputs, recorded);
  if (!wide)
    return makeError("--keep-fp32 auto: " + llvm::toString(wide.takeError()));

  Tolerance tolerance = defaultTolerance(compute);
  double largest = largestFinite(compute);
  const char *narrowName = precisionName(compute);
  std::vector<std::string> keep(keepFp32.begin(), keepFp32.end());
  llvm::StringSet<> kept;
  for (const std::string &node : keepFp32)
    kept.insert(node);
  for (int round = 1;; ++round) {
    OwningOpRef<ModuleOp> narrowed(reference->clone());
    FailureOr<PrecisionReport> converted =
        convertPrecision(*narrowed, {compute, Precision::fp32, keep});
    if (::mlir::failed(converted))
      return diagnostics.takeError(
          "--keep-fp32 auto: converting the precision failed");
    llvm::Expected<ReferenceValues> run =
        runReference(*narrowed, *inputs, recorded);
    if (!run)
      return makeError("--keep-fp32 auto: " + llvm::toString(run.takeError()));
    selection.runs = round;

    // The outputs decide whether to go on.
    double worst = -1;
    selection.passed = true;
    for (auto [got, ref] : llvm::zip(run->outputs, wide->outputs)) {
      std::string why;
      std::optional<TensorErrors> errors = compareTensors(got, ref, why);
      if (!errors)
        continue; // a dtype compareTensors does not read: not narrowed
      selection.passed &= errors->within(tolerance);
      double bad = badness(*errors, tolerance);
      if (bad > worst) {
        worst = bad;
        selection.outputError =
            "output '" + ref.name + "': " + describeError(*errors, tolerance);
      }
    }
    if (selection.passed)
      return selection;
    if (round == kMaxFp32Rounds) {
      selection.stopReason =
          "stopped after " + std::to_string(round) + " narrowed runs";
      return selection;
    }

    // Every computed float tensor against float32, in graph order.
    llvm::StringMap<TensorErrors> errors;
    for (const std::string &name : run->order) {
      auto ref = wide->tensors.find(name);
      if (ref == wide->tensors.end() || !isFloatDtype(ref->second.dtype))
        continue;
      std::string why;
      if (std::optional<TensorErrors> found =
              compareTensors(run->tensors[name], ref->second, why))
        errors[name] = *found;
    }
    // A node that can still be kept: narrowed, not kept yet.
    auto narrowable = [&](StringRef node) {
      return !node.empty() && !kept.contains(node) &&
             !converted->wideNodes.count(node.str()) &&
             !converted->pinnedNodes.count(node.str());
    };
    auto producer = [&](StringRef tensor) -> StringRef {
      auto found = run->producers.find(tensor);
      return found == run->producers.end() ? StringRef() : found->second;
    };
    std::vector<Fp32Choice> picks;
    auto pick = [&](StringRef node, Fp32Choice::Rule rule, std::string detail) {
      for (const Fp32Choice &chosen : picks)
        if (chosen.node == node)
          return;
      picks.push_back({node.str(), rule, std::move(detail), round});
    };

    // 1. Overflow: values beyond the type, or non-finite values born here.
    for (const std::string &name : run->order) {
      StringRef node = producer(name);
      auto found = errors.find(name);
      if (found == errors.end() || !narrowable(node))
        continue;
      const TensorErrors &e = found->second;
      if (e.refMaxAbs > largest) {
        pick(node, Fp32Choice::Rule::overflow,
             "float32 values reach " + number(e.refMaxAbs) + " ('" + name +
                 "'), beyond " + narrowName + "'s largest " +
                 number(largest, 5));
        continue;
      }
      if (!e.nanBorn && !e.infBorn)
        continue;
      bool inputsFinite = true;
      for (const std::string &input : nodes.inputs.lookup(node)) {
        auto in = errors.find(input);
        inputsFinite &=
            in == errors.end() || (!in->second.nanBorn && !in->second.infBorn);
      }
      if (inputsFinite)
        pick(node, Fp32Choice::Rule::overflow,
             "its " + std::string(narrowName) + " output '" + name + "' has " +
                 std::to_string(e.nanBorn) + " NaN and " +
                 std::to_string(e.infBorn) +
                 " infinite elements where float32 is finite");
    }
    // 2. Error: the first tensor beyond tolerance, of those whose inputs
    // are within it (the error is born there), whose node can be kept, with
    // the producers of its inputs whose rounding alone is more than it may
    // be off by (x + 1000 - 1000: the narrowed sum is within tolerance of
    // its own range, not of the difference's); when the node is in float32
    // already, only those producers (or, when none stands out, every
    // narrowed producer of its inputs).
    if (picks.empty()) {
      for (const std::string &name : run->order) {
        auto found = errors.find(name);
        StringRef node = producer(name);
        if (found == errors.end() || node.empty() ||
            found->second.within(tolerance))
          continue;
        const std::vector<std::string> &reads = nodes.inputs.lookup(node);
        bool bornHere = true;
        for (const std::string &input : reads) {
          auto in = errors.find(input);
          bornHere &= in == errors.end() || in->second.within(tolerance);
        }
        if (!bornHere)
          continue;
        std::string measured =
            "'" + name + "': " + describeError(found->second, tolerance);
        double allowed =
            tolerance.atol + tolerance.rtol * found->second.refMaxAbs;
        std::vector<std::string> feeders, narrowedInputs;
        for (const std::string &input : reads) {
          if (!narrowable(producer(input)))
            continue;
          narrowedInputs.push_back(input);
          auto in = errors.find(input);
          if (in != errors.end() && in->second.maxAbsError > allowed)
            feeders.push_back(input);
        }
        bool nodeNarrowed = narrowable(node);
        if (nodeNarrowed)
          pick(node, Fp32Choice::Rule::error,
               "the first tensor beyond " + std::string(narrowName) +
                   " tolerance in graph order, " + measured);
        for (const std::string &input :
             feeders.empty() && !nodeNarrowed ? narrowedInputs : feeders)
          pick(producer(input), Fp32Choice::Rule::error,
               "its " + std::string(narrowName) + " output '" + input +
                   "' (max |error| " +
                   number(errors.lookup(input).maxAbsError) + ") feeds '" +
                   node.str() + "'" +
                   (nodeNarrowed ? std::string()
                                 : std::string(" (in float32)")) +
                   ", the first beyond tolerance in graph order (" + measured +
                   ")");
        if (!picks.empty())
          break;
      }
    }
    if (picks.empty()) {
      selection.stopReason =
          "no node left to keep in float32 changes the result";
      return selection;
    }
    for (Fp32Choice &chosen : picks) {
      keep.push_back(chosen.node);
      kept.insert(chosen.node);
      selection.kept.push_back(std::move(chosen));
    }
  }
}

} // namespace graphc
