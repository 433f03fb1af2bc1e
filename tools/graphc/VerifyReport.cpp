//===- VerifyReport.cpp - `graphc verify`'s reports -----------------------===//
//
// What `graphc verify` found, as text for a terminal or as JSON (--json):
// each output's errors against the reference and, for a bisected run, the
// step results compared and the first out of tolerance.
//
//===----------------------------------------------------------------------===//

#include "tools/graphc/Verify.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace graphc::tools {

namespace {

std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (std::isnan(value))
    os << "nan";
  else if (std::isinf(value))
    os << (value < 0 ? "-inf" : "inf");
  else
    os << llvm::format("%.4g", value);
  return text;
}

/// A JSON number, or null for NaN and infinities (which JSON lacks), with
/// the sign of an infinity kept as a string.
llvm::json::Value jsonNumber(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  return value;
}

/// "max abs error 3.2e-05 (rel 1.1e-05), no nan or inf": the errors of a
/// comparison, non-finite values born against a finite reference first.
std::string errorsText(const Comparison &comparison) {
  if (!comparison.errors)
    return "not compared: " + comparison.why;
  const TensorErrors &e = *comparison.errors;
  std::string text;
  auto born = [&](int64_t count, const char *what) {
    if (count)
      text +=
          (text.empty() ? "" : " and ") + std::to_string(count) + " " + what;
  };
  born(e.nanBorn, "NaN");
  born(e.infBorn, "Inf");
  if (!text.empty())
    text += " (reference finite)";
  if (e.nonFiniteMismatch)
    text += (text.empty() ? "" : ", ") + std::to_string(e.nonFiniteMismatch) +
            " not the reference's NaN or Inf";
  int64_t elsewhere = e.elements - e.nanBorn - e.infBorn - e.refNan - e.refInf;
  if (elsewhere > 0)
    text += (text.empty() ? "" : "; elsewhere ") +
            std::string("max abs error ") + formatNumber(e.maxAbsError) +
            " (rel " + formatNumber(e.relError) + ")";
  // The counts, unless the born ones above are all there is.
  bool onlyBorn =
      e.gotNan == e.nanBorn && e.gotInf == e.infBorn && !e.refNan && !e.refInf;
  if (e.gotNan || e.gotInf || e.refNan || e.refInf) {
    if (onlyBorn)
      return text;
    text += ", nan " + std::to_string(e.gotNan) + " inf " +
            std::to_string(e.gotInf) + " (reference: nan " +
            std::to_string(e.refNan) + " inf " + std::to_string(e.refInf) + ")";
  } else {
    text += ", no nan or inf";
  }
  return text;
}

std::string rangeText(const Comparison &comparison) {
  const TensorErrors &e = *comparison.errors;
  auto range = [](int64_t nans, int64_t elements, double min, double max) {
    if (elements > 0 && nans == elements)
      return std::string("every element NaN");
    return "[" + formatNumber(min) + ", " + formatNumber(max) + "]";
  };
  return "range " + range(e.gotNan, e.elements, e.gotMin, e.gotMax) +
         ", reference " + range(e.refNan, e.elements, e.refMin, e.refMax);
}

/// The kernel's nodes for a terminal: at most 60 characters.
std::string nodesText(llvm::StringRef nodes) {
  llvm::SmallVector<llvm::StringRef> list;
  nodes.split(list, ',', -1, false);
  std::string text;
  for (auto [i, node] : llvm::enumerate(list)) {
    std::string next = (i ? ", " : "") + node.str();
    if (text.size() + next.size() > 60) {
      text += " and " + std::to_string(list.size() - i) + " more";
      break;
    }
    text += next;
  }
  return text;
}

llvm::json::Object comparisonJson(const Comparison &comparison) {
  llvm::json::Object object{
      {"name", comparison.name},
      {"dtype", graphc_dtype_name(comparison.dtype)},
      {"dims", llvm::json::Array(comparison.dims)},
      {"compared", comparison.errors.has_value()},
  };
  if (!comparison.errors) {
    object["why"] = comparison.why;
    return object;
  }
  const TensorErrors &e = *comparison.errors;
  object["within_tolerance"] = comparison.within;
  object["max_abs_error"] = jsonNumber(e.maxAbsError);
  object["rel_error"] = jsonNumber(e.relError);
  object["nan"] = e.gotNan;
  object["inf"] = e.gotInf;
  object["nan_born"] = e.nanBorn;
  object["inf_born"] = e.infBorn;
  object["reference_nan"] = e.refNan;
  object["reference_inf"] = e.refInf;
  object["min"] = jsonNumber(e.gotMin);
  object["max"] = jsonNumber(e.gotMax);
  object["reference_min"] = jsonNumber(e.refMin);
  object["reference_max"] = jsonNumber(e.refMax);
  object["zeroed"] = e.zeroedElements;
  return object;
}

} // namespace

std::string dimsText(llvm::ArrayRef<int64_t> dims) {
  std::string text = "[";
  for (auto [i, dim] : llvm::enumerate(dims))
    text += (i ? "," : "") + std::to_string(dim);
  return text + "]";
}

void Verifier::printHeader() {
  llvm::outs() << "verify '" << options.artifact << "' ("
               << (cuda ? "cuda" : "cpu") << ") against '" << options.model
               << "' on graphc's float32 cpu reference\n"
               << "precision " << precisionName(precision)
               << (precisionFromFlag ? " (--precision)" : " (the artifact's)")
               << ": tolerance atol " << formatNumber(tolerance.atol)
               << " + rtol " << formatNumber(tolerance.rtol)
               << " * max |reference|\n";
}

void Verifier::printRun(const RunReport &report) {
  llvm::raw_ostream &os = llvm::outs();
  os << "run " << report.index << " (" << report.inputs << ", plan '"
     << report.plan << "'): " << (report.passed ? "ok" : "FAIL") << "\n";
  for (const Comparison &output : report.outputs) {
    os << "  output '" << output.name << "' " << graphc_dtype_name(output.dtype)
       << dimsText(output.dims) << ": " << (output.within ? "ok" : "FAIL")
       << "\n    " << errorsText(output) << "\n";
    if (output.errors)
      os << "    " << rangeText(output) << "\n";
  }
  if (!report.bisected)
    return;
  if (!report.probedOutputsDiffer.empty())
    os << "  note: the probing run's outputs differ from the plain run's ("
       << llvm::join(report.probedOutputsDiffer, ", ")
       << "): a nondeterministic kernel, or probing changed a launch\n";
  auto describe = [&](const StepComparison &step) {
    os << "    step " << step.step << " of " << report.numSteps << ", kernel "
       << step.kernel << " [" << step.kind << "]";
    if (!step.nodes.empty())
      os << ", nodes " << nodesText(step.nodes);
    os << "\n      result " << step.result;
    if (step.comparison.name.empty())
      os << " holds no single ONNX tensor";
    else
      os << " holds '" << step.comparison.name << "'";
    if (!step.node.empty())
      os << " (node '" << step.node << "')";
    os << ", " << graphc_dtype_name(step.comparison.dtype)
       << dimsText(step.comparison.dims) << ": "
       << (step.comparison.errors ? (step.comparison.within ? "ok" : "FAIL")
                                  : "-")
       << "\n      " << errorsText(step.comparison) << "\n";
    if (step.comparison.errors)
      os << "      " << rangeText(step.comparison) << "\n";
    if (step.diagnosis)
      os << "      " << step.diagnosis->message << "\n";
  };
  if (options.all) {
    os << "  every step result against the reference:\n";
    for (const StepComparison &step : report.steps)
      describe(step);
  }
  if (report.firstFailing >= 0) {
    os << "  first step out of tolerance:\n";
    describe(report.steps[report.firstFailing]);
  } else if (!report.passed) {
    if (report.compared > 0)
      os << "  every compared step result is within tolerance: the error "
            "builds up over the steps\n";
    else
      os << "  no step result could be compared\n";
  }
  if (report.uncompared)
    os << "  (" << report.uncompared
       << " step result(s) hold no tensor of the reference or are padded "
          "to the plan's bucket, and were not compared)\n";
}

llvm::json::Object Verifier::runJson(const RunReport &report) {
  llvm::json::Array outputs, steps;
  for (const Comparison &output : report.outputs)
    outputs.push_back(comparisonJson(output));
  auto stepJson = [&](const StepComparison &step) {
    llvm::json::Object object = comparisonJson(step.comparison);
    object["step"] = step.step;
    object["result"] = step.result;
    object["kernel"] = step.kernel;
    object["kind"] = step.kind;
    llvm::SmallVector<llvm::StringRef> nodes;
    llvm::StringRef(step.nodes).split(nodes, ',', -1, false);
    llvm::json::Array nodeArray;
    for (llvm::StringRef node : nodes)
      nodeArray.push_back(node.str());
    object["onnx_nodes"] = std::move(nodeArray);
    object["tensor"] = step.comparison.name;
    object["node"] = step.node;
    if (step.diagnosis)
      object["diagnosis"] = llvm::json::Object{
          {"kind", step.diagnosis->kind}, {"message", step.diagnosis->message}};
    else
      object["diagnosis"] = nullptr;
    return object;
  };
  for (const StepComparison &step : report.steps)
    steps.push_back(stepJson(step));
  llvm::json::Object object{
      {"index", report.index},
      {"inputs", report.inputs},
      {"plan", report.plan},
      {"passed", report.passed},
      {"outputs", std::move(outputs)},
      {"bisected", report.bisected},
      {"num_steps", report.numSteps},
      {"compared_results", report.compared},
      {"uncompared_results", report.uncompared},
  };
  if (report.bisected) {
    object["steps"] = std::move(steps);
    llvm::json::Array differ;
    for (const std::string &name : report.probedOutputsDiffer)
      differ.push_back(name);
    object["probed_outputs_differ"] = std::move(differ);
  }
  object["first_failing_step"] =
      report.firstFailing >= 0
          ? llvm::json::Value(stepJson(report.steps[report.firstFailing]))
          : llvm::json::Value(nullptr);
  return object;
}

} // namespace graphc::tools
