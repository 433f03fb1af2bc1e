//===- LaunchTable.cpp - printing the launches CUDA codegen computes ------===//

#include "lib/Codegen/LaunchTable.h"

#include "dialects/Exec/ExecOps.h"

using namespace mlir;

namespace graphc::codegen {

void printLaunches(ModuleOp module, const LaunchTable &launches,
                   llvm::raw_ostream &out) {
  auto dims = [&](const std::array<uint32_t, 3> &d) {
    out << "[" << d[0] << ", " << d[1] << ", " << d[2] << "]";
  };
  out << "# kernel kind hash grid block shared_bytes unit [reports_errors] "
         "[library]\n";
  for (auto kernel : module.getOps<exec::KernelOp>()) {
    const CudaLaunch *launch = launches.lookup(kernel.getSymName());
    if (!launch)
      continue;
    out << "@" << kernel.getSymName() << " "
        << kernel::stringifyFusionKind(kernel.getKind()) << " "
        << kernel.getHash() << " grid ";
    dims(launch->grid);
    out << " block ";
    dims(launch->block);
    out << " shared_bytes " << launch->sharedBytes << " unit " << launch->unit;
    if (launch->reportsErrors)
      out << " reports_errors";
    // The generated kernel of a library kernel finishes a convolution's
    // epilogue or stands in for cuDNN's attention.
    if (std::optional<kernel::Library> library = kernel.getLibrary())
      out << " library " << kernel::stringifyLibrary(*library);
    out << "\n";
  }
}

} // namespace graphc::codegen
