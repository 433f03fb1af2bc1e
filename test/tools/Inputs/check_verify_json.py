"""Checks a `graphc verify --json` report.

usage: check_verify_json.py REPORT.json [--profile PROFILE.json]
       [--first-node NODE --diagnosis KIND] [--all] [--passed]

--profile: a `graphc run --profile-json` file of the same artifact: the
steps verify probed are those of the run (same count, same kernel at each
index). --first-node/--diagnosis: the first failing step covers NODE (its
ONNX nodes) and holds a tensor NODE computes, diagnosed KIND. --all: every
step of the plan is listed, in order. --passed: the report passes.
"""
import argparse
import json
import math

parser = argparse.ArgumentParser()
parser.add_argument("report")
parser.add_argument("--profile")
parser.add_argument("--first-node")
parser.add_argument("--diagnosis")
parser.add_argument("--all", action="store_true")
parser.add_argument("--passed", action="store_true")
args = parser.parse_args()

report = json.load(open(args.report))
for key in ("graphc_verify", "model", "artifact", "target", "precision",
            "rtol", "atol", "passed", "runs"):
    assert key in report, key
assert report["passed"] == args.passed, report["passed"]
run = report["runs"][0]
for key in ("index", "inputs", "plan", "passed", "outputs", "num_steps",
            "first_failing_step"):
    assert key in run, key
for output in run["outputs"]:
    for key in ("name", "dtype", "dims", "within_tolerance", "max_abs_error",
                "rel_error", "nan", "inf", "min", "max", "reference_min",
                "reference_max"):
        assert key in output, key
    error = output["max_abs_error"]
    assert isinstance(error, (int, float)) or error in ("inf", "nan"), error

if args.first_node:
    first = run["first_failing_step"]
    assert first is not None, run
    assert args.first_node in first["onnx_nodes"], first
    assert first["node"] == args.first_node, first
    assert first["within_tolerance"] is False, first
    assert first["diagnosis"]["kind"] == args.diagnosis, first["diagnosis"]
    for key in ("step", "result", "kernel", "kind", "tensor", "dtype",
                "dims", "max_abs_error"):
        assert key in first, key

if run["bisected"]:
    # Probing changed no launch: the probed run's outputs are the plain
    # run's, byte for byte.
    assert run["probed_outputs_differ"] == [], run["probed_outputs_differ"]

if args.all:
    steps = run["steps"]
    indices = [s["step"] for s in steps]
    assert indices == sorted(indices), indices
    assert set(indices) == set(range(run["num_steps"])), (indices, run)

if args.profile:
    profile = json.load(open(args.profile))
    assert profile["plan"] == run["plan"], (profile["plan"], run["plan"])
    assert len(profile["steps"]) == run["num_steps"], (profile, run)
    for step in run.get("steps", []):
        expected = profile["steps"][step["step"]]["kernel"] or "copy"
        assert step["kernel"] == expected, (step, expected)
print("ok")
