"""Writes a tuning database giving every kernel of one kind in a launch
table (`graphc compile --emit launches`) one schedule (for sm_80 and the
given CUDA major), and prints their launches before tuning.

usage: make_schedule_db.py LAUNCHES KIND SCHEDULE_JSON CUDA_MAJOR OUT.json
e.g.   make_schedule_db.py plain.launches pointwise '{"block_size": 256, "elements_per_thread": 4}' 13 db.json
"""
import json
import re
import sys

dump, kind, schedule, cuda_major, out = sys.argv[1:6]
pattern = (r'^@(\S+) ' + kind + r' ([0-9a-f]{16}) grid \[([\d, ]+)\] '
           r'block \[([\d, ]+)\]')
entries = []
for m in re.finditer(pattern, open(dump).read(), re.MULTILINE):
    name, kernel, grid, block = m.groups()
    entries.append({"kernel": kernel, "sm": 80, "cuda_major": int(cuda_major),
                    "precision": "fp32", "schedule_revision": 1,
                    "schedule": json.loads(schedule)})
    print(f"{name}: grid [{grid}], block [{block}]")
json.dump({"graphc_tuning_db": 1, "entries": entries}, open(out, "w"))
