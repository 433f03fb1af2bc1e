//===- ArtifactReader.h - a model .so read as data --------------*- C++ -*-===//
//
// Reads the descriptor of a model .so from the file's bytes, without loading
// or executing anything: `graphc inspect` prints from it, the loader checks
// the whole-file checksum with it before dlopen, and the compiler seals new
// artifacts with it. Every offset, count and pointer is checked against the
// bytes given, so any input (truncated, corrupted or hostile) yields either a
// view or an error, never a read out of bounds.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_ARTIFACT_ARTIFACTREADER_H
#define GRAPHC_LIB_ARTIFACT_ARTIFACTREADER_H

#include "lib/Support/LaneHash.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace graphc::rt {

struct ArtifactTensor {
  std::string name;
  int32_t dtype = 0;
  /// -1 for a dynamic dim, named in dimNames ("" when unnamed).
  std::vector<int64_t> dims;
  std::vector<std::string> dimNames;
  double padValue = 0;
  /// Outputs: per dim 1 where a run decides its extent, else 0; empty when
  /// no dim is (graphc_tensor_desc.data_dependent NULL).
  std::vector<int32_t> dataDependent;
};

/// A bucketed dim (graphc_bucket_dim_desc).
struct ArtifactBucketDim {
  std::string name;
  std::vector<int64_t> sizes;
  bool padSafe = false, splittable = false;
  std::string node, reason;
  std::vector<int32_t> outputAxes;
};

/// A value a step writes (graphc_step_result_desc).
struct ArtifactStepResult {
  int32_t arg = 0;
  int32_t dtype = 0;
  std::vector<int64_t> dims;
  /// The ONNX tensor it holds; "" when none. `arg` is as written: the
  /// runtime's load check (DescriptorCheck) is what refuses one out of range.
  std::string onnxTensor;
};

/// One step of a plan (graphc_step_desc): what inspect's reports need.
struct ArtifactStep {
  int32_t kind = 0; // graphc_step_kind
  int32_t kernel = -1;
  /// The bytes a copy step moves.
  uint64_t copyBytes = 0;
  /// A loop step's body steps and bound.
  int32_t bodySteps = 0;
  int64_t maxIterations = 0;
  std::vector<ArtifactStepResult> results;
};

struct ArtifactPlan {
  std::string name;
  uint64_t arenaBytes = 0;
  uint64_t intermediateBytes = 0;
  int32_t numSteps = 0;
  /// One dims list per model input (output), in order.
  std::vector<std::vector<int64_t>> inputDims, outputDims;
  std::vector<ArtifactStep> steps;
  /// Per output, the arena offset of each dim's extent (-1 for a dim that
  /// is not data-dependent); empty for an output without data-dependent
  /// dims (graphc_plan_desc.output_extents). As written: the runtime's
  /// load check is what refuses a slot that is not one.
  std::vector<std::vector<int64_t>> outputExtentOffsets;
};

/// What a library kernel computes (graphc_gemm_desc).
struct ArtifactGemm {
  int32_t transA = 0, transB = 0;
  int64_t m = 0, n = 0, k = 0, batch = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  double alpha = 0, beta = 0;
  int32_t epilogue = 0; // graphc_gemm_epilogue
  int32_t dtype = 0, computeDtype = 0;
  int32_t aArg = -1, bArg = -1, cArg = -1, biasArg = -1, dArg = -1,
          workspaceArg = -1;
  int32_t algoRank = 0;
  int32_t tf32 = 0;
  int32_t splitK = 0; ///< 0: unsplit
  int32_t tuned = 0;  ///< from a tuning database
};

/// What a cuDNN kernel computes (graphc_conv_desc); the spatial arrays hold
/// spatialDims entries.
struct ArtifactConv {
  int32_t spatialDims = 0;
  int64_t n = 0, c = 0, k = 0, groups = 0;
  std::vector<int64_t> inSize, filterSize, outSize, padsBegin, padsEnd, strides,
      dilations;
  int32_t epilogue = 0; // graphc_gemm_epilogue
  int32_t dtype = 0, computeDtype = 0;
  int32_t tf32 = 0;
  int32_t xArg = -1, wArg = -1, biasArg = -1, zArg = -1, yArg = -1,
          workspaceArg = -1;
  int32_t engineRank = 0;
  int32_t tuned = 0; ///< from a tuning database
  /// The generated kernel that finishes Y when cuDNN runs the convolution
  /// alone, and its launch.
  bool hasEpilogueKernel = false;
  uint32_t epilogueGrid[3] = {0, 0, 0}, epilogueBlock[3] = {0, 0, 0};
  /// Every tensor but the bias has its channels last (NHWC, W KRSC).
  bool channelsLast = false;
};

/// What a cuDNN attention kernel computes (graphc_sdpa_desc).
struct ArtifactSdpa {
  int64_t batch = 0, heads = 0, kvHeads = 0, queries = 0, keys = 0, headDim = 0,
          valueDim = 0;
  double scale = 1.0;
  bool causal = false;
  int32_t dtype = 0, computeDtype = 0;
  int32_t qArg = -1, kArg = -1, vArg = -1, biasArg = -1, oArg = -1,
          workspaceArg = -1;
  int32_t engineRank = 0;
  /// The generated attention kernel's launch, run where cuDNN has no
  /// engine.
  uint32_t fallbackGrid[3] = {0, 0, 0}, fallbackBlock[3] = {0, 0, 0};
  uint32_t fallbackSharedBytes = 0;
};

struct ArtifactKernel {
  std::string name, kind, onnxNodes;
  uint64_t contentHash = 0;
  /// The cost model of one launch (graphc_kernel_desc).
  uint64_t flops = 0, bytesRead = 0, bytesWritten = 0;
  int32_t flopDtype = 0;
  /// graphc_library, and for a library kernel its GEMM (cuBLASLt) or its
  /// convolution (cuDNN).
  int32_t library = 0;
  std::optional<ArtifactGemm> gemm;
  std::optional<ArtifactConv> conv;
  std::optional<ArtifactSdpa> sdpa;
  /// cuda, generated kernels, epilogue kernels and attention fallbacks: the
  /// module unit holding its code.
  int32_t unit = 0;
};

struct ArtifactImage {
  int32_t sm = 0;
  int32_t format = 0; // graphc_image_format
  uint64_t size = 0;
  uint64_t fileOffset = 0;
  int32_t unit = 0;
};

/// The descriptor of an artifact, as read from its file.
struct ArtifactView {
  uint32_t abiVersion = 0;
  std::string producer;
  int32_t target = 0;
  std::vector<ArtifactTensor> inputs, outputs;
  std::vector<ArtifactPlan> plans;
  std::vector<ArtifactBucketDim> bucketDims;
  std::vector<ArtifactKernel> kernels;
  std::vector<ArtifactImage> images;
  /// The module units of the generated kernels (graphc_image_desc).
  int32_t numUnits = 0;
  uint64_t weightsSize = 0;
  /// Embedded weights (in a loadable segment) and appended ones (after the
  /// ELF image) lie at weightsFileOffset; otherwise they are in the side
  /// file weightsFile, relative to the .so.
  bool weightsEmbedded = false;
  bool weightsAppended = false;
  uint64_t weightsFileOffset = 0;
  std::string weightsFile;
  /// Where the weights_offset and weights_checksum fields lie in the file.
  uint64_t weightsOffsetField = 0;
  uint64_t weightsChecksumField = 0;
  uint64_t checksum = 0;
  /// Where the checksum field lies in the file.
  uint64_t checksumOffset = 0;
  uint64_t weightsChecksum = 0;
};

enum class ArtifactError {
  none,
  /// Not an ELF shared object for this machine, or one without a graphc
  /// descriptor section.
  notAnArtifact,
  /// A graphc descriptor of another ABI version (view.abiVersion is set).
  abiMismatch,
  /// A graphc descriptor that does not hold together.
  malformed,
};

struct ArtifactRead {
  ArtifactError error = ArtifactError::none;
  /// Why, when error != none; lower case, without the file's name.
  std::string message;
  /// The whole view when error == none. When malformed, only the checksum
  /// fields, and those only when checksumOffset != 0 (the descriptor was
  /// found); with abiMismatch, only abiVersion.
  ArtifactView view;
};

/// Reads the artifact whose file bytes are `data[0, size)`. Pure: no I/O,
/// no execution, allocation bounded by a small multiple of `size`. With
/// `unplacedWeights`, weights that are neither embedded, appended nor in a
/// side file are accepted: the compiler's linked file before it appends them.
ArtifactRead readArtifact(const void *data, size_t size,
                          bool unplacedWeights = false);

/// The whole-file checksum of `data[0, size)` with the 8 bytes at
/// `checksumOffset` read as zero.
uint64_t computeArtifactChecksum(const void *data, size_t size,
                                 uint64_t checksumOffset);

/// Writes `checksum` into the weights_checksum field of the linked artifact
/// `bytes` (weights placed or not). Returns "" or why it cannot.
std::string writeWeightsChecksum(std::vector<char> &bytes, uint64_t checksum);

/// Seals the linked artifact `head`, whose weights are unplaced, for
/// `weightsSize` bytes of weights to follow it: pads `head` with zeros to
/// the next GRAPHC_WEIGHTS_FILE_ALIGNMENT boundary, writes that offset into
/// its weights_offset field and the checksum of head + weights into its
/// checksum field. `hashWeights` feeds the weights, in order, to the hasher
/// (the compiler holds them in pieces, not in one buffer). The artifact is
/// `head` then the weights, written as they are. Returns "" or why it
/// cannot.
std::string
sealWithAppendedWeights(std::vector<char> &head, uint64_t weightsSize,
                        const std::function<void(LaneHasher &)> &hashWeights);

/// Computes the checksum of an artifact built with a zero checksum field
/// and writes it into `bytes`. Returns "" or why the bytes are not an
/// artifact.
std::string sealArtifact(std::vector<char> &bytes);

/// "cubin", "ptx" or "host-emulation"; null for a value that is not a
/// graphc_image_format.
const char *imageFormatName(int32_t format);

/// "cublaslt" or "cudnn" (as `graphc inspect` lists them), "" for
/// GRAPHC_LIBRARY_NONE; null for a value that is not a graphc_library.
const char *libraryName(int32_t library);

/// "none", "relu", "gelu_tanh", "silu" or "gelu_erf"; null for a value that is
/// not a graphc_gemm_epilogue.
const char *epilogueName(int32_t epilogue);

} // namespace graphc::rt

#endif
