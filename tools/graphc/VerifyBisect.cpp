//===- VerifyBisect.cpp - `graphc verify` step by step --------------------===//
//
// When an output fails (or with --all), `graphc verify` bisects without
// changing the artifact: a second session probes every step
// (GRAPHC_SESSION_PROBE_STEPS, a copy of each step's results after the step;
// the launches are those of a plain run), each result is compared with the
// reference value of the ONNX tensor it holds, and the first step out of
// tolerance is reported with its kernel, the ONNX nodes it covers and a
// diagnosis where one is evident (lib/Support/ErrorDiagnosis).
//
//===----------------------------------------------------------------------===//

#include "tools/graphc/Verify.h"

#include "dialects/Graph/GraphOps.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <new>

namespace graphc::tools {

namespace {

/// Whether a tensor that `value` depends on (through the graph, before
/// fusion) was found holding a non-finite value at a step before `step`.
bool inheritsFrom(mlir::Value value, int32_t step,
                  const llvm::StringMap<int32_t> &foundAt) {
  llvm::SmallVector<mlir::Operation *> work;
  llvm::DenseSet<mlir::Operation *> seen;
  if (mlir::Operation *op = value.getDefiningOp())
    work.push_back(op);
  while (!work.empty()) {
    mlir::Operation *op = work.pop_back_val();
    if (!seen.insert(op).second)
      continue;
    for (mlir::Value operand : op->getOperands()) {
      auto found = foundAt.find(graph::onnxTensorName(operand));
      if (found != foundAt.end() && found->second < step)
        return true;
      if (mlir::Operation *producer = operand.getDefiningOp())
        work.push_back(producer);
    }
  }
  return false;
}

} // namespace

llvm::Error Verifier::runProbed(RunReport &report,
                                std::vector<HostTensor> &artifactInputs,
                                const std::vector<HostTensor> &outputs) {
  if (!probeSession) {
    graphc_session_options sessionOptions;
    graphc_session_options_init(&sessionOptions);
    sessionOptions.device_ordinal = options.device;
    sessionOptions.flags = GRAPHC_SESSION_PROBE_STEPS;
    graphc_session *session = nullptr;
    if (graphc_status status =
            graphc_session_create(model(), &sessionOptions, &session))
      return toError(status);
    probeSession.reset(session);
  }
  int32_t probedPlan = -1;
  llvm::Expected<std::vector<HostTensor>> probedOutputs =
      runArtifact(probeSession.get(), artifactInputs, probedPlan);
  if (!probedOutputs)
    return probedOutputs.takeError();
  // Probing changes no launch: the outputs are the plain run's.
  for (auto [probed, plain] : llvm::zip(*probedOutputs, outputs))
    if (probed.data != plain.data)
      report.probedOutputsDiffer.push_back(plain.name);
  return llvm::Error::success();
}

llvm::Error Verifier::bisect(RunReport &report,
                             const ReferenceValues &reference) {
  graphc_session *session = probeSession.get();
  int32_t plan = -1, count = 0;
  if (graphc_status status = graphc_session_probe_count(session, &plan, &count))
    return toError(status);
  report.bisected = true;
  // The first step whose result held a NaN (an Inf), by ONNX tensor.
  llvm::StringMap<int32_t> nanAt, infAt;
  // The dtype each ONNX tensor was stored in by an earlier step.
  llvm::StringMap<int32_t> storedDtype;
  llvm::StringMap<double> maxAbs;
  auto refMaxAbs = [&](llvm::StringRef name) {
    auto cached = maxAbs.find(name);
    if (cached != maxAbs.end())
      return cached->second;
    auto tensor = reference.tensors.find(name);
    double value =
        tensor == reference.tensors.end() ? 0 : maxAbsFinite(tensor->second);
    maxAbs[name] = value;
    return value;
  };
  std::vector<StepComparison> steps;
  for (int32_t p = 0; p < count; ++p) {
    graphc_probe_info info;
    if (graphc_status status =
            graphc_session_read_probe(session, p, &info, nullptr, 0))
      return toError(status);
    HostTensor got;
    got.dtype = info.desc->dtype;
    got.dims.assign(info.desc->dims, info.desc->dims + info.desc->rank);
    got.name = info.desc->onnx_tensor ? info.desc->onnx_tensor : "";
    try {
      got.data.resize(info.size);
    } catch (const std::bad_alloc &) {
      return llvm::createStringError(
          "out of memory: cannot read the " + std::to_string(info.size) +
          " bytes of step " + std::to_string(info.step) + "'s result");
    }
    if (graphc_status status = graphc_session_read_probe(
            session, p, &info, got.data.data(), got.data.size()))
      return toError(status);

    StepComparison step;
    step.step = info.step;
    step.result = info.result;
    graphc_step_info stepInfo;
    if (graphc_status status =
            graphc_model_step_info(model(), plan, info.step, &stepInfo))
      return toError(status);
    if (stepInfo.kernel >= 0) {
      graphc_kernel_info kernel;
      if (graphc_status status =
              graphc_model_kernel_info(model(), stepInfo.kernel, &kernel))
        return toError(status);
      step.kernel = kernel.name;
      step.kind = kernel.kind;
      step.nodes = kernel.onnx_nodes;
    } else {
      step.kernel = "copy";
      step.kind = "copy";
    }
    step.comparison.name = got.name;
    step.comparison.dtype = got.dtype;
    step.comparison.dims = got.dims;
    auto ref = reference.tensors.find(got.name);
    if (got.name.empty() || ref == reference.tensors.end()) {
      step.comparison.why = got.name.empty()
                                ? "it holds no single ONNX tensor"
                                : "the reference computes no tensor of that "
                                  "name";
      ++report.uncompared;
      steps.push_back(std::move(step));
      continue;
    }
    step.node = reference.producers.lookup(got.name);
    // A result holds its tensor element for element; the plan's dims may
    // be written differently, or padded to the bucket (not compared).
    int64_t gotCount = 1, refCount = 1;
    for (int64_t dim : got.dims)
      gotCount *= dim;
    for (int64_t dim : ref->second.dims)
      refCount *= dim;
    if (gotCount == refCount)
      got.dims = ref->second.dims;
    step.comparison = compare(got, ref->second, tolerance);
    if (gotCount != refCount)
      step.comparison.why = "the plan's " + dimsText(step.comparison.dims) +
                            " is padded past the reference's " +
                            dimsText(ref->second.dims);
    if (!step.comparison.errors) {
      ++report.uncompared;
      steps.push_back(std::move(step));
      continue;
    }
    ++report.compared;
    const TensorErrors &errors = *step.comparison.errors;
    StepEvidence evidence;
    evidence.dtype = got.dtype;
    evidence.errors = errors;
    auto value = valuesByName.find(got.name);
    if (value != valuesByName.end()) {
      if (mlir::Operation *op = value->second.getDefiningOp())
        for (mlir::Value operand : op->getOperands())
          if (llvm::StringRef name = graph::onnxTensorName(operand);
              !name.empty()) {
            evidence.inputsMaxAbs =
                std::max(evidence.inputsMaxAbs, refMaxAbs(name));
            // The coarsest: the larger epsilon.
            auto stored = storedDtype.find(name);
            std::optional<FloatLimits> limits =
                stored == storedDtype.end() ? std::nullopt
                                            : floatLimits(stored->second);
            std::optional<FloatLimits> known =
                evidence.inputsDtype ? floatLimits(evidence.inputsDtype)
                                     : std::nullopt;
            if (limits && (!known || limits->epsilon > known->epsilon))
              evidence.inputsDtype = stored->second;
          }
      if (errors.nanBorn || errors.infBorn) {
        evidence.nanInherited = inheritsFrom(value->second, info.step, nanAt);
        evidence.infInherited = inheritsFrom(value->second, info.step, infAt);
      }
    }
    storedDtype.try_emplace(got.name, got.dtype);
    if (errors.gotNan)
      nanAt.try_emplace(got.name, info.step);
    if (errors.gotInf)
      infAt.try_emplace(got.name, info.step);
    step.diagnosis = diagnoseStep(evidence, tolerance);
    bool within = step.comparison.within;
    steps.push_back(std::move(step));
    if (!within && report.firstFailing < 0) {
      report.firstFailing = static_cast<int>(steps.size()) - 1;
      if (!options.all)
        break;
    }
  }
  if (options.all) {
    report.steps = std::move(steps);
  } else if (report.firstFailing >= 0) {
    report.steps = {std::move(steps[report.firstFailing])};
    report.firstFailing = 0;
  }
  return llvm::Error::success();
}

} // namespace graphc::tools
