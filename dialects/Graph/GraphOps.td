//===- GraphOps.td - graph dialect ops ---------------------*- tablegen -*-===//

#ifndef GRAPHC_GRAPH_OPS_TD
#define GRAPHC_GRAPH_OPS_TD

include "dialects/Graph/GraphBase.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Graph_ConstantOp : Graph_Op<"constant", [Pure, ConstantLike]> {
  let summary = "a constant tensor (weights are dense resource blobs)";
  let description = [{
    Example:
    ```mlir
    %0 = graph.constant {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Graph_Tensor:$output);
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

def Graph_ReluOp : Graph_UnaryOp<"relu"> {
  let summary = "max(x, 0)";
}

def Graph_AddOp : Graph_BinaryOp<"add", Graph_Tensor, [Commutative]> {
  let summary = "elementwise addition with numpy broadcasting";
  let description = [{
    ```mlir
    %0 = graph.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

def Graph_ReshapeOp : Graph_InferOp<"reshape", [Pure]> {
  let summary = "reshape to a shape given as a 1-D i64 tensor";
  let description = [{
    Zeros copy the input dim (unless `allowzero`), one -1 is inferred. The
    result dims are static when the shape operand is a constant.
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_I64Tensor:$shape,
                       DefaultValuedAttr<I64Attr, "0">:$allowzero);
  let results = (outs Graph_Tensor:$reshaped);
}

#endif // GRAPHC_GRAPH_OPS_TD
