"""Small models whose steps' results name ONNX tensors (step-results.test).

    python make_probe_models.py chain|convbn|convs OUT.onnx

chain: x[4, 8] -> MatMul "mm" -> Add "biased" -> Relu "act" -> Exp "e",
       and Neg(e) "y" (a pointwise chain after a matmul).
convbn: x[1, 3, 8, 8] -> Conv "conv_out" -> BatchNormalization "bn_out"
        -> Relu "y" (the batch norm folds into the convolution).
convs: x[1, 16, 8, 8] -> four Conv "c<i>" -> Relu "r<i>", then Add(r4, r2)
       "y" (a chain that goes channels last on cuDNN's tensor cores).
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)


def weight(name, shape):
    return numpy_helper.from_array(
        (rng.standard_normal(shape) * 0.1).astype(np.float32), name)


def chain():
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["mm"], name="matmul"),
        helper.make_node("Add", ["mm", "b"], ["biased"], name="add"),
        helper.make_node("Relu", ["biased"], ["act"], name="relu"),
        helper.make_node("Exp", ["act"], ["e"], name="exp"),
        helper.make_node("Neg", ["e"], ["y"], name="neg"),
    ]
    return helper.make_graph(
        nodes, "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 16])],
        [weight("w", [8, 16]), weight("b", [16])])


def convbn():
    channels = 8
    nodes = [
        helper.make_node("Conv", ["x", "w", "cb"], ["conv_out"], name="conv",
                         pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization",
                         ["conv_out", "scale", "shift", "mean", "var"],
                         ["bn_out"], name="bn"),
        helper.make_node("Relu", ["bn_out"], ["y"], name="relu"),
    ]
    positive = numpy_helper.from_array(
        rng.uniform(0.5, 1.5, channels).astype(np.float32), "var")
    return helper.make_graph(
        nodes, "convbn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [1, channels, 8, 8])],
        [weight("w", [channels, 3, 3, 3]), weight("cb", [channels]),
         weight("scale", [channels]), weight("shift", [channels]),
         weight("mean", [channels]), positive])


def convs():
    channels = 16
    nodes, weights, x = [], [], "x"
    for i in range(1, 5):
        nodes += [
            helper.make_node("Conv", [x, f"w{i}", f"b{i}"], [f"c{i}"],
                             name=f"conv{i}", pads=[1, 1, 1, 1]),
            helper.make_node("Relu", [f"c{i}"], [f"r{i}"], name=f"relu{i}"),
        ]
        weights += [weight(f"w{i}", [channels, channels, 3, 3]),
                    weight(f"b{i}", [channels])]
        x = f"r{i}"
    nodes.append(helper.make_node("Add", ["r4", "r2"], ["y"], name="residual"))
    shape = [1, channels, 8, 8]
    return helper.make_graph(
        nodes, "convs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
        weights)


graph = {"chain": chain, "convbn": convbn, "convs": convs}[sys.argv[1]]()
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, sys.argv[2])
