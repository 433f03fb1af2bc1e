//===- ModelSource.cpp - the model's C++ and weights ----------------------===//
//
// model.cpp holds the descriptor as static tables (inputs, outputs, bucket
// dims, kernels with their launches and library descriptors, plans and
// their steps) and, on the cpu target, each kernel as C++: calls of the
// host kernels and the loops generated for fused pointwise ops. Weights are
// laid out, not printed: the writer appends them to the linked file.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/ModelSource.h"

#include "lib/Codegen/SourceText.h"

#include "dialects/Exec/ExecOps.h"
#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "graphc/BuildConfig.h"
#include "lib/Codegen/CPU/CpuEmitter.h"
#include "lib/Codegen/LoopControl.h"
#include "lib/Codegen/ScalarExpr.h"
#include "lib/HostKernels/HostKernels.h"
#include "lib/Support/LaneHash.h"
#include "lib/Support/Schedule.h"
#include "runtime/include/graphc/descriptor.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <set>

using namespace mlir;
using namespace llvm;
namespace graphc::codegen {
namespace {

int bufferKind(exec::BufferKind kind) {
  switch (kind) {
  case exec::BufferKind::none:
    return GRAPHC_BUFFER_NONE;
  case exec::BufferKind::arena:
    return GRAPHC_BUFFER_ARENA;
  case exec::BufferKind::weights:
    return GRAPHC_BUFFER_WEIGHTS;
  case exec::BufferKind::input:
    return GRAPHC_BUFFER_INPUT;
  case exec::BufferKind::output:
    return GRAPHC_BUFFER_OUTPUT;
  }
  return GRAPHC_BUFFER_NONE;
}

const char *gemmEpilogue(exec::GemmEpilogue epilogue) {
  switch (epilogue) {
  case exec::GemmEpilogue::none:
    return "GRAPHC_EPILOGUE_NONE";
  case exec::GemmEpilogue::relu:
    return "GRAPHC_EPILOGUE_RELU";
  case exec::GemmEpilogue::gelu_tanh:
    return "GRAPHC_EPILOGUE_GELU_TANH";
  case exec::GemmEpilogue::silu:
    return "GRAPHC_EPILOGUE_SILU";
  case exec::GemmEpilogue::gelu_erf:
    return "GRAPHC_EPILOGUE_GELU_ERF";
  }
  return "GRAPHC_EPILOGUE_NONE";
}

/// The element type a library kernel computes in: its output's.
int libraryDtype(exec::KernelOp kernel) {
  Type type = kernel.getBody().front().getTerminator()->getOperand(0).getType();
  return graph::toHostDtype(cast<RankedTensorType>(type).getElementType());
}

/// A library kernel's operand dtype and the dtype its products accumulate
/// in (graphc_gemm_desc / graphc_conv_desc `dtype` and `compute_dtype`):
/// the output's and f32, except for the 8-bit operands of a
/// graph.quantized_mat_mul or quantized_conv (argument `operand`, A or X),
/// whose accumulator (int32, or f32 for e4m3fn) is the output.
std::pair<int, int> libraryDtypes(exec::KernelOp kernel, int64_t operand) {
  Block &body = kernel.getBody().front();
  Type element =
      cast<RankedTensorType>(body.getArgument(operand).getType())
          .getElementType();
  if (element.isSignlessInteger(8) || isa<Float8E4M3FNType>(element))
    return {graph::toHostDtype(element), libraryDtype(kernel)};
  return {libraryDtype(kernel), GC_DTYPE_F32};
}

/// The rank of the library algorithm a library kernel's schedule names
/// (tuning sets it; 0, the library's first choice, otherwise).
int64_t algoRank(exec::KernelOp kernel) {
  return kernel.getSchedule().getAlgoRank().value_or(kHeuristicAlgoRank);
}

/// The parts a GEMM's K is split into (tuning sets it; 0, the algorithm as
/// the heuristic offers it, otherwise).
int64_t splitK(exec::KernelOp kernel) {
  return kernel.getSchedule().getSplitK().value_or(0);
}

/// 1 when the kernel's schedule comes from a tuning database: the runtime
/// then keeps its algorithm instead of timing the heuristic's.
int tuned(exec::KernelOp kernel) { return kernel.getSchedule().isTuned(); }

/// "{1LL, 2LL, 0LL}": `values` padded with zeros to the spatial dims of a
/// graphc_conv_desc.
std::string spatialArray(ArrayRef<int64_t> values) {
  std::string text = "{";
  for (int i = 0; i < GRAPHC_MAX_CONV_SPATIAL_DIMS; ++i)
    text += (i ? ", " : "") +
            std::to_string(i < int(values.size()) ? values[i] : 0) + "LL";
  return text + "}";
}

/// "{256u, 1u, 1u}": launch dims of a graphc_conv_desc or graphc_sdpa_desc;
/// zeros without a launch.
std::string launchArray(const CudaLaunch *launch,
                        std::array<uint32_t, 3> CudaLaunch::*dims) {
  std::string text = "{";
  for (int i = 0; i < 3; ++i)
    text +=
        (i ? ", " : "") + std::to_string(launch ? (launch->*dims)[i] : 0) + "u";
  return text + "}";
}

/// GRAPHC_LIBRARY_* of a kernel.
const char *libraryEnum(exec::KernelOp kernel) {
  if (!kernel.getLibrary())
    return "GRAPHC_LIBRARY_NONE";
  return *kernel.getLibrary() == kernel::Library::cudnn
             ? "GRAPHC_LIBRARY_CUDNN"
             : "GRAPHC_LIBRARY_CUBLASLT";
}

/// Everything the descriptor is made of, gathered from the exec module.
struct ModelParts {
  SmallVector<exec::IOOp> inputs, outputs;
  SmallVector<exec::BucketDimOp> bucketDims;
  SmallVector<exec::KernelOp> kernels;
  SmallVector<exec::PlanOp> plans;
  WeightsImage weights;
};

/// The bytes of a dense resource of whole-byte elements whose blob holds
/// exactly them, which is what graph::constantBytes would copy out.
std::optional<ArrayRef<char>> rawBlobBytes(ElementsAttr value) {
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!resource || !type || !type.hasStaticShape() ||
      !type.getElementType().isIntOrFloat())
    return std::nullopt;
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  if (bits % 8 || !blob ||
      blob->getData().size() != uint64_t(type.getNumElements()) * (bits / 8))
    return std::nullopt;
  return blob->getData();
}

FailureOr<ModelParts> gatherParts(ModuleOp module) {
  ModelParts parts;
  for (Operation &op : module.getBody()->getOperations()) {
    if (auto io = dyn_cast<exec::IOOp>(op))
      (io.getIsOutput() ? parts.outputs : parts.inputs).push_back(io);
    else if (auto kernel = dyn_cast<exec::KernelOp>(op))
      parts.kernels.push_back(kernel);
    else if (auto dim = dyn_cast<exec::BucketDimOp>(op))
      parts.bucketDims.push_back(dim);
    else if (auto plan = dyn_cast<exec::PlanOp>(op))
      parts.plans.push_back(plan);
    else if (auto weight = dyn_cast<exec::WeightOp>(op)) {
      uint64_t offset = weight.getOffset();
      if (offset < parts.weights.size())
        return weight.emitOpError("overlaps the previous weight");
      // An imported weight's bytes are its blob's, as they are.
      if (std::optional<ArrayRef<char>> blob =
              rawBlobBytes(weight.getValue())) {
        parts.weights.place(offset, *blob);
        continue;
      }
      FailureOr<std::vector<char>> bytes =
          graph::constantBytes(weight.getValue());
      if (failed(bytes))
        return weight.emitOpError("has a value that cannot be serialised");
      parts.weights.placeOwned(offset, std::move(*bytes));
    }
  }
  if (parts.plans.empty())
    return module.emitError("module has no exec.plan: lower it to exec first");
  return parts;
}

void emitDims(raw_ostream &os, StringRef name, ArrayRef<int64_t> dims) {
  os << "static const int64_t " << name << "[] = {";
  if (dims.empty())
    os << "0";
  interleaveComma(dims, os, [&](int64_t d) {
    os << (ShapedType::isDynamic(d) ? -1 : d) << "LL";
  });
  os << "};\n";
}

void emitTensorDescs(raw_ostream &os, StringRef table,
                     SmallVectorImpl<exec::IOOp> &ios) {
  for (auto [i, io] : enumerate(ios)) {
    auto type = cast<RankedTensorType>(io.getType());
    std::string base = (table + Twine(i)).str();
    emitDims(os, base + "_dims", type.getShape());
    os << "static const char *const " << base << "_names[] = {";
    if (io.getDims().empty())
      os << "\"\"";
    interleaveComma(io.getDims(), os, [&](Attribute a) {
      os << cppStringLiteral(cast<StringAttr>(a).getValue());
    });
    os << "};\n";
    if (std::optional<ArrayRef<bool>> flags = io.getDataDependent()) {
      os << "static const int32_t " << base << "_data_dependent[] = {";
      interleaveComma(*flags, os, [&](bool flag) { os << (flag ? 1 : 0); });
      os << "};\n";
    }
  }
  os << "static const graphc_tensor_desc " << table << "[] = {\n";
  for (auto [i, io] : enumerate(ios)) {
    auto type = cast<RankedTensorType>(io.getType());
    std::string base = (table + Twine(i)).str();
    os << "  {" << cppStringLiteral(io.getName()) << ", "
       << graph::toHostDtype(type.getElementType()) << ", " << type.getRank()
       << ", " << base << "_dims, " << base << "_names, "
       << cppDoubleLiteral(io.getPadValue().convertToDouble()) << ", "
       << (io.getDataDependent() ? base + "_data_dependent" : "nullptr")
       << "},\n";
  }
  if (ios.empty())
    os << "  {nullptr, 0, 0, nullptr, nullptr, 0.0, nullptr},\n";
  os << "};\n";
}

FailureOr<std::string> buildSource(ModuleOp module, ModelParts &parts,
                                   const SharedObjectOptions &options,
                                   const LaunchTable &launches,
                                   StringRef weightsSideName) {
  std::string source;
  raw_string_ostream os(source);
  os << "// Generated by graphc " << GRAPHC_VERSION_STRING
     << ". Do not edit.\n#include <stdint.h>\n#include <stddef.h>\n"
     << "#include \"descriptor.h\"\n";
  if (!options.cudaTarget) {
    // stdio and stdlib: fused kernels allocate their intermediates.
    os << "#include <stdio.h>\n#include <stdlib.h>\n"
       << "#include \"HostKernels.h\"\n"
       // The C++ the generated loops of fusions call (EmitCpuLoops.h).
       << "#include \"graphc_cuda_scalar.h\"\n\n"
       << scalarHelperSource()
       << "\n"
       // A host kernel call's tensors: static shapes, and where each lies:
       // argument `at` (>= 0), none (-1) or the kernel's scratch block at
       // offset -2 - at.
       << "static inline void graphc_bind(gc_tensor *tensors, const "
          "gc_tensor *shapes, const long long *at, int count, void *const "
          "*args, char *scratch) {\n"
          "  for (int i = 0; i < count; ++i) {\n"
          "    tensors[i] = shapes[i];\n"
          "    tensors[i].data = at[i] >= 0 ? args[at[i]] : at[i] == -1 ? "
          "nullptr : (void *)(scratch + (-2 - at[i]));\n"
          "  }\n}\n\n";
    std::set<std::string> declared;
    for (exec::KernelOp kernel : parts.kernels) {
      // The runtime computes library kernels itself.
      if (kernel.getLibrary())
        continue;
      for (Operation *op : computeOps(kernel)) {
        std::string mnemonic = op->getName().stripDialect().str();
        if (declared.insert(mnemonic).second)
          os << "extern \"C\" int gc_hk_" << mnemonic
             << "(const gc_tensor *, int32_t, gc_tensor *, int32_t, "
                "const gc_attrs *, char *, size_t);\n";
      }
    }
    os << "\n";
    for (exec::KernelOp kernel : parts.kernels)
      if (!kernel.getLibrary() &&
          failed(emitCpuKernel(kernel, os, options.cpuLoops)))
        return failure();
  }

  // Bulk data is defined by blobs.s (see SharedObjectWriter).
  for (size_t i = 0; i < options.images.size(); ++i)
    os << "extern \"C\" __attribute__((visibility(\"hidden\"))) const "
          "unsigned char "
       << deviceImageSymbol(i) << "[];\n";

  emitTensorDescs(os, "kInputs", parts.inputs);
  emitTensorDescs(os, "kOutputs", parts.outputs);

  // What library kernels compute, and the kernel table.
  for (auto [i, kernel] : enumerate(parts.kernels)) {
    exec::GemmAttr gemm = kernel.getGemmAttr();
    if (!gemm)
      continue;
    auto [dtype, computeDtype] = libraryDtypes(kernel, gemm.getA());
    os << "static const graphc_gemm_desc kGemm" << i << " = {"
       << int(gemm.getTransA()) << ", " << int(gemm.getTransB()) << ", "
       << gemm.getM() << "LL, " << gemm.getN() << "LL, " << gemm.getK()
       << "LL, " << gemm.getBatch() << "LL, " << gemm.getLda() << "LL, "
       << gemm.getLdb() << "LL, " << gemm.getLdc() << "LL, "
       << gemm.getStrideA() << "LL, " << gemm.getStrideB() << "LL, "
       << gemm.getStrideC() << "LL, "
       << cppDoubleLiteral(gemm.getAlpha().convertToDouble()) << ", "
       << cppDoubleLiteral(gemm.getBeta().convertToDouble()) << ", "
       << gemmEpilogue(gemm.getEpilogue()) << ", " << dtype << ", "
       << computeDtype << ", " << gemm.getA() << ", " << gemm.getB() << ", "
       << gemm.getC() << ", " << gemm.getBias() << ", " << gemm.getD()
       << ", "
       // The workspace follows the kernel's arguments.
       << gemm.getD() + 1 << ", " << algoRank(kernel) << ", "
       << int(options.tf32Gemms && dtype == GC_DTYPE_F32) << ", "
       << splitK(kernel) << ", " << tuned(kernel) << "};\n";
  }
  for (auto [i, kernel] : enumerate(parts.kernels)) {
    exec::ConvAttr conv = kernel.getConvAttr();
    if (!conv)
      continue;
    auto [dtype, computeDtype] = libraryDtypes(kernel, conv.getX());
    // On cuda, codegen gave the kernel finishing the epilogue its launch.
    bool epilogueKernel = options.cudaTarget && exec::hasDeviceCode(kernel);
    const CudaLaunch *epilogue =
        epilogueKernel ? launches.lookup(kernel.getSymName()) : nullptr;
    os << "static const graphc_conv_desc kConv" << i << " = {"
       << conv.getInSize().size() << ", " << conv.getN() << "LL, "
       << conv.getC() << "LL, " << conv.getK() << "LL, " << conv.getGroups()
       << "LL, " << spatialArray(conv.getInSize().asArrayRef()) << ", "
       << spatialArray(conv.getFilterSize().asArrayRef()) << ", "
       << spatialArray(conv.getOutSize().asArrayRef()) << ", "
       << spatialArray(conv.getPadsBegin().asArrayRef()) << ", "
       << spatialArray(conv.getPadsEnd().asArrayRef()) << ", "
       << spatialArray(conv.getStrides().asArrayRef()) << ", "
       << spatialArray(conv.getDilations().asArrayRef()) << ", "
       << gemmEpilogue(conv.getEpilogue()) << ", " << dtype << ", "
       << computeDtype << ", "
       << int(options.tf32Gemms && dtype == GC_DTYPE_F32) << ", " << conv.getX()
       << ", " << conv.getW() << ", " << conv.getBias() << ", " << conv.getZ()
       << ", " << conv.getY()
       << ", "
       // The workspace follows the kernel's arguments.
       << conv.getY() + 1 << ", " << algoRank(kernel) << ", "
       << int(epilogueKernel) << ", "
       << launchArray(epilogue, &CudaLaunch::grid) << ", "
       << launchArray(epilogue, &CudaLaunch::block) << ", "
       << int(conv.getChannelsLast()) << ", " << tuned(kernel) << "};\n";
  }
  for (auto [i, kernel] : enumerate(parts.kernels)) {
    exec::SdpaAttr sdpa = kernel.getSdpaAttr();
    if (!sdpa)
      continue;
    if (!options.cudaTarget)
      return kernel.emitOpError("is a cuDNN attention in a cpu model");
    auto dims4 = [](ArrayRef<int64_t> values) {
      std::string text = "{";
      for (auto [j, value] : enumerate(values))
        text += (j ? ", " : "") + std::to_string(value) + "LL";
      return text + "}";
    };
    // The generated attention kernel is the fallback: codegen gave it its
    // launch.
    const CudaLaunch *fallback = launches.lookup(kernel.getSymName());
    os << "static const graphc_sdpa_desc kSdpa" << i << " = {"
       << sdpa.getBatch() << "LL, " << sdpa.getHeads() << "LL, "
       << sdpa.getKvHeads() << "LL, " << sdpa.getQueries() << "LL, "
       << sdpa.getKeys() << "LL, " << sdpa.getHeadDim() << "LL, "
       << sdpa.getValueDim() << "LL, "
       << cppDoubleLiteral(sdpa.getScale().convertToDouble()) << ", "
       << int(sdpa.getIsCausal())
       << ", "
       // Scores and the softmax compute in f32 whatever the type.
       << libraryDtype(kernel) << ", " << GC_DTYPE_F32 << ", " << sdpa.getQ()
       << ", " << sdpa.getK() << ", " << sdpa.getV() << ", " << sdpa.getBias()
       << ", " << sdpa.getO()
       << ", "
       // The workspace follows the kernel's arguments.
       << sdpa.getO() + 1 << ", " << algoRank(kernel) << ", "
       << sdpa.getQOffset() << "LL, " << sdpa.getKOffset() << "LL, "
       << sdpa.getVOffset() << "LL, " << sdpa.getOOffset() << "LL, "
       << sdpa.getBiasOffset() << "LL, " << dims4(sdpa.getQStrides()) << ", "
       << dims4(sdpa.getKStrides()) << ", " << dims4(sdpa.getVStrides()) << ", "
       << dims4(sdpa.getOStrides()) << ", " << dims4(sdpa.getBiasDims()) << ", "
       << dims4(sdpa.getBiasStrides()) << ", "
       << launchArray(fallback, &CudaLaunch::grid) << ", "
       << launchArray(fallback, &CudaLaunch::block) << ", "
       << (fallback ? fallback->sharedBytes : 0) << "u};\n";
  }
  llvm::StringMap<unsigned> kernelIndex;
  os << "static const graphc_kernel_desc kKernels[] = {\n";
  for (auto [i, kernel] : enumerate(parts.kernels)) {
    kernelIndex[kernel.getSymName()] = i;
    const CudaLaunch *launch = launches.lookup(kernel.getSymName());
    if (options.cudaTarget && !launch && exec::hasDeviceCode(kernel))
      return kernel.emitOpError("has no launch: cuda codegen computes it");
    std::string nodes;
    for (auto [j, node] : enumerate(kernel.getOnnxNodes()))
      nodes += (j ? "," : "") + cast<StringAttr>(node).str();
    os << "  {" << cppStringLiteral(kernel.getSymName()) << ", "
       << cppStringLiteral(kernel::stringifyFusionKind(kernel.getKind()))
       << ", " << cppStringLiteral(nodes) << ", 0x" << kernel.getHash()
       << "ull, "
       << (options.cudaTarget || kernel.getLibrary() ? "nullptr"
                                                     : cpuKernelSymbol(kernel))
       << ", " << kernel.getFlops().value_or(0) << "ull, "
       << kernel.getBytesRead().value_or(0) << "ull, "
       << kernel.getBytesWritten().value_or(0) << "ull, "
       << (kernel.getFlopType() ? graph::toHostDtype(*kernel.getFlopType()) : 0)
       << ", " << libraryEnum(kernel) << ", "
       << (kernel.getGemm() ? "&kGemm" + std::to_string(i)
                            : std::string("nullptr"))
       << ", "
       << (options.cudaTarget && launch ? int64_t(launch->unit) : int64_t(-1))
       << ", "
       << (kernel.getConv() ? "&kConv" + std::to_string(i)
                            : std::string("nullptr"))
       << ", " << int(launch && launch->reportsErrors) << ", "
       << (kernel.getSdpa() ? "&kSdpa" + std::to_string(i)
                            : std::string("nullptr"))
       << "},\n";
  }
  // The kernels that drive the loops follow the table's kernels: on cuda
  // generated kernels, on cpu names of the loops' ONNX nodes (the runtime
  // runs the loop).
  std::vector<LoopControl> controls = loopControls(module);
  for (const LoopControl &control : controls) {
    const CudaLaunch *launch = launches.lookup(control.name);
    if (options.cudaTarget && !launch)
      return module.emitOpError("has no launch of loop control kernel ")
             << control.name;
    os << "  {" << cppStringLiteral(control.name) << ", \"loop_control\", "
       << cppStringLiteral(control.node)
       << ", 0ull, nullptr, 0ull, 0ull, 0ull, 0, 0, nullptr, "
       << (launch ? launch->unit : -1) << ", nullptr, "
       << int(options.cudaTarget) << ", nullptr},\n";
  }
  if (parts.kernels.empty() && controls.empty())
    os << "  {nullptr, nullptr, nullptr, 0, nullptr, 0, 0, 0, 0, 0, "
          "nullptr, -1, nullptr, 0, nullptr},\n";
  os << "};\n";

  // Plans. The arguments of all of a plan's steps are one array that each
  // step points into: an array per step makes the host compiler's time grow
  // far faster than the step count.
  for (auto [p, plan] : enumerate(parts.plans)) {
    std::string base = "kPlan" + std::to_string(p);
    auto slotsOf = [&](Operation &step) -> ArrayAttr {
      if (auto launch = dyn_cast<exec::LaunchOp>(step)) {
        if (!launch.getScratch())
          return launch.getArgs();
        SmallVector<Attribute> slots(launch.getArgs().begin(),
                                     launch.getArgs().end());
        llvm::append_range(slots, *launch.getScratch());
        return ArrayAttr::get(module.getContext(), slots);
      }
      if (auto call = dyn_cast<exec::LibraryCallOp>(step)) {
        SmallVector<Attribute> slots(call.getArgs().begin(),
                                     call.getArgs().end());
        slots.push_back(call.getWorkspace());
        return ArrayAttr::get(module.getContext(), slots);
      }
      if (auto copy = dyn_cast<exec::CopyOp>(step))
        return ArrayAttr::get(module.getContext(),
                              {copy.getSource(), copy.getTarget()});
      if (auto loop = dyn_cast<exec::LoopOp>(step))
        return ArrayAttr::get(module.getContext(),
                              {loop.getTripCount(), loop.getCondition(),
                               loop.getState(), loop.getBodyCondition()});
      return ArrayAttr::get(module.getContext(), {});
    };
    os << "static const graphc_buffer_ref " << base << "_args[] = {\n";
    size_t argCount = 0;
    for (Operation &step : plan.getSteps().front()) {
      ArrayAttr slots = slotsOf(step);
      for (Attribute a : slots) {
        auto slot = cast<exec::SlotAttr>(a);
        os << " {" << bufferKind(slot.getKind()) << ", " << slot.getIndex()
           << ", " << slot.getOffset() << "ull, " << slot.getSize() << "ull},";
      }
      if (!slots.empty())
        os << "\n";
      argCount += slots.size();
    }
    if (argCount == 0)
      os << "  {0, 0, 0, 0},\n";
    os << "};\n";
    // What each step writes that a tool may compare, one array per plan
    // like the arguments, and the dims of all of them in another.
    auto resultsOf = [](Operation &step) -> ArrayRef<Attribute> {
      std::optional<ArrayAttr> results;
      if (auto launch = dyn_cast<exec::LaunchOp>(step))
        results = launch.getResults();
      else if (auto call = dyn_cast<exec::LibraryCallOp>(step))
        results = call.getResults();
      else if (auto copy = dyn_cast<exec::CopyOp>(step))
        results = copy.getResults();
      return results ? results->getValue() : ArrayRef<Attribute>();
    };
    SmallVector<int64_t> resultDims;
    for (Operation &step : plan.getSteps().front())
      for (Attribute a : resultsOf(step))
        llvm::append_range(resultDims,
                           cast<exec::StepResultAttr>(a).getType().getShape());
    emitDims(os, base + "_result_dims", resultDims);
    os << "static const graphc_step_result_desc " << base << "_results[] = {\n";
    size_t resultCount = 0, dimOffset = 0;
    for (Operation &step : plan.getSteps().front())
      for (Attribute a : resultsOf(step)) {
        auto result = cast<exec::StepResultAttr>(a);
        RankedTensorType type = result.getType();
        os << "  {" << result.getArg() << ", "
           << graph::toHostDtype(type.getElementType()) << ", "
           << type.getRank() << ", " << base << "_result_dims + " << dimOffset
           << ", " << cppStringLiteral(result.getOnnxTensor()) << "},\n";
        dimOffset += type.getRank();
        ++resultCount;
      }
    if (resultCount == 0)
      os << "  {0, 0, 0, nullptr, nullptr},\n";
    os << "};\n";
    os << "static const graphc_step_desc " << base << "_steps[] = {\n";
    unsigned stepCount = 0;
    size_t argOffset = 0, resultOffset = 0;
    for (Operation &step : plan.getSteps().front()) {
      ++stepCount;
      std::string args = base + "_args + " + std::to_string(argOffset);
      argOffset += slotsOf(step).size();
      size_t numResults = resultsOf(step).size();
      // After the arguments: the step's results.
      args += ", " + std::to_string(numResults) + ", " + base + "_results + " +
              std::to_string(resultOffset);
      resultOffset += numResults;
      if (auto launchOp = dyn_cast<exec::LaunchOp>(step)) {
        StringRef name = launchOp.getKernel();
        // Host calls have no launch: 1 x 1 x 1 on the cpu target.
        const CudaLaunch *found = launches.lookup(name);
        CudaLaunch launch = found ? *found : CudaLaunch();
        const std::array<uint32_t, 3> &grid = launch.grid;
        const std::array<uint32_t, 3> &block = launch.block;
        os << "  {"
           << (options.cudaTarget ? "GRAPHC_STEP_LAUNCH"
                                  : "GRAPHC_STEP_HOST_CALL")
           << ", " << kernelIndex.lookup(name) << ", {" << grid[0] << ", "
           << grid[1] << ", " << grid[2] << "}, {" << block[0] << ", "
           << block[1] << ", " << block[2] << "}, " << launch.sharedBytes
           << ", " << slotsOf(step).size() << ", " << args << "},\n";
      } else if (auto call = dyn_cast<exec::LibraryCallOp>(step)) {
        os << "  {GRAPHC_STEP_LIBRARY_CALL, "
           << kernelIndex.lookup(call.getKernel())
           << ", {0, 0, 0}, {0, 0, 0}, 0, " << call.getArgs().size() + 1 << ", "
           << args << "},\n";
      } else if (isa<exec::CopyOp>(step)) {
        os << "  {GRAPHC_STEP_COPY, -1, {0, 0, 0}, {0, 0, 0}, 0, 2, " << args
           << "},\n";
      } else if (auto loop = dyn_cast<exec::LoopOp>(step)) {
        size_t control =
            parts.kernels.size() + loopControlIndex(controls, loop);
        os << "  {GRAPHC_STEP_LOOP, " << control
           << ", {1, 1, 1}, {1, 1, 1}, 0, 4, " << args << ", "
           << loop.getBodyStepsAttr().getInt() << ", "
           << loop.getMaxIterationsAttr().getInt()
           << "LL},\n";
      }
    }
    if (stepCount == 0)
      os << "  {GRAPHC_STEP_COPY, -1, {0, 0, 0}, {0, 0, 0}, 0, 0, nullptr, 0, "
            "nullptr},\n";
    os << "};\n";
    auto emitShapes = [&](StringRef suffix, ArrayAttr types) {
      for (auto [i, t] : enumerate(types))
        emitDims(
            os, (base + suffix + Twine(i)).str(),
            cast<RankedTensorType>(cast<TypeAttr>(t).getValue()).getShape());
      os << "static const int64_t *const " << base << suffix << "[] = {";
      if (types.empty())
        os << "nullptr";
      for (unsigned i = 0; i < types.size(); ++i)
        os << (i ? ", " : "") << base << suffix << i;
      os << "};\n";
    };
    emitShapes("_in", plan.getInputTypes());
    emitShapes("_out", plan.getOutputTypes());
    // Where a run leaves each output's extents along the dims it sizes.
    if (ArrayAttr extents = plan.getOutputExtentsAttr()) {
      for (auto [o, dims] : enumerate(extents.getAsRange<ArrayAttr>())) {
        if (dims.empty())
          continue;
        os << "static const graphc_buffer_ref " << base << "_extents" << o
           << "[] = {";
        interleaveComma(dims.getAsRange<exec::SlotAttr>(), os,
                        [&](exec::SlotAttr slot) {
                          os << "{" << bufferKind(slot.getKind()) << ", "
                             << slot.getIndex() << ", " << slot.getOffset()
                             << "ull, " << slot.getSize() << "ull}";
                        });
        os << "};\n";
      }
      os << "static const graphc_buffer_ref *const " << base
         << "_extents[] = {";
      for (auto [o, dims] : enumerate(extents.getAsRange<ArrayAttr>()))
        os << (o ? ", " : "")
           << (dims.empty() ? std::string("nullptr")
                            : base + "_extents" + std::to_string(o));
      os << "};\n";
    }
  }
  os << "static const graphc_plan_desc kPlans[] = {\n";
  for (auto [p, plan] : enumerate(parts.plans)) {
    std::string base = "kPlan" + std::to_string(p);
    os << "  {" << cppStringLiteral(plan.getSymName()) << ", " << base
       << "_in, " << base << "_out, " << plan.getArenaBytes() << "ull, "
       << plan.getIntermediateBytes() << "ull, "
       << plan.getSteps().front().getOperations().size() << ", " << base
       << "_steps, "
       << (plan.getOutputExtentsAttr() ? base + "_extents" : "nullptr")
       << "},\n";
  }
  os << "};\n";

  for (auto [d, dim] : enumerate(parts.bucketDims)) {
    std::string base = "kBucketDim" + std::to_string(d);
    emitDims(os, base + "_sizes", dim.getSizes());
    os << "static const int32_t " << base << "_axes[] = {";
    if (dim.getOutputAxes().empty())
      os << "0";
    interleaveComma(dim.getOutputAxes(), os, [&](int64_t a) { os << a; });
    os << "};\n";
  }
  if (!parts.bucketDims.empty()) {
    os << "static const graphc_bucket_dim_desc kBucketDims[] = {\n";
    for (auto [d, dim] : enumerate(parts.bucketDims)) {
      std::string base = "kBucketDim" + std::to_string(d);
      os << "  {" << cppStringLiteral(dim.getName()) << ", "
         << dim.getSizes().size() << ", " << base << "_sizes, "
         << int(dim.getPadSafe()) << ", " << int(dim.getSplittable()) << ", "
         << cppStringLiteral(dim.getNode()) << ", "
         << cppStringLiteral(dim.getReason()) << ", " << base << "_axes},\n";
    }
    os << "};\n";
  }

  os << "static const graphc_image_desc kImages[] = {\n";
  int numUnits = 0;
  for (auto [i, image] : enumerate(options.images)) {
    os << "  {" << image.sm << ", " << image.format << ", graphc_image_" << i
       << ", " << image.data.size() << "ull, " << image.unit << "},\n";
    numUnits = std::max(numUnits, image.unit + 1);
  }
  if (options.images.empty())
    os << "  {0, 0, nullptr, 0, 0},\n";
  os << "};\n";

  // The checksum, weights_checksum and weights_offset fields stay zero here:
  // they are written into the linked file, so that this source, and the
  // cached object compiled from it, do not depend on the weights' values (a
  // retrained model whose weights alone changed recompiles nothing).
  os << "static const graphc_model_desc kModel GRAPHC_DESCRIPTOR_PLACEMENT = "
        "{\n"
     << "  GRAPHC_ABI_VERSION, \"graphc " << GRAPHC_VERSION_STRING << "\", "
     << (options.cudaTarget ? "GRAPHC_TARGET_CUDA" : "GRAPHC_TARGET_CPU")
     << ",\n  " << parts.inputs.size() << ", kInputs, " << parts.outputs.size()
     << ", kOutputs,\n  " << parts.plans.size() << ", kPlans, "
     << parts.kernels.size() + controls.size() << ", kKernels, "
     << options.images.size() << ", kImages,\n  nullptr, "
     << parts.weights.size() << "ull, "
     << (weightsSideName.empty() ? "nullptr"
                                 : cppStringLiteral(weightsSideName))
     << ",\n  0, 0,\n  " << parts.bucketDims.size() << ", "
     << (parts.bucketDims.empty() ? "nullptr" : "kBucketDims") << ",\n  0ull, "
     << numUnits << "};\n\n"
     << "extern \"C\" __attribute__((visibility(\"default\"))) const "
        "graphc_model_desc *graphc_model_descriptor_v1(void) {\n"
     << "  return &kModel;\n}\n";
  return source;
}

} // namespace

std::string deviceImageSymbol(size_t index) {
  return "graphc_image_" + std::to_string(index);
}

std::string deviceImageFile(size_t index) {
  return "image" + std::to_string(index) + ".bin";
}

Expected<ModelSource> generateModelSource(ModuleOp module,
                                          const SharedObjectOptions &options,
                                          const LaunchTable &launches) {
  FailureOr<ModelParts> parts = gatherParts(module);
  if (failed(parts))
    return createStringError(inconvertibleErrorCode(),
                             "cannot gather the model's parts");
  FailureOr<std::string> source = buildSource(
      module, *parts, options, launches,
      options.weightsSideFile
          ? (sys::path::filename(options.outputPath) + ".weights").str()
          : "");
  if (failed(source))
    return createStringError(inconvertibleErrorCode(),
                             "cannot emit the model source");
  return ModelSource{std::move(*source), std::move(parts->weights)};
}

} // namespace graphc::codegen
