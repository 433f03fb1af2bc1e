#!/usr/bin/env python3
"""Summarises ctest runs for the test command's log.

For each build tree given, reads ctest's Testing/Temporary/LastTest.log and
prints the conformance counts (the summary lines the conformance tests print,
which ctest keeps in its log only) and the reason of every skipped test. The
last line totals every tree: 'N passed, N failed, N skipped'.

Usage: test_report.py BUILD_DIR [BUILD_DIR ...]
"""
import os
import re
import sys

# A test's block in LastTest.log starts with "K/N Testing: NAME".
BLOCK_START = re.compile(r"^\d+/\d+ Testing: (.+)$", re.M)
# Summary lines of the conformance scripts.
COUNT_LINE = re.compile(
    r"^(?:node tests|models tests|model tests) \([a-z-]+\):.*$|^nvrtc \(.*$", re.M)
GTEST_SKIP = re.compile(r"^[^\n]*: Skipped\n(.*)$", re.M)
# Python tests announce what they skip and why on one line.
ANNOUNCED_SKIP = re.compile(r"^skipping (.*)$", re.M)
LIT_UNSUPPORTED = re.compile(r"^UNSUPPORTED: (.*?) \(\d+ of \d+\)$", re.M)
UNITTEST_SKIP = re.compile(r"^(\S+) \(([^)]*)\) \.\.\. skipped '(.*)'$", re.M)


def blocks(log):
    starts = list(BLOCK_START.finditer(log))
    for i, start in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(log)
        yield start.group(1).strip(), log[start.end():end]


def outcome(body):
    if "\nTest Passed." in body:
        return "passed"
    if "Skip regular expression found" in body or "\nTest Skipped" in body:
        return "skipped"
    # A test judged by its output (PASS_REGULAR_EXPRESSION) says why it
    # passed instead of "Test Passed.".
    if "\nTest Pass Reason:" in body:
        return "passed"
    return "failed"


def report(tree):
    path = os.path.join(tree, "Testing", "Temporary", "LastTest.log")
    if not os.path.exists(path):
        print(f"{tree}: no ctest log (the stage did not run its tests)")
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        log = f.read()
    totals = {"passed": 0, "failed": 0, "skipped": 0}
    counts, skips = [], []
    for name, body in blocks(log):
        result = outcome(body)
        totals[result] += 1
        if name.startswith("conformance"):
            counts += [f"{name}: {line}" for line in COUNT_LINE.findall(body)]
        for reason in GTEST_SKIP.findall(body):
            skips.append(f"{name}: {reason.strip()}")
        for test in LIT_UNSUPPORTED.findall(body):
            skips.append(f"{name}: {test}: its REQUIRES are not met in this "
                         "build")
        for reason in ANNOUNCED_SKIP.findall(body):
            skips.append(f"{name}: {reason.strip()}")
        for test, _, reason in UNITTEST_SKIP.findall(body):
            skips.append(f"{name}: {test}: {reason}")
    # Tests that did not run (a failed fixture) have no block in the log;
    # ctest lists them with the failures.
    failed_log = os.path.join(tree, "Testing", "Temporary", "LastTestsFailed.log")
    if os.path.exists(failed_log):
        with open(failed_log, encoding="utf-8", errors="replace") as f:
            totals["failed"] = max(totals["failed"],
                                   sum(1 for line in f if line.strip()))
    print(f"-- {os.path.basename(os.path.normpath(tree))}: "
          f"{totals['passed']} passed, {totals['failed']} failed, "
          f"{totals['skipped']} skipped")
    for line in counts:
        print(f"   {line}")
    for line in skips:
        print(f"   skipped: {line}")
    return totals


def main():
    grand = {"passed": 0, "failed": 0, "skipped": 0}
    for tree in sys.argv[1:]:
        totals = report(tree)
        if totals:
            for key in grand:
                grand[key] += totals[key]
    print(f"{grand['passed']} passed, {grand['failed']} failed, "
          f"{grand['skipped']} skipped")


if __name__ == "__main__":
    main()
