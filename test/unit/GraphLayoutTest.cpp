//===- GraphLayoutTest.cpp - operands read in place through strides -------===//
//
// graph::layoutPrologue decides which data-movement ops an attention reads
// through and where each operand lies in the tensor behind them; fusion and
// the kernel templates both take its answer. These tests check the offsets
// and strides it gives, and where it stops.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphDialect.h"
#include "dialects/Graph/GraphLayout.h"
#include "dialects/Graph/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

namespace {

using graphc::graph::AttentionOp;
using graphc::graph::LayoutPrologue;

class GraphLayoutTest : public ::testing::Test {
protected:
  GraphLayoutTest() {
    context.loadDialect<graphc::graph::GraphDialect, mlir::func::FuncDialect>();
  }

  /// The layout prologue of the one attention in `text`.
  LayoutPrologue prologueOf(llvm::StringRef text) {
    module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    AttentionOp attention;
    module->walk([&](AttentionOp op) { attention = op; });
    EXPECT_TRUE(attention);
    this->attention = attention;
    return graphc::graph::layoutPrologue(attention);
  }

  /// {offset, strides...} of attention operand `index`, or {-1} when it is
  /// not read through the prologue.
  std::vector<int64_t> readOf(const LayoutPrologue &prologue, unsigned index) {
    auto found = prologue.reads.find(attention->getOperand(index));
    if (found == prologue.reads.end())
      return {-1};
    std::vector<int64_t> read = {found->second.offset};
    read.insert(read.end(), found->second.strides.begin(),
                found->second.strides.end());
    return read;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  AttentionOp attention;
};

// nn.MultiheadAttention's packed projection [S=4, B=2, 3*E=12] (E = 4, two
// heads of 2): unflatten, transpose the 3 first, split, view as [S, B*H, D]
// (B and H merged across the packed dim), transpose, view as [B, H, S, D].
TEST_F(GraphLayoutTest, PackedProjectionThroughMergedViews) {
  LayoutPrologue prologue = prologueOf(R"mlir(
func.func @main(%p: tensor<4x2x12xf32>) -> tensor<2x2x4x2xf32> {
  %unflat = graph.constant {value = dense<[4, 2, 3, 4]> : tensor<4xi64>} : () -> tensor<4xi64>
  %per_head = graph.constant {value = dense<[4, 4, 2]> : tensor<3xi64>} : () -> tensor<3xi64>
  %four = graph.constant {value = dense<[2, 2, 4, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %u = graph.reshape %p, %unflat : (tensor<4x2x12xf32>, tensor<4xi64>) -> tensor<4x2x3x4xf32>
  %t = graph.transpose %u {perm = array<i64: 2, 0, 1, 3>} : (tensor<4x2x3x4xf32>) -> tensor<3x4x2x4xf32>
  %s:3 = graph.split %t {axis = 0 : i64, num_outputs = 3 : i64} : (tensor<3x4x2x4xf32>) -> (tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>)
  %q0 = graph.reshape %s#0, %per_head : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<4x4x2xf32>
  %q1 = graph.transpose %q0 {perm = array<i64: 1, 0, 2>} : (tensor<4x4x2xf32>) -> tensor<4x4x2xf32>
  %q = graph.reshape %q1, %four : (tensor<4x4x2xf32>, tensor<4xi64>) -> tensor<2x2x4x2xf32>
  %k0 = graph.reshape %s#1, %per_head : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<4x4x2xf32>
  %k1 = graph.transpose %k0 {perm = array<i64: 1, 0, 2>} : (tensor<4x4x2xf32>) -> tensor<4x4x2xf32>
  %k = graph.reshape %k1, %four : (tensor<4x4x2xf32>, tensor<4xi64>) -> tensor<2x2x4x2xf32>
  %v0 = graph.reshape %s#2, %per_head : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<4x4x2xf32>
  %v1 = graph.transpose %v0 {perm = array<i64: 1, 0, 2>} : (tensor<4x4x2xf32>) -> tensor<4x4x2xf32>
  %v = graph.reshape %v1, %four : (tensor<4x4x2xf32>, tensor<4xi64>) -> tensor<2x2x4x2xf32>
  %o = graph.attention %q, %k, %v : (tensor<2x2x4x2xf32>, tensor<2x2x4x2xf32>, tensor<2x2x4x2xf32>) -> tensor<2x2x4x2xf32>
  return %o : tensor<2x2x4x2xf32>
}
)mlir");
  EXPECT_EQ(prologue.ops.size(), 12u);
  // Element (b, h, s, d) of part i is p[s][b][i * 4 + h * 2 + d]: batch
  // stride 12, head 2, sequence 24, depth 1; the parts 4 apart.
  EXPECT_EQ(readOf(prologue, 0), (std::vector<int64_t>{0, 12, 2, 24, 1}));
  EXPECT_EQ(readOf(prologue, 1), (std::vector<int64_t>{4, 12, 2, 24, 1}));
  EXPECT_EQ(readOf(prologue, 2), (std::vector<int64_t>{8, 12, 2, 24, 1}));
  for (mlir::Operation *op : prologue.ops)
    EXPECT_EQ(prologue.reads.count(op->getResult(0)) > 0,
              llvm::is_contained(attention->getOperands(), op->getResult(0)));
}

// The merged Q/K/V projection of graphc-merge-projections with grouped K/V
// heads: [B=1, S=3, 8 heads, D=2] split 4/2/2 along the heads, each
// transposed to [B, H, S, D]. Unit dims get stride 0.
TEST_F(GraphLayoutTest, MergedProjectionSplitAlongHeads) {
  LayoutPrologue prologue = prologueOf(R"mlir(
func.func @main(%m: tensor<1x3x8x2xf32>) -> tensor<1x4x3x2xf32> {
  %sizes = graph.constant {value = dense<[4, 2, 2]> : tensor<3xi64>} : () -> tensor<3xi64>
  %s:3 = graph.split %m, %sizes {axis = 2 : i64, num_outputs = 3 : i64} : (tensor<1x3x8x2xf32>, tensor<3xi64>) -> (tensor<1x3x4x2xf32>, tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>)
  %q = graph.transpose %s#0 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x3x4x2xf32>) -> tensor<1x4x3x2xf32>
  %k = graph.transpose %s#1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %v = graph.transpose %s#2 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %o = graph.attention %q, %k, %v {is_causal = 1 : i64} : (tensor<1x4x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x4x3x2xf32>
  return %o : tensor<1x4x3x2xf32>
}
)mlir");
  EXPECT_EQ(prologue.ops.size(), 4u);
  EXPECT_EQ(readOf(prologue, 0), (std::vector<int64_t>{0, 0, 2, 16, 1}));
  EXPECT_EQ(readOf(prologue, 1), (std::vector<int64_t>{8, 0, 2, 16, 1}));
  EXPECT_EQ(readOf(prologue, 2), (std::vector<int64_t>{12, 0, 2, 16, 1}));
}

// A view that is no strided view of a transposed tensor ([2, 3, 2] transposed
// to [3, 2, 2], viewed as [6, 2]) needs a copy: the transpose and the view
// leave the prologue, and K's plain transpose stays in it. A split with a
// part read elsewhere leaves too.
TEST_F(GraphLayoutTest, StopsWhereACopyIsNeeded) {
  LayoutPrologue prologue = prologueOf(R"mlir(
func.func @main(%x: tensor<2x3x2xf32>, %kh: tensor<1x6x1x2xf32>, %vv: tensor<1x1x12x2xf32>) -> (tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>) {
  %shape = graph.constant {value = dense<[1, 1, 6, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %t = graph.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<2x3x2xf32>) -> tensor<3x2x2xf32>
  %q = graph.reshape %t, %shape : (tensor<3x2x2xf32>, tensor<4xi64>) -> tensor<1x1x6x2xf32>
  %k = graph.transpose %kh {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x6x1x2xf32>) -> tensor<1x1x6x2xf32>
  %s:2 = graph.split %vv {axis = 2 : i64, num_outputs = 2 : i64} : (tensor<1x1x12x2xf32>) -> (tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>)
  %o = graph.attention %q, %k, %s#0 : (tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>) -> tensor<1x1x6x2xf32>
  return %o, %s#1 : tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>
}
)mlir");
  ASSERT_EQ(prologue.ops.size(), 1u);
  EXPECT_TRUE(mlir::isa<graphc::graph::TransposeOp>(prologue.ops.front()));
  EXPECT_EQ(readOf(prologue, 0), (std::vector<int64_t>{-1}));
  EXPECT_EQ(readOf(prologue, 1), (std::vector<int64_t>{0, 0, 0, 2, 1}));
  EXPECT_EQ(readOf(prologue, 2), (std::vector<int64_t>{-1}));
}

// An empty tensor has no layout to follow: its view stays out of the
// prologue (and nothing divides by its zero dim).
TEST_F(GraphLayoutTest, EmptyTensorsStayOut) {
  LayoutPrologue prologue = prologueOf(R"mlir(
func.func @main(%q: tensor<1x1x3x2xf32>, %kk: tensor<1x0x2xf32>, %v: tensor<1x1x0x2xf32>) -> tensor<1x1x3x2xf32> {
  %shape = graph.constant {value = dense<[1, 1, 0, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %k = graph.reshape %kk, %shape {allowzero = 1 : i64} : (tensor<1x0x2xf32>, tensor<4xi64>) -> tensor<1x1x0x2xf32>
  %o = graph.attention %q, %k, %v : (tensor<1x1x3x2xf32>, tensor<1x1x0x2xf32>, tensor<1x1x0x2xf32>) -> tensor<1x1x3x2xf32>
  return %o : tensor<1x1x3x2xf32>
}
)mlir");
  EXPECT_TRUE(prologue.ops.empty());
  EXPECT_TRUE(prologue.reads.empty());
}

} // namespace
