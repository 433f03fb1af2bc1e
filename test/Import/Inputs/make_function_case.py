"""Small ONNX models for the function-expansion lit tests, one per case name.

    python make_function_case.py CASE OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def model(nodes, inputs, outputs, initializers=(), opset=13):
    graph = helper.make_graph(nodes, "case", inputs, outputs, list(initializers))
    m = helper.make_model(graph, producer_name="graphc-lit",
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def tensor(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def case_nll():
    # A context-dependent function: the body depends on the attributes and
    # on whether the optional weight is given.
    return model([helper.make_node("NegativeLogLikelihoodLoss", ["x", "t", "w"], ["loss"],
                                   name="nll", reduction="mean", ignore_index=1)],
                 [tensor("x", F, [3, 5]), tensor("t", I64, [3]), tensor("w", F, [5])],
                 [tensor("loss", F, [])])


def case_sce():
    # SoftmaxCrossEntropyLoss's body calls NegativeLogLikelihoodLoss, whose
    # body is built in a second round; log_prob is an optional output.
    return model([helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["loss", "log_prob"],
                                   name="sce", reduction="sum")],
                 [tensor("x", F, [2, 4, 3]), tensor("t", I64, [2, 3])],
                 [tensor("loss", F, []), tensor("log_prob", F, [2, 4, 3])])


def case_hann():
    # A plain function body whose attribute references take the caller's
    # attributes or the schema's defaults.
    size = numpy_helper.from_array(np.array(8, np.int64), "size")
    return model([helper.make_node("HannWindow", ["size"], ["w"], name="hann", periodic=0)],
                 [], [tensor("w", F, [8])], [size], opset=17)


def case_nll_bad_reduction():
    # libonnx's builder reads any reduction but "none" and "sum" as "mean".
    return model([helper.make_node("NegativeLogLikelihoodLoss", ["x", "t"], ["loss"],
                                   name="nll", reduction="average")],
                 [tensor("x", F, [3, 5]), tensor("t", I64, [3])], [tensor("loss", F, [])])


def case_neither():
    return model([helper.make_node("TfIdfVectorizer", ["x"], ["a"], name="tfidf")],
                 [tensor("x", F, [1, 2, 8, 8]), tensor("r", F, [3, 4]),
                  tensor("i", I64, [3])],
                 [tensor("a", F, None)])


def case_many_sce(count):
    # Each loss expands into dozens of nodes: more than graphc adds.
    nodes, outputs = [], []
    for i in range(int(count)):
        nodes.append(helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], [f"l{i}"],
                                      name=f"sce{i}"))
        outputs.append(tensor(f"l{i}", F, []))
    return model(nodes, [tensor("x", F, [2, 4]), tensor("t", I64, [2])], outputs)


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    name, out, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    onnx.save_model(CASES[name](*args), out)


if __name__ == "__main__":
    main()
