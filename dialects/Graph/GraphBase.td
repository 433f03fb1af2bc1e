//===- GraphBase.td - graph dialect definition and op classes -*- tablegen -*-===//
//
// The graph dialect holds ONNX semantics on builtin tensor types, one op per
// meaning rather than one per ONNX version. Conventions every op follows (the
// importer and the host kernels rely on them):
//  * the mnemonic is the snake_case ONNX op name (see lib/Import/ONNX/OpTable.def);
//  * operands mirror the ONNX inputs of the newest opset (<= 22), in order;
//    ops with optional operands carry AttrSizedOperandSegments;
//  * attributes keep their ONNX names; INT -> I64Attr, FLOAT -> F32Attr,
//    STRING -> StrAttr, INTS -> DenseI64ArrayAttr, FLOATS -> DenseF32ArrayAttr,
//    TENSOR -> ElementsAttr, data types (Cast.to, ...) -> TypeAttr;
//  * results mirror the required ONNX outputs.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHC_GRAPH_BASE_TD
#define GRAPHC_GRAPH_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Graph_Dialect : Dialect {
  let name = "graph";
  let cppNamespace = "::graphc::graph";
  let summary = "ONNX semantics on tensors, normalised across opsets";
  let description = [{
    The entry dialect of graphc. `func.func @main` holds one op per ONNX node
    after version normalisation. Dynamic dimensions are `?` in the tensor
    types; their ONNX dim_param names live in the `graph.dims` argument and
    result attributes of the function.
  }];
  let hasConstantMaterializer = 1;
  let usePropertiesForAttributes = 0;
}

// Element types graphc compiles.
def Graph_Float : AnyTypeOf<[F16, BF16, F32, F64]>;
def Graph_Int : AnyTypeOf<[I8, I16, I32, I64, UI8, UI16, UI32, UI64]>;
def Graph_Bool : I<1>;
def Graph_Element : AnyTypeOf<[Graph_Float, Graph_Int, Graph_Bool]>;
def Graph_Tensor : TensorOf<[Graph_Element]>;
def Graph_FloatTensor : TensorOf<[Graph_Float]>;
def Graph_IntTensor : TensorOf<[Graph_Int]>;
def Graph_BoolTensor : TensorOf<[Graph_Bool]>;
def Graph_IndexTensor : TensorOf<[I32, I64]>;
def Graph_I64Tensor : TensorOf<[I64]>;

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, traits> {
  // All graph ops print uniformly, with their full functional type.
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

// Ops whose result types are computed from operands and attributes. The
// shared isCompatibleReturnTypes accepts refined (more static) results.
class Graph_InferOp<string mnemonic, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<InferTypeOpInterface>])> {
  // Every op folds by evaluation with the host kernels when its operands are
  // constants. An op with its own folding rules replaces extraClassDefinition
  // and calls graph::foldByEvaluation itself.
  let hasFolder = 1;
  let extraClassDeclaration = [{
    static bool isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                        ::mlir::TypeRange rhs);
  }];
  let extraClassDefinition = [{
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                            ::mlir::TypeRange rhs) {
      return ::graphc::graph::areCompatibleShapedTypes(lhs, rhs);
    }
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor adaptor) {
      ::llvm::SmallVector<::mlir::OpFoldResult, 1> results;
      if (::mlir::failed(::graphc::graph::foldByEvaluation(
              getOperation(), adaptor.getOperands(), results)))
        return {};
      return results.front();
    }
  }];
}

// Like Graph_InferOp, for ops with several (or variadic) results.
class Graph_MultiResultInferOp<string mnemonic, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<InferTypeOpInterface>])> {
  let hasFolder = 1;
  let extraClassDeclaration = [{
    static bool isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                        ::mlir::TypeRange rhs);
  }];
  let extraClassDefinition = [{
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                            ::mlir::TypeRange rhs) {
      return ::graphc::graph::areCompatibleShapedTypes(lhs, rhs);
    }
    ::mlir::LogicalResult $cppClass::fold(
        FoldAdaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::OpFoldResult> &results) {
      return ::graphc::graph::foldByEvaluation(getOperation(),
                                               adaptor.getOperands(), results);
    }
  }];
}

// Elementwise op with one operand and a result of the same type.
class Graph_UnaryOp<string mnemonic, Type operandType = Graph_Tensor,
                    list<Trait> traits = []>
    : Graph_InferOp<mnemonic, !listconcat(traits, [Pure])> {
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$output);
}

// Elementwise op with numpy broadcasting of two operands of one element type.
class Graph_BinaryOp<string mnemonic, Type operandType = Graph_Tensor,
                     list<Trait> traits = []>
    : Graph_InferOp<mnemonic, !listconcat(traits, [Pure])> {
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$output);
}

// Broadcasting comparison: result is a bool tensor.
class Graph_CompareOp<string mnemonic, Type operandType = Graph_Tensor,
                      list<Trait> traits = []>
    : Graph_InferOp<mnemonic, !listconcat(traits, [Pure])> {
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs Graph_BoolTensor:$output);
}

#endif // GRAPHC_GRAPH_BASE_TD
