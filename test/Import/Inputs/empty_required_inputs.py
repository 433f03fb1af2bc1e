"""For every op of OpTable.def and every required input slot of its schema,
imports a one-node model whose input in that slot is "" and checks that
graphc refuses it with one line naming the node and the slot (exit status 1,
not a signal).

    python empty_required_inputs.py OpTable.def GRAPHC OPSET WORKDIR
"""
import os
import subprocess
import sys

import onnx
from onnx import TensorProto, helper

from op_table import read_op_table, schema_at


def one_node_model(op, inputs, outputs, opset):
    node = helper.make_node(op, inputs, outputs, name="n")
    graph_inputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [2, 3])
                    for name in inputs if name]
    graph_outputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, None)
                     for name in outputs]
    graph = helper.make_graph([node], "empty_input", graph_inputs, graph_outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def main():
    table, graphc, opset, workdir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    ops, schemas = read_op_table(table)
    problems, checked, no_required, not_defined = [], 0, [], []
    for op in ops:
        row = schema_at(schemas[op], opset)
        if row is None:
            not_defined.append(op)
            continue
        formal = row[1]
        required = [slot for slot, kind in enumerate(formal) if kind != "o"]
        if not required:
            no_required.append(op)
            continue
        for slot in required:
            inputs = [f"in{i}" for i in range(len(formal))]
            inputs[slot] = ""
            outputs = ["out0"]
            path = os.path.join(workdir, f"{op}_{slot}.onnx")
            onnx.save(one_node_model(op, inputs, outputs, opset), path)
            result = subprocess.run([graphc, "import", path], capture_output=True, text=True)
            expected = f"graphc: error: node 'n' ({op}): required input {slot} is empty"
            lines = result.stderr.splitlines()
            if result.returncode != 1 or lines != [expected]:
                problems.append(f"{op} slot {slot}: exit {result.returncode}, stderr {lines!r}")
            checked += 1
    for problem in problems:
        print(problem)
    print(f"ops not defined at opset {opset}: {', '.join(not_defined)}")
    print(f"ops without a required input: {', '.join(no_required)}")
    print(f"checked {checked} required input slots of {len(ops)} ops, {len(problems)} failures")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
