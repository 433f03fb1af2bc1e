"""Writes broken model files for the error tests.

    python corrupt.py truncate IN OUT   # the first half of IN
    python corrupt.py random OUT        # 4 KiB of seeded random bytes
"""
import random
import sys

if sys.argv[1] == "truncate":
    data = open(sys.argv[2], "rb").read()
    open(sys.argv[3], "wb").write(data[: len(data) // 2])
else:
    rng = random.Random(1)
    open(sys.argv[2], "wb").write(bytes(rng.getrandbits(8) for _ in range(4096)))
