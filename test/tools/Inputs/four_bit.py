"""4-bit integers (ONNX INT4 and UINT4) inside a model.

    four_bit.py make MODEL.onnx
    four_bit.py check MODEL.onnx A.so B.so ...

graphc holds them unpacked in int8 and uint8, so a model's inputs and outputs
cannot be of those types; `make` writes a model whose float32, float16 and
int32 inputs go through Cast to INT4 and UINT4 (and CastLike to the type of
a 4-bit initializer), QuantizeLinear to them (per-axis zero points that are
packed initializers, an odd count in raw_data and in int32_data, and
output_dtype without a zero point), Reshape and Transpose, and back through
Cast and DequantizeLinear to float32 and int32 outputs; 4-bit initializers
are dequantized too. `check` runs the artifacts and requires onnx's reference
results from each. Prints one line.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper, numpy_helper

ROWS, N = 3, 15


def packed(name, dtype, values, raw):
    values = list(values)
    nibbles = [v & 0xF for v in values] + [0] * (len(values) % 2)
    data = [nibbles[i] | nibbles[i + 1] << 4 for i in range(0, len(nibbles), 2)]
    if raw:
        return helper.make_tensor(name, dtype, [len(values)], bytes(data), raw=True)
    tensor = helper.make_tensor(name, dtype, [len(values)], values)
    assert list(tensor.int32_data) == data, "onnx packs int32_data otherwise"
    return tensor


def make(path):
    nodes, outputs = [], []
    inputs = [helper.make_tensor_value_info("x", T.FLOAT, [ROWS, N]),
              helper.make_tensor_value_info("h", T.FLOAT16, [ROWS, N]),
              helper.make_tensor_value_info("i", T.INT32, [ROWS, N])]
    inits = [numpy_helper.from_array(np.array([0.5, 2, 0.25], np.float32), "s"),
             numpy_helper.from_array(np.array(1.5, np.float32), "s1"),
             packed("z4", T.INT4, [-3, 0, 5], raw=True),
             packed("zu4", T.UINT4, [1, 8, 15], raw=False),
             packed("w4", T.INT4, [-8, -1, 0, 7, 3], raw=True),
             packed("wu4", T.UINT4, [0, 15, 9, 2, 11], raw=False),
             helper.make_tensor("z4s", T.INT4, [], [-2]),
             helper.make_tensor("zu4s", T.UINT4, [], [9]),
             numpy_helper.from_array(np.array([N, ROWS], np.int64), "shape")]

    def out(name, dtype, shape=(ROWS, N)):
        outputs.append(helper.make_tensor_value_info(name, dtype, list(shape)))

    for src in ("x", "h", "i"):
        for four, dtype in (("i4", T.INT4), ("u4", T.UINT4)):
            nodes.append(helper.make_node("Cast", [src], [f"{src}_{four}"], to=dtype))
            back = T.INT32 if src == "i" else T.FLOAT
            nodes.append(helper.make_node("Cast", [f"{src}_{four}"],
                                          [f"{src}_{four}_back"], to=back))
            out(f"{src}_{four}_back", back)
    nodes.append(helper.make_node("CastLike", ["x", "w4"], ["x_like"]))
    nodes.append(helper.make_node("Cast", ["x_like"], ["x_like_back"], to=T.FLOAT))
    out("x_like_back", T.FLOAT)
    for zero in ("z4", "zu4"):
        q, dq = f"q_{zero}", f"dq_{zero}"
        nodes.append(helper.make_node("QuantizeLinear", ["x", "s", zero], [q], axis=0))
        nodes.append(helper.make_node("Reshape", [q, "shape"], [q + "_r"]))
        nodes.append(helper.make_node("Transpose", [q + "_r"], [q + "_t"], perm=[1, 0]))
        nodes.append(helper.make_node("Cast", [q + "_t"], [q + "_back"], to=T.FLOAT))
        out(q + "_back", T.FLOAT)
        # (onnx's reference loses the 4-bit type of a QuantizeLinear result.)
        nodes.append(helper.make_node("DequantizeLinear", [q, "s"], [dq], axis=0))
        out(dq, T.FLOAT)
    for dtype, name in ((T.INT4, "od_i4"), (T.UINT4, "od_u4")):
        nodes.append(helper.make_node("QuantizeLinear", ["x", "s1"], [name],
                                      output_dtype=dtype))
        nodes.append(helper.make_node("DequantizeLinear", [name, "s1"], [name + "_dq"]))
        out(name + "_dq", T.FLOAT)
    for w, zero in (("w4", "z4s"), ("wu4", "zu4s")):
        nodes.append(helper.make_node("DequantizeLinear", [w, "s1", zero], [w + "_dq"]))
        out(w + "_dq", T.FLOAT, [5])
    graph = helper.make_graph(nodes, "four_bit", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    onnx.save(model, path)


def feeds():
    rng = np.random.default_rng(5)
    edges = [0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -8.5, 7.5, 7.49, 15.5, 16, -9,
             100, -100, 3.25, -2.75]
    floats = np.concatenate([edges, rng.normal(0, 8, ROWS * N - len(edges))])
    floats = floats.reshape(ROWS, N)
    return {"x": floats.astype(np.float32), "h": floats.astype(np.float16),
            "i": np.rint(floats * 3).astype(np.int32)}


def check(path, artifacts):
    import graphc
    from onnx.reference import ReferenceEvaluator
    model = onnx.load(path)
    inputs = feeds()
    names = [value.name for value in model.graph.output]
    reference = dict(zip(names, ReferenceEvaluator(model).run(None, inputs)))
    problems = []
    for artifact in artifacts:
        with graphc.load(artifact) as loaded:
            outputs = loaded.run(inputs)
            result = {info.name: tensor.numpy()
                      for info, tensor in zip(loaded.outputs, outputs)}
        for name in names:
            if not np.array_equal(np.asarray(reference[name]), result[name]):
                problems.append(f"{name}: {artifact} differs from onnx's reference")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"4-bit integers agree: {len(names)} outputs, {len(artifacts)} artifacts")
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3:]))
