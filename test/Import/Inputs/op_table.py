"""Reads lib/Import/ONNX/OpTable.def: the imported ops and their schema rows."""
import re


def read_op_table(path):
    """Returns (ops, schemas): ONNX op names in table order, and per op a list
    of (since_version, inputs, outputs, attribute names) rows."""
    text = open(path).read()
    ops = []
    for name in re.findall(r"^GRAPHC_ONNX_OP\((\w+), \w+\)", text, re.M):
        if name not in ops:
            ops.append(name)
    schemas = {}
    row = re.compile(r'^GRAPHC_ONNX_SCHEMA\((\w+), (\d+), "(\w*)", "(\w*)",\s*((?:"[^"]*"\s*)+)\)',
                     re.M)
    for name, since, inputs, outputs, literals in row.findall(text):
        attributes = "".join(re.findall(r'"([^"]*)"', literals)).split()
        schemas.setdefault(name, []).append((int(since), inputs, outputs, attributes))
    return ops, schemas


def schema_at(rows, opset):
    """The row that applies at `opset`, or None."""
    applies = None
    for row in rows:
        if row[0] <= opset:
            applies = row
    return applies
