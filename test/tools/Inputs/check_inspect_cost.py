"""Checks the cost report of the MLP (784 -> 128 -> 10, batch 8) by hand."""
import json
import re
import sys


def ops(name):
    """What a kernel fuses: its name without the hash that ends it."""
    match = re.fullmatch(r"(.+)_[0-9a-f]{6,}", name)
    assert match, name
    return match.group(1)


h100, a100, unfused = (json.load(open(path)) for path in sys.argv[1:4])
plan = h100["plans"][0]
steps = plan["steps"]
assert [s["kind"] for s in steps] == ["host_call"] * 3, steps
assert [ops(s["kernel"]) for s in steps] == ["gemm_relu", "gemm", "softmax"], steps
fc1 = steps[0]
assert fc1["onnx_nodes"] == "fc1,relu1", fc1
# x [8,784], W [128,784] and the bias [128] in; h [8,128] out.
assert fc1["bytes_read"] == 4 * (8 * 784 + 128 * 784 + 128), fc1
assert fc1["bytes_written"] == 4 * 8 * 128, fc1
# 2*M*N*K for the product, one per element for the bias and for the relu.
assert fc1["flops"] == 2 * 8 * 128 * 784 + 2 * 8 * 128, fc1
# The first layer is bandwidth-bound on an H100: bytes / 3.35 TB/s.
moved = fc1["bytes_read"] + fc1["bytes_written"]
assert abs(fc1["estimated_us"] - moved / 3.35e12 * 1e6) < 1e-9, fc1
totals = plan["totals"]
assert totals["launches"] == 3 and totals["copies"] == 0, totals
for key in ("bytes_read", "bytes_written", "flops"):
    assert totals[key] == sum(s[key] for s in steps), (key, totals)
assert abs(totals["estimated_us"] - sum(s["estimated_us"] for s in steps)) < 1e-9
assert h100["roofline"] == {"gpu": "h100", "bytes_per_s": 3.35e12,
                            "fp32_flops_per_s": 67e12,
                            "fp16_flops_per_s": 989e12}, h100["roofline"]
# The A100 has less bandwidth: the same bytes take longer.
assert a100["roofline"]["gpu"] == "a100"
ratio = a100["plans"][0]["steps"][0]["estimated_us"] / fc1["estimated_us"]
assert abs(ratio - 3.35 / 2.039) < 1e-6, ratio
# Unfused: gemm, relu, gemm, softmax each a kernel; the relu's input and
# output now go through memory.
apart = unfused["plans"][0]
assert [ops(s["kernel"]) for s in apart["steps"]] == ["gemm", "relu", "gemm",
                                                      "softmax"], apart["steps"]
assert apart["totals"]["flops"] == totals["flops"], (apart["totals"], totals)
hidden = 4 * 8 * 128
assert (apart["totals"]["bytes_read"] + apart["totals"]["bytes_written"] ==
        totals["bytes_read"] + totals["bytes_written"] + 2 * hidden), apart["totals"]
print("ok")
