//===- ArtifactReader.cpp - a model .so read as data ----------------------===//
//
// The descriptor is found by its section (GRAPHC_DESCRIPTOR_SECTION) and read
// at its load address: addresses are mapped to file offsets through the
// PT_LOAD segments, and pointer fields take their value from the dynamic
// relative relocations (RELA or packed RELR) that dlopen would apply, so the
// view is what the loaded descriptor would hold.
//
//===----------------------------------------------------------------------===//

#include "lib/Artifact/ArtifactReader.h"

#include "graphc/descriptor.h"
#include "lib/Support/LaneHash.h"

#include <elf.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <unordered_map>
#include <utility>
#include <vector>

using namespace graphc::rt;

namespace {
#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
constexpr uint32_t kRelativeReloc = R_X86_64_RELATIVE;
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
constexpr uint32_t kRelativeReloc = R_AARCH64_RELATIVE;
#else
#error "unsupported host architecture"
#endif

#ifndef SHT_RELR
#define SHT_RELR 19
#endif

/// Thrown inside the reader only; readArtifact turns it into a result.
struct ReadFailure {
  ArtifactError error;
  std::string message;
  uint32_t abiVersion = 0;
};

[[noreturn]] void fail(ArtifactError error, std::string message) {
  throw ReadFailure{error, std::move(message)};
}
[[noreturn]] void malformed(std::string message) {
  fail(ArtifactError::malformed, std::move(message));
}

bool rangeWithin(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

struct Segment {
  uint64_t vaddr, fileSize, offset;
};

class Reader {
public:
  Reader(const unsigned char *data, size_t size, bool unplacedWeights)
      : data(data), size(size), budget(4 * uint64_t(size) + 65536),
        unplacedWeights(unplacedWeights) {}

  /// Fills `view`; throws ReadFailure.
  void read();

  /// The descriptor as read so far.
  ArtifactView view;

private:
  template <typename T> T fileAt(uint64_t offset) const {
    if (!rangeWithin(offset, sizeof(T), size))
      malformed("a header at byte " + std::to_string(offset) +
                " lies past the end of the file");
    T value;
    std::memcpy(&value, data + offset, sizeof(T));
    return value;
  }

  /// The file offset of `length` bytes at load address `vaddr`.
  uint64_t fileOffsetOf(uint64_t vaddr, uint64_t length,
                        const char *what) const {
    for (const Segment &segment : segments)
      if (vaddr >= segment.vaddr &&
          rangeWithin(vaddr - segment.vaddr, length, segment.fileSize))
        return segment.offset + (vaddr - segment.vaddr);
    malformed(std::string(what) + " (" + std::to_string(length) +
              " bytes at address " + std::to_string(vaddr) +
              ") lies outside the file's loadable data");
  }

  template <typename T> T loaded(uint64_t vaddr, const char *what) const {
    T value;
    std::memcpy(&value, data + fileOffsetOf(vaddr, sizeof(T), what),
                sizeof(T));
    return value;
  }

  /// The value dlopen would store in the pointer at `vaddr`.
  uint64_t pointerAt(uint64_t vaddr, const char *what) const {
    uint64_t inFile = loaded<uint64_t>(vaddr, what);
    auto found = relocations.find(vaddr);
    if (found != relocations.end())
      return found->second.explicitAddend ? found->second.addend : inFile;
    if (inFile != 0)
      malformed(std::string(what) + " is a pointer without a relocation");
    return 0;
  }

  void charge(uint64_t bytes, const char *what) {
    if (bytes > budget)
      malformed(std::string(what) + " makes the descriptor larger than the "
                                    "file can hold");
    budget -= bytes;
  }

  /// Checks that `count` entries of `entrySize` bytes lie at `vaddr`.
  void checkTable(uint64_t vaddr, int64_t count, uint64_t entrySize,
                  const char *what) {
    if (count < 0)
      malformed(std::string(what) + " has a negative count");
    if (count == 0)
      return;
    if (vaddr == 0)
      malformed(std::string(what) + " is missing");
    uint64_t bytes;
    if (__builtin_mul_overflow(uint64_t(count), entrySize, &bytes))
      malformed(std::string(what) + " is too large");
    fileOffsetOf(vaddr, bytes, what);
    charge(bytes, what);
  }

  std::string stringAt(uint64_t vaddr, const char *what) {
    if (vaddr == 0)
      return "";
    uint64_t start = fileOffsetOf(vaddr, 1, what);
    // The string must end within the segment that holds its start.
    uint64_t end = start;
    for (const Segment &segment : segments)
      if (start >= segment.offset && start < segment.offset + segment.fileSize)
        end = segment.offset + segment.fileSize;
    const void *nul = std::memchr(data + start, 0, end - start);
    if (!nul)
      malformed(std::string(what) + " is not terminated");
    uint64_t length =
        static_cast<const unsigned char *>(nul) - (data + start);
    charge(length + 1, what);
    return std::string(reinterpret_cast<const char *>(data + start), length);
  }

  std::vector<int64_t> dimsAt(uint64_t vaddr, int32_t rank, const char *what) {
    checkTable(vaddr, rank, sizeof(int64_t), what);
    std::vector<int64_t> dims(rank);
    for (int32_t d = 0; d < rank; ++d)
      dims[d] = loaded<int64_t>(vaddr + 8 * uint64_t(d), what);
    return dims;
  }

  void readElf();
  void readRelocations(const Elf64_Shdr &section);
  ArtifactTensor readTensor(uint64_t vaddr, const std::string &what);
  ArtifactGemm readGemm(uint64_t vaddr, const std::string &what);
  ArtifactConv readConv(uint64_t vaddr, const std::string &what);
  ArtifactSdpa readSdpa(uint64_t vaddr, const std::string &what);
  ArtifactPlan readPlan(uint64_t vaddr, const ArtifactView &view,
                        const std::string &what);

  const unsigned char *data;
  size_t size;
  uint64_t budget;
  bool unplacedWeights;
  std::vector<Segment> segments;
  struct Relocation {
    bool explicitAddend;
    uint64_t addend;
  };
  std::unordered_map<uint64_t, Relocation> relocations;
  uint64_t descriptorVaddr = 0;
};

void Reader::readElf() {
  if (size < sizeof(Elf64_Ehdr) || std::memcmp(data, ELFMAG, SELFMAG) != 0)
    fail(ArtifactError::notAnArtifact, "not an ELF shared object");
  auto header = fileAt<Elf64_Ehdr>(0);
  if (header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB || header.e_machine != kMachine)
    fail(ArtifactError::notAnArtifact, "an ELF file for another machine");
  if (header.e_type != ET_DYN)
    fail(ArtifactError::notAnArtifact,
         "an ELF file that is not a shared object");
  if (header.e_phentsize != sizeof(Elf64_Phdr) ||
      header.e_shentsize != sizeof(Elf64_Shdr))
    malformed("unexpected ELF header entry sizes");
  if (!rangeWithin(header.e_phoff, uint64_t(header.e_phnum) * sizeof(Elf64_Phdr),
                   size) ||
      !rangeWithin(header.e_shoff, uint64_t(header.e_shnum) * sizeof(Elf64_Shdr),
                   size))
    malformed("truncated (ELF headers lie past the end of the file)");

  for (unsigned i = 0; i < header.e_phnum; ++i) {
    auto segment =
        fileAt<Elf64_Phdr>(header.e_phoff + uint64_t(i) * sizeof(Elf64_Phdr));
    if (segment.p_type != PT_LOAD)
      continue;
    if (!rangeWithin(segment.p_offset, segment.p_filesz, size))
      malformed("truncated (a loadable segment lies past the end of the file)");
    segments.push_back({segment.p_vaddr, segment.p_filesz, segment.p_offset});
  }

  if (header.e_shstrndx >= header.e_shnum)
    fail(ArtifactError::notAnArtifact, "an ELF file without section names");
  auto names = fileAt<Elf64_Shdr>(header.e_shoff + uint64_t(header.e_shstrndx) *
                                                       sizeof(Elf64_Shdr));
  if (!rangeWithin(names.sh_offset, names.sh_size, size))
    malformed("truncated (section names lie past the end of the file)");
  const size_t sectionNameLength = sizeof(GRAPHC_DESCRIPTOR_SECTION);
  bool found = false;
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    auto section =
        fileAt<Elf64_Shdr>(header.e_shoff + uint64_t(i) * sizeof(Elf64_Shdr));
    if (section.sh_type == SHT_RELA || section.sh_type == SHT_RELR) {
      if (section.sh_flags & SHF_ALLOC)
        readRelocations(section);
      continue;
    }
    if (section.sh_name >= names.sh_size ||
        names.sh_size - section.sh_name < sectionNameLength ||
        std::memcmp(data + names.sh_offset + section.sh_name,
                    GRAPHC_DESCRIPTOR_SECTION, sectionNameLength) != 0)
      continue;
    if (found)
      malformed("two " GRAPHC_DESCRIPTOR_SECTION " sections");
    if (section.sh_type != SHT_PROGBITS || !(section.sh_flags & SHF_ALLOC) ||
        section.sh_size < sizeof(graphc_model_desc))
      malformed("the " GRAPHC_DESCRIPTOR_SECTION
                " section does not hold a descriptor");
    descriptorVaddr = section.sh_addr;
    found = true;
  }
  if (!found)
    fail(ArtifactError::notAnArtifact,
         "no " GRAPHC_DESCRIPTOR_SECTION " section");
}

void Reader::readRelocations(const Elf64_Shdr &section) {
  if (!rangeWithin(section.sh_offset, section.sh_size, size))
    malformed("truncated (relocations lie past the end of the file)");
  const unsigned char *begin = data + section.sh_offset;
  if (section.sh_type == SHT_RELA) {
    for (uint64_t at = 0; at + sizeof(Elf64_Rela) <= section.sh_size;
         at += sizeof(Elf64_Rela)) {
      Elf64_Rela rela;
      std::memcpy(&rela, begin + at, sizeof(rela));
      // A pointer under any other relocation is refused when read: the
      // descriptor only ever points into its own file.
      uint64_t addend = ELF64_R_TYPE(rela.r_info) == kRelativeReloc
                            ? uint64_t(rela.r_addend)
                            : 0;
      relocations[rela.r_offset] = {true, addend};
    }
    return;
  }
  // RELR: an address entry, then bitmaps of the 63 words after it.
  uint64_t where = 0;
  for (uint64_t at = 0; at + 8 <= section.sh_size; at += 8) {
    uint64_t entry;
    std::memcpy(&entry, begin + at, sizeof(entry));
    if (!(entry & 1)) {
      relocations[entry] = {false, 0};
      where = entry + 8;
      continue;
    }
    for (unsigned bit = 0; bit < 63; ++bit)
      if ((entry >> (bit + 1)) & 1)
        relocations[where + 8 * uint64_t(bit)] = {false, 0};
    where += 8 * 63;
  }
}

ArtifactTensor Reader::readTensor(uint64_t vaddr, const std::string &what) {
  const char *w = what.c_str();
  ArtifactTensor tensor;
  tensor.name = stringAt(
      pointerAt(vaddr + offsetof(graphc_tensor_desc, name), w), w);
  tensor.dtype = loaded<int32_t>(vaddr + offsetof(graphc_tensor_desc, dtype), w);
  int32_t rank =
      loaded<int32_t>(vaddr + offsetof(graphc_tensor_desc, rank), w);
  tensor.dims = dimsAt(
      pointerAt(vaddr + offsetof(graphc_tensor_desc, dims), w), rank, w);
  uint64_t names =
      pointerAt(vaddr + offsetof(graphc_tensor_desc, dim_names), w);
  if (names) {
    checkTable(names, rank, sizeof(const char *), w);
    for (int32_t d = 0; d < rank; ++d)
      tensor.dimNames.push_back(
          stringAt(pointerAt(names + 8 * uint64_t(d), w), w));
  } else {
    tensor.dimNames.assign(rank, "");
  }
  tensor.padValue =
      loaded<double>(vaddr + offsetof(graphc_tensor_desc, pad_value), w);
  uint64_t dataDependent =
      pointerAt(vaddr + offsetof(graphc_tensor_desc, data_dependent), w);
  if (dataDependent) {
    checkTable(dataDependent, rank, sizeof(int32_t), w);
    for (int32_t d = 0; d < rank; ++d)
      tensor.dataDependent.push_back(
          loaded<int32_t>(dataDependent + 4 * uint64_t(d), w));
  }
  return tensor;
}

ArtifactGemm Reader::readGemm(uint64_t vaddr, const std::string &what) {
  std::string record = what + "'s GEMM";
  const char *w = record.c_str();
  fileOffsetOf(vaddr, sizeof(graphc_gemm_desc), w);
  charge(sizeof(graphc_gemm_desc), w);
  ArtifactGemm gemm;
#define GRAPHC_GEMM_FIELD(member, field)                                       \
  gemm.member = loaded<decltype(gemm.member)>(                                 \
      vaddr + offsetof(graphc_gemm_desc, field), w)
  GRAPHC_GEMM_FIELD(transA, trans_a);
  GRAPHC_GEMM_FIELD(transB, trans_b);
  GRAPHC_GEMM_FIELD(m, m);
  GRAPHC_GEMM_FIELD(n, n);
  GRAPHC_GEMM_FIELD(k, k);
  GRAPHC_GEMM_FIELD(batch, batch);
  GRAPHC_GEMM_FIELD(lda, lda);
  GRAPHC_GEMM_FIELD(ldb, ldb);
  GRAPHC_GEMM_FIELD(ldc, ldc);
  GRAPHC_GEMM_FIELD(strideA, stride_a);
  GRAPHC_GEMM_FIELD(strideB, stride_b);
  GRAPHC_GEMM_FIELD(strideC, stride_c);
  GRAPHC_GEMM_FIELD(alpha, alpha);
  GRAPHC_GEMM_FIELD(beta, beta);
  GRAPHC_GEMM_FIELD(epilogue, epilogue);
  GRAPHC_GEMM_FIELD(dtype, dtype);
  GRAPHC_GEMM_FIELD(computeDtype, compute_dtype);
  GRAPHC_GEMM_FIELD(aArg, a_arg);
  GRAPHC_GEMM_FIELD(bArg, b_arg);
  GRAPHC_GEMM_FIELD(cArg, c_arg);
  GRAPHC_GEMM_FIELD(biasArg, bias_arg);
  GRAPHC_GEMM_FIELD(dArg, d_arg);
  GRAPHC_GEMM_FIELD(workspaceArg, workspace_arg);
  GRAPHC_GEMM_FIELD(algoRank, algo_rank);
  GRAPHC_GEMM_FIELD(tf32, tf32);
  GRAPHC_GEMM_FIELD(splitK, split_k);
  GRAPHC_GEMM_FIELD(tuned, tuned);
#undef GRAPHC_GEMM_FIELD
  if (gemm.algoRank < 0 || gemm.algoRank >= GRAPHC_MAX_ALGO_RANKS)
    malformed(what + " asks for algorithm rank " +
              std::to_string(gemm.algoRank));
  if (gemm.tf32 != 0 && gemm.tf32 != 1)
    malformed(what + " has tf32 " + std::to_string(gemm.tf32));
  if (gemm.splitK != 0 && (gemm.splitK < 2 || gemm.splitK > GRAPHC_MAX_SPLIT_K))
    malformed(what + " splits K into " + std::to_string(gemm.splitK) +
              " parts");
  if (gemm.tuned != 0 && gemm.tuned != 1)
    malformed(what + " has tuned " + std::to_string(gemm.tuned));
  return gemm;
}

ArtifactConv Reader::readConv(uint64_t vaddr, const std::string &what) {
  std::string record = what + "'s convolution";
  const char *w = record.c_str();
  fileOffsetOf(vaddr, sizeof(graphc_conv_desc), w);
  charge(sizeof(graphc_conv_desc), w);
  ArtifactConv conv;
#define GRAPHC_CONV_FIELD(member, field)                                       \
  conv.member = loaded<decltype(conv.member)>(                                 \
      vaddr + offsetof(graphc_conv_desc, field), w)
  GRAPHC_CONV_FIELD(spatialDims, spatial_dims);
  GRAPHC_CONV_FIELD(n, n);
  GRAPHC_CONV_FIELD(c, c);
  GRAPHC_CONV_FIELD(k, k);
  GRAPHC_CONV_FIELD(groups, groups);
  GRAPHC_CONV_FIELD(epilogue, epilogue);
  GRAPHC_CONV_FIELD(dtype, dtype);
  GRAPHC_CONV_FIELD(computeDtype, compute_dtype);
  GRAPHC_CONV_FIELD(tf32, tf32);
  GRAPHC_CONV_FIELD(xArg, x_arg);
  GRAPHC_CONV_FIELD(wArg, w_arg);
  GRAPHC_CONV_FIELD(biasArg, bias_arg);
  GRAPHC_CONV_FIELD(zArg, z_arg);
  GRAPHC_CONV_FIELD(yArg, y_arg);
  GRAPHC_CONV_FIELD(workspaceArg, workspace_arg);
  GRAPHC_CONV_FIELD(engineRank, engine_rank);
  GRAPHC_CONV_FIELD(tuned, tuned);
#undef GRAPHC_CONV_FIELD
  if (conv.tuned != 0 && conv.tuned != 1)
    malformed(record + " has tuned " + std::to_string(conv.tuned));
  if (conv.spatialDims < 1 || conv.spatialDims > GRAPHC_MAX_CONV_SPATIAL_DIMS)
    malformed(record + " has " + std::to_string(conv.spatialDims) +
              " spatial dims");
  const struct {
    std::vector<int64_t> *values;
    size_t offset;
  } arrays[] = {{&conv.inSize, offsetof(graphc_conv_desc, in_size)},
                {&conv.filterSize, offsetof(graphc_conv_desc, filter_size)},
                {&conv.outSize, offsetof(graphc_conv_desc, out_size)},
                {&conv.padsBegin, offsetof(graphc_conv_desc, pads_begin)},
                {&conv.padsEnd, offsetof(graphc_conv_desc, pads_end)},
                {&conv.strides, offsetof(graphc_conv_desc, strides)},
                {&conv.dilations, offsetof(graphc_conv_desc, dilations)}};
  for (const auto &array : arrays)
    for (int32_t i = 0; i < conv.spatialDims; ++i)
      array.values->push_back(
          loaded<int64_t>(vaddr + array.offset + 8 * uint64_t(i), w));
  int32_t hasEpilogueKernel = loaded<int32_t>(
      vaddr + offsetof(graphc_conv_desc, has_epilogue_kernel), w);
  if (hasEpilogueKernel != 0 && hasEpilogueKernel != 1)
    malformed(record + " has has_epilogue_kernel " +
              std::to_string(hasEpilogueKernel));
  conv.hasEpilogueKernel = hasEpilogueKernel;
  for (int d = 0; d < 3; ++d) {
    conv.epilogueGrid[d] = loaded<uint32_t>(
        vaddr + offsetof(graphc_conv_desc, epilogue_grid) + 4 * uint64_t(d), w);
    conv.epilogueBlock[d] = loaded<uint32_t>(
        vaddr + offsetof(graphc_conv_desc, epilogue_block) + 4 * uint64_t(d),
        w);
  }
  if (conv.engineRank < 0 || conv.engineRank >= GRAPHC_MAX_ALGO_RANKS)
    malformed(record + " asks for engine rank " +
              std::to_string(conv.engineRank));
  if (conv.tf32 != 0 && conv.tf32 != 1)
    malformed(record + " has tf32 " + std::to_string(conv.tf32));
  int32_t channelsLast =
      loaded<int32_t>(vaddr + offsetof(graphc_conv_desc, channels_last), w);
  if (channelsLast != 0 && channelsLast != 1)
    malformed(record + " has channels_last " + std::to_string(channelsLast));
  conv.channelsLast = channelsLast;
  return conv;
}

ArtifactSdpa Reader::readSdpa(uint64_t vaddr, const std::string &what) {
  std::string record = what + "'s attention";
  const char *w = record.c_str();
  fileOffsetOf(vaddr, sizeof(graphc_sdpa_desc), w);
  charge(sizeof(graphc_sdpa_desc), w);
  ArtifactSdpa sdpa;
#define GRAPHC_SDPA_FIELD(member, field)                                       \
  sdpa.member = loaded<decltype(sdpa.member)>(                                 \
      vaddr + offsetof(graphc_sdpa_desc, field), w)
  GRAPHC_SDPA_FIELD(batch, batch);
  GRAPHC_SDPA_FIELD(heads, heads);
  GRAPHC_SDPA_FIELD(kvHeads, kv_heads);
  GRAPHC_SDPA_FIELD(queries, queries);
  GRAPHC_SDPA_FIELD(keys, keys);
  GRAPHC_SDPA_FIELD(headDim, head_dim);
  GRAPHC_SDPA_FIELD(valueDim, value_dim);
  GRAPHC_SDPA_FIELD(scale, scale);
  GRAPHC_SDPA_FIELD(dtype, dtype);
  GRAPHC_SDPA_FIELD(computeDtype, compute_dtype);
  GRAPHC_SDPA_FIELD(qArg, q_arg);
  GRAPHC_SDPA_FIELD(kArg, k_arg);
  GRAPHC_SDPA_FIELD(vArg, v_arg);
  GRAPHC_SDPA_FIELD(biasArg, bias_arg);
  GRAPHC_SDPA_FIELD(oArg, o_arg);
  GRAPHC_SDPA_FIELD(workspaceArg, workspace_arg);
  GRAPHC_SDPA_FIELD(engineRank, engine_rank);
  GRAPHC_SDPA_FIELD(fallbackSharedBytes, fallback_shared_bytes);
#undef GRAPHC_SDPA_FIELD
  int32_t causal =
      loaded<int32_t>(vaddr + offsetof(graphc_sdpa_desc, is_causal), w);
  if (causal != 0 && causal != 1)
    malformed(record + " has is_causal " + std::to_string(causal));
  sdpa.causal = causal;
  for (int d = 0; d < 3; ++d) {
    sdpa.fallbackGrid[d] = loaded<uint32_t>(
        vaddr + offsetof(graphc_sdpa_desc, fallback_grid) + 4 * uint64_t(d), w);
    sdpa.fallbackBlock[d] = loaded<uint32_t>(
        vaddr + offsetof(graphc_sdpa_desc, fallback_block) + 4 * uint64_t(d),
        w);
  }
  if (sdpa.engineRank < 0 || sdpa.engineRank >= GRAPHC_MAX_ALGO_RANKS)
    malformed(record + " asks for engine rank " +
              std::to_string(sdpa.engineRank));
  return sdpa;
}

ArtifactPlan Reader::readPlan(uint64_t vaddr, const ArtifactView &view,
                              const std::string &what) {
  const char *w = what.c_str();
  ArtifactPlan plan;
  plan.name =
      stringAt(pointerAt(vaddr + offsetof(graphc_plan_desc, name), w), w);
  plan.arenaBytes =
      loaded<uint64_t>(vaddr + offsetof(graphc_plan_desc, arena_bytes), w);
  plan.intermediateBytes = loaded<uint64_t>(
      vaddr + offsetof(graphc_plan_desc, intermediate_bytes), w);
  plan.numSteps =
      loaded<int32_t>(vaddr + offsetof(graphc_plan_desc, num_steps), w);
  if (plan.numSteps < 0)
    malformed(what + " has a negative step count");
  auto readShapes = [&](size_t field, const std::vector<ArtifactTensor> &of,
                        std::vector<std::vector<int64_t>> &shapes) {
    uint64_t table = pointerAt(vaddr + field, w);
    checkTable(table, int64_t(of.size()), sizeof(const int64_t *), w);
    for (size_t i = 0; i < of.size(); ++i)
      shapes.push_back(dimsAt(pointerAt(table + 8 * uint64_t(i), w),
                              int32_t(of[i].dims.size()), w));
  };
  readShapes(offsetof(graphc_plan_desc, input_dims), view.inputs,
             plan.inputDims);
  readShapes(offsetof(graphc_plan_desc, output_dims), view.outputs,
             plan.outputDims);
  // NULL for a model without data-dependent dims; else one entry per
  // output, NULL or one buffer reference per dim.
  uint64_t extents =
      pointerAt(vaddr + offsetof(graphc_plan_desc, output_extents), w);
  plan.outputExtentOffsets.resize(view.outputs.size());
  if (extents) {
    checkTable(extents, int64_t(view.outputs.size()),
               sizeof(const graphc_buffer_ref *), w);
    for (size_t o = 0; o < view.outputs.size(); ++o) {
      uint64_t refs = pointerAt(extents + 8 * uint64_t(o), w);
      if (!refs)
        continue;
      int64_t rank = int64_t(view.outputs[o].dims.size());
      checkTable(refs, rank, sizeof(graphc_buffer_ref), w);
      for (int64_t d = 0; d < rank; ++d) {
        uint64_t ref = refs + uint64_t(d) * sizeof(graphc_buffer_ref);
        int32_t kind =
            loaded<int32_t>(ref + offsetof(graphc_buffer_ref, kind), w);
        plan.outputExtentOffsets[o].push_back(
            kind == GRAPHC_BUFFER_NONE
                ? -1
                : int64_t(loaded<uint64_t>(
                      ref + offsetof(graphc_buffer_ref, offset), w)));
      }
    }
  }
  uint64_t steps = pointerAt(vaddr + offsetof(graphc_plan_desc, steps), w);
  checkTable(steps, plan.numSteps, sizeof(graphc_step_desc), w);
  for (int32_t s = 0; s < plan.numSteps; ++s) {
    uint64_t at = steps + uint64_t(s) * sizeof(graphc_step_desc);
    ArtifactStep step;
    step.kind = loaded<int32_t>(at + offsetof(graphc_step_desc, kind), w);
    step.kernel = loaded<int32_t>(at + offsetof(graphc_step_desc, kernel), w);
    int32_t numArgs =
        loaded<int32_t>(at + offsetof(graphc_step_desc, num_args), w);
    step.bodySteps =
        loaded<int32_t>(at + offsetof(graphc_step_desc, body_steps), w);
    step.maxIterations =
        loaded<int64_t>(at + offsetof(graphc_step_desc, max_iterations), w);
    if (step.kind == GRAPHC_STEP_COPY && numArgs == 2) {
      uint64_t args = pointerAt(at + offsetof(graphc_step_desc, args), w);
      checkTable(args, numArgs, sizeof(graphc_buffer_ref), w);
      step.copyBytes = loaded<uint64_t>(
          args + sizeof(graphc_buffer_ref) + offsetof(graphc_buffer_ref, size),
          w);
    }
    int32_t numResults =
        loaded<int32_t>(at + offsetof(graphc_step_desc, num_results), w);
    uint64_t results = pointerAt(at + offsetof(graphc_step_desc, results), w);
    checkTable(results, numResults, sizeof(graphc_step_result_desc), w);
    for (int32_t r = 0; r < numResults; ++r) {
      uint64_t entry = results + uint64_t(r) * sizeof(graphc_step_result_desc);
      ArtifactStepResult result;
      result.arg =
          loaded<int32_t>(entry + offsetof(graphc_step_result_desc, arg), w);
      result.dtype =
          loaded<int32_t>(entry + offsetof(graphc_step_result_desc, dtype), w);
      int32_t rank =
          loaded<int32_t>(entry + offsetof(graphc_step_result_desc, rank), w);
      result.dims =
          dimsAt(pointerAt(entry + offsetof(graphc_step_result_desc, dims), w),
                 rank, w);
      result.onnxTensor = stringAt(
          pointerAt(entry + offsetof(graphc_step_result_desc, onnx_tensor), w),
          w);
      step.results.push_back(std::move(result));
    }
    plan.steps.push_back(step);
  }
  return plan;
}

void Reader::read() {
  readElf();
  const uint64_t d = descriptorVaddr;
  const char *w = "the descriptor";
  fileOffsetOf(d, sizeof(graphc_model_desc), w);
  view.abiVersion = loaded<uint32_t>(d + offsetof(graphc_model_desc, abi_version), w);
  if (view.abiVersion != GRAPHC_ABI_VERSION)
    throw ReadFailure{ArtifactError::abiMismatch,
                      "descriptor ABI version " +
                          std::to_string(view.abiVersion) +
                          ", this reader reads version " +
                          std::to_string(GRAPHC_ABI_VERSION),
                      view.abiVersion};
  auto field = [&](size_t offset) { return d + offset; };
#define GRAPHC_FIELD(name) field(offsetof(graphc_model_desc, name))
  // The checksum first: a caller can then tell corruption from a malformed
  // descriptor.
  view.checksum = loaded<uint64_t>(GRAPHC_FIELD(checksum), w);
  view.checksumOffset = fileOffsetOf(GRAPHC_FIELD(checksum), 8, w);
  view.weightsChecksum = loaded<uint64_t>(GRAPHC_FIELD(weights_checksum), w);
  view.producer = stringAt(pointerAt(GRAPHC_FIELD(producer), w), w);
  view.target = loaded<int32_t>(GRAPHC_FIELD(target), w);
  if (view.target != GRAPHC_TARGET_CPU && view.target != GRAPHC_TARGET_CUDA)
    malformed("unknown target " + std::to_string(view.target));

  auto table = [&](size_t countField, size_t pointerField, uint64_t entrySize,
                   const char *what) {
    int32_t count = loaded<int32_t>(field(countField), w);
    uint64_t vaddr = pointerAt(field(pointerField), w);
    checkTable(vaddr, count, entrySize, what);
    return std::make_pair(vaddr, count);
  };
  auto [inputs, numInputs] =
      table(offsetof(graphc_model_desc, num_inputs),
            offsetof(graphc_model_desc, inputs), sizeof(graphc_tensor_desc),
            "the input table");
  for (int32_t i = 0; i < numInputs; ++i)
    view.inputs.push_back(readTensor(inputs + i * sizeof(graphc_tensor_desc),
                                     "input " + std::to_string(i)));
  auto [outputs, numOutputs] =
      table(offsetof(graphc_model_desc, num_outputs),
            offsetof(graphc_model_desc, outputs), sizeof(graphc_tensor_desc),
            "the output table");
  for (int32_t i = 0; i < numOutputs; ++i)
    view.outputs.push_back(readTensor(outputs + i * sizeof(graphc_tensor_desc),
                                      "output " + std::to_string(i)));
  auto [plans, numPlans] =
      table(offsetof(graphc_model_desc, num_plans),
            offsetof(graphc_model_desc, plans), sizeof(graphc_plan_desc),
            "the plan table");
  for (int32_t p = 0; p < numPlans; ++p)
    view.plans.push_back(readPlan(plans + p * sizeof(graphc_plan_desc), view,
                                  "plan " + std::to_string(p)));
  auto [kernels, numKernels] =
      table(offsetof(graphc_model_desc, num_kernels),
            offsetof(graphc_model_desc, kernels), sizeof(graphc_kernel_desc),
            "the kernel table");
  for (int32_t k = 0; k < numKernels; ++k) {
    uint64_t at = kernels + k * sizeof(graphc_kernel_desc);
    std::string what = "kernel " + std::to_string(k);
    const char *kw = what.c_str();
    ArtifactKernel kernel;
    kernel.name =
        stringAt(pointerAt(at + offsetof(graphc_kernel_desc, name), kw), kw);
    kernel.kind =
        stringAt(pointerAt(at + offsetof(graphc_kernel_desc, kind), kw), kw);
    kernel.onnxNodes = stringAt(
        pointerAt(at + offsetof(graphc_kernel_desc, onnx_nodes), kw), kw);
    kernel.contentHash =
        loaded<uint64_t>(at + offsetof(graphc_kernel_desc, content_hash), kw);
    kernel.flops =
        loaded<uint64_t>(at + offsetof(graphc_kernel_desc, flops), kw);
    kernel.bytesRead =
        loaded<uint64_t>(at + offsetof(graphc_kernel_desc, bytes_read), kw);
    kernel.bytesWritten =
        loaded<uint64_t>(at + offsetof(graphc_kernel_desc, bytes_written), kw);
    kernel.flopDtype =
        loaded<int32_t>(at + offsetof(graphc_kernel_desc, flop_dtype), kw);
    kernel.library =
        loaded<int32_t>(at + offsetof(graphc_kernel_desc, library), kw);
    if (!libraryName(kernel.library))
      malformed(what + " has unknown library " +
                std::to_string(kernel.library));
    // A library kernel has exactly the record of its library.
    uint64_t gemm = pointerAt(at + offsetof(graphc_kernel_desc, gemm), kw);
    uint64_t conv = pointerAt(at + offsetof(graphc_kernel_desc, conv), kw);
    uint64_t sdpa = pointerAt(at + offsetof(graphc_kernel_desc, sdpa), kw);
    if ((kernel.library == GRAPHC_LIBRARY_CUBLASLT) != (gemm != 0))
      malformed(what + (gemm ? " has a GEMM record but does not call cuBLASLt"
                             : " calls cuBLASLt without a GEMM record"));
    if (conv && sdpa)
      malformed(what + " has a convolution and an attention record");
    if ((kernel.library == GRAPHC_LIBRARY_CUDNN) != (conv != 0 || sdpa != 0))
      malformed(what + (conv   ? " has a convolution record but does not call "
                                 "cuDNN"
                        : sdpa ? " has an attention record but does not call "
                                 "cuDNN"
                               : " calls cuDNN without a convolution or "
                                 "attention record"));
    if (gemm)
      kernel.gemm = readGemm(gemm, what);
    if (conv)
      kernel.conv = readConv(conv, what);
    if (sdpa)
      kernel.sdpa = readSdpa(sdpa, what);
    kernel.unit = loaded<int32_t>(at + offsetof(graphc_kernel_desc, unit), kw);
    view.kernels.push_back(std::move(kernel));
  }
  auto [images, numImages] =
      table(offsetof(graphc_model_desc, num_images),
            offsetof(graphc_model_desc, images), sizeof(graphc_image_desc),
            "the image table");
  for (int32_t i = 0; i < numImages; ++i) {
    uint64_t at = images + i * sizeof(graphc_image_desc);
    std::string what = "image " + std::to_string(i);
    const char *iw = what.c_str();
    ArtifactImage image;
    image.sm = loaded<int32_t>(at + offsetof(graphc_image_desc, sm), iw);
    image.format = loaded<int32_t>(at + offsetof(graphc_image_desc, format), iw);
    if (!imageFormatName(image.format))
      malformed(what + " has unknown format " + std::to_string(image.format));
    image.size = loaded<uint64_t>(at + offsetof(graphc_image_desc, size), iw);
    uint64_t bytes =
        pointerAt(at + offsetof(graphc_image_desc, data), iw);
    if (!bytes || !image.size)
      malformed(what + " is empty");
    image.fileOffset = fileOffsetOf(bytes, image.size, iw);
    image.unit = loaded<int32_t>(at + offsetof(graphc_image_desc, unit), iw);
    view.images.push_back(image);
  }
  // The same rules as the runtime's descriptor check: a module per unit,
  // each with an image, and every generated cuda kernel in one.
  view.numUnits = loaded<int32_t>(GRAPHC_FIELD(num_units), w);
  if (view.numUnits < 0)
    malformed("the unit count is negative");
  if (size_t(view.numUnits) > view.images.size())
    malformed(std::to_string(view.numUnits) + " units but " +
              std::to_string(view.images.size()) + " images");
  std::vector<bool> unitHasImage(view.numUnits, false);
  for (size_t i = 0; i < view.images.size(); ++i) {
    int32_t unit = view.images[i].unit;
    if (unit < 0 || unit >= view.numUnits)
      malformed("image " + std::to_string(i) + " is of unit " +
                std::to_string(unit) + ", out of range");
    unitHasImage[unit] = true;
  }
  for (int32_t u = 0; u < view.numUnits; ++u)
    if (!unitHasImage[u])
      malformed("unit " + std::to_string(u) + " has no image");
  if (view.target == GRAPHC_TARGET_CUDA)
    for (const ArtifactKernel &kernel : view.kernels) {
      bool epilogueKernel =
          (kernel.conv && kernel.conv->hasEpilogueKernel) || kernel.sdpa;
      if (((kernel.library == GRAPHC_LIBRARY_NONE && view.numUnits > 0) ||
           epilogueKernel) &&
          (kernel.unit < 0 || kernel.unit >= view.numUnits))
        malformed("kernel '" + kernel.name + "' is in unit " +
                  std::to_string(kernel.unit) + ", out of range");
    }

  auto [dims, numDims] =
      table(offsetof(graphc_model_desc, num_bucket_dims),
            offsetof(graphc_model_desc, bucket_dims),
            sizeof(graphc_bucket_dim_desc), "the bucket dim table");
  for (int32_t i = 0; i < numDims; ++i) {
    uint64_t at = dims + i * sizeof(graphc_bucket_dim_desc);
    std::string what = "bucket dim " + std::to_string(i);
    const char *dw = what.c_str();
    auto fieldAt = [&](size_t offset) { return at + offset; };
    ArtifactBucketDim dim;
    dim.name = stringAt(
        pointerAt(fieldAt(offsetof(graphc_bucket_dim_desc, name)), dw), dw);
    int32_t numSizes = loaded<int32_t>(
        fieldAt(offsetof(graphc_bucket_dim_desc, num_sizes)), dw);
    if (numSizes < 1)
      malformed(what + " has no sizes");
    dim.sizes = dimsAt(
        pointerAt(fieldAt(offsetof(graphc_bucket_dim_desc, sizes)), dw),
        numSizes, dw);
    for (size_t s = 0; s < dim.sizes.size(); ++s)
      if (dim.sizes[s] < 1 || (s && dim.sizes[s] <= dim.sizes[s - 1]))
        malformed(what + " has sizes that are not positive and ascending");
    dim.padSafe = loaded<int32_t>(
                      fieldAt(offsetof(graphc_bucket_dim_desc, pad_safe)), dw) != 0;
    dim.splittable =
        loaded<int32_t>(fieldAt(offsetof(graphc_bucket_dim_desc, splittable)),
                        dw) != 0;
    dim.node = stringAt(
        pointerAt(fieldAt(offsetof(graphc_bucket_dim_desc, node)), dw), dw);
    dim.reason = stringAt(
        pointerAt(fieldAt(offsetof(graphc_bucket_dim_desc, reason)), dw), dw);
    uint64_t axes =
        pointerAt(fieldAt(offsetof(graphc_bucket_dim_desc, output_axes)), dw);
    checkTable(axes, int64_t(view.outputs.size()), sizeof(int32_t), dw);
    for (size_t o = 0; o < view.outputs.size(); ++o) {
      int32_t axis = loaded<int32_t>(axes + 4 * uint64_t(o), dw);
      if (axis < -1 || axis >= int32_t(view.outputs[o].dims.size()))
        malformed(what + " names axis " + std::to_string(axis) +
                  " of output " + std::to_string(o));
      dim.outputAxes.push_back(axis);
    }
    view.bucketDims.push_back(std::move(dim));
  }

  view.weightsSize = loaded<uint64_t>(GRAPHC_FIELD(weights_size), w);
  uint64_t weights = pointerAt(GRAPHC_FIELD(weights), w);
  view.weightsFile = stringAt(pointerAt(GRAPHC_FIELD(weights_file), w), w);
  view.weightsOffsetField = fileOffsetOf(GRAPHC_FIELD(weights_offset), 8, w);
  view.weightsChecksumField =
      fileOffsetOf(GRAPHC_FIELD(weights_checksum), 8, w);
  uint64_t appended = loaded<uint64_t>(GRAPHC_FIELD(weights_offset), w);
  if (weights) {
    if (weights % GRAPHC_ALIGNMENT)
      malformed("embedded weights are not " +
                std::to_string(GRAPHC_ALIGNMENT) + "-byte aligned");
    if (appended)
      malformed("weights both embedded and appended");
    view.weightsEmbedded = true;
    view.weightsFileOffset =
        fileOffsetOf(weights, view.weightsSize, "the embedded weights");
  } else if (appended) {
    if (!view.weightsFile.empty())
      malformed("weights both appended and in a side file");
    if (appended % GRAPHC_WEIGHTS_FILE_ALIGNMENT)
      malformed("appended weights at offset " + std::to_string(appended) +
                ", not a multiple of " +
                std::to_string(GRAPHC_WEIGHTS_FILE_ALIGNMENT));
    // After everything the loader maps: the weights are data, never code.
    for (const Segment &segment : segments)
      if (appended < segment.offset + segment.fileSize)
        malformed("appended weights at offset " + std::to_string(appended) +
                  " overlap a loadable segment");
    if (!rangeWithin(appended, view.weightsSize, size))
      malformed("appended weights (" + std::to_string(view.weightsSize) +
                " bytes at offset " + std::to_string(appended) +
                ") run past the end of the file (" + std::to_string(size) +
                " bytes)");
    view.weightsAppended = true;
    view.weightsFileOffset = appended;
  } else if (view.weightsSize && view.weightsFile.empty() &&
             !unplacedWeights) {
    malformed("weights neither embedded, appended nor in a side file");
  }
#undef GRAPHC_FIELD
}
} // namespace

ArtifactRead graphc::rt::readArtifact(const void *data, size_t size,
                                      bool unplacedWeights) {
  ArtifactRead result;
  Reader reader(static_cast<const unsigned char *>(data), size,
                unplacedWeights);
  auto keepChecksum = [&] {
    result.view.checksum = reader.view.checksum;
    result.view.checksumOffset = reader.view.checksumOffset;
    result.view.weightsChecksum = reader.view.weightsChecksum;
  };
  try {
    reader.read();
    result.view = std::move(reader.view);
  } catch (const ReadFailure &failure) {
    result.error = failure.error;
    result.message = failure.message;
    result.view.abiVersion = failure.abiVersion;
    keepChecksum();
  } catch (const std::bad_alloc &) {
    result.error = ArtifactError::malformed;
    result.message = "out of memory while reading the descriptor";
    keepChecksum();
  }
  return result;
}

uint64_t graphc::rt::computeArtifactChecksum(const void *data, size_t size,
                                             uint64_t checksumOffset) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  LaneHasher hasher;
  if (!rangeWithin(checksumOffset, 8, size)) {
    hasher.update(bytes, size);
    return hasher.finish();
  }
  static const unsigned char zeros[8] = {};
  hasher.update(bytes, checksumOffset);
  hasher.update(zeros, sizeof(zeros));
  hasher.update(bytes + checksumOffset + 8, size - checksumOffset - 8);
  return hasher.finish();
}

std::string graphc::rt::writeWeightsChecksum(std::vector<char> &bytes,
                                             uint64_t checksum) {
  ArtifactRead read =
      readArtifact(bytes.data(), bytes.size(), /*unplacedWeights=*/true);
  if (read.error != ArtifactError::none)
    return read.message;
  std::memcpy(bytes.data() + read.view.weightsChecksumField, &checksum,
              sizeof(checksum));
  return "";
}

std::string graphc::rt::sealWithAppendedWeights(
    std::vector<char> &head, uint64_t weightsSize,
    const std::function<void(LaneHasher &)> &hashWeights) {
  ArtifactRead read =
      readArtifact(head.data(), head.size(), /*unplacedWeights=*/true);
  if (read.error != ArtifactError::none)
    return read.message;
  const ArtifactView &view = read.view;
  if (view.weightsEmbedded || view.weightsAppended || !view.weightsFile.empty())
    return "its weights are already placed";
  if (view.weightsSize != weightsSize)
    return "its descriptor holds " + std::to_string(view.weightsSize) +
           " bytes of weights, not " + std::to_string(weightsSize);
  uint64_t offset = (uint64_t(head.size()) + GRAPHC_WEIGHTS_FILE_ALIGNMENT -
                     1) / GRAPHC_WEIGHTS_FILE_ALIGNMENT *
                    GRAPHC_WEIGHTS_FILE_ALIGNMENT;
  head.resize(offset, 0);
  std::memcpy(head.data() + view.weightsOffsetField, &offset, sizeof(offset));
  // As computeArtifactChecksum over head + weights: the checksum field of
  // a freshly linked file is zero.
  LaneHasher hasher;
  hasher.update(reinterpret_cast<const unsigned char *>(head.data()),
                head.size());
  hashWeights(hasher);
  uint64_t checksum = hasher.finish();
  std::memcpy(head.data() + view.checksumOffset, &checksum, sizeof(checksum));
  return "";
}

std::string graphc::rt::sealArtifact(std::vector<char> &bytes) {
  ArtifactRead read = readArtifact(bytes.data(), bytes.size());
  if (read.error != ArtifactError::none)
    return read.message;
  uint64_t checksum = computeArtifactChecksum(bytes.data(), bytes.size(),
                                              read.view.checksumOffset);
  std::memcpy(bytes.data() + read.view.checksumOffset, &checksum,
              sizeof(checksum));
  return "";
}

const char *graphc::rt::imageFormatName(int32_t format) {
  switch (format) {
  case GRAPHC_IMAGE_CUBIN:
    return "cubin";
  case GRAPHC_IMAGE_PTX:
    return "ptx";
  case GRAPHC_IMAGE_HOST_EMULATION:
    return "host-emulation";
  default:
    return nullptr;
  }
}

const char *graphc::rt::libraryName(int32_t library) {
  switch (library) {
  case GRAPHC_LIBRARY_NONE:
    return "";
  case GRAPHC_LIBRARY_CUBLASLT:
    return "cublaslt";
  case GRAPHC_LIBRARY_CUDNN:
    return "cudnn";
  default:
    return nullptr;
  }
}

const char *graphc::rt::epilogueName(int32_t epilogue) {
  switch (epilogue) {
  case GRAPHC_EPILOGUE_NONE:
    return "none";
  case GRAPHC_EPILOGUE_RELU:
    return "relu";
  case GRAPHC_EPILOGUE_GELU_TANH:
    return "gelu_tanh";
  case GRAPHC_EPILOGUE_SILU:
    return "silu";
  case GRAPHC_EPILOGUE_GELU_ERF:
    return "gelu_erf";
  default:
    return nullptr;
  }
}
