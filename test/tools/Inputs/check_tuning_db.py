"""Checks a tuning database written by `graphc tune` against the kernels of
an exec dump compiled with it: every tuned generated exec.kernel has the
block size its entry records. With --inspect, checks instead that every
library kernel of an artifact (graphc inspect --json) runs the algorithm
rank and split-K (a GEMM's) or engine rank (a convolution's) its entry
records, marked tuned. Prints a summary line for FileCheck.

usage: check_tuning_db.py DB SM [EXEC_DUMP | --inspect INSPECT_JSON]
"""
import json
import re
import sys

db = json.load(open(sys.argv[1]))
sm = int(sys.argv[2])
assert db["graphc_tuning_db"] == 1, db
entries = [e for e in db["entries"] if e["sm"] == sm]
keys = [(e["kernel"], e["sm"], e["cuda_major"], e["precision"]) for e in db["entries"]]
assert keys == sorted(keys), "entries are not sorted by key"
assert len(set(keys)) == len(keys), "an entry key repeats"
for e in entries:
    assert re.fullmatch(r"[0-9a-f]{16}", e["kernel"]), e
    assert e["precision"] == "fp32" and e["schedule_revision"] == 1, e
    schedule = e["schedule"]
    if "block_size" in schedule:
        assert set(schedule) == {"block_size", "elements_per_thread", "tile",
                                 "rows_per_block"}, e
        knobs = (schedule["block_size"], schedule["elements_per_thread"], schedule["tile"],
                 schedule["rows_per_block"])
        assert knobs in [(64, 1, 16, 1), (128, 1, 16, 1), (256, 1, 16, 1), (512, 1, 16, 1),
                         (1024, 1, 16, 1), (256, 2, 16, 1), (256, 4, 16, 1),
                         (256, 8, 16, 1), (256, 1, 8, 1), (256, 1, 32, 1),
                         (64, 1, 16, 2), (128, 1, 16, 4), (256, 1, 16, 8)], e
        heuristic = knobs == (256, 1, 16, 1)
    else:
        # Below GRAPHC_MAX_ALGO_RANKS; split_k (absent: unsplit) as graphc
        # tune tries it.
        assert list(schedule) in (["algo_rank"], ["algo_rank", "split_k"]), e
        assert schedule["algo_rank"] in range(32), e
        assert schedule.get("split_k", 0) in (0, 2, 4, 8, 16), e
        heuristic = schedule["algo_rank"] == 0 and "split_k" not in schedule
    assert e["median_ns"] > 0 and e["heuristic_median_ns"] > 0, e
    # A schedule other than the heuristic's is recorded only when faster.
    if not heuristic:
        assert e["median_ns"] < e["heuristic_median_ns"], e
    assert e["kind"] and e["nodes"] and e["device"], e
tuned = 0
if len(sys.argv) > 4 and sys.argv[3] == "--inspect":
    report = json.load(open(sys.argv[4]))
    by_hash = {e["kernel"]: (e["schedule"].get("algo_rank"), e["schedule"].get("split_k", 0))
               for e in entries}
    for kernel in report["kernels"]:
        if kernel["library"] is None:
            continue
        assert by_hash.get(kernel["hash"]) is not None, kernel["name"]
        chosen = ((kernel["gemm"]["algo_rank"], kernel["gemm"]["split_k"]) if kernel["gemm"]
                  else (kernel["conv"]["engine_rank"], 0))
        assert chosen == by_hash[kernel["hash"]], kernel
        assert (kernel["gemm"] or kernel["conv"])["tuned"], kernel
        tuned += 1
    print(f"sm_{sm}: {len(entries)} entries, {tuned} library kernels match")
    sys.exit(0)
if len(sys.argv) > 3:
    dump = open(sys.argv[3]).read()
    by_hash = {e["kernel"]: (e["schedule"]["block_size"],
                             e["schedule"]["elements_per_thread"], e["schedule"]["tile"],
                             e["schedule"]["rows_per_block"])
               for e in entries if "block_size" in e["schedule"]}
    # #kernel.schedule<[source = tuned, ]block_size = B[, elements_per_thread
    # = E][, tile = T][, rows_per_block = R]>: the source is heuristic when
    # absent.
    pattern = (r'exec\.kernel @\S+\s+\w+ attributes \{[^\n]*?hash = "([0-9a-f]{16})"'
               r'[^\n]*?schedule = #kernel\.schedule<(?:source = (\w+), )?block_size = (\d+)'
               r'(?:, elements_per_thread = (\d+))?(?:, tile = (\d+))?'
               r'(?:, rows_per_block = (\d+))?>')
    for m in re.finditer(pattern, dump):
        h, source, block = m.group(1), m.group(2) or "heuristic", int(m.group(3))
        knobs = (block, int(m.group(4) or 1), int(m.group(5) or 16), int(m.group(6) or 1))
        if h in by_hash:
            assert source == "tuned" and knobs == by_hash[h], (h, knobs, source)
            tuned += 1
        else:
            assert source == "heuristic", (h, source)
print(f"sm_{sm}: {len(entries)} entries, {tuned} tuned kernels match")
