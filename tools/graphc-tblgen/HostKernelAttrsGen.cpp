//===- HostKernelAttrsGen.cpp - host kernels' attribute structs -----------===//
//
// -gen-host-kernel-attrs: for every graph op with attributes, a plain C++
// struct (KernelAttrs.h puts them in graphc::hk::attrs) named after the op (graph.leaky_relu ->
// attrs::LeakyRelu) whose fields are the op's ODS attributes, initialised
// with their ODS defaults, and whose read() fills them from the attributes a
// call carries. The host kernels read their attributes only through these
// structs: a default exists once, in the op's definition, and a misspelt
// attribute name is a compile error rather than a silent default.
//
// The kernels run inside models that do not link MLIR, so the output uses
// only lib/HostKernels/KernelSupport.h (KernelContext::readAttr).
//
//===----------------------------------------------------------------------===//

#include "OpFacts.h"

#include "mlir/TableGen/GenInfo.h"
#include "mlir/TableGen/Operator.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

using namespace llvm;
using mlir::tblgen::Attribute;
using mlir::tblgen::NamedAttribute;
using mlir::tblgen::Operator;
using namespace graphc::tblgen;

namespace {

/// How one ODS attribute kind is held and defaulted in a host struct.
struct FieldKind {
  /// The field's type when the attribute has a default or is required.
  StringRef type;
  /// The field's type when the attribute is optional without a default.
  StringRef optionalType;
};

/// The ODS attribute kinds the graph dialect uses. A new kind stops the
/// build here until its host representation is chosen.
std::optional<FieldKind> fieldKind(StringRef defName) {
  if (defName == "I64Attr")
    return FieldKind{"int64_t", "std::optional<int64_t>"};
  if (defName == "F32Attr" || defName == "F64Attr")
    return FieldKind{"double", "std::optional<double>"};
  if (defName == "StrAttr")
    return FieldKind{"const char *", "const char *"};
  if (defName == "DenseI64ArrayAttr")
    return FieldKind{"IntList", "IntList"};
  if (defName == "DenseF32ArrayAttr")
    return FieldKind{"FloatList", "FloatList"};
  if (defName == "TypeAttr")
    return FieldKind{"int32_t", "std::optional<int32_t>"};
  if (defName == "ElementsAttr")
    return FieldKind{"const gc_tensor *", "const gc_tensor *"};
  return std::nullopt;
}

/// The ODS default as the initialiser of a field of `defName`'s kind. An
/// F32Attr's default is the float its literal names, as the op's accessor
/// returns it.
std::string initialiser(const Operator &op, const NamedAttribute &named,
                        StringRef defName) {
  Attribute attr = named.attr;
  if (!attr.hasDefaultValue()) {
    if (defName == "StrAttr" || defName == "ElementsAttr")
      return " = nullptr";
    return (attr.isOptional() ? "" : " = {}");
  }
  StringRef value = attr.getDefaultValue().trim();
  if (defName == "I64Attr")
    return formatv(" = {0}", value).str();
  if (defName == "F32Attr")
    return formatv(" = static_cast<float>({0})", value).str();
  if (defName == "F64Attr")
    return formatv(" = {0}", value).str();
  if (defName == "StrAttr")
    return formatv(" = {0}", value).str();
  if (defName == "DenseI64ArrayAttr" && value.starts_with("{") &&
      value.ends_with("}")) {
    // The list lives in a static array beside the field (listDefault).
    StringRef items = value.drop_front().drop_back().trim();
    if (items.empty())
      return "";
    return formatv(" = {{{0}Default, {1}, true}", fieldName(named.name),
                   items.count(',') + 1)
        .str();
  }
  PrintFatalError(op.getLoc(),
                  formatv("graphc-tblgen: no host default for attribute '{0}' "
                          "({1} = {2})",
                          named.name, defName, value));
}

std::string listDefault(const NamedAttribute &named, StringRef defName) {
  if (defName != "DenseI64ArrayAttr" || !named.attr.hasDefaultValue())
    return "";
  StringRef value = named.attr.getDefaultValue().trim();
  if (value.drop_front().drop_back().trim().empty())
    return "";
  return formatv("  static constexpr int64_t {0}Default[] = {1};\n",
                 fieldName(named.name), value)
      .str();
}

void emitStruct(const Operator &op, raw_ostream &os) {
  os << formatv("/// The attributes of {0}.\n", op.getOperationName());
  os << formatv("struct {0} {{\n", structName(op));
  SmallVector<std::pair<const NamedAttribute *, StringRef>> fields;
  for (const NamedAttribute &named : op.getAttributes()) {
    if (named.attr.isDerivedAttr())
      continue;
    StringRef defName = named.attr.getBaseAttr().getAttrDefName();
    std::optional<FieldKind> kind = fieldKind(defName);
    if (!kind)
      PrintFatalError(op.getLoc(),
                      formatv("graphc-tblgen: attribute '{0}' of {1} has kind "
                              "{2}, which host kernels cannot read yet",
                              named.name, op.getOperationName(), defName));
    bool optional = named.attr.isOptional() && !named.attr.hasDefaultValue();
    os << listDefault(named, defName);
    StringRef type = optional ? kind->optionalType : kind->type;
    os << formatv("  {0}{1}{2}{3};\n", type, type.ends_with("*") ? "" : " ",
                  fieldName(named.name), initialiser(op, named, defName));
    fields.emplace_back(&named, defName);
  }
  os << "\n  /// Fills the fields from the call's attributes: a missing one "
        "keeps its\n  /// default; a required one missing, or one of the wrong "
        "kind, fails.\n";
  os << "  int read(KernelContext &ctx) {\n";
  for (auto [named, defName] : fields) {
    bool required = !named->attr.isOptional() && !named->attr.hasDefaultValue();
    os << formatv("    GC_TRY(ctx.readAttr(\"{0}\", {1}, {2}));\n", named->name,
                  fieldName(named->name),
                  required ? "AttrPresence::required"
                           : "AttrPresence::optional");
  }
  os << "    return 0;\n  }\n};\n\n";
}

bool emitHostKernelAttrs(const RecordKeeper &records, raw_ostream &os) {
  emitSourceFileHeader("host kernels' attribute structs (from the graph "
                       "dialect's ODS)",
                       os, records);
  for (const Record *def : records.getAllDerivedDefinitionsIfDefined("Op")) {
    Operator op(def);
    if (op.getDialectName() != "graph" || op.getNumAttributes() == 0)
      continue;
    emitStruct(op, os);
  }
  return false;
}

mlir::GenRegistration genHostKernelAttrs(
    "gen-host-kernel-attrs",
    "Generate the host kernels' attribute structs of the graph ops",
    emitHostKernelAttrs);

} // namespace
