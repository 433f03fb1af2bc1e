"""Checks the module units of a cuda artifact (graphc inspect --json) and
the compile cache counts of its compile (--progress json events): units of
contiguous kernels, each with the same images, and the parts compiled.

usage: check_units.py INSPECT.json EVENTS.jsonl
Prints "units ok: N units, hits H, misses M" for FileCheck, and the misses
beyond what one changed unit (two when its boundary moved) costs when
asked with --changed.
"""
import json
import sys

report = json.load(open(sys.argv[1]))
events = [json.loads(line) for line in open(sys.argv[2])]
cache = [e for e in events if e.get("event") == "summary"][-1]["cache"]
units = report["units"]
assert units >= 2, f"expected several units, got {units}"
kinds = {}
for image in report["images"]:
    kinds.setdefault(image["unit"], []).append((image["sm"], image["kind"]))
assert sorted(kinds) == list(range(units)), kinds
assert all(v == kinds[0] for v in kinds.values()), "units differ in images"
generated = [k["unit"] for k in report["kernels"] if k["library"] is None]
assert generated == sorted(generated), "units are not contiguous"
assert set(generated) == set(range(units)), generated
assert max(generated.count(u) for u in range(units)) <= 32
# Every unit's images, the host object and the linked file.
parts = units * len(kinds[0]) + 2
assert cache["hits"] + cache["misses"] == parts, (cache, parts)
line = f"units ok: {units} units of {len(kinds[0])} images"
if "--changed" in sys.argv:
    # One changed kernel recompiles its unit (a moved boundary: two), the
    # host object and the link; every other unit comes from the cache.
    assert cache["misses"] <= 2 * len(kinds[0]) + 2, cache
    assert cache["hits"] >= parts - (2 * len(kinds[0]) + 2), cache
    line += ", one layer recompiled"
elif cache["hits"] == 0:
    line += ", all compiled"
elif cache["misses"] == 0:
    line += ", all reused"
print(line)
