//===- OpFacts.h - what graphc's backends read from an op ------*- C++ -*-===//
//
// The facts about a graph op that more than one graphc-tblgen backend
// derives: the C++ names of its attributes on the host, the host dtypes an
// operand constraint admits, and its scalar definition.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_TOOLS_GRAPHC_TBLGEN_OPFACTS_H
#define GRAPHC_TOOLS_GRAPHC_TBLGEN_OPFACTS_H

#include "mlir/TableGen/Operator.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace graphc::tblgen {

/// snake_case -> camelBack: an ONNX attribute's field in attrs::<Op>.
std::string fieldName(llvm::StringRef attrName);

/// graph.leaky_relu's LeakyReluOp -> LeakyRelu: the op's attrs::<Op>.
llvm::StringRef structName(const mlir::tblgen::Operator &op);

/// The kF32 | kI8 | ... bits of lib/HostKernels/KernelSupport.h that
/// operand or result `index` of `op` admits; fails the build for a
/// constraint it cannot read.
unsigned operandDtypes(const mlir::tblgen::Operator &op, int index);
unsigned resultDtypes(const mlir::tblgen::Operator &op, int index);

/// The DtypeSet expression of `bits`, by group name where one matches.
std::string dtypeSetName(unsigned bits);

/// The bits of the host dtype groups.
namespace dtype {
inline constexpr unsigned kF32 = 1u << 0, kF64 = 1u << 1, kF16 = 1u << 2,
                          kBF16 = 1u << 3, kI8 = 1u << 4, kI16 = 1u << 5,
                          kI32 = 1u << 6, kI64 = 1u << 7, kU8 = 1u << 8,
                          kU16 = 1u << 9, kU32 = 1u << 10, kU64 = 1u << 11,
                          kBoolBit = 1u << 12;
inline constexpr unsigned kFloats = kF32 | kF64 | kF16 | kBF16;
inline constexpr unsigned kSigned = kI8 | kI16 | kI32 | kI64;
inline constexpr unsigned kUnsigned = kU8 | kU16 | kU32 | kU64;
inline constexpr unsigned kInts = kSigned | kUnsigned;
} // namespace dtype

/// The op's `scalarDefinition` (empty when it has none).
llvm::StringRef scalarDefinition(const mlir::tblgen::Operator &op);

/// The op's attributes that a scalar definition takes, in ODS order; fails
/// the build for one of a kind a definition cannot take.
llvm::SmallVector<const mlir::tblgen::NamedAttribute *>
scalarAttributes(const mlir::tblgen::Operator &op);

} // namespace graphc::tblgen

#endif // GRAPHC_TOOLS_GRAPHC_TBLGEN_OPFACTS_H
