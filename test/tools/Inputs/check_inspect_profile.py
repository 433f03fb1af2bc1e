"""Checks graphc inspect --profile against the profile it read and the plain
report: per step the measured time is the profile's median and the achieved
fraction is the roofline time over it; the bounds follow the cost model."""
import json
import sys

plain, profiled, profile = (json.load(open(path)) for path in sys.argv[1:4])
assert "profile" not in plain, plain.keys()
assert profiled["profile"]["plan"] == profile["plan"] == "static", profiled["profile"]
assert profiled["profile"]["runs"] == 3 and profiled["profile"]["target"] == "cpu"
plan = profiled["plans"][0]
steps = plan["steps"]
assert len(steps) == len(profile["steps"]) == 3, steps
for ours, theirs, before in zip(steps, profile["steps"], plain["plans"][0]["steps"]):
    assert ours["kernel"] == theirs["kernel"], (ours, theirs)
    assert ours["measured_us"] == theirs["median_us"] > 0, (ours, theirs)
    fraction = ours["estimated_us"] / ours["measured_us"]
    assert abs(ours["roofline_fraction"] - fraction) < 1e-12, ours
    # The profile adds to the report; it changes nothing there.
    assert {k: v for k, v in ours.items()
            if k not in ("measured_us", "roofline_fraction")} == before, (ours, before)
# The first GEMM: 2*1024*128*784 flops at 67 TFLOP/s outweigh its 4.1 MB at
# 3.35 TB/s; the softmax moves bytes and computes little.
gemm, _, softmax = steps
assert gemm["bound"] == "compute", gemm
assert abs(gemm["estimated_us"] - gemm["flops"] / 67e12 * 1e6) < 1e-9, gemm
assert softmax["bound"] == "memory", softmax
moved = softmax["bytes_read"] + softmax["bytes_written"]
assert abs(softmax["estimated_us"] - moved / 3.35e12 * 1e6) < 1e-9, softmax
totals = plan["totals"]
assert abs(totals["measured_us"] - sum(s["median_us"] for s in profile["steps"])) < 1e-9
assert abs(totals["roofline_fraction"] - totals["estimated_us"] / totals["measured_us"]) < 1e-12
print("ok")
