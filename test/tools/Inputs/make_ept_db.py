"""Writes a tuning database giving the pointwise kernel of an exec dump
block_size 256 and elements_per_thread 4 (for sm_80, this CUDA major), and
prints that kernel's grid before tuning.

usage: make_ept_db.py EXEC_DUMP CUDA_MAJOR OUT.json
"""
import json
import re
import sys

dump = open(sys.argv[1]).read()
m = re.search(r'exec\.kernel @\S+\s+pointwise attributes \{block = array<i64: (\d+), 1, 1>'
              r'[^\n]*?grid = array<i64: (\d+), 1, 1>[^\n]*?hash = "([0-9a-f]{16})"', dump)
block, grid, kernel = int(m.group(1)), int(m.group(2)), m.group(3)
json.dump({"graphc_tuning_db": 1, "entries": [{
    "kernel": kernel, "sm": 80, "cuda_major": int(sys.argv[2]), "precision": "fp32",
    "schedule_revision": 1,
    "schedule": {"block_size": 256, "elements_per_thread": 4}}]},
    open(sys.argv[3], "w"))
print(f"heuristic pointwise launch: {grid} blocks of {block}")
