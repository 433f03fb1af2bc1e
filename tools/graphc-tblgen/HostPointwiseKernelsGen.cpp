//===- HostPointwiseKernelsGen.cpp - host kernels from scalar definitions -===//
//
// -gen-host-pointwise-kernels: the host kernel of every graph op with a
// scalar definition whose ODS does not say `scalarHostKernel = 0`: the
// definition evaluated in the compute type (scalar::Eval) over the dtypes
// the operand constraint admits, its attributes from attrs::<Op>. Sections:
//   GRAPHC_HOST_KERNEL_LIST     GC_HOST_KERNEL(name) entries
//   GRAPHC_HOST_UNARY_KERNELS   one operand (Elementwise.cpp: scalarMap,
//                               scalarPredicate for a bool result)
//   GRAPHC_HOST_BINARY_KERNELS  two broadcast operands (Binary.cpp:
//                               scalarBinary, scalarCompare for a bool
//                               result)
//
//===----------------------------------------------------------------------===//

#include "OpFacts.h"

#include "mlir/TableGen/GenInfo.h"
#include "mlir/TableGen/Operator.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

using namespace llvm;
using mlir::tblgen::NamedAttribute;
using mlir::tblgen::Operator;
using namespace graphc::tblgen;

namespace {

std::vector<Operator> kernelOps(const RecordKeeper &records, int arity) {
  std::vector<Operator> ops;
  for (const Record *def : records.getAllDerivedDefinitionsIfDefined("Op")) {
    Operator op(def);
    if (op.getDialectName() != "graph" || scalarDefinition(op).empty() ||
        !def->getValueAsBit("scalarHostKernel"))
      continue;
    if (op.getNumOperands() < 1 || op.getNumOperands() > 2 ||
        op.getNumVariableLengthOperands() != 0 || op.getNumResults() != 1)
      PrintFatalError(op.getLoc(),
                      formatv("graphc-tblgen: {0}: a generated host kernel "
                              "takes one or two operands and one result; set "
                              "scalarHostKernel = 0 and write it by hand",
                              op.getOperationName()));
    if (op.getNumOperands() == arity)
      ops.push_back(op);
  }
  return ops;
}

void emitKernel(const Operator &op, raw_ostream &os) {
  unsigned operands = operandDtypes(op, 0);
  bool boolResult = resultDtypes(op, 0) == dtype::kBoolBit &&
                    operands != dtype::kBoolBit;
  StringRef driver = op.getNumOperands() == 1
                         ? (boolResult ? "scalarPredicate" : "scalarMap")
                         : (boolResult ? "scalarCompare" : "scalarBinary");
  SmallVector<const NamedAttribute *> attrs = scalarAttributes(op);
  std::string name =
      op.getOperationName().substr(op.getDialectName().size() + 1);
  if (attrs.empty())
    os << formatv("GC_KERNEL({0}) {{\n", name);
  else
    os << formatv("GC_KERNEL_ATTRS({0}, {1}, a) {{\n", name, structName(op));
  os << formatv("  return {0}<{1}>(ctx, [&](auto &b, auto x{2}) {{\n", driver,
                dtypeSetName(operands),
                op.getNumOperands() == 2 ? ", auto y" : "");
  os << formatv("    return scalar::{0}(b, x{1}", scalarDefinition(op),
                op.getNumOperands() == 2 ? ", y" : "");
  for (const NamedAttribute *named : attrs)
    os << ", a." << fieldName(named->name);
  os << ");\n  });\n}\n\n";
}

bool emitHostPointwiseKernels(const RecordKeeper &records, raw_ostream &os) {
  emitSourceFileHeader("host kernels of the graph ops with a scalar "
                       "definition",
                       os, records);
  std::vector<Operator> unary = kernelOps(records, 1);
  std::vector<Operator> binary = kernelOps(records, 2);
  os << "#ifdef GRAPHC_HOST_KERNEL_LIST\n";
  for (const std::vector<Operator> *ops : {&unary, &binary})
    for (const Operator &op : *ops)
      os << formatv("GC_HOST_KERNEL({0})\n",
                    op.getOperationName().substr(op.getDialectName().size() +
                                                 1));
  os << "#endif // GRAPHC_HOST_KERNEL_LIST\n\n";
  os << "#ifdef GRAPHC_HOST_UNARY_KERNELS\n\n";
  for (const Operator &op : unary)
    emitKernel(op, os);
  os << "#endif // GRAPHC_HOST_UNARY_KERNELS\n\n";
  os << "#ifdef GRAPHC_HOST_BINARY_KERNELS\n\n";
  for (const Operator &op : binary)
    emitKernel(op, os);
  os << "#endif // GRAPHC_HOST_BINARY_KERNELS\n";
  return false;
}

mlir::GenRegistration
    genHostPointwiseKernels("gen-host-pointwise-kernels",
                            "Generate the host kernels of the graph ops with "
                            "a scalar definition",
                            emitHostPointwiseKernels);

} // namespace
