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
def Graph_Numeric : AnyTypeOf<[Graph_Float, Graph_Int]>;
def Graph_Element : AnyTypeOf<[Graph_Float, Graph_Int, Graph_Bool]>;
// The 8-bit floats are storage types: only Cast (and CastLike) converts to
// and from them and constants hold them (Graph_AnyTensor); other ops refuse
// them in their verifiers.
def Graph_Float8 : AnyTypeOf<[F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ]>;
// Every value has a rank: bucketing and codegen need one, and the importer
// rejects graphs whose ranks ONNX shape inference cannot determine. The
// element types stay readable to graphc-tblgen, which derives the host
// kernels' dtypes from them.
class Graph_TensorOf<list<Type> allowed> : RankedTensorOf<allowed> {
  list<Type> elementTypes = allowed;
}
def Graph_Tensor : Graph_TensorOf<[Graph_Element]>;
def Graph_AnyTensor : Graph_TensorOf<[Graph_Element, Graph_Float8]>;
def Graph_NumericTensor : Graph_TensorOf<[Graph_Numeric]>;
def Graph_FloatTensor : Graph_TensorOf<[Graph_Float]>;
def Graph_IntTensor : Graph_TensorOf<[Graph_Int]>;
def Graph_SignedOrFloatTensor : Graph_TensorOf<[Graph_Float, I8, I16, I32, I64]>;
def Graph_BoolTensor : Graph_TensorOf<[Graph_Bool]>;
def Graph_IndexTensor : Graph_TensorOf<[I32, I64]>;
def Graph_I64Tensor : Graph_TensorOf<[I64]>;

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, traits> {
  // All graph ops print uniformly, with their full functional type.
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  // A pointwise op's scalar semantics: the template of this name in
  // lib/Support/ScalarOps.h, called with the builder, the operands and then
  // the op's attributes in their ODS order. graphc-tblgen derives the op's
  // ScalarComputeOpInterface model from it and, unless scalarHostKernel is
  // 0, its host kernel, for the dtypes the operand constraint allows. Empty
  // for the pointwise ops whose model is written by hand (GraphScalar.cpp).
  string scalarDefinition = "";
  // 0 where the host kernel is written by hand; a comment says why.
  bit scalarHostKernel = 1;
}

// Ops whose result types are computed from operands and attributes. The
// generated inferReturnTypes checks what the adaptor relies on (ranked
// operands, well-formed operand segments, attributes of the declared kinds),
// then calls the op's
// `inferResultTypes(infer, adaptor, results)`: `sharedInference` when an op
// family shares one body, else a definition in GraphTypeInference*.cpp.
// The shared isCompatibleReturnTypes accepts refined (more static) results.
class Graph_InferOpBase<string mnemonic, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<InferTypeOpInterface>])> {
  // C++ body of inferResultTypes shared by an op family, or empty.
  code sharedInference = "";
  // Number of ONNX input slots (operands of the ODS argument list).
  int numOperandSlots = !foldl(0, !range(!size(arguments)), count, i,
      !add(count,
           !if(!isa<TypeConstraint>(!getdagarg<Constraint>(arguments, i)),
               1, 0)));
  // Every op folds by evaluation with the host kernels when its operands
  // are constants. An op with its own folding rules sets hasCustomFolder and
  // calls graph::foldByEvaluation from its fold method.
  bit hasCustomFolder = 0;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    static bool isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                        ::mlir::TypeRange rhs);
    static ::mlir::LogicalResult
    inferResultTypes(const ::graphc::graph::TypeInference &infer,
                     Adaptor adaptor,
                     ::llvm::SmallVectorImpl<::mlir::Type> &results);
  }];
  code inferenceDefinition = [{
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                            ::mlir::TypeRange rhs) {
      return ::graphc::graph::areCompatibleShapedTypes(lhs, rhs);
    }
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context,
        ::std::optional<::mlir::Location> location,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr attributes,
        ::mlir::OpaqueProperties properties, ::mlir::RegionRange regions,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      ::graphc::graph::TypeInference infer(context, location);
      if (!attributes)
        attributes = ::mlir::DictionaryAttr::get(context);
      if (::mlir::failed(infer.checkOperands(
              operands, attributes,
              hasTrait<::mlir::OpTrait::AttrSizedOperandSegments>()
                  ? }] # !cast<string>(numOperandSlots) # [{ : -1)))
        return ::mlir::failure();
      Adaptor adaptor(operands, attributes, properties, regions);
      if (::mlir::failed(infer.checkAttributes(
              [&](::mlir::Location loc) { return adaptor.verify(loc); })))
        return ::mlir::failure();
      return inferResultTypes(infer, adaptor, inferredReturnTypes);
    }
  }] # !if(!empty(sharedInference), "", [{
    ::mlir::LogicalResult $cppClass::inferResultTypes(
        const ::graphc::graph::TypeInference &infer, Adaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::Type> &results) {
  }] # sharedInference # [{
    }
  }]);
}

// A Graph_InferOpBase with one result.
class Graph_InferOp<string mnemonic, list<Trait> traits = []>
    : Graph_InferOpBase<mnemonic, traits> {
  let extraClassDefinition = inferenceDefinition # !if(hasCustomFolder, "", [{
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor adaptor) {
      ::llvm::SmallVector<::mlir::OpFoldResult, 1> results;
      if (::mlir::failed(::graphc::graph::foldByEvaluation(
              getOperation(), adaptor.getOperands(), results)))
        return {};
      return results.front();
    }
  }]);
}

// Like Graph_InferOp, for ops with several (or variadic) results.
class Graph_MultiResultInferOp<string mnemonic, list<Trait> traits = []>
    : Graph_InferOpBase<mnemonic, traits> {
  let extraClassDefinition = inferenceDefinition # !if(hasCustomFolder, "", [{
    ::mlir::LogicalResult $cppClass::fold(
        FoldAdaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::OpFoldResult> &results) {
      return ::graphc::graph::foldByEvaluation(getOperation(),
                                               adaptor.getOperands(), results);
    }
  }]);
}

// Each result element is a function of the operand elements at the same
// position under numpy broadcasting, so a chain of such ops can be computed
// in one loop over the result: the pointwise fusion kind.
def Graph_Pointwise : NativeOpTrait<"Pointwise"> {
  let cppNamespace = "::graphc::graph::OpTrait";
}

// The kernel template family of an op that is not pointwise, which is the
// kind of the fusion it anchors (kernel::FusionKind). An op with none of
// these, and not pointwise, moves data: the layout kind.
// Contractions: mat_mul, gemm, einsum (the tiled matmul templates).
def Graph_MatmulKind : NativeOpTrait<"MatmulKind"> {
  let cppNamespace = "::graphc::graph::OpTrait";
}
// Convolutions.
def Graph_ConvKind : NativeOpTrait<"ConvKind"> {
  let cppNamespace = "::graphc::graph::OpTrait";
}
// Ops reducing along rows or windows: reductions, arg reductions,
// softmax-likes, scans, top-k, normalisations, pooling.
def Graph_ReductionKind : NativeOpTrait<"ReductionKind"> {
  let cppNamespace = "::graphc::graph::OpTrait";
}
// Scaled dot-product attention (the flash-style template).
def Graph_AttentionKind : NativeOpTrait<"AttentionKind"> {
  let cppNamespace = "::graphc::graph::OpTrait";
}

// The op reads indices, lengths or an axis from an operand's values, and a
// value out of range makes the run fail with a status (the host kernel
// refuses it, the CUDA kernel reports it through the error record). Such an
// op is never computed speculatively: an If whose condition is known only
// at run time is imported as both branches and a select only when neither
// branch holds one (ControlFlowImport.cpp).
def Graph_ChecksValues : NativeOpTrait<"ChecksValues"> {
  let cppNamespace = "::graphc::graph::OpTrait";
}

// Elementwise op with one operand and a result of the same type.
class Graph_UnaryOp<string mnemonic, Type operandType = Graph_Tensor,
                    list<Trait> traits = []>
    : Graph_InferOp<mnemonic, !listconcat(traits, [Pure, Graph_Pointwise])> {
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$output);
  let sharedInference = [{
    return ::graphc::graph::inferSameType(adaptor.getInput(), results);
  }];
}

// Elementwise op with numpy broadcasting of two operands of one element type.
class Graph_BinaryOp<string mnemonic, Type operandType = Graph_Tensor,
                     list<Trait> traits = []>
    : Graph_InferOp<mnemonic, !listconcat(traits, [Pure, Graph_Pointwise])> {
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$output);
  let sharedInference = [{
    return ::graphc::graph::inferBroadcast(infer, adaptor.getOperands(),
                                           ::mlir::Type(), results);
  }];
}

// Broadcasting comparison: result is a bool tensor.
class Graph_CompareOp<string mnemonic, Type operandType = Graph_Tensor,
                      list<Trait> traits = []>
    : Graph_InferOp<mnemonic, !listconcat(traits, [Pure, Graph_Pointwise])> {
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs Graph_BoolTensor:$output);
  let sharedInference = [{
    return ::graphc::graph::inferBroadcast(
        infer, adaptor.getOperands(),
        ::mlir::IntegerType::get(infer.getContext(), 1), results);
  }];
}

// Broadcasting op over any number of operands of one element type.
class Graph_VariadicOp<string mnemonic, Type operandType = Graph_Tensor,
                       list<Trait> traits = []>
    : Graph_InferOp<mnemonic, !listconcat(traits, [Pure, Graph_Pointwise])> {
  let arguments = (ins Variadic<operandType>:$inputs);
  let results = (outs operandType:$output);
  let sharedInference = [{
    return ::graphc::graph::inferBroadcast(infer, adaptor.getInputs(),
                                           ::mlir::Type(), results);
  }];
}

// Reduction over `axes` (an optional 1-D i64 operand; absent or empty means
// all axes unless noop_with_empty_axes).
class Graph_ReduceOp<string mnemonic, Type operandType = Graph_NumericTensor>
    : Graph_InferOp<mnemonic, [Pure, Graph_ReductionKind]> {
  let arguments = (ins operandType:$data, Optional<Graph_I64Tensor>:$axes,
                       DefaultValuedAttr<I64Attr, "1">:$keepdims,
                       DefaultValuedAttr<I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs operandType:$reduced);
  let sharedInference = [{
    return ::graphc::graph::inferReduction(
        infer, adaptor.getData(), adaptor.getAxes(), adaptor.getKeepdims(),
        adaptor.getNoopWithEmptyAxes(), results);
  }];
}

#endif // GRAPHC_GRAPH_BASE_TD
