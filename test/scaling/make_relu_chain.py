#!/usr/bin/env python3
"""Writes an ONNX model that is a chain of N Relu nodes on a float32[4] input.

Usage: make_relu_chain.py N OUT.onnx
"""
import sys

import onnx
from onnx import TensorProto, helper


def make_relu_chain(length):
    nodes = []
    previous = "x"
    for i in range(length):
        output = "y" if i == length - 1 else f"t{i}"
        nodes.append(helper.make_node("Relu", [previous], [output], name=f"relu{i}"))
        previous = output
    graph = helper.make_graph(
        nodes,
        f"relu_chain_{length}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip())
    onnx.save(make_relu_chain(int(sys.argv[1])), sys.argv[2])


if __name__ == "__main__":
    main()
