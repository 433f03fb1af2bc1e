//===- OpRegistryTest.cpp - importer, graph ops and kernels agree ---------===//
//
// Adding an op touches the importer table, the graph dialect, the host
// kernels and the CUDA emitters (docs/adding-an-op.md). These tests fail
// when one of them is missing an op the others have, or when folding does
// not reach the kernels through the dialect's HostEvaluatorInterface.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphDialect.h"
#include "dialects/Graph/GraphOps.h"
#include "dialects/Graph/HostEval.h"
#include "lib/HostKernels/HostEvaluator.h"
#include "dialects/Graph/GraphScalar.h"
#include "lib/HostKernels/HostKernels.h"
#if GRAPHC_TEST_CUDA_CODEGEN
#include "lib/Codegen/CUDA/CudaEmitter.h"
#endif

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace {

/// The mnemonics of OpTable.def: the graph ops the importer creates.
std::vector<std::string> importedMnemonics() {
  return {
#define GRAPHC_ONNX_OP(onnxName, mnemonic) #mnemonic,
#include "lib/Import/ONNX/OpTable.def"
  };
}

/// The host kernels of HostKernelList.def.
std::vector<std::string> hostKernelNames() {
  return {
#define GC_HOST_KERNEL(name) #name,
#include "lib/HostKernels/HostKernelList.def"
  };
}

class OpRegistryTest : public ::testing::Test {
protected:
  OpRegistryTest() { context.loadDialect<graphc::graph::GraphDialect>(); }

  /// Every graph op that computes: all but graph.constant, which is data,
  /// graph.loop and its graph.yield, which are steps of the plan around
  /// the kernels of their body, graph.output_extents, which tells the plan
  /// where extents lie, and graph.empty_if, which
  /// graphc-bound-data-dependent-extents makes a view.
  std::vector<mlir::RegisteredOperationName> computeOps() {
    std::vector<mlir::RegisteredOperationName> ops;
    for (mlir::RegisteredOperationName name :
         context.getRegisteredOperations())
      if (name.getDialectNamespace() == "graph" &&
          !llvm::is_contained({"constant", "loop", "yield", "output_extents",
                               "empty_if"},
                              name.stripDialect()))
        ops.push_back(name);
    return ops;
  }

  mlir::MLIRContext context;
};

TEST_F(OpRegistryTest, ImportedOpsAreGraphOps) {
  std::vector<std::string> mnemonics = importedMnemonics();
  ASSERT_GT(mnemonics.size(), 100u);
  for (const std::string &mnemonic : mnemonics)
    EXPECT_TRUE(mlir::RegisteredOperationName::lookup("graph." + mnemonic,
                                                      &context))
        << "OpTable.def names graph." << mnemonic
        << ", which the graph dialect does not define";
}

TEST_F(OpRegistryTest, EveryGraphOpHasAHostKernel) {
  std::vector<mlir::RegisteredOperationName> ops = computeOps();
  ASSERT_GT(ops.size(), 100u);
  for (mlir::RegisteredOperationName name : ops)
    EXPECT_NE(gc_host_kernel_lookup(name.stripDialect().str().c_str()), nullptr)
        << name.getStringRef().str()
        << " has no host kernel in HostKernelList.def";
  EXPECT_EQ(gc_host_kernel_lookup("no_such_op"), nullptr);
}

TEST_F(OpRegistryTest, EveryHostKernelIsAGraphOp) {
  for (const std::string &kernel : hostKernelNames())
    EXPECT_TRUE(
        mlir::RegisteredOperationName::lookup("graph." + kernel, &context))
        << "host kernel " << kernel << " computes no graph op";
}

TEST_F(OpRegistryTest, EveryPointwiseOpHasAScalarDefinition) {
  // The targets' fused code and pad-safety reasoning compute a pointwise op
  // from its ScalarComputeOpInterface (GraphScalar.cpp).
  for (mlir::RegisteredOperationName name : computeOps())
    EXPECT_EQ(name.hasTrait<graphc::graph::OpTrait::Pointwise>(),
              name.hasInterface<graphc::graph::ScalarComputeOpInterface>())
        << name.getStringRef().str();
}

TEST_F(OpRegistryTest, EachOpHasAtMostOneKernelFamily) {
  // Fusion reads an op's family from these traits (classifyOp): one op
  // claimed by two families would depend on the order of the checks.
  for (mlir::RegisteredOperationName name : computeOps()) {
    namespace trait = graphc::graph::OpTrait;
    int families = name.hasTrait<trait::Pointwise>() +
                   name.hasTrait<trait::MatmulKind>() +
                   name.hasTrait<trait::ConvKind>() +
                   name.hasTrait<trait::ReductionKind>() +
                   name.hasTrait<trait::AttentionKind>();
    EXPECT_LE(families, 1) << name.getStringRef().str();
  }
  for (const char *op : {"graph.mat_mul", "graph.conv", "graph.softmax",
                         "graph.attention", "graph.add"})
    EXPECT_TRUE(mlir::RegisteredOperationName::lookup(op, &context)
                    ->hasTrait<graphc::graph::OpTrait::MatmulKind>() ==
                (llvm::StringRef(op) == "graph.mat_mul"))
        << op;
}

#if GRAPHC_TEST_CUDA_CODEGEN
TEST_F(OpRegistryTest, EveryGraphOpHasACudaEmitter) {
  for (mlir::RegisteredOperationName name : computeOps())
    EXPECT_TRUE(graphc::codegen::hasCudaEmitter(name))
        << name.getStringRef().str() << " has no cuda emitter family";
  // Constants are data, never kernels.
  EXPECT_FALSE(graphc::codegen::hasCudaEmitter(
      *mlir::RegisteredOperationName::lookup("graph.constant", &context)));
}
#endif

/// The graph dialect folds by evaluation through its HostEvaluatorInterface,
/// which the host kernels implement (registerHostEvaluator): without it
/// nothing evaluates, with it (as in every graphc context) a constant op
/// folds to the kernel's result.
TEST(HostEvaluator, FoldsOnlyWithTheHostKernelsRegistered) {
  const char *text = R"mlir(
    func.func @f() -> tensor<2xf32> {
      %a = graph.constant {value = dense<[1.5, -2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
      %b = graph.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
      %c = graph.mul %a, %b : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
      return %c : tensor<2xf32>
    })mlir";
  for (bool registered : {false, true}) {
    SCOPED_TRACE(registered ? "registered" : "not registered");
    mlir::DialectRegistry registry;
    registry.insert<graphc::graph::GraphDialect, mlir::func::FuncDialect>();
    if (registered)
      graphc::graph::registerHostEvaluator(registry);
    mlir::MLIRContext context(registry);
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    ASSERT_TRUE(module);
    mlir::Operation *mul = nullptr;
    module->walk([&](graphc::graph::MulOp op) { mul = op; });
    ASSERT_NE(mul, nullptr);

    std::vector<std::vector<char>> operands;
    for (mlir::Value operand : mul->getOperands()) {
      auto constant =
          operand.getDefiningOp()->getAttrOfType<mlir::ElementsAttr>("value");
      mlir::FailureOr<std::vector<char>> bytes =
          graphc::graph::constantBytes(constant);
      ASSERT_TRUE(mlir::succeeded(bytes));
      operands.push_back(std::move(*bytes));
    }
    std::string error;
    mlir::FailureOr<std::vector<std::vector<char>>> results =
        graphc::graph::evaluateOnHost(mul, operands, error);
    mlir::OpBuilder builder(mul);
    llvm::SmallVector<mlir::Value> folded;
    bool didFold =
        mlir::succeeded(builder.tryFold(mul, folded)) && !folded.empty();
    if (!registered) {
      EXPECT_TRUE(mlir::failed(results));
      EXPECT_EQ(error, "no host evaluator registered for the graph dialect");
      EXPECT_FALSE(didFold);
      continue;
    }
    ASSERT_TRUE(mlir::succeeded(results)) << error;
    ASSERT_EQ(results->size(), 1u);
    ASSERT_EQ((*results)[0].size(), 2 * sizeof(float));
    float values[2];
    std::memcpy(values, (*results)[0].data(), sizeof(values));
    EXPECT_EQ(values[0], 3.0f);
    EXPECT_EQ(values[1], -4.0f);
    ASSERT_TRUE(didFold);
    auto value =
        folded[0].getDefiningOp()->getAttrOfType<mlir::ElementsAttr>("value");
    ASSERT_TRUE(value);
    EXPECT_EQ(graphc::graph::constantBytes(value).value(), (*results)[0]);
  }
}

} // namespace
