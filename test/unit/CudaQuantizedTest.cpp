//===- CudaQuantizedTest.cpp - generated quantized kernels vs host kernels ===//
//
// graph.quantized_mat_mul and graph.quantized_conv as generated CUDA
// kernels with the epilogues quantized regions give them (cast to f32 times
// a scale, then a requantization to int8), run on the CUDA emulator and
// compared with the host kernels, the reference semantics: integer sums are
// exact and e4m3fn sums run over K in the host's order, so the results
// agree bit for bit. The same kernels compile with NVRTC for sm_80 and
// sm_90.
//
//===----------------------------------------------------------------------===//

#include "dialects/Exec/ExecOps.h"
#include "dialects/Graph/GraphDialect.h"
#include "lib/Codegen/CUDA/CudaEmitter.h"
#include "lib/Codegen/CUDA/CudaEmulation.h"
#include "lib/Codegen/CUDA/NVRTCCompiler.h"
#include "test/unit/HostKernelsTestUtil.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <string>
#include <vector>

using namespace mlir;
using namespace graphc::codegen;
namespace hkt = graphc::hk::test;

namespace {

// The emulated module's kernel table (graphc_cuda_emulation.h).
struct EmuKernel {
  const char *name;
  int (*launch)(const unsigned grid[3], const unsigned block[3],
                unsigned sharedBytes, void **params, char *error,
                size_t errorBytes);
  int numParams;
  const unsigned *paramSizes;
};

// Each kernel: the product, then its epilogue. Sizes are odd so tiles and
// windows have edges; K = 37 and 33 are no multiple of the tile.
const char *kKernels = R"mlir(
exec.kernel @qmm_dequantize matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<2x3x37xi8>, %b: tensor<19x37xui8>, %s: tensor<19xf32>):
  %0 = graph.quantized_mat_mul %a, %b {trans_b = 1 : i64} : (tensor<2x3x37xi8>, tensor<19x37xui8>) -> tensor<2x3x19xi32>
  %1 = graph.cast %0 {to = f32} : (tensor<2x3x19xi32>) -> tensor<2x3x19xf32>
  %2 = graph.mul %1, %s : (tensor<2x3x19xf32>, tensor<19xf32>) -> tensor<2x3x19xf32>
  kernel.yield %2 : tensor<2x3x19xf32>
}
exec.kernel @qmm_requantize matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<2x1x5x40xui8>, %b: tensor<1x3x40x6xi8>, %s: tensor<f32>, %bias: tensor<6xf32>, %ys: tensor<f32>, %z: tensor<i8>):
  %0 = graph.quantized_mat_mul %a, %b : (tensor<2x1x5x40xui8>, tensor<1x3x40x6xi8>) -> tensor<2x3x5x6xi32>
  %1 = graph.cast %0 {to = f32} : (tensor<2x3x5x6xi32>) -> tensor<2x3x5x6xf32>
  %2 = graph.mul %1, %s : (tensor<2x3x5x6xf32>, tensor<f32>) -> tensor<2x3x5x6xf32>
  %3 = graph.add %2, %bias : (tensor<2x3x5x6xf32>, tensor<6xf32>) -> tensor<2x3x5x6xf32>
  %4 = graph.relu %3 : (tensor<2x3x5x6xf32>) -> tensor<2x3x5x6xf32>
  %5 = graph.quantize_linear %4, %ys, %z : (tensor<2x3x5x6xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3x5x6xi8>
  kernel.yield %5 : tensor<2x3x5x6xi8>
}
exec.kernel @qmm_extremes matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<4x40xi8>, %b: tensor<40x7xi8>):
  %0 = graph.quantized_mat_mul %a, %b : (tensor<4x40xi8>, tensor<40x7xi8>) -> tensor<4x7xi32>
  kernel.yield %0 : tensor<4x7xi32>
}
exec.kernel @qmm_float8 matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<2x3x33xf8E4M3FN>, %b: tensor<1x33x5xf8E4M3FN>, %s: tensor<f32>):
  %0 = graph.quantized_mat_mul %a, %b : (tensor<2x3x33xf8E4M3FN>, tensor<1x33x5xf8E4M3FN>) -> tensor<2x3x5xf32>
  %1 = graph.mul %0, %s : (tensor<2x3x5xf32>, tensor<f32>) -> tensor<2x3x5xf32>
  kernel.yield %1 : tensor<2x3x5xf32>
}
exec.kernel @qconv_first conv attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%x: tensor<2x4x7x6xui8>, %w: tensor<6x2x3x3xi8>, %s: tensor<6x1x1xf32>):
  %0 = graph.quantized_conv %x, %w {group = 2 : i64, pads = array<i64: 1, 2, 0, 1>, strides = array<i64: 2, 1>, dilations = array<i64: 1, 2>} : (tensor<2x4x7x6xui8>, tensor<6x2x3x3xi8>) -> tensor<2x6x3x5xi32>
  %1 = graph.cast %0 {to = f32} : (tensor<2x6x3x5xi32>) -> tensor<2x6x3x5xf32>
  %2 = graph.mul %1, %s : (tensor<2x6x3x5xf32>, tensor<6x1x1xf32>) -> tensor<2x6x3x5xf32>
  kernel.yield %2 : tensor<2x6x3x5xf32>
}
exec.kernel @qconv_last conv attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%x: tensor<2x7x6x4xi8>, %w: tensor<6x3x3x2xui8>, %s: tensor<6xf32>):
  %0 = graph.quantized_conv %x, %w {group = 2 : i64, pads = array<i64: 1, 2, 0, 1>, strides = array<i64: 2, 1>, dilations = array<i64: 1, 2>, channels_last = 1 : i64} : (tensor<2x7x6x4xi8>, tensor<6x3x3x2xui8>) -> tensor<2x3x5x6xi32>
  %1 = graph.cast %0 {to = f32} : (tensor<2x3x5x6xi32>) -> tensor<2x3x5x6xf32>
  %2 = graph.mul %1, %s : (tensor<2x3x5x6xf32>, tensor<6xf32>) -> tensor<2x3x5x6xf32>
  kernel.yield %2 : tensor<2x3x5x6xf32>
}
)mlir";

const char *kNames[] = {"qmm_dequantize", "qmm_requantize", "qmm_extremes",
                        "qmm_float8",     "qconv_first",    "qconv_last"};

/// Deterministic bytes over the whole range.
std::vector<char> bytes(size_t n, int seed) {
  std::vector<char> v(n);
  uint32_t state = 2654435761u * static_cast<uint32_t>(seed + 1);
  for (char &x : v) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<char>(state >> 24);
  }
  return v;
}

hkt::Buffer pattern(int32_t dtype, std::vector<int64_t> dims, int seed) {
  hkt::Buffer b{dtype, std::move(dims), {}};
  b.bytes = bytes(static_cast<size_t>(b.count()) * gc_dtype_size(dtype), seed);
  return b;
}

/// e4m3fn codes of finite values (NaN, 0x7f and 0xff, left out: a NaN
/// product makes NaN on both sides, which bitwise comparison would not
/// hold equal), spread over the range, subnormals included.
hkt::Buffer float8Pattern(std::vector<int64_t> dims, int seed) {
  hkt::Buffer b = pattern(GC_DTYPE_F8E4M3FN, std::move(dims), seed);
  for (char &c : b.bytes)
    if ((c & 0x7f) == 0x7f)
      c = static_cast<char>(c & 0xf0);
  return b;
}

hkt::Buffer scales(std::vector<int64_t> dims, float base) {
  hkt::Buffer b{GC_DTYPE_F32, dims, {}};
  std::vector<float> values(static_cast<size_t>(b.count()));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = base * (1.0f + 0.37f * static_cast<float>(i));
  return hkt::f32(std::move(dims), values);
}

class CudaQuantizedTest : public ::testing::Test {
protected:
  CudaQuantizedTest() {
    context.loadDialect<graphc::graph::GraphDialect, graphc::exec::ExecDialect,
                        func::FuncDialect>();
  }

  /// Emits every kernel of kKernels, for SMs from `lowestSm` up, into
  /// `source`; their launches by name.
  void emit(int lowestSm) {
    std::string diagnostics;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      diagnostics += d.str() + "\n";
      return success();
    });
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kKernels, &context);
    ASSERT_TRUE(module) << diagnostics;
    source = cudaModulePreamble().str();
    for (auto kernel : module->getOps<graphc::exec::KernelOp>()) {
      FailureOr<CudaKernel> emitted = emitCudaKernel(kernel, lowestSm);
      ASSERT_TRUE(succeeded(emitted)) << diagnostics;
      source += "\n" + emitted->source;
      kernels[emitted->name] = *emitted;
    }
  }

  /// Compiles `source` for the emulator and loads it.
  void load() {
    std::vector<std::string> names(std::begin(kNames), std::end(kNames));
    llvm::Expected<CudaImage> image =
        compileCudaEmulationModule(source, names, "");
    ASSERT_TRUE(static_cast<bool>(image)) << llvm::toString(image.takeError());
    llvm::SmallString<128> path;
    int fd;
    ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("graphc-quantized-test",
                                                    "so", fd, path));
    {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
      os.write(image->data.data(), image->data.size());
    }
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    llvm::sys::fs::remove(path);
    ASSERT_NE(handle, nullptr) << dlerror();
    table = static_cast<const EmuKernel *>(dlsym(handle, "graphc_emu_kernels"));
    ASSERT_NE(table, nullptr);
  }

  void TearDown() override {
    if (handle)
      dlclose(handle);
  }

  /// Runs kernel `name` on the emulator with its emitted launch.
  void launch(const std::string &name, std::vector<hkt::Buffer *> args) {
    const EmuKernel *kernel = table;
    while (kernel->name && name != kernel->name)
      ++kernel;
    ASSERT_NE(kernel->name, nullptr) << name;
    ASSERT_EQ(kernel->numParams, int(args.size())) << name;
    std::vector<void *> pointers, params;
    for (hkt::Buffer *arg : args)
      pointers.push_back(arg->bytes.data());
    for (void *&pointer : pointers)
      params.push_back(&pointer);
    const CudaKernel &emitted = kernels.at(name);
    char error[256] = "";
    ASSERT_EQ(kernel->launch(emitted.grid, emitted.block, emitted.sharedBytes,
                             params.data(), error, sizeof error),
              0)
        << error;
  }

  /// Runs host kernel `op`, which must succeed.
  void host(const char *op, std::vector<hkt::Buffer *> inputs,
            hkt::Buffer &result, const hkt::Attrs &attrs = hkt::Attrs()) {
    std::string error;
    ASSERT_EQ(hkt::run(op, inputs, {&result}, attrs, &error), 0) << error;
  }

  /// The epilogue cast(i32 -> f32) * scale through the host kernels.
  hkt::Buffer dequantize(hkt::Buffer &product, hkt::Buffer &scale) {
    hkt::Buffer asFloat = hkt::output(GC_DTYPE_F32, product.dims);
    host("cast", {&product}, asFloat, hkt::Attrs().type("to", GC_DTYPE_F32));
    hkt::Buffer scaled = hkt::output(GC_DTYPE_F32, product.dims);
    host("mul", {&asFloat, &scale}, scaled);
    return scaled;
  }

  MLIRContext context;
  std::string source;
  std::map<std::string, CudaKernel> kernels;
  void *handle = nullptr;
  const EmuKernel *table = nullptr;
};

/// Bitwise equality of two buffers of 4-byte or 1-byte elements.
void expectSameBits(const hkt::Buffer &got, const hkt::Buffer &want,
                    const char *what) {
  ASSERT_EQ(got.bytes.size(), want.bytes.size()) << what;
  size_t element = gc_dtype_size(want.dtype);
  for (size_t i = 0; i < got.bytes.size(); i += element)
    ASSERT_EQ(std::memcmp(&got.bytes[i], &want.bytes[i], element), 0)
        << what << " element " << i / element;
}

TEST_F(CudaQuantizedTest, EmulatedKernelsMatchTheHostKernels) {
  ASSERT_NO_FATAL_FAILURE(emit(kAnySm));
  ASSERT_NO_FATAL_FAILURE(load());

  {
    // int8 x uint8 (B stored [N, K]) and a per-column scale.
    hkt::Buffer a = pattern(GC_DTYPE_I8, {2, 3, 37}, 1);
    hkt::Buffer b = pattern(GC_DTYPE_U8, {19, 37}, 2);
    hkt::Buffer s = scales({19}, 0.0625f);
    hkt::Buffer product = hkt::output(GC_DTYPE_I32, {2, 3, 19});
    host("quantized_mat_mul", {&a, &b}, product, hkt::Attrs().i("trans_b", 1));
    hkt::Buffer want = dequantize(product, s);
    hkt::Buffer got = hkt::output(GC_DTYPE_F32, {2, 3, 19});
    launch("qmm_dequantize", {&a, &b, &s, &got});
    expectSameBits(got, want, "qmm_dequantize");
  }
  {
    // uint8 x int8 with broadcast batches, then scale, bias, relu and a
    // requantization to int8.
    hkt::Buffer a = pattern(GC_DTYPE_U8, {2, 1, 5, 40}, 3);
    hkt::Buffer b = pattern(GC_DTYPE_I8, {1, 3, 40, 6}, 4);
    hkt::Buffer s = hkt::f32({}, {0.00002f});
    hkt::Buffer bias = scales({6}, 0.5f);
    hkt::Buffer ys = hkt::f32({}, {0.05f});
    hkt::Buffer z = hkt::tensor<int8_t>(GC_DTYPE_I8, {}, {-7});
    hkt::Buffer product = hkt::output(GC_DTYPE_I32, {2, 3, 5, 6});
    host("quantized_mat_mul", {&a, &b}, product);
    hkt::Buffer scaled = dequantize(product, s);
    hkt::Buffer biased = hkt::output(GC_DTYPE_F32, product.dims);
    host("add", {&scaled, &bias}, biased);
    hkt::Buffer relu = hkt::output(GC_DTYPE_F32, product.dims);
    host("relu", {&biased}, relu);
    hkt::Buffer want = hkt::output(GC_DTYPE_I8, product.dims);
    host("quantize_linear", {&relu, &ys, &z}, want);
    hkt::Buffer got = hkt::output(GC_DTYPE_I8, product.dims);
    launch("qmm_requantize", {&a, &b, &s, &bias, &ys, &z, &got});
    expectSameBits(got, want, "qmm_requantize");
    // Not all saturated or all zero point: the comparison sees values.
    std::vector<int8_t> values = want.values<int8_t>();
    EXPECT_GT(std::count_if(values.begin(), values.end(),
                            [](int8_t v) { return v != -7 && v != 127; }),
              10);
  }
  {
    // -128 * -128 over all of K, and the other extremes.
    std::vector<int8_t> aValues(4 * 40, -128), bValues(40 * 7, -128);
    for (int k = 0; k < 40; ++k) {
      aValues[1 * 40 + k] = 127;
      aValues[2 * 40 + k] = static_cast<int8_t>(k % 2 ? 127 : -128);
      bValues[k * 7 + 3] = 127;
    }
    hkt::Buffer a = hkt::tensor<int8_t>(GC_DTYPE_I8, {4, 40}, aValues);
    hkt::Buffer b = hkt::tensor<int8_t>(GC_DTYPE_I8, {40, 7}, bValues);
    hkt::Buffer want = hkt::output(GC_DTYPE_I32, {4, 7});
    host("quantized_mat_mul", {&a, &b}, want);
    EXPECT_EQ(want.values<int32_t>()[0], 40 * 16384);
    hkt::Buffer got = hkt::output(GC_DTYPE_I32, {4, 7});
    launch("qmm_extremes", {&a, &b, &got});
    expectSameBits(got, want, "qmm_extremes");
  }
  {
    // e4m3fn, B broadcast over the batch: the f32 sums agree bit for bit.
    hkt::Buffer a = float8Pattern({2, 3, 33}, 5);
    hkt::Buffer b = float8Pattern({1, 33, 5}, 6);
    hkt::Buffer s = hkt::f32({}, {0.75f});
    hkt::Buffer product = hkt::output(GC_DTYPE_F32, {2, 3, 5});
    host("quantized_mat_mul", {&a, &b}, product);
    hkt::Buffer want = hkt::output(GC_DTYPE_F32, {2, 3, 5});
    host("mul", {&product, &s}, want);
    hkt::Buffer got = hkt::output(GC_DTYPE_F32, {2, 3, 5});
    launch("qmm_float8", {&a, &b, &s, &got});
    expectSameBits(got, want, "qmm_float8");
  }
  auto convAttrs = [](hkt::Attrs &attrs) -> hkt::Attrs & {
    return attrs.i("group", 2)
        .ints("pads", {1, 2, 0, 1})
        .ints("strides", {2, 1})
        .ints("dilations", {1, 2});
  };
  {
    hkt::Buffer x = pattern(GC_DTYPE_U8, {2, 4, 7, 6}, 7);
    hkt::Buffer w = pattern(GC_DTYPE_I8, {6, 2, 3, 3}, 8);
    hkt::Buffer s = scales({6, 1, 1}, 0.01f);
    hkt::Buffer product = hkt::output(GC_DTYPE_I32, {2, 6, 3, 5});
    hkt::Attrs attrs;
    host("quantized_conv", {&x, &w}, product, convAttrs(attrs));
    hkt::Buffer want = dequantize(product, s);
    hkt::Buffer got = hkt::output(GC_DTYPE_F32, {2, 6, 3, 5});
    launch("qconv_first", {&x, &w, &s, &got});
    expectSameBits(got, want, "qconv_first");
  }
  {
    hkt::Buffer x = pattern(GC_DTYPE_I8, {2, 7, 6, 4}, 9);
    hkt::Buffer w = pattern(GC_DTYPE_U8, {6, 3, 3, 2}, 10);
    hkt::Buffer s = scales({6}, 0.01f);
    hkt::Buffer product = hkt::output(GC_DTYPE_I32, {2, 3, 5, 6});
    hkt::Attrs attrs;
    host("quantized_conv", {&x, &w}, product,
         convAttrs(attrs).i("channels_last", 1));
    hkt::Buffer want = dequantize(product, s);
    hkt::Buffer got = hkt::output(GC_DTYPE_F32, {2, 3, 5, 6});
    launch("qconv_last", {&x, &w, &s, &got});
    expectSameBits(got, want, "qconv_last");
  }
}

TEST_F(CudaQuantizedTest, KernelsCompileWithNvrtcForSm80AndSm90) {
  ASSERT_NO_FATAL_FAILURE(emit(80));
  llvm::SmallString<128> keep;
  llvm::sys::path::system_temp_directory(true, keep);
  llvm::sys::path::append(keep, "graphc-cuda-quantized-test");
  llvm::Expected<std::vector<CudaImage>> images =
      compileCudaModule(source, {90, 80}, keep);
  ASSERT_TRUE(static_cast<bool>(images)) << llvm::toString(images.takeError());
  ASSERT_EQ(images->size(), 3u);
  EXPECT_EQ((*images)[0].sm, 80);
  EXPECT_EQ((*images)[1].sm, 90);
  for (const CudaImage &image : *images)
    EXPECT_GT(image.data.size(), 64u);
}

} // namespace
