//===- ScalarModelsGen.cpp - scalar models from scalar definitions --------===//
//
// -gen-scalar-models: for every graph op whose ODS definition names its
// scalar definition (`let scalarDefinition = "softsign"`), the body that
// builds its expression tree from the template in lib/Support/ScalarOps.h,
// with the op's attributes read through their ODS accessors, and the
// attachment of its ScalarComputeOpInterface model. GraphScalar.cpp
// includes the two sections:
//   GRAPHC_SCALAR_BODIES   body(XOp, TreeBuilder &, Operands) overloads
//   GRAPHC_SCALAR_ATTACH   attachDefinedScalarModels(MLIRContext &)
// An op's model checks its input kind (FloatInput, IntegerInput, AnyInput)
// by the element types its operand constraint admits.
//
//===----------------------------------------------------------------------===//

#include "OpFacts.h"

#include "mlir/TableGen/GenInfo.h"
#include "mlir/TableGen/Operator.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

using namespace llvm;
using mlir::tblgen::NamedAttribute;
using mlir::tblgen::Operator;
using namespace graphc::tblgen;

namespace {

/// The ops with a scalar definition, in record order.
std::vector<Operator> definedOps(const RecordKeeper &records) {
  std::vector<Operator> ops;
  for (const Record *def : records.getAllDerivedDefinitionsIfDefined("Op")) {
    Operator op(def);
    if (op.getDialectName() != "graph" || scalarDefinition(op).empty())
      continue;
    if (op.getNumVariableLengthOperands() != 0)
      PrintFatalError(op.getLoc(),
                      formatv("graphc-tblgen: {0}: a scalar definition needs "
                              "a fixed operand list; write its model by hand",
                              op.getOperationName()));
    ops.push_back(op);
  }
  return ops;
}

/// The C++ value of attribute `named` of `op` as the definition takes it.
std::string attributeValue(const Operator &op, const NamedAttribute &named) {
  std::string getter = op.getGetterName(named.name);
  StringRef kind = named.attr.getBaseAttr().getAttrDefName();
  if (kind == "I64Attr")
    return formatv("static_cast<int64_t>(op.{0}())", getter);
  return formatv("op.{0}().convertToDouble()", getter);
}

void emitBody(const Operator &op, raw_ostream &os) {
  SmallVector<const NamedAttribute *> attrs = scalarAttributes(op);
  os << formatv("/// {0}: scalar::{1}.\n", op.getOperationName(),
                scalarDefinition(op));
  os << formatv("ScalarValue body({0}{1}, TreeBuilder &b, Operands x) {{\n",
                op.getCppClassName(), attrs.empty() ? "" : " op");
  os << formatv("  return scalar::{0}(b", scalarDefinition(op));
  for (int i = 0, e = op.getNumOperands(); i < e; ++i)
    os << formatv(", x[{0}]", i);
  for (const NamedAttribute *named : attrs)
    os << ", " << attributeValue(op, *named);
  os << ");\n}\n\n";
}

/// FloatInput, IntegerInput or AnyInput: what operand 0 admits.
StringRef inputKind(const Operator &op) {
  unsigned bits = operandDtypes(op, 0);
  if ((bits & ~dtype::kFloats) == 0)
    return "FloatInput";
  if ((bits & ~dtype::kInts) == 0)
    return "IntegerInput";
  return "AnyInput";
}

bool emitScalarModels(const RecordKeeper &records, raw_ostream &os) {
  emitSourceFileHeader("graph ops' scalar models from their scalar "
                       "definitions",
                       os, records);
  std::vector<Operator> ops = definedOps(records);
  os << "#ifdef GRAPHC_SCALAR_BODIES\n\n";
  for (const Operator &op : ops)
    emitBody(op, os);
  os << "#endif // GRAPHC_SCALAR_BODIES\n\n";

  MapVector<StringRef, SmallVector<std::string>> byKind;
  for (const Operator &op : ops)
    byKind[inputKind(op)].push_back(op.getCppClassName().str());
  os << "#ifdef GRAPHC_SCALAR_ATTACH\n\n";
  os << "/// Attaches the models of the ops with a scalar definition.\n";
  os << "void attachDefinedScalarModels(MLIRContext &context) {\n";
  for (auto &[kind, names] : byKind) {
    os << formatv("  attach<{0}", kind);
    for (const std::string &name : names)
      os << ",\n         " << name;
    os << ">(context);\n";
  }
  os << "}\n\n#endif // GRAPHC_SCALAR_ATTACH\n";
  return false;
}

mlir::GenRegistration
    genScalarModels("gen-scalar-models",
                    "Generate the scalar models of the graph ops with a "
                    "scalar definition",
                    emitScalarModels);

} // namespace
