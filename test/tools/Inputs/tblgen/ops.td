// Graph ops for graphc-tblgen's tests, on the real base classes.
include "dialects/Graph/GraphBase.td"

def Graph_ScaleOp : Graph_UnaryOp<"scale", Graph_FloatTensor> {
  let scalarDefinition = "scale";
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.1">:$factor,
                       DefaultValuedAttr<I64Attr, "-2">:$round_mode);
}

def Graph_MaskOp : Graph_BinaryOp<"mask", Graph_IntTensor> {
  let scalarDefinition = "mask";
}

def Graph_SameOp : Graph_CompareOp<"same", Graph_Tensor> {
  let scalarDefinition = "same";
  // The host kernel is written by hand (a test of the opt-out).
  let scalarHostKernel = 0;
}

def Graph_WindowOp : Graph_Op<"window"> {
  let arguments = (ins Graph_Tensor:$input, I64Attr:$size,
                       OptionalAttr<I64Attr>:$end,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 2}">:$axes,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<TypeAttr>:$dtype);
  let results = (outs Graph_Tensor:$output);
}
