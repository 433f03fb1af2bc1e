//===- InspectCommand.cpp - `graphc inspect` ------------------------------===//
//
// Describes a compiled model from its descriptor, read from the file as data
// (tools/graphc/ArtifactFile): nothing in the file runs, so foreign or
// hostile files are safe to inspect, and cuda models need no GPU.
//
//===----------------------------------------------------------------------===//

#include "lib/Artifact/OnnxDtype.h"
#include "lib/Support/Format.h"
#include "tools/graphc/ArtifactFile.h"
#include "tools/graphc/RuntimeCommands.h"

#include "graphc/descriptor.h"
#include "graphc/runtime.h"
#include "tools/graphc/Commands.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace graphc::tools {

namespace {

using rt::ArtifactTensor;
using rt::ArtifactView;

nlohmann::ordered_json tensorJson(const ArtifactTensor &tensor) {
  nlohmann::ordered_json dims = nlohmann::json::array();
  for (size_t d = 0; d < tensor.dims.size(); ++d) {
    if (tensor.dims[d] >= 0)
      dims.push_back(tensor.dims[d]);
    else if (!tensor.dimNames[d].empty())
      dims.push_back(tensor.dimNames[d]);
    else
      dims.push_back(nullptr);
  }
  // The dims whose extent each run decides (an output's), by index.
  nlohmann::ordered_json dataDependent = nlohmann::json::array();
  for (size_t d = 0; d < tensor.dataDependent.size(); ++d)
    if (tensor.dataDependent[d])
      dataDependent.push_back(d);
  return {{"name", tensor.name},
          {"dtype", graphc_dtype_name(tensor.dtype)},
          {"shape", dims},
          {"pad_value", tensor.padValue},
          {"data_dependent", dataDependent}};
}

/// What a roofline divides by: DRAM bandwidth and dense peak arithmetic.
struct GpuPeaks {
  const char *name;
  double bytesPerSecond, fp32FlopsPerSecond, fp16FlopsPerSecond;
};

// Vendor figures (SXM parts, dense, without sparsity). fp16 and bf16 use
// the tensor-core peak, everything else the fp32 one.
constexpr GpuPeaks kGpus[] = {
    {"h100", 3.35e12, 67e12, 989e12},
    {"h200", 4.8e12, 67e12, 989e12},
    {"a100", 2.039e12, 19.5e12, 312e12},
};

const GpuPeaks &gpuNamed(const std::string &name) {
  for (const GpuPeaks &gpu : kGpus)
    if (name == gpu.name)
      return gpu;
  return kGpus[0];
}

/// One step's cost: a launch's from its kernel, a copy's from its size.
nlohmann::ordered_json stepJson(const rt::ArtifactStep &step,
                                const ArtifactView &view,
                                const GpuPeaks &gpu) {
  nlohmann::ordered_json json;
  uint64_t read = 0, written = 0, flops = 0;
  int32_t dtype = 0;
  bool known = step.kernel >= 0 &&
               step.kernel < static_cast<int32_t>(view.kernels.size());
  switch (step.kind) {
  case GRAPHC_STEP_LAUNCH:
  case GRAPHC_STEP_HOST_CALL:
  case GRAPHC_STEP_LIBRARY_CALL:
    json["kind"] = step.kind == GRAPHC_STEP_LAUNCH      ? "launch"
                   : step.kind == GRAPHC_STEP_HOST_CALL ? "host_call"
                                                        : "library_call";
    json["kernel"] = known ? view.kernels[step.kernel].name : "";
    json["onnx_nodes"] = known ? view.kernels[step.kernel].onnxNodes : "";
    if (known) {
      const rt::ArtifactKernel &kernel = view.kernels[step.kernel];
      read = kernel.bytesRead;
      written = kernel.bytesWritten;
      flops = kernel.flops;
      dtype = kernel.flopDtype;
    }
    break;
  case GRAPHC_STEP_COPY:
    json["kind"] = "copy";
    json["kernel"] = nullptr;
    json["onnx_nodes"] = "";
    read = written = step.copyBytes;
    break;
  case GRAPHC_STEP_LOOP:
    json["kind"] = "loop";
    json["kernel"] = known ? view.kernels[step.kernel].name : "";
    json["onnx_nodes"] = known ? view.kernels[step.kernel].onnxNodes : "";
    json["body_steps"] = step.bodySteps;
    json["max_iterations"] = step.maxIterations;
    break;
  default:
    json["kind"] = "unknown";
    json["kernel"] = nullptr;
    json["onnx_nodes"] = "";
  }
  // Tensor-core peaks for what runs on tensor cores: library GEMMs and
  // attention in 16-bit floats. Other generated kernels compute in float
  // on CUDA cores whatever they store.
  bool tensorCores = false;
  if (known && (dtype == rt::kFloat16 || dtype == rt::kBfloat16)) {
    const rt::ArtifactKernel &kernel = view.kernels[step.kernel];
    tensorCores =
        kernel.library != GRAPHC_LIBRARY_NONE || kernel.kind == "attention";
  }
  double peak =
      tensorCores ? gpu.fp16FlopsPerSecond : gpu.fp32FlopsPerSecond;
  double memorySeconds = double(read + written) / gpu.bytesPerSecond;
  double computeSeconds = double(flops) / peak;
  json["bytes_read"] = read;
  json["bytes_written"] = written;
  json["flops"] = flops;
  json["estimated_us"] = std::max(memorySeconds, computeSeconds) * 1e6;
  // Which side of the roofline bounds the step; a step the cost model
  // charges nothing (an unknown kind) has no bound.
  json["bound"] = memorySeconds == 0 && computeSeconds == 0 ? "none"
                  : memorySeconds >= computeSeconds         ? "memory"
                                                            : "compute";
  // What the step writes that a probing run compares, and the ONNX tensor
  // each holds ("" when none).
  nlohmann::ordered_json results = nlohmann::json::array();
  for (const rt::ArtifactStepResult &result : step.results)
    results.push_back({{"arg", result.arg},
                       {"dtype", graphc_dtype_name(result.dtype)},
                       {"dims", result.dims},
                       {"onnx_tensor", result.onnxTensor}});
  json["results"] = std::move(results);
  return json;
}

/// " int8 -> int32": the operand and accumulator types of a library GEMM
/// or convolution on 8-bit operands (a quantized region); "" for others.
std::string quantizedTypes(const nlohmann::ordered_json &library) {
  std::string dtype = library["dtype"].get<std::string>();
  if (dtype != graphc_dtype_name(rt::kInt8) &&
      dtype != graphc_dtype_name(rt::kFloat8E4M3FN))
    return "";
  return " " + dtype + " -> " + library["compute_dtype"].get<std::string>();
}

/// A library kernel's GEMM (graphc_gemm_desc), with names for its kinds.
nlohmann::ordered_json gemmJson(const rt::ArtifactGemm &gemm) {
  const char *epilogue = rt::epilogueName(gemm.epilogue);
  return {{"m", gemm.m},
          {"n", gemm.n},
          {"k", gemm.k},
          {"batch", gemm.batch},
          {"trans_a", gemm.transA != 0},
          {"trans_b", gemm.transB != 0},
          {"lda", gemm.lda},
          {"ldb", gemm.ldb},
          {"ldc", gemm.ldc},
          {"stride_a", gemm.strideA},
          {"stride_b", gemm.strideB},
          {"stride_c", gemm.strideC},
          {"alpha", gemm.alpha},
          {"beta", gemm.beta},
          {"bias", gemm.biasArg >= 0},
          {"epilogue", epilogue ? nlohmann::ordered_json(epilogue)
                                : nlohmann::ordered_json(gemm.epilogue)},
          {"dtype", graphc_dtype_name(gemm.dtype)},
          {"compute_dtype", graphc_dtype_name(gemm.computeDtype)},
          {"algo_rank", gemm.algoRank},
          {"split_k", gemm.splitK},
          {"tuned", gemm.tuned != 0},
          {"tf32", gemm.tf32 != 0}};
}

/// A library kernel's convolution (graphc_conv_desc), with names for its
/// kinds; the spatial arrays hold its spatial dims only.
nlohmann::ordered_json convJson(const rt::ArtifactConv &conv) {
  const char *epilogue = rt::epilogueName(conv.epilogue);
  auto spatial = [&](const std::vector<int64_t> &values) {
    std::vector<int64_t> dims(values.begin(),
                              values.begin() + std::min<size_t>(
                                                   values.size(),
                                                   std::max(conv.spatialDims, 0)));
    return nlohmann::ordered_json(dims);
  };
  nlohmann::ordered_json json = {
      {"n", conv.n},
      {"c", conv.c},
      {"k", conv.k},
      {"groups", conv.groups},
      {"in_size", spatial(conv.inSize)},
      {"filter_size", spatial(conv.filterSize)},
      {"out_size", spatial(conv.outSize)},
      {"pads_begin", spatial(conv.padsBegin)},
      {"pads_end", spatial(conv.padsEnd)},
      {"strides", spatial(conv.strides)},
      {"dilations", spatial(conv.dilations)},
      {"bias", conv.biasArg >= 0},
      {"residual", conv.zArg >= 0},
      {"epilogue", epilogue ? nlohmann::ordered_json(epilogue)
                            : nlohmann::ordered_json(conv.epilogue)},
      {"dtype", graphc_dtype_name(conv.dtype)},
      {"compute_dtype", graphc_dtype_name(conv.computeDtype)},
      {"engine_rank", conv.engineRank},
      {"tuned", conv.tuned != 0},
      {"layout", conv.channelsLast ? "channels_last" : "channels_first"},
      {"tf32", conv.tf32 != 0},
      {"epilogue_kernel", conv.hasEpilogueKernel}};
  return json;
}

/// A library kernel's attention (graphc_sdpa_desc).
nlohmann::ordered_json sdpaJson(const rt::ArtifactSdpa &sdpa) {
  return {{"batch", sdpa.batch},
          {"heads", sdpa.heads},
          {"kv_heads", sdpa.kvHeads},
          {"queries", sdpa.queries},
          {"keys", sdpa.keys},
          {"head_dim", sdpa.headDim},
          {"value_dim", sdpa.valueDim},
          {"scale", sdpa.scale},
          {"causal", sdpa.causal},
          {"bias", sdpa.biasArg >= 0},
          {"dtype", graphc_dtype_name(sdpa.dtype)},
          {"compute_dtype", graphc_dtype_name(sdpa.computeDtype)},
          {"engine_rank", sdpa.engineRank},
          {"fallback_kernel", true}};
}

/// The vendor libraries a deployment must provide: those of a cuda model's
/// library kernels (the cpu target computes them itself).
nlohmann::ordered_json librariesJson(const ArtifactView &view) {
  nlohmann::ordered_json libraries = nlohmann::json::array();
  if (view.target != GRAPHC_TARGET_CUDA)
    return libraries;
  for (const rt::ArtifactKernel &kernel : view.kernels) {
    std::string name = rt::libraryName(kernel.library);
    if (!name.empty() &&
        std::find(libraries.begin(), libraries.end(), name) == libraries.end())
      libraries.push_back(name);
  }
  return libraries;
}

nlohmann::ordered_json describe(const std::string &path,
                                const ArtifactView &view, bool checksumOk,
                                const GpuPeaks &gpu) {
  nlohmann::ordered_json report;
  report["model"] = path;
  report["producer"] = view.producer;
  report["target"] = view.target == GRAPHC_TARGET_CUDA ? "cuda" : "cpu";
  report["libraries"] = librariesJson(view);
  report["checksum"] = checksumOk ? "ok" : "mismatch";
  nlohmann::ordered_json images = nlohmann::json::array();
  for (const rt::ArtifactImage &image : view.images)
    images.push_back({{"sm", image.sm},
                      {"kind", rt::imageFormatName(image.format)},
                      {"bytes", image.size},
                      {"unit", image.unit}});
  report["images"] = images;
  report["units"] = view.numUnits;
  report["weight_bytes"] = view.weightsSize;
  // Where the weights are: inside the loaded image, appended to the file
  // after it (what graphc compile writes), or in a side file.
  report["weights_placement"] =
      view.weightsEmbedded   ? "embedded"
      : view.weightsAppended ? "appended"
      : !view.weightsFile.empty() ? "side_file"
                                  : "none";
  if (view.weightsEmbedded || view.weightsFile.empty()) {
    report["weights_file"] = nullptr;
  } else {
    llvm::SmallString<256> side(llvm::sys::path::parent_path(path));
    llvm::sys::path::append(side, view.weightsFile);
    report["weights_file"] = std::string(side);
  }

  report["inputs"] = nlohmann::json::array();
  report["outputs"] = nlohmann::json::array();
  for (const ArtifactTensor &input : view.inputs)
    report["inputs"].push_back(tensorJson(input));
  for (const ArtifactTensor &output : view.outputs)
    report["outputs"].push_back(tensorJson(output));

  report["buckets"] = nlohmann::json::array();
  for (const rt::ArtifactBucketDim &dim : view.bucketDims) {
    nlohmann::ordered_json axes = nlohmann::json::object();
    for (size_t o = 0; o < view.outputs.size(); ++o)
      if (dim.outputAxes[o] >= 0)
        axes[view.outputs[o].name] = dim.outputAxes[o];
    report["buckets"].push_back({{"dim", dim.name},
                                 {"sizes", dim.sizes},
                                 {"pad_safe", dim.padSafe},
                                 {"splittable", dim.splittable},
                                 {"node", dim.node},
                                 {"reason", dim.reason},
                                 {"output_axes", axes}});
  }

  report["plans"] = nlohmann::json::array();
  uint64_t maxArena = 0;
  for (const rt::ArtifactPlan &plan : view.plans) {
    maxArena = std::max(maxArena, plan.arenaBytes);
    nlohmann::ordered_json planInputs = nlohmann::json::object();
    nlohmann::ordered_json planOutputs = nlohmann::json::object();
    for (size_t i = 0; i < view.inputs.size(); ++i)
      planInputs[view.inputs[i].name] = plan.inputDims[i];
    for (size_t o = 0; o < view.outputs.size(); ++o)
      planOutputs[view.outputs[o].name] = plan.outputDims[o];
    // Per output with data-dependent dims: each one's bound (what the plan
    // allocates) and the arena slot where a run leaves its extent.
    nlohmann::ordered_json extents = nlohmann::json::object();
    for (size_t o = 0; o < view.outputs.size(); ++o) {
      const std::vector<int64_t> &offsets = plan.outputExtentOffsets[o];
      if (offsets.empty())
        continue;
      nlohmann::ordered_json dims = nlohmann::json::array();
      for (size_t d = 0; d < offsets.size(); ++d)
        if (offsets[d] >= 0)
          dims.push_back({{"dim", d},
                          {"bound", plan.outputDims[o][d]},
                          {"arena_offset", offsets[d]}});
      extents[view.outputs[o].name] = std::move(dims);
    }
    nlohmann::ordered_json steps = nlohmann::json::array();
    uint64_t launches = 0, libraryCalls = 0, copies = 0, read = 0, written = 0,
             flops = 0;
    double micros = 0;
    for (const rt::ArtifactStep &step : plan.steps) {
      nlohmann::ordered_json json = stepJson(step, view, gpu);
      // Library calls launch the library's kernels: launches count them too.
      (step.kind == GRAPHC_STEP_COPY ? copies : launches) += 1;
      libraryCalls += step.kind == GRAPHC_STEP_LIBRARY_CALL;
      read += json["bytes_read"].get<uint64_t>();
      written += json["bytes_written"].get<uint64_t>();
      flops += json["flops"].get<uint64_t>();
      micros += json["estimated_us"].get<double>();
      steps.push_back(std::move(json));
    }
    report["plans"].push_back({{"name", plan.name},
                               {"arena_bytes", plan.arenaBytes},
                               {"intermediate_bytes", plan.intermediateBytes},
                               {"inputs", planInputs},
                               {"outputs", planOutputs},
                               {"output_extents", extents},
                               {"steps", steps},
                               {"totals",
                                {{"launches", launches},
                                 {"library_calls", libraryCalls},
                                 {"copies", copies},
                                 {"bytes_read", read},
                                 {"bytes_written", written},
                                 {"flops", flops},
                                 {"estimated_us", micros}}}});
  }
  report["arena_bytes"] = maxArena;
  // The totals' estimate: each step at the roofline of this GPU, one after
  // another, without launch overheads.
  report["roofline"] = {{"gpu", gpu.name},
                        {"bytes_per_s", gpu.bytesPerSecond},
                        {"fp32_flops_per_s", gpu.fp32FlopsPerSecond},
                        {"fp16_flops_per_s", gpu.fp16FlopsPerSecond}};

  report["kernels"] = nlohmann::json::array();
  for (const rt::ArtifactKernel &kernel : view.kernels) {
    char hash[24];
    std::snprintf(hash, sizeof(hash), "%016llx",
                  static_cast<unsigned long long>(kernel.contentHash));
    const char *library = rt::libraryName(kernel.library);
    report["kernels"].push_back(
        {{"name", kernel.name},
         {"kind", kernel.kind},
         {"hash", hash},
         {"onnx_nodes", kernel.onnxNodes},
         {"flop_dtype", graphc_dtype_name(kernel.flopDtype)},
         {"library", library && *library ? nlohmann::ordered_json(library)
                                         : nlohmann::ordered_json(nullptr)},
         {"gemm", kernel.gemm ? gemmJson(*kernel.gemm)
                              : nlohmann::ordered_json(nullptr)},
         {"conv", kernel.conv ? convJson(*kernel.conv)
                              : nlohmann::ordered_json(nullptr)},
         {"sdpa", kernel.sdpa ? sdpaJson(*kernel.sdpa)
                              : nlohmann::ordered_json(nullptr)},
         // Generated code, a cuDNN convolution's epilogue kernel and a
         // cuDNN attention's fallback lie in a unit.
         {"unit", view.target == GRAPHC_TARGET_CUDA &&
                          (kernel.library == GRAPHC_LIBRARY_NONE ||
                           (kernel.conv && kernel.conv->hasEpilogueKernel) ||
                           kernel.sdpa)
                      ? nlohmann::ordered_json(kernel.unit)
                      : nlohmann::ordered_json(nullptr)}});
  }
  return report;
}

/// Adds a `graphc run --profile-json` file's step times to the plan it
/// profiled: per step `measured_us` and `roofline_fraction` (the roofline
/// bound over the measured time: 1 is the bound reached), and the same for
/// the plan's total. The file must describe this model's plan: the same
/// steps, of the same kinds and kernels.
llvm::Error applyProfile(nlohmann::ordered_json &report,
                         const std::string &path) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError("--profile " + path + ": " + why);
  };
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return fail("cannot read it: " + buffer.getError().message());
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  if (!parsed)
    return fail("not JSON: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object *top = parsed->getAsObject();
  if (!top || !top->getInteger("graphc_profile"))
    return fail("not a profile written by graphc run --profile-json");
  std::optional<llvm::StringRef> planName = top->getString("plan");
  const llvm::json::Array *steps = top->getArray("steps");
  if (!planName || !steps)
    return fail("it has no \"plan\" name or \"steps\" array");
  nlohmann::ordered_json *plan = nullptr;
  for (auto &candidate : report["plans"])
    if (candidate["name"].get<std::string>() == *planName)
      plan = &candidate;
  if (!plan)
    return fail("it profiled plan '" + *planName +
                "', which this model does not have");
  nlohmann::ordered_json &planSteps = (*plan)["steps"];
  if (steps->size() != planSteps.size())
    return fail("it has " + llvm::Twine(steps->size()) + " steps of plan '" +
                *planName + "', the model " + llvm::Twine(planSteps.size()));
  double measuredTotal = 0;
  for (size_t s = 0; s < steps->size(); ++s) {
    const llvm::json::Object *step = (*steps)[s].getAsObject();
    std::optional<double> micros =
        step ? step->getNumber("median_us") : std::nullopt;
    if (!micros || !std::isfinite(*micros) || *micros < 0)
      return fail("step " + llvm::Twine(s) +
                  " has no non-negative \"median_us\"");
    // A copy names no kernel, in both.
    std::optional<llvm::StringRef> kernel = step->getString("kernel");
    nlohmann::ordered_json &ours = planSteps[s];
    std::string expected =
        ours["kernel"].is_string() ? ours["kernel"].get<std::string>() : "";
    if (kernel.value_or("") != expected)
      return fail("step " + llvm::Twine(s) + " ran kernel '" +
                  kernel.value_or("") + "', this model's is '" + expected +
                  "': the profile is of another model");
    ours["measured_us"] = *micros;
    double estimated = ours["estimated_us"].get<double>();
    ours["roofline_fraction"] =
        *micros > 0 ? nlohmann::ordered_json(estimated / *micros)
                    : nlohmann::ordered_json(nullptr);
    measuredTotal += *micros;
  }
  nlohmann::ordered_json &totals = (*plan)["totals"];
  totals["measured_us"] = measuredTotal;
  double estimated = totals["estimated_us"].get<double>();
  totals["roofline_fraction"] =
      measuredTotal > 0 ? nlohmann::ordered_json(estimated / measuredTotal)
                        : nlohmann::ordered_json(nullptr);
  std::optional<int64_t> runs = top->getInteger("runs");
  std::optional<llvm::StringRef> target = top->getString("target");
  report["profile"] = {{"file", path},
                       {"plan", planName->str()},
                       {"runs", runs.value_or(0)},
                       {"target", target ? target->str() : ""}};
  return llvm::Error::success();
}

std::string shapeText(const nlohmann::ordered_json &shape) {
  std::string text = "[";
  for (size_t d = 0; d < shape.size(); ++d) {
    text += d ? "," : "";
    const auto &dim = shape[d];
    text += dim.is_null()     ? "?"
            : dim.is_string() ? dim.get<std::string>()
                              : std::to_string(dim.get<int64_t>());
  }
  return text + "]";
}

/// The report as text; `steps` lists every plan's steps, which a profiled
/// plan always does.
void printText(const nlohmann::ordered_json &report, bool steps,
               llvm::raw_ostream &os) {
  auto row = [&](llvm::StringRef key) -> llvm::raw_ostream & {
    return os << llvm::left_justify(key, 10);
  };
  row("model") << report["model"].get<std::string>() << "\n";
  row("producer") << report["producer"].get<std::string>() << "\n";
  row("target") << report["target"].get<std::string>();
  if (!report["images"].empty()) {
    // Every unit has the same kinds of image: list unit 0's.
    os << " (";
    bool first = true;
    for (const auto &image : report["images"]) {
      if (image["unit"].get<int>() != 0)
        continue;
      os << (first ? "" : ", ") << "sm_" << image["sm"].get<int>() << " "
         << image["kind"].get<std::string>();
      first = false;
    }
    int units = report["units"].get<int>();
    if (units > 1)
      os << "; " << units << " module units";
    os << ")";
  }
  os << "\n";
  row("libraries");
  if (report["libraries"].empty())
    os << "none";
  for (size_t i = 0; i < report["libraries"].size(); ++i)
    os << (i ? ", " : "") << report["libraries"][i].get<std::string>();
  os << "\n";
  row("checksum") << report["checksum"].get<std::string>() << "\n";
  row("weights") << formatBytes(report["weight_bytes"].get<uint64_t>());
  if (!report["weights_file"].is_null())
    os << " in " << report["weights_file"].get<std::string>();
  os << "\n";
  row("arena") << formatBytes(report["arena_bytes"].get<uint64_t>())
               << " (largest plan)\n";
  for (const char *kind : {"inputs", "outputs"}) {
    os << kind << "\n";
    for (const auto &tensor : report[kind]) {
      os << "  " << tensor["name"].get<std::string>() << ": "
         << tensor["dtype"].get<std::string>() << shapeText(tensor["shape"]);
      const auto &dataDependent = tensor["data_dependent"];
      for (size_t i = 0; i < dataDependent.size(); ++i)
        os << (i ? ", " : " (data-dependent: dim ")
           << dataDependent[i].get<int64_t>();
      os << (dataDependent.empty() ? "\n" : ")\n");
    }
  }
  if (!report["buckets"].empty())
    os << "buckets\n";
  for (const auto &dim : report["buckets"]) {
    os << "  " << dim["dim"].get<std::string>() << ": ";
    for (size_t s = 0; s < dim["sizes"].size(); ++s)
      os << (s ? "," : "") << dim["sizes"][s].get<int64_t>();
    if (dim["pad_safe"].get<bool>())
      os << "; any size up to the largest (padded)"
         << (dim["splittable"].get<bool>()
                 ? ", larger ones split into several runs"
                 : "");
    else
      os << "; exact sizes only: "
         << (dim["node"].get<std::string>().empty()
                 ? ""
                 : "node '" + dim["node"].get<std::string>() + "': ")
         << dim["reason"].get<std::string>();
    os << "\n";
  }
  os << "plans\n";
  for (const auto &plan : report["plans"]) {
    os << "  " << plan["name"].get<std::string>() << ": arena "
       << formatBytes(plan["arena_bytes"].get<uint64_t>()) << ", "
       << plan["steps"].size() << " steps,";
    for (const auto &[name, dims] : plan["inputs"].items())
      os << " " << name << shapeText(dims);
    os << " ->";
    for (const auto &[name, dims] : plan["outputs"].items()) {
      // A data-dependent dim at its bound: "<=8".
      nlohmann::ordered_json shown = dims;
      if (plan["output_extents"].contains(name))
        for (const auto &extent : plan["output_extents"][name])
          shown[extent["dim"].get<size_t>()] =
              "<=" + std::to_string(extent["bound"].get<int64_t>());
      os << " " << name << shapeText(shown);
    }
    const auto &totals = plan["totals"];
    os << "\n    moves "
       << formatBytes(totals["bytes_read"].get<uint64_t>() +
                      totals["bytes_written"].get<uint64_t>())
       << ", " << llvm::format("%.3f", totals["flops"].get<uint64_t>() / 1e9)
       << " GFLOP; roofline on " << report["roofline"]["gpu"].get<std::string>()
       << " " << llvm::format("%.1f", totals["estimated_us"].get<double>())
       << " us\n";
    int memoryBound = 0, computeBound = 0;
    for (const auto &step : plan["steps"]) {
      memoryBound += step["bound"] == "memory";
      computeBound += step["bound"] == "compute";
    }
    os << "    " << memoryBound << " memory-bound, " << computeBound
       << " compute-bound steps\n";
    bool profiled = totals.contains("measured_us");
    if (profiled)
      os << "    measured "
         << llvm::format("%.1f", totals["measured_us"].get<double>())
         << " us on " << report["profile"]["target"].get<std::string>()
         << " (steps timed alone); "
         << (totals["roofline_fraction"].is_null()
                 ? std::string("no fraction of the roofline")
                 : llvm::formatv("{0:F1}% of the roofline",
                                 100 *
                                     totals["roofline_fraction"].get<double>())
                       .str())
         << "\n";
    if (!steps && !profiled)
      continue;
    os << "    step  kind      bound     roofline"
       << (profiled ? "   measured achieved" : "") << "  kernel\n";
    for (size_t s = 0; s < plan["steps"].size(); ++s) {
      const auto &step = plan["steps"][s];
      os << llvm::format("    %4zu  %-9s %-7s %7.2f us", s,
                         step["kind"] == "library_call"
                             ? "library"
                             : step["kind"].get<std::string>().c_str(),
                         step["bound"].get<std::string>().c_str(),
                         step["estimated_us"].get<double>());
      if (profiled) {
        os << llvm::format(" %7.2f us", step["measured_us"].get<double>());
        if (step["roofline_fraction"].is_null())
          os << "        -";
        else
          os << llvm::format(" %7.1f%%",
                             100 * step["roofline_fraction"].get<double>());
      }
      os << "  "
         << (step["kernel"].is_string() ? step["kernel"].get<std::string>()
                                        : std::string("(copy)"));
      // The ONNX tensors the step's results hold, "-" for none.
      if (!step["results"].empty()) {
        os << " ->";
        const char *separator = " ";
        for (const auto &result : step["results"]) {
          std::string tensor = result["onnx_tensor"].get<std::string>();
          os << separator << (tensor.empty() ? "-" : tensor);
          separator = ", ";
        }
      }
      os << "\n";
    }
  }
  os << "kernels (" << report["kernels"].size() << ")\n";
  for (const auto &kernel : report["kernels"]) {
    os << "  " << kernel["name"].get<std::string>() << " ["
       << kernel["kind"].get<std::string>() << "] "
       << kernel["onnx_nodes"].get<std::string>();
    if (!kernel["gemm"].is_null()) {
      const auto &gemm = kernel["gemm"];
      os << " (" << kernel["library"].get<std::string>()
         << " gemm m=" << gemm["m"].get<int64_t>()
         << " n=" << gemm["n"].get<int64_t>()
         << " k=" << gemm["k"].get<int64_t>()
         << " batch=" << gemm["batch"].get<int64_t>()
         << " trans_a=" << int(gemm["trans_a"].get<bool>())
         << " trans_b=" << int(gemm["trans_b"].get<bool>()) << " epilogue="
         << (gemm["epilogue"].is_string() ? gemm["epilogue"].get<std::string>()
                                          : gemm["epilogue"].dump())
         << quantizedTypes(gemm) << ")";
    }
    if (!kernel["conv"].is_null()) {
      const auto &conv = kernel["conv"];
      auto dims = [](const nlohmann::ordered_json &values) {
        std::string text;
        for (size_t i = 0; i < values.size(); ++i)
          text += (i ? "x" : "") + std::to_string(values[i].get<int64_t>());
        return text;
      };
      os << " (" << kernel["library"].get<std::string>()
         << " conv n=" << conv["n"].get<int64_t>()
         << " c=" << conv["c"].get<int64_t>()
         << " k=" << conv["k"].get<int64_t>()
         << " groups=" << conv["groups"].get<int64_t>()
         << " in=" << dims(conv["in_size"])
         << " filter=" << dims(conv["filter_size"])
         << " out=" << dims(conv["out_size"])
         << " stride=" << dims(conv["strides"])
         << (conv["layout"] == "channels_last" ? " channels_last" : "")
         << " bias=" << int(conv["bias"].get<bool>())
         << " residual=" << int(conv["residual"].get<bool>()) << " epilogue="
         << (conv["epilogue"].is_string() ? conv["epilogue"].get<std::string>()
                                          : conv["epilogue"].dump())
         << quantizedTypes(conv) << ")";
    }
    if (!kernel["sdpa"].is_null()) {
      const auto &sdpa = kernel["sdpa"];
      os << " (" << kernel["library"].get<std::string>()
         << " sdpa batch=" << sdpa["batch"].get<int64_t>()
         << " heads=" << sdpa["heads"].get<int64_t>()
         << " kv_heads=" << sdpa["kv_heads"].get<int64_t>()
         << " queries=" << sdpa["queries"].get<int64_t>()
         << " keys=" << sdpa["keys"].get<int64_t>()
         << " head_dim=" << sdpa["head_dim"].get<int64_t>()
         << " causal=" << int(sdpa["causal"].get<bool>())
         << " bias=" << int(sdpa["bias"].get<bool>()) << ")";
    }
    os << "\n";
  }
}

} // namespace

int runInspectCommand(const InspectOptions &options) {
  const std::string &path = options.model;
  llvm::Expected<ArtifactFile> artifact = readArtifactFile(path);
  if (!artifact)
    return reportError(artifact.takeError());
  nlohmann::ordered_json report = describe(
      path, artifact->view, artifact->checksumOk, gpuNamed(options.gpu));
  if (!options.profile.empty())
    if (llvm::Error error = applyProfile(report, options.profile))
      return reportError(std::move(error));
  // Names are bytes from the model: invalid UTF-8 becomes U+FFFD.
  if (options.json)
    llvm::outs() << report.dump(2, ' ', /*ensure_ascii=*/false,
                                nlohmann::json::error_handler_t::replace)
                 << "\n";
  else
    printText(report, options.steps, llvm::outs());
  return 0;
}

void addInspectCommand(CLI::App &app, int &exitCode) {
  auto options = std::make_shared<InspectOptions>();
  CLI::App *command =
      app.add_subcommand("inspect", "Describe a compiled model .so");
  command->add_option("model", options->model, "The model .so")->required();
  command->add_flag("--json", options->json, "Print JSON");
  std::vector<std::string> gpus;
  for (const GpuPeaks &gpu : kGpus)
    gpus.push_back(gpu.name);
  command
      ->add_option("--gpu", options->gpu,
                   "The GPU whose bandwidth and peak the roofline estimate "
                   "uses")
      ->check(CLI::IsMember(gpus));
  command->add_flag("--steps", options->steps,
                    "List each plan's steps: cost, roofline time and whether "
                    "memory or compute bounds it");
  command->add_option("--profile", options->profile,
                      "A graphc run --profile-json FILE of this model: its "
                      "plan's steps get their measured time and achieved "
                      "fraction of the roofline");
  command->callback(
      [options, &exitCode] { exitCode = runInspectCommand(*options); });
}

} // namespace graphc::tools
