include "dialects/Graph/GraphBase.td"

def Graph_PickOp : Graph_UnaryOp<"pick", Graph_FloatTensor> {
  let scalarDefinition = "pick";
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedStrAttr<StrAttr, "a">:$mode);
}
