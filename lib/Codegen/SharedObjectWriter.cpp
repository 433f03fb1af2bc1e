//===- SharedObjectWriter.cpp - the model .so -----------------------------===//
//
// The .so is built from one generated C++ file, the descriptor as static
// tables and the cpu kernels, and one assembly file that pulls the device
// images in with `.incbin` (byte-exact). The C++ is compiled to an object on
// its own; the compile cache keeps the object and the linked file, so an
// unchanged model runs neither the compiler nor the linker. The weights
// never pass through the host toolchain: they are appended to the linked
// file (or written to the side file), and the descriptor's weights_offset
// and checksum are written in afterwards. The host compiler
// runs in a scratch directory with relative paths only, so the bytes do not
// depend on where or when graphc ran.
//
//===----------------------------------------------------------------------===//

#include "lib/Codegen/SourceText.h"
#include "lib/Codegen/SharedObjectWriter.h"

#include "dialects/Exec/ExecOps.h"
#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "graphc/BuildConfig.h"
#include "lib/Artifact/ArtifactReader.h"
#include "lib/Codegen/CPU/CpuEmitter.h"
#include "lib/Codegen/HostCompiler.h"
#include "lib/Codegen/ScalarExpr.h"
#include "lib/Codegen/SignalCleanup.h"
#include "lib/HostKernels/HostKernels.h"
#include "lib/Support/CompileCache.h"
#include "lib/Support/LaneHash.h"
#include "lib/Support/WriteFile.h"
#include "runtime/include/graphc/descriptor.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <optional>
#include <set>

#include "lib/Codegen/EmbeddedHeaders.inc"

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

/// The rank of the library algorithm a library kernel's schedule names
/// (tuning sets it; 0, the library's first choice, otherwise).
int64_t algoRank(exec::KernelOp kernel) {
  if (auto rank = kernel.getSchedule().getAs<IntegerAttr>("algo_rank"))
    return rank.getInt();
  return 0;
}

/// The parts a GEMM's K is split into (tuning sets it; 0, the algorithm as
/// the heuristic offers it, otherwise).
int64_t splitK(exec::KernelOp kernel) {
  if (auto parts = kernel.getSchedule().getAs<IntegerAttr>("split_k"))
    return parts.getInt();
  return 0;
}

/// 1 when the kernel's schedule comes from a tuning database: the runtime
/// then keeps its algorithm instead of timing the heuristic's.
int tuned(exec::KernelOp kernel) {
  auto source = kernel.getSchedule().getAs<StringAttr>("source");
  return source && source.getValue() == "tuned";
}

/// "{1LL, 2LL, 0LL}": `values` padded with zeros to the spatial dims of a
/// graphc_conv_desc.
std::string spatialArray(ArrayRef<int64_t> values) {
  std::string text = "{";
  for (int i = 0; i < GRAPHC_MAX_CONV_SPATIAL_DIMS; ++i)
    text += (i ? ", " : "") +
            std::to_string(i < int(values.size()) ? values[i] : 0) + "LL";
  return text + "}";
}

/// "{256u, 1u, 1u}": launch dims of a graphc_conv_desc.
std::string launchArray(std::optional<ArrayRef<int64_t>> dims) {
  std::string text = "{";
  for (int i = 0; i < 3; ++i)
    text += (i ? ", " : "") +
            std::to_string(dims && i < int(dims->size()) ? (*dims)[i] : 0) +
            "u";
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

/// The weights as the artifact lays them out: each weight's bytes at its
/// offset, zeros between. Imported weights are borrowed from their blobs,
/// not copied: a large model's weights exist once in the compiler's memory,
/// and are read once to hash and once to write.
class WeightsImage {
public:
  uint64_t size() const { return end; }
  bool empty() const { return end == 0; }

  /// Places `bytes`, which must outlive the image, at `offset` >= size().
  void place(uint64_t offset, ArrayRef<char> bytes) {
    pieces.push_back({offset, bytes});
    end = offset + bytes.size();
  }
  void placeOwned(uint64_t offset, std::vector<char> bytes) {
    // A moved vector keeps its buffer: the piece stays valid.
    owned.push_back(std::move(bytes));
    place(offset, owned.back());
  }

  /// Calls `visit(ArrayRef<char>)` on consecutive ranges that together are
  /// the image's bytes, in order.
  template <typename Visit> void forEachRange(Visit visit) const {
    static const char zeros[4096] = {};
    uint64_t at = 0;
    for (const Piece &piece : pieces) {
      for (; at < piece.offset; at += std::min<uint64_t>(sizeof(zeros),
                                                         piece.offset - at))
        visit(ArrayRef<char>(
            zeros, std::min<uint64_t>(sizeof(zeros), piece.offset - at)));
      visit(piece.bytes);
      at += piece.bytes.size();
    }
  }

  void hash(LaneHasher &hasher) const {
    forEachRange(
        [&](ArrayRef<char> range) { hasher.update(range.data(), range.size()); });
  }

private:
  struct Piece {
    uint64_t offset;
    ArrayRef<char> bytes;
  };
  std::vector<Piece> pieces;
  std::vector<std::vector<char>> owned;
  uint64_t end = 0;
};

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
      if (std::optional<ArrayRef<char>> blob = rawBlobBytes(weight.getValue())) {
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
  }
  os << "static const graphc_tensor_desc " << table << "[] = {\n";
  for (auto [i, io] : enumerate(ios)) {
    auto type = cast<RankedTensorType>(io.getType());
    std::string base = (table + Twine(i)).str();
    os << "  {" << cppStringLiteral(io.getName()) << ", "
       << graph::toHostDtype(type.getElementType()) << ", " << type.getRank()
       << ", " << base << "_dims, " << base << "_names, "
       << cppDoubleLiteral(io.getPadValue().convertToDouble()) << "},\n";
  }
  if (ios.empty())
    os << "  {nullptr, 0, 0, nullptr, nullptr, 0.0},\n";
  os << "};\n";
}

/// A file the .so holds byte for byte, and the symbol it is found at.
struct Blob {
  std::string symbol;
  std::string file;
};

/// The device images.
std::vector<Blob> blobs(const SharedObjectOptions &options) {
  std::vector<Blob> list;
  for (size_t i = 0; i < options.images.size(); ++i)
    list.push_back({"graphc_image_" + std::to_string(i),
                    "image" + std::to_string(i) + ".bin"});
  return list;
}

/// blobs.s: each blob in its own read-only section, 256-byte aligned and
/// NUL-terminated (PTX images are loaded as C strings).
std::string blobAssembly(ArrayRef<Blob> list) {
  std::string text;
  raw_string_ostream os(text);
  for (const Blob &blob : list)
    os << ".section .rodata." << blob.symbol << ",\"a\",@progbits\n"
       << ".p2align 8\n.globl " << blob.symbol << "\n.hidden " << blob.symbol
       << "\n"
       << blob.symbol << ":\n.incbin \"" << blob.file << "\"\n.byte 0\n";
  // No executable stack: without this note the linker would assume one.
  os << ".section .note.GNU-stack,\"\",@progbits\n";
  return text;
}

FailureOr<std::string> buildSource(ModuleOp module, ModelParts &parts,
                                   const SharedObjectOptions &options,
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

  // Bulk data is defined by blobs.s (see blobAssembly).
  for (const Blob &blob : blobs(options))
    os << "extern \"C\" __attribute__((visibility(\"hidden\"))) const "
          "unsigned char "
       << blob.symbol << "[];\n";

  emitTensorDescs(os, "kInputs", parts.inputs);
  emitTensorDescs(os, "kOutputs", parts.outputs);

  // What library kernels compute, and the kernel table.
  for (auto [i, kernel] : enumerate(parts.kernels))
    if (exec::GemmAttr gemm = kernel.getGemmAttr())
      os << "static const graphc_gemm_desc kGemm" << i << " = {"
         << int(gemm.getTransA()) << ", " << int(gemm.getTransB()) << ", "
         << gemm.getM() << "LL, " << gemm.getN() << "LL, " << gemm.getK()
         << "LL, " << gemm.getBatch() << "LL, " << gemm.getLda() << "LL, "
         << gemm.getLdb() << "LL, " << gemm.getLdc() << "LL, "
         << gemm.getStrideA() << "LL, " << gemm.getStrideB() << "LL, "
         << gemm.getStrideC() << "LL, "
         << cppDoubleLiteral(gemm.getAlpha().convertToDouble()) << ", "
         << cppDoubleLiteral(gemm.getBeta().convertToDouble()) << ", "
         << gemmEpilogue(gemm.getEpilogue()) << ", "
         // Products accumulate in f32 whatever the element type.
         << libraryDtype(kernel) << ", 1, "
         << gemm.getA() << ", " << gemm.getB() << ", " << gemm.getC() << ", "
         << gemm.getBias() << ", " << gemm.getD() << ", "
         // The workspace follows the kernel's arguments.
         << gemm.getD() + 1 << ", " << algoRank(kernel) << ", "
         << int(options.tf32Gemms && libraryDtype(kernel) == GC_DTYPE_F32)
         << ", " << splitK(kernel) << ", " << tuned(kernel) << "};\n";
  for (auto [i, kernel] : enumerate(parts.kernels)) {
    exec::ConvAttr conv = kernel.getConvAttr();
    if (!conv)
      continue;
    // On cuda, codegen gave the kernel finishing the epilogue its launch.
    bool epilogueKernel = options.cudaTarget && exec::hasDeviceCode(kernel);
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
       << gemmEpilogue(conv.getEpilogue()) << ", "
       // Products and the epilogue compute in f32 whatever the type.
       << libraryDtype(kernel) << ", " << GC_DTYPE_F32 << ", "
       << int(options.tf32Gemms && libraryDtype(kernel) == GC_DTYPE_F32)
       << ", " << conv.getX() << ", " << conv.getW() << ", "
       << conv.getBias() << ", " << conv.getZ() << ", " << conv.getY()
       << ", "
       // The workspace follows the kernel's arguments.
       << conv.getY() + 1 << ", " << algoRank(kernel) << ", "
       << int(epilogueKernel) << ", "
       << launchArray(epilogueKernel ? kernel.getGrid() : std::nullopt)
       << ", "
       << launchArray(epilogueKernel ? kernel.getBlock() : std::nullopt)
       << ", " << int(conv.getChannelsLast()) << ", " << tuned(kernel)
       << "};\n";
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
       << dims4(sdpa.getBiasStrides()) << ", " << launchArray(kernel.getGrid())
       << ", " << launchArray(kernel.getBlock()) << ", "
       << kernel.getSharedBytes().value_or(0) << "u};\n";
  }
  llvm::StringMap<unsigned> kernelIndex;
  os << "static const graphc_kernel_desc kKernels[] = {\n";
  for (auto [i, kernel] : enumerate(parts.kernels)) {
    kernelIndex[kernel.getSymName()] = i;
    if (options.cudaTarget && !kernel.getGrid() && exec::hasDeviceCode(kernel))
      return kernel.emitOpError("has no launch: cuda codegen sets it");
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
       << (options.cudaTarget && kernel.getUnit()
               ? static_cast<int64_t>(*kernel.getUnit())
               : int64_t(-1))
       << ", "
       << (kernel.getConv() ? "&kConv" + std::to_string(i)
                            : std::string("nullptr"))
       << ", " << int(kernel.getReportsErrors()) << ", "
       << (kernel.getSdpa() ? "&kSdpa" + std::to_string(i)
                            : std::string("nullptr"))
       << "},\n";
  }
  if (parts.kernels.empty())
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
      if (auto launch = dyn_cast<exec::LaunchOp>(step)) {
        StringRef name = launch.getKernel();
        unsigned index = kernelIndex.lookup(name);
        exec::KernelOp kernel = parts.kernels[index];
        // Host calls have no launch: the cpu target leaves it unset.
        SmallVector<int64_t> grid(3, 1), block(3, 1);
        int64_t sharedBytes = 0;
        if (kernel.getGrid()) {
          grid.assign(kernel.getGrid()->begin(), kernel.getGrid()->end());
          block.assign(kernel.getBlock()->begin(), kernel.getBlock()->end());
          sharedBytes = *kernel.getSharedBytes();
        }
        os << "  {"
           << (options.cudaTarget ? "GRAPHC_STEP_LAUNCH"
                                  : "GRAPHC_STEP_HOST_CALL")
           << ", " << index << ", {" << grid[0] << ", " << grid[1] << ", "
           << grid[2] << "}, {" << block[0] << ", " << block[1] << ", "
           << block[2] << "}, " << sharedBytes << ", " << slotsOf(step).size()
           << ", " << args << "},\n";
      } else if (auto call = dyn_cast<exec::LibraryCallOp>(step)) {
        os << "  {GRAPHC_STEP_LIBRARY_CALL, "
           << kernelIndex.lookup(call.getKernel())
           << ", {0, 0, 0}, {0, 0, 0}, 0, " << call.getArgs().size() + 1
           << ", " << args << "},\n";
      } else if (isa<exec::CopyOp>(step)) {
        os << "  {GRAPHC_STEP_COPY, -1, {0, 0, 0}, {0, 0, 0}, 0, 2, " << args
           << "},\n";
      }
    }
    if (stepCount == 0)
      os << "  {GRAPHC_STEP_COPY, -1, {0, 0, 0}, {0, 0, 0}, 0, 0, nullptr, 0, "
            "nullptr},\n";
    os << "};\n";
    auto emitShapes = [&](StringRef suffix, ArrayAttr types) {
      for (auto [i, t] : enumerate(types))
        emitDims(os, (base + suffix + Twine(i)).str(),
                 cast<RankedTensorType>(cast<TypeAttr>(t).getValue())
                     .getShape());
      os << "static const int64_t *const " << base << suffix << "[] = {";
      if (types.empty())
        os << "nullptr";
      for (unsigned i = 0; i < types.size(); ++i)
        os << (i ? ", " : "") << base << suffix << i;
      os << "};\n";
    };
    emitShapes("_in", plan.getInputTypes());
    emitShapes("_out", plan.getOutputTypes());
  }
  os << "static const graphc_plan_desc kPlans[] = {\n";
  for (auto [p, plan] : enumerate(parts.plans)) {
    std::string base = "kPlan" + std::to_string(p);
    os << "  {" << cppStringLiteral(plan.getSymName()) << ", " << base << "_in, "
       << base << "_out, " << plan.getArenaBytes() << "ull, "
       << plan.getIntermediateBytes() << "ull, "
       << plan.getSteps().front().getOperations().size() << ", " << base
       << "_steps},\n";
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
    os << "  {" << image.sm << ", " << image.format
       << ", graphc_image_" << i << ", " << image.data.size() << "ull, "
       << image.unit << "},\n";
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
     << parts.kernels.size() << ", kKernels, " << options.images.size()
     << ", kImages,\n  nullptr, " << parts.weights.size() << "ull, "
     << (weightsSideName.empty() ? "nullptr" : cppStringLiteral(weightsSideName))
     << ",\n  0, 0,\n  " << parts.bucketDims.size() << ", "
     << (parts.bucketDims.empty() ? "nullptr" : "kBucketDims")
     << ",\n  0ull, " << numUnits << "};\n\n"
     << "extern \"C\" __attribute__((visibility(\"default\"))) const "
        "graphc_model_desc *graphc_model_descriptor_v1(void) {\n"
     << "  return &kModel;\n}\n";
  return source;
}

/// Writes `bytes`, then `tail` if any, to `path`; the error names `name`
/// (`path` when empty).
Error writeFile(StringRef path, ArrayRef<char> bytes,
                const WeightsImage *tail = nullptr, StringRef name = "") {
  if (name.empty())
    name = path;
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return createStringError(ec, "cannot write '%s': %s", name.str().c_str(),
                             ec.message().c_str());
  os.write(bytes.data(), bytes.size());
  if (tail)
    tail->forEachRange([&](ArrayRef<char> range) {
      if (!os.has_error())
        os.write(range.data(), range.size());
    });
  return closeStream(os, name);
}

/// The bytes of the file at `path` (what a host compiler run wrote).
Expected<std::vector<char>> readWholeFile(StringRef path) {
  auto bytes = MemoryBuffer::getFile(path, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false);
  if (!bytes)
    return createStringError(bytes.getError(), "cannot read %s: %s",
                             path.str().c_str(),
                             bytes.getError().message().c_str());
  return std::vector<char>((*bytes)->getBufferStart(),
                           (*bytes)->getBufferEnd());
}

Error diagnosticError(StringRef what) {
  return createStringError(inconvertibleErrorCode(), "%s", what.str().c_str());
}

/// Whether `path` is a regular file (not a link) that holds exactly `head`
/// then `tail`, compared as it is read (the first difference ends it); if
/// so, its modification time is set to now, and false is returned when
/// that fails.
bool keepIfIdentical(StringRef path, ArrayRef<char> head,
                     const WeightsImage *tail) {
  sys::fs::file_status status;
  if (sys::fs::status(path, status, /*Follow=*/false) ||
      status.type() != sys::fs::file_type::regular_file ||
      status.getSize() != head.size() + (tail ? tail->size() : 0))
    return false;
  Expected<sys::fs::file_t> file = sys::fs::openNativeFileForRead(path);
  if (!file) {
    consumeError(file.takeError());
    return false;
  }
  auto close = make_scope_exit([&] { sys::fs::closeFile(*file); });
  std::vector<char> buffer(size_t(1) << 20);
  bool same = true;
  auto compare = [&](ArrayRef<char> expected) {
    while (same && !expected.empty()) {
      size_t want = std::min(expected.size(), buffer.size());
      Expected<size_t> got = sys::fs::readNativeFile(
          *file, MutableArrayRef<char>(buffer.data(), want));
      if (!got)
        consumeError(got.takeError());
      same = got && *got > 0 &&
             std::memcmp(buffer.data(), expected.data(), *got) == 0;
      if (same)
        expected = expected.drop_front(*got);
    }
  };
  compare(head);
  if (tail)
    tail->forEachRange(compare);
  return same && !sys::fs::setLastAccessAndModificationTime(
                     *file, std::chrono::system_clock::now());
}

/// Writes `path` through `write` into a temporary file beside it, then
/// renames it into place.
Error replaceFile(StringRef path, llvm::function_ref<Error(StringRef)> write) {
  SmallString<256> temp;
  if (std::error_code ec =
          sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%", temp))
    return createStringError(ec, "cannot write '%s': %s", path.str().c_str(),
                             ec.message().c_str());
  SignalCleanup removeOnSignal(temp);
  if (Error e = write(temp)) {
    sys::fs::remove(temp);
    return e;
  }
  if (std::error_code ec = sys::fs::rename(temp, path)) {
    sys::fs::remove(temp);
    return createStringError(ec, "cannot write '%s': %s", path.str().c_str(),
                             ec.message().c_str());
  }
  return Error::success();
}

/// Puts `head` then `tail` at `path`. A regular file there that holds
/// exactly those bytes is kept and its modification time set to now:
/// recompiling an unchanged model rewrites nothing (hundreds of MiB for a
/// large one), and build tools still see the output as new. Anything else
/// is replaced by rename, never rewritten in place: a process that has the
/// old model loaded (or its weights mapped) keeps a consistent copy.
Error putFile(StringRef path, ArrayRef<char> head, const WeightsImage *tail) {
  if (keepIfIdentical(path, head, tail))
    return Error::success();
  return replaceFile(
      path, [&](StringRef temp) { return writeFile(temp, head, tail, path); });
}

} // namespace

Expected<std::string> emitModelSource(ModuleOp module,
                                      const SharedObjectOptions &options) {
  FailureOr<ModelParts> parts = gatherParts(module);
  if (failed(parts))
    return diagnosticError("cannot gather the model's parts");
  FailureOr<std::string> source = buildSource(
      module, *parts, options,
      options.weightsSideFile
          ? (sys::path::filename(options.outputPath) + ".weights").str()
          : "");
  if (failed(source))
    return diagnosticError("cannot emit the model source");
  return *source;
}

Error writeSharedObject(ModuleOp module, const SharedObjectOptions &options) {
  FailureOr<ModelParts> parts = gatherParts(module);
  if (failed(parts))
    return diagnosticError("cannot gather the model's parts");
  std::string sideName =
      options.weightsSideFile
          ? (sys::path::filename(options.outputPath) + ".weights").str()
          : "";
  FailureOr<std::string> source =
      buildSource(module, *parts, options, sideName);
  if (failed(source))
    return diagnosticError("cannot emit the model source");

  Expected<std::string> compiler = findHostCompiler();
  if (!compiler)
    return compiler.takeError();
  std::string hostKernels;
  if (!options.cudaTarget) {
    Expected<std::string> archive = findHostKernelsArchive();
    if (!archive)
      return archive.takeError();
    hostKernels = std::move(*archive);
  }

  // A temporary build directory goes away on every path but a compiler
  // failure, whose message points into it.
  Expected<BuildDirectory> workDir =
      BuildDirectory::create(options.workDir, "graphc-build");
  if (!workDir)
    return workDir.takeError();
  if (Error e = writeFile(
          workDir->file("descriptor.h"),
          ArrayRef<char>(kDescriptorHeader, sizeof(kDescriptorHeader) - 1)))
    return e;
  if (Error e = writeFile(
          workDir->file("HostKernels.h"),
          ArrayRef<char>(kHostKernelsHeader, sizeof(kHostKernelsHeader) - 1)))
    return e;
  if (Error e = writeFile(
          workDir->file("graphc_cuda_scalar.h"),
          ArrayRef<char>(cudaScalarHeader().data(), cudaScalarHeader().size())))
    return e;
  if (Error e = writeFile(workDir->file("model.cpp"),
                          ArrayRef<char>(source->data(), source->size())))
    return e;
  // The object of model.cpp: from the cache when this exact source was
  // compiled before by this compiler.
  std::vector<std::string> compileArgs = {
      // No floating-point contraction: generated loops round like the host
      // kernels and the CUDA emulator on every host.
      "-std=c++17", "-O2", "-ffp-contract=off", "-fPIC", "-fvisibility=hidden",
      "-ffunction-sections", "-fdata-sections", "-fno-exceptions",
      "-fno-rtti", "-fno-ident", "-I.", "-c", "model.cpp", "-o", "model.o"};
  CompileCache *cache = options.cache;
  CacheKey key("host-object");
  if (cache && keyHostCompilerRun(key, *compiler, compileArgs, workDir->path()))
    key.add("descriptor.h", StringRef(kDescriptorHeader))
        .add("HostKernels.h", StringRef(kHostKernelsHeader))
        .add("graphc_cuda_scalar.h", cudaScalarHeader())
        .add("model.cpp", *source);
  else
    cache = nullptr;
  bool compiled = false;
  Expected<std::vector<char>> object =
      cachedCompile(cache, key, [&]() -> Expected<std::vector<char>> {
        compiled = true;
        if (Error e = runHostCompiler(*compiler, compileArgs, workDir->path()))
          return std::move(e);
        return readWholeFile(workDir->file("model.o"));
      });
  if (!object) {
    workDir->keep();
    return object.takeError();
  }

  // The linked file, before its weights: from the cache when these exact
  // inputs were linked before by this compiler. A kept build directory
  // (--keep) gets every input and the linked file either way.
  std::string assembly = blobAssembly(blobs(options));
  std::vector<std::string> linkArgs = {
      "-shared", "-fPIC", "-Wl,--gc-sections", "-static-libstdc++",
      "-static-libgcc", "model.o", "blobs.s", "-o", "model.so"};
  if (!options.cudaTarget)
    linkArgs.insert(linkArgs.end() - 2, hostKernels);
  CompileCache *linkCache = options.workDir.empty() ? options.cache : nullptr;
  CacheKey linkKey("host-link");
  if (linkCache &&
      keyHostCompilerRun(linkKey, *compiler, linkArgs, workDir->path())) {
    linkKey.addBytes("model.o", *object).add("blobs.s", assembly);
    for (auto [i, image] : enumerate(options.images))
      linkKey.addBytes(("image" + Twine(i) + ".bin").str(), image.data);
    if (!options.cudaTarget) {
      auto archive = MemoryBuffer::getFile(hostKernels, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
      if (archive)
        linkKey.add("libHostKernels.a", (*archive)->getBuffer());
      else
        linkCache = nullptr;
    }
  } else {
    linkCache = nullptr;
  }
  Expected<std::vector<char>> linked =
      cachedCompile(linkCache, linkKey, [&]() -> Expected<std::vector<char>> {
        if (!compiled)
          if (Error e = writeFile(workDir->file("model.o"), *object))
            return std::move(e);
        for (auto [i, image] : enumerate(options.images))
          if (Error e =
                  writeFile(workDir->file(("image" + Twine(i) + ".bin").str()),
                            image.data))
            return std::move(e);
        if (Error e =
                writeFile(workDir->file("blobs.s"),
                          ArrayRef<char>(assembly.data(), assembly.size())))
          return std::move(e);
        if (Error e = runHostCompiler(*compiler, linkArgs, workDir->path())) {
          workDir->keep();
          return std::move(e);
        }
        return readWholeFile(workDir->file("model.so"));
      });
  if (!linked)
    return linked.takeError();
  std::vector<char> bytes = std::move(*linked);

  // Only now is anything at the output path touched (see putFile).
  if (!sideName.empty())
    if (Error e = putFile(options.outputPath + ".weights", {}, &parts->weights))
      return e;
  bool append = sideName.empty() && !parts->weights.empty();
  LaneHasher weightsHasher;
  parts->weights.hash(weightsHasher);
  std::string problem =
      rt::writeWeightsChecksum(bytes, weightsHasher.finish());
  if (problem.empty())
    problem = append ? rt::sealWithAppendedWeights(
                           bytes, parts->weights.size(),
                           [&](LaneHasher &hasher) {
                             parts->weights.hash(hasher);
                           })
                     : rt::sealArtifact(bytes);
  if (!problem.empty())
    return createStringError(inconvertibleErrorCode(),
                             "the linked model is not readable as an "
                             "artifact: %s",
                             problem.c_str());
  return putFile(options.outputPath, bytes,
                 append ? &parts->weights : nullptr);
}

} // namespace graphc::codegen
