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


def case_gridsample16():
    # Opset 16 names the modes bilinear and bicubic.
    return model([helper.make_node("GridSample", ["x", "g"], ["y"], name="sample",
                                   mode="bicubic", padding_mode="border")],
                 [tensor("x", F, [1, 2, 4, 4]), tensor("g", F, [1, 3, 5, 2])],
                 [tensor("y", F, [1, 2, 3, 5])], opset=16)


def case_gridsample16_linear():
    # "linear" is opset 20's name; opset 16 does not know it.
    return model([helper.make_node("GridSample", ["x", "g"], ["y"], name="sample",
                                   mode="linear")],
                 [tensor("x", F, [1, 2, 4, 4]), tensor("g", F, [1, 3, 5, 2])],
                 [tensor("y", F, [1, 2, 3, 5])], opset=16)


def roialign_model(opset, **attrs):
    return model([helper.make_node("RoiAlign", ["x", "rois", "b"], ["y"], name="align",
                                   **attrs)],
                 [tensor("x", F, [2, 3, 8, 8]), tensor("rois", F, ["r", 4]),
                  tensor("b", TensorProto.INT64, ["r"])],
                 [tensor("y", F, None)], opset=opset)


def case_roialign10():
    # Before opset 16 RoiAlign computes as "output_half_pixel".
    return roialign_model(10, mode="max", output_height=2, output_width=3,
                          sampling_ratio=2, spatial_scale=0.5)


def case_roialign16():
    return roialign_model(16)


def case_roialign22():
    return roialign_model(22, coordinate_transformation_mode="output_half_pixel",
                          output_height=7, output_width=5)


def case_roialign22_mode():
    return roialign_model(22, mode="min")


def case_center_crop_pad():
    # Axis 1 crops 7 -> 4 (1 before, 2 after), axis 2 pads 3 -> 6 (1, 2).
    return model([helper.make_node("CenterCropPad", ["x", "s"], ["y"], name="ccp",
                                   axes=[-2, 2])],
                 [tensor("x", F, [2, 7, 3])], [tensor("y", F, [2, 4, 6])],
                 [const("s", np.array([4, 6], dtype=np.int64))], opset=18)


def case_center_crop_pad_input_shape():
    return model([helper.make_node("CenterCropPad", ["x", "s"], ["y"], name="ccp")],
                 [tensor("x", F, [2, 7]), tensor("s", TensorProto.INT64, [2])],
                 [tensor("y", F, [None, None])], opset=18)


def case_affine_grid_input_size():
    return model([helper.make_node("AffineGrid", ["t", "s"], ["y"], name="grid")],
                 [tensor("t", F, [2, 2, 3]), tensor("s", TensorProto.INT64, [4])],
                 [tensor("y", F, [None, None, None, 2])], opset=20)


def case_dropout():
    return model([helper.make_node("Dropout", ["x", "ratio"], ["y", "mask"], name="drop")],
                 [tensor("x", F, [2, 3])], [tensor("y", F, [2, 3])],
                 [const("ratio", np.array(0.5, np.float32))], opset=13)


def case_dropout_training():
    return model([helper.make_node("Dropout", ["x", "ratio", "train"], ["y"], name="drop")],
                 [tensor("x", F, [2, 3])], [tensor("y", F, [2, 3])],
                 [const("ratio", np.array(0.5, np.float32)), const("train", np.array(True))],
                 opset=13)


def case_dropout_mask():
    # The mask of inference is all true.
    return model([helper.make_node("Dropout", ["x"], ["y", "mask"], name="drop")],
                 [tensor("x", F, ["n", 3])],
                 [tensor("y", F, ["n", 3]), tensor("mask", TensorProto.BOOL, ["n", 3])],
                 opset=13)


def case_dropout_training_zero():
    # Training with ratio 0 keeps every element.
    return model([helper.make_node("Dropout", ["x", "ratio", "train"], ["y", "mask"], name="drop")],
                 [tensor("x", F, [2, 3])],
                 [tensor("y", F, [2, 3]), tensor("mask", TensorProto.BOOL, [2, 3])],
                 [const("ratio", np.array(0.0, np.float32)), const("train", np.array(True))],
                 opset=13)


def case_dropout_training_inputs():
    # training_mode and ratio as model inputs: the error names the flags.
    return model([helper.make_node("Dropout", ["x", "r", "t"], ["y"], name="drop")],
                 [tensor("x", F, [2, 3]), tensor("r", F, []),
                  tensor("t", TensorProto.BOOL, [])],
                 [tensor("y", F, [2, 3])], opset=13)


def case_maxpool_indices():
    return model([helper.make_node("MaxPool", ["x"], ["y", "i"], name="pool",
                                   kernel_shape=[2, 2], storage_order=1)],
                 [tensor("x", F, [1, 3, 4, 4])],
                 [tensor("y", F, [1, 3, 3, 3]), tensor("i", TensorProto.INT64, [1, 3, 3, 3])])


def case_cast():
    return model([helper.make_node("Cast", ["x"], ["i"], name="to_int", to=TensorProto.INT32),
                  helper.make_node("CastLike", ["x", "like"], ["h"], name="like_half")],
                 [tensor("x", F, [3]), tensor("like", TensorProto.FLOAT16, [1])],
                 [tensor("i", TensorProto.INT32, [3]), tensor("h", TensorProto.FLOAT16, [3])])


def case_float8():
    # 8-bit floats in and out of Cast and CastLike; an initializer in
    # int32_data (one code per value) and one in raw_data.
    e4m3 = helper.make_tensor("w", TensorProto.FLOAT8E4M3FN, [2], [1.0, -2.5])
    raw = helper.make_tensor("r", TensorProto.FLOAT8E5M2, [2], b"\x3c\x7c", raw=True)
    return model([helper.make_node("Cast", ["x"], ["a"], name="to_e4m3", saturate=0,
                                   to=TensorProto.FLOAT8E4M3FN),
                  helper.make_node("CastLike", ["x", "like"], ["b"], name="like_e5m2fnuz"),
                  helper.make_node("Cast", ["f"], ["c"], name="from_e4m3fnuz", to=F),
                  helper.make_node("Cast", ["w"], ["d"], name="w_up", to=F),
                  helper.make_node("Cast", ["r"], ["e"], name="r_up", to=F)],
                 [tensor("x", F, [3]), tensor("like", TensorProto.FLOAT8E5M2FNUZ, [1]),
                  tensor("f", TensorProto.FLOAT8E4M3FNUZ, [3])],
                 [tensor("a", TensorProto.FLOAT8E4M3FN, [3]),
                  tensor("b", TensorProto.FLOAT8E5M2FNUZ, [3]), tensor("c", F, [3]),
                  tensor("d", F, [2]), tensor("e", F, [2])],
                 initializers=[e4m3, raw], opset=19)


def case_float8_relu():
    # Only Cast and CastLike take 8-bit floats.
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu8")],
                 [tensor("x", TensorProto.FLOAT8E4M3FN, [3])],
                 [tensor("y", TensorProto.FLOAT8E4M3FN, [3])], opset=19)


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


def case_dft17():
    # axis is an attribute (default 1) before opset 20.
    return model([helper.make_node("DFT", ["x"], ["y"], name="dft", onesided=1)],
                 [tensor("x", F, [2, 8, 1])], [tensor("y", F, [2, 5, 2])], opset=17)


def case_dft20_axis_input():
    return model([helper.make_node("DFT", ["x", "", "axis"], ["y"], name="dft")],
                 [tensor("x", F, [1, 6, 4, 1]), tensor("axis", TensorProto.INT64, [])],
                 [tensor("y", F, None)], opset=20)


def case_stft():
    window = np.hanning(16).astype(np.float32)
    return model([helper.make_node("STFT", ["x", "step", "window"], ["y"], name="stft")],
                 [tensor("x", F, [1, 128, 1])], [tensor("y", F, [1, 15, 9, 2])],
                 [const("step", np.array(8, np.int64)), const("window", window)], opset=17)


def case_stft_step_input():
    return model([helper.make_node("STFT", ["x", "step", "", "length"], ["y"], name="stft")],
                 [tensor("x", F, [1, 128, 1]), tensor("step", TensorProto.INT64, [])],
                 [tensor("y", F, None)], [const("length", np.array(16, np.int64))],
                 opset=17)


def case_nms_trailing_absent():
    # max_output_boxes_per_class and score_threshold left out: the first
    # as "", the last by ending the inputs early.
    return model([helper.make_node("NonMaxSuppression", ["boxes", "scores", "", "iou"],
                                   ["selected"], name="nms", center_point_box=1)],
                 [tensor("boxes", F, [1, 6, 4]), tensor("scores", F, [1, 2, 6]),
                  tensor("iou", F, [1])], [tensor("selected", TensorProto.INT64, None)],
                 opset=11)


def case_unique_some_outputs():
    # Only y and counts are used; the op has every output and the count.
    return model([helper.make_node("Unique", ["x"], ["y", "", "", "counts"], name="unique",
                                   axis=-1, sorted=0)],
                 [tensor("x", TensorProto.INT32, [3, 5])],
                 [tensor("y", TensorProto.INT32, [3, "n"]),
                  tensor("counts", TensorProto.INT64, ["n"])], opset=11)


def case_melweightmatrix():
    names = ["bins", "n", "rate", "low", "high"]
    values = [np.array(8, np.int32), np.array(16, np.int32), np.array(8192, np.int32),
              np.array(0, np.float32), np.array(4096, np.float32)]
    return model([helper.make_node("MelWeightMatrix", names, ["w"], name="mel",
                                   output_datatype=TensorProto.FLOAT16)],
                 [], [tensor("w", TensorProto.FLOAT16, [9, 8])],
                 [const(n, v) for n, v in zip(names, values)], opset=17)


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
    return model([helper.make_node("TfIdfVectorizer", ["x"], ["a1"], name="tfidf1"),
                  helper.make_node("TfIdfVectorizer", ["x"], ["a2"], name="tfidf2"),
                  helper.make_node("Frobnicate", ["a1"], ["y"], name="custom",
                                   domain="com.example")],
                 [tensor("x", F, [1, 2, 8, 8]), tensor("r", F, [3, 4]),
                  tensor("i", TensorProto.INT64, [3])],
                 [tensor("y", F, None)], extra_opsets=[("com.example", 1)])


def case_opset10():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                 [tensor("x", F, [2])], [tensor("y", F, [2])], opset=10)


def case_opset23():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                 [tensor("x", F, [2])], [tensor("y", F, [2])], opset=23)


def case_opset6_prelu_per_channel():
    # Old exporters wrote a [C] slope for an [N, C, ...] input and listed
    # weights as graph inputs too.
    return model([helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu")],
                 [tensor("x", F, [2, 3, 4, 4]), tensor("slope", F, [3])],
                 [tensor("y", F, [2, 3, 4, 4])],
                 [const("slope", np.array([0.1, 0.2, 0.3], np.float32))], opset=6)


def case_opset9_prelu_per_channel():
    return model([helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu")],
                 [tensor("x", F, [2, 3, 4, 4])], [tensor("y", F, [2, 3, 4, 4])],
                 [const("slope", np.array([0.1, 0.2, 0.3], np.float32))], opset=9)


def case_opset8_unknown_op():
    return model([helper.make_node("Frobnicate", ["x"], ["y"], name="frob")],
                 [tensor("x", F, [2])], [tensor("y", F, [2])], opset=8)


def case_opset6_broadcast_unknown_shape():
    # The Add adapter to opset 7 needs the shapes of both inputs.
    return model([helper.make_node("Add", ["x", "b"], ["y"], name="add", broadcast=1)],
                 [tensor("x", F, None), tensor("b", F, None)], [tensor("y", F, None)],
                 opset=6)


def case_opset10_conv_rank_mismatch(op="Conv"):
    # libonnx 1.12's convolution shape inference takes the kernel rank from
    # the weight and reads past the input's per-dimension vectors: a crash
    # unless graphc guards it (found by fuzzing, with QLinearConv).
    U8 = TensorProto.UINT8
    if op == "QLinearConv":
        inputs = [tensor("x", U8, [1, 1]), tensor("x_scale", F, []),
                  tensor("x_zero_point", U8, []), tensor("w", U8, [1, 1, 1, 1]),
                  tensor("w_scale", F, [1]), tensor("w_zero_point", U8, [1]),
                  tensor("y_scale", F, []), tensor("y_zero_point", U8, [])]
        y = tensor("y", U8, None)
    else:
        elem = U8 if op == "ConvInteger" else F
        inputs = [tensor("x", elem, [1, 1]), tensor("w", elem, [1, 1, 3, 3])]
        y = tensor("y", TensorProto.INT32 if op == "ConvInteger" else F, None)
    return model([helper.make_node(op, [i.name for i in inputs], ["y"], name="conv")],
                 inputs, [y], opset=10)


def case_opset1_undefined_output():
    # ONNX's converter dereferences a graph output that nothing defines.
    return model([helper.make_node("Not", ["x"], ["t"], name="not")],
                 [tensor("x", TensorProto.BOOL, [2])],
                 [tensor("y", TensorProto.BOOL, [2])], opset=1)


def case_opset6_cycle():
    return model([helper.make_node("Relu", ["b"], ["a"], name="relu_a"),
                  helper.make_node("Relu", ["a"], ["b"], name="relu_b"),
                  helper.make_node("Relu", ["a"], ["y"], name="out")],
                 [tensor("x", F, [2])], [tensor("y", F, [2])], opset=6)


def case_opset6_subgraph():
    body = helper.make_graph([helper.make_node("Relu", ["x"], ["z"])], "body", [],
                             [tensor("w", F, [2])])
    return model([helper.make_node("If", ["c"], ["y"], name="branch",
                                   then_branch=body, else_branch=body)],
                 [tensor("c", TensorProto.BOOL, []), tensor("x", F, [2])],
                 [tensor("y", F, [2])], opset=6)


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


def external_weight(location):
    # A 4-float initializer whose data the model says lives at `location`.
    w = TensorProto()
    w.name = "w"
    w.data_type = F
    w.dims.append(4)
    w.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"), ("length", "16")):
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    return w


def add_external(location):
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                 [tensor("x", F, [4])], [tensor("y", F, [4])], [external_weight(location)])


def case_external_at(location):
    return add_external(location)


def case_external_nul():
    # The bytes after the NUL must not be dropped on the way to open().
    return add_external("w.bin\0../../../x")


def case_relu4():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                 [tensor("x", F, [4])], [tensor("y", F, [4])])


def case_tensor_external_at(location):
    # A TensorProto file (as `graphc run --input x=FILE.pb` reads), not a model.
    tensor_proto = external_weight(location)
    tensor_proto.name = "x"
    return tensor_proto


def relu_model(inputs=("x",), outputs=("y",), opset=17, **attributes):
    return model([helper.make_node("Relu", list(inputs), list(outputs), name="relu", **attributes)],
                 [tensor("x", F, [2])], [tensor(n, F, [2]) for n in outputs if n], opset=opset)


def case_misspelled_attribute():
    return model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv", stride=[1, 1])],
                 [tensor("x", F, [1, 1, 4, 4])], [tensor("y", F, [1, 1, 2, 2])],
                 [const("w", np.ones((1, 1, 3, 3), np.float32))])


def case_attribute_of_newer_opset():
    # num_outputs exists since Split-18; at opset 13 it is unknown.
    return model([helper.make_node("Split", ["x"], ["a", "b"], name="split", num_outputs=2)],
                 [tensor("x", F, [4])], [tensor("a", F, [2]), tensor("b", F, [2])], opset=13)


def case_attribute_of_older_opset():
    # Squeeze-13 takes axes as an input, no longer as an attribute.
    return model([helper.make_node("Squeeze", ["x"], ["y"], name="squeeze", axes=[0])],
                 [tensor("x", F, [1, 2])], [tensor("y", F, [2])], opset=13)


def case_repeated_attribute():
    m = model([helper.make_node("LeakyRelu", ["x"], ["y"], name="leaky", alpha=0.1)],
              [tensor("x", F, [2])], [tensor("y", F, [2])])
    m.graph.node[0].attribute.append(helper.make_attribute("alpha", 0.9))
    return m


def case_duplicate_input():
    return model([helper.make_node("Add", ["x", "x"], ["y"], name="add")],
                 [tensor("x", F, [2]), tensor("x", F, [3])], [tensor("y", F, [2])])


def case_too_many_outputs():
    return relu_model(outputs=("y", "z"))


def case_too_many_inputs():
    return relu_model(inputs=("x", "x"))


def case_missing_input():
    return model([helper.make_node("Add", ["x"], ["y"], name="add")],
                 [tensor("x", F, [2])], [tensor("y", F, [2])])


def case_op_not_in_opset():
    # Gelu is defined since opset 20.
    return model([helper.make_node("Gelu", ["x"], ["y"], name="gelu")],
                 [tensor("x", F, [2])], [tensor("y", F, [2])], opset=17)


def case_ir_version_11():
    m = relu_model()
    m.ir_version = 11
    return m


def case_nul_value_name():
    # Without the check both names would reach MLIR as "a".
    return model([helper.make_node("Relu", ["a\0in"], ["a\0out"], name="relu")],
                 [tensor("a\0in", F, [2])], [tensor("a\0out", F, [2])])


def case_nul_node_name():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu\0hidden")],
                 [tensor("x", F, [2])], [tensor("y", F, [2])])


HUGE = 2**62 + 1


def huge_tensor(name, elem, dims, raw):
    # Dims whose byte count wraps to len(raw) in 64-bit arithmetic.
    t = TensorProto()
    t.name, t.data_type, t.raw_data = name, elem, raw
    t.dims.extend(dims)
    return t


def slice_of(data_inits, nodes=(), elem=F, starts=(0,), ends=(1000,), steps=None):
    inits = list(data_inits) + [const("starts", np.array(starts, np.int64)),
                                const("ends", np.array(ends, np.int64))]
    inputs = ["w", "starts", "ends"]
    if steps is not None:
        inits += [const("axes", np.array([0], np.int64)), const("steps", np.array(steps, np.int64))]
        inputs += ["axes", "steps"]
    return model(list(nodes) + [helper.make_node("Slice", inputs, ["y"], name="slice")],
                 [], [tensor("y", elem, None)], inits)


def case_huge_float_initializer():
    return slice_of([huge_tensor("w", F, [HUGE], bytes(4))])


def case_huge_int64_initializer():
    return slice_of([huge_tensor("w", TensorProto.INT64, [2**61 + 1], bytes(8))],
                    elem=TensorProto.INT64)


def case_huge_constant_attribute():
    return slice_of([], [helper.make_node("Constant", [], ["w"], name="huge",
                                          value=huge_tensor("v", F, [HUGE], bytes(4)))])


def case_zero_and_huge_dims():
    # Zero bytes of data, but the other dims multiply past int64.
    return model([helper.make_node("Flatten", ["w"], ["y"], name="flatten", axis=2)],
                 [], [tensor("y", F, None)], [huge_tensor("w", F, [0, 2**62, 2**62], b"")])


def case_huge_input_dims():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                 [tensor("x", F, [2**40, 2**40])], [tensor("y", F, None)])


def shape_op(op, shape_name, shape, **attributes):
    return model([helper.make_node(op, ["w", shape_name], ["y"], name=op.lower(), **attributes)],
                 [], [tensor("y", F, None)],
                 [const("w", np.ones(4, np.float32)), const(shape_name, np.array(shape, np.int64))])


def case_reshape_overflow():
    return shape_op("Reshape", "shape", [2**32, 2**32, 4, -1])


def case_reshape_huge():
    return shape_op("Reshape", "shape", [HUGE, 4])


def case_tile_overflow():
    return shape_op("Tile", "repeats", [2**62])


def case_expand_overflow():
    return shape_op("Expand", "shape", [2**32, 2**32, 4])


def case_pad_overflow():
    return shape_op("Pad", "pads", [2**62, 2**62])


def case_constant_of_shape_overflow():
    return model([helper.make_node("ConstantOfShape", ["shape"], ["y"], name="fill")],
                 [], [tensor("y", F, None)], [const("shape", np.array([2**32, 2**32, 4], np.int64))])


def case_range_overflow():
    return model([helper.make_node("Range", ["a", "b", "d"], ["y"], name="range")],
                 [], [tensor("y", TensorProto.INT64, None)],
                 [const("a", np.array(-2**62, np.int64)), const("b", np.array(2**62, np.int64)),
                  const("d", np.array(1, np.int64))])


def case_conv_dilation_overflow():
    return model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv", dilations=[2**62])],
                 [tensor("x", F, [1, 1, 8])], [tensor("y", F, None)],
                 [const("w", np.ones((1, 1, 3), np.float32))])


def case_slice_huge_start():
    # ONNX clamps starts and ends: the result is empty.
    return slice_of([const("w", np.arange(4, dtype=np.float32))], starts=[2**40], ends=[2**41])


def case_slice_extreme_steps():
    # From the last element backwards with the most negative step: one element.
    return slice_of([const("w", np.arange(4, dtype=np.float32))],
                    starts=[2**63 - 1], ends=[-2**63], steps=[-2**63])


def case_slice_huge_step():
    return slice_of([const("w", np.arange(4, dtype=np.float32))],
                    starts=[1], ends=[2**63 - 1], steps=[2**63 - 1])


def case_gather_huge_index():
    return model([helper.make_node("Gather", ["w", "i"], ["y"], name="gather")],
                 [], [tensor("y", F, None)],
                 [const("w", np.arange(4, dtype=np.float32)), const("i", np.array([2**33], np.int64))])


def case_gather_elements_huge_index():
    return model([helper.make_node("GatherElements", ["w", "i"], ["y"], name="gather", axis=0)],
                 [], [tensor("y", F, None)],
                 [const("w", np.ones((2, 2), np.float32)),
                  const("i", np.array([[2**33, 0]], np.int64))])


def case_gather_many_indices(bad_index=None):
    # More indices than graphc keeps inline: they become a weight blob, which
    # index checks and folding must read as well.
    indices = np.arange(128, dtype=np.int64) % 4
    if bad_index is not None:
        indices[100] = int(bad_index)
    return model([helper.make_node("Gather", ["x", "i"], ["y"], name="gather")],
                 [tensor("x", F, [4, 3])], [tensor("y", F, None)],
                 [const("i", indices)])


def case_reduce_huge_axis():
    return model([helper.make_node("ReduceSum", ["w", "axes"], ["y"], name="sum")],
                 [], [tensor("y", F, None)],
                 [const("w", np.ones((2, 3), np.float32)), const("axes", np.array([2**40], np.int64))])


def case_non_utf8_names():
    # Protobuf strings from a file need not be UTF-8; Python's protobuf only
    # writes UTF-8, so the bytes are patched after serialising.
    m = model([helper.make_node("Relu", ["xQQ"], ["yQQ"], name="reluQQ")],
              [tensor("xQQ", F, [2])], [tensor("yQQ", F, [2])])
    return m.SerializeToString().replace(b"QQ", b"\xff\xfe")



def case_if_folded():
    # The condition folds from the static rank: only the then branch is
    # imported (the else branch would not infer).
    then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"], name="relu")],
                               "then", [], [tensor("t", F, None)])
    else_g = helper.make_graph([helper.make_node("Reshape", ["x", "bad"], ["e"], name="bad_reshape")],
                               "else", [], [tensor("e", F, None)],
                               [const("bad", np.array([7, 7], np.int64))])
    return model([helper.make_node("Shape", ["x"], ["s"]),
                  helper.make_node("Size", ["s"], ["rank"]),
                  helper.make_node("Equal", ["rank", "two"], ["c"]),
                  helper.make_node("If", ["c"], ["y"], name="branch",
                                   then_branch=then_g, else_branch=else_g)],
                 [tensor("x", F, [2, 3])], [tensor("y", F, [2, 3])],
                 [const("two", np.array(2, np.int64))])


def case_if_select():
    then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"], name="relu")],
                               "then", [], [tensor("t", F, None)])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"], name="neg")],
                               "else", [], [tensor("e", F, None)])
    return model([helper.make_node("If", ["c"], ["y"], name="branch",
                                   then_branch=then_g, else_branch=else_g)],
                 [tensor("c", TensorProto.BOOL, [1]), tensor("x", F, [2, 3])],
                 [tensor("y", F, [2, 3])])


def case_loop_unrolled():
    body = helper.make_graph(
        [helper.make_node("Add", ["s", "x"], ["s_next"], name="add"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going")],
        "body", [tensor("i", TensorProto.INT64, []), tensor("cond_in", TensorProto.BOOL, []),
                 tensor("s", F, [2])],
        [tensor("cond_out", TensorProto.BOOL, []), tensor("s_next", F, [2]),
         tensor("s_next", F, [2])])
    return model([helper.make_node("Loop", ["m", "", "x"], ["y", "trace"], name="loop", body=body)],
                 [tensor("m", TensorProto.INT64, []), tensor("x", F, [2])],
                 [tensor("y", F, [2]), tensor("trace", F, [3, 2])])


def case_loop_runtime():
    # No scan output and a trip count only the run knows: a graph.loop.
    body = helper.make_graph(
        [helper.make_node("Add", ["s", "x"], ["s_next"], name="add"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going")],
        "body", [tensor("i", TensorProto.INT64, []), tensor("cond_in", TensorProto.BOOL, []),
                 tensor("s", F, [2])],
        [tensor("cond_out", TensorProto.BOOL, []), tensor("s_next", F, [2])])
    return model([helper.make_node("Loop", ["m", "", "x"], ["y"], name="loop", body=body)],
                 [tensor("m", TensorProto.INT64, []), tensor("x", F, [2])],
                 [tensor("y", F, [2])])


def case_subgraph_attribute_elsewhere():
    body = helper.make_graph([helper.make_node("Relu", ["x"], ["z"])], "body", [],
                             [tensor("z", F, [2])])
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu", body=body)],
                 [tensor("x", F, [2])], [tensor("y", F, [2])])


def case_quantize_per_axis():
    # Per-axis scale along axis 1 and an absent zero point (uint8 zero).
    return model([helper.make_node("QuantizeLinear", ["x", "scale"], ["q"], name="q", axis=1),
                  helper.make_node("DequantizeLinear", ["q", "scale"], ["y"], name="dq",
                                   axis=1)],
                 [tensor("x", F, [2, 3, 4])], [tensor("y", F, [2, 3, 4])],
                 [const("scale", np.array([1.0, 2.0, 4.0], np.float32))], opset=13)


def case_quantize_blocked():
    # Blocks of 2 along axis 1 of [2, 3]: the last block is partial.
    return model([helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"], name="q",
                                   axis=1, block_size=2)],
                 [tensor("x", F, [2, 3])], [tensor("q", TensorProto.INT8, [2, 3])],
                 [const("scale", np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)),
                  const("zero", np.array([[1, 2], [3, 4]], np.int8))], opset=21)


def case_quantize_huge_block():
    # One block wider than the axis: broadcast as it is, nothing repeated.
    return model([helper.make_node("DequantizeLinear", ["x", "scale"], ["y"], name="dq",
                                   axis=1, block_size=2**62)],
                 [tensor("x", TensorProto.INT8, [2, 3])], [tensor("y", F, [2, 3])],
                 [const("scale", np.array([[1.0], [2.0]], np.float32))], opset=21)


def case_matmulinteger_float():
    return model([helper.make_node("MatMulInteger", ["a", "b"], ["y"], name="mmi")],
                 [tensor("a", F, [2, 4]), tensor("b", TensorProto.UINT8, [4, 3])],
                 [tensor("y", TensorProto.INT32, [2, 3])], opset=13)


def case_quantize_bad_axis_length():
    return model([helper.make_node("QuantizeLinear", ["x", "scale"], ["q"], name="q", axis=0)],
                 [tensor("x", F, [2, 3])], [tensor("q", TensorProto.UINT8, [2, 3])],
                 [const("scale", np.array([1.0, 2.0, 4.0], np.float32))], opset=13)


def case_qlinear_matmul():
    u8 = TensorProto.UINT8
    return model([helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"],
                                   ["y"], name="qmm")],
                 [tensor("a", u8, [2, 4]), tensor("b", u8, [4, 3])], [tensor("y", u8, [2, 3])],
                 [const("as", np.float32(0.5)), const("az", np.uint8(10)),
                  const("bs", np.float32(0.25)), const("bz", np.uint8(3)),
                  const("ys", np.float32(2.0)), const("yz", np.uint8(7))], opset=13)


def case_four_bit():
    # 4-bit integers held unpacked in 8 bits: an INT4 initializer in raw_data
    # (five values, the last byte half used) and a UINT4 one in int32_data,
    # folded through Cast; Cast and QuantizeLinear to them.
    w4 = helper.make_tensor("w4", TensorProto.INT4, [5], bytes([0xf8, 0x70, 0x03]),
                            raw=True)
    wu4 = helper.make_tensor("wu4", TensorProto.UINT4, [3], [15, 0, 9])
    zero = helper.make_tensor("z", TensorProto.INT4, [], [-2])
    return model([helper.make_node("Cast", ["w4"], ["a"], name="w4_up", to=F),
                  helper.make_node("Cast", ["wu4"], ["b"], name="wu4_up", to=F),
                  helper.make_node("Cast", ["x"], ["c4"], name="to_u4", to=TensorProto.UINT4),
                  helper.make_node("Cast", ["c4"], ["c"], name="from_u4", to=F),
                  helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q4"], name="q4"),
                  helper.make_node("Cast", ["q4"], ["q"], name="from_q4", to=F)],
                 [tensor("x", F, [3])],
                 [tensor("a", F, [5]), tensor("b", F, [3]), tensor("c", F, [3]),
                  tensor("q", F, [3])],
                 initializers=[w4, wu4, zero, const("s", np.float32(0.5))], opset=21)


def case_four_bit_if():
    # An If whose branches return INT4 Constants passes on a 4-bit value: the
    # QuantizeLinear it is the zero point of saturates to [-8, 7].
    def branch(name, value):
        node = helper.make_node("Constant", [], [name], name=name,
                                value=helper.make_tensor(name, TensorProto.INT4, [], [value]))
        return helper.make_graph([node], name, [],
                                 [helper.make_tensor_value_info(name, TensorProto.INT4, [])])
    return model([helper.make_node("If", ["c"], ["z"], name="pick",
                                   then_branch=branch("z_then", -3),
                                   else_branch=branch("z_else", 5)),
                  helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q4"], name="q4"),
                  helper.make_node("Cast", ["q4"], ["q"], name="from_q4", to=F)],
                 [tensor("x", F, [3]), tensor("c", TensorProto.BOOL, [])],
                 [tensor("q", F, [3])], initializers=[const("s", np.float32(0.5))],
                 opset=21)


def case_four_bit_input(dim=5):
    # An odd count: the last byte's high nibble is unused.
    dim = int(dim) if str(dim).isdigit() else dim
    return model([helper.make_node("Cast", ["x"], ["y"], name="up", to=F)],
                 [tensor("x", TensorProto.INT4, [dim])], [tensor("y", F, [dim])], opset=21)


def case_four_bit_output():
    return model([helper.make_node("Cast", ["x"], ["y"], name="down",
                                   to=TensorProto.UINT4)],
                 [tensor("x", F, [5])], [tensor("y", TensorProto.UINT4, [5])], opset=21)


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    name, out, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    external = name.endswith("_external")
    m = CASES[name[: -len("_external")] if external else name](*args)
    if isinstance(m, bytes):
        with open(out, "wb") as f:
            f.write(m)
    elif isinstance(m, TensorProto):
        with open(out, "wb") as f:
            f.write(m.SerializeToString())
    elif external:
        onnx.save_model(m, out, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=os.path.basename(out) + ".data", size_threshold=0)
    else:
        onnx.save_model(m, out)


if __name__ == "__main__":
    main()
