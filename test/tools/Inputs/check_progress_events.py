"""Checks a `graphc compile --progress json` event log: every line one JSON
object, the stages started and ended in the order given with whole
millisecond durations, then one summary event last. Prints the kernel count
and the summary for FileCheck.

usage: check_progress_events.py EVENTS.jsonl STAGE..."""
import json
import sys

path, stages = sys.argv[1], sys.argv[2:]
with open(path, encoding="utf-8") as log:
    events = [json.loads(line) for line in log]
expected = []
for stage in stages:
    expected += [("stage_start", stage), ("stage_end", stage)]
seen = [(e["event"], e["stage"]) for e in events
        if e["event"] in ("stage_start", "stage_end")]
assert seen == expected, seen
for event in events:
    if event["event"] == "stage_end":
        assert isinstance(event["ms"], int) and event["ms"] >= 0, event
kernels = [e for e in events if e["event"] == "kernels"]
assert kernels and all(e["stage"] == "codegen" for e in kernels), kernels
assert [e["done"] for e in kernels] == list(range(kernels[-1]["total"] + 1)), kernels
print(f"kernels {kernels[-1]['done']} of {kernels[-1]['total']}")
summary = events[-1]
assert summary["event"] == "summary" and sum(
    e["event"] == "summary" for e in events) == 1, events
source = "default" if summary["target_source"] == "default" else "--target"
print(f"summary: target {summary['target']} ({source}), {' '.join(summary['sms'])}, "
      f"{summary['kernels']} kernels, output {summary['output']}")
assert summary["ms"] >= 0 and summary["weight_bytes"] > 0, summary
