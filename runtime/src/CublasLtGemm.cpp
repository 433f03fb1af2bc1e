//===- CublasLtGemm.cpp - a library kernel's GEMM on cuBLASLt -------------===//
#include "runtime/src/CublasLtGemm.h"

#include "lib/Artifact/OnnxDtype.h"
#include "runtime/src/Dtype.h"

#include <cinttypes>
#include <cstdio>

using namespace graphc::rt;

namespace {
std::string hexPointer(cu::DevicePtr pointer) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%" PRIx64,
                static_cast<uint64_t>(pointer));
  return text;
}

/// The cuBLASLt data type of a checked GEMM's A and B (and bias).
int dataTypeOf(const graphc_gemm_desc &gemm) {
  return gemm.dtype == kFloat16        ? lt::kDataHalf
         : gemm.dtype == kBfloat16     ? lt::kDataBfloat16
         : gemm.dtype == kInt8         ? lt::kDataInt8
         : gemm.dtype == kFloat8E4M3FN ? lt::kDataFloat8E4M3
                                       : lt::kDataFloat;
}

/// The cuBLASLt data type of its C and D: for 8-bit operands the
/// accumulator's (int32, float32), else A's.
int outputTypeOf(const graphc_gemm_desc &gemm) {
  return gemm.dtype == kInt8           ? lt::kDataInt32
         : gemm.dtype == kFloat8E4M3FN ? lt::kDataFloat
                                       : dataTypeOf(gemm);
}

/// The multiple of elements an 8-bit GEMM's dims, leading dims and batch
/// strides must be for cuBLASLt: of A and B (n, k, lda, ldb, stride_a,
/// stride_b), and of C (ldc, stride_c). int8 (IMMA): 4 throughout; fp8:
/// 16 bytes each.
struct EightBitMultiples {
  int64_t operands, output;
};
EightBitMultiples multiplesOf(const graphc_gemm_desc &gemm) {
  return gemm.dtype == kInt8 ? EightBitMultiples{4, 4}
                             : EightBitMultiples{16, 4};
}

uint32_t epilogueOf(const graphc_gemm_desc &gemm) {
  uint32_t epilogue = lt::kEpilogueDefault;
  if (gemm.epilogue == GRAPHC_EPILOGUE_RELU)
    epilogue = lt::kEpilogueRelu;
  else if (gemm.epilogue == GRAPHC_EPILOGUE_GELU_TANH)
    epilogue = lt::kEpilogueGelu;
  // RELU_BIAS and GELU_BIAS are RELU and GELU with the BIAS bit.
  if (gemm.bias_arg >= 0)
    epilogue = epilogue == lt::kEpilogueDefault ? lt::kEpilogueBias
                                                : epilogue | lt::kEpilogueBias;
  return epilogue;
}
} // namespace

bool graphc::rt::cublasLtSupports(const graphc_gemm_desc &gemm,
                                  std::string &error) {
  if (isEightBitLibraryDtype(gemm.dtype, gemm.compute_dtype))
    return eightBitFormSupported(gemm, error);
  if ((gemm.dtype != kFloat && gemm.dtype != kFloat16 &&
       gemm.dtype != kBfloat16) ||
      gemm.compute_dtype != kFloat) {
    error = std::string("this runtime runs cuBLASLt GEMMs of float32, "
                        "float16 or bfloat16 accumulating in float32, or "
                        "int8 in int32 and float8e4m3fn in float32, not ") +
            graphc_dtype_name(gemm.dtype) + " accumulating in " +
            graphc_dtype_name(gemm.compute_dtype);
    return false;
  }
  if (gemm.epilogue == GRAPHC_EPILOGUE_SILU) {
    error = "cuBLASLt has no SiLU epilogue (a convolution's alone)";
    return false;
  }
  if (gemm.epilogue == GRAPHC_EPILOGUE_GELU_ERF) {
    error = "cuBLASLt has no erf GELU epilogue (its GELU is the tanh form; "
            "the erf form is a convolution's alone)";
    return false;
  }
  if (gemm.epilogue != GRAPHC_EPILOGUE_NONE &&
      gemm.epilogue != GRAPHC_EPILOGUE_RELU &&
      gemm.epilogue != GRAPHC_EPILOGUE_GELU_TANH) {
    error = "unknown GEMM epilogue " + std::to_string(gemm.epilogue);
    return false;
  }
  if (gemm.tf32 && gemm.dtype != kFloat) {
    error = std::string("tf32 products of ") + graphc_dtype_name(gemm.dtype) +
            " matrices";
    return false;
  }
  return true;
}

bool graphc::rt::eightBitFormSupported(const graphc_gemm_desc &gemm,
                                       std::string &error) {
  const std::string what =
      std::string("cuBLASLt's ") +
      (gemm.dtype == kInt8 ? "int8 (IMMA)" : "fp8") + " kernels";
  if (gemm.epilogue != GRAPHC_EPILOGUE_NONE || gemm.bias_arg >= 0 ||
      gemm.tf32) {
    error = what + " here take no epilogue, bias or tf32";
    return false;
  }
  // cuBLASLt's "TN": its A (our B) transposed, its B (our A) not.
  if (gemm.trans_a != 0 || gemm.trans_b != 1) {
    error = what + " take the \"TN\" form only: trans_a 0 and trans_b 1 "
            "(A m x k and B n x k, k contiguous in both), not trans_a " +
            std::to_string(gemm.trans_a) + " and trans_b " +
            std::to_string(gemm.trans_b);
    return false;
  }
  const EightBitMultiples multiples = multiplesOf(gemm);
  const struct {
    const char *name;
    int64_t value, multiple;
  } sizes[] = {{"n", gemm.n, multiples.operands},
               {"k", gemm.k, multiples.operands},
               {"lda", gemm.lda, multiples.operands},
               {"ldb", gemm.ldb, multiples.operands},
               {"ldc", gemm.c_arg >= 0 ? gemm.ldc : 0, multiples.output},
               {"stride_a", gemm.batch > 1 ? gemm.stride_a : 0,
                multiples.operands},
               {"stride_b", gemm.batch > 1 ? gemm.stride_b : 0,
                multiples.operands},
               {"stride_c",
                gemm.batch > 1 && gemm.c_arg >= 0 ? gemm.stride_c : 0,
                multiples.output}};
  for (const auto &size : sizes) {
    if (size.value % size.multiple == 0)
      continue;
    error = what + " need " + size.name + " a multiple of " +
            std::to_string(size.multiple) + ", not " +
            std::to_string(size.value) +
            (gemm.dtype == kInt8
                 ? " (n, k, lda, ldb, ldc and the batch strides multiples "
                   "of 4)"
                 : " (n, k, lda, ldb and the batch strides of A and B "
                   "multiples of 16, ldc and C's of 4: 16 bytes)");
    return false;
  }
  return true;
}

bool graphc::rt::cublasLtRunsOn(const graphc_gemm_desc &gemm, int32_t sm,
                                std::string &error) {
  // cuBLASLt's fp8 kernels need Ada (8.9) or newer.
  if (gemm.dtype == kFloat8E4M3FN && sm < 89) {
    error = "cuBLASLt's fp8 kernels need an SM 8.9 or newer device, and "
            "this one is sm_" +
            std::to_string(sm);
    return false;
  }
  return true;
}

graphc_code CublasLtGemm::create(const lt::Library &library, lt::Handle handle,
                                 const graphc_gemm_desc &gemm,
                                 uint64_t workspaceBytes,
                                 const GemmAlignment &alignment,
                                 std::unique_ptr<CublasLtGemm> &out,
                                 std::string &error) {
  if (!cublasLtSupports(gemm, error))
    return GRAPHC_UNIMPLEMENTED;
  std::unique_ptr<CublasLtGemm> built(
      new CublasLtGemm(library, handle, gemm, alignment));
  built->alpha = static_cast<float>(gemm.alpha);
  built->beta = gemm.c_arg >= 0 ? static_cast<float>(gemm.beta) : 0.0f;
  // int8 scales are int32 (CUDA_R_32I): alpha 1, beta 0 or 1.
  built->alphaInt = static_cast<int32_t>(gemm.alpha);
  built->betaInt = gemm.c_arg >= 0 ? static_cast<int32_t>(gemm.beta) : 0;

  lt::Status status = lt::kSuccess;
  std::string failed;
  // Records the first failing call; later calls are skipped.
  auto call = [&](const char *what, auto &&invoke) {
    if (status != lt::kSuccess)
      return;
    status = invoke();
    if (status != lt::kSuccess)
      failed = what;
  };
  auto setDesc = [&](int attribute, const auto &value) {
    call("cublasLtMatmulDescSetAttribute", [&] {
      return library.matmulDescSetAttribute(built->desc, attribute, &value,
                                            sizeof(value));
    });
  };
  auto layout = [&](lt::MatrixLayout &target, int type, int64_t rows,
                    int64_t cols, int64_t ld, int64_t stride) {
    call("cublasLtMatrixLayoutCreate", [&] {
      return library.matrixLayoutCreate(&target, type,
                                        static_cast<uint64_t>(rows),
                                        static_cast<uint64_t>(cols), ld);
    });
    // Every layout carries the batch, a broadcast operand with stride 0.
    // One matrix has no stride: C and D computed in place then have the
    // very same layout, as cuBLASLt wants.
    int32_t count = static_cast<int32_t>(gemm.batch);
    int64_t offset = gemm.batch > 1 ? stride : 0;
    call("cublasLtMatrixLayoutSetAttribute", [&] {
      return library.matrixLayoutSetAttribute(target, lt::kLayoutBatchCount,
                                              &count, sizeof(count));
    });
    call("cublasLtMatrixLayoutSetAttribute", [&] {
      return library.matrixLayoutSetAttribute(
          target, lt::kLayoutStridedBatchOffset, &offset, sizeof(offset));
    });
  };

  // Products accumulate in float32, and alpha and beta are float32,
  // whatever the matrices' type; with tf32 the tensor cores round A and B.
  // int8 products accumulate in int32, with int32 alpha and beta.
  const bool int8 = gemm.dtype == kInt8;
  call("cublasLtMatmulDescCreate", [&] {
    return library.matmulDescCreate(
        &built->desc,
        int8        ? lt::kComputeInt32
        : gemm.tf32 ? lt::kComputeFloatFastTf32
                    : lt::kComputeFloat,
        int8 ? lt::kDataInt32 : lt::kDataFloat);
  });
  // cuBLASLt's A is our B: its transpose flag is trans_b, and the other way.
  int32_t transA = gemm.trans_b ? lt::kOpT : lt::kOpN;
  int32_t transB = gemm.trans_a ? lt::kOpT : lt::kOpN;
  uint32_t epilogue = epilogueOf(gemm);
  setDesc(lt::kDescTransA, transA);
  setDesc(lt::kDescTransB, transB);
  setDesc(lt::kDescEpilogue, epilogue);
  if (gemm.bias_arg >= 0) {
    // The bias has D's type, as graphc's kernels store it.
    int32_t biasType = dataTypeOf(gemm);
    setDesc(lt::kDescBiasDataType, biasType);
    // The heuristic reads the bias pointer's alignment from its value (it
    // never dereferences it); each run sets the real pointer.
    const void *placeholder =
        reinterpret_cast<const void *>(uintptr_t(alignment.bias));
    setDesc(lt::kDescBiasPointer, placeholder);
  }
  // Row-major r x c with leading dim ld is column-major c x r: B (stored
  // k x n, or n x k transposed) is cuBLASLt's A, A (m x k, or k x m) its B,
  // C and D (m x n) its n x m.
  // 8-bit operands write the accumulator: C and D of its type.
  layout(built->ltA, dataTypeOf(gemm), gemm.trans_b ? gemm.k : gemm.n,
         gemm.trans_b ? gemm.n : gemm.k, gemm.ldb, gemm.stride_b);
  layout(built->ltB, dataTypeOf(gemm), gemm.trans_a ? gemm.m : gemm.k,
         gemm.trans_a ? gemm.k : gemm.m, gemm.lda, gemm.stride_a);
  if (gemm.c_arg >= 0)
    layout(built->ltC, outputTypeOf(gemm), gemm.n, gemm.m, gemm.ldc,
           gemm.stride_c);
  layout(built->ltD, outputTypeOf(gemm), gemm.n, gemm.m, gemm.n,
         gemm.m * gemm.n);

  lt::Preference preference = nullptr;
  call("cublasLtMatmulPreferenceCreate",
       [&] { return library.preferenceCreate(&preference); });
  auto setPreference = [&](int attribute, const auto &value) {
    call("cublasLtMatmulPreferenceSetAttribute", [&] {
      return library.preferenceSetAttribute(preference, attribute, &value,
                                            sizeof(value));
    });
  };
  setPreference(lt::kPrefMaxWorkspaceBytes, workspaceBytes);
  // Operands at offsets inside the arena or weights may be less aligned
  // than the heuristic's default assumption of 256 bytes.
  setPreference(lt::kPrefMinAlignmentA, alignment.b);
  setPreference(lt::kPrefMinAlignmentB, alignment.a);
  setPreference(lt::kPrefMinAlignmentC,
                gemm.c_arg >= 0 ? alignment.c : alignment.d);
  setPreference(lt::kPrefMinAlignmentD, alignment.d);

  // The tuned rank among the heuristic's choices; a library that offers
  // fewer for this GEMM (another GPU or version than tuning saw) runs its
  // first choice.
  lt::HeuristicResult results[GRAPHC_MAX_ALGO_RANKS] = {};
  int returned = 0;
  call("cublasLtMatmulAlgoGetHeuristic", [&] {
    lt::MatrixLayout c = built->ltC ? built->ltC : built->ltD;
    return library.algoGetHeuristic(handle, built->desc, built->ltA, built->ltB,
                                    c, built->ltD, preference,
                                    gemm.algo_rank + 1, results, &returned);
  });
  if (preference)
    library.preferenceDestroy(preference);

  std::string problem =
      "m " + std::to_string(gemm.m) + ", n " + std::to_string(gemm.n) + ", k " +
      std::to_string(gemm.k) + ", batch " + std::to_string(gemm.batch) + ", " +
      std::to_string(workspaceBytes) + "-byte workspace";
  if (status != lt::kSuccess) {
    error =
        failed + " returned " + library.describe(status) + " (" + problem + ")";
    if (failed == "cublasLtMatmulAlgoGetHeuristic")
      return GRAPHC_FAILED_PRECONDITION;
    return status == lt::kStatusAllocFailed ? GRAPHC_RESOURCE_EXHAUSTED
                                            : GRAPHC_INTERNAL;
  }
  const bool tunedRankOffered =
      returned > gemm.algo_rank && results[gemm.algo_rank].state == lt::kSuccess;
  const lt::HeuristicResult &result =
      tunedRankOffered ? results[gemm.algo_rank] : results[0];
  if (returned < 1 || result.state != lt::kSuccess) {
    error = "cuBLASLt (" + library.path + ", version " +
            std::to_string(library.version) + ") has no algorithm for " +
            problem;
    return GRAPHC_FAILED_PRECONDITION;
  }
  built->algo = result.algo;
  built->algoWorkspace = result.workspaceSize;
  built->rank = tunedRankOffered ? gemm.algo_rank : 0;
  built->wavesCount = result.wavesCount;
  int32_t offeredParts = 1;
  size_t written = 0;
  if (library.algoConfigGetAttribute(&result.algo, lt::kAlgoConfigSplitKNum,
                                     &offeredParts, sizeof(offeredParts),
                                     &written) == lt::kSuccess &&
      written == sizeof(offeredParts))
    built->heuristicSplitK = offeredParts;
  if (gemm.split_k > 1)
    built->splitAlgorithm(gemm.split_k, workspaceBytes);
  out = std::move(built);
  return GRAPHC_OK;
}

void CublasLtGemm::splitAlgorithm(int32_t parts, uint64_t workspaceBytes) {
  // Reducing in float32 in the workspace first: the same sums as the
  // unsplit algorithm's, in another order.
  for (uint32_t scheme : {lt::kReductionComputeType, lt::kReductionOutputType,
                          lt::kReductionInPlace}) {
    lt::MatmulAlgo candidate = algo;
    if (library.algoConfigSetAttribute(&candidate, lt::kAlgoConfigSplitKNum,
                                       &parts, sizeof(parts)) != lt::kSuccess ||
        library.algoConfigSetAttribute(&candidate,
                                       lt::kAlgoConfigReductionScheme, &scheme,
                                       sizeof(scheme)) != lt::kSuccess)
      continue;
    lt::HeuristicResult check{};
    if (library.algoCheck(handle, desc, ltA, ltB, ltC ? ltC : ltD, ltD,
                          &candidate, &check) != lt::kSuccess ||
        check.workspaceSize > workspaceBytes)
      continue;
    algo = candidate;
    algoWorkspace = check.workspaceSize;
    wavesCount = check.wavesCount;
    split = parts;
    return;
  }
}

CublasLtGemm::~CublasLtGemm() {
  for (lt::MatrixLayout layout : {ltA, ltB, ltC, ltD})
    if (layout)
      library.matrixLayoutDestroy(layout);
  if (desc)
    library.matmulDescDestroy(desc);
}

graphc_code CublasLtGemm::enqueue(const cu::DevicePtr *args,
                                  uint64_t workspaceBytes, cu::Stream stream,
                                  std::string &error) {
  cu::DevicePtr a = args[gemm.a_arg], b = args[gemm.b_arg],
                d = args[gemm.d_arg];
  cu::DevicePtr c = gemm.c_arg >= 0 ? args[gemm.c_arg] : d;
  cu::DevicePtr bias = gemm.bias_arg >= 0 ? args[gemm.bias_arg] : 0;
  cu::DevicePtr workspace = args[gemm.workspace_arg];
  // The algorithm was chosen for this alignment; a caller's tensor (used
  // directly without CUDA graphs) may have less.
  const struct {
    const char *name;
    cu::DevicePtr pointer;
    uint32_t alignment;
  } operands[] = {{"A", a, alignment.a},
                  {"B", b, alignment.b},
                  {"C", gemm.c_arg >= 0 ? c : 0, alignment.c},
                  {"bias", bias, alignment.bias},
                  {"D", d, alignment.d}};
  for (const auto &operand : operands) {
    if (operand.pointer % operand.alignment) {
      error = std::string("the GEMM's ") + operand.name + " at " +
              hexPointer(operand.pointer) + " is not " +
              std::to_string(operand.alignment) +
              "-byte aligned, as its cuBLASLt algorithm needs";
      return GRAPHC_INVALID_ARGUMENT;
    }
  }
  if (bias) {
    // Per call: steps of one kernel may add different biases. cuBLASLt
    // reads the attribute when the matmul is queued (or captured).
    const void *pointer = reinterpret_cast<const void *>(bias);
    lt::Status status = library.matmulDescSetAttribute(
        desc, lt::kDescBiasPointer, &pointer, sizeof(pointer));
    if (status != lt::kSuccess) {
      error = "cublasLtMatmulDescSetAttribute (bias pointer) returned " +
              library.describe(status);
      return GRAPHC_INTERNAL;
    }
  }
  // Host scalars of the scale type: int32 for int8, else float32.
  const bool int8 = gemm.dtype == kInt8;
  const void *alphaPointer = int8 ? static_cast<const void *>(&alphaInt)
                                  : static_cast<const void *>(&alpha);
  const void *betaPointer = int8 ? static_cast<const void *>(&betaInt)
                                 : static_cast<const void *>(&beta);
  lt::Status status =
      library.matmul(handle, desc, alphaPointer,
                     reinterpret_cast<const void *>(b), ltA,
                     reinterpret_cast<const void *>(a), ltB, betaPointer,
                     reinterpret_cast<const void *>(c), ltC ? ltC : ltD,
                     reinterpret_cast<void *>(d), ltD, &algo,
                     reinterpret_cast<void *>(workspace),
                     workspace ? workspaceBytes : 0, stream);
  if (status != lt::kSuccess) {
    error = "cublasLtMatmul returned " + library.describe(status);
    return GRAPHC_INTERNAL;
  }
  return GRAPHC_OK;
}
