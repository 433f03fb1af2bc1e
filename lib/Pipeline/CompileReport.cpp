//===- CompileReport.cpp - what graphc compile says it wrote --------------===//

#include "lib/Pipeline/CompileReport.h"

#include "dialects/Exec/ExecOps.h"
#include "lib/Support/CompileCache.h"
#include "lib/Support/Format.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace graphc {

CompileSummary summarize(ModuleOp module) {
  CompileSummary summary;
  for (Operation &op : module.getBody()->getOperations()) {
    if (auto kernel = dyn_cast<exec::KernelOp>(op)) {
      ++summary.kernels;
      summary.cublasLtKernels += kernel.getGemm().has_value();
      summary.cudnnKernels +=
          kernel.getConv().has_value() || kernel.getSdpa().has_value();
    }
    if (auto weight = dyn_cast<exec::WeightOp>(op)) {
      summary.weightBytes = std::max<int64_t>(
          summary.weightBytes,
          weight.getOffset() + exec::slotBytes(weight.getValue().getType()));
    }
    if (auto plan = dyn_cast<exec::PlanOp>(op)) {
      ++summary.plans;
      summary.steps += plan.getSteps().front().getOperations().size();
      summary.arenaBytes =
          std::max<int64_t>(summary.arenaBytes, plan.getArenaBytes());
      summary.intermediateBytes = std::max<int64_t>(
          summary.intermediateBytes, plan.getIntermediateBytes());
      for (auto call : plan.getOps<exec::LibraryCallOp>())
        summary.workspaceBytes = std::max<int64_t>(
            summary.workspaceBytes, call.getWorkspace().getSize());
    }
  }
  return summary;
}

namespace {

/// "cpu", or "cuda sm_80,sm_90".
std::string describeTarget(const CompileOptions &options) {
  if (options.target == Target::cpu)
    return "cpu";
  if (options.cudaEmulation)
    return "cuda, host emulation";
  std::string text = "cuda ";
  for (auto [i, sm] : llvm::enumerate(options.sms))
    text += (i ? ",sm_" : "sm_") + std::to_string(sm);
  return text;
}

/// Why this target: a flag, or the default (which the user may not know).
std::string targetReason(const CompileOptions &options) {
  if (!options.targetIsDefault)
    return "--target";
  return options.target == Target::cuda
             ? "the default target; --target cpu builds for the host CPU"
             : "the default target; --target cuda builds for NVIDIA GPUs";
}

/// " (12 cuBLASLt, 4 cuDNN)": the library kernels, or nothing.
std::string describeLibraryKernels(const CompileSummary &summary) {
  std::string text;
  for (auto [count, library] : {std::pair(summary.cublasLtKernels, "cuBLASLt"),
                                std::pair(summary.cudnnKernels, "cuDNN")})
    if (count)
      text +=
          (text.empty() ? " (" : ", ") + std::to_string(count) + " " + library;
  return text.empty() ? text : text + ")";
}

void printSummary(const CompileSummary &summary, const CompileOptions &options,
                  llvm::raw_ostream &out) {
  out << "wrote " << options.outputPath << " (" << describeTarget(options)
      << (options.targetIsDefault ? ": " + targetReason(options) : "")
      << "): " << summary.kernels << " kernels"
      << describeLibraryKernels(summary) << ", " << summary.steps << " steps"
      << (summary.plans > 1
              ? " in " + std::to_string(summary.plans) + " bucket plans"
              : std::string())
      << ", arena " << formatBytes(summary.arenaBytes) << " (intermediates "
      << formatBytes(summary.intermediateBytes) << " without reuse"
      << (summary.workspaceBytes
              ? ", library workspace " + formatBytes(summary.workspaceBytes)
              : std::string())
      << "), weights " << formatBytes(summary.weightBytes)
      << (options.weightsSideFile ? " in " + options.outputPath + ".weights"
                                  : std::string())
      << "\n";
}

/// "  tuning: 7 of 12 kernels from tune.json (sm_90, CUDA 13, fp32)".
void printTuningLine(const TuningReport &report, const CompileOptions &options,
                     llvm::raw_ostream &out) {
  if (!report.used)
    return;
  out << "  tuning: " << report.tuned << " of " << report.kernels
      << " kernels tuned from " << options.tuningDbName << " (sm_" << report.sm
      << ", CUDA " << report.cudaMajor << ", "
      << precisionName(options.precision) << ")";
  if (report.foreign)
    out << "; " << report.foreign
        << (report.foreign == 1 ? " entry is" : " entries are")
        << " for other GPUs, CUDA versions or precisions";
  out << "\n";
}

/// "  precision: fp16 (inputs and outputs fp32), weights 98 MiB -> 49 MiB;
/// float32: 2 nodes (--keep-fp32), 1 node with no fp16 form: 'range_3'",
/// and with --keep-fp32 auto a line on its search and one per node it kept.
void printPrecisionLine(const PrecisionReport &report,
                        const CompileOptions &options,
                        const Fp32Selection *autoKeep, llvm::raw_ostream &out) {
  if (options.precision == Precision::fp32 &&
      options.ioPrecision == Precision::fp32)
    return;
  const char *name = precisionName(options.precision);
  out << "  precision: " << name << " (inputs and outputs "
      << precisionName(options.ioPrecision) << ")";
  if (report.weightBytesBefore)
    out << ", weights " << formatBytes(report.weightBytesBefore) << " -> "
        << formatBytes(report.weightBytesAfter);
  // The nodes kept by name and those --keep-fp32 auto chose.
  size_t chosen = 0;
  if (autoKeep)
    for (const Fp32Choice &choice : autoKeep->kept)
      chosen += report.pinnedNodes.count(choice.node) &&
                !llvm::is_contained(options.keepFp32, choice.node);
  size_t named = report.pinnedNodes.size() - chosen;
  auto count = [](size_t n) {
    return std::to_string(n) + (n == 1 ? " node" : " nodes");
  };
  if (named || chosen || !report.wideNodes.empty()) {
    out << "; float32: ";
    const char *separator = "";
    if (chosen) {
      out << count(chosen) << " (--keep-fp32 auto)";
      separator = ", ";
    }
    if (named) {
      out << separator << count(named) << " (--keep-fp32)";
      separator = ", ";
    }
    if (!report.wideNodes.empty()) {
      out << separator << count(report.wideNodes.size()) << " with no " << name
          << " form: ";
      int shown = 0;
      for (const std::string &node : report.wideNodes) {
        if (shown == 3) {
          out << ", ...";
          break;
        }
        out << (shown++ ? ", " : "") << "'" << node << "'";
      }
    }
  }
  out << "\n";
  if (!autoKeep)
    return;
  out << "  --keep-fp32 auto: "
      << (autoKeep->kept.empty() ? "nothing kept"
                                 : count(autoKeep->kept.size()) + " kept")
      << " after " << autoKeep->runs << " narrowed "
      << (autoKeep->runs == 1 ? "run" : "runs") << " on the cpu reference ("
      << autoKeep->inputs << "); "
      << (autoKeep->passed ? "outputs within " : "outputs still beyond ")
      << name << " tolerance of float32 (" << autoKeep->outputError << ")";
  if (!autoKeep->passed)
    out << ": " << autoKeep->stopReason;
  out << "\n";
  for (const Fp32Choice &choice : autoKeep->kept) {
    out << "    '" << choice.node << "' (run " << choice.round << ", "
        << (choice.rule == Fp32Choice::Rule::overflow ? "overflow" : "error")
        << "): " << choice.detail;
    if (!report.pinnedNodes.count(choice.node))
      out << "; the compile folded it away, nothing to keep";
    out << "\n";
  }
}

/// "  compile cache: 3 of 4 parts reused from DIR" when a cache was used.
void printCacheLine(const CompileCache *cache, llvm::raw_ostream &out) {
  if (!cache)
    return;
  CacheStats stats = cache->stats();
  int64_t parts = stats.hits + stats.misses;
  out << "  compile cache: " << stats.hits << " of " << parts
      << (parts == 1 ? " part" : " parts") << " reused from "
      << cache->directory();
  if (stats.rejected)
    out << " (" << stats.rejected << " damaged, recompiled)";
  out << "\n";
}

/// The summary as the fields of the JSON progress summary event.
ProgressFields
summaryFields(const CompileSummary &summary, const CompileOptions &options,
              const CompileCache *cache, const TuningReport &tuning,
              const PrecisionReport &precision, const Fp32Selection *autoKeep) {
  llvm::json::Array pinned, wide;
  for (const std::string &node : precision.pinnedNodes)
    pinned.push_back(node);
  for (const std::string &node : precision.wideNodes)
    wide.push_back(node);
  llvm::json::Object precisionField{
      {"compute", precisionName(options.precision)},
      {"io", precisionName(options.ioPrecision)},
      {"narrowed_weight_bytes_before", precision.weightBytesBefore},
      {"narrowed_weight_bytes_after", precision.weightBytesAfter},
      {"keep_fp32_nodes", std::move(pinned)},
      {"fp32_nodes_without_narrow_form", std::move(wide)}};
  if (autoKeep) {
    llvm::json::Array kept;
    for (const Fp32Choice &choice : autoKeep->kept)
      kept.push_back(llvm::json::Object{
          {"node", choice.node},
          {"rule",
           choice.rule == Fp32Choice::Rule::overflow ? "overflow" : "error"},
          {"run", choice.round},
          {"detail", choice.detail},
          {"kept", precision.pinnedNodes.count(choice.node) > 0}});
    precisionField["keep_fp32_auto"] =
        llvm::json::Object{{"kept", std::move(kept)},
                           {"runs", autoKeep->runs},
                           {"passed", autoKeep->passed},
                           {"inputs", autoKeep->inputs},
                           {"output_error", autoKeep->outputError}};
  }
  llvm::json::Value tuningField = nullptr;
  if (tuning.used)
    tuningField =
        llvm::json::Object{{"database", options.tuningDbName},
                           {"sm", tuning.sm},
                           {"cuda_major", tuning.cudaMajor},
                           {"precision", precisionName(options.precision)},
                           {"kernels", tuning.kernels},
                           {"tuned", tuning.tuned},
                           {"foreign", tuning.foreign}};
  llvm::json::Value cacheField = nullptr;
  if (cache) {
    CacheStats stats = cache->stats();
    cacheField = llvm::json::Object{{"directory", cache->directory()},
                                    {"hits", stats.hits},
                                    {"misses", stats.misses},
                                    {"rejected", stats.rejected},
                                    {"evicted", stats.evicted}};
  }
  llvm::json::Array sms;
  if (options.target == Target::cuda)
    for (int sm : options.sms)
      sms.push_back("sm_" + std::to_string(sm));
  return ProgressFields{
      {"output", options.outputPath},
      {"target", options.target == Target::cuda ? "cuda" : "cpu"},
      {"target_source", options.targetIsDefault ? "default" : "flag"},
      {"sms", std::move(sms)},
      {"kernels", summary.kernels},
      {"library_kernels", summary.cublasLtKernels + summary.cudnnKernels},
      {"cublaslt_kernels", summary.cublasLtKernels},
      {"cudnn_kernels", summary.cudnnKernels},
      {"steps", summary.steps},
      {"plans", summary.plans},
      {"arena_bytes", summary.arenaBytes},
      {"intermediate_bytes", summary.intermediateBytes},
      {"weight_bytes", summary.weightBytes},
      {"weights_file", options.weightsSideFile
                           ? llvm::json::Value(options.outputPath + ".weights")
                           : llvm::json::Value(nullptr)},
      {"cache", std::move(cacheField)},
      {"tuning", std::move(tuningField)},
      {"precision", std::move(precisionField)},
  };
}

/// The buckets of every bucketed dim and whether a run may pad along it,
/// one line each: "  batch: 1,2,4,8 (default); pad-safe, splittable".
void printBuckets(ModuleOp module, llvm::ArrayRef<BucketedDim> chosen,
                  llvm::raw_ostream &out) {
  for (auto dim : module.getOps<exec::BucketDimOp>()) {
    out << "  " << dim.getName() << ": ";
    for (auto [i, size] : llvm::enumerate(dim.getSizes()))
      out << (i ? "," : "") << size;
    for (const BucketedDim &bucketed : chosen)
      if (bucketed.name == dim.getName() && bucketed.isDefault)
        out << " (default; choose with --buckets " << dim.getName()
            << "=V1,V2,... or --max-dim " << dim.getName() << "=N)";
    if (dim.getPadSafe())
      out << "; any size up to the largest (padded)"
          << (dim.getSplittable() ? ", larger ones split into several runs"
                                  : "");
    else
      out << "; exact sizes only: "
          << (dim.getNode().empty() ? ""
                                    : "node '" + dim.getNode().str() + "': ")
          << dim.getReason();
    out << "\n";
  }
}

} // namespace

std::string describeQuantization(const QuantizationReport &report) {
  int64_t quantized =
      report.integerProducts + report.float8Products + report.integerConvs;
  if (!quantized && report.floatNodes.empty())
    return "";
  std::string text;
  llvm::raw_string_ostream out(text);
  out << quantized << (quantized == 1 ? " linear op" : " linear ops")
      << " on 8-bit values";
  const char *separator = " (";
  for (auto [count, what] :
       {std::pair(report.integerProducts, "int8/uint8 product"),
        std::pair(report.float8Products, "e4m3fn product"),
        std::pair(report.integerConvs, "int8/uint8 convolution")})
    if (count) {
      out << separator << count << " " << what << (count == 1 ? "" : "s");
      separator = ", ";
    }
  if (quantized)
    out << ")";
  if (!report.floatNodes.empty()) {
    size_t nodes = report.floatNodes.size();
    out << "; float: " << nodes << (nodes == 1 ? " node" : " nodes")
        << " with dequantized operands: ";
    int shown = 0;
    for (const auto &[node, why] : report.floatNodes) {
      if (shown == 3) {
        out << ", ...";
        break;
      }
      out << (shown++ ? ", " : "") << "'" << node << "' (" << why << ")";
    }
  }
  return text;
}

llvm::json::Object quantizationJson(const QuantizationReport &report) {
  llvm::json::Object floatNodes;
  // Node names are bytes from the model: invalid UTF-8 becomes U+FFFD.
  for (const auto &[node, why] : report.floatNodes)
    floatNodes[llvm::json::isUTF8(node) ? node : llvm::json::fixUTF8(node)] =
        why;
  return llvm::json::Object{{"integer_products", report.integerProducts},
                            {"float8_products", report.float8Products},
                            {"integer_convolutions", report.integerConvs},
                            {"float_nodes", std::move(floatNodes)}};
}

void printReport(const CompileReport &report, ModuleOp module,
                 const CompileOptions &options, llvm::raw_ostream &out) {
  printSummary(report.summary, options, out);
  printBuckets(module, report.buckets, out);
  printPrecisionLine(report.precision, options, report.autoKeep, out);
  std::string quantized = describeQuantization(report.quantization);
  if (!quantized.empty())
    out << "  quantized: " << quantized << "\n";
  printTuningLine(report.tuning, options, out);
  printCacheLine(report.cache, out);
}

ProgressFields reportFields(const CompileReport &report,
                            const CompileOptions &options) {
  ProgressFields fields =
      summaryFields(report.summary, options, report.cache, report.tuning,
                    report.precision, report.autoKeep);
  fields.push_back({"quantization", quantizationJson(report.quantization)});
  return fields;
}

} // namespace graphc
