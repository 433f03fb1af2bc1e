//===- graphc-tblgen.cpp - graphc's TableGen backends ---------------------===//
//
// mlir-tblgen's driver with the backends that derive graphc's own code from
// the op definitions, so that what ODS says about an op (its attributes and
// their ONNX defaults, its scalar definition, its operand types) is written
// once. The backends register themselves:
//   -gen-host-kernel-attrs        HostKernelAttrsGen.cpp
//   -gen-host-pointwise-kernels   HostPointwiseKernelsGen.cpp
//   -gen-scalar-models            ScalarModelsGen.cpp
//
//===----------------------------------------------------------------------===//

#include "mlir/Tools/mlir-tblgen/MlirTblgenMain.h"

int main(int argc, char **argv) { return mlir::MlirTblgenMain(argc, argv); }
