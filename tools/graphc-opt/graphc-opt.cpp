//===- graphc-opt.cpp - graphc dialects and passes for lit tests ----------===//

#include "dialects/Exec/ExecOps.h"
#include "dialects/Graph/GraphDialect.h"
#include "dialects/Kernel/KernelOps.h"
#include "lib/HostKernels/HostEvaluator.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<graphc::graph::GraphDialect, graphc::kernel::KernelDialect,
                  graphc::exec::ExecDialect, mlir::func::FuncDialect>();
  graphc::graph::registerHostEvaluator(registry);
  graphc::registerGraphcPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "graphc optimizer driver\n", registry));
}
