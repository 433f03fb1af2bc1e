//===- CudaCodegenTest.cpp - CUDA emitter and NVRTC driver tests ----------===//
//
// Parses graph ops with static types, emits one kernel per op, and compiles
// the module with NVRTC for sm_80 and sm_90 (compile only: no GPU needed).
//
//===----------------------------------------------------------------------===//

#include "dialects/Exec/ExecOps.h"
#include "dialects/Graph/GraphDialect.h"
#include "dialects/Graph/GraphOps.h"
#include "lib/Codegen/CUDA/CudaEmitter.h"
#include "lib/Codegen/CUDA/CudaModule.h"
#include "lib/Codegen/CUDA/NVRTCCompiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace mlir;
using namespace graphc::codegen;

namespace {

class CudaCodegenTest : public ::testing::Test {
protected:
  CudaCodegenTest() {
    context.loadDialect<graphc::graph::GraphDialect, graphc::exec::ExecDialect,
                        func::FuncDialect>();
  }

  /// Emits every non-constant graph op of `body` (the body of a function
  /// with arguments `args`) and returns the module source; records failures.
  std::string emitModule(llvm::StringRef args, llvm::StringRef body,
                         int *numKernels = nullptr) {
    std::string text =
        ("func.func @main(" + args + ") {\n" + body + "\n  return\n}\n").str();
    std::string diagnostics;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      diagnostics += d.str() + "\n";
      return success();
    });
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module) << "cannot parse:\n" << text << diagnostics;
    if (!module)
      return "";
    std::string source = cudaModulePreamble().str();
    int count = 0;
    module->walk([&](Operation *op) {
      if (op->getDialect()->getNamespace() != "graph" ||
          op->getName().getStringRef() == "graph.constant")
        return;
      std::string name = "k" + std::to_string(count++) + "_" +
                         op->getName().getStringRef().drop_front(6).str();
      FailureOr<CudaKernel> kernel = emitCudaKernel(op, name);
      EXPECT_TRUE(succeeded(kernel)) << diagnostics;
      if (failed(kernel))
        return;
      EXPECT_EQ(kernel->name, name);
      EXPECT_GE(kernel->grid[0], 1u);
      EXPECT_GE(kernel->block[0] * kernel->block[1] * kernel->block[2], 1u);
      EXPECT_NE(kernel->source.find("extern \"C\" __global__"),
                std::string::npos);
      source += "\n" + kernel->source;
    });
    if (numKernels)
      *numKernels = count;
    return source;
  }

  /// Compiles `source` for sm_80 and sm_90 and checks the images.
  void compileAndCheck(const std::string &source) {
    llvm::Expected<std::vector<CudaImage>> images =
        compileCudaModule(source, {90, 80}, keepDir());
    ASSERT_TRUE(static_cast<bool>(images))
        << llvm::toString(images.takeError());
    ASSERT_EQ(images->size(), 3u);
    EXPECT_EQ((*images)[0].sm, 80);
    EXPECT_EQ((*images)[0].format, ImageFormat::cubin);
    EXPECT_EQ((*images)[1].sm, 90);
    EXPECT_EQ((*images)[1].format, ImageFormat::cubin);
    EXPECT_EQ((*images)[2].sm, 90);
    EXPECT_EQ((*images)[2].format, ImageFormat::ptx);
    for (const CudaImage &image : *images)
      EXPECT_GT(image.data.size(), 64u);
  }

  std::string keepDir() {
    llvm::SmallString<128> dir;
    llvm::sys::path::system_temp_directory(true, dir);
    llvm::sys::path::append(dir, "graphc-cuda-codegen-test");
    return std::string(dir);
  }

  void emitAndCompile(llvm::StringRef args, llvm::StringRef body,
                      int expectedKernels) {
    int count = 0;
    std::string source = emitModule(args, body, &count);
    EXPECT_EQ(count, expectedKernels);
    if (::testing::Test::HasFailure())
      return;
    compileAndCheck(source);
  }

  MLIRContext context;
};

TEST_F(CudaCodegenTest, UnaryElementwise) {
  std::string body;
  for (const char *op :
       {"abs",        "neg",    "exp",        "log",     "sqrt",
        "reciprocal", "relu",   "leaky_relu", "sigmoid", "hard_sigmoid",
        "hard_swish", "tanh",   "erf",        "gelu",    "softplus",
        "softsign",   "elu",    "selu",       "celu",    "thresholded_relu",
        "mish",       "shrink", "floor",      "ceil",    "round",
        "sign",       "sin",    "cos",        "tan",     "asin",
        "acos",       "atan",   "sinh",       "cosh",    "asinh",
        "acosh",      "atanh",  "identity"})
    body += std::string("  %") + op + " = graph." + op +
            " %x : (tensor<2x3xf16>) -> tensor<2x3xf16>\n";
  body += R"(
  %g = graph.gelu %y {approximate = "tanh"} : (tensor<5xf32>) -> tensor<5xf32>
  %ai = graph.abs %i : (tensor<7xi8>) -> tensor<7xi8>
  %ni = graph.neg %i : (tensor<7xi8>) -> tensor<7xi8>
  %not = graph.not %b : (tensor<4xi1>) -> tensor<4xi1>
  %bn = graph.bitwise_not %u : (tensor<4xui8>) -> tensor<4xui8>
  %nan = graph.is_nan %y : (tensor<5xf32>) -> tensor<5xi1>
  %inf = graph.is_inf %y {detect_negative = 0 : i64} : (tensor<5xf32>) -> tensor<5xi1>
  %d = graph.sqrt %z : (tensor<3xf64>) -> tensor<3xf64>
  %bf = graph.exp %w : (tensor<3xbf16>) -> tensor<3xbf16>
  %c1 = graph.cast %x {to = bf16} : (tensor<2x3xf16>) -> tensor<2x3xbf16>
  %c2 = graph.cast %y {to = i64} : (tensor<5xf32>) -> tensor<5xi64>
  %c3 = graph.cast %i {to = i1} : (tensor<7xi8>) -> tensor<7xi1>
  %c4 = graph.cast %b {to = f16} : (tensor<4xi1>) -> tensor<4xf16>
  %c5 = graph.cast %z {to = ui16} : (tensor<3xf64>) -> tensor<3xui16>)";
  emitAndCompile("%x: tensor<2x3xf16>, %y: tensor<5xf32>, %i: tensor<7xi8>, "
                 "%b: tensor<4xi1>, %u: tensor<4xui8>, %z: tensor<3xf64>, "
                 "%w: tensor<3xbf16>",
                 body, 38 + 14);
}

TEST_F(CudaCodegenTest, BroadcastingAndVariadic) {
  emitAndCompile("%a: tensor<2x3x4xf32>, %b: tensor<3x1xf32>, %c: tensor<f32>, "
                 "%i: tensor<2x3xi32>, %j: tensor<3xi32>, %p: tensor<4xi1>, "
                 "%q: tensor<4xi1>, %u: tensor<4xui8>, %h: tensor<4xf16>",
                 R"(
  %0 = graph.add %a, %b : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %1 = graph.sub %a, %c : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %2 = graph.mul %b, %a : (tensor<3x1xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %3 = graph.div %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %4 = graph.pow %a, %b : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %5 = graph.pow %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %6 = graph.mod %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %7 = graph.mod %a, %b {fmod = 1 : i64} : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %8 = graph.prelu %a, %b : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %9 = graph.equal %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  %10 = graph.less %a, %b : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xi1>
  %11 = graph.greater_or_equal %h, %h : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xi1>
  %12 = graph.and %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %13 = graph.xor %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %14 = graph.bit_shift %u, %u {direction = "LEFT"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %15 = graph.bitwise_and %u, %u : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %16 = graph.where %p, %h, %h : (tensor<4xi1>, tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %17 = graph.sum %a, %b, %c : (tensor<2x3x4xf32>, tensor<3x1xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %18 = graph.mean %a, %b : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %19 = graph.max %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %20 = graph.min %h, %h, %h : (tensor<4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %21 = graph.clip %a, %c, %c {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3x4xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3x4xf32>
  %22 = graph.clip %i {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xi32>) -> tensor<2x3xi32>)",
                 23);
}

TEST_F(CudaCodegenTest, DataMovement) {
  emitAndCompile(
      "%x: tensor<2x3x4xf32>, %h: tensor<1x8x2x2xf16>, %idx: tensor<2x2xi64>, "
      "%ind: tensor<2x3x4xi32>, %nd: tensor<2x1xi64>, %upd: tensor<2x3x4xf32>, "
      "%ndupd: tensor<2x3x4xf32>, %cv: tensor<f32>, %lens: tensor<3xi64>, "
      "%oh: tensor<3xi64>, %ohv: tensor<2xf32>, %s: tensor<i64>, "
      "%d: tensor<i64>",
      R"(
  %shape = graph.constant {value = dense<[6, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = graph.reshape %x, %shape : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %1 = graph.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %st = graph.constant {value = dense<[1, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %en = graph.constant {value = dense<[3, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  %ax = graph.constant {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %sp = graph.constant {value = dense<[1, -2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %2 = graph.slice %x, %st, %en, %ax, %sp {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<2x3x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x2x2xf32>
  %3 = graph.gather %x, %idx {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x2xi64>) -> tensor<2x2x2x4xf32>
  %4 = graph.gather_elements %x, %ind {axis = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xi32>) -> tensor<2x3x4xf32>
  %5 = graph.gather_nd %x, %nd : (tensor<2x3x4xf32>, tensor<2x1xi64>) -> tensor<2x3x4xf32>
  %6 = graph.scatter_elements %x, %ind, %upd {axis = 1 : i64, reduction = "add"} : (tensor<2x3x4xf32>, tensor<2x3x4xi32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %7 = graph.scatter_nd %x, %nd, %ndupd {reduction = "max"} : (tensor<2x3x4xf32>, tensor<2x1xi64>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %8 = graph.concat %x, %upd {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
  %9:2 = graph.split %x {axis = 2 : i64, num_outputs = 2 : i64} : (tensor<2x3x4xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>)
  %pads = graph.constant {value = dense<[0, 1, 2, 0, 1, 1]> : tensor<6xi64>} : () -> tensor<6xi64>
  %10 = graph.pad %x, %pads, %cv {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x3x4xf32>, tensor<6xi64>, tensor<f32>) -> tensor<2x5x7xf32>
  %11 = graph.pad %x, %pads {mode = "reflect", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<2x3x4xf32>, tensor<6xi64>) -> tensor<2x5x7xf32>
  %12 = graph.pad %x, %pads {mode = "edge", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<2x3x4xf32>, tensor<6xi64>) -> tensor<2x5x7xf32>
  %13 = graph.pad %x, %pads {mode = "wrap", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<2x3x4xf32>, tensor<6xi64>) -> tensor<2x5x7xf32>
  %eshape = graph.constant {value = dense<[2, 2, 3, 4]> : tensor<4xi64>} : () -> tensor<4xi64>
  %14 = graph.expand %x, %eshape : (tensor<2x3x4xf32>, tensor<4xi64>) -> tensor<2x2x3x4xf32>
  %reps = graph.constant {value = dense<[1, 2, 2]> : tensor<3xi64>} : () -> tensor<3xi64>
  %15 = graph.tile %x, %reps : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x6x8xf32>
  %16 = graph.depth_to_space %h {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x2xf16>) -> tensor<1x2x4x4xf16>
  %17 = graph.space_to_depth %h {blocksize = 2 : i64} : (tensor<1x8x2x2xf16>) -> tensor<1x32x1x1xf16>
  %18 = graph.trilu %x, %s {upper = 0 : i64} : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x3x4xf32>
  %19 = graph.one_hot %oh, %d, %ohv {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<5x3xf32>
  %20 = graph.eye_like %0 {k = 1 : i64} : (tensor<6x4xf32>) -> tensor<6x4xf32>
  %21 = graph.range %s, %s, %s : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<10xi64>
  %22 = graph.reverse_sequence %x, %lens {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %23 = graph.shape %x {start = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2xi64>
  %24 = graph.size %x : (tensor<2x3x4xf32>) -> tensor<i64>
  %25 = graph.constant_of_shape %shape {value = dense<7> : tensor<1xi32>} : (tensor<2xi64>) -> tensor<6x4xi32>
  %26 = graph.flatten %x {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %sc = graph.constant {value = dense<[1.0, 1.0, 2.0, 1.5]> : tensor<4xf32>} : () -> tensor<4xf32>
  %27 = graph.resize %h, %sc {mode = "linear", operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x8x2x2xf16>, tensor<4xf32>) -> tensor<1x8x4x3xf16>
  %28 = graph.resize %h, %sc {mode = "nearest", coordinate_transformation_mode = "asymmetric", operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x8x2x2xf16>, tensor<4xf32>) -> tensor<1x8x4x3xf16>
  %29 = graph.resize %h, %sc {mode = "cubic", exclude_outside = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x8x2x2xf16>, tensor<4xf32>) -> tensor<1x8x4x3xf16>)",
      30);
}

TEST_F(CudaCodegenTest, GridSampleAndAffineGrid) {
  emitAndCompile("%x: tensor<2x3x5x6xf16>, %g: tensor<2x4x7x2xf32>, %v: "
                 "tensor<1x2x3x4x5xbf16>, %g3: tensor<1x2x2x3x3xf64>, %t: "
                 "tensor<2x2x3xf32>, %t3: tensor<1x3x4xf16>",
                 R"(
  %0 = graph.grid_sample %x, %g : (tensor<2x3x5x6xf16>, tensor<2x4x7x2xf32>) -> tensor<2x3x4x7xf16>
  %1 = graph.grid_sample %x, %g {mode = "nearest", padding_mode = "reflection"} : (tensor<2x3x5x6xf16>, tensor<2x4x7x2xf32>) -> tensor<2x3x4x7xf16>
  %2 = graph.grid_sample %x, %g {mode = "cubic", padding_mode = "border", align_corners = 1 : i64} : (tensor<2x3x5x6xf16>, tensor<2x4x7x2xf32>) -> tensor<2x3x4x7xf16>
  %3 = graph.grid_sample %v, %g3 {mode = "linear", padding_mode = "reflection", align_corners = 1 : i64} : (tensor<1x2x3x4x5xbf16>, tensor<1x2x2x3x3xf64>) -> tensor<1x2x2x2x3xbf16>
  %4 = graph.grid_sample %v, %g3 {mode = "cubic"} : (tensor<1x2x3x4x5xbf16>, tensor<1x2x2x3x3xf64>) -> tensor<1x2x2x2x3xbf16>
  %s = graph.constant {value = dense<[2, 1, 4, 5]> : tensor<4xi64>} : () -> tensor<4xi64>
  %5 = graph.affine_grid %t, %s : (tensor<2x2x3xf32>, tensor<4xi64>) -> tensor<2x4x5x2xf32>
  %s3 = graph.constant {value = dense<[1, 1, 2, 3, 4]> : tensor<5xi64>} : () -> tensor<5xi64>
  %6 = graph.affine_grid %t3, %s3 {align_corners = 1 : i64} : (tensor<1x3x4xf16>, tensor<5xi64>) -> tensor<1x2x3x4x3xf16>)",
                 7);
}

TEST_F(CudaCodegenTest, RoiAlign) {
  emitAndCompile("%x: tensor<2x3x5x6xf16>, %r: tensor<4x4xf32>, %b: "
                 "tensor<4xi64>, %xd: tensor<1x2x4x4xf64>, %rd: "
                 "tensor<4x4xf64>, %xb: tensor<2x3x5x6xbf16>",
                 R"(
  %0 = graph.roi_align %x, %r, %b {output_height = 2 : i64, output_width = 3 : i64} : (tensor<2x3x5x6xf16>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x2x3xf16>
  %1 = graph.roi_align %x, %r, %b {mode = "max", sampling_ratio = 2 : i64, coordinate_transformation_mode = "output_half_pixel", spatial_scale = 0.5 : f32} : (tensor<2x3x5x6xf16>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x1x1xf16>
  %2 = graph.roi_align %xd, %rd, %b {mode = "max", output_height = 3 : i64, output_width = 2 : i64} : (tensor<1x2x4x4xf64>, tensor<4x4xf64>, tensor<4xi64>) -> tensor<4x2x3x2xf64>
  %3 = graph.roi_align %xb, %r, %b {sampling_ratio = 3 : i64} : (tensor<2x3x5x6xbf16>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x1x1xbf16>)",
                 4);
}

TEST_F(CudaCodegenTest, ImageBlocksUnpoolingAndDeterminants) {
  emitAndCompile(
      "%x: tensor<2x8x12xf32>, %h: tensor<1x4x9xf16>, %m: tensor<2x3x3x3xf32>, "
      "%mh: tensor<4x4xf16>, %u: tensor<1x2x2x2xf32>, %ui: tensor<1x2x2x2xi64>",
      R"(
  %image = graph.constant {value = dense<[4, 5]> : tensor<2xi64>} : () -> tensor<2xi64>
  %square = graph.constant {value = dense<5> : tensor<2xi64>} : () -> tensor<2xi64>
  %block = graph.constant {value = dense<2> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = graph.col2im %x, %image, %block : (tensor<2x8x12xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x2x4x5xf32>
  %1 = graph.col2im %h, %square, %block {dilations = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x9xf16>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x1x5x5xf16>
  %2 = graph.det %m : (tensor<2x3x3x3xf32>) -> tensor<2x3xf32>
  %3 = graph.det %mh : (tensor<4x4xf16>) -> tensor<f16>
  %4 = graph.max_unpool %u, %ui {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) -> tensor<1x2x4x4xf32>
  %oshape = graph.constant {value = dense<[1, 2, 5, 5]> : tensor<4xi64>} : () -> tensor<4xi64>
  %5 = graph.max_unpool %u, %ui, %oshape {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>, tensor<4xi64>) -> tensor<1x2x5x5xf32>
  %6:2 = graph.max_pool_with_indices %u {kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 0, 0, 1>} : (tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  %7:2 = graph.max_pool_with_indices %h {kernel_shape = array<i64: 3>, storage_order = 1 : i64} : (tensor<1x4x9xf16>) -> (tensor<1x4x7xf16>, tensor<1x4x7xi64>))",
      8);
}

TEST_F(CudaCodegenTest, ReductionsAndSoftmax) {
  emitAndCompile(
      "%x: tensor<4x6x8xf32>, %h: tensor<3x300xf16>, %i: tensor<5x7xi8>, "
      "%k: tensor<1xi64>",
      R"(
  %ax = graph.constant {value = dense<[0, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %last = graph.constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = graph.reduce_sum %x, %ax : (tensor<4x6x8xf32>, tensor<2xi64>) -> tensor<1x6x1xf32>
  %1 = graph.reduce_mean %x, %last {keepdims = 0 : i64} : (tensor<4x6x8xf32>, tensor<1xi64>) -> tensor<4x6xf32>
  %2 = graph.reduce_max %h, %last : (tensor<3x300xf16>, tensor<1xi64>) -> tensor<3x1xf16>
  %3 = graph.reduce_min %i, %last : (tensor<5x7xi8>, tensor<1xi64>) -> tensor<5x1xi8>
  %4 = graph.reduce_prod %x, %ax : (tensor<4x6x8xf32>, tensor<2xi64>) -> tensor<1x6x1xf32>
  %5 = graph.reduce_l1 %x, %ax : (tensor<4x6x8xf32>, tensor<2xi64>) -> tensor<1x6x1xf32>
  %6 = graph.reduce_l2 %h, %last : (tensor<3x300xf16>, tensor<1xi64>) -> tensor<3x1xf16>
  %7 = graph.reduce_log_sum %x, %ax : (tensor<4x6x8xf32>, tensor<2xi64>) -> tensor<1x6x1xf32>
  %8 = graph.reduce_log_sum_exp %x, %ax : (tensor<4x6x8xf32>, tensor<2xi64>) -> tensor<1x6x1xf32>
  %9 = graph.reduce_sum_square %i, %last : (tensor<5x7xi8>, tensor<1xi64>) -> tensor<5x1xi8>
  %10 = graph.reduce_sum %x {keepdims = 0 : i64} : (tensor<4x6x8xf32>) -> tensor<f32>
  %11 = graph.arg_max %x {axis = 1 : i64} : (tensor<4x6x8xf32>) -> tensor<4x1x8xi64>
  %12 = graph.arg_min %h {axis = 1 : i64, keepdims = 0 : i64, select_last_index = 1 : i64} : (tensor<3x300xf16>) -> tensor<3xi64>
  %13 = graph.softmax %x {axis = 1 : i64} : (tensor<4x6x8xf32>) -> tensor<4x6x8xf32>
  %14 = graph.log_softmax %h : (tensor<3x300xf16>) -> tensor<3x300xf16>
  %15 = graph.hardmax %x : (tensor<4x6x8xf32>) -> tensor<4x6x8xf32>
  %one = graph.constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %16 = graph.cum_sum %x, %one {exclusive = 1 : i64, reverse = 1 : i64} : (tensor<4x6x8xf32>, tensor<i64>) -> tensor<4x6x8xf32>
  %17:2 = graph.top_k %x, %k {axis = 1 : i64} : (tensor<4x6x8xf32>, tensor<1xi64>) -> (tensor<4x3x8xf32>, tensor<4x3x8xi64>)
  %18:2 = graph.top_k %i, %k {largest = 0 : i64} : (tensor<5x7xi8>, tensor<1xi64>) -> (tensor<5x2xi8>, tensor<5x2xi64>))",
      19);
}

TEST_F(CudaCodegenTest, NormalizationConvPoolLinearAlgebra) {
  emitAndCompile(
      "%x: tensor<2x4x5x5xf32>, %c: tensor<4xf32>, %w: tensor<6x2x3x3xf32>, "
      "%bias: tensor<6xf32>, %wt: tensor<4x3x2x2xf32>, %a: "
      "tensor<2x3x5x7xf16>, "
      "%b: tensor<7x4xf16>, %g: tensor<5x7xf32>, %gb: tensor<4x7xf32>, "
      "%gc: tensor<4xf32>, %v: tensor<7xf32>, %l: tensor<2x5x8xbf16>, "
      "%ls: tensor<8xbf16>, %s55: tensor<5x5xf32>",
      R"(
  %0 = graph.batch_normalization %x, %c, %c, %c, %c : (tensor<2x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5x5xf32>
  %1 = graph.instance_normalization %x, %c, %c : (tensor<2x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5x5xf32>
  %2 = graph.layer_normalization %l, %ls, %ls : (tensor<2x5x8xbf16>, tensor<8xbf16>, tensor<8xbf16>) -> tensor<2x5x8xbf16>
  %3 = graph.layer_normalization %x, %s55 {axis = 1 : i64} : (tensor<2x4x5x5xf32>, tensor<5x5xf32>) -> tensor<2x4x5x5xf32>
  %4 = graph.group_normalization %x, %c, %c {num_groups = 2 : i64} : (tensor<2x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5x5xf32>
  %5 = graph.lp_normalization %x {axis = 1 : i64, p = 1 : i64} : (tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
  %6 = graph.mean_variance_normalization %x : (tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
  %7 = graph.lrn %x {size = 3 : i64} : (tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
  %8 = graph.conv %x, %w, %bias {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x4x5x5xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x3x3xf32>
  %9 = graph.conv %x, %w {group = 2 : i64, auto_pad = "SAME_UPPER", dilations = array<i64: 2, 2>} : (tensor<2x4x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x5x5xf32>
  %10 = graph.conv_transpose %x, %wt {strides = array<i64: 2, 2>} : (tensor<2x4x5x5xf32>, tensor<4x3x2x2xf32>) -> tensor<2x3x10x10xf32>
  %11 = graph.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x4x5x5xf32>) -> tensor<2x4x3x3xf32>
  %12 = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, count_include_pad = 1 : i64, pads = array<i64: 1, 1, 0, 0>} : (tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
  %13 = graph.lp_pool %x {kernel_shape = array<i64: 2, 2>, p = 3 : i64} : (tensor<2x4x5x5xf32>) -> tensor<2x4x4x4xf32>
  %14 = graph.global_average_pool %x : (tensor<2x4x5x5xf32>) -> tensor<2x4x1x1xf32>
  %15 = graph.global_max_pool %x : (tensor<2x4x5x5xf32>) -> tensor<2x4x1x1xf32>
  %16 = graph.global_lp_pool %x : (tensor<2x4x5x5xf32>) -> tensor<2x4x1x1xf32>
  %17 = graph.mat_mul %a, %b : (tensor<2x3x5x7xf16>, tensor<7x4xf16>) -> tensor<2x3x5x4xf16>
  %18 = graph.mat_mul %g, %v : (tensor<5x7xf32>, tensor<7xf32>) -> tensor<5xf32>
  %19 = graph.gemm %g, %gb, %gc {transB = 1 : i64, alpha = 2.0 : f32} : (tensor<5x7xf32>, tensor<4x7xf32>, tensor<4xf32>) -> tensor<5x4xf32>
  %20 = graph.einsum %a, %b {equation = "...ij,jk->...ik"} : (tensor<2x3x5x7xf16>, tensor<7x4xf16>) -> tensor<2x3x5x4xf16>
  %21 = graph.einsum %g {equation = "ij->"} : (tensor<5x7xf32>) -> tensor<f32>)",
      22);
}

TEST_F(CudaCodegenTest, KernelTextIsSpecialised) {
  std::string source = emitModule(
      "%a: tensor<2x3xf32>, %b: tensor<3xf32>",
      "  %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> "
      "tensor<2x3xf32> loc(\"node_add\")");
  EXPECT_NE(source.find("// graph.add (ONNX node 'node_add')"),
            std::string::npos);
  EXPECT_NE(source.find("k0_add("), std::string::npos);
  EXPECT_NE(source.find("i < 6LL"), std::string::npos) << source;
  EXPECT_NE(source.find("in1[o1]"), std::string::npos) << source;
}

/// Emits every exec.kernel of the module `text`; records failures in
/// `diagnostics`.
static std::string emitKernels(MLIRContext &context, llvm::StringRef text,
                               std::string &diagnostics, int lowestSm = 0) {
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return "";
  std::string source = cudaModulePreamble().str();
  for (auto kernel : module->getOps<graphc::exec::KernelOp>()) {
    FailureOr<CudaKernel> emitted = emitCudaKernel(kernel, lowestSm);
    if (failed(emitted))
      return "";
    source += "\n" + emitted->source;
  }
  return source;
}

TEST_F(CudaCodegenTest, ModuleLaunchTable) {
  // Codegen's result: a launch per kernel with code, as the emitter computes
  // it, in module order with the unit holding it; a cuDNN convolution
  // without an epilogue has no code and so no launch, one with an epilogue
  // the launch of the kernel finishing it.
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
exec.kernel @relu_0 pointwise attributes {hash = "0123456789abcdef", onnx_nodes = [], schedule = #kernel.schedule<block_size = 128>} {
^bb0(%x: tensor<1000xf32>):
  %r = graph.relu %x : (tensor<1000xf32>) -> tensor<1000xf32>
  kernel.yield %r : tensor<1000xf32>
}
exec.kernel @conv_1 conv attributes {hash = "1111111111111111", onnx_nodes = [], schedule = #kernel.schedule<>, library = #kernel.library<cudnn>, conv = #exec.conv<n = 1, c = 2, k = 4, groups = 1, in_size = [6], filter_size = [1], out_size = [6], pads_begin = [0], pads_end = [0], strides = [1], dilations = [1], epilogue = none, x = 0, w = 1, bias = -1, z = -1, y = 2, channels_last = false>} {
^bb0(%x: tensor<1x2x6xf32>, %w: tensor<4x2x1xf32>):
  %0 = graph.conv %x, %w : (tensor<1x2x6xf32>, tensor<4x2x1xf32>) -> tensor<1x4x6xf32>
  kernel.yield %0 : tensor<1x4x6xf32>
}
exec.kernel @conv_relu_2 conv attributes {hash = "2222222222222222", onnx_nodes = [], schedule = #kernel.schedule<workspace_bytes = 256>, library = #kernel.library<cudnn>, conv = #exec.conv<n = 1, c = 2, k = 4, groups = 2, in_size = [6, 6], filter_size = [3, 3], out_size = [3, 3], pads_begin = [1, 1], pads_end = [0, 0], strides = [2, 2], dilations = [1, 1], epilogue = relu, x = 0, w = 1, bias = 2, z = -1, y = 3, channels_last = false>} {
^bb0(%x: tensor<1x2x6x6xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<4xf32>):
  %0 = graph.conv %x, %w, %b {group = 2 : i64, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %1 = graph.relu %0 : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  kernel.yield %1 : tensor<1x4x3x3xf32>
}
exec.kernel @gather_3 layout attributes {hash = "3333333333333333", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%d: tensor<5x4xf32>, %i: tensor<3xi64>):
  %0 = graph.gather %d, %i {axis = 0 : i64} : (tensor<5x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  kernel.yield %0 : tensor<3x4xf32>
}
)mlir",
                                                             &context);
  ASSERT_TRUE(module) << diagnostics;
  int calls = 0;
  auto progress = [&](int64_t, int64_t total) {
    ++calls;
    EXPECT_EQ(total, 3);
  };
  llvm::Expected<CudaModule> generated =
      generateCudaModule(*module, kAnySm, /*singleUnit=*/false,
                         /*wholeSource=*/false, progress);
  ASSERT_TRUE(bool(generated))
      << llvm::toString(generated.takeError()) << diagnostics;
  EXPECT_EQ(calls, 4); // before each kernel and once done
  EXPECT_TRUE(generated->source.empty());
  ASSERT_FALSE(generated->units.empty());
  llvm::ArrayRef<std::pair<std::string, CudaLaunch>> entries =
      generated->launches.entries();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].first, "relu_0");
  EXPECT_EQ(entries[1].first, "conv_relu_2");
  EXPECT_EQ(entries[2].first, "gather_3");
  EXPECT_EQ(generated->launches.lookup("conv_1"), nullptr);
  int32_t lastUnit = 0;
  for (auto [i, kernel] :
       llvm::enumerate(module->getOps<graphc::exec::KernelOp>())) {
    const CudaLaunch *launch = generated->launches.lookup(kernel.getSymName());
    if (!graphc::exec::hasDeviceCode(kernel)) {
      EXPECT_EQ(launch, nullptr);
      continue;
    }
    ASSERT_NE(launch, nullptr) << kernel.getSymName().str();
    FailureOr<CudaKernel> emitted = emitCudaKernel(kernel, kAnySm);
    ASSERT_TRUE(succeeded(emitted));
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ(launch->grid[d], emitted->grid[d]);
      EXPECT_EQ(launch->block[d], emitted->block[d]);
    }
    EXPECT_EQ(launch->sharedBytes, emitted->sharedBytes);
    EXPECT_EQ(launch->reportsErrors, emitted->reportsErrors);
    // Units hold consecutive kernels, each its own code.
    EXPECT_GE(launch->unit, lastUnit);
    ASSERT_LT(size_t(launch->unit), generated->units.size());
    EXPECT_NE(generated->units[launch->unit].find(emitted->source),
              std::string::npos);
    lastUnit = launch->unit;
  }
  // The gather checks the indices it reads, the relu nothing.
  EXPECT_FALSE(generated->launches.lookup("relu_0")->reportsErrors);
  EXPECT_TRUE(generated->launches.lookup("gather_3")->reportsErrors);

  // One unit and the whole source, as the emulator and --emit source take.
  llvm::Expected<CudaModule> single =
      generateCudaModule(*module, kAnySm, /*singleUnit=*/true,
                         /*wholeSource=*/true, [](int64_t, int64_t) {});
  ASSERT_TRUE(bool(single)) << llvm::toString(single.takeError());
  ASSERT_EQ(single->units.size(), 1u);
  EXPECT_EQ(single->source, single->units[0]);
  for (const auto &[name, launch] : single->launches.entries())
    EXPECT_EQ(launch.unit, 0) << name;
}

TEST_F(CudaCodegenTest, PointwiseFusionIsOneLoop) {
  // f16 intermediates round like stored ones; inputs broadcast; a splat
  // constant is a literal, a larger one is read through its kernel input.
  std::string diagnostics;
  std::string source = emitKernels(context, R"mlir(
exec.kernel @add_mul_relu_3 pointwise attributes {hash = "0000000000000000", onnx_nodes = ["n_add", "n_mul", "n_relu"], schedule = #kernel.schedule<block_size = 128>} {
^bb0(%a: tensor<2x3xf16>, %b: tensor<3xf16>, %c: tensor<3xf16>):
  %half = graph.constant {value = dense<0.5> : tensor<f16>} : () -> tensor<f16>
  %w = graph.constant {exec.argument = 2 : i64, value = dense<[1.0, 2.0, 3.0]> : tensor<3xf16>} : () -> tensor<3xf16>
  %0 = graph.add %a, %b : (tensor<2x3xf16>, tensor<3xf16>) -> tensor<2x3xf16>
  %1 = graph.mul %0, %half : (tensor<2x3xf16>, tensor<f16>) -> tensor<2x3xf16>
  %2 = graph.sub %1, %w : (tensor<2x3xf16>, tensor<3xf16>) -> tensor<2x3xf16>
  %3 = graph.relu %2 : (tensor<2x3xf16>) -> tensor<2x3xf16>
  kernel.yield %3 : tensor<2x3xf16>
})mlir", diagnostics);
  ASSERT_FALSE(source.empty()) << diagnostics;
  std::string kernel = source.substr(cudaModulePreamble().size());
  for (const char *part :
       {"// add_mul_relu_3: graph.add, graph.mul, graph.sub, graph.relu (ONNX "
        "nodes 'n_add', 'n_mul', 'n_relu')",
        "__launch_bounds__(128) add_mul_relu_3(",
        "const __half *__restrict__ arg2,", "__half *__restrict__ out0)",
        "i < 6LL", "gc_ld(arg1[o1])", "gc_ld(arg2[o1])",
        "gc_ld(gc_cvt<__half>(x0 + x1))", "v0 * 0.5f",
        "out0[i] = gc_cvt<__half>(v3);"})
    EXPECT_NE(kernel.find(part), std::string::npos) << part << "\n" << kernel;
  // One loop, one kernel.
  EXPECT_EQ(kernel.find("for (", kernel.find("for (") + 1), std::string::npos)
      << kernel;
  compileAndCheck(source);
}

TEST_F(CudaCodegenTest, PointwiseFusionMovesVectors) {
  // A thread computes 8 consecutive halves: the same-shaped input and the
  // bias (contiguous along the innermost dim) are read as 16-byte vectors,
  // the per-row scale (stride 0 there) as one scalar, the transposed input
  // (stride 4 there) per element; the result is stored as one vector.
  std::string diagnostics;
  std::string source = emitKernels(context, R"mlir(
exec.kernel @add_mul_sub_5 pointwise attributes {hash = "0000000000000000", onnx_nodes = ["n_add", "n_mul", "n_sub"], schedule = #kernel.schedule<block_size = 128>} {
^bb0(%a: tensor<4x16xf16>, %b: tensor<16xf16>, %c: tensor<4x1xf16>, %d: tensor<16x4xf16>):
  %t = graph.transpose %d {perm = array<i64: 1, 0>} : (tensor<16x4xf16>) -> tensor<4x16xf16>
  %0 = graph.add %a, %b : (tensor<4x16xf16>, tensor<16xf16>) -> tensor<4x16xf16>
  %1 = graph.mul %0, %c : (tensor<4x16xf16>, tensor<4x1xf16>) -> tensor<4x16xf16>
  %2 = graph.sub %1, %t : (tensor<4x16xf16>, tensor<4x16xf16>) -> tensor<4x16xf16>
  kernel.yield %2 : tensor<4x16xf16>
})mlir", diagnostics);
  ASSERT_FALSE(source.empty()) << diagnostics;
  std::string kernel = source.substr(cudaModulePreamble().size());
  for (const char *part :
       {"iv < 8LL", "const long long i = iv * 8LL;",
        "const gc_vec<__half, 8> x0v = gc_ldv<__half, 8>(arg0 + i);",
        "const gc_vec<__half, 8> x1v = gc_ldv<__half, 8>(arg1 + o1);",
        "const float x2 = gc_ld(arg2[o0]);",
        "const float x3 = gc_ld(arg3[o0 + o1 * 4 + j * 4LL]);",
        "const float x0 = gc_ld(x0v.e[j]);",
        "gc_ld(gc_cvt<__half>(x0 + x1))", "y0.e[j] = gc_cvt<__half>(v2);",
        "gc_stv<__half, 8>(out0 + i, y0);"})
    EXPECT_NE(kernel.find(part), std::string::npos) << part << "\n" << kernel;
  compileAndCheck(source);
}

TEST_F(CudaCodegenTest, ReductionProloguesCompile) {
  // Softmax and layer_normalization read input 0 through their prologue,
  // which computes the fused pointwise chain at the element, reading the
  // mask and the residual at their broadcast offsets; the scale stays a
  // plain input. Rows that fit the registers read a vector of 4 floats at a
  // time (gc_prologue_vec: the mask's rows are contiguous, so it is a
  // vector too); a row too long for them keeps the looped form, which
  // calls gc_prologue per element.
  std::string diagnostics;
  std::string source = emitKernels(context, R"mlir(
exec.kernel @div_add_softmax_0 reduction attributes {hash = "0000000000000000", onnx_nodes = ["n_div", "n_mask", "n_softmax"], schedule = #kernel.schedule<>} {
^bb0(%s: tensor<2x4x8xf32>, %m: tensor<4x8xf32>):
  %c = graph.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %0 = graph.div %s, %c : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %1 = graph.add %0, %m : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %2 = graph.softmax %1 : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  kernel.yield %2 : tensor<2x4x8xf32>
}
exec.kernel @add_layer_normalization_1 reduction attributes {hash = "0000000000000000", onnx_nodes = ["n_res", "n_ln"], schedule = #kernel.schedule<>} {
^bb0(%x: tensor<2x5x16xf32>, %r: tensor<2x5x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>):
  %0 = graph.add %x, %r : (tensor<2x5x16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  %1 = graph.layer_normalization %0, %g, %b : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  kernel.yield %1 : tensor<2x5x16xf32>
}
exec.kernel @div_softmax_2 reduction attributes {hash = "0000000000000000", onnx_nodes = ["n_div", "n_softmax"], schedule = #kernel.schedule<>} {
^bb0(%s: tensor<2x16384xf32>):
  %c = graph.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %0 = graph.div %s, %c : (tensor<2x16384xf32>, tensor<f32>) -> tensor<2x16384xf32>
  %1 = graph.softmax %0 : (tensor<2x16384xf32>) -> tensor<2x16384xf32>
  kernel.yield %1 : tensor<2x16384xf32>
})mlir", diagnostics);
  ASSERT_FALSE(source.empty()) << diagnostics;
  std::string kernels = source.substr(cudaModulePreamble().size());
  for (const char *part :
       {"auto gc_prologue_vec = [&](long long pe) -> gc_vec<float, 4> {",
        "const gc_vec<float, 4> px0v = gc_ldv<float, 4>(arg0 + pe);",
        "const float px0 = gc_ld(px0v.e[j]);", "px0 / 2.0f",
        "const gc_vec<float, 4> px1v = gc_ldv<float, 4>(arg1 + pc1 * 8 + pc2);",
        "gc_prologue_vec(base + v * 4)",
        "add_layer_normalization_1(", "in1 = arg2;", "in2 = arg3;",
        "gc_ldv<float, 4>(arg1 + pe)", "gc_ldv<float, 4>(in1 + r0)",
        "div_softmax_2(", "auto gc_prologue = [&](long long pe) -> float {",
        "const float px0 = gc_ld(arg0[pe]);",
        "const float x = gc_prologue(at);"})
    EXPECT_NE(kernels.find(part), std::string::npos)
        << part << "\n"
        << kernels;
  EXPECT_EQ(kernels.find("in0 ="), std::string::npos) << kernels;
  compileAndCheck(source);
}

TEST_F(CudaCodegenTest, ConvAndMatmulEpiloguesCompile) {
  // The anchor's accumulator goes through the epilogue before the store:
  // a bias broadcast from the output index, f16 intermediates rounded like
  // stored ones, a cast where the result is stored.
  std::string diagnostics;
  std::string source = emitKernels(context, R"mlir(
exec.kernel @conv_add_relu_4 conv attributes {hash = "0000000000000000", onnx_nodes = ["n_conv", "n_bias", "n_relu"], schedule = #kernel.schedule<>} {
^bb0(%x: tensor<1x3x5x5xf32>, %w: tensor<2x3x3x3xf32>, %b: tensor<2x1x1xf32>):
  %0 = graph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x5x5xf32>
  %1 = graph.add %0, %b : (tensor<1x2x5x5xf32>, tensor<2x1x1xf32>) -> tensor<1x2x5x5xf32>
  %2 = graph.relu %1 : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  kernel.yield %2 : tensor<1x2x5x5xf32>
}
exec.kernel @gemm_sigmoid_0 matmul attributes {hash = "0000000000000000", onnx_nodes = ["n_gemm", "n_sig"], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<5x7xf32>, %bw: tensor<4x7xf32>, %c: tensor<4xf32>):
  %0 = graph.gemm %a, %bw, %c {transB = 1 : i64} : (tensor<5x7xf32>, tensor<4x7xf32>, tensor<4xf32>) -> tensor<5x4xf32>
  %1 = graph.sigmoid %0 : (tensor<5x4xf32>) -> tensor<5x4xf32>
  kernel.yield %1 : tensor<5x4xf32>
}
exec.kernel @mat_mul_add_gelu_cast_1 matmul attributes {hash = "0000000000000000", onnx_nodes = ["n_mm"], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<2x5x7xf16>, %bm: tensor<7x4xf16>, %r: tensor<2x5x4xf16>):
  %0 = graph.mat_mul %a, %bm : (tensor<2x5x7xf16>, tensor<7x4xf16>) -> tensor<2x5x4xf16>
  %1 = graph.add %0, %r : (tensor<2x5x4xf16>, tensor<2x5x4xf16>) -> tensor<2x5x4xf16>
  %2 = graph.gelu %1 : (tensor<2x5x4xf16>) -> tensor<2x5x4xf16>
  %3 = graph.cast %2 {to = f32} : (tensor<2x5x4xf16>) -> tensor<2x5x4xf32>
  kernel.yield %3 : tensor<2x5x4xf32>
})mlir", diagnostics);
  ASSERT_FALSE(source.empty()) << diagnostics;
  std::string kernels = source.substr(cudaModulePreamble().size());
  for (const char *part :
       {"// conv_add_relu_4: graph.conv, graph.add, graph.relu (ONNX nodes "
        "'n_conv', 'n_bias', 'n_relu')",
        "const float *__restrict__ arg2,", "const long long ep = i;",
        "const float ev0 = acc;", "gc_ld(arg2[ec1])", "ev0 + ex0",
        "out0[ep] = gc_cvt<float>(ev2);",
        // The gemm keeps its own bias; the epilogue applies on top of it.
        "gemm_sigmoid_0(", "1.0f * acc + 1.0f * static_cast<float>(",
        "gc_exp(-ev0)",
        // Batched mat_mul: the residual is read at the stored element.
        "mat_mul_add_gelu_cast_1(", "float *__restrict__ out0)",
        "const float ev0 = gc_ld(gc_cvt<__half>(acc));",
        "gc_ld(arg2[ep])", "gc_erf(",
        "out0[ep] = gc_cvt<float>(ev3);"})
    EXPECT_NE(kernels.find(part), std::string::npos)
        << part << "\n"
        << kernels;
  compileAndCheck(source);
}

TEST_F(CudaCodegenTest, MatmulReadsTransposesInPlaceAndStoresTransposed) {
  // Layout prologues: Q [4,2,8] read as [2,4,8] and K [4,2,8] as [2,8,4]
  // through permuted strides; layout epilogue: the [2,4,4] product stored
  // as its transpose [4,2,4]. No transposed copy is made.
  std::string diagnostics;
  std::string source = emitKernels(context, R"mlir(
exec.kernel @transpose_mat_mul_0 matmul attributes {hash = "0000000000000000", onnx_nodes = ["n_qt", "n_kt", "n_qk", "n_merge"], schedule = #kernel.schedule<>} {
^bb0(%q: tensor<4x2x8xf32>, %k: tensor<4x2x8xf32>):
  %0 = graph.transpose %q {perm = array<i64: 1, 0, 2>} : (tensor<4x2x8xf32>) -> tensor<2x4x8xf32>
  %1 = graph.transpose %k {perm = array<i64: 1, 2, 0>} : (tensor<4x2x8xf32>) -> tensor<2x8x4xf32>
  %2 = graph.mat_mul %0, %1 : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  %3 = graph.transpose %2 {perm = array<i64: 1, 0, 2>} : (tensor<2x4x4xf32>) -> tensor<4x2x4xf32>
  kernel.yield %3 : tensor<4x2x4xf32>
})mlir", diagnostics);
  ASSERT_FALSE(source.empty()) << diagnostics;
  std::string kernels = source.substr(cudaModulePreamble().size());
  for (const char *part : {"row * 16 + ka * 1", "kb * 1 + col * 16"})
    EXPECT_NE(kernels.find(part), std::string::npos) << part << "\n"
                                                     << kernels;
  EXPECT_EQ(kernels.find("out0[ep]"), std::string::npos) << kernels;
  compileAndCheck(source);
}

TEST_F(CudaCodegenTest, AttentionReadsTheHeadSplitInPlaceAndStoresTheMerge) {
  // BERT's head split and merge around one grouped attention: Q [1,4,2,8]
  // (batch, seq, heads, head size) read as [1,2,4,8], K and V with one head
  // [1,1,4,8] (strides 32, 32, 8, 1), the result stored as [1,4,2,8]. The
  // f16 operands compute in float; 40 keys take two tiles.
  std::string diagnostics;
  std::string source = emitKernels(context, R"mlir(
exec.kernel @transpose_attention_0 attention attributes {hash = "0000000000000000", onnx_nodes = ["n_qt", "n_att", "n_merge"], schedule = #kernel.schedule<block_size = 64>} {
^bb0(%q: tensor<1x4x2x8xf16>, %k: tensor<1x1x40x8xf16>, %v: tensor<1x1x40x8xf16>, %m: tensor<4x40xf16>):
  %0 = graph.transpose %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf16>) -> tensor<1x2x4x8xf16>
  %1 = graph.attention %0, %k, %v, %m {scale = 0.5 : f64, nan_to_zero = 1 : i64} : (tensor<1x2x4x8xf16>, tensor<1x1x40x8xf16>, tensor<1x1x40x8xf16>, tensor<4x40xf16>) -> tensor<1x2x4x8xf16>
  %2 = graph.transpose %1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x4x8xf16>) -> tensor<1x4x2x8xf16>
  kernel.yield %2 : tensor<1x4x2x8xf16>
})mlir", diagnostics);
  ASSERT_FALSE(source.empty()) << diagnostics;
  std::string kernels = source.substr(cudaModulePreamble().size());
  for (const char *part :
       {// Q through the transpose's permuted strides (its unit batch dim
        // has stride 0).
        "const long long qBase = b * 0LL + h * 8LL;",
        // Staged with compile-time strides: rows 16 apart, columns 1.
        "gc_stage_tile<float, __half, 2, 8, 8, 16LL, 1LL, 64>(&qRows[0][0], "
        "in0 + qBase + (rowTile * 2) * 16LL",
        // One K/V head for both query heads.
        "const long long kvHead = h / 2;",
        // Two warps, two query rows per block.
        "__shared__ __align__(16) float qRows[2][8];",
        // The mask broadcast over batch and heads.
        "b * 0LL + h * 0LL + row * 40LL + key * 1LL",
        "runningSum > 0.0f ? acc[r] / runningSum : 0.0f",
        // The merge stored in place: result dim 1 (heads) has stride 8.
        "ec1 * 8 + ec2 * 16"})
    EXPECT_NE(kernels.find(part), std::string::npos) << part << "\n"
                                                     << kernels;
  compileAndCheck(source);
}

TEST_F(CudaCodegenTest, TensorCoreAttentionVariantsCompile) {
  // For sm_80 and sm_90, f16 and bf16 attention runs on mma.sync: BERT's
  // head split (head 64, Q/K/V read in place from the projection), head 32
  // causal in bf16, head 80 with grouped K/V heads, a mask and NaN guard
  // and sequences that are not a multiple of the tile, head 128 with one
  // query (a decode step), head 16, and a value head narrower than the
  // query's.
  std::string diagnostics;
  std::string source = emitKernels(context, R"mlir(
exec.kernel @bert_attention_0 attention attributes {hash = "0000000000000000", onnx_nodes = ["n_qt", "n_kt", "n_vt", "n_att", "n_merge"], schedule = #kernel.schedule<block_size = 128>} {
^bb0(%q: tensor<1x128x12x64xf16>, %k: tensor<1x128x12x64xf16>, %v: tensor<1x128x12x64xf16>):
  %0 = graph.transpose %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x128x12x64xf16>) -> tensor<1x12x128x64xf16>
  %1 = graph.transpose %k {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x128x12x64xf16>) -> tensor<1x12x128x64xf16>
  %2 = graph.transpose %v {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x128x12x64xf16>) -> tensor<1x12x128x64xf16>
  %3 = graph.attention %0, %1, %2 {scale = 0.125 : f64} : (tensor<1x12x128x64xf16>, tensor<1x12x128x64xf16>, tensor<1x12x128x64xf16>) -> tensor<1x12x128x64xf16>
  %4 = graph.transpose %3 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x12x128x64xf16>) -> tensor<1x128x12x64xf16>
  kernel.yield %4 : tensor<1x128x12x64xf16>
}
exec.kernel @causal_attention_1 attention attributes {hash = "0000000000000000", onnx_nodes = ["n_att"], schedule = #kernel.schedule<>} {
^bb0(%q: tensor<2x4x70x32xbf16>, %k: tensor<2x4x70x32xbf16>, %v: tensor<2x4x70x32xbf16>):
  %0 = graph.attention %q, %k, %v {scale = 0.17677669529663687 : f64, is_causal = 1 : i64} : (tensor<2x4x70x32xbf16>, tensor<2x4x70x32xbf16>, tensor<2x4x70x32xbf16>) -> tensor<2x4x70x32xbf16>
  kernel.yield %0 : tensor<2x4x70x32xbf16>
}
exec.kernel @grouped_attention_2 attention attributes {hash = "0000000000000000", onnx_nodes = ["n_att"], schedule = #kernel.schedule<>} {
^bb0(%q: tensor<1x6x37x80xf16>, %k: tensor<1x2x45x80xf16>, %v: tensor<1x2x45x80xf16>, %m: tensor<1x1x37x45xf16>):
  %0 = graph.attention %q, %k, %v, %m {scale = 0.11180339887498948 : f64, nan_to_zero = 1 : i64} : (tensor<1x6x37x80xf16>, tensor<1x2x45x80xf16>, tensor<1x2x45x80xf16>, tensor<1x1x37x45xf16>) -> tensor<1x6x37x80xf16>
  kernel.yield %0 : tensor<1x6x37x80xf16>
}
exec.kernel @decode_attention_3 attention attributes {hash = "0000000000000000", onnx_nodes = ["n_att"], schedule = #kernel.schedule<>} {
^bb0(%q: tensor<1x8x1x128xbf16>, %k: tensor<1x8x100x128xbf16>, %v: tensor<1x8x100x128xbf16>):
  %0 = graph.attention %q, %k, %v {scale = 0.08838834764831845 : f64} : (tensor<1x8x1x128xbf16>, tensor<1x8x100x128xbf16>, tensor<1x8x100x128xbf16>) -> tensor<1x8x1x128xbf16>
  kernel.yield %0 : tensor<1x8x1x128xbf16>
}
exec.kernel @small_attention_4 attention attributes {hash = "0000000000000000", onnx_nodes = ["n_att"], schedule = #kernel.schedule<>} {
^bb0(%q: tensor<3x2x9x16xf16>, %k: tensor<3x2x20x16xf16>, %v: tensor<3x2x20x48xf16>):
  %0 = graph.attention %q, %k, %v : (tensor<3x2x9x16xf16>, tensor<3x2x20x16xf16>, tensor<3x2x20x48xf16>) -> tensor<3x2x9x48xf16>
  kernel.yield %0 : tensor<3x2x9x48xf16>
})mlir",
                                   diagnostics, /*lowestSm=*/80);
  ASSERT_FALSE(source.empty()) << diagnostics;
  std::string kernels = source.substr(cudaModulePreamble().size());
  for (const char *part :
       {// Q read in place through the head split: rows 768 apart, heads 64.
        "gc_stage_tile<__half, __half, 16, 64, 72, 768LL, 1LL, "
        "32>(&qTile[0][0], "
        "in0 + qBase + (row0) * 768LL, 128LL - (row0));",
        // K and V double-buffered: tile j + 1 into the other buffer.
        "&kTile[buf ^ 1][0][0]", "gc_cp_async_wait<1>();",
        "gc_ldmatrix_x4_trans(vf, ", "gc_mma_f16(o[2 * n], pf, vf[0], vf[1]);",
        "gc_mma_bf16(s[2 * n], qFrag[kk], kf[0], kf[1]);",
        // BERT at batch 1: 12 heads x 8 tiles of 16 rows x 2 key splits
        // of 64 (flash-decoding fills 132 SMs).
        "block < 192LL", "const long long split = block % 2;",
        // Causal blocks stop after their last row's key tile.
        "gc_min(", "key <= row",
        // Grouped heads, 45 keys: the partial tile's keys are masked out.
        "const long long kvHead = h / 3;", "key < 45LL",
        "rowSum[r] > 0.0f ? o[n][2 * r + c] * inverse : 0.0f;"})
    EXPECT_NE(kernels.find(part), std::string::npos) << part << "\n" << kernels;
  EXPECT_EQ(kernels.find("wmma"), std::string::npos);
  compileAndCheck(source);
}

TEST_F(CudaCodegenTest, SplitKeyAttentionVariantsCompile) {
  // Flash-decoding: where batch x heads x query tiles leave SMs idle, the
  // keys split across blocks, each leaving a partial in the scratch
  // (gc_partials) and the last block of a tile (gc_counters) merging them.
  // A decode step against 512 keys (f16, a [B, 1, 1, S] mask staged by
  // cp.async), causal bf16 at batch 1 over 1000 keys (not a multiple of a
  // tile or split), grouped heads in f16 with a full [B, H, Sq, Skv] mask,
  // and the scalar template in float32 (decode and causal).
  std::string diagnostics;
  std::string source = emitKernels(context, R"mlir(
exec.kernel @decode_attention_0 attention attributes {hash = "0000000000000000", onnx_nodes = ["n_att"], schedule = #kernel.schedule<>} {
^bb0(%q: tensor<1x12x1x64xf16>, %k: tensor<1x12x512x64xf16>, %v: tensor<1x12x512x64xf16>, %m: tensor<1x1x1x512xf16>):
  %0 = graph.attention %q, %k, %v, %m {scale = 0.125 : f64} : (tensor<1x12x1x64xf16>, tensor<1x12x512x64xf16>, tensor<1x12x512x64xf16>, tensor<1x1x1x512xf16>) -> tensor<1x12x1x64xf16>
  kernel.yield %0 : tensor<1x12x1x64xf16>
}
exec.kernel @causal_attention_1 attention attributes {hash = "0000000000000000", onnx_nodes = ["n_att"], schedule = #kernel.schedule<>} {
^bb0(%q: tensor<1x2x1000x128xbf16>, %k: tensor<1x2x1000x128xbf16>, %v: tensor<1x2x1000x128xbf16>):
  %0 = graph.attention %q, %k, %v {scale = 0.08838834764831845 : f64, is_causal = 1 : i64} : (tensor<1x2x1000x128xbf16>, tensor<1x2x1000x128xbf16>, tensor<1x2x1000x128xbf16>) -> tensor<1x2x1000x128xbf16>
  kernel.yield %0 : tensor<1x2x1000x128xbf16>
}
exec.kernel @grouped_attention_2 attention attributes {hash = "0000000000000000", onnx_nodes = ["n_att"], schedule = #kernel.schedule<>} {
^bb0(%q: tensor<1x4x16x32xf16>, %k: tensor<1x2x256x32xf16>, %v: tensor<1x2x256x32xf16>, %m: tensor<1x4x16x256xf16>):
  %0 = graph.attention %q, %k, %v, %m {scale = 0.17677669529663687 : f64, nan_to_zero = 1 : i64} : (tensor<1x4x16x32xf16>, tensor<1x2x256x32xf16>, tensor<1x2x256x32xf16>, tensor<1x4x16x256xf16>) -> tensor<1x4x16x32xf16>
  kernel.yield %0 : tensor<1x4x16x32xf16>
}
exec.kernel @scalar_decode_3 attention attributes {hash = "0000000000000000", onnx_nodes = ["n_att"], schedule = #kernel.schedule<>} {
^bb0(%q: tensor<1x4x1x80xf32>, %k: tensor<1x4x700x80xf32>, %v: tensor<1x4x700x80xf32>):
  %0 = graph.attention %q, %k, %v {scale = 0.11180339887498948 : f64} : (tensor<1x4x1x80xf32>, tensor<1x4x700x80xf32>, tensor<1x4x700x80xf32>) -> tensor<1x4x1x80xf32>
  kernel.yield %0 : tensor<1x4x1x80xf32>
}
exec.kernel @scalar_causal_4 attention attributes {hash = "0000000000000000", onnx_nodes = ["n_att"], schedule = #kernel.schedule<>} {
^bb0(%q: tensor<1x1x256x64xf32>, %k: tensor<1x1x256x64xf32>, %v: tensor<1x1x256x64xf32>):
  %0 = graph.attention %q, %k, %v {scale = 0.125 : f64, is_causal = 1 : i64} : (tensor<1x1x256x64xf32>, tensor<1x1x256x64xf32>, tensor<1x1x256x64xf32>) -> tensor<1x1x256x64xf32>
  kernel.yield %0 : tensor<1x1x256x64xf32>
})mlir",
                                   diagnostics, /*lowestSm=*/80);
  ASSERT_FALSE(source.empty()) << diagnostics;
  std::string kernels = source.substr(cudaModulePreamble().size());
  for (const char *part :
       {// The scratch follows the outputs.
        "float *__restrict__ gc_partials,\n    unsigned *__restrict__ "
        "gc_counters",
        // Decode: 12 heads x 8 splits of 64 keys.
        "block < 96LL", "const long long split = block % 8;",
        // The broadcast mask: one row per key tile, by cp.async.
        "gc_stage_tile<__half, __half, 1, 64, 72, 0LL, 1LL, 32>"
        "(&maskTile[buf ^ 1][0][0], in3 + maskBase + (j + 1) * 64LL",
        "maskTile[buf][0][n * 8 + 2 * t + (i & 1)]",
        // The full mask: the block's 16 rows, 256 apart.
        "gc_stage_tile<__half, __half, 16, 64, 72, 256LL, 1LL, 32>"
        "(&maskTile[0][0][0]",
        "maskTile[buf][warp * 16 + g + 8 * (i >> 1)]",
        // Arrival, reset and merge.
        "__threadfence();", "atomicAdd(&gc_counters[tile], 1u) == 7u",
        "atomicExch(&gc_counters[tile], 0u);", "if (!lastSplit) continue;",
        "gc_ld_cg(&gc_partials[",
        "mergedSum > 0.0f ? merged / mergedSum : 0.0f",
        // The scalar template splits whole tiles of 32 keys.
        "const long long keyBegin = split * "})
    EXPECT_NE(kernels.find(part), std::string::npos) << part << "\n" << kernels;
  compileAndCheck(source);
}

TEST_F(CudaCodegenTest, OnlyPointwiseKernelsAndEpiloguesFuse) {
  auto refusal = [&](llvm::StringRef text) {
    std::string diagnostics;
    std::string source = emitKernels(context, text, diagnostics);
    EXPECT_TRUE(source.empty()) << source;
    return diagnostics;
  };
  EXPECT_NE(refusal(R"mlir(
exec.kernel @softmax_exp_0 reduction attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<2x3xf32>):
  %0 = graph.softmax %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = graph.exp %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  kernel.yield %1 : tensor<2x3xf32>
})mlir")
                .find("a reduction kernel of several ops must yield the results "
                      "of graph.softmax, graph.log_softmax or "
                      "graph.layer_normalization"),
            std::string::npos);
  // An attention kernel has no pointwise epilogue.
  EXPECT_NE(refusal(R"mlir(
exec.kernel @attention_relu_0 attention attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>):
  %0 = graph.attention %q, %k, %v : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %1 = graph.relu %0 : (tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  kernel.yield %1 : tensor<1x2x4x8xf32>
})mlir")
                .find("an attention kernel ends with its graph.attention or "
                      "the transpose of its result, not graph.relu"),
            std::string::npos);
  // The anchor must be one whose template applies an epilogue.
  EXPECT_NE(refusal(R"mlir(
exec.kernel @einsum_relu_0 matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>):
  %0 = graph.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = graph.relu %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  kernel.yield %1 : tensor<2x4xf32>
})mlir")
                .find("a matmul kernel of several ops must start with "
                      "graph.conv, graph.gemm, graph.mat_mul or their "
                      "quantized forms, not "
                      "graph.einsum"),
            std::string::npos);
  // An epilogue holds pointwise ops of the anchor's shape only.
  EXPECT_NE(refusal(R"mlir(
exec.kernel @mat_mul_softmax_0 matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>):
  %0 = graph.mat_mul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = graph.softmax %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  kernel.yield %1 : tensor<2x4xf32>
})mlir")
                .find("cannot emit a cuda kernel for graph.softmax: the "
                      "epilogue of a conv or matmul kernel holds pointwise "
                      "ops only"),
            std::string::npos);
  EXPECT_NE(refusal(R"mlir(
exec.kernel @mat_mul_add_0 matmul attributes {hash = "0000000000000000", onnx_nodes = [], schedule = #kernel.schedule<>} {
^bb0(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %z: tensor<5x2x4xf32>):
  %0 = graph.mat_mul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = graph.add %0, %z : (tensor<2x4xf32>, tensor<5x2x4xf32>) -> tensor<5x2x4xf32>
  kernel.yield %1 : tensor<5x2x4xf32>
})mlir")
                .find("cannot emit a cuda kernel for graph.add: an epilogue "
                      "op must have the shape of the result of graph.mat_mul"),
            std::string::npos);
}

TEST_F(CudaCodegenTest, CompilationIsDeterministic) {
  std::string source = emitModule(
      "%x: tensor<4x8xf16>",
      "  %0 = graph.softmax %x : (tensor<4x8xf16>) -> tensor<4x8xf16>");
  ASSERT_FALSE(source.empty());
  auto first = compileCudaModule(source, {80}, keepDir());
  auto second = compileCudaModule(source, {80}, keepDir());
  ASSERT_TRUE(static_cast<bool>(first)) << llvm::toString(first.takeError());
  ASSERT_TRUE(static_cast<bool>(second)) << llvm::toString(second.takeError());
  ASSERT_EQ(first->size(), second->size());
  for (size_t i = 0; i < first->size(); ++i)
    EXPECT_EQ((*first)[i].data, (*second)[i].data) << "image " << i;
}

TEST_F(CudaCodegenTest, UnsupportedOpsFailWithDiagnostic) {
  std::string text = R"(
func.func @main(%x: tensor<1x1x4x4xf32>, %s: tensor<4xf32>, %d: tensor<?x4xf32>) {
  %0 = graph.resize %x, %s {antialias = 1 : i64, mode = "nearest", operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x1x4x4xf32>, tensor<4xf32>) -> tensor<1x1x8x8xf32> loc("up")
  %1 = graph.relu %d : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = graph.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  return
})";
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module) << diagnostics;
  SmallVector<Operation *> ops;
  module->walk([&](Operation *op) {
    if (op->getDialect()->getNamespace() == "graph")
      ops.push_back(op);
  });
  ASSERT_EQ(ops.size(), 3u);
  for (Operation *op : ops)
    EXPECT_TRUE(failed(emitCudaKernel(op, "k")));
  EXPECT_NE(diagnostics.find("cannot emit a cuda kernel for graph.resize: "
                             "antialias is not defined for mode nearest"),
            std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("cannot emit a cuda kernel for graph.relu: input "
                             "0 has type tensor<?x4xf32>"),
            std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("cannot emit a cuda kernel for graph.constant"),
            std::string::npos)
      << diagnostics;
}

TEST_F(CudaCodegenTest, BrokenSourceReportsKeptFileAndCommand) {
  std::string source = cudaModulePreamble().str() +
                       "extern \"C\" __global__ void broken(float *out) {\n"
                       "  out[0] = undeclared_name;\n}\n";
  llvm::Expected<std::vector<CudaImage>> images =
      compileCudaModule(source, {80, 90}, keepDir());
  ASSERT_FALSE(static_cast<bool>(images));
  std::string message = llvm::toString(images.takeError());
  EXPECT_NE(message.find("sm_80"), std::string::npos) << message;
  EXPECT_NE(message.find("undeclared_name"), std::string::npos) << message;
  size_t kept = message.find("source kept at ");
  ASSERT_NE(kept, std::string::npos) << message;
  std::string path = message.substr(kept + 15);
  path = path.substr(0, path.find('\n'));
  EXPECT_EQ(llvm::StringRef(path).starts_with(keepDir()), true) << path;
  EXPECT_TRUE(llvm::sys::fs::exists(path)) << path;
  EXPECT_NE(message.find("nvcc -cubin -arch=sm_80"), std::string::npos)
      << message;
  EXPECT_NE(message.find(path + " -o /dev/null"), std::string::npos) << message;
}

TEST_F(CudaCodegenTest, NoTargetIsAnError) {
  auto images = compileCudaModule(cudaModulePreamble(), {}, keepDir());
  ASSERT_FALSE(static_cast<bool>(images));
  EXPECT_EQ(llvm::toString(images.takeError()),
            "no target sm given for the cuda module");
}

} // namespace

TEST_F(CudaCodegenTest, ScheduleBlockSizeSetsLaunchAndIsChecked) {
  std::string text = R"(
func.func @main(%x: tensor<1000xf32>, %y: tensor<8x2000xf32>) {
  %0 = graph.relu %x : (tensor<1000xf32>) -> tensor<1000xf32>
  %1 = graph.softmax %y : (tensor<8x2000xf32>) -> tensor<8x2000xf32>
  return
})";
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module) << diagnostics;
  SmallVector<Operation *> ops;
  module->walk([&](Operation *op) {
    if (op->getDialect()->getNamespace() == "graph")
      ops.push_back(op);
  });
  ASSERT_EQ(ops.size(), 2u);
  FailureOr<CudaKernel> relu = emitCudaKernel(ops[0], "relu_k", 128);
  ASSERT_TRUE(succeeded(relu)) << diagnostics;
  EXPECT_EQ(relu->block[0], 128u);
  EXPECT_EQ(relu->grid[0], 8u); // ceil(1000 / 128)
  // A row of 2000 (500 vectors of 4) would take 512 threads; a block size
  // of 64 caps it, each thread holding 8 vectors.
  FailureOr<CudaKernel> softmax = emitCudaKernel(ops[1], "softmax_k", 64);
  ASSERT_TRUE(succeeded(softmax)) << diagnostics;
  EXPECT_EQ(softmax->block[0], 64u);
  EXPECT_EQ(softmax->grid[0], 8u);
  EXPECT_TRUE(failed(emitCudaKernel(ops[0], "bad", 100)));
  EXPECT_NE(diagnostics.find("block_size 100 is not a multiple of 32 in "
                             "[32, 1024]"),
            std::string::npos)
      << diagnostics;
}

TEST_F(CudaCodegenTest, CumSumWithRunTimeAxisSelectsAScan) {
  std::string source = emitModule(
      "%x: tensor<2x3x4xf32>, %axis: tensor<i64>",
      "  %0 = graph.cum_sum %x, %axis {reverse = 1 : i64} : "
      "(tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x3x4xf32>");
  ASSERT_FALSE(source.empty());
  EXPECT_NE(source.find("long long axis = (long long)in1[0];"),
            std::string::npos)
      << source;
  EXPECT_NE(source.find("if (axis < 0) axis += 3LL;"), std::string::npos);
  for (const char *label : {"case 0: {", "case 1: {", "case 2: {"})
    EXPECT_NE(source.find(label), std::string::npos) << label;
  auto images = compileCudaModule(source, {80}, keepDir());
  ASSERT_TRUE(static_cast<bool>(images)) << llvm::toString(images.takeError());
}

// Kernels reading indices, lengths or an axis at run time check them: an
// out-of-range value is reported through the error record parameters and
// never used to address memory.
TEST_F(CudaCodegenTest, IndexKernelsCheckBoundsAndReport) {
  struct Case {
    const char *args, *body;
    std::vector<std::string> expected;
  };
  const std::string record =
      "unsigned long long *gc_error,\n    unsigned gc_site) {";
  std::vector<Case> cases = {
      {"%x: tensor<2x3x4xf32>, %idx: tensor<2x2xi64>",
       "  %0 = graph.gather %x, %idx {axis = 1 : i64} : (tensor<2x3x4xf32>, "
       "tensor<2x2xi64>) -> tensor<2x2x2x4xf32>",
       {"const long long idx = gc_index(static_cast<long long>(in1[",
        "]), 3LL, gc_error, gc_site);", "out0[i] = idx >= 0 ? in0["}},
      {"%x: tensor<2x3x4xf32>, %ind: tensor<2x3x4xi32>",
       "  %0 = graph.gather_elements %x, %ind {axis = 2 : i64} : "
       "(tensor<2x3x4xf32>, tensor<2x3x4xi32>) -> tensor<2x3x4xf32>",
       {"gc_index(static_cast<long long>(in1[i]), 4LL, gc_error, gc_site)",
        "out0[i] = idx >= 0 ? in0["}},
      {"%x: tensor<2x3x4xf32>, %nd: tensor<2x2xi64>",
       "  %0 = graph.gather_nd %x, %nd : (tensor<2x3x4xf32>, tensor<2x2xi64>) "
       "-> tensor<2x4xf32>",
       {"const long long d0 = gc_index(static_cast<long long>(in1[tuple + "
        "0]), 2LL, gc_error, gc_site);",
        "const long long d1 = gc_index(static_cast<long long>(in1[tuple + "
        "1]), 3LL, gc_error, gc_site);",
        "out0[i] = (d0 >= 0 && d1 >= 0) ? in0["}},
      {"%x: tensor<2x3x4xf32>, %ind: tensor<2x3x4xi32>, %upd: "
       "tensor<2x3x4xf32>",
       "  %0 = graph.scatter_elements %x, %ind, %upd {axis = 1 : i64} : "
       "(tensor<2x3x4xf32>, tensor<2x3x4xi32>, tensor<2x3x4xf32>) -> "
       "tensor<2x3x4xf32>",
       {"if (gc_index(static_cast<long long>(in1[u_at]), 3LL, gc_error, "
        "gc_site) == o1) {"}},
      {"%x: tensor<2x3x4xf32>, %nd: tensor<2x1xi64>, %upd: tensor<2x3x4xf32>",
       "  %0 = graph.scatter_nd %x, %nd, %upd : (tensor<2x3x4xf32>, "
       "tensor<2x1xi64>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>",
       {"gc_index(static_cast<long long>(in1[t * 1 + 0]), 2LL, gc_error, "
        "gc_site) == p0"}},
      {"%x: tensor<2x3x4xf32>, %lens: tensor<3xi64>",
       "  %0 = graph.reverse_sequence %x, %lens {batch_axis = 1 : i64, "
       "time_axis = 0 : i64} : (tensor<2x3x4xf32>, tensor<3xi64>) -> "
       "tensor<2x3x4xf32>",
       {"if (length < 0 || length > 2) {",
        "gc_report(gc_error, gc_site, length, 0LL, 3LL, 1);"}},
      {"%x: tensor<2x3x4xf32>, %axis: tensor<i64>",
       "  %0 = graph.cum_sum %x, %axis : (tensor<2x3x4xf32>, tensor<i64>) -> "
       "tensor<2x3x4xf32>",
       {"default:",
        "gc_report(gc_error, gc_site, (long long)in1[0], -3LL, 3LL, 2);"}},
  };
  std::string module = cudaModulePreamble().str();
  for (const Case &c : cases) {
    SCOPED_TRACE(c.body);
    std::string source = emitModule(c.args, c.body);
    ASSERT_FALSE(source.empty());
    std::string kernel = source.substr(cudaModulePreamble().size());
    EXPECT_NE(kernel.find(record), std::string::npos) << kernel;
    EXPECT_EQ(kernel.find("gc_wrap("), std::string::npos) << kernel;
    for (const std::string &part : c.expected)
      EXPECT_NE(kernel.find(part), std::string::npos) << part << "\n" << kernel;
    // Kernel names repeat across cases (k0_...): one module per case.
    compileAndCheck(source);
  }
  // Kernels that check nothing take no error record.
  std::string add = emitModule(
      "%a: tensor<2x3xf32>, %b: tensor<3xf32>",
      "  %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> "
      "tensor<2x3xf32>");
  EXPECT_EQ(add.substr(cudaModulePreamble().size()).find("gc_error"),
            std::string::npos);
  // OneHot keeps the ONNX semantics (out-of-range indices give off values).
  std::string oneHot = emitModule(
      "%oh: tensor<3xi64>, %d: tensor<i64>, %ohv: tensor<2xf32>",
      "  %0 = graph.one_hot %oh, %d, %ohv {axis = 0 : i64} : (tensor<3xi64>, "
      "tensor<i64>, tensor<2xf32>) -> tensor<5x3xf32>");
  EXPECT_EQ(oneHot.substr(cudaModulePreamble().size()).find("gc_error"),
            std::string::npos);
}
