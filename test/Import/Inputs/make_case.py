"""Small ONNX models for the importer lit tests, one per case name.

    python make_case.py CASE OUT.onnx

Models are built with onnx.helper and deliberately not checked with
onnx.checker: several cases are invalid on purpose (cycles, dangling inputs).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def model(nodes, inputs, outputs, initializers=(), opset=17, extra_opsets=()):
    graph = helper.make_graph(nodes, "case", inputs, outputs, list(initializers))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v)
                                                 for d, v in extra_opsets]
    m = helper.make_model(graph, producer_name="graphc-lit", opset_imports=opsets)
    m.ir_version = 8
    return m


def tensor(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, value):
    return numpy_helper.from_array(np.asarray(value), name)


def case_dims():
    # Named, unnamed-dynamic and static dims.
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                 [tensor("x", F, ["batch", None, 4])], [tensor("y", F, ["batch", None, 4])])


def case_names():
    return model([helper.make_node("Relu", ["x"], ["a"], name="first_relu"),
                  helper.make_node("Relu", ["a"], ["y"])],
                 [tensor("x", F, [2])], [tensor("y", F, [2])])


def case_squeeze11():
    return model([helper.make_node("Squeeze", ["x"], ["s"], name="squeeze", axes=[1]),
                  helper.make_node("Unsqueeze", ["s"], ["y"], name="unsqueeze", axes=[0])],
                 [tensor("x", F, [3, 1, 4])], [tensor("y", F, [1, 3, 4])], opset=11)


def case_reduce11():
    return model([helper.make_node("ReduceSum", ["x"], ["s"], name="sum", axes=[1], keepdims=0),
                  helper.make_node("ReduceMean", ["x"], ["m"], name="mean", axes=[0, 1])],
                 [tensor("x", F, [3, 4])], [tensor("s", F, [3]), tensor("m", F, [1, 1])],
                 opset=11)


def case_split11():
    return model([helper.make_node("Split", ["x"], ["a", "b"], name="split", axis=0,
                                   split=[2, 4])],
                 [tensor("x", F, [6, 2])], [tensor("a", F, [2, 2]), tensor("b", F, [4, 2])],
                 opset=11)


def case_split13():
    return model([helper.make_node("Split", ["x"], ["a", "b", "c"], name="split", axis=1)],
                 [tensor("x", F, [2, 6])],
                 [tensor(n, F, [2, 2]) for n in "abc"], opset=13)


def case_softmax11():
    return model([helper.make_node("Softmax", ["x"], ["a"], name="coerced", axis=1),
                  helper.make_node("LogSoftmax", ["x"], ["b"], name="last", axis=2),
                  helper.make_node("Hardmax", ["d"], ["c"], name="dynamic")],
                 [tensor("x", F, [2, 3, 4]), tensor("d", F, ["n", 3, 4])],
                 [tensor("a", F, [2, 3, 4]), tensor("b", F, [2, 3, 4]),
                  tensor("c", F, ["n", 3, 4])], opset=11)


def case_dropout():
    return model([helper.make_node("Dropout", ["x", "ratio"], ["y", "mask"], name="drop")],
                 [tensor("x", F, [2, 3])], [tensor("y", F, [2, 3])],
                 [const("ratio", np.array(0.5, np.float32))], opset=13)


def case_dropout_training():
    return model([helper.make_node("Dropout", ["x", "ratio", "train"], ["y"], name="drop")],
                 [tensor("x", F, [2, 3])], [tensor("y", F, [2, 3])],
                 [const("ratio", np.array(0.5, np.float32)), const("train", np.array(True))],
                 opset=13)


def case_cast():
    return model([helper.make_node("Cast", ["x"], ["i"], name="to_int", to=TensorProto.INT32),
                  helper.make_node("CastLike", ["x", "like"], ["h"], name="like_half")],
                 [tensor("x", F, [3]), tensor("like", TensorProto.FLOAT16, [1])],
                 [tensor("i", TensorProto.INT32, [3]), tensor("h", TensorProto.FLOAT16, [3])])


def case_constant():
    return model([helper.make_node("Constant", [], ["f"], name="cf", value_float=2.5),
                  helper.make_node("Constant", [], ["i"], name="ci", value_ints=[1, 2, 3]),
                  helper.make_node("Constant", [], ["t"], name="ct",
                                   value=const("t", np.arange(6, dtype=np.int32).reshape(2, 3)))],
                 [], [tensor("f", F, []), tensor("i", TensorProto.INT64, [3]),
                      tensor("t", TensorProto.INT32, [2, 3])])


def case_groupnorm18():
    return model([helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"],
                                   name="gn", num_groups=2)],
                 [tensor("x", F, [1, 4, 3])], [tensor("y", F, [1, 4, 3])],
                 [const("scale", np.array([1.0, 2.0], np.float32)),
                  const("bias", np.array([0.5, -0.5], np.float32))], opset=18)


def case_batchnorm_training():
    c = 3
    inits = [const(n, np.ones(c, np.float32)) for n in ("s", "b", "m", "v")]
    return model([helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"],
                                   ["y", "running_mean", "running_var"], name="bn",
                                   training_mode=1)],
                 [tensor("x", F, [2, c, 4])], [tensor("y", F, [2, c, 4])], inits, opset=15)


def layer_norm(mean_is_output):
    outputs = [tensor("y", F, [2, 4])]
    if mean_is_output:
        outputs.append(tensor("mean", F, [2, 1]))
    return model([helper.make_node("LayerNormalization", ["x", "scale"], ["y", "mean"],
                                   name="ln", axis=-1)],
                 [tensor("x", F, [2, 4])], outputs, [const("scale", np.ones(4, np.float32))])


def case_layernorm_unused_mean():
    return layer_norm(False)


def case_layernorm_used_mean():
    return layer_norm(True)


def case_unsupported():
    return model([helper.make_node("NonMaxSuppression", ["b", "s"], ["n1"], name="nms1"),
                  helper.make_node("NonMaxSuppression", ["b", "s"], ["n2"], name="nms2"),
                  helper.make_node("Frobnicate", ["n1"], ["y"], name="custom",
                                   domain="com.example")],
                 [tensor("b", F, [1, 4, 4]), tensor("s", F, [1, 1, 4])],
                 [tensor("y", TensorProto.INT64, None)], extra_opsets=[("com.example", 1)])


def case_opset10():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                 [tensor("x", F, [2])], [tensor("y", F, [2])], opset=10)


def case_cycle():
    return model([helper.make_node("Add", ["x", "b"], ["a"], name="add_a"),
                  helper.make_node("Relu", ["a"], ["b"], name="relu_b"),
                  helper.make_node("Relu", ["a"], ["y"], name="out")],
                 [tensor("x", F, [2])], [tensor("y", F, [2])])


def case_dangling():
    return model([helper.make_node("Add", ["x", "ghost"], ["y"], name="add")],
                 [tensor("x", F, [2])], [tensor("y", F, [2])])


def case_bad_broadcast():
    return model([helper.make_node("Add", ["x", "z"], ["y"], name="bad_add")],
                 [tensor("x", F, [2, 3]), tensor("z", F, [4])], [tensor("y", F, [2, 3])])


def case_unsorted():
    # Nodes out of dependency order are imported in dependency order.
    return model([helper.make_node("Relu", ["a"], ["y"], name="second"),
                  helper.make_node("Neg", ["x"], ["a"], name="first")],
                 [tensor("x", F, [2])], [tensor("y", F, [2])])


def case_weights():
    w = np.arange(128, dtype=np.float32).reshape(2, 64)
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                 [tensor("x", F, [2, 64]), tensor("w", F, [2, 64])], [tensor("y", F, [2, 64])],
                 [numpy_helper.from_array(w, "w")])


def case_string_input():
    return model([helper.make_node("Identity", ["x"], ["y"], name="id")],
                 [tensor("x", TensorProto.STRING, [2])], [tensor("y", TensorProto.STRING, [2])])


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    name, out = sys.argv[1], sys.argv[2]
    external = name.endswith("_external")
    m = CASES[name[: -len("_external")] if external else name]()
    if external:
        onnx.save_model(m, out, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=os.path.basename(out) + ".data", size_threshold=0)
    else:
        onnx.save_model(m, out)


if __name__ == "__main__":
    main()
