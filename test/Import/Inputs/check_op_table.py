"""Checks the schema rows of OpTable.def against onnx's own op schemas for
every opset graphc imports, so that the table cannot drift from ONNX.

    python check_op_table.py OpTable.def MIN_OPSET MAX_OPSET
"""
import sys

from onnx import defs

from op_table import read_op_table, schema_at

LETTER = {
    defs.OpSchema.FormalParameterOption.Single: "r",
    defs.OpSchema.FormalParameterOption.Optional: "o",
    defs.OpSchema.FormalParameterOption.Variadic: "v",
}


def signature(params):
    letters = []
    for p in params:
        letter = LETTER[p.option]
        # 'v' means one or more, 'w' zero or more; other minimums would need
        # another letter.
        if p.option == defs.OpSchema.FormalParameterOption.Variadic:
            if p.min_arity == 0:
                letter = "w"
            elif p.min_arity != 1:
                raise SystemExit(f"variadic parameter {p.name} has min arity {p.min_arity}")
        letters.append(letter)
    return "".join(letters)


def main():
    path, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    ops, schemas = read_op_table(path)
    problems = []
    for name in schemas:
        if name not in ops:
            problems.append(f"{name}: schema rows for an op the table does not import")
        versions = [row[0] for row in schemas[name]]
        if versions != sorted(set(versions)):
            problems.append(f"{name}: rows not in increasing since-version order")
    checked = 0
    for name in ops:
        for opset in range(first, last + 1):
            try:
                schema = defs.get_schema(name, opset, "")
            except defs.SchemaError:
                schema = None
            row = schema_at(schemas.get(name, []), opset)
            if schema is None:
                if row is not None:
                    problems.append(f"{name} opset {opset}: the table has a row, onnx has no schema")
                continue
            expected = (signature(schema.inputs), signature(schema.outputs),
                        sorted(schema.attributes))
            actual = row[1:] if row else None
            if actual is None or (actual[0], actual[1], sorted(actual[2])) != expected:
                problems.append(f"{name} opset {opset}: table {actual}, onnx {expected}")
            checked += 1
    for problem in problems:
        print(problem)
    print(f"checked {len(ops)} ops, {checked} (op, opset) pairs, {len(problems)} mismatches")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
