"""Damages every compile cache entry of one kind, as a disk error or an
interrupted copy would: flips the last byte of each file under
CACHE/v1/KIND/. Prints how many it damaged.

usage: damage_cache_entries.py CACHE KIND"""
import os
import sys

cache, kind = sys.argv[1:3]
folder = os.path.join(cache, "v1", kind)
damaged = 0
for name in sorted(os.listdir(folder)):
    path = os.path.join(folder, name)
    with open(path, "r+b") as entry:
        entry.seek(-1, os.SEEK_END)
        last = entry.read(1)[0]
        entry.seek(-1, os.SEEK_END)
        entry.write(bytes([last ^ 0xFF]))
    damaged += 1
print(f"damaged {damaged}")
