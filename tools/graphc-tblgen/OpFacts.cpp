//===- OpFacts.cpp - what graphc's backends read from an op ---------------===//

#include "OpFacts.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"

using namespace llvm;
using mlir::tblgen::NamedAttribute;
using mlir::tblgen::Operator;

namespace graphc::tblgen {

std::string fieldName(StringRef attrName) {
  std::string camel = convertToCamelFromSnakeCase(attrName, false);
  // Names C++ reserves.
  if (camel == "default" || camel == "int" || camel == "float")
    camel += "Value";
  return camel;
}

StringRef structName(const Operator &op) {
  StringRef name = op.getCppClassName();
  name.consume_back("Op");
  return name;
}

namespace {

/// The bits of one type constraint, recursively through AnyTypeOf and the
/// element types of Graph_TensorOf.
unsigned typeBits(const Operator &op, const Record *type) {
  using namespace dtype;
  if (type->getValue("allowedTypes")) {
    unsigned bits = 0;
    for (const Record *allowed : type->getValueAsListOfDefs("allowedTypes"))
      bits |= typeBits(op, allowed);
    return bits;
  }
  // Graph_TensorOf.
  if (type->getValue("elementTypes")) {
    unsigned bits = 0;
    for (const Record *element : type->getValueAsListOfDefs("elementTypes"))
      bits |= typeBits(op, element);
    return bits;
  }
  if (type->getName() == "BF16")
    return kBF16;
  // The ODS type classes with a width, by class and width.
  static const struct {
    const char *typeClass;
    int64_t bitwidth;
    unsigned bit;
  } widths[] = {{"F", 16, kF16},  {"F", 32, kF32},  {"F", 64, kF64},
                {"I", 1, kBoolBit}, {"I", 8, kI8},  {"I", 16, kI16},
                {"I", 32, kI32},  {"I", 64, kI64},  {"UI", 8, kU8},
                {"UI", 16, kU16}, {"UI", 32, kU32}, {"UI", 64, kU64}};
  for (const auto &width : widths)
    if (type->isSubClassOf(width.typeClass) &&
        type->getValueAsInt("bitwidth") == width.bitwidth)
      return width.bit;
  PrintFatalError(op.getLoc(),
                  formatv("graphc-tblgen: {0}: no host dtype for the type "
                          "constraint {1}",
                          op.getOperationName(), type->getName()));
}

} // namespace

unsigned operandDtypes(const Operator &op, int index) {
  return typeBits(op, &op.getOperand(index).constraint.getDef());
}

unsigned resultDtypes(const Operator &op, int index) {
  return typeBits(op, &op.getResult(index).constraint.getDef());
}

std::string dtypeSetName(unsigned bits) {
  using namespace dtype;
  static const std::pair<unsigned, const char *> groups[] = {
      {kFloats | kInts | kBoolBit, "kAll"},
      {kFloats | kInts, "kNumeric"},
      {kFloats, "kFloats"},
      {kInts, "kInts"},
      {kSigned, "kSigned"},
      {kUnsigned, "kUnsigned"},
      {kBoolBit, "kBoolBit"}};
  static const char *const single[] = {"kF32", "kF64", "kF16", "kBF16",
                                       "kI8",  "kI16", "kI32", "kI64",
                                       "kU8",  "kU16", "kU32", "kU64",
                                       "kBoolBit"};
  SmallVector<std::string> parts;
  for (auto [group, name] : groups)
    if ((bits & group) == group) {
      parts.push_back(name);
      bits &= ~group;
    }
  for (unsigned bit = 0; bit < std::size(single); ++bit)
    if (bits & (1u << bit))
      parts.push_back(single[bit]);
  return join(parts, " | ");
}

StringRef scalarDefinition(const Operator &op) {
  return op.getDef().getValueAsString("scalarDefinition");
}

SmallVector<const NamedAttribute *> scalarAttributes(const Operator &op) {
  SmallVector<const NamedAttribute *> attrs;
  for (const NamedAttribute &named : op.getAttributes()) {
    if (named.attr.isDerivedAttr())
      continue;
    StringRef kind = named.attr.getBaseAttr().getAttrDefName();
    if (kind != "I64Attr" && kind != "F32Attr" && kind != "F64Attr")
      PrintFatalError(op.getLoc(),
                      formatv("graphc-tblgen: {0}: a scalar definition takes "
                              "integer and float attributes only, not {1} "
                              "('{2}'); write its model by hand",
                              op.getOperationName(), kind, named.name));
    if (named.attr.isOptional() && !named.attr.hasDefaultValue())
      PrintFatalError(op.getLoc(),
                      formatv("graphc-tblgen: {0}: attribute '{1}' of a "
                              "scalar definition needs a default",
                              op.getOperationName(), named.name));
    attrs.push_back(&named);
  }
  return attrs;
}

} // namespace graphc::tblgen
