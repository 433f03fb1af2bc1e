include "dialects/Graph/GraphBase.td"

def Graph_FlagOp : Graph_Op<"flag"> {
  let arguments = (ins Graph_Tensor:$input, BoolAttr:$flag);
  let results = (outs Graph_Tensor:$output);
}
